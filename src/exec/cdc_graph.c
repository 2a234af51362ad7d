/*
 * cdc_graph.c — running the stateful operators of a query (cdc_graph.h): GroupAggregate with
 * retractions, regular joins, Top-N, windows, OVER aggregation, Calc between them, their keyed
 * state in the job's state store (cdc_state.h), and the checkpoint that makes the state durable
 * together with every source's position.
 *
 * Each split of each leaf pipe runs as any split (cdc_runtime.c); its writer is a graph writer
 * whose write() pushes the rows through the operators, under the graph's lock, one row at a
 * time down to the root, whose changes go through the top pipe into the one real writer. A
 * checkpoint is a barrier of all open splits: each arrives (flush or commit_positions) with its
 * reader's positions; the last one flushes the real writer and commits the state with all the
 * positions in one atomic write. After a crash the state reopens at that commit and each reader
 * resumes at the positions stored with it; the sink gets the changes after it again, which upsert
 * sinks absorb.
 */
#include "cdc_graph.h"
#include "cdc_job.h"
#include "cdc_log.h"
#include "cdc_row_codec.h"
#include "cdc_runtime.h"
#include "cdc_state.h"
#include "cdc_util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- varints and small encodings --------------------------------------------------------- */

static void put_varint(cdc_buf_t *b, uint64_t v)
{
    uint8_t tmp[10];
    int n = 0;
    do {
        tmp[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v)
            tmp[n] |= 0x80;
        n++;
    } while (v);
    cdc_buf_append(b, tmp, (size_t)n);
}

typedef struct rd {
    const uint8_t *p, *end;
    bool bad;
} rd_t;

static uint64_t get_varint(rd_t *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end) {
            r->bad = true;
            return 0;
        }
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    r->bad = true;
    return 0;
}

static void get_bytes(rd_t *r, void *out, size_t n)
{
    if ((size_t)(r->end - r->p) < n) {
        r->bad = true;
        memset(out, 0, n);
        return;
    }
    memcpy(out, r->p, n);
    r->p += n;
}

/* ---- the runtime's graph data ------------------------------------------------------------ */

typedef struct slot_pos {
    cdc_buf_t lines; /* the split's last positions ("key\tpos\n"...) */
    int64_t wm;      /* the split's watermark (ms); INT64_MIN before its first row */
    bool has_wm;     /* its leaf declares a WATERMARK */
    bool open;       /* its writer is open, or will be (a split of a leaf with a WATERMARK) */
    bool claimed;    /* a split's writer took it */
    int leaf, split;
} slot_pos_t;

#define PF_RING 16 /* prefetch_rows' ring: PF_AHEAD rows ahead, and half that */
#define PF_AHEAD 8

typedef struct graph_rt {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    cdc_state_t *state;
    bool durable;
    cdc_buf_t meta; /* the positions of the last commit (any run) */
    /* the top pipe's writer and its batches */
    cdc_writer_t *writer;
    cdc_pipe_split_t *top_ps;
    cdc_batch_t topin, topout;
    cdc_arena_t scratch; /* rows between operators, reset per input batch */
    cdc_buf_t key, val, tmp;
    cdc_buf_t pfkey[PF_RING]; /* the state keys of the rows ahead (prefetch_rows) */
    /* the key and hash prefetch_rows made of the row going in, for known_op (NULL: none) */
    const cdc_op_t *known_op;
    const cdc_buf_t *known_key;
    uint64_t known_hash;
    uint64_t pfhash[PF_RING]; /* the state hashes of the rows ahead */
    /* the barrier */
    int live;                    /* writers open */
    int arrived;                 /* of the current checkpoint */
    uint64_t epoch;              /* checkpoints done */
    atomic_uint_fast64_t wanted; /* a checkpoint was asked for: epoch + 1 */
    bool poisoned; /* a split closed with rows fed since its last checkpoint: no more commits */
    slot_pos_t *slots;
    int nslots;
    int rc;            /* of the last checkpoint */
    cdc_error_t *err;  /* its error (copied to each waiter) */
    uint64_t seq;      /* arrival order (Top-N ties), persisted inside the rows' entries */
    int64_t watermark; /* event time (ms) every leaf with a WATERMARK has passed; INT64_MIN */
    /* the processing-time windows' timer: a thread firing them on the wall clock */
    pthread_t ticker;
    bool ticking, tick_stop;
    pthread_cond_t tick_cond;
    uint64_t late;        /* rows of windows already fired, dropped */
    uint64_t late_over;   /* rows of OVER windows at or behind the watermark, dropped */
    uint64_t late_sorted; /* rows of a TemporalSort the watermark had passed, dropped */
    char errbuf[1024];
    uint64_t skipped;
    const cdc_job_settings_t *settings;
} graph_rt_t;

typedef struct graph_writer {
    cdc_writer_t base;
    cdc_graph_t *g;
    int leaf, slot;
    bool fed;       /* rows fed since the split's last checkpoint */
    bool positions; /* its reader keeps positions in the job's state */
} graph_writer_t;

/* ---- emitting ------------------------------------------------------------------------------ */

static int push(cdc_graph_t *g, cdc_op_t *op, int port, cdc_kind_t kind, const cdc_row_t *row,
                cdc_error_t **err);
static int flush_top(cdc_graph_t *g, cdc_error_t **err);

static int emit(cdc_graph_t *g, cdc_op_t *op, cdc_kind_t kind, const cdc_row_t *row,
                cdc_error_t **err)
{
    if (op->parent)
        return push(g, op->parent, op->parent_port, kind, row, err);
    graph_rt_t *rt = g->rt;
    cdc_row_t *o = cdc_batch_add(&rt->topin, kind, row->arity);
    memcpy(o->values, row->values, sizeof(cdc_value_t) * row->arity);
    return 0;
}

static bool is_acc(cdc_kind_t k)
{
    return k == CDC_INSERT || k == CDC_UPDATE_AFTER;
}

static cdc_row_t *new_row(graph_rt_t *rt, uint32_t arity)
{
    return cdc_row_new_in(&rt->scratch, arity);
}

static int state_fail(cdc_op_t *op, const char *what, cdc_error_t **err)
{
    *err = cdc_error_new(CDC_ERR_INTERNAL,
                         "the state of operator %d (%s) holds an entry this version cannot read "
                         "(%s)",
                         op->id, op->explain, what);
    cdc_error_set_hint(*err, "the job's state directory was written by another version or "
                             "changed by hand; delete it to start the job from scratch");
    return -1;
}

/* ---- Calc ---------------------------------------------------------------------------------- */

static int calc_push(cdc_graph_t *g, cdc_op_t *op, cdc_kind_t kind, const cdc_row_t *row,
                     cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    const cdc_stage_t *st = &op->stage;
    if (st->where) {
        bool keep = false;
        if (cdc_expr_eval_predicate(st->where, row, &rt->scratch, &keep, rt->errbuf,
                                    sizeof(rt->errbuf)) < 0)
            goto bad;
        if (!keep)
            return 0;
    }
    cdc_row_t *o = new_row(rt, (uint32_t)st->nitems);
    for (int i = 0; i < st->nitems; i++)
        if (cdc_expr_eval(st->items[i], row, &rt->scratch, &o->values[i], rt->errbuf,
                          sizeof(rt->errbuf)) < 0)
            goto bad;
    return emit(g, op, kind, o, err);
bad:
    *err = cdc_error_new(CDC_ERR_PARSE, "cannot compute a row (%s): %s", op->explain, rt->errbuf);
    return -1;
}

/* ---- GroupAggregate ------------------------------------------------------------------------ */

typedef struct mapent {
    cdc_value_t v;
    int64_t n;
} mapent_t;

typedef struct acc {
    int64_t cnt;
    int64_t isum;
    double dsum;
    cdc_i128 xsum;
    mapent_t *map;
    int nmap, capmap;
} acc_t;

/* A window aggregation's windows waiting for the watermark: their ends, ascending (kept in the
 * state too, so a restart fires them). */
typedef struct win_rt {
    int64_t wm; /* the watermark (or wall clock) it fired up to: rows of windows ending there
                   are late (an operator fed by another window aggregation sees the watermark
                   after its input's windows fired, as Flink's) */
    int64_t *ends;
    int nends, cap;
    bool loaded;
    cdc_buf_t list;
} win_rt_t;

typedef struct minibatch minibatch_t;

typedef struct agg_rt {
    acc_t *accs;
    int64_t rows;
    win_rt_t *win;     /* windowed aggregation only */
    minibatch_t *mb;   /* op->minibatch only */
    cdc_arena_t *keep; /* accumulators that outlive the input batch (a mini-batch's): the
                          values of MIN/MAX/DISTINCT copied here; NULL: they may point into it */
} agg_rt_t;

static bool uses_map(const cdc_agg_call_t *c)
{
    return c->distinct || c->fn == CDC_AGG_MIN || c->fn == CDC_AGG_MAX;
}

static int sum_kind(const cdc_type_t *t)
{
    if (t->root == CDC_T_FLOAT || t->root == CDC_T_DOUBLE)
        return 1;
    if (t->root == CDC_T_DECIMAL)
        return 2;
    return 0;
}

static const cdc_type_t *arg_type(const cdc_op_t *op, const cdc_agg_call_t *c)
{
    return c->arg >= 0 ? op->in_type[0]->children[c->arg] : NULL;
}

