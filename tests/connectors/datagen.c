/*
 * tests/connectors/datagen.c — the "datagen" connector and the generator
 * source it is built on (cdc_datagen.h): splits, determinism, value ranges,
 * abilities, throttle arithmetic, and the exact text of every option error.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cdc_datagen.h"
#include "cdc_plugin.h"

extern const cdc_connector_factory_t cdc_connector_datagen;

#define FAST "rows-per-second", "1000000000"

/* ---- helpers ------------------------------------------------------------------- */

typedef struct dg_s {
    cdc_type_t *schema;
    cdc_config_t *cfg;
    cdc_source_t *src;
} dg_t;

static void kv_fill(cdc_kv_t *kv, const char *const *pairs)
{
    for (int i = 0; pairs && pairs[i]; i += 2)
        cdc_kv_set(kv, pairs[i], pairs[i + 1]);
}

/* Validates options (without the check callback, as cdc_config_new does) and runs source_new. */
static int dg_try(dg_t *d, const char *schema, const char *const *pairs, cdc_error_t **err)
{
    memset(d, 0, sizeof(*d));
    d->schema = cdc_type_parse(schema, err);
    cr_assert_not_null(d->schema, "schema: %s", *err ? (*err)->message : "");
    cdc_kv_t kv = {0};
    kv_fill(&kv, pairs);
    d->cfg = cdc_config_new(cdc_connector_datagen.options, "connector \"datagen\"", &kv, err);
    cdc_kv_free(&kv);
    if (!d->cfg)
        return -1;
    cdc_table_ctx_t ctx = {
        .name = "cat.db.t", .schema = d->schema, .cfg = d->cfg, .parallelism = 1};
    return cdc_connector_datagen.source_new(&ctx, &d->src, err);
}

static void dg_open(dg_t *d, const char *schema, const char *const *pairs)
{
    cdc_error_t *err = NULL;
    int rc = dg_try(d, schema, pairs, &err);
    cr_assert_eq(rc, 0, "source_new: %s / %s", err ? err->message : "",
                 err && err->detail ? err->detail : "");
    cr_assert_not_null(d->src);
}

static void dg_close(dg_t *d)
{
    if (d->src)
        d->src->ops->destroy(d->src);
    cdc_config_destroy(d->cfg);
    cdc_type_destroy(d->schema);
    memset(d, 0, sizeof(*d));
}

typedef struct lines_s {
    char **v;
    int n, cap;
} lines_t;

static void lines_push(lines_t *l, const char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = realloc(l->v, sizeof(char *) * (size_t)l->cap);
    }
    l->v[l->n++] = strdup(s);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void lines_sort(lines_t *l)
{
    qsort(l->v, (size_t)l->n, sizeof(char *), cmp_str);
}

