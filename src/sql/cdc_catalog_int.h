/*
 * cdc_catalog_int.h — private to the catalog (cdc_catalog.c, cdc_catalog_file.c,
 * cdc_catalog_define.c, cdc_ddl.c): the in-memory model of catalogs, databases
 * and objects, and the helpers those files share. Not for other modules.
 * Each function is described where it is defined.
 */
#ifndef CDC_CATALOG_INT_H
#define CDC_CATALOG_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "cdc_catalog.h"

#define DEFAULT_CATALOG "default_catalog"
#define DEFAULT_DATABASE "default_database"

/* Where statements come from: the whole script, for positions and carets. */
typedef struct src {
    const char *text;
    size_t len;
    const char *filename;
} src_t;

/* A growable array of owned strings. */
typedef struct strv {
    char **v;
    int n, cap;
} strv_t;

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
    bool dry_run; /* cdcflow explain: file catalogs are read, never written */
};

/* A fully qualified identifier; parts borrowed (obj owned when lowered). */
typedef struct ident {
    const char *c, *d, *o;
    char *lowered; /* functions: the lower-cased object name, owned */
    char *q;       /* "c.d.o", owned */
} ident_t;

/* ---- cdc_catalog.c: errors, helpers, the model, identifiers, resolution ---- */

int cdc_cat_fail_at(cdc_error_t **err, cdc_errcode_t code, const src_t *s, int line, int col,
                    const char *fmt, ...) CDC_PRINTF(6, 7);
void cdc_cat_detail_prepend(cdc_error_t *err, const char *first);
void cdc_cat_hint_closest(cdc_error_t *err, const char *word, const char *const *cands, int n);
char *cdc_cat_lower_dup(const char *s);
char *cdc_cat_dup_or_null(const char *s);
void cdc_cat_strv_push(strv_t *sv, const char *s);
void cdc_cat_strv_sort_unique(strv_t *sv);
char *cdc_cat_buf_take(cdc_buf_t *b);
void cdc_cat_column_free(cdc_column_def_t *c);
void cdc_cat_table_free(cdc_table_def_t *t);
void cdc_cat_view_free(cdc_view_def_t *v);
void cdc_cat_function_free(cdc_function_def_t *f);
void cdc_cat_obj_free(obj_t *o);
obj_t *cdc_cat_obj_table(cdc_table_def_t *t);
obj_t *cdc_cat_obj_view(cdc_view_def_t *v);
obj_t *cdc_cat_obj_function(cdc_function_def_t *f);
const char *cdc_cat_kind_word(obj_kind_t kind);
const char *cdc_cat_obj_qualified(const obj_t *o);
void cdc_cat_push_obj(obj_t ***arr, int *n, obj_t *o);
void cdc_cat_remove_at(obj_t **arr, int *n, int i);
void cdc_cat_bury(cdc_catalog_t *cat, obj_t *o);
void cdc_cat_db_free(cdc_catalog_t *cat, db_t *db);
db_t *cdc_cat_db_new(const char *name);
void cdc_cat_ctlg_free(cdc_catalog_t *cat, ctlg_t *k);
ctlg_t *cdc_cat_find_ctlg(const cdc_catalog_t *cat, const char *name);
int cdc_cat_db_index(const ctlg_t *k, const char *name);
db_t *cdc_cat_find_db(const ctlg_t *k, const char *name);
bool cdc_cat_same_space(obj_kind_t kind, bool function);
int cdc_cat_db_obj_index(const db_t *db, const char *name, bool function);
obj_t *cdc_cat_db_find(const db_t *db, const char *name, bool function);
int cdc_cat_temp_index(const cdc_catalog_t *cat, const char *c, const char *d, const char *o,
                       bool function);
obj_t *cdc_cat_temp_find(const cdc_catalog_t *cat, const char *c, const char *d, const char *o,
                         bool function);
