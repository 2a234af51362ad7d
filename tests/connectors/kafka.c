/*
 * tests/connectors/kafka.c — the "kafka" connector through the plugin API
 * against librdkafka's mock cluster in process (real protocol over TCP):
 * a sink -> source round trip with key fields and metadata, the rebalance
 * barrier (a reader that loses partitions asks for a flush and keeps them
 * until its commit), the overlapped commit (mark, commit_mark), the early
 * start (rows before the group's first assignment, then the handover) and
 * option errors.
 */
#include <criterion/criterion.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cdc_plugin.h"

static rd_kafka_t *mock_rk;
static rd_kafka_mock_cluster_t *mock;
static char bootstrap[256];

static void mock_up(void)
{
    char errstr[256];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "log_level", "0", errstr, sizeof(errstr));
    mock_rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
    cr_assert_not_null(mock_rk, "%s", errstr);
    mock = rd_kafka_mock_cluster_new(mock_rk, 1);
    cr_assert_not_null(mock);
    snprintf(bootstrap, sizeof(bootstrap), "%s", rd_kafka_mock_cluster_bootstraps(mock));
    cr_assert_eq(rd_kafka_mock_topic_create(mock, "rt", 2, 1), 0);
    cr_assert_eq(rd_kafka_mock_topic_create(mock, "rb", 2, 1), 0);
    cr_assert_eq(rd_kafka_mock_topic_create(mock, "mk", 1, 1), 0);
    cr_assert_eq(rd_kafka_mock_topic_create(mock, "sc", 1, 1), 0);
    cr_assert_eq(rd_kafka_mock_topic_create(mock, "es", 2, 1), 0);
}

static void mock_down(void)
{
    rd_kafka_mock_cluster_destroy(mock);
    rd_kafka_destroy(mock_rk);
}

TestSuite(kafka, .init = mock_up, .fini = mock_down, .timeout = 120);

/* The options of a reader in a group: from the start, a quick session. */
#define GROUP_OPTS                                                                                 \
    "properties.auto.offset.reset", "earliest", "properties.session.timeout.ms", "6000",           \
        "properties.heartbeat.interval.ms", "300"

typedef struct table_s {
    cdc_type_t *schema;
    cdc_resolved_t res;
    cdc_table_ctx_t ctx;
} table_t;

/* Resolves a kafka table; pairs are WITH options (bootstrap added). Returns 0 or -1 with *err. */
static int table_open(table_t *t, const char *schema, const char *const *pairs, int npk,
                      cdc_error_t **err)
{
    memset(t, 0, sizeof(*t));
    t->schema = cdc_type_parse(schema, err);
    cr_assert_not_null(t->schema);
    cdc_kv_t kv = {0};
    cdc_kv_set(&kv, "connector", "kafka");
    cdc_kv_set(&kv, "properties.bootstrap.servers", bootstrap);
    for (int i = 0; pairs[i]; i += 2)
        cdc_kv_set(&kv, pairs[i], pairs[i + 1]);
    int rc = cdc_resolve_options(&kv, "cat.db.k", &t->res, err);
    cdc_kv_free(&kv);
    static const int pk0[] = {0};
    t->ctx = (cdc_table_ctx_t){.name = "cat.db.k",
                               .schema = t->schema,
                               .pk = pk0,
                               .npk = npk,
                               .cfg = t->res.cfg,
                               .formats = t->res.formats,
                               .nformats = t->res.nformats,
                               .parallelism = 1};
    return rc;
}

static void table_close(table_t *t)
{
    cdc_resolved_free(&t->res);
    cdc_type_destroy(t->schema);
}

static void put(cdc_batch_t *b, int64_t id, const char *name)
{
    cdc_row_t *r = cdc_batch_add(b, CDC_INSERT, 2);
    r->values[0].v.i = id;
    r->values[0].flags = 0;
    r->values[1].v.s = (cdc_str_t){cdc_arena_strdup(&b->arena, name), (uint32_t)strlen(name)};
    r->values[1].flags = 0;
}

