/*
 * cdc_plan_query.c — what the planner reads from a query's expressions: the
 * column references (walked, marked per column, or as nested access paths
 * for nested projection), a query level compiled into a Calc stage, and the
 * functions and processing-time attributes expressions may call.
 */
#include "cdc_plan_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

const cdc_udf_def_t *cdc_plan_udf_lookup(void *ctx, const char *name)
{
    return cdc_catalog_lookup_function((cdc_catalog_t *)ctx, name);
}

const char *cdc_plan_ref_name(const cdc_sql_expr_t *e, const char *const *quals, int nquals)
{
    if (e->column.nparts >= 2) {
        for (int q = 0; q < nquals; q++)
            if (quals[q] && strcmp(quals[q], e->column.parts[0]) == 0)
                return e->column.parts[1];
    }
    return e->column.parts[0];
}

void cdc_plan_walk_exprs(const cdc_sql_expr_t *e, void (*fn)(const cdc_sql_expr_t *node, void *ctx),
                         void *ctx)
{
    if (!e)
        return;
    fn(e, ctx);
    switch (e->kind) {
    case CDC_SQL_EXPR_UNARY:
        cdc_plan_walk_exprs(e->unary.operand, fn, ctx);
        break;
    case CDC_SQL_EXPR_BINARY:
        cdc_plan_walk_exprs(e->binary.left, fn, ctx);
        cdc_plan_walk_exprs(e->binary.right, fn, ctx);
        break;
    case CDC_SQL_EXPR_CALL:
        for (size_t i = 0; i < e->call.nargs; i++)
            cdc_plan_walk_exprs(e->call.args[i], fn, ctx);
        for (size_t i = 0; e->call.over && i < e->call.over->npartition_by; i++)
            cdc_plan_walk_exprs(e->call.over->partition_by[i], fn, ctx);
        for (size_t i = 0; e->call.over && i < e->call.over->norder_by; i++)
            cdc_plan_walk_exprs(e->call.over->order_by[i].expr, fn, ctx);
        break;
    case CDC_SQL_EXPR_CAST:
        cdc_plan_walk_exprs(e->cast.operand, fn, ctx);
        break;
    case CDC_SQL_EXPR_CASE:
        cdc_plan_walk_exprs(e->case_expr.operand, fn, ctx);
        for (size_t i = 0; i < e->case_expr.nwhens; i++) {
            cdc_plan_walk_exprs(e->case_expr.whens[i].when, fn, ctx);
            cdc_plan_walk_exprs(e->case_expr.whens[i].then, fn, ctx);
        }
        cdc_plan_walk_exprs(e->case_expr.else_expr, fn, ctx);
        break;
    case CDC_SQL_EXPR_IN:
        cdc_plan_walk_exprs(e->in_list.operand, fn, ctx);
        for (size_t i = 0; i < e->in_list.nitems; i++)
            cdc_plan_walk_exprs(e->in_list.items[i], fn, ctx);
        break;
    case CDC_SQL_EXPR_BETWEEN:
        cdc_plan_walk_exprs(e->between.operand, fn, ctx);
        cdc_plan_walk_exprs(e->between.low, fn, ctx);
        cdc_plan_walk_exprs(e->between.high, fn, ctx);
        break;
    case CDC_SQL_EXPR_LIKE:
        cdc_plan_walk_exprs(e->like.operand, fn, ctx);
        cdc_plan_walk_exprs(e->like.pattern, fn, ctx);
        cdc_plan_walk_exprs(e->like.escape, fn, ctx);
        break;
    case CDC_SQL_EXPR_IS_NULL:
        cdc_plan_walk_exprs(e->is_null.operand, fn, ctx);
        break;
    case CDC_SQL_EXPR_SUBSCRIPT:
        cdc_plan_walk_exprs(e->subscript.base, fn, ctx);
        cdc_plan_walk_exprs(e->subscript.index, fn, ctx);
        break;
    default:
        break;
    }
}

typedef struct column_walk {
    void (*fn)(const cdc_sql_expr_t *ref, void *ctx);
    void *ctx;
} column_walk_t;

static void visit_column(const cdc_sql_expr_t *node, void *ctx)
{
    const column_walk_t *w = ctx;
    if (node->kind == CDC_SQL_EXPR_COLUMN || node->kind == CDC_SQL_EXPR_STAR)
        w->fn(node, w->ctx);
}

