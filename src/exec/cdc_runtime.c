/*
 * cdc_runtime.c — the job loop, signals and the stop watchdog.
 *
 * A job is one INSERT or a statement set of several. Each pipe runs one
 * thread per source split; each thread owns a reader, a sink writer and a
 * batch, and loops: poll, project, write; every `N` rows or `T` ms it flushes
 * the writer and only then commits the reader's position (a stateful job, whose
 * flush is a checkpoint rewriting every touched state entry: every `T` ms, or
 * when its state's uncommitted changes outgrow their memory share, not every
 * `N` rows; the sink's writer bounds its own buffer). When both offer the
 * overlapped commit (cdc_plugin.h: mark, flush_begin), the commit point does not
 * wait: every `T` ms, or as soon as the source has nothing more to read, the
 * reader marks its position and the writer starts flushing; reading goes on, and
 * the mark is committed once the writer reports that flush durable. Statements are
 * executed by cdc_script.c, which plans them and calls cdc_job_run; the
 * command line is in cli/cdc_cli_run.c.
 */
#include "cdc_runtime.h"
#include "cdc_job.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cdc_log.h"
#include "cdc_metrics.h"
#include "cdc_planner.h"
#include "cdc_util.h"

static atomic_int stop_requested;

void cdc_runtime_request_stop(void)
{
    atomic_store(&stop_requested, 1);
}

static const char *state_dir;

const char *cdc_state_dir(void)
{
    return state_dir;
}

void cdc_runtime_set_state_dir(const char *dir)
{
    state_dir = dir;
}

/* ---- positions kept across a re-plan (cdc_plugin.h, cdc_resume_note) ---- */

static pthread_mutex_t resume_lock = PTHREAD_MUTEX_INITIALIZER;
static cdc_kv_t resume_pos; /* key -> decimal position */
static bool resume_active;  /* the running job is a re-planned one */

void cdc_resume_note(const char *key, int64_t position)
{
    char v[24];
    snprintf(v, sizeof(v), "%lld", (long long)position);
    pthread_mutex_lock(&resume_lock);
    cdc_kv_set(&resume_pos, key, v);
    pthread_mutex_unlock(&resume_lock);
}

int64_t cdc_resume_get(const char *key)
{
    pthread_mutex_lock(&resume_lock);
    const char *v = resume_active ? cdc_kv_get(&resume_pos, key) : NULL;
    int64_t pos = v ? strtoll(v, NULL, 10) : -1;
    pthread_mutex_unlock(&resume_lock);
    return pos;
}

void cdc_runtime_resume_begin(bool replanned)
{
    pthread_mutex_lock(&resume_lock);
    if (!replanned)
        cdc_kv_free(&resume_pos);
    resume_active = replanned;
    pthread_mutex_unlock(&resume_lock);
}

bool cdc_runtime_stopping(void)
{
    return atomic_load(&stop_requested);
}

static atomic_int hup_seen;

static void on_signal(int sig)
{
    if (sig == SIGHUP) {
        atomic_store(&hup_seen, 1);
        return;
    }
    if (atomic_exchange(&stop_requested, 1)) {
        /* a second SIGINT/SIGTERM: the operator insists; nothing more is committed */
        static const char msg[] = "cdcflow: second stop signal: exiting now without flushing\n";
        ssize_t w = write(2, msg, sizeof(msg) - 1);
        (void)w;
        _exit(130);
    }
}

void cdc_runtime_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/*
 * The watchdog: logs SIGHUP (which reloads nothing), marks the health
 * endpoint as stopping, and ends the process with exit status 3 when a
 * requested stop has not finished within the stop timeout (a sink that
 * hangs on its flush must not keep a container from stopping; what was not
 * committed is read again on the next start).
 */
static atomic_bool watchdog_run;
static int64_t stop_timeout_ms = 30000;
static pthread_mutex_t watchdog_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watchdog_wake = PTHREAD_COND_INITIALIZER; /* the job ended: stop now */

