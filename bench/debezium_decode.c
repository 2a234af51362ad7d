/*
 * bench/debezium_decode.c — throughput of the debezium-json deserializer
 * against yajl itself. Driven by bench/debezium_decode.sh; not a test.
 *
 *   bench_debezium_decode gen FILE N     write N Debezium messages (~500 bytes, mixed c/u/d)
 *   bench_debezium_decode yajl FILE      yajl over every line, empty callbacks (the ceiling)
 *   bench_debezium_decode lex FILE       our parser (json_lex.c) over every line, empty callbacks
 *   bench_debezium_decode decode FILE    the debezium-json deserializer into row batches
 *   bench_debezium_decode rss FILE       decode streaming from the file; print peak RSS (kB)
 *
 * yajl and decode read the whole file into memory first and report the best
 * of 3 runs as "msgs bytes seconds". The ceiling parses each line with yajl
 * through the pooled parser the formats used before json_lex.c
 * (cdc_json_yajlref_parse), whose callbacks do nothing; "yajl-malloc" is the
 * same with plain yajl_alloc/yajl_free per message; "lex" is the parser the
 * formats use now (cdc_json_parser_parse) with the same empty callbacks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cdc_decode.h"
#include "cdc_json.h"
#include "cdc_plugin.h"
#include "json_yajl_ref.h"

#define SCHEMA                                                                                     \
    "id INT NOT NULL, name STRING, description STRING, weight DOUBLE, quantity INT, "              \
    "in_stock BOOLEAN, updated_at TIMESTAMP(3), category STRING"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- generator ------------------------------------------------------------------------------ */

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

static const char *const words[] = {"scooter", "battery", "drill",  "hammer", "rocks",
                                    "jacket",  "tire",    "wrench", "ladder", "lamp"};

static void put_row(FILE *fp, uint32_t id, uint32_t v)
{
    fprintf(fp,
            "{\"id\":%u,\"name\":\"%s %u\",\"description\":\"%s for %s, model %u\","
            "\"weight\":%u.%02u,\"quantity\":%u,\"in_stock\":%s,\"updated_at\":%llu,"
            "\"category\":\"%s\"}",
            id, words[v % 10], v % 1000, words[(v / 10) % 10], words[(v / 100) % 10], v % 97,
            v % 100, v % 89, v % 500, v & 1 ? "true" : "false",
            1589355606000ull + (unsigned long long)(v % 100000000) * 1000, words[(v / 7) % 10]);
}

static int gen(const char *path, long n)
{
    FILE *fp = fopen(path, "w");
    if (!fp)
        return 1;
    for (long i = 0; i < n; i++) {
        uint32_t r = rnd();
        uint32_t id = 1000 + r % 100000;
        int k = r % 20; /* 10 c, 7 u, 3 d */
        char op = k < 10 ? 'c' : k < 17 ? 'u' : 'd';
        fputs("{\"before\":", fp);
        if (op == 'c')
            fputs("null", fp);
        else
            put_row(fp, id, rnd());
        fputs(",\"after\":", fp);
        if (op == 'd')
            fputs("null", fp);
        else
            put_row(fp, id, rnd());
        fprintf(fp,
                ",\"source\":{\"version\":\"2.7.3.Final\",\"connector\":\"mysql\",\"name\":"
                "\"dbserver1\",\"ts_ms\":%llu,\"snapshot\":\"false\",\"db\":\"inventory\","
                "\"table\":\"products\",\"server_id\":223344,\"gtid\":null,\"file\":\"mysql-bin."
                "000003\",\"pos\":%u,\"row\":0,\"thread\":7,\"query\":null},\"op\":\"%c\","
                "\"ts_ms\":%llu,\"transaction\":null}\n",
                1716206600000ull + (unsigned long long)i, 4321 + (unsigned)i, op,
                1716206600123ull + (unsigned long long)i);
    }
    return fclose(fp) != 0;
}

/* ---- input ----------------------------------------------------------------------------------- */

typedef struct input_s {
    char *data;
    size_t len;
    size_t *start, *end;
    long n;
} input_t;

static int load(const char *path, input_t *in)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return -1;
    fseek(fp, 0, SEEK_END);
    in->len = (size_t)ftell(fp);
    fseek(fp, 0, SEEK_SET);
    in->data = malloc(in->len + 1);
    if (fread(in->data, 1, in->len, fp) != in->len) {
        fclose(fp);
        return -1;
    }
    fclose(fp);
    long cap = 1024;
    in->start = malloc(sizeof(size_t) * (size_t)cap);
    in->end = malloc(sizeof(size_t) * (size_t)cap);
    in->n = 0;
    size_t s = 0;
    while (s < in->len) {
        char *nl = memchr(in->data + s, '\n', in->len - s);
        size_t e = nl ? (size_t)(nl - in->data) : in->len;
        if (in->n == cap) {
            cap *= 2;
            in->start = realloc(in->start, sizeof(size_t) * (size_t)cap);
            in->end = realloc(in->end, sizeof(size_t) * (size_t)cap);
        }
        in->start[in->n] = s;
        in->end[in->n] = e;
        in->n++;
        s = e + 1;
    }
    return 0;
}

/* ---- the ceiling: yajl with callbacks that do nothing ---------------------------------------- */

static int cb_null(void *c)
{
    (void)c;
    return 1;
}
static int cb_bool(void *c, int b)
{
    (void)c;
    (void)b;
    return 1;
}
static int cb_num(void *c, const char *s, size_t l)
{
    (void)c;
    (void)s;
    (void)l;
    return 1;
}
static int cb_str(void *c, const unsigned char *s, size_t l)
{
    (void)c;
    (void)s;
    (void)l;
    return 1;
}

