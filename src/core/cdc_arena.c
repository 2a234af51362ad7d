/*
 * cdc_arena.c — bump allocator and growable buffer.
 */
#include "cdc_arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_error.h"

struct cdc_arena_block_s {
    cdc_arena_block_t *next;
    size_t size;
    _Alignas(16) unsigned char data[];
};

#define ARENA_MIN_BLOCK (64 * 1024)

void cdc_arena_init(cdc_arena_t *a)
{
    memset(a, 0, sizeof(*a));
}

static void new_block(cdc_arena_t *a, size_t need)
{
    size_t size = ARENA_MIN_BLOCK;
    if (a->head && a->head->size * 2 > size)
        size = a->head->size * 2;
    while (size < need)
        size *= 2;
    cdc_arena_block_t *b = cdc_xmalloc(sizeof(*b) + size);
    b->size = size;
    b->next = a->head;
    a->head = b;
    a->used = 0;
    a->base = b->data;
    a->cap = size;
}

void *cdc_arena_alloc_block(cdc_arena_t *a, size_t n)
{
    new_block(a, n);
    void *p = a->base;
    a->used = n;
    a->total += n;
    return p;
}

void *cdc_arena_calloc(cdc_arena_t *a, size_t n)
{
    void *p = cdc_arena_alloc(a, n);
    memset(p, 0, n);
    return p;
}

char *cdc_arena_memdup(cdc_arena_t *a, const void *src, size_t n)
{
    char *p = cdc_arena_alloc(a, n + 1);
    if (n)
        memcpy(p, src, n);
    p[n] = '\0';
    return p;
}

char *cdc_arena_strdup(cdc_arena_t *a, const char *s)
{
    return cdc_arena_memdup(a, s, strlen(s));
}

void cdc_arena_reset(cdc_arena_t *a)
{
    if (!a->head)
        return;
    /* the head is the newest and so the largest block: keep it */
    cdc_arena_block_t *b = a->head->next;
    while (b) {
        cdc_arena_block_t *next = b->next;
        free(b);
        b = next;
    }
    a->head->next = NULL;
    a->used = 0;
    a->total = 0;
}

void cdc_arena_free(cdc_arena_t *a)
{
    cdc_arena_block_t *b = a->head;
    while (b) {
        cdc_arena_block_t *next = b->next;
        free(b);
        b = next;
    }
    memset(a, 0, sizeof(*a));
}

void cdc_buf_grow(cdc_buf_t *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    b->data = cdc_xrealloc(b->data, cap);
    b->cap = cap;
}

void cdc_buf_printf(cdc_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof(small), fmt, ap2);
    va_end(ap2);
    if (n < 0)
        n = 0;
    if ((size_t)n < sizeof(small)) {
        cdc_buf_append(b, small, (size_t)n);
    } else {
        cdc_buf_reserve(b, (size_t)n);
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
        b->len += (size_t)n;
    }
    va_end(ap);
}

void cdc_buf_free(cdc_buf_t *b)
{
    free(b->data);
    memset(b, 0, sizeof(*b));
}

const char *cdc_buf_cstr(cdc_buf_t *b)
{
    cdc_buf_reserve(b, 0);
    b->data[b->len] = '\0';
    return b->data;
}
