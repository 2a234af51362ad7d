/*
 * cdc_row.c — rows, batches, changelog modes, decimals, dates/times, and the
 * print format.
 */
#include "cdc_row.h"
#include "cdc_value_text.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cdc_kind_short(cdc_kind_t kind)
{
    static const char *const names[] = {"+I", "-U", "+U", "-D"};
    return (unsigned)kind < 4 ? names[kind] : "??";
}

const char *cdc_changelog_mode_str(cdc_changelog_mode_t mode, char buf[16])
{
    static const char *const names[] = {"I", "UB", "UA", "D"};
    char *w = buf;
    *w++ = '[';
    for (int k = 0; k < 4; k++) {
        if (!(mode & CDC_MODE_BIT(k)))
            continue;
        if (w > buf + 1)
            *w++ = ',';
        size_t n = strlen(names[k]);
        memcpy(w, names[k], n);
        w += n;
    }
    *w++ = ']';
    *w = '\0';
    return buf;
}

/* ---- batches ------------------------------------------------------------ */

void cdc_batch_init(cdc_batch_t *batch)
{
    memset(batch, 0, sizeof(*batch));
    cdc_arena_init(&batch->arena);
}

void cdc_batch_grow(cdc_batch_t *batch)
{
    batch->cap = batch->cap ? batch->cap * 2 : 256;
    batch->rows = cdc_xrealloc(batch->rows, sizeof(*batch->rows) * batch->cap);
}

void cdc_batch_truncate(cdc_batch_t *batch, uint32_t n)
{
    batch->n = n < batch->n ? batch->n - n : 0;
}

void cdc_batch_reset(cdc_batch_t *batch)
{
    batch->n = 0;
    cdc_arena_reset(&batch->arena);
}

void cdc_batch_free(cdc_batch_t *batch)
{
    free(batch->rows);
    cdc_arena_free(&batch->arena);
    memset(batch, 0, sizeof(*batch));
}

cdc_row_t *cdc_row_new_in(cdc_arena_t *arena, uint32_t arity)
{
    cdc_row_t *row = cdc_arena_alloc(arena, sizeof(*row));
    row->kind = CDC_INSERT;
    row->arity = arity;
    row->origin = NULL;
    row->values = cdc_arena_alloc(arena, sizeof(cdc_value_t) * (arity ? arity : 1));
    for (uint32_t i = 0; i < arity; i++)
        row->values[i].flags = CDC_V_NULL;
    return row;
}

/* ---- digits ------------------------------------------------------------- */

/* Digits are written without printf (the print path is hot in `decode`): the count from the
   bit length, then two digits per division by 100, straight into reserved buffer space. */
static const char digit_pairs[201] = "000102030405060708091011121314151617181920212223242526272829"
                                     "303132333435363738394041424344454647484950515253545556575859"
                                     "606162636465666768697071727374757677787980818283848586878889"
                                     "90919293949596979899";

static const uint64_t pow10_u64[20] = {1ULL,
                                       10ULL,
                                       100ULL,
                                       1000ULL,
                                       10000ULL,
                                       100000ULL,
                                       1000000ULL,
                                       10000000ULL,
                                       100000000ULL,
                                       1000000000ULL,
                                       10000000000ULL,
                                       100000000000ULL,
                                       1000000000000ULL,
                                       10000000000000ULL,
                                       100000000000000ULL,
                                       1000000000000000ULL,
                                       10000000000000000ULL,
                                       100000000000000000ULL,
                                       1000000000000000000ULL,
                                       10000000000000000000ULL};

/* Decimal digits of u (0 has 1). */
static inline int u64_digits(uint64_t u)
{
    /* bits * log10(2) is the count or one less (u | 1 has as many digits as u) */
    int t = ((64 - __builtin_clzll(u | 1)) * 1233) >> 12;
    return t + ((u | 1) >= pow10_u64[t]);
}

static inline void put2(char *p, uint32_t v) /* v < 100 */
{
    memcpy(p, digit_pairs + 2 * v, 2);
}

static inline void put4(char *p, uint32_t v) /* v < 10^4 */
{
    put2(p, v / 100);
    put2(p + 2, v % 100);
}

