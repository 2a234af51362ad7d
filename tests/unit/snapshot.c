/*
 * tests/unit/snapshot.c — the chunked snapshot's engine (src/core/cdc_snapshot.c) on its own,
 * with a simulated stream: a chunk's rows wait for the high watermark, keys the stream touched
 * after the registration are left out (reconciliation), a read cut at chunk-size rows queues
 * the rest, a read whose exact snapshot position the stream had passed is read again (and one
 * the connector's check refuses), an
 * integer range planned in parts, the state saved and loaded (escapes included), and readers
 * on other threads handing chunks to the coordinator, and a stop that ends a waiting reader
 * before the snapshot started. The databases run it in
 * tests/integration/mysql_cdc_snapshot.sh and postgres_cdc_snapshot.sh.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cdc_plugin.h"

static cdc_type_t *schema;
static const int key[] = {0};

static void setup(void)
{
    schema = cdc_type_parse("ROW<id INT, name STRING>", NULL);
    cr_assert_not_null(schema);
}

static void teardown(void)
{
    cdc_type_destroy(schema);
}

TestSuite(snapshot, .init = setup, .fini = teardown);

static void add_row(cdc_batch_t *b, cdc_kind_t kind, const char *table, int id, const char *name)
{
    cdc_row_t *r = cdc_batch_add(b, kind, 2);
    r->origin = table;
    r->values[0].flags = 0;
    r->values[0].v.i = id;
    r->values[1].flags = 0;
    r->values[1].v.s.ptr = cdc_arena_strdup(&b->arena, name);
    r->values[1].v.s.len = (uint32_t)strlen(name);
}

static cdc_snap_pos_t P(uint64_t x)
{
    return (cdc_snap_pos_t){1, x};
}

/* The ids of a batch's rows, "1,3,". */
static const char *ids(const cdc_batch_t *b)
{
    static char buf[256];
    buf[0] = 0;
    for (uint32_t i = 0; i < b->n; i++)
        snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%lld,",
                 (long long)b->rows[i].values[0].v.i);
    return buf;
}

Test(snapshot, reconciles_with_the_stream_and_waits_for_the_high_watermark)
{
    cdc_snapshot_t *s = cdc_snapshot_new(schema, key, 1, 10);
    int t = cdc_snapshot_add_table(s, "db.t");
    cr_assert_eq(t, 0);
    cdc_snapshot_start(s);
    cdc_batch_t stream, out;
    cdc_batch_init(&stream);
    cdc_batch_init(&out);
    /* the stream is at 100 when the read registers */
    cdc_snapshot_observe(s, &stream, 0, P(100));
    cdc_snap_read_t *rd = cdc_snapshot_take(s, false, 1);
    cr_assert_not_null(rd);
    cr_assert_null(rd->lo);
    cr_assert_null(rd->hi);
    cr_assert_null(cdc_snapshot_take(s, false, 1), "one read alive at most");
    /* a change of id 2 streams before the SELECT finishes: seen after the registration */
    add_row(&stream, CDC_UPDATE_AFTER, "db.t", 2, "new");
    add_row(&stream, CDC_INSERT, "db.other", 3, "x"); /* another table: no tombstone */
    cdc_snapshot_observe(s, &stream, 0, P(120));
    for (int i = 1; i <= 4; i++)
        add_row(&rd->rows, CDC_INSERT, "db.t", i, "old");
    rd->hw = P(150);
    cdc_snapshot_filled(s, rd, NULL);
    cr_assert_eq(cdc_snapshot_emit(s, &out, 100, P(120)), 0, "not before the high watermark");
    cr_assert_not(cdc_snapshot_finished(s));
    cdc_snapshot_observe(s, &stream, stream.n, P(150));
    cr_assert_eq(cdc_snapshot_emit(s, &out, 100, P(150)), 3);
    cr_assert_str_eq(ids(&out), "1,3,4,");
    cr_assert(cdc_snapshot_finished(s));
    cdc_snap_stats_t st = cdc_snapshot_stats(s);
    cr_assert_eq(st.rows, 3);
    cr_assert_eq(st.reconciled, 1);
    cr_assert_eq(st.chunks, 1);
    cdc_batch_free(&stream);
    cdc_batch_free(&out);
    cdc_snapshot_destroy(s);
}

