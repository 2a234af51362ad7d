/*
 * cdc_catalog.c — the in-memory catalog of a run: tables by qualified name.
 */
#include "cdc_catalog.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_decode.h"

struct cdc_catalog_s {
    char *current_catalog;
    char *current_database;
    cdc_table_def_t **tables;
    int ntables;
};

cdc_error_t *cdc_sql_error_at(cdc_errcode_t code, const char *text, size_t len,
                              const char *filename, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = cdc_strdup_vprintf(fmt, ap);
    va_end(ap);
    cdc_error_t *err =
        cdc_error_new(code, "%s:%d:%d: %s", filename ? filename : "<input>", line, col, msg);
    free(msg);
    if (text) {
        char *caret = cdc_sql_caret(text, len, line, col);
        cdc_error_set_detail(err, "%s", caret);
        free(caret);
    }
    return err;
}

cdc_catalog_t *cdc_catalog_new(void)
{
    cdc_catalog_t *cat = cdc_xcalloc(1, sizeof(*cat));
    cat->current_catalog = cdc_xstrdup("default_catalog");
    cat->current_database = cdc_xstrdup("default_database");
    return cat;
}

static void table_free(cdc_table_def_t *t)
{
    if (!t)
        return;
    free(t->catalog);
    free(t->database);
    free(t->name);
    free(t->qualified);
    cdc_type_destroy(t->schema);
    free(t->pk);
    cdc_kv_free(&t->options);
    free(t);
}

void cdc_catalog_destroy(cdc_catalog_t *cat)
{
    if (!cat)
        return;
    for (int i = 0; i < cat->ntables; i++)
        table_free(cat->tables[i]);
    free(cat->tables);
    free(cat->current_catalog);
    free(cat->current_database);
    free(cat);
}

const char *cdc_catalog_current_catalog(const cdc_catalog_t *cat)
{
    return cat->current_catalog;
}

const char *cdc_catalog_current_database(const cdc_catalog_t *cat)
{
    return cat->current_database;
}

/* Expands a 1-3 part name to catalog, database, object (borrowed pointers). */
static void qualify(const cdc_catalog_t *cat, const cdc_sql_name_t *name, const char **c,
                    const char **d, const char **o)
{
    *c = cat->current_catalog;
    *d = cat->current_database;
    if (name->nparts == 3) {
        *c = name->parts[0];
        *d = name->parts[1];
        *o = name->parts[2];
    } else if (name->nparts == 2) {
        *d = name->parts[0];
        *o = name->parts[1];
    } else {
        *o = name->parts[0];
    }
}

static cdc_table_def_t *find(cdc_catalog_t *cat, const char *c, const char *d, const char *o)
{
    for (int i = 0; i < cat->ntables; i++) {
        cdc_table_def_t *t = cat->tables[i];
        if (strcmp(t->catalog, c) == 0 && strcmp(t->database, d) == 0 && strcmp(t->name, o) == 0)
            return t;
    }
    return NULL;
}

