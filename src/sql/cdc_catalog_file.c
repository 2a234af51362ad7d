/*
 * cdc_catalog_file.c — file catalogs (see "File catalogs" in cdc_catalog.h):
 * paths and file names, atomic writes, the directory lock, and reading the
 * DDL files of a catalog directory into the model (re-read when .version
 * changes); also creating in-memory and file catalogs.
 */
#include "cdc_catalog_int.h"
#include "cdc_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cdc_util.h"

/* ---- file catalogs: paths, files, locks --------------------------------------------------------
 */

/* File names: every byte outside [A-Za-z0-9_-] as %XX. */
static char *enc_name(const char *s)
{
    cdc_buf_t b = {0};
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            *p == '_' || *p == '-')
            cdc_buf_putc(&b, (char)*p);
        else
            cdc_buf_printf(&b, "%%%02X", *p);
    }
    return cdc_cat_buf_take(&b);
}

/* Decodes @p n bytes of an encoded name; NULL when it is not one. */
static char *dec_name(const char *s, size_t n)
{
    if (n == 0)
        return NULL;
    char *out = cdc_xmalloc(n + 1);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '%') {
            if (i + 2 >= n || cdc_hex_digit(s[i + 1]) < 0 || cdc_hex_digit(s[i + 2]) < 0) {
                free(out);
                return NULL;
            }
            int v = cdc_hex_digit(s[i + 1]) * 16 + cdc_hex_digit(s[i + 2]);
            if (v == 0) {
                free(out);
                return NULL;
            }
            out[w++] = (char)v;
            i += 2;
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '_' || c == '-') {
            out[w++] = c;
        } else {
            free(out);
            return NULL;
        }
    }
    out[w] = '\0';
    return out;
}

static const char *kind_ext(obj_kind_t kind)
{
    return kind == OBJ_TABLE ? ".table.sql" : kind == OBJ_VIEW ? ".view.sql" : ".function.sql";
}

char *cdc_cat_db_path(const ctlg_t *k, const char *db)
{
    char *e = enc_name(db);
    char *p = cdc_strdup_printf("%s/%s", k->dir, e);
    free(e);
    return p;
}

char *cdc_cat_obj_file_name(obj_kind_t kind, const char *name)
{
    char *e = enc_name(name);
    char *p = cdc_strdup_printf("%s%s", e, kind_ext(kind));
    free(e);
    return p;
}

/* Reads a whole file; NULL with *err, or NULL with errno ENOENT and no error when missing and
 * @p missing_ok. */
static char *read_all(const char *path, bool missing_ok, cdc_error_t **err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (missing_ok && errno == ENOENT)
            return NULL;
        cdc_error_set(err, CDC_ERR_IO, "could not open \"%s\": %s", path, strerror(errno));
        return NULL;
    }
    cdc_buf_t b = {0};
    char chunk[8192];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            cdc_error_set(err, CDC_ERR_IO, "could not read \"%s\": %s", path, strerror(errno));
            close(fd);
            cdc_buf_free(&b);
            return NULL;
        }
        if (n == 0)
            break;
        cdc_buf_append(&b, chunk, (size_t)n);
    }
    close(fd);
    return cdc_cat_buf_take(&b);
}

void cdc_cat_fsync_dir(const char *dir)
{
    cdc_file_fsync_dir(dir, NULL);
}

/* Writes DIR/NAME atomically: a temporary file, fsync, rename, fsync of the directory. */
int cdc_cat_write_atomic(const char *dir, const char *name, const char *data, cdc_error_t **err)
{
    char *dst = cdc_strdup_printf("%s/%s", dir, name);
    int rc = cdc_file_write_atomic(dst, data, strlen(data), err);
    free(dst);
    return rc;
}

