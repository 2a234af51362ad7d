/*
 * cdc_script.c — executing a pipeline file: each statement in order (SET,
 * RESET, catalog DDL and SHOW through cdc_ddl.c, EXPLAIN), and each INSERT or
 * statement set planned (cdc_planner.c) and run as a job (cdc_job_run).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cdc_catalog.h"
#include "cdc_ddl.h"
#include "cdc_evolve.h"
#include "cdc_expr.h"
#include "cdc_job.h"
#include "cdc_log.h"
#include "cdc_planner.h"
#include "cdc_runtime.h"
#include "cdc_util.h"

/* ---- statements ------------------------------------------------------------------ */

typedef struct run_ctx {
    cdc_catalog_t *cat;
    cdc_kv_t settings;
    const char *text;
    size_t len;
    const char *filename;
    const cdc_run_opts_t *opts;
    cdc_kv_t warned; /* harmless settings already warned about */
} run_ctx_t;

/* What a SET key does (README "Settings" lists the same table). */
typedef enum setting_kind {
    SETTING_ACTS = 1, /* implemented: job_params reads it */
    SETTING_HARMLESS, /* no effect on results here: accepted with one warning */
    SETTING_REFUSED   /* would change results, and cdcflow does not offer it: an error */
} setting_kind_t;

typedef struct setting {
    const char *key; /* exact, or a prefix ending in ".*" */
    setting_kind_t kind;
    const char *values; /* SETTING_ACTS: the values accepted, "a|b" in any case; NULL: any that
                           job_params takes */
    const char *why;    /* SETTING_REFUSED, or a value outside `values`: the reason */
} setting_t;

static const setting_t settings_table[] = {
    {"parallelism.default", SETTING_ACTS, NULL, NULL},
    {"table.exec.resource.default-parallelism", SETTING_ACTS, NULL, NULL},
    {"execution.batch-size", SETTING_ACTS, NULL, NULL},
    {"execution.checkpointing.interval", SETTING_ACTS, NULL, NULL},
    {"pipeline.name", SETTING_ACTS, NULL, NULL},
    {"execution.runtime-mode", SETTING_ACTS, "streaming",
     "batch execution is not supported: jobs run in streaming mode (a bounded source ends its "
     "job)"},
    {"table.local-time-zone", SETTING_ACTS, "UTC|Z|GMT|+00:00",
     "the session time zone is UTC: TIMESTAMP_LTZ values are read and printed in UTC"},
    {"table.exec.source.cdc-events-duplicate", SETTING_ACTS, NULL, NULL},
    {"table.exec.expression-error.policy", SETTING_ACTS, NULL, NULL},
    {"table.dynamic-table-options.enabled", SETTING_ACTS, NULL, NULL},
    {"table.exec.sink.not-null-enforcer", SETTING_ACTS, NULL, NULL},
    {"schema.change.behavior", SETTING_ACTS, "exception|evolve|try_evolve|lenient|ignore",
     "Flink CDC's schema change behaviors are exception, evolve, try_evolve, lenient (the "
     "default) and ignore"},
    {"pipeline.schema.change.behavior", SETTING_ACTS, "exception|evolve|try_evolve|lenient|ignore",
     "Flink CDC's schema change behaviors are exception, evolve, try_evolve, lenient (the "
     "default) and ignore"},
    {"pipeline.max-parallelism", SETTING_HARMLESS, NULL, NULL},
    {"table.planner", SETTING_HARMLESS, NULL, NULL}, /* 'blink', Flink's only planner */
    {"pipeline.operator-chaining", SETTING_HARMLESS, NULL, NULL},
    {"execution.checkpointing.*", SETTING_HARMLESS, NULL, NULL},
    {"restart-strategy.*", SETTING_HARMLESS, NULL, NULL},
    {"sql-client.*", SETTING_HARMLESS, NULL, NULL},
    {"state.*", SETTING_HARMLESS, NULL, NULL},
    {"taskmanager.*", SETTING_HARMLESS, NULL, NULL},
    {"jobmanager.*", SETTING_HARMLESS, NULL, NULL},
    {"table.exec.mini-batch.enabled", SETTING_ACTS, NULL, NULL},
    {"table.exec.mini-batch.allow-latency", SETTING_ACTS, NULL, NULL},
    {"table.exec.mini-batch.size", SETTING_ACTS, NULL, NULL},
    {"table.exec.source.idle-timeout", SETTING_HARMLESS, NULL, NULL},
    {"table.exec.sink.keyed-shuffle", SETTING_HARMLESS, NULL, NULL},
    {"table.optimizer.*", SETTING_HARMLESS, NULL, NULL},
    {"table.exec.state.ttl", SETTING_ACTS, NULL, NULL},
    {"table.exec.sink.upsert-materialize", SETTING_REFUSED, NULL,
     "sinks apply changes in the order they arrive, without materializing them"},
};

