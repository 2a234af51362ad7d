/*
 * cdc_plugin.h — the only header formats and connectors include.
 *
 * A format factory builds deserializers (message bytes -> rows) and
 * serializers (row -> message bytes) and declares the changelog mode it
 * produces. A connector factory builds sources (readers that fill batches) and
 * sinks (writers that apply batches). Each is one static designated-initializer
 * struct named in its folder's cdc_plugin() call (the registry list of
 * src/core/cdc_registry.c is generated from those calls); optional callbacks
 * are NULL and the core decides what their absence means. Plugins have only
 * src/ on their include path: this header brings the core services they use.
 */
#ifndef CDC_PLUGIN_H
#define CDC_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The core services a plugin may use, all from src/core/ (plugins have only
 * src/ on their include path, so this header is how they reach the core). */
#include "core/cdc_arena.h"
#include "core/cdc_debezium.h"
#include "core/cdc_error.h"
#include "core/cdc_file.h"
#include "core/cdc_log.h"
#include "core/cdc_options.h"
#include "core/cdc_position.h"
#include "core/cdc_row.h"
#include "core/cdc_schema_change.h"
#include "core/cdc_sink_buffer.h"
#include "core/cdc_snapshot.h"
#include "core/cdc_types.h"
#include "core/cdc_util.h"
#include "core/cdc_value_text.h"

/* ---- formats ---------------------------------------------------------------- */

/**
 * A metadata key a format or connector offers (Flink's listReadableMetadata);
 * writable ones (Flink's listWritableMetadata, the R/W keys) a sink takes
 * through cdc_sink_ops_t.apply_metadata.
 */
typedef struct cdc_metadata_def_s {
    const char *key;
    const char *type; /* SQL type text */
    const char *description;
    bool writable; /* a persisted METADATA column of a sink writes it */
} cdc_metadata_def_t;

typedef struct cdc_format_ctx_s {
    const cdc_config_t *cfg;    /* the format's validated options */
    const cdc_type_t *row_type; /* ROW of the physical fields to produce/consume */
    /*
     * Requested metadata keys, appended after the fields in this order, the
     * values written into the row the deserializer builds: the format's own
     * keys (fmt->metadata), or for a CDC format (mysql-binlog, pgoutput) those
     * of the CDC source reading it (database_name, op_ts, source.pos, ...).
     */
    const char *const *metadata;
    int nmetadata;
    const char *table; /* qualified table name, for messages */
    /*
     * CDC formats (mysql-binlog, pgoutput) read by a CDC source: the database
     * the messages come from, for the database_name metadata of a format whose
     * messages do not name it (pgoutput); NULL = unknown.
     */
    const char *database;
} cdc_format_ctx_t;

/* Results of cdc_deser_ops_t.decode. */
#define CDC_DECODE_OK 0
#define CDC_DECODE_SKIPPED 1 /* a bad message dropped because ignore-parse-errors is set */
#define CDC_DECODE_ERROR -1  /* reason in deser->errmsg */
/*
 * The call met one or more schema changes of captured tables
 * (cdc_deser_ops_t.schema_changes gives them and where they fall among the
 * rows appended); rows after a change were decoded with its new columns.
 */
#define CDC_DECODE_SCHEMA 2

typedef struct cdc_deser_s cdc_deser_t;

/**
 * Where a CDC format's input stands (cdc_deser_ops_t.source_pos), for a source
 * that follows the upstream log and resumes at a transaction's end. The flags
 * describe the last decode() call (a source feeds one event or message per
 * call); in_txn, gtid and the times are kept across calls.
 */
typedef struct cdc_source_pos_s {
    /* mysql-binlog: the binlog file of pos (NULL before the first ROTATE); pgoutput: NULL */
    const char *file;
    /*
     * mysql-binlog: where the event after the last one decoded starts (its
     * log_pos; 0 for an artificial event); pgoutput: the end LSN of the last
     * Commit.
     */
    uint64_t pos;
    const char *gtid; /* GTID of the transaction being read: MariaDB "0-1-42", MySQL
                         "3e11fa47-71ca-11e1-9e33-c80aa9429562:23"; "" none (MySQL: anonymous) */
    /* ms since the epoch: binlog, the last event's time (whole seconds); pgoutput, the commit
       time of the last transaction begun */
    int64_t ts_ms;
    bool txn_end;   /* it ended a transaction (XID, a QUERY but BEGIN; Commit): pos follows it */
    bool in_txn;    /* a transaction is open: a stop here would cut it */
    bool heartbeat; /* mysql-binlog: an idle server's HEARTBEAT (input=events; not decoded; pos
                       becomes its log_pos: where the server's binlog stands) */
    bool rotate;    /* mysql-binlog: a ROTATE to a new file: a real one, or an artificial one
                       naming another file (a dump going on past a file that ends with STOP),
                       not the one starting a dump; file and pos say where the next event is */
    bool file_end;  /* mysql-binlog: a STOP: the server stopped, this file ends without a
                       ROTATE, and the next event is at the start of the next file */
} cdc_source_pos_t;

