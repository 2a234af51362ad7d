/*
 * cdc_planner.c — planning INSERT INTO ... SELECT: tables and views, the
 * query's expressions, pushdown into the source (partitions, filters,
 * projection, limit, metadata), changelog negotiation (ChangelogNormalize,
 * DropUpdateBefore, rejection with Flink's message), lookup joins (the
 * query rewritten to the joined row, keys split from the other ON
 * conditions), and the per-row steps the runtime runs (cdc_pipe_transform,
 * with per-split lookup handles and caches).
 */
#include "cdc_planner.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cdc_lookup.h"
#include "cdc_value_text.h" /* partition values and literals from their text */

#define MAX_VIEW_DEPTH 8
#define MAX_CONJUNCTS 64

/* Key bytes of a row: the key columns' values in a self-delimiting binary form. */
static void key_bytes(const cdc_row_t *row, const int *key, int nkey, const cdc_type_t *t,
                      cdc_buf_t *out)
{
    cdc_buf_clear(out);
    for (int k = 0; k < nkey; k++) {
        const cdc_value_t *v = &row->values[key[k]];
        if (v->flags & CDC_V_NULL) {
            cdc_buf_putc(out, 0);
            continue;
        }
        cdc_buf_putc(out, 1);
        switch (t->children[key[k]]->root) {
        case CDC_T_CHAR:
        case CDC_T_VARCHAR:
        case CDC_T_BINARY:
        case CDC_T_VARBINARY:
            cdc_buf_append(out, &v->v.s.len, sizeof(v->v.s.len));
            cdc_buf_append(out, v->v.s.ptr, v->v.s.len);
            break;
        case CDC_T_DECIMAL:
            cdc_buf_append(out, &v->v.dec, sizeof(v->v.dec));
            break;
        case CDC_T_TIMESTAMP:
        case CDC_T_TIMESTAMP_LTZ:
            cdc_buf_append(out, &v->v.ts.millis, sizeof(v->v.ts.millis));
            cdc_buf_append(out, &v->v.ts.nanos, sizeof(v->v.ts.nanos));
            break;
        case CDC_T_FLOAT:
            cdc_buf_append(out, &v->v.f, sizeof(v->v.f));
            break;
        case CDC_T_DOUBLE:
            cdc_buf_append(out, &v->v.d, sizeof(v->v.d));
            break;
        case CDC_T_BOOLEAN:
            cdc_buf_putc(out, v->v.b ? 1 : 0);
            break;
        default: /* integers, DATE, TIME */
            cdc_buf_append(out, &v->v.i, sizeof(v->v.i));
            break;
        }
    }
}

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

static uint64_t hash_bytes(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211ull;
    }
    return h;
}

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
            size_t j = hash_bytes(old[i].key, old[i].keylen) & (ncap - 1);
            while (st->slots[j].key)
                j = (j + 1) & (ncap - 1);
            st->slots[j] = old[i];
        }
        free(old);
    }
    if (st->cap == 0)
        return NULL;
    size_t j = hash_bytes(key, len) & (st->cap - 1);
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

static cdc_norm_state_t *norm_new(const cdc_type_t *type)
{
    cdc_norm_state_t *st = cdc_xcalloc(1, sizeof(*st));
    cdc_arena_init(&st->arena);
    st->type = type;
    return st;
}

static void norm_destroy(cdc_norm_state_t *st)
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

/*
 * ChangelogNormalize: turns upserts (and duplicated CDC events) into a proper
 * changelog: +I for a new key, -U/+U for a changed row, nothing for an
 * unchanged one, -D with the full old row for a known key, nothing for an
 * unknown one. Emitted rows are copied into `arena`.
 */
static int normalize_row(cdc_pipe_t *p, const cdc_row_t *row, cdc_arena_t *arena, cdc_row_t **outs)
{
    cdc_norm_state_t *st = p->norm;
    key_bytes(row, p->norm_key, p->nnorm_key, p->table_type, &st->key);
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

/* ---- lookup join ----------------------------------------------------------------- */

struct cdc_lookup_join_s {
    bool left;
    char *dim_name; /* qualified */
    char *dim_path; /* "catalog, database, table" */
    cdc_resolved_t res;
    cdc_table_ctx_t ctx;
    cdc_source_t *src;
    cdc_type_t *dim_type; /* ROW of the dim table's physical columns (rows of a lookup) */
    int nkeys;
    int *key_fields;        /* dim physical column of each key */
    cdc_expr_t **key_exprs; /* probe side of each key, over the table row */
    cdc_type_t *key_type;   /* ROW of the key fields' types (cache key bytes) */
    int *key_idx;           /* 0..nkeys-1 */
    cdc_expr_t **conds;     /* the ON clause's other conjuncts, over the joined row */
    int nconds;
    int nprobe;              /* fields of the table row, first in the joined row */
    cdc_type_t *joined_type; /* table row fields, then the dim fields (renamed if taken) */
    cdc_lookup_opts_t opts;
    char *explain; /* "table=[[..]], joinType=[..], lookup=[..], ..." */
};

struct cdc_pipe_split_s {
    cdc_pipe_t *pipe;
    cdc_lookup_t *lk;
    cdc_lookup_cache_t *cache; /* NULL with lookup.cache = NONE */
    cdc_value_t *keys;
    cdc_buf_t keybuf;
    cdc_batch_t fetched; /* rows of the last lookup */
    cdc_error_t *err;
};

static void lookup_join_free(cdc_lookup_join_t *j)
{
    if (!j)
        return;
    if (j->src)
        j->src->ops->destroy(j->src);
    cdc_resolved_free(&j->res);
    for (int k = 0; j->key_exprs && k < j->nkeys; k++)
        cdc_expr_destroy(j->key_exprs[k]);
    for (int k = 0; k < j->nconds; k++)
        cdc_expr_destroy(j->conds[k]);
    free(j->conds);
    free(j->key_exprs);
    free(j->key_fields);
    free(j->key_idx);
    cdc_type_destroy(j->key_type);
    cdc_type_destroy(j->dim_type);
    cdc_type_destroy(j->joined_type);
    free(j->dim_name);
    free(j->dim_path);
    free(j->explain);
    free(j);
}

int cdc_pipe_split_open(cdc_pipe_t *p, int split, cdc_pipe_split_t **out, cdc_error_t **err)
{
    (void)split;
    cdc_pipe_split_t *ps = cdc_xcalloc(1, sizeof(*ps));
    ps->pipe = p;
    cdc_batch_init(&ps->fetched);
    cdc_lookup_join_t *j = p->join;
    if (j) {
        if (j->src->ops->open_lookup(j->src, j->key_fields, j->nkeys, &ps->lk, err) < 0) {
            cdc_error_add_context(*err, "opening lookups of table \"%s\"", j->dim_name);
            cdc_pipe_split_close(ps);
            return -1;
        }
        ps->keys = cdc_xcalloc((size_t)j->nkeys, sizeof(cdc_value_t));
        if (j->opts.cache)
            ps->cache = cdc_lookup_cache_new(&j->opts, j->dim_type, NULL, NULL);
    }
    *out = ps;
    return 0;
}

cdc_error_t *cdc_pipe_split_take_error(cdc_pipe_split_t *ps)
{
    cdc_error_t *e = ps->err;
    ps->err = NULL;
    return e ? e : cdc_error_new(CDC_ERR_INTERNAL, "a lookup failed without a reason");
}

void cdc_pipe_split_close(cdc_pipe_split_t *ps)
{
    if (!ps)
        return;
    if (ps->lk && ps->lk->ops->close)
        ps->lk->ops->close(ps->lk);
    cdc_lookup_cache_destroy(ps->cache);
    cdc_batch_free(&ps->fetched);
    cdc_buf_free(&ps->keybuf);
    cdc_error_destroy(ps->err);
    free(ps->keys);
    free(ps);
}

/*
 * The dim rows matching the probe row's key: from the cache, else from the
 * source (with retries; then cached). Returns 0 with *rows and *n, 1 when a
 * key is NULL (nothing matches), -1 with a reason in errbuf when a key
 * expression failed, -2 when the lookup failed (ps->err). *cached says the
 * rows live in the cache until the next batch; else only until the next call.
 */
static int lookup_rows(cdc_pipe_split_t *ps, const cdc_row_t *row, cdc_arena_t *arena,
                       const cdc_row_t **rows, uint32_t *n, bool *cached, char *errbuf,
                       size_t errlen)
{
    *cached = false;
    cdc_lookup_join_t *j = ps->pipe->join;
    for (int k = 0; k < j->nkeys; k++) {
        if (cdc_expr_eval(j->key_exprs[k], row, arena, &ps->keys[k], errbuf, errlen) < 0)
            return -1;
        if (ps->keys[k].flags & (CDC_V_NULL | CDC_V_UNCHANGED))
            return 1;
    }
    if (ps->cache) {
        cdc_row_t keyrow = {.arity = (uint32_t)j->nkeys, .values = ps->keys};
        key_bytes(&keyrow, j->key_idx, j->nkeys, j->key_type, &ps->keybuf);
        if (cdc_lookup_cache_get(ps->cache, ps->keybuf.data, ps->keybuf.len, rows, n)) {
            *cached = true;
            return 0;
        }
    }
    if (cdc_lookup_fetch(ps->lk, ps->keys, j->opts.max_retries, &ps->fetched, &ps->err) < 0) {
        cdc_error_add_context(ps->err, "looking up table \"%s\"", j->dim_name);
        return -2;
    }
    *rows = ps->fetched.rows;
    *n = ps->fetched.n;
    if (ps->cache) {
        const cdc_row_t *stored = cdc_lookup_cache_put(ps->cache, ps->keybuf.data, ps->keybuf.len,
                                                       ps->fetched.rows, ps->fetched.n);
        if (stored) {
            *rows = stored;
            *cached = true;
        }
    }
    return 0;
}

/*
 * The joined row: the probe row's fields, then the dim row's, or NULLs. Dim
 * values from the cache are shared (they live until the next batch), others
 * copied.
 */
static cdc_row_t *joined_row(const cdc_lookup_join_t *j, const cdc_row_t *probe,
                             const cdc_row_t *dim, bool cached, cdc_arena_t *arena)
{
    int nd = j->dim_type->nchildren;
    cdc_row_t *row = cdc_row_new_in(arena, (uint32_t)(j->nprobe + nd));
    row->kind = probe->kind;
    row->origin = probe->origin;
    memcpy(row->values, probe->values, sizeof(cdc_value_t) * (size_t)j->nprobe);
    if (dim && cached)
        memcpy(row->values + j->nprobe, dim->values, sizeof(cdc_value_t) * (size_t)nd);
    for (int f = 0; dim && !cached && f < nd; f++)
        cdc_value_keep(arena, j->dim_type->children[f], &dim->values[f],
                       &row->values[j->nprobe + f]);
    return row;
}

/* ---- per-row steps ------------------------------------------------------------- */

static int run_stages(cdc_pipe_t *p, cdc_row_t *row, cdc_arena_t *arena, cdc_row_t **out,
                      char *errbuf, size_t errlen)
{
    cdc_row_t *cur = row;
    for (int s = 0; s < p->nstages; s++) {
        cdc_stage_t *st = &p->stages[s];
        if (st->where) {
            bool keep = false;
            if (cdc_expr_eval_predicate(st->where, cur, arena, &keep, errbuf, errlen) < 0)
                return -1;
            if (!keep)
                return 0;
        }
        cdc_row_t *next = cdc_row_new_in(arena, (uint32_t)st->nitems);
        next->kind = cur->kind;
        next->origin = cur->origin;
        for (int i = 0; i < st->nitems; i++)
            if (cdc_expr_eval(st->items[i], cur, arena, &next->values[i], errbuf, errlen) < 0)
                return -1;
        cur = next;
    }
    *out = cur;
    return 1;
}

/* A value of the whole-column scan row from the fields a nested projection produced. */
static void nest_build(const cdc_nest_t *n, const cdc_row_t *scan, cdc_arena_t *arena,
                       cdc_value_t *out)
{
    if (n->scan >= 0) {
        *out = scan->values[n->scan];
        return;
    }
    if (!n->fields) {
        out->flags = CDC_V_NULL;
        return;
    }
    cdc_row_t *row = cdc_row_new_in(arena, (uint32_t)n->nfields);
    for (int i = 0; i < n->nfields; i++)
        nest_build(&n->fields[i], scan, arena, &row->values[i]);
    out->flags = 0;
    out->v.row = row;
}

static void nest_free(cdc_nest_t *n)
{
    if (!n || !n->fields)
        return;
    for (int i = 0; i < n->nfields; i++)
        nest_free(&n->fields[i]);
    free(n->fields);
}

/* Runs the Calc stages on one row and appends what comes out. Returns 0 or -1 (errbuf). */
static int emit_row(cdc_pipe_t *p, cdc_row_t *row, cdc_batch_t *out, char *errbuf, size_t errlen)
{
    cdc_row_t *res = NULL;
    int rc = run_stages(p, row, &out->arena, &res, errbuf, errlen);
    if (rc <= 0)
        return rc;
    if (p->drop_update_before && res->kind == CDC_UPDATE_BEFORE)
        return 0;
    cdc_row_t *dst = cdc_batch_add(out, res->kind, 0);
    dst->arity = res->arity;
    dst->values = res->values;
    dst->origin = res->origin;
    return 0;
}

/*
 * The lookup join of one row, each joined row passed on to the stages: the
 * dim rows matching its key and the ON clause's other conjuncts, or for a
 * LEFT JOIN without any, the row with NULL dim fields. Returns 0, -1 (errbuf)
 * or -2 (ps->err).
 */
static int join_row(cdc_pipe_t *p, cdc_pipe_split_t *ps, cdc_row_t *row, cdc_batch_t *out,
                    char *errbuf, size_t errlen)
{
    cdc_lookup_join_t *j = p->join;
    const cdc_row_t *rows = NULL;
    uint32_t n = 0;
    bool cached = false;
    int rc = lookup_rows(ps, row, &out->arena, &rows, &n, &cached, errbuf, errlen);
    if (rc < 0)
        return rc;
    bool matched = false;
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        cdc_row_t *jr = joined_row(j, row, &rows[i], cached, &out->arena);
        bool keep = true;
        for (int c = 0; c < j->nconds && keep; c++)
            if (cdc_expr_eval_predicate(j->conds[c], jr, &out->arena, &keep, errbuf, errlen) < 0)
                return -1;
        if (!keep)
            continue;
        matched = true;
        if (emit_row(p, jr, out, errbuf, errlen) < 0)
            return -1;
    }
    if (!matched && j->left)
        return emit_row(p, joined_row(j, row, NULL, false, &out->arena), out, errbuf, errlen);
    return 0;
}

