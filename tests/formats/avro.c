/*
 * tests/formats/avro.c — the avro, avro-confluent and debezium-avro-confluent
 * formats through their factories: round trips of every type, exact bytes of
 * the encoder, records written by Avro C's own generic writer (independent of
 * our encoder) read back as exact rows, Debezium envelopes with Debezium's and
 * Avro's logical types, and the errors (magic byte, unknown schema id, a field
 * type that does not fit its column, truncated input, authentication). The
 * registry formats run against tests/integration/lib/schema_registry.py,
 * started per test on a free loopback port.
 */
#include <avro.h>
#include <criterion/criterion.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "avro_int.h"
#include "cdc_plugin.h"

typedef struct fx_s {
    const cdc_format_factory_t *fmt;
    cdc_type_t *type;
    cdc_config_t *cfg;
    cdc_deser_t *deser;
    cdc_ser_t *ser;
    cdc_batch_t batch;
    cdc_buf_t text;
    cdc_buf_t out;
    pid_t registry;
    char url[128];
} fx_t;

static fx_t fx;

/* Starts the test registry (extra: its arguments, or NULL) and sets fx.url. */
static void start_registry(const char *extra)
{
    const char *src = getenv("CDC_SOURCE_DIR");
    cr_assert_not_null(src, "CDC_SOURCE_DIR is not set");
    char script[1024];
    snprintf(script, sizeof(script), "%s/tests/integration/lib/schema_registry.py", src);
    int pipefd[2];
    cr_assert_eq(pipe(pipefd), 0);
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* a failed assertion ends the test without close */
        dup2(pipefd[1], 1);
        close(pipefd[0]);
        if (extra)
            execlp("python3", "python3", script, "--user", extra, (char *)NULL);
        else
            execlp("python3", "python3", script, (char *)NULL);
        _exit(127);
    }
    close(pipefd[1]);
    FILE *f = fdopen(pipefd[0], "r");
    cr_assert(fgets(fx.url, sizeof(fx.url), f) != NULL, "the test registry did not start");
    fx.url[strcspn(fx.url, "\n")] = '\0';
    fclose(f);
    fx.registry = pid;
}

/* Opens format name for type with options key, value, ..., NULL. */
static void open_fmt(const char *name, const char *type, ...)
{
    cdc_error_t *err = NULL;
    pid_t reg = fx.registry;
    char url[128];
    memcpy(url, fx.url, sizeof(url));
    memset(&fx, 0, sizeof(fx));
    fx.registry = reg;
    memcpy(fx.url, url, sizeof(url));
    fx.fmt = cdc_registry_format(name);
    cr_assert_not_null(fx.fmt, "no format %s", name);
    fx.type = cdc_type_parse(type, &err);
    cr_assert_not_null(fx.type);
    cdc_kv_t kv = {0};
    va_list ap;
    va_start(ap, type);
    for (const char *k; (k = va_arg(ap, const char *));)
        cdc_kv_set(&kv, k, va_arg(ap, const char *));
    va_end(ap);
    fx.cfg = cdc_config_new(fx.fmt->options, name, &kv, &err);
    cdc_kv_free(&kv);
    cr_assert_not_null(fx.cfg, "options: %s", err ? err->detail : "");
    cdc_format_ctx_t ctx = {.cfg = fx.cfg, .row_type = fx.type, .table = "t"};
    cr_assert_eq(fx.fmt->deser_new(&ctx, &fx.deser, &err), 0, "%s", err ? err->message : "");
    if (fx.fmt->ser_new(&ctx, &fx.ser, &err) < 0) { /* a table read only (no subject) */
        fx.ser = NULL;
        cdc_error_destroy(err);
    }
    cdc_batch_init(&fx.batch);
}

static void close_fmt(void)
{
    fx.deser->ops->destroy(fx.deser);
    if (fx.ser)
        fx.ser->ops->destroy(fx.ser);
    cdc_config_destroy(fx.cfg);
    cdc_type_destroy(fx.type);
    cdc_batch_free(&fx.batch);
    cdc_buf_free(&fx.text);
    cdc_buf_free(&fx.out);
    if (fx.registry > 0) {
        kill(fx.registry, SIGTERM);
        waitpid(fx.registry, NULL, 0);
        fx.registry = 0;
    }
}

/* Decodes msg; returns the printed rows, one a line, or "error: REASON". */
static const char *decode(const void *msg, size_t len)
{
    cdc_batch_reset(&fx.batch);
    cdc_buf_clear(&fx.text);
    int rc = fx.deser->ops->decode(fx.deser, msg, len, &fx.batch);
    if (rc == CDC_DECODE_ERROR) {
        cdc_buf_printf(&fx.text, "error: %s", cdc_buf_cstr(&fx.deser->errmsg));
        return cdc_buf_cstr(&fx.text);
    }
    if (rc == CDC_DECODE_SKIPPED)
        return "skipped";
    for (uint32_t i = 0; i < fx.batch.n; i++) {
        if (i)
            cdc_buf_putc(&fx.text, '\n');
        cdc_row_print(&fx.text, &fx.batch.rows[i], fx.type);
    }
    return cdc_buf_cstr(&fx.text);
}

