/*
 * tests/formats/canal_json.c — the canal-json format through the registry:
 * every Flink conformance case (rows, include filters, INIT, metadata,
 * serialization, the older data file), the envelope rules (old overlay, DDL,
 * unknown types), options, errors with their exact texts, and robustness.
 */
#include "cdcjson_testkit.h"

#define T(name) Test(canal_json, name, .fini = cjt_close)

#define CANAL_META "database,table,sql-type,pk-names,ingestion-timestamp,event-timestamp"

/* ---- conformance (tests/conformance/flink-json, EXPECTED.md part D) ------------------ */

T(conformance_canal_data)
{
    cjt_open("canal-json", CJT_SCHEMA, NULL, "timestamp-format.standard", "ISO-8601", NULL);
    cr_assert_eq(cjt_decode_file("canal-data.txt"), 11);
    cr_assert_eq(cjt.batch.n, 26);
    cjt_expect_rows_file("expected/canal.rows.bracket.txt");
}

T(conformance_canal_filter_table)
{
    cjt_open("canal-json", CJT_SCHEMA, NULL, "database.include", "^my.*", "table.include",
             "^prod.*", NULL);
    cjt_decode_file("canal-data-filter-table.txt");
    cjt_expect_rows_file("expected/canal.rows.bracket.txt");
}

T(conformance_canal_filter_table_exact_names)
{
    cjt_open("canal-json", CJT_SCHEMA, NULL, "database.include", "mydb", "table.include", "product",
             NULL);
    cjt_decode_file("canal-data-filter-table.txt");
    cjt_expect_rows_file("expected/canal.rows.bracket.txt");
}

T(conformance_canal_with_init)
{
    cjt_open("canal-json", CJT_SCHEMA, NULL, NULL);
    cjt_decode_file("canal-data-with-init.txt");
    cjt_expect_rows_file("expected/canal.rows.bracket.txt");
}

T(conformance_canal_serialization)
{
    cjt_open("canal-json", CJT_SCHEMA, NULL, NULL);
    cjt_decode_file("canal-data.txt");
    cjt_expect_serialized_file("expected/canal.serialized.jsonl");
}

T(conformance_canal_serialization_round_trip)
{
    /* the serialized messages decode back to the same kinds as +I/-D pairs */
    cjt_open("canal-json", CJT_SCHEMA, NULL, NULL);
    cjt_decode_file("expected/canal.serialized.jsonl");
    cr_assert_eq(cjt.batch.n, 26);
    char *want = cjt_read("expected/canal.rows.bracket.txt", NULL);
    /* -U becomes -D and +U becomes +I, as Flink's filesystem round trip shows */
    for (char *p = want; (p = strstr(p, "-U[")); p++)
        p[1] = 'D';
    for (char *p = want; (p = strstr(p, "+U[")); p++)
        p[1] = 'I';
    cr_assert_str_eq(cjt_rows_from(0, false), want);
    free(want);
}

T(conformance_canal_metadata)
{
    cjt_open("canal-json", CJT_SCHEMA, CANAL_META, NULL);
    cjt_decode_file("canal-data.txt");
    cr_assert_str_eq(cjt_meta(0, 0), "inventory");
    cr_assert_str_eq(cjt_meta(0, 1), "products2");
    cr_assert_str_eq(cjt_meta(0, 2), "{id=4, name=12, description=12, weight=7}");
    cr_assert_eq(cjt.batch.rows[0].values[4 + 2].v.arr.n, 4);
    cr_assert_str_eq(cjt_meta(0, 3), "[id]");
    cr_assert_eq(cjt_meta_millis(0, 4), 1589373515477LL);
    cr_assert_eq(cjt_meta_millis(0, 5), 1589373515000LL);
    cr_assert_str_eq(cjt_meta(0, 4), "2020-05-13T12:38:35.477Z");
    /* every row of the first message carries the same metadata */
    for (uint32_t r = 1; r < 9; r++)
        cr_assert_eq(cjt_meta_millis(r, 4), 1589373515477LL);
    cr_assert_eq(cjt_meta_millis(9, 4), 1589373546301LL); /* the second message */
}