static inline void put8(char *p, uint32_t v) /* v < 10^8: two independent halves */
{
    put4(p, v / 10000);
    put4(p + 4, v % 10000);
}

/* 1 to 4 digits of v < 10^4 */
static inline char *put_upto4(char *w, uint32_t v)
{
    if (v < 10) {
        *w = (char)('0' + v);
        return w + 1;
    }
    if (v < 100) {
        put2(w, v);
        return w + 2;
    }
    if (v < 1000) {
        *w = (char)('0' + v / 100);
        put2(w + 1, v % 100);
        return w + 3;
    }
    put4(w, v);
    return w + 4;
}

/* The digits of u at w (at most 20); returns the end. Branches on the magnitude, then the
   groups of 4 and 8 digits are independent divisions. Always inlined, as put_scalar_at: as
   calls they cost the `decode` bench about a tenth of its time. */
static inline __attribute__((always_inline)) char *put_uint(char *w, uint64_t u)
{
    if (u < 10000)
        return put_upto4(w, (uint32_t)u);
    if (u < 100000000) {
        w = put_upto4(w, (uint32_t)u / 10000);
        put4(w, (uint32_t)u % 10000);
        return w + 4;
    }
    if (u < 10000000000000000ULL) {
        uint64_t hi = u / 100000000;
        if (hi < 10000) {
            w = put_upto4(w, (uint32_t)hi);
        } else {
            w = put_upto4(w, (uint32_t)hi / 10000);
            put4(w, (uint32_t)hi % 10000);
            w += 4;
        }
        put8(w, (uint32_t)(u % 100000000));
        return w + 8;
    }
    uint64_t lo = u % 10000000000000000ULL;
    w = put_upto4(w, (uint32_t)(u / 10000000000000000ULL)); /* < 1845 */
    put8(w, (uint32_t)(lo / 100000000));
    put8(w + 8, (uint32_t)(lo % 100000000));
    return w + 16;
}

/* Writes u at w zero-padded to width digits (all its digits when it has more); returns the
   end. At most max(width, 20) bytes. */
static inline char *put_u64_at(char *w, uint64_t u, int width)
{
    if (width == 2 && u < 100) { /* the fields of dates and times */
        put2(w, (uint32_t)u);
        return w + 2;
    }
    int n = u64_digits(u);
    if (n < width) {
        memset(w, '0', (size_t)(width - n));
        w += width - n;
    }
    return put_uint(w, u);
}

/* The digits of v, after '-' when negative; returns the end. At most 20 bytes. */
static inline char *put_int_at(char *w, int64_t v)
{
    uint64_t u = (uint64_t)v;
    if (v < 0) {
        *w++ = '-';
        u = (uint64_t)0 - u;
    }
    return put_uint(w, u);
}

/* ---- decimals ----------------------------------------------------------- */

cdc_i128 cdc_pow10_i128(int n)
{
    if (n <= 0)
        return 1;
    if (n <= 19)
        return (cdc_i128)pow10_u64[n];
    return (cdc_i128)pow10_u64[19] * (cdc_i128)pow10_u64[n - 19];
}

int cdc_i128_digits(cdc_i128 v)
{
    unsigned __int128 u = v < 0 ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
    int d = 1;
    while (u >= 10) {
        u /= 10;
        d++;
    }
    return d;
}

int cdc_decimal_format(cdc_i128 unscaled, int scale, char *buf)
{
    bool neg = unscaled < 0;
    unsigned __int128 u =
        neg ? (unsigned __int128)(-(unscaled + 1)) + 1 : (unsigned __int128)unscaled;
    /* the digits of |unscaled|, in 64-bit arithmetic: at most one 128-bit division */
    char digits[48];
    char *e;
    if (u >> 64) {
        const uint64_t e19 = 10000000000000000000ULL;
        e = put_u64_at(digits, (uint64_t)(u / e19), 1);
        e = put_u64_at(e, (uint64_t)(u % e19), 19);
    } else {
        e = put_u64_at(digits, (uint64_t)u, 1);
    }
    int nd = (int)(e - digits);
    char *w = buf;
    if (neg)
        *w++ = '-';
    if (scale <= 0) {
        memcpy(w, digits, (size_t)nd);
        w += nd;
    } else if (nd > scale) {
        memcpy(w, digits, (size_t)(nd - scale));
        w += nd - scale;
        *w++ = '.';
        memcpy(w, digits + nd - scale, (size_t)scale);
        w += scale;
    } else {
        *w++ = '0';
        *w++ = '.';
        memset(w, '0', (size_t)(scale - nd));
        w += scale - nd;
        memcpy(w, digits, (size_t)nd);
        w += nd;
    }
    *w = '\0';
    return (int)(w - buf);
}

