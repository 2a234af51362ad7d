/*
 * cdc_catalog.c — catalogs, databases, tables, views and functions; temporary
 * objects that shadow permanent ones (FLIP-64); file catalogs that keep
 * permanent objects as DDL files (see cdc_catalog.h for the rules and layout).
 */
#include "cdc_catalog.h"
#include "cdc_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cdc_udf.h"
#include "cdc_util.h"

#define DEFAULT_CATALOG "default_catalog"
#define DEFAULT_DATABASE "default_database"

/* ---- errors and small helpers ------------------------------------------------------------------
 */

/* Where statements come from: the whole script, for positions and carets. */
typedef struct src {
    const char *text;
    size_t len;
    const char *filename;
} src_t;

static cdc_error_t *verror_at(cdc_errcode_t code, const src_t *s, int line, int col,
                              const char *fmt, va_list ap)
{
    char *msg = cdc_strdup_vprintf(fmt, ap);
    cdc_error_t *err =
        cdc_error_new(code, "%s:%d:%d: %s", s->filename ? s->filename : "<input>", line, col, msg);
    free(msg);
    if (s->text) {
        char *caret = cdc_sql_caret(s->text, s->len, line, col);
        cdc_error_set_detail(err, "%s", caret);
        free(caret);
    }
    return err;
}

cdc_error_t *cdc_sql_error_at(cdc_errcode_t code, const char *text, size_t len,
                              const char *filename, int line, int col, const char *fmt, ...)
{
    src_t s = {text, len, filename};
    va_list ap;
    va_start(ap, fmt);
    cdc_error_t *err = verror_at(code, &s, line, col, fmt, ap);
    va_end(ap);
    return err;
}

/* Stores a positioned error in *err and returns -1. */
static int fail_at(cdc_error_t **err, cdc_errcode_t code, const src_t *s, int line, int col,
                   const char *fmt, ...) CDC_PRINTF(6, 7);
static int fail_at(cdc_error_t **err, cdc_errcode_t code, const src_t *s, int line, int col,
                   const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cdc_error_t *e = verror_at(code, s, line, col, fmt, ap);
    va_end(ap);
    cdc_error_destroy(*err);
    *err = e;
    return -1;
}

/* Prepends @p first to the error's detail (keeping the caret below it). */
static void detail_prepend(cdc_error_t *err, const char *first)
{
    if (!first || !*first)
        return;
    if (err->detail) {
        char *d = cdc_strdup_printf("%s\n%s", first, err->detail);
        free(err->detail);
        err->detail = d;
    } else {
        err->detail = cdc_xstrdup(first);
    }
}

static void hint_closest(cdc_error_t *err, const char *word, const char *const *cands, int n)
{
    const char *sug = cdc_closest(word, cands, n);
    if (sug && strcmp(sug, word) != 0)
        cdc_error_set_hint(err, "did you mean \"%s\"?", sug);
}

static char *lower_dup(const char *s)
{
    char *p = cdc_xstrdup(s);
    for (char *q = p; *q; q++)
        if (*q >= 'A' && *q <= 'Z')
            *q = (char)(*q - 'A' + 'a');
    return p;
}

static char *dup_or_null(const char *s)
{
    return s ? cdc_xstrdup(s) : NULL;
}

/* A growable array of owned strings. */
typedef struct strv {
    char **v;
    int n, cap;
} strv_t;

static void strv_push(strv_t *sv, const char *s)
{
    if (sv->n + 1 >= sv->cap) {
        sv->cap = sv->cap ? sv->cap * 2 : 16;
        sv->v = cdc_xrealloc(sv->v, sizeof(char *) * (size_t)sv->cap);
    }
    sv->v[sv->n++] = cdc_xstrdup(s);
    sv->v[sv->n] = NULL;
}

static void strv_free(strv_t *sv)
{
    for (int i = 0; i < sv->n; i++)
        free(sv->v[i]);
    free(sv->v);
    memset(sv, 0, sizeof(*sv));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts and removes duplicates. */
static void strv_sort_unique(strv_t *sv)
{
    if (sv->n == 0)
        return;
    qsort(sv->v, (size_t)sv->n, sizeof(char *), cmp_str);
    int w = 1;
    for (int i = 1; i < sv->n; i++) {
        if (strcmp(sv->v[i], sv->v[w - 1]) == 0)
            free(sv->v[i]);
        else
            sv->v[w++] = sv->v[i];
    }
    sv->n = w;
    sv->v[w] = NULL;
}

void cdc_sql_put_ident(cdc_buf_t *out, const char *ident)
{
    cdc_buf_putc(out, '`');
    for (const char *p = ident; *p; p++) {
        if (*p == '`')
            cdc_buf_putc(out, '`');
        cdc_buf_putc(out, *p);
    }
    cdc_buf_putc(out, '`');
}

void cdc_sql_put_string(cdc_buf_t *out, const char *s)
{
    cdc_buf_putc(out, '\'');
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            cdc_buf_putc(out, '\'');
        cdc_buf_putc(out, *p);
    }
    cdc_buf_putc(out, '\'');
}

static char *buf_take(cdc_buf_t *b)
{
    char *s = cdc_xstrdup(cdc_buf_cstr(b));
    cdc_buf_free(b);
    return s;
}

/* ---- the model ----------------------------------------------------------------------------------
 */

typedef enum obj_kind { OBJ_TABLE = 1, OBJ_VIEW, OBJ_FUNCTION } obj_kind_t;

/* One table, view or function, permanent or temporary. */
typedef struct obj {
    obj_kind_t kind;
    const char *catalog, *database, *name; /* borrowed from the definition */
    char *file_text;                       /* file catalogs: the file's content */
    bool reused;                           /* scratch flag while re-reading a directory */
    union {
        cdc_table_def_t *table;
        cdc_view_def_t *view;
        cdc_function_def_t *fn;
    };
} obj_t;

typedef struct db {
    char *name;
    char *comment;
    cdc_kv_t options;
    obj_t **objs;
    int nobjs;
} db_t;

typedef enum ctlg_type { CTLG_IN_MEMORY = 1, CTLG_FILE } ctlg_type_t;

typedef struct ctlg {
    char *name;
    ctlg_type_t type;
    char *dir; /* file catalogs */
    char *default_db;
    cdc_kv_t options;
    db_t **dbs;
    int ndbs;
    char *version; /* file catalogs: .version when last read */
    int lock_fd;   /* file catalogs: DIR/.lock, else -1 */
    int lock_depth;
    bool reloading; /* lookups made while re-reading (type derivation) see the old state */
} ctlg_t;

struct cdc_catalog_s {
    ctlg_t **cats;
    int ncats;
    char *cur_cat, *cur_db;
    obj_t **temps; /* temporary tables, views and catalog functions */
    int ntemps;
    obj_t **sysfns; /* temporary system functions */
    int nsysfns;
    obj_t **graveyard; /* dropped or re-read objects: freed with the catalog */
    int ngrave;
};

static const char *const *builtin_names;

void cdc_catalog_set_builtin_functions(const char *const *names)
{
    builtin_names = names;
}

const char *const *cdc_catalog_builtin_functions(void)
{
    return builtin_names;
}

static bool is_builtin(const char *name)
{
    for (int i = 0; builtin_names && builtin_names[i]; i++)
        if (strcasecmp(builtin_names[i], name) == 0)
            return true;
    return false;
}

static void column_free(cdc_column_def_t *c)
{
    free(c->name);
    if (c->kind != CDC_COLUMN_PHYSICAL)
        cdc_type_destroy(c->type);
    cdc_sql_expr_destroy(c->expr);
    free(c->expr_text);
    free(c->metadata_key);
    free(c->comment);
}

static void table_free(cdc_table_def_t *t)
{
    if (!t)
        return;
    free(t->catalog);
    free(t->database);
    free(t->name);
    free(t->qualified);
    for (int i = 0; i < t->ncolumns; i++)
        column_free(&t->columns[i]);
    free(t->columns);
    cdc_type_destroy(t->schema);
    free(t->pk);
    free(t->pk_name);
    free(t->partition_keys);
    cdc_kv_free(&t->options);
    free(t->watermark_column);
    free(t->watermark);
    cdc_sql_expr_destroy(t->watermark_expr);
    free(t->comment);
    free(t->ddl);
    free(t->origin);
    free(t);
}

static void view_free(cdc_view_def_t *v)
{
    if (!v)
        return;
    free(v->catalog);
    free(v->database);
    free(v->name);
    free(v->qualified);
    for (int i = 0; i < v->ncolumns; i++)
        free(v->columns[i]);
    free(v->columns);
    free(v->comment);
    free(v->original_query);
    free(v->query);
    cdc_sql_script_destroy(v->script);
    free(v->ddl);
    free(v->origin);
    free(v);
}

static void function_free(cdc_function_def_t *f)
{
    if (!f)
        return;
    free(f->catalog);
    free(f->database);
    free(f->name);
    free(f->qualified);
    free(f->identifier);
    free(f->language);
    free(f->ddl);
    free(f->origin);
    free(f);
}

static void obj_free(obj_t *o)
{
    if (!o)
        return;
    if (o->kind == OBJ_TABLE)
        table_free(o->table);
    else if (o->kind == OBJ_VIEW)
        view_free(o->view);
    else
        function_free(o->fn);
    free(o->file_text);
    free(o);
}

static obj_t *obj_table(cdc_table_def_t *t)
{
    obj_t *o = cdc_xcalloc(1, sizeof(*o));
    o->kind = OBJ_TABLE;
    o->table = t;
    o->catalog = t->catalog;
    o->database = t->database;
    o->name = t->name;
    return o;
}

static obj_t *obj_view(cdc_view_def_t *v)
{
    obj_t *o = cdc_xcalloc(1, sizeof(*o));
    o->kind = OBJ_VIEW;
    o->view = v;
    o->catalog = v->catalog;
    o->database = v->database;
    o->name = v->name;
    return o;
}

static obj_t *obj_function(cdc_function_def_t *f)
{
    obj_t *o = cdc_xcalloc(1, sizeof(*o));
    o->kind = OBJ_FUNCTION;
    o->fn = f;
    o->catalog = f->catalog;
    o->database = f->database;
    o->name = f->name;
    return o;
}

static const char *kind_word(obj_kind_t kind)
{
    return kind == OBJ_TABLE ? "table" : kind == OBJ_VIEW ? "view" : "function";
}

static const char *obj_qualified(const obj_t *o)
{
    return o->kind == OBJ_TABLE  ? o->table->qualified
           : o->kind == OBJ_VIEW ? o->view->qualified
                                 : o->fn->qualified;
}

static void push_obj(obj_t ***arr, int *n, obj_t *o)
{
    *arr = cdc_xrealloc(*arr, sizeof(**arr) * (size_t)(*n + 1));
    (*arr)[(*n)++] = o;
}

static void remove_at(obj_t **arr, int *n, int i)
{
    memmove(&arr[i], &arr[i + 1], sizeof(*arr) * (size_t)(*n - i - 1));
    (*n)--;
}

static void bury(cdc_catalog_t *cat, obj_t *o)
{
    push_obj(&cat->graveyard, &cat->ngrave, o);
}

static void db_free(cdc_catalog_t *cat, db_t *db)
{
    if (!db)
        return;
    for (int i = 0; i < db->nobjs; i++) {
        if (cat)
            bury(cat, db->objs[i]);
        else
            obj_free(db->objs[i]);
    }
    free(db->objs);
    free(db->name);
    free(db->comment);
    cdc_kv_free(&db->options);
    free(db);
}

static db_t *db_new(const char *name)
{
    db_t *db = cdc_xcalloc(1, sizeof(*db));
    db->name = cdc_xstrdup(name);
    return db;
}

static void ctlg_free(cdc_catalog_t *cat, ctlg_t *k)
{
    if (!k)
        return;
    for (int i = 0; i < k->ndbs; i++)
        db_free(cat, k->dbs[i]);
    free(k->dbs);
    free(k->name);
    free(k->dir);
    free(k->default_db);
    free(k->version);
    cdc_kv_free(&k->options);
    if (k->lock_fd >= 0)
        close(k->lock_fd);
    free(k);
}

static ctlg_t *find_ctlg(const cdc_catalog_t *cat, const char *name)
{
    for (int i = 0; i < cat->ncats; i++)
        if (strcmp(cat->cats[i]->name, name) == 0)
            return cat->cats[i];
    return NULL;
}

static int db_index(const ctlg_t *k, const char *name)
{
    for (int i = 0; i < k->ndbs; i++)
        if (strcmp(k->dbs[i]->name, name) == 0)
            return i;
    return -1;
}

static db_t *find_db(const ctlg_t *k, const char *name)
{
    int i = db_index(k, name);
    return i < 0 ? NULL : k->dbs[i];
}

/* Tables and views share a namespace; functions have their own. */
static bool same_space(obj_kind_t kind, bool function)
{
    return function ? kind == OBJ_FUNCTION : kind != OBJ_FUNCTION;
}

static int db_obj_index(const db_t *db, const char *name, bool function)
{
    for (int i = 0; i < db->nobjs; i++)
        if (same_space(db->objs[i]->kind, function) && strcmp(db->objs[i]->name, name) == 0)
            return i;
    return -1;
}

static obj_t *db_find(const db_t *db, const char *name, bool function)
{
    int i = db_obj_index(db, name, function);
    return i < 0 ? NULL : db->objs[i];
}

static int temp_index(const cdc_catalog_t *cat, const char *c, const char *d, const char *o,
                      bool function)
{
    for (int i = 0; i < cat->ntemps; i++) {
        const obj_t *t = cat->temps[i];
        if (same_space(t->kind, function) && strcmp(t->catalog, c) == 0 &&
            strcmp(t->database, d) == 0 && strcmp(t->name, o) == 0)
            return i;
    }
    return -1;
}

static obj_t *temp_find(const cdc_catalog_t *cat, const char *c, const char *d, const char *o,
                        bool function)
{
    int i = temp_index(cat, c, d, o, function);
    return i < 0 ? NULL : cat->temps[i];
}

static int sysfn_index(const cdc_catalog_t *cat, const char *name)
{
    for (int i = 0; i < cat->nsysfns; i++)
        if (strcmp(cat->sysfns[i]->name, name) == 0)
            return i;
    return -1;
}

