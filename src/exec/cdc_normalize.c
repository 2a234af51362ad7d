/*
 * cdc_normalize.c — ChangelogNormalize, the keyed state that turns upserts
 * (and duplicated CDC events) into a proper changelog: the last row per
 * primary key in an open-addressing hash table (keys: cdc_row_key_bytes).
 */
#include "cdc_pipe_int.h"

#include <stdlib.h>
#include <string.h>

/*
 * The state: an open-addressing hash table from key bytes to the last row of
 * that key, each entry with its own arena-free copy (one malloc'ed arena per
 * entry would be wasteful, so rows are copied into a private cdc_arena_t that
 * is compacted when too much of it is garbage).
 */
typedef struct norm_entry {
    char *key; /* NULL = empty slot; TOMBSTONE = deleted */
    size_t keylen;
    cdc_row_t *row; /* in the state's arena */
} norm_entry_t;

static char tombstone_mark;
#define TOMBSTONE (&tombstone_mark)

struct cdc_norm_state_s {
    norm_entry_t *slots;
    size_t cap, used, live;
    cdc_arena_t arena;
    size_t arena_live; /* bytes of live rows, estimated at copy time */
    const cdc_type_t *type;
    cdc_buf_t key;
};

static norm_entry_t *norm_find(cdc_norm_state_t *st, const char *key, size_t len, bool insert)
{
    if (insert && (st->used + 1) * 4 >= st->cap * 3) {
        /* grow (and drop tombstones) */
        size_t ncap = st->cap ? st->cap * 2 : 1024;
        while (st->live * 2 >= ncap)
            ncap *= 2;
        norm_entry_t *old = st->slots;
        size_t ocap = st->cap;
        st->slots = cdc_xcalloc(ncap, sizeof(*st->slots));
        st->cap = ncap;
        st->used = st->live;
        for (size_t i = 0; i < ocap; i++) {
            if (!old[i].key || old[i].key == TOMBSTONE)
                continue;
            size_t j = cdc_hash_bytes(old[i].key, old[i].keylen) & (ncap - 1);
            while (st->slots[j].key)
                j = (j + 1) & (ncap - 1);
            st->slots[j] = old[i];
        }
        free(old);
    }
    if (st->cap == 0)
        return NULL;
    size_t j = cdc_hash_bytes(key, len) & (st->cap - 1);
    norm_entry_t *free_slot = NULL;
    for (;;) {
        norm_entry_t *e = &st->slots[j];
        if (!e->key)
            return insert ? (free_slot ? free_slot : e) : NULL;
        if (e->key == TOMBSTONE) {
            if (!free_slot)
                free_slot = e;
        } else if (e->keylen == len && memcmp(e->key, key, len) == 0) {
            return e;
        }
        j = (j + 1) & (st->cap - 1);
    }
}

/* Compacts the state's arena when most of it holds replaced rows. */
static void norm_compact(cdc_norm_state_t *st)
{
    if (st->arena.total < (1u << 24) || st->arena.total < st->arena_live * 4)
        return;
    cdc_arena_t fresh;
    cdc_arena_init(&fresh);
    for (size_t i = 0; i < st->cap; i++)
        if (st->slots[i].key && st->slots[i].key != TOMBSTONE)
            st->slots[i].row = cdc_row_keep(st->slots[i].row, st->type, &fresh);
    cdc_arena_free(&st->arena);
    st->arena = fresh;
    st->arena_live = fresh.total;
}

cdc_norm_state_t *cdc_norm_new(const cdc_type_t *type)
{
    cdc_norm_state_t *st = cdc_xcalloc(1, sizeof(*st));
    cdc_arena_init(&st->arena);
    st->type = type;
    return st;
}

void cdc_norm_destroy(cdc_norm_state_t *st)
{
    if (!st)
        return;
    for (size_t i = 0; i < st->cap; i++)
        if (st->slots[i].key && st->slots[i].key != TOMBSTONE)
            free(st->slots[i].key);
    free(st->slots);
    cdc_arena_free(&st->arena);
    cdc_buf_free(&st->key);
    free(st);
}

static bool rows_equal(const cdc_row_t *a, const cdc_row_t *b, const cdc_type_t *t)
{
    cdc_buf_t x = {0}, y = {0};
    cdc_row_t ra = *a, rb = *b;
    ra.kind = rb.kind = CDC_INSERT;
    cdc_row_print(&x, &ra, t);
    cdc_row_print(&y, &rb, t);
    bool eq = x.len == y.len && memcmp(x.data, y.data, x.len) == 0;
    cdc_buf_free(&x);
    cdc_buf_free(&y);
    return eq;
}

int cdc_norm_row(cdc_pipe_t *p, const cdc_row_t *row, cdc_arena_t *arena, cdc_row_t **outs)
{
    cdc_norm_state_t *st = p->norm;
    cdc_row_key_bytes(row, p->norm_key, p->nnorm_key, p->table_type, &st->key);
    int n = 0;
    if (row->kind == CDC_INSERT || row->kind == CDC_UPDATE_AFTER) {
        norm_entry_t *e = norm_find(st, st->key.data, st->key.len, true);
        if (e->key && e->key != TOMBSTONE) {
            if (rows_equal(e->row, row, p->table_type))
                return 0;
            cdc_row_t *old = cdc_row_keep(e->row, p->table_type, arena);
            old->kind = CDC_UPDATE_BEFORE;
            outs[n++] = old;
            e->row = cdc_row_keep(row, p->table_type, &st->arena);
            cdc_row_t *nw = cdc_row_keep(row, p->table_type, arena);
            nw->kind = CDC_UPDATE_AFTER;
            outs[n++] = nw;
        } else {
            if (!e->key)
                st->used++;
            e->key = cdc_xstrndup(st->key.data, st->key.len);
            e->keylen = st->key.len;
            e->row = cdc_row_keep(row, p->table_type, &st->arena);
            st->live++;
            cdc_row_t *nw = cdc_row_keep(row, p->table_type, arena);
            nw->kind = CDC_INSERT;
            outs[n++] = nw;
        }
        st->arena_live += sizeof(cdc_value_t) * row->arity + 64;
    } else if (row->kind == CDC_DELETE) {
        norm_entry_t *e = norm_find(st, st->key.data, st->key.len, false);
        if (!e)
            return 0;
        cdc_row_t *old = cdc_row_keep(e->row, p->table_type, arena);
        old->kind = CDC_DELETE;
        outs[n++] = old;
        free(e->key);
        e->key = TOMBSTONE;
        e->row = NULL;
        st->live--;
    }
    /* -U rows of the input carry nothing the state does not know */
    norm_compact(st);
    return n;
}
