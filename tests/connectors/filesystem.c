/*
 * tests/connectors/filesystem.c — the "filesystem" connector through its
 * factory: Hive path escaping, typed partition listing, every source ability
 * (partitions, filters, projection, limit, row count), splits, and the sink:
 * files hidden until the flush, rolling, static partitions, overwrite, and
 * option errors.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../connectors/filesystem/fs_int.h"
#include "cdc_plugin.h"

typedef struct ft_s {
    char dir[64];
    cdc_type_t *schema;
    cdc_resolved_t res;
    cdc_table_ctx_t ctx;
    int pkeys[4];
} ft_t;

static void put_file(const char *path, const char *text)
{
    char *dir = strdup(path);
    *strrchr(dir, '/') = '\0';
    cdc_error_t *err = NULL;
    cr_assert_eq(fs_mkdirs(dir, &err), 0);
    free(dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

/* A table "schema" partitioned by the named columns, with extra options key, value, ... */
static void ft_open(ft_t *t, const char *schema, const char *parts, const char *const *opts)
{
    cdc_error_t *err = NULL;
    memset(t, 0, sizeof(*t));
    snprintf(t->dir, sizeof(t->dir), "/tmp/cdc_fs_test_XXXXXX");
    cr_assert_not_null(mkdtemp(t->dir));
    t->schema = cdc_type_parse(schema, &err);
    cr_assert_not_null(t->schema);
    cdc_kv_t kv = {0};
    cdc_kv_set(&kv, "connector", "filesystem");
    cdc_kv_set(&kv, "path", t->dir);
    cdc_kv_set(&kv, "format", "json");
    for (int i = 0; opts && opts[i]; i += 2)
        cdc_kv_set(&kv, opts[i], opts[i + 1]);
    int rc = cdc_resolve_options(&kv, "t", &t->res, &err);
    cdc_kv_free(&kv);
    cr_assert_eq(rc, 0, "%s", err ? err->detail : "");
    int n = 0;
    for (const char *p = parts; p && *p;) {
        const char *c = strchr(p, ',');
        char *name = strndup(p, c ? (size_t)(c - p) : strlen(p));
        t->pkeys[n++] = cdc_type_field_index(t->schema, name);
        free(name);
        p = c ? c + 1 : p + strlen(p);
    }
    t->ctx = (cdc_table_ctx_t){.name = "t",
                               .schema = t->schema,
                               .cfg = t->res.cfg,
                               .formats = t->res.formats,
                               .nformats = t->res.nformats,
                               .parallelism = 1,
                               .partition_keys = t->pkeys,
                               .npartition_keys = n};
}

static void ft_close(ft_t *t)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
    cr_assert_eq(system(cmd), 0);
    cdc_resolved_free(&t->res);
    cdc_type_destroy(t->schema);
}

static cdc_source_t *ft_source(ft_t *t)
{
    cdc_source_t *src = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(fs_source_new(&t->ctx, &src, &err), 0, "%s", err ? err->message : "");
    return src;
}

static void sort_strings(char **s, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (strcmp(s[i], s[j]) > 0) {
                char *x = s[i];
                s[i] = s[j];
                s[j] = x;
            }
}

/* Every row of every split, printed and sorted, '\n'-separated. */
static char *read_all(cdc_source_t *src, int nsplits)
{
    char **lines = NULL;
    int n = 0;
    for (int s = 0; s < nsplits; s++) {
        cdc_reader_t *r = NULL;
        cdc_error_t *err = NULL;
        cr_assert_eq(src->ops->open_reader(src, s, nsplits, &r, &err), 0, "%s",
                     err ? err->message : "");
        cdc_batch_t b;
        cdc_batch_init(&b);
        int rc;
        while ((rc = r->ops->poll(r, &b, 2, &err)) == CDC_POLL_OK) {
            for (uint32_t i = 0; i < b.n; i++) {
                cdc_buf_t pb = {0};
                cdc_row_print(&pb, &b.rows[i], src->produced);
                lines = realloc(lines, sizeof(char *) * (size_t)(n + 1));
                lines[n++] = strdup(cdc_buf_cstr(&pb));
                cdc_buf_free(&pb);
            }
            cdc_batch_reset(&b);
        }
        cr_assert_eq(rc, CDC_POLL_END, "%s", err ? err->message : "");
        cdc_batch_free(&b);
        r->ops->close(r);
    }
    sort_strings(lines, n);
    cdc_buf_t out = {0};
    for (int i = 0; i < n; i++) {
        cdc_buf_printf(&out, "%s%s", i ? "\n" : "", lines[i]);
        free(lines[i]);
    }
    free(lines);
    char *s = strdup(out.len ? cdc_buf_cstr(&out) : "");
    cdc_buf_free(&out);
    return s;
}