#define NSETTINGS (sizeof(settings_table) / sizeof(settings_table[0]))

/* The entry of @p key: its exact one, else the longest prefix that matches; NULL when none. */
static const setting_t *setting_find(const char *key)
{
    const setting_t *best = NULL;
    size_t best_len = 0;
    for (size_t i = 0; i < NSETTINGS; i++) {
        const char *k = settings_table[i].key;
        size_t n = strlen(k);
        if (strcmp(k, key) == 0)
            return &settings_table[i];
        if (n > 2 && strcmp(k + n - 2, ".*") == 0 && strncmp(k, key, n - 1) == 0 && n > best_len) {
            best = &settings_table[i];
            best_len = n;
        }
    }
    return best;
}

/* Whether @p v is one of the "a|b" values (any case). */
static bool value_listed(const char *values, const char *v)
{
    size_t n = strlen(v);
    for (const char *p = values; p && *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncasecmp(p, v, n) == 0)
            return true;
        p = bar ? bar + 1 : NULL;
    }
    return false;
}

/* The settings as job parameters (*js, *parallelism) and planner switches (*penv). */
static int job_params(run_ctx_t *rc, cdc_job_settings_t *js, int *parallelism, cdc_plan_env_t *penv,
                      cdc_error_t **err)
{
    *js = (cdc_job_settings_t){.batch_rows = 1024, .flush_rows = 10000, .flush_interval_ms = 1000};
    penv->minibatch_size = -1; /* Flink's defaults: size -1, allow-latency 0 ms */
    *parallelism = rc->opts->parallelism > 0 ? rc->opts->parallelism : 1;
    for (int i = 0; i < rc->settings.n; i++) {
        const char *k = rc->settings.keys[i], *v = rc->settings.values[i];
        int64_t n;
        if (strcmp(k, "parallelism.default") == 0 ||
            strcmp(k, "table.exec.resource.default-parallelism") == 0) {
            if (cdc_parse_int(v, &n) < 0 || n < 1 || n > 256)
                return cdc_error_set(err, CDC_ERR_OPTION,
                                     "setting \"%s\": expected an integer from 1 to 256, found "
                                     "\"%s\"",
                                     k, v);
            if (rc->opts->parallelism <= 0)
                *parallelism = (int)n;
        } else if (strcmp(k, "execution.batch-size") == 0) {
            if (cdc_parse_int(v, &n) < 0 || n < 1 || n > 1000000)
                return cdc_error_set(err, CDC_ERR_OPTION,
                                     "setting \"%s\": expected an integer from 1 to 1000000, "
                                     "found \"%s\"",
                                     k, v);
            js->batch_rows = (uint32_t)n;
        } else if (strcmp(k, "table.exec.source.cdc-events-duplicate") == 0) {
            bool b;
            if (cdc_parse_bool(v, &b) < 0)
                return cdc_error_set(err, CDC_ERR_OPTION,
                                     "setting \"%s\": expected true or false, found \"%s\"", k, v);
            js->cdc_events_duplicate = b;
        } else if (strcmp(k, "table.exec.expression-error.policy") == 0) {
            if (strcasecmp(v, "FAIL") != 0 && strcasecmp(v, "SKIP") != 0)
                return cdc_error_set(err, CDC_ERR_OPTION,
                                     "setting \"%s\": expected FAIL or SKIP, found \"%s\"", k, v);
            js->skip_bad_rows = strcasecmp(v, "SKIP") == 0;
        } else if (strcmp(k, "execution.checkpointing.interval") == 0) {
            if (cdc_parse_duration_ms(v, &n) < 0)
                return cdc_error_set(err, CDC_ERR_OPTION,
                                     "setting \"%s\": expected a duration, found \"%s\"", k, v);
            js->flush_interval_ms = n;
        } else if (strcmp(k, "table.exec.state.ttl") == 0) {
            if (cdc_parse_duration_ms(v, &n) < 0 || n < 0)
                return cdc_error_set(err, CDC_ERR_OPTION,
                                     "setting \"%s\": expected a duration, found \"%s\"", k, v);
            penv->state_ttl_ms = n;
        } else if (strcmp(k, "table.exec.mini-batch.enabled") == 0) {
            if (cdc_parse_bool(v, &penv->minibatch) < 0)
                return cdc_error_set(err, CDC_ERR_OPTION,
                                     "setting \"%s\": expected true or false, found \"%s\"", k, v);
        } else if (strcmp(k, "table.exec.mini-batch.allow-latency") == 0) {
            if (cdc_parse_duration_ms(v, &penv->minibatch_ms) < 0)
                return cdc_error_set(err, CDC_ERR_OPTION,
                                     "setting \"%s\": expected a duration, found \"%s\"", k, v);
        } else if (strcmp(k, "table.exec.mini-batch.size") == 0) {
            if (cdc_parse_int(v, &penv->minibatch_size) < 0)
                return cdc_error_set(err, CDC_ERR_OPTION,
                                     "setting \"%s\": expected an integer, found \"%s\"", k, v);
        } else if (strcmp(k, "table.dynamic-table-options.enabled") == 0) {
            bool b;
            if (cdc_parse_bool(v, &b) < 0)
                return cdc_error_set(err, CDC_ERR_OPTION,
                                     "setting \"%s\": expected true or false, found \"%s\"", k, v);
            penv->dynamic_options_disabled = !b;
        } else if (strcmp(k, "table.exec.sink.not-null-enforcer") == 0) {
            if (strcasecmp(v, "ERROR") != 0 && strcasecmp(v, "DROP") != 0)
                return cdc_error_set(err, CDC_ERR_OPTION,
                                     "setting \"%s\": expected ERROR or DROP, found \"%s\"", k, v);
            penv->not_null_drop = strcasecmp(v, "DROP") == 0;
        }
    }
    return 0;
}