T(conformance_canal_filter_table_metadata)
{
    cjt_open("canal-json", CJT_SCHEMA, CANAL_META, "database.include", "mydb", "table.include",
             "product", NULL);
    cjt_decode_file("canal-data-filter-table.txt");
    cr_assert_str_eq(cjt_meta(0, 0), "mydb");
    cr_assert_str_eq(cjt_meta(0, 1), "product");
    cr_assert_eq(cjt.batch.rows[0].values[4 + 2].v.arr.n, 4);
    cr_assert_str_eq(cjt_meta(0, 3), "[id]");
    cr_assert_eq(cjt_meta_millis(0, 4), 1598944146308LL);
    cr_assert_eq(cjt_meta_millis(0, 5), 1598944132000LL);
}

T(conformance_canal_older_version)
{
    /* Flink 1.11's file: id 106 keeps its description, so the rows are Maxwell's */
    cjt_open("canal-json", CJT_SCHEMA, NULL, NULL);
    cr_assert_eq(cjt_decode_file("older-versions/canal-data.flink-1.11-7efdf0d.txt"), 11);
    cr_assert_eq(cjt.batch.n, 26);
    cjt_expect_rows_file("expected/maxwell.rows.bracket.txt");
}

T(conformance_canal_origin)
{
    cjt_open("canal-json", CJT_SCHEMA, NULL, NULL);
    cjt_decode_file("canal-data.txt");
    for (uint32_t i = 0; i < cjt.batch.n; i++)
        cr_assert_str_eq(cjt.batch.rows[i].origin, "inventory.products2");
}

/* ---- envelope rules -------------------------------------------------------------------------- */

T(tombstones_give_no_row)
{
    cjt_open("canal-json", CJT_SCHEMA, NULL, NULL);
    cr_assert_str_eq(cjt_decode_n(NULL, 0), "");
    cr_assert_str_eq(cjt_decode_n("", 0), "");
}

T(update_overlay_present_null_and_absent)
{
    cjt_open("canal-json", CJT_SCHEMA, NULL, NULL);
    cr_assert_str_eq(
        cjt_decode(
            "{\"data\":[{\"id\":\"1\",\"name\":\"a\",\"description\":\"d\",\"weight\":\"1.5\"},"
            "{\"id\":\"2\",\"name\":\"b\",\"description\":null,\"weight\":\"2\"}],"
            "\"old\":[{\"name\":null,\"other\":\"x\"},{\"description\":\"was\",\"weight\":"
            "\"3.25\"}],\"type\":\"UPDATE\"}"),
        "-U[1, null, d, 1.5]\n+U[1, a, d, 1.5]\n-U[2, b, was, 3.25]\n+U[2, b, null, 2.0]\n");
}

/* regress_canal_boolean_digits (issue 18, 5): MySQL's BOOLEAN is TINYINT(1), which Canal sends
   as "0" and "1" (also in "old"); other digits stay errors, and the json format stays strict */
T(boolean_from_tinyint_digits)
{
    cjt_open("canal-json", "id INT NOT NULL, b BOOLEAN", NULL, NULL);
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":\"1\",\"b\":\"1\"},{\"id\":\"2\",\"b\":"
                                "\"0\"},{\"id\":\"3\",\"b\":\"true\"},{\"id\":\"4\",\"b\":"
                                "null}],\"type\":\"INSERT\"}"),
                     "+I[1, true]\n+I[2, false]\n+I[3, true]\n+I[4, null]\n");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":\"1\",\"b\":\"1\"}],\"old\":[{\"b\":\"0\"}],"
                                "\"type\":\"UPDATE\"}"),
                     "-U[1, false]\n+U[1, true]\n");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":\"1\",\"b\":\"2\"}],\"type\":\"INSERT\"}"),
                     "ERROR: corrupt Canal JSON message: \"data\"[0]: field \"b\": expected "
                     "BOOLEAN, found string \"2\"");
    cjt_close();
    cjt_open("json", "b BOOLEAN", NULL, NULL);
    cr_assert(strncmp(cjt_decode("{\"b\":\"1\"}"), "ERROR: ", 7) == 0);
}