Test(filesystem, escaping_round_trip)
{
    const char *in = "a/b=c:d%e#f{g}[h]^i'j\"k*l?m\\n";
    cdc_buf_t b = {0};
    fs_escape(&b, in, strlen(in));
    cr_assert_str_eq(cdc_buf_cstr(&b), "a%2Fb%3Dc%3Ad%25e%23f%7Bg}%5Bh%5D%5Ei%27j%22k%2Al%3Fm%5Cn");
    char *back = fs_unescape(b.data, b.len);
    cr_assert_str_eq(back, in);
    free(back);
    back = fs_unescape("100%", 4); /* a stray % stays */
    cr_assert_str_eq(back, "100%");
    free(back);
    cdc_buf_free(&b);
    cr_assert(fs_hidden(".part-1.inprogress") && fs_hidden("_SUCCESS") && !fs_hidden("part-1"));
}

static void hive_table(ft_t *t)
{
    char p[256];
    snprintf(p, sizeof(p), "%s/dt=2024-01-01/hr=1/f1", t->dir);
    put_file(p, "{\"id\":1}\n{\"id\":2}\n");
    snprintf(p, sizeof(p), "%s/dt=2024-01-01/hr=2/f1", t->dir);
    put_file(p, "{\"id\":3}\n");
    snprintf(p, sizeof(p), "%s/dt=2024-01-02/hr=1/f1", t->dir);
    put_file(p, "{\"id\":4}\n");
    snprintf(p, sizeof(p), "%s/dt=2024-01-02/hr=1/.hidden", t->dir);
    put_file(p, "garbage\n");
    snprintf(p, sizeof(p), "%s/dt=__HIVE_DEFAULT_PARTITION__/hr=3/f1", t->dir);
    put_file(p, "{\"id\":5}\n");
}

Test(filesystem, list_and_read_partitions)
{
    ft_t t;
    ft_open(&t, "ROW<id BIGINT, dt DATE, hr INT>", "dt,hr", NULL);
    hive_table(&t);
    cdc_source_t *src = ft_source(&t);
    cdc_kv_t *parts = NULL;
    int n = 0;
    cdc_error_t *err = NULL;
    cr_assert_eq(src->ops->list_partitions(src, &parts, &n, &err), 0);
    cr_assert_eq(n, 4);
    cr_assert_str_eq(cdc_kv_get(&parts[1], "dt"), "2024-01-01");
    cr_assert_str_eq(cdc_kv_get(&parts[1], "hr"), "2");
    cr_assert_null(cdc_kv_get(&parts[3], "dt"), "a NULL partition value is left out");
    cr_assert_eq(src->ops->report_row_count(src), 5);
    char *all = read_all(src, 3);
    cr_assert_str_eq(all, "+I[1, 2024-01-01, 1]\n+I[2, 2024-01-01, 1]\n+I[3, 2024-01-01, 2]\n"
                          "+I[4, 2024-01-02, 1]\n+I[5, null, 3]");
    free(all);
    /* keep two partitions, then project hr, id */
    cr_assert_eq(src->ops->apply_partitions(src, &parts[1], 2, &err), 0);
    int proj[] = {2, 0};
    cr_assert_eq(src->ops->apply_projection(src, proj, 2), 0);
    cr_assert_eq(src->ops->report_row_count(src), 2);
    all = read_all(src, 1);
    cr_assert_str_eq(all, "+I[1, 4]\n+I[2, 3]");
    free(all);
    for (int i = 0; i < n; i++)
        cdc_kv_free(&parts[i]);
    free(parts);
    src->ops->destroy(src);
    ft_close(&t);
}

