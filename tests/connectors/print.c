/*
 * tests/connectors/print.c — the "print" and "blackhole" sinks: Flink's
 * PrintSink line format per parallelism and identifier, whole lines under
 * concurrent writers, stdout/stderr selection, and errors.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_plugin.h"
#include "cdc_print.h"

extern const cdc_connector_factory_t cdc_connector_print;
extern const cdc_connector_factory_t cdc_connector_blackhole;

#define SCHEMA "ROW<id BIGINT NOT NULL, name STRING, price DECIMAL(5, 2)>"

typedef struct ps_s {
    cdc_type_t *schema;
    cdc_config_t *cfg;
    cdc_sink_t *sink;
} ps_t;

static void ps_open(ps_t *p, const cdc_connector_factory_t *factory, const char *schema,
                    const char *const *pairs)
{
    cdc_error_t *err = NULL;
    memset(p, 0, sizeof(*p));
    p->schema = cdc_type_parse(schema, &err);
    cr_assert_not_null(p->schema);
    cdc_kv_t kv = {0};
    for (int i = 0; pairs && pairs[i]; i += 2)
        cdc_kv_set(&kv, pairs[i], pairs[i + 1]);
    char label[64];
    snprintf(label, sizeof(label), "connector \"%s\"", factory->identifier);
    p->cfg = cdc_config_new(factory->options, label, &kv, &err);
    cdc_kv_free(&kv);
    cr_assert_not_null(p->cfg, "%s", err && err->detail ? err->detail : "");
    cdc_table_ctx_t ctx = {
        .name = "cat.db.out", .schema = p->schema, .cfg = p->cfg, .parallelism = 1};
    cr_assert_eq(factory->sink_new(&ctx, &p->sink, &err), 0);
}

static void ps_close(ps_t *p)
{
    p->sink->ops->destroy(p->sink);
    cdc_config_destroy(p->cfg);
    cdc_type_destroy(p->schema);
}

static void set_str(cdc_value_t *v, cdc_arena_t *arena, const char *s)
{
    v->flags = 0;
    v->v.s.ptr = cdc_arena_strdup(arena, s);
    v->v.s.len = (uint32_t)strlen(s);
}

/* +I[101, scooter, 3.14], -U[101, scooter, 3.14], +U[101, null, 3.15], -D[101, null, 3.15] */
static void fill_changes(cdc_batch_t *batch)
{
    static const cdc_kind_t kinds[] = {CDC_INSERT, CDC_UPDATE_BEFORE, CDC_UPDATE_AFTER, CDC_DELETE};
    for (int k = 0; k < 4; k++) {
        cdc_row_t *row = cdc_batch_add(batch, kinds[k], 3);
        row->values[0].flags = 0;
        row->values[0].v.i = 101;
        if (k < 2)
            set_str(&row->values[1], &batch->arena, "scooter");
        row->values[2].flags = 0;
        row->values[2].v.dec = k < 2 ? 314 : 315;
    }
}

static const char CHANGES[] = "+I[101, scooter, 3.14]\n"
                              "-U[101, scooter, 3.14]\n"
                              "+U[101, null, 3.15]\n"
                              "-D[101, null, 3.15]\n";

/* Everything written to f since it was opened (malloc'ed). */
static char *slurp(FILE *f)
{
    fflush(f);
    long n = ftell(f);
    cr_assert(n >= 0);
    char *s = calloc(1, (size_t)n + 1);
    rewind(f);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    return s;
}

/* Prints the standard batch through writer `subtask` of `nsubtasks` and returns the output. */
static char *print_changes(const char *const *pairs, int subtask, int nsubtasks)
{
    ps_t p;
    ps_open(&p, &cdc_connector_print, SCHEMA, pairs);
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    cr_assert_eq(cdc_print_sink_set_stream(p.sink, f), 0);
    cdc_writer_t *w = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(p.sink->ops->open_writer(p.sink, subtask, nsubtasks, &w, &err), 0);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    fill_changes(&batch);
    cr_assert_eq(w->ops->write(w, &batch, &err), 0);
    cr_assert_eq(w->ops->flush(w, &err), 0);
    w->ops->close(w);
    cdc_batch_free(&batch);
    char *out = slurp(f);
    fclose(f);
    ps_close(&p);
    return out;
}

