/*
 * fs_path.c — Hive-style partition paths for the filesystem connector:
 * escaping as Hive's FileUtils.escapePathName, listing a table directory into
 * typed partitions and files, and the small file helpers (atomic writes,
 * directory fsync) the sink and the streaming source's state rely on.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "fs_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cdc_json.h" /* cdc_json_convert_scalar: partition values from their text */

/* ---- escaping ------------------------------------------------------------------------------ */

/* Hive's FileUtils.charToEscape: controls, '"#%'*\/:=?\\', DEL, '{[]^'. */
static bool must_escape(unsigned char c)
{
    return (c >= 0x01 && c <= 0x1F) || c == 0x7F || strchr("\"#%'*/:=?\\{[]^", c) != NULL;
}

void fs_escape(cdc_buf_t *out, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c && must_escape(c)) {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            cdc_buf_append(out, e, 3);
        } else {
            cdc_buf_putc(out, (char)c);
        }
    }
}

char *fs_unescape(const char *s, size_t n)
{
    char *out = cdc_xmalloc(n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && cdc_hex_digit(s[i + 1]) >= 0 &&
            cdc_hex_digit(s[i + 2]) >= 0) {
            out[k++] = (char)(cdc_hex_digit(s[i + 1]) << 4 | cdc_hex_digit(s[i + 2]));
            i += 2;
        } else {
            out[k++] = s[i];
        }
    }
    out[k] = '\0';
    return out;
}

bool fs_hidden(const char *name)
{
    return name[0] == '.' || name[0] == '_';
}

/* ---- small file helpers ---------------------------------------------------------------------- */

static int io_error(cdc_error_t **err, const char *what, const char *path)
{
    return cdc_error_set(err, CDC_ERR_IO, "could not %s \"%s\": %s", what, path, strerror(errno));
}

int fs_mkdirs(const char *dir, cdc_error_t **err)
{
    char *p = cdc_xstrdup(dir);
    for (char *q = p + 1; *q; q++) {
        if (*q != '/')
            continue;
        *q = '\0';
        if (mkdir(p, 0777) < 0 && errno != EEXIST) {
            io_error(err, "create directory", p);
            free(p);
            return -1;
        }
        *q = '/';
    }
    int rc = 0;
    if (mkdir(p, 0777) < 0 && errno != EEXIST)
        rc = io_error(err, "create directory", p);
    free(p);
    return rc;
}

void fs_random_id(char buf[33])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char b[16];
    size_t got = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t r = read(fd, b, sizeof(b));
        got = r > 0 ? (size_t)r : 0;
        close(fd);
    }
    if (got < sizeof(b)) { /* no /dev/urandom: time and pid, still unique enough per run */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)getpid();
        for (size_t i = 0; i < sizeof(b); i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            b[i] = (unsigned char)(x >> 56);
        }
    }
    for (int i = 0; i < 16; i++) {
        buf[2 * i] = hex[b[i] >> 4];
        buf[2 * i + 1] = hex[b[i] & 15];
    }
    buf[32] = '\0';
}

/* ---- values ------------------------------------------------------------------------------------
 */

/* ---- listing -----------------------------------------------------------------------------------
 */

typedef struct dirent_list_s {
    char **names;
    bool *is_dir;
    int64_t *size;
    int n;
} dirent_list_t;

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void dl_free(dirent_list_t *d)
{
    for (int i = 0; i < d->n; i++)
        free(d->names[i]);
    free(d->names);
    free(d->is_dir);
    free(d->size);
    memset(d, 0, sizeof(*d));
}

/* Visible entries of dir, sorted by name. A missing dir is empty (returns 1). */
static int list_dir(const char *dir, dirent_list_t *out, cdc_error_t **err)
{
    memset(out, 0, sizeof(*out));
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT)
            return 1;
        return io_error(err, "list directory", dir);
    }
    char **names = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (fs_hidden(e->d_name))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            names = cdc_xrealloc(names, sizeof(char *) * (size_t)cap);
        }
        names[n++] = cdc_xstrdup(e->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, (size_t)n, sizeof(char *), cmp_names);
    out->names = names;
    out->n = n;
    out->is_dir = cdc_xcalloc((size_t)n + 1, sizeof(bool));
    out->size = cdc_xcalloc((size_t)n + 1, sizeof(int64_t));
    for (int i = 0; i < n; i++) {
        char *full = cdc_strdup_printf("%s/%s", dir, names[i]);
        struct stat st;
        if (stat(full, &st) == 0) {
            out->is_dir[i] = S_ISDIR(st.st_mode);
            out->size[i] = (int64_t)st.st_size;
        } else {
            out->size[i] = -1; /* vanished (a concurrent overwrite): skipped */
        }
        free(full);
    }
    return 0;
}

