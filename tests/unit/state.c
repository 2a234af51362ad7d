/*
 * tests/unit/state.c — the keyed state store (src/exec/cdc_state.c) on a real
 * RocksDB in a temporary directory: changes across commits, reopening at the
 * last commit with its meta, many keys under a small memory budget (eviction),
 * wants_commit, fresh, memory-only mode, TTL, a directory in use, a value
 * larger than the whole budget.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cdc_state.h"

static char dir[64];

static void make_dir(void)
{
    strcpy(dir, "/tmp/cdc_state_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(state, .init = make_dir, .fini = remove_dir);

static bool sanitized(void)
{
    return getenv("CDC_SANITIZED") != NULL;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static cdc_state_t *open_store(const char *d, size_t budget, int64_t ttl, bool fresh)
{
    cdc_state_options_t opt = {.dir = d, .memory_bytes = budget, .ttl_ms = ttl, .fresh = fresh};
    cdc_state_t *st = NULL;
    cdc_error_t *err = NULL;
    if (cdc_state_open(&opt, &st, &err) < 0) {
        char *msg = cdc_error_format(err);
        cr_assert_fail("open: %s", msg);
    }
    return st;
}

static void put(cdc_state_t *st, uint32_t ns, const char *key, const char *val)
{
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_state_put(st, ns, key, strlen(key), val, strlen(val), &err), 0);
}

static void del(cdc_state_t *st, uint32_t ns, const char *key)
{
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_state_del(st, ns, key, strlen(key), &err), 0);
}

static void commit(cdc_state_t *st, const char *meta)
{
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_state_commit(st, meta, strlen(meta), &err), 0);
}

/* The value of (ns, key) as a string, or NULL when absent. Static buffer. */
static const char *get(cdc_state_t *st, uint32_t ns, const char *key)
{
    static char out[256];
    const void *val;
    size_t vlen;
    cdc_error_t *err = NULL;
    int rc = cdc_state_get(st, ns, key, strlen(key), &val, &vlen, &err);
    cr_assert_geq(rc, 0);
    if (rc == 0)
        return NULL;
    cr_assert_lt(vlen, sizeof(out));
    memcpy(out, val, vlen);
    out[vlen] = '\0';
    return out;
}

static const char *meta_of(cdc_state_t *st)
{
    static char out[256];
    const void *m;
    size_t mlen;
    if (!cdc_state_meta(st, &m, &mlen))
        return NULL;
    memcpy(out, m, mlen);
    out[mlen] = '\0';
    return out;
}

Test(state, put_get_del_across_commits)
{
    cdc_state_t *st = open_store(dir, 0, 0, false);
    cr_expect_null(get(st, 1, "a"));
    put(st, 1, "a", "one");
    put(st, 2, "a", "other namespace");
    put(st, 1, "", "empty key");
    cr_expect_str_eq(get(st, 1, "a"), "one");
    commit(st, "pos=1");
    cr_expect_str_eq(get(st, 1, "a"), "one");
    cr_expect_str_eq(get(st, 2, "a"), "other namespace");
    cr_expect_str_eq(get(st, 1, ""), "empty key");
    put(st, 1, "a", "a longer value than the first one, so it needs a bigger block");
    del(st, 2, "a");
    del(st, 3, "never there");
    cr_expect_null(get(st, 2, "a"));
    commit(st, "pos=2");
    cr_expect_str_eq(get(st, 1, "a"),
                     "a longer value than the first one, so it needs a bigger block");
    cr_expect_null(get(st, 2, "a"));
    cdc_state_stats_t s;
    cdc_state_stats(st, &s);
    cr_expect_eq(s.commits, 2);
    cr_expect_gt(s.disk_bytes, 0);
    cdc_state_close(st);

    st = open_store(dir, 0, 0, false);
    cr_expect_str_eq(get(st, 1, "a"),
                     "a longer value than the first one, so it needs a bigger block");
    cr_expect_null(get(st, 2, "a"));
    cr_expect_str_eq(get(st, 1, ""), "empty key");
    cr_expect_str_eq(meta_of(st), "pos=2");
    cdc_state_close(st);
}

