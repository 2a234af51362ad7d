/*
 * tests/unit/expr.c — unit tests for the expression engine (cdc_expr): every
 * operator and built-in function, three-valued logic, result types with
 * nullability, DECIMAL precision/scale, casts and TRY_CAST, LIKE escapes,
 * UTF-8, integer wrapping, per-row error texts, the exact wording of every
 * compile error, and user functions handed out through udf_lookup.
 *
 * Expressions are parsed with the real parser as "SELECT <expr> FROM t" and
 * compiled against the ROW type below; the AST is destroyed before the
 * expression is evaluated, which proves the compiled form owns what it needs.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cdc_expr.h"

/* ---- the input row -------------------------------------------------------------------------- */

static const char *const SCHEMA =
    "ROW<id INT NOT NULL, name STRING, price DECIMAL(10, 2), qty BIGINT, ratio DOUBLE, "
    "flag BOOLEAN, born DATE, ts TIMESTAMP(3), nul INT, t TINYINT, sm SMALLINT, fl FLOAT, "
    "addr ROW<city STRING, zip INT>, tags ARRAY<STRING>, attrs MAP<STRING, INT>, uni STRING, "
    "tm TIME(0), code CHAR(3), ltz TIMESTAMP_LTZ(3), nstr STRING, nb BOOLEAN, big BIGINT, "
    "nd DECIMAL(38, 10), pct STRING, neg INT>";

enum {
    F_ID,
    F_NAME,
    F_PRICE,
    F_QTY,
    F_RATIO,
    F_FLAG,
    F_BORN,
    F_TS,
    F_NUL,
    F_T,
    F_SM,
    F_FL,
    F_ADDR,
    F_TAGS,
    F_ATTRS,
    F_UNI,
    F_TM,
    F_CODE,
    F_LTZ,
    F_NSTR,
    F_NB,
    F_BIG,
    F_ND,
    F_PCT,
    F_NEG
};

static cdc_type_t *g_type;
static cdc_batch_t g_batch;
static cdc_row_t *g_row;

static void put_str(cdc_value_t *v, const char *s)
{
    v->flags = 0;
    v->v.s.ptr = s;
    v->v.s.len = (uint32_t)strlen(s);
}

static void put_int(cdc_value_t *v, int64_t i)
{
    v->flags = 0;
    v->v.i = i;
}

static void setup(void)
{
    cdc_error_t *err = NULL;
    g_type = cdc_type_parse(SCHEMA, &err);
    cr_assert_not_null(g_type, "%s", err ? err->message : "");
    cdc_batch_init(&g_batch);
    g_row = cdc_batch_add(&g_batch, CDC_INSERT, (uint32_t)g_type->nchildren);
    cdc_value_t *v = g_row->values;
    put_int(&v[F_ID], 7);
    put_str(&v[F_NAME], "Alice");
    v[F_PRICE].flags = 0;
    v[F_PRICE].v.dec = 1999;
    put_int(&v[F_QTY], 3);
    v[F_RATIO].flags = 0;
    v[F_RATIO].v.d = 0.5;
    v[F_FLAG].flags = 0;
    v[F_FLAG].v.b = true;
    put_int(&v[F_BORN], cdc_days_from_civil(2020, 7, 30));
    v[F_TS].flags = 0;
    v[F_TS].v.ts.millis = cdc_days_from_civil(2020, 7, 30) * 86400000LL + 45296789;
    v[F_TS].v.ts.nanos = 0;
    put_int(&v[F_T], 100);
    put_int(&v[F_SM], 300);
    v[F_FL].flags = 0;
    v[F_FL].v.f = 1.5f;
    cdc_row_t *addr = cdc_row_new_in(&g_batch.arena, 2);
    put_str(&addr->values[0], "Paris");
    put_int(&addr->values[1], 75001);
    v[F_ADDR].flags = 0;
    v[F_ADDR].v.row = addr;
    cdc_value_t *tags = cdc_arena_calloc(&g_batch.arena, 2 * sizeof(cdc_value_t));
    put_str(&tags[0], "a");
    put_str(&tags[1], "b");
    v[F_TAGS].flags = 0;
    v[F_TAGS].v.arr = (cdc_array_t){2, tags, NULL};
    cdc_value_t *keys = cdc_arena_calloc(&g_batch.arena, 2 * sizeof(cdc_value_t));
    cdc_value_t *vals = cdc_arena_calloc(&g_batch.arena, 2 * sizeof(cdc_value_t));
    put_str(&keys[0], "x");
    put_str(&keys[1], "y");
    put_int(&vals[0], 1);
    put_int(&vals[1], 2);
    v[F_ATTRS].flags = 0;
    v[F_ATTRS].v.arr = (cdc_array_t){2, keys, vals};
    put_str(&v[F_UNI], "h\xc3\xa9llo w\xc3\xb6rld"); /* héllo wörld */
    put_int(&v[F_TM], 12LL * 3600 * 1000000000LL);
    put_str(&v[F_CODE], "abc");
    v[F_LTZ] = v[F_TS];
    put_int(&v[F_BIG], INT64_MAX);
    v[F_ND].flags = 0;
    v[F_ND].v.dec = (cdc_i128)15 * 1000000000; /* 1.5000000000 */
    put_str(&v[F_PCT], "50%_off");
    put_int(&v[F_NEG], -5);
}

static void teardown(void)
{
    cdc_batch_free(&g_batch);
    cdc_type_destroy(g_type);
}

TestSuite(expr, .init = setup, .fini = teardown);

/* ---- user functions for udf_lookup ---------------------------------------------------------- */

static int udf_twice(cdc_udf_ctx_t *ctx, const cdc_udf_value_t *args, int nargs,
                     cdc_udf_value_t *result, char *errbuf, size_t errlen)
{
    (void)ctx;
    (void)nargs;
    (void)errbuf;
    (void)errlen;
    if (args[0].kind == CDC_UDF_NULL) {
        result->kind = CDC_UDF_NULL;
        return 0;
    }
    result->kind = CDC_UDF_INT64;
    result->v.i = args[0].v.i * 2;
    return 0;
}

static int udf_greet(cdc_udf_ctx_t *ctx, const cdc_udf_value_t *args, int nargs,
                     cdc_udf_value_t *result, char *errbuf, size_t errlen)
{
    (void)nargs;
    (void)errbuf;
    (void)errlen;
    if (args[0].kind != CDC_UDF_STRING) {
        result->kind = CDC_UDF_NULL;
        return 0;
    }
    size_t n = args[0].v.s.len + 8;
    char *p = ctx->alloc(ctx, n);
    memcpy(p, "Hello, ", 7);
    memcpy(p + 7, args[0].v.s.ptr, args[0].v.s.len);
    p[n - 1] = '!';
    result->kind = CDC_UDF_STRING;
    result->v.s.ptr = p;
    result->v.s.len = n;
    return 0;
}

static int udf_scale(cdc_udf_ctx_t *ctx, const cdc_udf_value_t *args, int nargs,
                     cdc_udf_value_t *result, char *errbuf, size_t errlen)
{
    (void)ctx;
    (void)nargs;
    (void)errbuf;
    (void)errlen;
    result->kind = CDC_UDF_DOUBLE;
    result->v.d = args[0].v.d * (args[1].kind == CDC_UDF_BOOL && args[1].v.b ? 10 : 1);
    return 0;
}

static int udf_fails(cdc_udf_ctx_t *ctx, const cdc_udf_value_t *args, int nargs,
                     cdc_udf_value_t *result, char *errbuf, size_t errlen)
{
    (void)ctx;
    (void)args;
    (void)nargs;
    (void)result;
    snprintf(errbuf, errlen, "boom");
    return 1;
}

static int udf_narrow(cdc_udf_ctx_t *ctx, const cdc_udf_value_t *args, int nargs,
                      cdc_udf_value_t *result, char *errbuf, size_t errlen)
{
    (void)ctx;
    (void)args;
    (void)nargs;
    (void)errbuf;
    (void)errlen;
    result->kind = CDC_UDF_INT64;
    result->v.i = 3000000000LL;
    return 0;
}

static int udf_wrongkind(cdc_udf_ctx_t *ctx, const cdc_udf_value_t *args, int nargs,
                         cdc_udf_value_t *result, char *errbuf, size_t errlen)
{
    (void)ctx;
    (void)args;
    (void)nargs;
    (void)errbuf;
    (void)errlen;
    result->kind = CDC_UDF_DOUBLE;
    result->v.d = 1.5;
    return 0;
}

static const char *const bigint_arg[] = {"BIGINT"};
static const char *const string_arg[] = {"STRING"};
static const char *const scale_args[] = {"DOUBLE", "BOOLEAN"};
static const char *const date_arg[] = {"DATE"};
static const cdc_udf_def_t def_twice = {CDC_UDF_ABI_VERSION, "BIGINT", 1, bigint_arg, udf_twice};
static const cdc_udf_def_t def_greet = {CDC_UDF_ABI_VERSION, "STRING", 1, string_arg, udf_greet};
static const cdc_udf_def_t def_scale = {CDC_UDF_ABI_VERSION, "DOUBLE", 2, scale_args, udf_scale};
static const cdc_udf_def_t def_fails = {CDC_UDF_ABI_VERSION, "BIGINT", 1, bigint_arg, udf_fails};
static const cdc_udf_def_t def_narrow = {CDC_UDF_ABI_VERSION, "INT", 0, NULL, udf_narrow};
static const cdc_udf_def_t def_wrongkind = {CDC_UDF_ABI_VERSION, "BIGINT", 0, NULL, udf_wrongkind};
static const cdc_udf_def_t def_oldabi = {0, "BIGINT", 1, bigint_arg, udf_twice};
static const cdc_udf_def_t def_nofn = {CDC_UDF_ABI_VERSION, "BIGINT", 1, bigint_arg, NULL};
static const cdc_udf_def_t def_badtype = {CDC_UDF_ABI_VERSION, "BIGINT", 1, date_arg, udf_twice};

static int g_lookups;

static const cdc_udf_def_t *lookup(void *ctx, const char *name)
{
    cr_assert_eq(ctx, &g_lookups);
    g_lookups++;
    static const struct {
        const char *name;
        const cdc_udf_def_t *def;
    } table[] = {{"twice", &def_twice},     {"greet", &def_greet},         {"scale", &def_scale},
                 {"fails", &def_fails},     {"narrow", &def_narrow},       {"oldabi", &def_oldabi},
                 {"badtype", &def_badtype}, {"wrongkind", &def_wrongkind}, {"nofn", &def_nofn}};
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (strcasecmp(table[i].name, name) == 0)
            return table[i].def;
    return NULL;
}

/* ---- helpers -------------------------------------------------------------------------------- */

static const char *const QUALIFIERS[] = {"t", "orders"};

static cdc_expr_env_t env_for(const char *text, const char *filename)
{
    cdc_expr_env_t env = {.row_type = g_type,
                          .qualifiers = QUALIFIERS,
                          .nqualifiers = 2,
                          .udf_lookup = lookup,
                          .udf_ctx = &g_lookups,
                          .text = text,
                          .len = strlen(text),
                          .filename = filename};
    return env;
}

/* Compiles the select item of "SELECT <expr> FROM t"; the AST is gone when this returns. */
static cdc_expr_t *compile(const char *expr, cdc_error_t **err)
{
    char *sql = cdc_strdup_printf("SELECT %s FROM t", expr);
    cdc_sql_script_t *script = NULL;
    cdc_error_t *perr = NULL;
    if (cdc_sql_parse(sql, strlen(sql), "test.sql", &script, &perr) != 0) {
        cr_log_error("parse failed: %s", perr->message);
        cdc_error_destroy(perr);
        free(sql);
        cr_assert_fail("cannot parse %s", expr);
    }
    const cdc_sql_expr_t *ast = script->stmts[0]->query->items[0].expr;
    cdc_expr_env_t env = env_for(sql, "test.sql");
    cdc_expr_t *e = NULL;
    int rc = cdc_expr_compile(ast, &env, &e, err);
    cdc_sql_script_destroy(script);
    free(sql);
    if (rc != 0) {
        cr_assert_null(e);
        cr_assert_not_null(*err);
        return NULL;
    }
    return e;
}

