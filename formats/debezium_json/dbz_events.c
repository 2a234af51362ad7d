/*
 * dbz_events.c — the debezium-json deserializer's parser callbacks: the frame
 * stack over the envelope, its `source`, the Connect `schema` (the column
 * encodings it describes) and the row images, and the member names each frame
 * knows. Row images' columns go to dbz_rows.c; the hot frames (row images,
 * source) get their own callbacks so they skip the dispatch on the frame kind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_json.h"
#include "dbz_int.h"

/* ---- the frame stack ------------------------------------------------------------------------ */

bool dbz_push(dbz_deser_t *d, uint8_t kind)
{
    if (d->top + 1 >= MAX_FRAMES)
        return false;
    frame_t *f = &d->fr[++d->top];
    f->kind = kind;
    f->key = K_NONE;
    f->purpose = SKIP_PLAIN;
    f->abandon = false;
    f->is_array = false;
    f->field = -1;
    f->depth = 0;
    f->start = 0;
    dbz_set_callbacks(d);
    return true;
}

void dbz_pop(dbz_deser_t *d)
{
    d->top--;
    dbz_set_callbacks(d);
}

static size_t offset(const dbz_deser_t *d)
{
    return cdc_json_parser_offset(d->parser);
}

/* Starts skipping the container just opened. */
static int skip_container(dbz_deser_t *d, uint8_t purpose)
{
    size_t at = offset(d);
    if (!dbz_push(d, FR_SKIP))
        return dbz_fail(d, "JSON nested too deeply");
    d->fr[d->top].depth = 1;
    d->fr[d->top].purpose = purpose;
    d->fr[d->top].start = at ? at - 1 : 0;
    return 1;
}

/* ---- the schema ------------------------------------------------------------------------------ */

static void col_begin(dbz_deser_t *d)
{
    d->col_field = -1;
    d->col_name_enc = 0xff;
    d->col_is_bytes = false;
    d->col_scale = 0;
    d->nsnodes = 0;
    cdc_buf_clear(&d->snames);
    dbz_snode_add(d, -1, SL_FIELD); /* 0: the column */
}

static void col_end(dbz_deser_t *d)
{
    if (d->col_field < 0)
        return;
    dbz_colenc_t ce;
    if (d->col_name_enc != 0xff)
        ce.enc = d->col_name_enc;
    else
        ce.enc = d->col_is_bytes ? DBZ_ENC_NONE : DBZ_ENC_PLAIN;
    ce.scale = d->col_scale;
    ce.bytes = d->col_is_bytes;
    d->stage[d->col_field] = ce;
    d->staged[d->col_field] = 1;
    if (d->nsnodes > 1)
        dbz_snodes_stage(d, d->col_field);
}

static void envf_end(dbz_deser_t *d)
{
    for (uint32_t i = 0; i < d->nfields; i++) {
        if (d->staged[i] && d->envf_is_row)
            d->enc[i] = d->stage[i];
        d->staged[i] = 0;
    }
    dbz_nodes_commit(d, d->envf_is_row);
    d->envf_is_row = false;
}

static void schema_name(dbz_deser_t *d, const char *s, size_t len)
{
    static const char *const control[] = {
        "io.debezium.connector.common.Heartbeat",
        "io.debezium.connector.common.TransactionMetadataValue",
    };
    for (size_t i = 0; i < sizeof(control) / sizeof(control[0]); i++)
        if (dbz_key_is(s, len, control[i], strlen(control[i])))
            d->schema_kind = 1;
    static const char suffix[] = ".SchemaChangeValue";
    if (len >= sizeof(suffix) - 1 &&
        memcmp(s + len - (sizeof(suffix) - 1), suffix, sizeof(suffix) - 1) == 0)
        d->schema_kind = 1;
}

static int sch_param(dbz_deser_t *d, int32_t node, uint8_t key, char kind, const char *s,
                     size_t len)
{
    if (key != K_SCALE || (kind != 's' && kind != '#'))
        return 1; /* "length" and the rest are not needed */
    int64_t v;
    if (cdc_text_parse_i64(s, len, &v) < 0 || v < -DBZ_MAX_SCALE || v > DBZ_MAX_SCALE)
        return dbz_fail(d,
                        "field \"schema\": parameters.scale of column \"%s\" is not a scale: "
                        "\"%.*s\"",
                        d->col_field >= 0 ? d->fields[d->col_field].name : "?",
                        (int)(len > 40 ? 40 : len), s);
    if (node > 0)
        d->snodes[node].scale = (int32_t)v;
    else
        d->col_scale = (int32_t)v;
    return 1;
}

