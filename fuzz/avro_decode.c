/*
 * fuzz/avro_decode.c — libFuzzer target of the Avro formats' decoding.
 *
 * The input is a 2-byte big-endian length, a writer schema of that many bytes
 * (JSON), then Avro binary data (seeds: tests/data/seeds/avro_decode/). The
 * schema goes through our parser (and Avro C's validation) and is resolved
 * against a table of every type; when it resolves, the data is read as one
 * record of it, as avro-confluent reads a message after its header. The data
 * is also decoded by the plain `avro` format (the table's own schema). An error
 * must say why and leave no rows; every row is printed. CI builds it with
 * -DCDC_FUZZ=ON (scripts/fuzz.sh).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "avro_int.h"
#include "cdc_plugin.h"

extern const cdc_format_factory_t cdc_format_avro;

#define SCHEMA                                                                                     \
    "ROW<id BIGINT, name STRING, price DECIMAL(10, 2), ts TIMESTAMP(6), d DATE, t TIME(6), "       \
    "tags ARRAY<STRING>, m MAP<STRING, INT>, r ROW<x INT, y DOUBLE>, b BYTES, ok BOOLEAN, "        \
    "f FLOAT, ltz TIMESTAMP_LTZ(3)>"

static cdc_type_t *schema;
static cdc_config_t *cfg;
static cdc_deser_t *deser;
static cdc_batch_t batch;
static cdc_buf_t text, err_slot;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cdc_error_t *err = NULL;
    if (!schema) {
        schema = cdc_type_parse(SCHEMA, &err);
        cdc_kv_t none = {0};
        cfg = cdc_config_new(cdc_format_avro.options, "fuzz", &none, &err);
        cdc_format_ctx_t ctx = {.cfg = cfg, .row_type = schema, .table = "fuzz"};
        if (!schema || !cfg || cdc_format_avro.deser_new(&ctx, &deser, &err) < 0)
            abort();
        cdc_batch_init(&batch);
    }
    if (size < 2)
        return 0;
    size_t slen = (size_t)data[0] << 8 | data[1];
    if (slen > size - 2)
        slen = size - 2;
    size_t dlen = size - 2 - slen;
    char *avro = dlen ? malloc(dlen) : NULL; /* exactly the data: overreads show */
    if (dlen)
        memcpy(avro, data + 2 + slen, dlen);

    char *why = NULL;
    av_schema_t *s = av_schema_parse((const char *)data + 2, slen, &why);
    if (!s && !why)
        abort(); /* a refused schema says why */
    free(why);
    av_resolved_t *res = s ? av_resolve(s, schema, &err) : NULL;
    if (s && !res && !err)
        abort();
    cdc_error_destroy(err);
    if (res) {
        cdc_value_t *values = cdc_arena_alloc(&batch.arena, sizeof(cdc_value_t) * 16);
        av_reader_t rd = {.p = (const uint8_t *)avro,
                          .start = (const uint8_t *)avro,
                          .end = (const uint8_t *)avro + dlen,
                          .arena = &batch.arena,
                          .err = &err_slot};
        cdc_buf_clear(&err_slot);
        if (av_read_record(&rd, res->root, values) == 0) {
            cdc_row_t row = {.kind = CDC_INSERT, .arity = 13, .values = values};
            cdc_buf_clear(&text);
            cdc_row_print(&text, &row, schema);
        } else if (err_slot.len == 0) {
            abort();
        }
        av_resolved_destroy(res);
    }
    cdc_batch_reset(&batch);

    cdc_buf_clear(&deser->errmsg);
    int rc = deser->ops->decode(deser, avro, dlen, &batch);
    if (rc != CDC_DECODE_OK && (deser->errmsg.len == 0 || batch.n != 0))
        abort();
    for (uint32_t i = 0; i < batch.n; i++) {
        cdc_buf_clear(&text);
        cdc_row_print(&text, &batch.rows[i], schema);
    }
    cdc_batch_reset(&batch);
    free(avro);
    return 0;
}
