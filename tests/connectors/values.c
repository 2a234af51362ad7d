/*
 * tests/connectors/values.c — the "values" test connector: parsing of the
 * "data" option for every scalar type, the exact text of option errors, every
 * source ability (partitions, filters, projection, limit, metadata, row
 * count), changelog-mode, splits, and the sink (enforced changelog mode,
 * printing, materialized tables with and without a primary key).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../connectors/values/cdc_values.h"
#include "cdc_plugin.h"

extern const cdc_connector_factory_t cdc_connector_values;

/* ---- helpers ------------------------------------------------------------------------------ */

typedef struct vt_s {
    cdc_type_t *schema;
    cdc_config_t *cfg;
    cdc_source_t *src;
    cdc_sink_t *sink;
} vt_t;

static void kv_fill(cdc_kv_t *kv, const char *const *pairs)
{
    for (int i = 0; pairs && pairs[i]; i += 2)
        cdc_kv_set(kv, pairs[i], pairs[i + 1]);
}

/* Validates the options with the factory's check callback, as the planner does. */
static int vt_config(vt_t *t, const char *schema, const char *const *pairs, cdc_error_t **err)
{
    memset(t, 0, sizeof(*t));
    t->schema = cdc_type_parse(schema, err);
    cr_assert_not_null(t->schema, "schema: %s", *err ? (*err)->message : "");
    cdc_kv_t kv = {0};
    kv_fill(&kv, pairs);
    cdc_option_scope_t scope = {.defs = cdc_connector_values.options,
                                .prefix = "",
                                .label = "connector \"values\"",
                                .check = cdc_connector_values.check};
    int rc = cdc_options_validate(&scope, 1, &kv, &t->cfg, err);
    cdc_kv_free(&kv);
    return rc;
}

static int vt_try_source(vt_t *t, const char *schema, const char *const *pairs, cdc_error_t **err)
{
    if (vt_config(t, schema, pairs, err) < 0)
        return -1;
    cdc_table_ctx_t ctx = {
        .name = "cat.db.t", .schema = t->schema, .cfg = t->cfg, .parallelism = 1};
    return cdc_connector_values.source_new(&ctx, &t->src, err);
}

static void vt_source(vt_t *t, const char *schema, const char *const *pairs)
{
    cdc_error_t *err = NULL;
    int rc = vt_try_source(t, schema, pairs, &err);
    cr_assert_eq(rc, 0, "source_new: %s / %s", err ? err->message : "",
                 err && err->detail ? err->detail : "");
    cr_assert_not_null(t->src);
}

static void vt_sink(vt_t *t, const char *schema, const int *pk, int npk, const char *const *pairs)
{
    cdc_error_t *err = NULL;
    cr_assert_eq(vt_config(t, schema, pairs, &err), 0, "options: %s",
                 err && err->detail ? err->detail : "");
    cdc_table_ctx_t ctx = {.name = "cat.db.out",
                           .schema = t->schema,
                           .pk = pk,
                           .npk = npk,
                           .cfg = t->cfg,
                           .parallelism = 1};
    cr_assert_eq(cdc_connector_values.sink_new(&ctx, &t->sink, &err), 0, "sink_new: %s",
                 err ? err->message : "");
}

static void vt_close(vt_t *t)
{
    if (t->src)
        t->src->ops->destroy(t->src);
    if (t->sink)
        t->sink->ops->destroy(t->sink);
    cdc_config_destroy(t->cfg);
    cdc_type_destroy(t->schema);
    memset(t, 0, sizeof(*t));
}

/* The detail of the option error of a source made from these options. */
static void assert_source_error(const char *schema, const char *const *pairs, const char *expected)
{
    vt_t t;
    cdc_error_t *err = NULL;
    int rc = vt_try_source(&t, schema, pairs, &err);
    cr_assert_eq(rc, -1, "expected the options to be rejected");
    cr_assert_null(t.src);
    cr_assert_not_null(err);
    cr_assert_eq(err->code, CDC_ERR_OPTION);
    cr_assert_str_eq(err->message, "invalid options for connector \"values\"");
    cr_assert_str_eq(err->detail, expected);
    cdc_error_destroy(err);
    vt_close(&t);
}

/* Polls split `split` of `nsplits` to the end; appends each printed row and "\n". */
static int drain_split(cdc_source_t *src, int split, int nsplits, uint32_t max_rows, cdc_buf_t *out)
{
    cdc_reader_t *reader = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(src->ops->open_reader(src, split, nsplits, &reader, &err), 0);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    int total = 0;
    for (;;) {
        cdc_batch_reset(&batch);
        int rc = reader->ops->poll(reader, &batch, max_rows, &err);
        cr_assert_neq(rc, CDC_POLL_ERROR);
        cr_assert(batch.n <= max_rows);
        if (rc == CDC_POLL_END) {
            cr_assert_eq(batch.n, 0);
            break;
        }
        for (uint32_t i = 0; i < batch.n; i++) {
            cr_assert_eq(batch.rows[i].arity, (uint32_t)src->produced->nchildren);
            cdc_row_print(out, &batch.rows[i], src->produced);
            cdc_buf_putc(out, '\n');
        }
        total += (int)batch.n;
    }
    cdc_batch_free(&batch);
    reader->ops->close(reader);
    return total;
}

/* Every row of a one-split read, printed, one per line. */
static char *drain(cdc_source_t *src)
{
    cdc_buf_t out = {0};
    drain_split(src, 0, 1, 2, &out);
    char *s = strdup(out.data ? cdc_buf_cstr(&out) : "");
    cdc_buf_free(&out);
    return s;
}