int cdc_decimal_parse(const char *s, size_t len, int precision, int scale, cdc_i128 *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    /* significant digits (leading zeros dropped) and exponent: value = D * 10^exp10 */
    char dig[96];
    int nd = 0;
    long exp10 = 0;
    bool any = false, dot = false;
    for (; i < len; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            any = true;
            if (nd == 0 && c == '0') {
                if (dot)
                    exp10--;
                continue;
            }
            if (nd < (int)sizeof(dig)) {
                dig[nd++] = c;
                if (dot)
                    exp10--;
            } else if (!dot) {
                exp10++; /* digits past our buffer only matter for magnitude */
            }
        } else if (c == '.' && !dot) {
            dot = true;
        } else {
            break;
        }
    }
    if (!any)
        return -1;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        if (i >= len || !isdigit((unsigned char)s[i]))
            return -1;
        long e = 0;
        for (; i < len && isdigit((unsigned char)s[i]); i++)
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
        exp10 += eneg ? -e : e;
    }
    if (i != len)
        return -1;
    long shift = exp10 + scale; /* unscaled = D * 10^shift */
    int keep = nd;
    int round_digit = 0;
    if (shift < 0) {
        long drop = -shift;
        if (drop > nd) {
            keep = 0;
        } else {
            keep = nd - (int)drop;
            round_digit = dig[keep] - '0';
        }
        shift = 0;
    }
    cdc_i128 limit = cdc_pow10_i128(precision);
    /* v * 10 + digit stays below limit iff v < q, or v == q and digit <= r */
    cdc_i128 q = (limit - 1) / 10;
    int r = (int)((limit - 1) % 10);
    cdc_i128 v = 0;
    int k = 0;
    if (keep <= 18) { /* (most values: 64-bit arithmetic, checked against limit below) */
        uint64_t u = 0;
        for (; k < keep; k++)
            u = u * 10 + (uint64_t)(dig[k] - '0');
        v = (cdc_i128)u;
    }
    for (; k < keep; k++) {
        int digit = dig[k] - '0';
        if (v > q || (v == q && digit > r))
            return -1;
        v = v * 10 + digit;
    }
    if (v >= limit)
        return -1;
    for (long j = 0; j < shift && v != 0; j++) {
        if (v > q)
            return -1;
        v *= 10;
    }
    if (round_digit >= 5) /* HALF_UP, as Java's BigDecimal.setScale */
        v += 1;
    if (v >= limit)
        return -1;
    *out = neg ? -v : v;
    return 0;
}

/* ---- dates and times ------------------------------------------------------ */

int64_t cdc_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

void cdc_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = (unsigned)(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int64_t yy = (int64_t)yoe + era * 400;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = yy + (*m <= 2);
}

static int read_digits(const char *s, size_t len, size_t *i, int n, int *out)
{
    int v = 0;
    for (int k = 0; k < n; k++) {
        if (*i >= len || !isdigit((unsigned char)s[*i]))
            return -1;
        v = v * 10 + (s[(*i)++] - '0');
    }
    *out = v;
    return 0;
}

static bool leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int parse_date_at(const char *s, size_t len, size_t *i, int32_t *days)
{
    int y, m, d;
    bool neg = false;
    if (*i < len && s[*i] == '-') {
        neg = true;
        (*i)++;
    }
    if (read_digits(s, len, i, 4, &y) < 0)
        return -1;
    if (*i >= len || s[*i] != '-')
        return -1;
    (*i)++;
    size_t st = *i;
    if (read_digits(s, len, i, 2, &m) < 0) {
        *i = st;
        if (read_digits(s, len, i, 1, &m) < 0)
            return -1;
    }
    if (*i >= len || s[*i] != '-')
        return -1;
    (*i)++;
    st = *i;
    if (read_digits(s, len, i, 2, &d) < 0) {
        *i = st;
        if (read_digits(s, len, i, 1, &d) < 0)
            return -1;
    }
    int64_t yy = neg ? -y : y;
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1)
        return -1;
    if (d > mdays[m - 1] + (m == 2 && leap(yy)))
        return -1;
    *days = (int32_t)cdc_days_from_civil(yy, (unsigned)m, (unsigned)d);
    return 0;
}