Test(snapshot, a_row_the_stream_changed_before_its_chunk_is_not_written_again)
{
    cdc_snapshot_t *s = cdc_snapshot_new(schema, key, 1, 10);
    cdc_snapshot_add_table(s, "db.t");
    cdc_snapshot_start(s);
    cdc_batch_t stream, out;
    cdc_batch_init(&stream);
    cdc_batch_init(&out);
    /* id 3 changes in the stream before any chunk is registered: the sink has it already */
    add_row(&stream, CDC_UPDATE_AFTER, "db.t", 3, "v2");
    cdc_snapshot_observe(s, &stream, 0, P(10));
    cdc_snap_read_t *rd = cdc_snapshot_take(s, false, 1);
    for (int i = 1; i <= 4; i++)
        add_row(&rd->rows, CDC_INSERT, "db.t", i, i == 3 ? "v2" : "v1");
    rd->hw = P(10);
    cdc_snapshot_filled(s, rd, NULL);
    cr_assert_eq(cdc_snapshot_emit(s, &out, 100, P(10)), 3);
    cr_assert_str_eq(ids(&out), "1,2,4,");
    /* done: the remembered keys are dropped; a new on-demand read emits id 3 again */
    cdc_snapshot_queue_table(s, 0, "id = 3");
    cdc_batch_reset(&out);
    cdc_snapshot_emit(s, &out, 100, P(10));
    rd = cdc_snapshot_take(s, false, 1);
    cr_assert_str_eq(rd->extra, "id = 3");
    add_row(&rd->rows, CDC_INSERT, "db.t", 3, "v2");
    rd->hw = P(10);
    cdc_snapshot_filled(s, rd, NULL);
    cr_assert_eq(cdc_snapshot_emit(s, &out, 100, P(10)), 1);
    cdc_batch_free(&stream);
    cdc_batch_free(&out);
    cdc_snapshot_destroy(s);
}

Test(snapshot, a_full_read_queues_the_rest_and_emission_resumes_across_polls)
{
    cdc_snapshot_t *s = cdc_snapshot_new(schema, key, 1, 3);
    cdc_snapshot_add_table(s, "db.t");
    cdc_snapshot_start(s);
    cdc_batch_t out;
    cdc_batch_init(&out);
    cdc_snap_read_t *rd = cdc_snapshot_take(s, false, 1);
    for (int i = 1; i <= 3; i++)
        add_row(&rd->rows, CDC_INSERT, "db.t", i, "a");
    char *last[] = {"3"};
    cdc_snapshot_filled(s, rd, last);
    cr_assert_eq(cdc_snapshot_emit(s, &out, 2, P(1)), 2);
    cr_assert(cdc_snapshot_mid_read(s));
    cdc_buf_t st = {0};
    cdc_snapshot_save(s, &st);
    cr_assert_str_eq(cdc_buf_cstr(&st), "range\tdb.t\t-\t[3\t-\nrange\tdb.t\t(3\t-\t-\n");
    cdc_batch_reset(&out);
    cr_assert_eq(cdc_snapshot_emit(s, &out, 2, P(1)), 1);
    cr_assert_not(cdc_snapshot_mid_read(s));
    rd = cdc_snapshot_take(s, false, 1);
    cr_assert_not_null(rd);
    cr_assert_str_eq(rd->lo[0], "3");
    cr_assert_null(rd->hi);
    cdc_snapshot_filled(s, rd, NULL);
    cdc_batch_reset(&out);
    cdc_snapshot_emit(s, &out, 10, P(1));
    cr_assert(cdc_snapshot_finished(s));
    cdc_buf_free(&st);
    cdc_batch_free(&out);
    cdc_snapshot_destroy(s);
}