static void lines_free(lines_t *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

static void assert_lines_eq(const lines_t *a, const lines_t *b)
{
    cr_assert_eq(a->n, b->n, "%d rows vs %d rows", a->n, b->n);
    for (int i = 0; i < a->n; i++)
        cr_assert_str_eq(a->v[i], b->v[i], "row %d", i);
}

/* Polls one reader until END (or max_polls polls), printing rows into lines. */
static int drain(cdc_source_t *src, int split, int nsplits, uint32_t max_rows, int max_polls,
                 lines_t *lines)
{
    cdc_reader_t *reader = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(src->ops->open_reader(src, split, nsplits, &reader, &err), 0);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    cdc_buf_t buf = {0};
    int total = 0;
    for (int p = 0; max_polls < 0 || p < max_polls; p++) {
        cdc_batch_reset(&batch);
        int rc = reader->ops->poll(reader, &batch, max_rows, &err);
        cr_assert_neq(rc, CDC_POLL_ERROR, "poll: %s", err ? err->message : "");
        cr_assert(batch.n <= max_rows, "poll returned %u rows for max %u", batch.n, max_rows);
        if (rc == CDC_POLL_END) {
            cr_assert_eq(batch.n, 0, "END with rows");
            break;
        }
        for (uint32_t i = 0; i < batch.n; i++) {
            cr_assert_eq(batch.rows[i].kind, CDC_INSERT);
            cr_assert_eq(batch.rows[i].arity, (uint32_t)src->produced->nchildren);
            cdc_buf_clear(&buf);
            cdc_row_print(&buf, &batch.rows[i], src->produced);
            if (lines)
                lines_push(lines, cdc_buf_cstr(&buf));
        }
        total += (int)batch.n;
    }
    cdc_buf_free(&buf);
    cdc_batch_free(&batch);
    reader->ops->close(reader);
    return total;
}

/* Polls every split of nsplits to the end; returns all rows sorted. */
static void drain_all(cdc_source_t *src, int nsplits, uint32_t max_rows, lines_t *lines)
{
    for (int k = 0; k < nsplits; k++)
        drain(src, k, nsplits, max_rows, -1, lines);
    lines_sort(lines);
}

/* Collects the BIGINT of field 0 of every row of every split. */
static int64_t *collect_ids(cdc_source_t *src, int nsplits, int *n)
{
    int64_t *ids = NULL;
    int cap = 0;
    *n = 0;
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    for (int k = 0; k < nsplits; k++) {
        cdc_reader_t *reader = NULL;
        cdc_error_t *err = NULL;
        cr_assert_eq(src->ops->open_reader(src, k, nsplits, &reader, &err), 0);
        for (;;) {
            cdc_batch_reset(&batch);
            int rc = reader->ops->poll(reader, &batch, 37, &err);
            cr_assert_neq(rc, CDC_POLL_ERROR);
            if (rc == CDC_POLL_END)
                break;
            for (uint32_t i = 0; i < batch.n; i++) {
                if (*n == cap) {
                    cap = cap ? cap * 2 : 256;
                    ids = realloc(ids, sizeof(int64_t) * (size_t)cap);
                }
                cr_assert(!cdc_value_is_null(&batch.rows[i].values[0]));
                ids[(*n)++] = batch.rows[i].values[0].v.i;
            }
        }
        reader->ops->close(reader);
    }
    cdc_batch_free(&batch);
    return ids;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* One batch of n rows from split 0 of 1 (the caller frees the batch). */
static void poll_rows(cdc_source_t *src, uint32_t n, cdc_batch_t *batch)
{
    cdc_reader_t *reader = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(src->ops->open_reader(src, 0, 1, &reader, &err), 0);
    cdc_batch_init(batch);
    while (batch->n < n) {
        int rc = reader->ops->poll(reader, batch, n - batch->n, &err);
        cr_assert_eq(rc, CDC_POLL_OK, "poll rc %d", rc);
    }
    reader->ops->close(reader);
}

/* Validation with the factory's check callback, as the planner runs it. */
static char *validate_detail(const char *const *pairs)
{
    cdc_kv_t kv = {0};
    kv_fill(&kv, pairs);
    cdc_option_scope_t scope = {.defs = cdc_connector_datagen.options,
                                .prefix = "",
                                .label = "connector \"datagen\"",
                                .check = cdc_connector_datagen.check};
    cdc_config_t *cfg = NULL;
    cdc_error_t *err = NULL;
    int rc = cdc_options_validate(&scope, 1, &kv, &cfg, &err);
    cdc_kv_free(&kv);
    if (rc == 0) {
        cdc_config_destroy(cfg);
        return NULL;
    }
    cr_assert_eq(err->code, CDC_ERR_OPTION);
    cr_assert_str_eq(err->message, "invalid options for connector \"datagen\"");
    char *detail = strdup(err->detail ? err->detail : "");
    cdc_error_destroy(err);
    return detail;
}

static void assert_check_error(const char *const *pairs, const char *expected)
{
    char *detail = validate_detail(pairs);
    cr_assert_not_null(detail, "expected the options to be rejected");
    cr_assert_str_eq(detail, expected);
    free(detail);
}

/* Type-dependent problems: reported by source_new. Returns the hint (malloc'ed). */
static char *assert_source_error(const char *schema, const char *const *pairs, const char *expected)
{
    dg_t d;
    cdc_error_t *err = NULL;
    int rc = dg_try(&d, schema, pairs, &err);
    cr_assert_eq(rc, -1, "expected source_new to fail");
    cr_assert_null(d.src);
    cr_assert_not_null(err);
    cr_assert_eq(err->code, CDC_ERR_OPTION);
    cr_assert_str_eq(err->message, "invalid options for connector \"datagen\"");
    cr_assert_str_eq(err->detail, expected);
    char *hint = strdup(err->hint ? err->hint : "");
    cdc_error_destroy(err);
    dg_close(&d);
    return hint;
}

#define SCHEMA "ROW<id BIGINT NOT NULL, name STRING, v INT>"

/* ---- factory ------------------------------------------------------------------------ */

Test(datagen, factory_shape)
{
    cr_assert_str_eq(cdc_connector_datagen.identifier, "datagen");
    cr_assert_not_null(cdc_connector_datagen.source_new);
    cr_assert_null(cdc_connector_datagen.sink_new);
    cr_assert_not_null(cdc_connector_datagen.check);
    for (int i = 0; cdc_connector_datagen.options[i].key; i++)
        cr_assert(cdc_connector_datagen.options[i].description &&
                      *cdc_connector_datagen.options[i].description,
                  "option %s", cdc_connector_datagen.options[i].key);
}

Test(datagen, defaults_and_insert_only)
{
    dg_t d;
    dg_open(&d, SCHEMA, (const char *const[]){"number-of-rows", "5", NULL});
    cr_assert_eq(d.src->ops->changelog_mode(d.src), CDC_MODE_INSERT_ONLY);
    cr_assert(cdc_type_equals(d.src->produced, d.schema));
    lines_t l = {0};
    /* 5 rows at the default 10000 rows/s: one poll, no throttle wait worth noting */
    cr_assert_eq(drain(d.src, 0, 1, 100, -1, &l), 5);
    lines_free(&l);
    dg_close(&d);
}

/* ---- splits and determinism --------------------------------------------------------- */

Test(datagen, four_splits_cover_sequence_exactly)
{
    dg_t d;
    dg_open(&d, SCHEMA,
            (const char *const[]){FAST, "number-of-rows", "1000", "fields.id.kind", "sequence",
                                  "fields.id.start", "1", "fields.id.end", "5000", NULL});
    int n = 0;
    int64_t *ids = collect_ids(d.src, 4, &n);
    cr_assert_eq(n, 1000);
    qsort(ids, (size_t)n, sizeof(int64_t), cmp_i64);
    for (int i = 0; i < n; i++)
        cr_assert_eq(ids[i], i + 1, "ids[%d] = %lld", i, (long long)ids[i]);
    free(ids);
    dg_close(&d);
}

Test(datagen, splits_are_contiguous_ranges_in_order)
{
    dg_t d;
    dg_open(&d, SCHEMA,
            (const char *const[]){FAST, "fields.id.kind", "sequence", "fields.id.start", "10",
                                  "fields.id.end", "19", NULL});
    /* 10 rows over 3 splits: [0,3) [3,6) [6,10) -> ids 10..12, 13..15, 16..19 */
    static const int64_t first[] = {10, 13, 16}, last[] = {12, 15, 19};
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    for (int k = 0; k < 3; k++) {
        cdc_reader_t *reader = NULL;
        cdc_error_t *err = NULL;
        cr_assert_eq(d.src->ops->open_reader(d.src, k, 3, &reader, &err), 0);
        cdc_batch_reset(&batch);
        int64_t expect = first[k];
        int rc;
        while ((rc = reader->ops->poll(reader, &batch, 2, &err)) == CDC_POLL_OK) {
            for (uint32_t i = 0; i < batch.n; i++)
                cr_assert_eq(batch.rows[i].values[0].v.i, expect++);
            cdc_batch_reset(&batch);
        }
        cr_assert_eq(rc, CDC_POLL_END);
        cr_assert_eq(expect, last[k] + 1);
        /* END is sticky */
        cr_assert_eq(reader->ops->poll(reader, &batch, 2, &err), CDC_POLL_END);
        reader->ops->close(reader);
    }
    cdc_batch_free(&batch);
    dg_close(&d);
}

Test(datagen, split_range_arithmetic)
{
    int64_t b, e;
    cdc_datagen_split_range(10, 0, 4, &b, &e);
    cr_assert(b == 0 && e == 2);
    cdc_datagen_split_range(10, 1, 4, &b, &e);
    cr_assert(b == 2 && e == 5);
    cdc_datagen_split_range(10, 3, 4, &b, &e);
    cr_assert(b == 7 && e == 10);
    cdc_datagen_split_range(2, 0, 4, &b, &e); /* more splits than rows: some are empty */
    cr_assert(b == 0 && e == 0);
    cdc_datagen_split_range(2, 1, 4, &b, &e);
    cr_assert(b == 0 && e == 1);
    cdc_datagen_split_range(2, 2, 4, &b, &e);
    cr_assert(b == 1 && e == 1);
    cdc_datagen_split_range(INT64_MAX, 6, 7, &b, &e); /* no overflow */
    cr_assert_eq(e, INT64_MAX);
    cr_assert_eq(b, (int64_t)(((__int128)INT64_MAX * 6) / 7));
}

static const char *const RICH_SCHEMA =
    "ROW<id BIGINT NOT NULL, b BOOLEAN, t TINYINT, s SMALLINT, i INT, f FLOAT, d DOUBLE, "
    "dec DECIMAL(10, 2), c CHAR(4), vc VARCHAR(12), str STRING, bin BINARY(3), "
    "bytes BYTES, dt DATE, tm TIME(3), ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(6), "
    "arr ARRAY<INT>, m MAP<STRING, INT>, r ROW<x INT, y STRING>>";

Test(datagen, any_split_yields_the_same_rows_as_one_reader)
{
    const char *const opts[] = {FAST,  "number-of-rows",
                                "500", "seed",
                                "42",  "fields.str.length",
                                "8",   "fields.bytes.length",
                                "5",   "fields.i.null-rate",
                                "0.3", "fields.ts.max-past",
                                "1 h", NULL};
    dg_t d;
    dg_open(&d, RICH_SCHEMA, opts);
    lines_t one = {0}, four = {0}, seven = {0};
    drain_all(d.src, 1, 1000, &one);
    drain_all(d.src, 4, 33, &four);
    drain_all(d.src, 7, 5, &seven);
    cr_assert_eq(one.n, 500);
    assert_lines_eq(&one, &four);
    assert_lines_eq(&one, &seven);
    /* a second source with the same seed: the same rows (timestamps aside, they follow "now") */
    dg_t d2;
    dg_open(&d2, "ROW<id BIGINT NOT NULL, str STRING, i INT, dec DECIMAL(10, 2)>",
            (const char *const[]){FAST, "number-of-rows", "50", "seed", "42", NULL});
    dg_t d3;
    dg_open(&d3, "ROW<id BIGINT NOT NULL, str STRING, i INT, dec DECIMAL(10, 2)>",
            (const char *const[]){FAST, "number-of-rows", "50", "seed", "42", NULL});
    dg_t d4;
    dg_open(&d4, "ROW<id BIGINT NOT NULL, str STRING, i INT, dec DECIMAL(10, 2)>",
            (const char *const[]){FAST, "number-of-rows", "50", "seed", "43", NULL});
    lines_t a = {0}, b = {0}, c = {0};
    drain(d2.src, 0, 1, 100, -1, &a);
    drain(d3.src, 0, 1, 100, -1, &b);
    drain(d4.src, 0, 1, 100, -1, &c);
    assert_lines_eq(&a, &b);
    cr_assert_str_neq(a.v[0], c.v[0], "another seed gives other values");
    lines_free(&a);
    lines_free(&b);
    lines_free(&c);
    dg_close(&d2);
    dg_close(&d3);
    dg_close(&d4);
    lines_free(&one);
    lines_free(&four);
    lines_free(&seven);
    dg_close(&d);
}

Test(datagen, rows_are_distinct_across_indexes)
{
    dg_t d;
    dg_open(&d, "ROW<a BIGINT, s STRING>",
            (const char *const[]){FAST, "number-of-rows", "2000", "seed", "7", NULL});
    lines_t l = {0};
    drain_all(d.src, 3, 100, &l);
    cr_assert_eq(l.n, 2000);
    for (int i = 1; i < l.n; i++)
        cr_assert_str_neq(l.v[i - 1], l.v[i]);
    lines_free(&l);
    dg_close(&d);
}

Test(datagen, unbounded_readers_interleave_indexes)
{
    const char *const opts[] = {FAST, "seed", "9", NULL};
    dg_t d;
    dg_open(&d, "ROW<a BIGINT, s STRING, x DOUBLE>", opts);
    /* one reader: rows of indexes 0..29 */
    lines_t all = {0};
    cr_assert_eq(drain(d.src, 0, 1, 10, 3, &all), 30);
    /* reader k of 3 makes indexes k, k+3, k+6, ... */
    for (int k = 0; k < 3; k++) {
        lines_t part = {0};
        cr_assert_eq(drain(d.src, k, 3, 5, 2, &part), 10);
        for (int j = 0; j < 10; j++)
            cr_assert_str_eq(part.v[j], all.v[k + 3 * j], "reader %d row %d", k, j);
        lines_free(&part);
    }
    lines_free(&all);
    dg_close(&d);
}

/* ---- sequences ----------------------------------------------------------------------- */

Test(datagen, sequence_bounds_the_source_and_the_smaller_count_wins)
{
    dg_t d;
    dg_open(&d, SCHEMA,
            (const char *const[]){FAST, "fields.id.kind", "sequence", "fields.id.start", "-2",
                                  "fields.id.end", "2", NULL});
    int n;
    int64_t *ids = collect_ids(d.src, 2, &n);
    cr_assert_eq(n, 5);
    qsort(ids, (size_t)n, sizeof(int64_t), cmp_i64);
    for (int i = 0; i < n; i++)
        cr_assert_eq(ids[i], i - 2);
    free(ids);
    dg_close(&d);

    dg_open(&d, SCHEMA,
            (const char *const[]){FAST, "number-of-rows", "3", "fields.id.kind", "sequence",
                                  "fields.id.start", "1", "fields.id.end", "100", NULL});
    ids = collect_ids(d.src, 1, &n);
    cr_assert_eq(n, 3);
    free(ids);
    dg_close(&d);

    /* two sequences: the shorter wins */
    dg_open(&d, "ROW<id BIGINT, v INT>",
            (const char *const[]){FAST, "number-of-rows", "100", "fields.id.kind", "sequence",
                                  "fields.id.start", "1", "fields.id.end", "50", "fields.v.kind",
                                  "SEQUENCE", "fields.v.start", "0", "fields.v.end", "9", NULL});
    ids = collect_ids(d.src, 3, &n);
    cr_assert_eq(n, 10);
    free(ids);
    dg_close(&d);
}

Test(datagen, sequence_of_strings_decimals_and_doubles)
{
    dg_t d;
    dg_open(&d, "ROW<s VARCHAR(3), dec DECIMAL(5, 2), x DOUBLE, f FLOAT>",
            (const char *const[]){FAST,       "fields.s.kind",
                                  "sequence", "fields.s.start",
                                  "98",       "fields.s.end",
                                  "101",      "fields.dec.kind",
                                  "sequence", "fields.dec.start",
                                  "7",        "fields.dec.end",
                                  "999",      "fields.x.kind",
                                  "sequence", "fields.x.start",
                                  "0",        "fields.x.end",
                                  "10",       "fields.f.kind",
                                  "sequence", "fields.f.start",
                                  "-1",       "fields.f.end",
                                  "10",       NULL});
    lines_t l = {0};
    cr_assert_eq(drain(d.src, 0, 1, 100, -1, &l), 4);
    cr_assert_str_eq(l.v[0], "+I[98, 7.00, 0.0, -1.0]");
    cr_assert_str_eq(l.v[3], "+I[101, 10.00, 3.0, 2.0]");
    lines_free(&l);
    dg_close(&d);
}

/* ---- random values ------------------------------------------------------------------- */

Test(datagen, random_numbers_stay_within_min_and_max)
{
    dg_t d;
    dg_open(&d,
            "ROW<i INT, t TINYINT, big BIGINT, x DOUBLE, f FLOAT, dec DECIMAL(6, 2), "
            "dd DECIMAL(4, 1)>",
            (const char *const[]){FAST,
                                  "number-of-rows",
                                  "3000",
                                  "seed",
                                  "1",
                                  "fields.i.min",
                                  "-5",
                                  "fields.i.max",
                                  "5",
                                  "fields.big.min",
                                  "9223372036854775800",
                                  "fields.x.min",
                                  "-0.5",
                                  "fields.x.max",
                                  "0.25",
                                  "fields.f.min",
                                  "10",
                                  "fields.f.max",
                                  "10.5",
                                  "fields.dec.min",
                                  "1.5",
                                  "fields.dec.max",
                                  "2.5",
                                  NULL});
    cdc_batch_t batch;
    poll_rows(d.src, 3000, &batch);
    bool seen_lo = false, seen_hi = false, t_neg = false, t_pos = false;
    for (uint32_t r = 0; r < batch.n; r++) {
        const cdc_value_t *v = batch.rows[r].values;
        for (int f = 0; f < 7; f++)
            cr_assert(!cdc_value_is_null(&v[f]));
        cr_assert(v[0].v.i >= -5 && v[0].v.i <= 5, "i = %lld", (long long)v[0].v.i);
        seen_lo |= v[0].v.i == -5;
        seen_hi |= v[0].v.i == 5;
        cr_assert(v[1].v.i >= -128 && v[1].v.i <= 127);
        t_neg |= v[1].v.i < 0;
        t_pos |= v[1].v.i > 0;
        cr_assert(v[2].v.i >= INT64_C(9223372036854775800));
        cr_assert(v[3].v.d >= -0.5 && v[3].v.d <= 0.25);
        cr_assert(v[4].v.f >= 10.0f && v[4].v.f <= 10.5f);
        cr_assert(v[5].v.dec >= 150 && v[5].v.dec <= 250);
        cr_assert(v[6].v.dec >= -9999 && v[6].v.dec <= 9999); /* DECIMAL(4, 1) */
    }
    cr_assert(seen_lo && seen_hi, "both ends of [-5, 5] appear in 3000 rows");
    cr_assert(t_neg && t_pos, "TINYINT covers its whole range by default");
    cdc_batch_free(&batch);
    dg_close(&d);
}

Test(datagen, null_rate)
{
    dg_t d;
    dg_open(&d, "ROW<a INT, b STRING, c INT NOT NULL, e INT>",
            (const char *const[]){FAST, "number-of-rows", "1000", "seed", "3", "fields.a.null-rate",
                                  "0", "fields.b.null-rate", "1", "fields.e.null-rate", "0.5",
                                  "fields.c.null-rate", "0", NULL});
    cdc_batch_t batch;
    poll_rows(d.src, 1000, &batch);
    int enull = 0;
    for (uint32_t r = 0; r < batch.n; r++) {
        const cdc_value_t *v = batch.rows[r].values;
        cr_assert(!cdc_value_is_null(&v[0]));
        cr_assert(cdc_value_is_null(&v[1]));
        cr_assert(!cdc_value_is_null(&v[2]));
        enull += cdc_value_is_null(&v[3]);
    }
    cr_assert(enull > 350 && enull < 650, "about half of e is null: %d", enull);
    cdc_batch_free(&batch);
    dg_close(&d);
}

static bool is_alnum_str(const cdc_str_t *s)
{
    for (uint32_t i = 0; i < s->len; i++) {
        char c = s->ptr[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
            return false;
    }
    return true;
}

Test(datagen, string_and_bytes_lengths)
{
    dg_t d;
    dg_open(&d,
            "ROW<s STRING, v VARCHAR(10), c CHAR(3), l STRING, big VARCHAR(20), b BYTES, "
            "bin BINARY(4), e STRING>",
            (const char *const[]){FAST, "number-of-rows", "50", "fields.l.length", "5",
                                  "fields.big.length", "500", "fields.b.length", "7",
                                  "fields.e.length", "0", NULL});
    cdc_batch_t batch;
    poll_rows(d.src, 50, &batch);
    for (uint32_t r = 0; r < batch.n; r++) {
        const cdc_value_t *v = batch.rows[r].values;
        cr_assert_eq(v[0].v.s.len, 100, "STRING: Flink's default length 100");
        cr_assert_eq(v[1].v.s.len, 10, "capped at VARCHAR(10)");
        cr_assert_eq(v[2].v.s.len, 3, "capped at CHAR(3)");
        cr_assert_eq(v[3].v.s.len, 5);
        cr_assert_eq(v[4].v.s.len, 20, "an explicit length is capped too");
        cr_assert_eq(v[5].v.s.len, 7);
        cr_assert_eq(v[6].v.s.len, 4);
        cr_assert_eq(v[7].v.s.len, 0);
        for (int f = 0; f < 5; f++)
            cr_assert(is_alnum_str(&v[f].v.s));
    }
    cdc_batch_free(&batch);
    dg_close(&d);
}

/* fields.#.var-len (Flink): random VARCHAR/VARBINARY lengths in [1, length], varying. */
Test(datagen, var_len_strings_and_bytes)
{
    dg_t d;
    dg_open(&d, "ROW<s STRING, v VARCHAR(6), b BYTES, f STRING>",
            (const char *const[]){FAST, "number-of-rows", "200", "fields.s.var-len", "true",
                                  "fields.s.length", "4", "fields.v.var-len", "TRUE",
                                  "fields.b.var-len", "true", "fields.b.length", "3",
                                  "fields.f.var-len", "false", "fields.f.length", "5", NULL});
    cdc_batch_t batch;
    poll_rows(d.src, 200, &batch);
    bool seen[3][7] = {{false}};
    for (uint32_t r = 0; r < batch.n; r++) {
        const cdc_value_t *v = batch.rows[r].values;
        cr_assert(v[0].v.s.len >= 1 && v[0].v.s.len <= 4, "len %u", v[0].v.s.len);
        cr_assert(v[1].v.s.len >= 1 && v[1].v.s.len <= 6, "capped at VARCHAR(6): %u", v[1].v.s.len);
        cr_assert(v[2].v.s.len >= 1 && v[2].v.s.len <= 3);
        cr_assert_eq(v[3].v.s.len, 5, "var-len false: the fixed length");
        cr_assert(is_alnum_str(&v[0].v.s) && is_alnum_str(&v[1].v.s));
        for (int f = 0; f < 3; f++)
            seen[f][v[f].v.s.len] = true;
    }
    for (int n = 1; n <= 4; n++)
        cr_assert(seen[0][n], "STRING length %d never drawn in 200 rows", n);
    for (int n = 1; n <= 6; n++)
        cr_assert(seen[1][n], "VARCHAR(6) length %d never drawn in 200 rows", n);
    for (int n = 1; n <= 3; n++)
        cr_assert(seen[2][n], "BYTES length %d never drawn in 200 rows", n);
    cdc_batch_free(&batch);
    dg_close(&d);

    free(assert_source_error("ROW<c CHAR(3)>",
                             (const char *const[]){"fields.c.var-len", "true", NULL},
                             "option \"fields.c.var-len\": field \"c\" of type CHAR(3) takes no "
                             "\"var-len\" (variable-length types only: VARCHAR, STRING, VARBINARY, "
                             "BYTES)"));
    assert_check_error((const char *const[]){"fields.s.var-len", "yes", NULL},
                       "option \"fields.s.var-len\": expected true or false, found \"yes\"");
    assert_check_error((const char *const[]){"fields.s.kind", "sequence", "fields.s.start", "1",
                                             "fields.s.end", "9", "fields.s.var-len", "true", NULL},
                       "option \"fields.s.var-len\": \"var-len\" is for random fields, but "
                       "\"fields.s.kind\" is \"sequence\"");
}

Test(datagen, dates_and_timestamps_are_recent)
{
    dg_t d;
    dg_open(&d,
            "ROW<ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(3), now_ltz TIMESTAMP_LTZ(0), tm TIME(0), "
            "dt DATE>",
            (const char *const[]){FAST, "number-of-rows", "200", "fields.ltz.max-past", "1 h",
                                  "fields.dt.max-past", "10 d", NULL});
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t now_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
    cdc_batch_t batch;
    poll_rows(d.src, 200, &batch);
    bool spread = false;
    for (uint32_t r = 0; r < batch.n; r++) {
        const cdc_value_t *v = batch.rows[r].values;
        cr_assert(v[1].v.ts.millis <= now_ms && v[1].v.ts.millis >= now_ms - 3600000 - 60000);
        spread |= v[1].v.ts.millis < now_ms - 60000;
        /* max-past 0: "now" at source creation, whole seconds for precision 0 */
        cr_assert(v[2].v.ts.millis <= now_ms && v[2].v.ts.millis > now_ms - 60000);
        cr_assert_eq(v[2].v.ts.millis % 1000, 0);
        cr_assert(v[3].v.i >= 0 && v[3].v.i < INT64_C(86400000000000));
        cr_assert_eq(v[3].v.i % 1000000000, 0, "TIME(0) has whole seconds");
        int64_t today = now_ms / 86400000;
        cr_assert(v[4].v.i <= today + 1 && v[4].v.i >= today - 11);
    }
    cr_assert(spread, "max-past spreads the timestamps");
    cdc_batch_free(&batch);
    dg_close(&d);
}

Test(datagen, nested_types_use_defaults)
{
    dg_t d;
    dg_open(&d,
            "ROW<arr ARRAY<INT>, m MAP<BOOLEAN, STRING>, r ROW<x INT, y VARCHAR(2)>, "
            "a2 ARRAY<STRING>>",
            (const char *const[]){FAST, "number-of-rows", "20", "fields.a2.length", "2", NULL});
    cdc_batch_t batch;
    poll_rows(d.src, 20, &batch);
    cdc_buf_t buf = {0};
    for (uint32_t r = 0; r < batch.n; r++) {
        const cdc_value_t *v = batch.rows[r].values;
        cr_assert_eq(v[0].v.arr.n, 3, "Flink's default collection length");
        cr_assert(v[1].v.arr.n >= 1 && v[1].v.arr.n <= 2, "map keys are unique");
        if (v[1].v.arr.n == 2)
            cr_assert_neq(v[1].v.arr.elems[0].v.b, v[1].v.arr.elems[1].v.b);
        cr_assert_eq(v[2].v.row->arity, 2);
        cr_assert_eq(v[2].v.row->values[1].v.s.len, 2);
        cr_assert_eq(v[3].v.arr.n, 2);
        cr_assert_eq(v[3].v.arr.elems[0].v.s.len, 100);
        cdc_buf_clear(&buf);
        cdc_row_print(&buf, &batch.rows[r], d.src->produced);
        cr_assert(buf.len > 0);
    }
    cdc_buf_free(&buf);
    cdc_batch_free(&batch);
    dg_close(&d);
}

/* ---- abilities ------------------------------------------------------------------------ */

Test(datagen, projection_generates_only_the_projected_fields_in_order)
{
    const char *const opts[] = {FAST, "number-of-rows", "40",       "seed",
                                "5",  "fields.id.kind", "sequence", "fields.id.start",
                                "1",  "fields.id.end",  "1000",     NULL};
    dg_t full, proj;
    dg_open(&full, SCHEMA, opts);
    dg_open(&proj, SCHEMA, opts);
    cr_assert_eq(proj.src->ops->apply_projection(proj.src, (const int[]){2, 0}, 2), 0);
    char *text = cdc_type_to_string(proj.src->produced);
    cr_assert_str_eq(text, "ROW<v INT, id BIGINT NOT NULL>");
    free(text);
    cdc_buf_t desc = {0};
    proj.src->ops->describe(proj.src, &desc);
    cr_assert_str_eq(cdc_buf_cstr(&desc),
                     "datagen(number-of-rows=40, rows-per-second=1000000000, seed=5, "
                     "fields=[v:random, id:sequence])");
    cdc_buf_free(&desc);

    cdc_batch_t a, b;
    poll_rows(full.src, 40, &a);
    poll_rows(proj.src, 40, &b);
    for (uint32_t r = 0; r < 40; r++) {
        cr_assert_eq(b.rows[r].arity, 2);
        cr_assert_eq(b.rows[r].values[0].v.i, a.rows[r].values[2].v.i, "same v as unprojected");
        cr_assert_eq(b.rows[r].values[1].v.i, a.rows[r].values[0].v.i);
    }
    /* a second projection composes with the first */
    cr_assert_eq(proj.src->ops->apply_projection(proj.src, (const int[]){1}, 1), 0);
    cr_assert_eq(proj.src->produced->nchildren, 1);
    cr_assert_str_eq(proj.src->produced->names[0], "id");
    cr_assert_neq(proj.src->ops->apply_projection(proj.src, (const int[]){1}, 1), 0,
                  "out of range");
    cdc_batch_free(&a);
    cdc_batch_free(&b);
    dg_close(&full);
    dg_close(&proj);
}

#define NESTED_SCHEMA                                                                              \
    "ROW<id BIGINT NOT NULL, r ROW<a INT, b STRING, c ROW<x DOUBLE, y BOOLEAN>>, other STRING>"

/* The value at a path of a full row (NULL when a ROW on the way is). */
static const cdc_value_t *value_at(const cdc_row_t *row, const cdc_field_path_t *p)
{
    const cdc_value_t *v = &row->values[p->idx[0]];
    for (int d = 1; d < p->depth && !(v->flags & CDC_V_NULL); d++)
        v = &v->v.row->values[p->idx[d]];
    return v;
}

static void assert_same_value(const cdc_value_t *got, const cdc_value_t *want, const cdc_type_t *t,
                              uint32_t row, int field)
{
    cr_assert_eq(got->flags & CDC_V_NULL, want->flags & CDC_V_NULL, "row %u field %d: null", row,
                 field);
    if (want->flags & CDC_V_NULL)
        return;
    cdc_buf_t a = {0}, b = {0};
    cdc_value_print(&a, got, t);
    cdc_value_print(&b, want, t);
    cr_assert_str_eq(cdc_buf_cstr(&a), cdc_buf_cstr(&b), "row %u field %d", row, field);
    cdc_buf_free(&a);
    cdc_buf_free(&b);
}

Test(datagen, nested_projection_picks_the_leaves_of_the_unprojected_rows)
{
    const char *const opts[] = {FAST,       "number-of-rows",
                                "60",       "seed",
                                "11",       "fields.id.kind",
                                "sequence", "fields.id.start",
                                "1",        "fields.id.end",
                                "1000",     "fields.r.null-rate",
                                "0.4",      NULL};
    dg_t full, proj;
    dg_open(&full, NESTED_SCHEMA, opts);
    dg_open(&proj, NESTED_SCHEMA, opts);
    cr_assert_not_null(proj.src->ops->apply_nested_projection);
    const cdc_field_path_t paths[] = {
        {.depth = 1, .idx = {0}},
        {.depth = 2, .idx = {1, 0}},
        {.depth = 3, .idx = {1, 2, 1}},
        {.depth = 2, .idx = {1, 2}},
    };
    cr_assert_eq(proj.src->ops->apply_nested_projection(proj.src, paths, 4), 0);
    const cdc_type_t *pt = proj.src->produced;
    cr_assert_eq(pt->nchildren, 4);
    cr_assert_str_eq(pt->names[0], "id");
    cr_assert_str_eq(pt->names[1], "r.a");
    cr_assert_str_eq(pt->names[2], "r.c.y");
    cr_assert_str_eq(pt->names[3], "r.c");
    cr_assert_eq(pt->children[1]->root, CDC_T_INT, "a leaf has the nested field's type");
    cr_assert_eq(pt->children[2]->root, CDC_T_BOOLEAN);
    cr_assert_eq(pt->children[3]->root, CDC_T_ROW);
    cr_assert(pt->children[1]->nullable, "NULL when r is");
    cdc_buf_t desc = {0};
    proj.src->ops->describe(proj.src, &desc);
    cr_assert_str_eq(cdc_buf_cstr(&desc),
                     "datagen(number-of-rows=60, rows-per-second=1000000000, seed=11, "
                     "fields=[id:sequence, r.a:random, r.c.y:random, r.c:random])");
    cdc_buf_free(&desc);

    cdc_batch_t a, b;
    poll_rows(full.src, 60, &a);
    poll_rows(proj.src, 60, &b);
    int nulls = 0;
    for (uint32_t r = 0; r < 60; r++) {
        cr_assert_eq(b.rows[r].arity, 4);
        for (int k = 0; k < 4; k++)
            assert_same_value(&b.rows[r].values[k], value_at(&a.rows[r], &paths[k]),
                              pt->children[k], r, k);
        nulls += (a.rows[r].values[1].flags & CDC_V_NULL) != 0;
    }
    cr_assert(nulls > 0 && nulls < 60, "some r are NULL (%d)", nulls);

    /* a whole-column projection on top composes with the nested one */
    cr_assert_eq(proj.src->ops->apply_projection(proj.src, (const int[]){2, 1}, 2), 0);
    cr_assert_str_eq(proj.src->produced->names[0], "r.c.y");
    cr_assert_str_eq(proj.src->produced->names[1], "r.a");
    cdc_batch_t c;
    poll_rows(proj.src, 60, &c);
    for (uint32_t r = 0; r < 60; r++) {
        assert_same_value(&c.rows[r].values[0], value_at(&a.rows[r], &paths[2]),
                          proj.src->produced->children[0], r, 0);
        assert_same_value(&c.rows[r].values[1], value_at(&a.rows[r], &paths[1]),
                          proj.src->produced->children[1], r, 1);
    }
    cdc_batch_free(&a);
    cdc_batch_free(&b);
    cdc_batch_free(&c);
    dg_close(&full);
    dg_close(&proj);
}

Test(datagen, nested_projection_declines_bad_paths)
{
    const char *const opts[] = {FAST, "number-of-rows", "5", "seed", "3", NULL};
    dg_t d;
    dg_open(&d, NESTED_SCHEMA, opts);
    const cdc_field_path_t bad[][1] = {
        {{.depth = 0, .idx = {0}}},          /* empty */
        {{.depth = 9, .idx = {1}}},          /* too deep */
        {{.depth = 1, .idx = {3}}},          /* no such column */
        {{.depth = 2, .idx = {1, 3}}},       /* no such field */
        {{.depth = 2, .idx = {0, 0}}},       /* id is not a ROW */
        {{.depth = 4, .idx = {1, 2, 0, 0}}}, /* x is not a ROW */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        cr_assert_eq(d.src->ops->apply_nested_projection(d.src, bad[i], 1), -1, "case %zu", i);
    cr_assert_eq(d.src->produced->nchildren, 3, "declined: nothing changed");
    cdc_batch_t b;
    poll_rows(d.src, 5, &b);
    cr_assert_eq(b.rows[0].arity, 3);
    cdc_batch_free(&b);
    dg_close(&d);
}

/* A plain generator filling ROW<k BIGINT, n ROW<p INT, q STRING>>: k = index, p = 2 * index. */
static int nested_fn(void *ctx, int64_t index, cdc_row_t *row, cdc_arena_t *arena, char *errbuf,
                     size_t errlen)
{
    (void)ctx;
    (void)errbuf;
    (void)errlen;
    row->values[0].flags = 0;
    row->values[0].v.i = index;
    cdc_row_t *n = cdc_row_new_in(arena, 2);
    n->values[0].flags = 0;
    n->values[0].v.i = 2 * index;
    row->values[1].flags = 0;
    row->values[1].v.row = n;
    return 0;
}

Test(datagen, nested_projection_on_a_generator_function)
{
    cdc_error_t *err = NULL;
    cdc_type_t *type = cdc_type_parse("ROW<k BIGINT, n ROW<p INT, q STRING>>", &err);
    cdc_source_t *src = cdc_datagen_source_new(type, 3, 0, nested_fn, NULL);
    const cdc_field_path_t paths[] = {{.depth = 2, .idx = {1, 0}}, {.depth = 1, .idx = {0}}};
    cr_assert_eq(src->ops->apply_nested_projection(src, paths, 2), 0);
    cr_assert_str_eq(src->produced->names[0], "n.p");
    lines_t l = {0};
    drain(src, 0, 1, 100, -1, &l);
    cr_assert_eq(l.n, 3);
    cr_assert_str_eq(l.v[0], "+I[0, 0]");
    cr_assert_str_eq(l.v[2], "+I[4, 2]");
    lines_free(&l);
    src->ops->destroy(src);
    cdc_type_destroy(type);
}

Test(datagen, limit_caps_the_total_over_splits)
{
    dg_t d;
    dg_open(&d, SCHEMA,
            (const char *const[]){FAST, "number-of-rows", "100", "fields.id.kind", "sequence",
                                  "fields.id.start", "1", "fields.id.end", "1000", NULL});
    cr_assert_eq(d.src->ops->apply_limit(d.src, 10), 0);
    int n;
    int64_t *ids = collect_ids(d.src, 4, &n);
    cr_assert_eq(n, 10);
    qsort(ids, (size_t)n, sizeof(int64_t), cmp_i64);
    for (int i = 0; i < n; i++)
        cr_assert_eq(ids[i], i + 1);
    free(ids);
    cdc_buf_t desc = {0};
    d.src->ops->describe(d.src, &desc);
    cr_assert_str_eq(cdc_buf_cstr(&desc), "datagen(number-of-rows=100, limit=10, "
                                          "rows-per-second=1000000000, fields=[id:sequence, "
                                          "name:random, v:random])");
    cdc_buf_free(&desc);
    dg_close(&d);

    /* a limit bounds an unbounded source */
    dg_open(&d, SCHEMA, (const char *const[]){FAST, NULL});
    cr_assert_eq(d.src->ops->apply_limit(d.src, 7), 0);
    lines_t l = {0};
    drain_all(d.src, 3, 100, &l);
    cr_assert_eq(l.n, 7);
    lines_free(&l);
    dg_close(&d);
}

Test(datagen, describe_is_stable)
{
    dg_t d;
    dg_open(&d, SCHEMA,
            (const char *const[]){"number-of-rows", "100", "fields.id.kind", "sequence",
                                  "fields.id.start", "1", "fields.id.end", "1000", NULL});
    cdc_buf_t desc = {0};
    d.src->ops->describe(d.src, &desc);
    cr_assert_str_eq(cdc_buf_cstr(&desc),
                     "datagen(number-of-rows=100, fields=[id:sequence, name:random, v:random])");
    cdc_buf_free(&desc);
    dg_close(&d);
    dg_open(&d, "ROW<a INT>", NULL);
    d.src->ops->describe(d.src, &desc);
    cr_assert_str_eq(cdc_buf_cstr(&desc), "datagen(unbounded, fields=[a:random])");
    cdc_buf_free(&desc);
    dg_close(&d);
}

/* ---- rate limit ------------------------------------------------------------------------- */

Test(datagen, throttle_arithmetic)
{
    cdc_datagen_throttle_t t;
    int64_t wait;
    cdc_datagen_throttle_init(&t, 100); /* one row every 10 ms, bucket of 100 */
    cr_assert_eq(cdc_datagen_throttle_budget(&t, 0, &wait), 100, "starts full");
    cr_assert_eq(wait, 0);
    cdc_datagen_throttle_take(&t, 100);
    cr_assert_eq(cdc_datagen_throttle_budget(&t, 0, &wait), 0);
    cr_assert_eq(wait, 10000000);
    cr_assert_eq(cdc_datagen_throttle_budget(&t, 4000000, &wait), 0);
    cr_assert_eq(wait, 6000000);
    cr_assert_eq(cdc_datagen_throttle_wait(&t, 4000000, 1), 6000000);
    cr_assert_eq(cdc_datagen_throttle_wait(&t, 4000000, 5), 46000000, "5 rows: 40 ms later");
    cr_assert_eq(cdc_datagen_throttle_budget(&t, 10000000, &wait), 1);
    cr_assert_eq(cdc_datagen_throttle_wait(&t, 10000000, 1), 0);
    cr_assert_eq(cdc_datagen_throttle_budget(&t, 1000000000, &wait), 100);
    cdc_datagen_throttle_take(&t, 1);
    cr_assert_eq(cdc_datagen_throttle_budget(&t, 1000000000, &wait), 99);
    /* idle for 9 s: credit is capped at one bucket */
    cr_assert_eq(cdc_datagen_throttle_budget(&t, INT64_C(10000000000), &wait), 100);
    cdc_datagen_throttle_take(&t, 100);
    cr_assert_eq(cdc_datagen_throttle_budget(&t, INT64_C(10000000000), &wait), 0);
    cr_assert_eq(wait, 10000000);

    cdc_datagen_throttle_init(&t, 0.5); /* one row every 2 s */
    cr_assert_eq(cdc_datagen_throttle_budget(&t, 5, &wait), 1);
    cdc_datagen_throttle_take(&t, 1);
    cr_assert_eq(cdc_datagen_throttle_budget(&t, 5 + 1000000000, &wait), 0);
    cr_assert_eq(wait, 1000000000);
    cr_assert_eq(cdc_datagen_throttle_budget(&t, 5 + INT64_C(2000000000), &wait), 1);

    cdc_datagen_throttle_init(&t, 0); /* unlimited */
    cr_assert_eq(cdc_datagen_throttle_budget(&t, 0, &wait), INT64_MAX);
}

Test(datagen, each_reader_gets_its_share_of_the_rate)
{
    /* 4 rows/s over 4 readers = 1 row/s each: a poll returns at most the one row due */
    dg_t d;
    dg_open(&d, "ROW<a INT>", (const char *const[]){"rows-per-second", "4", NULL});
    cdc_reader_t *readers[4];
    cdc_error_t *err = NULL;
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    for (int k = 0; k < 4; k++) {
        cr_assert_eq(d.src->ops->open_reader(d.src, k, 4, &readers[k], &err), 0);
        cdc_batch_reset(&batch);
        cr_assert_eq(readers[k]->ops->poll(readers[k], &batch, 1000, &err), CDC_POLL_OK);
        cr_assert_eq(batch.n, 1, "reader %d: %u rows", k, batch.n);
    }
    /* the next row is not due for a second: the poll sleeps a little and returns none */
    cdc_batch_reset(&batch);
    cr_assert_eq(readers[0]->ops->poll(readers[0], &batch, 1000, &err), CDC_POLL_OK);
    cr_assert_eq(batch.n, 0);
    for (int k = 0; k < 4; k++)
        readers[k]->ops->close(readers[k]);
    cdc_batch_free(&batch);
    dg_close(&d);
}

/* ---- the generator-function interface ---------------------------------------------------- */

typedef struct my_gen_s {
    int64_t fail_at;
} my_gen_t;

static int my_fn(void *ctx, int64_t index, cdc_row_t *row, cdc_arena_t *arena, char *errbuf,
                 size_t errlen)
{
    const my_gen_t *g = ctx;
    if (index == g->fail_at) {
        snprintf(errbuf, errlen, "no row %lld here", (long long)index);
        return -1;
    }
    cr_assert_eq(row->arity, 3);
    row->values[0].flags = 0;
    row->values[0].v.i = index;
    char tmp[32];
    int n = snprintf(tmp, sizeof(tmp), "r%lld", (long long)index);
    row->values[1].flags = 0;
    row->values[1].v.s.ptr = cdc_arena_memdup(arena, tmp, (size_t)n);
    row->values[1].v.s.len = (uint32_t)n;
    /* values[2] stays NULL */
    return 0;
}

Test(datagen, generator_function_source)
{
    cdc_error_t *err = NULL;
    cdc_type_t *type = cdc_type_parse("ROW<i BIGINT, s STRING, z INT>", &err);
    my_gen_t g = {.fail_at = -1};
    cr_assert_null(cdc_datagen_source_new(type->children[0], 10, 0, my_fn, &g), "not a ROW");
    cr_assert_null(cdc_datagen_source_new(type, 10, 0, NULL, &g), "no fn");

    cdc_source_t *src = cdc_datagen_source_new(type, 10, 0, my_fn, &g);
    cr_assert_not_null(src);
    cr_assert(cdc_type_equals(src->produced, type));
    cr_assert_eq(src->ops->changelog_mode(src), CDC_MODE_INSERT_ONLY);
    lines_t l = {0};
    drain_all(src, 3, 2, &l);
    cr_assert_eq(l.n, 10);
    lines_t expect = {0};
    for (int i = 0; i < 10; i++) {
        char tmp[64];
        snprintf(tmp, sizeof(tmp), "+I[%d, r%d, null]", i, i);
        lines_push(&expect, tmp);
    }
    lines_sort(&expect);
    assert_lines_eq(&l, &expect);
    lines_free(&l);
    lines_free(&expect);

    cdc_buf_t desc = {0};
    src->ops->describe(src, &desc);
    cr_assert_str_eq(cdc_buf_cstr(&desc), "datagen(number-of-rows=10)");
    cdc_buf_free(&desc);

    /* projection on a plain generator: the row is made whole, then projected */
    cr_assert_eq(src->ops->apply_projection(src, (const int[]){1, 0}, 2), 0);
    cr_assert_eq(src->ops->apply_limit(src, 4), 0);
    cr_assert_eq(src->ops->apply_limit(src, 6), 0, "a looser limit is accepted and ignored");
    drain(src, 0, 1, 100, -1, &l);
    cr_assert_eq(l.n, 4);
    cr_assert_str_eq(l.v[0], "+I[r0, 0]");
    cr_assert_str_eq(l.v[3], "+I[r3, 3]");
    lines_free(&l);
    src->ops->destroy(src);

    /* unbounded: reader k of n makes k, k+n, ... */
    src = cdc_datagen_source_new(type, -1, 0, my_fn, &g);
    drain(src, 1, 4, 3, 2, &l);
    cr_assert_eq(l.n, 6);
    cr_assert_str_eq(l.v[0], "+I[1, r1, null]");
    cr_assert_str_eq(l.v[1], "+I[5, r5, null]");
    cr_assert_str_eq(l.v[5], "+I[21, r21, null]");
    lines_free(&l);
    src->ops->describe(src, &desc);
    cr_assert_str_eq(cdc_buf_cstr(&desc), "datagen(unbounded)");
    cdc_buf_free(&desc);

    /* a bad split is refused */
    cdc_reader_t *reader = NULL;
    cr_assert_eq(src->ops->open_reader(src, 4, 4, &reader, &err), -1);
    cr_assert_str_eq(err->message, "datagen: bad split 4 of 4");
    cdc_error_destroy(err);
    err = NULL;
    src->ops->destroy(src);

    /* a failing generator: the rows before it stay, the poll reports the reason */
    g.fail_at = 2;
    src = cdc_datagen_source_new(type, 10, 0, my_fn, &g);
    cr_assert_eq(src->ops->open_reader(src, 0, 1, &reader, &err), 0);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    cr_assert_eq(reader->ops->poll(reader, &batch, 5, &err), CDC_POLL_ERROR);
    cr_assert_eq(batch.n, 2);
    cr_assert_str_eq(err->message, "datagen generator failed for row 2");
    cr_assert_str_eq(err->detail, "no row 2 here");
    cdc_error_destroy(err);
    cdc_batch_free(&batch);
    reader->ops->close(reader);
    src->ops->destroy(src);
    cdc_type_destroy(type);
}

/* ---- option errors ------------------------------------------------------------------------- */

Test(datagen, options_that_are_fine)
{
    char *detail = validate_detail((const char *const[]){"rows-per-second",
                                                         "5",
                                                         "number-of-rows",
                                                         "0",
                                                         "scan.parallelism",
                                                         "2",
                                                         "seed",
                                                         "-3",
                                                         "fields.id.kind",
                                                         "sequence",
                                                         "fields.id.start",
                                                         "1",
                                                         "fields.id.end",
                                                         "1",
                                                         "fields.n.kind",
                                                         "random",
                                                         "fields.n.length",
                                                         "3",
                                                         "fields.n.null-rate",
                                                         "0.25",
                                                         "fields.x.min",
                                                         "-1.5",
                                                         "fields.x.max",
                                                         "1e3",
                                                         "fields.t.max-past",
                                                         "5 min",
                                                         NULL});
    cr_assert_null(detail, "%s", detail);
}

Test(datagen, error_kind)
{
    assert_check_error((const char *const[]){"fields.id.kind", "foo", NULL},
                       "option \"fields.id.kind\": expected random or sequence, found \"foo\"");
}

Test(datagen, error_sequence_needs_start_and_end)
{
    assert_check_error(
        (const char *const[]){"fields.id.kind", "sequence", "fields.id.end", "10", NULL},
        "option \"fields.id.start\": sequence fields need both start and end");
    assert_check_error(
        (const char *const[]){"fields.id.kind", "sequence", "fields.id.start", "10", NULL},
        "option \"fields.id.end\": sequence fields need both start and end");
    assert_check_error((const char *const[]){"fields.id.kind", "sequence", NULL},
                       "option \"fields.id.start\": sequence fields need both start and end");
}

Test(datagen, error_unknown_sub_key_with_suggestion)
{
    assert_check_error((const char *const[]){"fields.id.knd", "random", NULL},
                       "option \"fields.id.knd\": unknown field option \"knd\" (did you mean "
                       "\"kind\"?)");
    assert_check_error((const char *const[]){"fields.id.nullrate", "0.1", NULL},
                       "option \"fields.id.nullrate\": unknown field option \"nullrate\" (did you "
                       "mean \"null-rate\"?)");
    assert_check_error((const char *const[]){"fields.id.mni", "1", NULL},
                       "option \"fields.id.mni\": unknown field option \"mni\" (did you mean "
                       "\"min\"?)");
    assert_check_error((const char *const[]){"fields.id.whatever", "1", NULL},
                       "option \"fields.id.whatever\": unknown field option \"whatever\"");
    assert_check_error((const char *const[]){"fields.id", "1", NULL},
                       "option \"fields.id\": expected \"fields.<name>.<option>\"");
}

Test(datagen, error_bad_values)
{
    assert_check_error(
        (const char *const[]){"fields.a.kind", "sequence", "fields.a.start", "x", "fields.a.end",
                              "1.5", "fields.b.min", "low", "fields.c.length", "-1",
                              "fields.d.null-rate", "2", "fields.e.max-past", "soon", NULL},
        "option \"fields.a.start\": expected an integer, found \"x\"\n"
        "option \"fields.a.end\": expected an integer, found \"1.5\"\n"
        "option \"fields.b.min\": expected a number, found \"low\"\n"
        "option \"fields.c.length\": expected a non-negative integer, found \"-1\"\n"
        "option \"fields.d.null-rate\": expected a number between 0 and 1, found \"2\"\n"
        "option \"fields.e.max-past\": expected a duration such as \"500 ms\", \"10 s\" or "
        "\"5 min\", found \"soon\"");
}

Test(datagen, error_empty_ranges)
{
    assert_check_error((const char *const[]){"fields.id.kind", "sequence", "fields.id.start", "10",
                                             "fields.id.end", "5", NULL},
                       "option \"fields.id.end\": end 5 is less than start 10");
    assert_check_error((const char *const[]){"fields.v.min", "5", "fields.v.max", "1.5", NULL},
                       "option \"fields.v.max\": max 1.5 is less than min 5");
}

Test(datagen, error_options_of_the_other_kind)
{
    assert_check_error(
        (const char *const[]){"fields.id.start", "1", "fields.id.end", "5", NULL},
        "option \"fields.id.start\": \"start\" is for sequence fields; set \"fields.id.kind\" to "
        "\"sequence\"\n"
        "option \"fields.id.end\": \"end\" is for sequence fields; set \"fields.id.kind\" to "
        "\"sequence\"");
    assert_check_error(
        (const char *const[]){"fields.id.kind", "sequence", "fields.id.start", "1", "fields.id.end",
                              "5", "fields.id.min", "0", "fields.id.null-rate", "0.5", NULL},
        "option \"fields.id.min\": \"min\" is for random fields, but \"fields.id.kind\" is "
        "\"sequence\"\n"
        "option \"fields.id.null-rate\": \"null-rate\" is for random fields, but "
        "\"fields.id.kind\" is \"sequence\"");
}

Test(datagen, error_every_problem_at_once_with_core_ones)
{
    assert_check_error(
        (const char *const[]){"rows-per-second", "0", "number-of-row", "5", "fields.id.kind", "foo",
                              "fields.n.lenght", "3", NULL},
        "option \"rows-per-second\": value 0 must be at least 1\n"
        "unknown option \"number-of-row\" (did you mean \"number-of-rows\"?)\n"
        "option \"fields.id.kind\": expected random or sequence, found \"foo\"\n"
        "option \"fields.n.lenght\": unknown field option \"lenght\" (did you mean \"length\"?)");
}

Test(datagen, error_unknown_field)
{
    char *hint = assert_source_error(
        SCHEMA, (const char *const[]){"fields.x.kind", "random", "fields.x.length", "4", NULL},
        "option \"fields.x.kind\": unknown field \"x\"");
    cr_assert_str_eq(hint, "the fields of the table are: id, name, v");
    free(hint);
}

Test(datagen, error_sequence_on_other_types)
{
    free(assert_source_error("ROW<b BOOLEAN, ts TIMESTAMP(3) NOT NULL>",
                             (const char *const[]){"fields.b.kind", "sequence", "fields.b.start",
                                                   "1", "fields.b.end", "2", "fields.ts.kind",
                                                   "sequence", "fields.ts.start", "1",
                                                   "fields.ts.end", "2", NULL},
                             "option \"fields.b.kind\": field \"b\" of type BOOLEAN cannot be a "
                             "sequence (numbers and strings only)\n"
                             "option \"fields.ts.kind\": field \"ts\" of type TIMESTAMP(3) cannot "
                             "be a sequence (numbers and strings only)"));
}

Test(datagen, error_values_that_do_not_fit_the_type)
{
    free(assert_source_error(
        "ROW<t TINYINT, s VARCHAR(2), d DECIMAL(4, 2), i INT, f FLOAT, dd DECIMAL(3, 1)>",
        (const char *const[]){"fields.t.kind",
                              "sequence",
                              "fields.t.start",
                              "1",
                              "fields.t.end",
                              "1000",
                              "fields.s.kind",
                              "sequence",
                              "fields.s.start",
                              "-5",
                              "fields.s.end",
                              "100",
                              "fields.d.kind",
                              "sequence",
                              "fields.d.start",
                              "0",
                              "fields.d.end",
                              "100",
                              "fields.i.min",
                              "1.5",
                              "fields.i.max",
                              "3000000000",
                              "fields.f.max",
                              "1e39",
                              "fields.dd.min",
                              "123.4",
                              NULL},
        "option \"fields.t.end\": value 1000 does not fit TINYINT\n"
        "option \"fields.s.end\": value 100 does not fit VARCHAR(2)\n"
        "option \"fields.d.end\": value 100 does not fit DECIMAL(4, 2)\n"
        "option \"fields.i.min\": expected an integer for INT, found \"1.5\"\n"
        "option \"fields.i.max\": value 3000000000 does not fit INT\n"
        "option \"fields.f.max\": value 1e39 does not fit FLOAT\n"
        "option \"fields.dd.min\": value 123.4 does not fit DECIMAL(3, 1)"));
}

Test(datagen, error_options_that_do_not_apply_to_the_type)
{
    free(assert_source_error(
        "ROW<id BIGINT NOT NULL, name STRING, d DATE>",
        (const char *const[]){"fields.name.min", "1", "fields.id.length", "3",
                              "fields.id.null-rate", "0.5", "fields.name.max-past", "1 s",
                              "fields.d.max-past", "1 d", NULL},
        "option \"fields.name.min\": field \"name\" of type STRING takes no \"min\" (numbers "
        "only)\n"
        "option \"fields.id.length\": field \"id\" of type BIGINT takes no \"length\" (strings, "
        "bytes, arrays and maps only)\n"
        "option \"fields.id.null-rate\": field \"id\" is NOT NULL and cannot be null\n"
        "option \"fields.name.max-past\": field \"name\" of type STRING takes no \"max-past\" "
        "(dates and timestamps only)"));
}

Test(datagen, error_min_above_max_beyond_double_precision)
{
    free(assert_source_error("ROW<b BIGINT>",
                             (const char *const[]){"fields.b.min", "9007199254740993",
                                                   "fields.b.max", "9007199254740992", NULL},
                             "option \"fields.b.max\": max 9007199254740992 is less than min "
                             "9007199254740993"));
}
