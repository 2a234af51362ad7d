/*
 * fuzz/mysql_binlog.c — libFuzzer target of the mysql-binlog format.
 *
 * The input is a binlog file (seeds: tests/data/seeds/mysql_binlog/, a file MariaDB
 * wrote and a MySQL 8 style stream). Each input is fed to three deserializers, each
 * time split at boundaries drawn from a generator seeded by the input, so every run
 * also exercises events cut anywhere: self-describing with input=file, the same on
 * the bytes after the magic with input=events, and a declared schema matched by
 * name. Every row is printed. The deserializers are made afresh per input (a binlog
 * stream cannot resynchronise after an error). An error must say why. CI builds it
 * with -DCDC_FUZZ=ON (scripts/fuzz.sh).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_plugin.h"

extern const cdc_format_factory_t cdc_format_mysql_binlog;

#define SCHEMA                                                                                     \
    "ROW<id BIGINT, v STRING, d DECIMAL(38, 10), ts TIMESTAMP_LTZ(6), dt TIMESTAMP(6), b BYTES, "  \
    "j STRING, n INT>"

static cdc_type_t *schema;
static cdc_batch_t batch;
static cdc_buf_t text;

static void run(const uint8_t *data, size_t size, const char *input, bool declared, uint64_t seed)
{
    const cdc_format_factory_t *fmt = &cdc_format_mysql_binlog;
    cdc_kv_t kv = {0};
    cdc_kv_set(&kv, "input", input);
    cdc_kv_set(&kv, "file-name", "fuzz.000001");
    cdc_error_t *err = NULL;
    cdc_config_t *cfg = cdc_config_new(fmt->options, "fuzz", &kv, &err);
    cdc_kv_free(&kv);
    if (!cfg)
        abort();
    cdc_format_ctx_t ctx = {.cfg = cfg, .row_type = declared ? schema : NULL, .table = "fuzz"};
    cdc_deser_t *deser;
    if (fmt->deser_new(&ctx, &deser, &err) < 0)
        abort();
    int rc = 0;
    for (size_t at = 0; at <= size && rc == 0;) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        size_t n = at == size ? 0 : 1 + (size_t)(seed >> 33) % 97;
        if (n > size - at)
            n = size - at;
        /* a copy of exactly the piece, so reads past it are caught */
        char *piece = n ? malloc(n) : NULL;
        if (n)
            memcpy(piece, data + at, n);
        cdc_buf_clear(&deser->errmsg);
        rc = deser->ops->decode(deser, piece, n, &batch);
        if (rc == CDC_DECODE_ERROR && deser->errmsg.len == 0)
            abort(); /* an error must say why */
        for (uint32_t i = 0; i < batch.n; i++) {
            const cdc_row_t *row = &batch.rows[i];
            const cdc_type_t *t = declared ? schema : deser->ops->row_type(deser, row);
            if (!t || row->arity != (uint32_t)t->nchildren)
                abort();
            cdc_buf_clear(&text);
            cdc_row_print(&text, row, t);
        }
        cdc_batch_reset(&batch);
        free(piece);
        if (n == 0)
            break;
        at += n;
    }
    deser->ops->destroy(deser);
    cdc_config_destroy(cfg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!schema) {
        cdc_error_t *err = NULL;
        schema = cdc_type_parse(SCHEMA, &err);
        if (!schema)
            abort();
        cdc_batch_init(&batch);
    }
    uint64_t seed = size;
    for (size_t i = 0; i < size; i += 1 + size / 64)
        seed = seed * 31 + data[i];
    run(data, size, "file", false, seed);
    if (size > 4)
        run(data + 4, size - 4, "events", false, seed ^ 0x9e3779b97f4a7c15ULL);
    run(data, size, "file", true, seed + 1);
    return 0;
}