Test(snapshot, a_read_whose_exact_position_the_stream_had_passed_is_read_again)
{
    cdc_snapshot_t *s = cdc_snapshot_new(schema, key, 1, 10);
    cdc_snapshot_add_table(s, "db.t");
    cdc_snapshot_start(s);
    cdc_batch_t stream, out;
    cdc_batch_init(&stream);
    cdc_batch_init(&out);
    cdc_snapshot_observe(s, &stream, 0, P(200));
    cdc_snap_read_t *rd = cdc_snapshot_take(s, false, 1);
    cdc_snapshot_observe(s, &stream, 0, P(200)); /* seen at 200 */
    add_row(&rd->rows, CDC_INSERT, "db.t", 1, "a");
    rd->hw = P(190); /* the SELECT's snapshot was at 190: before where the stream stood */
    rd->exact = true;
    cdc_snapshot_filled(s, rd, NULL);
    cr_assert_eq(cdc_snapshot_emit(s, &out, 10, P(200)), 0);
    cr_assert_eq(cdc_snapshot_stats(s).rereads, 1);
    rd = cdc_snapshot_take(s, false, 1);
    cr_assert_not_null(rd, "the range is queued again");
    add_row(&rd->rows, CDC_INSERT, "db.t", 1, "a");
    rd->hw = P(210);
    rd->exact = true;
    cdc_snapshot_filled(s, rd, NULL);
    cdc_snapshot_observe(s, &stream, 0, P(210));
    cr_assert_eq(cdc_snapshot_emit(s, &out, 10, P(210)), 1);
    cr_assert(cdc_snapshot_finished(s));
    cdc_batch_free(&stream);
    cdc_batch_free(&out);
    cdc_snapshot_destroy(s);
}

/* fails once per read, after recording where the read was seen */
static bool check_once(void *ctx, const cdc_snap_read_t *read, cdc_snap_pos_t obs)
{
    int *calls = ctx;
    (*calls)++;
    cr_assert_eq(obs.minor, *calls == 1 ? 300 : 310, "where the stream stood when it was seen");
    return read->conn_data != NULL; /* the first fill carries no connector data */
}

Test(snapshot, a_read_the_connectors_check_refuses_is_read_again)
{
    cdc_snapshot_t *s = cdc_snapshot_new(schema, key, 1, 10);
    int calls = 0;
    cdc_snapshot_set_check(s, check_once, &calls);
    cdc_snapshot_add_table(s, "db.t");
    cdc_snapshot_start(s);
    cdc_batch_t stream, out;
    cdc_batch_init(&stream);
    cdc_batch_init(&out);
    cdc_snapshot_observe(s, &stream, 0, P(300));
    cdc_snap_read_t *rd = cdc_snapshot_take(s, false, 1);
    cdc_snapshot_observe(s, &stream, 0, P(300)); /* seen at 300 */
    add_row(&rd->rows, CDC_INSERT, "db.t", 1, "a");
    rd->hw = P(310);
    rd->conn_data = NULL;
    cdc_snapshot_filled(s, rd, NULL);
    cr_assert_eq(cdc_snapshot_emit(s, &out, 10, P(310)), 0, "refused: nothing emitted");
    cr_assert_eq(cdc_snapshot_stats(s).rereads, 1);
    cr_assert_eq(calls, 1);
    rd = cdc_snapshot_take(s, false, 1);
    cr_assert_not_null(rd, "the range is queued again");
    cdc_snapshot_observe(s, &stream, 0, P(300));
    add_row(&rd->rows, CDC_INSERT, "db.t", 1, "a");
    rd->hw = P(320);
    rd->conn_data = cdc_xstrdup("visible"); /* (the read's from now on: the engine frees it) */
    cdc_snapshot_filled(s, rd, NULL);
    cr_assert_eq(cdc_snapshot_emit(s, &out, 10, P(320)), 1);
    cr_assert_eq(calls, 2);
    cr_assert(cdc_snapshot_finished(s));
    cdc_batch_free(&stream);
    cdc_batch_free(&out);
    cdc_snapshot_destroy(s);
}