int cdc_date_parse(const char *s, size_t len, int32_t *days)
{
    size_t i = 0;
    if (parse_date_at(s, len, &i, days) < 0 || i != len)
        return -1;
    return 0;
}

static int parse_time_at(const char *s, size_t len, size_t *i, int precision, int64_t *nanos)
{
    int h, mi, sec = 0;
    if (read_digits(s, len, i, 2, &h) < 0 || *i >= len || s[*i] != ':')
        return -1;
    (*i)++;
    if (read_digits(s, len, i, 2, &mi) < 0)
        return -1;
    int64_t frac = 0;
    if (*i < len && s[*i] == ':') {
        (*i)++;
        if (read_digits(s, len, i, 2, &sec) < 0)
            return -1;
        if (*i < len && s[*i] == '.') {
            (*i)++;
            int nd = 0;
            while (*i < len && isdigit((unsigned char)s[*i])) {
                if (nd < 9) {
                    frac = frac * 10 + (s[*i] - '0');
                    nd++;
                }
                (*i)++;
            }
            if (nd == 0)
                return -1;
            for (; nd < 9; nd++)
                frac *= 10;
        }
    }
    if (h > 23 || mi > 59 || sec > 59)
        return -1;
    int64_t unit = 1;
    for (int k = precision; k < 9; k++)
        unit *= 10;
    frac -= frac % unit;
    *nanos = ((int64_t)h * 3600 + mi * 60 + sec) * 1000000000LL + frac;
    return 0;
}

int cdc_time_parse(const char *s, size_t len, int precision, int64_t *nanos)
{
    size_t i = 0;
    if (parse_time_at(s, len, &i, precision, nanos) < 0 || i != len)
        return -1;
    return 0;
}

int cdc_timestamp_parse(const char *s, size_t len, int precision, bool allow_zone, cdc_ts_t *out,
                        bool *had_zone)
{
    size_t i = 0;
    int32_t days;
    int64_t nanos = 0;
    if (had_zone)
        *had_zone = false;
    if (parse_date_at(s, len, &i, &days) < 0)
        return -1;
    if (i < len && (s[i] == 'T' || s[i] == ' ')) {
        i++;
        if (parse_time_at(s, len, &i, precision, &nanos) < 0)
            return -1;
    }
    int64_t offset_sec = 0;
    if (i < len && allow_zone) {
        if (s[i] == 'Z' || s[i] == 'z') {
            i++;
        } else if (s[i] == '+' || s[i] == '-') {
            int sign = s[i] == '-' ? -1 : 1;
            i++;
            int oh, om = 0;
            if (read_digits(s, len, &i, 2, &oh) < 0)
                return -1;
            if (i < len && s[i] == ':')
                i++;
            if (i < len && read_digits(s, len, &i, 2, &om) < 0)
                return -1;
            offset_sec = sign * (oh * 3600 + om * 60);
        } else {
            return -1;
        }
        if (had_zone)
            *had_zone = true;
    }
    if (i != len)
        return -1;
    int64_t ms_of_day = nanos / 1000000;
    out->millis = (int64_t)days * 86400000LL + ms_of_day - offset_sec * 1000;
    out->nanos = (int32_t)(nanos % 1000000);
    return 0;
}

/* ---- float printing --------------------------------------------------------- */

