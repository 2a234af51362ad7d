/*
 * cdc_expr.c — the expression compiler: resolves columns, types literals,
 * infers result types (rules in cdc_expr.h), inserts implicit casts, folds
 * constants, and reports errors with line:col and a caret. Also the public
 * entry points (eval, predicate, conjuncts).
 *
 * Built-in functions and user functions are compiled in cdc_expr_func.c,
 * casts live in cdc_expr_cast.c, evaluation in cdc_expr_eval.c.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_expr_int.h"
#include "cdc_options.h"

struct cdc_expr_s {
    cdc_xnode_t *root;
    cdc_arena_t consts; /* literal strings and folded values */
};

/* ---- nodes ---------------------------------------------------------------------------------- */

cdc_xnode_t *cdc_xnode_new(cdc_xeval_fn eval, cdc_type_t *type, int line, int col)
{
    cdc_xnode_t *n = cdc_xcalloc(1, sizeof(*n));
    n->eval = eval;
    n->type = type;
    n->line = line;
    n->col = col;
    return n;
}

void cdc_xnode_free(cdc_xnode_t *n)
{
    if (!n)
        return;
    for (int i = 0; i < n->nkids; i++)
        cdc_xnode_free(n->kids[i]);
    free(n->kids);
    cdc_type_destroy(n->type);
    free(n->path);
    free((char *)n->colname);
    free(n->name);
    if (n->aux_free)
        n->aux_free(n->aux);
    free(n);
}

void cdc_xnode_add(cdc_xnode_t *n, cdc_xnode_t *kid)
{
    n->kids = cdc_xrealloc(n->kids, sizeof(*n->kids) * (size_t)(n->nkids + 1));
    n->kids[n->nkids++] = kid;
}

static cdc_type_t *type_of(cdc_type_root_t root, bool nullable)
{
    cdc_type_t *t = cdc_type_new(root);
    t->nullable = nullable;
    return t;
}

static cdc_type_t *string_type(bool nullable)
{
    cdc_type_t *t = cdc_type_new_sized(CDC_T_VARCHAR, CDC_MAX_LENGTH);
    t->nullable = nullable;
    return t;
}

static cdc_type_t *copy_with_null(const cdc_type_t *t, bool nullable)
{
    cdc_type_t *c = cdc_type_copy(t);
    c->nullable = nullable;
    return c;
}

void cdc_xmark_constant(cdc_xnode_t *n)
{
    n->constant = true;
    for (int i = 0; i < n->nkids; i++)
        if (!n->kids[i]->constant)
            n->constant = false;
}

cdc_xnode_t *cdc_xfold(cdc_xcompiler_t *cc, cdc_xnode_t *n)
{
    if (!n->constant || n->eval == cdc_xeval_literal || n->untyped_null)
        return n;
    char errbuf[8];
    cdc_xctx_t cx = {NULL, cc->consts, errbuf, sizeof(errbuf)};
    cdc_value_t v;
    if (n->eval(n, &cx, &v) < 0)
        return n; /* fails again per row, with its message */
    /* The value points into constant storage or nowhere: the children can go. */
    for (int i = 0; i < n->nkids; i++)
        cdc_xnode_free(n->kids[i]);
    free(n->kids);
    n->kids = NULL;
    n->nkids = 0;
    n->eval = cdc_xeval_literal;
    n->lit = v;
    return n;
}

/* ---- errors --------------------------------------------------------------------------------- */

static cdc_error_t *error_v(const cdc_expr_env_t *env, int line, int col, const char *hint,
                            const char *fmt, va_list ap)
{
    char *text = cdc_strdup_vprintf(fmt, ap);
    cdc_error_t *err = cdc_error_new(CDC_ERR_SQL, "%s:%d:%d: %s",
                                     env->filename ? env->filename : "<input>", line, col, text);
    free(text);
    if (env->text) {
        char *caret = cdc_sql_caret(env->text, env->len, line, col);
        cdc_error_set_detail(err, "%s", caret);
        free(caret);
    }
    if (hint)
        cdc_error_set_hint(err, "%s", hint);
    return err;
}

cdc_error_t *cdc_expr_error_at(const cdc_expr_env_t *env, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cdc_error_t *err = error_v(env, line, col, NULL, fmt, ap);
    va_end(ap);
    return err;
}

cdc_xnode_t *cdc_xcerr(cdc_xcompiler_t *cc, int line, int col, const char *hint, const char *fmt,
                       ...)
{
    va_list ap;
    va_start(ap, fmt);
    cdc_error_t *err = error_v(cc->env, line, col, hint, fmt, ap);
    va_end(ap);
    if (cc->err && !*cc->err)
        *cc->err = err;
    else
        cdc_error_destroy(err);
    return NULL;
}

const char *cdc_xtype_name(const cdc_type_t *t, char buf[128])
{
    cdc_type_t shown = *t; /* shallow: printing only reads the children */
    shown.nullable = true;
    char *s = cdc_type_to_string(&shown);
    snprintf(buf, 128, "%s", s);
    free(s);
    return buf;
}

/* Type name of a node for messages; a bare NULL shows as NULL. */
static const char *node_type_name(const cdc_xnode_t *n, char buf[128])
{
    if (n->untyped_null) {
        snprintf(buf, 128, "NULL");
        return buf;
    }
    return cdc_xtype_name(n->type, buf);
}

static cdc_xnode_t *err_apply2(cdc_xcompiler_t *cc, int line, int col, const char *op,
                               const cdc_xnode_t *a, const cdc_xnode_t *b)
{
    char ta[128], tb[128];
    return cdc_xcerr(cc, line, col, NULL, "cannot apply \"%s\" to %s and %s", op,
                     node_type_name(a, ta), node_type_name(b, tb));
}

static cdc_xnode_t *err_untyped(cdc_xcompiler_t *cc, int line, int col)
{
    return cdc_xcerr(cc, line, col, "give it a type with CAST(NULL AS type)",
                     "cannot infer the type of NULL");
}

/* ---- type helpers --------------------------------------------------------------------------- */

static bool is_numeric(const cdc_type_t *t)
{
    cdc_xcat_t c = cdc_xcat(t);
    return c == CDC_XC_INT || c == CDC_XC_FLOAT || c == CDC_XC_DOUBLE || c == CDC_XC_DEC;
}

/* DECIMAL digits needed by an integer type. */
static int int_digits(cdc_type_root_t root)
{
    switch (root) {
    case CDC_T_TINYINT:
        return 3;
    case CDC_T_SMALLINT:
        return 5;
    case CDC_T_INT:
        return 10;
    default:
        return 19;
    }
}

static int int_width(cdc_type_root_t root)
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

/* The DECIMAL an integer or decimal type is seen as. */
static void as_decimal(const cdc_type_t *t, int *p, int *s)
{
    if (t->root == CDC_T_DECIMAL) {
        *p = t->precision;
        *s = t->scale;
    } else {
        *p = int_digits(t->root);
        *s = 0;
    }
}

static cdc_type_t *decimal_type(int p, int s, bool nullable)
{
    cdc_type_t *t = cdc_type_new_decimal(p, s);
    t->nullable = nullable;
    return t;
}

/* Flink's LogicalTypeMerging.adjustPrecisionScale. */
static void adjust_decimal(int *p, int *s)
{
    if (*p <= CDC_MAX_DECIMAL_PRECISION)
        return;
    int digits = *p - *s;
    int min_scale = *s < 6 ? *s : 6;
    int scale = CDC_MAX_DECIMAL_PRECISION - digits;
    *s = scale > min_scale ? scale : min_scale;
    *p = CDC_MAX_DECIMAL_PRECISION;
}

static void decimal_result(int op, int p1, int s1, int p2, int s2, int *p, int *s)
{
    int i1 = p1 - s1, i2 = p2 - s2;
    switch (op) {
    case CDC_XOP_ADD:
    case CDC_XOP_SUB:
        *s = s1 > s2 ? s1 : s2;
        *p = (i1 > i2 ? i1 : i2) + *s + 1;
        break;
    case CDC_XOP_MUL:
        *s = s1 + s2;
        *p = p1 + p2;
        break;
    case CDC_XOP_DIV:
        *s = s1 + p2 + 1 > 6 ? s1 + p2 + 1 : 6;
        *p = p1 - s1 + s2 + *s;
        break;
    default: /* MOD */
        *s = s1 > s2 ? s1 : s2;
        *p = (i1 < i2 ? i1 : i2) + *s;
        break;
    }
    adjust_decimal(p, s);
}