/* A commit is one table file in key order with the meta ("M") among the entries: namespaces
   whose keys sort before it, at it and after it, in one commit and reopened. */
Test(state, namespaces_around_the_meta_key_in_one_commit)
{
    cdc_state_t *st = open_store(dir, 0, 0, false);
    uint32_t ns[] = {0, 1, 0x4c000000u, 0x4d000000u, 0x4dffffffu, 0x4e000000u, 0xffffffffu};
    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
        put(st, ns[i], "k", "v");
        put(st, ns[i], "", "empty");
    }
    commit(st, "pos=1");
    del(st, 0x4d000000u, "k");
    commit(st, "pos=2");
    cdc_state_close(st);
    st = open_store(dir, 0, 0, false);
    cr_expect_str_eq(meta_of(st), "pos=2");
    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
        if (ns[i] == 0x4d000000u)
            cr_expect_null(get(st, ns[i], "k"));
        else
            cr_expect_str_eq(get(st, ns[i], "k"), "v", "namespace %#x", ns[i]);
        cr_expect_str_eq(get(st, ns[i], ""), "empty", "namespace %#x", ns[i]);
    }
    cdc_state_close(st);
}

/* Keys that share their first bytes (the commit's sort orders them by 8-byte prefixes first),
   of many lengths, in one commit: RocksDB takes the file only in strictly ascending order. */
Test(state, keys_with_one_long_prefix_in_one_commit)
{
    cdc_state_t *st = open_store(dir, 0, 0, false);
    char key[64];
    for (int i = 0; i < 500; i++) {
        snprintf(key, sizeof(key), "shared%.*s%d", i % 7, "xxxxxxx", (i * 7919) % 1000);
        put(st, 3, key, key);
    }
    put(st, 3, "shar", "short");
    commit(st, "pos=1");
    cdc_state_close(st);
    st = open_store(dir, 0, 0, false);
    for (int i = 0; i < 500; i++) {
        snprintf(key, sizeof(key), "shared%.*s%d", i % 7, "xxxxxxx", (i * 7919) % 1000);
        cr_expect_str_eq(get(st, 3, key), key);
    }
    cr_expect_str_eq(get(st, 3, "shar"), "short");
    cdc_state_close(st);
}

/* A crash while a commit's file was written leaves it behind: the next open discards it and
   holds the last commit. */