/* Writes ids from..to (names "n<id>") through the kafka sink to topic. */
static void write_rows(const char *topic, int from, int to)
{
    const char *const opts[] = {"topic", topic,          "key.format", "json", "key.fields",
                                "id",    "value.format", "json",       NULL};
    table_t t;
    cdc_error_t *err = NULL;
    cr_assert_eq(table_open(&t, "ROW<id BIGINT, name STRING>", opts, 0, &err), 0);
    cdc_sink_t *sink = NULL;
    cr_assert_eq(t.res.connector->sink_new(&t.ctx, &sink, &err), 0, "%s", err ? err->message : "");
    cdc_writer_t *w = NULL;
    cr_assert_eq(sink->ops->open_writer(sink, 0, 1, &w, &err), 0);
    cdc_batch_t b;
    cdc_batch_init(&b);
    char name[32];
    for (int i = from; i <= to; i++) {
        snprintf(name, sizeof(name), "n%d", i);
        put(&b, i, name);
    }
    cr_assert_eq(w->ops->write(w, &b, &err), 0);
    cr_assert_eq(w->ops->flush(w, &err), 0, "%s", err ? err->message : "");
    w->ops->close(w);
    sink->ops->destroy(sink);
    cdc_batch_free(&b);
    table_close(&t);
}

