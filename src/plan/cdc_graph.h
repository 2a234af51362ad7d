/*
 * cdc_graph.h — the stateful part of a planned INSERT (GROUP BY, regular
 * joins, DISTINCT, Top-N), shared by the planner that builds it
 * (cdc_plan_stateful.c) and the runtime that runs it (src/exec/cdc_graph.c).
 *
 * A stateful query becomes:
 *   - leaf pipes: one per table the stateful operators read (each an ordinary
 *     pipe for `SELECT * FROM <that table, view or stateless subquery>`, with
 *     its source, pushdowns, ChangelogNormalize and Calc stages); their rows
 *     go into an operator's input port instead of a sink;
 *   - operators (Calc, GroupAggregate, Join, Rank, Window, OverAggregate), each
 *     feeding its parent's port, the root last; keyed state in the job's state
 *     store;
 *   - the top pipe: the rest of the query and the sink, planned as an
 *     ordinary pipe over the root's output (an internal table with the root's
 *     changelog mode and unique key); its source is never opened: the runtime
 *     hands it the root's rows.
 * Every leaf pipe of the job points at the graph (cdc_pipe_t.graph); the
 * runtime then runs the leaves' splits as usual, their writers feeding the
 * graph under one lock, and checkpoints the state with every source's
 * position at a barrier of all splits.
 */
#ifndef CDC_GRAPH_H
#define CDC_GRAPH_H

#include "cdc_planner.h"

typedef enum cdc_op_kind {
    CDC_OP_CALC = 1,  /* stage over the input row */
    CDC_OP_AGG,       /* GroupAggregate (DISTINCT is one without aggregate calls) */
    CDC_OP_JOIN,      /* regular equi-join of two changelogs */
    CDC_OP_RANK,      /* Top-N: ROW_NUMBER() OVER (PARTITION BY .. ORDER BY ..) <= N */
    CDC_OP_WINDOW,    /* window table function: each row once per window it falls in, with
                         window_start, window_end, window_time appended */
    CDC_OP_UNION,     /* UNION ALL: the rows of every input on port 0, as they come */
    CDC_OP_REPLICATE, /* each row (count, fields...) as count copies of its fields (the end of
                        INTERSECT ALL and EXCEPT ALL, Flink's $REPLICATE_ROWS$) */
    CDC_OP_OVER,      /* OverAggregate: each row with aggregates over a frame of its partition's
                         rows ordered by a time attribute appended (append-only in and out) */
    CDC_OP_EXPAND,    /* GROUPING SETS: each row once per grouping set, the group keys outside
                         the set NULL, the set's id ($e) appended */
    CDC_OP_SORT       /* TemporalSort: ORDER BY an event-time attribute ASC, ...: rows held until
                         the watermark passes their time, then in order (input fields) */
} cdc_op_kind_t;

typedef enum cdc_agg_fn {
    CDC_AGG_COUNT_STAR = 1,
    CDC_AGG_COUNT,
    CDC_AGG_SUM,
    CDC_AGG_SUM0, /* $SUM0: SUM that is 0, not NULL, for no rows (internal) */
    CDC_AGG_AVG,
    CDC_AGG_MIN,
    CDC_AGG_MAX
} cdc_agg_fn_t;

typedef struct cdc_agg_call_s {
    cdc_agg_fn_t fn;
    int arg;          /* input field; -1 for COUNT(*) */
    bool distinct;    /* over the distinct non-NULL values of arg */
    cdc_type_t *type; /* the result's type, owned */
    cdc_type_t *acc;  /* the accumulator's sum type (SUM/AVG), owned; else NULL */
    char *text;       /* "COUNT(DISTINCT user_id)" for EXPLAIN */
} cdc_agg_call_t;

typedef struct cdc_op_s cdc_op_t;

struct cdc_op_s {
    cdc_op_kind_t kind;
    int id;                 /* 1.., the state namespace */
    cdc_type_t *in_type[2]; /* per input port (borrowed from the child or leaf), [1] JOIN only */
    cdc_changelog_mode_t in_mode[2]; /* what each input port gets */
    cdc_type_t *out_type;            /* owned */
    cdc_op_t *parent;                /* NULL for the root: its rows go to the top pipe */
    int parent_port;
    cdc_changelog_mode_t mode; /* what it emits */
    int *ukey;                 /* a unique key of its output (field indexes), owned */
    int nukey;                 /* 0: none known */
    char *explain;             /* "GroupAggregate(groupBy=[a], select=[a, COUNT(*) AS c])" */

    /* CALC */
    cdc_stage_t stage;

    /* AGG: output = group fields, then one field per call */
    int *group;
    int ngroup;
    cdc_agg_call_t *aggs;
    int naggs;

