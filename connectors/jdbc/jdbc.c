/*
 * jdbc.c — the "jdbc" connector (sink), Flink's JDBC connector options over
 * a dialect layer (jdbc_int.h). The url picks the dialect: "jdbc:sqlite:PATH",
 * "jdbc:postgresql://HOST:PORT/DB" or "jdbc:mysql://HOST:PORT/DB" (also
 * "jdbc:mariadb://...").
 *
 * With a PRIMARY KEY the sink is an upsert sink (+I, +U, -D; the planner drops
 * -U): the writer buffers the last change per key between flushes, so a burst
 * of updates to one row is written once, and a flush applies the buffer in
 * one transaction with prepared statements (upsert by key, delete by key).
 * Without a key it is insert-only and rows are appended in order.
 *
 * Coalescing keeps per-key order: a change replaces the buffered one of its
 * key, except that an upsert after a delete keeps the delete before it (the
 * stored row must really go), and an upsert whose columns are marked
 * unchanged takes those columns from the buffered upsert when it had them.
 * The buffer, the flush thread and the retry loop are the core's
 * (cdc_sink_buffer.h); this file supplies the flush and its SQL.
 *
 * Transient failures (lock contention, deadlock, a lost connection, which the
 * dialect re-opens at the next BEGIN) roll back and replay the whole batch
 * with backoff up to sink.max-retries; anything else (constraint violation,
 * type error) fails the job naming the table, the row and the database's
 * message. flush returns only after COMMIT.
 *
 * Flushes run on a thread of the writer (double buffering): a full buffer is handed over and
 * write() goes on decoding into the other one, so the database works while the pipeline
 * decodes; flush() waits for everything handed over to commit (cdc_sink_flusher_t). At the
 * defaults a buffer coalesces by key until the job's commit point asks for it (flush_begin:
 * handed over without waiting, durable() says when it is committed), the interval passes or
 * it holds half of sink.buffer-flush.max-bytes, and it is handed over only when the flush
 * thread is idle: a slow database gets larger flushes, and write() waits only at the bound.
 *
 * A dialect with a set-based flush (PostgreSQL: COPY into a staging table, then a
 * set-based DELETE and upsert) gets the large flushes of a keyed table; when that fails for
 * good the same flush is replayed statement by statement, which names the row at fault.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jdbc_int.h"

/* ---- SQL text shared by the dialects -------------------------------------------------- */

bool jdbc_is_pk(const jdbc_table_t *t, int col)
{
    for (int k = 0; k < t->npk; k++)
        if (t->pk[k] == col)
            return true;
    return false;
}

static void put_param(cdc_buf_t *out, const jdbc_dialect_t *d, int n)
{
    if (d->dollar_params)
        cdc_buf_printf(out, "$%d", n);
    else
        cdc_buf_putc(out, '?');
}

void jdbc_sql_insert(cdc_buf_t *out, const jdbc_dialect_t *d, const jdbc_table_t *t,
                     const uint8_t *omit)
{
    cdc_buf_puts(out, "INSERT INTO ");
    d->quote_table(out, t->name);
    cdc_buf_puts(out, " (");
    int n = 0;
    for (int i = 0; i < t->schema->nchildren; i++) {
        if (omit[i])
            continue;
        if (n++)
            cdc_buf_puts(out, ", ");
        d->quote_ident(out, t->schema->names[i]);
    }
    cdc_buf_puts(out, ") VALUES (");
    for (int k = 1; k <= n; k++) {
        if (k > 1)
            cdc_buf_puts(out, ", ");
        put_param(out, d, k);
    }
    cdc_buf_putc(out, ')');
}

void jdbc_sql_on_conflict(cdc_buf_t *out, const jdbc_dialect_t *d, const jdbc_table_t *t,
                          const uint8_t *omit)
{
    cdc_buf_puts(out, " ON CONFLICT (");
    for (int k = 0; k < t->npk; k++) {
        if (k)
            cdc_buf_puts(out, ", ");
        d->quote_ident(out, t->schema->names[t->pk[k]]);
    }
    cdc_buf_puts(out, ") DO ");
    bool first = true;
    for (int i = 0; i < t->schema->nchildren; i++) {
        if (omit[i] || jdbc_is_pk(t, i))
            continue;
        cdc_buf_puts(out, first ? "UPDATE SET " : ", ");
        d->quote_ident(out, t->schema->names[i]);
        cdc_buf_puts(out, " = EXCLUDED.");
        d->quote_ident(out, t->schema->names[i]);
        first = false;
    }
    if (first)
        cdc_buf_puts(out, "NOTHING");
}

void jdbc_sql_delete(cdc_buf_t *out, const jdbc_dialect_t *d, const jdbc_table_t *t)
{
    cdc_buf_puts(out, "DELETE FROM ");
    d->quote_table(out, t->name);
    for (int k = 0; k < t->npk; k++) {
        cdc_buf_puts(out, k ? " AND " : " WHERE ");
        d->quote_ident(out, t->schema->names[t->pk[k]]);
        cdc_buf_puts(out, " = ");
        put_param(out, d, k + 1);
    }
}

