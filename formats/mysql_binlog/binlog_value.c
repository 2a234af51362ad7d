/*
 * binlog_value.c — one column value of a binlog row image (MySQL/MariaDB
 * storage formats: little-endian integers, packed NEWDECIMAL, the 5.6
 * temporal formats TIME2/DATETIME2/TIMESTAMP2 and the old ones) into a value
 * of the Flink type the column maps to (the table in the README, after Flink
 * CDC's MySQL type mapping).
 */
#include <stdio.h>
#include <string.h>

#include "binlog_int.h"

/* ---- types ---------------------------------------------------------------------------------- */

/* Bytes per character of a collation, 0 when unknown (the length is then not used). */
static int mbmaxlen(int coll)
{
    if (coll == 63) /* binary */
        return 1;
    if (coll == 45 || coll == 46 || (coll >= 224 && coll <= 247) || (coll >= 255 && coll <= 323) ||
        (coll >= 2048 && coll <= 2303))
        return 4; /* utf8mb4 */
    if (coll == 33 || coll == 83 || coll == 76 || (coll >= 192 && coll <= 223))
        return 3; /* utf8mb3 */
    if (coll == 5 || coll == 8 || coll == 15 || coll == 31 || coll == 47 || coll == 48 ||
        coll == 49 || coll == 94 || coll == 11 || coll == 65)
        return 1; /* latin1, ascii */
    return 0;
}

/* MySQL's latin1 is cp1252 */
static bool is_latin1(int coll)
{
    return coll == 5 || coll == 8 || coll == 15 || coll == 31 || coll == 47 || coll == 48 ||
           coll == 49 || coll == 94;
}

/* cp1252 0x80..0x9f (undefined ones kept as the C1 control of the same number) */
static const uint16_t cp1252_hi[32] = {
    0x20ac, 0x0081, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008d, 0x017d, 0x008f, 0x0090, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022,
    0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x009d, 0x017e, 0x0178};

/* latin1 bytes with any >= 0x80 to UTF-8 in the arena */
static void latin1_to_utf8(cdc_arena_t *arena, cdc_value_t *v)
{
    const uint8_t *s = (const uint8_t *)v->v.s.ptr;
    uint32_t n = v->v.s.len, i;
    for (i = 0; i < n && s[i] < 0x80; i++)
        ;
    if (i == n)
        return;
    char *out = cdc_arena_alloc(arena, (size_t)n * 3);
    size_t k = 0;
    for (i = 0; i < n; i++) {
        uint32_t cp = s[i] >= 0x80 && s[i] < 0xa0 ? cp1252_hi[s[i] - 0x80] : s[i];
        if (cp < 0x80) {
            out[k++] = (char)cp;
        } else if (cp < 0x800) {
            out[k++] = (char)(0xc0 | cp >> 6);
            out[k++] = (char)(0x80 | (cp & 0x3f));
        } else {
            out[k++] = (char)(0xe0 | cp >> 12);
            out[k++] = (char)(0x80 | ((cp >> 6) & 0x3f));
            out[k++] = (char)(0x80 | (cp & 0x3f));
        }
    }
    v->v.s.ptr = out;
    v->v.s.len = (uint32_t)k;
}

static bool is_binary(const bl_col_t *col)
{
    return col->charset == 63;
}

static int fsp_of(const bl_col_t *col)
{
    return col->meta <= 6 ? col->meta : 6;
}

static int dec_precision(const bl_col_t *col)
{
    return col->meta >> 8;
}

static int dec_scale(const bl_col_t *col)
{
    return col->meta & 0xff;
}