static void check_at(int line, const char *expr, const char *want_value, const char *want_type)
{
    cdc_error_t *err = NULL;
    cdc_expr_t *e = compile(expr, &err);
    if (!e) {
        cr_expect_fail("line %d: %s: compile failed: %s (%s)", line, expr, err->message,
                       err->hint ? err->hint : "");
        cdc_error_destroy(err);
        return;
    }
    cdc_value_t v;
    char errbuf[256];
    if (cdc_expr_eval(e, g_row, &g_batch.arena, &v, errbuf, sizeof(errbuf)) < 0) {
        cr_expect_fail("line %d: %s: eval failed: %s", line, expr, errbuf);
    } else {
        cdc_buf_t b = {0};
        cdc_value_print(&b, &v, cdc_expr_type(e));
        cr_expect_str_eq(cdc_buf_cstr(&b), want_value, "line %d: %s: got [%s]", line, expr,
                         cdc_buf_cstr(&b));
        cdc_buf_free(&b);
    }
    char *ts = cdc_type_to_string(cdc_expr_type(e));
    cr_expect_str_eq(ts, want_type, "line %d: type of %s: got [%s]", line, expr, ts);
    free(ts);
    cdc_expr_destroy(e);
}

static void check_eval_err_at(int line, const char *expr, const char *want)
{
    cdc_error_t *err = NULL;
    cdc_expr_t *e = compile(expr, &err);
    if (!e) {
        cr_expect_fail("line %d: %s: compile failed: %s", line, expr, err->message);
        cdc_error_destroy(err);
        return;
    }
    cdc_value_t v;
    char errbuf[256] = "";
    int rc = cdc_expr_eval(e, g_row, &g_batch.arena, &v, errbuf, sizeof(errbuf));
    cr_expect_eq(rc, -1, "line %d: %s: expected an evaluation error", line, expr);
    cr_expect_str_eq(errbuf, want, "line %d: %s: got [%s]", line, expr, errbuf);
    cdc_expr_destroy(e);
}

static void check_compile_err_at(int line, const char *expr, const char *message, const char *hint)
{
    cdc_error_t *err = NULL;
    cdc_expr_t *e = compile(expr, &err);
    if (e) {
        cr_expect_fail("line %d: %s: expected a compile error", line, expr);
        cdc_expr_destroy(e);
        return;
    }
    cr_expect_eq(err->code, CDC_ERR_SQL);
    cr_expect_str_eq(err->message, message, "line %d: %s: got [%s]", line, expr, err->message);
    if (hint)
        cr_expect_str_eq(err->hint ? err->hint : "(none)", hint, "line %d: hint of %s: got [%s]",
                         line, expr, err->hint ? err->hint : "(none)");
    else
        cr_expect_null(err->hint, "line %d: %s: unexpected hint %s", line, expr, err->hint);
    cdc_error_destroy(err);
}

#define CHECK(expr, value, type) check_at(__LINE__, expr, value, type)
#define CHECK_EVAL_ERR(expr, msg) check_eval_err_at(__LINE__, expr, msg)
#define CHECK_COMPILE_ERR(expr, msg, hint) check_compile_err_at(__LINE__, expr, msg, hint)

/* ---- literals and columns ------------------------------------------------------------------- */

Test(expr, literals)
{
    CHECK("42", "42", "INT NOT NULL");
    CHECK("2147483647", "2147483647", "INT NOT NULL");
    CHECK("2147483648", "2147483648", "BIGINT NOT NULL");
    CHECK("12345678901234567890", "12345678901234567890", "DECIMAL(20, 0) NOT NULL");
    CHECK("4.20", "4.20", "DECIMAL(3, 2) NOT NULL");
    CHECK("0.05", "0.05", "DECIMAL(2, 2) NOT NULL");
    CHECK(".5", "0.5", "DECIMAL(1, 1) NOT NULL");
    CHECK("1e3", "1000.0", "DOUBLE NOT NULL");
    CHECK("2.5E-1", "0.25", "DOUBLE NOT NULL");
    CHECK("'hi'", "hi", "STRING NOT NULL");
    CHECK("''", "", "STRING NOT NULL");
    CHECK("TRUE", "true", "BOOLEAN NOT NULL");
    CHECK("false", "false", "BOOLEAN NOT NULL");
    CHECK("DATE '2020-01-01'", "2020-01-01", "DATE NOT NULL");
    CHECK("TIME '12:34:56'", "12:34:56", "TIME(0) NOT NULL");
    CHECK("TIME '12:34:56.5'", "12:34:56.5", "TIME(1) NOT NULL");
    CHECK("TIMESTAMP '2020-01-01 12:00:00'", "2020-01-01T12:00:00", "TIMESTAMP(0) NOT NULL");
    CHECK("TIMESTAMP '2020-01-01 12:00:00.123'", "2020-01-01T12:00:00.123",
          "TIMESTAMP(3) NOT NULL");
    CHECK("CAST(NULL AS INT)", "null", "INT");
    CHECK("-5", "-5", "INT NOT NULL");
    CHECK("+5", "5", "INT NOT NULL");
    CHECK("-2147483648", "-2147483648", "BIGINT NOT NULL");
    CHECK("-4.20", "-4.20", "DECIMAL(3, 2) NOT NULL");
}

Test(expr, columns)
{
    CHECK("id", "7", "INT NOT NULL");
    CHECK("name", "Alice", "STRING");
    CHECK("t.name", "Alice", "STRING");
    CHECK("orders.qty", "3", "BIGINT");
    CHECK("price", "19.99", "DECIMAL(10, 2)");
    CHECK("addr", "(Paris, 75001)", "ROW<city STRING, zip INT>");
    CHECK("addr.city", "Paris", "STRING");
    CHECK("t.addr.zip", "75001", "INT");
    CHECK("code", "abc", "CHAR(3)");
    CHECK("nul", "null", "INT");
    CHECK("ltz", "2020-07-30T12:34:56.789Z", "TIMESTAMP_LTZ(3)");
}

Test(expr, nested_field_of_null_row_is_null)
{
    g_row->values[F_ADDR].flags = CDC_V_NULL;
    CHECK("addr.city", "null", "STRING");
}

Test(expr, subscripts)
{
    CHECK("tags[1]", "a", "STRING");
    CHECK("tags[2]", "b", "STRING");
    CHECK("tags[3]", "null", "STRING");
    CHECK("tags[0]", "null", "STRING");
    CHECK("tags[nul]", "null", "STRING");
    CHECK("attrs['y']", "2", "INT");
    CHECK("attrs['z']", "null", "INT");
    CHECK("UPPER(tags[1 + 1])", "B", "STRING");
}

/* Result types and values of the issue-20 built-ins; rows and NULL cases are golden tests
 * (tests/data/sql/functions_*.sql). */
Test(expr, string_builtin_types)
{
    CHECK("POSITION('li' IN name)", "2", "INT");
    CHECK("LOCATE('l', uni, 5)", "10", "INT");
    CHECK("REPLACE(name, 'l', 'L')", "ALice", "STRING");
    CHECK("LPAD(name, 7, '*')", "**Alice", "STRING");
    CHECK("RPAD(nstr, 3, 'x')", "null", "STRING");
    CHECK("SPLIT_INDEX(uni, ' ', 1)", "w\xc3\xb6rld", "STRING");
    CHECK("REGEXP(name, '^A')", "true", "BOOLEAN");
    CHECK("REGEXP_EXTRACT(name, 'l(i)', 1)", "i", "STRING");
    CHECK("HASH_CODE(name)", "63350368", "INT");
    CHECK("ASCII(name)", "65", "INT");
    CHECK("CHR(66)", "B", "STRING NOT NULL");
    CHECK("name IS DISTINCT FROM nstr", "true", "BOOLEAN NOT NULL");
    CHECK("nstr IS NOT DISTINCT FROM NULL", "true", "BOOLEAN NOT NULL");
    CHECK_COMPILE_ERR("LPAD(name, 'x', '*')",
                      "test.sql:1:8: cannot apply \"LPAD\" to STRING, STRING and STRING",
                      "expected LPAD(STRING, INT, STRING)");
}

Test(expr, time_builtin_types)
{
    CHECK("EXTRACT(MINUTE FROM ts)", "34", "BIGINT");
    CHECK("EXTRACT(YEAR FROM born)", "2020", "BIGINT");
    CHECK("HOUR(tm)", "12", "BIGINT");
    CHECK("FLOOR(ts TO DAY)", "2020-07-30T00:00:00.000", "TIMESTAMP(3)");
    CHECK("CEIL(ltz TO HOUR)", "2020-07-30T13:00:00.000Z", "TIMESTAMP_LTZ(3)");
    CHECK("TIMESTAMPADD(DAY, 2, born)", "2020-08-01", "DATE");
    CHECK("TIMESTAMPDIFF(HOUR, born, ts)", "12", "INT");
    CHECK("ts + INTERVAL '1' MINUTE", "2020-07-30T12:35:56.789", "TIMESTAMP(3)");
    CHECK("DATE_FORMAT(ts, 'yy/M/d h:mm a')", "20/7/30 12:34 PM", "STRING");
    CHECK("TO_TIMESTAMP('2020-07-30 12:34:56')", "2020-07-30T12:34:56.000", "TIMESTAMP(3)");
    CHECK("TO_DATE('nope')", "null", "DATE");
    CHECK("UNIX_TIMESTAMP('1970-01-02 00:00:00')", "86400", "BIGINT NOT NULL");
    CHECK("TO_TIMESTAMP_LTZ(86400, 0)", "1970-01-02T00:00:00.000Z", "TIMESTAMP_LTZ(3) NOT NULL");
    CHECK_COMPILE_ERR("EXTRACT(DAY FROM tm)",
                      "test.sql:1:16: \"EXTRACT\" cannot use unit DAY on TIME(0)",
                      "units: YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND, "
                      "MILLISECOND (EXTRACT also MICROSECOND, NANOSECOND, DOY, DOW)");
    CHECK_COMPILE_ERR("TO_TIMESTAMP_LTZ(qty, 6)",
                      "test.sql:1:30: the precision of \"TO_TIMESTAMP_LTZ\" must be the constant "
                      "0 or 3",
                      "0 for seconds, 3 for milliseconds");
}

Test(expr, json_builtin_types)
{
    CHECK("JSON_VALUE('{\"a\": [1, {\"b\": \"x\"}]}', '$.a[1].b')", "x", "STRING");
    CHECK("JSON_EXISTS(name, '$')", "false", "BOOLEAN");
    CHECK("JSON_QUERY('[1, [2]]', '$[1]')", "[2]", "STRING");
    CHECK("JSON_OBJECT('n' VALUE name, 'q' VALUE qty)", "{\"n\":\"Alice\",\"q\":3}",
          "STRING NOT NULL");
    CHECK("JSON_ARRAY(nstr, flag)", "[true]", "STRING NOT NULL");
    /* arrays and maps are written as JSON arrays and objects (Flink's docs); a ROW is refused */
    CHECK("JSON_OBJECT('t' VALUE tags)", "{\"t\":[\"a\",\"b\"]}", "STRING NOT NULL");
    CHECK_COMPILE_ERR(
        "JSON_OBJECT('a' VALUE addr)",
        "test.sql:1:30: \"JSON_OBJECT\" cannot take ROW<city STRING, zip INT> as a value",
        "values are strings, numbers, booleans, dates and times, ARRAYs and MAPs of them, or "
        "nested JSON_OBJECT/JSON_ARRAY");
}

/* Malformed documents give NULL, never a read past the text (run under the sanitizers). */
Test(expr, json_malformed_documents)
{
    static const char *const bad[] = {
        "{\"a\":", "\"\\u12\"", "[1,]",  "{\"a\" 1}", "01",  "-",       "1.",
        "1e",      "[",         "\"abc", "{,}",       "nul", "[1 2]",   "{\"a\":1,}",
        "\"\t\"",  "",          "   ",   "[\"\\x\"]", "tru", "{\"a\"}", "[1]]"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        g_row->values[F_NAME].v.s.ptr = bad[i];
        g_row->values[F_NAME].v.s.len = (uint32_t)strlen(bad[i]);
        CHECK("JSON_VALUE(name, '$')", "null", "STRING");
        CHECK("JSON_EXISTS(name, '$[0]')", "false", "BOOLEAN");
    }
    g_row->values[F_NAME].v.s.ptr = "\"\\ud800x\\u00e9\"";
    g_row->values[F_NAME].v.s.len = (uint32_t)strlen(g_row->values[F_NAME].v.s.ptr);
    CHECK("JSON_VALUE(name, '$')", "\xef\xbf\xbdx\xc3\xa9", "STRING");
    char deep[1201];
    memset(deep, '[', 600);
    memset(deep + 600, ']', 600);
    deep[1200] = '\0';
    g_row->values[F_NAME].v.s.ptr = deep;
    g_row->values[F_NAME].v.s.len = 1200;
    CHECK("JSON_QUERY(name, '$[0]')", "null", "STRING");
}