static void now_ts(cdc_ts_t *ts)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    ts->millis = (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
    ts->nanos = 0;
}

int cdc_pipe_transform(cdc_pipe_t *p, cdc_pipe_split_t *ps, cdc_batch_t *in, cdc_batch_t *out,
                       uint64_t *skipped, char *errbuf, size_t errlen)
{
    if (ps && ps->cache) /* the previous batch was written: entries dropped since can go */
        cdc_lookup_cache_release(ps->cache);
    for (uint32_t r = 0; r < in->n; r++) {
        cdc_row_t *row = &in->rows[r];
        if (p->whole_nest) {
            /* nested projection: ROW columns rebuilt from their leaves, unprojected fields NULL */
            int nw = p->whole_type->nchildren;
            cdc_row_t *whole = cdc_row_new_in(&out->arena, (uint32_t)nw);
            whole->kind = row->kind;
            whole->origin = row->origin;
            for (int f = 0; f < nw; f++)
                nest_build(&p->whole_nest[f], row, &out->arena, &whole->values[f]);
            row = whole;
        }
        cdc_row_t *trow = row;
        if (!p->identity_table) {
            trow = cdc_row_new_in(&out->arena, (uint32_t)p->table_type->nchildren);
            trow->kind = row->kind;
            trow->origin = row->origin;
            for (int c = 0; c < p->table_type->nchildren; c++) {
                if (p->col_scan[c] >= 0) {
                    trow->values[c] = row->values[p->col_scan[c]];
                } else if (p->col_expr[c]) {
                    if (cdc_expr_eval(p->col_expr[c], row, &out->arena, &trow->values[c], errbuf,
                                      errlen) < 0)
                        goto bad_row;
                } else if (p->col_proctime && p->col_proctime[c]) {
                    trow->values[c].flags = 0;
                    now_ts(&trow->values[c].v.ts);
                }
            }
        }
        cdc_row_t *norm_out[2] = {trow, NULL};
        int nnorm = 1;
        if (p->normalize) {
            pthread_mutex_lock(&p->norm_lock);
            nnorm = normalize_row(p, trow, &out->arena, norm_out);
            pthread_mutex_unlock(&p->norm_lock);
        }
        for (int k = 0; k < nnorm; k++) {
            uint32_t before = out->n;
            int rc = p->join ? join_row(p, ps, norm_out[k], out, errbuf, errlen)
                             : emit_row(p, norm_out[k], out, errbuf, errlen);
            if (rc == -2)
                return -2;
            if (rc < 0) {
                cdc_batch_truncate(out, out->n - before);
                goto bad_row;
            }
        }
        continue;
    bad_row:
        if (!p->skip_bad_rows) {
            char reason[512];
            snprintf(reason, sizeof(reason), "%s", errbuf);
            cdc_buf_t shown = {0};
            cdc_row_print(&shown, &in->rows[r], p->src->produced);
            snprintf(errbuf, errlen, "%s, in row %s", reason, cdc_buf_cstr(&shown));
            cdc_buf_free(&shown);
            return -1;
        }
        (*skipped)++;
    }
    return 0;
}

/* ---- plan ---------------------------------------------------------------------- */

void cdc_pipe_destroy(cdc_pipe_t *p)
{
    if (!p)
        return;
    if (p->src)
        p->src->ops->destroy(p->src);
    if (p->sink)
        p->sink->ops->destroy(p->sink);
    cdc_resolved_free(&p->src_res);
    cdc_resolved_free(&p->sink_res);
    if (p->table_type) {
        for (int c = 0; c < p->table_type->nchildren; c++)
            cdc_expr_destroy(p->col_expr[c]);
    }
    cdc_type_destroy(p->table_type);
    if (p->whole_nest) {
        for (int f = 0; f < p->whole_type->nchildren; f++)
            nest_free(&p->whole_nest[f]);
        free(p->whole_nest);
    }
    cdc_type_destroy(p->whole_type);
    free(p->col_scan);
    free(p->col_expr);
    free(p->col_proctime);
    lookup_join_free(p->join);
    for (int s = 0; s < p->nstages; s++) {
        for (int i = 0; i < p->stages[s].nitems; i++)
            cdc_expr_destroy(p->stages[s].items[i]);
        free(p->stages[s].items);
        cdc_expr_destroy(p->stages[s].where);
        cdc_type_destroy(p->stages[s].out_type);
        free(p->stages[s].explain);
    }
    free(p->stages);
    norm_destroy(p->norm);
    if (p->normalize)
        pthread_mutex_destroy(&p->norm_lock);
    free(p->norm_key);
    free(p->source_name);
    free(p->source_path);
    free(p->sink_name);
    free(p->proj_text);
    free(p->pushed_filters);
    free(p->pushed_partitions);
    free(p->pushed_metadata);
    if (p->result_def) {
        cdc_table_def_t *rd = p->result_def;
        free(rd->catalog);
        free(rd->database);
        free(rd->name);
        free(rd->qualified);
        cdc_type_destroy(rd->schema);
        cdc_kv_free(&rd->options);
        free(rd);
    }
    free(p);
}

/* True when a query column of type `from` may be written to a sink column of type `to`. */
static bool assignable(const cdc_type_t *from, const cdc_type_t *to)
{
    if (cdc_type_is_integer(from) && cdc_type_is_integer(to))
        return from->root <= to->root; /* widening only */
    if (from->root != to->root)
        return false;
    switch (from->root) {
    case CDC_T_DECIMAL:
        return from->scale == to->scale && from->precision <= to->precision;
    case CDC_T_TIME:
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ:
        return from->precision <= to->precision;
    case CDC_T_ARRAY:
    case CDC_T_MAP:
    case CDC_T_ROW:
        if (from->nchildren != to->nchildren)
            return false;
        for (int i = 0; i < from->nchildren; i++)
            if (!assignable(from->children[i], to->children[i]))
                return false;
        return true;
    default:
        return true; /* CHAR/VARCHAR/BINARY lengths are not enforced */
    }
}

static void kinds_text(cdc_changelog_mode_t missing, cdc_buf_t *out)
{
    bool upd = (missing & (CDC_MODE_BIT(CDC_UPDATE_BEFORE) | CDC_MODE_BIT(CDC_UPDATE_AFTER))) != 0;
    bool del = (missing & CDC_MODE_BIT(CDC_DELETE)) != 0;
    if (upd && del)
        cdc_buf_puts(out, "update and delete");
    else if (upd)
        cdc_buf_puts(out, "update");
    else if (del)
        cdc_buf_puts(out, "delete");
    else
        cdc_buf_puts(out, "insert");
}

static void scan_node(const cdc_pipe_t *p, cdc_buf_t *out, bool with_mode)
{
    char mode[16];
    const cdc_type_t *prod = p->src->produced;
    cdc_buf_printf(out, "TableSourceScan(table=[[%s]], fields=[", p->source_path);
    for (int i = 0; i < prod->nchildren; i++)
        cdc_buf_printf(out, "%s%s", i ? ", " : "", prod->names[i]);
    cdc_buf_putc(out, ']');
    if (with_mode)
        cdc_buf_printf(out, ", changelogMode=%s", cdc_changelog_mode_str(p->scan_mode, mode));
    if (p->pushed_partitions)
        cdc_buf_printf(out, ", partitions=%s", p->pushed_partitions);
    if (p->pushed_filters)
        cdc_buf_printf(out, ", filter=%s", p->pushed_filters);
    if (p->proj_text)
        cdc_buf_printf(out, ", project=%s", p->proj_text);
    if (p->limit_pushed)
        cdc_buf_printf(out, ", limit=%lld", (long long)p->limit);
    if (p->pushed_metadata)
        cdc_buf_printf(out, ", metadata=%s", p->pushed_metadata);
    if (with_mode && p->row_count >= 0)
        cdc_buf_printf(out, ", rowCount=%lld", (long long)p->row_count);
    cdc_buf_putc(out, ')');
}

void cdc_pipe_explain(const cdc_pipe_t *p, cdc_buf_t *out)
{
    char mode[16];
    int depth = 0;
#define INDENT()                                                                                   \
    do {                                                                                           \
        for (int d_ = 1; d_ < depth; d_++)                                                         \
            cdc_buf_puts(out, "   ");                                                              \
        if (depth)                                                                                 \
            cdc_buf_puts(out, "+- ");                                                              \
        depth++;                                                                                   \
    } while (0)
    INDENT();
    cdc_buf_printf(out, "Sink(table=[%s], fields=[", p->sink_name);
    for (int i = 0; i < p->sink_schema->nchildren; i++)
        cdc_buf_printf(out, "%s%s", i ? ", " : "", p->sink_schema->names[i]);
    cdc_buf_printf(out, "], changelogMode=%s, parallelism=%d)\n",
                   cdc_changelog_mode_str(p->mode, mode), p->parallelism);
    if (p->limit >= 0 && !p->limit_pushed) {
        INDENT();
        cdc_buf_printf(out, "Limit(fetch=%lld, changelogMode=%s)\n", (long long)p->limit,
                       cdc_changelog_mode_str(p->mode, mode));
    }
    if (p->drop_update_before) {
        INDENT();
        cdc_buf_printf(out, "DropUpdateBefore(changelogMode=%s)\n",
                       cdc_changelog_mode_str(p->mode, mode));
    }
    cdc_changelog_mode_t mid = p->normalize ? CDC_MODE_ALL : p->scan_mode;
    for (int s = p->nstages - 1; s >= 0; s--) {
        INDENT();
        cdc_buf_printf(out, "Calc(%s, changelogMode=%s)\n", p->stages[s].explain,
                       cdc_changelog_mode_str(mid, mode));
    }
    if (p->join) {
        INDENT();
        cdc_buf_printf(out, "LookupJoin(%s, changelogMode=%s)\n", p->join->explain,
                       cdc_changelog_mode_str(mid, mode));
    }
    if (p->normalize) {
        INDENT();
        cdc_buf_puts(out, "ChangelogNormalize(key=[");
        for (int k = 0; k < p->nnorm_key; k++)
            cdc_buf_printf(out, "%s%s", k ? ", " : "", p->table_type->names[p->norm_key[k]]);
        cdc_buf_printf(out, "], changelogMode=%s)\n", cdc_changelog_mode_str(mid, mode));
    }
    if (!p->identity_table) {
        INDENT();
        cdc_buf_puts(out, "TableRow(columns=[");
        for (int c = 0; c < p->table_type->nchildren; c++) {
            cdc_buf_printf(out, "%s%s", c ? ", " : "", p->table_type->names[c]);
        }
        cdc_buf_printf(out, "], changelogMode=%s)\n", cdc_changelog_mode_str(p->scan_mode, mode));
    }
    INDENT();
    scan_node(p, out, true);
    cdc_buf_putc(out, '\n');
#undef INDENT
}

static int build_ctx(const cdc_table_def_t *def, cdc_resolved_t *res, cdc_table_ctx_t *ctx,
                     int parallelism, cdc_error_t **err)
{
    if (cdc_resolve_options(&def->options, def->qualified, res, err) < 0) {
        cdc_error_add_context(*err, "CREATE TABLE at %s:%d:%d",
                              def->origin ? def->origin : "<input>", def->line, def->col);
        return -1;
    }
    *ctx = (cdc_table_ctx_t){.name = def->qualified,
                             .schema = def->schema,
                             .pk = def->pk,
                             .npk = def->npk,
                             .cfg = res->cfg,
                             .formats = res->formats,
                             .nformats = res->nformats,
                             .parallelism = parallelism,
                             .partition_keys = def->partition_keys,
                             .npartition_keys = def->npartition_keys};
    return 0;
}