static void assert_rows(cdc_source_t *src, const char *expected)
{
    char *got = drain(src);
    cr_assert_str_eq(got, expected);
    free(got);
}

static char *describe(cdc_source_t *src)
{
    cdc_buf_t b = {0};
    src->ops->describe(src, &b);
    char *s = strdup(cdc_buf_cstr(&b));
    cdc_buf_free(&b);
    return s;
}

static void assert_describe(cdc_source_t *src, const char *expected)
{
    char *d = describe(src);
    cr_assert_str_eq(d, expected);
    free(d);
}

#define P(...) ((const char *const[]){__VA_ARGS__, NULL})
#define SCHEMA "ROW<id INT NOT NULL, name STRING, price DECIMAL(10, 2)>"

/* ---- factory ------------------------------------------------------------------------------- */

Test(values, factory_shape)
{
    cr_assert_str_eq(cdc_connector_values.identifier, "values");
    cr_assert_not_null(cdc_connector_values.source_new);
    cr_assert_not_null(cdc_connector_values.sink_new);
    cr_assert_not_null(cdc_connector_values.check);
    for (int i = 0; cdc_connector_values.options[i].key; i++)
        cr_assert(cdc_connector_values.options[i].description &&
                      *cdc_connector_values.options[i].description,
                  "%s", cdc_connector_values.options[i].key);
}

Test(values, unknown_option_is_rejected)
{
    vt_t t;
    cdc_error_t *err = NULL;
    cr_assert_eq(vt_config(&t, SCHEMA, P("dat", "+I[1, a, 1]"), &err), -1);
    cr_assert_str_eq(err->detail, "unknown option \"dat\" (did you mean \"data\"?)");
    cdc_error_destroy(err);
    vt_close(&t);
}

/* ---- data parsing -------------------------------------------------------------------------- */

Test(values, every_scalar_type)
{
    vt_t t;
    vt_source(&t,
              "ROW<b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT, f FLOAT, d DOUBLE, "
              "dec DECIMAL(10, 2), c CHAR(3), s STRING, by BYTES, dt DATE, tm TIME(3), "
              "ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(3)>",
              P("data", "+I[true, -128, 32767, -2147483648, 9223372036854775807, 1.5, 3.14, "
                        "1.5, abc, scooter, x'0a1b', 2020-07-30, 10:08:22.5, "
                        "2020-07-30T10:08:22.123, 2020-07-30T10:08:22.123Z]; "
                        "+I[FALSE, 0, 0, 0, 0, 2, -1e300, -0.004, x, '', '\x01', 1970-01-01, "
                        "00:00, 2020-07-30 10:08, 2020-07-30T12:08:22+02:00]; "
                        "+I[null, null, null, null, null, null, null, null, null, null, null, "
                        "null, null, null, null]"));
    assert_rows(t.src,
                "+I[true, -128, 32767, -2147483648, 9223372036854775807, 1.5, 3.14, 1.50, abc, "
                "scooter, x'0a1b', 2020-07-30, 10:08:22.500, 2020-07-30T10:08:22.123, "
                "2020-07-30T10:08:22.123Z]\n"
                "+I[false, 0, 0, 0, 0, 2.0, -1.0E300, 0.00, x, , x'01', 1970-01-01, "
                "00:00:00.000, 2020-07-30T10:08:00.000, 2020-07-30T10:08:22.000Z]\n"
                "+I[null, null, null, null, null, null, null, null, null, null, null, null, "
                "null, null, null]\n");
    vt_close(&t);
}

Test(values, quoted_strings_and_null)
{
    vt_t t;
    vt_source(&t, "ROW<a STRING, b STRING>",
              P("data", "+I['big, scooter', 'it''s']; +I[' padded ', 'a;b]c']; "
                        "+I['null', null];+I[  spaced out  ,NULL]"));
    assert_rows(t.src, "+I[big, scooter, it's]\n"
                       "+I[ padded , a;b]c]\n"
                       "+I[null, null]\n"
                       "+I[spaced out, null]\n");
    /* the value of 'null' is the text, not NULL */
    cdc_reader_t *r = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(t.src->ops->open_reader(t.src, 0, 1, &r, &err), 0);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    cr_assert_eq(r->ops->poll(r, &batch, 10, &err), CDC_POLL_OK);
    cr_assert_eq(batch.n, 4);
    cr_assert_not(cdc_value_is_null(&batch.rows[2].values[0]));
    cr_assert(cdc_value_is_null(&batch.rows[2].values[1]));
    cr_assert_eq(r->ops->poll(r, &batch, 10, &err), CDC_POLL_END);
    r->ops->close(r);
    cdc_batch_free(&batch);
    vt_close(&t);
}

Test(values, kinds_and_empty_data)
{
    vt_t t;
    vt_source(&t, SCHEMA,
              P("changelog-mode", "I,UB,UA,D", "data",
                "+I[1, scooter, 3.14]; -U[1, scooter, 3.14]; +U[1, 'big, scooter', 5.5]; "
                "-D[2, null, null];"));
    cr_assert_eq(t.src->ops->changelog_mode(t.src), CDC_MODE_ALL);
    assert_rows(t.src, "+I[1, scooter, 3.14]\n"
                       "-U[1, scooter, 3.14]\n"
                       "+U[1, big, scooter, 5.50]\n"
                       "-D[2, null, null]\n");
    cr_assert_eq(t.src->ops->report_row_count(t.src), 4);
    vt_close(&t);

    vt_source(&t, SCHEMA, NULL);
    cr_assert_eq(t.src->ops->changelog_mode(t.src), CDC_MODE_INSERT_ONLY);
    assert_rows(t.src, "");
    cr_assert_eq(t.src->ops->report_row_count(t.src), 0);
    vt_close(&t);

    vt_source(&t, SCHEMA, P("changelog-mode", " ua , i,d", "data", "  ;  "));
    cr_assert_eq(t.src->ops->changelog_mode(t.src), CDC_MODE_UPSERT);
    vt_close(&t);
}

