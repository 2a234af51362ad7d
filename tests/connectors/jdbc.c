/*
 * tests/connectors/jdbc.c — schema changes of the "jdbc" sink (apply_schema_change), for any
 * dialect: SQLite in a temporary file by default; the database of CDC_JDBC_URL (with
 * CDC_JDBC_USER and CDC_JDBC_PASSWORD) when set, which tests/integration/jdbc_schema_change.sh
 * does for PostgreSQL and MariaDB on servers it starts. Sinks are built through the factory; the
 * table is read back through the dialect's own query call, every value as text.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cdc_plugin.h"
#include "../../connectors/jdbc/jdbc_int.h"

extern const cdc_connector_factory_t cdc_connector_jdbc;

#define TABLE "sc_t"

typedef struct jt_s {
    char url[256];
    char path[64];
    const jdbc_dialect_t *d;
    jdbc_conn_t *conn; /* for reading back */
} jt_t;

static void jt_init(jt_t *j)
{
    memset(j, 0, sizeof(*j));
    const char *url = getenv("CDC_JDBC_URL");
    if (url && *url) {
        snprintf(j->url, sizeof(j->url), "%s", url);
    } else {
        snprintf(j->path, sizeof(j->path), "/tmp/jdbc_sc_test_%d.db", (int)getpid());
        unlink(j->path);
        snprintf(j->url, sizeof(j->url), "jdbc:sqlite:%s", j->path);
    }
    j->d = jdbc_dialect_for(j->url);
    cr_assert_not_null(j->d);
    cdc_error_t *err = NULL;
    cr_assert_eq(j->d->connect(j->url + strlen(j->d->url_prefix), getenv("CDC_JDBC_USER"),
                               getenv("CDC_JDBC_PASSWORD"), &j->conn, &err),
                 0, "%s", err ? err->message : "");
    cr_assert_eq(j->d->exec(j->conn, "DROP TABLE IF EXISTS " TABLE), 0, "%s",
                 j->d->errmsg(j->conn));
}

static void jt_fini(jt_t *j)
{
    j->d->disconnect(j->conn);
    if (j->path[0])
        unlink(j->path);
}

/* A sink on TABLE with the declared columns `schema` (first column the key), auto-created. */
static cdc_sink_t *sink_open(jt_t *j, const char *schema, const char *table)
{
    cdc_kv_t kv = {0};
    cdc_kv_set(&kv, "url", j->url);
    cdc_kv_set(&kv, "table-name", table);
    cdc_kv_set(&kv, "sink.auto-create-table", "true");
    if (getenv("CDC_JDBC_USER"))
        cdc_kv_set(&kv, "username", getenv("CDC_JDBC_USER"));
    if (getenv("CDC_JDBC_PASSWORD"))
        cdc_kv_set(&kv, "password", getenv("CDC_JDBC_PASSWORD"));
    cdc_option_scope_t scope = {.defs = cdc_connector_jdbc.options,
                                .prefix = "",
                                .label = "connector \"jdbc\"",
                                .check = cdc_connector_jdbc.check};
    cdc_error_t *err = NULL;
    cdc_config_t *cfg = NULL;
    cdc_options_validate(&scope, 1, &kv, &cfg, &err);
    cr_assert_null(err, "%s", err ? err->message : "");
    cdc_kv_free(&kv);
    cdc_type_t *type = cdc_type_parse(schema, &err);
    cr_assert_not_null(type);
    static const int pk[] = {0};
    cdc_table_ctx_t ctx = {
        .name = "cat.db.out", .schema = type, .pk = pk, .npk = 1, .cfg = cfg, .parallelism = 1};
    cdc_sink_t *sink = NULL;
    cr_assert_eq(cdc_connector_jdbc.sink_new(&ctx, &sink, &err), 0, "%s", err ? err->message : "");
    cdc_type_destroy(type);
    cdc_config_destroy(cfg);
    return sink;
}

/* Opens a writer of sink, writes the rows ("1|10|abc|NULL", one per line) as inserts of the
   schema's columns, flushes and closes it. */
