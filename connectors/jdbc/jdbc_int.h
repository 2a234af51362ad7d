/*
 * jdbc_int.h — the dialect layer of the "jdbc" sink.
 *
 * jdbc.c owns everything a database does not decide: options, changelog
 * negotiation, turning values into parameters, the flush transaction (over
 * the core's per-key buffer, flush thread and retry loop, cdc_sink_buffer.h),
 * and error texts. A dialect owns the rest:
 * how identifiers are quoted, the text of the upsert/insert/delete
 * statements, the column type of each logical type for CREATE TABLE, and the
 * client library calls (connect, begin/commit/rollback, prepare/bind/step)
 * with the test that says whether a failure is worth retrying.
 *
 * Contracts every dialect keeps, so jdbc.c binds the same way for all:
 *  - upsert/insert statements take one parameter per column that is not
 *    omitted, in schema order; delete statements take the primary key
 *    columns in primary key order;
 *  - values are always parameters, never spliced into the text;
 *  - a failing call returns -1 and leaves its message in the connection, read
 *    with errmsg() until the next call on that connection (no allocation).
 */
#ifndef JDBC_INT_H
#define JDBC_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "cdc_plugin.h"

/** A value in the form every dialect can bind. */
typedef enum jdbc_param_kind {
    JDBC_P_NULL,
    JDBC_P_INT,    /* i: BOOLEAN (0/1), TINYINT..BIGINT */
    JDBC_P_DOUBLE, /* d: FLOAT, DOUBLE */
    JDBC_P_TEXT,   /* ptr/len: strings; DECIMAL, DATE, TIME, TIMESTAMP as text in buf */
    JDBC_P_BLOB    /* ptr/len: BINARY, VARBINARY */
} jdbc_param_kind_t;

typedef struct jdbc_param_s {
    jdbc_param_kind_t kind;
    const cdc_type_t *type; /* the column's logical type, for dialects that care */
    int64_t i;
    double d;
    const char *ptr; /* TEXT/BLOB bytes; may point into buf; never NULL for TEXT/BLOB */
    size_t len;
    char buf[CDC_VALUE_TEXT_MAX]; /* formatted DECIMAL/DATE/TIME/TIMESTAMP text */
} jdbc_param_t;

/** The target table as the statements see it. */
typedef struct jdbc_table_s {
    const char *name;         /* the "table-name" option, verbatim */
    const cdc_type_t *schema; /* ROW of the columns */
    const int *pk;            /* primary key column indexes; npk = 0 when none */
    int npk;
} jdbc_table_t;

/** One cell of a result row (lookups): text, or raw bytes for binary columns. */
typedef struct jdbc_cell_s {
    const char *ptr; /* valid during the row callback only */
    size_t len;
    bool null;
} jdbc_cell_t;

/** Columns a lookup query may return. */
#define JDBC_MAX_QUERY_COLUMNS 1024

/** Called once per result row; returns 0 to go on, -1 to stop (the query then fails). */
typedef int (*jdbc_row_fn)(void *ctx, const jdbc_cell_t *cells, int ncells);

typedef struct jdbc_conn_s jdbc_conn_t; /* a dialect's connection */
typedef struct jdbc_stmt_s jdbc_stmt_t; /* a dialect's prepared statement */

/** A column type change (jdbc_schema.c): the column after a checked widening. */
typedef struct jdbc_alter_s {
    const char *table; /* the "table-name" option */
    const char *column;
    const cdc_type_t *type; /* the type after, nullable or NOT NULL */
    bool key;               /* part of the sink's primary key */
    bool notnull_now;       /* the column is NOT NULL in the table now */
} jdbc_alter_t;

