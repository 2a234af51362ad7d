/*
 * cdc_expr_time.c — Flink's date and time built-ins: EXTRACT and YEAR/MONTH/
 * ..., FLOOR/CEIL(x TO unit), TIMESTAMPADD, TIMESTAMPDIFF, timestamp +/-
 * INTERVAL literals, DATE_FORMAT, TO_TIMESTAMP, TO_DATE, TO_TIMESTAMP_LTZ,
 * UNIX_TIMESTAMP, FROM_UNIXTIME, CURRENT_TIMESTAMP, NOW, LOCALTIMESTAMP,
 * CURRENT_DATE, CURRENT_TIME, LOCALTIME.
 *
 * The session time zone is UTC (cdcflow has no 'table.local-time-zone'), so
 * TIMESTAMP_LTZ and TIMESTAMP values convert to each other unchanged. Format
 * patterns are Java DateTimeFormatter letters (y M d H h m s S a E D and
 * 'quoted text'); parsing must consume the whole text, and text that does not
 * parse gives NULL (UNIX_TIMESTAMP: Long.MIN_VALUE), as in Flink.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cdc_expr_int.h"
#include "cdc_util.h"
#include "cdc_value_text.h"

#define EVAL_KID CDC_XEVAL_KID
#define EVAL_KID_OR_NULL CDC_XEVAL_KID_OR_NULL
#define MS_PER_DAY 86400000LL

/* ---- units ---------------------------------------------------------------------------------- */

enum {
    U_YEAR,
    U_QUARTER,
    U_MONTH,
    U_WEEK,
    U_DAY,
    U_HOUR,
    U_MINUTE,
    U_SECOND,
    U_MILLISECOND,
    U_MICROSECOND,
    U_NANOSECOND,
    U_DOY,
    U_DOW,
    U_COUNT
};

static const char *const unit_names[U_COUNT] = {
    "YEAR",   "QUARTER",     "MONTH",       "WEEK",       "DAY", "HOUR", "MINUTE",
    "SECOND", "MILLISECOND", "MICROSECOND", "NANOSECOND", "DOY", "DOW"};

static int unit_find(const char *name)
{
    for (int u = 0; u < U_COUNT; u++)
        if (strcasecmp(unit_names[u], name) == 0)
            return u;
    /* TIMESTAMPADD/DIFF also take SQL_TSI_* and plural forms */
    if (strncasecmp(name, "SQL_TSI_", 8) == 0)
        return unit_find(name + 8);
    return -1;
}

/* Milliseconds of the fixed-length units WEEK..MILLISECOND; 0 for the others. */
static int64_t unit_ms(int u)
{
    static const int64_t ms[U_COUNT] = {
        [U_WEEK] = 7 * MS_PER_DAY, [U_DAY] = MS_PER_DAY, [U_HOUR] = 3600000,
        [U_MINUTE] = 60000,        [U_SECOND] = 1000,    [U_MILLISECOND] = 1};
    return ms[u];
}

/* ---- broken-down times ---------------------------------------------------------------------- */

typedef struct tparts {
    int64_t year;
    unsigned month, day;
    int hour, minute, second;
    int64_t nanos; /* of the second */
    int64_t days;  /* since the epoch */
} tparts_t;

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static void parts_from_ts(cdc_ts_t ts, tparts_t *p)
{
    p->days = floor_div(ts.millis, MS_PER_DAY);
    int64_t ms = ts.millis - p->days * MS_PER_DAY;
    cdc_civil_from_days(p->days, &p->year, &p->month, &p->day);
    p->hour = (int)(ms / 3600000);
    p->minute = (int)(ms / 60000 % 60);
    p->second = (int)(ms / 1000 % 60);
    p->nanos = ms % 1000 * 1000000 + ts.nanos;
}

static cdc_ts_t ts_from_parts(const tparts_t *p)
{
    int64_t days = cdc_days_from_civil(p->year, p->month, p->day);
    cdc_ts_t ts;
    ts.millis = days * MS_PER_DAY + (int64_t)p->hour * 3600000 + (int64_t)p->minute * 60000 +
                (int64_t)p->second * 1000 + p->nanos / 1000000;
    ts.nanos = (int32_t)(p->nanos % 1000000);
    return ts;
}

/* A DATE, TIME, TIMESTAMP or TIMESTAMP_LTZ value as a timestamp (TIME: on 1970-01-01). */
static cdc_ts_t as_ts(cdc_xcat_t c, const cdc_value_t *v)
{
    cdc_ts_t ts = {0, 0};
    if (c == CDC_XC_DATE) {
        ts.millis = v->v.i * MS_PER_DAY;
    } else if (c == CDC_XC_TIME) {
        ts.millis = v->v.i / 1000000;
        ts.nanos = (int32_t)(v->v.i % 1000000);
    } else {
        ts = v->v.ts;
    }
    return ts;
}

/* Stores timestamp ts as a value of class c (DATE: its day; TIME: its time of day). */
static void set_from_ts(cdc_xcat_t c, cdc_ts_t ts, cdc_value_t *out)
{
    out->flags = 0;
    if (c == CDC_XC_DATE) {
        out->v.i = floor_div(ts.millis, MS_PER_DAY);
    } else if (c == CDC_XC_TIME) {
        int64_t ms = ts.millis - floor_div(ts.millis, MS_PER_DAY) * MS_PER_DAY;
        out->v.i = ms * 1000000 + ts.nanos;
    } else {
        out->v.ts = ts;
    }
}

