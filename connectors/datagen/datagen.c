/*
 * datagen.c — the "datagen" connector (Flink's datagen, FLIP-238): rows of
 * random or sequence values, bounded or unbounded, split evenly over readers,
 * throttled to rows-per-second.
 *
 * Two layers:
 *   - cdc_datagen_source_new(): the generic generator source (index ranges,
 *     splits, throttle, projection/nested projection/limit abilities) around a generator
 *     function; see cdc_datagen.h.
 *   - the option-driven connector: "fields.<name>.<option>" options compiled
 *     into a spec whose generator function computes each field value as a pure
 *     function of (seed, row index, field index).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* tm_gmtoff, nanosleep, clock_gettime */
#endif

#include "cdc_datagen.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

__extension__ typedef unsigned __int128 cdc_u128;

#define NS_PER_SEC 1000000000LL
#define MS_PER_DAY 86400000LL
#define MAX_POLL_SLEEP_NS 100000000LL /* a poll sleeps at most 100 ms, then returns */

/* ---- split ranges and throttle ----------------------------------------------------- */

void cdc_datagen_split_range(int64_t count, int split, int nsplits, int64_t *begin, int64_t *end)
{
    __extension__ __int128 c = count < 0 ? 0 : count;
    if (nsplits < 1 || split < 0 || split >= nsplits) {
        *begin = *end = 0;
        return;
    }
    *begin = (int64_t)(c * split / nsplits);
    *end = (int64_t)(c * (split + 1) / nsplits);
}

void cdc_datagen_throttle_init(cdc_datagen_throttle_t *t, double rows_per_second)
{
    memset(t, 0, sizeof(*t));
    t->rate = rows_per_second;
}

int64_t cdc_datagen_throttle_budget(cdc_datagen_throttle_t *t, int64_t now_ns, int64_t *wait_ns)
{
    if (wait_ns)
        *wait_ns = 0;
    if (!(t->rate > 0))
        return INT64_MAX;
    double burst = t->rate >= 1.0 ? floor(t->rate) : 1.0;
    if (!t->started) {
        /* start with a full bucket: one second's worth of rows is due at once */
        t->started = true;
        t->t0_ns = now_ns - (int64_t)ceil((burst - 1.0) * 1e9 / t->rate);
        t->emitted = 0;
    }
    double elapsed = (double)(now_ns - t->t0_ns);
    if (elapsed < 0)
        elapsed = 0;
    /* rows due by now: row r is due at r / rate seconds after t0 */
    double due = floor(elapsed * t->rate / 1e9) + 1.0;
    double avail = due - (double)t->emitted;
    if (avail > burst) {
        /* idle for more than a second: forget the surplus credit */
        double shift = ((double)t->emitted + burst - 1.0) * 1e9 / t->rate;
        t->t0_ns = now_ns - (int64_t)ceil(shift);
        avail = burst;
    }
    if (avail >= 1.0)
        return avail >= 9.2e18 ? INT64_MAX : (int64_t)avail;
    double next_due = ceil((double)t->emitted * 1e9 / t->rate);
    double w = next_due - (double)(now_ns - t->t0_ns);
    if (wait_ns)
        *wait_ns = w < 1.0 ? 1 : (w > 9.2e18 ? INT64_MAX : (int64_t)w);
    return 0;
}

void cdc_datagen_throttle_take(cdc_datagen_throttle_t *t, int64_t n)
{
    t->emitted += n;
}

int64_t cdc_datagen_throttle_wait(const cdc_datagen_throttle_t *t, int64_t now_ns, int64_t rows)
{
    if (!(t->rate > 0) || !t->started || rows <= 0)
        return 0;
    /* row r is due at t0 + r / rate; `rows` rows are available once row emitted+rows-1 is */
    double due_at = ceil(((double)t->emitted + (double)rows - 1.0) * 1e9 / t->rate);
    double w = due_at - (double)(now_ns - t->t0_ns);
    return w <= 0 ? 0 : (w > 9.2e18 ? INT64_MAX : (int64_t)w);
}

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

/* ---- the generic generator source ------------------------------------------------- */

typedef struct dg_spec_s dg_spec_t;

typedef struct dg_source_s {
    cdc_source_t base;
    cdc_type_t *full;       /* the row type fn fills (before a generic projection) */
    cdc_type_t *produced;   /* what readers emit; base.produced points here */
    cdc_field_path_t *proj; /* generic (nested) projection into full; NULL = none */
    int nproj;
    int64_t count; /* < 0: unbounded */
    int64_t limit; /* < 0: none */
    double rps;    /* whole source; <= 0 = unlimited */
    cdc_datagen_fn fn;
    void *ctx;
    dg_spec_t *spec; /* option-driven datagen: owned; NULL for a plain generator */
} dg_source_t;

typedef struct dg_reader_s {
    cdc_reader_t base;
    dg_source_t *src;
    int64_t next;
    int64_t end; /* < 0: unbounded */
    int64_t step;
    cdc_datagen_throttle_t throttle;
    char errbuf[256];
} dg_reader_t;

static void spec_destroy(dg_spec_t *sp);
static void spec_project(dg_spec_t *sp, const cdc_field_path_t *paths, int n);
static const cdc_field_path_t *spec_paths(const dg_spec_t *sp);
static void spec_describe(const dg_spec_t *sp, const cdc_type_t *produced, cdc_buf_t *out);

static int64_t effective_count(const dg_source_t *src)
{
    if (src->limit < 0)
        return src->count;
    if (src->count < 0)
        return src->limit;
    return src->count < src->limit ? src->count : src->limit;
}

/* The value at path p (p->idx[0] already resolved to `whole`): NULL when a ROW on the way is. */
static void pick_leaf(const cdc_value_t *whole, const cdc_field_path_t *p, cdc_value_t *out)
{
    const cdc_value_t *v = whole;
    for (int d = 1; d < p->depth; d++) {
        if (v->flags & CDC_V_NULL)
            break;
        v = &v->v.row->values[p->idx[d]];
    }
    *out = *v;
}

/*
 * Paths over the current produced fields (`req`) as paths over the full row:
 * each request's first index names a current field, whose own path (`cur`,
 * NULL = the identity) is extended by the request's nested indexes. Fails when
 * a path would be deeper than CDC_FIELD_PATH_MAX.
 */
static int compose_paths(const cdc_field_path_t *cur, const cdc_field_path_t *req, int n,
                         cdc_field_path_t *out)
{
    for (int k = 0; k < n; k++) {
        cdc_field_path_t p = {.depth = 1, .idx = {req[k].idx[0]}};
        if (cur)
            p = cur[req[k].idx[0]];
        if (p.depth + req[k].depth - 1 > CDC_FIELD_PATH_MAX)
            return -1;
        for (int d = 1; d < req[k].depth; d++)
            p.idx[p.depth++] = req[k].idx[d];
        out[k] = p;
    }
    return 0;
}

