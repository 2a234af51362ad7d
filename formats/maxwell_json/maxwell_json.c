/*
 * maxwell_json.c — the `maxwell-json` format (Flink's format='maxwell-json'):
 * Maxwell's daemon JSON messages to changelog rows, and rows back.
 *
 *   {"database":"test","table":"product","type":"update","ts":1596684893,
 *    "data":{..},"old":{"weight":5.3},"primary_key_columns":["id"]}
 * insert (and bootstrap-insert) gives +I from "data"; update gives -U (data
 * overlaid with the changed columns in "old") then +U (data); delete gives -D.
 * bootstrap-start / bootstrap-complete markers and DDL (database-create,
 * table-alter, ...) carry no rows and are skipped. "ts" is in seconds.
 *
 * The envelope parsing is the shared engine in ../canal_json/cdc_cdcjson_common.c.
 */
#include <string.h>

#include "../canal_json/cdc_cdcjson_common.h"

/* Envelope keys (indexes into maxwell_fields). */
enum { F_DATA, F_OLD, F_TYPE, F_DATABASE, F_TABLE, F_PK, F_TS };

static const cdc_cj_field_t maxwell_fields[] = {
    [F_DATA] = {.key = "data", .kind = CDC_CJ_ROWS},
    [F_OLD] = {.key = "old", .kind = CDC_CJ_OVERLAY},
    [F_TYPE] = {.key = "type", .kind = CDC_CJ_TEXT},
    [F_DATABASE] = {.key = "database", .kind = CDC_CJ_TEXT},
    [F_TABLE] = {.key = "table", .kind = CDC_CJ_TEXT},
    [F_PK] = {.key = "primary_key_columns", .kind = CDC_CJ_TEXT_ARRAY, .meta_only = true},
    [F_TS] = {.key = "ts", .kind = CDC_CJ_INT, .meta_only = true},
    {0},
};

static const cdc_metadata_def_t maxwell_metadata[] = {
    {"database", "STRING", "Database of the change (\"database\").", false},
    {"table", "STRING", "Table of the change (\"table\").", false},
    {"primary-key-columns", "ARRAY<STRING>", "Primary key columns (\"primary_key_columns\").",
     false},
    {"ingestion-timestamp", "TIMESTAMP_LTZ(3)",
     "When Maxwell processed the change (\"ts\", in seconds).", false},
    {0},
};

static const cdc_cj_meta_src_t maxwell_meta_src[] = {
    {F_DATABASE, CDC_CJ_META_AS_IS, 0},
    {F_TABLE, CDC_CJ_META_AS_IS, 0},
    {F_PK, CDC_CJ_META_AS_IS, 0},
    {F_TS, CDC_CJ_META_SECONDS, 3},
};

static const cdc_option_def_t maxwell_options[] = {
    CDC_CJ_OPTDEF_IGNORE_PARSE_ERRORS,
    CDC_CJ_OPTDEFS_JSON,
    {0},
};

/* Types without rows: bootstrap markers and DDL (Maxwell's output_ddl). */
static bool maxwell_no_rows(const cdc_cj_deser_t *cj)
{
    static const char *const types[] = {"bootstrap-start", "bootstrap-complete", "database-create",
                                        "database-alter",  "database-drop",      "table-create",
                                        "table-alter",     "table-drop",         NULL};
    for (int i = 0; types[i]; i++)
        if (cdc_cj_text_is(cj, F_TYPE, types[i]))
            return true;
    return false;
}

static int maxwell_finish(cdc_cj_deser_t *cj, cdc_batch_t *out)
{
    const cdc_cj_slot_t *type = &cj->slots[F_TYPE];
    if (type->state == CDC_CJ_BAD)
        return cdc_cj_pending(cj);
    if (type->state != CDC_CJ_SET)
        return cdc_cj_fail(cj, "\"type\" is %s", type->state == CDC_CJ_NULL ? "null" : "missing");
    bool insert =
        cdc_cj_text_is(cj, F_TYPE, "insert") || cdc_cj_text_is(cj, F_TYPE, "bootstrap-insert");
    bool update = cdc_cj_text_is(cj, F_TYPE, "update");
    bool delete = cdc_cj_text_is(cj, F_TYPE, "delete");
    if (!insert && !update && !delete) {
        if (maxwell_no_rows(cj))
            return 0;
        uint32_t n = type->val.v.s.len > 60 ? 60 : type->val.v.s.len;
        return cdc_cj_fail(cj, "unknown \"type\" value \"%.*s%s\"", (int)n, type->val.v.s.ptr,
                           n < type->val.v.s.len ? "..." : "");
    }
    if (cdc_cj_pending(cj) < 0)
        return -1;
    const cdc_cj_slot_t *data = &cj->slots[F_DATA];
    if (data->state != CDC_CJ_SET)
        return cdc_cj_fail(cj, "\"data\" is %s", data->state == CDC_CJ_NULL ? "null" : "missing");
    if (cdc_cj_build_meta(cj, out) < 0)
        return -1;
    cdc_cj_set_origin(cj, out, F_DATABASE, F_TABLE);
    const cdc_cj_item_t *row = cdc_cj_item(cj, F_DATA, 0);
    if (insert)
        return cdc_cj_emit(cj, out, CDC_INSERT, row, NULL, NULL);
    if (delete)
        return cdc_cj_emit(cj, out, CDC_DELETE, row, NULL, NULL);
    /* no "old" (or null): no column changed, the before-image is data */
    const cdc_cj_item_t *old =
        cj->slots[F_OLD].state == CDC_CJ_SET ? cdc_cj_item(cj, F_OLD, 0) : NULL;
    if (cdc_cj_emit(cj, out, CDC_UPDATE_BEFORE, row, old, "\"old\"") < 0)
        return -1;
    return cdc_cj_emit(cj, out, CDC_UPDATE_AFTER, row, NULL, NULL);
}

static const cdc_cj_format_t maxwell_format = {
    .name = "Maxwell",
    .identifier = "maxwell-json",
    .fields = maxwell_fields,
    .metadata = maxwell_metadata,
    .meta_src = maxwell_meta_src,
    .deser_size = sizeof(cdc_cj_deser_t),
    .finish = maxwell_finish,
    .insert_prefix = "{\"data\":",
    .insert_suffix = ",\"type\":\"insert\"}",
    .delete_prefix = "{\"data\":",
    .delete_suffix = ",\"type\":\"delete\"}",
};

CDC_CJ_CONSTRUCTORS(maxwell, maxwell_format)

const cdc_format_factory_t cdc_format_maxwell_json = {
    .identifier = "maxwell-json",
    .description = "Maxwell JSON change messages (data/old objects, type insert/update/delete), "
                   "as Flink's maxwell-json format.",
    .options = maxwell_options,
    .check = NULL,
    .metadata = maxwell_metadata,
    .decode_mode = cdc_cj_mode_all,
    .encode_mode = cdc_cj_mode_all,
    .deser_new = maxwell_deser_new,
    .ser_new = maxwell_ser_new,
};
