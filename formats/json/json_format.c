/*
 * json_format.c — the `json` format (Flink's format='json'): one JSON object
 * per message to one +I row, and +I rows back to JSON objects.
 *
 * The deserializer lives in json_decode.c beside the row decoder it drives
 * (so yajl's callbacks inline it); the serializer uses the shared writers of
 * json_encode.c. Options and their descriptions live in one table below;
 * `cdcflow describe json` prints it.
 */
#include <stdlib.h>
#include <string.h>

#include "cdc_json.h"

const char *const cdc_json_timestamp_standards[] = {"SQL", "ISO-8601", NULL};
const char *const cdc_json_map_null_key_modes[] = {"FAIL", "DROP", "LITERAL", NULL};

static const cdc_option_def_t json_options[] = {
    {.key = "fail-on-missing-field",
     .type = CDC_OPT_BOOL,
     .default_value = "false",
     .description = "Fail when a field of the schema is absent from a JSON object (absent "
                    "fields are NULL otherwise). Cannot be combined with ignore-parse-errors."},
    {.key = "ignore-parse-errors",
     .type = CDC_OPT_BOOL,
     .default_value = "false",
     .description = "Drop a message that fails to decode and count it, instead of failing. "
                    "(Flink sets only the bad field to NULL; cdcflow drops the whole message.)"},
    CDC_JSON_OPTDEF_TIMESTAMP_STANDARD,
    CDC_JSON_OPTDEF_MAP_NULL_KEY_MODE,
    CDC_JSON_OPTDEF_MAP_NULL_KEY_LITERAL,
    CDC_JSON_OPTDEF_DECIMAL_AS_PLAIN,
    {.key = "encode.ignore-null-fields",
     .type = CDC_OPT_BOOL,
     .default_value = "false",
     .description = "Leave fields whose value is NULL out of the written JSON objects."},
    {0},
};

static void json_check(const cdc_config_t *cfg, cdc_buf_t *problems)
{
    if (cdc_config_bool(cfg, "fail-on-missing-field") &&
        cdc_config_bool(cfg, "ignore-parse-errors"))
        cdc_buf_puts(problems,
                     "fail-on-missing-field and ignore-parse-errors shouldn't both be true.\n");
}

void cdc_json_encode_opts_read(const cdc_config_t *cfg, cdc_json_encode_opts_t *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->iso8601 = cdc_config_enum(cfg, "timestamp-format.standard") == 1;
    opts->map_null_key_mode = (cdc_json_map_null_key_t)cdc_config_enum(cfg, "map-null-key.mode");
    opts->map_null_key_literal = cdc_config_str(cfg, "map-null-key.literal");
    opts->decimal_as_plain_number = cdc_config_bool(cfg, "encode.decimal-as-plain-number");
}

/* Checks what both directions need from the context; copies the row type. */
static int check_ctx(const cdc_format_ctx_t *ctx, cdc_type_t **row_type, cdc_error_t **err)
{
    if (!ctx->row_type || ctx->row_type->root != CDC_T_ROW)
        return cdc_error_set(err, CDC_ERR_INTERNAL, "format \"json\" needs a ROW type");
    if (ctx->nmetadata > 0) {
        cdc_error_t *e = cdc_error_new(CDC_ERR_OPTION, "format \"json\" has no metadata key \"%s\"",
                                       ctx->metadata[0]);
        cdc_error_set_hint(e, "the json format offers no metadata; remove the METADATA column.");
        if (ctx->table)
            cdc_error_add_context(e, "table \"%s\"", ctx->table);
        if (err) {
            cdc_error_destroy(*err);
            *err = e;
        } else {
            cdc_error_destroy(e);
        }
        return -1;
    }
    if (cdc_json_check_type(ctx->row_type, err) < 0) {
        if (err && ctx->table)
            cdc_error_add_context(*err, "table \"%s\"", ctx->table);
        return -1;
    }
    *row_type = cdc_type_copy(ctx->row_type);
    return 0;
}

/* ---- deserializer (json_decode.c) ----------------------------------------------------- */

static int json_deser_new(const cdc_format_ctx_t *ctx, cdc_deser_t **out, cdc_error_t **err)
{
    cdc_type_t *row_type = NULL;
    if (check_ctx(ctx, &row_type, err) < 0)
        return -1;
    cdc_json_opts_t opts = {
        .fail_on_missing_field = cdc_config_bool(ctx->cfg, "fail-on-missing-field"),
        .iso8601 = cdc_config_enum(ctx->cfg, "timestamp-format.standard") == 1,
    };
    *out = cdc_json_deser_new(row_type, &opts, cdc_config_bool(ctx->cfg, "ignore-parse-errors"));
    return 0;
}

/* ---- serializer ------------------------------------------------------------------------- */

typedef struct json_ser_s {
    cdc_ser_t base;
    cdc_type_t *row_type;
    cdc_json_encode_opts_t opts;
    char *literal;
} json_ser_t;

static int json_encode(cdc_ser_t *base, const cdc_row_t *row, cdc_buf_t *out)
{
    json_ser_t *s = (json_ser_t *)base;
    if (row->kind != CDC_INSERT) {
        cdc_buf_clear(&s->base.errmsg);
        cdc_buf_printf(&s->base.errmsg,
                       "format \"json\" writes only insert (+I) rows, found a %s row",
                       cdc_kind_short(row->kind));
        return -1;
    }
    size_t start = out->len;
    if (cdc_json_write_row(out, row, s->row_type, &s->opts) < 0) {
        out->len = start;
        cdc_buf_clear(&s->base.errmsg);
        cdc_buf_puts(&s->base.errmsg, CDC_JSON_ERR_MAP_NULL_KEY);
        return -1;
    }
    return 0;
}

static void json_ser_destroy(cdc_ser_t *base)
{
    json_ser_t *s = (json_ser_t *)base;
    if (!s)
        return;
    cdc_type_destroy(s->row_type);
    cdc_buf_free(&s->base.errmsg);
    free(s->literal);
    free(s);
}

static const cdc_ser_ops_t json_ser_ops = {
    .encode = json_encode,
    .destroy = json_ser_destroy,
};

static int json_ser_new(const cdc_format_ctx_t *ctx, cdc_ser_t **out, cdc_error_t **err)
{
    cdc_type_t *row_type = NULL;
    if (check_ctx(ctx, &row_type, err) < 0)
        return -1;
    json_ser_t *s = cdc_xcalloc(1, sizeof(*s));
    s->base.ops = &json_ser_ops;
    s->row_type = row_type;
    cdc_json_encode_opts_read(ctx->cfg, &s->opts);
    s->opts.ignore_null_fields = cdc_config_bool(ctx->cfg, "encode.ignore-null-fields");
    /* own the literal: the serializer may outlive the config */
    s->literal = cdc_xstrdup(s->opts.map_null_key_literal ? s->opts.map_null_key_literal : "null");
    s->opts.map_null_key_literal = s->literal;
    *out = &s->base;
    return 0;
}

const cdc_format_factory_t cdc_format_json = {
    .identifier = "json",
    .description = "JSON objects, one per message (or a top-level array of them), as Flink's "
                   "json format; insert-only.",
    .options = json_options,
    .check = json_check,
    .metadata = NULL,
    .decode_mode = NULL, /* insert-only */
    .encode_mode = NULL, /* insert-only */
    .deser_new = json_deser_new,
    .ser_new = json_ser_new,
};
