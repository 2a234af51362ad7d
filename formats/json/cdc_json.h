/*
 * cdc_json.h — shared JSON pieces of the json format, for the CDC JSON formats
 * (debezium-json, canal-json, maxwell-json, ogg-json) that parse an envelope
 * with yajl-style callbacks and hand nested objects to the same row decoder.
 *
 *  - cdc_json_parser_t: our own JSON parser (json_lex.c), one per
 *    deserializer, reporting to a yajl_callbacks struct as yajl would; no
 *    allocation per message. (yajl itself is kept for yajl_gen and as the
 *    reference of fuzz/json_lex_diff.c.)
 *  - cdc_json_rowdec_t: a streaming decoder of one JSON object into a row,
 *    driven by those events (Flink's JsonToRowDataConverters).
 *  - cdc_json_convert_scalar: one JSON scalar to one value of a logical type.
 *  - cdc_json_write_*: the serializer side (Flink's RowDataToJsonConverters).
 *  - CDC_JSON_OPTDEF_*: option table entries every JSON format shares.
 */
#ifndef CDC_JSON_H
#define CDC_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <yajl/yajl_parse.h>

#include "cdc_plugin.h"

/* ---- shared options ----------------------------------------------------------- */

/** {"SQL", "ISO-8601", NULL}: values of timestamp-format.standard. */
extern const char *const cdc_json_timestamp_standards[];
/** {"FAIL", "DROP", "LITERAL", NULL}: values of map-null-key.mode. */
extern const char *const cdc_json_map_null_key_modes[];

/* Option table entries (cdc_option_def_t initializers) shared by the JSON formats. */
#define CDC_JSON_OPTDEF_TIMESTAMP_STANDARD                                                         \
    {                                                                                              \
        .key = "timestamp-format.standard", .type = CDC_OPT_ENUM, .default_value = "SQL",          \
        .enum_values = cdc_json_timestamp_standards,                                               \
        .description = "Timestamp text read and written: SQL (\"2020-07-30 10:08:22.123\") or "    \
                       "ISO-8601 (\"2020-07-30T10:08:22.123\"); TIMESTAMP_LTZ adds a \"Z\"."       \
    }
#define CDC_JSON_OPTDEF_MAP_NULL_KEY_MODE                                                          \
    {                                                                                              \
        .key = "map-null-key.mode", .type = CDC_OPT_ENUM, .default_value = "FAIL",                 \
        .enum_values = cdc_json_map_null_key_modes,                                                \
        .description = "Writing a MAP entry whose key is null: FAIL the row, DROP the entry, or "  \
                       "write the key as the LITERAL text of map-null-key.literal."                \
    }
#define CDC_JSON_OPTDEF_MAP_NULL_KEY_LITERAL                                                       \
    {                                                                                              \
        .key = "map-null-key.literal", .type = CDC_OPT_STRING, .default_value = "null",            \
        .description = "Key text written for a null MAP key when map-null-key.mode is LITERAL."    \
    }
#define CDC_JSON_OPTDEF_DECIMAL_AS_PLAIN                                                           \
    {                                                                                              \
        .key = "encode.decimal-as-plain-number", .type = CDC_OPT_BOOL, .default_value = "false",   \
        .description = "Write DECIMAL values as plain numbers (0.00000001); by default small "     \
                       "values use scientific notation like Java's BigDecimal.toString (1E-8)."    \
    }

typedef enum cdc_json_map_null_key {
    CDC_JSON_NULL_KEY_FAIL = 0,
    CDC_JSON_NULL_KEY_DROP = 1,
    CDC_JSON_NULL_KEY_LITERAL = 2
} cdc_json_map_null_key_t;

/** Decoding options of the row decoder. */
typedef struct cdc_json_opts_s {
    bool fail_on_missing_field;
    bool iso8601;     /* timestamp-format.standard = ISO-8601 (else SQL) */
    bool bool_digits; /* "0"/"1" (string or number) are BOOLEAN false/true: how Canal sends a
                         MySQL TINYINT(1), which MySQL's BOOLEAN is */
} cdc_json_opts_t;

