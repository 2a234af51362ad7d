/*
 * cdc_row_codec.c — the compact encoding of rows for keyed state
 * (cdc_row_codec.h).
 *
 * Each value is a flags byte (CDC_V_NULL, CDC_V_UNCHANGED; no other bit is
 * valid), then, unless NULL or UNCHANGED, its payload by type:
 *   BOOLEAN                      one byte, 0 or 1
 *   TINYINT..BIGINT, DATE, TIME  zigzag varint (checked against the type's range)
 *   FLOAT, DOUBLE                the IEEE bits, 4 or 8 bytes little-endian
 *   DECIMAL                      zigzag varint of the 128-bit unscaled value
 *   CHAR..VARBINARY              varint length, then the bytes
 *   TIMESTAMP, TIMESTAMP_LTZ     zigzag varint millis, varint nanos (0..999999)
 *   ARRAY                        varint count, then the elements
 *   MAP                          varint count, then key, value pairs
 *   ROW                          its fields in order (the type fixes how many)
 * A row is its fields, as a nested ROW. Decoding never reads past the input,
 * and counts larger than the bytes left are rejected before anything is
 * allocated, so a corrupt length cannot ask for much memory.
 */
#include "cdc_row_codec.h"

#include <string.h>

#define FLAGS_VALID (CDC_V_NULL | CDC_V_UNCHANGED)

/* ---- varints ------------------------------------------------------------------------------- */

static void put_uvarint(cdc_buf_t *out, unsigned __int128 u)
{
    unsigned char tmp[19];
    size_t n = 0;
    if (u < 0x80) { /* the common small value: no 128-bit loop */
        tmp[0] = (unsigned char)u;
        cdc_buf_append(out, tmp, 1);
        return;
    }
    if (!(u >> 64)) { /* 64-bit shifts, not 128 */
        uint64_t w = (uint64_t)u;
        while (w >= 0x80) {
            tmp[n++] = (unsigned char)(w | 0x80);
            w >>= 7;
        }
        tmp[n++] = (unsigned char)w;
        cdc_buf_append(out, tmp, n);
        return;
    }
    while (u >= 0x80) {
        tmp[n++] = (unsigned char)(u | 0x80);
        u >>= 7;
    }
    tmp[n++] = (unsigned char)u;
    cdc_buf_append(out, tmp, n);
}

static void put_svarint(cdc_buf_t *out, cdc_i128 v)
{
    unsigned __int128 u = (unsigned __int128)v;
    put_uvarint(out, (u << 1) ^ (v < 0 ? ~(unsigned __int128)0 : 0));
}

/* Reads an unsigned varint of at most `bits` bits; bytes read, or 0 when short or too long. */
static size_t get_uvarint(const unsigned char *p, size_t len, int bits, unsigned __int128 *out)
{
    if (len > 0 && !(p[0] & 0x80)) { /* one byte: fits every type's bits (>= 8) */
        *out = p[0];
        return 1;
    }
    unsigned __int128 u = 0;
    int shift = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned __int128 b = p[i] & 0x7f;
        if (shift >= bits || (shift > 0 && (b >> (bits - shift)) != 0))
            return 0; /* more bits than the type holds */
        u |= b << shift;
        if (!(p[i] & 0x80)) {
            *out = u;
            return i + 1;
        }
        shift += 7;
    }
    return 0;
}

static size_t get_svarint(const unsigned char *p, size_t len, int bits, cdc_i128 *out)
{
    unsigned __int128 u;
    size_t n = get_uvarint(p, len, bits, &u);
    if (n)
        *out = (cdc_i128)(u >> 1) ^ -(cdc_i128)(u & 1);
    return n;
}

/* ---- encoding -------------------------------------------------------------------------------- */

static void put_fixed(cdc_buf_t *out, uint64_t bits, int n)
{
    unsigned char tmp[8];
    for (int i = 0; i < n; i++)
        tmp[i] = (unsigned char)(bits >> (8 * i));
    cdc_buf_append(out, tmp, (size_t)n);
}

static void encode_fields(cdc_buf_t *out, const cdc_row_t *row, const cdc_type_t *t)
{
    static const cdc_value_t null_value = {.flags = CDC_V_NULL};
    for (int32_t i = 0; i < t->nchildren; i++) {
        /* a row shorter than its type (never expected) stores NULLs for the missing fields */
        const cdc_value_t *v = row && (uint32_t)i < row->arity ? &row->values[i] : &null_value;
        cdc_value_encode(out, v, t->children[i]);
    }
}

