/*
 * cdc_expr_int.h — private to the expression engine (cdc_expr*.c): the node
 * tree that cdc_expr_compile() builds and the evaluation, cast, decimal and
 * string helpers the nodes call.
 *
 * A node evaluates through its pre-resolved `eval` function; its operands
 * were already converted (implicit CAST nodes) to the types the function
 * expects, so evaluation never looks at type text and never dispatches on
 * more than a small operator code.
 */
#ifndef CDC_EXPR_INT_H
#define CDC_EXPR_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cdc_expr.h"

/* Value representation classes of types. */
typedef enum cdc_xcat {
    CDC_XC_BOOL,
    CDC_XC_INT, /* TINYINT..BIGINT in v.i */
    CDC_XC_FLOAT,
    CDC_XC_DOUBLE,
    CDC_XC_DEC,
    CDC_XC_STR, /* CHAR, VARCHAR */
    CDC_XC_BIN, /* BINARY, VARBINARY */
    CDC_XC_DATE,
    CDC_XC_TIME,
    CDC_XC_TS,
    CDC_XC_LTZ,
    CDC_XC_OTHER /* ARRAY, MAP, ROW */
} cdc_xcat_t;

cdc_xcat_t cdc_xcat(const cdc_type_t *t);

/* Per-evaluation state. */
typedef struct cdc_xctx {
    const cdc_row_t *row;
    cdc_arena_t *arena;
    char *errbuf;
    size_t errlen;
} cdc_xctx_t;

typedef struct cdc_xnode cdc_xnode_t;