static int dg_poll(cdc_reader_t *base, cdc_batch_t *out, uint32_t max_rows, cdc_error_t **err)
{
    dg_reader_t *r = (dg_reader_t *)base;
    dg_source_t *src = r->src;
    if (r->end >= 0 && r->next >= r->end)
        return CDC_POLL_END;
    if (max_rows == 0)
        return CDC_POLL_OK;
    int64_t want = max_rows;
    if (r->end >= 0 && r->end - r->next < want)
        want = r->end - r->next;

    int64_t now = monotonic_ns();
    int64_t budget = cdc_datagen_throttle_budget(&r->throttle, now, NULL);
    /* aim for batches of at least 10 ms worth of rows rather than one row per poll */
    int64_t goal = (int64_t)(r->throttle.rate / 100.0);
    if (goal < 1)
        goal = 1;
    if (goal > want)
        goal = want;
    if (budget < goal) {
        /* sleep until the goal is due (bounded, so the caller stays responsive) */
        int64_t wait = cdc_datagen_throttle_wait(&r->throttle, now, goal);
        if (wait > MAX_POLL_SLEEP_NS)
            wait = MAX_POLL_SLEEP_NS;
        struct timespec ts = {.tv_sec = (time_t)(wait / NS_PER_SEC),
                              .tv_nsec = (long)(wait % NS_PER_SEC)};
        nanosleep(&ts, NULL); /* EINTR: return early, the caller may be stopping */
        budget = cdc_datagen_throttle_budget(&r->throttle, monotonic_ns(), NULL);
        if (budget == 0)
            return CDC_POLL_OK;
    }
    int64_t n = want < budget ? want : budget;

    uint32_t arity = (uint32_t)src->produced->nchildren;
    uint32_t full_arity = (uint32_t)src->full->nchildren;
    for (int64_t k = 0; k < n; k++) {
        cdc_row_t *row = cdc_batch_add(out, CDC_INSERT, arity);
        cdc_row_t *fill = src->proj ? cdc_row_new_in(&out->arena, full_arity) : row;
        r->errbuf[0] = '\0';
        if (src->fn(src->ctx, r->next, fill, &out->arena, r->errbuf, sizeof(r->errbuf)) != 0) {
            cdc_batch_truncate(out, 1);
            cdc_datagen_throttle_take(&r->throttle, k);
            r->errbuf[sizeof(r->errbuf) - 1] = '\0';
            cdc_error_t *e = cdc_error_new(
                CDC_ERR_INTERNAL, "datagen generator failed for row %lld", (long long)r->next);
            if (r->errbuf[0])
                cdc_error_set_detail(e, "%s", r->errbuf);
            if (err) {
                cdc_error_destroy(*err);
                *err = e;
            } else {
                cdc_error_destroy(e);
            }
            return CDC_POLL_ERROR;
        }
        if (src->proj) {
            for (int j = 0; j < src->nproj; j++)
                pick_leaf(&fill->values[src->proj[j].idx[0]], &src->proj[j], &row->values[j]);
        }
        row->kind = CDC_INSERT;
        r->next += r->step;
    }
    cdc_datagen_throttle_take(&r->throttle, n);
    return CDC_POLL_OK;
}

static void dg_reader_close(cdc_reader_t *base)
{
    free(base);
}

static const cdc_reader_ops_t dg_reader_ops = {
    .poll = dg_poll,
    .commit = NULL,
    .close = dg_reader_close,
};

static cdc_changelog_mode_t dg_changelog_mode(cdc_source_t *base)
{
    (void)base;
    return CDC_MODE_INSERT_ONLY;
}

/*
 * Nested projection: one produced field per path over the current produced
 * fields. Values stay those of the unprojected source: the column is
 * generated whole (the random draws of a ROW's fields depend on each other)
 * and the leaf is picked from it.
 */
static int dg_apply_nested_projection(cdc_source_t *base, const cdc_field_path_t *paths, int n)
{
    dg_source_t *src = (dg_source_t *)base;
    const cdc_type_t *cur = src->produced;
    if (n < 0 || (n > 0 && !paths))
        return -1;
    for (int k = 0; k < n; k++) {
        if (paths[k].depth < 1 || paths[k].depth > CDC_FIELD_PATH_MAX || paths[k].idx[0] < 0 ||
            paths[k].idx[0] >= cur->nchildren)
            return -1;
        const cdc_type_t *t = cur->children[paths[k].idx[0]];
        for (int d = 1; d < paths[k].depth; d++) {
            if (t->root != CDC_T_ROW || paths[k].idx[d] < 0 || paths[k].idx[d] >= t->nchildren)
                return -1;
            t = t->children[paths[k].idx[d]];
        }
    }
    cdc_field_path_t *full = cdc_xmalloc(sizeof(*full) * (size_t)(n > 0 ? n : 1));
    const cdc_field_path_t *now = src->spec ? spec_paths(src->spec) : src->proj;
    if (compose_paths(now, paths, n, full) < 0) {
        free(full);
        return -1;
    }
    cdc_type_t *produced = cdc_type_new_row();
    produced->nullable = cur->nullable;
    cdc_buf_t name = {0};
    for (int k = 0; k < n; k++) {
        const cdc_type_t *t = cur->children[paths[k].idx[0]];
        bool nullable = t->nullable;
        cdc_buf_clear(&name);
        cdc_buf_puts(&name, cur->names[paths[k].idx[0]]);
        for (int d = 1; d < paths[k].depth; d++) {
            cdc_buf_printf(&name, ".%s", t->names[paths[k].idx[d]]);
            t = t->children[paths[k].idx[d]];
            nullable = nullable || t->nullable;
        }
        cdc_type_t *ft = cdc_type_copy(t);
        ft->nullable = nullable; /* NULL when a ROW on the way is */
        cdc_type_row_add(produced, cdc_buf_cstr(&name), ft);
    }
    cdc_buf_free(&name);
    if (src->spec) {
        spec_project(src->spec, full, n);
        free(full);
    } else {
        free(src->proj);
        src->proj = full;
        src->nproj = n;
    }
    cdc_type_destroy(src->produced);
    src->produced = produced;
    src->base.produced = produced;
    return 0;
}

static int dg_apply_projection(cdc_source_t *base, const int *fields, int n)
{
    if (n < 0 || (n > 0 && !fields))
        return -1;
    cdc_field_path_t *paths = cdc_xmalloc(sizeof(*paths) * (size_t)(n > 0 ? n : 1));
    for (int k = 0; k < n; k++)
        paths[k] = (cdc_field_path_t){.depth = 1, .idx = {fields[k]}};
    int rc = dg_apply_nested_projection(base, paths, n);
    free(paths);
    return rc;
}

static int dg_apply_limit(cdc_source_t *base, int64_t limit)
{
    dg_source_t *src = (dg_source_t *)base;
    if (limit < 0)
        return -1;
    if (src->limit < 0 || limit < src->limit)
        src->limit = limit;
    return 0;
}

