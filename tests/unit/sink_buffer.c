/*
 * tests/unit/sink_buffer.c — the batching facility of sinks (src/core/cdc_sink_buffer.c) on its
 * own: coalescing per key (insert, update, delete of one key; an upsert after a delete;
 * unchanged columns), order across keys, the keyless append mode, the flush thread taking a
 * full buffer while the writer fills the other, a flush failure returned by the next call
 * and its buffer written again first, and the retry loop (success after failures, retries
 * exhausted, failures for good). The jdbc sink runs it against databases
 * (tests/connectors/jdbc*.c, tests/integration/jdbc_*.sh).
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cdc_plugin.h"

static cdc_type_t *schema;
static const int pk[] = {0};
static cdc_value_t vals[2];
static char name_buf[32];

static void setup(void)
{
    cdc_error_t *err = NULL;
    schema = cdc_type_parse("ROW<id INT, name STRING>", &err);
    cr_assert_not_null(schema);
}

static void teardown(void)
{
    cdc_type_destroy(schema);
}

/* A row (id, name) over static storage the buffer must copy; name NULL: marked unchanged. */
static cdc_row_t row(cdc_kind_t kind, int id, const char *name)
{
    memset(vals, 0, sizeof(vals));
    vals[0].v.i = id;
    if (name) {
        snprintf(name_buf, sizeof(name_buf), "%s", name);
        vals[1].v.s.ptr = name_buf;
        vals[1].v.s.len = (uint32_t)strlen(name);
    } else {
        vals[1].flags = CDC_V_UNCHANGED;
    }
    return (cdc_row_t){.kind = kind, .arity = 2, .values = vals};
}

static void add(cdc_sink_buffer_t *b, cdc_kind_t kind, int id, const char *name)
{
    cdc_row_t r = row(kind, id, name);
    cdc_sink_buffer_add(b, &r);
    strcpy(name_buf, "clobbered"); /* the buffer holds its own copy */
}

static void expect(const cdc_sink_entry_t *e, int id, const char *name, bool del, bool pre)
{
    cr_expect_eq(e->values[0].v.i, id);
    cr_expect_eq(e->is_delete, del, "key %d is_delete", id);
    cr_expect_eq(e->pre_delete, pre, "key %d pre_delete", id);
    if (name && !del) {
        cr_expect_eq(e->values[1].v.s.len, strlen(name));
        cr_expect(memcmp(e->values[1].v.s.ptr, name, strlen(name)) == 0, "key %d name", id);
    }
}

TestSuite(sink_buffer, .init = setup, .fini = teardown);

Test(sink_buffer, one_key_insert_update_delete)
{
    cdc_sink_buffer_t b;
    cdc_sink_buffer_init(&b, schema, pk, 1);
    add(&b, CDC_INSERT, 1, "a");
    add(&b, CDC_UPDATE_AFTER, 1, "b");
    cr_assert_eq(b.n, 1);
    expect(&b.entries[0], 1, "b", false, false);
    cr_expect_eq(b.entries[0].kind, CDC_UPDATE_AFTER);
    add(&b, CDC_DELETE, 1, "b");
    cr_assert_eq(b.n, 1);
    expect(&b.entries[0], 1, NULL, true, false);
    /* an upsert after the delete keeps the delete before it */
    add(&b, CDC_INSERT, 1, "a longer name than before");
    cr_assert_eq(b.n, 1);
    expect(&b.entries[0], 1, "a longer name than before", false, true);
    cr_expect_eq(b.pending, 4);
    /* a delete drops the pending upsert and its delete-first */
    add(&b, CDC_DELETE, 1, "x");
    expect(&b.entries[0], 1, NULL, true, false);
    cdc_sink_buffer_reset(&b);
    cr_expect_eq(b.n, 0);
    cr_expect_eq(b.pending, 0);
    add(&b, CDC_INSERT, 1, "again");
    cr_assert_eq(b.n, 1);
    expect(&b.entries[0], 1, "again", false, false);
    cdc_sink_buffer_free(&b);
}

Test(sink_buffer, unchanged_columns_keep_the_buffered_values)
{
    cdc_sink_buffer_t b;
    cdc_sink_buffer_init(&b, schema, pk, 1);
    add(&b, CDC_INSERT, 7, "kept");
    add(&b, CDC_UPDATE_AFTER, 7, NULL);
    cr_assert_eq(b.n, 1);
    expect(&b.entries[0], 7, "kept", false, false);
    cr_expect_eq(b.entries[0].values[1].flags & CDC_V_UNCHANGED, 0);
    /* with nothing buffered for the key the column stays unchanged */
    add(&b, CDC_UPDATE_AFTER, 8, NULL);
    cr_expect_neq(b.entries[1].values[1].flags & CDC_V_UNCHANGED, 0);
    cdc_sink_buffer_free(&b);
}

