/*
 * cdc_ddl.c — executes catalog statements against a cdc_catalog_t (CREATE,
 * DROP and USE of catalogs, databases, tables, views and functions, ALTER TABLE, with
 * their file-catalog persistence), lists what SHOW lists, and prints what
 * SHOW, SHOW CREATE and DESCRIBE show (see cdc_ddl.h for the formats).
 */
#include "cdc_ddl.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cdc_catalog_int.h"

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
    char *dpath = cdc_cat_db_path(k, dbname);
    char *fname = cdc_cat_obj_file_name(o->kind, o->name);
    int rc = cdc_cat_write_atomic(dpath, fname, cdc_buf_cstr(&b), err);
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
    char *dpath = cdc_cat_db_path(k, dbname);
    char *fname = cdc_cat_obj_file_name(o->kind, o->name);
    char *path = cdc_strdup_printf("%s/%s", dpath, fname);
    int rc = 0;
    if (unlink(path) < 0 && errno != ENOENT)
        rc = cdc_error_set(err, CDC_ERR_IO, "could not remove \"%s\": %s", path, strerror(errno));
    else
        cdc_cat_fsync_dir(dpath);
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
        obj_t *ex = cdc_cat_temp_find(cat, o->catalog, o->database, o->name, function);
        if (ex) {
            cdc_cat_obj_free(o);
            if (if_not_exists)
                return 0;
            return cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, name->line, name->col,
                                   "temporary %s \"%s\" already exists",
                                   cdc_cat_kind_word(ex->kind), cdc_cat_obj_qualified(ex));
        }
        cdc_cat_push_obj(&cat->temps, &cat->ntemps, o);
        return 0;
    }
    if (function && cdc_cat_temp_find(cat, o->catalog, o->database, o->name, true)) {
        /* Flink forces users to deal with the temporary function first */
        char *q = cdc_xstrdup(cdc_cat_obj_qualified(o));
        cdc_cat_obj_free(o);
        if (if_not_exists) {
            free(q);
            return 0;
        }
        cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, name->line, name->col,
                        "temporary function \"%s\" already exists", q);
        cdc_error_set_hint(*err, "drop it first with DROP TEMPORARY FUNCTION");
        free(q);
        return -1;
    }
    ctlg_t *k = cdc_cat_find_ctlg(cat, o->catalog);
    if (cdc_cat_write_begin(cat, k, err) < 0) {
        cdc_cat_obj_free(o);
        return -1;
    }
    db_t *db = NULL;
    int rc =
        cdc_cat_require_db(cat, s, name->line, name->col, o->catalog, o->database, NULL, &db, err);
    obj_t *ex = rc == 0 ? cdc_cat_db_find(db, o->name, function) : NULL;
    if (ex) {
        if (!if_not_exists)
            rc = cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, name->line, name->col,
                                 "%s \"%s\" already exists", cdc_cat_kind_word(ex->kind),
                                 cdc_cat_obj_qualified(ex));
        cdc_cat_obj_free(o);
        cdc_cat_write_end(k, false, NULL);
        return rc;
    }
    if (rc == 0)
        rc = persist(k, db->name, o, err);
    if (rc < 0) {
        cdc_cat_obj_free(o);
        cdc_cat_write_end(k, false, NULL);
        return -1;
    }
    cdc_cat_push_obj(&db->objs, &db->nobjs, o);
    return cdc_cat_write_end(k, true, err);
}

static int replace_table(cdc_catalog_t *cat, const char *c, const char *d, const char *o,
                         bool temporary, cdc_table_def_t *t2, cdc_error_t **err);

static int create_table(cdc_catalog_t *cat, const cdc_sql_create_table_t *ct, const char *ddl,
                        const src_t *s, cdc_error_t **err)
{
    ident_t id = cdc_cat_qualify(cat, &ct->name, false);
    int rc = -1;
    if (!*id.o) {
        cdc_cat_fail_at(err, CDC_ERR_SQL, s, ct->name.line, ct->name.col,
                        "a table name cannot be empty");
        goto out;
    }
    if (cdc_cat_require_db(cat, s, ct->name.line, ct->name.col, id.c, id.d, NULL, NULL, err) < 0)
        goto out;
    cdc_table_def_t *t = cdc_cat_build_table(cat, ct, s, &id, err);
    if (!t)
        goto out;
    t->ddl = ddl ? cdc_xstrdup(ddl) : cdc_table_def_to_sql(t, true);
    const cdc_table_def_t *old = NULL;
    if (ct->replace && (rc = cdc_catalog_find(cat, &ct->name, &old, NULL, err)) < 0) {
        cdc_table_def_destroy(t);
        goto out;
    }
    if (old) { /* [CREATE OR] REPLACE TABLE: in the old one's place, in one step */
        rc = replace_table(cat, old->catalog, old->database, old->name, old->temporary, t, err);
        goto out;
    }
    rc = register_obj(cat, s, &ct->name, cdc_cat_obj_table(t), ct->temporary, ct->if_not_exists,
                      err);
out:
    cdc_cat_ident_free(&id);
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
    ident_t id = cdc_cat_qualify(cat, &cv->name, false);
    int rc = -1;
    if (!*id.o) {
        cdc_cat_fail_at(err, CDC_ERR_SQL, &s, cv->name.line, cv->name.col,
                        "a view name cannot be empty");
        goto out;
    }
    if (cdc_cat_require_db(cat, &s, cv->name.line, cv->name.col, id.c, id.d, NULL, NULL, err) < 0)
        goto out;
    cdc_view_def_t *v = cdc_cat_build_view(cat, cv, &s, &id, false, err);
    if (!v)
        goto out;
    v->ddl = cdc_xstrdup(st->text ? st->text : "");
    rc = register_obj(cat, &s, &cv->name, cdc_cat_obj_view(v), cv->temporary, cv->if_not_exists,
                      err);
out:
    cdc_cat_ident_free(&id);
    return rc;
}