/* ---- events ---------------------------------------------------------------------------------- */

static uint8_t env_key(const char *s, size_t len, uint32_t *seen)
{
    uint32_t bit;
    uint8_t k;
    switch (len) {
    case 2:
        if (KEY_IS("op")) {
            k = K_OP;
            bit = SEEN_OP;
        } else if (KEY_IS("id")) {
            k = K_ID;
            bit = SEEN_ID;
        } else {
            goto other;
        }
        break;
    case 3:
        if (!KEY_IS("ddl"))
            goto other;
        k = K_CONTROL;
        bit = SEEN_CONTROL;
        break;
    case 5:
        if (KEY_IS("after")) {
            k = K_AFTER;
            bit = SEEN_AFTER;
        } else if (KEY_IS("ts_ms")) {
            k = K_TS_MS;
            bit = SEEN_TS;
        } else {
            goto other;
        }
        break;
    case 6:
        if (KEY_IS("before")) {
            k = K_BEFORE;
            bit = SEEN_BEFORE;
        } else if (KEY_IS("source")) {
            k = K_SOURCE;
            bit = SEEN_SOURCE;
        } else if (KEY_IS("schema")) {
            k = K_SCHEMA;
            bit = SEEN_SCHEMA;
        } else if (KEY_IS("status")) {
            k = K_STATUS;
            bit = SEEN_STATUS;
        } else {
            goto other;
        }
        break;
    case 7:
        if (!KEY_IS("payload"))
            goto other;
        k = K_PAYLOAD;
        bit = SEEN_PAYLOAD;
        break;
    case 12:
    case 13:
        if (!KEY_IS("tableChanges") && !KEY_IS("databaseName"))
            goto other;
        k = K_CONTROL;
        bit = SEEN_CONTROL;
        break;
    default:
    other:
        k = K_NONE;
        bit = SEEN_OTHER;
        break;
    }
    *seen |= bit;
    return k;
}

static uint8_t top_key(dbz_deser_t *d, const char *s, size_t len)
{
    uint8_t k = env_key(s, len, &d->top_seen);
    switch (k) {
    case K_OP:
        d->top_seen |= SEEN_BARE;
        return K_BARE_OP;
    case K_BEFORE:
    case K_AFTER:
    case K_SOURCE:
        d->top_seen |= SEEN_BARE;
        return K_BARE;
    case K_TS_MS:
        return K_NONE;
    default:
        return k;
    }
}

static uint8_t source_key(const char *s, size_t len)
{
    switch (len) {
    case 2:
        return KEY_IS("db") ? K_DB : K_NONE;
    case 5:
        if (KEY_IS("table"))
            return K_TABLE;
        return KEY_IS("ts_ms") ? K_TS_MS : K_NONE;
    case 6:
        return KEY_IS("schema") ? K_SSCHEMA : K_NONE;
    default:
        return K_NONE;
    }
}

static uint8_t schema_key(uint8_t frame, const char *s, size_t len)
{
    switch (frame) {
    case FR_SCH:
        if (KEY_IS("name"))
            return K_NAME;
        return KEY_IS("fields") ? K_FIELDS : K_NONE;
    case FR_SCH_ENVF:
        if (KEY_IS("field"))
            return K_FIELD;
        return KEY_IS("fields") ? K_FIELDS : K_NONE;
    case FR_SCH_COL:
    case FR_SCH_NODE:
        if (KEY_IS("type"))
            return K_TYPE;
        if (KEY_IS("name"))
            return K_NAME;
        if (KEY_IS("field"))
            return K_FIELD;
        if (KEY_IS("items"))
            return K_ITEMS;
        if (KEY_IS("keys"))
            return K_KEYS;
        if (KEY_IS("values"))
            return K_VALUES;
        if (KEY_IS("fields"))
            return K_FIELDS;
        return KEY_IS("parameters") ? K_PARAMETERS : K_NONE;
    case FR_SCH_PARAMS:
        return KEY_IS("scale") ? K_SCALE : K_NONE;
    default:
        return K_NONE;
    }
}

static int root_closed(dbz_deser_t *d);

