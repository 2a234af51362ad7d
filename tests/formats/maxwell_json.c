/*
 * tests/formats/maxwell_json.c — the maxwell-json format through the registry:
 * the Flink conformance case (rows, metadata, serialization), the envelope
 * rules (old overlay, bootstrap and DDL messages, unknown types), options,
 * errors with their exact texts, and robustness.
 */
#include "cdcjson_testkit.h"

#define T(name) Test(maxwell_json, name, .fini = cjt_close)

#define MAXWELL_META "database,table,primary-key-columns,ingestion-timestamp"

/* ---- conformance (tests/conformance/flink-json, EXPECTED.md part E) ------------------ */

T(conformance_maxwell_data)
{
    cjt_open("maxwell-json", CJT_SCHEMA, NULL, "timestamp-format.standard", "ISO-8601", NULL);
    cr_assert_eq(cjt_decode_file("maxwell-data.txt"), 20);
    cr_assert_eq(cjt.batch.n, 26);
    cjt_expect_rows_file("expected/maxwell.rows.bracket.txt");
}

T(conformance_maxwell_serialization)
{
    cjt_open("maxwell-json", CJT_SCHEMA, NULL, NULL);
    cjt_decode_file("maxwell-data.txt");
    cjt_expect_serialized_file("expected/maxwell.serialized.jsonl");
}

T(conformance_maxwell_serialized_decodes_back)
{
    cjt_open("maxwell-json", CJT_SCHEMA, NULL, NULL);
    cjt_decode_file("expected/maxwell.serialized.jsonl");
    cr_assert_eq(cjt.batch.n, 26);
    for (uint32_t i = 0; i < cjt.batch.n; i++)
        cr_assert(cjt.batch.rows[i].kind == CDC_INSERT || cjt.batch.rows[i].kind == CDC_DELETE);
}

T(conformance_maxwell_metadata)
{
    cjt_open("maxwell-json", CJT_SCHEMA, MAXWELL_META, NULL);
    cjt_decode_file("maxwell-data.txt");
    cr_assert_str_eq(cjt_meta(0, 0), "test");
    cr_assert_str_eq(cjt_meta(0, 1), "product");
    cr_assert_str_eq(cjt_meta(0, 2), "[id]");
    cr_assert_eq(cjt_meta_millis(0, 3), 1596684883000LL);
    cr_assert_str_eq(cjt_meta(0, 3), "2020-08-06T03:34:43.000Z");
}

T(conformance_maxwell_origin)
{
    cjt_open("maxwell-json", CJT_SCHEMA, NULL, NULL);
    cjt_decode_file("maxwell-data.txt");
    for (uint32_t i = 0; i < cjt.batch.n; i++)
        cr_assert_str_eq(cjt.batch.rows[i].origin, "test.product");
}

/* ---- envelope rules -------------------------------------------------------------------------- */

T(update_overlay)
{
    cjt_open("maxwell-json", CJT_SCHEMA, NULL, NULL);
    cr_assert_str_eq(cjt_decode("{\"type\":\"update\",\"data\":{\"id\":1,\"name\":\"a\","
                                "\"description\":\"d\",\"weight\":1.5},\"old\":{\"name\":null,"
                                "\"weight\":2,\"gone\":1}}"),
                     "-U[1, null, d, 2.0]\n+U[1, a, d, 1.5]\n");
    /* no "old" (or null): nothing changed, the before-image is data */
    cr_assert_str_eq(cjt_decode("{\"type\":\"update\",\"data\":{\"id\":1,\"name\":\"a\"}}"),
                     "-U[1, a, null, null]\n+U[1, a, null, null]\n");
    cr_assert_str_eq(cjt_decode("{\"type\":\"update\",\"data\":{\"id\":1},\"old\":null}"),
                     "-U[1, null, null, null]\n+U[1, null, null, null]\n");
    cr_assert_str_eq(cjt_decode("{\"type\":\"update\",\"data\":{\"id\":1},\"old\":{\"id\":null}}"),
                     "ERROR: corrupt Maxwell JSON message: \"old\": field \"id\": expected INT NOT "
                     "NULL, found null");
    cr_assert_str_eq(cjt_decode("{\"type\":\"update\",\"data\":{\"id\":1},\"old\":[{}]}"),
                     "ERROR: corrupt Maxwell JSON message: \"old\": expected an object, found an "
                     "array");
}

T(bootstrap_and_ddl)
{
    cjt_open("maxwell-json", CJT_SCHEMA, NULL, NULL);
    cr_assert_str_eq(cjt_decode("{\"database\":\"d\",\"table\":\"t\",\"type\":\"bootstrap-start\","
                                "\"ts\":1,\"data\":{}}"),
                     "");
    cr_assert_str_eq(cjt_decode("{\"database\":\"d\",\"table\":\"t\",\"type\":\"bootstrap-insert\","
                                "\"ts\":1,\"data\":{\"id\":5}}"),
                     "+I[5, null, null, null]\n");
    cr_assert_str_eq(cjt_decode("{\"database\":\"d\",\"table\":\"t\","
                                "\"type\":\"bootstrap-complete\",\"ts\":1,\"data\":{}}"),
                     "");
    cr_assert_str_eq(cjt_decode("{\"type\":\"table-create\",\"database\":\"d\",\"table\":\"t\","
                                "\"def\":{\"columns\":[]},\"sql\":\"create table t (a int)\"}"),
                     "");
    cr_assert_str_eq(cjt_decode("{\"type\":\"database-drop\",\"database\":\"d\"}"), "");
}

