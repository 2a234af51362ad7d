/*
 * tests/connectors/jdbc_sqlite.c — the "jdbc" sink with the SQLite dialect,
 * driven through the factory with validated options; the table is then read
 * back with the sqlite3 API: type round trips, upsert/delete against a model,
 * idempotence, unchanged columns, hostile names and values, constraint
 * errors, buffer coalescing, option errors.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cdc_plugin.h"

extern const cdc_connector_factory_t cdc_connector_jdbc;

typedef struct js_s {
    char path[64];
    char url[96];
    cdc_type_t *schema;
    cdc_config_t *cfg;
    cdc_sink_t *sink;
    cdc_writer_t *writer;
    cdc_batch_t batch;
} js_t;

static cdc_error_t *validate(const char *const *pairs, cdc_config_t **cfg)
{
    cdc_kv_t kv = {0};
    for (int i = 0; pairs[i]; i += 2)
        cdc_kv_set(&kv, pairs[i], pairs[i + 1]);
    cdc_option_scope_t scope = {.defs = cdc_connector_jdbc.options,
                                .prefix = "",
                                .label = "connector \"jdbc\"",
                                .check = cdc_connector_jdbc.check};
    cdc_error_t *err = NULL;
    cdc_options_validate(&scope, 1, &kv, cfg, &err);
    cdc_kv_free(&kv);
    return err;
}

/* Opens a sink on a fresh file with extra options (NULL-terminated pairs). */
static void js_open(js_t *j, const char *schema, const int *pk, int npk, const char *table,
                    const char *const *extra)
{
    memset(j, 0, sizeof(*j));
    snprintf(j->path, sizeof(j->path), "/tmp/jdbc_sqlite_test_%d.db", (int)getpid());
    unlink(j->path);
    snprintf(j->url, sizeof(j->url), "jdbc:sqlite:%s", j->path);
    const char *pairs[32] = {"url", j->url, "table-name", table, "sink.auto-create-table", "true"};
    int n = 6;
    for (int i = 0; extra && extra[i]; i++)
        pairs[n++] = extra[i];
    pairs[n] = NULL;
    cdc_error_t *err = NULL;
    j->schema = cdc_type_parse(schema, &err);
    cr_assert_not_null(j->schema);
    err = validate(pairs, &j->cfg);
    cr_assert_null(err, "%s", err ? err->detail : "");
    cdc_table_ctx_t ctx = {.name = "cat.db.out",
                           .schema = j->schema,
                           .pk = pk,
                           .npk = npk,
                           .cfg = j->cfg,
                           .parallelism = 1};
    cr_assert_eq(cdc_connector_jdbc.sink_new(&ctx, &j->sink, &err), 0);
    cr_assert_eq(j->sink->ops->open_writer(j->sink, 0, 1, &j->writer, &err), 0, "%s",
                 err ? err->message : "");
    cdc_batch_init(&j->batch);
}

static void js_close(js_t *j)
{
    j->writer->ops->close(j->writer);
    j->sink->ops->destroy(j->sink);
    cdc_config_destroy(j->cfg);
    cdc_type_destroy(j->schema);
    cdc_batch_free(&j->batch);
    unlink(j->path);
}

/* Writes the batch, resets it, flushes; returns the flush error (or NULL). */
static cdc_error_t *js_flush(js_t *j)
{
    cdc_error_t *err = NULL;
    if (j->writer->ops->write(j->writer, &j->batch, &err) == 0)
        j->writer->ops->flush(j->writer, &err);
    cdc_batch_reset(&j->batch);
    return err;
}

static void set_int(cdc_value_t *v, int64_t i)
{
    v->flags = 0;
    v->v.i = i;
}

static void set_str(cdc_batch_t *b, cdc_value_t *v, const char *s, size_t len)
{
    v->flags = 0;
    v->v.s.ptr = cdc_arena_memdup(&b->arena, s, len);
    v->v.s.len = (uint32_t)len;
}

/* The table as text: one line per row, columns '|'-separated, quote(x) of each column. */
static char *dump(const char *path, const char *sql)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    cdc_buf_t out = {0};
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            if (c)
                cdc_buf_putc(&out, '|');
            const unsigned char *t = sqlite3_column_text(st, c);
            cdc_buf_puts(&out, t ? (const char *)t : "NULL");
        }
        cdc_buf_putc(&out, '\n');
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    char *s = cdc_xstrdup(cdc_buf_cstr(&out));
    cdc_buf_free(&out);
    return s;
}

