/*
 * cdc_snapshot.c — the chunked, lock-free snapshot shared by the CDC sources
 * (the DBLog watermark algorithm; see cdc_snapshot.h for the contract).
 *
 * State: a queue of ranges to read (plain ranges, and "planned" generators
 * that cut an integer key range into parts on demand, so a huge table costs
 * no memory per chunk), the reads alive (registered by take, filled by a
 * reader, emitted by the coordinator), and a free list of reads so steady
 * state allocates nothing. A mutex guards the queue and the list; `gen`
 * counts registrations so the coordinator, which checks it per event with
 * one atomic load, sees a new read before it handles a change the read's
 * SELECT may have missed. Tombstones (the keys the stream touched) belong to
 * the coordinator alone.
 */
#include "cdc_snapshot.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_log.h"
#include "cdc_util.h"

/* ---- key sets (tombstones) ------------------------------------------------------------------- */

typedef struct keyset_slot {
    uint64_t hash;
    const char *key; /* NULL: empty */
    uint32_t len;
} keyset_slot_t;

typedef struct keyset {
    keyset_slot_t *slots;
    size_t cap, used;
    cdc_arena_t arena;
} keyset_t;

static void keyset_clear(keyset_t *k)
{
    if (k->used)
        memset(k->slots, 0, k->cap * sizeof(*k->slots));
    k->used = 0;
    cdc_arena_reset(&k->arena);
}

static void keyset_free(keyset_t *k)
{
    free(k->slots);
    cdc_arena_free(&k->arena);
}

static keyset_slot_t *keyset_find(keyset_slot_t *slots, size_t cap, uint64_t h, const char *key,
                                  size_t len)
{
    size_t j = h & (cap - 1);
    while (slots[j].key &&
           !(slots[j].hash == h && slots[j].len == len && memcmp(slots[j].key, key, len) == 0))
        j = (j + 1) & (cap - 1);
    return &slots[j];
}

static void keyset_add(keyset_t *k, const char *key, size_t len)
{
    if ((k->used + 1) * 4 >= k->cap * 3) {
        size_t ncap = k->cap ? k->cap * 2 : 256;
        keyset_slot_t *ns = cdc_xcalloc(ncap, sizeof(*ns));
        for (size_t i = 0; i < k->cap; i++)
            if (k->slots[i].key)
                *keyset_find(ns, ncap, k->slots[i].hash, k->slots[i].key, k->slots[i].len) =
                    k->slots[i];
        free(k->slots);
        k->slots = ns;
        k->cap = ncap;
    }
    uint64_t h = cdc_hash_bytes(key, len);
    keyset_slot_t *e = keyset_find(k->slots, k->cap, h, key, len);
    if (e->key)
        return;
    e->hash = h;
    e->key = cdc_arena_memdup(&k->arena, key, len);
    e->len = (uint32_t)len;
    k->used++;
}

static bool keyset_has(const keyset_t *k, const char *key, size_t len)
{
    if (!k->used)
        return false;
    return keyset_find(k->slots, k->cap, cdc_hash_bytes(key, len), key, len)->key != NULL;
}

/* ---- ranges and reads ------------------------------------------------------------------------ */

typedef struct range {
    int table;
    char **lo, **hi; /* owned key texts, NULL: unbounded */
    bool hi_incl;
    char *extra; /* owned */
    bool planned;
    /* a generator (planned integer range): next part starts at `next`, up to `last` */
    bool gen;
    int64_t next, last, width;
} range_t;

enum { R_TAKEN, R_FILLED, R_EMITTING, R_DONE };

/*
 * Keys the stream changed since the snapshot started are remembered per table
 * (besides each read's own tombstones, which correctness needs): a chunk row of
 * such a key is left out too, since the sink already has a newer or equal
 * image of it from the stream — so no row is applied twice. At most this many
 * keys (some 50 bytes each); past it the sets are dropped and only the reads'
 * tombstones remain (still exact, a changed row may then be written again).
 */
#define TOUCHED_MAX 262144

typedef struct read_int {
    cdc_snap_read_t pub; /* first: the public part */
    int state;           /* R_*; read and written under the mutex (filled: release) */
    bool planned;
    bool observed; /* the coordinator has seen it */
    cdc_snap_pos_t obs_pos;
    uint32_t emitted;
    keyset_t tomb;
    struct read_int *next; /* alive list / free list */
} read_int_t;

struct cdc_snapshot_s {
    const cdc_type_t *type;
    int *key, nkey;
    uint32_t chunk_size;
    char **tables;
    int ntables, captables;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    range_t *queue; /* FIFO: [qhead, qlen) */
    int qhead, qlen, qcap;
    read_int_t *alive, *alive_tail; /* registration order */
    read_int_t *free_reads;
    int nalive, ntaken;
    bool stopped, started;
    uint64_t next_id;
    atomic_uint_fast64_t gen;
    /* coordinator-only */
    uint64_t seen_gen;
    read_int_t **view; /* the alive reads as last seen */
    int nview, capview;
    read_int_t *release; /* emitted, released at the next emit */
    cdc_buf_t keybuf;
    cdc_snap_pos_t cur;
    bool mid;
    bool active;       /* something is left to read or emit (as of the last emit) */
    keyset_t *touched; /* per table: keys the stream changed while the snapshot ran */
    int ntouched_sets;
    size_t touched_keys; /* in all sets; past TOUCHED_MAX the sets are dropped */
    bool touched_off;
    cdc_snap_check_fn check; /* the connector's check of a filled read, or NULL */
    void *check_ctx;
    const char *last_origin; /* the table of the last row seen (origins are stable) */
    int last_table;
    cdc_snap_stats_t stats;
};

