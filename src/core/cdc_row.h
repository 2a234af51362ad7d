/*
 * cdc_row.h — values, rows with a change kind, row batches, changelog modes,
 * and the print format (Flink's Row.toString: "+I[101, scooter, 3.14]").
 *
 * Values live in the batch's arena or point into the input message; nothing
 * is allocated per field.
 */
#ifndef CDC_ROW_H
#define CDC_ROW_H

#include <stdbool.h>
#include <stdint.h>

#include "cdc_arena.h"
#include "cdc_types.h"

__extension__ typedef __int128 cdc_i128;

typedef enum cdc_kind {
    CDC_INSERT = 0,
    CDC_UPDATE_BEFORE = 1,
    CDC_UPDATE_AFTER = 2,
    CDC_DELETE = 3
} cdc_kind_t;

/** "+I", "-U", "+U", "-D". */
const char *cdc_kind_short(cdc_kind_t kind);

/** A changelog mode: a bit set of kinds (1 << CDC_INSERT, ...). */
typedef uint8_t cdc_changelog_mode_t;
#define CDC_MODE_BIT(k) ((cdc_changelog_mode_t)(1u << (k)))
#define CDC_MODE_INSERT_ONLY CDC_MODE_BIT(CDC_INSERT)
#define CDC_MODE_UPSERT                                                                            \
    (CDC_MODE_BIT(CDC_INSERT) | CDC_MODE_BIT(CDC_UPDATE_AFTER) | CDC_MODE_BIT(CDC_DELETE))
#define CDC_MODE_ALL (CDC_MODE_UPSERT | CDC_MODE_BIT(CDC_UPDATE_BEFORE))
/** Writes "[I,UB,UA,D]" (the kinds present) into buf; returns buf. */
const char *cdc_changelog_mode_str(cdc_changelog_mode_t mode, char buf[16]);

typedef struct cdc_str_s {
    const char *ptr;
    uint32_t len;
} cdc_str_t;

typedef struct cdc_ts_s {
    int64_t millis; /* since 1970-01-01T00:00:00 (UTC for TIMESTAMP_LTZ) */
    int32_t nanos;  /* nanos of the millisecond, 0..999999 */
} cdc_ts_t;

struct cdc_row_s;
struct cdc_value_s;

typedef struct cdc_array_s {
    uint32_t n;
    struct cdc_value_s *elems;
    struct cdc_value_s *vals; /* MAP values (elems are the keys); NULL for ARRAY */
} cdc_array_t;

/* Value flags. */
#define CDC_V_NULL 0x01 /* SQL NULL */
#define CDC_V_UNCHANGED                                                                            \
    0x02 /* not carried by the change (TOAST): sinks keep the stored value;                        \
          printed as <unchanged> */

/**
 * One field value. Which member is valid follows the field's type:
 * BOOLEAN b; TINYINT..BIGINT i; FLOAT f; DOUBLE d; DECIMAL dec (unscaled, scale
 * from the type); CHAR/VARCHAR/BINARY/VARBINARY s; DATE days since epoch in i;
 * TIME nanos of day in i; TIMESTAMP/_LTZ ts; ARRAY/MAP arr; ROW row.
 */
typedef struct cdc_value_s {
    union {
        bool b;
        int64_t i;
        float f;
        double d;
        cdc_i128 dec;
        cdc_str_t s;
        cdc_ts_t ts;
        cdc_array_t arr;
        struct cdc_row_s *row;
    } v;
    uint8_t flags;
} cdc_value_t;

static inline bool cdc_value_is_null(const cdc_value_t *v)
{
    return (v->flags & CDC_V_NULL) != 0;
}

typedef struct cdc_row_s {
    cdc_kind_t kind;
    uint32_t arity;
    cdc_value_t *values;
    const char *origin; /* fully qualified source table when known ("db.table"), else NULL */
} cdc_row_t;

/**
 * A batch of rows sharing one arena. Rows and their values are valid until
 * cdc_batch_reset(). Capacity is kept across resets.
 */
typedef struct cdc_batch_s {
    cdc_arena_t arena;
    cdc_row_t *rows;
    uint32_t n;
    uint32_t cap;
} cdc_batch_t;

void cdc_batch_init(cdc_batch_t *batch);
/* Doubles the room for rows; the slow path of cdc_batch_add. */
void cdc_batch_grow(cdc_batch_t *batch);

/** Appends a row of the given arity with all fields NULL; returns it. Inline: decoders call it
    per row. */
