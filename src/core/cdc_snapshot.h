/*
 * cdc_snapshot.h — the chunked, lock-free snapshot of a CDC source, shared by
 * mysql-cdc and postgres-cdc: the watermark algorithm of Netflix's DBLog (as
 * Flink CDC's incremental snapshot and Debezium's incremental snapshots use it).
 *
 * A table is read in chunks by its key, each chunk with one plain SELECT
 * (`WHERE key > lo AND key < hi ORDER BY key LIMIT chunk-size`) in its own
 * short transaction, while one reader (the coordinator, split 0) reads the
 * change stream from where it started and emits every change as it comes.
 * A chunk's read is registered before its SELECT starts; from the moment the
 * coordinator sees the registration, the key of every streamed row of that
 * table goes into the read's tombstone set. The read's rows are emitted (as +I)
 * once the stream is at or past the read's high watermark — a stream position
 * at or after the SELECT's snapshot — leaving out the tombstoned keys: the
 * stream has carried a change of those rows that is at least as new as the
 * SELECT, and rows the stream did not touch are still as read. So the sink ends
 * equal to the source with no change lost or applied twice, and no lock is
 * taken and no transaction is held longer than one chunk.
 *
 * Chunks are shared by the source's splits: splits other than the coordinator
 * take ranges, read them and hand them over (cdc_snapshot_take/_filled); the
 * coordinator emits. A read that returns chunk-size rows covers up to its last
 * key, and the rest of its range is queued again (a chunk that grows while it
 * is read is split, never held whole). Ranges of a single integer key may be
 * planned evenly (min/max and a row estimate) so that splits read in parallel.
 * The ranges not yet emitted are the snapshot's state (cdc_snapshot_save /
 * _load), kept by the connector with its stream position: a restarted job
 * reads only them.
 *
 * Thread safety: take/filled/plan from any split; observe/emit/save from the
 * coordinator only.
 */
#ifndef CDC_SNAPSHOT_H
#define CDC_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "cdc_arena.h"
#include "cdc_error.h"
#include "cdc_row.h"
#include "cdc_types.h"

/** A position in the change stream (binlog: file number, offset; WAL: 0, LSN). */
typedef struct cdc_snap_pos_s {
    uint64_t major, minor;
} cdc_snap_pos_t;

static inline int cdc_snap_pos_cmp(cdc_snap_pos_t a, cdc_snap_pos_t b)
{
    if (a.major != b.major)
        return a.major < b.major ? -1 : 1;
    return a.minor < b.minor ? -1 : a.minor > b.minor;
}

typedef struct cdc_snapshot_s cdc_snapshot_t;

/** One chunk's read, from its registration to its emission. */
typedef struct cdc_snap_read_s {
    int table;         /* index of the table (cdc_snapshot_table) */
    int nkey;          /* key columns */
    char **lo;         /* key texts, NULL: from the start; the range excludes lo */
    char **hi;         /* key texts, NULL: to the end */
    bool hi_incl;      /* the range includes hi (a read cut at its last row) */
    const char *extra; /* an additional condition (an on-demand snapshot's filter), or NULL */
    /* filled by the reader of the chunk */
    cdc_batch_t rows;  /* the rows, kind +I, origin set; values in rows.arena */
    cdc_snap_pos_t hw; /* emit when the stream is at or past it */
    bool exact;        /* the server gave the SELECT's own stream position (hw) */
    uint64_t id;       /* unique in the run (a watermark message names it) */
    void *conn_data;   /* the connector's (e.g. PostgreSQL's snapshot xids), kept */
} cdc_snap_read_t;

/**
 * A new snapshot of rows of row_type (borrowed) keyed by the columns
 * key[0..nkey) of it (copied), reading chunk_size rows per SELECT. The
 * coordinator's stream rows carry the same columns.
 */
cdc_snapshot_t *cdc_snapshot_new(const cdc_type_t *row_type, const int *key, int nkey,
                                 uint32_t chunk_size);
void cdc_snapshot_destroy(cdc_snapshot_t *s); /* NULL is accepted */
/** Sets the key (before cdc_snapshot_start, when it was not known at creation). */
void cdc_snapshot_set_key(cdc_snapshot_t *s, const int *key, int nkey);

/** Adds a table ("db.table"; copied) to read whole; its index. */
int cdc_snapshot_add_table(cdc_snapshot_t *s, const char *name);
/** The name of table i; the number of tables. */
const char *cdc_snapshot_table(const cdc_snapshot_t *s, int i);
int cdc_snapshot_ntables(const cdc_snapshot_t *s);
/**
 * Queues (part of) table i again — an on-demand snapshot — with an
 * additional SQL condition (copied; NULL: none). Any thread.
 */
void cdc_snapshot_queue_table(cdc_snapshot_t *s, int table, const char *extra);

/**
 * The next range to read, registered as a read the coordinator will see, or
 * NULL when nothing is left to read right now. With wait, waits (at most
 * 200 ms, then NULL) for the coordinator's start and for a range; NULL at once
 * when the snapshot is finished (cdc_snapshot_finished) or stopped. Limits the
 * reads alive (registered, not emitted) to `max_alive`.
 */
cdc_snap_read_t *cdc_snapshot_take(cdc_snapshot_t *s, bool wait, int max_alive);

/**
 * The reader's SELECT returned its rows (read->rows, hw set). last: the key
 * texts of the last row when the SELECT returned chunk_size rows (the rest of
 * the range is queued again), else NULL. The read goes to the coordinator.
 */
void cdc_snapshot_filled(cdc_snapshot_t *s, cdc_snap_read_t *read, char *const *last);