typedef int (*cdc_xeval_fn)(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
/* Converts a non-NULL value of n->kids[0]->type to n->type. */
typedef int (*cdc_xconv_fn)(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *in,
                            cdc_value_t *out);
/* Compares two non-NULL values of the given types (of one comparison class: the compiler
 * widened them): <0, 0, >0, or CDC_XCMP_UNORDERED (NaN). */
typedef int (*cdc_xcmp_fn)(const cdc_type_t *ta, const cdc_value_t *a, const cdc_type_t *tb,
                           const cdc_value_t *b);
#define CDC_XCMP_UNORDERED 2

/* Operator codes in cdc_xnode.op for arithmetic and comparison nodes. */
enum {
    CDC_XOP_ADD = 1,
    CDC_XOP_SUB,
    CDC_XOP_MUL,
    CDC_XOP_DIV,
    CDC_XOP_MOD,
    CDC_XOP_NEG,
    CDC_XOP_EQ,
    CDC_XOP_NE,
    CDC_XOP_LT,
    CDC_XOP_LE,
    CDC_XOP_GT,
    CDC_XOP_GE,
    CDC_XOP_ABS
};

struct cdc_xnode {
    cdc_xeval_fn eval;
    cdc_type_t *type;   /* owned, never NULL */
    cdc_xnode_t **kids; /* owned */
    int nkids;
    int op;        /* CDC_XOP_* or a function's variant */
    int line, col; /* source position */
    bool constant; /* reads no column, calls no user function */
    bool untyped_null;
    bool negated;    /* NOT IN, NOT BETWEEN, NOT LIKE, IS NOT NULL */
    bool try_cast;   /* TRY_CAST */
    bool has_else;   /* CASE */
    bool top;        /* root column reference: UNCHANGED values pass through */
    cdc_value_t lit; /* literal value (memory in the expression's constant arena) */
    int *path;       /* column: field indexes from the row inwards (owned) */
    int npath;
    const char *colname; /* column: its name as written, for messages (owned) */
    cdc_xconv_fn conv;   /* cast */
    cdc_xcmp_fn cmp;     /* comparisons, IN, BETWEEN, simple CASE, NULLIF, MAP subscript */
    int s1, s2;          /* decimal operand scales */
    int bits;            /* integer result width, for wrapping */
    int64_t ilo, ihi;    /* integer range of a narrowing cast */
    int ival;            /* function variant: ROUND digits, TRIM side, UPPER, CEIL */
    const cdc_udf_def_t *udf;
    char *name; /* for messages: a function's name or a result type's text (owned) */
    void *aux;  /* a function's compiled state (a constant regex), freed by aux_free */
    void (*aux_free)(void *aux);
};

/* ---- node helpers (cdc_expr.c) -------------------------------------------------------------- */
cdc_xnode_t *cdc_xnode_new(cdc_xeval_fn eval, cdc_type_t *type, int line, int col);
void cdc_xnode_free(cdc_xnode_t *n);
void cdc_xnode_add(cdc_xnode_t *n, cdc_xnode_t *kid);

/* Formats a per-row error into cx->errbuf; returns -1. */
int cdc_xerr(cdc_xctx_t *cx, const char *fmt, ...) CDC_PRINTF(2, 3);

static inline void cdc_xset_null(cdc_value_t *v)
{
    v->flags = CDC_V_NULL;
}

/* ---- evaluation functions (cdc_expr_eval.c) ------------------------------------------------- */
int cdc_xeval_literal(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_column(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_cast(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_arith_int(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_arith_float(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_arith_double(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_arith_dec(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_compare(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_and(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_or(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_not(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_is_null(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_in(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_between(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_case(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_simple_case(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_coalesce(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_nullif(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_concat_op(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_subscript_array(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_subscript_field(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);
int cdc_xeval_subscript_map(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);

/* Comparators (cdc_expr_eval.c). */
int cdc_xcmp_int(const cdc_type_t *ta, const cdc_value_t *a, const cdc_type_t *tb,
                 const cdc_value_t *b);
int cdc_xcmp_float(const cdc_type_t *ta, const cdc_value_t *a, const cdc_type_t *tb,
                   const cdc_value_t *b);
int cdc_xcmp_double(const cdc_type_t *ta, const cdc_value_t *a, const cdc_type_t *tb,
                    const cdc_value_t *b);
int cdc_xcmp_dec(const cdc_type_t *ta, const cdc_value_t *a, const cdc_type_t *tb,
                 const cdc_value_t *b);
int cdc_xcmp_str(const cdc_type_t *ta, const cdc_value_t *a, const cdc_type_t *tb,
                 const cdc_value_t *b);
int cdc_xcmp_bool(const cdc_type_t *ta, const cdc_value_t *a, const cdc_type_t *tb,
                  const cdc_value_t *b);
int cdc_xcmp_ts(const cdc_type_t *ta, const cdc_value_t *a, const cdc_type_t *tb,
                const cdc_value_t *b);

/* ---- casts (cdc_expr_cast.c) ---------------------------------------------------------------- */
/* The conversion from @p from to @p to, or NULL when CAST does not allow it. The node's
 * parameters are filled by cdc_xcast_prepare(). */
cdc_xconv_fn cdc_xcast_resolve(const cdc_type_t *from, const cdc_type_t *to);
/* Fills the node fields a conversion needs (ranges, scales). */
void cdc_xcast_prepare(cdc_xnode_t *n);
/* ---- decimals (cdc_expr_dec.c) -------------------------------------------------------------- */
/* Exact decimal arithmetic on unscaled values: inputs at scales sa/sb, the result rounded
 * HALF_UP to scale s and checked against precision p. Return 0, -1 on overflow, -2 on
 * division by zero. */
int cdc_xdec_add(cdc_i128 a, int sa, cdc_i128 b, int sb, bool subtract, int p, int s,
                 cdc_i128 *out);
int cdc_xdec_mul(cdc_i128 a, int sa, cdc_i128 b, int sb, int p, int s, cdc_i128 *out);
int cdc_xdec_div(cdc_i128 a, int sa, cdc_i128 b, int sb, int p, int s, cdc_i128 *out);
int cdc_xdec_mod(cdc_i128 a, int sa, cdc_i128 b, int sb, int p, int s, cdc_i128 *out);
/* Compares a (scale sa) with b (scale sb) exactly. */
int cdc_xdec_cmp(cdc_i128 a, int sa, cdc_i128 b, int sb);
/* Rescales HALF_UP (to < from) or exactly (to > from) and checks precision p: 0 or -1. */
int cdc_xdec_rescale(cdc_i128 v, int from, int p, int to, cdc_i128 *out);
/* Moves v (scale s) to scale 0 rounding toward -inf (floor) or +inf (ceil). */
cdc_i128 cdc_xdec_floor_ceil(cdc_i128 v, int s, bool ceil);

/* ---- functions (cdc_expr_func.c) ------------------------------------------------------------ */
/* Bytes in the UTF-8 character at s[0..len) (1 for invalid bytes; len > 0). */
size_t cdc_xutf8_len(const char *s, size_t len);
/* Number of characters. */
size_t cdc_xutf8_count(const char *s, size_t len);
/* Byte offset of character index @p nchars (clamped to len). */
size_t cdc_xutf8_offset(const char *s, size_t len, size_t nchars);

int cdc_xeval_like(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out);

typedef struct cdc_xcompiler cdc_xcompiler_t;

/* A built-in function: one table row. compile gets the compiled arguments (it owns them, and
 * frees them on error). */
typedef struct cdc_xfunc_def cdc_xfunc_def_t;
typedef cdc_xnode_t *(*cdc_xfcompile_fn)(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                                         const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs);
struct cdc_xfunc_def {
    const char *name; /* NULL ends a table */
    int min, max;     /* max -1: any number */
    cdc_xfcompile_fn compile;
    int variant;
    const char *signature;
};
/* The tables of cdc_expr_str.c, cdc_expr_time.c and cdc_expr_json.c, each ended by a NULL
 * name. */
extern const cdc_xfunc_def_t cdc_xfuncs_str[];
extern const cdc_xfunc_def_t cdc_xfuncs_time[];
extern const cdc_xfunc_def_t cdc_xfuncs_json[];
/* JSON_OBJECT/JSON_ARRAY as the parser normalizes them ({SYMBOL on-null, args...}): sets
 * *handled and compiles when @p ast is one (cdc_expr_json.c). */
cdc_xnode_t *cdc_xjson_compile_special(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                                       bool *handled);
/* Calls whose arguments are not all expressions (EXTRACT(unit FROM x), FLOOR(x TO unit),
 * TIMESTAMPADD(unit, n, x)): sets *handled and compiles when @p ast is one (cdc_expr_time.c). */
cdc_xnode_t *cdc_xtime_compile_special(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                                       bool *handled);
/* x + INTERVAL or x - INTERVAL (@p interval an INTERVAL literal; ast the binary node). */
cdc_xnode_t *cdc_xtime_interval_arith(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                                      const cdc_sql_expr_t *operand, const cdc_sql_expr_t *interval,
                                      bool subtract);

/* Helpers for the function tables (cdc_expr_func.c). */
cdc_type_t *cdc_xtype_of(cdc_type_root_t root, bool nullable);
/* VARCHAR(max) (STRING). */
cdc_type_t *cdc_xstring_type(bool nullable);
void cdc_xfree_args(cdc_xnode_t **args, int nargs);
/* "cannot apply "F" to A, B and C" + the signature as a hint; frees the arguments; NULL. */
cdc_xnode_t *cdc_xbad_args(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast, const char *name,
                           const char *signature, cdc_xnode_t **args, int nargs);
cdc_xnode_t *cdc_xbad(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast, const cdc_xfunc_def_t *def,
                      cdc_xnode_t **args, int nargs);
bool cdc_xis_str(const cdc_xnode_t *n);
bool cdc_xis_int(const cdc_xnode_t *n);
bool cdc_xis_num(const cdc_xnode_t *n);
/* Types the untyped NULLs among args as @p t, then destroys t. */
void cdc_xcoerce_all(cdc_xnode_t **args, int nargs, cdc_type_t *t);
bool cdc_xany_nullable(cdc_xnode_t **args, int nargs);
/* A node of @p eval and @p type (taken) over args (taken), folded when constant. */
cdc_xnode_t *cdc_xmake(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast, cdc_xeval_fn eval,
                       cdc_type_t *type, cdc_xnode_t **args, int nargs);
/* Adds args (taken) to n as its kids, marks n constant when they all are and folds it. */
cdc_xnode_t *cdc_xadopt(cdc_xcompiler_t *cc, cdc_xnode_t *n, cdc_xnode_t **args, int nargs);
/* Sets a non-NULL string value pointing at p[0..len). */
void cdc_xset_str(cdc_value_t *out, const char *p, size_t len);

#define CDC_XEVAL_KID(i, v)                                                                        \
    do {                                                                                           \
        if (n->kids[i]->eval(n->kids[i], cx, (v)) < 0)                                             \
            return -1;                                                                             \
    } while (0)
/* Evaluates kid i into *v; a NULL makes the node's result NULL (returns 0). */
#define CDC_XEVAL_KID_OR_NULL(i, v)                                                                \
    do {                                                                                           \
        CDC_XEVAL_KID(i, v);                                                                       \
        if (cdc_value_is_null(v)) {                                                                \
            cdc_xset_null(out);                                                                    \
            return 0;                                                                              \
        }                                                                                          \
    } while (0)

/* Compiles built-in function @p name; returns the node, NULL with an error, or sets *unknown
 * when the name is not a built-in. */
cdc_xnode_t *cdc_xfunc_compile(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast, bool *unknown);
/* Compiles a call of a user function. */
cdc_xnode_t *cdc_xudf_compile(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                              const cdc_udf_def_t *def);
/* The built-in closest to @p name (any case), for "did you mean", or NULL. */
const char *cdc_xfunc_suggest(const char *name);

/* ---- compiler services used by cdc_expr_func.c (cdc_expr.c) --------------------------------- */
struct cdc_xcompiler {
    const cdc_expr_env_t *env;
    cdc_arena_t *consts; /* the expression's constant storage */
    cdc_error_t **err;
};

cdc_xnode_t *cdc_xcompile(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast);
/* Reports a compile error at line:col; returns NULL. */
cdc_xnode_t *cdc_xcerr(cdc_xcompiler_t *cc, int line, int col, const char *hint, const char *fmt,
                       ...) CDC_PRINTF(5, 6);
/* Gives a bare NULL the type @p t (nullable). */
void cdc_xcoerce_null(cdc_xnode_t *n, const cdc_type_t *t);
/* Wraps @p n in an implicit cast to @p t (keeping the nullability of n) and folds it; returns n
 * when nothing is to do. On an impossible conversion frees n and returns NULL with an error. */
cdc_xnode_t *cdc_xwrap_cast(cdc_xcompiler_t *cc, cdc_xnode_t *n, const cdc_type_t *t);
/* The least restrictive type of @p n nodes (untyped NULLs skipped), nullable when any is;
 * NULL when they are incompatible. When all are untyped NULLs, returns NULL and sets *all_null. */
cdc_type_t *cdc_xcommon_type(cdc_xnode_t *const *nodes, int n, bool *all_null);
/* The type as shown in messages: without a top-level NOT NULL; static buffer of 128. */
const char *cdc_xtype_name(const cdc_type_t *t, char buf[128]);
/* Makes @p n a literal node when it and its children are constant and it evaluates without
 * error; returns n. */
cdc_xnode_t *cdc_xfold(cdc_xcompiler_t *cc, cdc_xnode_t *n);
/* Sets n->constant from its children. */
void cdc_xmark_constant(cdc_xnode_t *n);
/* The comparator for values of type @p t, NULL for types that do not compare. */
cdc_xcmp_fn cdc_xcmp_for(const cdc_type_t *t);
/* Widens nodes[0..n) to one comparison class (casting in place) and returns its comparator;
 * on failure reports "cannot apply OP to A and B" at line:col and returns NULL (nodes kept). */
cdc_xcmp_fn cdc_xcmp_prepare(cdc_xcompiler_t *cc, cdc_xnode_t **nodes, int n, const char *op,
                             int line, int col);
/* Casts nodes[0..n) in place to their common type (nullable when any is) and returns it (the
 * caller owns it), or NULL with an error naming @p what; on failure the nodes that remain are
 * still the caller's (a failed one is NULL). */
cdc_type_t *cdc_xunify(cdc_xcompiler_t *cc, cdc_xnode_t **nodes, int n, const char *what, int line,
                       int col);
/* Arithmetic node over compiled operands (b NULL for unary NEG/ABS); consumes them. */
cdc_xnode_t *cdc_xarith(cdc_xcompiler_t *cc, int op, const char *opname, cdc_xnode_t *a,
                        cdc_xnode_t *b, int line, int col);
/* Compiles an argument list into nodes; returns false on error (nodes freed). */
bool cdc_xcompile_args(cdc_xcompiler_t *cc, const cdc_sql_expr_t *const *args, size_t nargs,
                       cdc_xnode_t **out);

#endif