void cdc_xcoerce_null(cdc_xnode_t *n, const cdc_type_t *t)
{
    if (!n->untyped_null)
        return;
    cdc_type_destroy(n->type);
    n->type = copy_with_null(t, true);
    n->untyped_null = false;
}

static bool same_type(const cdc_type_t *a, const cdc_type_t *b)
{
    if (a->nullable == b->nullable)
        return cdc_type_equals(a, b);
    cdc_type_t tmp = *b; /* shallow */
    tmp.nullable = a->nullable;
    return cdc_type_equals(a, &tmp);
}

cdc_xnode_t *cdc_xwrap_cast(cdc_xcompiler_t *cc, cdc_xnode_t *n, const cdc_type_t *t)
{
    if (n->untyped_null) {
        cdc_xcoerce_null(n, t);
        return n;
    }
    if (same_type(n->type, t))
        return n;
    cdc_xconv_fn conv = cdc_xcast_resolve(n->type, t);
    if (!conv) {
        char ta[128], tb[128];
        cdc_xcerr(cc, n->line, n->col, NULL, "cannot convert %s to %s", cdc_xtype_name(n->type, ta),
                  cdc_xtype_name(t, tb));
        cdc_xnode_free(n);
        return NULL;
    }
    cdc_xnode_t *c =
        cdc_xnode_new(cdc_xeval_cast, copy_with_null(t, n->type->nullable), n->line, n->col);
    cdc_xnode_add(c, n);
    c->conv = conv;
    cdc_xcast_prepare(c);
    cdc_xmark_constant(c);
    return cdc_xfold(cc, c);
}

/* Least restrictive type of two non-NULL types, or NULL. */
static cdc_type_t *merge2(const cdc_type_t *a, const cdc_type_t *b)
{
    bool nullable = a->nullable || b->nullable;
    if (same_type(a, b))
        return copy_with_null(a, nullable);
    cdc_xcat_t ca = cdc_xcat(a), cb = cdc_xcat(b);
    if (is_numeric(a) && is_numeric(b)) {
        if (ca == CDC_XC_DOUBLE || cb == CDC_XC_DOUBLE ||
            ((ca == CDC_XC_FLOAT || cb == CDC_XC_FLOAT) && (ca == CDC_XC_DEC || cb == CDC_XC_DEC)))
            return type_of(CDC_T_DOUBLE, nullable);
        if (ca == CDC_XC_FLOAT || cb == CDC_XC_FLOAT)
            return type_of(CDC_T_FLOAT, nullable);
        if (ca == CDC_XC_DEC || cb == CDC_XC_DEC) {
            int p1, s1, p2, s2;
            as_decimal(a, &p1, &s1);
            as_decimal(b, &p2, &s2);
            int digits = p1 - s1 > p2 - s2 ? p1 - s1 : p2 - s2;
            int s = s1 > s2 ? s1 : s2;
            if (digits + s > CDC_MAX_DECIMAL_PRECISION)
                s = CDC_MAX_DECIMAL_PRECISION - digits;
            return decimal_type(digits + s, s, nullable);
        }
        return type_of(a->root > b->root ? a->root : b->root, nullable);
    }
    if (ca == CDC_XC_STR && cb == CDC_XC_STR)
        return string_type(nullable);
    if (ca == CDC_XC_BIN && cb == CDC_XC_BIN) {
        cdc_type_t *t = cdc_type_new_sized(CDC_T_VARBINARY, CDC_MAX_LENGTH);
        t->nullable = nullable;
        return t;
    }
    bool ts_a = ca == CDC_XC_TS || ca == CDC_XC_DATE, ts_b = cb == CDC_XC_TS || cb == CDC_XC_DATE;
    if ((ts_a && ts_b) || (ca == CDC_XC_LTZ && cb == CDC_XC_LTZ) ||
        (ca == CDC_XC_TIME && cb == CDC_XC_TIME)) {
        cdc_type_root_t root = ca == CDC_XC_DATE && cb == CDC_XC_DATE ? CDC_T_DATE
                               : ca == CDC_XC_DATE                    ? b->root
                                                                      : a->root;
        cdc_type_t *t = type_of(root, nullable);
        int pa = ca == CDC_XC_DATE ? 0 : a->precision, pb = cb == CDC_XC_DATE ? 0 : b->precision;
        t->precision = root == CDC_T_DATE ? 0 : pa > pb ? pa : pb;
        return t;
    }
    return NULL;
}

cdc_type_t *cdc_expr_common_type(const cdc_type_t *a, const cdc_type_t *b)
{
    return merge2(a, b);
}

cdc_type_t *cdc_xcommon_type(cdc_xnode_t *const *nodes, int n, bool *all_null)
{
    cdc_type_t *acc = NULL;
    bool any_null = false;
    *all_null = true;
    for (int i = 0; i < n; i++) {
        if (nodes[i]->untyped_null) {
            any_null = true;
            continue;
        }
        *all_null = false;
        if (!acc) {
            acc = cdc_type_copy(nodes[i]->type);
            continue;
        }
        cdc_type_t *m = merge2(acc, nodes[i]->type);
        cdc_type_destroy(acc);
        if (!m)
            return NULL;
        acc = m;
    }
    if (acc && any_null)
        acc->nullable = true;
    return acc;
}

cdc_xcmp_fn cdc_xcmp_for(const cdc_type_t *t)
{
    switch (cdc_xcat(t)) {
    case CDC_XC_BOOL:
        return cdc_xcmp_bool;
    case CDC_XC_INT:
    case CDC_XC_DATE:
    case CDC_XC_TIME:
        return cdc_xcmp_int;
    case CDC_XC_FLOAT:
        return cdc_xcmp_float;
    case CDC_XC_DOUBLE:
        return cdc_xcmp_double;
    case CDC_XC_DEC:
        return cdc_xcmp_dec;
    case CDC_XC_STR:
    case CDC_XC_BIN:
        return cdc_xcmp_str;
    case CDC_XC_TS:
    case CDC_XC_LTZ:
        return cdc_xcmp_ts;
    default:
        return NULL;
    }
}

static bool is_temporal(cdc_xcat_t c)
{
    return c == CDC_XC_DATE || c == CDC_XC_TIME || c == CDC_XC_TS || c == CDC_XC_LTZ;
}

/*
 * The comparison class of two types: numerics compare as BIGINT (integers), DECIMAL (each side
 * keeps its own precision and scale, integers become DECIMAL(n, 0)), FLOAT or DOUBLE; a string
 * meets a temporal type as that type; DATE meets TIMESTAMP as TIMESTAMP. Returns a type that
 * stands for the class (for DECIMAL only its root matters), or NULL when incomparable.
 */
static cdc_type_t *compare_class(const cdc_type_t *a, const cdc_type_t *b)
{
    cdc_xcat_t ca = cdc_xcat(a), cb = cdc_xcat(b);
    if (is_numeric(a) && is_numeric(b)) {
        if (ca == CDC_XC_FLOAT && cb == CDC_XC_FLOAT)
            return type_of(CDC_T_FLOAT, true);
        if (ca == CDC_XC_FLOAT || cb == CDC_XC_FLOAT || ca == CDC_XC_DOUBLE || cb == CDC_XC_DOUBLE)
            return type_of(CDC_T_DOUBLE, true);
        if (ca == CDC_XC_DEC || cb == CDC_XC_DEC)
            return decimal_type(CDC_MAX_DECIMAL_PRECISION, 0, true); /* marker: DECIMAL class */
        return type_of(CDC_T_BIGINT, true);
    }
    if (ca == cb && ca != CDC_XC_OTHER) {
        if (ca == CDC_XC_TS || ca == CDC_XC_LTZ || ca == CDC_XC_TIME) {
            cdc_type_t *t = type_of(a->root, true);
            t->precision = a->precision > b->precision ? a->precision : b->precision;
            return t;
        }
        return copy_with_null(a, true);
    }
    if (ca == CDC_XC_STR && is_temporal(cb))
        return copy_with_null(b, true);
    if (cb == CDC_XC_STR && is_temporal(ca))
        return copy_with_null(a, true);
    if ((ca == CDC_XC_DATE && cb == CDC_XC_TS) || (ca == CDC_XC_TS && cb == CDC_XC_DATE)) {
        cdc_type_t *t = type_of(CDC_T_TIMESTAMP, true);
        t->precision = ca == CDC_XC_TS ? a->precision : b->precision;
        return t;
    }
    return NULL;
}

