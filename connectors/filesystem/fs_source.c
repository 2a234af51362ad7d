/*
 * fs_source.c — the filesystem connector's source: files of one message per
 * line under a Hive-style partitioned directory, decoded by the table's
 * format; partition columns come from the directory names.
 *
 * Abilities: partitions (list/apply), filters on partition columns, projection
 * (the format converts only the needed fields), limit (shared by all splits),
 * row-count statistics (file sizes over an average line length sampled from
 * the first files; computed once).
 *
 * Metadata (Flink's keys): file.path (absolute), file.name, file.size and
 * file.modification-time of the file a row comes from, read once per file
 * (fstat at open) and copied into the batch once per file and poll.
 *
 * Bounded (default): files are listed once and dealt round-robin, in order of
 * partition then file, to the reader splits; each split reads its files in
 * that order. With source.monitor-interval the source is unbounded: every
 * reader rescans the directory each interval and reads the new files that
 * hash to its split, in order; the files read (and the position in the one
 * being read) are written to a state file at every commit, so a restarted job
 * reads each file once. The state lives in source.state-path, by default
 * <path>/_cdcflow_state/<table>, one file per split (split-K): a restart
 * loads all of them. Streaming readers offer the source half of the two-phase
 * commit: the checkpoint id is written in the same state file, atomically
 * with the position.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "fs_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define READ_CHUNK (1u << 20) /* initial read buffer */
#define SAMPLE_BYTES 65536    /* per file, for the row-count estimate */
#define SAMPLE_FILES 4
#define IDLE_NS 20000000L /* an unbounded reader without new files sleeps 20 ms */

typedef struct fs_filter_s {
    int key; /* index into pkeys */
    cdc_filter_op_t op;
    cdc_value_t value;
    char *text;
} fs_filter_t;

/* Flink's filesystem source metadata: the file a row comes from. */
enum { FS_MD_PATH, FS_MD_NAME, FS_MD_SIZE, FS_MD_MTIME, FS_MD_MAX = 8 };

const cdc_metadata_def_t fs_metadata[] = {
    {"file.path", "STRING NOT NULL", "Absolute path of the file the row comes from.", false},
    {"file.name", "STRING NOT NULL", "Name of the file (its last path component).", false},
    {"file.size", "BIGINT NOT NULL", "Size of the file in bytes when it was opened.", false},
    {"file.modification-time", "TIMESTAMP_LTZ(3) NOT NULL",
     "Last modification time of the file when it was opened.", false},
    {0},
};

/* Where a produced field comes from. */
typedef struct fs_field_s {
    int fmt;  /* index into the format's row, or -1 */
    int part; /* index into pkeys, or -1 */
} fs_field_t;

typedef struct fs_source_s {
    cdc_source_t base;
    fs_table_t t;
    char *name, *path, *default_name, *state_dir;
    cdc_type_t *schema;
    int *pkeys;
    int npkeys;
    const cdc_format_factory_t *fmt;
    const cdc_config_t *fmt_cfg; /* borrowed: lives with the plan */
    bool positional;             /* csv: the format reads every field by position */
    cdc_changelog_mode_t mode;
    int64_t monitor_ms; /* 0: bounded */

    pthread_mutex_t lock; /* the listing, made once on first use */
    bool listed;
    fs_listing_t listing;
    bool pruned;
    cdc_kv_t *applied; /* partitions given to apply_partitions */
    int napplied;

    fs_filter_t *filters;
    int nfilters;
    cdc_arena_t arena; /* filter literals */

    int *proj; /* produced fields -> schema index */
    int nproj;
    bool projected;
    int md[FS_MD_MAX]; /* metadata columns after the produced fields: FS_MD_* */
    int nmd;
    int64_t limit;
    atomic_llong emitted; /* rows produced by all splits (limit) */
    bool have_count;
    int64_t row_count;
} fs_source_t;

/* ---- partitions selection -------------------------------------------------------------------- */

/*
 * Whether a partition as the planner names it (NULL values left out, so that
 * the planner sees them as NULL) is partition p.
 */
static bool is_partition(const fs_source_t *src, const cdc_kv_t *a, const fs_part_t *p)
{
    int n = 0;
    for (int k = 0; k < src->npkeys; k++) {
        const char *key = src->schema->names[src->pkeys[k]];
        const char *v = cdc_kv_get(a, key);
        if (cdc_value_is_null(&p->vals[k])) {
            if (v)
                return false;
            continue;
        }
        n++;
        const char *mine = cdc_kv_get(&p->kv, key);
        if (!v || !mine || strcmp(v, mine) != 0)
            return false;
    }
    return n == a->n;
}

/* Whether partition p passes pushdown and the partition filters. */
static bool part_selected(const fs_source_t *src, const fs_part_t *p)
{
    if (src->pruned) {
        bool found = false;
        for (int i = 0; i < src->napplied && !found; i++)
            found = is_partition(src, &src->applied[i], p);
        if (!found)
            return false;
    }
    for (int k = 0; k < src->nfilters; k++) {
        const fs_filter_t *f = &src->filters[k];
        if (!cdc_filter_passes(src->schema->children[src->pkeys[f->key]], &p->vals[f->key], f->op,
                               &f->value))
            return false;
    }
    return true;
}

/* Lists the table once (src->lock held by the caller or single-threaded planning). */
static int ensure_listed(fs_source_t *src, cdc_error_t **err)
{
    if (src->listed)
        return 0;
    if (fs_list(&src->t, &src->listing, err) < 0)
        return -1;
    src->listed = true;
    return 0;
}

