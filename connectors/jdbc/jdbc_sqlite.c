/*
 * jdbc_sqlite.c — the SQLite dialect of the "jdbc" sink (url "jdbc:sqlite:PATH"),
 * through libsqlite3.
 *
 * Upserts are `INSERT ... ON CONFLICT (pk) DO UPDATE SET c = excluded.c`,
 * the flush transaction is BEGIN IMMEDIATE (the write lock is taken up front,
 * so a busy database fails at BEGIN rather than halfway through the batch),
 * and SQLITE_BUSY/SQLITE_LOCKED are the retriable failures. No busy timeout
 * is set: the sink's own backoff (sink.max-retries) does the waiting.
 *
 * Column types for CREATE TABLE (SQLite keeps values by storage class; the
 * declared names give each column the affinity that stores them unchanged):
 *   BOOLEAN, TINYINT, SMALLINT, INT, BIGINT   INTEGER   (BOOLEAN as 0/1)
 *   FLOAT, DOUBLE                             REAL
 *   DECIMAL(p, s)                             TEXT      (exact decimal text; NUMERIC
 *                                                        affinity would round to REAL)
 *   CHAR, VARCHAR, STRING                     TEXT
 *   BINARY, VARBINARY, BYTES                  BLOB
 *   DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ      TEXT      ('2020-07-30', '10:08:22.123',
 *                                                        '2020-07-30 10:08:22.123'[Z])
 *   ARRAY, MAP, ROW                           no mapping (the sink rejects the table)
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jdbc_int.h"

struct jdbc_conn_s {
    sqlite3 *db;
    int last_rc;   /* extended result code of the last failure */
    char msg[512]; /* its message, kept across the rollback that follows */
};

struct jdbc_stmt_s {
    jdbc_conn_t *conn;
    sqlite3_stmt *stmt;
};

static void note_failure(jdbc_conn_t *conn, int rc)
{
    conn->last_rc = rc;
    snprintf(conn->msg, sizeof(conn->msg), "%s", sqlite3_errmsg(conn->db));
}

static void sqlite_quote_ident(cdc_buf_t *out, const char *ident)
{
    cdc_buf_putc(out, '"');
    for (const char *p = ident; *p; p++) {
        if (*p == '"')
            cdc_buf_putc(out, '"');
        cdc_buf_putc(out, *p);
    }
    cdc_buf_putc(out, '"');
}

/* SQLite has one namespace per attached database; "table-name" is one identifier, taken
   verbatim (a '.' in it is part of the name). */
static void sqlite_quote_table(cdc_buf_t *out, const char *table_name)
{
    sqlite_quote_ident(out, table_name);
}

static int sqlite_column_type(cdc_buf_t *out, const cdc_type_t *type)
{
    switch (type->root) {
    case CDC_T_BOOLEAN:
    case CDC_T_TINYINT:
    case CDC_T_SMALLINT:
    case CDC_T_INT:
    case CDC_T_BIGINT:
        cdc_buf_puts(out, "INTEGER");
        return 0;
    case CDC_T_FLOAT:
    case CDC_T_DOUBLE:
        cdc_buf_puts(out, "REAL");
        return 0;
    case CDC_T_DECIMAL:
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
    case CDC_T_DATE:
    case CDC_T_TIME:
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ:
        cdc_buf_puts(out, "TEXT");
        return 0;
    case CDC_T_BINARY:
    case CDC_T_VARBINARY:
        cdc_buf_puts(out, "BLOB");
        return 0;
    default:
        return -1;
    }
}

static void sqlite_insert_sql(cdc_buf_t *out, const jdbc_table_t *t, const uint8_t *omit)
{
    jdbc_sql_insert(out, &jdbc_dialect_sqlite, t, omit);
}

static void sqlite_upsert_sql(cdc_buf_t *out, const jdbc_table_t *t, const uint8_t *omit)
{
    jdbc_sql_insert(out, &jdbc_dialect_sqlite, t, omit);
    jdbc_sql_on_conflict(out, &jdbc_dialect_sqlite, t, omit);
}

static void sqlite_delete_sql(cdc_buf_t *out, const jdbc_table_t *t)
{
    jdbc_sql_delete(out, &jdbc_dialect_sqlite, t);
}