/* Converts node *np to comparison class @p cls. */
static bool to_class(cdc_xcompiler_t *cc, cdc_xnode_t **np, const cdc_type_t *cls)
{
    cdc_xnode_t *n = *np;
    cdc_xcat_t c = cdc_xcat(n->type), k = cdc_xcat(cls);
    if (k == CDC_XC_DEC) {
        if (c == CDC_XC_DEC)
            return true;
        cdc_type_t *t = decimal_type(int_digits(n->type->root), 0, true);
        *np = cdc_xwrap_cast(cc, n, t);
        cdc_type_destroy(t);
        return *np != NULL;
    }
    if (k == CDC_XC_INT && c == CDC_XC_INT)
        return true; /* every integer is an int64 already */
    if (k == CDC_XC_STR && c == CDC_XC_STR)
        return true;
    if (k == CDC_XC_BIN && c == CDC_XC_BIN)
        return true;
    if ((k == CDC_XC_TS || k == CDC_XC_LTZ || k == CDC_XC_TIME) && c == k)
        return true; /* precision does not matter to the comparison */
    *np = cdc_xwrap_cast(cc, n, cls);
    return *np != NULL;
}

cdc_xcmp_fn cdc_xcmp_prepare(cdc_xcompiler_t *cc, cdc_xnode_t **nodes, int n, const char *op,
                             int line, int col)
{
    /* a bare NULL takes the type of the first typed node (BOOLEAN when none is typed) */
    const cdc_type_t *first = NULL;
    for (int i = 0; i < n && !first; i++)
        if (!nodes[i]->untyped_null)
            first = nodes[i]->type;
    cdc_type_t *boolean = type_of(CDC_T_BOOLEAN, true);
    for (int i = 0; i < n; i++)
        cdc_xcoerce_null(nodes[i], first ? first : boolean);
    cdc_type_destroy(boolean);

    cdc_type_t *cls = NULL;
    for (int i = 1; i < n; i++) {
        const cdc_type_t *left = cls ? cls : nodes[0]->type;
        cdc_type_t *next = compare_class(left, nodes[i]->type);
        if (!next) {
            cdc_type_destroy(cls);
            err_apply2(cc, line, col, op, nodes[0], nodes[i]);
            return NULL;
        }
        /* once DOUBLE or DECIMAL, stay there; strings met by temporals become temporal */
        cdc_type_destroy(cls);
        cls = next;
    }
    if (!cls)
        cls = copy_with_null(nodes[0]->type, true);
    for (int i = 0; i < n; i++) {
        if (!to_class(cc, &nodes[i], cls)) {
            cdc_type_destroy(cls);
            return NULL;
        }
    }
    cdc_xcmp_fn cmp = cdc_xcmp_for(nodes[0]->type);
    if (!cmp) {
        char buf[128];
        cdc_xcerr(cc, line, col, NULL, "cannot apply \"%s\" to %s", op,
                  cdc_xtype_name(nodes[0]->type, buf));
    }
    cdc_type_destroy(cls);
    return cmp;
}

/* ---- literals ------------------------------------------------------------------------------- */

static cdc_xnode_t *literal_node(cdc_type_t *type, const cdc_sql_expr_t *ast)
{
    cdc_xnode_t *n = cdc_xnode_new(cdc_xeval_literal, type, ast->line, ast->col);
    n->constant = true;
    return n;
}

static int fraction_digits(const char *text)
{
    const char *dot = strrchr(text, '.');
    if (!dot)
        return 0;
    int d = 0;
    for (const char *p = dot + 1; isdigit((unsigned char)*p); p++)
        d++;
    return d;
}

static cdc_xnode_t *compile_literal(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast)
{
    const char *text = ast->literal.text ? ast->literal.text : "";
    size_t len = strlen(text);
    cdc_xnode_t *n;
    switch (ast->literal.kind) {
    case CDC_SQL_LIT_INTEGER: {
        const char *d = text;
        while (*d == '0' && d[1])
            d++;
        size_t nd = strlen(d);
        if (nd <= 19) {
            unsigned long long v = strtoull(d, NULL, 10);
            if (v <= (unsigned long long)INT64_MAX) {
                n = literal_node(type_of(v <= INT32_MAX ? CDC_T_INT : CDC_T_BIGINT, false), ast);
                n->lit.v.i = (int64_t)v;
                return n;
            }
        }
        if (nd <= CDC_MAX_DECIMAL_PRECISION) {
            n = literal_node(decimal_type((int)nd, 0, false), ast);
            cdc_decimal_parse(d, nd, (int)nd, 0, &n->lit.v.dec);
            return n;
        }
        return cdc_xcerr(cc, ast->line, ast->col, NULL, "numeric literal %s is out of range", text);
    }
    case CDC_SQL_LIT_DECIMAL: {
        if (strpbrk(text, "eE")) {
            n = literal_node(type_of(CDC_T_DOUBLE, false), ast);
            n->lit.v.d = strtod(text, NULL);
            return n;
        }
        int scale = fraction_digits(text), digits = 0;
        bool leading = true;
        for (const char *p = text; *p; p++) {
            if (!isdigit((unsigned char)*p) || (leading && *p == '0'))
                continue;
            leading = false;
            digits++;
        }
        int p = digits > scale ? digits : scale;
        if (p < 1)
            p = 1;
        if (p > CDC_MAX_DECIMAL_PRECISION)
            return cdc_xcerr(cc, ast->line, ast->col, NULL,
                             "numeric literal %s has more than 38 digits", text);
        n = literal_node(decimal_type(p, scale, false), ast);
        cdc_decimal_parse(text, len, p, scale, &n->lit.v.dec);
        return n;
    }
    case CDC_SQL_LIT_STRING:
        n = literal_node(string_type(false), ast);
        n->lit.v.s.ptr = cdc_arena_memdup(cc->consts, text, len ? len : 1);
        n->lit.v.s.len = (uint32_t)len;
        return n;
    case CDC_SQL_LIT_BOOLEAN:
        n = literal_node(type_of(CDC_T_BOOLEAN, false), ast);
        n->lit.v.b = text[0] == 'T' || text[0] == 't';
        return n;
    case CDC_SQL_LIT_NULL:
        n = literal_node(type_of(CDC_T_BOOLEAN, true), ast);
        n->lit.flags = CDC_V_NULL;
        n->untyped_null = true;
        return n;
    case CDC_SQL_LIT_DATE: {
        int32_t days;
        if (cdc_date_parse(text, len, &days) < 0)
            return cdc_xcerr(cc, ast->line, ast->col, "write dates as 'yyyy-mm-dd'",
                             "invalid DATE literal '%s'", text);
        n = literal_node(type_of(CDC_T_DATE, false), ast);
        n->lit.v.i = days;
        return n;
    }
    case CDC_SQL_LIT_TIME: {
        int64_t nanos;
        int prec = fraction_digits(text);
        if (prec > 9 || cdc_time_parse(text, len, prec, &nanos) < 0)
            return cdc_xcerr(cc, ast->line, ast->col, "write times as 'hh:mm:ss[.fffffffff]'",
                             "invalid TIME literal '%s'", text);
        n = literal_node(cdc_type_new_sized(CDC_T_TIME, prec), ast);
        n->type->nullable = false;
        n->lit.v.i = nanos;
        return n;
    }
    case CDC_SQL_LIT_TIMESTAMP: {
        cdc_ts_t ts;
        const char *time = strpbrk(text, " T");
        int prec = time ? fraction_digits(time) : 0;
        if (prec > 9 || cdc_timestamp_parse(text, len, prec, false, &ts, NULL) < 0)
            return cdc_xcerr(cc, ast->line, ast->col,
                             "write timestamps as 'yyyy-mm-dd hh:mm:ss[.fffffffff]'",
                             "invalid TIMESTAMP literal '%s'", text);
        n = literal_node(cdc_type_new_sized(CDC_T_TIMESTAMP, prec), ast);
        n->type->nullable = false;
        n->lit.v.ts = ts;
        return n;
    }
    case CDC_SQL_LIT_INTERVAL:
        return cdc_xcerr(cc, ast->line, ast->col,
                         "add it to or subtract it from a DATE, TIME or TIMESTAMP",
                         "an INTERVAL is only supported in datetime +/- INTERVAL");
    default:
        return cdc_xcerr(cc, ast->line, ast->col, NULL, "unexpected keyword %s", text);
    }
}