/* The schema hooks of a job (cdc_job.h): the statements, pipes and the change being applied. */
typedef struct evolve_ctx {
    run_ctx_t *rc;
    cdc_sql_insert_t *inserts; /* per pipe: its INSERT, the query a UNION ALL's branch */
    cdc_pipe_t **pipes;
    const char *job;
    cdc_sc_policy_t policy; /* SET 'schema.change.behavior' */
    int pipe;               /* the pipe of the change being applied */
    cdc_schema_change_t *change;
    cdc_evolve_t ev;
} evolve_ctx_t;

static void log_edits(const evolve_ctx_t *x, const char *what, const cdc_schema_change_t *e)
{
    if (!e)
        return;
    cdc_buf_t b = {0};
    cdc_schema_change_describe(e, &b);
    cdc_log(CDC_LOG_INFO, x->job, x->pipes[x->pipe]->sink_name, "schema change: %s \"%s\": %s",
            what, e->table, cdc_buf_cstr(&b));
    cdc_buf_free(&b);
}

static int evolve_decide(void *ctx, int pipe, const cdc_schema_change_t *change, cdc_error_t **err)
{
    evolve_ctx_t *x = ctx;
    cdc_evolve_clear(&x->ev);
    cdc_evolve_action_t a = cdc_evolve_decide(x->rc->cat, &x->inserts[pipe], x->pipes[pipe], change,
                                              x->policy, &x->ev, err);
    if (a == CDC_EVOLVE_FAIL)
        return -1;
    x->pipe = pipe;
    const char *sink = x->pipes[pipe]->sink_name;
    if (x->ev.notes.len)
        cdc_log(CDC_LOG_WARN, x->job, sink, "schema change of %s at %s ('%s'): %s", change->table,
                change->position, cdc_sc_policy_name(x->ev.policy), cdc_buf_cstr(&x->ev.notes));
    if (a == CDC_EVOLVE_GO_ON) {
        cdc_log(CDC_LOG_INFO, x->job, sink,
                "schema change of %s at %s ('%s'): the pipeline's columns stay as they are",
                change->table, change->position, cdc_sc_policy_name(x->ev.policy));
        return 0;
    }
    cdc_schema_change_free(x->change);
    x->change = cdc_schema_change_copy(change);
    log_edits(x, "source table", x->ev.src_edits);
    log_edits(x, "sink table", x->ev.sink_edits);
    return 1;
}

