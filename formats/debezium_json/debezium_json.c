/*
 * debezium_json.c — the `debezium-json` format (Flink's format='debezium-json'):
 * Debezium change events, with or without the Kafka Connect schema envelope,
 * to -U/+U/+I/-D rows; rows back to Debezium events as Flink writes them.
 *
 * Decoding is one pass of yajl events through a small frame stack: the
 * envelope, its `source`, the Connect `schema` (only what says how each
 * column is encoded), and the `before`/`after` row images. Scalar columns are
 * converted here (dbz_convert.c knows the Debezium semantic types); nested
 * columns (ARRAY, MAP, ROW, or an object for a STRING) are handed to the json
 * format's row decoder. Rows go straight into the caller's batch; `op` may
 * come after the images, so the kinds and the order of the rows are settled
 * when the message ends. Nothing is allocated per message in steady state.
 *
 * Decisions where Flink or the issue left room (also in the option texts):
 *  - row->origin is "<source.schema>.<source.table>" when source.schema is a
 *    non-empty string (PostgreSQL), else "<source.db>.<source.table>" (MySQL).
 *  - With schema-include, a `payload` that comes before its `schema` is
 *    handled without buffering: it is skipped, and once the message has been
 *    read, the payload's byte range is parsed again with the schema known.
 *  - changelog-mode=upsert: `u` gives only +U (from `after`), `d` gives -D
 *    from `before` (with REPLICA IDENTITY DEFAULT it holds the key columns);
 *    a `d` whose `before` is null (REPLICA IDENTITY NOTHING) has no key at
 *    all, so it stays an error: a format has no access to the Kafka key.
 *  - The TOAST placeholder (option unavailable.value.placeholder, as text,
 *    as its base64 and as its hex form; or inside an array) marks the column
 *    CDC_V_UNCHANGED | CDC_V_NULL: never data. The serializer writes it back
 *    as the placeholder for string and binary columns, null otherwise.
 *  - Heartbeats, transaction BEGIN/END, schema-change events, truncate (t),
 *    logical messages (m) and tombstones (empty, `null`, or the legacy
 *    {"schema":null,"payload":null}) give no row and no error; with
 *    schema-changes, schema-change and truncate events of a captured table
 *    are schema changes (dbz_ddl.c).
 *  - ignore-parse-errors drops the whole message and counts it in
 *    deser->skipped, as the json format does.
 *
 * This file: the options and metadata, the deserializer's set-up and entry
 * point, and the factory. dbz_events.c holds the parser callbacks, dbz_rows.c
 * the row images and the end of a message, dbz_convert.c the conversion of
 * scalars, dbz_encode.c the serializer; dbz_int.h what they share.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_json.h"
#include "dbz_int.h"

/* ---- options and metadata ------------------------------------------------------------------ */

static const char *const dbz_decimal_handling[] = {"string", "precise-base64", NULL};
static const char *const dbz_changelog_modes[] = {"all", "upsert", NULL};
/* in the order of DBZ_BIN_* */
static const char *const dbz_bin_modes[] = {"base64", "base64-url-safe", "hex", NULL};
/* in the order of DBZ_UNIT_* */
static const char *const dbz_units[] = {"precision", "millis", "micros", "nanos", NULL};