void cdc_plan_walk_columns(const cdc_sql_expr_t *e,
                           void (*fn)(const cdc_sql_expr_t *ref, void *ctx), void *ctx)
{
    column_walk_t w = {.fn = fn, .ctx = ctx};
    cdc_plan_walk_exprs(e, visit_column, &w);
}

typedef struct mark_ctx {
    const cdc_type_t *row_type;
    const char *const *quals;
    int nquals;
    bool *need;
} mark_ctx_t;

static void mark_ref(const cdc_sql_expr_t *e, void *ctx)
{
    mark_ctx_t *m = ctx;
    if (e->kind == CDC_SQL_EXPR_STAR) {
        for (int i = 0; i < m->row_type->nchildren; i++)
            m->need[i] = true;
        return;
    }
    int idx = cdc_type_field_index(m->row_type, cdc_plan_ref_name(e, m->quals, m->nquals));
    if (idx >= 0)
        m->need[idx] = true;
}

void cdc_plan_mark_refs(const cdc_sql_expr_t *e, const cdc_type_t *row_type,
                        const char *const *quals, int nquals, bool *need)
{
    mark_ctx_t m = {.row_type = row_type, .quals = quals, .nquals = nquals, .need = need};
    cdc_plan_walk_columns(e, mark_ref, &m);
}

static void path_add(cdc_plan_paths_t *pc, const cdc_field_path_t *fp)
{
    if (pc->n == pc->cap) {
        pc->cap = pc->cap ? pc->cap * 2 : 16;
        pc->paths = cdc_xrealloc(pc->paths, sizeof(*pc->paths) * (size_t)pc->cap);
    }
    pc->paths[pc->n++] = *fp;
}

void cdc_plan_path_ref(const cdc_sql_expr_t *e, void *ctx)
{
    cdc_plan_paths_t *pc = ctx;
    const cdc_type_t *row = pc->row_type;
    if (e->kind == CDC_SQL_EXPR_STAR) {
        for (int i = 0; i < row->nchildren; i++)
            path_add(pc, &(cdc_field_path_t){.depth = 1, .idx = {i}});
        return;
    }
    char *const *parts = e->column.parts;
    size_t nparts = e->column.nparts, first = 0;
    int idx = cdc_type_field_index(row, parts[0]);
    bool qualified = false;
    for (int q = 0; nparts >= 2 && q < pc->nquals; q++)
        qualified = qualified || (pc->quals[q] && strcmp(pc->quals[q], parts[0]) == 0);
    if (qualified) {
        int q = cdc_type_field_index(row, parts[1]);
        if (q >= 0 || idx < 0) {
            first = 1;
            idx = q;
        }
    }
    if (idx < 0)
        return;
    cdc_field_path_t fp = {.depth = 1, .idx = {idx}};
    const cdc_type_t *t = row->children[idx];
    for (size_t k = first + 1; k < nparts && fp.depth < CDC_FIELD_PATH_MAX; k++) {
        int fi = t->root == CDC_T_ROW ? cdc_type_field_index(t, parts[k]) : -1;
        if (fi < 0)
            break; /* not a nested field: the compiler reports it; the prefix is needed */
        fp.idx[fp.depth++] = fi;
        t = t->children[fi];
    }
    path_add(pc, &fp);
}

bool cdc_plan_path_covers(const cdc_field_path_t *a, const cdc_field_path_t *b)
{
    if (a->depth > b->depth)
        return false;
    for (int d = 0; d < a->depth; d++)
        if (a->idx[d] != b->idx[d])
            return false;
    return true;
}

int cdc_plan_path_cmp(const void *x, const void *y)
{
    const cdc_field_path_t *a = x, *b = y;
    for (int d = 0; d < a->depth && d < b->depth; d++)
        if (a->idx[d] != b->idx[d])
            return a->idx[d] < b->idx[d] ? -1 : 1;
    return a->depth - b->depth;
}

/* The output name of a select item whose name @p name another item already has: as Calcite's
   uniquify, the first of name0, name1, ... that is free ("id", "id" -> "id", "id0"). Writes
   @p name itself when it is free. */
static void unique_name(const cdc_type_t *row, const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s", name);
    for (int j = 0; cdc_type_field_index(row, out) >= 0; j++)
        snprintf(out, cap, "%s%d", name, j);
}

/* The name of select item @p it, output column @p i: its alias, a column's name, or EXPR$i
 * (written into @p fallback). */
