/*
 * fs_sink.c — the filesystem connector's sink: rows encoded by the table's
 * format, one message per line, into rolling files under Hive-style
 * partition directories.
 *
 * Files are written hidden (".part-<job>-<subtask>-<n>.inprogress") and made
 * visible ("part-<job>-<subtask>-<n>") only by the writer's flush, the
 * runtime's commit point: flush writes, fsyncs and renames every file, then
 * fsyncs the directories, so a reader never sees a partial file and a crash
 * leaves only hidden in-progress files. A file rolls (is closed and waits for
 * the next flush) at sink.rolling-policy.file-size or after
 * sink.rolling-policy.rollover-interval; every flush ends all files.
 *
 * Two-phase commit (cdc_plugin.h; the runtime uses it when the source has the
 * other half, e.g. the monitored filesystem source): prepare(id) ends and
 * syncs the files, still hidden, and lists them in the manifest
 * <path>/_cdcflow_pending/<subtask>-<id>; publish(id) renames them into place
 * and removes the manifest; recover(last) at the next start renames the files
 * of the manifests with id <= last (the source stored that id with its
 * position) and removes those of later ones. So a crash anywhere neither
 * loses nor repeats a row.
 *
 * Partitions: from INSERT ... PARTITION (k='v') (static) or from the rows'
 * values (dynamic). INSERT OVERWRITE: when the job ends cleanly (every writer
 * flushed and closed), the files of the partitions it wrote that it did not
 * write itself are removed; they stay until then, so new files are in place
 * before old ones go.
 *
 * Partition commit: once a partition's files are visible, no writer of this
 * job has an unfinished file in it, and the trigger fired (process-time:
 * creation + delay has passed; partition-time: the time extracted from the
 * partition values + delay has passed on the wall clock), the policies run:
 * success-file, catalog (the partition is added to <path>/_cdcflow_partitions,
 * which SHOW PARTITIONS and readers of the table use), custom (a C function,
 * see cdc_fs_commit.h). The end of a job commits every partition it wrote.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "fs_int.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cdc_fs_commit.h"

#define WRITE_CHUNK (256u << 10) /* buffered bytes per open file before a write() */

enum { POLICY_SUCCESS = 1, POLICY_CATALOG = 2, POLICY_CUSTOM = 4 };
enum { TRIGGER_PROCESS_TIME = 0, TRIGGER_PARTITION_TIME = 1 };

/* Commit state of one partition, shared by the writers. */
typedef struct fs_pstate_s {
    char *rel;
    char **vals; /* unescaped values, one per partition column */
    int64_t created_ms;
    int open;     /* files of it not yet visible (in progress or waiting for a flush) */
    bool pending; /* files made visible since its last commit */
} fs_pstate_t;

typedef struct fs_sink_s {
    cdc_sink_t base;
    char *name, *path, *default_name;
    cdc_type_t *schema;
    int *pkeys;
    int npkeys;
    cdc_type_t *data_type;
    int *data_cols;
    int ndata;
    const cdc_format_factory_t *fmt;
    const cdc_config_t *fmt_cfg;
    cdc_changelog_mode_t accepts;
    int64_t roll_size, roll_ms;
    bool overwrite;
    cdc_kv_t static_part;
    int trigger;
    int64_t delay_ms;
    int policies[3];
    int npolicies;
    char *success_name;
    char *ts_pattern;
    void *dl;
    cdc_fs_commit_fn custom;
    char jobid[33];
    /* the number of the next file: one sequence for every writer, so a writer opened again
       for a subtask (after a schema change) never reuses the name of a file made visible */
    _Atomic int64_t seq;

    int run_fd; /* the flock'ed mark of this run (fs_runs.c); -1 until the first writer */

    pthread_mutex_t lock;
    fs_pstate_t *ps;
    int nps;
    int nsubtasks, closed, failed;
} fs_sink_t;

typedef struct fs_open_s {
    int ps;
    char *rel; /* the partition's directory, relative */
    int fd;
    char *tmp, *final, *dir;
    int64_t bytes;
    int64_t opened_ms;
    uint64_t ckpt; /* two-phase: the checkpoint that prepared it (0: not prepared) */
    cdc_buf_t buf;
} fs_open_t;

typedef struct fs_writer_s {
    cdc_writer_t base;
    fs_sink_t *sink;
    int subtask;
    cdc_ser_t *ser;
    fs_open_t *open;
    int nopen;
    fs_open_t *pending; /* rolled files waiting for the flush (fd closed) */
    int npending;
    bool dirty; /* rows written since the last successful flush */
    bool failed;
    bool pending_dir_synced; /* two-phase: FS_PENDING_DIR made durable once */
    bool positions_mode;     /* commits through commit_positions (no checkpoint manifests) */
    bool positions_dir_synced;
    fs_poslist_t pos; /* positions: every one this writer committed or rolled forward */
    cdc_buf_t rel, msg, text;
    cdc_value_t *vals;
} fs_writer_t;

static int sys_error(cdc_error_t **err, const char *what, const char *path)
{
    return cdc_error_set(err, CDC_ERR_IO, "could not %s \"%s\": %s", what, path, strerror(errno));
}

/* ---- partition commit -------------------------------------------------------------------------
 */

static int find_ps(fs_sink_t *sink, const char *rel, const char *const *vals)
{
    for (int i = 0; i < sink->nps; i++)
        if (strcmp(sink->ps[i].rel, rel) == 0)
            return i;
    sink->ps = cdc_xrealloc(sink->ps, sizeof(fs_pstate_t) * (size_t)(sink->nps + 1));
    fs_pstate_t *p = &sink->ps[sink->nps];
    memset(p, 0, sizeof(*p));
    p->rel = cdc_xstrdup(rel);
    p->vals = cdc_xcalloc((size_t)sink->npkeys + 1, sizeof(char *));
    for (int k = 0; k < sink->npkeys; k++)
        p->vals[k] = cdc_xstrdup(vals[k]);
    p->created_ms = cdc_wall_ms();
    return sink->nps++;
}

