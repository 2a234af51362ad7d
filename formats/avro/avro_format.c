/*
 * avro_format.c — the factories of the Avro formats, as Flink names them:
 *  - `avro`: plain Avro binary, no header, in the schema derived from the
 *    table (Flink's AvroSchemaConverter); insert-only.
 *  - `avro-confluent`: the Confluent wire format (magic byte 0, 4-byte
 *    big-endian schema id, Avro binary); the writer schema is fetched from the
 *    Schema Registry by id and resolved against the table by field name; on
 *    write, the table's schema (or option `schema`) is registered under
 *    `subject` and its id put in each message. Insert-only.
 *  - `debezium-avro-confluent`: Debezium change events (before/after/op) in
 *    the same wire format: c/r +I, u -U/+U, d -D; writes d and c as Flink does.
 *
 * The deserializer keeps one reader and the registry's cache of resolved
 * writer schemas: a message whose schema id was seen costs no allocation
 * beyond the values in the batch's arena.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avro_int.h"

enum { FMT_AVRO, FMT_CONFLUENT, FMT_DEBEZIUM };
static const char *const fmt_names[] = {"avro", "avro-confluent", "debezium-avro-confluent"};

/* ---- options ----------------------------------------------------------------------------------
 */

static const char *const basic_sources[] = {"USER_INFO", "URL", NULL};
static const char *const bearer_sources[] = {"STATIC_TOKEN", NULL};

#define AV_IGNORE_PARSE_ERRORS_DEF                                                                 \
    {                                                                                              \
        .key = "ignore-parse-errors", .type = CDC_OPT_BOOL, .default_value = "false",              \
        .description = "(cdcflow) Drop a message that fails to decode and count it, instead of "   \
                       "failing."                                                                  \
    }

#define AV_REGISTRY_OPTION_DEFS                                                                    \
    {.key = "url",                                                                                 \
     .type = CDC_OPT_STRING,                                                                       \
     .flags = CDC_OPT_REQUIRED,                                                                    \
     .description = "URL of the Confluent Schema Registry (http://host:8081) that holds the "      \
                    "writer schemas by id and where the table's schema is registered."},           \
        {.key = "subject",                                                                         \
         .type = CDC_OPT_STRING,                                                                   \
         .description = "Serialization: the subject the table's schema is registered under "       \
                        "(POST /subjects/{subject}/versions), e.g. '<topic>-value'. Required to "  \
                        "write."},                                                                 \
        {.key = "schema",                                                                          \
         .type = CDC_OPT_STRING,                                                                   \
         .description = "Serialization: the Avro schema to register instead of the one derived "   \
                        "from the table; it must have the derived schema's shape (types and "      \
                        "fields in order; names, namespaces and docs may differ)."},               \
        {.key = "properties.",                                                                     \
         .type = CDC_OPT_PREFIX,                                                                   \
         .description = "Schema Registry client properties. cdcflow reads "                        \
                        "basic.auth.user.info and bearer.auth.token (when the options below are "  \
                        "unset); other keys are accepted and ignored."},                           \
        {.key = "basic-auth.credentials-source",                                                   \
         .type = CDC_OPT_ENUM,                                                                     \
         .enum_values = basic_sources,                                                             \
         .description = "USER_INFO: basic-auth.user-info; URL: the credentials in the url "        \
                        "(http://user:password@host)."},                                           \
        {.key = "basic-auth.user-info",                                                            \
         .type = CDC_OPT_STRING,                                                                   \
         .flags = CDC_OPT_SECRET,                                                                  \
         .description = "Basic authentication 'user:password' for the registry."},                 \
        {.key = "bearer-auth.credentials-source",                                                  \
         .type = CDC_OPT_ENUM,                                                                     \
         .enum_values = bearer_sources,                                                            \
         .description = "STATIC_TOKEN: bearer-auth.token."},                                       \
        {.key = "bearer-auth.token",                                                               \
         .type = CDC_OPT_STRING,                                                                   \
         .flags = CDC_OPT_SECRET,                                                                  \
         .description = "Bearer token sent to the registry (Authorization: Bearer ...)."},         \
        AV_IGNORE_PARSE_ERRORS_DEF

