/*
 * cdc_row.c — rows, batches, changelog modes, decimals, dates/times, and the
 * print format.
 */
#include "cdc_row.h"

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

cdc_row_t *cdc_batch_add(cdc_batch_t *batch, cdc_kind_t kind, uint32_t arity)
{
    if (batch->n == batch->cap) {
        batch->cap = batch->cap ? batch->cap * 2 : 256;
        batch->rows = cdc_xrealloc(batch->rows, sizeof(*batch->rows) * batch->cap);
    }
    cdc_row_t *row = &batch->rows[batch->n++];
    row->kind = kind;
    row->arity = arity;
    row->origin = NULL;
    row->values = cdc_arena_alloc(&batch->arena, sizeof(cdc_value_t) * (arity ? arity : 1));
    for (uint32_t i = 0; i < arity; i++)
        row->values[i].flags = CDC_V_NULL;
    return row;
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

/* ---- decimals ----------------------------------------------------------- */

cdc_i128 cdc_pow10_i128(int n)
{
    cdc_i128 v = 1;
    for (int i = 0; i < n; i++)
        v *= 10;
    return v;
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
    char digits[48];
    int nd = 0;
    bool neg = unscaled < 0;
    unsigned __int128 u =
        neg ? (unsigned __int128)(-(unscaled + 1)) + 1 : (unsigned __int128)unscaled;
    do {
        digits[nd++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (nd <= scale)
        digits[nd++] = '0';
    char *w = buf;
    if (neg)
        *w++ = '-';
    for (int i = nd - 1; i >= 0; i--) {
        *w++ = digits[i];
        if (i == scale && scale > 0)
            *w++ = '.';
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
    cdc_i128 v = 0;
    /* check before each step so that v * 10 + digit never leaves the int128 range */
    for (int k = 0; k < keep; k++) {
        int digit = dig[k] - '0';
        if (v > (limit - 1 - digit) / 10)
            return -1;
        v = v * 10 + digit;
    }
    for (long k = 0; k < shift && v != 0; k++) {
        if (v > (limit - 1) / 10)
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

/* Appends v in decimal without printf (the print path is hot in `decode`): two digits per
   division, written straight into the buffer. */
static void put_int(cdc_buf_t *out, int64_t v)
{
    static const char pairs[201] = "00010203040506070809101112131415161718192021222324252627282930"
                                   "31323334353637383940414243444546474849505152535455565758596061"
                                   "62636465666768697071727374757677787980818283848586878889909192"
                                   "93949596979899";
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    int n = 1;
    for (uint64_t t = u; t >= 10; t /= 10)
        n++;
    cdc_buf_reserve(out, (size_t)n + 1);
    char *w = out->data + out->len;
    if (v < 0)
        *w++ = '-';
    char *e = w + n;
    out->len = (size_t)(e - out->data);
    while (u >= 100) {
        unsigned i = (unsigned)(u % 100) * 2;
        u /= 100;
        *--e = pairs[i + 1];
        *--e = pairs[i];
    }
    if (u >= 10) {
        *--e = pairs[u * 2 + 1];
        *--e = pairs[u * 2];
    } else {
        *--e = (char)('0' + u);
    }
}

/* Appends v zero-padded to `width` digits (v >= 0). */
static void put_padded(cdc_buf_t *out, int64_t v, int width)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v && n < 20);
    while (n < width)
        tmp[n++] = '0';
    cdc_buf_reserve(out, (size_t)n);
    while (n)
        out->data[out->len++] = tmp[--n];
}

static void print_time_of_day(cdc_buf_t *out, int64_t nanos, int precision)
{
    int64_t secs = nanos / 1000000000LL;
    int64_t frac = nanos % 1000000000LL;
    put_padded(out, secs / 3600, 2);
    cdc_buf_putc(out, ':');
    put_padded(out, secs / 60 % 60, 2);
    cdc_buf_putc(out, ':');
    put_padded(out, secs % 60, 2);
    if (precision > 0) {
        int64_t scaled = frac;
        for (int k = precision; k < 9; k++)
            scaled /= 10;
        cdc_buf_putc(out, '.');
        put_padded(out, scaled, precision);
    }
}

static void print_date(cdc_buf_t *out, int64_t days)
{
    int64_t y;
    unsigned m, d;
    cdc_civil_from_days(days, &y, &m, &d);
    if (y < 0) {
        cdc_buf_putc(out, '-');
        y = -y;
    }
    put_padded(out, y, 4);
    cdc_buf_putc(out, '-');
    put_padded(out, m, 2);
    cdc_buf_putc(out, '-');
    put_padded(out, d, 2);
}

static void print_ts(cdc_buf_t *out, cdc_ts_t ts, int precision)
{
    int64_t days = ts.millis / 86400000LL;
    int64_t ms = ts.millis % 86400000LL;
    if (ms < 0) {
        ms += 86400000LL;
        days--;
    }
    print_date(out, days);
    cdc_buf_putc(out, 'T');
    print_time_of_day(out, ms * 1000000LL + ts.nanos, precision);
}

void cdc_value_print(cdc_buf_t *out, const cdc_value_t *v, const cdc_type_t *t)
{
    char tmp[64];
    if (v->flags & CDC_V_UNCHANGED) {
        cdc_buf_puts(out, "<unchanged>");
        return;
    }
    if (v->flags & CDC_V_NULL) {
        cdc_buf_puts(out, "null");
        return;
    }
    switch (t->root) {
    case CDC_T_BOOLEAN:
        cdc_buf_puts(out, v->v.b ? "true" : "false");
        break;
    case CDC_T_TINYINT:
    case CDC_T_SMALLINT:
    case CDC_T_INT:
    case CDC_T_BIGINT:
        put_int(out, v->v.i);
        break;
    case CDC_T_FLOAT:
        cdc_buf_append(out, tmp, (size_t)cdc_float_format(v->v.f, tmp));
        break;
    case CDC_T_DOUBLE:
        cdc_buf_append(out, tmp, (size_t)cdc_double_format(v->v.d, tmp));
        break;
    case CDC_T_DECIMAL:
        cdc_buf_append(out, tmp, (size_t)cdc_decimal_format(v->v.dec, t->scale, tmp));
        break;
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
    case CDC_T_DATE:
        print_date(out, v->v.i);
        break;
    case CDC_T_TIME:
        print_time_of_day(out, v->v.i, t->precision);
        break;
    case CDC_T_TIMESTAMP:
        print_ts(out, v->v.ts, t->precision);
        break;
    case CDC_T_TIMESTAMP_LTZ:
        print_ts(out, v->v.ts, t->precision);
        cdc_buf_putc(out, 'Z');
        break;
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
        cdc_buf_putc(out, '{');
        for (uint32_t i = 0; i < v->v.arr.n; i++) {
            if (i)
                cdc_buf_puts(out, ", ");
            cdc_value_print(out, &v->v.arr.elems[i], t->children[0]);
            cdc_buf_putc(out, '=');
            cdc_value_print(out, &v->v.arr.vals[i], t->children[1]);
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
    cdc_buf_append(out, cdc_kind_short(row->kind), 2);
    cdc_buf_putc(out, '[');
    for (uint32_t i = 0; i < row->arity && i < (uint32_t)row_type->nchildren; i++) {
        if (i)
            cdc_buf_append(out, ", ", 2);
        cdc_value_print(out, &row->values[i], row_type->children[i]);
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