/* The partition's time from partition.time-extractor.timestamp-pattern ("$dt $hr:00:00"). */
static int partition_time(fs_sink_t *sink, const fs_pstate_t *p, int64_t *ms, cdc_error_t **err)
{
    cdc_buf_t b = {0};
    const char *pat = sink->ts_pattern;
    char *dflt = NULL;
    if (!pat)
        pat = dflt = cdc_strdup_printf("$%s", sink->schema->names[sink->pkeys[0]]);
    for (const char *s = pat; *s;) {
        if (*s != '$') {
            cdc_buf_putc(&b, *s++);
            continue;
        }
        int best = -1;
        size_t bl = 0;
        for (int k = 0; k < sink->npkeys; k++) {
            const char *key = sink->schema->names[sink->pkeys[k]];
            size_t kl = strlen(key);
            if (kl > bl && strncmp(s + 1, key, kl) == 0) {
                best = k;
                bl = kl;
            }
        }
        if (best < 0) {
            cdc_buf_putc(&b, *s++);
            continue;
        }
        cdc_buf_puts(&b, p->vals[best]);
        s += 1 + bl;
    }
    free(dflt);
    const char *text = cdc_buf_cstr(&b);
    cdc_ts_t ts;
    bool had_zone;
    int32_t days;
    int rc = 0;
    if (cdc_timestamp_parse(text, b.len, 3, false, &ts, &had_zone) == 0)
        *ms = ts.millis;
    else if (cdc_date_parse(text, b.len, &days) == 0)
        *ms = (int64_t)days * 86400000;
    else
        rc = cdc_error_set(err, CDC_ERR_PARSE,
                           "partition \"%s\" of table \"%s\": \"%s\" is not a timestamp "
                           "(partition.time-extractor.timestamp-pattern)",
                           p->rel, sink->name, text);
    cdc_buf_free(&b);
    return rc;
}

static int commit_success_file(fs_sink_t *sink, const char *dir, cdc_error_t **err)
{
    char *f = cdc_strdup_printf("%s/%s", dir, sink->success_name);
    int rc = cdc_file_write_atomic(f, "", 0, err);
    free(f);
    return rc;
}

/* Adds rel to <path>/_cdcflow_partitions under an exclusive lock (other processes too). */
static int commit_catalog(fs_sink_t *sink, const char *rel, cdc_error_t **err)
{
    char *lockp = cdc_strdup_printf("%s/%s.lock", sink->path, FS_CATALOG_FILE);
    char *file = cdc_strdup_printf("%s/%s", sink->path, FS_CATALOG_FILE);
    int rc = -1;
    cdc_buf_t b = {0};
    int fd = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        sys_error(err, "open", lockp);
        goto out;
    }
    if (flock(fd, LOCK_EX) < 0) {
        sys_error(err, "lock", lockp);
        goto out;
    }
    if (cdc_file_read_all(file, &b, err) < 0)
        goto out;
    const char *s = b.len ? cdc_buf_cstr(&b) : "";
    size_t rl = strlen(rel);
    for (const char *q = s; *q;) {
        const char *e = strchr(q, '\n');
        size_t n = e ? (size_t)(e - q) : strlen(q);
        if (n == rl && memcmp(q, rel, n) == 0) {
            rc = 0; /* already there */
            goto out;
        }
        q += n + (e ? 1 : 0);
    }
    if (b.len && b.data[b.len - 1] != '\n')
        cdc_buf_putc(&b, '\n');
    cdc_buf_printf(&b, "%s\n", rel);
    rc = cdc_file_write_atomic(file, b.data, b.len, err);
out:
    if (fd >= 0)
        close(fd);
    cdc_buf_free(&b);
    free(lockp);
    free(file);
    return rc;
}

static int commit_custom(fs_sink_t *sink, const fs_pstate_t *p, const char *dir, cdc_error_t **err)
{
    const char **keys = cdc_xcalloc((size_t)sink->npkeys + 1, sizeof(char *));
    for (int k = 0; k < sink->npkeys; k++)
        keys[k] = sink->schema->names[sink->pkeys[k]];
    cdc_fs_partition_t part = {.table = sink->name,
                               .table_path = sink->path,
                               .partition = p->rel,
                               .partition_path = dir,
                               .keys = keys,
                               .values = (const char *const *)p->vals,
                               .n = sink->npkeys};
    char eb[512] = "";
    int rc = sink->custom(&part, eb, sizeof(eb));
    free(keys);
    if (rc != 0)
        return cdc_error_set(err, CDC_ERR_REMOTE,
                             "custom partition-commit policy failed for partition \"%s\" of "
                             "table \"%s\": %s",
                             p->rel, sink->name, eb[0] ? eb : "no reason given");
    return 0;
}

/* Runs the policies on one partition (sink->lock held). */
static int commit_partition(fs_sink_t *sink, fs_pstate_t *p, cdc_error_t **err)
{
    char *dir = cdc_strdup_printf("%s/%s", sink->path, p->rel);
    int rc = 0;
    for (int i = 0; i < sink->npolicies && rc == 0; i++) {
        if (sink->policies[i] == POLICY_SUCCESS)
            rc = commit_success_file(sink, dir, err);
        else if (sink->policies[i] == POLICY_CATALOG)
            rc = commit_catalog(sink, p->rel, err);
        else
            rc = commit_custom(sink, p, dir, err);
    }
    free(dir);
    if (rc == 0)
        p->pending = false;
    return rc;
}

/* Commits the partitions whose trigger fired, or all ready ones when `all` (lock held). */
static int commit_ready(fs_sink_t *sink, bool all, cdc_error_t **err)
{
    if (sink->npkeys == 0 || sink->npolicies == 0)
        return 0;
    int64_t now = cdc_wall_ms();
    for (int i = 0; i < sink->nps; i++) {
        fs_pstate_t *p = &sink->ps[i];
        if (!p->pending || p->open > 0)
            continue;
        if (!all) {
            int64_t t = p->created_ms;
            if (sink->trigger == TRIGGER_PARTITION_TIME && partition_time(sink, p, &t, err) < 0)
                return -1;
            if (now < t + sink->delay_ms)
                continue;
        }
        if (commit_partition(sink, p, err) < 0)
            return -1;
    }
    return 0;
}

/* ---- files --------------------------------------------------------------------------------------
 */