int cdc_catalog_create_table(cdc_catalog_t *cat, const cdc_sql_create_table_t *ct, const char *text,
                             size_t len, const char *filename, cdc_error_t **err)
{
    const char *c, *d, *o;
    qualify(cat, &ct->name, &c, &d, &o);
    if (find(cat, c, d, o)) {
        if (ct->if_not_exists)
            return 0;
        *err = cdc_sql_error_at(CDC_ERR_CATALOG, text, len, filename, ct->name.line, ct->name.col,
                                "table \"%s.%s.%s\" already exists", c, d, o);
        return -1;
    }
    if (ct->like) {
        *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, ct->like->line, ct->like->col,
                                "CREATE TABLE ... LIKE is not supported yet");
        return -1;
    }
    cdc_table_def_t *t = cdc_xcalloc(1, sizeof(*t));
    t->catalog = cdc_xstrdup(c);
    t->database = cdc_xstrdup(d);
    t->name = cdc_xstrdup(o);
    t->qualified = cdc_strdup_printf("%s.%s.%s", c, d, o);
    t->temporary = ct->temporary;
    t->line = ct->name.line;
    t->col = ct->name.col;
    t->schema = cdc_type_new_row();
    t->schema->nullable = false;
    for (size_t i = 0; i < ct->ncolumns; i++) {
        const cdc_sql_column_t *col = &ct->columns[i];
        if (col->kind != CDC_SQL_COLUMN_PHYSICAL) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, col->line, col->col,
                                    "%s column \"%s\" is not supported yet",
                                    col->kind == CDC_SQL_COLUMN_COMPUTED ? "computed" : "metadata",
                                    col->name);
            table_free(t);
            return -1;
        }
        if (cdc_type_field_index(t->schema, col->name) >= 0) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, col->line, col->col,
                                    "column \"%s\" is declared twice", col->name);
            table_free(t);
            return -1;
        }
        cdc_error_t *terr = NULL;
        cdc_type_t *type = cdc_type_parse(col->type.text, &terr);
        if (!type) {
            /* point at the column of the problem inside the type text */
            int off = 0;
            const char *p = strstr(terr->message, "at column ");
            if (p)
                off = atoi(p + 10) - 1;
            const char *rest = strchr(terr->message, ':');
            *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, col->type.line,
                                    col->type.col + off, "invalid type of column \"%s\"%s",
                                    col->name, rest ? rest : "");
            cdc_error_destroy(terr);
            table_free(t);
            return -1;
        }
        if (col->not_null)
            type->nullable = false;
        cdc_type_row_add(t->schema, col->name, type);
    }
    if (ct->primary_key) {
        const cdc_sql_ident_list_t *cols = &ct->primary_key->columns;
        t->pk = cdc_xcalloc(cols->count ? cols->count : 1, sizeof(int));
        for (size_t i = 0; i < cols->count; i++) {
            int idx = cdc_type_field_index(t->schema, cols->items[i].name);
            if (idx < 0) {
                *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, cols->items[i].line,
                                        cols->items[i].col,
                                        "primary key column \"%s\" is not a physical column of "
                                        "the table",
                                        cols->items[i].name);
                table_free(t);
                return -1;
            }
            /* Flink makes primary key columns NOT NULL */
            t->schema->children[idx]->nullable = false;
            t->pk[t->npk++] = idx;
        }
    }
    if (ct->partitioned_by.count) {
        *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, ct->partitioned_by.items[0].line,
                                ct->partitioned_by.items[0].col,
                                "PARTITIONED BY is not supported yet");
        table_free(t);
        return -1;
    }
    for (size_t i = 0; i < ct->options.count; i++) {
        const cdc_sql_option_t *opt = &ct->options.items[i];
        if (cdc_kv_get(&t->options, opt->key)) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, opt->line, opt->col,
                                    "option \"%s\" is given twice", opt->key);
            table_free(t);
            return -1;
        }
        cdc_kv_set(&t->options, opt->key, opt->value);
    }
    cat->tables = cdc_xrealloc(cat->tables, sizeof(*cat->tables) * (size_t)(cat->ntables + 1));
    cat->tables[cat->ntables++] = t;
    return 0;
}

const cdc_table_def_t *cdc_catalog_get_table(cdc_catalog_t *cat, const cdc_sql_name_t *name,
                                             const char *text, size_t len, const char *filename,
                                             cdc_error_t **err)
{
    const char *c, *d, *o;
    qualify(cat, name, &c, &d, &o);
    cdc_table_def_t *t = find(cat, c, d, o);
    if (!t) {
        *err = cdc_sql_error_at(CDC_ERR_CATALOG, text, len, filename, name->line, name->col,
                                "table \"%s.%s.%s\" does not exist", c, d, o);
        /* a "did you mean" over the tables of the same database */
        const char *names[256];
        int n = 0;
        for (int i = 0; i < cat->ntables && n < 256; i++)
            if (strcmp(cat->tables[i]->catalog, c) == 0 && strcmp(cat->tables[i]->database, d) == 0)
                names[n++] = cat->tables[i]->name;
        const char *sug = cdc_closest(o, names, n);
        if (sug)
            cdc_error_set_hint(*err, "did you mean \"%s\"?", sug);
    }
    return t;
}
