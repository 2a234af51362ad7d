/*
 * tests/formats/csv.c — the csv format through its factory: quoting, escapes,
 * NULL and empty values, arrays, every option, errors, and encode/decode
 * round trips.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_plugin.h"

extern const cdc_format_factory_t cdc_format_csv;

typedef struct fx_s {
    cdc_type_t *type;
    cdc_config_t *cfg;
    cdc_deser_t *deser;
    cdc_ser_t *ser;
    cdc_batch_t batch;
    cdc_buf_t text;
    cdc_buf_t out;
} fx_t;

static fx_t fx;

/* Opens the format for type with options key, value, ..., NULL. */
static void open_fmt(const char *type, ...)
{
    cdc_error_t *err = NULL;
    memset(&fx, 0, sizeof(fx));
    fx.type = cdc_type_parse(type, &err);
    cr_assert_not_null(fx.type);
    cdc_kv_t kv = {0};
    va_list ap;
    va_start(ap, type);
    for (const char *k; (k = va_arg(ap, const char *));)
        cdc_kv_set(&kv, k, va_arg(ap, const char *));
    va_end(ap);
    fx.cfg = cdc_config_new(cdc_format_csv.options, "format \"csv\"", &kv, &err);
    cdc_kv_free(&kv);
    cr_assert_not_null(fx.cfg, "options: %s", err ? err->detail : "");
    cdc_format_ctx_t ctx = {.cfg = fx.cfg, .row_type = fx.type, .table = "t"};
    cr_assert_eq(cdc_format_csv.deser_new(&ctx, &fx.deser, &err), 0);
    cr_assert_eq(cdc_format_csv.ser_new(&ctx, &fx.ser, &err), 0);
    cdc_batch_init(&fx.batch);
}

static void close_fmt(void)
{
    fx.deser->ops->destroy(fx.deser);
    fx.ser->ops->destroy(fx.ser);
    cdc_config_destroy(fx.cfg);
    cdc_type_destroy(fx.type);
    cdc_batch_free(&fx.batch);
    cdc_buf_free(&fx.text);
    cdc_buf_free(&fx.out);
}

/* Decodes one line; returns the printed rows, "skipped", or "error: REASON". */
static const char *decode(const char *line)
{
    cdc_batch_reset(&fx.batch);
    cdc_buf_clear(&fx.text);
    int rc = fx.deser->ops->decode(fx.deser, line, strlen(line), &fx.batch);
    if (rc == CDC_DECODE_ERROR) {
        cdc_buf_printf(&fx.text, "error: %s", cdc_buf_cstr(&fx.deser->errmsg));
        return cdc_buf_cstr(&fx.text);
    }
    if (rc == CDC_DECODE_SKIPPED)
        return "skipped";
    for (uint32_t i = 0; i < fx.batch.n; i++) {
        if (i)
            cdc_buf_putc(&fx.text, '\n');
        cdc_row_print(&fx.text, &fx.batch.rows[i], fx.type);
    }
    return cdc_buf_cstr(&fx.text);
}

/* Encodes the rows of the last decode, one line each. */
static const char *encode(void)
{
    cdc_buf_clear(&fx.out);
    for (uint32_t i = 0; i < fx.batch.n; i++) {
        cr_assert_eq(fx.ser->ops->encode(fx.ser, &fx.batch.rows[i], &fx.out), 0, "%s",
                     cdc_buf_cstr(&fx.ser->errmsg));
    }
    return cdc_buf_cstr(&fx.out);
}

Test(csv, scalars_by_position)
{
    open_fmt("ROW<id INT, name STRING, price DECIMAL(5, 2), ok BOOLEAN, d DATE, "
             "ts TIMESTAMP(3), x DOUBLE>",
             NULL);
    cr_assert_str_eq(decode("101,scooter,3.14,true,2020-07-30,2020-07-30 10:08:22.123,1.5"),
                     "+I[101, scooter, 3.14, true, 2020-07-30, 2020-07-30T10:08:22.123, 1.5]");
    cr_assert_str_eq(encode(), "101,scooter,3.14,true,2020-07-30,2020-07-30 10:08:22.123,1.5");
    close_fmt();
}