int cdc_catalog_create_function(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text,
                                size_t len, const char *filename, cdc_error_t **err)
{
    src_t s = {text, len, filename};
    const cdc_sql_create_function_t *cf = &st->create_function;
    ident_t id = cdc_cat_qualify(cat, &cf->name, true);
    int rc = -1;
    if (!*id.o) {
        cdc_cat_fail_at(err, CDC_ERR_SQL, &s, cf->name.line, cf->name.col,
                        "a function name cannot be empty");
        goto out;
    }
    if (!cf->system &&
        cdc_cat_require_db(cat, &s, cf->name.line, cf->name.col, id.c, id.d, NULL, NULL, err) < 0)
        goto out;
    cdc_function_def_t *f = cdc_cat_build_function(cf, &s, &id, true, err);
    if (!f)
        goto out;
    f->ddl = cdc_xstrdup(st->text ? st->text : "");
    if (cf->system) {
        if (cdc_cat_sysfn_index(cat, f->name) >= 0) {
            cdc_cat_function_free(f);
            if (cf->if_not_exists) {
                rc = 0;
                goto out;
            }
            cdc_cat_fail_at(err, CDC_ERR_CATALOG, &s, cf->name.line, cf->name.col,
                            "temporary system function \"%s\" already exists", id.o);
            goto out;
        }
        cdc_cat_push_obj(&cat->sysfns, &cat->nsysfns, cdc_cat_obj_function(f));
        rc = 0;
        goto out;
    }
    rc = register_obj(cat, &s, &cf->name, cdc_cat_obj_function(f), cf->temporary, cf->if_not_exists,
                      err);
out:
    cdc_cat_ident_free(&id);
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
        return cdc_cat_fail_at(err, CDC_ERR_SQL, &s, nm->line, nm->col,
                               "a database name cannot be empty");
    ctlg_t *k = cdc_cat_find_ctlg(cat, c);
    if (!k)
        return cdc_cat_require_db(cat, &s, nm->line, nm->col, c, d, NULL, NULL, err);
    db_t *db = cdc_cat_db_new(d);
    db->comment = cdc_cat_dup_or_null(cd->comment);
    for (size_t i = 0; i < cd->options.count; i++) {
        const cdc_sql_option_t *opt = &cd->options.items[i];
        if (cdc_kv_get(&db->options, opt->key)) {
            cdc_cat_db_free(NULL, db);
            return cdc_cat_fail_at(err, CDC_ERR_SQL, &s, opt->line, opt->col,
                                   "option \"%s\" is given twice", opt->key);
        }
        cdc_kv_set(&db->options, opt->key, opt->value);
    }
    if (cdc_cat_write_begin(cat, k, err) < 0) {
        cdc_cat_db_free(NULL, db);
        return -1;
    }
    if (cdc_cat_find_db(k, d)) {
        cdc_cat_db_free(NULL, db);
        cdc_cat_write_end(k, false, NULL);
        if (cd->if_not_exists)
            return 0;
        return cdc_cat_fail_at(err, CDC_ERR_CATALOG, &s, nm->line, nm->col,
                               "database \"%s.%s\" already exists", c, d);
    }
    if (k->type == CTLG_FILE) {
        char *dpath = cdc_cat_db_path(k, d);
        int rc = 0;
        if (mkdir(dpath, 0755) < 0 && errno != EEXIST)
            rc = cdc_error_set(err, CDC_ERR_IO, "could not create directory \"%s\": %s", dpath,
                               strerror(errno));
        if (rc == 0)
            cdc_cat_fsync_dir(k->dir);
        if (rc == 0 && (db->comment || db->options.n)) {
            char *sql = cdc_cat_database_to_sql(db);
            char *content = cdc_strdup_printf("%s;\n", sql);
            rc = cdc_cat_write_atomic(dpath, ".database.sql", content, err);
            free(content);
            free(sql);
        }
        free(dpath);
        if (rc < 0) {
            cdc_cat_db_free(NULL, db);
            cdc_cat_write_end(k, false, NULL);
            return -1;
        }
    }
    k->dbs = cdc_xrealloc(k->dbs, sizeof(*k->dbs) * (size_t)(k->ndbs + 1));
    k->dbs[k->ndbs++] = db;
    return cdc_cat_write_end(k, true, err);
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
        return cdc_cat_fail_at(err, CDC_ERR_SQL, &s, nm->line, nm->col,
                               "a catalog name cannot be empty");
    if (cdc_cat_find_ctlg(cat, name)) {
        if (cc->if_not_exists)
            return 0;
        return cdc_cat_fail_at(err, CDC_ERR_CATALOG, &s, nm->line, nm->col,
                               "catalog \"%s\" already exists", name);
    }
    const cdc_sql_option_t *type = cdc_sql_options_find(&cc->options, "type");
    if (!type) {
        cdc_cat_fail_at(err, CDC_ERR_CATALOG, &s, nm->line, nm->col,
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
        cdc_cat_fail_at(err, CDC_ERR_CATALOG, &s, type->value_line, type->value_col,
                        "unknown catalog type \"%s\"", type->value);
        cdc_error_set_hint(*err, "supported types: file, generic_in_memory");
        return -1;
    }
    cdc_kv_t given = {0};
    for (size_t i = 0; i < cc->options.count; i++) {
        const cdc_sql_option_t *opt = &cc->options.items[i];
        if (cdc_kv_get(&given, opt->key)) {
            cdc_kv_free(&given);
            return cdc_cat_fail_at(err, CDC_ERR_SQL, &s, opt->line, opt->col,
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
        if (cdc_cat_ctlg_open_file(cat, name, cdc_config_str(cfg, "path"), default_db, err) < 0) {
            cdc_error_add_context(*err, "CREATE CATALOG at %s:%d:%d",
                                  filename ? filename : "<input>", st->line, st->col);
            cdc_config_destroy(cfg);
            cdc_kv_free(&given);
            return -1;
        }
    } else {
        cdc_cat_add_ctlg(cat, cdc_cat_ctlg_new_memory(name, default_db));
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
    ident_t id = cdc_cat_qualify(cat, nm, false);
    int rc = 0;
    int ti = cdc_cat_temp_index(cat, id.c, id.d, id.o, false);
    if (dr->temporary) {
        if (ti >= 0 && cat->temps[ti]->kind == kind) {
            cdc_cat_bury(cat, cat->temps[ti]);
            cdc_cat_remove_at(cat->temps, &cat->ntemps, ti);
        } else if (!dr->if_exists) {
            rc = cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, nm->line, nm->col,
                                 "temporary %s \"%s\" does not exist", cdc_cat_kind_word(kind),
                                 id.q);
            if (ti >= 0)
                cdc_error_set_hint(*err, "\"%s\" is a temporary %s: use DROP TEMPORARY %s", id.q,
                                   cdc_cat_kind_word(cat->temps[ti]->kind),
                                   kind == OBJ_TABLE ? "VIEW" : "TABLE");
            else
                cdc_error_set_hint(*err, "DROP %s without TEMPORARY drops a permanent %s",
                                   kind == OBJ_TABLE ? "TABLE" : "VIEW", cdc_cat_kind_word(kind));
        }
        cdc_cat_ident_free(&id);
        return rc;
    }
    if (ti >= 0 && cat->temps[ti]->kind == kind) {
        /* Flink's wording, so Flink users recognize it */
        char *bt = cdc_cat_backticked(id.c, id.d, id.o);
        rc = cdc_cat_fail_at(
            err, CDC_ERR_CATALOG, s, nm->line, nm->col,
            "Temporary %s with identifier '%s' exists. Drop it first before removing "
            "the permanent %s.",
            cdc_cat_kind_word(kind), bt, cdc_cat_kind_word(kind));
        free(bt);
        cdc_cat_ident_free(&id);
        return rc;
    }
    ctlg_t *k = cdc_cat_find_ctlg(cat, id.c);
    if (!k) {
        rc = dr->if_exists
                 ? 0
                 : cdc_cat_require_db(cat, s, nm->line, nm->col, id.c, id.d, NULL, NULL, err);
        cdc_cat_ident_free(&id);
        return rc;
    }
    if (cdc_cat_write_begin(cat, k, err) < 0) {
        cdc_cat_ident_free(&id);
        return -1;
    }
    db_t *db = cdc_cat_find_db(k, id.d);
    int oi = db ? cdc_cat_db_obj_index(db, id.o, false) : -1;
    bool changed = false;
    if (oi < 0 || db->objs[oi]->kind != kind) {
        if (!dr->if_exists) {
            if (oi >= 0) {
                rc = cdc_cat_fail_at(
                    err, CDC_ERR_CATALOG, s, nm->line, nm->col, "\"%s\" is a %s, not a %s", id.q,
                    cdc_cat_kind_word(db->objs[oi]->kind), cdc_cat_kind_word(kind));
                cdc_error_set_hint(*err, "use DROP %s", kind == OBJ_TABLE ? "VIEW" : "TABLE");
            } else {
                cdc_error_destroy(*err);
                *err = cdc_cat_missing_object_error(cat, s, nm, &id, kind);
                rc = -1;
            }
        }
    } else {
        rc = unpersist(k, db->name, db->objs[oi], err);
        if (rc == 0) {
            cdc_cat_bury(cat, db->objs[oi]);
            cdc_cat_remove_at(db->objs, &db->nobjs, oi);
            changed = true;
        }
    }
    cdc_cat_ident_free(&id);
    if (cdc_cat_write_end(k, changed, rc < 0 ? NULL : err) < 0)
        return -1;
    return rc;
}

static int drop_function(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const src_t *s,
                         cdc_error_t **err)
{
    const cdc_sql_drop_t *dr = &st->drop;
    const cdc_sql_name_t *nm = &dr->name;
    ident_t id = cdc_cat_qualify(cat, nm, true);
    int rc = 0;
    if (dr->system) {
        int si = cdc_cat_sysfn_index(cat, id.o);
        if (si >= 0) {
            cdc_cat_bury(cat, cat->sysfns[si]);
            cdc_cat_remove_at(cat->sysfns, &cat->nsysfns, si);
        } else if (!dr->if_exists) {
            rc = cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, nm->line, nm->col,
                                 "temporary system function \"%s\" does not exist", id.o);
        }
        cdc_cat_ident_free(&id);
        return rc;
    }
    int ti = cdc_cat_temp_index(cat, id.c, id.d, id.o, true);
    if (dr->temporary) {
        if (ti >= 0) {
            cdc_cat_bury(cat, cat->temps[ti]);
            cdc_cat_remove_at(cat->temps, &cat->ntemps, ti);
        } else if (!dr->if_exists) {
            rc = cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, nm->line, nm->col,
                                 "temporary function \"%s\" does not exist", id.q);
            if (nm->nparts == 1 && cdc_cat_sysfn_index(cat, id.o) >= 0)
                cdc_error_set_hint(*err,
                                   "\"%s\" is a temporary system function: use DROP "
                                   "TEMPORARY SYSTEM FUNCTION",
                                   id.o);
        }
        cdc_cat_ident_free(&id);
        return rc;
    }
    if (ti >= 0) {
        char *bt = cdc_cat_backticked(id.c, id.d, id.o);
        rc = cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, nm->line, nm->col,
                             "Temporary function with identifier '%s' exists. Drop it first before "
                             "removing the permanent function.",
                             bt);
        free(bt);
        cdc_cat_ident_free(&id);
        return rc;
    }
    ctlg_t *k = cdc_cat_find_ctlg(cat, id.c);
    if (!k) {
        rc = dr->if_exists
                 ? 0
                 : cdc_cat_require_db(cat, s, nm->line, nm->col, id.c, id.d, NULL, NULL, err);
        cdc_cat_ident_free(&id);
        return rc;
    }
    if (cdc_cat_write_begin(cat, k, err) < 0) {
        cdc_cat_ident_free(&id);
        return -1;
    }
    db_t *db = cdc_cat_find_db(k, id.d);
    int oi = db ? cdc_cat_db_obj_index(db, id.o, true) : -1;
    bool changed = false;
    if (oi < 0) {
        if (!dr->if_exists) {
            cdc_error_destroy(*err);
            *err = cdc_cat_missing_object_error(cat, s, nm, &id, OBJ_FUNCTION);
            rc = -1;
        }
    } else {
        rc = unpersist(k, db->name, db->objs[oi], err);
        if (rc == 0) {
            cdc_cat_bury(cat, db->objs[oi]);
            cdc_cat_remove_at(db->objs, &db->nobjs, oi);
            changed = true;
        }
    }
    cdc_cat_ident_free(&id);
    if (cdc_cat_write_end(k, changed, rc < 0 ? NULL : err) < 0)
        return -1;
    return rc;
}

