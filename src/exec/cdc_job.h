/*
 * cdc_job.h — private to the runtime: running planned pipes as one job
 * (cdc_runtime.c), as the statement executor (cdc_script.c) asks.
 */
#ifndef CDC_JOB_H
#define CDC_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "cdc_planner.h"

typedef struct cdc_job_settings_s {
    bool cdc_events_duplicate; /* table.exec.source.cdc-events-duplicate */
    bool skip_bad_rows;        /* table.exec.expression-error.policy = SKIP */
    uint32_t batch_rows;       /* rows per poll */
    int64_t flush_rows;        /* flush + commit after this many rows */
    int64_t flush_interval_ms;
    const char *job;  /* pipeline.name, or derived from the statement */
    bool status_line; /* live status on the terminal */
} cdc_job_settings_t;

/**
 * Runs the pipes as one job: one thread per split of each pipe, until the
 * sources end or a stop is requested; flushes and commits as the settings say.
 * Returns 0, or -1 with *err set (the first split's error). The pipes stay the
 * caller's.
 */
int cdc_job_run(cdc_pipe_t **pipes, int npipes, const cdc_job_settings_t *settings,
                cdc_error_t **err);

#endif