typedef struct jdbc_dialect_s {
    const char *name;       /* "sqlite" */
    const char *url_prefix; /* "jdbc:sqlite:" */
    bool dollar_params;     /* placeholders are $1, $2, ... (PostgreSQL) instead of ? */

    /** Appends ident quoted so that any bytes are taken verbatim as one name. */
    void (*quote_ident)(cdc_buf_t *out, const char *ident);
    /** Appends the table name (quoted) as the "table-name" option means it. */
    void (*quote_table)(cdc_buf_t *out, const char *table_name);
    /**
     * Appends the column type used by CREATE TABLE for a logical type.
     * Returns -1 (appending nothing) when the dialect has no mapping.
     */
    int (*column_type)(cdc_buf_t *out, const cdc_type_t *type);
    /**
     * Optional: the column type of a primary key column where the database needs another
     * one (MySQL cannot index a LONGTEXT); NULL means column_type. Never fails where
     * column_type does not.
     */
    int (*key_column_type)(cdc_buf_t *out, const cdc_type_t *type);
    /**
     * Appends an upsert by primary key of the columns with omit[i] == 0 (the
     * key columns are never omitted). Existing rows keep omitted columns.
     */
    void (*upsert_sql)(cdc_buf_t *out, const jdbc_table_t *t, const uint8_t *omit);
    /** Appends a plain INSERT of the columns with omit[i] == 0. */
    void (*insert_sql)(cdc_buf_t *out, const jdbc_table_t *t, const uint8_t *omit);
    /** Appends a DELETE by primary key. */
    void (*delete_sql)(cdc_buf_t *out, const jdbc_table_t *t);

    /**
     * Connects to the url's target (the url after url_prefix). Returns 0, or
     * -1 with *err set (never naming the password).
     */
    int (*connect)(const char *target, const char *username, const char *password,
                   jdbc_conn_t **out, cdc_error_t **err);
    void (*disconnect)(jdbc_conn_t *conn); /* NULL is accepted */
    /** Runs one statement without parameters (DDL). */
    int (*exec)(jdbc_conn_t *conn, const char *sql);
    /** Starts the flush transaction; takes the write lock up front where the database has one. */
    int (*begin)(jdbc_conn_t *conn);
    int (*commit)(jdbc_conn_t *conn);
    /** Rolls back the open transaction, if any; keeps the message of the failure before it. */
    void (*rollback)(jdbc_conn_t *conn);
    /** Prepares a statement; NULL on failure. */
    jdbc_stmt_t *(*prepare)(jdbc_conn_t *conn, const char *sql);
    /** Binds parameter idx (0-based). The value must stay valid until step returns. */
    int (*bind)(jdbc_stmt_t *stmt, int idx, const jdbc_param_t *p);
    /**
     * Executes the bound statement once (or queues it, see failed_step) and makes it ready
     * for the next binding.
     */
    int (*step)(jdbc_stmt_t *stmt);
    void (*finalize)(jdbc_stmt_t *stmt); /* NULL is accepted */
    /**
     * Optional: for a dialect that queues statements (step returns before the server ran
     * them) and reports their failures at commit. Returns the index, counted from 0 since
     * begin, of the step whose statement failed, or -1 when the failure belongs to no step.
     * NULL: every failure is reported by the call that failed.
     */
    int64_t (*failed_step)(jdbc_conn_t *conn);
    /** Message of the last failure on conn. */
    const char *(*errmsg)(jdbc_conn_t *conn);
    /** True when the last failure is transient (lock contention, deadlock): replay the batch. */
    bool (*retriable)(jdbc_conn_t *conn);

    /*
     * Optional set-based flush of a keyed table (all NULL when the dialect has none):
     * bulk_begin opens the flush transaction and a staging area, bulk_row adds one coalesced
     * change with a value for every column (op 'U' upsert, 'D' delete, 'R' delete then
     * upsert), bulk_commit applies the staged changes (deletes first) and commits. A failure
     * returns -1 with the message in the connection; the caller rolls back and may replay
     * the flush statement by statement to name the failing row.
     */
    int (*bulk_begin)(jdbc_conn_t *conn, const jdbc_table_t *t);
    /** The fewest keys a flush needs to take the set-based path; 0 means 256. */
    int bulk_min;
    int (*bulk_row)(jdbc_conn_t *conn, char op, const jdbc_param_t *params, int n);
    int (*bulk_commit)(jdbc_conn_t *conn);

    /**
     * Lookups (connectors/jdbc/jdbc_lookup.c): runs the bound SELECT (outside
     * any transaction) and calls row once per result row. Cells are text as
     * the server prints the value (booleans as 0/1 or t/f, timestamps with a
     * space, a zone suffix for zoned types), binary columns as raw bytes.
     * Returns 0, or -1 with the failure in the connection (or when row
     * returned -1).
     */
    int (*query)(jdbc_stmt_t *stmt, jdbc_row_fn row, void *ctx);

    /*
     * Schema changes (jdbc_schema.c). Statements run with exec(), outside the flush
     * transaction, on a connection of their own.
     */
    /** Starts a transaction DDL takes part in; NULL: DDL commits implicitly (MySQL). */
    const char *ddl_begin;
    /** ADD COLUMN IF NOT EXISTS and DROP COLUMN IF EXISTS are understood. */
    bool ddl_if_exists;
    /** Prefix of the statement deleting every row ("TRUNCATE TABLE "), the table follows. */
    const char *truncate_sql;
    /**
     * A query of one text parameter, the table, giving one row per column of it: the
     * column's name and 1/t when it is NOT NULL, else 0/f.
     */
    const char *columns_query;
    /** The parameter of columns_query is the table quoted by quote_table (not verbatim). */
    bool columns_by_quoted_name;
    /**
     * Changes a column's type and nullability to a->type (a widening jdbc_schema.c checked);
     * nothing when the column has it already. Leaves the last statement in sql; -1 with the
     * failure in conn.
     */
    int (*alter_type)(jdbc_conn_t *conn, const jdbc_alter_t *a, cdc_buf_t *sql);
} jdbc_dialect_t;

