/*
 * cdc_cdcjson_common.h — the envelope engine shared by canal-json, maxwell-json
 * and ogg-json (formats/canal_json, formats/maxwell_json, formats/ogg_json).
 *
 * Those three formats differ only in their envelope: which top-level keys
 * carry rows ("data", "old", "before", "after"), which carry the change type
 * and which feed metadata. A format declares its keys in a table
 * (cdc_cj_field_t) and writes one `finish` callback that turns the parsed
 * envelope into rows; this engine does everything else:
 *
 *  - one pass of yajl events per message: row objects go through the shared
 *    row decoder (cdc_json_rowdec_t) into scratch values in the batch arena;
 *    partial objects ("old") record which columns they carry; scalars, string
 *    arrays and string->int maps are converted with Flink's JSON coercions;
 *    unknown keys are skipped;
 *  - problems inside values are deferred, not fatal: Canal puts "database",
 *    "table" and "type" after "data", and a message dropped by a filter or
 *    skipped as DDL must not fail on rows of another table. The first problem
 *    is kept and reported only if `finish` goes on to emit rows;
 *  - rows are emitted with metadata appended (cdc_format_ctx_t order) and the
 *    source table as row->origin;
 *  - errors read "corrupt Canal JSON message: REASON"; ignore-parse-errors
 *    drops the whole message and counts it in deser->skipped;
 *  - the serializer writes the row object between a per-kind prefix and suffix.
 *
 * Steady state allocates nothing per message: scratch vectors keep their
 * capacity, row memory comes from the caller's batch arena.
 */
#ifndef CDC_CDCJSON_COMMON_H
#define CDC_CDCJSON_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "cdc_json.h"

/** Envelope keys a format may declare (its table is at most this long). */
#define CDC_CJ_MAX_FIELDS 16
/**
 * Rows (or envelope array elements) one message may carry; more is an error.
 * Bounds the arena a hostile message can claim ("data":[{},{},...] costs a
 * row of values per 3 input bytes); real Canal batches hold far fewer.
 */
#define CDC_CJ_MAX_ROWS (1u << 16)

/** What an envelope key holds. */
typedef enum cdc_cj_kind {
    CDC_CJ_SKIP = 0,   /* ignored */
    CDC_CJ_ROWS,       /* a row object; with .array an array of them */
    CDC_CJ_OVERLAY,    /* a partial row object (changed columns only); with .array an array */
    CDC_CJ_TEXT,       /* a string (numbers and booleans are taken as their text) */
    CDC_CJ_INT,        /* a 64-bit integer (or integer text) */
    CDC_CJ_BOOL,       /* a boolean (or "true"/"false") */
    CDC_CJ_TEXT_ARRAY, /* an array of strings -> ARRAY<STRING> */
    CDC_CJ_INT_MAP     /* an object of integers -> MAP<STRING, INT> */
} cdc_cj_kind_t;

typedef struct cdc_cj_field_s {
    const char *key; /* the JSON key in the envelope; NULL ends the table */
    cdc_cj_kind_t kind;
    bool array;     /* ROWS/OVERLAY: the value is an array of objects */
    bool meta_only; /* read only when a requested metadata key needs it */
} cdc_cj_field_t;

/** How a metadata value is made from its envelope key. */
typedef enum cdc_cj_meta_conv {
    CDC_CJ_META_AS_IS,   /* TEXT -> STRING, TEXT_ARRAY -> ARRAY<STRING>, INT_MAP -> MAP */
    CDC_CJ_META_MILLIS,  /* INT epoch milliseconds -> TIMESTAMP_LTZ */
    CDC_CJ_META_SECONDS, /* INT epoch seconds -> TIMESTAMP_LTZ (x 1000) */
    CDC_CJ_META_TS_TEXT  /* TEXT "yyyy-MM-dd[ T]HH:mm:ss[.f..]" (UTC unless zoned) -> TIMESTAMP_LTZ
                          */
} cdc_cj_meta_conv_t;

typedef struct cdc_cj_meta_src_s {
    int field; /* index into the format's field table */
    cdc_cj_meta_conv_t conv;
    int precision; /* TS_TEXT: fraction digits kept */
} cdc_cj_meta_src_t;

/** Presence state of an envelope key in the current message. */
typedef enum cdc_cj_state {
    CDC_CJ_ABSENT = 0,
    CDC_CJ_NULL, /* given as JSON null */
    CDC_CJ_SET,
    CDC_CJ_BAD /* given, but could not be read (the problem is deferred) */
} cdc_cj_state_t;