/* ---- option errors ----------------------------------------------------------------------- */

Test(values, error_bad_value)
{
    assert_source_error(SCHEMA, P("data", "+I[1, a, 1]; +I[2, b, 2]; +I[3, c, abc]"),
                        "option \"data\": row 3, field \"price\": expected DECIMAL(10, 2), found "
                        "\"abc\"");
    assert_source_error(SCHEMA, P("data", "+I[null, a, 1]"),
                        "option \"data\": row 1, field \"id\": expected INT NOT NULL, found null");
    assert_source_error("ROW<a TINYINT, b DATE, c BOOLEAN, d VARCHAR(2), e BYTES>",
                        P("data", "+I[128, 1, 1, ab, x'0']; +I[1, 2020-13-01, 1, ab, x'00']; "
                                  "+I[1, 2020-01-01, yes, ab, x'00']; "
                                  "+I[1, 2020-01-01, true, abc, x'00']; "
                                  "+I[1, 2020-01-01, true, ab, x'0g']"),
                        "option \"data\": row 1, field \"a\": expected TINYINT, found \"128\"\n"
                        "option \"data\": row 2, field \"b\": expected DATE, found "
                        "\"2020-13-01\"\n"
                        "option \"data\": row 3, field \"c\": expected BOOLEAN, found \"yes\"\n"
                        "option \"data\": row 4, field \"d\": expected VARCHAR(2), found \"abc\"\n"
                        "option \"data\": row 5, field \"e\": expected BYTES, found \"x'0g'\"");
    assert_source_error("ROW<a ARRAY<INT>>", P("data", "+I[null]; +I[[1]]"),
                        "option \"data\": row 2, field \"a\": values of type ARRAY<INT> are not "
                        "supported (only null)");
}

Test(values, error_row_shape)
{
    assert_source_error(SCHEMA, P("data", "+I[1, a]"),
                        "option \"data\": row 1: expected 3 fields, found 2");
    assert_source_error(SCHEMA, P("data", "+I[1, a, 1]; [2, b, 2]"),
                        "option \"data\": row 2: expected a change kind (+I, -U, +U or -D), "
                        "found \"[2, b, 2]\"");
    assert_source_error(SCHEMA, P("data", "*I[1, a, 1]"),
                        "option \"data\": row 1: expected a change kind (+I, -U, +U or -D), "
                        "found \"*I[1, a, 1]\"");
    assert_source_error(SCHEMA, P("data", "+I 1, a, 1]"),
                        "option \"data\": row 1: expected \"[\", found \"1, a, 1]\"");
    assert_source_error(SCHEMA, P("data", "+I[1, a, 1"),
                        "option \"data\": row 1: expected \",\" or \"]\" after field 3, found "
                        "the end of the text");
    assert_source_error(SCHEMA, P("data", "+I[1, a; 1]"),
                        "option \"data\": row 1: expected \",\" or \"]\" after field 2, found "
                        "\"; 1]\"");
    assert_source_error(SCHEMA, P("data", "+I[1, a, 1] +I[2, b, 2]"),
                        "option \"data\": row 1: expected \";\" after \"]\", found \"+I[2, b, "
                        "2]\"");
    assert_source_error(SCHEMA, P("data", "+I[1, 'a, 1]"),
                        "option \"data\": row 1, field 2: unterminated quoted string");
}

Test(values, error_kind_outside_changelog_mode)
{
    assert_source_error(SCHEMA, P("data", "+I[1, a, 1]; -U[1, a, 1]; +U[1, a, 2]"),
                        "option \"data\": row 2: kind -U is not in changelog-mode [I]\n"
                        "option \"data\": row 3: kind +U is not in changelog-mode [I]");
    assert_source_error(SCHEMA, P("changelog-mode", "I,UA", "data", "+I[1, a, 1]; -D[1, a, 1]"),
                        "option \"data\": row 2: kind -D is not in changelog-mode [I,UA]");
}

Test(values, error_option_texts)
{
    assert_source_error(SCHEMA, P("changelog-mode", "I,UX"),
                        "option \"changelog-mode\": unknown change kind \"UX\" (expected a comma "
                        "list of I, UB, UA, D)");
    assert_source_error(SCHEMA, P("sink-changelog-mode-enforced", "I,,D"),
                        "option \"sink-changelog-mode-enforced\": unknown change kind \"\" "
                        "(expected a comma list of I, UB, UA, D)");
    assert_source_error(SCHEMA, P("partition-list", "id:1,name;id:2"),
                        "option \"partition-list\": expected \"key:value\", found \"name\"");
    assert_source_error(SCHEMA, P("partition-list", "id:1,nope:x;id:zz"),
                        "option \"partition-list\": \"nope\" is not a physical column\n"
                        "option \"partition-list\": partition 2, key \"id\": expected INT NOT "
                        "NULL, found \"zz\"");
    assert_source_error(SCHEMA, P("filterable-fields", "id;nope"),
                        "option \"filterable-fields\": unknown column \"nope\"");
    assert_source_error(SCHEMA, P("metadata-data", "[1]"),
                        "option \"metadata-data\": needs option \"readable-metadata\"");
    assert_source_error(SCHEMA, P("readable-metadata", "k:INT,k2"),
                        "option \"readable-metadata\": expected \"key:TYPE\", found \"k2\"");
    assert_source_error(
        SCHEMA,
        P("data", "+I[1, a, 1]; +I[2, b, 2]", "readable-metadata", "k:INT", "metadata-data", "[1]"),
        "option \"metadata-data\": expected one row per data row (2), found 1");
    /* several problems at once */
    assert_source_error(SCHEMA, P("data", "+I[1, a, x]; +I[2, b]", "filterable-fields", "zz"),
                        "option \"data\": row 1, field \"price\": expected DECIMAL(10, 2), found "
                        "\"x\"\n"
                        "option \"data\": row 2: expected 3 fields, found 2\n"
                        "option \"filterable-fields\": unknown column \"zz\"");
}