typedef struct cdc_deser_ops_s {
    /**
     * Decodes one message into 0..n rows appended to out (arity = fields +
     * metadata). msg may be NULL/len 0 for a tombstone. The caller keeps msg
     * alive until the batch is reset: values may point into it. On error, the reason is
     * written to deser->errmsg; the caller removes rows added for this message.
     * Must not allocate per message in steady state.
     */
    int (*decode)(cdc_deser_t *deser, const char *msg, size_t len, cdc_batch_t *out);
    void (*destroy)(cdc_deser_t *deser);
    /**
     * Optional, for self-describing formats (mysql-binlog, pgoutput) made
     * without a row type (ctx->row_type NULL): the ROW type of a row this
     * deserializer produced, each table its own. Borrowed; valid until the
     * deserializer is destroyed.
     */
    const cdc_type_t *(*row_type)(cdc_deser_t *deser, const cdc_row_t *row);
    /**
     * Optional, for CDC formats: where the input stands, updated by every
     * decode(). Borrowed; the same pointer until the deserializer is destroyed.
     */
    const cdc_source_pos_t *(*source_pos)(cdc_deser_t *deser);
    /**
     * Optional, for CDC formats whose messages do not carry their own position
     * (pgoutput): decode() of a message the caller read at pos (pgoutput: the
     * WAL start of its XLogData), the value of the position metadata; 0 marks
     * a message the caller made (a snapshot row: position metadata NULL,
     * source.snapshot true). decode() is decode_at with pos 0.
     */
    int (*decode_at)(cdc_deser_t *deser, const char *msg, size_t len, uint64_t pos,
                     cdc_batch_t *out);
    /**
     * Optional, for formats that see schema changes: the changes the last
     * decode() met (it returned CDC_DECODE_SCHEMA), in order, and for each
     * where it falls: out->n when it was met (rows of `out` from that index on
     * come after the change). Returns how many. Borrowed; valid until the next
     * decode(). A source feeding one event per decode() gets at most one.
     */
    int (*schema_changes)(cdc_deser_t *deser, const cdc_schema_change_t *const **changes,
                          const uint32_t **at);
} cdc_deser_ops_t;

/** Base of every deserializer: plugins embed it as their first member. */
struct cdc_deser_s {
    const cdc_deser_ops_t *ops;
    cdc_buf_t errmsg; /* last error reason (the per-record error slot) */
    uint64_t skipped; /* messages dropped by ignore-parse-errors */
};

typedef struct cdc_ser_s cdc_ser_t;

typedef struct cdc_ser_ops_s {
    /**
     * Appends the message for row to out. Returns 0 when a message was written,
     * 1 when the row produces no message, -1 on error (reason in ser->errmsg).
     */
    int (*encode)(cdc_ser_t *ser, const cdc_row_t *row, cdc_buf_t *out);
    void (*destroy)(cdc_ser_t *ser);
} cdc_ser_ops_t;

struct cdc_ser_s {
    const cdc_ser_ops_t *ops;
    cdc_buf_t errmsg;
};

/** How `cdcflow decode` reads a file for a format. */
typedef enum cdc_decode_input {
    CDC_INPUT_LINES = 0, /* one text message per line (the JSON formats) */
    CDC_INPUT_HEX_LINES, /* one hex-encoded binary message per line (pgoutput) */
    CDC_INPUT_STREAM     /* raw bytes in chunks split anywhere; a NULL/0 call marks the end */
} cdc_decode_input_t;

typedef struct cdc_format_factory_s {
    const char *identifier; /* lowercase with dashes: "debezium-json" */
    const char *description;
    const cdc_option_def_t *options;                             /* terminated by {0} */
    void (*check)(const cdc_config_t *cfg, cdc_buf_t *problems); /* cross-option rules */
    const cdc_metadata_def_t *metadata; /* terminated by {0}; NULL = none */
    /** Changelog mode of decoded rows; NULL = insert-only. */
    cdc_changelog_mode_t (*decode_mode)(const cdc_config_t *cfg);
    /** Changelog mode the serializer accepts; NULL = insert-only. */
    cdc_changelog_mode_t (*encode_mode)(const cdc_config_t *cfg);
    int (*deser_new)(const cdc_format_ctx_t *ctx, cdc_deser_t **out, cdc_error_t **err);
    int (*ser_new)(const cdc_format_ctx_t *ctx, cdc_ser_t **out, cdc_error_t **err);
    cdc_decode_input_t decode_input; /* what `cdcflow decode` feeds decode() */
    /** Self-describing: --schema is optional and the deserializer has row_type(). */
    bool self_describing;
} cdc_format_factory_t;

