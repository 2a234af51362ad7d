/*
 * cdc_evolve.h — private to the runtime: what a pipeline does with a schema
 * change of its source (schema.change.behavior), as cdc_script.c asks when a
 * job stops at one (cdc_job.h, CDC_POLL_SCHEMA).
 */
#ifndef CDC_EVOLVE_H
#define CDC_EVOLVE_H

#include "cdc_catalog.h"
#include "cdc_planner.h"

/** What to do with one change. */
typedef enum cdc_evolve_action {
    CDC_EVOLVE_FAIL = -1, /* exception, or evolve could not carry it: *err says why */
    CDC_EVOLVE_GO_ON = 0, /* nothing in the pipeline changes (ignore, or not carried) */
    CDC_EVOLVE_REPLAN = 1 /* the source's and/or the sink's columns change: apply, re-plan */
} cdc_evolve_action_t;

typedef struct cdc_evolve_s {
    cdc_sc_policy_t policy;
    const cdc_table_def_t *src, *sink; /* the catalog's definitions when decided */
    cdc_schema_change_t *src_edits;    /* in the source table's columns; NULL when none */
    cdc_schema_change_t *sink_edits;   /* in the sink table's columns; NULL when none */
    cdc_buf_t notes;                   /* what is not carried, and why ("; "-separated) */
} cdc_evolve_t;

/**
 * Decides what the INSERT `ins` does with `change` of its source by the policy
 * (the source table's 'schema.change.behavior', else `session_policy`).
 * Fills *ev (cdc_evolve_clear) and returns the action; CDC_EVOLVE_FAIL with *err.
 */
cdc_evolve_action_t cdc_evolve_decide(cdc_catalog_t *cat, const cdc_sql_insert_t *ins,
                                      const cdc_pipe_t *pipe, const cdc_schema_change_t *change,
                                      cdc_sc_policy_t session_policy, cdc_evolve_t *ev,
                                      cdc_error_t **err);

/**
 * Carries a REPLAN decision out: the sink's apply_schema_change (when there are
 * sink edits; a sink that cannot, or fails, under try_evolve: the sink edits and
 * the added source columns are dropped, with a warning), then the catalog's
 * definitions of both tables, and the record under --state-dir that a
 * restarted process re-applies (cdc_evolve_restore). 0, or -1 with *err.
 */
int cdc_evolve_apply(cdc_catalog_t *cat, const cdc_pipe_t *pipe, const cdc_schema_change_t *change,
                     cdc_evolve_t *ev, cdc_error_t **err);

void cdc_evolve_clear(cdc_evolve_t *ev);

/**
 * Before planning: replaces the definition of table `name` (source or sink of
 * an INSERT) by the evolved one recorded under --state-dir by an earlier run,
 * when the script still declares it as it did then. 0, or -1 with *err.
 */
int cdc_evolve_restore(cdc_catalog_t *cat, const cdc_sql_name_t *name, cdc_error_t **err);

/** Frees the statements the catalog's evolved definitions were made from (after the catalog). */
void cdc_evolve_release(void);

/** Parses a table's 'schema.change.behavior' / 'schema.evolution.columns'; 0 or -1 with *err. */
int cdc_evolve_table_options(const cdc_table_def_t *t, cdc_sc_policy_t *policy, bool *has_policy,
                             bool *all_columns, cdc_error_t **err);

#endif