/* ---- abilities ----------------------------------------------------------------------------- */

#define DATA5 "+I[1, a, 1.5]; +I[2, b, null]; +I[3, null, 3]; +I[4, d, 4]; +I[5, e, 5]"

Test(values, projection)
{
    vt_t t;
    vt_source(&t, SCHEMA, P("data", DATA5));
    int fields[] = {2, 0};
    cr_assert_eq(t.src->ops->apply_projection(t.src, fields, 2), 0);
    char *ty = cdc_type_to_string(t.src->produced);
    cr_assert_str_eq(ty, "ROW<price DECIMAL(10, 2), id INT NOT NULL>");
    free(ty);
    int again[] = {1};
    cr_assert_eq(t.src->ops->apply_projection(t.src, again, 1), 0);
    assert_rows(t.src, "+I[1]\n+I[2]\n+I[3]\n+I[4]\n+I[5]\n");
    assert_describe(t.src, "values(rows=5, project=[id])");
    int bad[] = {1};
    cr_assert_eq(t.src->ops->apply_projection(t.src, bad, 1), -1);
    cr_assert_eq(t.src->ops->apply_projection(t.src, NULL, 0), 0);
    assert_rows(t.src, "+I[]\n+I[]\n+I[]\n+I[]\n+I[]\n");
    vt_close(&t);

    vt_source(&t, SCHEMA, P("data", DATA5, "enable-projection-push-down", "false"));
    cr_assert_eq(t.src->ops->apply_projection(t.src, fields, 2), -1);
    cr_assert_eq(t.src->produced->nchildren, 3);
    assert_describe(t.src, "values(rows=5)");
    vt_close(&t);
}

Test(values, filters_only_on_filterable_fields)
{
    vt_t t;
    vt_source(&t, SCHEMA, P("data", DATA5, "filterable-fields", "price; name"));
    cdc_filter_t f[3] = {0};
    f[0].field = 0; /* id: not filterable */
    f[0].op = CDC_FILTER_GT;
    f[0].value.v.i = 1;
    f[0].text = "id > 1";
    f[1].field = 2;
    f[1].op = CDC_FILTER_GE;
    f[1].value.v.dec = 300; /* 3.00 */
    f[1].text = "price >= 3";
    f[2].field = 1;
    f[2].op = CDC_FILTER_IS_NOT_NULL;
    f[2].text = "name IS NOT NULL";
    bool accepted[3] = {true, false, false};
    cr_assert_eq(t.src->ops->apply_filters(t.src, f, 3, accepted), 0);
    cr_assert_not(accepted[0]);
    cr_assert(accepted[1]);
    cr_assert(accepted[2]);
    assert_rows(t.src, "+I[4, d, 4.00]\n+I[5, e, 5.00]\n");
    cr_assert_eq(t.src->ops->report_row_count(t.src), 2);
    assert_describe(t.src, "values(rows=5, filter=[price >= 3, name IS NOT NULL])");
    vt_close(&t);
}

Test(values, filter_semantics)
{
    static const struct {
        cdc_filter_op_t op;
        const char *expected;
    } cases[] = {
        {CDC_FILTER_EQ, "+I[2, b]\n"},
        {CDC_FILTER_NE, "+I[1, a]\n+I[4, d]\n"},
        {CDC_FILTER_LT, "+I[1, a]\n"},
        {CDC_FILTER_LE, "+I[1, a]\n+I[2, b]\n"},
        {CDC_FILTER_GT, "+I[4, d]\n"},
        {CDC_FILTER_GE, "+I[2, b]\n+I[4, d]\n"},
        {CDC_FILTER_IS_NULL, "+I[3, null]\n"},
        {CDC_FILTER_IS_NOT_NULL, "+I[1, a]\n+I[2, b]\n+I[4, d]\n"},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        vt_t t;
        vt_source(
            &t, "ROW<id INT, name STRING>",
            P("data", "+I[1, a]; +I[2, b]; +I[3, null]; +I[4, d]", "filterable-fields", "name"));
        char lit[] = "b";
        cdc_filter_t f = {.field = 1, .op = cases[c].op, .text = "name ? 'b'"};
        f.value.v.s.ptr = lit;
        f.value.v.s.len = 1;
        bool accepted = false;
        t.src->ops->apply_filters(t.src, &f, 1, &accepted);
        cr_assert(accepted);
        lit[0] = 'z'; /* the source keeps its own copy */
        assert_rows(t.src, cases[c].expected);
        vt_close(&t);
    }
}