static const cdc_option_def_t jdbc_options[] = {
    {.key = "url",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_REQUIRED,
     .description = "JDBC url of the database: \"jdbc:sqlite:PATH\" (a file, created when "
                    "missing) or \"jdbc:postgresql://HOST[:PORT]/DB[?key=value&...]\" (query "
                    "parameters such as sslmode go to libpq) or \"jdbc:mysql://HOST[:PORT]/DB\" "
                    "(also \"jdbc:mariadb://...\", MySQL or MariaDB through libmysqlclient)."},
    {.key = "table-name",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_REQUIRED,
     .description = "Name of the table to write, taken verbatim as one identifier."},
    {.key = "username",
     .type = CDC_OPT_STRING,
     .description = "User name for the connection (PostgreSQL, MySQL; unused by SQLite)."},
    {.key = "password",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_SECRET,
     .description = "Password for the connection (PostgreSQL, MySQL; unused by SQLite); never "
                    "printed."},
    {.key = "sink.buffer-flush.max-rows",
     .type = CDC_OPT_INT,
     .default_value = "0",
     .min = 0,
     .max = 10000000,
     .description = "Changes buffered before the writer flushes on its own, waiting for the "
                    "previous flush (changes to one key count each time but are written once). "
                    "0: no row bound; the buffer coalesces changes by key until the job's "
                    "commit point, the interval, or sink.buffer-flush.max-bytes, and is written "
                    "while the next one fills, so flushes grow as the database slows."},
    {.key = "sink.buffer-flush.max-bytes",
     .type = CDC_OPT_SIZE,
     .default_value = "8mb",
     .min = 65536,
     .max = INT64_MAX,
     .description = "Bytes of changes a writer's buffer may hold (it has two: one written, one "
                    "filling): from half of it the buffer is written as soon as the previous "
                    "flush ends, at all of it the writer waits for that flush."},
    {.key = "sink.buffer-flush.interval",
     .type = CDC_OPT_DURATION,
     .default_value = "1 s",
     .min = 0,
     .max = INT64_MAX,
     .description = "The writer flushes when a write finds the last flush older than this; the "
                    "job's own flush interval covers idle time."},
    {.key = "sink.max-retries",
     .type = CDC_OPT_INT,
     .default_value = "3",
     .min = 0,
     .max = 100,
     .description = "Times a flush that failed transiently (database busy or locked, deadlock, "
                    "serialization failure, lost connection) is rolled back and replayed, with "
                    "exponential backoff, before the job fails."},
    {.key = "sink.parallelism",
     .type = CDC_OPT_INT,
     .min = 1,
     .max = 65536,
     .description = "Number of writers of the sink; unset means the run's parallelism."},
    {.key = "sink.auto-create-table",
     .type = CDC_OPT_BOOL,
     .default_value = "false",
     .description = "Create the table (CREATE TABLE IF NOT EXISTS) from the declared columns "
                    "and primary key when it is missing, mapping types per dialect."},
    {.key = "scan.partition.column",
     .type = CDC_OPT_STRING,
     .description = "Scan (a bounded source, as Flink's): an integer column the table's read is "
                    "cut by into scan.partition.num ranges between scan.partition.lower-bound "
                    "and .upper-bound, one query `WHERE col BETWEEN lo AND hi` each, dealt to the "
                    "splits in turn. Rows outside the bounds (or NULL there) are not read, as in "
                    "Flink. Unset: one query of the whole table (split 0). The four options go "
                    "together."},
    {.key = "scan.partition.num",
     .type = CDC_OPT_INT,
     .min = 1,
     .max = 1000000,
     .description = "Number of partitions of the scan; a split holds one partition's rows at a "
                    "time, so more partitions bound the memory of a big table."},
    {.key = "scan.partition.lower-bound",
     .type = CDC_OPT_INT,
     .min = INT64_MIN,
     .max = INT64_MAX,
     .description = "Smallest value of scan.partition.column the first partition starts at."},
    {.key = "scan.partition.upper-bound",
     .type = CDC_OPT_INT,
     .min = INT64_MIN,
     .max = INT64_MAX,
     .description = "Largest value of scan.partition.column the last partition ends at."},
    {.key = "scan.fetch-size",
     .type = CDC_OPT_INT,
     .default_value = "0",
     .min = 0,
     .max = INT32_MAX,
     .description = "Flink: rows fetched per round trip. Accepted, no effect: each partition is "
                    "read by one query (SQLite steps, MySQL streams, PostgreSQL takes the "
                    "result whole); bound memory with scan.partition.num."},
    CDC_LOOKUP_OPTION_DEFS,
    {0},
};

