/*
 * dbz_int.h — private to the debezium-json format: how a column's value is
 * encoded in a message (from the Kafka Connect schema when it is included),
 * and the conversion of one JSON scalar to a value of the declared column type
 * under that encoding (dbz_convert.c); the deserializer's state, its frame
 * stack and the functions its files share (debezium_json.c, dbz_events.c,
 * dbz_rows.c, dbz_nest.c for values nested in arrays and rows), and what the
 * serializer shares with them (dbz_encode.c).
 */
#ifndef DBZ_INT_H
#define DBZ_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cdc_json.h"

/** How a column is encoded; DBZ_ENC_NONE when no schema describes it. */
typedef enum dbz_enc {
    DBZ_ENC_NONE = 0,   /* no schema (or bytes without a logical name): the column type drives */
    DBZ_ENC_PLAIN,      /* a plain Connect int/float/boolean/string without a logical name */
    DBZ_ENC_DECIMAL,    /* org.apache.kafka.connect.data.Decimal: base64, scale parameter */
    DBZ_ENC_VSDECIMAL,  /* io.debezium.data.VariableScaleDecimal: {"scale": n, "value": base64} */
    DBZ_ENC_DATE,       /* io.debezium.time.Date, connect Date: days since 1970-01-01 */
    DBZ_ENC_TIME_MS,    /* io.debezium.time.Time, connect Time: millis past midnight */
    DBZ_ENC_TIME_US,    /* io.debezium.time.MicroTime */
    DBZ_ENC_TIME_NS,    /* io.debezium.time.NanoTime */
    DBZ_ENC_TS_MS,      /* io.debezium.time.Timestamp, connect Timestamp: epoch millis, no zone */
    DBZ_ENC_TS_US,      /* io.debezium.time.MicroTimestamp */
    DBZ_ENC_TS_NS,      /* io.debezium.time.NanoTimestamp */
    DBZ_ENC_ZONED_TS,   /* io.debezium.time.ZonedTimestamp: ISO-8601 text with offset */
    DBZ_ENC_ZONED_TIME, /* io.debezium.time.ZonedTime: ISO time with offset */
    DBZ_ENC_BITS        /* io.debezium.data.Bits: base64, little-endian */
} dbz_enc_t;

typedef struct dbz_colenc_s {
    uint8_t enc;   /* dbz_enc_t */
    bool bytes;    /* the schema's type is "bytes" (JsonConverter's base64), not a string */
    int32_t scale; /* DBZ_ENC_DECIMAL */
} dbz_colenc_t;

/** The encoding a Connect schema node describes (name may be NULL). */
dbz_enc_t dbz_enc_classify(const char *type, size_t tlen, const char *name, size_t nlen);
/** The logical name of an encoding, for messages. */
const char *dbz_enc_name(dbz_enc_t enc);

/** Largest Decimal/VariableScaleDecimal payload decoded (bytes); beyond is an error. */
#define DBZ_MAX_DECIMAL_BYTES 4096
/** Scales beyond +-this are an error (Connect allows any int32). */
#define DBZ_MAX_SCALE 10000

/** The unit of a temporal JSON number without the schema (timestamp.unit, time.unit). */
enum {
    DBZ_UNIT_PRECISION = 0, /* by the declared precision: <= 3 millis, 4..6 micros, 7..9 nanos */
    DBZ_UNIT_MILLIS = 1,
    DBZ_UNIT_MICROS = 2,
    DBZ_UNIT_NANOS = 3,
};

/** binary.handling.mode: how BYTES travel as JSON text, as Debezium's option of that name. */
enum { DBZ_BIN_BASE64 = 0, DBZ_BIN_BASE64_URL = 1, DBZ_BIN_HEX = 2 };

