/*
 * cdc_expr_eval.c — per-row evaluation of the expression engine's nodes:
 * literals, columns, arithmetic, comparisons, three-valued logic, IN,
 * BETWEEN, CASE, COALESCE, NULLIF, || and subscripts.
 *
 * Every function writes a value or NULL into *out and returns 0, or returns
 * -1 with the reason in cx->errbuf. Operands were widened at compile time,
 * so each function handles one representation only. Nothing is allocated
 * except result strings, in cx->arena.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cdc_expr_int.h"

int cdc_xerr(cdc_xctx_t *cx, const char *fmt, ...)
{
    if (cx->errbuf && cx->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(cx->errbuf, cx->errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Evaluates kid i; returns -1 on error. */
#define EVAL_KID(i, v)                                                                             \
    do {                                                                                           \
        if (n->kids[i]->eval(n->kids[i], cx, (v)) < 0)                                             \
            return -1;                                                                             \
    } while (0)

static void set_bool(cdc_value_t *out, bool b)
{
    out->flags = 0;
    out->v.b = b;
}

/* ---- leaves --------------------------------------------------------------------------------- */

int cdc_xeval_literal(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    (void)cx;
    *out = n->lit;
    return 0;
}

int cdc_xeval_column(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    const cdc_row_t *row = cx->row;
    const cdc_value_t *v = NULL;
    for (int k = 0; k < n->npath; k++) {
        if (!row || (uint32_t)n->path[k] >= row->arity)
            return cdc_xerr(cx, "column \"%s\" is missing from the row (%u fields)", n->colname,
                            row ? row->arity : 0u);
        v = &row->values[n->path[k]];
        if (v->flags & CDC_V_UNCHANGED) {
            if (n->top && k == n->npath - 1) {
                *out = *v;
                return 0;
            }
            return cdc_xerr(cx, "column \"%s\" is not carried by this change (unchanged value)",
                            n->colname);
        }
        if (v->flags & CDC_V_NULL) {
            cdc_xset_null(out);
            return 0;
        }
        if (k + 1 < n->npath)
            row = v->v.row;
    }
    *out = *v;
    out->flags = 0;
    return 0;
}

/* ---- arithmetic ----------------------------------------------------------------------------- */

static int64_t wrap_bits(uint64_t v, int bits)
{
    switch (bits) {
    case 8:
        return (int8_t)(uint8_t)v;
    case 16:
        return (int16_t)(uint16_t)v;
    case 32:
        return (int32_t)(uint32_t)v;
    default:
        return (int64_t)v;
    }
}

/* Evaluates one or two operands; sets *is_null when any is NULL. */
static int eval_operands(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *a, cdc_value_t *b,
                         bool *is_null)
{
    EVAL_KID(0, a);
    if (cdc_value_is_null(a)) {
        *is_null = true;
        return 0;
    }
    if (n->nkids > 1) {
        EVAL_KID(1, b);
        if (cdc_value_is_null(b)) {
            *is_null = true;
            return 0;
        }
    }
    *is_null = false;
    return 0;
}

int cdc_xeval_arith_int(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a, b;
    bool is_null;
    if (eval_operands(n, cx, &a, &b, &is_null) < 0)
        return -1;
    if (is_null) {
        cdc_xset_null(out);
        return 0;
    }
    uint64_t x = (uint64_t)a.v.i, y = n->nkids > 1 ? (uint64_t)b.v.i : 0, r;
    switch (n->op) {
    case CDC_XOP_ADD:
        r = x + y;
        break;
    case CDC_XOP_SUB:
        r = x - y;
        break;
    case CDC_XOP_MUL:
        r = x * y;
        break;
    case CDC_XOP_DIV:
        if (b.v.i == 0)
            return cdc_xerr(cx, "division by zero");
        r = b.v.i == -1 ? 0 - x : (uint64_t)(a.v.i / b.v.i);
        break;
    case CDC_XOP_MOD:
        if (b.v.i == 0)
            return cdc_xerr(cx, "division by zero");
        r = b.v.i == -1 ? 0 : (uint64_t)(a.v.i % b.v.i);
        break;
    case CDC_XOP_NEG:
        r = 0 - x;
        break;
    default: /* ABS */
        r = a.v.i < 0 ? 0 - x : x;
        break;
    }
    out->flags = 0;
    out->v.i = wrap_bits(r, n->bits);
    return 0;
}

/* One binary or unary floating-point operation, in double precision. FLOAT
   operands are widened first: +, -, *, / and fmod of two floats computed in
   double and rounded back give the correctly rounded float result. */