/* Formats from a digit string d (no dot) with decimal exponent e (value = 0.d * 10^e). */
static int java_style(bool neg, const char *d, int nd, int e, char *buf)
{
    char *w = buf;
    if (neg)
        *w++ = '-';
    /* value = d[0].d[1..] * 10^(e-1) */
    int sci = e - 1;
    if (sci >= -3 && sci < 7) {
        if (e <= 0) {
            *w++ = '0';
            *w++ = '.';
            for (int k = 0; k < -e; k++)
                *w++ = '0';
            memcpy(w, d, (size_t)nd);
            w += nd;
        } else {
            for (int k = 0; k < e; k++)
                *w++ = k < nd ? d[k] : '0';
            *w++ = '.';
            if (nd > e) {
                memcpy(w, d + e, (size_t)(nd - e));
                w += nd - e;
            } else {
                *w++ = '0';
            }
        }
    } else {
        *w++ = d[0];
        *w++ = '.';
        if (nd > 1) {
            memcpy(w, d + 1, (size_t)(nd - 1));
            w += nd - 1;
        } else {
            *w++ = '0';
        }
        w += sprintf(w, "E%d", sci);
    }
    *w = '\0';
    return (int)(w - buf);
}

static int shortest(double v, bool is_float, char *buf)
{
    if (isnan(v))
        return sprintf(buf, "NaN");
    if (isinf(v))
        return sprintf(buf, v < 0 ? "-Infinity" : "Infinity");
    if (v == 0)
        return sprintf(buf, signbit(v) ? "-0.0" : "0.0");
    char tmp[40];
    /* the fewest significant digits that round-trip: round-tripping is monotone
       in the digit count, so binary-search it (4-5 conversions, not up to 17) */
    int lo = 1, hi = is_float ? 9 : 17;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        snprintf(tmp, sizeof(tmp), "%.*e", mid - 1, v);
        bool ok = is_float ? strtof(tmp, NULL) == (float)v : strtod(tmp, NULL) == v;
        if (ok)
            hi = mid;
        else
            lo = mid + 1;
    }
    snprintf(tmp, sizeof(tmp), "%.*e", lo - 1, v);
    /* tmp: [-]d.ddde[+-]xx */
    bool neg = tmp[0] == '-';
    const char *p = tmp + neg;
    char digits[24];
    int nd = 0;
    for (; *p && *p != 'e'; p++)
        if (*p != '.')
            digits[nd++] = *p;
    int e = atoi(p + 1) + 1;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    return java_style(neg, digits, nd, e, buf);
}

int cdc_float_format(float f, char *buf)
{
    return shortest((double)f, true, buf);
}

int cdc_double_format(double d, char *buf)
{
    return shortest(d, false, buf);
}

/* ---- printing --------------------------------------------------------------- */

int cdc_int64_format(int64_t v, char *buf)
{
    char *w = put_int_at(buf, v);
    *w = '\0';
    return (int)(w - buf);
}

/* hh:mm:ss[.fff] of nanos of the day, the fraction cut to precision digits; precision -1: the
   fraction without trailing zeros, none when zero (Java's appendFraction(0, 9)) */
static char *put_time_at(char *w, int64_t nanos, int precision)
{
    int64_t secs = nanos / 1000000000LL;
    int64_t scaled = nanos % 1000000000LL;
    if (precision < 0) {
        precision = scaled ? 9 : 0;
        for (; scaled && scaled % 10 == 0; scaled /= 10)
            precision--;
    } else {
        for (int k = precision; k < 9; k++)
            scaled /= 10;
    }
    if (nanos < 0) { /* a negative MySQL TIME (a duration): "-hh:mm:ss", as MySQL prints it */
        *w++ = '-';
        secs = -secs;
        scaled = -scaled;
    }
    w = put_u64_at(w, (uint64_t)(secs / 3600), 2);
    *w++ = ':';
    w = put_u64_at(w, (uint64_t)(secs / 60 % 60), 2);
    *w++ = ':';
    w = put_u64_at(w, (uint64_t)(secs % 60), 2);
    if (precision > 0) {
        *w++ = '.';
        w = put_u64_at(w, (uint64_t)scaled, precision);
    }
    return w;
}

static char *put_date_at(char *w, int64_t days)
{
    int64_t y;
    unsigned m, d;
    cdc_civil_from_days(days, &y, &m, &d);
    uint64_t uy = (uint64_t)y;
    if (y < 0) {
        *w++ = '-';
        uy = (uint64_t)0 - uy;
    }
    w = put_u64_at(w, uy, 4);
    *w++ = '-';
    w = put_u64_at(w, m, 2);
    *w++ = '-';
    return put_u64_at(w, d, 2);
}

