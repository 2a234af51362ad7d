/*
 * tests/formats/json.c — the json format through its factory: decoding every
 * type, errors with their exact texts, options, and encode round trips.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_json.h"
#include "cdc_plugin.h"

extern const cdc_format_factory_t cdc_format_json;

/* ---- fixture ---------------------------------------------------------------------------- */

typedef struct fx_s {
    cdc_type_t *type;
    cdc_config_t *cfg;
    cdc_deser_t *deser;
    cdc_ser_t *ser;
    cdc_batch_t batch;
    cdc_buf_t text; /* printed rows, '\n'-separated */
    cdc_buf_t json; /* encoder output */
} fx_t;

static fx_t fx;

/* Opens the format for type with options given as key, value, ..., NULL. */
static void open_fmt(const char *type, ...)
{
    cdc_error_t *err = NULL;
    memset(&fx, 0, sizeof(fx));
    fx.type = cdc_type_parse(type, &err);
    cr_assert_not_null(fx.type, "type %s: %s", type, err ? err->message : "");
    cdc_kv_t kv = {0};
    va_list ap;
    va_start(ap, type);
    for (const char *k; (k = va_arg(ap, const char *));)
        cdc_kv_set(&kv, k, va_arg(ap, const char *));
    va_end(ap);
    fx.cfg = cdc_config_new(cdc_format_json.options, "format \"json\"", &kv, &err);
    cdc_kv_free(&kv);
    cr_assert_not_null(fx.cfg, "options: %s", err ? err->detail : "");
    cdc_format_ctx_t ctx = {.cfg = fx.cfg, .row_type = fx.type, .table = "t"};
    cr_assert_eq(cdc_format_json.deser_new(&ctx, &fx.deser, &err), 0);
    cr_assert_eq(cdc_format_json.ser_new(&ctx, &fx.ser, &err), 0);
    cdc_batch_init(&fx.batch);
}

static void close_fmt(void)
{
    if (fx.deser)
        fx.deser->ops->destroy(fx.deser);
    if (fx.ser)
        fx.ser->ops->destroy(fx.ser);
    cdc_config_destroy(fx.cfg);
    cdc_type_destroy(fx.type);
    cdc_batch_free(&fx.batch);
    cdc_buf_free(&fx.text);
    cdc_buf_free(&fx.json);
    memset(&fx, 0, sizeof(fx));
}

/* Prints every row of the batch. */
static const char *rows(void)
{
    cdc_buf_clear(&fx.text);
    for (uint32_t i = 0; i < fx.batch.n; i++) {
        if (i)
            cdc_buf_putc(&fx.text, '\n');
        cdc_row_print(&fx.text, &fx.batch.rows[i], fx.type);
    }
    return cdc_buf_cstr(&fx.text);
}

/* Decodes one message into a fresh batch and prints the rows, or returns the error. */
static const char *decode_n(const char *msg, size_t len)
{
    cdc_batch_reset(&fx.batch);
    int rc = fx.deser->ops->decode(fx.deser, msg, len, &fx.batch);
    if (rc == CDC_DECODE_ERROR) {
        cr_assert_eq(fx.batch.n, 0, "rows left after an error");
        cdc_buf_clear(&fx.text);
        cdc_buf_puts(&fx.text, "ERROR: ");
        cdc_buf_append(&fx.text, fx.deser->errmsg.data, fx.deser->errmsg.len);
        return cdc_buf_cstr(&fx.text);
    }
    if (rc == CDC_DECODE_SKIPPED)
        return "SKIPPED";
    cr_assert_eq(rc, CDC_DECODE_OK);
    return rows();
}

static const char *decode(const char *msg)
{
    return decode_n(msg, strlen(msg));
}

/* Encodes row i of the batch; returns the JSON or "ERROR: ...". */
static const char *encode_row(const cdc_row_t *row)
{
    cdc_buf_clear(&fx.json);
    int rc = fx.ser->ops->encode(fx.ser, row, &fx.json);
    if (rc < 0) {
        cdc_buf_clear(&fx.json);
        cdc_buf_puts(&fx.json, "ERROR: ");
        cdc_buf_append(&fx.json, fx.ser->errmsg.data, fx.ser->errmsg.len);
    }
    return cdc_buf_cstr(&fx.json);
}

/* Decodes msg, checks the printed row, encodes it, checks the JSON, decodes that
 * JSON and checks it prints the same row again. */
static void round_trip(const char *msg, const char *printed, const char *encoded)
{
    cr_assert_str_eq(decode(msg), printed);
    cr_assert_str_eq(encode_row(&fx.batch.rows[0]), encoded);
    char *again = strdup(fx.json.data);
    cr_assert_str_eq(decode(again), printed, "re-decoding %s", again);
    free(again);
}

#define T(name) Test(json, name, .fini = close_fmt)

/* ---- decoding: types ---------------------------------------------------------------------- */

#define ALL_TYPES                                                                                  \
    "ROW<b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT, f FLOAT, d DOUBLE, "                \
    "dec DECIMAL(10, 2), c CHAR(3), s STRING, bin BYTES, dt DATE, tm TIME(3), ts TIMESTAMP(3), "   \
    "ltz TIMESTAMP_LTZ(3)>"

T(every_scalar_type)
{
    open_fmt(ALL_TYPES, NULL);
    cr_assert_str_eq(
        decode("{\"b\":true,\"ti\":-128,\"si\":32767,\"i\":-2147483648,"
               "\"bi\":9223372036854775807,\"f\":1.5,\"d\":-2.25e-3,\"dec\":12.345,"
               "\"c\":\"abc\",\"s\":\"h\\u00e9\\\"x\",\"bin\":\"AQID/w==\",\"dt\":\"2020-07-30\","
               "\"tm\":\"10:08:22.123\",\"ts\":\"2020-07-30 10:08:22.123\","
               "\"ltz\":\"2020-07-30 10:08:22.123Z\"}"),
        "+I[true, -128, 32767, -2147483648, 9223372036854775807, 1.5, -0.00225, 12.35, abc, "
        "h\xc3\xa9\"x, x'010203ff', 2020-07-30, 10:08:22.123, 2020-07-30T10:08:22.123, "
        "2020-07-30T10:08:22.123Z]");
}

T(numbers_and_booleans_as_strings)
{
    open_fmt(ALL_TYPES, NULL);
    cr_assert_str_eq(decode("{\"b\":\"TRUE\",\"ti\":\"12\",\"si\":\"-7\",\"i\":\" 42 \","
                            "\"bi\":\"-9223372036854775808\",\"f\":\"NaN\",\"d\":\"-Infinity\","
                            "\"dec\":\"1e1\"}"),
                     "+I[true, 12, -7, 42, -9223372036854775808, NaN, -Infinity, 10.00, null, "
                     "null, null, null, null, null, null]");
    cr_assert_str_eq(decode("{\"b\":\"false\",\"f\":\"Infinity\",\"d\":\"2.5E3\",\"dec\":\"-.5\"}"),
                     "+I[false, null, null, null, null, Infinity, 2500.0, -0.50, null, null, null, "
                     "null, null, null, null]");
}

T(scalars_given_for_strings_are_text)
{
    open_fmt("ROW<a STRING, b STRING, c STRING>", NULL);
    cr_assert_str_eq(decode("{\"a\":12.50,\"b\":false,\"c\":-3}"), "+I[12.50, false, -3]");
}

