/*
 * bench/avro_decode.c — driver of bench/avro_decode.sh: Debezium-shaped Avro
 * records (an envelope with before/after of 8 columns, source, op, ts_ms),
 * written by Avro C's generic writer, decoded by our debezium-avro-confluent
 * deserializer and by Avro C's own generic reading (avro_value_read into a
 * reused generic value, every field touched) as the ceiling.
 *
 *   bench_avro_decode schema          prints the writer schema (to register it)
 *   bench_avro_decode run URL ID N    decodes N records of schema id ID (best of 3 each)
 */
#include <avro.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cdc_plugin.h"

#define NULLABLE(t) "[\"null\"," t "]"
static const char *const schema_json =
    "{\"type\":\"record\",\"name\":\"Envelope\",\"namespace\":\"inventory.products\",\"fields\":["
    "{\"name\":\"before\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"Value\","
    "\"fields\":[{\"name\":\"id\",\"type\":\"int\"},"
    "{\"name\":\"name\",\"type\":" NULLABLE(
        "\"string\"") "},"
                      "{\"name\":\"description\",\"type\":" NULLABLE(
                          "\"string\"") "},"
                                        "{\"name\":\"weight\",\"type\":" NULLABLE(
                                            "\"double\"") "},"
                                                          "{\"name\":\"quantity\","
                                                          "\"type\":" NULLABLE(
                                                              "\"int\"") "},"
                                                                         "{\"name\":\"in_stock\","
                                                                         "\"type\":" NULLABLE(
                                                                             "\"boolean\"") "},"
                                                                                            "{\"nam"
                                                                                            "e\":"
                                                                                            "\"upda"
                                                                                            "ted_"
                                                                                            "at\","
                                                                                            "\"type"
                                                                                            "\""
                                                                                            ":" NULLABLE(
                                                                                                "{"
                                                                                                "\""
                                                                                                "ty"
                                                                                                "pe"
                                                                                                "\""
                                                                                                ":"
                                                                                                "\""
                                                                                                "lo"
                                                                                                "ng"
                                                                                                "\""
                                                                                                ","
                                                                                                "\""
                                                                                                "co"
                                                                                                "nn"
                                                                                                "ec"
                                                                                                "t."
                                                                                                "na"
                                                                                                "me"
                                                                                                "\""
                                                                                                ":"
                                                                                                "\""
                                                                                                "io"
                                                                                                ".d"
                                                                                                "eb"
                                                                                                "ez"
                                                                                                "iu"
                                                                                                "m."
                                                                                                "ti"
                                                                                                "me"
                                                                                                ".M"
                                                                                                "ic"
                                                                                                "ro"
                                                                                                "Ti"
                                                                                                "me"
                                                                                                "st"
                                                                                                "am"
                                                                                                "p"
                                                                                                "\""
                                                                                                "}") "},"
                                                                                                     "{\"name\":\"category\",\"type\":" NULLABLE(
                                                                                                         "\"string\"") "}]}],\"default\":null},"
                                                                                                                       "{\"name\":\"after\",\"type\":[\"null\",\"Value\"],\"default\":null},"
                                                                                                                       "{\"name\":\"source\",\"type\":{\"type\":\"record\",\"name\":\"Source\",\"fields\":["
                                                                                                                       "{\"name\":\"version\",\"type\":\"string\"},{\"name\":\"connector\",\"type\":\"string\"},"
                                                                                                                       "{\"name\":\"ts_ms\",\"type\":\"long\"},{\"name\":\"db\",\"type\":\"string\"},"
                                                                                                                       "{\"name\":\"table\",\"type\":" NULLABLE(
                                                                                                                           "\"string\"") "}]}},"
                                                                                                                                         "{\"name\":\"op\",\"type\":\"string\"},"
                                                                                                                                         "{\"name\":\"ts_ms\",\"type\":" NULLABLE(
                                                                                                                                             "\"long\"") "}]}";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void set_image(avro_value_t *img, int id, int version)
{
    static const char *const cats[] = {"tools", "toys", "garden", "kitchen"};
    char name[32], desc[96];
    snprintf(name, sizeof(name), "product-%d", id);
    snprintf(desc, sizeof(desc), "a fine product number %d, version %d, with a description", id,
             version);
    avro_value_t f, br;
    avro_value_get_by_name(img, "id", &f, NULL);
    avro_value_set_int(&f, id);
#define SET(field, setter, ...)                                                                    \
    avro_value_get_by_name(img, field, &f, NULL);                                                  \
    avro_value_set_branch(&f, 1, &br);                                                             \
    setter(&br, __VA_ARGS__)
    SET("name", avro_value_set_string, name);
    SET("description", avro_value_set_string, desc);
    SET("weight", avro_value_set_double, 0.25 * version);
    SET("quantity", avro_value_set_int, version * 3);
    SET("in_stock", avro_value_set_boolean, version & 1);
    SET("updated_at", avro_value_set_long, 1700000000000000LL + version);
    SET("category", avro_value_set_string, cats[id & 3]);
#undef SET
}

