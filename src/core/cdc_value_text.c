/*
 * cdc_value_text.c — a scalar value from its text (cdc_value_text.h): the
 * parsers every format, connector and cast shares, and the dialect rules of
 * each source (Flink's JSON text, CAST, PostgreSQL's and MySQL's text output).
 */
#include "cdc_value_text.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cdc_util.h"

/* ---- common pieces -------------------------------------------------------------------------- */

int cdc_text_parse_i64_slow(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    if (i == len)
        return -1;
    uint64_t v = 0;
    bool big = false;
    for (; i < len; i++) {
        unsigned d = (unsigned)(unsigned char)s[i] - '0';
        if (d > 9)
            return -1;
        if (v > (UINT64_MAX - d) / 10)
            big = true;
        v = v * 10 + d;
    }
    if (big || v > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
        return -2;
    *out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return 0;
}

/* [+-]? (d+ (. d*)? | . d+) ([eE] [+-]? d+)?  — the decimal text Java's parsers accept. */
static bool is_number_text(const char *s, size_t len)
{
    size_t i = 0, nd = 0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        i++;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        i++;
        nd++;
    }
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            i++;
            nd++;
        }
    }
    if (nd == 0)
        return false;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t ne = 0;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            i++;
            ne++;
        }
        if (ne == 0)
            return false;
    }
    return i == len;
}

/*
 * Reads up to 19 digits of decimal text [+-]?d*[.d*] without an exponent:
 * *mant = the digits as an integer, *nfrac = digits after the point, *ndigits
 * = all digits.
 * Returns false when the text has another shape or more digits (slow path).
 */
static bool small_decimal(const char *s, size_t len, bool *neg, uint64_t *mant, int *nfrac,
                          int *ndigits)
{
    size_t i = 0;
    *neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        *neg = s[i++] == '-';
    uint64_t m = 0;
    int nd = 0, nf = 0;
    bool dot = false;
    for (; i < len; i++) {
        unsigned d = (unsigned)(unsigned char)s[i] - '0';
        if (d <= 9) {
            if (++nd > 19)
                return false;
            m = m * 10 + d;
            nf += dot;
        } else if (s[i] == '.' && !dot) {
            dot = true;
        } else {
            return false;
        }
    }
    if (nd == 0)
        return false;
    *mant = m;
    *nfrac = nf;
    *ndigits = nd;
    return true;
}

/* s[0..len) NUL-terminated: copied into small (64 bytes) when it fits, else into the arena. */
static const char *terminated(const char *s, size_t len, char *small, cdc_arena_t *arena)
{
    if (len >= 64)
        return cdc_arena_memdup(arena, s, len);
    memcpy(small, s, len);
    small[len] = '\0';
    return small;
}

/*
 * Decimal text to double. Clinger's fast path when the digits fit 2^53 and the
 * power of ten is exact (the result is then correctly rounded, as strtod's);
 * strtod otherwise, on a terminated copy (stack, or the arena for long text).
 */
double cdc_text_to_double(const char *s, size_t len, cdc_arena_t *arena)
{
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    bool neg;
    uint64_t m;
    int nf, nd;
    if (small_decimal(s, len, &neg, &m, &nf, &nd) && m <= (1ull << 53) && nf <= 22) {
        double d = (double)m / p10[nf];
        return neg ? -d : d;
    }
    char small[64];
    return strtod(terminated(s, len, small, arena), NULL);
}

