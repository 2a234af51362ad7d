/*
 * cdc_expr_func.c — built-in scalar functions, LIKE, UTF-8 helpers and user
 * functions (cdc_udf_def_t from cdc.h) for the expression engine.
 *
 * Built-ins: UPPER, LOWER, TRIM, LTRIM, RTRIM, CONCAT, CONCAT_WS,
 * SUBSTRING/SUBSTR, CHAR_LENGTH/CHARACTER_LENGTH, ABS, MOD, ROUND, FLOOR,
 * CEIL/CEILING, COALESCE, IF, NULLIF, CARDINALITY, ELEMENT; the lookup also
 * searches the tables of cdc_expr_str.c, cdc_expr_time.c and cdc_expr_json.c,
 * and the helpers they share are here. Names compare case-insensitively.
 * Strings are UTF-8: lengths and positions count code points (an invalid
 * byte counts as one character); UPPER/LOWER change ASCII letters only.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cdc_expr_int.h"
#include "cdc_options.h"

/* ---- UTF-8 ---------------------------------------------------------------------------------- */

size_t cdc_xutf8_len(const char *s, size_t len)
{
    unsigned char c = (unsigned char)s[0];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    if (n > len)
        return 1;
    for (size_t i = 1; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            return 1;
    return n;
}

size_t cdc_xutf8_count(const char *s, size_t len)
{
    size_t count = 0;
    for (size_t i = 0; i < len; i += cdc_xutf8_len(s + i, len - i))
        count++;
    return count;
}

size_t cdc_xutf8_offset(const char *s, size_t len, size_t nchars)
{
    size_t i = 0;
    while (nchars > 0 && i < len) {
        i += cdc_xutf8_len(s + i, len - i);
        nchars--;
    }
    return i;
}

void cdc_xset_str(cdc_value_t *out, const char *p, size_t len)
{
    out->flags = 0;
    out->v.s.ptr = p;
    out->v.s.len = (uint32_t)len;
}

#define EVAL_KID CDC_XEVAL_KID
#define EVAL_KID_OR_NULL CDC_XEVAL_KID_OR_NULL

/* ---- LIKE ----------------------------------------------------------------------------------- */

enum { PT_END, PT_ANY, PT_STAR, PT_LIT };

typedef struct pattern {
    const char *p;
    size_t len;
    const char *esc; /* NULL when no ESCAPE */
    size_t esclen;
} pattern_t;

static int pat_next(const pattern_t *pt, size_t *i, const char **lit, size_t *litlen)
{
    if (*i >= pt->len)
        return PT_END;
    size_t cl = cdc_xutf8_len(pt->p + *i, pt->len - *i);
    if (pt->esc && cl == pt->esclen && memcmp(pt->p + *i, pt->esc, cl) == 0) {
        *i += cl; /* validated: a character follows */
        cl = cdc_xutf8_len(pt->p + *i, pt->len - *i);
    } else if (pt->p[*i] == '%') {
        (*i)++;
        return PT_STAR;
    } else if (pt->p[*i] == '_') {
        (*i)++;
        return PT_ANY;
    }
    *lit = pt->p + *i;
    *litlen = cl;
    *i += cl;
    return PT_LIT;
}

/* An escape must be followed by %, _ or the escape itself. */
static bool pat_valid(const pattern_t *pt)
{
    if (!pt->esc)
        return true;
    for (size_t i = 0; i < pt->len;) {
        size_t cl = cdc_xutf8_len(pt->p + i, pt->len - i);
        if (cl == pt->esclen && memcmp(pt->p + i, pt->esc, cl) == 0) {
            i += cl;
            if (i >= pt->len)
                return false;
            size_t nl = cdc_xutf8_len(pt->p + i, pt->len - i);
            bool self = nl == pt->esclen && memcmp(pt->p + i, pt->esc, nl) == 0;
            if (!self && pt->p[i] != '%' && pt->p[i] != '_')
                return false;
            i += nl;
        } else {
            i += cl;
        }
    }
    return true;
}

/* Wildcard matching with backtracking to the last %: O(len(s) * len(p)) at worst. */
static bool pat_match(const pattern_t *pt, const char *s, size_t slen)
{
    size_t pi = 0, si = 0, star_pi = 0, star_si = 0;
    bool star = false;
    const char *lit = NULL;
    size_t ll = 0;
    while (si < slen) {
        int k = pat_next(pt, &pi, &lit, &ll);
        if (k == PT_STAR) {
            star = true;
            star_pi = pi;
            star_si = si;
            continue;
        }
        if (k == PT_ANY) {
            si += cdc_xutf8_len(s + si, slen - si);
            continue;
        }
        if (k == PT_LIT && ll <= slen - si && memcmp(s + si, lit, ll) == 0) {
            si += ll;
            continue;
        }
        if (!star)
            return false;
        star_si += cdc_xutf8_len(s + star_si, slen - star_si);
        si = star_si;
        pi = star_pi;
    }
    for (;;) {
        int k = pat_next(pt, &pi, &lit, &ll);
        if (k != PT_STAR)
            return k == PT_END;
    }
}

int cdc_xeval_like(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t s, p, e;
    pattern_t pt = {0};
    EVAL_KID(0, &s);
    EVAL_KID(1, &p);
    bool is_null = cdc_value_is_null(&s) || cdc_value_is_null(&p);
    if (n->nkids > 2) {
        EVAL_KID(2, &e);
        if (cdc_value_is_null(&e)) {
            is_null = true;
        } else {
            if (e.v.s.len == 0 || cdc_xutf8_len(e.v.s.ptr, e.v.s.len) != e.v.s.len)
                return cdc_xerr(cx, "invalid escape character '%.*s' in LIKE", (int)e.v.s.len,
                                e.v.s.ptr);
            pt.esc = e.v.s.ptr;
            pt.esclen = e.v.s.len;
        }
    }
    if (is_null) {
        cdc_xset_null(out);
        return 0;
    }
    pt.p = p.v.s.ptr;
    pt.len = p.v.s.len;
    if (!pat_valid(&pt))
        return cdc_xerr(cx, "invalid escape sequence in LIKE pattern '%.*s'", (int)p.v.s.len,
                        p.v.s.ptr);
    out->flags = 0;
    out->v.b = pat_match(&pt, s.v.s.ptr, s.v.s.len) != n->negated;
    return 0;
}

/* ---- string functions ----------------------------------------------------------------------- */

static int eval_case_map(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a;
    EVAL_KID(0, &a);
    if (cdc_value_is_null(&a)) {
        cdc_xset_null(out);
        return 0;
    }
    char *p = cdc_arena_alloc(cx->arena, a.v.s.len ? a.v.s.len : 1);
    bool upper = n->ival != 0;
    for (uint32_t i = 0; i < a.v.s.len; i++) {
        char c = a.v.s.ptr[i];
        if (upper && c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        else if (!upper && c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        p[i] = c;
    }
    cdc_xset_str(out, p, a.v.s.len);
    return 0;
}

static bool in_set(const char *set, size_t setlen, const char *c, size_t cl)
{
    for (size_t i = 0; i < setlen;) {
        size_t l = cdc_xutf8_len(set + i, setlen - i);
        if (l == cl && memcmp(set + i, c, cl) == 0)
            return true;
        i += l;
    }
    return false;
}

enum { TRIM_BOTH, TRIM_LEADING, TRIM_TRAILING };

/* kids: characters, string; ival: TRIM_* */
static int eval_trim(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t set, s;
    EVAL_KID(0, &set);
    EVAL_KID(1, &s);
    if (cdc_value_is_null(&set) || cdc_value_is_null(&s)) {
        cdc_xset_null(out);
        return 0;
    }
    const char *p = s.v.s.ptr;
    size_t start = 0, end = s.v.s.len;
    if (n->ival != TRIM_TRAILING) {
        while (start < end) {
            size_t cl = cdc_xutf8_len(p + start, end - start);
            if (!in_set(set.v.s.ptr, set.v.s.len, p + start, cl))
                break;
            start += cl;
        }
    }
    if (n->ival != TRIM_LEADING) {
        while (end > start) {
            size_t b = end - 1;
            while (b > start && ((unsigned char)p[b] & 0xC0) == 0x80 && end - b < 4)
                b--;
            size_t cl = cdc_xutf8_len(p + b, end - b);
            if (b + cl != end) { /* not a whole character: the last byte alone */
                b = end - 1;
                cl = 1;
            }
            if (!in_set(set.v.s.ptr, set.v.s.len, p + b, cl))
                break;
            end = b;
        }
    }
    cdc_xset_str(out, p + start, end - start);
    return 0;
}

/* CONCAT: NULL when any argument is NULL. */
static int eval_concat(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t vals[16];
    cdc_value_t *v = n->nkids <= 16 ? vals : cdc_arena_alloc(cx->arena, sizeof(*v) * n->nkids);
    size_t len = 0;
    for (int i = 0; i < n->nkids; i++) {
        EVAL_KID(i, &v[i]);
        if (cdc_value_is_null(&v[i])) {
            cdc_xset_null(out);
            return 0;
        }
        len += v[i].v.s.len;
    }
    if (len > UINT32_MAX)
        return cdc_xerr(cx, "string too long");
    char *p = cdc_arena_alloc(cx->arena, len ? len : 1), *w = p;
    for (int i = 0; i < n->nkids; i++) {
        memcpy(w, v[i].v.s.ptr, v[i].v.s.len);
        w += v[i].v.s.len;
    }
    cdc_xset_str(out, p, len);
    return 0;
}

/* CONCAT_WS(sep, ...): NULL when sep is NULL; NULL arguments are skipped. */
static int eval_concat_ws(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t vals[16];
    cdc_value_t *v = n->nkids <= 16 ? vals : cdc_arena_alloc(cx->arena, sizeof(*v) * n->nkids);
    EVAL_KID(0, &v[0]);
    if (cdc_value_is_null(&v[0])) {
        cdc_xset_null(out);
        return 0;
    }
    size_t len = 0;
    int count = 0;
    for (int i = 1; i < n->nkids; i++) {
        EVAL_KID(i, &v[i]);
        if (cdc_value_is_null(&v[i]))
            continue;
        len += v[i].v.s.len + (count++ ? v[0].v.s.len : 0);
    }
    if (len > UINT32_MAX)
        return cdc_xerr(cx, "string too long");
    char *p = cdc_arena_alloc(cx->arena, len ? len : 1), *w = p;
    count = 0;
    for (int i = 1; i < n->nkids; i++) {
        if (cdc_value_is_null(&v[i]))
            continue;
        if (count++) {
            memcpy(w, v[0].v.s.ptr, v[0].v.s.len);
            w += v[0].v.s.len;
        }
        memcpy(w, v[i].v.s.ptr, v[i].v.s.len);
        w += v[i].v.s.len;
    }
    cdc_xset_str(out, p, len);
    return 0;
}

/*
 * SUBSTRING(s, pos [, len]) as Flink's BinaryStringDataUtil.substringSQL: pos is 1-based,
 * 0 counts as 1, a negative pos counts from the end; a start past either end gives '';
 * a negative len gives NULL; the end is clamped to the string.
 */
static int eval_substring(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t s, pos, len;
    EVAL_KID(0, &s);
    EVAL_KID(1, &pos);
    len.flags = 0;
    len.v.i = INT64_MAX;
    if (n->nkids > 2)
        EVAL_KID(2, &len);
    if (cdc_value_is_null(&s) || cdc_value_is_null(&pos) || cdc_value_is_null(&len) ||
        len.v.i < 0) {
        cdc_xset_null(out);
        return 0;
    }
    int64_t nchars = (int64_t)cdc_xutf8_count(s.v.s.ptr, s.v.s.len), start;
    if (pos.v.i > 0) {
        start = pos.v.i - 1;
        if (start >= nchars) {
            cdc_xset_str(out, s.v.s.ptr, 0);
            return 0;
        }
    } else if (pos.v.i < 0) {
        if (pos.v.i < -nchars) {
            cdc_xset_str(out, s.v.s.ptr, 0);
            return 0;
        }
        start = nchars + pos.v.i;
    } else {
        start = 0;
    }
    int64_t end = nchars - start < len.v.i ? nchars : start + len.v.i;
    size_t b0 = cdc_xutf8_offset(s.v.s.ptr, s.v.s.len, (size_t)start);
    size_t b1 = b0 + cdc_xutf8_offset(s.v.s.ptr + b0, s.v.s.len - b0, (size_t)(end - start));
    cdc_xset_str(out, s.v.s.ptr + b0, b1 - b0);
    return 0;
}

static int eval_char_length(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t s;
    EVAL_KID(0, &s);
    if (cdc_value_is_null(&s)) {
        cdc_xset_null(out);
        return 0;
    }
    out->flags = 0;
    out->v.i = (int64_t)cdc_xutf8_count(s.v.s.ptr, s.v.s.len);
    return 0;
}

/* ---- numeric functions ---------------------------------------------------------------------- */

/* HALF_UP rounding of a double at @p digits fraction digits, on its shortest decimal text
 * (Java's BigDecimal.valueOf(x).setScale(digits, HALF_UP)). */
static double round_fp(double x, int digits, bool is_float)
{
    if (!isfinite(x))
        return x;
    if (x == 0)
        return 0.0; /* BigDecimal has no negative zero */
    char text[64];
    if (is_float)
        cdc_float_format((float)x, text);
    else
        cdc_double_format(x, text);
    /* text: [-]digits.digits[E[-]exp] -> value = 0.D * 10^e10 */
    bool neg = text[0] == '-';
    char d[40];
    int nd = 0, e10 = 0, intdigits = 0;
    bool dot = false;
    const char *p = text + neg;
    for (; *p && *p != 'E'; p++) {
        if (*p == '.') {
            dot = true;
            continue;
        }
        if (!dot)
            intdigits++;
        if (nd < (int)sizeof(d) - 1)
            d[nd++] = *p;
    }
    e10 = intdigits + (*p == 'E' ? atoi(p + 1) : 0);
    /* drop leading zeros */
    int lead = 0;
    while (lead < nd - 1 && d[lead] == '0') {
        lead++;
        e10--;
    }
    memmove(d, d + lead, (size_t)(nd - lead));
    nd -= lead;
    int keep = e10 + digits; /* digits kept before the rounding position */
    if (keep >= nd)
        return x;
    if (keep < 0)
        return 0.0;
    bool up = d[keep] >= '5';
    nd = keep;
    if (up) {
        int i = nd - 1;
        while (i >= 0 && d[i] == '9')
            d[i--] = '0';
        if (i >= 0) {
            d[i]++;
        } else {
            memmove(d + 1, d, (size_t)nd);
            d[0] = '1';
            nd++;
            e10++;
        }
    }
    if (nd == 0)
        return 0.0;
    d[nd] = '\0';
    char out[80];
    snprintf(out, sizeof(out), "%s0.%se%d", neg ? "-" : "", d, e10);
    return is_float ? (double)strtof(out, NULL) : strtod(out, NULL);
}

/* kids: x; ival: digits */
static int eval_round(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a;
    EVAL_KID(0, &a);
    if (cdc_value_is_null(&a)) {
        cdc_xset_null(out);
        return 0;
    }
    int d = n->ival;
    out->flags = 0;
    switch (cdc_xcat(n->type)) {
    case CDC_XC_INT: {
        out->v.i = a.v.i;
        if (d >= 0)
            return 0;
        if (d < -18) {
            out->v.i = 0;
            return 0;
        }
        int64_t f = 1;
        for (int i = 0; i < -d; i++)
            f *= 10;
        int64_t q = a.v.i / f, r = a.v.i % f;
        if (r >= f - r)
            q++;
        else if (-r >= f + r)
            q--;
        uint64_t v = (uint64_t)q * (uint64_t)f;
        switch (n->bits) {
        case 8:
            out->v.i = (int8_t)(uint8_t)v;
            break;
        case 16:
            out->v.i = (int16_t)(uint16_t)v;
            break;
        case 32:
            out->v.i = (int32_t)(uint32_t)v;
            break;
        default:
            out->v.i = (int64_t)v;
        }
        return 0;
    }
    case CDC_XC_DEC: {
        int s = n->kids[0]->type->scale, p = n->type->precision;
        cdc_i128 r;
        int rc;
        if (d >= 0) {
            rc = cdc_xdec_rescale(a.v.dec, s, p, d < s ? d : s, &r);
        } else {
            /* round at 10^-d: see the value at scale s - d, round to scale 0, scale back up */
            cdc_i128 q;
            rc = cdc_xdec_rescale(a.v.dec, s - d, CDC_MAX_DECIMAL_PRECISION, 0, &q);
            if (rc == 0)
                rc = cdc_xdec_rescale(q, 0, p, -d, &r);
        }
        if (rc < 0)
            return cdc_xerr(cx, "value out of range for %s", n->name);
        out->v.dec = r;
        return 0;
    }
    case CDC_XC_FLOAT:
        out->v.f = (float)round_fp((double)a.v.f, d, true);
        return 0;
    default:
        out->v.d = round_fp(a.v.d, d, false);
        return 0;
    }
}

/* kids: x; ival: 1 for CEIL */
static int eval_floor_ceil(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a;
    EVAL_KID(0, &a);
    if (cdc_value_is_null(&a)) {
        cdc_xset_null(out);
        return 0;
    }
    out->flags = 0;
    switch (cdc_xcat(n->type)) {
    case CDC_XC_DEC:
        out->v.dec = cdc_xdec_floor_ceil(a.v.dec, n->kids[0]->type->scale, n->ival != 0);
        break;
    case CDC_XC_FLOAT:
        out->v.f = n->ival ? ceilf(a.v.f) : floorf(a.v.f);
        break;
    default:
        out->v.d = n->ival ? ceil(a.v.d) : floor(a.v.d);
        break;
    }
    return 0;
}

/* ---- collections ---------------------------------------------------------------------------- */

/* CARDINALITY(array | map): the number of elements (entries). */
static int eval_cardinality(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a;
    EVAL_KID_OR_NULL(0, &a);
    out->flags = 0;
    out->v.i = a.v.arr.n;
    return 0;
}

/* CARDINALITY(multiset): the number of elements counting duplicates, the sum of the counts. */
static int eval_cardinality_multiset(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a;
    EVAL_KID_OR_NULL(0, &a);
    int64_t sum = 0;
    for (uint32_t i = 0; i < a.v.arr.n; i++)
        sum += a.v.arr.vals[i].v.i;
    if (sum > INT32_MAX)
        return cdc_xerr(cx, "CARDINALITY: the multiset has %lld elements, more than INT holds",
                        (long long)sum);
    out->flags = 0;
    out->v.i = sum;
    return 0;
}

/* ELEMENT(array): the only element; NULL for an empty array; an error for more than one. */
static int eval_element(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a;
    EVAL_KID(0, &a);
    if (cdc_value_is_null(&a) || a.v.arr.n == 0) {
        cdc_xset_null(out);
        return 0;
    }
    if (a.v.arr.n > 1)
        return cdc_xerr(cx, "ELEMENT: the array has %u elements, expected at most one",
                        (unsigned)a.v.arr.n);
    *out = a.v.arr.elems[0];
    return 0;
}

/* CARDINALITY (variant 0) of an ARRAY, MAP or MULTISET, ELEMENT (variant 1) of an ARRAY */
static cdc_xnode_t *f_collection(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                                 const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    cdc_type_root_t r = args[0]->type->root;
    if (args[0]->untyped_null ||
        (r != CDC_T_ARRAY && (!cdc_type_is_map_like(args[0]->type) || def->variant == 1)))
        return cdc_xbad(cc, ast, def, args, nargs);
    cdc_type_t *t;
    if (def->variant == 1) {
        t = cdc_type_copy(args[0]->type->children[0]);
        t->nullable = true;
    } else {
        t = cdc_xtype_of(CDC_T_INT, args[0]->type->nullable);
    }
    return cdc_xmake(cc, ast,
                     def->variant          ? eval_element
                     : r == CDC_T_MULTISET ? eval_cardinality_multiset
                                           : eval_cardinality,
                     t, args, nargs);
}

/* ARRAY[a, ...] (variant 0), MAP[k, v, ...] (1): the values evaluated into the row's arena. */
static int eval_collection_ctor(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    uint32_t k = (uint32_t)n->nkids;
    cdc_value_t *vals = cdc_arena_alloc(cx->arena, sizeof(*vals) * k);
    for (uint32_t i = 0; i < k; i++)
        CDC_XEVAL_KID((int)i, &vals[i]);
    out->flags = 0;
    if (n->ival == 0) {
        out->v.arr = (cdc_array_t){.n = k, .elems = vals, .vals = NULL};
        return 0;
    }
    uint32_t m = k / 2;
    cdc_value_t *keys = cdc_arena_alloc(cx->arena, sizeof(*keys) * m);
    cdc_value_t *values = cdc_arena_alloc(cx->arena, sizeof(*values) * m);
    for (uint32_t i = 0; i < m; i++) {
        keys[i] = vals[2 * i];
        values[i] = vals[2 * i + 1];
    }
    out->v.arr = (cdc_array_t){.n = m, .elems = keys, .vals = values};
    return 0;
}

/* ROW(a, ...) and (a, b, ...): a ROW value. */
static int eval_row_ctor(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_row_t *row = cdc_arena_alloc(cx->arena, sizeof(*row));
    *row = (cdc_row_t){.kind = CDC_INSERT, .arity = (uint32_t)n->nkids};
    row->values =
        cdc_arena_alloc(cx->arena, sizeof(cdc_value_t) * (size_t)(n->nkids ? n->nkids : 1));
    for (int i = 0; i < n->nkids; i++)
        CDC_XEVAL_KID(i, &row->values[i]);
    out->flags = 0;
    out->v.row = row;
    return 0;
}

/* The common type of every @p step-th argument from @p first, the arguments cast to it; NULL
 * with an error naming @p what (the arguments then freed). */
static cdc_type_t *unify_every(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast, const char *what,
                               cdc_xnode_t **args, int nargs, int first, int step)
{
    int n = 0;
    cdc_xnode_t **sel = cdc_xcalloc((size_t)nargs, sizeof(*sel));
    for (int i = first; i < nargs; i += step)
        sel[n++] = args[i];
    cdc_type_t *t = cdc_xunify(cc, sel, n, what, ast->line, ast->col);
    for (int i = first, j = 0; i < nargs; i += step, j++)
        args[i] = sel[j];
    free(sel);
    if (!t) {
        for (int i = 0; i < nargs; i++)
            cdc_xnode_free(args[i]);
    }
    return t;
}

/* ARRAY[...] (variant 0), MAP[...] (1), ROW(...) (2): Flink's value constructors, NOT NULL;
 * ARRAY's elements (MAP's keys and values) take their common type, ROW's fields are EXPR$i. */
static cdc_xnode_t *f_value_ctor(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                                 const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    cdc_type_t *t;
    if (def->variant == 2) {
        t = cdc_type_new_row();
        cdc_xcoerce_all(args, nargs, cdc_xstring_type(true)); /* ROW(NULL): a STRING field */
        for (int i = 0; i < nargs; i++) {
            char name[32];
            snprintf(name, sizeof(name), "EXPR$%d", i);
            cdc_type_row_add(t, name, cdc_type_copy(args[i]->type));
        }
        t->nullable = false;
        return cdc_xmake(cc, ast, eval_row_ctor, t, args, nargs);
    }
    if (def->variant == 1 && nargs % 2 != 0) {
        cdc_xfree_args(args, nargs);
        return cdc_xcerr(cc, ast->line, ast->col, "write MAP[key1, value1, key2, value2, ...]",
                         "MAP[...] needs an even number of arguments, found %d", nargs);
    }
    cdc_type_t *elem = unify_every(cc, ast, def->variant ? "MAP's keys" : "ARRAY[...]", args, nargs,
                                   0, def->variant ? 2 : 1);
    if (!elem)
        return NULL;
    if (def->variant == 0) {
        t = cdc_type_new_array(elem);
    } else {
        cdc_type_t *val = unify_every(cc, ast, "MAP's values", args, nargs, 1, 2);
        if (!val) {
            cdc_type_destroy(elem);
            return NULL;
        }
        t = cdc_type_new_map(elem, val);
    }
    t->nullable = false;
    cdc_xnode_t *n = cdc_xnode_new(eval_collection_ctor, t, ast->line, ast->col);
    n->ival = def->variant;
    return cdc_xadopt(cc, n, args, nargs);
}

/* ---- the table ------------------------------------------------------------------------------ */

cdc_type_t *cdc_xtype_of(cdc_type_root_t root, bool nullable)
{
    cdc_type_t *t = cdc_type_new(root);
    t->nullable = nullable;
    return t;
}

cdc_type_t *cdc_xstring_type(bool nullable)
{
    cdc_type_t *t = cdc_type_new_sized(CDC_T_VARCHAR, CDC_MAX_LENGTH);
    t->nullable = nullable;
    return t;
}

void cdc_xfree_args(cdc_xnode_t **args, int nargs)
{
    for (int i = 0; i < nargs; i++)
        cdc_xnode_free(args[i]);
}

/* "cannot apply "F" to A, B and C" + the signature as a hint; frees the arguments. */
cdc_xnode_t *cdc_xbad_args(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast, const char *name,
                           const char *signature, cdc_xnode_t **args, int nargs)
{
    char list[512] = "", buf[128];
    for (int i = 0; i < nargs; i++) {
        const char *sep = i == 0 ? "" : i == nargs - 1 ? " and " : ", ";
        const char *tn = args[i]->untyped_null ? "NULL" : cdc_xtype_name(args[i]->type, buf);
        strncat(list, sep, sizeof(list) - strlen(list) - 1);
        strncat(list, tn, sizeof(list) - strlen(list) - 1);
    }
    char *hint = signature ? cdc_strdup_printf("expected %s", signature) : NULL;
    cdc_xcerr(cc, ast->line, ast->col, hint, "cannot apply \"%s\" to %s", name, list);
    free(hint);
    cdc_xfree_args(args, nargs);
    return NULL;
}

cdc_xnode_t *cdc_xbad(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast, const cdc_xfunc_def_t *def,
                      cdc_xnode_t **args, int nargs)
{
    return cdc_xbad_args(cc, ast, def->name, def->signature, args, nargs);
}

bool cdc_xis_str(const cdc_xnode_t *n)
{
    return cdc_xcat(n->type) == CDC_XC_STR;
}

bool cdc_xis_int(const cdc_xnode_t *n)
{
    return cdc_xcat(n->type) == CDC_XC_INT;
}

bool cdc_xis_num(const cdc_xnode_t *n)
{
    cdc_xcat_t c = cdc_xcat(n->type);
    return c == CDC_XC_INT || c == CDC_XC_FLOAT || c == CDC_XC_DOUBLE || c == CDC_XC_DEC;
}

void cdc_xcoerce_all(cdc_xnode_t **args, int nargs, cdc_type_t *t)
{
    for (int i = 0; i < nargs; i++)
        cdc_xcoerce_null(args[i], t);
    cdc_type_destroy(t);
}

bool cdc_xany_nullable(cdc_xnode_t **args, int nargs)
{
    for (int i = 0; i < nargs; i++)
        if (args[i]->type->nullable)
            return true;
    return false;
}

cdc_xnode_t *cdc_xmake(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast, cdc_xeval_fn eval,
                       cdc_type_t *type, cdc_xnode_t **args, int nargs)
{
    return cdc_xadopt(cc, cdc_xnode_new(eval, type, ast->line, ast->col), args, nargs);
}

cdc_xnode_t *cdc_xadopt(cdc_xcompiler_t *cc, cdc_xnode_t *n, cdc_xnode_t **args, int nargs)
{
    for (int i = 0; i < nargs; i++)
        cdc_xnode_add(n, args[i]);
    cdc_xmark_constant(n);
    return cdc_xfold(cc, n);
}

static cdc_xnode_t *f_case_map(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                               const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    cdc_xcoerce_all(args, nargs, cdc_xstring_type(true));
    if (!cdc_xis_str(args[0]))
        return cdc_xbad(cc, ast, def, args, nargs);
    cdc_xnode_t *n = cdc_xnode_new(eval_case_map, cdc_xstring_type(args[0]->type->nullable),
                                   ast->line, ast->col);
    n->ival = def->variant;
    cdc_xnode_add(n, args[0]);
    cdc_xmark_constant(n);
    return cdc_xfold(cc, n);
}

static cdc_xnode_t *space_literal(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast)
{
    cdc_xnode_t *n = cdc_xnode_new(cdc_xeval_literal, cdc_xstring_type(false), ast->line, ast->col);
    n->constant = true;
    n->lit.v.s.ptr = cdc_arena_strdup(cc->consts, " ");
    n->lit.v.s.len = 1;
    return n;
}

/* TRIM(s) (a call the parser did not normalize), LTRIM/RTRIM(s [, chars]) */
static cdc_xnode_t *f_trim(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                           const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    cdc_xcoerce_all(args, nargs, cdc_xstring_type(true));
    for (int i = 0; i < nargs; i++)
        if (!cdc_xis_str(args[i]))
            return cdc_xbad(cc, ast, def, args, nargs);
    /* s [, chars] -> kids: chars, s */
    cdc_xnode_t *kids[2] = {nargs > 1 ? args[1] : space_literal(cc, ast), args[0]};
    cdc_xnode_t *n =
        cdc_xnode_new(eval_trim, cdc_xstring_type(cdc_xany_nullable(kids, 2)), ast->line, ast->col);
    n->ival = def->variant;
    cdc_xnode_add(n, kids[0]);
    cdc_xnode_add(n, kids[1]);
    cdc_xmark_constant(n);
    return cdc_xfold(cc, n);
}

static cdc_xnode_t *f_concat(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                             const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    cdc_xcoerce_all(args, nargs, cdc_xstring_type(true));
    for (int i = 0; i < nargs; i++)
        if (!cdc_xis_str(args[i]))
            return cdc_xbad(cc, ast, def, args, nargs);
    if (def->variant) /* CONCAT_WS: nullable only through the separator */
        return cdc_xmake(cc, ast, eval_concat_ws, cdc_xstring_type(args[0]->type->nullable), args,
                         nargs);
    return cdc_xmake(cc, ast, eval_concat, cdc_xstring_type(cdc_xany_nullable(args, nargs)), args,
                     nargs);
}

static cdc_xnode_t *f_substring(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                                const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    cdc_type_t *t = cdc_xstring_type(true);
    cdc_xcoerce_null(args[0], t);
    cdc_type_destroy(t);
    t = cdc_xtype_of(CDC_T_INT, true);
    for (int i = 1; i < nargs; i++)
        cdc_xcoerce_null(args[i], t);
    cdc_type_destroy(t);
    if (!cdc_xis_str(args[0]) || !cdc_xis_int(args[1]) || (nargs > 2 && !cdc_xis_int(args[2])))
        return cdc_xbad(cc, ast, def, args, nargs);
    bool nullable = cdc_xany_nullable(args, nargs);
    if (nargs > 2) { /* a negative length gives NULL */
        const cdc_xnode_t *len = args[2];
        if (!(len->eval == cdc_xeval_literal && !cdc_value_is_null(&len->lit) && len->lit.v.i >= 0))
            nullable = true;
    }
    return cdc_xmake(cc, ast, eval_substring, cdc_xstring_type(nullable), args, nargs);
}

static cdc_xnode_t *f_char_length(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                                  const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    cdc_xcoerce_all(args, nargs, cdc_xstring_type(true));
    if (!cdc_xis_str(args[0]))
        return cdc_xbad(cc, ast, def, args, nargs);
    return cdc_xmake(cc, ast, eval_char_length, cdc_xtype_of(CDC_T_INT, args[0]->type->nullable),
                     args, nargs);
}

static cdc_xnode_t *f_abs(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                          const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    (void)nargs;
    if (!args[0]->untyped_null && !cdc_xis_num(args[0]))
        return cdc_xbad(cc, ast, def, args, 1);
    return cdc_xarith(cc, CDC_XOP_ABS, "ABS", args[0], NULL, ast->line, ast->col);
}

static cdc_xnode_t *f_mod(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                          const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    (void)def;
    (void)nargs;
    return cdc_xarith(cc, CDC_XOP_MOD, "MOD", args[0], args[1], ast->line, ast->col);
}

static cdc_xnode_t *f_round(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                            const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    if (args[0]->untyped_null)
        return cdc_xbad(cc, ast, def, args, nargs);
    if (!cdc_xis_num(args[0]) || (nargs > 1 && !args[1]->untyped_null && !cdc_xis_int(args[1])))
        return cdc_xbad(cc, ast, def, args, nargs);
    int d = 0;
    if (nargs > 1) {
        const cdc_xnode_t *dn = args[1];
        if (dn->eval != cdc_xeval_literal || cdc_value_is_null(&dn->lit) ||
            dn->lit.v.i < -CDC_MAX_DECIMAL_PRECISION || dn->lit.v.i > CDC_MAX_DECIMAL_PRECISION) {
            const cdc_sql_expr_t *at = ast->call.args[1];
            cdc_xcerr(cc, at->line, at->col, NULL,
                      "the second argument of \"ROUND\" must be a constant integer between -38 "
                      "and 38");
            cdc_xfree_args(args, nargs);
            return NULL;
        }
        d = (int)dn->lit.v.i;
        cdc_xnode_free(args[1]);
    }
    const cdc_type_t *t = args[0]->type;
    cdc_type_t *rt;
    if (t->root == CDC_T_DECIMAL) {
        int p = t->precision, s = t->scale;
        if (d >= s) {
            rt = cdc_type_copy(t);
        } else if (d < 0) {
            int rp = 1 + p - s;
            rt = cdc_type_new_decimal(
                rp < CDC_MAX_DECIMAL_PRECISION ? rp : CDC_MAX_DECIMAL_PRECISION, 0);
        } else {
            int rp = 1 + p - s + d;
            rt = cdc_type_new_decimal(
                rp < CDC_MAX_DECIMAL_PRECISION ? rp : CDC_MAX_DECIMAL_PRECISION, d);
        }
        rt->nullable = t->nullable;
    } else {
        rt = cdc_type_copy(t);
    }
    cdc_xnode_t *n = cdc_xnode_new(eval_round, rt, ast->line, ast->col);
    char buf[128];
    n->ival = d;
    n->bits = rt->root == CDC_T_TINYINT    ? 8
              : rt->root == CDC_T_SMALLINT ? 16
              : rt->root == CDC_T_INT      ? 32
                                           : 64;
    n->name = cdc_xstrdup(cdc_xtype_name(rt, buf));
    cdc_xnode_add(n, args[0]);
    cdc_xmark_constant(n);
    return cdc_xfold(cc, n);
}

static cdc_xnode_t *f_floor_ceil(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                                 const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    if (args[0]->untyped_null || !cdc_xis_num(args[0]))
        return cdc_xbad(cc, ast, def, args, nargs);
    const cdc_type_t *t = args[0]->type;
    if (cdc_xis_int(args[0]) || (t->root == CDC_T_DECIMAL && t->scale == 0))
        return args[0];
    cdc_type_t *rt;
    if (t->root == CDC_T_DECIMAL) {
        int rp = t->precision - t->scale + 1;
        rt = cdc_type_new_decimal(rp < CDC_MAX_DECIMAL_PRECISION ? rp : CDC_MAX_DECIMAL_PRECISION,
                                  0);
        rt->nullable = t->nullable;
    } else {
        rt = cdc_type_copy(t);
    }
    cdc_xnode_t *n = cdc_xnode_new(eval_floor_ceil, rt, ast->line, ast->col);
    n->ival = def->variant;
    cdc_xnode_add(n, args[0]);
    cdc_xmark_constant(n);
    return cdc_xfold(cc, n);
}

static cdc_xnode_t *f_coalesce(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                               const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    (void)def;
    cdc_type_t *t = cdc_xunify(cc, args, nargs, "COALESCE", ast->line, ast->col);
    if (!t) {
        cdc_xfree_args(args, nargs);
        return NULL;
    }
    bool nullable = true;
    for (int i = 0; i < nargs; i++)
        if (!args[i]->type->nullable)
            nullable = false;
    t->nullable = nullable;
    return cdc_xmake(cc, ast, cdc_xeval_coalesce, t, args, nargs);
}

static cdc_xnode_t *f_if(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast, const cdc_xfunc_def_t *def,
                         cdc_xnode_t **args, int nargs)
{
    (void)def;
    cdc_type_t *boolean = cdc_xtype_of(CDC_T_BOOLEAN, true);
    cdc_xcoerce_null(args[0], boolean);
    cdc_type_destroy(boolean);
    if (args[0]->type->root != CDC_T_BOOLEAN) {
        char buf[128];
        const cdc_sql_expr_t *at = ast->call.args[0];
        cdc_xcerr(cc, at->line, at->col, "expected IF(BOOLEAN, value, value)",
                  "the condition of \"IF\" must be BOOLEAN, found %s",
                  cdc_xtype_name(args[0]->type, buf));
        cdc_xfree_args(args, nargs);
        return NULL;
    }
    cdc_type_t *t = cdc_xunify(cc, args + 1, 2, "IF", ast->line, ast->col);
    if (!t) {
        cdc_xfree_args(args, nargs);
        return NULL;
    }
    cdc_xnode_t *n = cdc_xnode_new(cdc_xeval_case, t, ast->line, ast->col);
    n->has_else = true;
    for (int i = 0; i < nargs; i++)
        cdc_xnode_add(n, args[i]);
    cdc_xmark_constant(n);
    return cdc_xfold(cc, n);
}

static cdc_xnode_t *f_nullif(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                             const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    cdc_type_t *t = cdc_xunify(cc, args, nargs, "NULLIF", ast->line, ast->col);
    if (!t) {
        cdc_xfree_args(args, nargs);
        return NULL;
    }
    cdc_xcmp_fn cmp = cdc_xcmp_for(t);
    if (!cmp) {
        cdc_type_destroy(t);
        return cdc_xbad(cc, ast, def, args, nargs);
    }
    t->nullable = true;
    cdc_xnode_t *n = cdc_xnode_new(cdc_xeval_nullif, t, ast->line, ast->col);
    n->cmp = cmp;
    cdc_xnode_add(n, args[0]);
    cdc_xnode_add(n, args[1]);
    cdc_xmark_constant(n);
    return cdc_xfold(cc, n);
}

static const cdc_xfunc_def_t funcs[] = {
    {"UPPER", 1, 1, f_case_map, 1, "UPPER(STRING)"},
    {"LOWER", 1, 1, f_case_map, 0, "LOWER(STRING)"},
    {"TRIM", 1, 1, f_trim, TRIM_BOTH, "TRIM([BOTH | LEADING | TRAILING] [STRING FROM] STRING)"},
    {"LTRIM", 1, 2, f_trim, TRIM_LEADING, "LTRIM(STRING [, STRING])"},
    {"RTRIM", 1, 2, f_trim, TRIM_TRAILING, "RTRIM(STRING [, STRING])"},
    {"CONCAT", 1, -1, f_concat, 0, "CONCAT(STRING, ...)"},
    {"CONCAT_WS", 2, -1, f_concat, 1, "CONCAT_WS(STRING, STRING, ...)"},
    {"SUBSTRING", 2, 3, f_substring, 0, "SUBSTRING(STRING, INT [, INT])"},
    {"SUBSTR", 2, 3, f_substring, 0, "SUBSTR(STRING, INT [, INT])"},
    {"CHAR_LENGTH", 1, 1, f_char_length, 0, "CHAR_LENGTH(STRING)"},
    {"CHARACTER_LENGTH", 1, 1, f_char_length, 0, "CHARACTER_LENGTH(STRING)"},
    {"ABS", 1, 1, f_abs, 0, "ABS(NUMERIC)"},
    {"MOD", 2, 2, f_mod, 0, "MOD(NUMERIC, NUMERIC)"},
    {"ROUND", 1, 2, f_round, 0, "ROUND(NUMERIC [, INT])"},
    {"FLOOR", 1, 1, f_floor_ceil, 0, "FLOOR(NUMERIC)"},
    {"CEIL", 1, 1, f_floor_ceil, 1, "CEIL(NUMERIC)"},
    {"CEILING", 1, 1, f_floor_ceil, 1, "CEILING(NUMERIC)"},
    {"COALESCE", 1, -1, f_coalesce, 0, NULL},
    {"IF", 3, 3, f_if, 0, "IF(BOOLEAN, value, value)"},
    {"NULLIF", 2, 2, f_nullif, 0, NULL},
    {"CARDINALITY", 1, 1, f_collection, 0, "CARDINALITY(ARRAY | MAP)"},
    {"ELEMENT", 1, 1, f_collection, 1, "ELEMENT(ARRAY)"},
    {"ARRAY[]", 1, -1, f_value_ctor, 0, "ARRAY[value, ...]"},
    {"MAP[]", 2, -1, f_value_ctor, 1, "MAP[key, value, ...]"},
    {"ROW", 1, -1, f_value_ctor, 2, "ROW(value, ...)"},
    {NULL, 0, 0, NULL, 0, NULL},
};

static const cdc_xfunc_def_t *const tables[] = {funcs, cdc_xfuncs_str, cdc_xfuncs_time,
                                                cdc_xfuncs_json};
#define NTABLES ((int)(sizeof(tables) / sizeof(tables[0])))
#define MAX_FUNCS 256

const char *const *cdc_expr_builtin_functions(void)
{
    static const char *names[MAX_FUNCS + 1];
    if (!names[0]) {
        int k = 0;
        for (int t = 0; t < NTABLES; t++)
            for (const cdc_xfunc_def_t *d = tables[t]; d->name && k < MAX_FUNCS; d++)
                if (!strpbrk(d->name, " [")) /* not the operators (IS DISTINCT FROM, ARRAY[]) */
                    names[k++] = d->name;
    }
    return names;
}

static const cdc_xfunc_def_t *func_find(const char *name)
{
    for (int t = 0; t < NTABLES; t++)
        for (const cdc_xfunc_def_t *d = tables[t]; d->name; d++)
            if (strcasecmp(d->name, name) == 0)
                return d;
    return NULL;
}

const char *cdc_xfunc_suggest(const char *name)
{
    const char *const *names = cdc_expr_builtin_functions();
    char upper[64];
    size_t i = 0;
    for (; name[i] && i + 1 < sizeof(upper); i++)
        upper[i] = (char)toupper((unsigned char)name[i]);
    upper[i] = '\0';
    int count = 0;
    while (names[count])
        count++;
    const char *sug = cdc_closest(upper, names, count);
    if (sug && cdc_edit_distance(upper, sug) >= (int)strlen(upper))
        return NULL;
    return sug;
}

static cdc_xnode_t *arity_error(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast, const char *name,
                                int min, int max, size_t found)
{
    char want[64];
    if (max < 0)
        snprintf(want, sizeof(want), "at least %d argument%s", min, min == 1 ? "" : "s");
    else if (min == max)
        snprintf(want, sizeof(want), "%d argument%s", min, min == 1 ? "" : "s");
    else if (max == min + 1)
        snprintf(want, sizeof(want), "%d or %d arguments", min, max);
    else
        snprintf(want, sizeof(want), "%d to %d arguments", min, max);
    return cdc_xcerr(cc, ast->line, ast->col, NULL, "function \"%s\" takes %s, found %zu", name,
                     want, found);
}

/* TRIM as the parser normalizes it: {SYMBOL mode, chars, s}. */
static cdc_xnode_t *compile_trim3(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                                  const cdc_xfunc_def_t *def)
{
    const cdc_sql_expr_t *mode = ast->call.args[0];
    const char *m = mode->literal.text ? mode->literal.text : "BOTH";
    int variant = strcasecmp(m, "LEADING") == 0    ? TRIM_LEADING
                  : strcasecmp(m, "TRAILING") == 0 ? TRIM_TRAILING
                                                   : TRIM_BOTH;
    cdc_xnode_t *args[2];
    if (!cdc_xcompile_args(cc, (const cdc_sql_expr_t *const *)ast->call.args + 1, 2, args))
        return NULL;
    cdc_type_t *str = cdc_xstring_type(true);
    for (int i = 0; i < 2; i++)
        cdc_xcoerce_null(args[i], str);
    cdc_type_destroy(str);
    if (cdc_xis_str(args[0]) && !cdc_xis_str(args[1])) { /* name the operand alone */
        cdc_xnode_free(args[0]);
        return cdc_xbad(cc, ast, def, args + 1, 1);
    }
    if (!cdc_xis_str(args[0]) || !cdc_xis_str(args[1]))
        return cdc_xbad(cc, ast, def, args, 2);
    cdc_xnode_t *n =
        cdc_xnode_new(eval_trim, cdc_xstring_type(cdc_xany_nullable(args, 2)), ast->line, ast->col);
    n->ival = variant;
    cdc_xnode_add(n, args[0]);
    cdc_xnode_add(n, args[1]);
    cdc_xmark_constant(n);
    return cdc_xfold(cc, n);
}

cdc_xnode_t *cdc_xfunc_compile(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast, bool *unknown)
{
    bool handled = false;
    cdc_xnode_t *special = cdc_xtime_compile_special(cc, ast, &handled);
    if (!handled)
        special = cdc_xjson_compile_special(cc, ast, &handled);
    if (handled) {
        *unknown = false;
        return special;
    }
    const cdc_xfunc_def_t *def = func_find(ast->call.name);
    *unknown = def == NULL;
    if (!def)
        return NULL;
    size_t nargs = ast->call.nargs;
    if (def->compile == f_trim && def->variant == TRIM_BOTH && nargs == 3 &&
        ast->call.args[0]->kind == CDC_SQL_EXPR_LITERAL &&
        ast->call.args[0]->literal.kind == CDC_SQL_LIT_SYMBOL)
        return compile_trim3(cc, ast, def);
    if (nargs < (size_t)def->min || (def->max >= 0 && nargs > (size_t)def->max))
        return arity_error(cc, ast, def->name, def->min, def->max, nargs);
    cdc_xnode_t **args = cdc_xcalloc(nargs ? nargs : 1, sizeof(*args));
    if (!cdc_xcompile_args(cc, (const cdc_sql_expr_t *const *)ast->call.args, nargs, args)) {
        free(args);
        return NULL;
    }
    cdc_xnode_t *n = def->compile(cc, ast, def, args, (int)nargs);
    free(args);
    return n;
}

/* ---- user functions ------------------------------------------------------------------------- */

typedef struct udf_call_ctx {
    cdc_udf_ctx_t base;
    cdc_arena_t *arena;
} udf_call_ctx_t;

static void *udf_alloc(cdc_udf_ctx_t *ctx, size_t n)
{
    return cdc_arena_alloc(((udf_call_ctx_t *)ctx)->arena, n ? n : 1);
}

static const char *udf_kind_name(cdc_udf_kind_t k)
{
    switch (k) {
    case CDC_UDF_BOOL:
        return "BOOLEAN";
    case CDC_UDF_INT64:
        return "BIGINT";
    case CDC_UDF_DOUBLE:
        return "DOUBLE";
    case CDC_UDF_STRING:
        return "STRING";
    default:
        return "an unknown kind";
    }
}

static int eval_udf(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_udf_value_t argv[16];
    cdc_udf_value_t *args =
        n->nkids <= 16 ? argv : cdc_arena_alloc(cx->arena, sizeof(*args) * (size_t)n->nkids);
    for (int i = 0; i < n->nkids; i++) {
        cdc_value_t v;
        EVAL_KID(i, &v);
        cdc_udf_value_t *a = &args[i];
        memset(a, 0, sizeof(*a));
        if (cdc_value_is_null(&v)) {
            a->kind = CDC_UDF_NULL;
            continue;
        }
        switch (cdc_xcat(n->kids[i]->type)) {
        case CDC_XC_BOOL:
            a->kind = CDC_UDF_BOOL;
            a->v.b = v.v.b;
            break;
        case CDC_XC_INT:
            a->kind = CDC_UDF_INT64;
            a->v.i = v.v.i;
            break;
        case CDC_XC_FLOAT:
            a->kind = CDC_UDF_DOUBLE;
            a->v.d = (double)v.v.f;
            break;
        case CDC_XC_DOUBLE:
            a->kind = CDC_UDF_DOUBLE;
            a->v.d = v.v.d;
            break;
        default:
            a->kind = CDC_UDF_STRING;
            a->v.s.ptr = v.v.s.ptr;
            a->v.s.len = v.v.s.len;
            break;
        }
    }
    udf_call_ctx_t ctx = {{udf_alloc, NULL}, cx->arena};
    ctx.base.opaque = &ctx;
    cdc_udf_value_t res;
    memset(&res, 0, sizeof(res));
    char msg[256] = "";
    if (n->udf->fn(&ctx.base, args, n->nkids, &res, msg, sizeof(msg)) != 0) {
        msg[sizeof(msg) - 1] = '\0';
        return cdc_xerr(cx, "function \"%s\" failed: %s", n->name,
                        msg[0] ? msg : "no reason given");
    }
    if (res.kind == CDC_UDF_NULL) {
        cdc_xset_null(out);
        return 0;
    }
    cdc_xcat_t rc = cdc_xcat(n->type);
    cdc_udf_kind_t want = rc == CDC_XC_BOOL  ? CDC_UDF_BOOL
                          : rc == CDC_XC_INT ? CDC_UDF_INT64
                          : rc == CDC_XC_STR ? CDC_UDF_STRING
                                             : CDC_UDF_DOUBLE;
    if (res.kind != want)
        return cdc_xerr(cx, "function \"%s\" returned %s, declared %s", n->name,
                        udf_kind_name(res.kind), udf_kind_name(want));
    out->flags = 0;
    switch (want) {
    case CDC_UDF_BOOL:
        out->v.b = res.v.b != 0;
        break;
    case CDC_UDF_INT64:
        if (res.v.i < n->ilo || res.v.i > n->ihi)
            return cdc_xerr(cx, "function \"%s\" returned %lld, out of range for %s", n->name,
                            (long long)res.v.i, cdc_type_root_name(n->type->root));
        out->v.i = res.v.i;
        break;
    case CDC_UDF_STRING:
        if (res.v.s.len > UINT32_MAX || (!res.v.s.ptr && res.v.s.len))
            return cdc_xerr(cx, "function \"%s\" returned an invalid string", n->name);
        out->v.s.ptr = res.v.s.ptr ? res.v.s.ptr : "";
        out->v.s.len = (uint32_t)res.v.s.len;
        break;
    default:
        if (rc == CDC_XC_FLOAT)
            out->v.f = (float)res.v.d;
        else
            out->v.d = res.v.d;
        break;
    }
    return 0;
}

static bool udf_type_ok(const cdc_type_t *t)
{
    cdc_xcat_t c = cdc_xcat(t);
    return c == CDC_XC_BOOL || c == CDC_XC_INT || c == CDC_XC_FLOAT || c == CDC_XC_DOUBLE ||
           c == CDC_XC_STR;
}

static int width_of(cdc_type_root_t root)
{
    return root == CDC_T_TINYINT ? 8 : root == CDC_T_SMALLINT ? 16 : root == CDC_T_INT ? 32 : 64;
}

/* Whether an argument of type @p from may be passed where @p to is declared. */
static bool udf_arg_ok(const cdc_type_t *from, const cdc_type_t *to)
{
    cdc_xcat_t cf = cdc_xcat(from), ct = cdc_xcat(to);
    switch (ct) {
    case CDC_XC_BOOL:
    case CDC_XC_STR:
        return cf == ct;
    case CDC_XC_INT:
        return cf == CDC_XC_INT && width_of(from->root) <= width_of(to->root);
    default:
        return cf == CDC_XC_INT || cf == CDC_XC_FLOAT || cf == CDC_XC_DOUBLE || cf == CDC_XC_DEC;
    }
}

cdc_xnode_t *cdc_xudf_compile(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                              const cdc_udf_def_t *def)
{
    const char *name = ast->call.name;
    if (def->abi_version != CDC_UDF_ABI_VERSION)
        return cdc_xcerr(cc, ast->line, ast->col, "rebuild it against this cdc.h",
                         "function \"%s\" was built for ABI version %d, expected %d", name,
                         def->abi_version, CDC_UDF_ABI_VERSION);
    if (!def->fn || def->nargs < 0 || (def->nargs > 0 && !def->arg_types) || !def->return_type)
        return cdc_xcerr(cc, ast->line, ast->col, NULL, "function \"%s\" has an invalid definition",
                         name);
    if (ast->call.nargs != (size_t)def->nargs)
        return arity_error(cc, ast, name, def->nargs, def->nargs, ast->call.nargs);
    int nargs = def->nargs;
    cdc_type_t **types = cdc_xcalloc((size_t)nargs + 1, sizeof(*types));
    cdc_xnode_t **args = cdc_xcalloc((size_t)nargs + 1, sizeof(*args));
    cdc_xnode_t *n = NULL;
    char *sig = NULL;
    int ntypes = 0;
    for (; ntypes <= nargs; ntypes++) {
        const char *text = ntypes < nargs ? def->arg_types[ntypes] : def->return_type;
        cdc_error_t *terr = NULL;
        types[ntypes] = text ? cdc_type_parse(text, &terr) : NULL;
        if (!types[ntypes] || !udf_type_ok(types[ntypes])) {
            cdc_error_destroy(terr);
            cdc_xcerr(cc, ast->line, ast->col, "use BOOLEAN, BIGINT, DOUBLE or STRING",
                      "function \"%s\" declares an unsupported type \"%s\"", name,
                      text ? text : "(null)");
            if (types[ntypes])
                ntypes++;
            goto out;
        }
    }
    /* signature, for messages */
    {
        char buf[128];
        size_t cap = strlen(name) + 3;
        for (int i = 0; i < nargs; i++)
            cap += strlen(cdc_xtype_name(types[i], buf)) + 2;
        sig = cdc_xmalloc(cap);
        strcpy(sig, name);
        strcat(sig, "(");
        for (int i = 0; i < nargs; i++) {
            if (i)
                strcat(sig, ", ");
            strcat(sig, cdc_xtype_name(types[i], buf));
        }
        strcat(sig, ")");
    }
    if (!cdc_xcompile_args(cc, (const cdc_sql_expr_t *const *)ast->call.args, (size_t)nargs, args))
        goto out;
    for (int i = 0; i < nargs; i++) {
        cdc_xcoerce_null(args[i], types[i]);
        if (!udf_arg_ok(args[i]->type, types[i])) {
            cdc_xbad_args(cc, ast, name, sig, args, nargs);
            memset(args, 0, sizeof(*args) * (size_t)nargs);
            goto out;
        }
    }
    for (int i = 0; i < nargs; i++) {
        if (!(args[i] = cdc_xwrap_cast(cc, args[i], types[i]))) {
            for (int k = 0; k < nargs; k++)
                cdc_xnode_free(args[k]);
            memset(args, 0, sizeof(*args) * (size_t)nargs);
            goto out;
        }
    }
    cdc_type_t *rt = types[nargs];
    types[nargs] = NULL;
    rt->nullable = true;
    n = cdc_xnode_new(eval_udf, rt, ast->line, ast->col);
    n->udf = def;
    n->name = cdc_xstrdup(name);
    if (cdc_xcat(rt) == CDC_XC_INT) {
        int bits = width_of(rt->root);
        n->ihi = bits == 64 ? INT64_MAX : (int64_t)((UINT64_C(1) << (bits - 1)) - 1);
        n->ilo = -n->ihi - 1;
    }
    for (int i = 0; i < nargs; i++)
        cdc_xnode_add(n, args[i]);
    memset(args, 0, sizeof(*args) * (size_t)nargs);
    n->constant = false; /* a user function may not be deterministic */
out:
    for (int i = 0; i < ntypes && i <= nargs; i++)
        cdc_type_destroy(types[i]);
    free(types);
    free(args);
    free(sig);
    return n;
}