static void write_rows(cdc_sink_t *sink, const char *schema, const char *rows)
{
    cdc_error_t *err = NULL;
    cdc_type_t *type = cdc_type_parse(schema, &err);
    cdc_writer_t *w = NULL;
    cr_assert_eq(sink->ops->open_writer(sink, 0, 1, &w, &err), 0, "%s", err ? err->message : "");
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    for (const char *line = rows; *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        cdc_row_t *r = cdc_batch_add(&batch, CDC_INSERT, (uint32_t)type->nchildren);
        const char *p = line;
        for (int c = 0; c < type->nchildren; c++) {
            const char *bar = memchr(p, '|', (size_t)(line + len - p));
            size_t n = bar ? (size_t)(bar - p) : (size_t)(line + len - p);
            if (n == 4 && memcmp(p, "NULL", 4) == 0)
                r->values[c].flags = CDC_V_NULL;
            else
                cr_assert_eq(cdc_value_from_text(type->children[c], p, n, CDC_TEXT_COPY,
                                                 &batch.arena, &r->values[c], NULL),
                             CDC_TEXT_OK);
            p = bar ? bar + 1 : line + len;
        }
        line += len + (eol ? 1 : 0);
    }
    cr_assert_eq(w->ops->write(w, &batch, &err), 0, "%s", err ? err->message : "");
    cr_assert_eq(w->ops->flush(w, &err), 0, "%s %s", err ? err->message : "",
                 err && err->detail ? err->detail : "");
    w->ops->close(w);
    cdc_batch_free(&batch);
    cdc_type_destroy(type);
}

static int dump_row(void *ctx, const jdbc_cell_t *cells, int ncells)
{
    cdc_buf_t *out = ctx;
    for (int c = 0; c < ncells; c++) {
        if (c)
            cdc_buf_putc(out, '|');
        if (cells[c].null)
            cdc_buf_puts(out, "NULL");
        else
            cdc_buf_append(out, cells[c].ptr, cells[c].len);
    }
    cdc_buf_putc(out, '\n');
    return 0;
}

static void expect_table(jt_t *j, const char *sql, const char *want)
{
    jdbc_stmt_t *st = j->d->prepare(j->conn, sql);
    cr_assert_not_null(st, "%s: %s", sql, j->d->errmsg(j->conn));
    cdc_buf_t out = {0};
    cr_assert_eq(j->d->query(st, dump_row, &out), 0, "%s: %s", sql, j->d->errmsg(j->conn));
    j->d->finalize(st);
    cr_assert_str_eq(cdc_buf_cstr(&out), want, "%s", sql);
    cdc_buf_free(&out);
}

static cdc_type_t *type_of(const char *text)
{
    cdc_error_t *err = NULL;
    cdc_type_t *t = cdc_type_parse(text, &err);
    cr_assert_not_null(t, "%s", text);
    return t;
}

static void add_item(cdc_schema_change_t *change, cdc_sc_kind_t kind, const char *column,
                     const char *new_name, const char *type, const char *old_type,
                     const char *default_sql)
{
    cdc_type_t *t = type ? type_of(type) : NULL, *o = old_type ? type_of(old_type) : NULL;
    cdc_schema_change_add(change, kind, column, new_name, t, o, default_sql);
    cdc_type_destroy(t);
    cdc_type_destroy(o);
}

/* Applies change twice (the second time finds it done). */
static void apply_twice(cdc_sink_t *sink, const cdc_schema_change_t *change)
{
    for (int round = 0; round < 2; round++) {
        cdc_error_t *err = NULL;
        cr_assert_eq(sink->ops->apply_schema_change(sink, change, &err), 0, "round %d: %s\n%s",
                     round, err ? err->message : "", err && err->detail ? err->detail : "");
    }
}

#define OLD_SCHEMA                                                                                 \
    "ROW<id INT NOT NULL, a INT, v VARCHAR(10), n VARCHAR(10) NOT NULL, gone STRING, "             \
    "old_name STRING>"
