/*
 * dbz_rows.c — the debezium-json deserializer's rows: its error messages, the
 * row images ("before", "after") and their columns (scalars converted here
 * with fast paths for the common types, nested values through the json
 * format's row decoder), and the end of a message: the kinds and order of its
 * rows, their origin and metadata, or why it gives none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_json.h"
#include "dbz_int.h"

/* ---- errors ---------------------------------------------------------------------------------- */

void dbz_err_begin(dbz_deser_t *d)
{
    cdc_buf_clear(&d->base.errmsg);
    cdc_buf_puts(&d->base.errmsg, "corrupt Debezium JSON message: ");
}

int dbz_fail(dbz_deser_t *d, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    dbz_err_begin(d);
    cdc_buf_puts(&d->base.errmsg, tmp);
    return 0; /* cancels the parse */
}

/* `field "after.weight": REASON` */
int dbz_fail_field(dbz_deser_t *d, int32_t idx, const char *reason)
{
    return dbz_fail(d, "field \"%s.%s\": %s", d->cur_label, d->fields[idx].name, reason);
}

const char *dbz_kind_noun(char kind)
{
    switch (kind) {
    case 'n':
        return "null";
    case 'b':
        return "a boolean";
    case '#':
        return "a number";
    case 's':
        return "a string";
    case '{':
        return "an object";
    default:
        return "an array";
    }
}

int dbz_fail_member(dbz_deser_t *d, const char *member, const char *expected, char kind)
{
    return dbz_fail(d, "field \"%s\": expected %s, found %s", member, expected,
                    dbz_kind_noun(kind));
}

/* ---- rows ------------------------------------------------------------------------------------ */

int dbz_open_row(dbz_deser_t *d, bool before)
{
    int32_t *slot = before ? &d->row_before : &d->row_after;
    if (!dbz_push(d, FR_ROW))
        return dbz_fail(d, "JSON nested too deeply");
    cdc_row_t *row;
    if (*slot >= 0) { /* a repeated "before"/"after": the last wins (Jackson's rule) */
        row = &d->out->rows[*slot];
        for (uint32_t i = 0; i < row->arity; i++)
            row->values[i].flags = CDC_V_NULL;
    } else {
        row = cdc_batch_add(d->out, before ? CDC_UPDATE_BEFORE : CDC_UPDATE_AFTER, d->arity);
        *slot = (int32_t)(d->out->n - 1);
    }
    d->cur_row = row;
    d->row_field = -1;
    d->row_next = 0;
    d->cur_label = before ? "before" : "after";
    d->rowdec_begun = false;
    return 1;
}

int dbz_close_row(dbz_deser_t *d)
{
    /*
     * In upsert mode a "before" image is never emitted whole: an update's is
     * dropped and a delete is keyed, so a key-only "before" (PostgreSQL's
     * REPLICA IDENTITY DEFAULT) leaves its other columns null, NOT NULL or not.
     */
    bool before = d->cur_label[0] == 'b';
    for (uint32_t k = 0; k < d->nnotnull && !(before && d->upsert); k++) {
        int32_t i = d->notnull[k];
        if (d->cur_row->values[i].flags == CDC_V_NULL) {
            char reason[600];
            snprintf(reason, sizeof(reason), "missing, expected %s NOT NULL%s",
                     cdc_type_root_name(d->fields[i].type->root),
                     before ? "; a \"before\" without all columns (PostgreSQL's REPLICA "
                              "IDENTITY DEFAULT sends only the key) cannot be retracted: set "
                              "REPLICA IDENTITY FULL on the source table, or 'debezium-json."
                              "changelog-mode' = 'upsert' (updates without -U, deletes by key)"
                            : "");
            return dbz_fail_field(d, i, reason);
        }
    }
    dbz_pop(d);
    d->cur_row = NULL;
    return 1;
}

/*
 * Plain decimal text with few digits, exactly: m / 10^k with m and 10^k both
 * exact is one correctly rounded IEEE division (Clinger's fast path), the same
 * value strtod/strtof give. Returns false when the text does not qualify.
 */
