/*
 * cdc_state.c — the keyed state store of the stateful operators
 * (cdc_state.h): an in-memory overlay over an embedded RocksDB.
 *
 * RocksDB keys are a 4-byte big-endian namespace then the key bytes; values
 * are the wall-clock write time (8 bytes, big-endian milliseconds, for the
 * TTL) then the value. The meta blob lives under META_KEY, shorter than 4
 * bytes and so outside every namespace.
 *
 * The overlay is an open-addressing hash table (linear probing, tombstones,
 * as src/exec/cdc_normalize.c) of 16-byte slots pointing at blocks laid out
 * as RocksDB stores them, [ns][key][time][value] after the sizes; without a
 * TTL the time is left out of the overlay (8 bytes an entry) and a commit
 * writes its own. An entry is dirty (changed since the last commit: a value
 * or a deletion) or clean (a read cache of RocksDB, including "known
 * absent"). Clean entries are evicted by a clock sweep when the overlay
 * outgrows its share of the memory budget; dirty ones never are, and
 * cdc_state_wants_commit turns true when they outgrow theirs. Entry bytes
 * come from size-class free lists carved out of large chunks, so a steady
 * state of gets and puts allocates nothing.
 *
 * A commit writes the dirty entries, in key order, and the meta into one
 * table file that RocksDB takes in whole (IngestExternalFile): atomic and
 * durable as a synced write batch, without the batch's copy of the entries,
 * the WAL, the memtable (its skip list inserts were half of a commit's time in
 * bench/stateful.sh's join) and the flush that wrote them once more.
 *
 * The budget is split: five eighths for the overlay, of which half the budget
 * may be dirty (dirty entries are overlay entries: a larger share costs no
 * memory but the commit's sort arrays, 32 bytes an entry, and leaves less of
 * the overlay to the read cache until the commit, which the operators hardly
 * miss: a join or an aggregate writes every entry it reads; it makes commits
 * fewer and each one's changes fewer, as a key changed twice is written once:
 * bench/stateful.sh's join committed 194 times with a 32nd, 46 with an eighth,
 * 7 with half), a 32nd for RocksDB's block cache (its index and
 * filter partitions, then data blocks: a 4 KiB block per point lookup caches
 * far fewer entries per byte than the overlay, and the page cache, outside the
 * process, holds the files anyway), a 32nd for each of the two memtables
 * (empty: commits bypass them);
 * the rest is left for what RocksDB does not report (a compaction's buffers,
 * the table readers, its code: 9 MB of its library is resident in a join).
 * Without a directory everything stays in the overlay: nothing is evicted and
 * a commit only keeps the meta.
 */
#include "cdc_state.h"

#include <dirent.h>
#include <errno.h>
#include <rocksdb/c.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cdc_arena.h"
#include "cdc_util.h"

#define META_KEY "M" /* shorter than a namespace: outside all of them */
#define NS_BYTES 4
#define TIME_BYTES 8
#define DEFAULT_BUDGET ((size_t)32 << 20)
#define EVICT_STEPS 512 /* slots a put's eviction visits at most */

/* ---- entry bytes: size classes over large chunks --------------------------------------------- */

/* Steps of 16 bytes up to 256 (where most entries are: a block's rounding was a fifth of the
   overlay with steps of half a class), then of a quarter of a power of two. */
static const uint32_t class_size[] = {
    32,    48,    64,    80,    96,    112,   128,   144,   160,   176,   192,  208,
    224,   240,   256,   320,   384,   448,   512,   640,   768,   896,   1024, 1280,
    1536,  1792,  2048,  2560,  3072,  3584,  4096,  5120,  6144,  7168,  8192, 10240,
    12288, 14336, 16384, 20480, 24576, 28672, 32768, 40960, 49152, 57344, 65536};
#define NCLASSES (sizeof(class_size) / sizeof(class_size[0]))
#define SMALL_CLASSES 15 /* 32..256 */

/* The class of a block of n bytes (NCLASSES: above the largest). */
static size_t class_of(size_t n)
{
    if (n <= 256)
        return n <= 32 ? 0 : (n + 15) / 16 - 2;
    size_t c = SMALL_CLASSES;
    while (c < NCLASSES && class_size[c] < n)
        c++;
    return c;
}
#define CHUNK_BYTES ((size_t)256 << 10)

typedef struct slab_free {
    struct slab_free *next;
} slab_free_t;

typedef struct slab {
    slab_free_t *free[NCLASSES];
    unsigned char **chunks; /* every chunk, freed at close */
    size_t nchunks, chunks_cap;
    unsigned char *cur; /* the chunk being carved */
    size_t cur_used;
    size_t big_bytes; /* blocks above the largest class: malloc'ed one by one */
} slab_t;

/* A block of at least n bytes; *cap is its size (the class's, or n). */
static unsigned char *slab_alloc(slab_t *sl, size_t n, size_t *cap)
{
    size_t c = class_of(n);
    if (c == NCLASSES) {
        sl->big_bytes += n;
        *cap = n;
        return cdc_xmalloc(n);
    }
    *cap = class_size[c];
    if (sl->free[c]) {
        slab_free_t *f = sl->free[c];
        sl->free[c] = f->next;
        return (unsigned char *)f;
    }
    if (!sl->cur || sl->cur_used + class_size[c] > CHUNK_BYTES) {
        if (sl->nchunks == sl->chunks_cap) {
            sl->chunks_cap = sl->chunks_cap ? sl->chunks_cap * 2 : 16;
            sl->chunks = cdc_xrealloc(sl->chunks, sl->chunks_cap * sizeof(*sl->chunks));
        }
        sl->cur = cdc_xmalloc(CHUNK_BYTES);
        sl->chunks[sl->nchunks++] = sl->cur;
        sl->cur_used = 0;
    }
    unsigned char *p = sl->cur + sl->cur_used;
    sl->cur_used += class_size[c];
    return p;
}