/* Patterns from a column: odd ones format and parse without reading or writing out of bounds. */
Test(expr, date_patterns_from_a_column)
{
    static const struct {
        const char *pattern, *formatted;
    } cases[] = {
        {"dddddddddddddddddddddddddddddddddddddddd", "00000000000000000030"},
        {"'abc", "abc"},
        {"''yy''", "'20'"},
        {"SSSSSSSSSSSS", "789000000000"},
        {"MMMM EEEE", "July Thursday"},
        {"Q", "null"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        g_row->values[F_NAME].v.s.ptr = cases[i].pattern;
        g_row->values[F_NAME].v.s.len = (uint32_t)strlen(cases[i].pattern);
        CHECK("DATE_FORMAT(ts, name)", cases[i].formatted, "STRING");
    }
    g_row->values[F_NAME].v.s.ptr = "yyyyMMddHHmmssSSS";
    g_row->values[F_NAME].v.s.len = 17;
    CHECK("TO_TIMESTAMP(DATE_FORMAT(ts, name), name)", "2020-07-30T12:34:56.789", "TIMESTAMP(3)");
    CHECK("TO_TIMESTAMP('2020', name)", "null", "TIMESTAMP(3)");
    CHECK("TO_TIMESTAMP('20200730123456789x', name)", "null", "TIMESTAMP(3)");
}

Test(expr, cardinality_and_element)
{
    CHECK("CARDINALITY(tags)", "2", "INT");
    CHECK("CARDINALITY(attrs)", "2", "INT");
    CHECK_COMPILE_ERR("CARDINALITY(name)", "test.sql:1:8: cannot apply \"CARDINALITY\" to STRING",
                      "expected CARDINALITY(ARRAY | MAP)");
    CHECK_COMPILE_ERR("ELEMENT(attrs)",
                      "test.sql:1:8: cannot apply \"ELEMENT\" to MAP<STRING, INT>",
                      "expected ELEMENT(ARRAY)");
    CHECK_EVAL_ERR("ELEMENT(tags)", "ELEMENT: the array has 2 elements, expected at most one");
    g_row->values[F_TAGS].v.arr.n = 1;
    CHECK("ELEMENT(tags)", "a", "STRING");
    g_row->values[F_TAGS].v.arr.n = 0;
    CHECK("ELEMENT(tags)", "null", "STRING");
    CHECK("CARDINALITY(tags)", "0", "INT");
    g_row->values[F_TAGS].flags = CDC_V_NULL;
    CHECK("CARDINALITY(tags)", "null", "INT");
}

/* ---- arithmetic ----------------------------------------------------------------------------- */

Test(expr, integer_arithmetic)
{
    CHECK("id + 1", "8", "INT NOT NULL");
    CHECK("id - 10", "-3", "INT NOT NULL");
    CHECK("id * 6", "42", "INT NOT NULL");
    CHECK("id + qty", "10", "BIGINT");
    CHECK("sm * 200", "60000", "INT");
    CHECK("7 / 2", "3", "INT NOT NULL");
    CHECK("-7 / 2", "-3", "INT NOT NULL");
    CHECK("-7 % 3", "-1", "INT NOT NULL");
    CHECK("7 % -3", "1", "INT NOT NULL");
    CHECK("-id", "-7", "INT NOT NULL");
    CHECK("- -id", "7", "INT NOT NULL");
    CHECK("id + nul", "null", "INT");
    CHECK("NULL + 1", "null", "INT");
    CHECK("1 + 2 * 3", "7", "INT NOT NULL");
    CHECK("(1 + 2) * 3", "9", "INT NOT NULL");
}

/* Integer overflow wraps at the result type's width, as Java (and Flink's generated code). */
Test(expr, integer_overflow_wraps)
{
    CHECK("2147483647 + 1", "-2147483648", "INT NOT NULL");
    CHECK("big + 1", "-9223372036854775808", "BIGINT");
    CHECK("big * 2", "-2", "BIGINT");
    CHECK("t + t", "-56", "TINYINT");
    CHECK("sm * sm", "24464", "SMALLINT");
    CHECK("-CAST(-2147483648 AS INT)", "-2147483648", "INT NOT NULL");
    CHECK("CAST(-2147483648 AS INT) / -1", "-2147483648", "INT NOT NULL");
    CHECK("CAST(-2147483648 AS INT) % -1", "0", "INT NOT NULL");
}

Test(expr, division_by_zero)
{
    CHECK_EVAL_ERR("id / 0", "division by zero");
    CHECK_EVAL_ERR("id % 0", "division by zero");
    CHECK_EVAL_ERR("1 / 0", "division by zero");
    CHECK_EVAL_ERR("price / 0", "division by zero");
    CHECK_EVAL_ERR("price % 0.0", "division by zero");
    CHECK_EVAL_ERR("MOD(id, 0)", "division by zero");
    CHECK("ratio / 0", "Infinity", "DOUBLE");
    CHECK("-1e0 / 0", "-Infinity", "DOUBLE NOT NULL");
    CHECK("0e0 / 0", "NaN", "DOUBLE NOT NULL");
    CHECK("ratio % 0", "NaN", "DOUBLE");
    CHECK("fl / 0", "Infinity", "FLOAT");
}

Test(expr, decimal_arithmetic)
{
    /* + -: s = max(s1, s2), p = max(p1 - s1, p2 - s2) + s + 1; INT is DECIMAL(10, 0) */
    CHECK("price + 1", "20.99", "DECIMAL(13, 2)");
    CHECK("price - 20", "-0.01", "DECIMAL(13, 2)");
    CHECK("1.5 + 2.25", "3.75", "DECIMAL(4, 2) NOT NULL");
    CHECK("t + 0.5", "100.5", "DECIMAL(5, 1)");
    CHECK("qty + 0.5", "3.5", "DECIMAL(21, 1)");
    /* *: s = s1 + s2, p = p1 + p2 */
    CHECK("price * 2", "39.98", "DECIMAL(20, 2)");
    CHECK("0.1 * 0.2", "0.02", "DECIMAL(2, 2) NOT NULL");
    CHECK("price * price", "399.6001", "DECIMAL(20, 4)");
    /* /: s = max(6, s1 + p2 + 1), p = p1 - s1 + s2 + s */
    CHECK("price / 3", "6.6633333333333", "DECIMAL(21, 13)");
    CHECK("1.0 / 3", "0.333333333333", "DECIMAL(13, 12) NOT NULL");
    CHECK("2.0 / 3", "0.666666666667", "DECIMAL(13, 12) NOT NULL");
    CHECK("-2.0 / 3", "-0.666666666667", "DECIMAL(13, 12) NOT NULL");
    CHECK("1 / 0.5", "2.000000", "DECIMAL(17, 6) NOT NULL");
    /* %: s = max(s1, s2), p = min(p1 - s1, p2 - s2) + s */
    CHECK("price % 7", "5.99", "DECIMAL(10, 2)");
    CHECK("-price % 7", "-5.99", "DECIMAL(10, 2)");
    CHECK("7.5 % 2", "1.5", "DECIMAL(2, 1) NOT NULL");
    CHECK("-price", "-19.99", "DECIMAL(10, 2)");
    /* precision above 38: p = 38, s = max(38 - integer digits, min(s, 6)) */
    CHECK("CAST(1 AS DECIMAL(38, 10)) * CAST(2 AS DECIMAL(38, 10))", "2.000000",
          "DECIMAL(38, 6) NOT NULL");
    CHECK("nd + price", "21.490000000", "DECIMAL(38, 9)");
    CHECK("CAST(1 AS DECIMAL(38, 10)) / 3", "0.3333333333", "DECIMAL(38, 10) NOT NULL");
    CHECK("CAST(0.3333335 AS DECIMAL(38, 20)) * CAST(0.5 AS DECIMAL(38, 20))", "0.166667",
          "DECIMAL(38, 6) NOT NULL");
    CHECK("CAST(2 AS DECIMAL(38, 37)) / CAST(3 AS DECIMAL(38, 37))", "0.666667",
          "DECIMAL(38, 6) NOT NULL");
    CHECK("1234567890123456789.5 * 1000000000000000000", "1234567890123456789500000000000000000.0",
          "DECIMAL(38, 1) NOT NULL");
}

Test(expr, decimal_overflow_is_an_error)
{
    CHECK_EVAL_ERR("CAST(99999999999999999999999999999999999999 AS DECIMAL(38, 0)) + 1",
                   "value out of range for DECIMAL(38, 0)");
    CHECK_EVAL_ERR("CAST(1e20 AS DECIMAL(38, 0)) * CAST(1e20 AS DECIMAL(38, 0))",
                   "value out of range for DECIMAL(38, 0)");
}

Test(expr, floating_point)
{
    CHECK("ratio * 2", "1.0", "DOUBLE");
    CHECK("ratio + price", "20.49", "DOUBLE");
    CHECK("fl + 1", "2.5", "FLOAT");
    CHECK("fl * fl", "2.25", "FLOAT");
    CHECK("fl + price", "21.49", "DOUBLE");
    CHECK("fl + ratio", "2.0", "DOUBLE");
    CHECK("0.1e0 + 0.2e0", "0.30000000000000004", "DOUBLE NOT NULL");
    CHECK("7.5e0 % 2", "1.5", "DOUBLE NOT NULL");
    CHECK("-ratio", "-0.5", "DOUBLE");
}

/* ---- comparisons and logic ------------------------------------------------------------------ */

Test(expr, comparisons)
{
    CHECK("id = 7", "true", "BOOLEAN NOT NULL");
    CHECK("id <> 7", "false", "BOOLEAN NOT NULL");
    CHECK("id != 8", "true", "BOOLEAN NOT NULL");
    CHECK("id < qty", "false", "BOOLEAN");
    CHECK("id <= 7", "true", "BOOLEAN NOT NULL");
    CHECK("id > 6", "true", "BOOLEAN NOT NULL");
    CHECK("id >= 8", "false", "BOOLEAN NOT NULL");
    CHECK("t < sm", "true", "BOOLEAN");
    CHECK("price > 19.9", "true", "BOOLEAN");
    CHECK("price = 19.99", "true", "BOOLEAN");
    CHECK("price >= 20", "false", "BOOLEAN");
    CHECK("id = 7.0", "true", "BOOLEAN NOT NULL");
    CHECK("CAST(1 AS DECIMAL(38, 0)) = CAST(1 AS DECIMAL(38, 37))", "true", "BOOLEAN NOT NULL");
    CHECK("ratio = 0.5", "true", "BOOLEAN");
    CHECK("fl = 1.5", "true", "BOOLEAN");
    CHECK("fl > ratio", "true", "BOOLEAN");
    CHECK("big > 1e18", "true", "BOOLEAN");
    CHECK("name = 'Alice'", "true", "BOOLEAN");
    CHECK("name < 'Bob'", "true", "BOOLEAN");
    CHECK("'a' < 'B'", "false", "BOOLEAN NOT NULL");
    CHECK("'ab' < 'abc'", "true", "BOOLEAN NOT NULL");
    CHECK("uni > 'hello'", "true", "BOOLEAN");
    CHECK("code = 'abc'", "true", "BOOLEAN");
    CHECK("flag = TRUE", "true", "BOOLEAN");
    CHECK("FALSE < TRUE", "true", "BOOLEAN NOT NULL");
    CHECK("born = DATE '2020-07-30'", "true", "BOOLEAN");
    CHECK("born < '2021-01-01'", "true", "BOOLEAN");
    CHECK("'2020-07-30' = born", "true", "BOOLEAN");
    CHECK("ts > born", "true", "BOOLEAN");
    CHECK("ts = TIMESTAMP '2020-07-30 12:34:56.789'", "true", "BOOLEAN");
    CHECK("ts < '2020-07-30 12:34:56.790'", "true", "BOOLEAN");
    CHECK("tm < TIME '13:00:00'", "true", "BOOLEAN");
    CHECK("nul = 1", "null", "BOOLEAN");
    CHECK("NULL = 1", "null", "BOOLEAN");
    CHECK("NULL = NULL", "null", "BOOLEAN");
    CHECK("0e0 / 0 = 0e0 / 0", "false", "BOOLEAN NOT NULL");
    CHECK("0e0 / 0 <> 0e0 / 0", "true", "BOOLEAN NOT NULL");
    CHECK("0e0 / 0 > 1", "false", "BOOLEAN NOT NULL");
    CHECK_EVAL_ERR("born < 'soon'", "cannot cast 'soon' to DATE");
}

Test(expr, and_or_not_truth_tables)
{
    CHECK("TRUE AND TRUE", "true", "BOOLEAN NOT NULL");
    CHECK("TRUE AND FALSE", "false", "BOOLEAN NOT NULL");
    CHECK("TRUE AND nb", "null", "BOOLEAN");
    CHECK("nb AND TRUE", "null", "BOOLEAN");
    CHECK("FALSE AND nb", "false", "BOOLEAN");
    CHECK("nb AND FALSE", "false", "BOOLEAN");
    CHECK("nb AND nb", "null", "BOOLEAN");
    CHECK("TRUE OR nb", "true", "BOOLEAN");
    CHECK("nb OR TRUE", "true", "BOOLEAN");
    CHECK("FALSE OR nb", "null", "BOOLEAN");
    CHECK("nb OR FALSE", "null", "BOOLEAN");
    CHECK("nb OR nb", "null", "BOOLEAN");
    CHECK("FALSE OR FALSE", "false", "BOOLEAN NOT NULL");
    CHECK("NOT TRUE", "false", "BOOLEAN NOT NULL");
    CHECK("NOT nb", "null", "BOOLEAN");
    CHECK("NOT flag", "false", "BOOLEAN");
    CHECK("NULL AND TRUE", "null", "BOOLEAN");
    CHECK("NULL OR TRUE", "true", "BOOLEAN");
    CHECK("id = 7 AND qty = 3", "true", "BOOLEAN");
    CHECK("id = 7 AND TRUE", "true", "BOOLEAN NOT NULL");
    /* the right side is not evaluated once the left decides */
    CHECK("id = 8 AND id / 0 = 1", "false", "BOOLEAN NOT NULL");
    CHECK("id = 7 OR id / 0 = 1", "true", "BOOLEAN NOT NULL");
    CHECK_EVAL_ERR("id = 7 AND id / 0 = 1", "division by zero");
}

Test(expr, is_null)
{
    CHECK("nul IS NULL", "true", "BOOLEAN NOT NULL");
    CHECK("nul IS NOT NULL", "false", "BOOLEAN NOT NULL");
    CHECK("name IS NULL", "false", "BOOLEAN NOT NULL");
    CHECK("NULL IS NULL", "true", "BOOLEAN NOT NULL");
    CHECK("nb IS NOT NULL", "false", "BOOLEAN NOT NULL");
    CHECK("(id + nul) IS NULL", "true", "BOOLEAN NOT NULL");
}

Test(expr, in_list)
{
    CHECK("id IN (1, 7)", "true", "BOOLEAN NOT NULL");
    CHECK("id IN (1, 2)", "false", "BOOLEAN NOT NULL");
    CHECK("id IN (1, NULL)", "null", "BOOLEAN");
    CHECK("id IN (7, NULL)", "true", "BOOLEAN");
    CHECK("id NOT IN (1, 2)", "true", "BOOLEAN NOT NULL");
    CHECK("id NOT IN (1, NULL)", "null", "BOOLEAN");
    CHECK("id NOT IN (7, NULL)", "false", "BOOLEAN");
    CHECK("nul IN (1)", "null", "BOOLEAN");
    CHECK("price IN (19.99, 1)", "true", "BOOLEAN");
    CHECK("id IN (7.0, 2.5)", "true", "BOOLEAN NOT NULL");
    CHECK("id IN (1e0, 7e0)", "true", "BOOLEAN NOT NULL");
    CHECK("name IN ('Bob', 'Alice')", "true", "BOOLEAN");
    CHECK("born IN ('2020-07-30')", "true", "BOOLEAN");
}

Test(expr, between)
{
    CHECK("id BETWEEN 1 AND 10", "true", "BOOLEAN NOT NULL");
    CHECK("id BETWEEN 7 AND 7", "true", "BOOLEAN NOT NULL");
    CHECK("id BETWEEN 8 AND 10", "false", "BOOLEAN NOT NULL");
    CHECK("id NOT BETWEEN 8 AND 10", "true", "BOOLEAN NOT NULL");
    CHECK("id BETWEEN nul AND 10", "null", "BOOLEAN");
    CHECK("id BETWEEN nul AND 5", "false", "BOOLEAN");
    CHECK("id NOT BETWEEN nul AND 5", "true", "BOOLEAN");
    CHECK("price BETWEEN 19 AND 20", "true", "BOOLEAN");
    CHECK("name BETWEEN 'A' AND 'B'", "true", "BOOLEAN");
    CHECK("ts BETWEEN born AND '2020-07-31'", "true", "BOOLEAN");
}

Test(expr, like)
{
    CHECK("name LIKE 'A%'", "true", "BOOLEAN");
    CHECK("name LIKE 'a%'", "false", "BOOLEAN");
    CHECK("name LIKE '_lice'", "true", "BOOLEAN");
    CHECK("name LIKE '%li%'", "true", "BOOLEAN");
    CHECK("name LIKE 'Alice_'", "false", "BOOLEAN");
    CHECK("name LIKE 'Alice'", "true", "BOOLEAN");
    CHECK("name NOT LIKE 'B%'", "true", "BOOLEAN");
    CHECK("nstr LIKE 'a'", "null", "BOOLEAN");
    CHECK("name LIKE nstr", "null", "BOOLEAN");
    CHECK("'' LIKE '%'", "true", "BOOLEAN NOT NULL");
    CHECK("'' LIKE '_'", "false", "BOOLEAN NOT NULL");
    CHECK("'abc' LIKE '%%c'", "true", "BOOLEAN NOT NULL");
    CHECK("'aaa' LIKE '%a%a%a%'", "true", "BOOLEAN NOT NULL");
    CHECK("'aa' LIKE '%a%a%a%'", "false", "BOOLEAN NOT NULL");
    CHECK("'abcbd' LIKE 'a%bd'", "true", "BOOLEAN NOT NULL");
    CHECK("'a.c' LIKE 'a.c'", "true", "BOOLEAN NOT NULL");
    CHECK("'abc' LIKE 'a.c'", "false", "BOOLEAN NOT NULL");
    /* _ is one character, not one byte */
    CHECK("uni LIKE 'h_llo%'", "true", "BOOLEAN");
    CHECK("uni LIKE 'h__llo%'", "false", "BOOLEAN");
    CHECK("uni LIKE '%w_rld'", "true", "BOOLEAN");
}

Test(expr, like_escape)
{
    CHECK("pct LIKE '50!%!_off' ESCAPE '!'", "true", "BOOLEAN");
    CHECK("pct LIKE '50!%%' ESCAPE '!'", "true", "BOOLEAN");
    CHECK("'50x' LIKE '50!%' ESCAPE '!'", "false", "BOOLEAN NOT NULL");
    CHECK("'50%' LIKE '50!%' ESCAPE '!'", "true", "BOOLEAN NOT NULL");
    CHECK("'a!b' LIKE 'a!!b' ESCAPE '!'", "true", "BOOLEAN NOT NULL");
    CHECK("'a_b' LIKE 'a\\_b' ESCAPE '\\'", "true", "BOOLEAN NOT NULL");
    CHECK("'axb' LIKE 'a\\_b' ESCAPE '\\'", "false", "BOOLEAN NOT NULL");
    CHECK("'a%b' LIKE 'a\xc3\xa9%b' ESCAPE '\xc3\xa9'", "true", "BOOLEAN NOT NULL");
    CHECK("name LIKE 'A%' ESCAPE nstr", "null", "BOOLEAN");
    CHECK_EVAL_ERR("name LIKE 'a!b' ESCAPE '!'", "invalid escape sequence in LIKE pattern 'a!b'");
    CHECK_EVAL_ERR("name LIKE 'a!' ESCAPE '!'", "invalid escape sequence in LIKE pattern 'a!'");
    CHECK_EVAL_ERR("name LIKE 'a' ESCAPE name", "invalid escape character 'Alice' in LIKE");
}

/* ---- conditionals --------------------------------------------------------------------------- */

Test(expr, case_when)
{
    CHECK("CASE WHEN id > 5 THEN 'big' ELSE 'small' END", "big", "STRING NOT NULL");
    CHECK("CASE WHEN id > 50 THEN 'big' END", "null", "STRING");
    CHECK("CASE WHEN id > 50 THEN 'big' WHEN id > 5 THEN 'mid' END", "mid", "STRING");
    CHECK("CASE id WHEN 1 THEN 'one' WHEN 7 THEN 'seven' END", "seven", "STRING");
    CHECK("CASE id WHEN 1 THEN 1 ELSE 2.5 END", "2.5", "DECIMAL(11, 1) NOT NULL");
    CHECK("CASE id WHEN 7 THEN 1 ELSE 2.5 END", "1.0", "DECIMAL(11, 1) NOT NULL");
    CHECK("CASE WHEN nb THEN 1 ELSE 2 END", "2", "INT NOT NULL");
    CHECK("CASE nul WHEN 1 THEN 'a' ELSE 'b' END", "b", "STRING NOT NULL");
    CHECK("CASE WHEN FALSE THEN 1 ELSE NULL END", "null", "INT");
    CHECK("CASE WHEN TRUE THEN 1 ELSE 1e0 END", "1.0", "DOUBLE NOT NULL");
    CHECK("CASE WHEN TRUE THEN t ELSE qty END", "100", "BIGINT");
    CHECK("CASE WHEN TRUE THEN name ELSE code END", "Alice", "STRING");
    CHECK("CASE WHEN TRUE THEN ts ELSE born END", "2020-07-30T12:34:56.789", "TIMESTAMP(3)");
    CHECK("CASE id WHEN 7.0 THEN 'x' END", "x", "STRING");
    /* only the chosen branch is evaluated */
    CHECK("CASE WHEN id = 7 THEN 1 ELSE id / 0 END", "1", "INT NOT NULL");
}

Test(expr, coalesce_if_nullif)
{
    CHECK("COALESCE(nul, id)", "7", "INT NOT NULL");
    CHECK("COALESCE(nul, nul)", "null", "INT");
    CHECK("COALESCE(nul, 2.5)", "2.5", "DECIMAL(11, 1) NOT NULL");
    CHECK("COALESCE(nstr, name, 'x')", "Alice", "STRING NOT NULL");
    CHECK("COALESCE(NULL, 'a')", "a", "STRING NOT NULL");
    CHECK("coalesce(nstr, nstr)", "null", "STRING");
    CHECK("IF(id > 5, 'y', 'n')", "y", "STRING NOT NULL");
    CHECK("IF(nb, 1, 2)", "2", "INT NOT NULL");
    CHECK("IF(flag, 1, nul)", "1", "INT");
    CHECK("IF(FALSE, 1, 2.5)", "2.5", "DECIMAL(11, 1) NOT NULL");
    CHECK("NULLIF(id, 7)", "null", "INT");
    CHECK("NULLIF(id, 8)", "7", "INT");
    CHECK("NULLIF(name, 'Bob')", "Alice", "STRING");
    CHECK("NULLIF(nul, 1)", "null", "INT");
}

/* ---- strings -------------------------------------------------------------------------------- */

Test(expr, concatenation)
{
    CHECK("name || '!'", "Alice!", "STRING");
    CHECK("'a' || 'b' || 'c'", "abc", "STRING NOT NULL");
    CHECK("nstr || 'a'", "null", "STRING");
    CHECK("code || name", "abcAlice", "STRING");
    CHECK("CONCAT(name, '-', 'x')", "Alice-x", "STRING");
    CHECK("CONCAT('a', 'b')", "ab", "STRING NOT NULL");
    CHECK("CONCAT('a', nstr)", "null", "STRING");
    CHECK("CONCAT_WS('-', 'a', nstr, 'b')", "a-b", "STRING NOT NULL");
    CHECK("CONCAT_WS(', ', name, 'x')", "Alice, x", "STRING NOT NULL");
    CHECK("CONCAT_WS('-', nstr)", "", "STRING NOT NULL");
    CHECK("CONCAT_WS(nstr, 'a')", "null", "STRING");
}

Test(expr, upper_lower_trim)
{
    CHECK("UPPER(name)", "ALICE", "STRING");
    CHECK("lower(name)", "alice", "STRING");
    CHECK("UPPER('abc')", "ABC", "STRING NOT NULL");
    /* ASCII letters only; other UTF-8 passes through */
    CHECK("UPPER(uni)", "H\xc3\xa9LLO W\xc3\xb6RLD", "STRING");
    CHECK("LOWER('\xc3\x80"
          "BC')",
          "\xc3\x80"
          "bc",
          "STRING NOT NULL");
    CHECK("UPPER(nstr)", "null", "STRING");
    CHECK("TRIM('  a b  ')", "a b", "STRING NOT NULL");
    CHECK("TRIM(BOTH FROM '  a  ')", "a", "STRING NOT NULL");
    CHECK("TRIM(LEADING 'x' FROM 'xxaxx')", "axx", "STRING NOT NULL");
    CHECK("TRIM(TRAILING 'x' FROM 'xxaxx')", "xxa", "STRING NOT NULL");
    CHECK("TRIM(BOTH 'xy' FROM 'xyaxyx')", "a", "STRING NOT NULL");
    CHECK("TRIM('\xc3\xa9' FROM '\xc3\xa9\xc3\xa9"
          "a\xc3\xa9')",
          "a", "STRING NOT NULL");
    CHECK("TRIM('x' FROM 'xxx')", "", "STRING NOT NULL");
    CHECK("TRIM(nstr)", "null", "STRING");
    CHECK("TRIM(nstr FROM 'a')", "null", "STRING");
    CHECK("LTRIM('  a ')", "a ", "STRING NOT NULL");
    CHECK("RTRIM('  a ')", "  a", "STRING NOT NULL");
    CHECK("LTRIM('xxa', 'x')", "a", "STRING NOT NULL");
}

Test(expr, substring_and_char_length)
{
    CHECK("SUBSTRING('hello', 2)", "ello", "STRING NOT NULL");
    CHECK("SUBSTRING('hello', 2, 3)", "ell", "STRING NOT NULL");
    CHECK("SUBSTRING('hello' FROM 2 FOR 3)", "ell", "STRING NOT NULL");
    CHECK("SUBSTRING('hello' FROM 4)", "lo", "STRING NOT NULL");
    CHECK("SUBSTR('hello', 1, 1)", "h", "STRING NOT NULL");
    /* Flink: position 0 counts as 1, negative positions count from the end */
    CHECK("SUBSTRING('hello', 0, 2)", "he", "STRING NOT NULL");
    CHECK("SUBSTRING('hello', -3)", "llo", "STRING NOT NULL");
    CHECK("SUBSTRING('hello', -3, 2)", "ll", "STRING NOT NULL");
    CHECK("SUBSTRING('hello', 10)", "", "STRING NOT NULL");
    CHECK("SUBSTRING('hello', -10)", "", "STRING NOT NULL");
    CHECK("SUBSTRING('hello', 2, 100)", "ello", "STRING NOT NULL");
    CHECK("SUBSTRING('hello', 2, 0)", "", "STRING NOT NULL");
    /* a negative length gives NULL, so a non-constant length makes the result nullable */
    CHECK("SUBSTRING('hello', 2, -1)", "null", "STRING");
    CHECK("SUBSTRING('hello', 1, id)", "hello", "STRING");
    CHECK("SUBSTRING(name, 1, 3)", "Ali", "STRING");
    CHECK("SUBSTRING(nstr, 1)", "null", "STRING");
    CHECK("SUBSTRING(name, nul)", "null", "STRING");
    /* UTF-8: positions and lengths count characters */
    CHECK("SUBSTR(uni, 2, 4)", "\xc3\xa9llo", "STRING");
    CHECK("SUBSTRING('\xf0\x9f\x98\x80"
          "ab', 2)",
          "ab", "STRING NOT NULL");
    CHECK("SUBSTRING(uni, -5)", "w\xc3\xb6rld", "STRING");
    CHECK("CHAR_LENGTH(uni)", "11", "INT");
    CHECK("CHARACTER_LENGTH('abc')", "3", "INT NOT NULL");
    CHECK("CHAR_LENGTH('\xf0\x9f\x98\x80"
          "a')",
          "2", "INT NOT NULL");
    CHECK("CHAR_LENGTH('')", "0", "INT NOT NULL");
    CHECK("CHAR_LENGTH(nstr)", "null", "INT");
}

/* ---- numeric functions ---------------------------------------------------------------------- */

Test(expr, abs_mod)
{
    CHECK("ABS(-5)", "5", "INT NOT NULL");
    CHECK("ABS(neg)", "5", "INT");
    CHECK("ABS(price - 100)", "80.01", "DECIMAL(13, 2)");
    CHECK("ABS(-1.5e0)", "1.5", "DOUBLE NOT NULL");
    CHECK("ABS(-fl)", "1.5", "FLOAT");
    CHECK("ABS(nul)", "null", "INT");
    CHECK("ABS(CAST(-2147483648 AS INT))", "-2147483648", "INT NOT NULL"); /* Java's Math.abs */
    CHECK("MOD(7, 3)", "1", "INT NOT NULL");
    CHECK("MOD(-7, 3)", "-1", "INT NOT NULL");
    CHECK("MOD(qty, 2)", "1", "BIGINT");
    CHECK("MOD(price, 7)", "5.99", "DECIMAL(10, 2)");
    CHECK("MOD(7.5e0, 2)", "1.5", "DOUBLE NOT NULL");
}

Test(expr, round_floor_ceil)
{
    CHECK("ROUND(price, 1)", "20.0", "DECIMAL(10, 1)");
    CHECK("ROUND(price)", "20", "DECIMAL(9, 0)");
    CHECK("ROUND(price, -1)", "20", "DECIMAL(9, 0)");
    CHECK("ROUND(price, 5)", "19.99", "DECIMAL(10, 2)");
    CHECK("ROUND(-2.5)", "-3", "DECIMAL(2, 0) NOT NULL");
    CHECK("ROUND(2.45, 1)", "2.5", "DECIMAL(3, 1) NOT NULL");
    CHECK("ROUND(-2.45, 1)", "-2.5", "DECIMAL(3, 1) NOT NULL");
    CHECK("ROUND(1234.5, -2)", "1200", "DECIMAL(5, 0) NOT NULL");
    CHECK("ROUND(15, -1)", "20", "INT NOT NULL");
    CHECK("ROUND(-15, -1)", "-20", "INT NOT NULL");
    CHECK("ROUND(14, -1)", "10", "INT NOT NULL");
    CHECK("ROUND(id, 2)", "7", "INT NOT NULL");
    CHECK("ROUND(2.675e0, 2)", "2.68", "DOUBLE NOT NULL"); /* HALF_UP on the decimal text */
    CHECK("ROUND(1.5e0)", "2.0", "DOUBLE NOT NULL");
    CHECK("ROUND(-0.5e0)", "-1.0", "DOUBLE NOT NULL");
    CHECK("ROUND(1234.5e0, -2)", "1200.0", "DOUBLE NOT NULL");
    CHECK("ROUND(9.99e0, 1)", "10.0", "DOUBLE NOT NULL");
    CHECK("ROUND(0.004e0, 2)", "0.0", "DOUBLE NOT NULL");
    CHECK("ROUND(-0.004e0, 2)", "0.0", "DOUBLE NOT NULL");
    CHECK("ROUND(1e300, 2)", "1.0E300", "DOUBLE NOT NULL");
    CHECK("ROUND(fl)", "2.0", "FLOAT");
    CHECK("ROUND(nul, 1)", "null", "INT");
    CHECK("FLOOR(price)", "19", "DECIMAL(9, 0)");
    CHECK("CEIL(price)", "20", "DECIMAL(9, 0)");
    CHECK("FLOOR(-1.5)", "-2", "DECIMAL(2, 0) NOT NULL");
    CHECK("CEIL(-1.5)", "-1", "DECIMAL(2, 0) NOT NULL");
    CHECK("CEILING(9.5)", "10", "DECIMAL(2, 0) NOT NULL");
    CHECK("FLOOR(ratio)", "0.0", "DOUBLE");
    CHECK("CEILING(ratio)", "1.0", "DOUBLE");
    CHECK("CEIL(fl)", "2.0", "FLOAT");
    CHECK("FLOOR(id)", "7", "INT NOT NULL");
}

/* ---- casts ---------------------------------------------------------------------------------- */

Test(expr, cast_numeric)
{
    CHECK("CAST(id AS BIGINT)", "7", "BIGINT NOT NULL");
    CHECK("CAST(qty AS INT)", "3", "INT");
    CHECK("CAST(price AS INT)", "19", "INT");
    CHECK("CAST(-19.99 AS INT)", "-19", "INT NOT NULL");
    CHECK("CAST(price AS DECIMAL(5, 1))", "20.0", "DECIMAL(5, 1)");
    CHECK("CAST(1.005 AS DECIMAL(3, 2))", "1.01", "DECIMAL(3, 2) NOT NULL");
    CHECK("CAST(-1.005 AS DECIMAL(3, 2))", "-1.01", "DECIMAL(3, 2) NOT NULL");
    CHECK("CAST(1.004 AS DECIMAL(3, 2))", "1.00", "DECIMAL(3, 2) NOT NULL");
    CHECK("CAST(id AS DECIMAL(5, 2))", "7.00", "DECIMAL(5, 2) NOT NULL");
    CHECK("CAST(price AS DOUBLE)", "19.99", "DOUBLE");
    CHECK("CAST(price AS FLOAT)", "19.99", "FLOAT");
    CHECK("CAST(ratio AS DECIMAL(5, 2))", "0.50", "DECIMAL(5, 2)");
    CHECK("CAST(0.1e0 AS DECIMAL(5, 2))", "0.10", "DECIMAL(5, 2) NOT NULL");
    CHECK("CAST(2.675e0 AS DECIMAL(5, 2))", "2.68", "DECIMAL(5, 2) NOT NULL");
    CHECK("CAST(fl AS DECIMAL(3, 1))", "1.5", "DECIMAL(3, 1)");
    CHECK("CAST(2.9e0 AS INT)", "2", "INT NOT NULL");
    CHECK("CAST(-2.9e0 AS INT)", "-2", "INT NOT NULL");
    CHECK("CAST(fl AS INT)", "1", "INT");
    CHECK("CAST(fl AS DOUBLE)", "1.5", "DOUBLE");
    CHECK("CAST(ratio AS FLOAT)", "0.5", "FLOAT");
    CHECK("CAST(big AS DOUBLE)", "9.223372036854776E18", "DOUBLE");
    CHECK("CAST(0.1 + 0.2 AS DOUBLE)", "0.3", "DOUBLE NOT NULL");
    CHECK("CAST(9.223372036854775E18 AS BIGINT)", "9223372036854774784", "BIGINT NOT NULL");
    CHECK("CAST(TRUE AS INT)", "1", "INT NOT NULL");
    CHECK("CAST(0 AS BOOLEAN)", "false", "BOOLEAN NOT NULL");
    CHECK("CAST(qty AS BOOLEAN)", "true", "BOOLEAN");
}

Test(expr, cast_numeric_failures)
{
    CHECK_EVAL_ERR("CAST(300 AS TINYINT)", "cannot cast 300 to TINYINT");
    CHECK_EVAL_ERR("CAST(sm AS TINYINT)", "cannot cast 300 to TINYINT");
    CHECK_EVAL_ERR("CAST(big AS INT)", "cannot cast 9223372036854775807 to INT");
    CHECK_EVAL_ERR("CAST(price AS DECIMAL(3, 2))", "cannot cast 19.99 to DECIMAL(3, 2)");
    CHECK_EVAL_ERR("CAST(1e300 AS DECIMAL(5, 2))", "cannot cast 1.0E300 to DECIMAL(5, 2)");
    CHECK_EVAL_ERR("CAST(0e0 / 0 AS INT)", "cannot cast NaN to INT");
    CHECK_EVAL_ERR("CAST(3e9 AS INT)", "cannot cast 3.0E9 to INT");
    CHECK_EVAL_ERR("CAST(9.3e18 AS BIGINT)", "cannot cast 9.3E18 to BIGINT");
    CHECK_EVAL_ERR("CAST(1e0 / 0 AS DECIMAL(5, 2))", "cannot cast Infinity to DECIMAL(5, 2)");
    CHECK_EVAL_ERR("CAST(price * 1000000000 AS INT)", "cannot cast 19990000000.00 to INT");
}

Test(expr, cast_strings)
{
    CHECK("CAST(qty AS STRING)", "3", "STRING");
    CHECK("CAST(price AS STRING)", "19.99", "STRING");
    CHECK("CAST(ratio AS STRING)", "0.5", "STRING");
    CHECK("CAST(fl AS STRING)", "1.5", "STRING");
    CHECK("CAST(1e0 / 3 AS STRING)", "0.3333333333333333", "STRING NOT NULL");
    CHECK("CAST(flag AS STRING)", "true", "STRING");
    CHECK("CAST(born AS STRING)", "2020-07-30", "STRING");
    CHECK("CAST(ts AS STRING)", "2020-07-30 12:34:56.789", "STRING");
    CHECK("CAST(ltz AS STRING)", "2020-07-30 12:34:56.789", "STRING");
    CHECK("CAST(tm AS STRING)", "12:00:00", "STRING");
    CHECK("CAST(' 42 ' AS INT)", "42", "INT NOT NULL");
    CHECK("CAST('-9223372036854775808' AS BIGINT)", "-9223372036854775808", "BIGINT NOT NULL");
    CHECK("CAST('+5' AS SMALLINT)", "5", "SMALLINT NOT NULL");
    CHECK("CAST('1.5' AS DOUBLE)", "1.5", "DOUBLE NOT NULL");
    CHECK("CAST('1e3' AS DOUBLE)", "1000.0", "DOUBLE NOT NULL");
    CHECK("CAST('NaN' AS DOUBLE)", "NaN", "DOUBLE NOT NULL");
    CHECK("CAST('-Infinity' AS DOUBLE)", "-Infinity", "DOUBLE NOT NULL");
    CHECK("CAST('0.1' AS FLOAT)", "0.1", "FLOAT NOT NULL");
    CHECK("CAST('12.345' AS DECIMAL(5, 2))", "12.35", "DECIMAL(5, 2) NOT NULL");
    CHECK("CAST('TRUE' AS BOOLEAN)", "true", "BOOLEAN NOT NULL");
    CHECK("CAST(' no ' AS BOOLEAN)", "false", "BOOLEAN NOT NULL");
    CHECK("CAST('1' AS BOOLEAN)", "true", "BOOLEAN NOT NULL");
    CHECK("CAST('2020-02-29' AS DATE)", "2020-02-29", "DATE NOT NULL");
    CHECK("CAST('10:11:12' AS TIME)", "10:11:12", "TIME(0) NOT NULL");
    CHECK("CAST('2020-01-01 10:00:00.123456' AS TIMESTAMP(3))", "2020-01-01T10:00:00.123",
          "TIMESTAMP(3) NOT NULL");
    CHECK("CAST('2020-01-01T10:00:00' AS TIMESTAMP)", "2020-01-01T10:00:00.000000",
          "TIMESTAMP(6) NOT NULL");
    CHECK("CAST('2020-01-01 10:00:00+02:00' AS TIMESTAMP_LTZ(0))", "2020-01-01T08:00:00Z",
          "TIMESTAMP_LTZ(0) NOT NULL");
    CHECK("CAST(name AS VARCHAR(3))", "Ali", "VARCHAR(3)");
    CHECK("CAST('ab' AS CHAR(4))", "ab  ", "CHAR(4) NOT NULL");
    CHECK("CAST(uni AS VARCHAR(2))", "h\xc3\xa9", "VARCHAR(2)");
    CHECK("CAST(id AS CHAR(1))", "7", "CHAR(1) NOT NULL");
    CHECK("CAST(code AS STRING)", "abc", "STRING");
    CHECK("CAST(name AS BYTES)", "x'416c696365'", "BYTES");
    CHECK("CAST(CAST(name AS BYTES) AS STRING)", "Alice", "STRING");
}

Test(expr, cast_string_failures)
{
    CHECK_EVAL_ERR("CAST('abc' AS INT)", "cannot cast 'abc' to INT");
    CHECK_EVAL_ERR("CAST(name AS INT)", "cannot cast 'Alice' to INT");
    CHECK_EVAL_ERR("CAST('1.5' AS INT)", "cannot cast '1.5' to INT");
    CHECK_EVAL_ERR("CAST('' AS INT)", "cannot cast '' to INT");
    CHECK_EVAL_ERR("CAST('9223372036854775808' AS BIGINT)",
                   "cannot cast '9223372036854775808' to BIGINT");
    CHECK_EVAL_ERR("CAST('128' AS TINYINT)", "cannot cast '128' to TINYINT");
    CHECK_EVAL_ERR("CAST('0x10' AS DOUBLE)", "cannot cast '0x10' to DOUBLE");
    CHECK_EVAL_ERR("CAST('12.3.4' AS DECIMAL(5, 2))", "cannot cast '12.3.4' to DECIMAL(5, 2)");
    CHECK_EVAL_ERR("CAST('1234' AS DECIMAL(5, 2))", "cannot cast '1234' to DECIMAL(5, 2)");
    CHECK_EVAL_ERR("CAST('maybe' AS BOOLEAN)", "cannot cast 'maybe' to BOOLEAN");
    CHECK_EVAL_ERR("CAST('2021-02-29' AS DATE)", "cannot cast '2021-02-29' to DATE");
    CHECK_EVAL_ERR("CAST('25:00:00' AS TIME)", "cannot cast '25:00:00' to TIME(0)");
    CHECK_EVAL_ERR("CAST('yesterday' AS TIMESTAMP(3))", "cannot cast 'yesterday' to TIMESTAMP(3)");
    CHECK_EVAL_ERR("CAST('this text is far too long to be shown in full here' AS INT)",
                   "cannot cast 'this text is far too long to be shown in...' to INT");
}

Test(expr, try_cast)
{
    CHECK("TRY_CAST('abc' AS INT)", "null", "INT");
    CHECK("TRY_CAST('42' AS INT)", "42", "INT");
    CHECK("TRY_CAST(price AS DECIMAL(3, 2))", "null", "DECIMAL(3, 2)");
    CHECK("TRY_CAST(300 AS TINYINT)", "null", "TINYINT");
    CHECK("TRY_CAST('2021-02-29' AS DATE)", "null", "DATE");
    CHECK("TRY_CAST(id AS STRING)", "7", "STRING");
    CHECK("COALESCE(TRY_CAST(name AS INT), -1)", "-1", "INT NOT NULL");
    /* errors of the operand itself are not swallowed */
    CHECK_EVAL_ERR("TRY_CAST(id / 0 AS STRING)", "division by zero");
}

Test(expr, cast_temporal)
{
    CHECK("CAST(ts AS DATE)", "2020-07-30", "DATE");
    CHECK("CAST(ts AS TIME(3))", "12:34:56.789", "TIME(3)");
    CHECK("CAST(ts AS TIME)", "12:34:56", "TIME(0)");
    CHECK("CAST(ts AS TIMESTAMP(0))", "2020-07-30T12:34:56", "TIMESTAMP(0)");
    CHECK("CAST(ts AS TIMESTAMP(1))", "2020-07-30T12:34:56.7", "TIMESTAMP(1)");
    CHECK("CAST(ts AS TIMESTAMP(6))", "2020-07-30T12:34:56.789000", "TIMESTAMP(6)");
    CHECK("CAST(born AS TIMESTAMP(3))", "2020-07-30T00:00:00.000", "TIMESTAMP(3)");
    CHECK("CAST(ts AS TIMESTAMP_LTZ(3))", "2020-07-30T12:34:56.789Z", "TIMESTAMP_LTZ(3)");
    CHECK("CAST(ltz AS DATE)", "2020-07-30", "DATE");
    CHECK("CAST(TIMESTAMP '1969-12-31 23:59:59.5' AS DATE)", "1969-12-31", "DATE NOT NULL");
    CHECK("CAST(TIMESTAMP '1969-12-31 23:59:59.5' AS TIMESTAMP(0))", "1969-12-31T23:59:59",
          "TIMESTAMP(0) NOT NULL");
    CHECK("CAST(TIME '10:11:12.987' AS TIME(1))", "10:11:12.9", "TIME(1) NOT NULL");
}

/* ---- user functions ------------------------------------------------------------------------- */

Test(expr, user_functions)
{
    CHECK("twice(qty)", "6", "BIGINT");
    CHECK("twice(id)", "14", "BIGINT");
    CHECK("TWICE(t)", "200", "BIGINT");
    CHECK("twice(nul)", "null", "BIGINT");
    CHECK("twice(twice(2))", "8", "BIGINT");
    CHECK("greet(name)", "Hello, Alice!", "STRING");
    CHECK("greet(nstr)", "null", "STRING");
    CHECK("scale(2.5, TRUE)", "25.0", "DOUBLE");
    CHECK("scale(price, FALSE)", "19.99", "DOUBLE");
    CHECK("scale(fl, nb)", "1.5", "DOUBLE");
    CHECK("scale(2, flag)", "20.0", "DOUBLE");
    CHECK_EVAL_ERR("fails(1)", "function \"fails\" failed: boom");
    CHECK_EVAL_ERR("narrow()", "function \"narrow\" returned 3000000000, out of range for INT");
    CHECK_EVAL_ERR("wrongkind()", "function \"wrongkind\" returned DOUBLE, declared BIGINT");

    cdc_error_t *err = NULL;
    cdc_expr_t *e = compile("twice(1)", &err);
    cr_assert_not_null(e);
    cr_expect(!cdc_expr_is_constant(e), "a user function is never folded");
    cdc_expr_destroy(e);
}

Test(expr, builtins_shadow_user_functions)
{
    g_lookups = 0;
    CHECK("upper('a')", "A", "STRING NOT NULL");
    cr_expect_eq(g_lookups, 0);
}

/* ---- compile errors ------------------------------------------------------------------------- */

Test(expr, error_column_not_found_with_caret)
{
    cdc_error_t *err = NULL;
    cdc_expr_t *e = compile("nme", &err);
    cr_assert_null(e);
    cr_expect_str_eq(err->message, "test.sql:1:8: column \"nme\" not found");
    cr_expect_str_eq(err->detail, "SELECT nme FROM t\n       ^");
    cr_expect_str_eq(err->hint, "did you mean \"name\"?");
    cdc_error_destroy(err);
}

Test(expr, error_multiline_script)
{
    const char *sql = "INSERT INTO out\nSELECT id,\n       UPPER(nme) AS u\nFROM t";
    cdc_sql_script_t *script = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_sql_parse(sql, strlen(sql), "demo.sql", &script, &err), 0);
    const cdc_sql_expr_t *ast = script->stmts[0]->insert.query->items[1].expr;
    cdc_expr_env_t env = env_for(sql, "demo.sql");
    cdc_expr_t *e = NULL;
    cr_assert_eq(cdc_expr_compile(ast, &env, &e, &err), -1);
    cr_expect_null(e);
    cr_expect_str_eq(err->message, "demo.sql:3:14: column \"nme\" not found");
    cr_expect_str_eq(err->detail, "       UPPER(nme) AS u\n             ^");
    cr_expect_str_eq(err->hint, "did you mean \"name\"?");
    cdc_error_destroy(err);
    cdc_sql_script_destroy(script);
}