static bool is_leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned days_in_month(int64_t y, unsigned m)
{
    static const unsigned d[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : d[m - 1];
}

/* 1 = Sunday .. 7 = Saturday (1970-01-01 was a Thursday). */
static int day_of_week(int64_t days)
{
    return (int)((days % 7 + 7 + 4) % 7) + 1;
}

/* ISO 8601 week number. */
static int iso_week(const tparts_t *p)
{
    int iso_dow = (day_of_week(p->days) + 5) % 7 + 1; /* 1 = Monday */
    int64_t thursday = p->days - iso_dow + 4;
    int64_t y;
    unsigned m, d;
    cdc_civil_from_days(thursday, &y, &m, &d);
    return (int)((thursday - cdc_days_from_civil(y, 1, 1)) / 7 + 1);
}

/* ---- EXTRACT -------------------------------------------------------------------------------- */

static int64_t extract(int unit, const tparts_t *p)
{
    switch (unit) {
    case U_YEAR:
        return p->year;
    case U_QUARTER:
        return (p->month + 2) / 3;
    case U_MONTH:
        return p->month;
    case U_WEEK:
        return iso_week(p);
    case U_DAY:
        return p->day;
    case U_HOUR:
        return p->hour;
    case U_MINUTE:
        return p->minute;
    case U_SECOND:
        return p->second;
    case U_MILLISECOND:
        return p->second * 1000LL + p->nanos / 1000000;
    case U_MICROSECOND:
        return p->second * 1000000LL + p->nanos / 1000;
    case U_NANOSECOND:
        return p->second * 1000000000LL + p->nanos;
    case U_DOY:
        return p->days - cdc_days_from_civil(p->year, 1, 1) + 1;
    default: /* U_DOW */
        return day_of_week(p->days);
    }
}

/* kids: x; ival: unit */
static int eval_extract(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a;
    EVAL_KID_OR_NULL(0, &a);
    tparts_t p;
    parts_from_ts(as_ts(cdc_xcat(n->kids[0]->type), &a), &p);
    out->flags = 0;
    out->v.i = extract(n->ival, &p);
    return 0;
}

/* ---- FLOOR / CEIL (x TO unit) --------------------------------------------------------------- */

static cdc_ts_t floor_to(cdc_ts_t ts, int unit)
{
    tparts_t p;
    parts_from_ts(ts, &p);
    if (unit == U_WEEK) { /* weeks start on Sunday, as Calcite's */
        cdc_ts_t r = {(p.days - (day_of_week(p.days) - 1)) * MS_PER_DAY, 0};
        return r;
    }
    if (unit <= U_MONTH) {
        p.month = unit == U_YEAR ? 1 : unit == U_QUARTER ? (p.month - 1) / 3 * 3 + 1 : p.month;
        p.day = 1;
        p.hour = p.minute = p.second = 0;
        p.nanos = 0;
        return ts_from_parts(&p);
    }
    int64_t u = unit_ms(unit);
    cdc_ts_t r = {floor_div(ts.millis, u) * u, 0};
    return r;
}

/* Adds n units (calendar months for YEAR/QUARTER/MONTH: the day clamped to the month's end). */
static cdc_ts_t add_units(cdc_ts_t ts, int unit, int64_t n)
{
    if (unit <= U_MONTH) {
        int64_t months = n * (unit == U_YEAR ? 12 : unit == U_QUARTER ? 3 : 1);
        tparts_t p;
        parts_from_ts(ts, &p);
        int64_t m0 = p.year * 12 + (p.month - 1) + months;
        p.year = floor_div(m0, 12);
        p.month = (unsigned)(m0 - p.year * 12) + 1;
        unsigned dim = days_in_month(p.year, p.month);
        if (p.day > dim)
            p.day = dim;
        return ts_from_parts(&p);
    }
    ts.millis += n * unit_ms(unit);
    return ts;
}

/* kids: x; ival: unit; op: 1 for CEIL */
static int eval_floor_to(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a;
    EVAL_KID_OR_NULL(0, &a);
    cdc_xcat_t c = cdc_xcat(n->type);
    cdc_ts_t ts = as_ts(c, &a), f = floor_to(ts, n->ival);
    if (n->op && (f.millis != ts.millis || f.nanos != ts.nanos))
        f = add_units(f, n->ival, 1);
    set_from_ts(c, f, out);
    return 0;
}

/* ---- TIMESTAMPADD, TIMESTAMPDIFF, intervals ------------------------------------------------- */

/* kids: amount (BIGINT), x; ival: unit */
static int eval_tsadd(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t amount, a;
    EVAL_KID(0, &amount);
    EVAL_KID(1, &a);
    if (cdc_value_is_null(&amount) || cdc_value_is_null(&a)) {
        cdc_xset_null(out);
        return 0;
    }
    cdc_xcat_t c = cdc_xcat(n->type);
    int64_t amt = amount.v.i;
    if (amt > INT32_MAX * 1000LL || amt < INT32_MIN * 1000LL)
        return cdc_xerr(cx, "%s: amount %lld out of range", n->name, (long long)amt);
    set_from_ts(c, add_units(as_ts(cdc_xcat(n->kids[1]->type), &a), n->ival, amt), out);
    return 0;
}

/* kids: a, b; ival: unit. Whole units from a to b, truncated toward zero. */
static int eval_tsdiff(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a, b;
    EVAL_KID(0, &a);
    EVAL_KID(1, &b);
    if (cdc_value_is_null(&a) || cdc_value_is_null(&b)) {
        cdc_xset_null(out);
        return 0;
    }
    cdc_ts_t ta = as_ts(cdc_xcat(n->kids[0]->type), &a);
    cdc_ts_t tb = as_ts(cdc_xcat(n->kids[1]->type), &b);
    int64_t r;
    if (n->ival <= U_MONTH) {
        tparts_t pa, pb;
        parts_from_ts(ta, &pa);
        parts_from_ts(tb, &pb);
        int64_t months = (pb.year - pa.year) * 12 + (int64_t)pb.month - (int64_t)pa.month;
        /* the time into the month decides whether the last month is complete */
        int64_t ra = ta.millis - cdc_days_from_civil(pa.year, pa.month, 1) * MS_PER_DAY;
        int64_t rb = tb.millis - cdc_days_from_civil(pb.year, pb.month, 1) * MS_PER_DAY;
        if (months > 0 && rb < ra)
            months--;
        else if (months < 0 && rb > ra)
            months++;
        r = months / (n->ival == U_YEAR ? 12 : n->ival == U_QUARTER ? 3 : 1);
    } else {
        r = (tb.millis - ta.millis) / unit_ms(n->ival);
    }
    if (r > INT32_MAX || r < INT32_MIN)
        return cdc_xerr(cx, "TIMESTAMPDIFF: %lld does not fit INT", (long long)r);
    out->flags = 0;
    out->v.i = r;
    return 0;
}

/* ---- patterns ------------------------------------------------------------------------------- */

static const char *const month_names[12] = {"January",   "February", "March",    "April",
                                            "May",       "June",     "July",     "August",
                                            "September", "October",  "November", "December"};
static const char *const day_names[7] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                         "Thursday", "Friday", "Saturday"};