static int evolve_apply(void *ctx, cdc_error_t **err)
{
    evolve_ctx_t *x = ctx;
    return cdc_evolve_apply(x->rc->cat, x->pipes[x->pipe], x->change, &x->ev, err);
}

/* The tables of an INSERT, evolved as an earlier run recorded (cdc_evolve_restore). */
static int restore_tables(run_ctx_t *rc, const cdc_sql_insert_t *ins, cdc_error_t **err)
{
    if (rc->opts->explain_only)
        return 0;
    if (cdc_evolve_restore(rc->cat, &ins->table, err) < 0)
        return -1;
    for (const cdc_sql_query_t *q = ins->query; q; q = q->union_all)
        if (q->from.name.nparts && cdc_evolve_restore(rc->cat, &q->from.name, err) < 0)
            return -1;
    return 0;
}

/* The planner's environment for this run: its settings as job_params read them. */
static cdc_plan_env_t plan_env(run_ctx_t *rc, const cdc_job_settings_t *js, int parallelism,
                               const cdc_plan_env_t *base)
{
    return (cdc_plan_env_t){.cat = rc->cat,
                            .text = rc->text,
                            .len = rc->len,
                            .filename = rc->filename,
                            .parallelism = parallelism,
                            .cdc_events_duplicate = js->cdc_events_duplicate,
                            .skip_bad_rows = js->skip_bad_rows,
                            .dynamic_options_disabled = base->dynamic_options_disabled,
                            .not_null_drop = base->not_null_drop,
                            .state_ttl_ms = base->state_ttl_ms,
                            .minibatch = base->minibatch,
                            .minibatch_ms = base->minibatch_ms,
                            .minibatch_size = base->minibatch_size};
}

/* The row type (names and types) of query @p q, planned as a bare query and not run. A new type
 * in *out the caller destroys; 0, or -1 with *err. */
static int query_row_type(run_ctx_t *rc, cdc_sql_query_t *q, cdc_type_t **out, cdc_error_t **err)
{
    cdc_job_settings_t js;
    int parallelism;
    cdc_plan_env_t base = {0};
    if (job_params(rc, &js, &parallelism, &base, err) < 0)
        return -1;
    cdc_plan_env_t penv = plan_env(rc, &js, parallelism, &base);
    cdc_sql_insert_t ins = {.query = q};
    ins.table.line = q->line;
    ins.table.col = q->col;
    cdc_pipe_t *p = NULL;
    if (cdc_plan_insert(&penv, &ins, &p, err) < 0)
        return -1;
    *out = cdc_type_copy(p->result_def->schema);
    cdc_pipe_destroy(p);
    return 0;
}

/* The pipes of a job and, per pipe, the INSERT it plans (a UNION ALL's branch as its query). */
typedef struct pipe_list {
    cdc_pipe_t **pipes;
    cdc_sql_insert_t *inserts;
    int n, cap;
} pipe_list_t;

/* Appends the pipes of INSERT @p ins to @p pl: one per branch of each UNION ALL on the way to a
 * table (cdc_plan_branch_t). A bare query whose branches differ in column types is planned again
 * with the common types (Flink's union type). 0, or -1 with *err. */