static int write_out(fs_open_t *f, cdc_error_t **err)
{
    size_t off = 0;
    while (off < f->buf.len) {
        ssize_t w = write(f->fd, f->buf.data + off, f->buf.len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return sys_error(err, "write", f->tmp);
        off += (size_t)w;
    }
    cdc_buf_clear(&f->buf);
    return 0;
}

/* Ends an open file: its bytes written and synced; it waits for the flush's rename. */
static int roll(fs_writer_t *w, int i, cdc_error_t **err)
{
    fs_open_t *f = &w->open[i];
    if (write_out(f, err) < 0)
        return -1;
    if (fsync(f->fd) < 0)
        return sys_error(err, "sync", f->tmp);
    close(f->fd);
    f->fd = -1;
    cdc_buf_free(&f->buf);
    w->pending = cdc_xrealloc(w->pending, sizeof(fs_open_t) * (size_t)(w->npending + 1));
    w->pending[w->npending++] = *f;
    w->open[i] = w->open[--w->nopen];
    return 0;
}

static void drop_file(fs_open_t *f)
{
    if (f->fd >= 0)
        close(f->fd);
    if (f->tmp)
        unlink(f->tmp);
    free(f->tmp);
    free(f->rel);
    free(f->final);
    free(f->dir);
    cdc_buf_free(&f->buf);
}

/* The partition directory of a row ("" without partitions) into w->rel; values into vals. */
static void row_partition(fs_writer_t *w, const cdc_row_t *row, char **vals)
{
    fs_sink_t *sink = w->sink;
    cdc_buf_clear(&w->rel);
    for (int k = 0; k < sink->npkeys; k++) {
        const char *key = sink->schema->names[sink->pkeys[k]];
        const char *sv = cdc_kv_get(&sink->static_part, key);
        cdc_buf_clear(&w->text);
        if (sv) {
            cdc_buf_puts(&w->text, sv);
        } else {
            const cdc_value_t *v = &row->values[sink->pkeys[k]];
            const cdc_type_t *t = sink->schema->children[sink->pkeys[k]];
            if (cdc_value_is_null(v)) {
                cdc_buf_puts(&w->text, sink->default_name);
            } else {
                cdc_value_print(&w->text, v, t);
                if (t->root == CDC_T_TIMESTAMP || t->root == CDC_T_TIMESTAMP_LTZ) {
                    /* "2024-01-01 10:00:00", as Hive writes and the SQL text parses back */
                    for (size_t i = 0; i < w->text.len; i++)
                        if (w->text.data[i] == 'T')
                            w->text.data[i] = ' ';
                    if (w->text.len && w->text.data[w->text.len - 1] == 'Z')
                        w->text.len--;
                }
            }
        }
        if (vals) {
            free(vals[k]);
            vals[k] = cdc_xstrndup(w->text.data ? w->text.data : "", w->text.len);
        }
        cdc_buf_printf(&w->rel, "%s%s=", k ? "/" : "", key);
        fs_escape(&w->rel, w->text.data ? w->text.data : "", w->text.len);
    }
    cdc_buf_cstr(&w->rel);
}

static int open_file(fs_writer_t *w, const char *rel, char **vals, cdc_error_t **err)
{
    fs_sink_t *sink = w->sink;
    char *dir = *rel ? cdc_strdup_printf("%s/%s", sink->path, rel) : cdc_xstrdup(sink->path);
    if (fs_mkdirs(dir, err) < 0) {
        free(dir);
        return -1;
    }
    long long n = (long long)atomic_fetch_add(&sink->seq, 1);
    fs_open_t f = {.fd = -1, .dir = dir, .rel = cdc_xstrdup(rel), .opened_ms = cdc_mono_ms()};
    f.tmp = cdc_strdup_printf("%s/.part-%s-%d-%lld.inprogress", dir, sink->jobid, w->subtask, n);
    f.final = cdc_strdup_printf("%s/part-%s-%d-%lld", dir, sink->jobid, w->subtask, n);
    f.fd = open(f.tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (f.fd < 0) {
        sys_error(err, "create", f.tmp);
        drop_file(&f);
        return -1;
    }
    pthread_mutex_lock(&sink->lock);
    f.ps = find_ps(sink, rel, (const char *const *)vals);
    sink->ps[f.ps].open++;
    pthread_mutex_unlock(&sink->lock);
    w->open = cdc_xrealloc(w->open, sizeof(fs_open_t) * (size_t)(w->nopen + 1));
    w->open[w->nopen++] = f;
    return w->nopen - 1;
}

static int find_open(fs_writer_t *w, const char *rel)
{
    fs_sink_t *sink = w->sink;
    (void)sink;
    for (int i = w->nopen - 1; i >= 0; i--)
        if (strcmp(w->open[i].rel, rel) == 0)
            return i;
    return -1;
}

static int fsw_write(cdc_writer_t *base, const cdc_batch_t *batch, cdc_error_t **err)
{
    fs_writer_t *w = (fs_writer_t *)base;
    fs_sink_t *sink = w->sink;
    char **vals = cdc_xcalloc((size_t)sink->npkeys + 1, sizeof(char *));
    int rc = 0;
    for (uint32_t i = 0; i < batch->n && rc == 0; i++) {
        const cdc_row_t *row = &batch->rows[i];
        w->dirty = true;
        row_partition(w, row, NULL);
        int fi = find_open(w, cdc_buf_cstr(&w->rel));
        if (fi < 0) {
            row_partition(w, row, vals);
            fi = open_file(w, cdc_buf_cstr(&w->rel), vals, err);
            if (fi < 0) {
                rc = -1;
                break;
            }
        }
        fs_open_t *f = &w->open[fi];
        for (int j = 0; j < sink->ndata; j++)
            w->vals[j] = row->values[sink->data_cols[j]];
        cdc_row_t data = {.kind = row->kind,
                          .arity = (uint32_t)sink->ndata,
                          .values = w->vals,
                          .origin = row->origin};
        size_t before = f->buf.len;
        cdc_buf_clear(&w->ser->errmsg);
        int er = w->ser->ops->encode(w->ser, &data, &f->buf);
        if (er < 0) {
            f->buf.len = before;
            cdc_buf_t rb = {0};
            cdc_row_print(&rb, row, sink->schema);
            rc = cdc_error_set(err, CDC_ERR_PARSE, "format \"%s\" cannot write row %s: %s",
                               sink->fmt->identifier, cdc_buf_cstr(&rb),
                               cdc_buf_cstr(&w->ser->errmsg));
            cdc_buf_free(&rb);
            break;
        }
        if (er == 1)
            continue;
        cdc_buf_putc(&f->buf, '\n');
        f->bytes += (int64_t)(f->buf.len - before);
        if (f->buf.len >= WRITE_CHUNK && write_out(f, err) < 0) {
            rc = -1;
            break;
        }
        if (f->bytes >= sink->roll_size && roll(w, fi, err) < 0)
            rc = -1;
    }
    int64_t now = cdc_mono_ms();
    for (int i = w->nopen - 1; i >= 0 && rc == 0; i--)
        if (now - w->open[i].opened_ms >= sink->roll_ms)
            rc = roll(w, i, err);
    for (int k = 0; k < sink->npkeys; k++)
        free(vals[k]);
    free(vals);
    if (rc < 0)
        w->failed = true;
    return rc;
}

/* Ends every open file: written, synced, waiting in w->pending. */
static int roll_all(fs_writer_t *w, cdc_error_t **err)
{
    while (w->nopen > 0)
        if (roll(w, w->nopen - 1, err) < 0) {
            w->failed = true;
            return -1;
        }
    return 0;
}

/* Whether pending file f goes out now: everything at a flush, else what checkpoint upto prepared.
 */
static bool due(const fs_open_t *f, uint64_t upto)
{
    return upto == UINT64_MAX || (f->ckpt != 0 && f->ckpt <= upto);
}

/* fsync of each distinct directory of the pending files selected by upto. */
static int sync_dirs(fs_writer_t *w, uint64_t upto, cdc_error_t **err)
{
    for (int i = 0; i < w->npending; i++) {
        if (!due(&w->pending[i], upto))
            continue;
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = due(&w->pending[j], upto) && strcmp(w->pending[j].dir, w->pending[i].dir) == 0;
        if (!seen && cdc_file_fsync_dir(w->pending[i].dir, err) < 0)
            return -1;
    }
    return 0;
}

/* The manifest of checkpoint ckpt of this subtask into out. */
static void manifest_path(fs_writer_t *w, uint64_t ckpt, cdc_buf_t *out)
{
    cdc_buf_clear(out);
    cdc_buf_printf(out, "%s/%s/%d-%llu", w->sink->path, FS_PENDING_DIR, w->subtask,
                   (unsigned long long)ckpt);
    cdc_buf_cstr(out);
}

/*
 * Renames the selected pending files into place, syncs their directories,
 * removes the manifests of the checkpoints they belonged to, then runs the
 * partition commit. A file already renamed (a repeat after a crash) is fine.
 */
static int publish_upto(fs_writer_t *w, uint64_t upto, cdc_error_t **err)
{
    fs_sink_t *sink = w->sink;
    int rc = 0;
    for (int i = 0; i < w->npending && rc == 0; i++)
        if (due(&w->pending[i], upto) && rename(w->pending[i].tmp, w->pending[i].final) < 0 &&
            !(errno == ENOENT && w->pending[i].ckpt != 0))
            rc = sys_error(err, "rename into place", w->pending[i].final);
    if (rc == 0)
        rc = sync_dirs(w, upto, err);
    if (rc < 0) {
        w->failed = true;
        return -1;
    }
    uint64_t gone = 0; /* manifests go once their files are visible and durable */
    for (int i = 0; i < w->npending && !w->positions_mode; i++)
        if (due(&w->pending[i], upto) && w->pending[i].ckpt != 0 && w->pending[i].ckpt != gone) {
            gone = w->pending[i].ckpt;
            manifest_path(w, gone, &w->text);
            unlink(w->text.data);
        }
    pthread_mutex_lock(&sink->lock);
    int kept = 0;
    for (int i = 0; i < w->npending; i++) {
        if (!due(&w->pending[i], upto)) {
            w->pending[kept++] = w->pending[i];
            continue;
        }
        fs_pstate_t *p = &sink->ps[w->pending[i].ps];
        p->open--;
        p->pending = true;
        free(w->pending[i].tmp);
        w->pending[i].tmp = NULL; /* renamed: nothing to remove any more */
        drop_file(&w->pending[i]);
    }
    w->npending = kept;
    rc = commit_ready(sink, false, err);
    pthread_mutex_unlock(&sink->lock);
    if (rc < 0) {
        cdc_error_add_context(*err, "committing partitions of table \"%s\"", sink->name);
        w->failed = true;
        return -1;
    }
    if (w->nopen == 0 && w->npending == 0)
        w->dirty = false;
    return 0;
}

/* The commit point without two-phase commit: every file written, synced, renamed into place. */
static int fsw_flush(cdc_writer_t *base, cdc_error_t **err)
{
    fs_writer_t *w = (fs_writer_t *)base;
    if (roll_all(w, err) < 0)
        return -1;
    return publish_upto(w, UINT64_MAX, err);
}

/*
 * Two-phase commit, phase one: every file ended and synced (still hidden),
 * their directories synced, and a manifest of them (partition and final name,
 * one per line) written atomically to <path>/_cdcflow_pending/<subtask>-<id>.
 */
static int fsw_prepare(cdc_writer_t *base, uint64_t checkpoint, cdc_error_t **err)
{
    fs_writer_t *w = (fs_writer_t *)base;
    fs_sink_t *sink = w->sink;
    if (roll_all(w, err) < 0)
        return -1;
    cdc_buf_t b = {0};
    cdc_buf_puts(&b, "cdcflow-filesystem-pending 1\n");
    int n = 0;
    for (int i = 0; i < w->npending; i++) {
        fs_open_t *f = &w->pending[i];
        if (f->ckpt != 0)
            continue;
        f->ckpt = checkpoint;
        cdc_buf_printf(&b, "%s\t%s\n", f->rel, strrchr(f->final, '/') + 1);
        n++;
    }
    int rc = 0;
    if (n > 0) {
        char *dir = cdc_strdup_printf("%s/%s", sink->path, FS_PENDING_DIR);
        rc = sync_dirs(w, checkpoint, err);
        if (rc == 0)
            rc = fs_mkdirs(dir, err);
        if (rc == 0 && !w->pending_dir_synced) {
            rc = cdc_file_fsync_dir(sink->path, err);
            w->pending_dir_synced = rc == 0;
        }
        if (rc == 0) {
            manifest_path(w, checkpoint, &w->text);
            rc = cdc_file_write_atomic(w->text.data, b.data, b.len, err);
        }
        free(dir);
    }
    cdc_buf_free(&b);
    if (rc < 0)
        w->failed = true;
    return rc;
}

/* Two-phase commit, phase two (after the source stored the id): renames into place. */
static int fsw_publish(cdc_writer_t *base, uint64_t checkpoint, cdc_error_t **err)
{
    return publish_upto((fs_writer_t *)base, checkpoint, err);
}

/* One line of a manifest ("dt=1/hr=2\tpart-...") finished (publish) or undone. */
static void recover_file(fs_writer_t *w, const char *line, bool publish, cdc_buf_t *dirs)
{
    fs_sink_t *sink = w->sink;
    const char *tab = strchr(line, '\t');
    if (!tab || strchr(tab + 1, '/') || tab[1] == '.' || tab[1] == '\0')
        return; /* not a line prepare wrote */
    char *rel = cdc_xstrndup(line, (size_t)(tab - line));
    char *dir = *rel ? cdc_strdup_printf("%s/%s", sink->path, rel) : cdc_xstrdup(sink->path);
    char *tmp = cdc_strdup_printf("%s/.%s.inprogress", dir, tab + 1);
    char *final = cdc_strdup_printf("%s/%s", dir, tab + 1);
    if (!publish) {
        unlink(tmp);
    } else if (rename(tmp, final) == 0) {
        cdc_buf_printf(dirs, "%s\n", dir);
        char **vals = cdc_xcalloc((size_t)sink->npkeys + 1, sizeof(char *));
        const char *s = rel;
        for (int k = 0; k < sink->npkeys && *s; k++) {
            const char *eq = strchr(s, '='), *sl = strchr(s, '/');
            size_t n = sl ? (size_t)(sl - s) : strlen(s);
            vals[k] =
                eq && eq < s + n ? fs_unescape(eq + 1, (size_t)(s + n - eq - 1)) : cdc_xstrdup("");
            s += n + (sl ? 1 : 0);
        }
        for (int k = 0; k < sink->npkeys; k++)
            if (!vals[k])
                vals[k] = cdc_xstrdup("");
        pthread_mutex_lock(&sink->lock);
        int pi = find_ps(sink, rel, (const char *const *)vals); /* may move sink->ps */
        sink->ps[pi].pending = true;
        pthread_mutex_unlock(&sink->lock);
        for (int k = 0; k < sink->npkeys; k++)
            free(vals[k]);
        free(vals);
    }
    free(rel);
    free(dir);
    free(tmp);
    free(final);
}

/*
 * Two-phase commit at open: the manifests an earlier run of this subtask
 * left. Checkpoints up to last_committed were decided (the source stored the
 * id): their files are renamed into place; later ones were not: their files
 * are removed. Then the manifests go.
 */
static int fsw_recover(cdc_writer_t *base, uint64_t last_committed, cdc_error_t **err)
{
    fs_writer_t *w = (fs_writer_t *)base;
    fs_sink_t *sink = w->sink;
    char *pdir = cdc_strdup_printf("%s/%s", sink->path, FS_PENDING_DIR);
    DIR *d = opendir(pdir);
    if (!d) {
        int rc = errno == ENOENT ? 0 : sys_error(err, "open", pdir);
        free(pdir);
        return rc;
    }
    cdc_buf_t b = {0}, dirs = {0};
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        char *end;
        long sub = strtol(e->d_name + (e->d_name[0] == '.'), &end, 10);
        if (e->d_name[0] == '.' && end != e->d_name + 1 && *end == '-' && sub == w->subtask) {
            /* a manifest whose atomic write was cut short: nothing was decided on it */
            char *junk = cdc_strdup_printf("%s/%s", pdir, e->d_name);
            unlink(junk);
            free(junk);
            continue;
        }
        if (e->d_name[0] == '.')
            continue;
        if (end == e->d_name || *end != '-' || sub != w->subtask)
            continue;
        char *idend;
        unsigned long long id = strtoull(end + 1, &idend, 10);
        if (*idend != '\0' || id == 0)
            continue;
        char *mf = cdc_strdup_printf("%s/%s", pdir, e->d_name);
        rc = cdc_file_read_all(mf, &b, err);
        if (rc == 0) {
            const char *s = b.len ? cdc_buf_cstr(&b) : "";
            for (const char *nl; *s; s = nl ? nl + 1 : s + strlen(s)) {
                nl = strchr(s, '\n');
                char *line = cdc_xstrndup(s, nl ? (size_t)(nl - s) : strlen(s));
                recover_file(w, line, id <= last_committed, &dirs);
                free(line);
            }
        }
        rc = rc == 1 ? 0 : rc;
        if (rc == 0 && dirs.len) { /* renames durable before the manifest goes */
            cdc_buf_cstr(&dirs);
            for (char *s = dirs.data, *nl; rc == 0 && *s; s = nl + 1) {
                nl = strchr(s, '\n');
                *nl = '\0';
                rc = cdc_file_fsync_dir(s, err);
            }
            cdc_buf_clear(&dirs);
        }
        if (rc == 0 && unlink(mf) < 0)
            rc = sys_error(err, "remove", mf);
        free(mf);
    }
    closedir(d);
    cdc_buf_free(&b);
    cdc_buf_free(&dirs);
    free(pdir);
    if (rc < 0)
        cdc_error_add_context(*err, "recovering the files of table \"%s\" (subtask %d)", sink->name,
                              w->subtask);
    return rc;
}

/* ---- positions kept for the source (cdc_plugin.h: commit_positions, stored_positions) ----
 *
 * The commit point of a writer whose reader's position moves between processes
 * (Kafka partitions in a consumer group): every file ended and synced
 * (hidden); a commit manifest "c-<job>-<subtask>" in _cdcflow_pending listing
 * the files and the positions ("@key\tposition") written atomically -- its
 * existence is the decision --; the files renamed into place; this writer's
 * positions file _cdcflow_positions/<job>-<subtask> (every position it has
 * committed) replaced atomically; the manifest removed. Whoever loads the
 * positions first finishes any decided manifest it finds (a writer that
 * crashed after the decision): renames its files, takes over its positions,
 * then removes it. Readers start each key at the greatest position of all
 * positions files. So rows and positions are visible together or not at all,
 * across processes writing one table. Hidden files of a commit never decided
 * stay hidden (readers skip them).
 */

static void commit_manifest_path(fs_writer_t *w, cdc_buf_t *out)
{
    cdc_buf_clear(out);
    cdc_buf_printf(out, "%s/%s/c-%s-%d", w->sink->path, FS_PENDING_DIR, w->sink->jobid, w->subtask);
    cdc_buf_cstr(out);
}

/* Replaces this writer's positions file with every position it knows. */
static int write_positions(fs_writer_t *w, cdc_error_t **err)
{
    fs_sink_t *sink = w->sink;
    char *dir = cdc_strdup_printf("%s/%s", sink->path, FS_POSITIONS_DIR);
    char *file = cdc_strdup_printf("%s/%s-%d", dir, sink->jobid, w->subtask);
    cdc_buf_t b = {0};
    cdc_buf_puts(&b, FS_POSITIONS_HEADER);
    fs_poslist_format(&w->pos, &b, '\0');
    int rc = fs_mkdirs(dir, err);
    if (rc == 0 && !w->positions_dir_synced) {
        rc = cdc_file_fsync_dir(sink->path, err);
        w->positions_dir_synced = rc == 0;
    }
    if (rc == 0)
        rc = cdc_file_write_atomic(file, b.data, b.len, err);
    cdc_buf_free(&b);
    free(file);
    free(dir);
    return rc;
}

/* The decision: the manifest of every file not yet visible and of the positions. */
static int decide(fs_writer_t *w, cdc_error_t **err)
{
    fs_sink_t *sink = w->sink;
    cdc_buf_t b = {0};
    cdc_buf_puts(&b, FS_COMMIT_HEADER);
    fs_poslist_format(&w->pos, &b, '@');
    for (int i = 0; i < w->npending; i++) {
        fs_open_t *f = &w->pending[i];
        cdc_buf_printf(&b, "%s\t%s\n", f->rel, strrchr(f->final, '/') + 1);
        f->ckpt = 1; /* decided once the manifest exists: close leaves the files */
    }
    char *dir = cdc_strdup_printf("%s/%s", sink->path, FS_PENDING_DIR);
    int rc = sync_dirs(w, 1, err);
    if (rc == 0)
        rc = fs_mkdirs(dir, err);
    if (rc == 0 && !w->pending_dir_synced) {
        rc = cdc_file_fsync_dir(sink->path, err);
        w->pending_dir_synced = rc == 0;
    }
    commit_manifest_path(w, &w->text);
    if (rc == 0)
        rc = cdc_file_write_atomic(w->text.data, b.data, b.len, err);
    if (rc < 0 && access(w->text.data, F_OK) != 0)
        for (int i = 0; i < w->npending; i++)
            w->pending[i].ckpt = 0; /* nothing was decided: close removes them */
    free(dir);
    cdc_buf_free(&b);
    return rc;
}

static int fsw_commit_positions(cdc_writer_t *base, const char *positions, size_t len,
                                cdc_error_t **err)
{
    fs_writer_t *w = (fs_writer_t *)base;
    w->positions_mode = true;
    if (roll_all(w, err) < 0)
        return -1;
    bool moved = fs_poslist_merge(&w->pos, positions, len, '\0', NULL) > 0;
    int rc = 0;
    if (w->npending == 0) {
        rc = moved ? write_positions(w, err) : 0;
    } else {
        rc = decide(w, err);
        if (rc == 0)
            rc = publish_upto(w, 1, err);
        if (rc == 0)
            rc = write_positions(w, err);
        if (rc == 0) {
            commit_manifest_path(w, &w->text);
            if (unlink(w->text.data) < 0 && errno != ENOENT)
                rc = sys_error(err, "remove", w->text.data);
        }
    }
    if (rc < 0) {
        w->failed = true;
        cdc_error_add_context(*err, "committing the files and positions of table \"%s\"",
                              w->sink->name);
    }
    return rc;
}

/*
 * Finishes the decided commit manifests of other writers (crashed, or
 * finishing it themselves: renames tolerate either): their files renamed into
 * place, their positions taken into this writer's, which are stored before
 * the manifests go.
 */
static int roll_forward(fs_writer_t *w, cdc_error_t **err)
{
    fs_sink_t *sink = w->sink;
    char *pdir = cdc_strdup_printf("%s/%s", sink->path, FS_PENDING_DIR);
    char *mine = cdc_strdup_printf("c-%s-%d", sink->jobid, w->subtask);
    DIR *d = opendir(pdir);
    int rc = 0;
    if (!d) {
        rc = errno == ENOENT ? 0 : sys_error(err, "open", pdir);
        free(pdir);
        free(mine);
        return rc;
    }
    cdc_buf_t b = {0}, dirs = {0}, done = {0};
    size_t hl = strlen(FS_COMMIT_HEADER);
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "c-", 2) != 0 || strcmp(e->d_name, mine) == 0)
            continue;
        char *mf = cdc_strdup_printf("%s/%s", pdir, e->d_name);
        int got = cdc_file_read_all(mf, &b, err);
        if (got == 0 && (b.len < hl || memcmp(b.data, FS_COMMIT_HEADER, hl) != 0)) {
            rc =
                cdc_error_set(err, CDC_ERR_IO, "\"%s\" is not a commit manifest cdcflow wrote", mf);
            cdc_error_set_hint(*err, "only cdcflow writes to %s/; move the file away", pdir);
        } else if (got == 0) {
            const char *s = cdc_buf_cstr(&b) + hl;
            fs_poslist_merge(&w->pos, s, b.len - hl, '@', NULL);
            for (const char *nl; *s; s = nl ? nl + 1 : s + strlen(s)) {
                nl = strchr(s, '\n');
                if (*s == '@')
                    continue;
                char *line = cdc_xstrndup(s, nl ? (size_t)(nl - s) : strlen(s));
                recover_file(w, line, true, &dirs);
                free(line);
            }
            cdc_buf_printf(&done, "%s\n", mf);
        }
        rc = got < 0 ? -1 : rc;
        free(mf);
    }
    closedir(d);
    if (rc == 0 && dirs.len) { /* renames durable before the manifests go */
        cdc_buf_cstr(&dirs);
        for (char *s = dirs.data, *nl; rc == 0 && *s; s = nl + 1) {
            nl = strchr(s, '\n');
            *nl = '\0';
            rc = cdc_file_fsync_dir(s, err);
        }
    }
    if (rc == 0 && done.len) {
        rc = write_positions(w, err);
        cdc_buf_cstr(&done);
        for (char *s = done.data, *nl; rc == 0 && *s; s = nl + 1) {
            nl = strchr(s, '\n');
            *nl = '\0';
            if (unlink(s) < 0 && errno != ENOENT)
                rc = sys_error(err, "remove", s);
        }
    }
    cdc_buf_free(&b);
    cdc_buf_free(&dirs);
    cdc_buf_free(&done);
    free(pdir);
    free(mine);
    return rc;
}