static const cdc_option_def_t dbz_options[] = {
    {.key = "schema-include",
     .type = CDC_OPT_BOOL,
     .default_value = "false",
     .description = "Messages are Kafka Connect envelopes {\"schema\": ..., \"payload\": ...} "
                    "(JsonConverter schemas.enable=true). The schema then says how each column "
                    "is encoded (Debezium semantic types such as io.debezium.time.MicroTimestamp "
                    "or connect Decimal) and is readable as metadata 'schema'. Decoding only; a "
                    "payload before its schema is read in a second pass over its bytes."},
    {.key = "schema-changes",
     .type = CDC_OPT_BOOL,
     .default_value = "false",
     .description = "(cdcflow) Debezium's schema change events (the schema change topic's "
                    "{\"ddl\", \"tableChanges\"} messages, with or without schema-include) and "
                    "truncate events (op \"t\") are schema changes of the table they name "
                    "(tableChanges[].id) instead of being skipped: the columns after from "
                    "tableChanges, renames from the DDL, literal DEFAULTs; the pipeline's "
                    "schema.change.behavior decides. Only tables the row messages name count "
                    "(before any row message: the table named as the cdcflow table)."},
    {.key = "ignore-parse-errors",
     .type = CDC_OPT_BOOL,
     .default_value = "false",
     .description = "Drop a message that fails to decode (bad JSON, wrong types, unknown op, a "
                    "null \"before\" on update/delete) and count it, instead of failing. (Flink "
                    "sets only the bad field to NULL; cdcflow drops the whole message.)"},
    CDC_JSON_OPTDEF_TIMESTAMP_STANDARD,
    CDC_JSON_OPTDEF_MAP_NULL_KEY_MODE,
    CDC_JSON_OPTDEF_MAP_NULL_KEY_LITERAL,
    CDC_JSON_OPTDEF_DECIMAL_AS_PLAIN,
    {.key = "decimal.handling",
     .type = CDC_OPT_ENUM,
     .default_value = "string",
     .enum_values = dbz_decimal_handling,
     .description = "(cdcflow) Without the schema, how a JSON string for a DECIMAL column is "
                    "read: 'string' = decimal text (Debezium decimal.handling.mode=string); "
                    "base64 text is then an error that says so. 'precise-base64' = Debezium's "
                    "default precise encoding (base64 big-endian two's-complement unscaled "
                    "value) read with the column's declared scale. JSON numbers are always "
                    "numbers; with schema-include the schema decides."},
    {.key = "timestamp.unit",
     .type = CDC_OPT_ENUM,
     .default_value = "precision",
     .enum_values = dbz_units,
     .description = "(cdcflow) Without the schema, the unit of a JSON number for a TIMESTAMP or "
                    "TIMESTAMP_LTZ column. 'precision' = as Debezium encodes a DATETIME(p) / "
                    "TIMESTAMP(p) column: p <= 3 epoch milliseconds (io.debezium.time.Timestamp), "
                    "4..6 microseconds (MicroTimestamp), 7..9 nanoseconds (NanoTimestamp), so "
                    "declare the source column's precision; or one unit for every column. A "
                    "number is never taken in a unit guessed from its size. With schema-include "
                    "the schema decides."},
    {.key = "time.unit",
     .type = CDC_OPT_ENUM,
     .default_value = "precision",
     .enum_values = dbz_units,
     .description = "(cdcflow) Without the schema, the unit of a JSON number for a TIME column "
                    "(past midnight). 'precision' = p <= 3 milliseconds (io.debezium.time.Time), "
                    "4..6 microseconds (MicroTime), 7..9 nanoseconds (NanoTime), as Debezium's "
                    "PostgreSQL connector encodes TIME(p) (time.precision.mode=adaptive). "
                    "Debezium's MySQL connector sends every TIME in microseconds by default "
                    "(adaptive_time_microseconds): set 'micros' for it. With schema-include the "
                    "schema decides."},
    {.key = "binary.handling.mode",
     .type = CDC_OPT_ENUM,
     .default_value = "base64",
     .enum_values = dbz_bin_modes,
     .description = "How BYTES/VARBINARY columns travel as JSON text, as the connector's "
                    "binary.handling.mode says: 'base64' (Debezium's 'bytes' and 'base64'), "
                    "'base64-url-safe' or 'hex'. Read and written; text not valid in it is an "
                    "error naming this option. With schema-include a column whose schema type "
                    "is \"bytes\" is always base64 (JsonConverter), a \"string\" one follows "
                    "this option."},
    {.key = "changelog-mode",
     .type = CDC_OPT_ENUM,
     .default_value = "all",
     .enum_values = dbz_changelog_modes,
     .description = "(cdcflow) 'all': updates give -U (before) and +U (after); a null "
                    "\"before\" on update/delete is an error (PostgreSQL needs REPLICA IDENTITY "
                    "FULL). 'upsert': for PostgreSQL REPLICA IDENTITY DEFAULT; updates give "
                    "only +U, deletes -D from the key columns in \"before\"; the changelog mode "
                    "is then upsert [I,UA,D] and the sink applies rows by primary key. A delete "
                    "whose \"before\" is null (REPLICA IDENTITY NOTHING) stays an error."},
    {.key = "unavailable.value.placeholder",
     .type = CDC_OPT_STRING,
     .default_value = DBZ_PLACEHOLDER,
     .description = "(cdcflow) Debezium's placeholder for an unchanged TOASTed (or MySQL NOBLOB) "
                    "value, as set in the connector. A column holding it (as text, base64 or hex, "
                    "or inside an array) is marked unchanged, printed <unchanged>, never taken "
                    "as data; sinks keep the stored value. Must not be empty."},
    {.key = "source.connector",
     .type = CDC_OPT_STRING,
     .description =
         "(cdcflow, serialization) 'mysql' or 'postgresql': write Debezium's "
         "\"source\" block (version, connector, name, ts_ms, snapshot, db, table and "
         "file/pos/gtid/server_id or schema/txId/lsn) so Debezium consumers accept the "
         "messages. Its values come from the sink's columns named "
         "source.fields-prefix + the Debezium field (source_file, source_pos, "
         "source_ts_ms, ...), e.g. fed from the mysql-cdc metadata columns; those "
         "columns are left out of before/after. Unset: no source block (Flink's shape)."},
    {.key = "source.name",
     .type = CDC_OPT_STRING,
     .default_value = "cdcflow",
     .description = "(cdcflow, serialization) source.name: Debezium's topic prefix / logical "
                    "server name."},
    {.key = "source.fields-prefix",
     .type = CDC_OPT_STRING,
     .default_value = "source_",
     .description = "(cdcflow, serialization) With source.connector: the prefix of the sink "
                    "columns that fill the source block instead of the row images."},
    {0},
};