static int plan_branches(const cdc_plan_env_t *penv0, cdc_sql_insert_t *ins, pipe_list_t *pl,
                         cdc_error_t **err)
{
    int first = pl->n;
    cdc_plan_env_t penv = *penv0;
    cdc_type_t *common = NULL;
    if (cdc_plan_needs_state(penv0, ins)) {
        cdc_pipe_t **leaves = NULL;
        int nleaves = 0;
        if (cdc_plan_stateful(penv0, ins, &leaves, &nleaves, err) < 0)
            return -1;
        for (int i = 0; i < nleaves; i++) {
            if (pl->n == pl->cap) {
                pl->cap = pl->cap ? 2 * pl->cap : 4;
                pl->pipes = cdc_xrealloc(pl->pipes, (size_t)pl->cap * sizeof(*pl->pipes));
                pl->inserts = cdc_xrealloc(pl->inserts, (size_t)pl->cap * sizeof(*pl->inserts));
            }
            pl->pipes[pl->n] = leaves[i];
            pl->inserts[pl->n++] = *ins;
        }
        free(leaves);
        return 0;
    }
    for (int pass = 0; pass < 2; pass++) {
        cdc_plan_branch_t br = {0};
        do {
            if (pl->n == pl->cap) {
                pl->cap = pl->cap ? 2 * pl->cap : 4;
                pl->pipes = cdc_xrealloc(pl->pipes, (size_t)pl->cap * sizeof(*pl->pipes));
                pl->inserts = cdc_xrealloc(pl->inserts, (size_t)pl->cap * sizeof(*pl->inserts));
            }
            pl->pipes[pl->n] = NULL;
            if (cdc_plan_insert_branch(&penv, ins, &br, &pl->pipes[pl->n], err) < 0) {
                cdc_type_destroy(common);
                return -1;
            }
            pl->inserts[pl->n] = *ins;
            for (int b = 0; ins->query->union_all && b < br.pick[0]; b++)
                pl->inserts[pl->n].query = pl->inserts[pl->n].query->union_all;
            pl->n++;
        } while (cdc_plan_branch_next(&br));
        if (pass || ins->table.nparts || pl->n - first < 2)
            break;
        int nt = pl->n - first;
        const cdc_type_t **types = cdc_xcalloc((size_t)nt, sizeof(*types));
        for (int i = 0; i < nt; i++)
            types[i] = pl->pipes[first + i]->result_def->schema;
        int crc = cdc_plan_common_row(penv0, ins->query->line, ins->query->col, types, nt,
                                      "UNION ALL", "branch", &common, err);
        free(types);
        if (crc < 0)
            return -1;
        if (!common)
            break;
        for (int i = first; i < pl->n; i++) {
            cdc_pipe_destroy(pl->pipes[i]);
            pl->pipes[i] = NULL;
        }
        pl->n = first;
        penv.result_types = common;
    }
    cdc_type_destroy(common);
    return 0;
}

static int do_inserts(run_ctx_t *rc, cdc_sql_stmt_t **inserts, size_t n, bool explain_only,
                      cdc_error_t **err)
{
    cdc_job_settings_t js;
    int parallelism;
    cdc_plan_env_t base = {0};
    if (job_params(rc, &js, &parallelism, &base, err) < 0)
        return -1;
    if (base.minibatch && base.minibatch_ms <= 0) {
        /* Flink checks it when it plans any query: "MiniBatch Latency must be greater than 0 ms."
         */
        *err = cdc_sql_error_at(CDC_ERR_OPTION, rc->text, rc->len, rc->filename, inserts[0]->line,
                                inserts[0]->col,
                                "setting \"table.exec.mini-batch.allow-latency\": the mini-batch "
                                "latency must be greater than 0 ms when mini-batch is enabled");
        cdc_error_set_hint(*err, "SET 'table.exec.mini-batch.allow-latency' = '1 s' (the longest "
                                 "a row waits) and 'table.exec.mini-batch.size' = '5000' (rows "
                                 "per batch), or SET 'table.exec.mini-batch.enabled' = 'false'");
        return -1;
    }
    char job[256];
    const char *pname = cdc_kv_get(&rc->settings, "pipeline.name");
    if (pname && *pname) {
        snprintf(job, sizeof(job), "%s", pname);
    } else {
        const char *base = strrchr(rc->filename, '/');
        snprintf(job, sizeof(job), "%s:%d", base ? base + 1 : rc->filename, inserts[0]->line);
    }
    js.job = job;
    js.status_line = rc->opts->status_line;
    evolve_ctx_t ex = {.rc = rc, .job = job};
    const char *pol = cdc_kv_get(&rc->settings, "schema.change.behavior");
    if (!pol)
        pol = cdc_kv_get(&rc->settings, "pipeline.schema.change.behavior");
    if (pol)
        cdc_sc_policy_parse(pol, &ex.policy); /* do_set checked the value */
    js.schema = (cdc_schema_hooks_t){.decide = evolve_decide, .apply = evolve_apply, .ctx = &ex};
    cdc_pipe_t **pipes = NULL;
    int *first_of = cdc_xcalloc(n + 1, sizeof(*first_of)); /* INSERT i: pipes [first_of[i], ..) */
    int npipes = 0, cap = 0;
    int status = 0;
    for (int round = 0;; round++) {
        npipes = 0;
        for (size_t i = 0; i < n && status == 0; i++) {
            cdc_sql_insert_t *ins = &inserts[i]->insert;
            if (round == 0 && restore_tables(rc, ins, err) < 0) {
                status = -1;
                break;
            }
            first_of[i] = npipes;
            pipe_list_t pl = {pipes, ex.inserts, npipes, cap};
            cdc_plan_env_t penv = plan_env(rc, &js, parallelism, &base);
            status = plan_branches(&penv, ins, &pl, err);
            pipes = pl.pipes;
            ex.inserts = pl.inserts;
            npipes = pl.n;
            cap = pl.cap;
            if (status < 0 && round > 0)
                cdc_error_add_context(*err, "planning the job again after a schema change");
        }
        first_of[n] = npipes;
        ex.pipes = pipes;
        if (status == 0 && explain_only) {
            cdc_buf_t b = {0};
            cdc_buf_puts(&b, "== Physical Plan ==\n");
            for (size_t i = 0; i < n; i++) {
                int k = first_of[i], nb = first_of[i + 1] - first_of[i];
                if (i)
                    cdc_buf_putc(&b, '\n');
                if (pipes[k]->graph)
                    cdc_graph_explain(pipes[k]->graph, &b);
                else if (nb > 1)
                    cdc_pipe_explain_union(&pipes[k], nb, &b);
                else
                    cdc_pipe_explain(pipes[k], &b);
            }
            fwrite(b.data, 1, b.len, rc->opts->out);
            fflush(rc->opts->out);
            cdc_buf_free(&b);
        } else if (status == 0) {
            cdc_runtime_resume_begin(round > 0);
            status = cdc_job_run(pipes, npipes, &js, err);
        }
        for (int i = 0; i < npipes; i++) {
            cdc_pipe_destroy(pipes[i]);
            pipes[i] = NULL;
        }
        if (status != CDC_JOB_REPLAN || cdc_runtime_stopping())
            break;
        status = 0;
        cdc_log(CDC_LOG_INFO, job, NULL,
                "planning the job again with the columns the schema change gave; it resumes "
                "where it stopped");
    }
    if (status == CDC_JOB_REPLAN)
        status = 0;
    cdc_evolve_clear(&ex.ev);
    cdc_schema_change_free(ex.change);
    free(pipes);
    free(ex.inserts);
    free(first_of);
    return status;
}