/* ---- planning abilities -------------------------------------------------------------------------
 */

static cdc_changelog_mode_t fss_changelog_mode(cdc_source_t *base)
{
    return ((fs_source_t *)base)->mode;
}

static int fss_list_partitions(cdc_source_t *base, cdc_kv_t **parts, int *nparts, cdc_error_t **err)
{
    fs_source_t *src = (fs_source_t *)base;
    pthread_mutex_lock(&src->lock);
    int rc = ensure_listed(src, err);
    pthread_mutex_unlock(&src->lock);
    if (rc < 0)
        return -1;
    int n = src->npkeys > 0 ? src->listing.nparts : 0;
    cdc_kv_t *out = cdc_xcalloc((size_t)n + 1, sizeof(cdc_kv_t));
    for (int i = 0; i < n; i++) {
        /* in PARTITIONED BY order, as the directories nest; NULL values left out */
        for (int k = 0; k < src->npkeys; k++) {
            const char *key = src->schema->names[src->pkeys[k]];
            if (!cdc_value_is_null(&src->listing.parts[i].vals[k]))
                cdc_kv_set(&out[i], key, cdc_kv_get(&src->listing.parts[i].kv, key));
        }
    }
    *parts = out;
    *nparts = n;
    return 0;
}

static int fss_apply_partitions(cdc_source_t *base, const cdc_kv_t *parts, int nparts,
                                cdc_error_t **err)
{
    (void)err;
    fs_source_t *src = (fs_source_t *)base;
    for (int i = 0; i < src->napplied; i++)
        cdc_kv_free(&src->applied[i]);
    free(src->applied);
    src->applied = cdc_xcalloc((size_t)nparts + 1, sizeof(cdc_kv_t));
    for (int i = 0; i < nparts; i++)
        cdc_kv_copy(&src->applied[i], &parts[i]);
    src->napplied = nparts;
    src->pruned = true;
    src->have_count = false;
    return 0;
}

/* Filters on partition columns are decided per partition directory, exactly. */
static int fss_apply_filters(cdc_source_t *base, const cdc_filter_t *filters, int n, bool *accepted)
{
    fs_source_t *src = (fs_source_t *)base;
    for (int i = 0; i < n; i++) {
        accepted[i] = false;
        int key = -1;
        for (int k = 0; k < src->npkeys; k++)
            if (src->pkeys[k] == filters[i].field)
                key = k;
        if (key < 0)
            continue;
        src->filters =
            cdc_xrealloc(src->filters, sizeof(fs_filter_t) * (size_t)(src->nfilters + 1));
        fs_filter_t *f = &src->filters[src->nfilters++];
        f->key = key;
        f->op = filters[i].op;
        cdc_filter_keep_literal(&src->arena, src->schema->children[filters[i].field], &filters[i],
                                &f->value);
        f->text = cdc_xstrdup(filters[i].text ? filters[i].text : "?");
        accepted[i] = true;
    }
    src->have_count = false;
    return 0;
}

static void rebuild_produced(fs_source_t *src)
{
    cdc_type_t *t = cdc_type_project(src->schema, src->proj, src->nproj);
    for (int i = 0; i < src->nmd; i++)
        cdc_type_row_add(t, fs_metadata[src->md[i]].key,
                         cdc_type_parse(fs_metadata[src->md[i]].type, NULL));
    cdc_type_destroy((cdc_type_t *)src->base.produced);
    src->base.produced = t;
}

static int fss_apply_projection(cdc_source_t *base, const int *fields, int n)
{
    fs_source_t *src = (fs_source_t *)base;
    if (cdc_projection_narrow(&src->proj, &src->nproj, fields, n) < 0)
        return -1;
    src->projected = true;
    rebuild_produced(src);
    return 0;
}

static int fss_apply_metadata(cdc_source_t *base, const char *const *keys, int n, cdc_error_t **err)
{
    fs_source_t *src = (fs_source_t *)base;
    if (n > FS_MD_MAX)
        return cdc_error_set(err, CDC_ERR_PLAN, "filesystem: too many metadata columns (%d)", n);
    for (int i = 0; i < n; i++) {
        int j = cdc_metadata_find(fs_metadata, "filesystem", keys[i], err);
        if (j < 0)
            return -1;
        src->md[i] = j;
    }
    src->nmd = n;
    rebuild_produced(src);
    return 0;
}

static int fss_apply_limit(cdc_source_t *base, int64_t limit)
{
    fs_source_t *src = (fs_source_t *)base;
    if (limit < 0)
        return -1;
    if (src->limit < 0 || limit < src->limit)
        src->limit = limit;
    return 0;
}