static const jdbc_dialect_t *const dialects[] = {&jdbc_dialect_sqlite, &jdbc_dialect_postgres,
                                                 &jdbc_dialect_mysql, &jdbc_dialect_mariadb, NULL};

static const jdbc_dialect_t *dialect_for(const char *url)
{
    for (int i = 0; dialects[i]; i++)
        if (strncmp(url, dialects[i]->url_prefix, strlen(dialects[i]->url_prefix)) == 0)
            return dialects[i];
    return NULL;
}

const jdbc_dialect_t *jdbc_dialect_for(const char *url)
{
    return dialect_for(url);
}

static void jdbc_check(const cdc_config_t *cfg, cdc_buf_t *problems)
{
    cdc_lookup_check(cfg, problems);
    static const char *const part[] = {"scan.partition.column", "scan.partition.num",
                                       "scan.partition.lower-bound", "scan.partition.upper-bound"};
    int nset = 0;
    for (int i = 0; i < 4; i++)
        nset += cdc_config_isset(cfg, part[i]);
    if (nset > 0 && nset < 4)
        cdc_buf_puts(problems, "Either all or none of the following options should be provided: "
                               "scan.partition.column, scan.partition.num, "
                               "scan.partition.lower-bound, scan.partition.upper-bound\n");
    if (nset == 4 && cdc_config_int(cfg, "scan.partition.lower-bound") >
                         cdc_config_int(cfg, "scan.partition.upper-bound"))
        cdc_buf_printf(problems,
                       "'scan.partition.lower-bound'='%lld' must not be larger than "
                       "'scan.partition.upper-bound'='%lld'\n",
                       (long long)cdc_config_int(cfg, "scan.partition.lower-bound"),
                       (long long)cdc_config_int(cfg, "scan.partition.upper-bound"));
    const char *url = cdc_config_str(cfg, "url");
    if (!url || dialect_for(url))
        return;
    cdc_buf_printf(problems,
                   "option \"url\": expected \"jdbc:sqlite:PATH\", "
                   "\"jdbc:postgresql://HOST:PORT/DB\" or \"jdbc:mysql://HOST:PORT/DB\", "
                   "found \"%s\" (no dialect for this url)\n",
                   url);
}

/* ---- the sink -------------------------------------------------------------------- */

typedef struct jdbc_sink_s {
    cdc_sink_t base;
    const jdbc_dialect_t *dialect;
    char *qualified; /* the catalog table, for messages */
    char *target;    /* the url after the dialect's prefix */
    char *username, *password;
    char *table_name;
    cdc_type_t *schema;
    int *pk;
    int npk;
    int64_t max_rows, max_bytes, interval_ms, max_retries;
    bool auto_create;
} jdbc_sink_t;

#define STMT_CACHE 16
enum { OP_UPSERT, OP_INSERT, OP_DELETE };

typedef struct stmt_slot_s {
    int op;
    uint8_t *omit; /* ncols; all zero for the full statement */
    jdbc_stmt_t *stmt;
} stmt_slot_t;

typedef struct jdbc_writer_s {
    cdc_writer_t base;
    jdbc_sink_t *sink;
    const jdbc_dialect_t *d;
    jdbc_conn_t *conn;
    jdbc_table_t table;
    int ncols;
    cdc_sink_flusher_t *flusher;        /* per-key buffers and the flush thread */
    _Atomic unsigned long long retries; /* transactions rolled back and replayed */
    /* used by the flush thread only (and by open before it starts) */
    stmt_slot_t cache[STMT_CACHE];
    int ncache, next_evict;
    uint8_t *omit; /* scratch */
    jdbc_param_t *params;
    cdc_buf_t sql;
} jdbc_writer_t;

/* ---- values as parameters ---------------------------------------------------------- */

/* The parameter for one value (never UNCHANGED: those columns are omitted). */
static void to_param(jdbc_param_t *p, const cdc_value_t *v, const cdc_type_t *t)
{
    p->type = t;
    if (cdc_value_is_null(v)) {
        p->kind = JDBC_P_NULL;
        return;
    }
    p->kind = JDBC_P_TEXT;
    p->ptr = p->buf;
    switch (t->root) {
    case CDC_T_BOOLEAN:
        p->kind = JDBC_P_INT;
        p->i = v->v.b ? 1 : 0;
        break;
    case CDC_T_TINYINT:
    case CDC_T_SMALLINT:
    case CDC_T_INT:
    case CDC_T_BIGINT:
        p->kind = JDBC_P_INT;
        p->i = v->v.i;
        break;
    case CDC_T_FLOAT:
        p->kind = JDBC_P_DOUBLE;
        p->d = v->v.f;
        break;
    case CDC_T_DOUBLE:
        p->kind = JDBC_P_DOUBLE;
        p->d = v->v.d;
        break;
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
    case CDC_T_BINARY:
    case CDC_T_VARBINARY:
        if (t->root == CDC_T_BINARY || t->root == CDC_T_VARBINARY)
            p->kind = JDBC_P_BLOB;
        p->ptr = v->v.s.len ? v->v.s.ptr : "";
        p->len = v->v.s.len;
        break;
    case CDC_T_DECIMAL:
    case CDC_T_DATE:
    case CDC_T_TIME:
    case CDC_T_TIMESTAMP: /* "yyyy-mm-dd hh:mm:ss[.f]" */
    case CDC_T_TIMESTAMP_LTZ:
        p->len = (size_t)cdc_value_to_text(v, t, 0, p->buf);
        break;
    default: /* ARRAY, MAP, ROW: refused when the sink is made */
        p->kind = JDBC_P_NULL;
        break;
    }
}