Test(kafka, round_trip_with_key_and_metadata)
{
    write_rows("rt", 1, 20);
    const char *const opts[] = {"topic",
                                "rt",
                                "key.format",
                                "json",
                                "key.fields",
                                "k_id",
                                "key.fields-prefix",
                                "k_",
                                "value.format",
                                "json",
                                "value.fields-include",
                                "EXCEPT_KEY",
                                "scan.startup.mode",
                                "earliest-offset",
                                "scan.bounded.mode",
                                "latest-offset",
                                NULL};
    table_t t;
    cdc_error_t *err = NULL;
    cr_assert_eq(table_open(&t, "ROW<k_id BIGINT, name STRING>", opts, 0, &err), 0);
    cdc_source_t *src = NULL;
    cr_assert_eq(t.res.connector->source_new(&t.ctx, &src, &err), 0, "%s", err ? err->message : "");
    const char *const md[] = {"partition", "offset", "key"};
    cr_assert_eq(src->ops->apply_metadata(src, md, 3, &err), 0);
    cr_assert_eq(src->produced->nchildren, 5);
    cdc_reader_t *r = NULL;
    cr_assert_eq(src->ops->open_reader(src, 0, 1, &r, &err), 0, "%s", err ? err->message : "");
    cdc_batch_t b;
    cdc_batch_init(&b);
    bool seen[21] = {0};
    int total = 0, rc;
    while ((rc = r->ops->poll(r, &b, 7, &err)) != CDC_POLL_END) {
        cr_assert_neq(rc, CDC_POLL_ERROR, "%s", err ? err->message : "");
        cr_assert_leq(b.n, 7);
        for (uint32_t i = 0; i < b.n; i++) {
            const cdc_row_t *row = &b.rows[i];
            int64_t id = row->values[0].v.i;
            cr_assert(id >= 1 && id <= 20 && !seen[id]);
            seen[id] = true;
            char name[32], key[32];
            snprintf(name, sizeof(name), "n%lld", (long long)id);
            snprintf(key, sizeof(key), "{\"id\":%lld}", (long long)id);
            cr_assert_eq(row->values[1].v.s.len, strlen(name));
            cr_assert_eq(memcmp(row->values[1].v.s.ptr, name, strlen(name)), 0);
            cr_assert(row->values[2].v.i == 0 || row->values[2].v.i == 1);
            cr_assert_geq(row->values[3].v.i, 0);
            cr_assert_eq(row->values[4].v.s.len, strlen(key));
            cr_assert_eq(memcmp(row->values[4].v.s.ptr, key, strlen(key)), 0);
            total++;
        }
        cdc_batch_reset(&b);
    }
    cr_assert_eq(total, 20);
    cr_assert_eq(r->ops->commit(r, &err), 0);
    r->ops->close(r);
    cdc_batch_free(&b);
    src->ops->destroy(src);
    table_close(&t);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Polls until `want` rows were read in total or the deadline; returns the last status. */
static int poll_rows(cdc_reader_t *r, cdc_batch_t *b, int *rows, int want, int64_t deadline)
{
    cdc_error_t *err = NULL;
    int rc = CDC_POLL_OK;
    while (*rows < want && now_ms() < deadline) {
        cdc_batch_reset(b);
        rc = r->ops->poll(r, b, 1000, &err);
        cr_assert_neq(rc, CDC_POLL_ERROR, "%s", err ? err->message : "");
        *rows += (int)b->n;
        if (rc == CDC_POLL_FLUSH)
            break;
    }
    return rc;
}

Test(kafka, rebalance_flushes_before_partitions_move)
{
    write_rows("rb", 1, 100);
    const char *const opts[] = {"topic",
                                "rb",
                                "format",
                                "json",
                                "properties.group.id",
                                "grb",
                                GROUP_OPTS,
                                "scan.group.early-start", /* the group path */
                                "false",
                                NULL};
    table_t t;
    cdc_error_t *err = NULL;
    cr_assert_eq(table_open(&t, "ROW<id BIGINT, name STRING>", opts, 0, &err), 0);
    cdc_source_t *src = NULL;
    cr_assert_eq(t.res.connector->source_new(&t.ctx, &src, &err), 0);
    cdc_reader_t *a = NULL, *b = NULL;
    cdc_batch_t ba, bb;
    cdc_batch_init(&ba);
    cdc_batch_init(&bb);
    cr_assert_eq(src->ops->open_reader(src, 0, 1, &a, &err), 0);
    int rows_a = 0;
    poll_rows(a, &ba, &rows_a, 100, now_ms() + 60000);
    cr_assert_eq(rows_a, 100);
    cr_assert_eq(a->ops->commit(a, &err), 0); /* the group is stable: this commit holds */
    write_rows("rb", 101, 150);
    poll_rows(a, &ba, &rows_a, 150, now_ms() + 60000);
    cr_assert_eq(rows_a, 150); /* read, "written", not committed */

    /* a second member joins: A must ask for a flush and keep its partitions until commit */
    cr_assert_eq(src->ops->open_reader(src, 0, 1, &b, &err), 0);
    int64_t deadline = now_ms() + 60000;
    int rc = CDC_POLL_OK;
    while (rc != CDC_POLL_FLUSH && now_ms() < deadline) {
        int none = 0;
        rc = poll_rows(a, &ba, &rows_a, 1000000, now_ms() + 100);
        poll_rows(b, &bb, &none, 1, now_ms() + 100);
        cr_assert_eq(none, 0, "B read rows while A still owned every partition");
    }
    cr_assert_eq(rc, CDC_POLL_FLUSH);
    /* until A commits, A keeps answering FLUSH and B gets nothing */
    for (int i = 0; i < 5; i++) {
        cdc_batch_reset(&ba);
        cr_assert_eq(a->ops->poll(a, &ba, 1000, &err), CDC_POLL_FLUSH);
        int none = 0;
        poll_rows(b, &bb, &none, 1, now_ms() + 200);
        cr_assert_eq(none, 0);
    }
    cr_assert_eq(a->ops->commit(a, &err), 0);
    /* the members split the partitions and each resumes from the last commit that held:
       101..150 are read again (the mock refuses commits during a rebalance, so A's last ones
       were not kept; at-least-once), 1..100 never */
    bool seen[51] = {false};
    int distinct = 0;
    deadline = now_ms() + 60000;
    while (distinct < 50 && now_ms() < deadline) {
        cdc_reader_t *rs[2] = {a, b};
        for (int k = 0; k < 2; k++) {
            cdc_batch_reset(&bb);
            rc = rs[k]->ops->poll(rs[k], &bb, 1000, &err);
            cr_assert_neq(rc, CDC_POLL_ERROR, "%s", err ? err->message : "");
            for (uint32_t i = 0; i < bb.n; i++) {
                int64_t id = bb.rows[i].values[0].v.i;
                cr_assert_gt(id, 100, "a committed row was read again");
                cr_assert_leq(id, 150);
                if (!seen[id - 100]) {
                    seen[id - 100] = true;
                    distinct++;
                }
            }
            if (rc == CDC_POLL_FLUSH || bb.n > 0)
                cr_assert_eq(rs[k]->ops->commit(rs[k], &err), 0);
        }
    }
    /* every uncommitted row comes back (at-least-once; a row may come twice if a commit
       raced the rebalance, never a committed one) */
    cr_assert_eq(distinct, 50);
    a->ops->close(a);
    b->ops->close(b);
    cdc_batch_free(&ba);
    cdc_batch_free(&bb);
    src->ops->destroy(src);
    table_close(&t);
}

static void expect_error(const char *schema, const char *const *opts, int npk, bool sink,
                         const char *needle)
{
    table_t t;
    cdc_error_t *err = NULL;
    int rc = table_open(&t, schema, opts, npk, &err);
    if (rc == 0) {
        cdc_source_t *src = NULL;
        cdc_sink_t *snk = NULL;
        rc = sink ? t.res.connector->sink_new(&t.ctx, &snk, &err)
                  : t.res.connector->source_new(&t.ctx, &src, &err);
        if (src)
            src->ops->destroy(src);
        if (snk)
            snk->ops->destroy(snk);
    }
    cr_assert_eq(rc, -1, "expected an error containing \"%s\"", needle);
    char *text = cdc_error_format(err);
    cr_assert(strstr(text, needle), "\"%s\" not in:\n%s", needle, text);
    free(text);
    cdc_error_destroy(err);
    if (t.res.cfg)
        table_close(&t);
    else
        cdc_type_destroy(t.schema);
}

/* Reads exactly n rows (polls of at most what is missing); returns the first id. */
static int64_t read_exactly(cdc_reader_t *r, cdc_batch_t *b, int n)
{
    cdc_error_t *err = NULL;
    int64_t first = -1, deadline = now_ms() + 60000;
    for (int rows = 0; rows < n;) {
        cr_assert_lt(now_ms(), deadline, "only %d of %d rows came", rows, n);
        cdc_batch_reset(b);
        int rc = r->ops->poll(r, b, (uint32_t)(n - rows), &err);
        cr_assert_eq(rc, CDC_POLL_OK, "%s", err ? err->message : "");
        if (b->n > 0 && first < 0)
            first = b->rows[0].values[0].v.i;
        rows += (int)b->n;
    }
    return first;
}

Test(kafka, commit_mark_commits_the_marked_offsets_only)
{
    write_rows("mk", 1, 20);
    const char *const opts[] = {"topic",
                                "mk",
                                "format",
                                "json",
                                "properties.group.id",
                                "gmk",
                                GROUP_OPTS,
                                "scan.group.early-start", /* the group path */
                                "false",
                                NULL};
    table_t t;
    cdc_error_t *err = NULL;
    cr_assert_eq(table_open(&t, "ROW<id BIGINT, name STRING>", opts, 0, &err), 0);
    cdc_source_t *src = NULL;
    cr_assert_eq(t.res.connector->source_new(&t.ctx, &src, &err), 0);
    cdc_batch_t b;
    cdc_batch_init(&b);
    cdc_reader_t *r = NULL;
    cr_assert_eq(src->ops->open_reader(src, 0, 1, &r, &err), 0);
    cr_assert_not_null(r->ops->mark);
    cr_assert_eq(read_exactly(r, &b, 10), 1);
    r->ops->mark(r); /* rows 1..10 go to the sink's flush */
    cr_assert_eq(read_exactly(r, &b, 10), 11);
    /* the flush of 1..10 is durable; 11..20 are not: only the mark is committed */
    cr_assert_eq(r->ops->commit_mark(r, &err), 0, "%s", err ? err->message : "");
    r->ops->close(r); /* commits what is durable, nothing more */
    cr_assert_eq(src->ops->open_reader(src, 0, 1, &r, &err), 0);
    cr_assert_eq(read_exactly(r, &b, 10), 11, "the group resumes after the mark");
    r->ops->close(r);
    cdc_batch_free(&b);
    src->ops->destroy(src);
    table_close(&t);
}

/* The offsets group g committed for topic's partitions 0..n-1 (a consumer outside it). */
static void group_committed(const char *group, const char *topic, int n, int64_t *off,
                            char md[][128])
{
    char errstr[256];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, errstr, sizeof(errstr));
    rd_kafka_conf_set(conf, "group.id", group, errstr, sizeof(errstr));
    rd_kafka_conf_set(conf, "log_level", "0", errstr, sizeof(errstr));
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
    cr_assert_not_null(rk, "%s", errstr);
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(n);
    for (int i = 0; i < n; i++)
        rd_kafka_topic_partition_list_add(l, topic, i);
    cr_assert_eq(rd_kafka_committed(rk, l, 10000), 0);
    for (int i = 0; i < n; i++) {
        off[i] = l->elems[i].offset;
        snprintf(md[i], 128, "%.*s", (int)l->elems[i].metadata_size,
                 l->elems[i].metadata ? (const char *)l->elems[i].metadata : "");
    }
    rd_kafka_topic_partition_list_destroy(l);
    rd_kafka_destroy(rk);
}

