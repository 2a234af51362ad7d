/*
 * bench/pg_sink.c — Debezium changes from a file applied to a database by the
 * "jdbc" sink, through the C API (there is no file source yet). Driven by
 * bench/pg_sink.sh (PostgreSQL) and bench/mysql_sink.sh (MariaDB); not a test.
 *
 *   bench_pg_sink gen FILE N KEYS    write N Debezium messages over KEYS keys
 *                                    (50% c, 35% u, 15% d) for the table
 *                                    t(id BIGINT PK, name, description, weight, qty)
 *   bench_pg_sink run FILE URL       debezium-json decoder -> jdbc sink (table "t",
 *                                    sink.buffer-flush.max-rows $MAX_ROWS, default
 *                                    5000; username and password from $SINK_USERNAME,
 *                                    $SINK_PASSWORD when set; URL "-" decodes only);
 *                                    prints "messages rows seconds"
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cdc_decode.h"
#include "cdc_plugin.h"

#define SCHEMA "id BIGINT NOT NULL, name STRING, description STRING, weight DOUBLE, qty INT"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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
            "\"weight\":%u.%02u,\"qty\":%u}",
            id, words[v % 10], v % 1000, words[(v / 10) % 10], words[(v / 100) % 10], v % 97,
            v % 100, v % 89, v % 500);
}

static int gen(const char *path, long n, long keys)
{
    FILE *fp = fopen(path, "w");
    if (!fp)
        return 1;
    for (long i = 0; i < n; i++) {
        uint32_t r = rnd();
        uint32_t id = 1 + r % (uint32_t)keys;
        int k = (r >> 20) % 20; /* 10 c, 7 u, 3 d */
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
                ",\"source\":{\"version\":\"2.7.3.Final\",\"connector\":\"postgresql\",\"name\":"
                "\"dbserver1\",\"ts_ms\":%llu,\"db\":\"inventory\",\"table\":\"t\"},"
                "\"op\":\"%c\",\"ts_ms\":%llu,\"transaction\":null}\n",
                1716206600000ull + (unsigned long long)i, op,
                1716206600123ull + (unsigned long long)i);
    }
    return fclose(fp) != 0;
}

static void die(const char *what, cdc_error_t *err)
{
    fprintf(stderr, "%s: %s\n%s\n", what, err ? err->message : "?",
            err && err->detail ? err->detail : "");
    exit(2);
}

static int run(const char *path, const char *url)
{
    cdc_error_t *err = NULL;
    /* the decoder */
    const cdc_format_factory_t *fmt = cdc_registry_format("debezium-json");
    cdc_kv_t none = {0};
    cdc_config_t *fcfg = cdc_config_new(fmt->options, "bench", &none, &err);
    cdc_type_t *type = cdc_schema_parse(SCHEMA, &err);
    if (!fcfg || !type)
        die("decoder set-up", err);
    cdc_format_ctx_t fctx = {.cfg = fcfg, .row_type = type, .table = "t"};
    cdc_deser_t *deser = NULL;
    if (fmt->deser_new(&fctx, &deser, &err) < 0)
        die("decoder set-up", err);
    /* the sink */
    const cdc_connector_factory_t *jdbc = cdc_registry_connector("jdbc");
    cdc_kv_t kv = {0};
    bool decode_only = strcmp(url, "-") == 0; /* "-": the decoder alone, for comparison */
    cdc_kv_set(&kv, "url", decode_only ? "jdbc:sqlite::memory:" : url);
    cdc_kv_set(&kv, "table-name", "t");
    const char *user = getenv("SINK_USERNAME"), *password = getenv("SINK_PASSWORD");
    if (user && *user) /* bench/mysql_sink.sh logs in as a user with a password */
        cdc_kv_set(&kv, "username", user);
    if (password && *password)
        cdc_kv_set(&kv, "password", password);
    const char *max_rows = getenv("MAX_ROWS"); /* bench/pg_sink.sh passes it on */
    cdc_kv_set(&kv, "sink.buffer-flush.max-rows", max_rows && *max_rows ? max_rows : "5000");
    cdc_kv_set(&kv, "sink.buffer-flush.interval", "1 h");
    cdc_option_scope_t scope = {
        .defs = jdbc->options, .prefix = "", .label = "connector \"jdbc\"", .check = jdbc->check};
    cdc_config_t *scfg = NULL;
    if (cdc_options_validate(&scope, 1, &kv, &scfg, &err) < 0 || err)
        die("sink options", err);
    int pk[] = {0};
    cdc_table_ctx_t sctx = {
        .name = "bench.db.t", .schema = type, .pk = pk, .npk = 1, .cfg = scfg, .parallelism = 1};
    cdc_sink_t *sink = NULL;
    cdc_writer_t *writer = NULL;
    if (!decode_only && (jdbc->sink_new(&sctx, &sink, &err) < 0 ||
                         sink->ops->open_writer(sink, 0, 1, &writer, &err) < 0))
        die("sink set-up", err);

    FILE *fp = fopen(path, "rb");
    if (!fp) {
        perror(path);
        return 2;
    }
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long msgs = 0, rows = 0;
    double t0 = now();
    while ((n = getline(&line, &cap, fp)) > 0) {
        if (line[n - 1] == '\n')
            n--;
        if (deser->ops->decode(deser, line, (size_t)n, &batch) != CDC_DECODE_OK) {
            fprintf(stderr, "line %ld: %s\n", msgs + 1, cdc_buf_cstr(&deser->errmsg));
            return 2;
        }
        msgs++;
        /* the decoded strings point into line: hand them to the sink (which copies what it
           buffers) before the next getline */
        rows += batch.n;
        if (writer && writer->ops->write(writer, &batch, &err) < 0)
            die("write", err);
        cdc_batch_reset(&batch);
    }
    if (writer && writer->ops->flush(writer, &err) < 0)
        die("write", err);
    double t = now() - t0;
    printf("%ld %ld %.6f\n", msgs, rows, t);
    free(line);
    fclose(fp);
    cdc_batch_free(&batch);
    if (writer) {
        writer->ops->close(writer);
        sink->ops->destroy(sink);
    }
    deser->ops->destroy(deser);
    cdc_config_destroy(scfg);
    cdc_config_destroy(fcfg);
    cdc_kv_free(&kv);
    cdc_type_destroy(type);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 5 && strcmp(argv[1], "gen") == 0)
        return gen(argv[2], atol(argv[3]), atol(argv[4]));
    if (argc >= 4 && strcmp(argv[1], "run") == 0)
        return run(argv[2], argv[3]);
    fprintf(stderr, "usage: %s gen FILE N KEYS | run FILE URL\n", argv[0]);
    return 2;
}