/* ---- columns -------------------------------------------------------------------------------- */

/* cdc_closest(), without suggestions that replace the whole word ("x" -> "t"). */
static const char *closest(const char *word, const char *const *cands, int n)
{
    const char *sug = cdc_closest(word, cands, n);
    if (sug && cdc_edit_distance(word, sug) >= (int)strlen(word))
        return NULL;
    return sug;
}

static cdc_xnode_t *not_found(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast, const char *what,
                              const char *name, const char *in, const cdc_type_t *row)
{
    const char *sug = NULL;
    if (row && row->nchildren > 0)
        sug = closest(name, (const char *const *)row->names, row->nchildren);
    char *hint = sug ? cdc_strdup_printf("did you mean \"%s\"?", sug) : NULL;
    if (in)
        cdc_xcerr(cc, ast->line, ast->col, hint, "%s \"%s\" not found in \"%s\"", what, name, in);
    else
        cdc_xcerr(cc, ast->line, ast->col, hint, "%s \"%s\" not found", what, name);
    free(hint);
    return NULL;
}

static bool is_qualifier(const cdc_expr_env_t *env, const char *name)
{
    for (int i = 0; i < env->nqualifiers; i++)
        if (env->qualifiers && env->qualifiers[i] && strcmp(env->qualifiers[i], name) == 0)
            return true;
    return false;
}

static char *join_parts(char *const *parts, size_t from, size_t to)
{
    size_t len = 1;
    for (size_t i = from; i < to; i++)
        len += strlen(parts[i]) + 1;
    char *s = cdc_xmalloc(len), *w = s;
    for (size_t i = from; i < to; i++) {
        if (i > from)
            *w++ = '.';
        size_t l = strlen(parts[i]);
        memcpy(w, parts[i], l);
        w += l;
    }
    *w = '\0';
    return s;
}

static cdc_xnode_t *compile_column(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast)
{
    const cdc_type_t *row = cc->env->row_type;
    char *const *parts = ast->column.parts;
    size_t nparts = ast->column.nparts, first = 0;
    /* "q.c" with a known qualifier q and column c is qualified; otherwise the first part is a
     * column and the rest are fields of nested ROWs */
    int idx = row ? cdc_type_field_index(row, parts[0]) : -1;
    if (nparts >= 2 && is_qualifier(cc->env, parts[0])) {
        int q = row ? cdc_type_field_index(row, parts[1]) : -1;
        if (q >= 0 || idx < 0) {
            first = 1;
            idx = q;
        }
    }
    if (idx < 0)
        return not_found(cc, ast, "column", parts[first], NULL, row);
    const cdc_type_t *t = row->children[idx];
    bool nullable = t->nullable;
    int *path = cdc_xmalloc(sizeof(int) * nparts);
    int npath = 0;
    path[npath++] = idx;
    for (size_t k = first + 1; k < nparts; k++) {
        if (t->root != CDC_T_ROW) {
            char *in = join_parts(parts, first, k), buf[128];
            cdc_xcerr(cc, ast->line, ast->col, NULL, "cannot access field \"%s\" of \"%s\" (%s)",
                      parts[k], in, cdc_xtype_name(t, buf));
            free(in);
            free(path);
            return NULL;
        }
        int fi = cdc_type_field_index(t, parts[k]);
        if (fi < 0) {
            char *in = join_parts(parts, first, k);
            not_found(cc, ast, "field", parts[k], in, t);
            free(in);
            free(path);
            return NULL;
        }
        path[npath++] = fi;
        t = t->children[fi];
        nullable = nullable || t->nullable;
    }
    cdc_xnode_t *n =
        cdc_xnode_new(cdc_xeval_column, copy_with_null(t, nullable), ast->line, ast->col);
    n->path = path;
    n->npath = npath;
    n->colname = join_parts(parts, first, nparts);
    return n;
}

/* ---- operators ------------------------------------------------------------------------------ */

static const char *binary_op_name(cdc_sql_binary_op_t op)
{
    static const char *const names[] = {"",   "OR", "AND", "=", "<>", "<", "<=", ">",
                                        ">=", "||", "+",   "-", "*",  "/", "%"};
    return (unsigned)op < sizeof(names) / sizeof(names[0]) ? names[op] : "?";
}

static int xop_of(cdc_sql_binary_op_t op)
{
    switch (op) {
    case CDC_SQL_BINARY_ADD:
        return CDC_XOP_ADD;
    case CDC_SQL_BINARY_SUB:
        return CDC_XOP_SUB;
    case CDC_SQL_BINARY_MUL:
        return CDC_XOP_MUL;
    case CDC_SQL_BINARY_DIV:
        return CDC_XOP_DIV;
    case CDC_SQL_BINARY_MOD:
        return CDC_XOP_MOD;
    case CDC_SQL_BINARY_EQ:
        return CDC_XOP_EQ;
    case CDC_SQL_BINARY_NE:
        return CDC_XOP_NE;
    case CDC_SQL_BINARY_LT:
        return CDC_XOP_LT;
    case CDC_SQL_BINARY_LE:
        return CDC_XOP_LE;
    case CDC_SQL_BINARY_GT:
        return CDC_XOP_GT;
    default:
        return CDC_XOP_GE;
    }
}

static cdc_xnode_t *finish(cdc_xcompiler_t *cc, cdc_xnode_t *n)
{
    cdc_xmark_constant(n);
    return cdc_xfold(cc, n);
}

/* Builds an arithmetic node over already compiled operands a (and b, may be NULL for unary
 * ops); consumes them. Exposed to functions through cdc_xarith(). */
