/*
 * pg_text.c — PostgreSQL type OIDs to Flink types (the table in the README),
 * and the text output of the built-in types (DateStyle ISO, IntervalStyle
 * postgres, bytea_output hex, as the walsender sends them) parsed into values:
 * scalars by the core (cdc_value_from_text, CDC_TEXT_PG); arrays, intervals
 * and bit strings, PostgreSQL's own syntax, here.
 */
#include <stdlib.h>
#include <string.h>

#include "pg_int.h"

/* built-in type OIDs (pg_type.dat) */
enum {
    OID_BOOL = 16,
    OID_BYTEA = 17,
    OID_CHAR = 18,
    OID_NAME = 19,
    OID_INT8 = 20,
    OID_INT2 = 21,
    OID_INT4 = 23,
    OID_TEXT = 25,
    OID_OID = 26,
    OID_JSON = 114,
    OID_XML = 142,
    OID_FLOAT4 = 700,
    OID_FLOAT8 = 701,
    OID_MONEY = 790,
    OID_BPCHAR = 1042,
    OID_VARCHAR = 1043,
    OID_DATE = 1082,
    OID_TIME = 1083,
    OID_TIMESTAMP = 1114,
    OID_TIMESTAMPTZ = 1184,
    OID_INTERVAL = 1186,
    OID_TIMETZ = 1266,
    OID_BIT = 1560,
    OID_VARBIT = 1562,
    OID_NUMERIC = 1700,
    OID_UUID = 2950,
    OID_JSONB = 3802,
};

/* array type OID -> element type OID */
static const uint32_t array_oids[][2] = {
    {1000, OID_BOOL}, {1001, OID_BYTEA},     {1005, OID_INT2},        {1007, OID_INT4},
    {1016, OID_INT8}, {1021, OID_FLOAT4},    {1022, OID_FLOAT8},      {1231, OID_NUMERIC},
    {1009, OID_TEXT}, {1015, OID_VARCHAR},   {1014, OID_BPCHAR},      {1182, OID_DATE},
    {1183, OID_TIME}, {1115, OID_TIMESTAMP}, {1185, OID_TIMESTAMPTZ}, {1187, OID_INTERVAL},
    {2951, OID_UUID}, {199, OID_JSON},       {3807, OID_JSONB},       {1028, OID_OID},
};

static uint32_t array_elem(uint32_t oid)
{
    for (size_t i = 0; i < sizeof(array_oids) / sizeof(array_oids[0]); i++)
        if (array_oids[i][0] == oid)
            return array_oids[i][1];
    return 0;
}

cdc_type_t *pg_type_for_oid(uint32_t oid, int32_t typmod)
{
    switch (oid) {
    case OID_BOOL:
        return cdc_type_new(CDC_T_BOOLEAN);
    case OID_INT2:
        return cdc_type_new(CDC_T_SMALLINT);
    case OID_INT4:
        return cdc_type_new(CDC_T_INT);
    case OID_INT8:
    case OID_OID:
    case OID_INTERVAL: /* microseconds, as Debezium/Flink CDC (a month is 30.4375 days) */
        return cdc_type_new(CDC_T_BIGINT);
    case OID_FLOAT4:
        return cdc_type_new(CDC_T_FLOAT);
    case OID_FLOAT8:
        return cdc_type_new(CDC_T_DOUBLE);
    case OID_NUMERIC: {
        if (typmod < 4)
            return cdc_type_new_decimal(38, 18);
        int p = ((typmod - 4) >> 16) & 0xffff;
        int s = (int16_t)((typmod - 4) & 0xffff);
        if (p < 1 || p > CDC_MAX_DECIMAL_PRECISION || s < 0 || s > p)
            return cdc_type_new_sized(
                CDC_T_VARCHAR, CDC_MAX_LENGTH); /* beyond DECIMAL(38): STRING, as Flink CDC */
        return cdc_type_new_decimal(p, s);
    }
    case OID_BPCHAR:
        return typmod > 4 ? cdc_type_new_sized(CDC_T_CHAR, typmod - 4)
                          : cdc_type_new_sized(CDC_T_VARCHAR, CDC_MAX_LENGTH);
    case OID_VARCHAR:
        return typmod > 4 ? cdc_type_new_sized(CDC_T_VARCHAR, typmod - 4)
                          : cdc_type_new_sized(CDC_T_VARCHAR, CDC_MAX_LENGTH);
    case OID_BYTEA:
    case OID_VARBIT:
        return cdc_type_new_sized(CDC_T_VARBINARY, CDC_MAX_LENGTH);
    case OID_BIT:
        return typmod == 1 ? cdc_type_new(CDC_T_BOOLEAN)
                           : cdc_type_new_sized(CDC_T_VARBINARY, CDC_MAX_LENGTH);
    case OID_DATE:
        return cdc_type_new(CDC_T_DATE);
    case OID_TIME:
        return cdc_type_new_sized(CDC_T_TIME, typmod >= 0 && typmod <= 6 ? typmod : 6);
    case OID_TIMESTAMP:
        return cdc_type_new_sized(CDC_T_TIMESTAMP, typmod >= 0 && typmod <= 6 ? typmod : 6);
    case OID_TIMESTAMPTZ:
        return cdc_type_new_sized(CDC_T_TIMESTAMP_LTZ, typmod >= 0 && typmod <= 6 ? typmod : 6);
    default: {
        uint32_t elem = array_elem(oid);
        if (elem)
            return cdc_type_new_array(pg_type_for_oid(elem, typmod));
        /* text, name, char, json, jsonb, uuid, xml, money, timetz, inet, enums, ...: STRING */
        return cdc_type_new_sized(CDC_T_VARCHAR, CDC_MAX_LENGTH);
    }
    }
}