Test(expr, error_messages)
{
    CHECK_COMPILE_ERR("x.name", "test.sql:1:8: column \"x\" not found", NULL);
    CHECK_COMPILE_ERR("orders.nme", "test.sql:1:8: column \"nme\" not found",
                      "did you mean \"name\"?");
    CHECK_COMPILE_ERR("Name", "test.sql:1:8: column \"Name\" not found", "did you mean \"name\"?");
    CHECK_COMPILE_ERR("addr.cty", "test.sql:1:8: field \"cty\" not found in \"addr\"",
                      "did you mean \"city\"?");
    CHECK_COMPILE_ERR("t.addr.cty", "test.sql:1:8: field \"cty\" not found in \"addr\"",
                      "did you mean \"city\"?");
    CHECK_COMPILE_ERR("name.x", "test.sql:1:8: cannot access field \"x\" of \"name\" (STRING)",
                      NULL);
    CHECK_COMPILE_ERR("UPPPER(name)", "test.sql:1:8: unknown function \"UPPPER\"",
                      "did you mean \"UPPER\"?");
    CHECK_COMPILE_ERR("substrin(name, 1)", "test.sql:1:8: unknown function \"substrin\"",
                      "did you mean \"SUBSTRING\"?");
    CHECK_COMPILE_ERR("frobnicate(name)", "test.sql:1:8: unknown function \"frobnicate\"", NULL);
    CHECK_COMPILE_ERR("'a' + 1", "test.sql:1:12: cannot apply \"+\" to STRING and INT", NULL);
    CHECK_COMPILE_ERR("name * 2", "test.sql:1:13: cannot apply \"*\" to STRING and INT", NULL);
    CHECK_COMPILE_ERR("born - 1", "test.sql:1:13: cannot apply \"-\" to DATE and INT", NULL);
    CHECK_COMPILE_ERR("-name", "test.sql:1:8: cannot apply \"-\" to STRING", NULL);
    CHECK_COMPILE_ERR("+name", "test.sql:1:8: cannot apply \"+\" to STRING", NULL);
    CHECK_COMPILE_ERR("NULL + 'a'", "test.sql:1:13: cannot apply \"+\" to NULL and STRING", NULL);
    CHECK_COMPILE_ERR("-NULL", "test.sql:1:9: cannot infer the type of NULL",
                      "give it a type with CAST(NULL AS type)");
    CHECK_COMPILE_ERR("NULL + NULL", "test.sql:1:13: cannot apply \"+\" to NULL and NULL", NULL);
    CHECK_COMPILE_ERR("id = 'a'", "test.sql:1:11: cannot apply \"=\" to INT and STRING", NULL);
    CHECK_COMPILE_ERR("addr = addr",
                      "test.sql:1:13: cannot apply \"=\" to ROW<city STRING, zip INT> and ROW<city "
                      "STRING, zip INT>",
                      NULL);
    CHECK_COMPILE_ERR("id AND TRUE", "test.sql:1:11: cannot apply \"AND\" to INT and BOOLEAN",
                      NULL);
    CHECK_COMPILE_ERR("flag OR 'x'", "test.sql:1:13: cannot apply \"OR\" to BOOLEAN and STRING",
                      NULL);
    CHECK_COMPILE_ERR("NOT id", "test.sql:1:8: cannot apply \"NOT\" to INT", NULL);
    CHECK_COMPILE_ERR("id || 'a'", "test.sql:1:11: cannot apply \"||\" to INT and STRING", NULL);
    CHECK_COMPILE_ERR("id IN (1, 'a')", "test.sql:1:11: cannot apply \"IN\" to INT and STRING",
                      NULL);
    CHECK_COMPILE_ERR("id NOT IN ('a')", "test.sql:1:11: cannot apply \"NOT IN\" to INT and STRING",
                      NULL);
    CHECK_COMPILE_ERR("id BETWEEN 'a' AND 2",
                      "test.sql:1:11: cannot apply \"BETWEEN\" to INT and STRING", NULL);
    CHECK_COMPILE_ERR("id LIKE 'a'", "test.sql:1:11: cannot apply \"LIKE\" to INT and STRING",
                      NULL);
    CHECK_COMPILE_ERR("name LIKE 1", "test.sql:1:13: cannot apply \"LIKE\" to STRING and INT",
                      NULL);
    CHECK_COMPILE_ERR("name LIKE 'a' ESCAPE 'ab'",
                      "test.sql:1:29: the ESCAPE of LIKE must be a single character, found 'ab'",
                      NULL);
    CHECK_COMPILE_ERR("CASE WHEN id THEN 1 END",
                      "test.sql:1:18: WHEN needs a BOOLEAN condition, found INT", NULL);
    CHECK_COMPILE_ERR("CASE WHEN TRUE THEN 1 ELSE 'a' END",
                      "test.sql:1:8: CASE has no common type for INT and STRING", NULL);
    CHECK_COMPILE_ERR("CASE id WHEN 'a' THEN 1 END",
                      "test.sql:1:8: cannot apply \"CASE\" to INT and STRING", NULL);
    CHECK_COMPILE_ERR("CASE WHEN TRUE THEN NULL END", "test.sql:1:8: cannot infer the type of NULL",
                      "give it a type with CAST(NULL AS type)");
    CHECK_COMPILE_ERR("NULL", "test.sql:1:8: cannot infer the type of NULL",
                      "give it a type with CAST(NULL AS type)");
    CHECK_COMPILE_ERR("COALESCE(NULL, NULL)", "test.sql:1:8: cannot infer the type of NULL",
                      "give it a type with CAST(NULL AS type)");
    CHECK_COMPILE_ERR("COALESCE(id, 'a')",
                      "test.sql:1:8: COALESCE has no common type for INT and STRING", NULL);
    CHECK_COMPILE_ERR("IF(id, 1, 2)",
                      "test.sql:1:11: the condition of \"IF\" must be BOOLEAN, found INT",
                      "expected IF(BOOLEAN, value, value)");
    CHECK_COMPILE_ERR("NULLIF(tags, tags)",
                      "test.sql:1:8: cannot apply \"NULLIF\" to ARRAY<STRING> and ARRAY<STRING>",
                      NULL);
}

