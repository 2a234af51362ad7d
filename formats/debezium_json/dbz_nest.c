/*
 * dbz_nest.c — Debezium's semantic types inside nested values (ARRAY
 * elements, ROW fields, MAP keys' values): the row type's nodes numbered as
 * the json row decoder numbers them, the Connect schema's nested nodes
 * ("items", "keys", "values", a struct's "fields") matched to those nodes,
 * and the row decoder's hook that converts each nested value exactly as a
 * column of its type is converted (dbz_convert), VariableScaleDecimal objects
 * included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_json.h"
#include "dbz_int.h"

/* ---- the row type's nodes ---------------------------------------------------------------------
 */

static uint32_t count_nodes(const cdc_type_t *t)
{
    uint32_t n = 1;
    for (int32_t k = 0; k < t->nchildren; k++)
        n += count_nodes(t->children[k]);
    return n;
}

/* Preorder, as cdc_json_hook_t numbers them: t, then each child's subtree in order. */
static void number_nodes(dbz_deser_t *d, const cdc_type_t *t, uint32_t *next, uint32_t *kid_next)
{
    uint32_t id = (*next)++;
    d->node_type[id] = t;
    d->node_kid_off[id] = *kid_next;
    *kid_next += (uint32_t)t->nchildren;
    for (int32_t k = 0; k < t->nchildren; k++) {
        d->node_kid[d->node_kid_off[id] + k] = *next;
        number_nodes(d, t->children[k], next, kid_next);
    }
}

void dbz_nodes_init(dbz_deser_t *d)
{
    uint32_t n = count_nodes(d->row_type);
    d->nnodes = n;
    d->node_type = cdc_xcalloc(n, sizeof(*d->node_type));
    d->node_kid_off = cdc_xcalloc(n, sizeof(*d->node_kid_off));
    d->node_kid = cdc_xcalloc(n, sizeof(*d->node_kid));
    d->nenc = cdc_xcalloc(n, sizeof(*d->nenc));
    d->nstage = cdc_xcalloc(n, sizeof(*d->nstage));
    d->nstaged = cdc_xcalloc(n, 1);
    uint32_t next = 0, kid_next = 0;
    number_nodes(d, d->row_type, &next, &kid_next);
}

void dbz_nodes_free(dbz_deser_t *d)
{
    free(d->node_type);
    free(d->node_kid_off);
    free(d->node_kid);
    free(d->nenc);
    free(d->nstage);
    free(d->nstaged);
    free(d->snodes);
    cdc_buf_free(&d->snames);
}

/* ---- the schema's nested nodes ----------------------------------------------------------------
 */

int32_t dbz_snode_add(dbz_deser_t *d, int32_t parent, uint8_t link)
{
    if (d->nsnodes == d->cap_snodes) {
        d->cap_snodes = d->cap_snodes ? d->cap_snodes * 2 : 16;
        d->snodes = cdc_xrealloc(d->snodes, d->cap_snodes * sizeof(*d->snodes));
    }
    dbz_snode_t *n = &d->snodes[d->nsnodes];
    memset(n, 0, sizeof(*n));
    n->enc = 0xff;
    n->parent = parent;
    n->link = link;
    return (int32_t)d->nsnodes++;
}

void dbz_snode_name(dbz_deser_t *d, int32_t idx, const char *s, size_t len)
{
    dbz_snode_t *n = &d->snodes[idx];
    n->name_off = (uint32_t)d->snames.len;
    n->name_len = (uint32_t)len;
    cdc_buf_append(&d->snames, s, len);
}

/* The type node a schema node describes, from its parent's; -1 when the types do not match. */
static int64_t snode_target(const dbz_deser_t *d, int64_t pid, const dbz_snode_t *n)
{
    if (pid < 0)
        return -1;
    const cdc_type_t *pt = d->node_type[pid];
    const uint32_t *kids = d->node_kid + d->node_kid_off[pid];
    switch (n->link) {
    case SL_ITEMS:
        return pt->root == CDC_T_ARRAY ? (int64_t)kids[0] : -1;
    case SL_KEYS:
        return pt->root == CDC_T_MAP ? (int64_t)kids[0] : -1;
    case SL_VALUES:
        return pt->root == CDC_T_MAP ? (int64_t)kids[1] : -1;
    default: /* SL_FIELD */
        if (pt->root != CDC_T_ROW)
            return -1;
        for (int32_t k = 0; k < pt->nchildren; k++)
            if (strlen(pt->names[k]) == n->name_len &&
                memcmp(pt->names[k], d->snames.data + n->name_off, n->name_len) == 0)
                return kids[k];
        return -1;
    }
}