/* Rows estimated from the sizes of the selected files and the line length of a sample. */
static int64_t fss_report_row_count(cdc_source_t *base)
{
    fs_source_t *src = (fs_source_t *)base;
    pthread_mutex_lock(&src->lock);
    if (src->have_count) {
        pthread_mutex_unlock(&src->lock);
        return src->row_count;
    }
    int64_t count = -1;
    if (ensure_listed(src, NULL) == 0) {
        int64_t bytes = 0, sbytes = 0, slines = 0;
        int sampled = 0;
        char *buf = cdc_xmalloc(SAMPLE_BYTES);
        for (int i = 0; i < src->listing.nfiles; i++) {
            const fs_file_t *f = &src->listing.files[i];
            if (!part_selected(src, &src->listing.parts[f->part]))
                continue;
            bytes += f->size;
            if (sampled >= SAMPLE_FILES || f->size == 0)
                continue;
            char *full = cdc_strdup_printf("%s/%s", src->path, f->rel);
            int fd = open(full, O_RDONLY | O_CLOEXEC);
            free(full);
            if (fd < 0)
                continue;
            ssize_t r = read(fd, buf, SAMPLE_BYTES);
            close(fd);
            if (r <= 0)
                continue;
            sampled++;
            int64_t last_nl = -1, lines = 0;
            for (ssize_t k = 0; k < r; k++)
                if (buf[k] == '\n') {
                    lines++;
                    last_nl = k;
                }
            if (lines == 0) { /* one line longer than the sample, or a file without newline */
                slines += 1;
                sbytes += r < f->size ? f->size : r;
            } else {
                slines += lines;
                sbytes += last_nl + 1;
            }
        }
        free(buf);
        count = bytes == 0 ? 0 : slines > 0 ? (bytes * slines + sbytes / 2) / sbytes : -1;
        if (src->limit >= 0 && count > src->limit)
            count = src->limit;
    }
    src->row_count = count;
    src->have_count = true;
    pthread_mutex_unlock(&src->lock);
    return count;
}

static void fss_describe(cdc_source_t *base, cdc_buf_t *out)
{
    fs_source_t *src = (fs_source_t *)base;
    cdc_buf_printf(out, "filesystem(path=%s, format=%s", src->path, src->fmt->identifier);
    if (src->monitor_ms > 0)
        cdc_buf_printf(out, ", monitor-interval=%lldms", (long long)src->monitor_ms);
    cdc_buf_putc(out, ')');
}

/* ---- streaming state
 * ------------------------------------------------------------------------------ */

/* A set of strings (file paths relative to the table), open addressing. */
typedef struct strset_s {
    char **slots;
    int64_t *off; /* streaming position: bytes consumed, -1 = done */
    int64_t *line;
    size_t cap, n;
} strset_t;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static size_t set_find(const strset_t *s, const char *key)
{
    size_t i = hash_str(key) & (s->cap - 1);
    while (s->slots[i] && strcmp(s->slots[i], key) != 0)
        i = (i + 1) & (s->cap - 1);
    return i;
}

static void set_put(strset_t *s, const char *key, int64_t off, int64_t line);

static void set_grow(strset_t *s)
{
    strset_t old = *s;
    s->cap = old.cap ? old.cap * 2 : 64;
    s->n = 0;
    s->slots = cdc_xcalloc(s->cap, sizeof(char *));
    s->off = cdc_xcalloc(s->cap, sizeof(int64_t));
    s->line = cdc_xcalloc(s->cap, sizeof(int64_t));
    for (size_t i = 0; i < old.cap; i++)
        if (old.slots[i]) {
            set_put(s, old.slots[i], old.off[i], old.line[i]);
            free(old.slots[i]);
        }
    free(old.slots);
    free(old.off);
    free(old.line);
}

/* Adds or updates key; a done entry (-1) is never turned back into a position. */
static void set_put(strset_t *s, const char *key, int64_t off, int64_t line)
{
    if ((s->n + 1) * 2 > s->cap)
        set_grow(s);
    size_t i = set_find(s, key);
    if (!s->slots[i]) {
        s->slots[i] = cdc_xstrdup(key);
        s->n++;
        s->off[i] = off;
        s->line[i] = line;
    } else if (s->off[i] != -1) {
        s->off[i] = off;
        s->line[i] = line;
    }
}

static bool set_get(const strset_t *s, const char *key, int64_t *off, int64_t *line)
{
    if (!s->cap)
        return false;
    size_t i = set_find(s, key);
    if (!s->slots[i])
        return false;
    *off = s->off[i];
    *line = s->line[i];
    return true;
}

static void set_free(strset_t *s)
{
    for (size_t i = 0; i < s->cap; i++)
        free(s->slots[i]);
    free(s->slots);
    free(s->off);
    free(s->line);
    memset(s, 0, sizeof(*s));
}

/* ---- the reader
 * ------------------------------------------------------------------------------------ */

typedef struct fs_reader_s {
    cdc_reader_t base;
    fs_source_t *src;
    int split, nsplits;
    cdc_deser_t *deser;
    cdc_type_t *fmt_type;
    fs_field_t *map; /* per produced field */
    bool identity;   /* the format's rows are the produced rows */

    /* the files of this split, in order; bounded: a copy of the listing's, streaming: grows */
    char **files;
    int *fpart; /* partition of each file, index into parts */
    int nfiles, capfiles;
    int cur;          /* next file to open */
    fs_part_t *parts; /* streaming: partitions seen (typed values in arena) */
    int nparts;
    cdc_arena_t arena;

    int fd; /* -1 when no file is open */
    int curfile;
    char *curpath;
    char *abspath;               /* metadata: curpath made absolute */
    struct stat st;              /* metadata: the open file's size and time */
    cdc_value_t md[FS_MD_MAX];   /* metadata values of the open file, strings in md_batch */
    const cdc_batch_t *md_batch; /* the batch md's strings were copied into, NULL: not yet */
    int64_t line;                /* lines consumed in the current file */
    int64_t offset;              /* bytes consumed in the current file */
    bool eof;
    char *buf;
    size_t cap, start, end; /* unconsumed bytes are buf[start..end) */

    strset_t state;  /* streaming: files read (off -1) or being read (their position) */
    strset_t queued; /* streaming: files seen by a scan (read, queued or filtered out) */
    int64_t next_scan;
    bool done;
    uint64_t checkpoint; /* streaming: the id of the last commit_checkpoint (0: none) */
    cdc_buf_t tmp;
} fs_reader_t;