Test(expr, error_function_arguments)
{
    CHECK_COMPILE_ERR("SUBSTRING(name)",
                      "test.sql:1:8: function \"SUBSTRING\" takes 2 or 3 arguments, found 1", NULL);
    CHECK_COMPILE_ERR("substr(name, 1, 2, 3)",
                      "test.sql:1:8: function \"SUBSTR\" takes 2 or 3 arguments, found 4", NULL);
    CHECK_COMPILE_ERR("UPPER(name, name)",
                      "test.sql:1:8: function \"UPPER\" takes 1 argument, found 2", NULL);
    CHECK_COMPILE_ERR("MOD(1)", "test.sql:1:8: function \"MOD\" takes 2 arguments, found 1", NULL);
    CHECK_COMPILE_ERR("CONCAT()",
                      "test.sql:1:8: function \"CONCAT\" takes at least 1 argument, found 0", NULL);
    CHECK_COMPILE_ERR("COALESCE()",
                      "test.sql:1:8: function \"COALESCE\" takes at least 1 argument, found 0",
                      NULL);
    CHECK_COMPILE_ERR("SUBSTRING(name, 'a')",
                      "test.sql:1:8: cannot apply \"SUBSTRING\" to STRING and STRING",
                      "expected SUBSTRING(STRING, INT [, INT])");
    CHECK_COMPILE_ERR("SUBSTRING(id FROM 1)",
                      "test.sql:1:8: cannot apply \"SUBSTRING\" to INT and INT",
                      "expected SUBSTRING(STRING, INT [, INT])");
    CHECK_COMPILE_ERR("UPPER(id)", "test.sql:1:8: cannot apply \"UPPER\" to INT",
                      "expected UPPER(STRING)");
    CHECK_COMPILE_ERR("CONCAT(name, id, 'x')",
                      "test.sql:1:8: cannot apply \"CONCAT\" to STRING, INT and STRING",
                      "expected CONCAT(STRING, ...)");
    CHECK_COMPILE_ERR("TRIM(id)", "test.sql:1:8: cannot apply \"TRIM\" to INT",
                      "expected TRIM([BOTH | LEADING | TRAILING] [STRING FROM] STRING)");
    CHECK_COMPILE_ERR("TRIM(1 FROM name)", "test.sql:1:8: cannot apply \"TRIM\" to INT and STRING",
                      "expected TRIM([BOTH | LEADING | TRAILING] [STRING FROM] STRING)");
    CHECK_COMPILE_ERR("CHAR_LENGTH(id)", "test.sql:1:8: cannot apply \"CHAR_LENGTH\" to INT",
                      "expected CHAR_LENGTH(STRING)");
    CHECK_COMPILE_ERR("ABS('a')", "test.sql:1:8: cannot apply \"ABS\" to STRING",
                      "expected ABS(NUMERIC)");
    CHECK_COMPILE_ERR("MOD(name, 2)", "test.sql:1:8: cannot apply \"MOD\" to STRING and INT", NULL);
    CHECK_COMPILE_ERR("ROUND(name)", "test.sql:1:8: cannot apply \"ROUND\" to STRING",
                      "expected ROUND(NUMERIC [, INT])");
    CHECK_COMPILE_ERR("ROUND(price, id)",
                      "test.sql:1:21: the second argument of \"ROUND\" must be a constant integer "
                      "between -38 and 38",
                      NULL);
    CHECK_COMPILE_ERR("FLOOR(name)", "test.sql:1:8: cannot apply \"FLOOR\" to STRING",
                      "expected FLOOR(NUMERIC)");
    CHECK_COMPILE_ERR("FLOOR()", "test.sql:1:8: function \"FLOOR\" takes 1 argument, found 0",
                      NULL);
    CHECK_COMPILE_ERR("COUNT(id)",
                      "test.sql:1:8: aggregate function \"COUNT\" is not supported here", NULL);
    CHECK_COMPILE_ERR("CURRENT_TIMESTAMP + 1",
                      "test.sql:1:26: cannot apply \"+\" to TIMESTAMP_LTZ(3) and INT", NULL);
    CHECK_COMPILE_ERR("twice('a')", "test.sql:1:8: cannot apply \"twice\" to STRING",
                      "expected twice(BIGINT)");
    CHECK_COMPILE_ERR("twice(1.5e0)", "test.sql:1:8: cannot apply \"twice\" to DOUBLE",
                      "expected twice(BIGINT)");
    CHECK_COMPILE_ERR("twice(1, 2)", "test.sql:1:8: function \"twice\" takes 1 argument, found 2",
                      NULL);
    CHECK_COMPILE_ERR("oldabi(1)",
                      "test.sql:1:8: function \"oldabi\" was built for ABI version 0, expected 1",
                      "rebuild it against this cdc.h");
    CHECK_COMPILE_ERR("nofn(1)", "test.sql:1:8: function \"nofn\" has an invalid definition", NULL);
    CHECK_COMPILE_ERR("UPPER(DISTINCT name)",
                      "test.sql:1:8: DISTINCT is only allowed in aggregate functions", NULL);
    CHECK_COMPILE_ERR("badtype(1)",
                      "test.sql:1:8: function \"badtype\" declares an unsupported type \"DATE\"",
                      "use BOOLEAN, BIGINT, DOUBLE or STRING");
}