static void prefixed(char *buf, size_t len, const char *prefix)
{
    buf[0] = '\0';
    const char *line = CHANGES;
    while (*line) {
        const char *nl = strchr(line, '\n');
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%.*s\n", prefix, (int)(nl - line), line);
        line = nl + 1;
    }
}

Test(print, parallelism_one_without_identifier)
{
    char *out = print_changes(NULL, 0, 1);
    cr_assert_str_eq(out, CHANGES);
    free(out);
}

Test(print, parallelism_one_with_identifier)
{
    char *out = print_changes((const char *const[]){"print-identifier", "orders", NULL}, 0, 1);
    char expect[512];
    prefixed(expect, sizeof(expect), "orders> ");
    cr_assert_str_eq(out, expect);
    free(out);
}

Test(print, parallel_without_identifier)
{
    char *out = print_changes(NULL, 1, 3);
    char expect[512];
    prefixed(expect, sizeof(expect), "2> ");
    cr_assert_str_eq(out, expect);
    free(out);
}

Test(print, parallel_with_identifier)
{
    char *out = print_changes((const char *const[]){"print-identifier", "orders", NULL}, 3, 4);
    char expect[512];
    prefixed(expect, sizeof(expect), "orders:4> ");
    cr_assert_str_eq(out, expect);
    free(out);
}

Test(print, empty_identifier_is_no_identifier)
{
    char *out = print_changes((const char *const[]){"print-identifier", "", NULL}, 0, 1);
    cr_assert_str_eq(out, CHANGES);
    free(out);
    out = print_changes((const char *const[]){"print-identifier", "", NULL}, 0, 2);
    char expect[512];
    prefixed(expect, sizeof(expect), "1> ");
    cr_assert_str_eq(out, expect);
    free(out);
}

Test(print, empty_batch_prints_nothing)
{
    ps_t p;
    ps_open(&p, &cdc_connector_print, SCHEMA, NULL);
    FILE *f = tmpfile();
    cdc_print_sink_set_stream(p.sink, f);
    cdc_writer_t *w = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(p.sink->ops->open_writer(p.sink, 0, 1, &w, &err), 0);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    cr_assert_eq(w->ops->write(w, &batch, &err), 0);
    w->ops->close(w);
    char *out = slurp(f);
    cr_assert_str_eq(out, "");
    free(out);
    fclose(f);
    cdc_batch_free(&batch);
    ps_close(&p);
}

static void redirect_stdout(void)
{
    cr_redirect_stdout();
}

static void redirect_stderr(void)
{
    cr_redirect_stderr();
}

static void print_to_default_stream(const char *const *pairs)
{
    ps_t p;
    ps_open(&p, &cdc_connector_print, SCHEMA, pairs);
    cdc_writer_t *w = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(p.sink->ops->open_writer(p.sink, 0, 1, &w, &err), 0);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    fill_changes(&batch);
    cr_assert_eq(w->ops->write(w, &batch, &err), 0);
    cr_assert_eq(w->ops->flush(w, &err), 0);
    w->ops->close(w);
    cdc_batch_free(&batch);
    ps_close(&p);
}

Test(print, standard_output_by_default, .init = redirect_stdout)
{
    print_to_default_stream(NULL);
    cr_assert_stdout_eq_str(CHANGES);
}

Test(print, standard_error_option, .init = redirect_stderr)
{
    print_to_default_stream(
        (const char *const[]){"standard-error", "true", "print-identifier", "e", NULL});
    char expect[512];
    prefixed(expect, sizeof(expect), "e> ");
    cr_assert_stderr_eq_str(expect);
}

