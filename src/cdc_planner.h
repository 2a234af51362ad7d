/*
 * cdc_planner.h — turns INSERT INTO sink SELECT ... FROM source into a pipe:
 * the source and sink built by their factories, what was pushed into the
 * source, what the runtime still has to do, and the negotiated changelog mode.
 */
#ifndef CDC_PLANNER_H
#define CDC_PLANNER_H

#include "cdc_catalog.h"

typedef struct cdc_pipe_s {
    char *source_name; /* qualified */
    char *source_path; /* "catalog, database, table" as EXPLAIN shows it */
    char *sink_name;   /* qualified */
    cdc_resolved_t src_res, sink_res;
    cdc_table_ctx_t src_ctx, sink_ctx;
    cdc_source_t *src;
    cdc_sink_t *sink;
    const cdc_type_t *sink_schema;
    int *proj; /* runtime projection of the source's rows, or NULL */
    int nproj;
    char *proj_text; /* "[a, c]" when pushed into the source, else NULL */
    int64_t limit;   /* -1 when none */
    bool limit_pushed;
    cdc_changelog_mode_t mode; /* what flows from source to sink */
    int parallelism;
} cdc_pipe_t;

/**
 * Plans one INSERT. `parallelism` is the run's default (>= 1); a source's
 * `scan.parallelism` option overrides it. Returns 0 and *out, or -1 and *err
 * (with line:col and a caret into text).
 */
int cdc_plan_insert(cdc_catalog_t *cat, const cdc_sql_insert_t *ins, const char *text, size_t len,
                    const char *filename, int parallelism, cdc_pipe_t **out, cdc_error_t **err);

/** Appends the pipe's plan, one node per line, as EXPLAIN prints it. */
void cdc_pipe_explain(const cdc_pipe_t *pipe, cdc_buf_t *out);

void cdc_pipe_destroy(cdc_pipe_t *pipe);

#endif