static void slab_release(slab_t *sl, unsigned char *p, size_t cap)
{
    if (cap > class_size[NCLASSES - 1]) {
        sl->big_bytes -= cap;
        free(p);
        return;
    }
    size_t c = class_of(cap);
    slab_free_t *f = (slab_free_t *)p;
    f->next = sl->free[c];
    sl->free[c] = f;
}

static void slab_destroy(slab_t *sl)
{
    for (size_t i = 0; i < sl->nchunks; i++)
        free(sl->chunks[i]);
    free(sl->chunks);
}

/* ---- the overlay ------------------------------------------------------------------------------
 */

#define E_DIRTY 0x01  /* changed since the last commit */
#define E_ABSENT 0x02 /* a deletion (dirty) or known absent (clean) */
#define E_REF 0x04    /* used since the clock hand passed */

/* An entry's block: its sizes, then the bytes as RocksDB stores them. */
typedef struct st_block {
    uint32_t cap;          /* the block's size */
    uint32_t klen;         /* namespace + key */
    uint32_t vlen;         /* value (the time not counted) */
    unsigned char bytes[]; /* [ns][key][time][value] */
} st_block_t;

/* 16 bytes: the slot array, at most 13/16 full and at least 1/3 after a rebuild, cost more per
   entry than most entries' bytes when the sizes lived here too (32 bytes a slot: 16 of the
   overlay's 20 MiB in bench/stateful.sh's join); the hash and the flags stay, so a probe and
   the clock's sweep read no block. */
typedef struct st_entry {
    st_block_t *blk; /* NULL: empty slot; TOMB: removed */
    uint32_t hash;   /* the low half of the key's hash (the table is smaller than 2^32) */
    uint8_t flags;
} st_entry_t;

static st_block_t tomb_mark;

/* A commit's dirty entry: its key's first 8 bytes (big-endian, zero-padded) and its block, so
   the sort and the file's writing follow one pointer, not two (the slot, then the block: the
   misses of that chase were most of a commit's own time), and the block's address can be
   prefetched a few entries ahead. The block's address has its low bit set for a deletion
   (blocks are 16-byte aligned). */
typedef struct st_sorted {
    uint64_t prefix;
    uintptr_t blk;
} st_sorted_t;
#define SORTED_BLK(o) ((const st_block_t *)((o)->blk & ~(uintptr_t)1))
#define SORTED_ABSENT(o) (((o)->blk & 1) != 0)

#define TOMB (&tomb_mark)
#define LIVE(e) ((e)->blk && (e)->blk != TOMB)

struct cdc_state_s {
    char *dir; /* NULL: memory only */
    int64_t ttl_ms;
    size_t tlen;     /* bytes of the write time in the overlay's entries: TIME_BYTES with a TTL */
    int64_t tick_ms; /* the wall clock read by cdc_state_tick; 0: read it on each use */
    size_t budget, overlay_limit, dirty_limit;

    st_entry_t *slots;
    size_t cap, used, live; /* used counts tombstones too */
    size_t hand;            /* the clock's */
    slab_t slab;
    size_t overlay_bytes; /* blocks of live entries + the slot array */
    size_t dirty_bytes;
    uint32_t *dirty; /* slot indexes of the dirty entries */
    size_t ndirty, dirty_cap;
    struct st_sorted *order;     /* a commit's dirty entries in key order (dirty_cap of them) */
    struct st_sorted *order_tmp; /* the radix sort's other half (dirty_cap) */
    uint64_t dirty_new;          /* dirty values over keys not known to exist (for keys_estimate) */

    cdc_buf_t probe; /* [ns][key] of the current call */
    uint64_t probe_hash;
    uint32_t probe_ns;
    cdc_buf_t meta;
    bool has_meta;
    bool broken; /* a commit failed: RocksDB may hold it or not */

    rocksdb_t *db;
    rocksdb_options_t *opts;
    rocksdb_block_based_table_options_t *table_opts;
    rocksdb_cache_t *cache;
    rocksdb_filterpolicy_t *bloom; /* owned by table_opts once set */
    rocksdb_compactionfilter_t *ttl_filter;
    rocksdb_readoptions_t *ropts;
    rocksdb_envoptions_t *envopts;
    rocksdb_ingestexternalfileoptions_t *ingest_opts;
    rocksdb_options_t *sst_opts; /* the options, the commit's file uncompressed */
    char *sst_path;              /* a commit's file, before RocksDB links it in */
    cdc_buf_t sst_val;           /* a value with the commit's write time in front */

    cdc_state_stats_t stats;
};

static void put_be(unsigned char *p, uint64_t v, int n)
{
    for (int i = n - 1; i >= 0; i--, v >>= 8)
        p[i] = (unsigned char)v;
}