Test(kafka, early_start_reads_before_the_assignment_then_hands_over)
{
    write_rows("es", 1, 100);
    const char *const opts[] = {"topic", "es",       "format", "json", "properties.group.id",
                                "ges",   GROUP_OPTS, NULL};
    table_t t;
    cdc_error_t *err = NULL;
    cr_assert_eq(table_open(&t, "ROW<id BIGINT, name STRING>", opts, 0, &err), 0);
    cdc_source_t *src = NULL;
    cr_assert_eq(t.res.connector->source_new(&t.ctx, &src, &err), 0);
    cdc_reader_t *r = NULL;
    cdc_batch_t b;
    cdc_batch_init(&b);
    cr_assert_eq(src->ops->open_reader(src, 0, 1, &r, &err), 0);
    int rows = 0;
    int rc = poll_rows(r, &b, &rows, 100, now_ms() + 60000);
    /* every row came before the group's first assignment, whose handover is a flush */
    cr_assert_eq(rows, 100);
    cr_assert_neq(rc, CDC_POLL_FLUSH, "the rows came with the group's assignment");
    int64_t off[2];
    char md[2][128];
    group_committed("ges", "es", 2, off, md);
    for (int i = 0; i < 2; i++) /* the probe's commit: start offsets and this reader's token */
        cr_assert(strncmp(md[i], "cdcflow-early:", 14) == 0, "partition %d: \"%s\"", i, md[i]);
    cr_assert_eq(r->ops->commit(r, &err), 0); /* durable; not committed (the group is busy) */
    int none = 0;
    rc = poll_rows(r, &b, &none, 1, now_ms() + 60000);
    cr_assert_eq(rc, CDC_POLL_FLUSH, "no handover at the group's first assignment");
    cr_assert_eq(none, 0);
    cr_assert_eq(r->ops->commit(r, &err), 0); /* the handover: released at the positions read */
    group_committed("ges", "es", 2, off, md);
    cr_assert_eq(off[0] + off[1], 100);
    cr_assert_str_empty(md[0]);
    cr_assert_str_empty(md[1]);
    /* the group's assignment goes on from there: the next rows, once */
    write_rows("es", 101, 110);
    rows = 0;
    poll_rows(r, &b, &rows, 10, now_ms() + 60000);
    cr_assert_eq(rows, 10);
    r->ops->close(r);
    cdc_batch_free(&b);
    src->ops->destroy(src);
    table_close(&t);
}