Test(values, limit)
{
    vt_t t;
    vt_source(&t, SCHEMA, P("data", DATA5));
    cr_assert_eq(t.src->ops->apply_limit(t.src, 3), 0);
    cr_assert_eq(t.src->ops->apply_limit(t.src, 7), 0); /* the smaller one stays */
    cr_assert_eq(t.src->ops->apply_limit(t.src, -1), -1);
    assert_rows(t.src, "+I[1, a, 1.50]\n+I[2, b, null]\n+I[3, null, 3.00]\n");
    /* split over the limited rows: 3 rows in 2 splits */
    cdc_buf_t b = {0};
    cr_assert_eq(drain_split(t.src, 0, 2, 10, &b), 1);
    cr_assert_eq(drain_split(t.src, 1, 2, 10, &b), 2);
    cdc_buf_free(&b);
    assert_describe(t.src, "values(rows=5, limit=3)");
    vt_close(&t);

    vt_source(&t, SCHEMA, P("data", DATA5, "enable-limit-push-down", "false"));
    cr_assert_eq(t.src->ops->apply_limit(t.src, 3), -1);
    cr_assert_eq(t.src->ops->report_row_count(t.src), 5);
    vt_close(&t);
}

Test(values, partitions)
{
    vt_t t;
    vt_source(&t, "ROW<id INT, region STRING, day DATE>",
              P("data",
                "+I[1, eu, 2020-07-30]; +I[2, us, 2020-07-30]; +I[3, eu, 2020-07-31]; "
                "+I[4, eu, 2020-07-30]; +I[5, asia, 2020-07-30]",
                "partition-list",
                "region:eu,day:2020-07-30;region:us,day:2020-07-30; "
                "region:eu, day:2020-07-31"));
    cdc_kv_t *parts = NULL;
    int nparts = 0;
    cdc_error_t *err = NULL;
    cr_assert_eq(t.src->ops->list_partitions(t.src, &parts, &nparts, &err), 0);
    cr_assert_eq(nparts, 3);
    cr_assert_str_eq(cdc_kv_get(&parts[0], "region"), "eu");
    cr_assert_str_eq(cdc_kv_get(&parts[0], "day"), "2020-07-30");
    cr_assert_str_eq(cdc_kv_get(&parts[1], "region"), "us");
    cr_assert_str_eq(cdc_kv_get(&parts[2], "day"), "2020-07-31");
    cr_assert_eq(t.src->ops->report_row_count(t.src), 5);

    /* keep the eu partitions */
    cdc_kv_t kept[2] = {0};
    cdc_kv_copy(&kept[0], &parts[2]);
    cdc_kv_copy(&kept[1], &parts[0]);
    cr_assert_eq(t.src->ops->apply_partitions(t.src, kept, 2, &err), 0);
    assert_rows(t.src, "+I[1, eu, 2020-07-30]\n+I[3, eu, 2020-07-31]\n+I[4, eu, 2020-07-30]\n");
    cr_assert_eq(t.src->ops->report_row_count(t.src), 3);
    assert_describe(t.src, "values(rows=5, partitions=[{region=eu, day=2020-07-30}, "
                           "{region=eu, day=2020-07-31}])");

    /* a partition that is not listed */
    cdc_kv_t other = {0};
    cdc_kv_set(&other, "region", "mars");
    cr_assert_eq(t.src->ops->apply_partitions(t.src, &other, 1, &err), -1);
    cr_assert_eq(err->code, CDC_ERR_PLAN);
    cr_assert_str_eq(err->message, "values: {region=mars} is not a partition of table "
                                   "\"cat.db.t\"");
    cdc_error_destroy(err);
    err = NULL;

    /* no partition at all */
    cr_assert_eq(t.src->ops->apply_partitions(t.src, NULL, 0, &err), 0);
    assert_rows(t.src, "");
    cr_assert_eq(t.src->ops->report_row_count(t.src), 0);

    cdc_kv_free(&other);
    cdc_kv_free(&kept[0]);
    cdc_kv_free(&kept[1]);
    for (int i = 0; i < nparts; i++)
        cdc_kv_free(&parts[i]);
    free(parts);
    vt_close(&t);
}

Test(values, splits_take_contiguous_ranges)
{
    vt_t t;
    vt_source(&t, "ROW<id INT>",
              P("data", "+I[0];+I[1];+I[2];+I[3];+I[4];+I[5];+I[6];+I[7];+I[8];+I[9]"));
    const char *expected[3] = {"+I[0]\n+I[1]\n+I[2]\n", "+I[3]\n+I[4]\n+I[5]\n",
                               "+I[6]\n+I[7]\n+I[8]\n+I[9]\n"};
    for (int k = 0; k < 3; k++) {
        cdc_buf_t b = {0};
        drain_split(t.src, k, 3, 2, &b);
        cr_assert_str_eq(cdc_buf_cstr(&b), expected[k]);
        cdc_buf_free(&b);
    }
    cdc_reader_t *r = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(t.src->ops->open_reader(t.src, 3, 3, &r, &err), -1);
    cr_assert_str_eq(err->message, "values: bad split 3 of 3");
    cdc_error_destroy(err);
    vt_close(&t);
}

Test(values, unbounded_stays_open)
{
    vt_t t;
    vt_source(&t, "ROW<id INT>", P("data", "+I[1]", "bounded", "false"));
    cdc_reader_t *r = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(t.src->ops->open_reader(t.src, 0, 1, &r, &err), 0);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    cr_assert_eq(r->ops->poll(r, &batch, 10, &err), CDC_POLL_OK);
    cr_assert_eq(batch.n, 1);
    for (int i = 0; i < 3; i++) {
        cdc_batch_reset(&batch);
        cr_assert_eq(r->ops->poll(r, &batch, 10, &err), CDC_POLL_OK);
        cr_assert_eq(batch.n, 0);
    }
    cdc_batch_free(&batch);
    r->ops->close(r);
    assert_describe(t.src, "values(rows=1, unbounded)");
    vt_close(&t);
}