/* SQL text shared by the dialects (quoting and placeholders from the dialect). */

/** True when column col is part of the table's primary key. */
bool jdbc_is_pk(const jdbc_table_t *t, int col);
/** Appends `INSERT INTO table (cols) VALUES (params)` for the columns with omit[i] == 0. */
void jdbc_sql_insert(cdc_buf_t *out, const jdbc_dialect_t *d, const jdbc_table_t *t,
                     const uint8_t *omit);
/**
 * Appends the SQL-standard-style upsert tail used by PostgreSQL and SQLite:
 * ` ON CONFLICT (pk) DO UPDATE SET c = EXCLUDED.c, ...` over the non-key,
 * non-omitted columns, or ` ON CONFLICT (pk) DO NOTHING` when there are none.
 */
void jdbc_sql_on_conflict(cdc_buf_t *out, const jdbc_dialect_t *d, const jdbc_table_t *t,
                          const uint8_t *omit);
/** Appends `DELETE FROM table WHERE pk1 = param AND ...`. */
void jdbc_sql_delete(cdc_buf_t *out, const jdbc_dialect_t *d, const jdbc_table_t *t);

/** The dialect of a "url" option, or NULL. */
const jdbc_dialect_t *jdbc_dialect_for(const char *url);
/** The parameter for one value of logical type t (never UNCHANGED). */
void jdbc_to_param(jdbc_param_t *p, const cdc_value_t *v, const cdc_type_t *t);
/** What jdbc_schema_apply changes: the sink's table on a connection of its own. */
typedef struct jdbc_ddl_s {
    const jdbc_dialect_t *d;
    jdbc_conn_t *conn;
    const char *table;        /* the "table-name" option */
    const char *qualified;    /* the catalog table, for messages */
    const cdc_type_t *schema; /* the sink's declared columns and key (for key column types) */
    const int *pk;
    int npk;
} jdbc_ddl_t;

/**
 * Applies a schema change whose items name the sink's columns (jdbc_schema.c); idempotent.
 * Returns 0, or -1 with *err naming the table, the statement and the server's message.
 */
int jdbc_schema_apply(const jdbc_ddl_t *t, const cdc_schema_change_t *change, cdc_error_t **err);
/** True when every value of type `from` fits type `to` (a widening, or the same type). */
bool jdbc_type_widens(const cdc_type_t *from, const cdc_type_t *to);
/** The jdbc connector's lookup source (jdbc_lookup.c): a LookupTableSource, not scanned. */
int jdbc_lookup_source_new(const cdc_table_ctx_t *ctx, cdc_source_t **out, cdc_error_t **err);

extern const jdbc_dialect_t jdbc_dialect_sqlite;
extern const jdbc_dialect_t jdbc_dialect_postgres;
extern const jdbc_dialect_t jdbc_dialect_mysql;
extern const jdbc_dialect_t jdbc_dialect_mariadb; /* the same under "jdbc:mariadb:" */

#endif