static const cdc_option_def_t avro_options[] = {AV_IGNORE_PARSE_ERRORS_DEF, {0}};
static const cdc_option_def_t confluent_options[] = {AV_REGISTRY_OPTION_DEFS, {0}};
static const cdc_option_def_t debezium_options[] = {AV_REGISTRY_OPTION_DEFS, {0}};

/* ---- the deserializer -------------------------------------------------------------------------
 */

typedef struct av_deser_s {
    cdc_deser_t base;
    int fmt;
    cdc_type_t *row_type;   /* the table's ROW */
    cdc_type_t *read_type;  /* what a message is resolved against: row_type, or the envelope */
    av_resolved_t *derived; /* `avro`: the table's own schema */
    av_registry_t *reg;
    uint32_t arity;
    bool ignore_errors;
    av_reader_t rd;
    cdc_value_t env[3]; /* debezium: before, after, op */
} av_deser_t;

/* ROW<before ROW<...> NULL, after ROW<...> NULL, op STRING>: what a Debezium envelope is read as
 * (and written from). Takes nothing; returns a new type. */
static cdc_type_t *envelope_type(const cdc_type_t *row)
{
    cdc_type_t *env = cdc_type_new_row();
    cdc_type_t *b = cdc_type_copy(row), *a = cdc_type_copy(row);
    b->nullable = a->nullable = true;
    cdc_type_row_add(env, "before", b);
    cdc_type_row_add(env, "after", a);
    cdc_type_row_add(env, "op", cdc_type_new(CDC_T_VARCHAR));
    env->children[2]->length = CDC_MAX_LENGTH;
    return env;
}

static int fail_message(av_deser_t *d, cdc_batch_t *out, uint32_t n0)
{
    out->n = n0;
    if (d->ignore_errors) {
        d->base.skipped++;
        return CDC_DECODE_SKIPPED;
    }
    return CDC_DECODE_ERROR;
}

/* Prefixes the reader's error with the field path: field "after.price" at byte 17: ... */
static void error_with_path(av_deser_t *d)
{
    if (!d->rd.nerrpath)
        return;
    cdc_buf_t tmp = {0};
    cdc_buf_puts(&tmp, "field \"");
    for (int i = d->rd.nerrpath - 1; i >= 0; i--)
        cdc_buf_printf(&tmp, "%s%s", d->rd.errpath[i], i ? "." : "");
    cdc_buf_puts(&tmp, "\" ");
    cdc_buf_append(&tmp, d->base.errmsg.data, d->base.errmsg.len);
    cdc_buf_clear(&d->base.errmsg);
    cdc_buf_append(&d->base.errmsg, tmp.data, tmp.len);
    cdc_buf_free(&tmp);
}

static int emit(av_deser_t *d, cdc_batch_t *out, cdc_kind_t kind, const cdc_value_t *image)
{
    cdc_row_t *row = cdc_batch_add(out, kind, d->arity);
    memcpy(row->values, image->v.row->values, d->arity * sizeof(cdc_value_t));
    return 0;
}