static const cdc_metadata_def_t dbz_metadata[] = {
    {"schema", "STRING NULL",
     "the message's Kafka Connect schema as JSON text (NULL unless schema-include)", false},
    {"ingestion-timestamp", "TIMESTAMP_LTZ(3) NULL",
     "when Debezium processed the event (payload ts_ms)", false},
    {"source.timestamp", "TIMESTAMP_LTZ(3) NULL",
     "when the change was made in the database "
     "(source.ts_ms)",
     false},
    {"source.database", "STRING NULL", "source.db", false},
    {"source.schema", "STRING NULL", "source.schema (PostgreSQL; NULL for MySQL)", false},
    {"source.table", "STRING NULL", "source.table", false},
    {"source.properties", "MAP<STRING, STRING> NULL", "every member of the source block, as text",
     false},
    {0},
};

/* ---- the deserializer: one message, set-up and teardown -------------------------------------- */

static void reset_message(dbz_deser_t *d, cdc_batch_t *out, const char *msg, size_t len)
{
    d->out = out;
    d->n0 = out->n;
    d->msg = msg;
    d->len = len;
    d->text = msg;
    d->second_pass = false;
    d->top = -1;
    dbz_set_callbacks(d);
    d->seen = d->top_seen = 0;
    d->nkeys = d->top_nkeys = 0;
    d->tombstone = false;
    d->oplen = 0;
    d->row_before = d->row_after = -1;
    d->cur_row = NULL;
    d->have_ts = d->have_src_ts = false;
    d->src_db.flags = d->src_schema.flags = d->src_table.flags = CDC_V_NULL;
    d->status_txn = d->bare_op_norow = false;
    d->schema_null = d->payload_null = d->op_null = false;
    d->schema_kind = 0;
    d->schema_start = d->schema_end = 0;
    d->payload_deferred = false;
    d->have_schema = false;
    d->nprops = 0;
    if (d->schema_include) { /* no column is described until this message's schema says so */
        memset(d->enc, 0, d->nfields * sizeof(*d->enc));
        memset(d->nenc, 0, d->nnodes * sizeof(*d->nenc));
    }
}