/*
 * Positions files of runs that died ("<job>-<subtask>" whose run mark is gone
 * or unlocked) are taken into this writer's own positions, stored, and then
 * removed, so their number stays that of the live writers plus this one.
 */
static int absorb_dead(fs_writer_t *w, const fs_poslist_t *all, cdc_error_t **err)
{
    fs_sink_t *sink = w->sink;
    char *dir = cdc_strdup_printf("%s/%s", sink->path, FS_POSITIONS_DIR);
    DIR *d = opendir(dir);
    cdc_buf_t dead = {0};
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        const char *dash = strrchr(e->d_name, '-');
        if (e->d_name[0] == '.' || !dash || dash == e->d_name)
            continue;
        char *job = cdc_xstrndup(e->d_name, (size_t)(dash - e->d_name));
        if (strcmp(job, sink->jobid) != 0 && !fs_run_alive(sink->path, job))
            cdc_buf_printf(&dead, "%s/%s\n", dir, e->d_name);
        free(job);
    }
    if (d)
        closedir(d);
    int rc = 0;
    if (dead.len) {
        cdc_buf_clear(&w->text);
        fs_poslist_format(all, &w->text, '\0');
        fs_poslist_merge(&w->pos, w->text.data, w->text.len, '\0', NULL);
        rc = write_positions(w, err); /* durable before the files it replaces go */
        cdc_buf_cstr(&dead);
        for (char *s = dead.data, *nl; rc == 0 && *s; s = nl + 1) {
            nl = strchr(s, '\n');
            *nl = '\0';
            if (unlink(s) < 0 && errno != ENOENT)
                rc = sys_error(err, "remove", s);
        }
    }
    cdc_buf_free(&dead);
    free(dir);
    return rc;
}