Test(kafka, option_errors)
{
    const char *const pk[] = {"topic", "rt", "format", "json", NULL};
    expect_error("ROW<id BIGINT NOT NULL>", pk, 1, false, "cannot declare a PRIMARY KEY");
    const char *const prop[] = {"topic", "rt", "format", "json", "properties.bogus.key", "1", NULL};
    expect_error("ROW<id BIGINT>", prop, 0, false, "No such configuration property");
    const char *const both[] = {"topic", "rt", "topic-pattern", "r.*", "format", "json", NULL};
    expect_error("ROW<id BIGINT>", both, 0, false, "exclude each other");
    const char *const list[] = {"topic", "a;b", "format", "json", NULL};
    expect_error("ROW<id BIGINT>", list, 0, true, "writes to one topic");
    const char *const kf[] = {"topic", "rt",           "key.format", "json", "key.fields",
                              "nope",  "value.format", "json",       NULL};
    expect_error("ROW<id BIGINT>", kf, 0, false, "not a physical column");
    const char *const ts[] = {"topic",     "rt", "format", "json", "scan.startup.mode",
                              "timestamp", NULL};
    expect_error("ROW<id BIGINT>", ts, 0, false, "scan.startup.timestamp-millis");
    const char *const eo[] = {"topic",        "rt", "format", "json", "sink.delivery-guarantee",
                              "exactly-once", NULL};
    expect_error("ROW<id BIGINT>", eo, 0, true, "not supported");
}

/*
 * The Java client's properties a Flink user pastes: JAAS PLAIN/SCRAM become librdkafka's
 * sasl.username/sasl.password (librdkafka itself rejects sasl.jaas.config), PEM and PKCS#12
 * stores become its paths; the rest is refused with what to use instead.
 */
