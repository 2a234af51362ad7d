/*
 * jdbc_schema.c — schema changes of the "jdbc" sink's table (cdc_sink_ops_t.apply_schema_change).
 *
 * The runtime hands the sink a change whose items name the sink's columns; this file turns each
 * item into DDL on the sink's own connection, in one transaction where the database keeps DDL
 * in one (PostgreSQL, SQLite) and one statement per item where DDL commits implicitly
 * (MySQL/MariaDB). Every item is idempotent, checked against the table's columns as they are
 * before it runs (a change applied just before a crash comes again after the restart):
 *  - ADD COLUMN: done when the column exists; its type is the one CREATE TABLE would use, a
 *    DEFAULT must be a plain literal (number, 'string', NULL, TRUE, FALSE) and NOT NULL is kept
 *    only with a DEFAULT (existing rows need a value);
 *  - DROP COLUMN: done when the column is missing;
 *  - RENAME COLUMN a TO b: done when b exists and a does not;
 *  - ALTER_TYPE: only widenings (INT -> BIGINT, VARCHAR(10) -> VARCHAR(100), NOT NULL -> NULL);
 *    the dialect changes the type (jdbc_dialect_t.alter_type), which is a no-op when the
 *    column has it already;
 *  - TRUNCATE TABLE: every row deleted;
 *  - CREATE/DROP TABLE and OTHER are not sink operations: refused before any statement runs.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jdbc_int.h"

/* The table's columns, as the database has them now. */
typedef struct col_list_s {
    char **names;
    bool *notnull;
    int n, cap;
} col_list_t;

static void cols_clear(col_list_t *cols)
{
    for (int i = 0; i < cols->n; i++)
        free(cols->names[i]);
    cols->n = 0;
}

static void cols_free(col_list_t *cols)
{
    cols_clear(cols);
    free(cols->names);
    free(cols->notnull);
}

static int cols_row(void *ctx, const jdbc_cell_t *cells, int ncells)
{
    col_list_t *cols = ctx;
    if (ncells < 2 || cells[0].null)
        return -1;
    if (cols->n == cols->cap) {
        cols->cap = cols->cap ? cols->cap * 2 : 16;
        cols->names = cdc_xrealloc(cols->names, sizeof(char *) * (size_t)cols->cap);
        cols->notnull = cdc_xrealloc(cols->notnull, sizeof(bool) * (size_t)cols->cap);
    }
    cols->names[cols->n] = cdc_xstrndup(cells[0].ptr, cells[0].len);
    cols->notnull[cols->n] =
        !cells[1].null && cells[1].len > 0 && (cells[1].ptr[0] == '1' || cells[1].ptr[0] == 't');
    cols->n++;
    return 0;
}

/* The column's index in cols, or -1. */
static int cols_find(const col_list_t *cols, const char *name)
{
    for (int i = 0; i < cols->n; i++)
        if (strcmp(cols->names[i], name) == 0)
            return i;
    return -1;
}

/* Reads the table's columns through the dialect's columns_query; -1 with the failure in conn. */
static int load_columns(const jdbc_ddl_t *t, col_list_t *cols, cdc_buf_t *sql)
{
    const jdbc_dialect_t *d = t->d;
    cols_clear(cols);
    cdc_buf_clear(sql);
    cdc_buf_puts(sql, d->columns_query);
    jdbc_stmt_t *stmt = d->prepare(t->conn, d->columns_query);
    if (!stmt)
        return -1;
    jdbc_param_t p = {.kind = JDBC_P_TEXT};
    cdc_buf_t name = {0};
    if (d->columns_by_quoted_name)
        d->quote_table(&name, t->table);
    else
        cdc_buf_puts(&name, t->table);
    p.ptr = cdc_buf_cstr(&name);
    p.len = strlen(p.ptr);
    int rc = d->bind(stmt, 0, &p);
    if (rc == 0)
        rc = d->query(stmt, cols_row, cols);
    d->finalize(stmt);
    cdc_buf_free(&name);
    return rc;
}

