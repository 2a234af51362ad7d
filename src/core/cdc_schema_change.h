/*
 * cdc_schema_change.h — a schema change seen in a source's stream (DDL), and
 * the policy that decides what the pipeline does with it.
 *
 * A CDC source reports each change of a captured table's columns as one
 * cdc_schema_change_t: where it happened (the table and the stream position),
 * the statement when the source has it, the column lists before and after,
 * and the change as items (add, drop, rename, type, truncate, ...). The same
 * structure, with sink column names, tells a sink what to apply
 * (cdc_sink_ops_t.apply_schema_change). Sources build one with
 * cdc_schema_change_new and either add the items themselves (they know a
 * rename or a DEFAULT from the DDL) or let cdc_schema_change_diff derive them
 * from the two column lists.
 *
 * The policy is Flink CDC's `schema.change.behavior`: exception, evolve,
 * try_evolve, lenient (the default) and ignore; README "Schema changes" has
 * the table of what each does.
 */
#ifndef CDC_SCHEMA_CHANGE_H
#define CDC_SCHEMA_CHANGE_H

#include <stdbool.h>

#include "cdc_error.h"
#include "cdc_types.h"
#include "cdc_arena.h"

typedef enum cdc_sc_kind {
    CDC_SC_ADD_COLUMN,     /* column, type (its nullability included), default_sql, after */
    CDC_SC_DROP_COLUMN,    /* column, old_type */
    CDC_SC_RENAME_COLUMN,  /* column -> new_name */
    CDC_SC_ALTER_TYPE,     /* column: old_type -> type (a widening, or a nullability change) */
    CDC_SC_TRUNCATE_TABLE, /* every row deleted at once (no row events) */
    CDC_SC_CREATE_TABLE,   /* a captured table created: change->after is its columns */
    CDC_SC_DROP_TABLE,     /* a captured table dropped */
    CDC_SC_OTHER           /* a DDL on a captured table that is none of the above (change->ddl) */
} cdc_sc_kind_t;

typedef struct cdc_sc_item_s {
    cdc_sc_kind_t kind;
    char *column;         /* the column (by its name before the change); NULL for table items */
    char *new_name;       /* RENAME_COLUMN: the new name */
    cdc_type_t *type;     /* ADD_COLUMN, ALTER_TYPE: the type after (nullable or NOT NULL) */
    cdc_type_t *old_type; /* ALTER_TYPE, DROP_COLUMN: the type before; may be NULL */
    char *default_sql;    /* ADD_COLUMN: the DEFAULT as a SQL literal ("5", "'x'"), or NULL */
    char *after;          /* ADD_COLUMN: the column it follows, "" for FIRST, NULL for last */
} cdc_sc_item_t;

typedef struct cdc_schema_change_s {
    char *table;        /* "db.table" at the source ("schema.table" for PostgreSQL); a sink change:
                           the sink's table name */
    char *position;     /* where, in the source's words: "binlog mbin.000002:1234",
                           "LSN 0/16B3748", "topic orders partition 3 offset 42" */
    char *ddl;          /* the statement, when the source has it; else NULL */
    cdc_type_t *before; /* ROW: the columns before (NULL when unknown, e.g. CREATE TABLE) */
    cdc_type_t *after;  /* ROW: the columns after (NULL when unknown, e.g. DROP TABLE) */
    cdc_sc_item_t *items;
    int nitems;
    int cap;
} cdc_schema_change_t;

/** A new change with no items; strings copied (ddl may be NULL). cdc_schema_change_free. */
cdc_schema_change_t *cdc_schema_change_new(const char *table, const char *position,
                                           const char *ddl);
void cdc_schema_change_free(cdc_schema_change_t *change);
cdc_schema_change_t *cdc_schema_change_copy(const cdc_schema_change_t *change);

/** Sets change->before / ->after to copies of the ROW types (either may be NULL). */
void cdc_schema_change_set_columns(cdc_schema_change_t *change, const cdc_type_t *before,
                                   const cdc_type_t *after);

/**
 * Appends an item; every argument is copied (NULL where the kind has no such
 * part). Returns the item, valid until the next add.
 */
cdc_sc_item_t *cdc_schema_change_add(cdc_schema_change_t *change, cdc_sc_kind_t kind,
                                     const char *column, const char *new_name,
                                     const cdc_type_t *type, const cdc_type_t *old_type,
                                     const char *default_sql);

/**
 * Derives the items from change->before and ->after (both set): columns
 * matched by name (renames: pairs old, new in `renames`, NULL-terminated, or
 * NULL; defaults: pairs column, literal in `defaults`, or NULL); added columns
 * in their order with `after` set, then drops, then type and nullability
 * changes. No items when the lists are equal.
 */
void cdc_schema_change_diff(cdc_schema_change_t *change, const char *const *renames,
                            const char *const *defaults);

/**
 * The ROW type `row` with the column items applied (add, drop, rename, type);
 * table items leave it as it is. NULL with *err when an item does not fit
 * (a dropped or renamed column that `row` lacks, an added one it has). The
 * caller destroys the result.
 */
cdc_type_t *cdc_schema_change_apply(const cdc_schema_change_t *change, const cdc_type_t *row,
                                    cdc_error_t **err);

/** Appends the items as SQL-like text ("ADD COLUMN c INT DEFAULT 5, DROP COLUMN d"). */
void cdc_schema_change_describe(const cdc_schema_change_t *change, cdc_buf_t *out);
/** The kind's words: "ADD COLUMN", "TRUNCATE TABLE", ... */
const char *cdc_sc_kind_name(cdc_sc_kind_t kind);

/* ---- the policy ---------------------------------------------------------------------------- */

typedef enum cdc_sc_policy {
    CDC_SC_LENIENT = 0, /* the default */
    CDC_SC_EXCEPTION,
    CDC_SC_EVOLVE,
    CDC_SC_TRY_EVOLVE,
    CDC_SC_IGNORE
} cdc_sc_policy_t;

/** Parses a policy name (case-insensitive); 0, or -1 when unknown. */
int cdc_sc_policy_parse(const char *text, cdc_sc_policy_t *out);
const char *cdc_sc_policy_name(cdc_sc_policy_t policy);

#endif
