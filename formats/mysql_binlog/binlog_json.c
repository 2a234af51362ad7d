/*
 * binlog_json.c — MySQL's binary JSON (column type 245, MySQL 5.7+) to JSON
 * text, as MySQL prints it: ", " and ": " separators, opaque DECIMAL as a
 * number, opaque DATE/TIME/DATETIME/TIMESTAMP as quoted strings with six
 * fraction digits, other opaque values as "base64:typeN:...". MariaDB stores
 * JSON as text and never reaches this file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binlog_int.h"

enum {
    J_SMALL_OBJ = 0,
    J_LARGE_OBJ = 1,
    J_SMALL_ARR = 2,
    J_LARGE_ARR = 3,
    J_LITERAL = 4,
    J_INT16 = 5,
    J_UINT16 = 6,
    J_INT32 = 7,
    J_UINT32 = 8,
    J_INT64 = 9,
    J_UINT64 = 10,
    J_DOUBLE = 11,
    J_STRING = 12,
    J_OPAQUE = 15
};

#define J_MAX_DEPTH 100

static uint64_t rd_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* variable-length length: 7 bits per byte, low first, high bit = more (at most 5 bytes) */
static int varlen(const uint8_t *p, size_t avail, uint64_t *len)
{
    uint64_t v = 0;
    for (int i = 0; i < 5 && (size_t)i < avail; i++) {
        v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            *len = v;
            return i + 1;
        }
    }
    return -1;
}

void bl_json_put_string(cdc_buf_t *out, const uint8_t *s, size_t n)
{
    cdc_buf_putc(out, '"');
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c == '"' || c == '\\') {
            cdc_buf_putc(out, '\\');
            cdc_buf_putc(out, (char)c);
        } else if (c < 0x20) {
            static const char esc[] = "btn\0fr";
            if (c >= 8 && c <= 13 && c != 11)
                cdc_buf_printf(out, "\\%c", esc[c - 8]);
            else
                cdc_buf_printf(out, "\\u%04x", c);
        } else {
            cdc_buf_putc(out, (char)c);
        }
    }
    cdc_buf_putc(out, '"');
}

static void put_double(cdc_buf_t *out, double d)
{
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    cdc_buf_puts(out, buf);
    if (!strpbrk(buf, ".eEn")) /* MySQL prints doubles with a fraction: 1.0 */
        cdc_buf_puts(out, ".0");
}

static int opaque(uint8_t type, const uint8_t *p, size_t n, cdc_buf_t *out, const char **why)
{
    if (type == MT_NEWDECIMAL) {
        if (n < 2) {
            *why = "JSON decimal too short";
            return -1;
        }
        char text[128];
        int len = bl_decimal_text(p + 2, n - 2, p[0], p[1], text);
        if (len < 0) {
            *why = "corrupt JSON decimal";
            return -1;
        }
        cdc_buf_append(out, text, (size_t)len);
        return 0;
    }
    if ((type == MT_DATE || type == MT_TIME || type == MT_DATETIME || type == MT_TIMESTAMP) &&
        n >= 8) {
        int64_t x = (int64_t)rd_le(p, 8);
        bool neg = x < 0;
        uint64_t t = (uint64_t)(neg ? -x : x);
        uint64_t micro = t % (1 << 24), hi = t >> 24;
        if (type == MT_TIME) {
            cdc_buf_printf(out, "\"%s%02u:%02u:%02u.%06u\"", neg ? "-" : "",
                           (unsigned)((hi >> 12) % (1 << 10)), (unsigned)((hi >> 6) % 64),
                           (unsigned)(hi % 64), (unsigned)micro);
            return 0;
        }
        uint64_t ymd = hi >> 17, ym = ymd >> 5, hms = hi % (1 << 17);
        if (type == MT_DATE)
            cdc_buf_printf(out, "\"%04u-%02u-%02u\"", (unsigned)(ym / 13), (unsigned)(ym % 13),
                           (unsigned)(ymd % 32));
        else
            cdc_buf_printf(out, "\"%04u-%02u-%02u %02u:%02u:%02u.%06u\"", (unsigned)(ym / 13),
                           (unsigned)(ym % 13), (unsigned)(ymd % 32), (unsigned)(hms >> 12),
                           (unsigned)((hms >> 6) % 64), (unsigned)(hms % 64), (unsigned)micro);
        return 0;
    }
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    cdc_buf_printf(out, "\"base64:type%u:", type);
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        cdc_buf_putc(out, b64[v >> 18 & 63]);
        cdc_buf_putc(out, b64[v >> 12 & 63]);
        cdc_buf_putc(out, i + 1 < n ? b64[v >> 6 & 63] : '=');
        cdc_buf_putc(out, i + 2 < n ? b64[v & 63] : '=');
    }
    cdc_buf_putc(out, '"');
    return 0;
}

static int value(uint8_t type, const uint8_t *p, size_t n, int depth, cdc_buf_t *out,
                 const char **why);

