/*
 * cdc_planner.c — planning INSERT INTO ... SELECT: table resolution, column
 * mapping, projection and limit pushdown, changelog mode negotiation.
 */
#include "cdc_planner.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void cdc_pipe_destroy(cdc_pipe_t *p)
{
    if (!p)
        return;
    if (p->src)
        p->src->ops->destroy(p->src);
    if (p->sink)
        p->sink->ops->destroy(p->sink);
    cdc_resolved_free(&p->src_res);
    cdc_resolved_free(&p->sink_res);
    free(p->source_name);
    free(p->source_path);
    free(p->sink_name);
    free(p->proj);
    free(p->proj_text);
    free(p);
}

/* True when a query column of type `from` may be written to a sink column of type `to`. */
static bool assignable(const cdc_type_t *from, const cdc_type_t *to)
{
    if (cdc_type_is_integer(from) && cdc_type_is_integer(to))
        return from->root <= to->root; /* widening only */
    if (from->root != to->root)
        return false;
    switch (from->root) {
    case CDC_T_DECIMAL:
        return from->scale == to->scale && from->precision <= to->precision;
    case CDC_T_TIME:
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ:
        return from->precision <= to->precision;
    case CDC_T_ARRAY:
    case CDC_T_MAP:
    case CDC_T_ROW:
        if (from->nchildren != to->nchildren)
            return false;
        for (int i = 0; i < from->nchildren; i++)
            if (!assignable(from->children[i], to->children[i]))
                return false;
        return true;
    default:
        return true; /* CHAR/VARCHAR/BINARY lengths are not enforced */
    }
}

static void kinds_text(cdc_changelog_mode_t missing, cdc_buf_t *out)
{
    bool upd = (missing & (CDC_MODE_BIT(CDC_UPDATE_BEFORE) | CDC_MODE_BIT(CDC_UPDATE_AFTER))) != 0;
    bool del = (missing & CDC_MODE_BIT(CDC_DELETE)) != 0;
    if (upd && del)
        cdc_buf_puts(out, "update and delete");
    else if (upd)
        cdc_buf_puts(out, "update");
    else if (del)
        cdc_buf_puts(out, "delete");
    else
        cdc_buf_puts(out, "insert");
}

static void scan_node(const cdc_pipe_t *p, cdc_buf_t *out, const cdc_table_def_t *src_def)
{
    (void)src_def;
    char mode[16];
    const cdc_type_t *prod = p->src->produced;
    cdc_buf_printf(out, "TableSourceScan(table=[[%s]], fields=[", p->source_path);
    for (int i = 0; i < prod->nchildren; i++)
        cdc_buf_printf(out, "%s%s", i ? ", " : "", prod->names[i]);
    cdc_buf_printf(out, "], changelogMode=%s",
                   cdc_changelog_mode_str(p->src->ops->changelog_mode(p->src), mode));
    if (p->proj_text)
        cdc_buf_printf(out, ", project=%s", p->proj_text);
    if (p->limit_pushed)
        cdc_buf_printf(out, ", limit=%lld", (long long)p->limit);
    cdc_buf_putc(out, ')');
}

void cdc_pipe_explain(const cdc_pipe_t *p, cdc_buf_t *out)
{
    char mode[16];
    cdc_buf_printf(out, "Sink(table=[%s], fields=[", p->sink_name);
    for (int i = 0; i < p->sink_schema->nchildren; i++)
        cdc_buf_printf(out, "%s%s", i ? ", " : "", p->sink_schema->names[i]);
    cdc_buf_printf(out, "], changelogMode=%s, parallelism=%d)\n",
                   cdc_changelog_mode_str(p->mode, mode), p->parallelism);
    const char *indent = "+- ";
    if (p->limit >= 0 && !p->limit_pushed) {
        cdc_buf_printf(out, "%sLimit(fetch=%lld, changelogMode=%s)\n", indent, (long long)p->limit,
                       cdc_changelog_mode_str(p->mode, mode));
        indent = "   +- ";
    }
    if (p->proj) {
        const cdc_type_t *prod = p->src->produced;
        cdc_buf_printf(out, "%sCalc(select=[", indent);
        for (int i = 0; i < p->nproj; i++)
            cdc_buf_printf(out, "%s%s", i ? ", " : "", prod->names[p->proj[i]]);
        cdc_buf_printf(out, "], changelogMode=%s)\n", cdc_changelog_mode_str(p->mode, mode));
        indent = strlen(indent) == 3 ? "   +- " : "      +- ";
    }
    cdc_buf_puts(out, indent);
    scan_node(p, out, NULL);
    cdc_buf_putc(out, '\n');
}