static int mkdir_p(const char *path, cdc_error_t **err)
{
    char *p = cdc_xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0755) < 0 && errno != EEXIST) {
            cdc_error_set(err, CDC_ERR_IO, "could not create directory \"%s\": %s", p,
                          strerror(errno));
            free(p);
            return -1;
        }
        *s = '/';
    }
    int rc = 0;
    if (mkdir(p, 0755) < 0 && errno != EEXIST) {
        cdc_error_set(err, CDC_ERR_IO, "could not create directory \"%s\": %s", p, strerror(errno));
        rc = -1;
    }
    free(p);
    return rc;
}

static int ctlg_lock(ctlg_t *k, int mode, cdc_error_t **err)
{
    if (k->type != CTLG_FILE || k->lock_fd < 0) /* no lock file: a dry run reading */
        return 0;
    if (k->lock_depth++ > 0)
        return 0; /* already held: exclusive covers shared */
    while (flock(k->lock_fd, mode) < 0) {
        if (errno == EINTR)
            continue;
        k->lock_depth--;
        return cdc_error_set(err, CDC_ERR_IO, "could not lock \"%s/.lock\": %s", k->dir,
                             strerror(errno));
    }
    return 0;
}

static void ctlg_unlock(ctlg_t *k)
{
    if (k->type != CTLG_FILE || k->lock_fd < 0)
        return;
    if (--k->lock_depth == 0)
        flock(k->lock_fd, LOCK_UN);
}

static char *read_version(const ctlg_t *k, cdc_error_t **err)
{
    char *path = cdc_strdup_printf("%s/.version", k->dir);
    cdc_error_t *e = NULL;
    char *v = read_all(path, true, &e);
    free(path);
    if (!v && e) {
        if (err) {
            cdc_error_destroy(*err);
            *err = e;
        } else {
            cdc_error_destroy(e);
        }
        return NULL;
    }
    return v ? v : cdc_xstrdup("0\n");
}

/* ---- file catalogs: reading --------------------------------------------------------------- */

/* Wraps the error of a catalog file that does not load. */
static void file_error(cdc_error_t **err, const ctlg_t *k, const char *path)
{
    cdc_error_t *inner = *err;
    cdc_error_t *e =
        cdc_error_new(CDC_ERR_CATALOG, "catalog \"%s\": file \"%s\" does not load", k->name, path);
    if (inner) {
        if (inner->detail)
            cdc_error_set_detail(e, "%s\n%s", inner->message, inner->detail);
        else
            cdc_error_set_detail(e, "%s", inner->message);
        cdc_error_destroy(inner);
    }
    cdc_error_set_hint(e, "cdcflow writes these files itself; restore the file from a backup, or "
                          "remove it to drop the object");
    *err = e;
}