int cdc_cat_sysfn_index(const cdc_catalog_t *cat, const char *name);
ident_t cdc_cat_qualify(const cdc_catalog_t *cat, const cdc_sql_name_t *name, bool function);
void cdc_cat_ident_free(ident_t *id);
char *cdc_cat_backticked(const char *c, const char *d, const char *o);
int cdc_cat_find_obj(cdc_catalog_t *cat, const char *c, const char *d, const char *o, bool function,
                     obj_t **out, cdc_error_t **err);
int cdc_cat_require_db(cdc_catalog_t *cat, const src_t *s, int line, int col, const char *c,
                       const char *d, ctlg_t **pk, db_t **pdb, cdc_error_t **err);
cdc_error_t *cdc_cat_missing_object_error(cdc_catalog_t *cat, const src_t *s,
                                          const cdc_sql_name_t *name, const ident_t *id,
                                          obj_kind_t kind);

/* ---- cdc_catalog_file.c: file catalogs ---- */

char *cdc_cat_db_path(const ctlg_t *k, const char *db);
char *cdc_cat_obj_file_name(obj_kind_t kind, const char *name);
void cdc_cat_fsync_dir(const char *dir);
int cdc_cat_write_atomic(const char *dir, const char *name, const char *data, cdc_error_t **err);
int cdc_cat_ctlg_sync(cdc_catalog_t *cat, ctlg_t *k, cdc_error_t **err);
int cdc_cat_write_begin(cdc_catalog_t *cat, ctlg_t *k, cdc_error_t **err);
int cdc_cat_write_end(ctlg_t *k, bool changed, cdc_error_t **err);
void cdc_cat_add_ctlg(cdc_catalog_t *cat, ctlg_t *k);
int cdc_cat_ctlg_open_file(cdc_catalog_t *cat, const char *name, const char *dir,
                           const char *default_db, cdc_error_t **err);
ctlg_t *cdc_cat_ctlg_new_memory(const char *name, const char *default_db);

/* ---- cdc_catalog_define.c: building definitions, DDL printing ---- */

cdc_type_t *cdc_cat_derive_type(cdc_catalog_t *cat, const cdc_table_def_t *t,
                                const cdc_sql_expr_t *e);
/* A column's type from its text (NOT NULL applied); NULL with *err pointing into the text. */
cdc_type_t *cdc_cat_parse_column_type(const src_t *s, const cdc_sql_column_t *col,
                                      cdc_error_t **err);
cdc_table_def_t *cdc_cat_build_table(cdc_catalog_t *cat, const cdc_sql_create_table_t *ct,
                                     const src_t *s, const ident_t *id, cdc_error_t **err);
char *cdc_cat_database_to_sql(const db_t *db);
/* Whether expression @p e reads column @p column. */
bool cdc_cat_expr_refers(const cdc_sql_expr_t *e, const char *column);
/* Appends column @p c's definition as CREATE TABLE writes it, named @p name, of @p type. */
void cdc_cat_put_column_sql(cdc_buf_t *b, const cdc_column_def_t *c, const char *name,
                            const cdc_type_t *type);
/* Appends "WATERMARK FOR `column` AS expr". */
void cdc_cat_put_watermark(cdc_buf_t *b, const char *column, const char *expr);
/* Appends "[CONSTRAINT `name` ]PRIMARY KEY (": the columns and ") NOT ENFORCED" follow. */
void cdc_cat_put_pk_start(cdc_buf_t *b, const char *name);
/* CREATE TABLE of t with the column definitions @p lines (NUL-separated, @p ncols of them), the
 * watermark and primary key items as text (NULL when none), and t's comment, partition keys
 * (renamed by @p edits, which may be NULL) and options. New string. */
char *cdc_cat_table_sql(const cdc_table_def_t *t, const cdc_buf_t *lines, int ncols,
                        const char *watermark, const char *pk, const cdc_schema_change_t *edits,
                        bool qualified);
cdc_view_def_t *cdc_cat_build_view(cdc_catalog_t *cat, const cdc_sql_create_view_t *cv,
                                   const src_t *s, const ident_t *id, bool stored,
                                   cdc_error_t **err);
cdc_function_def_t *cdc_cat_build_function(const cdc_sql_create_function_t *cf, const src_t *s,
                                           const ident_t *id, bool load, cdc_error_t **err);

#endif