T(update_old_problems)
{
    cjt_open("canal-json", CJT_SCHEMA, NULL, NULL);
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"type\":\"UPDATE\"}"),
                     "ERROR: corrupt Canal JSON message: \"old\" is missing in an UPDATE");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"old\":null,\"type\":\"UPDATE\"}"),
                     "ERROR: corrupt Canal JSON message: \"old\" is null in an UPDATE");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1},{\"id\":2}],\"old\":[{}],"
                                "\"type\":\"UPDATE\"}"),
                     "ERROR: corrupt Canal JSON message: \"old\" has 1 rows but \"data\" has 2");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"old\":[{\"id\":null}],"
                                "\"type\":\"UPDATE\"}"),
                     "ERROR: corrupt Canal JSON message: \"old\"[0]: field \"id\": expected INT "
                     "NOT NULL, found null");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"old\":[{\"weight\":\"heavy\"}],"
                                "\"type\":\"UPDATE\"}"),
                     "ERROR: corrupt Canal JSON message: \"old\"[0]: field \"weight\": expected "
                     "FLOAT, found string \"heavy\"");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"old\":{},\"type\":\"UPDATE\"}"),
                     "ERROR: corrupt Canal JSON message: \"old\": expected an array of objects, "
                     "found an object");
}

T(insert_init_delete_many_rows)
{
    cjt_open("canal-json", CJT_SCHEMA, NULL, NULL);
    cr_assert_str_eq(cjt_decode("{\"type\":\"INIT\",\"data\":[{\"id\":1},{\"id\":2}]}"),
                     "+I[1, null, null, null]\n+I[2, null, null, null]\n");
    cr_assert_str_eq(cjt_decode("{\"type\":\"DELETE\",\"data\":[{\"id\":3},{\"id\":4}]}"),
                     "-D[3, null, null, null]\n-D[4, null, null, null]\n");
    cr_assert_str_eq(cjt_decode("{\"type\":\"INSERT\",\"data\":[]}"), "");
}

T(ddl_is_skipped)
{
    cjt_open("canal-json", CJT_SCHEMA, NULL, NULL);
    cr_assert_str_eq(cjt_decode("{\"data\":null,\"database\":\"d\",\"isDdl\":true,"
                                "\"sql\":\"CREATE TABLE x (a INT)\",\"table\":\"x\","
                                "\"type\":\"CREATE\"}"),
                     "");
    cr_assert_str_eq(cjt_decode("{\"data\":null,\"type\":\"ALTER\"}"), "");
    cr_assert_str_eq(cjt_decode("{\"data\":null,\"type\":\"TRUNCATE\"}"), "");
    cr_assert_str_eq(cjt_decode("{\"isDdl\":true,\"type\":\"WHATEVER\"}"), "");
    /* a DDL message whose other fields are garbage is still skipped */
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":\"x\"}],\"type\":\"QUERY\"}"), "");
}

T(unknown_and_missing_type)
{
    cjt_open("canal-json", CJT_SCHEMA, NULL, NULL);
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"type\":\"FOO\"}"),
                     "ERROR: corrupt Canal JSON message: unknown \"type\" value \"FOO\"");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"type\":\"insert\"}"),
                     "ERROR: corrupt Canal JSON message: unknown \"type\" value \"insert\"");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}]}"),
                     "ERROR: corrupt Canal JSON message: \"type\" is missing");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"type\":null}"),
                     "ERROR: corrupt Canal JSON message: \"type\" is null");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"type\":[]}"),
                     "ERROR: corrupt Canal JSON message: \"type\": expected a string, found an "
                     "array");
    cr_assert_str_eq(cjt_decode("{\"type\":\"INSERT\"}"),
                     "ERROR: corrupt Canal JSON message: \"data\" is missing");
    cr_assert_str_eq(cjt_decode("{\"type\":\"INSERT\",\"data\":null}"),
                     "ERROR: corrupt Canal JSON message: \"data\" is null");
}

T(structural_errors)
{
    cjt_open("canal-json", CJT_SCHEMA, NULL, NULL);
    cr_assert_str_eq(cjt_decode("null"),
                     "ERROR: corrupt Canal JSON message: expected a JSON object, found null");
    cr_assert_str_eq(cjt_decode("[{}]"),
                     "ERROR: corrupt Canal JSON message: expected a JSON object, found an array");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"type\":\"INSERT\"} x"),
                     "ERROR: corrupt Canal JSON message: invalid JSON at byte 36: trailing "
                     "garbage");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1},null],\"type\":\"INSERT\"}"),
                     "ERROR: corrupt Canal JSON message: \"data\"[1]: expected an object, found "
                     "null");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":\"x\"}],\"type\":\"INSERT\"}"),
                     "ERROR: corrupt Canal JSON message: \"data\"[0]: field \"id\": expected INT, "
                     "found string \"x\"");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"name\":\"x\"}],\"type\":\"INSERT\"}"),
                     "ERROR: corrupt Canal JSON message: \"data\"[0]: field \"id\": missing, "
                     "expected INT NOT NULL");
}