static const cdc_udf_def_t *udf_lookup(void *ctx, const char *name)
{
    return cdc_catalog_lookup_function((cdc_catalog_t *)ctx, name);
}

/* One query level: the INSERT's query, or a view's, with where its text lives. */
typedef struct level {
    const cdc_sql_query_t *q;
    const char *text;
    size_t len;
    const char *filename; /* owned when `owned_name` */
    bool owned_name;
    const cdc_view_def_t *view; /* the view whose query this is, NULL for the INSERT's */
} level_t;

/* Name of a column reference: "t.a" -> "a" when t names the relation; "a.b" -> "a". */
static const char *ref_name(const cdc_sql_expr_t *e, const char *const *quals, int nquals)
{
    if (e->column.nparts >= 2) {
        for (int q = 0; q < nquals; q++)
            if (quals[q] && strcmp(quals[q], e->column.parts[0]) == 0)
                return e->column.parts[1];
    }
    return e->column.parts[0];
}

/* Calls fn for every column reference (and `*`) in an expression. */
static void walk_columns(const cdc_sql_expr_t *e, void (*fn)(const cdc_sql_expr_t *ref, void *ctx),
                         void *ctx)
{
    if (!e)
        return;
    switch (e->kind) {
    case CDC_SQL_EXPR_COLUMN:
    case CDC_SQL_EXPR_STAR:
        fn(e, ctx);
        break;
    case CDC_SQL_EXPR_UNARY:
        walk_columns(e->unary.operand, fn, ctx);
        break;
    case CDC_SQL_EXPR_BINARY:
        walk_columns(e->binary.left, fn, ctx);
        walk_columns(e->binary.right, fn, ctx);
        break;
    case CDC_SQL_EXPR_CALL:
        for (size_t i = 0; i < e->call.nargs; i++)
            walk_columns(e->call.args[i], fn, ctx);
        break;
    case CDC_SQL_EXPR_CAST:
        walk_columns(e->cast.operand, fn, ctx);
        break;
    case CDC_SQL_EXPR_CASE:
        walk_columns(e->case_expr.operand, fn, ctx);
        for (size_t i = 0; i < e->case_expr.nwhens; i++) {
            walk_columns(e->case_expr.whens[i].when, fn, ctx);
            walk_columns(e->case_expr.whens[i].then, fn, ctx);
        }
        walk_columns(e->case_expr.else_expr, fn, ctx);
        break;
    case CDC_SQL_EXPR_IN:
        walk_columns(e->in_list.operand, fn, ctx);
        for (size_t i = 0; i < e->in_list.nitems; i++)
            walk_columns(e->in_list.items[i], fn, ctx);
        break;
    case CDC_SQL_EXPR_BETWEEN:
        walk_columns(e->between.operand, fn, ctx);
        walk_columns(e->between.low, fn, ctx);
        walk_columns(e->between.high, fn, ctx);
        break;
    case CDC_SQL_EXPR_LIKE:
        walk_columns(e->like.operand, fn, ctx);
        walk_columns(e->like.pattern, fn, ctx);
        walk_columns(e->like.escape, fn, ctx);
        break;
    case CDC_SQL_EXPR_IS_NULL:
        walk_columns(e->is_null.operand, fn, ctx);
        break;
    case CDC_SQL_EXPR_SUBSCRIPT:
        walk_columns(e->subscript.base, fn, ctx);
        walk_columns(e->subscript.index, fn, ctx);
        break;
    default:
        break;
    }
}

typedef struct mark_ctx {
    const cdc_type_t *row_type;
    const char *const *quals;
    int nquals;
    bool *need;
} mark_ctx_t;

static void mark_ref(const cdc_sql_expr_t *e, void *ctx)
{
    mark_ctx_t *m = ctx;
    if (e->kind == CDC_SQL_EXPR_STAR) {
        for (int i = 0; i < m->row_type->nchildren; i++)
            m->need[i] = true;
        return;
    }
    int idx = cdc_type_field_index(m->row_type, ref_name(e, m->quals, m->nquals));
    if (idx >= 0)
        m->need[idx] = true;
}

/* Marks in `need` (per field of row_type) every column an expression may read. */
static void mark_refs(const cdc_sql_expr_t *e, const cdc_type_t *row_type, const char *const *quals,
                      int nquals, bool *need)
{
    mark_ctx_t m = {.row_type = row_type, .quals = quals, .nquals = nquals, .need = need};
    walk_columns(e, mark_ref, &m);
}

/*
 * Access paths of column references, for nested projection: `r.a.b` (after a
 * table qualifier, resolved as the expression compiler does) is the path
 * {r, a, b} as long as the parts name fields of nested ROWs; a bare `r`, or
 * `*`, is the whole column (depth 1). Paths index the table row's columns.
 */
typedef struct path_ctx {
    const cdc_type_t *row_type;
    const char *const *quals;
    int nquals;
    cdc_field_path_t *paths;
    int n, cap;
} path_ctx_t;

static void path_add(path_ctx_t *pc, const cdc_field_path_t *fp)
{
    if (pc->n == pc->cap) {
        pc->cap = pc->cap ? pc->cap * 2 : 16;
        pc->paths = cdc_xrealloc(pc->paths, sizeof(*pc->paths) * (size_t)pc->cap);
    }
    pc->paths[pc->n++] = *fp;
}

static void path_ref(const cdc_sql_expr_t *e, void *ctx)
{
    path_ctx_t *pc = ctx;
    const cdc_type_t *row = pc->row_type;
    if (e->kind == CDC_SQL_EXPR_STAR) {
        for (int i = 0; i < row->nchildren; i++)
            path_add(pc, &(cdc_field_path_t){.depth = 1, .idx = {i}});
        return;
    }
    char *const *parts = e->column.parts;
    size_t nparts = e->column.nparts, first = 0;
    int idx = cdc_type_field_index(row, parts[0]);
    bool qualified = false;
    for (int q = 0; nparts >= 2 && q < pc->nquals; q++)
        qualified = qualified || (pc->quals[q] && strcmp(pc->quals[q], parts[0]) == 0);
    if (qualified) {
        int q = cdc_type_field_index(row, parts[1]);
        if (q >= 0 || idx < 0) {
            first = 1;
            idx = q;
        }
    }
    if (idx < 0)
        return;
    cdc_field_path_t fp = {.depth = 1, .idx = {idx}};
    const cdc_type_t *t = row->children[idx];
    for (size_t k = first + 1; k < nparts && fp.depth < CDC_FIELD_PATH_MAX; k++) {
        int fi = t->root == CDC_T_ROW ? cdc_type_field_index(t, parts[k]) : -1;
        if (fi < 0)
            break; /* not a nested field: the compiler reports it; the prefix is needed */
        fp.idx[fp.depth++] = fi;
        t = t->children[fi];
    }
    path_add(pc, &fp);
}

/* True when path a is a prefix of (or equal to) path b. */
static bool path_covers(const cdc_field_path_t *a, const cdc_field_path_t *b)
{
    if (a->depth > b->depth)
        return false;
    for (int d = 0; d < a->depth; d++)
        if (a->idx[d] != b->idx[d])
            return false;
    return true;
}

static int path_cmp(const void *x, const void *y)
{
    const cdc_field_path_t *a = x, *b = y;
    for (int d = 0; d < a->depth && d < b->depth; d++)
        if (a->idx[d] != b->idx[d])
            return a->idx[d] < b->idx[d] ? -1 : 1;
    return a->depth - b->depth;
}

/* Compiles one query level against `in_type` into a stage. */
static int compile_stage(const cdc_plan_env_t *penv, const level_t *lv, const cdc_type_t *in_type,
                         const char *rel_name, cdc_stage_t *st, cdc_error_t **err)
{
    const cdc_sql_query_t *q = lv->q;
    const char *quals[2] = {rel_name, q->from.alias};
    cdc_expr_env_t env = {.row_type = in_type,
                          .qualifiers = quals,
                          .nqualifiers = q->from.alias ? 2 : 1,
                          .udf_lookup = udf_lookup,
                          .udf_ctx = penv->cat,
                          .text = lv->text,
                          .len = lv->len,
                          .filename = lv->filename};
    cdc_buf_t ex = {0};
    cdc_buf_puts(&ex, "select=[");
    st->out_type = cdc_type_new_row();
    st->out_type->nullable = false;
    int cap = 8;
    st->items = cdc_xcalloc((size_t)cap, sizeof(*st->items));
    for (size_t i = 0; i < q->nitems; i++) {
        const cdc_sql_select_item_t *it = &q->items[i];
        if (it->expr->kind == CDC_SQL_EXPR_STAR) {
            for (int c = 0; c < in_type->nchildren; c++) {
                cdc_sql_expr_t ref = {
                    .kind = CDC_SQL_EXPR_COLUMN, .line = it->expr->line, .col = it->expr->col};
                char *parts[1] = {in_type->names[c]};
                ref.column.parts = parts;
                ref.column.nparts = 1;
                if (st->nitems == cap) {
                    cap *= 2;
                    st->items = cdc_xrealloc(st->items, sizeof(*st->items) * (size_t)cap);
                }
                if (cdc_expr_compile(&ref, &env, &st->items[st->nitems], err) < 0)
                    goto fail;
                cdc_type_row_add(st->out_type, in_type->names[c],
                                 cdc_type_copy(cdc_expr_type(st->items[st->nitems])));
                cdc_buf_printf(&ex, "%s%s", st->nitems ? ", " : "", in_type->names[c]);
                st->nitems++;
            }
            continue;
        }
        if (st->nitems == cap) {
            cap *= 2;
            st->items = cdc_xrealloc(st->items, sizeof(*st->items) * (size_t)cap);
        }
        if (cdc_expr_compile(it->expr, &env, &st->items[st->nitems], err) < 0)
            goto fail;
        char *text = cdc_sql_expr_to_string(it->expr);
        char fallback[32];
        const char *name = it->alias;
        if (!name && it->expr->kind == CDC_SQL_EXPR_COLUMN)
            name = it->expr->column.parts[it->expr->column.nparts - 1];
        if (!name) {
            snprintf(fallback, sizeof(fallback), "EXPR$%d", st->nitems);
            name = fallback;
        }
        if (cdc_type_field_index(st->out_type, name) >= 0) {
            *err = cdc_expr_error_at(&env, it->expr->line, it->expr->col,
                                     "column \"%s\" appears twice in the select list; give it "
                                     "an alias",
                                     name);
            free(text);
            goto fail;
        }
        cdc_type_row_add(st->out_type, name, cdc_type_copy(cdc_expr_type(st->items[st->nitems])));
        if (it->alias)
            cdc_buf_printf(&ex, "%s%s AS %s", st->nitems ? ", " : "", text, it->alias);
        else
            cdc_buf_printf(&ex, "%s%s", st->nitems ? ", " : "", text);
        free(text);
        st->nitems++;
    }
    cdc_buf_putc(&ex, ']');
    if (q->where) {
        if (cdc_expr_compile(q->where, &env, &st->where, err) < 0)
            goto fail;
        if (cdc_expr_require_boolean(st->where, q->where, &env, "WHERE", err) < 0)
            goto fail;
        char *text = cdc_sql_expr_to_string(q->where);
        cdc_buf_printf(&ex, ", where=[%s]", text);
        free(text);
    }
    /* a view's declared column list renames its output */
    if (lv->view && lv->view->ncolumns > 0) {
        if (lv->view->ncolumns != st->nitems) {
            *err =
                cdc_error_new(CDC_ERR_SQL, "view \"%s\" declares %d columns but its query has %d",
                              lv->view->qualified, lv->view->ncolumns, st->nitems);
            goto fail;
        }
        for (int i = 0; i < st->nitems; i++) {
            free(st->out_type->names[i]);
            st->out_type->names[i] = cdc_xstrdup(lv->view->columns[i]);
        }
    }
    st->explain = cdc_xstrdup(cdc_buf_cstr(&ex));
    cdc_buf_free(&ex);
    return 0;
fail:
    cdc_buf_free(&ex);
    return -1;
}

/* A WHERE conjunct as a pushable filter: `col op literal`, `literal op col`, `col IS [NOT] NULL`.
 */
