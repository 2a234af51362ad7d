/*
 * cdc_state.h — keyed state of the stateful operators (GroupAggregate, Join,
 * Rank): byte keys in numbered namespaces (one per operator and use) mapped
 * to byte values, kept in an embedded RocksDB under the job's state
 * directory, so state is bounded by disk, not memory.
 *
 * Changes since the last commit live in an in-memory overlay (with a read
 * cache of clean entries, bounded by the memory budget); RocksDB always holds
 * exactly the last committed checkpoint. cdc_state_commit writes the overlay
 * and a meta blob (the sources' positions) in one atomic, durable table file,
 * so after a crash the store reopens at the last commit with the positions
 * that belong to it. Not thread-safe: the runtime calls it under the job's
 * operator lock.
 */
#ifndef CDC_STATE_H
#define CDC_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cdc_error.h"

typedef struct cdc_state_s cdc_state_t;

typedef struct cdc_state_options {
    const char *dir;     /* RocksDB directory (created); NULL: in memory only, nothing durable */
    size_t memory_bytes; /* overlay + read cache + RocksDB block cache and memtables; 0: 32 MiB */
    int64_t ttl_ms;      /* table.exec.state.ttl: entries not written for this long are gone
                            (expired on read, dropped by compaction); 0 = kept forever */
    bool fresh;          /* discard whatever the directory holds (a job whose sources cannot
                            resume from stored positions starts from empty state) */
} cdc_state_options_t;

/** Opens (creates) the store. 0 and *out, or -1 and *err naming the directory and the reason. */
int cdc_state_open(const cdc_state_options_t *opt, cdc_state_t **out, cdc_error_t **err);

void cdc_state_close(cdc_state_t *st); /* discards uncommitted changes; NULL is accepted */

/**
 * Looks up (ns, key). Returns 1 with *val and *vlen (valid until the next call on the store),
 * 0 when absent (or expired), -1 with *err on an I/O error.
 */
int cdc_state_get(cdc_state_t *st, uint32_t ns, const void *key, size_t klen, const void **val,
                  size_t *vlen, cdc_error_t **err);

/** The hash of (ns, key) that cdc_state_prefetch takes. */
uint64_t cdc_state_hash(uint32_t ns, const void *key, size_t klen);

/**
 * Hints that the entry of @p hash is looked up soon, so that its bytes are in the CPU's cache by
 * then (an overlay lookup was mostly two cache misses: the slot, then the entry). Stage 0 loads
 * the slot; stage 1, a few rows later, the entry that slot points at. Changes nothing.
 */
void cdc_state_prefetch(const cdc_state_t *st, uint64_t hash, int stage);

/**
 * Tells the store that @p hash is cdc_state_hash(ns, key, klen) (the caller hashed the key to
 * prefetch it), so that the next get, put or delete of that key does not hash it again.
 */
void cdc_state_hint(cdc_state_t *st, uint32_t ns, const void *key, size_t klen, uint64_t hash);

/** Sets (ns, key) to the value (copied). 0, or -1 with *err. */
int cdc_state_put(cdc_state_t *st, uint32_t ns, const void *key, size_t klen, const void *val,
                  size_t vlen, cdc_error_t **err);

/** Removes (ns, key); absent keys are fine. 0, or -1 with *err. */
int cdc_state_del(cdc_state_t *st, uint32_t ns, const void *key, size_t klen, cdc_error_t **err);

/**
 * Makes every change since the last commit durable together with @p meta (replacing the last
 * meta), in one atomic synced write. 0, or -1 with *err (the store is then unusable).
 */
int cdc_state_commit(cdc_state_t *st, const void *meta, size_t mlen, cdc_error_t **err);

/** The last commit's meta (any run): 1 with *meta, *mlen (valid until the next commit), or 0. */
int cdc_state_meta(cdc_state_t *st, const void **meta, size_t *mlen);

/**
 * Reads the wall clock once for what follows: the write time of the next puts and deletions
 * (the TTL's) and the "now" their expiry is judged by, until the next tick. Callers that work
 * in batches tick once per batch; without any tick every call reads the clock.
 */
void cdc_state_tick(cdc_state_t *st);

/** Whether the uncommitted changes have outgrown their share of the memory budget (commit soon). */
bool cdc_state_wants_commit(const cdc_state_t *st);

typedef struct cdc_state_stats {
    uint64_t keys_estimate; /* RocksDB's estimate of live keys, plus uncommitted new ones */
    uint64_t disk_bytes;    /* size of the store's files (SST + WAL) */
    uint64_t memory_bytes;  /* overlay + cache + RocksDB's own use, as far as it reports */
    uint64_t commits;       /* commits by this process */
    int64_t last_commit_us; /* how long the last commit took */
    uint64_t expired;       /* entries found expired on read */
} cdc_state_stats_t;

void cdc_state_stats(const cdc_state_t *st, cdc_state_stats_t *out);

/**
 * Compacts the whole store now, which drops the entries past their TTL from disk (compaction
 * does so anyway, in its own time). For maintenance and tests; uncommitted changes are untouched.
 */
void cdc_state_compact(cdc_state_t *st);

#endif