/* Rows from JSON text through the json format (the source of the round trips). */
static cdc_batch_t json_batch;
static void json_rows(const char *const *lines)
{
    cdc_error_t *err = NULL;
    const cdc_format_factory_t *jf = cdc_registry_format("json");
    cdc_kv_t kv = {0};
    cdc_config_t *cfg = cdc_config_new(jf->options, "json", &kv, &err);
    cdc_format_ctx_t ctx = {.cfg = cfg, .row_type = fx.type, .table = "t"};
    cdc_deser_t *jd;
    cr_assert_eq(jf->deser_new(&ctx, &jd, &err), 0);
    cdc_batch_init(&json_batch);
    for (int i = 0; lines[i]; i++)
        cr_assert_eq(jd->ops->decode(jd, lines[i], strlen(lines[i]), &json_batch), 0, "%s: %s",
                     lines[i], cdc_buf_cstr(&jd->errmsg));
    jd->ops->destroy(jd);
    cdc_config_destroy(cfg);
}

/* Encodes every json_batch row and decodes it again; returns the rows printed. */
static const char *round_trip(void)
{
    cdc_buf_t all = {0};
    for (uint32_t i = 0; i < json_batch.n; i++) {
        cdc_buf_clear(&fx.out);
        int rc = fx.ser->ops->encode(fx.ser, &json_batch.rows[i], &fx.out);
        cr_assert_eq(rc, 0, "encode: %s", cdc_buf_cstr(&fx.ser->errmsg));
        cdc_buf_t copy = {0};
        cdc_buf_append(&copy, fx.out.data, fx.out.len);
        const char *rows = decode(copy.data, copy.len);
        cdc_buf_printf(&all, "%s%s", i ? "\n" : "", rows);
        cdc_buf_free(&copy);
    }
    cdc_batch_free(&json_batch);
    cdc_buf_clear(&fx.text);
    cdc_buf_append(&fx.text, all.data, all.len);
    cdc_buf_free(&all);
    return cdc_buf_cstr(&fx.text);
}

static const char *hex(const cdc_buf_t *b)
{
    static char s[1024];
    for (size_t i = 0; i < b->len && i < 500; i++)
        sprintf(s + 2 * i, "%02x", (unsigned char)b->data[i]);
    s[b->len < 500 ? 2 * b->len : 1000] = '\0';
    return s;
}

/* Registers schema under subject in the test registry (curl, not our client); returns the id. */
static int register_schema(const char *subject, const char *schema)
{
    cdc_buf_t body = {0}, cmd = {0};
    cdc_buf_puts(&body, "{\"schema\":\"");
    for (const char *p = schema; *p; p++) {
        if (*p == '"' || *p == '\\')
            cdc_buf_putc(&body, '\\');
        cdc_buf_putc(&body, *p);
    }
    cdc_buf_puts(&body, "\"}");
    char path[] = "/tmp/avro_test_body_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(write(fd, body.data, body.len) == (ssize_t)body.len);
    close(fd);
    cdc_buf_printf(&cmd,
                   "curl -s -X POST -H 'Content-Type: application/vnd.schemaregistry.v1+json' "
                   "--data-binary @%s %s/subjects/%s/versions",
                   path, fx.url, subject);
    FILE *p = popen(cdc_buf_cstr(&cmd), "r");
    char out[256] = {0};
    cr_assert(fgets(out, sizeof(out), p) != NULL);
    pclose(p);
    unlink(path);
    cdc_buf_free(&body);
    cdc_buf_free(&cmd);
    int id = -1;
    cr_assert_eq(sscanf(out, "{\"id\": %d}", &id), 1, "registry said %s", out);
    return id;
}

/* A record of a schema in Avro C's generic values (the independent writer of these tests). */
typedef struct gen_s {
    avro_schema_t schema;
    avro_value_iface_t *iface;
    avro_value_t rec;
} gen_t;

static void gen_open(gen_t *g, const char *json)
{
    cr_assert_eq(avro_schema_from_json_length(json, strlen(json), &g->schema), 0, "%s",
                 avro_strerror());
    g->iface = avro_generic_class_from_schema(g->schema);
    avro_generic_value_new(g->iface, &g->rec);
}

/* Writes the Confluent header for id and Avro C's bytes of the record to buf; frees g. */
static size_t gen_wire(gen_t *g, int id, char *buf, size_t cap)
{
    buf[0] = 0;
    buf[1] = (char)(id >> 24);
    buf[2] = (char)(id >> 16);
    buf[3] = (char)(id >> 8);
    buf[4] = (char)id;
    avro_writer_t w = avro_writer_memory(buf + 5, (int64_t)cap - 5);
    cr_assert_eq(avro_value_write(w, &g->rec), 0, "%s", avro_strerror());
    size_t n = 5 + (size_t)avro_writer_tell(w);
    avro_writer_free(w);
    avro_value_decref(&g->rec);
    avro_value_iface_decref(g->iface);
    avro_schema_decref(g->schema);
    return n;
}