/* Streaming: the partition of file rel, added (typed) on first sight. */
static int reader_part(fs_reader_t *r, const fs_listing_t *l, const fs_file_t *f)
{
    const fs_part_t *lp = &l->parts[f->part];
    for (int i = 0; i < r->nparts; i++)
        if (strcmp(r->parts[i].rel, lp->rel) == 0)
            return i;
    r->parts = cdc_xrealloc(r->parts, sizeof(fs_part_t) * (size_t)(r->nparts + 1));
    fs_part_t *p = &r->parts[r->nparts];
    memset(p, 0, sizeof(*p));
    p->rel = cdc_xstrdup(lp->rel);
    cdc_kv_copy(&p->kv, &lp->kv);
    int nk = r->src->npkeys;
    p->vals = cdc_arena_alloc(&r->arena, sizeof(cdc_value_t) * (size_t)(nk ? nk : 1));
    for (int k = 0; k < nk; k++) {
        cdc_value_keep(&r->arena, r->src->schema->children[r->src->pkeys[k]], &lp->vals[k],
                       &p->vals[k]);
    }
    p->kept = part_selected(r->src, p);
    return r->nparts++;
}

static void add_file(fs_reader_t *r, const char *rel, int part)
{
    if (r->nfiles == r->capfiles) {
        r->capfiles = r->capfiles ? r->capfiles * 2 : 64;
        r->files = cdc_xrealloc(r->files, sizeof(char *) * (size_t)r->capfiles);
        r->fpart = cdc_xrealloc(r->fpart, sizeof(int) * (size_t)r->capfiles);
    }
    r->files[r->nfiles] = cdc_xstrdup(rel);
    r->fpart[r->nfiles++] = part;
}

/* Streaming: lists the table and queues the new files of this split, in order. */
static int rescan(fs_reader_t *r, cdc_error_t **err)
{
    fs_source_t *src = r->src;
    fs_listing_t l;
    if (fs_list(&src->t, &l, err) < 0)
        return -1;
    for (int i = 0; i < l.nfiles; i++) {
        const fs_file_t *f = &l.files[i];
        if ((int)(hash_str(f->rel) % (uint64_t)r->nsplits) != r->split)
            continue;
        int64_t off, line;
        if ((set_get(&r->state, f->rel, &off, &line) && off == -1) ||
            set_get(&r->queued, f->rel, &off, &line))
            continue; /* read before, or already seen */
        set_put(&r->queued, f->rel, 0, 0);
        int p = reader_part(r, &l, f);
        if (r->parts[p].kept)
            add_file(r, f->rel, p);
    }
    fs_listing_free(&l);
    r->next_scan = cdc_mono_ms() + src->monitor_ms;
    return 0;
}

static int state_path(fs_reader_t *r, cdc_buf_t *out)
{
    cdc_buf_clear(out);
    cdc_buf_printf(out, "%s/split-%d", r->src->state_dir, r->split);
    return 0;
}

/* Loads every split's state file: what any earlier run has read. */
static int load_state(fs_reader_t *r, cdc_error_t **err)
{
    fs_source_t *src = r->src;
    cdc_buf_t b = {0};
    int rc = 0;
    DIR *dir = opendir(src->state_dir);
    struct dirent *de;
    while (dir && rc == 0 && (de = readdir(dir)) != NULL) {
        if (strncmp(de->d_name, "split-", 6) != 0)
            continue;
        char *p = cdc_strdup_printf("%s/%s", src->state_dir, de->d_name);
        int got = cdc_file_read_all(p, &b, err);
        free(p);
        if (got < 0) {
            rc = -1;
            break;
        }
        if (got == 1)
            continue;
        bool own = strtol(de->d_name + 6, NULL, 10) == r->split;
        const char *s = cdc_buf_cstr(&b);
        while (*s) {
            const char *e = strchr(s, '\n');
            size_t n = e ? (size_t)(e - s) : strlen(s);
            char *line = cdc_xstrndup(s, n);
            char *t1 = strchr(line, '\t');
            if (t1 && own && strncmp(line, "checkpoint", 10) == 0) {
                r->checkpoint = strtoull(t1 + 1, NULL, 10);
            } else if (t1 && strncmp(line, "done", 4) == 0) {
                set_put(&r->state, t1 + 1, -1, 0);
            } else if (t1 && strncmp(line, "pos", 3) == 0) {
                char *t2 = strchr(t1 + 1, '\t');
                char *t3 = t2 ? strchr(t2 + 1, '\t') : NULL;
                if (t3) {
                    *t2 = '\0';
                    set_put(&r->state, t1 + 1, strtoll(t2 + 1, NULL, 10),
                            strtoll(t3 + 1, NULL, 10));
                }
            }
            free(line);
            s += n + (e ? 1 : 0);
        }
    }
    if (dir)
        closedir(dir);
    cdc_buf_free(&b);
    return rc;
}

/*
 * Writes this split's state: files done, the position in the current one and
 * the last checkpoint id (two-phase commit with a sink that has it), in one
 * atomic write: the id is committed exactly with the position.
 */
