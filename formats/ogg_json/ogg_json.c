/*
 * ogg_json.c — the `ogg-json` format (Flink's format='ogg-json'): Oracle
 * GoldenGate's JSON formatter output to changelog rows, and rows back.
 *
 *   {"table":"OGG.TBL_TEST","op_type":"U","op_ts":"2020-05-13 17:26:27.936000",
 *    "current_ts":"2020-05-13T17:26:35.123000","pos":"..","primary_keys":["id"],
 *    "before":{..},"after":{..}}
 * op_type I gives +I from "after"; U gives -U from "before" then +U from
 * "after"; D gives -D from "before"; T (truncate) carries no rows and is
 * skipped. "before" must be a full image (GoldenGate GETUPDATEBEFORES and
 * NOCOMPRESSUPDATES/NOCOMPRESSDELETES): columns it leaves out decode as NULL,
 * as in Flink. op_ts and current_ts are UTC unless they carry a zone.
 *
 * The envelope parsing is the shared engine in ../canal_json/cdc_cdcjson_common.c.
 */
#include <string.h>

#include "../canal_json/cdc_cdcjson_common.h"

/* Envelope keys (indexes into ogg_fields). */
enum { F_BEFORE, F_AFTER, F_OP, F_TABLE, F_PK, F_CURRENT_TS, F_OP_TS };

static const cdc_cj_field_t ogg_fields[] = {
    [F_BEFORE] = {.key = "before", .kind = CDC_CJ_ROWS},
    [F_AFTER] = {.key = "after", .kind = CDC_CJ_ROWS},
    [F_OP] = {.key = "op_type", .kind = CDC_CJ_TEXT},
    [F_TABLE] = {.key = "table", .kind = CDC_CJ_TEXT},
    [F_PK] = {.key = "primary_keys", .kind = CDC_CJ_TEXT_ARRAY, .meta_only = true},
    [F_CURRENT_TS] = {.key = "current_ts", .kind = CDC_CJ_TEXT, .meta_only = true},
    [F_OP_TS] = {.key = "op_ts", .kind = CDC_CJ_TEXT, .meta_only = true},
    {0},
};

static const cdc_metadata_def_t ogg_metadata[] = {
    {"table", "STRING", "Fully qualified table of the change (\"table\", e.g. SCHEMA.TABLE).",
     false},
    {"primary-keys", "ARRAY<STRING>", "Primary key columns (\"primary_keys\").", false},
    {"ingestion-timestamp", "TIMESTAMP_LTZ(6)",
     "When GoldenGate wrote the record (\"current_ts\", UTC).", false},
    {"event-timestamp", "TIMESTAMP_LTZ(6)",
     "When the change was committed in the database (\"op_ts\", UTC).", false},
    {0},
};

static const cdc_cj_meta_src_t ogg_meta_src[] = {
    {F_TABLE, CDC_CJ_META_AS_IS, 0},
    {F_PK, CDC_CJ_META_AS_IS, 0},
    {F_CURRENT_TS, CDC_CJ_META_TS_TEXT, 6},
    {F_OP_TS, CDC_CJ_META_TS_TEXT, 6},
};

static const cdc_option_def_t ogg_options[] = {
    CDC_CJ_OPTDEF_IGNORE_PARSE_ERRORS,
    CDC_CJ_OPTDEFS_JSON,
    {0},
};

/* The row image key k must be an object for this op_type. */
static int need(cdc_cj_deser_t *cj, int k, const char *op)
{
    uint8_t st = cj->slots[k].state;
    if (st == CDC_CJ_SET)
        return 0;
    return cdc_cj_fail(cj, "\"%s\" is %s for op_type \"%s\"%s", ogg_fields[k].key,
                       st == CDC_CJ_NULL ? "null" : "missing", op,
                       k == F_BEFORE ? "; GoldenGate must write before images "
                                       "(GETUPDATEBEFORES)"
                                     : "");
}

static int ogg_finish(cdc_cj_deser_t *cj, cdc_batch_t *out)
{
    const cdc_cj_slot_t *op = &cj->slots[F_OP];
    if (op->state == CDC_CJ_BAD)
        return cdc_cj_pending(cj);
    if (op->state != CDC_CJ_SET)
        return cdc_cj_fail(cj, "\"op_type\" is %s", op->state == CDC_CJ_NULL ? "null" : "missing");
    bool insert = cdc_cj_text_is(cj, F_OP, "I");
    bool update = cdc_cj_text_is(cj, F_OP, "U");
    bool delete = cdc_cj_text_is(cj, F_OP, "D");
    if (!insert && !update && !delete) {
        if (cdc_cj_text_is(cj, F_OP, "T"))
            return 0; /* truncate: no row images */
        uint32_t n = op->val.v.s.len > 60 ? 60 : op->val.v.s.len;
        return cdc_cj_fail(cj, "unknown \"op_type\" value \"%.*s%s\"", (int)n, op->val.v.s.ptr,
                           n < op->val.v.s.len ? "..." : "");
    }
    if (cdc_cj_pending(cj) < 0)
        return -1;
    const char *name = insert ? "I" : update ? "U" : "D";
    if ((update || delete) && need(cj, F_BEFORE, name) < 0)
        return -1;
    if ((insert || update) && need(cj, F_AFTER, name) < 0)
        return -1;
    if (cdc_cj_build_meta(cj, out) < 0)
        return -1;
    cdc_cj_set_origin(cj, out, -1, F_TABLE);
    if (update || delete)
        cdc_cj_emit(cj, out, update ? CDC_UPDATE_BEFORE : CDC_DELETE, cdc_cj_item(cj, F_BEFORE, 0),
                    NULL, NULL);
    if (insert || update)
        cdc_cj_emit(cj, out, insert ? CDC_INSERT : CDC_UPDATE_AFTER, cdc_cj_item(cj, F_AFTER, 0),
                    NULL, NULL);
    return 0;
}

static const cdc_cj_format_t ogg_format = {
    .name = "OGG",
    .identifier = "ogg-json",
    .fields = ogg_fields,
    .metadata = ogg_metadata,
    .meta_src = ogg_meta_src,
    .deser_size = sizeof(cdc_cj_deser_t),
    .finish = ogg_finish,
    .insert_prefix = "{\"before\":null,\"after\":",
    .insert_suffix = ",\"op_type\":\"I\"}",
    .delete_prefix = "{\"before\":",
    .delete_suffix = ",\"after\":null,\"op_type\":\"D\"}",
};

CDC_CJ_CONSTRUCTORS(ogg, ogg_format)

const cdc_format_factory_t cdc_format_ogg_json = {
    .identifier = "ogg-json",
    .description = "Oracle GoldenGate JSON change records (before/after, op_type I/U/D), as "
                   "Flink's ogg-json format.",
    .options = ogg_options,
    .check = NULL,
    .metadata = ogg_metadata,
    .decode_mode = cdc_cj_mode_all,
    .encode_mode = cdc_cj_mode_all,
    .deser_new = ogg_deser_new,
    .ser_new = ogg_ser_new,
};