typedef struct walk_s {
    const fs_table_t *t;
    fs_listing_t *l;
    cdc_buf_t rel;
    cdc_kv_t kv;
    cdc_value_t *vals;         /* being filled, one per key */
    const cdc_kv_t *committed; /* catalog_only: the committed partitions' rel paths */
} walk_t;

static int add_part(walk_t *w)
{
    fs_listing_t *l = w->l;
    l->parts = cdc_xrealloc(l->parts, sizeof(fs_part_t) * (size_t)(l->nparts + 1));
    fs_part_t *p = &l->parts[l->nparts++];
    memset(p, 0, sizeof(*p));
    size_t n = w->rel.len; /* without the trailing '/' */
    if (n && w->rel.data[n - 1] == '/')
        n--;
    p->rel = cdc_xstrndup(w->rel.data ? w->rel.data : "", n);
    cdc_kv_copy(&p->kv, &w->kv);
    int nk = w->t->npkeys;
    p->vals = cdc_arena_alloc(&l->arena, sizeof(cdc_value_t) * (size_t)(nk ? nk : 1));
    for (int k = 0; k < nk; k++)
        p->vals[k] = w->vals[k];
    p->kept = true;
    return l->nparts - 1;
}

/* Types one partition value; strings are copied into the listing's arena. */
static int type_value(walk_t *w, int k, const char *dirname, const char *text, cdc_error_t **err)
{
    const fs_table_t *t = w->t;
    cdc_value_t *out = &w->vals[k];
    memset(out, 0, sizeof(*out));
    if (strcmp(text, t->default_name) == 0) {
        out->flags = CDC_V_NULL;
        return 0;
    }
    cdc_type_t *ty = cdc_type_copy(t->schema->children[t->pkeys[k]]);
    ty->nullable = true;
    char eb[160];
    int rc = cdc_json_convert_scalar(ty, 's', text, strlen(text), false, &w->l->arena, out, eb,
                                     sizeof(eb));
    cdc_type_destroy(ty);
    if (rc < 0) {
        cdc_error_t *e =
            cdc_error_new(CDC_ERR_PARSE, "partition directory \"%s/%s%s\" of table \"%s\": %s",
                          t->path, cdc_buf_cstr(&w->rel), dirname, t->name, eb);
        cdc_error_set_hint(e,
                           "partition values must parse as their column's type; NULL is "
                           "written as \"%s\" (option partition.default-name)",
                           t->default_name);
        if (err) {
            cdc_error_destroy(*err);
            *err = e;
        } else {
            cdc_error_destroy(e);
        }
        return -1;
    }
    return 0;
}

static int walk(walk_t *w, const char *dir, int depth, cdc_error_t **err)
{
    const fs_table_t *t = w->t;
    dirent_list_t d;
    int rc = list_dir(dir, &d, err);
    if (rc < 0)
        return -1;
    if (rc == 1)
        return 0;
    size_t rel_len = w->rel.len;
    int part = -1;
    rc = 0;
    for (int i = 0; i < d.n && rc == 0; i++) {
        if (d.size[i] < 0)
            continue;
        const char *name = d.names[i];
        if (depth < t->npkeys) {
            if (!d.is_dir[i])
                continue; /* stray files beside partition directories are not data (as Hive) */
            const char *key = t->schema->names[t->pkeys[depth]];
            size_t kl = strlen(key);
            if (strncmp(name, key, kl) != 0 || name[kl] != '=') {
                cdc_error_t *e =
                    cdc_error_new(CDC_ERR_PARSE,
                                  "directory \"%s/%s\" of table \"%s\" is not a partition "
                                  "directory \"%s=...\"",
                                  dir, name, t->name, key);
                cdc_error_set_hint(e, "the table is PARTITIONED BY its directories in order; "
                                      "rename or hide (prefix with '_' or '.') other directories");
                if (err) {
                    cdc_error_destroy(*err);
                    *err = e;
                } else {
                    cdc_error_destroy(e);
                }
                rc = -1;
                break;
            }
            char *val = fs_unescape(name + kl + 1, strlen(name + kl + 1));
            if (type_value(w, depth, name, val, err) < 0) {
                free(val);
                rc = -1;
                break;
            }
            cdc_kv_set(&w->kv, key, val);
            free(val);
            cdc_buf_puts(&w->rel, name);
            char *sub = cdc_strdup_printf("%s/%s", dir, name);
            if (depth + 1 == t->npkeys) {
                bool ok = true;
                if (w->committed) {
                    ok = cdc_kv_get(w->committed, cdc_buf_cstr(&w->rel)) != NULL;
                }
                cdc_buf_putc(&w->rel, '/');
                if (ok)
                    rc = walk(w, sub, depth + 1, err);
            } else {
                cdc_buf_putc(&w->rel, '/');
                rc = walk(w, sub, depth + 1, err);
            }
            free(sub);
            w->rel.len = rel_len;
            cdc_kv_remove(&w->kv, key);
            continue;
        }
        if (d.is_dir[i])
            continue; /* below the last partition level only files are data */
        if (part < 0)
            part = add_part(w);
        fs_listing_t *l = w->l;
        l->files = cdc_xrealloc(l->files, sizeof(fs_file_t) * (size_t)(l->nfiles + 1));
        fs_file_t *f = &l->files[l->nfiles++];
        f->rel = cdc_strdup_printf("%.*s%s", (int)w->rel.len, w->rel.data ? w->rel.data : "", name);
        f->part = part;
        f->size = d.size[i];
    }
    /* a partition directory without files is still a partition (Hive lists it) */
    if (rc == 0 && depth == t->npkeys && depth > 0 && part < 0)
        add_part(w);
    dl_free(&d);
    return rc;
}

