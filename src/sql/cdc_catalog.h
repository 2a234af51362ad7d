/*
 * cdc_catalog.h — the catalogs of a run (Flink's CatalogManager and
 * FunctionCatalog, FLIP-64 / FLIP-57).
 *
 * Catalogs hold databases; databases hold tables, views and functions. A run
 * starts with catalog "default_catalog" (in memory, or a file catalog when
 * opened with cdc_catalog_new_with_dir()) holding "default_database", and
 * those are current. `CREATE CATALOG c WITH ('type' = ...)` adds more:
 *   generic_in_memory   objects live as long as the run
 *   file                each database is a directory under 'path', each permanent
 *                       object a DDL file in it (see "file catalogs" below)
 *
 * Names. An identifier of 1, 2 or 3 parts resolves against the current
 * catalog and database: `t` -> current.current.t, `d.t` -> current.d.t,
 * `c.d.t` as written. Names are case-sensitive except function names, which
 * are compared in lower case (Flink normalizes them).
 *
 * Temporary objects (CREATE TEMPORARY TABLE/VIEW/FUNCTION) live in memory for
 * the run, keyed by the full identifier; their catalog and database must
 * exist. A temporary object shadows a permanent one of the same identifier:
 * lookups find the temporary one first. DROP TEMPORARY drops only temporary
 * objects; dropping a permanent object fails while a temporary one shadows
 * it. Tables and views share one namespace, functions have their own.
 * Temporary system functions (CREATE TEMPORARY SYSTEM FUNCTION f) have a
 * one-part name and shadow built-in functions. A one-part function name
 * resolves: temporary system function, built-in, temporary function in the
 * current database, permanent function in the current database (FLIP-57);
 * a 2- or 3-part name: temporary, then permanent function.
 *
 * File catalogs. Layout of DIR:
 *   DIR/.lock                            flock'ed: shared to read, exclusive to write
 *   DIR/.version                         a counter bumped by every write
 *   DIR/<db>/                            one directory per database
 *   DIR/<db>/.database.sql               CREATE DATABASE with COMMENT/WITH, when given
 *   DIR/<db>/<name>.table.sql            CREATE TABLE  `name` ... (normalized, LIKE resolved)
 *   DIR/<db>/<name>.view.sql             CREATE VIEW   `name` ... AS <query, names qualified>
 *   DIR/<db>/<name>.function.sql         CREATE FUNCTION `name` AS 'lib.so:symbol' LANGUAGE C
 * <db> and <name> are the names with every byte outside [A-Za-z0-9_-]
 * written as %XX. Files are written to a temporary file, fsync'ed and renamed
 * into place, so a reader sees an old or a new file, never half of one. Every
 * write takes the exclusive lock, re-reads the directory when .version moved,
 * checks, writes and bumps .version; so two processes creating the same name
 * see one succeed and the other fail with "already exists". Lookups re-read
 * the directory when .version moved since the last read. A file that does not
 * parse is an error naming the file. Catalog registrations themselves (CREATE
 * CATALOG) last for the run.
 *
 * Lifetimes: definitions returned by lookups are borrowed and stay valid until
 * cdc_catalog_destroy(), even after the object is dropped or re-read.
 */
#ifndef CDC_CATALOG_H
#define CDC_CATALOG_H

#include <stdbool.h>
#include <stdio.h>

#include "cdc.h"
#include "cdc_plugin.h"
#include "cdc_sql_parser.h"

typedef enum cdc_column_kind {
    CDC_COLUMN_PHYSICAL = 1, /* name TYPE */
    CDC_COLUMN_COMPUTED,     /* name AS expr */
    CDC_COLUMN_METADATA      /* name TYPE METADATA [FROM 'key'] [VIRTUAL] */
} cdc_column_kind_t;