T(int64_limits_are_exact)
{
    open_fmt("ROW<a BIGINT, b BIGINT, c BIGINT>", NULL);
    cr_assert_str_eq(
        decode("{\"a\":-9223372036854775808,\"b\":9223372036854775807,\"c\":9007199254740993}"),
        "+I[-9223372036854775808, 9223372036854775807, 9007199254740993]");
}

/* regress_json_exponent_integers (issue 18, 5): Flink reads 1e2 into an INT; so do we, and any
   number token whose value is an integer, exactly (1.5 stays an error) */
T(integers_written_with_exponent_or_fraction)
{
    open_fmt("ROW<a INT, b BIGINT, c TINYINT>", NULL);
    cr_assert_str_eq(decode("{\"a\":1e2,\"b\":1.0,\"c\":-1.27E2}"), "+I[100, 1, -127]");
}

T(integer_range_errors)
{
    open_fmt("ROW<bi BIGINT, ti TINYINT, i INT>", NULL);
    cr_assert_str_eq(decode("{\"bi\":9223372036854775808}"),
                     "ERROR: field \"bi\": value 9223372036854775808 does not fit BIGINT");
    cr_assert_str_eq(decode("{\"bi\":-9223372036854775809}"),
                     "ERROR: field \"bi\": value -9223372036854775809 does not fit BIGINT");
    cr_assert_str_eq(decode("{\"bi\":\"123456789012345678901234567890\"}"),
                     "ERROR: field \"bi\": value 123456789012345678901234567890 does not fit "
                     "BIGINT");
    cr_assert_str_eq(decode("{\"ti\":128}"), "ERROR: field \"ti\": value 128 does not fit TINYINT");
    cr_assert_str_eq(decode("{\"ti\":-129}"),
                     "ERROR: field \"ti\": value -129 does not fit TINYINT");
    cr_assert_str_eq(decode("{\"i\":2147483648}"),
                     "ERROR: field \"i\": value 2147483648 does not fit INT");
    cr_assert_str_eq(decode("{\"i\":1.5}"), "ERROR: field \"i\": expected INT, found number 1.5");
    cr_assert_str_eq(decode("{\"i\":1e-2}"), "ERROR: field \"i\": expected INT, found number 1e-2");
    cr_assert_str_eq(decode("{\"i\":3e9}"), "ERROR: field \"i\": value 3e9 does not fit INT");
    cr_assert_str_eq(decode("{\"i\":\"abc\"}"),
                     "ERROR: field \"i\": expected INT, found string \"abc\"");
    cr_assert_str_eq(decode("{\"i\":true}"),
                     "ERROR: field \"i\": expected INT, found boolean true");
    cr_assert_str_eq(decode("{\"i\":{}}"), "ERROR: field \"i\": expected INT, found an object");
    cr_assert_str_eq(decode("{\"i\":[1]}"), "ERROR: field \"i\": expected INT, found an array");
}

T(decimal_extremes)
{
    open_fmt("ROW<a DECIMAL(38, 0), b DECIMAL(38, 10), c DECIMAL(38, 38), price DECIMAL(5, 2)>",
             NULL);
    cr_assert_str_eq(decode("{\"a\":99999999999999999999999999999999999999,"
                            "\"b\":\"-9999999999999999999999999999.9999999999\","
                            "\"c\":0.99999999999999999999999999999999999999,\"price\":1.005}"),
                     "+I[99999999999999999999999999999999999999, "
                     "-9999999999999999999999999999.9999999999, "
                     "0.99999999999999999999999999999999999999, 1.01]");
    cr_assert_str_eq(decode("{\"a\":-99999999999999999999999999999999999999,\"b\":1E-10,"
                            "\"c\":-1e-38,\"price\":-999.994}"),
                     "+I[-99999999999999999999999999999999999999, 0.0000000001, "
                     "-0.00000000000000000000000000000000000001, -999.99]");
    cr_assert_str_eq(decode("{\"a\":100000000000000000000000000000000000000}"),
                     "ERROR: field \"a\": value 100000000000000000000000000000000000000 does not "
                     "fit DECIMAL(38, 0)");
    cr_assert_str_eq(decode("{\"price\":123456.789}"),
                     "ERROR: field \"price\": value 123456.789 does not fit DECIMAL(5, 2)");
    cr_assert_str_eq(decode("{\"price\":999.995}"),
                     "ERROR: field \"price\": value 999.995 does not fit DECIMAL(5, 2)");
    cr_assert_str_eq(decode("{\"price\":\"12,5\"}"),
                     "ERROR: field \"price\": expected DECIMAL(5, 2), found string \"12,5\"");
}

T(double_read_into_float_prints_short)
{
    open_fmt("ROW<f FLOAT, d DOUBLE>", NULL);
    cr_assert_str_eq(decode("{\"f\":3.140000104904175,\"d\":3.140000104904175}"),
                     "+I[3.14, 3.140000104904175]");
    cr_assert_str_eq(decode("{\"f\":1e10,\"d\":1e-5}"), "+I[1.0E10, 1.0E-5]");
    cr_assert_str_eq(decode("{\"f\":\"0x10\"}"),
                     "ERROR: field \"f\": expected FLOAT, found string \"0x10\"");
    cr_assert_str_eq(decode("{\"d\":\"inf\"}"),
                     "ERROR: field \"d\": expected DOUBLE, found string \"inf\"");
}

T(timestamps_sql_standard)
{
    open_fmt("ROW<ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(3), t0 TIMESTAMP(0), ts9 TIMESTAMP(9)>", NULL);
    cr_assert_str_eq(decode("{\"ts\":\"2020-07-30 10:08:22.123\",\"ltz\":\"2020-07-30 "
                            "10:08:22.1Z\",\"t0\":\"1969-12-31 23:59:59\",\"ts9\":\"2020-07-30 "
                            "10:08:22.123456789\"}"),
                     "+I[2020-07-30T10:08:22.123, 2020-07-30T10:08:22.100Z, 1969-12-31T23:59:59, "
                     "2020-07-30T10:08:22.123456789]");
    cr_assert_str_eq(decode("{\"ts\":\"2020-07-30T10:08:22.123\"}"),
                     "ERROR: field \"ts\": expected TIMESTAMP(3) as SQL \"yyyy-MM-dd "
                     "HH:mm:ss.SSS\", found string \"2020-07-30T10:08:22.123\"");
    cr_assert_str_eq(decode("{\"ltz\":\"2020-07-30 10:08:22.123\"}"),
                     "ERROR: field \"ltz\": expected TIMESTAMP_LTZ(3) as SQL \"yyyy-MM-dd "
                     "HH:mm:ss.SSSZ\", found string \"2020-07-30 10:08:22.123\"");
    cr_assert_str_eq(decode("{\"ts\":\"2020-07-30 10:08:22.123Z\"}"),
                     "ERROR: field \"ts\": expected TIMESTAMP(3) as SQL \"yyyy-MM-dd "
                     "HH:mm:ss.SSS\", found string \"2020-07-30 10:08:22.123Z\"");
    cr_assert_str_eq(decode("{\"t0\":\"2020-02-30 00:00:00\"}"),
                     "ERROR: field \"t0\": expected TIMESTAMP(0) as SQL \"yyyy-MM-dd "
                     "HH:mm:ss\", found string \"2020-02-30 00:00:00\"");
}