static bool is_string(const cdc_type_t *t)
{
    return t->root == CDC_T_CHAR || t->root == CDC_T_VARCHAR;
}

bool pg_type_compatible(uint32_t oid, const cdc_type_t *t)
{
    if (is_string(t))
        return true;
    cdc_type_t *nat = pg_type_for_oid(oid, -1);
    bool ok = nat->root == t->root || (cdc_type_is_integer(nat) && cdc_type_is_integer(t)) ||
              (cdc_type_is_integer(nat) && t->root == CDC_T_DECIMAL) ||
              (nat->root == CDC_T_DECIMAL && (t->root == CDC_T_DOUBLE || t->root == CDC_T_FLOAT)) ||
              (nat->root == CDC_T_FLOAT && t->root == CDC_T_DOUBLE) ||
              (nat->root == CDC_T_VARBINARY && t->root == CDC_T_BINARY) ||
              (nat->root == CDC_T_TIMESTAMP && t->root == CDC_T_TIMESTAMP_LTZ) ||
              (nat->root == CDC_T_TIMESTAMP_LTZ && t->root == CDC_T_TIMESTAMP);
    if (ok && nat->root == CDC_T_ARRAY && t->root == CDC_T_ARRAY)
        ok = pg_type_compatible(array_elem(oid), t->children[0]);
    cdc_type_destroy(nat);
    return ok;
}

/* ---- scalars -------------------------------------------------------------------------------- */

/* IntervalStyle postgres: "1 year 2 mons -3 days 04:05:06.5" -> microseconds */
static const char *parse_interval(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    __int128 us = 0;
    while (i < len) {
        while (i < len && s[i] == ' ')
            i++;
        if (i == len)
            break;
        bool neg = false;
        size_t st = i;
        if (s[i] == '-' || s[i] == '+')
            neg = s[i++] == '-';
        int64_t n;
        size_t num = i;
        if (cdc_text_digits(s, len, &i, 1, 18, &n) < 0)
            return "not an interval";
        if (i < len && s[i] == ':') {
            int64_t nanos;
            i = num;
            /* hours may exceed 24 ("838:59:59"): read them apart */
            int64_t h;
            if (cdc_text_digits(s, len, &i, 1, 18, &h) < 0 || i >= len || s[i] != ':')
                return "not an interval";
            char hms[32];
            size_t rest = len - i;
            if (rest >= sizeof(hms) - 2)
                return "not an interval";
            hms[0] = '0';
            hms[1] = '0';
            memcpy(hms + 2, s + i, rest);
            size_t j = 0;
            size_t stop = 2 + rest;
            for (size_t k = 2; k < 2 + rest; k++)
                if (hms[k] == ' ') {
                    stop = k;
                    break;
                }
            if (cdc_text_pg_hms(hms, stop, &j, &nanos) < 0 || j != stop)
                return "not an interval";
            i += stop - 2;
            __int128 v = (__int128)h * 3600000000LL + nanos / 1000;
            us += neg ? -v : v;
            (void)st;
            continue;
        }
        if (i >= len || s[i] != ' ')
            return "not an interval";
        i++;
        size_t w = i;
        while (i < len && s[i] != ' ')
            i++;
        size_t wl = i - w;
        __int128 unit;
        if ((wl == 4 || wl == 5) && memcmp(s + w, "year", 4) == 0)
            unit = (__int128)12 * 2629800LL * 1000000;
        else if ((wl == 3 || wl == 4) && memcmp(s + w, "mon", 3) == 0)
            unit = (__int128)2629800LL * 1000000; /* 30.4375 days */
        else if ((wl == 3 || wl == 4) && memcmp(s + w, "day", 3) == 0)
            unit = (__int128)86400LL * 1000000;
        else
            return "not an interval";
        us += (neg ? -1 : 1) * (__int128)n * unit;
    }
    if (us > INT64_MAX || us < INT64_MIN)
        return "interval out of range";
    *out = (int64_t)us;
    return NULL;
}

