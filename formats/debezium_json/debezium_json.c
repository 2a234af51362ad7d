/*
 * debezium_json.c — the `debezium-json` format (Flink's format='debezium-json'):
 * Debezium change events, with or without the Kafka Connect schema envelope,
 * to -U/+U/+I/-D rows; rows back to Debezium events as Flink writes them.
 *
 * Decoding is one pass of yajl events through a small frame stack: the
 * envelope, its `source`, the Connect `schema` (only what says how each
 * column is encoded), and the `before`/`after` row images. Scalar columns are
 * converted here (dbz_convert.c knows the Debezium semantic types); nested
 * columns (ARRAY, MAP, ROW, or an object for a STRING) are handed to the json
 * format's row decoder. Rows go straight into the caller's batch; `op` may
 * come after the images, so the kinds and the order of the rows are settled
 * when the message ends. Nothing is allocated per message in steady state.
 *
 * Decisions where Flink or the issue left room (also in the option texts):
 *  - row->origin is "<source.schema>.<source.table>" when source.schema is a
 *    non-empty string (PostgreSQL), else "<source.db>.<source.table>" (MySQL).
 *  - With schema-include, a `payload` that comes before its `schema` is
 *    handled without buffering: it is skipped, and once the message has been
 *    read, the payload's byte range is parsed again with the schema known.
 *  - changelog-mode=upsert: `u` gives only +U (from `after`), `d` gives -D
 *    from `before` (with REPLICA IDENTITY DEFAULT it holds the key columns);
 *    a `d` whose `before` is null (REPLICA IDENTITY NOTHING) has no key at
 *    all, so it stays an error: a format has no access to the Kafka key.
 *  - The TOAST placeholder (option unavailable.value.placeholder, as text,
 *    as its base64 and as its hex form; or inside an array) marks the column
 *    CDC_V_UNCHANGED | CDC_V_NULL: never data. The serializer writes it back
 *    as the placeholder for string and binary columns, null otherwise.
 *  - Heartbeats, transaction BEGIN/END, schema-change events, truncate (t),
 *    logical messages (m) and tombstones (empty, `null`, or the legacy
 *    {"schema":null,"payload":null}) give no row and no error.
 *  - ignore-parse-errors drops the whole message and counts it in
 *    deser->skipped, as the json format does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_json.h"
#include "dbz_int.h"

/* ---- options and metadata ------------------------------------------------------------------ */

static const char *const dbz_decimal_handling[] = {"string", "precise-base64", NULL};
static const char *const dbz_changelog_modes[] = {"all", "upsert", NULL};

#define DBZ_PLACEHOLDER "__debezium_unavailable_value"

static const cdc_option_def_t dbz_options[] = {
    {.key = "schema-include",
     .type = CDC_OPT_BOOL,
     .default_value = "false",
     .description = "Messages are Kafka Connect envelopes {\"schema\": ..., \"payload\": ...} "
                    "(JsonConverter schemas.enable=true). The schema then says how each column "
                    "is encoded (Debezium semantic types such as io.debezium.time.MicroTimestamp "
                    "or connect Decimal) and is readable as metadata 'schema'. Decoding only; a "
                    "payload before its schema is read in a second pass over its bytes."},
    {.key = "ignore-parse-errors",
     .type = CDC_OPT_BOOL,
     .default_value = "false",
     .description = "Drop a message that fails to decode (bad JSON, wrong types, unknown op, a "
                    "null \"before\" on update/delete) and count it, instead of failing. (Flink "
                    "sets only the bad field to NULL; cdcflow drops the whole message.)"},
    CDC_JSON_OPTDEF_TIMESTAMP_STANDARD,
    CDC_JSON_OPTDEF_MAP_NULL_KEY_MODE,
    CDC_JSON_OPTDEF_MAP_NULL_KEY_LITERAL,
    CDC_JSON_OPTDEF_DECIMAL_AS_PLAIN,
    {.key = "decimal.handling",
     .type = CDC_OPT_ENUM,
     .default_value = "string",
     .enum_values = dbz_decimal_handling,
     .description = "(cdcflow) Without the schema, how a JSON string for a DECIMAL column is "
                    "read: 'string' = decimal text (Debezium decimal.handling.mode=string); "
                    "base64 text is then an error that says so. 'precise-base64' = Debezium's "
                    "default precise encoding (base64 big-endian two's-complement unscaled "
                    "value) read with the column's declared scale. JSON numbers are always "
                    "numbers; with schema-include the schema decides."},
    {.key = "changelog-mode",
     .type = CDC_OPT_ENUM,
     .default_value = "all",
     .enum_values = dbz_changelog_modes,
     .description = "(cdcflow) 'all': updates give -U (before) and +U (after); a null "
                    "\"before\" on update/delete is an error (PostgreSQL needs REPLICA IDENTITY "
                    "FULL). 'upsert': for PostgreSQL REPLICA IDENTITY DEFAULT; updates give "
                    "only +U, deletes -D from the key columns in \"before\"; the changelog mode "
                    "is then upsert [I,UA,D] and the sink applies rows by primary key. A delete "
                    "whose \"before\" is null (REPLICA IDENTITY NOTHING) stays an error."},
    {.key = "unavailable.value.placeholder",
     .type = CDC_OPT_STRING,
     .default_value = DBZ_PLACEHOLDER,
     .description = "(cdcflow) Debezium's placeholder for an unchanged TOASTed (or MySQL NOBLOB) "
                    "value, as set in the connector. A column holding it (as text, base64 or hex, "
                    "or inside an array) is marked unchanged, printed <unchanged>, never taken "
                    "as data; sinks keep the stored value. Must not be empty."},
    {.key = "source.connector",
     .type = CDC_OPT_STRING,
     .description =
         "(cdcflow, serialization) 'mysql' or 'postgresql': write Debezium's "
         "\"source\" block (version, connector, name, ts_ms, snapshot, db, table and "
         "file/pos/gtid/server_id or schema/txId/lsn) so Debezium consumers accept the "
         "messages. Its values come from the sink's columns named "
         "source.fields-prefix + the Debezium field (source_file, source_pos, "
         "source_ts_ms, ...), e.g. fed from the mysql-cdc metadata columns; those "
         "columns are left out of before/after. Unset: no source block (Flink's shape)."},
    {.key = "source.name",
     .type = CDC_OPT_STRING,
     .default_value = "cdcflow",
     .description = "(cdcflow, serialization) source.name: Debezium's topic prefix / logical "
                    "server name."},
    {.key = "source.fields-prefix",
     .type = CDC_OPT_STRING,
     .default_value = "source_",
     .description = "(cdcflow, serialization) With source.connector: the prefix of the sink "
                    "columns that fill the source block instead of the row images."},
    {0},
};

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

static const cdc_metadata_def_t dbz_metadata[] = {
    {"schema", "STRING NULL",
     "the message's Kafka Connect schema as JSON text (NULL unless schema-include)"},
    {"ingestion-timestamp", "TIMESTAMP_LTZ(3) NULL",
     "when Debezium processed the event (payload ts_ms)"},
    {"source.timestamp", "TIMESTAMP_LTZ(3) NULL",
     "when the change was made in the database "
     "(source.ts_ms)"},
    {"source.database", "STRING NULL", "source.db"},
    {"source.schema", "STRING NULL", "source.schema (PostgreSQL; NULL for MySQL)"},
    {"source.table", "STRING NULL", "source.table"},
    {"source.properties", "MAP<STRING, STRING> NULL", "every member of the source block, as text"},
    {0},
};

/* ---- deserializer state ---------------------------------------------------------------------- */

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
    FR_SCH_PARAMS  /* a column node's "parameters" */
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
    K_VALUE
};

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
} dbz_deser_t;

/* ---- errors ---------------------------------------------------------------------------------- */

static void err_begin(dbz_deser_t *d)
{
    cdc_buf_clear(&d->base.errmsg);
    cdc_buf_puts(&d->base.errmsg, "corrupt Debezium JSON message: ");
}

static int fail(dbz_deser_t *d, const char *fmt, ...) CDC_PRINTF(2, 3);
static int fail(dbz_deser_t *d, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    err_begin(d);
    cdc_buf_puts(&d->base.errmsg, tmp);
    return 0; /* cancels the parse */
}

/* `field "after.weight": REASON` */
static int fail_field(dbz_deser_t *d, int32_t idx, const char *reason)
{
    return fail(d, "field \"%s.%s\": %s", d->cur_label, d->fields[idx].name, reason);
}

static const char *kind_noun(char kind)
{
    switch (kind) {
    case 'n':
        return "null";
    case 'b':
        return "a boolean";
    case '#':
        return "a number";
    case 's':
        return "a string";
    case '{':
        return "an object";
    default:
        return "an array";
    }
}

static int fail_member(dbz_deser_t *d, const char *member, const char *expected, char kind)
{
    return fail(d, "field \"%s\": expected %s, found %s", member, expected, kind_noun(kind));
}

/* ---- helpers --------------------------------------------------------------------------------- */

static inline bool in_msg(const dbz_deser_t *d, const char *s, size_t len)
{
    return (uintptr_t)s >= (uintptr_t)d->msg && (uintptr_t)s + len <= (uintptr_t)d->msg + d->len;
}

/* A string value referencing the message when the text lies in it, else copied. */
static void str_value(dbz_deser_t *d, const char *s, size_t len, cdc_value_t *v)
{
    v->v.s.ptr = in_msg(d, s, len) ? s : cdc_arena_memdup(&d->out->arena, s, len);
    v->v.s.len = (uint32_t)len;
    v->flags = 0;
}

static inline bool is_placeholder(const dbz_deser_t *d, const char *s, size_t len)
{
    return (len == d->ph_len && memcmp(s, d->ph, len) == 0) ||
           (len == d->ph_b64.len && memcmp(s, d->ph_b64.data, len) == 0) ||
           (len == d->ph_hex.len && memcmp(s, d->ph_hex.data, len) == 0);
}

