/*
 * cdc_pipe_int.h — private to the planner (plan/) and the pipe's runtime steps (exec/)
 * (cdc_planner.c, cdc_plan_join.c, cdc_exec.c, cdc_normalize.c): the planned
 * lookup join the planner fills and the row steps run, the ChangelogNormalize
 * keyed state, and the key bytes both use.
 */
#ifndef CDC_PIPE_INT_H
#define CDC_PIPE_INT_H

#include "cdc_lookup.h"
#include "cdc_planner.h"

struct cdc_lookup_join_s {
    bool left;
    char *dim_name; /* qualified */
    char *dim_path; /* "catalog, database, table" */
    cdc_resolved_t res;
    cdc_table_ctx_t ctx;
    cdc_source_t *src;
    cdc_type_t *dim_type; /* ROW of the dim table's physical columns (rows of a lookup) */
    int nkeys;
    int *key_fields;        /* dim physical column of each key */
    cdc_expr_t **key_exprs; /* probe side of each key, over the table row */
    cdc_type_t *key_type;   /* ROW of the key fields' types (cache key bytes) */
    int *key_idx;           /* 0..nkeys-1 */
    cdc_expr_t **conds;     /* the ON clause's other conjuncts, over the joined row */
    int nconds;
    int nprobe;              /* fields of the table row, first in the joined row */
    cdc_type_t *joined_type; /* table row fields, then the dim fields (renamed if taken) */
    cdc_lookup_opts_t opts;
    char *explain; /* "table=[[..]], joinType=[..], lookup=[..], ..." */
};

/* JOIN UNNEST(arg) [WITH ORDINALITY] AS u (...): each table row joined with one row per element
 * of the ARRAY (its fields when the elements are ROWs) or entry of the MAP arg gives (key,
 * value), then ORDINALITY (1-based); a LEFT JOIN keeps a row whose arg is NULL or empty, with
 * NULLs. Stateless: every joined row has the table row's change kind. */
struct cdc_unnest_s {
    bool left, map, row_elem, ordinality;
    bool multiset;           /* a MULTISET argument: each element as many times as its count */
    cdc_sql_expr_t *arg_sql; /* the argument, resolved to the table row */
    cdc_expr_t *arg;         /* over the table row */
    int nprobe;              /* fields of the table row, first in the joined row */
    int nout;                /* the fields UNNEST adds */
    cdc_type_t *joined_type;
    cdc_expr_t **conds; /* JOIN UNNEST ... ON c: the conjuncts of c (TRUE left out) */
    int nconds;
    char *explain; /* "invocation=[..], select=[..], joinType=[..]" */
};

/** A new, empty ChangelogNormalize state for rows of `type` (borrowed: it must outlive it). */
cdc_norm_state_t *cdc_norm_new(const cdc_type_t *type);

void cdc_norm_destroy(cdc_norm_state_t *st); /* NULL is accepted */

/*
 * ChangelogNormalize: turns upserts (and duplicated CDC events) into a proper
 * changelog: +I for a new key, -U/+U for a changed row, nothing for an
 * unchanged one, -D with the full old row for a known key, nothing for an
 * unknown one. Emitted rows are copied into `arena`.
 *
 * The state is pipe->norm keyed by pipe->norm_key over pipe->table_type; the
 * caller holds pipe->norm_lock. Writes up to two rows to outs and returns
 * how many.
 */
int cdc_norm_row(cdc_pipe_t *p, const cdc_row_t *row, cdc_arena_t *arena, cdc_row_t **outs);

#endif