static void *watchdog_main(void *arg)
{
    (void)arg;
    int64_t stop_at = 0;
    while (atomic_load(&watchdog_run)) {
        /* every 100 ms (signals only set flags), or at once when the job ends */
        struct timespec ts = cdc_wall_deadline(100);
        pthread_mutex_lock(&watchdog_lock);
        if (atomic_load(&watchdog_run))
            pthread_cond_timedwait(&watchdog_wake, &watchdog_lock, &ts);
        pthread_mutex_unlock(&watchdog_lock);
        if (!atomic_load(&watchdog_run))
            break;
        if (atomic_exchange(&hup_seen, 0))
            cdc_log(CDC_LOG_WARN, NULL, NULL,
                    "SIGHUP ignored: cdcflow does not reload pipelines; restart the process to "
                    "apply a changed pipeline");
        if (!atomic_load(&stop_requested))
            continue;
        struct timespec mt;
        clock_gettime(CLOCK_MONOTONIC, &mt);
        int64_t now = (int64_t)mt.tv_sec * 1000 + mt.tv_nsec / 1000000;
        if (stop_at == 0) {
            stop_at = now;
            cdc_metrics_set_stopping();
            cdc_log(CDC_LOG_INFO, NULL, NULL,
                    "stop requested: flushing sinks and committing sources "
                    "(at most %lld s)",
                    (long long)(stop_timeout_ms / 1000));
        } else if (now - stop_at >= stop_timeout_ms) {
            cdc_log(CDC_LOG_ERROR, NULL, NULL,
                    "did not stop within %lld s (--stop-timeout); exiting without committing "
                    "what was not yet flushed; it is read again on the next start",
                    (long long)(stop_timeout_ms / 1000));
            _exit(3);
        }
    }
    return NULL;
}

/* ---- job execution ----------------------------------------------------------- */

/* What the splits of one job share for schema changes (cdc_job.h, cdc_schema_hooks_t). */
typedef struct job_shared {
    pthread_mutex_t lock; /* one change decided at a time */
    pthread_cond_t ended; /* a split ended (live went down) */
    int live;             /* splits not yet ended */
    atomic_int replan;    /* a split asked for a new plan: the others stop */
    atomic_int failed;    /* a split failed: the others stop (flushed and committed) */
    bool replan_ready;    /* its change is applied and committed */
} job_shared_t;

typedef struct split_task {
    cdc_pipe_t *pipe;
    int pipe_index;
    job_shared_t *job;
    int split;
    const cdc_job_settings_t *settings;
    atomic_llong *limit_left; /* shared by the splits of a pipe when the limit is not pushed */
    cdc_error_t *err;
    uint64_t rows;
    uint64_t skipped; /* rows dropped by table.exec.expression-error.policy = SKIP */
    cdc_pipe_metrics_t *metrics;
    bool two_phase;      /* reader and writer offer the two-phase commit (cdc_plugin.h) */
    uint64_t checkpoint; /* two-phase: the id of the last commit point */
    bool sink_positions; /* the sink keeps the reader's positions (cdc_plugin.h) */
    cdc_position_store_t store;
    cdc_buf_t positions;
    int64_t started_us; /* when the job started, for the first durable rows' message */
    bool first_logged;
    uint64_t graph_seen; /* a stateful job's checkpoints asked for, seen by this split */
} split_task_t;

/* Once per split: how long the first rows took to become durable (start-up cost). */
static void log_first_rows(split_task_t *t, int64_t rows)
{
    if (t->first_logged || rows <= 0)
        return;
    t->first_logged = true;
    cdc_log(CDC_LOG_INFO, t->settings->job, t->pipe->sink_name,
            "split %d: first rows applied after %.0f ms (%lld row(s) durable in the sink)",
            t->split + 1, (double)(cdc_mono_us() - t->started_us) / 1000.0, (long long)rows);
}

static void report_gauges(split_task_t *t, cdc_reader_t *reader, cdc_writer_t *writer)
{
    (void)writer; /* writers are asked at every scrape (cdc_metrics_set_writer) */
    if (!(reader && reader->ops->metrics))
        return;
    cdc_metrics_samples_begin(t->metrics, t->split);
    reader->ops->metrics(reader, cdc_metrics_sample, NULL);
    cdc_metrics_samples_end(t->metrics, t->split);
}

/* ---- two-phase commit (optional ops of cdc_plugin.h; other pairs flush, then commit) ---- */

/* At open: finishes or discards what the writer prepared before a crash. */
static int two_phase_open(split_task_t *t, cdc_reader_t *reader, cdc_writer_t *writer)
{
    t->two_phase = reader->ops->commit_checkpoint && reader->ops->last_checkpoint &&
                   writer->ops->prepare && writer->ops->publish && writer->ops->recover;
    if (!t->two_phase)
        return 0;
    t->checkpoint = reader->ops->last_checkpoint(reader);
    if (writer->ops->recover(writer, t->checkpoint, &t->err) < 0) {
        cdc_error_add_context(t->err, "recovering table \"%s\" at checkpoint %llu",
                              t->pipe->sink_name, (unsigned long long)t->checkpoint);
        return -1;
    }
    return 0;
}