/** One column of a table, in declaration order. */
typedef struct cdc_column_def_s {
    char *name;
    cdc_column_kind_t kind;
    /* Physical: borrowed from the table's schema (same pointer as schema->children[physical]).
     * Metadata: the declared type, owned. Computed: the type derived from the expression when
     * it can be (CAST, columns, comparisons, string functions, PROCTIME(), UDFs ...), else NULL. */
    cdc_type_t *type;
    int physical;         /* index into the table's schema for physical columns, else -1 */
    cdc_sql_expr_t *expr; /* computed: the expression (positions are those of the DDL that
                             declared it) */
    char *expr_text;      /* computed: canonical SQL of expr */
    char *metadata_key;   /* metadata: the key read, the column name when FROM is absent */
    bool metadata_from;   /* metadata: FROM 'key' was written */
    bool is_virtual;      /* metadata: VIRTUAL (read only; sinks do not write it) */
    bool not_null;        /* NOT NULL was written (primary key columns are NOT NULL anyway) */
    char *comment;        /* NULL when none */
} cdc_column_def_t;

typedef struct cdc_table_def_s {
    char *catalog, *database, *name;
    char *qualified;    /* "catalog.database.name" */
    cdc_type_t *schema; /* ROW of the physical columns */
    int *pk;            /* primary key column indexes (into schema) */
    int npk;
    cdc_kv_t options; /* the WITH clause (merged with the LIKE base's), in declaration order */
    bool temporary;
    int line, col; /* of the name in CREATE TABLE (in the text named by origin) */

    cdc_column_def_t *columns; /* every column in declaration order (LIKE base's first) */
    int ncolumns;
    char *pk_name;       /* CONSTRAINT name of the primary key, NULL when not written */
    int *partition_keys; /* PARTITIONED BY, indexes into schema */
    int npartition_keys;
    char *watermark_column;         /* WATERMARK FOR column; NULL when none */
    char *watermark;                /* canonical SQL of the watermark expression */
    cdc_sql_expr_t *watermark_expr; /* the watermark expression */
    char *comment;                  /* table COMMENT, NULL when none */
    char *ddl;                      /* the DDL text it was created from (a catalog file's
                                       content when read from a file catalog) */
    char *origin;                   /* where the DDL came from: the script's or the catalog
                                       file's name ("<input>" when unnamed) */
} cdc_table_def_t;

typedef struct cdc_view_def_s {
    char *catalog, *database, *name;
    char *qualified;
    bool temporary;
    int line, col;
    char **columns; /* the declared column list (c1, c2), NULL when none */
    int ncolumns;
    char *comment;
    char *original_query; /* the query as written */
    char *query;          /* the query with every table name fully qualified (stored form) */
    /* query parsed: positions are relative to `query`, whose name for messages is "view
     * catalog.database.name" */
    const cdc_sql_query_t *query_ast;
    cdc_sql_script_t *script; /* owns query_ast */
    char *ddl;
    char *origin;
} cdc_view_def_t;

typedef struct cdc_function_def_s {
    char *catalog, *database; /* NULL for temporary system functions */
    char *name;               /* lower case */
    char *qualified;          /* "catalog.database.name", or "name" for system functions */
    bool temporary;
    bool system;
    char *identifier;         /* 'path/to/lib.so:symbol' */
    char *language;           /* "C" */
    const cdc_udf_def_t *udf; /* loaded definition; NULL until first used when read from a file
                                 catalog (cdc_catalog_resolve_function loads it) */
    char *ddl;
    char *origin;
} cdc_function_def_t;

typedef struct cdc_catalog_s cdc_catalog_t;

/** A new catalog manager with an in-memory default_catalog.default_database. Never NULL. */
cdc_catalog_t *cdc_catalog_new(void);

/**
 * A new catalog manager whose default_catalog is a file catalog in @p dir
 * (created, with default_database, when missing; in memory when @p dir is
 * NULL). Returns NULL with *err when the directory cannot be created or
 * locked, or a file in it does not load. With @p dry_run (cdcflow explain)
 * every file catalog, this one and those CREATE CATALOG adds, is only read:
 * nothing is created, and DDL changes the catalogs in memory, never on disk.
 * The caller frees the result with cdc_catalog_destroy().
 */