static uint64_t get_be(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

static size_t entry_footprint(const st_entry_t *e)
{
    return e->blk->cap + sizeof(st_entry_t);
}

/* The write time of entries (and "now" of expiry): the clock of the last cdc_state_tick, or the
   wall clock's when none was read (a clock_gettime per put was 5% of a GROUP BY). */
static int64_t now_ms(const cdc_state_t *st)
{
    return st->tick_ms ? st->tick_ms : cdc_wall_ms();
}

static bool expired(const cdc_state_t *st, const unsigned char *time_bytes)
{
    return st->ttl_ms > 0 && now_ms(st) - (int64_t)get_be(time_bytes, TIME_BYTES) >= st->ttl_ms;
}

/* Slot of probe (hash h), or SIZE_MAX. */
static size_t table_find(const cdc_state_t *st, uint64_t h)
{
    if (!st->cap)
        return SIZE_MAX;
    const void *k = st->probe.data;
    size_t klen = st->probe.len;
    for (size_t j = h & (st->cap - 1);; j = (j + 1) & (st->cap - 1)) {
        const st_entry_t *e = &st->slots[j];
        if (!e->blk)
            return SIZE_MAX;
        if (e->blk != TOMB && e->hash == (uint32_t)h && e->blk->klen == klen &&
            memcmp(e->blk->bytes, k, klen) == 0)
            return j;
    }
}

/* Grows (or cleans the tombstones of) the table so one more entry fits; rebuilds the dirty list.
   Rebuilt at 13/16 full (tombstones included) to at most 11/16 live: a table of 2^k slots then
   holds up to 0.69 * 2^k entries, not half (bench/stateful.sh's 200,000 join keys fit 2^18
   slots, 4 MiB, not 2^19), for a rebuild every 2^k / 8 insertions. */
static void table_make_room(cdc_state_t *st)
{
    if ((st->used + 1) * 16 < st->cap * 13)
        return;
    size_t ncap = 1024;
    while ((st->live + 1) * 16 > ncap * 11)
        ncap *= 2;
    st_entry_t *old = st->slots;
    size_t ocap = st->cap;
    st->slots = cdc_xcalloc(ncap, sizeof(*st->slots));
    st->cap = ncap;
    st->used = st->live;
    st->hand = 0;
    st->ndirty = 0;
    for (size_t i = 0; i < ocap; i++) {
        if (!LIVE(&old[i]))
            continue;
        size_t j = old[i].hash & (ncap - 1);
        while (st->slots[j].blk)
            j = (j + 1) & (ncap - 1);
        st->slots[j] = old[i];
        if (old[i].flags & E_DIRTY)
            st->dirty[st->ndirty++] = (uint32_t)j;
    }
    free(old);
    st->overlay_bytes += (ncap - ocap) * sizeof(st_entry_t);
}

static void entry_remove(cdc_state_t *st, st_entry_t *e)
{
    st->overlay_bytes -= e->blk->cap;
    slab_release(&st->slab, (unsigned char *)e->blk, e->blk->cap);
    e->blk = TOMB;
    st->live--;
}

/* Evicts clean entries but keep (clock: a used one gets a second chance) until the overlay is
   below 7/8 of its share; dirty entries stay. At most @p max_steps slots are visited: a put
   visits a few hundred, so when what is over the share cannot be evicted (dirty entries, the
   slot array) a put does not sweep the whole table in vain each time (it did, for minutes); the
   overshoot is then bounded by the dirty share, and a commit sweeps the table. Only with a
   directory: without one, the overlay is all there is. Removing entries moves no other entry. */
static void overlay_evict(cdc_state_t *st, const st_entry_t *keep, size_t max_steps)
{
    if (!st->db || st->overlay_bytes <= st->overlay_limit)
        return;
    size_t target = st->overlay_limit / 8 * 7;
    if (max_steps > 2 * st->cap)
        max_steps = 2 * st->cap;
    for (size_t steps = 0; steps < max_steps && st->overlay_bytes > target; steps++) {
        st_entry_t *e = &st->slots[st->hand];
        st->hand = (st->hand + 1) & (st->cap - 1);
        if (!LIVE(e) || (e->flags & E_DIRTY) || e == keep)
            continue;
        if (e->flags & E_REF)
            e->flags &= (uint8_t)~E_REF;
        else
            entry_remove(st, e);
    }
}

/* Sets the probe's entry (found or new) to a value (NULL: absent) with flags, then evicts what
   the overlay has outgrown, this entry aside; returns it. The value is copied before anything is
   evicted, so it may point into an entry (a put of what a get just returned). */
static st_entry_t *entry_set(cdc_state_t *st, uint64_t h, const void *val, size_t vlen,
                             int64_t wtime, uint8_t flags)
{
    size_t j = table_find(st, h);
    st_entry_t *e;
    size_t need = sizeof(st_block_t) + st->probe.len + st->tlen + vlen;
    bool absent = val == NULL;
    if (j == SIZE_MAX) {
        table_make_room(st);
        j = h & (st->cap - 1);
        while (LIVE(&st->slots[j]))
            j = (j + 1) & (st->cap - 1);
        e = &st->slots[j];
        if (!e->blk)
            st->used++;
        st->live++;
        size_t ecap;
        e->blk = (st_block_t *)slab_alloc(&st->slab, need, &ecap);
        e->blk->cap = (uint32_t)ecap;
        st->overlay_bytes += ecap;
        e->hash = (uint32_t)h;
        e->blk->klen = (uint32_t)st->probe.len;
        memcpy(e->blk->bytes, st->probe.data, st->probe.len);
        e->flags = 0;
        if (flags & E_DIRTY)
            st->dirty_new += val != NULL;
    } else {
        e = &st->slots[j];
        if ((flags & E_DIRTY) && val && (e->flags & E_ABSENT))
            st->dirty_new++;
        if (e->flags & E_DIRTY)
            st->dirty_bytes -= entry_footprint(e);
        if (e->blk->cap < need) {
            size_t ncap;
            st_block_t *nb = (st_block_t *)slab_alloc(&st->slab, need, &ncap);
            nb->cap = (uint32_t)ncap;
            nb->klen = e->blk->klen;
            memcpy(nb->bytes, e->blk->bytes, e->blk->klen);
            if (val && vlen)
                memcpy(nb->bytes + nb->klen + st->tlen, val, vlen); /* val may be in the old */
            st->overlay_bytes += ncap - e->blk->cap;
            slab_release(&st->slab, (unsigned char *)e->blk, e->blk->cap);
            val = NULL; /* copied */
            e->blk = nb;
        }
    }
    if ((flags & E_DIRTY) && !(e->flags & E_DIRTY)) {
        if (st->ndirty == st->dirty_cap) {
            st->dirty_cap = st->dirty_cap ? st->dirty_cap * 2 : 1024;
            st->dirty = cdc_xrealloc(st->dirty, st->dirty_cap * sizeof(*st->dirty));
            st->order = cdc_xrealloc(st->order, st->dirty_cap * sizeof(*st->order));
            st->order_tmp = cdc_xrealloc(st->order_tmp, st->dirty_cap * sizeof(*st->order));
        }
        st->dirty[st->ndirty++] = (uint32_t)j;
    }
    if (st->tlen)
        put_be(e->blk->bytes + e->blk->klen, (uint64_t)wtime, TIME_BYTES);
    if (val && vlen)
        memmove(e->blk->bytes + e->blk->klen + st->tlen, val, vlen); /* may be this value */
    e->blk->vlen = (uint32_t)vlen;
    e->flags = (uint8_t)(flags | E_REF | (absent ? E_ABSENT : 0));
    if (flags & E_DIRTY)
        st->dirty_bytes += entry_footprint(e);
    overlay_evict(st, e, EVICT_STEPS);
    return e;
}

/* ---- errors ------------------------------------------------------------------------------------
 */

/* An I/O error naming the directory and RocksDB's message (freed here). */
static int rocks_error(cdc_error_t **err, const char *dir, const char *what, char *rocks_msg)
{
    cdc_error_t *e;
    if (rocks_msg && (strcasestr(rocks_msg, "lock file") || strstr(rocks_msg, "/LOCK"))) {
        e = cdc_error_new(CDC_ERR_IO, "state directory \"%s\" is in use by another process", dir);
        cdc_error_set_hint(e, "Stop the other job that uses it, or give this job a state "
                              "directory of its own (--state-dir).");
    } else {
        e = cdc_error_new(CDC_ERR_IO, "cannot %s state directory \"%s\"", what, dir);
        cdc_error_set_hint(e, "Check that the directory is on a writable file system with free "
                              "space; if its contents are damaged, remove it to start from "
                              "empty state (the sources then start over too).");
    }
    if (rocks_msg)
        cdc_error_set_detail(e, "RocksDB: %s", rocks_msg);
    rocksdb_free(rocks_msg);
    if (err)
        *err = e;
    else
        cdc_error_destroy(e);
    return -1;
}

static int broken_error(const cdc_state_t *st, cdc_error_t **err)
{
    cdc_error_set(err, CDC_ERR_INTERNAL, "state store \"%s\" is unusable after a failed commit",
                  st->dir ? st->dir : "(memory)");
    if (err && *err)
        cdc_error_set_hint(*err, "Restart the job: it resumes from the last successful commit.");
    return -1;
}

/* ---- open and close ------------------------------------------------------------------------ */

static unsigned char ttl_filter(void *state, int level, const char *key, size_t klen,
                                const char *val, size_t vlen, char **nval, size_t *nvlen,
                                unsigned char *changed)
{
    (void)level, (void)key, (void)nval, (void)nvlen, (void)changed;
    const cdc_state_t *st = state;
    if (klen < NS_BYTES || vlen < TIME_BYTES)
        return 0; /* the meta, or a value this version did not write: kept */
    /* RocksDB's thread: its own clock, not the store's tick */
    return cdc_wall_ms() - (int64_t)get_be((const unsigned char *)val, TIME_BYTES) >= st->ttl_ms;
}

static void ttl_filter_destroy(void *state)
{
    (void)state; /* the filter's state is the store itself */
}

static const char *ttl_filter_name(void *state)
{
    (void)state;
    return "cdcflow.ttl";
}

static int mkdirs(const char *dir, cdc_error_t **err)
{
    char *path = cdc_strdup_printf("%s", dir);
    int rc = 0;
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p)
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(path, 0755) < 0 && errno != EEXIST) {
            cdc_error_set(err, CDC_ERR_IO, "cannot create state directory \"%s\": %s", path,
                          strerror(errno));
            rc = -1;
            break;
        }
        *p = c;
        if (!c)
            break;
    }
    free(path);
    return rc;
}