static bool is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The next pattern element at pat[*i]: a run of one letter (*letter, *count), or literal text
 * (*letter 0; *lit, *litlen; '' is a quote). Returns false at the end. */
static bool pat_next(const char *pat, size_t len, size_t *i, char *letter, int *count,
                     const char **lit, size_t *litlen, char *quote_buf)
{
    if (*i >= len)
        return false;
    char c = pat[*i];
    if (is_letter(c)) {
        size_t k = *i;
        while (k < len && pat[k] == c)
            k++;
        *letter = c;
        *count = (int)(k - *i);
        *i = k;
        return true;
    }
    *letter = 0;
    if (c == '\'') {
        if (*i + 1 < len && pat[*i + 1] == '\'') { /* '' */
            quote_buf[0] = '\'';
            *lit = quote_buf;
            *litlen = 1;
            *i += 2;
            return true;
        }
        size_t k = *i + 1;
        while (k < len && pat[k] != '\'')
            k++;
        *lit = pat + *i + 1;
        *litlen = k - *i - 1;
        *i = k < len ? k + 1 : k;
        return true;
    }
    *lit = pat + *i;
    *litlen = 1;
    (*i)++;
    return true;
}

/* The letters both the formatter and the parser know. */
static bool pat_letter_ok(char c)
{
    return strchr("yMdHhmsSaED", c) != NULL;
}

/* The first unsupported letter of pat, or 0. */
static char pat_check(const char *pat, size_t len)
{
    size_t i = 0;
    char letter, q[1];
    int count;
    const char *lit;
    size_t litlen;
    while (pat_next(pat, len, &i, &letter, &count, &lit, &litlen, q))
        if (letter && !pat_letter_ok(letter))
            return letter;
    return 0;
}

static size_t put_num(char *w, int64_t v, int width)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof(tmp), "%0*lld", width > 20 ? 20 : width, (long long)v);
    memcpy(w, tmp, (size_t)n);
    return (size_t)n;
}

/* Formats ts with pat into w (room: cdc_xfmt_room); returns the length, or -1 for an unsupported
 * letter. */
static long format_ts(cdc_ts_t ts, const char *pat, size_t len, char *w)
{
    tparts_t p;
    parts_from_ts(ts, &p);
    size_t i = 0, o = 0;
    char letter, q[1];
    int count;
    const char *lit;
    size_t litlen;
    while (pat_next(pat, len, &i, &letter, &count, &lit, &litlen, q)) {
        if (!letter) {
            memcpy(w + o, lit, litlen);
            o += litlen;
            continue;
        }
        switch (letter) {
        case 'y':
            o += count == 2 ? put_num(w + o, (p.year % 100 + 100) % 100, 2)
                            : put_num(w + o, p.year, count);
            break;
        case 'M':
            if (count >= 3) {
                const char *nm = month_names[p.month - 1];
                size_t nl = count == 3 ? 3 : strlen(nm);
                memcpy(w + o, nm, nl);
                o += nl;
            } else {
                o += put_num(w + o, p.month, count);
            }
            break;
        case 'd':
            o += put_num(w + o, p.day, count);
            break;
        case 'H':
            o += put_num(w + o, p.hour, count);
            break;
        case 'h':
            o += put_num(w + o, p.hour % 12 == 0 ? 12 : p.hour % 12, count);
            break;
        case 'm':
            o += put_num(w + o, p.minute, count);
            break;
        case 's':
            o += put_num(w + o, p.second, count);
            break;
        case 'S': { /* fraction of the second, count digits, truncated */
            char frac[10];
            snprintf(frac, sizeof(frac), "%09lld", (long long)p.nanos);
            for (int k = 0; k < count; k++)
                w[o++] = k < 9 ? frac[k] : '0';
            break;
        }
        case 'a':
            memcpy(w + o, p.hour < 12 ? "AM" : "PM", 2);
            o += 2;
            break;
        case 'E': {
            const char *nm = day_names[day_of_week(p.days) - 1];
            size_t nl = count <= 3 ? 3 : strlen(nm);
            memcpy(w + o, nm, nl);
            o += nl;
            break;
        }
        case 'D':
            o += put_num(w + o, extract(U_DOY, &p), count);
            break;
        default:
            return -1;
        }
    }
    return (long)o;
}

/* Output room format_ts may need for a pattern of len bytes. */
static size_t fmt_room(size_t len)
{
    return len * 10 + 32;
}

/* Reads a number of min..max digits at s[*k..len). */
static bool read_num(const char *s, size_t len, size_t *k, int min, int max, int64_t *v)
{
    return cdc_text_digits(s, len, k, min, max, v) == 0;
}

/* Matches one of names (prefix of nchars when > 0) case-insensitively; returns the index. */
static int read_name(const char *s, size_t len, size_t *k, const char *const *names, int nnames,
                     size_t nchars)
{
    for (int j = 0; j < nnames; j++) {
        size_t nl = nchars ? nchars : strlen(names[j]);
        if (*k + nl <= len && strncasecmp(s + *k, names[j], nl) == 0) {
            *k += nl;
            return j;
        }
    }
    return -1;
}

/* Parses s with pat (the whole text); fields not in the pattern default to 1970-01-01
 * 00:00:00. Returns false when the text does not match or names an impossible date. */