cdc_catalog_t *cdc_catalog_new_with_dir(const char *dir, bool dry_run, cdc_error_t **err);

void cdc_catalog_destroy(cdc_catalog_t *cat);
const char *cdc_catalog_current_catalog(const cdc_catalog_t *cat);
const char *cdc_catalog_current_database(const cdc_catalog_t *cat);

/*
 * Statements. Each takes the parsed statement, the whole script (@p text,
 * @p len) and its @p filename for messages: errors carry FILE:LINE:COL and a
 * caret (cdc_sql_error_at). Each returns 0, or -1 with *err.
 */

/** CREATE [TEMPORARY] TABLE [IF NOT EXISTS], with LIKE, computed and metadata columns,
 * PARTITIONED BY, WATERMARK. The table's ddl is its normalized DDL (use
 * cdc_catalog_create_table_stmt to keep the statement's own text). */
int cdc_catalog_create_table(cdc_catalog_t *cat, const cdc_sql_create_table_t *ct, const char *text,
                             size_t len, const char *filename, cdc_error_t **err);
/** Same, from a CDC_SQL_STMT_CREATE_TABLE statement, keeping its text as the table's ddl. */
int cdc_catalog_create_table_stmt(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text,
                                  size_t len, const char *filename, cdc_error_t **err);
/** CREATE [TEMPORARY] VIEW [IF NOT EXISTS] name [(cols)] [COMMENT] AS query. */
int cdc_catalog_create_view(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text,
                            size_t len, const char *filename, cdc_error_t **err);
/** CREATE [TEMPORARY [SYSTEM]] FUNCTION [IF NOT EXISTS] name AS 'lib.so:symbol' [LANGUAGE C]:
 * loads the function to validate it. */
int cdc_catalog_create_function(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text,
                                size_t len, const char *filename, cdc_error_t **err);
/** CREATE DATABASE [IF NOT EXISTS] [cat.]db [COMMENT] [WITH (...)]. */
int cdc_catalog_create_database(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text,
                                size_t len, const char *filename, cdc_error_t **err);
/** CREATE CATALOG [IF NOT EXISTS] c WITH ('type' = 'generic_in_memory' | 'file', ...). */
int cdc_catalog_create_catalog(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text,
                               size_t len, const char *filename, cdc_error_t **err);
/** DROP [TEMPORARY [SYSTEM]] TABLE/VIEW/FUNCTION, DROP DATABASE [RESTRICT|CASCADE], DROP
 * CATALOG, each [IF EXISTS]. */
int cdc_catalog_drop(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text, size_t len,
                     const char *filename, cdc_error_t **err);
/** USE CATALOG c (its default database becomes current) and USE [c.]db. */
int cdc_catalog_use(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text, size_t len,
                    const char *filename, cdc_error_t **err);

/* ---- lookups ----------------------------------------------------------------------------------
 */

/** Finds a table by name; NULL with *err (naming the fully qualified path, with a "did you
 * mean" hint) when absent or when the name is a view. */
const cdc_table_def_t *cdc_catalog_get_table(cdc_catalog_t *cat, const cdc_sql_name_t *name,
                                             const char *text, size_t len, const char *filename,
                                             cdc_error_t **err);

/** Finds a view by name; NULL with *err when absent or when the name is a table. */
const cdc_view_def_t *cdc_catalog_get_view(cdc_catalog_t *cat, const cdc_sql_name_t *name,
                                           const char *text, size_t len, const char *filename,
                                           cdc_error_t **err);

/**
 * Resolves a table-or-view name without building an error for a missing
 * object: returns 1 and sets exactly one of *table / *view (either pointer may
 * be NULL when not wanted), 0 when nothing has that name (or its catalog or
 * database does not exist), -1 with *err when a file catalog fails to re-read.
 */