static char **keys_dup(char *const *k, int n)
{
    if (!k)
        return NULL;
    char **c = cdc_xcalloc((size_t)n, sizeof(char *));
    for (int i = 0; i < n; i++)
        c[i] = k[i] ? cdc_xstrdup(k[i]) : NULL;
    return c;
}

static void keys_free(char **k, int n)
{
    if (!k)
        return;
    for (int i = 0; i < n; i++)
        free(k[i]);
    free(k);
}

static char **key_int(int64_t v)
{
    char **k = cdc_xcalloc(1, sizeof(char *));
    k[0] = cdc_strdup_printf("%lld", (long long)v);
    return k;
}

static void range_free(cdc_snapshot_t *s, range_t *r)
{
    keys_free(r->lo, s->nkey);
    keys_free(r->hi, s->nkey);
    free(r->extra);
}

/* Appends (front: prepends) a range; takes its allocations. Under the mutex. */
static void queue_push(cdc_snapshot_t *s, range_t r, bool front)
{
    if (front && s->qhead > 0) {
        s->queue[--s->qhead] = r;
        return;
    }
    if (s->qhead > 0 && s->qlen == s->qcap) { /* compact */
        memmove(s->queue, s->queue + s->qhead, (size_t)(s->qlen - s->qhead) * sizeof(range_t));
        s->qlen -= s->qhead;
        s->qhead = 0;
    }
    if (s->qlen == s->qcap) {
        s->qcap = s->qcap ? s->qcap * 2 : 16;
        s->queue = cdc_xrealloc(s->queue, (size_t)s->qcap * sizeof(range_t));
    }
    if (front) {
        memmove(s->queue + s->qhead + 1, s->queue + s->qhead,
                (size_t)(s->qlen - s->qhead) * sizeof(range_t));
        s->queue[s->qhead] = r;
    } else {
        s->queue[s->qlen] = r;
    }
    s->qlen++;
}

cdc_snapshot_t *cdc_snapshot_new(const cdc_type_t *row_type, const int *key, int nkey,
                                 uint32_t chunk_size)
{
    cdc_snapshot_t *s = cdc_xcalloc(1, sizeof(*s));
    s->type = row_type;
    s->key = cdc_xcalloc((size_t)(nkey ? nkey : 1), sizeof(int));
    memcpy(s->key, key, (size_t)nkey * sizeof(int));
    s->nkey = nkey;
    s->chunk_size = chunk_size ? chunk_size : 8096;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    atomic_init(&s->gen, 0);
    return s;
}

static void read_destroy(cdc_snapshot_t *s, read_int_t *r)
{
    keys_free(r->pub.lo, s->nkey);
    keys_free(r->pub.hi, s->nkey);
    free((char *)r->pub.extra);
    free(r->pub.conn_data);
    cdc_batch_free(&r->pub.rows);
    keyset_free(&r->tomb);
    free(r);
}

void cdc_snapshot_set_check(cdc_snapshot_t *s, cdc_snap_check_fn fn, void *ctx)
{
    s->check = fn;
    s->check_ctx = ctx;
}

void cdc_snapshot_set_key(cdc_snapshot_t *s, const int *key, int nkey)
{
    free(s->key);
    s->key = cdc_xcalloc((size_t)(nkey ? nkey : 1), sizeof(int));
    memcpy(s->key, key, (size_t)nkey * sizeof(int));
    s->nkey = nkey;
}

void cdc_snapshot_destroy(cdc_snapshot_t *s)
{
    if (!s)
        return;
    for (int i = s->qhead; i < s->qlen; i++)
        range_free(s, &s->queue[i]);
    free(s->queue);
    for (read_int_t *lists[] = {s->alive, s->free_reads, s->release}, **l = lists; l < lists + 3;
         l++)
        for (read_int_t *r = *l, *n; r; r = n) {
            n = r->next;
            read_destroy(s, r);
        }
    for (int i = 0; i < s->ntables; i++)
        free(s->tables[i]);
    free(s->tables);
    for (int i = 0; i < s->ntouched_sets; i++)
        keyset_free(&s->touched[i]);
    free(s->touched);
    free(s->view);
    free(s->key);
    cdc_buf_free(&s->keybuf);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}

