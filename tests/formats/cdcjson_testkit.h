/*
 * tests/formats/cdcjson_testkit.h — test support shared by the Criterion tests
 * of canal-json, maxwell-json and ogg-json (tests/formats/{canal,maxwell,ogg}_json.c):
 * a fixture that opens a format by name through the registry, decodes single
 * messages or whole conformance files read in place from
 * $CDC_CONFORMANCE_DIR/flink-json, prints rows and metadata, encodes rows, and
 * the robustness checks every CDC JSON format must pass (tombstones, truncated
 * input, deep nesting, bad UTF-8, byte mutations).
 *
 * Header-only (static functions): each test file is its own executable.
 */
#ifndef CDCJSON_TESTKIT_H
#define CDCJSON_TESTKIT_H

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_plugin.h"

/** The physical schema of every Flink conformance case. */
#define CJT_SCHEMA "id INT NOT NULL, name STRING, description STRING, weight FLOAT"

/** A schema of many types, for robustness checks. */
#define CJT_WIDE_SCHEMA                                                                            \
    "id INT NOT NULL, name STRING, description STRING, weight FLOAT, b BOOLEAN, ti TINYINT, "      \
    "si SMALLINT, bi BIGINT, d DOUBLE, dec DECIMAL(10, 2), dt DATE, tm TIME(3), "                  \
    "ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(3), bin BYTES, arr ARRAY<INT>, m MAP<STRING, INT>, "       \
    "r ROW<a INT, b STRING>"

#define CJT_MAX_META 8
#define CJT_MAX_FILES 4

typedef struct cjt_s {
    const cdc_format_factory_t *fmt;
    cdc_type_t *type;
    cdc_config_t *cfg;
    cdc_deser_t *deser;
    cdc_ser_t *ser;
    cdc_batch_t batch;
    cdc_buf_t text;
    cdc_buf_t json;
    char *meta_keys[CJT_MAX_META];
    cdc_type_t *meta_types[CJT_MAX_META];
    int nmeta;
    char *files[CJT_MAX_FILES]; /* file contents the batch's rows may point into */
    int nfiles;
} cjt_t;

static cjt_t cjt;

/* Adds the key, value, ... pairs of ap (ended by a NULL key) to kv. */
static void cjt_kv_add(cdc_kv_t *kv, va_list ap)
{
    for (const char *k; (k = va_arg(ap, const char *));)
        cdc_kv_set(kv, k, va_arg(ap, const char *));
}

/**
 * Opens format `name` for schema (a field list) with the metadata keys in
 * meta_csv ("database,table"; NULL for none) and options given as key, value,
 * ..., NULL. Asserts success.
 */
static void cjt_open(const char *name, const char *schema, const char *meta_csv, ...)
{
    cdc_error_t *err = NULL;
    memset(&cjt, 0, sizeof(cjt));
    cjt.fmt = cdc_registry_format(name);
    cr_assert_not_null(cjt.fmt, "format %s is not registered", name);
    char *row = cdc_strdup_printf("ROW<%s>", schema);
    cjt.type = cdc_type_parse(row, &err);
    free(row);
    cr_assert_not_null(cjt.type, "schema %s: %s", schema, err ? err->message : "");
    cdc_kv_t kv = {0};
    va_list ap;
    va_start(ap, meta_csv);
    cjt_kv_add(&kv, ap);
    va_end(ap);
    char *label = cdc_strdup_printf("format \"%s\"", name);
    cjt.cfg = cdc_config_new(cjt.fmt->options, label, &kv, &err);
    free(label);
    cdc_kv_free(&kv);
    cr_assert_not_null(cjt.cfg, "options: %s", err ? err->detail : "");
    if (meta_csv) {
        char *copy = cdc_xstrdup(meta_csv);
        for (char *save = NULL, *k = strtok_r(copy, ",", &save); k && cjt.nmeta < CJT_MAX_META;
             k = strtok_r(NULL, ",", &save)) {
            cjt.meta_keys[cjt.nmeta] = cdc_xstrdup(k);
            for (int i = 0; cjt.fmt->metadata && cjt.fmt->metadata[i].key; i++)
                if (strcmp(cjt.fmt->metadata[i].key, k) == 0)
                    cjt.meta_types[cjt.nmeta] = cdc_type_parse(cjt.fmt->metadata[i].type, NULL);
            cjt.nmeta++;
        }
        free(copy);
    }
    cdc_format_ctx_t ctx = {.cfg = cjt.cfg,
                            .row_type = cjt.type,
                            .metadata = (const char *const *)cjt.meta_keys,
                            .nmetadata = cjt.nmeta,
                            .table = "t"};
    cr_assert_eq(cjt.fmt->deser_new(&ctx, &cjt.deser, &err), 0, "deser_new: %s",
                 err ? err->message : "");
    ctx.nmetadata = 0;
    cr_assert_eq(cjt.fmt->ser_new(&ctx, &cjt.ser, &err), 0, "ser_new: %s", err ? err->message : "");
    cdc_batch_init(&cjt.batch);
}