/*
 * CREATE TABLE t [WITH (...)] AS SELECT ..., as Flink runs it: the table is created with the
 * query's columns (their names and types as a bare query of it gives them), then the query is
 * inserted into it. With IF NOT EXISTS and the table there, the rows go into that table.
 * [CREATE OR] REPLACE TABLE: the new definition takes the old one's place in one step (the
 * catalog never lacks the table), then the rows are inserted.
 */
static int do_ctas(run_ctx_t *rc, cdc_sql_stmt_t *st, cdc_error_t **err)
{
    cdc_sql_create_table_t *ct = &st->create_table;
    const cdc_table_def_t *existing = NULL;
    int found = cdc_catalog_find(rc->cat, &ct->name, &existing, NULL, err);
    if (found < 0)
        return -1;
    if (!found && ct->replace == CDC_SQL_REPLACE) {
        cdc_buf_t name = {0};
        for (int i = 0; i < ct->name.nparts; i++)
            cdc_buf_printf(&name, "%s%s", i ? "." : "", ct->name.parts[i]);
        *err = cdc_sql_error_at(CDC_ERR_CATALOG, rc->text, rc->len, rc->filename, ct->name.line,
                                ct->name.col, "table \"%s\" to be replaced does not exist",
                                cdc_buf_cstr(&name));
        cdc_buf_free(&name);
        cdc_error_set_hint(*err, "use CREATE TABLE ... AS SELECT or CREATE OR REPLACE TABLE ... "
                                 "AS SELECT");
        return -1;
    }
    if (!found || !ct->if_not_exists) {
        cdc_type_t *row = NULL;
        if (query_row_type(rc, ct->as_query, &row, err) < 0) {
            cdc_error_add_context(*err, "deriving the columns of CREATE TABLE ... AS at %s:%d:%d",
                                  rc->filename, ct->as_line, ct->as_col);
            return -1;
        }
        ct->columns = cdc_xcalloc((size_t)row->nchildren, sizeof(*ct->columns));
        for (int i = 0; i < row->nchildren; i++) {
            cdc_sql_column_t *col = &ct->columns[ct->ncolumns++];
            col->kind = CDC_SQL_COLUMN_PHYSICAL;
            col->name = cdc_xstrdup(row->names[i]);
            col->line = col->type.line = ct->as_line;
            col->col = col->type.col = ct->as_col;
            col->type.text = cdc_type_to_string(row->children[i]);
        }
        cdc_type_destroy(row);
        if (cdc_catalog_create_table(rc->cat, ct, rc->text, rc->len, rc->filename, err) < 0)
            return -1;
    }
    cdc_sql_stmt_t ins = {.kind = CDC_SQL_STMT_INSERT, .line = st->line, .col = st->col};
    ins.insert.table = ct->name; /* borrowed, as the query */
    ins.insert.query = ct->as_query;
    cdc_sql_stmt_t *one = &ins;
    return do_inserts(rc, &one, 1, rc->opts->explain_only, err);
}