/* ---- connectors ---------------------------------------------------------------- */

/** A format resolved for a table: the option that named it ("format", "value.format"). */
typedef struct cdc_table_format_s {
    const char *option; /* "format", "key.format", "value.format" */
    const cdc_format_factory_t *factory;
    const cdc_config_t *cfg;
} cdc_table_format_t;

typedef struct cdc_table_ctx_s {
    const char *name;         /* "catalog.db.table" */
    const cdc_type_t *schema; /* ROW of physical columns */
    const int *pk;            /* primary key column indexes */
    int npk;
    const cdc_config_t *cfg; /* the connector's validated options */
    const cdc_table_format_t *formats;
    int nformats;
    int parallelism;           /* requested by the run (>= 1) */
    const int *partition_keys; /* PARTITIONED BY columns, indexes into schema */
    int npartition_keys;
} cdc_table_ctx_t;

/**
 * Where sources keep their positions between runs when the table does not
 * name a file itself: `cdcflow run --state-dir DIR` (or CDCFLOW_STATE_DIR),
 * or NULL when none was given. The directory exists when this is not NULL.
 */
const char *cdc_state_dir(void);

/**
 * Positions a reader leaves for the one that replaces it when the job is
 * planned again after a schema change (CDC_POLL_SCHEMA) in the same process:
 * a reader notes "key -> position" as it commits (key: stable, e.g.
 * "kafka\t<table>\t<topic>\t<partition>"); a reader opened for the new plan
 * gets it from cdc_resume_get, so a bounded reader goes on where the last one
 * stopped instead of at its start position. Forgotten when the next
 * statement's job starts. Thread-safe.
 */
void cdc_resume_note(const char *key, int64_t position);
/** The position noted for key when this job is a re-planned one, else -1. */
int64_t cdc_resume_get(const char *key);

/** The format a table names through `option`, or NULL. */
const cdc_table_format_t *cdc_table_format(const cdc_table_ctx_t *ctx, const char *option);

/**
 * For a format that takes requested metadata (ctx->metadata): the index into
 * keys[0..nkeys) (at most 256) of each requested key, into ids (ctx->nmetadata
 * entries, the caller's). 0, or -1 with *err for a key not among them.
 */
int cdc_format_metadata_ids(const cdc_format_ctx_t *ctx, const char *format,
                            const char *const *keys, int nkeys, uint8_t *ids, cdc_error_t **err);

typedef struct cdc_reader_s cdc_reader_t;
typedef struct cdc_source_s cdc_source_t;
typedef struct cdc_writer_s cdc_writer_t;
typedef struct cdc_sink_s cdc_sink_t;

#define CDC_POLL_OK 0  /* rows may have been added (maybe none yet) */
#define CDC_POLL_END 1 /* bounded input is exhausted; no rows added */
#define CDC_POLL_ERROR -1
/*
 * Rows may have been added, and the reader needs a barrier before it goes
 * on: the runtime writes what it has, flushes the writer (durable) and calls
 * commit before the next poll. A Kafka reader returns it when the group
 * takes partitions away, so they are given up only with every row read
 * from them committed downstream and upstream.
 */
#define CDC_POLL_FLUSH 2
/*
 * Every row added comes before a schema change of the source, which
 * cdc_reader_ops_t.schema_change gives. The runtime writes the rows, flushes
 * the writer, applies the pipeline's schema.change.behavior (README "Schema
 * changes"): the sink's apply_schema_change, the catalog; then commits, so
 * the reader's commit must cover the change (its position after the change
 * and before the first row after it). Then it polls on; or, when the
 * pipeline's columns change, closes the reader and opens one for the new
 * plan, which resumes from that commit.
 */
#define CDC_POLL_SCHEMA 3

/**
 * How readers and writers report gauges for the metrics endpoint: a name from
 * the README's list (cdcflow_source_lag_records, cdcflow_source_offset, ...),
 * extra labels in Prometheus form (`partition="3"`, or "" for none) and the
 * value. Called on the reader's or writer's own thread, after a commit and at
 * least once per checkpoint interval (an idle source's gauges still move).
 */
typedef void (*cdc_metric_emit_fn)(void *ctx, const char *name, const char *labels, double value);