static int debezium_rows(av_deser_t *d, cdc_batch_t *out)
{
    const cdc_value_t *before = &d->env[0], *after = &d->env[1], *op = &d->env[2];
    char c = !cdc_value_is_null(op) && op->v.s.len == 1 ? op->v.s.ptr[0] : '?';
    bool has_b = !cdc_value_is_null(before), has_a = !cdc_value_is_null(after);
    cdc_buf_clear(&d->base.errmsg);
    switch (c) {
    case 'c':
    case 'r':
        if (!has_a)
            break;
        return emit(d, out, CDC_INSERT, after);
    case 'u':
        if (!has_b || !has_a)
            break;
        emit(d, out, CDC_UPDATE_BEFORE, before);
        return emit(d, out, CDC_UPDATE_AFTER, after);
    case 'd':
        if (!has_b)
            break;
        return emit(d, out, CDC_DELETE, before);
    case 't':
    case 'm':
        return 0; /* truncate and logical messages carry no row */
    default:
        if (cdc_value_is_null(op))
            cdc_buf_puts(&d->base.errmsg, "field \"op\" is null or absent: not a Debezium change "
                                          "event");
        else
            cdc_buf_printf(&d->base.errmsg, "unknown op \"%.*s\" (expected c, r, u, d, t or m)",
                           (int)(op->v.s.len > 32 ? 32 : op->v.s.len), op->v.s.ptr);
        return -1;
    }
    cdc_buf_printf(&d->base.errmsg, "op \"%c\" with a null \"%s\"%s", c,
                   c == 'd' || (c == 'u' && !has_b) ? "before" : "after",
                   c == 'd' || c == 'u' ? "; for PostgreSQL set REPLICA IDENTITY FULL on the table"
                                        : "");
    return -1;
}

static int av_decode(cdc_deser_t *base, const char *msg, size_t len, cdc_batch_t *out)
{
    av_deser_t *d = (av_deser_t *)base;
    uint32_t n0 = out->n;
    if (!msg || len == 0)
        return CDC_DECODE_OK; /* tombstone */
    const uint8_t *p = (const uint8_t *)msg;
    av_reader_t *rd = &d->rd;
    const av_resolved_t *res = d->derived;
    rd->base = 0;
    if (d->fmt != FMT_AVRO) {
        cdc_buf_clear(&d->base.errmsg);
        if (p[0] != 0) {
            cdc_buf_printf(&d->base.errmsg,
                           "at byte 0: unknown magic byte 0x%02x (the Confluent wire format "
                           "starts with 0x00, a 4-byte schema id and the Avro data)%s",
                           p[0],
                           p[0] == '{' ? "; the message looks like JSON: use a JSON format" : "");
            return fail_message(d, out, n0);
        }
        if (len < 5) {
            cdc_buf_printf(&d->base.errmsg,
                           "at byte %zu: the message ends inside the 5-byte Confluent header", len);
            return fail_message(d, out, n0);
        }
        int32_t id = (int32_t)(((uint32_t)p[1] << 24) | ((uint32_t)p[2] << 16) |
                               ((uint32_t)p[3] << 8) | p[4]);
        res = av_registry_resolved(d->reg, id, d->read_type, &d->base.errmsg);
        if (!res)
            return fail_message(d, out, n0);
        p += 5;
        rd->base = 5;
    }
    rd->start = rd->p = p;
    rd->end = (const uint8_t *)msg + len;
    rd->arena = &out->arena;
    rd->nerrpath = 0;
    rd->depth = 0;
    int rc;
    if (d->fmt == FMT_DEBEZIUM) {
        rc = av_read_record(rd, res->root, d->env);
    } else {
        cdc_row_t *row = cdc_batch_add(out, CDC_INSERT, d->arity);
        rc = av_read_record(rd, res->root, row->values);
    }
    if (rc == 0 && rd->p != rd->end)
        rc = av_fail(rd, "%zu bytes left after the record", (size_t)(rd->end - rd->p));
    if (rc < 0) {
        error_with_path(d);
        return fail_message(d, out, n0);
    }
    if (d->fmt == FMT_DEBEZIUM && debezium_rows(d, out) < 0)
        return fail_message(d, out, n0);
    return CDC_DECODE_OK;
}

static void av_deser_destroy(cdc_deser_t *base)
{
    av_deser_t *d = (av_deser_t *)base;
    if (!d)
        return;
    av_resolved_destroy(d->derived);
    av_registry_destroy(d->reg);
    if (d->read_type != d->row_type)
        cdc_type_destroy(d->read_type);
    cdc_type_destroy(d->row_type);
    cdc_buf_free(&d->base.errmsg);
    free(d);
}

static const cdc_deser_ops_t av_deser_ops = {
    .decode = av_decode,
    .destroy = av_deser_destroy,
};