/* A property of source.properties: key and value as text. */
static prop_t *prop_add(dbz_deser_t *d)
{
    if (d->nprops == d->cap_props) {
        d->cap_props = d->cap_props ? d->cap_props * 2 : 32;
        d->props = cdc_xrealloc(d->props, d->cap_props * sizeof(prop_t));
    }
    return &d->props[d->nprops++];
}

static int on_key(void *ctx, const unsigned char *key, size_t len)
{
    dbz_deser_t *d = ctx;
    const char *s = (const char *)key;
    frame_t *f = &d->fr[d->top];
    switch (f->kind) {
    case FR_ROW:
        d->row_field = dbz_find_field(d, d->row_next, s, len); /* -1: not a column, skip it */
        if (d->row_field >= 0)
            d->row_next = d->row_field + 1;
        return 1;
    case FR_ENV:
        f->key = env_key(s, len, &d->seen);
        d->nkeys++;
        return 1;
    case FR_TOP:
        f->key = top_key(d, s, len);
        d->top_nkeys++;
        return 1;
    case FR_SOURCE:
        f->key = source_key(s, len);
        if (d->want[MD_SOURCE_PROPS]) {
            for (uint32_t i = 0; i < d->nprops; i++) { /* a repeated key: the last wins */
                if (d->props[i].key.v.s.len == len &&
                    memcmp(d->props[i].key.v.s.ptr, s, len) == 0) {
                    memmove(&d->props[i], &d->props[i + 1], (d->nprops - 1 - i) * sizeof(prop_t));
                    d->nprops--;
                    break;
                }
            }
            prop_t *p = prop_add(d);
            dbz_str_value(d, s, len, &p->key);
            p->val.flags = CDC_V_NULL;
        }
        return 1;
    case FR_NEST:
        if (f->abandon)
            return 1;
        return dbz_nest_rc(d, cdc_json_rowdec_map_key(d->rowdec, key, len));
    case FR_VSD:
        f->key = KEY_IS("scale") ? K_SCALE : KEY_IS("value") ? K_VALUE : K_NONE;
        return 1;
    case FR_SKIP:
        return 1;
    default: /* schema frames */
        f->key = schema_key(f->kind, s, len);
        return 1;
    }
}

/* Forgets what an earlier "source" said: a repeated member's last value wins. */
static void source_reset(dbz_deser_t *d)
{
    d->src_db.flags = d->src_schema.flags = d->src_table.flags = CDC_V_NULL;
    d->have_src_ts = false;
    d->nprops = 0;
}

/* Forgets an earlier "payload" (schema-include): a repeated member's last value wins. */
static void payload_reset(dbz_deser_t *d)
{
    d->seen = d->nkeys = 0;
    d->oplen = 0;
    d->op_null = d->status_txn = false;
    d->row_before = d->row_after = -1;
    d->have_ts = false;
    d->payload_null = d->payload_deferred = false;
    source_reset(d);
}

/* The value of a member of FR_ENV / FR_TOP that is a scalar. */
static int env_scalar(dbz_deser_t *d, frame_t *f, char kind, const char *s, size_t len)
{
    switch (f->key) {
    case K_OP:
        if (kind == 'n') {
            d->seen &= ~SEEN_OP;
            d->op_null = true;
            return 1;
        }
        if (kind != 's')
            return dbz_fail_member(d, "op", "a string", kind);
        d->op_null = false;
        d->oplen = len;
        memcpy(d->op, s, len < sizeof(d->op) ? len : sizeof(d->op));
        return 1;
    case K_BEFORE:
    case K_AFTER:
        if (kind == 'n') { /* null after an object: the last wins */
            if (f->key == K_BEFORE)
                d->row_before = -1;
            else
                d->row_after = -1;
            return 1;
        }
        if (kind == 's') /* Debezium's MongoDB connector: the document as JSON text */
            return dbz_fail(d,
                            "field \"%s\" is a string, as Debezium's MongoDB connector writes "
                            "documents (extended JSON text); debezium-json reads the relational "
                            "connectors' events only. Add Debezium's ExtractNewDocumentState "
                            "transform (io.debezium.connector.mongodb.transforms."
                            "ExtractNewDocumentState) to the connector and read the topic with "
                            "'format' = 'json'",
                            f->key == K_BEFORE ? "before" : "after");
        if (kind != 'n')
            return dbz_fail_member(d, f->key == K_BEFORE ? "before" : "after", "an object or null",
                                   kind);
        return 1;
    case K_SOURCE:
        if (kind != 'n')
            return dbz_fail_member(d, "source", "an object or null", kind);
        source_reset(d);
        return 1;
    case K_TS_MS:
        d->have_ts = false;
        if (kind == '#' && cdc_text_parse_i64(s, len, &d->ts_ms) == 0)
            d->have_ts = true;
        else if (kind != 'n' && d->want[MD_INGESTION_TS])
            return dbz_fail_member(d, "ts_ms", "BIGINT", kind);
        return 1;
    case K_SCHEMA:
        if (kind == 'n') {
            d->schema_null = true;
            return 1;
        }
        if (f->kind == FR_TOP)
            return dbz_fail_member(d, "schema", "an object or null", kind);
        return 1;
    case K_PAYLOAD:
        if (kind == 'n') {
            if (f->kind == FR_TOP)
                payload_reset(d);
            d->payload_null = true;
            return 1;
        }
        if (f->kind == FR_TOP)
            return dbz_fail_member(d, "payload", "an object or null", kind);
        return 1;
    case K_STATUS:
        if (kind == 's' && (KEY_IS("BEGIN") || KEY_IS("END")))
            d->status_txn = true;
        return 1;
    case K_BARE_OP:
        d->bare_op_norow = kind == 's' && (KEY_IS("t") || KEY_IS("m"));
        return 1;
    default:
        return 1;
    }
}