/* Position of v in the sorted map, or where it goes (*found false). */
static int map_find(const acc_t *a, const cdc_type_t *t, const cdc_value_t *v, bool *found)
{
    int lo = 0, hi = a->nmap;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        int c = cdc_value_cmp(t, &a->map[mid].v, v);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

static void map_add(acc_t *a, const cdc_type_t *t, const cdc_value_t *v, int64_t n,
                    cdc_arena_t *keep)
{
    bool found;
    int i = map_find(a, t, v, &found);
    if (found) {
        a->map[i].n += n;
        if (a->map[i].n <= 0) {
            memmove(&a->map[i], &a->map[i + 1], sizeof(*a->map) * (size_t)(a->nmap - i - 1));
            a->nmap--;
        }
        return;
    }
    if (n <= 0)
        return; /* a retraction of a value never counted */
    if (a->nmap == a->capmap) {
        a->capmap = a->capmap ? a->capmap * 2 : 8;
        a->map = cdc_xrealloc(a->map, sizeof(*a->map) * (size_t)a->capmap);
    }
    memmove(&a->map[i + 1], &a->map[i], sizeof(*a->map) * (size_t)(a->nmap - i));
    a->map[i] = (mapent_t){.v = *v, .n = n};
    if (keep)
        cdc_value_keep(keep, t, v, &a->map[i].v);
    a->nmap++;
}

static void acc_reset(cdc_op_t *op, agg_rt_t *ar)
{
    ar->rows = 0;
    for (int i = 0; i < op->naggs; i++) {
        acc_t *a = &ar->accs[i];
        a->cnt = a->isum = 0;
        a->dsum = 0;
        a->xsum = 0;
        a->nmap = 0;
    }
}

static bool acc_decode(cdc_op_t *op, agg_rt_t *ar, graph_rt_t *rt, const void *data, size_t len)
{
    rd_t r = {.p = data, .end = (const uint8_t *)data + len};
    acc_reset(op, ar);
    ar->rows = (int64_t)get_varint(&r);
    for (int i = 0; i < op->naggs && !r.bad; i++) {
        const cdc_agg_call_t *c = &op->aggs[i];
        acc_t *a = &ar->accs[i];
        if (uses_map(c)) {
            uint64_t n = get_varint(&r);
            for (uint64_t k = 0; k < n && !r.bad; k++) {
                cdc_value_t v;
                size_t used = cdc_value_decode(r.p, (size_t)(r.end - r.p), arg_type(op, c),
                                               ar->keep ? ar->keep : &rt->scratch, &v);
                if (!used) {
                    r.bad = true;
                    break;
                }
                r.p += used;
                int64_t cnt = (int64_t)get_varint(&r);
                if (a->nmap == a->capmap) {
                    a->capmap = a->capmap ? a->capmap * 2 : 8;
                    a->map = cdc_xrealloc(a->map, sizeof(*a->map) * (size_t)a->capmap);
                }
                a->map[a->nmap++] = (mapent_t){.v = v, .n = cnt};
            }
        } else if (c->fn == CDC_AGG_COUNT || c->fn == CDC_AGG_COUNT_STAR) {
            a->cnt = (int64_t)get_varint(&r);
        } else {
            a->cnt = (int64_t)get_varint(&r);
            switch (sum_kind(arg_type(op, c))) {
            case 0:
                get_bytes(&r, &a->isum, sizeof(a->isum));
                break;
            case 1:
                get_bytes(&r, &a->dsum, sizeof(a->dsum));
                break;
            default:
                get_bytes(&r, &a->xsum, sizeof(a->xsum));
            }
        }
    }
    return !r.bad && r.p == r.end;
}

static void acc_encode(cdc_op_t *op, agg_rt_t *ar, cdc_buf_t *out)
{
    cdc_buf_clear(out);
    put_varint(out, (uint64_t)ar->rows);
    for (int i = 0; i < op->naggs; i++) {
        const cdc_agg_call_t *c = &op->aggs[i];
        acc_t *a = &ar->accs[i];
        if (uses_map(c)) {
            put_varint(out, (uint64_t)a->nmap);
            for (int k = 0; k < a->nmap; k++) {
                cdc_value_encode(out, &a->map[k].v, arg_type(op, c));
                put_varint(out, (uint64_t)a->map[k].n);
            }
        } else if (c->fn == CDC_AGG_COUNT || c->fn == CDC_AGG_COUNT_STAR) {
            put_varint(out, (uint64_t)a->cnt);
        } else {
            put_varint(out, (uint64_t)a->cnt);
            switch (sum_kind(arg_type(op, c))) {
            case 0:
                cdc_buf_append(out, &a->isum, sizeof(a->isum));
                break;
            case 1:
                cdc_buf_append(out, &a->dsum, sizeof(a->dsum));
                break;
            default:
                cdc_buf_append(out, &a->xsum, sizeof(a->xsum));
            }
        }
    }
}

static void acc_add(cdc_op_t *op, agg_rt_t *ar, const cdc_row_t *row, int sign)
{
    ar->rows += sign;
    for (int i = 0; i < op->naggs; i++) {
        const cdc_agg_call_t *c = &op->aggs[i];
        acc_t *a = &ar->accs[i];
        if (c->fn == CDC_AGG_COUNT_STAR)
            continue;
        const cdc_value_t *v = &row->values[c->arg];
        if (cdc_value_is_null(v))
            continue;
        const cdc_type_t *t = arg_type(op, c);
        if (uses_map(c)) {
            map_add(a, t, v, sign, ar->keep);
            continue;
        }
        a->cnt += sign;
        if (c->fn == CDC_AGG_COUNT)
            continue;
        switch (sum_kind(t)) {
        case 0:
            a->isum = (int64_t)((uint64_t)a->isum + (uint64_t)(sign * v->v.i));
            break;
        case 1:
            a->dsum += sign * (t->root == CDC_T_FLOAT ? (double)v->v.f : v->v.d);
            break;
        default:
            a->xsum += sign > 0 ? v->v.dec : -v->v.dec;
        }
    }
}

static int64_t wrap_int(const cdc_type_t *t, int64_t v)
{
    switch (t->root) {
    case CDC_T_TINYINT:
        return (int8_t)v;
    case CDC_T_SMALLINT:
        return (int16_t)v;
    case CDC_T_INT:
        return (int32_t)v;
    default:
        return v;
    }
}

/* The result of call c from its accumulator, into *out. */
static void acc_result(cdc_op_t *op, agg_rt_t *ar, int i, cdc_value_t *out)
{
    const cdc_agg_call_t *c = &op->aggs[i];
    acc_t *a = &ar->accs[i];
    memset(out, 0, sizeof(*out));
    if (c->fn == CDC_AGG_COUNT_STAR) {
        out->v.i = ar->rows;
        return;
    }
    if (c->fn == CDC_AGG_COUNT) {
        out->v.i = c->distinct ? a->nmap : a->cnt;
        return;
    }
    if (c->fn == CDC_AGG_MIN || c->fn == CDC_AGG_MAX) {
        if (a->nmap == 0)
            out->flags = CDC_V_NULL;
        else
            *out = a->map[c->fn == CDC_AGG_MIN ? 0 : a->nmap - 1].v;
        return;
    }
    const cdc_type_t *t = arg_type(op, c);
    int64_t cnt = a->cnt, isum = a->isum;
    double dsum = a->dsum;
    cdc_i128 xsum = a->xsum;
    if (c->distinct) {
        cnt = a->nmap;
        isum = 0;
        dsum = 0;
        xsum = 0;
        for (int k = 0; k < a->nmap; k++) {
            const cdc_value_t *v = &a->map[k].v;
            isum = (int64_t)((uint64_t)isum + (uint64_t)v->v.i);
            dsum += t->root == CDC_T_FLOAT ? (double)v->v.f : v->v.d;
            xsum += v->v.dec;
        }
    }
    if (cnt == 0 && c->fn != CDC_AGG_SUM0) {
        out->flags = CDC_V_NULL;
        return;
    }
    const cdc_type_t *rt = c->type;
    switch (sum_kind(t)) {
    case 0:
        if (c->fn == CDC_AGG_AVG)
            isum = cnt ? isum / cnt : 0;
        out->v.i = wrap_int(rt, isum);
        break;
    case 1:
        if (c->fn == CDC_AGG_AVG)
            dsum = cnt ? dsum / (double)cnt : 0;
        if (rt->root == CDC_T_FLOAT)
            out->v.f = (float)dsum;
        else
            out->v.d = dsum;
        break;
    default:
        if (c->fn == CDC_AGG_AVG && cnt) {
            cdc_i128 num = xsum * cdc_pow10_i128(rt->scale - t->scale);
            cdc_i128 q = num / cnt, r = num % cnt;
            cdc_i128 r2 = r < 0 ? -r : r;
            if (2 * r2 >= (cnt < 0 ? -cnt : cnt))
                q += num < 0 ? -1 : 1;
            xsum = q;
        }
        out->v.dec = xsum;
    }
}

static cdc_row_t *agg_output(graph_rt_t *rt, cdc_op_t *op, agg_rt_t *ar, const cdc_row_t *in)
{
    cdc_row_t *o = new_row(rt, (uint32_t)(op->ngroup + op->naggs));
    for (int g = 0; g < op->ngroup; g++)
        o->values[g] = in->values[op->group[g]];
    for (int i = 0; i < op->naggs; i++)
        acc_result(op, ar, i, &o->values[op->ngroup + i]);
    return o;
}

/* Whether two values of @p t have the same encoding (rows_equal), told without encoding them: 1
   or 0, or -1 where equal values may encode apart (floating point: -0.0, NaN payloads) or
   cdc_value_cmp does not compare (arrays, maps, rows). */
static int values_same(const cdc_type_t *t, const cdc_value_t *a, const cdc_value_t *b)
{
    bool na = cdc_value_is_null(a), nb = cdc_value_is_null(b);
    if (na || nb)
        return na == nb;
    if (t->root == CDC_T_FLOAT || t->root == CDC_T_DOUBLE)
        return -1;
    int c = cdc_value_cmp(t, a, b);
    return c == 2 ? -1 : c == 0;
}

/* Whether two rows of @p t encode the same (an aggregate whose result did not change emits
   nothing); the scalar columns compared as values, not encoded (two encodings per row were a
   tenth of bench/stateful.sh's GROUP BY). */
static bool rows_equal(graph_rt_t *rt, const cdc_type_t *t, const cdc_row_t *a, const cdc_row_t *b)
{
    bool known = true;
    for (uint32_t i = 0; i < a->arity && known; i++) {
        int same = values_same(t->children[i], &a->values[i], &b->values[i]);
        if (same == 0)
            return false;
        known = same == 1;
    }
    if (known)
        return true;
    cdc_buf_clear(&rt->tmp);
    cdc_row_encode(&rt->tmp, a, t);
    size_t na = rt->tmp.len;
    cdc_row_encode(&rt->tmp, b, t);
    return rt->tmp.len - na == na && memcmp(rt->tmp.data, rt->tmp.data + na, na) == 0;
}

static int wagg_push(cdc_graph_t *g, cdc_op_t *op, cdc_kind_t kind, const cdc_row_t *row,
                     cdc_error_t **err);

static int mb_push(cdc_graph_t *g, cdc_op_t *op, cdc_kind_t kind, const cdc_row_t *row,
                   cdc_error_t **err);

/* The state key of @p row's group into *hash and the return: the one prefetch_rows made of the
   row (gw_write's known_op), else made here into rt->key and hashed. */
static const cdc_buf_t *agg_key(graph_rt_t *rt, const cdc_op_t *op, const cdc_row_t *row,
                                uint64_t *hash)
{
    if (rt->known_op == op) {
        rt->known_op = NULL;
        *hash = rt->known_hash;
        return rt->known_key;
    }
    cdc_row_key_bytes(row, op->group, op->ngroup, op->in_type[0], &rt->key);
    *hash = cdc_state_hash((uint32_t)op->id << 1, rt->key.data, rt->key.len);
    return &rt->key;
}

static int agg_push(cdc_graph_t *g, cdc_op_t *op, cdc_kind_t kind, const cdc_row_t *row,
                    cdc_error_t **err)
{
    if (op->windowed)
        return wagg_push(g, op, kind, row, err);
    if (op->minibatch)
        return mb_push(g, op, kind, row, err);
    graph_rt_t *rt = g->rt;
    agg_rt_t *ar = op->rt;
    uint32_t ns = (uint32_t)op->id << 1;
    uint64_t h;
    const cdc_buf_t *key = agg_key(rt, op, row, &h);
    cdc_state_hint(rt->state, ns, key->data, key->len, h);
    const void *val;
    size_t vlen;
    int found = cdc_state_get(rt->state, ns, key->data, key->len, &val, &vlen, err);
    if (found < 0)
        return -1;
    cdc_row_t *prev = NULL;
    if (found) {
        if (!acc_decode(op, ar, rt, val, vlen))
            return state_fail(op, "an aggregate's accumulators", err);
        prev = agg_output(rt, op, ar, row);
    } else {
        if (!is_acc(kind))
            return 0; /* a retraction for a group the state does not have (expired) */
        acc_reset(op, ar);
    }
    acc_add(op, ar, row, is_acc(kind) ? 1 : -1);
    if (ar->rows <= 0) {
        if (cdc_state_del(rt->state, ns, key->data, key->len, err) < 0)
            return -1;
        return prev ? emit(g, op, CDC_DELETE, prev, err) : 0;
    }
    acc_encode(op, ar, &rt->val);
    if (cdc_state_put(rt->state, ns, key->data, key->len, rt->val.data, rt->val.len, err) < 0)
        return -1;
    cdc_row_t *next = agg_output(rt, op, ar, row);
    if (!prev)
        return emit(g, op, CDC_INSERT, next, err);
    if (rows_equal(rt, op->out_type, prev, next))
        return 0;
    if (emit(g, op, CDC_UPDATE_BEFORE, prev, err) < 0)
        return -1;
    return emit(g, op, CDC_UPDATE_AFTER, next, err);
}

/* ---- GroupAggregate's mini-batch (table.exec.mini-batch.*) ------------------------------- */

/* Flink's MiniBatchGroupAggFunction: a batch fires when `size` rows came, when its first row
 * waited `allow-latency` (the ticker), before every checkpoint commits and when the input ends.
 * Each group key of a batch is one state get (at its first row), its rows folded in the order
 * they came into accumulators kept in memory for the batch, one put (or delete) when it fires,
 * and one change out: UB+UA of the batch's start against its end (none when equal), I for a new
 * group, D for a group gone. The final table is the one a row at a time gives; the updates in
 * between that the batch folded are not emitted. (Flink buffers the rows and folds them when
 * the batch fires; folding each row as it comes gives the same, in the same per-key order,
 * without keeping the rows: a batch's rows made a walk through memory ten times the folding.) */

typedef struct mb_key {
    uint64_t hash; /* cdc_state_hash of the key: the table's probe and the state's prefetch */
    size_t koff;   /* the key's bytes in keys */
    uint32_t klen;
    bool found;      /* the state had the group at the batch's start */
    cdc_row_t *prev; /* the group's result then (found), or its group keys (not found); arena */
    agg_rt_t ar;     /* its accumulators now: ar.rows 0 when the group has none */
} mb_key_t;

struct minibatch {
    cdc_arena_t arena; /* prev rows, MIN/MAX/DISTINCT values; reset after each batch */
    cdc_buf_t keys;    /* the keys' bytes */
    mb_key_t *k;       /* the batch's keys in order of their first row */
    int nk, capk;      /* k[nk..capk) keep their accumulators' memory for later batches */
    acc_t *accs;       /* k[i]'s accumulators at accs + i * stride (prefetched by index) */
    int stride;
    uint32_t *slot; /* open addressing: index + 1 into k, 0 empty; mask + 1 slots */
    uint32_t mask;
    int64_t rows;     /* rows folded */
    int64_t first_ms; /* wall clock when the batch's first row came */
};

static minibatch_t *mb_new(const cdc_op_t *op)
{
    minibatch_t *mb = cdc_xcalloc(1, sizeof(*mb));
    mb->stride = op->naggs + 1;
    cdc_arena_init(&mb->arena);
    mb->mask = 1023;
    mb->slot = cdc_xcalloc(mb->mask + 1, sizeof(*mb->slot));
    return mb;
}

static void mb_free(const cdc_op_t *op, minibatch_t *mb)
{
    if (!mb)
        return;
    for (int i = 0; i < mb->capk; i++)
        for (int a = 0; a < op->naggs; a++)
            free(mb->k[i].ar.accs[a].map);
    free(mb->accs);
    cdc_arena_free(&mb->arena);
    cdc_buf_free(&mb->keys);
    free(mb->k);
    free(mb->slot);
    free(mb);
}

/* The bytes of key @p e (a global aggregate's key is empty: no bytes kept at all). */
static const char *mb_key_bytes(const minibatch_t *mb, const mb_key_t *e)
{
    return e->klen ? mb->keys.data + e->koff : "";
}

/* The slot of key (hash, bytes): its entry, or the empty one it goes into. */
static uint32_t *mb_slot(minibatch_t *mb, uint64_t h, const void *key, size_t klen)
{
    for (uint32_t i = (uint32_t)h & mb->mask;; i = (i + 1) & mb->mask) {
        uint32_t *s = &mb->slot[i];
        if (!*s)
            return s;
        const mb_key_t *e = &mb->k[*s - 1];
        if (e->hash == h && e->klen == klen &&
            (!klen || memcmp(mb_key_bytes(mb, e), key, klen) == 0))
            return s;
    }
}

static void mb_grow(minibatch_t *mb)
{
    free(mb->slot);
    mb->mask = mb->mask * 2 + 1;
    mb->slot = cdc_xcalloc(mb->mask + 1, sizeof(*mb->slot));
    for (int i = 0; i < mb->nk; i++) {
        uint32_t j = (uint32_t)mb->k[i].hash & mb->mask;
        while (mb->slot[j])
            j = (j + 1) & mb->mask;
        mb->slot[j] = (uint32_t)i + 1;
    }
}

/* The batch's entry of the key in rt->key (hash @p h): at its first row, the group's state got
 * and decoded, its result kept as prev. NULL with *err on a state error. */
static mb_key_t *mb_key(cdc_graph_t *g, cdc_op_t *op, minibatch_t *mb, const cdc_buf_t *key,
                        uint64_t h, const cdc_row_t *row, cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    uint32_t *s = mb_slot(mb, h, key->data, key->len);
    if (*s)
        return &mb->k[*s - 1];
    if (mb->nk == mb->capk) {
        int cap = mb->capk ? mb->capk * 2 : 1024;
        size_t n = (size_t)cap * (size_t)mb->stride, was = (size_t)mb->capk * (size_t)mb->stride;
        mb->k = cdc_xrealloc(mb->k, sizeof(*mb->k) * (size_t)cap);
        mb->accs = cdc_xrealloc(mb->accs, sizeof(acc_t) * n); /* the maps' memory moves along */
        memset(mb->accs + was, 0, sizeof(acc_t) * (n - was));
        for (int i = 0; i < cap; i++) {
            if (i >= mb->capk)
                mb->k[i] = (mb_key_t){.ar = {.keep = &mb->arena}};
            mb->k[i].ar.accs = mb->accs + (size_t)i * (size_t)mb->stride;
        }
        mb->capk = cap;
    }
    mb_key_t *e = &mb->k[mb->nk];
    e->hash = h;
    e->koff = mb->keys.len;
    e->klen = (uint32_t)key->len;
    if (key->len)
        cdc_buf_append(&mb->keys, key->data, key->len);
    uint32_t ns = (uint32_t)op->id << 1;
    cdc_state_hint(rt->state, ns, key->data, key->len, h);
    const void *val;
    size_t vlen;
    int found = cdc_state_get(rt->state, ns, key->data, key->len, &val, &vlen, err);
    if (found < 0)
        return NULL;
    e->found = found == 1;
    if (e->found && !acc_decode(op, &e->ar, rt, val, vlen)) {
        state_fail(op, "an aggregate's accumulators", err);
        return NULL;
    }
    if (!e->found)
        acc_reset(op, &e->ar);
    e->prev = cdc_row_keep(agg_output(rt, op, &e->ar, row), op->out_type, &mb->arena);
    *s = (uint32_t)++mb->nk;
    if ((uint32_t)mb->nk * 2 > mb->mask)
        mb_grow(mb);
    return e;
}

/* Key @p e's accumulators into the state, and its one change out. */
static int mb_flush_key(cdc_graph_t *g, cdc_op_t *op, minibatch_t *mb, mb_key_t *e,
                        cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    uint32_t ns = (uint32_t)op->id << 1;
    const char *key = mb_key_bytes(mb, e);
    if (e->ar.rows <= 0) {
        if (e->found && cdc_state_del(rt->state, ns, key, e->klen, err) < 0)
            return -1;
        return e->found ? emit(g, op, CDC_DELETE, e->prev, err) : 0;
    }
    acc_encode(op, &e->ar, &rt->val);
    if (cdc_state_put(rt->state, ns, key, e->klen, rt->val.data, rt->val.len, err) < 0)
        return -1;
    cdc_row_t *next = new_row(rt, (uint32_t)(op->ngroup + op->naggs));
    memcpy(next->values, e->prev->values, sizeof(cdc_value_t) * (size_t)op->ngroup);
    for (int i = 0; i < op->naggs; i++)
        acc_result(op, &e->ar, i, &next->values[op->ngroup + i]);
    if (!e->found)
        return emit(g, op, CDC_INSERT, next, err);
    if (rows_equal(rt, op->out_type, e->prev, next))
        return 0;
    if (emit(g, op, CDC_UPDATE_BEFORE, e->prev, err) < 0)
        return -1;
    return emit(g, op, CDC_UPDATE_AFTER, next, err);
}

/* Fires the batch of @p op: every key's state and change, in the order of its first row; the
 * root's changes through the top pipe. Lock held. */
static int mb_fire(cdc_graph_t *g, cdc_op_t *op, cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    minibatch_t *mb = ((agg_rt_t *)op->rt)->mb;
    if (mb->rows == 0)
        return 0;
    cdc_state_tick(rt->state);
    int rc = 0;
    for (int i = 0; i < mb->nk && rc == 0; i++) {
        /* the state entries of the keys ahead start loading (see prefetch_rows) */
        if (i + PF_AHEAD < mb->nk)
            cdc_state_prefetch(rt->state, mb->k[i + PF_AHEAD].hash, 0);
        if (i + PF_AHEAD / 2 < mb->nk)
            cdc_state_prefetch(rt->state, mb->k[i + PF_AHEAD / 2].hash, 1);
        rc = mb_flush_key(g, op, mb, &mb->k[i], err);
        if (rc == 0 && rt->topin.n >= 4096)
            rc = flush_top(g, err);
    }
    if (rc == 0) /* the changes point into the batch's arena */
        rc = flush_top(g, err);
    memset(mb->slot, 0, sizeof(*mb->slot) * ((size_t)mb->mask + 1));
    mb->nk = 0;
    mb->rows = 0;
    cdc_buf_clear(&mb->keys);
    cdc_arena_reset(&mb->arena);
    return rc;
}

/* A row into @p op's batch: folded into its group's accumulators (as agg_push, without the
 * state); the batch fires once table.exec.mini-batch.size rows came. */
static int mb_push(cdc_graph_t *g, cdc_op_t *op, cdc_kind_t kind, const cdc_row_t *row,
                   cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    minibatch_t *mb = ((agg_rt_t *)op->rt)->mb;
    uint64_t h;
    const cdc_buf_t *key = agg_key(rt, op, row, &h);
    mb_key_t *e = mb_key(g, op, mb, key, h, row, err);
    if (!e)
        return -1;
    if (mb->rows++ == 0)
        mb->first_ms = cdc_wall_ms();
    bool acc = is_acc(kind);
    if (e->ar.rows > 0 || acc) { /* else a retraction for a group not there */
        if (e->ar.rows <= 0)
            acc_reset(op, &e->ar); /* a group that went, back */
        acc_add(op, &e->ar, row, acc ? 1 : -1);
    }
    if (mb->rows >= g->minibatch_size)
        return mb_fire(g, op, err);
    return 0;
}

/* Fires the batches of every mini-batch operator, children before parents (a parent's batch
 * takes its child's changes): those whose first row waited allow-latency at @p now (>= 0), or
 * all; then the root's changes go through the top pipe. The batches fired, or -1. Lock held. */
static int mb_fire_all(cdc_graph_t *g, int64_t now, cdc_error_t **err)
{
    int fired = 0;
    for (int i = 0; i < g->nops; i++) {
        cdc_op_t *op = g->ops[i];
        if (!op->minibatch || !op->rt)
            continue;
        minibatch_t *mb = ((agg_rt_t *)op->rt)->mb;
        if (mb->rows == 0 || (now >= 0 && now - mb->first_ms < g->minibatch_ms))
            continue;
        if (mb_fire(g, op, err) < 0)
            return -1;
        fired++;
    }
    return flush_top(g, err) < 0 ? -1 : fired;
}

/* ---- keyed lists of rows (a join side's rows per key, a Top-N partition's) ------------------- */

/* Reads the next entry of a list (its count, a number the operator keeps with it, the row's
 * encoding) from @p r; decodes the row when @p t is given. false when malformed. */
static bool entry_read(rd_t *r, const cdc_type_t *t, cdc_arena_t *arena, int64_t *count,
                       uint64_t *aux, cdc_row_t **row, const uint8_t **bytes, size_t *nbytes)
{
    *count = (int64_t)get_varint(r);
    *aux = get_varint(r);
    uint64_t len = get_varint(r);
    if (r->bad || len > (uint64_t)(r->end - r->p))
        return false;
    size_t used = (size_t)len;
    *row = t ? cdc_row_decode(r->p, (size_t)len, t, arena, &used) : NULL;
    if ((t && !*row) || used != len)
        return false;
    *bytes = r->p;
    *nbytes = (size_t)len;
    r->p += len;
    return true;
}

static void entry_write(cdc_buf_t *out, int64_t count, uint64_t aux, const uint8_t *bytes,
                        size_t nbytes)
{
    put_varint(out, (uint64_t)count);
    put_varint(out, aux);
    put_varint(out, nbytes);
    cdc_buf_append(out, bytes, nbytes);
}

/* ---- Join ---------------------------------------------------------------------------------- */

typedef struct jent {
    int64_t count;
    int64_t assoc; /* rows of the other side it matches now (outer sides) */
    cdc_row_t *row;
    const uint8_t *bytes; /* its encoding (for finding it again) */
    size_t nbytes;
} jent_t;

typedef struct jlist {
    jent_t *e;
    int n, cap;
    bool dirty;
} jlist_t;

typedef struct join_rt {
    jlist_t side[2];
    cdc_buf_t key; /* the join key: its own, as the operators above use the shared one */
    win_rt_t win;  /* an interval join: the times rows expire at, each with its join keys */
} join_rt_t;

static bool preserved(const cdc_op_t *op, int side)
{
    return op->join_kind == CDC_SQL_JOIN_FULL ||
           (side == 0 && op->join_kind == CDC_SQL_JOIN_LEFT) ||
           (side == 1 && op->join_kind == CDC_SQL_JOIN_RIGHT);
}

/* Both sides' lists of a join key are one entry, [count0][entries0][count1][entries1], under
   the operator's namespace: a change reads and writes one entry, not two, and the key, the
   overlay's slot and RocksDB's per-entry cost are paid once per key (bench/stateful.sh's join
   made half the lookups and fitted twice the keys in the overlay). */
static uint32_t join_ns(const cdc_op_t *op)
{
    return (uint32_t)op->id << 1;
}

/* Reads one side's list from @p r, decoding the rows when @p t is given. false when malformed. */
static bool jlist_read(rd_t *r, const cdc_type_t *t, cdc_arena_t *arena, jlist_t *l)
{
    l->n = 0;
    l->dirty = false;
    uint64_t n = get_varint(r);
    for (uint64_t k = 0; k < n && !r->bad; k++) {
        jent_t e = {0};
        uint64_t assoc;
        if (!entry_read(r, t, arena, &e.count, &assoc, &e.row, &e.bytes, &e.nbytes))
            return false;
        e.assoc = (int64_t)assoc;
        if (l->n == l->cap) {
            l->cap = l->cap ? l->cap * 2 : 8;
            l->e = cdc_xrealloc(l->e, sizeof(*l->e) * (size_t)l->cap);
        }
        l->e[l->n++] = e;
    }
    return !r->bad;
}

/* Loads both sides' lists at the join key, decoding the rows of the side other than @p side
   (which are joined; @p side's are only found again). 0, or -1 with *err. */
static int jlists_load(graph_rt_t *rt, cdc_op_t *op, int side, cdc_error_t **err)
{
    join_rt_t *jr = op->rt;
    jr->side[0].n = jr->side[1].n = 0;
    jr->side[0].dirty = jr->side[1].dirty = false;
    const void *val;
    size_t vlen;
    int found = cdc_state_get(rt->state, join_ns(op), jr->key.data, jr->key.len, &val, &vlen, err);
    if (found <= 0)
        return found;
    /* the value is valid until the next state call: copy it into the scratch arena */
    uint8_t *copy = cdc_arena_alloc(&rt->scratch, vlen ? vlen : 1);
    memcpy(copy, val, vlen);
    rd_t r = {.p = copy, .end = copy + vlen};
    for (int s = 0; s < 2; s++)
        if (!jlist_read(&r, s == side ? NULL : op->in_type[s], &rt->scratch, &jr->side[s]))
            return state_fail(op, "a join side's rows", err);
    if (r.p != r.end)
        return state_fail(op, "a join side's rows", err);
    return 0;
}

static int jlists_save(graph_rt_t *rt, cdc_op_t *op, cdc_error_t **err)
{
    join_rt_t *jr = op->rt;
    if (jr->side[0].n == 0 && jr->side[1].n == 0)
        return cdc_state_del(rt->state, join_ns(op), jr->key.data, jr->key.len, err);
    cdc_buf_clear(&rt->val);
    for (int s = 0; s < 2; s++) {
        const jlist_t *l = &jr->side[s];
        put_varint(&rt->val, (uint64_t)l->n);
        for (int k = 0; k < l->n; k++)
            entry_write(&rt->val, l->e[k].count, (uint64_t)l->e[k].assoc, l->e[k].bytes,
                        l->e[k].nbytes);
    }
    return cdc_state_put(rt->state, join_ns(op), jr->key.data, jr->key.len, rt->val.data,
                         rt->val.len, err);
}

/* The joined row of a left and a right row (NULL: that side padded with NULLs). */
static cdc_row_t *joined(graph_rt_t *rt, const cdc_op_t *op, const cdc_row_t *l, const cdc_row_t *r)
{
    int nl = op->in_type[0]->nchildren, nr = op->in_type[1]->nchildren;
    cdc_row_t *o = new_row(rt, (uint32_t)(nl + nr));
    for (int f = 0; f < nl; f++) {
        if (l)
            o->values[f] = l->values[f];
        else
            o->values[f].flags = CDC_V_NULL;
    }
    for (int f = 0; f < nr; f++) {
        if (r)
            o->values[nl + f] = r->values[f];
        else
            o->values[nl + f].flags = CDC_V_NULL;
    }
    return o;
}

static int emit_n(cdc_graph_t *g, cdc_op_t *op, cdc_kind_t kind, const cdc_row_t *row, int64_t n,
                  cdc_error_t **err)
{
    for (int64_t i = 0; i < n; i++)
        if (emit(g, op, kind, row, err) < 0)
            return -1;
    return 0;
}

/* Counts @p row (an accumulation when @p acc, else a retraction) in its side's list at the join
 * key, whose other side now matches it @p matches times, and saves both lists. */
static int jlist_update(graph_rt_t *rt, cdc_op_t *op, int side, bool acc, const cdc_row_t *row,
                        int64_t matches, cdc_error_t **err)
{
    join_rt_t *jr = op->rt;
    jlist_t *ol = &jr->side[1 - side], *ml = &jr->side[side];
    /* this side's state */
    cdc_buf_clear(&rt->tmp);
    cdc_row_encode(&rt->tmp, row, op->in_type[side]);
    int at = -1;
    for (int k = 0; k < ml->n && at < 0; k++)
        if (ml->e[k].nbytes == rt->tmp.len &&
            memcmp(ml->e[k].bytes, rt->tmp.data, rt->tmp.len) == 0)
            at = k;
    if (acc) {
        if (at >= 0) {
            ml->e[at].count++;
        } else {
            if (ml->n == ml->cap) {
                ml->cap = ml->cap ? ml->cap * 2 : 8;
                ml->e = cdc_xrealloc(ml->e, sizeof(*ml->e) * (size_t)ml->cap);
            }
            uint8_t *b = cdc_arena_alloc(&rt->scratch, rt->tmp.len ? rt->tmp.len : 1);
            memcpy(b, rt->tmp.data, rt->tmp.len);
            ml->e[ml->n++] = (jent_t){.count = 1,
                                      .assoc = matches,
                                      .row = (cdc_row_t *)row,
                                      .bytes = b,
                                      .nbytes = rt->tmp.len};
        }
        ml->dirty = true;
    } else if (at >= 0) {
        if (--ml->e[at].count <= 0) {
            memmove(&ml->e[at], &ml->e[at + 1], sizeof(*ml->e) * (size_t)(ml->n - at - 1));
            ml->n--;
        }
        ml->dirty = true;
    }
    return ol->dirty || ml->dirty ? jlists_save(rt, op, err) : 0;
}

/* Whether left row @p l and right row @p r meet the join's other conditions; -1 with *err. */
static int cond_holds(graph_rt_t *rt, cdc_op_t *op, const cdc_row_t *l, const cdc_row_t *r,
                      cdc_error_t **err)
{
    if (!op->cond)
        return 1;
    int nl = op->in_type[0]->nchildren, nr = op->in_type[1]->nchildren;
    cdc_row_t *j = new_row(rt, (uint32_t)(nl + nr));
    memcpy(j->values, l->values, sizeof(cdc_value_t) * (size_t)nl);
    memcpy(j->values + nl, r->values, sizeof(cdc_value_t) * (size_t)nr);
    bool keep = false;
    if (cdc_expr_eval_predicate(op->cond, j, &rt->scratch, &keep, rt->errbuf, sizeof(rt->errbuf)) <
        0) {
        *err = cdc_error_new(CDC_ERR_PARSE, "cannot evaluate the join condition (%s): %s",
                             op->explain, rt->errbuf);
        return -1;
    }
    return keep ? 1 : 0;
}

/* A semi (anti) join: a left row is emitted while its count of matching right rows (kept as the
 * entry's assoc) is above zero (is zero); a right row moves the counts of the left rows it
 * matches and emits or retracts those that cross zero. A key with a NULL (unless null-safe)
 * matches nothing. */
static int semi_push(cdc_graph_t *g, cdc_op_t *op, int side, cdc_kind_t kind, const cdc_row_t *row,
                     bool null_key, cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    join_rt_t *jr = op->rt;
    bool acc = is_acc(kind);
    cdc_kind_t out_kind = acc ? CDC_INSERT : CDC_DELETE;
    if (null_key)
        return side == 0 && op->anti ? emit(g, op, out_kind, row, err) : 0;
    const int *keys = side == 0 ? op->lkeys : op->rkeys;
    cdc_row_key_bytes(row, keys, op->nkeys, op->in_type[side], &jr->key);
    jlist_t *ol = &jr->side[1 - side];
    if (jlists_load(rt, op, side, err) < 0)
        return -1;
    int64_t matches = 0;
    for (int k = 0; k < ol->n; k++) {
        jent_t *m = &ol->e[k];
        int c =
            side == 0 ? cond_holds(rt, op, row, m->row, err) : cond_holds(rt, op, m->row, row, err);
        if (c < 0)
            return -1;
        if (!c)
            continue;
        matches += m->count;
        if (side == 0)
            continue;
        /* a right row: the left rows it matches cross zero or not */
        int64_t before = m->assoc;
        m->assoc += acc ? 1 : -1;
        if (m->assoc < 0)
            m->assoc = 0;
        ol->dirty = true;
        bool was = op->semi ? before > 0 : before == 0,
             is = op->semi ? m->assoc > 0 : m->assoc == 0;
        if (was != is && emit_n(g, op, is ? CDC_INSERT : CDC_DELETE, m->row, m->count, err) < 0)
            return -1;
    }
    if (side == 0 && (op->semi ? matches > 0 : matches == 0) && emit(g, op, out_kind, row, err) < 0)
        return -1;
    return jlist_update(rt, op, side, acc, row, side == 0 ? matches : 0, err);
}

static int join_push(cdc_graph_t *g, cdc_op_t *op, int side, cdc_kind_t kind, const cdc_row_t *row,
                     cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    join_rt_t *jr = op->rt;
    bool acc = is_acc(kind);
    int other = 1 - side;
    const int *keys = side == 0 ? op->lkeys : op->rkeys;
    bool null_key = false;
    for (int k = 0; k < op->nkeys && !op->null_safe; k++)
        null_key = null_key || cdc_value_is_null(&row->values[keys[k]]);
    cdc_kind_t out_kind = acc ? CDC_INSERT : CDC_DELETE;
    if (op->semi || op->anti)
        return semi_push(g, op, side, kind, row, null_key, err);
    if (null_key) { /* matches nothing, and nothing needs it later */
        if (!preserved(op, side))
            return 0;
        return emit(g, op, out_kind,
                    side == 0 ? joined(rt, op, row, NULL) : joined(rt, op, NULL, row), err);
    }
    cdc_row_key_bytes(row, keys, op->nkeys, op->in_type[side], &jr->key);
    jlist_t *ol = &jr->side[other];
    if (jlists_load(rt, op, side, err) < 0)
        return -1;
    int64_t matches = 0;
    for (int k = 0; k < ol->n; k++) {
        jent_t *m = &ol->e[k];
        const cdc_row_t *l = side == 0 ? row : m->row, *r = side == 0 ? m->row : row;
        cdc_row_t *j = joined(rt, op, l, r);
        if (op->cond) {
            bool keep = false;
            if (cdc_expr_eval_predicate(op->cond, j, &rt->scratch, &keep, rt->errbuf,
                                        sizeof(rt->errbuf)) < 0) {
                *err = cdc_error_new(CDC_ERR_PARSE, "cannot evaluate the join condition (%s): %s",
                                     op->explain, rt->errbuf);
                return -1;
            }
            if (!keep)
                continue;
        }
        matches += m->count;
        bool opres = preserved(op, other);
        cdc_row_t *pad = NULL;
        if (opres)
            pad = other == 0 ? joined(rt, op, m->row, NULL) : joined(rt, op, NULL, m->row);
        if (opres && acc && m->assoc == 0 && emit_n(g, op, CDC_DELETE, pad, m->count, err) < 0)
            return -1;
        if (emit_n(g, op, out_kind, j, m->count, err) < 0)
            return -1;
        if (opres) {
            m->assoc += acc ? 1 : -1;
            if (m->assoc < 0)
                m->assoc = 0;
            if (!acc && m->assoc == 0 && emit_n(g, op, CDC_INSERT, pad, m->count, err) < 0)
                return -1;
            ol->dirty = true;
        }
    }
    if (preserved(op, side) && matches == 0 &&
        emit(g, op, out_kind, side == 0 ? joined(rt, op, row, NULL) : joined(rt, op, NULL, row),
             err) < 0)
        return -1;
    return jlist_update(rt, op, side, acc, row, matches, err);
}

/* ---- Rank (Top-N) ---------------------------------------------------------------------------- */

typedef struct rent {
    int64_t count;
    uint64_t seq;
    cdc_row_t *row;
    const uint8_t *bytes;
    size_t nbytes;
} rent_t;

typedef struct rank_rt {
    rent_t *e;
    int n, cap;
    const rent_t **before, **after; /* the top N rows (expanded by count) */
    int cap_top;
} rank_rt_t;

static int rank_cmp(const cdc_op_t *op, const rent_t *a, const rent_t *b)
{
    if (!op->by_arrival) {
        for (int i = 0; i < op->norder; i++) {
            const cdc_value_t *va = &a->row->values[op->order[i]],
                              *vb = &b->row->values[op->order[i]];
            bool na = cdc_value_is_null(va), nb = cdc_value_is_null(vb);
            int c;
            if (na || nb) {
                if (na && nb)
                    continue;
                c = na ? -1 : 1;
                if (!op->nulls_first[i])
                    c = -c;
                return c;
            }
            c = cdc_value_cmp(op->in_type[0]->children[op->order[i]], va, vb);
            if (c == 2)
                c = 0;
            if (c)
                return op->desc[i] ? -c : c;
        }
        return a->seq < b->seq ? -1 : a->seq > b->seq;
    }
    int c = a->seq < b->seq ? -1 : a->seq > b->seq;
    return op->desc[0] ? -c : c;
}

static int top_rows(const cdc_op_t *op, rank_rt_t *rr, const rent_t **out)
{
    int n = 0;
    for (int k = 0; k < rr->n && n < op->limit; k++)
        for (int64_t c = 0; c < rr->e[k].count && n < op->limit; c++)
            out[n++] = &rr->e[k];
    return n;
}

static cdc_row_t *ranked(graph_rt_t *rt, const cdc_op_t *op, const cdc_row_t *row, int64_t rn)
{
    int ni = op->in_type[0]->nchildren;
    cdc_row_t *o = new_row(rt, (uint32_t)(ni + 1));
    memcpy(o->values, row->values, sizeof(cdc_value_t) * (size_t)ni);
    memset(&o->values[ni], 0, sizeof(cdc_value_t));
    o->values[ni].v.i = rn;
    return o;
}

static int rank_push(cdc_graph_t *g, cdc_op_t *op, cdc_kind_t kind, const cdc_row_t *row,
                     cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    rank_rt_t *rr = op->rt;
    uint32_t ns = (uint32_t)op->id << 1;
    cdc_row_key_bytes(row, op->part, op->npart, op->in_type[0], &rt->key);
    const void *val;
    size_t vlen;
    int found = cdc_state_get(rt->state, ns, rt->key.data, rt->key.len, &val, &vlen, err);
    if (found < 0)
        return -1;
    rr->n = 0;
    if (found) {
        uint8_t *copy = cdc_arena_alloc(&rt->scratch, vlen ? vlen : 1);
        memcpy(copy, val, vlen);
        rd_t r = {.p = copy, .end = copy + vlen};
        uint64_t n = get_varint(&r);
        for (uint64_t k = 0; k < n && !r.bad; k++) {
            rent_t e = {0};
            if (!entry_read(&r, op->in_type[0], &rt->scratch, &e.count, &e.seq, &e.row, &e.bytes,
                            &e.nbytes)) {
                r.bad = true;
                break;
            }
            if (rr->n == rr->cap) {
                rr->cap = rr->cap ? rr->cap * 2 : 8;
                rr->e = cdc_xrealloc(rr->e, sizeof(*rr->e) * (size_t)rr->cap);
            }
            rr->e[rr->n++] = e;
        }
        if (r.bad || r.p != r.end)
            return state_fail(op, "a Top-N partition's rows", err);
    }
    if ((int64_t)rr->cap_top < op->limit + 1) {
        rr->cap_top = (int)op->limit + 1;
        rr->before = cdc_xrealloc(rr->before, sizeof(*rr->before) * (size_t)rr->cap_top);
        rr->after = cdc_xrealloc(rr->after, sizeof(*rr->after) * (size_t)rr->cap_top);
    }
    /* the rows before, kept as copies (the list moves) */
    rent_t *old = cdc_arena_alloc(&rt->scratch, sizeof(rent_t) * (size_t)(op->limit + 1));

    int nb = top_rows(op, rr, rr->before);
    for (int i = 0; i < nb; i++) {
        old[i] = *rr->before[i];
        rr->before[i] = &old[i];
    }
    cdc_buf_clear(&rt->tmp);
    cdc_row_encode(&rt->tmp, row, op->in_type[0]);
    if (is_acc(kind)) {
        uint8_t *b = cdc_arena_alloc(&rt->scratch, rt->tmp.len ? rt->tmp.len : 1);
        memcpy(b, rt->tmp.data, rt->tmp.len);
        rent_t ne = {.count = 1,
                     .seq = ++rt->seq,
                     .row = (cdc_row_t *)row,
                     .bytes = b,
                     .nbytes = rt->tmp.len};
        int at = rr->n;
        while (at > 0 && rank_cmp(op, &rr->e[at - 1], &ne) > 0)
            at--;
        if (rr->n == rr->cap) {
            rr->cap = rr->cap ? rr->cap * 2 : 8;
            rr->e = cdc_xrealloc(rr->e, sizeof(*rr->e) * (size_t)rr->cap);
        }
        memmove(&rr->e[at + 1], &rr->e[at], sizeof(*rr->e) * (size_t)(rr->n - at));
        rr->e[at] = ne;
        rr->n++;
        /* an insert-only input never brings a row back: what falls out of the top N is gone */
        if (op->in_mode[0] == CDC_MODE_INSERT_ONLY) {
            int64_t kept = 0;
            int k = 0;
            for (; k < rr->n && kept < op->limit; k++)
                kept += rr->e[k].count;
            rr->n = k;
        }
    } else {
        int at = -1;
        for (int k = 0; k < rr->n && at < 0; k++)
            if (rr->e[k].nbytes == rt->tmp.len &&
                memcmp(rr->e[k].bytes, rt->tmp.data, rt->tmp.len) == 0)
                at = k;
        if (at < 0)
            return 0; /* never seen (or expired): nothing to retract */
        if (--rr->e[at].count <= 0) {
            memmove(&rr->e[at], &rr->e[at + 1], sizeof(*rr->e) * (size_t)(rr->n - at - 1));
            rr->n--;
        }
    }
    int na = top_rows(op, rr, rr->after);
    /* state */
    if (rr->n == 0) {
        if (cdc_state_del(rt->state, ns, rt->key.data, rt->key.len, err) < 0)
            return -1;
    } else {
        cdc_buf_clear(&rt->val);
        put_varint(&rt->val, (uint64_t)rr->n);
        for (int k = 0; k < rr->n; k++) {
            entry_write(&rt->val, rr->e[k].count, rr->e[k].seq, rr->e[k].bytes, rr->e[k].nbytes);
        }
        if (cdc_state_put(rt->state, ns, rt->key.data, rt->key.len, rt->val.data, rt->val.len,
                          err) < 0)
            return -1;
    }
    /* the changes, position by position */
    int n = na > nb ? na : nb;
    for (int i = 0; i < n; i++) {
        const rent_t *o = i < nb ? rr->before[i] : NULL, *a = i < na ? rr->after[i] : NULL;
        if (o && a && o->nbytes == a->nbytes && memcmp(o->bytes, a->bytes, o->nbytes) == 0)
            continue;
        if (o && a) {
            if (emit(g, op, CDC_UPDATE_BEFORE, ranked(rt, op, o->row, i + 1), err) < 0 ||
                emit(g, op, CDC_UPDATE_AFTER, ranked(rt, op, a->row, i + 1), err) < 0)
                return -1;
        } else if (a) {
            if (emit(g, op, CDC_INSERT, ranked(rt, op, a->row, i + 1), err) < 0)
                return -1;
        } else if (emit(g, op, CDC_DELETE, ranked(rt, op, o->row, i + 1), err) < 0) {
            return -1;
        }
    }
    return 0;
}

static int window_push(cdc_graph_t *g, cdc_op_t *op, cdc_kind_t kind, const cdc_row_t *row,
                       cdc_error_t **err);
static int over_push(cdc_graph_t *g, cdc_op_t *op, cdc_kind_t kind, const cdc_row_t *row,
                     cdc_error_t **err);
static int over_fire(cdc_graph_t *g, cdc_op_t *op, int64_t wm, cdc_error_t **err);

/* ---- $REPLICATE_ROWS$ ---------------------------------------------------------------------- */

static int replicate_push(cdc_graph_t *g, cdc_op_t *op, cdc_kind_t kind, const cdc_row_t *row,
                          cdc_error_t **err)
{
    if (cdc_value_is_null(&row->values[0]) || row->values[0].v.i <= 0)
        return 0;
    cdc_row_t *o = new_row(g->rt, row->arity - 1);
    memcpy(o->values, row->values + 1, sizeof(cdc_value_t) * (row->arity - 1));
    /* copies have no key: an update of the count retracts and adds copies */
    return emit_n(g, op, is_acc(kind) ? CDC_INSERT : CDC_DELETE, o, row->values[0].v.i, err);
}

/* GROUPING SETS: the row once per grouping set, the keys outside the set NULL, the set's id
 * appended. */
static int expand_push(cdc_graph_t *g, cdc_op_t *op, cdc_kind_t kind, const cdc_row_t *row,
                       cdc_error_t **err)
{
    uint32_t ni = row->arity;
    for (int s = 0; s < op->nsets; s++) {
        cdc_row_t *o = new_row(g->rt, ni + 1);
        memcpy(o->values, row->values, sizeof(cdc_value_t) * ni);
        for (int k = 0; k < op->ngroup; k++)
            if (!(op->sets[s] >> k & 1))
                o->values[k] = (cdc_value_t){.flags = CDC_V_NULL};
        o->values[ni] = (cdc_value_t){.v.i = op->set_ids[s]};
        if (emit(g, op, kind, o, err) < 0)
            return -1;
    }
    return 0;
}
static int sort_push(cdc_graph_t *g, cdc_op_t *op, cdc_kind_t kind, const cdc_row_t *row,
                     cdc_error_t **err);
static int ijoin_push(cdc_graph_t *g, cdc_op_t *op, int side, cdc_kind_t kind, const cdc_row_t *row,
                      cdc_error_t **err);

static int push(cdc_graph_t *g, cdc_op_t *op, int port, cdc_kind_t kind, const cdc_row_t *row,
                cdc_error_t **err)
{
    switch (op->kind) {
    case CDC_OP_EXPAND:
        return expand_push(g, op, kind, row, err);
    case CDC_OP_WINDOW:
        return window_push(g, op, kind, row, err);
    case CDC_OP_SORT:
        return sort_push(g, op, kind, row, err);
    case CDC_OP_CALC:
        return calc_push(g, op, kind, row, err);
    case CDC_OP_AGG:
        return agg_push(g, op, kind, row, err);
    case CDC_OP_JOIN:
        return op->interval ? ijoin_push(g, op, port, kind, row, err)
                            : join_push(g, op, port, kind, row, err);
    case CDC_OP_UNION:
        return emit(g, op, kind, row, err);
    case CDC_OP_REPLICATE:
        return replicate_push(g, op, kind, row, err);
    case CDC_OP_OVER:
        return over_push(g, op, kind, row, err);
    default:
        return rank_push(g, op, kind, row, err);
    }
}

/* ---- windows: the window table function, window aggregation, watermarks ------------------ */

/* Each row once per window its time falls in (Flink's window assigners), with window_start,
 * window_end and window_time (end - 1 ms) appended. */
static int window_push(cdc_graph_t *g, cdc_op_t *op, cdc_kind_t kind, const cdc_row_t *row,
                       cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    const cdc_value_t *tv = &row->values[op->timecol];
    if (cdc_value_is_null(tv))
        return 0; /* no time, no window (Flink drops it too) */
    int64_t ts = tv->v.ts.millis, size = op->win_size, off = op->win_offset;
    int ni = op->in_type[0]->nchildren;
    int64_t starts[4096], ends[4096];
    int n = 0;
    if (op->win_kind == CDC_SQL_TVF_HOP) {
        int64_t slide = op->win_step;
        int64_t last = ts - (((ts - off) % slide) + slide) % slide;
        for (int64_t st = last; st > ts - size && n < 4096; st -= slide, n++) {
            starts[n] = st;
            ends[n] = st + size;
        }
    } else {
        int64_t st = ts - (((ts - off) % size) + size) % size;
        if (op->win_kind == CDC_SQL_TVF_CUMULATE) {
            for (int64_t e = st + op->win_step; e <= st + size && n < 4096; e += op->win_step)
                if (e > ts) {
                    starts[n] = st;
                    ends[n++] = e;
                }
        } else {
            starts[n] = st;
            ends[n++] = st + size;
        }
    }
    for (int k = n - 1; k >= 0; k--) { /* earliest window first */
        cdc_row_t *o = new_row(rt, (uint32_t)(ni + 3));
        memcpy(o->values, row->values, sizeof(cdc_value_t) * (size_t)ni);
        memset(&o->values[ni], 0, 3 * sizeof(cdc_value_t));
        o->values[ni].v.ts.millis = starts[k];
        o->values[ni + 1].v.ts.millis = ends[k];
        o->values[ni + 2].v.ts.millis = ends[k] - 1;
        if (emit(g, op, kind, o, err) < 0)
            return -1;
    }
    return 0;
}

static const char ENDS_KEY[] = "ends";

/* The pending window ends of a window aggregation, from the state the first time. */
static int wends_load(graph_rt_t *rt, cdc_op_t *op, win_rt_t *wr, cdc_error_t **err)
{
    if (wr->loaded)
        return 0;
    wr->loaded = true;
    const void *val;
    size_t vlen;
    int found = cdc_state_get(rt->state, ((uint32_t)op->id << 1) | 1, ENDS_KEY, sizeof(ENDS_KEY),
                              &val, &vlen, err);
    if (found <= 0)
        return found;
    rd_t r = {.p = val, .end = (const uint8_t *)val + vlen};
    uint64_t n = get_varint(&r);
    for (uint64_t k = 0; k < n && !r.bad; k++) {
        if (wr->nends == wr->cap) {
            wr->cap = wr->cap ? wr->cap * 2 : 16;
            wr->ends = cdc_xrealloc(wr->ends, sizeof(*wr->ends) * (size_t)wr->cap);
        }
        wr->ends[wr->nends++] = (int64_t)get_varint(&r);
    }
    if (r.bad)
        return state_fail(op, "a window aggregation's pending windows", err);
    return 0;
}

static int wends_save(graph_rt_t *rt, cdc_op_t *op, win_rt_t *wr, cdc_error_t **err)
{
    cdc_buf_clear(&rt->val);
    put_varint(&rt->val, (uint64_t)wr->nends);
    for (int k = 0; k < wr->nends; k++)
        put_varint(&rt->val, (uint64_t)wr->ends[k]);
    return cdc_state_put(rt->state, ((uint32_t)op->id << 1) | 1, ENDS_KEY, sizeof(ENDS_KEY),
                         rt->val.data, rt->val.len, err);
}

/* Adds @p end, not there yet, to the pending ends in order, and saves them. */
static int wends_insert(graph_rt_t *rt, cdc_op_t *op, win_rt_t *wr, int64_t end, cdc_error_t **err)
{
    int at = wr->nends;
    while (at > 0 && wr->ends[at - 1] > end)
        at--;
    if (wr->nends == wr->cap) {
        wr->cap = wr->cap ? wr->cap * 2 : 16;
        wr->ends = cdc_xrealloc(wr->ends, sizeof(*wr->ends) * (size_t)wr->cap);
    }
    memmove(&wr->ends[at + 1], &wr->ends[at], sizeof(*wr->ends) * (size_t)(wr->nends - at));
    wr->ends[at] = end;
    wr->nends++;
    return wends_save(rt, op, wr, err);
}

/* The state key of the groups waiting for window end @p end. */
static void wlist_key(int64_t end, uint8_t out[9])
{
    out[0] = 'E';
    for (int i = 0; i < 8; i++)
        out[1 + i] = (uint8_t)((uint64_t)end >> (56 - 8 * i));
}

/* Appends @p data (a varint length, then the bytes) to the list of time @p t in the operator's
 * second namespace, and @p t to the pending times when it is new. */
static int wlist_append(graph_rt_t *rt, cdc_op_t *op, win_rt_t *wr, int64_t t, const void *data,
                        size_t len, cdc_error_t **err)
{
    uint32_t ns = ((uint32_t)op->id << 1) | 1;
    uint8_t lk[9];
    wlist_key(t, lk);
    const void *lv;
    size_t llen;
    int lf = cdc_state_get(rt->state, ns, lk, sizeof(lk), &lv, &llen, err);
    if (lf < 0)
        return -1;
    cdc_buf_clear(&wr->list);
    if (lf)
        cdc_buf_append(&wr->list, lv, llen);
    put_varint(&wr->list, len);
    cdc_buf_append(&wr->list, data, len);
    if (cdc_state_put(rt->state, ns, lk, sizeof(lk), wr->list.data, wr->list.len, err) < 0)
        return -1;
    return lf ? 0 : wends_insert(rt, op, wr, t, err); /* a new time */
}

/* A row of a window aggregation: into its group's accumulators, unless its window has fired. */
static int wagg_push(cdc_graph_t *g, cdc_op_t *op, cdc_kind_t kind, const cdc_row_t *row,
                     cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    agg_rt_t *ar = op->rt;
    win_rt_t *wr = ar->win;
    if (!is_acc(kind))
        return 0; /* the window function reads append-only tables */
    int64_t end = row->values[op->group[op->win_end_field]].v.ts.millis;
    if (!op->proctime && end - 1 <= wr->wm) {
        rt->late++;
        return 0;
    }
    if (wends_load(rt, op, wr, err) < 0)
        return -1;
    cdc_row_key_bytes(row, op->group, op->ngroup, op->in_type[0], &rt->key);
    uint32_t ns = (uint32_t)op->id << 1;
    const void *val;
    size_t vlen;
    int found = cdc_state_get(rt->state, ns, rt->key.data, rt->key.len, &val, &vlen, err);
    if (found < 0)
        return -1;
    cdc_buf_clear(&rt->tmp);
    if (found) {
        rd_t r = {.p = val, .end = (const uint8_t *)val + vlen};
        uint64_t glen = get_varint(&r);
        if (r.bad || glen > (uint64_t)(r.end - r.p) ||
            !acc_decode(op, ar, rt, r.p + glen, (size_t)(r.end - r.p - glen)))
            return state_fail(op, "a window's accumulators", err);
        cdc_buf_append(&rt->tmp, val, (size_t)(r.p - (const uint8_t *)val) + glen);
    } else {
        acc_reset(op, ar);
        /* the group's values (the key bytes cannot be read back), then its window's list */
        cdc_buf_t grow = {0};
        cdc_type_t gt = *op->in_type[0];
        gt.nchildren = op->ngroup;
        cdc_row_encode(&grow, row, &gt);
        put_varint(&rt->tmp, grow.len);
        cdc_buf_append(&rt->tmp, grow.data, grow.len);
        cdc_buf_free(&grow);
        if (wlist_append(rt, op, wr, end, rt->key.data, rt->key.len, err) < 0)
            return -1;
    }
    acc_add(op, ar, row, 1);
    size_t head = rt->tmp.len;
    acc_encode(op, ar, &rt->val);
    cdc_buf_append(&rt->tmp, rt->val.data, rt->val.len);
    (void)head;
    return cdc_state_put(rt->state, ns, rt->key.data, rt->key.len, rt->tmp.data, rt->tmp.len, err);
}

/* What a fire does with the list of one due time: its bytes (a copy in the scratch arena). */
typedef int (*wlist_fire_fn)(cdc_graph_t *g, cdc_op_t *op, const uint8_t *list, size_t len,
                             int64_t wm, cdc_error_t **err);

/* Hands the list of every pending time of @p op that the watermark @p wm reached (a time t when
 * t - @p shift <= wm), in time order, to @p fn; each list then leaves the state, and so do the
 * times. */
static int wends_fire(cdc_graph_t *g, cdc_op_t *op, win_rt_t *wr, int64_t wm, int64_t shift,
                      wlist_fire_fn fn, cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    uint32_t ns = ((uint32_t)op->id << 1) | 1;
    if (wends_load(rt, op, wr, err) < 0)
        return -1;
    int fired = 0;
    while (fired < wr->nends && wr->ends[fired] - shift <= wm) {
        uint8_t lk[9];
        wlist_key(wr->ends[fired], lk);
        const void *lv;
        size_t llen;
        int lf = cdc_state_get(rt->state, ns, lk, sizeof(lk), &lv, &llen, err);
        if (lf < 0)
            return -1;
        /* the value is valid until the next state call: copy it */
        uint8_t *copy = cdc_arena_alloc(&rt->scratch, lf && llen ? llen : 1);
        if (lf)
            memcpy(copy, lv, llen);
        if (fn(g, op, copy, lf ? llen : 0, wm, err) < 0 ||
            cdc_state_del(rt->state, ns, lk, sizeof(lk), err) < 0)
            return -1;
        fired++;
        if (rt->topin.n >= 4096 && flush_top(g, err) < 0)
            return -1;
    }
    if (wm > wr->wm)
        wr->wm = wm;
    if (fired) {
        memmove(wr->ends, wr->ends + fired, sizeof(*wr->ends) * (size_t)(wr->nends - fired));
        wr->nends -= fired;
        if (wends_save(rt, op, wr, err) < 0)
            return -1;
    }
    return 0;
}

/* The results of one fired window end: every group in its list (the groups' keys). */
static int wagg_fire_list(cdc_graph_t *g, cdc_op_t *op, const uint8_t *list, size_t len, int64_t wm,
                          cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    agg_rt_t *ar = op->rt;
    uint32_t ns = (uint32_t)op->id << 1;
    cdc_type_t gt = *op->in_type[0];
    gt.nchildren = op->ngroup;
    (void)wm;
    rd_t r = {.p = list, .end = list + len};
    while (r.p < r.end && !r.bad) {
        uint64_t klen = get_varint(&r);
        if (r.bad || klen > (uint64_t)(r.end - r.p))
            return state_fail(op, "a window's group list", err);
        const uint8_t *key = r.p;
        r.p += klen;
        const void *val;
        size_t vlen;
        int found = cdc_state_get(rt->state, ns, key, (size_t)klen, &val, &vlen, err);
        if (found < 0)
            return -1;
        if (!found)
            continue; /* expired (table.exec.state.ttl) */
        uint8_t *copy = cdc_arena_alloc(&rt->scratch, vlen ? vlen : 1);
        memcpy(copy, val, vlen);
        rd_t v = {.p = copy, .end = copy + vlen};
        uint64_t glen = get_varint(&v);
        size_t used = 0;
        cdc_row_t *grow = !v.bad && glen <= (uint64_t)(v.end - v.p)
                              ? cdc_row_decode(v.p, (size_t)glen, &gt, &rt->scratch, &used)
                              : NULL;
        if (!grow || used != glen ||
            !acc_decode(op, ar, rt, v.p + glen, (size_t)(v.end - v.p - glen)))
            return state_fail(op, "a window's accumulators", err);
        /* the output: the group fields, then the results (agg_output reads the group by
           field index of the input row: give it a row with them at those places) */
        cdc_row_t *in = new_row(rt, (uint32_t)op->in_type[0]->nchildren);
        for (int k = 0; k < op->ngroup; k++)
            in->values[op->group[k]] = grow->values[k];
        if (emit(g, op, CDC_INSERT, agg_output(rt, op, ar, in), err) < 0)
            return -1;
        if (cdc_state_del(rt->state, ns, key, (size_t)klen, err) < 0)
            return -1;
    }
    return r.bad ? state_fail(op, "a window's group list", err) : 0;
}

/* Emits the results of every window of @p op whose end the watermark has passed. */
static int wagg_fire(cdc_graph_t *g, cdc_op_t *op, int64_t wm, cdc_error_t **err)
{
    return wends_fire(g, op, ((agg_rt_t *)op->rt)->win, wm, 1, wagg_fire_list, err);
}

/* ---- IntervalJoin ----------------------------------------------------------------------------
 *
 * The regular join's state (both sides' rows per join key, each with whether it matched), and
 * the window aggregation's pending times: per time, the join keys with a row that expires then.
 * A row joins the other side's rows it meets the condition with (the time bounds among it) and
 * waits until the watermark passes the last time a row of the other side can join it (left.t -
 * lo for a left row, right.t + hi for a right one); it then leaves the state, and an outer
 * side's row that matched nothing is emitted with NULLs. Insert-only, as Flink's.
 */

/* The last time of the other side that can join a row of @p side with time @p t: once the
 * watermark is past it, only late rows could. */
static int64_t ijoin_expiry(const cdc_op_t *op, int side, int64_t t)
{
    return side == 0 ? t - op->ilo : t + op->ihi;
}

static int ijoin_push(cdc_graph_t *g, cdc_op_t *op, int side, cdc_kind_t kind, const cdc_row_t *row,
                      cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    join_rt_t *jr = op->rt;
    if (!is_acc(kind))
        return 0; /* the planner lets only appends in */
    int other = 1 - side;
    const int *keys = side == 0 ? op->lkeys : op->rkeys;
    const cdc_value_t *tv = &row->values[side == 0 ? op->ltime : op->rtime];
    bool null_key = cdc_value_is_null(tv);
    for (int k = 0; k < op->nkeys; k++)
        null_key = null_key || cdc_value_is_null(&row->values[keys[k]]);
    cdc_row_t *pad = side == 0 ? joined(rt, op, row, NULL) : joined(rt, op, NULL, row);
    if (null_key) /* joins nothing */
        return preserved(op, side) ? emit(g, op, CDC_INSERT, pad, err) : 0;
    int64_t expire = ijoin_expiry(op, side, tv->v.ts.millis);
    cdc_row_key_bytes(row, keys, op->nkeys, op->in_type[side], &jr->key);
    if (jlists_load(rt, op, side, err) < 0)
        return -1;
    jlist_t *ol = &jr->side[other];
    int64_t matches = 0;
    for (int k = 0; k < ol->n; k++) {
        jent_t *m = &ol->e[k];
        const cdc_row_t *l = side == 0 ? row : m->row, *r = side == 0 ? m->row : row;
        int c = cond_holds(rt, op, l, r, err);
        if (c < 0)
            return -1;
        if (!c)
            continue;
        matches += m->count;
        if (emit_n(g, op, CDC_INSERT, joined(rt, op, l, r), m->count, err) < 0)
            return -1;
        if (m->assoc == 0) {
            m->assoc = 1; /* matched: no NULL-padded row when it expires */
            ol->dirty = true;
        }
    }
    if (wends_load(rt, op, &jr->win, err) < 0)
        return -1;
    if (expire < jr->win.wm) { /* nothing that is not late can join it any more */
        if (preserved(op, side) && matches == 0 && emit(g, op, CDC_INSERT, pad, err) < 0)
            return -1;
        return ol->dirty ? jlists_save(rt, op, err) : 0;
    }
    if (jlist_update(rt, op, side, true, row, matches > 0, err) < 0)
        return -1;
    return wlist_append(rt, op, &jr->win, expire, jr->key.data, jr->key.len, err);
}

/* The rows of the join key in jr->key whose expiry time the watermark @p wm reached leave the
 * state (an outer side's unmatched ones emitted NULL-padded). */
static int ijoin_expire_key(cdc_graph_t *g, cdc_op_t *op, int64_t wm, cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    join_rt_t *jr = op->rt;
    if (jlists_load(rt, op, -1, err) < 0) /* both sides' rows decoded */
        return -1;
    for (int s = 0; s < 2; s++) {
        jlist_t *l = &jr->side[s];
        int kept = 0, tf = s == 0 ? op->ltime : op->rtime;
        for (int k = 0; k < l->n; k++) {
            jent_t *e = &l->e[k];
            if (ijoin_expiry(op, s, e->row->values[tf].v.ts.millis) >= wm) {
                l->e[kept++] = *e;
                continue;
            }
            l->dirty = true;
            if (preserved(op, s) && e->assoc == 0 &&
                emit_n(g, op, CDC_INSERT,
                       s == 0 ? joined(rt, op, e->row, NULL) : joined(rt, op, NULL, e->row),
                       e->count, err) < 0)
                return -1;
        }
        l->n = kept;
    }
    return jr->side[0].dirty || jr->side[1].dirty ? jlists_save(rt, op, err) : 0;
}

/* The join keys of one due time: their expired rows leave the state. */
static int ijoin_fire_list(cdc_graph_t *g, cdc_op_t *op, const uint8_t *list, size_t len,
                           int64_t wm, cdc_error_t **err)
{
    join_rt_t *jr = op->rt;
    rd_t r = {.p = list, .end = list + len};
    while (r.p < r.end && !r.bad) {
        uint64_t klen = get_varint(&r);
        if (r.bad || klen > (uint64_t)(r.end - r.p))
            return state_fail(op, "an interval join's expiring keys", err);
        cdc_buf_clear(&jr->key);
        cdc_buf_append(&jr->key, r.p, (size_t)klen);
        r.p += klen;
        if (ijoin_expire_key(g, op, wm, err) < 0)
            return -1;
    }
    return 0;
}

/* Every pending time the watermark @p wm reached: its keys' expired rows leave the state. */
static int ijoin_fire(cdc_graph_t *g, cdc_op_t *op, int64_t wm, cdc_error_t **err)
{
    /* a row of the other side at the watermark is not late: expired means before it */
    return wends_fire(g, op, &((join_rt_t *)op->rt)->win, wm, -1, ijoin_fire_list, err);
}

/* ---- OverAggregate ---------------------------------------------------------------------------
 *
 * Per partition key one state entry: the accumulators of the frame, the rows in a bounded frame
 * (they leave it, and the state, by count (ROWS) or by time (RANGE)), and on event time the rows
 * waiting for the watermark. Event time: a row waits until the watermark passes its time, then
 * the partition's waiting rows are aggregated in time order (RANGE: rows of the same time
 * together, as peers); a row at or behind the watermark when it comes is late and dropped.
 * Processing time: each row on arrival. The partitions with waiting rows are listed under one
 * more key, so the watermark finds them (and a restart too).
 */

typedef struct oent {
    int64_t ts;
    uint64_t seq;
    const uint8_t *bytes; /* the row's encoding (scratch) */
    size_t nbytes;
} oent_t;

typedef struct olist {
    oent_t *e;
    int n, cap, head; /* entries [head, n) are live */
} olist_t;

typedef struct over_rt {
    agg_rt_t ar;
    olist_t frame, pend;
    cdc_buf_t waiting; /* the partitions with waiting rows: per partition its earliest waiting
                          time and its key (varint time, varint length, bytes) */
    bool loaded;
} over_rt_t;

static const char WAITING_KEY[] = "waiting";

/* An entry of the waiting list: the partition's earliest waiting time, its key. */
static void waiting_add(cdc_buf_t *list, int64_t first, const void *key, size_t klen)
{
    put_varint(list, (uint64_t)first);
    put_varint(list, klen);
    cdc_buf_append(list, key, klen);
}

static void olist_push(olist_t *l, oent_t e)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->e = cdc_xrealloc(l->e, sizeof(*l->e) * (size_t)l->cap);
    }
    l->e[l->n++] = e;
}