/* Buries the temporary objects in catalog @p c (and database @p d when not NULL). */
static void drop_temps_in(cdc_catalog_t *cat, const char *c, const char *d)
{
    for (int i = cat->ntemps - 1; i >= 0; i--) {
        const obj_t *t = cat->temps[i];
        if (strcmp(t->catalog, c) == 0 && (!d || strcmp(t->database, d) == 0)) {
            cdc_cat_bury(cat, cat->temps[i]);
            cdc_cat_remove_at(cat->temps, &cat->ntemps, i);
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
    ctlg_t *k = cdc_cat_find_ctlg(cat, c);
    if (!k)
        return dr->if_exists ? 0
                             : cdc_cat_require_db(cat, s, nm->line, nm->col, c, d, NULL, NULL, err);
    if (cdc_cat_write_begin(cat, k, err) < 0)
        return -1;
    int rc = 0;
    bool changed = false;
    int di = cdc_cat_db_index(k, d);
    if (di < 0) {
        if (!dr->if_exists)
            rc = cdc_cat_require_db(cat, s, nm->line, nm->col, c, d, NULL, NULL, err);
        goto out;
    }
    if (strcmp(c, cat->cur_cat) == 0 && strcmp(d, cat->cur_db) == 0) {
        rc = cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, nm->line, nm->col,
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
        rc = cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, nm->line, nm->col,
                             "database \"%s.%s\" is not empty", c, d);
        char *facts = cdc_strdup_printf("it holds %d table%s, %d view%s and %d function%s%s",
                                        counts[OBJ_TABLE], counts[OBJ_TABLE] == 1 ? "" : "s",
                                        counts[OBJ_VIEW], counts[OBJ_VIEW] == 1 ? "" : "s",
                                        counts[OBJ_FUNCTION], counts[OBJ_FUNCTION] == 1 ? "" : "s",
                                        ntemp ? " (temporary ones included)" : "");
        cdc_cat_detail_prepend(*err, facts);
        free(facts);
        cdc_error_set_hint(*err, "use DROP DATABASE ... CASCADE to drop it with its contents");
        goto out;
    }
    if (k->type == CTLG_FILE) {
        char *dpath = cdc_cat_db_path(k, d);
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
                cdc_cat_fsync_dir(k->dir);
        }
        free(dpath);
        changed = true; /* files may be gone even on failure: others must re-read */
        if (rc < 0)
            goto out;
    }
    drop_temps_in(cat, c, d);
    cdc_cat_db_free(cat, db);
    memmove(&k->dbs[di], &k->dbs[di + 1], sizeof(*k->dbs) * (size_t)(k->ndbs - di - 1));
    k->ndbs--;
    changed = true;
out:
    if (cdc_cat_write_end(k, changed, rc < 0 ? NULL : err) < 0)
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
        return dr->if_exists
                   ? 0
                   : cdc_cat_require_db(cat, s, nm->line, nm->col, c, "", NULL, NULL, err);
    if (strcmp(c, cat->cur_cat) == 0) {
        cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, nm->line, nm->col,
                        "cannot drop catalog \"%s\": it is the current catalog", c);
        cdc_error_set_hint(*err, "switch to another catalog with USE CATALOG first");
        return -1;
    }
    drop_temps_in(cat, c, NULL);
    cdc_cat_ctlg_free(cat, cat->cats[ci]);
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
        return cdc_cat_fail_at(err, CDC_ERR_INTERNAL, &s, st->line, st->col,
                               "%s is not a DROP statement", cdc_sql_stmt_kind_name(st->kind));
    }
}

