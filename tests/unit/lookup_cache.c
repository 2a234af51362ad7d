/*
 * tests/unit/lookup_cache.c — the PARTIAL lookup cache (src/exec/cdc_lookup.c): LRU
 * eviction past max-rows, expire-after-write and expire-after-access with an
 * injected clock, keys without rows cached or not, deep copies that outlive
 * the caller's rows, and the options read from a connector configuration
 * (Flink's keys and the legacy aliases), and the retry backoff. The retry loop
 * itself runs against real servers (tests/integration/lookup_*.sh).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_lookup.h"

static cdc_type_t *T(const char *text)
{
    cdc_error_t *err = NULL;
    cdc_type_t *t = cdc_type_parse(text, &err);
    cr_assert_not_null(t, "bad type %s", text);
    return t;
}

/* An injectable clock: tests move `now` by hand. */
static int64_t now;
static int64_t test_clock(void *ctx)
{
    (void)ctx;
    return now;
}

static cdc_type_t *row_type;
static cdc_arena_t arena;

static void setup(void)
{
    now = 1000;
    row_type = T("ROW<k INT, name STRING, tags ARRAY<STRING>>");
    cdc_arena_init(&arena);
}

static void teardown(void)
{
    cdc_type_destroy(row_type);
    cdc_arena_free(&arena);
}

/* One row (k, name, [name, name]) in the test arena. */
static cdc_row_t make_row(int k, const char *name)
{
    cdc_row_t r = {.kind = CDC_INSERT, .arity = 3};
    r.values = cdc_arena_calloc(&arena, sizeof(cdc_value_t) * 3);
    r.values[0].v.i = k;
    char *s = cdc_arena_strdup(&arena, name);
    r.values[1].v.s.ptr = s;
    r.values[1].v.s.len = (uint32_t)strlen(name);
    cdc_value_t *elems = cdc_arena_calloc(&arena, sizeof(cdc_value_t) * 2);
    elems[0] = r.values[1];
    elems[1] = r.values[1];
    r.values[2].v.arr.n = 2;
    r.values[2].v.arr.elems = elems;
    return r;
}

static void put(cdc_lookup_cache_t *c, const char *key, const cdc_row_t *rows, uint32_t n)
{
    cdc_lookup_cache_put(c, key, strlen(key), rows, n);
}

static bool get(cdc_lookup_cache_t *c, const char *key, const cdc_row_t **rows, uint32_t *n)
{
    return cdc_lookup_cache_get(c, key, strlen(key), rows, n);
}

static bool has(cdc_lookup_cache_t *c, const char *key)
{
    const cdc_row_t *rows;
    uint32_t n;
    return get(c, key, &rows, &n);
}

static void expect_printed(const cdc_row_t *row, const char *expected)
{
    cdc_buf_t b = {0};
    cdc_row_print(&b, row, row_type);
    cr_expect_str_eq(cdc_buf_cstr(&b), expected);
    cdc_buf_free(&b);
}

TestSuite(lookup_cache, .init = setup, .fini = teardown);

Test(lookup_cache, hit_returns_deep_copies_that_outlive_the_input)
{
    cdc_lookup_opts_t o = {.cache = true, .cache_missing_key = true};
    cdc_lookup_cache_t *c = cdc_lookup_cache_new(&o, row_type, test_clock, NULL);
    cdc_row_t rows[2] = {make_row(1, "one"), make_row(1, "uno")};
    put(c, "k1", rows, 2);
    cdc_arena_reset(&arena); /* the caller's rows are gone */
    memset(cdc_arena_alloc(&arena, 4096), 'x', 4096);
    const cdc_row_t *got = NULL;
    uint32_t n = 0;
    cr_assert(get(c, "k1", &got, &n));
    cr_assert_eq(n, 2);
    expect_printed(&got[0], "+I[1, one, [one, one]]");
    expect_printed(&got[1], "+I[1, uno, [uno, uno]]");
    cr_expect_not(has(c, "k2"));
    cdc_lookup_cache_stats_t st;
    cdc_lookup_cache_stats(c, &st);
    cr_expect_eq(st.hits, 1);
    cr_expect_eq(st.misses, 1);
    cr_expect_eq(st.size, 1);
    cdc_lookup_cache_destroy(c);
}