/** One decoded row object. */
typedef struct cdc_cj_item_s {
    cdc_value_t *values; /* the physical fields (arena) */
    uint64_t *present;   /* OVERLAY: one bit per field the object carried (arena) */
} cdc_cj_item_t;

/** What one envelope key gave in the current message. */
typedef struct cdc_cj_slot_s {
    uint8_t state;     /* cdc_cj_state_t */
    cdc_value_t val;   /* TEXT: s; INT: i; BOOL: b; TEXT_ARRAY/INT_MAP: arr */
    uint32_t first, n; /* ROWS/OVERLAY: items [first, first + n) */
    uint32_t seq;      /* BAD: when its problem was found (the message's is the first) */
} cdc_cj_slot_t;

typedef struct cdc_cj_deser_s cdc_cj_deser_t;

/** A format built on the engine. */
typedef struct cdc_cj_format_s {
    const char *name;                   /* "Canal": "corrupt Canal JSON message: ..." */
    const char *identifier;             /* "canal-json" */
    const cdc_cj_field_t *fields;       /* envelope keys, ended by {0} */
    const cdc_metadata_def_t *metadata; /* the factory's metadata table, ended by {0} */
    const cdc_cj_meta_src_t *meta_src;  /* parallel to metadata */
    size_t deser_size;                  /* size of the format's deserializer struct */
    bool bool_digits;                   /* "0"/"1" are BOOLEANs (Canal's TINYINT(1)) */
    /** Optional: set up the format's own part of the deserializer. */
    int (*init)(cdc_cj_deser_t *d, const cdc_format_ctx_t *ctx, cdc_error_t **err);
    /** Optional: release it. */
    void (*fini)(cdc_cj_deser_t *d);
    /**
     * Turns the parsed envelope into rows (cdc_cj_emit). Returns 0 (rows
     * emitted, or the message skipped), or -1 with the reason set (cdc_cj_fail,
     * cdc_cj_pending).
     */
    int (*finish)(cdc_cj_deser_t *d, cdc_batch_t *out);
    /* serializer: the row object is written between these */
    const char *insert_prefix, *insert_suffix; /* +I and +U */
    const char *delete_prefix, *delete_suffix; /* -U and -D */
} cdc_cj_format_t;

/** The engine's deserializer; a format's own struct embeds it first. */
struct cdc_cj_deser_s {
    cdc_deser_t base;
    const cdc_cj_format_t *fmt;
    cdc_type_t *row_type; /* the physical fields */
    cdc_type_t *relaxed;  /* the same with every top-level field nullable (for OVERLAY) */
    uint32_t nfields;
    uint32_t *name_len; /* of each physical field */
    int nmeta;
    int *meta_ids; /* requested metadata keys, as indexes into fmt->metadata */
    bool ignore_parse_errors;
    int nenv;
    bool wanted[CDC_CJ_MAX_FIELDS];
    cdc_json_parser_t *parser;
    cdc_json_rowdec_t *rowdec; /* ROWS */
    cdc_json_rowdec_t *ovdec;  /* OVERLAY (relaxed type) */

    /* the current message, for finish */
    cdc_cj_slot_t slots[CDC_CJ_MAX_FIELDS];
    cdc_cj_item_t *items;
    uint32_t nitems, items_cap;
    cdc_value_t *meta;  /* requested metadata values (arena), after cdc_cj_build_meta */
    const char *origin; /* after cdc_cj_set_origin */
    cdc_buf_t reason;   /* the problem (deferred or fatal) */
    bool failed;        /* reason holds a deferred problem */
    cdc_buf_t why[CDC_CJ_MAX_FIELDS]; /* each BAD slot's problem, kept across messages */
    uint32_t seq;                     /* problems found in this message */

    /* parse state */
    cdc_batch_t *out;
    int state, ret_state, skip_ret;
    int cur;        /* envelope key of the current value, -1 = skipped */
    uint32_t depth; /* nesting inside the current row object */
    uint32_t skip;  /* nesting inside a skipped value */
    uint32_t elem;  /* element index inside an envelope array */
    cdc_row_t scratch;
    cdc_value_t *tmp_keys, *tmp_vals; /* TEXT_ARRAY/INT_MAP elements, kept across messages */
    uint32_t tmp_n, tmp_cap;
};