T(values_as_strings_coerce)
{
    cjt_open("canal-json",
             "id INT NOT NULL, big BIGINT, ok BOOLEAN, price DECIMAL(10, 2), w DOUBLE, "
             "day DATE, at TIMESTAMP(3)",
             NULL, NULL);
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":\" 101 \",\"big\":\"-9223372036854775808\","
                                "\"ok\":\"true\",\"price\":\"12.345\",\"w\":\"1e3\","
                                "\"day\":\"2020-07-30\",\"at\":\"2020-07-30 10:08:22.123\"}],"
                                "\"type\":\"INSERT\"}"),
                     "+I[101, -9223372036854775808, true, 12.35, 1000.0, 2020-07-30, "
                     "2020-07-30T10:08:22.123]\n");
}

T(non_numeric_numbers_as_strings)
{
    /* Canal writes every value as a string; Jackson's bare NaN tokens are not JSON */
    cjt_open("canal-json", CJT_SCHEMA, NULL, NULL);
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1,\"weight\":\"NaN\"},{\"id\":2,\"weight\":"
                                "\"Infinity\"},{\"id\":3,\"weight\":\"-Infinity\"}],"
                                "\"type\":\"INSERT\"}"),
                     "+I[1, null, null, NaN]\n+I[2, null, null, Infinity]\n"
                     "+I[3, null, null, -Infinity]\n");
}

T(timestamp_standard_applies_to_columns)
{
    cjt_open("canal-json", "id INT NOT NULL, at TIMESTAMP(3)", NULL, "timestamp-format.standard",
             "ISO-8601", NULL);
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1,\"at\":\"2020-07-30T10:08:22.5\"}],"
                                "\"type\":\"INSERT\"}"),
                     "+I[1, 2020-07-30T10:08:22.500]\n");
    cr_assert_str_eq(cjt_encode(&cjt.batch.rows[0]),
                     "{\"data\":[{\"id\":1,\"at\":\"2020-07-30T10:08:22.5\"}],"
                     "\"type\":\"INSERT\"}");
}

/* ---- include filters ------------------------------------------------------------------------- */

T(include_matches_the_whole_name)
{
    cjt_open("canal-json", CJT_SCHEMA, NULL, "table.include", "prod", NULL);
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"table\":\"product\","
                                "\"type\":\"INSERT\"}"),
                     "");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"table\":\"prod\",\"type\":\"INSERT\"}"),
                     "+I[1, null, null, null]\n");
}

T(include_drops_before_reading_rows)
{
    cjt_open("canal-json", CJT_SCHEMA, NULL, "database.include", "inv.*", NULL);
    /* rows of another database that do not fit the schema, an unknown type: no error */
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":\"A101\"}],\"database\":\"other\","
                                "\"type\":\"NOPE\"}"),
                     "");
    /* no database at all is matched as "" */
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"type\":\"INSERT\"}"), "");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"database\":\"inventory\","
                                "\"type\":\"INSERT\"}"),
                     "+I[1, null, null, null]\n");
    /* a database that cannot be read cannot be matched */
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"database\":{},\"type\":\"INSERT\"}"),
                     "ERROR: corrupt Canal JSON message: \"database\": expected a string, found "
                     "an object");
}

T(include_java_shorthands_and_alternation)
{
    cjt_open("canal-json", CJT_SCHEMA, NULL, "table.include", "(?:orders|shop_\\d+)", NULL);
    const char *tables[] = {"orders", "shop_12", "shop_", "shop_1x", "xorders", "orders|shop_1"};
    const char *want[] = {"+I[1, null, null, null]\n", "+I[1, null, null, null]\n", "", "", "", ""};
    for (int i = 0; i < 6; i++) {
        char *msg = cdc_strdup_printf(
            "{\"data\":[{\"id\":1}],\"table\":\"%s\",\"type\":\"INSERT\"}", tables[i]);
        cr_assert_str_eq(cjt_decode(msg), want[i], "table %s", tables[i]);
        free(msg);
    }
    /* a NUL inside the name does not cut it short */
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"table\":\"orders\\u0000x\","
                                "\"type\":\"INSERT\"}"),
                     "");
}