/* ---- positions kept by the sink (optional ops of cdc_plugin.h) ---- */

static int store_load(void *ctx, cdc_buf_t *out, cdc_error_t **err)
{
    cdc_writer_t *writer = ctx;
    return writer->ops->stored_positions(writer, out, err);
}

/* At open, unless two-phase commit is used: the reader starts where the sink's positions say. */
static void sink_positions_open(split_task_t *t, cdc_reader_t *reader, cdc_writer_t *writer)
{
    t->sink_positions = !t->two_phase && reader->ops->positions &&
                        reader->ops->set_position_store && writer->ops->commit_positions &&
                        writer->ops->stored_positions;
    if (!t->sink_positions)
        return;
    t->store = (cdc_position_store_t){.load = store_load, .ctx = writer};
    reader->ops->set_position_store(reader, &t->store);
}

/* Rows and positions committed by the sink in one decision, then the upstream's own record. */
static int sink_positions_commit(split_task_t *t, cdc_reader_t *reader, cdc_writer_t *writer)
{
    cdc_buf_clear(&t->positions);
    if (reader->ops->positions(reader, &t->positions, &t->err) < 0)
        return -1;
    if (writer->ops->commit_positions(writer, t->positions.data ? t->positions.data : "",
                                      t->positions.len, &t->err) < 0) {
        cdc_error_add_context(t->err, "committing table \"%s\"", t->pipe->sink_name);
        return -1;
    }
    return reader->ops->commit ? reader->ops->commit(reader, &t->err) : 0;
}

/* prepare (durable, hidden) -> the reader stores the id with its position -> publish. */
static int two_phase_commit(split_task_t *t, cdc_reader_t *reader, cdc_writer_t *writer)
{
    const char *sink = t->pipe->sink_name;
    uint64_t id = t->checkpoint + 1;
    if (writer->ops->prepare(writer, id, &t->err) < 0) {
        cdc_error_add_context(t->err, "preparing checkpoint %llu of table \"%s\"",
                              (unsigned long long)id, sink);
        return -1;
    }
    if (reader->ops->commit_checkpoint(reader, id, &t->err) < 0)
        return -1;
    t->checkpoint = id;
    if (writer->ops->publish(writer, id, &t->err) < 0) {
        cdc_error_add_context(t->err, "publishing checkpoint %llu of table \"%s\"",
                              (unsigned long long)id, sink);
        return -1;
    }
    return 0;
}

/* Whether a commit may happen now: exactly-once commits wait for a transaction's end. */
static bool may_commit(const split_task_t *t, cdc_reader_t *reader)
{
    return !(t->two_phase || t->sink_positions) || !reader->ops->at_boundary ||
           reader->ops->at_boundary(reader);
}

/* Flushes the writer (durable), then commits the reader's position; times it for the metrics. */
static int flush_commit(split_task_t *t, cdc_reader_t *reader, cdc_writer_t *writer,
                        int64_t unflushed)
{
    cdc_pipe_t *p = t->pipe;
    int64_t t0 = cdc_mono_us();
    if (t->two_phase) {
        if (two_phase_commit(t, reader, writer) < 0)
            return -1;
    } else if (t->sink_positions) {
        if (sink_positions_commit(t, reader, writer) < 0)
            return -1;
    } else {
        if (writer->ops->flush(writer, &t->err) < 0) {
            cdc_error_add_context(t->err, "flushing table \"%s\"", p->sink_name);
            return -1;
        }
        bool upstream = !(p->graph && !cdc_graph_resumes(p)); /* stateful: see cdc_graph.c */
        if (upstream && reader->ops->commit && reader->ops->commit(reader, &t->err) < 0)
            return -1;
    }
    int64_t took = cdc_mono_us() - t0;
    cdc_metrics_flush(t->metrics, took, (uint64_t)unflushed);
    report_gauges(t, reader, writer);
    log_first_rows(t, unflushed);
    if (cdc_log_enabled(CDC_LOG_DEBUG))
        cdc_log(CDC_LOG_DEBUG, t->settings->job, p->sink_name,
                "split %d: %lld row(s) durable and committed in %.1f ms", t->split + 1,
                (long long)unflushed, (double)took / 1000.0);
    return 0;
}