Test(sink_buffer, order_across_keys)
{
    cdc_sink_buffer_t b;
    cdc_sink_buffer_init(&b, schema, pk, 1);
    for (int id = 0; id < 1000; id++) /* past several growths of the table */
        add(&b, CDC_INSERT, id, "first");
    for (int id = 999; id >= 0; id -= 3)
        add(&b, id % 2 ? CDC_DELETE : CDC_UPDATE_AFTER, id, "second");
    cr_assert_eq(b.n, 1000);
    cr_expect_eq(b.pending, 1334);
    for (int id = 0; id < 1000; id++) {
        bool touched = (999 - id) % 3 == 0;
        expect(&b.entries[id], id, touched ? "second" : "first", touched && id % 2, false);
    }
    cdc_sink_buffer_free(&b);
}

Test(sink_buffer, keyless_append)
{
    cdc_sink_buffer_t b;
    cdc_sink_buffer_init(&b, schema, NULL, 0);
    add(&b, CDC_INSERT, 1, "a");
    add(&b, CDC_INSERT, 1, "a");
    add(&b, CDC_INSERT, 2, "b");
    cr_assert_eq(b.n, 3);
    expect(&b.entries[0], 1, "a", false, false);
    expect(&b.entries[1], 1, "a", false, false);
    expect(&b.entries[2], 2, "b", false, false);
    cdc_sink_buffer_free(&b);
}

/* ---- the flush thread -------------------------------------------------------------- */

/* What the flush callback saw, and a gate the test holds it at. */
typedef struct flush_log_s {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t writer;
    bool gate_closed;
    int started, done;
    int fail_calls; /* the first fail_calls calls fail */
    int ids[512];
    int nids;
    int sizes[256];
} flush_log_t;

static int log_flush(void *ctx, const cdc_sink_buffer_t *b, cdc_error_t **err)
{
    flush_log_t *lg = ctx;
    cr_expect(!pthread_equal(pthread_self(), lg->writer), "flush on the writer's thread");
    pthread_mutex_lock(&lg->mu);
    int call = lg->started++;
    pthread_cond_broadcast(&lg->cv);
    while (lg->gate_closed)
        pthread_cond_wait(&lg->cv, &lg->mu);
    lg->sizes[call] = (int)b->n;
    for (uint32_t i = 0; i < b->n; i++)
        lg->ids[lg->nids++] = (int)b->entries[i].values[0].v.i;
    lg->done++;
    pthread_cond_broadcast(&lg->cv);
    pthread_mutex_unlock(&lg->mu);
    if (call < lg->fail_calls)
        return cdc_error_set(err, CDC_ERR_REMOTE, "flush %d failed", call);
    return 0;
}

static void wait_for(flush_log_t *lg, int *counter, int n)
{
    pthread_mutex_lock(&lg->mu);
    while (*counter < n)
        pthread_cond_wait(&lg->cv, &lg->mu);
    pthread_mutex_unlock(&lg->mu);
}

static void set_gate(flush_log_t *lg, bool closed)
{
    pthread_mutex_lock(&lg->mu);
    lg->gate_closed = closed;
    pthread_cond_broadcast(&lg->cv);
    pthread_mutex_unlock(&lg->mu);
}

static cdc_sink_flusher_t *flusher_with(flush_log_t *lg, int64_t max_rows, int64_t max_bytes)
{
    memset(lg, 0, sizeof(*lg));
    pthread_mutex_init(&lg->mu, NULL);
    pthread_cond_init(&lg->cv, NULL);
    lg->writer = pthread_self();
    const cdc_sink_flusher_opts_t opts = {.name = "test",
                                          .schema = schema,
                                          .pk = pk,
                                          .npk = 1,
                                          .max_rows = max_rows,
                                          .max_bytes = max_bytes,
                                          .interval_ms = INT64_MAX,
                                          .flush = log_flush,
                                          .ctx = lg};
    cdc_sink_flusher_t *f = cdc_sink_flusher_new(&opts);
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_sink_flusher_start(f, &err), 0);
    return f;
}

static cdc_sink_flusher_t *flusher_for(flush_log_t *lg, int64_t max_rows)
{
    return flusher_with(lg, max_rows, 0);
}