T(include_invalid_patterns_are_option_errors)
{
    char *e = cjt_open_error("canal-json", NULL, "database.include", "(", NULL);
    cr_assert(strstr(e, "option \"database.include\": invalid regular expression \"(\"") != NULL,
              "%s", e);
    free(e);
    e = cjt_open_error("canal-json", NULL, "table.include", "a)(b", NULL);
    cr_assert(strstr(e, "option \"table.include\": invalid regular expression \"a)(b\"") != NULL,
              "%s", e);
    free(e);
    e = cjt_open_error("canal-json", NULL, "table.include", "(?=x)y", NULL);
    cr_assert(strstr(e, "groups \"(?...)\" other than \"(?:...)\" are not supported") != NULL, "%s",
              e);
    free(e);
    e = cjt_open_error("canal-json", NULL, "table.include", "\\p{Alpha}", NULL);
    cr_assert(strstr(e, "the escape \\p is not supported") != NULL, "%s", e);
    free(e);
    e = cjt_open_error("canal-json", NULL, "table.include", "x\\", NULL);
    cr_assert(strstr(e, "ends with a backslash") != NULL, "%s", e);
    free(e);
    e = cjt_open_error("canal-json", NULL, "table.include", "[a-z_]+\\.v[\\d]", NULL);
    cr_assert_str_eq(e, "");
    free(e);

    /* deser_new checks too (cdc_config_new runs no cross-option check) */
    cdc_kv_t kv = {0};
    cdc_kv_set(&kv, "table.include", "[unclosed");
    const cdc_format_factory_t *fmt = cdc_registry_format("canal-json");
    cdc_error_t *err = NULL;
    cdc_config_t *cfg = cdc_config_new(fmt->options, "canal-json", &kv, &err);
    cr_assert_not_null(cfg);
    cdc_type_t *type = cdc_type_parse("ROW<" CJT_SCHEMA ">", NULL);
    cdc_format_ctx_t ctx = {.cfg = cfg, .row_type = type, .table = "t"};
    cdc_deser_t *deser = NULL;
    cr_assert_eq(fmt->deser_new(&ctx, &deser, &err), -1);
    cr_assert_str_eq(err->message,
                     "option \"table.include\": invalid regular expression \"[unclosed\"");
    cr_assert_eq(err->code, CDC_ERR_OPTION);
    cdc_error_destroy(err);
    cdc_type_destroy(type);
    cdc_config_destroy(cfg);
    cdc_kv_free(&kv);
}

/* ---- options, metadata, errors -------------------------------------------------------------- */

T(factory_declarations)
{
    const char *options[] = {"ignore-parse-errors",
                             "timestamp-format.standard",
                             "map-null-key.mode",
                             "map-null-key.literal",
                             "encode.decimal-as-plain-number",
                             "database.include",
                             "table.include",
                             NULL};
    const char *metadata[] = {
        "database",        "table", "sql-type", "pk-names", "ingestion-timestamp",
        "event-timestamp", NULL};
    cjt_check_factory("canal-json", options, metadata);
    char *e = cjt_open_error("canal-json", NULL, "ignore-parse-error", "true", NULL);
    cr_assert(strstr(e, "did you mean \"ignore-parse-errors\"") != NULL, "%s", e);
    free(e);
}

T(metadata_absent_or_null_is_null)
{
    cjt_open("canal-json", CJT_SCHEMA, CANAL_META, NULL);
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"type\":\"INSERT\",\"pkNames\":null,"
                                "\"sqlType\":{\"id\":null},\"ts\":\"1589373515477\"}"),
                     "+I[1, null, null, null]\n");
    cr_assert_str_eq(cjt_meta(0, 0), "null");
    cr_assert_str_eq(cjt_meta(0, 2), "{id=null}");
    cr_assert_str_eq(cjt_meta(0, 3), "null");
    cr_assert_eq(cjt_meta_millis(0, 4), 1589373515477LL);
    cr_assert_str_eq(cjt_meta(0, 5), "null");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"type\":\"INSERT\",\"ts\":\"soon\"}"),
                     "ERROR: corrupt Canal JSON message: \"ts\": expected BIGINT, found string "
                     "\"soon\"");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"type\":\"INSERT\",\"sqlType\":{\"id\":"
                                "[4]}}"),
                     "ERROR: corrupt Canal JSON message: \"sqlType\": key \"id\": expected INT, "
                     "found an array");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"type\":\"INSERT\",\"pkNames\":[{}]}"),
                     "ERROR: corrupt Canal JSON message: \"pkNames\"[0]: expected STRING, found "
                     "an object");
}