void cdc_value_encode(cdc_buf_t *out, const cdc_value_t *v, const cdc_type_t *t)
{
    uint8_t flags = v->flags & FLAGS_VALID;
    cdc_buf_putc(out, (char)flags);
    if (flags)
        return;
    switch (t->root) {
    case CDC_T_BOOLEAN:
        cdc_buf_putc(out, v->v.b ? 1 : 0);
        break;
    case CDC_T_TINYINT:
    case CDC_T_SMALLINT:
    case CDC_T_INT:
    case CDC_T_BIGINT:
    case CDC_T_DATE:
    case CDC_T_TIME:
        put_svarint(out, v->v.i);
        break;
    case CDC_T_FLOAT: {
        uint32_t bits;
        memcpy(&bits, &v->v.f, 4);
        put_fixed(out, bits, 4);
        break;
    }
    case CDC_T_DOUBLE: {
        uint64_t bits;
        memcpy(&bits, &v->v.d, 8);
        put_fixed(out, bits, 8);
        break;
    }
    case CDC_T_DECIMAL:
        put_svarint(out, v->v.dec);
        break;
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
    case CDC_T_BINARY:
    case CDC_T_VARBINARY:
        put_uvarint(out, v->v.s.len);
        cdc_buf_append(out, v->v.s.ptr, v->v.s.len);
        break;
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ:
        put_svarint(out, v->v.ts.millis);
        put_uvarint(out, (uint32_t)v->v.ts.nanos);
        break;
    case CDC_T_ARRAY:
    case CDC_T_MAP:
    case CDC_T_MULTISET:
        put_uvarint(out, v->v.arr.n);
        for (uint32_t i = 0; i < v->v.arr.n; i++) {
            cdc_value_encode(out, &v->v.arr.elems[i], t->children[0]);
            if (cdc_type_is_map_like(t))
                cdc_value_encode(out, &v->v.arr.vals[i], cdc_type_map_value(t));
        }
        break;
    case CDC_T_ROW:
        encode_fields(out, v->v.row, t);
        break;
    case CDC_T__COUNT:
        break;
    }
}

void cdc_row_encode(cdc_buf_t *out, const cdc_row_t *row, const cdc_type_t *t)
{
    encode_fields(out, row, t);
}

/* ---- decoding -------------------------------------------------------------------------------- */

static uint64_t get_fixed(const unsigned char *p, int n)
{
    uint64_t bits = 0;
    for (int i = 0; i < n; i++)
        bits |= (uint64_t)p[i] << (8 * i);
    return bits;
}

/* How many bits a type's integer values take (TINYINT 8 ... BIGINT, TIME 64). */
static int int_bits(cdc_type_root_t root)
{
    return root == CDC_T_TINYINT                     ? 8
           : root == CDC_T_SMALLINT                  ? 16
           : root == CDC_T_INT || root == CDC_T_DATE ? 32
                                                     : 64;
}

/* Decodes the fields of ROW type t into row; false when malformed, else *used = bytes read. */
static bool decode_fields(const unsigned char *p, size_t len, const cdc_type_t *t,
                          cdc_arena_t *arena, cdc_row_t *row, size_t *used)
{
    size_t at = 0;
    for (int32_t i = 0; i < t->nchildren; i++) {
        size_t n = cdc_value_decode(p + at, len - at, t->children[i], arena, &row->values[i]);
        if (!n)
            return false;
        at += n;
    }
    *used = at;
    return true;
}