    /* JOIN: output = left fields, then right fields */
    int join_kind; /* cdc_sql_join_kind_t */
    int nkeys;
    int *lkeys, *rkeys; /* equi-join fields of each side */
    cdc_expr_t *cond;   /* the other conditions over the output row; NULL when none */
    int *side_ukey[2];  /* a unique key of each input (field indexes), NULL when none */
    int side_nukey[2];
    /* a semi (anti) join emits the left row while it matches some (no) right row: out_type is
       the left's; cond is over cond_type, the left and right fields (owned) */
    bool semi, anti;
    bool null_safe; /* the keys match when both are NULL (IS NOT DISTINCT FROM: set operators) */
    cdc_type_t *cond_type;
    /* an interval join (Flink's IntervalJoin on event time): append-only inputs, cond holds
       left.t - right.t within [ilo, ihi] (ms) on the time attributes ltime (left field) and rtime
       (right field); a row waits in the state until the watermark passes the last time a row of
       the other side can join it, then leaves it (an outer side's unmatched row emitted
       NULL-padded then); insert-only output */
    bool interval;
    int ltime, rtime;
    int64_t ilo, ihi;

    /* RANK: output = input fields, then rn when emit_rn */
    int *part;
    int npart;
    int *order; /* input fields */
    bool *desc;
    bool *nulls_first;
    int norder;
    int64_t limit; /* rn <= limit */
    bool emit_rn;
    bool by_arrival; /* ORDER BY a processing-time attribute: arrival order (deduplication) */

    /* WINDOW, SORT: the time attribute (input field); WINDOW: sizes in milliseconds; SORT: the
       ORDER BY keys in order/desc/nulls_first, the time attribute first */
    int win_kind; /* cdc_sql_tvf_kind_t */
    int timecol;
    int64_t win_size, win_step, win_offset;

    /* EXPAND: the group keys are input fields 0..ngroup-1; per set, the mask of the keys in it
       and its id (bit ngroup-1-i set when key i is not in it, as Flink's $e) */
    uint64_t *sets;
    int64_t *set_ids;
    int nsets;

    /* AGG over windows (GROUP BY window_start, window_end, ...): results once the watermark
       passes the window's end, insert-only; late rows dropped */
    bool windowed;
    int win_end_field;  /* the group field holding window_end */
    int win_time_field; /* the group field holding window_time; -1 when none */
    bool proctime;      /* WINDOW and its AGG on processing time: windows fire on the wall clock
                          (pending ones are dropped when the input ends, as Flink's) */
    bool minibatch;     /* AGG (not windowed): table.exec.mini-batch.enabled: its input rows are
                           buffered per group key and folded into the state once per batch */

    /* OVER: output = input fields, then one field per call of aggs; partition fields in part;
       the time attribute in timecol (event time, or arrival order when by_arrival) */
    bool over_rows;         /* a ROWS frame (else RANGE) */
    int64_t over_preceding; /* rows (ROWS) or milliseconds (RANGE) the frame reaches back from
                               the current row; -1 for UNBOUNDED PRECEDING */

    void *rt; /* the runtime's per-operator data */
};

typedef struct cdc_graph_s {
    cdc_op_t **ops; /* children before parents; the root last */
    int nops;
    cdc_pipe_t **leaves; /* borrowed: the job's pipes, each with graph = this */
    int nleaves;
    int *leaf_op; /* per leaf: the operator it feeds (index into ops) and the port */
    int *leaf_port;
    cdc_expr_t **leaf_wm; /* per leaf: its table's WATERMARK expression over the leaf's rows
                             (a TIMESTAMP), owned; NULL when the leaf has none */
    cdc_pipe_t *top;      /* the sink pipe over the root's output, owned */
    cdc_catalog_t *cat;   /* where the root's output is a temporary table (the top pipe's
                             source), named out_name, dropped by cdc_plan_graph_forget */
    char *out_name;
    int64_t ttl_ms;         /* table.exec.state.ttl; 0 = forever */
    int64_t minibatch_ms;   /* table.exec.mini-batch.allow-latency of the mini-batch operators */
    int64_t minibatch_size; /* table.exec.mini-batch.size: rows buffered before a batch fires */
    bool resumable;         /* every leaf's connector resumes from positions the job keeps */
    int refs;               /* leaf pipes pointing here */
    void *rt;               /* the runtime's data (state store, barrier, writer) */
} cdc_graph_t;

/** Whether the INSERT's query needs state (GROUP BY, aggregates, DISTINCT, regular joins, Top-N)
 * anywhere down its subqueries, WITH queries and views. */
bool cdc_plan_needs_state(const cdc_plan_env_t *penv, const cdc_sql_insert_t *ins);

/**
 * Plans such an INSERT: the graph with its top pipe, and its leaf pipes, which the caller runs as
 * the job's pipes (*leaves, malloc'ed array of *nleaves; each pipe's `graph` points at the graph,
 * which the last cdc_pipe_destroy frees). 0, or -1 with *err.
 */
int cdc_plan_stateful(const cdc_plan_env_t *penv, const cdc_sql_insert_t *ins, cdc_pipe_t ***leaves,
                      int *nleaves, cdc_error_t **err);

/** Drops the temporary table of the graph's output (the runtime's release calls it). */
void cdc_plan_graph_forget(cdc_graph_t *g);

/** Frees the graph when the last leaf pipe lets go of it (cdc_pipe_destroy calls it). */
void cdc_graph_release(cdc_graph_t *g);

/** Appends the plan as EXPLAIN prints it: the top pipe's nodes down to the root operator, then
 * the operators and under each its inputs (the leaf pipes' nodes). */
void cdc_graph_explain(const cdc_graph_t *g, cdc_buf_t *out);

#endif