static float text_to_float(const char *s, size_t len, cdc_arena_t *arena)
{
    static const float p10[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
    bool neg;
    uint64_t m;
    int nf, nd;
    if (small_decimal(s, len, &neg, &m, &nf, &nd) && m <= (1ull << 24) && nf <= 10) {
        float f = (float)m / p10[nf];
        return neg ? -f : f;
    }
    char small[64];
    return strtof(terminated(s, len, small, arena), NULL);
}

/* NaN, Infinity, +Infinity, -Infinity as Java's Double.parseDouble reads them. */
static bool special_real(const char *s, size_t len, double *out)
{
    if (len == 3 && memcmp(s, "NaN", 3) == 0) {
        *out = NAN;
        return true;
    }
    bool neg = false;
    if (len && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        s++;
        len--;
    }
    if (len == 8 && memcmp(s, "Infinity", 8) == 0) {
        *out = neg ? -INFINITY : INFINITY;
        return true;
    }
    return false;
}

/* 10^0 .. 10^38 as constants (no lazy initialization: decoders may start on any thread). */
#define P10(k) ((cdc_i128)1 * k##ull)
#define P19(k) ((cdc_i128)10000000000000000000ull * k##ull)
static const cdc_i128 pow10_tab[CDC_MAX_DECIMAL_PRECISION + 1] = {
    P10(1),
    P10(10),
    P10(100),
    P10(1000),
    P10(10000),
    P10(100000),
    P10(1000000),
    P10(10000000),
    P10(100000000),
    P10(1000000000),
    P10(10000000000),
    P10(100000000000),
    P10(1000000000000),
    P10(10000000000000),
    P10(100000000000000),
    P10(1000000000000000),
    P10(10000000000000000),
    P10(100000000000000000),
    P10(1000000000000000000),
    P19(1),
    P19(10),
    P19(100),
    P19(1000),
    P19(10000),
    P19(100000),
    P19(1000000),
    P19(10000000),
    P19(100000000),
    P19(1000000000),
    P19(10000000000),
    P19(100000000000),
    P19(1000000000000),
    P19(10000000000000),
    P19(100000000000000),
    P19(1000000000000000),
    P19(10000000000000000),
    P19(100000000000000000),
    P19(1000000000000000000),
    P19(10000000000000000000),
};
#undef P10
#undef P19

/*
 * True when decimal text (already checked: [+-]?digits[.digits][e[+-]digits])
 * has more integer digits than DECIMAL(p, s) holds. Checked before calling
 * cdc_decimal_parse, whose digit loop overflows 128 bits on such input.
 */
static bool too_many_int_digits(const char *s, size_t len, int precision, int scale)
{
    size_t i = 0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        i++;
    long ipos = 0; /* digits before the point, from the first nonzero digit */
    long lead = 0; /* zeros after the point before the first nonzero digit */
    bool nz = false, dot = false;
    for (; i < len; i++) {
        char c = s[i];
        if (c == '.') {
            dot = true;
        } else if (c >= '0' && c <= '9') {
            if (c != '0')
                nz = true;
            if (!dot && nz)
                ipos++;
            else if (dot && !nz)
                lead++;
        } else {
            break;
        }
    }
    if (!nz)
        return false; /* zero */
    long e = 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = i < len && s[i] == '-';
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
            if (e < 1000000)
                e = e * 10 + (s[i] - '0');
        if (eneg)
            e = -e;
    }
    /* the first nonzero digit has weight 10^(mag - 1) */
    long mag = (ipos > 0 ? ipos : -lead) + e;
    return mag > precision - scale;
}

/*
 * Decimal text to DECIMAL(p, s): a fast path for plain text whose fraction
 * fits the scale and whose scaled value stays below 10^38 (no rounding, no
 * 128-bit overflow); cdc_decimal_parse otherwise.
 */
int cdc_text_to_decimal(const char *s, size_t len, const cdc_type_t *t, cdc_i128 *out)
{
    bool neg;
    uint64_t m;
    int nf, nd;
    if (small_decimal(s, len, &neg, &m, &nf, &nd) && nf <= t->scale &&
        nd - nf + t->scale <= CDC_MAX_DECIMAL_PRECISION) {
        cdc_i128 v = (cdc_i128)m * pow10_tab[t->scale - nf];
        if (v >= pow10_tab[t->precision])
            return -1;
        *out = neg ? -v : v;
        return 0;
    }
    if (too_many_int_digits(s, len, t->precision, t->scale))
        return -1;
    return cdc_decimal_parse(s, len, t->precision, t->scale, out);
}

/* value + 1 per base64 character (standard and URL-safe alphabets); 0 = not base64 */
static const unsigned char b64_value[256] = {
    ['A'] = 1,  ['B'] = 2,  ['C'] = 3,  ['D'] = 4,  ['E'] = 5,  ['F'] = 6,  ['G'] = 7,  ['H'] = 8,
    ['I'] = 9,  ['J'] = 10, ['K'] = 11, ['L'] = 12, ['M'] = 13, ['N'] = 14, ['O'] = 15, ['P'] = 16,
    ['Q'] = 17, ['R'] = 18, ['S'] = 19, ['T'] = 20, ['U'] = 21, ['V'] = 22, ['W'] = 23, ['X'] = 24,
    ['Y'] = 25, ['Z'] = 26, ['a'] = 27, ['b'] = 28, ['c'] = 29, ['d'] = 30, ['e'] = 31, ['f'] = 32,
    ['g'] = 33, ['h'] = 34, ['i'] = 35, ['j'] = 36, ['k'] = 37, ['l'] = 38, ['m'] = 39, ['n'] = 40,
    ['o'] = 41, ['p'] = 42, ['q'] = 43, ['r'] = 44, ['s'] = 45, ['t'] = 46, ['u'] = 47, ['v'] = 48,
    ['w'] = 49, ['x'] = 50, ['y'] = 51, ['z'] = 52, ['0'] = 53, ['1'] = 54, ['2'] = 55, ['3'] = 56,
    ['4'] = 57, ['5'] = 58, ['6'] = 59, ['7'] = 60, ['8'] = 61, ['9'] = 62, ['+'] = 63, ['/'] = 64,
    ['-'] = 63, ['_'] = 64,
};

bool cdc_text_looks_base64(const char *s, size_t len)
{
    if (len < 4 || len % 4 != 0)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!b64_value[(unsigned char)s[i]] && !(s[i] == '=' && i >= len - 2))
            return false;
    return true;
}