static bool olist_read(rd_t *r, olist_t *l)
{
    l->n = l->head = 0;
    uint64_t n = get_varint(r);
    for (uint64_t k = 0; k < n && !r->bad; k++) {
        oent_t e;
        int64_t ts;
        cdc_row_t *unused;
        if (!entry_read(r, NULL, NULL, &ts, &e.seq, &unused, &e.bytes, &e.nbytes))
            return false;
        e.ts = ts;
        olist_push(l, e);
    }
    return !r->bad;
}

static void olist_write(cdc_buf_t *out, const olist_t *l)
{
    put_varint(out, (uint64_t)(l->n - l->head));
    for (int k = l->head; k < l->n; k++)
        entry_write(out, l->e[k].ts, l->e[k].seq, l->e[k].bytes, l->e[k].nbytes);
}

/* Loads the partition at rt->key into op's runtime (empty when absent). */
static int over_load(graph_rt_t *rt, cdc_op_t *op, cdc_error_t **err)
{
    over_rt_t *orr = op->rt;
    acc_reset(op, &orr->ar);
    orr->frame.n = orr->frame.head = orr->pend.n = orr->pend.head = 0;
    const void *val;
    size_t vlen;
    int found = cdc_state_get(rt->state, (uint32_t)op->id << 1, rt->key.data, rt->key.len, &val,
                              &vlen, err);
    if (found <= 0)
        return found;
    uint8_t *copy = cdc_arena_alloc(&rt->scratch, vlen ? vlen : 1);
    memcpy(copy, val, vlen);
    rd_t r = {.p = copy, .end = copy + vlen};
    uint64_t alen = get_varint(&r);
    if (r.bad || alen > (uint64_t)(r.end - r.p) || !acc_decode(op, &orr->ar, rt, r.p, (size_t)alen))
        return state_fail(op, "an OVER window's accumulators", err);
    r.p += alen;
    if (!olist_read(&r, &orr->frame) || !olist_read(&r, &orr->pend) || r.p != r.end)
        return state_fail(op, "an OVER window's rows", err);
    return 1;
}