/** What a conversion needs besides the value. */
typedef struct dbz_conv_s {
    bool iso8601;        /* timestamp-format.standard = ISO-8601 */
    bool precise_base64; /* decimal.handling = precise-base64 */
    uint8_t ts_unit;     /* timestamp.unit: DBZ_UNIT_* (without the schema) */
    uint8_t time_unit;   /* time.unit: DBZ_UNIT_* (without the schema) */
    uint8_t bin_mode;    /* binary.handling.mode: DBZ_BIN_* (unless the schema says "bytes") */
    const char *in;      /* the message: strings lying inside it are referenced */
    size_t inlen;
    cdc_arena_t *arena; /* where copies go */
    char *err;          /* reason on failure (NUL-terminated, truncated) */
    size_t errlen;
} dbz_conv_t;

/**
 * Converts one JSON scalar (kind 'n' null, 'b' boolean, '#' number, 's' string,
 * as cdc_json_convert_scalar) encoded as enc into *out of type t. Returns 0, or
 * -1 with the reason in cx->err ("expected DATE, found string \"x\"").
 */
int dbz_convert(const dbz_conv_t *cx, const cdc_type_t *t, dbz_colenc_t enc, char kind,
                const char *s, size_t len, cdc_value_t *out);

/**
 * Converts a VariableScaleDecimal ({scale, value}) into *out of type t (DECIMAL,
 * FLOAT, DOUBLE, an integer type or a string type). Returns 0 or -1 as above.
 */
int dbz_convert_vsd(const dbz_conv_t *cx, const cdc_type_t *t, int64_t scale, const char *b64,
                    size_t len, cdc_value_t *out);

/* ---- the deserializer (debezium_json.c, dbz_events.c, dbz_rows.c) ------------------------- */

#define DBZ_PLACEHOLDER "__debezium_unavailable_value"

/* Metadata keys, in the order of the factory's metadata table (debezium_json.c). */
enum {
    MD_SCHEMA,
    MD_INGESTION_TS,
    MD_SOURCE_TS,
    MD_SOURCE_DB,
    MD_SOURCE_SCHEMA,
    MD_SOURCE_TABLE,
    MD_SOURCE_PROPS,
    MD__COUNT
};

/* Frames of the envelope; scalar members never get one. */
enum {
    FR_TOP,        /* schema-include: {"schema", "payload"} */
    FR_ENV,        /* the envelope {"before", "after", "source", "op", "ts_ms", ...} */
    FR_SOURCE,     /* envelope.source */
    FR_ROW,        /* envelope.before / envelope.after */
    FR_NEST,       /* a nested column value, forwarded to the row decoder */
    FR_VSD,        /* a {"scale", "value"} decimal */
    FR_SKIP,       /* a value not needed (depth counted); see purpose */
    FR_SCH,        /* the root Connect schema node */
    FR_SCH_FIELDS, /* its "fields" array */
    FR_SCH_ENVF,   /* one envelope field node ("before", "after", "source", ...) */
    FR_SCH_COLS,   /* that node's "fields" array */
    FR_SCH_COL,    /* one column node */
    FR_SCH_PARAMS, /* a column node's "parameters" (field: its nested node, -1 the column) */
    FR_SCH_NODE,   /* a column's nested node: "items", "keys", "values", a struct field (field) */
    FR_SCH_NFIELDS /* a nested struct's "fields" array (field: the struct's nested node) */
};

/* Member names. */
enum {
    K_NONE = 0, /* not needed: skip */
    K_BEFORE,
    K_AFTER,
    K_SOURCE,
    K_OP,
    K_TS_MS,
    K_SCHEMA,
    K_PAYLOAD,
    K_STATUS,
    K_ID,
    K_CONTROL, /* ddl, tableChanges, databaseName: schema-change events */
    K_BARE,    /* before/after/source outside "payload" under schema-include */
    K_BARE_OP, /* op outside "payload" under schema-include */
    K_DB,
    K_SSCHEMA,
    K_TABLE,
    K_NAME,
    K_FIELDS,
    K_TYPE,
    K_FIELD,
    K_PARAMETERS,
    K_SCALE,
    K_LENGTH,
    K_VALUE,
    K_ITEMS,
    K_KEYS,
    K_VALUES
};

