/*
 * avro_read.c — decoding Avro binary into rows: the plan that resolves a
 * writer schema against the declared table (fields by name, each writer type
 * checked once against its column), and the reader that follows it over a
 * message, values going straight into the batch (strings and bytes point into
 * the message; arrays, maps and nested rows in the batch's arena).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avro_int.h"

/* Conversions a plan applies to what it reads. */
enum {
    OP_SKIP,
    OP_NULL,
    OP_BOOL,
    OP_INT,    /* int/long into TINYINT..BIGINT (range checked) */
    OP_FLOAT,  /* int/long/float/double into FLOAT */
    OP_DOUBLE, /* into DOUBLE */
    OP_STRING, /* string/enum into CHAR/VARCHAR */
    OP_BYTES,  /* bytes/fixed into BINARY/VARBINARY */
    OP_DECIMAL,
    OP_VSD, /* io.debezium.data.VariableScaleDecimal {scale, value} into DECIMAL */
    OP_DATE,
    OP_TIME,
    OP_TS,
    OP_TEXT, /* a string into another scalar column: the core's text conversion */
    OP_ARRAY,
    OP_MAP,
    OP_ROW,
    OP_UNION
};

/* ---- resolving a writer schema against the table ------------------------------------------- */

static const char *const kind_names[] = {"null",   "boolean", "int",    "long",  "float",
                                         "double", "bytes",   "string", "fixed", "enum",
                                         "array",  "map",     "record", "union"};
static const char *const lt_names[] = {"",
                                       " (decimal)",
                                       " (date)",
                                       " (time-millis)",
                                       " (time-micros)",
                                       " (time-nanos)",
                                       " (timestamp-millis)",
                                       " (timestamp-micros)",
                                       " (timestamp-nanos)",
                                       " (zoned timestamp text)"};

static av_plan_t *plan_new(av_resolved_t *r, const av_node_t *w, const cdc_type_t *t)
{
    av_plan_t *p = cdc_xcalloc(1, sizeof(*p));
    p->w = w;
    p->t = t;
    if (r->nall == r->capall) {
        r->capall = r->capall ? r->capall * 2 : 16;
        r->all = cdc_xrealloc(r->all, (size_t)r->capall * sizeof(*r->all));
    }
    r->all[r->nall++] = p;
    return p;
}

static int mismatch(const av_node_t *w, const cdc_type_t *t, const char *path, cdc_error_t **err)
{
    char *tt = cdc_type_to_string(t);
    cdc_error_t *e =
        cdc_error_new(CDC_ERR_PARSE, "field \"%s\": the writer schema has %s%s, the column is %s",
                      path, kind_names[w->kind], lt_names[w->logical], tt);
    cdc_error_set_hint(e, "declare the column with a type that Avro type maps to (README, "
                          "\"Avro formats\", type mapping), or fix the writer's schema");
    free(tt);
    if (err) {
        cdc_error_destroy(*err);
        *err = e;
    } else {
        cdc_error_destroy(e);
    }
    return -1;
}

static av_plan_t *compile(av_resolved_t *r, const av_node_t *w, const cdc_type_t *t,
                          const char *path, cdc_error_t **err);