static int fadd(cdc_sink_flusher_t *f, int id, cdc_error_t **err)
{
    cdc_row_t r = row(CDC_INSERT, id, "v");
    return cdc_sink_flusher_add(f, &r, err);
}

Test(sink_buffer, flush_thread_takes_the_full_buffer)
{
    flush_log_t lg;
    cdc_sink_flusher_t *f = flusher_for(&lg, 2);
    cdc_error_t *err = NULL;
    set_gate(&lg, true);
    cr_assert_eq(fadd(f, 1, &err), 0);
    cr_assert_eq(fadd(f, 2, &err), 0); /* full: handed over */
    wait_for(&lg, &lg.started, 1);
    /* the flush is held at the gate; the writer fills the other buffer meanwhile */
    cr_assert_eq(fadd(f, 3, &err), 0);
    cr_expect_eq(cdc_sink_flusher_tick(f, &err), 0); /* interval not reached */
    cr_expect_eq(lg.done, 0);
    set_gate(&lg, false);
    cr_assert_eq(cdc_sink_flusher_flush(f, &err), 0);
    cr_expect_eq(lg.done, 2);
    cr_expect_eq(lg.sizes[0], 2);
    cr_expect_eq(lg.sizes[1], 1);
    cr_expect_eq(lg.nids, 3);
    for (int i = 0; i < 3; i++)
        cr_expect_eq(lg.ids[i], i + 1);
    cr_expect_eq(cdc_sink_flusher_flush(f, &err), 0); /* nothing left: no call */
    cr_expect_eq(lg.started, 2);
    cdc_sink_flusher_destroy(f);
    cr_expect_null(err);
}

Test(sink_buffer, flush_error_returned_by_the_next_call)
{
    flush_log_t lg;
    cdc_sink_flusher_t *f = flusher_for(&lg, 2);
    lg.fail_calls = 1;
    cdc_error_t *err = NULL;
    cr_assert_eq(fadd(f, 1, &err), 0);
    cr_assert_eq(fadd(f, 2, &err), 0); /* handed over; its flush fails */
    wait_for(&lg, &lg.done, 1);
    /* the flusher takes the failure just after the callback returns */
    int rc = 0;
    for (int i = 0; i < 5000 && (rc = cdc_sink_flusher_check(f, &err)) == 0; i++)
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    cr_assert_eq(rc, -1);
    cr_assert_not_null(err);
    cr_expect_str_eq(err->message, "flush 0 failed");
    cdc_error_destroy(err);
    err = NULL;
    cr_expect_eq(cdc_sink_flusher_check(f, &err), 0); /* returned once */
    /* the failed buffer is written again before anything newer */
    cr_assert_eq(fadd(f, 3, &err), 0);
    cr_assert_eq(cdc_sink_flusher_flush(f, &err), 0);
    cr_expect_eq(lg.started, 3);
    int want[] = {1, 2, 1, 2, 3};
    cr_assert_eq(lg.nids, 5);
    for (int i = 0; i < 5; i++)
        cr_expect_eq(lg.ids[i], want[i]);
    cdc_sink_flusher_destroy(f);
}

Test(sink_buffer, destroy_without_start)
{
    const cdc_sink_flusher_opts_t opts = {
        .name = "test", .schema = schema, .pk = pk, .npk = 1, .max_rows = 1, .flush = log_flush};
    cdc_sink_flusher_destroy(cdc_sink_flusher_new(&opts));
    cdc_sink_flusher_destroy(NULL);
}

/* ---- retries ----------------------------------------------------------------------- */

typedef struct attempts_s {
    int calls, fail_first, reconnects;
    bool transient;
} attempts_t;

static int try_once(void *ctx)
{
    attempts_t *a = ctx;
    return a->calls++ < a->fail_first ? -1 : 0;
}

static bool is_transient(void *ctx)
{
    return ((attempts_t *)ctx)->transient;
}

static void reconnect(void *ctx)
{
    ((attempts_t *)ctx)->reconnects++;
}

static _Atomic unsigned long long replays;

static int run(attempts_t *a, int max_retries, int *attempts, bool *retriable)
{
    replays = 0;
    const cdc_sink_retry_t r = {.max_retries = max_retries,
                                .backoff_ms = 1,
                                .backoff_max_ms = 4,
                                .attempt = try_once,
                                .retriable = is_transient,
                                .reconnect = reconnect,
                                .retries = &replays};
    return cdc_sink_retry_run(&r, a, attempts, retriable);
}

