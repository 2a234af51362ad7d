/*
 * dbz_encode.c — the debezium-json serializer: rows back to Debezium events
 * as Flink writes them (+I/+U as "c" with "after", -U/-D as "d" with
 * "before"), unchanged (TOAST) columns as the placeholder, and with
 * source.connector set, Debezium's "source" block from the sink's columns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_json.h"
#include "dbz_int.h"

/* ---- serializer ------------------------------------------------------------------------------ */

/* Debezium's source fields in order, per connector; a sink column may fill each. */
static const char *const dbz_src_mysql[] = {
    "version",   "connector", "name", "ts_ms", "snapshot", "db",     "sequence", "table",
    "server_id", "gtid",      "file", "pos",   "row",      "thread", "query",    NULL};
static const char *const dbz_src_pg[] = {"version", "connector", "name",   "ts_ms", "snapshot",
                                         "db",      "sequence",  "schema", "table", "txId",
                                         "lsn",     "xmin",      NULL};

typedef struct dbz_ser_s {
    cdc_ser_t base;
    cdc_type_t *row_type; /* the row images: every column, or those without the source prefix */
    const cdc_type_t *in_type; /* the rows given to encode() */
    cdc_type_t *in_owned;
    /* the source block (source.connector set) */
    const char *const *src_fields; /* NULL = no source block */
    char *connector, *name;
    int *img_col;   /* row_type field -> input column */
    int *src_col;   /* src_fields[i] -> input column, -1 = default */
    int *extra_col; /* source columns that are no Debezium field, written after them */
    int nextra;
    size_t prefix_len;
    cdc_value_t *img_vals; /* scratch: the image's values */
    cdc_json_encode_opts_t opts;
    char *literal;
    char *ph;
    size_t ph_len;
    uint8_t bin_mode; /* binary.handling.mode: DBZ_BIN_* */
    bool has_bytes;   /* the images have BYTES columns */
} dbz_ser_t;

/* Bytes as a JSON string in binary.handling.mode's encoding. */
static void write_bytes(const dbz_ser_t *s, cdc_buf_t *out, const unsigned char *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    cdc_buf_putc(out, '"');
    if (s->bin_mode == DBZ_BIN_HEX) {
        for (size_t i = 0; i < n; i++) {
            cdc_buf_putc(out, hex[p[i] >> 4]);
            cdc_buf_putc(out, hex[p[i] & 15]);
        }
    } else {
        size_t at = out->len;
        cdc_text_base64_encode(out, p, n);
        for (size_t i = at; s->bin_mode == DBZ_BIN_BASE64_URL && i < out->len; i++)
            out->data[i] = out->data[i] == '+' ? '-' : out->data[i] == '/' ? '_' : out->data[i];
    }
    cdc_buf_putc(out, '"');
}

/*
 * A row written column by column: unchanged (TOAST) columns as the placeholder
 * for text and bytes, bytes in binary.handling.mode's encoding.
 */
static int write_row_columns(dbz_ser_t *s, cdc_buf_t *out, const cdc_row_t *row)
{
    const cdc_type_t *rt = s->row_type;
    uint32_t n = (uint32_t)rt->nchildren < row->arity ? (uint32_t)rt->nchildren : row->arity;
    cdc_buf_putc(out, '{');
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            cdc_buf_putc(out, ',');
        cdc_json_write_string(out, rt->names[i], strlen(rt->names[i]));
        cdc_buf_putc(out, ':');
        const cdc_value_t *v = &row->values[i];
        const cdc_type_t *t = rt->children[i];
        if (v->flags & CDC_V_UNCHANGED) {
            if (t->root == CDC_T_CHAR || t->root == CDC_T_VARCHAR)
                cdc_json_write_string(out, s->ph, s->ph_len);
            else if (t->root == CDC_T_BINARY || t->root == CDC_T_VARBINARY)
                write_bytes(s, out, (const unsigned char *)s->ph, s->ph_len);
            else
                cdc_buf_puts(out, "null");
            continue;
        }
        if ((t->root == CDC_T_BINARY || t->root == CDC_T_VARBINARY) && !cdc_value_is_null(v)) {
            write_bytes(s, out, (const unsigned char *)v->v.s.ptr, v->v.s.len);
            continue;
        }
        if (cdc_json_write_value(out, v, t, &s->opts) < 0)
            return -1;
    }
    cdc_buf_putc(out, '}');
    return 0;
}

static int write_image(dbz_ser_t *s, cdc_buf_t *out, const cdc_row_t *row)
{
    uint32_t n = (uint32_t)s->row_type->nchildren < row->arity ? (uint32_t)s->row_type->nchildren
                                                               : row->arity;
    if (s->has_bytes && s->bin_mode != DBZ_BIN_BASE64)
        return write_row_columns(s, out, row);
    for (uint32_t i = 0; i < n; i++)
        if (row->values[i].flags & CDC_V_UNCHANGED)
            return write_row_columns(s, out, row);
    return cdc_json_write_row(out, row, s->row_type, &s->opts);
}