/* How a nested schema node hangs from its parent. */
enum { SL_ITEMS, SL_KEYS, SL_VALUES, SL_FIELD };

/* A nested node of the column schema being read ("items", "keys", "values", struct fields). */
typedef struct dbz_snode_s {
    uint8_t enc;  /* dbz_enc_t of its logical name, 0xff = none */
    uint8_t link; /* SL_* */
    bool is_bytes;
    int32_t scale;
    int32_t parent;              /* index of the parent node; 0 is the column */
    uint32_t name_off, name_len; /* SL_FIELD: its "field" in snames */
    int64_t tid;                 /* the row type node it describes, -1 = none */
} dbz_snode_t;

/* What an FR_SKIP does when its value ends. */
enum { SKIP_PLAIN, SKIP_PAYLOAD, SKIP_PROP };

/* Envelope members seen (bits). */
#define SEEN_BEFORE 0x001u
#define SEEN_AFTER 0x002u
#define SEEN_OP 0x004u
#define SEEN_TS 0x008u
#define SEEN_SCHEMA 0x010u
#define SEEN_PAYLOAD 0x020u
#define SEEN_STATUS 0x040u
#define SEEN_ID 0x080u
#define SEEN_CONTROL 0x100u
#define SEEN_BARE 0x200u
#define SEEN_SOURCE 0x400u
#define SEEN_OTHER 0x800u

#define MAX_FRAMES 16

typedef struct frame_s {
    uint8_t kind;
    uint8_t key;     /* the member the next value belongs to */
    uint8_t purpose; /* FR_SKIP */
    bool abandon;    /* FR_NEST: a placeholder was found; the rest is skipped */
    bool is_array;   /* FR_NEST: the nested value is an array */
    int32_t field;   /* FR_NEST, FR_VSD: the column */
    uint32_t depth;  /* FR_SKIP, FR_NEST */
    size_t start;    /* offset of the value's first byte (raw text) */
} frame_t;

enum { FAST_NONE, FAST_STRING, FAST_INT, FAST_FLOAT, FAST_DOUBLE, FAST_BOOL, FAST_TS };

typedef struct dbz_field_s {
    const char *name;
    uint32_t len;
    const cdc_type_t *type;
    uint8_t fast;
    int64_t lo, hi; /* FAST_INT */
} dbz_field_t;

typedef struct prop_s {
    cdc_value_t key, val;
} prop_t;

/* A table's columns as its last schema change event gave them (dbz_ddl.c). */
typedef struct dbz_ddl_table_s {
    char *table;      /* "db.t" */
    cdc_type_t *cols; /* NULL when dropped */
    bool dropped;
} dbz_ddl_table_t;