cdc_type_t *bl_type_for(const bl_col_t *col)
{
    bool u = col->is_unsigned;
    switch (col->type) {
    case MT_TINY:
        return cdc_type_new(u ? CDC_T_SMALLINT : CDC_T_TINYINT);
    case MT_SHORT:
        return cdc_type_new(u ? CDC_T_INT : CDC_T_SMALLINT);
    case MT_INT24:
        return cdc_type_new(CDC_T_INT);
    case MT_LONG:
        return cdc_type_new(u ? CDC_T_BIGINT : CDC_T_INT);
    case MT_LONGLONG:
        return u ? cdc_type_new_decimal(20, 0) : cdc_type_new(CDC_T_BIGINT);
    case MT_YEAR:
        return cdc_type_new(CDC_T_INT);
    case MT_FLOAT:
        return cdc_type_new(CDC_T_FLOAT);
    case MT_DOUBLE:
        return cdc_type_new(CDC_T_DOUBLE);
    case MT_NEWDECIMAL: {
        int p = dec_precision(col), s = dec_scale(col);
        if (p < 1 || p > CDC_MAX_DECIMAL_PRECISION || s > p)
            return cdc_type_new_sized(CDC_T_VARCHAR, CDC_MAX_LENGTH);
        return cdc_type_new_decimal(p, s);
    }
    case MT_DATE:
    case MT_NEWDATE:
        return cdc_type_new(CDC_T_DATE);
    case MT_TIME:
        return cdc_type_new_sized(CDC_T_TIME, 0);
    case MT_TIME2:
        return cdc_type_new_sized(CDC_T_TIME, fsp_of(col));
    case MT_DATETIME:
        return cdc_type_new_sized(CDC_T_TIMESTAMP, 0);
    case MT_DATETIME2:
        return cdc_type_new_sized(CDC_T_TIMESTAMP, fsp_of(col));
    case MT_TIMESTAMP:
        return cdc_type_new_sized(CDC_T_TIMESTAMP_LTZ, 0);
    case MT_TIMESTAMP2:
        return cdc_type_new_sized(CDC_T_TIMESTAMP_LTZ, fsp_of(col));
    case MT_BIT: {
        int bits = (col->meta >> 8) * 8 + (col->meta & 0xff);
        return bits == 1 ? cdc_type_new(CDC_T_BOOLEAN)
                         : cdc_type_new_sized(CDC_T_VARBINARY, CDC_MAX_LENGTH);
    }
    case MT_STRING: {
        int mb = mbmaxlen(col->charset);
        if (is_binary(col))
            return cdc_type_new_sized(CDC_T_BINARY, (int32_t)(col->max_len ? col->max_len : 1));
        if (mb && col->max_len / (uint32_t)mb > 0)
            return cdc_type_new_sized(CDC_T_CHAR, (int32_t)(col->max_len / (uint32_t)mb));
        return cdc_type_new_sized(CDC_T_VARCHAR, CDC_MAX_LENGTH);
    }
    case MT_VARCHAR:
    case MT_VAR_STRING: {
        int mb = mbmaxlen(col->charset);
        if (is_binary(col))
            return cdc_type_new_sized(CDC_T_VARBINARY, (int32_t)(col->max_len ? col->max_len : 1));
        if (mb && col->max_len / (uint32_t)mb > 0)
            return cdc_type_new_sized(CDC_T_VARCHAR, (int32_t)(col->max_len / (uint32_t)mb));
        return cdc_type_new_sized(CDC_T_VARCHAR, CDC_MAX_LENGTH);
    }
    case MT_BLOB:
        return cdc_type_new_sized(is_binary(col) ? CDC_T_VARBINARY : CDC_T_VARCHAR, CDC_MAX_LENGTH);
    case MT_GEOMETRY:
        return cdc_type_new_sized(CDC_T_VARBINARY, CDC_MAX_LENGTH);
    default: /* ENUM, SET, JSON, NULL */
        return cdc_type_new_sized(CDC_T_VARCHAR, CDC_MAX_LENGTH);
    }
}

void bl_type_name(const bl_col_t *col, char *buf, size_t n)
{
    static const struct {
        uint8_t t;
        const char *name;
    } names[] = {
        {MT_TINY, "TINYINT"},
        {MT_SHORT, "SMALLINT"},
        {MT_INT24, "MEDIUMINT"},
        {MT_LONG, "INT"},
        {MT_LONGLONG, "BIGINT"},
        {MT_FLOAT, "FLOAT"},
        {MT_DOUBLE, "DOUBLE"},
        {MT_NEWDECIMAL, "DECIMAL"},
        {MT_DATE, "DATE"},
        {MT_TIME, "TIME"},
        {MT_TIME2, "TIME2"},
        {MT_DATETIME, "DATETIME"},
        {MT_DATETIME2, "DATETIME2"},
        {MT_TIMESTAMP, "TIMESTAMP"},
        {MT_TIMESTAMP2, "TIMESTAMP2"},
        {MT_YEAR, "YEAR"},
        {MT_BIT, "BIT"},
        {MT_VARCHAR, "VARCHAR"},
        {MT_VAR_STRING, "VAR_STRING"},
        {MT_STRING, "CHAR"},
        {MT_ENUM, "ENUM"},
        {MT_SET, "SET"},
        {MT_BLOB, "BLOB"},
        {MT_JSON, "JSON"},
        {MT_GEOMETRY, "GEOMETRY"},
        {MT_NULL, "NULL"},
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (names[i].t == col->type) {
            snprintf(buf, n, "%s%s", names[i].name, col->is_unsigned ? " UNSIGNED" : "");
            return;
        }
    }
    snprintf(buf, n, "type %u", col->type);
}