void jdbc_to_param(jdbc_param_t *p, const cdc_value_t *v, const cdc_type_t *t)
{
    to_param(p, v, t);
}

/* ---- statements -------------------------------------------------------------------- */

static jdbc_stmt_t *stmt_get(jdbc_writer_t *w, int op, const uint8_t *omit)
{
    for (int i = 0; i < w->ncache; i++)
        if (w->cache[i].op == op && memcmp(w->cache[i].omit, omit, (size_t)w->ncols) == 0)
            return w->cache[i].stmt;
    cdc_buf_clear(&w->sql);
    if (op == OP_UPSERT)
        w->d->upsert_sql(&w->sql, &w->table, omit);
    else if (op == OP_INSERT)
        w->d->insert_sql(&w->sql, &w->table, omit);
    else
        w->d->delete_sql(&w->sql, &w->table);
    jdbc_stmt_t *stmt = w->d->prepare(w->conn, cdc_buf_cstr(&w->sql));
    if (!stmt)
        return NULL;
    stmt_slot_t *slot;
    if (w->ncache < STMT_CACHE) {
        slot = &w->cache[w->ncache++];
        slot->omit = cdc_xmalloc((size_t)w->ncols + 1);
    } else {
        slot = &w->cache[w->next_evict];
        w->next_evict = (w->next_evict + 1) % STMT_CACHE;
        w->d->finalize(slot->stmt);
    }
    slot->op = op;
    memcpy(slot->omit, omit, (size_t)w->ncols);
    slot->stmt = stmt;
    return stmt;
}

static int run_delete(jdbc_writer_t *w, const cdc_sink_entry_t *e)
{
    memset(w->omit, 0, (size_t)w->ncols);
    jdbc_stmt_t *stmt = stmt_get(w, OP_DELETE, w->omit);
    if (!stmt)
        return -1;
    for (int k = 0; k < w->table.npk; k++) {
        int c = w->table.pk[k];
        to_param(&w->params[k], &e->values[c], w->table.schema->children[c]);
        if (w->d->bind(stmt, k, &w->params[k]) < 0)
            return -1;
    }
    return w->d->step(stmt);
}

static int run_write(jdbc_writer_t *w, const cdc_sink_entry_t *e)
{
    for (int c = 0; c < w->ncols; c++)
        w->omit[c] = (e->values[c].flags & CDC_V_UNCHANGED) ? 1 : 0;
    jdbc_stmt_t *stmt = stmt_get(w, w->table.npk ? OP_UPSERT : OP_INSERT, w->omit);
    if (!stmt)
        return -1;
    int idx = 0;
    for (int c = 0; c < w->ncols; c++) {
        if (w->omit[c])
            continue;
        to_param(&w->params[idx], &e->values[c], w->table.schema->children[c]);
        if (w->d->bind(stmt, idx, &w->params[idx]) < 0)
            return -1;
        idx++;
    }
    return w->d->step(stmt);
}

/* The entry whose statements include step k (counted from 0 as apply_once runs them). */
static int64_t step_entry(const cdc_sink_buffer_t *b, int64_t k)
{
    if (k < 0)
        return -1;
    int64_t at = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        const cdc_sink_entry_t *e = &b->entries[i];
        at += (e->is_delete || e->pre_delete ? 1 : 0) + (e->is_delete ? 0 : 1);
        if (k < at)
            return i;
    }
    return -1;
}

/* One attempt: the whole buffer in one transaction. *failed is the entry at fault or -1. */
static int apply_once(jdbc_writer_t *w, const cdc_sink_buffer_t *b, int64_t *failed)
{
    *failed = -1;
    if (w->d->begin(w->conn) < 0)
        return -1;
    for (uint32_t i = 0; i < b->n; i++) {
        const cdc_sink_entry_t *e = &b->entries[i];
        int rc = 0;
        if (e->is_delete || e->pre_delete)
            rc = run_delete(w, e);
        if (rc == 0 && !e->is_delete)
            rc = run_write(w, e);
        if (rc < 0) {
            *failed = i;
            return -1;
        }
    }
    if (w->d->commit(w->conn) == 0)
        return 0;
    if (w->d->failed_step) /* queued statements fail at commit */
        *failed = step_entry(b, w->d->failed_step(w->conn));
    return -1;
}