static cdc_xnode_t *arith(cdc_xcompiler_t *cc, int op, const char *opname, cdc_xnode_t *a,
                          cdc_xnode_t *b, int line, int col)
{
    if (!b && a->untyped_null) {
        err_untyped(cc, a->line, a->col);
        goto fail;
    }
    /* a bare NULL takes the other operand's type, once that one is known to be numeric */
    if ((b && a->untyped_null && b->untyped_null) || (!a->untyped_null && !is_numeric(a->type)) ||
        (b && !b->untyped_null && !is_numeric(b->type))) {
        if (b) {
            err_apply2(cc, line, col, opname, a, b);
        } else {
            char buf[128];
            cdc_xcerr(cc, line, col, NULL, "cannot apply \"%s\" to %s", opname,
                      cdc_xtype_name(a->type, buf));
        }
        goto fail;
    }
    if (b) {
        cdc_xcoerce_null(a, b->type);
        cdc_xcoerce_null(b, a->type);
    }
    bool nullable = a->type->nullable || (b && b->type->nullable);
    cdc_type_t *operand = b ? merge2(a->type, b->type) : copy_with_null(a->type, nullable);
    cdc_type_t *result;
    cdc_xeval_fn eval;
    switch (cdc_xcat(operand)) {
    case CDC_XC_DOUBLE:
        eval = cdc_xeval_arith_double;
        result = copy_with_null(operand, nullable);
        break;
    case CDC_XC_FLOAT:
        eval = cdc_xeval_arith_float;
        result = copy_with_null(operand, nullable);
        break;
    case CDC_XC_DEC: {
        eval = cdc_xeval_arith_dec;
        if (b) {
            int p1, s1, p2, s2, p, s;
            as_decimal(a->type, &p1, &s1);
            as_decimal(b->type, &p2, &s2);
            decimal_result(op, p1, s1, p2, s2, &p, &s);
            result = decimal_type(p, s, nullable);
        } else {
            result = copy_with_null(operand, nullable);
        }
        break;
    }
    default:
        eval = cdc_xeval_arith_int;
        result = copy_with_null(operand, nullable);
        break;
    }
    cdc_xnode_t *n = cdc_xnode_new(eval, result, line, col);
    n->op = op;
    n->bits = int_width(result->root);
    /* operands: to DOUBLE/FLOAT as the result; integers meeting a DECIMAL become DECIMAL(n, 0) */
    cdc_xnode_t *ops[2] = {a, b};
    for (int i = 0; i < (b ? 2 : 1); i++) {
        cdc_xnode_t *o = ops[i];
        cdc_xcat_t oc = cdc_xcat(o->type);
        if (eval == cdc_xeval_arith_double || eval == cdc_xeval_arith_float) {
            o = cdc_xwrap_cast(cc, o, operand);
        } else if (eval == cdc_xeval_arith_dec && oc == CDC_XC_INT) {
            cdc_type_t *t = decimal_type(int_digits(o->type->root), 0, true);
            o = cdc_xwrap_cast(cc, o, t);
            cdc_type_destroy(t);
        }
        if (!o) {
            if (i == 0 && b)
                cdc_xnode_free(b);
            cdc_xnode_free(n);
            cdc_type_destroy(operand);
            return NULL;
        }
        cdc_xnode_add(n, o);
    }
    cdc_type_destroy(operand);
    if (eval == cdc_xeval_arith_dec) {
        char buf[128];
        n->s1 = n->kids[0]->type->scale;
        n->s2 = n->nkids > 1 ? n->kids[1]->type->scale : 0;
        n->name = cdc_xstrdup(cdc_xtype_name(result, buf));
    }
    return finish(cc, n);
fail:
    cdc_xnode_free(a);
    cdc_xnode_free(b);
    return NULL;
}

cdc_xnode_t *cdc_xarith(cdc_xcompiler_t *cc, int op, const char *opname, cdc_xnode_t *a,
                        cdc_xnode_t *b, int line, int col)
{
    return arith(cc, op, opname, a, b, line, col);
}

static bool require_boolean(cdc_xcompiler_t *cc, cdc_xnode_t *n, const char *what, int line,
                            int col)
{
    cdc_type_t *boolean = type_of(CDC_T_BOOLEAN, true);
    cdc_xcoerce_null(n, boolean);
    cdc_type_destroy(boolean);
    if (n->type->root == CDC_T_BOOLEAN)
        return true;
    char buf[128];
    if (strcmp(what, "WHEN") == 0)
        cdc_xcerr(cc, line, col, NULL, "WHEN needs a BOOLEAN condition, found %s",
                  cdc_xtype_name(n->type, buf));
    else
        cdc_xcerr(cc, line, col, NULL, "cannot apply \"%s\" to %s", what,
                  cdc_xtype_name(n->type, buf));
    return false;
}

static cdc_xnode_t *compile_unary(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast)
{
    cdc_xnode_t *a = cdc_xcompile(cc, ast->unary.operand);
    if (!a)
        return NULL;
    switch (ast->unary.op) {
    case CDC_SQL_UNARY_NOT: {
        if (!require_boolean(cc, a, "NOT", ast->line, ast->col)) {
            cdc_xnode_free(a);
            return NULL;
        }
        cdc_xnode_t *n = cdc_xnode_new(cdc_xeval_not, type_of(CDC_T_BOOLEAN, a->type->nullable),
                                       ast->line, ast->col);
        cdc_xnode_add(n, a);
        return finish(cc, n);
    }
    case CDC_SQL_UNARY_MINUS:
        return arith(cc, CDC_XOP_NEG, "-", a, NULL, ast->line, ast->col);
    default:
        if (a->untyped_null || !is_numeric(a->type)) {
            char buf[128];
            cdc_xcerr(cc, ast->line, ast->col, NULL, "cannot apply \"+\" to %s",
                      node_type_name(a, buf));
            cdc_xnode_free(a);
            return NULL;
        }
        return a;
    }
}

static cdc_xnode_t *compile_compare(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast, cdc_xnode_t *a,
                                    cdc_xnode_t *b)
{
    cdc_xnode_t *nodes[2] = {a, b};
    cdc_xcmp_fn cmp =
        cdc_xcmp_prepare(cc, nodes, 2, binary_op_name(ast->binary.op), ast->line, ast->col);
    if (!cmp) {
        cdc_xnode_free(nodes[0]);
        cdc_xnode_free(nodes[1]);
        return NULL;
    }
    bool nullable = nodes[0]->type->nullable || nodes[1]->type->nullable;
    cdc_xnode_t *n =
        cdc_xnode_new(cdc_xeval_compare, type_of(CDC_T_BOOLEAN, nullable), ast->line, ast->col);
    n->op = xop_of(ast->binary.op);
    n->cmp = cmp;
    cdc_xnode_add(n, nodes[0]);
    cdc_xnode_add(n, nodes[1]);
    return finish(cc, n);
}

static bool is_interval(const cdc_sql_expr_t *e)
{
    return e->kind == CDC_SQL_EXPR_LITERAL && e->literal.kind == CDC_SQL_LIT_INTERVAL;
}

static cdc_xnode_t *compile_binary(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast)
{
    cdc_sql_binary_op_t op = ast->binary.op;
    const char *name = binary_op_name(op);
    const cdc_sql_expr_t *l = ast->binary.left, *r = ast->binary.right;
    if (op == CDC_SQL_BINARY_ADD || op == CDC_SQL_BINARY_SUB) { /* datetime +/- INTERVAL */
        if (is_interval(r))
            return cdc_xtime_interval_arith(cc, ast, l, r, op == CDC_SQL_BINARY_SUB);
        if (op == CDC_SQL_BINARY_ADD && is_interval(l))
            return cdc_xtime_interval_arith(cc, ast, r, l, false);
    }
    cdc_xnode_t *a = cdc_xcompile(cc, ast->binary.left);
    if (!a)
        return NULL;
    cdc_xnode_t *b = cdc_xcompile(cc, ast->binary.right);
    if (!b) {
        cdc_xnode_free(a);
        return NULL;
    }
    switch (op) {
    case CDC_SQL_BINARY_AND:
    case CDC_SQL_BINARY_OR: {
        cdc_type_t *boolean = type_of(CDC_T_BOOLEAN, true);
        cdc_xcoerce_null(a, boolean);
        cdc_xcoerce_null(b, boolean);
        cdc_type_destroy(boolean);
        if (a->type->root != CDC_T_BOOLEAN || b->type->root != CDC_T_BOOLEAN) {
            err_apply2(cc, ast->line, ast->col, name, a, b);
            break;
        }
        cdc_xnode_t *n = cdc_xnode_new(
            op == CDC_SQL_BINARY_AND ? cdc_xeval_and : cdc_xeval_or,
            type_of(CDC_T_BOOLEAN, a->type->nullable || b->type->nullable), ast->line, ast->col);
        cdc_xnode_add(n, a);
        cdc_xnode_add(n, b);
        return finish(cc, n);
    }
    case CDC_SQL_BINARY_CONCAT: {
        cdc_type_t *str = string_type(true);
        if (!(a->untyped_null && b->untyped_null)) {
            cdc_xcoerce_null(a, str);
            cdc_xcoerce_null(b, str);
        }
        cdc_type_destroy(str);
        if (a->untyped_null || cdc_xcat(a->type) != CDC_XC_STR || cdc_xcat(b->type) != CDC_XC_STR) {
            err_apply2(cc, ast->line, ast->col, name, a, b);
            break;
        }
        cdc_xnode_t *n =
            cdc_xnode_new(cdc_xeval_concat_op, string_type(a->type->nullable || b->type->nullable),
                          ast->line, ast->col);
        cdc_xnode_add(n, a);
        cdc_xnode_add(n, b);
        return finish(cc, n);
    }
    case CDC_SQL_BINARY_EQ:
    case CDC_SQL_BINARY_NE:
    case CDC_SQL_BINARY_LT:
    case CDC_SQL_BINARY_LE:
    case CDC_SQL_BINARY_GT:
    case CDC_SQL_BINARY_GE:
        return compile_compare(cc, ast, a, b);
    default:
        return arith(cc, xop_of(op), name, a, b, ast->line, ast->col);
    }
    cdc_xnode_free(a);
    cdc_xnode_free(b);
    return NULL;
}