uint8_t bl_fast_kind(const bl_col_t *col)
{
    bool u = col->is_unsigned;
    switch (col->type) {
    case MT_TINY:
        return u ? BL_FAST_U8 : BL_FAST_I8;
    case MT_SHORT:
        return u ? BL_FAST_U16 : BL_FAST_I16;
    case MT_INT24:
        return u ? BL_FAST_U24 : BL_FAST_I24;
    case MT_LONG:
        return u ? BL_FAST_U32 : BL_FAST_I32;
    case MT_LONGLONG:
        return u ? BL_FAST_NONE : BL_FAST_I64;
    case MT_VARCHAR:
    case MT_VAR_STRING:
        if (is_latin1(col->charset))
            return BL_FAST_NONE;
        return col->max_len > 255 ? BL_FAST_STR2 : BL_FAST_STR1;
    default:
        return BL_FAST_NONE;
    }
}

/* ---- helpers -------------------------------------------------------------------------------- */

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

static int frac_bytes(int fsp)
{
    return (fsp + 1) / 2;
}

static bool valid_date(int64_t y, int64_t m, int64_t d)
{
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return y >= 1 && m >= 1 && m <= 12 && d >= 1 && d <= mdays[m - 1] &&
           !(m == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
}

/* Sets a TIMESTAMP from civil fields; zero or invalid dates (0000-00-00, 2015-00-21) are NULL. */
static void set_datetime(cdc_value_t *v, int64_t y, int64_t mo, int64_t d, int64_t h, int64_t mi,
                         int64_t s, int64_t micros)
{
    if (!valid_date(y, mo, d) || h > 23 || mi > 59 || s > 59) {
        v->flags = CDC_V_NULL;
        return;
    }
    int64_t days = cdc_days_from_civil(y, (unsigned)mo, (unsigned)d);
    v->v.ts.millis = days * 86400000LL + (h * 3600 + mi * 60 + s) * 1000 + micros / 1000;
    v->v.ts.nanos = (int32_t)(micros % 1000) * 1000;
}

/* The fraction of TIME2/DATETIME2/TIMESTAMP2 as microseconds (unsigned layout). */
static int64_t frac_micros(const uint8_t *p, int fsp)
{
    switch (frac_bytes(fsp)) {
    case 1:
        return (int64_t)p[0] * 10000;
    case 2:
        return (int64_t)be(p, 2) * 100;
    case 3:
        return (int64_t)be(p, 3);
    default:
        return 0;
    }
}

/* ---- NEWDECIMAL ----------------------------------------------------------------------------- */

static const int dig2bytes[10] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};

static int decimal_size(int p, int s)
{
    int intg = p - s;
    return intg / 9 * 4 + dig2bytes[intg % 9] + s / 9 * 4 + dig2bytes[s % 9];
}

/*
 * Decodes a packed decimal into its digit groups as text "-123.4500" (buf >= 100 bytes).
 * Returns the length, or -1 when a group holds more digits than it may.
 */