/* True for a DEFAULT this file passes on as it is: a number, a '' string, NULL, TRUE, FALSE. */
static bool is_plain_literal(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (n == 0)
        return false;
    if ((n == 4 && strncasecmp(s, "NULL", 4) == 0) || (n == 4 && strncasecmp(s, "TRUE", 4) == 0) ||
        (n == 5 && strncasecmp(s, "FALSE", 5) == 0))
        return true;
    if (s[0] == '\'') { /* '' doubles a quote; a backslash means something in MySQL only */
        size_t i = 1;
        for (; i < n; i++) {
            if (s[i] == '\\')
                return false;
            if (s[i] == '\'') {
                if (i + 1 < n && s[i + 1] == '\'')
                    i++;
                else
                    break;
            }
        }
        return i == n - 1;
    }
    size_t i = 0, digits = 0;
    if (s[i] == '-' || s[i] == '+')
        i++;
    for (; i < n && isdigit((unsigned char)s[i]); i++)
        digits++;
    if (i < n && s[i] == '.')
        for (i++; i < n && isdigit((unsigned char)s[i]); i++)
            digits++;
    if (digits == 0)
        return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '-' || s[i] == '+'))
            i++;
        size_t exp = 0;
        for (; i < n && isdigit((unsigned char)s[i]); i++)
            exp++;
        if (exp == 0)
            return false;
    }
    return i == n;
}

static int int_rank(cdc_type_root_t root)
{
    switch (root) {
    case CDC_T_TINYINT:
        return 1;
    case CDC_T_SMALLINT:
        return 2;
    case CDC_T_INT:
        return 3;
    case CDC_T_BIGINT:
        return 4;
    default:
        return 0;
    }
}

/* True when every value of `from` fits `to` (a widening, or the same type). */
bool jdbc_type_widens(const cdc_type_t *from, const cdc_type_t *to)
{
    if (from->nullable && !to->nullable)
        return false;
    if (int_rank(from->root) && int_rank(to->root))
        return int_rank(to->root) >= int_rank(from->root);
    bool from_str = from->root == CDC_T_CHAR || from->root == CDC_T_VARCHAR;
    bool from_bin = from->root == CDC_T_BINARY || from->root == CDC_T_VARBINARY;
    if (from_str || from_bin) {
        if (to->root == from->root)
            return to->length >= from->length;
        cdc_type_root_t var = from_str ? CDC_T_VARCHAR : CDC_T_VARBINARY;
        return to->root == var && to->length >= from->length;
    }
    if (from->root == CDC_T_FLOAT && to->root == CDC_T_DOUBLE)
        return true;
    if (from->root != to->root)
        return false;
    switch (from->root) {
    case CDC_T_DECIMAL:
        return to->scale >= from->scale &&
               to->precision - to->scale >= from->precision - from->scale;
    case CDC_T_TIME:
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ:
        return to->precision >= from->precision;
    default:
        return true;
    }
}

/* True when column `name` is part of the sink's declared primary key. */
static bool is_key(const jdbc_ddl_t *t, const char *name)
{
    for (int k = 0; k < t->npk; k++)
        if (strcmp(t->schema->names[t->pk[k]], name) == 0)
            return true;
    return false;
}

/* Appends the column type CREATE TABLE would use. */
static void put_type(const jdbc_ddl_t *t, cdc_buf_t *sql, const char *column,
                     const cdc_type_t *type)
{
    if (t->d->key_column_type && is_key(t, column))
        t->d->key_column_type(sql, type);
    else
        t->d->column_type(sql, type);
}

/* Appends "ALTER TABLE <table> ". */
static void alter_table(const jdbc_ddl_t *t, cdc_buf_t *sql)
{
    cdc_buf_clear(sql);
    cdc_buf_puts(sql, "ALTER TABLE ");
    t->d->quote_table(sql, t->table);
    cdc_buf_putc(sql, ' ');
}