Test(state, regress_a_commit_file_left_by_a_crash)
{
    cdc_state_t *st = open_store(dir, 0, 0, false);
    put(st, 1, "a", "committed");
    commit(st, "pos=1");
    cdc_state_close(st);
    char path[128];
    snprintf(path, sizeof(path), "%s/commit.sst.tmp", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("half a table file", f);
    fclose(f);
    st = open_store(dir, 0, 0, false);
    cr_expect_eq(access(path, F_OK), -1, "the open removes the stray file");
    cr_expect_str_eq(meta_of(st), "pos=1");
    cr_expect_str_eq(get(st, 1, "a"), "committed");
    put(st, 1, "a", "again");
    commit(st, "pos=2");
    cdc_state_close(st);
    st = open_store(dir, 0, 0, false);
    cr_expect_str_eq(get(st, 1, "a"), "again");
    cr_expect_eq(access(path, F_OK), -1);
    cdc_state_close(st);
}

/* Prefetching is a hint: any hash, at any stage, on an empty or full store, changes nothing. */
Test(state, prefetch_changes_nothing)
{
    cdc_state_t *st = open_store(dir, 0, 0, false);
    cdc_state_prefetch(st, cdc_state_hash(1, "a", 1), 0); /* no table yet */
    cdc_state_prefetch(st, cdc_state_hash(1, "a", 1), 1);
    char key[16];
    for (int i = 0; i < 1000; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        put(st, 1, key, key);
    }
    for (int i = 0; i < 1000; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        uint64_t h = cdc_state_hash(1, key, strlen(key));
        cdc_state_prefetch(st, h, 0);
        cdc_state_prefetch(st, h, 1);
        cdc_state_prefetch(st, h + 1, 1); /* a wrong hash */
        cr_expect_str_eq(get(st, 1, key), key);
    }
    cr_expect_eq(cdc_state_hash(1, "a", 1), cdc_state_hash(1, "a", 1));
    cr_expect_neq(cdc_state_hash(1, "a", 1), cdc_state_hash(2, "a", 1));
    cdc_state_close(st);
}

Test(state, meta_absent_on_a_new_store)
{
    cdc_state_t *st = open_store(dir, 0, 0, false);
    cr_expect_null(meta_of(st));
    commit(st, "");
    cr_expect_str_eq(meta_of(st), "");
    cdc_state_close(st);
}

Test(state, reopen_without_commit_shows_the_last_commit)
{
    cdc_state_t *st = open_store(dir, 0, 0, false);
    put(st, 7, "k1", "committed");
    put(st, 7, "k2", "committed too");
    commit(st, "offset=10");
    put(st, 7, "k1", "lost");
    del(st, 7, "k2");
    put(st, 7, "k3", "lost as well");
    cdc_state_close(st); /* no commit: a crash */

    st = open_store(dir, 0, 0, false);
    cr_expect_str_eq(meta_of(st), "offset=10");
    cr_expect_str_eq(get(st, 7, "k1"), "committed");
    cr_expect_str_eq(get(st, 7, "k2"), "committed too");
    cr_expect_null(get(st, 7, "k3"));
    cdc_state_close(st);
}

Test(state, fresh_discards_the_directory)
{
    cdc_state_t *st = open_store(dir, 0, 0, false);
    put(st, 1, "k", "v");
    commit(st, "m");
    cdc_state_close(st);
    st = open_store(dir, 0, 0, true);
    cr_expect_null(get(st, 1, "k"));
    cr_expect_null(meta_of(st));
    cdc_state_close(st);
    /* fresh on a directory that does not exist yet, with parents to create */
    char sub[128];
    snprintf(sub, sizeof(sub), "%s/a/b", dir);
    st = open_store(sub, 0, 0, true);
    put(st, 1, "k", "v");
    commit(st, "m");
    cdc_state_close(st);
}

static void key_of(char *buf, size_t n, long i)
{
    snprintf(buf, n, "key-%08ld", i * 7919 % 1000003);
}

static void value_of(char *buf, long i, long round)
{
    /* ~100 bytes that differ per key and per round */
    snprintf(buf, 128, "value %ld of round %ld: %0*ld", i, round, 80, i * 31 + round);
}

static uint64_t memory_of(cdc_state_t *st)
{
    cdc_state_stats_t s;
    cdc_state_stats(st, &s);
    return s.memory_bytes;
}

Test(state, many_keys_in_a_small_budget, .timeout = 240)
{
    const size_t budget = 4u << 20;
    const long n = sanitized() ? 40000 : 200000;
    cdc_state_t *st = open_store(dir, budget, 0, false);
    char key[32], val[128];
    uint64_t peak = 0;
    long commits = 0;
    for (long i = 0; i < n; i++) {
        key_of(key, sizeof(key), i);
        value_of(val, i, 0);
        put(st, 1, key, val);
        if (cdc_state_wants_commit(st)) {
            commit(st, "during");
            commits++;
        }
        if (i % 5000 == 0 && memory_of(st) > peak)
            peak = memory_of(st);
    }
    commit(st, "loaded");
    /* every value back, most from RocksDB; then the first ones again (evicted by now) */
    for (long k = 0; k < n + 1000; k++) {
        long i = k % n;
        key_of(key, sizeof(key), i);
        value_of(val, i, 0);
        const char *got = get(st, 1, key);
        cr_assert_not_null(got, "key %ld", i);
        cr_assert_str_eq(got, val);
        if (k % 5000 == 0 && memory_of(st) > peak)
            peak = memory_of(st);
    }
    /* the data is ~5x the budget (~45 MB in the overlay without eviction): a peak under twice
       the budget means clean entries were evicted */
    /* and the dirty entries (half the budget) asked for a commit again and again: ~14 times
       for 200,000 keys, 3 for 40,000 */
    cr_expect_gt(commits, 2, "wants_commit asked %ld times", commits);
    cr_expect_lt(peak, 2 * budget, "memory peaked at %llu bytes for a budget of %zu",
                 (unsigned long long)peak, budget);
    cdc_state_stats_t s;
    cdc_state_stats(st, &s);
    cr_expect_gt(s.keys_estimate, (uint64_t)n / 2);
    cr_expect_gt(s.disk_bytes, 0);
    cdc_state_close(st);

    st = open_store(dir, budget, 0, false);
    cr_expect_str_eq(meta_of(st), "loaded");
    for (long i = 0; i < n; i += 7) {
        key_of(key, sizeof(key), i);
        value_of(val, i, 0);
        const char *got = get(st, 1, key);
        cr_assert_not_null(got, "key %ld after reopen", i);
        cr_assert_str_eq(got, val);
    }
    cdc_state_close(st);
}

Test(state, wants_commit_under_many_dirty_writes)
{
    cdc_state_t *st = open_store(dir, 1u << 20, 0, false);
    char key[32], val[128];
    long i = 0;
    cr_expect(!cdc_state_wants_commit(st));
    while (!cdc_state_wants_commit(st) && i < 100000) {
        key_of(key, sizeof(key), i);
        value_of(val, i, 1);
        put(st, 9, key, val);
        i++;
    }
    cr_expect(cdc_state_wants_commit(st));
    cr_expect_gt(i, 100, "turned true after %ld writes", i);
    cr_expect_lt(i, 100000, "never turned true");
    commit(st, "x");
    cr_expect(!cdc_state_wants_commit(st));
    cdc_state_close(st);
}

Test(state, memory_only)
{
    cdc_state_t *st = open_store(NULL, 1u << 20, 0, false);
    cr_expect_null(meta_of(st));
    char key[32], val[128];
    const long n = 30000; /* ~4 MB for a 1 MiB budget: nothing may be evicted without a disk */
    for (long i = 0; i < n; i++) {
        key_of(key, sizeof(key), i);
        value_of(val, i, 2);
        put(st, 1, key, val);
        if (cdc_state_wants_commit(st))
            commit(st, "m");
    }
    commit(st, "end");
    for (long i = 0; i < n; i++) {
        key_of(key, sizeof(key), i);
        value_of(val, i, 2);
        const char *got = get(st, 1, key);
        cr_assert_not_null(got, "key %ld", i);
        cr_assert_str_eq(got, val);
    }
    key_of(key, sizeof(key), 5);
    del(st, 1, key);
    cr_expect_null(get(st, 1, key));
    commit(st, "after del");
    cr_expect_null(get(st, 1, key));
    cr_expect_str_eq(meta_of(st), "after del");
    cdc_state_stats_t s;
    cdc_state_stats(st, &s);
    cr_expect_eq(s.keys_estimate, (uint64_t)n - 1);
    cr_expect_eq(s.disk_bytes, 0);
    cdc_state_close(st);
}

Test(state, ttl_expires_entries)
{
    cdc_state_t *st = open_store(dir, 0, 50, false);
    put(st, 1, "old", "v");
    put(st, 1, "dirty", "v");
    commit(st, "m");
    put(st, 1, "dirty", "v");
    cr_expect_str_eq(get(st, 1, "old"), "v");
    sleep_ms(200);
    cr_expect_null(get(st, 1, "old"), "an expired entry is never returned");
    cr_expect_null(get(st, 1, "dirty"), "not even an uncommitted one");
    put(st, 1, "new", "fresh");
    cr_expect_str_eq(get(st, 1, "new"), "fresh");
    cdc_state_stats_t s;
    cdc_state_stats(st, &s);
    cr_expect_geq(s.expired, 2);
    commit(st, "m2");
    cdc_state_close(st);

    /* from RocksDB (cold): the stored write time expires it too */
    st = open_store(dir, 0, 50, false);
    cr_expect_null(get(st, 1, "old"));
    cdc_state_close(st);

    /* compaction drops expired entries: many keys, then a full compaction */
    st = open_store(dir, 0, 50, false);
    char key[32];
    for (long i = 0; i < 2000; i++) {
        key_of(key, sizeof(key), i);
        put(st, 2, key, "soon gone");
    }
    commit(st, "m3");
    sleep_ms(200);
    cdc_state_compact(st);
    cdc_state_stats(st, &s);
    cr_expect_lt(s.keys_estimate, 100, "%llu keys left after compaction",
                 (unsigned long long)s.keys_estimate);
    cdc_state_close(st);

    /* without a TTL the same entries stay */
    st = open_store(dir, 0, 0, true);
    for (long i = 0; i < 2000; i++) {
        key_of(key, sizeof(key), i);
        put(st, 2, key, "kept");
    }
    commit(st, "m4");
    sleep_ms(100);
    cdc_state_compact(st);
    cdc_state_stats(st, &s);
    cr_expect_gt(s.keys_estimate, 1900);
    cdc_state_close(st);
}

Test(state, tick_fixes_the_clock_of_writes_and_expiry)
{
    cdc_state_t *st = open_store(dir, 0, 100, true);
    cdc_state_tick(st);
    sleep_ms(150);
    put(st, 1, "k", "v"); /* written at the tick's time, 150 ms ago */
    cr_expect_str_eq(get(st, 1, "k"), "v", "expiry is judged by the same tick");
    cdc_state_tick(st);
    cr_expect_null(get(st, 1, "k"), "a new tick sees the write 150 ms old");
    put(st, 1, "k", "w");
    sleep_ms(150);
    cr_expect_str_eq(get(st, 1, "k"), "w", "no tick since the write: not expired yet");
    cdc_state_tick(st);
    cr_expect_null(get(st, 1, "k"));
    cdc_state_close(st);
}

static void expect_in_use(void)
{
    cdc_state_options_t opt = {.dir = dir};
    cdc_state_t *st2 = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_state_open(&opt, &st2, &err), -1);
    cr_assert_not_null(err);
    char *msg = cdc_error_format(err);
    cr_expect(strstr(msg, "is in use by another process") && strstr(msg, dir), "%s", msg);
    cr_expect_not_null(err->hint, "%s", msg);
    free(msg);
    cdc_error_destroy(err);
}