static int decimal_text(const uint8_t *src, int p, int s, char *out)
{
    uint8_t b[40];
    int size = decimal_size(p, s);
    memcpy(b, src, (size_t)size);
    uint8_t mask = (b[0] & 0x80) ? 0 : 0xff;
    b[0] ^= 0x80;
    int intg = p - s, pos = 0, n = 0;
    if (mask)
        out[n++] = '-';
    int start = n;
    static const uint64_t pow10[10] = {1,      10,      100,      1000,      10000,
                                       100000, 1000000, 10000000, 100000000, 1000000000};
    /* integer part: leftover digits, then groups of 9 */
    int lead = intg % 9;
    if (lead) {
        int nb = dig2bytes[lead];
        uint64_t g = be(b + pos, nb) ^ (mask ? (nb == 4 ? 0xffffffffu : (1u << (8 * nb)) - 1) : 0);
        pos += nb;
        if (g >= pow10[lead])
            return -1;
        n += snprintf(out + n, 16, "%llu", (unsigned long long)g);
    }
    for (int k = 0; k < intg / 9; k++) {
        uint64_t g = be(b + pos, 4) ^ (mask ? 0xffffffffu : 0);
        pos += 4;
        if (g >= pow10[9])
            return -1;
        n += snprintf(out + n, 16, n > start ? "%09llu" : "%llu", (unsigned long long)g);
    }
    if (n == start)
        out[n++] = '0';
    /* strip leading zeros of the integer part ("000123" from a leftover of 0 then a group) */
    int z = start;
    while (z < n - 1 && out[z] == '0')
        z++;
    if (z > start) {
        memmove(out + start, out + z, (size_t)(n - z));
        n -= z - start;
    }
    if (s) {
        out[n++] = '.';
        for (int k = 0; k < s / 9; k++) {
            uint64_t g = be(b + pos, 4) ^ (mask ? 0xffffffffu : 0);
            pos += 4;
            if (g >= pow10[9])
                return -1;
            n += snprintf(out + n, 16, "%09llu", (unsigned long long)g);
        }
        int tail = s % 9;
        if (tail) {
            int nb = dig2bytes[tail];
            uint64_t g =
                be(b + pos, nb) ^ (mask ? (nb == 4 ? 0xffffffffu : (1u << (8 * nb)) - 1) : 0);
            if (g >= pow10[tail])
                return -1;
            n += snprintf(out + n, 16, "%0*llu", tail, (unsigned long long)g);
        }
    }
    out[n] = 0;
    return n;
}

bool bl_decimal_valid(int p, int s)
{
    return p >= 1 && p <= 65 && s >= 0 && s <= 30 && s <= p;
}

int bl_decimal_text(const uint8_t *src, size_t avail, int p, int s, char *out)
{
    if (!bl_decimal_valid(p, s) || avail < (size_t)decimal_size(p, s))
        return -1;
    return decimal_text(src, p, s, out);
}

/* ---- strings -------------------------------------------------------------------------------- */

static long set_bytes(const uint8_t *p, size_t avail, int prefix, bool copy, cdc_arena_t *arena,
                      cdc_value_t *v, const char **why)
{
    if (avail < (size_t)prefix) {
        *why = "row ends inside a length";
        return -1;
    }
    uint64_t len = le(p, prefix);
    if (len > avail - (size_t)prefix) {
        *why = "length runs past the row";
        return -1;
    }
    const char *s = (const char *)p + prefix;
    v->v.s.ptr = copy ? cdc_arena_memdup(arena, s, len) : s;
    v->v.s.len = (uint32_t)len;
    return prefix + (long)len;
}

/* ENUM index or SET bitmask to label text in the arena (the number when labels are unknown). */
static void set_labels(const bl_col_t *col, uint64_t x, cdc_arena_t *arena, cdc_value_t *v)
{
    size_t cap = 24;
    if (col->labels)
        for (int i = 0; i < col->nlabels; i++)
            cap += strlen(col->labels[i]) + 1;
    char *buf = cdc_arena_alloc(arena, cap);
    size_t n = 0;
    if (!col->labels) {
        n = (size_t)snprintf(buf, cap, "%llu", (unsigned long long)x);
    } else if (col->type == MT_ENUM) {
        if (x >= 1 && x <= (uint64_t)col->nlabels) {
            n = strlen(col->labels[x - 1]);
            memcpy(buf, col->labels[x - 1], n);
        } /* 0 is the '' error value */
    } else {
        for (int i = 0; i < col->nlabels && i < 64; i++) {
            if (x >> i & 1) {
                if (n)
                    buf[n++] = ',';
                size_t l = strlen(col->labels[i]);
                memcpy(buf + n, col->labels[i], l);
                n += l;
            }
        }
    }
    v->v.s.ptr = buf;
    v->v.s.len = (uint32_t)n;
}

/* ---- the value ------------------------------------------------------------------------------ */