/* the pipeline after the change: c1 is in the table but not written */
#define NEW_SCHEMA                                                                                 \
    "ROW<id INT NOT NULL, a BIGINT, v VARCHAR(100), n STRING, new_name STRING, "                   \
    "c2 INT NOT NULL, c3 VARCHAR(20)>"

Test(jdbc_schema, every_column_change_applies_twice_and_new_writers_follow)
{
    jt_t j;
    jt_init(&j);
    cdc_sink_t *sink = sink_open(&j, OLD_SCHEMA, TABLE);
    write_rows(sink, OLD_SCHEMA, "1|10|abc|n1|g|o1\n2|20|de|n2|g|o2");
    cdc_schema_change_t *change = cdc_schema_change_new(TABLE, "binlog mbin.000002:1234", NULL);
    add_item(change, CDC_SC_ADD_COLUMN, "c1", NULL, "INT", NULL, NULL);
    add_item(change, CDC_SC_ADD_COLUMN, "c2", NULL, "INT NOT NULL", NULL, "7");
    add_item(change, CDC_SC_ADD_COLUMN, "c3", NULL, "VARCHAR(20)", NULL, "'x''y'");
    add_item(change, CDC_SC_DROP_COLUMN, "gone", NULL, NULL, "STRING", NULL);
    add_item(change, CDC_SC_RENAME_COLUMN, "old_name", "new_name", NULL, NULL, NULL);
    add_item(change, CDC_SC_ALTER_TYPE, "a", NULL, "BIGINT", "INT", NULL);
    add_item(change, CDC_SC_ALTER_TYPE, "v", NULL, "VARCHAR(100)", "VARCHAR(10)", NULL);
    add_item(change, CDC_SC_ALTER_TYPE, "n", NULL, "STRING", "VARCHAR(10) NOT NULL", NULL);
    apply_twice(sink, change);
    cdc_schema_change_free(change);
    sink->ops->destroy(sink);

    /* the re-planned sink: values only the new types hold, a NULL where NOT NULL was */
    sink = sink_open(&j, NEW_SCHEMA, TABLE);
    write_rows(sink, NEW_SCHEMA,
               "3|5000000000|"
               "0123456789012345678901234567890123456789abcdefghij|NULL|nn|8|z\n"
               "1|11|abcd|n1|o1|7|x'y");
    expect_table(&j, "SELECT id, a, v, n, new_name, c1, c2, c3 FROM " TABLE " ORDER BY id",
                 "1|11|abcd|n1|o1|NULL|7|x'y\n"
                 "2|20|de|n2|o2|NULL|7|x'y\n"
                 "3|5000000000|0123456789012345678901234567890123456789abcdefghij|NULL|nn|NULL|8|"
                 "z\n");
    /* the dropped column is gone */
    jdbc_stmt_t *st = j.d->prepare(j.conn, "SELECT gone FROM " TABLE);
    cdc_buf_t out = {0};
    cr_assert(!st || j.d->query(st, dump_row, &out) < 0, "column \"gone\" is still there");
    j.d->finalize(st);
    cdc_buf_free(&out);
    sink->ops->destroy(sink);
    jt_fini(&j);
}

Test(jdbc_schema, truncate_empties_the_table_twice)
{
    jt_t j;
    jt_init(&j);
    cdc_sink_t *sink = sink_open(&j, "ROW<id INT NOT NULL, s STRING>", TABLE);
    write_rows(sink, "ROW<id INT NOT NULL, s STRING>", "1|a\n2|b");
    cdc_schema_change_t *change = cdc_schema_change_new(TABLE, "LSN 0/16B3748", "TRUNCATE t");
    add_item(change, CDC_SC_TRUNCATE_TABLE, NULL, NULL, NULL, NULL, NULL);
    apply_twice(sink, change);
    expect_table(&j, "SELECT id, s FROM " TABLE " ORDER BY id", "");
    write_rows(sink, "ROW<id INT NOT NULL, s STRING>", "3|c");
    expect_table(&j, "SELECT id, s FROM " TABLE " ORDER BY id", "3|c\n");
    cdc_schema_change_free(change);
    sink->ops->destroy(sink);
    jt_fini(&j);
}