static bool fast_real(const char *s, size_t len, bool is_float, double *d, float *f)
{
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    static const float p10f[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
    size_t i = 0;
    bool neg = len && s[0] == '-';
    i += neg;
    uint64_t m = 0;
    int nd = 0, frac = 0;
    bool dot = false;
    for (; i < len; i++) {
        unsigned c = (unsigned)(unsigned char)s[i] - '0';
        if (c <= 9) {
            m = m * 10 + c;
            nd += m != 0;
            frac += dot;
            if (nd > 15)
                return false;
        } else if (s[i] == '.' && !dot) {
            dot = true;
        } else {
            return false; /* exponent: the slow path */
        }
    }
    if (is_float) {
        if (m > (1u << 24) || frac > 10)
            return false;
        float v = (float)m / p10f[frac];
        *f = neg ? -v : v;
    } else {
        if (frac > 22)
            return false;
        double v = (double)m / p10[frac];
        *d = neg ? -v : v;
    }
    return true;
}

int dbz_convert_field(dbz_deser_t *d, int32_t idx, char kind, const char *s, size_t len)
{
    const dbz_field_t *f = &d->fields[idx];
    cdc_value_t *v = &d->cur_row->values[idx];
    dbz_colenc_t ce = {0, false, 0};
    if (d->have_schema)
        ce = d->enc[idx];
    if (kind == 's' && dbz_is_placeholder(d, s, len)) {
        v->flags = CDC_V_NULL | CDC_V_UNCHANGED;
        return 1;
    }
    if (ce.enc <= DBZ_ENC_PLAIN) {
        switch (f->fast) {
        case FAST_STRING:
            if (kind == 's') {
                dbz_str_value(d, s, len, v);
                return 1;
            }
            break;
        case FAST_INT:
            if (kind == '#') {
                int64_t x;
                if (cdc_text_parse_i64(s, len, &x) == 0 && x >= f->lo && x <= f->hi) {
                    v->v.i = x;
                    v->flags = 0;
                    return 1;
                }
            }
            break;
        case FAST_FLOAT:
        case FAST_DOUBLE:
            if (kind == '#' && fast_real(s, len, f->fast == FAST_FLOAT, &v->v.d, &v->v.f)) {
                v->flags = 0;
                return 1;
            }
            if (kind == '#' && len < 64) {
                char z[64];
                memcpy(z, s, len);
                z[len] = '\0';
                if (f->fast == FAST_FLOAT)
                    v->v.f = strtof(z, NULL);
                else
                    v->v.d = strtod(z, NULL);
                v->flags = 0;
                return 1;
            }
            break;
        case FAST_BOOL:
            if (kind == 'b') {
                v->v.b = s[0] == 't';
                v->flags = 0;
                return 1;
            }
            break;
        case FAST_TS: /* epoch millis into TIMESTAMP(3..9) / TIMESTAMP_LTZ(3..9) */
            if (kind == '#') {
                int64_t x;
                if (cdc_text_parse_i64(s, len, &x) == 0 && x >= -62167219200000LL &&
                    x <= 253402300799999LL) {
                    v->v.ts.millis = x;
                    v->v.ts.nanos = 0;
                    v->flags = 0;
                    return 1;
                }
            }
            break;
        default:
            break;
        }
    }
    dbz_conv_t cx;
    dbz_conv_init(d, &cx, d->errbuf, sizeof(d->errbuf));
    if (dbz_convert(&cx, f->type, ce, kind, s, len, v) < 0)
        return dbz_fail_field(d, idx, d->errbuf);
    return 1;
}

/* Rewrites a row decoder error `field "c[1]": ...` as `field "after.c[1]": ...`. */
int dbz_fail_rowdec(dbz_deser_t *d, int32_t idx)
{
    const char *e = cdc_json_rowdec_error(d->rowdec);
    if (strncmp(e, "field \"", 7) == 0)
        return dbz_fail(d, "field \"%s.%s", d->cur_label, e + 7);
    return dbz_fail_field(d, idx, e);
}

int dbz_nest_rc(dbz_deser_t *d, int rc)
{
    if (rc < 0)
        return dbz_fail_rowdec(d, d->fr[d->top].field);
    return 1;
}

/* Opens a nested column value: the row decoder gets the field's key and the event. */
int dbz_open_nest(dbz_deser_t *d, int32_t idx, char kind)
{
    if (!d->rowdec_begun) {
        cdc_json_rowdec_begin(d->rowdec, d->cur_row, &d->out->arena);
        d->rowdec_begun = true;
    }
    if (!dbz_push(d, FR_NEST))
        return dbz_fail(d, "JSON nested too deeply");
    frame_t *f = &d->fr[d->top];
    f->field = idx;
    f->depth = 1;
    f->is_array = kind == '[';
    const dbz_field_t *fd = &d->fields[idx];
    if (cdc_json_rowdec_map_key(d->rowdec, (const unsigned char *)fd->name, fd->len) < 0)
        return dbz_fail_rowdec(d, idx);
    int rc =
        kind == '[' ? cdc_json_rowdec_start_array(d->rowdec) : cdc_json_rowdec_start_map(d->rowdec);
    return dbz_nest_rc(d, rc);
}

/* ---- the end of a message: kinds, order, metadata -------------------------------------------- */

static const char RI_TEXT[] =
    "The \"before\" field of %s message is null, if you are using Debezium Postgres Connector, "
    "please check the Postgres table has been set REPLICA IDENTITY to FULL level.";

static bool is_control(const dbz_deser_t *d)
{
    uint32_t all = d->seen | d->top_seen;
    if (d->status_txn && (all & SEEN_ID))
        return true; /* transaction BEGIN/END */
    if (all & SEEN_CONTROL)
        return true; /* schema change */
    if (d->schema_kind)
        return true; /* heartbeat, transaction or schema change, by its schema name */
    if (d->seen == SEEN_TS && d->nkeys == 1 && (d->top_seen & ~(SEEN_SCHEMA | SEEN_PAYLOAD)) == 0)
        return true; /* a heartbeat {"ts_ms": ...} */
    if (d->top_seen == SEEN_TS && d->top_nkeys == 1 && d->nkeys == 0)
        return true; /* the same outside a payload */
    return false;
}

/* A message without "op": skipped when it is a control message, else an error (-1). */
static int no_op(dbz_deser_t *d)
{
    if (is_control(d))
        return 0;
    if (d->schema_include) {
        if (d->payload_null && !(d->top_seen & (SEEN_BARE | SEEN_OTHER)))
            return 0; /* {"schema": ..., "payload": null}: a tombstone */
        if (!(d->top_seen & SEEN_PAYLOAD)) {
            if (d->bare_op_norow)
                return 0; /* truncate or logical message: no row either way */
            if (d->top_seen & SEEN_BARE) {
                dbz_fail(d,
                         "field \"payload\" is missing: the message is a bare Debezium envelope, "
                         "but 'debezium-json.schema-include' is true; set it to 'false'");
                return -1;
            }
            dbz_fail(d, "field \"payload\" is missing ('debezium-json.schema-include' is true)");
            return -1;
        }
    } else if ((d->seen & SEEN_SCHEMA) && (d->seen & SEEN_PAYLOAD)) {
        if (d->schema_null && d->payload_null && d->nkeys == 2)
            return 0; /* the legacy rendering of a tombstone */
        dbz_fail(d, "field \"op\" is missing: the message is a Kafka Connect {\"schema\", "
                    "\"payload\"} envelope, but 'debezium-json.schema-include' is false; set it to "
                    "'true'");
        return -1;
    }
    if (d->op_null)
        dbz_fail(d, "field \"op\" is null, expected \"c\", \"r\", \"u\" or \"d\"");
    else
        dbz_fail(d, "field \"op\" is missing");
    return -1;
}

static void fill_metadata(dbz_deser_t *d, cdc_row_t *row, const cdc_array_t *props)
{
    cdc_value_t *v = row->values + d->nfields;
    for (int k = 0; k < d->nmd; k++, v++) {
        v->flags = CDC_V_NULL;
        switch (d->md[k]) {
        case MD_SCHEMA:
            if (d->schema_include && d->schema_end > d->schema_start) {
                v->v.s.ptr = d->msg + d->schema_start;
                v->v.s.len = (uint32_t)(d->schema_end - d->schema_start);
                v->flags = 0;
            }
            break;
        case MD_INGESTION_TS:
            if (d->have_ts) {
                v->v.ts.millis = d->ts_ms;
                v->v.ts.nanos = 0;
                v->flags = 0;
            }
            break;
        case MD_SOURCE_TS:
            if (d->have_src_ts) {
                v->v.ts.millis = d->src_ts_ms;
                v->v.ts.nanos = 0;
                v->flags = 0;
            }
            break;
        case MD_SOURCE_DB:
            *v = d->src_db;
            break;
        case MD_SOURCE_SCHEMA:
            *v = d->src_schema;
            break;
        case MD_SOURCE_TABLE:
            *v = d->src_table;
            break;
        case MD_SOURCE_PROPS:
            if (props) {
                v->v.arr = *props;
                v->flags = 0;
            }
            break;
        default:
            break;
        }
    }
}

static const char *make_origin(dbz_deser_t *d)
{
    if (cdc_value_is_null(&d->src_table))
        return NULL;
    const cdc_value_t *ns = !cdc_value_is_null(&d->src_schema) && d->src_schema.v.s.len > 0
                                ? &d->src_schema
                                : &d->src_db;
    size_t nl = cdc_value_is_null(ns) ? 0 : ns->v.s.len;
    size_t tl = d->src_table.v.s.len;
    char *o = cdc_arena_alloc(&d->out->arena, nl + tl + 2);
    char *w = o;
    if (nl) {
        memcpy(w, ns->v.s.ptr, nl);
        w += nl;
        *w++ = '.';
    }
    memcpy(w, d->src_table.v.s.ptr, tl);
    w[tl] = '\0';
    return o;
}

/* Returns 0 or -1 (error set). */
int dbz_finish(dbz_deser_t *d)
{
    if (d->tombstone)
        return 0;
    if (!(d->seen & SEEN_OP)) {
        int rc = no_op(d);
        d->out->n = d->n0;
        return rc;
    }
    cdc_row_t rows[2];
    int n = 0;
    cdc_row_t *before = d->row_before >= 0 ? &d->out->rows[d->row_before] : NULL;
    cdc_row_t *after = d->row_after >= 0 ? &d->out->rows[d->row_after] : NULL;
    char op = d->oplen == 1 ? d->op[0] : '?';
    switch (op) {
    case 'c':
    case 'r':
        if (!after) {
            dbz_fail(d, "field \"after\": expected an object for op \"%c\", found %s", op,
                     d->seen & SEEN_AFTER ? "null" : "nothing");
            return -1;
        }
        rows[n] = *after;
        rows[n++].kind = CDC_INSERT;
        break;
    case 'u':
        if (!after) {
            dbz_fail(d, "field \"after\": expected an object for op \"u\", found %s",
                     d->seen & SEEN_AFTER ? "null" : "nothing");
            return -1;
        }
        if (!d->upsert) {
            if (!before) {
                dbz_fail(d, RI_TEXT, "UPDATE");
                return -1;
            }
            rows[n] = *before;
            rows[n++].kind = CDC_UPDATE_BEFORE;
        }
        rows[n] = *after;
        rows[n++].kind = CDC_UPDATE_AFTER;
        break;
    case 'd':
        if (!before) {
            dbz_fail(d, RI_TEXT, "DELETE");
            if (d->upsert)
                cdc_buf_puts(&d->base.errmsg,
                             " (changelog-mode 'upsert' needs at least the key columns in "
                             "\"before\"; REPLICA IDENTITY NOTHING sends none)");
            return -1;
        }
        rows[n] = *before;
        rows[n++].kind = CDC_DELETE;
        break;
    case 't': /* truncate */
    case 'm': /* logical decoding message */
        break;
    default:
        dbz_fail(d, "unknown \"op\" value \"%.*s\"", (int)(d->oplen < sizeof(d->op) ? d->oplen : 8),
                 d->op);
        return -1;
    }
    d->out->n = d->n0;
    if (n == 0)
        return 0;
    const char *origin = make_origin(d);
    cdc_array_t props = {0};
    bool have_props = false;
    if (d->want[MD_SOURCE_PROPS] && (d->seen & SEEN_SOURCE)) {
        props.n = d->nprops;
        props.elems = cdc_arena_alloc(&d->out->arena, (d->nprops + 1) * sizeof(cdc_value_t));
        props.vals = cdc_arena_alloc(&d->out->arena, (d->nprops + 1) * sizeof(cdc_value_t));
        for (uint32_t i = 0; i < d->nprops; i++) {
            props.elems[i] = d->props[i].key;
            props.vals[i] = d->props[i].val;
        }
        have_props = true;
    }
    for (int i = 0; i < n; i++) {
        rows[i].origin = origin;
        if (d->nmd)
            fill_metadata(d, &rows[i], have_props ? &props : NULL);
        d->out->rows[d->out->n++] = rows[i];
    }
    return 0;
}