/** Where a reader finds the positions its sink keeps (cdc_reader_ops_t.positions). */
typedef struct cdc_position_store_s {
    /** Replaces out with "key\tposition\n" lines; 0, or -1 with *err. */
    int (*load)(void *ctx, cdc_buf_t *out, cdc_error_t **err);
    void *ctx;
} cdc_position_store_t;

typedef struct cdc_reader_ops_s {
    /** Adds up to max_rows rows to out. */
    int (*poll)(cdc_reader_t *reader, cdc_batch_t *out, uint32_t max_rows, cdc_error_t **err);
    /** Makes the position of every row polled so far durable upstream; NULL = nothing to do. */
    int (*commit)(cdc_reader_t *reader, cdc_error_t **err);
    void (*close)(cdc_reader_t *reader);
    /** Optional: reports the reader's gauges (position, lag, decode errors). */
    void (*metrics)(cdc_reader_t *reader, cdc_metric_emit_fn emit, void *ctx);
    /*
     * Optional two-phase commit, source half (both or neither). When the reader
     * has them and the writer has prepare/publish/recover, the runtime's commit
     * point is: writer prepare(id), reader commit_checkpoint(id), writer
     * publish(id); the reader's durable write of id is the decision. Checkpoint
     * ids grow by one per commit point of a split, starting after the one
     * last_checkpoint returns.
     */
    /** Like commit, storing checkpoint atomically with the position. */
    int (*commit_checkpoint)(cdc_reader_t *reader, uint64_t checkpoint, cdc_error_t **err);
    /** The checkpoint id stored by the last commit_checkpoint of this split (any run); 0 = none. */
    uint64_t (*last_checkpoint)(cdc_reader_t *reader);
    /*
     * Optional positions kept by the sink (both or neither), for sources read by
     * several processes whose position moves between them (Kafka partitions in a
     * consumer group). When the writer has commit_positions and
     * stored_positions, the runtime's commit point is: positions(), then the
     * writer's commit_positions (rows and positions durable and visible in one
     * decision), then commit (the upstream's own record, for monitoring and
     * sinks without positions). A unit of the source starts at the position the
     * store holds for it, when it holds one, ahead of the upstream's record.
     */
    /**
     * Appends "key\tposition\n" per unit read from (key: stable across runs and
     * processes, without whitespace, e.g. "kafka/<topic>/<partition>"; position:
     * a token without whitespace (tab, space, newline) that consumers treat as
     * opaque — for Kafka the next offset, a non-negative integer that only
     * grows; for the database CDC readers their whole resume record, binlog
     * position or LSN, snapshot progress and schema history, as one
     * cdc_position_put token), after making durable whatever the reader itself
     * must have written before them (dead letters). Called only where
     * at_boundary is true. A reader that cannot give an exact position (e.g.
     * run with a parallelism it cannot report exactly) fails rather than
     * report a wrong one. The reader's commit that follows must not move the
     * upstream's record past what this reported. 0, or -1.
     */
    int (*positions)(cdc_reader_t *reader, cdc_buf_t *out, cdc_error_t **err);
    /**
     * Called once after open, before the first poll; the store outlives the
     * reader. A unit whose key the store holds resumes exactly from that
     * position (ahead of its own files and startup mode; a position it cannot
     * read is an error of the first poll naming the key); the others start as
     * without a store.
     */
    void (*set_position_store)(cdc_reader_t *reader, const cdc_position_store_t *store);
    /**
     * Optional: whether every row polled so far belongs to a whole upstream
     * transaction (none is cut) and the position covers them all. With
     * two-phase commit or positions kept by the sink, the runtime commits
     * only where this is true; a stop elsewhere discards the rows since the
     * last commit (they are read again). NULL = always.
     */
    bool (*at_boundary)(cdc_reader_t *reader);
    /*
     * Optional overlapped commit, source half (both or neither). When the writer
     * has flush_begin and durable, the runtime's commit point does not wait for
     * the database: mark(), then the writer's flush_begin(); reading goes on, and
     * once durable() reaches that flush, commit_mark(). Not used with two-phase
     * commit or positions kept by the sink.
     */
    /** Notes the position of every row polled so far (one note; a new one replaces it). */
    void (*mark)(cdc_reader_t *reader);
    /** Makes the position noted by the last mark durable upstream; 0, or -1 with *err. */
    int (*commit_mark)(cdc_reader_t *reader, cdc_error_t **err);
    /**
     * Optional, for sources that see schema changes: the change the last poll
     * returned CDC_POLL_SCHEMA for. Borrowed; valid until the next poll.
     */
    const cdc_schema_change_t *(*schema_change)(cdc_reader_t *reader);
} cdc_reader_ops_t;

struct cdc_reader_s {
    const cdc_reader_ops_t *ops;
};