Test(kafka, java_properties)
{
    const char *const plain[] = {"topic",
                                 "rt",
                                 "format",
                                 "json",
                                 "properties.security.protocol",
                                 "SASL_PLAINTEXT",
                                 "properties.sasl.jaas.config",
                                 "org.apache.kafka.common.security.plain.PlainLoginModule "
                                 "required username=\"u\" password=\"p\\\"w\";",
                                 "properties.ssl.keystore.type",
                                 "PKCS12",
                                 "properties.ssl.keystore.location",
                                 "/nonexistent/client.p12",
                                 NULL};
    table_t t;
    cdc_error_t *err = NULL;
    cr_assert_eq(table_open(&t, "ROW<id BIGINT>", plain, 0, &err), 0, "%s",
                 err ? cdc_error_format(err) : "");
    cdc_sink_t *sink = NULL;
    cr_assert_eq(t.res.connector->sink_new(&t.ctx, &sink, &err), 0, "%s",
                 err ? cdc_error_format(err) : "");
    sink->ops->destroy(sink);
    table_close(&t);

    const char *const krb[] = {"topic",
                               "rt",
                               "format",
                               "json",
                               "properties.sasl.jaas.config",
                               "com.sun.security.auth.module.Krb5LoginModule required "
                               "useKeyTab=true;",
                               NULL};
    expect_error("ROW<id BIGINT>", krb, 0, false, "properties.sasl.kerberos.*");
    const char *const scram[] = {"topic",
                                 "rt",
                                 "format",
                                 "json",
                                 "properties.sasl.jaas.config",
                                 "org.apache.kafka.common.security.scram.ScramLoginModule "
                                 "required username=\"u\" password=\"p\";",
                                 NULL};
    expect_error("ROW<id BIGINT>", scram, 0, false, "'SCRAM-SHA-256' or 'SCRAM-SHA-512'");
    const char *const nopass[] = {"topic",
                                  "rt",
                                  "format",
                                  "json",
                                  "properties.sasl.jaas.config",
                                  "org.apache.kafka.common.security.plain.PlainLoginModule "
                                  "required username=\"u\";",
                                  NULL};
    expect_error("ROW<id BIGINT>", nopass, 0, false, "needs username=");
    const char *const unterminated[] = {"topic",
                                        "rt",
                                        "format",
                                        "json",
                                        "properties.sasl.jaas.config",
                                        "org.apache.kafka.common.security.plain.PlainLoginModule "
                                        "required username=\"u\" password=\"p\"",
                                        NULL};
    expect_error("ROW<id BIGINT>", unterminated, 0, false, "missing the closing ';'");
    const char *const jks[] = {"topic",
                               "rt",
                               "format",
                               "json",
                               "properties.ssl.keystore.type",
                               "JKS",
                               "properties.ssl.keystore.location",
                               "/k.jks",
                               NULL};
    expect_error("ROW<id BIGINT>", jks, 0, false, "'properties.ssl.keystore.type' = 'PKCS12'");
    const char *const trust[] = {
        "topic", "rt", "format", "json", "properties.ssl.truststore.location", "/t.jks", NULL};
    expect_error("ROW<id BIGINT>", trust, 0, false, "set 'properties.ssl.ca.location'");
    /* PEM truststore and keystore: librdkafka's ca/certificate/key locations, which it opens */
    const char *const pem[] = {"topic",
                               "rt",
                               "format",
                               "json",
                               "properties.security.protocol",
                               "SSL",
                               "properties.ssl.truststore.type",
                               "PEM",
                               "properties.ssl.truststore.location",
                               "/nonexistent/ca.pem",
                               NULL};
    cr_assert_eq(table_open(&t, "ROW<id BIGINT>", pem, 0, &err), 0);
    cr_assert_eq(t.res.connector->sink_new(&t.ctx, &sink, &err), 0);
    cdc_writer_t *w = NULL;
    cr_assert_eq(sink->ops->open_writer(sink, 0, 1, &w, &err), -1);
    char *text = cdc_error_format(err);
    cr_assert(strstr(text, "ssl.ca.location"), "%s", text);
    free(text);
    cdc_error_destroy(err);
    sink->ops->destroy(sink);
    table_close(&t);
}