/* ---- identifiers
 * ---------------------------------------------------------------------------------- */

/* A fully qualified identifier; parts borrowed (obj owned when lowered). */
typedef struct ident {
    const char *c, *d, *o;
    char *lowered; /* functions: the lower-cased object name, owned */
    char *q;       /* "c.d.o", owned */
} ident_t;

static ident_t qualify(const cdc_catalog_t *cat, const cdc_sql_name_t *name, bool function)
{
    ident_t id = {cat->cur_cat, cat->cur_db, NULL, NULL, NULL};
    if (name->nparts == 3) {
        id.c = name->parts[0];
        id.d = name->parts[1];
        id.o = name->parts[2];
    } else if (name->nparts == 2) {
        id.d = name->parts[0];
        id.o = name->parts[1];
    } else {
        id.o = name->nparts ? name->parts[0] : "";
    }
    if (function) {
        id.lowered = lower_dup(id.o);
        id.o = id.lowered;
    }
    id.q = cdc_strdup_printf("%s.%s.%s", id.c, id.d, id.o);
    return id;
}

static void ident_free(ident_t *id)
{
    free(id->lowered);
    free(id->q);
}

/* Flink's summary form: `c`.`d`.`o`. */
static char *backticked(const char *c, const char *d, const char *o)
{
    cdc_buf_t b = {0};
    cdc_sql_put_ident(&b, c);
    cdc_buf_putc(&b, '.');
    cdc_sql_put_ident(&b, d);
    cdc_buf_putc(&b, '.');
    cdc_sql_put_ident(&b, o);
    return buf_take(&b);
}

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
    return buf_take(&b);
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

static char *db_path(const ctlg_t *k, const char *db)
{
    char *e = enc_name(db);
    char *p = cdc_strdup_printf("%s/%s", k->dir, e);
    free(e);
    return p;
}

static char *obj_file_name(obj_kind_t kind, const char *name)
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
    return buf_take(&b);
}

static void fsync_dir(const char *dir)
{
    cdc_file_fsync_dir(dir, NULL);
}

/* Writes DIR/NAME atomically: a temporary file, fsync, rename, fsync of the directory. */
static int write_atomic(const char *dir, const char *name, const char *data, cdc_error_t **err)
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
    if (k->type != CTLG_FILE)
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
    if (k->type != CTLG_FILE)
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

/* ---- building definitions ----------------------------------------------------------------------
 */

static cdc_catalog_t *new_manager(void)
{
    cdc_catalog_t *cat = cdc_xcalloc(1, sizeof(*cat));
    cat->cur_cat = cdc_xstrdup(DEFAULT_CATALOG);
    cat->cur_db = cdc_xstrdup(DEFAULT_DATABASE);
    return cat;
}

static int find_obj(cdc_catalog_t *cat, const char *c, const char *d, const char *o, bool function,
                    obj_t **out, cdc_error_t **err);

/* Parses a column's type text, pointing at the problem inside the text on failure. */
static cdc_type_t *parse_column_type(const src_t *s, const cdc_sql_column_t *col, cdc_error_t **err)
{
    cdc_error_t *terr = NULL;
    cdc_type_t *type = cdc_type_parse(col->type.text ? col->type.text : "", &terr);
    if (!type) {
        int off = 0;
        const char *p = strstr(terr->message, "at column ");
        if (p)
            off = atoi(p + 10) - 1;
        const char *rest = strchr(terr->message, ':');
        fail_at(err, CDC_ERR_SQL, s, col->type.line, col->type.col + off,
                "invalid type of column \"%s\"%s", col->name, rest ? rest : "");
        cdc_error_destroy(terr);
        return NULL;
    }
    if (col->not_null)
        type->nullable = false;
    return type;
}

static int column_index(const cdc_table_def_t *t, const char *name)
{
    for (int i = 0; i < t->ncolumns; i++)
        if (strcmp(t->columns[i].name, name) == 0)
            return i;
    return -1;
}

static const char **column_names(const cdc_table_def_t *t, bool physical_only, int *n)
{
    const char **names = cdc_xcalloc((size_t)t->ncolumns + 1, sizeof(char *));
    *n = 0;
    for (int i = 0; i < t->ncolumns; i++)
        if (!physical_only || t->columns[i].kind == CDC_COLUMN_PHYSICAL)
            names[(*n)++] = t->columns[i].name;
    return names;
}

/* Appends a column; a physical column's type moves into the schema. */
static void add_column(cdc_table_def_t *t, cdc_column_def_t *col)
{
    t->columns = cdc_xrealloc(t->columns, sizeof(*t->columns) * (size_t)(t->ncolumns + 1));
    if (col->kind == CDC_COLUMN_PHYSICAL) {
        col->physical = t->schema->nchildren;
        cdc_type_row_add(t->schema, col->name, col->type);
    } else {
        col->physical = -1;
    }
    t->columns[t->ncolumns++] = *col;
}

static void column_copy(cdc_column_def_t *dst, const cdc_column_def_t *src)
{
    memset(dst, 0, sizeof(*dst));
    dst->name = cdc_xstrdup(src->name);
    dst->kind = src->kind;
    dst->type = src->type ? cdc_type_copy(src->type) : NULL;
    dst->expr = cdc_sql_expr_clone(src->expr);
    dst->expr_text = dup_or_null(src->expr_text);
    dst->metadata_key = dup_or_null(src->metadata_key);
    dst->metadata_from = src->metadata_from;
    dst->is_virtual = src->is_virtual;
    dst->not_null = src->not_null;
    dst->comment = dup_or_null(src->comment);
}

/* Fills @p col from a parsed column. */
static int column_from_sql(const src_t *s, const cdc_sql_column_t *sc, cdc_column_def_t *col,
                           cdc_error_t **err)
{
    memset(col, 0, sizeof(*col));
    col->physical = -1;
    if (sc->kind == CDC_SQL_COLUMN_COMPUTED) {
        col->kind = CDC_COLUMN_COMPUTED;
        col->expr = cdc_sql_expr_clone(sc->expr);
        col->expr_text = cdc_sql_expr_to_string(sc->expr);
    } else {
        col->type = parse_column_type(s, sc, err);
        if (!col->type)
            return -1;
        col->kind = sc->kind == CDC_SQL_COLUMN_METADATA ? CDC_COLUMN_METADATA : CDC_COLUMN_PHYSICAL;
        if (col->kind == CDC_COLUMN_METADATA) {
            col->metadata_from = sc->metadata_key != NULL;
            col->metadata_key = cdc_xstrdup(sc->metadata_key ? sc->metadata_key : sc->name);
            col->is_virtual = sc->is_virtual;
        }
    }
    col->name = cdc_xstrdup(sc->name);
    col->not_null = sc->not_null;
    col->comment = dup_or_null(sc->comment);
    return 0;
}

/* ---- type derivation of computed columns ---------------------------------------------------- */

static cdc_type_t *derive_type(cdc_catalog_t *cat, const cdc_table_def_t *t,
                               const cdc_sql_expr_t *e);

static bool any_nullable(cdc_catalog_t *cat, const cdc_table_def_t *t, cdc_sql_expr_t *const *es,
                         size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!es[i])
            continue;
        cdc_type_t *ty = derive_type(cat, t, es[i]);
        bool nullable = !ty || ty->nullable;
        cdc_type_destroy(ty);
        if (nullable)
            return true;
    }
    return false;
}

static cdc_type_t *with_nullability(cdc_type_t *ty, bool nullable)
{
    if (ty)
        ty->nullable = nullable;
    return ty;
}

static bool call_is(const cdc_sql_expr_t *e, const char *name)
{
    return strcasecmp(e->call.name ? e->call.name : "", name) == 0;
}

/* The type of a computed column's expression when it can be told without a planner; NULL
 * otherwise. Nullability follows Flink: NULL in, NULL out. */
static cdc_type_t *derive_type(cdc_catalog_t *cat, const cdc_table_def_t *t,
                               const cdc_sql_expr_t *e)
{
    switch (e->kind) {
    case CDC_SQL_EXPR_COLUMN: {
        int i = column_index(t, e->column.parts[0]);
        if (i < 0 || e->column.nparts != 1 || !t->columns[i].type)
            return NULL;
        return cdc_type_copy(t->columns[i].type);
    }
    case CDC_SQL_EXPR_CAST: {
        cdc_type_t *ty = cdc_type_parse(e->cast.type.text ? e->cast.type.text : "", NULL);
        if (!ty)
            return NULL;
        if (e->cast.try_cast)
            return with_nullability(ty, true);
        cdc_sql_expr_t *const ops[] = {e->cast.operand};
        return with_nullability(ty, ty->nullable && any_nullable(cat, t, ops, 1));
    }
    case CDC_SQL_EXPR_LITERAL:
        switch (e->literal.kind) {
        case CDC_SQL_LIT_BOOLEAN:
            return with_nullability(cdc_type_new(CDC_T_BOOLEAN), false);
        case CDC_SQL_LIT_INTEGER: {
            long long v = strtoll(e->literal.text, NULL, 10);
            return with_nullability(
                cdc_type_new(v > 2147483647LL || v < -2147483648LL ? CDC_T_BIGINT : CDC_T_INT),
                false);
        }
        case CDC_SQL_LIT_STRING: {
            size_t n = strlen(e->literal.text);
            return with_nullability(cdc_type_new_sized(CDC_T_CHAR, (int32_t)(n ? n : 1)), false);
        }
        case CDC_SQL_LIT_DATE:
            return with_nullability(cdc_type_new(CDC_T_DATE), false);
        default:
            return NULL;
        }
    case CDC_SQL_EXPR_UNARY: {
        if (e->unary.op == CDC_SQL_UNARY_NOT) {
            cdc_sql_expr_t *const ops[] = {e->unary.operand};
            return with_nullability(cdc_type_new(CDC_T_BOOLEAN), any_nullable(cat, t, ops, 1));
        }
        return derive_type(cat, t, e->unary.operand);
    }
    case CDC_SQL_EXPR_BINARY: {
        /* each operand derived once: nested expressions stay linear */
        cdc_type_t *a = derive_type(cat, t, e->binary.left);
        cdc_type_t *b = derive_type(cat, t, e->binary.right);
        bool b_interval = e->binary.right->kind == CDC_SQL_EXPR_LITERAL &&
                          e->binary.right->literal.kind == CDC_SQL_LIT_INTERVAL;
        bool nullable = !a || a->nullable || (b ? b->nullable : !b_interval);
        cdc_type_t *r = NULL;
        switch (e->binary.op) {
        case CDC_SQL_BINARY_CONCAT:
            r = cdc_type_new_sized(CDC_T_VARCHAR, CDC_MAX_LENGTH);
            break;
        case CDC_SQL_BINARY_ADD:
        case CDC_SQL_BINARY_SUB:
        case CDC_SQL_BINARY_MUL:
        case CDC_SQL_BINARY_DIV:
        case CDC_SQL_BINARY_MOD: {
            bool a_float = a && (a->root == CDC_T_DOUBLE || a->root == CDC_T_FLOAT);
            bool b_float = b && (b->root == CDC_T_DOUBLE || b->root == CDC_T_FLOAT);
            if (a && b && cdc_type_is_integer(a) && cdc_type_is_integer(b))
                r = cdc_type_new(a->root > b->root ? a->root : b->root);
            else if (a && b && (a_float || b_float) && (a_float || cdc_type_is_integer(a)) &&
                     (b_float || cdc_type_is_integer(b)))
                r = cdc_type_new(CDC_T_DOUBLE);
            else if (a && b_interval &&
                     (a->root == CDC_T_TIMESTAMP || a->root == CDC_T_TIMESTAMP_LTZ ||
                      a->root == CDC_T_DATE) &&
                     (e->binary.op == CDC_SQL_BINARY_ADD || e->binary.op == CDC_SQL_BINARY_SUB))
                r = cdc_type_copy(a);
            break;
        }
        default: /* comparisons, AND, OR */
            r = cdc_type_new(CDC_T_BOOLEAN);
            break;
        }
        cdc_type_destroy(a);
        cdc_type_destroy(b);
        return with_nullability(r, nullable);
    }
    case CDC_SQL_EXPR_IN: {
        cdc_sql_expr_t *const ops[] = {e->in_list.operand};
        return with_nullability(cdc_type_new(CDC_T_BOOLEAN),
                                any_nullable(cat, t, ops, 1) ||
                                    any_nullable(cat, t, e->in_list.items, e->in_list.nitems));
    }
    case CDC_SQL_EXPR_BETWEEN: {
        cdc_sql_expr_t *const ops[] = {e->between.operand, e->between.low, e->between.high};
        return with_nullability(cdc_type_new(CDC_T_BOOLEAN), any_nullable(cat, t, ops, 3));
    }
    case CDC_SQL_EXPR_LIKE: {
        cdc_sql_expr_t *const ops[] = {e->like.operand, e->like.pattern};
        return with_nullability(cdc_type_new(CDC_T_BOOLEAN), any_nullable(cat, t, ops, 2));
    }
    case CDC_SQL_EXPR_IS_NULL:
        return with_nullability(cdc_type_new(CDC_T_BOOLEAN), false);
    case CDC_SQL_EXPR_CALL: {
        /* user functions first: resolution already puts built-ins before catalog functions and
         * temporary system functions before built-ins */
        const cdc_udf_def_t *udf = NULL;
        cdc_error_t *ferr = NULL;
        int found = cat && e->call.name
                        ? cdc_catalog_resolve_function(cat, e->call.name, &udf, NULL, &ferr)
                        : 0;
        cdc_error_destroy(ferr);
        if (found == 1 && udf)
            return with_nullability(cdc_type_parse(udf->return_type, NULL), true);
        if (call_is(e, "PROCTIME") || call_is(e, "CURRENT_TIMESTAMP") || call_is(e, "NOW") ||
            call_is(e, "LOCALTIMESTAMP")) {
            cdc_type_t *ty = cdc_type_new_sized(
                call_is(e, "LOCALTIMESTAMP") ? CDC_T_TIMESTAMP : CDC_T_TIMESTAMP_LTZ, 3);
            return with_nullability(ty, false);
        }
        if (call_is(e, "COALESCE") && e->call.nargs > 0) {
            cdc_type_t *ty = derive_type(cat, t, e->call.args[e->call.nargs - 1]);
            return with_nullability(ty, ty && ty->nullable);
        }
        if (call_is(e, "TO_TIMESTAMP"))
            return with_nullability(cdc_type_new_sized(CDC_T_TIMESTAMP, 3), true);
        cdc_type_t *ty = NULL;
        if (call_is(e, "UPPER") || call_is(e, "LOWER") || call_is(e, "TRIM") ||
            call_is(e, "CONCAT") || call_is(e, "SUBSTRING") || call_is(e, "SUBSTR") ||
            call_is(e, "LTRIM") || call_is(e, "RTRIM") || call_is(e, "REPLACE"))
            ty = cdc_type_new_sized(CDC_T_VARCHAR, CDC_MAX_LENGTH);
        else if (call_is(e, "CHAR_LENGTH") || call_is(e, "CHARACTER_LENGTH"))
            ty = cdc_type_new(CDC_T_INT);
        else if (call_is(e, "TO_TIMESTAMP_LTZ"))
            ty = cdc_type_new_sized(CDC_T_TIMESTAMP_LTZ, 3);
        if (!ty)
            return NULL;
        return with_nullability(ty, any_nullable(cat, t, e->call.args, e->call.nargs));
    }
    case CDC_SQL_EXPR_CASE:
        if (e->case_expr.nwhens > 0)
            return with_nullability(derive_type(cat, t, e->case_expr.whens[0].then), true);
        return NULL;
    default:
        return NULL;
    }
}