int cdc_catalog_find(cdc_catalog_t *cat, const cdc_sql_name_t *name, const cdc_table_def_t **table,
                     const cdc_view_def_t **view, cdc_error_t **err);

/**
 * Resolves a function name ("f", "db.f" or "cat.db.f"; parts split at dots)
 * in FLIP-57 order (see above) and loads it when needed. Returns 1 with *udf
 * (and *def when @p def is not NULL), 0 when no user function has that name
 * or a built-in takes precedence, -1 with *err when loading fails.
 */
int cdc_catalog_resolve_function(cdc_catalog_t *cat, const char *name, const cdc_udf_def_t **udf,
                                 const cdc_function_def_t **def, cdc_error_t **err);

/** cdc_catalog_resolve_function() for the expression compiler's udf_lookup callback: the
 * definition, or NULL when not found or not loadable. */
const cdc_udf_def_t *cdc_catalog_lookup_function(cdc_catalog_t *cat, const char *name);

/**
 * Sets the built-in function names (a NULL-terminated array, borrowed: it
 * must outlive every catalog; NULL clears it). They take precedence over
 * user functions of the same one-part name, except temporary system
 * functions, and are listed by SHOW FUNCTIONS. Process-wide.
 */
void cdc_catalog_set_builtin_functions(const char *const *names);
/** The list set above (NULL-terminated), or NULL. */
const char *const *cdc_catalog_builtin_functions(void);

/**
 * Lists names for SHOW: catalogs; databases of the current catalog; tables
 * (tables and views, as Flink's SHOW TABLES), views, or functions (user
 * functions and built-ins) of the current catalog and database, temporary
 * objects included. Sorted (byte order), without duplicates. Returns the
 * count and a new NULL-terminated array in *out to free with
 * cdc_catalog_list_free(), or -1 with *err.
 */
int cdc_catalog_list(cdc_catalog_t *cat, cdc_sql_show_kind_t what, char ***out, cdc_error_t **err);
void cdc_catalog_list_free(char **names);

/* ---- DDL printing ------------------------------------------------------------------------------
 */

/**
 * The normalized DDL of a table: every identifier in backticks, types as
 * cdc_type_to_string() prints them, computed columns and the watermark as
 * canonical SQL, options in declaration order; it parses back to an equal
 * table. The name is `catalog`.`database`.`name` when @p qualified, else
 * `name`. Returns a new string the caller frees.
 */
char *cdc_table_def_to_sql(const cdc_table_def_t *table, bool qualified);
/**
 * The same with the column items of `edits` applied (DROP, RENAME, ALTER_TYPE of
 * physical columns; ADD appends physical columns after every other column).
 * NULL with *err when an edit cannot be written (a primary key column dropped).
 */
char *cdc_table_def_to_sql_edited(const cdc_table_def_t *table, const cdc_schema_change_t *edits,
                                  bool qualified, cdc_error_t **err);
/** Frees a table definition the caller built or owns (not one the catalog holds: those are
 * freed by DROP and cdc_catalog_destroy()); NULL is accepted. */
void cdc_table_def_destroy(cdc_table_def_t *t);

/** The normalized DDL of a view (the stored, qualified query). New string. */
char *cdc_view_def_to_sql(const cdc_view_def_t *view, bool qualified);
/** The normalized DDL of a function. New string. */
char *cdc_function_def_to_sql(const cdc_function_def_t *fn, bool qualified);

/** Appends @p ident in backticks (a backtick doubled). */
void cdc_sql_put_ident(cdc_buf_t *out, const char *ident);
/** Appends @p s as a single-quoted SQL string (a quote doubled). */
void cdc_sql_put_string(cdc_buf_t *out, const char *s);

/** Builds "FILE:LINE:COL" location errors with the caret detail. */
cdc_error_t *cdc_sql_error_at(cdc_errcode_t code, const char *text, size_t len,
                              const char *filename, int line, int col, const char *fmt, ...)
    CDC_PRINTF(7, 8);

#endif