/* One source field's value from its column: times as epoch millis, snapshot as "true"/"false". */
static int write_src_value(dbz_ser_t *s, cdc_buf_t *out, const char *field, const cdc_value_t *v,
                           const cdc_type_t *t)
{
    if (cdc_value_is_null(v)) {
        cdc_buf_puts(out, "null");
        return 0;
    }
    if (t->root == CDC_T_TIMESTAMP_LTZ || t->root == CDC_T_TIMESTAMP) {
        cdc_buf_printf(out, "%lld", (long long)v->v.ts.millis);
        return 0;
    }
    if (t->root == CDC_T_BOOLEAN && strcmp(field, "snapshot") == 0) {
        cdc_buf_puts(out, v->v.b ? "\"true\"" : "\"false\"");
        return 0;
    }
    return cdc_json_write_value(out, v, t, &s->opts);
}

/* ,"source":{...} from the row's source columns, defaults for the others. */
static int write_source(dbz_ser_t *s, cdc_buf_t *out, const cdc_row_t *row)
{
    const cdc_type_t *it = s->in_type;
    cdc_buf_puts(out, ",\"source\":{");
    for (int i = 0; s->src_fields[i]; i++) {
        const char *f = s->src_fields[i];
        cdc_buf_printf(out, "%s\"%s\":", i ? "," : "", f);
        int c = s->src_col[i];
        if (c >= 0 && (uint32_t)c < row->arity) {
            if (write_src_value(s, out, f, &row->values[c], it->children[c]) < 0)
                return -1;
        } else if (strcmp(f, "version") == 0) {
            cdc_buf_puts(out, "\"cdcflow\"");
        } else if (strcmp(f, "connector") == 0) {
            cdc_json_write_string(out, s->connector, strlen(s->connector));
        } else if (strcmp(f, "name") == 0) {
            cdc_json_write_string(out, s->name, strlen(s->name));
        } else if (strcmp(f, "snapshot") == 0) {
            cdc_buf_puts(out, "\"false\"");
        } else if (!strcmp(f, "ts_ms") || !strcmp(f, "server_id") || !strcmp(f, "pos") ||
                   !strcmp(f, "row")) {
            cdc_buf_putc(out, '0');
        } else if (!strcmp(f, "db") || !strcmp(f, "table") || !strcmp(f, "file") ||
                   !strcmp(f, "schema")) {
            cdc_buf_puts(out, "\"\"");
        } else {
            cdc_buf_puts(out, "null");
        }
    }
    for (int k = 0; k < s->nextra; k++) {
        int c = s->extra_col[k];
        const char *f = it->names[c] + s->prefix_len;
        cdc_buf_putc(out, ',');
        cdc_json_write_string(out, f, strlen(f));
        cdc_buf_putc(out, ':');
        if ((uint32_t)c >= row->arity)
            cdc_buf_puts(out, "null");
        else if (write_src_value(s, out, f, &row->values[c], it->children[c]) < 0)
            return -1;
    }
    cdc_buf_putc(out, '}');
    return 0;
}

static int dbz_encode(cdc_ser_t *base, const cdc_row_t *row, cdc_buf_t *out)
{
    dbz_ser_t *s = (dbz_ser_t *)base;
    size_t start = out->len;
    int rc;
    const cdc_row_t *in = row;
    cdc_row_t img;
    if (s->src_fields) { /* the image is the row without its source columns */
        img = *row;
        img.arity = (uint32_t)s->row_type->nchildren;
        img.values = s->img_vals;
        for (uint32_t i = 0; i < img.arity; i++) {
            int c = s->img_col[i];
            if ((uint32_t)c < row->arity)
                s->img_vals[i] = row->values[c];
            else
                s->img_vals[i].flags = CDC_V_NULL;
        }
        row = &img;
    }
    switch (row->kind) {
    case CDC_INSERT:
    case CDC_UPDATE_AFTER:
        cdc_buf_puts(out, "{\"before\":null,\"after\":");
        rc = write_image(s, out, row);
        if (rc == 0 && s->src_fields)
            rc = write_source(s, out, in);
        cdc_buf_puts(out, ",\"op\":\"c\"}");
        break;
    case CDC_UPDATE_BEFORE:
    case CDC_DELETE:
        cdc_buf_puts(out, "{\"before\":");
        rc = write_image(s, out, row);
        cdc_buf_puts(out, ",\"after\":null");
        if (rc == 0 && s->src_fields)
            rc = write_source(s, out, in);
        cdc_buf_puts(out, ",\"op\":\"d\"}");
        break;
    default:
        out->len = start;
        cdc_buf_clear(&s->base.errmsg);
        cdc_buf_printf(&s->base.errmsg,
                       "Could not serialize row: Unsupported operation '%d' for row kind.",
                       (int)row->kind);
        return -1;
    }
    if (rc < 0) {
        out->len = start;
        cdc_buf_clear(&s->base.errmsg);
        cdc_buf_puts(&s->base.errmsg, "Could not serialize row: " CDC_JSON_ERR_MAP_NULL_KEY);
        return -1;
    }
    return 0;
}