static bool parse_ts(const char *s, size_t len, const char *pat, size_t plen, cdc_ts_t *out)
{
    tparts_t p = {1970, 1, 1, 0, 0, 0, 0, 0};
    int pm = -1, hour12 = -1;
    size_t i = 0, k = 0;
    char letter, q[1];
    int count;
    const char *lit = NULL;
    size_t litlen = 0;
    while (pat_next(pat, plen, &i, &letter, &count, &lit, &litlen, q)) {
        int64_t v = 0;
        /* a number followed directly by another one takes exactly its letter count of digits
         * (Java's adjacent value parsing: "yyyyMMdd") */
        size_t peek_i = i, plitlen;
        char next_letter = 0, pq[1];
        int next_count = 0;
        const char *plit;
        pat_next(pat, plen, &peek_i, &next_letter, &next_count, &plit, &plitlen, pq);
        bool fixed = next_letter && strchr("yMdHhmsSD", next_letter) &&
                     (next_letter != 'M' || next_count < 3);
        if (!letter) {
            if (k + litlen > len || memcmp(s + k, lit, litlen) != 0)
                return false;
            k += litlen;
            continue;
        }
        switch (letter) {
        case 'y':
            if (!read_num(s, len, &k, fixed || count == 2 ? count : 1,
                          fixed || count == 2 ? count : 9, &v))
                return false;
            p.year = count == 2 ? 2000 + v : v;
            break;
        case 'M':
            if (count >= 3) {
                int j = read_name(s, len, &k, month_names, 12, count == 3 ? 3 : 0);
                if (j < 0)
                    return false;
                p.month = (unsigned)j + 1;
            } else {
                if (!read_num(s, len, &k, count, fixed ? count : 2, &v) || v < 1 || v > 12)
                    return false;
                p.month = (unsigned)v;
            }
            break;
        case 'd':
            if (!read_num(s, len, &k, count, fixed ? count : 2, &v) || v < 1 || v > 31)
                return false;
            p.day = (unsigned)v;
            break;
        case 'H':
            if (!read_num(s, len, &k, count, fixed ? count : 2, &v) || v > 23)
                return false;
            p.hour = (int)v;
            break;
        case 'h':
            if (!read_num(s, len, &k, count, fixed ? count : 2, &v) || v < 1 || v > 12)
                return false;
            hour12 = (int)v % 12;
            break;
        case 'm':
            if (!read_num(s, len, &k, count, fixed ? count : 2, &v) || v > 59)
                return false;
            p.minute = (int)v;
            break;
        case 's':
            if (!read_num(s, len, &k, count, fixed ? count : 2, &v) || v > 59)
                return false;
            p.second = (int)v;
            break;
        case 'S': {
            size_t k0 = k;
            if (!read_num(s, len, &k, count, count > 9 ? 9 : count, &v))
                return false;
            for (size_t d = k - k0; d < 9; d++)
                v *= 10;
            p.nanos = v;
            break;
        }
        case 'a': {
            static const char *const ampm[2] = {"AM", "PM"};
            if ((pm = read_name(s, len, &k, ampm, 2, 0)) < 0)
                return false;
            break;
        }
        case 'E':
            if (read_name(s, len, &k, day_names, 7, count <= 3 ? 3 : 0) < 0)
                return false;
            break;
        default: /* D and others: not parsed */
            return false;
        }
    }
    if (k != len || p.day > days_in_month(p.year, p.month))
        return false;
    if (hour12 >= 0)
        p.hour = hour12 + (pm == 1 ? 12 : 0);
    *out = ts_from_parts(&p);
    return true;
}

/* Parses s: with the pattern kids[fmt] when the node has it, else as Flink's default
 * ('yyyy-MM-dd HH:mm:ss' with an optional fraction; a bare date). */
static bool parse_value(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *s,
                        const cdc_value_t *fmt, bool date_only, cdc_ts_t *out)
{
    if (fmt)
        return parse_ts(s->v.s.ptr, s->v.s.len, fmt->v.s.ptr, fmt->v.s.len, out);
    (void)n;
    cdc_type_t t = {0};
    t.root = date_only ? CDC_T_DATE : CDC_T_TIMESTAMP;
    t.precision = 9;
    cdc_value_t v;
    if (cdc_value_from_text(&t, s->v.s.ptr, s->v.s.len, 0, cx->arena, &v, NULL) == CDC_TEXT_OK &&
        !cdc_value_is_null(&v)) {
        *out = as_ts(date_only ? CDC_XC_DATE : CDC_XC_TS, &v);
        return true;
    }
    if (date_only)
        return false;
    /* a bare date counts as midnight */
    t.root = CDC_T_DATE;
    if (cdc_value_from_text(&t, s->v.s.ptr, s->v.s.len, 0, cx->arena, &v, NULL) == CDC_TEXT_OK &&
        !cdc_value_is_null(&v)) {
        *out = as_ts(CDC_XC_DATE, &v);
        return true;
    }
    return false;
}

enum { P_TO_TIMESTAMP, P_TO_DATE, P_UNIX_TIMESTAMP, P_TO_TIMESTAMP_LTZ };

/* TO_TIMESTAMP/TO_DATE/TO_TIMESTAMP_LTZ(s [, fmt]) and UNIX_TIMESTAMP(s [, fmt]): kids s [, fmt];
 * ival: P_*. */
static int eval_parse(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t s, fmt;
    EVAL_KID(0, &s);
    bool with_fmt = n->nkids > 1;
    if (with_fmt)
        EVAL_KID(1, &fmt);
    if (cdc_value_is_null(&s) || (with_fmt && cdc_value_is_null(&fmt))) {
        cdc_xset_null(out);
        return 0;
    }
    cdc_ts_t ts;
    bool ok = parse_value(n, cx, &s, with_fmt ? &fmt : NULL, n->ival == P_TO_DATE, &ts);
    out->flags = 0;
    if (n->ival == P_UNIX_TIMESTAMP) {
        out->v.i = ok ? floor_div(ts.millis, 1000) : INT64_MIN;
        return 0;
    }
    if (!ok) {
        cdc_xset_null(out);
        return 0;
    }
    if (n->ival == P_TO_DATE) {
        out->v.i = floor_div(ts.millis, MS_PER_DAY);
    } else {
        ts.nanos = 0; /* TIMESTAMP(3) */
        out->v.ts = ts;
    }
    return 0;
}

enum { F_DATE_FORMAT, F_FROM_UNIXTIME };

/* DATE_FORMAT(x, fmt) (x a timestamp, a date or a string parsed as TO_TIMESTAMP does) and
 * FROM_UNIXTIME(seconds [, fmt]); ival: F_*. */
