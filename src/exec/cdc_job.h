/*
 * cdc_job.h — private to the runtime: running planned pipes as one job
 * (cdc_runtime.c), as the statement executor (cdc_script.c) asks.
 */
#ifndef CDC_JOB_H
#define CDC_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "cdc_graph.h"
#include "cdc_planner.h"

/*
 * Schema changes (CDC_POLL_SCHEMA): the split that meets one writes and
 * flushes the rows before it, then asks decide() (one change at a time per
 * job). 0: go on; 1: the pipeline's columns change: every other split stops
 * (flushed and committed), apply() changes the sink and the catalog, the
 * split commits past the change and cdc_job_run returns CDC_JOB_REPLAN;
 * -1: the job fails with *err, nothing committed past the change.
 */
typedef struct cdc_schema_hooks_s {
    int (*decide)(void *ctx, int pipe, const cdc_schema_change_t *change, cdc_error_t **err);
    int (*apply)(void *ctx, cdc_error_t **err);
    void *ctx;
} cdc_schema_hooks_t;

/* cdc_job_run's result when a schema change asks for a new plan */
#define CDC_JOB_REPLAN 1

typedef struct cdc_job_settings_s {
    bool cdc_events_duplicate; /* table.exec.source.cdc-events-duplicate */
    bool skip_bad_rows;        /* table.exec.expression-error.policy = SKIP */
    uint32_t batch_rows;       /* rows per poll */
    int64_t flush_rows;        /* flush + commit after this many rows */
    int64_t flush_interval_ms;
    const char *job;           /* pipeline.name, or derived from the statement */
    bool status_line;          /* live status on the terminal */
    cdc_schema_hooks_t schema; /* decide NULL: a schema change fails the job */
} cdc_job_settings_t;

/**
 * Runs the pipes as one job: one thread per split of each pipe, until the
 * sources end or a stop is requested; flushes and commits as the settings say.
 * Returns 0, CDC_JOB_REPLAN (settings->schema), or -1 with *err set (the
 * first split's error). The pipes stay the caller's.
 */
int cdc_job_run(cdc_pipe_t **pipes, int npipes, const cdc_job_settings_t *settings,
                cdc_error_t **err);

/* ---- stateful operators (cdc_graph.c) ---- */

/** Opens the job's state store, the graph's operators and the top pipe's writer, once per graph
 * (a second call is a no-op). 0, or -1 with *err. */
int cdc_graph_begin(cdc_graph_t *g, const cdc_job_settings_t *settings, cdc_error_t **err);

/** Closes what cdc_graph_begin opened (after every split of the job has ended). */
void cdc_graph_end(cdc_graph_t *g);

/** The writer of split @p split of leaf pipe @p leaf: its rows go through the operators.
 * @p reader_positions: its reader keeps positions (cdc_reader_ops_t.positions). */
int cdc_graph_open_writer(cdc_pipe_t *leaf, int split, bool reader_positions, cdc_writer_t **out,
                          cdc_error_t **err);

/** Whether a checkpoint was asked for since *seen (then updated): the split should arrive. */
bool cdc_graph_checkpoint_wanted(const cdc_pipe_t *leaf, uint64_t *seen);

/** Whether the job's sources resume from positions kept in the state (else their upstream
 * positions are not committed: they are read from their start each run). */
bool cdc_graph_resumes(const cdc_pipe_t *leaf);

#endif