long cdc_text_base64_decode(const char *s, size_t len, bool url_safe, unsigned char *out)
{
    if (url_safe) {
        size_t pad = 0;
        while (len && s[len - 1] == '=' && pad < 2) {
            len--;
            pad++;
        }
        if (len % 4 == 1 || (pad && (len + pad) % 4 != 0))
            return -1;
    } else {
        while (len && s[len - 1] == '=')
            len--;
        if (len % 4 == 1)
            return -1;
    }
    unsigned char *w = out;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned v = b64_value[(unsigned char)s[i]];
        if (!v || (!url_safe && (s[i] == '-' || s[i] == '_')))
            return -1;
        acc = (acc << 6) | (v - 1);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            *w++ = (unsigned char)(acc >> bits);
        }
    }
    return (long)(w - out);
}

/* p[0..n) as base64 in the alphabet al (64 letters), padded with '=', into w; returns the end */
static char *base64_put(char *w, const char *al, const unsigned char *p, size_t n)
{
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        *w++ = al[v >> 18];
        *w++ = al[(v >> 12) & 63];
        *w++ = al[(v >> 6) & 63];
        *w++ = al[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
        *w++ = al[v >> 18];
        *w++ = al[(v >> 12) & 63];
        *w++ = i + 1 < n ? al[(v >> 6) & 63] : '=';
        *w++ = '=';
    }
    return w;
}

static const char b64_std[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char b64_url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

void cdc_text_base64_encode(cdc_buf_t *out, const unsigned char *p, size_t n)
{
    cdc_buf_reserve(out, (n + 2) / 3 * 4);
    out->len = (size_t)(base64_put(out->data + out->len, b64_std, p, n) - out->data);
}

const char *const cdc_binary_modes[] = {"bytes", "base64", "base64-url-safe", "hex", NULL};

void cdc_text_bytes_to_text(cdc_arena_t *arena, cdc_binary_mode_t mode, const unsigned char *p,
                            size_t n, cdc_str_t *out)
{
    if (mode == CDC_BINARY_BYTES) {
        out->ptr = (const char *)p;
        out->len = (uint32_t)n;
        return;
    }
    size_t room = mode == CDC_BINARY_HEX ? n * 2 : (n + 2) / 3 * 4;
    char *w = cdc_arena_alloc(arena, room ? room : 1), *start = w;
    if (mode == CDC_BINARY_HEX) {
        static const char hex[] = "0123456789abcdef";
        for (size_t i = 0; i < n; i++) {
            *w++ = hex[p[i] >> 4];
            *w++ = hex[p[i] & 15];
        }
    } else {
        w = base64_put(w, mode == CDC_BINARY_BASE64 ? b64_std : b64_url, p, n);
    }
    out->ptr = start;
    out->len = (uint32_t)(w - start);
}

static int dig2(const char *s)
{
    unsigned a = (unsigned)(unsigned char)s[0] - '0', b = (unsigned)(unsigned char)s[1] - '0';
    return a <= 9 && b <= 9 ? (int)(a * 10 + b) : -1;
}

/*
 * The exact layout "yyyy-mm-dd?hh:mm:ss[.f{1,9}]" with the separator sep,
 * giving what cdc_timestamp_parse gives. Returns -1 for anything else (the
 * caller then takes cdc_timestamp_parse's verdict).
 */
int cdc_text_timestamp_fast(const char *s, size_t n, char sep, int precision, cdc_ts_t *out)
{
    static const uint8_t mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (n < 19 || s[4] != '-' || s[7] != '-' || s[10] != sep || s[13] != ':' || s[16] != ':')
        return -1;
    int yh = dig2(s), yl = dig2(s + 2), mo = dig2(s + 5), d = dig2(s + 8);
    int h = dig2(s + 11), mi = dig2(s + 14), sec = dig2(s + 17);
    if ((yh | yl | mo | d | h | mi | sec) < 0)
        return -1;
    int y = yh * 100 + yl;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (mo == 2 && leap) || h > 23 || mi > 59 ||
        sec > 59)
        return -1;
    int64_t frac = 0;
    if (n > 19) {
        if (s[19] != '.' || n == 20 || n > 29)
            return -1;
        int nd = 0;
        for (size_t i = 20; i < n; i++, nd++) {
            unsigned dd = (unsigned)(unsigned char)s[i] - '0';
            if (dd > 9)
                return -1;
            frac = frac * 10 + dd;
        }
        for (; nd < 9; nd++)
            frac *= 10;
        static const int64_t unit[] = {1000000000, 100000000, 10000000, 1000000, 100000,
                                       10000,      1000,      100,      10,      1};
        frac -= frac % unit[precision];
    }
    int64_t days = cdc_days_from_civil(y, (unsigned)mo, (unsigned)d);
    int64_t ms_of_day = ((int64_t)h * 3600 + mi * 60 + sec) * 1000 + frac / 1000000;
    out->millis = days * 86400000LL + ms_of_day;
    out->nanos = (int32_t)(frac % 1000000);
    return 0;
}

