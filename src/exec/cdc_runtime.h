/*
 * cdc_runtime.h — runs a pipeline script: executes DDL and SET statements in
 * order, plans each INSERT (or statement set) and runs it as a job, in
 * batches, one thread per source split; flushes sinks, then commits sources.
 */
#ifndef CDC_RUNTIME_H
#define CDC_RUNTIME_H

#include <stdio.h>

#include "cdc_plugin.h"

typedef struct cdc_run_opts_s {
    int parallelism;   /* default 1; SET 'parallelism.default' and scan.parallelism override */
    bool explain_only; /* print plans, run nothing */
    FILE *out;         /* EXPLAIN and SHOW output */
    const char *catalog_dir; /* default_catalog is a file catalog here when set */
    bool status_line;        /* a live status line on stderr (a terminal, not --quiet) */
} cdc_run_opts_t;

/**
 * Runs a script. Returns 0, or -1 with *err (which names the statement's
 * line:col). SIGINT/SIGTERM (see cdc_runtime_install_signals) stop unbounded
 * jobs cleanly: sinks flushed, sources committed, return 0.
 */
int cdc_runtime_run_script(const char *text, size_t len, const char *filename,
                           const cdc_run_opts_t *opts, cdc_error_t **err);

/** Installs SIGINT/SIGTERM handlers that ask running jobs to stop. */
void cdc_runtime_install_signals(void);
/** Asks running jobs to stop (what the signal handlers call). */
void cdc_runtime_request_stop(void);

/** Whether a stop was requested (SIGINT/SIGTERM or cdc_runtime_request_stop). */
bool cdc_runtime_stopping(void);

/** Where sources keep positions between runs (--state-dir); NULL for none. The
 * string is borrowed and must outlive the run. */
void cdc_runtime_set_state_dir(const char *dir);

/** Starts the watchdog thread (SIGHUP logging, health, and the forced exit when
 * a requested stop takes longer than stop_timeout_seconds; < 0 keeps the default
 * of 30 s); cdc_runtime_watchdog_stop ends it when the run is over. */
void cdc_runtime_watchdog_start(int64_t stop_timeout_seconds);
void cdc_runtime_watchdog_stop(void);

/** `cdcflow run|explain FILE.sql [--parallelism N] [--catalog-dir DIR]`; returns the exit status.
 */
int cdc_runtime_main(int argc, char **argv, bool explain_only);

/**
 * A statement's job starts (replanned false: the positions readers noted are
 * forgotten) or starts again after a schema change (true: readers get them).
 */
void cdc_runtime_resume_begin(bool replanned);

#endif