static int eval_format(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a, fmt;
    EVAL_KID(0, &a);
    bool with_fmt = n->nkids > 1;
    if (with_fmt)
        EVAL_KID(1, &fmt);
    if (cdc_value_is_null(&a) || (with_fmt && cdc_value_is_null(&fmt))) {
        cdc_xset_null(out);
        return 0;
    }
    static const char dflt[] = "yyyy-MM-dd HH:mm:ss";
    const char *pat = with_fmt ? fmt.v.s.ptr : dflt;
    size_t plen = with_fmt ? fmt.v.s.len : sizeof(dflt) - 1;
    cdc_ts_t ts;
    cdc_xcat_t c = cdc_xcat(n->kids[0]->type);
    if (n->ival == F_FROM_UNIXTIME) {
        if (a.v.i > INT64_MAX / 1000 || a.v.i < INT64_MIN / 1000)
            return cdc_xerr(cx, "FROM_UNIXTIME: %lld seconds is out of range", (long long)a.v.i);
        ts.millis = a.v.i * 1000;
        ts.nanos = 0;
    } else if (c == CDC_XC_STR) {
        if (!parse_value(n, cx, &a, NULL, false, &ts)) {
            cdc_xset_null(out);
            return 0;
        }
    } else {
        ts = as_ts(c, &a);
    }
    char *w = cdc_arena_alloc(cx->arena, fmt_room(plen));
    long len = format_ts(ts, pat, plen, w);
    if (len < 0) {
        cdc_xset_null(out);
        return 0;
    }
    cdc_xset_str(out, w, (size_t)len);
    return 0;
}

/* TO_TIMESTAMP_LTZ(number, precision): kids number; ival: 0 (seconds) or 3 (milliseconds). */
static int eval_ltz_from_number(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a;
    EVAL_KID_OR_NULL(0, &a);
    int64_t v = a.v.i;
    if (n->ival == 0 && (v > INT64_MAX / 1000 || v < INT64_MIN / 1000))
        return cdc_xerr(cx, "TO_TIMESTAMP_LTZ: %lld seconds is out of range", (long long)v);
    out->flags = 0;
    out->v.ts.millis = n->ival == 0 ? v * 1000 : v;
    out->v.ts.nanos = 0;
    return 0;
}

enum { N_TIMESTAMP, N_DATE, N_TIME, N_UNIX };

/* CURRENT_TIMESTAMP and friends: the wall clock at each evaluation; ival: N_*. */
static int eval_now(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    (void)cx;
    cdc_ts_t ts = {cdc_wall_ms(), 0};
    out->flags = 0;
    if (n->ival == N_UNIX)
        out->v.i = floor_div(ts.millis, 1000);
    else
        set_from_ts(n->ival == N_DATE   ? CDC_XC_DATE
                    : n->ival == N_TIME ? CDC_XC_TIME
                                        : CDC_XC_TS,
                    ts, out);
    return 0;
}

/* ---- compile -------------------------------------------------------------------------------- */

static bool is_datetime(const cdc_xnode_t *x)
{
    cdc_xcat_t c = cdc_xcat(x->type);
    return c == CDC_XC_DATE || c == CDC_XC_TIME || c == CDC_XC_TS || c == CDC_XC_LTZ;
}

/* Whether unit u applies to values of class c (no hours of a DATE, no days of a TIME). */
static bool unit_fits(int u, cdc_xcat_t c, bool extract_unit)
{
    if (c == CDC_XC_DATE)
        return u <= U_DAY || u == U_DOY || u == U_DOW || (extract_unit && u <= U_SECOND);
    if (c == CDC_XC_TIME)
        return u >= U_HOUR && u <= U_NANOSECOND;
    return true;
}

static cdc_xnode_t *unit_error(cdc_xcompiler_t *cc, const cdc_sql_expr_t *at, const char *fn,
                               const char *unit, const cdc_xnode_t *x)
{
    char buf[128];
    return cdc_xcerr(cc, at->line, at->col,
                     "units: YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND, MILLISECOND "
                     "(EXTRACT also MICROSECOND, NANOSECOND, DOY, DOW)",
                     "\"%s\" cannot use unit %s%s%s", fn, unit, x ? " on " : "",
                     x ? cdc_xtype_name(x->type, buf) : "");
}

/* One node of eval over x with unit; consumes x. */
static cdc_xnode_t *unit_node(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast, cdc_xeval_fn eval,
                              cdc_type_t *type, int unit, int op, cdc_xnode_t **kids, int nkids)
{
    cdc_xnode_t *n = cdc_xnode_new(eval, type, ast->line, ast->col);
    n->ival = unit;
    n->op = op;
    n->name = cdc_xstrdup(ast->call.name);
    return cdc_xadopt(cc, n, kids, nkids);
}

/* EXTRACT(unit FROM x) and YEAR(x)...: x compiled; consumes it. */
static cdc_xnode_t *make_extract(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                                 const cdc_sql_expr_t *at, int unit, const char *uname,
                                 cdc_xnode_t *x)
{
    if (!is_datetime(x) || unit < 0 || !unit_fits(unit, cdc_xcat(x->type), true)) {
        if (!is_datetime(x)) {
            cdc_xnode_t *args[1] = {x};
            return cdc_xbad_args(cc, ast, ast->call.name, "EXTRACT(unit FROM DATE|TIME|TIMESTAMP)",
                                 args, 1);
        }
        unit_error(cc, at, ast->call.name, uname, x);
        cdc_xnode_free(x);
        return NULL;
    }
    return unit_node(cc, ast, eval_extract, cdc_xtype_of(CDC_T_BIGINT, x->type->nullable), unit, 0,
                     &x, 1);
}

static bool is_unit_word(const cdc_sql_expr_t *e)
{
    return e->kind == CDC_SQL_EXPR_COLUMN && e->column.nparts == 1;
}

