/*
 * avro_write.c — encoding rows as Avro binary in the shape of the schema
 * av_schema_derive gives for their type (Flink's RowDataToAvroConverters):
 * a nullable value is the union ["null", T], branch 0 for NULL, 1 otherwise.
 */
#include <string.h>

#include "avro_int.h"

void av_write_long(cdc_buf_t *out, int64_t v)
{
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    cdc_buf_reserve(out, 10);
    char *p = out->data + out->len;
    while (z >= 0x80) {
        *p++ = (char)((z & 0x7f) | 0x80);
        z >>= 7;
    }
    *p++ = (char)z;
    out->len = (size_t)(p - out->data);
}

static void write_bytes(cdc_buf_t *out, const char *p, size_t n)
{
    av_write_long(out, (int64_t)n);
    cdc_buf_append(out, p, n);
}

/* The unscaled value as Java's BigInteger.toByteArray: the fewest big-endian two's-complement
 * bytes. */
static void write_decimal(cdc_buf_t *out, cdc_i128 v)
{
    unsigned char b[16];
    for (int i = 15; i >= 0; i--) {
        b[i] = (unsigned char)(v & 0xff);
        v >>= 8;
    }
    int start = 0;
    while (start < 15 && ((b[start] == 0 && !(b[start + 1] & 0x80)) ||
                          (b[start] == 0xff && (b[start + 1] & 0x80))))
        start++;
    write_bytes(out, (const char *)b + start, (size_t)(16 - start));
}

static int write_value(cdc_buf_t *out, const cdc_value_t *v, const cdc_type_t *t,
                       cdc_buf_t *errmsg);

static int write_plain(cdc_buf_t *out, const cdc_value_t *v, const cdc_type_t *t, cdc_buf_t *errmsg)
{
    switch (t->root) {
    case CDC_T_BOOLEAN:
        cdc_buf_putc(out, v->v.b ? 1 : 0);
        return 0;
    case CDC_T_TINYINT:
    case CDC_T_SMALLINT:
    case CDC_T_INT:
    case CDC_T_BIGINT:
    case CDC_T_DATE:
        av_write_long(out, v->v.i);
        return 0;
    case CDC_T_TIME:
        av_write_long(out, v->v.i / (t->precision <= 3 ? 1000000 : 1000)); /* millis, micros */
        return 0;
    case CDC_T_FLOAT:
        cdc_buf_append(out, &v->v.f, 4);
        return 0;
    case CDC_T_DOUBLE:
        cdc_buf_append(out, &v->v.d, 8);
        return 0;
    case CDC_T_DECIMAL:
        write_decimal(out, v->v.dec);
        return 0;
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
    case CDC_T_BINARY:
    case CDC_T_VARBINARY:
        write_bytes(out, v->v.s.ptr, v->v.s.len);
        return 0;
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ:
        if (t->precision <= 3)
            av_write_long(out, v->v.ts.millis);
        else
            av_write_long(out, v->v.ts.millis * 1000 + v->v.ts.nanos / 1000);
        return 0;
    case CDC_T_ARRAY:
    case CDC_T_MAP: {
        const cdc_array_t *a = &v->v.arr;
        bool map = t->root == CDC_T_MAP;
        if (a->n) {
            av_write_long(out, a->n);
            for (uint32_t i = 0; i < a->n; i++) {
                if (map) {
                    if (cdc_value_is_null(&a->elems[i])) {
                        cdc_buf_clear(errmsg);
                        cdc_buf_puts(errmsg, "a MAP key is NULL: Avro map keys are strings");
                        return -1;
                    }
                    write_bytes(out, a->elems[i].v.s.ptr, a->elems[i].v.s.len);
                }
                if (write_value(out, map ? &a->vals[i] : &a->elems[i], t->children[map ? 1 : 0],
                                errmsg) < 0)
                    return -1;
            }
        }
        cdc_buf_putc(out, 0);
        return 0;
    }
    case CDC_T_ROW:
        return av_write_row(out, v->v.row, t, errmsg);
    default:
        cdc_buf_clear(errmsg);
        cdc_buf_printf(errmsg, "type %s has no Avro encoding", cdc_type_root_name(t->root));
        return -1;
    }
}

static int write_value(cdc_buf_t *out, const cdc_value_t *v, const cdc_type_t *t, cdc_buf_t *errmsg)
{
    if (t->nullable) {
        if (cdc_value_is_null(v)) {
            cdc_buf_putc(out, 0);
            return 0;
        }
        cdc_buf_putc(out, 2); /* branch 1, zigzag */
    } else if (cdc_value_is_null(v)) {
        cdc_buf_clear(errmsg);
        cdc_buf_printf(errmsg, "NULL for a NOT NULL %s", cdc_type_root_name(t->root));
        return -1;
    }
    return write_plain(out, v, t, errmsg);
}

int av_write_row(cdc_buf_t *out, const cdc_row_t *row, const cdc_type_t *t, cdc_buf_t *errmsg)
{
    for (int32_t i = 0; i < t->nchildren; i++) {
        if (write_value(out, &row->values[i], t->children[i], errmsg) < 0) {
            cdc_buf_t tmp = {0};
            cdc_buf_printf(&tmp, "field \"%s\": %s", t->names[i], cdc_buf_cstr(errmsg));
            cdc_buf_clear(errmsg);
            cdc_buf_append(errmsg, tmp.data, tmp.len);
            cdc_buf_free(&tmp);
            return -1;
        }
    }
    return 0;
}