/*
 * strtod on a terminated copy of s[0..len) (len < cap <= 128). *used = the
 * bytes strtod read. Returns -1 for empty or too long text.
 */
static int bounded_strtod(const char *s, size_t len, size_t cap, double *out, char *buf,
                          size_t *used)
{
    if (len == 0 || len >= cap)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    *out = strtod(buf, &end);
    *used = (size_t)(end - buf);
    return 0;
}

static int bad(const char **why, const char *reason)
{
    if (why)
        *why = reason;
    return CDC_TEXT_BAD;
}

static int range(const char **why, const char *reason)
{
    if (why)
        *why = reason;
    return CDC_TEXT_RANGE;
}

/* ---- PostgreSQL's text output (DateStyle ISO) ---------------------------------------------- */

int cdc_text_digits(const char *s, size_t len, size_t *i, int min, int max, int64_t *out)
{
    int64_t v = 0;
    int n = 0;
    while (*i < len && s[*i] >= '0' && s[*i] <= '9' && n < max) {
        v = v * 10 + (s[*i] - '0');
        (*i)++;
        n++;
    }
    if (n < min)
        return -1;
    *out = v;
    return 0;
}

/* "yyyy-mm-dd" (year 4+ digits) at *i; BC is handled by the caller. */
static int pg_ymd(const char *s, size_t len, size_t *i, int64_t *y, int64_t *m, int64_t *d)
{
    if (cdc_text_digits(s, len, i, 4, 9, y) < 0 || *i >= len || s[(*i)++] != '-' ||
        cdc_text_digits(s, len, i, 2, 2, m) < 0 || *i >= len || s[(*i)++] != '-' ||
        cdc_text_digits(s, len, i, 2, 2, d) < 0)
        return -1;
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (*m < 1 || *m > 12 || *d < 1 || *d > mdays[*m - 1])
        return -1;
    return 0;
}

int cdc_text_pg_hms(const char *s, size_t len, size_t *i, int64_t *nanos)
{
    int64_t h, mi, sec, frac = 0;
    if (cdc_text_digits(s, len, i, 2, 2, &h) < 0 || *i >= len || s[(*i)++] != ':' ||
        cdc_text_digits(s, len, i, 2, 2, &mi) < 0 || *i >= len || s[(*i)++] != ':' ||
        cdc_text_digits(s, len, i, 2, 2, &sec) < 0)
        return -1;
    if (*i < len && s[*i] == '.') {
        (*i)++;
        int nd = 0;
        while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
            if (nd == 9)
                return -1;
            frac = frac * 10 + (s[(*i)++] - '0');
            nd++;
        }
        if (nd == 0)
            return -1;
        for (; nd < 9; nd++)
            frac *= 10;
    }
    if (h > 24 || mi > 59 || sec > 60 || (h == 24 && (mi || sec || frac)))
        return -1;
    *nanos = (h * 3600 + mi * 60 + sec) * 1000000000LL + frac;
    return 0;
}

/* " BC" at *i: the year becomes astronomical (1 BC = year 0). */
static void pg_bc_suffix(const char *s, size_t len, size_t *i, int64_t *y)
{
    if (len - *i >= 3 && memcmp(s + *i, " BC", 3) == 0) {
        *i += 3;
        *y = 1 - *y;
    }
}

static bool pg_is_infinity(const char *s, size_t len)
{
    return (len == 8 && memcmp(s, "infinity", 8) == 0) ||
           (len == 9 && memcmp(s, "-infinity", 9) == 0);
}

static const char *pg_date(const char *s, size_t len, int64_t *days)
{
    size_t i = 0;
    int64_t y, m, d;
    if (pg_is_infinity(s, len))
        return "an infinite date has no DATE value";
    if (pg_ymd(s, len, &i, &y, &m, &d) < 0)
        return "not a date";
    pg_bc_suffix(s, len, &i, &y);
    if (i != len)
        return "not a date";
    *days = cdc_days_from_civil(y, (unsigned)m, (unsigned)d);
    return NULL;
}

/* timestamp / timestamptz text; a zone offset is required when zoned, refused otherwise */
static const char *pg_ts(const char *s, size_t len, bool zoned, cdc_ts_t *out)
{
    size_t i = 0;
    int64_t y, m, d, nanos;
    if (pg_is_infinity(s, len))
        return "an infinite timestamp has no TIMESTAMP value";
    if (pg_ymd(s, len, &i, &y, &m, &d) < 0 || i >= len || s[i++] != ' ' ||
        cdc_text_pg_hms(s, len, &i, &nanos) < 0)
        return "not a timestamp";
    int64_t off = 0;
    if (i < len && (s[i] == '+' || s[i] == '-')) {
        if (!zoned)
            return "a zone offset in a timestamp without time zone";
        int sign = s[i++] == '-' ? -1 : 1;
        int64_t oh, om = 0, os = 0;
        if (cdc_text_digits(s, len, &i, 2, 2, &oh) < 0)
            return "not a zone offset";
        if (i < len && s[i] == ':') {
            i++;
            if (cdc_text_digits(s, len, &i, 2, 2, &om) < 0)
                return "not a zone offset";
            if (i < len && s[i] == ':') {
                i++;
                if (cdc_text_digits(s, len, &i, 2, 2, &os) < 0)
                    return "not a zone offset";
            }
        }
        off = sign * (oh * 3600 + om * 60 + os);
    } else if (zoned) {
        return "a timestamp with time zone without an offset";
    }
    pg_bc_suffix(s, len, &i, &y);
    if (i != len)
        return "not a timestamp";
    int64_t days = cdc_days_from_civil(y, (unsigned)m, (unsigned)d);
    int64_t ms = days * 86400000LL + nanos / 1000000 - off * 1000;
    out->millis = ms;
    out->nanos = (int32_t)(nanos % 1000000);
    return NULL;
}