/* The values of the first n messages of partition 0 of topic, each followed by '\n'. */
static char *read_values(const char *topic, int n)
{
    char errstr[256];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, errstr, sizeof(errstr));
    rd_kafka_conf_set(conf, "group.id", "sc-reader", errstr, sizeof(errstr));
    rd_kafka_conf_set(conf, "log_level", "0", errstr, sizeof(errstr));
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
    cr_assert_not_null(rk, "%s", errstr);
    rd_kafka_topic_partition_list_t *parts = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(parts, topic, 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
    cr_assert_eq(rd_kafka_assign(rk, parts), RD_KAFKA_RESP_ERR_NO_ERROR);
    rd_kafka_topic_partition_list_destroy(parts);
    cdc_buf_t out = {0};
    for (int got = 0, tries = 0; got < n && tries < 200; tries++) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 100);
        if (!m)
            continue;
        if (!m->err) {
            cdc_buf_append(&out, m->payload, m->len);
            cdc_buf_putc(&out, '\n');
            got++;
        }
        rd_kafka_message_destroy(m);
    }
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
    char *s = cdc_xstrdup(out.len ? cdc_buf_cstr(&out) : "");
    cdc_buf_free(&out);
    return s;
}

/* Writes one row of `schema` (id, name[, c]) through a sink of `connector`: kafka with
   debezium-json (whose serializer, as Flink's, has no schema-include: the row images name their
   fields), upsert-kafka with json; applies `change` first when not NULL. */
static void write_one(const char *connector, const char *schema, int64_t id, const char *name,
                      const int64_t *c, const cdc_schema_change_t *change)
{
    const char *const opts[] = {"topic", "sc", "format", "debezium-json", NULL};
    const char *const upsert_opts[] = {"connector", "upsert-kafka", "topic", "sc", "key.format",
                                       "json",      "value.format", "json",  NULL};
    bool upsert = strcmp(connector, "upsert-kafka") == 0;
    table_t t;
    cdc_error_t *err = NULL;
    cr_assert_eq(table_open(&t, schema, upsert ? upsert_opts : opts, upsert ? 1 : 0, &err), 0, "%s",
                 err ? err->message : "");
    cdc_sink_t *sink = NULL;
    cr_assert_eq(t.res.connector->sink_new(&t.ctx, &sink, &err), 0, "%s", err ? err->message : "");
    if (change)
        cr_assert_eq(sink->ops->apply_schema_change(sink, change, &err), 0);
    cdc_writer_t *w = NULL;
    cr_assert_eq(sink->ops->open_writer(sink, 0, 1, &w, &err), 0, "%s", err ? err->message : "");
    cdc_batch_t b;
    cdc_batch_init(&b);
    cdc_row_t *r = cdc_batch_add(&b, CDC_INSERT, c ? 3 : 2);
    r->values[0] = (cdc_value_t){.v.i = id};
    r->values[1] = (cdc_value_t){.v.s = {name, (uint32_t)strlen(name)}};
    if (c)
        r->values[2] = (cdc_value_t){.v.i = *c};
    cr_assert_eq(w->ops->write(w, &b, &err), 0, "%s", err ? err->message : "");
    cr_assert_eq(w->ops->flush(w, &err), 0, "%s", err ? err->message : "");
    w->ops->close(w);
    sink->ops->destroy(sink);
    cdc_batch_free(&b);
    table_close(&t);
}

/*
 * A schema change (ADD COLUMN c): kafka and upsert-kafka have nothing to change, and a writer
 * built on the new row type serializes the new column (debezium-json's row images, json).
 */
Test(kafka, schema_change_new_writers_serialize_the_new_column)
{
    cdc_schema_change_t *change = cdc_schema_change_new("db.t", "binlog mbin.000002:1234", NULL);
    cdc_error_t *err = NULL;
    cdc_type_t *c_type = cdc_type_parse("INT", &err);
    cdc_schema_change_add(change, CDC_SC_ADD_COLUMN, "c", NULL, c_type, NULL, NULL);
    cdc_type_destroy(c_type);
    write_one("kafka", "ROW<id BIGINT, name STRING>", 1, "a", NULL, NULL);
    int64_t c = 7;
    write_one("kafka", "ROW<id BIGINT, name STRING, c INT>", 2, "b", &c, change);
    write_one("upsert-kafka", "ROW<id BIGINT NOT NULL, name STRING, c INT>", 3, "u", &c, change);
    cdc_schema_change_free(change);
    char *values = read_values("sc", 3);
    cr_expect_str_eq(values, "{\"before\":null,\"after\":{\"id\":1,\"name\":\"a\"},\"op\":\"c\"}\n"
                             "{\"before\":null,\"after\":{\"id\":2,\"name\":\"b\",\"c\":7},"
                             "\"op\":\"c\"}\n"
                             "{\"id\":3,\"name\":\"u\",\"c\":7}\n");
    free(values);
}