static int dg_open_reader(cdc_source_t *base, int split, int nsplits, cdc_reader_t **out,
                          cdc_error_t **err)
{
    dg_source_t *src = (dg_source_t *)base;
    if (nsplits < 1 || split < 0 || split >= nsplits)
        return cdc_error_set(err, CDC_ERR_INTERNAL, "datagen: bad split %d of %d", split, nsplits);
    dg_reader_t *r = cdc_xcalloc(1, sizeof(*r));
    r->base.ops = &dg_reader_ops;
    r->src = src;
    int64_t count = effective_count(src);
    if (count < 0) {
        r->next = split;
        r->step = nsplits;
        r->end = -1;
    } else {
        cdc_datagen_split_range(count, split, nsplits, &r->next, &r->end);
        r->step = 1;
    }
    cdc_datagen_throttle_init(&r->throttle, src->rps > 0 ? src->rps / nsplits : 0);
    *out = &r->base;
    return 0;
}

static void dg_describe(cdc_source_t *base, cdc_buf_t *out)
{
    dg_source_t *src = (dg_source_t *)base;
    cdc_buf_puts(out, "datagen(");
    if (src->count < 0)
        cdc_buf_puts(out, "unbounded");
    else
        cdc_buf_printf(out, "number-of-rows=%lld", (long long)src->count);
    if (src->limit >= 0)
        cdc_buf_printf(out, ", limit=%lld", (long long)src->limit);
    if (src->spec)
        spec_describe(src->spec, src->produced, out);
    cdc_buf_putc(out, ')');
}

static void dg_destroy(cdc_source_t *base)
{
    dg_source_t *src = (dg_source_t *)base;
    if (!src)
        return;
    spec_destroy(src->spec);
    cdc_type_destroy(src->full);
    cdc_type_destroy(src->produced);
    free(src->proj);
    free(src);
}

/* statistics: exactly the rows a bounded generator will produce */
static int64_t dg_report_row_count(cdc_source_t *base)
{
    return effective_count((const dg_source_t *)base);
}

static const cdc_source_ops_t dg_source_ops = {
    .changelog_mode = dg_changelog_mode,
    .apply_projection = dg_apply_projection,
    .apply_nested_projection = dg_apply_nested_projection,
    .apply_limit = dg_apply_limit,
    .report_row_count = dg_report_row_count,
    .open_reader = dg_open_reader,
    .describe = dg_describe,
    .destroy = dg_destroy,
};

cdc_source_t *cdc_datagen_source_new(const cdc_type_t *row_type, int64_t count,
                                     double rows_per_second, cdc_datagen_fn fn, void *ctx)
{
    if (!row_type || row_type->root != CDC_T_ROW || !fn)
        return NULL;
    dg_source_t *src = cdc_xcalloc(1, sizeof(*src));
    src->base.ops = &dg_source_ops;
    src->full = cdc_type_copy(row_type);
    src->produced = cdc_type_copy(row_type);
    src->base.produced = src->produced;
    src->count = count < 0 ? -1 : count;
    src->limit = -1;
    src->rps = rows_per_second > 0 ? rows_per_second : 0;
    src->fn = fn;
    src->ctx = ctx;
    return &src->base;
}

/* ---- random numbers ------------------------------------------------------------------- */

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A splitmix64 stream whose start is a hash of (seed, row index, field). */
typedef struct rng_s {
    uint64_t s;
} rng_t;

static void rng_seed(rng_t *r, uint64_t seed, int64_t index, uint64_t field)
{
    uint64_t s = mix64(seed ^ 0x6A09E667F3BCC909ULL) ^ (uint64_t)index;
    s = mix64(s) ^ ((field + 1) * 0x9E3779B97F4A7C15ULL);
    r->s = mix64(s);
}

static inline uint64_t rng_next(rng_t *r)
{
    r->s += 0x9E3779B97F4A7C15ULL;
    return mix64(r->s);
}

/* Uniform in [0, n), n > 0. */
static inline uint64_t rng_below(rng_t *r, uint64_t n)
{
    return (uint64_t)(((cdc_u128)rng_next(r) * n) >> 64);
}

/* Uniform in [lo, hi]. */
static int64_t rng_range(rng_t *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1u;
    if (span == 0) /* the whole int64 range */
        return (int64_t)rng_next(r);
    return (int64_t)((uint64_t)lo + rng_below(r, span));
}

