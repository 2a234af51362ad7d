/*
 * cdc_plan_int.h — private to the planner (cdc_planner.c, cdc_plan_query.c,
 * cdc_plan_join.c): the query levels of an INSERT (its query, then each
 * view's, subquery's or WITH query's), table contexts, what is read from a query's expressions
 * (cdc_plan_query.c), and the lookup join planning (cdc_plan_join.c).
 */
#ifndef CDC_PLAN_INT_H
#define CDC_PLAN_INT_H

#include "cdc_pipe_int.h"

#define CDC_PLAN_MAX_CONJUNCTS 64

/* One query level: the INSERT's query, or a view's, with where its text lives. */
typedef struct cdc_plan_level_s {
    const cdc_sql_query_t *q;
    const char *text;
    size_t len;
    const char *filename; /* owned when `owned_name` */
    bool owned_name;
    const cdc_view_def_t *view;  /* the view whose query this is, NULL for the INSERT's */
    const char *rel_name;        /* how the level above names this level's rows (the view's or
                                    WITH query's name, a subquery's alias); NULL for the INSERT's */
    const cdc_sql_query_t *head; /* a UNION ALL: its first branch (its WITH list and column
                                    names), when q is another branch; else NULL */
} cdc_plan_level_t;

/**
 * Resolves a table's options (connector, formats), with the OPTIONS hint of @p hints (may be
 * NULL) merged over them for this query, into *res and fills *ctx for its factory (borrowing
 * from def and res). Returns 0, or -1 with *err (context: where the CREATE TABLE is).
 */
/* Adds "CREATE TABLE at file:line:col" of @p def to @p err (where the table was declared). */
void cdc_plan_context_create_table(cdc_error_t *err, const cdc_table_def_t *def);

int cdc_plan_build_ctx(const cdc_table_def_t *def, const cdc_sql_hints_t *hints,
                       cdc_resolved_t *res, cdc_table_ctx_t *ctx, int parallelism,
                       cdc_error_t **err);

/**
 * Checks the hints written in a query level (text/len/filename locate it): any hint but
 * OPTIONS is refused by name, and OPTIONS when table.dynamic-table-options.enabled is false.
 * Returns 0, or -1 with *err.
 */
int cdc_plan_check_hints(const cdc_plan_env_t *penv, const char *text, size_t len,
                         const char *filename, const cdc_sql_hints_t *hints, cdc_error_t **err);

/** UDF resolver of expression environments; ctx is the catalog. */
const cdc_udf_def_t *cdc_plan_udf_lookup(void *ctx, const char *name);

/** Calls fn for every node of an expression, a node before its operands, the PARTITION BY and
 * ORDER BY of a call's OVER included (NULL: none). */
void cdc_plan_walk_exprs(const cdc_sql_expr_t *e, void (*fn)(const cdc_sql_expr_t *node, void *ctx),
                         void *ctx);

/** Calls fn for every column reference (and `*`) in an expression (NULL: none). */
void cdc_plan_walk_columns(const cdc_sql_expr_t *e,
                           void (*fn)(const cdc_sql_expr_t *ref, void *ctx), void *ctx);

/** Marks in `need` (per field of row_type) every column an expression may read. */
void cdc_plan_mark_refs(const cdc_sql_expr_t *e, const cdc_type_t *row_type,
                        const char *const *quals, int nquals, bool *need);

/** Name of a column reference: "t.a" -> "a" when t is one of quals; "a.b" -> "a". */
const char *cdc_plan_ref_name(const cdc_sql_expr_t *e, const char *const *quals, int nquals);

/*
 * Access paths of column references, for nested projection: `r.a.b` (after a
 * table qualifier, resolved as the expression compiler does) is the path
 * {r, a, b} as long as the parts name fields of nested ROWs; a bare `r`, or
 * `*`, is the whole column (depth 1). Paths index the table row's columns.
 */
typedef struct cdc_plan_paths_s {
    const cdc_type_t *row_type;
    const char *const *quals;
    int nquals;
    cdc_field_path_t *paths;
    int n, cap;
} cdc_plan_paths_t;