/*
 * The set-based flush, for dialects that have one: every coalesced change of a keyed table
 * is staged in one go and applied by a few statements (deletes first). Taken for flushes of
 * at least BULK_MIN keys (or the dialect's bulk_min) without columns marked unchanged (those need
 * per-row statements that keep the stored values). A delete stages its key columns only.
 */
#define BULK_MIN 256

static bool bulk_ok(const jdbc_writer_t *w, const cdc_sink_buffer_t *b)
{
    uint32_t min = w->d->bulk_min > 0 ? (uint32_t)w->d->bulk_min : BULK_MIN;
    if (!w->d->bulk_begin || w->table.npk == 0 || b->n < min)
        return false;
    for (uint32_t i = 0; i < b->n; i++) {
        const cdc_sink_entry_t *e = &b->entries[i];
        if (e->is_delete)
            continue;
        for (int c = 0; c < w->ncols; c++)
            if (e->values[c].flags & CDC_V_UNCHANGED)
                return false;
    }
    return true;
}

static int apply_bulk(jdbc_writer_t *w, const cdc_sink_buffer_t *b)
{
    if (w->d->bulk_begin(w->conn, &w->table) < 0)
        return -1;
    for (uint32_t i = 0; i < b->n; i++) {
        const cdc_sink_entry_t *e = &b->entries[i];
        char op = e->is_delete ? 'D' : e->pre_delete ? 'R' : 'U';
        if (e->is_delete) {
            for (int c = 0; c < w->ncols; c++) {
                w->params[c].kind = JDBC_P_NULL;
                w->params[c].type = w->table.schema->children[c];
            }
            for (int k = 0; k < w->table.npk; k++) {
                int c = w->table.pk[k];
                to_param(&w->params[c], &e->values[c], w->table.schema->children[c]);
            }
        } else {
            for (int c = 0; c < w->ncols; c++)
                to_param(&w->params[c], &e->values[c], w->table.schema->children[c]);
        }
        if (w->d->bulk_row(w->conn, op, w->params, w->ncols) < 0)
            return -1;
    }
    return w->d->bulk_commit(w->conn);
}

static int flush_error(jdbc_writer_t *w, const cdc_sink_buffer_t *b, int64_t failed, bool retriable,
                       int attempts, cdc_error_t **err)
{
    jdbc_sink_t *sink = w->sink;
    cdc_error_t *e =
        retriable
            ? cdc_error_new(CDC_ERR_REMOTE, "could not write to table \"%s\" after %d attempts",
                            sink->table_name, attempts)
            : cdc_error_new(CDC_ERR_REMOTE, "could not write to table \"%s\"", sink->table_name);
    cdc_buf_t detail = {0};
    cdc_buf_printf(&detail, "%s: %s", w->d->name, w->d->errmsg(w->conn));
    if (failed >= 0) {
        const cdc_sink_entry_t *en = &b->entries[failed];
        cdc_row_t row = {.kind = en->kind, .arity = (uint32_t)w->ncols, .values = en->values};
        cdc_buf_puts(&detail, "\nrow: ");
        cdc_row_print(&detail, &row, sink->schema);
    }
    cdc_error_set_detail(e, "%s", cdc_buf_cstr(&detail));
    cdc_buf_free(&detail);
    if (retriable)
        cdc_error_set_hint(e, "the database stayed busy; raise 'sink.max-retries' or find the "
                              "other writer holding the lock");
    e->retriable = retriable;
    e->fatal = !retriable;
    cdc_error_add_context(e, "jdbc sink of \"%s\"", sink->qualified);
    cdc_error_destroy(*err);
    *err = e;
    return -1;
}

/* One flush of a buffer, as the retry loop runs it. */
typedef struct flush_job_s {
    jdbc_writer_t *w;
    const cdc_sink_buffer_t *b;
    int64_t failed; /* the entry at fault in the last attempt, or -1 */
    bool retriable; /* the last attempt failed transiently */
} flush_job_t;

/* One attempt: the whole buffer in one transaction, rolled back when it fails. */
static int flush_attempt(void *ctx)
{
    flush_job_t *job = ctx;
    jdbc_writer_t *w = job->w;
    const cdc_sink_buffer_t *b = job->b;
    int rc = -1;
    job->failed = -1;
    job->retriable = false;
    if (bulk_ok(w, b) && (rc = apply_bulk(w, b)) < 0) {
        job->retriable = w->d->retriable(w->conn);
        w->d->rollback(w->conn);
    }
    /* no set-based flush, or it failed for good: statement by statement, which also
       names the row at fault */
    if (rc < 0 && !job->retriable && (rc = apply_once(w, b, &job->failed)) < 0) {
        job->retriable = w->d->retriable(w->conn);
        w->d->rollback(w->conn);
    }
    return rc;
}

static bool flush_retriable(void *ctx)
{
    return ((const flush_job_t *)ctx)->retriable;
}

