/*
 * print.c — the "print" connector: a sink that prints every row on its own
 * line the way Flink's PrintSink does ("+I[1, a]", "id> +I[1, a]", "id:2> +I[1, a]",
 * "2> +I[1, a]").
 *
 * Each writer formats a batch into its own buffer and writes it with one
 * fwrite under a process-wide lock, so lines of different writers never mix.
 */
#include "cdc_print.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

static const cdc_option_def_t print_options[] = {
    {.key = "print-identifier",
     .type = CDC_OPT_STRING,
     .description = "Message that prefixes every printed row (\"identifier> +I[...]\")."},
    {.key = "standard-error",
     .type = CDC_OPT_BOOL,
     .default_value = "false",
     .description = "Print to standard error instead of standard output."},
    {.key = "sink.parallelism",
     .type = CDC_OPT_INT,
     .min = 1,
     .max = 65536,
     .description = "Number of writers of the sink; unset means the run's parallelism."},
    {0},
};

typedef struct print_sink_s {
    cdc_sink_t base;
    cdc_type_t *schema;
    char *identifier; /* NULL when unset or empty */
    bool to_stderr;
    FILE *stream; /* override for new writers; NULL = stdout/stderr */
} print_sink_t;

typedef struct print_writer_s {
    cdc_writer_t base;
    cdc_type_t *schema;
    FILE *stream;
    const char *stream_name; /* for messages */
    char *prefix;            /* "" or "identifier> ", "identifier:2> ", "2> " */
    size_t prefix_len;
    cdc_buf_t buf;
    uint64_t rows;
} print_writer_t;

static int io_error(cdc_error_t **err, const char *what, const char *stream_name, int errnum)
{
    return cdc_error_set(err, CDC_ERR_IO, "could not %s %s: %s", what, stream_name,
                         errnum ? strerror(errnum) : "unknown error");
}

static int print_write(cdc_writer_t *base, const cdc_batch_t *batch, cdc_error_t **err)
{
    print_writer_t *w = (print_writer_t *)base;
    cdc_buf_clear(&w->buf);
    for (uint32_t i = 0; i < batch->n; i++) {
        const cdc_row_t *row = &batch->rows[i];
        if (row->arity != (uint32_t)w->schema->nchildren)
            return cdc_error_set(err, CDC_ERR_INTERNAL,
                                 "print: row of %u fields for a table of %d columns", row->arity,
                                 w->schema->nchildren);
        cdc_buf_append(&w->buf, w->prefix, w->prefix_len);
        cdc_row_print(&w->buf, row, w->schema);
        cdc_buf_putc(&w->buf, '\n');
    }
    if (w->buf.len == 0)
        return 0;
    pthread_mutex_lock(&print_lock);
    errno = 0;
    size_t n = fwrite(w->buf.data, 1, w->buf.len, w->stream);
    int errnum = errno;
    pthread_mutex_unlock(&print_lock);
    if (n != w->buf.len)
        return io_error(err, "write to", w->stream_name, errnum);
    w->rows += batch->n;
    return 0;
}

static int print_flush(cdc_writer_t *base, cdc_error_t **err)
{
    print_writer_t *w = (print_writer_t *)base;
    pthread_mutex_lock(&print_lock);
    errno = 0;
    int rc = fflush(w->stream);
    int errnum = errno;
    pthread_mutex_unlock(&print_lock);
    if (rc != 0)
        return io_error(err, "flush", w->stream_name, errnum);
    return 0;
}

static void print_close(cdc_writer_t *base)
{
    print_writer_t *w = (print_writer_t *)base;
    if (!w)
        return;
    pthread_mutex_lock(&print_lock);
    fflush(w->stream);
    pthread_mutex_unlock(&print_lock);
    cdc_type_destroy(w->schema);
    cdc_buf_free(&w->buf);
    free(w->prefix);
    free(w);
}

static const cdc_writer_ops_t print_writer_ops = {
    .write = print_write,
    .flush = print_flush,
    .close = print_close,
};

static cdc_changelog_mode_t print_changelog_mode(cdc_sink_t *base, cdc_changelog_mode_t requested)
{
    (void)base;
    return requested;
}

static int print_open_writer(cdc_sink_t *base, int subtask, int nsubtasks, cdc_writer_t **out,
                             cdc_error_t **err)
{
    print_sink_t *sink = (print_sink_t *)base;
    if (nsubtasks < 1 || subtask < 0 || subtask >= nsubtasks)
        return cdc_error_set(err, CDC_ERR_INTERNAL, "print: bad subtask %d of %d", subtask,
                             nsubtasks);
    print_writer_t *w = cdc_xcalloc(1, sizeof(*w));
    w->base.ops = &print_writer_ops;
    w->schema = cdc_type_copy(sink->schema);
    if (sink->stream) {
        w->stream = sink->stream;
        w->stream_name = "the print stream";
    } else if (sink->to_stderr) {
        w->stream = stderr;
        w->stream_name = "standard error";
    } else {
        w->stream = stdout;
        w->stream_name = "standard output";
    }
    /* Flink's PrintSinkOutputWriter: identifier, ":K" when parallel, then "> " */
    if (nsubtasks > 1)
        w->prefix = sink->identifier ? cdc_strdup_printf("%s:%d> ", sink->identifier, subtask + 1)
                                     : cdc_strdup_printf("%d> ", subtask + 1);
    else
        w->prefix =
            sink->identifier ? cdc_strdup_printf("%s> ", sink->identifier) : cdc_xstrdup("");
    w->prefix_len = strlen(w->prefix);
    *out = &w->base;
    return 0;
}

static void print_sink_destroy(cdc_sink_t *base)
{
    print_sink_t *sink = (print_sink_t *)base;
    if (!sink)
        return;
    cdc_type_destroy(sink->schema);
    free(sink->identifier);
    free(sink);
}

static const cdc_sink_ops_t print_sink_ops = {
    .changelog_mode = print_changelog_mode,
    .open_writer = print_open_writer,
    .destroy = print_sink_destroy,
};

static int print_sink_new(const cdc_table_ctx_t *ctx, cdc_sink_t **out, cdc_error_t **err)
{
    if (!ctx->schema || ctx->schema->root != CDC_T_ROW)
        return cdc_error_set(err, CDC_ERR_INTERNAL, "print: the table schema is not a ROW");
    print_sink_t *sink = cdc_xcalloc(1, sizeof(*sink));
    sink->base.ops = &print_sink_ops;
    sink->schema = cdc_type_copy(ctx->schema);
    const char *id = cdc_config_str(ctx->cfg, "print-identifier");
    sink->identifier = id && *id ? cdc_xstrdup(id) : NULL;
    sink->to_stderr = cdc_config_bool(ctx->cfg, "standard-error");
    *out = &sink->base;
    return 0;
}

int cdc_print_sink_set_stream(cdc_sink_t *base, FILE *stream)
{
    if (!base || base->ops != &print_sink_ops)
        return -1;
    ((print_sink_t *)base)->stream = stream;
    return 0;
}

const cdc_connector_factory_t cdc_connector_print = {
    .identifier = "print",
    .description = "Prints every row to standard output or standard error (Flink's print), "
                   "e.g. \"+I[1, scooter]\".",
    .options = print_options,
    .check = NULL,
    .metadata = NULL,
    .source_new = NULL,
    .sink_new = print_sink_new,
};