/* Builds the object stored in a catalog file (@p content, read from @p path). */
static obj_t *obj_from_file(cdc_catalog_t *cat, ctlg_t *k, const char *dbname, obj_kind_t kind,
                            const char *name, const char *path, const char *content,
                            cdc_error_t **err)
{
    cdc_sql_script_t *script = NULL;
    obj_t *o = NULL;
    src_t s = {content, strlen(content), path};
    if (cdc_sql_parse(content, s.len, path, &script, err) < 0)
        goto fail;
    static const cdc_sql_stmt_kind_t want[] = {
        [OBJ_TABLE] = CDC_SQL_STMT_CREATE_TABLE,
        [OBJ_VIEW] = CDC_SQL_STMT_CREATE_VIEW,
        [OBJ_FUNCTION] = CDC_SQL_STMT_CREATE_FUNCTION,
    };
    if (script->count != 1 || script->stmts[0]->kind != want[kind]) {
        cdc_error_set(err, CDC_ERR_CATALOG, "expected one %s statement",
                      cdc_sql_stmt_kind_name(want[kind]));
        goto fail;
    }
    const cdc_sql_stmt_t *st = script->stmts[0];
    const cdc_sql_name_t *nm = kind == OBJ_TABLE  ? &st->create_table.name
                               : kind == OBJ_VIEW ? &st->create_view.name
                                                  : &st->create_function.name;
    bool temporary = kind == OBJ_TABLE  ? st->create_table.temporary
                     : kind == OBJ_VIEW ? st->create_view.temporary
                                        : st->create_function.temporary;
    char *stored = nm->nparts ? (kind == OBJ_FUNCTION ? cdc_cat_lower_dup(nm->parts[nm->nparts - 1])
                                                      : cdc_xstrdup(nm->parts[nm->nparts - 1]))
                              : cdc_xstrdup("");
    bool same = nm->nparts == 1 && strcmp(stored, name) == 0;
    free(stored);
    if (!same) {
        cdc_cat_fail_at(
            err, CDC_ERR_CATALOG, &s, nm->line, nm->col,
            "the statement must name the object \"%s\" (one part, as the file name says)", name);
        goto fail;
    }
    if (temporary) {
        cdc_cat_fail_at(err, CDC_ERR_CATALOG, &s, st->line, st->col,
                        "a catalog file cannot hold a temporary object");
        goto fail;
    }
    ident_t id = {k->name, dbname, name, NULL,
                  cdc_strdup_printf("%s.%s.%s", k->name, dbname, name)};
    if (kind == OBJ_TABLE) {
        if (st->create_table.like) {
            cdc_cat_fail_at(err, CDC_ERR_CATALOG, &s, st->create_table.like->line,
                            st->create_table.like->col, "a catalog file cannot use LIKE");
            cdc_cat_ident_free(&id);
            goto fail;
        }
        cdc_table_def_t *t = cdc_cat_build_table(cat, &st->create_table, &s, &id, err);
        if (t) {
            t->ddl = cdc_xstrdup(content);
            o = cdc_cat_obj_table(t);
        }
    } else if (kind == OBJ_VIEW) {
        cdc_view_def_t *v = cdc_cat_build_view(cat, &st->create_view, &s, &id, true, err);
        if (v) {
            v->ddl = cdc_xstrdup(content);
            o = cdc_cat_obj_view(v);
        }
    } else {
        if (st->create_function.system) {
            cdc_cat_fail_at(err, CDC_ERR_CATALOG, &s, st->line, st->col,
                            "a catalog file cannot hold a system function");
            cdc_cat_ident_free(&id);
            goto fail;
        }
        cdc_function_def_t *f = cdc_cat_build_function(&st->create_function, &s, &id, false, err);
        if (f) {
            f->ddl = cdc_xstrdup(content);
            o = cdc_cat_obj_function(f);
        }
    }
    cdc_cat_ident_free(&id);
    if (!o)
        goto fail;
    o->file_text = cdc_xstrdup(content);
    cdc_sql_script_destroy(script);
    return o;
fail:
    cdc_sql_script_destroy(script);
    file_error(err, k, path);
    return NULL;
}