/* TIMESTAMPADD(unit, n, x) / TIMESTAMPDIFF(unit, a, b): the unit is a bare word. */
static cdc_xnode_t *compile_tsadd_diff(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast, bool diff)
{
    const char *fn = diff ? "TIMESTAMPDIFF" : "TIMESTAMPADD";
    if (ast->call.nargs != 3)
        return cdc_xcerr(cc, ast->line, ast->col, NULL,
                         "function \"%s\" takes 3 arguments, found %zu", fn, ast->call.nargs);
    const cdc_sql_expr_t *uw = ast->call.args[0];
    const char *uname = uw->column.parts[0];
    int unit = unit_find(uname);
    if (unit < 0 || unit > U_MILLISECOND)
        return unit_error(cc, uw, fn, uname, NULL);
    cdc_xnode_t *args[2];
    if (!cdc_xcompile_args(cc, (const cdc_sql_expr_t *const *)ast->call.args + 1, 2, args))
        return NULL;
    const char *sig = diff ? "TIMESTAMPDIFF(unit, DATE|TIMESTAMP, DATE|TIMESTAMP)"
                           : "TIMESTAMPADD(unit, INT, DATE|TIME|TIMESTAMP)";
    if (diff) {
        for (int i = 0; i < 2; i++)
            if (!is_datetime(args[i]) || cdc_xcat(args[i]->type) == CDC_XC_TIME)
                return cdc_xbad_args(cc, ast, fn, sig, args, 2);
        return unit_node(cc, ast, eval_tsdiff, cdc_xtype_of(CDC_T_INT, cdc_xany_nullable(args, 2)),
                         unit, 0, args, 2);
    }
    cdc_type_t *bigint = cdc_xtype_of(CDC_T_BIGINT, true);
    cdc_xcoerce_null(args[0], bigint);
    cdc_type_destroy(bigint);
    if (!cdc_xis_int(args[0]) || !is_datetime(args[1]))
        return cdc_xbad_args(cc, ast, fn, sig, args, 2);
    if (!unit_fits(unit, cdc_xcat(args[1]->type), false)) {
        unit_error(cc, uw, fn, uname, args[1]);
        cdc_xfree_args(args, 2);
        return NULL;
    }
    cdc_type_t *t = cdc_type_copy(args[1]->type);
    t->nullable = cdc_xany_nullable(args, 2);
    return unit_node(cc, ast, eval_tsadd, t, unit, 0, args, 2);
}

cdc_xnode_t *cdc_xtime_compile_special(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                                       bool *handled)
{
    const char *name = ast->call.name;
    size_t nargs = ast->call.nargs;
    *handled = false;
    bool extract = strcasecmp(name, "EXTRACT") == 0;
    bool floor = strcasecmp(name, "FLOOR") == 0;
    bool ceil = strcasecmp(name, "CEIL") == 0 || strcasecmp(name, "CEILING") == 0;
    bool tsadd = strcasecmp(name, "TIMESTAMPADD") == 0,
         tsdiff = strcasecmp(name, "TIMESTAMPDIFF") == 0;
    if ((tsadd || tsdiff) && nargs >= 1 && is_unit_word(ast->call.args[0])) {
        *handled = true;
        return compile_tsadd_diff(cc, ast, tsdiff);
    }
    if (nargs != 2)
        return NULL;
    const cdc_sql_expr_t *sym = ast->call.args[extract ? 0 : 1];
    if (!(extract || floor || ceil) || sym->kind != CDC_SQL_EXPR_LITERAL ||
        sym->literal.kind != CDC_SQL_LIT_SYMBOL)
        return NULL;
    *handled = true;
    const char *uname = sym->literal.text;
    int unit = unit_find(uname);
    cdc_xnode_t *x = cdc_xcompile(cc, ast->call.args[extract ? 1 : 0]);
    if (!x)
        return NULL;
    if (extract)
        return make_extract(cc, ast, sym, unit, uname, x);
    if (!is_datetime(x)) {
        cdc_xnode_t *args[1] = {x};
        return cdc_xbad_args(cc, ast, ast->call.name, "FLOOR|CEIL(DATE|TIME|TIMESTAMP TO unit)",
                             args, 1);
    }
    if (unit < 0 || unit > U_MILLISECOND || !unit_fits(unit, cdc_xcat(x->type), false)) {
        unit_error(cc, sym, ast->call.name, uname, x);
        cdc_xnode_free(x);
        return NULL;
    }
    return unit_node(cc, ast, eval_floor_to, cdc_type_copy(x->type), unit, ceil, &x, 1);
}

/* INTERVAL 'text' unit [TO unit] -> a count of months (YEAR/MONTH) or milliseconds. */
static bool interval_value(const char *text, const char *units, int *unit, int64_t *amount)
{
    static const char *const ordered[] = {"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"};
    static const int64_t scale[] = {12, 1, MS_PER_DAY, 3600000, 60000, 1000};
    char first[16] = "", last[16] = "";
    if (sscanf(units, "%15s TO %15s", first, last) < 1)
        return false;
    if (!last[0])
        strcpy(last, first);
    int a = -1, b = -1;
    for (int i = 0; i < 6; i++) {
        if (strcmp(ordered[i], first) == 0)
            a = i;
        if (strcmp(ordered[i], last) == 0)
            b = i;
    }
    if (a < 0 || b < a || (a <= 1) != (b <= 1))
        return false;
    const char *p = text;
    while (*p == ' ')
        p++;
    bool neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    int64_t total = 0;
    for (int i = a; i <= b; i++) {
        if (*p < '0' || *p > '9')
            return false;
        int64_t v = 0;
        while (*p >= '0' && *p <= '9' && v < INT64_MAX / 100)
            v = v * 10 + (*p++ - '0');
        int64_t part = v * scale[i];
        if (i == 5 && *p == '.') { /* fraction of a second, to milliseconds */
            p++;
            int64_t f = 0, d = 0;
            for (; *p >= '0' && *p <= '9'; p++, d++)
                if (d < 3)
                    f = f * 10 + (*p - '0');
            for (; d < 3; d++)
                f *= 10;
            part += f;
        }
        total += part;
        if (i < b) {
            char sep = i == 0 ? '-' : i == 2 ? ' ' : ':';
            if (*p != sep)
                return false;
            p++;
        }
    }
    while (*p == ' ')
        p++;
    if (*p)
        return false;
    *unit = a <= 1 ? U_MONTH : U_MILLISECOND;
    *amount = neg ? -total : total;
    return true;
}

