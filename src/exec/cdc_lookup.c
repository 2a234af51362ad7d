/*
 * cdc_lookup.c — lookup options, the PARTIAL lookup cache and the retry loop
 * (see cdc_lookup.h).
 *
 * The cache is a chained hash table over key bytes plus a doubly linked LRU
 * list. Each entry is one malloc'ed block holding the key bytes and a deep
 * copy of its rows (values, strings, nested arrays/maps/rows), so evicting
 * frees one block — at the next cdc_lookup_cache_release, so that rows handed
 * out for the batch being built stay valid. It belongs to one split (one
 * thread): no locks.
 */
#include "cdc_lookup.h"
#include "cdc_log.h"
#include "cdc_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const cdc_lookup_cache_kinds[] = {"NONE", "PARTIAL", NULL};

/* ---- options ----------------------------------------------------------------------------- */

static bool given(const cdc_config_t *cfg, const char *key)
{
    return cdc_config_declares(cfg, key) && cdc_config_isset(cfg, key);
}

void cdc_lookup_opts_read(const cdc_config_t *cfg, cdc_lookup_opts_t *out)
{
    *out = (cdc_lookup_opts_t){.cache_missing_key = true, .max_retries = 3};
    if (!cfg || !cdc_config_declares(cfg, "lookup.cache"))
        return;
    out->cache = cdc_config_enum(cfg, "lookup.cache") == 1;
    if (given(cfg, "lookup.cache.max-rows")) {
        out->cache = out->cache || !given(cfg, "lookup.cache"); /* legacy: max-rows turns it on */
        out->max_rows = cdc_config_int(cfg, "lookup.cache.max-rows");
    }
    if (given(cfg, "lookup.partial-cache.max-rows"))
        out->max_rows = cdc_config_int(cfg, "lookup.partial-cache.max-rows");
    if (given(cfg, "lookup.cache.ttl"))
        out->expire_after_write_ms = cdc_config_duration_ms(cfg, "lookup.cache.ttl");
    if (given(cfg, "lookup.partial-cache.expire-after-write"))
        out->expire_after_write_ms =
            cdc_config_duration_ms(cfg, "lookup.partial-cache.expire-after-write");
    if (given(cfg, "lookup.partial-cache.expire-after-access"))
        out->expire_after_access_ms =
            cdc_config_duration_ms(cfg, "lookup.partial-cache.expire-after-access");
    if (given(cfg, "lookup.cache.caching-missing-key"))
        out->cache_missing_key = cdc_config_bool(cfg, "lookup.cache.caching-missing-key");
    if (given(cfg, "lookup.partial-cache.cache-missing-key") ||
        !given(cfg, "lookup.cache.caching-missing-key"))
        out->cache_missing_key = cdc_config_bool(cfg, "lookup.partial-cache.cache-missing-key");
    out->max_retries = (int)cdc_config_int(cfg, "lookup.max-retries");
}

void cdc_lookup_check(const cdc_config_t *cfg, cdc_buf_t *problems)
{
    cdc_lookup_opts_t o;
    cdc_lookup_opts_read(cfg, &o);
    if (o.cache && o.max_rows == 0 && o.expire_after_write_ms == 0 && o.expire_after_access_ms == 0)
        cdc_buf_puts(problems, "option \"lookup.cache\": a PARTIAL cache needs a bound: set "
                               "\"lookup.partial-cache.max-rows\", "
                               "\"lookup.partial-cache.expire-after-write\" or "
                               "\"lookup.partial-cache.expire-after-access\"\n");
}

static void put_duration(cdc_buf_t *out, const char *name, int64_t ms)
{
    if (ms % 1000 == 0)
        cdc_buf_printf(out, ", %s=%llds", name, (long long)(ms / 1000));
    else
        cdc_buf_printf(out, ", %s=%lldms", name, (long long)ms);
}

void cdc_lookup_opts_explain(const cdc_lookup_opts_t *o, cdc_buf_t *out)
{
    if (!o->cache) {
        cdc_buf_puts(out, "[NONE]");
        return;
    }
    cdc_buf_puts(out, "[PARTIAL");
    if (o->max_rows > 0)
        cdc_buf_printf(out, ", max-rows=%lld", (long long)o->max_rows);
    if (o->expire_after_write_ms > 0)
        put_duration(out, "expire-after-write", o->expire_after_write_ms);
    if (o->expire_after_access_ms > 0)
        put_duration(out, "expire-after-access", o->expire_after_access_ms);
    cdc_buf_printf(out, ", cache-missing-key=%s]", o->cache_missing_key ? "true" : "false");
}