/* The overlapped commit: the rows of the flush in progress, its ticket and its start. */
typedef struct pending_flush_s {
    bool on;        /* reader and writer offer it (cdc_plugin.h: mark, flush_begin) */
    int64_t ticket; /* awaited from writer->ops->durable; -1: no flush pending */
    int64_t rows;
    int64_t t0;
} pending_flush_t;

/* Marks the reader's position and starts the writer's flush of everything before it. */
static int overlap_begin(split_task_t *t, cdc_reader_t *reader, cdc_writer_t *writer,
                         pending_flush_t *pf, int64_t rows)
{
    reader->ops->mark(reader);
    pf->t0 = cdc_mono_us();
    pf->ticket = writer->ops->flush_begin(writer, &t->err);
    if (pf->ticket < 0) {
        cdc_error_add_context(t->err, "flushing table \"%s\"", t->pipe->sink_name);
        return -1;
    }
    pf->rows = rows;
    return 0;
}

/* Commits the mark once the writer says its flush is durable; never waits. */
static int overlap_poll(split_task_t *t, cdc_reader_t *reader, cdc_writer_t *writer,
                        pending_flush_t *pf)
{
    if (pf->ticket < 0)
        return 0;
    int64_t durable = writer->ops->durable(writer, &t->err);
    if (durable < 0) {
        cdc_error_add_context(t->err, "flushing table \"%s\"", t->pipe->sink_name);
        return -1;
    }
    if (durable < pf->ticket)
        return 0;
    if (reader->ops->commit_mark(reader, &t->err) < 0)
        return -1;
    pf->ticket = -1;
    int64_t took = cdc_mono_us() - pf->t0;
    cdc_metrics_flush(t->metrics, took, (uint64_t)pf->rows);
    report_gauges(t, reader, writer);
    log_first_rows(t, pf->rows);
    if (cdc_log_enabled(CDC_LOG_DEBUG))
        cdc_log(CDC_LOG_DEBUG, t->settings->job, t->pipe->sink_name,
                "split %d: %lld row(s) durable and committed %.1f ms after the commit point "
                "(read on meanwhile)",
                t->split + 1, (long long)pf->rows, (double)took / 1000.0);
    return 0;
}

/* "(id INT NOT NULL, v STRING)" of a ROW type, or "(unknown)". */
static void put_columns(cdc_buf_t *b, const cdc_type_t *row)
{
    if (!row) {
        cdc_buf_puts(b, "(unknown)");
        return;
    }
    char *s = cdc_type_to_string(row);
    /* "ROW<...>" -> "(...)" */
    size_t n = strlen(s);
    if (n > 5 && strncmp(s, "ROW<", 4) == 0)
        cdc_buf_printf(b, "(%.*s)", (int)(n - 5), s + 4);
    else
        cdc_buf_puts(b, s);
    free(s);
}

/*
 * The reader stopped at a schema change (CDC_POLL_SCHEMA), every row before it
 * written: logs and counts it, makes the rows durable, and asks the job's
 * hooks. Returns 0 to go on (committed), 1 when the change was applied and
 * committed and the job must re-plan (the writer is closed), 2 when another
 * split is re-planning (flushed and committed: stop), -1 with t->err (nothing
 * committed past the change).
 */