typedef struct dbz_deser_s {
    cdc_deser_t base;
    cdc_type_t *row_type;
    uint32_t nfields, arity;
    dbz_field_t *fields;
    int32_t *slots; /* open addressing over field names */
    uint32_t mask;
    int32_t *notnull;
    uint32_t nnotnull;
    int md[MD__COUNT]; /* requested metadata codes in order */
    int nmd;
    bool want[MD__COUNT];
    bool schema_include, ignore_errors, upsert, iso8601, precise_base64;
    uint8_t ts_unit, time_unit; /* DBZ_UNIT_* */
    uint8_t bin_mode;           /* DBZ_BIN_* */
    /* the TOAST placeholder in its three renderings */
    char *ph;
    size_t ph_len;
    cdc_buf_t ph_b64, ph_hex;

    cdc_json_parser_t *parser;
    cdc_json_rowdec_t *rowdec;
    /*
     * The callbacks the parser uses (it reads them at every event): swapped for
     * the frame on top, so the hot frames (row images, source) skip the
     * dispatch on the frame kind.
     */
    yajl_callbacks cbs;

    /* column encodings from the current message's schema */
    dbz_colenc_t *enc;
    dbz_colenc_t *stage;
    uint8_t *staged;
    bool have_schema;
    /* the row type's nodes, numbered as cdc_json_hook_t says, and their encodings (dbz_nest.c) */
    uint32_t nnodes;
    const cdc_type_t **node_type;
    uint32_t *node_kid_off; /* node_kid[node_kid_off[id] + k]: child k of node id */
    uint32_t *node_kid;
    dbz_colenc_t *nenc, *nstage;
    uint8_t *nstaged;
    /* the nested nodes of the column schema being read (scratch kept across messages) */
    dbz_snode_t *snodes;
    uint32_t nsnodes, cap_snodes;
    cdc_buf_t snames;
    /* a nested VariableScaleDecimal's text */
    cdc_json_parser_t *vsd_parser;
    uint32_t vsd_depth;
    uint8_t vsd_key;
    char vsd_bad;

    /* the current message */
    cdc_batch_t *out;
    uint32_t n0;
    const char *msg;
    size_t len;
    const char *text; /* what the parser is reading now: msg, or the payload on a second pass */
    bool second_pass;
    frame_t fr[MAX_FRAMES];
    int top;                      /* -1 = no frame open */
    uint32_t seen, nkeys;         /* envelope members */
    uint32_t top_seen, top_nkeys; /* schema-include: members beside schema/payload */
    bool tombstone;
    char op[8];
    size_t oplen;
    int32_t row_before, row_after; /* batch indexes, -1 = none */
    cdc_row_t *cur_row;
    int32_t row_field;     /* FR_ROW: column of the next value, -1 = not a column */
    int32_t row_next;      /* FR_ROW: the column after the last one seen (keys come in order) */
    const char *cur_label; /* "before" / "after" */
    bool rowdec_begun;
    bool have_ts, have_src_ts;
    int64_t ts_ms, src_ts_ms;
    cdc_value_t src_db, src_schema, src_table;
    bool status_txn;    /* "status": "BEGIN" / "END" */
    bool bare_op_norow; /* schema-include, no payload, op "t" or "m": nothing to decode */
    bool schema_null, payload_null;
    bool op_null;        /* "op": null was given (an error that says so, not "missing") */
    uint8_t schema_kind; /* 1 heartbeat/transaction/schema-change root schema name */
    size_t schema_start, schema_end;
    size_t payload_start, payload_end;
    bool payload_deferred;
    /* scratch kept across messages */
    prop_t *props;
    uint32_t nprops, cap_props;
    cdc_buf_t vsd_value;
    int64_t vsd_scale;
    bool vsd_has_scale, vsd_has_value;
    /* the schema column node being read */
    int32_t col_field;
    uint8_t col_name_enc; /* 0xff = no recognized logical name */
    bool col_is_bytes;
    int32_t col_scale;
    bool envf_is_row;
    char errbuf[512];
    cdc_buf_t parse_err;
    /* schema changes (dbz_schema.c): the last row schema's text and columns */
    uint64_t nmsgs; /* messages decoded, for a change's position */
    cdc_buf_t sc_text;
    cdc_type_t *sc_cols;
    cdc_schema_change_t *sc_change; /* the change the last decode met (sc_met) */
    uint32_t sc_at;
    bool sc_met;
    char *sc_table; /* ctx->table: a change's table when the message has no source block */
    bool sc_resync; /* a schema change event was reported: the next Connect schema is taken */
    /* Debezium's schema change events (dbz_ddl.c, option schema-changes) */
    bool ddl_events;
    dbz_ddl_table_t *ddl_tables; /* the columns each table's last event gave */
    uint32_t nddl_tables;
    char **row_tables; /* "ns.table" of the tables row messages named */
    uint32_t nrow_tables;
    int64_t ddl_last; /* the fingerprint of the last event reported (read again: none) */
} dbz_deser_t;

/* ---- schema changes (dbz_schema.c) ----------------------------------------------------------- */

/** After a decoded message: 1 when its row schema differs from the last one's (d->sc_change). */
int dbz_schema_check(dbz_deser_t *d);
/** The format op: the change the last decode met. */
int dbz_schema_changes(cdc_deser_t *base, const cdc_schema_change_t *const **changes,
                       const uint32_t **at);