static int dbz_decode(cdc_deser_t *base, const char *msg, size_t len, cdc_batch_t *out)
{
    dbz_deser_t *d = (dbz_deser_t *)base;
    if (!msg || len == 0)
        return CDC_DECODE_OK; /* tombstone */
    size_t i = 0;
    while (i < len && (msg[i] == ' ' || msg[i] == '\t' || msg[i] == '\r' || msg[i] == '\n'))
        i++;
    if (i == len)
        return CDC_DECODE_OK; /* blank: a tombstone too */
    reset_message(d, out, msg, len);
    cdc_json_rowdec_set_input(d->rowdec, msg, len);
    int rc = cdc_json_parser_parse(d->parser, msg, len, &d->parse_err);
    if (rc == CDC_JSON_PARSE_OK && d->payload_deferred) {
        /* the payload came before the schema: read it again, now with the schema */
        size_t start = d->payload_start, end = d->payload_end;
        d->text = msg + start;
        d->second_pass = true;
        d->have_schema = (d->top_seen & SEEN_SCHEMA) != 0;
        d->top = -1;
        dbz_set_callbacks(d);
        rc = cdc_json_parser_parse(d->parser, msg + start, end - start, &d->parse_err);
    }
    int status = CDC_DECODE_OK;
    if (rc == CDC_JSON_PARSE_INVALID) {
        dbz_err_begin(d);
        cdc_buf_append(&d->base.errmsg, d->parse_err.data, d->parse_err.len);
        status = CDC_DECODE_ERROR;
    } else if (rc == CDC_JSON_PARSE_CANCELED || dbz_finish(d) < 0) {
        status = CDC_DECODE_ERROR;
    }
    cdc_json_rowdec_set_input(d->rowdec, NULL, 0);
    d->sc_met = false;
    if (status == CDC_DECODE_OK)
        d->nmsgs++;
    if (status == CDC_DECODE_OK && d->ddl_events) {
        if (d->out->n > d->n0)
            dbz_ddl_note_row(d);
        else if (dbz_ddl_check(d)) {
            d->sc_met = true;
            return CDC_DECODE_SCHEMA; /* an event: no row */
        }
    }
    if (status == CDC_DECODE_OK && d->schema_include && dbz_schema_check(d)) {
        d->sc_met = true;
        return CDC_DECODE_SCHEMA; /* the message's row comes after the change */
    }
    if (status == CDC_DECODE_OK)
        return CDC_DECODE_OK;
    out->n = d->n0;
    if (d->ignore_errors) {
        d->base.skipped++;
        return CDC_DECODE_SKIPPED;
    }
    return CDC_DECODE_ERROR;
}

static void dbz_deser_destroy(cdc_deser_t *base)
{
    dbz_deser_t *d = (dbz_deser_t *)base;
    if (!d)
        return;
    dbz_schema_free(d);
    dbz_ddl_free(d);
    cdc_json_parser_destroy(d->parser);
    cdc_json_rowdec_destroy(d->rowdec);
    cdc_json_parser_destroy(d->vsd_parser);
    dbz_nodes_free(d);
    cdc_type_destroy(d->row_type);
    free(d->fields);
    free(d->slots);
    free(d->notnull);
    free(d->enc);
    free(d->stage);
    free(d->staged);
    free(d->props);
    free(d->ph);
    cdc_buf_free(&d->ph_b64);
    cdc_buf_free(&d->ph_hex);
    cdc_buf_free(&d->vsd_value);
    cdc_buf_free(&d->parse_err);
    cdc_buf_free(&d->base.errmsg);
    free(d);
}

static const cdc_deser_ops_t dbz_deser_ops = {
    .decode = dbz_decode,
    .destroy = dbz_deser_destroy,
    .schema_changes = dbz_schema_changes,
};

int dbz_check_row_type(const cdc_format_ctx_t *ctx, cdc_error_t **err)
{
    if (!ctx->row_type || ctx->row_type->root != CDC_T_ROW)
        return cdc_error_set(err, CDC_ERR_INTERNAL, "format \"debezium-json\" needs a ROW type");
    return cdc_json_check_type(ctx->row_type, err);
}

