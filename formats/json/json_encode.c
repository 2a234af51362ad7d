/*
 * json_encode.c — rows to compact JSON text, as Flink's RowDataToJsonConverters
 * write them: numbers as JSON numbers (64-bit integers exact, FLOAT/DOUBLE the
 * shortest Java text, NaN/Infinity as strings), DECIMAL like Java's
 * BigDecimal.toString, BYTES base64, dates and times as text in the chosen
 * timestamp standard, MAP keys as text.
 *
 * Written straight into a cdc_buf_t (no yajl_gen: it would add a copy, its
 * own allocations and a depth limit, and it escapes nothing we need beyond this).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cdc_json.h"

/* ---- strings ----------------------------------------------------------------------------- */

/* 0 = as is; else the character after the backslash ('u' = \u00XX). */
static const char esc_table[256] = {
    ['\b'] = 'b',  ['\t'] = 't', ['\n'] = 'n', ['\f'] = 'f', ['\r'] = 'r', ['"'] = '"',
    ['\\'] = '\\', [0x00] = 'u', [0x01] = 'u', [0x02] = 'u', [0x03] = 'u', [0x04] = 'u',
    [0x05] = 'u',  [0x06] = 'u', [0x07] = 'u', [0x0b] = 'u', [0x0e] = 'u', [0x0f] = 'u',
    [0x10] = 'u',  [0x11] = 'u', [0x12] = 'u', [0x13] = 'u', [0x14] = 'u', [0x15] = 'u',
    [0x16] = 'u',  [0x17] = 'u', [0x18] = 'u', [0x19] = 'u', [0x1a] = 'u', [0x1b] = 'u',
    [0x1c] = 'u',  [0x1d] = 'u', [0x1e] = 'u', [0x1f] = 'u',
};

void cdc_json_write_string(cdc_buf_t *out, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    cdc_buf_reserve(out, len + 2);
    out->data[out->len++] = '"';
    size_t run = 0; /* start of the pending unescaped run */
    for (size_t i = 0; i < len; i++) {
        char e = esc_table[(unsigned char)s[i]];
        if (!e)
            continue;
        cdc_buf_append(out, s + run, i - run);
        run = i + 1;
        if (e == 'u') {
            char u[6] = {
                '\\', 'u', '0', '0', hex[(unsigned char)s[i] >> 4], hex[(unsigned char)s[i] & 15]};
            cdc_buf_append(out, u, 6);
        } else {
            char two[2] = {'\\', e};
            cdc_buf_append(out, two, 2);
        }
    }
    cdc_buf_append(out, s + run, len - run);
    cdc_buf_putc(out, '"');
}

/* ---- scalars ------------------------------------------------------------------------------- */

static void put_i64(cdc_buf_t *out, int64_t v)
{
    char tmp[24];
    char *w = tmp + sizeof(tmp);
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        *--w = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--w = '-';
    cdc_buf_append(out, w, (size_t)(tmp + sizeof(tmp) - w));
}

static void put_real(cdc_buf_t *out, double d, bool is_float)
{
    char tmp[48];
    int n = is_float ? cdc_float_format((float)d, tmp) : cdc_double_format(d, tmp);
    if (isnan(d) || isinf(d)) { /* Jackson quotes non-numeric numbers */
        cdc_buf_putc(out, '"');
        cdc_buf_append(out, tmp, (size_t)n);
        cdc_buf_putc(out, '"');
    } else {
        cdc_buf_append(out, tmp, (size_t)n);
    }
}

/* Java's BigDecimal.toString: plain unless the adjusted exponent is below -6. */
static void put_decimal(cdc_buf_t *out, cdc_i128 unscaled, int scale, bool plain)
{
    char tmp[64];
    int nd = cdc_i128_digits(unscaled);
    int adjusted = nd - 1 - scale;
    if (plain || adjusted >= -6) {
        cdc_buf_append(out, tmp, (size_t)cdc_decimal_format(unscaled, scale, tmp));
        return;
    }
    int n = cdc_decimal_format(unscaled, 0, tmp); /* "-123" */
    const char *d = tmp[0] == '-' ? tmp + 1 : tmp;
    if (d != tmp)
        cdc_buf_putc(out, '-');
    cdc_buf_putc(out, d[0]);
    if (nd > 1) {
        cdc_buf_putc(out, '.');
        cdc_buf_append(out, d + 1, (size_t)(n - (d - tmp) - 1));
    }
    cdc_buf_printf(out, "E%d", adjusted);
}

static void put_base64(cdc_buf_t *out, const unsigned char *p, size_t n)
{
    cdc_buf_putc(out, '"');
    cdc_text_base64_encode(out, p, n);
    cdc_buf_putc(out, '"');
}

/* DATE, TIME, TIMESTAMP[_LTZ] as a JSON string: times with the fraction without trailing zeros
   (Java's appendFraction(0, 9)), "Z" after a TIMESTAMP_LTZ. */
static void put_temporal(cdc_buf_t *out, const cdc_value_t *v, const cdc_type_t *t, bool iso8601)
{
    cdc_buf_reserve(out, CDC_VALUE_TEXT_MAX + 2);
    out->data[out->len++] = '"';
    out->len += (size_t)cdc_value_to_text(
        v, t, CDC_TEXT_SHORT_FRACTION | (iso8601 ? CDC_TEXT_ISO8601 : 0), out->data + out->len);
    out->data[out->len++] = '"';
}

