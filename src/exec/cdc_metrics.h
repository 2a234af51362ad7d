/*
 * cdc_metrics.h — what a running job counts, the Prometheus endpoint that
 * shows it, and the live status line on a terminal.
 *
 * Each pipe of a job (one INSERT) gets a cdc_pipe_metrics_t; its split
 * threads add to atomic counters and, after each commit, refresh the gauges
 * their reader reports (lag, position) into a snapshot under a mutex, so the
 * HTTP thread never touches a reader. Metric names are documented in the
 * README ("Metrics"); every series carries job and table labels.
 */
#ifndef CDC_METRICS_H
#define CDC_METRICS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cdc_arena.h"
#include "cdc_error.h"

/** Flush latency buckets (seconds) and flush size buckets (rows). */
#define CDC_METRICS_LAT_BUCKETS 10
#define CDC_METRICS_ROW_BUCKETS 8

/** A gauge a reader or writer reports: name, extra labels (`partition="3"`), value. */
typedef struct cdc_metric_sample_s {
    char name[64];
    char labels[160];
    double value;
} cdc_metric_sample_t;

typedef struct cdc_pipe_metrics_s {
    char *job;
    char *source;       /* qualified source table */
    char *sink;         /* qualified sink table */
    int64_t total_rows; /* rows a bounded source will produce, -1 when unknown */

    atomic_ullong read;           /* rows polled from the source */
    atomic_ullong written;        /* rows handed to the sink */
    atomic_ullong skipped;        /* rows dropped by the expression-error policy */
    atomic_ullong schema_changes; /* schema changes of the source met (any policy) */
    atomic_ullong flushes;
    atomic_ullong flush_us_sum;
    atomic_ullong flush_lat[CDC_METRICS_LAT_BUCKETS + 1]; /* last: +Inf */
    atomic_ullong flush_rows_sum;
    atomic_ullong flush_rows[CDC_METRICS_ROW_BUCKETS + 1];
    atomic_llong last_commit_ms; /* unix ms, 0 = never */
    atomic_int running_splits;

    pthread_mutex_t mu; /* guards the samples and the live writers */
    int nsplits;
    cdc_metric_sample_t **samples; /* per split */
    int *nsamples;
    struct cdc_writer_s **writers; /* per split while open: asked at every scrape */
    cdc_metric_sample_t *live;     /* what they said at the last scrape */
    int nlive, caplive;
} cdc_pipe_metrics_t;

/** Creates and registers a pipe's metrics (kept until process exit, as Prometheus expects). */
cdc_pipe_metrics_t *cdc_metrics_pipe_new(const char *job, const char *source, const char *sink,
                                         int nsplits, int64_t total_rows);

/** Records one flush: its duration and the rows it made durable. */
void cdc_metrics_flush(cdc_pipe_metrics_t *m, int64_t micros, uint64_t rows);

/** Collects gauges into split `split`'s snapshot: begin, add..., end. */
void cdc_metrics_samples_begin(cdc_pipe_metrics_t *m, int split);
void cdc_metrics_sample(void *pipe_metrics_split, const char *name, const char *labels,
                        double value);
void cdc_metrics_samples_end(cdc_pipe_metrics_t *m, int split);

/**
 * Registers (or, with NULL, unregisters before closing it) split `split`'s
 * writer: its metrics op is called at every scrape, from the metrics thread,
 * so a flush stuck in retries still shows them (the op must only read atomics).
 */
void cdc_metrics_set_writer(cdc_pipe_metrics_t *m, int split, struct cdc_writer_s *writer);

/** Appends every registered series in Prometheus text format 0.0.4. */
void cdc_metrics_render(cdc_buf_t *out);

/**
 * Serves GET /metrics and GET /healthz on bind_addr:port from a background
 * thread (port 0 = pick one; the chosen port is returned in *bound_port).
 */
int cdc_metrics_serve(const char *bind_addr, int port, int *bound_port, cdc_error_t **err);
void cdc_metrics_stop_server(void);

/** GET path from host:port; returns the HTTP status (body appended to *body), or -1 and *err. */
int cdc_metrics_probe(const char *host, int port, const char *path, int timeout_ms, cdc_buf_t *body,
                      cdc_error_t **err);

/** Marks the process as stopping (healthz then answers 503). */
void cdc_metrics_set_stopping(void);

/**
 * The live status line: redrawn every `interval_ms` on stderr while jobs
 * run, cleared around log lines. Only call when stderr is a terminal.
 */
void cdc_status_start(int interval_ms);
void cdc_status_stop(void);
/** One status line for the current totals (what the terminal shows), for tests. */
void cdc_status_format(cdc_buf_t *out, double rows_per_s, int width);

#endif