Test(expr, error_other_forms)
{
    CHECK_COMPILE_ERR("*", "test.sql:1:8: \"*\" is not allowed in an expression", NULL);
    CHECK_COMPILE_ERR("INTERVAL '5' SECOND",
                      "test.sql:1:8: an INTERVAL is only supported in datetime +/- INTERVAL",
                      "add it to or subtract it from a DATE, TIME or TIMESTAMP");
    CHECK_COMPILE_ERR("DATE '2020-01-01' + INTERVAL '1:2' DAY",
                      "test.sql:1:28: invalid INTERVAL '1:2' DAY",
                      "e.g. INTERVAL '5' SECOND, INTERVAL '1-2' YEAR TO MONTH, "
                      "INTERVAL '1 02:03:04.5' DAY TO SECOND");
    CHECK_COMPILE_ERR("DATE '2020-13-01'", "test.sql:1:8: invalid DATE literal '2020-13-01'",
                      "write dates as 'yyyy-mm-dd'");
    CHECK_COMPILE_ERR("TIME '25:00'", "test.sql:1:8: invalid TIME literal '25:00'",
                      "write times as 'hh:mm:ss[.fffffffff]'");
    CHECK_COMPILE_ERR("TIMESTAMP 'x'", "test.sql:1:8: invalid TIMESTAMP literal 'x'",
                      "write timestamps as 'yyyy-mm-dd hh:mm:ss[.fffffffff]'");
    CHECK_COMPILE_ERR("123456789012345678901234567890123456789",
                      "test.sql:1:8: numeric literal 123456789012345678901234567890123456789 is "
                      "out of range",
                      NULL);
    CHECK_COMPILE_ERR("1234567890123456789012345678901234567890.5",
                      "test.sql:1:8: numeric literal 1234567890123456789012345678901234567890.5 "
                      "has more than 38 digits",
                      NULL);
    CHECK_COMPILE_ERR("id[1]", "test.sql:1:10: cannot apply \"[]\" to INT and INT", NULL);
    CHECK_COMPILE_ERR("tags['a']", "test.sql:1:12: cannot apply \"[]\" to ARRAY<STRING> and STRING",
                      NULL);
    CHECK_COMPILE_ERR("attrs[1]", "test.sql:1:13: cannot apply \"[]\" to MAP<STRING, INT> and INT",
                      NULL);
    CHECK_COMPILE_ERR("CAST(tags AS STRING)", "test.sql:1:8: cannot cast ARRAY<STRING> to STRING",
                      NULL);
    CHECK_COMPILE_ERR("CAST(born AS INT)", "test.sql:1:8: cannot cast DATE to INT", NULL);
    CHECK_COMPILE_ERR("CAST(flag AS DECIMAL(3, 1))",
                      "test.sql:1:8: cannot cast BOOLEAN to DECIMAL(3, 1)", NULL);
}

