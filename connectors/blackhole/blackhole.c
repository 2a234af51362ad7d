/*
 * blackhole.c — the "blackhole" connector: a sink that accepts every change
 * kind and discards the rows (Flink's blackhole), for benchmarks and tests.
 */
#include <stdlib.h>

#include "cdc_plugin.h"

static const cdc_option_def_t blackhole_options[] = {
    {.key = "sink.parallelism",
     .type = CDC_OPT_INT,
     .min = 1,
     .max = 65536,
     .description = "Number of writers of the sink; unset means the run's parallelism."},
    {0},
};

typedef struct blackhole_writer_s {
    cdc_writer_t base;
    uint64_t rows; /* rows discarded (handy in a debugger) */
} blackhole_writer_t;

static int blackhole_write(cdc_writer_t *base, const cdc_batch_t *batch, cdc_error_t **err)
{
    (void)err;
    ((blackhole_writer_t *)base)->rows += batch->n;
    return 0;
}

static int blackhole_flush(cdc_writer_t *base, cdc_error_t **err)
{
    (void)base;
    (void)err;
    return 0;
}

static void blackhole_close(cdc_writer_t *base)
{
    free(base);
}

static const cdc_writer_ops_t blackhole_writer_ops = {
    .write = blackhole_write,
    .flush = blackhole_flush,
    .close = blackhole_close,
};

static cdc_changelog_mode_t blackhole_changelog_mode(cdc_sink_t *sink,
                                                     cdc_changelog_mode_t requested)
{
    (void)sink;
    return requested;
}

static int blackhole_open_writer(cdc_sink_t *sink, int subtask, int nsubtasks, cdc_writer_t **out,
                                 cdc_error_t **err)
{
    (void)sink;
    if (nsubtasks < 1 || subtask < 0 || subtask >= nsubtasks)
        return cdc_error_set(err, CDC_ERR_INTERNAL, "blackhole: bad subtask %d of %d", subtask,
                             nsubtasks);
    blackhole_writer_t *w = cdc_xcalloc(1, sizeof(*w));
    w->base.ops = &blackhole_writer_ops;
    *out = &w->base;
    return 0;
}

static void blackhole_sink_destroy(cdc_sink_t *sink)
{
    free(sink);
}

static const cdc_sink_ops_t blackhole_sink_ops = {
    .changelog_mode = blackhole_changelog_mode,
    .open_writer = blackhole_open_writer,
    .destroy = blackhole_sink_destroy,
};

static int blackhole_sink_new(const cdc_table_ctx_t *ctx, cdc_sink_t **out, cdc_error_t **err)
{
    (void)ctx;
    (void)err;
    cdc_sink_t *sink = cdc_xcalloc(1, sizeof(*sink));
    sink->ops = &blackhole_sink_ops;
    *out = sink;
    return 0;
}

const cdc_connector_factory_t cdc_connector_blackhole = {
    .identifier = "blackhole",
    .description = "Discards every row (Flink's blackhole); for benchmarks and tests.",
    .options = blackhole_options,
    .check = NULL,
    .metadata = NULL,
    .source_new = NULL,
    .sink_new = blackhole_sink_new,
};
