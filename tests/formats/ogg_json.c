/*
 * tests/formats/ogg_json.c — the ogg-json format through the registry: the
 * Flink conformance case (rows, metadata, serialization), the older data file
 * with the `priamry_keys` typo, op types, options, errors with their exact
 * texts, and robustness.
 */
#include "cdcjson_testkit.h"

#define T(name) Test(ogg_json, name, .fini = cjt_close)

#define OGG_META "table,primary-keys,ingestion-timestamp,event-timestamp"

/* ---- conformance (tests/conformance/flink-json, EXPECTED.md part F) ------------------ */

T(conformance_ogg_data)
{
    cjt_open("ogg-json", CJT_SCHEMA, NULL, "timestamp-format.standard", "ISO-8601", NULL);
    cr_assert_eq(cjt_decode_file("ogg-data.txt"), 16);
    cr_assert_eq(cjt.batch.n, 20);
    cjt_expect_rows_file("expected/ogg.rows.bracket.txt");
}

T(conformance_ogg_serialization)
{
    cjt_open("ogg-json", CJT_SCHEMA, NULL, NULL);
    cjt_decode_file("ogg-data.txt");
    cjt_expect_serialized_file("expected/ogg.serialized.jsonl");
}

T(conformance_ogg_metadata)
{
    cjt_open("ogg-json", CJT_SCHEMA, OGG_META, NULL);
    cjt_decode_file("ogg-data.txt");
    cr_assert_str_eq(cjt_meta(0, 0), "OGG.TBL_TEST");
    cr_assert_str_eq(cjt_meta(0, 1), "[id]");
    cr_assert_eq(cjt_meta_millis(0, 2), 1589377175766LL);
    cr_assert_eq(cjt_meta_millis(0, 3), 1589384406000LL);
    cr_assert_str_eq(cjt_meta(0, 2), "2020-05-13T13:39:35.766000Z");
    cr_assert_str_eq(cjt_meta(0, 3), "2020-05-13T15:40:06.000000Z");
    /* line 2 has no current_ts */
    cr_assert_str_eq(cjt_meta(1, 2), "null");
    cr_assert_str_eq(cjt_meta(1, 3), "2020-05-13T15:40:07.000000Z");
}

T(conformance_ogg_origin)
{
    cjt_open("ogg-json", CJT_SCHEMA, NULL, NULL);
    cjt_decode_file("ogg-data.txt");
    for (uint32_t i = 0; i < cjt.batch.n; i++)
        cr_assert_str_eq(cjt.batch.rows[i].origin, "OGG.TBL_TEST");
}

T(conformance_ogg_older_version_typo)
{
    /* the first OGG test file spells "priamry_keys" and has no current_ts: the rows are
     * the same; the misspelt key is not read, so primary-keys is NULL */
    cjt_open("ogg-json", CJT_SCHEMA, OGG_META, NULL);
    cr_assert_eq(cjt_decode_file("older-versions/ogg-data.22e02b2-priamry_keys-typo.txt"), 16);
    cr_assert_eq(cjt.batch.n, 20);
    cjt_expect_rows_file("expected/ogg.rows.bracket.txt");
    cr_assert_str_eq(cjt_meta(0, 0), "OGG.TBL_TEST");
    cr_assert_str_eq(cjt_meta(0, 1), "null");
    cr_assert_str_eq(cjt_meta(0, 2), "null");
    cr_assert_eq(cjt_meta_millis(0, 3), 1589384406000LL);
}

/* ---- envelope rules -------------------------------------------------------------------------- */

T(op_types)
{
    cjt_open("ogg-json", CJT_SCHEMA, NULL, NULL);
    /* after before before: the -U still comes first */
    cr_assert_str_eq(cjt_decode("{\"op_type\":\"U\",\"after\":{\"id\":1,\"weight\":2},"
                                "\"before\":{\"id\":1,\"weight\":1}}"),
                     "-U[1, null, null, 1.0]\n+U[1, null, null, 2.0]\n");
    cr_assert_str_eq(cjt_decode("{\"op_type\":\"D\",\"before\":{\"id\":3},\"after\":null}"),
                     "-D[3, null, null, null]\n");
    cr_assert_str_eq(cjt_decode("{\"op_type\":\"I\",\"before\":null,\"after\":{\"id\":4}}"),
                     "+I[4, null, null, null]\n");
    cr_assert_str_eq(cjt_decode("{\"table\":\"S.T\",\"op_type\":\"T\",\"op_ts\":\"x\"}"), "");
}

