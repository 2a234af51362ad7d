/*
 * dbz_convert.c — one Debezium JSON value to one value of the declared column
 * type, by the column's Debezium/Connect encoding (see dbz_int.h).
 *
 * With the Connect schema in the message, the logical name says what a JSON
 * number or string means (days, micros past midnight, base64 two's-complement
 * unscaled decimal, little-endian bits, ...). Without it the declared column
 * type decides, following the rules documented on the format's options:
 * numbers for DATE are days, numbers for TIME and TIMESTAMP are in the unit
 * of the declared precision (or timestamp.unit / time.unit), DECIMAL text is
 * decimal text unless decimal.handling says base64, BYTES text is in
 * binary.handling.mode's encoding. Anything else goes to the json format's
 * converter, so plain values behave exactly as in format 'json'. Values nested
 * in arrays and rows come here too (dbz_nest.c), with their schema node's
 * encoding.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dbz_int.h"

/* PostgreSQL 'infinity' / '-infinity' as Debezium sends TIMESTAMP values (PG JDBC sentinels). */
#define DBZ_PG_POS_INFINITY 9223372036825200000LL
#define DBZ_PG_NEG_INFINITY (-9223372036832400000LL)

#define MS_PER_DAY 86400000LL
#define NS_PER_DAY 86400000000000LL

/* ---- encodings ------------------------------------------------------------------------- */

static const struct {
    const char *name;
    dbz_enc_t enc;
} enc_names[] = {
    {"org.apache.kafka.connect.data.Decimal", DBZ_ENC_DECIMAL},
    {"io.debezium.data.VariableScaleDecimal", DBZ_ENC_VSDECIMAL},
    {"io.debezium.time.Date", DBZ_ENC_DATE},
    {"org.apache.kafka.connect.data.Date", DBZ_ENC_DATE},
    {"io.debezium.time.Time", DBZ_ENC_TIME_MS},
    {"org.apache.kafka.connect.data.Time", DBZ_ENC_TIME_MS},
    {"io.debezium.time.MicroTime", DBZ_ENC_TIME_US},
    {"io.debezium.time.NanoTime", DBZ_ENC_TIME_NS},
    {"io.debezium.time.Timestamp", DBZ_ENC_TS_MS},
    {"org.apache.kafka.connect.data.Timestamp", DBZ_ENC_TS_MS},
    {"io.debezium.time.MicroTimestamp", DBZ_ENC_TS_US},
    {"io.debezium.time.NanoTimestamp", DBZ_ENC_TS_NS},
    {"io.debezium.time.ZonedTimestamp", DBZ_ENC_ZONED_TS},
    {"io.debezium.time.ZonedTime", DBZ_ENC_ZONED_TIME},
    {"io.debezium.data.Bits", DBZ_ENC_BITS},
};

dbz_enc_t dbz_enc_classify(const char *type, size_t tlen, const char *name, size_t nlen)
{
    if (name) {
        for (size_t i = 0; i < sizeof(enc_names) / sizeof(enc_names[0]); i++)
            if (strlen(enc_names[i].name) == nlen && memcmp(enc_names[i].name, name, nlen) == 0)
                return enc_names[i].enc;
    }
    if (type && tlen == 5 && memcmp(type, "bytes", 5) == 0)
        return DBZ_ENC_NONE; /* base64 of raw bytes: as without a schema */
    return DBZ_ENC_PLAIN;
}

const char *dbz_enc_name(dbz_enc_t enc)
{
    for (size_t i = 0; i < sizeof(enc_names) / sizeof(enc_names[0]); i++)
        if (enc_names[i].enc == enc)
            return enc_names[i].name;
    return enc == DBZ_ENC_PLAIN ? "a plain Connect value" : "a value without schema";
}

/* ---- messages -------------------------------------------------------------------------- */

/* `expected DATE, found string "x"` */
static int mismatch(const dbz_conv_t *cx, const cdc_type_t *t, char kind, const char *s, size_t len)
{
    size_t pos = 0;
    cdc_json_bput(cx->err, cx->errlen, &pos, "expected ");
    cdc_json_type_text(t, cx->err, cx->errlen, &pos, false);
    cdc_json_bput(cx->err, cx->errlen, &pos, ", ");
    cdc_json_found_text(kind, s, len, cx->err, cx->errlen, &pos);
    return -1;
}

/* `expected io.debezium.time.Date as a number, found string "x"` */
static int enc_mismatch(const dbz_conv_t *cx, dbz_enc_t enc, const char *as, char kind,
                        const char *s, size_t len)
{
    size_t pos = 0;
    cdc_json_bput(cx->err, cx->errlen, &pos, "expected %s as %s, ", dbz_enc_name(enc), as);
    cdc_json_found_text(kind, s, len, cx->err, cx->errlen, &pos);
    return -1;
}