static int source_scalar(dbz_deser_t *d, frame_t *f, char kind, const char *s, size_t len)
{
    if (d->want[MD_SOURCE_PROPS] && d->nprops > 0) {
        prop_t *p = &d->props[d->nprops - 1];
        if (kind == 's' || kind == '#' || kind == 'b')
            dbz_str_value(d, s, len, &p->val);
    }
    cdc_value_t *v;
    int md;
    const char *name;
    switch (f->key) {
    case K_DB:
        v = &d->src_db;
        md = MD_SOURCE_DB;
        name = "source.db";
        break;
    case K_SSCHEMA:
        v = &d->src_schema;
        md = MD_SOURCE_SCHEMA;
        name = "source.schema";
        break;
    case K_TABLE:
        v = &d->src_table;
        md = MD_SOURCE_TABLE;
        name = "source.table";
        break;
    case K_TS_MS:
        d->have_src_ts = false;
        if (kind == '#' && cdc_text_parse_i64(s, len, &d->src_ts_ms) == 0)
            d->have_src_ts = true;
        else if (kind != 'n' && d->want[MD_SOURCE_TS])
            return dbz_fail_member(d, "source.ts_ms", "BIGINT", kind);
        return 1;
    default:
        return 1;
    }
    v->flags = CDC_V_NULL; /* a repeated member: the last wins */
    if (kind == 's')
        dbz_str_value(d, s, len, v);
    else if (kind != 'n' && d->want[md])
        return dbz_fail_member(d, name, "STRING", kind);
    return 1;
}

static int schema_scalar(dbz_deser_t *d, frame_t *f, char kind, const char *s, size_t len)
{
    switch (f->kind) {
    case FR_SCH:
        if (f->key == K_NAME && kind == 's')
            schema_name(d, s, len);
        return 1;
    case FR_SCH_ENVF:
        if (f->key == K_FIELD && kind == 's')
            d->envf_is_row = KEY_IS("before") || KEY_IS("after");
        return 1;
    case FR_SCH_COL:
        if (kind != 's')
            return 1;
        if (f->key == K_TYPE) {
            d->col_is_bytes = KEY_IS("bytes");
        } else if (f->key == K_NAME) {
            dbz_enc_t e = dbz_enc_classify(NULL, 0, s, len);
            d->col_name_enc = e == DBZ_ENC_PLAIN ? 0xff : (uint8_t)e;
        } else if (f->key == K_FIELD) {
            d->col_field = dbz_find_field(d, -1, s, len);
        }
        return 1;
    case FR_SCH_PARAMS:
        return sch_param(d, f->field, f->key, kind, s, len);
    case FR_SCH_NODE: {
        if (kind != 's')
            return 1;
        dbz_snode_t *n = &d->snodes[f->field];
        if (f->key == K_TYPE) {
            n->is_bytes = KEY_IS("bytes");
        } else if (f->key == K_NAME) {
            dbz_enc_t e = dbz_enc_classify(NULL, 0, s, len);
            n->enc = e == DBZ_ENC_PLAIN ? 0xff : (uint8_t)e;
        } else if (f->key == K_FIELD) {
            dbz_snode_name(d, f->field, s, len);
        }
        return 1;
    }
    default:
        return 1;
    }
}

