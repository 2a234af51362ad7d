/*
 * fuzz/row_codec.c — libFuzzer target of the keyed state's row codec
 * (src/core/cdc_row_codec.c).
 *
 * The input is decoded as one row of a fixed nested type holding every root
 * type. A decoded row must be printable (every pointer valid), and encoding it
 * again must give bytes that decode to the same encoding (the codec is stable
 * on its own output). A rejected input must simply return NULL. CI builds it
 * with -DCDC_FUZZ=ON (scripts/fuzz.sh).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_row_codec.h"

#define SCHEMA                                                                                     \
    "ROW<b BOOLEAN, t TINYINT, s SMALLINT, i INT, l BIGINT, f FLOAT, d DOUBLE, "                   \
    "dec DECIMAL(38, 10), c CHAR(3), v STRING, vb BYTES, dt DATE, tm TIME(3), "                    \
    "ts TIMESTAMP(9), tz TIMESTAMP_LTZ(3), a ARRAY<INT>, "                                         \
    "m MAP<STRING, ARRAY<ROW<x BIGINT, y STRING>>>, r ROW<x INT, y ROW<z STRING>>>"

static cdc_type_t *schema;
static cdc_arena_t arena;
static cdc_buf_t text, enc, enc2;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!schema) {
        cdc_error_t *err = NULL;
        schema = cdc_type_parse(SCHEMA, &err);
        if (!schema)
            abort();
        cdc_arena_init(&arena);
    }
    size_t used = 0;
    cdc_row_t *row = cdc_row_decode(data, size, schema, &arena, &used);
    if (row) {
        if (used > size)
            abort();
        cdc_buf_clear(&text);
        cdc_row_print(&text, row, schema);
        cdc_buf_clear(&enc);
        cdc_row_encode(&enc, row, schema);
        cdc_row_t *again = cdc_row_decode(enc.data, enc.len, schema, &arena, &used);
        if (!again || used != enc.len)
            abort();
        cdc_buf_clear(&enc2);
        cdc_row_encode(&enc2, again, schema);
        if (enc2.len != enc.len || memcmp(enc2.data, enc.data, enc.len) != 0)
            abort();
    }
    cdc_arena_reset(&arena);
    return 0;
}