static int scalar_op(const av_node_t *w, const cdc_type_t *t)
{
    av_kind_t k = w->kind;
    av_logical_t lt = w->logical;
    bool integral = k == AV_INT || k == AV_LONG;
    switch (t->root) {
    case CDC_T_BOOLEAN:
        return k == AV_BOOLEAN ? OP_BOOL : k == AV_STRING ? OP_TEXT : -1;
    case CDC_T_TINYINT:
    case CDC_T_SMALLINT:
    case CDC_T_INT:
    case CDC_T_BIGINT:
        return integral && lt == AV_LT_NONE ? OP_INT : k == AV_STRING ? OP_TEXT : -1;
    case CDC_T_FLOAT:
        return (integral && lt == AV_LT_NONE) || k == AV_FLOAT || k == AV_DOUBLE ? OP_FLOAT
               : k == AV_STRING                                                  ? OP_TEXT
                                                                                 : -1;
    case CDC_T_DOUBLE:
        return (integral && lt == AV_LT_NONE) || k == AV_FLOAT || k == AV_DOUBLE ? OP_DOUBLE
               : k == AV_STRING                                                  ? OP_TEXT
                                                                                 : -1;
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
        return k == AV_STRING || k == AV_ENUM ? OP_STRING : -1;
    case CDC_T_BINARY:
    case CDC_T_VARBINARY:
        return (k == AV_BYTES || k == AV_FIXED) && lt == AV_LT_NONE ? OP_BYTES : -1;
    case CDC_T_DECIMAL:
        return lt == AV_LT_DECIMAL && w->scale <= t->scale && w->scale >= 0 ? OP_DECIMAL
               : k == AV_STRING                                             ? OP_TEXT
                                                                            : -1;
    case CDC_T_DATE:
        return lt == AV_LT_DATE ? OP_DATE : k == AV_STRING ? OP_TEXT : -1;
    case CDC_T_TIME:
        return lt == AV_LT_TIME_MS || lt == AV_LT_TIME_US || lt == AV_LT_TIME_NS ? OP_TIME
               : k == AV_STRING                                                  ? OP_TEXT
                                                                                 : -1;
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ:
        return lt == AV_LT_TS_MS || lt == AV_LT_TS_US || lt == AV_LT_TS_NS ? OP_TS
               : k == AV_STRING                                            ? OP_TEXT
                                                                           : -1;
    default:
        return -1;
    }
}

static av_plan_t *compile_record(av_resolved_t *r, const av_node_t *w, const cdc_type_t *t,
                                 const char *path, cdc_error_t **err)
{
    av_plan_t *p = plan_new(r, w, t);
    p->op = OP_ROW;
    p->n = w->n;
    p->nt = t->nchildren;
    p->kids = cdc_xcalloc((size_t)w->n + 1, sizeof(*p->kids));
    p->target = cdc_xcalloc((size_t)w->n + 1, sizeof(*p->target));
    p->fname = cdc_xcalloc((size_t)w->n + 1, sizeof(*p->fname));
    bool *seen = cdc_xcalloc((size_t)t->nchildren + 1, 1);
    int rc = 0;
    for (int32_t i = 0; i < w->n && rc == 0; i++) {
        int idx = cdc_type_field_index(t, w->names[i]);
        p->fname[i] = w->names[i];
        p->target[i] = idx >= 0 && !seen[idx] ? idx : -1;
        char sub[512];
        snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "", w->names[i]);
        if (p->target[i] < 0) {
            p->kids[i] = plan_new(r, w->kids[i], NULL); /* skipped */
            continue;
        }
        seen[idx] = true;
        if (!(p->kids[i] = compile(r, w->kids[i], t->children[idx], sub, err)))
            rc = -1;
    }
    for (int32_t c = 0; c < t->nchildren && rc == 0; c++) {
        if (seen[c] || t->children[c]->nullable)
            continue;
        char *tt = cdc_type_to_string(t->children[c]);
        cdc_error_set(err, CDC_ERR_PARSE,
                      "field \"%s%s%s\": missing from the writer schema, the column is %s", path,
                      *path ? "." : "", t->names[c], tt);
        if (err && *err)
            cdc_error_set_hint(*err, "declare the column nullable (it is then NULL), or add the "
                                     "field to the writer's schema");
        free(tt);
        rc = -1;
    }
    free(seen);
    return rc == 0 ? p : NULL;
}

