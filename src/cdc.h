/*
 * cdc.h — the public header for code outside cdcflow: today, the ABI of
 * scalar functions loaded from shared objects by
 *   CREATE [TEMPORARY] FUNCTION name AS 'path/to/lib.so:symbol' [LANGUAGE C]
 *
 * The shared object exports `symbol` as a `const cdc_udf_def_t`. Types are
 * declared as SQL type text and limited to BOOLEAN, BIGINT (also INT, SMALLINT,
 * TINYINT: widened to int64), DOUBLE (also FLOAT) and STRING. A NULL argument
 * arrives as CDC_UDF_NULL; the function decides what to return.
 *
 * Example (build with: cc -shared -fPIC -o libmy.so my.c):
 *
 *   #include "cdc.h"
 *   static int twice(cdc_udf_ctx_t *ctx, const cdc_udf_value_t *args, int nargs,
 *                    cdc_udf_value_t *result, char *errbuf, size_t errlen)
 *   {
 *       (void)ctx; (void)nargs; (void)errbuf; (void)errlen;
 *       if (args[0].kind == CDC_UDF_NULL) { result->kind = CDC_UDF_NULL; return 0; }
 *       result->kind = CDC_UDF_INT64;
 *       result->v.i = args[0].v.i * 2;
 *       return 0;
 *   }
 *   static const char *const twice_args[] = {"BIGINT"};
 *   const cdc_udf_def_t my_twice = {CDC_UDF_ABI_VERSION, "BIGINT", 1, twice_args, twice};
 */
#ifndef CDC_H
#define CDC_H

#include <stddef.h>
#include <stdint.h>

#define CDC_UDF_ABI_VERSION 1

typedef enum cdc_udf_kind {
    CDC_UDF_NULL = 0,
    CDC_UDF_BOOL,
    CDC_UDF_INT64,
    CDC_UDF_DOUBLE,
    CDC_UDF_STRING
} cdc_udf_kind_t;

typedef struct cdc_udf_value_s {
    cdc_udf_kind_t kind;
    union {
        int b;
        int64_t i;
        double d;
        struct {
            const char *ptr; /* not NUL-terminated */
            size_t len;
        } s;
    } v;
} cdc_udf_value_t;

/** Per-call context: allocate a result string with ctx->alloc (freed by cdcflow). */
typedef struct cdc_udf_ctx_s cdc_udf_ctx_t;
struct cdc_udf_ctx_s {
    void *(*alloc)(cdc_udf_ctx_t *ctx, size_t n);
    void *opaque; /* cdcflow's */
};

/**
 * Computes result from args (nargs as declared). Returns 0, or non-zero with
 * a NUL-terminated reason in errbuf (at most errlen bytes): the row then fails
 * under the job's per-record error policy.
 */
typedef int (*cdc_udf_fn)(cdc_udf_ctx_t *ctx, const cdc_udf_value_t *args, int nargs,
                          cdc_udf_value_t *result, char *errbuf, size_t errlen);

typedef struct cdc_udf_def_s {
    int abi_version;              /* CDC_UDF_ABI_VERSION */
    const char *return_type;      /* SQL type text */
    int nargs;
    const char *const *arg_types; /* nargs SQL type texts */
    cdc_udf_fn fn;
} cdc_udf_def_t;

#endif