static int on_scalar(dbz_deser_t *d, char kind, const char *s, size_t len)
{
    if (d->top < 0) {
        if (kind == 'n') { /* the literal `null`: a tombstone */
            d->tombstone = true;
            return root_closed(d);
        }
        return dbz_fail(d, "expected a JSON object, found %s", dbz_kind_noun(kind));
    }
    frame_t *f = &d->fr[d->top];
    switch (f->kind) {
    case FR_ROW:
        if (d->row_field < 0)
            return 1;
        return dbz_convert_field(d, d->row_field, kind, s, len);
    case FR_ENV:
    case FR_TOP:
        return env_scalar(d, f, kind, s, len);
    case FR_SOURCE:
        return source_scalar(d, f, kind, s, len);
    case FR_NEST: {
        if (f->abandon)
            return 1;
        if (kind == 's' && f->depth == 1 && f->is_array && dbz_is_placeholder(d, s, len)) {
            f->abandon = true; /* an array with the TOAST placeholder: unchanged */
            return 1;
        }
        int rc;
        switch (kind) {
        case 'n':
            rc = cdc_json_rowdec_null(d->rowdec);
            break;
        case 'b':
            rc = cdc_json_rowdec_bool(d->rowdec, s[0] == 't');
            break;
        case '#':
            rc = cdc_json_rowdec_number(d->rowdec, s, len);
            break;
        default:
            rc = cdc_json_rowdec_string(d->rowdec, (const unsigned char *)s, len);
            break;
        }
        return dbz_nest_rc(d, rc);
    }
    case FR_VSD:
        if (f->key == K_SCALE) {
            if (kind != '#' || cdc_text_parse_i64(s, len, &d->vsd_scale) < 0)
                return dbz_fail(d, "field \"%s.%s\": expected %s scale as an integer, found %s",
                                d->cur_label, d->fields[f->field].name,
                                dbz_enc_name(DBZ_ENC_VSDECIMAL), dbz_kind_noun(kind));
            d->vsd_has_scale = true;
        } else if (f->key == K_VALUE) {
            if (kind != 's')
                return dbz_fail(d, "field \"%s.%s\": expected %s value as base64 text, found %s",
                                d->cur_label, d->fields[f->field].name,
                                dbz_enc_name(DBZ_ENC_VSDECIMAL), dbz_kind_noun(kind));
            cdc_buf_clear(&d->vsd_value);
            cdc_buf_append(&d->vsd_value, s, len);
            d->vsd_has_value = true;
        }
        return 1;
    case FR_SKIP:
        return 1;
    default:
        return schema_scalar(d, f, kind, s, len);
    }
}

static int on_null(void *ctx)
{
    return on_scalar(ctx, 'n', "null", 4);
}

static int on_bool(void *ctx, int b)
{
    return on_scalar(ctx, 'b', b ? "true" : "false", b ? 4 : 5);
}

static int on_number(void *ctx, const char *s, size_t len)
{
    return on_scalar(ctx, '#', s, len);
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
    return on_scalar(ctx, 's', (const char *)s, len);
}