/* ---- predicates ----------------------------------------------------------------------------- */

bool cdc_xcompile_args(cdc_xcompiler_t *cc, const cdc_sql_expr_t *const *args, size_t nargs,
                       cdc_xnode_t **out)
{
    for (size_t i = 0; i < nargs; i++) {
        out[i] = cdc_xcompile(cc, args[i]);
        if (!out[i]) {
            for (size_t k = 0; k < i; k++)
                cdc_xnode_free(out[k]);
            return false;
        }
    }
    return true;
}

static void free_nodes(cdc_xnode_t **nodes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cdc_xnode_free(nodes[i]);
}

/* IN and BETWEEN: operand and items compared in one class. */
static cdc_xnode_t *compile_compare_list(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                                         const cdc_sql_expr_t *const *args, size_t nargs,
                                         const char *op, cdc_xeval_fn eval, bool negated)
{
    cdc_xnode_t **nodes = cdc_xcalloc(nargs, sizeof(*nodes));
    if (!cdc_xcompile_args(cc, args, nargs, nodes)) {
        free(nodes);
        return NULL;
    }
    cdc_xcmp_fn cmp = cdc_xcmp_prepare(cc, nodes, (int)nargs, op, ast->line, ast->col);
    if (!cmp) {
        free_nodes(nodes, nargs);
        free(nodes);
        return NULL;
    }
    bool nullable = false;
    for (size_t i = 0; i < nargs; i++)
        nullable = nullable || nodes[i]->type->nullable;
    cdc_xnode_t *n = cdc_xnode_new(eval, type_of(CDC_T_BOOLEAN, nullable), ast->line, ast->col);
    n->cmp = cmp;
    n->negated = negated;
    for (size_t i = 0; i < nargs; i++)
        cdc_xnode_add(n, nodes[i]);
    free(nodes);
    return finish(cc, n);
}

/* A subquery predicate the planner left in place: it turns only a conjunct of WHERE into a semi
 * (anti) join. */
static cdc_xnode_t *subquery_here(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast, const char *what)
{
    return cdc_xcerr(
        cc, ast->line, ast->col,
        "write it as a condition of WHERE, ANDed with the others (a semi or anti join)",
        "%s is not supported here: a subquery predicate (IN, NOT IN, EXISTS, NOT "
        "EXISTS) is supported only as a condition of a WHERE clause, not under OR "
        "or CASE, in a SELECT list, in ON or in HAVING",
        what);
}

static cdc_xnode_t *compile_in(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast)
{
    if (ast->in_list.subquery)
        return subquery_here(cc, ast,
                             ast->in_list.negated ? "NOT IN (SELECT ...)" : "IN (SELECT ...)");
    size_t nargs = ast->in_list.nitems + 1;
    const cdc_sql_expr_t **args = cdc_xcalloc(nargs, sizeof(*args));
    args[0] = ast->in_list.operand;
    for (size_t i = 0; i < ast->in_list.nitems; i++)
        args[i + 1] = ast->in_list.items[i];
    cdc_xnode_t *n =
        compile_compare_list(cc, ast, args, nargs, ast->in_list.negated ? "NOT IN" : "IN",
                             cdc_xeval_in, ast->in_list.negated);
    free(args);
    return n;
}

static cdc_xnode_t *compile_between(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast)
{
    const cdc_sql_expr_t *args[3] = {ast->between.operand, ast->between.low, ast->between.high};
    return compile_compare_list(cc, ast, args, 3, ast->between.negated ? "NOT BETWEEN" : "BETWEEN",
                                cdc_xeval_between, ast->between.negated);
}

static cdc_xnode_t *compile_like(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast)
{
    const cdc_sql_expr_t *args[3] = {ast->like.operand, ast->like.pattern, ast->like.escape};
    size_t nargs = ast->like.escape ? 3 : 2;
    cdc_xnode_t *nodes[3] = {NULL, NULL, NULL};
    if (!cdc_xcompile_args(cc, args, nargs, nodes))
        return NULL;
    const char *op = ast->like.negated ? "NOT LIKE" : "LIKE";
    cdc_type_t *str = string_type(true);
    bool nullable = false, ok = true;
    for (size_t i = 0; i < nargs; i++) {
        cdc_xcoerce_null(nodes[i], str);
        nullable = nullable || nodes[i]->type->nullable;
        if (cdc_xcat(nodes[i]->type) != CDC_XC_STR && ok) {
            err_apply2(cc, ast->line, ast->col, op, nodes[0], nodes[i == 0 ? 1 : i]);
            ok = false;
        }
    }
    cdc_type_destroy(str);
    if (ok && nargs == 3 && nodes[2]->eval == cdc_xeval_literal &&
        !cdc_value_is_null(&nodes[2]->lit) &&
        cdc_xutf8_count(nodes[2]->lit.v.s.ptr, nodes[2]->lit.v.s.len) != 1) {
        cdc_xcerr(cc, ast->like.escape->line, ast->like.escape->col, NULL,
                  "the ESCAPE of LIKE must be a single character, found '%.*s'",
                  (int)nodes[2]->lit.v.s.len, nodes[2]->lit.v.s.ptr);
        ok = false;
    }
    if (!ok) {
        free_nodes(nodes, nargs);
        return NULL;
    }
    cdc_xnode_t *n =
        cdc_xnode_new(cdc_xeval_like, type_of(CDC_T_BOOLEAN, nullable), ast->line, ast->col);
    n->negated = ast->like.negated;
    for (size_t i = 0; i < nargs; i++)
        cdc_xnode_add(n, nodes[i]);
    return finish(cc, n);
}

static cdc_xnode_t *compile_is_null(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast)
{
    cdc_xnode_t *a = cdc_xcompile(cc, ast->is_null.operand);
    if (!a)
        return NULL;
    cdc_type_t *boolean = type_of(CDC_T_BOOLEAN, true);
    cdc_xcoerce_null(a, boolean);
    cdc_type_destroy(boolean);
    cdc_xnode_t *n =
        cdc_xnode_new(cdc_xeval_is_null, type_of(CDC_T_BOOLEAN, false), ast->line, ast->col);
    n->negated = ast->is_null.negated;
    cdc_xnode_add(n, a);
    return finish(cc, n);
}

/* ---- CAST, CASE, subscripts ----------------------------------------------------------------- */

static cdc_xnode_t *compile_cast(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast)
{
    const cdc_sql_type_text_t *tt = &ast->cast.type;
    cdc_error_t *terr = NULL;
    cdc_type_t *target = cdc_type_parse(tt->text ? tt->text : "", &terr);
    if (!target) {
        /* "invalid data type at column N: reason" -> point at column N of the type text */
        const char *msg = terr ? terr->message : "unknown type";
        int at = 0, used = 0, col = tt->col;
        if (sscanf(msg, "invalid data type at column %d: %n", &at, &used) == 1 && used > 0) {
            msg += used;
            if (tt->text && !strchr(tt->text, '\n') && at > 0)
                col += at - 1;
        }
        cdc_xcerr(cc, tt->line, col, NULL, "invalid type \"%s\": %s", tt->text ? tt->text : "",
                  msg);
        cdc_error_destroy(terr);
        return NULL;
    }
    cdc_xnode_t *a = cdc_xcompile(cc, ast->cast.operand);
    if (!a) {
        cdc_type_destroy(target);
        return NULL;
    }
    if (a->untyped_null) {
        cdc_xcoerce_null(a, target);
        cdc_type_destroy(target);
        return a;
    }
    cdc_xconv_fn conv = cdc_xcast_resolve(a->type, target);
    if (!conv) {
        char ta[128], tb[128];
        cdc_xcerr(cc, ast->line, ast->col, NULL, "cannot cast %s to %s",
                  cdc_xtype_name(a->type, ta), cdc_xtype_name(target, tb));
        cdc_xnode_free(a);
        cdc_type_destroy(target);
        return NULL;
    }
    target->nullable = ast->cast.try_cast || a->type->nullable;
    cdc_xnode_t *n = cdc_xnode_new(cdc_xeval_cast, target, ast->line, ast->col);
    n->conv = conv;
    n->try_cast = ast->cast.try_cast;
    cdc_xnode_add(n, a);
    cdc_xcast_prepare(n);
    return finish(cc, n);
}