static void dbz_ser_destroy(cdc_ser_t *base)
{
    dbz_ser_t *s = (dbz_ser_t *)base;
    if (!s)
        return;
    cdc_type_destroy(s->row_type);
    cdc_type_destroy(s->in_owned);
    free(s->connector);
    free(s->name);
    free(s->img_col);
    free(s->src_col);
    free(s->extra_col);
    free(s->img_vals);
    cdc_buf_free(&s->base.errmsg);
    free(s->literal);
    free(s->ph);
    free(s);
}

static const cdc_ser_ops_t dbz_ser_ops = {
    .encode = dbz_encode,
    .destroy = dbz_ser_destroy,
};

/* With source.connector: splits the columns into the images and the source block. */
static int source_setup(dbz_ser_t *s, const cdc_format_ctx_t *ctx, cdc_error_t **err)
{
    s->in_type = s->row_type;
    const char *conn = cdc_config_str(ctx->cfg, "source.connector");
    if (!conn || !*conn)
        return 0;
    bool my = strcmp(conn, "mysql") == 0;
    s->src_fields = my ? dbz_src_mysql : dbz_src_pg;
    s->connector = cdc_xstrdup(conn);
    const char *name = cdc_config_str(ctx->cfg, "source.name");
    s->name = cdc_xstrdup(name ? name : "cdcflow");
    const char *prefix = cdc_config_str(ctx->cfg, "source.fields-prefix");
    prefix = prefix ? prefix : "source_";
    s->prefix_len = strlen(prefix);
    s->in_owned = s->row_type;
    s->in_type = s->in_owned;
    s->row_type = cdc_type_new_row();
    const cdc_type_t *it = s->in_type;
    int nf = 0;
    while (s->src_fields[nf])
        nf++;
    s->src_col = cdc_xmalloc(sizeof(int) * (size_t)nf);
    for (int i = 0; i < nf; i++)
        s->src_col[i] = -1;
    s->img_col = cdc_xmalloc(sizeof(int) * (size_t)(it->nchildren + 1));
    s->extra_col = cdc_xmalloc(sizeof(int) * (size_t)(it->nchildren + 1));
    for (int c = 0; c < it->nchildren; c++) {
        const char *n = it->names[c];
        if (strncmp(n, prefix, s->prefix_len) != 0 || !n[s->prefix_len]) {
            s->img_col[s->row_type->nchildren] = c;
            cdc_type_row_add(s->row_type, n, cdc_type_copy(it->children[c]));
            continue;
        }
        int i = 0;
        while (s->src_fields[i] && strcmp(s->src_fields[i], n + s->prefix_len) != 0)
            i++;
        if (s->src_fields[i])
            s->src_col[i] = c;
        else
            s->extra_col[s->nextra++] = c;
    }
    if (s->row_type->nchildren == 0)
        return cdc_error_set(err, CDC_ERR_OPTION,
                             "format \"debezium-json\": every column of \"%s\" starts with the "
                             "source prefix \"%s\"; the row images would be empty",
                             ctx->table ? ctx->table : "?", prefix);
    s->img_vals = cdc_xcalloc((size_t)s->row_type->nchildren, sizeof(cdc_value_t));
    return 0;
}

int dbz_ser_new(const cdc_format_ctx_t *ctx, cdc_ser_t **out, cdc_error_t **err)
{
    if (cdc_config_bool(ctx->cfg, "schema-include")) {
        cdc_error_t *e = cdc_error_new(CDC_ERR_OPTION,
                                       "Debezium JSON serialization doesn't support "
                                       "'debezium-json.schema-include' option been set to true.");
        cdc_error_set_hint(e, "schema-include applies to sources only; remove it from the sink "
                              "table.");
        if (err) {
            cdc_error_destroy(*err);
            *err = e;
        } else {
            cdc_error_destroy(e);
        }
        return -1;
    }
    if (dbz_check_row_type(ctx, err) < 0)
        return -1;
    dbz_ser_t *s = cdc_xcalloc(1, sizeof(*s));
    s->base.ops = &dbz_ser_ops;
    s->row_type = cdc_type_copy(ctx->row_type);
    cdc_json_encode_opts_read(ctx->cfg, &s->opts);
    s->literal = cdc_xstrdup(s->opts.map_null_key_literal ? s->opts.map_null_key_literal : "null");
    s->opts.map_null_key_literal = s->literal;
    const char *ph = cdc_config_str(ctx->cfg, "unavailable.value.placeholder");
    s->ph = cdc_xstrdup(ph && *ph ? ph : DBZ_PLACEHOLDER);
    s->ph_len = strlen(s->ph);
    s->bin_mode = (uint8_t)cdc_config_enum(ctx->cfg, "binary.handling.mode");
    for (int32_t i = 0; i < s->row_type->nchildren; i++)
        s->has_bytes |= s->row_type->children[i]->root == CDC_T_BINARY ||
                        s->row_type->children[i]->root == CDC_T_VARBINARY;
    if (source_setup(s, ctx, err) < 0) {
        dbz_ser_destroy(&s->base);
        return -1;
    }
    *out = &s->base;
    return 0;
}