static double arith_double(int op, double x, double y)
{
    switch (op) {
    case CDC_XOP_ADD:
        return x + y;
    case CDC_XOP_SUB:
        return x - y;
    case CDC_XOP_MUL:
        return x * y;
    case CDC_XOP_DIV:
        return x / y;
    case CDC_XOP_MOD:
        return fmod(x, y);
    case CDC_XOP_NEG:
        return -x;
    default:
        return fabs(x);
    }
}

int cdc_xeval_arith_float(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a, b;
    bool is_null;
    if (eval_operands(n, cx, &a, &b, &is_null) < 0)
        return -1;
    if (is_null) {
        cdc_xset_null(out);
        return 0;
    }
    out->flags = 0;
    out->v.f = (float)arith_double(n->op, a.v.f, n->nkids > 1 ? b.v.f : 0.0f);
    return 0;
}

int cdc_xeval_arith_double(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a, b;
    bool is_null;
    if (eval_operands(n, cx, &a, &b, &is_null) < 0)
        return -1;
    if (is_null) {
        cdc_xset_null(out);
        return 0;
    }
    out->flags = 0;
    out->v.d = arith_double(n->op, a.v.d, n->nkids > 1 ? b.v.d : 0.0);
    return 0;
}

int cdc_xeval_arith_dec(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a, b;
    bool is_null;
    if (eval_operands(n, cx, &a, &b, &is_null) < 0)
        return -1;
    if (is_null) {
        cdc_xset_null(out);
        return 0;
    }
    int p = n->type->precision, s = n->type->scale, rc;
    cdc_i128 r = 0;
    switch (n->op) {
    case CDC_XOP_ADD:
    case CDC_XOP_SUB:
        rc = cdc_xdec_add(a.v.dec, n->s1, b.v.dec, n->s2, n->op == CDC_XOP_SUB, p, s, &r);
        break;
    case CDC_XOP_MUL:
        rc = cdc_xdec_mul(a.v.dec, n->s1, b.v.dec, n->s2, p, s, &r);
        break;
    case CDC_XOP_DIV:
        rc = cdc_xdec_div(a.v.dec, n->s1, b.v.dec, n->s2, p, s, &r);
        break;
    case CDC_XOP_MOD:
        rc = cdc_xdec_mod(a.v.dec, n->s1, b.v.dec, n->s2, p, s, &r);
        break;
    case CDC_XOP_NEG:
        rc = 0;
        r = -a.v.dec;
        break;
    default:
        rc = 0;
        r = a.v.dec < 0 ? -a.v.dec : a.v.dec;
        break;
    }
    if (rc == -2)
        return cdc_xerr(cx, "division by zero");
    if (rc < 0)
        return cdc_xerr(cx, "value out of range for %s", n->name);
    out->flags = 0;
    out->v.dec = r;
    return 0;
}

/* ---- comparisons ---------------------------------------------------------------------------- */

int cdc_xcmp_int(const cdc_type_t *ta, const cdc_value_t *a, const cdc_type_t *tb,
                 const cdc_value_t *b)
{
    (void)ta;
    (void)tb;
    return a->v.i < b->v.i ? -1 : a->v.i > b->v.i;
}

int cdc_xcmp_float(const cdc_type_t *ta, const cdc_value_t *a, const cdc_type_t *tb,
                   const cdc_value_t *b)
{
    (void)ta;
    (void)tb;
    if (isnan(a->v.f) || isnan(b->v.f))
        return CDC_XCMP_UNORDERED;
    return a->v.f < b->v.f ? -1 : a->v.f > b->v.f;
}

int cdc_xcmp_double(const cdc_type_t *ta, const cdc_value_t *a, const cdc_type_t *tb,
                    const cdc_value_t *b)
{
    (void)ta;
    (void)tb;
    if (isnan(a->v.d) || isnan(b->v.d))
        return CDC_XCMP_UNORDERED;
    return a->v.d < b->v.d ? -1 : a->v.d > b->v.d;
}

int cdc_xcmp_dec(const cdc_type_t *ta, const cdc_value_t *a, const cdc_type_t *tb,
                 const cdc_value_t *b)
{
    return cdc_xdec_cmp(a->v.dec, ta->scale, b->v.dec, tb->scale);
}

int cdc_xcmp_str(const cdc_type_t *ta, const cdc_value_t *a, const cdc_type_t *tb,
                 const cdc_value_t *b)
{
    (void)ta;
    (void)tb;
    uint32_t la = a->v.s.len, lb = b->v.s.len;
    int c = memcmp(a->v.s.ptr, b->v.s.ptr, la < lb ? la : lb);
    if (c)
        return c < 0 ? -1 : 1;
    return la < lb ? -1 : la > lb;
}