/* ---- expression checks ------------------------------------------------------------------------
 */

typedef void (*expr_visit_fn)(const cdc_sql_expr_t *e, void *ctx);

static void walk_expr(const cdc_sql_expr_t *e, expr_visit_fn fn, void *ctx)
{
    if (!e)
        return;
    fn(e, ctx);
    switch (e->kind) {
    case CDC_SQL_EXPR_UNARY:
        walk_expr(e->unary.operand, fn, ctx);
        break;
    case CDC_SQL_EXPR_BINARY:
        walk_expr(e->binary.left, fn, ctx);
        walk_expr(e->binary.right, fn, ctx);
        break;
    case CDC_SQL_EXPR_CALL:
        for (size_t i = 0; i < e->call.nargs; i++)
            walk_expr(e->call.args[i], fn, ctx);
        break;
    case CDC_SQL_EXPR_CAST:
        walk_expr(e->cast.operand, fn, ctx);
        break;
    case CDC_SQL_EXPR_CASE:
        walk_expr(e->case_expr.operand, fn, ctx);
        for (size_t i = 0; i < e->case_expr.nwhens; i++) {
            walk_expr(e->case_expr.whens[i].when, fn, ctx);
            walk_expr(e->case_expr.whens[i].then, fn, ctx);
        }
        walk_expr(e->case_expr.else_expr, fn, ctx);
        break;
    case CDC_SQL_EXPR_IN:
        walk_expr(e->in_list.operand, fn, ctx);
        for (size_t i = 0; i < e->in_list.nitems; i++)
            walk_expr(e->in_list.items[i], fn, ctx);
        break;
    case CDC_SQL_EXPR_BETWEEN:
        walk_expr(e->between.operand, fn, ctx);
        walk_expr(e->between.low, fn, ctx);
        walk_expr(e->between.high, fn, ctx);
        break;
    case CDC_SQL_EXPR_LIKE:
        walk_expr(e->like.operand, fn, ctx);
        walk_expr(e->like.pattern, fn, ctx);
        walk_expr(e->like.escape, fn, ctx);
        break;
    case CDC_SQL_EXPR_IS_NULL:
        walk_expr(e->is_null.operand, fn, ctx);
        break;
    case CDC_SQL_EXPR_SUBSCRIPT:
        walk_expr(e->subscript.base, fn, ctx);
        walk_expr(e->subscript.index, fn, ctx);
        break;
    default:
        break;
    }
}

typedef struct ref_check {
    const cdc_table_def_t *t;
    const char *self;              /* the computed column being checked, or NULL */
    const cdc_sql_expr_t *bad;     /* first reference to an unknown column */
    const cdc_sql_expr_t *to_self; /* a reference to itself */
} ref_check_t;

static void check_ref(const cdc_sql_expr_t *e, void *ctx)
{
    ref_check_t *rc = ctx;
    if (e->kind != CDC_SQL_EXPR_COLUMN || rc->bad || rc->to_self)
        return;
    const char *name = e->column.parts[0];
    if (rc->self && strcmp(name, rc->self) == 0)
        rc->to_self = e;
    else if (column_index(rc->t, name) < 0)
        rc->bad = e;
}

/* Checks that an expression of a table refers to its columns only. On failure @p where (when
 * not NULL) is the error position instead of the reference's: used for expressions copied
 * from a LIKE base, whose positions belong to another text. */
static int check_expr_refs(const src_t *s, const cdc_table_def_t *t, const cdc_sql_expr_t *e,
                           const char *self, const char *what, const int *where, cdc_error_t **err)
{
    ref_check_t rc = {t, self, NULL, NULL};
    walk_expr(e, check_ref, &rc);
    if (rc.to_self) {
        int line = where ? where[0] : rc.to_self->line, col = where ? where[1] : rc.to_self->col;
        return fail_at(err, CDC_ERR_SQL, s, line, col, "computed column \"%s\" refers to itself",
                       self);
    }
    if (!rc.bad)
        return 0;
    const char *name = rc.bad->column.parts[0];
    int line = where ? where[0] : rc.bad->line, col = where ? where[1] : rc.bad->col;
    fail_at(err, CDC_ERR_SQL, s, line, col,
            "%s refers to column \"%s\", which table \"%s\" does "
            "not have",
            what, name, t->qualified);
    if (where) {
        cdc_error_set_hint(*err, "the LIKE options leave column \"%s\" of the base table out",
                           name);
        return -1;
    }
    int n;
    const char **names = column_names(t, false, &n);
    hint_closest(*err, name, names, n);
    free(names);
    return -1;
}

/* ---- CREATE TABLE ------------------------------------------------------------------------------
 */

static const char *const like_feature_names[] = {
    [CDC_SQL_LIKE_ALL] = "ALL",
    [CDC_SQL_LIKE_CONSTRAINTS] = "CONSTRAINTS",
    [CDC_SQL_LIKE_GENERATED] = "GENERATED",
    [CDC_SQL_LIKE_METADATA] = "METADATA",
    [CDC_SQL_LIKE_OPTIONS] = "OPTIONS",
    [CDC_SQL_LIKE_PARTITIONS] = "PARTITIONS",
    [CDC_SQL_LIKE_WATERMARKS] = "WATERMARKS",
};

#define NFEATURES (CDC_SQL_LIKE_WATERMARKS + 1)

/* Flink's merging strategies: the default is INCLUDING ALL OVERWRITING OPTIONS; an ALL option
 * applies first, then the specific ones; each feature may be named once. */
static int like_modes(const src_t *s, const cdc_sql_like_t *like, cdc_sql_like_mode_t *modes,
                      cdc_error_t **err)
{
    for (int f = 0; f < NFEATURES; f++)
        modes[f] = CDC_SQL_LIKE_INCLUDING;
    modes[CDC_SQL_LIKE_OPTIONS] = CDC_SQL_LIKE_OVERWRITING;
    bool seen[NFEATURES] = {0};
    for (size_t i = 0; i < like->noptions; i++) {
        const cdc_sql_like_option_t *o = &like->options[i];
        if (seen[o->feature])
            return fail_at(err, CDC_ERR_SQL, s, o->line, o->col,
                           "LIKE option for %s is given twice", like_feature_names[o->feature]);
        seen[o->feature] = true;
        if (o->feature == CDC_SQL_LIKE_ALL)
            for (int f = 0; f < NFEATURES; f++)
                modes[f] = o->mode;
    }
    for (size_t i = 0; i < like->noptions; i++)
        if (like->options[i].feature != CDC_SQL_LIKE_ALL)
            modes[like->options[i].feature] = like->options[i].mode;
    return 0;
}

static cdc_error_t *missing_object_error(cdc_catalog_t *cat, const src_t *s,
                                         const cdc_sql_name_t *name, const ident_t *id,
                                         obj_kind_t kind);

/* Adds the statement's columns, merging with the base's per the LIKE modes. */
static int merge_columns(const src_t *s, const cdc_sql_create_table_t *ct, cdc_table_def_t *t,
                         const cdc_table_def_t *base, const cdc_sql_like_mode_t *modes,
                         cdc_error_t **err)
{
    /* from_base[i]: column i was copied from the base table */
    bool *from_base = cdc_xcalloc((size_t)(base ? base->ncolumns : 0) + ct->ncolumns + 1, 1);
    if (base) {
        for (int i = 0; i < base->ncolumns; i++) {
            const cdc_column_def_t *bc = &base->columns[i];
            if (bc->kind == CDC_COLUMN_COMPUTED &&
                modes[CDC_SQL_LIKE_GENERATED] == CDC_SQL_LIKE_EXCLUDING)
                continue;
            if (bc->kind == CDC_COLUMN_METADATA &&
                modes[CDC_SQL_LIKE_METADATA] == CDC_SQL_LIKE_EXCLUDING)
                continue;
            cdc_column_def_t col;
            column_copy(&col, bc);
            /* the base's primary key made its columns NOT NULL; the key may not come along */
            if (col.type && col.kind != CDC_COLUMN_COMPUTED && !col.not_null)
                col.type->nullable = true;
            from_base[t->ncolumns] = true;
            add_column(t, &col);
        }
    }
    for (size_t i = 0; i < ct->ncolumns; i++) {
        const cdc_sql_column_t *sc = &ct->columns[i];
        int at = column_index(t, sc->name);
        if (at >= 0 && !from_base[at]) {
            fail_at(err, CDC_ERR_SQL, s, sc->line, sc->col, "column \"%s\" is declared twice",
                    sc->name);
            goto fail;
        }
        if (at >= 0) {
            cdc_column_def_t *ex = &t->columns[at];
            cdc_column_kind_t nk = sc->kind == CDC_SQL_COLUMN_COMPUTED   ? CDC_COLUMN_COMPUTED
                                   : sc->kind == CDC_SQL_COLUMN_METADATA ? CDC_COLUMN_METADATA
                                                                         : CDC_COLUMN_PHYSICAL;
            if (nk == CDC_COLUMN_PHYSICAL || ex->kind != nk) {
                fail_at(err, CDC_ERR_SQL, s, sc->line, sc->col,
                        "column \"%s\" already exists in the base table \"%s\"", sc->name,
                        base->qualified);
                if (nk != CDC_COLUMN_PHYSICAL)
                    cdc_error_set_hint(*err, "a %s column can only overwrite a %s column",
                                       nk == CDC_COLUMN_COMPUTED ? "computed" : "metadata",
                                       nk == CDC_COLUMN_COMPUTED ? "computed" : "metadata");
                goto fail;
            }
            cdc_sql_like_feature_t f =
                nk == CDC_COLUMN_COMPUTED ? CDC_SQL_LIKE_GENERATED : CDC_SQL_LIKE_METADATA;
            if (modes[f] != CDC_SQL_LIKE_OVERWRITING) {
                fail_at(err, CDC_ERR_SQL, s, sc->line, sc->col,
                        "%s column \"%s\" already exists in the base table \"%s\"",
                        nk == CDC_COLUMN_COMPUTED ? "computed" : "metadata", sc->name,
                        base->qualified);
                cdc_error_set_hint(*err, "use EXCLUDING %s or OVERWRITING %s",
                                   like_feature_names[f], like_feature_names[f]);
                goto fail;
            }
            cdc_column_def_t col;
            if (column_from_sql(s, sc, &col, err) < 0)
                goto fail;
            column_free(ex);
            col.physical = -1;
            *ex = col;
            from_base[at] = false;
            continue;
        }
        cdc_column_def_t col;
        if (column_from_sql(s, sc, &col, err) < 0)
            goto fail;
        add_column(t, &col);
    }
    /* computed columns: references, then types in declaration order */
    for (int i = 0; i < t->ncolumns; i++) {
        cdc_column_def_t *col = &t->columns[i];
        if (col->kind != CDC_COLUMN_COMPUTED)
            continue;
        char *what = cdc_strdup_printf("computed column \"%s\"", col->name);
        int where[2] = {ct->like ? ct->like->line : 0, ct->like ? ct->like->col : 0};
        int rc =
            check_expr_refs(s, t, col->expr, col->name, what, from_base[i] ? where : NULL, err);
        free(what);
        if (rc < 0)
            goto fail;
    }
    free(from_base);
    return 0;
fail:
    free(from_base);
    return -1;
}

static int resolve_key_list(const src_t *s, cdc_table_def_t *t, const cdc_sql_ident_list_t *cols,
                            const char *what, int **out, int *nout, cdc_error_t **err)
{
    *out = cdc_xcalloc(cols->count + 1, sizeof(int));
    *nout = 0;
    for (size_t i = 0; i < cols->count; i++) {
        const cdc_sql_ident_t *id = &cols->items[i];
        int ci = column_index(t, id->name);
        if (ci < 0 || t->columns[ci].kind != CDC_COLUMN_PHYSICAL) {
            fail_at(err, CDC_ERR_SQL, s, id->line, id->col,
                    "%s column \"%s\" is not a physical column of the table", what, id->name);
            if (ci < 0) {
                int n;
                const char **names = column_names(t, true, &n);
                hint_closest(*err, id->name, names, n);
                free(names);
            }
            return -1;
        }
        int idx = t->columns[ci].physical;
        for (int k = 0; k < *nout; k++)
            if ((*out)[k] == idx)
                return fail_at(err, CDC_ERR_SQL, s, id->line, id->col,
                               "column \"%s\" appears twice in the %s", id->name,
                               strcmp(what, "primary key") == 0 ? "primary key"
                                                                : "PARTITIONED BY clause");
        (*out)[(*nout)++] = idx;
    }
    return 0;
}