static int check_ctx(const cdc_format_ctx_t *ctx, int fmt, cdc_error_t **err)
{
    if (!ctx->row_type || ctx->row_type->root != CDC_T_ROW)
        return cdc_error_set(err, CDC_ERR_INTERNAL, "format \"%s\" needs a ROW type",
                             fmt_names[fmt]);
    if (ctx->nmetadata > 0)
        return cdc_error_set(err, CDC_ERR_OPTION, "format \"%s\" has no metadata key \"%s\"",
                             fmt_names[fmt], ctx->metadata[0]);
    return 0;
}

/* The table's own schema, parsed and resolved against the table. */
static av_resolved_t *derived_resolved(const cdc_type_t *row, const char *name, cdc_buf_t *json,
                                       cdc_error_t **err)
{
    if (av_schema_derive(row, name, json, err) < 0)
        return NULL;
    char *why = NULL;
    av_schema_t *s = av_schema_parse(json->data, json->len, &why);
    if (!s) {
        cdc_error_set(err, CDC_ERR_INTERNAL, "the derived Avro schema does not parse: %s", why);
        free(why);
        return NULL;
    }
    return av_resolve(s, row, err);
}

static int deser_new(const cdc_format_ctx_t *ctx, int fmt, cdc_deser_t **out, cdc_error_t **err)
{
    if (check_ctx(ctx, fmt, err) < 0)
        return -1;
    av_deser_t *d = cdc_xcalloc(1, sizeof(*d));
    d->base.ops = &av_deser_ops;
    d->fmt = fmt;
    d->row_type = cdc_type_copy(ctx->row_type);
    d->read_type = fmt == FMT_DEBEZIUM ? envelope_type(d->row_type) : d->row_type;
    d->arity = (uint32_t)d->row_type->nchildren;
    d->ignore_errors = cdc_config_bool(ctx->cfg, "ignore-parse-errors");
    d->rd.err = &d->base.errmsg;
    if (fmt == FMT_AVRO) {
        cdc_buf_t json = {0};
        d->derived = derived_resolved(d->row_type, "record", &json, err);
        cdc_buf_free(&json);
        if (!d->derived) {
            av_deser_destroy(&d->base);
            return -1;
        }
    } else if (!(d->reg = av_registry_new(ctx->cfg, fmt_names[fmt], err))) {
        av_deser_destroy(&d->base);
        return -1;
    }
    *out = &d->base;
    return 0;
}

static int avro_deser_new(const cdc_format_ctx_t *ctx, cdc_deser_t **out, cdc_error_t **err)
{
    return deser_new(ctx, FMT_AVRO, out, err);
}

static int confluent_deser_new(const cdc_format_ctx_t *ctx, cdc_deser_t **out, cdc_error_t **err)
{
    return deser_new(ctx, FMT_CONFLUENT, out, err);
}

static int debezium_deser_new(const cdc_format_ctx_t *ctx, cdc_deser_t **out, cdc_error_t **err)
{
    return deser_new(ctx, FMT_DEBEZIUM, out, err);
}

/* ---- the serializer ---------------------------------------------------------------------------
 */

typedef struct av_ser_s {
    cdc_ser_t base;
    int fmt;
    cdc_type_t *row_type;
    cdc_type_t *write_type; /* row_type, or the envelope */
    av_registry_t *reg;
    char *subject;
    cdc_buf_t schema; /* what is registered */
    int32_t id;       /* -1 until registered */
    cdc_row_t env;
    cdc_value_t envv[3];
    cdc_row_t image;
} av_ser_t;