void dbz_snodes_stage(dbz_deser_t *d, int32_t col)
{
    /* schema node 0 is the column itself; a node's parent comes before it */
    d->snodes[0].tid = d->node_kid[d->node_kid_off[0] + (uint32_t)col];
    for (uint32_t i = 1; i < d->nsnodes; i++) {
        dbz_snode_t *n = &d->snodes[i];
        n->tid = snode_target(d, d->snodes[n->parent].tid, n);
        if (n->tid < 0)
            continue;
        dbz_colenc_t ce;
        ce.enc = n->enc != 0xff ? n->enc : n->is_bytes ? DBZ_ENC_NONE : DBZ_ENC_PLAIN;
        ce.scale = n->scale;
        ce.bytes = n->is_bytes;
        d->nstage[n->tid] = ce;
        d->nstaged[n->tid] = 1;
    }
}

void dbz_nodes_commit(dbz_deser_t *d, bool is_row)
{
    for (uint32_t i = 0; i < d->nnodes; i++) {
        if (d->nstaged[i] && is_row)
            d->nenc[i] = d->nstage[i];
        d->nstaged[i] = 0;
    }
}

/* ---- conversion -------------------------------------------------------------------------------
 */

void dbz_conv_init(dbz_deser_t *d, dbz_conv_t *cx, char *err, size_t errlen)
{
    cx->iso8601 = d->iso8601;
    cx->precise_base64 = d->precise_base64;
    cx->ts_unit = d->ts_unit;
    cx->time_unit = d->time_unit;
    cx->bin_mode = d->bin_mode;
    cx->in = d->msg;
    cx->inlen = d->len;
    cx->arena = &d->out->arena;
    cx->err = err;
    cx->errlen = errlen;
    if (errlen)
        err[0] = '\0';
}

bool dbz_takes_vsd(const cdc_type_t *t, uint8_t enc)
{
    bool numeric = t->root == CDC_T_DECIMAL || t->root == CDC_T_FLOAT || t->root == CDC_T_DOUBLE ||
                   cdc_type_is_integer(t);
    return (enc == DBZ_ENC_VSDECIMAL || (numeric && enc <= DBZ_ENC_PLAIN)) &&
           (numeric || t->root == CDC_T_CHAR || t->root == CDC_T_VARCHAR);
}

void dbz_vsd_missing(bool has_scale, char *buf, size_t cap)
{
    snprintf(buf, cap,
             "expected %s {\"scale\": n, \"value\": base64}, found an object without \"%s\"",
             dbz_enc_name(DBZ_ENC_VSDECIMAL), has_scale ? "value" : "scale");
}

/* The members of a captured {"scale": n, "value": base64} object. */
static int vsd_key(void *ctx, const unsigned char *key, size_t len)
{
    dbz_deser_t *d = ctx;
    const char *s = (const char *)key;
    d->vsd_key = KEY_IS("scale") ? K_SCALE : KEY_IS("value") ? K_VALUE : K_NONE;
    return 1;
}

static int vsd_scalar(dbz_deser_t *d, char kind, const char *s, size_t len)
{
    if (d->vsd_depth != 1 || d->vsd_key == K_NONE)
        return 1;
    if (d->vsd_key == K_SCALE) {
        if (kind != '#' || cdc_text_parse_i64(s, len, &d->vsd_scale) < 0) {
            d->vsd_bad = kind;
            return 0;
        }
        d->vsd_has_scale = true;
    } else {
        if (kind != 's') {
            d->vsd_bad = kind;
            return 0;
        }
        cdc_buf_clear(&d->vsd_value);
        cdc_buf_append(&d->vsd_value, s, len);
        d->vsd_has_value = true;
    }
    return 1;
}