static int over_save(graph_rt_t *rt, cdc_op_t *op, cdc_error_t **err)
{
    over_rt_t *orr = op->rt;
    uint32_t ns = (uint32_t)op->id << 1;
    if (orr->ar.rows <= 0 && orr->pend.n == orr->pend.head)
        return cdc_state_del(rt->state, ns, rt->key.data, rt->key.len, err);
    acc_encode(op, &orr->ar, &rt->tmp);
    cdc_buf_clear(&rt->val);
    put_varint(&rt->val, rt->tmp.len);
    cdc_buf_append(&rt->val, rt->tmp.data, rt->tmp.len);
    olist_write(&rt->val, &orr->frame);
    olist_write(&rt->val, &orr->pend);
    return cdc_state_put(rt->state, ns, rt->key.data, rt->key.len, rt->val.data, rt->val.len, err);
}

static cdc_row_t *over_row(graph_rt_t *rt, cdc_op_t *op, const oent_t *e)
{
    size_t used = 0;
    cdc_row_t *row = cdc_row_decode(e->bytes, e->nbytes, op->in_type[0], &rt->scratch, &used);
    return row && used == e->nbytes ? row : NULL;
}

/* Adds a row to the frame's accumulators (and to its rows when the frame is bounded). An
 * unbounded frame never retracts: MIN and MAX keep only their extreme. */