int cdc_catalog_use(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text, size_t len,
                    const char *filename, cdc_error_t **err)
{
    src_t s = {text, len, filename};
    const cdc_sql_name_t *nm = &st->use;
    if (st->kind == CDC_SQL_STMT_USE_CATALOG) {
        ctlg_t *k = cdc_cat_find_ctlg(cat, nm->parts[0]);
        if (!k)
            return cdc_cat_require_db(cat, &s, nm->line, nm->col, nm->parts[0], "", NULL, NULL,
                                      err);
        char *c = cdc_xstrdup(k->name), *d = cdc_xstrdup(k->default_db);
        free(cat->cur_cat);
        free(cat->cur_db);
        cat->cur_cat = c;
        cat->cur_db = d;
        return 0;
    }
    const char *c = nm->nparts == 2 ? nm->parts[0] : cat->cur_cat;
    const char *d = nm->parts[nm->nparts - 1];
    if (cdc_cat_require_db(cat, &s, nm->line, nm->col, c, d, NULL, NULL, err) < 0)
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
        k = cdc_cat_find_ctlg(cat, cat->cur_cat);
        if (!k)
            return cdc_error_set(err, CDC_ERR_CATALOG, "the current catalog \"%s\" does not exist",
                                 cat->cur_cat);
        if (cdc_cat_ctlg_sync(cat, k, err) < 0)
            return -1;
        db = cdc_cat_find_db(k, cat->cur_db);
        if (!db && what != CDC_SQL_SHOW_DATABASES)
            return cdc_error_set(err, CDC_ERR_CATALOG,
                                 "the current database \"%s.%s\" does not exist", cat->cur_cat,
                                 cat->cur_db);
    }
    bool function = what == CDC_SQL_SHOW_FUNCTIONS;
    switch (what) {
    case CDC_SQL_SHOW_CATALOGS:
        for (int i = 0; i < cat->ncats; i++)
            cdc_cat_strv_push(&names, cat->cats[i]->name);
        break;
    case CDC_SQL_SHOW_DATABASES:
        for (int i = 0; i < k->ndbs; i++)
            cdc_cat_strv_push(&names, k->dbs[i]->name);
        break;
    case CDC_SQL_SHOW_TABLES:
    case CDC_SQL_SHOW_VIEWS:
    case CDC_SQL_SHOW_FUNCTIONS:
        for (int i = 0; i < db->nobjs; i++) {
            const obj_t *o = db->objs[i];
            if (cdc_cat_same_space(o->kind, function) &&
                (what != CDC_SQL_SHOW_VIEWS || o->kind == OBJ_VIEW))
                cdc_cat_strv_push(&names, o->name);
        }
        for (int i = 0; i < cat->ntemps; i++) {
            const obj_t *o = cat->temps[i];
            if (cdc_cat_same_space(o->kind, function) &&
                (what != CDC_SQL_SHOW_VIEWS || o->kind == OBJ_VIEW) &&
                strcmp(o->catalog, cat->cur_cat) == 0 && strcmp(o->database, cat->cur_db) == 0)
                cdc_cat_strv_push(&names, o->name);
        }
        if (function) {
            const char *const *builtins = cdc_catalog_builtin_functions();
            for (int i = 0; i < cat->nsysfns; i++)
                cdc_cat_strv_push(&names, cat->sysfns[i]->name);
            for (int i = 0; builtins && builtins[i]; i++) {
                char *l = cdc_cat_lower_dup(builtins[i]);
                cdc_cat_strv_push(&names, l);
                free(l);
            }
        }
        break;
    case CDC_SQL_SHOW_CURRENT_CATALOG:
        cdc_cat_strv_push(&names, cat->cur_cat);
        break;
    case CDC_SQL_SHOW_CURRENT_DATABASE:
        cdc_cat_strv_push(&names, cat->cur_db);
        break;
    }
    cdc_cat_strv_sort_unique(&names);
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

/* ---- SHOW, SHOW CREATE and SHOW PARTITIONS output -------------------------------------------- */

void cdc_ddl_set_builtin_functions(const char *const *names)
{
    cdc_catalog_set_builtin_functions(names);
}

static int show_list(cdc_catalog_t *cat, cdc_sql_show_kind_t what, FILE *out, cdc_error_t **err)
{
    char **names = NULL;
    int n = cdc_catalog_list(cat, what, &names, err);
    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++)
        fprintf(out, "%s\n", names[i]);
    cdc_catalog_list_free(names);
    return 0;
}

static int cmp_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * SHOW PARTITIONS t: what the table's source lists (list_partitions), one
 * "k1=v1/k2=v2" per line, sorted; a NULL value shows as the table's
 * partition.default-name (Hive's __HIVE_DEFAULT_PARTITION__ by default).
 */
static int show_partitions(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text,
                           size_t len, const char *filename, FILE *out, cdc_error_t **err)
{
    const cdc_sql_name_t *nm = &st->show_create.name;
    const cdc_table_def_t *t = cdc_catalog_get_table(cat, nm, text, len, filename, err);
    if (!t)
        return -1;
    if (t->npartition_keys == 0) {
        *err = cdc_sql_error_at(CDC_ERR_CATALOG, text, len, filename, nm->line, nm->col,
                                "table \"%s\" is not partitioned", t->qualified);
        return -1;
    }
    cdc_resolved_t res;
    if (cdc_resolve_options(&t->options, t->qualified, &res, err) < 0)
        return -1;
    cdc_table_ctx_t ctx = {.name = t->qualified,
                           .schema = t->schema,
                           .pk = t->pk,
                           .npk = t->npk,
                           .cfg = res.cfg,
                           .formats = res.formats,
                           .nformats = res.nformats,
                           .parallelism = 1,
                           .partition_keys = t->partition_keys,
                           .npartition_keys = t->npartition_keys};
    cdc_source_t *src = NULL;
    cdc_kv_t *parts = NULL;
    int nparts = 0, rc = -1;
    if (!res.connector->source_new || res.connector->source_new(&ctx, &src, err) < 0 ||
        !src->ops->list_partitions) {
        if (!*err)
            *err = cdc_sql_error_at(CDC_ERR_PLAN, text, len, filename, nm->line, nm->col,
                                    "connector \"%s\" of table \"%s\" cannot list partitions",
                                    res.connector->identifier, t->qualified);
        goto out;
    }
    if (src->ops->list_partitions(src, &parts, &nparts, err) < 0)
        goto out;
    const char *dflt = cdc_kv_get(&t->options, "partition.default-name");
    char **lines = cdc_xcalloc((size_t)nparts + 1, sizeof(char *));
    for (int i = 0; i < nparts; i++) {
        cdc_buf_t b = {0};
        for (int k = 0; k < t->npartition_keys; k++) {
            const char *key = t->schema->names[t->partition_keys[k]];
            const char *v = cdc_kv_get(&parts[i], key);
            cdc_buf_printf(&b, "%s%s=%s", k ? "/" : "", key,
                           v      ? v
                           : dflt ? dflt
                                  : "__HIVE_DEFAULT_PARTITION__");
        }
        lines[i] = cdc_xstrdup(cdc_buf_cstr(&b));
        cdc_buf_free(&b);
        cdc_kv_free(&parts[i]);
    }
    qsort(lines, (size_t)nparts, sizeof(char *), cmp_text);
    for (int i = 0; i < nparts; i++) {
        fprintf(out, "%s\n", lines[i]);
        free(lines[i]);
    }
    free(lines);
    rc = 0;
out:
    free(parts);
    if (src)
        src->ops->destroy(src);
    cdc_resolved_free(&res);
    return rc;
}

static int show_create(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text, size_t len,
                       const char *filename, FILE *out, cdc_error_t **err)
{
    const cdc_sql_name_t *nm = &st->show_create.name;
    const cdc_table_def_t *t = NULL;
    const cdc_view_def_t *v = NULL;
    int r = cdc_catalog_find(cat, nm, &t, &v, err);
    if (r < 0)
        return -1;
    bool want_view = st->show_create.view;
    if (r > 0 && (want_view ? v == NULL : t == NULL)) {
        const char *q = t ? t->qualified : v->qualified;
        *err = cdc_sql_error_at(CDC_ERR_CATALOG, text, len, filename, nm->line, nm->col,
                                "\"%s\" is a %s, not a %s", q, t ? "table" : "view",
                                want_view ? "view" : "table");
        cdc_error_set_hint(*err, "use SHOW CREATE %s", t ? "TABLE" : "VIEW");
        return -1;
    }
    char *sql;
    if (want_view) {
        v = cdc_catalog_get_view(cat, nm, text, len, filename, err);
        if (!v)
            return -1;
        sql = cdc_view_def_to_sql(v, true);
    } else {
        t = cdc_catalog_get_table(cat, nm, text, len, filename, err);
        if (!t)
            return -1;
        sql = cdc_table_def_to_sql(t, true);
    }
    fprintf(out, "%s\n", sql);
    free(sql);
    return 0;
}

/* ---- DESCRIBE ----------------------------------------------------------------------------------
 */

#define DESCRIBE_COLS 6

static char *nullable_type_text(const cdc_type_t *type)
{
    if (!type)
        return cdc_xstrdup("");
    cdc_type_t *copy = cdc_type_copy(type);
    copy->nullable = true;
    char *s = cdc_type_to_string(copy);
    cdc_type_destroy(copy);
    return s;
}

static void describe_row(const cdc_table_def_t *t, int i, char **cells)
{
    const cdc_column_def_t *c = &t->columns[i];
    cells[0] = cdc_xstrdup(c->name);
    cells[1] = nullable_type_text(c->type);
    cells[2] = cdc_xstrdup(!c->type ? "" : c->type->nullable ? "TRUE" : "FALSE");
    bool in_pk = false;
    for (int k = 0; k < t->npk; k++)
        in_pk = in_pk || (c->kind == CDC_COLUMN_PHYSICAL && t->pk[k] == c->physical);
    if (in_pk) {
        cdc_buf_t b = {0};
        cdc_buf_puts(&b, "PRI(");
        for (int k = 0; k < t->npk; k++)
            cdc_buf_printf(&b, "%s%s", k ? ", " : "", t->schema->names[t->pk[k]]);
        cdc_buf_putc(&b, ')');
        cells[3] = cdc_xstrdup(cdc_buf_cstr(&b));
        cdc_buf_free(&b);
    } else {
        cells[3] = cdc_xstrdup("");
    }
    if (c->kind == CDC_COLUMN_COMPUTED) {
        cells[4] = cdc_strdup_printf("AS %s", c->expr_text);
    } else if (c->kind == CDC_COLUMN_METADATA) {
        cdc_buf_t b = {0};
        cdc_buf_puts(&b, "METADATA FROM ");
        cdc_sql_put_string(&b, c->metadata_key);
        if (c->is_virtual)
            cdc_buf_puts(&b, " VIRTUAL");
        cells[4] = cdc_xstrdup(cdc_buf_cstr(&b));
        cdc_buf_free(&b);
    } else {
        cells[4] = cdc_xstrdup("");
    }
    cells[5] = cdc_xstrdup(
        t->watermark_column && strcmp(t->watermark_column, c->name) == 0 ? t->watermark : "");
}

static void print_row(FILE *out, char *const *cells, const size_t *width)
{
    cdc_buf_t b = {0};
    for (int k = 0; k < DESCRIBE_COLS; k++) {
        cdc_buf_puts(&b, cells[k]);
        if (k + 1 < DESCRIBE_COLS)
            for (size_t p = strlen(cells[k]); p < width[k] + 2; p++)
                cdc_buf_putc(&b, ' ');
    }
    while (b.len && b.data[b.len - 1] == ' ')
        b.len--;
    fprintf(out, "%s\n", cdc_buf_cstr(&b));
    cdc_buf_free(&b);
}

static int describe(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text, size_t len,
                    const char *filename, FILE *out, cdc_error_t **err)
{
    const cdc_sql_name_t *nm = &st->describe;
    const cdc_view_def_t *v = NULL;
    int r = cdc_catalog_find(cat, nm, NULL, &v, err);
    if (r < 0)
        return -1;
    if (v) {
        *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, nm->line, nm->col,
                                "DESCRIBE of view \"%s\" is not supported yet", v->qualified);
        cdc_error_set_hint(*err, "SHOW CREATE VIEW shows its query");
        return -1;
    }
    const cdc_table_def_t *t = cdc_catalog_get_table(cat, nm, text, len, filename, err);
    if (!t)
        return -1;
    static const char *const header[DESCRIBE_COLS] = {"name", "type",   "null",
                                                      "key",  "extras", "watermark"};
    int nrows = t->ncolumns;
    char **cells = cdc_xcalloc((size_t)(nrows + 1) * DESCRIBE_COLS, sizeof(char *));
    for (int k = 0; k < DESCRIBE_COLS; k++)
        cells[k] = cdc_xstrdup(header[k]);
    for (int i = 0; i < nrows; i++)
        describe_row(t, i, &cells[(size_t)(i + 1) * DESCRIBE_COLS]);
    size_t width[DESCRIBE_COLS] = {0};
    for (int i = 0; i <= nrows; i++)
        for (int k = 0; k < DESCRIBE_COLS; k++) {
            size_t w = strlen(cells[(size_t)i * DESCRIBE_COLS + k]);
            if (w > width[k])
                width[k] = w;
        }
    for (int i = 0; i <= nrows; i++)
        print_row(out, &cells[(size_t)i * DESCRIBE_COLS], width);
    for (size_t i = 0; i < (size_t)(nrows + 1) * DESCRIBE_COLS; i++)
        free(cells[i]);
    free(cells);
    return 0;
}