T(timestamps_iso_standard)
{
    open_fmt("ROW<ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(3)>", "timestamp-format.standard", "ISO-8601",
             NULL);
    cr_assert_str_eq(
        decode("{\"ts\":\"2020-07-30T10:08:22.123\",\"ltz\":\"2020-07-30T10:08:22Z\"}"),
        "+I[2020-07-30T10:08:22.123, 2020-07-30T10:08:22.000Z]");
    cr_assert_str_eq(decode("{\"ts\":\"2020-07-30 10:08:22.123\"}"),
                     "ERROR: field \"ts\": expected TIMESTAMP(3) as ISO-8601 "
                     "\"yyyy-MM-ddTHH:mm:ss.SSS\", found string \"2020-07-30 10:08:22.123\"");
}

T(dates_times_and_bytes_errors)
{
    open_fmt("ROW<dt DATE, tm TIME(0), bin BYTES>", NULL);
    cr_assert_str_eq(decode("{\"dt\":\"2020-13-01\"}"),
                     "ERROR: field \"dt\": expected DATE, found string \"2020-13-01\"");
    cr_assert_str_eq(decode("{\"dt\":18000}"),
                     "ERROR: field \"dt\": expected DATE, found number 18000");
    cr_assert_str_eq(decode("{\"tm\":\"25:00:00\"}"),
                     "ERROR: field \"tm\": expected TIME(0), found string \"25:00:00\"");
    cr_assert_str_eq(decode("{\"bin\":\"a*==\"}"),
                     "ERROR: field \"bin\": expected base64 text for BYTES, found string \"a*==\"");
    cr_assert_str_eq(decode("{\"bin\":\"aGk\",\"tm\":\"23:59:59.999\"}"),
                     "+I[null, 23:59:59, x'6869']");
}

T(boolean_errors)
{
    open_fmt("ROW<b BOOLEAN>", NULL);
    cr_assert_str_eq(decode("{\"b\":\"yes\"}"),
                     "ERROR: field \"b\": expected BOOLEAN, found string \"yes\"");
    cr_assert_str_eq(decode("{\"b\":1}"), "ERROR: field \"b\": expected BOOLEAN, found number 1");
}

/* ---- decoding: nesting -------------------------------------------------------------------- */

#define NESTED                                                                                     \
    "ROW<id INT, tags ARRAY<STRING>, attrs MAP<STRING, INT>, addr ROW<city STRING, zip INT>, "     \
    "m2 MAP<INT, ARRAY<ROW<a INT>>>, raw STRING, nums ARRAY<INT NOT NULL>>"

T(nested_row_array_map)
{
    open_fmt(NESTED, NULL);
    cr_assert_str_eq(
        decode("{\"id\":1,\"tags\":[\"a\",\"b\"],\"attrs\":{\"k1\":1,\"k2\":null},"
               "\"addr\":{\"zip\":75001,\"city\":\"Paris\",\"extra\":[1,{\"x\":2}]},"
               "\"m2\":{\"7\":[{\"a\":1},{\"a\":2}],\"-1\":[]},"
               "\"raw\":{\"a\":[1,2.5,\"x\\n\"],\"b\":{\"c\":null,\"d\":true},\"e\":[]},"
               "\"nums\":[]}"),
        "+I[1, [a, b], {k1=1, k2=null}, (Paris, 75001), {7=[(1), (2)], -1=[]}, "
        "{\"a\":[1,2.5,\"x\\n\"],\"b\":{\"c\":null,\"d\":true},\"e\":[]}, []]");
    cr_assert_str_eq(decode("{\"raw\":[{},[[]],\"\"],\"addr\":null,\"tags\":null,\"attrs\":{}}"),
                     "+I[null, null, {}, null, null, [{},[[]],\"\"], null]");
}

T(unknown_keys_and_their_subtrees_are_skipped)
{
    open_fmt("ROW<a INT, b INT>", NULL);
    cr_assert_str_eq(decode("{\"x\":{\"a\":5,\"y\":[1,[2,{\"b\":3}]]},\"b\":2,\"z\":null,"
                            "\"a\":1,\"w\":\"s\"}"),
                     "+I[1, 2]");
}

T(duplicate_keys_last_wins_and_order_is_free)
{
    open_fmt("ROW<f1 INT, f2 INT, f3 INT, f4 INT, f5 INT>", NULL);
    cr_assert_str_eq(decode("{\"f5\":5,\"f3\":3,\"f1\":1,\"f1\":10,\"f4\":4,\"f2\":2}"),
                     "+I[10, 2, 3, 4, 5]");
    /* nested values and nulls repeated: the last one, no stale value or null flag */
    close_fmt();
    open_fmt("ROW<a ARRAY<INT>, r ROW<x INT, y STRING>, m MAP<STRING, INT>, s STRING>", NULL);
    cr_assert_str_eq(
        decode("{\"a\":[1,2],\"a\":null,\"r\":{\"x\":1,\"y\":\"p\",\"x\":null},"
               "\"m\":{\"k\":1,\"j\":0,\"k\":2},\"s\":null,\"s\":{\"z\":1},\"a\":[3]}"),
        "+I[[3], (null, p), {j=0, k=2}, {\"z\":1}]");
}

T(nested_error_paths)
{
    open_fmt(NESTED, NULL);
    cr_assert_str_eq(decode("{\"tags\":5}"),
                     "ERROR: field \"tags\": expected an array, found a number");
    cr_assert_str_eq(decode("{\"addr\":[1]}"),
                     "ERROR: field \"addr\": expected an object, found an array");
    cr_assert_str_eq(decode("{\"addr\":{\"zip\":\"x\"}}"),
                     "ERROR: field \"addr.zip\": expected INT, found string \"x\"");
    cr_assert_str_eq(decode("{\"nums\":[1,\"x\"]}"),
                     "ERROR: field \"nums[1]\": expected INT, found string \"x\"");
    cr_assert_str_eq(decode("{\"nums\":[1,null]}"),
                     "ERROR: field \"nums[1]\": expected INT NOT NULL, found null");
    cr_assert_str_eq(decode("{\"attrs\":{\"k1\":1,\"k2\":true}}"),
                     "ERROR: field \"attrs[k2]\": expected INT, found boolean true");
    cr_assert_str_eq(decode("{\"m2\":{\"x\":[]}}"),
                     "ERROR: field \"m2\": map key: expected INT, found string \"x\"");
    cr_assert_str_eq(decode("{\"m2\":{\"3\":[{\"a\":1},{\"a\":\"q\"}]}}"),
                     "ERROR: field \"m2[3][1].a\": expected INT, found string \"q\"");
}

T(top_level_array_gives_several_rows)
{
    open_fmt("ROW<id INT>", NULL);
    cr_assert_str_eq(decode(" [ {\"id\":1}, {\"id\":2} ] "), "+I[1]\n+I[2]");
    cr_assert_str_eq(decode("[]"), "");
    cr_assert_str_eq(decode("[{\"id\":1},2]"),
                     "ERROR: expected a JSON object in the top-level array, found a number");
    cr_assert_str_eq(decode("[{\"id\":1},{\"id\":\"x\"}]"),
                     "ERROR: field \"id\": expected INT, found string \"x\"");
}