/* Uniform in [0, 1). */
static inline double rng_unit(rng_t *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* ---- field generators (the option-driven spec) ------------------------------------------ */

enum { GEN_RANDOM, GEN_SEQUENCE };

#define RANDOM_STRING_LENGTH 100   /* Flink's default for strings and bytes */
#define RANDOM_COLLECTION_LENGTH 3 /* Flink's default for arrays and maps */

typedef struct dg_gen_s dg_gen_t;
struct dg_gen_s {
    const cdc_type_t *type; /* borrowed from the spec's schema */
    const char *name;       /* top-level field name, NULL when nested */
    int kind;               /* GEN_RANDOM / GEN_SEQUENCE */
    int64_t start, end;     /* sequence */
    int64_t imin, imax;     /* random integers */
    double dmin, dmax;      /* random FLOAT/DOUBLE */
    cdc_i128 cmin, cmax;    /* random DECIMAL, unscaled */
    int64_t length;         /* strings and bytes (capped at the declared length), collections */
    bool var_len;           /* VARCHAR/VARBINARY: a random length in [1, length] per value */
    double null_rate;
    int64_t max_past_ms;
    uint64_t salt;  /* the field's index in the schema, for hashing */
    dg_gen_t *kids; /* ARRAY: element; MAP: key, value; ROW: fields */
    int nkids;
};

struct dg_spec_s {
    cdc_type_t *schema;
    dg_gen_t *gens; /* one per schema field */
    int ngens;
    dg_gen_t **fields;       /* produced fields, after projection: the generated column */
    cdc_field_path_t *paths; /* per produced field: its path into the schema (depth 1 = whole) */
    int nfields;
    uint64_t seed;
    bool seed_set;
    int64_t rps_set;      /* rows-per-second when given explicitly, else -1 */
    int64_t now_ms;       /* UTC, fixed at creation so every reader agrees */
    int64_t now_local_ms; /* wall clock of the local zone, for TIMESTAMP and DATE */
};

static void int_range(cdc_type_root_t root, int64_t *lo, int64_t *hi)
{
    switch (root) {
    case CDC_T_TINYINT:
        *lo = INT8_MIN;
        *hi = INT8_MAX;
        break;
    case CDC_T_SMALLINT:
        *lo = INT16_MIN;
        *hi = INT16_MAX;
        break;
    case CDC_T_INT:
        *lo = INT32_MIN;
        *hi = INT32_MAX;
        break;
    default:
        *lo = INT64_MIN;
        *hi = INT64_MAX;
        break;
    }
}

static void gen_init(dg_gen_t *g, const cdc_type_t *type, uint64_t salt)
{
    memset(g, 0, sizeof(*g));
    g->type = type;
    g->kind = GEN_RANDOM;
    g->salt = salt;
    int_range(type->root, &g->imin, &g->imax);
    /* like the integer types, FLOAT and DOUBLE default to their whole (finite) range */
    g->dmax = type->root == CDC_T_FLOAT ? FLT_MAX : DBL_MAX;
    g->dmin = -g->dmax;
    if (type->root == CDC_T_DECIMAL) {
        g->cmax = cdc_pow10_i128(type->precision) - 1;
        g->cmin = -g->cmax;
    }
    g->length = (type->root == CDC_T_ARRAY || type->root == CDC_T_MAP) ? RANDOM_COLLECTION_LENGTH
                                                                       : RANDOM_STRING_LENGTH;
    if (type->nchildren > 0) {
        g->nkids = type->nchildren;
        g->kids = cdc_xcalloc((size_t)g->nkids, sizeof(dg_gen_t));
        for (int i = 0; i < g->nkids; i++)
            gen_init(&g->kids[i], type->children[i], salt);
    }
}

static void gen_free(dg_gen_t *g)
{
    for (int i = 0; i < g->nkids; i++)
        gen_free(&g->kids[i]);
    free(g->kids);
}

static void spec_destroy(dg_spec_t *sp)
{
    if (!sp)
        return;
    for (int i = 0; i < sp->ngens; i++)
        gen_free(&sp->gens[i]);
    free(sp->gens);
    free(sp->fields);
    free(sp->paths);
    cdc_type_destroy(sp->schema);
    free(sp);
}

static const cdc_field_path_t *spec_paths(const dg_spec_t *sp)
{
    return sp->paths;
}

/* paths: over the schema (already composed with any earlier projection). */
static void spec_project(dg_spec_t *sp, const cdc_field_path_t *paths, int n)
{
    dg_gen_t **nf = cdc_xmalloc(sizeof(*nf) * (size_t)(n > 0 ? n : 1));
    cdc_field_path_t *np = cdc_xmalloc(sizeof(*np) * (size_t)(n > 0 ? n : 1));
    for (int k = 0; k < n; k++) {
        nf[k] = &sp->gens[paths[k].idx[0]];
        np[k] = paths[k];
    }
    free(sp->fields);
    free(sp->paths);
    sp->fields = nf;
    sp->paths = np;
    sp->nfields = n;
}

static void spec_describe(const dg_spec_t *sp, const cdc_type_t *produced, cdc_buf_t *out)
{
    if (sp->rps_set >= 0)
        cdc_buf_printf(out, ", rows-per-second=%lld", (long long)sp->rps_set);
    if (sp->seed_set)
        cdc_buf_printf(out, ", seed=%lld", (long long)sp->seed);
    cdc_buf_puts(out, ", fields=[");
    for (int k = 0; k < sp->nfields; k++)
        cdc_buf_printf(out, "%s%s:%s", k ? ", " : "", produced->names[k],
                       sp->fields[k]->kind == GEN_SEQUENCE ? "sequence" : "random");
    cdc_buf_putc(out, ']');
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static bool value_equals(const cdc_value_t *a, const cdc_value_t *b, const cdc_type_t *t)
{
    if ((a->flags & CDC_V_NULL) || (b->flags & CDC_V_NULL))
        return (a->flags & CDC_V_NULL) && (b->flags & CDC_V_NULL);
    switch (t->root) {
    case CDC_T_BOOLEAN:
        return a->v.b == b->v.b;
    case CDC_T_TINYINT:
    case CDC_T_SMALLINT:
    case CDC_T_INT:
    case CDC_T_BIGINT:
    case CDC_T_DATE:
    case CDC_T_TIME:
        return a->v.i == b->v.i;
    case CDC_T_FLOAT:
        return a->v.f == b->v.f;
    case CDC_T_DOUBLE:
        return a->v.d == b->v.d;
    case CDC_T_DECIMAL:
        return a->v.dec == b->v.dec;
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
    case CDC_T_BINARY:
    case CDC_T_VARBINARY:
        return a->v.s.len == b->v.s.len && memcmp(a->v.s.ptr, b->v.s.ptr, a->v.s.len) == 0;
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ:
        return a->v.ts.millis == b->v.ts.millis && a->v.ts.nanos == b->v.ts.nanos;
    default:
        return false; /* nested keys are not deduplicated */
    }
}

/* The length of a random string or bytes value; var-len draws it from r in [1, length]. */
static uint32_t random_length(const dg_gen_t *g, rng_t *r)
{
    int64_t n = g->length;
    if (n > g->type->length)
        n = g->type->length;
    if (g->var_len && n > 1)
        n = rng_range(r, 1, n);
    return n < 0 ? 0 : (uint32_t)n;
}

static void gen_random(const dg_spec_t *sp, const dg_gen_t *g, rng_t *r, cdc_value_t *v,
                       cdc_arena_t *arena)
{
    static const char alnum[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    const cdc_type_t *t = g->type;
    v->flags = 0;
    switch (t->root) {
    case CDC_T_BOOLEAN:
        v->v.b = (rng_next(r) >> 63) != 0;
        break;
    case CDC_T_TINYINT:
    case CDC_T_SMALLINT:
    case CDC_T_INT:
    case CDC_T_BIGINT:
        v->v.i = rng_range(r, g->imin, g->imax);
        break;
    case CDC_T_FLOAT:
    case CDC_T_DOUBLE: {
        double u = rng_unit(r);
        double d = g->dmin * (1.0 - u) + g->dmax * u;
        if (d > g->dmax)
            d = g->dmax;
        if (d < g->dmin)
            d = g->dmin;
        if (t->root == CDC_T_FLOAT)
            v->v.f = (float)d;
        else
            v->v.d = d;
        break;
    }
    case CDC_T_DECIMAL: {
        cdc_u128 span = (cdc_u128)(g->cmax - g->cmin) + 1;
        cdc_u128 x = ((cdc_u128)rng_next(r) << 64) | rng_next(r);
        v->v.dec = g->cmin + (cdc_i128)(x % span);
        break;
    }
    case CDC_T_CHAR:
    case CDC_T_VARCHAR: {
        uint32_t n = random_length(g, r);
        char *p = cdc_arena_alloc(arena, (size_t)n + 1);
        uint64_t bits = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (i % 8 == 0)
                bits = rng_next(r);
            cdc_u128 m = (cdc_u128)bits * 62u; /* "fast range": top bits pick a char */
            p[i] = alnum[(int)(m >> 64)];
            bits = (uint64_t)m;
        }
        p[n] = '\0';
        v->v.s.ptr = p;
        v->v.s.len = n;
        break;
    }
    case CDC_T_BINARY:
    case CDC_T_VARBINARY: {
        uint32_t n = random_length(g, r);
        unsigned char *p = cdc_arena_alloc(arena, (size_t)n + 1);
        uint64_t bits = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (i % 8 == 0)
                bits = rng_next(r);
            p[i] = (unsigned char)(bits & 0xff);
            bits >>= 8;
        }
        v->v.s.ptr = (const char *)p;
        v->v.s.len = n;
        break;
    }
    case CDC_T_DATE: {
        int64_t ms = sp->now_local_ms - rng_range(r, 0, g->max_past_ms);
        v->v.i = floor_div(ms, MS_PER_DAY);
        break;
    }
    case CDC_T_TIME: {
        int64_t nanos = (int64_t)rng_below(r, (uint64_t)MS_PER_DAY * 1000000u);
        int p = t->precision < 0 ? 0 : t->precision > 9 ? 9 : t->precision;
        int64_t unit = (int64_t)cdc_pow10_i128(9 - p);
        v->v.i = nanos - nanos % unit;
        break;
    }
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ: {
        int64_t now = t->root == CDC_T_TIMESTAMP ? sp->now_local_ms : sp->now_ms;
        int64_t ms = now - rng_range(r, 0, g->max_past_ms);
        if (t->precision < 3) {
            int64_t unit = t->precision <= 0 ? 1000 : t->precision == 1 ? 100 : 10;
            ms = floor_div(ms, unit) * unit;
        }
        v->v.ts.millis = ms;
        v->v.ts.nanos = 0;
        break;
    }
    case CDC_T_ARRAY: {
        uint32_t n = g->length < 0 ? 0 : (uint32_t)g->length;
        cdc_value_t *elems = cdc_arena_alloc(arena, sizeof(cdc_value_t) * (n ? n : 1));
        for (uint32_t i = 0; i < n; i++)
            gen_random(sp, &g->kids[0], r, &elems[i], arena);
        v->v.arr.n = n;
        v->v.arr.elems = elems;
        v->v.arr.vals = NULL;
        break;
    }
    case CDC_T_MAP: {
        uint32_t want = g->length < 0 ? 0 : (uint32_t)g->length;
        cdc_value_t *keys = cdc_arena_alloc(arena, sizeof(cdc_value_t) * (want ? want : 1));
        cdc_value_t *vals = cdc_arena_alloc(arena, sizeof(cdc_value_t) * (want ? want : 1));
        uint32_t n = 0;
        /* keys are unique, as in Flink's map generator (a Java map) */
        for (uint32_t tries = 0; n < want && tries < want * 4 + 8; tries++) {
            gen_random(sp, &g->kids[0], r, &keys[n], arena);
            bool dup = false;
            for (uint32_t j = 0; j < n && !dup; j++)
                dup = value_equals(&keys[j], &keys[n], g->kids[0].type);
            if (dup)
                continue;
            gen_random(sp, &g->kids[1], r, &vals[n], arena);
            n++;
        }
        v->v.arr.n = n;
        v->v.arr.elems = keys;
        v->v.arr.vals = vals;
        break;
    }
    case CDC_T_ROW: {
        cdc_row_t *row = cdc_row_new_in(arena, (uint32_t)g->nkids);
        for (int i = 0; i < g->nkids; i++)
            gen_random(sp, &g->kids[i], r, &row->values[i], arena);
        v->v.row = row;
        break;
    }
    default:
        v->flags = CDC_V_NULL;
        break;
    }
}

static void gen_sequence(const dg_gen_t *g, int64_t x, cdc_value_t *v, cdc_arena_t *arena)
{
    const cdc_type_t *t = g->type;
    v->flags = 0;
    switch (t->root) {
    case CDC_T_FLOAT:
        v->v.f = (float)x;
        break;
    case CDC_T_DOUBLE:
        v->v.d = (double)x;
        break;
    case CDC_T_DECIMAL:
        v->v.dec = (cdc_i128)x * cdc_pow10_i128(t->scale);
        break;
    case CDC_T_CHAR:
    case CDC_T_VARCHAR: {
        char tmp[32];
        int n = snprintf(tmp, sizeof(tmp), "%lld", (long long)x);
        v->v.s.ptr = cdc_arena_memdup(arena, tmp, (size_t)n);
        v->v.s.len = (uint32_t)n;
        break;
    }
    default: /* integer types */
        v->v.i = x;
        break;
    }
}

/* The generator function of the option-driven datagen. */
static int spec_generate(void *ctx, int64_t index, cdc_row_t *row, cdc_arena_t *arena, char *errbuf,
                         size_t errlen)
{
    const dg_spec_t *sp = ctx;
    cdc_value_t whole; /* the last generated column, shared by adjacent leaves of it */
    const dg_gen_t *whole_of = NULL;
    for (int k = 0; k < sp->nfields && (uint32_t)k < row->arity; k++) {
        const dg_gen_t *g = sp->fields[k];
        cdc_value_t *v = &row->values[k];
        if (sp->paths[k].depth > 1) {
            /* a nested leaf: the column is generated whole, as unprojected, then picked */
            if (whole_of != g) {
                whole_of = g;
                rng_t r;
                rng_seed(&r, sp->seed, index, g->salt);
                if (rng_unit(&r) < g->null_rate)
                    whole.flags = CDC_V_NULL;
                else
                    gen_random(sp, g, &r, &whole, arena);
            }
            pick_leaf(&whole, &sp->paths[k], v);
            continue;
        }
        if (g->kind == GEN_SEQUENCE) {
            if (index < 0 || (uint64_t)index > (uint64_t)g->end - (uint64_t)g->start) {
                snprintf(errbuf, errlen, "sequence field \"%s\" is exhausted at row %lld", g->name,
                         (long long)index);
                return -1;
            }
            gen_sequence(g, (int64_t)((uint64_t)g->start + (uint64_t)index), v, arena);
            continue;
        }
        rng_t r;
        rng_seed(&r, sp->seed, index, g->salt);
        /* the null draw is always taken, so values do not depend on null-rate */
        double u = rng_unit(&r);
        if (u < g->null_rate) {
            v->flags = CDC_V_NULL;
            continue;
        }
        gen_random(sp, g, &r, v, arena);
    }
    return 0;
}

/* ---- options ------------------------------------------------------------------------ */

static const cdc_option_def_t datagen_options[] = {
    {.key = "rows-per-second",
     .type = CDC_OPT_INT,
     .default_value = "10000",
     .min = 1,
     .max = INT64_MAX,
     .description = "Rows per second the whole source emits (divided evenly among its readers)."},
    {.key = "number-of-rows",
     .type = CDC_OPT_INT,
     .min = 0,
     .max = INT64_MAX,
     .description = "Total number of rows to emit; unset means unbounded (unless a field is a "
                    "sequence, which bounds the source to its length)."},
    {.key = "scan.parallelism",
     .type = CDC_OPT_INT,
     .min = 1,
     .max = 65536,
     .description = "Number of readers (splits) of the source; unset means the run's parallelism."},
    {.key = "seed",
     .type = CDC_OPT_INT,
     .description = "Seed of the random values: the same seed gives the same rows, however the "
                    "source is split; unset means a new seed each run."},
    {.key = "fields.",
     .type = CDC_OPT_PREFIX,
     .description = "Per-field generators, fields.<name>.<option>: kind (random or sequence), "
                    "start and end (sequence), min and max (random numbers; default the type's "
                    "whole range), length (random "
                    "strings, bytes, arrays and maps; default 100 for strings and bytes, 3 for "
                    "collections), var-len (true: random VARCHAR/VARBINARY lengths between 1 "
                    "and length), null-rate (0..1), max-past (random dates and timestamps, a "
                    "duration)."},
    {0},
};

/* In the order cdc_closest() breaks ties in: "mni" is closer to "min" than to "end". */
enum {
    SUB_KIND,
    SUB_MIN,
    SUB_MAX,
    SUB_LENGTH,
    SUB_NULL_RATE,
    SUB_MAX_PAST,
    SUB_START,
    SUB_END,
    SUB_VAR_LEN,
    SUB__COUNT
};

static const char *const sub_keys[SUB__COUNT] = {
    "kind", "min", "max", "length", "null-rate", "max-past", "start", "end", "var-len",
};

static int sub_index(const char *sub)
{
    for (int i = 0; i < SUB__COUNT; i++)
        if (strcmp(sub_keys[i], sub) == 0)
            return i;
    return -1;
}

/* Splits "name.sub" at the last dot; returns the sub-key index or -1 (malformed), -2 (unknown). */
static int split_field_key(const char *key, size_t *name_len, const char **sub)
{
    const char *dot = strrchr(key, '.');
    if (!dot || dot == key || !dot[1])
        return -1;
    *name_len = (size_t)(dot - key);
    *sub = dot + 1;
    int i = sub_index(dot + 1);
    return i < 0 ? -2 : i;
}

static bool parse_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    while (end && (*end == ' ' || *end == '\t'))
        end++;
    if (errno || end == s || *end || !isfinite(d))
        return false;
    *out = d;
    return true;
}