/* ---- concurrent writers ------------------------------------------------------------ */

#define NTHREADS 4
#define NBATCHES 60
#define NROWS 50

typedef struct job_s {
    cdc_sink_t *sink;
    int subtask;
} job_t;

static void *write_many(void *arg)
{
    job_t *job = arg;
    cdc_writer_t *w = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(job->sink->ops->open_writer(job->sink, job->subtask, NTHREADS, &w, &err), 0);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    char name[300];
    memset(name, 'a' + job->subtask, 256);
    name[256] = '\0';
    for (int b = 0; b < NBATCHES; b++) {
        cdc_batch_reset(&batch);
        for (int r = 0; r < NROWS; r++) {
            cdc_row_t *row = cdc_batch_add(&batch, CDC_INSERT, 3);
            row->values[0].flags = 0;
            row->values[0].v.i = b * NROWS + r;
            set_str(&row->values[1], &batch.arena, name);
        }
        cr_assert_eq(w->ops->write(w, &batch, &err), 0);
    }
    cr_assert_eq(w->ops->flush(w, &err), 0);
    w->ops->close(w);
    cdc_batch_free(&batch);
    return NULL;
}

Test(print, concurrent_writers_never_mix_lines)
{
    ps_t p;
    ps_open(&p, &cdc_connector_print, SCHEMA, (const char *const[]){"print-identifier", "t", NULL});
    FILE *f = tmpfile();
    cdc_print_sink_set_stream(p.sink, f);
    pthread_t th[NTHREADS];
    job_t jobs[NTHREADS];
    for (int k = 0; k < NTHREADS; k++) {
        jobs[k] = (job_t){.sink = p.sink, .subtask = k};
        cr_assert_eq(pthread_create(&th[k], NULL, write_many, &jobs[k]), 0);
    }
    for (int k = 0; k < NTHREADS; k++)
        pthread_join(th[k], NULL);
    char *out = slurp(f);
    int next[NTHREADS] = {0};
    char *save = NULL;
    int lines = 0;
    for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        int k, i;
        int used = 0;
        cr_assert_eq(sscanf(line, "t:%d> +I[%d, %n", &k, &i, &used), 2, "line: %.80s", line);
        k--;
        cr_assert(k >= 0 && k < NTHREADS);
        cr_assert_eq(i, next[k]++, "writer %d prints its rows in order", k);
        const char *rest = line + used;
        for (int c = 0; c < 256; c++)
            cr_assert_eq(rest[c], 'a' + k, "line of writer %d: %.80s", k, line);
        cr_assert_str_eq(rest + 256, ", null]");
        lines++;
    }
    cr_assert_eq(lines, NTHREADS * NBATCHES * NROWS);
    free(out);
    fclose(f);
    ps_close(&p);
}

/* ---- modes, errors, options -------------------------------------------------------- */

Test(print, accepts_every_kind)
{
    ps_t p;
    ps_open(&p, &cdc_connector_print, SCHEMA, NULL);
    cr_assert_eq(p.sink->ops->changelog_mode(p.sink, CDC_MODE_ALL), CDC_MODE_ALL);
    cr_assert_eq(p.sink->ops->changelog_mode(p.sink, CDC_MODE_UPSERT), CDC_MODE_UPSERT);
    cr_assert_eq(p.sink->ops->changelog_mode(p.sink, CDC_MODE_INSERT_ONLY), CDC_MODE_INSERT_ONLY);
    ps_close(&p);
    cr_assert_str_eq(cdc_connector_print.identifier, "print");
    cr_assert_null(cdc_connector_print.source_new);
}