Test(lookup_cache, lru_evicts_the_least_recently_used_key)
{
    cdc_lookup_opts_t o = {.cache = true, .max_rows = 3, .cache_missing_key = true};
    cdc_lookup_cache_t *c = cdc_lookup_cache_new(&o, row_type, test_clock, NULL);
    cdc_row_t r = make_row(1, "a");
    put(c, "a", &r, 1);
    put(c, "b", &r, 1);
    put(c, "c", &r, 1);
    cr_assert(has(c, "a")); /* a is now the most recently used: b is the oldest */
    put(c, "d", &r, 1);
    cr_expect_not(has(c, "b"));
    cr_expect(has(c, "a"));
    cr_expect(has(c, "c"));
    cr_expect(has(c, "d"));
    put(c, "e", &r, 1); /* the order is now a, c, d (oldest first) after the reads */
    cr_expect_not(has(c, "a"));
    cdc_lookup_cache_stats_t st;
    cdc_lookup_cache_stats(c, &st);
    cr_expect_eq(st.size, 3);
    cr_expect_eq(st.evictions, 2);
    cdc_lookup_cache_destroy(c);
}

Test(lookup_cache, many_keys_under_a_bound_keep_the_newest)
{
    cdc_lookup_opts_t o = {.cache = true, .max_rows = 1000, .cache_missing_key = true};
    cdc_lookup_cache_t *c = cdc_lookup_cache_new(&o, row_type, test_clock, NULL);
    char key[32];
    for (int i = 0; i < 10000; i++) {
        cdc_row_t r = make_row(i, "v");
        snprintf(key, sizeof(key), "key%d", i);
        put(c, key, &r, 1);
    }
    for (int i = 0; i < 10000; i++) {
        snprintf(key, sizeof(key), "key%d", i);
        const cdc_row_t *rows;
        uint32_t n;
        bool hit = get(c, key, &rows, &n);
        cr_expect_eq(hit, i >= 9000, "key %d: hit %d", i, hit);
        if (hit)
            cr_expect_eq(rows[0].values[0].v.i, i);
    }
    cdc_lookup_cache_destroy(c);
}

Test(lookup_cache, expire_after_write)
{
    cdc_lookup_opts_t o = {.cache = true, .expire_after_write_ms = 100, .cache_missing_key = true};
    cdc_lookup_cache_t *c = cdc_lookup_cache_new(&o, row_type, test_clock, NULL);
    cdc_row_t r = make_row(1, "a");
    put(c, "a", &r, 1);
    now += 99;
    cr_expect(has(c, "a")); /* reading does not extend a write TTL */
    now += 1;
    cr_expect_not(has(c, "a"));
    cdc_lookup_cache_stats_t st;
    cdc_lookup_cache_stats(c, &st);
    cr_expect_eq(st.expirations, 1);
    cr_expect_eq(st.size, 0);
    put(c, "a", &r, 1); /* stored again: a fresh TTL */
    now += 50;
    cr_expect(has(c, "a"));
    cdc_lookup_cache_destroy(c);
}

Test(lookup_cache, expire_after_access)
{
    cdc_lookup_opts_t o = {.cache = true, .expire_after_access_ms = 100, .cache_missing_key = true};
    cdc_lookup_cache_t *c = cdc_lookup_cache_new(&o, row_type, test_clock, NULL);
    cdc_row_t r = make_row(1, "a");
    put(c, "a", &r, 1);
    for (int i = 0; i < 10; i++) {
        now += 90; /* read before it expires: kept, far past 100 ms after the write */
        cr_expect(has(c, "a"), "read %d", i);
    }
    now += 100;
    cr_expect_not(has(c, "a"));
    cdc_lookup_cache_destroy(c);
}

Test(lookup_cache, missing_keys_cached_by_default)
{
    cdc_lookup_opts_t o = {.cache = true, .cache_missing_key = true};
    cdc_lookup_cache_t *c = cdc_lookup_cache_new(&o, row_type, test_clock, NULL);
    put(c, "none", NULL, 0);
    const cdc_row_t *rows = NULL;
    uint32_t n = 99;
    cr_expect(get(c, "none", &rows, &n));
    cr_expect_eq(n, 0);
    cdc_lookup_cache_destroy(c);
}

