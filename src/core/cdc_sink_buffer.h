/*
 * cdc_sink_buffer.h — what a sink that writes changes in batches needs besides its own
 * client: a buffer that coalesces changes per primary key, a flush thread that writes one
 * full buffer while the writer fills the other, and a retry loop with backoff. Nothing in
 * it knows how the target stores a row; the jdbc sink uses it, and an HTTP or search-index
 * sink would use it the same way. Included by cdc_plugin.h.
 *
 * The buffer keeps per-key order: a change replaces the buffered one of its key, except
 * that an upsert after a delete keeps the delete before it (pre_delete: the stored row must
 * really go), and an upsert whose columns are marked unchanged takes those columns from the
 * buffered upsert when it had them. Without a key every row is appended in order. Values
 * are copied (strings included) into the buffer's arena, which a reset rewinds, so a
 * steady-state writer allocates nothing per record.
 */
#ifndef CDC_SINK_BUFFER_H
#define CDC_SINK_BUFFER_H

#include <stdbool.h>
#include <stdint.h>

#include "cdc_arena.h"
#include "cdc_error.h"
#include "cdc_row.h"
#include "cdc_types.h"

/** One buffered change: an upsert or a delete of one key, or an appended row without key. */
typedef struct cdc_sink_entry_s {
    bool is_delete;      /* delete the key (the key columns of values are set) */
    bool pre_delete;     /* an upsert that must delete the stored row first */
    cdc_kind_t kind;     /* the latest kind written for the key, for messages */
    uint32_t hash;       /* private: hash of the key */
    uint32_t block_size; /* private: bytes of the block values lives in */
    cdc_value_t *values; /* one per column, in the buffer's arena; UNCHANGED flags kept */
} cdc_sink_entry_t;

/**
 * The changes of one flush. Read entries[0..n) in order; the other fields are private.
 * schema and pk are borrowed and must outlive the buffer.
 */
typedef struct cdc_sink_buffer_s {
    const cdc_type_t *schema; /* ROW of the columns */
    const int *pk;            /* primary key column indexes; npk = 0: keyless append */
    int npk;
    int ncols;
    cdc_arena_t arena; /* buffered values; rewound by reset */
    cdc_sink_entry_t *entries;
    uint32_t n, cap;
    int32_t *slots; /* open addressing: entry index + 1, 0 = empty */
    uint32_t nslots;
    int64_t pending; /* changes added since the last reset (coalesced ones too) */
} cdc_sink_buffer_t;

/** Prepares an empty buffer over schema (a ROW) keyed by pk[0..npk); both are borrowed. */
void cdc_sink_buffer_init(cdc_sink_buffer_t *b, const cdc_type_t *schema, const int *pk, int npk);
/**
 * Adds one change (+I, +U or -D; -U is the caller's to drop) of schema's arity, coalesced
 * with the buffered change of its key. The row is copied; the caller keeps it. Key columns
 * must not be marked unchanged.
 */
void cdc_sink_buffer_add(cdc_sink_buffer_t *b, const cdc_row_t *row);
/** Empties the buffer, keeping its memory for the next changes. */
void cdc_sink_buffer_reset(cdc_sink_buffer_t *b);
/** Frees what the buffer holds (not b itself). */
void cdc_sink_buffer_free(cdc_sink_buffer_t *b);

/**
 * Writes one full buffer; runs on the flush thread, which alone uses what the callback
 * uses after cdc_sink_flusher_start (the sink's connection, say). Returns 0 once the
 * changes are stored, or -1 with *err set; the buffer is then kept and written again
 * before anything newer at the next hand-over.
 */
typedef int (*cdc_sink_flush_fn)(void *ctx, const cdc_sink_buffer_t *b, cdc_error_t **err);

