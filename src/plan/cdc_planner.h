/*
 * cdc_planner.h — turns INSERT INTO sink SELECT ... FROM source into a pipe:
 * the source and sink built by their factories, what was pushed into the
 * source (partitions, filters, projection, limit), the steps the runtime
 * still runs (table row with computed columns, ChangelogNormalize, Calc
 * stages for views and the query, DropUpdateBefore, Limit), and the
 * negotiated changelog mode. A lookup join (`JOIN dim FOR SYSTEM_TIME AS OF
 * s.proc_time AS d ON ...`) is one more per-row step before the query's Calc:
 * each split opens its own lookup handle and PARTIAL cache (cdc_pipe_split_t).
 */
#ifndef CDC_PLANNER_H
#define CDC_PLANNER_H

#include <pthread.h>
#include <stdatomic.h>

#include "cdc_catalog.h"
#include "cdc_expr.h"

/** A Calc: one output field per item, rows kept only where `where` is TRUE. */
typedef struct cdc_stage_s {
    cdc_type_t *out_type; /* ROW */
    cdc_expr_t **items;
    int nitems;
    cdc_expr_t *where; /* NULL when none */
    char *explain;     /* "select=[a, UPPER(b)], where=[a > 1]" */
} cdc_stage_t;

/**
 * How one value of the whole-column scan row is rebuilt from the fields a
 * nested projection made the source produce: either scan field `scan`
 * (a whole column, a nested leaf, or a metadata field), or, when scan < 0, a
 * ROW whose field i is rebuilt by fields[i] (a field with scan < 0 and no
 * fields of its own was not projected and is NULL).
 */
typedef struct cdc_nest_s {
    int scan;
    struct cdc_nest_s *fields; /* NULL when the value is a scan field */
    int nfields;
} cdc_nest_t;

/** Keyed state of ChangelogNormalize: the last row per primary key. */
typedef struct cdc_norm_state_s cdc_norm_state_t;

/** A planned lookup join (the dim table's source, keys, condition, cache options). */
typedef struct cdc_lookup_join_s cdc_lookup_join_t;
typedef struct cdc_unnest_s cdc_unnest_t;

/** Per-split state of a pipe's row steps (the lookup join's handle and cache). */
typedef struct cdc_pipe_split_s cdc_pipe_split_t;

struct cdc_graph_s;