/* Value of fields.<name>.<sub>, or NULL. */
static const char *field_opt(const cdc_kv_t *f, const char *name, size_t name_len, int sub)
{
    size_t sl = strlen(sub_keys[sub]);
    for (int i = 0; i < f->n; i++) {
        const char *k = f->keys[i];
        if (strlen(k) == name_len + 1 + sl && strncmp(k, name, name_len) == 0 &&
            k[name_len] == '.' && strcmp(k + name_len + 1, sub_keys[sub]) == 0)
            return f->values[i];
    }
    return NULL;
}

/* Whether key i is the first one naming its field. */
static bool first_of_field(const cdc_kv_t *f, int i, size_t name_len)
{
    for (int j = 0; j < i; j++) {
        size_t nl;
        const char *sub;
        if (split_field_key(f->keys[j], &nl, &sub) != -1 && nl == name_len &&
            strncmp(f->keys[j], f->keys[i], nl) == 0)
            return false;
    }
    return true;
}

/* Type-independent rules for the fields.* options (the factory's check callback). */
static void datagen_check(const cdc_config_t *cfg, cdc_buf_t *problems)
{
    const cdc_kv_t *f = cdc_config_prefixed(cfg, "fields.");
    /* each key on its own */
    for (int i = 0; i < f->n; i++) {
        const char *key = f->keys[i], *val = f->values[i];
        size_t nl;
        const char *sub;
        int s = split_field_key(key, &nl, &sub);
        if (s == -1) {
            cdc_buf_printf(problems, "option \"fields.%s\": expected \"fields.<name>.<option>\"\n",
                           key);
            continue;
        }
        if (s == -2) {
            const char *sug = cdc_closest(sub, sub_keys, SUB__COUNT);
            if (sug)
                cdc_buf_printf(problems,
                               "option \"fields.%s\": unknown field option \"%s\" (did you mean "
                               "\"%s\"?)\n",
                               key, sub, sug);
            else
                cdc_buf_printf(problems, "option \"fields.%s\": unknown field option \"%s\"\n", key,
                               sub);
            continue;
        }
        int64_t iv;
        double dv;
        switch (s) {
        case SUB_KIND:
            if (strcasecmp(val, "random") != 0 && strcasecmp(val, "sequence") != 0)
                cdc_buf_printf(problems,
                               "option \"fields.%s\": expected random or sequence, found \"%s\"\n",
                               key, val);
            break;
        case SUB_START:
        case SUB_END:
            if (cdc_parse_int(val, &iv) < 0)
                cdc_buf_printf(problems,
                               "option \"fields.%s\": expected an integer, found \"%s\"\n", key,
                               val);
            break;
        case SUB_MIN:
        case SUB_MAX:
            if (!parse_number(val, &dv))
                cdc_buf_printf(problems, "option \"fields.%s\": expected a number, found \"%s\"\n",
                               key, val);
            break;
        case SUB_LENGTH:
            if (cdc_parse_int(val, &iv) < 0 || iv < 0 || iv > CDC_MAX_LENGTH)
                cdc_buf_printf(problems,
                               "option \"fields.%s\": expected a non-negative integer, found "
                               "\"%s\"\n",
                               key, val);
            break;
        case SUB_NULL_RATE:
            if (!parse_number(val, &dv) || dv < 0 || dv > 1)
                cdc_buf_printf(problems,
                               "option \"fields.%s\": expected a number between 0 and 1, found "
                               "\"%s\"\n",
                               key, val);
            break;
        case SUB_VAR_LEN:
            if (strcasecmp(val, "true") != 0 && strcasecmp(val, "false") != 0)
                cdc_buf_printf(problems,
                               "option \"fields.%s\": expected true or false, found \"%s\"\n", key,
                               val);
            break;
        case SUB_MAX_PAST:
            if (cdc_parse_duration_ms(val, &iv) < 0)
                cdc_buf_printf(problems,
                               "option \"fields.%s\": expected a duration such as \"500 ms\", "
                               "\"10 s\" or \"5 min\", found \"%s\"\n",
                               key, val);
            break;
        }
    }
    /* rules across one field's options, once per field in order of appearance */
    for (int i = 0; i < f->n; i++) {
        size_t nl;
        const char *sub;
        if (split_field_key(f->keys[i], &nl, &sub) == -1 || !first_of_field(f, i, nl))
            continue;
        const char *name = f->keys[i];
        int n = (int)nl;
        const char *kind = field_opt(f, name, nl, SUB_KIND);
        if (kind && strcasecmp(kind, "random") != 0 && strcasecmp(kind, "sequence") != 0)
            continue; /* already reported */
        if (kind && strcasecmp(kind, "sequence") == 0) {
            const char *start = field_opt(f, name, nl, SUB_START);
            const char *end = field_opt(f, name, nl, SUB_END);
            int64_t a, b;
            if (!start || !end)
                cdc_buf_printf(problems,
                               "option \"fields.%.*s.%s\": sequence fields need both start and "
                               "end\n",
                               n, name, start ? "end" : "start");
            else if (cdc_parse_int(start, &a) == 0 && cdc_parse_int(end, &b) == 0 && a > b)
                cdc_buf_printf(problems,
                               "option \"fields.%.*s.end\": end %lld is less than start %lld\n", n,
                               name, (long long)b, (long long)a);
            static const int random_only[] = {SUB_MIN,       SUB_MAX,      SUB_LENGTH,
                                              SUB_NULL_RATE, SUB_MAX_PAST, SUB_VAR_LEN};
            for (size_t k = 0; k < sizeof(random_only) / sizeof(random_only[0]); k++)
                if (field_opt(f, name, nl, random_only[k]))
                    cdc_buf_printf(problems,
                                   "option \"fields.%.*s.%s\": \"%s\" is for random fields, but "
                                   "\"fields.%.*s.kind\" is \"sequence\"\n",
                                   n, name, sub_keys[random_only[k]], sub_keys[random_only[k]], n,
                                   name);
        } else {
            static const int sequence_only[] = {SUB_START, SUB_END};
            for (size_t k = 0; k < 2; k++)
                if (field_opt(f, name, nl, sequence_only[k]))
                    cdc_buf_printf(problems,
                                   "option \"fields.%.*s.%s\": \"%s\" is for sequence fields; set "
                                   "\"fields.%.*s.kind\" to \"sequence\"\n",
                                   n, name, sub_keys[sequence_only[k]], sub_keys[sequence_only[k]],
                                   n, name);
            const char *min = field_opt(f, name, nl, SUB_MIN);
            const char *max = field_opt(f, name, nl, SUB_MAX);
            double lo, hi;
            if (min && max && parse_number(min, &lo) && parse_number(max, &hi) && lo > hi)
                cdc_buf_printf(problems, "option \"fields.%.*s.max\": max %s is less than min %s\n",
                               n, name, max, min);
        }
    }
}

