/*
 * pgc_int.h — private to the postgres-cdc connector: its source and reader
 * types and the functions its two files share (postgres_cdc.c: connections,
 * the table, the stream, the reader; postgres_cdc_snapshot.c: the initial
 * snapshot, chunked by key or, for a keyless table, by ctid ranges).
 */
#ifndef PGC_INT_H
#define PGC_INT_H

#include <inttypes.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cdc_plugin.h"

#define PGC_PINNED                                                                                 \
    "-c DateStyle=ISO -c TimeZone=UTC -c extra_float_digits=3 -c IntervalStyle=postgres "          \
    "-c client_encoding=UTF8"
#define PGC_STATUS_INTERVAL_MS 10000
#define PGC_STREAM 100              /* poll_chunks: nothing to emit now, read the stream */
#define PGC_SLOT_CHECK_MAX_MS 10000 /* the slot's WAL is read at least this often */
#define PGC_WAL_WARN_REPEAT_MS 300000
#define PGC_RECENT 64 /* streamed transactions a chunk's snapshot is checked against */

enum { MODE_INITIAL = 0, MODE_LATEST = 1, MODE_COMMITTED = 2, MODE_SNAPSHOT = 3 };
enum { CL_ALL = 0, CL_UPSERT = 1 };

typedef struct pgc_source {
    cdc_source_t base;
    cdc_type_t *physical; /* the declared columns: what the decoder produces */
    cdc_type_t *produced; /* physical + metadata */
    int md[8];
    int nmd;
    char *table_label; /* "schema.table" */
    const cdc_config_t *cfg;
    int startup;
    int changelog;
    char *ckpt_file;      /* two-phase: <--state-dir>/<slot>.postgres-cdc.ckpt; NULL without one */
    uint32_t chunk_size;  /* scan.incremental.snapshot.chunk.size */
    bool incremental;     /* scan.incremental.snapshot.enabled: chunks (else one transaction) */
    int key[16], nkey;    /* the chunk key: indexes into physical (0: resolved at open) */
    cdc_snapshot_t *snap; /* the chunked snapshot, shared by the splits; split 0 starts it */
    char *signal;         /* signal-data-collection ("schema.table"), or NULL */
    char *sig_schema, *sig_table;
} pgc_source_t;

typedef struct pgc_col {
    char *name;
    uint32_t oid;
    int32_t typmod;
    bool key;
} pgc_col_t;