static void over_add(graph_rt_t *rt, cdc_op_t *op, const cdc_row_t *row, const oent_t *e)
{
    over_rt_t *orr = op->rt;
    acc_add(op, &orr->ar, row, 1);
    if (op->over_preceding >= 0) {
        olist_push(&orr->frame, *e);
        return;
    }
    for (int i = 0; i < op->naggs; i++) {
        const cdc_agg_call_t *c = &op->aggs[i];
        acc_t *a = &orr->ar.accs[i];
        if (c->distinct || a->nmap <= 1 || (c->fn != CDC_AGG_MIN && c->fn != CDC_AGG_MAX))
            continue;
        if (c->fn == CDC_AGG_MAX)
            a->map[0] = a->map[a->nmap - 1];
        a->map[0].n = 1;
        a->nmap = 1;
    }
    (void)rt;
}

/* Retracts the frame's oldest rows: while more than @p keep rows, or older than @p before. */
static int over_evict(graph_rt_t *rt, cdc_op_t *op, int64_t keep, int64_t before, cdc_error_t **err)
{
    over_rt_t *orr = op->rt;
    olist_t *f = &orr->frame;
    while (f->head < f->n && (f->n - f->head > keep || f->e[f->head].ts < before)) {
        cdc_row_t *old = over_row(rt, op, &f->e[f->head]);
        if (!old)
            return state_fail(op, "an OVER window's rows", err);
        acc_add(op, &orr->ar, old, -1);
        f->head++;
    }
    return 0;
}