/* The type as text without NOT NULL, for messages; malloc'ed. */
static char *type_text(const cdc_type_t *t)
{
    cdc_type_t tmp = *t;
    tmp.nullable = true;
    return cdc_type_to_string(&tmp);
}

static bool is_numeric(const cdc_type_t *t)
{
    return cdc_type_is_integer(t) || t->root == CDC_T_FLOAT || t->root == CDC_T_DOUBLE ||
           t->root == CDC_T_DECIMAL;
}

/* Whether sequence value x fits the field's type. */
static bool sequence_fits(const cdc_type_t *t, int64_t x)
{
    if (cdc_type_is_integer(t)) {
        int64_t lo, hi;
        int_range(t->root, &lo, &hi);
        return x >= lo && x <= hi;
    }
    if (t->root == CDC_T_DECIMAL)
        return cdc_i128_digits((cdc_i128)x) + t->scale <= t->precision;
    if (t->root == CDC_T_CHAR || t->root == CDC_T_VARCHAR) {
        char tmp[32];
        return snprintf(tmp, sizeof(tmp), "%lld", (long long)x) <= t->length;
    }
    return true; /* FLOAT, DOUBLE */
}

/* Applies one fields.<name>.<sub> option to its generator, with the type-dependent checks. */
static void apply_field_option(dg_gen_t *g, int sub, const char *key, const char *val,
                               cdc_buf_t *problems)
{
    const cdc_type_t *t = g->type;
    char *tt = type_text(t);
    int64_t iv = 0;
    double dv = 0;
    switch (sub) {
    case SUB_KIND:
        if (strcasecmp(val, "sequence") == 0) {
            g->kind = GEN_SEQUENCE;
            if (!is_numeric(t) && t->root != CDC_T_CHAR && t->root != CDC_T_VARCHAR)
                cdc_buf_printf(problems,
                               "option \"fields.%s\": field \"%s\" of type %s cannot be a "
                               "sequence (numbers and strings only)\n",
                               key, g->name, tt);
        }
        break;
    case SUB_START:
    case SUB_END:
        cdc_parse_int(val, &iv);
        if (sub == SUB_START)
            g->start = iv;
        else
            g->end = iv;
        if ((is_numeric(t) || t->root == CDC_T_CHAR || t->root == CDC_T_VARCHAR) &&
            !sequence_fits(t, iv))
            cdc_buf_printf(problems, "option \"fields.%s\": value %lld does not fit %s\n", key,
                           (long long)iv, tt);
        break;
    case SUB_MIN:
    case SUB_MAX: {
        bool is_min = sub == SUB_MIN;
        if (!is_numeric(t)) {
            cdc_buf_printf(problems,
                           "option \"fields.%s\": field \"%s\" of type %s takes no \"%s\" "
                           "(numbers only)\n",
                           key, g->name, tt, sub_keys[sub]);
        } else if (cdc_type_is_integer(t)) {
            int64_t lo, hi;
            int_range(t->root, &lo, &hi);
            if (cdc_parse_int(val, &iv) < 0)
                cdc_buf_printf(problems,
                               "option \"fields.%s\": expected an integer for %s, found \"%s\"\n",
                               key, tt, val);
            else if (iv < lo || iv > hi)
                cdc_buf_printf(problems, "option \"fields.%s\": value %s does not fit %s\n", key,
                               val, tt);
            else if (is_min)
                g->imin = iv;
            else
                g->imax = iv;
        } else if (t->root == CDC_T_DECIMAL) {
            cdc_i128 c;
            if (cdc_decimal_parse(val, strlen(val), t->precision, t->scale, &c) < 0)
                cdc_buf_printf(problems, "option \"fields.%s\": value %s does not fit %s\n", key,
                               val, tt);
            else if (is_min)
                g->cmin = c;
            else
                g->cmax = c;
        } else {
            parse_number(val, &dv);
            if (t->root == CDC_T_FLOAT && fabs(dv) > FLT_MAX)
                cdc_buf_printf(problems, "option \"fields.%s\": value %s does not fit %s\n", key,
                               val, tt);
            else if (is_min)
                g->dmin = dv;
            else
                g->dmax = dv;
        }
        break;
    }
    case SUB_LENGTH:
        cdc_parse_int(val, &iv);
        if (t->root != CDC_T_CHAR && t->root != CDC_T_VARCHAR && t->root != CDC_T_BINARY &&
            t->root != CDC_T_VARBINARY && t->root != CDC_T_ARRAY && t->root != CDC_T_MAP)
            cdc_buf_printf(problems,
                           "option \"fields.%s\": field \"%s\" of type %s takes no \"length\" "
                           "(strings, bytes, arrays and maps only)\n",
                           key, g->name, tt);
        else
            g->length = iv;
        break;
    case SUB_NULL_RATE:
        parse_number(val, &dv);
        if (dv > 0 && !t->nullable)
            cdc_buf_printf(problems,
                           "option \"fields.%s\": field \"%s\" is NOT NULL and cannot be null\n",
                           key, g->name);
        else
            g->null_rate = dv;
        break;
    case SUB_VAR_LEN:
        /* Flink: variable-length types only (a CHAR(n) or BINARY(n) has n characters) */
        if (t->root != CDC_T_VARCHAR && t->root != CDC_T_VARBINARY)
            cdc_buf_printf(problems,
                           "option \"fields.%s\": field \"%s\" of type %s takes no \"var-len\" "
                           "(variable-length types only: VARCHAR, STRING, VARBINARY, BYTES)\n",
                           key, g->name, tt);
        else
            g->var_len = strcasecmp(val, "true") == 0;
        break;
    case SUB_MAX_PAST:
        cdc_parse_duration_ms(val, &iv);
        if (t->root != CDC_T_DATE && t->root != CDC_T_TIMESTAMP && t->root != CDC_T_TIMESTAMP_LTZ)
            cdc_buf_printf(problems,
                           "option \"fields.%s\": field \"%s\" of type %s takes no \"max-past\" "
                           "(dates and timestamps only)\n",
                           key, g->name, tt);
        else
            g->max_past_ms = iv;
        break;
    }
    free(tt);
}

