/*
 * bench/state_bench.c — the keyed state store (src/exec/cdc_state.c) against a
 * plain in-memory hash table measured in the same run. Driven by
 * bench/state_bench.sh; not a test.
 *
 *   bench_state_bench [DIR]     (a temporary directory under /tmp when omitted)
 *
 * Prints ops/s of get and put on hot keys (10,000 keys, in the overlay), of
 * get on cold keys (300,000 keys of ~100 bytes under a 4 MiB budget, the store
 * reopened so every read starts in RocksDB) and of put on new keys (commits
 * included, as the runtime would do them), the time of a synced commit of
 * 10,000 dirty keys, and the ratio of each hot figure to the baseline: an
 * open-addressing table of copied values, no namespaces, no TTL, no disk.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_error.h"
#include "cdc_state.h"
#include "cdc_util.h"

#define HOT_KEYS 10000
#define COLD_KEYS 300000
#define VAL_LEN 100

static double now(void)
{
    return (double)cdc_mono_us() / 1e6;
}

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(void) /* xorshift: cheaper than the operations it picks keys for */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

static size_t key_of(char *buf, uint32_t i)
{
    return (size_t)snprintf(buf, 32, "key-%010u", i);
}

static void check(int rc, cdc_error_t *err)
{
    if (rc < 0) {
        cdc_error_print(err, stderr);
        exit(1);
    }
}

/* ---- the baseline: key -> value copy, open addressing -------------------------------------- */

typedef struct base_entry {
    char key[24];
    size_t klen;
    char *val;
    size_t vlen;
} base_entry_t;

static base_entry_t *base;
static size_t base_cap = 1 << 15;

static base_entry_t *base_find(const char *key, size_t klen)
{
    size_t j = cdc_hash_bytes(key, klen) & (base_cap - 1);
    while (base[j].klen && (base[j].klen != klen || memcmp(base[j].key, key, klen) != 0))
        j = (j + 1) & (base_cap - 1);
    return &base[j];
}

static void base_put(const char *key, size_t klen, const char *val, size_t vlen)
{
    base_entry_t *e = base_find(key, klen);
    if (!e->klen) {
        memcpy(e->key, key, klen);
        e->klen = klen;
        e->val = malloc(VAL_LEN);
    }
    memcpy(e->val, val, vlen);
    e->vlen = vlen;
}

/* ---- the runs ---------------------------------------------------------------------------------
 */

static cdc_state_t *open_at(const char *dir, size_t budget, bool fresh)
{
    cdc_state_options_t opt = {.dir = dir, .memory_bytes = budget, .fresh = fresh};
    cdc_state_t *st;
    cdc_error_t *err = NULL;
    check(cdc_state_open(&opt, &st, &err), err);
    return st;
}

static volatile size_t sink; /* keeps the reads */

static double hot_gets(cdc_state_t *st, long n)
{
    char key[32];
    cdc_error_t *err = NULL;
    double t0 = now();
    for (long i = 0; i < n; i++) {
        size_t klen = key_of(key, rnd() % HOT_KEYS);
        if (st) {
            const void *v;
            size_t vlen = 0;
            check(cdc_state_get(st, 1, key, klen, &v, &vlen, &err), err);
            sink += vlen;
        } else {
            sink += base_find(key, klen)->vlen;
        }
    }
    return (double)n / (now() - t0);
}

static double hot_puts(cdc_state_t *st, long n, const char *val)
{
    char key[32];
    cdc_error_t *err = NULL;
    double t0 = now();
    for (long i = 0; i < n; i++) {
        size_t klen = key_of(key, rnd() % HOT_KEYS);
        if (st)
            check(cdc_state_put(st, 1, key, klen, val, VAL_LEN, &err), err);
        else
            base_put(key, klen, val, VAL_LEN);
    }
    return (double)n / (now() - t0);
}