/* ---- avro (plain) --------------------------------------------------------------------------- */

#define ALL_TYPES                                                                                  \
    "ROW<b BOOLEAN, ti TINYINT, si SMALLINT, i INT NOT NULL, bi BIGINT, f FLOAT, d DOUBLE, "       \
    "dec DECIMAL(10, 2), s STRING, c CHAR(3), bin BYTES, dt DATE, tm TIME(3), ts3 TIMESTAMP(3), "  \
    "ts6 TIMESTAMP(6), ltz TIMESTAMP_LTZ(3), a ARRAY<INT>, m MAP<STRING, BIGINT>, "                \
    "r ROW<x INT, y ARRAY<ROW<z STRING>>>>"

Test(avro, round_trip_every_type)
{
    open_fmt("avro", ALL_TYPES, NULL);
    const char *in[] = {
        "{\"b\":true,\"ti\":-128,\"si\":32767,\"i\":-2147483648,\"bi\":9223372036854775807,"
        "\"f\":1.5,\"d\":-2.25e-3,\"dec\":\"-12345678.91\",\"s\":\"h\\u00e9llo\",\"c\":\"abc\","
        "\"bin\":\"AAEC/w==\",\"dt\":\"1969-12-31\",\"tm\":\"23:59:59.999\","
        "\"ts3\":\"1960-01-01 00:00:00.001\",\"ts6\":\"2020-07-30 10:08:22.123456\","
        "\"ltz\":\"2020-07-30 10:08:22.123Z\",\"a\":[1,null,-3],\"m\":{\"k\":1,\"n\":null},"
        "\"r\":{\"x\":7,\"y\":[{\"z\":\"q\"},{\"z\":null}]}}",
        "{\"i\":0}", "{\"i\":1,\"a\":[],\"m\":{},\"r\":{\"y\":[]},\"s\":\"\",\"bin\":\"\"}", NULL};
    json_rows(in);
    cr_assert_str_eq(round_trip(),
                     "+I[true, -128, 32767, -2147483648, 9223372036854775807, 1.5, -0.00225, "
                     "-12345678.91, h\xc3\xa9llo, abc, x'000102ff', 1969-12-31, 23:59:59.999, "
                     "1960-01-01T00:00:00.001, 2020-07-30T10:08:22.123456, "
                     "2020-07-30T10:08:22.123Z, [1, null, -3], {k=1, n=null}, (7, [(q), (null)])]\n"
                     "+I[null, null, null, 0, null, null, null, null, null, null, null, null, "
                     "null, null, null, null, null, null, null]\n"
                     "+I[null, null, null, 1, null, null, null, null, , null, x'', null, null, "
                     "null, null, null, [], {}, (null, [])]");
    close_fmt();
}

Test(avro, exact_bytes)
{
    open_fmt("avro", "ROW<id INT NOT NULL, name STRING, price DECIMAL(5, 2) NOT NULL>", NULL);
    const char *in[] = {"{\"id\":1,\"name\":\"ab\",\"price\":\"-1.28\"}",
                        "{\"id\":-2,\"name\":null,\"price\":\"1.28\"}", NULL};
    json_rows(in);
    const char *want[] = {"02"
                          "0204"
                          "6162"
                          "02"
                          "80",
                          "03"
                          "00"
                          "04"
                          "0080"};
    for (uint32_t i = 0; i < json_batch.n; i++) {
        cdc_buf_clear(&fx.out);
        cr_assert_eq(fx.ser->ops->encode(fx.ser, &json_batch.rows[i], &fx.out), 0);
        cr_assert_str_eq(hex(&fx.out), want[i]);
    }
    cdc_batch_free(&json_batch);
    close_fmt();
}

Test(avro, errors)
{
    open_fmt("avro", "ROW<id INT NOT NULL, name STRING>", NULL);
    cr_assert_str_eq(decode("\x02\x02\x10"
                            "ab",
                            5),
                     "error: field \"name\" at byte 2: a length of 8 bytes, 2 left in the message");
    cr_assert_str_eq(decode("\x02\x06", 2), "error: field \"name\" at byte 1: union branch 3 of 2");
    cr_assert_str_eq(decode("\x02\x00\x00", 3), "error: at byte 2: 1 bytes left after the record");
    cr_assert_str_eq(decode("\xff", 1),
                     "error: field \"id\" at byte 0: the message ends inside a number");
    close_fmt();
}

Test(avro, ignore_parse_errors)
{
    open_fmt("avro", "ROW<id INT NOT NULL, name STRING>", "ignore-parse-errors", "true", NULL);
    cr_assert_str_eq(decode("\x02\x06", 2), "skipped");
    cr_assert_eq(fx.deser->skipped, 1);
    cr_assert_eq(fx.batch.n, 0);
    cr_assert_str_eq(decode("\x02\x02\x02x", 4), "+I[1, x]");
    close_fmt();
}

/* ---- avro-confluent ---------------------------------------------------------------------------
 */