/* N records, each as (uint32 length, 5-byte Confluent header, Avro). */
static char *generate(int id, long n, size_t *size)
{
    avro_schema_t schema;
    if (avro_schema_from_json_length(schema_json, strlen(schema_json), &schema) != 0) {
        fprintf(stderr, "schema: %s\n", avro_strerror());
        exit(1);
    }
    avro_value_iface_t *iface = avro_generic_class_from_schema(schema);
    avro_value_t rec, f, br, src;
    avro_generic_value_new(iface, &rec);
    size_t cap = (size_t)n * 400 + 1024, len = 0;
    char *buf = malloc(cap);
    for (long i = 0; i < n; i++) {
        int r = (int)(i % 20);
        const char *op = r < 10 ? "c" : r < 17 ? "u" : "d";
        int key = (int)(i % 100000) + 1;
        avro_value_reset(&rec);
        avro_value_get_by_name(&rec, "before", &f, NULL);
        avro_value_set_branch(&f, op[0] != 'c', &br);
        if (op[0] != 'c')
            set_image(&br, key, (int)i - 1);
        else
            avro_value_set_null(&br);
        avro_value_get_by_name(&rec, "after", &f, NULL);
        avro_value_set_branch(&f, op[0] != 'd', &br);
        if (op[0] != 'd')
            set_image(&br, key, (int)i);
        else
            avro_value_set_null(&br);
        avro_value_get_by_name(&rec, "source", &src, NULL);
        avro_value_get_by_name(&src, "version", &f, NULL);
        avro_value_set_string(&f, "2.5.0.Final");
        avro_value_get_by_name(&src, "connector", &f, NULL);
        avro_value_set_string(&f, "mysql");
        avro_value_get_by_name(&src, "ts_ms", &f, NULL);
        avro_value_set_long(&f, 1700000000000LL + i);
        avro_value_get_by_name(&src, "db", &f, NULL);
        avro_value_set_string(&f, "inventory");
        avro_value_get_by_name(&src, "table", &f, NULL);
        avro_value_set_branch(&f, 1, &br);
        avro_value_set_string(&br, "products");
        avro_value_get_by_name(&rec, "op", &f, NULL);
        avro_value_set_string(&f, op);
        avro_value_get_by_name(&rec, "ts_ms", &f, NULL);
        avro_value_set_branch(&f, 1, &br);
        avro_value_set_long(&br, 1700000000100LL + i);
        char *p = buf + len + 4;
        p[0] = 0;
        p[1] = (char)(id >> 24);
        p[2] = (char)(id >> 16);
        p[3] = (char)(id >> 8);
        p[4] = (char)id;
        avro_writer_t w = avro_writer_memory(p + 5, (int64_t)(cap - len - 9));
        if (avro_value_write(w, &rec) != 0) {
            fprintf(stderr, "write: %s\n", avro_strerror());
            exit(1);
        }
        uint32_t m = 5 + (uint32_t)avro_writer_tell(w);
        avro_writer_free(w);
        memcpy(buf + len, &m, 4);
        len += 4 + m;
    }
    avro_value_decref(&rec);
    avro_value_iface_decref(iface);
    avro_schema_decref(schema);
    *size = len;
    return buf;
}

/* Every field of a generic value, summed so nothing is optimised away. */
static uint64_t touch(avro_value_t *v)
{
    uint64_t sum = 0;
    switch (avro_value_get_type(v)) {
    case AVRO_RECORD: {
        size_t n = 0;
        avro_value_get_size(v, &n);
        for (size_t i = 0; i < n; i++) {
            avro_value_t f;
            avro_value_get_by_index(v, i, &f, NULL);
            sum += touch(&f);
        }
        return sum;
    }
    case AVRO_UNION: {
        avro_value_t br;
        avro_value_get_current_branch(v, &br);
        return touch(&br);
    }
    case AVRO_STRING: {
        const char *s = "";
        size_t n = 0;
        avro_value_get_string(v, &s, &n);
        return n + (uint8_t)s[0];
    }
    case AVRO_INT32: {
        int32_t x = 0;
        avro_value_get_int(v, &x);
        return (uint64_t)x;
    }
    case AVRO_INT64: {
        int64_t x = 0;
        avro_value_get_long(v, &x);
        return (uint64_t)x;
    }
    case AVRO_DOUBLE: {
        double x = 0;
        avro_value_get_double(v, &x);
        return (uint64_t)(x * 4);
    }
    case AVRO_BOOLEAN: {
        int x = 0;
        avro_value_get_boolean(v, &x);
        return (uint64_t)x;
    }
    default:
        return 1;
    }
}