static bool as_filter(const cdc_sql_expr_t *c, const cdc_table_def_t *def, const char *rel,
                      const char *alias, cdc_arena_t *arena, cdc_filter_t *f)
{
    const char *quals[2] = {rel, alias};
    const cdc_type_t *schema = def->schema;
    if (c->kind == CDC_SQL_EXPR_IS_NULL) {
        const cdc_sql_expr_t *o = c->is_null.operand;
        if (o->kind != CDC_SQL_EXPR_COLUMN)
            return false;
        int idx = cdc_type_field_index(schema, ref_name(o, quals, alias ? 2 : 1));
        if (idx < 0)
            return false;
        f->field = idx;
        f->op = c->is_null.negated ? CDC_FILTER_IS_NOT_NULL : CDC_FILTER_IS_NULL;
        return true;
    }
    if (c->kind != CDC_SQL_EXPR_BINARY)
        return false;
    static const struct {
        cdc_sql_binary_op_t sql;
        cdc_filter_op_t op, flipped;
    } ops[] = {
        {CDC_SQL_BINARY_EQ, CDC_FILTER_EQ, CDC_FILTER_EQ},
        {CDC_SQL_BINARY_NE, CDC_FILTER_NE, CDC_FILTER_NE},
        {CDC_SQL_BINARY_LT, CDC_FILTER_LT, CDC_FILTER_GT},
        {CDC_SQL_BINARY_LE, CDC_FILTER_LE, CDC_FILTER_GE},
        {CDC_SQL_BINARY_GT, CDC_FILTER_GT, CDC_FILTER_LT},
        {CDC_SQL_BINARY_GE, CDC_FILTER_GE, CDC_FILTER_LE},
    };
    int k = -1;
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (ops[i].sql == c->binary.op)
            k = (int)i;
    if (k < 0)
        return false;
    const cdc_sql_expr_t *col = c->binary.left, *lit = c->binary.right;
    bool flip = false;
    if (col->kind != CDC_SQL_EXPR_COLUMN) {
        col = c->binary.right;
        lit = c->binary.left;
        flip = true;
    }
    if (col->kind != CDC_SQL_EXPR_COLUMN || lit->kind != CDC_SQL_EXPR_LITERAL)
        return false;
    int idx = cdc_type_field_index(schema, ref_name(col, quals, alias ? 2 : 1));
    if (idx < 0)
        return false;
    const cdc_type_t *t = schema->children[idx];
    if (t->root == CDC_T_ARRAY || t->root == CDC_T_MAP || t->root == CDC_T_ROW)
        return false;
    /* the literal as a value of the column's type, through its text */
    const cdc_sql_expr_t *l = lit;
    if (l->literal.kind == CDC_SQL_LIT_NULL)
        return false;
    const char *s = l->literal.text;
    cdc_type_t *nullable = cdc_type_copy(t);
    nullable->nullable = true;
    bool is_string = l->literal.kind == CDC_SQL_LIT_STRING;
    bool col_string = t->root == CDC_T_CHAR || t->root == CDC_T_VARCHAR;
    bool ok = is_string == col_string &&
              cdc_value_from_text(nullable, s, strlen(s),
                                  CDC_TEXT_ISO8601 | (is_string ? CDC_TEXT_COPY : CDC_TEXT_NUMBER),
                                  arena, &f->value, NULL) == CDC_TEXT_OK;
    cdc_type_destroy(nullable);
    if (!ok)
        return false;
    f->field = idx;
    f->op = flip ? ops[k].flipped : ops[k].op;
    return true;
}

/* ---- lookup join planning ------------------------------------------------------- */

/* True for a computed column `c AS PROCTIME()`: a processing-time attribute. */
static bool is_proctime(const cdc_sql_expr_t *e)
{
    return e && e->kind == CDC_SQL_EXPR_CALL && e->call.name &&
           strcasecmp(e->call.name, "PROCTIME") == 0 && e->call.nargs == 0;
}

/*
 * Column references of a query with a lookup join, resolved to the joined row
 * (the probe table's columns, then the dim table's, a dim column renamed
 * "k0", "k1", ... when the probe side has its name, as Flink does): "s.k",
 * "d.k" and unambiguous bare names become one-part references to those
 * names; an ambiguous bare name is an error.
 */
typedef struct join_names {
    const cdc_type_t *probe; /* the table row (names) */
    const cdc_type_t *dim;   /* the dim table's physical columns */
    char **dim_names;        /* their names in the joined row */
    const char *pq[2], *dq[2];
    const level_t *lv;
    const char *probe_table, *dim_table; /* qualified, for messages */
    cdc_error_t *err;
} join_names_t;

static bool is_qual(const char *const q[2], const char *name)
{
    return (q[0] && strcmp(q[0], name) == 0) || (q[1] && strcmp(q[1], name) == 0);
}

static void rewrite_ref(const cdc_sql_expr_t *ce, void *ctx)
{
    join_names_t *jn = ctx;
    if (jn->err || ce->kind != CDC_SQL_EXPR_COLUMN)
        return;
    cdc_sql_expr_t *e = (cdc_sql_expr_t *)ce; /* a clone the planner owns */
    char **parts = e->column.parts;
    size_t np = e->column.nparts, first = 0;
    const char *name = NULL;
    bool probe_q = np >= 2 && is_qual(jn->pq, parts[0]);
    bool dim_q = np >= 2 && !probe_q && is_qual(jn->dq, parts[0]);
    if (probe_q || dim_q) {
        first = 1;
        const cdc_type_t *t = probe_q ? jn->probe : jn->dim;
        int idx = cdc_type_field_index(t, parts[1]);
        if (idx < 0) {
            jn->err = cdc_sql_error_at(CDC_ERR_SQL, jn->lv->text, jn->lv->len, jn->lv->filename,
                                       e->line, e->col, "column \"%s\" not found in table \"%s\"",
                                       parts[1], probe_q ? jn->probe_table : jn->dim_table);
            return;
        }
        name = probe_q ? jn->probe->names[idx] : jn->dim_names[idx];
    } else {
        int a = cdc_type_field_index(jn->probe, parts[0]);
        int b = cdc_type_field_index(jn->dim, parts[0]);
        if (a >= 0 && b >= 0) {
            jn->err = cdc_sql_error_at(CDC_ERR_SQL, jn->lv->text, jn->lv->len, jn->lv->filename,
                                       e->line, e->col, "column \"%s\" is ambiguous", parts[0]);
            cdc_error_set_hint(jn->err, "both \"%s\" and \"%s\" have it: qualify it (%s.%s)",
                               jn->probe_table, jn->dim_table, jn->pq[1] ? jn->pq[1] : jn->pq[0],
                               parts[0]);
            return;
        }
        if (a < 0 && b < 0)
            return; /* the expression compiler reports it */
        name = a >= 0 ? jn->probe->names[a] : jn->dim_names[b];
    }
    size_t nn = np - first;
    char **np2 = cdc_xcalloc(nn, sizeof(char *));
    np2[0] = cdc_xstrdup(name);
    for (size_t i = 1; i < nn; i++)
        np2[i] = cdc_xstrdup(parts[first + i]);
    for (size_t i = 0; i < np; i++)
        free(parts[i]);
    free(parts);
    e->column.parts = np2;
    e->column.nparts = nn;
}

static cdc_sql_expr_t *rewrite_expr(const cdc_sql_expr_t *e, join_names_t *jn)
{
    if (!e)
        return NULL;
    cdc_sql_expr_t *c = cdc_sql_expr_clone(e);
    walk_columns(c, rewrite_ref, jn);
    return c;
}

static cdc_sql_expr_t *column_ref(const char *name, int line, int col)
{
    cdc_sql_expr_t *e = cdc_xcalloc(1, sizeof(*e));
    e->kind = CDC_SQL_EXPR_COLUMN;
    e->line = line;
    e->col = col;
    e->column.parts = cdc_xcalloc(1, sizeof(char *));
    e->column.parts[0] = cdc_xstrdup(name);
    e->column.nparts = 1;
    return e;
}

static void rewritten_free(cdc_sql_query_t *q)
{
    if (!q)
        return;
    for (size_t i = 0; i < q->nitems; i++) {
        cdc_sql_expr_destroy(q->items[i].expr);
        free(q->items[i].alias);
    }
    free(q->items);
    cdc_sql_expr_destroy(q->where);
    free(q);
}

/* The output name an item of the rewritten query gets (its alias, or a column's name). */
static const char *item_name(const cdc_sql_select_item_t *it)
{
    if (it->alias)
        return it->alias;
    if (it->expr->kind == CDC_SQL_EXPR_COLUMN)
        return it->expr->column.parts[it->expr->column.nparts - 1];
    return NULL;
}

static bool name_taken(const cdc_sql_query_t *rq, const char *name)
{
    for (size_t i = 0; i < rq->nitems; i++) {
        const char *n = item_name(&rq->items[i]);
        if (n && strcmp(n, name) == 0)
            return true;
    }
    return false;
}

/* The query with every column reference resolved to the joined row; `s.*` / `d.*` expanded. */
static cdc_sql_query_t *rewrite_query(const cdc_sql_query_t *q, join_names_t *jn)
{
    cdc_sql_query_t *rq = cdc_xcalloc(1, sizeof(*rq));
    *rq = *q;
    rq->joins = NULL;
    rq->njoins = 0;
    rq->where = NULL;
    rq->nitems = 0;
    size_t cap = q->nitems + (size_t)jn->probe->nchildren + (size_t)jn->dim->nchildren + 1;
    rq->items = cdc_xcalloc(cap, sizeof(*rq->items));
    const char **was = cdc_xcalloc(cap, sizeof(char *)); /* a column item's name as written */
    for (size_t i = 0; i < q->nitems && !jn->err; i++) {
        const cdc_sql_select_item_t *it = &q->items[i];
        const cdc_sql_expr_t *e = it->expr;
        if (e->kind == CDC_SQL_EXPR_STAR && e->star.qualifier.nparts > 0) {
            const char *qn = e->star.qualifier.parts[e->star.qualifier.nparts - 1];
            bool pq = is_qual(jn->pq, qn), dq = !pq && is_qual(jn->dq, qn);
            if (!pq && !dq) {
                jn->err =
                    cdc_sql_error_at(CDC_ERR_SQL, jn->lv->text, jn->lv->len, jn->lv->filename,
                                     e->line, e->col, "\"%s\" names neither table of the join", qn);
                break;
            }
            const cdc_type_t *t = pq ? jn->probe : jn->dim;
            for (int c = 0; c < t->nchildren; c++)
                rq->items[rq->nitems++].expr =
                    column_ref(pq ? t->names[c] : jn->dim_names[c], e->line, e->col);
            continue;
        }
        cdc_sql_select_item_t *ri = &rq->items[rq->nitems];
        *ri = *it;
        ri->alias = it->alias ? cdc_xstrdup(it->alias) : NULL;
        ri->expr = rewrite_expr(e, jn);
        if (!it->alias && e->kind == CDC_SQL_EXPR_COLUMN && ri->expr->kind == CDC_SQL_EXPR_COLUMN)
            was[rq->nitems] = e->column.parts[e->column.nparts - 1];
        rq->nitems++;
    }
    /* `d.k`, renamed k0 in the joined row, is still named k in the output unless another
       item is */
    for (size_t i = 0; i < rq->nitems && !jn->err; i++)
        if (was[i] && strcmp(item_name(&rq->items[i]), was[i]) != 0 && !name_taken(rq, was[i]))
            rq->items[i].alias = cdc_xstrdup(was[i]);
    free(was);
    rq->where = rewrite_expr(q->where, jn);
    return rq;
}

/* A lookup key's probe value must have the dim column's representation. */
static bool key_compatible(const cdc_type_t *probe, const cdc_type_t *dim)
{
    if (cdc_type_is_integer(probe) && cdc_type_is_integer(dim))
        return true;
    bool ps = probe->root == CDC_T_CHAR || probe->root == CDC_T_VARCHAR;
    bool ds = dim->root == CDC_T_CHAR || dim->root == CDC_T_VARCHAR;
    bool pb = probe->root == CDC_T_BINARY || probe->root == CDC_T_VARBINARY;
    bool db = dim->root == CDC_T_BINARY || dim->root == CDC_T_VARBINARY;
    if (ps || ds)
        return ps && ds;
    if (pb || db)
        return pb && db;
    if (probe->root != dim->root)
        return false;
    if (probe->root == CDC_T_DECIMAL)
        return probe->scale == dim->scale;
    return probe->root != CDC_T_ARRAY && probe->root != CDC_T_MAP && probe->root != CDC_T_ROW;
}

/* Fields of `row_type` an expression reads. */
static void refs_of(const cdc_sql_expr_t *e, const cdc_type_t *row_type, bool *refs)
{
    memset(refs, 0, sizeof(bool) * (size_t)(row_type->nchildren + 1));
    mark_refs(e, row_type, NULL, 0, refs);
}

/*
 * Splits the rewritten ON clause into lookup keys (`d.col = <expression over
 * the probe row>`, each dim column once) and other conditions, and compiles
 * both. Needs the table row's final types.
 */
