/*
 * cdc_value_text.h — a scalar value from its text, once for every format,
 * connector and cast: JSON and CSV fields, partition values, SQL literals,
 * PostgreSQL's text output (pgoutput), MySQL's text rows (mysql-cdc
 * snapshots) and CAST(string AS type).
 *
 * What is common lives once (integers with range checks, decimals with
 * precision and scale, floats, dates, times with fractions, timestamps,
 * booleans, bytes); what differs between sources is a dialect flag.
 * Per-record path: no allocation except the value's own bytes in the arena,
 * a cheap status and a static reason.
 */
#ifndef CDC_VALUE_TEXT_H
#define CDC_VALUE_TEXT_H

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cdc_arena.h"
#include "cdc_row.h"
#include "cdc_types.h"

/* Results of cdc_value_from_text. */
#define CDC_TEXT_OK 0
#define CDC_TEXT_BAD -1   /* not text of the type */
#define CDC_TEXT_RANGE -2 /* a number of the type's kind that does not fit it */

/*
 * Flags of cdc_value_from_text. Without a dialect flag (CAST, PG, MYSQL, JDBC) the
 * text follows Flink's JSON rules (json, csv, partition values): numbers and
 * booleans may be surrounded by blanks, floats take Java's NaN/Infinity,
 * bytes are base64, a TIMESTAMP_LTZ ends with "Z" and the date/time
 * separator is fixed by CDC_TEXT_ISO8601.
 */
enum {
    CDC_TEXT_ISO8601 = 1u << 0,  /* timestamps "yyyy-MM-ddTHH:mm:ss" (else with ' ') */
    CDC_TEXT_NUMBER = 1u << 1,   /* the text is a number token already checked (a JSON number,
                                    a SQL numeric literal): taken as is by numeric and string
                                    types, refused by the others */
    CDC_TEXT_COPY = 1u << 2,     /* strings (and MySQL's raw bytes) are copied into the arena;
                                    else they point into the text */
    CDC_TEXT_CAST = 1u << 3,     /* Flink's CAST(string AS type): blanks trimmed, booleans
                                    true/t/yes/y/1 and false/f/no/n/0, a zone on TIMESTAMP_LTZ */
    CDC_TEXT_PG = 1u << 4,       /* PostgreSQL text output: t/f booleans, '\x' hex bytea, BC
                                    years, [-]infinity refused, 24:00:00, exact layouts */
    CDC_TEXT_PG_ZONED = 1u << 5, /* with CDC_TEXT_PG: a timestamptz, whose offset is required */
    CDC_TEXT_MYSQL = 1u << 6,    /* MySQL's text rows: zero and partial dates are NULL, raw
                                    bytes, integers without a range check, fractions to 9 */
    CDC_TEXT_SHORT_FRACTION = 1u << 7, /* cdc_value_to_text: fractions of seconds without
                                          trailing zeros (Java's appendFraction(0, 9)), not
                                          padded to the type's precision */
    CDC_TEXT_JDBC = 1u << 8,  /* a database's text cell (jdbc lookups): 1/t/true booleans in
                                 any case, integers also as "1.0" (a REAL holding one),
                                 inf/Infinity, timestamps with an optional zone ("+hh" as
                                 PostgreSQL gives it), raw bytes */
    CDC_TEXT_LOCAL = 1u << 9, /* cdc_value_to_text: a TIMESTAMP_LTZ as a local date-time in
                                 the session time zone (UTC), without the 'Z' (CAST to STRING) */
};

/**
 * Converts text s[0..len) into *out for the scalar type t under flags.
 * Strings point into s unless CDC_TEXT_COPY; decoded bytes (base64, hex) and
 * copies are allocated in arena. Returns CDC_TEXT_OK (out->flags set: 0, or
 * CDC_V_NULL for MySQL's zero dates), or CDC_TEXT_BAD / CDC_TEXT_RANGE with
 * *why set (when why is not NULL) to a static reason such as "not an
 * integer"; *out is then undefined. Nullability is the caller's business.
 */
int cdc_value_from_text(const cdc_type_t *t, const char *s, size_t len, unsigned flags,
                        cdc_arena_t *arena, cdc_value_t *out, const char **why);

/** Room cdc_value_to_text needs at buf, its NUL included. */
#define CDC_VALUE_TEXT_MAX 64

/**
 * The inverse, for sinks and casts: writes the text of non-NULL v of scalar
 * type t (BOOLEAN, numbers, DECIMAL, DATE, TIME, TIMESTAMP[_LTZ]; not strings
 * or bytes) NUL-terminated at buf (CDC_VALUE_TEXT_MAX bytes) and returns its
 * length, or -1 for other types. Flags: CDC_TEXT_ISO8601 ('T' between date
 * and time, else ' '), CDC_TEXT_SHORT_FRACTION, CDC_TEXT_LOCAL. TIMESTAMP_LTZ ends with 'Z';
 * times print to the type's precision; a negative TIME (a MySQL duration) as
 * "-hh:mm:ss". The print format (cdc_value_print) is this with ISO8601.
 */
int cdc_value_to_text(const cdc_value_t *v, const cdc_type_t *t, unsigned flags, char *buf);

/** Narrows s[0..*len) to its text without leading and trailing blanks (isspace). */
static inline void cdc_text_trim(const char **s, size_t *len)
{
    while (*len && isspace((unsigned char)**s)) {
        (*s)++;
        (*len)--;
    }
    while (*len && isspace((unsigned char)(*s)[*len - 1]))
        (*len)--;
}