static void configure(cdc_state_t *st)
{
    st->opts = rocksdb_options_create();
    rocksdb_options_set_create_if_missing(st->opts, 1);
    /* Commits ingest table files (write_sst): nothing goes through the memtable, which stays
       empty and small (a Get's search of it costs nothing, no bloom filter needed). */
    rocksdb_options_set_write_buffer_size(st->opts, st->budget / 32);
    rocksdb_options_set_max_write_buffer_number(st->opts, 2);
    /* Each commit adds a file to L0; merging them into L1 at 8, not 4, halves the compactions
       (each rewrites L1: a third of bench/stateful.sh's join's CPU time was compaction, on a
       machine of two cores), and a Get checks L0's few more files by their pinned filters. */
    rocksdb_options_set_level0_file_num_compaction_trigger(st->opts, 8);
    rocksdb_options_set_max_open_files(st->opts, 256);
    rocksdb_options_set_max_background_jobs(st->opts, 2);
    /* No compression where reads land (L0, L1: all of a state that fits the defaults' 256 MiB
       base level): LZ4 cost 5-11% of a join reading its state back (bench/stateful.sh), and
       the page cache, not RSS, holds those files. Deeper levels, cold and large, keep LZ4. */
    int levels[7] = {rocksdb_no_compression,  rocksdb_no_compression,  rocksdb_lz4_compression,
                     rocksdb_lz4_compression, rocksdb_lz4_compression, rocksdb_lz4_compression,
                     rocksdb_lz4_compression};
    rocksdb_options_set_num_levels(st->opts, 7);
    rocksdb_options_set_compression_per_level(st->opts, levels, 7);
    rocksdb_options_set_info_log_level(st->opts, 2 /* WARN */);
    rocksdb_options_set_keep_log_file_num(st->opts, 2);
    /* One shard: the store has one user at a time (the job's operator lock), and the default
       sharding (16 of 512 KiB at 8 MiB) cannot hold a filter block of a few hundred KiB, which
       was then read and checksummed again on almost every Get (a third of the join's time). */
    rocksdb_lru_cache_options_t *co = rocksdb_lru_cache_options_create();
    rocksdb_lru_cache_options_set_capacity(co, st->budget / 32);
    rocksdb_lru_cache_options_set_num_shard_bits(co, 0);
    st->cache = rocksdb_cache_create_lru_opts(co);
    rocksdb_lru_cache_options_destroy(co);
    st->table_opts = rocksdb_block_based_options_create();
    rocksdb_block_based_options_set_block_cache(st->table_opts, st->cache);
    /* Index and filter blocks count against the cache's budget, but at high priority and, for
       L0 (where a state that is rewritten every checkpoint mostly lives), pinned: a Get of state
       not in the overlay otherwise re-read and re-checksummed evicted filter blocks (half its
       time in bench/stateful.sh's join). */
    rocksdb_block_based_options_set_cache_index_and_filter_blocks(st->table_opts, 1);
    rocksdb_block_based_options_set_cache_index_and_filter_blocks_with_high_priority(st->table_opts,
                                                                                     1);
    rocksdb_block_based_options_set_pin_l0_filter_and_index_blocks_in_cache(st->table_opts, 1);
    /* Filters and indexes in partitions of 4 KiB under a small top level (pinned): a state
       larger than the overlay has files whose whole filter (10 bits a key: 2.5 MB for the 1M
       keys of `bench/stateful.sh 1000000 1000000`'s join) outgrows the cache, and each Get read
       and checksummed it again from the file (100 s for that join); a Get now reads a
       partition. */
    rocksdb_block_based_options_set_index_type(
        st->table_opts, rocksdb_block_based_table_index_type_two_level_index_search);
    rocksdb_block_based_options_set_partition_filters(st->table_opts, 1);
    rocksdb_block_based_options_set_metadata_block_size(st->table_opts, 4096);
    rocksdb_block_based_options_set_pin_top_level_index_and_filter(st->table_opts, 1);
    st->bloom = rocksdb_filterpolicy_create_bloom_full(10);
    rocksdb_block_based_options_set_filter_policy(st->table_opts, st->bloom);
    rocksdb_options_set_block_based_table_factory(st->opts, st->table_opts);
    if (st->ttl_ms > 0) {
        st->ttl_filter =
            rocksdb_compactionfilter_create(st, ttl_filter_destroy, ttl_filter, ttl_filter_name);
        rocksdb_options_set_compaction_filter(st->opts, st->ttl_filter);
    }
    st->ropts = rocksdb_readoptions_create();
    st->envopts = rocksdb_envoptions_create();
    st->ingest_opts = rocksdb_ingestexternalfileoptions_create();
    rocksdb_ingestexternalfileoptions_set_move_files(st->ingest_opts, 1);
    /* a commit's file as L0 holds it: uncompressed (LZ4 was a tenth of the commit's time) */
    st->sst_opts = rocksdb_options_create_copy(st->opts);
    int none[7] = {0}; /* rocksdb_no_compression: the writer takes the last level's */
    rocksdb_options_set_compression_per_level(st->sst_opts, none, 7);
    rocksdb_options_set_compression(st->sst_opts, rocksdb_no_compression);
    st->sst_path = cdc_strdup_printf("%s/commit.sst.tmp", st->dir);
}