/* A bare SELECT: planned as an INSERT whose sink prints the rows. */
static int do_query(run_ctx_t *rc, cdc_sql_query_t *q, bool explain_only, cdc_error_t **err)
{
    cdc_sql_stmt_t fake;
    memset(&fake, 0, sizeof(fake));
    fake.kind = CDC_SQL_STMT_INSERT;
    fake.line = q->line;
    fake.col = q->col;
    fake.insert.query = q;
    fake.insert.table.line = q->line;
    fake.insert.table.col = q->col;
    cdc_sql_stmt_t *one = &fake;
    return do_inserts(rc, &one, 1, explain_only, err);
}

/* An error at the SET statement's key (or value) from a setting_t's reason. */
static int set_fail(run_ctx_t *rc, const cdc_sql_stmt_t *st, bool at_value, cdc_error_t **err,
                    const char *fmt, const char *a, const char *b)
{
    *err = cdc_sql_error_at(CDC_ERR_SQL, rc->text, rc->len, rc->filename,
                            at_value ? st->set.value_line : st->set.key_line,
                            at_value ? st->set.value_col : st->set.key_col, fmt, a, b);
    return -1;
}

/*
 * SET 'k' = 'v', one rule for every key (settings_table): a key that acts is checked now (its
 * value as job_params takes it), a harmless one is accepted with one warning, one that would
 * change results without being implemented is an error, and so is an unknown key (a "table."
 * one may change results; any other is most likely a typo).
 */
static int do_set(run_ctx_t *rc, const cdc_sql_stmt_t *st, cdc_error_t **err)
{
    const char *key = st->set.key;
    const setting_t *s = setting_find(key);
    if (!s) {
        bool table = strncmp(key, "table.", 6) == 0;
        set_fail(rc, st, false, err,
                 table ? "setting \"%s\" is not supported%s" : "unknown setting \"%s\"%s", key,
                 table ? ": it may change the results of a query" : "");
        const char *keys[NSETTINGS];
        int n = 0;
        for (size_t i = 0; i < NSETTINGS; i++)
            if (!strchr(settings_table[i].key, '*'))
                keys[n++] = settings_table[i].key;
        const char *sug = cdc_closest(key, keys, n);
        if (sug)
            cdc_error_set_hint(*err, "did you mean \"%s\"?", sug);
        else if (table)
            cdc_error_set_hint(*err, "the settings cdcflow knows are listed under Settings in "
                                     "README.md");
        return -1;
    }
    if (s->kind == SETTING_REFUSED)
        return set_fail(rc, st, false, err, "setting \"%s\" is not supported: %s", key, s->why);
    cdc_error_t *e = NULL;
    char *v = cdc_env_expand(st->set.value, NULL, &e);
    if (!v) {
        set_fail(rc, st, true, err, "%s%s", e->message, "");
        if (e->hint)
            cdc_error_set_hint(*err, "%s", e->hint);
        cdc_error_destroy(e);
        return -1;
    }
    int status = 0;
    if (s->kind == SETTING_ACTS && s->values && !value_listed(s->values, v)) {
        status = set_fail(rc, st, true, err, "setting \"%s\": %s", key, s->why);
    } else if (s->kind == SETTING_ACTS) {
        /* the value as the job will take it, checked here to point at it */
        run_ctx_t one = {.opts = rc->opts};
        cdc_kv_set(&one.settings, key, v);
        cdc_job_settings_t js;
        cdc_plan_env_t penv = {0};
        int parallelism;
        if (job_params(&one, &js, &parallelism, &penv, &e) < 0) {
            status = set_fail(rc, st, true, err, "%s%s", e->message, "");
            cdc_error_destroy(e);
        }
        cdc_kv_free(&one.settings);
    } else if (!cdc_kv_get(&rc->warned, key)) {
        cdc_kv_set(&rc->warned, key, "");
        fprintf(stderr,
                "cdcflow: warning: %s:%d:%d: setting \"%s\" has no effect in cdcflow; "
                "accepted\n",
                rc->filename, st->set.key_line, st->set.key_col, key);
    }
    if (status == 0)
        cdc_kv_set(&rc->settings, key, v);
    free(v);
    return status;
}

