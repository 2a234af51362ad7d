/*
 * cdc_expr_cast.c — CAST, TRY_CAST and implicit widening for the expression
 * engine: the conversion between two types is chosen once at compile time
 * (cdc_xcast_resolve) and called per row.
 *
 * Rules (see cdc_expr.h): integer targets truncate toward zero and fail out
 * of range; DECIMAL targets round HALF_UP and fail when the value needs more
 * integer digits; floating point to DECIMAL goes through the shortest text
 * that round-trips (as Java's BigDecimal.valueOf); text is trimmed of ASCII
 * blanks before parsing; values print as cdc_value_print() does.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cdc_expr_int.h"
#include "cdc_value_text.h"

cdc_xcat_t cdc_xcat(const cdc_type_t *t)
{
    switch (t->root) {
    case CDC_T_BOOLEAN:
        return CDC_XC_BOOL;
    case CDC_T_TINYINT:
    case CDC_T_SMALLINT:
    case CDC_T_INT:
    case CDC_T_BIGINT:
        return CDC_XC_INT;
    case CDC_T_FLOAT:
        return CDC_XC_FLOAT;
    case CDC_T_DOUBLE:
        return CDC_XC_DOUBLE;
    case CDC_T_DECIMAL:
        return CDC_XC_DEC;
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
        return CDC_XC_STR;
    case CDC_T_BINARY:
    case CDC_T_VARBINARY:
        return CDC_XC_BIN;
    case CDC_T_DATE:
        return CDC_XC_DATE;
    case CDC_T_TIME:
        return CDC_XC_TIME;
    case CDC_T_TIMESTAMP:
        return CDC_XC_TS;
    case CDC_T_TIMESTAMP_LTZ:
        return CDC_XC_LTZ;
    default:
        return CDC_XC_OTHER;
    }
}

static int int_bits(cdc_type_root_t root)
{
    switch (root) {
    case CDC_T_TINYINT:
        return 8;
    case CDC_T_SMALLINT:
        return 16;
    case CDC_T_INT:
        return 32;
    default:
        return 64;
    }
}

static int64_t pow10_i64(int n)
{
    int64_t v = 1;
    while (n-- > 0)
        v *= 10;
    return v;
}

/* ---- failures ------------------------------------------------------------------------------- */

static int fail_text(const cdc_xnode_t *n, cdc_xctx_t *cx, const char *s, size_t len)
{
    if (len > 40)
        return cdc_xerr(cx, "cannot cast '%.40s...' to %s", s, n->name);
    return cdc_xerr(cx, "cannot cast '%.*s' to %s", (int)len, s, n->name);
}

static int fail_value(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in)
{
    char buf[96];
    if (cdc_xcat(n->kids[0]->type) == CDC_XC_STR)
        return fail_text(n, cx, in->v.s.ptr, in->v.s.len);
    if (cdc_value_to_text(in, n->kids[0]->type, CDC_TEXT_ISO8601, buf) < 0)
        strcpy(buf, "value");
    return cdc_xerr(cx, "cannot cast %s to %s", buf, n->name);
}

/* ---- numeric -------------------------------------------------------------------------------- */

static int conv_same(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in, cdc_value_t *out)
{
    (void)n;
    (void)cx;
    *out = *in;
    out->flags = 0;
    return 0;
}

static int conv_int_int(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                        cdc_value_t *out)
{
    if (in->v.i < n->ilo || in->v.i > n->ihi)
        return fail_value(n, cx, in);
    out->flags = 0;
    out->v.i = in->v.i;
    return 0;
}

static int conv_int_dec(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                        cdc_value_t *out)
{
    if (cdc_xdec_rescale(in->v.i, 0, n->type->precision, n->type->scale, &out->v.dec) < 0)
        return fail_value(n, cx, in);
    out->flags = 0;
    return 0;
}

static int conv_int_float(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                          cdc_value_t *out)
{
    (void)n;
    (void)cx;
    out->flags = 0;
    out->v.f = (float)in->v.i;
    return 0;
}

static int conv_int_double(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                           cdc_value_t *out)
{
    (void)n;
    (void)cx;
    out->flags = 0;
    out->v.d = (double)in->v.i;
    return 0;
}

static int conv_int_bool(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                         cdc_value_t *out)
{
    (void)n;
    (void)cx;
    out->flags = 0;
    out->v.b = in->v.i != 0;
    return 0;
}

static int conv_bool_int(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                         cdc_value_t *out)
{
    (void)n;
    (void)cx;
    out->flags = 0;
    out->v.i = in->v.b ? 1 : 0;
    return 0;
}