/* Flink's metadata keys: the file each row comes from, after a projection, across polls. */
Test(filesystem, file_metadata)
{
    ft_t t;
    ft_open(&t, "ROW<id BIGINT, v STRING, dt STRING>", "dt", NULL);
    char path[160], *dir = realpath(t.dir, NULL);
    snprintf(path, sizeof(path), "%s/dt=a/part-0.json", t.dir);
    put_file(path, "{\"id\":1,\"v\":\"x\"}\n{\"id\":2,\"v\":\"y\"}\n{\"id\":3,\"v\":\"z\"}\n");
    struct timespec times[2] = {{.tv_sec = 1700000000, .tv_nsec = 250000000},
                                {.tv_sec = 1700000000, .tv_nsec = 250000000}};
    cr_assert_eq(utimensat(AT_FDCWD, path, times, 0), 0);
    snprintf(path, sizeof(path), "%s/dt=b/other.json", t.dir);
    put_file(path, "{\"id\":4,\"v\":\"w\"}\n");
    times[0].tv_sec = times[1].tv_sec = 1600000000;
    times[0].tv_nsec = times[1].tv_nsec = 0;
    cr_assert_eq(utimensat(AT_FDCWD, path, times, 0), 0);
    cdc_source_t *src = ft_source(&t);
    int proj[] = {0};
    cr_assert_eq(src->ops->apply_projection(src, proj, 1), 0);
    const char *const keys[] = {"file.name", "file.size", "file.modification-time", "file.path"};
    cdc_error_t *err = NULL;
    cr_assert_eq(src->ops->apply_metadata(src, keys, 4, &err), 0);
    char *all = read_all(src, 1), want[1024];
    snprintf(want, sizeof(want),
             "+I[1, part-0.json, 51, 2023-11-14T22:13:20.250Z, %s/dt=a/part-0.json]\n"
             "+I[2, part-0.json, 51, 2023-11-14T22:13:20.250Z, %s/dt=a/part-0.json]\n"
             "+I[3, part-0.json, 51, 2023-11-14T22:13:20.250Z, %s/dt=a/part-0.json]\n"
             "+I[4, other.json, 17, 2020-09-13T12:26:40.000Z, %s/dt=b/other.json]",
             dir, dir, dir, dir);
    cr_assert_str_eq(all, want);
    free(all);
    const char *const bad[] = {"file.owner"};
    cr_assert_eq(src->ops->apply_metadata(src, bad, 1, &err), -1);
    cr_assert(strstr(err->message, "no metadata key \"file.owner\""), "%s", err->message);
    cdc_error_destroy(err);
    free(dir);
    src->ops->destroy(src);
    ft_close(&t);
}

Test(filesystem, partition_filters_and_limit)
{
    ft_t t;
    ft_open(&t, "ROW<id BIGINT, dt DATE, hr INT>", "dt,hr", NULL);
    hive_table(&t);
    cdc_source_t *src = ft_source(&t);
    cdc_filter_t f[2] = {{.field = 2, .op = CDC_FILTER_GE, .text = "hr >= 2"},
                         {.field = 0, .op = CDC_FILTER_EQ, .text = "id = 1"}};
    f[0].value.v.i = 2;
    f[1].value.v.i = 1;
    bool acc[2];
    cr_assert_eq(src->ops->apply_filters(src, f, 2, acc), 0);
    cr_assert(acc[0], "a partition column's filter is accepted");
    cr_assert_not(acc[1], "a data column's filter is left to the runtime");
    char *all = read_all(src, 2);
    cr_assert_str_eq(all, "+I[3, 2024-01-01, 2]\n+I[5, null, 3]");
    free(all);
    src->ops->destroy(src);

    src = ft_source(&t);
    cr_assert_eq(src->ops->apply_limit(src, 3), 0);
    all = read_all(src, 2);
    cr_assert_eq(strlen(all) > 0, true);
    int lines = 1;
    for (const char *p = all; *p; p++)
        lines += *p == '\n';
    cr_assert_eq(lines, 3, "the limit is shared by the splits: %s", all);
    free(all);
    src->ops->destroy(src);
    ft_close(&t);
}

Test(filesystem, bad_partition_directory)
{
    ft_t t;
    ft_open(&t, "ROW<id BIGINT, hr INT>", "hr", NULL);
    char p[256];
    snprintf(p, sizeof(p), "%s/hr=x/f", t.dir);
    put_file(p, "{\"id\":1}\n");
    cdc_source_t *src = ft_source(&t);
    cdc_reader_t *r = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(src->ops->open_reader(src, 0, 1, &r, &err), -1);
    cr_assert_not_null(strstr(err->message, "/hr=x\" of table \"t\": expected INT"), "%s",
                       err->message);
    cdc_error_destroy(err);
    src->ops->destroy(src);
    ft_close(&t);
}