static int over_emit(cdc_graph_t *g, cdc_op_t *op, const cdc_row_t *row, cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    over_rt_t *orr = op->rt;
    int ni = op->in_type[0]->nchildren;
    cdc_row_t *o = new_row(rt, (uint32_t)(ni + op->naggs));
    memcpy(o->values, row->values, sizeof(cdc_value_t) * (size_t)ni);
    for (int i = 0; i < op->naggs; i++)
        acc_result(op, &orr->ar, i, &o->values[ni + i]);
    return emit(g, op, CDC_INSERT, o, err);
}

/* Rows es[0..n) of one time (RANGE: peers, aggregated together; ROWS: one by one) into the
 * loaded partition's frame, each emitted with the frame's results. */
static int over_step(cdc_graph_t *g, cdc_op_t *op, const oent_t *es, int n, cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    int64_t p = op->over_preceding;
    cdc_row_t **rows = cdc_arena_alloc(&rt->scratch, sizeof(*rows) * (size_t)n);
    for (int k = 0; k < n; k++)
        if (!(rows[k] = over_row(rt, op, &es[k])))
            return state_fail(op, "an OVER window's rows", err);
    if (!op->over_rows) {
        if (p >= 0 && over_evict(rt, op, INT64_MAX, es[0].ts - p, err) < 0)
            return -1;
        for (int k = 0; k < n; k++)
            over_add(rt, op, rows[k], &es[k]);
        for (int k = 0; k < n; k++)
            if (over_emit(g, op, rows[k], err) < 0)
                return -1;
        return 0;
    }
    for (int k = 0; k < n; k++) {
        over_add(rt, op, rows[k], &es[k]);
        if (over_emit(g, op, rows[k], err) < 0)
            return -1;
        if (p >= 0 && over_evict(rt, op, p, INT64_MIN, err) < 0)
            return -1;
    }
    return 0;
}

/* The list of partitions with waiting rows, from the state the first time. */
static int over_waiting_load(graph_rt_t *rt, cdc_op_t *op, cdc_error_t **err)
{
    over_rt_t *orr = op->rt;
    if (orr->loaded)
        return 0;
    orr->loaded = true;
    const void *val;
    size_t vlen;
    int found = cdc_state_get(rt->state, ((uint32_t)op->id << 1) | 1, WAITING_KEY,
                              sizeof(WAITING_KEY), &val, &vlen, err);
    if (found > 0)
        cdc_buf_append(&orr->waiting, val, vlen);
    return found < 0 ? -1 : 0;
}

static int over_waiting_save(graph_rt_t *rt, cdc_op_t *op, cdc_error_t **err)
{
    over_rt_t *orr = op->rt;
    uint32_t ns = ((uint32_t)op->id << 1) | 1;
    if (orr->waiting.len == 0)
        return cdc_state_del(rt->state, ns, WAITING_KEY, sizeof(WAITING_KEY), err);
    return cdc_state_put(rt->state, ns, WAITING_KEY, sizeof(WAITING_KEY), orr->waiting.data,
                         orr->waiting.len, err);
}

static int over_push(cdc_graph_t *g, cdc_op_t *op, cdc_kind_t kind, const cdc_row_t *row,
                     cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    over_rt_t *orr = op->rt;
    if (!is_acc(kind))
        return 0; /* the planner lets only append-only input in */
    int64_t ts;
    if (op->by_arrival) {
        ts = cdc_wall_ms();
    } else {
        const cdc_value_t *tv = &row->values[op->timecol];
        if (cdc_value_is_null(tv))
            return 0; /* no time, no place in the order (Flink drops it too) */
        ts = tv->v.ts.millis;
        if (ts <= rt->watermark) {
            rt->late_over++;
            return 0;
        }
    }
    cdc_row_key_bytes(row, op->part, op->npart, op->in_type[0], &rt->key);
    if (over_load(rt, op, err) < 0)
        return -1;
    cdc_buf_clear(&rt->tmp);
    cdc_row_encode(&rt->tmp, row, op->in_type[0]);
    uint8_t *bytes = cdc_arena_alloc(&rt->scratch, rt->tmp.len ? rt->tmp.len : 1);
    memcpy(bytes, rt->tmp.data, rt->tmp.len);
    oent_t e = {.ts = ts, .seq = rt->seq++, .bytes = bytes, .nbytes = rt->tmp.len};
    if (op->by_arrival) {
        if (over_step(g, op, &e, 1, err) < 0)
            return -1;
        return over_save(rt, op, err);
    }
    /* event time: waits for the watermark, in time order (arrival order among equal times) */
    olist_t *pl = &orr->pend;
    bool was_waiting = pl->n > 0;
    int64_t was_first = was_waiting ? pl->e[0].ts : 0;
    olist_push(pl, e);
    int at = pl->n - 1;
    while (at > 0 && pl->e[at - 1].ts > ts) {
        pl->e[at] = pl->e[at - 1];
        at--;
    }
    pl->e[at] = e;
    if (over_save(rt, op, err) < 0)
        return -1;
    if (was_waiting && was_first <= ts)
        return 0;
    if (over_waiting_load(rt, op, err) < 0)
        return -1;
    if (!was_waiting) {
        waiting_add(&orr->waiting, ts, rt->key.data, rt->key.len);
        return over_waiting_save(rt, op, err);
    }
    /* an earlier time than the partition's first waiting row: its entry says so now */
    size_t len = orr->waiting.len;
    uint8_t *list = cdc_arena_alloc(&rt->scratch, len ? len : 1);
    memcpy(list, orr->waiting.data, len);
    cdc_buf_clear(&orr->waiting);
    rd_t r = {.p = list, .end = list + len};
    while (r.p < r.end) {
        int64_t first = (int64_t)get_varint(&r);
        uint64_t klen = get_varint(&r);
        if (r.bad || klen > (uint64_t)(r.end - r.p))
            return state_fail(op, "an OVER window's waiting partitions", err);
        bool mine = klen == rt->key.len && memcmp(r.p, rt->key.data, (size_t)klen) == 0;
        waiting_add(&orr->waiting, mine ? ts : first, r.p, (size_t)klen);
        r.p += klen;
    }
    return over_waiting_save(rt, op, err);
}

/* The watermark passed @p wm: each waiting partition's rows up to it, in time order. */
static int over_fire(cdc_graph_t *g, cdc_op_t *op, int64_t wm, cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    over_rt_t *orr = op->rt;
    if (over_waiting_load(rt, op, err) < 0)
        return -1;
    if (orr->waiting.len == 0)
        return 0;
    /* the list is rewritten with the partitions still waiting */
    size_t len = orr->waiting.len;
    uint8_t *list = cdc_arena_alloc(&rt->scratch, len);
    memcpy(list, orr->waiting.data, len);
    cdc_buf_clear(&orr->waiting);
    rd_t r = {.p = list, .end = list + len};
    bool changed = false;
    while (r.p < r.end) {
        int64_t first = (int64_t)get_varint(&r);
        uint64_t klen = get_varint(&r);
        if (r.bad || klen > (uint64_t)(r.end - r.p))
            return state_fail(op, "an OVER window's waiting partitions", err);
        if (first > wm) { /* nothing of it is due: not even loaded */
            waiting_add(&orr->waiting, first, r.p, (size_t)klen);
            r.p += klen;
            continue;
        }
        cdc_buf_clear(&rt->key);
        cdc_buf_append(&rt->key, r.p, (size_t)klen);
        r.p += klen;
        int found = over_load(rt, op, err);
        if (found < 0)
            return -1;
        olist_t *pl = &orr->pend;
        int upto = 0;
        while (upto < pl->n && pl->e[upto].ts <= wm)
            upto++;
        for (int k = 0; k < upto;) {
            int n = 1;
            if (!op->over_rows)
                while (k + n < upto && pl->e[k + n].ts == pl->e[k].ts)
                    n++;
            if (over_step(g, op, &pl->e[k], n, err) < 0)
                return -1;
            k += n;
        }
        pl->head = upto;
        if (upto && over_save(rt, op, err) < 0)
            return -1;
        changed = true;
        if (found && upto < pl->n)
            waiting_add(&orr->waiting, pl->e[upto].ts, rt->key.data, rt->key.len);
    }
    return changed ? over_waiting_save(rt, op, err) : 0;
}

/*
 * TemporalSort keeps the window aggregation's state layout: the pending times (ENDS_KEY, in a
 * win_rt_t) and, per time, under wlist_key(time) in the operator's second namespace, its rows
 * in arrival order (each a varint length and the encoded row).
 */
static int sort_push(cdc_graph_t *g, cdc_op_t *op, cdc_kind_t kind, const cdc_row_t *row,
                     cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    win_rt_t *wr = op->rt;
    const cdc_value_t *tv = &row->values[op->timecol];
    if (!is_acc(kind) || cdc_value_is_null(tv))
        return 0; /* the planner lets only appends in; a row without time has no place */
    int64_t ts = tv->v.ts.millis;
    if (ts <= rt->watermark) {
        rt->late_sorted++;
        return 0;
    }
    if (wends_load(rt, op, wr, err) < 0)
        return -1;
    cdc_buf_clear(&rt->tmp);
    cdc_row_encode(&rt->tmp, row, op->in_type[0]);
    return wlist_append(rt, op, wr, ts, rt->tmp.data, rt->tmp.len, err);
}

/* Sorts @p n entries by the operator's keys, ties in arrival order (a stable merge sort; tmp
 * holds n entries). */
static void sort_entries(const cdc_op_t *op, rent_t *e, rent_t *tmp, int n)
{
    for (int width = 1; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = rank_cmp(op, &e[j], &e[i]) < 0 ? e[j++] : e[i++];
            while (i < mid)
                tmp[k++] = e[i++];
            while (j < hi)
                tmp[k++] = e[j++];
        }
        memcpy(e, tmp, sizeof(*e) * (size_t)n);
    }
}

/* The rows of one fired time of a TemporalSort, in order. */
static int sort_fire_list(cdc_graph_t *g, cdc_op_t *op, const uint8_t *list, size_t len, int64_t wm,
                          cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    (void)wm;
    rd_t r = {.p = list, .end = list + len};
    int n = 0, cap = 16;
    rent_t *e = cdc_arena_alloc(&rt->scratch, sizeof(*e) * (size_t)cap);
    while (r.p < r.end && !r.bad) {
        uint64_t rlen = get_varint(&r);
        size_t used = 0;
        cdc_row_t *row =
            !r.bad && rlen <= (uint64_t)(r.end - r.p)
                ? cdc_row_decode(r.p, (size_t)rlen, op->in_type[0], &rt->scratch, &used)
                : NULL;
        if (!row || used != rlen)
            return state_fail(op, "a TemporalSort's rows", err);
        r.p += rlen;
        if (n == cap) {
            rent_t *grown = cdc_arena_alloc(&rt->scratch, sizeof(*e) * (size_t)cap * 2);
            memcpy(grown, e, sizeof(*e) * (size_t)n);
            e = grown;
            cap *= 2;
        }
        e[n] = (rent_t){.count = 1, .seq = (uint64_t)n, .row = row};
        n++;
    }
    if (r.bad)
        return state_fail(op, "a TemporalSort's rows", err);
    sort_entries(op, e, cdc_arena_alloc(&rt->scratch, sizeof(*e) * (size_t)(n + 1)), n);
    for (int k = 0; k < n; k++)
        if (emit(g, op, CDC_INSERT, e[k].row, err) < 0)
            return -1;
    return 0;
}

/* Emits, in order, the rows of @p op whose time the watermark @p wm has passed. */
static int sort_fire(cdc_graph_t *g, cdc_op_t *op, int64_t wm, cdc_error_t **err)
{
    return wends_fire(g, op, op->rt, wm, 0, sort_fire_list, err);
}

/* The split's watermark after a row: the WATERMARK expression's value, when larger. */
static int note_watermark(cdc_graph_t *g, graph_writer_t *w, const cdc_expr_t *wm,
                          const cdc_row_t *row, cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    cdc_value_t v;
    if (cdc_expr_eval(wm, row, &rt->scratch, &v, rt->errbuf, sizeof(rt->errbuf)) < 0) {
        *err =
            cdc_error_new(CDC_ERR_PARSE, "cannot compute the watermark of a row: %s", rt->errbuf);
        return -1;
    }
    slot_pos_t *sl = &rt->slots[w->slot];
    if (!cdc_value_is_null(&v) && v.v.ts.millis > sl->wm)
        sl->wm = v.v.ts.millis;
    return 0;
}

/* The job's watermark: the least of the open splits' (+infinity once every split with a
 * WATERMARK has ended, when @p at_end); windows it passes fire. Lock held. */
static int advance_watermark(cdc_graph_t *g, bool at_end, cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    int64_t least = INT64_MAX;
    bool any = false;
    for (int s = 0; s < rt->nslots; s++) {
        if (!rt->slots[s].has_wm || !rt->slots[s].open)
            continue;
        any = true;
        if (rt->slots[s].wm < least)
            least = rt->slots[s].wm;
    }
    if (!any && !at_end)
        return 0;
    if (least <= rt->watermark)
        return 0;
    rt->watermark = least;
    for (int i = 0; i < g->nops; i++) {
        cdc_op_t *op = g->ops[i];
        if (op->kind == CDC_OP_AGG && op->windowed && !op->proctime &&
            wagg_fire(g, op, least, err) < 0)
            return -1;
        if (op->kind == CDC_OP_OVER && !op->by_arrival && over_fire(g, op, least, err) < 0)
            return -1;
        if (op->kind == CDC_OP_SORT && sort_fire(g, op, least, err) < 0)
            return -1;
        if (op->kind == CDC_OP_JOIN && op->interval && ijoin_fire(g, op, least, err) < 0)
            return -1;
    }
    return 0;
}