/* Applies a one-item change that must fail; returns the error's text (message and detail). */
static char *refused(cdc_sink_t *sink, cdc_sc_kind_t kind, const char *column, const char *type,
                     const char *old_type, const char *default_sql)
{
    cdc_schema_change_t *change = cdc_schema_change_new(TABLE, "binlog mbin.000003:99", NULL);
    add_item(change, kind, column, NULL, type, old_type, default_sql);
    cdc_error_t *err = NULL;
    cr_assert_eq(sink->ops->apply_schema_change(sink, change, &err), -1);
    cr_assert_not_null(err);
    cdc_buf_t text = {0};
    cdc_buf_printf(&text, "%s\n%s\n%s", err->message, err->detail ? err->detail : "",
                   err->hint ? err->hint : "");
    cdc_error_destroy(err);
    cdc_schema_change_free(change);
    char *s = cdc_xstrdup(cdc_buf_cstr(&text));
    cdc_buf_free(&text);
    return s;
}

#define EXPECT_HAS(text, part) cr_expect(strstr(text, part), "\"%s\" lacks \"%s\"", text, part)

Test(jdbc_schema, narrowings_expressions_and_table_items_are_refused_with_the_table_named)
{
    jt_t j;
    jt_init(&j);
    cdc_sink_t *sink = sink_open(&j, "ROW<id INT NOT NULL, b BIGINT, s VARCHAR(10)>", TABLE);
    write_rows(sink, "ROW<id INT NOT NULL, b BIGINT, s VARCHAR(10)>", "1|5|x");
    char *e = refused(sink, CDC_SC_ALTER_TYPE, "b", "INT", "BIGINT", NULL);
    EXPECT_HAS(e, "cannot apply ALTER COLUMN TYPE b to table \"" TABLE "\"");
    EXPECT_HAS(e, "BIGINT -> INT is a narrowing");
    EXPECT_HAS(e, "binlog mbin.000003:99");
    free(e);
    e = refused(sink, CDC_SC_ALTER_TYPE, "s", "VARCHAR(10) NOT NULL", "VARCHAR(10)", NULL);
    EXPECT_HAS(e, "is a narrowing");
    free(e);
    e = refused(sink, CDC_SC_ADD_COLUMN, "t", "TIMESTAMP(3)", NULL, "CURRENT_TIMESTAMP");
    EXPECT_HAS(e, "DEFAULT CURRENT_TIMESTAMP is not a plain literal");
    EXPECT_HAS(e, "add the column to the sink table yourself");
    free(e);
    e = refused(sink, CDC_SC_DROP_TABLE, NULL, NULL, NULL, NULL);
    EXPECT_HAS(e, "cannot apply DROP TABLE to table \"" TABLE "\"");
    EXPECT_HAS(e, "the runtime should not send it");
    free(e);
    e = refused(sink, CDC_SC_ALTER_TYPE, "nope", "BIGINT", "INT", NULL);
    EXPECT_HAS(e, "the table has no such column");
    free(e);
    /* nothing was applied */
    expect_table(&j, "SELECT id, b, s FROM " TABLE, "1|5|x\n");
    sink->ops->destroy(sink);
    jt_fini(&j);
}

Test(jdbc_schema, a_database_failure_names_table_statement_and_message)
{
    jt_t j;
    jt_init(&j);
    cdc_sink_t *sink = sink_open(&j, "ROW<id INT NOT NULL>", TABLE);
    write_rows(sink, "ROW<id INT NOT NULL>", "1");
    cr_assert_eq(j.d->exec(j.conn, "DROP TABLE " TABLE), 0);
    char *e = refused(sink, CDC_SC_TRUNCATE_TABLE, NULL, NULL, NULL, NULL);
    EXPECT_HAS(e, "could not apply a schema change to table \"" TABLE "\"");
    EXPECT_HAS(e, "statement: ");
    EXPECT_HAS(e, TABLE);
    EXPECT_HAS(e, j.d->name);
    free(e);
    sink->ops->destroy(sink);
    jt_fini(&j);
}