cdc_type_t *cdc_xunify(cdc_xcompiler_t *cc, cdc_xnode_t **nodes, int n, const char *what, int line,
                       int col)
{
    bool all_null;
    cdc_type_t *t = cdc_xcommon_type(nodes, n, &all_null);
    if (!t) {
        if (all_null) {
            err_untyped(cc, line, col);
            return NULL;
        }
        /* name the first pair that does not merge */
        const cdc_xnode_t *first = NULL;
        for (int i = 0; i < n; i++) {
            if (nodes[i]->untyped_null)
                continue;
            if (!first) {
                first = nodes[i];
                continue;
            }
            cdc_type_t *m = merge2(first->type, nodes[i]->type);
            if (!m) {
                char ta[128], tb[128];
                cdc_xcerr(cc, line, col, NULL, "%s has no common type for %s and %s", what,
                          cdc_xtype_name(first->type, ta), cdc_xtype_name(nodes[i]->type, tb));
                return NULL;
            }
            cdc_type_destroy(m);
        }
        cdc_xcerr(cc, line, col, NULL, "%s has no common type", what);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        nodes[i] = cdc_xwrap_cast(cc, nodes[i], t);
        if (!nodes[i]) {
            cdc_type_destroy(t);
            return NULL;
        }
    }
    return t;
}

static cdc_xnode_t *compile_case(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast)
{
    size_t nw = ast->case_expr.nwhens;
    bool has_else = ast->case_expr.else_expr != NULL, simple = ast->case_expr.operand != NULL;
    size_t nres = nw + (has_else ? 1 : 0);
    cdc_xnode_t **conds = cdc_xcalloc(nw + 1, sizeof(*conds)); /* [operand,] whens */
    cdc_xnode_t **res = cdc_xcalloc(nres, sizeof(*res));
    size_t nconds = 0, nres_done = 0;
    cdc_xnode_t *n = NULL;
    cdc_type_t *t = NULL;
    if (simple && !(conds[nconds++] = cdc_xcompile(cc, ast->case_expr.operand))) {
        nconds = 0;
        goto out;
    }
    for (size_t i = 0; i < nw; i++) {
        const cdc_sql_expr_t *w = ast->case_expr.whens[i].when;
        if (!(conds[nconds] = cdc_xcompile(cc, w)))
            goto out;
        nconds++;
        if (!simple && !require_boolean(cc, conds[nconds - 1], "WHEN", w->line, w->col))
            goto out;
    }
    for (size_t i = 0; i < nres; i++) {
        const cdc_sql_expr_t *r = i < nw ? ast->case_expr.whens[i].then : ast->case_expr.else_expr;
        if (!(res[i] = cdc_xcompile(cc, r)))
            goto out;
        nres_done++;
    }
    cdc_xcmp_fn cmp = NULL;
    if (simple && !(cmp = cdc_xcmp_prepare(cc, conds, (int)nconds, "CASE", ast->line, ast->col)))
        goto out;
    if (!(t = cdc_xunify(cc, res, (int)nres, "CASE", ast->line, ast->col)))
        goto out;
    t->nullable = t->nullable || !has_else;
    n = cdc_xnode_new(simple ? cdc_xeval_simple_case : cdc_xeval_case, t, ast->line, ast->col);
    n->cmp = cmp;
    n->has_else = has_else;
    if (simple)
        cdc_xnode_add(n, conds[0]);
    for (size_t i = 0; i < nw; i++) {
        cdc_xnode_add(n, conds[i + (simple ? 1 : 0)]);
        cdc_xnode_add(n, res[i]);
    }
    if (has_else)
        cdc_xnode_add(n, res[nw]);
    free(conds);
    free(res);
    return finish(cc, n);
out:
    free_nodes(conds, nconds);
    free_nodes(res, nres_done);
    free(conds);
    free(res);
    return NULL;
}

/* base.name after a subscript or call (items[1].sku): the field of a ROW, nullable. */
static cdc_xnode_t *compile_field(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast)
{
    cdc_xnode_t *base = cdc_xcompile(cc, ast->subscript.base);
    if (!base)
        return NULL;
    const char *name = ast->subscript.index->literal.text;
    const cdc_type_t *bt = base->type;
    char buf[128];
    if (bt->root != CDC_T_ROW || base->untyped_null) {
        cdc_xcerr(cc, ast->line, ast->col, NULL, "cannot access field \"%s\" of a value of type %s",
                  name, cdc_xtype_name(bt, buf));
        cdc_xnode_free(base);
        return NULL;
    }
    int fi = cdc_type_field_index(bt, name);
    if (fi < 0) {
        cdc_buf_t fields = {0};
        for (int i = 0; i < bt->nchildren; i++)
            cdc_buf_printf(&fields, "%s%s", i ? ", " : "its fields: ", bt->names[i]);
        cdc_xcerr(cc, ast->line, ast->col, cdc_buf_cstr(&fields), "field \"%s\" not found in %s",
                  name, cdc_xtype_name(bt, buf));
        cdc_buf_free(&fields);
        cdc_xnode_free(base);
        return NULL;
    }
    cdc_xnode_t *n = cdc_xnode_new(cdc_xeval_subscript_field,
                                   copy_with_null(bt->children[fi], true), ast->line, ast->col);
    n->path = cdc_xmalloc(sizeof(int));
    n->path[0] = fi;
    n->npath = 1;
    cdc_xnode_add(n, base);
    return finish(cc, n);
}

static cdc_xnode_t *compile_subscript(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast)
{
    if (ast->subscript.field)
        return compile_field(cc, ast);
    cdc_xnode_t *base = cdc_xcompile(cc, ast->subscript.base);
    if (!base)
        return NULL;
    cdc_xnode_t *idx = cdc_xcompile(cc, ast->subscript.index);
    if (!idx) {
        cdc_xnode_free(base);
        return NULL;
    }
    const cdc_type_t *bt = base->type;
    cdc_xnode_t *n = NULL;
    if (bt->root == CDC_T_ARRAY && !base->untyped_null) {
        cdc_type_t *bigint = type_of(CDC_T_BIGINT, true);
        cdc_xcoerce_null(idx, bigint);
        cdc_type_destroy(bigint);
        if (cdc_xcat(idx->type) == CDC_XC_INT) {
            n = cdc_xnode_new(cdc_xeval_subscript_array, copy_with_null(bt->children[0], true),
                              ast->line, ast->col);
        }
    } else if (bt->root == CDC_T_MAP && !base->untyped_null) {
        const cdc_type_t *kt = bt->children[0];
        cdc_xcoerce_null(idx, kt);
        cdc_xcat_t ck = cdc_xcat(kt), ci = cdc_xcat(idx->type);
        bool ok = ck == ci || (is_numeric(kt) && is_numeric(idx->type));
        cdc_xcmp_fn cmp = cdc_xcmp_for(kt);
        if (ok && cmp) {
            if (!(idx = cdc_xwrap_cast(cc, idx, kt))) {
                cdc_xnode_free(base);
                return NULL;
            }
            n = cdc_xnode_new(cdc_xeval_subscript_map, copy_with_null(bt->children[1], true),
                              ast->line, ast->col);
            n->cmp = cmp;
        }
    }
    if (!n) {
        err_apply2(cc, ast->line, ast->col, "[]", base, idx);
        cdc_xnode_free(base);
        cdc_xnode_free(idx);
        return NULL;
    }
    cdc_xnode_add(n, base);
    cdc_xnode_add(n, idx);
    return finish(cc, n);
}