/* A split with a WATERMARK ended (its input is all read): windows the others' watermarks, or
 * the end of all input, let through fire, and go to the sink now. Lock held. */
static void close_watermark(cdc_graph_t *g)
{
    graph_rt_t *rt = g->rt;
    cdc_error_t *err = NULL;
    if (advance_watermark(g, true, &err) < 0 || flush_top(g, &err) < 0 ||
        rt->writer->ops->flush(rt->writer, &err) < 0) {
        char *m = cdc_error_format(err);
        cdc_log(CDC_LOG_ERROR, rt->settings->job, g->top->sink_name,
                "the windows at the end of the input: %s", m);
        free(m);
        cdc_error_destroy(err);
    }
    cdc_arena_reset(&rt->scratch);
}

/* The processing-time windows' timer: every 100 ms, the windows whose end the wall clock passed
 * fire and go to the sink; and the mini-batches whose oldest row waited allow-latency fire (the
 * timer then ticks every allow-latency when that is shorter). */
static void *ticker_main(void *arg)
{
    cdc_graph_t *g = arg;
    graph_rt_t *rt = g->rt;
    int64_t period = g->minibatch_ms > 0 && g->minibatch_ms < 100 ? g->minibatch_ms : 100;
    pthread_mutex_lock(&rt->lock);
    while (!rt->tick_stop) {
        struct timespec ts = cdc_wall_deadline(period);
        pthread_cond_timedwait(&rt->tick_cond, &rt->lock, &ts);
        if (rt->tick_stop)
            break;
        cdc_error_t *err = NULL;
        int64_t now = cdc_wall_ms();
        int rc = 0;
        for (int i = 0; i < g->nops && rc == 0; i++)
            if (g->ops[i]->kind == CDC_OP_AGG && g->ops[i]->windowed && g->ops[i]->proctime)
                rc = wagg_fire(g, g->ops[i], now, &err);
        bool out = rt->topin.n > 0;
        const char *what = "the processing-time windows";
        if (rc == 0 && g->minibatch_size > 0) {
            what = "the mini-batches of GROUP BY";
            int fired = mb_fire_all(g, now, &err);
            rc = fired < 0 ? -1 : 0;
            out = out || fired > 0;
        }
        if (rc == 0 && out)
            rc = flush_top(g, &err);
        if (rc == 0 && out) /* the changes are in the sink within allow-latency */
            rc = rt->writer->ops->flush(rt->writer, &err);
        cdc_arena_reset(&rt->scratch);
        if (rc < 0) {
            char *m = cdc_error_format(err);
            cdc_log(CDC_LOG_ERROR, rt->settings->job, g->top->sink_name, "%s: %s", what, m);
            free(m);
            cdc_error_destroy(err);
            break;
        }
    }
    pthread_mutex_unlock(&rt->lock);
    return NULL;
}

/* ---- writers: the leaves' rows in, the checkpoint barrier ---------------------------------- */

/* Runs the root's changes gathered in topin through the top pipe into the writer. Lock held. */
static int flush_top(cdc_graph_t *g, cdc_error_t **err)
{
    graph_rt_t *rt = g->rt;
    if (rt->topin.n == 0)
        return 0;
    rt->errbuf[0] = '\0';
    int trc = cdc_pipe_transform(g->top, rt->top_ps, &rt->topin, &rt->topout, &rt->skipped,
                                 rt->errbuf, sizeof(rt->errbuf));
    if (trc == -2) {
        *err = cdc_pipe_split_take_error(rt->top_ps);
        return -1;
    }
    if (trc < 0) {
        *err = cdc_error_new(CDC_ERR_PARSE, "cannot compute a row for table \"%s\": %s",
                             g->top->sink_name, rt->errbuf);
        return -1;
    }
    int rc = 0;
    if (rt->topout.n > 0 && rt->writer->ops->write(rt->writer, &rt->topout, err) < 0) {
        cdc_error_add_context(*err, "writing table \"%s\"", g->top->sink_name);
        rc = -1;
    }
    cdc_batch_reset(&rt->topin);
    cdc_batch_reset(&rt->topout);
    return rc;
}

/* Where a leaf's rows look their state up: the key columns (in the leaf's row) and types of an
   operator with one entry per row's key, the leaf itself or the one after a leaf Calc that only
   picks columns (bench/stateful.sh's GROUP BY's [grp, val]). */
typedef struct pf_target {
    const cdc_op_t *agg; /* a GroupAggregate: it takes the key and hash made here (known_op) */
    minibatch_t *mb;     /* the operator's mini-batch: its table and accumulators prefetched too */
    uint32_t ns;
    int ncols;
    int cols[16];
    const cdc_type_t *type;
} pf_target_t;

static bool pf_target(const cdc_op_t *op, int port, pf_target_t *t)
{
    const cdc_op_t *calc = NULL;
    if (op->kind == CDC_OP_CALC) {
        if (op->stage.where || !op->parent)
            return false;
        calc = op;
        port = op->parent_port;
        op = op->parent;
    }
    const int *cols;
    t->mb = NULL;
    t->agg = NULL;
    if (op->kind == CDC_OP_AGG && !op->windowed) {
        t->agg = op;
        cols = op->group;
        t->ncols = op->ngroup;
        t->ns = (uint32_t)op->id << 1;
        t->mb = op->minibatch ? ((agg_rt_t *)op->rt)->mb : NULL;
    } else if (op->kind == CDC_OP_JOIN) {
        cols = port == 0 ? op->lkeys : op->rkeys;
        t->ncols = op->nkeys;
        t->ns = join_ns(op);
    } else {
        return false;
    }
    if (t->ncols <= 0 || t->ncols > 16)
        return false;
    t->type = calc ? calc->in_type[0] : op->in_type[port];
    for (int k = 0; k < t->ncols; k++) {
        int c = cols[k];
        if (calc)
            c = c < calc->stage.nitems ? cdc_expr_column_index(calc->stage.items[c]) : -1;
        if (c < 0)
            return false;
        t->cols[k] = c;
    }
    return true;
}

/* Before row @p i of a batch goes into the graph: the state entry of row i + PF_AHEAD starts
   loading (its overlay slot), and that of row i + PF_AHEAD / 2 (its entry, the slot now loaded),
   so the lookups find them in the CPU's cache: their cache misses were the largest single cost
   of bench/stateful.sh's GROUP BY and join (a seventh of the time). */
static void prefetch_rows(graph_rt_t *rt, const pf_target_t *t, const cdc_batch_t *batch,
                          uint32_t i)
{
    uint32_t first = i == 0 ? 0 : i + PF_AHEAD; /* the first row primes the ring */
    for (uint32_t j = first; j <= i + PF_AHEAD && j < batch->n; j++) {
        cdc_buf_t *key = &rt->pfkey[j % PF_RING];
        cdc_row_key_bytes(&batch->rows[j], t->cols, t->ncols, t->type, key);
        uint64_t h = cdc_state_hash(t->ns, key->data, key->len);
        rt->pfhash[j % PF_RING] = h;
        cdc_state_prefetch(rt->state, h, 0);
        if (t->mb)
            __builtin_prefetch(&t->mb->slot[h & t->mb->mask]);
    }
    uint32_t k = i + PF_AHEAD / 2;
    if (k >= batch->n)
        return;
    uint64_t h = rt->pfhash[k % PF_RING];
    const minibatch_t *mb = t->mb;
    uint32_t s = mb ? mb->slot[h & mb->mask] : 0; /* its key's entry if first in its probe */
    if (s && mb->k[s - 1].hash == h) {
        __builtin_prefetch(&mb->accs[(size_t)(s - 1) * (size_t)mb->stride]);
        return; /* the key's state was read at its first row */
    }
    cdc_state_prefetch(rt->state, h, 1);
}

static int gw_write(cdc_writer_t *base, const cdc_batch_t *batch, cdc_error_t **err)
{
    graph_writer_t *w = (graph_writer_t *)base;
    cdc_graph_t *g = w->g;
    graph_rt_t *rt = g->rt;
    cdc_op_t *op = g->ops[g->leaf_op[w->leaf]];
    int port = g->leaf_port[w->leaf];
    int rc = 0;
    pthread_mutex_lock(&rt->lock);
    w->fed = w->fed || batch->n > 0;
    cdc_state_tick(rt->state); /* one clock read per batch, not per put */
    const cdc_expr_t *wm = g->leaf_wm ? g->leaf_wm[w->leaf] : NULL;
    pf_target_t pft;
    bool pf = batch->n > PF_AHEAD && pf_target(op, port, &pft);
    for (uint32_t i = 0; i < batch->n && rc == 0; i++) {
        if (pf) {
            prefetch_rows(rt, &pft, batch, i);
            rt->known_op = pft.agg;
            rt->known_key = &rt->pfkey[i % PF_RING];
            rt->known_hash = rt->pfhash[i % PF_RING];
        }
        rc = push(g, op, port, batch->rows[i].kind, &batch->rows[i], err);
        rt->known_op = NULL;
        if (rc == 0 && wm)
            rc = note_watermark(g, w, wm, &batch->rows[i], err);
        if (rc == 0 && rt->topin.n >= 4096)
            rc = flush_top(g, err);
    }
    if (rc == 0 && wm)
        rc = advance_watermark(g, false, err);
    if (rc == 0)
        rc = flush_top(g, err);
    cdc_arena_reset(&rt->scratch);
    if (rc == 0 && cdc_state_wants_commit(rt->state) && atomic_load(&rt->wanted) <= rt->epoch)
        atomic_store(&rt->wanted, rt->epoch + 1);
    pthread_mutex_unlock(&rt->lock);
    return rc;
}

/* Whether the "key\tposition\n" lines of @p text have a line for @p key (of @p klen bytes). */
static bool has_key(const cdc_buf_t *text, const char *key, size_t klen)
{
    const char *p = text->data, *end = text->data + text->len;
    while (p && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *tab = memchr(p, '\t', (size_t)((nl ? nl : end) - p));
        if (tab && (size_t)(tab - p) == klen && memcmp(p, key, klen) == 0)
            return true;
        p = nl ? nl + 1 : NULL;
    }
    return false;
}

/* The positions to commit: every split's latest lines, and the lines of the last commit for the
 * units no open split reported this time (a partition the consumer group moved, a split that
 * ended), so no unit falls back to an older upstream position. Into rt->meta. Lock held. */
static void merge_positions(graph_rt_t *rt)
{
    cdc_buf_t now = {0};
    for (int s = 0; s < rt->nslots; s++)
        if (rt->slots[s].lines.len)
            cdc_buf_append(&now, rt->slots[s].lines.data, rt->slots[s].lines.len);
    const void *m;
    size_t mlen;
    if (cdc_state_meta(rt->state, &m, &mlen) == 1) {
        const char *p = m, *end = (const char *)m + mlen;
        cdc_buf_t kept = {0};
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
            const char *tab = memchr(p, '\t', n);
            if (tab && !has_key(&now, p, (size_t)(tab - p)))
                cdc_buf_append(&kept, p, n);
            p += n;
        }
        if (kept.len)
            cdc_buf_append(&now, kept.data, kept.len);
        cdc_buf_free(&kept);
    }
    cdc_buf_clear(&rt->meta);
    if (now.len)
        cdc_buf_append(&rt->meta, now.data, now.len);
    cdc_buf_free(&now);
}

/* The last split to arrive: the writer flushed (durable), then the state with every split's
 * positions. Lock held. */
static void checkpoint(cdc_graph_t *g)
{
    graph_rt_t *rt = g->rt;
    cdc_error_destroy(rt->err);
    rt->err = NULL;
    rt->rc = 0;
    int64_t t_flush = cdc_mono_us();
    if (rt->poisoned) {
        cdc_log(CDC_LOG_WARN, rt->settings->job, g->top->sink_name,
                "a split of the job failed: the operators' state is not committed (the next "
                "start resumes from the last checkpoint)");
    } else if (mb_fire_all(g, -1, &rt->err) < 0) {
        /* the mini-batches first: the state committed holds every row up to the positions */
        rt->rc = -1;
    } else if (rt->writer->ops->flush(rt->writer, &rt->err) < 0) {
        cdc_error_add_context(rt->err, "flushing table \"%s\"", g->top->sink_name);
        rt->rc = -1;
    } else {
        int64_t t0 = cdc_mono_us();
        merge_positions(rt);
        if (cdc_state_commit(rt->state, rt->meta.data ? rt->meta.data : "", rt->meta.len,
                             &rt->err) < 0) {
            cdc_error_add_context(rt->err, "committing the state of the job's operators");
            rt->rc = -1;
        } else if (cdc_log_enabled(CDC_LOG_DEBUG)) {
            /* what bench/stateful.sh reports: the sink's flush, then the state's commit */
            cdc_state_stats_t ss;
            cdc_state_stats(rt->state, &ss);
            cdc_log(CDC_LOG_DEBUG, rt->settings->job, g->top->sink_name,
                    "checkpoint %llu: sink flushed in %.1f ms, state committed in %.1f ms (~%llu "
                    "key(s), %llu byte(s) on disk, %llu byte(s) in memory)",
                    (unsigned long long)rt->epoch + 1, (double)(t0 - t_flush) / 1000.0,
                    (double)ss.last_commit_us / 1000.0, (unsigned long long)ss.keys_estimate,
                    (unsigned long long)ss.disk_bytes, (unsigned long long)ss.memory_bytes);
        }
    }
    rt->arrived = 0;
    rt->epoch++;
    pthread_cond_broadcast(&rt->cond);
}

static int barrier(graph_writer_t *w, const char *positions, size_t len, cdc_error_t **err)
{
    cdc_graph_t *g = w->g;
    graph_rt_t *rt = g->rt;
    pthread_mutex_lock(&rt->lock);
    if (positions) {
        cdc_buf_clear(&rt->slots[w->slot].lines);
        cdc_buf_append(&rt->slots[w->slot].lines, positions, len);
    }
    w->fed = false;
    uint64_t epoch = rt->epoch;
    if (atomic_load(&rt->wanted) <= epoch)
        atomic_store(&rt->wanted, epoch + 1);
    if (++rt->arrived >= rt->live)
        checkpoint(g);
    while (rt->epoch == epoch)
        pthread_cond_wait(&rt->cond, &rt->lock);
    int rc = rt->rc;
    if (rc < 0 && rt->err) {
        char *m = cdc_error_format(rt->err);
        *err = cdc_error_new(CDC_ERR_IO, "%s", m);
        free(m);
    } else if (rc < 0)
        *err = cdc_error_new(CDC_ERR_INTERNAL, "the checkpoint failed");
    pthread_mutex_unlock(&rt->lock);
    return rc;
}

static int gw_flush(cdc_writer_t *base, cdc_error_t **err)
{
    return barrier((graph_writer_t *)base, NULL, 0, err);
}

static int gw_commit_positions(cdc_writer_t *base, const char *positions, size_t len,
                               cdc_error_t **err)
{
    return barrier((graph_writer_t *)base, positions, len, err);
}

static int gw_stored_positions(cdc_writer_t *base, cdc_buf_t *out, cdc_error_t **err)
{
    (void)err;
    graph_rt_t *rt = ((graph_writer_t *)base)->g->rt;
    pthread_mutex_lock(&rt->lock);
    cdc_buf_clear(out);
    const void *m;
    size_t mlen;
    if (cdc_state_meta(rt->state, &m, &mlen) == 1)
        cdc_buf_append(out, m, mlen);
    pthread_mutex_unlock(&rt->lock);
    return 0;
}

static void gw_close(cdc_writer_t *base)
{
    graph_writer_t *w = (graph_writer_t *)base;
    graph_rt_t *rt = w->g->rt;
    pthread_mutex_lock(&rt->lock);
    if (w->fed)
        rt->poisoned = true;
    rt->slots[w->slot].open = false;
    if (rt->slots[w->slot].has_wm && !cdc_runtime_stopping() && !rt->poisoned)
        close_watermark(w->g);
    rt->live--;
    if (rt->arrived > 0 && rt->arrived >= rt->live)
        checkpoint(w->g);
    pthread_mutex_unlock(&rt->lock);
    free(w);
}

static const cdc_writer_ops_t gw_ops = {.write = gw_write, .flush = gw_flush, .close = gw_close};

static const cdc_writer_ops_t gw_ops_positions = {.write = gw_write,
                                                  .flush = gw_flush,
                                                  .close = gw_close,
                                                  .commit_positions = gw_commit_positions,
                                                  .stored_positions = gw_stored_positions};