/* Reads one database directory into @p db, reusing unchanged objects of @p old. */
static int load_db_dir(cdc_catalog_t *cat, ctlg_t *k, db_t *db, const db_t *old, const char *dpath,
                       cdc_error_t **err)
{
    char *dbfile = cdc_strdup_printf("%s/.database.sql", dpath);
    char *content = read_all(dbfile, true, err);
    if (!content && *err) {
        free(dbfile);
        return -1;
    }
    if (content) {
        cdc_sql_script_t *script = NULL;
        if (cdc_sql_parse(content, strlen(content), dbfile, &script, err) < 0 ||
            script->count != 1 || script->stmts[0]->kind != CDC_SQL_STMT_CREATE_DATABASE) {
            if (!*err)
                cdc_error_set(err, CDC_ERR_CATALOG, "expected one CREATE DATABASE statement");
            cdc_sql_script_destroy(script);
            file_error(err, k, dbfile);
            free(content);
            free(dbfile);
            return -1;
        }
        const cdc_sql_create_database_t *cd = &script->stmts[0]->create_database;
        db->comment = cdc_cat_dup_or_null(cd->comment);
        for (size_t i = 0; i < cd->options.count; i++)
            cdc_kv_set(&db->options, cd->options.items[i].key, cd->options.items[i].value);
        cdc_sql_script_destroy(script);
        free(content);
    }
    free(dbfile);

    DIR *dir = opendir(dpath);
    if (!dir)
        return cdc_error_set(err, CDC_ERR_IO, "could not read directory \"%s\": %s", dpath,
                             strerror(errno));
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(dir)) != NULL) {
        const char *fn = de->d_name;
        if (fn[0] == '.')
            continue;
        obj_kind_t kind = 0;
        size_t fl = strlen(fn), base = 0;
        for (obj_kind_t kk = OBJ_TABLE; kk <= OBJ_FUNCTION; kk++) {
            size_t el = strlen(kind_ext(kk));
            if (fl > el && strcmp(fn + fl - el, kind_ext(kk)) == 0) {
                kind = kk;
                base = fl - el;
            }
        }
        if (!kind)
            continue;
        char *name = dec_name(fn, base);
        if (!name)
            continue;
        char *path = cdc_strdup_printf("%s/%s", dpath, fn);
        char *text = read_all(path, true, err);
        if (!text) {
            rc = *err ? -1 : 0; /* removed meanwhile: ignore */
            free(path);
            free(name);
            continue;
        }
        obj_t *o = NULL;
        int oi = old ? cdc_cat_db_obj_index(old, name, kind == OBJ_FUNCTION) : -1;
        if (oi >= 0 && old->objs[oi]->kind == kind && old->objs[oi]->file_text &&
            strcmp(old->objs[oi]->file_text, text) == 0) {
            o = old->objs[oi];
            o->reused = true;
        } else {
            o = obj_from_file(cat, k, db->name, kind, name, path, text, err);
            if (!o)
                rc = -1;
        }
        if (o)
            cdc_cat_push_obj(&db->objs, &db->nobjs, o);
        free(text);
        free(path);
        free(name);
    }
    closedir(dir);
    return rc;
}

/* Re-reads a file catalog's directory (the caller holds its lock). Objects that did not change
 * keep their address; replaced and removed ones are buried. On failure nothing changes. */
static int ctlg_reload(cdc_catalog_t *cat, ctlg_t *k, const char *version, cdc_error_t **err)
{
    DIR *dir = opendir(k->dir);
    if (!dir)
        return cdc_error_set(err, CDC_ERR_IO, "could not read directory \"%s\": %s", k->dir,
                             strerror(errno));
    for (int i = 0; i < k->ndbs; i++)
        for (int j = 0; j < k->dbs[i]->nobjs; j++)
            k->dbs[i]->objs[j]->reused = false;
    db_t **dbs = NULL;
    int ndbs = 0, rc = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(dir)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char *name = dec_name(de->d_name, strlen(de->d_name));
        if (!name)
            continue;
        char *dpath = cdc_strdup_printf("%s/%s", k->dir, de->d_name);
        struct stat st;
        if (stat(dpath, &st) == 0 && S_ISDIR(st.st_mode)) {
            db_t *db = cdc_cat_db_new(name);
            rc = load_db_dir(cat, k, db, cdc_cat_find_db(k, name), dpath, err);
            dbs = cdc_xrealloc(dbs, sizeof(*dbs) * (size_t)(ndbs + 1));
            dbs[ndbs++] = db;
        }
        free(dpath);
        free(name);
    }
    closedir(dir);
    if (rc < 0) {
        for (int i = 0; i < ndbs; i++) {
            for (int j = 0; j < dbs[i]->nobjs; j++)
                if (dbs[i]->objs[j]->reused)
                    dbs[i]->objs[j] = NULL; /* still owned by the old state */
            for (int j = 0; j < dbs[i]->nobjs; j++)
                cdc_cat_obj_free(dbs[i]->objs[j]);
            dbs[i]->nobjs = 0;
            cdc_cat_db_free(NULL, dbs[i]);
        }
        free(dbs);
        return -1;
    }
    for (int i = 0; i < k->ndbs; i++) {
        db_t *db = k->dbs[i];
        for (int j = 0; j < db->nobjs; j++)
            if (!db->objs[j]->reused)
                cdc_cat_bury(cat, db->objs[j]);
        db->nobjs = 0;
        cdc_cat_db_free(cat, db);
    }
    free(k->dbs);
    k->dbs = dbs;
    k->ndbs = ndbs;
    free(k->version);
    k->version = cdc_xstrdup(version);
    return 0;
}