static void cjt_close(void)
{
    if (cjt.deser)
        cjt.deser->ops->destroy(cjt.deser);
    if (cjt.ser)
        cjt.ser->ops->destroy(cjt.ser);
    cdc_config_destroy(cjt.cfg);
    cdc_type_destroy(cjt.type);
    for (int i = 0; i < cjt.nmeta; i++) {
        free(cjt.meta_keys[i]);
        cdc_type_destroy(cjt.meta_types[i]);
    }
    for (int i = 0; i < cjt.nfiles; i++)
        free(cjt.files[i]);
    cdc_batch_free(&cjt.batch);
    cdc_buf_free(&cjt.text);
    cdc_buf_free(&cjt.json);
    memset(&cjt, 0, sizeof(cjt));
}

/**
 * Tries to open format name with the given options (key, value, ..., NULL);
 * returns the error text of cdc_config_new (its detail) or deser_new (its
 * message), or "" when both succeed. The result is malloc'ed.
 */
static char *cjt_open_error(const char *name, const char *meta_key, ...)
{
    const cdc_format_factory_t *fmt = cdc_registry_format(name);
    cr_assert_not_null(fmt);
    cdc_kv_t kv = {0};
    va_list ap;
    va_start(ap, meta_key);
    cjt_kv_add(&kv, ap);
    va_end(ap);
    cdc_error_t *err = NULL;
    char *out = NULL;
    cdc_option_scope_t scope = {
        .defs = fmt->options, .prefix = "", .label = name, .check = fmt->check};
    cdc_config_t *cfg = NULL;
    if (cdc_options_validate(&scope, 1, &kv, &cfg, &err) < 0) {
        out = cdc_xstrdup(err->detail ? err->detail : err->message);
    } else {
        cdc_type_t *type = cdc_type_parse("ROW<" CJT_SCHEMA ">", NULL);
        cdc_deser_t *deser = NULL;
        const char *keys[1] = {meta_key};
        cdc_format_ctx_t ctx = {.cfg = cfg,
                                .row_type = type,
                                .metadata = keys,
                                .nmetadata = meta_key ? 1 : 0,
                                .table = "t"};
        if (fmt->deser_new(&ctx, &deser, &err) < 0)
            out = cdc_xstrdup(err->message);
        else
            out = cdc_xstrdup("");
        if (deser)
            deser->ops->destroy(deser);
        cdc_type_destroy(type);
    }
    cdc_error_destroy(err);
    cdc_config_destroy(cfg);
    cdc_kv_free(&kv);
    return out;
}

/**
 * Checks what format name declares: ChangelogMode all ([I,UB,UA,D]) for
 * decoding and encoding, exactly the option keys given (in order, each with a
 * description), exactly the metadata keys given (in order, each with a type
 * that parses), and that an unknown metadata key is refused by name.
 */