/* Room for the text of any scalar but CHAR/VARCHAR/BINARY/VARBINARY (a timestamp's date, 'T',
   time and 'Z'; a decimal; a float), past the digits of a TIME/TIMESTAMP precision. */
#define SCALAR_MAX 128

static size_t scalar_room(const cdc_type_t *t)
{
    return SCALAR_MAX + (size_t)(t->precision > 0 ? t->precision : 0);
}

static bool is_scalar(const cdc_type_t *t)
{
    return t->root <= CDC_T_DECIMAL || (t->root >= CDC_T_DATE && t->root <= CDC_T_TIMESTAMP_LTZ);
}

/* Writes a non-NULL scalar value at w (scalar_room(t) bytes there) with the cdc_value_to_text
   flags; returns the end. Inlined into cdc_row_print's loop. */
static inline __attribute__((always_inline)) char *
put_scalar_at(char *w, const cdc_value_t *v, const cdc_type_t *t, unsigned flags)
{
    switch (t->root) {
    case CDC_T_BOOLEAN:
        if (v->v.b) {
            memcpy(w, "true", 4);
            return w + 4;
        }
        memcpy(w, "false", 5);
        return w + 5;
    case CDC_T_TINYINT:
    case CDC_T_SMALLINT:
    case CDC_T_INT:
    case CDC_T_BIGINT:
        return put_int_at(w, v->v.i);
    case CDC_T_FLOAT:
        return w + cdc_float_format(v->v.f, w);
    case CDC_T_DOUBLE:
        return w + cdc_double_format(v->v.d, w);
    case CDC_T_DECIMAL:
        return w + cdc_decimal_format(v->v.dec, t->scale, w);
    case CDC_T_DATE:
        return put_date_at(w, v->v.i);
    case CDC_T_TIME:
        return put_time_at(w, v->v.i, flags & CDC_TEXT_SHORT_FRACTION ? -1 : t->precision);
    default: { /* TIMESTAMP, TIMESTAMP_LTZ */
        int64_t days = v->v.ts.millis / 86400000LL;
        int64_t ms = v->v.ts.millis % 86400000LL;
        if (ms < 0) {
            ms += 86400000LL;
            days--;
        }
        w = put_date_at(w, days);
        *w++ = flags & CDC_TEXT_ISO8601 ? 'T' : ' ';
        w = put_time_at(w, ms * 1000000LL + v->v.ts.nanos,
                        flags & CDC_TEXT_SHORT_FRACTION ? -1 : t->precision);
        if (t->root == CDC_T_TIMESTAMP_LTZ && !(flags & CDC_TEXT_LOCAL))
            *w++ = 'Z';
        return w;
    }
    }
}

int cdc_value_to_text(const cdc_value_t *v, const cdc_type_t *t, unsigned flags, char *buf)
{
    if (!is_scalar(t))
        return -1;
    char *w = put_scalar_at(buf, v, t, flags);
    *w = '\0';
    return (int)(w - buf);
}

void cdc_value_print(cdc_buf_t *out, const cdc_value_t *v, const cdc_type_t *t)
{
    if (v->flags & CDC_V_UNCHANGED) {
        cdc_buf_puts(out, "<unchanged>");
        return;
    }
    if (v->flags & CDC_V_NULL) {
        cdc_buf_puts(out, "null");
        return;
    }
    if (is_scalar(t)) {
        cdc_buf_reserve(out, scalar_room(t));
        out->len =
            (size_t)(put_scalar_at(out->data + out->len, v, t, CDC_TEXT_ISO8601) - out->data);
        return;
    }
    switch (t->root) {
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
        cdc_buf_append(out, v->v.s.ptr, v->v.s.len);
        break;
    case CDC_T_BINARY:
    case CDC_T_VARBINARY: {
        static const char hex[] = "0123456789abcdef";
        cdc_buf_puts(out, "x'");
        cdc_buf_reserve(out, (size_t)v->v.s.len * 2);
        for (uint32_t i = 0; i < v->v.s.len; i++) {
            unsigned char c = (unsigned char)v->v.s.ptr[i];
            out->data[out->len++] = hex[c >> 4];
            out->data[out->len++] = hex[c & 15];
        }
        cdc_buf_putc(out, '\'');
        break;
    }
    case CDC_T_ARRAY:
        cdc_buf_putc(out, '[');
        for (uint32_t i = 0; i < v->v.arr.n; i++) {
            if (i)
                cdc_buf_puts(out, ", ");
            cdc_value_print(out, &v->v.arr.elems[i], t->children[0]);
        }
        cdc_buf_putc(out, ']');
        break;
    case CDC_T_MAP:
    case CDC_T_MULTISET:
        cdc_buf_putc(out, '{');
        for (uint32_t i = 0; i < v->v.arr.n; i++) {
            if (i)
                cdc_buf_puts(out, ", ");
            cdc_value_print(out, &v->v.arr.elems[i], t->children[0]);
            cdc_buf_putc(out, '=');
            cdc_value_print(out, &v->v.arr.vals[i], cdc_type_map_value(t));
        }
        cdc_buf_putc(out, '}');
        break;
    case CDC_T_ROW:
        cdc_buf_putc(out, '(');
        for (uint32_t i = 0; i < v->v.row->arity && i < (uint32_t)t->nchildren; i++) {
            if (i)
                cdc_buf_puts(out, ", ");
            cdc_value_print(out, &v->v.row->values[i], t->children[i]);
        }
        cdc_buf_putc(out, ')');
        break;
    default:
        cdc_buf_puts(out, "?");
        break;
    }
}