int cdc_expr_interval_ms(const cdc_sql_expr_t *lit, int64_t *ms)
{
    int unit;
    if (!lit || lit->kind != CDC_SQL_EXPR_LITERAL || lit->literal.kind != CDC_SQL_LIT_INTERVAL ||
        !interval_value(lit->literal.text ? lit->literal.text : "",
                        lit->literal.unit ? lit->literal.unit : "", &unit, ms) ||
        unit != U_MILLISECOND)
        return -1;
    return 0;
}

cdc_xnode_t *cdc_xtime_interval_arith(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                                      const cdc_sql_expr_t *operand, const cdc_sql_expr_t *interval,
                                      bool subtract)
{
    int unit;
    int64_t amount;
    if (!interval_value(interval->literal.text ? interval->literal.text : "",
                        interval->literal.unit ? interval->literal.unit : "", &unit, &amount))
        return cdc_xcerr(cc, interval->line, interval->col,
                         "e.g. INTERVAL '5' SECOND, INTERVAL '1-2' YEAR TO MONTH, "
                         "INTERVAL '1 02:03:04.5' DAY TO SECOND",
                         "invalid INTERVAL '%s' %s", interval->literal.text,
                         interval->literal.unit ? interval->literal.unit : "");
    cdc_xnode_t *x = cdc_xcompile(cc, operand);
    if (!x)
        return NULL;
    cdc_xcat_t c = cdc_xcat(x->type);
    if (c == CDC_XC_DATE && unit == U_MILLISECOND && amount % MS_PER_DAY == 0) {
        unit = U_DAY; /* whole days keep a DATE a DATE */
        amount /= MS_PER_DAY;
    }
    if (!is_datetime(x) || !unit_fits(unit == U_MILLISECOND ? U_HOUR : unit, c, false)) {
        char buf[128];
        cdc_xcerr(cc, ast->line, ast->col,
                  c == CDC_XC_DATE ? "CAST the DATE to TIMESTAMP first"
                                   : "an INTERVAL is added to a DATE, TIME or TIMESTAMP",
                  "cannot apply \"%s\" to %s and INTERVAL %s", subtract ? "-" : "+",
                  cdc_xtype_name(x->type, buf), interval->literal.unit);
        cdc_xnode_free(x);
        return NULL;
    }
    cdc_xnode_t *lit = cdc_xnode_new(cdc_xeval_literal, cdc_xtype_of(CDC_T_BIGINT, false),
                                     interval->line, interval->col);
    lit->constant = true;
    lit->lit.v.i = subtract ? -amount : amount;
    cdc_xnode_t *kids[2] = {lit, x};
    cdc_type_t *t = cdc_type_copy(x->type);
    cdc_xnode_t *n = cdc_xnode_new(eval_tsadd, t, ast->line, ast->col);
    n->ival = unit;
    n->name = cdc_xstrdup(subtract ? "-" : "+");
    return cdc_xadopt(cc, n, kids, 2);
}

/* YEAR(x), MONTH(x), ...: variant = unit. */
static cdc_xnode_t *f_part(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                           const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    (void)nargs;
    return make_extract(cc, ast, ast, def->variant, unit_names[def->variant], args[0]);
}

/* A constant pattern with a letter the engine does not know is a plan-time error. */
static bool check_pattern(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast, const cdc_xnode_t *fmt,
                          int argno)
{
    if (fmt->eval != cdc_xeval_literal || cdc_value_is_null(&fmt->lit))
        return true;
    char bad = pat_check(fmt->lit.v.s.ptr, fmt->lit.v.s.len);
    if (!bad)
        return true;
    const cdc_sql_expr_t *at = ast->call.args[argno];
    cdc_xcerr(cc, at->line, at->col, "supported letters: y M d H h m s S a E D, 'quoted text'",
              "pattern letter '%c' is not supported in \"%s\"", bad, ast->call.name);
    return false;
}

/* TO_TIMESTAMP, TO_DATE, UNIX_TIMESTAMP, TO_TIMESTAMP_LTZ, DATE_FORMAT, FROM_UNIXTIME. */
static cdc_xnode_t *f_conv(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                           const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    int v = def->variant;
    bool format = v >= 10; /* DATE_FORMAT, FROM_UNIXTIME */
    if (v == P_UNIX_TIMESTAMP && nargs == 0) {
        cdc_xnode_t *n =
            cdc_xnode_new(eval_now, cdc_xtype_of(CDC_T_BIGINT, false), ast->line, ast->col);
        n->ival = N_UNIX;
        return n; /* not constant: the clock */
    }
    cdc_type_t *str = cdc_xstring_type(true), *bigint = cdc_xtype_of(CDC_T_BIGINT, true);
    for (int i = 1; i < nargs; i++)
        cdc_xcoerce_null(args[i], str);
    bool numeric0 = v == 10 + F_FROM_UNIXTIME || v == P_TO_TIMESTAMP_LTZ;
    cdc_xcoerce_null(args[0], numeric0 ? bigint : str);
    cdc_type_destroy(str);
    cdc_type_destroy(bigint);
    cdc_xcat_t c0;
    c0 = cdc_xcat(args[0]->type);
    if (v == P_TO_TIMESTAMP_LTZ && (c0 == CDC_XC_INT || c0 == CDC_XC_DEC || c0 == CDC_XC_DOUBLE)) {
        int prec = 3;
        if (nargs > 1) {
            if (args[1]->eval != cdc_xeval_literal || !cdc_xis_int(args[1]) ||
                (args[1]->lit.v.i != 0 && args[1]->lit.v.i != 3)) {
                const cdc_sql_expr_t *at = ast->call.args[1];
                cdc_xfree_args(args, nargs);
                return cdc_xcerr(cc, at->line, at->col, "0 for seconds, 3 for milliseconds",
                                 "the precision of \"TO_TIMESTAMP_LTZ\" must be the constant 0 "
                                 "or 3");
            }
            prec = (int)args[1]->lit.v.i;
            cdc_xnode_free(args[1]);
        }
        cdc_type_t *bigint = cdc_xtype_of(CDC_T_BIGINT, args[0]->type->nullable);
        cdc_xnode_t *x = cdc_xwrap_cast(cc, args[0], bigint);
        cdc_type_destroy(bigint);
        if (!x)
            return NULL;
        cdc_type_t *t = cdc_type_new_sized(CDC_T_TIMESTAMP_LTZ, 3);
        t->nullable = x->type->nullable;
        return unit_node(cc, ast, eval_ltz_from_number, t, prec, 0, &x, 1);
    }
    bool ok = true;
    for (int i = 1; i < nargs; i++)
        ok = ok && cdc_xis_str(args[i]);
    if (v == 10 + F_FROM_UNIXTIME)
        ok = ok && cdc_xis_int(args[0]);
    else if (v == 10 + F_DATE_FORMAT)
        ok = ok && (c0 == CDC_XC_STR || c0 == CDC_XC_TS || c0 == CDC_XC_LTZ || c0 == CDC_XC_DATE);
    else
        ok = ok && c0 == CDC_XC_STR;
    if (!ok)
        return cdc_xbad(cc, ast, def, args, nargs);
    if (nargs > 1 && !check_pattern(cc, ast, args[1], 1)) {
        cdc_xfree_args(args, nargs);
        return NULL;
    }
    bool nullable = cdc_xany_nullable(args, nargs);
    cdc_type_t *t;
    cdc_xeval_fn eval = format ? eval_format : eval_parse;
    if (format)
        t = cdc_xstring_type(nullable || c0 == CDC_XC_STR);
    else if (v == P_TO_DATE)
        t = cdc_xtype_of(CDC_T_DATE, true);
    else if (v == P_UNIX_TIMESTAMP)
        t = cdc_xtype_of(CDC_T_BIGINT, nullable);
    else
        t = cdc_type_new_sized(v == P_TO_TIMESTAMP_LTZ ? CDC_T_TIMESTAMP_LTZ : CDC_T_TIMESTAMP, 3);
    t->nullable = t->nullable || nullable || (!format && v != P_UNIX_TIMESTAMP);
    return unit_node(cc, ast, eval, t, format ? v - 10 : v, 0, args, nargs);
}