static int schema_change(split_task_t *t, cdc_reader_t *reader, cdc_writer_t **writerp,
                         int64_t unflushed)
{
    cdc_pipe_t *p = t->pipe;
    cdc_writer_t *writer = *writerp;
    const cdc_schema_change_t *c =
        reader->ops->schema_change ? reader->ops->schema_change(reader) : NULL;
    if (!c) {
        t->err = cdc_error_new(CDC_ERR_INTERNAL,
                               "the reader of \"%s\" stopped at a schema "
                               "change but does not say which",
                               p->source_name);
        return -1;
    }
    atomic_fetch_add(&t->metrics->schema_changes, 1);
    cdc_buf_t b = {0};
    cdc_schema_change_describe(c, &b);
    if (c->ddl)
        cdc_buf_printf(&b, " (DDL: %s)", c->ddl);
    cdc_buf_puts(&b, "; columns before ");
    put_columns(&b, c->before);
    cdc_buf_puts(&b, ", after ");
    put_columns(&b, c->after);
    cdc_log(CDC_LOG_INFO, t->settings->job, p->source_name,
            "split %d: schema change of %s at %s: %s", t->split + 1, c->table, c->position,
            cdc_buf_cstr(&b));
    cdc_buf_free(&b);
    if (writer->ops->flush(writer, &t->err) < 0) {
        cdc_error_add_context(t->err, "flushing table \"%s\" before a schema change", p->sink_name);
        return -1;
    }
    const cdc_schema_hooks_t *h = &t->settings->schema;
    pthread_mutex_lock(&t->job->lock);
    if (atomic_load(&t->job->replan)) {
        pthread_mutex_unlock(&t->job->lock);
        return flush_commit(t, reader, writer, unflushed) < 0 ? -1 : 2;
    }
    int d = h->decide ? h->decide(h->ctx, t->pipe_index, c, &t->err)
                      : cdc_error_set(&t->err, CDC_ERR_PLAN,
                                      "schema change of %s at %s: this "
                                      "job cannot handle schema changes",
                                      c->table, c->position);
    if (d <= 0) {
        pthread_mutex_unlock(&t->job->lock);
        if (d < 0) {
            cdc_error_add_context(t->err, "reading table \"%s\" (split %d of %d)", p->source_name,
                                  t->split + 1, p->parallelism);
            return -1;
        }
        return flush_commit(t, reader, writer, unflushed) < 0 ? -1 : 0;
    }
    atomic_store(&t->job->replan, 1);
    /* sinks committing with the reader (two-phase, positions) take the change's position now;
       their apply has nothing to undo */
    bool early = t->two_phase || t->sink_positions;
    if (early && flush_commit(t, reader, writer, unflushed) < 0) {
        pthread_mutex_unlock(&t->job->lock);
        return -1;
    }
    /* the sink changes with no writer open: the others stop (flushed, committed) */
    writer->ops->close(writer);
    *writerp = NULL;
    cdc_metrics_set_writer(t->metrics, t->split, NULL);
    while (t->job->live > 1)
        pthread_cond_wait(&t->job->ended, &t->job->lock);
    pthread_mutex_unlock(&t->job->lock);
    if (h->apply(h->ctx, &t->err) < 0)
        return -1;
    if (!early && reader->ops->commit && reader->ops->commit(reader, &t->err) < 0)
        return -1;
    t->job->replan_ready = true;
    return 1;
}