void cdc_row_print(cdc_buf_t *out, const cdc_row_t *row, const cdc_type_t *row_type)
{
    cdc_buf_reserve(out, 3);
    char *w = out->data + out->len;
    memcpy(w, cdc_kind_short(row->kind), 2);
    w[2] = '[';
    out->len += 3;
    for (uint32_t i = 0; i < row->arity && i < (uint32_t)row_type->nchildren; i++) {
        const cdc_value_t *v = &row->values[i];
        const cdc_type_t *t = row_type->children[i];
        /* scalars are written in place: one reserve for the separator and the text */
        cdc_buf_reserve(out, 2 + scalar_room(t));
        w = out->data + out->len;
        if (i) {
            memcpy(w, ", ", 2);
            w += 2;
        }
        bool set = !(v->flags & (CDC_V_NULL | CDC_V_UNCHANGED));
        if (set && is_scalar(t)) {
            out->len = (size_t)(put_scalar_at(w, v, t, CDC_TEXT_ISO8601) - out->data);
        } else if (set && (t->root == CDC_T_VARCHAR || t->root == CDC_T_CHAR)) {
            out->len = (size_t)(w - out->data);
            cdc_buf_append(out, v->v.s.ptr, v->v.s.len);
        } else {
            out->len = (size_t)(w - out->data);
            cdc_value_print(out, v, t);
        }
    }
    cdc_buf_putc(out, ']');
}

/* ---- comparison ------------------------------------------------------------------------ */

int cdc_value_cmp(const cdc_type_t *t, const cdc_value_t *a, const cdc_value_t *b)
{
    switch (t->root) {
    case CDC_T_BOOLEAN:
        return (int)a->v.b - (int)b->v.b;
    case CDC_T_TINYINT:
    case CDC_T_SMALLINT:
    case CDC_T_INT:
    case CDC_T_BIGINT:
    case CDC_T_DATE:
    case CDC_T_TIME:
        return a->v.i < b->v.i ? -1 : a->v.i > b->v.i;
    case CDC_T_FLOAT:
        if (isnan(a->v.f) || isnan(b->v.f))
            return 2;
        return a->v.f < b->v.f ? -1 : a->v.f > b->v.f;
    case CDC_T_DOUBLE:
        if (isnan(a->v.d) || isnan(b->v.d))
            return 2;
        return a->v.d < b->v.d ? -1 : a->v.d > b->v.d;
    case CDC_T_DECIMAL:
        return a->v.dec < b->v.dec ? -1 : a->v.dec > b->v.dec;
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
    case CDC_T_BINARY:
    case CDC_T_VARBINARY: {
        uint32_t n = a->v.s.len < b->v.s.len ? a->v.s.len : b->v.s.len;
        int c = n ? memcmp(a->v.s.ptr, b->v.s.ptr, n) : 0;
        if (c)
            return c < 0 ? -1 : 1;
        return a->v.s.len < b->v.s.len ? -1 : a->v.s.len > b->v.s.len;
    }
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ:
        if (a->v.ts.millis != b->v.ts.millis)
            return a->v.ts.millis < b->v.ts.millis ? -1 : 1;
        return a->v.ts.nanos < b->v.ts.nanos ? -1 : a->v.ts.nanos > b->v.ts.nanos;
    default:
        return 2;
    }
}