static void expect_table(const char *path, const char *sql, const char *want)
{
    char *got = dump(path, sql);
    cr_assert_str_eq(got, want);
    free(got);
}

Test(jdbc_sqlite, every_type_round_trips)
{
    js_t j;
    static const int pk[] = {0};
    js_open(&j,
            "ROW<id BIGINT NOT NULL, b BOOLEAN, ti TINYINT, si SMALLINT, i INT, f FLOAT, "
            "d DOUBLE, dec DECIMAL(20, 4), c CHAR(3), s STRING, bin BYTES, dt DATE, "
            "tm TIME(3), ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(3), n STRING>",
            pk, 1, "types", NULL);
    cdc_row_t *r = cdc_batch_add(&j.batch, CDC_INSERT, 16);
    set_int(&r->values[0], 9007199254740993LL);
    r->values[1].flags = 0;
    r->values[1].v.b = true;
    set_int(&r->values[2], -128);
    set_int(&r->values[3], 32767);
    set_int(&r->values[4], -2147483647 - 1);
    r->values[5].flags = 0;
    r->values[5].v.f = 1.5f;
    r->values[6].flags = 0;
    r->values[6].v.d = 0.1;
    r->values[7].flags = 0;
    r->values[7].v.dec = (cdc_i128)-12345678901234567LL; /* -1234567890123.4567 */
    set_str(&j.batch, &r->values[8], "abc", 3);
    set_str(&j.batch, &r->values[9], "h\xc3\xa9llo\0x", 8);
    set_str(&j.batch, &r->values[10], "\x00\xff\x01", 3);
    set_int(&r->values[11], 18473); /* 2020-07-30 */
    set_int(&r->values[12], (10 * 3600 + 8 * 60 + 22) * 1000000000LL + 123000000LL);
    r->values[13].flags = 0;
    r->values[13].v.ts.millis = 1596103702123LL; /* 2020-07-30 10:08:22.123 */
    r->values[13].v.ts.nanos = 0;
    r->values[14].flags = 0;
    r->values[14].v.ts.millis = 1596103702123LL;
    r->values[14].v.ts.nanos = 0;
    cdc_error_t *err = js_flush(&j);
    cr_assert_null(err, "%s", err ? err->message : "");
    expect_table(j.path,
                 "SELECT typeof(id), id, typeof(b), b, ti, si, i, typeof(f), f, typeof(d), d, "
                 "typeof(dec), dec, c, typeof(s), length(CAST(s AS BLOB)), hex(s), typeof(bin), "
                 "hex(bin), dt, tm, ts, ltz, typeof(n) FROM types",
                 "integer|9007199254740993|integer|1|-128|32767|-2147483648|real|1.5|real|0.1|"
                 "text|-1234567890123.4567|abc|text|8|68C3A96C6C6F0078|blob|00FF01|2020-07-30|"
                 "10:08:22.123|2020-07-30 10:08:22.123|2020-07-30 10:08:22.123Z|null\n");
    js_close(&j);
}

/* A random change stream over 50 keys against a model; applied twice gives the same table. */
Test(jdbc_sqlite, upserts_and_deletes_match_a_model_and_are_idempotent)
{
    enum { KEYS = 50, CHANGES = 2000 };
    js_t j;
    static const int pk[] = {0};
    const char *extra[] = {"sink.buffer-flush.max-rows", "37", NULL};
    js_open(&j, "ROW<k INT NOT NULL, v BIGINT>", pk, 1, "m", extra);
    int64_t model[KEYS];
    bool present[KEYS] = {0};
    struct {
        cdc_kind_t kind;
        int k;
        int64_t v;
    } changes[CHANGES];
    srand(42);
    for (int i = 0; i < CHANGES; i++) {
        int k = rand() % KEYS;
        int64_t v = rand();
        cdc_kind_t kind =
            rand() % 4 == 0 ? CDC_DELETE : (present[k] ? CDC_UPDATE_AFTER : CDC_INSERT);
        changes[i].kind = kind;
        changes[i].k = k;
        changes[i].v = v;
        present[k] = kind != CDC_DELETE;
        model[k] = v;
    }
    char expected[KEYS * 40] = "";
    for (int k = 0; k < KEYS; k++)
        if (present[k])
            snprintf(expected + strlen(expected), sizeof(expected) - strlen(expected), "%d|%lld\n",
                     k, (long long)model[k]);
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < CHANGES; i++) {
            cdc_row_t *r = cdc_batch_add(&j.batch, changes[i].kind, 2);
            set_int(&r->values[0], changes[i].k);
            set_int(&r->values[1], changes[i].v);
            if (i % 300 == 299 || i == CHANGES - 1) {
                cdc_error_t *err = js_flush(&j);
                cr_assert_null(err, "%s", err ? err->message : "");
            }
        }
        expect_table(j.path, "SELECT k, v FROM m ORDER BY k", expected);
    }
    js_close(&j);
}