/* ---- dispatch ----------------------------------------------------------------------------------
 */

/* ---- ALTER TABLE ------------------------------------------------------------------------------
 * The table's schema is taken apart into its column definitions (as SQL), watermark and primary
 * key; the action edits these as Flink's AlterSchemaConverter does (columns placed FIRST or
 * AFTER another, references checked), and the result is printed as a CREATE TABLE, built as
 * one, and put in the old one's place (in its file too), so a table that would no longer hold
 * is refused before anything changes. */

typedef struct alt_col {
    char *name;
    char *sql; /* the definition as CREATE TABLE writes it, name included */
} alt_col_t;

typedef struct alt_schema {
    const cdc_table_def_t *t;
    alt_col_t *cols;
    int ncols;
    char *wm_column; /* NULL when no watermark */
    char *wm_expr;
    char **pk; /* primary key columns, NULL when none */
    int npk;
    char *pk_name; /* CONSTRAINT name, NULL when not written */
} alt_schema_t;

static void alt_free(alt_schema_t *a)
{
    for (int i = 0; i < a->ncols; i++) {
        free(a->cols[i].name);
        free(a->cols[i].sql);
    }
    free(a->cols);
    free(a->wm_column);
    free(a->wm_expr);
    for (int i = 0; i < a->npk; i++)
        free(a->pk[i]);
    free(a->pk);
    free(a->pk_name);
}

static int alt_find(const alt_schema_t *a, const char *name)
{
    for (int i = 0; i < a->ncols; i++)
        if (strcmp(a->cols[i].name, name) == 0)
            return i;
    return -1;
}

static char *column_sql(const cdc_column_def_t *c, const char *name, const cdc_type_t *type)
{
    cdc_buf_t b = {0};
    cdc_cat_put_column_sql(&b, c, name, type);
    char *sql = cdc_xstrdup(cdc_buf_cstr(&b));
    cdc_buf_free(&b);
    return sql;
}

/* Inserts a column at @p at (0..ncols), taking @p name and @p sql. */
static void alt_insert(alt_schema_t *a, int at, char *name, char *sql)
{
    a->cols = cdc_xrealloc(a->cols, (size_t)(a->ncols + 1) * sizeof(*a->cols));
    memmove(&a->cols[at + 1], &a->cols[at], (size_t)(a->ncols - at) * sizeof(*a->cols));
    a->cols[at] = (alt_col_t){name, sql};
    a->ncols++;
}

static void alt_load(alt_schema_t *a, const cdc_table_def_t *t)
{
    *a = (alt_schema_t){.t = t};
    for (int i = 0; i < t->ncolumns; i++) {
        const cdc_column_def_t *c = &t->columns[i];
        alt_insert(a, a->ncols, cdc_xstrdup(c->name), column_sql(c, c->name, c->type));
    }
    if (t->watermark_column) {
        a->wm_column = cdc_xstrdup(t->watermark_column);
        a->wm_expr = cdc_xstrdup(t->watermark);
    }
    a->npk = t->npk;
    a->pk = t->npk ? cdc_xcalloc((size_t)t->npk, sizeof(char *)) : NULL;
    for (int i = 0; i < t->npk; i++)
        a->pk[i] = cdc_xstrdup(t->schema->names[t->pk[i]]);
    a->pk_name = t->pk_name ? cdc_xstrdup(t->pk_name) : NULL;
}