int main(int argc, char **argv)
{
    char tmp[] = "/tmp/cdc_state_bench_XXXXXX";
    const char *dir = argc > 1 ? argv[1] : mkdtemp(tmp);
    if (!dir)
        return 1;
    char val[VAL_LEN], key[32];
    memset(val, 'v', sizeof(val));
    cdc_error_t *err = NULL;
    base = calloc(base_cap, sizeof(*base));

    /* hot: every key in the overlay, a 64 MiB budget */
    cdc_state_t *st = open_at(dir, 64u << 20, true);
    for (uint32_t i = 0; i < HOT_KEYS; i++) {
        size_t klen = key_of(key, i);
        check(cdc_state_put(st, 1, key, klen, val, VAL_LEN, &err), err);
        base_put(key, klen, val, VAL_LEN);
    }
    check(cdc_state_commit(st, "m", 1, &err), err);
    const long hot_n = 2000000;
    double g_base = hot_gets(NULL, hot_n), g_st = hot_gets(st, hot_n);
    double p_base = hot_puts(NULL, hot_n, val), p_st = hot_puts(st, hot_n, val);
    printf("hot get   %10.0f ops/s   baseline %10.0f ops/s   ratio %.2f\n", g_st, g_base,
           g_st / g_base);
    printf("hot put   %10.0f ops/s   baseline %10.0f ops/s   ratio %.2f\n", p_st, p_base,
           p_st / p_base);

    /* commit of 10,000 dirty keys (synced), best and median of 5 */
    double best = 1e9, times[5];
    for (int r = 0; r < 5; r++) {
        for (uint32_t i = 0; i < 10000; i++) {
            val[0] = (char)('a' + r);
            size_t klen = key_of(key, i);
            check(cdc_state_put(st, 1, key, klen, val, VAL_LEN, &err), err);
        }
        double t0 = now();
        check(cdc_state_commit(st, "m", 1, &err), err);
        times[r] = now() - t0;
        best = times[r] < best ? times[r] : best;
    }
    for (int a = 0; a < 5; a++)
        for (int b = a + 1; b < 5; b++)
            if (times[b] < times[a]) {
                double t = times[a];
                times[a] = times[b];
                times[b] = t;
            }
    printf("commit    10,000 dirty keys: best %.1f ms, median %.1f ms\n", best * 1e3,
           times[2] * 1e3);
    cdc_state_close(st);

    /* cold: 300,000 keys under 4 MiB; new keys put with commits when asked */
    st = open_at(dir, 4u << 20, true);
    double t0 = now();
    for (uint32_t i = 0; i < COLD_KEYS; i++) {
        size_t klen = key_of(key, i);
        check(cdc_state_put(st, 2, key, klen, val, VAL_LEN, &err), err);
        if (cdc_state_wants_commit(st))
            check(cdc_state_commit(st, "m", 1, &err), err);
    }
    check(cdc_state_commit(st, "m", 1, &err), err);
    double put_cold = COLD_KEYS / (now() - t0);
    cdc_state_close(st);
    st = open_at(dir, 4u << 20, false);
    const long cold_n = 200000;
    t0 = now();
    for (long i = 0; i < cold_n; i++) {
        size_t klen = key_of(key, rnd() % COLD_KEYS);
        const void *v;
        size_t vlen = 0;
        if (cdc_state_get(st, 2, key, klen, &v, &vlen, &err) != 1) {
            fprintf(stderr, "cold key %s missing\n", key);
            return 1;
        }
        sink += vlen;
    }
    double get_cold = cold_n / (now() - t0);
    cdc_state_stats_t s;
    cdc_state_stats(st, &s);
    printf("cold get  %10.0f ops/s   (%d keys, 4 MiB budget: memory %.1f MiB, disk %.1f MiB)\n",
           get_cold, COLD_KEYS, s.memory_bytes / 1048576.0, s.disk_bytes / 1048576.0);
    printf("new put   %10.0f ops/s   (commits included)\n", put_cold);
    cdc_state_close(st);
    if (argc <= 1) {
        char cmd[96];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            return 1;
    }
    for (size_t i = 0; i < base_cap; i++)
        free(base[i].val);
    free(base);
    return 0;
}