/* ---- deep copies into one block ----------------------------------------------------------- */

#define ALIGN16(n) (((n) + 15u) & ~(size_t)15u)

static size_t row_size(const cdc_row_t *row, const cdc_type_t *t);

static size_t value_size(const cdc_value_t *v, const cdc_type_t *t)
{
    if (!t || (v->flags & (CDC_V_NULL | CDC_V_UNCHANGED)))
        return 0;
    switch (t->root) {
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
    case CDC_T_BINARY:
    case CDC_T_VARBINARY:
        return ALIGN16(v->v.s.len);
    case CDC_T_ARRAY:
    case CDC_T_MAP:
    case CDC_T_MULTISET: {
        size_t n = v->v.arr.n, sz = ALIGN16(sizeof(cdc_value_t) * n);
        if (cdc_type_is_map_like(t))
            sz *= 2;
        for (size_t i = 0; i < n; i++) {
            sz += value_size(&v->v.arr.elems[i], t->children[0]);
            if (cdc_type_is_map_like(t))
                sz += value_size(&v->v.arr.vals[i], cdc_type_map_value(t));
        }
        return sz;
    }
    case CDC_T_ROW:
        return ALIGN16(sizeof(cdc_row_t)) + row_size(v->v.row, t);
    default:
        return 0;
    }
}

static size_t row_size(const cdc_row_t *row, const cdc_type_t *t)
{
    size_t sz = ALIGN16(sizeof(cdc_value_t) * row->arity);
    for (uint32_t i = 0; i < row->arity; i++)
        sz += value_size(&row->values[i], i < (uint32_t)t->nchildren ? t->children[i] : NULL);
    return sz;
}

static void *bump(char **cur, size_t n)
{
    void *p = *cur;
    *cur += ALIGN16(n);
    return p;
}

static void row_copy(cdc_row_t *dst, const cdc_row_t *src, const cdc_type_t *t, char **cur);

static void value_copy(cdc_value_t *dst, const cdc_value_t *src, const cdc_type_t *t, char **cur)
{
    *dst = *src;
    if (!t || (src->flags & (CDC_V_NULL | CDC_V_UNCHANGED)))
        return;
    switch (t->root) {
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
    case CDC_T_BINARY:
    case CDC_T_VARBINARY: {
        char *p = bump(cur, src->v.s.len);
        if (src->v.s.len)
            memcpy(p, src->v.s.ptr, src->v.s.len);
        dst->v.s.ptr = p;
        break;
    }
    case CDC_T_ARRAY:
    case CDC_T_MAP:
    case CDC_T_MULTISET: {
        uint32_t n = src->v.arr.n;
        dst->v.arr.elems = bump(cur, sizeof(cdc_value_t) * n);
        if (cdc_type_is_map_like(t))
            dst->v.arr.vals = bump(cur, sizeof(cdc_value_t) * n);
        for (uint32_t i = 0; i < n; i++) {
            value_copy(&dst->v.arr.elems[i], &src->v.arr.elems[i], t->children[0], cur);
            if (cdc_type_is_map_like(t))
                value_copy(&dst->v.arr.vals[i], &src->v.arr.vals[i], cdc_type_map_value(t), cur);
        }
        break;
    }
    case CDC_T_ROW:
        dst->v.row = bump(cur, sizeof(cdc_row_t));
        row_copy(dst->v.row, src->v.row, t, cur);
        break;
    default:
        break;
    }
}

static void row_copy(cdc_row_t *dst, const cdc_row_t *src, const cdc_type_t *t, char **cur)
{
    dst->kind = src->kind;
    dst->arity = src->arity;
    dst->origin = NULL;
    dst->values = bump(cur, sizeof(cdc_value_t) * src->arity);
    for (uint32_t i = 0; i < src->arity; i++)
        value_copy(&dst->values[i], &src->values[i],
                   i < (uint32_t)t->nchildren ? t->children[i] : NULL, cur);
}