/* Builds the definition of a CREATE TABLE (without registering it). */
static cdc_table_def_t *build_table(cdc_catalog_t *cat, const cdc_sql_create_table_t *ct,
                                    const src_t *s, const ident_t *id, cdc_error_t **err)
{
    cdc_table_def_t *t = cdc_xcalloc(1, sizeof(*t));
    t->catalog = cdc_xstrdup(id->c);
    t->database = cdc_xstrdup(id->d);
    t->name = cdc_xstrdup(id->o);
    t->qualified = cdc_xstrdup(id->q);
    t->temporary = ct->temporary;
    t->line = ct->name.line;
    t->col = ct->name.col;
    t->origin = cdc_xstrdup(s->filename ? s->filename : "<input>");
    t->schema = cdc_type_new_row();
    t->schema->nullable = false;
    t->comment = dup_or_null(ct->comment);

    const cdc_table_def_t *base = NULL;
    cdc_sql_like_mode_t modes[NFEATURES] = {0};
    if (ct->like) {
        if (like_modes(s, ct->like, modes, err) < 0)
            goto fail;
        const cdc_view_def_t *bv = NULL;
        int r = cdc_catalog_find(cat, &ct->like->source, &base, &bv, err);
        if (r < 0)
            goto fail;
        if (r == 0) {
            ident_t bid = qualify(cat, &ct->like->source, false);
            cdc_error_destroy(*err);
            *err = missing_object_error(cat, s, &ct->like->source, &bid, OBJ_TABLE);
            ident_free(&bid);
            goto fail;
        }
        if (bv) {
            fail_at(err, CDC_ERR_SQL, s, ct->like->source.line, ct->like->source.col,
                    "view \"%s\" cannot be the source of LIKE", bv->qualified);
            cdc_error_set_hint(*err, "LIKE copies the definition of a table");
            goto fail;
        }
    }
    if (merge_columns(s, ct, t, base, modes, err) < 0)
        goto fail;

    /* primary key */
    bool base_pk = base && base->npk && modes[CDC_SQL_LIKE_CONSTRAINTS] == CDC_SQL_LIKE_INCLUDING;
    if (ct->primary_key) {
        if (base_pk) {
            fail_at(err, CDC_ERR_SQL, s, ct->primary_key->line, ct->primary_key->col,
                    "the base table \"%s\" already has a primary key", base->qualified);
            cdc_error_set_hint(*err, "use EXCLUDING CONSTRAINTS to replace it");
            goto fail;
        }
        if (resolve_key_list(s, t, &ct->primary_key->columns, "primary key", &t->pk, &t->npk, err) <
            0)
            goto fail;
        t->pk_name = dup_or_null(ct->primary_key->constraint_name);
    } else if (base_pk) {
        t->pk = cdc_xcalloc((size_t)base->npk, sizeof(int));
        for (int i = 0; i < base->npk; i++)
            t->pk[t->npk++] = cdc_type_field_index(t->schema, base->schema->names[base->pk[i]]);
        t->pk_name = dup_or_null(base->pk_name);
    }
    for (int i = 0; i < t->npk; i++) /* Flink makes primary key columns NOT NULL */
        t->schema->children[t->pk[i]]->nullable = false;

    /* partition keys */
    bool base_parts =
        base && base->npartition_keys && modes[CDC_SQL_LIKE_PARTITIONS] == CDC_SQL_LIKE_INCLUDING;
    if (ct->partitioned_by.count) {
        if (base_parts) {
            fail_at(err, CDC_ERR_SQL, s, ct->partitioned_by.items[0].line,
                    ct->partitioned_by.items[0].col,
                    "the base table \"%s\" already has partition keys", base->qualified);
            cdc_error_set_hint(*err, "use EXCLUDING PARTITIONS to replace them");
            goto fail;
        }
        if (resolve_key_list(s, t, &ct->partitioned_by, "partition key", &t->partition_keys,
                             &t->npartition_keys, err) < 0)
            goto fail;
    } else if (base_parts) {
        t->partition_keys = cdc_xcalloc((size_t)base->npartition_keys, sizeof(int));
        for (int i = 0; i < base->npartition_keys; i++)
            t->partition_keys[t->npartition_keys++] =
                cdc_type_field_index(t->schema, base->schema->names[base->partition_keys[i]]);
    }

    /* watermark */
    if (ct->watermark) {
        const cdc_sql_watermark_t *wm = ct->watermark;
        if (base && base->watermark_column &&
            modes[CDC_SQL_LIKE_WATERMARKS] == CDC_SQL_LIKE_INCLUDING) {
            fail_at(err, CDC_ERR_SQL, s, wm->line, wm->col,
                    "the base table \"%s\" already has a watermark", base->qualified);
            cdc_error_set_hint(*err, "use EXCLUDING WATERMARKS or OVERWRITING WATERMARKS");
            goto fail;
        }
        int ci = column_index(t, wm->column.name);
        if (ci < 0) {
            fail_at(err, CDC_ERR_SQL, s, wm->column.line, wm->column.col,
                    "watermark column \"%s\" does not exist", wm->column.name);
            int n;
            const char **names = column_names(t, false, &n);
            hint_closest(*err, wm->column.name, names, n);
            free(names);
            goto fail;
        }
        const cdc_type_t *ty = t->columns[ci].type;
        cdc_type_t *derived = NULL;
        if (!ty && t->columns[ci].expr)
            ty = derived = derive_type(cat, t, t->columns[ci].expr);
        if (ty && !((ty->root == CDC_T_TIMESTAMP || ty->root == CDC_T_TIMESTAMP_LTZ) &&
                    ty->precision <= 3)) {
            char *shown = cdc_type_to_string(ty);
            fail_at(err, CDC_ERR_SQL, s, wm->column.line, wm->column.col,
                    "watermark column \"%s\" must be of type TIMESTAMP(p) or TIMESTAMP_LTZ(p) "
                    "with p from 0 to 3, found %s",
                    wm->column.name, shown);
            free(shown);
            cdc_type_destroy(derived);
            goto fail;
        }
        cdc_type_destroy(derived);
        if (check_expr_refs(s, t, wm->expr, NULL, "the watermark expression", NULL, err) < 0)
            goto fail;
        t->watermark_column = cdc_xstrdup(wm->column.name);
        t->watermark_expr = cdc_sql_expr_clone(wm->expr);
        t->watermark = cdc_sql_expr_to_string(wm->expr);
    } else if (base && base->watermark_column &&
               modes[CDC_SQL_LIKE_WATERMARKS] != CDC_SQL_LIKE_EXCLUDING) {
        int where[2] = {ct->like->line, ct->like->col};
        if (column_index(t, base->watermark_column) < 0) {
            fail_at(err, CDC_ERR_SQL, s, where[0], where[1],
                    "the watermark of \"%s\" is on column \"%s\", which the LIKE options leave "
                    "out",
                    base->qualified, base->watermark_column);
            cdc_error_set_hint(*err, "use EXCLUDING WATERMARKS");
            goto fail;
        }
        if (check_expr_refs(s, t, base->watermark_expr, NULL, "the watermark of the base table",
                            where, err) < 0)
            goto fail;
        t->watermark_column = cdc_xstrdup(base->watermark_column);
        t->watermark_expr = cdc_sql_expr_clone(base->watermark_expr);
        t->watermark = dup_or_null(base->watermark);
    }

    /* computed column types, now that every column is known */
    for (int i = 0; i < t->ncolumns; i++)
        if (t->columns[i].kind == CDC_COLUMN_COMPUTED && !t->columns[i].type)
            t->columns[i].type = derive_type(cat, t, t->columns[i].expr);

    /* options */
    if (base && modes[CDC_SQL_LIKE_OPTIONS] != CDC_SQL_LIKE_EXCLUDING)
        cdc_kv_copy(&t->options, &base->options);
    {
        cdc_kv_t given = {0};
        for (size_t i = 0; i < ct->options.count; i++) {
            const cdc_sql_option_t *opt = &ct->options.items[i];
            if (cdc_kv_get(&given, opt->key)) {
                fail_at(err, CDC_ERR_SQL, s, opt->line, opt->col, "option \"%s\" is given twice",
                        opt->key);
                cdc_kv_free(&given);
                goto fail;
            }
            cdc_kv_set(&given, opt->key, opt->value);
            if (base && modes[CDC_SQL_LIKE_OPTIONS] == CDC_SQL_LIKE_INCLUDING &&
                cdc_kv_get(&base->options, opt->key)) {
                fail_at(err, CDC_ERR_SQL, s, opt->line, opt->col,
                        "option \"%s\" is already set by the base table \"%s\"", opt->key,
                        base->qualified);
                cdc_error_set_hint(*err, "use OVERWRITING OPTIONS or EXCLUDING OPTIONS");
                cdc_kv_free(&given);
                goto fail;
            }
            cdc_kv_set(&t->options, opt->key, opt->value);
        }
        cdc_kv_free(&given);
    }
    return t;
fail:
    table_free(t);
    return NULL;
}

/* ---- DDL printing ---------------------------------------------------------------------------- */

static void put_name(cdc_buf_t *b, const char *c, const char *d, const char *o, bool qualified)
{
    if (qualified && c && d) {
        cdc_sql_put_ident(b, c);
        cdc_buf_putc(b, '.');
        cdc_sql_put_ident(b, d);
        cdc_buf_putc(b, '.');
    }
    cdc_sql_put_ident(b, o);
}

static void put_options(cdc_buf_t *b, const cdc_kv_t *opts)
{
    cdc_buf_puts(b, "WITH (\n");
    for (int i = 0; i < opts->n; i++) {
        cdc_buf_puts(b, "  ");
        cdc_sql_put_string(b, opts->keys[i]);
        cdc_buf_puts(b, " = ");
        cdc_sql_put_string(b, opts->values[i]);
        cdc_buf_puts(b, i + 1 < opts->n ? ",\n" : "\n");
    }
    cdc_buf_putc(b, ')');
}

char *cdc_table_def_to_sql(const cdc_table_def_t *t, bool qualified)
{
    cdc_buf_t b = {0};
    cdc_buf_puts(&b, t->temporary ? "CREATE TEMPORARY TABLE " : "CREATE TABLE ");
    put_name(&b, t->catalog, t->database, t->name, qualified);
    int nitems = t->ncolumns + (t->watermark_column ? 1 : 0) + (t->npk ? 1 : 0);
    if (nitems) {
        cdc_buf_puts(&b, " (\n");
        int k = 0;
        for (int i = 0; i < t->ncolumns; i++) {
            const cdc_column_def_t *c = &t->columns[i];
            cdc_buf_puts(&b, "  ");
            cdc_sql_put_ident(&b, c->name);
            if (c->kind == CDC_COLUMN_COMPUTED) {
                cdc_buf_printf(&b, " AS %s", c->expr_text);
            } else {
                char *ty = cdc_type_to_string(c->type);
                cdc_buf_printf(&b, " %s", ty);
                free(ty);
                if (c->kind == CDC_COLUMN_METADATA) {
                    cdc_buf_puts(&b, " METADATA");
                    if (c->metadata_from) {
                        cdc_buf_puts(&b, " FROM ");
                        cdc_sql_put_string(&b, c->metadata_key);
                    }
                    if (c->is_virtual)
                        cdc_buf_puts(&b, " VIRTUAL");
                }
            }
            if (c->comment) {
                cdc_buf_puts(&b, " COMMENT ");
                cdc_sql_put_string(&b, c->comment);
            }
            cdc_buf_puts(&b, ++k < nitems ? ",\n" : "\n");
        }
        if (t->watermark_column) {
            cdc_buf_puts(&b, "  WATERMARK FOR ");
            cdc_sql_put_ident(&b, t->watermark_column);
            cdc_buf_printf(&b, " AS %s", t->watermark);
            cdc_buf_puts(&b, ++k < nitems ? ",\n" : "\n");
        }
        if (t->npk) {
            cdc_buf_puts(&b, "  ");
            if (t->pk_name) {
                cdc_buf_puts(&b, "CONSTRAINT ");
                cdc_sql_put_ident(&b, t->pk_name);
                cdc_buf_putc(&b, ' ');
            }
            cdc_buf_puts(&b, "PRIMARY KEY (");
            for (int i = 0; i < t->npk; i++) {
                if (i)
                    cdc_buf_puts(&b, ", ");
                cdc_sql_put_ident(&b, t->schema->names[t->pk[i]]);
            }
            cdc_buf_puts(&b, ") NOT ENFORCED\n");
        }
        cdc_buf_putc(&b, ')');
    }
    if (t->comment) {
        cdc_buf_puts(&b, " COMMENT ");
        cdc_sql_put_string(&b, t->comment);
    }
    if (t->npartition_keys) {
        cdc_buf_puts(&b, "\nPARTITIONED BY (");
        for (int i = 0; i < t->npartition_keys; i++) {
            if (i)
                cdc_buf_puts(&b, ", ");
            cdc_sql_put_ident(&b, t->schema->names[t->partition_keys[i]]);
        }
        cdc_buf_putc(&b, ')');
    }
    if (t->options.n) {
        cdc_buf_putc(&b, '\n');
        put_options(&b, &t->options);
    }
    return buf_take(&b);
}

char *cdc_view_def_to_sql(const cdc_view_def_t *v, bool qualified)
{
    cdc_buf_t b = {0};
    cdc_buf_puts(&b, v->temporary ? "CREATE TEMPORARY VIEW " : "CREATE VIEW ");
    put_name(&b, v->catalog, v->database, v->name, qualified);
    if (v->ncolumns) {
        cdc_buf_puts(&b, " (");
        for (int i = 0; i < v->ncolumns; i++) {
            if (i)
                cdc_buf_puts(&b, ", ");
            cdc_sql_put_ident(&b, v->columns[i]);
        }
        cdc_buf_putc(&b, ')');
    }
    if (v->comment) {
        cdc_buf_puts(&b, "\nCOMMENT ");
        cdc_sql_put_string(&b, v->comment);
    }
    cdc_buf_printf(&b, "\nAS %s", v->query);
    return buf_take(&b);
}

char *cdc_function_def_to_sql(const cdc_function_def_t *f, bool qualified)
{
    cdc_buf_t b = {0};
    cdc_buf_puts(&b, f->system      ? "CREATE TEMPORARY SYSTEM FUNCTION "
                     : f->temporary ? "CREATE TEMPORARY FUNCTION "
                                    : "CREATE FUNCTION ");
    put_name(&b, f->catalog, f->database, f->name, qualified && !f->system);
    cdc_buf_puts(&b, " AS ");
    cdc_sql_put_string(&b, f->identifier);
    cdc_buf_printf(&b, " LANGUAGE %s", f->language ? f->language : "C");
    return buf_take(&b);
}