/*
 * Writes buffer b in one transaction, with retries (the dialect re-opens a lost connection
 * at the next BEGIN); the flusher's callback, on the flush thread.
 */
static int flush_buffer(void *ctx, const cdc_sink_buffer_t *b, cdc_error_t **err)
{
    jdbc_writer_t *w = ctx;
    flush_job_t job = {.w = w, .b = b, .failed = -1};
    const cdc_sink_retry_t retry = {
        .max_retries = w->sink->max_retries,
        .backoff_ms = 50, /* 50 ms, 100 ms, 200 ms ... capped at 5 s */
        .backoff_max_ms = 5000,
        .attempt = flush_attempt,
        .retriable = flush_retriable,
        .retries = &w->retries,
    };
    int attempts;
    bool retriable;
    if (cdc_sink_retry_run(&retry, &job, &attempts, &retriable) == 0)
        return 0;
    return flush_error(w, b, job.failed, retriable, attempts, err);
}

/* ---- writer callbacks -------------------------------------------------------------- */

static int jdbc_write(cdc_writer_t *base, const cdc_batch_t *batch, cdc_error_t **err)
{
    jdbc_writer_t *w = (jdbc_writer_t *)base;
    if (cdc_sink_flusher_check(w->flusher, err) < 0)
        return -1;
    for (uint32_t i = 0; i < batch->n; i++) {
        const cdc_row_t *row = &batch->rows[i];
        if (row->arity != (uint32_t)w->ncols)
            return cdc_error_set(err, CDC_ERR_INTERNAL,
                                 "jdbc: row of %u fields for a table of %d columns", row->arity,
                                 w->ncols);
        if (row->kind == CDC_UPDATE_BEFORE)
            continue; /* the planner drops them; an upsert needs only the after image */
        if (w->table.npk == 0 && row->kind != CDC_INSERT)
            return cdc_error_set(err, CDC_ERR_INTERNAL,
                                 "jdbc: a %s row for insert-only table \"%s\"",
                                 cdc_kind_short(row->kind), w->sink->table_name);
        for (int k = 0; k < w->table.npk; k++)
            if (row->values[w->table.pk[k]].flags & CDC_V_UNCHANGED)
                return cdc_error_set(err, CDC_ERR_INTERNAL,
                                     "jdbc: primary key column \"%s\" is marked unchanged",
                                     w->table.schema->names[w->table.pk[k]]);
        if (cdc_sink_flusher_add(w->flusher, row, err) < 0)
            return -1;
    }
    return cdc_sink_flusher_tick(w->flusher, err);
}

/* Returns when everything written so far is committed. */
static int jdbc_flush(cdc_writer_t *base, cdc_error_t **err)
{
    jdbc_writer_t *w = (jdbc_writer_t *)base;
    return cdc_sink_flusher_flush(w->flusher, err);
}

/* Starts committing everything written so far; the ticket jdbc_durable reaches then. */
static int64_t jdbc_flush_begin(cdc_writer_t *base, cdc_error_t **err)
{
    jdbc_writer_t *w = (jdbc_writer_t *)base;
    return cdc_sink_flusher_begin(w->flusher, err);
}

static int64_t jdbc_durable(cdc_writer_t *base, cdc_error_t **err)
{
    jdbc_writer_t *w = (jdbc_writer_t *)base;
    return cdc_sink_flusher_durable(w->flusher, err);
}

static void jdbc_close(cdc_writer_t *base)
{
    jdbc_writer_t *w = (jdbc_writer_t *)base;
    if (!w)
        return;
    cdc_sink_flusher_destroy(w->flusher); /* a flush in progress ends first */
    for (int i = 0; i < w->ncache; i++) {
        w->d->finalize(w->cache[i].stmt);
        free(w->cache[i].omit);
    }
    w->d->disconnect(w->conn);
    free(w->omit);
    free(w->params);
    cdc_buf_free(&w->sql);
    free(w);
}

static void jdbc_metrics(cdc_writer_t *base, cdc_metric_emit_fn emit, void *ctx)
{
    jdbc_writer_t *w = (jdbc_writer_t *)base;
    emit(ctx, "cdcflow_sink_retries_total", "", (double)w->retries);
}

static const cdc_writer_ops_t jdbc_writer_ops = {
    .write = jdbc_write,
    .flush = jdbc_flush,
    .close = jdbc_close,
    .metrics = jdbc_metrics,
    .flush_begin = jdbc_flush_begin,
    .durable = jdbc_durable,
};