Test(lookup_cache, missing_keys_not_cached_when_off)
{
    cdc_lookup_opts_t o = {.cache = true, .cache_missing_key = false};
    cdc_lookup_cache_t *c = cdc_lookup_cache_new(&o, row_type, test_clock, NULL);
    cdc_row_t r = make_row(1, "a");
    put(c, "a", &r, 1);
    put(c, "a", NULL, 0); /* the key has no rows any more: forgotten, not cached as missing */
    cr_expect_not(has(c, "a"));
    put(c, "none", NULL, 0);
    cr_expect_not(has(c, "none"));
    cdc_lookup_cache_stats_t st;
    cdc_lookup_cache_stats(c, &st);
    cr_expect_eq(st.size, 0);
    cdc_lookup_cache_destroy(c);
}

Test(lookup_cache, put_replaces_a_key)
{
    cdc_lookup_opts_t o = {.cache = true, .max_rows = 2, .cache_missing_key = true};
    cdc_lookup_cache_t *c = cdc_lookup_cache_new(&o, row_type, test_clock, NULL);
    cdc_row_t a = make_row(1, "old"), b = make_row(1, "new");
    put(c, "k", &a, 1);
    put(c, "k", &b, 1);
    const cdc_row_t *rows;
    uint32_t n;
    cr_assert(get(c, "k", &rows, &n));
    cr_assert_eq(n, 1);
    expect_printed(&rows[0], "+I[1, new, [new, new]]");
    cdc_lookup_cache_stats_t st;
    cdc_lookup_cache_stats(c, &st);
    cr_expect_eq(st.size, 1);
    cdc_lookup_cache_destroy(c);
}

/* ---- options ----------------------------------------------------------------------------- */

static const cdc_option_def_t defs[] = {CDC_LOOKUP_OPTION_DEFS, {0}};

static void read_opts(const char *const *kv, cdc_lookup_opts_t *o)
{
    cdc_kv_t given = {0};
    for (int i = 0; kv[i]; i += 2)
        cdc_kv_set(&given, kv[i], kv[i + 1]);
    cdc_error_t *err = NULL;
    cdc_config_t *cfg = cdc_config_new(defs, "connector \"test\"", &given, &err);
    cr_assert_not_null(cfg, "%s", err ? err->message : "");
    cdc_lookup_opts_read(cfg, o);
    cdc_config_destroy(cfg);
    cdc_kv_free(&given);
}

Test(lookup_cache, options_defaults_and_flink_keys)
{
    cdc_lookup_opts_t o;
    read_opts((const char *const[]){NULL}, &o);
    cr_expect_not(o.cache);
    cr_expect(o.cache_missing_key);
    cr_expect_eq(o.max_retries, 3);
    read_opts((const char *const[]){"lookup.cache", "partial", "lookup.partial-cache.max-rows",
                                    "500", "lookup.partial-cache.expire-after-write", "10 s",
                                    "lookup.partial-cache.expire-after-access", "2 min",
                                    "lookup.partial-cache.cache-missing-key", "false",
                                    "lookup.max-retries", "0", NULL},
              &o);
    cr_expect(o.cache);
    cr_expect_eq(o.max_rows, 500);
    cr_expect_eq(o.expire_after_write_ms, 10000);
    cr_expect_eq(o.expire_after_access_ms, 120000);
    cr_expect_not(o.cache_missing_key);
    cr_expect_eq(o.max_retries, 0);
    cdc_buf_t b = {0};
    cdc_lookup_opts_explain(&o, &b);
    cr_expect_str_eq(cdc_buf_cstr(&b), "[PARTIAL, max-rows=500, expire-after-write=10s, "
                                       "expire-after-access=120s, cache-missing-key=false]");
    cdc_buf_free(&b);
}