Test(jdbc_sqlite, unchanged_columns_keep_stored_values)
{
    js_t j;
    static const int pk[] = {0};
    js_open(&j, "ROW<k INT NOT NULL, a STRING, b STRING>", pk, 1, "u", NULL);
    cdc_row_t *r = cdc_batch_add(&j.batch, CDC_INSERT, 3);
    set_int(&r->values[0], 1);
    set_str(&j.batch, &r->values[1], "a1", 2);
    set_str(&j.batch, &r->values[2], "big toast", 9);
    cr_assert_null(js_flush(&j));
    r = cdc_batch_add(&j.batch, CDC_UPDATE_AFTER, 3);
    set_int(&r->values[0], 1);
    set_str(&j.batch, &r->values[1], "a2", 2);
    r->values[2].flags = CDC_V_UNCHANGED;
    cr_assert_null(js_flush(&j));
    expect_table(j.path, "SELECT * FROM u", "1|a2|big toast\n");
    /* coalesced in one flush: the buffered value fills the unchanged column */
    r = cdc_batch_add(&j.batch, CDC_UPDATE_AFTER, 3);
    set_int(&r->values[0], 1);
    set_str(&j.batch, &r->values[1], "a3", 2);
    set_str(&j.batch, &r->values[2], "new toast", 9);
    r = cdc_batch_add(&j.batch, CDC_UPDATE_AFTER, 3);
    set_int(&r->values[0], 1);
    set_str(&j.batch, &r->values[1], "a4", 2);
    r->values[2].flags = CDC_V_UNCHANGED;
    cr_assert_null(js_flush(&j));
    expect_table(j.path, "SELECT * FROM u", "1|a4|new toast\n");
    /* delete then an upsert with an unchanged column: the old value is really gone */
    r = cdc_batch_add(&j.batch, CDC_DELETE, 3);
    set_int(&r->values[0], 1);
    r = cdc_batch_add(&j.batch, CDC_INSERT, 3);
    set_int(&r->values[0], 1);
    set_str(&j.batch, &r->values[1], "a5", 2);
    r->values[2].flags = CDC_V_UNCHANGED;
    cr_assert_null(js_flush(&j));
    expect_table(j.path, "SELECT k, a, quote(b) FROM u", "1|a5|NULL\n");
    js_close(&j);
}

Test(jdbc_sqlite, hostile_identifiers_and_values_are_stored_verbatim)
{
    js_t j;
    static const int pk[] = {0};
    static const char hostile[] = "x'); DROP TABLE t; --\" \\ \n\t";
    js_open(&j, "ROW<`k \"; --` INT NOT NULL, `v'; DROP TABLE x;` STRING>", pk, 1,
            "t \"1\"; DROP TABLE t; --", NULL);
    cdc_row_t *r = cdc_batch_add(&j.batch, CDC_INSERT, 2);
    set_int(&r->values[0], 7);
    set_str(&j.batch, &r->values[1], hostile, strlen(hostile));
    cr_assert_null(js_flush(&j));
    char *got = dump(j.path, "SELECT \"k \"\"; --\", \"v'; DROP TABLE x;\" "
                             "FROM \"t \"\"1\"\"; DROP TABLE t; --\"");
    char want[128];
    snprintf(want, sizeof(want), "7|%s\n", hostile);
    cr_assert_str_eq(got, want);
    free(got);
    js_close(&j);
}