static int fail(const dbz_conv_t *cx, const char *fmt, ...) CDC_PRINTF(2, 3);
static int fail(const dbz_conv_t *cx, const char *fmt, ...)
{
    if (!cx->errlen)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cx->err, cx->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* `value 123.45 does not fit DECIMAL(4, 2)` */
static int does_not_fit(const dbz_conv_t *cx, const cdc_type_t *t, const char *text, size_t len)
{
    size_t pos = 0;
    cdc_json_bput(cx->err, cx->errlen, &pos, "value %.*s%s does not fit ",
                  (int)(len > 60 ? 60 : len), text, len > 60 ? "..." : "");
    cdc_json_type_text(t, cx->err, cx->errlen, &pos, false);
    return -1;
}

/* ---- the json format's conversion, with strings referenced in the message ---------------- */

static int json_scalar(const dbz_conv_t *cx, const cdc_type_t *t, char kind, const char *s,
                       size_t len, cdc_value_t *out)
{
    if (kind == 's' && (t->root == CDC_T_VARCHAR || t->root == CDC_T_CHAR) && len <= UINT32_MAX) {
        if (cx->in && (uintptr_t)s >= (uintptr_t)cx->in &&
            (uintptr_t)s + len <= (uintptr_t)cx->in + cx->inlen)
            out->v.s.ptr = s;
        else
            out->v.s.ptr = cdc_arena_memdup(cx->arena, s, len);
        out->v.s.len = (uint32_t)len;
        out->flags = 0;
        return 0;
    }
    return cdc_json_convert_scalar(t, kind, s, len, cx->iso8601, cx->arena, out, cx->err,
                                   cx->errlen);
}

/* ---- decimals -------------------------------------------------------------------------------- */

/* An unscaled integer and a scale: small in an i128, or big as decimal digits. */
typedef struct dec_s {
    bool small;
    cdc_i128 v;   /* small: |v| < 2^119, so arithmetic below cannot overflow */
    bool neg;     /* big */
    char *digits; /* big: magnitude, most significant first, no leading zeros */
    size_t nd;
    int32_t scale;
} dec_t;

static int dec_from_bytes(const dbz_conv_t *cx, const unsigned char *b, size_t n, int32_t scale,
                          dec_t *d)
{
    if (n == 0)
        return fail(cx, "empty decimal bytes");
    bool neg = (b[0] & 0x80) != 0;
    while (n > 1 && ((b[0] == 0x00 && !(b[1] & 0x80)) || (b[0] == 0xff && (b[1] & 0x80)))) {
        b++; /* sign extension */
        n--;
    }
    d->scale = scale;
    d->neg = neg;
    if (n <= 15) {
        cdc_i128 v = neg ? -1 : 0;
        for (size_t i = 0; i < n; i++)
            v = v * 256 + b[i];
        d->small = true;
        d->v = v;
        return 0;
    }
    if (n > DBZ_MAX_DECIMAL_BYTES)
        return fail(cx, "decimal of %zu bytes is larger than the %d bytes accepted", n,
                    DBZ_MAX_DECIMAL_BYTES);
    /* magnitude, then repeated division by 10^9 (n is bounded, so O(n^2) is fine) */
    unsigned char *mag = cdc_arena_alloc(cx->arena, n);
    memcpy(mag, b, n);
    if (neg) {
        unsigned carry = 1;
        for (size_t i = n; i-- > 0;) {
            unsigned v = (unsigned)(unsigned char)~mag[i] + carry;
            mag[i] = (unsigned char)v;
            carry = v >> 8;
        }
    }
    size_t nlimbs = 0;
    uint32_t *limbs = cdc_arena_alloc(cx->arena, (n * 241 / 100 / 9 + 2) * sizeof(uint32_t));
    size_t start = 0;
    while (start < n && mag[start] == 0)
        start++;
    while (start < n) {
        uint64_t rem = 0;
        for (size_t i = start; i < n; i++) {
            uint64_t cur = rem * 256 + mag[i];
            mag[i] = (unsigned char)(cur / 1000000000u);
            rem = cur % 1000000000u;
        }
        limbs[nlimbs++] = (uint32_t)rem;
        while (start < n && mag[start] == 0)
            start++;
    }
    d->digits = cdc_arena_alloc(cx->arena, nlimbs * 9 + 1);
    size_t nd = 0;
    for (size_t k = nlimbs; k-- > 0;) {
        char tmp[9];
        uint32_t v = limbs[k];
        for (int j = 8; j >= 0; j--) {
            tmp[j] = (char)('0' + v % 10);
            v /= 10;
        }
        int j = 0;
        if (k == nlimbs - 1)
            while (j < 8 && tmp[j] == '0')
                j++;
        memcpy(d->digits + nd, tmp + j, (size_t)(9 - j));
        nd += (size_t)(9 - j);
    }
    if (nd == 0)
        d->digits[nd++] = '0';
    d->nd = nd;
    d->small = false;
    return 0;
}

/* The magnitude digits of d (small ones written into tmp[48]). */
static const char *dec_digits(const dec_t *d, char *tmp, size_t *nd, bool *neg)
{
    if (!d->small) {
        *nd = d->nd;
        *neg = d->neg;
        return d->digits;
    }
    unsigned __int128 u =
        d->v < 0 ? (unsigned __int128)0 - (unsigned __int128)d->v : (unsigned __int128)d->v;
    char *w = tmp + 48;
    do {
        *--w = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    *nd = (size_t)(tmp + 48 - w);
    *neg = d->v < 0;
    return w;
}

/* Plain decimal text ("-12.345", "1200") in the arena. */
static const char *dec_text(const dbz_conv_t *cx, const dec_t *d, size_t *len)
{
    char tmp[48];
    size_t nd;
    bool neg;
    const char *dg = dec_digits(d, tmp, &nd, &neg);
    bool zero = nd == 1 && dg[0] == '0';
    long sc = d->scale;
    size_t cap = nd + (size_t)(sc < 0 ? -sc : sc) + 4;
    char *buf = cdc_arena_alloc(cx->arena, cap);
    char *w = buf;
    if (neg && !zero)
        *w++ = '-';
    if (sc <= 0) {
        memcpy(w, dg, nd);
        w += nd;
        if (!zero)
            for (long i = 0; i < -sc; i++)
                *w++ = '0';
    } else if ((size_t)sc >= nd) {
        *w++ = '0';
        *w++ = '.';
        for (size_t i = nd; i < (size_t)sc; i++)
            *w++ = '0';
        memcpy(w, dg, nd);
        w += nd;
    } else {
        memcpy(w, dg, nd - (size_t)sc);
        w += nd - (size_t)sc;
        *w++ = '.';
        memcpy(w, dg + nd - (size_t)sc, (size_t)sc);
        w += sc;
    }
    *w = '\0';
    *len = (size_t)(w - buf);
    return buf;
}

/* v * 10^(to - from), rounding HALF_UP when the scale shrinks. -1 when beyond 10^38. */
static int rescale(cdc_i128 v, long from, long to, cdc_i128 *out)
{
    if (to >= from) {
        long k = to - from;
        if (v == 0) {
            *out = 0;
            return 0;
        }
        if (k > 38)
            return -1;
        cdc_i128 p = cdc_pow10_i128((int)k);
        cdc_i128 lim = cdc_pow10_i128(38) / p;
        if (v > lim || v < -lim)
            return -1;
        *out = v * p;
        return 0;
    }
    long k = from - to;
    if (k > 38) { /* |v| < 2^119 < 10^36: rounds to zero */
        *out = 0;
        return 0;
    }
    cdc_i128 p = cdc_pow10_i128((int)k);
    cdc_i128 q = v / p, r = v % p;
    if ((r < 0 ? -r : r) * 2 >= p)
        q += v < 0 ? -1 : 1;
    *out = q;
    return 0;
}

/* Converts d into *out of type t. Returns 0, -1 (error set), or -2 when t takes no numbers. */
static int dec_to(const dbz_conv_t *cx, const cdc_type_t *t, const dec_t *d, cdc_value_t *out)
{
    size_t tl;
    const char *text;
    switch (t->root) {
    case CDC_T_DECIMAL: {
        cdc_i128 v;
        if (d->small) {
            if (rescale(d->v, d->scale, t->scale, &v) == 0) {
                cdc_i128 lim = cdc_pow10_i128(t->precision);
                if (v < lim && v > -lim) {
                    out->v.dec = v;
                    out->flags = 0;
                    return 0;
                }
            }
        } else {
            /* digits E -scale, rounded and checked by the core parser */
            char *sci = cdc_arena_alloc(cx->arena, d->nd + 24);
            int n = snprintf(sci, d->nd + 24, "%s%.*sE%ld", d->neg ? "-" : "", (int)d->nd,
                             d->digits, -(long)d->scale);
            if (cdc_decimal_parse(sci, (size_t)n, t->precision, t->scale, &v) == 0) {
                out->v.dec = v;
                out->flags = 0;
                return 0;
            }
        }
        text = dec_text(cx, d, &tl);
        return does_not_fit(cx, t, text, tl);
    }
    case CDC_T_FLOAT:
    case CDC_T_DOUBLE: {
        char tmp[48];
        size_t nd;
        bool neg;
        const char *dg = dec_digits(d, tmp, &nd, &neg);
        char *sci = cdc_arena_alloc(cx->arena, nd + 24);
        snprintf(sci, nd + 24, "%s%.*sE%ld", neg ? "-" : "", (int)nd, dg, -(long)d->scale);
        if (t->root == CDC_T_FLOAT)
            out->v.f = strtof(sci, NULL);
        else
            out->v.d = strtod(sci, NULL);
        out->flags = 0;
        return 0;
    }
    case CDC_T_TINYINT:
    case CDC_T_SMALLINT:
    case CDC_T_INT:
    case CDC_T_BIGINT: {
        text = dec_text(cx, d, &tl);
        const char *dot = memchr(text, '.', tl);
        size_t il = dot ? (size_t)(dot - text) : tl;
        for (size_t i = il + 1; dot && i < tl; i++)
            if (text[i] != '0')
                return fail(cx, "value %.*s%s has a fraction, expected %s",
                            (int)(tl > 60 ? 60 : tl), text, tl > 60 ? "..." : "",
                            cdc_type_root_name(t->root));
        int64_t v;
        if (cdc_text_parse_i64(text, il, &v) < 0 || !cdc_int_fits(t->root, v))
            return does_not_fit(cx, t, text, tl);
        out->v.i = v;
        out->flags = 0;
        return 0;
    }
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
        text = dec_text(cx, d, &tl);
        out->v.s.ptr = text;
        out->v.s.len = (uint32_t)tl;
        out->flags = 0;
        return 0;
    default:
        return -2;
    }
}

/* base64 -> dec (bytes on the stack when small). */
static int dec_from_base64(const dbz_conv_t *cx, const char *s, size_t len, int32_t scale, dec_t *d)
{
    unsigned char small[64];
    unsigned char *buf =
        len / 4 * 3 + 3 <= sizeof(small) ? small : cdc_arena_alloc(cx->arena, len / 4 * 3 + 3);
    long n = cdc_text_base64_decode(s, len, true, buf);
    if (n < 0)
        return -2;
    return dec_from_bytes(cx, buf, (size_t)n, scale, d);
}

static int decimal_value(const dbz_conv_t *cx, const cdc_type_t *t, dbz_enc_t enc, int32_t scale,
                         const char *s, size_t len, cdc_value_t *out)
{
    dec_t d;
    int rc = dec_from_base64(cx, s, len, scale, &d);
    if (rc == -2)
        return enc_mismatch(cx, enc, "base64 text", 's', s, len);
    if (rc < 0)
        return -1;
    rc = dec_to(cx, t, &d, out);
    if (rc == -2) {
        size_t pos = 0;
        cdc_json_bput(cx->err, cx->errlen, &pos, "expected ");
        cdc_json_type_text(t, cx->err, cx->errlen, &pos, false);
        cdc_json_bput(cx->err, cx->errlen, &pos, ", found %s \"%.*s%s\"", dbz_enc_name(enc),
                      (int)(len > 40 ? 40 : len), s, len > 40 ? "..." : "");
        return -1;
    }
    return rc;
}

int dbz_convert_vsd(const dbz_conv_t *cx, const cdc_type_t *t, int64_t scale, const char *b64,
                    size_t len, cdc_value_t *out)
{
    if (scale < -DBZ_MAX_SCALE || scale > DBZ_MAX_SCALE)
        return fail(cx, "%s scale %lld is out of range", dbz_enc_name(DBZ_ENC_VSDECIMAL),
                    (long long)scale);
    return decimal_value(cx, t, DBZ_ENC_VSDECIMAL, (int32_t)scale, b64, len, out);
}

/* ---- dates and times ------------------------------------------------------------------------- */

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

static int64_t floor_mod(int64_t a, int64_t b)
{
    return a - floor_div(a, b) * b;
}

static int64_t ipow10(int n)
{
    int64_t v = 1;
    while (n-- > 0)
        v *= 10;
    return v;
}

static void ts_truncate(cdc_ts_t *ts, int precision)
{
    if (precision >= 9)
        return;
    if (precision <= 3) {
        ts->nanos = 0;
        ts->millis -= floor_mod(ts->millis, ipow10(3 - precision));
    } else {
        ts->nanos -= (int32_t)(ts->nanos % ipow10(9 - precision));
    }
}

/* 9999-12-31T23:59:59.999999999 and 0000-01-01T00:00:00: the ends of TIMESTAMP's range. */
static cdc_ts_t ts_max(void)
{
    cdc_ts_t ts = {cdc_days_from_civil(9999, 12, 31) * MS_PER_DAY + MS_PER_DAY - 1, 999999};
    return ts;
}

static cdc_ts_t ts_min(void)
{
    cdc_ts_t ts = {cdc_days_from_civil(0, 1, 1) * MS_PER_DAY, 0};
    return ts;
}

/* unit: 0 millis, 1 micros, 2 nanos */
static cdc_ts_t ts_from_units(int64_t v, int unit)
{
    cdc_ts_t ts;
    if (v == DBZ_PG_POS_INFINITY)
        return ts_max();
    if (v == DBZ_PG_NEG_INFINITY)
        return ts_min();
    if (unit == 0) {
        ts.millis = v;
        ts.nanos = 0;
    } else if (unit == 1) {
        ts.millis = floor_div(v, 1000);
        ts.nanos = (int32_t)(floor_mod(v, 1000) * 1000);
    } else {
        ts.millis = floor_div(v, 1000000);
        ts.nanos = (int32_t)floor_mod(v, 1000000);
    }
    return ts;
}

/* A timestamp into TIMESTAMP, TIMESTAMP_LTZ (wall clock read as UTC), DATE or TIME. */
static int ts_to(const cdc_type_t *t, cdc_ts_t ts, cdc_value_t *out)
{
    switch (t->root) {
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ:
        ts_truncate(&ts, t->precision);
        out->v.ts = ts;
        break;
    case CDC_T_DATE:
        out->v.i = floor_div(ts.millis, MS_PER_DAY);
        break;
    case CDC_T_TIME: {
        int64_t nanos = floor_mod(ts.millis, MS_PER_DAY) * 1000000 + ts.nanos;
        out->v.i = nanos - nanos % ipow10(9 - (t->precision > 9 ? 9 : t->precision));
        break;
    }
    default:
        return -2;
    }
    out->flags = 0;
    return 0;
}

static int time_to(const dbz_conv_t *cx, const cdc_type_t *t, int64_t nanos, cdc_value_t *out)
{
    if (t->root != CDC_T_TIME)
        return -2;
    if (nanos < 0 || nanos >= NS_PER_DAY)
        return fail(cx,
                    "time of day %lld ns is outside 00:00:00..23:59:59.999999999 (a MySQL "
                    "TIME beyond one day or negative cannot be a TIME; declare the column "
                    "BIGINT to keep the raw value)",
                    (long long)nanos);
    out->v.i = nanos - nanos % ipow10(9 - (t->precision > 9 ? 9 : t->precision));
    out->flags = 0;
    return 0;
}

/* "08:13:16.945104Z" / "08:13:16+02:00" -> nanos of day in UTC */
static int parse_zoned_time(const char *s, size_t len, int64_t *nanos)
{
    size_t n = len;
    int64_t off = 0;
    if (n && (s[n - 1] == 'Z' || s[n - 1] == 'z')) {
        n--;
    } else if (n > 6 && (s[n - 6] == '+' || s[n - 6] == '-') && s[n - 3] == ':') {
        int64_t oh, om;
        if (cdc_text_parse_i64(s + n - 5, 2, &oh) < 0 ||
            cdc_text_parse_i64(s + n - 2, 2, &om) < 0 || oh > 18 || om > 59)
            return -1;
        off = (oh * 3600 + om * 60) * 1000000000LL * (s[n - 6] == '-' ? -1 : 1);
        n -= 6;
    }
    int64_t v;
    if (cdc_time_parse(s, n, 9, &v) < 0)
        return -1;
    *nanos = floor_mod(v - off, NS_PER_DAY);
    return 0;
}

/* ---- without a schema: the declared type drives ---------------------------------------------- */

static const char *const unit_names[] = {"milliseconds", "microseconds", "nanoseconds"};

/* The unit of a temporal number without the schema: 0 millis, 1 micros, 2 nanos
   (ts_from_units's units), from the option or, by default, the declared precision as
   Debezium chooses Timestamp/MicroTimestamp/NanoTimestamp (and Time/MicroTime/NanoTime). */
static int temporal_unit(uint8_t option, int precision)
{
    if (option != DBZ_UNIT_PRECISION)
        return option - DBZ_UNIT_MILLIS;
    return precision <= 3 ? 0 : precision <= 6 ? 1 : 2;
}

/* What to do when a temporal number does not fit: the two ways to say its unit. */
static const char *unit_hint(uint8_t option)
{
    return option == DBZ_UNIT_PRECISION
               ? " (the unit follows the declared precision, as Debezium encodes it: declare the "
                 "source column's precision, set the unit with 'debezium-json.timestamp.unit' / "
                 "'debezium-json.time.unit', or set 'debezium-json.schema-include'='true')"
               : " (the unit set by 'debezium-json.timestamp.unit' / 'debezium-json.time.unit'; "
                 "'debezium-json.schema-include'='true' lets the schema say it)";
}

static int plain(const dbz_conv_t *cx, const cdc_type_t *t, dbz_enc_t enc, char kind, const char *s,
                 size_t len, cdc_value_t *out)
{
    int64_t v;
    switch (t->root) {
    case CDC_T_BOOLEAN:
        if (kind == '#') { /* MySQL BOOLEAN is TINYINT(1): 0 or 1 */
            if (len == 1 && (s[0] == '0' || s[0] == '1')) {
                out->v.b = s[0] == '1';
                out->flags = 0;
                return 0;
            }
            return mismatch(cx, t, kind, s, len);
        }
        break;
    case CDC_T_DATE:
        if (kind == '#') {
            if (cdc_text_parse_i64(s, len, &v) < 0 || v < INT32_MIN || v > INT32_MAX)
                return fail(cx,
                            "expected DATE as a number of days since 1970-01-01, found "
                            "number %.*s",
                            (int)(len > 40 ? 40 : len), s);
            out->v.i = v;
            out->flags = 0;
            return 0;
        }
        break;
    case CDC_T_TIME:
        if (kind == '#') {
            int unit = temporal_unit(cx->time_unit, t->precision);
            int64_t per_day = MS_PER_DAY * (unit == 0 ? 1 : unit == 1 ? 1000 : 1000000);
            if (cdc_text_parse_i64(s, len, &v) < 0 || v < 0 || v >= per_day) {
                if (unit == 0)
                    return fail(cx,
                                "expected TIME(%d) as milliseconds past midnight (0..86399999), "
                                "found number %.*s; Debezium's MicroTime/NanoTime values need "
                                "the schema: set 'debezium-json.schema-include'='true'",
                                (int)t->precision, (int)(len > 40 ? 40 : len), s);
                return fail(cx,
                            "expected TIME(%d) as %s past midnight (0..%lld), found number "
                            "%.*s%s",
                            (int)t->precision, unit_names[unit], (long long)(per_day - 1),
                            (int)(len > 40 ? 40 : len), s, unit_hint(cx->time_unit));
            }
            return time_to(cx, t, v * (unit == 0 ? 1000000 : unit == 1 ? 1000 : 1), out);
        }
        if (kind == 's') {
            int64_t nanos;
            if (parse_zoned_time(s, len, &nanos) == 0)
                return time_to(cx, t, nanos, out);
            size_t pos = 0;
            cdc_json_bput(
                cx->err, cx->errlen, &pos,
                "expected TIME(%d) as text \"HH:mm:ss[.fffffffff][Z|+hh:mm]\" or milliseconds "
                "past midnight, ",
                (int)t->precision);
            cdc_json_found_text(kind, s, len, cx->err, cx->errlen, &pos);
            return -1;
        }
        break;
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ:
        if (kind == '#') {
            /* the unit comes from the declared precision (or the option), never from the
               number's size: epoch millis, micros or nanos of years 0000..9999 */
            int unit = temporal_unit(cx->ts_unit, t->precision);
            static const int64_t lo_ms = -62167219200000LL, hi_ms = 253402300799999LL;
            bool ok = cdc_text_parse_i64(s, len, &v) == 0;
            if (ok && v != DBZ_PG_POS_INFINITY && v != DBZ_PG_NEG_INFINITY && unit < 2) {
                int64_t k = unit == 0 ? 1 : 1000; /* nanos: every int64 is in 1677..2262 */
                ok = v >= lo_ms * k && v <= hi_ms * k + (k - 1);
            }
            if (!ok)
                return fail(cx,
                            "expected %s(%d) as epoch %s (years 0000..9999), found number "
                            "%.*s%s",
                            cdc_type_root_name(t->root), (int)t->precision, unit_names[unit],
                            (int)(len > 40 ? 40 : len), s, unit_hint(cx->ts_unit));
            return ts_to(t, ts_from_units(v, unit), out);
        }
        if (kind == 's') {
            cdc_ts_t ts;
            bool zoned;
            if (cdc_timestamp_parse(s, len, t->precision, true, &ts, &zoned) == 0) {
                out->v.ts = ts;
                out->flags = 0;
                return 0;
            }
            size_t pos = 0;
            cdc_json_bput(
                cx->err, cx->errlen, &pos,
                "expected %s(%d) as text \"yyyy-MM-dd[ T]HH:mm:ss[.fffffffff][Z|+hh:mm]\" or "
                "epoch milliseconds, ",
                cdc_type_root_name(t->root), (int)t->precision);
            cdc_json_found_text(kind, s, len, cx->err, cx->errlen, &pos);
            return -1;
        }
        break;
    case CDC_T_DECIMAL:
        if (kind == 's' && enc == DBZ_ENC_NONE && cx->precise_base64) {
            dec_t d;
            int rc = dec_from_base64(cx, s, len, t->scale, &d);
            if (rc == -2)
                return fail(cx,
                            "expected DECIMAL(%d, %d) as base64 two's-complement bytes "
                            "('decimal.handling'='precise-base64'), found string \"%.*s%s\"",
                            (int)t->precision, (int)t->scale, (int)(len > 40 ? 40 : len), s,
                            len > 40 ? "..." : "");
            if (rc < 0)
                return -1;
            return dec_to(cx, t, &d, out);
        }
        if (kind == 's' && cdc_json_convert_scalar(t, kind, s, len, cx->iso8601, cx->arena, out,
                                                   cx->err, cx->errlen) < 0) {
            if (cdc_text_looks_base64(s, len) && enc == DBZ_ENC_NONE)
                return fail(
                    cx,
                    "expected DECIMAL(%d, %d) as decimal text, found string \"%.*s%s\", which "
                    "looks like Debezium's precise (base64) decimal encoding; without the "
                    "schema its scale is unknown. Set decimal.handling.mode=string or double "
                    "in the Debezium connector, or 'debezium-json.schema-include'='true' "
                    "(with value.converter.schemas.enable=true), or "
                    "'debezium-json.decimal.handling'='precise-base64' to decode it with the "
                    "column's scale",
                    (int)t->precision, (int)t->scale, (int)(len > 40 ? 40 : len), s,
                    len > 40 ? "..." : "");
            return -1;
        }
        if (kind == 's')
            return 0;
        break;
    default:
        break;
    }
    return json_scalar(cx, t, kind, s, len, out);
}

/* ---- binary.handling.mode -------------------------------------------------------------------- */

static const char *const bin_mode_names[] = {"base64", "base64-url-safe", "hex"};

/* BYTES sent as text in the chosen encoding (hex, or base64 of either alphabet). */
static int bin_text(const dbz_conv_t *cx, const cdc_type_t *t, const char *s, size_t len,
                    cdc_value_t *out)
{
    unsigned char *buf = cdc_arena_alloc(cx->arena, len / 4 * 3 + 3 + len / 2);
    long n = -1;
    if (cx->bin_mode == DBZ_BIN_HEX) {
        if (len % 2 == 0) {
            n = (long)(len / 2);
            for (size_t i = 0; i < len / 2 && n >= 0; i++) {
                int hi = cdc_hex_digit(s[2 * i]), lo = cdc_hex_digit(s[2 * i + 1]);
                if (hi < 0 || lo < 0)
                    n = -1;
                else
                    buf[i] = (unsigned char)(hi * 16 + lo);
            }
        }
    } else {
        n = cdc_text_base64_decode(s, len, true, buf);
    }
    if (n < 0) {
        size_t pos = 0;
        cdc_json_bput(cx->err, cx->errlen, &pos, "expected %s as %s text, ",
                      cdc_type_root_name(t->root),
                      cx->bin_mode == DBZ_BIN_HEX ? "hex" : "URL-safe base64");
        cdc_json_found_text('s', s, len, cx->err, cx->errlen, &pos);
        cdc_json_bput(cx->err, cx->errlen, &pos,
                      " ('debezium-json.binary.handling.mode' = '%s': set it as the connector's "
                      "binary.handling.mode)",
                      bin_mode_names[cx->bin_mode]);
        return -1;
    }
    out->v.s.ptr = (const char *)buf;
    out->v.s.len = (uint32_t)n;
    out->flags = 0;
    return 0;
}

/* ---- entry ----------------------------------------------------------------------------------- */

int dbz_convert(const dbz_conv_t *cx, const cdc_type_t *t, dbz_colenc_t ce, char kind,
                const char *s, size_t len, cdc_value_t *out)
{
    dbz_enc_t enc = (dbz_enc_t)ce.enc;
    if (cx->errlen)
        cx->err[0] = '\0';
    /* text BYTES in the connector's binary.handling.mode, unless the schema says "bytes" */
    if (kind == 's' && cx->bin_mode != DBZ_BIN_BASE64 && !ce.bytes &&
        (t->root == CDC_T_BINARY || t->root == CDC_T_VARBINARY))
        return bin_text(cx, t, s, len, out);
    if (kind == 'n' || enc <= DBZ_ENC_PLAIN)
        return plain(cx, t, enc, kind, s, len, out);
    int64_t v;
    int rc = -2;
    switch (enc) {
    case DBZ_ENC_DECIMAL:
        if (kind == '#') /* JsonConverter decimal.format=NUMERIC */
            return plain(cx, t, DBZ_ENC_PLAIN, kind, s, len, out);
        if (kind != 's')
            return enc_mismatch(cx, enc, "base64 text", kind, s, len);
        if (t->root == CDC_T_BINARY || t->root == CDC_T_VARBINARY)
            break;
        return decimal_value(cx, t, enc, ce.scale, s, len, out);
    case DBZ_ENC_DATE:
        if (kind != '#' || cdc_text_parse_i64(s, len, &v) < 0 || v < INT32_MIN || v > INT32_MAX)
            return enc_mismatch(cx, enc, "a number of days", kind, s, len);
        if (t->root == CDC_T_DATE) {
            out->v.i = v;
            out->flags = 0;
            return 0;
        }
        if (t->root == CDC_T_TIMESTAMP || t->root == CDC_T_TIMESTAMP_LTZ) {
            cdc_ts_t ts = {v * MS_PER_DAY, 0};
            return ts_to(t, ts, out);
        }
        break;
    case DBZ_ENC_TIME_MS:
    case DBZ_ENC_TIME_US:
    case DBZ_ENC_TIME_NS: {
        static const int64_t per_day[] = {MS_PER_DAY, MS_PER_DAY * 1000, NS_PER_DAY};
        static const int64_t to_ns[] = {1000000, 1000, 1};
        int unit = enc - DBZ_ENC_TIME_MS;
        if (kind != '#' || cdc_text_parse_i64(s, len, &v) < 0)
            return enc_mismatch(cx, enc, "an integer", kind, s, len);
        if (t->root != CDC_T_TIME)
            break;
        if (v < 0 || v >= per_day[unit])
            return fail(cx,
                        "%s value %lld is outside 00:00:00..23:59:59.999999999 (a MySQL TIME "
                        "beyond one day or negative cannot be a TIME; declare the column "
                        "BIGINT to keep the raw value)",
                        dbz_enc_name(enc), (long long)v);
        return time_to(cx, t, v * to_ns[unit], out);
    }
    case DBZ_ENC_TS_MS:
    case DBZ_ENC_TS_US:
    case DBZ_ENC_TS_NS:
        if (kind != '#' || cdc_text_parse_i64(s, len, &v) < 0)
            return enc_mismatch(cx, enc, "an integer", kind, s, len);
        rc = ts_to(t, ts_from_units(v, enc - DBZ_ENC_TS_MS), out);
        break;
    case DBZ_ENC_ZONED_TS:
        if (kind != 's')
            return enc_mismatch(cx, enc, "ISO-8601 text", kind, s, len);
        if (t->root == CDC_T_TIMESTAMP || t->root == CDC_T_TIMESTAMP_LTZ || t->root == CDC_T_DATE ||
            t->root == CDC_T_TIME) {
            cdc_ts_t ts;
            bool zoned;
            if (cdc_timestamp_parse(s, len, 9, true, &ts, &zoned) < 0)
                return enc_mismatch(cx, enc, "ISO-8601 text", kind, s, len);
            rc = ts_to(t, ts, out);
        }
        break;
    case DBZ_ENC_ZONED_TIME:
        if (kind != 's')
            return enc_mismatch(cx, enc, "ISO-8601 text", kind, s, len);
        if (t->root == CDC_T_TIME) {
            int64_t nanos;
            if (parse_zoned_time(s, len, &nanos) < 0)
                return enc_mismatch(cx, enc, "ISO-8601 text", kind, s, len);
            return time_to(cx, t, nanos, out);
        }
        break;
    case DBZ_ENC_BITS:
        if (kind != 's')
            return enc_mismatch(cx, enc, "base64 text", kind, s, len);
        if (cdc_type_is_integer(t)) {
            unsigned char small[64];
            unsigned char *buf = len / 4 * 3 + 3 <= sizeof(small)
                                     ? small
                                     : cdc_arena_alloc(cx->arena, len / 4 * 3 + 3);
            long n = cdc_text_base64_decode(s, len, true, buf);
            if (n < 0)
                return enc_mismatch(cx, enc, "base64 text", kind, s, len);
            uint64_t u = 0;
            for (long i = 0; i < n; i++) { /* little-endian */
                if (i >= 8) {
                    if (buf[i])
                        return fail(cx, "%s value of %ld bytes does not fit %s", dbz_enc_name(enc),
                                    n, cdc_type_root_name(t->root));
                    continue;
                }
                u |= (uint64_t)buf[i] << (8 * i);
            }
            static const uint64_t hi[] = {INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX};
            if (u > hi[t->root - CDC_T_TINYINT])
                return fail(cx, "%s value %llu does not fit %s", dbz_enc_name(enc),
                            (unsigned long long)u, cdc_type_root_name(t->root));
            out->v.i = (int64_t)u;
            out->flags = 0;
            return 0;
        }
        break;
    default:
        break;
    }
    if (rc != -2)
        return rc;
    /* the target does not take this encoding's meaning: use the value as sent */
    return plain(cx, t, DBZ_ENC_PLAIN, kind, s, len, out);
}