/* CURRENT_TIMESTAMP, NOW(), LOCALTIMESTAMP, CURRENT_DATE, CURRENT_TIME, LOCALTIME: evaluated per
 * row (never folded). */
static cdc_xnode_t *f_now(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                          const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    (void)cc;
    (void)args;
    (void)nargs;
    cdc_type_t *t =
        def->variant == N_DATE ? cdc_xtype_of(CDC_T_DATE, false)
        : def->variant == N_TIME
            ? cdc_type_new_sized(CDC_T_TIME, 0)
            : cdc_type_new_sized(strstr(def->name, "LOCAL") ? CDC_T_TIMESTAMP : CDC_T_TIMESTAMP_LTZ,
                                 3);
    t->nullable = false;
    cdc_xnode_t *n = cdc_xnode_new(eval_now, t, ast->line, ast->col);
    n->ival = def->variant;
    return n;
}

const cdc_xfunc_def_t cdc_xfuncs_time[] = {
    {"YEAR", 1, 1, f_part, U_YEAR, "YEAR(DATE|TIMESTAMP)"},
    {"QUARTER", 1, 1, f_part, U_QUARTER, "QUARTER(DATE|TIMESTAMP)"},
    {"MONTH", 1, 1, f_part, U_MONTH, "MONTH(DATE|TIMESTAMP)"},
    {"WEEK", 1, 1, f_part, U_WEEK, "WEEK(DATE|TIMESTAMP)"},
    {"DAYOFYEAR", 1, 1, f_part, U_DOY, "DAYOFYEAR(DATE|TIMESTAMP)"},
    {"DAYOFMONTH", 1, 1, f_part, U_DAY, "DAYOFMONTH(DATE|TIMESTAMP)"},
    {"DAYOFWEEK", 1, 1, f_part, U_DOW, "DAYOFWEEK(DATE|TIMESTAMP)"},
    {"HOUR", 1, 1, f_part, U_HOUR, "HOUR(TIME|TIMESTAMP)"},
    {"MINUTE", 1, 1, f_part, U_MINUTE, "MINUTE(TIME|TIMESTAMP)"},
    {"SECOND", 1, 1, f_part, U_SECOND, "SECOND(TIME|TIMESTAMP)"},
    {"TO_TIMESTAMP", 1, 2, f_conv, P_TO_TIMESTAMP, "TO_TIMESTAMP(STRING [, STRING])"},
    {"TO_DATE", 1, 2, f_conv, P_TO_DATE, "TO_DATE(STRING [, STRING])"},
    {"UNIX_TIMESTAMP", 0, 2, f_conv, P_UNIX_TIMESTAMP, "UNIX_TIMESTAMP([STRING [, STRING]])"},
    {"TO_TIMESTAMP_LTZ", 1, 2, f_conv, P_TO_TIMESTAMP_LTZ,
     "TO_TIMESTAMP_LTZ(NUMERIC [, 0 | 3]) or TO_TIMESTAMP_LTZ(STRING [, STRING])"},
    {"DATE_FORMAT", 2, 2, f_conv, 10 + F_DATE_FORMAT, "DATE_FORMAT(TIMESTAMP|STRING, STRING)"},
    {"FROM_UNIXTIME", 1, 2, f_conv, 10 + F_FROM_UNIXTIME, "FROM_UNIXTIME(BIGINT [, STRING])"},
    {"CURRENT_TIMESTAMP", 0, 0, f_now, N_TIMESTAMP, "CURRENT_TIMESTAMP"},
    {"NOW", 0, 0, f_now, N_TIMESTAMP, "NOW()"},
    {"CURRENT_ROW_TIMESTAMP", 0, 0, f_now, N_TIMESTAMP, "CURRENT_ROW_TIMESTAMP()"},
    {"LOCALTIMESTAMP", 0, 0, f_now, N_TIMESTAMP, "LOCALTIMESTAMP"},
    {"CURRENT_DATE", 0, 0, f_now, N_DATE, "CURRENT_DATE"},
    {"CURRENT_TIME", 0, 0, f_now, N_TIME, "CURRENT_TIME"},
    {"LOCALTIME", 0, 0, f_now, N_TIME, "LOCALTIME"},
    {NULL, 0, 0, NULL, 0, NULL},
};