/* ---- the cache ----------------------------------------------------------------------------- */

typedef struct entry_s {
    struct entry_s *hnext;         /* hash chain */
    struct entry_s *newer, *older; /* LRU list */
    uint64_t hash;
    int64_t written_at, accessed_at; /* clock ms */
    size_t keylen;
    uint32_t nrows;
    cdc_row_t *rows; /* in this block */
    char key[];      /* keylen bytes, then the rows */
} entry_t;

struct cdc_lookup_cache_s {
    cdc_lookup_opts_t opts;
    const cdc_type_t *row_type;
    cdc_lookup_clock_fn clock;
    void *clock_ctx;
    entry_t **buckets;
    size_t nbuckets; /* power of two */
    entry_t *newest, *oldest;
    entry_t *dropped; /* removed since the last release, chained by hnext: rows handed out
                         from them stay valid until then */
    cdc_lookup_cache_stats_t stats;
};

static int64_t monotonic_ms(void *ctx)
{
    (void)ctx;
    return cdc_mono_ms();
}

static uint64_t hash_key(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

cdc_lookup_cache_t *cdc_lookup_cache_new(const cdc_lookup_opts_t *opts, const cdc_type_t *row_type,
                                         cdc_lookup_clock_fn clock, void *clock_ctx)
{
    cdc_lookup_cache_t *c = cdc_xcalloc(1, sizeof(*c));
    c->opts = *opts;
    c->row_type = row_type;
    c->clock = clock ? clock : monotonic_ms;
    c->clock_ctx = clock_ctx;
    c->nbuckets = 64;
    c->buckets = cdc_xcalloc(c->nbuckets, sizeof(*c->buckets));
    return c;
}

static void lru_unlink(cdc_lookup_cache_t *c, entry_t *e)
{
    if (e->newer)
        e->newer->older = e->older;
    else
        c->newest = e->older;
    if (e->older)
        e->older->newer = e->newer;
    else
        c->oldest = e->newer;
    e->newer = e->older = NULL;
}

static void lru_push(cdc_lookup_cache_t *c, entry_t *e)
{
    e->older = c->newest;
    e->newer = NULL;
    if (c->newest)
        c->newest->newer = e;
    c->newest = e;
    if (!c->oldest)
        c->oldest = e;
}

static entry_t **find_slot(cdc_lookup_cache_t *c, const void *key, size_t len, uint64_t h)
{
    entry_t **pp = &c->buckets[h & (c->nbuckets - 1)];
    while (*pp && !((*pp)->hash == h && (*pp)->keylen == len && memcmp((*pp)->key, key, len) == 0))
        pp = &(*pp)->hnext;
    return pp;
}

static void remove_entry(cdc_lookup_cache_t *c, entry_t *e)
{
    entry_t **pp = find_slot(c, e->key, e->keylen, e->hash);
    *pp = e->hnext;
    lru_unlink(c, e);
    c->stats.size--;
    e->hnext = c->dropped;
    c->dropped = e;
}

void cdc_lookup_cache_release(cdc_lookup_cache_t *c)
{
    while (c->dropped) {
        entry_t *next = c->dropped->hnext;
        free(c->dropped);
        c->dropped = next;
    }
}

static bool expired(const cdc_lookup_cache_t *c, const entry_t *e, int64_t now)
{
    if (c->opts.expire_after_write_ms > 0 && now - e->written_at >= c->opts.expire_after_write_ms)
        return true;
    return c->opts.expire_after_access_ms > 0 &&
           now - e->accessed_at >= c->opts.expire_after_access_ms;
}

bool cdc_lookup_cache_get(cdc_lookup_cache_t *c, const void *key, size_t keylen,
                          const cdc_row_t **rows, uint32_t *n)
{
    uint64_t h = hash_key(key, keylen);
    entry_t *e = *find_slot(c, key, keylen, h);
    if (!e) {
        c->stats.misses++;
        return false;
    }
    int64_t now = c->clock(c->clock_ctx);
    if (expired(c, e, now)) {
        remove_entry(c, e);
        c->stats.expirations++;
        c->stats.misses++;
        return false;
    }
    e->accessed_at = now;
    lru_unlink(c, e);
    lru_push(c, e);
    c->stats.hits++;
    *rows = e->rows;
    *n = e->nrows;
    return true;
}

static void grow(cdc_lookup_cache_t *c)
{
    size_t ncap = c->nbuckets * 2;
    entry_t **nb = cdc_xcalloc(ncap, sizeof(*nb));
    for (size_t i = 0; i < c->nbuckets; i++) {
        entry_t *e = c->buckets[i];
        while (e) {
            entry_t *next = e->hnext;
            e->hnext = nb[e->hash & (ncap - 1)];
            nb[e->hash & (ncap - 1)] = e;
            e = next;
        }
    }
    free(c->buckets);
    c->buckets = nb;
    c->nbuckets = ncap;
}

const cdc_row_t *cdc_lookup_cache_put(cdc_lookup_cache_t *c, const void *key, size_t keylen,
                                      const cdc_row_t *rows, uint32_t n)
{
    uint64_t h = hash_key(key, keylen);
    entry_t *old = *find_slot(c, key, keylen, h);
    if (old)
        remove_entry(c, old);
    if (n == 0 && !c->opts.cache_missing_key)
        return NULL;
    size_t head = ALIGN16(sizeof(entry_t) + keylen);
    size_t sz = head + ALIGN16(sizeof(cdc_row_t) * n);
    for (uint32_t i = 0; i < n; i++)
        sz += row_size(&rows[i], c->row_type);
    entry_t *e = cdc_xmalloc(sz);
    memset(e, 0, sizeof(*e));
    e->hash = h;
    e->keylen = keylen;
    memcpy(e->key, key, keylen);
    char *cur = (char *)e + head;
    e->rows = bump(&cur, sizeof(cdc_row_t) * n);
    for (uint32_t i = 0; i < n; i++)
        row_copy(&e->rows[i], &rows[i], c->row_type, &cur);
    e->nrows = n;
    e->written_at = e->accessed_at = c->clock(c->clock_ctx);
    entry_t **slot = &c->buckets[h & (c->nbuckets - 1)];
    e->hnext = *slot;
    *slot = e;
    lru_push(c, e);
    c->stats.size++;
    while (c->opts.max_rows > 0 && c->stats.size > (uint64_t)c->opts.max_rows) {
        remove_entry(c, c->oldest);
        c->stats.evictions++;
    }
    if (c->stats.size > c->nbuckets)
        grow(c);
    return e->rows;
}

void cdc_lookup_cache_stats(const cdc_lookup_cache_t *c, cdc_lookup_cache_stats_t *out)
{
    *out = c->stats;
}

void cdc_lookup_cache_destroy(cdc_lookup_cache_t *c)
{
    if (!c)
        return;
    entry_t *e = c->newest;
    while (e) {
        entry_t *next = e->older;
        free(e);
        e = next;
    }
    cdc_lookup_cache_release(c);
    free(c->buckets);
    free(c);
}

/* ---- retries ------------------------------------------------------------------------------- */

int64_t cdc_lookup_backoff_ms(int attempt)
{
    int64_t ms = 1000LL * attempt;
    return ms > 10000 ? 10000 : ms;
}

int cdc_lookup_fetch(cdc_lookup_t *lk, const cdc_value_t *keys, int max_retries, cdc_batch_t *out,
                     cdc_error_t **err)
{
    for (int attempt = 0;; attempt++) {
        cdc_batch_reset(out);
        cdc_error_t *e = NULL;
        if (lk->ops->lookup(lk, keys, out, &e) == 0) {
            cdc_error_destroy(e);
            return 0;
        }
        if (!e)
            e = cdc_error_new(CDC_ERR_INTERNAL, "lookup failed without a reason");
        if (attempt >= max_retries || e->fatal) {
            cdc_error_add_context(e, "lookup failed after %d attempt%s (lookup.max-retries = %d)",
                                  attempt + 1, attempt ? "s" : "", max_retries);
            *err = e;
            return -1;
        }
        int64_t ms = cdc_lookup_backoff_ms(attempt + 1);
        cdc_log(CDC_LOG_WARN, NULL, NULL,
                "lookup failed (attempt %d of %d), retrying in %lld ms: %s%s%s", attempt + 1,
                max_retries + 1, (long long)ms, e->message, e->detail ? ": " : "",
                e->detail ? e->detail : "");
        cdc_error_destroy(e);
        struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
}
