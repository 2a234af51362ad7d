/*
 * cdc_ddl.c — executes catalog statements against a cdc_catalog_t and prints
 * what SHOW, SHOW CREATE and DESCRIBE show (see cdc_ddl.h for the formats).
 */
#include "cdc_ddl.h"

#include <stdlib.h>
#include <string.h>

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

int cdc_ddl_execute(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text, size_t len,
                    const char *filename, FILE *out, cdc_error_t **err)
{
    int rc;
    switch (st->kind) {
    case CDC_SQL_STMT_CREATE_TABLE:
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
    default:
        return 1;
    }
    if (rc == 0)
        fflush(out);
    return rc < 0 ? -1 : 0;
}