static const char *pg_bytea(const char *s, size_t len, cdc_arena_t *arena, cdc_str_t *out)
{
    if (len < 2 || s[0] != '\\' || s[1] != 'x' || (len & 1))
        return "not a hex bytea (bytea_output must be hex)";
    size_t n = (len - 2) / 2;
    char *b = cdc_arena_alloc(arena, n ? n : 1);
    for (size_t k = 0; k < n; k++) {
        int hi = cdc_hex_digit(s[2 + 2 * k]), lo = cdc_hex_digit(s[3 + 2 * k]);
        if (hi < 0 || lo < 0)
            return "not a hex bytea";
        b[k] = (char)(hi << 4 | lo);
    }
    out->ptr = b;
    out->len = (uint32_t)n;
    return NULL;
}

/* ---- dialects ------------------------------------------------------------------------------- */

static bool word_is(const char *s, size_t len, const char *w)
{
    return strlen(w) == len && strncasecmp(s, w, len) == 0;
}

static int from_bool(const char *s, size_t len, unsigned flags, cdc_value_t *out, const char **why)
{
    if (flags & CDC_TEXT_PG) {
        if (len == 1 && (s[0] == 't' || s[0] == '1'))
            out->v.b = true;
        else if (len == 1 && (s[0] == 'f' || s[0] == '0'))
            out->v.b = false;
        else
            return bad(why, "not a boolean");
        return CDC_TEXT_OK;
    }
    if (flags & CDC_TEXT_MYSQL) {
        out->v.b = len > 0 && s[len - 1] != 0 && !(len == 1 && s[0] == '0');
        return CDC_TEXT_OK;
    }
    if (flags & CDC_TEXT_JDBC) {
        if (word_is(s, len, "1") || word_is(s, len, "t") || word_is(s, len, "true"))
            out->v.b = true;
        else if (word_is(s, len, "0") || word_is(s, len, "f") || word_is(s, len, "false"))
            out->v.b = false;
        else
            return bad(why, "not a boolean");
        return CDC_TEXT_OK;
    }
    if (flags & CDC_TEXT_NUMBER)
        return bad(why, "not a boolean");
    cdc_text_trim(&s, &len);
    if (flags & CDC_TEXT_CAST) {
        static const char *const yes[] = {"true", "t", "yes", "y", "1"};
        static const char *const no[] = {"false", "f", "no", "n", "0"};
        for (int i = 0; i < 5; i++) {
            if (word_is(s, len, yes[i]) || word_is(s, len, no[i])) {
                out->v.b = word_is(s, len, yes[i]);
                return CDC_TEXT_OK;
            }
        }
        return bad(why, "not a boolean");
    }
    if (len == 4 && strncasecmp(s, "true", 4) == 0)
        out->v.b = true;
    else if (len == 5 && strncasecmp(s, "false", 5) == 0)
        out->v.b = false;
    else
        return bad(why, "not a boolean");
    return CDC_TEXT_OK;
}

/*
 * A checked number token (JSON's -?int(.frac)?([eE][+-]?exp)?) whose value is an
 * integer, exactly: 1e2 and 100.0 are 100, 1.5 and 1e-1 are not integers (-1);
 * beyond 64 bits is -2. No floating point: the digits are shifted by the exponent.
 */