/* Compiles the fields.* options into sp's generators; appends problems. */
static void spec_apply_options(dg_spec_t *sp, const cdc_kv_t *f, cdc_buf_t *problems,
                               bool *unknown_field)
{
    for (int i = 0; i < f->n; i++) {
        size_t nl;
        const char *sub;
        int s = split_field_key(f->keys[i], &nl, &sub);
        if (s < 0)
            continue;
        char *name = cdc_xstrndup(f->keys[i], nl);
        int idx = cdc_type_field_index(sp->schema, name);
        if (idx < 0) {
            if (first_of_field(f, i, nl))
                cdc_buf_printf(problems, "option \"fields.%s\": unknown field \"%s\"\n", f->keys[i],
                               name);
            *unknown_field = true;
        } else {
            apply_field_option(&sp->gens[idx], s, f->keys[i], f->values[i], problems);
        }
        free(name);
    }
    /* check() compared min and max as doubles; these differ only beyond double precision */
    for (int i = 0; i < sp->ngens; i++) {
        dg_gen_t *g = &sp->gens[i];
        if (g->kind != GEN_RANDOM)
            continue;
        if (cdc_type_is_integer(g->type) && g->imin > g->imax)
            cdc_buf_printf(problems, "option \"fields.%s.max\": max %lld is less than min %lld\n",
                           g->name, (long long)g->imax, (long long)g->imin);
        if (g->type->root == CDC_T_DECIMAL && g->cmin > g->cmax) {
            const char *min = field_opt(f, g->name, strlen(g->name), SUB_MIN);
            const char *max = field_opt(f, g->name, strlen(g->name), SUB_MAX);
            cdc_buf_printf(problems, "option \"fields.%s.max\": max %s is less than min %s\n",
                           g->name, max ? max : "?", min ? min : "?");
        }
    }
}