static char *database_to_sql(const db_t *db)
{
    cdc_buf_t b = {0};
    cdc_buf_puts(&b, "CREATE DATABASE ");
    cdc_sql_put_ident(&b, db->name);
    if (db->comment) {
        cdc_buf_puts(&b, " COMMENT ");
        cdc_sql_put_string(&b, db->comment);
    }
    if (db->options.n) {
        cdc_buf_putc(&b, '\n');
        put_options(&b, &db->options);
    }
    return buf_take(&b);
}

/* ---- CREATE VIEW --------------------------------------------------------------------------- */

static void put_table_ref(cdc_buf_t *b, const cdc_catalog_t *cat, const cdc_sql_name_t *name)
{
    ident_t id = qualify(cat, name, false);
    put_name(b, id.c, id.d, id.o, true);
    ident_free(&id);
}

static void put_expr(cdc_buf_t *b, const cdc_sql_expr_t *e)
{
    char *s = cdc_sql_expr_to_string(e);
    cdc_buf_puts(b, s);
    free(s);
}

/* The query with every table name fully qualified, so the view means the same in any session. */
static char *expand_query(const cdc_catalog_t *cat, const cdc_sql_query_t *q)
{
    cdc_buf_t b = {0};
    cdc_buf_puts(&b, q->distinct ? "SELECT DISTINCT " : "SELECT ");
    for (size_t i = 0; i < q->nitems; i++) {
        if (i)
            cdc_buf_puts(&b, ", ");
        put_expr(&b, q->items[i].expr);
        if (q->items[i].alias) {
            cdc_buf_puts(&b, " AS ");
            cdc_sql_put_ident(&b, q->items[i].alias);
        }
    }
    cdc_buf_puts(&b, " FROM ");
    put_table_ref(&b, cat, &q->from.name);
    if (q->from.alias) {
        cdc_buf_puts(&b, " AS ");
        cdc_sql_put_ident(&b, q->from.alias);
    }
    for (size_t i = 0; i < q->njoins; i++) {
        const cdc_sql_join_t *j = &q->joins[i];
        cdc_buf_puts(&b, j->kind == CDC_SQL_JOIN_LEFT ? " LEFT JOIN " : " JOIN ");
        put_table_ref(&b, cat, &j->table.name);
        if (j->system_time) {
            cdc_buf_puts(&b, " FOR SYSTEM_TIME AS OF ");
            put_expr(&b, j->system_time);
        }
        if (j->table.alias) {
            cdc_buf_puts(&b, " AS ");
            cdc_sql_put_ident(&b, j->table.alias);
        }
        cdc_buf_puts(&b, " ON ");
        put_expr(&b, j->on);
    }
    if (q->where) {
        cdc_buf_puts(&b, " WHERE ");
        put_expr(&b, q->where);
    }
    if (q->has_limit)
        cdc_buf_printf(&b, " LIMIT %lld", q->limit);
    return buf_take(&b);
}

/* Parses a view's stored query; the result's first statement is the query. */
static int parse_view_query(cdc_view_def_t *v, cdc_error_t **err)
{
    char *label = cdc_strdup_printf("view %s", v->qualified);
    int rc = cdc_sql_parse(v->query, strlen(v->query), label, &v->script, err);
    free(label);
    if (rc < 0)
        return -1;
    if (v->script->count != 1 || v->script->stmts[0]->kind != CDC_SQL_STMT_QUERY)
        return cdc_error_set(err, CDC_ERR_SQL, "the query of view \"%s\" is not one SELECT",
                             v->qualified);
    v->query_ast = v->script->stmts[0]->query;
    return 0;
}

static bool query_has_star(const cdc_sql_query_t *q)
{
    for (size_t i = 0; i < q->nitems; i++)
        if (q->items[i].expr->kind == CDC_SQL_EXPR_STAR)
            return true;
    return false;
}

/* Builds a view. @p stored: the query text is a catalog file's, already qualified, and its
 * tables are not checked (they may live in catalogs this run does not know). */
static cdc_view_def_t *build_view(cdc_catalog_t *cat, const cdc_sql_create_view_t *cv,
                                  const src_t *s, const ident_t *id, bool stored, cdc_error_t **err)
{
    cdc_view_def_t *v = cdc_xcalloc(1, sizeof(*v));
    v->catalog = cdc_xstrdup(id->c);
    v->database = cdc_xstrdup(id->d);
    v->name = cdc_xstrdup(id->o);
    v->qualified = cdc_xstrdup(id->q);
    v->temporary = cv->temporary;
    v->line = cv->name.line;
    v->col = cv->name.col;
    v->origin = cdc_xstrdup(s->filename ? s->filename : "<input>");
    v->comment = dup_or_null(cv->comment);
    const cdc_sql_query_t *q = cv->query;
    v->original_query = cdc_xstrdup(q->text ? q->text : "");
    if (!stored) {
        const cdc_sql_table_ref_t *refs[64];
        size_t nrefs = 0;
        refs[nrefs++] = &q->from;
        for (size_t i = 0; i < q->njoins && nrefs < 64; i++)
            refs[nrefs++] = &q->joins[i].table;
        for (size_t i = 0; i < nrefs; i++) {
            int r = cdc_catalog_find(cat, &refs[i]->name, NULL, NULL, err);
            if (r < 0)
                goto fail;
            if (r == 0) {
                ident_t rid = qualify(cat, &refs[i]->name, false);
                cdc_error_destroy(*err);
                *err = missing_object_error(cat, s, &refs[i]->name, &rid, OBJ_TABLE);
                ident_free(&rid);
                goto fail;
            }
        }
    }
    v->query = stored ? cdc_xstrdup(v->original_query) : expand_query(cat, q);
    for (size_t i = 0; i < cv->columns.count; i++) {
        const cdc_sql_ident_t *c = &cv->columns.items[i];
        for (int k = 0; k < v->ncolumns; k++) {
            if (strcmp(v->columns[k], c->name) == 0) {
                fail_at(err, CDC_ERR_SQL, s, c->line, c->col,
                        "column \"%s\" appears twice in the column list of view \"%s\"", c->name,
                        v->qualified);
                goto fail;
            }
        }
        v->columns = cdc_xrealloc(v->columns, sizeof(char *) * (size_t)(v->ncolumns + 1));
        v->columns[v->ncolumns++] = cdc_xstrdup(c->name);
    }
    if (v->ncolumns && !query_has_star(q) && (size_t)v->ncolumns != q->nitems) {
        fail_at(err, CDC_ERR_SQL, s, cv->columns.items[0].line, cv->columns.items[0].col,
                "view \"%s\" names %d column%s but its query produces %zu", v->qualified,
                v->ncolumns, v->ncolumns == 1 ? "" : "s", q->nitems);
        goto fail;
    }
    if (parse_view_query(v, err) < 0)
        goto fail;
    return v;
fail:
    view_free(v);
    return NULL;
}

/* ---- CREATE FUNCTION ----------------------------------------------------------------------- */

static cdc_function_def_t *build_function(const cdc_sql_create_function_t *cf, const src_t *s,
                                          const ident_t *id, bool load, cdc_error_t **err)
{
    if (cf->language && strcmp(cf->language, "C") != 0) {
        fail_at(err, CDC_ERR_SQL, s, cf->name.line, cf->name.col,
                "function language \"%s\" is not supported", cf->language);
        cdc_error_set_hint(*err, "cdcflow loads C functions from shared objects: LANGUAGE C");
        return NULL;
    }
    const cdc_udf_def_t *udf = NULL;
    if (load) {
        cdc_error_t *uerr = NULL;
        udf = cdc_udf_load(cf->identifier, &uerr);
        if (!udf) {
            fail_at(err, CDC_ERR_CATALOG, s, cf->identifier_line, cf->identifier_col, "%s",
                    uerr->message);
            detail_prepend(*err, uerr->detail);
            if (uerr->hint)
                cdc_error_set_hint(*err, "%s", uerr->hint);
            cdc_error_destroy(uerr);
            return NULL;
        }
    }
    cdc_function_def_t *f = cdc_xcalloc(1, sizeof(*f));
    if (!cf->system) {
        f->catalog = cdc_xstrdup(id->c);
        f->database = cdc_xstrdup(id->d);
        f->qualified = cdc_xstrdup(id->q);
    }
    f->name = cdc_xstrdup(id->o);
    if (cf->system)
        f->qualified = cdc_xstrdup(id->o);
    f->temporary = cf->temporary;
    f->system = cf->system;
    f->identifier = cdc_xstrdup(cf->identifier);
    f->language = cdc_xstrdup("C");
    f->udf = udf;
    f->origin = cdc_xstrdup(s->filename ? s->filename : "<input>");
    return f;
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
    char *stored = nm->nparts ? (kind == OBJ_FUNCTION ? lower_dup(nm->parts[nm->nparts - 1])
                                                      : cdc_xstrdup(nm->parts[nm->nparts - 1]))
                              : cdc_xstrdup("");
    bool same = nm->nparts == 1 && strcmp(stored, name) == 0;
    free(stored);
    if (!same) {
        fail_at(err, CDC_ERR_CATALOG, &s, nm->line, nm->col,
                "the statement must name the object \"%s\" (one part, as the file name says)",
                name);
        goto fail;
    }
    if (temporary) {
        fail_at(err, CDC_ERR_CATALOG, &s, st->line, st->col,
                "a catalog file cannot hold a temporary object");
        goto fail;
    }
    ident_t id = {k->name, dbname, name, NULL,
                  cdc_strdup_printf("%s.%s.%s", k->name, dbname, name)};
    if (kind == OBJ_TABLE) {
        if (st->create_table.like) {
            fail_at(err, CDC_ERR_CATALOG, &s, st->create_table.like->line,
                    st->create_table.like->col, "a catalog file cannot use LIKE");
            ident_free(&id);
            goto fail;
        }
        cdc_table_def_t *t = build_table(cat, &st->create_table, &s, &id, err);
        if (t) {
            t->ddl = cdc_xstrdup(content);
            o = obj_table(t);
        }
    } else if (kind == OBJ_VIEW) {
        cdc_view_def_t *v = build_view(cat, &st->create_view, &s, &id, true, err);
        if (v) {
            v->ddl = cdc_xstrdup(content);
            o = obj_view(v);
        }
    } else {
        if (st->create_function.system) {
            fail_at(err, CDC_ERR_CATALOG, &s, st->line, st->col,
                    "a catalog file cannot hold a system function");
            ident_free(&id);
            goto fail;
        }
        cdc_function_def_t *f = build_function(&st->create_function, &s, &id, false, err);
        if (f) {
            f->ddl = cdc_xstrdup(content);
            o = obj_function(f);
        }
    }
    ident_free(&id);
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
        db->comment = dup_or_null(cd->comment);
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
        int oi = old ? db_obj_index(old, name, kind == OBJ_FUNCTION) : -1;
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
            push_obj(&db->objs, &db->nobjs, o);
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
            db_t *db = db_new(name);
            rc = load_db_dir(cat, k, db, find_db(k, name), dpath, err);
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
                obj_free(dbs[i]->objs[j]);
            dbs[i]->nobjs = 0;
            db_free(NULL, dbs[i]);
        }
        free(dbs);
        return -1;
    }
    for (int i = 0; i < k->ndbs; i++) {
        db_t *db = k->dbs[i];
        for (int j = 0; j < db->nobjs; j++)
            if (!db->objs[j]->reused)
                bury(cat, db->objs[j]);
        db->nobjs = 0;
        db_free(cat, db);
    }
    free(k->dbs);
    k->dbs = dbs;
    k->ndbs = ndbs;
    free(k->version);
    k->version = cdc_xstrdup(version);
    return 0;
}

/* Brings a file catalog up to date when another process (or catalog) wrote to it. */
static int ctlg_sync(cdc_catalog_t *cat, ctlg_t *k, cdc_error_t **err)
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
                        col->type = derive_type(cat, o->table, col->expr);
                }
            }
    }
    free(v);
    ctlg_unlock(k);
    return rc;
}

/* Starts a write: takes the exclusive lock and re-reads what changed. */
static int write_begin(cdc_catalog_t *cat, ctlg_t *k, cdc_error_t **err)
{
    if (k->type != CTLG_FILE)
        return 0;
    if (ctlg_lock(k, LOCK_EX, err) < 0)
        return -1;
    if (ctlg_sync(cat, k, err) < 0) {
        ctlg_unlock(k);
        return -1;
    }
    return 0;
}