typedef struct cdc_pipe_s {
    struct cdc_graph_s *graph; /* a leaf of a stateful query: its rows go to the graph's
                                  operators, not to `sink` (cdc_graph.h); else NULL */
    char *source_name;         /* qualified */
    char *source_path;         /* "catalog, database, table" as EXPLAIN shows it */
    char *sink_name;           /* qualified */
    cdc_resolved_t src_res, sink_res;
    cdc_table_ctx_t src_ctx, sink_ctx;
    cdc_source_t *src;
    cdc_sink_t *sink;
    const cdc_type_t *sink_schema; /* the rows the sink's writers get (sink_row, else the
                                      table's physical columns) */
    cdc_type_t *sink_row;          /* owned when the sink writes metadata: the physical columns,
                                      then the persisted METADATA columns; else NULL */
    cdc_table_def_t *result_def;   /* the print sink of a bare query, owned; else NULL */
    cdc_table_def_t *values_def;   /* the constant source of SELECT without FROM or VALUES, owned */
    cdc_sql_query_t *values_query; /* VALUES as a query over that source (stages were compiled
                                      from it), owned; else NULL */

    /*
     * Nested projection pushed: the source produces leaves ("r.a"); each row
     * is first rebuilt into the whole-column scan row (what a whole-column
     * projection would have produced: the projected columns with their
     * declared types, then the metadata fields), one cdc_nest_t per column of
     * it. NULL when no nested projection was pushed (the scan row is used as is).
     */
    cdc_type_t *whole_type;
    cdc_nest_t *whole_nest; /* per field of whole_type */

    /* the table row (every column of the source table, in declared order) from the scan row
       (the whole-column scan row under nested projection) */
    cdc_type_t *table_type; /* ROW of all columns */
    int *col_scan;          /* per column: index in the (whole-column) scan row, or -1 */
    cdc_expr_t **col_expr;  /* per column: computed expression over that row, or NULL */
    bool *col_proctime;     /* per column: a PROCTIME() attribute (the wall clock per row) */
    bool identity_table;    /* that row is the table row */

    /* pushed into the source, for EXPLAIN */
    char *pushed_partitions; /* "[{p=1}, {p=2}]" or NULL */
    char *pushed_filters;    /* "[a > 1, b IS NULL]" or NULL */
    char *proj_text;         /* "[a, c]" / "[id, r.a]" when a projection was pushed, else NULL */
    char *pushed_metadata;   /* "[offset]" or NULL */
    int64_t row_count;       /* statistics, -1 when unknown */

    /* ChangelogNormalize keyed by the source's primary key (indexes into the table row) */
    bool normalize;
    int *norm_key;
    int nnorm_key;
    cdc_norm_state_t *norm;
    pthread_mutex_t norm_lock;

    cdc_lookup_join_t *join; /* after normalize, before the stages; NULL when none */
    cdc_unnest_t *unnest;    /* JOIN UNNEST(...): in the lookup join's place; NULL when none */

    cdc_stage_t *stages; /* applied in order after normalize (and the lookup join) */
    int nstages;

    bool drop_update_before;
    bool update_before_as_delete; /* ... except that a -U which passed a filter is a -D */
    int64_t limit;                /* -1 when none */
    bool limit_pushed;
    cdc_changelog_mode_t scan_mode; /* what the source produces */
    cdc_changelog_mode_t mode;      /* what reaches the sink */
    int parallelism;
    bool skip_bad_rows; /* per-record expression errors: skip and count instead of failing */

    /* table.exec.sink.not-null-enforcer: the sink's NOT NULL columns the query may leave NULL
       (indexes into the sink row), checked on every row written */
    int *not_null_cols;
    int nnot_null;
    bool not_null_drop;             /* DROP: such rows are dropped and counted; else ERROR */
    atomic_ullong not_null_dropped; /* rows dropped so far (all splits) */
} cdc_pipe_t;

/** Planner inputs besides the statement. */
typedef struct cdc_plan_env_s {
    cdc_catalog_t *cat;
    const char *text; /* the script */
    size_t len;
    const char *filename;
    int parallelism;               /* the run's default (>= 1) */
    bool cdc_events_duplicate;     /* table.exec.source.cdc-events-duplicate */
    bool skip_bad_rows;            /* table.exec.expression-error.policy = skip */
    bool dynamic_options_disabled; /* table.dynamic-table-options.enabled = false */
    bool not_null_drop;            /* table.exec.sink.not-null-enforcer = DROP (else ERROR) */
    int64_t state_ttl_ms;          /* table.exec.state.ttl of the stateful operators; 0 = never */
    bool minibatch;                /* table.exec.mini-batch.enabled */
    int64_t minibatch_ms;          /* table.exec.mini-batch.allow-latency (ms; Flink's default 0) */
    int64_t minibatch_size;        /* table.exec.mini-batch.size (rows; Flink's default -1) */
    const char *stateful_node;     /* planning the top pipe of a stateful query: its root
                                      operator as EXPLAIN shows it (errors name it); else NULL */
    const cdc_type_t *result_types; /* a bare query's printed column types (the common types of
                                       its UNION ALL's branches), borrowed; NULL: the query's */
} cdc_plan_env_t;

/**
 * Plans one INSERT. Returns 0 and *out, or -1 and *err (with line:col and a
 * caret into the script, or into a view's query).
 */
int cdc_plan_insert(const cdc_plan_env_t *env, const cdc_sql_insert_t *ins, cdc_pipe_t **out,
                    cdc_error_t **err);

#define CDC_PLAN_MAX_UNIONS 16

