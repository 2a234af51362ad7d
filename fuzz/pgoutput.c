/*
 * fuzz/pgoutput.c — libFuzzer target of the pgoutput format.
 *
 * The input is a session: messages each preceded by a 2-byte big-endian length
 * (seeds: tests/data/seeds/pgoutput/, recorded from PostgreSQL 15 with
 * pg_logical_slot_peek_binary_changes, protocol 1 and protocol 2 with streaming).
 * Each message is decoded, in order, by a self-describing deserializer and by one
 * with a declared schema matched by name; every row is printed. Relations, types
 * and streamed transactions carry over between the messages of one input; the
 * deserializers are made afresh per input. An error must say why, and a failed
 * message must leave no rows. CI builds it with -DCDC_FUZZ=ON (scripts/fuzz.sh).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_plugin.h"

extern const cdc_format_factory_t cdc_format_pgoutput;

#define SCHEMA                                                                                     \
    "ROW<id BIGINT, v STRING, c_num_free DECIMAL(38, 18), c_tstz TIMESTAMP_LTZ(6), "               \
    "c_ts TIMESTAMP(6), c_bytea BYTES, c_int4_arr ARRAY<INT>, c_date DATE, c_time TIME(6), "       \
    "c_interval BIGINT, c_bool BOOLEAN, c_float8 DOUBLE>"

static cdc_type_t *schema;
static cdc_config_t *cfg;
static cdc_batch_t batch;
static cdc_buf_t text;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const cdc_format_factory_t *fmt = &cdc_format_pgoutput;
    cdc_error_t *err = NULL;
    if (!schema) {
        schema = cdc_type_parse(SCHEMA, &err);
        cdc_kv_t none = {0};
        cfg = cdc_config_new(fmt->options, "fuzz", &none, &err);
        if (!schema || !cfg)
            abort();
        cdc_batch_init(&batch);
    }
    cdc_deser_t *deser[2];
    for (int k = 0; k < 2; k++) {
        cdc_format_ctx_t ctx = {.cfg = cfg, .row_type = k ? schema : NULL, .table = "fuzz"};
        if (fmt->deser_new(&ctx, &deser[k], &err) < 0)
            abort();
    }
    for (size_t at = 0; at + 2 <= size;) {
        size_t len = (size_t)data[at] << 8 | data[at + 1];
        at += 2;
        if (len > size - at)
            len = size - at;
        char *msg = len ? malloc(len) : NULL; /* exactly the message: overreads show */
        if (len)
            memcpy(msg, data + at, len);
        at += len;
        for (int k = 0; k < 2; k++) {
            cdc_buf_clear(&deser[k]->errmsg);
            int rc = deser[k]->ops->decode(deser[k], msg, len, &batch);
            if (rc == CDC_DECODE_ERROR && (deser[k]->errmsg.len == 0 || batch.n != 0))
                abort(); /* an error says why and leaves no rows */
            for (uint32_t i = 0; i < batch.n; i++) {
                const cdc_row_t *row = &batch.rows[i];
                const cdc_type_t *t = k ? schema : deser[k]->ops->row_type(deser[k], row);
                if (!t || row->arity != (uint32_t)t->nchildren)
                    abort();
                cdc_buf_clear(&text);
                cdc_row_print(&text, row, t);
            }
            cdc_batch_reset(&batch);
        }
        free(msg);
    }
    for (int k = 0; k < 2; k++)
        deser[k]->ops->destroy(deser[k]);
    return 0;
}