static int dbz_deser_new(const cdc_format_ctx_t *ctx, cdc_deser_t **out, cdc_error_t **err)
{
    if (dbz_check_row_type(ctx, err) < 0)
        return -1;
    const char *ph = cdc_config_str(ctx->cfg, "unavailable.value.placeholder");
    if (!ph || !*ph)
        return cdc_error_set(err, CDC_ERR_OPTION,
                             "option \"unavailable.value.placeholder\" of format "
                             "\"debezium-json\" must not be empty");
    int md[MD__COUNT];
    int nmd = 0;
    for (int k = 0; k < ctx->nmetadata; k++) {
        int code = -1;
        for (int j = 0; dbz_metadata[j].key; j++)
            if (strcmp(dbz_metadata[j].key, ctx->metadata[k]) == 0)
                code = j;
        if (code < 0 || nmd == MD__COUNT) {
            cdc_buf_t list = {0};
            for (int j = 0; dbz_metadata[j].key; j++)
                cdc_buf_printf(&list, "%s%s", j ? ", " : "", dbz_metadata[j].key);
            cdc_error_t *e = cdc_error_new(CDC_ERR_OPTION,
                                           code < 0 ? "format \"debezium-json\" has no metadata "
                                                      "key \"%s\""
                                                    : "metadata key \"%s\" requested twice",
                                           ctx->metadata[k]);
            cdc_error_set_detail(e, "available keys: %s", cdc_buf_cstr(&list));
            cdc_buf_free(&list);
            if (err) {
                cdc_error_destroy(*err);
                *err = e;
            } else {
                cdc_error_destroy(e);
            }
            return -1;
        }
        md[nmd++] = code;
    }
    dbz_deser_t *d = cdc_xcalloc(1, sizeof(*d));
    d->base.ops = &dbz_deser_ops;
    d->sc_table = ctx->table ? cdc_xstrdup(ctx->table) : NULL;
    d->row_type = cdc_type_copy(ctx->row_type);
    d->nfields = (uint32_t)d->row_type->nchildren;
    d->arity = d->nfields + (uint32_t)nmd;
    memcpy(d->md, md, sizeof(md));
    d->nmd = nmd;
    for (int k = 0; k < nmd; k++)
        d->want[md[k]] = true;
    d->schema_include = cdc_config_bool(ctx->cfg, "schema-include");
    d->ddl_events = cdc_config_bool(ctx->cfg, "schema-changes");
    d->ddl_last = -1;
    d->ignore_errors = cdc_config_bool(ctx->cfg, "ignore-parse-errors");
    d->upsert = cdc_config_enum(ctx->cfg, "changelog-mode") == 1;
    d->iso8601 = cdc_config_enum(ctx->cfg, "timestamp-format.standard") == 1;
    d->precise_base64 = cdc_config_enum(ctx->cfg, "decimal.handling") == 1;
    d->ts_unit = (uint8_t)cdc_config_enum(ctx->cfg, "timestamp.unit");
    d->time_unit = (uint8_t)cdc_config_enum(ctx->cfg, "time.unit");
    d->bin_mode = (uint8_t)cdc_config_enum(ctx->cfg, "binary.handling.mode");
    d->ph = cdc_xstrdup(ph);
    d->ph_len = strlen(ph);
    cdc_text_base64_encode(&d->ph_b64, (const unsigned char *)ph, d->ph_len);
    for (size_t i = 0; i < d->ph_len; i++)
        cdc_buf_printf(&d->ph_hex, "%02x", (unsigned char)ph[i]);

    uint32_t n = d->nfields;
    d->fields = cdc_xcalloc(n + 1, sizeof(*d->fields));
    d->notnull = cdc_xcalloc(n + 1, sizeof(*d->notnull));
    uint32_t size = 4;
    while (size < n * 2)
        size *= 2;
    d->mask = size - 1;
    d->slots = cdc_xmalloc(size * sizeof(int32_t));
    for (uint32_t i = 0; i < size; i++)
        d->slots[i] = -1;
    for (uint32_t i = 0; i < n; i++) {
        dbz_field_t *f = &d->fields[i];
        f->name = d->row_type->names[i];
        f->len = (uint32_t)strlen(f->name);
        f->type = d->row_type->children[i];
        switch (f->type->root) {
        case CDC_T_CHAR:
        case CDC_T_VARCHAR:
            f->fast = FAST_STRING;
            break;
        case CDC_T_TINYINT:
        case CDC_T_SMALLINT:
        case CDC_T_INT:
        case CDC_T_BIGINT: {
            f->fast = FAST_INT;
            f->lo = cdc_int_min(f->type->root);
            f->hi = cdc_int_max(f->type->root);
            break;
        }
        case CDC_T_FLOAT:
            f->fast = FAST_FLOAT;
            break;
        case CDC_T_DOUBLE:
            f->fast = FAST_DOUBLE;
            break;
        case CDC_T_BOOLEAN:
            f->fast = FAST_BOOL;
            break;
        case CDC_T_TIMESTAMP:
        case CDC_T_TIMESTAMP_LTZ:
            /* epoch millis inline: only where the unit is milliseconds (timestamp.unit) */
            f->fast = f->type->precision >= 3 &&
                              (d->ts_unit == DBZ_UNIT_MILLIS ||
                               (d->ts_unit == DBZ_UNIT_PRECISION && f->type->precision == 3))
                          ? FAST_TS
                          : FAST_NONE;
            break;
        default:
            f->fast = FAST_NONE;
            break;
        }
        if (!f->type->nullable)
            d->notnull[d->nnotnull++] = (int32_t)i;
        uint32_t h = dbz_hash_name(f->name, f->len) & d->mask;
        while (d->slots[h] >= 0) {
            if (strcmp(d->fields[d->slots[h]].name, f->name) == 0)
                break; /* a duplicate name: the first one wins */
            h = (h + 1) & d->mask;
        }
        if (d->slots[h] < 0)
            d->slots[h] = (int32_t)i;
    }
    d->enc = cdc_xcalloc(n + 1, sizeof(*d->enc));
    d->stage = cdc_xcalloc(n + 1, sizeof(*d->stage));
    d->staged = cdc_xcalloc(n + 1, 1);
    cdc_json_opts_t jopts = {.fail_on_missing_field = false, .iso8601 = d->iso8601};
    d->rowdec = cdc_json_rowdec_new(d->row_type, &jopts);
    dbz_nodes_init(d);
    dbz_nest_hook(d);
    d->top = -1;
    dbz_set_callbacks(d);
    d->parser = cdc_json_parser_new(&d->cbs, d);
    *out = &d->base;
    return 0;
}