static int av_encode(cdc_ser_t *base, const cdc_row_t *row, cdc_buf_t *out)
{
    av_ser_t *s = (av_ser_t *)base;
    if (s->fmt != FMT_AVRO) {
        if (s->id < 0) {
            cdc_error_t *e = NULL;
            if (av_registry_register(s->reg, s->subject, cdc_buf_cstr(&s->schema), &s->id, &e) <
                0) {
                cdc_buf_clear(&s->base.errmsg);
                cdc_buf_printf(&s->base.errmsg, "%s%s%s%s%s", e->message, e->detail ? ": " : "",
                               e->detail ? e->detail : "", e->hint ? "; hint: " : "",
                               e->hint ? e->hint : "");
                cdc_error_destroy(e);
                s->id = -1;
                return -1;
            }
        }
        uint32_t id = (uint32_t)s->id;
        char hdr[5] = {0, (char)(id >> 24), (char)(id >> 16), (char)(id >> 8), (char)id};
        cdc_buf_append(out, hdr, 5);
    }
    if (s->fmt != FMT_DEBEZIUM)
        return av_write_row(out, row, s->row_type, &s->base.errmsg);
    /* Flink's debezium-avro-confluent: +I/+U as "c" with after, -U/-D as "d" with before */
    bool add = row->kind == CDC_INSERT || row->kind == CDC_UPDATE_AFTER;
    s->image = *row;
    s->envv[0].flags = s->envv[1].flags = CDC_V_NULL;
    s->envv[add ? 1 : 0].flags = 0;
    s->envv[add ? 1 : 0].v.row = &s->image;
    s->envv[2].flags = 0;
    s->envv[2].v.s.ptr = add ? "c" : "d";
    s->envv[2].v.s.len = 1;
    return av_write_row(out, &s->env, s->write_type, &s->base.errmsg);
}

static void av_ser_destroy(cdc_ser_t *base)
{
    av_ser_t *s = (av_ser_t *)base;
    if (!s)
        return;
    av_registry_destroy(s->reg);
    if (s->write_type != s->row_type)
        cdc_type_destroy(s->write_type);
    cdc_type_destroy(s->row_type);
    free(s->subject);
    cdc_buf_free(&s->schema);
    cdc_buf_free(&s->base.errmsg);
    free(s);
}

static const cdc_ser_ops_t av_ser_ops = {
    .encode = av_encode,
    .destroy = av_ser_destroy,
};

/* Same shape: kinds, logical types, record fields in order, union branches (names aside). */
static bool same_shape(const av_node_t *a, const av_node_t *b, int depth)
{
    if (a->kind != b->kind || a->logical != b->logical || a->n != b->n || depth > 64)
        return false;
    if (a->logical == AV_LT_DECIMAL && a->scale != b->scale)
        return false;
    if (a->kind == AV_FIXED && a->size != b->size)
        return false;
    bool kids =
        a->kind == AV_RECORD || a->kind == AV_UNION || a->kind == AV_ARRAY || a->kind == AV_MAP;
    for (int32_t i = 0; kids && i < a->n; i++) {
        if (a->kind == AV_RECORD && strcmp(a->names[i], b->names[i]) != 0)
            return false;
        if (!same_shape(a->kids[i], b->kids[i], depth + 1))
            return false;
    }
    return true;
}

/* Option `schema`: registered instead of the derived one when it has the same shape. */
static int explicit_schema(av_ser_t *s, const char *text, cdc_error_t **err)
{
    char *why = NULL;
    av_schema_t *given = av_schema_parse(text, strlen(text), &why);
    av_schema_t *derived = av_schema_parse(s->schema.data, s->schema.len, &why);
    int rc = 0;
    if (!given || !derived) {
        rc = cdc_error_set(err, CDC_ERR_OPTION, "option \"schema\" of format \"%s\": %s",
                           fmt_names[s->fmt], why ? why : "does not parse");
    } else if (!same_shape(given->root, derived->root, 0)) {
        rc = cdc_error_set(err, CDC_ERR_OPTION,
                           "option \"schema\" of format \"%s\" does not match the table",
                           fmt_names[s->fmt]);
        if (err && *err) {
            cdc_error_set_detail(*err, "the table's schema is %s", cdc_buf_cstr(&s->schema));
            cdc_error_set_hint(*err, "give the fields in the table's order with the types of "
                                     "the README's mapping, or leave the option unset");
        }
    } else {
        cdc_buf_clear(&s->schema);
        cdc_buf_puts(&s->schema, text);
    }
    free(why);
    av_schema_destroy(given);
    av_schema_destroy(derived);
    return rc;
}