/* The primary key's name as Flink gives it: the CONSTRAINT name, else PK_ and the columns. */
static char *pk_constraint_name(const alt_schema_t *a)
{
    if (a->pk_name)
        return cdc_xstrdup(a->pk_name);
    cdc_buf_t b = {0};
    cdc_buf_puts(&b, "PK");
    for (int i = 0; i < a->npk; i++) {
        cdc_buf_putc(&b, '_');
        cdc_buf_puts(&b, a->pk[i]);
    }
    char *name = cdc_xstrdup(cdc_buf_cstr(&b));
    cdc_buf_free(&b);
    return name;
}

/* The CREATE TABLE the edited schema makes of a table shown as @p shown. New string. */
static char *alt_to_sql(const alt_schema_t *a, const cdc_table_def_t *shown)
{
    cdc_buf_t lines = {0}, wm = {0}, pk = {0};
    for (int i = 0; i < a->ncols; i++) {
        cdc_buf_puts(&lines, "  ");
        cdc_buf_puts(&lines, a->cols[i].sql);
        cdc_buf_putc(&lines, '\0');
    }
    if (a->wm_column)
        cdc_cat_put_watermark(&wm, a->wm_column, a->wm_expr);
    if (a->npk) {
        cdc_cat_put_pk_start(&pk, a->pk_name);
        for (int i = 0; i < a->npk; i++) {
            if (i)
                cdc_buf_puts(&pk, ", ");
            cdc_sql_put_ident(&pk, a->pk[i]);
        }
        cdc_buf_puts(&pk, ") NOT ENFORCED");
    }
    char *sql = cdc_cat_table_sql(shown, &lines, a->ncols, a->wm_column ? cdc_buf_cstr(&wm) : NULL,
                                  a->npk ? cdc_buf_cstr(&pk) : NULL, NULL, true);
    cdc_buf_free(&lines);
    cdc_buf_free(&wm);
    cdc_buf_free(&pk);
    return sql;
}

/* Flink's checks before column @p name is dropped or renamed (by the identifier at @p id):
 * computed columns (but those in @p also, dropped with it), partition keys and the watermark
 * must not read it. */
static int check_references(const cdc_table_def_t *t, const char *name,
                            const cdc_sql_ident_list_t *also, const src_t *s,
                            const cdc_sql_ident_t *id, cdc_error_t **err)
{
    for (int i = 0; i < t->ncolumns; i++) {
        const cdc_column_def_t *c = &t->columns[i];
        bool dropped = false;
        for (size_t k = 0; also && k < also->count; k++)
            dropped |= strcmp(also->items[k].name, c->name) == 0;
        if (c->kind == CDC_COLUMN_COMPUTED && !dropped && cdc_cat_expr_refers(c->expr, name))
            return cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, id->line, id->col,
                                   "column \"%s\" is referenced by computed column \"%s\"", name,
                                   c->name);
    }
    for (int i = 0; i < t->npartition_keys; i++)
        if (strcmp(t->schema->names[t->partition_keys[i]], name) == 0)
            return cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, id->line, id->col,
                                   "column \"%s\" is used as a partition key", name);
    if (t->watermark_column &&
        (strcmp(t->watermark_column, name) == 0 || cdc_cat_expr_refers(t->watermark_expr, name)))
        return cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, id->line, id->col,
                               "column \"%s\" is referenced by the watermark", name);
    return 0;
}

static int no_column(const cdc_table_def_t *t, const src_t *s, const cdc_sql_ident_t *id,
                     cdc_error_t **err)
{
    return cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, id->line, id->col,
                           "column \"%s\" does not exist in table \"%s\"", id->name, t->qualified);
}

static int alt_rename(alt_schema_t *a, const cdc_sql_alter_table_t *al, const src_t *s,
                      cdc_error_t **err)
{
    const cdc_table_def_t *t = a->t;
    int i = alt_find(a, al->column.name);
    if (i < 0)
        return no_column(t, s, &al->column, err);
    if (alt_find(a, al->new_column.name) >= 0)
        return cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, al->new_column.line, al->new_column.col,
                               "column \"%s\" already exists in table \"%s\"", al->new_column.name,
                               t->qualified);
    if (check_references(t, al->column.name, NULL, s, &al->column, err) < 0)
        return -1;
    const cdc_column_def_t *c = &t->columns[i];
    free(a->cols[i].name);
    free(a->cols[i].sql);
    a->cols[i].name = cdc_xstrdup(al->new_column.name);
    a->cols[i].sql = column_sql(c, al->new_column.name, c->type);
    for (int k = 0; k < a->npk; k++)
        if (strcmp(a->pk[k], al->column.name) == 0) {
            free(a->pk[k]);
            a->pk[k] = cdc_xstrdup(al->new_column.name);
        }
    return 0;
}

static int alt_drop(alt_schema_t *a, const cdc_sql_alter_table_t *al, const src_t *s,
                    cdc_error_t **err)
{
    const cdc_table_def_t *t = a->t;
    for (size_t i = 0; i < al->drop.count; i++) {
        const cdc_sql_ident_t *id = &al->drop.items[i];
        for (size_t k = 0; k < i; k++)
            if (strcmp(al->drop.items[k].name, id->name) == 0)
                return cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, id->line, id->col,
                                       "column \"%s\" is named twice", id->name);
        int at = alt_find(a, id->name);
        if (at < 0)
            return no_column(t, s, id, err);
        if (check_references(t, id->name, &al->drop, s, id, err) < 0)
            return -1;
        for (int k = 0; k < a->npk; k++)
            if (strcmp(a->pk[k], id->name) == 0)
                return cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, id->line, id->col,
                                       "column \"%s\" is part of the primary key and cannot be "
                                       "dropped",
                                       id->name);
        free(a->cols[at].name);
        free(a->cols[at].sql);
        memmove(&a->cols[at], &a->cols[at + 1], (size_t)(a->ncols - at - 1) * sizeof(*a->cols));
        a->ncols--;
    }
    return 0;
}

/* DROP PRIMARY KEY / DROP CONSTRAINT name / DROP WATERMARK */
static int alt_drop_other(alt_schema_t *a, const cdc_sql_alter_table_t *al, const src_t *s,
                          cdc_error_t **err)
{
    const cdc_table_def_t *t = a->t;
    if (al->action == CDC_SQL_ALTER_DROP_WATERMARK) {
        if (!a->wm_column)
            return cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, al->action_line, al->action_col,
                                   "table \"%s\" has no watermark", t->qualified);
        free(a->wm_column);
        free(a->wm_expr);
        a->wm_column = a->wm_expr = NULL;
        return 0;
    }
    if (!a->npk)
        return cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, al->action_line, al->action_col,
                               "table \"%s\" has no primary key", t->qualified);
    if (al->action == CDC_SQL_ALTER_DROP_CONSTRAINT) {
        char *name = pk_constraint_name(a);
        if (strcmp(name, al->column.name) != 0) {
            cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, al->column.line, al->column.col,
                            "table \"%s\" has no constraint \"%s\"", t->qualified, al->column.name);
            cdc_error_set_hint(*err, "its primary key is constraint \"%s\"", name);
            free(name);
            return -1;
        }
        free(name);
    }
    for (int k = 0; k < a->npk; k++)
        free(a->pk[k]);
    free(a->pk);
    free(a->pk_name);
    a->pk = NULL;
    a->pk_name = NULL;
    a->npk = 0;
    return 0;
}

/* The definition of ADD / MODIFY column @p sc; a MODIFY without COMMENT keeps @p old's. */
static char *new_column_sql(const cdc_sql_column_t *sc, const cdc_column_def_t *old, const src_t *s,
                            cdc_error_t **err)
{
    cdc_column_def_t c = {.kind = (cdc_column_kind_t)sc->kind};
    c.comment = sc->comment ? sc->comment : old ? old->comment : NULL;
    c.metadata_key = sc->metadata_key;
    c.metadata_from = sc->metadata_key != NULL;
    c.is_virtual = sc->is_virtual;
    if (sc->kind == CDC_SQL_COLUMN_COMPUTED) {
        c.expr_text = cdc_sql_expr_to_string(sc->expr);
    } else if (!(c.type = cdc_cat_parse_column_type(s, sc, err))) {
        return NULL;
    }
    char *sql = column_sql(&c, sc->name, c.type);
    free(c.expr_text);
    cdc_type_destroy(c.type);
    return sql;
}