static int open_db(cdc_state_t *st, bool fresh, cdc_error_t **err)
{
    if (mkdirs(st->dir, err) < 0)
        return -1;
    configure(st);
    unlink(st->sst_path); /* a commit's file that a crash left before RocksDB took it */
    char *msg = NULL;
    if (fresh) {
        rocksdb_destroy_db(st->opts, st->dir, &msg);
        if (msg)
            return rocks_error(err, st->dir, "empty", msg);
    }
    st->db = rocksdb_open(st->opts, st->dir, &msg);
    if (msg)
        return rocks_error(err, st->dir, "open", msg);
    size_t mlen = 0;
    char *meta = rocksdb_get(st->db, st->ropts, META_KEY, strlen(META_KEY), &mlen, &msg);
    if (msg)
        return rocks_error(err, st->dir, "read the meta of", msg);
    if (meta) {
        cdc_buf_append(&st->meta, meta, mlen);
        st->has_meta = true;
        rocksdb_free(meta);
    }
    return 0;
}

int cdc_state_open(const cdc_state_options_t *opt, cdc_state_t **out, cdc_error_t **err)
{
    cdc_state_t *st = cdc_xcalloc(1, sizeof(*st));
    st->ttl_ms = opt->ttl_ms > 0 ? opt->ttl_ms : 0;
    st->tlen = st->ttl_ms ? TIME_BYTES : 0;
    st->budget = opt->memory_bytes ? opt->memory_bytes : DEFAULT_BUDGET;
    st->overlay_limit = st->budget / 8 * 5;
    st->dirty_limit = st->budget / 2;
    if (opt->dir) {
        st->dir = cdc_strdup_printf("%s", opt->dir);
        if (open_db(st, opt->fresh, err) < 0) {
            cdc_state_close(st);
            return -1;
        }
    }
    *out = st;
    return 0;
}

void cdc_state_close(cdc_state_t *st)
{
    if (!st)
        return;
    if (st->db)
        rocksdb_close(st->db);
    if (st->ropts)
        rocksdb_readoptions_destroy(st->ropts);
    if (st->envopts)
        rocksdb_envoptions_destroy(st->envopts);
    if (st->sst_opts)
        rocksdb_options_destroy(st->sst_opts);
    if (st->ingest_opts)
        rocksdb_ingestexternalfileoptions_destroy(st->ingest_opts);
    free(st->sst_path);
    cdc_buf_free(&st->sst_val);
    if (st->opts)
        rocksdb_options_destroy(st->opts);
    if (st->table_opts)
        rocksdb_block_based_options_destroy(st->table_opts); /* and the bloom policy */
    if (st->cache)
        rocksdb_cache_destroy(st->cache);
    if (st->ttl_filter)
        rocksdb_compactionfilter_destroy(st->ttl_filter);
    for (size_t i = 0; i < st->cap; i++)
        if (LIVE(&st->slots[i]) && st->slots[i].blk->cap > class_size[NCLASSES - 1])
            free(st->slots[i].blk);
    slab_destroy(&st->slab);
    free(st->slots);
    free(st->dirty);
    free(st->order);
    free(st->order_tmp);
    cdc_buf_free(&st->probe);
    cdc_buf_free(&st->meta);
    free(st->dir);
    free(st);
}