/* CREATE TABLE IF NOT EXISTS from the declared columns, types mapped by the dialect. */
static int create_table(jdbc_writer_t *w, cdc_error_t **err)
{
    const jdbc_dialect_t *d = w->d;
    cdc_buf_t *sql = &w->sql;
    cdc_buf_clear(sql);
    cdc_buf_puts(sql, "CREATE TABLE IF NOT EXISTS ");
    d->quote_table(sql, w->table.name);
    cdc_buf_puts(sql, " (");
    for (int c = 0; c < w->ncols; c++) {
        if (c)
            cdc_buf_puts(sql, ", ");
        d->quote_ident(sql, w->table.schema->names[c]);
        cdc_buf_putc(sql, ' ');
        const cdc_type_t *type = w->table.schema->children[c];
        if (d->key_column_type && jdbc_is_pk(&w->table, c))
            d->key_column_type(sql, type);
        else
            d->column_type(sql, type); /* checked by sink_new */
        if (!w->table.schema->children[c]->nullable)
            cdc_buf_puts(sql, " NOT NULL");
    }
    for (int k = 0; k < w->table.npk; k++) {
        cdc_buf_puts(sql, k ? ", " : ", PRIMARY KEY (");
        d->quote_ident(sql, w->table.schema->names[w->table.pk[k]]);
    }
    cdc_buf_puts(sql, w->table.npk ? "))" : ")");
    /* a database busy with another writer (SQLite's lock) is waited for, as a flush is */
    int rc;
    for (int64_t attempt = 0; (rc = d->exec(w->conn, cdc_buf_cstr(sql))) < 0 &&
                              d->retriable(w->conn) && attempt < w->sink->max_retries;
         attempt++) {
        struct timespec ts = {0, (long)(attempt < 9 ? attempt + 1 : 10) * 100000000L};
        nanosleep(&ts, NULL);
    }
    if (rc < 0) {
        cdc_error_set(err, CDC_ERR_REMOTE, "could not create table \"%s\"", w->sink->table_name);
        cdc_error_set_detail(*err, "%s: %s", d->name, d->errmsg(w->conn));
        return -1;
    }
    return 0;
}

static cdc_changelog_mode_t jdbc_changelog_mode(cdc_sink_t *base, cdc_changelog_mode_t requested)
{
    jdbc_sink_t *sink = (jdbc_sink_t *)base;
    return requested & (sink->npk ? CDC_MODE_UPSERT : CDC_MODE_INSERT_ONLY);
}

static int jdbc_open_writer(cdc_sink_t *base, int subtask, int nsubtasks, cdc_writer_t **out,
                            cdc_error_t **err)
{
    jdbc_sink_t *sink = (jdbc_sink_t *)base;
    if (nsubtasks < 1 || subtask < 0 || subtask >= nsubtasks)
        return cdc_error_set(err, CDC_ERR_INTERNAL, "jdbc: bad subtask %d of %d", subtask,
                             nsubtasks);
    jdbc_writer_t *w = cdc_xcalloc(1, sizeof(*w));
    w->base.ops = &jdbc_writer_ops;
    w->sink = sink;
    w->d = sink->dialect;
    w->table = (jdbc_table_t){
        .name = sink->table_name, .schema = sink->schema, .pk = sink->pk, .npk = sink->npk};
    w->ncols = sink->schema->nchildren;
    const cdc_sink_flusher_opts_t fopts = {
        .name = "jdbc",
        .schema = sink->schema,
        .pk = sink->pk,
        .npk = sink->npk,
        .max_rows = sink->max_rows,
        .max_bytes = sink->max_bytes,
        .interval_ms = sink->interval_ms,
        .flush = flush_buffer,
        .ctx = w,
    };
    w->flusher = cdc_sink_flusher_new(&fopts);
    w->omit = cdc_xcalloc((size_t)w->ncols + 1, 1);
    w->params = cdc_xcalloc((size_t)w->ncols + 1, sizeof(jdbc_param_t));
    if (w->d->connect(sink->target, sink->username, sink->password, &w->conn, err) < 0) {
        cdc_error_add_context(*err, "jdbc sink of \"%s\"", sink->qualified);
        jdbc_close(&w->base);
        return -1;
    }
    if (sink->auto_create && create_table(w, err) < 0) {
        cdc_error_add_context(*err, "jdbc sink of \"%s\"", sink->qualified);
        jdbc_close(&w->base);
        return -1;
    }
    if (cdc_sink_flusher_start(w->flusher, err) < 0) {
        jdbc_close(&w->base);
        return -1;
    }
    *out = &w->base;
    return 0;
}

static void jdbc_sink_destroy(cdc_sink_t *base)
{
    jdbc_sink_t *sink = (jdbc_sink_t *)base;
    if (!sink)
        return;
    free(sink->qualified);
    free(sink->target);
    free(sink->username);
    free(sink->password);
    free(sink->table_name);
    cdc_type_destroy(sink->schema);
    free(sink->pk);
    free(sink);
}

/*
 * Changes the table as the runtime says (jdbc_schema.c), on a connection of its own. The sink
 * keeps nothing of the table but its declared columns, which a re-plan replaces: writers
 * opened afterwards name their columns, so columns the pipeline does not write are left alone.
 */