Test(csv, quoting_and_nulls)
{
    open_fmt("ROW<a STRING, b STRING, c INT>", NULL);
    cr_assert_str_eq(decode("\"x,y\",\"say \"\"hi\"\"\",7"), "+I[x,y, say \"hi\", 7]");
    cr_assert_str_eq(encode(), "\"x,y\",\"say \"\"hi\"\"\",7");
    cr_assert_str_eq(decode(",\"\","), "+I[null, , null]");
    cr_assert_str_eq(encode(), ",\"\",");
    cr_assert_str_eq(decode("only"), "+I[only, null, null]");
    cr_assert_str_eq(decode("a,b,1,extra"), "error: expected 3 fields, found more");
    cr_assert_str_eq(decode("\"open,1,2"), "error: field 1: unterminated quoted value");
    cr_assert_str_eq(decode("a,b,x"), "error: field \"c\": expected INT, found string \"x\"");
    cr_assert_str_eq(decode(""), "");
    close_fmt();
}

Test(csv, options)
{
    open_fmt("ROW<a STRING, b INT, c ARRAY<INT>>", "field-delimiter", "|", "quote-character", "'",
             "null-literal", "N/A", "array-element-delimiter", ":", "allow-comments", "true", NULL);
    cr_assert_str_eq(decode("'a|b'|N/A|1:2:3"), "+I[a|b, null, [1, 2, 3]]");
    cr_assert_str_eq(encode(), "'a|b'|N/A|1:2:3");
    cr_assert_str_eq(decode("# a comment"), "");
    cr_assert_str_eq(decode("N/A|1|''"), "+I[null, 1, []]");
    close_fmt();

    open_fmt("ROW<a STRING, b STRING>", "field-delimiter", "\\t", "disable-quote-character", "true",
             "escape-character", "\\", NULL);
    cr_assert_str_eq(decode("\"q\"\tx\\\ty"), "+I[\"q\", x\ty]");
    cr_assert_str_eq(encode(), "\"q\"\tx\\\ty");
    close_fmt();
}

Test(csv, ignore_parse_errors)
{
    open_fmt("ROW<a INT NOT NULL>", "ignore-parse-errors", "true", NULL);
    cr_assert_str_eq(decode("zz"), "skipped");
    cr_assert_str_eq(decode(""), "");
    cr_assert_str_eq(decode("5"), "+I[5]");
    cr_assert_eq(fx.deser->skipped, 1);
    close_fmt();
}

Test(csv, not_null_and_kinds)
{
    open_fmt("ROW<a INT NOT NULL, b STRING>", NULL);
    cr_assert_str_eq(decode(",x"), "error: field \"a\": NOT NULL, found null");
    cdc_row_t *row = cdc_batch_add(&fx.batch, CDC_DELETE, 2);
    row->values[0].v.i = 1;
    cr_assert_eq(fx.ser->ops->encode(fx.ser, row, &fx.out), -1);
    cr_assert_str_eq(cdc_buf_cstr(&fx.ser->errmsg),
                     "format \"csv\" writes only insert (+I) rows, found a -D row");
    close_fmt();
}

Test(csv, bad_options)
{
    cdc_kv_t kv = {0};
    cdc_kv_set(&kv, "field-delimiter", ";;");
    cdc_error_t *err = NULL;
    cdc_config_t *cfg = cdc_config_new(cdc_format_csv.options, "format \"csv\"", &kv, &err);
    cr_assert_not_null(cfg);
    cdc_buf_t problems = {0};
    cdc_format_csv.check(cfg, &problems);
    cr_assert_str_eq(cdc_buf_cstr(&problems),
                     "option \"field-delimiter\" must be a single character, found \";;\"\n");
    cdc_buf_free(&problems);
    cdc_config_destroy(cfg);
    cdc_kv_free(&kv);
}