void dbz_schema_free(dbz_deser_t *d);
/**
 * The message's table, "ns.table" from its source block, written to buf
 * (NUL-terminated, cut at cap); returns its length, 0 when there is none.
 */
size_t dbz_src_table(const dbz_deser_t *d, char *buf, size_t cap);

/* ---- Debezium's schema change events (dbz_ddl.c) ----------------------------------------------
 */

/**
 * After a decoded message, with schema-changes on: 1 when it is a schema
 * change event (or a truncate) of a captured table that changes something
 * (d->sc_change), else 0.
 */
int dbz_ddl_check(dbz_deser_t *d);
/** After a decoded row message: notes its table as captured (allocates only for a new one). */
void dbz_ddl_note_row(dbz_deser_t *d);
void dbz_ddl_free(dbz_deser_t *d);

/* ---- errors (dbz_rows.c): each returns 0, which cancels the parse ---------------------------- */

/** Starts d's message with "corrupt Debezium JSON message: ". */
void dbz_err_begin(dbz_deser_t *d);
/** Sets d's message from fmt; returns 0. */
int dbz_fail(dbz_deser_t *d, const char *fmt, ...) CDC_PRINTF(2, 3);
/** `field "after.weight": REASON`; returns 0. */
int dbz_fail_field(dbz_deser_t *d, int32_t idx, const char *reason);
/** "null", "a boolean", "a number", "a string", "an object" or "an array" for a value's kind. */
const char *dbz_kind_noun(char kind);
/** `field "member": expected EXPECTED, found KIND`; returns 0. */
int dbz_fail_member(dbz_deser_t *d, const char *member, const char *expected, char kind);

/* ---- small helpers of the hot path ---------------------------------------------------------- */

static inline bool dbz_in_msg(const dbz_deser_t *d, const char *s, size_t len)
{
    return (uintptr_t)s >= (uintptr_t)d->msg && (uintptr_t)s + len <= (uintptr_t)d->msg + d->len;
}

/* A string value referencing the message when the text lies in it, else copied. */
static inline void dbz_str_value(dbz_deser_t *d, const char *s, size_t len, cdc_value_t *v)
{
    v->v.s.ptr = dbz_in_msg(d, s, len) ? s : cdc_arena_memdup(&d->out->arena, s, len);
    v->v.s.len = (uint32_t)len;
    v->flags = 0;
}

/* s[0..len) into dst[cap], cut to fit, NUL-terminated. */
static inline void dbz_copy_str(char *dst, size_t cap, const char *s, size_t len)
{
    if (len >= cap)
        len = cap - 1;
    memcpy(dst, s, len);
    dst[len] = '\0';
}

static inline bool dbz_is_placeholder(const dbz_deser_t *d, const char *s, size_t len)
{
    return (len == d->ph_len && memcmp(s, d->ph, len) == 0) ||
           (len == d->ph_b64.len && memcmp(s, d->ph_b64.data, len) == 0) ||
           (len == d->ph_hex.len && memcmp(s, d->ph_hex.data, len) == 0);
}

