/*
 * cdc_lookup.h — the runtime side of lookup joins: Flink's lookup options
 * read from a dim table's configuration, the PARTIAL cache (one per split, so
 * no locks: keys -> the 0..n rows a lookup returned, least recently used
 * evicted past max-rows, entries expiring after write and/or after access,
 * keys without rows kept or not), and the retry loop of lookup.max-retries.
 */
#ifndef CDC_LOOKUP_H
#define CDC_LOOKUP_H

#include <stdbool.h>
#include <stdint.h>

#include "cdc_plugin.h"

/** What a dim table's lookup.* options say. */
typedef struct cdc_lookup_opts_s {
    bool cache;                     /* lookup.cache = PARTIAL */
    int64_t max_rows;               /* keys kept; 0 = no bound */
    int64_t expire_after_write_ms;  /* 0 = never */
    int64_t expire_after_access_ms; /* 0 = never */
    bool cache_missing_key;
    int max_retries;
} cdc_lookup_opts_t;

/**
 * Reads the lookup options of a connector configuration that declares them
 * (CDC_LOOKUP_OPTION_DEFS); the legacy lookup.cache.max-rows / ttl /
 * caching-missing-key keys are aliases (legacy max-rows turns the cache on).
 * A configuration without them gives the defaults (no cache, 3 retries).
 */
void cdc_lookup_opts_read(const cdc_config_t *cfg, cdc_lookup_opts_t *out);

/** Appends the cache settings as EXPLAIN shows them: [NONE] or [PARTIAL, max-rows=100, ...]. */
void cdc_lookup_opts_explain(const cdc_lookup_opts_t *opts, cdc_buf_t *out);

/** A clock in milliseconds (monotonic); ctx is the caller's. */
typedef int64_t (*cdc_lookup_clock_fn)(void *ctx);

typedef struct cdc_lookup_cache_s cdc_lookup_cache_t;

typedef struct cdc_lookup_cache_stats_s {
    uint64_t hits, misses, evictions, expirations;
    uint64_t size; /* keys held now */
} cdc_lookup_cache_stats_t;

/**
 * A PARTIAL cache for rows of type row_type (borrowed: it must outlive the
 * cache). clock NULL uses CLOCK_MONOTONIC (tests pass their own).
 */
cdc_lookup_cache_t *cdc_lookup_cache_new(const cdc_lookup_opts_t *opts, const cdc_type_t *row_type,
                                         cdc_lookup_clock_fn clock, void *clock_ctx);

/**
 * Looks key (bytes) up. On a hit returns true and sets *rows and *n to the cached
 * rows (n may be 0 for a key cached as missing), valid until the next
 * cdc_lookup_cache_release (even if the entry is evicted or expires before)
 * or destroy; the entry becomes the most recently used. An expired entry is
 * dropped and counts as a miss.
 */
bool cdc_lookup_cache_get(cdc_lookup_cache_t *cache, const void *key, size_t keylen,
                          const cdc_row_t **rows, uint32_t *n);

/**
 * Stores copies of rows[0..n-1] under key (replacing what the key had), unless
 * n is 0 and missing keys are not cached. Evicts the least recently used keys
 * past max-rows. Returns the stored copies (valid as rows from get are), or
 * NULL when nothing was stored. One allocation per stored key (a miss costs a
 * lookup anyway); none on hits.
 */
const cdc_row_t *cdc_lookup_cache_put(cdc_lookup_cache_t *cache, const void *key, size_t keylen,
                                      const cdc_row_t *rows, uint32_t n);

/**
 * Frees the entries evicted, expired or replaced since the last call: rows
 * handed out before are invalid afterwards. The runtime calls it once per
 * batch, after the previous batch was written.
 */
void cdc_lookup_cache_release(cdc_lookup_cache_t *cache);

void cdc_lookup_cache_stats(const cdc_lookup_cache_t *cache, cdc_lookup_cache_stats_t *out);

void cdc_lookup_cache_destroy(cdc_lookup_cache_t *cache); /* NULL is accepted */

/**
 * One lookup with retries: resets out, calls lk->ops->lookup, and on failure
 * retries up to max_retries times, sleeping cdc_lookup_backoff_ms(attempt)
 * between attempts (a failure marked fatal is not retried). Returns 0, or -1
 * with the last failure in *err and a context line saying how many attempts
 * were made.
 */
int cdc_lookup_fetch(cdc_lookup_t *lk, const cdc_value_t *keys, int max_retries, cdc_batch_t *out,
                     cdc_error_t **err);

/** Milliseconds slept before retry number `attempt` (1-based): 1000 * attempt, at most 10000. */
int64_t cdc_lookup_backoff_ms(int attempt);

#endif