static const char *item_name(const cdc_sql_select_item_t *it, int i, char *fallback, size_t cap)
{
    if (it->alias)
        return it->alias;
    if (it->expr->kind == CDC_SQL_EXPR_COLUMN)
        return it->expr->column.parts[it->expr->column.nparts - 1];
    snprintf(fallback, cap, "EXPR$%d", i);
    return fallback;
}

/* A later branch of UNION ALL takes the first branch's column names, as Flink's union does;
 * when "*" hid the column counts from the parser, they are checked here. The first branch's
 * own "*" leaves the names as they are (they are not known without planning it). */
static int union_names(const cdc_plan_level_t *lv, cdc_stage_t *st, const cdc_expr_env_t *env,
                       cdc_error_t **err)
{
    const cdc_sql_query_t *head = lv->head;
    for (size_t i = 0; i < head->nitems; i++)
        if (head->items[i].expr->kind == CDC_SQL_EXPR_STAR)
            return 0;
    if ((int)head->nitems != st->nitems) {
        *err = cdc_expr_error_at(env, lv->q->line, lv->q->col,
                                 "this branch of UNION ALL has %d columns, the first branch has "
                                 "%zu: every branch has the same number of columns",
                                 st->nitems, head->nitems);
        return -1;
    }
    for (int i = 0; i < st->nitems; i++) {
        char fallback[32];
        const char *name = item_name(&head->items[i], i, fallback, sizeof(fallback));
        free(st->out_type->names[i]);
        st->out_type->names[i] = cdc_xstrdup(name);
    }
    return 0;
}

int cdc_plan_compile_stage(const cdc_plan_env_t *penv, const cdc_plan_level_t *lv,
                           const cdc_type_t *in_type, const char *rel_name, cdc_stage_t *st,
                           cdc_error_t **err)
{
    const cdc_sql_query_t *q = lv->q;
    const char *quals[2] = {rel_name, q->from.alias};
    cdc_expr_env_t env = {.row_type = in_type,
                          .qualifiers = quals,
                          .nqualifiers = q->from.alias ? 2 : 1,
                          .udf_lookup = cdc_plan_udf_lookup,
                          .udf_ctx = penv->cat,
                          .text = lv->text,
                          .len = lv->len,
                          .filename = lv->filename};
    cdc_buf_t ex = {0};
    cdc_buf_puts(&ex, "select=[");
    st->out_type = cdc_type_new_row();
    st->out_type->nullable = false;
    int cap = 8;
    st->items = cdc_xcalloc((size_t)cap, sizeof(*st->items));
    for (size_t i = 0; i < q->nitems; i++) {
        const cdc_sql_select_item_t *it = &q->items[i];
        if (it->expr->kind == CDC_SQL_EXPR_STAR) {
            for (int c = 0; c < in_type->nchildren; c++) {
                cdc_sql_expr_t ref = {
                    .kind = CDC_SQL_EXPR_COLUMN, .line = it->expr->line, .col = it->expr->col};
                char *parts[1] = {in_type->names[c]};
                ref.column.parts = parts;
                ref.column.nparts = 1;
                if (st->nitems == cap) {
                    cap *= 2;
                    st->items = cdc_xrealloc(st->items, sizeof(*st->items) * (size_t)cap);
                }
                if (cdc_expr_compile(&ref, &env, &st->items[st->nitems], err) < 0)
                    goto fail;
                char uniq[256];
                unique_name(st->out_type, in_type->names[c], uniq, sizeof(uniq));
                cdc_type_row_add(st->out_type, uniq,
                                 cdc_type_copy(cdc_expr_type(st->items[st->nitems])));
                cdc_buf_printf(&ex, "%s%s", st->nitems ? ", " : "", in_type->names[c]);
                if (strcmp(uniq, in_type->names[c]) != 0)
                    cdc_buf_printf(&ex, " AS %s", uniq);
                st->nitems++;
            }
            continue;
        }
        if (st->nitems == cap) {
            cap *= 2;
            st->items = cdc_xrealloc(st->items, sizeof(*st->items) * (size_t)cap);
        }
        if (cdc_expr_compile(it->expr, &env, &st->items[st->nitems], err) < 0)
            goto fail;
        char *text = cdc_sql_expr_to_string(it->expr);
        char fallback[32];
        const char *name = item_name(it, st->nitems, fallback, sizeof(fallback));
        if (cdc_type_field_index(st->out_type, name) >= 0 && lv->view && !lv->view->ncolumns) {
            /* Flink (FLINK-33490) refuses a view whose columns share a name */
            *err = cdc_expr_error_at(&env, it->expr->line, it->expr->col,
                                     "column \"%s\" appears twice in the select list of view "
                                     "\"%s\"; give it an alias",
                                     name, lv->view->qualified);
            free(text);
            cdc_expr_destroy(st->items[st->nitems]);
            st->items[st->nitems] = NULL;
            goto fail;
        }
        char uniq[256];
        unique_name(st->out_type, name, uniq, sizeof(uniq));
        cdc_type_row_add(st->out_type, uniq, cdc_type_copy(cdc_expr_type(st->items[st->nitems])));
        if (it->alias || strcmp(uniq, name) != 0)
            cdc_buf_printf(&ex, "%s%s AS %s", st->nitems ? ", " : "", text, uniq);
        else
            cdc_buf_printf(&ex, "%s%s", st->nitems ? ", " : "", text);
        free(text);
        st->nitems++;
    }
    cdc_buf_putc(&ex, ']');
    if (q->where) {
        if (cdc_expr_compile(q->where, &env, &st->where, err) < 0)
            goto fail;
        if (cdc_expr_require_boolean(st->where, q->where, &env, "WHERE", err) < 0)
            goto fail;
        char *text = cdc_sql_expr_to_string(q->where);
        cdc_buf_printf(&ex, ", where=[%s]", text);
        free(text);
    }
    if (lv->head && union_names(lv, st, &env, err) < 0)
        goto fail;
    /* a view's declared column list renames its output */
    if (lv->view && lv->view->ncolumns > 0) {
        if (lv->view->ncolumns != st->nitems) {
            *err =
                cdc_error_new(CDC_ERR_SQL, "view \"%s\" declares %d columns but its query has %d",
                              lv->view->qualified, lv->view->ncolumns, st->nitems);
            goto fail;
        }
        for (int i = 0; i < st->nitems; i++) {
            free(st->out_type->names[i]);
            st->out_type->names[i] = cdc_xstrdup(lv->view->columns[i]);
        }
    }
    st->explain = cdc_xstrdup(cdc_buf_cstr(&ex));
    cdc_buf_free(&ex);
    return 0;
fail:
    cdc_buf_free(&ex);
    return -1;
}