T(op_type_errors)
{
    cjt_open("ogg-json", CJT_SCHEMA, NULL, NULL);
    cr_assert_str_eq(cjt_decode("{\"op_type\":\"X\",\"after\":{\"id\":1}}"),
                     "ERROR: corrupt OGG JSON message: unknown \"op_type\" value \"X\"");
    cr_assert_str_eq(cjt_decode("{\"after\":{\"id\":1}}"),
                     "ERROR: corrupt OGG JSON message: \"op_type\" is missing");
    cr_assert_str_eq(cjt_decode("{\"op_type\":\"U\",\"before\":null,\"after\":{\"id\":1}}"),
                     "ERROR: corrupt OGG JSON message: \"before\" is null for op_type \"U\"; "
                     "GoldenGate must write before images (GETUPDATEBEFORES)");
    cr_assert_str_eq(cjt_decode("{\"op_type\":\"D\",\"after\":{\"id\":1}}"),
                     "ERROR: corrupt OGG JSON message: \"before\" is missing for op_type \"D\"; "
                     "GoldenGate must write before images (GETUPDATEBEFORES)");
    cr_assert_str_eq(cjt_decode("{\"op_type\":\"I\",\"before\":{\"id\":1}}"),
                     "ERROR: corrupt OGG JSON message: \"after\" is missing for op_type \"I\"");
    cr_assert_str_eq(cjt_decode("{\"op_type\":\"I\",\"after\":{\"id\":\"1x\"}}"),
                     "ERROR: corrupt OGG JSON message: \"after\": field \"id\": expected INT, "
                     "found string \"1x\"");
}

T(timestamp_metadata_forms)
{
    cjt_open("ogg-json", CJT_SCHEMA, OGG_META, NULL);
    cr_assert_str_eq(cjt_decode("{\"op_type\":\"I\",\"after\":{\"id\":1},"
                                "\"current_ts\":\"2020-05-13T15:40:06.123456789+02:00\","
                                "\"op_ts\":\"2020-05-13 15:40:06\"}"),
                     "+I[1, null, null, null]\n");
    cr_assert_str_eq(cjt_meta(0, 2), "2020-05-13T13:40:06.123456Z");
    cr_assert_str_eq(cjt_meta(0, 3), "2020-05-13T15:40:06.000000Z");
    cr_assert_str_eq(cjt_decode("{\"op_type\":\"I\",\"after\":{\"id\":1},\"op_ts\":\"yesterday\"}"),
                     "ERROR: corrupt OGG JSON message: \"op_ts\": expected a timestamp "
                     "\"yyyy-MM-dd HH:mm:ss.ffffff\", found string \"yesterday\"");
    cr_assert_str_eq(
        cjt_decode("{\"op_type\":\"I\",\"after\":{\"id\":1},\"op_ts\":\"2020-05-13\"}"),
        "ERROR: corrupt OGG JSON message: \"op_ts\": expected a timestamp "
        "\"yyyy-MM-dd HH:mm:ss.ffffff\", found string \"2020-05-13\"");
}

T(ignore_parse_errors_drops_and_counts)
{
    cjt_open("ogg-json", CJT_SCHEMA, NULL, "ignore-parse-errors", "true", NULL);
    cr_assert_str_eq(cjt_decode("{\"op_type\":\"Z\"}"), "SKIPPED");
    cr_assert_str_eq(cjt_decode("{\"op_type\":\"U\",\"after\":{\"id\":1}}"), "SKIPPED");
    cr_assert_eq(cjt.deser->skipped, 2);
}

T(factory_declarations)
{
    const char *options[] = {
        "ignore-parse-errors",  "timestamp-format.standard",      "map-null-key.mode",
        "map-null-key.literal", "encode.decimal-as-plain-number", NULL};
    const char *metadata[] = {"table", "primary-keys", "ingestion-timestamp", "event-timestamp",
                              NULL};
    cjt_check_factory("ogg-json", options, metadata);
}

/* ---- robustness ------------------------------------------------------------------------------ */

T(robustness)
{
    cjt_open("ogg-json", CJT_WIDE_SCHEMA, OGG_META, NULL);
    cjt_robustness(
        "{\"table\":\"S.T\",\"op_type\":\"U\",\"op_ts\":\"2020-05-13 15:40:06.000000\","
        "\"current_ts\":\"2020-05-13T13:39:35.766000\",\"primary_keys\":[\"id\"],"
        "\"before\":{\"id\":1,\"name\":\"o\",\"arr\":[1,2],\"m\":{\"k\":2}},"
        "\"after\":{\"id\":1,\"name\":\"n\",\"bin\":\"AQI=\",\"r\":{\"a\":1,\"b\":\"x\"}}}");
}

/* ---- regressions found by the fuzzers ------------------------------------------------------- */

/* An empty "primary_keys" as the first collection a deserializer sees: memcpy from a scratch
 * vector not yet allocated (found by fuzz/canal_json.c in the shared engine). */
T(regress_empty_primary_keys_first)
{
    cjt_open("ogg-json", CJT_SCHEMA, OGG_META, NULL);
    cr_assert_str_eq(cjt_decode("{\"op_type\":\"I\",\"after\":{\"id\":1},\"primary_keys\":[]}"),
                     "+I[1, null, null, null]\n");
    cr_assert_str_eq(cjt_meta(0, 1), "[]");
}

/* Issue 18, 4: a repeated key's last value wins (Jackson's rule), as in every JSON format. */
T(duplicate_keys_last_wins)
{
    cjt_open("ogg-json", CJT_SCHEMA, NULL, NULL);
    cr_assert_str_eq(cjt_decode("{\"op_type\":\"I\",\"after\":{\"id\":1},\"after\":{\"id\":2,"
                                "\"weight\":1.5,\"weight\":2.5}}"),
                     "+I[2, null, null, 2.5]\n");
    cr_assert_str_eq(cjt_decode("{\"op_type\":\"I\",\"before\":{\"id\":3},\"op_type\":\"D\"}"),
                     "-D[3, null, null, null]\n");
}