static int fsr_commit(cdc_reader_t *base, cdc_error_t **err)
{
    fs_reader_t *r = (fs_reader_t *)base;
    fs_source_t *src = r->src;
    if (src->monitor_ms <= 0)
        return 0;
    cdc_buf_t b = {0};
    cdc_buf_puts(&b, "cdcflow-filesystem-source-state 1\n");
    if (r->checkpoint > 0)
        cdc_buf_printf(&b, "checkpoint\t%llu\n", (unsigned long long)r->checkpoint);
    for (size_t i = 0; i < r->state.cap; i++) {
        const char *k = r->state.slots[i];
        if (!k || r->state.off[i] != -1)
            continue;
        if ((int)(hash_str(k) % (uint64_t)r->nsplits) != r->split)
            continue;
        cdc_buf_printf(&b, "done\t%s\n", k);
    }
    if (r->fd >= 0)
        cdc_buf_printf(&b, "pos\t%s\t%lld\t%lld\n", r->files[r->curfile], (long long)r->offset,
                       (long long)r->line);
    int rc = fs_mkdirs(src->state_dir, err);
    if (rc == 0) {
        state_path(r, &r->tmp);
        rc = cdc_file_write_atomic(cdc_buf_cstr(&r->tmp), b.data, b.len, err);
    }
    cdc_buf_free(&b);
    if (rc < 0)
        cdc_error_add_context(*err, "committing what table \"%s\" has read", src->name);
    return rc;
}

static void close_file(fs_reader_t *r)
{
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
    free(r->curpath);
    r->curpath = NULL;
    free(r->abspath);
    r->abspath = NULL;
}

static int open_next(fs_reader_t *r, cdc_error_t **err)
{
    fs_source_t *src = r->src;
    int i = r->cur++;
    r->curfile = i;
    r->curpath = cdc_strdup_printf("%s/%s", src->path, r->files[i]);
    r->fd = open(r->curpath, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0) {
        cdc_error_set(err, CDC_ERR_IO, "could not open \"%s\": %s", r->curpath, strerror(errno));
        close_file(r);
        return -1;
    }
    r->line = 0;
    r->offset = 0;
    r->eof = false;
    r->md_batch = NULL;
    if (src->nmd > 0) { /* the file's metadata, once */
        if (fstat(r->fd, &r->st) < 0)
            memset(&r->st, 0, sizeof(r->st));
        r->abspath = realpath(r->curpath, NULL);
        if (!r->abspath)
            r->abspath = cdc_xstrdup(r->curpath);
    }
    int64_t off, line;
    if (src->monitor_ms > 0 && set_get(&r->state, r->files[i], &off, &line) && off > 0) {
        if (lseek(r->fd, off, SEEK_SET) < 0) {
            cdc_error_set(err, CDC_ERR_IO, "could not seek \"%s\": %s", r->curpath,
                          strerror(errno));
            close_file(r);
            return -1;
        }
        r->offset = off;
        r->line = line;
    }
    return 0;
}

/* Fills the buffer's free tail; returns bytes read, 0 at end of file, -1 on error. */
static ssize_t fill(fs_reader_t *r, cdc_error_t **err)
{
    for (;;) {
        ssize_t n = read(r->fd, r->buf + r->end, r->cap - r->end);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            cdc_error_set(err, CDC_ERR_IO, "could not read \"%s\": %s", r->curpath,
                          strerror(errno));
            return -1;
        }
        r->end += (size_t)n;
        return n;
    }
}

/* The open file's metadata values, their strings copied into out's arena (once per file and
   batch). */
static void file_metadata(fs_reader_t *r, cdc_batch_t *out)
{
    if (r->md_batch == out)
        return;
    r->md_batch = out;
    const char *slash = strrchr(r->abspath, '/');
    const char *name = slash ? slash + 1 : r->abspath;
    for (int i = 0; i < r->src->nmd; i++) {
        cdc_value_t *v = &r->md[i];
        *v = (cdc_value_t){0};
        switch (r->src->md[i]) {
        case FS_MD_PATH:
            v->v.s.ptr = cdc_arena_memdup(&out->arena, r->abspath, strlen(r->abspath));
            v->v.s.len = (uint32_t)strlen(r->abspath);
            break;
        case FS_MD_NAME:
            v->v.s.ptr = cdc_arena_memdup(&out->arena, name, strlen(name));
            v->v.s.len = (uint32_t)strlen(name);
            break;
        case FS_MD_SIZE:
            v->v.i = (int64_t)r->st.st_size;
            break;
        case FS_MD_MTIME:
            v->v.ts.millis = (int64_t)r->st.st_mtim.tv_sec * 1000 + r->st.st_mtim.tv_nsec / 1000000;
            break;
        }
    }
}

/* Rewrites the rows [n0, out->n) decoded by the format into the produced layout. */
static void remap(fs_reader_t *r, cdc_batch_t *out, uint32_t n0, const fs_part_t *p)
{
    fs_source_t *src = r->src;
    int width = src->nproj + src->nmd;
    if (src->nmd > 0)
        file_metadata(r, out);
    for (uint32_t i = n0; i < out->n; i++) {
        cdc_row_t *row = &out->rows[i];
        cdc_value_t *vals =
            cdc_arena_alloc(&out->arena, sizeof(cdc_value_t) * (size_t)(width ? width : 1));
        for (int k = 0; k < src->nproj; k++) {
            const fs_field_t *m = &r->map[k];
            if (m->fmt >= 0)
                vals[k] = row->values[m->fmt];
            else
                vals[k] = p->vals[m->part];
        }
        for (int k = 0; k < src->nmd; k++)
            vals[src->nproj + k] = r->md[k];
        row->values = vals;
        row->arity = (uint32_t)width;
    }
}