static av_plan_t *compile(av_resolved_t *r, const av_node_t *w, const cdc_type_t *t,
                          const char *path, cdc_error_t **err)
{
    if (w->kind == AV_UNION) {
        av_plan_t *p = plan_new(r, w, t);
        p->op = OP_UNION;
        p->n = w->n;
        p->kids = cdc_xcalloc((size_t)w->n + 1, sizeof(*p->kids));
        for (int32_t i = 0; i < w->n; i++)
            if (!(p->kids[i] = compile(r, w->kids[i], t, path, err)))
                return NULL;
        return p;
    }
    if (w->kind == AV_NULL) {
        av_plan_t *p = plan_new(r, w, t);
        p->op = OP_NULL;
        return p;
    }
    switch (t->root) {
    case CDC_T_ARRAY:
    case CDC_T_MAP: {
        bool arr = t->root == CDC_T_ARRAY;
        if (w->kind != (arr ? AV_ARRAY : AV_MAP))
            return mismatch(w, t, path, err), NULL;
        if (!arr && t->children[0]->root != CDC_T_VARCHAR && t->children[0]->root != CDC_T_CHAR)
            return mismatch(w, t, path, err), NULL;
        av_plan_t *p = plan_new(r, w, t);
        p->op = arr ? OP_ARRAY : OP_MAP;
        p->n = 1;
        p->kids = cdc_xcalloc(2, sizeof(*p->kids));
        char sub[512];
        snprintf(sub, sizeof(sub), "%s[]", path);
        if (!(p->kids[0] = compile(r, w->kids[0], t->children[arr ? 0 : 1], sub, err)))
            return NULL;
        return p;
    }
    case CDC_T_DECIMAL:
        if (w->logical != AV_LT_VSD)
            goto scalar;
        {
            av_plan_t *p = plan_new(r, w, t);
            p->op = OP_VSD;
            return p;
        }
    case CDC_T_ROW:
        if (w->kind != AV_RECORD)
            return mismatch(w, t, path, err), NULL;
        return compile_record(r, w, t, path, err);
    default:
    scalar : {
        int op = scalar_op(w, t);
        if (op < 0)
            return mismatch(w, t, path, err), NULL;
        av_plan_t *p = plan_new(r, w, t);
        p->op = (uint8_t)op;
        return p;
    }
    }
}

av_resolved_t *av_resolve(av_schema_t *schema, const cdc_type_t *row, cdc_error_t **err)
{
    av_resolved_t *r = cdc_xcalloc(1, sizeof(*r));
    r->schema = schema;
    if (schema->root->kind != AV_RECORD) {
        cdc_error_set(err, CDC_ERR_PARSE, "the writer schema is a %s, not a record",
                      kind_names[schema->root->kind]);
        av_resolved_destroy(r);
        return NULL;
    }
    r->root = compile_record(r, schema->root, row, "", err);
    if (!r->root) {
        av_resolved_destroy(r);
        return NULL;
    }
    return r;
}

void av_resolved_destroy(av_resolved_t *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nall; i++) {
        free(r->all[i]->kids);
        free(r->all[i]->target);
        free(r->all[i]->fname);
        free(r->all[i]);
    }
    free(r->all);
    av_schema_destroy(r->schema);
    free(r);
}

/* ---- reading -------------------------------------------------------------------------------- */

int av_fail(av_reader_t *rd, const char *fmt, ...)
{
    cdc_buf_clear(rd->err);
    cdc_buf_printf(rd->err, "at byte %zu: ", (size_t)(rd->p - rd->start) + rd->base);
    va_list ap;
    va_start(ap, fmt);
    char tmp[512];
    vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    cdc_buf_puts(rd->err, tmp);
    rd->nerrpath = 0;
    return -1;
}

static int read_long(av_reader_t *rd, int64_t *out)
{
    uint64_t v = 0;
    const uint8_t *p = rd->p;
    *out = 0; /* defined on errors too (-O3 cannot see that callers stop) */
    for (int shift = 0; shift < 64; shift += 7) {
        if (p == rd->end)
            return av_fail(rd, "the message ends inside a number");
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            rd->p = p;
            *out = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
            return 0;
        }
    }
    return av_fail(rd, "a variable-length number longer than 10 bytes");
}