typedef struct pgc_reader {
    cdc_reader_t base;
    pgc_source_t *src;
    bool worker; /* a split other than the first: reads snapshot chunks, if any */
    int nsplits;
    PGconn *meta;
    PGconn *repl;
    cdc_deser_t *deser;
    cdc_config_t *fmt_cfg;

    /* the table, for the synthetic snapshot messages */
    uint32_t relid;
    char ident;
    pgc_col_t *cols;
    int ncols;

    bool snapshot;      /* keyless: the whole-table transaction (exported snapshot) is open */
    bool ended;         /* 'scan.startup.mode' = 'snapshot': the table was read */
    uint64_t ctid_next; /* keyless: the next page to read, pages in all, per query */
    uint64_t ctid_pages, ctid_step;
    bool awaiting_durable; /* snapshot read; the slot is made permanent at the next commit */
    char *init_slot;       /* the slot created by this run */
    bool streaming;
    cdc_buf_t synth;

    /* the chunked snapshot (split 0: the stream emits the chunks; others read them) */
    cdc_snapshot_t *snap;      /* the source's while a keyed snapshot runs (split 0) */
    cdc_snap_read_t *inflight; /* split 0: a chunk sent, its results not read yet */
    bool resnap;               /* snap is an on-demand snapshot on the permanent slot's stream */
    bool state_stale;  /* the state file still holds a finished on-demand snapshot's ranges */
    int64_t resnap_ms; /* when the on-demand snapshot started (ms), and the figures then */
    cdc_snap_stats_t resnap_base;
    cdc_snap_pos_t cur;      /* split 0: max(last Commit's end, last logical message's LSN) */
    int64_t t_open;          /* when the reader opened (ms) */
    bool streamed;           /* a streamed change was emitted (logged, once) */
    cdc_buf_t keytext[16];   /* the key texts of a chunk's last row */
    const char *lastkey[16]; /* the key fields of the last row read (in its batch's arena) */
    size_t lastkeylen[16];
    cdc_buf_t sqlbuf;
    cdc_buf_t filebuf; /* the state file's text */
    /* split 0: the last transactions streamed (xid of its Begin, end LSN of its Commit), for
       the check that a chunk's snapshot saw those streamed before the read was seen */
    struct {
        uint32_t xid;
        uint64_t end;
    } recent[PGC_RECENT];
    int nrecent; /* written so far (the ring's next slot is nrecent % PGC_RECENT) */
    uint32_t txn_xid;
    const char *stream_slot; /* the slot being streamed (the guard watches it) */

    /* signal-data-collection: its own decoder of the same messages (that table, 3 columns) */
    cdc_deser_t *sig_deser;
    cdc_config_t *sig_cfg;
    cdc_type_t *sig_type;
    cdc_batch_t sig_batch;

    /* payload buffers the rows of the current batch may point into */
    char **held;
    int nheld, capheld;

    const cdc_source_pos_t *sp; /* the format's: transactions, the last Commit's end */
    uint64_t received_lsn;      /* end of the last XLogData */
    uint64_t pending_lsn;       /* end of the last Commit whose rows were returned */
    uint64_t confirmed_lsn;     /* reported as flushed */
    int64_t last_status_ms;
    uint64_t decode_errors;

    /* the slot guard: heartbeats, the WAL the slot retains, a lost slot */
    int64_t heartbeat_ms;       /* heartbeat.interval.ms; 0: off */
    int64_t last_keepalive_ms;  /* a keepalive arrived, or one was requested */
    int64_t last_action_ms;     /* heartbeat.action.query last ran */
    int64_t last_slot_check_ms; /* pg_replication_slots last read */
    int64_t last_wal_warn_ms;   /* the retained-WAL warning last logged; 0: not above */
    int64_t retained_wal;       /* bytes from the server's WAL end to restart_lsn; -1: unknown */
    bool action_failing;        /* the action query failed last time (warned once) */
    bool check_failing;         /* reading the slot failed last time (warned once) */
    char slot_labels[96];       /* slot="<slot.name>" for the gauges */

    /* two-phase commit (with a state directory): the last decision, from the state file */
    uint64_t checkpoint;  /* its id (0: none) */
    uint64_t ckpt_lsn;    /* stream from here: every transaction before it is committed */
    bool ckpt_snapshot;   /* a snapshot was committed (the slot copy may still be due) */
    cdc_buf_t ckpt_state; /* the lines after the first: "snapshot\tv2", table, ranges */
    char *state_origin;   /* where the state was read: 'state file "..."', or the stored
                             position of the key (for the errors of malformed lines) */

    /* positions kept by the job's state (cdc_reader_ops_t.positions) */
    char *key;                         /* "postgres-cdc/<host>:<port>/<database>/<slot>/<split>" */
    const cdc_position_store_t *store; /* NULL: none */
    bool started;                      /* the first poll looked the store up */
    bool state_stored;                 /* the state is the store's record, not the file's */

    /* schema changes (postgres_cdc_schema.c) */
    cdc_schema_change_t *change; /* the change the last poll ended at (owned) */
    bool change_ready;           /* the last poll returned CDC_POLL_SCHEMA */
    bool schema_dirty;           /* the history or the skip mark changed: the next commit saves */
    cdc_buf_t hist;              /* the captured table's last Relation message */
    uint64_t txn_final;          /* the open transaction's final LSN (its Begin) */
    uint64_t txn_rows;           /* row messages (I, U, D, T) in it so far */
    uint64_t skip_txn;           /* replaying this transaction (final LSN) ... */
    uint64_t skip_rows;          /* ... its first skip_rows row messages are done */
} pgc_reader_t;

/* ---- postgres_cdc.c ---- */

/** The option's text, "" when unset (borrowed from cfg). */
const char *pgc_opt(const cdc_config_t *cfg, const char *key);
/** A new connection (replication=database when replication); NULL and *err on failure. */
PGconn *pgc_connect(pgc_source_t *s, bool replication, cdc_error_t **err);
/** Runs a statement whose rows are ignored; 0, or -1 and *err naming `what`. */
int pgc_exec_ok(PGconn *conn, const char *sql, const char *what, cdc_error_t **err);
/** Runs a query with text parameters; the result (the caller's to PQclear), or NULL and *err. */
PGresult *pgc_query(PGconn *conn, const char *sql, int nparams, const char *const *params,
                    const char *what, cdc_error_t **err);
/** "schema"."table", quoted by libpq (a new string, the caller's to free). */
char *pgc_qualified(PGconn *conn, const char *schema, const char *table);
/** Reads the table's relation id, columns and key into r (on r->meta) and checks them. */
int pgc_load_table(pgc_reader_t *r, cdc_error_t **err);
/**
 * Decodes one pgoutput message into out: from the stream (lsn), or made here (stream false).
 * 0, 1 when the decoder met a schema change, or -1 with *err.
 */