/* An object or array opens (kind '{' or '['). */
static int on_open(dbz_deser_t *d, char kind)
{
    if (d->top < 0) {
        if (kind != '{')
            return dbz_fail(d, "expected a JSON object, found an array");
        dbz_push(d, d->schema_include && !d->second_pass ? FR_TOP : FR_ENV);
        return 1;
    }
    frame_t *f = &d->fr[d->top];
    switch (f->kind) {
    case FR_ROW: {
        int32_t idx = d->row_field;
        if (idx < 0)
            return skip_container(d, SKIP_PLAIN);
        uint8_t enc = d->have_schema ? d->enc[idx].enc : DBZ_ENC_NONE;
        if (kind == '{' && dbz_takes_vsd(d->fields[idx].type, enc)) {
            if (!dbz_push(d, FR_VSD))
                return dbz_fail(d, "JSON nested too deeply");
            d->fr[d->top].field = idx;
            d->vsd_has_scale = d->vsd_has_value = false;
            return 1;
        }
        return dbz_open_nest(d, idx, kind);
    }
    case FR_NEST:
        if (++f->depth > CDC_JSON_PARSER_MAX_DEPTH) /* the row decoder limits declared types */
            return dbz_fail(d, "JSON nested deeper than %d levels", CDC_JSON_PARSER_MAX_DEPTH);
        if (f->abandon)
            return 1;
        return dbz_nest_rc(d, kind == '[' ? cdc_json_rowdec_start_array(d->rowdec)
                                          : cdc_json_rowdec_start_map(d->rowdec));
    case FR_SKIP:
        if (++f->depth > CDC_JSON_PARSER_MAX_DEPTH) /* the row decoder limits declared types */
            return dbz_fail(d, "JSON nested deeper than %d levels", CDC_JSON_PARSER_MAX_DEPTH);
        return 1;
    case FR_ENV:
    case FR_TOP:
        switch (f->key) {
        case K_BEFORE:
        case K_AFTER:
            if (kind != '{')
                return dbz_fail_member(d, f->key == K_BEFORE ? "before" : "after",
                                       "an object or null", kind);
            return dbz_open_row(d, f->key == K_BEFORE);
        case K_SOURCE:
            if (kind != '{')
                return dbz_fail_member(d, "source", "an object or null", kind);
            source_reset(d);
            if (!dbz_push(d, FR_SOURCE))
                return dbz_fail(d, "JSON nested too deeply");
            return 1;
        case K_SCHEMA:
            if (f->kind == FR_TOP && kind != '{')
                return dbz_fail_member(d, "schema", "an object or null", kind);
            if (kind != '{' || d->schema_include != (f->kind == FR_TOP))
                return skip_container(d, SKIP_PLAIN);
            /* the Connect schema: column encodings, or just its name when not included */
            d->schema_start = offset(d) - 1;
            if (d->schema_include) { /* a repeated schema: only the last one describes */
                memset(d->enc, 0, d->nfields * sizeof(*d->enc));
                memset(d->nenc, 0, d->nnodes * sizeof(*d->nenc));
            }
            d->schema_kind = 0;
            if (!dbz_push(d, FR_SCH))
                return dbz_fail(d, "JSON nested too deeply");
            return 1;
        case K_PAYLOAD:
            if (f->kind == FR_TOP) {
                if (kind != '{')
                    return dbz_fail_member(d, "payload", "an object or null", kind);
                payload_reset(d);
                if (d->top_seen & SEEN_SCHEMA) { /* the usual order: schema first */
                    d->have_schema = true;
                    dbz_push(d, FR_ENV);
                    return 1;
                }
                return skip_container(d, SKIP_PAYLOAD);
            }
            return skip_container(d, SKIP_PLAIN);
        default:
            return skip_container(d, SKIP_PLAIN);
        }
    case FR_SOURCE: {
        /* a nested member: an error only where a requested metadata key needs it */
        static const struct {
            uint8_t key;
            int md;
            const char *name, *type;
        } used[] = {{K_DB, MD_SOURCE_DB, "source.db", "STRING"},
                    {K_SSCHEMA, MD_SOURCE_SCHEMA, "source.schema", "STRING"},
                    {K_TABLE, MD_SOURCE_TABLE, "source.table", "STRING"},
                    {K_TS_MS, MD_SOURCE_TS, "source.ts_ms", "BIGINT"}};
        for (size_t i = 0; i < sizeof(used) / sizeof(used[0]); i++)
            if (f->key == used[i].key && d->want[used[i].md])
                return dbz_fail_member(d, used[i].name, used[i].type, kind);
        return skip_container(d, d->want[MD_SOURCE_PROPS] ? SKIP_PROP : SKIP_PLAIN);
    }
    case FR_VSD:
        return skip_container(d, SKIP_PLAIN);
    case FR_SCH:
        if (f->key == K_FIELDS && kind == '[') {
            if (!dbz_push(d, FR_SCH_FIELDS))
                return dbz_fail(d, "JSON nested too deeply");
            return 1;
        }
        return skip_container(d, SKIP_PLAIN);
    case FR_SCH_FIELDS:
        if (kind == '{') {
            if (!dbz_push(d, FR_SCH_ENVF))
                return dbz_fail(d, "JSON nested too deeply");
            d->envf_is_row = false;
            return 1;
        }
        return skip_container(d, SKIP_PLAIN);
    case FR_SCH_ENVF:
        if (f->key == K_FIELDS && kind == '[') {
            if (!dbz_push(d, FR_SCH_COLS))
                return dbz_fail(d, "JSON nested too deeply");
            return 1;
        }
        return skip_container(d, SKIP_PLAIN);
    case FR_SCH_COLS:
        if (kind == '{') {
            if (!dbz_push(d, FR_SCH_COL))
                return dbz_fail(d, "JSON nested too deeply");
            col_begin(d);
            return 1;
        }
        return skip_container(d, SKIP_PLAIN);
    case FR_SCH_COL:
    case FR_SCH_NODE: {
        int32_t node = f->kind == FR_SCH_COL ? 0 : f->field;
        uint8_t link = f->key == K_ITEMS ? SL_ITEMS : f->key == K_KEYS ? SL_KEYS : SL_VALUES;
        if (f->key == K_PARAMETERS && kind == '{') {
            if (!dbz_push(d, FR_SCH_PARAMS))
                return dbz_fail(d, "JSON nested too deeply");
            d->fr[d->top].field = node;
            return 1;
        }
        if ((f->key == K_ITEMS || f->key == K_KEYS || f->key == K_VALUES) && kind == '{') {
            int32_t idx = dbz_snode_add(d, node, link);
            if (!dbz_push(d, FR_SCH_NODE))
                return dbz_fail(d, "JSON nested too deeply");
            d->fr[d->top].field = idx;
            return 1;
        }
        if (f->key == K_FIELDS && kind == '[') {
            if (!dbz_push(d, FR_SCH_NFIELDS))
                return dbz_fail(d, "JSON nested too deeply");
            d->fr[d->top].field = node;
            return 1;
        }
        return skip_container(d, SKIP_PLAIN);
    }
    case FR_SCH_NFIELDS:
        if (kind == '{') {
            int32_t idx = dbz_snode_add(d, f->field, SL_FIELD);
            if (!dbz_push(d, FR_SCH_NODE))
                return dbz_fail(d, "JSON nested too deeply");
            d->fr[d->top].field = idx;
            return 1;
        }
        return skip_container(d, SKIP_PLAIN);
    default:
        return skip_container(d, SKIP_PLAIN);
    }
}