/* A new slot of split @p split of leaf @p li; @p has_wm when the leaf declares a WATERMARK. */
static int add_slot(graph_rt_t *rt, int li, int split, bool has_wm)
{
    int s = rt->nslots++;
    rt->slots = cdc_xrealloc(rt->slots, sizeof(*rt->slots) * (size_t)rt->nslots);
    rt->slots[s] =
        (slot_pos_t){.wm = INT64_MIN, .has_wm = has_wm, .open = true, .leaf = li, .split = split};
    return s;
}

int cdc_graph_open_writer(cdc_pipe_t *leaf, int split, bool reader_positions, cdc_writer_t **out,
                          cdc_error_t **err)
{
    cdc_graph_t *g = leaf->graph;
    graph_rt_t *rt = g->rt;
    int li = 0;
    while (li < g->nleaves && g->leaves[li] != leaf)
        li++;
    if (rt->durable && !reader_positions) {
        *err = cdc_error_new(CDC_ERR_PLAN,
                             "the reader of table \"%s\" cannot resume from positions the job "
                             "keeps in its state",
                             leaf->source_name);
        return -1;
    }
    graph_writer_t *w = cdc_xcalloc(1, sizeof(*w));
    w->base.ops = rt->durable ? &gw_ops_positions : &gw_ops;
    w->g = g;
    w->leaf = li;
    w->positions = reader_positions;
    pthread_mutex_lock(&rt->lock);
    w->slot = -1;
    for (int s = 0; s < rt->nslots && w->slot < 0; s++)
        if (!rt->slots[s].claimed && rt->slots[s].leaf == li && rt->slots[s].split == split)
            w->slot = s; /* reserved by cdc_graph_begin */
    if (w->slot < 0)
        w->slot = add_slot(rt, li, split, g->leaf_wm && g->leaf_wm[li]);
    rt->slots[w->slot].claimed = true;
    rt->live++;
    pthread_mutex_unlock(&rt->lock);
    *out = &w->base;
    return 0;
}

bool cdc_graph_checkpoint_wanted(const cdc_pipe_t *leaf, uint64_t *seen)
{
    graph_rt_t *rt = leaf->graph->rt;
    uint64_t want = atomic_load(&rt->wanted);
    if (want <= *seen)
        return false;
    *seen = want;
    /* A split's own arrival asks for the checkpoint it then completes: once done (the epoch
     * caught up), it is not wanted again, or every batch after the first became a checkpoint
     * (a synced state commit per 1,024 rows; bench/stateful.sh). */
    pthread_mutex_lock(&rt->lock);
    bool pending = want > rt->epoch;
    pthread_mutex_unlock(&rt->lock);
    return pending;
}

bool cdc_graph_resumes(const cdc_pipe_t *leaf)
{
    return ((graph_rt_t *)leaf->graph->rt)->durable;
}

/* ---- the job's start and end -------------------------------------------------------------- */

int cdc_graph_begin(cdc_graph_t *g, const cdc_job_settings_t *settings, cdc_error_t **err)
{
    if (g->rt)
        return 0;
    graph_rt_t *rt = cdc_xcalloc(1, sizeof(*rt));
    g->rt = rt;
    pthread_mutex_init(&rt->lock, NULL);
    pthread_cond_init(&rt->cond, NULL);
    pthread_cond_init(&rt->tick_cond, NULL);
    cdc_batch_init(&rt->topin);
    cdc_batch_init(&rt->topout);
    cdc_arena_init(&rt->scratch);
    rt->settings = settings;
    rt->seq = (uint64_t)cdc_wall_ms() << 20;
    rt->watermark = INT64_MIN;
    /* every split of a leaf with a WATERMARK holds the job's watermark back from the start, as
       Flink's inputs do before their first watermark (an operator that joins two tables must
       not see one table's time while the other's split is still to open) */
    for (int li = 0; li < g->nleaves; li++)
        for (int s = 0; g->leaf_wm && g->leaf_wm[li] && s < g->leaves[li]->parallelism; s++)
            add_slot(rt, li, s, true);
    const char *dir = cdc_state_dir();
    char path[4096];
    cdc_state_options_t so = {.ttl_ms = g->ttl_ms};
    rt->durable = dir && g->resumable;
    if (dir) {
        /* one store per job and sink table, named after both */
        char name[512];
        snprintf(name, sizeof(name), "%s-%s", settings->job ? settings->job : "job",
                 g->top->sink_name);
        for (char *c = name; *c; c++)
            if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                  (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' || *c == '.'))
                *c = '_';
        snprintf(path, sizeof(path), "%s/%s.state", dir, name);
        so.dir = path;
        so.fresh = !rt->durable;
    }
    if (cdc_state_open(&so, &rt->state, err) < 0)
        return -1;
    const void *m;
    size_t mlen;
    if (rt->durable)
        cdc_log(CDC_LOG_INFO, settings->job, g->top->sink_name, "the operators' state is in %s: %s",
                path,
                cdc_state_meta(rt->state, &m, &mlen) == 1
                    ? "resuming from its last checkpoint and the sources' positions stored with it"
                    : "a new state");
    else
        cdc_log(CDC_LOG_INFO, settings->job, g->top->sink_name,
                "the operators' state starts empty and the sources are read from their start: %s",
                dir ? "a source of the job cannot resume from positions kept in the state"
                    : "no --state-dir is set");
    bool tick = false; /* a processing-time window aggregation or a mini-batch needs the timer */
    for (int i = 0; i < g->nops; i++) {
        cdc_op_t *op = g->ops[i];
        if (op->kind == CDC_OP_AGG) {
            agg_rt_t *ar = cdc_xcalloc(1, sizeof(*ar));
            ar->accs = cdc_xcalloc((size_t)op->naggs + 1, sizeof(*ar->accs));
            op->rt = ar;
        } else if (op->kind == CDC_OP_JOIN) {
            join_rt_t *jr = cdc_xcalloc(1, sizeof(join_rt_t));
            jr->win.wm = INT64_MIN;
            op->rt = jr;
        } else if (op->kind == CDC_OP_RANK) {
            op->rt = cdc_xcalloc(1, sizeof(rank_rt_t));
        } else if (op->kind == CDC_OP_OVER) {
            over_rt_t *orr = cdc_xcalloc(1, sizeof(*orr));
            orr->ar.accs = cdc_xcalloc((size_t)op->naggs + 1, sizeof(*orr->ar.accs));
            op->rt = orr;
        } else if (op->kind == CDC_OP_SORT) {
            op->rt = cdc_xcalloc(1, sizeof(win_rt_t));
        }
        if (op->minibatch) {
            ((agg_rt_t *)op->rt)->mb = mb_new(op);
            tick = true;
        }
        if (op->kind == CDC_OP_AGG && op->windowed) {
            win_rt_t *wr = cdc_xcalloc(1, sizeof(win_rt_t));
            wr->wm = INT64_MIN;
            ((agg_rt_t *)op->rt)->win = wr;
            tick = tick || op->proctime;
        }
    }
    if (cdc_pipe_split_open(g->top, 0, &rt->top_ps, err) < 0)
        return -1;
    if (g->top->sink->ops->open_writer(g->top->sink, 0, 1, &rt->writer, err) < 0) {
        cdc_error_add_context(*err, "opening table \"%s\"", g->top->sink_name);
        return -1;
    }
    if (tick && pthread_create(&rt->ticker, NULL, ticker_main, g) != 0) {
        *err = cdc_error_new(CDC_ERR_INTERNAL, "cannot start the processing-time windows' timer");
        return -1;
    }
    rt->ticking = tick;
    return 0;
}

static void op_rt_free(cdc_op_t *op)
{
    if (!op->rt)
        return;
    if (op->kind == CDC_OP_AGG) {
        agg_rt_t *ar = op->rt;
        for (int i = 0; i < op->naggs; i++)
            free(ar->accs[i].map);
        free(ar->accs);
        mb_free(op, ar->mb);
        if (ar->win) {
            free(ar->win->ends);
            cdc_buf_free(&ar->win->list);
            free(ar->win);
        }
    } else if (op->kind == CDC_OP_JOIN) {
        join_rt_t *jr = op->rt;
        free(jr->side[0].e);
        free(jr->side[1].e);
        cdc_buf_free(&jr->key);
        free(jr->win.ends);
        cdc_buf_free(&jr->win.list);
    } else if (op->kind == CDC_OP_RANK) {
        rank_rt_t *rr = op->rt;
        free(rr->e);
        free(rr->before);
        free(rr->after);
    } else if (op->kind == CDC_OP_OVER) {
        over_rt_t *orr = op->rt;
        for (int i = 0; i < op->naggs; i++)
            free(orr->ar.accs[i].map);
        free(orr->ar.accs);
        free(orr->frame.e);
        free(orr->pend.e);
        cdc_buf_free(&orr->waiting);
    } else if (op->kind == CDC_OP_SORT) {
        win_rt_t *wr = op->rt;
        free(wr->ends);
        cdc_buf_free(&wr->list);
    }
    free(op->rt);
    op->rt = NULL;
}

void cdc_graph_end(cdc_graph_t *g)
{
    graph_rt_t *rt = g->rt;
    if (!rt)
        return;
    if (rt->ticking) {
        pthread_mutex_lock(&rt->lock);
        rt->tick_stop = true;
        pthread_cond_signal(&rt->tick_cond);
        pthread_mutex_unlock(&rt->lock);
        pthread_join(rt->ticker, NULL);
        rt->ticking = false;
        /* as Flink's: the timers of windows still open when the input ends do not fire */
        long long open = 0;
        for (int i = 0; i < g->nops; i++)
            if (g->ops[i]->proctime && g->ops[i]->kind == CDC_OP_AGG && g->ops[i]->rt)
                open += ((agg_rt_t *)g->ops[i]->rt)->win->nends;
        if (open)
            fprintf(stderr,
                    "cdcflow: %lld processing-time window(s) of table \"%s\" had not ended when "
                    "the input ended: they do not fire (as in Flink)\n",
                    open, g->top->sink_name);
    }
    if (rt->late) /* as the runtime reports skipped rows */
        fprintf(stderr,
                "cdcflow: dropped %llu late row(s) of table \"%s\": their windows had already "
                "fired (the watermark had passed their end); a larger delay in WATERMARK FOR ... "
                "AS ... keeps such rows\n",
                (unsigned long long)rt->late, g->top->sink_name);
    if (rt->late_over)
        fprintf(stderr,
                "cdcflow: dropped %llu late row(s) of table \"%s\": their time was at or behind "
                "the watermark when they came (OVER aggregation); a larger delay in WATERMARK FOR "
                "... AS ... keeps such rows\n",
                (unsigned long long)rt->late_over, g->top->sink_name);
    if (rt->late_sorted)
        fprintf(stderr,
                "cdcflow: dropped %llu late row(s) of table \"%s\": the watermark had passed "
                "their time before they came, so their place in the ORDER BY had been emitted; a "
                "larger delay in WATERMARK FOR ... AS ... keeps such rows\n",
                (unsigned long long)rt->late_sorted, g->top->sink_name);
    if (rt->writer)
        rt->writer->ops->close(rt->writer);
    cdc_pipe_split_close(rt->top_ps);
    cdc_state_close(rt->state);
    for (int i = 0; i < g->nops; i++)
        op_rt_free(g->ops[i]);
    for (int s = 0; s < rt->nslots; s++)
        cdc_buf_free(&rt->slots[s].lines);
    free(rt->slots);
    cdc_batch_free(&rt->topin);
    cdc_batch_free(&rt->topout);
    cdc_arena_free(&rt->scratch);
    cdc_buf_free(&rt->key);
    cdc_buf_free(&rt->val);
    cdc_buf_free(&rt->tmp);
    for (int i = 0; i < PF_RING; i++)
        cdc_buf_free(&rt->pfkey[i]);
    cdc_buf_free(&rt->meta);
    cdc_error_destroy(rt->err);
    pthread_mutex_destroy(&rt->lock);
    pthread_cond_destroy(&rt->cond);
    pthread_cond_destroy(&rt->tick_cond);
    free(rt);
    g->rt = NULL;
}

void cdc_graph_release(cdc_graph_t *g)
{
    if (!g || --g->refs > 0)
        return;
    cdc_graph_end(g);
    cdc_plan_graph_forget(g);
    for (int i = 0; i < g->nops; i++) {
        cdc_op_t *op = g->ops[i];
        cdc_type_destroy(op->out_type);
        free(op->ukey);
        free(op->explain);
        for (int k = 0; k < op->stage.nitems; k++)
            cdc_expr_destroy(op->stage.items[k]);
        free(op->stage.items);
        cdc_expr_destroy(op->stage.where);
        cdc_type_destroy(op->stage.out_type);
        free(op->stage.explain);
        free(op->group);
        for (int a = 0; a < op->naggs; a++) {
            cdc_type_destroy(op->aggs[a].type);
            cdc_type_destroy(op->aggs[a].acc);
            free(op->aggs[a].text);
        }
        free(op->aggs);
        free(op->lkeys);
        free(op->rkeys);
        cdc_expr_destroy(op->cond);
        cdc_type_destroy(op->cond_type);
        free(op->side_ukey[0]);
        free(op->side_ukey[1]);
        free(op->part);
        free(op->order);
        free(op->desc);
        free(op->nulls_first);
        free(op->sets);
        free(op->set_ids);
        free(op);
    }
    free(g->ops);
    cdc_pipe_destroy(g->top);
    free(g->leaves);
    free(g->leaf_op);
    free(g->leaf_port);
    for (int i = 0; g->leaf_wm && i < g->nleaves; i++)
        cdc_expr_destroy(g->leaf_wm[i]);
    free(g->leaf_wm);
    free(g->out_name);
    free(g);
}

/* ---- EXPLAIN ------------------------------------------------------------------------------- */

static void indent(cdc_buf_t *out, int depth)
{
    for (int i = 0; i < depth; i++)
        cdc_buf_puts(out, i + 1 == depth ? "+- " : "   ");
}

static void explain_op(const cdc_graph_t *g, int idx, int depth, cdc_buf_t *out)
{
    const cdc_op_t *op = g->ops[idx];
    indent(out, depth);
    cdc_buf_printf(out, "%s\n", op->explain);
    if (op->minibatch) {
        /* Flink's node that cuts the input into batches (where Flink puts it after the sources,
           the batches here are the GroupAggregate's own: its input hangs under it) */
        indent(out, ++depth);
        cdc_buf_printf(out, "MiniBatchAssigner(interval=[%lldms], mode=[ProcTime])\n",
                       (long long)g->minibatch_ms);
    }
    for (int port = 0; port < (op->kind == CDC_OP_JOIN ? 2 : 1); port++) {
        for (int c = 0; c < g->nops; c++)
            if (g->ops[c]->parent == op && g->ops[c]->parent_port == port)
                explain_op(g, c, depth + 1, out);
        for (int l = 0; l < g->nleaves; l++) {
            if (g->leaf_op[l] != idx || g->leaf_port[l] != port)
                continue;
            /* the leaf's own plan, without its (unused) sink line */
            cdc_buf_t lb = {0};
            cdc_pipe_explain(g->leaves[l], &lb);
            const char *p = cdc_buf_cstr(&lb);
            const char *nl = strchr(p, '\n');
            for (p = nl ? nl + 1 : p + strlen(p); *p;) {
                const char *e = strchr(p, '\n');
                size_t n = e ? (size_t)(e - p) : strlen(p);
                /* the leaf's lines hang under its sink: hang them under this node */
                for (int i = 0; i < depth; i++)
                    cdc_buf_puts(out, "   ");
                cdc_buf_append(out, p, n);
                cdc_buf_putc(out, '\n');
                p += n + (e ? 1 : 0);
            }
            cdc_buf_free(&lb);
        }
    }
}

void cdc_graph_explain(const cdc_graph_t *g, cdc_buf_t *out)
{
    /* the top pipe's nodes down to its (internal) scan, then the root operator */
    cdc_buf_t tb = {0};
    cdc_pipe_explain(g->top, &tb);
    const char *p = cdc_buf_cstr(&tb);
    int depth = 0;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (memmem(p, n, "TableSourceScan(", 16))
            break;
        cdc_buf_append(out, p, n);
        cdc_buf_putc(out, '\n');
        depth++;
        p += n + (e ? 1 : 0);
    }
    cdc_buf_free(&tb);
    for (int i = 0; i < g->nops; i++)
        if (!g->ops[i]->parent)
            explain_op(g, i, depth, out);
}
