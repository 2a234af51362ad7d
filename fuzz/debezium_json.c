/*
 * fuzz/debezium_json.c — libFuzzer target of the debezium-json format.
 *
 * The deserializers are built once, for a fixed schema that covers every
 * column type and semantic conversion (the columns of the conformance files
 * plus nested ones) with all metadata keys requested; each input is decoded as
 * one message with schema-include off, on, and on with upsert mode +
 * precise-base64 + ignore-parse-errors, and every decoded row is printed and
 * encoded back. The deserializers keep their state across inputs (bugs of
 * state carried between messages show); for inputs whose size is a multiple of
 * 8 the first one is made afresh (bugs of a first message show). CI builds it
 * with -DCDC_FUZZ=ON (scripts/fuzz.sh); by hand:
 *   CC=clang cmake -S . -B build-fuzz -DCDC_FUZZ=ON -DCDC_TESTS=OFF
 *   cmake --build build-fuzz --target fuzz_debezium_json
 *   ./fuzz_debezium_json -max_total_time=60 CORPUS_DIR
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_plugin.h"

extern const cdc_format_factory_t cdc_format_debezium_json;

#define FUZZ_SCHEMA                                                                                \
    "ROW<id INT NOT NULL, name STRING, description STRING, weight FLOAT, first_name STRING, "      \
    "last_name STRING, email STRING, biography STRING, order_date DATE, c_tinyint TINYINT, "       \
    "c_smallint SMALLINT, c_bool BOOLEAN, c_bit1 BOOLEAN, c_bit10 BIGINT, c_varbit BYTES, "        \
    "c_int_unsigned BIGINT, c_bigint BIGINT, c_bigint_unsigned DECIMAL(20, 0), "                   \
    "c_decimal DECIMAL(10, 2), c_decimal_neg DECIMAL(38, 10), c_numeric_var DECIMAL(10, 3), "      \
    "c_money STRING, c_real FLOAT, c_double DOUBLE, c_varchar VARCHAR(5), c_char CHAR(3), "        \
    "c_varbinary BYTES, c_bytea BINARY(4), c_date DATE, c_time TIME(6), c_time3 TIME(0), "         \
    "c_datetime3 TIMESTAMP(3), c_datetime6 TIMESTAMP(9), c_ts TIMESTAMP(6), c_ts_inf "             \
    "TIMESTAMP(6), c_timestamp TIMESTAMP_LTZ(0), c_tstz TIMESTAMP_LTZ(6), c_timetz TIME(6), "      \
    "c_interval BIGINT, c_json STRING, c_jsonb STRING, c_int_array ARRAY<INT>, "                   \
    "c_text_array ARRAY<STRING NOT NULL>, c_map MAP<STRING, DECIMAL(5, 1)>, "                      \
    "c_geom ROW<wkb BYTES, srid INT>, c_point ROW<x DOUBLE, y DOUBLE, wkb BYTES, srid INT>, "      \
    "c_big_text STRING, c_year INT, c_enum STRING"
/* the metadata columns, for printing */
#define FUZZ_MD_COLUMNS                                                                            \
    ", m0 STRING, m1 TIMESTAMP_LTZ(3), m2 TIMESTAMP_LTZ(3), m3 STRING, m4 STRING, m5 STRING, "     \
    "m6 MAP<STRING, STRING>"

static const char *const md_keys[] = {"schema",           "ingestion-timestamp", "source.timestamp",
                                      "source.database",  "source.schema",       "source.table",
                                      "source.properties"};

#define NVARIANTS 3
static const char *const variants[NVARIANTS][4][2] = {
    {{"schema-include", "false"}, {NULL, NULL}},
    {{"schema-include", "true"}, {"timestamp-format.standard", "ISO-8601"}, {NULL, NULL}},
    {{"schema-include", "true"},
     {"changelog-mode", "upsert"},
     {"decimal.handling", "precise-base64"},
     {"ignore-parse-errors", "true"}},
};

static cdc_type_t *type, *print_type;
static cdc_config_t *cfg[NVARIANTS], *ser_cfg;
static cdc_deser_t *deser[NVARIANTS];
static cdc_ser_t *ser;
static cdc_batch_t batch;
static cdc_buf_t out;

static void open_variant(int v)
{
    cdc_error_t *err = NULL;
    cdc_format_ctx_t ctx = {
        .cfg = cfg[v], .row_type = type, .metadata = md_keys, .nmetadata = 7, .table = "fuzz"};
    if (cdc_format_debezium_json.deser_new(&ctx, &deser[v], &err) < 0)
        abort();
}

static void setup(void)
{
    const cdc_format_factory_t *fmt = &cdc_format_debezium_json;
    cdc_error_t *err = NULL;
    type = cdc_type_parse(FUZZ_SCHEMA ">", &err);
    print_type = cdc_type_parse(FUZZ_SCHEMA FUZZ_MD_COLUMNS ">", &err);
    if (!type || !print_type)
        abort();
    for (int v = 0; v < NVARIANTS; v++) {
        cdc_kv_t kv = {0};
        for (int k = 0; k < 4 && variants[v][k][0]; k++)
            cdc_kv_set(&kv, variants[v][k][0], variants[v][k][1]);
        cfg[v] = cdc_config_new(fmt->options, "fuzz", &kv, &err);
        cdc_kv_free(&kv);
        if (!cfg[v])
            abort();
        open_variant(v);
    }
    cdc_kv_t none = {0};
    ser_cfg = cdc_config_new(fmt->options, "fuzz", &none, &err);
    cdc_format_ctx_t sctx = {.cfg = ser_cfg, .row_type = type, .table = "fuzz"};
    if (!ser_cfg || fmt->ser_new(&sctx, &ser, &err) < 0)
        abort();
    cdc_batch_init(&batch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!type)
        setup();
    if (size % 8 == 0) {
        deser[0]->ops->destroy(deser[0]);
        open_variant(0);
    }
    /* a copy of exactly `size` bytes, so reads past the message are caught */
    char *msg = size ? malloc(size) : NULL;
    if (size)
        memcpy(msg, data, size);
    for (int v = 0; v < NVARIANTS; v++) {
        cdc_buf_clear(&deser[v]->errmsg);
        uint32_t before = batch.n;
        int rc = deser[v]->ops->decode(deser[v], msg, size, &batch);
        if (rc != CDC_DECODE_OK && rc != CDC_DECODE_SCHEMA) {
            if (batch.n != before)
                abort(); /* rows of a failed message left behind */
            if (rc == CDC_DECODE_ERROR && deser[v]->errmsg.len == 0)
                abort(); /* an error must say why */
        }
        for (uint32_t i = 0; i < batch.n; i++) {
            const cdc_row_t *row = &batch.rows[i];
            if (row->arity != (uint32_t)type->nchildren + 7)
                abort();
            cdc_buf_clear(&out);
            cdc_row_print(&out, row, print_type);
            cdc_buf_clear(&out);
            if (ser->ops->encode(ser, row, &out) < 0 && ser->errmsg.len == 0)
                abort();
        }
        cdc_batch_reset(&batch);
    }
    free(msg);
    return 0;
}