/* A writer schema unlike the table's: other field order, an extra field, Avro logical types. */
static const char *const writer_schema =
    "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"shop\",\"fields\":["
    "{\"name\":\"extra\",\"type\":{\"type\":\"map\",\"values\":{\"type\":\"array\","
    "\"items\":\"string\"}}},"
    "{\"name\":\"id\",\"type\":\"long\"},"
    "{\"name\":\"price\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\","
    "\"precision\":9,\"scale\":2}},"
    "{\"name\":\"ts\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":"
    "\"timestamp-micros\"}]},"
    "{\"name\":\"day\",\"type\":{\"type\":\"int\",\"logicalType\":\"date\"}},"
    "{\"name\":\"t\",\"type\":{\"type\":\"long\",\"logicalType\":\"time-micros\"}},"
    "{\"name\":\"kind\",\"type\":{\"type\":\"enum\",\"name\":\"Kind\",\"symbols\":[\"A\","
    "\"B\"]}},"
    "{\"name\":\"tag\",\"type\":{\"type\":\"fixed\",\"name\":\"Tag\",\"size\":2}},"
    "{\"name\":\"score\",\"type\":\"float\"}]}";

static size_t write_order(int id, int64_t order, char *buf, size_t cap)
{
    gen_t g;
    gen_open(&g, writer_schema);
    avro_value_t f, br, el;
    avro_value_get_by_name(&g.rec, "extra", &f, NULL);
    avro_value_add(&f, "k", &br, NULL, NULL);
    avro_value_append(&br, &el, NULL);
    avro_value_set_string(&el, "skipped");
    avro_value_get_by_name(&g.rec, "id", &f, NULL);
    avro_value_set_long(&f, order);
    avro_value_get_by_name(&g.rec, "price", &f, NULL);
    avro_value_set_bytes(&f, (void *)"\xff\x38", 2); /* -200: -2.00 */
    avro_value_get_by_name(&g.rec, "ts", &f, NULL);
    avro_value_set_branch(&f, 1, &br);
    avro_value_set_long(&br, 1596103702123456LL); /* 2020-07-30T10:08:22.123456 */
    avro_value_get_by_name(&g.rec, "day", &f, NULL);
    avro_value_set_int(&f, 18473);
    avro_value_get_by_name(&g.rec, "t", &f, NULL);
    avro_value_set_long(&f, 3723000001LL); /* 01:02:03.000001 */
    avro_value_get_by_name(&g.rec, "kind", &f, NULL);
    avro_value_set_enum(&f, 1);
    avro_value_get_by_name(&g.rec, "tag", &f, NULL);
    avro_value_set_fixed(&f, (void *)"ok", 2);
    avro_value_get_by_name(&g.rec, "score", &f, NULL);
    avro_value_set_float(&f, 0.5f);
    return gen_wire(&g, id, buf, cap);
}

Test(avro_confluent, decode_avro_c_writer)
{
    start_registry(NULL);
    int id = register_schema("orders-value", writer_schema);
    open_fmt("avro-confluent",
             "ROW<id BIGINT NOT NULL, price DECIMAL(10, 3), ts TIMESTAMP(6), day DATE, t TIME(6), "
             "kind STRING, tag BYTES, score DOUBLE, absent STRING>",
             "url", fx.url, "subject", "x-value", NULL);
    char buf[512];
    size_t n = write_order(id, 42, buf, sizeof(buf));
    cr_assert_str_eq(decode(buf, n), "+I[42, -2.000, 2020-07-30T10:08:22.123456, 2020-07-30, "
                                     "01:02:03.000001, B, x'6f6b', 0.5, null]");
    /* the second message with the same id comes from the cache */
    n = write_order(id, 43, buf, sizeof(buf));
    cr_assert_str_eq(decode(buf, n), "+I[43, -2.000, 2020-07-30T10:08:22.123456, 2020-07-30, "
                                     "01:02:03.000001, B, x'6f6b', 0.5, null]");
    close_fmt();
}

Test(avro_confluent, round_trip_and_errors)
{
    start_registry(NULL);
    open_fmt("avro-confluent", ALL_TYPES, "url", fx.url, "subject", "t-value", NULL);
    const char *in[] = {"{\"i\":5,\"s\":\"x\",\"dec\":\"1.5\",\"a\":[2],\"r\":{\"x\":1}}", NULL};
    json_rows(in);
    cr_assert_str_eq(round_trip(), "+I[null, null, null, 5, null, null, null, 1.50, x, null, "
                                   "null, null, null, null, null, null, [2], null, (1, null)]");
    /* the header: magic 0 and the id the registry gave (the first: 1) */
    cr_assert_eq(fx.out.data[0], 0);
    cr_assert_eq(memcmp(fx.out.data + 1, "\0\0\0\1", 4), 0);

    cr_assert_str_eq(decode("{\"i\":1}", 7),
                     "error: at byte 0: unknown magic byte 0x7b (the Confluent wire format starts "
                     "with 0x00, a 4-byte schema id and the Avro data); the message looks like "
                     "JSON: use a JSON format");
    cr_assert_str_eq(decode("\0\0\0", 3),
                     "error: at byte 3: the message ends inside the 5-byte Confluent header");
    char want[512];
    snprintf(want, sizeof(want),
             "error: unknown schema id 999: GET %s/schemas/ids/999 answered HTTP 404: "
             "{\"error_code\": 40403, \"message\": \"Schema 999 not found\"} (was the message "
             "written against another registry? check the format's url)",
             fx.url);
    cr_assert_str_eq(decode("\0\0\0\x03\xe7\x02", 6), want);
    /* truncated after the header: the byte offset counts the header */
    cr_assert_str_eq(decode("\0\0\0\0\1\x02", 6),
                     "error: field \"b\" at byte 6: the message ends inside a boolean");
    close_fmt();
}