int cdc_snapshot_add_table(cdc_snapshot_t *s, const char *name)
{
    pthread_mutex_lock(&s->mu);
    if (s->ntables == s->captables) {
        s->captables = s->captables ? s->captables * 2 : 8;
        s->tables = cdc_xrealloc(s->tables, (size_t)s->captables * sizeof(char *));
    }
    int i = s->ntables++;
    s->tables[i] = cdc_xstrdup(name);
    queue_push(s, (range_t){.table = i}, false);
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return i;
}

const char *cdc_snapshot_table(const cdc_snapshot_t *s, int i)
{
    return i >= 0 && i < s->ntables ? s->tables[i] : NULL;
}

int cdc_snapshot_ntables(const cdc_snapshot_t *s)
{
    return s->ntables;
}

void cdc_snapshot_queue_table(cdc_snapshot_t *s, int table, const char *extra)
{
    pthread_mutex_lock(&s->mu);
    queue_push(s, (range_t){.table = table, .extra = extra ? cdc_xstrdup(extra) : NULL}, false);
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/* The next range from the queue head (a generator yields its next part). Under the mutex. */
static bool queue_pop(cdc_snapshot_t *s, range_t *out)
{
    if (s->qhead == s->qlen)
        return false;
    range_t *h = &s->queue[s->qhead];
    if (!h->gen) {
        *out = *h;
        s->qhead++;
        if (s->qhead == s->qlen)
            s->qhead = s->qlen = 0;
        return true;
    }
    /* a part of a planned range: (next - 1, next + width), the last part up to the range's end */
    int64_t from = h->next;
    bool last = h->last - from < h->width;
    *out = (range_t){.table = h->table,
                     .lo = from == INT64_MIN ? NULL : key_int(from - 1),
                     .extra = h->extra ? cdc_xstrdup(h->extra) : NULL,
                     .planned = true};
    if (last) {
        out->hi = keys_dup(h->hi, s->nkey);
        out->hi_incl = h->hi_incl;
        range_free(s, h);
        s->qhead++;
        if (s->qhead == s->qlen)
            s->qhead = s->qlen = 0;
    } else {
        out->hi = key_int(from + h->width);
        h->next = from + h->width;
    }
    return true;
}

static read_int_t *read_new(cdc_snapshot_t *s)
{
    read_int_t *r = s->free_reads;
    if (r) {
        s->free_reads = r->next;
    } else {
        r = cdc_xcalloc(1, sizeof(*r));
        cdc_batch_init(&r->pub.rows);
    }
    return r;
}

cdc_snap_read_t *cdc_snapshot_take(cdc_snapshot_t *s, bool wait, int max_alive)
{
    pthread_mutex_lock(&s->mu);
    range_t rg;
    for (;;) {
        if (s->stopped)
            goto none;
        if (s->started && s->nalive < (max_alive > 0 ? max_alive : 1) && queue_pop(s, &rg))
            break;
        if (!wait || (s->started && s->qhead == s->qlen && s->nalive == 0))
            goto none;
        /* (at most 200 ms: the caller's loop checks for a stop meanwhile) */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 200000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        if (pthread_cond_timedwait(&s->cv, &s->mu, &until) != 0)
            goto none;
    }
    read_int_t *r = read_new(s);
    r->pub.table = rg.table;
    r->pub.nkey = s->nkey;
    r->pub.lo = rg.lo;
    r->pub.hi = rg.hi;
    r->pub.hi_incl = rg.hi_incl;
    r->pub.extra = rg.extra;
    r->pub.exact = false;
    r->pub.hw = (cdc_snap_pos_t){0, 0};
    r->pub.id = ++s->next_id;
    r->planned = rg.planned;
    r->state = R_TAKEN;
    r->observed = false;
    r->emitted = 0;
    r->next = NULL;
    if (s->alive_tail)
        s->alive_tail->next = r;
    else
        s->alive = r;
    s->alive_tail = r;
    s->nalive++;
    atomic_fetch_add(&s->gen, 1); /* before the reader's SELECT starts */
    pthread_mutex_unlock(&s->mu);
    return &r->pub;
none:
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

void cdc_snapshot_filled(cdc_snapshot_t *s, cdc_snap_read_t *read, char *const *last)
{
    read_int_t *r = (read_int_t *)read;
    pthread_mutex_lock(&s->mu);
    if (last) { /* cut at its last row: the rest of the range is read again */
        range_t rest = {.table = read->table,
                        .lo = keys_dup(last, s->nkey),
                        .hi = read->hi,
                        .hi_incl = read->hi_incl,
                        .extra = read->extra ? cdc_xstrdup(read->extra) : NULL,
                        .planned = r->planned};
        queue_push(s, rest, true);
        read->hi = keys_dup(last, s->nkey);
        read->hi_incl = true;
    }
    r->state = R_FILLED;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/* Takes a read out of the alive list (under the mutex); its range goes back to the queue
 * when requeue. */
static void unlink_read(cdc_snapshot_t *s, read_int_t *r, bool requeue)
{
    read_int_t **pp = &s->alive, *prev = NULL;
    while (*pp && *pp != r) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    if (*pp) {
        *pp = r->next;
        if (s->alive_tail == r)
            s->alive_tail = prev;
        s->nalive--;
    }
    if (requeue) {
        range_t rg = {.table = r->pub.table,
                      .lo = r->pub.lo,
                      .hi = r->pub.hi,
                      .hi_incl = r->pub.hi_incl,
                      .extra = (char *)r->pub.extra,
                      .planned = r->planned};
        r->pub.lo = r->pub.hi = NULL;
        r->pub.extra = NULL;
        queue_push(s, rg, true);
    }
    atomic_fetch_add(&s->gen, 1);
    pthread_cond_broadcast(&s->cv);
}

/* Back to the free list: rows and texts dropped, buffers kept. Under the mutex. */
static void recycle(cdc_snapshot_t *s, read_int_t *r)
{
    keys_free(r->pub.lo, s->nkey);
    keys_free(r->pub.hi, s->nkey);
    free((char *)r->pub.extra);
    r->pub.lo = r->pub.hi = NULL;
    r->pub.extra = NULL;
    cdc_batch_reset(&r->pub.rows);
    keyset_clear(&r->tomb);
    r->next = s->free_reads;
    s->free_reads = r;
}

void cdc_snapshot_abandon(cdc_snapshot_t *s, cdc_snap_read_t *read)
{
    read_int_t *r = (read_int_t *)read;
    pthread_mutex_lock(&s->mu);
    unlink_read(s, r, true);
    /* the coordinator may hold it in its view: it is recycled there (state R_DONE) */
    r->state = R_DONE;
    r->next = s->release;
    s->release = r;
    pthread_mutex_unlock(&s->mu);
}

bool cdc_snapshot_wants_plan(const cdc_snapshot_t *s, const cdc_snap_read_t *read)
{
    const read_int_t *r = (const read_int_t *)read;
    if (r->planned || s->nkey != 1)
        return false;
    switch (s->type->children[s->key[0]]->root) {
    case CDC_T_TINYINT:
    case CDC_T_SMALLINT:
    case CDC_T_INT:
    case CDC_T_BIGINT:
        return true;
    default:
        return false;
    }
}

void cdc_snapshot_plan(cdc_snapshot_t *s, cdc_snap_read_t *read, int64_t min, int64_t max,
                       double rows)
{
    read_int_t *r = (read_int_t *)read;
    r->planned = true;
    if (max < min || max - min < (int64_t)s->chunk_size)
        return; /* small: one read */
    double span = (double)max - (double)min + 1;
    double width = rows >= 1 ? (double)s->chunk_size * span / rows : (double)s->chunk_size;
    if (width < s->chunk_size)
        width = s->chunk_size; /* unique integers: never more than chunk_size rows */
    if (width > span)
        width = span;
    int64_t w = (int64_t)width;
    /* this read: from the range's start to min + w; the generator the rest */
    range_t g = {.table = read->table,
                 .hi = read->hi,
                 .hi_incl = read->hi_incl,
                 .extra = read->extra ? cdc_xstrdup(read->extra) : NULL,
                 .planned = true,
                 .gen = true,
                 .next = min + w,
                 .last = max,
                 .width = w};
    read->hi = key_int(min + w);
    read->hi_incl = false;
    pthread_mutex_lock(&s->mu);
    queue_push(s, g, true);
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/* ---- the coordinator ------------------------------------------------------------------------- */

/* Sees registrations and removals since the last look: the view is the alive list. */
static void refresh(cdc_snapshot_t *s)
{
    uint64_t g = atomic_load(&s->gen);
    if (g == s->seen_gen)
        return;
    pthread_mutex_lock(&s->mu);
    s->seen_gen = atomic_load(&s->gen);
    s->nview = 0;
    for (read_int_t *r = s->alive; r; r = r->next) {
        if (s->nview == s->capview) {
            s->capview = s->capview ? s->capview * 2 : 8;
            s->view = cdc_xrealloc(s->view, (size_t)s->capview * sizeof(*s->view));
        }
        if (!r->observed) {
            r->observed = true;
            r->obs_pos = s->cur;
        }
        s->view[s->nview++] = r;
    }
    pthread_mutex_unlock(&s->mu);
}

/* The index of the table a row comes from, or -1. */
static int row_table(cdc_snapshot_t *s, const char *origin)
{
    if (!origin)
        return -1;
    if (origin == s->last_origin)
        return s->last_table;
    int t = -1;
    for (int i = 0; i < s->ntables && t < 0; i++)
        if (strcmp(origin, s->tables[i]) == 0)
            t = i;
    s->last_origin = origin;
    s->last_table = t;
    return t;
}

static void touched_drop(cdc_snapshot_t *s)
{
    for (int i = 0; i < s->ntouched_sets; i++) {
        keyset_free(&s->touched[i]);
        memset(&s->touched[i], 0, sizeof(s->touched[i]));
    }
    s->touched_keys = 0;
}

static void touch(cdc_snapshot_t *s, int table)
{
    if (table >= s->ntouched_sets) {
        s->touched = cdc_xrealloc(s->touched, (size_t)s->ntables * sizeof(keyset_t));
        memset(s->touched + s->ntouched_sets, 0,
               (size_t)(s->ntables - s->ntouched_sets) * sizeof(keyset_t));
        s->ntouched_sets = s->ntables;
    }
    keyset_t *k = &s->touched[table];
    size_t before = k->used;
    keyset_add(k, s->keybuf.data, s->keybuf.len);
    s->touched_keys += k->used - before;
    if (s->touched_keys > TOUCHED_MAX) {
        touched_drop(s);
        s->touched_off = true;
    }
}

void cdc_snapshot_observe(cdc_snapshot_t *s, const cdc_batch_t *batch, uint32_t from,
                          cdc_snap_pos_t pos)
{
    refresh(s); /* (obs_pos: where the stream was before this event) */
    s->cur = pos;
    bool remember = s->active && !s->touched_off;
    if (!s->nview && !remember)
        return;
    for (uint32_t i = from; i < batch->n; i++) {
        const cdc_row_t *row = &batch->rows[i];
        int table = row_table(s, row->origin);
        if (table < 0)
            continue;
        bool keyed = false;
        if (remember) {
            cdc_row_key_bytes(row, s->key, s->nkey, s->type, &s->keybuf);
            keyed = true;
            touch(s, table);
        }
        for (int v = 0; v < s->nview; v++) {
            read_int_t *r = s->view[v];
            if (r->state == R_DONE || r->pub.table != table)
                continue;
            if (!keyed) {
                cdc_row_key_bytes(row, s->key, s->nkey, s->type, &s->keybuf);
                keyed = true;
            }
            keyset_add(&r->tomb, s->keybuf.data, s->keybuf.len);
        }
    }
}

static void release_emitted(cdc_snapshot_t *s)
{
    pthread_mutex_lock(&s->mu); /* (a reader's abandon adds to the list too) */
    for (read_int_t *r = s->release, *n; r; r = n) {
        n = r->next;
        recycle(s, r);
    }
    s->release = NULL;
    pthread_mutex_unlock(&s->mu);
}

uint32_t cdc_snapshot_emit(cdc_snapshot_t *s, cdc_batch_t *out, uint32_t max, cdc_snap_pos_t pos)
{
    release_emitted(s);
    refresh(s);
    s->cur = pos;
    uint32_t added = 0;
    uint64_t reconciled = 0;
    s->mid = false;
    for (int v = 0; v < s->nview && out->n < max; v++) {
        read_int_t *r = s->view[v];
        pthread_mutex_lock(&s->mu);
        int state = r->state;
        pthread_mutex_unlock(&s->mu);
        if ((state != R_FILLED && state != R_EMITTING) || cdc_snap_pos_cmp(pos, r->pub.hw) < 0)
            continue;
        if (state == R_FILLED && ((r->pub.exact && cdc_snap_pos_cmp(r->obs_pos, r->pub.hw) > 0) ||
                                  (s->check && !s->check(s->check_ctx, &r->pub, r->obs_pos)))) {
            /* the stream had passed the SELECT's snapshot before the registration was seen
               (or the connector's check says a change it carried is not in the SELECT's
               snapshot): a change may be missing from the rows, so the chunk is read again */
            pthread_mutex_lock(&s->mu);
            unlink_read(s, r, true);
            r->state = R_DONE;
            r->next = s->release;
            s->release = r;
            s->stats.rereads++;
            pthread_mutex_unlock(&s->mu);
            continue;
        }
        r->state = R_EMITTING; /* (only the coordinator moves it on from FILLED) */
        const cdc_batch_t *b = &r->pub.rows;
        while (r->emitted < b->n && out->n < max) {
            const cdc_row_t *row = &b->rows[r->emitted++];
            const keyset_t *tk = r->pub.table < s->ntouched_sets ? &s->touched[r->pub.table] : NULL;
            if (r->tomb.used || (tk && tk->used)) {
                cdc_row_key_bytes(row, s->key, s->nkey, s->type, &s->keybuf);
                if (keyset_has(&r->tomb, s->keybuf.data, s->keybuf.len) ||
                    (tk && keyset_has(tk, s->keybuf.data, s->keybuf.len))) {
                    reconciled++;
                    continue;
                }
            }
            if (out->n == out->cap)
                cdc_batch_grow(out);
            out->rows[out->n++] = *row; /* values stay in the read's arena until released */
            added++;
        }
        if (r->emitted < b->n) {
            s->mid = true;
            break;
        }
        pthread_mutex_lock(&s->mu);
        unlink_read(s, r, false);
        r->state = R_DONE;
        r->next = s->release;
        s->release = r;
        s->stats.chunks++;
        pthread_mutex_unlock(&s->mu);
    }
    pthread_mutex_lock(&s->mu);
    s->stats.rows += added;
    s->stats.reconciled += reconciled;
    bool active = !s->started || s->qhead != s->qlen || s->nalive > 0;
    pthread_mutex_unlock(&s->mu);
    if (s->active && !active) { /* done: what the stream changed meanwhile is of no use now */
        touched_drop(s);
        s->touched_off = false;
    }
    s->active = active;
    return added;
}

bool cdc_snapshot_mid_read(const cdc_snapshot_t *s)
{
    return s->mid;
}

bool cdc_snapshot_finished(cdc_snapshot_t *s)
{
    pthread_mutex_lock(&s->mu);
    bool done = s->started && s->qhead == s->qlen && s->nalive == 0;
    pthread_mutex_unlock(&s->mu);
    return done;
}

bool cdc_snapshot_has_work(cdc_snapshot_t *s)
{
    pthread_mutex_lock(&s->mu);
    bool work = s->qhead < s->qlen || s->nalive > 0;
    pthread_mutex_unlock(&s->mu);
    return work;
}

int cdc_snapshot_alive(cdc_snapshot_t *s)
{
    pthread_mutex_lock(&s->mu);
    int n = s->nalive;
    pthread_mutex_unlock(&s->mu);
    return n;
}

void cdc_snapshot_start(cdc_snapshot_t *s)
{
    pthread_mutex_lock(&s->mu);
    s->started = true;
    s->active = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

void cdc_snapshot_stop(cdc_snapshot_t *s)
{
    pthread_mutex_lock(&s->mu);
    s->stopped = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

bool cdc_snapshot_stopped(cdc_snapshot_t *s)
{
    pthread_mutex_lock(&s->mu);
    bool stopped = s->stopped;
    pthread_mutex_unlock(&s->mu);
    return stopped;
}

cdc_snap_stats_t cdc_snapshot_stats(cdc_snapshot_t *s)
{
    pthread_mutex_lock(&s->mu);
    cdc_snap_stats_t st = s->stats;
    pthread_mutex_unlock(&s->mu);
    return st;
}

/* ---- state ----------------------------------------------------------------------------------- */

static void put_escaped(cdc_buf_t *out, const char *t)
{
    for (; *t; t++) {
        switch (*t) {
        case '\\':
            cdc_buf_puts(out, "\\\\");
            break;
        case '\t':
            cdc_buf_puts(out, "\\t");
            break;
        case '\n':
            cdc_buf_puts(out, "\\n");
            break;
        case '\r':
            cdc_buf_puts(out, "\\r");
            break;
        case ',':
            cdc_buf_puts(out, "\\c");
            break;
        default:
            cdc_buf_putc(out, *t);
        }
    }
}

void cdc_snapshot_log_end(cdc_snapshot_t *s, const char *label, int64_t start_ms)
{
    cdc_snap_stats_t st = cdc_snapshot_stats(s);
    double secs = (double)(cdc_mono_ms() - start_ms) / 1000.0;
    cdc_log(CDC_LOG_INFO, NULL, label,
            "snapshot done: %llu rows in %llu chunks in %.1f s (%.0f rows/s); %llu rows left to "
            "the stream's newer changes, %llu chunks read again",
            (unsigned long long)st.rows, (unsigned long long)st.chunks, secs,
            secs > 0 ? (double)st.rows / secs : 0.0, (unsigned long long)st.reconciled,
            (unsigned long long)st.rereads);
}

/* "-" unbounded, else '(' (excluded) or '[' (included) and the texts joined by ',' */
static void put_key(cdc_buf_t *out, char *const *k, int n, bool incl)
{
    if (!k) {
        cdc_buf_putc(out, '-');
        return;
    }
    cdc_buf_putc(out, incl ? '[' : '(');
    for (int i = 0; i < n; i++) {
        if (i)
            cdc_buf_putc(out, ',');
        put_escaped(out, k[i] ? k[i] : "");
    }
}

static void put_range(cdc_snapshot_t *s, cdc_buf_t *out, int table, char *const *lo,
                      char *const *hi, bool hi_incl, const char *extra)
{
    cdc_buf_puts(out, "range\t");
    put_escaped(out, s->tables[table]);
    cdc_buf_putc(out, '\t');
    put_key(out, lo, s->nkey, false);
    cdc_buf_putc(out, '\t');
    put_key(out, hi, s->nkey, hi_incl);
    cdc_buf_putc(out, '\t');
    if (extra) {
        cdc_buf_putc(out, '=');
        put_escaped(out, extra);
    } else {
        cdc_buf_putc(out, '-');
    }
    cdc_buf_putc(out, '\n');
}

void cdc_snapshot_save(cdc_snapshot_t *s, cdc_buf_t *out)
{
    pthread_mutex_lock(&s->mu);
    for (read_int_t *r = s->alive; r; r = r->next)
        put_range(s, out, r->pub.table, r->pub.lo, r->pub.hi, r->pub.hi_incl, r->pub.extra);
    for (int i = s->qhead; i < s->qlen; i++) {
        const range_t *q = &s->queue[i];
        if (q->gen) { /* the rest of a planned range, from its next part */
            char **lo = q->next == INT64_MIN ? NULL : key_int(q->next - 1);
            put_range(s, out, q->table, lo, q->hi, q->hi_incl, q->extra);
            keys_free(lo, s->nkey);
        } else {
            put_range(s, out, q->table, q->lo, q->hi, q->hi_incl, q->extra);
        }
    }
    pthread_mutex_unlock(&s->mu);
}

/* Unescapes field [p, end) into a new string. */
static char *unescape(const char *p, const char *end)
{
    char *o = cdc_xcalloc((size_t)(end - p) + 1, 1), *w = o;
    while (p < end) {
        if (*p == '\\' && p + 1 < end) {
            p++;
            *w++ = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p == 'r' ? '\r' : *p == 'c' ? ',' : *p;
            p++;
        } else {
            *w++ = *p++;
        }
    }
    return o;
}

/* A key field: NULL for "-"; *incl for '['; -1 when malformed. */
static int get_key(cdc_snapshot_t *s, const char *p, const char *end, char ***out, bool *incl)
{
    *out = NULL;
    if (end - p == 1 && *p == '-')
        return 0;
    if (p == end || (*p != '(' && *p != '['))
        return -1;
    if (incl)
        *incl = *p == '[';
    p++;
    char **k = cdc_xcalloc((size_t)s->nkey, sizeof(char *));
    for (int i = 0; i < s->nkey; i++) {
        const char *e = p;
        while (e < end && *e != ',') /* (a comma in a text is escaped: \c) */
            e++;
        if ((i + 1 < s->nkey) == (e == end)) {
            keys_free(k, i);
            return -1;
        }
        k[i] = unescape(p, e);
        p = e + 1;
    }
    *out = k;
    return 0;
}

int cdc_snapshot_load_line(cdc_snapshot_t *s, const char *line)
{
    const char *f[6];
    int nf = 0;
    f[nf++] = line;
    for (const char *p = line; *p && *p != '\n' && nf < 6; p++)
        if (*p == '\t')
            f[nf++] = p + 1;
    const char *end = line + strcspn(line, "\n");
    if (nf != 5 || strncmp(line, "range\t", 6) != 0)
        return -1;
    char *name = unescape(f[1], f[2] - 1);
    int table = -1;
    for (int i = 0; i < s->ntables; i++)
        if (strcmp(s->tables[i], name) == 0)
            table = i;
    free(name);
    if (table < 0)
        return 0; /* a table no longer captured */
    range_t r = {.table = table};
    bool incl = false;
    if (get_key(s, f[2], f[3] - 1, &r.lo, NULL) < 0 ||
        get_key(s, f[3], f[4] - 1, &r.hi, &incl) < 0) {
        range_free(s, &r);
        return -1;
    }
    r.hi_incl = incl;
    if (*f[4] == '=')
        r.extra = unescape(f[4] + 1, end);
    pthread_mutex_lock(&s->mu);
    queue_push(s, r, false);
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

void cdc_snapshot_clear(cdc_snapshot_t *s)
{
    pthread_mutex_lock(&s->mu);
    for (int i = s->qhead; i < s->qlen; i++)
        range_free(s, &s->queue[i]);
    s->qhead = s->qlen = 0;
    pthread_mutex_unlock(&s->mu);
}

/* ---- signals --------------------------------------------------------------------------------- */

/* A small reader of the signal's JSON (objects, arrays, strings; other values skipped). */
typedef struct jr {
    const char *p, *end;
    const char *err;
} jr_t;

static void jr_ws(jr_t *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static bool jr_lit(jr_t *j, char c)
{
    jr_ws(j);
    if (j->p < j->end && *j->p == c) {
        j->p++;
        return true;
    }
    return false;
}

/* A string token into a new string (\uXXXX below 0x80 only; others kept as '?'), or NULL. */
static char *jr_string(jr_t *j)
{
    jr_ws(j);
    if (j->p >= j->end || *j->p != '"') {
        j->err = "a string was expected";
        return NULL;
    }
    cdc_buf_t b = {0};
    for (j->p++; j->p < j->end && *j->p != '"'; j->p++) {
        char c = *j->p;
        if (c == '\\' && j->p + 1 < j->end) {
            c = *++j->p;
            if (c == 'n')
                c = '\n';
            else if (c == 't')
                c = '\t';
            else if (c == 'r')
                c = '\r';
            else if (c == 'b')
                c = '\b';
            else if (c == 'f')
                c = '\f';
            else if (c == 'u' && j->end - j->p > 4) {
                unsigned v = 0;
                for (int i = 1; i <= 4; i++)
                    v = v * 16 + (unsigned)cdc_hex_digit(j->p[i]);
                j->p += 4;
                c = v < 0x80 ? (char)v : '?';
            }
        }
        cdc_buf_putc(&b, c);
    }
    if (j->p >= j->end) {
        cdc_buf_free(&b);
        j->err = "a string is not closed";
        return NULL;
    }
    j->p++;
    char *s = cdc_xstrdup(cdc_buf_cstr(&b));
    cdc_buf_free(&b);
    return s;
}

static bool jr_skip(jr_t *j, int depth)
{
    jr_ws(j);
    if (j->p >= j->end || depth > 64)
        return false;
    if (*j->p == '"') {
        free(jr_string(j));
        return !j->err;
    }
    if (*j->p == '{' || *j->p == '[') {
        char close = *j->p == '{' ? '}' : ']';
        j->p++;
        if (jr_lit(j, close))
            return true;
        do {
            if (close == '}') {
                free(jr_string(j));
                if (j->err || !jr_lit(j, ':'))
                    return false;
            }
            if (!jr_skip(j, depth + 1))
                return false;
        } while (jr_lit(j, ','));
        return jr_lit(j, close);
    }
    while (j->p < j->end && strchr(",}] \t\r\n", *j->p) == NULL)
        j->p++;
    return true;
}

void cdc_snap_signal_free(cdc_snap_signal_t *sig)
{
    for (int i = 0; i < sig->n; i++) {
        free(sig->collections[i]);
        free(sig->filters[i]);
    }
    free(sig->collections);
    free(sig->filters);
    free(sig->type);
    memset(sig, 0, sizeof(*sig));
}

/* The index of collection `name` in sig (added when new). */
static int sig_collection(cdc_snap_signal_t *sig, char *name)
{
    for (int i = 0; i < sig->n; i++)
        if (strcmp(sig->collections[i], name) == 0) {
            free(name);
            return i;
        }
    sig->collections = cdc_xrealloc(sig->collections, (size_t)(sig->n + 1) * sizeof(char *));
    sig->filters = cdc_xrealloc(sig->filters, (size_t)(sig->n + 1) * sizeof(char *));
    sig->collections[sig->n] = name;
    sig->filters[sig->n] = NULL;
    return sig->n++;
}

int cdc_snap_signal_parse(const char *data, size_t len, cdc_snap_signal_t *sig, cdc_error_t **err)
{
    memset(sig, 0, sizeof(*sig));
    jr_t j = {data, data + len, NULL};
    if (!jr_lit(&j, '{')) {
        j.err = "a JSON object was expected";
        goto bad;
    }
    if (!jr_lit(&j, '}')) {
        do {
            char *key = jr_string(&j);
            if (!key || !jr_lit(&j, ':')) {
                free(key);
                j.err = j.err ? j.err : "':' was expected";
                goto bad;
            }
            if (strcmp(key, "type") == 0) {
                free(sig->type);
                sig->type = jr_string(&j);
            } else if (strcmp(key, "data-collections") == 0) {
                if (!jr_lit(&j, '[')) {
                    j.err = "\"data-collections\" is not an array";
                } else if (!jr_lit(&j, ']')) {
                    do {
                        char *c = jr_string(&j);
                        if (c)
                            sig_collection(sig, c);
                    } while (!j.err && jr_lit(&j, ','));
                    if (!j.err && !jr_lit(&j, ']'))
                        j.err = "']' was expected";
                }
            } else if (strcmp(key, "additional-conditions") == 0) {
                if (!jr_lit(&j, '[')) {
                    j.err = "\"additional-conditions\" is not an array";
                } else if (!jr_lit(&j, ']')) {
                    do {
                        char *coll = NULL, *filter = NULL;
                        if (!jr_lit(&j, '{')) {
                            j.err = "an additional condition is not an object";
                            break;
                        }
                        do {
                            char *k = jr_string(&j);
                            if (!k || !jr_lit(&j, ':')) {
                                free(k);
                                j.err = j.err ? j.err : "':' was expected";
                                break;
                            }
                            if (strcmp(k, "data-collection") == 0) { /* (the last wins) */
                                free(coll);
                                coll = jr_string(&j);
                            } else if (strcmp(k, "filter") == 0) {
                                free(filter);
                                filter = jr_string(&j);
                            } else {
                                jr_skip(&j, 0);
                            }
                            free(k);
                        } while (!j.err && jr_lit(&j, ','));
                        if (!j.err && !jr_lit(&j, '}'))
                            j.err = "'}' was expected";
                        if (!j.err && (!coll || !filter))
                            j.err = "an additional condition needs \"data-collection\" and "
                                    "\"filter\"";
                        if (j.err) {
                            free(coll);
                            free(filter);
                            break;
                        }
                        int i = sig_collection(sig, coll);
                        free(sig->filters[i]);
                        sig->filters[i] = filter;
                    } while (jr_lit(&j, ','));
                    if (!j.err && !jr_lit(&j, ']'))
                        j.err = "']' was expected";
                }
            } else if (!jr_skip(&j, 0)) {
                j.err = j.err ? j.err : "a malformed value";
            }
            free(key);
            if (j.err)
                goto bad;
        } while (jr_lit(&j, ','));
        if (!jr_lit(&j, '}')) {
            j.err = "'}' was expected";
            goto bad;
        }
    }
    if (sig->n == 0) {
        j.err = "\"data-collections\" names no table";
        goto bad;
    }
    return 0;
bad:
    cdc_snap_signal_free(sig);
    cdc_error_set(err, CDC_ERR_PARSE, "snapshot signal: %s at byte %d of its data", j.err,
                  (int)(j.p - data));
    return -1;
}

int cdc_snapshot_find_table(const cdc_snapshot_t *s, const char *name)
{
    for (int i = 0; i < s->ntables; i++)
        if (strcmp(s->tables[i], name) == 0)
            return i;
    return -1;
}