T(unknown_and_missing)
{
    cjt_open("maxwell-json", CJT_SCHEMA, NULL, NULL);
    cr_assert_str_eq(cjt_decode("{\"type\":\"INSERT\",\"data\":{\"id\":1}}"),
                     "ERROR: corrupt Maxwell JSON message: unknown \"type\" value \"INSERT\"");
    cr_assert_str_eq(cjt_decode("{\"data\":{\"id\":1}}"),
                     "ERROR: corrupt Maxwell JSON message: \"type\" is missing");
    cr_assert_str_eq(cjt_decode("{\"type\":\"insert\"}"),
                     "ERROR: corrupt Maxwell JSON message: \"data\" is missing");
    cr_assert_str_eq(cjt_decode("{\"type\":\"delete\",\"data\":null}"),
                     "ERROR: corrupt Maxwell JSON message: \"data\" is null");
    cr_assert_str_eq(cjt_decode("{\"type\":\"insert\",\"data\":[{\"id\":1}]}"),
                     "ERROR: corrupt Maxwell JSON message: \"data\": expected an object, found an "
                     "array");
    cr_assert_str_eq(cjt_decode("{\"type\":\"insert\",\"data\":{\"id\":1.5}}"),
                     "ERROR: corrupt Maxwell JSON message: \"data\": field \"id\": expected INT, "
                     "found number 1.5");
    cr_assert_str_eq(cjt_decode("{\"type\":7,\"data\":{\"id\":1}}"),
                     "ERROR: corrupt Maxwell JSON message: unknown \"type\" value \"7\"");
}

T(ingestion_timestamp_range)
{
    cjt_open("maxwell-json", CJT_SCHEMA, MAXWELL_META, NULL);
    cr_assert_str_eq(cjt_decode("{\"type\":\"insert\",\"data\":{\"id\":1},\"ts\":"
                                "9223372036854776}"),
                     "ERROR: corrupt Maxwell JSON message: \"ts\": 9223372036854776 seconds is "
                     "out of range");
    cr_assert_str_eq(cjt_decode("{\"type\":\"insert\",\"data\":{\"id\":1},\"ts\":-1}"),
                     "+I[1, null, null, null]\n");
    cr_assert_eq(cjt_meta_millis(0, 3), -1000LL);
    cr_assert_str_eq(cjt_meta(0, 2), "null");
}

T(ignore_parse_errors_drops_and_counts)
{
    cjt_open("maxwell-json", CJT_SCHEMA, NULL, "ignore-parse-errors", "true", NULL);
    cr_assert_str_eq(cjt_decode("{\"type\":\"upsert\",\"data\":{\"id\":1}}"), "SKIPPED");
    cr_assert_str_eq(cjt_decode("{\"type\":\"insert\",\"data\":{\"id\":\"one\"}}"), "SKIPPED");
    cr_assert_eq(cjt.deser->skipped, 2);
}

T(factory_declarations)
{
    const char *options[] = {
        "ignore-parse-errors",  "timestamp-format.standard",      "map-null-key.mode",
        "map-null-key.literal", "encode.decimal-as-plain-number", NULL};
    const char *metadata[] = {"database", "table", "primary-key-columns", "ingestion-timestamp",
                              NULL};
    cjt_check_factory("maxwell-json", options, metadata);
}

/* ---- robustness ------------------------------------------------------------------------------ */

T(robustness)
{
    cjt_open("maxwell-json", CJT_WIDE_SCHEMA, MAXWELL_META, NULL);
    cjt_robustness("{\"database\":\"test\",\"table\":\"t\",\"type\":\"update\",\"ts\":1596684883,"
                   "\"data\":{\"id\":1,\"name\":\"n\",\"weight\":1.5,\"dec\":1.25,\"arr\":[1],"
                   "\"m\":{\"k\":1},\"r\":{\"a\":1},\"dt\":\"2020-01-01\"},\"old\":{\"name\":\"o\","
                   "\"r\":null},\"primary_key_columns\":[\"id\"]}");
}

/* ---- regressions found by the fuzzers ------------------------------------------------------- */

/*
 * Found by fuzz/maxwell_json.c in the shared row decoder (formats/json/json_decode.c,
 * close_container): closing an empty MAP before the decoder ever filled one does
 * memcpy(dst, NULL, 0), undefined behaviour that aborts the sanitizer build (the json
 * format alone shows it with `{"m":{}}`). Fixed there; this keeps it fixed.
 */
Test(maxwell_json, regress_empty_map_first, .fini = cjt_close)
{
    cjt_open("maxwell-json", "id INT NOT NULL, m MAP<STRING, INT>", NULL, NULL);
    cr_assert_str_eq(cjt_decode("{\"type\":\"insert\",\"data\":{\"id\":1,\"m\":{}}}"),
                     "+I[1, {}]\n");
}

/* Issue 18, 4: a repeated key's last value wins (Jackson's rule), as in every JSON format. */
T(duplicate_keys_last_wins)
{
    cjt_open("maxwell-json", CJT_SCHEMA, NULL, NULL);
    cr_assert_str_eq(cjt_decode("{\"type\":\"insert\",\"data\":{\"id\":1},\"type\":\"delete\"}"),
                     "-D[1, null, null, null]\n");
    cr_assert_str_eq(cjt_decode("{\"type\":\"update\",\"data\":{\"id\":1,\"name\":\"a\"},"
                                "\"old\":{\"name\":\"x\"},\"old\":{\"weight\":2},"
                                "\"data\":{\"id\":2,\"name\":\"b\"}}"),
                     "-U[2, b, null, 2.0]\n+U[2, b, null, null]\n");
    cr_assert_str_eq(
        cjt_decode("{\"type\":\"insert\",\"data\":{\"id\":\"x\"},\"data\":{\"id\":5}}"),
        "+I[5, null, null, null]\n");
}