Test(values, metadata)
{
    vt_t t;
    vt_source(&t, SCHEMA,
              P("data", "+I[1, a, 1]; +I[2, b, 2]", "readable-metadata",
                "topic:STRING, offset:BIGINT,amount:DECIMAL(5, 1)", "metadata-data",
                "['orders', 10, 1.5]; +I[orders, 11, null]"));
    int fields[] = {0};
    cr_assert_eq(t.src->ops->apply_projection(t.src, fields, 1), 0);
    const char *keys[] = {"offset", "topic"};
    cdc_error_t *err = NULL;
    cr_assert_eq(t.src->ops->apply_metadata(t.src, keys, 2, &err), 0);
    char *ty = cdc_type_to_string(t.src->produced);
    cr_assert_str_eq(ty, "ROW<id INT NOT NULL, offset BIGINT, topic STRING>");
    free(ty);
    assert_rows(t.src, "+I[1, 10, orders]\n+I[2, 11, orders]\n");
    assert_describe(t.src, "values(rows=2, project=[id], metadata=[offset, topic])");

    const char *bad[] = {"partition"};
    cr_assert_eq(t.src->ops->apply_metadata(t.src, bad, 1, &err), -1);
    cr_assert_str_eq(err->message,
                     "values: table \"cat.db.t\" offers no metadata key \"partition\"");
    cr_assert_str_eq(err->detail, "readable metadata: topic, offset, amount");
    cdc_error_destroy(err);
    vt_close(&t);

    /* without metadata-data the values are NULL */
    vt_source(&t, "ROW<id INT>", P("data", "+I[1]", "readable-metadata", "k:INT"));
    const char *k[] = {"k"};
    err = NULL;
    cr_assert_eq(t.src->ops->apply_metadata(t.src, k, 1, &err), 0);
    assert_rows(t.src, "+I[1, null]\n");
    vt_close(&t);
}

Test(values, describe_everything)
{
    vt_t t;
    vt_source(&t, SCHEMA,
              P("data", DATA5, "partition-list", "name:a;name:b", "filterable-fields", "id",
                "readable-metadata", "k:INT", "bounded", "false"));
    cdc_kv_t part = {0};
    cdc_kv_set(&part, "name", "b");
    cdc_error_t *err = NULL;
    cr_assert_eq(t.src->ops->apply_partitions(t.src, &part, 1, &err), 0);
    cdc_kv_free(&part);
    cdc_filter_t f = {.field = 0, .op = CDC_FILTER_LT, .text = "id < 10"};
    f.value.v.i = 10;
    bool acc = false;
    t.src->ops->apply_filters(t.src, &f, 1, &acc);
    int fields[] = {0, 1};
    t.src->ops->apply_projection(t.src, fields, 2);
    t.src->ops->apply_limit(t.src, 4);
    const char *keys[] = {"k"};
    t.src->ops->apply_metadata(t.src, keys, 1, &err);
    assert_describe(t.src, "values(rows=5, partitions=[{name=b}], filter=[id < 10], "
                           "project=[id, name], limit=4, metadata=[k], unbounded)");
    cr_assert_eq(t.src->ops->report_row_count(t.src), 1);
    vt_close(&t);
}

/* ---- the sink ------------------------------------------------------------------------------- */

/* Rows of a values source (any kinds), written to w in batches of `per_batch`. */
static void write_rows(cdc_writer_t *w, const char *schema, const char *data, uint32_t per_batch)
{
    vt_t s;
    vt_source(&s, schema, P("changelog-mode", "I,UB,UA,D", "data", data));
    cdc_reader_t *r = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(s.src->ops->open_reader(s.src, 0, 1, &r, &err), 0);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    for (;;) {
        cdc_batch_reset(&batch);
        if (r->ops->poll(r, &batch, per_batch, &err) == CDC_POLL_END)
            break;
        cr_assert_eq(w->ops->write(w, &batch, &err), 0, "write: %s", err ? err->message : "");
    }
    cdc_batch_free(&batch);
    r->ops->close(r);
    vt_close(&s);
}

typedef struct capture_s {
    char *text;
    size_t len;
    FILE *f;
} capture_t;

static void capture_open(capture_t *c, cdc_sink_t *sink)
{
    memset(c, 0, sizeof(*c));
    c->f = open_memstream(&c->text, &c->len);
    cr_assert_not_null(c->f);
    cr_assert_eq(cdc_values_sink_set_stream(sink, c->f), 0);
}

static void capture_check(capture_t *c, const char *expected)
{
    fflush(c->f);
    cr_assert_str_eq(c->text ? c->text : "", expected);
}

static void capture_close(capture_t *c)
{
    fclose(c->f);
    free(c->text);
}

Test(values, sink_enforced_changelog_mode)
{
    vt_t t;
    vt_sink(&t, SCHEMA, NULL, 0, P("sink-changelog-mode-enforced", "I, UA,D"));
    cr_assert_eq(t.sink->ops->changelog_mode(t.sink, CDC_MODE_ALL), CDC_MODE_UPSERT);
    cr_assert_eq(t.sink->ops->changelog_mode(t.sink, CDC_MODE_INSERT_ONLY), CDC_MODE_INSERT_ONLY);
    cr_assert_eq(t.sink->ops->changelog_mode(t.sink, CDC_MODE_BIT(CDC_UPDATE_BEFORE)), 0);
    /* a row of a kind it does not accept is an error */
    capture_t c;
    capture_open(&c, t.sink);
    cdc_writer_t *w = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(t.sink->ops->open_writer(t.sink, 0, 1, &w, &err), 0);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    cdc_row_t *row = cdc_batch_add(&batch, CDC_UPDATE_BEFORE, 3);
    row->values[0].flags = 0;
    row->values[0].v.i = 1;
    cr_assert_eq(w->ops->write(w, &batch, &err), -1);
    cr_assert_str_eq(err->message, "values: table \"cat.db.out\" received a -U row but accepts "
                                   "only [I,UA,D]");
    cdc_error_destroy(err);
    cdc_batch_free(&batch);
    w->ops->close(w);
    capture_check(&c, "");
    capture_close(&c);
    vt_close(&t);

    vt_sink(&t, SCHEMA, NULL, 0, NULL);
    cr_assert_eq(t.sink->ops->changelog_mode(t.sink, CDC_MODE_ALL), CDC_MODE_ALL);
    cr_assert_eq(t.sink->ops->changelog_mode(t.sink, CDC_MODE_UPSERT), CDC_MODE_UPSERT);
    vt_close(&t);
}