/* ---- factory plumbing ----------------------------------------------------------------- */

/** Option entry every engine format declares first. */
#define CDC_CJ_OPTDEF_IGNORE_PARSE_ERRORS                                                          \
    {                                                                                              \
        .key = "ignore-parse-errors", .type = CDC_OPT_BOOL, .default_value = "false",              \
        .description = "Drop a message that cannot be decoded (bad JSON, unknown change type, a "  \
                       "value that does not fit its column) and count it, instead of failing. "    \
                       "(Flink sets only the bad field to NULL; cdcflow drops the whole message.)" \
    }

/** The option entries shared with the json format, in the order the engine formats list them. */
#define CDC_CJ_OPTDEFS_JSON                                                                        \
    CDC_JSON_OPTDEF_TIMESTAMP_STANDARD, CDC_JSON_OPTDEF_MAP_NULL_KEY_MODE,                         \
        CDC_JSON_OPTDEF_MAP_NULL_KEY_LITERAL, CDC_JSON_OPTDEF_DECIMAL_AS_PLAIN

/** ChangelogMode all ([I,UB,UA,D]) for decode_mode and encode_mode. */
cdc_changelog_mode_t cdc_cj_mode_all(const cdc_config_t *cfg);

/** deser_new for a format on the engine. */
int cdc_cj_deser_new(const cdc_cj_format_t *fmt, const cdc_format_ctx_t *ctx, cdc_deser_t **out,
                     cdc_error_t **err);
/** ser_new for a format on the engine. */
int cdc_cj_ser_new(const cdc_cj_format_t *fmt, const cdc_format_ctx_t *ctx, cdc_ser_t **out,
                   cdc_error_t **err);

/**
 * Defines the factory constructors of a format on the engine:
 * static PREFIX_deser_new and PREFIX_ser_new for the cdc_cj_format_t SPEC.
 */
#define CDC_CJ_CONSTRUCTORS(prefix, spec)                                                          \
    static int prefix##_deser_new(const cdc_format_ctx_t *ctx, cdc_deser_t **out,                  \
                                  cdc_error_t **err)                                               \
    {                                                                                              \
        return cdc_cj_deser_new(&(spec), ctx, out, err);                                           \
    }                                                                                              \
    static int prefix##_ser_new(const cdc_format_ctx_t *ctx, cdc_ser_t **out, cdc_error_t **err)   \
    {                                                                                              \
        return cdc_cj_ser_new(&(spec), ctx, out, err);                                             \
    }

/* ---- helpers for finish ----------------------------------------------------------------- */

/** Replaces the reason with a printf text; returns -1. */
int cdc_cj_fail(cdc_cj_deser_t *d, const char *fmt, ...) CDC_PRINTF(2, 3);
/** -1 when a problem was deferred while parsing (the reason is set), else 0. */
int cdc_cj_pending(const cdc_cj_deser_t *d);

/** True when envelope key i was given as text equal to s. */
bool cdc_cj_text_is(const cdc_cj_deser_t *d, int i, const char *s);

/**
 * Fills d->meta with the requested metadata values of this message (NULL where
 * the envelope lacks the key). Returns 0, or -1 with the reason set.
 */
int cdc_cj_build_meta(cdc_cj_deser_t *d, cdc_batch_t *out);
/**
 * Sets d->origin: "db.table" from the TEXT keys db_field and table_field
 * (either may be -1), the one given alone, or NULL.
 */
void cdc_cj_set_origin(cdc_cj_deser_t *d, cdc_batch_t *out, int db_field, int table_field);

/**
 * Appends a row of the given kind: the fields of data, replaced by the fields
 * overlay carried (overlay may be NULL), then d->meta; origin d->origin.
 * Returns 0, or -1 (reason set) when the overlay sets a NOT NULL field to null;
 * `what` names the overlay for that message ("\"old\"[0]").
 */
int cdc_cj_emit(cdc_cj_deser_t *d, cdc_batch_t *out, cdc_kind_t kind, const cdc_cj_item_t *data,
                const cdc_cj_item_t *overlay, const char *what);

/** Item k of envelope key i (k < slots[i].n). */
static inline const cdc_cj_item_t *cdc_cj_item(const cdc_cj_deser_t *d, int i, uint32_t k)
{
    return &d->items[d->slots[i].first + k];
}

#endif