/** Encoding options of the writers. */
typedef struct cdc_json_encode_opts_s {
    bool iso8601;                              /* timestamp-format.standard */
    cdc_json_map_null_key_t map_null_key_mode; /* map-null-key.mode */
    const char *map_null_key_literal;          /* map-null-key.literal (borrowed) */
    bool decimal_as_plain_number;              /* encode.decimal-as-plain-number */
    bool ignore_null_fields;                   /* encode.ignore-null-fields */
} cdc_json_encode_opts_t;

/**
 * Reads the four shared encode options (timestamp-format.standard,
 * map-null-key.mode, map-null-key.literal, encode.decimal-as-plain-number) from
 * cfg, whose table must declare all of them (CDC_JSON_OPTDEF_*).
 * ignore_null_fields is set false; the literal is borrowed from cfg.
 */
void cdc_json_encode_opts_read(const cdc_config_t *cfg, cdc_json_encode_opts_t *opts);

/* ---- parser ------------------------------------------------------------------------- */

/** Parsing of one JSON text per message, without allocation per message. */
typedef struct cdc_json_parser_s cdc_json_parser_t;

/** Containers nested deeper than this are invalid JSON to the parser. */
#define CDC_JSON_PARSER_MAX_DEPTH 1024

/**
 * Creates a parser that reports events to callbacks with ctx (both borrowed;
 * they must outlive the parser; *callbacks is read at every event, so its
 * owner may change it from a callback). Numbers are reported as text with
 * yajl_number only (aborts when yajl_integer or yajl_double is set instead).
 */
cdc_json_parser_t *cdc_json_parser_new(const yajl_callbacks *callbacks, void *ctx);
void cdc_json_parser_destroy(cdc_json_parser_t *parser);

#define CDC_JSON_PARSE_OK 0
#define CDC_JSON_PARSE_INVALID -1  /* not JSON; reason written to err */
#define CDC_JSON_PARSE_CANCELED -2 /* a callback returned 0; it keeps its own reason */

/**
 * Parses msg[0..len) as exactly one JSON text (RFC 8259: strict UTF-8, no
 * comments, no trailing data; values follow each other as in yajl's
 * allow_multiple_values until one is marked with cdc_json_parser_mark_end).
 * Strings without escapes are reported as pointers into msg, others in a
 * buffer valid during the callback. On invalid JSON, replaces err's content
 * with "invalid JSON at byte N: REASON" with yajl's reasons and offsets: N is
 * the 0-based offset where yajl stopped (just after the offending token), the
 * end of msg for "premature EOF" and tokens cut by the end, or the first byte
 * after the value for "trailing garbage".
 * Must not be called from inside its own callbacks.
 */
int cdc_json_parser_parse(cdc_json_parser_t *parser, const char *msg, size_t len, cdc_buf_t *err);

/** Bytes of the current message consumed so far; valid inside callbacks. */
size_t cdc_json_parser_offset(const cdc_json_parser_t *parser);

/**
 * Call from the callback that ends the top-level value (its end_map; later
 * calls in the same message are ignored): parse then stops there and
 * requires only whitespace after it ("trailing garbage" otherwise).
 * Callbacks should ignore (return 1, no side effects) events that come after
 * the top-level value (the parser sends none, the yajl reference does).
 */
void cdc_json_parser_mark_end(cdc_json_parser_t *parser);

/* ---- row decoder ---------------------------------------------------------------------- */

/**
 * Declared types (ROW, ARRAY, MAP) nested deeper than this are an error. JSON a
 * column takes whole (a STRING holding an object, or a field nobody declared)
 * may nest as deep as the parser allows, CDC_JSON_PARSER_MAX_DEPTH.
 */