static const yajl_callbacks empty_callbacks = {
    .yajl_null = cb_null,
    .yajl_boolean = cb_bool,
    .yajl_number = cb_num,
    .yajl_string = cb_str,
    .yajl_start_map = cb_null,
    .yajl_map_key = cb_str,
    .yajl_end_map = cb_null,
    .yajl_start_array = cb_null,
    .yajl_end_array = cb_null,
};

enum { P_YAJL, P_YAJL_MALLOC, P_LEX };

static double run_parser(const input_t *in, int which)
{
    cdc_json_yajlref_t *ref = cdc_json_yajlref_new(&empty_callbacks, NULL);
    cdc_json_parser_t *p = cdc_json_parser_new(&empty_callbacks, NULL);
    cdc_buf_t err = {0};
    double t0 = now();
    for (long i = 0; i < in->n; i++) {
        const char *m = in->data + in->start[i];
        size_t l = in->end[i] - in->start[i];
        if (which == P_YAJL_MALLOC) {
            yajl_handle h = yajl_alloc(&empty_callbacks, NULL, NULL);
            if (yajl_parse(h, (const unsigned char *)m, l) != yajl_status_ok ||
                yajl_complete_parse(h) != yajl_status_ok)
                abort();
            yajl_free(h);
        } else if (which == P_YAJL) {
            if (cdc_json_yajlref_parse(ref, m, l, &err) != CDC_JSON_PARSE_OK)
                abort();
        } else if (cdc_json_parser_parse(p, m, l, &err) != CDC_JSON_PARSE_OK) {
            abort();
        }
    }
    double t = now() - t0;
    cdc_json_parser_destroy(p);
    cdc_json_yajlref_destroy(ref);
    cdc_buf_free(&err);
    return t;
}

/* ---- our deserializer ------------------------------------------------------------------------ */

typedef struct dec_s {
    cdc_type_t *type;
    cdc_config_t *cfg;
    cdc_deser_t *deser;
} dec_t;

static void dec_open(dec_t *d)
{
    const cdc_format_factory_t *fmt = cdc_registry_format("debezium-json");
    cdc_error_t *err = NULL;
    cdc_kv_t none = {0};
    d->cfg = cdc_config_new(fmt->options, "bench", &none, &err);
    d->type = cdc_schema_parse(SCHEMA, &err);
    cdc_format_ctx_t ctx = {.cfg = d->cfg, .row_type = d->type, .table = "bench"};
    if (!d->cfg || !d->type || fmt->deser_new(&ctx, &d->deser, &err) < 0) {
        fprintf(stderr, "set-up failed: %s\n", err ? err->message : "?");
        exit(2);
    }
}

static void dec_close(dec_t *d)
{
    d->deser->ops->destroy(d->deser);
    cdc_type_destroy(d->type);
    cdc_config_destroy(d->cfg);
}

static double run_decode(const input_t *in, long *rows)
{
    dec_t d;
    dec_open(&d);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    *rows = 0;
    double t0 = now();
    for (long i = 0; i < in->n; i++) {
        if (d.deser->ops->decode(d.deser, in->data + in->start[i], in->end[i] - in->start[i],
                                 &batch) != CDC_DECODE_OK) {
            fprintf(stderr, "line %ld: %s\n", i + 1, cdc_buf_cstr(&d.deser->errmsg));
            exit(2);
        }
        if (batch.n >= 512) {
            *rows += batch.n;
            cdc_batch_reset(&batch);
        }
    }
    *rows += batch.n;
    double t = now() - t0;
    cdc_batch_free(&batch);
    dec_close(&d);
    return t;
}

/* Streams the file line by line (as `cdcflow decode` does) and reports peak RSS. */
static int rss(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 1;
    dec_t d;
    dec_open(&d);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long msgs = 0;
    while ((n = getline(&line, &cap, fp)) > 0) {
        if (line[n - 1] == '\n')
            n--;
        if (d.deser->ops->decode(d.deser, line, (size_t)n, &batch) != CDC_DECODE_OK)
            return 2;
        msgs++;
        if (batch.n >= 512)
            cdc_batch_reset(&batch);
    }
    free(line);
    fclose(fp);
    cdc_batch_free(&batch);
    dec_close(&d);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%ld %ld\n", msgs, ru.ru_maxrss);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "gen") == 0)
        return gen(argv[2], atol(argv[3]));
    if (argc >= 3 && strcmp(argv[1], "rss") == 0)
        return rss(argv[2]);
    if (argc < 3) {
        fprintf(stderr,
                "usage: %s gen FILE N | yajl FILE | yajl-malloc FILE | lex FILE | decode FILE | "
                "rss FILE\n",
                argv[0]);
        return 2;
    }
    input_t in;
    if (load(argv[2], &in) < 0) {
        perror(argv[2]);
        return 2;
    }
    double best = 1e30;
    long rows = 0;
    for (int r = 0; r < 3; r++) {
        double t;
        if (strcmp(argv[1], "yajl") == 0)
            t = run_parser(&in, P_YAJL);
        else if (strcmp(argv[1], "yajl-malloc") == 0)
            t = run_parser(&in, P_YAJL_MALLOC);
        else if (strcmp(argv[1], "lex") == 0)
            t = run_parser(&in, P_LEX);
        else if (strcmp(argv[1], "decode") == 0)
            t = run_decode(&in, &rows);
        else
            return 2;
        if (t < best)
            best = t;
    }
    printf("%ld %zu %.6f %ld\n", in.n, in.len, best, rows);
    free(in.data);
    free(in.start);
    free(in.end);
    return 0;
}