/**
 * A cdc_plan_walk_columns callback (ctx: a cdc_plan_paths_t) that appends the
 * access path of each reference to ctx->paths (grown with cdc_xrealloc; the
 * caller frees it).
 */
void cdc_plan_path_ref(const cdc_sql_expr_t *e, void *ctx);

/** True when path a is a prefix of (or equal to) path b. */
bool cdc_plan_path_covers(const cdc_field_path_t *a, const cdc_field_path_t *b);

/** qsort order of access paths: by index, a prefix first. */
int cdc_plan_path_cmp(const void *x, const void *y);

/**
 * Compiles one query level against `in_type` (whose relation is `rel_name`)
 * into a stage: its select list, WHERE and EXPLAIN text, renamed by a view's
 * column list. Returns 0, or -1 with *err (st then holds what was compiled,
 * for the pipe to free).
 */
int cdc_plan_compile_stage(const cdc_plan_env_t *penv, const cdc_plan_level_t *lv,
                           const cdc_type_t *in_type, const char *rel_name, cdc_stage_t *st,
                           cdc_error_t **err);

/** True for a computed column `c AS PROCTIME()`: a processing-time attribute. */
bool cdc_plan_is_proctime(const cdc_sql_expr_t *e);

/*
 * The dim side of a lookup join: its table (not a view, physical columns
 * only), a source that can look up, the joined row's names, the lookup
 * options; then the query, ON clause and FOR SYSTEM_TIME AS OF expression
 * rewritten to the joined row. *rq and *on are new (the caller frees them).
 * *out is set as soon as it is allocated (the caller frees it, also on
 * failure). Returns 0 or -1 with *err.
 */
int cdc_plan_join_dim(const cdc_plan_env_t *penv, const cdc_plan_level_t *lv,
                      const cdc_table_def_t *src_def, const cdc_type_t *table_type,
                      cdc_lookup_join_t **out, cdc_sql_query_t **rq, cdc_sql_expr_t **on,
                      cdc_error_t **err);

/*
 * Splits the rewritten ON clause into lookup keys (`d.col = <expression over
 * the probe row>`, each dim column once) and other conditions, and compiles
 * both. Needs the table row's final types.
 *
 * `on` is the rewritten ON clause, `join` the join as written. Fills j's
 * keys, conditions and EXPLAIN text. Returns 0 or -1 with *err.
 */
int cdc_plan_join_condition(const cdc_plan_env_t *penv, const cdc_plan_level_t *lv,
                            cdc_lookup_join_t *j, const cdc_type_t *table_type,
                            const cdc_sql_expr_t *on, const cdc_sql_join_t *join,
                            cdc_error_t **err);

/*
 * JOIN UNNEST(arg): the argument resolved to the table row and typed, the columns UNNEST adds
 * (named by the column list when written), the joined row; the query and ON clause rewritten to
 * it as cdc_plan_join_dim does. *out is set as soon as it is allocated (cdc_pipe_destroy frees
 * it, also on failure). Returns 0 or -1 with *err.
 */
int cdc_plan_join_unnest(const cdc_plan_env_t *penv, const cdc_plan_level_t *lv,
                         const cdc_table_def_t *src_def, const cdc_type_t *table_type,
                         cdc_unnest_t **out, cdc_sql_query_t **rq, cdc_sql_expr_t **on,
                         cdc_error_t **err);
/* Compiles the argument and the ON clause's conditions once the table row's types are final,
 * and the EXPLAIN text. Returns 0 or -1 with *err. */
int cdc_plan_unnest_compile(const cdc_plan_env_t *penv, const cdc_plan_level_t *lv, cdc_unnest_t *u,
                            const cdc_type_t *table_type, const cdc_sql_expr_t *on,
                            cdc_error_t **err);

/** Frees a query cdc_plan_join_dim rewrote (its items and WHERE; NULL is accepted). */
void cdc_plan_join_query_free(cdc_sql_query_t *q);

#endif