static int sqlite_connect(const char *target, const char *username, const char *password,
                          jdbc_conn_t **out, cdc_error_t **err)
{
    (void)username; /* SQLite has no users */
    (void)password;
    if (!*target)
        return cdc_error_set(err, CDC_ERR_OPTION,
                             "option \"url\": \"jdbc:sqlite:\" needs a database file path");
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(target, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        cdc_error_set(err, CDC_ERR_IO, "could not open SQLite database \"%s\"", target);
        if (err && *err)
            cdc_error_set_detail(*err, "sqlite: %s", db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return -1;
    }
    sqlite3_extended_result_codes(db, 1);
    jdbc_conn_t *conn = cdc_xcalloc(1, sizeof(*conn));
    conn->db = db;
    *out = conn;
    return 0;
}

static void sqlite_disconnect(jdbc_conn_t *conn)
{
    if (!conn)
        return;
    sqlite3_close(conn->db);
    free(conn);
}

static int sqlite_exec(jdbc_conn_t *conn, const char *sql)
{
    int rc = sqlite3_exec(conn->db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        note_failure(conn, sqlite3_extended_errcode(conn->db));
        return -1;
    }
    return 0;
}

static int sqlite_begin(jdbc_conn_t *conn)
{
    return sqlite_exec(conn, "BEGIN IMMEDIATE");
}

static int sqlite_commit(jdbc_conn_t *conn)
{
    return sqlite_exec(conn, "COMMIT");
}

static void sqlite_rollback(jdbc_conn_t *conn)
{
    if (!sqlite3_get_autocommit(conn->db))
        sqlite3_exec(conn->db, "ROLLBACK", NULL, NULL, NULL);
}

static jdbc_stmt_t *sqlite_prepare(jdbc_conn_t *conn, const char *sql)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v3(conn->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, NULL);
    if (rc != SQLITE_OK) {
        note_failure(conn, sqlite3_extended_errcode(conn->db));
        sqlite3_finalize(stmt);
        return NULL;
    }
    jdbc_stmt_t *s = cdc_xcalloc(1, sizeof(*s));
    s->conn = conn;
    s->stmt = stmt;
    return s;
}

static int sqlite_bind(jdbc_stmt_t *s, int idx, const jdbc_param_t *p)
{
    int rc;
    switch (p->kind) {
    case JDBC_P_INT:
        rc = sqlite3_bind_int64(s->stmt, idx + 1, p->i);
        break;
    case JDBC_P_DOUBLE:
        rc = sqlite3_bind_double(s->stmt, idx + 1, p->d);
        break;
    case JDBC_P_TEXT:
        rc = sqlite3_bind_text64(s->stmt, idx + 1, p->ptr, p->len, SQLITE_STATIC, SQLITE_UTF8);
        break;
    case JDBC_P_BLOB:
        /* a NULL pointer would bind SQL NULL; ptr is never NULL (jdbc_int.h) */
        rc = sqlite3_bind_blob64(s->stmt, idx + 1, p->ptr, p->len, SQLITE_STATIC);
        break;
    default:
        rc = sqlite3_bind_null(s->stmt, idx + 1);
        break;
    }
    if (rc != SQLITE_OK) {
        note_failure(s->conn, sqlite3_extended_errcode(s->conn->db));
        return -1;
    }
    return 0;
}

static int sqlite_step(jdbc_stmt_t *s)
{
    int rc = sqlite3_step(s->stmt);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        note_failure(s->conn, sqlite3_extended_errcode(s->conn->db));
        sqlite3_reset(s->stmt);
        return -1;
    }
    sqlite3_reset(s->stmt);
    return 0;
}