T(unrequested_metadata_is_not_read)
{
    cjt_open("canal-json", CJT_SCHEMA, NULL, NULL);
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"type\":\"INSERT\",\"ts\":\"soon\","
                                "\"sqlType\":[],\"pkNames\":7}"),
                     "+I[1, null, null, null]\n");
}

T(ignore_parse_errors_drops_and_counts)
{
    cjt_open("canal-json", CJT_SCHEMA, NULL, "ignore-parse-errors", "true", NULL);
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"type\":\"FOO\"}"), "SKIPPED");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1},{\"id\":\"x\"}],\"type\":\"INSERT\"}"),
                     "SKIPPED");
    cr_assert_str_eq(cjt_decode("{not json"), "SKIPPED");
    cr_assert_eq(cjt.deser->skipped, 3);
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"type\":\"INSERT\"}"),
                     "+I[1, null, null, null]\n");
    cr_assert_eq(cjt.deser->skipped, 3);
}

/* ---- serialization ----------------------------------------------------------------------- */

T(serialization_options)
{
    cjt_open("canal-json", "id INT NOT NULL, m MAP<STRING, INT>, p DECIMAL(10, 9)", NULL,
             "map-null-key.mode", "LITERAL", "map-null-key.literal", "NIL",
             "encode.decimal-as-plain-number", "true", NULL);
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1,\"p\":\"0.00000001\"}],\"type\":"
                                "\"DELETE\"}"),
                     "-D[1, null, 0.000000010]\n");
    cdc_row_t *row = &cjt.batch.rows[0];
    cdc_value_t key = {.flags = CDC_V_NULL}, val = {.v.i = 7, .flags = 0};
    row->values[1].flags = 0;
    row->values[1].v.arr = (cdc_array_t){.n = 1, .elems = &key, .vals = &val};
    cr_assert_str_eq(cjt_encode(row),
                     "{\"data\":[{\"id\":1,\"m\":{\"NIL\":7},\"p\":0.000000010}],\"type\":"
                     "\"DELETE\"}");
}

T(serialization_map_null_key_fails_by_default)
{
    cjt_open("canal-json", "id INT NOT NULL, m MAP<STRING, INT>", NULL, NULL);
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"type\":\"INSERT\"}"), "+I[1, null]\n");
    cdc_row_t *row = &cjt.batch.rows[0];
    cdc_value_t key = {.flags = CDC_V_NULL}, val = {.v.i = 7, .flags = 0};
    row->values[1].flags = 0;
    row->values[1].v.arr = (cdc_array_t){.n = 1, .elems = &key, .vals = &val};
    cdc_buf_t out = {0};
    cdc_buf_puts(&out, "kept");
    cr_assert_eq(cjt.ser->ops->encode(cjt.ser, row, &out), -1);
    cr_assert_eq(out.len, 4, "a failed row leaves nothing behind");
    cr_assert(strstr(cdc_buf_cstr(&cjt.ser->errmsg), "map data with null keys") != NULL);
    cdc_buf_free(&out);
}

T(serializer_rejects_metadata)
{
    const cdc_format_factory_t *fmt = cdc_registry_format("canal-json");
    cdc_kv_t kv = {0};
    cdc_config_t *cfg = cdc_config_new(fmt->options, "canal-json", &kv, NULL);
    cdc_type_t *type = cdc_type_parse("ROW<" CJT_SCHEMA ">", NULL);
    const char *keys[] = {"database"};
    cdc_format_ctx_t ctx = {.cfg = cfg, .row_type = type, .metadata = keys, .nmetadata = 1};
    cdc_ser_t *ser = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(fmt->ser_new(&ctx, &ser, &err), -1);
    cr_assert_str_eq(err->message, "format \"canal-json\" cannot write metadata key \"database\"");
    cdc_error_destroy(err);
    cdc_type_destroy(type);
    cdc_config_destroy(cfg);
}