#define CDC_JSON_MAX_DEPTH 128

typedef struct cdc_json_rowdec_s cdc_json_rowdec_t;

/**
 * Checks that values of type t can be read from and written as JSON: a MAP key
 * must be a scalar type (its JSON text is an object key). Returns 0, or -1 with
 * *err set (naming the offending type). Factories call it in deser_new/ser_new.
 */
/* Error-text helpers for the per-record path (fixed buffers, no allocation), shared by the
   JSON formats: printf at *pos (truncating), a type as SQL text ("DECIMAL(5, 2)",
   "ARRAY<INT NOT NULL>"; NOT NULL of the top level only when with_null), and what a JSON
   token was (`found string "abc"`, `found number 1.5`, `found null`, `found an object`). */
void cdc_json_bput(char *buf, size_t cap, size_t *pos, const char *fmt, ...) CDC_PRINTF(4, 5);
void cdc_json_type_text(const cdc_type_t *t, char *buf, size_t cap, size_t *pos, bool with_null);
void cdc_json_found_text(char kind, const char *s, size_t len, char *buf, size_t cap, size_t *pos);

int cdc_json_check_type(const cdc_type_t *t, cdc_error_t **err);

/**
 * A streaming decoder of one JSON object into a row of ROW type row_type.
 * Owns no row memory. row_type is borrowed and must outlive the decoder; opts
 * is copied. Never returns NULL (aborts on out-of-memory).
 */
cdc_json_rowdec_t *cdc_json_rowdec_new(const cdc_type_t *row_type, const cdc_json_opts_t *opts);
void cdc_json_rowdec_destroy(cdc_json_rowdec_t *dec);

/**
 * Declares the message being parsed: strings without escapes that yajl hands
 * out as pointers into msg[0..len) are referenced instead of copied into the
 * arena, so the caller must keep msg alive as long as the rows. Cleared by
 * passing NULL (every string is then copied). Stays in effect across begins.
 */
void cdc_json_rowdec_set_input(cdc_json_rowdec_t *dec, const char *msg, size_t len);

/**
 * Starts decoding; call it on the object's start_map event (which it stands
 * for). Values go into row->values[0..nfields) (arity may be larger: metadata
 * follows and is not touched); nested rows, arrays, maps and copied strings
 * are allocated in arena. Fields absent from the object are left as they are
 * (cdc_batch_add makes them NULL), so decoding a partial object over a copy
 * of a row overlays it (Canal's and Maxwell's "old"). At the end, a NOT NULL
 * field that is still NULL is an error, and so is any absent field under
 * fail_on_missing_field. Unknown keys are skipped with their subtrees.
 */
void cdc_json_rowdec_begin(cdc_json_rowdec_t *dec, cdc_row_t *row, cdc_arena_t *arena);

/*
 * Feed the events that follow begin. Each returns 0 = continue, 1 = the object
 * is complete (its closing end_map was consumed; missing-field and NOT NULL
 * checks done), -1 = error (reason from cdc_json_rowdec_error; call begin
 * again before reusing the decoder).
 */
int cdc_json_rowdec_null(cdc_json_rowdec_t *dec);
int cdc_json_rowdec_bool(cdc_json_rowdec_t *dec, int b);
int cdc_json_rowdec_number(cdc_json_rowdec_t *dec, const char *s, size_t len);
int cdc_json_rowdec_string(cdc_json_rowdec_t *dec, const unsigned char *s, size_t len);
int cdc_json_rowdec_map_key(cdc_json_rowdec_t *dec, const unsigned char *s, size_t len);
int cdc_json_rowdec_start_map(cdc_json_rowdec_t *dec);
int cdc_json_rowdec_end_map(cdc_json_rowdec_t *dec);
int cdc_json_rowdec_start_array(cdc_json_rowdec_t *dec);
int cdc_json_rowdec_end_array(cdc_json_rowdec_t *dec);