/* ---- get, put, del ----------------------------------------------------------------------------
 */

/* The overlay's hash of (ns, key): eight bytes a step (FNV-1a's byte a step was a twentieth of
   bench/stateful.sh's GROUP BY), the last bytes read in place (no copy of [ns][key] to hash), then
   a mix of all bits into the low ones, which pick the slot. */
static uint64_t st_hash(uint32_t ns, const unsigned char *p, size_t n)
{
    uint64_t h = (0x9e3779b97f4a7c15ull ^ n) + ns * 0xff51afd7ed558ccdull, v;
    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&v, p, 8);
        h = (h ^ v) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    if (n >= 4) { /* two loads that overlap cover the 4-7 bytes */
        uint32_t lo, hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + n - 4, 4);
        v = (uint64_t)hi << 32 | lo;
    } else {
        v = n ? (uint64_t)p[0] | (uint64_t)p[n / 2] << 8 | (uint64_t)p[n - 1] << 16 : 0;
    }
    h = (h ^ v) * 0x94d049bb133111ebull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 32);
}

/* Sets the probe to [ns][key] with its hash (*hash when known, else computed). */
static void probe_to(cdc_state_t *st, uint32_t ns, const void *key, size_t klen,
                     const uint64_t *hash)
{
    unsigned char nsb[NS_BYTES];
    put_be(nsb, ns, NS_BYTES);
    cdc_buf_clear(&st->probe);
    cdc_buf_append(&st->probe, nsb, NS_BYTES);
    cdc_buf_append(&st->probe, key, klen);
    st->probe_ns = ns;
    st->probe_hash = hash ? *hash : st_hash(ns, key, klen);
}

/* Sets the probe to [ns][key] and returns its hash; a call with the probe's own key (a put after
   the get of the same key, the usual update; a get after cdc_state_hint) reuses the hash. */
static uint64_t set_probe(cdc_state_t *st, uint32_t ns, const void *key, size_t klen)
{
    if (st->probe.len == NS_BYTES + klen && st->probe_ns == ns &&
        (klen == 0 || memcmp(st->probe.data + NS_BYTES, key, klen) == 0))
        return st->probe_hash; /* (a key of no bytes may be NULL) */
    probe_to(st, ns, key, klen, NULL);
    return st->probe_hash;
}

void cdc_state_hint(cdc_state_t *st, uint32_t ns, const void *key, size_t klen, uint64_t hash)
{
    probe_to(st, ns, key, klen, &hash);
}

uint64_t cdc_state_hash(uint32_t ns, const void *key, size_t klen)
{
    return st_hash(ns, key, klen);
}

void cdc_state_prefetch(const cdc_state_t *st, uint64_t hash, int stage)
{
    if (!st->cap)
        return;
    const st_entry_t *e = &st->slots[hash & (st->cap - 1)];
    if (stage == 0) {
        __builtin_prefetch(e);
        return;
    }
    for (int i = 0; i < 2 && e->blk; i++) { /* the first slots of its probe sequence */
        if (e->blk != TOMB && e->hash == (uint32_t)hash) {
            __builtin_prefetch(e->blk);
            __builtin_prefetch((const char *)e->blk + 64);
            return;
        }
        e = &st->slots[(hash + (uint64_t)i + 1) & (st->cap - 1)];
    }
}

static int too_big(const cdc_state_t *st, size_t klen, size_t vlen, cdc_error_t **err)
{
    if (klen + vlen < UINT32_MAX - 64)
        return 0;
    return cdc_error_set(err, CDC_ERR_INTERNAL,
                         "state entry of %zu bytes is too large for state store \"%s\"",
                         klen + vlen, st->dir ? st->dir : "(memory)");
}

int cdc_state_get(cdc_state_t *st, uint32_t ns, const void *key, size_t klen, const void **val,
                  size_t *vlen, cdc_error_t **err)
{
    if (st->broken)
        return broken_error(st, err);
    uint64_t h = set_probe(st, ns, key, klen);
    size_t j = table_find(st, h);
    const st_entry_t *e;
    if (j != SIZE_MAX) {
        st_entry_t *f = &st->slots[j];
        f->flags |= E_REF;
        if (f->flags & E_ABSENT)
            return 0;
        if (expired(st, f->blk->bytes + f->blk->klen)) {
            st->stats.expired++;
            if (!(f->flags & E_DIRTY))
                f->flags |= E_ABSENT; /* RocksDB's copy is expired too */
            return 0;
        }
        e = f;
    } else {
        if (!st->db)
            return 0;
        char *msg = NULL;
        rocksdb_pinnableslice_t *ps =
            rocksdb_get_pinned(st->db, st->ropts, st->probe.data, st->probe.len, &msg);
        if (msg)
            return rocks_error(err, st->dir, "read from", msg);
        size_t n = 0;
        const unsigned char *p =
            ps ? (const unsigned char *)rocksdb_pinnableslice_value(ps, &n) : NULL;
        if (p && n < TIME_BYTES) {
            rocksdb_pinnableslice_destroy(ps);
            cdc_error_set(err, CDC_ERR_PARSE,
                          "state directory \"%s\" holds a value of %zu bytes in namespace %u",
                          st->dir, n, ns);
            if (err && *err)
                cdc_error_set_hint(*err, "The directory was written by another version or is "
                                         "damaged; remove it to start from empty state.");
            return -1;
        }
        if (p && expired(st, p)) {
            st->stats.expired++;
            p = NULL;
        }
        if (!p) {
            entry_set(st, h, NULL, 0, 0, 0); /* known absent */
            rocksdb_pinnableslice_destroy(ps);
            return 0;
        }
        e = entry_set(st, h, p + TIME_BYTES, n - TIME_BYTES, (int64_t)get_be(p, TIME_BYTES), 0);
        rocksdb_pinnableslice_destroy(ps);
    }
    *val = e->blk->bytes + e->blk->klen + st->tlen;
    *vlen = e->blk->vlen;
    return 1;
}

