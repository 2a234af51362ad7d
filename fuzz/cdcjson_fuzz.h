/*
 * fuzz/cdcjson_fuzz.h — the libFuzzer driver shared by the json, canal-json,
 * maxwell-json and ogg-json targets (fuzz/{canal,maxwell,ogg}_json.c).
 *
 * Two deserializers over a schema of many types with every metadata key
 * requested: one with default options and one with ignore-parse-errors, the
 * ISO-8601 standard and format-specific extras, both kept across inputs (so
 * bugs of state carried between messages show). For inputs whose size is a
 * multiple of 8 the default one is made afresh instead (so bugs of a
 * deserializer's first message show, reproducibly, at a bearable cost). Every decoded row is
 * printed (fields and metadata) and encoded back. Any crash, sanitizer report, leak or hang is a
 * bug.
 *
 * Build (from the repository root), e.g.:
 *   CC=clang cmake -S . -B build-fuzz -DCDC_FUZZ=ON -DCDC_TESTS=OFF
 *   cmake --build build-fuzz --target fuzz_canal_json
 */
#ifndef CDCJSON_FUZZ_H
#define CDCJSON_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_plugin.h"

#define CJF_SCHEMA                                                                                 \
    "ROW<id INT NOT NULL, name STRING, description STRING, weight FLOAT, b BOOLEAN, ti TINYINT, "  \
    "si SMALLINT, bi BIGINT, d DOUBLE, dec DECIMAL(10, 2), big DECIMAL(38, 18), c CHAR(3), "       \
    "dt DATE, tm TIME(3), ts TIMESTAMP(3), ts9 TIMESTAMP(9), ltz TIMESTAMP_LTZ(3), bin BYTES, "    \
    "arr ARRAY<INT>, sarr ARRAY<STRING NOT NULL>, m MAP<STRING, INT>, im MAP<INT, STRING>, "       \
    "r ROW<a INT NOT NULL, b STRING, c ARRAY<ROW<x DOUBLE>>>>"

typedef struct cjf_side_s {
    cdc_config_t *cfg;
    cdc_deser_t *deser;
    cdc_ser_t *ser;
} cjf_side_t;

static cdc_type_t *cjf_type;
static cdc_type_t *cjf_meta_types[8];
static char *cjf_meta_keys[8];
static int cjf_nmeta;
static cjf_side_t cjf_sides[2];
static cdc_batch_t cjf_batch;
static cdc_buf_t cjf_out;

static void cjf_die(const char *what, cdc_error_t *err)
{
    fprintf(stderr, "fuzz set-up failed: %s: %s %s\n", what, err ? err->message : "",
            err && err->detail ? err->detail : "");
    abort();
}

/* opts: key, value, ..., NULL */
static void cjf_side_open(cjf_side_t *side, const cdc_format_factory_t *fmt,
                          const char *const *opts)
{
    cdc_kv_t kv = {0};
    for (int i = 0; opts && opts[i]; i += 2)
        cdc_kv_set(&kv, opts[i], opts[i + 1]);
    cdc_error_t *err = NULL;
    side->cfg = cdc_config_new(fmt->options, fmt->identifier, &kv, &err);
    cdc_kv_free(&kv);
    if (!side->cfg)
        cjf_die("options", err);
    cdc_format_ctx_t ctx = {.cfg = side->cfg,
                            .row_type = cjf_type,
                            .metadata = (const char *const *)cjf_meta_keys,
                            .nmetadata = cjf_nmeta,
                            .table = "fuzz"};
    if (fmt->deser_new(&ctx, &side->deser, &err) < 0)
        cjf_die("deser_new", err);
    ctx.nmetadata = 0;
    if (fmt->ser_new(&ctx, &side->ser, &err) < 0)
        cjf_die("ser_new", err);
}

static void cjf_side_close(cjf_side_t *side)
{
    side->deser->ops->destroy(side->deser);
    side->ser->ops->destroy(side->ser);
    cdc_config_destroy(side->cfg);
    memset(side, 0, sizeof(*side));
}

static void cjf_setup(const cdc_format_factory_t *fmt, const char *const *extra_opts)
{
    cdc_error_t *err = NULL;
    cjf_type = cdc_type_parse(CJF_SCHEMA, &err);
    if (!cjf_type)
        cjf_die("schema", err);
    for (int i = 0; fmt->metadata && fmt->metadata[i].key && cjf_nmeta < 8; i++) {
        cjf_meta_keys[cjf_nmeta] = (char *)fmt->metadata[i].key;
        cjf_meta_types[cjf_nmeta] = cdc_type_parse(fmt->metadata[i].type, &err);
        if (!cjf_meta_types[cjf_nmeta])
            cjf_die("metadata type", err);
        cjf_nmeta++;
    }
    cjf_side_open(&cjf_sides[0], fmt, NULL);
    cjf_side_open(&cjf_sides[1], fmt, extra_opts);
    cdc_batch_init(&cjf_batch);
}

static void cjf_run(cjf_side_t *side, const char *msg, size_t len)
{
    cdc_batch_reset(&cjf_batch);
    cdc_buf_clear(&side->deser->errmsg);
    int rc = side->deser->ops->decode(side->deser, msg, len, &cjf_batch);
    if (rc != CDC_DECODE_OK) {
        if (cjf_batch.n != 0 || (rc == CDC_DECODE_ERROR && side->deser->errmsg.len == 0))
            abort(); /* rows left behind, or an error without a reason */
        return;
    }
    uint32_t nfields = (uint32_t)cjf_type->nchildren;
    for (uint32_t i = 0; i < cjf_batch.n; i++) {
        const cdc_row_t *row = &cjf_batch.rows[i];
        if (row->arity != nfields + (uint32_t)cjf_nmeta)
            abort();
        cdc_buf_clear(&cjf_out);
        cdc_row_print(&cjf_out, row, cjf_type);
        for (int m = 0; m < cjf_nmeta; m++)
            cdc_value_print(&cjf_out, &row->values[nfields + (uint32_t)m], cjf_meta_types[m]);
        if (row->origin)
            cdc_buf_puts(&cjf_out, row->origin);
        cdc_buf_clear(&cjf_out);
        if (side->ser->ops->encode(side->ser, row, &cjf_out) == 0 && cjf_out.len < 2)
            abort();
    }
}

/** Defines LLVMFuzzerTestOneInput for format fmt; extra: options of the second deserializer. */
#define CJF_TARGET(fmt, extra)                                                                     \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                                   \
    {                                                                                              \
        if (!cjf_type)                                                                             \
            cjf_setup(fmt, extra);                                                                 \
        if (size % 8 == 0) {                                                                       \
            cjf_side_t fresh;                                                                      \
            cjf_side_open(&fresh, fmt, NULL);                                                      \
            cjf_run(&fresh, (const char *)data, size);                                             \
            cjf_side_close(&fresh);                                                                \
        } else {                                                                                   \
            cjf_run(&cjf_sides[0], (const char *)data, size);                                      \
        }                                                                                          \
        cjf_run(&cjf_sides[1], (const char *)data, size);                                          \
        return 0;                                                                                  \
    }

#endif