static int build_ctx(const cdc_table_def_t *def, cdc_resolved_t *res, cdc_table_ctx_t *ctx,
                     int parallelism, cdc_error_t **err)
{
    if (cdc_resolve_options(&def->options, def->qualified, res, err) < 0) {
        cdc_error_add_context(*err, "CREATE TABLE at %s:%d:%d",
                              def->origin ? def->origin : "<input>", def->line, def->col);
        return -1;
    }
    *ctx = (cdc_table_ctx_t){.name = def->qualified,
                             .schema = def->schema,
                             .pk = def->pk,
                             .npk = def->npk,
                             .cfg = res->cfg,
                             .formats = res->formats,
                             .nformats = res->nformats,
                             .parallelism = parallelism};
    return 0;
}

int cdc_plan_insert(cdc_catalog_t *cat, const cdc_sql_insert_t *ins, const char *text, size_t len,
                    const char *filename, int parallelism, cdc_pipe_t **out, cdc_error_t **err)
{
    const cdc_sql_query_t *q = ins->query;
    const cdc_table_def_t *sink_def =
        cdc_catalog_get_table(cat, &ins->table, text, len, filename, err);
    if (!sink_def)
        return -1;
    if (q->njoins) {
        *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, q->joins[0].line, q->joins[0].col,
                                "joins are not supported yet");
        return -1;
    }
    if (q->where) {
        *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, q->where->line, q->where->col,
                                "WHERE is not supported yet");
        return -1;
    }
    if (q->distinct) {
        *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, q->line, q->col,
                                "SELECT DISTINCT is not supported yet");
        return -1;
    }
    if (ins->overwrite || ins->partition.count) {
        *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, ins->table.line, ins->table.col,
                                "INSERT OVERWRITE and PARTITION are not supported yet");
        return -1;
    }
    const cdc_table_def_t *src_def =
        cdc_catalog_get_table(cat, &q->from.name, text, len, filename, err);
    if (!src_def)
        return -1;

    const cdc_table_def_t *defs[2] = {src_def, sink_def};
    const cdc_sql_name_t *names[2] = {&q->from.name, &ins->table};
    for (int k = 0; k < 2; k++) {
        for (int c = 0; c < defs[k]->ncolumns; c++) {
            if (defs[k]->columns[c].kind != CDC_COLUMN_PHYSICAL) {
                *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, names[k]->line,
                                        names[k]->col,
                                        "table \"%s\" has computed or metadata column \"%s\": "
                                        "reading and writing such tables is not supported yet",
                                        defs[k]->qualified, defs[k]->columns[c].name);
                return -1;
            }
        }
        if (defs[k]->npartition_keys > 0) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, names[k]->line, names[k]->col,
                                    "table \"%s\" is partitioned: no connector supports "
                                    "partitioned tables yet",
                                    defs[k]->qualified);
            return -1;
        }
    }
    cdc_pipe_t *p = cdc_xcalloc(1, sizeof(*p));
    p->source_name = cdc_xstrdup(src_def->qualified);
    p->source_path =
        cdc_strdup_printf("%s, %s, %s", src_def->catalog, src_def->database, src_def->name);
    p->sink_name = cdc_xstrdup(sink_def->qualified);
    p->sink_schema = sink_def->schema;
    p->limit = q->has_limit ? q->limit : -1;

    /* the query's columns, as indexes into the source's physical columns */
    const cdc_type_t *ss = src_def->schema;
    int *cols = cdc_xcalloc((size_t)ss->nchildren * (q->nitems + 1) + 1, sizeof(int));
    int ncols = 0;
    for (size_t i = 0; i < q->nitems; i++) {
        const cdc_sql_expr_t *e = q->items[i].expr;
        if (e->kind == CDC_SQL_EXPR_STAR) {
            for (int k = 0; k < ss->nchildren; k++)
                cols[ncols++] = k;
            continue;
        }
        if (e->kind != CDC_SQL_EXPR_COLUMN) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, e->line, e->col,
                                    "expressions in SELECT are not supported yet; select "
                                    "columns by name or *");
            goto fail;
        }
        const char *name = e->column.parts[e->column.nparts - 1];
        int idx = cdc_type_field_index(ss, name);
        if (idx < 0) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, e->line, e->col,
                                    "column \"%s\" not found in table \"%s\"", name,
                                    src_def->qualified);
            const char *sug = cdc_closest(name, (const char *const *)ss->names, ss->nchildren);
            if (sug)
                cdc_error_set_hint(*err, "did you mean \"%s\"?", sug);
            goto fail;
        }
        cols[ncols++] = idx;
    }
    /* the sink's columns, in the order the query fills them */
    const cdc_type_t *ks = sink_def->schema;
    if (ins->columns.count) {
        if ((int)ins->columns.count != ks->nchildren) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, ins->columns.items[0].line,
                                    ins->columns.items[0].col,
                                    "the column list must name every column of \"%s\" (%d "
                                    "columns)",
                                    sink_def->qualified, ks->nchildren);
            goto fail;
        }
        int *reordered = cdc_xcalloc((size_t)ks->nchildren + 1, sizeof(int));
        for (size_t i = 0; i < ins->columns.count; i++) {
            int idx = cdc_type_field_index(ks, ins->columns.items[i].name);
            if (idx < 0) {
                free(reordered);
                *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename,
                                        ins->columns.items[i].line, ins->columns.items[i].col,
                                        "column \"%s\" not found in table \"%s\"",
                                        ins->columns.items[i].name, sink_def->qualified);
                goto fail;
            }
            if (i < (size_t)ncols)
                reordered[idx] = cols[i];
        }
        if (ncols == ks->nchildren)
            memcpy(cols, reordered, sizeof(int) * (size_t)ncols);
        free(reordered);
    }
    if (ncols != ks->nchildren) {
        *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, q->line, q->col,
                                "the query produces %d columns but table \"%s\" has %d", ncols,
                                sink_def->qualified, ks->nchildren);
        goto fail;
    }
    for (int i = 0; i < ncols; i++) {
        const cdc_type_t *from = ss->children[cols[i]];
        const cdc_type_t *to = ks->children[i];
        if (!assignable(from, to)) {
            char *a = cdc_type_to_string(from), *b = cdc_type_to_string(to);
            *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, q->line, q->col,
                                    "column \"%s\" of type %s cannot be written to column "
                                    "\"%s\" of type %s",
                                    ss->names[cols[i]], a, ks->names[i], b);
            free(a);
            free(b);
            goto fail;
        }
        if (!to->nullable && from->nullable) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, q->line, q->col,
                                    "column \"%s\" may be NULL but column \"%s\" of \"%s\" is "
                                    "NOT NULL",
                                    ss->names[cols[i]], ks->names[i], sink_def->qualified);
            goto fail;
        }
    }

    /* build the source and the sink */
    if (build_ctx(src_def, &p->src_res, &p->src_ctx, parallelism, err) < 0)
        goto fail;
    if (cdc_config_declares(p->src_res.cfg, "scan.parallelism") &&
        cdc_config_isset(p->src_res.cfg, "scan.parallelism"))
        p->src_ctx.parallelism = (int)cdc_config_int(p->src_res.cfg, "scan.parallelism");
    if (p->src_ctx.parallelism < 1)
        p->src_ctx.parallelism = 1;
    p->parallelism = p->src_ctx.parallelism;
    if (!p->src_res.connector->source_new) {
        *err =
            cdc_sql_error_at(CDC_ERR_PLAN, text, len, filename, q->from.name.line, q->from.name.col,
                             "connector \"%s\" of table \"%s\" cannot be read (it is a sink "
                             "only)",
                             p->src_res.connector->identifier, src_def->qualified);
        goto fail;
    }
    if (p->src_res.connector->source_new(&p->src_ctx, &p->src, err) < 0) {
        cdc_error_add_context(*err, "table \"%s\"", src_def->qualified);
        goto fail;
    }
    if (build_ctx(sink_def, &p->sink_res, &p->sink_ctx, p->parallelism, err) < 0)
        goto fail;
    if (!p->sink_res.connector->sink_new) {
        *err = cdc_sql_error_at(CDC_ERR_PLAN, text, len, filename, ins->table.line, ins->table.col,
                                "connector \"%s\" of table \"%s\" cannot be written (it is a "
                                "source only)",
                                p->sink_res.connector->identifier, sink_def->qualified);
        goto fail;
    }
    if (p->sink_res.connector->sink_new(&p->sink_ctx, &p->sink, err) < 0) {
        cdc_error_add_context(*err, "table \"%s\"", sink_def->qualified);
        goto fail;
    }

    /* projection: push into the source when it can, else project at run time */
    bool identity = ncols == ss->nchildren;
    for (int i = 0; identity && i < ncols; i++)
        identity = cols[i] == i;
    if (!identity) {
        if (p->src->ops->apply_projection &&
            p->src->ops->apply_projection(p->src, cols, ncols) == 0) {
            cdc_buf_t t = {0};
            cdc_buf_putc(&t, '[');
            for (int i = 0; i < ncols; i++)
                cdc_buf_printf(&t, "%s%s", i ? ", " : "", ss->names[cols[i]]);
            cdc_buf_putc(&t, ']');
            p->proj_text = cdc_xstrdup(cdc_buf_cstr(&t));
            cdc_buf_free(&t);
        } else {
            p->proj = cdc_xcalloc((size_t)ncols, sizeof(int));
            memcpy(p->proj, cols, sizeof(int) * (size_t)ncols);
            p->nproj = ncols;
        }
    }
    if (p->limit >= 0 && p->src->ops->apply_limit &&
        p->src->ops->apply_limit(p->src, p->limit) == 0)
        p->limit_pushed = true;

    /* changelog negotiation */
    cdc_changelog_mode_t produced = p->src->ops->changelog_mode(p->src);
    cdc_changelog_mode_t accepted = p->sink->ops->changelog_mode(p->sink, produced);
    cdc_changelog_mode_t missing = produced & (cdc_changelog_mode_t)~accepted;
    if (missing) {
        cdc_buf_t kinds = {0}, node = {0};
        kinds_text(missing, &kinds);
        scan_node(p, &node, src_def);
        *err = cdc_sql_error_at(CDC_ERR_PLAN, text, len, filename, ins->table.line, ins->table.col,
                                "Table sink '%s' doesn't support consuming %s changes which is "
                                "produced by node %s",
                                sink_def->qualified, cdc_buf_cstr(&kinds), cdc_buf_cstr(&node));
        cdc_buf_free(&kinds);
        cdc_buf_free(&node);
        goto fail;
    }
    p->mode = produced;
    free(cols);
    *out = p;
    return 0;
fail:
    free(cols);
    cdc_pipe_destroy(p);
    return -1;
}