static int vsd_null(void *ctx)
{
    return vsd_scalar(ctx, 'n', "null", 4);
}

static int vsd_bool(void *ctx, int b)
{
    return vsd_scalar(ctx, 'b', b ? "true" : "false", b ? 4 : 5);
}

static int vsd_number(void *ctx, const char *s, size_t len)
{
    return vsd_scalar(ctx, '#', s, len);
}

static int vsd_string(void *ctx, const unsigned char *s, size_t len)
{
    return vsd_scalar(ctx, 's', (const char *)s, len);
}

static int vsd_open(void *ctx)
{
    dbz_deser_t *d = ctx;
    if (++d->vsd_depth > 1 && d->vsd_key != K_NONE) {
        d->vsd_bad = '{';
        return 0;
    }
    return 1;
}

static int vsd_close(void *ctx)
{
    dbz_deser_t *d = ctx;
    if (--d->vsd_depth == 0)
        cdc_json_parser_mark_end(d->vsd_parser);
    return 1;
}

static const yajl_callbacks vsd_callbacks = {
    .yajl_null = vsd_null,
    .yajl_boolean = vsd_bool,
    .yajl_number = vsd_number,
    .yajl_string = vsd_string,
    .yajl_start_map = vsd_open,
    .yajl_map_key = vsd_key,
    .yajl_end_map = vsd_close,
    .yajl_start_array = vsd_open,
    .yajl_end_array = vsd_close,
};

/* A VariableScaleDecimal object given as its compact JSON text (an element, a field). */
static int nest_vsd(dbz_deser_t *d, const dbz_conv_t *cx, const cdc_type_t *t, const char *s,
                    size_t len, cdc_value_t *out)
{
    if (!d->vsd_parser)
        d->vsd_parser = cdc_json_parser_new(&vsd_callbacks, d);
    d->vsd_has_scale = d->vsd_has_value = false;
    d->vsd_depth = 0;
    d->vsd_key = K_NONE;
    d->vsd_bad = 0;
    int rc = cdc_json_parser_parse(d->vsd_parser, s, len, &d->parse_err);
    if (rc != CDC_JSON_PARSE_OK) {
        snprintf(cx->err, cx->errlen, "expected %s %s as %s, found %s",
                 dbz_enc_name(DBZ_ENC_VSDECIMAL), d->vsd_key == K_SCALE ? "scale" : "value",
                 d->vsd_key == K_SCALE ? "an integer" : "base64 text", dbz_kind_noun(d->vsd_bad));
        return -1;
    }
    if (!d->vsd_has_scale || !d->vsd_has_value) {
        dbz_vsd_missing(d->vsd_has_scale, cx->err, cx->errlen);
        return -1;
    }
    return dbz_convert_vsd(cx, t, d->vsd_scale, d->vsd_value.data, d->vsd_value.len, out);
}

/* The row decoder's hook: a nested value converted as a column of its type would be. */
static int nest_scalar(void *ctx, const cdc_type_t *t, uint32_t node, char kind, const char *s,
                       size_t len, cdc_value_t *out, char *reason, size_t cap)
{
    dbz_deser_t *d = ctx;
    dbz_colenc_t ce = {0, false, 0};
    if (d->have_schema && node < d->nnodes)
        ce = d->nenc[node];
    dbz_conv_t cx;
    dbz_conv_init(d, &cx, reason, cap);
    if (kind == '{')
        return nest_vsd(d, &cx, t, s, len, out);
    return dbz_convert(&cx, t, ce, kind, s, len, out);
}

static bool nest_object(void *ctx, const cdc_type_t *t, uint32_t node)
{
    dbz_deser_t *d = ctx;
    uint8_t enc = d->have_schema && node < d->nnodes ? d->nenc[node].enc : DBZ_ENC_NONE;
    return dbz_takes_vsd(t, enc);
}

void dbz_nest_hook(dbz_deser_t *d)
{
    cdc_json_hook_t hook = {.scalar = nest_scalar, .object = nest_object, .ctx = d};
    cdc_json_rowdec_set_hook(d->rowdec, &hook);
}