/* Flink's checks: ADD of @p what ("primary key") the table has (@p has), MODIFY of one it
 * lacks; @p word names it in DROP. 0, or -1 with *err at line:col. */
static int check_constraint(const cdc_table_def_t *t, bool add, bool has, const char *what,
                            const char *word, const src_t *s, int line, int col, cdc_error_t **err)
{
    if (add == has)
        cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, line, col,
                        add ? "table \"%s\" already has a %s" : "table \"%s\" has no %s",
                        t->qualified, what);
    if (add && has)
        cdc_error_set_hint(*err, "DROP %s first, or MODIFY it", word);
    else if (!add && !has)
        cdc_error_set_hint(*err, "ADD one");
    return add == has ? -1 : 0;
}

/* ADD / MODIFY of columns (placed FIRST or AFTER a column), a primary key and a watermark. */
static int alt_add_modify(alt_schema_t *a, const cdc_sql_alter_table_t *al, const src_t *s,
                          cdc_error_t **err)
{
    const cdc_table_def_t *t = a->t;
    bool add = al->action == CDC_SQL_ALTER_ADD;
    const cdc_sql_create_table_t *el = &al->elements;
    for (size_t i = 0; i < el->ncolumns; i++) {
        const cdc_sql_column_t *sc = &el->columns[i];
        const cdc_sql_column_position_t *pos = &al->positions[i];
        cdc_sql_ident_t id = {sc->name, sc->line, sc->col};
        for (size_t k = 0; k < i; k++)
            if (strcmp(el->columns[k].name, sc->name) == 0)
                return cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, sc->line, sc->col,
                                       "column \"%s\" is named twice", sc->name);
        int at = alt_find(a, sc->name);
        if (add && at >= 0)
            return cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, sc->line, sc->col,
                                   "column \"%s\" already exists in table \"%s\"", sc->name,
                                   t->qualified);
        if (!add && at < 0)
            return no_column(t, s, &id, err);
        if (pos->kind == CDC_SQL_POS_AFTER && alt_find(a, pos->after.name) < 0)
            return cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, pos->after.line, pos->after.col,
                                   "column \"%s\" named by AFTER does not exist in table \"%s\"",
                                   pos->after.name, t->qualified);
        const cdc_column_def_t *old = NULL;
        for (int k = 0; !add && k < t->ncolumns; k++)
            if (strcmp(t->columns[k].name, sc->name) == 0)
                old = &t->columns[k];
        char *sql = new_column_sql(sc, old, s, err);
        if (!sql)
            return -1;
        if (at >= 0) { /* MODIFY: out of its place, then where it goes */
            free(a->cols[at].name);
            free(a->cols[at].sql);
            memmove(&a->cols[at], &a->cols[at + 1], (size_t)(a->ncols - at - 1) * sizeof(*a->cols));
            a->ncols--;
        }
        int to = pos->kind == CDC_SQL_POS_FIRST   ? 0
                 : pos->kind == CDC_SQL_POS_AFTER ? alt_find(a, pos->after.name) + 1
                 : at >= 0                        ? at
                                                  : a->ncols;
        alt_insert(a, to, cdc_xstrdup(sc->name), sql);
    }
    if (el->watermark) {
        const cdc_sql_watermark_t *wm = el->watermark;
        if (check_constraint(t, add, a->wm_column != NULL, "watermark", "WATERMARK", s, wm->line,
                             wm->col, err) < 0)
            return -1;
        free(a->wm_column);
        free(a->wm_expr);
        a->wm_column = cdc_xstrdup(wm->column.name);
        a->wm_expr = cdc_sql_expr_to_string(wm->expr);
    }
    if (el->primary_key) {
        const cdc_sql_primary_key_t *pk = el->primary_key;
        if (check_constraint(t, add, a->npk > 0, "primary key", "PRIMARY KEY", s, pk->line, pk->col,
                             err) < 0)
            return -1;
        for (int k = 0; k < a->npk; k++)
            free(a->pk[k]);
        free(a->pk_name);
        a->npk = (int)pk->columns.count;
        a->pk = cdc_xrealloc(a->pk, pk->columns.count * sizeof(char *));
        for (size_t k = 0; k < pk->columns.count; k++)
            a->pk[k] = cdc_xstrdup(pk->columns.items[k].name);
        a->pk_name = pk->constraint_name ? cdc_xstrdup(pk->constraint_name) : NULL;
    }
    return 0;
}

static int alt_apply(alt_schema_t *a, const cdc_sql_alter_table_t *al, const src_t *s,
                     cdc_error_t **err)
{
    switch (al->action) {
    case CDC_SQL_ALTER_RENAME_COLUMN:
        return alt_rename(a, al, s, err);
    case CDC_SQL_ALTER_DROP:
        return alt_drop(a, al, s, err);
    case CDC_SQL_ALTER_DROP_PRIMARY_KEY:
    case CDC_SQL_ALTER_DROP_CONSTRAINT:
    case CDC_SQL_ALTER_DROP_WATERMARK:
        return alt_drop_other(a, al, s, err);
    case CDC_SQL_ALTER_ADD:
    case CDC_SQL_ALTER_MODIFY:
        return alt_add_modify(a, al, s, err);
    default:
        return 0;
    }
}

/* Puts @p t2 (built from ALTER TABLE) in the place of table c.d.o, in memory and on disk. */
static int replace_table(cdc_catalog_t *cat, const char *c, const char *d, const char *o,
                         bool temporary, cdc_table_def_t *t2, cdc_error_t **err)
{
    obj_t *o2 = cdc_cat_obj_table(t2);
    int ti = temporary ? cdc_cat_temp_index(cat, c, d, o, false) : -1;
    if (ti >= 0) {
        cdc_cat_bury(cat, cat->temps[ti]);
        cat->temps[ti] = o2;
        return 0;
    }
    ctlg_t *k = cdc_cat_find_ctlg(cat, c);
    if (!k || cdc_cat_write_begin(cat, k, err) < 0) {
        cdc_cat_obj_free(o2);
        return k ? -1 : cdc_error_set(err, CDC_ERR_INTERNAL, "catalog \"%s\" vanished", c);
    }
    db_t *db = cdc_cat_find_db(k, d);
    int oi = db ? cdc_cat_db_obj_index(db, o, false) : -1;
    int rc = oi < 0 ? cdc_error_set(err, CDC_ERR_CATALOG, "table \"%s.%s.%s\" vanished", c, d, o)
                    : persist(k, db->name, o2, err);
    if (rc == 0) {
        cdc_cat_bury(cat, db->objs[oi]);
        db->objs[oi] = o2;
    } else {
        cdc_cat_obj_free(o2);
    }
    if (cdc_cat_write_end(k, rc == 0, rc < 0 ? NULL : err) < 0)
        return -1;
    return rc;
}

/* Removes table c.d.o after a RENAME TO registered its new name. */
static int remove_table(cdc_catalog_t *cat, const char *c, const char *d, const char *o,
                        bool temporary, cdc_error_t **err)
{
    int ti = temporary ? cdc_cat_temp_index(cat, c, d, o, false) : -1;
    if (ti >= 0) {
        cdc_cat_bury(cat, cat->temps[ti]);
        cdc_cat_remove_at(cat->temps, &cat->ntemps, ti);
        return 0;
    }
    ctlg_t *k = cdc_cat_find_ctlg(cat, c);
    if (!k || cdc_cat_write_begin(cat, k, err) < 0)
        return k ? -1 : 0;
    db_t *db = cdc_cat_find_db(k, d);
    int oi = db ? cdc_cat_db_obj_index(db, o, false) : -1;
    int rc = oi < 0 ? 0 : unpersist(k, db->name, db->objs[oi], err);
    if (rc == 0 && oi >= 0) {
        cdc_cat_bury(cat, db->objs[oi]);
        cdc_cat_remove_at(db->objs, &db->nobjs, oi);
    }
    if (cdc_cat_write_end(k, rc == 0 && oi >= 0, rc < 0 ? NULL : err) < 0)
        return -1;
    return rc;
}