/* The end of the top-level value. */
static int root_closed(dbz_deser_t *d)
{
    cdc_json_parser_mark_end(d->parser);
    return 1;
}

static int on_close(dbz_deser_t *d, char kind)
{
    if (d->top < 0)
        return dbz_fail(d, "unbalanced JSON"); /* yajl does not let this happen */
    frame_t *f = &d->fr[d->top];
    switch (f->kind) {
    case FR_ROW:
        return dbz_close_row(d);
    case FR_NEST: {
        int rc = 0;
        if (!f->abandon)
            rc = kind == ']' ? cdc_json_rowdec_end_array(d->rowdec)
                             : cdc_json_rowdec_end_map(d->rowdec);
        if (rc < 0)
            return dbz_fail_rowdec(d, f->field);
        if (--f->depth > 0)
            return 1;
        if (f->abandon) {
            d->cur_row->values[f->field].flags = CDC_V_NULL | CDC_V_UNCHANGED;
            cdc_json_rowdec_begin(d->rowdec, d->cur_row, &d->out->arena);
        }
        dbz_pop(d);
        return 1;
    }
    case FR_VSD: {
        int32_t idx = f->field;
        dbz_pop(d);
        if (!d->vsd_has_scale || !d->vsd_has_value) {
            char reason[300];
            dbz_vsd_missing(d->vsd_has_scale, reason, sizeof(reason));
            return dbz_fail_field(d, idx, reason);
        }
        dbz_conv_t cx;
        dbz_conv_init(d, &cx, d->errbuf, sizeof(d->errbuf));
        if (dbz_convert_vsd(&cx, d->fields[idx].type, d->vsd_scale, d->vsd_value.data,
                            d->vsd_value.len, &d->cur_row->values[idx]) < 0)
            return dbz_fail_field(d, idx, d->errbuf);
        return 1;
    }
    case FR_SKIP:
        if (--f->depth > 0)
            return 1;
        dbz_pop(d);
        if (f->purpose == SKIP_PAYLOAD) {
            d->payload_start = f->start;
            d->payload_end = offset(d);
            d->payload_deferred = true;
        } else if (f->purpose == SKIP_PROP && d->nprops > 0) {
            /* a nested member of source: its JSON text */
            size_t end = offset(d);
            cdc_value_t *v = &d->props[d->nprops - 1].val;
            v->v.s.ptr = d->text + f->start;
            v->v.s.len = (uint32_t)(end - f->start);
            v->flags = 0;
        }
        return 1;
    case FR_SCH_COL:
        col_end(d);
        dbz_pop(d);
        return 1;
    case FR_SCH_ENVF:
        envf_end(d);
        dbz_pop(d);
        return 1;
    case FR_SCH:
        d->schema_end = offset(d);
        dbz_pop(d);
        return 1;
    default:
        dbz_pop(d);
        if (d->top < 0)
            return root_closed(d);
        return 1;
    }
}