Test(print, write_errors_name_the_stream)
{
    ps_t p;
    ps_open(&p, &cdc_connector_print, SCHEMA, NULL);
    FILE *ro = fopen("/dev/null", "r");
    cr_assert_not_null(ro);
    cdc_print_sink_set_stream(p.sink, ro);
    cdc_writer_t *w = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(p.sink->ops->open_writer(p.sink, 0, 1, &w, &err), 0);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    fill_changes(&batch);
    cr_assert_eq(w->ops->write(w, &batch, &err), -1);
    cr_assert_eq(err->code, CDC_ERR_IO);
    cr_assert_str_eq(err->message, "could not write to the print stream: Bad file descriptor");
    cdc_error_destroy(err);
    err = NULL;
    /* a row that does not match the schema is refused, not printed out of bounds */
    cdc_batch_reset(&batch);
    cdc_batch_add(&batch, CDC_INSERT, 5);
    cr_assert_eq(w->ops->write(w, &batch, &err), -1);
    cr_assert_str_eq(err->message, "print: row of 5 fields for a table of 3 columns");
    cdc_error_destroy(err);
    err = NULL;
    cdc_writer_t *bad = NULL;
    cr_assert_eq(p.sink->ops->open_writer(p.sink, 2, 2, &bad, &err), -1);
    cr_assert_null(bad);
    cr_assert_str_eq(err->message, "print: bad subtask 2 of 2");
    cdc_error_destroy(err);
    w->ops->close(w);
    cdc_batch_free(&batch);
    ps_close(&p);
    fclose(ro);
}

Test(print, option_errors)
{
    cdc_kv_t kv = {0};
    cdc_kv_set(&kv, "print-identifer", "x");
    cdc_kv_set(&kv, "standard-error", "maybe");
    cdc_kv_set(&kv, "sink.parallelism", "0");
    cdc_error_t *err = NULL;
    cdc_config_t *cfg =
        cdc_config_new(cdc_connector_print.options, "connector \"print\"", &kv, &err);
    cr_assert_null(cfg);
    cr_assert_str_eq(err->message, "invalid options for connector \"print\"");
    cr_assert_str_eq(err->detail,
                     "unknown option \"print-identifer\" (did you mean \"print-identifier\"?)\n"
                     "option \"standard-error\": expected true or false, found \"maybe\"\n"
                     "option \"sink.parallelism\": value 0 is out of range [1, 65536]");
    cdc_error_destroy(err);
    cdc_kv_free(&kv);
}

Test(print, set_stream_only_on_print_sinks)
{
    ps_t p;
    ps_open(&p, &cdc_connector_blackhole, SCHEMA, NULL);
    cr_assert_eq(cdc_print_sink_set_stream(p.sink, stdout), -1);
    cr_assert_eq(cdc_print_sink_set_stream(NULL, stdout), -1);
    ps_close(&p);
}

/* ---- blackhole ------------------------------------------------------------------------ */

Test(blackhole, accepts_and_discards_everything)
{
    ps_t p;
    ps_open(&p, &cdc_connector_blackhole, SCHEMA,
            (const char *const[]){"sink.parallelism", "3", NULL});
    cr_assert_eq(p.sink->ops->changelog_mode(p.sink, CDC_MODE_ALL), CDC_MODE_ALL);
    cdc_writer_t *w = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(p.sink->ops->open_writer(p.sink, 2, 3, &w, &err), 0);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    fill_changes(&batch);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(w->ops->write(w, &batch, &err), 0);
    cr_assert_eq(w->ops->flush(w, &err), 0);
    w->ops->close(w);
    cdc_batch_free(&batch);
    ps_close(&p);
    cr_assert_null(cdc_connector_blackhole.source_new);
}

Test(blackhole, rejects_unknown_options)
{
    cdc_kv_t kv = {0};
    cdc_kv_set(&kv, "sink.parallelismm", "2");
    cdc_error_t *err = NULL;
    cdc_config_t *cfg =
        cdc_config_new(cdc_connector_blackhole.options, "connector \"blackhole\"", &kv, &err);
    cr_assert_null(cfg);
    cr_assert_str_eq(err->detail,
                     "unknown option \"sink.parallelismm\" (did you mean \"sink.parallelism\"?)");
    cdc_error_destroy(err);
    cdc_kv_free(&kv);
}