int cdc_xcmp_bool(const cdc_type_t *ta, const cdc_value_t *a, const cdc_type_t *tb,
                  const cdc_value_t *b)
{
    (void)ta;
    (void)tb;
    return (int)a->v.b - (int)b->v.b;
}

int cdc_xcmp_ts(const cdc_type_t *ta, const cdc_value_t *a, const cdc_type_t *tb,
                const cdc_value_t *b)
{
    (void)ta;
    (void)tb;
    if (a->v.ts.millis != b->v.ts.millis)
        return a->v.ts.millis < b->v.ts.millis ? -1 : 1;
    return a->v.ts.nanos < b->v.ts.nanos ? -1 : a->v.ts.nanos > b->v.ts.nanos;
}

static bool cmp_holds(int op, int c)
{
    if (c == CDC_XCMP_UNORDERED)
        return op == CDC_XOP_NE;
    switch (op) {
    case CDC_XOP_EQ:
        return c == 0;
    case CDC_XOP_NE:
        return c != 0;
    case CDC_XOP_LT:
        return c < 0;
    case CDC_XOP_LE:
        return c <= 0;
    case CDC_XOP_GT:
        return c > 0;
    default:
        return c >= 0;
    }
}

int cdc_xeval_compare(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a, b;
    bool is_null;
    if (eval_operands(n, cx, &a, &b, &is_null) < 0)
        return -1;
    if (is_null) {
        cdc_xset_null(out);
        return 0;
    }
    set_bool(out, cmp_holds(n->op, n->cmp(n->kids[0]->type, &a, n->kids[1]->type, &b)));
    return 0;
}

/* ---- logic ---------------------------------------------------------------------------------- */

int cdc_xeval_and(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a, b;
    EVAL_KID(0, &a);
    if (!cdc_value_is_null(&a) && !a.v.b) {
        set_bool(out, false);
        return 0;
    }
    EVAL_KID(1, &b);
    if (!cdc_value_is_null(&b) && !b.v.b)
        set_bool(out, false);
    else if (cdc_value_is_null(&a) || cdc_value_is_null(&b))
        cdc_xset_null(out);
    else
        set_bool(out, true);
    return 0;
}

int cdc_xeval_or(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a, b;
    EVAL_KID(0, &a);
    if (!cdc_value_is_null(&a) && a.v.b) {
        set_bool(out, true);
        return 0;
    }
    EVAL_KID(1, &b);
    if (!cdc_value_is_null(&b) && b.v.b)
        set_bool(out, true);
    else if (cdc_value_is_null(&a) || cdc_value_is_null(&b))
        cdc_xset_null(out);
    else
        set_bool(out, false);
    return 0;
}

int cdc_xeval_not(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a;
    EVAL_KID(0, &a);
    if (cdc_value_is_null(&a))
        cdc_xset_null(out);
    else
        set_bool(out, !a.v.b);
    return 0;
}

int cdc_xeval_is_null(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a;
    EVAL_KID(0, &a);
    set_bool(out, cdc_value_is_null(&a) != n->negated);
    return 0;
}

/* kids: operand, items... (all of one type). */
int cdc_xeval_in(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t x, item;
    EVAL_KID(0, &x);
    if (cdc_value_is_null(&x)) {
        cdc_xset_null(out);
        return 0;
    }
    bool saw_null = false;
    for (int i = 1; i < n->nkids; i++) {
        EVAL_KID(i, &item);
        if (cdc_value_is_null(&item)) {
            saw_null = true;
            continue;
        }
        if (n->cmp(n->kids[0]->type, &x, n->kids[i]->type, &item) == 0) {
            set_bool(out, !n->negated);
            return 0;
        }
    }
    if (saw_null)
        cdc_xset_null(out);
    else
        set_bool(out, n->negated);
    return 0;
}

/* kids: operand, low, high: low <= x AND x <= high, with three-valued logic. */
int cdc_xeval_between(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t x, lo, hi;
    EVAL_KID(0, &x);
    EVAL_KID(1, &lo);
    EVAL_KID(2, &hi);
    /* each side: 1 true, 0 false, -1 unknown */
    int ge = -1, le = -1;
    if (!cdc_value_is_null(&x) && !cdc_value_is_null(&lo))
        ge = cmp_holds(CDC_XOP_GE, n->cmp(n->kids[0]->type, &x, n->kids[1]->type, &lo));
    if (!cdc_value_is_null(&x) && !cdc_value_is_null(&hi))
        le = cmp_holds(CDC_XOP_LE, n->cmp(n->kids[0]->type, &x, n->kids[2]->type, &hi));
    int r = (ge == 0 || le == 0) ? 0 : (ge < 0 || le < 0) ? -1 : 1;
    if (r < 0)
        cdc_xset_null(out);
    else
        set_bool(out, (r == 1) != n->negated);
    return 0;
}