/* ---- factory --------------------------------------------------------------------------------- */

static cdc_changelog_mode_t dbz_decode_mode(const cdc_config_t *cfg)
{
    return cdc_config_enum(cfg, "changelog-mode") == 1 ? CDC_MODE_UPSERT : CDC_MODE_ALL;
}

static cdc_changelog_mode_t dbz_encode_mode(const cdc_config_t *cfg)
{
    (void)cfg;
    return CDC_MODE_ALL;
}

static void dbz_check(const cdc_config_t *cfg, cdc_buf_t *problems)
{
    const char *ph = cdc_config_str(cfg, "unavailable.value.placeholder");
    if (!ph || !*ph)
        cdc_buf_puts(problems, "unavailable.value.placeholder must not be empty\n");
    const char *conn = cdc_config_str(cfg, "source.connector");
    if (conn && *conn && strcmp(conn, "mysql") != 0 && strcmp(conn, "postgresql") != 0)
        cdc_buf_printf(problems, "source.connector must be 'mysql' or 'postgresql', not '%s'\n",
                       conn);
}

const cdc_format_factory_t cdc_format_debezium_json = {
    .identifier = "debezium-json",
    .description = "Debezium change events (JSON, with or without the Kafka Connect schema) as "
                   "Flink's debezium-json format: c/r +I, u -U/+U, d -D; writes d + c.",
    .options = dbz_options,
    .check = dbz_check,
    .metadata = dbz_metadata,
    .decode_mode = dbz_decode_mode,
    .encode_mode = dbz_encode_mode,
    .deser_new = dbz_deser_new,
    .ser_new = dbz_ser_new,
};