T(strings_survive_the_next_message)
{
    open_fmt("ROW<s STRING, t STRING>", NULL);
    cdc_batch_reset(&fx.batch);
    const char *m1 = "{\"s\":\"esc\\taped\",\"t\":\"plain\"}";
    const char *m2 = "{\"s\":\"second\\\\one\",\"t\":\"\\u20ac\"}";
    cr_assert_eq(fx.deser->ops->decode(fx.deser, m1, strlen(m1), &fx.batch), 0);
    cr_assert_eq(fx.deser->ops->decode(fx.deser, m2, strlen(m2), &fx.batch), 0);
    cr_assert_str_eq(rows(), "+I[esc\taped, plain]\n+I[second\\one, \xe2\x82\xac]");
    /* the plain string is referenced in place, the escaped one copied */
    cr_assert_eq(fx.batch.rows[0].values[1].v.s.ptr, m1 + 22);
}

/* ---- decoding: nulls, missing fields, options -------------------------------------------- */

T(not_null_violations)
{
    open_fmt("ROW<id INT NOT NULL, name STRING, pos ROW<x INT NOT NULL>>", NULL);
    cr_assert_str_eq(decode("{\"id\":null}"),
                     "ERROR: field \"id\": expected INT NOT NULL, found null");
    cr_assert_str_eq(decode("{\"name\":\"x\"}"),
                     "ERROR: field \"id\": missing, expected INT NOT NULL");
    cr_assert_str_eq(decode("{\"id\":1,\"pos\":{}}"),
                     "ERROR: field \"pos.x\": missing, expected INT NOT NULL");
    cr_assert_str_eq(decode("{\"id\":1,\"pos\":null}"), "+I[1, null, null]");
}

T(missing_fields_are_null)
{
    open_fmt("ROW<id INT, name STRING, pos ROW<x INT, y INT>>", NULL);
    cr_assert_str_eq(decode("{}"), "+I[null, null, null]");
    cr_assert_str_eq(decode("{\"pos\":{\"y\":2}}"), "+I[null, null, (null, 2)]");
}

T(fail_on_missing_field)
{
    open_fmt("ROW<id INT, name STRING, pos ROW<x INT, y INT>>", "fail-on-missing-field", "true",
             NULL);
    cr_assert_str_eq(decode("{\"id\":1,\"pos\":{\"x\":1,\"y\":2}}"),
                     "ERROR: field \"name\": missing");
    cr_assert_str_eq(decode("{\"id\":1,\"name\":null,\"pos\":{\"y\":2}}"),
                     "ERROR: field \"pos.x\": missing");
    cr_assert_str_eq(decode("{\"id\":1,\"name\":null,\"pos\":null}"), "+I[1, null, null]");
}

T(ignore_parse_errors_skips_and_counts)
{
    open_fmt("ROW<id INT, name STRING>", "ignore-parse-errors", "true", NULL);
    cdc_batch_reset(&fx.batch);
    const char *good = "{\"id\":1,\"name\":\"a\"}";
    const char *bad[] = {"{\"id\":\"x\"}", "{\"id\":1", "[{\"id\":2},{\"id\":true}]", "nope"};
    cr_assert_eq(fx.deser->ops->decode(fx.deser, good, strlen(good), &fx.batch), CDC_DECODE_OK);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(fx.deser->ops->decode(fx.deser, bad[i], strlen(bad[i]), &fx.batch),
                     CDC_DECODE_SKIPPED, "message %d", i);
    cr_assert_eq(fx.deser->ops->decode(fx.deser, good, strlen(good), &fx.batch), CDC_DECODE_OK);
    cr_assert_eq(fx.deser->skipped, 4);
    cr_assert_str_eq(rows(), "+I[1, a]\n+I[1, a]");
}

T(tombstones_give_no_row)
{
    open_fmt("ROW<id INT>", NULL);
    cdc_batch_reset(&fx.batch);
    cr_assert_eq(fx.deser->ops->decode(fx.deser, NULL, 0, &fx.batch), CDC_DECODE_OK);
    cr_assert_eq(fx.deser->ops->decode(fx.deser, "", 0, &fx.batch), CDC_DECODE_OK);
    cr_assert_eq(fx.batch.n, 0);
}

/* ---- decoding: malformed JSON --------------------------------------------------------------- */

T(malformed_json)
{
    open_fmt("ROW<id INT, name STRING>", NULL);
    cr_assert_str_eq(decode("{\"id\":1,\"name\":\"x\""),
                     "ERROR: invalid JSON at byte 18: premature EOF");
    cr_assert_str_eq(decode("{\"id\":1,\"name\":\"x"),
                     "ERROR: invalid JSON at byte 17: premature EOF");
    cr_assert_str_eq(decode("{\"id\":1,\"name\":\"a\xff\"}"),
                     "ERROR: invalid JSON at byte 18: invalid bytes in UTF8 string");
    cr_assert_str_eq(decode("{\"id\":1,\"name\":\"\xc3\"}"),
                     "ERROR: invalid JSON at byte 18: invalid bytes in UTF8 string");
    cr_assert_str_eq(decode("hello"), "ERROR: invalid JSON at byte 1: invalid char in json text");
    cr_assert_str_eq(
        decode("{\"id\":01}"),
        "ERROR: invalid JSON at byte 7: after key and value, inside map, I expect ',' or '}'");
    cr_assert_str_eq(decode("{\"id\":1,}"),
                     "ERROR: invalid JSON at byte 9: invalid object key (must be a string)");
    cr_assert_str_eq(decode("{\"id\":1} x"), "ERROR: invalid JSON at byte 9: trailing garbage");
    cr_assert_str_eq(decode("{\"id\":1} {}"), "ERROR: invalid JSON at byte 9: trailing garbage");
    cr_assert_str_eq(decode("{\"id\":1} \"abc"), "ERROR: invalid JSON at byte 9: trailing garbage");
    cr_assert_str_eq(decode("   "), "ERROR: invalid JSON at byte 3: premature EOF");
    cr_assert_str_eq(decode("42"), "ERROR: expected a JSON object, found a number");
    cr_assert_str_eq(decode("null"), "ERROR: expected a JSON object, found null");
    cr_assert_str_eq(decode("[[]]"),
                     "ERROR: expected a JSON object in the top-level array, found an array");
    /* the decoder still works after all that */
    cr_assert_str_eq(decode("{\"id\":1,\"name\":\"x\"}"), "+I[1, x]");
}

T(errors_between_good_messages)
{
    /* the yajl handle is reused after clean messages and replaced after bad ones */
    open_fmt("ROW<id INT>", NULL);
    const char *seq[][2] = {
        {"{\"id\":1}", "+I[1]"},
        {"  \n", "ERROR: invalid JSON at byte 3: premature EOF"},
        {"{\"id\":2}\n", "+I[2]"},
        {"42", "ERROR: expected a JSON object, found a number"},
        {"{\"id\":3}", "+I[3]"},
        {"{\"id\":4} 5", "ERROR: invalid JSON at byte 9: trailing garbage"},
        {"{\"id\":5}", "+I[5]"},
        {"{\"id\":6} [{\"id\":7}", "ERROR: invalid JSON at byte 9: trailing garbage"},
        {"{\"id\":8} \"{", "ERROR: invalid JSON at byte 9: trailing garbage"},
        {"{\"id\":9}", "+I[9]"},
        {"{\"id\":", "ERROR: invalid JSON at byte 6: premature EOF"},
        {"}", "ERROR: invalid JSON at byte 1: unallowed token at this point in JSON text"},
        {"{\"id\":10}", "+I[10]"},
    };
    for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++)
        cr_assert_str_eq(decode(seq[i][0]), seq[i][1], "message %zu", i);
}