Test(snapshot, an_integer_range_is_planned_in_parts_and_saved_and_loaded)
{
    cdc_snapshot_t *s = cdc_snapshot_new(schema, key, 1, 100);
    cdc_snapshot_add_table(s, "db.t");
    cdc_snapshot_start(s);
    cdc_snap_read_t *rd = cdc_snapshot_take(s, false, 8);
    cr_assert(cdc_snapshot_wants_plan(s, rd));
    cdc_snapshot_plan(s, rd, 1, 1000, 500.0); /* half dense: parts of 200 keys */
    cr_assert_null(rd->lo);
    cr_assert_str_eq(rd->hi[0], "201");
    cdc_snap_read_t *r2 = cdc_snapshot_take(s, false, 8);
    cr_assert_str_eq(r2->lo[0], "200");
    cr_assert_str_eq(r2->hi[0], "401");
    cr_assert_not(cdc_snapshot_wants_plan(s, r2));
    cdc_buf_t st = {0};
    cdc_snapshot_save(s, &st);
    cr_assert_str_eq(cdc_buf_cstr(&st), "range\tdb.t\t-\t(201\t-\n"
                                        "range\tdb.t\t(200\t(401\t-\n"
                                        "range\tdb.t\t(400\t-\t-\n");
    int parts = 2;
    while (cdc_snapshot_take(s, false, 8))
        parts++;
    cr_assert_eq(parts, 5, "1..1000 in parts of 200");
    /* a new run loads the state; texts with tabs, commas and backslashes survive */
    cdc_snapshot_t *s2 = cdc_snapshot_new(schema, key, 1, 100);
    cdc_snapshot_add_table(s2, "db.t");
    cdc_snapshot_clear(s2);
    cdc_snapshot_start(s2);
    cr_assert_eq(cdc_snapshot_load_line(s2, "range\tdb.t\t(a\\tb\\cc\\\\\t-\t=name <> 'x'"), 0);
    cr_assert_eq(cdc_snapshot_load_line(s2, "range\tdb.gone\t-\t-\t-"), 0, "ignored");
    cr_assert_eq(cdc_snapshot_load_line(s2, "range\tdb.t\tbad\t-\t-"), -1);
    cr_assert_eq(cdc_snapshot_load_line(s2, "nonsense"), -1);
    cdc_snap_read_t *r3 = cdc_snapshot_take(s2, false, 1);
    cr_assert_str_eq(r3->lo[0], "a\tb,c\\");
    cr_assert_str_eq(r3->extra, "name <> 'x'");
    cr_assert_null(cdc_snapshot_take(s2, false, 8));
    cdc_buf_free(&st);
    cdc_snapshot_destroy(s);
    cdc_snapshot_destroy(s2);
}

/* ---- readers on other threads ---- */

static cdc_snapshot_t *shared;

static void *reader_main(void *arg)
{
    (void)arg;
    for (;;) {
        cdc_snap_read_t *rd = cdc_snapshot_take(shared, true, 4);
        if (!rd && cdc_snapshot_finished(shared))
            break;
        if (!rd)
            continue; /* (200 ms without a range) */
        if (cdc_snapshot_wants_plan(shared, rd))
            cdc_snapshot_plan(shared, rd, 1, 10000, 10000.0);
        long lo = rd->lo ? atol(rd->lo[0]) : 0, hi = rd->hi ? atol(rd->hi[0]) : 10001;
        for (long i = lo + 1; i < hi && i <= 10000; i++)
            add_row(&rd->rows, CDC_INSERT, "db.t", (int)i, "v");
        rd->hw = P(5);
        cdc_snapshot_filled(shared, rd, NULL);
    }
    return NULL;
}

