/*
 * json_yajl_ref.c — the yajl-based parser cdc_json_parser_t used before json_lex.c,
 * kept as the reference: fuzz/json_lex_diff.c checks our parser against it,
 * and the benchmarks show its speed beside ours. Not used by any format.
 */
#include <stdlib.h>
#include <string.h>

#include "json_yajl_ref.h"

/* ---- pool allocator for yajl ---------------------------------------------------------- */

/*
 * yajl 2.1 cannot reset a handle: after a message that did not end cleanly
 * the parser drops its handle and takes a new one. The handle's allocations
 * come from this pool, rewound at each drop, so that costs no malloc either: a
 * bump allocator with a size header, in-place growth of the newest block
 * (yajl's buffers grow by realloc), and frees that only roll back the newest
 * block.
 */
typedef struct pool_chunk_s {
    struct pool_chunk_s *next;
    size_t size;
    _Alignas(16) unsigned char data[];
} pool_chunk_t;

typedef struct pool_s {
    pool_chunk_t *head;
    size_t used;
    size_t last; /* offset of the newest block's header in head, or SIZE_MAX */
} pool_t;

#define POOL_HDR 16
#define POOL_MIN_CHUNK (16 * 1024)

static size_t align16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

static void *pool_malloc(void *ctx, size_t sz)
{
    pool_t *pool = ctx;
    size_t need = POOL_HDR + align16(sz);
    if (!pool->head || pool->used + need > pool->head->size) {
        size_t size = POOL_MIN_CHUNK;
        if (pool->head && pool->head->size * 2 > size)
            size = pool->head->size * 2;
        while (size < need)
            size *= 2;
        pool_chunk_t *c = cdc_xmalloc(sizeof(*c) + size);
        c->size = size;
        c->next = pool->head;
        pool->head = c;
        pool->used = 0;
    }
    unsigned char *hdr = pool->head->data + pool->used;
    memcpy(hdr, &sz, sizeof(sz));
    pool->last = pool->used;
    pool->used += need;
    return hdr + POOL_HDR;
}

static bool pool_is_last(pool_t *pool, void *ptr)
{
    return pool->head && pool->last != SIZE_MAX &&
           (unsigned char *)ptr == pool->head->data + pool->last + POOL_HDR;
}

static void *pool_realloc(void *ctx, void *ptr, size_t sz)
{
    pool_t *pool = ctx;
    if (!ptr)
        return pool_malloc(ctx, sz);
    size_t old;
    memcpy(&old, (unsigned char *)ptr - POOL_HDR, sizeof(old));
    if (pool_is_last(pool, ptr) && pool->last + POOL_HDR + align16(sz) <= pool->head->size) {
        memcpy((unsigned char *)ptr - POOL_HDR, &sz, sizeof(sz));
        pool->used = pool->last + POOL_HDR + align16(sz);
        return ptr;
    }
    void *p = pool_malloc(ctx, sz);
    memcpy(p, ptr, old < sz ? old : sz);
    return p;
}

static void pool_free(void *ctx, void *ptr)
{
    pool_t *pool = ctx;
    if (ptr && pool_is_last(pool, ptr)) {
        pool->used = pool->last;
        pool->last = SIZE_MAX;
    }
}

/* Rewinds; keeps the newest (largest) chunk. */
static void pool_reset(pool_t *pool)
{
    if (!pool->head)
        return;
    pool_chunk_t *c = pool->head->next;
    while (c) {
        pool_chunk_t *next = c->next;
        free(c);
        c = next;
    }
    pool->head->next = NULL;
    pool->used = 0;
    pool->last = SIZE_MAX;
}

static void pool_destroy(pool_t *pool)
{
    pool_reset(pool);
    free(pool->head);
    pool->head = NULL;
}

/* ---- parser ---------------------------------------------------------------------------- */

struct cdc_json_yajlref_s {
    pool_t pool;
    yajl_alloc_funcs afs;
    const yajl_callbacks *callbacks;
    void *ctx;
    yajl_handle hand; /* kept across messages while they parse cleanly */
    size_t root_end;  /* offset marked by cdc_json_yajlref_mark_end, or SIZE_MAX */
};

cdc_json_yajlref_t *cdc_json_yajlref_new(const yajl_callbacks *callbacks, void *ctx)
{
    cdc_json_yajlref_t *p = cdc_xcalloc(1, sizeof(*p));
    p->pool.last = SIZE_MAX;
    p->afs.malloc = pool_malloc;
    p->afs.realloc = pool_realloc;
    p->afs.free = pool_free;
    p->afs.ctx = &p->pool;
    p->callbacks = callbacks;
    p->ctx = ctx;
    return p;
}