Test(avro_confluent, type_mismatch)
{
    start_registry(NULL);
    int id = register_schema("orders-value", writer_schema);
    open_fmt("avro-confluent", "ROW<id INT, kind INT>", "url", fx.url, NULL);
    char buf[512], want[512];
    size_t n = write_order(id, 42, buf, sizeof(buf));
    snprintf(want, sizeof(want),
             "error: writer schema id %d (%s): field \"kind\": the writer schema has enum, the "
             "column is INT; hint: declare the column with a type that Avro type maps to "
             "(README, \"Avro formats\", type mapping), or fix the writer's schema",
             id, fx.url);
    cr_assert_str_eq(decode(buf, n), want);
    close_fmt();
    /* a long that does not fit INT is a per-record error with the field and the byte */
    start_registry(NULL);
    id = register_schema("orders-value", writer_schema);
    open_fmt("avro-confluent", "ROW<id INT>", "url", fx.url, NULL);
    n = write_order(id, 1LL << 40, buf, sizeof(buf));
    cr_assert_str_eq(decode(buf, n),
                     "error: field \"id\" at byte 19: 1099511627776 does not fit INT");
    close_fmt();
}

Test(avro_confluent, basic_auth)
{
    start_registry("alice:secret");
    open_fmt("avro-confluent", "ROW<id INT NOT NULL>", "url", fx.url, "subject", "a-value",
             "basic-auth.credentials-source", "USER_INFO", "basic-auth.user-info", "alice:secret",
             NULL);
    const char *in[] = {"{\"id\":3}", NULL};
    json_rows(in);
    cr_assert_str_eq(round_trip(), "+I[3]");
    fx.deser->ops->destroy(fx.deser);
    fx.ser->ops->destroy(fx.ser);
    cdc_config_destroy(fx.cfg);
    cdc_kv_t kv = {0};
    cdc_kv_set(&kv, "url", fx.url);
    cdc_kv_set(&kv, "subject", "a-value");
    cdc_error_t *err = NULL;
    fx.cfg = cdc_config_new(fx.fmt->options, "avro-confluent", &kv, &err);
    cdc_kv_free(&kv);
    cdc_format_ctx_t ctx = {.cfg = fx.cfg, .row_type = fx.type, .table = "t"};
    cr_assert_eq(fx.fmt->deser_new(&ctx, &fx.deser, &err), 0);
    cr_assert_eq(fx.fmt->ser_new(&ctx, &fx.ser, &err), 0);
    cdc_buf_clear(&fx.out);
    cdc_row_t row = {.kind = CDC_INSERT, .arity = 1, .values = &(cdc_value_t){.v.i = 3}};
    cr_assert_eq(fx.ser->ops->encode(fx.ser, &row, &fx.out), -1);
    char want[512];
    snprintf(want, sizeof(want),
             "format \"avro-confluent\": registering the schema under subject \"a-value\" "
             "failed: POST %s/subjects/a-value/versions answered HTTP 401: {\"error_code\": 401, "
             "\"message\": \"Unauthorized\"}; hint: check basic-auth.user-info or "
             "bearer-auth.token",
             fx.url);
    cr_assert_str_eq(cdc_buf_cstr(&fx.ser->errmsg), want);
    close_fmt();
}

/* ---- debezium-avro-confluent ------------------------------------------------------------------
 */