/* Lookups: every result row, BLOB columns as bytes, the others as SQLite's text of the value. */
static int sqlite_query(jdbc_stmt_t *s, jdbc_row_fn row, void *ctx)
{
    jdbc_cell_t cells[JDBC_MAX_QUERY_COLUMNS];
    int n = sqlite3_column_count(s->stmt), rc;
    if (n > JDBC_MAX_QUERY_COLUMNS) {
        sqlite3_reset(s->stmt);
        snprintf(s->conn->msg, sizeof(s->conn->msg), "more than %d columns",
                 JDBC_MAX_QUERY_COLUMNS);
        s->conn->last_rc = SQLITE_ERROR;
        return -1;
    }
    while ((rc = sqlite3_step(s->stmt)) == SQLITE_ROW) {
        for (int c = 0; c < n; c++) {
            int type = sqlite3_column_type(s->stmt, c);
            cells[c].null = type == SQLITE_NULL;
            cells[c].ptr = type == SQLITE_BLOB ? sqlite3_column_blob(s->stmt, c)
                                               : (const char *)sqlite3_column_text(s->stmt, c);
            cells[c].len = (size_t)sqlite3_column_bytes(s->stmt, c);
            if (!cells[c].ptr)
                cells[c].ptr = "";
        }
        if (row(ctx, cells, n) < 0) {
            sqlite3_reset(s->stmt);
            snprintf(s->conn->msg, sizeof(s->conn->msg), "a result row was refused");
            s->conn->last_rc = SQLITE_ERROR;
            return -1;
        }
    }
    if (rc != SQLITE_DONE) {
        note_failure(s->conn, sqlite3_extended_errcode(s->conn->db));
        sqlite3_reset(s->stmt);
        return -1;
    }
    sqlite3_reset(s->stmt);
    return 0;
}

static void sqlite_finalize(jdbc_stmt_t *s)
{
    if (!s)
        return;
    sqlite3_finalize(s->stmt);
    free(s);
}

static const char *sqlite_errmsg(jdbc_conn_t *conn)
{
    return conn->msg;
}

static bool sqlite_retriable(jdbc_conn_t *conn)
{
    int primary = conn->last_rc & 0xff;
    return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

/* Fails with msg as the connection's message. */
static int sqlite_fail(jdbc_conn_t *conn, const char *msg)
{
    conn->last_rc = SQLITE_ERROR;
    snprintf(conn->msg, sizeof(conn->msg), "%s", msg);
    return -1;
}

/* Runs the statement in sql (one text parameter, or none when param is NULL) and appends
   the text of each row's columns to out, '\x1f' between columns, '\x1e' after each row. */
static int sqlite_rows(jdbc_conn_t *conn, const char *sql, const char *param, cdc_buf_t *out)
{
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(conn->db, sql, -1, &stmt, NULL) != SQLITE_OK) {
        note_failure(conn, sqlite3_extended_errcode(conn->db));
        return -1;
    }
    if (param)
        sqlite3_bind_text(stmt, 1, param, -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        for (int c = 0; c < sqlite3_column_count(stmt); c++) {
            const char *text = (const char *)sqlite3_column_text(stmt, c);
            cdc_buf_puts(out, text ? text : "");
            cdc_buf_putc(out, '\x1f');
        }
        cdc_buf_putc(out, '\x1e');
    }
    if (rc != SQLITE_DONE)
        note_failure(conn, sqlite3_extended_errcode(conn->db));
    sqlite3_finalize(stmt);
    return rc == SQLITE_DONE ? 0 : -1;
}

/*
 * Column types are affinities here (INTEGER holds every integer, TEXT every length): a widening
 * has nothing to change. Dropping NOT NULL does, and SQLite cannot alter a constraint: the table
 * is rebuilt (a copy without the NOT NULL from PRAGMA table_info, the rows copied, the old table
 * dropped and the copy renamed), inside the schema change's transaction. A table with indexes
 * or triggers of its own is refused instead: the rebuild would lose them.
 */