static int count_files(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

static void write_rows(cdc_writer_t *w, cdc_type_t *schema, int64_t from, int64_t to,
                       const char *hr)
{
    cdc_batch_t b;
    cdc_batch_init(&b);
    for (int64_t i = from; i <= to; i++) {
        cdc_row_t *row = cdc_batch_add(&b, CDC_INSERT, 2);
        row->values[0].v.i = i;
        row->values[0].flags = 0;
        row->values[1].v.s.ptr = hr;
        row->values[1].v.s.len = (uint32_t)strlen(hr);
        row->values[1].flags = 0;
    }
    cdc_error_t *err = NULL;
    cr_assert_eq(w->ops->write(w, &b, &err), 0, "%s", err ? err->message : "");
    cdc_batch_free(&b);
    (void)schema;
}

/* A table (id BIGINT, p STRING) partitioned by p, files rolled every 20 bytes, and its sink. */
static cdc_sink_t *rolling_sink(ft_t *t)
{
    static const char *const opts[] = {"sink.rolling-policy.file-size", "20b", NULL};
    ft_open(t, "ROW<id BIGINT, p STRING>", "p", opts);
    cdc_sink_t *sink = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(fs_sink_new(&t->ctx, &sink, &err), 0);
    return sink;
}

Test(filesystem, files_visible_only_after_flush)
{
    ft_t t;
    cdc_sink_t *sink = rolling_sink(&t);
    cdc_error_t *err = NULL;
    cdc_writer_t *w = NULL;
    cr_assert_eq(sink->ops->open_writer(sink, 0, 1, &w, &err), 0);
    write_rows(w, t.schema, 1, 5, "a");
    char pdir[128];
    snprintf(pdir, sizeof(pdir), "%s/p=a", t.dir);
    cr_assert_eq(count_files(pdir, "part-"), 0, "nothing is visible before the flush");
    cr_assert_geq(count_files(pdir, ".part-"), 2, "rolled by size, still hidden");
    cr_assert_eq(w->ops->flush(w, &err), 0);
    int visible = count_files(pdir, "part-");
    cr_assert_geq(visible, 2);
    cr_assert_eq(count_files(pdir, ".part-"), 0);
    /* an aborted writer (close without flush) leaves no file of its own */
    write_rows(w, t.schema, 6, 6, "a");
    w->ops->close(w);
    cr_assert_eq(count_files(pdir, "part-"), visible);
    cr_assert_eq(count_files(pdir, ".part-"), 0);
    sink->ops->destroy(sink);
    ft_close(&t);
}

static void prepare_ok(cdc_writer_t *w, uint64_t id)
{
    cdc_error_t *err = NULL;
    cr_assert_eq(w->ops->prepare(w, id, &err), 0, "%s", err ? err->message : "");
}

/*
 * Two-phase commit: prepared files stay hidden; a writer that dies with
 * prepared checkpoints leaves them to the next run, whose recover publishes
 * those up to the source's last checkpoint and deletes the newer ones (only
 * its own subtask's).
 */
Test(filesystem, two_phase_recover)
{
    ft_t t;
    cdc_sink_t *sink = rolling_sink(&t);
    cdc_error_t *err = NULL;
    cdc_writer_t *w = NULL, *w1 = NULL;
    cr_assert_eq(sink->ops->open_writer(sink, 0, 2, &w, &err), 0);
    cr_assert_eq(sink->ops->open_writer(sink, 1, 2, &w1, &err), 0);
    char pa[128], pb[128], pc[128], pend[128];
    snprintf(pa, sizeof(pa), "%s/p=a", t.dir);
    snprintf(pb, sizeof(pb), "%s/p=b", t.dir);
    snprintf(pc, sizeof(pc), "%s/p=c", t.dir);
    snprintf(pend, sizeof(pend), "%s/%s", t.dir, FS_PENDING_DIR);
    write_rows(w, t.schema, 1, 3, "a");
    prepare_ok(w, 1);
    cr_assert_eq(count_files(pa, "part-"), 0, "prepared files are hidden");
    cr_assert_eq(count_files(pend, "0-1"), 1, "one manifest per prepared checkpoint");
    cr_assert_eq(w->ops->publish(w, 1, &err), 0, "%s", err ? err->message : "");
    int published = count_files(pa, "part-");
    cr_assert_geq(published, 1);
    cr_assert_eq(count_files(pend, "0-"), 0, "a published checkpoint's manifest goes");
    write_rows(w, t.schema, 4, 5, "a");
    write_rows(w, t.schema, 6, 6, "b");
    prepare_ok(w, 2);
    write_rows(w, t.schema, 7, 8, "b");
    prepare_ok(w, 3);
    write_rows(w, t.schema, 9, 9, "b"); /* written, never prepared */
    write_rows(w1, t.schema, 100, 100, "c");
    prepare_ok(w1, 1);
    /* the job dies: nothing more is published */
    w->ops->close(w);
    w1->ops->close(w1);
    sink->ops->destroy(sink);
    cr_assert_eq(count_files(pa, "part-"), published);
    cr_assert_eq(count_files(pb, "part-"), 0);
    cr_assert_eq(count_files(pend, "0-"), 2);
    cr_assert_eq(count_files(pend, "1-"), 1);

    /* the next run: the source stored checkpoint 2 for split 0, nothing for split 1 */
    cr_assert_eq(fs_sink_new(&t.ctx, &sink, &err), 0);
    cr_assert_eq(sink->ops->open_writer(sink, 0, 2, &w, &err), 0);
    cr_assert_eq(w->ops->recover(w, 2, &err), 0, "%s", err ? err->message : "");
    cr_assert_eq(count_files(pa, ".part-"), 0);
    cr_assert_eq(count_files(pb, ".part-"), 0, "checkpoint 3's files and unprepared ones go");
    cr_assert_eq(count_files(pend, "0-"), 0);
    cr_assert_eq(count_files(pc, ".part-"), 1, "another subtask's files are its own business");
    cr_assert_eq(w->ops->recover(w, 2, &err), 0, "a second recover finds nothing to do");
    cdc_source_t *src = ft_source(&t);
    char *got = read_all(src, 1);
    cr_assert_str_eq(got, "+I[1, a]\n+I[2, a]\n+I[3, a]\n+I[4, a]\n+I[5, a]\n+I[6, b]");
    free(got);
    src->ops->destroy(src);
    cr_assert_eq(sink->ops->open_writer(sink, 1, 2, &w1, &err), 0);
    cr_assert_eq(w1->ops->recover(w1, 0, &err), 0, "%s", err ? err->message : "");
    cr_assert_eq(count_files(pc, ".part-"), 0);
    cr_assert_eq(count_files(pc, "part-"), 0);
    cr_assert_eq(count_files(pend, "1-"), 0);
    w->ops->close(w);
    w1->ops->close(w1);
    sink->ops->destroy(sink);
    ft_close(&t);
}

static void commit_pos_ok(cdc_writer_t *w, const char *lines)
{
    cdc_error_t *err = NULL;
    cr_assert_eq(w->ops->commit_positions(w, lines, strlen(lines), &err), 0, "%s",
                 err ? err->message : "");
}

static char *stored(cdc_writer_t *w)
{
    cdc_error_t *err = NULL;
    cdc_buf_t b = {0};
    cr_assert_eq(w->ops->stored_positions(w, &b, &err), 0, "%s", err ? err->message : "");
    char *s = strdup(b.len ? cdc_buf_cstr(&b) : "");
    cdc_buf_free(&b);
    return s;
}

/*
 * Positions kept by the sink: a commit makes the files visible and the
 * positions stored; the greatest position per key wins across writers; a
 * position moves with no file as well.
 */
Test(filesystem, positions_commit)
{
    ft_t t;
    cdc_sink_t *sink = rolling_sink(&t);
    cdc_error_t *err = NULL;
    cdc_writer_t *w0 = NULL, *w1 = NULL;
    cr_assert_eq(sink->ops->open_writer(sink, 0, 2, &w0, &err), 0);
    cr_assert_eq(sink->ops->open_writer(sink, 1, 2, &w1, &err), 0);
    char *s = stored(w0);
    cr_assert_str_eq(s, "", "nothing stored yet");
    free(s);
    write_rows(w0, t.schema, 1, 3, "a");
    commit_pos_ok(w0, "kafka/t/0\t3\nkafka/t/1\t7\n");
    char pa[128], pend[128];
    snprintf(pa, sizeof(pa), "%s/p=a", t.dir);
    snprintf(pend, sizeof(pend), "%s/%s", t.dir, FS_PENDING_DIR);
    cr_assert_geq(count_files(pa, "part-"), 1, "committed files are visible");
    cr_assert_eq(count_files(pa, ".part-"), 0);
    cr_assert_eq(count_files(pend, "c-"), 0, "the commit manifest goes after the commit");
    write_rows(w1, t.schema, 10, 10, "a");
    commit_pos_ok(w1, "kafka/t/1\t5\nkafka/t/2\t9\n"); /* 5 < 7: 7 stays */
    commit_pos_ok(w0, "kafka/t/0\t4\n");               /* no rows: the position still moves */
    s = stored(w1);
    cr_assert(strstr(s, "kafka/t/0\t4\n") && strstr(s, "kafka/t/1\t7\n") &&
                  strstr(s, "kafka/t/2\t9\n"),
              "%s", s);
    free(s);
    w0->ops->close(w0);
    w1->ops->close(w1);
    sink->ops->destroy(sink);
    /* a later run (another job id) reads them back */
    cr_assert_eq(fs_sink_new(&t.ctx, &sink, &err), 0);
    cr_assert_eq(sink->ops->open_writer(sink, 0, 1, &w0, &err), 0);
    s = stored(w0);
    cr_assert(strstr(s, "kafka/t/0\t4\n") && strstr(s, "kafka/t/1\t7\n"), "%s", s);
    free(s);
    char pos[128];
    snprintf(pos, sizeof(pos), "%s/%s", t.dir, FS_POSITIONS_DIR);
    cr_assert_eq(count_files(pos, "") - 2, 1, "the ended run's two files absorbed into one");
    cdc_source_t *src = ft_source(&t);
    char *got = read_all(src, 1);
    cr_assert_str_eq(got, "+I[1, a]\n+I[10, a]\n+I[2, a]\n+I[3, a]"); /* sorted as text */
    free(got);
    src->ops->destroy(src);
    w0->ops->close(w0);
    sink->ops->destroy(sink);
    ft_close(&t);
}

/*
 * A writer that crashed after its commit was decided (the manifest exists, the
 * files are still hidden, its positions file not yet written) is finished by
 * the next writer that loads the positions: files renamed into place,
 * positions taken over and stored, manifest removed. An undecided hidden file
 * (no manifest names it) stays hidden. The on-disk layout is built by hand,
 * as fs_sink.c documents it.
 */
Test(filesystem, positions_roll_forward)
{
    ft_t t;
    cdc_sink_t *sink = rolling_sink(&t);
    char path[256];
    snprintf(path, sizeof(path), "%s/p=b/.part-dead-0-0.inprogress", t.dir);
    put_file(path, "{\"id\":7,\"p\":\"b\"}\n");
    snprintf(path, sizeof(path), "%s/p=b/.part-dead-0-1.inprogress", t.dir);
    put_file(path, "{\"id\":8,\"p\":\"b\"}\n"); /* never decided */
    snprintf(path, sizeof(path), "%s/%s/c-dead-0", t.dir, FS_PENDING_DIR);
    put_file(path, FS_COMMIT_HEADER "@kafka/t/3\t42\np=b\tpart-dead-0-0\n");
    snprintf(path, sizeof(path), "%s/%s/dead-0", t.dir, FS_POSITIONS_DIR);
    put_file(path, FS_POSITIONS_HEADER "kafka/t/3\t30\nkafka/t/4\t5\n");
    cdc_error_t *err = NULL;
    cdc_writer_t *w = NULL;
    cr_assert_eq(sink->ops->open_writer(sink, 0, 1, &w, &err), 0);
    char *s = stored(w);
    cr_assert(strstr(s, "kafka/t/3\t42\n") && strstr(s, "kafka/t/4\t5\n"), "%s", s);
    free(s);
    char pb[128], pend[128], pos[128];
    snprintf(pb, sizeof(pb), "%s/p=b", t.dir);
    snprintf(pend, sizeof(pend), "%s/%s", t.dir, FS_PENDING_DIR);
    snprintf(pos, sizeof(pos), "%s/%s", t.dir, FS_POSITIONS_DIR);
    cr_assert_eq(count_files(pb, "part-dead-0-0"), 1, "the decided file is visible");
    cr_assert_eq(count_files(pb, ".part-dead-0-1"), 1, "the undecided one stays hidden");
    cr_assert_eq(count_files(pend, "c-"), 0, "the finished manifest goes");
    cr_assert_eq(count_files(pos, "dead-"), 0, "a dead run's positions file is absorbed");
    cr_assert_eq(count_files(pos, "") - 2, 1, "into this writer's, stored first");
    cdc_source_t *src = ft_source(&t);
    char *got = read_all(src, 1);
    cr_assert_str_eq(got, "+I[7, b]");
    free(got);
    src->ops->destroy(src);
    /* a positions file cdcflow did not write is an error naming it */
    snprintf(path, sizeof(path), "%s/%s/junk", t.dir, FS_POSITIONS_DIR);
    put_file(path, "hello\n");
    cdc_buf_t b = {0};
    cr_assert_eq(w->ops->stored_positions(w, &b, &err), -1);
    cr_assert(strstr(err->message, "junk") && strstr(err->message, "not a positions file"), "%s",
              err->message);
    cdc_error_destroy(err);
    cdc_buf_free(&b);
    w->ops->close(w);
    sink->ops->destroy(sink);
    ft_close(&t);
}

/*
 * Leftovers of dead runs: the first writer of a run removes the in-progress
 * files of runs whose mark is not locked, except those a manifest names (they
 * await recovery); files of a live run (its mark locked) stay.
 */
Test(filesystem, sweep_dead_runs)
{
    ft_t t;
    cdc_sink_t *sink = rolling_sink(&t);
    char path[256];
    snprintf(path, sizeof(path), "%s/p=a/.part-dead-0-0.inprogress", t.dir);
    put_file(path, "{\"id\":1}\n");
    snprintf(path, sizeof(path), "%s/p=a/.part-dead-0-1.inprogress", t.dir);
    put_file(path, "{\"id\":2}\n"); /* named by a manifest: kept for recovery */
    snprintf(path, sizeof(path), "%s/p=b/.part-live-0-0.inprogress", t.dir);
    put_file(path, "{\"id\":3}\n");
    snprintf(path, sizeof(path), "%s/p=b/.part-unknown-0-0.inprogress", t.dir);
    put_file(path, "{\"id\":4}\n"); /* no mark: not known to be dead */
    snprintf(path, sizeof(path), "%s/%s/0-1", t.dir, FS_PENDING_DIR);
    put_file(path, "cdcflow-filesystem-pending 1\np=a\tpart-dead-0-1\n");
    snprintf(path, sizeof(path), "%s/%s/dead", t.dir, FS_RUNS_DIR);
    put_file(path, "");
    snprintf(path, sizeof(path), "%s/%s/.c-dead-0.123.0.tmp", t.dir, FS_PENDING_DIR);
    put_file(path, ""); /* an atomic write the dead run did not finish */
    cdc_error_t *err = NULL;
    int live = fs_run_register(t.dir, "live", &err);
    cr_assert_geq(live, 0, "%s", err ? err->message : "");
    cdc_writer_t *w = NULL;
    cr_assert_eq(sink->ops->open_writer(sink, 0, 1, &w, &err), 0, "%s", err ? err->message : "");
    char pa[128], pb[128], runs[128];
    snprintf(pa, sizeof(pa), "%s/p=a", t.dir);
    snprintf(pb, sizeof(pb), "%s/p=b", t.dir);
    snprintf(runs, sizeof(runs), "%s/%s", t.dir, FS_RUNS_DIR);
    cr_assert_eq(count_files(pa, ".part-dead-0-0"), 0, "a dead run's unfinished file goes");
    cr_assert_eq(count_files(pa, ".part-dead-0-1"), 1, "a file a manifest names stays");
    cr_assert_eq(count_files(pb, ".part-live-"), 1, "a live run's file stays");
    cr_assert_eq(count_files(pb, ".part-unknown-"), 1);
    cr_assert_eq(count_files(runs, "dead"), 0, "the dead run's mark goes");
    char pend[128];
    snprintf(pend, sizeof(pend), "%s/%s", t.dir, FS_PENDING_DIR);
    cr_assert_eq(count_files(pend, ".c-dead"), 0, "its unfinished atomic write goes");
    cr_assert_eq(count_files(pend, "0-1"), 1);
    cr_assert_eq(count_files(runs, "live"), 1);
    cr_assert_eq(count_files(runs, "") - 2, 2, "this run's own mark is there");
    w->ops->close(w);
    sink->ops->destroy(sink);
    cr_assert_eq(count_files(runs, "") - 2, 1, "a run that ends removes its mark");
    fs_run_release(t.dir, "live", live);
    ft_close(&t);
}

Test(filesystem, static_partition_and_overwrite)
{
    ft_t t;
    ft_open(&t, "ROW<id BIGINT, p STRING>", "p", NULL);
    char old[256];
    snprintf(old, sizeof(old), "%s/p=x/old-file", t.dir);
    put_file(old, "{\"id\":0}\n");
    snprintf(old, sizeof(old), "%s/p=y/old-file", t.dir);
    put_file(old, "{\"id\":0}\n");
    cdc_sink_t *sink = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(fs_sink_new(&t.ctx, &sink, &err), 0);
    cdc_kv_t part = {0};
    cdc_kv_set(&part, "p", "x");
    cr_assert_eq(sink->ops->apply_static_partition(sink, &part, &err), 0);
    cr_assert_eq(sink->ops->apply_overwrite(sink, true, &err), 0);
    cdc_kv_free(&part);
    cdc_writer_t *w = NULL;
    cr_assert_eq(sink->ops->open_writer(sink, 0, 1, &w, &err), 0);
    write_rows(w, t.schema, 1, 2, "ignored");
    cr_assert_eq(w->ops->flush(w, &err), 0);
    char pdir[128];
    snprintf(pdir, sizeof(pdir), "%s/p=x", t.dir);
    cr_assert_eq(count_files(pdir, "old-file"), 1, "old files stay until the job ends");
    w->ops->close(w);
    cr_assert_eq(count_files(pdir, "old-file"), 0);
    cr_assert_eq(count_files(pdir, "part-"), 1);
    snprintf(pdir, sizeof(pdir), "%s/p=y", t.dir);
    cr_assert_eq(count_files(pdir, "old-file"), 1, "other partitions are untouched");
    snprintf(pdir, sizeof(pdir), "%s/p=ignored", t.dir);
    struct stat st;
    cr_assert_neq(stat(pdir, &st), 0);
    sink->ops->destroy(sink);
    ft_close(&t);
}

Test(filesystem, option_errors)
{
    cdc_kv_t kv = {0};
    cdc_kv_set(&kv, "connector", "filesystem");
    cdc_kv_set(&kv, "path", "/tmp/x");
    cdc_kv_set(&kv, "format", "json");
    cdc_kv_set(&kv, "sink.partition-commit.policy.kind", "success-file,custom,bogus");
    cdc_resolved_t res;
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_resolve_options(&kv, "t", &res, &err), -1);
    cr_assert_not_null(strstr(err->detail, "unknown policy \"bogus\""), "%s", err->detail);
    cr_assert_not_null(strstr(err->detail, "\"sink.partition-commit.policy.class\" is required"),
                       "%s", err->detail);
    cdc_error_destroy(err);
    cdc_kv_free(&kv);
}

