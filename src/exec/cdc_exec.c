/*
 * cdc_exec.c — the per-row steps of a planned pipe (cdc_pipe_transform): the
 * table row with computed columns from the scan row (rebuilt first under a
 * nested projection), ChangelogNormalize, the lookup join with per-split
 * lookup handles and caches, the Calc stages, DropUpdateBefore; and
 * cdc_pipe_destroy.
 */
#include "cdc_graph.h"
#include "cdc_pipe_int.h"
#include "cdc_util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- lookup join ----------------------------------------------------------------- */

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

static void unnest_free(cdc_unnest_t *u)
{
    if (!u)
        return;
    cdc_sql_expr_destroy(u->arg_sql);
    cdc_expr_destroy(u->arg);
    for (int c = 0; c < u->nconds; c++)
        cdc_expr_destroy(u->conds[c]);
    free(u->conds);
    cdc_type_destroy(u->joined_type);
    free(u->explain);
    free(u);
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
        cdc_row_key_bytes(&keyrow, j->key_idx, j->nkeys, j->key_type, &ps->keybuf);
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

/*
 * table.exec.sink.not-null-enforcer on a sink row: 0 when its NOT NULL columns hold values,
 * 1 when one is NULL and the row is dropped (DROP, counted), -3 with the column and the row in
 * errbuf (ERROR).
 */
static int enforce_not_null(cdc_pipe_t *p, const cdc_row_t *res, char *errbuf, size_t errlen)
{
    for (int i = 0; i < p->nnot_null; i++) {
        int c = p->not_null_cols[i];
        if (!(res->values[c].flags & CDC_V_NULL))
            continue;
        if (p->not_null_drop) {
            atomic_fetch_add(&p->not_null_dropped, 1);
            return 1;
        }
        cdc_buf_t shown = {0}; /* the error path only */
        cdc_row_print(&shown, res, p->sink_schema);
        snprintf(errbuf, errlen,
                 "column \"%s\" of table \"%s\" is NOT NULL, but the row %s has NULL in it",
                 p->sink_schema->names[c], p->sink_name, cdc_buf_cstr(&shown));
        cdc_buf_free(&shown);
        return -3;
    }
    return 0;
}

/* Runs the Calc stages on one row and appends what comes out. Returns 0, -1 (errbuf) or -3
   (a NULL in a NOT NULL sink column, errbuf). */
static int emit_row(cdc_pipe_t *p, cdc_row_t *row, cdc_batch_t *out, char *errbuf, size_t errlen)
{
    cdc_row_t *res = NULL;
    int rc = run_stages(p, row, &out->arena, &res, errbuf, errlen);
    if (rc <= 0)
        return rc;
    if (p->drop_update_before && res->kind == CDC_UPDATE_BEFORE) {
        if (!p->update_before_as_delete)
            return 0;
        res->kind = CDC_DELETE;
    }
    if (p->nnot_null && (rc = enforce_not_null(p, res, errbuf, errlen)) != 0)
        return rc < 0 ? rc : 0;
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
        int erc = emit_row(p, jr, out, errbuf, errlen);
        if (erc < 0)
            return erc;
    }
    if (!matched && j->left)
        return emit_row(p, joined_row(j, row, NULL, false, &out->arena), out, errbuf, errlen);
    return 0;
}

/*
 * JOIN UNNEST of one row: a joined row per element (entry) of the argument that passes the ON
 * clause's conditions, each passed on to the stages with the row's change kind; for a LEFT JOIN
 * with a NULL or empty argument, the row with NULL for UNNEST's columns. Returns 0, -1 (errbuf)
 * or -3.
 */