/* "0101..." -> bytes, most significant bit first, the first byte left-padded with zeros */
static const char *parse_bits(const char *s, size_t len, cdc_arena_t *arena, cdc_str_t *out)
{
    size_t n = (len + 7) / 8;
    unsigned char *b = cdc_arena_calloc(arena, n ? n : 1);
    size_t pad = n * 8 - len;
    for (size_t k = 0; k < len; k++) {
        if (s[k] != '0' && s[k] != '1')
            return "not a bit string";
        if (s[k] == '1') {
            size_t bit = pad + k;
            b[bit / 8] |= (unsigned char)(0x80 >> (bit % 8));
        }
    }
    out->ptr = (const char *)b;
    out->len = (uint32_t)n;
    return NULL;
}

/* ---- arrays --------------------------------------------------------------------------------- */

static const char *parse_array(uint32_t elem, const char *s, size_t len, const cdc_type_t *t,
                               cdc_arena_t *arena, cdc_value_t *v);

/* One element at *i: quoted (with \ escapes) or bare up to ',' or '}'. */
static const char *array_elem_at(uint32_t elem, const char *s, size_t len, size_t *i,
                                 const cdc_type_t *et, cdc_arena_t *arena, cdc_value_t *ev)
{
    if (*i < len && s[*i] == '{') {
        if (et->root != CDC_T_ARRAY)
            return "a multi-dimensional array for a one-dimensional ARRAY";
        size_t st = *i, depth = 0;
        bool q = false;
        for (; *i < len; (*i)++) {
            char c = s[*i];
            if (q && c == '\\')
                (*i)++;
            else if (c == '"')
                q = !q;
            else if (!q && c == '{')
                depth++;
            else if (!q && c == '}' && --depth == 0) {
                (*i)++;
                return parse_array(elem, s + st, *i - st, et, arena, ev);
            }
        }
        return "unterminated array";
    }
    if (*i < len && s[*i] == '"') {
        (*i)++;
        char *buf = cdc_arena_alloc(arena, len - *i + 1);
        size_t n = 0;
        for (;;) {
            if (*i >= len)
                return "unterminated quoted array element";
            char c = s[(*i)++];
            if (c == '"')
                break;
            if (c == '\\') {
                if (*i >= len)
                    return "unterminated quoted array element";
                c = s[(*i)++];
            }
            buf[n++] = c;
        }
        return pg_text_parse(elem, buf, n, et, arena, ev);
    }
    size_t st = *i;
    while (*i < len && s[*i] != ',' && s[*i] != '}')
        (*i)++;
    if (*i - st == 4 && memcmp(s + st, "NULL", 4) == 0) {
        ev->flags = CDC_V_NULL;
        return NULL;
    }
    if (*i == st)
        return "empty array element";
    return pg_text_parse(elem, s + st, *i - st, et, arena, ev);
}