/* ---- robustness ------------------------------------------------------------------------------ */

T(robustness)
{
    cjt_open("canal-json", CJT_WIDE_SCHEMA, CANAL_META, NULL);
    cjt_robustness("{\"data\":[{\"id\":\"1\",\"name\":\"n\",\"weight\":\"1.5\",\"dec\":\"1.25\","
                   "\"arr\":[1,2],\"m\":{\"k\":1},\"r\":{\"a\":1,\"b\":\"x\"},\"ts\":"
                   "\"2020-01-01 00:00:00\"}],\"old\":[{\"name\":\"o\",\"arr\":null}],"
                   "\"database\":\"db\",\"table\":\"t\",\"type\":\"UPDATE\",\"isDdl\":false,"
                   "\"pkNames\":[\"id\"],\"sqlType\":{\"id\":4},\"ts\":1,\"es\":2}");
}

T(robustness_with_filters_and_ignore)
{
    cjt_open("canal-json", CJT_WIDE_SCHEMA, NULL, "database.include", "d.*", "table.include", "t",
             "ignore-parse-errors", "true", NULL);
    const char *good = "{\"data\":[{\"id\":\"1\"},{\"id\":2}],\"database\":\"db\",\"table\":\"t\","
                       "\"type\":\"DELETE\"}";
    cr_assert_str_eq(cjt_decode(good), "-D[1, null, null, null, null, null, null, null, null, "
                                       "null, null, null, null, null, null, null, null, null]\n"
                                       "-D[2, null, null, null, null, null, null, null, null, "
                                       "null, null, null, null, null, null, null, null, null]\n");
    size_t len = strlen(good);
    for (size_t k = 1; k < len; k++)
        cr_assert_str_eq(cjt_decode_n(good, k), "SKIPPED");
    cr_assert_eq(cjt.deser->skipped, len - 1);
}

T(too_many_rows_in_one_message)
{
    cjt_open("canal-json", CJT_SCHEMA, NULL, NULL);
    cdc_buf_t msg = {0};
    cdc_buf_puts(&msg, "{\"type\":\"INSERT\",\"data\":[");
    for (int i = 0; i < 65536; i++)
        cdc_buf_puts(&msg, i ? ",{\"id\":1}" : "{\"id\":1}");
    cdc_buf_puts(&msg, "]}");
    const char *r = cjt_decode_n(msg.data, msg.len);
    cr_assert(strncmp(r, "+I[1, null, null, null]\n", 24) == 0, "%.200s", r);
    cr_assert_eq(cjt.batch.n, 65536);
    msg.len -= 2;
    cdc_buf_puts(&msg, ",{\"id\":1}]}");
    cr_assert_str_eq(cjt_decode_n(msg.data, msg.len),
                     "ERROR: corrupt Canal JSON message: more than 65536 rows in one message");
    cdc_buf_free(&msg);
}

T(huge_numbers_and_strings)
{
    cjt_open("canal-json", CJT_WIDE_SCHEMA, CANAL_META, NULL);
    cdc_buf_t msg = {0};
    cdc_buf_puts(&msg, "{\"data\":[{\"id\":1,\"bi\":");
    for (int i = 0; i < 5000; i++)
        cdc_buf_putc(&msg, '9');
    cdc_buf_puts(&msg, "}],\"type\":\"INSERT\"}");
    const char *r = cjt_decode_n(msg.data, msg.len);
    cr_assert(
        strstr(r, "ERROR: corrupt Canal JSON message: \"data\"[0]: field \"bi\": value 999") == r,
        "%s", r);
    cdc_buf_clear(&msg);
    cdc_buf_puts(&msg, "{\"data\":[{\"id\":1,\"d\":1e999999,\"weight\":-1e-999999}],\"type\":"
                       "\"INSERT\",\"ts\":99999999999999999999}");
    r = cjt_decode_n(msg.data, msg.len);
    cr_assert_str_eq(r, "ERROR: corrupt Canal JSON message: \"ts\": value 99999999999999999999 "
                        "does not fit BIGINT");
    cdc_buf_clear(&msg);
    cdc_buf_puts(&msg, "{\"data\":[{\"id\":1,\"name\":\"");
    for (int i = 0; i < 1 << 20; i++)
        cdc_buf_putc(&msg, 'a' + i % 26);
    cdc_buf_puts(&msg, "\"}],\"type\":\"INSERT\"}");
    r = cjt_decode_n(msg.data, msg.len);
    cr_assert_eq(cjt.batch.n, 1);
    cr_assert_eq(cjt.batch.rows[0].values[1].v.s.len, 1 << 20);
    cdc_buf_free(&msg);
}

