/*
 * cdc_catalog.c — catalogs, databases, tables, views and functions; temporary
 * objects that shadow permanent ones (FLIP-64); file catalogs that keep
 * permanent objects as DDL files (see cdc_catalog.h for the rules and layout).
 *
 * This file holds positioned errors and small helpers, the model (objects,
 * databases, catalogs, the manager) and name resolution. File catalogs are in
 * cdc_catalog_file.c, building definitions from statements and printing them
 * as DDL in cdc_catalog_define.c, executing statements in cdc_ddl.c; the
 * shared model and helpers are declared in cdc_catalog_int.h.
 */
#include "cdc_catalog_int.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cdc_udf.h"

/* ---- errors and small helpers ------------------------------------------------------------------
 */
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
int cdc_cat_fail_at(cdc_error_t **err, cdc_errcode_t code, const src_t *s, int line, int col,
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
void cdc_cat_detail_prepend(cdc_error_t *err, const char *first)
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

void cdc_cat_hint_closest(cdc_error_t *err, const char *word, const char *const *cands, int n)
{
    const char *sug = cdc_closest(word, cands, n);
    if (sug && strcmp(sug, word) != 0)
        cdc_error_set_hint(err, "did you mean \"%s\"?", sug);
}

char *cdc_cat_lower_dup(const char *s)
{
    char *p = cdc_xstrdup(s);
    for (char *q = p; *q; q++)
        if (*q >= 'A' && *q <= 'Z')
            *q = (char)(*q - 'A' + 'a');
    return p;
}

char *cdc_cat_dup_or_null(const char *s)
{
    return s ? cdc_xstrdup(s) : NULL;
}

void cdc_cat_strv_push(strv_t *sv, const char *s)
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
void cdc_cat_strv_sort_unique(strv_t *sv)
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

char *cdc_cat_buf_take(cdc_buf_t *b)
{
    char *s = cdc_xstrdup(cdc_buf_cstr(b));
    cdc_buf_free(b);
    return s;
}

/* ---- the model ----------------------------------------------------------------------------------
 */

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

void cdc_cat_column_free(cdc_column_def_t *c)
{
    free(c->name);
    if (c->kind != CDC_COLUMN_PHYSICAL)
        cdc_type_destroy(c->type);
    cdc_sql_expr_destroy(c->expr);
    free(c->expr_text);
    free(c->metadata_key);
    free(c->comment);
}

void cdc_cat_table_free(cdc_table_def_t *t)
{
    if (!t)
        return;
    free(t->catalog);
    free(t->database);
    free(t->name);
    free(t->qualified);
    for (int i = 0; i < t->ncolumns; i++)
        cdc_cat_column_free(&t->columns[i]);
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

void cdc_table_def_destroy(cdc_table_def_t *t)
{
    cdc_cat_table_free(t);
}

void cdc_cat_view_free(cdc_view_def_t *v)
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

void cdc_cat_function_free(cdc_function_def_t *f)
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

void cdc_cat_obj_free(obj_t *o)
{
    if (!o)
        return;
    if (o->kind == OBJ_TABLE)
        cdc_cat_table_free(o->table);
    else if (o->kind == OBJ_VIEW)
        cdc_cat_view_free(o->view);
    else
        cdc_cat_function_free(o->fn);
    free(o->file_text);
    free(o);
}

obj_t *cdc_cat_obj_table(cdc_table_def_t *t)
{
    obj_t *o = cdc_xcalloc(1, sizeof(*o));
    o->kind = OBJ_TABLE;
    o->table = t;
    o->catalog = t->catalog;
    o->database = t->database;
    o->name = t->name;
    return o;
}

obj_t *cdc_cat_obj_view(cdc_view_def_t *v)
{
    obj_t *o = cdc_xcalloc(1, sizeof(*o));
    o->kind = OBJ_VIEW;
    o->view = v;
    o->catalog = v->catalog;
    o->database = v->database;
    o->name = v->name;
    return o;
}

obj_t *cdc_cat_obj_function(cdc_function_def_t *f)
{
    obj_t *o = cdc_xcalloc(1, sizeof(*o));
    o->kind = OBJ_FUNCTION;
    o->fn = f;
    o->catalog = f->catalog;
    o->database = f->database;
    o->name = f->name;
    return o;
}

const char *cdc_cat_kind_word(obj_kind_t kind)
{
    return kind == OBJ_TABLE ? "table" : kind == OBJ_VIEW ? "view" : "function";
}

const char *cdc_cat_obj_qualified(const obj_t *o)
{
    return o->kind == OBJ_TABLE  ? o->table->qualified
           : o->kind == OBJ_VIEW ? o->view->qualified
                                 : o->fn->qualified;
}

void cdc_cat_push_obj(obj_t ***arr, int *n, obj_t *o)
{
    *arr = cdc_xrealloc(*arr, sizeof(**arr) * (size_t)(*n + 1));
    (*arr)[(*n)++] = o;
}

void cdc_cat_remove_at(obj_t **arr, int *n, int i)
{
    memmove(&arr[i], &arr[i + 1], sizeof(*arr) * (size_t)(*n - i - 1));
    (*n)--;
}

void cdc_cat_bury(cdc_catalog_t *cat, obj_t *o)
{
    cdc_cat_push_obj(&cat->graveyard, &cat->ngrave, o);
}

void cdc_cat_db_free(cdc_catalog_t *cat, db_t *db)
{
    if (!db)
        return;
    for (int i = 0; i < db->nobjs; i++) {
        if (cat)
            cdc_cat_bury(cat, db->objs[i]);
        else
            cdc_cat_obj_free(db->objs[i]);
    }
    free(db->objs);
    free(db->name);
    free(db->comment);
    cdc_kv_free(&db->options);
    free(db);
}

db_t *cdc_cat_db_new(const char *name)
{
    db_t *db = cdc_xcalloc(1, sizeof(*db));
    db->name = cdc_xstrdup(name);
    return db;
}

void cdc_cat_ctlg_free(cdc_catalog_t *cat, ctlg_t *k)
{
    if (!k)
        return;
    for (int i = 0; i < k->ndbs; i++)
        cdc_cat_db_free(cat, k->dbs[i]);
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

ctlg_t *cdc_cat_find_ctlg(const cdc_catalog_t *cat, const char *name)
{
    for (int i = 0; i < cat->ncats; i++)
        if (strcmp(cat->cats[i]->name, name) == 0)
            return cat->cats[i];
    return NULL;
}

int cdc_cat_db_index(const ctlg_t *k, const char *name)
{
    for (int i = 0; i < k->ndbs; i++)
        if (strcmp(k->dbs[i]->name, name) == 0)
            return i;
    return -1;
}

db_t *cdc_cat_find_db(const ctlg_t *k, const char *name)
{
    int i = cdc_cat_db_index(k, name);
    return i < 0 ? NULL : k->dbs[i];
}

/* Tables and views share a namespace; functions have their own. */
bool cdc_cat_same_space(obj_kind_t kind, bool function)
{
    return function ? kind == OBJ_FUNCTION : kind != OBJ_FUNCTION;
}

int cdc_cat_db_obj_index(const db_t *db, const char *name, bool function)
{
    for (int i = 0; i < db->nobjs; i++)
        if (cdc_cat_same_space(db->objs[i]->kind, function) && strcmp(db->objs[i]->name, name) == 0)
            return i;
    return -1;
}

obj_t *cdc_cat_db_find(const db_t *db, const char *name, bool function)
{
    int i = cdc_cat_db_obj_index(db, name, function);
    return i < 0 ? NULL : db->objs[i];
}

int cdc_cat_temp_index(const cdc_catalog_t *cat, const char *c, const char *d, const char *o,
                       bool function)
{
    for (int i = 0; i < cat->ntemps; i++) {
        const obj_t *t = cat->temps[i];
        if (cdc_cat_same_space(t->kind, function) && strcmp(t->catalog, c) == 0 &&
            strcmp(t->database, d) == 0 && strcmp(t->name, o) == 0)
            return i;
    }
    return -1;
}

obj_t *cdc_cat_temp_find(const cdc_catalog_t *cat, const char *c, const char *d, const char *o,
                         bool function)
{
    int i = cdc_cat_temp_index(cat, c, d, o, function);
    return i < 0 ? NULL : cat->temps[i];
}

int cdc_cat_sysfn_index(const cdc_catalog_t *cat, const char *name)
{
    for (int i = 0; i < cat->nsysfns; i++)
        if (strcmp(cat->sysfns[i]->name, name) == 0)
            return i;
    return -1;
}

/* ---- identifiers
 * ---------------------------------------------------------------------------------- */
ident_t cdc_cat_qualify(const cdc_catalog_t *cat, const cdc_sql_name_t *name, bool function)
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
        id.lowered = cdc_cat_lower_dup(id.o);
        id.o = id.lowered;
    }
    id.q = cdc_strdup_printf("%s.%s.%s", id.c, id.d, id.o);
    return id;
}

void cdc_cat_ident_free(ident_t *id)
{
    free(id->lowered);
    free(id->q);
}

/* Flink's summary form: `c`.`d`.`o`. */
char *cdc_cat_backticked(const char *c, const char *d, const char *o)
{
    cdc_buf_t b = {0};
    cdc_sql_put_ident(&b, c);
    cdc_buf_putc(&b, '.');
    cdc_sql_put_ident(&b, d);
    cdc_buf_putc(&b, '.');
    cdc_sql_put_ident(&b, o);
    return cdc_cat_buf_take(&b);
}

/* ---- the manager -------------------------------------------------------------------------- */

static cdc_catalog_t *new_manager(void)
{
    cdc_catalog_t *cat = cdc_xcalloc(1, sizeof(*cat));
    cat->cur_cat = cdc_xstrdup(DEFAULT_CATALOG);
    cat->cur_db = cdc_xstrdup(DEFAULT_DATABASE);
    return cat;
}

cdc_catalog_t *cdc_catalog_new(void)
{
    cdc_catalog_t *cat = new_manager();
    cdc_cat_add_ctlg(cat, cdc_cat_ctlg_new_memory(DEFAULT_CATALOG, DEFAULT_DATABASE));
    return cat;
}

cdc_catalog_t *cdc_catalog_new_with_dir(const char *dir, bool dry_run, cdc_error_t **err)
{
    cdc_catalog_t *cat = new_manager();
    cat->dry_run = dry_run;
    if (!dir) {
        cdc_cat_add_ctlg(cat, cdc_cat_ctlg_new_memory(DEFAULT_CATALOG, DEFAULT_DATABASE));
        return cat;
    }
    if (cdc_cat_ctlg_open_file(cat, DEFAULT_CATALOG, dir, DEFAULT_DATABASE, err) < 0) {
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
        cdc_cat_ctlg_free(NULL, cat->cats[i]);
    free(cat->cats);
    for (int i = 0; i < cat->ntemps; i++)
        cdc_cat_obj_free(cat->temps[i]);
    free(cat->temps);
    for (int i = 0; i < cat->nsysfns; i++)
        cdc_cat_obj_free(cat->sysfns[i]);
    free(cat->sysfns);
    for (int i = 0; i < cat->ngrave; i++)
        cdc_cat_obj_free(cat->graveyard[i]);
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
int cdc_cat_find_obj(cdc_catalog_t *cat, const char *c, const char *d, const char *o, bool function,
                     obj_t **out, cdc_error_t **err)
{
    obj_t *t = cdc_cat_temp_find(cat, c, d, o, function);
    if (t) {
        *out = t;
        return 1;
    }
    ctlg_t *k = cdc_cat_find_ctlg(cat, c);
    if (!k)
        return 0;
    if (cdc_cat_ctlg_sync(cat, k, err) < 0)
        return -1;
    db_t *db = cdc_cat_find_db(k, d);
    if (!db)
        return 0;
    obj_t *p = cdc_cat_db_find(db, o, function);
    if (!p)
        return 0;
    *out = p;
    return 1;
}

/* Checks that the catalog and database of @p id exist; *pk / *pdb receive them. */
int cdc_cat_require_db(cdc_catalog_t *cat, const src_t *s, int line, int col, const char *c,
                       const char *d, ctlg_t **pk, db_t **pdb, cdc_error_t **err)
{
    ctlg_t *k = cdc_cat_find_ctlg(cat, c);
    if (!k) {
        cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, line, col, "catalog \"%s\" does not exist", c);
        const char **names = cdc_xcalloc((size_t)cat->ncats + 1, sizeof(char *));
        for (int i = 0; i < cat->ncats; i++)
            names[i] = cat->cats[i]->name;
        cdc_cat_hint_closest(*err, c, names, cat->ncats);
        free(names);
        return -1;
    }
    if (cdc_cat_ctlg_sync(cat, k, err) < 0)
        return -1;
    db_t *db = cdc_cat_find_db(k, d);
    if (!db) {
        cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, line, col, "database \"%s.%s\" does not exist", c,
                        d);
        const char **names = cdc_xcalloc((size_t)k->ndbs + 1, sizeof(char *));
        for (int i = 0; i < k->ndbs; i++)
            names[i] = k->dbs[i]->name;
        cdc_cat_hint_closest(*err, d, names, k->ndbs);
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
cdc_error_t *cdc_cat_missing_object_error(cdc_catalog_t *cat, const src_t *s,
                                          const cdc_sql_name_t *name, const ident_t *id,
                                          obj_kind_t kind)
{
    cdc_error_t *err = NULL;
    db_t *db = NULL;
    if (cdc_cat_require_db(cat, s, name->line, name->col, id->c, id->d, NULL, &db, &err) < 0)
        return err;
    bool function = kind == OBJ_FUNCTION;
    strv_t names = {0};
    for (int i = 0; i < db->nobjs; i++)
        if (cdc_cat_same_space(db->objs[i]->kind, function))
            cdc_cat_strv_push(&names, db->objs[i]->name);
    for (int i = 0; i < cat->ntemps; i++) {
        const obj_t *t = cat->temps[i];
        if (cdc_cat_same_space(t->kind, function) && strcmp(t->catalog, id->c) == 0 &&
            strcmp(t->database, id->d) == 0)
            cdc_cat_strv_push(&names, t->name);
    }
    cdc_cat_fail_at(&err, CDC_ERR_CATALOG, s, name->line, name->col, "%s \"%s\" does not exist",
                    cdc_cat_kind_word(kind), id->q);
    cdc_cat_hint_closest(err, id->o, (const char *const *)names.v, names.n);
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
    ident_t id = cdc_cat_qualify(cat, name, false);
    obj_t *o = NULL;
    int r = cdc_cat_find_obj(cat, id.c, id.d, id.o, false, &o, err);
    cdc_cat_ident_free(&id);
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
    ident_t id = cdc_cat_qualify(cat, name, false);
    obj_t *o = NULL;
    int r = cdc_cat_find_obj(cat, id.c, id.d, id.o, false, &o, err);
    const void *res = NULL;
    if (r == 0) {
        cdc_error_destroy(*err);
        *err = cdc_cat_missing_object_error(cat, s, name, &id, kind);
    } else if (r > 0 && o->kind != kind) {
        cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, name->line, name->col, "\"%s\" is a %s, not a %s",
                        id.q, cdc_cat_kind_word(o->kind), cdc_cat_kind_word(kind));
    } else if (r > 0) {
        res = kind == OBJ_TABLE ? (const void *)o->table : (const void *)o->view;
    }
    cdc_cat_ident_free(&id);
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
    ident_t id = cdc_cat_qualify(cat, &nm, true);
    if (nm.nparts == 1) {
        int si = cdc_cat_sysfn_index(cat, id.o);
        if (si >= 0) {
            o = cat->sysfns[si];
            r = 1;
        } else if (!is_builtin(id.o)) {
            r = cdc_cat_find_obj(cat, id.c, id.d, id.o, true, &o, err);
        }
    } else {
        r = cdc_cat_find_obj(cat, id.c, id.d, id.o, true, &o, err);
    }
    cdc_cat_ident_free(&id);
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