static int64_t sequence_length(const dg_gen_t *g)
{
    uint64_t span = (uint64_t)g->end - (uint64_t)g->start;
    return span >= (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)span + 1;
}

static uint64_t fresh_seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    static atomic_uint_fast64_t counter;
    uint64_t c = (uint64_t)atomic_fetch_add(&counter, 1) + 1;
    return mix64((uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^
                 ((uint64_t)getpid() << 32) ^ c * 0x9E3779B97F4A7C15ULL);
}

static int datagen_source_new(const cdc_table_ctx_t *ctx, cdc_source_t **out, cdc_error_t **err)
{
    const cdc_config_t *cfg = ctx->cfg;
    if (!ctx->schema || ctx->schema->root != CDC_T_ROW)
        return cdc_error_set(err, CDC_ERR_INTERNAL, "datagen: the table schema is not a ROW");
    for (int i = 0; i < ctx->schema->nchildren; i++) {
        if (cdc_type_contains(ctx->schema->children[i], CDC_T_MULTISET))
            return cdc_error_set(err, CDC_ERR_PLAN,
                                 "MULTISET is not supported by connector \"datagen\": field \"%s\" "
                                 "of table \"%s\"",
                                 ctx->schema->names[i], ctx->name ? ctx->name : "?");
    }

    dg_spec_t *sp = cdc_xcalloc(1, sizeof(*sp));
    sp->schema = cdc_type_copy(ctx->schema);
    sp->ngens = sp->schema->nchildren;
    sp->gens = cdc_xcalloc((size_t)(sp->ngens > 0 ? sp->ngens : 1), sizeof(dg_gen_t));
    sp->nfields = sp->ngens;
    sp->fields = cdc_xmalloc(sizeof(dg_gen_t *) * (size_t)(sp->ngens > 0 ? sp->ngens : 1));
    sp->paths = cdc_xmalloc(sizeof(cdc_field_path_t) * (size_t)(sp->ngens > 0 ? sp->ngens : 1));
    for (int i = 0; i < sp->ngens; i++) {
        sp->paths[i] = (cdc_field_path_t){.depth = 1, .idx = {i}};
        gen_init(&sp->gens[i], sp->schema->children[i], (uint64_t)i);
        sp->gens[i].name = sp->schema->names[i];
        sp->fields[i] = &sp->gens[i];
    }
    sp->seed_set = cdc_config_isset(cfg, "seed");
    sp->seed = sp->seed_set ? (uint64_t)cdc_config_int(cfg, "seed") : fresh_seed();
    sp->rps_set =
        cdc_config_isset(cfg, "rows-per-second") ? cdc_config_int(cfg, "rows-per-second") : -1;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    sp->now_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
    struct tm tm;
    time_t secs = now.tv_sec;
    long gmtoff = localtime_r(&secs, &tm) ? tm.tm_gmtoff : 0;
    sp->now_local_ms = sp->now_ms + (int64_t)gmtoff * 1000;

    /* the type-independent rules again (the validator may have run without them) */
    cdc_buf_t problems = {0};
    bool unknown_field = false;
    datagen_check(cfg, &problems);
    if (problems.len == 0)
        spec_apply_options(sp, cdc_config_prefixed(cfg, "fields."), &problems, &unknown_field);
    if (problems.len) {
        while (problems.len && problems.data[problems.len - 1] == '\n')
            problems.len--;
        cdc_error_t *e = cdc_error_new(CDC_ERR_OPTION, "invalid options for connector \"datagen\"");
        cdc_error_set_detail(e, "%s", cdc_buf_cstr(&problems));
        if (unknown_field) {
            cdc_buf_t names = {0};
            for (int i = 0; i < sp->ngens; i++)
                cdc_buf_printf(&names, "%s%s", i ? ", " : "", sp->schema->names[i]);
            cdc_error_set_hint(e, "the fields of the table are: %s", cdc_buf_cstr(&names));
            cdc_buf_free(&names);
        } else {
            cdc_error_set_hint(e, "\"cdcflow describe datagen\" lists the options of connector "
                                  "\"datagen\".");
        }
        cdc_buf_free(&problems);
        spec_destroy(sp);
        if (err) {
            cdc_error_destroy(*err);
            *err = e;
        } else {
            cdc_error_destroy(e);
        }
        return -1;
    }
    cdc_buf_free(&problems);

    int64_t count =
        cdc_config_isset(cfg, "number-of-rows") ? cdc_config_int(cfg, "number-of-rows") : -1;
    for (int i = 0; i < sp->ngens; i++) {
        if (sp->gens[i].kind != GEN_SEQUENCE)
            continue;
        int64_t len = sequence_length(&sp->gens[i]);
        if (count < 0 || len < count)
            count = len;
    }
    cdc_source_t *src = cdc_datagen_source_new(
        sp->schema, count, (double)cdc_config_int(cfg, "rows-per-second"), spec_generate, sp);
    ((dg_source_t *)src)->spec = sp;
    *out = src;
    return 0;
}

const cdc_connector_factory_t cdc_connector_datagen = {
    .identifier = "datagen",
    .description = "Generates rows of random or sequence values (Flink's datagen), bounded or "
                   "unbounded, at a limited rate.",
    .options = datagen_options,
    .check = datagen_check,
    .metadata = NULL,
    .source_new = datagen_source_new,
    .sink_new = NULL,
};
