/*
 * bench/json_decode.c — throughput of the json format's deserializer against
 * yajl itself.
 *
 * Generates N JSON messages (200-500 bytes, a fixed schema of ints, bigints,
 * strings, a double, a decimal, a timestamp, a boolean and a string array),
 * then measures on the same bytes, best of 3 runs each:
 *   ceiling  yajl with empty callbacks, one handle for the whole stream
 *            (yajl_allow_multiple_values): pure parsing, no per-message setup;
 *   yajl/msg yajl with empty callbacks and a new handle per message (malloc),
 *            the usual way to parse independent messages with yajl 2.1;
 *   lex      our parser (json_lex.c, what the formats use) with the same empty
 *            callbacks, one message at a time: the floor of the deserializer;
 *   ours     the json deserializer decoding into a batch reset every 1024
 *            messages (typed values, strings referenced or copied, checks).
 * Prints msgs/s, MB/s, the ratio ours/ceiling, and the process's peak RSS with
 * the part added while decoding (it must not grow with N).
 *
 * Usage: json_decode [N [ours|lex|ceiling]]   (not a test: no assertions on timing; the
 * optional mode runs only that measurement, 10 times, for profiling)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <yajl/yajl_parse.h>

#include "cdc_json.h"
#include "cdc_plugin.h"

extern const cdc_format_factory_t cdc_format_json;

#define SCHEMA                                                                                     \
    "ROW<id BIGINT NOT NULL, user_id INT, seq BIGINT, name STRING, email STRING, city STRING, "    \
    "score DOUBLE, price DECIMAL(12, 2), created TIMESTAMP(3), active BOOLEAN, tags "              \
    "ARRAY<STRING>, qty INT, note STRING>"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void rnd_word(cdc_buf_t *b, int minlen, int maxlen)
{
    static const char al[] = "abcdefghijklmnopqrstuvwxyz";
    int n = minlen + (int)(rnd() % (uint64_t)(maxlen - minlen + 1));
    for (int i = 0; i < n; i++)
        cdc_buf_putc(b, al[rnd() % 26]);
}

/* Appends one message; returns its length. */
static size_t gen_message(cdc_buf_t *b, uint64_t i)
{
    static const char *const cities[] = {"Paris", "Berlin",   "S\\u00e3o Paulo", "Tokyo",
                                         "Lagos", "New York", "Z\\u00fcrich",    "Lima"};
    size_t start = b->len;
    cdc_buf_printf(b,
                   "{\"id\":%llu"
                   ",\"user_id\":%d,\"seq\":%" PRId64 ",\"name\":\"",
                   (unsigned long long)(1000000000000ull + i), (int)(rnd() % 2000000000),
                   (int64_t)(rnd() >> 1) - (int64_t)(1ull << 61));
    rnd_word(b, 4, 12);
    cdc_buf_puts(b, " ");
    rnd_word(b, 4, 14);
    cdc_buf_puts(b, "\",\"email\":\"");
    rnd_word(b, 5, 12);
    cdc_buf_puts(b, "@example.com\",\"city\":\"");
    cdc_buf_puts(b, cities[rnd() % 8]);
    cdc_buf_printf(b, "\",\"score\":%.6f,\"price\":%d.%02d,", (double)(rnd() % 1000000) / 997.0,
                   (int)(rnd() % 100000), (int)(rnd() % 100));
    cdc_buf_printf(b, "\"created\":\"2024-%02d-%02d %02d:%02d:%02d.%03d\",\"active\":%s,\"tags\":[",
                   (int)(rnd() % 12) + 1, (int)(rnd() % 28) + 1, (int)(rnd() % 24),
                   (int)(rnd() % 60), (int)(rnd() % 60), (int)(rnd() % 1000),
                   rnd() & 1 ? "true" : "false");
    int ntags = (int)(rnd() % 5);
    for (int t = 0; t < ntags; t++) {
        cdc_buf_puts(b, t ? ",\"" : "\"");
        rnd_word(b, 3, 10);
        cdc_buf_putc(b, '"');
    }
    cdc_buf_printf(b, "],\"qty\":%d,\"note\":\"", (int)(rnd() % 1000));
    rnd_word(b, 10, 150 + (int)(rnd() % 100));
    if (rnd() % 4 == 0)
        cdc_buf_puts(b, "\\n\\\"quoted\\\"");
    cdc_buf_puts(b, "\"}");
    return b->len - start;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* ---- empty callbacks ---- */

static int e_null(void *c)
{
    (void)c;
    return 1;
}
static int e_bool(void *c, int b)
{
    (void)c;
    (void)b;
    return 1;
}
static int e_num(void *c, const char *s, size_t l)
{
    (void)c;
    (void)s;
    (void)l;
    return 1;
}
static int e_str(void *c, const unsigned char *s, size_t l)
{
    (void)c;
    (void)s;
    (void)l;
    return 1;
}
static int e_ev(void *c)
{
    (void)c;
    return 1;
}

static const yajl_callbacks empty_callbacks = {
    .yajl_null = e_null,
    .yajl_boolean = e_bool,
    .yajl_number = e_num,
    .yajl_string = e_str,
    .yajl_start_map = e_ev,
    .yajl_map_key = e_str,
    .yajl_end_map = e_ev,
    .yajl_start_array = e_ev,
    .yajl_end_array = e_ev,
};

typedef struct corpus_s {
    cdc_buf_t bytes;
    size_t *off; /* n + 1 offsets */
    size_t n;
} corpus_t;

static double run_ceiling(const corpus_t *c)
{
    double t0 = now();
    yajl_handle h = yajl_alloc(&empty_callbacks, NULL, NULL);
    yajl_config(h, yajl_allow_multiple_values, 1);
    for (size_t i = 0; i < c->n; i++) {
        const unsigned char *m = (const unsigned char *)c->bytes.data + c->off[i];
        if (yajl_parse(h, m, c->off[i + 1] - c->off[i]) != yajl_status_ok) {
            fprintf(stderr, "ceiling: message %zu does not parse\n", i);
            exit(1);
        }
    }
    yajl_complete_parse(h);
    yajl_free(h);
    return now() - t0;
}

static double run_per_message(const corpus_t *c)
{
    double t0 = now();
    for (size_t i = 0; i < c->n; i++) {
        const unsigned char *m = (const unsigned char *)c->bytes.data + c->off[i];
        yajl_handle h = yajl_alloc(&empty_callbacks, NULL, NULL);
        if (yajl_parse(h, m, c->off[i + 1] - c->off[i]) != yajl_status_ok ||
            yajl_complete_parse(h) != yajl_status_ok) {
            fprintf(stderr, "yajl/msg: message %zu does not parse\n", i);
            exit(1);
        }
        yajl_free(h);
    }
    return now() - t0;
}

static double run_lex(const corpus_t *c)
{
    cdc_json_parser_t *p = cdc_json_parser_new(&empty_callbacks, NULL);
    cdc_buf_t err = {0};
    double t0 = now();
    for (size_t i = 0; i < c->n; i++) {
        const char *m = c->bytes.data + c->off[i];
        if (cdc_json_parser_parse(p, m, c->off[i + 1] - c->off[i], &err) != CDC_JSON_PARSE_OK) {
            fprintf(stderr, "lex: message %zu: %s\n", i, cdc_buf_cstr(&err));
            exit(1);
        }
    }
    double t = now() - t0;
    cdc_json_parser_destroy(p);
    cdc_buf_free(&err);
    return t;
}

static double run_ours(const corpus_t *c, cdc_deser_t *deser, cdc_batch_t *batch)
{
    double t0 = now();
    for (size_t i = 0; i < c->n; i++) {
        if (batch->n >= 1024)
            cdc_batch_reset(batch);
        const char *m = c->bytes.data + c->off[i];
        if (deser->ops->decode(deser, m, c->off[i + 1] - c->off[i], batch) != CDC_DECODE_OK) {
            fprintf(stderr, "ours: message %zu: %.*s\n", i, (int)deser->errmsg.len,
                    deser->errmsg.data);
            exit(1);
        }
    }
    cdc_batch_reset(batch);
    return now() - t0;
}

static void report(const char *name, double secs, const corpus_t *c, double ceiling)
{
    double mb = (double)c->bytes.len / 1e6;
    printf("%-9s %8.4f s  %10.0f msgs/s  %8.1f MB/s", name, secs, (double)c->n / secs, mb / secs);
    if (ceiling > 0)
        printf("  ratio %.2f", ceiling / secs);
    printf("\n");
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 200000;
    if (n == 0)
        n = 1;
    long rss0 = peak_rss_kb();

    corpus_t c = {0};
    c.n = n;
    c.off = cdc_xmalloc((n + 1) * sizeof(size_t));
    size_t minlen = SIZE_MAX, maxlen = 0;
    for (size_t i = 0; i < n; i++) {
        c.off[i] = c.bytes.len;
        size_t len = gen_message(&c.bytes, i);
        if (len < minlen)
            minlen = len;
        if (len > maxlen)
            maxlen = len;
    }
    c.off[n] = c.bytes.len;

    cdc_error_t *err = NULL;
    cdc_type_t *type = cdc_type_parse(SCHEMA, &err);
    cdc_kv_t kv = {0};
    cdc_config_t *cfg = cdc_config_new(cdc_format_json.options, "format \"json\"", &kv, &err);
    cdc_format_ctx_t ctx = {.cfg = cfg, .row_type = type, .table = "bench"};
    cdc_deser_t *deser = NULL;
    if (!type || !cfg || cdc_format_json.deser_new(&ctx, &deser, &err) < 0) {
        cdc_error_print(err, stderr);
        return 1;
    }
    cdc_batch_t batch;
    cdc_batch_init(&batch);

    /* sanity: show the first message and its row */
    cdc_buf_t shown = {0};
    deser->ops->decode(deser, c.bytes.data, c.off[1], &batch);
    cdc_row_print(&shown, &batch.rows[0], type);
    cdc_batch_reset(&batch);
    printf("messages: %zu, %.1f MB, %zu..%zu bytes (avg %.0f)\n", n, (double)c.bytes.len / 1e6,
           minlen, maxlen, (double)c.bytes.len / (double)n);
    printf("first:    %.*s\n", (int)c.off[1], c.bytes.data);
    printf("row:      %s\n", cdc_buf_cstr(&shown));
    long rss_corpus = peak_rss_kb();

    const char *mode = argc > 2 ? argv[2] : NULL;
    if (mode && strcmp(mode, "dump") == 0 && argc > 3) {
        /* for the end-to-end run: write the corpus (one message per line) and
           print the ceiling measured on the same bytes, machine-readable */
        FILE *f = fopen(argv[3], "wb");
        for (size_t i = 0; f && i < n; i++) {
            fwrite(c.bytes.data + c.off[i], 1, c.off[i + 1] - c.off[i], f);
            fputc('\n', f);
        }
        if (!f || fclose(f) != 0) {
            perror(argv[3]);
            return 1;
        }
        double best = 1e30;
        for (int rep = 0; rep < 3; rep++) {
            double t = run_ceiling(&c);
            if (t < best)
                best = t;
        }
        printf("ceiling_s=%.6f bytes=%zu msgs=%zu\n", best, c.bytes.len, n);
        return 0;
    }
    if (mode) { /* profiling: one measurement only */
        double t = 0;
        for (int rep = 0; rep < 10; rep++)
            t += strcmp(mode, "ours") == 0  ? run_ours(&c, deser, &batch)
                 : strcmp(mode, "lex") == 0 ? run_lex(&c)
                                            : run_ceiling(&c);
        report(mode, t / 10, &c, 0);
        return 0;
    }
    double best_ceiling = 1e30, best_per = 1e30, best_ours = 1e30, best_lex = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        double t = run_ceiling(&c);
        if (t < best_ceiling)
            best_ceiling = t;
        t = run_per_message(&c);
        if (t < best_per)
            best_per = t;
        t = run_lex(&c);
        if (t < best_lex)
            best_lex = t;
        t = run_ours(&c, deser, &batch);
        if (t < best_ours)
            best_ours = t;
    }
    report("ceiling", best_ceiling, &c, 0);
    report("yajl/msg", best_per, &c, best_ceiling);
    report("lex", best_lex, &c, best_ceiling);
    report("ours", best_ours, &c, best_ceiling);
    printf("ratio ours/ceiling: %.2f (ours/yajl-per-message: %.2f)\n", best_ceiling / best_ours,
           best_per / best_ours);
    long rss = peak_rss_kb();
    printf("peak RSS: %.1f MB (start %.1f MB, after generating the messages %.1f MB, "
           "added while decoding %.1f MB)\n",
           rss / 1024.0, rss0 / 1024.0, rss_corpus / 1024.0, (rss - rss_corpus) / 1024.0);

    cdc_buf_free(&shown);
    cdc_batch_free(&batch);
    deser->ops->destroy(deser);
    cdc_config_destroy(cfg);
    cdc_type_destroy(type);
    cdc_buf_free(&c.bytes);
    free(c.off);
    return 0;
}