static void cjt_check_factory(const char *name, const char *const *options,
                              const char *const *metadata)
{
    const cdc_format_factory_t *fmt = cdc_registry_format(name);
    cr_assert_not_null(fmt);
    cdc_kv_t none = {0};
    cdc_config_t *cfg = cdc_config_new(fmt->options, name, &none, NULL);
    cr_assert_not_null(cfg);
    char m[16];
    cr_assert_str_eq(cdc_changelog_mode_str(fmt->decode_mode(cfg), m), "[I,UB,UA,D]");
    cr_assert_str_eq(cdc_changelog_mode_str(fmt->encode_mode(cfg), m), "[I,UB,UA,D]");
    cdc_config_destroy(cfg);
    int n = 0;
    for (; fmt->options[n].key; n++) {
        cr_assert_not_null(options[n], "%s: extra option %s", name, fmt->options[n].key);
        cr_assert_str_eq(fmt->options[n].key, options[n]);
        cr_assert(fmt->options[n].description && *fmt->options[n].description);
    }
    cr_assert_null(options[n], "%s: option %s missing", name, options[n]);
    for (n = 0; fmt->metadata[n].key; n++) {
        cr_assert_not_null(metadata[n], "%s: extra metadata %s", name, fmt->metadata[n].key);
        cr_assert_str_eq(fmt->metadata[n].key, metadata[n]);
        cdc_type_t *t = cdc_type_parse(fmt->metadata[n].type, NULL);
        cr_assert_not_null(t, "%s: metadata %s has type %s", name, metadata[n],
                           fmt->metadata[n].type);
        cdc_type_destroy(t);
    }
    cr_assert_null(metadata[n], "%s: metadata %s missing", name, metadata[n]);
    char *e = cjt_open_error(name, "no-such-key", NULL);
    char *want = cdc_strdup_printf("format \"%s\" has no metadata key \"no-such-key\"", name);
    cr_assert_str_eq(e, want);
    free(want);
    free(e);
}

/** Prints rows [from, batch.n), each followed by '\n', prefixed "origin\t" when with_origin. */
static const char *cjt_rows_from(uint32_t from, bool with_origin)
{
    cdc_buf_clear(&cjt.text);
    for (uint32_t i = from; i < cjt.batch.n; i++) {
        const cdc_row_t *row = &cjt.batch.rows[i];
        if (with_origin) {
            cdc_buf_puts(&cjt.text, row->origin ? row->origin : "(none)");
            cdc_buf_putc(&cjt.text, '\t');
        }
        cdc_row_print(&cjt.text, row, cjt.type);
        cdc_buf_putc(&cjt.text, '\n');
    }
    return cdc_buf_cstr(&cjt.text);
}

/**
 * Decodes one message into a fresh batch. Returns the printed rows (each ending
 * in '\n', "" for none), "SKIPPED", or "ERROR: reason". Asserts that an error
 * or a skip leaves no row behind and that every row has the full arity.
 */
static const char *cjt_decode_n(const char *msg, size_t len)
{
    cdc_batch_reset(&cjt.batch);
    cdc_buf_clear(&cjt.deser->errmsg);
    int rc = cjt.deser->ops->decode(cjt.deser, msg, len, &cjt.batch);
    if (rc != CDC_DECODE_OK)
        cr_assert_eq(cjt.batch.n, 0, "rows left after a failed message");
    if (rc == CDC_DECODE_SKIPPED)
        return "SKIPPED";
    if (rc == CDC_DECODE_ERROR) {
        cr_assert_gt(cjt.deser->errmsg.len, 0, "an error without a reason");
        cdc_buf_clear(&cjt.text);
        cdc_buf_puts(&cjt.text, "ERROR: ");
        cdc_buf_append(&cjt.text, cjt.deser->errmsg.data, cjt.deser->errmsg.len);
        return cdc_buf_cstr(&cjt.text);
    }
    cr_assert_eq(rc, CDC_DECODE_OK, "decode returned %d", rc);
    for (uint32_t i = 0; i < cjt.batch.n; i++)
        cr_assert_eq(cjt.batch.rows[i].arity, (uint32_t)(cjt.type->nchildren + cjt.nmeta));
    return cjt_rows_from(0, false);
}

static const char *cjt_decode(const char *msg)
{
    return cjt_decode_n(msg, strlen(msg));
}