static char *deep(int levels, const char *field)
{
    size_t flen = strlen(field);
    char *s = malloc((size_t)levels * 2 + flen + 64);
    int n = sprintf(s, "{\"id\":1,\"%s\":", field);
    for (int i = 0; i < levels; i++)
        s[n++] = '[';
    for (int i = 0; i < levels; i++)
        s[n++] = ']';
    strcpy(s + n, "}");
    return s;
}

T(deep_nesting_is_refused)
{
    open_fmt("ROW<id INT, name STRING>", NULL);
    /* skipped or captured JSON nests as deep as the parser allows: 1,024 levels in all */
    char *s = deep(1000, "unknown");
    cr_assert_str_eq(decode(s), "+I[1, null]");
    free(s);
    s = deep(2000, "unknown");
    cr_assert_str_eq(decode(s),
                     "ERROR: invalid JSON at byte 1042: containers nested deeper than 1024 levels");
    free(s);
    s = deep(1000, "name"); /* captured as text */
    cr_assert_eq(strncmp(decode(s), "+I[1, [[[[", 10), 0);
    free(s);
    s = deep(2000, "name");
    cr_assert_str_eq(decode(s),
                     "ERROR: invalid JSON at byte 1039: containers nested deeper than 1024 levels");
    free(s);
    s = deep(100, "name");
    cr_assert_eq(strncmp(decode(s), "+I[1, [[[[", 10), 0);
    free(s);
}

/* ---- options -------------------------------------------------------------------------------- */

Test(json, mutually_exclusive_options)
{
    cdc_kv_t kv = {0};
    cdc_kv_set(&kv, "json.fail-on-missing-field", "true");
    cdc_kv_set(&kv, "json.ignore-parse-errors", "true");
    cdc_option_scope_t scope = {.defs = cdc_format_json.options,
                                .prefix = "json.",
                                .label = "format \"json\"",
                                .check = cdc_format_json.check};
    cdc_config_t *cfg = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_options_validate(&scope, 1, &kv, &cfg, &err), -1);
    cr_assert_str_eq(err->message, "invalid options for format \"json\"");
    cr_assert_str_eq(err->detail,
                     "fail-on-missing-field and ignore-parse-errors shouldn't both be true.");
    cdc_error_destroy(err);
    cdc_kv_free(&kv);
}

Test(json, option_table)
{
    int n = 0;
    for (const cdc_option_def_t *d = cdc_format_json.options; d->key; d++, n++)
        cr_assert(d->description && *d->description, "option %s has no description", d->key);
    cr_assert_eq(n, 7);
    cdc_kv_t kv = {0};
    cdc_kv_set(&kv, "timestamp-format.standard", "RFC");
    cdc_kv_set(&kv, "map-null-key.mode", "drop");
    cdc_error_t *err = NULL;
    cr_assert_null(cdc_config_new(cdc_format_json.options, "format \"json\"", &kv, &err));
    cr_assert_str_eq(err->detail, "option \"timestamp-format.standard\": expected one of SQL, "
                                  "ISO-8601; found \"RFC\"");
    cdc_error_destroy(err);
    cdc_kv_free(&kv);
}

/* The format refuses a row type when it makes its decoder, with this message and detail. */
static void expect_refused(const char *type, const char *message, const char *detail)
{
    cdc_error_t *err = NULL;
    cdc_type_t *t = cdc_type_parse(type, &err);
    cdc_kv_t kv = {0};
    cdc_config_t *cfg = cdc_config_new(cdc_format_json.options, "format \"json\"", &kv, &err);
    cdc_format_ctx_t ctx = {.cfg = cfg, .row_type = t, .table = "db.t"};
    cdc_deser_t *deser = NULL;
    cr_assert_eq(cdc_format_json.deser_new(&ctx, &deser, &err), -1);
    cr_assert_str_eq(err->message, message);
    cr_assert_str_eq(err->detail, detail);
    cdc_error_destroy(err);
    cdc_config_destroy(cfg);
    cdc_type_destroy(t);
}

Test(json, map_keys_must_be_scalars)
{
    expect_refused("ROW<m MAP<ARRAY<INT>, INT>>",
                   "JSON format doesn't support ARRAY as key type of a map",
                   "the type is MAP<ARRAY<INT>, INT>");
}

Test(json, convert_scalar_api)
{
    cdc_error_t *err = NULL;
    cdc_type_t *t = cdc_type_parse("DECIMAL(5, 2) NOT NULL", &err);
    cdc_arena_t arena;
    cdc_arena_init(&arena);
    cdc_value_t v;
    char e[128];
    cr_assert_eq(cdc_json_convert_scalar(t, 's', "3.14159", 7, false, &arena, &v, e, sizeof(e)), 0);
    cr_assert(v.v.dec == 314 && v.flags == 0);
    cr_assert_eq(cdc_json_convert_scalar(t, 'n', NULL, 0, false, &arena, &v, e, sizeof(e)), -1);
    cr_assert_str_eq(e, "expected DECIMAL(5, 2) NOT NULL, found null");
    cdc_arena_free(&arena);
    cdc_type_destroy(t);
}

/* The fast conversion paths must agree with the reference parsers on every input. */
static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Random decimal text: sign, 1..20 digits, maybe a point. */
static void random_number(char *buf)
{
    int n = 0;
    if (next_rand() % 3 == 0)
        buf[n++] = '-';
    int nd = 1 + (int)(next_rand() % 20);
    int point = (int)(next_rand() % (uint64_t)(nd + 3)) - 1; /* maybe none */
    for (int i = 0; i < nd; i++) {
        if (i == point && i > 0)
            buf[n++] = '.';
        buf[n++] =
            (char)('0' + (i == 0 && nd > 1 && point != 1 ? 1 + next_rand() % 9 : next_rand() % 10));
    }
    buf[n] = '\0';
}