static int on_start_map(void *ctx)
{
    return on_open(ctx, '{');
}

static int on_end_map(void *ctx)
{
    return on_close(ctx, '}');
}

static int on_start_array(void *ctx)
{
    return on_open(ctx, '[');
}

static int on_end_array(void *ctx)
{
    return on_close(ctx, ']');
}

static const yajl_callbacks dbz_callbacks = {
    .yajl_null = on_null,
    .yajl_boolean = on_bool,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_key,
    .yajl_end_map = on_end_map,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end_array,
};

/* FR_ROW: the members of a row image. */
static int row_key(void *ctx, const unsigned char *key, size_t len)
{
    dbz_deser_t *d = ctx;
    d->row_field = dbz_find_field(d, d->row_next, (const char *)key, len);
    if (d->row_field >= 0)
        d->row_next = d->row_field + 1;
    return 1;
}

static int row_null(void *ctx)
{
    dbz_deser_t *d = ctx;
    return d->row_field < 0 ? 1 : dbz_convert_field(d, d->row_field, 'n', "null", 4);
}

static int row_bool(void *ctx, int b)
{
    dbz_deser_t *d = ctx;
    return d->row_field < 0
               ? 1
               : dbz_convert_field(d, d->row_field, 'b', b ? "true" : "false", b ? 4 : 5);
}

static int row_number(void *ctx, const char *s, size_t len)
{
    dbz_deser_t *d = ctx;
    return d->row_field < 0 ? 1 : dbz_convert_field(d, d->row_field, '#', s, len);
}

static int row_string(void *ctx, const unsigned char *s, size_t len)
{
    dbz_deser_t *d = ctx;
    return d->row_field < 0 ? 1 : dbz_convert_field(d, d->row_field, 's', (const char *)s, len);
}

static const yajl_callbacks row_callbacks = {
    .yajl_null = row_null,
    .yajl_boolean = row_bool,
    .yajl_number = row_number,
    .yajl_string = row_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = row_key,
    .yajl_end_map = on_end_map,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end_array,
};

/* FR_SOURCE without source.properties: only db, schema, table and ts_ms matter. */
static int src_key(void *ctx, const unsigned char *key, size_t len)
{
    dbz_deser_t *d = ctx;
    d->fr[d->top].key = source_key((const char *)key, len);
    return 1;
}

static int src_scalar(dbz_deser_t *d, char kind, const char *s, size_t len)
{
    frame_t *f = &d->fr[d->top];
    return f->key == K_NONE ? 1 : source_scalar(d, f, kind, s, len);
}

static int src_null(void *ctx)
{
    return src_scalar(ctx, 'n', "null", 4);
}

static int src_bool(void *ctx, int b)
{
    return src_scalar(ctx, 'b', b ? "true" : "false", b ? 4 : 5);
}

static int src_number(void *ctx, const char *s, size_t len)
{
    return src_scalar(ctx, '#', s, len);
}

static int src_string(void *ctx, const unsigned char *s, size_t len)
{
    return src_scalar(ctx, 's', (const char *)s, len);
}

static const yajl_callbacks source_callbacks = {
    .yajl_null = src_null,
    .yajl_boolean = src_bool,
    .yajl_number = src_number,
    .yajl_string = src_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = src_key,
    .yajl_end_map = on_end_map,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end_array,
};

void dbz_set_callbacks(dbz_deser_t *d)
{
    const yajl_callbacks *cb = &dbz_callbacks;
    if (d->top >= 0) {
        uint8_t kind = d->fr[d->top].kind;
        if (kind == FR_ROW)
            cb = &row_callbacks;
        else if (kind == FR_SOURCE && !d->want[MD_SOURCE_PROPS])
            cb = &source_callbacks;
    }
    d->cbs = *cb;
}