int cdc_state_put(cdc_state_t *st, uint32_t ns, const void *key, size_t klen, const void *val,
                  size_t vlen, cdc_error_t **err)
{
    if (st->broken)
        return broken_error(st, err);
    if (too_big(st, klen, vlen, err))
        return -1;
    uint64_t h = set_probe(st, ns, key, klen);
    entry_set(st, h, val ? val : "", vlen, now_ms(st), E_DIRTY);
    return 0;
}

int cdc_state_del(cdc_state_t *st, uint32_t ns, const void *key, size_t klen, cdc_error_t **err)
{
    if (st->broken)
        return broken_error(st, err);
    if (too_big(st, klen, 0, err))
        return -1;
    uint64_t h = set_probe(st, ns, key, klen);
    size_t j = table_find(st, h);
    if (j == SIZE_MAX ? !st->db : (st->slots[j].flags & (E_ABSENT | E_DIRTY)) == E_ABSENT)
        return 0; /* known absent and committed so */
    entry_set(st, h, NULL, 0, now_ms(st), E_DIRTY);
    return 0;
}

/* ---- commit -----------------------------------------------------------------------------------
 */

/* RocksDB's bytewise order of two entries' keys with the same 8-byte prefix. */
static int key_order(const st_sorted_t *p, const st_sorted_t *q)
{
    const st_block_t *x = SORTED_BLK(p), *y = SORTED_BLK(q);
    int c = memcmp(x->bytes, y->bytes, x->klen < y->klen ? x->klen : y->klen);
    return c ? c : (x->klen > y->klen) - (x->klen < y->klen);
}

/* Sorts st->order[0..n) into RocksDB's bytewise key order: a radix sort of the prefixes (a pass
   per byte that varies; glibc's qsort was a twentieth of bench/stateful.sh's join, and allocated
   its buffer each commit), then the runs of equal prefixes by the whole keys. */
static void sort_dirty(cdc_state_t *st, size_t n)
{
    size_t count[8][256] = {{0}};
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 8; b++)
            count[b][(st->order[i].prefix >> (8 * b)) & 0xff]++;
    for (int b = 0; b < 8; b++) {
        if (count[b][(st->order[0].prefix >> (8 * b)) & 0xff] == n)
            continue; /* all alike in this byte */
        size_t pos[256], sum = 0;
        for (int v = 0; v < 256; v++) {
            pos[v] = sum;
            sum += count[b][v];
        }
        for (size_t i = 0; i < n; i++)
            st->order_tmp[pos[(st->order[i].prefix >> (8 * b)) & 0xff]++] = st->order[i];
        st_sorted_t *t = st->order;
        st->order = st->order_tmp;
        st->order_tmp = t;
    }
    for (size_t i = 1; i < n; i++) { /* insertion sort within runs of one prefix (rare) */
        st_sorted_t o = st->order[i];
        size_t j = i;
        while (j > 0 && st->order[j - 1].prefix == o.prefix &&
               key_order(&st->order[j - 1], &o) > 0) {
            st->order[j] = st->order[j - 1];
            j--;
        }
        st->order[j] = o;
    }
}

/* Adds one dirty entry to the commit's file: a deletion, or [time][value]. */
static void sst_add(cdc_state_t *st, rocksdb_sstfilewriter_t *w, const st_sorted_t *o,
                    const unsigned char *now, char **msg)
{
    const st_block_t *b = SORTED_BLK(o);
    const char *key = (const char *)b->bytes, *v = key + b->klen;
    if (SORTED_ABSENT(o)) {
        rocksdb_sstfilewriter_delete(w, key, b->klen, msg);
    } else if (st->tlen) {
        rocksdb_sstfilewriter_put(w, key, b->klen, v, TIME_BYTES + (size_t)b->vlen, msg);
    } else {
        cdc_buf_clear(&st->sst_val);
        cdc_buf_append(&st->sst_val, now, TIME_BYTES);
        cdc_buf_append(&st->sst_val, v, b->vlen);
        rocksdb_sstfilewriter_put(w, key, b->klen, st->sst_val.data, st->sst_val.len, msg);
    }
}

/* Whether META_KEY sorts before the key of @p b (RocksDB's bytewise order). */
static bool meta_first(const st_block_t *b)
{
    size_t ml = strlen(META_KEY), kl = b->klen;
    int c = memcmp(META_KEY, b->bytes, ml < kl ? ml : kl);
    return c < 0 || (c == 0 && ml < kl);
}

/* Writes the sorted dirty entries (st->order) and the meta into one table file and has RocksDB
   take it in (IngestExternalFile, the file linked, not copied): one atomic, durable change of
   the store, as a synced write batch was, without the batch's copy of every entry, the WAL, the
   memtable's skip list inserts (half the join's commit time in bench/stateful.sh) and the flush
   that wrote them again. The file lands in L0 and compaction merges it as a flushed memtable.
   0, or -1 with *err. */