/** A read failed: its range goes back to the queue; the error is the caller's to report. */
void cdc_snapshot_abandon(cdc_snapshot_t *s, cdc_snap_read_t *read);

/**
 * Plans an unplanned range of a single integer key: [min, max] and an
 * estimate of its rows split into ranges of about chunk_size rows, read in any
 * order by any split. Called by a reader that took a read with
 * cdc_snapshot_wants_plan(); the read's range is replaced by the first part.
 */
bool cdc_snapshot_wants_plan(const cdc_snapshot_t *s, const cdc_snap_read_t *read);
void cdc_snapshot_plan(cdc_snapshot_t *s, cdc_snap_read_t *read, int64_t min, int64_t max,
                       double rows);

/**
 * A connector's check of a filled read before its rows are emitted (coordinator): false reads
 * it again. `obs` is where the stream stood when the coordinator first saw the read: a
 * change the stream carried before it is in no tombstone, so the SELECT must have seen it
 * (PostgreSQL: a commit is decoded a moment before it is visible to new snapshots).
 */
typedef bool (*cdc_snap_check_fn)(void *ctx, const cdc_snap_read_t *read, cdc_snap_pos_t obs);
/** Sets the check (ctx borrowed; NULL: none). Before cdc_snapshot_start. */
void cdc_snapshot_set_check(cdc_snapshot_t *s, cdc_snap_check_fn fn, void *ctx);

/**
 * Coordinator: the stream is at `pos` (after the event whose rows are
 * batch->rows[from..n), which it then emits). Registrations made meanwhile
 * are seen; the keys of those rows go into the tombstones of the reads of
 * their table (row->origin is the table's name).
 */
void cdc_snapshot_observe(cdc_snapshot_t *s, const cdc_batch_t *batch, uint32_t from,
                          cdc_snap_pos_t pos);

/**
 * Coordinator: appends to out (up to max rows in all) the rows of reads that
 * are ready at stream position pos (filled, hw reached), without the
 * tombstoned keys. The rows stay valid until the next call. A read whose
 * exact snapshot position lies before where the coordinator first saw it is
 * read again (the stream may have passed changes the SELECT did not see).
 * Returns the number of rows appended.
 */
uint32_t cdc_snapshot_emit(cdc_snapshot_t *s, cdc_batch_t *out, uint32_t max, cdc_snap_pos_t pos);

/** Coordinator: a read's rows are partly emitted (a commit here would cut it). */
bool cdc_snapshot_mid_read(const cdc_snapshot_t *s);
/** Nothing left: every table read and emitted. */
bool cdc_snapshot_finished(cdc_snapshot_t *s);
/** Ranges queued or reads not emitted, started or not (the chunk key is needed). */
bool cdc_snapshot_has_work(cdc_snapshot_t *s);
/** Reads registered and not emitted (the coordinator waits for them). */
int cdc_snapshot_alive(cdc_snapshot_t *s);
/** The coordinator has listed the tables (or loaded its state): readers waiting in take go. */
void cdc_snapshot_start(cdc_snapshot_t *s);
/** Stops the readers waiting in take (the job ends). */
void cdc_snapshot_stop(cdc_snapshot_t *s);
/** Whether cdc_snapshot_stop was called: a reader whose take returned NULL ends too (the
    coordinator failed, or the job ends, before the snapshot finished). */
bool cdc_snapshot_stopped(cdc_snapshot_t *s);

/** Counters: rows emitted, reads emitted, reads read again, rows left out (tombstoned). */
typedef struct cdc_snap_stats_s {
    uint64_t rows, chunks, rereads, reconciled;
} cdc_snap_stats_t;
cdc_snap_stats_t cdc_snapshot_stats(cdc_snapshot_t *s);

/**
 * Logs (INFO, under `label`) the snapshot's end with its figures: rows, chunks, the time since
 * start_ms (cdc_mono_ms) and the rate, rows left to the stream's newer changes, chunks read
 * again.
 */
void cdc_snapshot_log_end(cdc_snapshot_t *s, const char *label, int64_t start_ms);

/**
 * Appends the state — the ranges not yet emitted, one per line
 * ("range\t<table>\t<lo>\t<hi>\t<extra>", key texts escaped) — to out.
 */
void cdc_snapshot_save(cdc_snapshot_t *s, cdc_buf_t *out);
/**
 * Replaces the queue with the ranges of a saved state's "range" line (the
 * tables named must have been added); 0, or -1 when the line is malformed.
 */
int cdc_snapshot_load_line(cdc_snapshot_t *s, const char *line);
/** Empties the queue (before loading a saved state). */
void cdc_snapshot_clear(cdc_snapshot_t *s);

/** The index of table `name`, or -1. */
int cdc_snapshot_find_table(const cdc_snapshot_t *s, const char *name);

/**
 * An `execute-snapshot` signal's data (Debezium's signalling: a row inserted
 * into the signal table, id/type/data): {"data-collections": ["db.t", ...],
 * "type": "incremental", "additional-conditions": [{"data-collection": "db.t",
 * "filter": "color = 'blue'"}]}.
 */
typedef struct cdc_snap_signal_s {
    char **collections; /* "db.table" / "schema.table" */
    char **filters;     /* per collection: an SQL condition, or NULL */
    int n;
    char *type; /* NULL when not given */
} cdc_snap_signal_t;
int cdc_snap_signal_parse(const char *data, size_t len, cdc_snap_signal_t *sig, cdc_error_t **err);
void cdc_snap_signal_free(cdc_snap_signal_t *sig);

#endif