static uint32_t hash_name(const char *s, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* Short names compare faster inline than through memcmp. */
static inline bool same_name(const char *a, const char *b, size_t len)
{
    if (len > 16)
        return memcmp(a, b, len) == 0;
    for (size_t i = 0; i < len; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

static int32_t find_field(const dbz_deser_t *d, int32_t expect, const char *s, size_t len)
{
    if (expect >= 0 && (uint32_t)expect < d->nfields && d->fields[expect].len == len &&
        same_name(d->fields[expect].name, s, len))
        return expect;
    for (uint32_t h = hash_name(s, len) & d->mask;; h = (h + 1) & d->mask) {
        int32_t i = d->slots[h];
        if (i < 0 || (d->fields[i].len == len && same_name(d->fields[i].name, s, len)))
            return i;
    }
}

static inline bool key_is(const char *s, size_t len, const char *lit, size_t n)
{
    return len == n && same_name(s, lit, n);
}
#define KEY_IS(lit) key_is(s, len, lit, sizeof(lit) - 1)

static void set_callbacks(dbz_deser_t *d);

static bool push(dbz_deser_t *d, uint8_t kind)
{
    if (d->top + 1 >= MAX_FRAMES)
        return false;
    frame_t *f = &d->fr[++d->top];
    f->kind = kind;
    f->key = K_NONE;
    f->purpose = SKIP_PLAIN;
    f->abandon = false;
    f->is_array = false;
    f->field = -1;
    f->depth = 0;
    f->start = 0;
    set_callbacks(d);
    return true;
}

static void pop(dbz_deser_t *d)
{
    d->top--;
    set_callbacks(d);
}

static size_t offset(const dbz_deser_t *d)
{
    return cdc_json_parser_offset(d->parser);
}

/* Starts skipping the container just opened. */
static int skip_container(dbz_deser_t *d, uint8_t purpose)
{
    size_t at = offset(d);
    if (!push(d, FR_SKIP))
        return fail(d, "JSON nested too deeply");
    d->fr[d->top].depth = 1;
    d->fr[d->top].purpose = purpose;
    d->fr[d->top].start = at ? at - 1 : 0;
    return 1;
}

/* ---- rows ------------------------------------------------------------------------------------ */

static int open_row(dbz_deser_t *d, bool before)
{
    int32_t *slot = before ? &d->row_before : &d->row_after;
    if (*slot >= 0)
        return fail(d, "field \"%s\" appears twice", before ? "before" : "after");
    if (!push(d, FR_ROW))
        return fail(d, "JSON nested too deeply");
    cdc_row_t *row = cdc_batch_add(d->out, before ? CDC_UPDATE_BEFORE : CDC_UPDATE_AFTER, d->arity);
    *slot = (int32_t)(d->out->n - 1);
    d->cur_row = row;
    d->row_field = -1;
    d->row_next = 0;
    d->cur_label = before ? "before" : "after";
    d->rowdec_begun = false;
    return 1;
}

static int close_row(dbz_deser_t *d)
{
    for (uint32_t k = 0; k < d->nnotnull; k++) {
        int32_t i = d->notnull[k];
        if (d->cur_row->values[i].flags == CDC_V_NULL) {
            char reason[200];
            snprintf(reason, sizeof(reason), "missing, expected %s NOT NULL",
                     cdc_type_root_name(d->fields[i].type->root));
            return fail_field(d, i, reason);
        }
    }
    pop(d);
    d->cur_row = NULL;
    return 1;
}

/*
 * Plain decimal text with few digits, exactly: m / 10^k with m and 10^k both
 * exact is one correctly rounded IEEE division (Clinger's fast path), the same
 * value strtod/strtof give. Returns false when the text does not qualify.
 */
static bool fast_real(const char *s, size_t len, bool is_float, double *d, float *f)
{
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    static const float p10f[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
    size_t i = 0;
    bool neg = len && s[0] == '-';
    i += neg;
    uint64_t m = 0;
    int nd = 0, frac = 0;
    bool dot = false;
    for (; i < len; i++) {
        unsigned c = (unsigned)(unsigned char)s[i] - '0';
        if (c <= 9) {
            m = m * 10 + c;
            nd += m != 0;
            frac += dot;
            if (nd > 15)
                return false;
        } else if (s[i] == '.' && !dot) {
            dot = true;
        } else {
            return false; /* exponent: the slow path */
        }
    }
    if (is_float) {
        if (m > (1u << 24) || frac > 10)
            return false;
        float v = (float)m / p10f[frac];
        *f = neg ? -v : v;
    } else {
        if (frac > 22)
            return false;
        double v = (double)m / p10[frac];
        *d = neg ? -v : v;
    }
    return true;
}

static int convert_field(dbz_deser_t *d, int32_t idx, char kind, const char *s, size_t len)
{
    const dbz_field_t *f = &d->fields[idx];
    cdc_value_t *v = &d->cur_row->values[idx];
    dbz_colenc_t ce = {0, 0};
    if (d->have_schema)
        ce = d->enc[idx];
    if (kind == 's' && is_placeholder(d, s, len)) {
        v->flags = CDC_V_NULL | CDC_V_UNCHANGED;
        return 1;
    }
    if (ce.enc <= DBZ_ENC_PLAIN) {
        switch (f->fast) {
        case FAST_STRING:
            if (kind == 's') {
                str_value(d, s, len, v);
                return 1;
            }
            break;
        case FAST_INT:
            if (kind == '#') {
                int64_t x;
                if (cdc_text_parse_i64(s, len, &x) == 0 && x >= f->lo && x <= f->hi) {
                    v->v.i = x;
                    v->flags = 0;
                    return 1;
                }
            }
            break;
        case FAST_FLOAT:
        case FAST_DOUBLE:
            if (kind == '#' && fast_real(s, len, f->fast == FAST_FLOAT, &v->v.d, &v->v.f)) {
                v->flags = 0;
                return 1;
            }
            if (kind == '#' && len < 64) {
                char z[64];
                memcpy(z, s, len);
                z[len] = '\0';
                if (f->fast == FAST_FLOAT)
                    v->v.f = strtof(z, NULL);
                else
                    v->v.d = strtod(z, NULL);
                v->flags = 0;
                return 1;
            }
            break;
        case FAST_BOOL:
            if (kind == 'b') {
                v->v.b = s[0] == 't';
                v->flags = 0;
                return 1;
            }
            break;
        case FAST_TS: /* epoch millis into TIMESTAMP(3..9) / TIMESTAMP_LTZ(3..9) */
            if (kind == '#') {
                int64_t x;
                if (cdc_text_parse_i64(s, len, &x) == 0 && x >= -62167219200000LL &&
                    x <= 253402300799999LL) {
                    v->v.ts.millis = x;
                    v->v.ts.nanos = 0;
                    v->flags = 0;
                    return 1;
                }
            }
            break;
        default:
            break;
        }
    }
    dbz_conv_t cx = {
        .iso8601 = d->iso8601,
        .precise_base64 = d->precise_base64,
        .in = d->msg,
        .inlen = d->len,
        .arena = &d->out->arena,
        .err = d->errbuf,
        .errlen = sizeof(d->errbuf),
    };
    if (dbz_convert(&cx, f->type, ce, kind, s, len, v) < 0)
        return fail_field(d, idx, d->errbuf);
    return 1;
}

/* Rewrites a row decoder error `field "c[1]": ...` as `field "after.c[1]": ...`. */
static int fail_rowdec(dbz_deser_t *d, int32_t idx)
{
    const char *e = cdc_json_rowdec_error(d->rowdec);
    if (strncmp(e, "field \"", 7) == 0)
        return fail(d, "field \"%s.%s", d->cur_label, e + 7);
    return fail_field(d, idx, e);
}

static int nest_rc(dbz_deser_t *d, int rc)
{
    if (rc < 0)
        return fail_rowdec(d, d->fr[d->top].field);
    return 1;
}

/* Opens a nested column value: the row decoder gets the field's key and the event. */
static int open_nest(dbz_deser_t *d, int32_t idx, char kind)
{
    if (!d->rowdec_begun) {
        cdc_json_rowdec_begin(d->rowdec, d->cur_row, &d->out->arena);
        d->rowdec_begun = true;
    }
    if (!push(d, FR_NEST))
        return fail(d, "JSON nested too deeply");
    frame_t *f = &d->fr[d->top];
    f->field = idx;
    f->depth = 1;
    f->is_array = kind == '[';
    const dbz_field_t *fd = &d->fields[idx];
    if (cdc_json_rowdec_map_key(d->rowdec, (const unsigned char *)fd->name, fd->len) < 0)
        return fail_rowdec(d, idx);
    int rc =
        kind == '[' ? cdc_json_rowdec_start_array(d->rowdec) : cdc_json_rowdec_start_map(d->rowdec);
    return nest_rc(d, rc);
}

/* ---- the schema ------------------------------------------------------------------------------ */

static void col_begin(dbz_deser_t *d)
{
    d->col_field = -1;
    d->col_name_enc = 0xff;
    d->col_is_bytes = false;
    d->col_scale = 0;
}

static void col_end(dbz_deser_t *d)
{
    if (d->col_field < 0)
        return;
    dbz_colenc_t ce;
    if (d->col_name_enc != 0xff)
        ce.enc = d->col_name_enc;
    else
        ce.enc = d->col_is_bytes ? DBZ_ENC_NONE : DBZ_ENC_PLAIN;
    ce.scale = d->col_scale;
    d->stage[d->col_field] = ce;
    d->staged[d->col_field] = 1;
}

static void envf_end(dbz_deser_t *d)
{
    for (uint32_t i = 0; i < d->nfields; i++) {
        if (d->staged[i] && d->envf_is_row)
            d->enc[i] = d->stage[i];
        d->staged[i] = 0;
    }
    d->envf_is_row = false;
}

static void schema_name(dbz_deser_t *d, const char *s, size_t len)
{
    static const char *const control[] = {
        "io.debezium.connector.common.Heartbeat",
        "io.debezium.connector.common.TransactionMetadataValue",
    };
    for (size_t i = 0; i < sizeof(control) / sizeof(control[0]); i++)
        if (key_is(s, len, control[i], strlen(control[i])))
            d->schema_kind = 1;
    static const char suffix[] = ".SchemaChangeValue";
    if (len >= sizeof(suffix) - 1 &&
        memcmp(s + len - (sizeof(suffix) - 1), suffix, sizeof(suffix) - 1) == 0)
        d->schema_kind = 1;
}

static int sch_param(dbz_deser_t *d, uint8_t key, char kind, const char *s, size_t len)
{
    if (key != K_SCALE || (kind != 's' && kind != '#'))
        return 1; /* "length" and the rest are not needed */
    int64_t v;
    if (cdc_text_parse_i64(s, len, &v) < 0 || v < -DBZ_MAX_SCALE || v > DBZ_MAX_SCALE)
        return fail(d,
                    "field \"schema\": parameters.scale of column \"%s\" is not a scale: "
                    "\"%.*s\"",
                    d->col_field >= 0 ? d->fields[d->col_field].name : "?",
                    (int)(len > 40 ? 40 : len), s);
    d->col_scale = (int32_t)v;
    return 1;
}

/* ---- events ---------------------------------------------------------------------------------- */

static uint8_t env_key(const char *s, size_t len, uint32_t *seen)
{
    uint32_t bit;
    uint8_t k;
    switch (len) {
    case 2:
        if (KEY_IS("op")) {
            k = K_OP;
            bit = SEEN_OP;
        } else if (KEY_IS("id")) {
            k = K_ID;
            bit = SEEN_ID;
        } else {
            goto other;
        }
        break;
    case 3:
        if (!KEY_IS("ddl"))
            goto other;
        k = K_CONTROL;
        bit = SEEN_CONTROL;
        break;
    case 5:
        if (KEY_IS("after")) {
            k = K_AFTER;
            bit = SEEN_AFTER;
        } else if (KEY_IS("ts_ms")) {
            k = K_TS_MS;
            bit = SEEN_TS;
        } else {
            goto other;
        }
        break;
    case 6:
        if (KEY_IS("before")) {
            k = K_BEFORE;
            bit = SEEN_BEFORE;
        } else if (KEY_IS("source")) {
            k = K_SOURCE;
            bit = SEEN_SOURCE;
        } else if (KEY_IS("schema")) {
            k = K_SCHEMA;
            bit = SEEN_SCHEMA;
        } else if (KEY_IS("status")) {
            k = K_STATUS;
            bit = SEEN_STATUS;
        } else {
            goto other;
        }
        break;
    case 7:
        if (!KEY_IS("payload"))
            goto other;
        k = K_PAYLOAD;
        bit = SEEN_PAYLOAD;
        break;
    case 12:
    case 13:
        if (!KEY_IS("tableChanges") && !KEY_IS("databaseName"))
            goto other;
        k = K_CONTROL;
        bit = SEEN_CONTROL;
        break;
    default:
    other:
        k = K_NONE;
        bit = SEEN_OTHER;
        break;
    }
    *seen |= bit;
    return k;
}

static uint8_t top_key(dbz_deser_t *d, const char *s, size_t len)
{
    uint8_t k = env_key(s, len, &d->top_seen);
    switch (k) {
    case K_OP:
        d->top_seen |= SEEN_BARE;
        return K_BARE_OP;
    case K_BEFORE:
    case K_AFTER:
    case K_SOURCE:
        d->top_seen |= SEEN_BARE;
        return K_BARE;
    case K_TS_MS:
        return K_NONE;
    default:
        return k;
    }
}

static uint8_t source_key(const char *s, size_t len)
{
    switch (len) {
    case 2:
        return KEY_IS("db") ? K_DB : K_NONE;
    case 5:
        if (KEY_IS("table"))
            return K_TABLE;
        return KEY_IS("ts_ms") ? K_TS_MS : K_NONE;
    case 6:
        return KEY_IS("schema") ? K_SSCHEMA : K_NONE;
    default:
        return K_NONE;
    }
}

static uint8_t schema_key(uint8_t frame, const char *s, size_t len)
{
    switch (frame) {
    case FR_SCH:
        if (KEY_IS("name"))
            return K_NAME;
        return KEY_IS("fields") ? K_FIELDS : K_NONE;
    case FR_SCH_ENVF:
        if (KEY_IS("field"))
            return K_FIELD;
        return KEY_IS("fields") ? K_FIELDS : K_NONE;
    case FR_SCH_COL:
        if (KEY_IS("type"))
            return K_TYPE;
        if (KEY_IS("name"))
            return K_NAME;
        if (KEY_IS("field"))
            return K_FIELD;
        return KEY_IS("parameters") ? K_PARAMETERS : K_NONE;
    case FR_SCH_PARAMS:
        return KEY_IS("scale") ? K_SCALE : K_NONE;
    default:
        return K_NONE;
    }
}

static int root_closed(dbz_deser_t *d);

/* A property of source.properties: key and value as text. */
static prop_t *prop_add(dbz_deser_t *d)
{
    if (d->nprops == d->cap_props) {
        d->cap_props = d->cap_props ? d->cap_props * 2 : 32;
        d->props = cdc_xrealloc(d->props, d->cap_props * sizeof(prop_t));
    }
    return &d->props[d->nprops++];
}

static int on_key(void *ctx, const unsigned char *key, size_t len)
{
    dbz_deser_t *d = ctx;
    const char *s = (const char *)key;
    frame_t *f = &d->fr[d->top];
    switch (f->kind) {
    case FR_ROW:
        d->row_field = find_field(d, d->row_next, s, len); /* -1: not a column, skip it */
        if (d->row_field >= 0)
            d->row_next = d->row_field + 1;
        return 1;
    case FR_ENV:
        f->key = env_key(s, len, &d->seen);
        d->nkeys++;
        return 1;
    case FR_TOP:
        f->key = top_key(d, s, len);
        d->top_nkeys++;
        return 1;
    case FR_SOURCE:
        f->key = source_key(s, len);
        if (d->want[MD_SOURCE_PROPS]) {
            prop_t *p = prop_add(d);
            str_value(d, s, len, &p->key);
            p->val.flags = CDC_V_NULL;
        }
        return 1;
    case FR_NEST:
        if (f->abandon)
            return 1;
        return nest_rc(d, cdc_json_rowdec_map_key(d->rowdec, key, len));
    case FR_VSD:
        f->key = KEY_IS("scale") ? K_SCALE : KEY_IS("value") ? K_VALUE : K_NONE;
        return 1;
    case FR_SKIP:
        return 1;
    default: /* schema frames */
        f->key = schema_key(f->kind, s, len);
        return 1;
    }
}

/* The value of a member of FR_ENV / FR_TOP that is a scalar. */
static int env_scalar(dbz_deser_t *d, frame_t *f, char kind, const char *s, size_t len)
{
    switch (f->key) {
    case K_OP:
        if (kind == 'n') {
            d->seen &= ~SEEN_OP;
            return 1;
        }
        if (kind != 's')
            return fail_member(d, "op", "a string", kind);
        d->oplen = len;
        memcpy(d->op, s, len < sizeof(d->op) ? len : sizeof(d->op));
        return 1;
    case K_BEFORE:
    case K_AFTER:
        if (kind != 'n')
            return fail_member(d, f->key == K_BEFORE ? "before" : "after", "an object or null",
                               kind);
        return 1;
    case K_SOURCE:
        if (kind != 'n')
            return fail_member(d, "source", "an object or null", kind);
        return 1;
    case K_TS_MS:
        if (kind == '#' && cdc_text_parse_i64(s, len, &d->ts_ms) == 0)
            d->have_ts = true;
        else if (kind != 'n' && d->want[MD_INGESTION_TS])
            return fail_member(d, "ts_ms", "BIGINT", kind);
        return 1;
    case K_SCHEMA:
        if (kind == 'n') {
            d->schema_null = true;
            return 1;
        }
        if (f->kind == FR_TOP)
            return fail_member(d, "schema", "an object or null", kind);
        return 1;
    case K_PAYLOAD:
        if (kind == 'n') {
            d->payload_null = true;
            return 1;
        }
        if (f->kind == FR_TOP)
            return fail_member(d, "payload", "an object or null", kind);
        return 1;
    case K_STATUS:
        if (kind == 's' && (KEY_IS("BEGIN") || KEY_IS("END")))
            d->status_txn = true;
        return 1;
    case K_BARE_OP:
        d->bare_op_norow = kind == 's' && (KEY_IS("t") || KEY_IS("m"));
        return 1;
    default:
        return 1;
    }
}

static int source_scalar(dbz_deser_t *d, frame_t *f, char kind, const char *s, size_t len)
{
    if (d->want[MD_SOURCE_PROPS] && d->nprops > 0) {
        prop_t *p = &d->props[d->nprops - 1];
        if (kind == 's' || kind == '#' || kind == 'b')
            str_value(d, s, len, &p->val);
    }
    cdc_value_t *v;
    int md;
    const char *name;
    switch (f->key) {
    case K_DB:
        v = &d->src_db;
        md = MD_SOURCE_DB;
        name = "source.db";
        break;
    case K_SSCHEMA:
        v = &d->src_schema;
        md = MD_SOURCE_SCHEMA;
        name = "source.schema";
        break;
    case K_TABLE:
        v = &d->src_table;
        md = MD_SOURCE_TABLE;
        name = "source.table";
        break;
    case K_TS_MS:
        if (kind == '#' && cdc_text_parse_i64(s, len, &d->src_ts_ms) == 0)
            d->have_src_ts = true;
        else if (kind != 'n' && d->want[MD_SOURCE_TS])
            return fail_member(d, "source.ts_ms", "BIGINT", kind);
        return 1;
    default:
        return 1;
    }
    if (kind == 's')
        str_value(d, s, len, v);
    else if (kind != 'n' && d->want[md])
        return fail_member(d, name, "STRING", kind);
    return 1;
}

static int schema_scalar(dbz_deser_t *d, frame_t *f, char kind, const char *s, size_t len)
{
    switch (f->kind) {
    case FR_SCH:
        if (f->key == K_NAME && kind == 's')
            schema_name(d, s, len);
        return 1;
    case FR_SCH_ENVF:
        if (f->key == K_FIELD && kind == 's')
            d->envf_is_row = KEY_IS("before") || KEY_IS("after");
        return 1;
    case FR_SCH_COL:
        if (kind != 's')
            return 1;
        if (f->key == K_TYPE) {
            d->col_is_bytes = KEY_IS("bytes");
        } else if (f->key == K_NAME) {
            dbz_enc_t e = dbz_enc_classify(NULL, 0, s, len);
            d->col_name_enc = e == DBZ_ENC_PLAIN ? 0xff : (uint8_t)e;
        } else if (f->key == K_FIELD) {
            d->col_field = find_field(d, -1, s, len);
        }
        return 1;
    case FR_SCH_PARAMS:
        return sch_param(d, f->key, kind, s, len);
    default:
        return 1;
    }
}

static int on_scalar(dbz_deser_t *d, char kind, const char *s, size_t len)
{
    if (d->top < 0) {
        if (kind == 'n') { /* the literal `null`: a tombstone */
            d->tombstone = true;
            return root_closed(d);
        }
        return fail(d, "expected a JSON object, found %s", kind_noun(kind));
    }
    frame_t *f = &d->fr[d->top];
    switch (f->kind) {
    case FR_ROW:
        if (d->row_field < 0)
            return 1;
        return convert_field(d, d->row_field, kind, s, len);
    case FR_ENV:
    case FR_TOP:
        return env_scalar(d, f, kind, s, len);
    case FR_SOURCE:
        return source_scalar(d, f, kind, s, len);
    case FR_NEST: {
        if (f->abandon)
            return 1;
        if (kind == 's' && f->depth == 1 && f->is_array && is_placeholder(d, s, len)) {
            f->abandon = true; /* an array with the TOAST placeholder: unchanged */
            return 1;
        }
        int rc;
        switch (kind) {
        case 'n':
            rc = cdc_json_rowdec_null(d->rowdec);
            break;
        case 'b':
            rc = cdc_json_rowdec_bool(d->rowdec, s[0] == 't');
            break;
        case '#':
            rc = cdc_json_rowdec_number(d->rowdec, s, len);
            break;
        default:
            rc = cdc_json_rowdec_string(d->rowdec, (const unsigned char *)s, len);
            break;
        }
        return nest_rc(d, rc);
    }
    case FR_VSD:
        if (f->key == K_SCALE) {
            if (kind != '#' || cdc_text_parse_i64(s, len, &d->vsd_scale) < 0)
                return fail(d, "field \"%s.%s\": expected %s scale as an integer, found %s",
                            d->cur_label, d->fields[f->field].name, dbz_enc_name(DBZ_ENC_VSDECIMAL),
                            kind_noun(kind));
            d->vsd_has_scale = true;
        } else if (f->key == K_VALUE) {
            if (kind != 's')
                return fail(d, "field \"%s.%s\": expected %s value as base64 text, found %s",
                            d->cur_label, d->fields[f->field].name, dbz_enc_name(DBZ_ENC_VSDECIMAL),
                            kind_noun(kind));
            cdc_buf_clear(&d->vsd_value);
            cdc_buf_append(&d->vsd_value, s, len);
            d->vsd_has_value = true;
        }
        return 1;
    case FR_SKIP:
        return 1;
    default:
        return schema_scalar(d, f, kind, s, len);
    }
}

static int on_null(void *ctx)
{
    return on_scalar(ctx, 'n', "null", 4);
}

static int on_bool(void *ctx, int b)
{
    return on_scalar(ctx, 'b', b ? "true" : "false", b ? 4 : 5);
}

static int on_number(void *ctx, const char *s, size_t len)
{
    return on_scalar(ctx, '#', s, len);
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
    return on_scalar(ctx, 's', (const char *)s, len);
}

/* An object or array opens (kind '{' or '['). */
static int on_open(dbz_deser_t *d, char kind)
{
    if (d->top < 0) {
        if (kind != '{')
            return fail(d, "expected a JSON object, found an array");
        push(d, d->schema_include && !d->second_pass ? FR_TOP : FR_ENV);
        return 1;
    }
    frame_t *f = &d->fr[d->top];
    switch (f->kind) {
    case FR_ROW: {
        int32_t idx = d->row_field;
        if (idx < 0)
            return skip_container(d, SKIP_PLAIN);
        const cdc_type_t *t = d->fields[idx].type;
        uint8_t enc = d->have_schema ? d->enc[idx].enc : DBZ_ENC_NONE;
        bool numeric = t->root == CDC_T_DECIMAL || t->root == CDC_T_FLOAT ||
                       t->root == CDC_T_DOUBLE || cdc_type_is_integer(t);
        if (kind == '{' && (enc == DBZ_ENC_VSDECIMAL || (numeric && enc <= DBZ_ENC_PLAIN)) &&
            (numeric || t->root == CDC_T_CHAR || t->root == CDC_T_VARCHAR)) {
            if (!push(d, FR_VSD))
                return fail(d, "JSON nested too deeply");
            d->fr[d->top].field = idx;
            d->vsd_has_scale = d->vsd_has_value = false;
            return 1;
        }
        return open_nest(d, idx, kind);
    }
    case FR_NEST:
        if (++f->depth > CDC_JSON_MAX_DEPTH)
            return fail(d, "JSON nested deeper than %d levels", CDC_JSON_MAX_DEPTH);
        if (f->abandon)
            return 1;
        return nest_rc(d, kind == '[' ? cdc_json_rowdec_start_array(d->rowdec)
                                      : cdc_json_rowdec_start_map(d->rowdec));
    case FR_SKIP:
        if (++f->depth > CDC_JSON_MAX_DEPTH)
            return fail(d, "JSON nested deeper than %d levels", CDC_JSON_MAX_DEPTH);
        return 1;
    case FR_ENV:
    case FR_TOP:
        switch (f->key) {
        case K_BEFORE:
        case K_AFTER:
            if (kind != '{')
                return fail_member(d, f->key == K_BEFORE ? "before" : "after", "an object or null",
                                   kind);
            return open_row(d, f->key == K_BEFORE);
        case K_SOURCE:
            if (kind != '{')
                return fail_member(d, "source", "an object or null", kind);
            if (!push(d, FR_SOURCE))
                return fail(d, "JSON nested too deeply");
            return 1;
        case K_SCHEMA:
            if (f->kind == FR_TOP && kind != '{')
                return fail_member(d, "schema", "an object or null", kind);
            if (kind != '{' || d->schema_include != (f->kind == FR_TOP))
                return skip_container(d, SKIP_PLAIN);
            /* the Connect schema: column encodings, or just its name when not included */
            d->schema_start = offset(d) - 1;
            if (!push(d, FR_SCH))
                return fail(d, "JSON nested too deeply");
            return 1;
        case K_PAYLOAD:
            if (f->kind == FR_TOP) {
                if (kind != '{')
                    return fail_member(d, "payload", "an object or null", kind);
                if (d->top_seen & SEEN_SCHEMA) { /* the usual order: schema first */
                    d->have_schema = true;
                    push(d, FR_ENV);
                    return 1;
                }
                return skip_container(d, SKIP_PAYLOAD);
            }
            return skip_container(d, SKIP_PLAIN);
        default:
            return skip_container(d, SKIP_PLAIN);
        }
    case FR_SOURCE: {
        /* a nested member: an error only where a requested metadata key needs it */
        static const struct {
            uint8_t key;
            int md;
            const char *name, *type;
        } used[] = {{K_DB, MD_SOURCE_DB, "source.db", "STRING"},
                    {K_SSCHEMA, MD_SOURCE_SCHEMA, "source.schema", "STRING"},
                    {K_TABLE, MD_SOURCE_TABLE, "source.table", "STRING"},
                    {K_TS_MS, MD_SOURCE_TS, "source.ts_ms", "BIGINT"}};
        for (size_t i = 0; i < sizeof(used) / sizeof(used[0]); i++)
            if (f->key == used[i].key && d->want[used[i].md])
                return fail_member(d, used[i].name, used[i].type, kind);
        return skip_container(d, d->want[MD_SOURCE_PROPS] ? SKIP_PROP : SKIP_PLAIN);
    }
    case FR_VSD:
        return skip_container(d, SKIP_PLAIN);
    case FR_SCH:
        if (f->key == K_FIELDS && kind == '[') {
            if (!push(d, FR_SCH_FIELDS))
                return fail(d, "JSON nested too deeply");
            return 1;
        }
        return skip_container(d, SKIP_PLAIN);
    case FR_SCH_FIELDS:
        if (kind == '{') {
            if (!push(d, FR_SCH_ENVF))
                return fail(d, "JSON nested too deeply");
            d->envf_is_row = false;
            return 1;
        }
        return skip_container(d, SKIP_PLAIN);
    case FR_SCH_ENVF:
        if (f->key == K_FIELDS && kind == '[') {
            if (!push(d, FR_SCH_COLS))
                return fail(d, "JSON nested too deeply");
            return 1;
        }
        return skip_container(d, SKIP_PLAIN);
    case FR_SCH_COLS:
        if (kind == '{') {
            if (!push(d, FR_SCH_COL))
                return fail(d, "JSON nested too deeply");
            col_begin(d);
            return 1;
        }
        return skip_container(d, SKIP_PLAIN);
    case FR_SCH_COL:
        if (f->key == K_PARAMETERS && kind == '{') {
            if (!push(d, FR_SCH_PARAMS))
                return fail(d, "JSON nested too deeply");
            return 1;
        }
        return skip_container(d, SKIP_PLAIN);
    default:
        return skip_container(d, SKIP_PLAIN);
    }
}

/* The end of the top-level value. */
static int root_closed(dbz_deser_t *d)
{
    cdc_json_parser_mark_end(d->parser);
    return 1;
}

static int on_close(dbz_deser_t *d, char kind)
{
    if (d->top < 0)
        return fail(d, "unbalanced JSON"); /* yajl does not let this happen */
    frame_t *f = &d->fr[d->top];
    switch (f->kind) {
    case FR_ROW:
        return close_row(d);
    case FR_NEST: {
        int rc = 0;
        if (!f->abandon)
            rc = kind == ']' ? cdc_json_rowdec_end_array(d->rowdec)
                             : cdc_json_rowdec_end_map(d->rowdec);
        if (rc < 0)
            return fail_rowdec(d, f->field);
        if (--f->depth > 0)
            return 1;
        if (f->abandon) {
            d->cur_row->values[f->field].flags = CDC_V_NULL | CDC_V_UNCHANGED;
            cdc_json_rowdec_begin(d->rowdec, d->cur_row, &d->out->arena);
        }
        pop(d);
        return 1;
    }
    case FR_VSD: {
        int32_t idx = f->field;
        pop(d);
        if (!d->vsd_has_scale || !d->vsd_has_value) {
            char reason[300];
            snprintf(reason, sizeof(reason),
                     "expected %s {\"scale\": n, \"value\": base64}, "
                     "found an object without \"%s\"",
                     dbz_enc_name(DBZ_ENC_VSDECIMAL), d->vsd_has_scale ? "value" : "scale");
            return fail_field(d, idx, reason);
        }
        dbz_conv_t cx = {
            .iso8601 = d->iso8601,
            .precise_base64 = d->precise_base64,
            .in = d->msg,
            .inlen = d->len,
            .arena = &d->out->arena,
            .err = d->errbuf,
            .errlen = sizeof(d->errbuf),
        };
        d->errbuf[0] = '\0';
        if (dbz_convert_vsd(&cx, d->fields[idx].type, d->vsd_scale, d->vsd_value.data,
                            d->vsd_value.len, &d->cur_row->values[idx]) < 0)
            return fail_field(d, idx, d->errbuf);
        return 1;
    }
    case FR_SKIP:
        if (--f->depth > 0)
            return 1;
        pop(d);
        if (f->purpose == SKIP_PAYLOAD) {
            d->payload_start = f->start;
            d->payload_end = offset(d);
            d->payload_deferred = true;
        } else if (f->purpose == SKIP_PROP && d->nprops > 0) {
            /* a nested member of source: its JSON text */
            size_t end = offset(d);
            cdc_value_t *v = &d->props[d->nprops - 1].val;
            v->v.s.ptr = d->text + f->start;
            v->v.s.len = (uint32_t)(end - f->start);
            v->flags = 0;
        }
        return 1;
    case FR_SCH_COL:
        col_end(d);
        pop(d);
        return 1;
    case FR_SCH_ENVF:
        envf_end(d);
        pop(d);
        return 1;
    case FR_SCH:
        d->schema_end = offset(d);
        pop(d);
        return 1;
    default:
        pop(d);
        if (d->top < 0)
            return root_closed(d);
        return 1;
    }
}

static int on_start_map(void *ctx)
{
    return on_open(ctx, '{');
}

static int on_end_map(void *ctx)
{
    return on_close(ctx, '}');
}

static int on_start_array(void *ctx)
{
    return on_open(ctx, '[');
}

static int on_end_array(void *ctx)
{
    return on_close(ctx, ']');
}

static const yajl_callbacks dbz_callbacks = {
    .yajl_null = on_null,
    .yajl_boolean = on_bool,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_key,
    .yajl_end_map = on_end_map,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end_array,
};

/* FR_ROW: the members of a row image. */
static int row_key(void *ctx, const unsigned char *key, size_t len)
{
    dbz_deser_t *d = ctx;
    d->row_field = find_field(d, d->row_next, (const char *)key, len);
    if (d->row_field >= 0)
        d->row_next = d->row_field + 1;
    return 1;
}

static int row_null(void *ctx)
{
    dbz_deser_t *d = ctx;
    return d->row_field < 0 ? 1 : convert_field(d, d->row_field, 'n', "null", 4);
}

static int row_bool(void *ctx, int b)
{
    dbz_deser_t *d = ctx;
    return d->row_field < 0 ? 1
                            : convert_field(d, d->row_field, 'b', b ? "true" : "false", b ? 4 : 5);
}

static int row_number(void *ctx, const char *s, size_t len)
{
    dbz_deser_t *d = ctx;
    return d->row_field < 0 ? 1 : convert_field(d, d->row_field, '#', s, len);
}

static int row_string(void *ctx, const unsigned char *s, size_t len)
{
    dbz_deser_t *d = ctx;
    return d->row_field < 0 ? 1 : convert_field(d, d->row_field, 's', (const char *)s, len);
}

static const yajl_callbacks row_callbacks = {
    .yajl_null = row_null,
    .yajl_boolean = row_bool,
    .yajl_number = row_number,
    .yajl_string = row_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = row_key,
    .yajl_end_map = on_end_map,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end_array,
};

/* FR_SOURCE without source.properties: only db, schema, table and ts_ms matter. */
static int src_key(void *ctx, const unsigned char *key, size_t len)
{
    dbz_deser_t *d = ctx;
    d->fr[d->top].key = source_key((const char *)key, len);
    return 1;
}

static int src_scalar(dbz_deser_t *d, char kind, const char *s, size_t len)
{
    frame_t *f = &d->fr[d->top];
    return f->key == K_NONE ? 1 : source_scalar(d, f, kind, s, len);
}

static int src_null(void *ctx)
{
    return src_scalar(ctx, 'n', "null", 4);
}

static int src_bool(void *ctx, int b)
{
    return src_scalar(ctx, 'b', b ? "true" : "false", b ? 4 : 5);
}

static int src_number(void *ctx, const char *s, size_t len)
{
    return src_scalar(ctx, '#', s, len);
}

static int src_string(void *ctx, const unsigned char *s, size_t len)
{
    return src_scalar(ctx, 's', (const char *)s, len);
}

static const yajl_callbacks source_callbacks = {
    .yajl_null = src_null,
    .yajl_boolean = src_bool,
    .yajl_number = src_number,
    .yajl_string = src_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = src_key,
    .yajl_end_map = on_end_map,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end_array,
};

static void set_callbacks(dbz_deser_t *d)
{
    const yajl_callbacks *cb = &dbz_callbacks;
    if (d->top >= 0) {
        uint8_t kind = d->fr[d->top].kind;
        if (kind == FR_ROW)
            cb = &row_callbacks;
        else if (kind == FR_SOURCE && !d->want[MD_SOURCE_PROPS])
            cb = &source_callbacks;
    }
    d->cbs = *cb;
}

/* ---- the end of a message: kinds, order, metadata -------------------------------------------- */

static const char RI_TEXT[] =
    "The \"before\" field of %s message is null, if you are using Debezium Postgres Connector, "
    "please check the Postgres table has been set REPLICA IDENTITY to FULL level.";

static bool is_control(const dbz_deser_t *d)
{
    uint32_t all = d->seen | d->top_seen;
    if (d->status_txn && (all & SEEN_ID))
        return true; /* transaction BEGIN/END */
    if (all & SEEN_CONTROL)
        return true; /* schema change */
    if (d->schema_kind)
        return true; /* heartbeat, transaction or schema change, by its schema name */
    if (d->seen == SEEN_TS && d->nkeys == 1 && (d->top_seen & ~(SEEN_SCHEMA | SEEN_PAYLOAD)) == 0)
        return true; /* a heartbeat {"ts_ms": ...} */
    if (d->top_seen == SEEN_TS && d->top_nkeys == 1 && d->nkeys == 0)
        return true; /* the same outside a payload */
    return false;
}

/* A message without "op": skipped when it is a control message, else an error (-1). */
static int no_op(dbz_deser_t *d)
{
    if (is_control(d))
        return 0;
    if (d->schema_include) {
        if (d->payload_null && !(d->top_seen & (SEEN_BARE | SEEN_OTHER)))
            return 0; /* {"schema": ..., "payload": null}: a tombstone */
        if (!(d->top_seen & SEEN_PAYLOAD)) {
            if (d->bare_op_norow)
                return 0; /* truncate or logical message: no row either way */
            if (d->top_seen & SEEN_BARE) {
                fail(d, "field \"payload\" is missing: the message is a bare Debezium envelope, "
                        "but 'debezium-json.schema-include' is true; set it to 'false'");
                return -1;
            }
            fail(d, "field \"payload\" is missing ('debezium-json.schema-include' is true)");
            return -1;
        }
    } else if ((d->seen & SEEN_SCHEMA) && (d->seen & SEEN_PAYLOAD)) {
        if (d->schema_null && d->payload_null && d->nkeys == 2)
            return 0; /* the legacy rendering of a tombstone */
        fail(d, "field \"op\" is missing: the message is a Kafka Connect {\"schema\", "
                "\"payload\"} envelope, but 'debezium-json.schema-include' is false; set it to "
                "'true'");
        return -1;
    }
    fail(d, "field \"op\" is missing");
    return -1;
}

static void fill_metadata(dbz_deser_t *d, cdc_row_t *row, const cdc_array_t *props)
{
    cdc_value_t *v = row->values + d->nfields;
    for (int k = 0; k < d->nmd; k++, v++) {
        v->flags = CDC_V_NULL;
        switch (d->md[k]) {
        case MD_SCHEMA:
            if (d->schema_include && d->schema_end > d->schema_start) {
                v->v.s.ptr = d->msg + d->schema_start;
                v->v.s.len = (uint32_t)(d->schema_end - d->schema_start);
                v->flags = 0;
            }
            break;
        case MD_INGESTION_TS:
            if (d->have_ts) {
                v->v.ts.millis = d->ts_ms;
                v->v.ts.nanos = 0;
                v->flags = 0;
            }
            break;
        case MD_SOURCE_TS:
            if (d->have_src_ts) {
                v->v.ts.millis = d->src_ts_ms;
                v->v.ts.nanos = 0;
                v->flags = 0;
            }
            break;
        case MD_SOURCE_DB:
            *v = d->src_db;
            break;
        case MD_SOURCE_SCHEMA:
            *v = d->src_schema;
            break;
        case MD_SOURCE_TABLE:
            *v = d->src_table;
            break;
        case MD_SOURCE_PROPS:
            if (props) {
                v->v.arr = *props;
                v->flags = 0;
            }
            break;
        default:
            break;
        }
    }
}

static const char *make_origin(dbz_deser_t *d)
{
    if (cdc_value_is_null(&d->src_table))
        return NULL;
    const cdc_value_t *ns = !cdc_value_is_null(&d->src_schema) && d->src_schema.v.s.len > 0
                                ? &d->src_schema
                                : &d->src_db;
    size_t nl = cdc_value_is_null(ns) ? 0 : ns->v.s.len;
    size_t tl = d->src_table.v.s.len;
    char *o = cdc_arena_alloc(&d->out->arena, nl + tl + 2);
    char *w = o;
    if (nl) {
        memcpy(w, ns->v.s.ptr, nl);
        w += nl;
        *w++ = '.';
    }
    memcpy(w, d->src_table.v.s.ptr, tl);
    w[tl] = '\0';
    return o;
}

/* Returns 0 or -1 (error set). */
static int finish(dbz_deser_t *d)
{
    if (d->tombstone)
        return 0;
    if (!(d->seen & SEEN_OP)) {
        int rc = no_op(d);
        d->out->n = d->n0;
        return rc;
    }
    cdc_row_t rows[2];
    int n = 0;
    cdc_row_t *before = d->row_before >= 0 ? &d->out->rows[d->row_before] : NULL;
    cdc_row_t *after = d->row_after >= 0 ? &d->out->rows[d->row_after] : NULL;
    char op = d->oplen == 1 ? d->op[0] : '?';
    switch (op) {
    case 'c':
    case 'r':
        if (!after) {
            fail(d, "field \"after\": expected an object for op \"%c\", found %s", op,
                 d->seen & SEEN_AFTER ? "null" : "nothing");
            return -1;
        }
        rows[n] = *after;
        rows[n++].kind = CDC_INSERT;
        break;
    case 'u':
        if (!after) {
            fail(d, "field \"after\": expected an object for op \"u\", found %s",
                 d->seen & SEEN_AFTER ? "null" : "nothing");
            return -1;
        }
        if (!d->upsert) {
            if (!before) {
                fail(d, RI_TEXT, "UPDATE");
                return -1;
            }
            rows[n] = *before;
            rows[n++].kind = CDC_UPDATE_BEFORE;
        }
        rows[n] = *after;
        rows[n++].kind = CDC_UPDATE_AFTER;
        break;
    case 'd':
        if (!before) {
            fail(d, RI_TEXT, "DELETE");
            if (d->upsert)
                cdc_buf_puts(&d->base.errmsg,
                             " (changelog-mode 'upsert' needs at least the key columns in "
                             "\"before\"; REPLICA IDENTITY NOTHING sends none)");
            return -1;
        }
        rows[n] = *before;
        rows[n++].kind = CDC_DELETE;
        break;
    case 't': /* truncate */
    case 'm': /* logical decoding message */
        break;
    default:
        fail(d, "unknown \"op\" value \"%.*s\"", (int)(d->oplen < sizeof(d->op) ? d->oplen : 8),
             d->op);
        return -1;
    }
    d->out->n = d->n0;
    if (n == 0)
        return 0;
    const char *origin = make_origin(d);
    cdc_array_t props = {0};
    bool have_props = false;
    if (d->want[MD_SOURCE_PROPS] && (d->seen & SEEN_SOURCE)) {
        props.n = d->nprops;
        props.elems = cdc_arena_alloc(&d->out->arena, (d->nprops + 1) * sizeof(cdc_value_t));
        props.vals = cdc_arena_alloc(&d->out->arena, (d->nprops + 1) * sizeof(cdc_value_t));
        for (uint32_t i = 0; i < d->nprops; i++) {
            props.elems[i] = d->props[i].key;
            props.vals[i] = d->props[i].val;
        }
        have_props = true;
    }
    for (int i = 0; i < n; i++) {
        rows[i].origin = origin;
        if (d->nmd)
            fill_metadata(d, &rows[i], have_props ? &props : NULL);
        d->out->rows[d->out->n++] = rows[i];
    }
    return 0;
}

static void reset_message(dbz_deser_t *d, cdc_batch_t *out, const char *msg, size_t len)
{
    d->out = out;
    d->n0 = out->n;
    d->msg = msg;
    d->len = len;
    d->text = msg;
    d->second_pass = false;
    d->top = -1;
    set_callbacks(d);
    d->seen = d->top_seen = 0;
    d->nkeys = d->top_nkeys = 0;
    d->tombstone = false;
    d->oplen = 0;
    d->row_before = d->row_after = -1;
    d->cur_row = NULL;
    d->have_ts = d->have_src_ts = false;
    d->src_db.flags = d->src_schema.flags = d->src_table.flags = CDC_V_NULL;
    d->status_txn = d->bare_op_norow = false;
    d->schema_null = d->payload_null = false;
    d->schema_kind = 0;
    d->schema_start = d->schema_end = 0;
    d->payload_deferred = false;
    d->have_schema = false;
    d->nprops = 0;
    if (d->schema_include) /* no column is described until this message's schema says so */
        memset(d->enc, 0, d->nfields * sizeof(*d->enc));
}

static int dbz_decode(cdc_deser_t *base, const char *msg, size_t len, cdc_batch_t *out)
{
    dbz_deser_t *d = (dbz_deser_t *)base;
    if (!msg || len == 0)
        return CDC_DECODE_OK; /* tombstone */
    size_t i = 0;
    while (i < len && (msg[i] == ' ' || msg[i] == '\t' || msg[i] == '\r' || msg[i] == '\n'))
        i++;
    if (i == len)
        return CDC_DECODE_OK; /* blank: a tombstone too */
    reset_message(d, out, msg, len);
    cdc_json_rowdec_set_input(d->rowdec, msg, len);
    int rc = cdc_json_parser_parse(d->parser, msg, len, &d->parse_err);
    if (rc == CDC_JSON_PARSE_OK && d->payload_deferred) {
        /* the payload came before the schema: read it again, now with the schema */
        size_t start = d->payload_start, end = d->payload_end;
        d->text = msg + start;
        d->second_pass = true;
        d->have_schema = (d->top_seen & SEEN_SCHEMA) != 0;
        d->top = -1;
        set_callbacks(d);
        rc = cdc_json_parser_parse(d->parser, msg + start, end - start, &d->parse_err);
    }
    int status = CDC_DECODE_OK;
    if (rc == CDC_JSON_PARSE_INVALID) {
        err_begin(d);
        cdc_buf_append(&d->base.errmsg, d->parse_err.data, d->parse_err.len);
        status = CDC_DECODE_ERROR;
    } else if (rc == CDC_JSON_PARSE_CANCELED || finish(d) < 0) {
        status = CDC_DECODE_ERROR;
    }
    cdc_json_rowdec_set_input(d->rowdec, NULL, 0);
    if (status == CDC_DECODE_OK)
        return CDC_DECODE_OK;
    out->n = d->n0;
    if (d->ignore_errors) {
        d->base.skipped++;
        return CDC_DECODE_SKIPPED;
    }
    return CDC_DECODE_ERROR;
}

static void dbz_deser_destroy(cdc_deser_t *base)
{
    dbz_deser_t *d = (dbz_deser_t *)base;
    if (!d)
        return;
    cdc_json_parser_destroy(d->parser);
    cdc_json_rowdec_destroy(d->rowdec);
    cdc_type_destroy(d->row_type);
    free(d->fields);
    free(d->slots);
    free(d->notnull);
    free(d->enc);
    free(d->stage);
    free(d->staged);
    free(d->props);
    free(d->ph);
    cdc_buf_free(&d->ph_b64);
    cdc_buf_free(&d->ph_hex);
    cdc_buf_free(&d->vsd_value);
    cdc_buf_free(&d->parse_err);
    cdc_buf_free(&d->base.errmsg);
    free(d);
}

static const cdc_deser_ops_t dbz_deser_ops = {
    .decode = dbz_decode,
    .destroy = dbz_deser_destroy,
};

static int check_row_type(const cdc_format_ctx_t *ctx, cdc_error_t **err)
{
    if (!ctx->row_type || ctx->row_type->root != CDC_T_ROW)
        return cdc_error_set(err, CDC_ERR_INTERNAL, "format \"debezium-json\" needs a ROW type");
    return cdc_json_check_type(ctx->row_type, err);
}

static int dbz_deser_new(const cdc_format_ctx_t *ctx, cdc_deser_t **out, cdc_error_t **err)
{
    if (check_row_type(ctx, err) < 0)
        return -1;
    const char *ph = cdc_config_str(ctx->cfg, "unavailable.value.placeholder");
    if (!ph || !*ph)
        return cdc_error_set(err, CDC_ERR_OPTION,
                             "option \"unavailable.value.placeholder\" of format "
                             "\"debezium-json\" must not be empty");
    int md[MD__COUNT];
    int nmd = 0;
    for (int k = 0; k < ctx->nmetadata; k++) {
        int code = -1;
        for (int j = 0; dbz_metadata[j].key; j++)
            if (strcmp(dbz_metadata[j].key, ctx->metadata[k]) == 0)
                code = j;
        if (code < 0 || nmd == MD__COUNT) {
            cdc_buf_t list = {0};
            for (int j = 0; dbz_metadata[j].key; j++)
                cdc_buf_printf(&list, "%s%s", j ? ", " : "", dbz_metadata[j].key);
            cdc_error_t *e = cdc_error_new(CDC_ERR_OPTION,
                                           code < 0 ? "format \"debezium-json\" has no metadata "
                                                      "key \"%s\""
                                                    : "metadata key \"%s\" requested twice",
                                           ctx->metadata[k]);
            cdc_error_set_detail(e, "available keys: %s", cdc_buf_cstr(&list));
            cdc_buf_free(&list);
            if (err) {
                cdc_error_destroy(*err);
                *err = e;
            } else {
                cdc_error_destroy(e);
            }
            return -1;
        }
        md[nmd++] = code;
    }
    dbz_deser_t *d = cdc_xcalloc(1, sizeof(*d));
    d->base.ops = &dbz_deser_ops;
    d->row_type = cdc_type_copy(ctx->row_type);
    d->nfields = (uint32_t)d->row_type->nchildren;
    d->arity = d->nfields + (uint32_t)nmd;
    memcpy(d->md, md, sizeof(md));
    d->nmd = nmd;
    for (int k = 0; k < nmd; k++)
        d->want[md[k]] = true;
    d->schema_include = cdc_config_bool(ctx->cfg, "schema-include");
    d->ignore_errors = cdc_config_bool(ctx->cfg, "ignore-parse-errors");
    d->upsert = cdc_config_enum(ctx->cfg, "changelog-mode") == 1;
    d->iso8601 = cdc_config_enum(ctx->cfg, "timestamp-format.standard") == 1;
    d->precise_base64 = cdc_config_enum(ctx->cfg, "decimal.handling") == 1;
    d->ph = cdc_xstrdup(ph);
    d->ph_len = strlen(ph);
    cdc_text_base64_encode(&d->ph_b64, (const unsigned char *)ph, d->ph_len);
    for (size_t i = 0; i < d->ph_len; i++)
        cdc_buf_printf(&d->ph_hex, "%02x", (unsigned char)ph[i]);

    uint32_t n = d->nfields;
    d->fields = cdc_xcalloc(n + 1, sizeof(*d->fields));
    d->notnull = cdc_xcalloc(n + 1, sizeof(*d->notnull));
    uint32_t size = 4;
    while (size < n * 2)
        size *= 2;
    d->mask = size - 1;
    d->slots = cdc_xmalloc(size * sizeof(int32_t));
    for (uint32_t i = 0; i < size; i++)
        d->slots[i] = -1;
    for (uint32_t i = 0; i < n; i++) {
        dbz_field_t *f = &d->fields[i];
        f->name = d->row_type->names[i];
        f->len = (uint32_t)strlen(f->name);
        f->type = d->row_type->children[i];
        switch (f->type->root) {
        case CDC_T_CHAR:
        case CDC_T_VARCHAR:
            f->fast = FAST_STRING;
            break;
        case CDC_T_TINYINT:
        case CDC_T_SMALLINT:
        case CDC_T_INT:
        case CDC_T_BIGINT: {
            static const int64_t lo[] = {INT8_MIN, INT16_MIN, INT32_MIN, INT64_MIN};
            static const int64_t hi[] = {INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX};
            f->fast = FAST_INT;
            f->lo = lo[f->type->root - CDC_T_TINYINT];
            f->hi = hi[f->type->root - CDC_T_TINYINT];
            break;
        }
        case CDC_T_FLOAT:
            f->fast = FAST_FLOAT;
            break;
        case CDC_T_DOUBLE:
            f->fast = FAST_DOUBLE;
            break;
        case CDC_T_BOOLEAN:
            f->fast = FAST_BOOL;
            break;
        case CDC_T_TIMESTAMP:
        case CDC_T_TIMESTAMP_LTZ:
            f->fast = f->type->precision >= 3 ? FAST_TS : FAST_NONE;
            break;
        default:
            f->fast = FAST_NONE;
            break;
        }
        if (!f->type->nullable)
            d->notnull[d->nnotnull++] = (int32_t)i;
        uint32_t h = hash_name(f->name, f->len) & d->mask;
        while (d->slots[h] >= 0) {
            if (strcmp(d->fields[d->slots[h]].name, f->name) == 0)
                break; /* a duplicate name: the first one wins */
            h = (h + 1) & d->mask;
        }
        if (d->slots[h] < 0)
            d->slots[h] = (int32_t)i;
    }
    d->enc = cdc_xcalloc(n + 1, sizeof(*d->enc));
    d->stage = cdc_xcalloc(n + 1, sizeof(*d->stage));
    d->staged = cdc_xcalloc(n + 1, 1);
    cdc_json_opts_t jopts = {.fail_on_missing_field = false, .iso8601 = d->iso8601};
    d->rowdec = cdc_json_rowdec_new(d->row_type, &jopts);
    d->top = -1;
    set_callbacks(d);
    d->parser = cdc_json_parser_new(&d->cbs, d);
    *out = &d->base;
    return 0;
}

/* ---- serializer ------------------------------------------------------------------------------ */

/* Debezium's source fields in order, per connector; a sink column may fill each. */
static const char *const dbz_src_mysql[] = {
    "version",   "connector", "name", "ts_ms", "snapshot", "db",     "sequence", "table",
    "server_id", "gtid",      "file", "pos",   "row",      "thread", "query",    NULL};
static const char *const dbz_src_pg[] = {"version", "connector", "name",   "ts_ms", "snapshot",
                                         "db",      "sequence",  "schema", "table", "txId",
                                         "lsn",     "xmin",      NULL};

typedef struct dbz_ser_s {
    cdc_ser_t base;
    cdc_type_t *row_type; /* the row images: every column, or those without the source prefix */
    const cdc_type_t *in_type; /* the rows given to encode() */
    cdc_type_t *in_owned;
    /* the source block (source.connector set) */
    const char *const *src_fields; /* NULL = no source block */
    char *connector, *name;
    int *img_col;   /* row_type field -> input column */
    int *src_col;   /* src_fields[i] -> input column, -1 = default */
    int *extra_col; /* source columns that are no Debezium field, written after them */
    int nextra;
    size_t prefix_len;
    cdc_value_t *img_vals; /* scratch: the image's values */
    cdc_json_encode_opts_t opts;
    char *literal;
    char *ph;
    size_t ph_len;
} dbz_ser_t;

/* A row with unchanged (TOAST) columns: the placeholder goes back for text and bytes. */
static int write_row_unchanged(dbz_ser_t *s, cdc_buf_t *out, const cdc_row_t *row)
{
    const cdc_type_t *rt = s->row_type;
    uint32_t n = (uint32_t)rt->nchildren < row->arity ? (uint32_t)rt->nchildren : row->arity;
    cdc_buf_putc(out, '{');
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            cdc_buf_putc(out, ',');
        cdc_json_write_string(out, rt->names[i], strlen(rt->names[i]));
        cdc_buf_putc(out, ':');
        const cdc_value_t *v = &row->values[i];
        const cdc_type_t *t = rt->children[i];
        if (v->flags & CDC_V_UNCHANGED) {
            if (t->root == CDC_T_CHAR || t->root == CDC_T_VARCHAR) {
                cdc_json_write_string(out, s->ph, s->ph_len);
            } else if (t->root == CDC_T_BINARY || t->root == CDC_T_VARBINARY) {
                cdc_buf_putc(out, '"');
                cdc_text_base64_encode(out, (const unsigned char *)s->ph, s->ph_len);
                cdc_buf_putc(out, '"');
            } else {
                cdc_buf_puts(out, "null");
            }
            continue;
        }
        if (cdc_json_write_value(out, v, t, &s->opts) < 0)
            return -1;
    }
    cdc_buf_putc(out, '}');
    return 0;
}

static int write_image(dbz_ser_t *s, cdc_buf_t *out, const cdc_row_t *row)
{
    uint32_t n = (uint32_t)s->row_type->nchildren < row->arity ? (uint32_t)s->row_type->nchildren
                                                               : row->arity;
    for (uint32_t i = 0; i < n; i++)
        if (row->values[i].flags & CDC_V_UNCHANGED)
            return write_row_unchanged(s, out, row);
    return cdc_json_write_row(out, row, s->row_type, &s->opts);
}

/* One source field's value from its column: times as epoch millis, snapshot as "true"/"false". */
static int write_src_value(dbz_ser_t *s, cdc_buf_t *out, const char *field, const cdc_value_t *v,
                           const cdc_type_t *t)
{
    if (cdc_value_is_null(v)) {
        cdc_buf_puts(out, "null");
        return 0;
    }
    if (t->root == CDC_T_TIMESTAMP_LTZ || t->root == CDC_T_TIMESTAMP) {
        cdc_buf_printf(out, "%lld", (long long)v->v.ts.millis);
        return 0;
    }
    if (t->root == CDC_T_BOOLEAN && strcmp(field, "snapshot") == 0) {
        cdc_buf_puts(out, v->v.b ? "\"true\"" : "\"false\"");
        return 0;
    }
    return cdc_json_write_value(out, v, t, &s->opts);
}

/* ,"source":{...} from the row's source columns, defaults for the others. */
static int write_source(dbz_ser_t *s, cdc_buf_t *out, const cdc_row_t *row)
{
    const cdc_type_t *it = s->in_type;
    cdc_buf_puts(out, ",\"source\":{");
    for (int i = 0; s->src_fields[i]; i++) {
        const char *f = s->src_fields[i];
        cdc_buf_printf(out, "%s\"%s\":", i ? "," : "", f);
        int c = s->src_col[i];
        if (c >= 0 && (uint32_t)c < row->arity) {
            if (write_src_value(s, out, f, &row->values[c], it->children[c]) < 0)
                return -1;
        } else if (strcmp(f, "version") == 0) {
            cdc_buf_puts(out, "\"cdcflow\"");
        } else if (strcmp(f, "connector") == 0) {
            cdc_json_write_string(out, s->connector, strlen(s->connector));
        } else if (strcmp(f, "name") == 0) {
            cdc_json_write_string(out, s->name, strlen(s->name));
        } else if (strcmp(f, "snapshot") == 0) {
            cdc_buf_puts(out, "\"false\"");
        } else if (!strcmp(f, "ts_ms") || !strcmp(f, "server_id") || !strcmp(f, "pos") ||
                   !strcmp(f, "row")) {
            cdc_buf_putc(out, '0');
        } else if (!strcmp(f, "db") || !strcmp(f, "table") || !strcmp(f, "file") ||
                   !strcmp(f, "schema")) {
            cdc_buf_puts(out, "\"\"");
        } else {
            cdc_buf_puts(out, "null");
        }
    }
    for (int k = 0; k < s->nextra; k++) {
        int c = s->extra_col[k];
        const char *f = it->names[c] + s->prefix_len;
        cdc_buf_putc(out, ',');
        cdc_json_write_string(out, f, strlen(f));
        cdc_buf_putc(out, ':');
        if ((uint32_t)c >= row->arity)
            cdc_buf_puts(out, "null");
        else if (write_src_value(s, out, f, &row->values[c], it->children[c]) < 0)
            return -1;
    }
    cdc_buf_putc(out, '}');
    return 0;
}

static int dbz_encode(cdc_ser_t *base, const cdc_row_t *row, cdc_buf_t *out)
{
    dbz_ser_t *s = (dbz_ser_t *)base;
    size_t start = out->len;
    int rc;
    const cdc_row_t *in = row;
    cdc_row_t img;
    if (s->src_fields) { /* the image is the row without its source columns */
        img = *row;
        img.arity = (uint32_t)s->row_type->nchildren;
        img.values = s->img_vals;
        for (uint32_t i = 0; i < img.arity; i++) {
            int c = s->img_col[i];
            if ((uint32_t)c < row->arity)
                s->img_vals[i] = row->values[c];
            else
                s->img_vals[i].flags = CDC_V_NULL;
        }
        row = &img;
    }
    switch (row->kind) {
    case CDC_INSERT:
    case CDC_UPDATE_AFTER:
        cdc_buf_puts(out, "{\"before\":null,\"after\":");
        rc = write_image(s, out, row);
        if (rc == 0 && s->src_fields)
            rc = write_source(s, out, in);
        cdc_buf_puts(out, ",\"op\":\"c\"}");
        break;
    case CDC_UPDATE_BEFORE:
    case CDC_DELETE:
        cdc_buf_puts(out, "{\"before\":");
        rc = write_image(s, out, row);
        cdc_buf_puts(out, ",\"after\":null");
        if (rc == 0 && s->src_fields)
            rc = write_source(s, out, in);
        cdc_buf_puts(out, ",\"op\":\"d\"}");
        break;
    default:
        out->len = start;
        cdc_buf_clear(&s->base.errmsg);
        cdc_buf_printf(&s->base.errmsg,
                       "Could not serialize row: Unsupported operation '%d' for row kind.",
                       (int)row->kind);
        return -1;
    }
    if (rc < 0) {
        out->len = start;
        cdc_buf_clear(&s->base.errmsg);
        cdc_buf_puts(&s->base.errmsg, "Could not serialize row: " CDC_JSON_ERR_MAP_NULL_KEY);
        return -1;
    }
    return 0;
}

static void dbz_ser_destroy(cdc_ser_t *base)
{
    dbz_ser_t *s = (dbz_ser_t *)base;
    if (!s)
        return;
    cdc_type_destroy(s->row_type);
    cdc_type_destroy(s->in_owned);
    free(s->connector);
    free(s->name);
    free(s->img_col);
    free(s->src_col);
    free(s->extra_col);
    free(s->img_vals);
    cdc_buf_free(&s->base.errmsg);
    free(s->literal);
    free(s->ph);
    free(s);
}

static const cdc_ser_ops_t dbz_ser_ops = {
    .encode = dbz_encode,
    .destroy = dbz_ser_destroy,
};

/* With source.connector: splits the columns into the images and the source block. */
static int source_setup(dbz_ser_t *s, const cdc_format_ctx_t *ctx, cdc_error_t **err)
{
    s->in_type = s->row_type;
    const char *conn = cdc_config_str(ctx->cfg, "source.connector");
    if (!conn || !*conn)
        return 0;
    bool my = strcmp(conn, "mysql") == 0;
    s->src_fields = my ? dbz_src_mysql : dbz_src_pg;
    s->connector = cdc_xstrdup(conn);
    const char *name = cdc_config_str(ctx->cfg, "source.name");
    s->name = cdc_xstrdup(name ? name : "cdcflow");
    const char *prefix = cdc_config_str(ctx->cfg, "source.fields-prefix");
    prefix = prefix ? prefix : "source_";
    s->prefix_len = strlen(prefix);
    s->in_owned = s->row_type;
    s->in_type = s->in_owned;
    s->row_type = cdc_type_new_row();
    const cdc_type_t *it = s->in_type;
    int nf = 0;
    while (s->src_fields[nf])
        nf++;
    s->src_col = cdc_xmalloc(sizeof(int) * (size_t)nf);
    for (int i = 0; i < nf; i++)
        s->src_col[i] = -1;
    s->img_col = cdc_xmalloc(sizeof(int) * (size_t)(it->nchildren + 1));
    s->extra_col = cdc_xmalloc(sizeof(int) * (size_t)(it->nchildren + 1));
    for (int c = 0; c < it->nchildren; c++) {
        const char *n = it->names[c];
        if (strncmp(n, prefix, s->prefix_len) != 0 || !n[s->prefix_len]) {
            s->img_col[s->row_type->nchildren] = c;
            cdc_type_row_add(s->row_type, n, cdc_type_copy(it->children[c]));
            continue;
        }
        int i = 0;
        while (s->src_fields[i] && strcmp(s->src_fields[i], n + s->prefix_len) != 0)
            i++;
        if (s->src_fields[i])
            s->src_col[i] = c;
        else
            s->extra_col[s->nextra++] = c;
    }
    if (s->row_type->nchildren == 0)
        return cdc_error_set(err, CDC_ERR_OPTION,
                             "format \"debezium-json\": every column of \"%s\" starts with the "
                             "source prefix \"%s\"; the row images would be empty",
                             ctx->table ? ctx->table : "?", prefix);
    s->img_vals = cdc_xcalloc((size_t)s->row_type->nchildren, sizeof(cdc_value_t));
    return 0;
}

static int dbz_ser_new(const cdc_format_ctx_t *ctx, cdc_ser_t **out, cdc_error_t **err)
{
    if (cdc_config_bool(ctx->cfg, "schema-include")) {
        cdc_error_t *e = cdc_error_new(CDC_ERR_OPTION,
                                       "Debezium JSON serialization doesn't support "
                                       "'debezium-json.schema-include' option been set to true.");
        cdc_error_set_hint(e, "schema-include applies to sources only; remove it from the sink "
                              "table.");
        if (err) {
            cdc_error_destroy(*err);
            *err = e;
        } else {
            cdc_error_destroy(e);
        }
        return -1;
    }
    if (check_row_type(ctx, err) < 0)
        return -1;
    dbz_ser_t *s = cdc_xcalloc(1, sizeof(*s));
    s->base.ops = &dbz_ser_ops;
    s->row_type = cdc_type_copy(ctx->row_type);
    cdc_json_encode_opts_read(ctx->cfg, &s->opts);
    s->literal = cdc_xstrdup(s->opts.map_null_key_literal ? s->opts.map_null_key_literal : "null");
    s->opts.map_null_key_literal = s->literal;
    const char *ph = cdc_config_str(ctx->cfg, "unavailable.value.placeholder");
    s->ph = cdc_xstrdup(ph && *ph ? ph : DBZ_PLACEHOLDER);
    s->ph_len = strlen(s->ph);
    if (source_setup(s, ctx, err) < 0) {
        dbz_ser_destroy(&s->base);
        return -1;
    }
    *out = &s->base;
    return 0;
}

/* ---- factory --------------------------------------------------------------------------------- */

static cdc_changelog_mode_t dbz_decode_mode(const cdc_config_t *cfg)
{
    return cdc_config_enum(cfg, "changelog-mode") == 1 ? CDC_MODE_UPSERT : CDC_MODE_ALL;
}

static cdc_changelog_mode_t dbz_encode_mode(const cdc_config_t *cfg)
{
    (void)cfg;
    return CDC_MODE_ALL;
}

static void dbz_check(const cdc_config_t *cfg, cdc_buf_t *problems)
{
    const char *ph = cdc_config_str(cfg, "unavailable.value.placeholder");
    if (!ph || !*ph)
        cdc_buf_puts(problems, "unavailable.value.placeholder must not be empty\n");
    const char *conn = cdc_config_str(cfg, "source.connector");
    if (conn && *conn && strcmp(conn, "mysql") != 0 && strcmp(conn, "postgresql") != 0)
        cdc_buf_printf(problems, "source.connector must be 'mysql' or 'postgresql', not '%s'\n",
                       conn);
}

const cdc_format_factory_t cdc_format_debezium_json = {
    .identifier = "debezium-json",
    .description = "Debezium change events (JSON, with or without the Kafka Connect schema) as "
                   "Flink's debezium-json format: c/r +I, u -U/+U, d -D; writes d + c.",
    .options = dbz_options,
    .check = dbz_check,
    .metadata = dbz_metadata,
    .decode_mode = dbz_decode_mode,
    .encode_mode = dbz_encode_mode,
    .deser_new = dbz_deser_new,
    .ser_new = dbz_ser_new,
};