static int fsw_stored_positions(cdc_writer_t *base, cdc_buf_t *out, cdc_error_t **err)
{
    fs_writer_t *w = (fs_writer_t *)base;
    fs_poslist_t all = {0};
    cdc_buf_clear(out);
    int rc = roll_forward(w, err);
    if (rc == 0)
        rc = fs_poslist_load_dir(&all, w->sink->path, err);
    if (rc == 0) {
        cdc_buf_clear(&w->text);
        fs_poslist_format(&w->pos, &w->text, '\0');
        fs_poslist_merge(&all, w->text.data ? w->text.data : "", w->text.len, '\0', NULL);
        fs_poslist_format(&all, out, '\0');
        rc = absorb_dead(w, &all, err);
    }
    if (rc < 0) {
        cdc_error_add_context(*err, "loading the positions kept with table \"%s\"", w->sink->name);
    }
    fs_poslist_free(&all);
    return rc;
}

/* INSERT OVERWRITE: removes the files of the written partitions this job did not write. */
static void overwrite_cleanup(fs_sink_t *sink)
{
    char *mine = cdc_strdup_printf("part-%s-", sink->jobid);
    size_t ml = strlen(mine);
    for (int i = 0; i < sink->nps; i++) {
        char *dir = *sink->ps[i].rel ? cdc_strdup_printf("%s/%s", sink->path, sink->ps[i].rel)
                                     : cdc_xstrdup(sink->path);
        DIR *d = opendir(dir);
        struct dirent *e;
        bool removed = false;
        while (d && (e = readdir(d)) != NULL) {
            if (fs_hidden(e->d_name) || strncmp(e->d_name, mine, ml) == 0)
                continue;
            char *f = cdc_strdup_printf("%s/%s", dir, e->d_name);
            struct stat st;
            if (stat(f, &st) == 0 && S_ISREG(st.st_mode)) {
                if (unlink(f) < 0)
                    cdc_log(CDC_LOG_WARN, NULL, sink->name,
                            "INSERT OVERWRITE could not remove \"%s\": %s", f, strerror(errno));
                removed = true;
            }
            free(f);
        }
        if (d)
            closedir(d);
        if (removed)
            cdc_file_fsync_dir(dir, NULL);
        free(dir);
    }
    free(mine);
}

