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
} run_ctx_t;

static const char *const known_settings[] = {
    "parallelism.default",
    "table.exec.resource.default-parallelism",
    "execution.batch-size",
    "execution.checkpointing.interval",
    "pipeline.name",
    "execution.runtime-mode",
    "sql-client.execution.result-mode",
    "table.exec.source.cdc-events-duplicate",
    "table.exec.expression-error.policy",
    NULL,
};

/* The settings as job parameters (*js, *parallelism) and planner switches (*penv). */
static int job_params(run_ctx_t *rc, cdc_job_settings_t *js, int *parallelism, cdc_plan_env_t *penv,
                      cdc_error_t **err)
{
    *js = (cdc_job_settings_t){.batch_rows = 1024, .flush_rows = 10000, .flush_interval_ms = 1000};
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

static int do_inserts(run_ctx_t *rc, cdc_sql_stmt_t **inserts, size_t n, bool explain_only,
                      cdc_error_t **err)
{
    cdc_job_settings_t js;
    int parallelism;
    cdc_plan_env_t base = {0};
    if (job_params(rc, &js, &parallelism, &base, err) < 0)
        return -1;
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
    cdc_pipe_t **pipes = cdc_xcalloc(n, sizeof(*pipes));
    int status = 0;
    size_t planned = 0;
    for (; planned < n; planned++) {
        cdc_plan_env_t penv = {.cat = rc->cat,
                               .text = rc->text,
                               .len = rc->len,
                               .filename = rc->filename,
                               .parallelism = parallelism,
                               .cdc_events_duplicate = js.cdc_events_duplicate,
                               .skip_bad_rows = js.skip_bad_rows,
                               .dynamic_options_disabled = base.dynamic_options_disabled,
                               .not_null_drop = base.not_null_drop};
        if (cdc_plan_insert(&penv, &inserts[planned]->insert, &pipes[planned], err) < 0) {
            status = -1;
            break;
        }
    }
    if (status == 0 && explain_only) {
        cdc_buf_t b = {0};
        cdc_buf_puts(&b, "== Physical Plan ==\n");
        for (size_t i = 0; i < n; i++) {
            if (i)
                cdc_buf_putc(&b, '\n');
            cdc_pipe_explain(pipes[i], &b);
        }
        fwrite(b.data, 1, b.len, rc->opts->out);
        fflush(rc->opts->out);
        cdc_buf_free(&b);
    } else if (status == 0) {
        status = cdc_job_run(pipes, (int)n, &js, err);
    }
    for (size_t i = 0; i < planned; i++)
        cdc_pipe_destroy(pipes[i]);
    free(pipes);
    return status;
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

static int exec_stmt(run_ctx_t *rc, cdc_sql_stmt_t *st, cdc_error_t **err)
{
    /* catalog statements: CREATE/DROP/USE/SHOW/DESCRIBE */
    int ddl = cdc_ddl_execute(rc->cat, st, rc->text, rc->len, rc->filename, rc->opts->out, err);
    if (ddl <= 0)
        return ddl;
    switch (st->kind) {
    case CDC_SQL_STMT_SET:
        if (!st->set.key) {
            for (int i = 0; i < rc->settings.n; i++)
                fprintf(rc->opts->out, "'%s' = '%s'\n", rc->settings.keys[i],
                        rc->settings.values[i]);
            return 0;
        }
        {
            bool known = false;
            for (int i = 0; known_settings[i]; i++)
                known = known || strcmp(known_settings[i], st->set.key) == 0;
            if (!known && strncmp(st->set.key, "table.", 6) != 0) {
                *err =
                    cdc_sql_error_at(CDC_ERR_SQL, rc->text, rc->len, rc->filename, st->set.key_line,
                                     st->set.key_col, "unknown setting \"%s\"", st->set.key);
                const char *sug =
                    cdc_closest(st->set.key, known_settings,
                                (int)(sizeof(known_settings) / sizeof(known_settings[0])) - 1);
                if (sug)
                    cdc_error_set_hint(*err, "did you mean \"%s\"?", sug);
                return -1;
            }
        }
        {
            cdc_error_t *e = NULL;
            char *v = cdc_env_expand(st->set.value, NULL, &e);
            if (!v) {
                *err = cdc_sql_error_at(CDC_ERR_SQL, rc->text, rc->len, rc->filename,
                                        st->set.value_line, st->set.value_col, "%s", e->message);
                if (e->hint)
                    cdc_error_set_hint(*err, "%s", e->hint);
                cdc_error_destroy(e);
                return -1;
            }
            cdc_kv_set(&rc->settings, st->set.key, v);
            free(v);
        }
        return 0;
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
    cdc_catalog_destroy(rc.cat);
    cdc_sql_script_destroy(script);
    return status;
}