Test(snapshot, readers_on_other_threads_hand_every_chunk_to_the_coordinator)
{
    shared = cdc_snapshot_new(schema, key, 1, 64);
    pthread_t th[3];
    for (int i = 0; i < 3; i++) /* they wait for the start */
        pthread_create(&th[i], NULL, reader_main, NULL);
    cdc_snapshot_add_table(shared, "db.t");
    cdc_snapshot_start(shared);
    cdc_batch_t out, stream;
    cdc_batch_init(&out);
    cdc_batch_init(&stream);
    static char seen[10001];
    uint64_t total = 0;
    while (!cdc_snapshot_finished(shared)) {
        cdc_batch_reset(&out);
        cdc_snapshot_observe(shared, &stream, 0, P(5));
        cdc_snapshot_emit(shared, &out, 1000, P(5));
        for (uint32_t i = 0; i < out.n; i++) {
            int id = (int)out.rows[i].values[0].v.i;
            cr_assert(id >= 1 && id <= 10000 && !seen[id], "id %d once", id);
            seen[id] = 1;
            total++;
        }
    }
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    cr_assert_eq(total, 10000);
    cr_assert_gt(cdc_snapshot_stats(shared).chunks, 100);
    cdc_batch_free(&out);
    cdc_batch_free(&stream);
    cdc_snapshot_destroy(shared);
}

static void *take_waiting(void *arg)
{
    cdc_snapshot_t *s = arg;
    while (!cdc_snapshot_take(s, true, 1)) /* as a connector's reader: NULL, then ask again */
        if (cdc_snapshot_finished(s) || cdc_snapshot_stopped(s))
            return NULL;
    return s;
}

Test(snapshot, a_stop_before_the_start_ends_a_waiting_reader)
{
    cdc_snapshot_t *s = cdc_snapshot_new(schema, key, 1, 10);
    cdc_snapshot_add_table(s, "db.t");
    cr_assert_not(cdc_snapshot_stopped(s));
    pthread_t th;
    pthread_create(&th, NULL, take_waiting, s);
    cdc_snapshot_stop(s); /* the coordinator failed before cdc_snapshot_start */
    void *got = s;
    pthread_join(th, &got);
    cr_assert_null(got, "the waiting reader took a read instead of ending");
    cr_assert(cdc_snapshot_stopped(s));
    cr_assert_not(cdc_snapshot_finished(s));
    cdc_snapshot_destroy(s);
}

Test(snapshot, an_execute_snapshot_signal_is_parsed)
{
    const char *data = "{\"data-collections\": [\"db.t\", \"db.u\"], \"type\": \"incremental\", "
                       "\"additional-conditions\": [{\"data-collection\": \"db.t\", "
                       "\"filter\": \"color = 'blue' AND note = \\\"a\\\\\\\"b\\\"\"}], "
                       "\"other\": {\"x\": [1, true, null]}}";
    cdc_snap_signal_t sig;
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_snap_signal_parse(data, strlen(data), &sig, &err), 0, "%s",
                 err ? err->message : "");
    cr_assert_eq(sig.n, 2);
    cr_assert_str_eq(sig.collections[0], "db.t");
    cr_assert_str_eq(sig.filters[0], "color = 'blue' AND note = \"a\\\"b\"");
    cr_assert_str_eq(sig.collections[1], "db.u");
    cr_assert_null(sig.filters[1]);
    cr_assert_str_eq(sig.type, "incremental");
    cdc_snap_signal_free(&sig);
    /* a condition for a table not listed adds it; bad input says where */
    const char *d2 = "{\"additional-conditions\": [{\"data-collection\": \"db.v\", \"filter\": "
                     "\"id > 5\"}]}";
    cr_assert_eq(cdc_snap_signal_parse(d2, strlen(d2), &sig, &err), 0);
    cr_assert_eq(sig.n, 1);
    cr_assert_str_eq(sig.filters[0], "id > 5");
    cdc_snap_signal_free(&sig);
    const char *bad[] = {"",
                         "[]",
                         "{\"data-collections\": \"db.t\"}",
                         "{\"data-collections\": []}",
                         "{\"data-collections\": [\"db.t\"]",
                         "{\"data-collections\": [\"db.t"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_assert_eq(cdc_snap_signal_parse(bad[i], strlen(bad[i]), &sig, &err), -1, "%s", bad[i]);
        cr_assert_not_null(strstr(err->message, "snapshot signal: "));
        cdc_error_destroy(err);
        err = NULL;
    }
}