/**
 * A format's own conversion of the values nested in a row (ROW fields, ARRAY
 * elements, MAP values), e.g. debezium-json's semantic types inside arrays.
 * node numbers the value's place in row_type's tree in preorder: row_type is
 * 0, then each child and its subtree in order (a column's ARRAY element is the
 * column's number + 1).
 */
typedef struct cdc_json_hook_s {
    /**
     * Converts one scalar (kind as cdc_json_convert_scalar, or '{' with s the
     * compact JSON text of an object that object() took) into *out of type t.
     * Returns 0, or -1 with the reason in reason (NUL-terminated, cap bytes).
     */
    int (*scalar)(void *ctx, const cdc_type_t *t, uint32_t node, char kind, const char *s,
                  size_t len, cdc_value_t *out, char *reason, size_t cap);
    /** Optional: true when an object given for scalar type t is one value for scalar(). */
    bool (*object)(void *ctx, const cdc_type_t *t, uint32_t node);
    void *ctx;
} cdc_json_hook_t;

/**
 * Sets (copies) or, with NULL, clears dec's hook; with one, every scalar the
 * decoder reads goes through it (the fast paths are skipped).
 */
void cdc_json_rowdec_set_hook(cdc_json_rowdec_t *dec, const cdc_json_hook_t *hook);

/**
 * The reason of the last -1, e.g. `field "id": expected INT, found string "abc"`.
 * Borrowed; valid until the next call on dec.
 */
const char *cdc_json_rowdec_error(const cdc_json_rowdec_t *dec);

/**
 * Converts one JSON scalar into *out for type t, as the row decoder does.
 * kind: 'n' null, 'b' boolean (s is "true" or "false"), '#' number (its JSON
 * text), 's' string (unescaped content). Strings and bytes are copied into
 * arena. A null for a NOT NULL type, and any scalar for ARRAY/MAP/ROW, is an
 * error. Returns 0, or -1 with a reason such as `expected INT, found string
 * "abc"` in errbuf (NUL-terminated, truncated to errlen).
 */
int cdc_json_convert_scalar(const cdc_type_t *t, char kind, const char *s, size_t len, bool iso8601,
                            cdc_arena_t *arena, cdc_value_t *out, char *errbuf, size_t errlen);

/**
 * The json format's deserializer (internal to formats/json: its factory calls
 * it). Takes ownership of row_type.
 */
cdc_deser_t *cdc_json_deser_new(cdc_type_t *row_type, const cdc_json_opts_t *opts,
                                bool ignore_parse_errors);

/* ---- writers ----------------------------------------------------------------------------- */

/** The error text of map-null-key.mode FAIL (Flink's wording). */
#define CDC_JSON_ERR_MAP_NULL_KEY                                                                  \
    "JSON format doesn't support to serialize map data with null keys. You can drop null key "     \
    "entries or encode null in literals by specifying map-null-key.mode option."

/**
 * Appends v (of type t) as compact JSON to out. Returns 0, or -1 when a MAP
 * has a null key under map-null-key.mode FAIL (the only failure; its text is
 * CDC_JSON_ERR_MAP_NULL_KEY); out then holds a partial value to discard.
 */
int cdc_json_write_value(cdc_buf_t *out, const cdc_value_t *v, const cdc_type_t *t,
                         const cdc_json_encode_opts_t *opts);
/**
 * Appends fields 0..nfields(row_type) of row (arity may be larger: metadata is
 * not written) as one JSON object, leaving out null fields when
 * opts->ignore_null_fields. Returns as cdc_json_write_value.
 */
int cdc_json_write_row(cdc_buf_t *out, const cdc_row_t *row, const cdc_type_t *row_type,
                       const cdc_json_encode_opts_t *opts);
/** Appends s[0..len) as a quoted, escaped JSON string. */
void cdc_json_write_string(cdc_buf_t *out, const char *s, size_t len);

#endif
