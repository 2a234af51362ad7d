/*
 * cdc_sink_buffer.c — the per-key change buffer, the flush thread and the retry loop that
 * batching sinks share (see cdc_sink_buffer.h); from the jdbc sink, where they began.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cdc_plugin.h"
#include "cdc_util.h"

/* ---- keys -------------------------------------------------------------------------- */

static uint32_t mix(uint32_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 16777619u; /* FNV-1a */
    return h;
}

static uint32_t key_hash(const cdc_sink_buffer_t *b, const cdc_value_t *vals)
{
    uint32_t h = 2166136261u;
    for (int k = 0; k < b->npk; k++) {
        const cdc_value_t *v = &vals[b->pk[k]];
        const cdc_type_t *t = b->schema->children[b->pk[k]];
        uint8_t null = cdc_value_is_null(v);
        h = mix(h, &null, 1);
        if (null)
            continue;
        switch (t->root) {
        case CDC_T_BOOLEAN:
            h = mix(h, &v->v.b, sizeof(v->v.b));
            break;
        case CDC_T_FLOAT:
            h = mix(h, &v->v.f, sizeof(v->v.f));
            break;
        case CDC_T_DOUBLE:
            h = mix(h, &v->v.d, sizeof(v->v.d));
            break;
        case CDC_T_DECIMAL:
            h = mix(h, &v->v.dec, sizeof(v->v.dec));
            break;
        case CDC_T_CHAR:
        case CDC_T_VARCHAR:
        case CDC_T_BINARY:
        case CDC_T_VARBINARY:
            h = mix(h, v->v.s.ptr, v->v.s.len);
            h = mix(h, &v->v.s.len, sizeof(v->v.s.len));
            break;
        case CDC_T_TIMESTAMP:
        case CDC_T_TIMESTAMP_LTZ:
            h = mix(h, &v->v.ts.millis, sizeof(v->v.ts.millis));
            h = mix(h, &v->v.ts.nanos, sizeof(v->v.ts.nanos));
            break;
        default:
            h = mix(h, &v->v.i, sizeof(v->v.i));
            break;
        }
    }
    return h;
}

static bool key_equal(const cdc_sink_buffer_t *b, const cdc_value_t *a, const cdc_value_t *o)
{
    for (int k = 0; k < b->npk; k++) {
        int c = b->pk[k];
        const cdc_value_t *x = &a[c], *y = &o[c];
        if (cdc_value_is_null(x) || cdc_value_is_null(y)) {
            if (cdc_value_is_null(x) != cdc_value_is_null(y))
                return false;
            continue;
        }
        bool eq;
        switch (b->schema->children[c]->root) {
        case CDC_T_BOOLEAN:
            eq = x->v.b == y->v.b;
            break;
        case CDC_T_FLOAT:
            eq = memcmp(&x->v.f, &y->v.f, sizeof(x->v.f)) == 0;
            break;
        case CDC_T_DOUBLE:
            eq = memcmp(&x->v.d, &y->v.d, sizeof(x->v.d)) == 0;
            break;
        case CDC_T_DECIMAL:
            eq = x->v.dec == y->v.dec;
            break;
        case CDC_T_CHAR:
        case CDC_T_VARCHAR:
        case CDC_T_BINARY:
        case CDC_T_VARBINARY:
            eq = x->v.s.len == y->v.s.len &&
                 (x->v.s.len == 0 || memcmp(x->v.s.ptr, y->v.s.ptr, x->v.s.len) == 0);
            break;
        case CDC_T_TIMESTAMP:
        case CDC_T_TIMESTAMP_LTZ:
            eq = x->v.ts.millis == y->v.ts.millis && x->v.ts.nanos == y->v.ts.nanos;
            break;
        default:
            eq = x->v.i == y->v.i;
            break;
        }
        if (!eq)
            return false;
    }
    return true;
}

static void slots_rebuild(cdc_sink_buffer_t *b, uint32_t nslots)
{
    free(b->slots);
    b->nslots = nslots;
    b->slots = cdc_xcalloc(nslots, sizeof(int32_t));
    for (uint32_t e = 0; e < b->n; e++) {
        uint32_t s = b->entries[e].hash & (nslots - 1);
        while (b->slots[s])
            s = (s + 1) & (nslots - 1);
        b->slots[s] = (int32_t)e + 1;
    }
}

/* ---- the buffer -------------------------------------------------------------------- */

static bool is_bytes(const cdc_type_t *t)
{
    return t->root == CDC_T_CHAR || t->root == CDC_T_VARCHAR || t->root == CDC_T_BINARY ||
           t->root == CDC_T_VARBINARY;
}