/**
 * Which branch of each UNION ALL one pipe of an INSERT reads: a UNION ALL of N branches is N
 * pipes into the sink, one per branch (as a statement set of N INSERTs). The planner meets the
 * unions in order down the INSERT's query, its subqueries, WITH queries and views; `pick[k]`
 * (caller's) is the branch taken at the k-th, `nbranches[k]` and `depth` (the planner's) say how
 * many branches it has and how many unions this pipe met. Owned by the caller.
 */
typedef struct cdc_plan_branch {
    int pick[CDC_PLAN_MAX_UNIONS];
    int nbranches[CDC_PLAN_MAX_UNIONS];
    int depth;
} cdc_plan_branch_t;

/**
 * cdc_plan_insert for the branches @p br picks (a zeroed one: the first of each). Fills
 * br->nbranches and br->depth; cdc_plan_branch_next then picks the next combination.
 */
int cdc_plan_insert_branch(const cdc_plan_env_t *env, const cdc_sql_insert_t *ins,
                           cdc_plan_branch_t *br, cdc_pipe_t **out, cdc_error_t **err);

/** Moves @p br to the next combination of branches; false after the last. */
bool cdc_plan_branch_next(cdc_plan_branch_t *br);

/**
 * The common types of @p n rows of as many columns (Flink's result types of UNION ALL and of the
 * set operators) into *out (new), NULL when every row has the first's types already. @p what
 * names the operator ("UNION ALL", "INTERSECT"), @p part one of its inputs ("branch",
 * "operand"). 0; or -1 with *err at @p line:@p col of @p env's text when the rows' widths differ
 * or a column has no common type.
 */
int cdc_plan_common_row(const cdc_plan_env_t *env, int line, int col,
                        const cdc_type_t *const *types, int n, const char *what, const char *part,
                        cdc_type_t **out, cdc_error_t **err);

/**
 * Appends the plan of the @p n pipes of one INSERT of a UNION ALL (see cdc_plan_branch_t) as
 * EXPLAIN prints it: the sink once, a Union node, then each branch's plan under it.
 */
void cdc_pipe_explain_union(cdc_pipe_t *const *pipes, int n, cdc_buf_t *out);

/** Appends the pipe's plan, one node per line, as EXPLAIN prints it. */
void cdc_pipe_explain(const cdc_pipe_t *pipe, cdc_buf_t *out);

/**
 * Opens the state split `split` needs to run the pipe's row steps (for a
 * lookup join: its lookup handle and cache; nothing otherwise). Used by one
 * thread only. Returns 0 and *out (close it with cdc_pipe_split_close), or
 * -1 with *err.
 */
int cdc_pipe_split_open(cdc_pipe_t *pipe, int split, cdc_pipe_split_t **out, cdc_error_t **err);

/** The error of the last cdc_pipe_transform that returned -2 (the caller owns it). */
cdc_error_t *cdc_pipe_split_take_error(cdc_pipe_split_t *ps);

void cdc_pipe_split_close(cdc_pipe_split_t *ps); /* NULL is accepted */

/**
 * Runs the pipe's row steps on `in` (rows from the source) and appends the
 * rows for the sink to `out`, with the state of the split (from
 * cdc_pipe_split_open; NULL only for a pipe without a lookup join). Returns
 * 0; -1 with a reason in errbuf for a row that failed (unless the pipe skips
 * bad rows; *skipped counts those); -2 when a lookup failed after its
 * retries (cdc_pipe_split_take_error); or -3 with the column and the row in
 * errbuf when a NOT NULL sink column got NULL under not-null-enforcer ERROR
 * (under DROP the row is dropped and counted in not_null_dropped).
 */
int cdc_pipe_transform(cdc_pipe_t *pipe, cdc_pipe_split_t *ps, cdc_batch_t *in, cdc_batch_t *out,
                       uint64_t *skipped, char *errbuf, size_t errlen);

void cdc_pipe_destroy(cdc_pipe_t *pipe);

#endif