Test(expr, error_invalid_cast_type)
{
    cdc_error_t *err = NULL;
    cdc_expr_t *e = compile("CAST(id AS FOO)", &err);
    cr_assert_null(e);
    cr_expect_str_eq(err->message,
                     "test.sql:1:19: invalid type \"FOO\": expected a data type, found \"FOO\"");
    cr_expect_str_eq(err->detail, "SELECT CAST(id AS FOO) FROM t\n                  ^");
    cdc_error_destroy(err);
    e = compile("CAST(id AS DECIMAL(40, 2))", &err);
    cr_assert_null(e);
    cr_expect_str_eq(err->message, "test.sql:1:27: invalid type \"DECIMAL(40, 2)\": decimal "
                                   "precision must be between 1 and 38, found 40");
    cdc_error_destroy(err);
}

Test(expr, error_without_text_or_filename)
{
    const char *sql = "SELECT nme FROM t";
    cdc_sql_script_t *script = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_sql_parse(sql, strlen(sql), NULL, &script, &err), 0);
    cdc_expr_env_t env = {.row_type = g_type};
    cdc_expr_t *e = NULL;
    cr_assert_eq(cdc_expr_compile(script->stmts[0]->query->items[0].expr, &env, &e, &err), -1);
    cr_expect_str_eq(err->message, "<input>:1:8: column \"nme\" not found");
    cr_expect_null(err->detail);
    cdc_error_destroy(err);
    cdc_sql_script_destroy(script);
}