static void fsw_close(cdc_writer_t *base)
{
    fs_writer_t *w = (fs_writer_t *)base;
    if (!w)
        return;
    fs_sink_t *sink = w->sink;
    bool clean = !w->dirty && !w->failed && w->nopen == 0 && w->npending == 0;
    pthread_mutex_lock(&sink->lock);
    for (int i = 0; i < w->nopen; i++)
        sink->ps[w->open[i].ps].open--;
    for (int i = 0; i < w->npending; i++)
        sink->ps[w->pending[i].ps].open--;
    pthread_mutex_unlock(&sink->lock);
    for (int i = 0; i < w->nopen; i++) /* an abort: unfinished files go */
        drop_file(&w->open[i]);
    for (int i = 0; i < w->npending; i++) {
        if (w->pending[i].ckpt != 0) { /* prepared: the next run's recover decides */
            free(w->pending[i].tmp);
            w->pending[i].tmp = NULL;
        }
        drop_file(&w->pending[i]);
    }
    pthread_mutex_lock(&sink->lock);
    sink->closed++;
    if (!clean)
        sink->failed++;
    if (sink->closed >= sink->nsubtasks && sink->failed == 0) {
        /* the job's end: every partition it wrote is complete */
        cdc_error_t *e = NULL;
        if (commit_ready(sink, true, &e) < 0) {
            cdc_error_print(e, stderr);
            cdc_error_destroy(e);
        }
        if (sink->overwrite)
            overwrite_cleanup(sink);
    }
    pthread_mutex_unlock(&sink->lock);
    if (w->ser)
        w->ser->ops->destroy(w->ser);
    free(w->open);
    free(w->pending);
    cdc_buf_free(&w->rel);
    cdc_buf_free(&w->msg);
    cdc_buf_free(&w->text);
    fs_poslist_free(&w->pos);
    free(w->vals);
    free(w);
}