static int sqlite_alter_type(jdbc_conn_t *conn, const jdbc_alter_t *a, cdc_buf_t *sql)
{
    cdc_buf_clear(sql);
    if (!a->notnull_now || !a->type->nullable)
        return 0;
    cdc_buf_t rows = {0}, names = {0}, tmp = {0};
    int rc = -1;
    cdc_buf_puts(sql, "SELECT name FROM sqlite_schema WHERE tbl_name = ?1 AND type IN "
                      "('index', 'trigger') AND sql IS NOT NULL");
    if (sqlite_rows(conn, cdc_buf_cstr(sql), a->table, &rows) < 0)
        goto out;
    if (rows.len) {
        sqlite_fail(conn, "the table has indexes or triggers, which the rebuild that drops NOT "
                          "NULL in SQLite would lose; drop the NOT NULL by hand");
        goto out;
    }
    cdc_buf_clear(sql);
    cdc_buf_puts(sql, "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1) "
                      "ORDER BY cid");
    if (sqlite_rows(conn, cdc_buf_cstr(sql), a->table, &rows) < 0)
        goto out;
    cdc_buf_printf(&tmp, "%s__cdcflow_rebuild", a->table);
    cdc_buf_clear(sql);
    cdc_buf_puts(sql, "CREATE TABLE ");
    sqlite_quote_table(sql, cdc_buf_cstr(&tmp));
    cdc_buf_puts(sql, " (");
    char *pk[64] = {0}; /* column name by its position in the key (1-based) */
    int npk = 0;
    for (char *row = rows.data, *end = rows.data + rows.len; row < end;) {
        char *f[5];
        for (int i = 0; i < 5; i++) {
            f[i] = row;
            row = strchr(row, '\x1f');
            *row++ = '\0';
        }
        row++; /* the row's '\x1e' */
        if (names.len)
            cdc_buf_puts(&names, ", ");
        sqlite_quote_ident(&names, f[0]);
        if (sql->data[sql->len - 1] != '(')
            cdc_buf_puts(sql, ", ");
        sqlite_quote_ident(sql, f[0]);
        cdc_buf_printf(sql, " %s", f[1]);
        if (strcmp(f[2], "1") == 0 && strcmp(f[0], a->column) != 0)
            cdc_buf_puts(sql, " NOT NULL");
        if (f[3][0])
            cdc_buf_printf(sql, " DEFAULT %s", f[3]);
        int k = atoi(f[4]);
        if (k > 0 && k < 64) {
            pk[k] = f[0];
            npk = k > npk ? k : npk;
        }
    }
    for (int k = 1; k <= npk; k++) {
        cdc_buf_puts(sql, k > 1 ? ", " : ", PRIMARY KEY (");
        sqlite_quote_ident(sql, pk[k] ? pk[k] : "");
    }
    cdc_buf_puts(sql, npk ? "))" : ")");
    if (sqlite_exec(conn, cdc_buf_cstr(sql)) < 0)
        goto out;
    cdc_buf_clear(sql);
    cdc_buf_puts(sql, "INSERT INTO ");
    sqlite_quote_table(sql, cdc_buf_cstr(&tmp));
    cdc_buf_printf(sql, " (%s) SELECT %s FROM ", cdc_buf_cstr(&names), cdc_buf_cstr(&names));
    sqlite_quote_table(sql, a->table);
    if (sqlite_exec(conn, cdc_buf_cstr(sql)) < 0)
        goto out;
    cdc_buf_clear(sql);
    cdc_buf_puts(sql, "DROP TABLE ");
    sqlite_quote_table(sql, a->table);
    if (sqlite_exec(conn, cdc_buf_cstr(sql)) < 0)
        goto out;
    cdc_buf_clear(sql);
    cdc_buf_puts(sql, "ALTER TABLE ");
    sqlite_quote_table(sql, cdc_buf_cstr(&tmp));
    cdc_buf_puts(sql, " RENAME TO ");
    sqlite_quote_table(sql, a->table);
    rc = sqlite_exec(conn, cdc_buf_cstr(sql));
out:
    cdc_buf_free(&rows);
    cdc_buf_free(&names);
    cdc_buf_free(&tmp);
    return rc;
}

const jdbc_dialect_t jdbc_dialect_sqlite = {
    .name = "sqlite",
    .url_prefix = "jdbc:sqlite:",
    .quote_ident = sqlite_quote_ident,
    .quote_table = sqlite_quote_table,
    .column_type = sqlite_column_type,
    .upsert_sql = sqlite_upsert_sql,
    .insert_sql = sqlite_insert_sql,
    .delete_sql = sqlite_delete_sql,
    .connect = sqlite_connect,
    .disconnect = sqlite_disconnect,
    .exec = sqlite_exec,
    .begin = sqlite_begin,
    .commit = sqlite_commit,
    .rollback = sqlite_rollback,
    .prepare = sqlite_prepare,
    .bind = sqlite_bind,
    .step = sqlite_step,
    .finalize = sqlite_finalize,
    .errmsg = sqlite_errmsg,
    .retriable = sqlite_retriable,
    .query = sqlite_query,
    .ddl_begin = "BEGIN IMMEDIATE",
    .ddl_if_exists = false, /* SQLite has neither: the columns are checked first */
    .truncate_sql = "DELETE FROM ",
    .columns_query = "SELECT name, \"notnull\" FROM pragma_table_info(?1) ORDER BY cid",
    .alter_type = sqlite_alter_type,
};