Test(state, a_directory_in_use_fails_clearly)
{
    /* another process */
    int ready[2], done[2];
    cr_assert_eq(pipe(ready), 0);
    cr_assert_eq(pipe(done), 0);
    pid_t pid = fork();
    if (pid == 0) {
        cdc_state_options_t opt = {.dir = dir};
        cdc_state_t *st = NULL;
        cdc_error_t *err = NULL;
        char c = cdc_state_open(&opt, &st, &err) == 0 ? 'y' : 'n';
        if (write(ready[1], &c, 1) != 1 || read(done[0], &c, 1) != 1)
            _exit(2);
        cdc_state_close(st);
        _exit(0);
    }
    char c = 0;
    cr_assert_eq(read(ready[0], &c, 1), 1);
    cr_assert_eq(c, 'y');
    expect_in_use();
    cr_assert_eq(write(done[1], "x", 1), 1);
    int status;
    waitpid(pid, &status, 0);
    /* and this one */
    cdc_state_t *st = open_store(dir, 0, 0, false);
    expect_in_use();
    cdc_state_close(st);
}

Test(state, a_value_larger_than_the_budget)
{
    const size_t budget = 1u << 20, big = 3u << 20;
    char *val = malloc(big);
    for (size_t i = 0; i < big; i++)
        val[i] = (char)(i * 131 % 251);
    cdc_state_t *st = open_store(dir, budget, 0, false);
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_state_put(st, 4, "big", 3, val, big, &err), 0);
    cr_expect(cdc_state_wants_commit(st));
    commit(st, "big");
    const void *got;
    size_t glen;
    cr_assert_eq(cdc_state_get(st, 4, "big", 3, &got, &glen, &err), 1);
    cr_expect_eq(glen, big);
    cr_expect(memcmp(got, val, big) == 0);
    cdc_state_close(st);
    st = open_store(dir, budget, 0, false);
    cr_assert_eq(cdc_state_get(st, 4, "big", 3, &got, &glen, &err), 1);
    cr_expect_eq(glen, big);
    cr_expect(memcmp(got, val, big) == 0);
    /* and it makes room again: a small one next to it */
    put(st, 4, "small", "s");
    cr_expect_str_eq(get(st, 4, "small"), "s");
    cdc_state_close(st);
    free(val);
}