typedef struct cdc_sink_flusher_opts_s {
    const char *name; /* for the flusher's own message: "NAME: cannot start the flush thread" */
    const cdc_type_t *schema; /* borrowed, as cdc_sink_buffer_init */
    const int *pk;
    int npk;
    int64_t max_rows;    /* changes added before the filled buffer is handed over (waiting
                            for the previous flush); 0: no such bound, see max_bytes */
    int64_t max_bytes;   /* 0, or the bytes a buffer may hold: from half of them it is handed
                            over when the flush thread is idle, at all of them add() waits */
    int64_t interval_ms; /* cdc_sink_flusher_tick hands over when the last hand-over is older
                            (with max_rows 0: only when the flush thread is idle) */
    cdc_sink_flush_fn flush;
    void *ctx; /* passed to flush */
} cdc_sink_flusher_opts_t;

/**
 * Double buffering: the writer adds changes to one buffer; a full one is handed to the flush
 * thread while adding goes on into the other. A hand-over waits for the previous flush, and
 * cdc_sink_flusher_flush waits for the last one, so it returns only when everything added
 * before it is stored. A failure of the flush thread is returned by the next check, add,
 * tick or flush.
 */
typedef struct cdc_sink_flusher_s cdc_sink_flusher_t;

/** A flusher with empty buffers and no thread yet; opts is copied. Free with destroy. */
cdc_sink_flusher_t *cdc_sink_flusher_new(const cdc_sink_flusher_opts_t *opts);
/** Starts the flush thread. Returns 0, or -1 with *err set. */
int cdc_sink_flusher_start(cdc_sink_flusher_t *f, cdc_error_t **err);
/** Returns -1 with the flush thread's failure, if one is waiting; never waits. */
int cdc_sink_flusher_check(cdc_sink_flusher_t *f, cdc_error_t **err);
/** Adds one change (see cdc_sink_buffer_add); hands the buffer over once max_rows is reached. */
int cdc_sink_flusher_add(cdc_sink_flusher_t *f, const cdc_row_t *row, cdc_error_t **err);
/** At the end of a write: hands a non-empty buffer over when interval_ms has passed. */
int cdc_sink_flusher_tick(cdc_sink_flusher_t *f, cdc_error_t **err);
/** Hands the buffer over and returns when everything added so far is stored. */
int cdc_sink_flusher_flush(cdc_sink_flusher_t *f, cdc_error_t **err);
/**
 * Asks for everything added so far to be stored without waiting: the buffer is handed over
 * now when the flush thread is idle, else at the first add, tick or durable call that finds
 * it idle. Returns the ticket cdc_sink_flusher_durable reaches once those changes are
 * stored, or -1 with *err (a failure of the flush thread).
 */
int64_t cdc_sink_flusher_begin(cdc_sink_flusher_t *f, cdc_error_t **err);
/**
 * The greatest ticket whose changes are stored (hand-overs are numbered from 1, so 0 before
 * the first); hands a buffer asked for by begin over if the flush thread is idle. Never
 * waits; -1 with *err on a failure of the flush thread.
 */
int64_t cdc_sink_flusher_durable(cdc_sink_flusher_t *f, cdc_error_t **err);
/** Lets a flush in progress end, stops the thread and frees f; NULL is accepted. */
void cdc_sink_flusher_destroy(cdc_sink_flusher_t *f);

/**
 * A retry loop: attempt runs up to 1 + max_retries times while its failures are retriable,
 * sleeping backoff_ms, then twice that, ... capped at backoff_max_ms before each replay.
 */
typedef struct cdc_sink_retry_s {
    int64_t max_retries;
    int64_t backoff_ms;
    int64_t backoff_max_ms;
    /** One attempt: 0 when done, -1 when it failed (the sink keeps why). */
    int (*attempt)(void *ctx);
    /** After a failed attempt: true when another one may succeed. */
    bool (*retriable)(void *ctx);
    /** Optional: called before each replay (re-open a lost connection). */
    void (*reconnect)(void *ctx);
    /** Optional: counts the replays, for a metric. */
    _Atomic unsigned long long *retries;
} cdc_sink_retry_t;

/**
 * Runs the loop. Returns 0 when an attempt succeeded, else -1 with *attempts (the attempts
 * made) and *retriable (false: the last failure was for good; true: retries ran out).
 */
int cdc_sink_retry_run(const cdc_sink_retry_t *r, void *ctx, int *attempts, bool *retriable);

#endif