static void *run_split(void *arg)
{
    split_task_t *t = arg;
    cdc_pipe_t *p = t->pipe;
    cdc_reader_t *reader = NULL;
    cdc_writer_t *writer = NULL;
    cdc_pipe_split_t *ps = NULL;
    cdc_batch_t batch, outb;
    cdc_batch_init(&batch);
    cdc_batch_init(&outb);
    char errbuf[1024];
    if (p->src->ops->open_reader(p->src, t->split, p->parallelism, &reader, &t->err) < 0)
        goto done;
    if (p->graph
            ? cdc_graph_open_writer(p, t->split,
                                    reader->ops->positions && reader->ops->set_position_store,
                                    &writer, &t->err) < 0
            : p->sink->ops->open_writer(p->sink, t->split, p->parallelism, &writer, &t->err) < 0)
        goto done;
    cdc_metrics_set_writer(t->metrics, t->split, writer);
    if (two_phase_open(t, reader, writer) < 0)
        goto done;
    sink_positions_open(t, reader, writer);
    if (cdc_pipe_split_open(p, t->split, &ps, &t->err) < 0)
        goto done;
    int64_t last_flush = cdc_mono_ms();
    int64_t last_gauges = last_flush;
    int64_t unflushed = 0;
    bool end = false;
    pending_flush_t pf = {.on = !t->two_phase && !t->sink_positions && reader->ops->mark &&
                                reader->ops->commit_mark && writer->ops->flush_begin &&
                                writer->ops->durable,
                          .ticket = -1};
    report_gauges(t, reader, writer);
    while (!end) {
        if (atomic_load(&stop_requested)) {
            cdc_log(CDC_LOG_INFO, t->settings->job, p->source_name,
                    "split %d: stop requested; flushing and committing", t->split + 1);
            break;
        }
        if (atomic_load(&t->job->failed)) {
            cdc_log(CDC_LOG_INFO, t->settings->job, p->source_name,
                    "split %d: another split failed; flushing, committing and stopping",
                    t->split + 1);
            break;
        }
        if (atomic_load(&t->job->replan)) {
            cdc_log(CDC_LOG_INFO, t->settings->job, p->source_name,
                    "split %d: stopping for the new plan a schema change asks for; flushing and "
                    "committing",
                    t->split + 1);
            break;
        }
        cdc_batch_reset(&batch);
        cdc_batch_reset(&outb);
        uint32_t want = t->settings->batch_rows;
        int rc = reader->ops->poll(reader, &batch, want, &t->err);
        if (rc == CDC_POLL_ERROR) {
            if (!t->err)
                t->err = cdc_error_new(CDC_ERR_INTERNAL, "source reader failed without a reason");
            cdc_error_add_context(t->err, "reading table \"%s\" (split %d of %d)", p->source_name,
                                  t->split + 1, p->parallelism);
            goto done;
        }
        if (rc == CDC_POLL_END)
            end = true;
        atomic_fetch_add(&t->metrics->read, batch.n);
        uint64_t skipped_before = t->skipped;
        bool barrier = rc == CDC_POLL_FLUSH;
        errbuf[0] = '\0';
        int trc = cdc_pipe_transform(p, ps, &batch, &outb, &t->skipped, errbuf, sizeof(errbuf));
        if (trc == -2) {
            t->err = cdc_pipe_split_take_error(ps);
            cdc_error_add_context(t->err, "reading table \"%s\" (split %d of %d)", p->source_name,
                                  t->split + 1, p->parallelism);
            goto done;
        }
        if (trc == -3) {
            t->err = cdc_error_new(CDC_ERR_PARSE, "%s", errbuf);
            cdc_error_set_hint(t->err, "SET 'table.exec.sink.not-null-enforcer' = 'DROP' drops "
                                       "and counts such rows instead of failing, or filter "
                                       "them out with WHERE ... IS NOT NULL");
            cdc_error_add_context(t->err, "reading table \"%s\" (split %d of %d)", p->source_name,
                                  t->split + 1, p->parallelism);
            goto done;
        }
        if (trc < 0) {
            t->err = cdc_error_new(CDC_ERR_PARSE, "cannot compute a row for table \"%s\": %s",
                                   p->sink_name, errbuf);
            cdc_error_set_hint(t->err, "SET 'table.exec.expression-error.policy' = 'SKIP' skips "
                                       "and counts such rows instead of failing");
            cdc_error_add_context(t->err, "reading table \"%s\" (split %d of %d)", p->source_name,
                                  t->split + 1, p->parallelism);
            goto done;
        }
        if (t->limit_left && outb.n > 0) {
            long long left = atomic_fetch_sub(t->limit_left, (long long)outb.n);
            if (left <= 0) {
                outb.n = 0;
                end = true;
            } else if (left < (long long)outb.n) {
                outb.n = (uint32_t)left;
                end = true;
            }
        }
        if (outb.n > 0) {
            if (writer->ops->write(writer, &outb, &t->err) < 0) {
                cdc_error_add_context(t->err, "writing table \"%s\"", p->sink_name);
                goto done;
            }
            t->rows += outb.n;
            atomic_fetch_add(&t->metrics->written, outb.n);
        }
        if (t->skipped != skipped_before)
            atomic_fetch_add(&t->metrics->skipped, t->skipped - skipped_before);
        unflushed += batch.n;
        if (rc == CDC_POLL_SCHEMA) {
            int sc = schema_change(t, reader, &writer, unflushed + (pf.ticket >= 0 ? pf.rows : 0));
            if (sc < 0)
                goto done;  /* nothing committed past the change */
            pf.ticket = -1; /* the change's flush made every row durable */
            if (sc == 1)
                goto done; /* applied and committed: the job re-plans */
            unflushed = 0;
            if (sc == 2)
                break; /* another split re-plans: stop here, flushed and committed */
            last_flush = last_gauges = cdc_mono_ms();
            continue;
        }
        int64_t now = cdc_mono_ms();
        if (pf.on && overlap_poll(t, reader, writer, &pf) < 0)
            goto done;
        if (pf.on && !barrier) {
            /* every interval, or at once when the source has nothing more to read; one flush
               pending at a time (the writer's buffers bound what is read meanwhile) */
            bool idle = rc == CDC_POLL_OK && batch.n == 0;
            if (pf.ticket < 0 && unflushed > 0 &&
                (idle || now - last_flush >= t->settings->flush_interval_ms)) {
                if (overlap_begin(t, reader, writer, &pf, unflushed) < 0)
                    goto done;
                unflushed = 0;
                last_flush = last_gauges = now;
            } else if (now - last_gauges >= t->settings->flush_interval_ms) {
                report_gauges(t, reader, writer);
                last_gauges = now;
            }
        } else if (barrier || /* a stateful job: no row count (see the top of the file) */
                   (p->graph && cdc_graph_checkpoint_wanted(p, &t->graph_seen) &&
                    may_commit(t, reader)) ||
                   (unflushed > 0 &&
                    ((!p->graph && unflushed >= t->settings->flush_rows) ||
                     now - last_flush >= t->settings->flush_interval_ms) &&
                    may_commit(t, reader))) {
            if (flush_commit(t, reader, writer, unflushed + (pf.ticket >= 0 ? pf.rows : 0)) < 0)
                goto done;
            unflushed = 0;
            pf.ticket = -1; /* the synchronous flush made it durable, commit() committed it */
            last_flush = last_gauges = now;
        } else if (now - last_gauges >= t->settings->flush_interval_ms) {
            /* an idle source's gauges (a slot's retained WAL) change without commits */
            report_gauges(t, reader, writer);
            last_gauges = now;
        }
    }
    /* end of input or stop: make everything durable, then commit */
    if (!may_commit(t, reader)) {
        cdc_log(CDC_LOG_INFO, t->settings->job, p->source_name,
                "split %d: stopped inside an upstream transaction: the %lld row(s) read since "
                "the last commit are not committed; the next start reads them again",
                t->split + 1, (long long)unflushed);
    } else if (flush_commit(t, reader, writer, unflushed + (pf.ticket >= 0 ? pf.rows : 0)) < 0) {
        goto done;
    }
done:
    if (t->err)
        atomic_store(&t->job->failed, 1);
    pthread_mutex_lock(&t->job->lock);
    t->job->live--;
    pthread_cond_broadcast(&t->job->ended);
    pthread_mutex_unlock(&t->job->lock);
    atomic_fetch_sub(&t->metrics->running_splits, 1);
    cdc_metrics_set_writer(t->metrics, t->split, NULL);
    cdc_pipe_split_close(ps);
    if (writer)
        writer->ops->close(writer);
    if (reader)
        reader->ops->close(reader);
    cdc_batch_free(&batch);
    cdc_batch_free(&outb);
    cdc_buf_free(&t->positions);
    return NULL;
}