static int unnest_row(cdc_pipe_t *p, cdc_row_t *row, cdc_batch_t *out, char *errbuf, size_t errlen)
{
    const cdc_unnest_t *u = p->unnest;
    cdc_value_t v;
    if (cdc_expr_eval(u->arg, row, &out->arena, &v, errbuf, errlen) < 0)
        return -1;
    uint32_t n = cdc_value_is_null(&v) ? 0 : v.v.arr.n;
    if (u->multiset && n) { /* each element as many times as its count, as an ARRAY */
        uint64_t total = 0;
        for (uint32_t i = 0; i < n; i++)
            total += v.v.arr.vals[i].v.i > 0 ? (uint64_t)v.v.arr.vals[i].v.i : 0;
        if (total > UINT32_MAX) {
            snprintf(errbuf, errlen, "UNNEST: the multiset has %llu elements, too many",
                     (unsigned long long)total);
            return -1;
        }
        cdc_value_t *all = cdc_arena_alloc(&out->arena, sizeof(cdc_value_t) * (total ? total : 1));
        uint32_t k = 0;
        for (uint32_t i = 0; i < n; i++)
            for (int64_t c = 0; c < v.v.arr.vals[i].v.i; c++)
                all[k++] = v.v.arr.elems[i];
        v.v.arr = (cdc_array_t){.n = k, .elems = all, .vals = NULL};
        n = k;
    }
    uint32_t width = (uint32_t)(u->nprobe + u->nout);
    bool matched = false;
    for (uint32_t i = 0; i <= n; i++) {
        if (i == n && (matched || !u->left))
            break;
        cdc_row_t *jr = cdc_row_new_in(&out->arena, width);
        jr->kind = row->kind;
        jr->origin = row->origin;
        memcpy(jr->values, row->values, sizeof(cdc_value_t) * (size_t)u->nprobe);
        cdc_value_t *dst = jr->values + u->nprobe;
        for (int f = 0; f < u->nout; f++)
            dst[f].flags = CDC_V_NULL;
        if (i < n) {
            const cdc_value_t *el = &v.v.arr.elems[i];
            if (u->map) {
                dst[0] = *el;
                dst[1] = v.v.arr.vals[i];
            } else if (!u->row_elem) {
                dst[0] = *el;
            } else if (!cdc_value_is_null(el)) {
                memcpy(dst, el->v.row->values,
                       sizeof(cdc_value_t) * (size_t)(u->nout - (u->ordinality ? 1 : 0)));
            }
            if (u->ordinality) {
                dst[u->nout - 1].flags = 0;
                dst[u->nout - 1].v.i = (int64_t)i + 1;
            }
            bool keep = true;
            for (int c = 0; c < u->nconds && keep; c++)
                if (cdc_expr_eval_predicate(u->conds[c], jr, &out->arena, &keep, errbuf, errlen) <
                    0)
                    return -1;
            if (!keep)
                continue;
            matched = true;
        }
        int rc = emit_row(p, jr, out, errbuf, errlen);
        if (rc < 0)
            return rc;
    }
    return 0;
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
                    trow->values[c].v.ts = (cdc_ts_t){.millis = cdc_wall_ms()};
                }
            }
        }
        cdc_row_t *norm_out[2] = {trow, NULL};
        int nnorm = 1;
        if (p->normalize) {
            pthread_mutex_lock(&p->norm_lock);
            nnorm = cdc_norm_row(p, trow, &out->arena, norm_out);
            pthread_mutex_unlock(&p->norm_lock);
        }
        for (int k = 0; k < nnorm; k++) {
            uint32_t before = out->n;
            int rc = p->join     ? join_row(p, ps, norm_out[k], out, errbuf, errlen)
                     : p->unnest ? unnest_row(p, norm_out[k], out, errbuf, errlen)
                                 : emit_row(p, norm_out[k], out, errbuf, errlen);
            if (rc == -2 || rc == -3)
                return rc;
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

void cdc_pipe_destroy(cdc_pipe_t *p)
{
    if (!p)
        return;
    if (p->graph)
        cdc_graph_release(p->graph);
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
    free(p->not_null_cols);
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
    unnest_free(p->unnest);
    for (int s = 0; s < p->nstages; s++) {
        for (int i = 0; i < p->stages[s].nitems; i++)
            cdc_expr_destroy(p->stages[s].items[i]);
        free(p->stages[s].items);
        cdc_expr_destroy(p->stages[s].where);
        cdc_type_destroy(p->stages[s].out_type);
        free(p->stages[s].explain);
    }
    free(p->stages);
    cdc_norm_destroy(p->norm);
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
    cdc_table_def_destroy(p->result_def);
    cdc_type_destroy(p->sink_row);
    cdc_table_def_destroy(p->values_def);
    cdc_sql_query_destroy(p->values_query);
    free(p);
}