/* Decodes the payload of a non-NULL value; false when malformed, else *used = bytes read. */
static bool decode_payload(const unsigned char *p, size_t len, const cdc_type_t *t,
                           cdc_arena_t *arena, cdc_value_t *v, size_t *used)
{
    size_t n = 0, m;
    cdc_i128 s;
    unsigned __int128 u;
    switch (t->root) {
    case CDC_T_BOOLEAN:
        if (len < 1 || p[0] > 1)
            return false;
        v->v.b = p[0] == 1;
        *used = 1;
        return true;
    case CDC_T_TINYINT:
    case CDC_T_SMALLINT:
    case CDC_T_INT:
    case CDC_T_BIGINT:
    case CDC_T_DATE:
    case CDC_T_TIME: {
        cdc_i128 lim = (cdc_i128)1 << (int_bits(t->root) - 1);
        n = get_svarint(p, len, 64, &s);
        if (!n || s < -lim || s >= lim)
            return false;
        v->v.i = (int64_t)s;
        *used = n;
        return true;
    }
    case CDC_T_FLOAT: {
        if (len < 4)
            return false;
        uint32_t bits = (uint32_t)get_fixed(p, 4);
        memcpy(&v->v.f, &bits, 4);
        *used = 4;
        return true;
    }
    case CDC_T_DOUBLE: {
        if (len < 8)
            return false;
        uint64_t bits = get_fixed(p, 8);
        memcpy(&v->v.d, &bits, 8);
        *used = 8;
        return true;
    }
    case CDC_T_DECIMAL:
        n = get_svarint(p, len, 128, &s);
        if (!n)
            return false;
        v->v.dec = s;
        *used = n;
        return true;
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
    case CDC_T_BINARY:
    case CDC_T_VARBINARY:
        n = get_uvarint(p, len, 32, &u);
        if (!n || u > len - n)
            return false;
        v->v.s.ptr = cdc_arena_memdup(arena, p + n, (size_t)u);
        v->v.s.len = (uint32_t)u;
        *used = n + (size_t)u;
        return true;
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ:
        n = get_svarint(p, len, 64, &s);
        if (!n)
            return false;
        m = get_uvarint(p + n, len - n, 32, &u);
        if (!m || u > 999999)
            return false;
        v->v.ts.millis = (int64_t)s;
        v->v.ts.nanos = (int32_t)u;
        *used = n + m;
        return true;
    case CDC_T_ARRAY:
    case CDC_T_MAP:
    case CDC_T_MULTISET: {
        n = get_uvarint(p, len, 32, &u);
        /* every element takes at least its flags byte: a count beyond the bytes left is corrupt */
        bool map = cdc_type_is_map_like(t);
        size_t per = map ? 2 : 1;
        if (!n || u > (len - n) / per)
            return false;
        uint32_t cnt = (uint32_t)u;
        v->v.arr.n = cnt;
        v->v.arr.elems = cdc_arena_alloc(arena, sizeof(cdc_value_t) * (cnt ? cnt : 1));
        v->v.arr.vals = map ? cdc_arena_alloc(arena, sizeof(cdc_value_t) * (cnt ? cnt : 1)) : NULL;
        for (uint32_t i = 0; i < cnt; i++) {
            m = cdc_value_decode(p + n, len - n, t->children[0], arena, &v->v.arr.elems[i]);
            if (!m)
                return false;
            n += m;
            if (map) {
                m = cdc_value_decode(p + n, len - n, cdc_type_map_value(t), arena,
                                     &v->v.arr.vals[i]);
                if (!m)
                    return false;
                n += m;
            }
        }
        *used = n;
        return true;
    }
    case CDC_T_ROW:
        v->v.row = cdc_row_new_in(arena, (uint32_t)t->nchildren);
        return decode_fields(p, len, t, arena, v->v.row, used);
    case CDC_T__COUNT:
        break;
    }
    return false;
}

size_t cdc_value_decode(const void *data, size_t len, const cdc_type_t *t, cdc_arena_t *arena,
                        cdc_value_t *v)
{
    const unsigned char *p = data;
    memset(v, 0, sizeof(*v));
    if (len < 1 || (p[0] & ~FLAGS_VALID))
        return 0;
    v->flags = p[0];
    if (v->flags)
        return 1;
    size_t n;
    if (!decode_payload(p + 1, len - 1, t, arena, v, &n))
        return 0;
    return 1 + n;
}

cdc_row_t *cdc_row_decode(const void *data, size_t len, const cdc_type_t *t, cdc_arena_t *arena,
                          size_t *used)
{
    if (t->root != CDC_T_ROW)
        return NULL;
    cdc_row_t *row = cdc_row_new_in(arena, (uint32_t)t->nchildren);
    size_t n;
    if (!decode_fields(data, len, t, arena, row, &n))
        return NULL;
    if (used)
        *used = n;
    return row;
}