Test(values, sink_prints_each_row)
{
    vt_t t;
    vt_sink(&t, SCHEMA, NULL, 0, P("print-identifier", "out"));
    cdc_error_t *err = NULL;
    cr_assert_eq(t.sink->ops->apply_overwrite(t.sink, true, &err), 0);
    cdc_kv_t part = {0};
    cdc_kv_set(&part, "name", "x");
    cdc_kv_set(&part, "day", "2020-07-30");
    cr_assert_eq(t.sink->ops->apply_static_partition(t.sink, &part, &err), 0);
    cdc_kv_free(&part);
    capture_t c;
    capture_open(&c, t.sink);
    cdc_writer_t *w = NULL;
    cr_assert_eq(t.sink->ops->open_writer(t.sink, 0, 1, &w, &err), 0);
    write_rows(w, SCHEMA, "+I[1, a, 1]; -U[1, a, 1]; +U[1, b, 2]; -D[1, b, 2]", 3);
    cr_assert_eq(w->ops->flush(w, &err), 0);
    w->ops->close(w);
    capture_check(&c, "out> overwrite\n"
                      "out> partition(name=x, day=2020-07-30)\n"
                      "out> +I[1, a, 1.00]\n"
                      "out> -U[1, a, 1.00]\n"
                      "out> +U[1, b, 2.00]\n"
                      "out> -D[1, b, 2.00]\n");
    capture_close(&c);
    vt_close(&t);

    /* parallel writers number their lines as the print connector does */
    vt_sink(&t, "ROW<id INT>", NULL, 0, NULL);
    capture_open(&c, t.sink);
    cdc_writer_t *w2 = NULL;
    cr_assert_eq(t.sink->ops->open_writer(t.sink, 1, 2, &w2, &err), 0);
    write_rows(w2, "ROW<id INT>", "+I[7]", 10);
    w2->ops->close(w2);
    capture_check(&c, "2> +I[7]\n");
    capture_close(&c);
    vt_close(&t);
}

Test(values, materialize_with_primary_key)
{
    vt_t t;
    int pk[] = {0};
    vt_sink(&t, SCHEMA, pk, 1, P("sink.materialize", "true", "print-identifier", "m"));
    cdc_error_t *err = NULL;
    cdc_kv_t part = {0};
    cdc_kv_set(&part, "name", "x");
    t.sink->ops->apply_static_partition(t.sink, &part, &err);
    cdc_kv_free(&part);
    capture_t c;
    capture_open(&c, t.sink);
    cdc_writer_t *w = NULL;
    cr_assert_eq(t.sink->ops->open_writer(t.sink, 0, 1, &w, &err), 0);
    write_rows(w, SCHEMA,
               "+I[3, c, 3]; +I[1, a, 1]; +I[2, b, 2]; "
               "-U[1, a, 1]; +U[1, 'a2', 10]; " /* update through a -U/+U pair */
               "+U[2, b2, 20]; "                /* upsert without -U */
               "-D[3, c, 3]; "                  /* delete */
               "-D[9, z, 9]; "                  /* absent key: nothing to do */
               "+I[4, null, null]",
               2);
    capture_check(&c, ""); /* nothing before close */
    w->ops->close(w);
    capture_check(&c, "m> partition(name=x)\n"
                      "m> +I[1, a2, 10.00]\n"
                      "m> +I[2, b2, 20.00]\n"
                      "m> +I[4, null, null]\n");
    cr_assert_eq(cdc_values_sink_errors(t.sink), 0);
    capture_close(&c);
    vt_close(&t);
}

Test(values, materialize_without_primary_key)
{
    vt_t t;
    vt_sink(&t, SCHEMA, NULL, 0, P("sink.materialize", "true"));
    capture_t c;
    capture_open(&c, t.sink);
    cdc_writer_t *w = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(t.sink->ops->open_writer(t.sink, 0, 1, &w, &err), 0);
    write_rows(w, SCHEMA,
               "+I[2, b, 2]; +I[1, a, 1]; +I[1, a, 1]; +I[10, j, 1]; "
               "-U[1, a, 1]; +U[1, a, 5]; " /* one of the two equal rows changes */
               "-D[10, j, 1]; "
               "-D[7, none, 7]; " /* absent: an error, counted */
               "+U[3, null, 3]",
               3);
    w->ops->close(w);
    capture_check(&c, "+I[1, a, 1.00]\n"
                      "+I[1, a, 5.00]\n"
                      "+I[2, b, 2.00]\n"
                      "+I[3, null, 3.00]\n");
    cr_assert_eq(cdc_values_sink_errors(t.sink), 1);
    capture_close(&c);
    vt_close(&t);
}