/* ---- source and sink abilities (FLIP-95) ---------------------------------------------
 * The planner applies them in this order: partitions, filters, projection
 * (nested, else whole columns), limit, metadata. Each is optional: a NULL callback means the source
 * does not have the ability and the runtime does the work instead.
 */

typedef enum cdc_filter_op {
    CDC_FILTER_EQ,
    CDC_FILTER_NE,
    CDC_FILTER_LT,
    CDC_FILTER_LE,
    CDC_FILTER_GT,
    CDC_FILTER_GE,
    CDC_FILTER_IS_NULL,
    CDC_FILTER_IS_NOT_NULL
} cdc_filter_op_t;

/** One conjunct of a WHERE clause in a form a source can decide: `field op literal`. */
typedef struct cdc_filter_s {
    int field; /* index into the table's physical columns (ctx->schema) */
    cdc_filter_op_t op;
    cdc_value_t value; /* literal of the field's type; unused for IS [NOT] NULL */
    const char *text;  /* canonical SQL ("amount > 10"), for EXPLAIN and messages */
} cdc_filter_t;

/**
 * Whether value v (of type t) passes `v op lit`, with SQL's rules: a comparison with NULL is
 * not true, and an unordered pair (NaN) is only "<>".
 */
bool cdc_filter_passes(const cdc_type_t *t, const cdc_value_t *v, cdc_filter_op_t op,
                       const cdc_value_t *lit);

/** Keeps filter f's literal (of type t) with cdc_value_keep; NULL for IS [NOT] NULL. */
void cdc_filter_keep_literal(cdc_arena_t *arena, const cdc_type_t *t, const cdc_filter_t *f,
                             cdc_value_t *out);

/**
 * Projection pushdown on top of an earlier one: fields index the current *proj (nproj
 * long), which becomes the narrowed list. -1 (nothing changed) when a field is out of range.
 */
int cdc_projection_narrow(int **proj, int *nproj, const int *fields, int n);

/** A new ROW type of row's fields proj[0..n) in that order (nullability kept). */
cdc_type_t *cdc_type_project(const cdc_type_t *row, const int *proj, int n);

/**
 * A field to produce under nested projection: idx[0] is a physical column
 * (index into ctx->schema), idx[1..depth-1] are field indexes inside nested
 * ROWs. depth 1 is the whole column.
 */
#define CDC_FIELD_PATH_MAX 8
typedef struct cdc_field_path_s {
    int depth;
    int idx[CDC_FIELD_PATH_MAX];
} cdc_field_path_t;

/* ---- lookup (LookupTableSource) ------------------------------------------------------
 * A source that can be joined by key (`JOIN dim FOR SYSTEM_TIME AS OF s.proc_time AS d
 * ON s.k = d.k`) offers open_lookup. The planner opens one handle per split (per
 * thread: a handle is never shared between threads) on the dim table's columns
 * the join's equalities name, and calls lookup once per probe row whose key is
 * not in the runtime's cache. The PARTIAL cache and the lookup.max-retries loop
 * belong to the runtime (src/exec/cdc_lookup.h), not to the connector: a connector
 * declares the options (CDC_LOOKUP_OPTION_DEFS) and answers lookups.
 */
typedef struct cdc_lookup_s cdc_lookup_t;

typedef struct cdc_lookup_ops_s {
    /**
     * Appends to out one row (kind +I) per table row whose key fields equal
     * keys[0..nkeys-1] (one value per key field, of that field's type, never
     * NULL): 0..n rows, each with the table's physical columns (ctx->schema)
     * in order. Values may point into memory the source owns, or into
     * out->arena; the caller resets out, so nothing is allocated per call in
     * steady state. Returns 0, or -1 with *err (rows added before a failure
     * are ignored). A handle stays usable after a failure: the next call may
     * reconnect (the runtime retries per lookup.max-retries).
     */
    int (*lookup)(cdc_lookup_t *lk, const cdc_value_t *keys, cdc_batch_t *out, cdc_error_t **err);
    void (*close)(cdc_lookup_t *lk);
} cdc_lookup_ops_t;

/** Base of every lookup handle: plugins embed it as their first member. */
struct cdc_lookup_s {
    const cdc_lookup_ops_t *ops;
};

/** {"NONE", "PARTIAL", NULL}: values of lookup.cache. */
extern const char *const cdc_lookup_cache_kinds[];

/**
 * The cross-option rule of CDC_LOOKUP_OPTION_DEFS, for the factory's check
 * callback: a PARTIAL cache needs a bound (max-rows or an expiry), as Flink's
 * does. Appends one line per problem.
 */
void cdc_lookup_check(const cdc_config_t *cfg, cdc_buf_t *problems);