Test(json, fast_paths_agree_with_reference_parsers)
{
    cdc_error_t *err = NULL;
    cdc_type_t *td = cdc_type_parse("DOUBLE", &err), *tf = cdc_type_parse("FLOAT", &err);
    cdc_type_t *tb = cdc_type_parse("BIGINT", &err);
    cdc_type_t *tdec[] = {
        cdc_type_parse("DECIMAL(38, 0)", &err), cdc_type_parse("DECIMAL(38, 30)", &err),
        cdc_type_parse("DECIMAL(10, 4)", &err), cdc_type_parse("DECIMAL(20, 2)", &err)};
    cdc_arena_t arena;
    cdc_arena_init(&arena);
    char num[64], e[256];
    for (int k = 0; k < 200000; k++) {
        random_number(num);
        size_t len = strlen(num);
        cdc_value_t v;
        cr_assert_eq(cdc_json_convert_scalar(td, '#', num, len, false, &arena, &v, e, sizeof(e)),
                     0);
        double d = strtod(num, NULL);
        cr_assert(memcmp(&v.v.d, &d, sizeof(d)) == 0, "DOUBLE %s: %.17g vs %.17g", num, v.v.d, d);
        cr_assert_eq(cdc_json_convert_scalar(tf, 's', num, len, false, &arena, &v, e, sizeof(e)),
                     0);
        float f = strtof(num, NULL);
        cr_assert(memcmp(&v.v.f, &f, sizeof(f)) == 0, "FLOAT %s: %.9g vs %.9g", num, v.v.f, f);
        for (int t = 0; t < 4; t++) {
            /* cdc_decimal_parse overflows 128 bits on too many integer digits (core bug,
             * see the report), so that case is predicted here, not asked */
            const char *p = num + (num[0] == '-');
            while (*p == '0')
                p++;
            int intdigits = (int)strcspn(p, ".");
            cdc_i128 ref = 0;
            int want = intdigits > tdec[t]->precision - tdec[t]->scale
                           ? -1
                           : cdc_decimal_parse(num, len, tdec[t]->precision, tdec[t]->scale, &ref);
            int got =
                cdc_json_convert_scalar(tdec[t], '#', num, len, false, &arena, &v, e, sizeof(e));
            cr_assert_eq(got, want, "DECIMAL %s", num);
            cr_assert(got < 0 || v.v.dec == ref, "DECIMAL %s differs", num);
        }
        if (!strchr(num, '.')) {
            errno = 0;
            long long ll = strtoll(num, NULL, 10);
            int got = cdc_json_convert_scalar(tb, '#', num, len, false, &arena, &v, e, sizeof(e));
            cr_assert_eq(got, errno == ERANGE ? -1 : 0, "BIGINT %s", num);
            cr_assert(got < 0 || v.v.i == ll, "BIGINT %s differs", num);
        }
        cdc_arena_reset(&arena);
    }
    /* timestamps: fixed-layout fast path against cdc_timestamp_parse */
    cdc_type_t *tts[] = {cdc_type_parse("TIMESTAMP(0)", &err), cdc_type_parse("TIMESTAMP(3)", &err),
                         cdc_type_parse("TIMESTAMP(9)", &err)};
    for (int k = 0; k < 100000; k++) {
        char ts[64];
        int frac = (int)(next_rand() % 11);
        int n =
            snprintf(ts, sizeof(ts), "%04d-%02d-%02d %02d:%02d:%02d", (int)(next_rand() % 10000),
                     (int)(next_rand() % 14), (int)(next_rand() % 33), (int)(next_rand() % 25),
                     (int)(next_rand() % 61), (int)(next_rand() % 61));
        if (frac) {
            ts[n++] = '.';
            for (int i = 0; i < frac; i++)
                ts[n++] = (char)('0' + next_rand() % 10);
            ts[n] = '\0';
        }
        for (int t = 0; t < 3; t++) {
            cdc_ts_t ref;
            int want = cdc_timestamp_parse(ts, (size_t)n, tts[t]->precision, false, &ref, NULL);
            cdc_value_t v;
            int got = cdc_json_convert_scalar(tts[t], 's', ts, (size_t)n, false, &arena, &v, e,
                                              sizeof(e));
            cr_assert_eq(got, want, "TIMESTAMP %s", ts);
            cr_assert(got < 0 || (v.v.ts.millis == ref.millis && v.v.ts.nanos == ref.nanos),
                      "TIMESTAMP(%d) %s differs", tts[t]->precision, ts);
        }
    }
    for (int t = 0; t < 3; t++)
        cdc_type_destroy(tts[t]);
    for (int t = 0; t < 4; t++)
        cdc_type_destroy(tdec[t]);
    cdc_type_destroy(td);
    cdc_type_destroy(tf);
    cdc_type_destroy(tb);
    cdc_arena_free(&arena);
}

T(wide_rows_and_fail_on_missing)
{
    /* more than 64 fields: the seen-set spans several words */
    cdc_buf_t type = {0}, msg = {0}, want = {0};
    cdc_buf_puts(&type, "ROW<");
    cdc_buf_putc(&msg, '{');
    cdc_buf_puts(&want, "+I[");
    for (int i = 0; i < 70; i++) {
        cdc_buf_printf(&type, "%sf%d INT", i ? ", " : "", i);
        if (i != 66)
            cdc_buf_printf(&msg, "%s\"f%d\":%d", msg.len > 1 ? "," : "", i, i);
        cdc_buf_printf(&want, "%s%d", i ? ", " : "", i);
    }
    cdc_buf_putc(&type, '>');
    cdc_buf_putc(&msg, '}');
    cdc_buf_putc(&want, ']');
    open_fmt(cdc_buf_cstr(&type), "fail-on-missing-field", "true", NULL);
    cr_assert_str_eq(decode(cdc_buf_cstr(&msg)), "ERROR: field \"f66\": missing");
    cdc_buf_clear(&msg);
    cdc_buf_putc(&msg, '{');
    for (int i = 69; i >= 0; i--) /* reverse order, with a duplicate */
        cdc_buf_printf(&msg, "\"f%d\":%d,", i, i);
    cdc_buf_puts(&msg, "\"f3\":3}");
    cr_assert_str_eq(decode(cdc_buf_cstr(&msg)), cdc_buf_cstr(&want));
    cdc_buf_free(&type);
    cdc_buf_free(&msg);
    cdc_buf_free(&want);
}

T(decimal_fast_path_limits)
{
    open_fmt("ROW<a DECIMAL(38, 30), b DECIMAL(38, 19), c DECIMAL(3, 0)>", NULL);
    cr_assert_str_eq(decode("{\"a\":1234567890123456789}"),
                     "ERROR: field \"a\": value 1234567890123456789 does not fit DECIMAL(38, 30)");
    cr_assert_str_eq(decode("{\"a\":12345678.9,\"b\":-1234567890123456789,\"c\":-999}"),
                     "+I[12345678.900000000000000000000000000000, "
                     "-1234567890123456789.0000000000000000000, -999]");
    cr_assert_str_eq(decode("{\"c\":1000}"),
                     "ERROR: field \"c\": value 1000 does not fit DECIMAL(3, 0)");
    cr_assert_str_eq(decode("{\"c\":0.5}"), "+I[null, null, 1]");
    cr_assert_str_eq(decode("{\"a\":1e8}"),
                     "ERROR: field \"a\": value 1e8 does not fit DECIMAL(38, 30)");
    cr_assert_str_eq(decode("{\"a\":9.9e7,\"b\":\"-0.00001e-20\",\"c\":\"9.99E2\"}"),
                     "+I[99000000.000000000000000000000000000000, 0.0000000000000000000, 999]");
}

/* ---- the shared row decoder, as an envelope format drives it -------------------------------- */

typedef struct env_s {
    cdc_json_parser_t *parser;
    cdc_json_rowdec_t *dec;
    cdc_batch_t *batch;
    int depth;      /* envelope nesting */
    bool in_row;    /* events go to dec */
    bool after_key; /* the last envelope key was "after" */
    const char *op; /* from "op" */
    char err[512];
} env_t;

#define ENV_FWD(e, call)                                                                           \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ < 0) {                                                                             \
            snprintf((e)->err, sizeof((e)->err), "%s", cdc_json_rowdec_error((e)->dec));           \
            return 0;                                                                              \
        }                                                                                          \
        if (rc_ == 1)                                                                              \
            (e)->in_row = false;                                                                   \
        return 1;                                                                                  \
    } while (0)