/* ---- values -------------------------------------------------------------------------------- */

static int write_map(cdc_buf_t *out, const cdc_array_t *m, const cdc_type_t *t,
                     const cdc_json_encode_opts_t *opts)
{
    const cdc_type_t *kt = t->children[0];
    const cdc_type_t *vt = cdc_type_map_value(t);
    bool first = true;
    cdc_buf_putc(out, '{');
    for (uint32_t i = 0; i < m->n; i++) {
        const cdc_value_t *k = &m->elems[i];
        if (cdc_value_is_null(k)) {
            if (opts->map_null_key_mode == CDC_JSON_NULL_KEY_FAIL)
                return -1;
            if (opts->map_null_key_mode == CDC_JSON_NULL_KEY_DROP)
                continue;
        }
        if (!first)
            cdc_buf_putc(out, ',');
        first = false;
        if (cdc_value_is_null(k)) {
            const char *lit = opts->map_null_key_literal ? opts->map_null_key_literal : "null";
            cdc_json_write_string(out, lit, strlen(lit));
        } else if (kt->root == CDC_T_CHAR || kt->root == CDC_T_VARCHAR) {
            cdc_json_write_string(out, k->v.s.ptr, k->v.s.len);
        } else {
            /* keys are text: quote the key's JSON unless it is already a string */
            size_t at = out->len;
            cdc_buf_putc(out, '"');
            if (cdc_json_write_value(out, k, kt, opts) < 0)
                return -1;
            if (out->data[at + 1] == '"') {
                memmove(out->data + at, out->data + at + 1, out->len - at - 1);
                out->len--;
            } else {
                cdc_buf_putc(out, '"');
            }
        }
        cdc_buf_putc(out, ':');
        if (cdc_json_write_value(out, &m->vals[i], vt, opts) < 0)
            return -1;
    }
    cdc_buf_putc(out, '}');
    return 0;
}

int cdc_json_write_value(cdc_buf_t *out, const cdc_value_t *v, const cdc_type_t *t,
                         const cdc_json_encode_opts_t *opts)
{
    if (cdc_value_is_null(v)) {
        cdc_buf_append(out, "null", 4);
        return 0;
    }
    switch (t->root) {
    case CDC_T_BOOLEAN:
        if (v->v.b)
            cdc_buf_append(out, "true", 4);
        else
            cdc_buf_append(out, "false", 5);
        break;
    case CDC_T_TINYINT:
    case CDC_T_SMALLINT:
    case CDC_T_INT:
    case CDC_T_BIGINT:
        put_i64(out, v->v.i);
        break;
    case CDC_T_FLOAT:
        put_real(out, v->v.f, true);
        break;
    case CDC_T_DOUBLE:
        put_real(out, v->v.d, false);
        break;
    case CDC_T_DECIMAL:
        put_decimal(out, v->v.dec, t->scale, opts->decimal_as_plain_number);
        break;
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
        cdc_json_write_string(out, v->v.s.ptr, v->v.s.len);
        break;
    case CDC_T_BINARY:
    case CDC_T_VARBINARY:
        put_base64(out, (const unsigned char *)v->v.s.ptr, v->v.s.len);
        break;
    case CDC_T_DATE:
    case CDC_T_TIME:
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ:
        put_temporal(out, v, t, opts->iso8601);
        break;
    case CDC_T_ARRAY:
        cdc_buf_putc(out, '[');
        for (uint32_t i = 0; i < v->v.arr.n; i++) {
            if (i)
                cdc_buf_putc(out, ',');
            if (cdc_json_write_value(out, &v->v.arr.elems[i], t->children[0], opts) < 0)
                return -1;
        }
        cdc_buf_putc(out, ']');
        break;
    case CDC_T_MAP:
    case CDC_T_MULTISET:
        return write_map(out, &v->v.arr, t, opts);
    case CDC_T_ROW:
        return cdc_json_write_row(out, v->v.row, t, opts);
    default:
        cdc_buf_append(out, "null", 4);
        break;
    }
    return 0;
}

int cdc_json_write_row(cdc_buf_t *out, const cdc_row_t *row, const cdc_type_t *row_type,
                       const cdc_json_encode_opts_t *opts)
{
    bool first = true;
    uint32_t n = (uint32_t)row_type->nchildren;
    if (row->arity < n)
        n = row->arity;
    cdc_buf_putc(out, '{');
    for (uint32_t i = 0; i < n; i++) {
        const cdc_value_t *v = &row->values[i];
        if (opts->ignore_null_fields && cdc_value_is_null(v))
            continue;
        if (!first)
            cdc_buf_putc(out, ',');
        first = false;
        const char *name = row_type->names[i];
        cdc_json_write_string(out, name, strlen(name));
        cdc_buf_putc(out, ':');
        if (cdc_json_write_value(out, v, row_type->children[i], opts) < 0)
            return -1;
    }
    cdc_buf_putc(out, '}');
    return 0;
}