/** Reads $CDC_CONFORMANCE_DIR/flink-json/rel (malloc'ed, NUL-terminated). */
static char *cjt_read(const char *rel, size_t *len)
{
    const char *dir = getenv("CDC_CONFORMANCE_DIR");
    cr_assert_not_null(dir, "CDC_CONFORMANCE_DIR is not set (ctest sets it)");
    char *path = cdc_strdup_printf("%s/flink-json/%s", dir, rel);
    FILE *fp = fopen(path, "rb");
    cr_assert_not_null(fp, "cannot open %s", path);
    free(path);
    cdc_buf_t b = {0};
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
        cdc_buf_append(&b, chunk, n);
    fclose(fp);
    if (len)
        *len = b.len;
    cdc_buf_cstr(&b);
    if (!b.data)
        return cdc_xstrdup("");
    return b.data;
}

/**
 * Decodes every line of a conformance file, appending the rows to cjt.batch
 * (the file stays in memory as long as the fixture). Asserts that no line
 * fails. Returns the number of lines.
 */
static int cjt_decode_file(const char *rel)
{
    cr_assert_lt(cjt.nfiles, CJT_MAX_FILES);
    size_t len;
    char *text = cjt_read(rel, &len);
    cjt.files[cjt.nfiles++] = text;
    int lines = 0;
    for (char *p = text; p < text + len;) {
        char *nl = memchr(p, '\n', (size_t)(text + len - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
        lines++;
        cdc_buf_clear(&cjt.deser->errmsg);
        int rc = cjt.deser->ops->decode(cjt.deser, p, n, &cjt.batch);
        cr_assert_eq(rc, CDC_DECODE_OK, "%s line %d: %s", rel, lines,
                     cdc_buf_cstr(&cjt.deser->errmsg));
        p += n + 1;
    }
    return lines;
}

/** Asserts that the rows decoded so far print exactly as the expected file. */
static void cjt_expect_rows_file(const char *rel)
{
    char *want = cjt_read(rel, NULL);
    cr_assert_str_eq(cjt_rows_from(0, false), want, "rows differ from %s", rel);
    free(want);
}

/** Encodes one row; returns the JSON or "ERROR: reason" (or "NONE"). */
static const char *cjt_encode(const cdc_row_t *row)
{
    cdc_buf_clear(&cjt.json);
    int rc = cjt.ser->ops->encode(cjt.ser, row, &cjt.json);
    if (rc < 0) {
        cdc_buf_clear(&cjt.json);
        cdc_buf_puts(&cjt.json, "ERROR: ");
        cdc_buf_append(&cjt.json, cjt.ser->errmsg.data, cjt.ser->errmsg.len);
    } else if (rc == 1) {
        cdc_buf_clear(&cjt.json);
        cdc_buf_puts(&cjt.json, "NONE");
    }
    return cdc_buf_cstr(&cjt.json);
}

/** Asserts that encoding every decoded row gives the expected file, line by line. */
static void cjt_expect_serialized_file(const char *rel)
{
    char *want = cjt_read(rel, NULL);
    cdc_buf_t got = {0};
    for (uint32_t i = 0; i < cjt.batch.n; i++) {
        size_t before = got.len;
        cr_assert_eq(cjt.ser->ops->encode(cjt.ser, &cjt.batch.rows[i], &got), 0, "row %u", i);
        cr_assert(memchr(got.data + before, '\n', got.len - before) == NULL);
        cdc_buf_putc(&got, '\n');
    }
    cr_assert_str_eq(cdc_buf_cstr(&got), want, "serialization differs from %s", rel);
    cdc_buf_free(&got);
    free(want);
}

/** Metadata value m of row r, printed ("null" for NULL). */
static const char *cjt_meta(uint32_t r, int m)
{
    cr_assert_lt(r, cjt.batch.n);
    cr_assert_lt(m, cjt.nmeta);
    cr_assert_not_null(cjt.meta_types[m], "unknown metadata key %s", cjt.meta_keys[m]);
    const cdc_row_t *row = &cjt.batch.rows[r];
    cdc_buf_clear(&cjt.text);
    cdc_value_print(&cjt.text, &row->values[cjt.type->nchildren + m], cjt.meta_types[m]);
    return cdc_buf_cstr(&cjt.text);
}

/** Epoch milliseconds of TIMESTAMP_LTZ metadata value m of row r. */
static long long cjt_meta_millis(uint32_t r, int m)
{
    const cdc_value_t *v = &cjt.batch.rows[r].values[cjt.type->nchildren + m];
    cr_assert(!cdc_value_is_null(v), "metadata %s is null", cjt.meta_keys[m]);
    return (long long)v->v.ts.millis;
}

/** Decodes msg[0..len), and when it gives rows, encodes each (must not crash). */
static void cjt_decode_encode(const char *msg, size_t len)
{
    const char *r = cjt_decode_n(msg, len);
    if (strncmp(r, "ERROR", 5) == 0 || strcmp(r, "SKIPPED") == 0)
        return;
    for (uint32_t i = 0; i < cjt.batch.n; i++)
        cjt_encode(&cjt.batch.rows[i]);
}

/**
 * Robustness every format must show, given a valid message good (which must
 * decode to at least one row): tombstones give nothing; every proper prefix is
 * an error (never a row); hostile nesting, bad UTF-8, and byte mutations at
 * every position never crash.
 */
static void cjt_robustness(const char *good)
{
    size_t len = strlen(good);
    cr_assert_str_eq(cjt_decode_n(NULL, 0), "");
    cr_assert_str_eq(cjt_decode_n("", 0), "");
    const char *ok = cjt_decode(good);
    cr_assert(strncmp(ok, "ERROR", 5) != 0 && *ok, "the good message gives %s", ok);
    for (size_t k = 1; k < len; k++) {
        const char *r = cjt_decode_n(good, k);
        cr_assert(strncmp(r, "ERROR: corrupt ", 15) == 0, "prefix %zu gives %s", k, r);
    }
    /* nesting far beyond any limit, in an unknown key and in the first row value */
    cdc_buf_t deep = {0};
    cdc_buf_puts(&deep, "{\"zz\":");
    for (int i = 0; i < 100000; i++)
        cdc_buf_putc(&deep, '[');
    for (int i = 0; i < 100000; i++)
        cdc_buf_putc(&deep, ']');
    cdc_buf_putc(&deep, '}');
    const char *r = cjt_decode_n(deep.data, deep.len);
    cr_assert(strstr(r, "nested deeper than") != NULL, "deep nesting gives %s", r);
    /* the same depth in place of each '{' of the good message */
    for (size_t k = 1; k < len; k++) {
        if (good[k] != '{')
            continue;
        cdc_buf_clear(&deep);
        cdc_buf_append(&deep, good, k);
        for (int i = 0; i < 5000; i++)
            cdc_buf_puts(&deep, "{\"a\":");
        r = cjt_decode_n(deep.data, deep.len);
        cr_assert(strncmp(r, "ERROR: corrupt ", 15) == 0, "deep at %zu gives %s", k, r);
    }
    cdc_buf_free(&deep);
    /* invalid UTF-8 inside each string of the message */
    char *bad = cdc_xstrdup(good);
    for (size_t k = 1; k + 1 < len; k++) {
        if (good[k - 1] != '"' || good[k] == '"' || good[k] == ',' || good[k] == ':')
            continue;
        char saved = bad[k];
        bad[k] = (char)0xC3; /* a lead byte followed by ASCII */
        r = cjt_decode_n(bad, len);
        cr_assert(strncmp(r, "ERROR: corrupt ", 15) == 0, "bad UTF-8 at %zu gives %s", k, r);
        bad[k] = saved;
    }
    /* every position replaced by bytes that change the structure */
    static const char subst[] = {'"', '{',  '}', '[', ']',  ',',        ':', '0', '-',
                                 'x', '\\', 'n', ' ', '\0', (char)0xFF, '9', 'e', '.'};
    for (size_t k = 0; k < len; k++) {
        for (size_t s = 0; s < sizeof(subst); s++) {
            char saved = bad[k];
            bad[k] = subst[s];
            cjt_decode_encode(bad, len);
            bad[k] = saved;
        }
    }
    free(bad);
}

#endif