static int ser_new(const cdc_format_ctx_t *ctx, int fmt, cdc_ser_t **out, cdc_error_t **err)
{
    if (check_ctx(ctx, fmt, err) < 0)
        return -1;
    av_ser_t *s = cdc_xcalloc(1, sizeof(*s));
    s->base.ops = &av_ser_ops;
    s->fmt = fmt;
    s->id = -1;
    s->row_type = cdc_type_copy(ctx->row_type);
    s->write_type = fmt == FMT_DEBEZIUM ? envelope_type(s->row_type) : s->row_type;
    s->env.arity = 3;
    s->env.values = s->envv;
    int rc = av_schema_derive(s->write_type, "record", &s->schema, err);
    if (rc == 0 && fmt != FMT_AVRO) {
        const char *subject = cdc_config_str(ctx->cfg, "subject");
        const char *given = cdc_config_str(ctx->cfg, "schema");
        if (!subject || !*subject) {
            rc = cdc_error_set(err, CDC_ERR_OPTION,
                               "format \"%s\" needs option \"subject\" to write", fmt_names[fmt]);
            if (err && *err)
                cdc_error_set_hint(*err, "set '%s.subject', usually '<topic>-value'",
                                   fmt_names[fmt]);
        } else if (given && explicit_schema(s, given, err) < 0) {
            rc = -1;
        } else if (!(s->reg = av_registry_new(ctx->cfg, fmt_names[fmt], err))) {
            rc = -1;
        } else {
            s->subject = cdc_xstrdup(subject);
        }
    }
    if (rc < 0) {
        av_ser_destroy(&s->base);
        return -1;
    }
    *out = &s->base;
    return 0;
}

static int avro_ser_new(const cdc_format_ctx_t *ctx, cdc_ser_t **out, cdc_error_t **err)
{
    return ser_new(ctx, FMT_AVRO, out, err);
}

static int confluent_ser_new(const cdc_format_ctx_t *ctx, cdc_ser_t **out, cdc_error_t **err)
{
    return ser_new(ctx, FMT_CONFLUENT, out, err);
}

static int debezium_ser_new(const cdc_format_ctx_t *ctx, cdc_ser_t **out, cdc_error_t **err)
{
    return ser_new(ctx, FMT_DEBEZIUM, out, err);
}

/* ---- factories --------------------------------------------------------------------------------
 */

static cdc_changelog_mode_t debezium_mode(const cdc_config_t *cfg)
{
    (void)cfg;
    return CDC_MODE_ALL;
}

const cdc_format_factory_t cdc_format_avro = {
    .identifier = "avro",
    .description = "Avro binary without a header (Flink's avro format), in the schema derived "
                   "from the table; insert-only.",
    .options = avro_options,
    .deser_new = avro_deser_new,
    .ser_new = avro_ser_new,
    .decode_input = CDC_INPUT_HEX_LINES,
};

const cdc_format_factory_t cdc_format_avro_confluent = {
    .identifier = "avro-confluent",
    .description = "Avro in the Confluent wire format with a Schema Registry (Flink's "
                   "avro-confluent): writer schemas fetched by id and resolved against the "
                   "table by field name; writes register the table's schema under a subject.",
    .options = confluent_options,
    .deser_new = confluent_deser_new,
    .ser_new = confluent_ser_new,
    .decode_input = CDC_INPUT_HEX_LINES,
};

const cdc_format_factory_t cdc_format_debezium_avro_confluent = {
    .identifier = "debezium-avro-confluent",
    .description = "Debezium change events in Avro through a Confluent Schema Registry (Flink's "
                   "debezium-avro-confluent): c/r +I, u -U/+U, d -D; writes d + c.",
    .options = debezium_options,
    .decode_mode = debezium_mode,
    .encode_mode = debezium_mode,
    .deser_new = debezium_deser_new,
    .ser_new = debezium_ser_new,
    .decode_input = CDC_INPUT_HEX_LINES,
};