int fs_list(const fs_table_t *t, fs_listing_t *out, cdc_error_t **err)
{
    memset(out, 0, sizeof(*out));
    cdc_arena_init(&out->arena);
    walk_t w = {.t = t, .l = out};
    w.vals = cdc_xcalloc((size_t)t->npkeys + 1, sizeof(cdc_value_t));
    cdc_kv_t committed = {0};
    if (t->catalog_only && t->npkeys > 0) {
        char *cf = cdc_strdup_printf("%s/%s", t->path, FS_CATALOG_FILE);
        cdc_buf_t b = {0};
        int rc = cdc_file_read_all(cf, &b, err);
        free(cf);
        if (rc < 0) {
            cdc_buf_free(&b);
            free(w.vals);
            return -1;
        }
        const char *s = b.len ? cdc_buf_cstr(&b) : "";
        while (*s) {
            const char *e = strchr(s, '\n');
            size_t n = e ? (size_t)(e - s) : strlen(s);
            if (n) {
                char *line = cdc_xstrndup(s, n);
                cdc_kv_set(&committed, line, "");
                free(line);
            }
            s += n + (e ? 1 : 0);
        }
        cdc_buf_free(&b);
        w.committed = &committed;
    }
    int rc = walk(&w, t->path, 0, err);
    free(w.vals);
    cdc_buf_free(&w.rel);
    cdc_kv_free(&w.kv);
    cdc_kv_free(&committed);
    if (rc < 0) {
        fs_listing_free(out);
        return -1;
    }
    return 0;
}

void fs_listing_free(fs_listing_t *l)
{
    for (int i = 0; i < l->nparts; i++) {
        free(l->parts[i].rel);
        cdc_kv_free(&l->parts[i].kv);
    }
    free(l->parts);
    for (int i = 0; i < l->nfiles; i++)
        free(l->files[i].rel);
    free(l->files);
    cdc_arena_free(&l->arena);
    memset(l, 0, sizeof(*l));
}

/* ---- table helpers ------------------------------------------------------------------------------
 */

int fs_table_keys(const cdc_table_ctx_t *ctx, int **pkeys, cdc_error_t **err)
{
    int n = ctx->npartition_keys;
    int *k = cdc_xmalloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++) {
        k[i] = ctx->partition_keys[i];
        if (k[i] < 0 || k[i] >= ctx->schema->nchildren) {
            free(k);
            return cdc_error_set(err, CDC_ERR_INTERNAL, "filesystem: partition column %d of %d",
                                 ctx->partition_keys[i], ctx->schema->nchildren);
        }
        cdc_type_root_t r = ctx->schema->children[k[i]]->root;
        if (r == CDC_T_ARRAY || r == CDC_T_MAP || r == CDC_T_MULTISET || r == CDC_T_ROW ||
            r == CDC_T_BINARY || r == CDC_T_VARBINARY) {
            free(k);
            return cdc_error_set(err, CDC_ERR_PLAN,
                                 "partition column \"%s\" of table \"%s\" must have a scalar "
                                 "type that a directory name can hold",
                                 ctx->schema->names[ctx->partition_keys[i]], ctx->name);
        }
    }
    *pkeys = k;
    return 0;
}

cdc_type_t *fs_data_type(const cdc_type_t *schema, const int *pkeys, int npkeys, int **cols,
                         int *ncols)
{
    cdc_type_t *t = cdc_type_new_row();
    int *c = cdc_xmalloc(sizeof(int) * (size_t)(schema->nchildren + 1));
    int n = 0;
    for (int i = 0; i < schema->nchildren; i++) {
        bool is_key = false;
        for (int k = 0; k < npkeys; k++)
            is_key = is_key || pkeys[k] == i;
        if (is_key)
            continue;
        cdc_type_row_add(t, schema->names[i], cdc_type_copy(schema->children[i]));
        c[n++] = i;
    }
    *cols = c;
    *ncols = n;
    return t;
}