static int decode_line(fs_reader_t *r, const char *msg, size_t len, cdc_batch_t *out,
                       cdc_error_t **err)
{
    if (len && msg[len - 1] == '\r')
        len--;
    r->line++;
    if (len == 0)
        return 0; /* blank lines carry nothing */
    uint32_t n0 = out->n;
    cdc_buf_clear(&r->deser->errmsg);
    int rc = r->deser->ops->decode(r->deser, msg, len, out);
    if (rc == CDC_DECODE_ERROR) {
        cdc_batch_truncate(out, out->n - n0);
        cdc_error_t *e = cdc_error_new(CDC_ERR_PARSE, "%s:%lld: %s", r->curpath, (long long)r->line,
                                       cdc_buf_cstr(&r->deser->errmsg));
        cdc_error_set_detail(e, "format \"%s\", table \"%s\"", r->src->fmt->identifier,
                             r->src->name);
        cdc_error_set_hint(e,
                           "'%s.ignore-parse-errors' = 'true' skips such lines, if the "
                           "format has the option",
                           r->src->fmt->identifier);
        if (err) {
            cdc_error_destroy(*err);
            *err = e;
        } else {
            cdc_error_destroy(e);
        }
        return -1;
    }
    if (!r->identity && out->n > n0)
        remap(r, out, n0,
              &(r->src->monitor_ms > 0 ? r->parts : r->src->listing.parts)[r->fpart[r->curfile]]);
    return 0;
}

/* Marks the current file read (streaming state) and closes it. */
static void finish_file(fs_reader_t *r)
{
    if (r->src->monitor_ms > 0)
        set_put(&r->state, r->files[r->curfile], -1, 0);
    close_file(r);
}

/* Applies the shared limit to the rows of this poll; true when it is reached. */
static bool apply_limit(fs_reader_t *r, cdc_batch_t *out, uint32_t n0)
{
    fs_source_t *src = r->src;
    if (src->limit < 0)
        return false;
    long long got = (long long)(out->n - n0);
    long long before = atomic_fetch_add(&src->emitted, got);
    if (before >= src->limit) {
        cdc_batch_truncate(out, out->n - n0);
        return true;
    }
    if (before + got >= src->limit) {
        cdc_batch_truncate(out, (uint32_t)(before + got - src->limit));
        return true;
    }
    return false;
}