/* The contents of every visible file under dir, sorted, each followed by "--\n". */
static char *visible_files(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    char *files[16];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, "part-", 5) == 0) {
            cr_assert_lt(n, 16);
            char *path = cdc_strdup_printf("%s/%s", dir, e->d_name);
            FILE *f = fopen(path, "r");
            free(path);
            cr_assert_not_null(f);
            char buf[1024];
            size_t len = fread(buf, 1, sizeof(buf) - 1, f);
            fclose(f);
            buf[len] = '\0';
            files[n++] = strdup(buf);
        }
    closedir(d);
    cr_assert_eq(count_files(dir, ".part-"), 0, "no file is left hidden");
    sort_strings(files, n);
    cdc_buf_t out = {0};
    for (int i = 0; i < n; i++) {
        cdc_buf_printf(&out, "%s--\n", files[i]);
        free(files[i]);
    }
    char *s = strdup(cdc_buf_cstr(&out));
    cdc_buf_free(&out);
    return s;
}

/*
 * A schema change (ADD COLUMN c): the sink has nothing to change; a writer opened again on the
 * same sink starts new files (never replacing one made visible), and the re-planned sink's
 * writers write files with the new column, while the files from before keep theirs.
 */
static void schema_change_case(const char *format, const char *want)
{
    ft_t t;
    const char *const opts[] = {"format", format, NULL};
    ft_open(&t, "ROW<id BIGINT, p STRING>", "", opts);
    cdc_sink_t *sink = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(fs_sink_new(&t.ctx, &sink, &err), 0, "%s", err ? err->message : "");
    cdc_writer_t *w = NULL;
    cr_assert_eq(sink->ops->open_writer(sink, 0, 1, &w, &err), 0);
    write_rows(w, t.schema, 1, 2, "a");
    cr_assert_eq(w->ops->flush(w, &err), 0);
    w->ops->close(w);

    cdc_schema_change_t *change = cdc_schema_change_new("t", "LSN 0/16B3748", NULL);
    cdc_type_t *c_type = cdc_type_parse("INT", &err);
    cdc_schema_change_add(change, CDC_SC_ADD_COLUMN, "c", NULL, c_type, NULL, NULL);
    cr_assert_eq(sink->ops->apply_schema_change(sink, change, &err), 0);
    cdc_type_destroy(c_type);
    cdc_schema_change_free(change);

    cr_assert_eq(sink->ops->open_writer(sink, 0, 1, &w, &err), 0);
    write_rows(w, t.schema, 3, 3, "b");
    cr_assert_eq(w->ops->flush(w, &err), 0);
    w->ops->close(w);
    sink->ops->destroy(sink);

    cdc_type_t *old = t.schema;
    t.schema = cdc_type_parse("ROW<id BIGINT, p STRING, c INT>", &err);
    t.ctx.schema = t.schema;
    cr_assert_eq(fs_sink_new(&t.ctx, &sink, &err), 0, "%s", err ? err->message : "");
    cr_assert_eq(sink->ops->open_writer(sink, 0, 1, &w, &err), 0);
    cdc_batch_t b;
    cdc_batch_init(&b);
    cdc_row_t *row = cdc_batch_add(&b, CDC_INSERT, 3);
    row->values[0] = (cdc_value_t){.v.i = 4};
    row->values[1] = (cdc_value_t){.v.s = {.ptr = "c", .len = 1}};
    row->values[2] = (cdc_value_t){.v.i = 9};
    cr_assert_eq(w->ops->write(w, &b, &err), 0, "%s", err ? err->message : "");
    cr_assert_eq(w->ops->flush(w, &err), 0);
    w->ops->close(w);
    cdc_batch_free(&b);
    sink->ops->destroy(sink);

    char *got = visible_files(t.dir);
    cr_assert_str_eq(got, want);
    free(got);
    cdc_type_destroy(old);
    ft_close(&t);
}

Test(filesystem, schema_change_json_files_start_anew)
{
    schema_change_case("json", "{\"id\":1,\"p\":\"a\"}\n{\"id\":2,\"p\":\"a\"}\n--\n"
                               "{\"id\":3,\"p\":\"b\"}\n--\n"
                               "{\"id\":4,\"p\":\"c\",\"c\":9}\n--\n");
}

Test(filesystem, schema_change_csv_files_start_anew)
{
    schema_change_case("csv", "1,a\n2,a\n--\n3,b\n--\n4,c,9\n--\n");
}

Test(filesystem, schema_change_debezium_json_files_start_anew)
{
    schema_change_case(
        "debezium-json",
        "{\"before\":null,\"after\":{\"id\":1,\"p\":\"a\"},\"op\":\"c\"}\n"
        "{\"before\":null,\"after\":{\"id\":2,\"p\":\"a\"},\"op\":\"c\"}\n--\n"
        "{\"before\":null,\"after\":{\"id\":3,\"p\":\"b\"},\"op\":\"c\"}\n--\n"
        "{\"before\":null,\"after\":{\"id\":4,\"p\":\"c\",\"c\":9},\"op\":\"c\"}\n--\n");
}