/* ---- copies that outlive their batch ----------------------------------------------------------
 */

void cdc_value_keep(cdc_arena_t *arena, const cdc_type_t *t, const cdc_value_t *in,
                    cdc_value_t *out)
{
    *out = *in;
    if (!t || (in->flags & CDC_V_NULL))
        return;
    switch (t->root) {
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
    case CDC_T_BINARY:
    case CDC_T_VARBINARY:
        out->v.s.ptr = cdc_arena_memdup(arena, in->v.s.ptr, in->v.s.len ? in->v.s.len : 1);
        break;
    case CDC_T_ARRAY:
    case CDC_T_MAP:
    case CDC_T_MULTISET: {
        uint32_t n = in->v.arr.n;
        out->v.arr.elems = cdc_arena_alloc(arena, sizeof(cdc_value_t) * (n ? n : 1));
        for (uint32_t i = 0; i < n; i++)
            cdc_value_keep(arena, t->children[0], &in->v.arr.elems[i], &out->v.arr.elems[i]);
        if (cdc_type_is_map_like(t)) {
            out->v.arr.vals = cdc_arena_alloc(arena, sizeof(cdc_value_t) * (n ? n : 1));
            for (uint32_t i = 0; i < n; i++)
                cdc_value_keep(arena, cdc_type_map_value(t), &in->v.arr.vals[i],
                               &out->v.arr.vals[i]);
        }
        break;
    }
    case CDC_T_ROW:
        out->v.row = cdc_row_keep(in->v.row, t, arena);
        break;
    default:
        break;
    }
}

cdc_row_t *cdc_row_keep(const cdc_row_t *src, const cdc_type_t *t, cdc_arena_t *arena)
{
    cdc_row_t *row = cdc_row_new_in(arena, src->arity);
    row->kind = src->kind;
    row->origin = src->origin ? cdc_arena_strdup(arena, src->origin) : NULL;
    for (uint32_t i = 0; i < src->arity; i++)
        cdc_value_keep(arena, i < (uint32_t)t->nchildren ? t->children[i] : NULL, &src->values[i],
                       &row->values[i]);
    return row;
}

void cdc_row_key_bytes(const cdc_row_t *row, const int *key, int nkey, const cdc_type_t *t,
                       cdc_buf_t *out)
{
    cdc_buf_clear(out);
    for (int k = 0; k < nkey; k++) {
        const cdc_value_t *v = &row->values[key[k]];
        if (v->flags & CDC_V_NULL) {
            cdc_buf_putc(out, 0);
            continue;
        }
        cdc_buf_putc(out, 1);
        switch (t->children[key[k]]->root) {
        case CDC_T_CHAR:
        case CDC_T_VARCHAR:
        case CDC_T_BINARY:
        case CDC_T_VARBINARY:
            cdc_buf_append(out, &v->v.s.len, sizeof(v->v.s.len));
            cdc_buf_append(out, v->v.s.ptr, v->v.s.len);
            break;
        case CDC_T_DECIMAL:
            cdc_buf_append(out, &v->v.dec, sizeof(v->v.dec));
            break;
        case CDC_T_TIMESTAMP:
        case CDC_T_TIMESTAMP_LTZ:
            cdc_buf_append(out, &v->v.ts.millis, sizeof(v->v.ts.millis));
            cdc_buf_append(out, &v->v.ts.nanos, sizeof(v->v.ts.nanos));
            break;
        case CDC_T_FLOAT:
            cdc_buf_append(out, &v->v.f, sizeof(v->v.f));
            break;
        case CDC_T_DOUBLE:
            cdc_buf_append(out, &v->v.d, sizeof(v->v.d));
            break;
        case CDC_T_BOOLEAN:
            cdc_buf_putc(out, v->v.b ? 1 : 0);
            break;
        default: /* integers, DATE, TIME */
            cdc_buf_append(out, &v->v.i, sizeof(v->v.i));
            break;
        }
    }
}