static int number_exact_i64(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    bool neg = i < len && s[i] == '-';
    if (neg || (i < len && s[i] == '+'))
        i++;
    char digits[24];
    size_t nd = 0;     /* significant digits kept (leading zeros dropped) */
    int64_t shift = 0; /* the value is digits * 10^shift */
    bool frac = false, any = false;
    for (; i < len && s[i] != 'e' && s[i] != 'E'; i++) {
        if (s[i] == '.') {
            if (frac)
                return -1;
            frac = true;
            continue;
        }
        if (s[i] < '0' || s[i] > '9')
            return -1;
        any = true;
        if (frac)
            shift--;
        if (nd == 0 && s[i] == '0')
            continue;
        if (nd == sizeof(digits)) { /* more significant digits than 64 bits hold... */
            if (s[i] != '0')
                return frac ? -1 : -2; /* ...unless they are trailing zeros of a fraction */
            shift++;
            continue;
        }
        digits[nd++] = s[i];
    }
    if (!any)
        return -1;
    if (i < len) { /* the exponent */
        i++;
        bool eneg = i < len && s[i] == '-';
        if (i < len && (s[i] == '-' || s[i] == '+'))
            i++;
        if (i == len)
            return -1;
        int64_t e = 0;
        for (; i < len; i++) {
            if (s[i] < '0' || s[i] > '9')
                return -1;
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
        }
        shift += eneg ? -e : e;
    }
    while (nd > 0 && shift < 0 && digits[nd - 1] == '0') { /* 100.0, 1000e-2 */
        nd--;
        shift++;
    }
    if (nd == 0) {
        *out = 0;
        return 0;
    }
    if (shift < 0)
        return -1; /* a fraction is left */
    if ((int64_t)nd + shift > 19)
        return -2;
    uint64_t v = 0;
    for (size_t k = 0; k < nd; k++)
        v = v * 10 + (uint64_t)(digits[k] - '0');
    for (int64_t k = 0; k < shift; k++) {
        if (v > UINT64_MAX / 10)
            return -2;
        v *= 10;
    }
    if (v > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
        return -2;
    *out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return 0;
}

static int from_int(const cdc_type_t *t, const char *s, size_t len, unsigned flags,
                    cdc_value_t *out, const char **why)
{
    int64_t v;
    if (flags & CDC_TEXT_MYSQL) { /* strtoll's rules: leading blanks, no range check */
        if (len >= 128)
            return bad(why, "not an integer");
        while (len && isspace((unsigned char)*s)) {
            s++;
            len--;
        }
        if (cdc_text_parse_i64(s, len, &v) < 0)
            return bad(why, "not an integer of the column type");
        out->v.i = v;
        return CDC_TEXT_OK;
    }
    if (flags & CDC_TEXT_JDBC) { /* strtoll's rules, or "1.0" from a REAL holding an integer */
        char tmp[32], *end;
        if (len == 0 || len >= sizeof(tmp))
            return bad(why, "not an integer");
        memcpy(tmp, s, len);
        tmp[len] = '\0';
        long long ll = strtoll(tmp, &end, 10);
        if (*end) {
            double d = strtod(tmp, &end);
            if (*end || d != (double)(long long)d)
                return bad(why, "not an integer");
            ll = (long long)d;
        }
        out->v.i = ll;
        return CDC_TEXT_OK;
    }
    if (!(flags & (CDC_TEXT_PG | CDC_TEXT_NUMBER)))
        cdc_text_trim(&s, &len);
    int rc = cdc_text_parse_i64(s, len, &v);
    if (rc == -1 && (flags & CDC_TEXT_NUMBER))
        rc = number_exact_i64(s, len, &v); /* 1e2, 100.0: an integer written otherwise */
    if (rc == -1)
        return bad(why, "not an integer");
    if (rc == -2)
        return range(why, "integer out of range");
    if (!cdc_int_fits(t->root, v))
        return range(why, "integer out of range of the column type");
    out->v.i = v;
    return CDC_TEXT_OK;
}

static int from_real(const cdc_type_t *t, const char *s, size_t len, unsigned flags,
                     cdc_arena_t *arena, cdc_value_t *out, const char **why)
{
    bool is_float = t->root == CDC_T_FLOAT;
    char buf[128];
    size_t used;
    double d;
    if (flags & (CDC_TEXT_PG | CDC_TEXT_MYSQL)) {
        bool pg = flags & CDC_TEXT_PG;
        /* PostgreSQL: strtod must read all the text; MySQL: up to a NUL */
        if (bounded_strtod(s, len, pg ? 64 : 128, &d, buf, &used) < 0 ||
            (pg ? used != len : buf[used] != '\0'))
            return bad(why, pg ? "not a floating-point number" : "not a number");
    } else if (flags & CDC_TEXT_JDBC) {
        if (bounded_strtod(s, len, 64, &d, buf, &used) < 0)
            return bad(why, "not a number");
        if (strcasecmp(buf, "Infinity") == 0 || strcasecmp(buf, "inf") == 0)
            d = INFINITY;
        else if (strcasecmp(buf, "-Infinity") == 0 || strcasecmp(buf, "-inf") == 0)
            d = -INFINITY;
        else if (strcasecmp(buf, "NaN") == 0)
            d = NAN;
        else if (buf[used] != '\0')
            return bad(why, "not a number");
    } else if (flags & CDC_TEXT_CAST) {
        cdc_text_trim(&s, &len);
        if (len == 0 || len >= sizeof(buf))
            return bad(why, "not a number");
        size_t k = (s[0] == '-' || s[0] == '+') ? 1 : 0;
        if (word_is(s, len, "NaN")) {
            d = NAN;
        } else if (word_is(s + k, len - k, "Infinity")) {
            d = s[0] == '-' ? -INFINITY : INFINITY;
        } else {
            for (size_t i = 0; i < len; i++)
                if (!isdigit((unsigned char)s[i]) && !strchr("+-.eE", s[i]))
                    return bad(why, "not a number");
            if (bounded_strtod(s, len, sizeof(buf), &d, buf, &used) < 0 || used == 0 ||
                buf[used] != '\0')
                return bad(why, "not a number");
            if (is_float) { /* round once, from the text */
                out->v.f = strtof(buf, NULL);
                return CDC_TEXT_OK;
            }
        }
    } else {
        if (!(flags & CDC_TEXT_NUMBER)) { /* a JSON number's syntax is a subset of strtod's */
            cdc_text_trim(&s, &len);
            if (special_real(s, len, &d))
                goto done;
            if (!is_number_text(s, len))
                return bad(why, "not a number");
        }
        /* out of range becomes +-Infinity or 0, as in Java */
        if (is_float)
            out->v.f = text_to_float(s, len, arena);
        else
            out->v.d = cdc_text_to_double(s, len, arena);
        return CDC_TEXT_OK;
    }
done:
    if (is_float)
        out->v.f = (float)d;
    else
        out->v.d = d;
    return CDC_TEXT_OK;
}

static int from_decimal(const cdc_type_t *t, const char *s, size_t len, unsigned flags,
                        cdc_value_t *out, const char **why)
{
    if (flags & (CDC_TEXT_PG | CDC_TEXT_MYSQL | CDC_TEXT_CAST | CDC_TEXT_JDBC)) {
        if (flags & CDC_TEXT_CAST)
            cdc_text_trim(&s, &len);
        if (cdc_decimal_parse(s, len, t->precision, t->scale, &out->v.dec) == 0)
            return CDC_TEXT_OK;
        if (flags & (CDC_TEXT_MYSQL | CDC_TEXT_JDBC))
            return bad(why, "not a decimal of the column type");
        return bad(why, len == 3 && memcmp(s, "NaN", 3) == 0 ? "NaN has no DECIMAL value"
                                                             : "not a decimal of the column's "
                                                               "precision");
    }
    if (!(flags & CDC_TEXT_NUMBER)) {
        cdc_text_trim(&s, &len);
        if (!is_number_text(s, len))
            return bad(why, "not a number");
    }
    if (cdc_text_to_decimal(s, len, t, &out->v.dec) < 0)
        return range(why, "decimal out of range of the column type");
    return CDC_TEXT_OK;
}

static int from_bytes(const char *s, size_t len, unsigned flags, cdc_arena_t *arena,
                      cdc_value_t *out, const char **why)
{
    if (flags & CDC_TEXT_PG) {
        const char *r = pg_bytea(s, len, arena, &out->v.s);
        return r ? bad(why, r) : CDC_TEXT_OK;
    }
    if (flags & (CDC_TEXT_MYSQL | CDC_TEXT_CAST | CDC_TEXT_JDBC)) { /* raw bytes */
        out->v.s.ptr = flags & CDC_TEXT_COPY ? cdc_arena_memdup(arena, s, len) : s;
        out->v.s.len = (uint32_t)len;
        return CDC_TEXT_OK;
    }
    if (flags & CDC_TEXT_NUMBER)
        return bad(why, "not base64 text");
    unsigned char *bytes = cdc_arena_alloc(arena, len / 4 * 3 + 3);
    long n = cdc_text_base64_decode(s, len, false, bytes);
    if (n < 0)
        return bad(why, "not base64 text");
    out->v.s.ptr = (const char *)bytes;
    out->v.s.len = (uint32_t)n;
    return CDC_TEXT_OK;
}

static int from_date(const char *s, size_t len, unsigned flags, cdc_value_t *out, const char **why)
{
    int32_t days;
    if (flags & CDC_TEXT_PG) {
        const char *r = pg_date(s, len, &out->v.i);
        return r ? bad(why, r) : CDC_TEXT_OK;
    }
    if (flags & CDC_TEXT_NUMBER)
        return bad(why, "not a date");
    if (flags & CDC_TEXT_CAST)
        cdc_text_trim(&s, &len);
    if ((flags & CDC_TEXT_MYSQL) && len == 10 && memcmp(s, "0000", 4) == 0) {
        out->flags = CDC_V_NULL;
        return CDC_TEXT_OK;
    }
    if (cdc_date_parse(s, len, &days) < 0) {
        if (flags & CDC_TEXT_MYSQL) { /* zero and partial dates: NULL, as the binlog stream */
            out->flags = CDC_V_NULL;
            return CDC_TEXT_OK;
        }
        return bad(why, "not a date");
    }
    out->v.i = days;
    return CDC_TEXT_OK;
}

static int from_time(const cdc_type_t *t, const char *s, size_t len, unsigned flags,
                     cdc_value_t *out, const char **why)
{
    if (flags & CDC_TEXT_PG) {
        size_t k = 0;
        int64_t nanos = 0;
        int rc = cdc_text_pg_hms(s, len, &k, &nanos);
        out->v.i = nanos;
        return rc < 0 || k != len ? bad(why, "not a time") : CDC_TEXT_OK;
    }
    if (flags & CDC_TEXT_NUMBER)
        return bad(why, "not a time");
    if (flags & CDC_TEXT_CAST)
        cdc_text_trim(&s, &len);
    int precision = flags & CDC_TEXT_MYSQL ? 9 : t->precision;
    if (cdc_time_parse(s, len, precision, &out->v.i) < 0)
        return bad(why, "not a time");
    return CDC_TEXT_OK;
}

/* A zone suffix "+hh" (PostgreSQL's form for whole hours) becomes "+hh:00", into buf
   NUL-terminated; returns the length, 0 when it does not fit. */
static size_t jdbc_zone(const char *s, size_t n, char *buf, size_t cap)
{
    if (n + 4 > cap)
        return 0;
    memcpy(buf, s, n);
    if (n > 3 && (buf[n - 3] == '+' || buf[n - 3] == '-') && buf[n - 2] >= '0' &&
        buf[n - 2] <= '9' && buf[n - 1] >= '0' && buf[n - 1] <= '9' && n > 10) {
        memcpy(buf + n, ":00", 3);
        n += 3;
    }
    buf[n] = '\0';
    return n;
}

static int from_timestamp(const cdc_type_t *t, const char *s, size_t len, unsigned flags,
                          cdc_value_t *out, const char **why)
{
    bool ltz = t->root == CDC_T_TIMESTAMP_LTZ;
    if (flags & CDC_TEXT_PG) {
        const char *r = pg_ts(s, len, flags & CDC_TEXT_PG_ZONED, &out->v.ts);
        return r ? bad(why, r) : CDC_TEXT_OK;
    }
    if (flags & CDC_TEXT_MYSQL) {
        bool zone;
        if (cdc_timestamp_parse(s, len, 9, false, &out->v.ts, &zone) < 0)
            out->flags = CDC_V_NULL; /* zero dates */
        return CDC_TEXT_OK;
    }
    if (flags & CDC_TEXT_JDBC) {
        char buf[64];
        bool had_zone;
        size_t m = jdbc_zone(s, len, buf, sizeof(buf));
        if (m == 0 || cdc_timestamp_parse(buf, m, t->precision, true, &out->v.ts, &had_zone) < 0)
            return bad(why, "not a timestamp");
        return CDC_TEXT_OK;
    }
    if (flags & CDC_TEXT_NUMBER)
        return bad(why, "not a timestamp");
    if (flags & CDC_TEXT_CAST) {
        cdc_text_trim(&s, &len);
        if (cdc_timestamp_parse(s, len, t->precision, ltz, &out->v.ts, NULL) < 0)
            return bad(why, "not a timestamp");
        return CDC_TEXT_OK;
    }
    /* JSON: a TIMESTAMP_LTZ ends with 'Z'; the standard fixes the date/time separator;
       seconds may be left out */
    size_t n = len;
    if (ltz) {
        if (n == 0 || s[n - 1] != 'Z')
            return bad(why, "not a timestamp");
        n--;
    }
    bool iso = flags & CDC_TEXT_ISO8601;
    char sep = iso ? 'T' : ' ';
    if (cdc_text_timestamp_fast(s, n, sep, t->precision, &out->v.ts) == 0)
        return CDC_TEXT_OK;
    if (n < 11 || !memchr(s, sep, n) || memchr(s, iso ? ' ' : 'T', n) ||
        cdc_timestamp_parse(s, n, t->precision, false, &out->v.ts, NULL) < 0)
        return bad(why, "not a timestamp");
    return CDC_TEXT_OK;
}

int cdc_value_from_text(const cdc_type_t *t, const char *s, size_t len, unsigned flags,
                        cdc_arena_t *arena, cdc_value_t *out, const char **why)
{
    out->flags = 0;
    switch (t->root) {
    case CDC_T_BOOLEAN:
        return from_bool(s, len, flags, out, why);
    case CDC_T_TINYINT:
    case CDC_T_SMALLINT:
    case CDC_T_INT:
    case CDC_T_BIGINT:
        return from_int(t, s, len, flags, out, why);
    case CDC_T_FLOAT:
    case CDC_T_DOUBLE:
        return from_real(t, s, len, flags, arena, out, why);
    case CDC_T_DECIMAL:
        return from_decimal(t, s, len, flags, out, why);
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
        if (len > UINT32_MAX)
            return range(why, "text too long");
        out->v.s.ptr = flags & CDC_TEXT_COPY ? cdc_arena_memdup(arena, s, len) : s;
        out->v.s.len = (uint32_t)len;
        return CDC_TEXT_OK;
    case CDC_T_BINARY:
    case CDC_T_VARBINARY:
        return from_bytes(s, len, flags, arena, out, why);
    case CDC_T_DATE:
        return from_date(s, len, flags, out, why);
    case CDC_T_TIME:
        return from_time(t, s, len, flags, out, why);
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ:
        return from_timestamp(t, s, len, flags, out, why);
    default:
        return bad(why, "no conversion to the column type");
    }
}