/* The error of a change refused before any statement ran. */
static int refuse(const jdbc_ddl_t *t, const cdc_schema_change_t *change, const cdc_sc_item_t *item,
                  const char *why, const char *hint, cdc_error_t **err)
{
    cdc_error_set(err, CDC_ERR_PLAN, "cannot apply %s%s%s to table \"%s\": %s",
                  cdc_sc_kind_name(item->kind), item->column ? " " : "",
                  item->column ? item->column : "", t->table, why);
    if (change->position)
        cdc_error_set_detail(*err, "the change at %s%s%s", change->position,
                             change->ddl ? ": " : "", change->ddl ? change->ddl : "");
    if (hint)
        cdc_error_set_hint(*err, "%s", hint);
    cdc_error_add_context(*err, "jdbc sink of \"%s\"", t->qualified);
    return -1;
}

/* Checks what can be checked without the database: the kinds and the type changes. */
static int check_items(const jdbc_ddl_t *t, const cdc_schema_change_t *change, cdc_error_t **err)
{
    for (int i = 0; i < change->nitems; i++) {
        const cdc_sc_item_t *item = &change->items[i];
        switch (item->kind) {
        case CDC_SC_ADD_COLUMN:
        case CDC_SC_ALTER_TYPE: {
            cdc_buf_t scratch = {0};
            int rc = item->type ? t->d->column_type(&scratch, item->type) : -1;
            cdc_buf_free(&scratch);
            if (rc < 0)
                return refuse(t, change, item, "the type has no column type in this dialect", NULL,
                              err);
            if (item->kind == CDC_SC_ALTER_TYPE && item->old_type &&
                !jdbc_type_widens(item->old_type, item->type)) {
                char *from = cdc_type_to_string(item->old_type);
                char *to = cdc_type_to_string(item->type);
                cdc_buf_t why = {0};
                cdc_buf_printf(&why, "%s -> %s is a narrowing, which the sink does not apply", from,
                               to);
                free(from);
                free(to);
                refuse(t, change, item, cdc_buf_cstr(&why),
                       "change the sink table yourself (existing rows may not fit), or keep "
                       "the sink's type with schema.change.behavior = 'lenient' or 'ignore'",
                       err);
                cdc_buf_free(&why);
                return -1;
            }
            break;
        }
        case CDC_SC_DROP_COLUMN:
        case CDC_SC_RENAME_COLUMN:
        case CDC_SC_TRUNCATE_TABLE:
            break;
        default:
            return refuse(t, change, item,
                          "not an operation on a sink table (the runtime should not send it)", NULL,
                          err);
        }
    }
    return 0;
}

/* Runs one item; 0 (also when it was done already), -1 with the failure in the connection or
   a refusal in *err (*refused set). sql holds the statement. */