/* Ends a write: bumps .version when something changed, and unlocks. */
static int write_end(ctlg_t *k, bool changed, cdc_error_t **err)
{
    if (k->type != CTLG_FILE)
        return 0;
    int rc = 0;
    if (changed) {
        long long n = k->version ? atoll(k->version) : 0;
        char *v = cdc_strdup_printf("%lld\n", n + 1);
        rc = write_atomic(k->dir, ".version", v, err);
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

static void add_ctlg(cdc_catalog_t *cat, ctlg_t *k)
{
    cat->cats = cdc_xrealloc(cat->cats, sizeof(*cat->cats) * (size_t)(cat->ncats + 1));
    cat->cats[cat->ncats++] = k;
}

/* Opens a file catalog in @p dir, creating the directory and the default database, and
 * registers it (first: reading it may resolve functions of the catalog itself). */
static int ctlg_open_file(cdc_catalog_t *cat, const char *name, const char *dir,
                          const char *default_db, cdc_error_t **err)
{
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
        ctlg_free(NULL, k);
        return -1;
    }
    free(lock);
    add_ctlg(cat, k);
    if (write_begin(cat, k, err) < 0)
        goto fail;
    bool created = false;
    if (!find_db(k, default_db)) {
        char *dpath = db_path(k, default_db);
        if (mkdir(dpath, 0755) < 0 && errno != EEXIST) {
            cdc_error_set(err, CDC_ERR_IO, "could not create directory \"%s\": %s", dpath,
                          strerror(errno));
            free(dpath);
            write_end(k, false, NULL);
            goto fail;
        }
        fsync_dir(k->dir);
        free(dpath);
        k->dbs = cdc_xrealloc(k->dbs, sizeof(*k->dbs) * (size_t)(k->ndbs + 1));
        k->dbs[k->ndbs++] = db_new(default_db);
        created = true;
    }
    if (write_end(k, created, err) < 0)
        goto fail;
    return 0;
fail:
    cat->ncats--;
    ctlg_free(cat, k);
    return -1;
}

static ctlg_t *ctlg_new_memory(const char *name, const char *default_db)
{
    ctlg_t *k = cdc_xcalloc(1, sizeof(*k));
    k->name = cdc_xstrdup(name);
    k->type = CTLG_IN_MEMORY;
    k->default_db = cdc_xstrdup(default_db);
    k->lock_fd = -1;
    k->dbs = cdc_xcalloc(1, sizeof(*k->dbs));
    k->dbs[k->ndbs++] = db_new(default_db);
    return k;
}

/* ---- the manager -------------------------------------------------------------------------- */

cdc_catalog_t *cdc_catalog_new(void)
{
    cdc_catalog_t *cat = new_manager();
    add_ctlg(cat, ctlg_new_memory(DEFAULT_CATALOG, DEFAULT_DATABASE));
    return cat;
}

cdc_catalog_t *cdc_catalog_new_with_dir(const char *dir, cdc_error_t **err)
{
    cdc_catalog_t *cat = new_manager();
    if (ctlg_open_file(cat, DEFAULT_CATALOG, dir, DEFAULT_DATABASE, err) < 0) {
        cdc_error_add_context(*err, "catalog directory \"%s\"", dir);
        cdc_catalog_destroy(cat);
        return NULL;
    }
    return cat;
}

void cdc_catalog_destroy(cdc_catalog_t *cat)
{
    if (!cat)
        return;
    for (int i = 0; i < cat->ncats; i++)
        ctlg_free(NULL, cat->cats[i]);
    free(cat->cats);
    for (int i = 0; i < cat->ntemps; i++)
        obj_free(cat->temps[i]);
    free(cat->temps);
    for (int i = 0; i < cat->nsysfns; i++)
        obj_free(cat->sysfns[i]);
    free(cat->sysfns);
    for (int i = 0; i < cat->ngrave; i++)
        obj_free(cat->graveyard[i]);
    free(cat->graveyard);
    free(cat->cur_cat);
    free(cat->cur_db);
    free(cat);
}

const char *cdc_catalog_current_catalog(const cdc_catalog_t *cat)
{
    return cat->cur_cat;
}

const char *cdc_catalog_current_database(const cdc_catalog_t *cat)
{
    return cat->cur_db;
}

/* ---- resolution ---------------------------------------------------------------------------- */

/* Finds an object by full identifier: the temporary one first, then the permanent one. Returns
 * 1 (*out set), 0 when absent (catalog, database or object), -1 on a re-read failure. */
static int find_obj(cdc_catalog_t *cat, const char *c, const char *d, const char *o, bool function,
                    obj_t **out, cdc_error_t **err)
{
    obj_t *t = temp_find(cat, c, d, o, function);
    if (t) {
        *out = t;
        return 1;
    }
    ctlg_t *k = find_ctlg(cat, c);
    if (!k)
        return 0;
    if (ctlg_sync(cat, k, err) < 0)
        return -1;
    db_t *db = find_db(k, d);
    if (!db)
        return 0;
    obj_t *p = db_find(db, o, function);
    if (!p)
        return 0;
    *out = p;
    return 1;
}

/* Checks that the catalog and database of @p id exist; *pk / *pdb receive them. */
static int require_db(cdc_catalog_t *cat, const src_t *s, int line, int col, const char *c,
                      const char *d, ctlg_t **pk, db_t **pdb, cdc_error_t **err)
{
    ctlg_t *k = find_ctlg(cat, c);
    if (!k) {
        fail_at(err, CDC_ERR_CATALOG, s, line, col, "catalog \"%s\" does not exist", c);
        const char **names = cdc_xcalloc((size_t)cat->ncats + 1, sizeof(char *));
        for (int i = 0; i < cat->ncats; i++)
            names[i] = cat->cats[i]->name;
        hint_closest(*err, c, names, cat->ncats);
        free(names);
        return -1;
    }
    if (ctlg_sync(cat, k, err) < 0)
        return -1;
    db_t *db = find_db(k, d);
    if (!db) {
        fail_at(err, CDC_ERR_CATALOG, s, line, col, "database \"%s.%s\" does not exist", c, d);
        const char **names = cdc_xcalloc((size_t)k->ndbs + 1, sizeof(char *));
        for (int i = 0; i < k->ndbs; i++)
            names[i] = k->dbs[i]->name;
        hint_closest(*err, d, names, k->ndbs);
        free(names);
        return -1;
    }
    if (pk)
        *pk = k;
    if (pdb)
        *pdb = db;
    return 0;
}

/* "table "c.d.x" does not exist" with a did-you-mean over the names of the same database (or the
 * missing catalog or database). */
static cdc_error_t *missing_object_error(cdc_catalog_t *cat, const src_t *s,
                                         const cdc_sql_name_t *name, const ident_t *id,
                                         obj_kind_t kind)
{
    cdc_error_t *err = NULL;
    db_t *db = NULL;
    if (require_db(cat, s, name->line, name->col, id->c, id->d, NULL, &db, &err) < 0)
        return err;
    bool function = kind == OBJ_FUNCTION;
    strv_t names = {0};
    for (int i = 0; i < db->nobjs; i++)
        if (same_space(db->objs[i]->kind, function))
            strv_push(&names, db->objs[i]->name);
    for (int i = 0; i < cat->ntemps; i++) {
        const obj_t *t = cat->temps[i];
        if (same_space(t->kind, function) && strcmp(t->catalog, id->c) == 0 &&
            strcmp(t->database, id->d) == 0)
            strv_push(&names, t->name);
    }
    fail_at(&err, CDC_ERR_CATALOG, s, name->line, name->col, "%s \"%s\" does not exist",
            kind_word(kind), id->q);
    hint_closest(err, id->o, (const char *const *)names.v, names.n);
    strv_free(&names);
    return err;
}

int cdc_catalog_find(cdc_catalog_t *cat, const cdc_sql_name_t *name, const cdc_table_def_t **table,
                     const cdc_view_def_t **view, cdc_error_t **err)
{
    if (table)
        *table = NULL;
    if (view)
        *view = NULL;
    ident_t id = qualify(cat, name, false);
    obj_t *o = NULL;
    int r = find_obj(cat, id.c, id.d, id.o, false, &o, err);
    ident_free(&id);
    if (r <= 0)
        return r;
    if (o->kind == OBJ_TABLE && table)
        *table = o->table;
    if (o->kind == OBJ_VIEW && view)
        *view = o->view;
    return 1;
}

static const void *get_object(cdc_catalog_t *cat, const cdc_sql_name_t *name, obj_kind_t kind,
                              const src_t *s, cdc_error_t **err)
{
    ident_t id = qualify(cat, name, false);
    obj_t *o = NULL;
    int r = find_obj(cat, id.c, id.d, id.o, false, &o, err);
    const void *res = NULL;
    if (r == 0) {
        cdc_error_destroy(*err);
        *err = missing_object_error(cat, s, name, &id, kind);
    } else if (r > 0 && o->kind != kind) {
        fail_at(err, CDC_ERR_CATALOG, s, name->line, name->col, "\"%s\" is a %s, not a %s", id.q,
                kind_word(o->kind), kind_word(kind));
    } else if (r > 0) {
        res = kind == OBJ_TABLE ? (const void *)o->table : (const void *)o->view;
    }
    ident_free(&id);
    return res;
}

const cdc_table_def_t *cdc_catalog_get_table(cdc_catalog_t *cat, const cdc_sql_name_t *name,
                                             const char *text, size_t len, const char *filename,
                                             cdc_error_t **err)
{
    src_t s = {text, len, filename};
    return get_object(cat, name, OBJ_TABLE, &s, err);
}

const cdc_view_def_t *cdc_catalog_get_view(cdc_catalog_t *cat, const cdc_sql_name_t *name,
                                           const char *text, size_t len, const char *filename,
                                           cdc_error_t **err)
{
    src_t s = {text, len, filename};
    return get_object(cat, name, OBJ_VIEW, &s, err);
}

int cdc_catalog_resolve_function(cdc_catalog_t *cat, const char *name, const cdc_udf_def_t **udf,
                                 const cdc_function_def_t **def, cdc_error_t **err)
{
    *udf = NULL;
    if (def)
        *def = NULL;
    char *copy = cdc_xstrdup(name);
    cdc_sql_name_t nm = {{NULL, NULL, NULL}, 0, 0, 0};
    char *save = NULL;
    for (char *part = strtok_r(copy, ".", &save); part; part = strtok_r(NULL, ".", &save)) {
        if (nm.nparts == 3) {
            free(copy);
            return 0;
        }
        nm.parts[nm.nparts++] = part;
    }
    if (nm.nparts == 0) {
        free(copy);
        return 0;
    }
    obj_t *o = NULL;
    int r = 0;
    ident_t id = qualify(cat, &nm, true);
    if (nm.nparts == 1) {
        int si = sysfn_index(cat, id.o);
        if (si >= 0) {
            o = cat->sysfns[si];
            r = 1;
        } else if (!is_builtin(id.o)) {
            r = find_obj(cat, id.c, id.d, id.o, true, &o, err);
        }
    } else {
        r = find_obj(cat, id.c, id.d, id.o, true, &o, err);
    }
    ident_free(&id);
    free(copy);
    if (r <= 0)
        return r;
    cdc_function_def_t *f = o->fn;
    if (!f->udf) {
        cdc_error_t *uerr = NULL;
        f->udf = cdc_udf_load(f->identifier, &uerr);
        if (!f->udf) {
            cdc_error_add_context(uerr, "function \"%s\" defined in %s", f->qualified, f->origin);
            if (err) {
                cdc_error_destroy(*err);
                *err = uerr;
            } else {
                cdc_error_destroy(uerr);
            }
            return -1;
        }
    }
    *udf = f->udf;
    if (def)
        *def = f;
    return 1;
}

const cdc_udf_def_t *cdc_catalog_lookup_function(cdc_catalog_t *cat, const char *name)
{
    const cdc_udf_def_t *udf = NULL;
    cdc_error_t *err = NULL;
    int r = cdc_catalog_resolve_function(cat, name, &udf, NULL, &err);
    cdc_error_destroy(err);
    return r == 1 ? udf : NULL;
}

/* ---- statements ------------------------------------------------------------------------------ */

/* Persists a new permanent object of a file catalog (under the write lock). */
static int persist(ctlg_t *k, const char *dbname, obj_t *o, cdc_error_t **err)
{
    if (k->type != CTLG_FILE)
        return 0;
    char *sql = o->kind == OBJ_TABLE  ? cdc_table_def_to_sql(o->table, false)
                : o->kind == OBJ_VIEW ? cdc_view_def_to_sql(o->view, false)
                                      : cdc_function_def_to_sql(o->fn, false);
    cdc_buf_t b = {0};
    cdc_buf_printf(&b, "%s;\n", sql);
    free(sql);
    char *dpath = db_path(k, dbname);
    char *fname = obj_file_name(o->kind, o->name);
    int rc = write_atomic(dpath, fname, cdc_buf_cstr(&b), err);
    if (rc == 0)
        o->file_text = cdc_xstrdup(cdc_buf_cstr(&b));
    free(dpath);
    free(fname);
    cdc_buf_free(&b);
    return rc;
}

static int unpersist(ctlg_t *k, const char *dbname, const obj_t *o, cdc_error_t **err)
{
    if (k->type != CTLG_FILE)
        return 0;
    char *dpath = db_path(k, dbname);
    char *fname = obj_file_name(o->kind, o->name);
    char *path = cdc_strdup_printf("%s/%s", dpath, fname);
    int rc = 0;
    if (unlink(path) < 0 && errno != ENOENT)
        rc = cdc_error_set(err, CDC_ERR_IO, "could not remove \"%s\": %s", path, strerror(errno));
    else
        fsync_dir(dpath);
    free(path);
    free(fname);
    free(dpath);
    return rc;
}

/* Registers a built object: temporary in memory, permanent in its database (and on disk).
 * Takes @p o on success and when it returns 0 for IF NOT EXISTS (then frees it). */
static int register_obj(cdc_catalog_t *cat, const src_t *s, const cdc_sql_name_t *name, obj_t *o,
                        bool temporary, bool if_not_exists, cdc_error_t **err)
{
    bool function = o->kind == OBJ_FUNCTION;
    if (temporary) {
        obj_t *ex = temp_find(cat, o->catalog, o->database, o->name, function);
        if (ex) {
            obj_free(o);
            if (if_not_exists)
                return 0;
            return fail_at(err, CDC_ERR_CATALOG, s, name->line, name->col,
                           "temporary %s \"%s\" already exists", kind_word(ex->kind),
                           obj_qualified(ex));
        }
        push_obj(&cat->temps, &cat->ntemps, o);
        return 0;
    }
    if (function && temp_find(cat, o->catalog, o->database, o->name, true)) {
        /* Flink forces users to deal with the temporary function first */
        char *q = cdc_xstrdup(obj_qualified(o));
        obj_free(o);
        if (if_not_exists) {
            free(q);
            return 0;
        }
        fail_at(err, CDC_ERR_CATALOG, s, name->line, name->col,
                "temporary function \"%s\" already exists", q);
        cdc_error_set_hint(*err, "drop it first with DROP TEMPORARY FUNCTION");
        free(q);
        return -1;
    }
    ctlg_t *k = find_ctlg(cat, o->catalog);
    if (write_begin(cat, k, err) < 0) {
        obj_free(o);
        return -1;
    }
    db_t *db = NULL;
    int rc = require_db(cat, s, name->line, name->col, o->catalog, o->database, NULL, &db, err);
    obj_t *ex = rc == 0 ? db_find(db, o->name, function) : NULL;
    if (ex) {
        if (!if_not_exists)
            rc = fail_at(err, CDC_ERR_CATALOG, s, name->line, name->col, "%s \"%s\" already exists",
                         kind_word(ex->kind), obj_qualified(ex));
        obj_free(o);
        write_end(k, false, NULL);
        return rc;
    }
    if (rc == 0)
        rc = persist(k, db->name, o, err);
    if (rc < 0) {
        obj_free(o);
        write_end(k, false, NULL);
        return -1;
    }
    push_obj(&db->objs, &db->nobjs, o);
    return write_end(k, true, err);
}

static int create_table(cdc_catalog_t *cat, const cdc_sql_create_table_t *ct, const char *ddl,
                        const src_t *s, cdc_error_t **err)
{
    ident_t id = qualify(cat, &ct->name, false);
    int rc = -1;
    if (!*id.o) {
        fail_at(err, CDC_ERR_SQL, s, ct->name.line, ct->name.col, "a table name cannot be empty");
        goto out;
    }
    if (require_db(cat, s, ct->name.line, ct->name.col, id.c, id.d, NULL, NULL, err) < 0)
        goto out;
    cdc_table_def_t *t = build_table(cat, ct, s, &id, err);
    if (!t)
        goto out;
    t->ddl = ddl ? cdc_xstrdup(ddl) : cdc_table_def_to_sql(t, true);
    rc = register_obj(cat, s, &ct->name, obj_table(t), ct->temporary, ct->if_not_exists, err);
out:
    ident_free(&id);
    return rc;
}

int cdc_catalog_create_table(cdc_catalog_t *cat, const cdc_sql_create_table_t *ct, const char *text,
                             size_t len, const char *filename, cdc_error_t **err)
{
    src_t s = {text, len, filename};
    return create_table(cat, ct, NULL, &s, err);
}

int cdc_catalog_create_table_stmt(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text,
                                  size_t len, const char *filename, cdc_error_t **err)
{
    src_t s = {text, len, filename};
    return create_table(cat, &st->create_table, st->text, &s, err);
}

int cdc_catalog_create_view(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text,
                            size_t len, const char *filename, cdc_error_t **err)
{
    src_t s = {text, len, filename};
    const cdc_sql_create_view_t *cv = &st->create_view;
    ident_t id = qualify(cat, &cv->name, false);
    int rc = -1;
    if (!*id.o) {
        fail_at(err, CDC_ERR_SQL, &s, cv->name.line, cv->name.col, "a view name cannot be empty");
        goto out;
    }
    if (require_db(cat, &s, cv->name.line, cv->name.col, id.c, id.d, NULL, NULL, err) < 0)
        goto out;
    cdc_view_def_t *v = build_view(cat, cv, &s, &id, false, err);
    if (!v)
        goto out;
    v->ddl = cdc_xstrdup(st->text ? st->text : "");
    rc = register_obj(cat, &s, &cv->name, obj_view(v), cv->temporary, cv->if_not_exists, err);
out:
    ident_free(&id);
    return rc;
}

int cdc_catalog_create_function(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text,
                                size_t len, const char *filename, cdc_error_t **err)
{
    src_t s = {text, len, filename};
    const cdc_sql_create_function_t *cf = &st->create_function;
    ident_t id = qualify(cat, &cf->name, true);
    int rc = -1;
    if (!*id.o) {
        fail_at(err, CDC_ERR_SQL, &s, cf->name.line, cf->name.col,
                "a function name cannot be empty");
        goto out;
    }
    if (!cf->system &&
        require_db(cat, &s, cf->name.line, cf->name.col, id.c, id.d, NULL, NULL, err) < 0)
        goto out;
    cdc_function_def_t *f = build_function(cf, &s, &id, true, err);
    if (!f)
        goto out;
    f->ddl = cdc_xstrdup(st->text ? st->text : "");
    if (cf->system) {
        if (sysfn_index(cat, f->name) >= 0) {
            function_free(f);
            if (cf->if_not_exists) {
                rc = 0;
                goto out;
            }
            fail_at(err, CDC_ERR_CATALOG, &s, cf->name.line, cf->name.col,
                    "temporary system function \"%s\" already exists", id.o);
            goto out;
        }
        push_obj(&cat->sysfns, &cat->nsysfns, obj_function(f));
        rc = 0;
        goto out;
    }
    rc = register_obj(cat, &s, &cf->name, obj_function(f), cf->temporary, cf->if_not_exists, err);
out:
    ident_free(&id);
    return rc;
}

int cdc_catalog_create_database(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text,
                                size_t len, const char *filename, cdc_error_t **err)
{
    src_t s = {text, len, filename};
    const cdc_sql_create_database_t *cd = &st->create_database;
    const cdc_sql_name_t *nm = &cd->name;
    const char *c = nm->nparts == 2 ? nm->parts[0] : cat->cur_cat;
    const char *d = nm->parts[nm->nparts - 1];
    if (!*d)
        return fail_at(err, CDC_ERR_SQL, &s, nm->line, nm->col, "a database name cannot be empty");
    ctlg_t *k = find_ctlg(cat, c);
    if (!k)
        return require_db(cat, &s, nm->line, nm->col, c, d, NULL, NULL, err);
    db_t *db = db_new(d);
    db->comment = dup_or_null(cd->comment);
    for (size_t i = 0; i < cd->options.count; i++) {
        const cdc_sql_option_t *opt = &cd->options.items[i];
        if (cdc_kv_get(&db->options, opt->key)) {
            db_free(NULL, db);
            return fail_at(err, CDC_ERR_SQL, &s, opt->line, opt->col,
                           "option \"%s\" is given twice", opt->key);
        }
        cdc_kv_set(&db->options, opt->key, opt->value);
    }
    if (write_begin(cat, k, err) < 0) {
        db_free(NULL, db);
        return -1;
    }
    if (find_db(k, d)) {
        db_free(NULL, db);
        write_end(k, false, NULL);
        if (cd->if_not_exists)
            return 0;
        return fail_at(err, CDC_ERR_CATALOG, &s, nm->line, nm->col,
                       "database \"%s.%s\" already exists", c, d);
    }
    if (k->type == CTLG_FILE) {
        char *dpath = db_path(k, d);
        int rc = 0;
        if (mkdir(dpath, 0755) < 0 && errno != EEXIST)
            rc = cdc_error_set(err, CDC_ERR_IO, "could not create directory \"%s\": %s", dpath,
                               strerror(errno));
        if (rc == 0)
            fsync_dir(k->dir);
        if (rc == 0 && (db->comment || db->options.n)) {
            char *sql = database_to_sql(db);
            char *content = cdc_strdup_printf("%s;\n", sql);
            rc = write_atomic(dpath, ".database.sql", content, err);
            free(content);
            free(sql);
        }
        free(dpath);
        if (rc < 0) {
            db_free(NULL, db);
            write_end(k, false, NULL);
            return -1;
        }
    }
    k->dbs = cdc_xrealloc(k->dbs, sizeof(*k->dbs) * (size_t)(k->ndbs + 1));
    k->dbs[k->ndbs++] = db;
    return write_end(k, true, err);
}

static const cdc_option_def_t in_memory_options[] = {
    {.key = "type",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_REQUIRED,
     .description = "the catalog type: generic_in_memory"},
    {.key = "default-database",
     .type = CDC_OPT_STRING,
     .default_value = DEFAULT_DATABASE,
     .description = "the database that USE CATALOG makes current"},
    {0},
};

static const cdc_option_def_t file_options[] = {
    {.key = "type",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_REQUIRED,
     .description = "the catalog type: file"},
    {.key = "path",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_REQUIRED,
     .description = "the directory holding the catalog (created when missing)"},
    {.key = "default-database",
     .type = CDC_OPT_STRING,
     .default_value = DEFAULT_DATABASE,
     .description = "the database that USE CATALOG makes current (created when missing)"},
    {0},
};

static const struct {
    const char *type;
    const cdc_option_def_t *defs;
    const char *keys;
} catalog_types[] = {
    {"file", file_options, "type, path, default-database"},
    {"generic_in_memory", in_memory_options, "type, default-database"},
};

#define NCATALOG_TYPES (sizeof(catalog_types) / sizeof(catalog_types[0]))

int cdc_catalog_create_catalog(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text,
                               size_t len, const char *filename, cdc_error_t **err)
{
    src_t s = {text, len, filename};
    const cdc_sql_create_catalog_t *cc = &st->create_catalog;
    const cdc_sql_name_t *nm = &cc->name;
    const char *name = nm->parts[0];
    if (!*name)
        return fail_at(err, CDC_ERR_SQL, &s, nm->line, nm->col, "a catalog name cannot be empty");
    if (find_ctlg(cat, name)) {
        if (cc->if_not_exists)
            return 0;
        return fail_at(err, CDC_ERR_CATALOG, &s, nm->line, nm->col, "catalog \"%s\" already exists",
                       name);
    }
    const cdc_sql_option_t *type = cdc_sql_options_find(&cc->options, "type");
    if (!type) {
        fail_at(err, CDC_ERR_CATALOG, &s, nm->line, nm->col,
                "catalog \"%s\" has no option "
                "\"type\"",
                name);
        cdc_error_set_hint(*err, "add 'type' = 'file' (with 'path') or 'type' = "
                                 "'generic_in_memory'");
        return -1;
    }
    size_t ti = 0;
    while (ti < NCATALOG_TYPES && strcmp(catalog_types[ti].type, type->value) != 0)
        ti++;
    if (ti == NCATALOG_TYPES) {
        fail_at(err, CDC_ERR_CATALOG, &s, type->value_line, type->value_col,
                "unknown catalog type \"%s\"", type->value);
        cdc_error_set_hint(*err, "supported types: file, generic_in_memory");
        return -1;
    }
    cdc_kv_t given = {0};
    for (size_t i = 0; i < cc->options.count; i++) {
        const cdc_sql_option_t *opt = &cc->options.items[i];
        if (cdc_kv_get(&given, opt->key)) {
            cdc_kv_free(&given);
            return fail_at(err, CDC_ERR_SQL, &s, opt->line, opt->col,
                           "option \"%s\" is given twice", opt->key);
        }
        cdc_kv_set(&given, opt->key, opt->value);
    }
    char *label = cdc_strdup_printf("catalog \"%s\"", name);
    cdc_config_t *cfg = cdc_config_new(catalog_types[ti].defs, label, &given, err);
    free(label);
    if (!cfg) {
        cdc_error_set_hint(*err, "a %s catalog takes the options %s", catalog_types[ti].type,
                           catalog_types[ti].keys);
        cdc_error_add_context(*err, "CREATE CATALOG at %s:%d:%d", filename ? filename : "<input>",
                              st->line, st->col);
        cdc_kv_free(&given);
        return -1;
    }
    const char *default_db = cdc_config_str(cfg, "default-database");
    if (strcmp(catalog_types[ti].type, "file") == 0) {
        if (ctlg_open_file(cat, name, cdc_config_str(cfg, "path"), default_db, err) < 0) {
            cdc_error_add_context(*err, "CREATE CATALOG at %s:%d:%d",
                                  filename ? filename : "<input>", st->line, st->col);
            cdc_config_destroy(cfg);
            cdc_kv_free(&given);
            return -1;
        }
    } else {
        add_ctlg(cat, ctlg_new_memory(name, default_db));
    }
    cdc_kv_copy(&cat->cats[cat->ncats - 1]->options, &given);
    cdc_config_destroy(cfg);
    cdc_kv_free(&given);
    return 0;
}

/* DROP TABLE / VIEW. */
static int drop_relation(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, obj_kind_t kind,
                         const src_t *s, cdc_error_t **err)
{
    const cdc_sql_drop_t *dr = &st->drop;
    const cdc_sql_name_t *nm = &dr->name;
    ident_t id = qualify(cat, nm, false);
    int rc = 0;
    int ti = temp_index(cat, id.c, id.d, id.o, false);
    if (dr->temporary) {
        if (ti >= 0 && cat->temps[ti]->kind == kind) {
            bury(cat, cat->temps[ti]);
            remove_at(cat->temps, &cat->ntemps, ti);
        } else if (!dr->if_exists) {
            rc = fail_at(err, CDC_ERR_CATALOG, s, nm->line, nm->col,
                         "temporary %s \"%s\" does not exist", kind_word(kind), id.q);
            if (ti >= 0)
                cdc_error_set_hint(*err, "\"%s\" is a temporary %s: use DROP TEMPORARY %s", id.q,
                                   kind_word(cat->temps[ti]->kind),
                                   kind == OBJ_TABLE ? "VIEW" : "TABLE");
            else
                cdc_error_set_hint(*err, "DROP %s without TEMPORARY drops a permanent %s",
                                   kind == OBJ_TABLE ? "TABLE" : "VIEW", kind_word(kind));
        }
        ident_free(&id);
        return rc;
    }
    if (ti >= 0 && cat->temps[ti]->kind == kind) {
        /* Flink's wording, so Flink users recognize it */
        char *bt = backticked(id.c, id.d, id.o);
        rc = fail_at(err, CDC_ERR_CATALOG, s, nm->line, nm->col,
                     "Temporary %s with identifier '%s' exists. Drop it first before removing "
                     "the permanent %s.",
                     kind_word(kind), bt, kind_word(kind));
        free(bt);
        ident_free(&id);
        return rc;
    }
    ctlg_t *k = find_ctlg(cat, id.c);
    if (!k) {
        rc = dr->if_exists ? 0 : require_db(cat, s, nm->line, nm->col, id.c, id.d, NULL, NULL, err);
        ident_free(&id);
        return rc;
    }
    if (write_begin(cat, k, err) < 0) {
        ident_free(&id);
        return -1;
    }
    db_t *db = find_db(k, id.d);
    int oi = db ? db_obj_index(db, id.o, false) : -1;
    bool changed = false;
    if (oi < 0 || db->objs[oi]->kind != kind) {
        if (!dr->if_exists) {
            if (oi >= 0) {
                rc = fail_at(err, CDC_ERR_CATALOG, s, nm->line, nm->col, "\"%s\" is a %s, not a %s",
                             id.q, kind_word(db->objs[oi]->kind), kind_word(kind));
                cdc_error_set_hint(*err, "use DROP %s", kind == OBJ_TABLE ? "VIEW" : "TABLE");
            } else {
                cdc_error_destroy(*err);
                *err = missing_object_error(cat, s, nm, &id, kind);
                rc = -1;
            }
        }
    } else {
        rc = unpersist(k, db->name, db->objs[oi], err);
        if (rc == 0) {
            bury(cat, db->objs[oi]);
            remove_at(db->objs, &db->nobjs, oi);
            changed = true;
        }
    }
    ident_free(&id);
    if (write_end(k, changed, rc < 0 ? NULL : err) < 0)
        return -1;
    return rc;
}

static int drop_function(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const src_t *s,
                         cdc_error_t **err)
{
    const cdc_sql_drop_t *dr = &st->drop;
    const cdc_sql_name_t *nm = &dr->name;
    ident_t id = qualify(cat, nm, true);
    int rc = 0;
    if (dr->system) {
        int si = sysfn_index(cat, id.o);
        if (si >= 0) {
            bury(cat, cat->sysfns[si]);
            remove_at(cat->sysfns, &cat->nsysfns, si);
        } else if (!dr->if_exists) {
            rc = fail_at(err, CDC_ERR_CATALOG, s, nm->line, nm->col,
                         "temporary system function \"%s\" does not exist", id.o);
        }
        ident_free(&id);
        return rc;
    }
    int ti = temp_index(cat, id.c, id.d, id.o, true);
    if (dr->temporary) {
        if (ti >= 0) {
            bury(cat, cat->temps[ti]);
            remove_at(cat->temps, &cat->ntemps, ti);
        } else if (!dr->if_exists) {
            rc = fail_at(err, CDC_ERR_CATALOG, s, nm->line, nm->col,
                         "temporary function \"%s\" does not exist", id.q);
            if (nm->nparts == 1 && sysfn_index(cat, id.o) >= 0)
                cdc_error_set_hint(*err,
                                   "\"%s\" is a temporary system function: use DROP "
                                   "TEMPORARY SYSTEM FUNCTION",
                                   id.o);
        }
        ident_free(&id);
        return rc;
    }
    if (ti >= 0) {
        char *bt = backticked(id.c, id.d, id.o);
        rc = fail_at(err, CDC_ERR_CATALOG, s, nm->line, nm->col,
                     "Temporary function with identifier '%s' exists. Drop it first before "
                     "removing the permanent function.",
                     bt);
        free(bt);
        ident_free(&id);
        return rc;
    }
    ctlg_t *k = find_ctlg(cat, id.c);
    if (!k) {
        rc = dr->if_exists ? 0 : require_db(cat, s, nm->line, nm->col, id.c, id.d, NULL, NULL, err);
        ident_free(&id);
        return rc;
    }
    if (write_begin(cat, k, err) < 0) {
        ident_free(&id);
        return -1;
    }
    db_t *db = find_db(k, id.d);
    int oi = db ? db_obj_index(db, id.o, true) : -1;
    bool changed = false;
    if (oi < 0) {
        if (!dr->if_exists) {
            cdc_error_destroy(*err);
            *err = missing_object_error(cat, s, nm, &id, OBJ_FUNCTION);
            rc = -1;
        }
    } else {
        rc = unpersist(k, db->name, db->objs[oi], err);
        if (rc == 0) {
            bury(cat, db->objs[oi]);
            remove_at(db->objs, &db->nobjs, oi);
            changed = true;
        }
    }
    ident_free(&id);
    if (write_end(k, changed, rc < 0 ? NULL : err) < 0)
        return -1;
    return rc;
}

/* Buries the temporary objects in catalog @p c (and database @p d when not NULL). */
static void drop_temps_in(cdc_catalog_t *cat, const char *c, const char *d)
{
    for (int i = cat->ntemps - 1; i >= 0; i--) {
        const obj_t *t = cat->temps[i];
        if (strcmp(t->catalog, c) == 0 && (!d || strcmp(t->database, d) == 0)) {
            bury(cat, cat->temps[i]);
            remove_at(cat->temps, &cat->ntemps, i);
        }
    }
}

static int drop_database(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const src_t *s,
                         cdc_error_t **err)
{
    const cdc_sql_drop_t *dr = &st->drop;
    const cdc_sql_name_t *nm = &dr->name;
    const char *c = nm->nparts == 2 ? nm->parts[0] : cat->cur_cat;
    const char *d = nm->parts[nm->nparts - 1];
    ctlg_t *k = find_ctlg(cat, c);
    if (!k)
        return dr->if_exists ? 0 : require_db(cat, s, nm->line, nm->col, c, d, NULL, NULL, err);
    if (write_begin(cat, k, err) < 0)
        return -1;
    int rc = 0;
    bool changed = false;
    int di = db_index(k, d);
    if (di < 0) {
        if (!dr->if_exists)
            rc = require_db(cat, s, nm->line, nm->col, c, d, NULL, NULL, err);
        goto out;
    }
    if (strcmp(c, cat->cur_cat) == 0 && strcmp(d, cat->cur_db) == 0) {
        rc = fail_at(err, CDC_ERR_CATALOG, s, nm->line, nm->col,
                     "cannot drop database \"%s.%s\": it is the current database", c, d);
        cdc_error_set_hint(*err, "switch to another database with USE first");
        goto out;
    }
    db_t *db = k->dbs[di];
    int ntemp = 0;
    for (int i = 0; i < cat->ntemps; i++)
        if (strcmp(cat->temps[i]->catalog, c) == 0 && strcmp(cat->temps[i]->database, d) == 0)
            ntemp++;
    if ((db->nobjs || ntemp) && !dr->cascade) {
        int counts[4] = {0};
        for (int i = 0; i < db->nobjs; i++)
            counts[db->objs[i]->kind]++;
        for (int i = 0; i < cat->ntemps; i++)
            if (strcmp(cat->temps[i]->catalog, c) == 0 && strcmp(cat->temps[i]->database, d) == 0)
                counts[cat->temps[i]->kind]++;
        rc = fail_at(err, CDC_ERR_CATALOG, s, nm->line, nm->col, "database \"%s.%s\" is not empty",
                     c, d);
        char *facts = cdc_strdup_printf("it holds %d table%s, %d view%s and %d function%s%s",
                                        counts[OBJ_TABLE], counts[OBJ_TABLE] == 1 ? "" : "s",
                                        counts[OBJ_VIEW], counts[OBJ_VIEW] == 1 ? "" : "s",
                                        counts[OBJ_FUNCTION], counts[OBJ_FUNCTION] == 1 ? "" : "s",
                                        ntemp ? " (temporary ones included)" : "");
        detail_prepend(*err, facts);
        free(facts);
        cdc_error_set_hint(*err, "use DROP DATABASE ... CASCADE to drop it with its contents");
        goto out;
    }
    if (k->type == CTLG_FILE) {
        char *dpath = db_path(k, d);
        for (int i = 0; i < db->nobjs && rc == 0; i++)
            rc = unpersist(k, d, db->objs[i], err);
        if (rc == 0) {
            char *dbfile = cdc_strdup_printf("%s/.database.sql", dpath);
            unlink(dbfile);
            free(dbfile);
            /* leftovers of writers that died between write and rename */
            DIR *dir = opendir(dpath);
            struct dirent *de;
            while (dir && (de = readdir(dir)) != NULL) {
                if (strncmp(de->d_name, ".tmp-", 5) == 0) {
                    char *p = cdc_strdup_printf("%s/%s", dpath, de->d_name);
                    unlink(p);
                    free(p);
                }
            }
            if (dir)
                closedir(dir);
            if (rmdir(dpath) < 0)
                rc = cdc_error_set(err, CDC_ERR_IO, "could not remove directory \"%s\": %s", dpath,
                                   strerror(errno));
            else
                fsync_dir(k->dir);
        }
        free(dpath);
        changed = true; /* files may be gone even on failure: others must re-read */
        if (rc < 0)
            goto out;
    }
    drop_temps_in(cat, c, d);
    db_free(cat, db);
    memmove(&k->dbs[di], &k->dbs[di + 1], sizeof(*k->dbs) * (size_t)(k->ndbs - di - 1));
    k->ndbs--;
    changed = true;
out:
    if (write_end(k, changed, rc < 0 ? NULL : err) < 0)
        return -1;
    if (rc < 0 && changed) {
        /* files went away but the database stays in memory: re-read on the next lookup */
        free(k->version);
        k->version = NULL;
    }
    return rc;
}

static int drop_catalog(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const src_t *s,
                        cdc_error_t **err)
{
    const cdc_sql_drop_t *dr = &st->drop;
    const cdc_sql_name_t *nm = &dr->name;
    const char *c = nm->parts[0];
    int ci = -1;
    for (int i = 0; i < cat->ncats; i++)
        if (strcmp(cat->cats[i]->name, c) == 0)
            ci = i;
    if (ci < 0)
        return dr->if_exists ? 0 : require_db(cat, s, nm->line, nm->col, c, "", NULL, NULL, err);
    if (strcmp(c, cat->cur_cat) == 0) {
        fail_at(err, CDC_ERR_CATALOG, s, nm->line, nm->col,
                "cannot drop catalog \"%s\": it is the current catalog", c);
        cdc_error_set_hint(*err, "switch to another catalog with USE CATALOG first");
        return -1;
    }
    drop_temps_in(cat, c, NULL);
    ctlg_free(cat, cat->cats[ci]);
    memmove(&cat->cats[ci], &cat->cats[ci + 1], sizeof(*cat->cats) * (size_t)(cat->ncats - ci - 1));
    cat->ncats--;
    return 0;
}

int cdc_catalog_drop(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text, size_t len,
                     const char *filename, cdc_error_t **err)
{
    src_t s = {text, len, filename};
    switch (st->kind) {
    case CDC_SQL_STMT_DROP_TABLE:
        return drop_relation(cat, st, OBJ_TABLE, &s, err);
    case CDC_SQL_STMT_DROP_VIEW:
        return drop_relation(cat, st, OBJ_VIEW, &s, err);
    case CDC_SQL_STMT_DROP_FUNCTION:
        return drop_function(cat, st, &s, err);
    case CDC_SQL_STMT_DROP_DATABASE:
        return drop_database(cat, st, &s, err);
    case CDC_SQL_STMT_DROP_CATALOG:
        return drop_catalog(cat, st, &s, err);
    default:
        return fail_at(err, CDC_ERR_INTERNAL, &s, st->line, st->col, "%s is not a DROP statement",
                       cdc_sql_stmt_kind_name(st->kind));
    }
}

int cdc_catalog_use(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text, size_t len,
                    const char *filename, cdc_error_t **err)
{
    src_t s = {text, len, filename};
    const cdc_sql_name_t *nm = &st->use;
    if (st->kind == CDC_SQL_STMT_USE_CATALOG) {
        ctlg_t *k = find_ctlg(cat, nm->parts[0]);
        if (!k)
            return require_db(cat, &s, nm->line, nm->col, nm->parts[0], "", NULL, NULL, err);
        char *c = cdc_xstrdup(k->name), *d = cdc_xstrdup(k->default_db);
        free(cat->cur_cat);
        free(cat->cur_db);
        cat->cur_cat = c;
        cat->cur_db = d;
        return 0;
    }
    const char *c = nm->nparts == 2 ? nm->parts[0] : cat->cur_cat;
    const char *d = nm->parts[nm->nparts - 1];
    if (require_db(cat, &s, nm->line, nm->col, c, d, NULL, NULL, err) < 0)
        return -1;
    char *nc = cdc_xstrdup(c), *nd = cdc_xstrdup(d);
    free(cat->cur_cat);
    free(cat->cur_db);
    cat->cur_cat = nc;
    cat->cur_db = nd;
    return 0;
}

/* ---- SHOW ------------------------------------------------------------------------------------ */

int cdc_catalog_list(cdc_catalog_t *cat, cdc_sql_show_kind_t what, char ***out, cdc_error_t **err)
{
    strv_t names = {0};
    ctlg_t *k = NULL;
    db_t *db = NULL;
    if (what == CDC_SQL_SHOW_DATABASES || what == CDC_SQL_SHOW_TABLES ||
        what == CDC_SQL_SHOW_VIEWS || what == CDC_SQL_SHOW_FUNCTIONS) {
        k = find_ctlg(cat, cat->cur_cat);
        if (!k)
            return cdc_error_set(err, CDC_ERR_CATALOG, "the current catalog \"%s\" does not exist",
                                 cat->cur_cat);
        if (ctlg_sync(cat, k, err) < 0)
            return -1;
        db = find_db(k, cat->cur_db);
        if (!db && what != CDC_SQL_SHOW_DATABASES)
            return cdc_error_set(err, CDC_ERR_CATALOG,
                                 "the current database \"%s.%s\" does not exist", cat->cur_cat,
                                 cat->cur_db);
    }
    bool function = what == CDC_SQL_SHOW_FUNCTIONS;
    switch (what) {
    case CDC_SQL_SHOW_CATALOGS:
        for (int i = 0; i < cat->ncats; i++)
            strv_push(&names, cat->cats[i]->name);
        break;
    case CDC_SQL_SHOW_DATABASES:
        for (int i = 0; i < k->ndbs; i++)
            strv_push(&names, k->dbs[i]->name);
        break;
    case CDC_SQL_SHOW_TABLES:
    case CDC_SQL_SHOW_VIEWS:
    case CDC_SQL_SHOW_FUNCTIONS:
        for (int i = 0; i < db->nobjs; i++) {
            const obj_t *o = db->objs[i];
            if (same_space(o->kind, function) &&
                (what != CDC_SQL_SHOW_VIEWS || o->kind == OBJ_VIEW))
                strv_push(&names, o->name);
        }
        for (int i = 0; i < cat->ntemps; i++) {
            const obj_t *o = cat->temps[i];
            if (same_space(o->kind, function) &&
                (what != CDC_SQL_SHOW_VIEWS || o->kind == OBJ_VIEW) &&
                strcmp(o->catalog, cat->cur_cat) == 0 && strcmp(o->database, cat->cur_db) == 0)
                strv_push(&names, o->name);
        }
        if (function) {
            for (int i = 0; i < cat->nsysfns; i++)
                strv_push(&names, cat->sysfns[i]->name);
            for (int i = 0; builtin_names && builtin_names[i]; i++) {
                char *l = lower_dup(builtin_names[i]);
                strv_push(&names, l);
                free(l);
            }
        }
        break;
    case CDC_SQL_SHOW_CURRENT_CATALOG:
        strv_push(&names, cat->cur_cat);
        break;
    case CDC_SQL_SHOW_CURRENT_DATABASE:
        strv_push(&names, cat->cur_db);
        break;
    }
    strv_sort_unique(&names);
    *out = names.v ? names.v : cdc_xcalloc(1, sizeof(char *));
    return names.n;
}

void cdc_catalog_list_free(char **names)
{
    if (!names)
        return;
    for (char **p = names; *p; p++)
        free(*p);
    free(names);
}