static const cdc_writer_ops_t fs_writer_ops = {
    .write = fsw_write,
    .flush = fsw_flush,
    .close = fsw_close,
    .prepare = fsw_prepare,
    .publish = fsw_publish,
    .recover = fsw_recover,
    .commit_positions = fsw_commit_positions,
    .stored_positions = fsw_stored_positions,
};

/* ---- the sink
 * ------------------------------------------------------------------------------------ */

static cdc_changelog_mode_t fsk_changelog_mode(cdc_sink_t *base, cdc_changelog_mode_t requested)
{
    return (cdc_changelog_mode_t)(requested & ((fs_sink_t *)base)->accepts);
}

static int fsk_apply_static_partition(cdc_sink_t *base, const cdc_kv_t *partition,
                                      cdc_error_t **err)
{
    (void)err;
    fs_sink_t *sink = (fs_sink_t *)base;
    cdc_kv_free(&sink->static_part);
    memset(&sink->static_part, 0, sizeof(sink->static_part));
    if (partition)
        cdc_kv_copy(&sink->static_part, partition);
    return 0;
}

static int fsk_apply_overwrite(cdc_sink_t *base, bool overwrite, cdc_error_t **err)
{
    fs_sink_t *sink = (fs_sink_t *)base;
    (void)err;
    sink->overwrite = overwrite;
    return 0;
}

static int fsk_open_writer(cdc_sink_t *base, int subtask, int nsubtasks, cdc_writer_t **out,
                           cdc_error_t **err)
{
    fs_sink_t *sink = (fs_sink_t *)base;
    if (nsubtasks < 1 || subtask < 0 || subtask >= nsubtasks)
        return cdc_error_set(err, CDC_ERR_INTERNAL, "filesystem: bad subtask %d of %d", subtask,
                             nsubtasks);
    fs_writer_t *w = cdc_xcalloc(1, sizeof(*w));
    w->base.ops = &fs_writer_ops;
    w->sink = sink;
    w->subtask = subtask;
    w->vals = cdc_xcalloc((size_t)sink->ndata + 1, sizeof(cdc_value_t));
    cdc_format_ctx_t fctx = {
        .cfg = sink->fmt_cfg, .row_type = sink->data_type, .table = sink->name};
    if (sink->fmt->ser_new(&fctx, &w->ser, err) < 0) {
        free(w->vals);
        free(w);
        return -1;
    }
    pthread_mutex_lock(&sink->lock);
    if (sink->run_fd < 0) {
        /* the first writer of this run: mark it live, then clean up after dead runs */
        sink->run_fd = fs_run_register(sink->path, sink->jobid, err);
        int swept = sink->run_fd < 0 ? -1 : fs_runs_sweep(sink->path, sink->jobid, err);
        if (swept < 0) {
            pthread_mutex_unlock(&sink->lock);
            w->ser->ops->destroy(w->ser);
            free(w->vals);
            free(w);
            cdc_error_add_context(*err, "opening a writer of table \"%s\"", sink->name);
            return -1;
        }
        if (swept > 0)
            cdc_log(CDC_LOG_INFO, NULL, sink->name,
                    "removed %d unfinished file(s) left by writers that died", swept);
    }
    sink->nsubtasks = nsubtasks;
    if (sink->overwrite && sink->static_part.n == sink->npkeys) {
        /* a static partition is replaced even when the query writes nothing to it */
        char **vals = cdc_xcalloc((size_t)sink->npkeys + 1, sizeof(char *));
        cdc_row_t none = {0};
        pthread_mutex_unlock(&sink->lock);
        row_partition(w, &none, vals);
        pthread_mutex_lock(&sink->lock);
        find_ps(sink, cdc_buf_cstr(&w->rel), (const char *const *)vals);
        for (int k = 0; k < sink->npkeys; k++)
            free(vals[k]);
        free(vals);
    }
    pthread_mutex_unlock(&sink->lock);
    *out = &w->base;
    return 0;
}