/* Bytes that the values of row take in a buffer: the value array and the string bytes. */
static size_t values_size(const cdc_sink_buffer_t *b, const cdc_row_t *row)
{
    size_t n = sizeof(cdc_value_t) * (size_t)b->ncols;
    for (int c = 0; c < b->ncols; c++) {
        const cdc_value_t *v = &row->values[c];
        if (is_bytes(b->schema->children[c]) && !(v->flags & (CDC_V_NULL | CDC_V_UNCHANGED)))
            n += v->v.s.len;
    }
    return n;
}

/* Copies the values of row, strings included, into block (values_size bytes). */
static cdc_value_t *copy_values(const cdc_sink_buffer_t *b, void *block, const cdc_row_t *row)
{
    cdc_value_t *vals = block;
    char *bytes = (char *)(vals + b->ncols);
    for (int c = 0; c < b->ncols; c++) {
        vals[c] = row->values[c];
        if (is_bytes(b->schema->children[c]) && !(vals[c].flags & (CDC_V_NULL | CDC_V_UNCHANGED)) &&
            vals[c].v.s.len) {
            memcpy(bytes, vals[c].v.s.ptr, vals[c].v.s.len);
            vals[c].v.s.ptr = bytes;
            bytes += vals[c].v.s.len;
        }
    }
    return vals;
}

/*
 * Stores the values of row in entry e: in its block when they fit there (a burst of changes
 * to one key then takes no more memory than its largest row), else in a new block.
 */
static void entry_store(cdc_sink_buffer_t *b, cdc_sink_entry_t *e, const cdc_row_t *row, bool reuse)
{
    size_t need = values_size(b, row);
    if (!reuse || need > e->block_size) {
        size_t size = (need + 63) & ~(size_t)63; /* room for slightly longer strings later */
        e->values = cdc_arena_alloc(&b->arena, size);
        e->block_size = (uint32_t)(size > UINT32_MAX ? UINT32_MAX : size);
    }
    copy_values(b, e->values, row);
}

static cdc_sink_entry_t *entry_append(cdc_sink_buffer_t *b)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 64;
        b->entries = cdc_xrealloc(b->entries, sizeof(cdc_sink_entry_t) * b->cap);
    }
    cdc_sink_entry_t *e = &b->entries[b->n++];
    memset(e, 0, sizeof(*e));
    return e;
}

void cdc_sink_buffer_init(cdc_sink_buffer_t *b, const cdc_type_t *schema, const int *pk, int npk)
{
    memset(b, 0, sizeof(*b));
    b->schema = schema;
    b->pk = pk;
    b->npk = npk;
    b->ncols = schema->nchildren;
    cdc_arena_init(&b->arena);
}

/* Adds row coalesced with its key's change; pending is the caller's to count. */
static void buffer_add(cdc_sink_buffer_t *b, const cdc_row_t *row)
{
    bool is_delete = row->kind == CDC_DELETE;
    if (b->npk == 0) {
        cdc_sink_entry_t *e = entry_append(b);
        e->kind = row->kind;
        entry_store(b, e, row, false);
        return;
    }
    uint32_t h = key_hash(b, row->values);
    if ((b->n + 1) * 2 > b->nslots)
        slots_rebuild(b, b->nslots ? b->nslots * 2 : 128);
    uint32_t s = h & (b->nslots - 1);
    while (b->slots[s]) {
        cdc_sink_entry_t *e = &b->entries[b->slots[s] - 1];
        if (e->hash == h && key_equal(b, e->values, row->values)) {
            bool unchanged = false;
            for (int c = 0; c < b->ncols && !is_delete; c++)
                unchanged |= (row->values[c].flags & CDC_V_UNCHANGED) != 0;
            if (is_delete) {
                e->pre_delete = false;
            } else if (e->is_delete) {
                e->pre_delete = true;
            } else if (unchanged) {
                /* upsert after upsert: unchanged columns take the buffered values, which
                   stay where they are (a new block) */
                const cdc_value_t *old = e->values;
                entry_store(b, e, row, false);
                for (int c = 0; c < b->ncols; c++)
                    if (e->values[c].flags & CDC_V_UNCHANGED)
                        e->values[c] = old[c];
                e->is_delete = false;
                e->kind = row->kind;
                return;
            }
            entry_store(b, e, row, true);
            e->is_delete = is_delete;
            e->kind = row->kind;
            return;
        }
        s = (s + 1) & (b->nslots - 1);
    }
    b->slots[s] = (int32_t)b->n + 1;
    cdc_sink_entry_t *e = entry_append(b);
    e->is_delete = is_delete;
    e->kind = row->kind;
    e->hash = h;
    entry_store(b, e, row, false);
}

void cdc_sink_buffer_add(cdc_sink_buffer_t *b, const cdc_row_t *row)
{
    buffer_add(b, row);
    b->pending++;
}