int pgc_feed(pgc_reader_t *r, const char *msg, size_t len, cdc_batch_t *out, uint64_t lsn,
             bool stream, cdc_error_t **err);
/** CREATE_REPLICATION_SLOT; the exported snapshot's name into snapshot when export. */
int pgc_create_slot(pgc_reader_t *r, const char *name, bool export, char *snapshot, size_t cap,
                    cdc_error_t **err);
/** START_REPLICATION on slot (borrowed for the reader's life) from r->ckpt_lsn. */
int pgc_start_streaming(pgc_reader_t *r, const char *slot, cdc_error_t **err);
/** The reader's pgoutput decoder (r->deser, r->fmt_cfg, r->sp; freed by the reader's close). */
int pgc_make_deser(pgc_reader_t *r, cdc_error_t **err);

/* ---- postgres_cdc_schema.c ---- */

/** Before feeding a stream message: true when it is to be skipped (a replay before a change). */
bool pgc_schema_skip(pgc_reader_t *r, const char *msg, size_t len);
/** After feeding it: keeps the table's Relation; met: the decoder met a change (r->change). */
void pgc_schema_after(pgc_reader_t *r, const char *msg, size_t len, bool met);
/** The reader op: the change the last poll ended at (borrowed, until the next poll). */
const cdc_schema_change_t *pgc_schema_change(cdc_reader_t *base);
/** A commit made the stream durable up to confirmed: the history is the one to keep. */
void pgc_schema_committed(pgc_reader_t *r, uint64_t confirmed);
/** Appends the state file's schema lines (the history, the skip mark). */
void pgc_schema_save(const pgc_reader_t *r, cdc_buf_t *b);
/** Reads the schema lines of a state file's text; a malformed one is an error. */
int pgc_schema_load(pgc_reader_t *r, const char *text, cdc_error_t **err);
/** Feeds the decoder the history (the state file's, else this process's) before streaming. */
int pgc_schema_prime(pgc_reader_t *r, cdc_error_t **err);
/*
 * At start, when neither the state file nor this process has the table's last
 * Relation: the one pgoutput would send for the table as the catalog has it
 * now (after pgc_load_table), so the first Relation of the stream is compared
 * with it and a DDL made before it is reported.
 */
int pgc_schema_seed(pgc_reader_t *r, cdc_error_t **err);

/* ---- postgres_cdc_snapshot.c ---- */

/** Feeds the decoder a Relation message of the table (snapshot rows refer to it). */
int pgc_synth_relation(pgc_reader_t *r, cdc_batch_t *out, cdc_error_t **err);
/** Keyless: opens the one snapshot transaction (on the slot's exported snapshot, or NULL:
    the current state) and plans its ctid ranges. */
int pgc_keyless_start(pgc_reader_t *r, const char *snapshot_name, cdc_error_t **err);
/** Keyless: the next ctid range into out; *done (and the transaction ended) after the last. */
int pgc_keyless_poll(pgc_reader_t *r, cdc_batch_t *out, bool *done, cdc_error_t **err);
/** No chunked snapshot in this run: the splits reading chunks end. */
void pgc_snapshot_none(pgc_reader_t *r);
/** The chunk key from the catalog when none was declared; -1 when it is not declared. */
int pgc_resolve_key(pgc_reader_t *r, cdc_error_t **err);
/** Loads the saved state's "range" lines (r->ckpt_state) into the snapshot's queue. */
int pgc_load_ranges(pgc_reader_t *r, cdc_error_t **err);
/** Split 0: the chunked snapshot's start (or resumption) and the stream from "<slot>_init". */
int pgc_chunks_start(pgc_reader_t *r, bool init_exists, cdc_error_t **err);
/** The snapshot's check of a filled read (cdc_snap_check_fn; ctx: the split 0 reader). */
bool pgc_check_read(void *ctx, const cdc_snap_read_t *rd, cdc_snap_pos_t obs);
/** Split 0: emits ready chunks, reads one when none is alive; a poll status, or PGC_STREAM. */
int pgc_chunks_poll(pgc_reader_t *r, cdc_batch_t *out, uint32_t max, cdc_error_t **err);
/** Splits but the first: reads chunks until the snapshot is finished (then CDC_POLL_END). */
int pgc_worker_poll(pgc_reader_t *r, cdc_batch_t *out, cdc_error_t **err);

#endif
