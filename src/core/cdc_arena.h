/*
 * cdc_arena.h — a bump allocator for per-batch data and a growable byte
 * buffer that keeps its capacity.
 *
 * cdc_arena_reset() frees nothing: it keeps the largest block and rewinds, so
 * a steady-state pipeline allocates nothing per record.
 */
#ifndef CDC_ARENA_H
#define CDC_ARENA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct cdc_arena_block_s cdc_arena_block_t;

typedef struct cdc_arena_s {
    cdc_arena_block_t *head; /* current block; older blocks follow */
    size_t used;             /* bytes used in head */
    size_t total;            /* bytes handed out since the last reset */
    unsigned char *base;     /* head's bytes, NULL before the first block */
    size_t cap;              /* head's size */
} cdc_arena_t;

void cdc_arena_init(cdc_arena_t *a);
/* A new head block for n bytes (a multiple of 16), then those bytes; the slow path of alloc. */
void *cdc_arena_alloc_block(cdc_arena_t *a, size_t n);

/** Returns n bytes aligned to 16; memory lives until the next reset. Inline: decoders call it
    per row. */
static inline void *cdc_arena_alloc(cdc_arena_t *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (!a->base || a->used + n > a->cap)
        return cdc_arena_alloc_block(a, n);
    void *p = a->base + a->used;
    a->used += n;
    a->total += n;
    return p;
}
/** Same, zero-filled. */
void *cdc_arena_calloc(cdc_arena_t *a, size_t n);
/** Copies n bytes (not NUL-terminated unless the source is). */
char *cdc_arena_memdup(cdc_arena_t *a, const void *src, size_t n);
/** Copies a string with its terminator. */
char *cdc_arena_strdup(cdc_arena_t *a, const char *s);
/** Rewinds: keeps one block (the largest) for reuse, frees the others. */
void cdc_arena_reset(cdc_arena_t *a);
void cdc_arena_free(cdc_arena_t *a);

typedef struct cdc_buf_s {
    char *data;
    size_t len;
    size_t cap;
} cdc_buf_t;

/* Grows the buffer so extra more bytes (and a terminator) fit; the slow path of reserve. */
void cdc_buf_grow(cdc_buf_t *b, size_t extra);

/* The appenders are inline: printing rows calls them per value. */
static inline void cdc_buf_reserve(cdc_buf_t *b, size_t extra)
{
    if (b->len + extra + 1 > b->cap)
        cdc_buf_grow(b, extra);
}

static inline void cdc_buf_append(cdc_buf_t *b, const void *p, size_t n)
{
    cdc_buf_reserve(b, n);
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
}

static inline void cdc_buf_puts(cdc_buf_t *b, const char *s)
{
    cdc_buf_append(b, s, strlen(s));
}

static inline void cdc_buf_putc(cdc_buf_t *b, char c)
{
    cdc_buf_reserve(b, 1);
    b->data[b->len++] = c;
}
void cdc_buf_printf(cdc_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Empties the buffer and keeps its capacity. */
static inline void cdc_buf_clear(cdc_buf_t *b)
{
    b->len = 0;
}
void cdc_buf_free(cdc_buf_t *b);
/** NUL-terminates (not counted in len) and returns data. */
const char *cdc_buf_cstr(cdc_buf_t *b);

#endif