static int read_len(av_reader_t *rd, const uint8_t **s, int64_t *n)
{
    const uint8_t *at = rd->p;
    *s = NULL;
    if (read_long(rd, n) < 0)
        return -1;
    if (*n < 0 || *n > rd->end - rd->p) {
        ptrdiff_t left = rd->end - rd->p;
        rd->p = at;
        return av_fail(rd, "a length of %lld bytes, %lld left in the message", (long long)*n,
                       (long long)left);
    }
    *s = rd->p;
    rd->p += *n;
    return 0;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* An epoch count in the writer's unit as a timestamp truncated to the column's precision. */
static void ts_from(av_logical_t lt, int64_t v, int precision, cdc_ts_t *ts)
{
    int64_t per_ms = lt == AV_LT_TS_MS ? 1 : lt == AV_LT_TS_US ? 1000 : 1000000;
    ts->millis = floor_div(v, per_ms);
    ts->nanos = (int32_t)((v - ts->millis * per_ms) * (1000000 / per_ms));
    static const int32_t keep[] = {1000000, 100000, 10000, 1000, 100, 10, 1, 1, 1, 1};
    if (precision < 6) {
        int32_t unit = precision <= 3 ? 1000000 : keep[precision];
        ts->nanos -= ts->nanos % unit;
    }
}

/* Big-endian two's-complement unscaled bytes of scale wscale into the column's DECIMAL: a larger
 * column scale multiplies, a smaller one (a VariableScaleDecimal) rounds HALF_UP as Flink's
 * DecimalData.fromBigDecimal does. */
static int read_decimal(av_reader_t *rd, const av_plan_t *pl, const uint8_t *b, int64_t n,
                        int64_t wscale, const uint8_t *at, cdc_value_t *out)
{
    rd->p = at; /* errors point at the value; b[0..n) is read, then the reader moves past it */
    const uint8_t *end = b + n;
    int p = pl->t->precision, ts = pl->t->scale;
    if (n > 16) { /* sign bytes beyond 128 bits are fine when they only extend the sign */
        uint8_t ext = (b[0] & 0x80) ? 0xff : 0;
        for (int64_t i = 0; i < n - 16; i++)
            if (b[i] != ext)
                return av_fail(rd, "a decimal of %lld bytes does not fit DECIMAL(%d, %d)",
                               (long long)n, p, ts);
        b += n - 16;
        n = 16;
    }
    if (wscale < 0 || wscale > 38)
        return av_fail(rd, "a decimal scale of %lld (0..38 expected)", (long long)wscale);
    cdc_i128 v = n && (b[0] & 0x80) ? -1 : 0;
    for (int64_t i = 0; i < n; i++)
        v = (cdc_i128)(((unsigned __int128)v << 8) | b[i]);
    bool neg = v < 0;
    unsigned __int128 mag = neg ? -(unsigned __int128)v : (unsigned __int128)v;
    unsigned __int128 lim = (unsigned __int128)cdc_pow10_i128(p);
    if (wscale > ts) {
        unsigned __int128 div = (unsigned __int128)cdc_pow10_i128((int)(wscale - ts));
        unsigned __int128 rem = mag % div;
        mag /= div;
        if (rem * 2 >= div)
            mag++;
    } else if (wscale < ts) {
        unsigned __int128 mul = (unsigned __int128)cdc_pow10_i128((int)(ts - wscale));
        if (mag > lim / mul)
            return av_fail(rd, "a decimal that does not fit DECIMAL(%d, %d)", p, ts);
        mag *= mul;
    }
    if (mag >= lim)
        return av_fail(rd, "a decimal that does not fit DECIMAL(%d, %d)", p, ts);
    out->v.dec = neg ? -(cdc_i128)mag : (cdc_i128)mag;
    rd->p = end;
    return 0;
}

static int read_scalar_long(av_reader_t *rd, const av_plan_t *pl, int64_t v, const uint8_t *at,
                            cdc_value_t *out)
{
    const uint8_t *end = rd->p;
    rd->p = at; /* errors point at the number */
    switch (pl->op) {
    case OP_INT:
        if (!cdc_int_fits(pl->t->root, v))
            return av_fail(rd, "%lld does not fit %s", (long long)v,
                           cdc_type_root_name(pl->t->root));
        out->v.i = v;
        break;
    case OP_FLOAT:
        out->v.f = (float)v;
        break;
    case OP_DOUBLE:
        out->v.d = (double)v;
        break;
    case OP_DATE:
        out->v.i = v;
        break;
    case OP_TIME: {
        int64_t per = pl->w->logical == AV_LT_TIME_MS   ? 1000000
                      : pl->w->logical == AV_LT_TIME_US ? 1000
                                                        : 1;
        if (v < 0 || v > 86400000000000LL / per)
            return av_fail(rd, "a time of day of %lld out of range", (long long)v);
        int64_t ns = v * per;
        static const int64_t keep[] = {1000000000, 100000000, 10000000, 1000000, 100000,
                                       10000,      1000,      100,      10,      1};
        ns -= ns % keep[pl->t->precision];
        out->v.i = ns;
        break;
    }
    case OP_TS:
        ts_from(pl->w->logical, v, pl->t->precision, &out->v.ts);
        break;
    default:
        return av_fail(rd, "internal: op %d on a number", pl->op);
    }
    rd->p = end;
    return 0;
}

static int read_blocks(av_reader_t *rd, const av_plan_t *pl, cdc_value_t *out, bool map);
static int skip_node(av_reader_t *rd, const av_node_t *w);

int av_read_value(av_reader_t *rd, const av_plan_t *pl, cdc_value_t *out)
{
    const av_node_t *w = pl->w;
    const uint8_t *s, *start = rd->p; /* where the value starts, for errors */
    int64_t n;
    if (out)
        out->flags = 0;
    switch (w->kind) {
    case AV_NULL:
        if (out) {
            if (pl->t && !pl->t->nullable)
                return av_fail(rd, "null for a NOT NULL column");
            out->flags = CDC_V_NULL;
        }
        return 0;
    case AV_BOOLEAN:
        if (rd->p == rd->end)
            return av_fail(rd, "the message ends inside a boolean");
        if (*rd->p > 1)
            return av_fail(rd, "a boolean byte %u (not 0 or 1)", *rd->p);
        if (out)
            out->v.b = *rd->p != 0;
        rd->p++;
        return 0;
    case AV_INT:
    case AV_LONG:
    case AV_ENUM: {
        const uint8_t *at = rd->p;
        if (read_long(rd, &n) < 0)
            return -1;
        if (w->kind == AV_INT && (n < INT32_MIN || n > INT32_MAX))
            return av_fail(rd, "an int beyond 32 bits");
        if (w->kind == AV_ENUM) {
            if (n < 0 || n >= w->n)
                return av_fail(rd, "enum index %lld of %d symbols", (long long)n, (int)w->n);
            if (out) {
                out->v.s.ptr = w->names[n];
                out->v.s.len = (uint32_t)strlen(w->names[n]);
            }
            return 0;
        }
        return out ? read_scalar_long(rd, pl, n, at, out) : 0;
    }
    case AV_FLOAT:
    case AV_DOUBLE: {
        int size = w->kind == AV_FLOAT ? 4 : 8;
        if (rd->end - rd->p < size)
            return av_fail(rd, "the message ends inside a %s", kind_names[w->kind]);
        if (out) {
            double d;
            if (size == 4) {
                float f;
                memcpy(&f, rd->p, 4);
                d = f;
            } else {
                memcpy(&d, rd->p, 8);
            }
            if (pl->op == OP_FLOAT)
                out->v.f = (float)d;
            else
                out->v.d = d;
        }
        rd->p += size;
        return 0;
    }
    case AV_FIXED:
        if (rd->end - rd->p < w->size)
            return av_fail(rd, "the message ends inside a fixed of %d bytes", (int)w->size);
        s = rd->p;
        n = w->size;
        rd->p += n;
        goto bytes;
    case AV_BYTES:
    case AV_STRING:
        if (read_len(rd, &s, &n) < 0)
            return -1;
    bytes:
        if (!out)
            return 0;
        if (pl->op == OP_DECIMAL)
            return read_decimal(rd, pl, s, n, w->scale, start, out);
        if (pl->op == OP_TEXT) {
            const char *why = NULL;
            bool zoned;
            int rc = CDC_TEXT_OK;
            if (pl->t->root == CDC_T_TIMESTAMP || pl->t->root == CDC_T_TIMESTAMP_LTZ) {
                /* ZonedTimestamp and ISO-8601 text: an offset gives the UTC instant */
                if (cdc_timestamp_parse((const char *)s, (size_t)n, pl->t->precision, true,
                                        &out->v.ts, &zoned) < 0) {
                    rc = CDC_TEXT_BAD;
                    why = "not an ISO-8601 timestamp";
                }
            } else {
                rc = cdc_value_from_text(pl->t, (const char *)s, (size_t)n, CDC_TEXT_ISO8601,
                                         rd->arena, out, &why);
            }
            if (rc != CDC_TEXT_OK) {
                rd->p = start;
                return av_fail(rd, "\"%.*s\" is not %s: %s", (int)(n > 64 ? 64 : n), s,
                               cdc_type_root_name(pl->t->root), why ? why : "bad text");
            }
            return 0;
        }
        out->v.s.ptr = (const char *)s;
        out->v.s.len = (uint32_t)n;
        return 0;
    case AV_ARRAY:
    case AV_MAP:
        return read_blocks(rd, pl, out, w->kind == AV_MAP);
    case AV_RECORD: {
        if (!out)
            return skip_node(rd, w);
        if (pl->op == OP_VSD) {
            int64_t scale;
            if (read_long(rd, &scale) < 0 || read_len(rd, &s, &n) < 0)
                return -1;
            return read_decimal(rd, pl, s, n, scale, start, out);
        }
        if (++rd->depth > AV_MAX_DEPTH)
            return av_fail(rd, "values nested more than %d levels deep", AV_MAX_DEPTH);
        out->v.row = cdc_row_new_in(rd->arena, (uint32_t)pl->nt);
        int rc = av_read_record(rd, pl, out->v.row->values);
        rd->depth--;
        return rc;
    }
    case AV_UNION: {
        const uint8_t *at = rd->p;
        if (read_long(rd, &n) < 0)
            return -1;
        if (n < 0 || n >= w->n) {
            rd->p = at;
            return av_fail(rd, "union branch %lld of %d", (long long)n, (int)w->n);
        }
        return av_read_value(rd, pl->kids ? pl->kids[n] : pl, out);
    }
    }
    return av_fail(rd, "internal: unknown Avro type");
}

static int read_blocks(av_reader_t *rd, const av_plan_t *pl, cdc_value_t *out, bool map)
{
    if (++rd->depth > AV_MAX_DEPTH)
        return av_fail(rd, "values nested more than %d levels deep", AV_MAX_DEPTH);
    const av_node_t *w = pl->w;
    uint32_t total = 0, cap = 0;
    cdc_value_t *elems = NULL, *vals = NULL;
    for (;;) {
        int64_t count;
        if (read_long(rd, &count) < 0)
            return -1;
        if (count == 0)
            break;
        if (count == INT64_MIN)
            return av_fail(rd, "a block count out of range");
        if (count < 0) {
            int64_t bytes;
            if (read_long(rd, &bytes) < 0)
                return -1;
            count = -count;
        }
        if (count > rd->end - rd->p || count > INT32_MAX - total)
            return av_fail(rd, "a block of %lld items, more than the message holds",
                           (long long)count);
        if (!out) {
            for (int64_t i = 0; i < count; i++) {
                if (map && skip_node(rd, &(av_node_t){.kind = AV_STRING}) < 0)
                    return -1;
                if (skip_node(rd, w->kids[0]) < 0)
                    return -1;
            }
            continue;
        }
        if (total + count > cap) {
            uint32_t ncap = total + (uint32_t)count;
            cdc_value_t *ne = cdc_arena_alloc(rd->arena, ncap * sizeof(*ne));
            if (total)
                memcpy(ne, elems, total * sizeof(*ne));
            elems = ne;
            if (map) {
                cdc_value_t *nv = cdc_arena_alloc(rd->arena, ncap * sizeof(*nv));
                if (total)
                    memcpy(nv, vals, total * sizeof(*nv));
                vals = nv;
            }
            cap = ncap;
        }
        for (int64_t i = 0; i < count; i++, total++) {
            if (map) {
                const uint8_t *s;
                int64_t n;
                if (read_len(rd, &s, &n) < 0)
                    return -1;
                elems[total].flags = 0;
                elems[total].v.s.ptr = (const char *)s;
                elems[total].v.s.len = (uint32_t)n;
                if (av_read_value(rd, pl->kids[0], &vals[total]) < 0)
                    return -1;
            } else if (av_read_value(rd, pl->kids[0], &elems[total]) < 0) {
                return -1;
            }
        }
    }
    rd->depth--;
    if (out) {
        out->v.arr.n = total;
        out->v.arr.elems = elems;
        out->v.arr.vals = map ? vals : NULL;
    }
    return 0;
}

static int skip_node(av_reader_t *rd, const av_node_t *w)
{
    const uint8_t *s;
    int64_t n;
    switch (w->kind) {
    case AV_NULL:
        return 0;
    case AV_BOOLEAN:
        if (rd->p == rd->end)
            return av_fail(rd, "the message ends inside a boolean");
        rd->p++;
        return 0;
    case AV_INT:
    case AV_LONG:
    case AV_ENUM:
        return read_long(rd, &n);
    case AV_FLOAT:
    case AV_DOUBLE:
    case AV_FIXED: {
        int64_t size = w->kind == AV_FLOAT ? 4 : w->kind == AV_DOUBLE ? 8 : w->size;
        if (rd->end - rd->p < size)
            return av_fail(rd, "the message ends inside a %s", kind_names[w->kind]);
        rd->p += size;
        return 0;
    }
    case AV_BYTES:
    case AV_STRING:
        return read_len(rd, &s, &n);
    case AV_ARRAY:
    case AV_MAP: {
        av_plan_t tmp = {.w = w};
        return read_blocks(rd, &tmp, NULL, w->kind == AV_MAP);
    }
    case AV_RECORD:
        if (++rd->depth > AV_MAX_DEPTH)
            return av_fail(rd, "values nested more than %d levels deep", AV_MAX_DEPTH);
        for (int32_t i = 0; i < w->n; i++)
            if (skip_node(rd, w->kids[i]) < 0)
                return -1;
        rd->depth--;
        return 0;
    case AV_UNION:
        if (read_long(rd, &n) < 0)
            return -1;
        if (n < 0 || n >= w->n)
            return av_fail(rd, "union branch %lld of %d", (long long)n, (int)w->n);
        return skip_node(rd, w->kids[n]);
    }
    return 0;
}

int av_read_record(av_reader_t *rd, const av_plan_t *pl, cdc_value_t *values)
{
    for (int32_t c = 0; c < pl->nt; c++)
        values[c].flags = CDC_V_NULL;
    for (int32_t i = 0; i < pl->n; i++) {
        int32_t idx = pl->target[i];
        int rc =
            idx >= 0 ? av_read_value(rd, pl->kids[i], &values[idx]) : skip_node(rd, pl->kids[i]->w);
        if (rc < 0) {
            if (rd->nerrpath < 16)
                rd->errpath[rd->nerrpath++] = pl->fname[i];
            return -1;
        }
    }
    return 0;
}