/* Debezium's own Avro shape (io.confluent AvroConverter of a MySQL/PostgreSQL connector). */
static const char *const dbz_schema =
    "{\"type\":\"record\",\"name\":\"Envelope\",\"namespace\":\"dbserver1.inventory.products\","
    "\"fields\":["
    "{\"name\":\"before\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"Value\",\"fields\":["
    "{\"name\":\"id\",\"type\":\"int\"},"
    "{\"name\":\"name\",\"type\":\"string\"},"
    "{\"name\":\"price\",\"type\":[\"null\",{\"type\":\"bytes\",\"scale\":2,\"precision\":10,"
    "\"connect.version\":1,\"connect.parameters\":{\"scale\":\"2\",\"connect.decimal.precision\":"
    "\"10\"},\"connect.name\":\"org.apache.kafka.connect.data.Decimal\",\"logicalType\":"
    "\"decimal\"}],\"default\":null},"
    "{\"name\":\"created\",\"type\":[\"null\",{\"type\":\"long\",\"connect.version\":1,"
    "\"connect.name\":\"io.debezium.time.MicroTimestamp\"}],\"default\":null},"
    "{\"name\":\"updated\",\"type\":[\"null\",{\"type\":\"string\",\"connect.version\":1,"
    "\"connect.name\":\"io.debezium.time.ZonedTimestamp\"}],\"default\":null},"
    "{\"name\":\"day\",\"type\":[\"null\",{\"type\":\"int\",\"connect.version\":1,"
    "\"connect.name\":\"io.debezium.time.Date\"}],\"default\":null},"
    "{\"name\":\"at\",\"type\":[\"null\",{\"type\":\"long\",\"connect.version\":1,"
    "\"connect.name\":\"io.debezium.time.MicroTime\"}],\"default\":null},"
    "{\"name\":\"ms\",\"type\":[\"null\",{\"type\":\"long\",\"connect.version\":1,"
    "\"connect.name\":\"io.debezium.time.Timestamp\"}],\"default\":null},"
    "{\"name\":\"flag\",\"type\":[\"null\",\"boolean\"],\"default\":null}"
    "],\"connect.name\":\"dbserver1.inventory.products.Value\"}],\"default\":null},"
    "{\"name\":\"after\",\"type\":[\"null\",\"Value\"],\"default\":null},"
    "{\"name\":\"source\",\"type\":{\"type\":\"record\",\"name\":\"Source\",\"namespace\":"
    "\"io.debezium.connector.mysql\",\"fields\":[{\"name\":\"version\",\"type\":\"string\"},"
    "{\"name\":\"connector\",\"type\":\"string\"},{\"name\":\"ts_ms\",\"type\":\"long\"},"
    "{\"name\":\"snapshot\",\"type\":[{\"type\":\"string\",\"connect.version\":1,"
    "\"connect.parameters\":{\"allowed\":\"true,last,false,incremental\"},\"connect.default\":"
    "\"false\",\"connect.name\":\"io.debezium.data.Enum\"},\"null\"],\"default\":\"false\"},"
    "{\"name\":\"db\",\"type\":\"string\"},{\"name\":\"table\",\"type\":[\"null\",\"string\"],"
    "\"default\":null}]}},"
    "{\"name\":\"op\",\"type\":\"string\"},"
    "{\"name\":\"ts_ms\",\"type\":[\"null\",\"long\"],\"default\":null},"
    "{\"name\":\"transaction\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"block\","
    "\"namespace\":\"event\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},"
    "{\"name\":\"total_order\",\"type\":\"long\"},{\"name\":\"data_collection_order\","
    "\"type\":\"long\"}]}],\"default\":null}],"
    "\"connect.name\":\"dbserver1.inventory.products.Envelope\"}";

static void set_image(avro_value_t *img, int id, const char *name, int cents)
{
    avro_value_t f, br;
    avro_value_get_by_name(img, "id", &f, NULL);
    avro_value_set_int(&f, id);
    avro_value_get_by_name(img, "name", &f, NULL);
    avro_value_set_string(&f, name);
    avro_value_get_by_name(img, "price", &f, NULL);
    avro_value_set_branch(&f, 1, &br);
    char b[2] = {(char)(cents >> 8), (char)cents};
    avro_value_set_bytes(&br, b, 2);
    avro_value_get_by_name(img, "created", &f, NULL);
    avro_value_set_branch(&f, 1, &br);
    avro_value_set_long(&br, 1577836800000001LL); /* 2020-01-01T00:00:00.000001 */
    avro_value_get_by_name(img, "updated", &f, NULL);
    avro_value_set_branch(&f, 1, &br);
    avro_value_set_string(&br, "2020-01-01T10:00:00.5+02:00");
    avro_value_get_by_name(img, "day", &f, NULL);
    avro_value_set_branch(&f, 1, &br);
    avro_value_set_int(&br, -1);
    avro_value_get_by_name(img, "at", &f, NULL);
    avro_value_set_branch(&f, 1, &br);
    avro_value_set_long(&br, 45296789000LL); /* 12:34:56.789 */
    avro_value_get_by_name(img, "ms", &f, NULL);
    avro_value_set_branch(&f, 1, &br);
    avro_value_set_long(&br, -1); /* 1969-12-31T23:59:59.999 */
    avro_value_get_by_name(img, "flag", &f, NULL);
    avro_value_set_branch(&f, 0, &br);
    avro_value_set_null(&br);
}