/* ---- conditionals --------------------------------------------------------------------------- */

/* kids: when1, then1, ..., [else] */
int cdc_xeval_case(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    int npairs = (n->nkids - n->has_else) / 2;
    cdc_value_t c;
    for (int i = 0; i < npairs; i++) {
        EVAL_KID(2 * i, &c);
        if (!cdc_value_is_null(&c) && c.v.b) {
            EVAL_KID(2 * i + 1, out);
            return 0;
        }
    }
    if (n->has_else) {
        EVAL_KID(n->nkids - 1, out);
        return 0;
    }
    cdc_xset_null(out);
    return 0;
}

/* kids: operand, value1, then1, ..., [else] */
int cdc_xeval_simple_case(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    int npairs = (n->nkids - 1 - n->has_else) / 2;
    cdc_value_t x, v;
    EVAL_KID(0, &x);
    if (!cdc_value_is_null(&x)) {
        for (int i = 0; i < npairs; i++) {
            EVAL_KID(1 + 2 * i, &v);
            if (!cdc_value_is_null(&v) &&
                n->cmp(n->kids[0]->type, &x, n->kids[1 + 2 * i]->type, &v) == 0) {
                EVAL_KID(2 + 2 * i, out);
                return 0;
            }
        }
    }
    if (n->has_else) {
        EVAL_KID(n->nkids - 1, out);
        return 0;
    }
    cdc_xset_null(out);
    return 0;
}

int cdc_xeval_coalesce(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    for (int i = 0; i < n->nkids; i++) {
        EVAL_KID(i, out);
        if (!cdc_value_is_null(out))
            return 0;
    }
    cdc_xset_null(out);
    return 0;
}

int cdc_xeval_nullif(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t b;
    EVAL_KID(0, out);
    if (cdc_value_is_null(out))
        return 0;
    EVAL_KID(1, &b);
    if (!cdc_value_is_null(&b) && n->cmp(n->kids[0]->type, out, n->kids[1]->type, &b) == 0)
        cdc_xset_null(out);
    return 0;
}

/* ---- strings -------------------------------------------------------------------------------- */

int cdc_xeval_concat_op(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a, b;
    bool is_null;
    if (eval_operands(n, cx, &a, &b, &is_null) < 0)
        return -1;
    if (is_null) {
        cdc_xset_null(out);
        return 0;
    }
    size_t len = (size_t)a.v.s.len + b.v.s.len;
    if (len > UINT32_MAX)
        return cdc_xerr(cx, "string too long");
    char *p = cdc_arena_alloc(cx->arena, len ? len : 1);
    memcpy(p, a.v.s.ptr, a.v.s.len);
    memcpy(p + a.v.s.len, b.v.s.ptr, b.v.s.len);
    out->flags = 0;
    out->v.s.ptr = p;
    out->v.s.len = (uint32_t)len;
    return 0;
}

/* ---- subscripts ----------------------------------------------------------------------------- */

/* kids: array, index (BIGINT); 1-based, NULL when out of range. */
int cdc_xeval_subscript_array(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a, i;
    bool is_null;
    if (eval_operands(n, cx, &a, &i, &is_null) < 0)
        return -1;
    if (is_null || i.v.i < 1 || (uint64_t)i.v.i > a.v.arr.n) {
        cdc_xset_null(out);
        return 0;
    }
    *out = a.v.arr.elems[i.v.i - 1];
    return 0;
}

/* kids: a ROW; path[0] the field read. */
int cdc_xeval_subscript_field(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t r;
    EVAL_KID(0, &r);
    if (cdc_value_is_null(&r) || (uint32_t)n->path[0] >= r.v.row->arity ||
        cdc_value_is_null(&r.v.row->values[n->path[0]])) {
        cdc_xset_null(out);
        return 0;
    }
    *out = r.v.row->values[n->path[0]];
    return 0;
}

/* kids: map, key (of the map's key type). */
int cdc_xeval_subscript_map(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t m, k;
    bool is_null;
    if (eval_operands(n, cx, &m, &k, &is_null) < 0)
        return -1;
    if (!is_null) {
        for (uint32_t i = 0; i < m.v.arr.n; i++) {
            const cdc_value_t *key = &m.v.arr.elems[i];
            if (!cdc_value_is_null(key) &&
                n->cmp(n->kids[0]->type->children[0], key, n->kids[1]->type, &k) == 0) {
                *out = m.v.arr.vals[i];
                return 0;
            }
        }
    }
    cdc_xset_null(out);
    return 0;
}