/*
 * Flink's lookup cache and retry options, for the option table of a connector
 * with open_lookup (the runtime reads them; the legacy lookup.cache.* keys are
 * accepted as aliases): put CDC_LOOKUP_OPTION_DEFS among the table's entries.
 */
#define CDC_LOOKUP_OPTION_DEFS                                                                     \
    {.key = "lookup.cache",                                                                        \
     .type = CDC_OPT_ENUM,                                                                         \
     .default_value = "NONE",                                                                      \
     .enum_values = cdc_lookup_cache_kinds,                                                        \
     .description = "Cache of lookup joins: NONE, or PARTIAL (looked-up keys kept per split, "     \
                    "the least recently used evicted first)."},                                    \
        {.key = "lookup.partial-cache.max-rows",                                                   \
         .type = CDC_OPT_INT,                                                                      \
         .min = 1,                                                                                 \
         .max = INT32_MAX,                                                                         \
         .description = "PARTIAL cache: keys kept per split (each with its 0..n rows). Unset = "   \
                        "no bound."},                                                              \
        {.key = "lookup.partial-cache.expire-after-write",                                         \
         .type = CDC_OPT_DURATION,                                                                 \
         .description = "PARTIAL cache: an entry is looked up again this long after it was "       \
                        "stored. Unset = never."},                                                 \
        {.key = "lookup.partial-cache.expire-after-access",                                        \
         .type = CDC_OPT_DURATION,                                                                 \
         .description = "PARTIAL cache: an entry not read for this long is looked up again. "      \
                        "Unset = never."},                                                         \
        {.key = "lookup.partial-cache.cache-missing-key",                                          \
         .type = CDC_OPT_BOOL,                                                                     \
         .default_value = "true",                                                                  \
         .description = "PARTIAL cache: also keep keys that matched no row."},                     \
        {.key = "lookup.max-retries",                                                              \
         .type = CDC_OPT_INT,                                                                      \
         .default_value = "3",                                                                     \
         .min = 0,                                                                                 \
         .max = 1000,                                                                              \
         .description = "A failed lookup is retried this many times, sleeping 1 s, 2 s, ... "      \
                        "(at most 10 s) between attempts, before the job fails."},                 \
        {.key = "lookup.cache.max-rows",                                                           \
         .type = CDC_OPT_INT,                                                                      \
         .flags = CDC_OPT_DEPRECATED,                                                              \
         .min = 1,                                                                                 \
         .max = INT32_MAX,                                                                         \
         .description = "Legacy: lookup.cache = PARTIAL with this "                                \
                        "lookup.partial-cache.max-rows."},                                         \
        {.key = "lookup.cache.ttl",                                                                \
         .type = CDC_OPT_DURATION,                                                                 \
         .flags = CDC_OPT_DEPRECATED,                                                              \
         .description = "Legacy: lookup.partial-cache.expire-after-write."},                       \
    {                                                                                              \
        .key = "lookup.cache.caching-missing-key", .type = CDC_OPT_BOOL,                           \
        .flags = CDC_OPT_DEPRECATED,                                                               \
        .description = "Legacy: lookup.partial-cache.cache-missing-key."                           \
    }

typedef struct cdc_source_ops_s {
    cdc_changelog_mode_t (*changelog_mode)(cdc_source_t *src);
    /** Optional: every partition of the table (each maps partition column to value text). */
    int (*list_partitions)(cdc_source_t *src, cdc_kv_t **parts, int *nparts, cdc_error_t **err);
    /** Optional: read only these partitions (a subset of list_partitions). */
    int (*apply_partitions)(cdc_source_t *src, const cdc_kv_t *parts, int nparts,
                            cdc_error_t **err);
    /**
     * Optional: for each filter, sets accepted[i] when the source guarantees it
     * (rows failing it are never produced). Filters not accepted are evaluated
     * by the runtime. Returns 0.
     */
    int (*apply_filters)(cdc_source_t *src, const cdc_filter_t *filters, int n, bool *accepted);
    /** Optional: produce only these fields, in this order. Returns 0 when accepted. */
    int (*apply_projection)(cdc_source_t *src, const int *fields, int n);
    /**
     * Optional (projection step, tried before apply_projection): produce one
     * field per path, in this order. A path of depth 1 is the whole column; a
     * deeper one is the nested leaf value (of the nested field's type; NULL
     * when a ROW on the way is NULL), named with its dotted path ("r.a") in
     * src->produced. Returns 0 when accepted, -1 to decline (the planner then
     * projects whole columns with apply_projection).
     */
    int (*apply_nested_projection)(cdc_source_t *src, const cdc_field_path_t *paths, int n);
    /** Optional: stop after limit rows per reader split set. Returns 0 when accepted. */
    int (*apply_limit)(cdc_source_t *src, int64_t limit);
    /** Opens split `split` of `nsplits`. NULL only for a lookup-only source. */
    int (*open_reader)(cdc_source_t *src, int split, int nsplits, cdc_reader_t **out,
                       cdc_error_t **err);
    /**
     * Optional: append these metadata columns (keys the connector or its
     * format declares) after the physical fields, in this order.
     */
    int (*apply_metadata)(cdc_source_t *src, const char *const *keys, int n, cdc_error_t **err);
    /** Optional statistics: the number of rows the source will produce, or -1 when unknown. */
    int64_t (*report_row_count)(cdc_source_t *src);
    /**
     * Optional (LookupTableSource): opens a lookup handle matching rows on
     * these physical columns (indexes into ctx->schema, each once), for one
     * split (one thread). Returns 0, or -1 with *err (e.g. a key type the
     * connector cannot compare). A source may offer only this (open_reader
     * NULL): it can then be joined but not scanned.
     */
    int (*open_lookup)(cdc_source_t *src, const int *key_fields, int nkeys, cdc_lookup_t **out,
                       cdc_error_t **err);
    /** One-line summary for EXPLAIN ("datagen(number-of-rows=10)"). Optional. */
    void (*describe)(cdc_source_t *src, cdc_buf_t *out);
    void (*destroy)(cdc_source_t *src);
} cdc_source_ops_t;