static int plan_join_condition(const cdc_plan_env_t *penv, const level_t *lv, cdc_lookup_join_t *j,
                               const cdc_type_t *table_type, const cdc_sql_expr_t *on,
                               const cdc_sql_join_t *join, cdc_error_t **err)
{
    const cdc_sql_expr_t *conj[MAX_CONJUNCTS], *orig[MAX_CONJUNCTS];
    size_t nconj = cdc_expr_conjuncts(on, conj, MAX_CONJUNCTS);
    cdc_expr_conjuncts(join->on, orig, MAX_CONJUNCTS); /* the same shape, as written */
    if (nconj > MAX_CONJUNCTS) {
        *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, on->line, on->col,
                                "the join condition has more than %d conjuncts", MAX_CONJUNCTS);
        return -1;
    }
    for (int f = 0; f < j->nprobe; f++) {
        cdc_type_destroy(j->joined_type->children[f]);
        j->joined_type->children[f] = cdc_type_copy(table_type->children[f]);
    }
    const cdc_type_t *jt = j->joined_type;
    bool *refs = cdc_xcalloc((size_t)jt->nchildren + 1, sizeof(bool));
    cdc_expr_env_t penv_probe = {.row_type = table_type,
                                 .udf_lookup = udf_lookup,
                                 .udf_ctx = penv->cat,
                                 .text = lv->text,
                                 .len = lv->len,
                                 .filename = lv->filename};
    cdc_expr_env_t penv_joined = penv_probe;
    penv_joined.row_type = jt;
    j->key_fields = cdc_xcalloc(nconj + 1, sizeof(int));
    j->key_exprs = cdc_xcalloc(nconj + 1, sizeof(cdc_expr_t *));
    j->conds = cdc_xcalloc(nconj + 1, sizeof(cdc_expr_t *));
    cdc_buf_t lookup = {0}, cond = {0};
    int rc = -1;
    for (size_t c = 0; c < nconj; c++) {
        const cdc_sql_expr_t *e = conj[c];
        int dim_field = -1;
        const cdc_sql_expr_t *other = NULL, *other_orig = NULL;
        if (e->kind == CDC_SQL_EXPR_BINARY && e->binary.op == CDC_SQL_BINARY_EQ) {
            for (int side = 0; side < 2 && dim_field < 0; side++) {
                const cdc_sql_expr_t *col = side ? e->binary.right : e->binary.left;
                const cdc_sql_expr_t *oth = side ? e->binary.left : e->binary.right;
                if (col->kind != CDC_SQL_EXPR_COLUMN || col->column.nparts != 1)
                    continue;
                int idx = cdc_type_field_index(jt, col->column.parts[0]);
                if (idx < j->nprobe)
                    continue;
                bool taken = false;
                for (int k = 0; k < j->nkeys; k++)
                    taken = taken || j->key_fields[k] == idx - j->nprobe;
                refs_of(oth, jt, refs);
                bool probe_only = !taken;
                for (int f = j->nprobe; f < jt->nchildren && probe_only; f++)
                    probe_only = !refs[f];
                if (probe_only) {
                    dim_field = idx - j->nprobe;
                    other = oth;
                    other_orig = side ? orig[c]->binary.left : orig[c]->binary.right;
                }
            }
        }
        if (dim_field >= 0) {
            cdc_expr_t *x = NULL;
            if (cdc_expr_compile(other, &penv_probe, &x, err) < 0)
                goto done;
            const cdc_type_t *dt = j->dim_type->children[dim_field];
            if (!key_compatible(cdc_expr_type(x), dt)) {
                char *a = cdc_type_to_string(cdc_expr_type(x)), *b = cdc_type_to_string(dt);
                char *txt = cdc_sql_expr_to_string(other_orig);
                *err =
                    cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, e->line, e->col,
                                     "lookup key \"%s\" of type %s cannot be matched with "
                                     "\"%s\" of type %s",
                                     j->dim_type->names[dim_field], b, txt, a);
                cdc_error_set_hint(*err, "CAST the probe side to %s", b);
                free(a);
                free(b);
                free(txt);
                cdc_expr_destroy(x);
                goto done;
            }
            char *txt = cdc_sql_expr_to_string(other_orig);
            cdc_buf_printf(&lookup, "%s%s=%s", j->nkeys ? ", " : "", j->dim_type->names[dim_field],
                           txt);
            free(txt);
            j->key_fields[j->nkeys] = dim_field;
            j->key_exprs[j->nkeys++] = x;
            continue;
        }
        if (cdc_expr_compile(e, &penv_joined, &j->conds[j->nconds], err) < 0)
            goto done;
        j->nconds++;
        if (cdc_expr_require_boolean(j->conds[j->nconds - 1], e, &penv_joined, "ON", err) < 0)
            goto done;
        char *txt = cdc_sql_expr_to_string(orig[c]);
        cdc_buf_printf(&cond, "%s%s", cond.len ? " AND " : "", txt);
        free(txt);
    }
    if (j->nkeys == 0) {
        *err = cdc_sql_error_at(CDC_ERR_PLAN, lv->text, lv->len, lv->filename, on->line, on->col,
                                "Temporal table join requires an equality condition on fields of "
                                "table [%s].",
                                j->dim_name);
        cdc_error_set_hint(*err, "add `AND %s.<column> = <probe expression>` to the ON clause",
                           join->table.alias ? join->table.alias
                                             : join->table.name.parts[join->table.name.nparts - 1]);
        goto done;
    }
    j->key_type = cdc_type_new_row();
    j->key_idx = cdc_xcalloc((size_t)j->nkeys, sizeof(int));
    for (int k = 0; k < j->nkeys; k++) {
        j->key_idx[k] = k;
        cdc_type_row_add(j->key_type, j->dim_type->names[j->key_fields[k]],
                         cdc_type_copy(j->dim_type->children[j->key_fields[k]]));
    }
    cdc_buf_t ex = {0}, cache = {0};
    cdc_lookup_opts_explain(&j->opts, &cache);
    cdc_buf_printf(&ex, "table=[[%s]], joinType=[%s], lookup=[%s]", j->dim_path,
                   j->left ? "LeftOuterJoin" : "InnerJoin", cdc_buf_cstr(&lookup));
    if (cond.len)
        cdc_buf_printf(&ex, ", joinCondition=[%s]", cdc_buf_cstr(&cond));
    cdc_buf_puts(&ex, ", select=[");
    for (int f = 0; f < jt->nchildren; f++)
        cdc_buf_printf(&ex, "%s%s", f ? ", " : "", jt->names[f]);
    cdc_buf_printf(&ex, "], cache=%s", cdc_buf_cstr(&cache));
    j->explain = cdc_xstrdup(cdc_buf_cstr(&ex));
    cdc_buf_free(&ex);
    cdc_buf_free(&cache);
    rc = 0;
done:
    free(refs);
    cdc_buf_free(&lookup);
    cdc_buf_free(&cond);
    return rc;
}

/*
 * The dim side of a lookup join: its table (not a view, physical columns
 * only), a source that can look up, the joined row's names, the lookup
 * options; then the query, ON clause and FOR SYSTEM_TIME AS OF expression
 * rewritten to the joined row. *rq and *on are new (the caller frees them).
 */
static int plan_join_dim(const cdc_plan_env_t *penv, const level_t *lv,
                         const cdc_table_def_t *src_def, const cdc_type_t *table_type,
                         cdc_lookup_join_t **out, cdc_sql_query_t **rq, cdc_sql_expr_t **on,
                         cdc_error_t **err)
{
    const cdc_sql_join_t *join = &lv->q->joins[0];
    const cdc_table_def_t *dim = NULL;
    const cdc_view_def_t *v = NULL;
    int found = cdc_catalog_find(penv->cat, &join->table.name, &dim, &v, err);
    if (found < 0)
        return -1;
    if (found == 0) { /* the catalog's message, positioned in this level's text */
        if (cdc_catalog_get_table(penv->cat, &join->table.name, lv->text, lv->len, lv->filename,
                                  err))
            *err = cdc_error_new(CDC_ERR_INTERNAL, "the catalog found a table it did not list");
        return -1;
    }
    int nl = join->table.name.line, nc = join->table.name.col;
    if (!dim) {
        *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, nl, nc,
                                "a lookup join needs a table, \"%s\" is a view", v->qualified);
        return -1;
    }
    for (int c = 0; c < dim->ncolumns; c++)
        if (dim->columns[c].kind != CDC_COLUMN_PHYSICAL) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, nl, nc,
                                    "lookup table \"%s\" has computed or metadata column \"%s\": "
                                    "such lookup tables are not supported yet",
                                    dim->qualified, dim->columns[c].name);
            return -1;
        }
    cdc_lookup_join_t *j = cdc_xcalloc(1, sizeof(*j));
    *out = j;
    j->left = join->kind == CDC_SQL_JOIN_LEFT;
    j->dim_name = cdc_xstrdup(dim->qualified);
    j->dim_path = cdc_strdup_printf("%s, %s, %s", dim->catalog, dim->database, dim->name);
    j->dim_type = cdc_type_copy(dim->schema);
    if (build_ctx(dim, &j->res, &j->ctx, penv->parallelism, err) < 0)
        return -1;
    if (!j->res.connector->source_new) {
        *err = cdc_sql_error_at(CDC_ERR_PLAN, lv->text, lv->len, lv->filename, nl, nc,
                                "connector \"%s\" of table \"%s\" cannot be read (it is a sink "
                                "only)",
                                j->res.connector->identifier, dim->qualified);
        return -1;
    }
    if (j->res.connector->source_new(&j->ctx, &j->src, err) < 0) {
        cdc_error_add_context(*err, "table \"%s\"", dim->qualified);
        return -1;
    }
    if (!j->src->ops->open_lookup) {
        *err = cdc_sql_error_at(CDC_ERR_PLAN, lv->text, lv->len, lv->filename, nl, nc,
                                "connector \"%s\" of table \"%s\" does not support lookups",
                                j->res.connector->identifier, dim->qualified);
        cdc_error_set_hint(*err, "use a connector that is a LookupTableSource (jdbc, values)");
        return -1;
    }
    cdc_lookup_opts_read(j->res.cfg, &j->opts);

    /* the joined row's names: a dim column the probe side has is renamed "k0", "k1", ... */
    int nd = dim->schema->nchildren;
    j->nprobe = table_type->nchildren;
    char **dim_names = cdc_xcalloc((size_t)nd + 1, sizeof(char *));
    j->joined_type = cdc_type_new_row();
    j->joined_type->nullable = false;
    for (int f = 0; f < j->nprobe; f++) /* types set again once computed columns are typed */
        cdc_type_row_add(j->joined_type, table_type->names[f],
                         cdc_type_copy(table_type->children[f]));
    for (int f = 0; f < nd; f++) {
        const char *base = dim->schema->names[f];
        char *name = cdc_xstrdup(base);
        for (int k = 0; cdc_type_field_index(j->joined_type, name) >= 0; k++) {
            free(name);
            name = cdc_strdup_printf("%s%d", base, k);
        }
        cdc_type_t *t = cdc_type_copy(dim->schema->children[f]);
        if (j->left)
            t->nullable = true;
        cdc_type_row_add(j->joined_type, name, t);
        free(name);
        dim_names[f] = j->joined_type->names[j->nprobe + f];
    }
    join_names_t jn = {.probe = table_type,
                       .dim = dim->schema,
                       .dim_names = dim_names,
                       .pq = {src_def->name, lv->q->from.alias},
                       .dq = {dim->name, join->table.alias},
                       .lv = lv,
                       .probe_table = src_def->qualified,
                       .dim_table = dim->qualified};
    *rq = rewrite_query(lv->q, &jn);
    *on = rewrite_expr(join->on, &jn);
    cdc_sql_expr_t *st = jn.err ? NULL : rewrite_expr(join->system_time, &jn);
    free(dim_names); /* borrowed from joined_type */
    if (jn.err) {
        *err = jn.err;
        cdc_sql_expr_destroy(st);
        return -1;
    }
    /* FOR SYSTEM_TIME AS OF: the probe table's processing-time attribute */
    int ti = st && st->kind == CDC_SQL_EXPR_COLUMN && st->column.nparts == 1
                 ? cdc_type_field_index(table_type, st->column.parts[0])
                 : -1;
    bool ok = ti >= 0 && ti < src_def->ncolumns &&
              src_def->columns[ti].kind == CDC_COLUMN_COMPUTED &&
              is_proctime(src_def->columns[ti].expr);
    cdc_sql_expr_destroy(st);
    if (!ok) {
        const cdc_sql_expr_t *e = join->system_time;
        *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, e->line, e->col,
                                "Temporal table join currently only supports 'FOR SYSTEM_TIME AS "
                                "OF' left table's time attribute field");
        cdc_error_set_hint(*err,
                           "declare a processing-time column on \"%s\" (`proc_time AS "
                           "PROCTIME()`) and join FOR SYSTEM_TIME AS OF it; event-time "
                           "temporal joins are not supported yet",
                           src_def->qualified);
        return -1;
    }
    return 0;
}