/* ---- schema changes ---------------------------------------------------------------------------
 */

#define SC_ENV(cols, id)                                                                           \
    "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":[" cols          \
    "],\"optional\":true,\"field\":\"after\"}],\"optional\":false,\"name\":\"x.Envelope\"},"       \
    "\"payload\":{\"before\":null,\"after\":{\"id\":" id "},\"op\":\"c\"}}"
#define SC_INT "{\"type\":\"int32\",\"optional\":false,\"field\":\"id\"}"
#define SC_BIG "{\"type\":\"int64\",\"optional\":false,\"field\":\"id\"}"

static int poll_until(cdc_reader_t *r, cdc_batch_t *b, int64_t deadline)
{
    cdc_error_t *err = NULL;
    for (;;) {
        cdc_batch_reset(b);
        int rc = r->ops->poll(r, b, 100, &err);
        cr_assert_neq(rc, CDC_POLL_ERROR, "%s", err ? err->message : "");
        if (b->n > 0 || rc == CDC_POLL_SCHEMA || now_ms() > deadline)
            return rc;
    }
}

/*
 * debezium-json messages whose schema changes at offset 2: the poll ends before that message
 * with CDC_POLL_SCHEMA and the change at its offset; the commit after it commits offset 2 (a
 * new reader of the group starts there); the next poll gives its row, with no second change.
 */
Test(kafka, schema_change_ends_the_poll_before_its_message)
{
    const char *msgs[] = {SC_ENV(SC_INT, "1"), SC_ENV(SC_INT, "2"), SC_ENV(SC_BIG, "3"),
                          SC_ENV(SC_BIG, "4")};
    char errstr[256];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, errstr, sizeof(errstr));
    rd_kafka_t *prod = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
    cr_assert_not_null(prod, "%s", errstr);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(rd_kafka_producev(prod, RD_KAFKA_V_TOPIC("sc"), RD_KAFKA_V_PARTITION(0),
                                       RD_KAFKA_V_VALUE((void *)msgs[i], strlen(msgs[i])),
                                       RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END),
                     0);
    cr_assert_eq(rd_kafka_flush(prod, 10000), 0);
    rd_kafka_destroy(prod);
    const char *const opts[] = {"topic",
                                "sc",
                                "format",
                                "debezium-json",
                                "debezium-json.schema-include",
                                "true",
                                "properties.group.id",
                                "gsc",
                                GROUP_OPTS,
                                NULL};
    table_t t;
    cdc_error_t *err = NULL;
    cr_assert_eq(table_open(&t, "ROW<id BIGINT>", opts, 0, &err), 0, "%s", err ? err->message : "");
    cdc_source_t *src = NULL;
    cr_assert_eq(t.res.connector->source_new(&t.ctx, &src, &err), 0);
    cdc_reader_t *r = NULL;
    cr_assert_eq(src->ops->open_reader(src, 0, 1, &r, &err), 0);
    cdc_batch_t b;
    cdc_batch_init(&b);
    int64_t deadline = now_ms() + 30000;
    int seen = 0, rc;
    while ((rc = poll_until(r, &b, deadline)) != CDC_POLL_SCHEMA) {
        cr_assert_lt(now_ms(), deadline, "no schema change came");
        seen += (int)b.n;
    }
    seen += (int)b.n;
    cr_expect_eq(seen, 2, "the rows before the change");
    const cdc_schema_change_t *c = r->ops->schema_change(r);
    cr_assert_not_null(c);
    cr_expect_str_eq(c->position, "topic sc partition 0 offset 2");
    cr_expect_str_eq(c->table, "sc");
    cr_assert_eq(r->ops->commit(r, &err), 0);
    r->ops->close(r); /* commits offset 2: the change's message is read again */
    cr_assert_eq(src->ops->open_reader(src, 0, 1, &r, &err), 0);
    rc = poll_until(r, &b, now_ms() + 30000);
    cr_assert_eq(rc, CDC_POLL_OK, "a new reader's first schema is no change");
    cr_assert_gt(b.n, 0);
    cr_expect_eq(b.rows[0].values[0].v.i, 3);
    r->ops->close(r);
    cdc_batch_free(&b);
    src->ops->destroy(src);
    table_close(&t);
}