static void fsk_destroy(cdc_sink_t *base)
{
    fs_sink_t *sink = (fs_sink_t *)base;
    if (!sink)
        return;
    fs_run_release(sink->path, sink->jobid, sink->run_fd);
    for (int i = 0; i < sink->nps; i++) {
        free(sink->ps[i].rel);
        for (int k = 0; k < sink->npkeys; k++)
            free(sink->ps[i].vals[k]);
        free(sink->ps[i].vals);
    }
    free(sink->ps);
    free(sink->name);
    free(sink->path);
    free(sink->default_name);
    free(sink->success_name);
    free(sink->ts_pattern);
    cdc_type_destroy(sink->schema);
    cdc_type_destroy(sink->data_type);
    free(sink->pkeys);
    free(sink->data_cols);
    cdc_kv_free(&sink->static_part);
    if (sink->dl)
        dlclose(sink->dl);
    pthread_mutex_destroy(&sink->lock);
    free(sink);
}

/*
 * Schema changes: files describe themselves (csv and json by the columns of their writer's
 * row type, debezium-json by its schema), so there is nothing to change. A writer opened after
 * the change starts new files: the previous writer's were ended by its flush or close, and
 * file numbers are never reused within a sink.
 */
static int fsk_apply_schema_change(cdc_sink_t *base, const cdc_schema_change_t *change,
                                   cdc_error_t **err)
{
    (void)base;
    (void)change;
    (void)err;
    return 0;
}

static const cdc_sink_ops_t fs_sink_ops = {
    .changelog_mode = fsk_changelog_mode,
    .apply_static_partition = fsk_apply_static_partition,
    .apply_overwrite = fsk_apply_overwrite,
    .open_writer = fsk_open_writer,
    .destroy = fsk_destroy,
    .apply_schema_change = fsk_apply_schema_change,
};

/* Loads 'sink.partition-commit.policy.class' = "lib.so[:symbol]". */
static int load_custom(fs_sink_t *sink, const char *spec, cdc_error_t **err)
{
    const char *colon = strrchr(spec, ':');
    char *lib = colon ? cdc_xstrndup(spec, (size_t)(colon - spec)) : cdc_xstrdup(spec);
    const char *sym = colon ? colon + 1 : CDC_FS_COMMIT_SYMBOL;
    sink->dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!sink->dl) {
        cdc_error_t *e =
            cdc_error_new(CDC_ERR_OPTION, "cannot load the partition-commit policy \"%s\"", lib);
        cdc_error_set_detail(e, "%s", dlerror());
        free(lib);
        cdc_error_destroy(*err);
        *err = e;
        return -1;
    }
    free(lib);
    *(void **)&sink->custom = dlsym(sink->dl, sym);
    if (!sink->custom) {
        cdc_error_t *e = cdc_error_new(
            CDC_ERR_OPTION, "partition-commit policy \"%s\" has no function \"%s\"", spec, sym);
        cdc_error_set_hint(e,
                           "export `int %s(const cdc_fs_partition_t *, char *, size_t)` "
                           "(connectors/filesystem/cdc_fs_commit.h)",
                           sym);
        cdc_error_destroy(*err);
        *err = e;
        return -1;
    }
    return 0;
}

int fs_sink_new(const cdc_table_ctx_t *ctx, cdc_sink_t **out, cdc_error_t **err)
{
    const cdc_config_t *cfg = ctx->cfg;
    const cdc_table_format_t *tf = cdc_table_format(ctx, "format");
    if (!tf || !tf->factory->ser_new)
        return cdc_error_set(err, CDC_ERR_OPTION,
                             "format \"%s\" cannot write files of table "
                             "\"%s\"",
                             tf ? tf->factory->identifier : "?", ctx->name);
    if (cdc_config_bool(cfg, "sink.shuffle-by-partition.enable") && ctx->npartition_keys > 0 &&
        ctx->parallelism > 1)
        fprintf(stderr,
                "cdcflow: warning: filesystem: option \"sink.shuffle-by-partition.enable\" has "
                "no effect (table \"%s\"): rows are not exchanged between the %d splits, so "
                "each split's writer writes every partition its rows fall in (up to %d files "
                "per partition and commit); accepted\n",
                ctx->name, ctx->parallelism, ctx->parallelism);
    fs_sink_t *sink = cdc_xcalloc(1, sizeof(*sink));
    sink->base.ops = &fs_sink_ops;
    sink->run_fd = -1;
    pthread_mutex_init(&sink->lock, NULL);
    if (fs_table_keys(ctx, &sink->pkeys, err) < 0) {
        pthread_mutex_destroy(&sink->lock);
        free(sink);
        return -1;
    }
    sink->npkeys = ctx->npartition_keys;
    sink->name = cdc_xstrdup(ctx->name ? ctx->name : "?");
    sink->path = cdc_xstrdup(cdc_config_str(cfg, "path"));
    sink->default_name = cdc_xstrdup(cdc_config_str(cfg, "partition.default-name"));
    sink->schema = cdc_type_copy(ctx->schema);
    sink->data_type =
        fs_data_type(sink->schema, sink->pkeys, sink->npkeys, &sink->data_cols, &sink->ndata);
    sink->fmt = tf->factory;
    sink->fmt_cfg = tf->cfg;
    sink->accepts =
        tf->factory->encode_mode ? tf->factory->encode_mode(tf->cfg) : CDC_MODE_INSERT_ONLY;
    sink->roll_size = cdc_config_size(cfg, "sink.rolling-policy.file-size");
    sink->roll_ms = cdc_config_duration_ms(cfg, "sink.rolling-policy.rollover-interval");
    sink->trigger = cdc_config_enum(cfg, "sink.partition-commit.trigger");
    sink->delay_ms = cdc_config_duration_ms(cfg, "sink.partition-commit.delay");
    sink->success_name =
        cdc_xstrdup(cdc_config_str(cfg, "sink.partition-commit.success-file.name"));
    const char *pat = cdc_config_str(cfg, "partition.time-extractor.timestamp-pattern");
    sink->ts_pattern = pat ? cdc_xstrdup(pat) : NULL;
    fs_random_id(sink->jobid);
    const char *kinds = cdc_config_str(cfg, "sink.partition-commit.policy.kind");
    for (const char *s = kinds; s && *s && sink->npolicies < 3;) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        while (n && *s == ' ') {
            s++;
            n--;
        }
        while (n && s[n - 1] == ' ')
            n--;
        if (n == 12 && strncmp(s, "success-file", n) == 0)
            sink->policies[sink->npolicies++] = POLICY_SUCCESS;
        else if ((n == 7 && strncmp(s, "catalog", n) == 0) ||
                 (n == 9 && strncmp(s, "metastore", n) == 0))
            sink->policies[sink->npolicies++] = POLICY_CATALOG;
        else if (n == 6 && strncmp(s, "custom", n) == 0)
            sink->policies[sink->npolicies++] = POLICY_CUSTOM;
        s = e ? e + 1 : s + strlen(s);
    }
    for (int i = 0; i < sink->npolicies; i++)
        if (sink->policies[i] == POLICY_CUSTOM &&
            load_custom(sink, cdc_config_str(cfg, "sink.partition-commit.policy.class"), err) < 0) {
            fsk_destroy(&sink->base);
            return -1;
        }
    *out = &sink->base;
    return 0;
}