static int write_sst(cdc_state_t *st, const unsigned char *now, const void *meta, size_t mlen,
                     cdc_error_t **err)
{
    char *msg = NULL;
    rocksdb_sstfilewriter_t *w = rocksdb_sstfilewriter_create(st->envopts, st->sst_opts);
    rocksdb_sstfilewriter_open(w, st->sst_path, &msg);
    bool meta_done = false;
    for (size_t i = 0; i < st->ndirty && !msg; i++) {
        const st_sorted_t *o = &st->order[i];
        if (i + 8 < st->ndirty)
            __builtin_prefetch(SORTED_BLK(&st->order[i + 8]));
        if (!meta_done && meta_first(SORTED_BLK(o))) {
            rocksdb_sstfilewriter_put(w, META_KEY, strlen(META_KEY), meta, mlen, &msg);
            meta_done = true;
            if (msg)
                break;
        }
        sst_add(st, w, o, now, &msg);
    }
    if (!meta_done && !msg)
        rocksdb_sstfilewriter_put(w, META_KEY, strlen(META_KEY), meta, mlen, &msg);
    if (!msg)
        rocksdb_sstfilewriter_finish(w, &msg);
    rocksdb_sstfilewriter_destroy(w);
    if (!msg) {
        const char *files[1] = {st->sst_path};
        rocksdb_ingest_external_file(st->db, files, 1, st->ingest_opts, &msg);
    }
    unlink(st->sst_path); /* RocksDB holds its own link now (or the commit failed) */
    return msg ? rocks_error(err, st->dir, "commit to", msg) : 0;
}

int cdc_state_commit(cdc_state_t *st, const void *meta, size_t mlen, cdc_error_t **err)
{
    if (st->broken)
        return broken_error(st, err);
    int64_t t0 = cdc_mono_us();
    if (st->db) {
        /* without a TTL the overlay keeps no write times: RocksDB's values get the commit's */
        unsigned char now[TIME_BYTES];
        put_be(now, (uint64_t)cdc_wall_ms(), TIME_BYTES);
        /* In key order, as a table file holds them */
        for (size_t i = 0; i < st->ndirty; i++) {
            if (i + 16 < st->ndirty)
                __builtin_prefetch(&st->slots[st->dirty[i + 16]]);
            if (i + 8 < st->ndirty)
                __builtin_prefetch(st->slots[st->dirty[i + 8]].blk);
            const st_entry_t *e = &st->slots[st->dirty[i]];
            unsigned char p[8] = {0};
            memcpy(p, e->blk->bytes, e->blk->klen < 8 ? e->blk->klen : 8);
            st->order[i] =
                (st_sorted_t){get_be(p, 8), (uintptr_t)e->blk | ((e->flags & E_ABSENT) ? 1 : 0)};
        }
        if (st->ndirty)
            sort_dirty(st, st->ndirty);
        if (write_sst(st, now, meta ? meta : "", mlen, err) < 0) {
            st->broken = true;
            return -1;
        }
    }
    for (size_t i = 0; i < st->ndirty; i++) {
        st_entry_t *e = &st->slots[st->dirty[i]];
        e->flags &= (uint8_t)~E_DIRTY;
        if (!st->db && (e->flags & E_ABSENT))
            entry_remove(st, e); /* nothing below the overlay to hide */
    }
    st->ndirty = 0;
    st->dirty_bytes = 0;
    st->dirty_new = 0;
    cdc_buf_clear(&st->meta);
    cdc_buf_append(&st->meta, meta ? meta : "", mlen);
    st->has_meta = true;
    overlay_evict(st, NULL, SIZE_MAX);
    st->stats.commits++;
    st->stats.last_commit_us = cdc_mono_us() - t0;
    return 0;
}

int cdc_state_meta(cdc_state_t *st, const void **meta, size_t *mlen)
{
    if (!st->has_meta)
        return 0;
    *meta = st->meta.data ? st->meta.data : "";
    *mlen = st->meta.len;
    return 1;
}

void cdc_state_tick(cdc_state_t *st)
{
    st->tick_ms = cdc_wall_ms();
}

bool cdc_state_wants_commit(const cdc_state_t *st)
{
    return st->dirty_bytes > st->dirty_limit;
}

/* ---- stats ------------------------------------------------------------------------------------
 */

static uint64_t rocks_prop(const cdc_state_t *st, const char *name)
{
    uint64_t v = 0;
    return rocksdb_property_int(st->db, name, &v) == 0 ? v : 0;
}

/* Bytes of the write-ahead logs (*.log) in the directory. */
static uint64_t wal_bytes(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    uint64_t total = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        struct stat sb;
        if (n > 4 && strcmp(de->d_name + n - 4, ".log") == 0 &&
            fstatat(dirfd(d), de->d_name, &sb, 0) == 0)
            total += (uint64_t)sb.st_size;
    }
    closedir(d);
    return total;
}

void cdc_state_stats(const cdc_state_t *st, cdc_state_stats_t *out)
{
    *out = st->stats;
    out->memory_bytes = st->slab.nchunks * CHUNK_BYTES + st->slab.big_bytes +
                        st->cap * sizeof(st_entry_t) +
                        st->dirty_cap * (sizeof(uint32_t) + 2 * sizeof(*st->order));
    if (!st->db) {
        for (size_t i = 0; i < st->cap; i++)
            out->keys_estimate += LIVE(&st->slots[i]) && !(st->slots[i].flags & E_ABSENT);
        return;
    }
    out->keys_estimate = rocks_prop(st, "rocksdb.estimate-num-keys") + st->dirty_new;
    out->disk_bytes = rocks_prop(st, "rocksdb.live-sst-files-size") + wal_bytes(st->dir);
    out->memory_bytes +=
        rocksdb_cache_get_usage(st->cache) + rocks_prop(st, "rocksdb.cur-size-all-mem-tables");
}

void cdc_state_compact(cdc_state_t *st)
{
    if (st->db)
        rocksdb_compact_range(st->db, NULL, 0, NULL, 0);
}