static int env_null(void *c)
{
    env_t *e = c;
    if (e->in_row)
        ENV_FWD(e, cdc_json_rowdec_null(e->dec));
    return 1;
}
static int env_bool(void *c, int b)
{
    env_t *e = c;
    if (e->in_row)
        ENV_FWD(e, cdc_json_rowdec_bool(e->dec, b));
    return 1;
}
static int env_number(void *c, const char *s, size_t l)
{
    env_t *e = c;
    if (e->in_row)
        ENV_FWD(e, cdc_json_rowdec_number(e->dec, s, l));
    return 1;
}
static int env_string(void *c, const unsigned char *s, size_t l)
{
    env_t *e = c;
    if (e->in_row)
        ENV_FWD(e, cdc_json_rowdec_string(e->dec, s, l));
    if (e->depth == 1 && l == 1 && s[0] == 'c')
        e->op = "c";
    return 1;
}
static int env_key(void *c, const unsigned char *s, size_t l)
{
    env_t *e = c;
    if (e->in_row)
        ENV_FWD(e, cdc_json_rowdec_map_key(e->dec, s, l));
    e->after_key = e->depth == 1 && l == 5 && memcmp(s, "after", 5) == 0;
    return 1;
}
static int env_start_map(void *c)
{
    env_t *e = c;
    if (e->in_row)
        ENV_FWD(e, cdc_json_rowdec_start_map(e->dec));
    if (e->after_key) {
        cdc_row_t *row = cdc_batch_add(e->batch, CDC_INSERT, 3); /* 2 fields + 1 metadata */
        row->values[2].flags = 0;
        row->values[2].v.s = (cdc_str_t){"meta", 4};
        cdc_json_rowdec_begin(e->dec, row, &e->batch->arena);
        e->in_row = true;
        return 1;
    }
    e->depth++;
    return 1;
}
static int env_end_map(void *c)
{
    env_t *e = c;
    if (e->in_row)
        ENV_FWD(e, cdc_json_rowdec_end_map(e->dec));
    if (--e->depth == 0)
        cdc_json_parser_mark_end(e->parser);
    return 1;
}
static int env_start_array(void *c)
{
    env_t *e = c;
    if (e->in_row)
        ENV_FWD(e, cdc_json_rowdec_start_array(e->dec));
    return 1;
}
static int env_end_array(void *c)
{
    env_t *e = c;
    if (e->in_row)
        ENV_FWD(e, cdc_json_rowdec_end_array(e->dec));
    return 1;
}

static const yajl_callbacks env_callbacks = {
    .yajl_null = env_null,
    .yajl_boolean = env_bool,
    .yajl_number = env_number,
    .yajl_string = env_string,
    .yajl_start_map = env_start_map,
    .yajl_map_key = env_key,
    .yajl_end_map = env_end_map,
    .yajl_start_array = env_start_array,
    .yajl_end_array = env_end_array,
};

static int env_parse(env_t *e, const char *msg, cdc_buf_t *errbuf)
{
    e->depth = 0;
    e->in_row = e->after_key = false;
    e->op = NULL;
    e->err[0] = '\0';
    return cdc_json_parser_parse(e->parser, msg, strlen(msg), errbuf);
}

Test(json, rowdec_inside_an_envelope)
{
    cdc_error_t *err = NULL;
    cdc_type_t *t = cdc_type_parse("ROW<id INT NOT NULL, tags ARRAY<STRING>>", &err);
    cdc_type_t *printed =
        cdc_type_parse("ROW<id INT NOT NULL, tags ARRAY<STRING>, m STRING>", &err);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    cdc_json_opts_t opts = {.fail_on_missing_field = false, .iso8601 = false};
    env_t env = {.dec = cdc_json_rowdec_new(t, &opts), .batch = &batch};
    env.parser = cdc_json_parser_new(&env_callbacks, &env);
    cdc_buf_t errbuf = {0}, out = {0};
    const char *m1 = "{\"before\":null,\"after\":{\"id\":7,\"x\":{\"y\":[1]},\"tags\":[\"a\"]},"
                     "\"op\":\"c\",\"source\":{\"after\":{}}}";
    cr_assert_eq(env_parse(&env, m1, &errbuf), CDC_JSON_PARSE_OK);
    cr_assert_str_eq(env.op, "c");
    cdc_row_print(&out, &batch.rows[0], printed);
    cr_assert_str_eq(cdc_buf_cstr(&out), "+I[7, [a], meta]");
    const char *m2 = "{\"after\":{\"tags\":[]},\"op\":\"c\"}";
    cr_assert_eq(env_parse(&env, m2, &errbuf), CDC_JSON_PARSE_CANCELED);
    cr_assert_str_eq(env.err, "field \"id\": missing, expected INT NOT NULL");
    const char *m3 = "{\"after\":{\"id\":1}} x";
    cr_assert_eq(env_parse(&env, m3, &errbuf), CDC_JSON_PARSE_INVALID);
    cr_assert_str_eq(cdc_buf_cstr(&errbuf), "invalid JSON at byte 19: trailing garbage");
    cdc_buf_free(&errbuf);
    cdc_buf_free(&out);
    cdc_json_parser_destroy(env.parser);
    cdc_json_rowdec_destroy(env.dec);
    cdc_batch_free(&batch);
    cdc_type_destroy(t);
    cdc_type_destroy(printed);
}

/* ---- encoding ------------------------------------------------------------------------------- */

T(encode_round_trip_every_type_sql)
{
    open_fmt(ALL_TYPES, NULL);
    round_trip("{\"b\":false,\"ti\":-128,\"si\":32767,\"i\":-2147483648,"
               "\"bi\":-9223372036854775808,\"f\":3.140000104904175,\"d\":1e-7,\"dec\":-0.5,"
               "\"c\":\"a\\\"\\\\\",\"s\":\"\\u0001\\n\\u00e9\\u20ac/\",\"bin\":\"AQID/w\","
               "\"dt\":\"1969-12-31\",\"tm\":\"10:08:22.12\",\"ts\":\"1969-12-31 23:59:59.999\","
               "\"ltz\":\"2020-07-30 10:08:22Z\"}",
               "+I[false, -128, 32767, -2147483648, -9223372036854775808, 3.14, 1.0E-7, -0.50, "
               "a\"\\, \x01\n\xc3\xa9\xe2\x82\xac/, x'010203ff', 1969-12-31, 10:08:22.120, "
               "1969-12-31T23:59:59.999, 2020-07-30T10:08:22.000Z]",
               "{\"b\":false,\"ti\":-128,\"si\":32767,\"i\":-2147483648,"
               "\"bi\":-9223372036854775808,\"f\":3.14,\"d\":1.0E-7,\"dec\":-0.50,"
               "\"c\":\"a\\\"\\\\\",\"s\":\"\\u0001\\n\xc3\xa9\xe2\x82\xac/\",\"bin\":\"AQID/w==\","
               "\"dt\":\"1969-12-31\",\"tm\":\"10:08:22.12\",\"ts\":\"1969-12-31 23:59:59.999\","
               "\"ltz\":\"2020-07-30 10:08:22Z\"}");
}