Test(jdbc_sqlite, constraint_violation_names_table_row_and_message)
{
    js_t j;
    static const int pk[] = {0};
    js_open(&j, "ROW<k INT NOT NULL, v STRING NOT NULL>", pk, 1, "cv", NULL);
    cdc_row_t *r = cdc_batch_add(&j.batch, CDC_INSERT, 2);
    set_int(&r->values[0], 1);
    set_str(&j.batch, &r->values[1], "ok", 2);
    r = cdc_batch_add(&j.batch, CDC_INSERT, 2);
    set_int(&r->values[0], 2); /* v stays NULL */
    cdc_error_t *err = js_flush(&j);
    cr_assert_not_null(err);
    char *text = cdc_error_format(err);
    cr_assert_str_eq(text, "error: could not write to table \"cv\"\n"
                           "DETAIL: sqlite: NOT NULL constraint failed: cv.v\n"
                           "        row: +I[2, null]\n"
                           "CONTEXT: jdbc sink of \"cat.db.out\"");
    cr_assert(err->fatal);
    cr_assert_not(err->retriable);
    free(text);
    cdc_error_destroy(err);
    expect_table(j.path, "SELECT count(*) FROM cv", "0\n"); /* rolled back as a whole */
    js_close(&j);
}

Test(jdbc_sqlite, a_burst_of_updates_to_one_key_writes_once)
{
    js_t j;
    static const int pk[] = {0};
    js_open(&j, "ROW<k INT NOT NULL, v INT>", pk, 1, "c", NULL);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(j.path, &db), SQLITE_OK);
    cr_assert_eq(
        sqlite3_exec(db,
                     "CREATE TABLE hits (n INT); INSERT INTO hits VALUES (0);"
                     "CREATE TRIGGER ci AFTER INSERT ON c BEGIN UPDATE hits SET n = n + 1; END;"
                     "CREATE TRIGGER cu AFTER UPDATE ON c BEGIN UPDATE hits SET n = n + 1; END;",
                     NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(db);
    for (int i = 0; i < 10; i++) {
        cdc_row_t *r = cdc_batch_add(&j.batch, i ? CDC_UPDATE_AFTER : CDC_INSERT, 2);
        set_int(&r->values[0], 5);
        set_int(&r->values[1], i);
    }
    cr_assert_null(js_flush(&j));
    expect_table(j.path, "SELECT (SELECT n FROM hits), k, v FROM c", "1|5|9\n");
    js_close(&j);
}

Test(jdbc_sqlite, busy_database_is_retried_then_fails_retriable)
{
    js_t j;
    static const int pk[] = {0};
    const char *extra[] = {"sink.max-retries", "1", NULL};
    js_open(&j, "ROW<k INT NOT NULL>", pk, 1, "b", extra);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(j.path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    cdc_row_t *r = cdc_batch_add(&j.batch, CDC_INSERT, 1);
    set_int(&r->values[0], 1);
    cdc_error_t *err = js_flush(&j);
    cr_assert_not_null(err);
    cr_assert(err->retriable);
    cr_assert_str_eq(err->message, "could not write to table \"b\" after 2 attempts");
    cr_assert_str_eq(err->detail, "sqlite: database is locked");
    cdc_error_destroy(err);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(db);
    /* the batch is still buffered: the next flush writes it */
    cr_assert_null(js_flush(&j));
    expect_table(j.path, "SELECT k FROM b", "1\n");
    js_close(&j);
}

Test(jdbc_sqlite, changelog_mode_follows_the_primary_key)
{
    js_t j;
    static const int pk[] = {0};
    js_open(&j, "ROW<k INT NOT NULL>", pk, 1, "a", NULL);
    cr_assert_eq(j.sink->ops->changelog_mode(j.sink, CDC_MODE_ALL), CDC_MODE_UPSERT);
    js_close(&j);
    js_open(&j, "ROW<k INT NOT NULL>", NULL, 0, "a", NULL);
    cr_assert_eq(j.sink->ops->changelog_mode(j.sink, CDC_MODE_ALL), CDC_MODE_INSERT_ONLY);
    cdc_row_t *r = cdc_batch_add(&j.batch, CDC_INSERT, 1);
    set_int(&r->values[0], 1);
    r = cdc_batch_add(&j.batch, CDC_INSERT, 1);
    set_int(&r->values[0], 1);
    cr_assert_null(js_flush(&j));
    expect_table(j.path, "SELECT k FROM a", "1\n1\n"); /* appended, duplicates kept */
    js_close(&j);
}

Test(jdbc_sqlite, option_errors)
{
    cdc_config_t *cfg = NULL;
    const char *missing[] = {"table-name", "t", "password", "hunter2", NULL};
    cdc_error_t *err = validate(missing, &cfg);
    cr_assert_not_null(err);
    cr_assert(strstr(err->detail, "\"url\""), "%s", err->detail);
    cr_assert_null(strstr(err->detail, "hunter2"));
    cdc_error_destroy(err);

    const char *pg[] = {
        "url", "jdbc:postgresql://localhost:5432/db", "table-name", "t", "password", "hunter2",
        NULL};
    err = validate(pg, &cfg); /* the postgresql dialect exists (tested by jdbc_postgres.sh) */
    cr_assert_null(err, "%s", err ? err->detail : "");
    cdc_config_destroy(cfg);
    cfg = NULL;

    const char *my[] = {"url", "jdbc:mysql://h/db", "table-name", "t", NULL};
    err = validate(my, &cfg); /* the mysql dialect exists (tested by jdbc_mysql.sh) */
    cr_assert_null(err, "%s", err ? err->detail : "");
    cdc_config_destroy(cfg);
    cfg = NULL;
    const char *maria[] = {"url", "jdbc:mariadb://h:3306/db", "table-name", "t", NULL};
    err = validate(maria, &cfg);
    cr_assert_null(err, "%s", err ? err->detail : "");
    cdc_config_destroy(cfg);
    cfg = NULL;

    const char *bad[] = {"url",     "jdbc:sqlite:x.db", "table-name", "t", "password",
                         "hunter2", "sink.max-retries", "-1",         NULL};
    err = validate(bad, &cfg);
    cr_assert_not_null(err);
    char *text = cdc_error_format(err);
    cr_assert_null(strstr(text, "hunter2"));
    free(text);
    cdc_error_destroy(err);
}

Test(jdbc_sqlite, background_flushes_keep_per_key_order)
{
    /* max-rows 3: writes hand a buffer to the flush thread every 3 changes and go on filling
       the other one; the final flush must leave exactly the model's table */
    js_t j;
    static const int pk[] = {0};
    const char *extra[] = {"sink.buffer-flush.max-rows", "3", NULL};
    js_open(&j, "ROW<k INT NOT NULL, v INT>", pk, 1, "o", extra);
    int model[10];
    for (int k = 0; k < 10; k++)
        model[k] = -1; /* absent */
    uint32_t rng = 12345;
    for (int i = 0; i < 300; i++) {
        rng = rng * 1103515245u + 12345u;
        int k = (int)((rng >> 16) % 10), op = (int)((rng >> 8) % 3);
        cdc_row_t *r = cdc_batch_add(&j.batch, op == 2 ? CDC_DELETE : CDC_UPDATE_AFTER, 2);
        set_int(&r->values[0], k);
        set_int(&r->values[1], i);
        model[k] = op == 2 ? -1 : i;
        if (j.batch.n == 7) {
            cdc_error_t *err = NULL;
            cr_assert_eq(j.writer->ops->write(j.writer, &j.batch, &err), 0);
            cdc_batch_reset(&j.batch);
        }
    }
    cr_assert_null(js_flush(&j));
    char want[256] = "";
    for (int k = 0; k < 10; k++)
        if (model[k] >= 0)
            snprintf(want + strlen(want), sizeof(want) - strlen(want), "%d|%d\n", k, model[k]);
    expect_table(j.path, "SELECT k, v FROM o ORDER BY k", want);
    js_close(&j);
}

Test(jdbc_sqlite, background_flush_failure_is_returned_and_the_buffer_replayed)
{
    js_t j;
    static const int pk[] = {0};
    const char *extra[] = {"sink.max-retries", "0", "sink.buffer-flush.max-rows", "1", NULL};
    js_open(&j, "ROW<k INT NOT NULL>", pk, 1, "b", extra);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(j.path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    /* the first write hands its buffer over and returns; the flush fails on the thread */
    cdc_row_t *r = cdc_batch_add(&j.batch, CDC_INSERT, 1);
    set_int(&r->values[0], 1);
    cdc_error_t *err = NULL;
    cr_assert_eq(j.writer->ops->write(j.writer, &j.batch, &err), 0);
    cdc_batch_reset(&j.batch);
    /* the next write returns that failure (before or after buffering its row) */
    r = cdc_batch_add(&j.batch, CDC_INSERT, 1);
    set_int(&r->values[0], 2);
    cr_assert_eq(j.writer->ops->write(j.writer, &j.batch, &err), -1);
    cdc_batch_reset(&j.batch);
    cr_assert_not_null(err);
    cr_assert(err->retriable);
    cr_assert_str_eq(err->message, "could not write to table \"b\" after 1 attempts");
    cdc_error_destroy(err);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(db);
    /* the failed buffer is written by the next flush */
    cr_assert_null(js_flush(&j));
    expect_table(j.path, "SELECT k FROM b WHERE k = 1", "1\n");
    js_close(&j);
}