/* One Debezium event written by Avro C: op and which images (b: before, a: after). */
static size_t write_event(int id, const char *op, bool b, bool a, char *buf, size_t cap)
{
    gen_t g;
    gen_open(&g, dbz_schema);
    avro_value_t f, br, src;
    avro_value_get_by_name(&g.rec, "before", &f, NULL);
    avro_value_set_branch(&f, b, &br);
    if (b)
        set_image(&br, 1, "old", 150);
    else
        avro_value_set_null(&br);
    avro_value_get_by_name(&g.rec, "after", &f, NULL);
    avro_value_set_branch(&f, a, &br);
    if (a)
        set_image(&br, 1, "scooter", 314);
    else
        avro_value_set_null(&br);
    avro_value_get_by_name(&g.rec, "source", &src, NULL);
    avro_value_get_by_name(&src, "version", &f, NULL);
    avro_value_set_string(&f, "2.5.0.Final");
    avro_value_get_by_name(&src, "connector", &f, NULL);
    avro_value_set_string(&f, "mysql");
    avro_value_get_by_name(&src, "ts_ms", &f, NULL);
    avro_value_set_long(&f, 1700000000000LL);
    avro_value_get_by_name(&src, "snapshot", &f, NULL);
    avro_value_set_branch(&f, 0, &br);
    avro_value_set_string(&br, "false");
    avro_value_get_by_name(&src, "db", &f, NULL);
    avro_value_set_string(&f, "inventory");
    avro_value_get_by_name(&src, "table", &f, NULL);
    avro_value_set_branch(&f, 1, &br);
    avro_value_set_string(&br, "products");
    avro_value_get_by_name(&g.rec, "op", &f, NULL);
    avro_value_set_string(&f, op);
    avro_value_get_by_name(&g.rec, "ts_ms", &f, NULL);
    avro_value_set_branch(&f, 1, &br);
    avro_value_set_long(&br, 1700000000100LL);
    avro_value_get_by_name(&g.rec, "transaction", &f, NULL);
    avro_value_set_branch(&f, 0, &br);
    avro_value_set_null(&br);
    return gen_wire(&g, id, buf, cap);
}

#define DBZ_TABLE                                                                                  \
    "ROW<id INT NOT NULL, name STRING, price DECIMAL(10, 2), created TIMESTAMP(6), "               \
    "updated TIMESTAMP_LTZ(3), day DATE, at TIME(3), ms TIMESTAMP(3), flag BOOLEAN>"

Test(debezium_avro_confluent, decode_debezium_events)
{
    start_registry(NULL);
    int id = register_schema("dbserver1.inventory.products-value", dbz_schema);
    open_fmt("debezium-avro-confluent", DBZ_TABLE, "url", fx.url, NULL);
    char buf[1024];
    const char *img_old = "1, old, 1.50, 2020-01-01T00:00:00.000001, 2020-01-01T08:00:00.500Z, "
                          "1969-12-31, 12:34:56.789, 1969-12-31T23:59:59.999, null]";
    const char *img_new = "1, scooter, 3.14, 2020-01-01T00:00:00.000001, "
                          "2020-01-01T08:00:00.500Z, 1969-12-31, 12:34:56.789, "
                          "1969-12-31T23:59:59.999, null]";
    char want[1024];
    size_t n = write_event(id, "c", false, true, buf, sizeof(buf));
    snprintf(want, sizeof(want), "+I[%s", img_new);
    cr_assert_str_eq(decode(buf, n), want);
    n = write_event(id, "r", false, true, buf, sizeof(buf));
    cr_assert_str_eq(decode(buf, n), want);
    n = write_event(id, "u", true, true, buf, sizeof(buf));
    snprintf(want, sizeof(want), "-U[%s\n+U[%s", img_old, img_new);
    cr_assert_str_eq(decode(buf, n), want);
    n = write_event(id, "d", true, false, buf, sizeof(buf));
    snprintf(want, sizeof(want), "-D[%s", img_old);
    cr_assert_str_eq(decode(buf, n), want);
    n = write_event(id, "u", false, true, buf, sizeof(buf));
    cr_assert_str_eq(decode(buf, n), "error: op \"u\" with a null \"before\"; for PostgreSQL set "
                                     "REPLICA IDENTITY FULL on the table");
    n = write_event(id, "x", false, true, buf, sizeof(buf));
    cr_assert_str_eq(decode(buf, n), "error: unknown op \"x\" (expected c, r, u, d, t or m)");
    cr_assert_str_eq(decode(NULL, 0), ""); /* tombstone */
    close_fmt();
}

Test(debezium_avro_confluent, round_trip)
{
    start_registry(NULL);
    open_fmt("debezium-avro-confluent", "ROW<id INT NOT NULL, v STRING>", "url", fx.url, "subject",
             "t-value", NULL);
    const char *in[] = {"{\"id\":1,\"v\":\"a\"}", NULL};
    json_rows(in);
    json_batch.rows[0].kind = CDC_UPDATE_BEFORE;
    cr_assert_str_eq(round_trip(), "-D[1, a]");
    json_rows(in);
    json_batch.rows[0].kind = CDC_UPDATE_AFTER;
    cr_assert_str_eq(round_trip(), "+I[1, a]");
    close_fmt();
}