/* ---- regressions found by fuzz/canal_json.c ------------------------------------------------- */

/* Empty "sqlType" / "pkNames" as the very first collections a deserializer sees:
 * memcpy from a not yet allocated scratch vector (crash-5f583ac2, `{"sqlType":{}}`). */
T(regress_empty_collections_first)
{
    cjt_open("canal-json", CJT_SCHEMA, CANAL_META, NULL);
    cr_assert_str_eq(cjt_decode("{\"ql\":\"\",\"sqlType\":{}s}"),
                     "ERROR: corrupt Canal JSON message: invalid JSON at byte 22: invalid char in "
                     "json text");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"type\":\"INSERT\",\"sqlType\":{},"
                                "\"pkNames\":[]}"),
                     "+I[1, null, null, null]\n");
    cr_assert_str_eq(cjt_meta(0, 2), "{}");
    cr_assert_str_eq(cjt_meta(0, 3), "[]");
}

/*
 * The fuzzer found signed __int128 overflow (undefined behaviour) in the core's
 * cdc_decimal_parse (src/core/cdc_row.c, `v * 10` before the `v >= limit` check) for
 * DECIMAL(38, s): a 39-digit value could wrap into range and be accepted as a
 * wrong number. Fixed in the core; this keeps it fixed.
 */
Test(canal_json, regress_decimal38_overflow_is_an_error, .fini = cjt_close)
{
    cjt_open("canal-json", "id INT NOT NULL, p DECIMAL(38, 0)", NULL, NULL);
    cr_assert_str_eq(
        cjt_decode("{\"data\":[{\"id\":1,\"p\":\"680564733841876926926749214863536422912\"}],"
                   "\"type\":\"INSERT\"}"),
        "ERROR: corrupt Canal JSON message: \"data\"[0]: field \"p\": value "
        "680564733841876926926749214863536422912 does not fit DECIMAL(38, 0)");
}

/* Issue 18, 4: a repeated key's last value wins (Jackson's rule), with its problem or none. */
T(duplicate_keys_last_wins)
{
    cjt_open("canal-json", CJT_SCHEMA, NULL, NULL);
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"type\":\"INSERT\",\"data\":[]}"), "");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"type\":\"INSERT\",\"data\":"
                                "[{\"id\":2,\"name\":\"b\",\"name\":\"c\"}]}"),
                     "+I[2, c, null, null]\n");
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1}],\"type\":\"INSERT\",\"type\":\"DELETE\"}"),
                     "-D[1, null, null, null]\n");
    /* an earlier bad value goes with it; a later bad one is the error */
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":\"x\"}],\"type\":7,\"type\":\"INSERT\","
                                "\"data\":[{\"id\":3}]}"),
                     "+I[3, null, null, null]\n");
    cr_assert_str_eq(cjt_decode("{\"type\":7,\"data\":[{\"id\":3}],\"data\":[{\"id\":\"y\"}],"
                                "\"type\":\"INSERT\"}"),
                     "ERROR: corrupt Canal JSON message: \"data\"[0]: field \"id\": expected INT, "
                     "found string \"y\"");
    cr_assert_str_eq(cjt_decode("{\"old\":[{\"name\":\"z\"}],\"data\":[{\"id\":1,\"name\":\"a\"}],"
                                "\"old\":[{\"name\":\"o\"}],\"type\":\"UPDATE\"}"),
                     "-U[1, o, null, null]\n+U[1, a, null, null]\n");
    /* a nested value repeated inside a row: the last one, no stale null flag */
    cjt_close();
    cjt_open("canal-json", "id INT NOT NULL, a ARRAY<INT>, r ROW<x INT>", NULL, NULL);
    cr_assert_str_eq(cjt_decode("{\"data\":[{\"id\":1,\"a\":[1,2],\"r\":null,\"a\":[3],"
                                "\"r\":{\"x\":1,\"x\":null},\"id\":2}],\"type\":\"INSERT\"}"),
                     "+I[2, [3], (null)]\n");
}