int cdc_job_run(cdc_pipe_t **pipes, int npipes, const cdc_job_settings_t *settings,
                cdc_error_t **err)
{
    for (int i = 0; i < npipes; i++) {
        if (pipes[i]->graph && cdc_graph_begin(pipes[i]->graph, settings, err) < 0) {
            for (int j = 0; j <= i; j++)
                if (pipes[j]->graph)
                    cdc_graph_end(pipes[j]->graph);
            return -1;
        }
    }
    int ntasks = 0;
    for (int i = 0; i < npipes; i++)
        ntasks += pipes[i]->parallelism;
    split_task_t *tasks = cdc_xcalloc((size_t)ntasks, sizeof(*tasks));
    job_shared_t job = {.live = ntasks};
    pthread_mutex_init(&job.lock, NULL);
    pthread_cond_init(&job.ended, NULL);
    pthread_t *threads = cdc_xcalloc((size_t)ntasks, sizeof(*threads));
    atomic_llong *limits = cdc_xcalloc((size_t)npipes, sizeof(*limits));
    int k = 0;
    for (int i = 0; i < npipes; i++) {
        bool runtime_limit = pipes[i]->limit >= 0 && !pipes[i]->limit_pushed;
        atomic_init(&limits[i], pipes[i]->limit);
        int64_t total = pipes[i]->row_count;
        if (pipes[i]->limit >= 0 && (total < 0 || pipes[i]->limit < total))
            total = pipes[i]->limit;
        cdc_pipe_metrics_t *pm =
            cdc_metrics_pipe_new(settings->job, pipes[i]->source_name, pipes[i]->sink_name,
                                 pipes[i]->parallelism, total);
        atomic_store(&pm->running_splits, pipes[i]->parallelism);
        char mbuf[16];
        cdc_log(CDC_LOG_INFO, settings->job, pipes[i]->sink_name,
                "job started: reading \"%s\" with %d split(s), changelog %s", pipes[i]->source_name,
                pipes[i]->parallelism, cdc_changelog_mode_str(pipes[i]->mode, mbuf));
        for (int s = 0; s < pipes[i]->parallelism; s++, k++) {
            tasks[k] = (split_task_t){.pipe = pipes[i],
                                      .pipe_index = i,
                                      .job = &job,
                                      .split = s,
                                      .settings = settings,
                                      .limit_left = runtime_limit ? &limits[i] : NULL,
                                      .metrics = pm,
                                      .started_us = cdc_mono_us()};
        }
    }
    if (settings->status_line)
        cdc_status_start(1000);
    int started = 0;
    for (k = 0; k < ntasks; k++) {
        if (ntasks == 1) {
            run_split(&tasks[k]);
            continue;
        }
        if (pthread_create(&threads[k], NULL, run_split, &tasks[k]) != 0) {
            tasks[k].err =
                cdc_error_new(CDC_ERR_INTERNAL, "could not start a thread: %s", strerror(errno));
            cdc_runtime_request_stop();
            break;
        }
        started++;
    }
    if (ntasks > 1 && started < ntasks) {
        /* splits never started never end: a split waiting for the others must not wait for them */
        pthread_mutex_lock(&job.lock);
        job.live -= ntasks - started;
        pthread_cond_broadcast(&job.ended);
        pthread_mutex_unlock(&job.lock);
    }
    for (k = 0; k < started; k++)
        pthread_join(threads[k], NULL);
    for (int i = 0; i < npipes; i++)
        if (pipes[i]->graph)
            cdc_graph_end(pipes[i]->graph);
    if (settings->status_line)
        cdc_status_stop();
    uint64_t total_rows = 0;
    for (k = 0; k < ntasks; k++)
        total_rows += tasks[k].rows;
    cdc_log(CDC_LOG_INFO, settings->job, NULL, "job %s: %llu row(s) written",
            job.replan_ready               ? "stopped for a new plan"
            : atomic_load(&stop_requested) ? "stopped"
                                           : "finished",
            (unsigned long long)total_rows);
    int rc = 0;
    uint64_t skipped = 0;
    for (k = 0; k < ntasks; k++)
        skipped += tasks[k].skipped;
    if (skipped)
        fprintf(stderr,
                "cdcflow: skipped %llu row(s) whose expressions failed "
                "(table.exec.expression-error.policy = SKIP)\n",
                (unsigned long long)skipped);
    for (int i = 0; i < npipes; i++)
        if (atomic_load(&pipes[i]->not_null_dropped))
            fprintf(stderr,
                    "cdcflow: dropped %llu row(s) with NULL in a NOT NULL column of table "
                    "\"%s\" (table.exec.sink.not-null-enforcer = DROP)\n",
                    (unsigned long long)atomic_load(&pipes[i]->not_null_dropped),
                    pipes[i]->sink_name);
    for (k = 0; k < ntasks; k++) {
        if (tasks[k].err && rc == 0) {
            *err = tasks[k].err;
            tasks[k].err = NULL;
            rc = -1;
        }
        cdc_error_destroy(tasks[k].err);
    }
    if (rc == 0 && job.replan_ready)
        rc = CDC_JOB_REPLAN;
    pthread_mutex_destroy(&job.lock);
    pthread_cond_destroy(&job.ended);
    free(tasks);
    free(threads);
    free(limits);
    return rc;
}

/* ---- the watchdog's life ---------------------------------------------------------- */

static pthread_t watchdog_thread;
static bool watchdog_started;

void cdc_runtime_watchdog_start(int64_t stop_timeout_seconds)
{
    if (stop_timeout_seconds >= 0)
        stop_timeout_ms = stop_timeout_seconds * 1000;
    atomic_store(&watchdog_run, true);
    watchdog_started = pthread_create(&watchdog_thread, NULL, watchdog_main, NULL) == 0;
}

void cdc_runtime_watchdog_stop(void)
{
    if (!watchdog_started)
        return;
    pthread_mutex_lock(&watchdog_lock);
    atomic_store(&watchdog_run, false);
    pthread_cond_signal(&watchdog_wake);
    pthread_mutex_unlock(&watchdog_lock);
    pthread_join(watchdog_thread, NULL);
    watchdog_started = false;
}