static int conv_float_double(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                             cdc_value_t *out)
{
    (void)n;
    (void)cx;
    out->flags = 0;
    out->v.d = (double)in->v.f;
    return 0;
}

static int conv_double_float(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                             cdc_value_t *out)
{
    (void)n;
    (void)cx;
    out->flags = 0;
    out->v.f = (float)in->v.d;
    return 0;
}

static int fp_to_int(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in, double d,
                     cdc_value_t *out)
{
    double t = trunc(d);
    double lim = ldexp(1.0, n->bits - 1);
    if (isnan(t) || !(t >= -lim && t < lim))
        return fail_value(n, cx, in);
    out->flags = 0;
    out->v.i = (int64_t)t;
    return 0;
}

static int conv_float_int(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                          cdc_value_t *out)
{
    return fp_to_int(n, cx, in, (double)in->v.f, out);
}

static int conv_double_int(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                           cdc_value_t *out)
{
    return fp_to_int(n, cx, in, in->v.d, out);
}

static int conv_fp_dec(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                       cdc_value_t *out)
{
    char buf[64];
    bool is_float = cdc_xcat(n->kids[0]->type) == CDC_XC_FLOAT;
    double d = is_float ? (double)in->v.f : in->v.d;
    if (!isfinite(d))
        return fail_value(n, cx, in);
    int len = is_float ? cdc_float_format(in->v.f, buf) : cdc_double_format(d, buf);
    if (cdc_decimal_parse(buf, (size_t)len, n->type->precision, n->type->scale, &out->v.dec) < 0)
        return fail_value(n, cx, in);
    out->flags = 0;
    return 0;
}

static int conv_dec_int(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                        cdc_value_t *out)
{
    cdc_i128 v = in->v.dec / cdc_pow10_i128(n->s1); /* truncates toward zero */
    if (v < n->ilo || v > n->ihi)
        return fail_value(n, cx, in);
    out->flags = 0;
    out->v.i = (int64_t)v;
    return 0;
}

static int conv_dec_dec(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                        cdc_value_t *out)
{
    if (cdc_xdec_rescale(in->v.dec, n->s1, n->type->precision, n->type->scale, &out->v.dec) < 0)
        return fail_value(n, cx, in);
    out->flags = 0;
    return 0;
}

static int conv_dec_fp(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                       cdc_value_t *out)
{
    (void)cx;
    char buf[64];
    cdc_decimal_format(in->v.dec, n->s1, buf);
    out->flags = 0;
    if (cdc_xcat(n->type) == CDC_XC_FLOAT)
        out->v.f = strtof(buf, NULL);
    else
        out->v.d = strtod(buf, NULL);
    return 0;
}

/* ---- to text -------------------------------------------------------------------------------- */

/* Cuts or pads (CHAR) the string in *out to the target length in characters. */
static int fit_string(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    const cdc_type_t *t = n->type;
    if (t->length == CDC_MAX_LENGTH)
        return 0;
    size_t len = out->v.s.len;
    size_t count = cdc_xutf8_count(out->v.s.ptr, len);
    if (count > (size_t)t->length) {
        out->v.s.len = (uint32_t)cdc_xutf8_offset(out->v.s.ptr, len, (size_t)t->length);
        return 0;
    }
    if (t->root == CDC_T_CHAR && count < (size_t)t->length) {
        size_t pad = (size_t)t->length - count;
        if (len + pad > UINT32_MAX)
            return cdc_xerr(cx, "string too long");
        char *p = cdc_arena_alloc(cx->arena, len + pad);
        memcpy(p, out->v.s.ptr, len);
        memset(p + len, ' ', pad);
        out->v.s.ptr = p;
        out->v.s.len = (uint32_t)(len + pad);
    }
    return 0;
}

static int conv_any_str(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                        cdc_value_t *out)
{
    char buf[96];
    /* Flink's CAST to STRING: "2024-03-05 10:20:30.123", TIMESTAMP_LTZ in the session zone */
    int len = cdc_value_to_text(in, n->kids[0]->type, CDC_TEXT_LOCAL, buf);
    if (len < 0)
        return cdc_xerr(cx, "cannot cast to %s", n->name);
    out->flags = 0;
    out->v.s.ptr = cdc_arena_memdup(cx->arena, buf, (size_t)len);
    out->v.s.len = (uint32_t)len;
    return fit_string(n, cx, out);
}

/* STRING -> CHAR(n)/VARCHAR(n), BYTES -> STRING */
static int conv_str_str(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                        cdc_value_t *out)
{
    *out = *in;
    out->flags = 0;
    return fit_string(n, cx, out);
}

