/*
 * tests/data/udf/test_udf.c — a tiny shared object of scalar functions for the
 * catalog tests (CREATE FUNCTION ... AS 'libtest_udf.so:symbol'), with some
 * deliberately broken definitions. Build: cc -shared -fPIC -I src -o libtest_udf.so test_udf.c
 */
#include <string.h>

#include "cdc.h"

/* twice(BIGINT) -> BIGINT */
static int twice_fn(cdc_udf_ctx_t *ctx, const cdc_udf_value_t *args, int nargs,
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
static const char *const twice_args[] = {"BIGINT"};
const cdc_udf_def_t udf_twice = {CDC_UDF_ABI_VERSION, "BIGINT", 1, twice_args, twice_fn};

/* greet(STRING) -> STRING: "hello, " || arg */
static int greet_fn(cdc_udf_ctx_t *ctx, const cdc_udf_value_t *args, int nargs,
                    cdc_udf_value_t *result, char *errbuf, size_t errlen)
{
    (void)nargs;
    if (args[0].kind != CDC_UDF_STRING) {
        strncpy(errbuf, "greet needs a string", errlen - 1);
        errbuf[errlen - 1] = '\0';
        return 1;
    }
    size_t n = 7 + args[0].v.s.len;
    char *p = ctx->alloc(ctx, n);
    memcpy(p, "hello, ", 7);
    memcpy(p + 7, args[0].v.s.ptr, args[0].v.s.len);
    result->kind = CDC_UDF_STRING;
    result->v.s.ptr = p;
    result->v.s.len = n;
    return 0;
}
static const char *const greet_args[] = {"STRING"};
const cdc_udf_def_t udf_greet = {CDC_UDF_ABI_VERSION, "STRING", 1, greet_args, greet_fn};

/* broken definitions */
const cdc_udf_def_t udf_bad_abi = {CDC_UDF_ABI_VERSION + 98, "BIGINT", 1, twice_args, twice_fn};
static const char *const decimal_args[] = {"DECIMAL(10, 2)"};
const cdc_udf_def_t udf_bad_arg_type = {CDC_UDF_ABI_VERSION, "BIGINT", 1, decimal_args, twice_fn};
const cdc_udf_def_t udf_bad_type_text = {CDC_UDF_ABI_VERSION, "NOT A TYPE", 1, twice_args,
                                         twice_fn};
const cdc_udf_def_t udf_no_fn = {CDC_UDF_ABI_VERSION, "BIGINT", 1, twice_args, NULL};