static int exec_stmt(run_ctx_t *rc, cdc_sql_stmt_t *st, cdc_error_t **err)
{
    /* catalog statements: CREATE/DROP/USE/SHOW/DESCRIBE */
    int ddl = cdc_ddl_execute(rc->cat, st, rc->text, rc->len, rc->filename, rc->opts->out, err);
    if (ddl <= 0)
        return ddl;
    switch (st->kind) {
    case CDC_SQL_STMT_CREATE_TABLE: /* with AS SELECT (a plain one is the catalog's) */
        return do_ctas(rc, st, err);
    case CDC_SQL_STMT_SET:
        if (!st->set.key) {
            for (int i = 0; i < rc->settings.n; i++)
                fprintf(rc->opts->out, "'%s' = '%s'\n", rc->settings.keys[i],
                        rc->settings.values[i]);
            return 0;
        }
        return do_set(rc, st, err);
    case CDC_SQL_STMT_RESET:
        if (st->set.key)
            cdc_kv_remove(&rc->settings, st->set.key);
        else
            cdc_kv_free(&rc->settings);
        return 0;
    case CDC_SQL_STMT_INSERT:
        return do_inserts(rc, &st, 1, rc->opts->explain_only, err);
    case CDC_SQL_STMT_STATEMENT_SET:
        return do_inserts(rc, st->statement_set.inserts, st->statement_set.count,
                          rc->opts->explain_only, err);
    case CDC_SQL_STMT_QUERY:
        return do_query(rc, st->query, rc->opts->explain_only, err);
    case CDC_SQL_STMT_EXPLAIN: {
        cdc_sql_stmt_t *inner = st->explain.stmt;
        if (inner->kind == CDC_SQL_STMT_QUERY)
            return do_query(rc, inner->query, true, err);
        if (inner->kind == CDC_SQL_STMT_INSERT)
            return do_inserts(rc, &inner, 1, true, err);
        if (inner->kind == CDC_SQL_STMT_STATEMENT_SET)
            return do_inserts(rc, inner->statement_set.inserts, inner->statement_set.count, true,
                              err);
        break;
    }
    default:
        break;
    }
    *err =
        cdc_sql_error_at(CDC_ERR_SQL, rc->text, rc->len, rc->filename, st->line, st->col,
                         "%s statements are not supported yet", cdc_sql_stmt_kind_name(st->kind));
    return -1;
}

int cdc_runtime_run_script(const char *text, size_t len, const char *filename,
                           const cdc_run_opts_t *opts, cdc_error_t **err)
{
    cdc_sql_script_t *script = NULL;
    if (cdc_sql_parse(text, len, filename, &script, err) < 0)
        return -1;
    cdc_ddl_set_builtin_functions(cdc_expr_builtin_functions());
    cdc_catalog_t *cat = cdc_catalog_new_with_dir(opts->catalog_dir, opts->explain_only, err);
    if (!cat) {
        cdc_sql_script_destroy(script);
        return -1;
    }
    run_ctx_t rc = {.cat = cat, .text = text, .len = len, .filename = filename, .opts = opts};
    int status = 0;
    for (size_t i = 0; i < script->count && status == 0; i++) {
        if (cdc_runtime_stopping())
            break;
        status = exec_stmt(&rc, script->stmts[i], err);
    }
    cdc_kv_free(&rc.settings);
    cdc_kv_free(&rc.warned);
    cdc_catalog_destroy(rc.cat);
    cdc_evolve_release(); /* after the catalog: its definitions may point into them */
    cdc_sql_script_destroy(script);
    return status;
}