/* ---- WHERE, predicates, conjuncts and the helpers ------------------------------------------- */

static const cdc_sql_expr_t *parse_where(const char *sql, cdc_sql_script_t **script)
{
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_sql_parse(sql, strlen(sql), "test.sql", script, &err), 0);
    return (*script)->stmts[0]->query->where;
}

Test(expr, where_needs_boolean)
{
    const char *sql = "SELECT id FROM t\nWHERE\n  qty";
    cdc_sql_script_t *script;
    const cdc_sql_expr_t *where = parse_where(sql, &script);
    cdc_expr_env_t env = env_for(sql, "test.sql");
    cdc_expr_t *e = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_expr_compile(where, &env, &e, &err), 0);
    cr_assert_eq(cdc_expr_require_boolean(e, where, &env, "WHERE", &err), -1);
    cr_expect_str_eq(err->message, "test.sql:3:3: WHERE needs a BOOLEAN expression, found BIGINT");
    cr_expect_str_eq(err->detail, "  qty\n  ^");
    cdc_error_destroy(err);
    cdc_expr_destroy(e);
    cdc_sql_script_destroy(script);

    sql = "SELECT id FROM t WHERE id * 2";
    where = parse_where(sql, &script);
    env = env_for(sql, "test.sql");
    err = NULL;
    cr_assert_eq(cdc_expr_compile(where, &env, &e, &err), 0);
    cr_assert_eq(cdc_expr_require_boolean(e, where, &env, "WHERE", &err), -1);
    cr_expect_str_eq(err->message, "test.sql:1:27: WHERE needs a BOOLEAN expression, found INT");
    cdc_error_destroy(err);
    cdc_expr_destroy(e);
    cdc_sql_script_destroy(script);

    sql = "SELECT id FROM t WHERE nb";
    where = parse_where(sql, &script);
    env = env_for(sql, "test.sql");
    cr_assert_eq(cdc_expr_compile(where, &env, &e, &err), 0);
    cr_expect_eq(cdc_expr_require_boolean(e, where, &env, "WHERE", &err), 0);
    cdc_expr_destroy(e);
    cdc_sql_script_destroy(script);
}

static bool predicate(const char *where_text, int *rc, char *errbuf, size_t errlen)
{
    char *sql = cdc_strdup_printf("SELECT id FROM t WHERE %s", where_text);
    cdc_sql_script_t *script;
    const cdc_sql_expr_t *where = parse_where(sql, &script);
    cdc_expr_env_t env = env_for(sql, "test.sql");
    cdc_expr_t *e = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_expr_compile(where, &env, &e, &err), 0, "%s", err ? err->message : "");
    cr_assert_eq(cdc_expr_require_boolean(e, where, &env, "WHERE", &err), 0);
    cdc_sql_script_destroy(script);
    free(sql);
    bool keep = true;
    *rc = cdc_expr_eval_predicate(e, g_row, &g_batch.arena, &keep, errbuf, errlen);
    cdc_expr_destroy(e);
    return keep;
}

Test(expr, eval_predicate)
{
    char errbuf[128];
    int rc;
    cr_expect(predicate("id = 7", &rc, errbuf, sizeof(errbuf)));
    cr_expect_eq(rc, 0);
    cr_expect(!predicate("id = 8", &rc, errbuf, sizeof(errbuf)));
    cr_expect_eq(rc, 0);
    cr_expect(!predicate("nul = 1", &rc, errbuf, sizeof(errbuf)), "NULL drops the row");
    cr_expect_eq(rc, 0);
    cr_expect(predicate("nul IS NULL AND name LIKE 'A%'", &rc, errbuf, sizeof(errbuf)));
    cr_expect(!predicate("id / 0 = 1", &rc, errbuf, sizeof(errbuf)));
    cr_expect_eq(rc, -1);
    cr_expect_str_eq(errbuf, "division by zero");

    /* a non-BOOLEAN expression is refused at run time too */
    cdc_error_t *err = NULL;
    cdc_expr_t *e = compile("id", &err);
    bool keep = true;
    cr_expect_eq(cdc_expr_eval_predicate(e, g_row, &g_batch.arena, &keep, errbuf, sizeof(errbuf)),
                 -1);
    cr_expect(!keep);
    cr_expect_str_eq(errbuf, "predicate is not BOOLEAN");
    cdc_expr_destroy(e);
}

Test(expr, conjuncts)
{
    cdc_sql_script_t *script;
    const cdc_sql_expr_t *where =
        parse_where("SELECT id FROM t WHERE a = 1 AND (b = 2 AND c = 3) AND d", &script);
    const cdc_sql_expr_t *parts[8];
    cr_assert_eq(cdc_expr_conjuncts(where, parts, 8), 4);
    const char *want[] = {"a = 1", "b = 2", "c = 3", "d"};
    for (int i = 0; i < 4; i++) {
        char *s = cdc_sql_expr_to_string(parts[i]);
        cr_expect_str_eq(s, want[i]);
        free(s);
    }
    const cdc_sql_expr_t *two[2] = {NULL, NULL};
    cr_expect_eq(cdc_expr_conjuncts(where, two, 2), 4, "counts past max");
    cr_expect_eq(two[0], parts[0]);
    cr_expect_eq(two[1], parts[1]);
    cr_expect_eq(cdc_expr_conjuncts(where, NULL, 0), 4);
    cdc_sql_script_destroy(script);

    where = parse_where("SELECT id FROM t WHERE a = 1 AND b OR c", &script);
    cr_expect_eq(cdc_expr_conjuncts(where, parts, 8), 1, "an OR at the top is one conjunct");
    cr_expect_eq(parts[0], where);
    cdc_sql_script_destroy(script);
    cr_expect_eq(cdc_expr_conjuncts(NULL, parts, 8), 0);
}

Test(expr, column_index_and_constants)
{
    static const struct {
        const char *expr;
        int index;
        bool constant;
    } cases[] = {
        {"id", 0, false},
        {"qty", 3, false},
        {"t.price", 2, false},
        {"addr.city", -1, false},
        {"id + 1", -1, false},
        {"1 + 2", -1, true},
        {"UPPER('a')", -1, true},
        {"CAST('x' AS INT)", -1, true},
        {"CAST(NULL AS INT)", -1, true},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cdc_error_t *err = NULL;
        cdc_expr_t *e = compile(cases[i].expr, &err);
        cr_assert_not_null(e, "%s", cases[i].expr);
        cr_expect_eq(cdc_expr_column_index(e), cases[i].index, "%s", cases[i].expr);
        cr_expect_eq(cdc_expr_is_constant(e), cases[i].constant, "%s", cases[i].expr);
        cdc_expr_destroy(e);
    }
    /* a constant that fails keeps failing per row, with its message */
    CHECK_EVAL_ERR("CAST('x' AS INT)", "cannot cast 'x' to INT");
}

Test(expr, unchanged_values)
{
    g_row->values[F_NAME].flags = CDC_V_UNCHANGED;
    CHECK("name", "<unchanged>", "STRING");
    CHECK_EVAL_ERR("UPPER(name)",
                   "column \"name\" is not carried by this change (unchanged value)");
    CHECK_EVAL_ERR("name IS NULL",
                   "column \"name\" is not carried by this change (unchanged value)");
    g_row->values[F_FLAG].flags = CDC_V_UNCHANGED;
    char errbuf[128];
    int rc;
    cr_expect(!predicate("flag", &rc, errbuf, sizeof(errbuf)));
    cr_expect_eq(rc, -1);
    cr_expect_str_eq(errbuf, "column \"flag\" is not carried by this change (unchanged value)");
}

Test(expr, strings_live_in_the_arena)
{
    cdc_error_t *err = NULL;
    cdc_expr_t *e = compile("UPPER(name) || '!'", &err);
    cr_assert_not_null(e);
    cdc_arena_t arena;
    cdc_arena_init(&arena);
    char errbuf[64];
    cdc_value_t v;
    for (int i = 0; i < 1000; i++) {
        cr_assert_eq(cdc_expr_eval(e, g_row, &arena, &v, errbuf, sizeof(errbuf)), 0);
        cdc_arena_reset(&arena);
    }
    cr_assert_eq(cdc_expr_eval(e, g_row, &arena, &v, errbuf, sizeof(errbuf)), 0);
    cr_expect_eq(v.v.s.len, 6);
    cr_expect(memcmp(v.v.s.ptr, "ALICE!", 6) == 0);
    cr_expect(arena.total > 0 && arena.total < 64, "only the results were allocated");
    cdc_arena_free(&arena);
    cdc_expr_destroy(e);
}

Test(expr, compile_against_no_row)
{
    const char *sql = "SELECT 1 + 2 FROM t";
    cdc_sql_script_t *script = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_sql_parse(sql, strlen(sql), NULL, &script, &err), 0);
    cdc_expr_env_t env = {0};
    cdc_expr_t *e = NULL;
    cr_assert_eq(cdc_expr_compile(script->stmts[0]->query->items[0].expr, &env, &e, &err), 0);
    cdc_sql_script_destroy(script);
    cdc_value_t v;
    char errbuf[64];
    cr_assert_eq(cdc_expr_eval(e, NULL, NULL, &v, errbuf, sizeof(errbuf)), 0);
    cr_expect_eq(v.v.i, 3);
    cdc_expr_destroy(e);
    cdc_expr_destroy(NULL);
}