static void drop_handle(cdc_json_yajlref_t *p)
{
    if (p->hand)
        yajl_free(p->hand); /* frees into the pool: nothing */
    p->hand = NULL;
    pool_reset(&p->pool);
}

void cdc_json_yajlref_destroy(cdc_json_yajlref_t *p)
{
    if (!p)
        return;
    drop_handle(p);
    pool_destroy(&p->pool);
    free(p);
}

size_t cdc_json_yajlref_offset(const cdc_json_yajlref_t *p)
{
    return p->hand ? yajl_get_bytes_consumed(p->hand) : 0;
}

void cdc_json_yajlref_mark_end(cdc_json_yajlref_t *p)
{
    if (p->root_end == SIZE_MAX)
        p->root_end = cdc_json_yajlref_offset(p);
}

static bool is_json_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void set_invalid(cdc_buf_t *err, size_t at, const char *reason, size_t rlen)
{
    cdc_buf_clear(err);
    cdc_buf_printf(err, "invalid JSON at byte %zu: %.*s", at, (int)rlen, reason);
}

/* Offset of the first non-whitespace byte at or after from, or len. */
static size_t skip_space(const char *msg, size_t len, size_t from)
{
    while (from < len && is_json_space(msg[from]))
        from++;
    return from;
}

/*
 * One yajl handle in yajl_allow_multiple_values mode parses message after
 * message. That is only sound while every message ends cleanly: the top-level
 * value was marked complete and only whitespace follows (so the lexer holds no
 * partial token). Any other outcome takes the slow path: yajl_complete_parse
 * for its diagnosis, then the handle is dropped and the next message gets a
 * fresh one from the pool. A message of whitespace only never reaches yajl
 * (a used handle would accept it).
 */
int cdc_json_yajlref_parse(cdc_json_yajlref_t *p, const char *msg, size_t len, cdc_buf_t *err)
{
    if (skip_space(msg, len, 0) == len) {
        set_invalid(err, len, "premature EOF", 13);
        return CDC_JSON_PARSE_INVALID;
    }
    if (!p->hand) {
        p->hand = yajl_alloc(p->callbacks, &p->afs, p->ctx);
        if (!p->hand) {
            set_invalid(err, 0, "out of memory", 13);
            return CDC_JSON_PARSE_INVALID;
        }
        yajl_config(p->hand, yajl_allow_multiple_values, 1);
    }
    p->root_end = SIZE_MAX;
    yajl_status st = yajl_parse(p->hand, (const unsigned char *)msg, len);
    size_t at = yajl_get_bytes_consumed(p->hand);
    if (st == yajl_status_ok && p->root_end != SIZE_MAX && skip_space(msg, len, p->root_end) == len)
        return CDC_JSON_PARSE_OK; /* the fast path: keep the handle */

    int rc = CDC_JSON_PARSE_OK;
    size_t junk = p->root_end != SIZE_MAX ? skip_space(msg, len, p->root_end) : len;
    if (junk < len) {
        /* whatever yajl made of it, bytes follow the complete value */
        set_invalid(err, junk, "trailing garbage", 16);
        rc = CDC_JSON_PARSE_INVALID;
    } else {
        bool finishing = false;
        if (st == yajl_status_ok) {
            finishing = true;
            st = yajl_complete_parse(p->hand);
        }
        if (st == yajl_status_client_canceled) {
            rc = CDC_JSON_PARSE_CANCELED;
        } else if (st != yajl_status_ok) {
            /* "parse error: premature EOF\n" -> "premature EOF" */
            unsigned char *text = yajl_get_error(p->hand, 0, (const unsigned char *)msg, len);
            const char *r = text ? (const char *)text : "unknown error";
            const char *colon = strstr(r, ": ");
            if (colon)
                r = colon + 2;
            size_t rl = strlen(r);
            while (rl && (r[rl - 1] == '\n' || r[rl - 1] == '.' || r[rl - 1] == ' '))
                rl--;
            set_invalid(err, finishing ? len : at, r, rl);
            if (text)
                yajl_free_error(p->hand, text);
            rc = CDC_JSON_PARSE_INVALID;
        }
    }
    drop_handle(p);
    return rc;
}