struct cdc_source_s {
    const cdc_source_ops_t *ops;
    const cdc_type_t *produced; /* ROW type of the rows the readers produce */
};

typedef struct cdc_writer_ops_s {
    int (*write)(cdc_writer_t *writer, const cdc_batch_t *batch, cdc_error_t **err);
    /** Returns only when every written row is durable. */
    int (*flush)(cdc_writer_t *writer, cdc_error_t **err);
    void (*close)(cdc_writer_t *writer);
    /**
     * Optional: reports the writer's gauges (cdcflow_sink_retries_total, ...). Called
     * from the metrics thread at every scrape, concurrently with write and flush: it
     * must only read atomics.
     */
    void (*metrics)(cdc_writer_t *writer, cdc_metric_emit_fn emit, void *ctx);
    /*
     * Optional two-phase commit, sink half (all three or none); see
     * cdc_reader_ops_t.commit_checkpoint for the protocol. Used instead of flush
     * when the reader has the source half.
     */
    /** Makes every written row durable but not visible, tagged with checkpoint. */
    int (*prepare)(cdc_writer_t *writer, uint64_t checkpoint, cdc_error_t **err);
    /** Makes what prepare(checkpoint) kept visible; must tolerate a repeat after a crash. */
    int (*publish)(cdc_writer_t *writer, uint64_t checkpoint, cdc_error_t **err);
    /**
     * Called once after open, before the first write, with the reader's
     * last_checkpoint: publishes what this subtask prepared with an id <=
     * last_committed in an earlier run, and discards what it prepared later.
     */
    int (*recover)(cdc_writer_t *writer, uint64_t last_committed, cdc_error_t **err);
    /*
     * Optional positions kept by the sink (both or neither); see
     * cdc_reader_ops_t.positions.
     */
    /**
     * The commit point: every written row and the reader's positions (its
     * "key\tposition\n" lines) become durable and visible as one decision, so a
     * crash anywhere leaves either both or neither.
     */
    int (*commit_positions)(cdc_writer_t *writer, const char *positions, size_t len,
                            cdc_error_t **err);
    /**
     * Replaces out with "key\tposition\n", the greatest position committed for
     * each key by any writer of the table (any run, any process), after
     * finishing commits that crashed writers had decided.
     */
    int (*stored_positions)(cdc_writer_t *writer, cdc_buf_t *out, cdc_error_t **err);
    /*
     * Optional overlapped commit, sink half (both or neither); see
     * cdc_reader_ops_t.mark.
     */
    /**
     * Starts making every row written so far durable without waiting for it;
     * returns a ticket (>= 0) that durable() reaches once they are, or -1 with *err.
     */
    int64_t (*flush_begin)(cdc_writer_t *writer, cdc_error_t **err);
    /** The greatest ticket whose rows are durable; never waits. -1 with *err on a failure. */
    int64_t (*durable)(cdc_writer_t *writer, cdc_error_t **err);
} cdc_writer_ops_t;

struct cdc_writer_s {
    const cdc_writer_ops_t *ops;
};