void cdc_sink_buffer_reset(cdc_sink_buffer_t *b)
{
    b->n = 0;
    b->pending = 0;
    if (b->slots)
        memset(b->slots, 0, sizeof(int32_t) * b->nslots);
    cdc_arena_reset(&b->arena);
}

void cdc_sink_buffer_free(cdc_sink_buffer_t *b)
{
    cdc_arena_free(&b->arena);
    free(b->entries);
    free(b->slots);
}

/* ---- the flush thread ------------------------------------------------------------- */

/*
 * add() fills cur on the caller's thread; a full buffer is handed to the flush thread while
 * add() goes on filling the other. A failure of the flush thread is returned by the next
 * call, and the failed buffer is kept: the next hand-over writes it again before anything
 * newer, as a failed synchronous flush would.
 */
struct cdc_sink_flusher_s {
    cdc_sink_flusher_opts_t opts;
    cdc_sink_buffer_t bufs[2];
    cdc_sink_buffer_t *cur; /* filled by add() */
    int64_t last_flush_ms;
    pthread_t thread;
    bool thread_on;
    pthread_mutex_t mu; /* guards job, retry, stop, job_err */
    pthread_cond_t cv;
    cdc_sink_buffer_t *job;   /* handed to the flush thread; NULL while it is idle */
    cdc_sink_buffer_t *retry; /* its flush failed: written again before anything newer */
    bool stop;
    cdc_error_t *job_err; /* the flush thread's failure, not yet returned */
    atomic_bool busy;     /* a buffer is handed over and not flushed yet */
    int64_t handed;       /* buffers handed over (the writer's thread alone) */
    atomic_llong done;    /* of those, the ones stored (they are stored in order) */
    bool want;            /* begin() asked for a hand-over the busy thread delayed */
};