/* STRING -> BYTES, BYTES -> BINARY(n)/VARBINARY(n): cut, BINARY pads with zero bytes */
static int conv_to_bin(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                       cdc_value_t *out)
{
    const cdc_type_t *t = n->type;
    *out = *in;
    out->flags = 0;
    if (t->length == CDC_MAX_LENGTH)
        return 0;
    if (out->v.s.len > (uint32_t)t->length) {
        out->v.s.len = (uint32_t)t->length;
    } else if (t->root == CDC_T_BINARY && out->v.s.len < (uint32_t)t->length) {
        char *p = cdc_arena_calloc(cx->arena, (size_t)t->length);
        memcpy(p, in->v.s.ptr, in->v.s.len);
        out->v.s.ptr = p;
        out->v.s.len = (uint32_t)t->length;
    }
    return 0;
}

/* ---- from text ------------------------------------------------------------------------------ */

/* BOOLEAN, numbers, dates, times and timestamps from text, by Flink's CAST rules. */
static int conv_str_scalar(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                           cdc_value_t *out)
{
    if (cdc_value_from_text(n->type, in->v.s.ptr, in->v.s.len, CDC_TEXT_CAST, NULL, out, NULL) !=
        CDC_TEXT_OK)
        return fail_value(n, cx, in);
    return 0;
}

/* ---- temporal ------------------------------------------------------------------------------- */

static cdc_ts_t ts_truncate(cdc_ts_t t, int precision)
{
    if (precision >= 9)
        return t;
    if (precision >= 3) {
        int32_t unit = (int32_t)pow10_i64(9 - precision);
        t.nanos -= t.nanos % unit;
    } else {
        int64_t unit = pow10_i64(3 - precision);
        int64_t m = t.millis % unit;
        if (m < 0)
            m += unit;
        t.millis -= m;
        t.nanos = 0;
    }
    return t;
}

static int conv_date_ts(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                        cdc_value_t *out)
{
    (void)n;
    (void)cx;
    out->flags = 0;
    out->v.ts.millis = in->v.i * 86400000LL;
    out->v.ts.nanos = 0;
    return 0;
}

static int conv_ts_date(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                        cdc_value_t *out)
{
    (void)n;
    (void)cx;
    int64_t ms = in->v.ts.millis;
    int64_t days = ms / 86400000LL;
    if (ms % 86400000LL < 0)
        days--;
    out->flags = 0;
    out->v.i = days;
    return 0;
}

static int conv_ts_time(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                        cdc_value_t *out)
{
    (void)cx;
    int64_t ms = in->v.ts.millis % 86400000LL;
    if (ms < 0)
        ms += 86400000LL;
    int64_t nanos = ms * 1000000LL + in->v.ts.nanos;
    int64_t unit = pow10_i64(9 - (n->type->precision > 9 ? 9 : n->type->precision));
    out->flags = 0;
    out->v.i = nanos - nanos % unit;
    return 0;
}

static int conv_ts_ts(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in, cdc_value_t *out)
{
    (void)cx;
    out->flags = 0;
    out->v.ts = ts_truncate(in->v.ts, n->type->precision);
    return 0;
}

static int conv_time_time(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                          cdc_value_t *out)
{
    (void)cx;
    int64_t unit = pow10_i64(9 - n->type->precision);
    out->flags = 0;
    out->v.i = in->v.i - in->v.i % unit;
    return 0;
}

/* ---- resolution ----------------------------------------------------------------------------- */

static bool same_ignoring_null(const cdc_type_t *a, const cdc_type_t *b)
{
    if (a->root != b->root || a->length != b->length || a->precision != b->precision ||
        a->scale != b->scale || a->nchildren != b->nchildren)
        return false;
    for (int i = 0; i < a->nchildren; i++) {
        if (a->names && strcmp(a->names[i], b->names[i]) != 0)
            return false;
        if (!cdc_type_equals(a->children[i], b->children[i]))
            return false;
    }
    return true;
}

static bool string_needs_fit(const cdc_type_t *from, const cdc_type_t *to)
{
    if (to->length == CDC_MAX_LENGTH)
        return false;
    if (from->root == to->root && from->length == to->length)
        return false;
    if ((to->root == CDC_T_VARCHAR || to->root == CDC_T_VARBINARY) && from->length <= to->length)
        return false;
    return true;
}