/* Brings a file catalog up to date when another process (or catalog) wrote to it. */
int cdc_cat_ctlg_sync(cdc_catalog_t *cat, ctlg_t *k, cdc_error_t **err)
{
    if (k->type != CTLG_FILE || k->reloading)
        return 0;
    char *v = read_version(k, err);
    if (!v)
        return -1;
    if (k->version && strcmp(v, k->version) == 0) {
        free(v);
        return 0;
    }
    free(v);
    if (ctlg_lock(k, LOCK_SH, err) < 0)
        return -1;
    int rc = -1;
    v = read_version(k, err);
    if (v && k->version && strcmp(v, k->version) == 0) {
        rc = 0;
    } else if (v) {
        k->reloading = true;
        rc = ctlg_reload(cat, k, v, err);
        k->reloading = false;
        /* types of computed columns that call functions of this catalog, now that all of it is
         * read */
        for (int i = 0; rc == 0 && i < k->ndbs; i++)
            for (int j = 0; j < k->dbs[i]->nobjs; j++) {
                obj_t *o = k->dbs[i]->objs[j];
                if (o->kind != OBJ_TABLE || o->reused)
                    continue;
                for (int c = 0; c < o->table->ncolumns; c++) {
                    cdc_column_def_t *col = &o->table->columns[c];
                    if (col->kind == CDC_COLUMN_COMPUTED && !col->type)
                        col->type = cdc_cat_derive_type(cat, o->table, col->expr);
                }
            }
    }
    free(v);
    ctlg_unlock(k);
    return rc;
}

/* Starts a write: takes the exclusive lock and re-reads what changed. */
int cdc_cat_write_begin(cdc_catalog_t *cat, ctlg_t *k, cdc_error_t **err)
{
    if (k->type != CTLG_FILE)
        return 0;
    if (ctlg_lock(k, LOCK_EX, err) < 0)
        return -1;
    if (cdc_cat_ctlg_sync(cat, k, err) < 0) {
        ctlg_unlock(k);
        return -1;
    }
    return 0;
}

/* Ends a write: bumps .version when something changed, and unlocks. */
int cdc_cat_write_end(ctlg_t *k, bool changed, cdc_error_t **err)
{
    if (k->type != CTLG_FILE)
        return 0;
    int rc = 0;
    if (changed) {
        long long n = k->version ? atoll(k->version) : 0;
        char *v = cdc_strdup_printf("%lld\n", n + 1);
        rc = cdc_cat_write_atomic(k->dir, ".version", v, err);
        if (rc == 0) {
            free(k->version);
            k->version = v;
        } else {
            free(v);
        }
    }
    ctlg_unlock(k);
    return rc;
}

void cdc_cat_add_ctlg(cdc_catalog_t *cat, ctlg_t *k)
{
    cat->cats = cdc_xrealloc(cat->cats, sizeof(*cat->cats) * (size_t)(cat->ncats + 1));
    cat->cats[cat->ncats++] = k;
}

/* The dry run of cdc_cat_ctlg_open_file (cdcflow explain): reads what @p dir holds, if it
 * exists, creating and locking nothing, then keeps it as an in-memory catalog, so that later
 * DDL changes nothing on disk and a second run sees the directory unchanged. */