/* PostgreSQL's NUMERIC without a scale (VariableScaleDecimal) and an array of Decimal. */
static const char *const vsd_schema =
    "{\"type\":\"record\",\"name\":\"Value\",\"namespace\":\"pg.public.t\",\"fields\":["
    "{\"name\":\"n\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"VariableScaleDecimal\","
    "\"namespace\":\"io.debezium.data\",\"fields\":[{\"name\":\"scale\",\"type\":\"int\"},"
    "{\"name\":\"value\",\"type\":\"bytes\"}],\"connect.name\":"
    "\"io.debezium.data.VariableScaleDecimal\"}]},"
    "{\"name\":\"prices\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"bytes\","
    "\"connect.name\":\"org.apache.kafka.connect.data.Decimal\",\"connect.parameters\":"
    "{\"scale\":\"1\"}}}}]}";

static size_t write_vsd(int id, int scale, const char *value, size_t vlen, char *buf, size_t cap)
{
    gen_t g;
    gen_open(&g, vsd_schema);
    avro_value_t f, br, el;
    avro_value_get_by_name(&g.rec, "n", &f, NULL);
    avro_value_set_branch(&f, 1, &br);
    avro_value_get_by_name(&br, "scale", &el, NULL);
    avro_value_set_int(&el, scale);
    avro_value_get_by_name(&br, "value", &el, NULL);
    avro_value_set_bytes(&el, (void *)value, vlen);
    avro_value_get_by_name(&g.rec, "prices", &f, NULL);
    avro_value_append(&f, &el, NULL);
    avro_value_set_bytes(&el, (void *)"\x7b", 1); /* 12.3 */
    avro_value_append(&f, &el, NULL);
    avro_value_set_bytes(&el, (void *)"\xff\x85", 2); /* -12.3 */
    return gen_wire(&g, id, buf, cap);
}

Test(debezium_avro_confluent, variable_scale_decimal_and_decimal_arrays)
{
    start_registry(NULL);
    int id = register_schema("pg.public.t-value", vsd_schema);
    open_fmt("avro-confluent", "ROW<n DECIMAL(10, 2), prices ARRAY<DECIMAL(5, 2)>>", "url", fx.url,
             NULL);
    char buf[256];
    size_t n = write_vsd(id, 3, "\x30\x39", 2, buf, sizeof(buf)); /* 12.345 -> 12.35 (HALF_UP) */
    cr_assert_str_eq(decode(buf, n), "+I[12.35, [12.30, -12.30]]");
    n = write_vsd(id, 0, "\xfe", 1, buf, sizeof(buf)); /* -2 */
    cr_assert_str_eq(decode(buf, n), "+I[-2.00, [12.30, -12.30]]");
    n = write_vsd(id, 0, "\x3b\x9a\xca\x00", 4, buf, sizeof(buf)); /* 1e9 */
    cr_assert_str_eq(decode(buf, n),
                     "error: field \"n\" at byte 6: a decimal that does not fit DECIMAL(10, 2)");
    close_fmt();
}

/* ---- regressions found by fuzz/avro_decode.c ----------------------------------------------------
 */

Test(avro, regress_recursive_schema_depth)
{
    /* a record holding an array of itself: data may nest without end; the reader stops at 128 */
    const char *schema = "{\"type\":\"record\",\"name\":\"N\",\"fields\":[{\"name\":\"id\","
                         "\"type\":\"int\"},{\"name\":\"kids\",\"type\":{\"type\":\"array\","
                         "\"items\":\"N\"}}]}";
    char *why = NULL;
    av_schema_t *s = av_schema_parse(schema, strlen(schema), &why);
    cr_assert_not_null(s, "%s", why);
    cdc_error_t *err = NULL;
    cdc_type_t *t = cdc_type_parse("ROW<id INT>", &err);
    av_resolved_t *res = av_resolve(s, t, &err);
    cr_assert_not_null(res);
    static uint8_t data[3000];
    for (int i = 0; i < 1000; i++) { /* id 0, one kid, ... */
        data[2 * i] = 0;
        data[2 * i + 1] = 2;
    }
    cdc_arena_t arena;
    cdc_arena_init(&arena);
    cdc_buf_t msg = {0};
    av_reader_t rd = {
        .p = data, .start = data, .end = data + sizeof(data), .arena = &arena, .err = &msg};
    cdc_value_t v[1];
    cr_assert_eq(av_read_record(&rd, res->root, v), -1);
    cr_assert_str_eq(cdc_buf_cstr(&msg), "at byte 129: values nested more than 128 levels deep");
    cdc_buf_free(&msg);
    cdc_arena_free(&arena);
    av_resolved_destroy(res);
    cdc_type_destroy(t);
}

Test(avro, regress_name_defined_twice)
{
    /* Avro C leaks on this one: our parser refuses it first */
    const char *schema = "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":"
                         "{\"type\":\"enum\",\"name\":\"F\",\"symbols\":[\"A\"]}},{\"name\":\"b\","
                         "\"type\":{\"type\":\"fixed\",\"name\":\"F\",\"size\":2}}]}";
    char *why = NULL;
    cr_assert_null(av_schema_parse(schema, strlen(schema), &why));
    cr_assert_str_eq(why, "the name \"F\" is defined twice");
    free(why);
}