cdc_xconv_fn cdc_xcast_resolve(const cdc_type_t *from, const cdc_type_t *to)
{
    cdc_xcat_t cf = cdc_xcat(from), ct = cdc_xcat(to);
    switch (ct) {
    case CDC_XC_BOOL:
        return cf == CDC_XC_BOOL  ? conv_same
               : cf == CDC_XC_INT ? conv_int_bool
               : cf == CDC_XC_STR ? conv_str_scalar
                                  : NULL;
    case CDC_XC_INT:
        switch (cf) {
        case CDC_XC_BOOL:
            return conv_bool_int;
        case CDC_XC_INT:
            return int_bits(to->root) >= int_bits(from->root) ? conv_same : conv_int_int;
        case CDC_XC_FLOAT:
            return conv_float_int;
        case CDC_XC_DOUBLE:
            return conv_double_int;
        case CDC_XC_DEC:
            return conv_dec_int;
        case CDC_XC_STR:
            return conv_str_scalar;
        default:
            return NULL;
        }
    case CDC_XC_FLOAT:
    case CDC_XC_DOUBLE:
        switch (cf) {
        case CDC_XC_INT:
            return ct == CDC_XC_FLOAT ? conv_int_float : conv_int_double;
        case CDC_XC_FLOAT:
            return ct == CDC_XC_FLOAT ? conv_same : conv_float_double;
        case CDC_XC_DOUBLE:
            return ct == CDC_XC_FLOAT ? conv_double_float : conv_same;
        case CDC_XC_DEC:
            return conv_dec_fp;
        case CDC_XC_STR:
            return conv_str_scalar;
        default:
            return NULL;
        }
    case CDC_XC_DEC:
        switch (cf) {
        case CDC_XC_INT:
            return conv_int_dec;
        case CDC_XC_FLOAT:
        case CDC_XC_DOUBLE:
            return conv_fp_dec;
        case CDC_XC_DEC:
            return from->precision == to->precision && from->scale == to->scale ? conv_same
                                                                                : conv_dec_dec;
        case CDC_XC_STR:
            return conv_str_scalar;
        default:
            return NULL;
        }
    case CDC_XC_STR:
        switch (cf) {
        case CDC_XC_STR:
        case CDC_XC_BIN:
            return cf == CDC_XC_STR && !string_needs_fit(from, to) ? conv_same : conv_str_str;
        case CDC_XC_OTHER:
            return NULL;
        default:
            return conv_any_str;
        }
    case CDC_XC_BIN:
        if (cf == CDC_XC_STR)
            return conv_to_bin;
        if (cf == CDC_XC_BIN)
            return string_needs_fit(from, to) ? conv_to_bin : conv_same;
        return NULL;
    case CDC_XC_DATE:
        return cf == CDC_XC_DATE                       ? conv_same
               : (cf == CDC_XC_TS || cf == CDC_XC_LTZ) ? conv_ts_date
               : cf == CDC_XC_STR                      ? conv_str_scalar
                                                       : NULL;
    case CDC_XC_TIME:
        if (cf == CDC_XC_TIME)
            return to->precision >= from->precision ? conv_same : conv_time_time;
        return (cf == CDC_XC_TS || cf == CDC_XC_LTZ) ? conv_ts_time
               : cf == CDC_XC_STR                    ? conv_str_scalar
                                                     : NULL;
    case CDC_XC_TS:
    case CDC_XC_LTZ:
        if (cf == CDC_XC_TS || cf == CDC_XC_LTZ)
            return to->precision >= from->precision ? conv_same : conv_ts_ts;
        return cf == CDC_XC_DATE ? conv_date_ts : cf == CDC_XC_STR ? conv_str_scalar : NULL;
    default:
        return same_ignoring_null(from, to) ? conv_same : NULL;
    }
}

void cdc_xcast_prepare(cdc_xnode_t *n)
{
    const cdc_type_t *from = n->kids[0]->type, *to = n->type;
    char buf[128];
    n->s1 = from->root == CDC_T_DECIMAL ? from->scale : 0;
    n->s2 = to->root == CDC_T_DECIMAL ? to->scale : 0;
    if (cdc_xcat(to) == CDC_XC_INT) {
        n->bits = int_bits(to->root);
        n->ihi = n->bits == 64 ? INT64_MAX : (int64_t)((UINT64_C(1) << (n->bits - 1)) - 1);
        n->ilo = -n->ihi - 1;
    }
    free(n->name);
    n->name = cdc_xstrdup(cdc_xtype_name(to, buf));
}

int cdc_xeval_cast(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t in;
    if (n->kids[0]->eval(n->kids[0], cx, &in) < 0)
        return -1;
    if (cdc_value_is_null(&in)) {
        cdc_xset_null(out);
        return 0;
    }
    if (n->conv(n, cx, &in, out) < 0) {
        if (!n->try_cast)
            return -1;
        cdc_xset_null(out);
    }
    return 0;
}
