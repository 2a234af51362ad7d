/*
 * cdc_expr.h — the expression engine: compiles a parsed SQL expression
 * (cdc_sql_expr_t) against the ROW type of its input into a tree of
 * evaluation nodes with pre-resolved functions and pre-computed widening,
 * infers the result type, and evaluates it per row.
 *
 * Used by the planner for SELECT items, WHERE, computed columns and filter
 * pushdown.
 *
 * Type rules (Flink's, simplified; the unit tests pin each one):
 *   - Literals: integers are INT when they fit 32 bits, else BIGINT, else
 *     DECIMAL(n, 0) up to 38 digits; 4.20 is DECIMAL(3, 2); 1e3 is DOUBLE;
 *     'text' is STRING (Flink says CHAR(n); we never pad); TRUE/FALSE are
 *     BOOLEAN; DATE '..' is DATE; TIME '..' and TIMESTAMP '..' get as many
 *     fraction digits as written. Every literal but NULL is NOT NULL. A bare
 *     NULL takes the type its context asks for (CAST(NULL AS T) where none).
 *   - Arithmetic + - * / %: integers keep the wider integer type and wrap on
 *     overflow at that width (Java semantics, as Flink's generated code);
 *     INT / INT is integer division truncating toward zero. An integer meets
 *     DECIMAL as DECIMAL(3|5|10|19, 0). DECIMAL results follow Flink's
 *     LogicalTypeMerging: + -: s = max(s1, s2), p = max(p1-s1, p2-s2) + s + 1;
 *     *: s = s1 + s2, p = p1 + p2; /: s = max(6, s1 + p2 + 1),
 *     p = p1 - s1 + s2 + s; %: s = max(s1, s2), p = min(p1-s1, p2-s2) + s;
 *     when p > 38 it becomes 38 and s is reduced to max(38 - (p - s), min(s, 6)).
 *     Decimal results are exact, rounded HALF_UP to the result scale; a value
 *     that does not fit the result precision is an error ("value out of range
 *     for DECIMAL(p, s)"; Flink yields NULL). FLOAT with integers stays FLOAT;
 *     DOUBLE, or FLOAT with DECIMAL, gives DOUBLE (IEEE: x / 0.0 is Infinity
 *     or NaN, like Java). Integer or decimal division (or %) by zero is an
 *     error "division by zero".
 *   - Comparisons widen numerics (integers as BIGINT, with a DECIMAL exactly,
 *     with FLOAT/DOUBLE as DOUBLE; NaN is unordered: every comparison but <>
 *     is FALSE). Strings compare byte-wise (UTF-8 code point order), BOOLEAN
 *     FALSE < TRUE, DATE meets TIMESTAMP as a timestamp at midnight, and a
 *     string meets a temporal type by being cast to it.
 *   - IN, BETWEEN and CASE x WHEN v compare as comparisons do. CASE results,
 *     COALESCE, IF and NULLIF use the least restrictive type: numerics as
 *     for arithmetic (DECIMALs merge to max integer digits + max scale,
 *     capped at 38), equal types stay, other string mixes become STRING,
 *     binary mixes BYTES, DATE with TIMESTAMP becomes TIMESTAMP, temporal
 *     precisions take the maximum.
 *   - String functions return STRING (VARCHAR lengths are not tracked);
 *     UPPER/LOWER map ASCII letters only and pass other UTF-8 through;
 *     CHAR_LENGTH and SUBSTRING count UTF-8 code points; SUBSTRING follows
 *     Flink for out-of-range positions (0 counts as 1, negative counts from
 *     the end, past either end gives '', a negative length gives NULL).
 *   - Numeric functions: ABS keeps the type (ABS of the minimum integer
 *     wraps, as Java); MOD is %, typed as % (Flink types it by its second
 *     argument); ROUND(x [, d]) needs a constant d and rounds HALF_UP:
 *     DECIMAL(p, s) gives DECIMAL(1 + p - s + d, d) for 0 <= d < s,
 *     DECIMAL(1 + p - s, 0) for d < 0 (Flink's rule), doubles round their
 *     shortest decimal text (Java's BigDecimal.valueOf); FLOOR/CEIL of
 *     DECIMAL(p, s > 0) give DECIMAL(p - s + 1, 0).
 *   - Nullability: NOT NULL when every input is NOT NULL and the operation
 *     cannot produce NULL on its own (TRY_CAST, NULLIF, CASE without ELSE,
 *     subscripts, SUBSTRING with a length that is not a constant >= 0, and
 *     user functions are always nullable; COALESCE is NOT NULL when any
 *     argument is; CONCAT_WS only through its separator).
 *   - CAST: numeric <-> numeric (integer targets truncate toward zero,
 *     DECIMAL targets round HALF_UP; out of range is an error), numeric,
 *     BOOLEAN and temporal -> STRING (the print format of cdc_value_print, but
 *     as Flink's CAST a space between date and time and TIMESTAMP_LTZ in the
 *     session time zone, UTC, without 'Z': "2024-03-05 10:20:30.123"),
 *     STRING -> anything scalar (text is trimmed of ASCII blanks; BOOLEAN
 *     accepts true/t/yes/y/1 and false/f/no/n/0 in any case), BOOLEAN <->
 *     integers, TIMESTAMP/TIMESTAMP_LTZ -> DATE/TIME, DATE -> TIMESTAMP and
 *     TIMESTAMP <-> TIMESTAMP_LTZ (the session time zone is UTC), STRING <->
 *     BYTES. CHAR(n)/VARCHAR(n) targets cut to n code points; CHAR(n) pads
 *     with blanks. ROW, ARRAY and MAP cast only to themselves.
 *   - Functions resolve built-ins first, then env->udf_lookup. A user
 *     function's arguments convert implicitly to its declared types:
 *     integers to an integer as wide or wider, any numeric to DOUBLE/FLOAT,
 *     CHAR/VARCHAR to STRING, BOOLEAN to BOOLEAN. Its result is nullable.
 *
 * Per-row failures (division by zero, failed CAST, a user function's error,
 * a column whose value is not carried by a change) return -1 with a reason
 * in the caller's buffer; nothing is allocated.
 */