static int jdbc_apply_schema_change(cdc_sink_t *base, const cdc_schema_change_t *change,
                                    cdc_error_t **err)
{
    jdbc_sink_t *sink = (jdbc_sink_t *)base;
    jdbc_ddl_t t = {.d = sink->dialect,
                    .table = sink->table_name,
                    .qualified = sink->qualified,
                    .schema = sink->schema,
                    .pk = sink->pk,
                    .npk = sink->npk};
    if (t.d->connect(sink->target, sink->username, sink->password, &t.conn, err) < 0) {
        cdc_error_add_context(*err, "jdbc sink of \"%s\"", sink->qualified);
        return -1;
    }
    int rc = jdbc_schema_apply(&t, change, err);
    t.d->disconnect(t.conn);
    return rc;
}

static const cdc_sink_ops_t jdbc_sink_ops = {
    .changelog_mode = jdbc_changelog_mode,
    .open_writer = jdbc_open_writer,
    .destroy = jdbc_sink_destroy,
    .apply_schema_change = jdbc_apply_schema_change,
};

static char *dup_opt(const cdc_config_t *cfg, const char *key)
{
    const char *s = cdc_config_str(cfg, key);
    return s ? cdc_xstrdup(s) : NULL;
}

static int jdbc_sink_new(const cdc_table_ctx_t *ctx, cdc_sink_t **out, cdc_error_t **err)
{
    if (!ctx->schema || ctx->schema->root != CDC_T_ROW)
        return cdc_error_set(err, CDC_ERR_INTERNAL, "jdbc: the table schema is not a ROW");
    const char *url = cdc_config_str(ctx->cfg, "url");
    const jdbc_dialect_t *d = url ? dialect_for(url) : NULL;
    if (!d) /* jdbc_check refuses such urls; a caller that skipped it gets the same words */
        return cdc_error_set(err, CDC_ERR_OPTION, "option \"url\": no dialect for \"%s\"",
                             url ? url : "");
    for (int c = 0; c < ctx->schema->nchildren; c++) {
        cdc_buf_t scratch = {0};
        int rc = d->column_type(&scratch, ctx->schema->children[c]);
        cdc_buf_free(&scratch);
        if (rc < 0) {
            char *type = cdc_type_to_string(ctx->schema->children[c]);
            cdc_error_set(err, CDC_ERR_PLAN,
                          "column \"%s\" of type %s cannot be written by the %s "
                          "dialect of the jdbc sink",
                          ctx->schema->names[c], type, d->name);
            free(type);
            cdc_error_add_context(*err, "table \"%s\"", ctx->name ? ctx->name : "");
            return -1;
        }
    }
    jdbc_sink_t *sink = cdc_xcalloc(1, sizeof(*sink));
    sink->base.ops = &jdbc_sink_ops;
    sink->dialect = d;
    sink->qualified = cdc_xstrdup(ctx->name ? ctx->name : "");
    sink->target = cdc_xstrdup(url + strlen(d->url_prefix));
    sink->username = dup_opt(ctx->cfg, "username");
    sink->password = dup_opt(ctx->cfg, "password");
    sink->table_name = dup_opt(ctx->cfg, "table-name");
    sink->schema = cdc_type_copy(ctx->schema);
    sink->npk = ctx->npk;
    sink->pk = cdc_xcalloc((size_t)ctx->npk + 1, sizeof(int));
    if (ctx->npk > 0)
        memcpy(sink->pk, ctx->pk, sizeof(int) * (size_t)ctx->npk);
    sink->max_rows = cdc_config_int(ctx->cfg, "sink.buffer-flush.max-rows");
    sink->max_bytes = cdc_config_size(ctx->cfg, "sink.buffer-flush.max-bytes");
    sink->interval_ms = cdc_config_duration_ms(ctx->cfg, "sink.buffer-flush.interval");
    sink->max_retries = cdc_config_int(ctx->cfg, "sink.max-retries");
    sink->auto_create = cdc_config_bool(ctx->cfg, "sink.auto-create-table");
    *out = &sink->base;
    return 0;
}

const cdc_connector_factory_t cdc_connector_jdbc = {
    .identifier = "jdbc",
    .description = "Writes changes to a database table (Flink's JDBC connector): upserts and "
                   "deletes by PRIMARY KEY, or appends without one. Dialects: SQLite "
                   "(\"jdbc:sqlite:PATH\"), PostgreSQL (\"jdbc:postgresql://HOST:PORT/DB\"), "
                   "MySQL/MariaDB (\"jdbc:mysql://HOST:PORT/DB\"). Joined FOR SYSTEM_TIME AS OF, "
                   "it is a lookup table (lookup.* options); read in FROM, a bounded scan "
                   "(scan.partition.* options).",
    .options = jdbc_options,
    .check = jdbc_check,
    .metadata = NULL,
    .source_new = jdbc_lookup_source_new,
    .sink_new = jdbc_sink_new,
};