static int fsr_poll(cdc_reader_t *base, cdc_batch_t *out, uint32_t max_rows, cdc_error_t **err)
{
    fs_reader_t *r = (fs_reader_t *)base;
    fs_source_t *src = r->src;
    if (r->done || (src->limit >= 0 && atomic_load(&src->emitted) >= src->limit))
        return CDC_POLL_END;
    r->md_batch = NULL; /* (a reset batch may be the same object: copy the metadata again) */
    /* the batch was reset: nothing points into the buffer any more, so it may move */
    if (r->start > 0) {
        memmove(r->buf, r->buf + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
    }
    uint32_t n0 = out->n;
    while (out->n - n0 < max_rows) {
        if (r->fd < 0) {
            if (r->cur >= r->nfiles && src->monitor_ms > 0 && cdc_mono_ms() >= r->next_scan) {
                if (rescan(r, err) < 0)
                    return CDC_POLL_ERROR;
            }
            if (r->cur >= r->nfiles) {
                if (src->monitor_ms <= 0) {
                    if (out->n == n0) {
                        r->done = true;
                        return CDC_POLL_END;
                    }
                    break;
                }
                if (out->n == n0) {
                    struct timespec ts = {.tv_sec = 0, .tv_nsec = IDLE_NS};
                    nanosleep(&ts, NULL);
                }
                break;
            }
            if (open_next(r, err) < 0)
                return CDC_POLL_ERROR;
            if (out->n == n0) /* else rows of this poll point into the buffer: append after */
                r->start = r->end = 0;
        }
        char *nl = r->start < r->end ? memchr(r->buf + r->start, '\n', r->end - r->start) : NULL;
        if (nl) {
            size_t len = (size_t)(nl - (r->buf + r->start));
            if (decode_line(r, r->buf + r->start, len, out, err) < 0)
                return CDC_POLL_ERROR;
            r->start += len + 1;
            r->offset += (int64_t)len + 1;
            continue;
        }
        if (r->eof) {
            if (r->start < r->end) { /* a last line without newline */
                size_t len = r->end - r->start;
                if (decode_line(r, r->buf + r->start, len, out, err) < 0)
                    return CDC_POLL_ERROR;
                r->start = r->end;
                r->offset += (int64_t)len;
            }
            finish_file(r);
            continue;
        }
        if (r->end == r->cap) {
            if (out->n > n0)
                break; /* rows of this poll point into the buffer: go on at the next poll */
            if (r->start > 0) {
                memmove(r->buf, r->buf + r->start, r->end - r->start);
                r->end -= r->start;
                r->start = 0;
            } else {
                r->cap *= 2;
                r->buf = cdc_xrealloc(r->buf, r->cap);
            }
        }
        ssize_t got = fill(r, err);
        if (got < 0)
            return CDC_POLL_ERROR;
        if (got == 0)
            r->eof = true;
    }
    if (apply_limit(r, out, n0))
        r->done = true;
    return CDC_POLL_OK;
}

static void fsr_close(cdc_reader_t *base)
{
    fs_reader_t *r = (fs_reader_t *)base;
    if (!r)
        return;
    close_file(r);
    if (r->deser)
        r->deser->ops->destroy(r->deser);
    cdc_type_destroy(r->fmt_type);
    free(r->map);
    for (int i = 0; i < r->nfiles; i++)
        free(r->files[i]);
    free(r->files);
    free(r->fpart);
    for (int i = 0; i < r->nparts; i++) {
        free(r->parts[i].rel);
        cdc_kv_free(&r->parts[i].kv);
    }
    free(r->parts);
    cdc_arena_free(&r->arena);
    free(r->buf);
    set_free(&r->state);
    set_free(&r->queued);
    cdc_buf_free(&r->tmp);
    free(r);
}

static int fsr_commit_checkpoint(cdc_reader_t *base, uint64_t checkpoint, cdc_error_t **err)
{
    fs_reader_t *r = (fs_reader_t *)base;
    uint64_t before = r->checkpoint;
    r->checkpoint = checkpoint;
    if (fsr_commit(base, err) < 0) {
        r->checkpoint = before;
        return -1;
    }
    return 0;
}

static uint64_t fsr_last_checkpoint(cdc_reader_t *base)
{
    return ((fs_reader_t *)base)->checkpoint;
}

static const cdc_reader_ops_t fs_reader_ops = {
    .poll = fsr_poll,
    .commit = fsr_commit,
    .close = fsr_close,
};

/* Streaming readers keep state: they offer the source half of the two-phase commit. */
static const cdc_reader_ops_t fs_stream_reader_ops = {
    .poll = fsr_poll,
    .commit = fsr_commit,
    .close = fsr_close,
    .commit_checkpoint = fsr_commit_checkpoint,
    .last_checkpoint = fsr_last_checkpoint,
};

/* The format's row type (what is converted) and where each produced field comes from. */
static void plan_fields(fs_reader_t *r)
{
    fs_source_t *src = r->src;
    r->fmt_type = cdc_type_new_row();
    r->map = cdc_xcalloc((size_t)src->nproj + 1, sizeof(fs_field_t));
    for (int k = 0; k < src->nproj; k++)
        r->map[k].fmt = r->map[k].part = -1;
    int nf = 0;
    if (src->positional) { /* every data field, in table order */
        for (int i = 0; i < src->schema->nchildren; i++) {
            bool key = false;
            for (int j = 0; j < src->npkeys; j++)
                key = key || src->pkeys[j] == i;
            if (key)
                continue;
            cdc_type_row_add(r->fmt_type, src->schema->names[i],
                             cdc_type_copy(src->schema->children[i]));
            for (int k = 0; k < src->nproj; k++)
                if (src->proj[k] == i)
                    r->map[k].fmt = nf;
            nf++;
        }
    }
    for (int k = 0; k < src->nproj; k++) {
        int col = src->proj[k];
        for (int j = 0; j < src->npkeys; j++)
            if (src->pkeys[j] == col)
                r->map[k].part = j;
        if (r->map[k].part < 0 && !src->positional) {
            cdc_type_row_add(r->fmt_type, src->schema->names[col],
                             cdc_type_copy(src->schema->children[col]));
            r->map[k].fmt = nf++;
        }
    }
    r->identity = nf == src->nproj && src->nmd == 0;
    for (int k = 0; k < src->nproj && r->identity; k++)
        r->identity = r->map[k].fmt == k;
}

static int fss_open_reader(cdc_source_t *base, int split, int nsplits, cdc_reader_t **out,
                           cdc_error_t **err)
{
    fs_source_t *src = (fs_source_t *)base;
    if (nsplits < 1 || split < 0 || split >= nsplits)
        return cdc_error_set(err, CDC_ERR_INTERNAL, "filesystem: bad split %d of %d", split,
                             nsplits);
    fs_reader_t *r = cdc_xcalloc(1, sizeof(*r));
    r->base.ops = src->monitor_ms > 0 ? &fs_stream_reader_ops : &fs_reader_ops;
    r->src = src;
    r->split = split;
    r->nsplits = nsplits;
    r->fd = -1;
    r->cap = READ_CHUNK;
    r->buf = cdc_xmalloc(r->cap);
    cdc_arena_init(&r->arena);
    plan_fields(r);
    cdc_format_ctx_t fctx = {.cfg = src->fmt_cfg, .row_type = r->fmt_type, .table = src->name};
    if (src->fmt->deser_new(&fctx, &r->deser, err) < 0) {
        r->deser = NULL;
        fsr_close(&r->base);
        return -1;
    }
    if (src->monitor_ms > 0) {
        if (load_state(r, err) < 0 || rescan(r, err) < 0) {
            fsr_close(&r->base);
            return -1;
        }
        /* a file whose position was committed goes first: it was being read */
        for (int i = 0; i < r->nfiles; i++) {
            int64_t off, line;
            if (set_get(&r->state, r->files[i], &off, &line) && off > 0 && i > 0) {
                char *f = r->files[i];
                int p = r->fpart[i];
                memmove(&r->files[1], &r->files[0], sizeof(char *) * (size_t)i);
                memmove(&r->fpart[1], &r->fpart[0], sizeof(int) * (size_t)i);
                r->files[0] = f;
                r->fpart[0] = p;
            }
        }
    } else {
        pthread_mutex_lock(&src->lock);
        int rc = ensure_listed(src, err);
        pthread_mutex_unlock(&src->lock);
        if (rc < 0) {
            fsr_close(&r->base);
            return -1;
        }
        int k = 0;
        for (int i = 0; i < src->listing.nfiles; i++) {
            const fs_file_t *f = &src->listing.files[i];
            if (!part_selected(src, &src->listing.parts[f->part]))
                continue;
            if (k++ % nsplits == split)
                add_file(r, f->rel, f->part);
        }
    }
    *out = &r->base;
    return 0;
}

static void fss_destroy(cdc_source_t *base)
{
    fs_source_t *src = (fs_source_t *)base;
    if (!src)
        return;
    free(src->name);
    free(src->path);
    free(src->default_name);
    free(src->state_dir);
    cdc_type_destroy(src->schema);
    cdc_type_destroy((cdc_type_t *)src->base.produced);
    free(src->pkeys);
    if (src->listed)
        fs_listing_free(&src->listing);
    for (int i = 0; i < src->napplied; i++)
        cdc_kv_free(&src->applied[i]);
    free(src->applied);
    for (int i = 0; i < src->nfilters; i++)
        free(src->filters[i].text);
    free(src->filters);
    cdc_arena_free(&src->arena);
    free(src->proj);
    pthread_mutex_destroy(&src->lock);
    free(src);
}

static const cdc_source_ops_t fs_bounded_ops = {
    .changelog_mode = fss_changelog_mode,
    .list_partitions = fss_list_partitions,
    .apply_partitions = fss_apply_partitions,
    .apply_filters = fss_apply_filters,
    .apply_projection = fss_apply_projection,
    .apply_limit = fss_apply_limit,
    .apply_metadata = fss_apply_metadata,
    .open_reader = fss_open_reader,
    .report_row_count = fss_report_row_count,
    .describe = fss_describe,
    .destroy = fss_destroy,
};

/* Unbounded: partitions appear while it runs, so they are chosen by filters, not by a list. */
static const cdc_source_ops_t fs_streaming_ops = {
    .changelog_mode = fss_changelog_mode,
    .apply_filters = fss_apply_filters,
    .apply_projection = fss_apply_projection,
    .apply_limit = fss_apply_limit,
    .apply_metadata = fss_apply_metadata,
    .open_reader = fss_open_reader,
    .describe = fss_describe,
    .destroy = fss_destroy,
};

int fs_source_new(const cdc_table_ctx_t *ctx, cdc_source_t **out, cdc_error_t **err)
{
    const cdc_table_format_t *tf = cdc_table_format(ctx, "format");
    if (!tf || !tf->factory->deser_new)
        return cdc_error_set(err, CDC_ERR_OPTION,
                             "format \"%s\" cannot decode files of table "
                             "\"%s\"",
                             tf ? tf->factory->identifier : "?", ctx->name);
    fs_source_t *src = cdc_xcalloc(1, sizeof(*src));
    if (fs_table_keys(ctx, &src->pkeys, err) < 0) {
        free(src);
        return -1;
    }
    src->npkeys = ctx->npartition_keys;
    src->monitor_ms = cdc_config_isset(ctx->cfg, "source.monitor-interval")
                          ? cdc_config_duration_ms(ctx->cfg, "source.monitor-interval")
                          : 0;
    if (cdc_config_isset(ctx->cfg, "source.monitor-interval") && src->monitor_ms <= 0)
        src->monitor_ms = 1;
    src->base.ops = src->monitor_ms > 0 ? &fs_streaming_ops : &fs_bounded_ops;
    pthread_mutex_init(&src->lock, NULL);
    src->name = cdc_xstrdup(ctx->name ? ctx->name : "?");
    src->path = cdc_xstrdup(cdc_config_str(ctx->cfg, "path"));
    src->default_name = cdc_xstrdup(cdc_config_str(ctx->cfg, "partition.default-name"));
    const char *sp = cdc_config_str(ctx->cfg, "source.state-path");
    src->state_dir =
        sp ? cdc_xstrdup(sp) : cdc_strdup_printf("%s/_cdcflow_state/%s", src->path, src->name);
    src->schema = cdc_type_copy(ctx->schema);
    src->fmt = tf->factory;
    src->fmt_cfg = tf->cfg;
    src->positional = strcmp(tf->factory->identifier, "csv") == 0;
    src->mode = tf->factory->decode_mode ? tf->factory->decode_mode(tf->cfg) : CDC_MODE_INSERT_ONLY;
    src->limit = -1;
    cdc_arena_init(&src->arena);
    atomic_init(&src->emitted, 0);
    src->nproj = src->schema->nchildren;
    src->proj = cdc_xmalloc(sizeof(int) * (size_t)(src->nproj + 1));
    for (int i = 0; i < src->nproj; i++)
        src->proj[i] = i;
    const char *commit = cdc_config_str(ctx->cfg, "sink.partition-commit.policy.kind");
    src->t = (fs_table_t){.name = src->name,
                          .path = src->path,
                          .schema = src->schema,
                          .pkeys = src->pkeys,
                          .npkeys = src->npkeys,
                          .default_name = src->default_name,
                          .catalog_only =
                              commit && (strstr(commit, "catalog") || strstr(commit, "metastore"))};
    rebuild_produced(src);
    *out = &src->base;
    return 0;
}