Test(lookup_cache, options_legacy_aliases)
{
    cdc_lookup_opts_t o;
    read_opts((const char *const[]){"lookup.cache.max-rows", "7", "lookup.cache.ttl", "1500 ms",
                                    "lookup.cache.caching-missing-key", "false", NULL},
              &o);
    cr_expect(o.cache);
    cr_expect_eq(o.max_rows, 7);
    cr_expect_eq(o.expire_after_write_ms, 1500);
    cr_expect_not(o.cache_missing_key);
    cdc_buf_t b = {0};
    cdc_lookup_opts_explain(&o, &b);
    cr_expect_str_eq(cdc_buf_cstr(&b),
                     "[PARTIAL, max-rows=7, expire-after-write=1500ms, cache-missing-key=false]");
    cdc_buf_free(&b);
}

/* ---- retries ----------------------------------------------------------------------------- */

Test(lookup_cache, backoff_grows_and_is_capped)
{
    cr_expect_eq(cdc_lookup_backoff_ms(1), 1000);
    cr_expect_eq(cdc_lookup_backoff_ms(3), 3000);
    cr_expect_eq(cdc_lookup_backoff_ms(50), 10000);
}

Test(lookup_cache, options_explicit_none_wins_over_legacy_max_rows)
{
    cdc_lookup_opts_t o;
    read_opts((const char *const[]){"lookup.cache", "NONE", "lookup.cache.max-rows", "7", NULL},
              &o);
    cr_expect_not(o.cache);
}

static void check_problems(const char *const *kv, const char *expected)
{
    cdc_kv_t given = {0};
    for (int i = 0; kv[i]; i += 2)
        cdc_kv_set(&given, kv[i], kv[i + 1]);
    cdc_error_t *err = NULL;
    cdc_config_t *cfg = cdc_config_new(defs, "connector \"test\"", &given, &err);
    cr_assert_not_null(cfg);
    cdc_buf_t problems = {0};
    cdc_lookup_check(cfg, &problems);
    cr_expect_str_eq(cdc_buf_cstr(&problems), expected);
    cdc_buf_free(&problems);
    cdc_config_destroy(cfg);
    cdc_kv_free(&given);
}

Test(lookup_cache, a_partial_cache_needs_a_bound)
{
    check_problems((const char *const[]){"lookup.cache", "PARTIAL", NULL},
                   "option \"lookup.cache\": a PARTIAL cache needs a bound: set "
                   "\"lookup.partial-cache.max-rows\", \"lookup.partial-cache.expire-after-write\" "
                   "or \"lookup.partial-cache.expire-after-access\"\n");
    check_problems((const char *const[]){"lookup.cache", "PARTIAL",
                                         "lookup.partial-cache.expire-after-access", "1 min", NULL},
                   "");
    check_problems((const char *const[]){"lookup.cache.max-rows", "10", NULL}, "");
    check_problems((const char *const[]){NULL}, "");
}

Test(lookup_cache, rows_handed_out_outlive_eviction_until_release)
{
    cdc_lookup_opts_t o = {.cache = true, .max_rows = 1, .cache_missing_key = true};
    cdc_lookup_cache_t *c = cdc_lookup_cache_new(&o, row_type, test_clock, NULL);
    cdc_row_t a = make_row(1, "first"), b = make_row(2, "second");
    const cdc_row_t *stored = cdc_lookup_cache_put(c, "a", 1, &a, 1);
    cr_assert_not_null(stored);
    expect_printed(&stored[0], "+I[1, first, [first, first]]");
    const cdc_row_t *got;
    uint32_t n;
    cr_assert(get(c, "a", &got, &n));
    cr_assert_eq(got, stored);
    put(c, "b", &b, 1); /* evicts a: its rows stay readable until the release */
    cr_expect_not(has(c, "a"));
    expect_printed(&got[0], "+I[1, first, [first, first]]");
    cdc_lookup_cache_release(c); /* (ASan would see a read of got from here on) */
    cr_expect(has(c, "b"));
    cdc_lookup_opts_t off = {.cache = true, .max_rows = 1, .cache_missing_key = false};
    cdc_lookup_cache_t *c2 = cdc_lookup_cache_new(&off, row_type, test_clock, NULL);
    cr_expect_null(cdc_lookup_cache_put(c2, "none", 4, NULL, 0));
    cdc_lookup_cache_destroy(c2);
    cdc_lookup_cache_destroy(c);
}