#ifndef CDC_EXPR_H
#define CDC_EXPR_H

#include <stdbool.h>
#include <stddef.h>

#include "cdc.h"
#include "cdc_arena.h"
#include "cdc_error.h"
#include "cdc_row.h"
#include "cdc_sql_parser.h"
#include "cdc_types.h"

typedef struct cdc_expr_s cdc_expr_t;

/**
 * Resolves a function name that is not built in. @p name is as written
 * (compare case-insensitively). Returns a definition that must outlive every
 * expression compiled with it, or NULL when unknown.
 */
typedef const cdc_udf_def_t *(*cdc_expr_udf_lookup)(void *ctx, const char *name);

/** What an expression is compiled against. Everything is borrowed for the duration of
 * cdc_expr_compile() only (the UDF definitions it returns excepted). */
typedef struct cdc_expr_env_s {
    const cdc_type_t *row_type;    /* ROW of the input columns; NULL: no columns */
    const char *const *qualifiers; /* table names/aliases accepted as "t.col" (may be NULL) */
    int nqualifiers;
    cdc_expr_udf_lookup udf_lookup; /* may be NULL */
    void *udf_ctx;
    const char *text; /* the script, for line:col carets (may be NULL: no caret) */
    size_t len;
    const char *filename; /* NULL prints as "<input>" */
} cdc_expr_env_t;

/**
 * Compiles @p ast against @p env. On success returns 0 and stores in @p out
 * a new expression the caller frees with cdc_expr_destroy(); @p ast is not
 * referenced afterwards. On failure returns -1 and stores in @p err a new
 * CDC_ERR_SQL error the caller owns: message "FILE:LINE:COL: text" (the
 * position of the offending node), detail the source line with a caret
 * (when env->text is given), and a hint where one helps ("did you mean ...").
 */