static int run_item(const jdbc_ddl_t *t, const cdc_schema_change_t *change,
                    const cdc_sc_item_t *item, col_list_t *cols, cdc_buf_t *sql, bool *refused,
                    cdc_error_t **err)
{
    const jdbc_dialect_t *d = t->d;
    if (item->kind == CDC_SC_TRUNCATE_TABLE) {
        cdc_buf_clear(sql);
        cdc_buf_puts(sql, d->truncate_sql);
        d->quote_table(sql, t->table);
        return d->exec(t->conn, cdc_buf_cstr(sql));
    }
    if (load_columns(t, cols, sql) < 0)
        return -1;
    int at = cols_find(cols, item->column);
    *refused = true;
    switch (item->kind) {
    case CDC_SC_ADD_COLUMN:
        if (at >= 0)
            return 0;
        if (item->default_sql && !is_plain_literal(item->default_sql)) {
            cdc_buf_t why = {0};
            cdc_buf_printf(&why, "DEFAULT %s is not a plain literal", item->default_sql);
            refuse(t, change, item, cdc_buf_cstr(&why),
                   "add the column to the sink table yourself (the sink then finds it there "
                   "and goes on), and restart the job",
                   err);
            cdc_buf_free(&why);
            return -1;
        }
        alter_table(t, sql);
        cdc_buf_puts(sql, d->ddl_if_exists ? "ADD COLUMN IF NOT EXISTS " : "ADD COLUMN ");
        d->quote_ident(sql, item->column);
        cdc_buf_putc(sql, ' ');
        put_type(t, sql, item->column, item->type);
        if (item->default_sql)
            cdc_buf_printf(sql, " DEFAULT %s", item->default_sql);
        if (item->default_sql && !item->type->nullable)
            cdc_buf_puts(sql, " NOT NULL");
        break;
    case CDC_SC_DROP_COLUMN:
        if (at < 0)
            return 0;
        alter_table(t, sql);
        cdc_buf_puts(sql, d->ddl_if_exists ? "DROP COLUMN IF EXISTS " : "DROP COLUMN ");
        d->quote_ident(sql, item->column);
        break;
    case CDC_SC_RENAME_COLUMN: {
        int to = cols_find(cols, item->new_name);
        if (at < 0 && to >= 0)
            return 0;
        if (at < 0)
            return refuse(t, change, item, "the table has neither the column nor its new name",
                          NULL, err);
        if (to >= 0)
            return refuse(t, change, item, "the table has a column of the new name already", NULL,
                          err);
        alter_table(t, sql);
        cdc_buf_puts(sql, "RENAME COLUMN ");
        d->quote_ident(sql, item->column);
        cdc_buf_puts(sql, " TO ");
        d->quote_ident(sql, item->new_name);
        break;
    }
    case CDC_SC_ALTER_TYPE: {
        if (at < 0)
            return refuse(t, change, item, "the table has no such column", NULL, err);
        *refused = false;
        jdbc_alter_t a = {.table = t->table,
                          .column = item->column,
                          .type = item->type,
                          .key = is_key(t, item->column),
                          .notnull_now = cols->notnull[at]};
        return d->alter_type(t->conn, &a, sql);
    }
    default:
        return 0; /* check_items refused the rest */
    }
    *refused = false;
    return d->exec(t->conn, cdc_buf_cstr(sql));
}

int jdbc_schema_apply(const jdbc_ddl_t *t, const cdc_schema_change_t *change, cdc_error_t **err)
{
    const jdbc_dialect_t *d = t->d;
    if (check_items(t, change, err) < 0)
        return -1;
    col_list_t cols = {0};
    cdc_buf_t sql = {0};
    int rc = 0;
    bool refused = false;
    cdc_buf_puts(&sql, d->ddl_begin ? d->ddl_begin : "");
    if (d->ddl_begin && d->exec(t->conn, d->ddl_begin) < 0)
        rc = -1;
    for (int i = 0; rc == 0 && i < change->nitems; i++)
        rc = run_item(t, change, &change->items[i], &cols, &sql, &refused, err);
    if (rc == 0 && d->ddl_begin) {
        cdc_buf_clear(&sql);
        cdc_buf_puts(&sql, "COMMIT");
        rc = d->exec(t->conn, "COMMIT");
    }
    if (rc < 0 && !refused) {
        cdc_error_set(err, CDC_ERR_REMOTE, "could not apply a schema change to table \"%s\"",
                      t->table);
        cdc_error_set_detail(*err, "statement: %s\n%s: %s", cdc_buf_cstr(&sql), d->name,
                             d->errmsg(t->conn));
        if (change->position)
            cdc_error_set_hint(*err,
                               "the change comes from %s; fix the sink table by hand (the sink "
                               "skips what the table has already) and restart the job",
                               change->position);
        cdc_error_add_context(*err, "jdbc sink of \"%s\"", t->qualified);
    }
    if (rc < 0 && d->ddl_begin)
        d->rollback(t->conn);
    cols_free(&cols);
    cdc_buf_free(&sql);
    return rc;
}