static void *flush_main(void *arg)
{
    cdc_sink_flusher_t *f = arg;
    pthread_mutex_lock(&f->mu);
    for (;;) {
        while (!f->job && !f->stop)
            pthread_cond_wait(&f->cv, &f->mu);
        if (!f->job)
            break;
        cdc_sink_buffer_t *b = f->job;
        pthread_mutex_unlock(&f->mu);
        cdc_error_t *e = NULL;
        int rc = f->opts.flush(f->opts.ctx, b, &e);
        if (rc == 0)
            cdc_sink_buffer_reset(b);
        pthread_mutex_lock(&f->mu);
        if (rc < 0) {
            cdc_error_destroy(f->job_err);
            f->job_err = e;
            f->retry = b;
        } else {
            atomic_fetch_add(&f->done, 1);
        }
        f->job = NULL;
        atomic_store(&f->busy, false);
        pthread_cond_broadcast(&f->cv);
    }
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

/* Waits until the flush thread is idle (wait) or only looks; -1 with its failure, if any. */
static int flush_status(cdc_sink_flusher_t *f, bool wait, cdc_error_t **err)
{
    pthread_mutex_lock(&f->mu);
    while (wait && f->job)
        pthread_cond_wait(&f->cv, &f->mu);
    cdc_error_t *e = f->job_err;
    f->job_err = NULL;
    pthread_mutex_unlock(&f->mu);
    if (!e)
        return 0;
    cdc_error_destroy(*err);
    *err = e;
    return -1;
}

/* Hands b to the idle flush thread. */
static void submit(cdc_sink_flusher_t *f, cdc_sink_buffer_t *b)
{
    pthread_mutex_lock(&f->mu);
    f->job = b;
    f->retry = NULL;
    atomic_store(&f->busy, true);
    pthread_cond_signal(&f->cv);
    pthread_mutex_unlock(&f->mu);
}

/*
 * Hands the filled buffer to the flush thread, after the previous flush ended; a buffer whose
 * flush failed is written first (and waited for).
 */
static int hand_over(cdc_sink_flusher_t *f, cdc_error_t **err)
{
    if (flush_status(f, true, err) < 0)
        return -1;
    if (f->retry) { /* idle: only the flush thread sets it, and it is idle */
        submit(f, f->retry);
        if (flush_status(f, true, err) < 0)
            return -1;
    }
    f->last_flush_ms = cdc_mono_ms();
    f->want = false;
    cdc_sink_buffer_t *b = f->cur;
    if (b->n == 0) {
        cdc_sink_buffer_reset(b);
        return 0;
    }
    f->handed++;
    submit(f, b);
    f->cur = b == &f->bufs[0] ? &f->bufs[1] : &f->bufs[0]; /* idle, reset by its flush */
    return 0;
}

cdc_sink_flusher_t *cdc_sink_flusher_new(const cdc_sink_flusher_opts_t *opts)
{
    cdc_sink_flusher_t *f = cdc_xcalloc(1, sizeof(*f));
    f->opts = *opts;
    cdc_sink_buffer_init(&f->bufs[0], opts->schema, opts->pk, opts->npk);
    cdc_sink_buffer_init(&f->bufs[1], opts->schema, opts->pk, opts->npk);
    f->cur = &f->bufs[0];
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    f->last_flush_ms = cdc_mono_ms();
    return f;
}

int cdc_sink_flusher_start(cdc_sink_flusher_t *f, cdc_error_t **err)
{
    if (pthread_create(&f->thread, NULL, flush_main, f) != 0)
        return cdc_error_set(err, CDC_ERR_INTERNAL, "%s: cannot start the flush thread",
                             f->opts.name);
    f->thread_on = true;
    return 0;
}

int cdc_sink_flusher_check(cdc_sink_flusher_t *f, cdc_error_t **err)
{
    return flush_status(f, false, err);
}

/* Hands the buffer over if the flush thread is idle, else notes that it is wanted. */
static int try_hand_over(cdc_sink_flusher_t *f, cdc_error_t **err)
{
    if (atomic_load(&f->busy)) {
        f->want = true;
        return 0;
    }
    return hand_over(f, err); /* idle: waits only to write a failed buffer again */
}

/* Bytes the buffer holds: its arena (values, strings) and its entries. */
static int64_t buffer_bytes(const cdc_sink_buffer_t *b)
{
    return (int64_t)(b->arena.total + sizeof(cdc_sink_entry_t) * b->n);
}

int cdc_sink_flusher_add(cdc_sink_flusher_t *f, const cdc_row_t *row, cdc_error_t **err)
{
    cdc_sink_buffer_add(f->cur, row);
    if (f->opts.max_rows > 0 && f->cur->pending >= f->opts.max_rows)
        return hand_over(f, err);
    if (f->opts.max_bytes > 0) {
        int64_t bytes = buffer_bytes(f->cur);
        if (bytes >= f->opts.max_bytes)
            return hand_over(f, err); /* the bound: wait for the previous flush */
        if (bytes >= f->opts.max_bytes / 2 && !atomic_load(&f->busy))
            return hand_over(f, err);
    }
    if (f->want && !atomic_load(&f->busy))
        return hand_over(f, err);
    return 0;
}

int cdc_sink_flusher_tick(cdc_sink_flusher_t *f, cdc_error_t **err)
{
    if (f->cur->n == 0 || !(f->want || cdc_mono_ms() - f->last_flush_ms >= f->opts.interval_ms))
        return 0;
    return f->opts.max_rows > 0 ? hand_over(f, err) : try_hand_over(f, err);
}

int64_t cdc_sink_flusher_begin(cdc_sink_flusher_t *f, cdc_error_t **err)
{
    if (f->cur->n == 0)
        return f->handed; /* everything added is in the buffers handed over */
    if (try_hand_over(f, err) < 0)
        return -1;
    return f->want ? f->handed + 1 : f->handed;
}

int64_t cdc_sink_flusher_durable(cdc_sink_flusher_t *f, cdc_error_t **err)
{
    if (flush_status(f, false, err) < 0)
        return -1;
    if (f->want && !atomic_load(&f->busy) && hand_over(f, err) < 0)
        return -1;
    return atomic_load(&f->done);
}

int cdc_sink_flusher_flush(cdc_sink_flusher_t *f, cdc_error_t **err)
{
    if (hand_over(f, err) < 0)
        return -1;
    return flush_status(f, true, err);
}

void cdc_sink_flusher_destroy(cdc_sink_flusher_t *f)
{
    if (!f)
        return;
    if (f->thread_on) { /* a flush in progress ends first */
        pthread_mutex_lock(&f->mu);
        f->stop = true;
        pthread_cond_broadcast(&f->cv);
        pthread_mutex_unlock(&f->mu);
        pthread_join(f->thread, NULL);
    }
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->cv);
    cdc_error_destroy(f->job_err);
    cdc_sink_buffer_free(&f->bufs[0]);
    cdc_sink_buffer_free(&f->bufs[1]);
    free(f);
}

/* ---- retries ---------------------------------------------------------------------- */

int cdc_sink_retry_run(const cdc_sink_retry_t *r, void *ctx, int *attempts, bool *retriable)
{
    int64_t ms = r->backoff_ms < r->backoff_max_ms ? r->backoff_ms : r->backoff_max_ms;
    for (int attempt = 0;; attempt++) {
        if (r->attempt(ctx) == 0)
            return 0;
        bool again = r->retriable(ctx);
        if (!again || attempt >= r->max_retries) {
            *attempts = attempt + 1;
            *retriable = again;
            return -1;
        }
        if (r->retries)
            (*r->retries)++;
        struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        ms = ms * 2 < r->backoff_max_ms ? ms * 2 : r->backoff_max_ms;
        if (r->reconnect)
            r->reconnect(ctx);
    }
}