Test(state, put_of_a_value_a_get_returned)
{
    /* read-modify-write style: the value a get returned is put under other keys (and its own)
       while the overlay is full, so the put evicts entries; the value must still be copied whole */
    cdc_state_t *st = open_store(dir, 256u << 10, 0, false);
    char key[32], val[128];
    const long n = 5000;
    for (long i = 0; i < n; i++) {
        key_of(key, sizeof(key), i);
        value_of(val, i, 3);
        put(st, 1, key, val);
    }
    commit(st, "loaded");
    cdc_state_close(st);
    st = open_store(dir, 256u << 10, 0, false);
    cdc_error_t *err = NULL;
    for (long i = 0; i < n; i++) {
        key_of(key, sizeof(key), i);
        const void *got;
        size_t glen;
        cr_assert_eq(cdc_state_get(st, 1, key, strlen(key), &got, &glen, &err), 1);
        cr_assert_eq(cdc_state_put(st, 2, key, strlen(key), got, glen, &err), 0);
        cr_assert_eq(cdc_state_get(st, 1, key, strlen(key), &got, &glen, &err), 1);
        cr_assert_eq(cdc_state_put(st, 1, key, strlen(key), got, glen, &err), 0);
        if (cdc_state_wants_commit(st))
            commit(st, "copying");
    }
    commit(st, "copied");
    for (long i = 0; i < n; i++) {
        key_of(key, sizeof(key), i);
        value_of(val, i, 3);
        cr_assert_str_eq(get(st, 2, key), val, "key %ld", i);
        cr_assert_str_eq(get(st, 1, key), val, "key %ld", i);
    }
    /* a value larger than the overlay's share: the put that copies it must evict, yet not it */
    const size_t big = 1u << 20;
    char *bigval = malloc(big);
    memset(bigval, 'b', big);
    cr_assert_eq(cdc_state_put(st, 3, "big", 3, bigval, big, &err), 0);
    commit(st, "big");
    cdc_state_close(st);
    st = open_store(dir, 256u << 10, 0, false);
    const void *got;
    size_t glen;
    cr_assert_eq(cdc_state_get(st, 3, "big", 3, &got, &glen, &err), 1);
    cr_assert_eq(cdc_state_put(st, 3, "copy", 4, got, glen, &err), 0);
    cr_assert_eq(cdc_state_get(st, 3, "copy", 4, &got, &glen, &err), 1);
    cr_assert_eq(glen, big);
    cr_expect(memcmp(got, bigval, big) == 0);
    free(bigval);
    cdc_state_close(st);
}