/* ---- calls ---------------------------------------------------------------------------------- */

static bool is_aggregate(const char *name)
{
    static const char *const aggs[] = {"COUNT", "SUM", "AVG", "MIN", "MAX", "LISTAGG"};
    for (size_t i = 0; i < sizeof(aggs) / sizeof(aggs[0]); i++)
        if (strcasecmp(name, aggs[i]) == 0)
            return true;
    return false;
}

static cdc_xnode_t *compile_call(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast)
{
    const char *name = ast->call.name;
    if (ast->call.niladic) { /* CURRENT_TIMESTAMP etc. */
        bool unknown_niladic = false;
        cdc_xnode_t *n = cdc_xfunc_compile(cc, ast, &unknown_niladic);
        if (!unknown_niladic)
            return n;
        return cdc_xcerr(cc, ast->line, ast->col, NULL, "function \"%s\" is not supported", name);
    }
    if (is_aggregate(name))
        return cdc_xcerr(cc, ast->line, ast->col, NULL,
                         "aggregate function \"%s\" is not supported here", name);
    if (ast->call.distinct)
        return cdc_xcerr(cc, ast->line, ast->col, NULL,
                         "DISTINCT is only allowed in aggregate functions");
    bool unknown = false;
    cdc_xnode_t *n = cdc_xfunc_compile(cc, ast, &unknown);
    if (!unknown)
        return n;
    const cdc_udf_def_t *def =
        cc->env->udf_lookup ? cc->env->udf_lookup(cc->env->udf_ctx, name) : NULL;
    if (def)
        return cdc_xudf_compile(cc, ast, def);
    const char *sug = cdc_xfunc_suggest(name);
    char *hint = sug ? cdc_strdup_printf("did you mean \"%s\"?", sug) : NULL;
    cdc_xcerr(cc, ast->line, ast->col, hint, "unknown function \"%s\"", name);
    free(hint);
    return NULL;
}

/* ---- dispatch ------------------------------------------------------------------------------- */

cdc_xnode_t *cdc_xcompile(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast)
{
    switch (ast->kind) {
    case CDC_SQL_EXPR_LITERAL:
        return compile_literal(cc, ast);
    case CDC_SQL_EXPR_COLUMN:
        return compile_column(cc, ast);
    case CDC_SQL_EXPR_STAR:
        return cdc_xcerr(cc, ast->line, ast->col, NULL, "\"*\" is not allowed in an expression");
    case CDC_SQL_EXPR_UNARY:
        return compile_unary(cc, ast);
    case CDC_SQL_EXPR_BINARY:
        return compile_binary(cc, ast);
    case CDC_SQL_EXPR_CALL:
        return compile_call(cc, ast);
    case CDC_SQL_EXPR_CAST:
        return compile_cast(cc, ast);
    case CDC_SQL_EXPR_CASE:
        return compile_case(cc, ast);
    case CDC_SQL_EXPR_IN:
        return compile_in(cc, ast);
    case CDC_SQL_EXPR_BETWEEN:
        return compile_between(cc, ast);
    case CDC_SQL_EXPR_LIKE:
        return compile_like(cc, ast);
    case CDC_SQL_EXPR_IS_NULL:
        return compile_is_null(cc, ast);
    case CDC_SQL_EXPR_SUBSCRIPT:
        return compile_subscript(cc, ast);
    case CDC_SQL_EXPR_EXISTS:
        return subquery_here(cc, ast, "EXISTS (SELECT ...)");
    }
    return cdc_xcerr(cc, ast->line, ast->col, NULL, "unsupported expression");
}

/* ---- public API ----------------------------------------------------------------------------- */

int cdc_expr_compile(const cdc_sql_expr_t *ast, const cdc_expr_env_t *env, cdc_expr_t **out,
                     cdc_error_t **err)
{
    cdc_expr_t *e = cdc_xcalloc(1, sizeof(*e));
    cdc_arena_init(&e->consts);
    cdc_error_t *local = NULL;
    cdc_xcompiler_t cc = {env, &e->consts, &local};
    e->root = cdc_xcompile(&cc, ast);
    if (e->root && e->root->untyped_null) {
        err_untyped(&cc, ast->line, ast->col);
        cdc_xnode_free(e->root);
        e->root = NULL;
    }
    if (!e->root) {
        if (!local)
            local = cdc_error_new(CDC_ERR_INTERNAL, "expression compile failed");
        if (err)
            *err = local;
        else
            cdc_error_destroy(local);
        cdc_expr_destroy(e);
        return -1;
    }
    if (e->root->eval == cdc_xeval_column)
        e->root->top = true;
    *out = e;
    return 0;
}

const cdc_type_t *cdc_expr_type(const cdc_expr_t *e)
{
    return e->root->type;
}

int cdc_expr_eval(const cdc_expr_t *e, const cdc_row_t *row, cdc_arena_t *arena, cdc_value_t *out,
                  char *errbuf, size_t errlen)
{
    cdc_xctx_t cx = {row, arena, errbuf, errlen};
    if (errbuf && errlen)
        errbuf[0] = '\0';
    return e->root->eval(e->root, &cx, out);
}

int cdc_expr_eval_predicate(const cdc_expr_t *e, const cdc_row_t *row, cdc_arena_t *arena,
                            bool *keep, char *errbuf, size_t errlen)
{
    cdc_value_t v;
    *keep = false;
    if (e->root->type->root != CDC_T_BOOLEAN) {
        cdc_xctx_t cx = {row, arena, errbuf, errlen};
        return cdc_xerr(&cx, "predicate is not BOOLEAN");
    }
    if (cdc_expr_eval(e, row, arena, &v, errbuf, errlen) < 0)
        return -1;
    if (v.flags & CDC_V_UNCHANGED) {
        cdc_xctx_t cx = {row, arena, errbuf, errlen};
        if (!e->root->colname)
            return cdc_xerr(&cx, "predicate value is not carried by this change (unchanged value)");
        return cdc_xerr(&cx, "column \"%s\" is not carried by this change (unchanged value)",
                        e->root->colname);
    }
    *keep = !(v.flags & CDC_V_NULL) && v.v.b;
    return 0;
}

int cdc_expr_column_index(const cdc_expr_t *e)
{
    const cdc_xnode_t *n = e->root;
    return n->eval == cdc_xeval_column && n->npath == 1 ? n->path[0] : -1;
}

bool cdc_expr_is_constant(const cdc_expr_t *e)
{
    return e->root->constant;
}

int cdc_expr_require_boolean(const cdc_expr_t *e, const cdc_sql_expr_t *ast,
                             const cdc_expr_env_t *env, const char *clause, cdc_error_t **err)
{
    const cdc_type_t *t = cdc_expr_type(e);
    if (t->root == CDC_T_BOOLEAN)
        return 0;
    char buf[128];
    cdc_error_t *e2 =
        cdc_expr_error_at(env, ast->line, ast->col, "%s needs a BOOLEAN expression, found %s",
                          clause, cdc_xtype_name(t, buf));
    if (err)
        *err = e2;
    else
        cdc_error_destroy(e2);
    return -1;
}

size_t cdc_expr_conjuncts(const cdc_sql_expr_t *ast, const cdc_sql_expr_t **out, size_t max)
{
    if (!ast)
        return 0;
    if (ast->kind == CDC_SQL_EXPR_BINARY && ast->binary.op == CDC_SQL_BINARY_AND) {
        size_t n = cdc_expr_conjuncts(ast->binary.left, out, max);
        size_t m =
            cdc_expr_conjuncts(ast->binary.right, n < max ? out + n : NULL, n < max ? max - n : 0);
        return n + m;
    }
    if (max > 0 && out)
        out[0] = ast;
    return 1;
}

void cdc_expr_destroy(cdc_expr_t *e)
{
    if (!e)
        return;
    cdc_xnode_free(e->root);
    cdc_arena_free(&e->consts);
    free(e);
}