static inline uint32_t dbz_hash_name(const char *s, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* Short names compare faster inline than through memcmp. */
static inline bool dbz_same_name(const char *a, const char *b, size_t len)
{
    if (len > 16)
        return memcmp(a, b, len) == 0;
    for (size_t i = 0; i < len; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

static inline int32_t dbz_find_field(const dbz_deser_t *d, int32_t expect, const char *s,
                                     size_t len)
{
    if (expect >= 0 && (uint32_t)expect < d->nfields && d->fields[expect].len == len &&
        dbz_same_name(d->fields[expect].name, s, len))
        return expect;
    for (uint32_t h = dbz_hash_name(s, len) & d->mask;; h = (h + 1) & d->mask) {
        int32_t i = d->slots[h];
        if (i < 0 || (d->fields[i].len == len && dbz_same_name(d->fields[i].name, s, len)))
            return i;
    }
}

static inline bool dbz_key_is(const char *s, size_t len, const char *lit, size_t n)
{
    return len == n && dbz_same_name(s, lit, n);
}
#define KEY_IS(lit) dbz_key_is(s, len, lit, sizeof(lit) - 1)

/* ---- the frame stack and the parser's callbacks (dbz_events.c) ------------------------------ */

/** Opens a frame of kind on d's stack; false when it is full. */
bool dbz_push(dbz_deser_t *d, uint8_t kind);
/** Closes the frame on top. */
void dbz_pop(dbz_deser_t *d);
/** Points d->cbs at the callbacks for the frame on top (the general ones when none is). */
void dbz_set_callbacks(dbz_deser_t *d);

/* ---- row images and the end of a message (dbz_rows.c); 1 goes on, 0 cancels the parse ------- */

/** Opens the "before" or "after" image: a row added to d's batch. */
int dbz_open_row(dbz_deser_t *d, bool before);
/** Closes the current image; NOT NULL columns it left out are an error. */
int dbz_close_row(dbz_deser_t *d);
/** Converts a scalar (kind as dbz_convert) into column idx of the current image. */
int dbz_convert_field(dbz_deser_t *d, int32_t idx, char kind, const char *s, size_t len);
/** Rewrites the row decoder's error `field "c[1]": ...` as `field "after.c[1]": ...`; 0. */
int dbz_fail_rowdec(dbz_deser_t *d, int32_t idx);
/** A row decoder result as a callback result. */
int dbz_nest_rc(dbz_deser_t *d, int rc);
/** Opens a nested column value (kind '{' or '['): handed to the json format's row decoder. */
int dbz_open_nest(dbz_deser_t *d, int32_t idx, char kind);
/**
 * Settles the message just parsed: the kinds and order of its rows, their
 * origin and metadata, or why it gives none. Returns 0 or -1 (error set).
 */
int dbz_finish(dbz_deser_t *d);

/* ---- nested values (dbz_nest.c) ------------------------------------------------------------ */

/** Numbers d->row_type's nodes and allocates their encodings; dbz_nodes_free releases them. */
void dbz_nodes_init(dbz_deser_t *d);
void dbz_nodes_free(dbz_deser_t *d);
/** Adds a nested schema node under parent (0 = the column); returns its index. */
int32_t dbz_snode_add(dbz_deser_t *d, int32_t parent, uint8_t link);
/** Records a nested schema node's "field" (copied). */
void dbz_snode_name(dbz_deser_t *d, int32_t idx, const char *s, size_t len);
/** Matches the column col's nested schema nodes to its type's nodes and stages their encodings. */
void dbz_snodes_stage(dbz_deser_t *d, int32_t col);
/** Ends an envelope field's schema: staged encodings apply when it is "before"/"after". */
void dbz_nodes_commit(dbz_deser_t *d, bool is_row);
/** Sets up a conversion context for d's current message, reasons into err[errlen]. */
void dbz_conv_init(dbz_deser_t *d, dbz_conv_t *cx, char *err, size_t errlen);
/** True when an object for type t encoded as enc is a VariableScaleDecimal. */
bool dbz_takes_vsd(const cdc_type_t *t, uint8_t enc);
/** `expected ...VariableScaleDecimal {"scale": n, "value": base64}, found an object without ...` */
void dbz_vsd_missing(bool has_scale, char *buf, size_t cap);
/** Makes d's row decoder convert nested values as columns (the json row decoder's hook). */
void dbz_nest_hook(dbz_deser_t *d);

/* ---- shared by the deserializer and the serializer (debezium_json.c) ------------------------ */

/** Checks that the format context carries a ROW type the json format can handle. */
int dbz_check_row_type(const cdc_format_ctx_t *ctx, cdc_error_t **err);

/**
 * The factory's ser_new (dbz_encode.c): a serializer for ctx's row type, owned
 * by the caller (its ops' destroy frees it). Returns 0, or -1 with *err set.
 */
int dbz_ser_new(const cdc_format_ctx_t *ctx, cdc_ser_t **out, cdc_error_t **err);

#endif