static inline cdc_row_t *cdc_batch_add(cdc_batch_t *batch, cdc_kind_t kind, uint32_t arity)
{
    if (batch->n == batch->cap)
        cdc_batch_grow(batch);
    cdc_row_t *row = &batch->rows[batch->n++];
    row->kind = kind;
    row->arity = arity;
    row->origin = NULL;
    row->values =
        (cdc_value_t *)cdc_arena_alloc(&batch->arena, sizeof(cdc_value_t) * (arity ? arity : 1));
    for (uint32_t i = 0; i < arity; i++)
        row->values[i].flags = CDC_V_NULL;
    return row;
}
/** Removes the last n rows (their arena memory stays until reset). */
void cdc_batch_truncate(cdc_batch_t *batch, uint32_t n);
void cdc_batch_reset(cdc_batch_t *batch);
void cdc_batch_free(cdc_batch_t *batch);

/** A nested row of given arity (fields NULL) in the arena. */
cdc_row_t *cdc_row_new_in(cdc_arena_t *arena, uint32_t arity);

/* ---- decimals ----------------------------------------------------------- */

/** 10^n for n in 0..38 (a table lookup and at most one product). */
cdc_i128 cdc_pow10_i128(int n);
/** Number of decimal digits of |v| (0 has 1 digit). */
int cdc_i128_digits(cdc_i128 v);
/** Writes v with the given scale ("-1.50"); returns length; buf >= 48 bytes. */
int cdc_decimal_format(cdc_i128 unscaled, int scale, char *buf);
/**
 * Parses decimal text ("-12.345", "1e3", "1.5E-2") into an unscaled value of
 * the target precision/scale, rounding HALF_UP like Java's BigDecimal when the
 * text has more fraction digits. Returns 0, or -1 when the text is not a number
 * or the value does not fit DECIMAL(precision, scale).
 */
int cdc_decimal_parse(const char *text, size_t len, int precision, int scale, cdc_i128 *out);

/* ---- dates and times ------------------------------------------------------ */

/** Days since 1970-01-01 for a proleptic Gregorian date. */
int64_t cdc_days_from_civil(int64_t y, unsigned m, unsigned d);
void cdc_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d);
/** Parses "yyyy-mm-dd"; returns 0 or -1. */
int cdc_date_parse(const char *s, size_t len, int32_t *days);
/**
 * Parses "hh:mm[:ss[.fffffffff]]" into nanos of day, truncating to `precision`
 * fraction digits. Returns 0 or -1.
 */
int cdc_time_parse(const char *s, size_t len, int precision, int64_t *nanos);
/**
 * Parses "yyyy-mm-dd[ T]hh:mm[:ss[.f{1,9}]]" with an optional zone suffix "Z" or
 * "+hh:mm" (only when allow_zone). Sets *had_zone. The result is local time, or
 * UTC when a zone was given. Returns 0 or -1.
 */
int cdc_timestamp_parse(const char *s, size_t len, int precision, bool allow_zone, cdc_ts_t *out,
                        bool *had_zone);

/* ---- printing -------------------------------------------------------------- */

/** Appends one value as the print format shows it. */
void cdc_value_print(cdc_buf_t *out, const cdc_value_t *v, const cdc_type_t *type);
/** Appends "+I[a, b, c]" for a row of the given ROW type. */
/**
 * Orders two non-NULL scalar values of type t: <0, 0 or >0; 2 when they are unordered (a NaN,
 * or a type without an order such as ROW).
 */
int cdc_value_cmp(const cdc_type_t *t, const cdc_value_t *a, const cdc_value_t *b);

/**
 * Copies value in (of type t; NULL t: a shallow copy) to *out with everything it points to
 * (strings, bytes, arrays, maps, rows) copied into arena, so it outlives its batch.
 */
void cdc_value_keep(cdc_arena_t *arena, const cdc_type_t *t, const cdc_value_t *in,
                    cdc_value_t *out);
/** A copy of row (of ROW type t) and everything it points to, in arena. */
cdc_row_t *cdc_row_keep(const cdc_row_t *src, const cdc_type_t *t, cdc_arena_t *arena);

/**
 * Replaces out with the key bytes of row's columns key[0..nkey) (types from the
 * ROW type t): equal keys give equal bytes, for hashing (ChangelogNormalize, the
 * lookup cache, the snapshot's reconciliation).
 */
void cdc_row_key_bytes(const cdc_row_t *row, const int *key, int nkey, const cdc_type_t *t,
                       cdc_buf_t *out);
void cdc_row_print(cdc_buf_t *out, const cdc_row_t *row, const cdc_type_t *row_type);
/** Writes v in decimal ("-42"); returns the length; buf >= 21 bytes. */
int cdc_int64_format(int64_t v, char *buf);
/** Shortest text that round-trips a 32-bit float, Java-style (".0" on integral values). */
int cdc_float_format(float f, char *buf);
/** Shortest text that round-trips a double, Java-style. */
int cdc_double_format(double d, char *buf);

#endif