static int open_file_dry(cdc_catalog_t *cat, const char *name, const char *dir,
                         const char *default_db, cdc_error_t **err)
{
    ctlg_t *k = cdc_xcalloc(1, sizeof(*k));
    k->name = cdc_xstrdup(name);
    k->type = CTLG_FILE;
    k->dir = cdc_xstrdup(dir);
    k->default_db = cdc_xstrdup(default_db);
    k->lock_fd = -1;
    cdc_cat_add_ctlg(cat, k);
    struct stat st;
    if (stat(dir, &st) == 0) {
        char *lock = cdc_strdup_printf("%s/.lock", dir);
        /* shared-locked while reading; without a .lock no writer ever took it */
        k->lock_fd = open(lock, O_RDWR | O_CLOEXEC);
        free(lock);
        if (cdc_cat_ctlg_sync(cat, k, err) < 0) {
            cat->ncats--;
            cdc_cat_ctlg_free(cat, k);
            return -1;
        }
    }
    k->type = CTLG_IN_MEMORY;
    if (!cdc_cat_find_db(k, default_db)) {
        k->dbs = cdc_xrealloc(k->dbs, sizeof(*k->dbs) * (size_t)(k->ndbs + 1));
        k->dbs[k->ndbs++] = cdc_cat_db_new(default_db);
    }
    return 0;
}

/* Opens a file catalog in @p dir, creating the directory and the default database, and
 * registers it (first: reading it may resolve functions of the catalog itself). In a dry run
 * (cdcflow explain) nothing is created: see open_file_dry. */
int cdc_cat_ctlg_open_file(cdc_catalog_t *cat, const char *name, const char *dir,
                           const char *default_db, cdc_error_t **err)
{
    if (cat->dry_run)
        return open_file_dry(cat, name, dir, default_db, err);
    if (mkdir_p(dir, err) < 0)
        return -1;
    ctlg_t *k = cdc_xcalloc(1, sizeof(*k));
    k->name = cdc_xstrdup(name);
    k->type = CTLG_FILE;
    k->dir = cdc_xstrdup(dir);
    k->default_db = cdc_xstrdup(default_db);
    char *lock = cdc_strdup_printf("%s/.lock", dir);
    k->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (k->lock_fd < 0) {
        cdc_error_set(err, CDC_ERR_IO, "could not open \"%s\": %s", lock, strerror(errno));
        free(lock);
        cdc_cat_ctlg_free(NULL, k);
        return -1;
    }
    free(lock);
    cdc_cat_add_ctlg(cat, k);
    if (cdc_cat_write_begin(cat, k, err) < 0)
        goto fail;
    bool created = false;
    if (!cdc_cat_find_db(k, default_db)) {
        char *dpath = cdc_cat_db_path(k, default_db);
        if (mkdir(dpath, 0755) < 0 && errno != EEXIST) {
            cdc_error_set(err, CDC_ERR_IO, "could not create directory \"%s\": %s", dpath,
                          strerror(errno));
            free(dpath);
            cdc_cat_write_end(k, false, NULL);
            goto fail;
        }
        cdc_cat_fsync_dir(k->dir);
        free(dpath);
        k->dbs = cdc_xrealloc(k->dbs, sizeof(*k->dbs) * (size_t)(k->ndbs + 1));
        k->dbs[k->ndbs++] = cdc_cat_db_new(default_db);
        created = true;
    }
    if (cdc_cat_write_end(k, created, err) < 0)
        goto fail;
    return 0;
fail:
    cat->ncats--;
    cdc_cat_ctlg_free(cat, k);
    return -1;
}

ctlg_t *cdc_cat_ctlg_new_memory(const char *name, const char *default_db)
{
    ctlg_t *k = cdc_xcalloc(1, sizeof(*k));
    k->name = cdc_xstrdup(name);
    k->type = CTLG_IN_MEMORY;
    k->default_db = cdc_xstrdup(default_db);
    k->lock_fd = -1;
    k->dbs = cdc_xcalloc(1, sizeof(*k->dbs));
    k->dbs[k->ndbs++] = cdc_cat_db_new(default_db);
    return k;
}