static const char *parse_array(uint32_t elem, const char *s, size_t len, const cdc_type_t *t,
                               cdc_arena_t *arena, cdc_value_t *v)
{
    size_t i = 0;
    if (len && s[0] == '[') { /* non-default bounds "[0:1]={...}" */
        const char *eq = memchr(s, '=', len);
        if (!eq)
            return "not an array";
        i = (size_t)(eq - s) + 1;
    }
    if (i >= len || s[i] != '{' || s[len - 1] != '}')
        return "not an array";
    /* count the top-level elements to size the array */
    uint32_t n = 0;
    if (len - i > 2) {
        n = 1;
        int depth = 0;
        bool q = false;
        for (size_t k = i + 1; k < len - 1; k++) {
            char c = s[k];
            if (q && c == '\\')
                k++;
            else if (c == '"')
                q = !q;
            else if (!q && c == '{')
                depth++;
            else if (!q && c == '}')
                depth--;
            else if (!q && depth == 0 && c == ',')
                n++;
        }
    }
    cdc_value_t *elems = cdc_arena_calloc(arena, (n ? n : 1) * sizeof(cdc_value_t));
    i++;
    for (uint32_t k = 0; k < n; k++) {
        const char *why = array_elem_at(elem, s, len - 1, &i, t->children[0], arena, &elems[k]);
        if (why)
            return why;
        if (k + 1 < n) {
            if (i >= len - 1 || s[i] != ',')
                return "not an array";
            i++;
        }
    }
    if (i != len - 1)
        return "not an array";
    v->v.arr.n = n;
    v->v.arr.elems = elems;
    v->v.arr.vals = NULL;
    return NULL;
}

/* ---- dispatch ------------------------------------------------------------------------------- */

const char *pg_text_parse(uint32_t oid, const char *text, size_t len, const cdc_type_t *t,
                          cdc_arena_t *arena, cdc_value_t *v)
{
    const char *why = NULL;
    v->flags = 0;
    if (t->root >= CDC_T_TINYINT && t->root <= CDC_T_BIGINT && oid != OID_INTERVAL) {
        /* the hot case inline: an integer that fits its column; anything else, and
           every error text, through the core's conversion below */
        int64_t i;
        if (cdc_text_parse_i64(text, len, &i) == 0 && cdc_int_fits(t->root, i)) {
            v->v.i = i;
            return NULL;
        }
    }
    if (t->root == CDC_T_BIGINT && oid == OID_INTERVAL) {
        why = parse_interval(text, len, &v->v.i);
    } else if ((t->root == CDC_T_BINARY || t->root == CDC_T_VARBINARY) && oid != OID_BYTEA) {
        if (oid == OID_BIT || oid == OID_VARBIT) {
            why = parse_bits(text, len, arena, &v->v.s);
        } else {
            v->v.s.ptr = text;
            v->v.s.len = (uint32_t)len;
        }
    } else if (t->root == CDC_T_ARRAY) {
        why = parse_array(array_elem(oid), text, len, t, arena, v);
    } else {
        unsigned flags = CDC_TEXT_PG | (oid == OID_TIMESTAMPTZ ? CDC_TEXT_PG_ZONED : 0);
        cdc_value_from_text(t, text, len, flags, arena, v, &why);
    }
    if (why)
        v->flags = CDC_V_NULL;
    return why;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

const char *pg_bytea_text(const char *text, size_t len, const cdc_type_t *t, cdc_binary_mode_t mode,
                          cdc_arena_t *arena, cdc_value_t *v)
{
    if (!is_string(t))
        return pg_text_parse(OID_BYTEA, text, len, t, arena, v);
    v->flags = 0;
    if (len < 2 || text[0] != '\\' || text[1] != 'x' || len % 2) {
        v->flags = CDC_V_NULL;
        return "not bytea in hex form (\\x...; bytea_output must be hex)";
    }
    size_t n = (len - 2) / 2;
    unsigned char *b = cdc_arena_alloc(arena, n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(text[2 + 2 * i]), lo = hexval(text[3 + 2 * i]);
        if (hi < 0 || lo < 0) {
            v->flags = CDC_V_NULL;
            return "not bytea in hex form (a digit is not hexadecimal)";
        }
        b[i] = (unsigned char)(hi << 4 | lo);
    }
    cdc_text_bytes_to_text(arena, mode, b, n, &v->v.s);
    return NULL;
}