static double run_avro_c(const char *buf, size_t size, long n, uint64_t *check)
{
    avro_schema_t schema;
    avro_schema_from_json_length(schema_json, strlen(schema_json), &schema);
    avro_value_iface_t *iface = avro_generic_class_from_schema(schema);
    avro_value_t rec;
    avro_generic_value_new(iface, &rec);
    avro_reader_t rd = avro_reader_memory(buf, 0);
    double t0 = now();
    uint64_t sum = 0;
    for (size_t off = 0; off < size;) {
        uint32_t m;
        memcpy(&m, buf + off, 4);
        avro_reader_memory_set_source(rd, buf + off + 9, m - 5);
        avro_value_reset(&rec);
        if (avro_value_read(rd, &rec) != 0) {
            fprintf(stderr, "avro_value_read: %s\n", avro_strerror());
            exit(1);
        }
        sum += touch(&rec);
        off += 4 + m;
    }
    double dt = now() - t0;
    *check = sum;
    avro_reader_free(rd);
    avro_value_decref(&rec);
    avro_value_iface_decref(iface);
    avro_schema_decref(schema);
    return (double)n / dt;
}

static double run_ours(const char *url, const char *buf, size_t size, long n, uint64_t *rows)
{
    cdc_error_t *err = NULL;
    const cdc_format_factory_t *fmt = cdc_registry_format("debezium-avro-confluent");
    cdc_type_t *type = cdc_type_parse(
        "ROW<id INT NOT NULL, name STRING, description STRING, weight DOUBLE, quantity INT, "
        "in_stock BOOLEAN, updated_at TIMESTAMP(6), category STRING>",
        &err);
    cdc_kv_t kv = {0};
    cdc_kv_set(&kv, "url", url);
    cdc_config_t *cfg = cdc_config_new(fmt->options, "debezium-avro-confluent", &kv, &err);
    cdc_kv_free(&kv);
    cdc_format_ctx_t ctx = {.cfg = cfg, .row_type = type, .table = "bench"};
    cdc_deser_t *deser;
    if (fmt->deser_new(&ctx, &deser, &err) < 0) {
        fprintf(stderr, "%s\n", err->message);
        exit(1);
    }
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    uint64_t total = 0;
    double t0 = now();
    long k = 0;
    for (size_t off = 0; off < size; k++) {
        uint32_t m;
        memcpy(&m, buf + off, 4);
        if (deser->ops->decode(deser, buf + off + 4, m, &batch) != CDC_DECODE_OK) {
            fprintf(stderr, "decode: %s\n", cdc_buf_cstr(&deser->errmsg));
            exit(1);
        }
        if (k % 1000 == 999) {
            total += batch.n;
            cdc_batch_reset(&batch);
        }
        off += 4 + m;
    }
    total += batch.n;
    double dt = now() - t0;
    *rows = total;
    cdc_batch_free(&batch);
    deser->ops->destroy(deser);
    cdc_config_destroy(cfg);
    cdc_type_destroy(type);
    return (double)n / dt;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "schema") == 0) {
        puts(schema_json);
        return 0;
    }
    if (argc != 5 || strcmp(argv[1], "run") != 0) {
        fprintf(stderr, "usage: %s schema | run URL ID N\n", argv[0]);
        return 2;
    }
    long n = atol(argv[4]);
    size_t size;
    char *buf = generate(atoi(argv[3]), n, &size);
    printf("records %ld, %.1f MB of Avro (%.0f bytes each)\n", n, (double)size / 1e6,
           (double)size / (double)n);
    double best_c = 0, best_ours = 0;
    uint64_t check = 0, rows = 0;
    for (int r = 0; r < 3; r++) {
        double c = run_avro_c(buf, size, n, &check);
        double o = run_ours(argv[2], buf, size, n, &rows);
        best_c = c > best_c ? c : best_c;
        best_ours = o > best_ours ? o : best_ours;
    }
    printf("ceiling   Avro C generic read (avro_value_read, every field): %10.0f records/s\n",
           best_c);
    printf("decode    debezium-avro-confluent into row batches (%llu rows): %10.0f records/s\n",
           (unsigned long long)rows, best_ours);
    printf("ratio     %.2f (target >= 0.8)\n", best_ours / best_c);
    (void)check;
    free(buf);
    return 0;
}