static int container(bool obj, bool large, const uint8_t *p, size_t n, int depth, cdc_buf_t *out,
                     const char **why)
{
    int w = large ? 4 : 2;
    if (n < (size_t)(2 * w)) {
        *why = "JSON container header runs past the value";
        return -1;
    }
    uint64_t count = rd_le(p, w), size = rd_le(p + w, w);
    if (size > n) {
        *why = "JSON container size runs past the value";
        return -1;
    }
    n = (size_t)size;
    size_t key_entry = (size_t)w + 2, val_entry = 1 + (size_t)w;
    size_t hdr = 2 * (size_t)w + count * ((obj ? key_entry : 0) + val_entry);
    if (count > n || hdr > n) {
        *why = "JSON container entries run past the value";
        return -1;
    }
    cdc_buf_putc(out, obj ? '{' : '[');
    for (uint64_t i = 0; i < count; i++) {
        if (i)
            cdc_buf_puts(out, ", ");
        if (obj) {
            const uint8_t *ke = p + 2 * w + i * key_entry;
            uint64_t koff = rd_le(ke, w), klen = rd_le(ke + w, 2);
            if (koff > n || klen > n - koff) {
                *why = "JSON key runs past the value";
                return -1;
            }
            bl_json_put_string(out, p + koff, (size_t)klen);
            cdc_buf_puts(out, ": ");
        }
        const uint8_t *ve = p + 2 * w + count * (obj ? key_entry : 0) + i * val_entry;
        uint8_t t = ve[0];
        bool inl = t == J_LITERAL || t == J_INT16 || t == J_UINT16 ||
                   (large && (t == J_INT32 || t == J_UINT32));
        if (inl) {
            if (value(t, ve + 1, (size_t)w, depth + 1, out, why) < 0)
                return -1;
            continue;
        }
        uint64_t off = rd_le(ve + 1, w);
        if (off >= n) {
            *why = "JSON value offset runs past the value";
            return -1;
        }
        if (value(t, p + off, n - (size_t)off, depth + 1, out, why) < 0)
            return -1;
    }
    cdc_buf_putc(out, obj ? '}' : ']');
    return 0;
}

static int value(uint8_t type, const uint8_t *p, size_t n, int depth, cdc_buf_t *out,
                 const char **why)
{
    static const int fixed[] = {[J_INT16] = 2, [J_UINT16] = 2, [J_INT32] = 4, [J_UINT32] = 4,
                                [J_INT64] = 8, [J_UINT64] = 8, [J_DOUBLE] = 8};
    if (depth > J_MAX_DEPTH) {
        *why = "JSON nested too deeply";
        return -1;
    }
    if (type >= J_INT16 && type <= J_DOUBLE && n < (size_t)fixed[type]) {
        *why = "JSON scalar runs past the value";
        return -1;
    }
    switch (type) {
    case J_SMALL_OBJ:
    case J_LARGE_OBJ:
    case J_SMALL_ARR:
    case J_LARGE_ARR:
        return container(type <= J_LARGE_OBJ, type & 1, p, n, depth, out, why);
    case J_LITERAL:
        if (n < 1 || p[0] > 2) {
            *why = "bad JSON literal";
            return -1;
        }
        cdc_buf_puts(out, p[0] == 0 ? "null" : p[0] == 1 ? "true" : "false");
        return 0;
    case J_INT16:
        cdc_buf_printf(out, "%d", (int16_t)rd_le(p, 2));
        return 0;
    case J_UINT16:
        cdc_buf_printf(out, "%u", (unsigned)rd_le(p, 2));
        return 0;
    case J_INT32:
        cdc_buf_printf(out, "%d", (int32_t)rd_le(p, 4));
        return 0;
    case J_UINT32:
        cdc_buf_printf(out, "%u", (uint32_t)rd_le(p, 4));
        return 0;
    case J_INT64:
        cdc_buf_printf(out, "%lld", (long long)(int64_t)rd_le(p, 8));
        return 0;
    case J_UINT64:
        cdc_buf_printf(out, "%llu", (unsigned long long)rd_le(p, 8));
        return 0;
    case J_DOUBLE: {
        uint64_t x = rd_le(p, 8);
        double d;
        memcpy(&d, &x, 8);
        put_double(out, d);
        return 0;
    }
    case J_STRING:
    case J_OPAQUE: {
        size_t at = type == J_OPAQUE ? 1 : 0;
        uint64_t len;
        int k = n > at ? varlen(p + at, n - at, &len) : -1;
        if (k < 0 || len > n - at - (size_t)k) {
            *why = "JSON string runs past the value";
            return -1;
        }
        if (type == J_STRING) {
            bl_json_put_string(out, p + k, (size_t)len);
            return 0;
        }
        return opaque(p[0], p + at + (size_t)k, (size_t)len, out, why);
    }
    default:
        *why = "unknown JSON value type";
        return -1;
    }
}

int bl_json_to_text(const uint8_t *p, size_t len, cdc_buf_t *out, const char **why)
{
    if (len < 1) {
        *why = "empty JSON value";
        return -1;
    }
    return value(p[0], p + 1, len - 1, 0, out, why);
}