int cdc_expr_compile(const cdc_sql_expr_t *ast, const cdc_expr_env_t *env, cdc_expr_t **out,
                     cdc_error_t **err);

/** The result type, with nullability. Borrowed; lives as long as @p e. */
const cdc_type_t *cdc_expr_type(const cdc_expr_t *e);

/**
 * The least restrictive type of @p a and @p b, as CASE, COALESCE and UNION ALL take it (INT and
 * BIGINT give BIGINT, two DECIMALs one wide enough for both, two strings STRING); NULL when they
 * have none. A new type the caller destroys.
 */
cdc_type_t *cdc_expr_common_type(const cdc_type_t *a, const cdc_type_t *b);

/**
 * Evaluates @p e on @p row (whose values follow env->row_type). Result values
 * that need memory (strings, ...) are allocated in @p arena; @p out may also
 * point into @p row or into constants owned by @p e, so it is valid while all
 * three live. A bare column reference passes an UNCHANGED (TOAST) value
 * through with its flag; any other use of such a value is an error.
 * Returns 0, or -1 with a NUL-terminated reason in @p errbuf ("division by
 * zero", "cannot cast 'abc' to INT"). @p errbuf may be NULL.
 */
int cdc_expr_eval(const cdc_expr_t *e, const cdc_row_t *row, cdc_arena_t *arena, cdc_value_t *out,
                  char *errbuf, size_t errlen);

/**
 * For WHERE: sets @p keep to true only when the predicate is TRUE (NULL and
 * FALSE drop the row). Returns 0, or -1 with a reason in @p errbuf (also when
 * @p e is not BOOLEAN).
 */
int cdc_expr_eval_predicate(const cdc_expr_t *e, const cdc_row_t *row, cdc_arena_t *arena,
                            bool *keep, char *errbuf, size_t errlen);

/**
 * The milliseconds of a day-time INTERVAL literal (INTERVAL '10' MINUTE, '1 02:00:00' DAY TO
 * SECOND): 0 and *ms, or -1 (not an INTERVAL literal, a YEAR/MONTH one, or malformed).
 */
int cdc_expr_interval_ms(const cdc_sql_expr_t *lit, int64_t *ms);

/** The input column index when @p e is a bare top-level column reference, else -1. */
int cdc_expr_column_index(const cdc_expr_t *e);

/** True when @p e reads no column and calls no user function (it was folded to a literal
 * unless its evaluation fails, e.g. CAST('x' AS INT)). */
bool cdc_expr_is_constant(const cdc_expr_t *e);

/**
 * Checks that @p e (compiled from @p ast) is BOOLEAN, for a clause such as
 * "WHERE". Returns 0, or -1 with a new error in @p err:
 * "FILE:LINE:COL: WHERE needs a BOOLEAN expression, found INT".
 */
int cdc_expr_require_boolean(const cdc_expr_t *e, const cdc_sql_expr_t *ast,
                             const cdc_expr_env_t *env, const char *clause, cdc_error_t **err);

/**
 * Builds a CDC_ERR_SQL error positioned at @p line:@p col of env's script,
 * in the engine's shape ("FILE:LINE:COL: text" + caret detail), for callers
 * that check expressions themselves. The caller owns the result.
 */
cdc_error_t *cdc_expr_error_at(const cdc_expr_env_t *env, int line, int col, const char *fmt, ...)
    CDC_PRINTF(4, 5);

/**
 * Splits a predicate AST into its AND-ed conjuncts, left to right: "a AND (b
 * AND c)" gives {a, b, c}. Stores at most @p max borrowed pointers into @p ast
 * and returns the total number of conjuncts (which may exceed @p max).
 */
size_t cdc_expr_conjuncts(const cdc_sql_expr_t *ast, const cdc_sql_expr_t **out, size_t max);

/** The names of the built-in scalar functions (NULL-terminated, static). */
const char *const *cdc_expr_builtin_functions(void);

/** Frees @p e; NULL is accepted. */
void cdc_expr_destroy(cdc_expr_t *e);

#endif