typedef struct cdc_sink_ops_s {
    /** Which of the requested kinds the sink accepts. */
    cdc_changelog_mode_t (*changelog_mode)(cdc_sink_t *sink, cdc_changelog_mode_t requested);
    /** Optional: INSERT ... PARTITION (k='v'): every row goes to this static partition. */
    int (*apply_static_partition)(cdc_sink_t *sink, const cdc_kv_t *partition, cdc_error_t **err);
    /** Optional: INSERT OVERWRITE replaces what the job writes to. */
    int (*apply_overwrite)(cdc_sink_t *sink, bool overwrite, cdc_error_t **err);
    /**
     * Optional (Flink's SupportsWritingMetadata): the rows given to the writers
     * carry these writable metadata keys (among the factory's metadata with
     * `writable`) after the physical fields, in this order, each value of the
     * column's declared type types[i] (borrowed for the call). Called before
     * open_writer. 0, or -1 with *err (a type the sink cannot write).
     */
    int (*apply_metadata)(cdc_sink_t *sink, const char *const *keys, const cdc_type_t *const *types,
                          int n, cdc_error_t **err);
    /** Opens the writer for subtask `subtask` of `nsubtasks`. */
    int (*open_writer)(cdc_sink_t *sink, int subtask, int nsubtasks, cdc_writer_t **out,
                       cdc_error_t **err);
    void (*destroy)(cdc_sink_t *sink);
    /**
     * Optional: changes the sink's table as `change` says (its items name the
     * sink's columns; change->table is the sink's table name, change->after
     * its columns afterwards). Called with no writer open or every writer
     * flushed, before the writers for the new columns open. Must be
     * idempotent: a change applied just before a crash comes again after the
     * restart, so an ADD of a column the table has, a DROP of one it lacks or
     * a type it has already is done, not an error. NULL: the sink cannot
     * change its table (evolve fails; try_evolve and lenient go on without).
     * A sink whose files or messages describe themselves (filesystem, kafka)
     * has nothing to change but says so by returning 0.
     */
    int (*apply_schema_change)(cdc_sink_t *sink, const cdc_schema_change_t *change,
                               cdc_error_t **err);
} cdc_sink_ops_t;

struct cdc_sink_s {
    const cdc_sink_ops_t *ops;
};

typedef struct cdc_connector_factory_s {
    const char *identifier;
    const char *description;
    const cdc_option_def_t *options; /* terminated by {0} */
    void (*check)(const cdc_config_t *cfg, cdc_buf_t *problems);
    const cdc_metadata_def_t *metadata; /* NULL = none */
    int (*source_new)(const cdc_table_ctx_t *ctx, cdc_source_t **out, cdc_error_t **err);
    int (*sink_new)(const cdc_table_ctx_t *ctx, cdc_sink_t **out, cdc_error_t **err);
    /**
     * Optional (CDC sources with a signal table): sends a signal to a running
     * source through the database it reads — a row (id, type, data) inserted into
     * the table its 'signal-data-collection' option names, as Debezium's
     * signalling does. opts: the source's options (the connection ones and the
     * signal table are read). `cdcflow signal` calls it. 0, or -1 with *err.
     */
    int (*send_signal)(const cdc_kv_t *opts, const char *type, const char *data, cdc_error_t **err);
} cdc_connector_factory_t;

/* ---- registry ------------------------------------------------------------------ */

const cdc_format_factory_t *cdc_registry_format(const char *identifier);
const cdc_connector_factory_t *cdc_registry_connector(const char *identifier);
/** Adds a connector of the engine itself: found by cdc_registry_connector, never listed. */
void cdc_registry_add_internal(const cdc_connector_factory_t *factory);
/** NULL-terminated lists. */
const cdc_format_factory_t *const *cdc_registry_formats(void);
const cdc_connector_factory_t *const *cdc_registry_connectors(void);
/** Checks every factory (names, duplicates, callbacks, defaults that parse). */
int cdc_registry_check(cdc_error_t **err);

/**
 * A table's options resolved against its connector and the formats it names:
 * validates everything at once (cdc_options_validate) and fills the context.
 */
typedef struct cdc_resolved_s {
    const cdc_connector_factory_t *connector;
    cdc_config_t *cfg;
    cdc_table_format_t formats[4];
    int nformats;
} cdc_resolved_t;

int cdc_resolve_options(const cdc_kv_t *options, const char *table, cdc_resolved_t *out,
                        cdc_error_t **err);
void cdc_resolved_free(cdc_resolved_t *res);

/** Formats an unknown-identifier error with a "did you mean". */
cdc_error_t *cdc_registry_unknown(const char *kind, const char *identifier);

/**
 * Index of metadata key in defs (terminated by {0}); -1 with the error "connector
 * \"<connector>\" offers no metadata key ...", whose detail lists the readable keys.
 */
int cdc_metadata_find(const cdc_metadata_def_t *defs, const char *connector, const char *key,
                      cdc_error_t **err);

#endif