T(encode_round_trip_iso_and_specials)
{
    open_fmt("ROW<f FLOAT, d DOUBLE, ts TIMESTAMP(6), ltz TIMESTAMP_LTZ(0), tm TIME(0), n INT, "
             "bi BIGINT>",
             "timestamp-format.standard", "ISO-8601", NULL);
    round_trip("{\"f\":\"NaN\",\"d\":\"-Infinity\",\"ts\":\"2020-07-30T10:08:22.000001\","
               "\"ltz\":\"1970-01-01T00:00:00Z\",\"tm\":\"00:00:00\",\"bi\":9223372036854775807}",
               "+I[NaN, -Infinity, 2020-07-30T10:08:22.000001, 1970-01-01T00:00:00Z, 00:00:00, "
               "null, 9223372036854775807]",
               "{\"f\":\"NaN\",\"d\":\"-Infinity\",\"ts\":\"2020-07-30T10:08:22.000001\","
               "\"ltz\":\"1970-01-01T00:00:00Z\",\"tm\":\"00:00:00\",\"n\":null,"
               "\"bi\":9223372036854775807}");
}

T(encode_round_trip_nested)
{
    open_fmt(NESTED, NULL);
    round_trip("{\"id\":1,\"tags\":[\"a\",null],\"attrs\":{\"k1\":1,\"k2\":null},"
               "\"addr\":{\"city\":\"Paris\",\"zip\":75001},\"m2\":{\"7\":[{\"a\":1},null]},"
               "\"raw\":{\"x\":[1]},\"nums\":[3,2]}",
               "+I[1, [a, null], {k1=1, k2=null}, (Paris, 75001), {7=[(1), null]}, {\"x\":[1]}, "
               "[3, 2]]",
               "{\"id\":1,\"tags\":[\"a\",null],\"attrs\":{\"k1\":1,\"k2\":null},"
               "\"addr\":{\"city\":\"Paris\",\"zip\":75001},\"m2\":{\"7\":[{\"a\":1},null]},"
               "\"raw\":\"{\\\"x\\\":[1]}\",\"nums\":[3,2]}");
}

T(encode_scalar_map_keys)
{
    open_fmt("ROW<a MAP<DATE, BOOLEAN>, b MAP<DECIMAL(4, 1), INT>>", NULL);
    round_trip("{\"a\":{\"2020-07-30\":true},\"b\":{\"1.5\":1,\"-2\":2}}",
               "+I[{2020-07-30=true}, {1.5=1, -2.0=2}]",
               "{\"a\":{\"2020-07-30\":true},\"b\":{\"1.5\":1,\"-2.0\":2}}");
}

T(encode_decimal_notation)
{
    open_fmt("ROW<a DECIMAL(10, 8), b DECIMAL(10, 8), c DECIMAL(12, 10), d DECIMAL(10, 8)>", NULL);
    round_trip("{\"a\":0.00000001,\"b\":0,\"c\":-0.0000001234,\"d\":0.000001}",
               "+I[0.00000001, 0.00000000, -0.0000001234, 0.00000100]",
               "{\"a\":1E-8,\"b\":0E-8,\"c\":-1.234E-7,\"d\":0.00000100}");
}

T(encode_decimal_as_plain_number)
{
    open_fmt("ROW<a DECIMAL(10, 8), b DECIMAL(10, 8)>", "encode.decimal-as-plain-number", "true",
             NULL);
    round_trip("{\"a\":1E-8,\"b\":0}", "+I[0.00000001, 0.00000000]",
               "{\"a\":0.00000001,\"b\":0.00000000}");
}

/* Builds a row with MAP<STRING, INT> {null=1, k=2} and a null field. */
static cdc_row_t *map_row_with_null_key(void)
{
    cdc_batch_reset(&fx.batch);
    cdc_row_t *row = cdc_batch_add(&fx.batch, CDC_INSERT, 2);
    cdc_value_t *keys = cdc_arena_calloc(&fx.batch.arena, 2 * sizeof(cdc_value_t));
    cdc_value_t *vals = cdc_arena_calloc(&fx.batch.arena, 2 * sizeof(cdc_value_t));
    keys[0].flags = CDC_V_NULL;
    keys[1].v.s = (cdc_str_t){"k", 1};
    vals[0].v.i = 1;
    vals[1].v.i = 2;
    row->values[0].flags = 0;
    row->values[0].v.arr = (cdc_array_t){2, keys, vals};
    return row;
}

T(encode_map_null_key_fail)
{
    open_fmt("ROW<m MAP<STRING, INT>, x INT>", NULL);
    cr_assert_str_eq(encode_row(map_row_with_null_key()),
                     "ERROR: JSON format doesn't support to serialize map data with null keys. You "
                     "can drop null key entries or encode null in literals by specifying "
                     "map-null-key.mode option.");
}

T(encode_map_null_key_drop)
{
    open_fmt("ROW<m MAP<STRING, INT>, x INT>", "map-null-key.mode", "DROP", NULL);
    cr_assert_str_eq(encode_row(map_row_with_null_key()), "{\"m\":{\"k\":2},\"x\":null}");
}

T(encode_map_null_key_literal_and_ignore_null_fields)
{
    open_fmt("ROW<m MAP<STRING, INT>, x INT>", "map-null-key.mode", "LITERAL",
             "map-null-key.literal", "N/A", "encode.ignore-null-fields", "true", NULL);
    cr_assert_str_eq(encode_row(map_row_with_null_key()), "{\"m\":{\"N/A\":1,\"k\":2}}");
}

T(encode_only_inserts)
{
    open_fmt("ROW<id INT>", NULL);
    decode("{\"id\":1}");
    fx.batch.rows[0].kind = CDC_UPDATE_BEFORE;
    cr_assert_str_eq(encode_row(&fx.batch.rows[0]),
                     "ERROR: format \"json\" writes only insert (+I) rows, found a -U row");
}

/* ---- MULTISET ------------------------------------------------------------------------------- */

/* A MULTISET is an object element -> count, read and written like a MAP<element, INT NOT NULL>. */
T(multiset_round_trip)
{
    open_fmt("ROW<s MULTISET<STRING>, n INT MULTISET>", NULL);
    round_trip("{\"s\":{\"a\":2,\"b\":1},\"n\":{\"7\":3}}", "+I[{a=2, b=1}, {7=3}]",
               "{\"s\":{\"a\":2,\"b\":1},\"n\":{\"7\":3}}");
    round_trip("{\"s\":{},\"n\":null}", "+I[{}, null]", "{\"s\":{},\"n\":null}");
}

T(multiset_errors_name_the_field)
{
    open_fmt("ROW<s MULTISET<STRING>, n INT MULTISET>", NULL);
    cr_expect_str_eq(decode("{\"s\":[\"a\"]}"),
                     "ERROR: field \"s\": expected an object, found an array");
    cr_expect_str_eq(decode("{\"s\":{\"a\":1.5}}"),
                     "ERROR: field \"s[a]\": expected INT, found number 1.5");
    cr_expect_str_eq(decode("{\"s\":{\"a\":null}}"),
                     "ERROR: field \"s[a]\": expected INT NOT NULL, found null");
    cr_expect_str_eq(decode("{\"n\":{\"x\":1}}"),
                     "ERROR: field \"n\": map key: expected INT, found string \"x\"");
}

Test(json, multiset_elements_must_be_scalars)
{
    expect_refused("ROW<m MULTISET<ROW<a INT>>>",
                   "JSON format doesn't support ROW as key type of a map",
                   "the type is MULTISET<ROW<a INT>>");
}