#define NEED(n)                                                                                    \
    do {                                                                                           \
        if (avail < (size_t)(n)) {                                                                 \
            *why = "row ends inside the value";                                                    \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

static long temporal(const bl_col_t *col, const uint8_t *p, size_t avail, cdc_value_t *v,
                     const char **why)
{
    int fsp = fsp_of(col), fb = frac_bytes(fsp);
    switch (col->type) {
    case MT_DATE: {
        NEED(3);
        uint32_t x = (uint32_t)le(p, 3);
        int64_t y = x >> 9, m = (x >> 5) & 15, d = x & 31;
        if (!valid_date(y, m, d))
            v->flags = CDC_V_NULL; /* 0000-00-00 and partial zero dates */
        else
            v->v.i = cdc_days_from_civil(y, (unsigned)m, (unsigned)d);
        return 3;
    }
    case MT_TIME2: {
        NEED(3 + fb);
        int64_t intpart = (int64_t)be(p, 3) - 0x800000, packed;
        if (fb == 3) {
            packed = (int64_t)be(p, 6) - 0x800000000000LL;
        } else {
            int64_t frac = fb == 1 ? p[3] : fb == 2 ? (int64_t)be(p + 3, 2) : 0;
            if (intpart < 0 && frac) {
                intpart++;
                frac -= fb == 1 ? 0x100 : 0x10000;
            }
            packed = intpart * (1 << 24) + frac * (fb == 1 ? 10000 : 100);
        }
        bool neg = packed < 0;
        uint64_t t = (uint64_t)(neg ? -packed : packed);
        uint64_t hms = t >> 24, micros = t & 0xffffff;
        int64_t nanos = ((int64_t)((hms >> 12) & 0x3ff) * 3600 + (int64_t)((hms >> 6) & 0x3f) * 60 +
                         (int64_t)(hms & 0x3f)) *
                            1000000000LL +
                        (int64_t)micros * 1000;
        v->v.i = neg ? -nanos : nanos;
        return 3 + fb;
    }
    case MT_DATETIME2: {
        NEED(5 + fb);
        int64_t x = (int64_t)be(p, 5) - 0x8000000000LL;
        int64_t ymd = x >> 17, hms = x % (1 << 17), ym = ymd >> 5;
        set_datetime(v, ym / 13, ym % 13, ymd % 32, hms >> 12, (hms >> 6) % 64, hms % 64,
                     frac_micros(p + 5, fsp));
        return 5 + fb;
    }
    case MT_TIMESTAMP2: {
        NEED(4 + fb);
        int64_t secs = (int64_t)be(p, 4);
        if (secs == 0 && frac_micros(p + 4, fsp) == 0) {
            v->flags = CDC_V_NULL; /* 0000-00-00 00:00:00 */
        } else {
            int64_t us = frac_micros(p + 4, fsp);
            v->v.ts.millis = secs * 1000 + us / 1000;
            v->v.ts.nanos = (int32_t)(us % 1000) * 1000;
        }
        return 4 + fb;
    }
    case MT_TIMESTAMP: {
        NEED(4);
        int64_t secs = (int64_t)le(p, 4);
        if (secs == 0)
            v->flags = CDC_V_NULL;
        v->v.ts.millis = secs * 1000;
        return 4;
    }
    case MT_DATETIME: {
        NEED(8);
        uint64_t x = le(p, 8);
        set_datetime(v, (int64_t)(x / 10000000000ULL), (int64_t)(x / 100000000 % 100),
                     (int64_t)(x / 1000000 % 100), (int64_t)(x / 10000 % 100),
                     (int64_t)(x / 100 % 100), (int64_t)(x % 100), 0);
        return 8;
    }
    case MT_TIME: {
        NEED(3);
        int64_t x = (int64_t)le(p, 3);
        if (x & 0x800000)
            x -= 0x1000000;
        int64_t a = x < 0 ? -x : x;
        int64_t nanos = ((a / 10000) * 3600 + (a / 100 % 100) * 60 + a % 100) * 1000000000LL;
        v->v.i = x < 0 ? -nanos : nanos;
        return 3;
    }
    default:
        *why = "not a temporal type";
        return -1;
    }
}

long bl_value(const bl_col_t *col, const uint8_t *p, size_t avail, bool copy, cdc_arena_t *arena,
              cdc_buf_t *scratch, cdc_value_t *v, const char **why)
{
    if (col->fast != BL_FAST_NONE && !(copy && col->fast >= BL_FAST_STR1))
        return bl_value_fast(col->fast, p, avail, v, why);
    v->flags = 0;
    switch (col->type) {
    case MT_LONGLONG: /* UNSIGNED; the others and the smaller integers are fast kinds */
        NEED(8);
        v->v.dec = (cdc_i128)le(p, 8);
        return 8;
    case MT_YEAR:
        NEED(1);
        v->v.i = p[0] ? p[0] + 1900 : 0;
        return 1;
    case MT_FLOAT: {
        NEED(4);
        uint32_t x = (uint32_t)le(p, 4);
        memcpy(&v->v.f, &x, 4);
        return 4;
    }
    case MT_DOUBLE: {
        NEED(8);
        uint64_t x = le(p, 8);
        memcpy(&v->v.d, &x, 8);
        return 8;
    }
    case MT_NEWDECIMAL: {
        int prec = dec_precision(col), sc = dec_scale(col);
        if (!bl_decimal_valid(prec, sc)) {
            *why = "impossible DECIMAL precision or scale";
            return -1;
        }
        int size = decimal_size(prec, sc);
        NEED(size);
        char text[128];
        int n = bl_decimal_text(p, avail, prec, sc, text);
        if (n < 0) {
            *why = "corrupt decimal digits";
            return -1;
        }
        if (col->out->root == CDC_T_DECIMAL) {
            if (cdc_decimal_parse(text, (size_t)n, col->out->precision, col->out->scale,
                                  &v->v.dec) < 0) {
                *why = "decimal out of range of the column type";
                return -1;
            }
        } else {
            v->v.s.ptr = cdc_arena_memdup(arena, text, (size_t)n);
            v->v.s.len = (uint32_t)n;
        }
        return size;
    }
    case MT_DATE:
    case MT_TIME2:
    case MT_DATETIME2:
    case MT_TIMESTAMP2:
    case MT_TIMESTAMP:
    case MT_DATETIME:
    case MT_TIME:
        return temporal(col, p, avail, v, why);
    case MT_BIT: {
        int nb = (col->meta >> 8) + ((col->meta & 0xff) ? 1 : 0);
        NEED(nb);
        if (col->out->root == CDC_T_BOOLEAN) {
            v->v.b = nb > 0 && (p[nb - 1] & 1);
        } else {
            v->v.s.ptr = copy ? cdc_arena_memdup(arena, p, (size_t)nb) : (const char *)p;
            v->v.s.len = (uint32_t)nb;
        }
        return nb;
    }
    case MT_ENUM:
    case MT_SET: {
        int nb = col->meta & 0xff;
        if (nb < 1 || nb > 8) {
            *why = "ENUM/SET pack length is not 1..8";
            return -1;
        }
        NEED(nb);
        set_labels(col, le(p, nb), arena, v);
        return nb;
    }
    case MT_STRING: {
        long n = set_bytes(p, avail, col->max_len > 255 ? 2 : 1, copy, arena, v, why);
        /* BINARY(N) loses its trailing 0x00 bytes in the binlog: pad them back */
        if (n >= 0 && col->out->root == CDC_T_BINARY && v->v.s.len < (uint32_t)col->out->length &&
            col->out->length <= 65535) {
            char *b = cdc_arena_calloc(arena, (size_t)col->out->length);
            memcpy(b, v->v.s.ptr, v->v.s.len);
            v->v.s.ptr = b;
            v->v.s.len = (uint32_t)col->out->length;
        }
        if (n >= 0 && is_latin1(col->charset))
            latin1_to_utf8(arena, v);
        return n;
    }
    case MT_VARCHAR:
    case MT_VAR_STRING: {
        long n = set_bytes(p, avail, col->max_len > 255 ? 2 : 1, copy, arena, v, why);
        if (n >= 0 && is_latin1(col->charset))
            latin1_to_utf8(arena, v);
        return n;
    }
    case MT_BLOB:
    case MT_GEOMETRY: {
        int prefix = col->meta;
        if (prefix < 1 || prefix > 4) {
            *why = "BLOB length size is not 1..4";
            return -1;
        }
        long n = set_bytes(p, avail, prefix, copy, arena, v, why);
        if (n >= 0 && is_latin1(col->charset))
            latin1_to_utf8(arena, v);
        return n;
    }
    case MT_JSON: {
        int prefix = col->meta;
        if (prefix < 1 || prefix > 4) {
            *why = "JSON length size is not 1..4";
            return -1;
        }
        cdc_value_t raw;
        long n = set_bytes(p, avail, prefix, false, arena, &raw, why);
        if (n < 0)
            return -1;
        cdc_buf_clear(scratch);
        int rc = raw.v.s.len
                     ? bl_json_to_text((const uint8_t *)raw.v.s.ptr, raw.v.s.len, scratch, why)
                     : (cdc_buf_puts(scratch, "null"), 0);
        if (rc < 0)
            return -1;
        v->v.s.ptr = cdc_arena_memdup(arena, scratch->data, scratch->len);
        v->v.s.len = (uint32_t)scratch->len;
        return n;
    }
    case MT_NULL:
        v->flags = CDC_V_NULL;
        return 0;
    default:
        *why = "unsupported column type";
        return -1;
    }
}