Test(values, materialize_shares_state_between_writers)
{
    vt_t t;
    int pk[] = {0};
    vt_sink(&t, "ROW<id INT NOT NULL, v STRING>", pk, 1, P("sink.materialize", "true"));
    capture_t c;
    capture_open(&c, t.sink);
    cdc_error_t *err = NULL;
    cdc_writer_t *w1 = NULL, *w2 = NULL;
    cr_assert_eq(t.sink->ops->open_writer(t.sink, 0, 2, &w1, &err), 0);
    write_rows(w1, "ROW<id INT NOT NULL, v STRING>", "+I[1, a]; +I[2, b]", 10);
    w1->ops->close(w1); /* closes before the other subtask opens: nothing printed yet */
    capture_check(&c, "");
    cr_assert_eq(t.sink->ops->open_writer(t.sink, 1, 2, &w2, &err), 0);
    write_rows(w2, "ROW<id INT NOT NULL, v STRING>", "-D[1, a]; +I[3, c]; +U[2, bb]", 10);
    w2->ops->close(w2);
    capture_check(&c, "+I[2, bb]\n+I[3, c]\n");
    capture_close(&c);
    vt_close(&t);
}

Test(values, sink_hooks_reject_other_sinks)
{
    cdc_sink_t fake = {0};
    cr_assert_eq(cdc_values_sink_set_stream(&fake, stdout), -1);
    cr_assert_eq(cdc_values_sink_errors(&fake), -1);
    cr_assert_eq(cdc_values_sink_set_stream(NULL, stdout), -1);
}

/* ---- lookups (LookupTableSource) ------------------------------------------------------------ */

/* The rows a lookup of `keys` on key columns `fields` returns, printed one per line. */
static void lookup_print(cdc_source_t *src, const int *fields, int nkeys, const cdc_value_t *keys,
                         cdc_buf_t *out)
{
    cdc_lookup_t *lk = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(src->ops->open_lookup(src, fields, nkeys, &lk, &err), 0);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    cr_assert_eq(lk->ops->lookup(lk, keys, &batch, &err), 0);
    for (uint32_t i = 0; i < batch.n; i++) {
        cdc_row_print(out, &batch.rows[i], src->produced);
        cdc_buf_putc(out, '\n');
    }
    cdc_batch_free(&batch);
    lk->ops->close(lk);
}

static cdc_value_t str_value(const char *s)
{
    cdc_value_t v = {0};
    v.v.s.ptr = s;
    v.v.s.len = (uint32_t)strlen(s);
    return v;
}

Test(values, lookup_matches_every_row_of_a_key)
{
    vt_t t;
    vt_source(&t, "ROW<k INT, tag STRING, name STRING>",
              (const char *const[]){"data",
                                    "+I[10, a, ten]; +I[20, b, twenty]; +I[10, b, dix]; "
                                    "+I[null, a, nothing]",
                                    NULL});
    cdc_buf_t out = {0};
    cdc_value_t k = {.v.i = 10};
    lookup_print(t.src, (const int[]){0}, 1, &k, &out);
    cr_expect_str_eq(cdc_buf_cstr(&out), "+I[10, a, ten]\n+I[10, b, dix]\n");
    cdc_buf_clear(&out);
    k.v.i = 30;
    lookup_print(t.src, (const int[]){0}, 1, &k, &out);
    cr_expect_str_eq(cdc_buf_cstr(&out), "");
    /* two keys, in the order asked for (tag, then k) */
    cdc_value_t keys[2] = {str_value("b"), {.v.i = 10}};
    cdc_buf_clear(&out);
    lookup_print(t.src, (const int[]){1, 0}, 2, keys, &out);
    cr_expect_str_eq(cdc_buf_cstr(&out), "+I[10, b, dix]\n");
    cdc_buf_free(&out);
    vt_close(&t);
}

Test(values, lookup_ignores_scan_pushdown_and_deleted_rows)
{
    vt_t t;
    vt_source(&t, "ROW<k INT, name STRING>",
              (const char *const[]){"data", "+I[1, a]; +I[2, b]; -D[1, a]; +U[1, c]",
                                    "changelog-mode", "I,UA,D", NULL});
    /* a projection and a limit pushed for a scan leave lookups whole */
    cr_assert_eq(t.src->ops->apply_projection(t.src, (const int[]){1}, 1), 0);
    cr_assert_eq(t.src->ops->apply_limit(t.src, 1), 0);
    cdc_lookup_t *lk = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(t.src->ops->open_lookup(t.src, (const int[]){0}, 1, &lk, &err), 0);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    cdc_value_t k = {.v.i = 1};
    cr_assert_eq(lk->ops->lookup(lk, &k, &batch, &err), 0);
    cr_assert_eq(batch.n, 2, "the +I and +U rows of key 1, not the -D one");
    cr_expect_eq(batch.rows[0].arity, 2);
    cr_expect_eq(batch.rows[1].values[1].v.s.len, 1);
    cr_expect_eq(batch.rows[1].values[1].v.s.ptr[0], 'c');
    cdc_batch_free(&batch);
    lk->ops->close(lk);
    vt_close(&t);
}

Test(values, lookup_key_must_be_comparable)
{
    vt_t t;
    vt_source(&t, "ROW<k INT, tags ARRAY<STRING>>", (const char *const[]){"data", "", NULL});
    cdc_lookup_t *lk = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(t.src->ops->open_lookup(t.src, (const int[]){1}, 1, &lk, &err), -1);
    cr_assert_null(lk);
    cr_expect_str_eq(err->message,
                     "values: column \"tags\" of table \"cat.db.t\" cannot be a "
                     "lookup key (ARRAY, MAP, MULTISET and ROW values are not compared)");
    cdc_error_destroy(err);
    vt_close(&t);
}