/* The DDL of t as ALTER TABLE leaves it, built into a new definition (not registered). */
static cdc_table_def_t *altered_def(cdc_catalog_t *cat, const cdc_sql_alter_table_t *al,
                                    const cdc_table_def_t *t, const src_t *s, cdc_error_t **err)
{
    cdc_table_def_t shown = *t; /* borrowed parts; only printed */
    cdc_kv_t opts = {0};
    cdc_kv_copy(&opts, &t->options);
    ident_t nid = {0};
    alt_schema_t alt;
    alt_load(&alt, t);
    cdc_sql_script_t *script = NULL;
    cdc_table_def_t *t2 = NULL;
    char *sql = NULL;
    int rc = 0;
    for (size_t i = 0; i < al->options.count; i++) {
        const cdc_sql_option_t *o = &al->options.items[i];
        if (al->action == CDC_SQL_ALTER_SET) {
            cdc_kv_set(&opts, o->key, o->value);
        } else if (strcmp(o->key, "connector") == 0) {
            rc = cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, o->line, o->col,
                                 "option \"connector\" cannot be reset");
            cdc_error_set_hint(*err, "SET it to another connector");
        } else {
            cdc_kv_remove(&opts, o->key);
        }
    }
    if (al->action == CDC_SQL_ALTER_RENAME_TABLE) {
        nid = cdc_cat_qualify(cat, &al->new_name, false);
        if (strcmp(nid.c, t->catalog) != 0)
            rc = cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, al->new_name.line, al->new_name.col,
                                 "a table cannot be renamed into another catalog (\"%s\" is in "
                                 "\"%s\")",
                                 t->qualified, t->catalog);
        shown.catalog = (char *)nid.c;
        shown.database = (char *)nid.d;
        shown.name = (char *)nid.o;
    }
    if (rc == 0)
        rc = alt_apply(&alt, al, s, err);
    shown.options = opts;
    cdc_error_t *why = NULL;
    if (rc == 0 && (sql = alt_to_sql(&alt, &shown)) &&
        cdc_sql_parse(sql, strlen(sql), "<ALTER TABLE>", &script, &why) == 0) {
        src_t s2 = {sql, strlen(sql), "<ALTER TABLE>"};
        const cdc_sql_create_table_t *ct = &script->stmts[0]->create_table;
        ident_t id = cdc_cat_qualify(cat, &ct->name, false);
        t2 = cdc_cat_build_table(cat, ct, &s2, &id, &why);
        cdc_cat_ident_free(&id);
    }
    if (why) {
        /* said at the ALTER TABLE, with the definition it would leave */
        const char *msg = why->message;
        if (strncmp(msg, "<ALTER TABLE>:", 14) == 0 && strstr(msg, ": "))
            msg = strstr(msg, ": ") + 2; /* its position is in the text shown below */
        cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, al->action_line, al->action_col,
                        "table \"%s\" cannot be altered so: %s", t->qualified, msg);
        if (sql)
            cdc_error_add_context(*err, "the definition it would leave:\n%s", sql);
        cdc_error_destroy(why);
    }
    if (t2) {
        t2->ddl = sql;
        sql = NULL;
        free(t2->origin);
        t2->origin = cdc_xstrdup(s->filename ? s->filename : "<input>");
        t2->line = al->name.line;
        t2->col = al->name.col;
    }
    free(sql);
    cdc_sql_script_destroy(script);
    alt_free(&alt);
    cdc_cat_ident_free(&nid);
    cdc_kv_free(&opts);
    return t2;
}

/* ALTER TABLE [IF EXISTS] t RENAME TO / RENAME c TO / SET / RESET / ADD / MODIFY / DROP. */
static int alter_table(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const src_t *s,
                       cdc_error_t **err)
{
    const cdc_sql_alter_table_t *al = &st->alter_table;
    const cdc_table_def_t *t = NULL;
    int r = cdc_catalog_find(cat, &al->name, &t, NULL, err);
    if (r < 0 || (r == 0 && al->if_exists))
        return r;
    if (!t && !(t = cdc_catalog_get_table(cat, &al->name, s->text, s->len, s->filename, err)))
        return -1;
    cdc_table_def_t *t2 = altered_def(cat, al, t, s, err);
    if (!t2)
        return -1;
    /* t may be freed below: keep what names it */
    char *c = cdc_xstrdup(t->catalog), *d = cdc_xstrdup(t->database), *o = cdc_xstrdup(t->name);
    bool temporary = t->temporary;
    int rc;
    if (al->action == CDC_SQL_ALTER_RENAME_TABLE) {
        rc = register_obj(cat, s, &al->new_name, cdc_cat_obj_table(t2), temporary, false, err);
        if (rc == 0)
            rc = remove_table(cat, c, d, o, temporary, err);
    } else {
        rc = replace_table(cat, c, d, o, temporary, t2, err);
    }
    free(c);
    free(d);
    free(o);
    return rc;
}

int cdc_ddl_execute(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text, size_t len,
                    const char *filename, FILE *out, cdc_error_t **err)
{
    int rc;
    switch (st->kind) {
    case CDC_SQL_STMT_CREATE_TABLE:
        if (st->create_table.as_query)
            return 1; /* CREATE TABLE AS SELECT plans and runs a query: the runtime's */
        rc = cdc_catalog_create_table_stmt(cat, st, text, len, filename, err);
        break;
    case CDC_SQL_STMT_CREATE_VIEW:
        rc = cdc_catalog_create_view(cat, st, text, len, filename, err);
        break;
    case CDC_SQL_STMT_CREATE_FUNCTION:
        rc = cdc_catalog_create_function(cat, st, text, len, filename, err);
        break;
    case CDC_SQL_STMT_CREATE_DATABASE:
        rc = cdc_catalog_create_database(cat, st, text, len, filename, err);
        break;
    case CDC_SQL_STMT_CREATE_CATALOG:
        rc = cdc_catalog_create_catalog(cat, st, text, len, filename, err);
        break;
    case CDC_SQL_STMT_DROP_TABLE:
    case CDC_SQL_STMT_DROP_VIEW:
    case CDC_SQL_STMT_DROP_FUNCTION:
    case CDC_SQL_STMT_DROP_DATABASE:
    case CDC_SQL_STMT_DROP_CATALOG:
        rc = cdc_catalog_drop(cat, st, text, len, filename, err);
        break;
    case CDC_SQL_STMT_USE_CATALOG:
    case CDC_SQL_STMT_USE_DATABASE:
        rc = cdc_catalog_use(cat, st, text, len, filename, err);
        break;
    case CDC_SQL_STMT_SHOW:
        rc = show_list(cat, st->show, out, err);
        break;
    case CDC_SQL_STMT_SHOW_CREATE:
        rc = show_create(cat, st, text, len, filename, out, err);
        break;
    case CDC_SQL_STMT_SHOW_PARTITIONS:
        rc = show_partitions(cat, st, text, len, filename, out, err);
        break;
    case CDC_SQL_STMT_DESCRIBE:
        rc = describe(cat, st, text, len, filename, out, err);
        break;
    case CDC_SQL_STMT_ALTER_TABLE: {
        src_t s = {text, len, filename};
        rc = alter_table(cat, st, &s, err);
        break;
    }
    default:
        return 1;
    }
    if (rc == 0)
        fflush(out);
    return rc < 0 ? -1 : 0;
}