int cdc_plan_insert(const cdc_plan_env_t *penv, const cdc_sql_insert_t *ins, cdc_pipe_t **out,
                    cdc_error_t **err)
{
    cdc_catalog_t *cat = penv->cat;
    const char *text = penv->text;
    size_t len = penv->len;
    const char *filename = penv->filename;
    level_t levels[MAX_VIEW_DEPTH + 1];
    int nlevels = 0;
    cdc_pipe_t *p = NULL;
    cdc_arena_t scratch;
    cdc_arena_init(&scratch);
    bool *need = NULL;
    const cdc_sql_expr_t *conj[MAX_CONJUNCTS];
    cdc_filter_t *filters = NULL;
    char *filter_texts[MAX_CONJUNCTS] = {0};
    path_ctx_t pc = {0};
    cdc_sql_query_t *join_q = NULL; /* the innermost query rewritten to the joined row */
    cdc_sql_expr_t *join_on = NULL; /* its ON clause, rewritten */
    const cdc_sql_join_t *the_join = NULL;

    /* INSERT INTO t, or a bare query whose rows are printed (table name absent) */
    bool result_mode = ins->table.nparts == 0;
    const cdc_table_def_t *sink_def = NULL;
    if (!result_mode) {
        sink_def = cdc_catalog_get_table(cat, &ins->table, text, len, filename, err);
        if (!sink_def)
            return -1;
    }

    /* the chain of queries: the INSERT's, then each view's down to a table */
    levels[nlevels++] = (level_t){.q = ins->query, .text = text, .len = len, .filename = filename};
    const cdc_table_def_t *src_def = NULL;
    for (;;) {
        level_t *lv = &levels[nlevels - 1];
        for (size_t jx = 0; jx < lv->q->njoins; jx++) {
            const cdc_sql_join_t *jn = &lv->q->joins[jx];
            if (!jn->system_time) {
                *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, jn->line,
                                        jn->col, "regular joins are not supported yet");
                cdc_error_set_hint(*err, "a lookup join is: JOIN dim FOR SYSTEM_TIME AS OF "
                                         "s.proc_time AS d ON s.k = d.k, with `proc_time AS "
                                         "PROCTIME()` declared on the probe table");
                goto fail;
            }
            if (jx > 0) {
                *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, jn->line,
                                        jn->col, "only one lookup join per query is supported yet");
                goto fail;
            }
        }
        if (lv->q->distinct) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, lv->q->line,
                                    lv->q->col, "SELECT DISTINCT is not supported yet");
            goto fail;
        }
        if (lv->q->has_limit && nlevels > 1) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, lv->q->limit_line,
                                    lv->q->limit_col, "LIMIT inside a view is not supported yet");
            goto fail;
        }
        const cdc_table_def_t *t = NULL;
        const cdc_view_def_t *v = NULL;
        int found = cdc_catalog_find(cat, &lv->q->from.name, &t, &v, err);
        if (found < 0)
            goto fail;
        if (found == 0) {
            /* reuse the catalog's message, positioned in this level's text */
            if (!cdc_catalog_get_table(cat, &lv->q->from.name, lv->text, lv->len, lv->filename,
                                       err))
                goto fail;
        }
        if (t) {
            src_def = t;
            break;
        }
        if (lv->q->njoins) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename,
                                    lv->q->from.name.line, lv->q->from.name.col,
                                    "the probe side of a lookup join must be a table, \"%s\" is "
                                    "a view",
                                    v->qualified);
            goto fail;
        }
        if (nlevels > MAX_VIEW_DEPTH) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename,
                                    lv->q->from.name.line, lv->q->from.name.col,
                                    "views nest deeper than %d levels", MAX_VIEW_DEPTH);
            goto fail;
        }
        levels[nlevels++] = (level_t){.q = v->query_ast,
                                      .text = v->query,
                                      .len = strlen(v->query),
                                      .filename = cdc_strdup_printf("view %s", v->qualified),
                                      .owned_name = true,
                                      .view = v};
    }
    const level_t *inner = &levels[nlevels - 1];

    if (ins->overwrite || ins->partition.count) {
        /* checked against the sink's abilities below */
    }
    for (int c = 0; sink_def && c < sink_def->ncolumns; c++) {
        if (sink_def->columns[c].kind != CDC_COLUMN_PHYSICAL) {
            *err =
                cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, ins->table.line, ins->table.col,
                                 "table \"%s\" has computed or metadata column \"%s\": "
                                 "writing such tables is not supported yet",
                                 sink_def->qualified, sink_def->columns[c].name);
            goto fail;
        }
    }

    p = cdc_xcalloc(1, sizeof(*p));
    p->limit = ins->query->has_limit ? ins->query->limit : -1;
    p->row_count = -1;
    p->skip_bad_rows = penv->skip_bad_rows;
    p->source_name = cdc_xstrdup(src_def->qualified);
    p->source_path =
        cdc_strdup_printf("%s, %s, %s", src_def->catalog, src_def->database, src_def->name);

    /* build the source and the sink */
    if (build_ctx(src_def, &p->src_res, &p->src_ctx, penv->parallelism, err) < 0)
        goto fail;
    if (cdc_config_declares(p->src_res.cfg, "scan.parallelism") &&
        cdc_config_isset(p->src_res.cfg, "scan.parallelism"))
        p->src_ctx.parallelism = (int)cdc_config_int(p->src_res.cfg, "scan.parallelism");
    if (p->src_ctx.parallelism < 1)
        p->src_ctx.parallelism = 1;
    p->parallelism = p->src_ctx.parallelism;
    if (!p->src_res.connector->source_new) {
        *err = cdc_sql_error_at(CDC_ERR_PLAN, inner->text, inner->len, inner->filename,
                                inner->q->from.name.line, inner->q->from.name.col,
                                "connector \"%s\" of table \"%s\" cannot be read (it is a sink "
                                "only)",
                                p->src_res.connector->identifier, src_def->qualified);
        goto fail;
    }
    if (p->src_res.connector->source_new(&p->src_ctx, &p->src, err) < 0) {
        cdc_error_add_context(*err, "table \"%s\"", src_def->qualified);
        goto fail;
    }
    if (!p->src->ops->open_reader) {
        *err = cdc_sql_error_at(CDC_ERR_PLAN, inner->text, inner->len, inner->filename,
                                inner->q->from.name.line, inner->q->from.name.col,
                                "connector \"%s\" of table \"%s\" cannot be scanned (it is a "
                                "lookup source only)",
                                p->src_res.connector->identifier, src_def->qualified);
        cdc_error_set_hint(*err,
                           "join it as a lookup table: JOIN %s FOR SYSTEM_TIME AS OF "
                           "s.proc_time AS d ON ...",
                           src_def->name);
        goto fail;
    }
    p->scan_mode = p->src->ops->changelog_mode(p->src);

    /* the table row type: every column in declared order */
    int ncols = src_def->ncolumns;
    p->table_type = cdc_type_new_row();
    p->table_type->nullable = false;
    for (int c = 0; c < ncols; c++) {
        const cdc_column_def_t *col = &src_def->columns[c];
        const cdc_type_t *ct =
            col->kind == CDC_COLUMN_PHYSICAL ? src_def->schema->children[col->physical] : col->type;
        if (!ct) { /* computed column whose type the catalog could not derive: compile later */
            ct = NULL;
        }
        cdc_type_row_add(p->table_type, col->name,
                         ct ? cdc_type_copy(ct) : cdc_type_new(CDC_T_VARCHAR));
    }
    p->col_scan = cdc_xcalloc((size_t)ncols + 1, sizeof(int));
    p->col_expr = cdc_xcalloc((size_t)ncols + 1, sizeof(cdc_expr_t *));
    p->col_proctime = cdc_xcalloc((size_t)ncols + 1, sizeof(bool));

    /* a lookup join: the dim side, and the query rewritten to the joined row */
    if (inner->q->njoins) {
        if (plan_join_dim(penv, inner, src_def, p->table_type, &p->join, &join_q, &join_on, err) <
            0)
            goto fail;
        the_join = &inner->q->joins[0];
        levels[nlevels - 1].q = join_q;
    }

    /* columns the innermost query needs, and through computed columns, what those need */
    need = cdc_xcalloc((size_t)ncols + 1, sizeof(bool));
    {
        const char *quals[2] = {src_def->name, inner->q->from.alias};
        for (size_t i = 0; i < inner->q->nitems; i++)
            mark_refs(inner->q->items[i].expr, p->table_type, quals, 2, need);
        mark_refs(inner->q->where, p->table_type, quals, 2, need);
        mark_refs(join_on, p->table_type, NULL, 0, need);
        for (int c = 0; c < ncols; c++)
            if (need[c] && src_def->columns[c].kind == CDC_COLUMN_COMPUTED)
                mark_refs(src_def->columns[c].expr, p->table_type, NULL, 0, need);
    }
    /* the access paths of those references (nested projection) */
    pc.row_type = p->table_type;
    {
        const char *quals[2] = {src_def->name, inner->q->from.alias};
        pc.quals = quals;
        pc.nquals = 2;
        for (size_t i = 0; i < inner->q->nitems; i++)
            walk_columns(inner->q->items[i].expr, path_ref, &pc);
        walk_columns(inner->q->where, path_ref, &pc);
        walk_columns(join_on, path_ref, &pc);
        pc.quals = NULL;
        pc.nquals = 0;
        for (int c = 0; c < ncols; c++)
            if (need[c] && src_def->columns[c].kind == CDC_COLUMN_COMPUTED)
                walk_columns(src_def->columns[c].expr, path_ref, &pc);
    }
    /* primary key columns are needed when the changes are keyed (normalize, upsert sinks) */
    if (p->scan_mode != CDC_MODE_INSERT_ONLY) {
        for (int k = 0; k < src_def->npk; k++)
            for (int c = 0; c < ncols; c++)
                if (src_def->columns[c].kind == CDC_COLUMN_PHYSICAL &&
                    src_def->columns[c].physical == src_def->pk[k])
                    need[c] = true;
    }

    /* partition pushdown: conjuncts over partition columns only, decided per partition */
    size_t nconj = inner->q->where ? cdc_expr_conjuncts(inner->q->where, conj, MAX_CONJUNCTS) : 0;
    if (nconj > MAX_CONJUNCTS)
        nconj = MAX_CONJUNCTS;
    if (src_def->npartition_keys > 0 && p->src->ops->list_partitions &&
        p->src->ops->apply_partitions && nlevels == 1 && nconj > 0) {
        cdc_kv_t *parts = NULL;
        int nparts = 0;
        if (p->src->ops->list_partitions(p->src, &parts, &nparts, err) < 0)
            goto fail;
        const cdc_type_t *phys = src_def->schema;
        cdc_expr_env_t env = {.row_type = phys,
                              .udf_lookup = udf_lookup,
                              .udf_ctx = cat,
                              .text = text,
                              .len = len,
                              .filename = filename};
        cdc_kv_t *kept = cdc_xcalloc((size_t)nparts + 1, sizeof(cdc_kv_t));
        int nkept = 0;
        bool pruned_any = false;
        for (int i = 0; i < nparts; i++) {
            bool keep = true;
            cdc_row_t *row = cdc_row_new_in(&scratch, (uint32_t)phys->nchildren);
            for (int k = 0; k < parts[i].n; k++) {
                int idx = cdc_type_field_index(phys, parts[i].keys[k]);
                if (idx < 0)
                    continue;
                cdc_type_t *nt = cdc_type_copy(phys->children[idx]);
                nt->nullable = true;
                if (cdc_value_from_text(nt, parts[i].values[k], strlen(parts[i].values[k]),
                                        CDC_TEXT_ISO8601 | CDC_TEXT_COPY, &scratch,
                                        &row->values[idx], NULL) != CDC_TEXT_OK)
                    row->values[idx].flags = CDC_V_NULL;
                cdc_type_destroy(nt);
            }
            for (size_t c = 0; c < nconj && keep; c++) {
                bool *refs = cdc_xcalloc((size_t)phys->nchildren + 1, sizeof(bool));
                mark_refs(conj[c], phys, NULL, 0, refs);
                bool only_parts = true, any = false;
                for (int f = 0; f < phys->nchildren; f++) {
                    if (!refs[f])
                        continue;
                    any = true;
                    bool is_part = false;
                    for (int pk = 0; pk < src_def->npartition_keys; pk++)
                        is_part = is_part || src_def->partition_keys[pk] == f;
                    only_parts = only_parts && is_part;
                }
                free(refs);
                if (!any || !only_parts)
                    continue;
                cdc_expr_t *e = NULL;
                cdc_error_t *cerr = NULL;
                if (cdc_expr_compile(conj[c], &env, &e, &cerr) == 0) {
                    bool k2 = true;
                    char eb[128];
                    if (cdc_expr_eval_predicate(e, row, &scratch, &k2, eb, sizeof(eb)) == 0)
                        keep = k2;
                }
                cdc_error_destroy(cerr);
                cdc_expr_destroy(e);
            }
            if (keep)
                cdc_kv_copy(&kept[nkept++], &parts[i]);
            else
                pruned_any = true;
        }
        if (pruned_any) {
            if (p->src->ops->apply_partitions(p->src, kept, nkept, err) < 0) {
                for (int i = 0; i < nkept; i++)
                    cdc_kv_free(&kept[i]);
                free(kept);
                for (int i = 0; i < nparts; i++)
                    cdc_kv_free(&parts[i]);
                free(parts);
                goto fail;
            }
            cdc_buf_t b = {0};
            cdc_buf_putc(&b, '[');
            for (int i = 0; i < nkept; i++) {
                cdc_buf_puts(&b, i ? ", {" : "{");
                for (int k = 0; k < kept[i].n; k++)
                    cdc_buf_printf(&b, "%s%s=%s", k ? ", " : "", kept[i].keys[k],
                                   kept[i].values[k]);
                cdc_buf_putc(&b, '}');
            }
            cdc_buf_putc(&b, ']');
            p->pushed_partitions = cdc_xstrdup(cdc_buf_cstr(&b));
            cdc_buf_free(&b);
        }
        for (int i = 0; i < nkept; i++)
            cdc_kv_free(&kept[i]);
        free(kept);
        for (int i = 0; i < nparts; i++)
            cdc_kv_free(&parts[i]);
        free(parts);
    }

    /* filter pushdown: simple conjuncts of the innermost WHERE (still evaluated by the Calc) */
    if (p->src->ops->apply_filters && nconj > 0) {
        filters = cdc_xcalloc(nconj, sizeof(*filters));
        int nf = 0;
        for (size_t c = 0; c < nconj; c++) {
            if (as_filter(conj[c], src_def, src_def->name, inner->q->from.alias, &scratch,
                          &filters[nf])) {
                filter_texts[nf] = cdc_sql_expr_to_string(conj[c]);
                filters[nf].text = filter_texts[nf];
                nf++;
            }
        }
        if (nf > 0) {
            bool accepted[MAX_CONJUNCTS] = {0};
            p->src->ops->apply_filters(p->src, filters, nf, accepted);
            cdc_buf_t b = {0};
            int na = 0;
            for (int i = 0; i < nf; i++)
                if (accepted[i])
                    cdc_buf_printf(&b, "%s%s", na++ ? ", " : "[", filters[i].text);
            if (na) {
                cdc_buf_putc(&b, ']');
                p->pushed_filters = cdc_xstrdup(cdc_buf_cstr(&b));
            }
            cdc_buf_free(&b);
        }
    }

    /* projection: the needed physical columns, pushed when the source can */
    int nphys = src_def->schema->nchildren;
    int *proj = cdc_xcalloc((size_t)nphys + 1, sizeof(int));
    int nproj = 0;
    for (int c = 0; c < ncols; c++)
        if (need[c] && src_def->columns[c].kind == CDC_COLUMN_PHYSICAL)
            proj[nproj++] = src_def->columns[c].physical;
    /* keep table order of physical columns */
    for (int i = 1; i < nproj; i++)
        for (int j = i; j > 0 && proj[j - 1] > proj[j]; j--) {
            int tmp = proj[j];
            proj[j] = proj[j - 1];
            proj[j - 1] = tmp;
        }
    int *phys_pos = cdc_xcalloc((size_t)nphys + 1, sizeof(int)); /* physical -> scan index */
    for (int i = 0; i < nphys; i++)
        phys_pos[i] = i;

    /*
     * nested projection: per needed physical column, the nested paths read
     * (over the physical schema), or the whole column when it is read whole
     * anywhere (or needed without a path, e.g. as a primary key column); a
     * path covered by another one is dropped.
     */
    cdc_field_path_t *npaths = cdc_xcalloc((size_t)pc.n + (size_t)nproj + 1, sizeof(*npaths));
    int nnpaths = 0;
    bool any_nested = false;
    for (int i = 0; i < nproj; i++) {
        int col = -1;
        for (int c = 0; c < ncols && col < 0; c++)
            if (src_def->columns[c].kind == CDC_COLUMN_PHYSICAL &&
                src_def->columns[c].physical == proj[i])
                col = c;
        int first = nnpaths;
        bool whole = false;
        for (int k = 0; k < pc.n && !whole; k++) {
            if (pc.paths[k].idx[0] != col)
                continue;
            if (pc.paths[k].depth == 1) {
                whole = true;
                break;
            }
            cdc_field_path_t fp = pc.paths[k];
            fp.idx[0] = proj[i];
            npaths[nnpaths++] = fp;
        }
        if (whole || nnpaths == first) {
            nnpaths = first;
            npaths[nnpaths++] = (cdc_field_path_t){.depth = 1, .idx = {proj[i]}};
            continue;
        }
        qsort(&npaths[first], (size_t)(nnpaths - first), sizeof(*npaths), path_cmp);
        int kept = first;
        for (int k = first; k < nnpaths; k++) /* sorted: a covering path comes first */
            if (kept == first || !path_covers(&npaths[kept - 1], &npaths[k]))
                npaths[kept++] = npaths[k];
        nnpaths = kept;
        any_nested = true;
    }
    free(pc.paths);
    pc.paths = NULL;
    if (any_nested && p->src->ops->apply_nested_projection &&
        p->src->ops->apply_nested_projection(p->src, npaths, nnpaths) == 0) {
        /* the whole-column scan row: the projected columns, rebuilt from their leaves */
        p->whole_type = cdc_type_new_row();
        p->whole_type->nullable = false;
        p->whole_nest = cdc_xcalloc((size_t)nproj + 1, sizeof(*p->whole_nest));
        cdc_buf_t b = {0};
        cdc_buf_putc(&b, '[');
        for (int i = 0; i < nphys; i++)
            phys_pos[i] = -1;
        int leaf = 0;
        for (int i = 0; i < nproj; i++) {
            const cdc_type_t *ct = src_def->schema->children[proj[i]];
            phys_pos[proj[i]] = i;
            cdc_type_row_add(p->whole_type, src_def->schema->names[proj[i]], cdc_type_copy(ct));
            cdc_nest_t *root = &p->whole_nest[i];
            root->scan = -1;
            for (; leaf < nnpaths && npaths[leaf].idx[0] == proj[i]; leaf++) {
                const cdc_field_path_t *fp = &npaths[leaf];
                cdc_buf_printf(&b, "%s%s", leaf ? ", " : "", src_def->schema->names[proj[i]]);
                cdc_nest_t *node = root;
                const cdc_type_t *t = ct;
                for (int d = 1; d < fp->depth; d++) {
                    if (!node->fields) {
                        node->nfields = t->nchildren;
                        node->fields = cdc_xcalloc((size_t)t->nchildren + 1, sizeof(cdc_nest_t));
                        for (int f = 0; f < t->nchildren; f++)
                            node->fields[f].scan = -1;
                    }
                    cdc_buf_printf(&b, ".%s", t->names[fp->idx[d]]);
                    node = &node->fields[fp->idx[d]];
                    t = t->children[fp->idx[d]];
                }
                node->scan = leaf;
            }
        }
        cdc_buf_putc(&b, ']');
        p->proj_text = cdc_xstrdup(cdc_buf_cstr(&b));
        cdc_buf_free(&b);
    } else if (nproj < nphys && p->src->ops->apply_projection &&
               p->src->ops->apply_projection(p->src, proj, nproj) == 0) {
        cdc_buf_t b = {0};
        cdc_buf_putc(&b, '[');
        for (int i = 0; i < nphys; i++)
            phys_pos[i] = -1;
        for (int i = 0; i < nproj; i++) {
            phys_pos[proj[i]] = i;
            cdc_buf_printf(&b, "%s%s", i ? ", " : "", src_def->schema->names[proj[i]]);
        }
        cdc_buf_putc(&b, ']');
        p->proj_text = cdc_xstrdup(cdc_buf_cstr(&b));
        cdc_buf_free(&b);
    } else {
        nproj = nphys;
    }
    int nleaves = p->whole_nest ? nnpaths : nproj; /* physical fields of the source's rows */
    free(npaths);
    free(proj);

    /* metadata columns: requested from the source, appended after the physical fields */
    {
        const char *keys[64];
        int nkeys = 0;
        for (int c = 0; c < ncols; c++) {
            p->col_scan[c] = -1;
            if (src_def->columns[c].kind == CDC_COLUMN_PHYSICAL)
                p->col_scan[c] = phys_pos[src_def->columns[c].physical];
            else if (src_def->columns[c].kind == CDC_COLUMN_METADATA && need[c] && nkeys < 64) {
                p->col_scan[c] = nproj + nkeys;
                keys[nkeys++] = src_def->columns[c].metadata_key;
            }
        }
        if (nkeys > 0) {
            if (!p->src->ops->apply_metadata) {
                *err =
                    cdc_sql_error_at(CDC_ERR_PLAN, inner->text, inner->len, inner->filename,
                                     inner->q->from.name.line, inner->q->from.name.col,
                                     "connector \"%s\" of table \"%s\" offers no metadata "
                                     "(column reads '%s')",
                                     p->src_res.connector->identifier, src_def->qualified, keys[0]);
                free(phys_pos);
                goto fail;
            }
            if (p->src->ops->apply_metadata(p->src, keys, nkeys, err) < 0) {
                free(phys_pos);
                goto fail;
            }
            cdc_buf_t b = {0};
            for (int i = 0; i < nkeys; i++)
                cdc_buf_printf(&b, "%s%s", i ? ", " : "[", keys[i]);
            cdc_buf_putc(&b, ']');
            p->pushed_metadata = cdc_xstrdup(cdc_buf_cstr(&b));
            cdc_buf_free(&b);
        }
        if (p->whole_nest) {
            /* metadata fields follow the leaves in the source's rows, the columns in the whole row
             */
            const cdc_type_t *prod = p->src->produced;
            int nmeta = prod->nchildren - nleaves;
            p->whole_nest =
                cdc_xrealloc(p->whole_nest, sizeof(*p->whole_nest) *
                                                (size_t)(nproj + (nmeta > 0 ? nmeta : 0) + 1));
            for (int i = 0; i < nmeta; i++) {
                p->whole_nest[nproj + i] = (cdc_nest_t){.scan = nleaves + i};
                cdc_type_row_add(p->whole_type, prod->names[nleaves + i],
                                 cdc_type_copy(prod->children[nleaves + i]));
            }
        }
    }
    free(phys_pos);

    /* computed columns over the scan row (the whole-column one under nested projection) */
    const cdc_type_t *scan_type = p->whole_type ? p->whole_type : p->src->produced;
    {
        const cdc_type_t *scan = scan_type;
        cdc_expr_env_t env = {.row_type = scan,
                              .udf_lookup = udf_lookup,
                              .udf_ctx = cat,
                              .text = NULL,
                              .len = 0,
                              .filename = src_def->origin};
        for (int c = 0; c < ncols; c++) {
            const cdc_column_def_t *col = &src_def->columns[c];
            if (col->kind != CDC_COLUMN_COMPUTED || !need[c])
                continue;
            if (is_proctime(col->expr)) {
                p->col_proctime[c] = true;
                cdc_type_destroy(p->table_type->children[c]);
                p->table_type->children[c] = cdc_type_new_sized(CDC_T_TIMESTAMP_LTZ, 3);
                p->table_type->children[c]->nullable = false;
                continue;
            }
            if (cdc_expr_compile(col->expr, &env, &p->col_expr[c], err) < 0) {
                cdc_error_add_context(*err, "computed column \"%s\" of table \"%s\"", col->name,
                                      src_def->qualified);
                goto fail;
            }
            cdc_type_destroy(p->table_type->children[c]);
            p->table_type->children[c] = cdc_type_copy(cdc_expr_type(p->col_expr[c]));
        }
    }
    if (p->join &&
        plan_join_condition(penv, inner, p->join, p->table_type, join_on, the_join, err) < 0)
        goto fail;
    p->identity_table = ncols == scan_type->nchildren;
    for (int c = 0; c < ncols && p->identity_table; c++)
        p->identity_table = p->col_scan[c] == c;

    /* limit: pushed only when nothing between scan and sink can drop or add rows */
    bool simple =
        nlevels == 1 && !inner->q->where && p->scan_mode == CDC_MODE_INSERT_ONLY && !p->join;
    if (p->limit >= 0 && simple && p->src->ops->apply_limit &&
        p->src->ops->apply_limit(p->src, p->limit) == 0)
        p->limit_pushed = true;
    if (p->src->ops->report_row_count)
        p->row_count = p->src->ops->report_row_count(p->src);

    /* the Calc stages, innermost first; the last one is skipped when it is an identity */
    p->stages = cdc_xcalloc((size_t)nlevels, sizeof(*p->stages));
    const cdc_type_t *in_type = p->join ? p->join->joined_type : p->table_type;
    const char *rel_name = src_def->name;
    for (int l = nlevels - 1; l >= 0; l--) {
        if (compile_stage(penv, &levels[l], in_type, rel_name, &p->stages[p->nstages], err) < 0) {
            p->nstages++;
            goto fail;
        }
        in_type = p->stages[p->nstages].out_type;
        rel_name = l > 0 ? levels[l].view->name : NULL;
        p->nstages++;
    }
    if (p->nstages == 1 && !p->stages[0].where && !p->join) {
        bool identity = p->stages[0].nitems == p->table_type->nchildren;
        for (int i = 0; identity && i < p->stages[0].nitems; i++)
            identity = cdc_expr_column_index(p->stages[0].items[i]) == i;
        if (identity) {
            cdc_stage_t *st = &p->stages[0];
            for (int i = 0; i < st->nitems; i++)
                cdc_expr_destroy(st->items[i]);
            free(st->items);
            cdc_type_destroy(st->out_type);
            free(st->explain);
            p->nstages = 0;
            in_type = p->table_type;
        }
    }
    const cdc_type_t *query_type = in_type;

    /* the sink: the table, or for a bare query a print sink shaped like the query */
    if (result_mode) {
        cdc_table_def_t *rd = cdc_xcalloc(1, sizeof(*rd));
        rd->catalog = cdc_xstrdup("");
        rd->database = cdc_xstrdup("");
        rd->name = cdc_xstrdup("*result*");
        rd->qualified = cdc_xstrdup("*result*");
        rd->schema = cdc_type_copy(query_type);
        cdc_kv_set(&rd->options, "connector", "print");
        p->result_def = rd;
        sink_def = rd;
    }
    p->sink_name = cdc_xstrdup(sink_def->qualified);
    p->sink_schema = sink_def->schema;
    if (build_ctx(sink_def, &p->sink_res, &p->sink_ctx, p->parallelism, err) < 0)
        goto fail;
    if (!p->sink_res.connector->sink_new) {
        *err = cdc_sql_error_at(CDC_ERR_PLAN, text, len, filename, ins->table.line, ins->table.col,
                                "connector \"%s\" of table \"%s\" cannot be written (it is a "
                                "source only)",
                                p->sink_res.connector->identifier, sink_def->qualified);
        goto fail;
    }
    if (p->sink_res.connector->sink_new(&p->sink_ctx, &p->sink, err) < 0) {
        cdc_error_add_context(*err, "table \"%s\"", sink_def->qualified);
        goto fail;
    }

    /* map the query's columns onto the sink's */
    const cdc_type_t *ks = sink_def->schema;
    int nq = query_type->nchildren;
    int *order = NULL; /* sink column -> query column */
    if (ins->columns.count) {
        if ((int)ins->columns.count != ks->nchildren) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, ins->columns.items[0].line,
                                    ins->columns.items[0].col,
                                    "the column list must name every column of \"%s\" (%d "
                                    "columns)",
                                    sink_def->qualified, ks->nchildren);
            goto fail;
        }
        order = cdc_xcalloc((size_t)ks->nchildren + 1, sizeof(int));
        for (size_t i = 0; i < ins->columns.count; i++) {
            int idx = cdc_type_field_index(ks, ins->columns.items[i].name);
            if (idx < 0) {
                *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename,
                                        ins->columns.items[i].line, ins->columns.items[i].col,
                                        "column \"%s\" not found in table \"%s\"",
                                        ins->columns.items[i].name, sink_def->qualified);
                free(order);
                goto fail;
            }
            order[idx] = (int)i;
        }
    }
    if (nq != ks->nchildren) {
        *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, ins->query->line, ins->query->col,
                                "the query produces %d columns but table \"%s\" has %d", nq,
                                sink_def->qualified, ks->nchildren);
        free(order);
        goto fail;
    }
    for (int i = 0; i < nq; i++) {
        int qi = order ? order[i] : i;
        const cdc_type_t *from = query_type->children[qi];
        const cdc_type_t *to = ks->children[i];
        if (!assignable(from, to)) {
            char *a = cdc_type_to_string(from), *b = cdc_type_to_string(to);
            *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, ins->query->line,
                                    ins->query->col,
                                    "column \"%s\" of type %s cannot be written to column "
                                    "\"%s\" of type %s",
                                    query_type->names[qi], a, ks->names[i], b);
            free(a);
            free(b);
            free(order);
            goto fail;
        }
        if (!to->nullable && from->nullable) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, ins->query->line,
                                    ins->query->col,
                                    "column \"%s\" may be NULL but column \"%s\" of \"%s\" is "
                                    "NOT NULL",
                                    query_type->names[qi], ks->names[i], sink_def->qualified);
            free(order);
            goto fail;
        }
    }
    if (order) {
        /* a final Calc that reorders into the sink's column order */
        bool identity = true;
        for (int i = 0; i < nq; i++)
            identity = identity && order[i] == i;
        if (!identity) {
            p->stages = cdc_xrealloc(p->stages, sizeof(*p->stages) * (size_t)(p->nstages + 1));
            cdc_stage_t *st = &p->stages[p->nstages];
            memset(st, 0, sizeof(*st));
            st->out_type = cdc_type_new_row();
            st->items = cdc_xcalloc((size_t)nq, sizeof(*st->items));
            cdc_buf_t ex = {0};
            cdc_buf_puts(&ex, "select=[");
            cdc_expr_env_t env = {.row_type = query_type, .text = text, .len = len};
            for (int i = 0; i < nq; i++) {
                cdc_sql_expr_t ref = {.kind = CDC_SQL_EXPR_COLUMN, .line = 1, .col = 1};
                char *parts[1] = {query_type->names[order[i]]};
                ref.column.parts = parts;
                ref.column.nparts = 1;
                if (cdc_expr_compile(&ref, &env, &st->items[i], err) < 0) {
                    cdc_buf_free(&ex);
                    free(order);
                    p->nstages++;
                    goto fail;
                }
                st->nitems++;
                cdc_type_row_add(st->out_type, ks->names[i],
                                 cdc_type_copy(query_type->children[order[i]]));
                cdc_buf_printf(&ex, "%s%s", i ? ", " : "", query_type->names[order[i]]);
            }
            cdc_buf_putc(&ex, ']');
            st->explain = cdc_xstrdup(cdc_buf_cstr(&ex));
            cdc_buf_free(&ex);
            p->nstages++;
        }
        free(order);
    }

    /* sink abilities asked for by the statement */
    if (ins->overwrite) {
        if (!p->sink->ops->apply_overwrite) {
            *err =
                cdc_sql_error_at(CDC_ERR_PLAN, text, len, filename, ins->table.line, ins->table.col,
                                 "connector \"%s\" of table \"%s\" does not support INSERT "
                                 "OVERWRITE",
                                 p->sink_res.connector->identifier, sink_def->qualified);
            goto fail;
        }
        if (p->sink->ops->apply_overwrite(p->sink, true, err) < 0)
            goto fail;
    }
    if (ins->partition.count) {
        if (!p->sink->ops->apply_static_partition) {
            *err =
                cdc_sql_error_at(CDC_ERR_PLAN, text, len, filename, ins->table.line, ins->table.col,
                                 "connector \"%s\" of table \"%s\" does not support static "
                                 "partitions",
                                 p->sink_res.connector->identifier, sink_def->qualified);
            goto fail;
        }
        cdc_kv_t kv = {0};
        for (size_t i = 0; i < ins->partition.count; i++) {
            const cdc_sql_option_t *o = &ins->partition.items[i];
            bool is_key = false;
            for (int k = 0; k < sink_def->npartition_keys; k++)
                is_key = is_key ||
                         strcmp(sink_def->schema->names[sink_def->partition_keys[k]], o->key) == 0;
            if (!is_key) {
                *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, o->line, o->col,
                                        "\"%s\" is not a partition column of \"%s\"", o->key,
                                        sink_def->qualified);
                cdc_kv_free(&kv);
                goto fail;
            }
            cdc_kv_set(&kv, o->key, o->value);
        }
        int rc = p->sink->ops->apply_static_partition(p->sink, &kv, err);
        cdc_kv_free(&kv);
        if (rc < 0)
            goto fail;
    }

    /* changelog negotiation */
    cdc_changelog_mode_t mode = p->scan_mode;
    bool has_ua = (mode & CDC_MODE_BIT(CDC_UPDATE_AFTER)) != 0;
    bool has_ub = (mode & CDC_MODE_BIT(CDC_UPDATE_BEFORE)) != 0;
    if (has_ub && !has_ua) {
        *err = cdc_sql_error_at(CDC_ERR_PLAN, inner->text, inner->len, inner->filename,
                                inner->q->from.name.line, inner->q->from.name.col,
                                "Table '%s' produces a changelog stream that contains "
                                "UPDATE_BEFORE but no UPDATE_AFTER, which is invalid",
                                src_def->qualified);
        goto fail;
    }
    bool upsert_source = has_ua && !has_ub;
    if ((upsert_source || (penv->cdc_events_duplicate && mode != CDC_MODE_INSERT_ONLY)) &&
        src_def->npk == 0) {
        if (upsert_source)
            *err = cdc_sql_error_at(CDC_ERR_PLAN, inner->text, inner->len, inner->filename,
                                    inner->q->from.name.line, inner->q->from.name.col,
                                    "Table '%s' produces a changelog stream that contains "
                                    "UPDATE_AFTER but no UPDATE_BEFORE. This requires defining a "
                                    "primary key constraint on the table.",
                                    src_def->qualified);
        else
            *err = cdc_sql_error_at(CDC_ERR_PLAN, inner->text, inner->len, inner->filename,
                                    inner->q->from.name.line, inner->q->from.name.col,
                                    "Configuration 'table.exec.source.cdc-events-duplicate' is "
                                    "enabled which requires the changelog sources to define a "
                                    "PRIMARY KEY. However, table '%s' doesn't have a primary "
                                    "key.",
                                    src_def->qualified);
        goto fail;
    }
    cdc_changelog_mode_t accepted = p->sink->ops->changelog_mode(p->sink, mode | CDC_MODE_ALL);
    if (upsert_source && (accepted & CDC_MODE_BIT(CDC_UPDATE_BEFORE)))
        p->normalize = true;
    if (penv->cdc_events_duplicate && mode != CDC_MODE_INSERT_ONLY)
        p->normalize = true;
    if (p->normalize) {
        mode = CDC_MODE_ALL;
        p->nnorm_key = src_def->npk;
        p->norm_key = cdc_xcalloc((size_t)src_def->npk, sizeof(int));
        for (int k = 0; k < src_def->npk; k++)
            for (int c = 0; c < ncols; c++)
                if (src_def->columns[c].kind == CDC_COLUMN_PHYSICAL &&
                    src_def->columns[c].physical == src_def->pk[k])
                    p->norm_key[k] = c;
        p->norm = norm_new(p->table_type);
        pthread_mutex_init(&p->norm_lock, NULL);
    }
    if ((mode & CDC_MODE_BIT(CDC_UPDATE_BEFORE)) && !(accepted & CDC_MODE_BIT(CDC_UPDATE_BEFORE)) &&
        (accepted & CDC_MODE_BIT(CDC_UPDATE_AFTER))) {
        p->drop_update_before = true;
        mode &= (cdc_changelog_mode_t)~CDC_MODE_BIT(CDC_UPDATE_BEFORE);
    }
    cdc_changelog_mode_t missing = mode & (cdc_changelog_mode_t)~accepted;
    if (missing) {
        cdc_buf_t kinds = {0}, node = {0};
        kinds_text(missing, &kinds);
        scan_node(p, &node, false);
        *err = cdc_sql_error_at(CDC_ERR_PLAN, text, len, filename, ins->table.line, ins->table.col,
                                "Table sink '%s' doesn't support consuming %s changes which is "
                                "produced by node %s",
                                sink_def->qualified, cdc_buf_cstr(&kinds), cdc_buf_cstr(&node));
        if (sink_def->npk == 0 && (accepted & CDC_MODE_BIT(CDC_UPDATE_AFTER)) == 0)
            cdc_error_set_hint(*err,
                               "declare a PRIMARY KEY on \"%s\" if its connector can "
                               "apply updates and deletes by key",
                               sink_def->qualified);
        cdc_buf_free(&kinds);
        cdc_buf_free(&node);
        goto fail;
    }
    /* a sink keyed by a primary key must get changes keyed the same way */
    if (mode != CDC_MODE_INSERT_ONLY && sink_def->npk > 0) {
        bool ok = src_def->npk == sink_def->npk;
        for (int k = 0; ok && k < sink_def->npk; k++) {
            /* the sink's key column must be a bare reference, through every stage, to a
               primary key column of the source */
            int idx = sink_def->pk[k];
            for (int s = p->nstages - 1; s >= 0 && idx >= 0; s--)
                idx = cdc_expr_column_index(p->stages[s].items[idx]);
            bool in_src_pk = false;
            for (int j = 0; idx >= 0 && idx < ncols && j < src_def->npk; j++)
                in_src_pk = in_src_pk || (src_def->columns[idx].kind == CDC_COLUMN_PHYSICAL &&
                                          src_def->columns[idx].physical == src_def->pk[j]);
            ok = in_src_pk;
        }
        if (!ok) {
            *err =
                cdc_sql_error_at(CDC_ERR_PLAN, text, len, filename, ins->table.line, ins->table.col,
                                 "the primary key of table sink '%s' does not match the key "
                                 "of the changes from '%s'",
                                 sink_def->qualified, src_def->qualified);
            cdc_error_set_hint(*err, "updates and deletes are applied by key: the sink's "
                                     "PRIMARY KEY columns must be the source's PRIMARY KEY "
                                     "columns, selected unchanged");
            goto fail;
        }
    }
    p->mode = mode;

    for (int i = 0; i < MAX_CONJUNCTS; i++)
        free(filter_texts[i]);
    free(filters);
    free(need);
    free(pc.paths);
    cdc_arena_free(&scratch);
    rewritten_free(join_q);
    cdc_sql_expr_destroy(join_on);
    for (int l = 0; l < nlevels; l++)
        if (levels[l].owned_name)
            free((char *)levels[l].filename);
    *out = p;
    return 0;
fail:
    for (int i = 0; i < MAX_CONJUNCTS; i++)
        free(filter_texts[i]);
    free(filters);
    free(need);
    free(pc.paths);
    cdc_arena_free(&scratch);
    rewritten_free(join_q);
    cdc_sql_expr_destroy(join_on);
    for (int l = 0; l < nlevels; l++)
        if (levels[l].owned_name)
            free((char *)levels[l].filename);
    cdc_pipe_destroy(p);
    return -1;
}