bool cdc_plan_is_proctime(const cdc_sql_expr_t *e)
{
    return e && e->kind == CDC_SQL_EXPR_CALL && e->call.name &&
           strcasecmp(e->call.name, "PROCTIME") == 0 && e->call.nargs == 0;
}

int cdc_plan_common_row(const cdc_plan_env_t *env, int line, int col,
                        const cdc_type_t *const *types, int n, const char *what, const char *part,
                        cdc_type_t **out, cdc_error_t **err)
{
    *out = NULL;
    cdc_type_t *common = cdc_type_copy(types[0]);
    bool differ = false;
    for (int i = 1; i < n; i++) {
        if (types[i]->nchildren != common->nchildren) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, env->text, env->len, env->filename, line, col,
                                    "%s has %d columns in one %s and %d in another: each has the "
                                    "same number of columns",
                                    what, common->nchildren, part, types[i]->nchildren);
            cdc_type_destroy(common);
            return -1;
        }
        for (int c = 0; c < common->nchildren; c++) {
            const cdc_type_t *t = types[i]->children[c];
            differ = differ || !cdc_type_equals(t, common->children[c]);
            cdc_type_t *m = cdc_expr_common_type(common->children[c], t);
            if (!m) {
                char *a = cdc_type_to_string(common->children[c]), *b = cdc_type_to_string(t);
                *err = cdc_sql_error_at(CDC_ERR_SQL, env->text, env->len, env->filename, line, col,
                                        "column %d (\"%s\") of %s has no common type: %s in one "
                                        "%s, %s in another",
                                        c + 1, common->names[c], what, a, part, b);
                cdc_error_set_hint(*err, "CAST the column to one type in every %s", part);
                free(a);
                free(b);
                cdc_type_destroy(common);
                return -1;
            }
            cdc_type_destroy(common->children[c]);
            common->children[c] = m;
        }
    }
    if (differ)
        *out = common;
    else
        cdc_type_destroy(common);
    return 0;
}