/** The smallest and largest value of an integer type (root TINYINT, SMALLINT, INT, BIGINT). */
static inline int64_t cdc_int_min(cdc_type_root_t root)
{
    return root == CDC_T_TINYINT    ? INT8_MIN
           : root == CDC_T_SMALLINT ? INT16_MIN
           : root == CDC_T_INT      ? INT32_MIN
                                    : INT64_MIN;
}
static inline int64_t cdc_int_max(cdc_type_root_t root)
{
    return root == CDC_T_TINYINT    ? INT8_MAX
           : root == CDC_T_SMALLINT ? INT16_MAX
           : root == CDC_T_INT      ? INT32_MAX
                                    : INT64_MAX;
}
/** Whether v fits the integer type root. */
static inline bool cdc_int_fits(cdc_type_root_t root, int64_t v)
{
    return v >= cdc_int_min(root) && v <= cdc_int_max(root);
}

/* cdc_text_parse_i64 beyond its inline fast path (19 digits and more, or no digit). */
int cdc_text_parse_i64_slow(const char *s, size_t len, int64_t *out);

/**
 * Parses [+-]?digits (nothing else) into *out. Returns 0, -1 when the text is
 * not an integer, -2 when it is one beyond 64 bits. Inline for up to 18 digits,
 * which cannot overflow (every row of a CDC stream has some integers).
 */
static inline int cdc_text_parse_i64(const char *s, size_t len, int64_t *out)
{
    size_t i = len && (s[0] == '-' || s[0] == '+');
    if (len - i - 1 < 18) { /* 1 to 18 digits (len - i == 0 wraps to the slow path) */
        uint64_t v = 0;
        for (size_t k = i; k < len; k++) {
            unsigned d = (unsigned)(unsigned char)s[k] - '0';
            if (d > 9)
                return -1;
            v = v * 10 + d;
        }
        *out = s[0] == '-' ? -(int64_t)v : (int64_t)v;
        return 0;
    }
    return cdc_text_parse_i64_slow(s, len, out);
}

/**
 * Decodes base64 s[0..len) into out (room for len / 4 * 3 + 3 bytes); returns
 * the decoded length or -1. Standard alphabet with any '=' padding; or, when
 * url_safe (Debezium), also the URL-safe alphabet and at most two '=' that
 * complete the last quad.
 */
long cdc_text_base64_decode(const char *s, size_t len, bool url_safe, unsigned char *out);
/**
 * True for text a base64 decoder would take: quads of either alphabet, '='
 * only in the last two places (how Debezium's precise decimals look).
 */
bool cdc_text_looks_base64(const char *s, size_t len);
/** Appends p[0..n) as base64 (standard alphabet, padded). */
void cdc_text_base64_encode(cdc_buf_t *out, const unsigned char *p, size_t n);

/** Debezium's binary.handling.mode: how a binary column declared STRING is written. */
typedef enum cdc_binary_mode {
    CDC_BINARY_BYTES,      /* as it is (no text form: such a column must be declared BYTES) */
    CDC_BINARY_BASE64,     /* base64, standard alphabet, padded */
    CDC_BINARY_BASE64_URL, /* base64, URL-safe alphabet ('-', '_'), padded */
    CDC_BINARY_HEX         /* lowercase hexadecimal, two digits per byte */
} cdc_binary_mode_t;
/** The option values of cdc_binary_mode_t, in its order, NULL-terminated. */
extern const char *const cdc_binary_modes[];
/**
 * p[0..n) as text per mode into *out: written into the arena (BYTES: *out is p itself, not
 * copied). No allocation beyond the arena's.
 */
void cdc_text_bytes_to_text(cdc_arena_t *arena, cdc_binary_mode_t mode, const unsigned char *p,
                            size_t n, cdc_str_t *out);

/*
 * The fast paths of the default dialect, for decoders that test their
 * common cases before calling cdc_value_from_text (text already checked):
 */

/** Decimal number text to double, correctly rounded as strtod (arena: long text). */
double cdc_text_to_double(const char *s, size_t len, cdc_arena_t *arena);
/**
 * Number text to DECIMAL(t->precision, t->scale), rounding HALF_UP. Returns
 * 0, or -1 when it does not fit.
 */
int cdc_text_to_decimal(const char *s, size_t len, const cdc_type_t *t, cdc_i128 *out);
/**
 * The exact layout "yyyy-mm-dd?hh:mm:ss[.f{1,9}]" with separator sep,
 * truncated to precision, as cdc_timestamp_parse gives it. Returns -1 for
 * anything else (the caller then takes the general path).
 */
int cdc_text_timestamp_fast(const char *s, size_t n, char sep, int precision, cdc_ts_t *out);

/**
 * Reads min..max decimal digits at s[*i..len) into *out, advancing *i.
 * Returns 0, or -1 when fewer than min.
 */
int cdc_text_digits(const char *s, size_t len, size_t *i, int min, int max, int64_t *out);

/**
 * PostgreSQL's "hh:mm:ss[.f{1,9}]" at s[*i..len) into nanos of day (24:00:00
 * allowed, as PostgreSQL does); advances *i. Returns 0 or -1. For PostgreSQL
 * syntax built on it (intervals).
 */
int cdc_text_pg_hms(const char *s, size_t len, size_t *i, int64_t *nanos);

#endif