Test(sink_buffer, retry_succeeds_after_failures)
{
    attempts_t a = {.fail_first = 3, .transient = true};
    int attempts = -1;
    bool retriable = false;
    cr_assert_eq(run(&a, 3, &attempts, &retriable), 0);
    cr_expect_eq(a.calls, 4);
    cr_expect_eq(a.reconnects, 3);
    cr_expect_eq(replays, 3);
}

Test(sink_buffer, retries_exhausted)
{
    attempts_t a = {.fail_first = 100, .transient = true};
    int attempts = -1;
    bool retriable = false;
    cr_assert_eq(run(&a, 2, &attempts, &retriable), -1);
    cr_expect_eq(a.calls, 3);
    cr_expect_eq(attempts, 3);
    cr_expect(retriable);
    cr_expect_eq(replays, 2);
    a = (attempts_t){.fail_first = 100, .transient = true};
    cr_assert_eq(run(&a, 0, &attempts, &retriable), -1);
    cr_expect_eq(attempts, 1);
    cr_expect(retriable);
}

Test(sink_buffer, failure_for_good_is_not_retried)
{
    attempts_t a = {.fail_first = 100, .transient = false};
    int attempts = -1;
    bool retriable = true;
    cr_assert_eq(run(&a, 5, &attempts, &retriable), -1);
    cr_expect_eq(a.calls, 1);
    cr_expect_eq(attempts, 1);
    cr_expect(!retriable);
    cr_expect_eq(replays, 0);
    cr_expect_eq(a.reconnects, 0);
}

/* Calls durable until it reaches ticket (the flush thread finishes on its own). */
static void wait_durable(cdc_sink_flusher_t *f, int64_t ticket)
{
    cdc_error_t *err = NULL;
    int64_t d;
    while ((d = cdc_sink_flusher_durable(f, &err)) < ticket) {
        cr_assert_geq(d, 0, "%s", err ? err->message : "");
        struct timespec ts = {.tv_sec = 0, .tv_nsec = 1000000};
        nanosleep(&ts, NULL);
    }
}

Test(sink_buffer, begin_hands_over_without_waiting)
{
    flush_log_t lg;
    cdc_sink_flusher_t *f = flusher_with(&lg, 0, 0);
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_sink_flusher_durable(f, &err), 0);
    set_gate(&lg, true);
    cr_assert_eq(fadd(f, 1, &err), 0);
    cr_assert_eq(fadd(f, 2, &err), 0); /* no row bound: kept */
    cr_assert_eq(cdc_sink_flusher_begin(f, &err), 1);
    wait_for(&lg, &lg.started, 1); /* handed over; held at the gate */
    cr_assert_eq(fadd(f, 3, &err), 0);
    /* the thread is busy: the ticket is the next hand-over, and begin did not wait */
    cr_assert_eq(cdc_sink_flusher_begin(f, &err), 2);
    cr_expect_eq(cdc_sink_flusher_durable(f, &err), 0);
    set_gate(&lg, false);
    wait_durable(f, 2); /* durable() hands the wanted buffer over once the thread is idle */
    cr_expect_eq(lg.started, 2);
    cr_expect_eq(lg.sizes[0], 2);
    cr_expect_eq(lg.sizes[1], 1);
    cr_expect_eq(lg.nids, 3);
    for (int i = 0; i < 3; i++)
        cr_expect_eq(lg.ids[i], i + 1);
    cr_expect_eq(cdc_sink_flusher_begin(f, &err), 2); /* nothing new */
    cdc_sink_flusher_destroy(f);
    cr_expect_null(err);
}

Test(sink_buffer, byte_bound_hands_over_on_its_own)
{
    flush_log_t lg;
    cdc_sink_flusher_t *f = flusher_with(&lg, 0, 4096);
    cdc_error_t *err = NULL;
    for (int id = 1; id <= 200; id++)
        cr_assert_eq(fadd(f, id, &err), 0);
    wait_durable(f, 1); /* no begin, no flush: the bytes handed buffers over */
    cr_assert_eq(cdc_sink_flusher_flush(f, &err), 0);
    cr_expect_gt(lg.started, 2);
    for (int i = 0; i < lg.started; i++)
        cr_expect_lt(lg.sizes[i], 200);
    cr_assert_eq(lg.nids, 200);
    for (int i = 0; i < 200; i++)
        cr_expect_eq(lg.ids[i], i + 1);
    cdc_sink_flusher_destroy(f);
    cr_expect_null(err);
}
