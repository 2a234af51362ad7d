/*
 * cdc_plan_join.c — planning a lookup join (`JOIN dim FOR SYSTEM_TIME AS OF
 * s.proc_time AS d ON ...`): the dim table and its lookup source, the joined
 * row (probe columns, then dim columns renamed when taken), the query and ON
 * clause rewritten to that row, and the ON clause split into lookup keys and
 * other conditions.
 */
#include "cdc_plan_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * Column references of a query with a lookup join, resolved to the joined row
 * (the probe table's columns, then the dim table's, a dim column renamed
 * "k0", "k1", ... when the probe side has its name, as Flink does): "s.k",
 * "d.k" and unambiguous bare names become one-part references to those
 * names; an ambiguous bare name is an error.
 */
typedef struct join_names {
    const cdc_type_t *probe; /* the table row (names) */
    const cdc_type_t *dim;   /* the dim table's physical columns */
    char **dim_names;        /* their names in the joined row */
    const char *pq[2], *dq[2];
    const cdc_plan_level_t *lv;
    const char *probe_table, *dim_table; /* qualified, for messages */
    cdc_error_t *err;
} join_names_t;

static bool is_qual(const char *const q[2], const char *name)
{
    return (q[0] && strcmp(q[0], name) == 0) || (q[1] && strcmp(q[1], name) == 0);
}

static void rewrite_ref(const cdc_sql_expr_t *ce, void *ctx)
{
    join_names_t *jn = ctx;
    if (jn->err || ce->kind != CDC_SQL_EXPR_COLUMN)
        return;
    cdc_sql_expr_t *e = (cdc_sql_expr_t *)ce; /* a clone the planner owns */
    char **parts = e->column.parts;
    size_t np = e->column.nparts, first = 0;
    const char *name = NULL;
    bool probe_q = np >= 2 && is_qual(jn->pq, parts[0]);
    bool dim_q = np >= 2 && !probe_q && is_qual(jn->dq, parts[0]);
    if (probe_q || dim_q) {
        first = 1;
        const cdc_type_t *t = probe_q ? jn->probe : jn->dim;
        int idx = cdc_type_field_index(t, parts[1]);
        if (idx < 0) {
            jn->err = cdc_sql_error_at(CDC_ERR_SQL, jn->lv->text, jn->lv->len, jn->lv->filename,
                                       e->line, e->col, "column \"%s\" not found in table \"%s\"",
                                       parts[1], probe_q ? jn->probe_table : jn->dim_table);
            return;
        }
        name = probe_q ? jn->probe->names[idx] : jn->dim_names[idx];
    } else {
        int a = cdc_type_field_index(jn->probe, parts[0]);
        int b = cdc_type_field_index(jn->dim, parts[0]);
        if (a >= 0 && b >= 0) {
            jn->err = cdc_sql_error_at(CDC_ERR_SQL, jn->lv->text, jn->lv->len, jn->lv->filename,
                                       e->line, e->col, "column \"%s\" is ambiguous", parts[0]);
            cdc_error_set_hint(jn->err, "both \"%s\" and \"%s\" have it: qualify it (%s.%s)",
                               jn->probe_table, jn->dim_table, jn->pq[1] ? jn->pq[1] : jn->pq[0],
                               parts[0]);
            return;
        }
        if (a < 0 && b < 0)
            return; /* the expression compiler reports it */
        name = a >= 0 ? jn->probe->names[a] : jn->dim_names[b];
    }
    size_t nn = np - first;
    char **np2 = cdc_xcalloc(nn, sizeof(char *));
    np2[0] = cdc_xstrdup(name);
    for (size_t i = 1; i < nn; i++)
        np2[i] = cdc_xstrdup(parts[first + i]);
    for (size_t i = 0; i < np; i++)
        free(parts[i]);
    free(parts);
    e->column.parts = np2;
    e->column.nparts = nn;
}

static cdc_sql_expr_t *rewrite_expr(const cdc_sql_expr_t *e, join_names_t *jn)
{
    if (!e)
        return NULL;
    cdc_sql_expr_t *c = cdc_sql_expr_clone(e);
    cdc_plan_walk_columns(c, rewrite_ref, jn);
    return c;
}

static cdc_sql_expr_t *column_ref(const char *name, int line, int col)
{
    cdc_sql_expr_t *e = cdc_xcalloc(1, sizeof(*e));
    e->kind = CDC_SQL_EXPR_COLUMN;
    e->line = line;
    e->col = col;
    e->column.parts = cdc_xcalloc(1, sizeof(char *));
    e->column.parts[0] = cdc_xstrdup(name);
    e->column.nparts = 1;
    return e;
}

void cdc_plan_join_query_free(cdc_sql_query_t *q)
{
    if (!q)
        return;
    for (size_t i = 0; i < q->nitems; i++) {
        cdc_sql_expr_destroy(q->items[i].expr);
        free(q->items[i].alias);
    }
    free(q->items);
    cdc_sql_expr_destroy(q->where);
    for (size_t i = 0; i < q->ngroup_by; i++)
        cdc_sql_expr_destroy(q->group_by[i]);
    free(q->group_by);
    free(q->group_sets);
    cdc_sql_expr_destroy(q->having);
    for (size_t i = 0; i < q->norder_by; i++)
        cdc_sql_expr_destroy(q->order_by[i].expr);
    free(q->order_by);
    free(q);
}

/* The output name an item of the rewritten query gets (its alias, or a column's name). */
static const char *item_name(const cdc_sql_select_item_t *it)
{
    if (it->alias)
        return it->alias;
    if (it->expr->kind == CDC_SQL_EXPR_COLUMN)
        return it->expr->column.parts[it->expr->column.nparts - 1];
    return NULL;
}

static bool name_taken(const cdc_sql_query_t *rq, const char *name)
{
    for (size_t i = 0; i < rq->nitems; i++) {
        const char *n = item_name(&rq->items[i]);
        if (n && strcmp(n, name) == 0)
            return true;
    }
    return false;
}

/* The query with every column reference resolved to the joined row; `s.*` / `d.*` expanded. */
static cdc_sql_query_t *rewrite_query(const cdc_sql_query_t *q, join_names_t *jn)
{
    cdc_sql_query_t *rq = cdc_xcalloc(1, sizeof(*rq));
    *rq = *q;
    rq->joins = NULL;
    rq->njoins = 0;
    rq->where = NULL;
    rq->nitems = 0;
    size_t cap = q->nitems + (size_t)jn->probe->nchildren + (size_t)jn->dim->nchildren + 1;
    rq->items = cdc_xcalloc(cap, sizeof(*rq->items));
    const char **was = cdc_xcalloc(cap, sizeof(char *)); /* a column item's name as written */
    for (size_t i = 0; i < q->nitems && !jn->err; i++) {
        const cdc_sql_select_item_t *it = &q->items[i];
        const cdc_sql_expr_t *e = it->expr;
        if (e->kind == CDC_SQL_EXPR_STAR && e->star.qualifier.nparts > 0) {
            const char *qn = e->star.qualifier.parts[e->star.qualifier.nparts - 1];
            bool pq = is_qual(jn->pq, qn), dq = !pq && is_qual(jn->dq, qn);
            if (!pq && !dq) {
                jn->err =
                    cdc_sql_error_at(CDC_ERR_SQL, jn->lv->text, jn->lv->len, jn->lv->filename,
                                     e->line, e->col, "\"%s\" names neither table of the join", qn);
                break;
            }
            const cdc_type_t *t = pq ? jn->probe : jn->dim;
            for (int c = 0; c < t->nchildren; c++)
                rq->items[rq->nitems++].expr =
                    column_ref(pq ? t->names[c] : jn->dim_names[c], e->line, e->col);
            continue;
        }
        cdc_sql_select_item_t *ri = &rq->items[rq->nitems];
        *ri = *it;
        ri->alias = it->alias ? cdc_xstrdup(it->alias) : NULL;
        ri->expr = rewrite_expr(e, jn);
        if (!it->alias && e->kind == CDC_SQL_EXPR_COLUMN && ri->expr->kind == CDC_SQL_EXPR_COLUMN)
            was[rq->nitems] = e->column.parts[e->column.nparts - 1];
        rq->nitems++;
    }
    /* `d.k`, renamed k0 in the joined row, is still named k in the output unless another
       item is */
    for (size_t i = 0; i < rq->nitems && !jn->err; i++)
        if (was[i] && strcmp(item_name(&rq->items[i]), was[i]) != 0 && !name_taken(rq, was[i]))
            rq->items[i].alias = cdc_xstrdup(was[i]);
    free(was);
    rq->where = rewrite_expr(q->where, jn);
    rq->group_by = q->ngroup_by ? cdc_xcalloc(q->ngroup_by, sizeof(*rq->group_by)) : NULL;
    for (size_t i = 0; i < q->ngroup_by; i++)
        rq->group_by[i] = rewrite_expr(q->group_by[i], jn);
    if (q->ngroup_sets) {
        rq->group_sets = cdc_xcalloc(q->ngroup_sets, sizeof(uint64_t));
        memcpy(rq->group_sets, q->group_sets, q->ngroup_sets * sizeof(uint64_t));
    }
    rq->ngroup_sets = q->ngroup_sets;
    rq->having = rewrite_expr(q->having, jn);
    rq->order_by = cdc_sql_order_items_clone(q->order_by, q->norder_by);
    for (size_t i = 0; i < q->norder_by; i++)
        cdc_plan_walk_columns(rq->order_by[i].expr, rewrite_ref, jn);
    return rq;
}

/* The environment of expressions of level @p lv over rows of @p row_type. */
static cdc_expr_env_t level_env(const cdc_plan_env_t *penv, const cdc_plan_level_t *lv,
                                const cdc_type_t *row_type)
{
    return (cdc_expr_env_t){.row_type = row_type,
                            .udf_lookup = cdc_plan_udf_lookup,
                            .udf_ctx = penv->cat,
                            .text = lv->text,
                            .len = lv->len,
                            .filename = lv->filename};
}

/* A lookup key's probe value must have the dim column's representation. */
static bool key_compatible(const cdc_type_t *probe, const cdc_type_t *dim)
{
    if (cdc_type_is_integer(probe) && cdc_type_is_integer(dim))
        return true;
    bool ps = probe->root == CDC_T_CHAR || probe->root == CDC_T_VARCHAR;
    bool ds = dim->root == CDC_T_CHAR || dim->root == CDC_T_VARCHAR;
    bool pb = probe->root == CDC_T_BINARY || probe->root == CDC_T_VARBINARY;
    bool db = dim->root == CDC_T_BINARY || dim->root == CDC_T_VARBINARY;
    if (ps || ds)
        return ps && ds;
    if (pb || db)
        return pb && db;
    if (probe->root != dim->root)
        return false;
    if (probe->root == CDC_T_DECIMAL)
        return probe->scale == dim->scale;
    return probe->root != CDC_T_ARRAY && !cdc_type_is_map_like(probe) && probe->root != CDC_T_ROW;
}

/* Fields of `row_type` an expression reads. */
static void refs_of(const cdc_sql_expr_t *e, const cdc_type_t *row_type, bool *refs)
{
    memset(refs, 0, sizeof(bool) * (size_t)(row_type->nchildren + 1));
    cdc_plan_mark_refs(e, row_type, NULL, 0, refs);
}

int cdc_plan_join_condition(const cdc_plan_env_t *penv, const cdc_plan_level_t *lv,
                            cdc_lookup_join_t *j, const cdc_type_t *table_type,
                            const cdc_sql_expr_t *on, const cdc_sql_join_t *join, cdc_error_t **err)
{
    const cdc_sql_expr_t *conj[CDC_PLAN_MAX_CONJUNCTS], *orig[CDC_PLAN_MAX_CONJUNCTS];
    size_t nconj = cdc_expr_conjuncts(on, conj, CDC_PLAN_MAX_CONJUNCTS);
    cdc_expr_conjuncts(join->on, orig, CDC_PLAN_MAX_CONJUNCTS); /* the same shape, as written */
    if (nconj > CDC_PLAN_MAX_CONJUNCTS) {
        *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, on->line, on->col,
                                "the join condition has more than %d conjuncts",
                                CDC_PLAN_MAX_CONJUNCTS);
        return -1;
    }
    for (int f = 0; f < j->nprobe; f++) {
        cdc_type_destroy(j->joined_type->children[f]);
        j->joined_type->children[f] = cdc_type_copy(table_type->children[f]);
    }
    const cdc_type_t *jt = j->joined_type;
    bool *refs = cdc_xcalloc((size_t)jt->nchildren + 1, sizeof(bool));
    cdc_expr_env_t penv_probe = level_env(penv, lv, table_type);
    cdc_expr_env_t penv_joined = penv_probe;
    penv_joined.row_type = jt;
    j->key_fields = cdc_xcalloc(nconj + 1, sizeof(int));
    j->key_exprs = cdc_xcalloc(nconj + 1, sizeof(cdc_expr_t *));
    j->conds = cdc_xcalloc(nconj + 1, sizeof(cdc_expr_t *));
    cdc_buf_t lookup = {0}, cond = {0};
    int rc = -1;
    for (size_t c = 0; c < nconj; c++) {
        const cdc_sql_expr_t *e = conj[c];
        int dim_field = -1;
        const cdc_sql_expr_t *other = NULL, *other_orig = NULL;
        if (e->kind == CDC_SQL_EXPR_BINARY && e->binary.op == CDC_SQL_BINARY_EQ) {
            for (int side = 0; side < 2 && dim_field < 0; side++) {
                const cdc_sql_expr_t *col = side ? e->binary.right : e->binary.left;
                const cdc_sql_expr_t *oth = side ? e->binary.left : e->binary.right;
                if (col->kind != CDC_SQL_EXPR_COLUMN || col->column.nparts != 1)
                    continue;
                int idx = cdc_type_field_index(jt, col->column.parts[0]);
                if (idx < j->nprobe)
                    continue;
                bool taken = false;
                for (int k = 0; k < j->nkeys; k++)
                    taken = taken || j->key_fields[k] == idx - j->nprobe;
                refs_of(oth, jt, refs);
                bool probe_only = !taken;
                for (int f = j->nprobe; f < jt->nchildren && probe_only; f++)
                    probe_only = !refs[f];
                if (probe_only) {
                    dim_field = idx - j->nprobe;
                    other = oth;
                    other_orig = side ? orig[c]->binary.left : orig[c]->binary.right;
                }
            }
        }
        if (dim_field >= 0) {
            cdc_expr_t *x = NULL;
            if (cdc_expr_compile(other, &penv_probe, &x, err) < 0)
                goto done;
            const cdc_type_t *dt = j->dim_type->children[dim_field];
            if (!key_compatible(cdc_expr_type(x), dt)) {
                char *a = cdc_type_to_string(cdc_expr_type(x)), *b = cdc_type_to_string(dt);
                char *txt = cdc_sql_expr_to_string(other_orig);
                *err =
                    cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, e->line, e->col,
                                     "lookup key \"%s\" of type %s cannot be matched with "
                                     "\"%s\" of type %s",
                                     j->dim_type->names[dim_field], b, txt, a);
                cdc_error_set_hint(*err, "CAST the probe side to %s", b);
                free(a);
                free(b);
                free(txt);
                cdc_expr_destroy(x);
                goto done;
            }
            char *txt = cdc_sql_expr_to_string(other_orig);
            cdc_buf_printf(&lookup, "%s%s=%s", j->nkeys ? ", " : "", j->dim_type->names[dim_field],
                           txt);
            free(txt);
            j->key_fields[j->nkeys] = dim_field;
            j->key_exprs[j->nkeys++] = x;
            continue;
        }
        if (cdc_expr_compile(e, &penv_joined, &j->conds[j->nconds], err) < 0)
            goto done;
        j->nconds++;
        if (cdc_expr_require_boolean(j->conds[j->nconds - 1], e, &penv_joined, "ON", err) < 0)
            goto done;
        char *txt = cdc_sql_expr_to_string(orig[c]);
        cdc_buf_printf(&cond, "%s%s", cond.len ? " AND " : "", txt);
        free(txt);
    }
    if (j->nkeys == 0) {
        *err = cdc_sql_error_at(CDC_ERR_PLAN, lv->text, lv->len, lv->filename, on->line, on->col,
                                "Temporal table join requires an equality condition on fields of "
                                "table [%s].",
                                j->dim_name);
        cdc_error_set_hint(*err, "add `AND %s.<column> = <probe expression>` to the ON clause",
                           join->table.alias ? join->table.alias
                                             : join->table.name.parts[join->table.name.nparts - 1]);
        goto done;
    }
    j->key_type = cdc_type_new_row();
    j->key_idx = cdc_xcalloc((size_t)j->nkeys, sizeof(int));
    for (int k = 0; k < j->nkeys; k++) {
        j->key_idx[k] = k;
        cdc_type_row_add(j->key_type, j->dim_type->names[j->key_fields[k]],
                         cdc_type_copy(j->dim_type->children[j->key_fields[k]]));
    }
    cdc_buf_t ex = {0}, cache = {0};
    cdc_lookup_opts_explain(&j->opts, &cache);
    cdc_buf_printf(&ex, "table=[[%s]], joinType=[%s], lookup=[%s]", j->dim_path,
                   j->left ? "LeftOuterJoin" : "InnerJoin", cdc_buf_cstr(&lookup));
    if (cond.len)
        cdc_buf_printf(&ex, ", joinCondition=[%s]", cdc_buf_cstr(&cond));
    cdc_buf_puts(&ex, ", select=[");
    for (int f = 0; f < jt->nchildren; f++)
        cdc_buf_printf(&ex, "%s%s", f ? ", " : "", jt->names[f]);
    cdc_buf_printf(&ex, "], cache=%s", cdc_buf_cstr(&cache));
    j->explain = cdc_xstrdup(cdc_buf_cstr(&ex));
    cdc_buf_free(&ex);
    cdc_buf_free(&cache);
    rc = 0;
done:
    free(refs);
    cdc_buf_free(&lookup);
    cdc_buf_free(&cond);
    return rc;
}

int cdc_plan_join_dim(const cdc_plan_env_t *penv, const cdc_plan_level_t *lv,
                      const cdc_table_def_t *src_def, const cdc_type_t *table_type,
                      cdc_lookup_join_t **out, cdc_sql_query_t **rq, cdc_sql_expr_t **on,
                      cdc_error_t **err)
{
    const cdc_sql_join_t *join = &lv->q->joins[0];
    const cdc_table_def_t *dim = NULL;
    const cdc_view_def_t *v = NULL;
    int found = cdc_catalog_find(penv->cat, &join->table.name, &dim, &v, err);
    if (found < 0)
        return -1;
    if (found == 0) { /* the catalog's message, positioned in this level's text */
        if (cdc_catalog_get_table(penv->cat, &join->table.name, lv->text, lv->len, lv->filename,
                                  err))
            *err = cdc_error_new(CDC_ERR_INTERNAL, "the catalog found a table it did not list");
        return -1;
    }
    int nl = join->table.name.line, nc = join->table.name.col;
    if (!dim) {
        *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, nl, nc,
                                "a lookup join needs a table, \"%s\" is a view", v->qualified);
        return -1;
    }
    for (int c = 0; c < dim->ncolumns; c++)
        if (dim->columns[c].kind != CDC_COLUMN_PHYSICAL) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, nl, nc,
                                    "lookup table \"%s\" has computed or metadata column \"%s\": "
                                    "such lookup tables are not supported yet",
                                    dim->qualified, dim->columns[c].name);
            return -1;
        }
    cdc_lookup_join_t *j = cdc_xcalloc(1, sizeof(*j));
    *out = j;
    j->left = join->kind == CDC_SQL_JOIN_LEFT;
    j->dim_name = cdc_xstrdup(dim->qualified);
    j->dim_path = cdc_strdup_printf("%s, %s, %s", dim->catalog, dim->database, dim->name);
    j->dim_type = cdc_type_copy(dim->schema);
    if (cdc_plan_build_ctx(dim, &join->table.hints, &j->res, &j->ctx, penv->parallelism, err) < 0)
        return -1;
    if (!j->res.connector->source_new) {
        *err = cdc_sql_error_at(CDC_ERR_PLAN, lv->text, lv->len, lv->filename, nl, nc,
                                "connector \"%s\" of table \"%s\" cannot be read (it is a sink "
                                "only)",
                                j->res.connector->identifier, dim->qualified);
        return -1;
    }
    if (j->res.connector->source_new(&j->ctx, &j->src, err) < 0) {
        cdc_error_add_context(*err, "table \"%s\"", dim->qualified);
        cdc_plan_context_create_table(*err, dim);
        return -1;
    }
    if (!j->src->ops->open_lookup) {
        *err = cdc_sql_error_at(CDC_ERR_PLAN, lv->text, lv->len, lv->filename, nl, nc,
                                "connector \"%s\" of table \"%s\" does not support lookups",
                                j->res.connector->identifier, dim->qualified);
        cdc_error_set_hint(*err, "use a connector that is a LookupTableSource (jdbc, values)");
        return -1;
    }
    cdc_lookup_opts_read(j->res.cfg, &j->opts);

    /* the joined row's names: a dim column the probe side has is renamed "k0", "k1", ... */
    int nd = dim->schema->nchildren;
    j->nprobe = table_type->nchildren;
    char **dim_names = cdc_xcalloc((size_t)nd + 1, sizeof(char *));
    j->joined_type = cdc_type_new_row();
    j->joined_type->nullable = false;
    for (int f = 0; f < j->nprobe; f++) /* types set again once computed columns are typed */
        cdc_type_row_add(j->joined_type, table_type->names[f],
                         cdc_type_copy(table_type->children[f]));
    for (int f = 0; f < nd; f++) {
        const char *base = dim->schema->names[f];
        char *name = cdc_xstrdup(base);
        for (int k = 0; cdc_type_field_index(j->joined_type, name) >= 0; k++) {
            free(name);
            name = cdc_strdup_printf("%s%d", base, k);
        }
        cdc_type_t *t = cdc_type_copy(dim->schema->children[f]);
        if (j->left)
            t->nullable = true;
        cdc_type_row_add(j->joined_type, name, t);
        free(name);
        dim_names[f] = j->joined_type->names[j->nprobe + f];
    }
    join_names_t jn = {.probe = table_type,
                       .dim = dim->schema,
                       .dim_names = dim_names,
                       .pq = {src_def->name, lv->q->from.alias},
                       .dq = {dim->name, join->table.alias},
                       .lv = lv,
                       .probe_table = src_def->qualified,
                       .dim_table = dim->qualified};
    *rq = rewrite_query(lv->q, &jn);
    *on = rewrite_expr(join->on, &jn);
    cdc_sql_expr_t *st = jn.err ? NULL : rewrite_expr(join->system_time, &jn);
    free(dim_names); /* borrowed from joined_type */
    if (jn.err) {
        *err = jn.err;
        cdc_sql_expr_destroy(st);
        return -1;
    }
    /* FOR SYSTEM_TIME AS OF: the probe table's processing-time attribute */
    int ti = st && st->kind == CDC_SQL_EXPR_COLUMN && st->column.nparts == 1
                 ? cdc_type_field_index(table_type, st->column.parts[0])
                 : -1;
    bool ok = ti >= 0 && ti < src_def->ncolumns &&
              src_def->columns[ti].kind == CDC_COLUMN_COMPUTED &&
              cdc_plan_is_proctime(src_def->columns[ti].expr);
    cdc_sql_expr_destroy(st);
    if (!ok) {
        const cdc_sql_expr_t *e = join->system_time;
        *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, e->line, e->col,
                                "Temporal table join currently only supports 'FOR SYSTEM_TIME AS "
                                "OF' left table's time attribute field");
        cdc_error_set_hint(*err,
                           "declare a processing-time column on \"%s\" (`proc_time AS "
                           "PROCTIME()`) and join FOR SYSTEM_TIME AS OF it; event-time "
                           "temporal joins are not supported yet",
                           src_def->qualified);
        return -1;
    }
    return 0;
}

/* ---- UNNEST ------------------------------------------------------------------------------ */

/* The columns UNNEST adds for an argument of type @p at (Flink's names: the element's, or
 * EXPR$0 for one that is not a ROW; f0, f1 for a MAP's key and value; ORDINALITY), or NULL
 * when @p at is not an ARRAY, MULTISET or MAP. A MULTISET gives the columns of an ARRAY. */
static cdc_type_t *unnest_columns(cdc_unnest_t *u, const cdc_type_t *at)
{
    cdc_type_t *row = cdc_type_new_row();
    u->multiset = at->root == CDC_T_MULTISET;
    bool elems = at->root == CDC_T_ARRAY || u->multiset;
    if (elems && at->children[0]->root == CDC_T_ROW) {
        const cdc_type_t *el = at->children[0];
        u->row_elem = true;
        for (int f = 0; f < el->nchildren; f++)
            cdc_type_row_add(row, el->names[f], cdc_type_copy(el->children[f]));
    } else if (elems) {
        cdc_type_row_add(row, "EXPR$0", cdc_type_copy(at->children[0]));
    } else if (at->root == CDC_T_MAP) {
        u->map = true;
        cdc_type_row_add(row, "f0", cdc_type_copy(at->children[0]));
        cdc_type_row_add(row, "f1", cdc_type_copy(at->children[1]));
    } else {
        cdc_type_destroy(row);
        return NULL;
    }
    if (u->ordinality) {
        cdc_type_t *ord = cdc_type_new(CDC_T_INT);
        ord->nullable = false;
        cdc_type_row_add(row, "ORDINALITY", ord);
    }
    return row;
}

static bool is_true_literal(const cdc_sql_expr_t *e)
{
    return e && e->kind == CDC_SQL_EXPR_LITERAL && e->literal.kind == CDC_SQL_LIT_BOOLEAN &&
           strcasecmp(e->literal.text, "TRUE") == 0;
}

int cdc_plan_join_unnest(const cdc_plan_env_t *penv, const cdc_plan_level_t *lv,
                         const cdc_table_def_t *src_def, const cdc_type_t *table_type,
                         cdc_unnest_t **out, cdc_sql_query_t **rq, cdc_sql_expr_t **on,
                         cdc_error_t **err)
{
    const cdc_sql_join_t *join = &lv->q->joins[0];
    const cdc_sql_unnest_t *un = join->table.unnest;
    cdc_unnest_t *u = cdc_xcalloc(1, sizeof(*u));
    *out = u;
    u->left = join->kind == CDC_SQL_JOIN_LEFT;
    u->ordinality = un->ordinality;
    u->nprobe = table_type->nchildren;
    if (u->left && !is_true_literal(join->on)) {
        char *shown = cdc_sql_expr_to_string(join->on);
        *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, join->on->line,
                                join->on->col,
                                "Left outer joins with a table function do not accept a "
                                "predicate such as %s. Only literal TRUE is accepted.",
                                shown);
        free(shown);
        return -1;
    }
    /* the argument reads the table row */
    cdc_type_t *none = cdc_type_new_row();
    join_names_t jn = {.probe = table_type,
                       .dim = none,
                       .pq = {src_def->name, lv->q->from.alias},
                       .dq = {join->table.alias, NULL},
                       .lv = lv,
                       .probe_table = src_def->qualified,
                       .dim_table = "UNNEST"};
    u->arg_sql = rewrite_expr(un->arg, &jn);
    cdc_type_destroy(none);
    if (jn.err) {
        *err = jn.err;
        return -1;
    }
    cdc_expr_env_t env = level_env(penv, lv, table_type);
    cdc_expr_t *arg = NULL;
    if (cdc_expr_compile(u->arg_sql, &env, &arg, err) < 0)
        return -1;
    cdc_type_t *cols = unnest_columns(u, cdc_expr_type(arg));
    if (!cols) {
        char *ty = cdc_type_to_string(cdc_expr_type(arg));
        *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, un->arg->line,
                                un->arg->col, "UNNEST needs an ARRAY, a MULTISET or a MAP, not %s",
                                ty);
        free(ty);
        cdc_expr_destroy(arg);
        return -1;
    }
    cdc_expr_destroy(arg); /* compiled again once computed columns are typed */
    u->nout = cols->nchildren;
    if (un->columns.count && un->columns.count != (size_t)u->nout) {
        *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename,
                                un->columns.items[0].line, un->columns.items[0].col,
                                "the column list has %zu names, UNNEST gives %d columns",
                                un->columns.count, u->nout);
        cdc_type_destroy(cols);
        return -1;
    }
    for (size_t c = 0; c < un->columns.count; c++) {
        free(cols->names[c]);
        cols->names[c] = cdc_xstrdup(un->columns.items[c].name);
    }
    /* the joined row: the table row, then UNNEST's columns (renamed "x0", ... when taken) */
    u->joined_type = cdc_type_new_row();
    u->joined_type->nullable = false;
    for (int f = 0; f < u->nprobe; f++)
        cdc_type_row_add(u->joined_type, table_type->names[f],
                         cdc_type_copy(table_type->children[f]));
    char **names = cdc_xcalloc((size_t)u->nout + 1, sizeof(char *));
    for (int f = 0; f < u->nout; f++) {
        char *name = cdc_xstrdup(cols->names[f]);
        for (int k = 0; cdc_type_field_index(u->joined_type, name) >= 0; k++) {
            free(name);
            name = cdc_strdup_printf("%s%d", cols->names[f], k);
        }
        cdc_type_t *t = cdc_type_copy(cols->children[f]);
        if (u->left)
            t->nullable = true;
        cdc_type_row_add(u->joined_type, name, t);
        free(name);
        names[f] = u->joined_type->names[u->nprobe + f];
    }
    jn.dim = cols;
    jn.dim_names = names;
    *rq = rewrite_query(lv->q, &jn);
    *on = rewrite_expr(join->on, &jn);
    free(names);
    cdc_type_destroy(cols);
    if (jn.err) {
        *err = jn.err;
        return -1;
    }
    return 0;
}

int cdc_plan_unnest_compile(const cdc_plan_env_t *penv, const cdc_plan_level_t *lv, cdc_unnest_t *u,
                            const cdc_type_t *table_type, const cdc_sql_expr_t *on,
                            cdc_error_t **err)
{
    cdc_expr_env_t env = level_env(penv, lv, table_type);
    if (cdc_expr_compile(u->arg_sql, &env, &u->arg, err) < 0)
        return -1;
    for (int f = 0; f < u->nprobe; f++) {
        cdc_type_destroy(u->joined_type->children[f]);
        u->joined_type->children[f] = cdc_type_copy(table_type->children[f]);
    }
    /* the element types as the argument's final type has them */
    cdc_unnest_t again = {.ordinality = u->ordinality};
    cdc_type_t *cols = unnest_columns(&again, cdc_expr_type(u->arg));
    for (int f = 0; cols && f < u->nout && f < cols->nchildren; f++) {
        cdc_type_t *t = cdc_type_copy(cols->children[f]);
        if (u->left)
            t->nullable = true;
        cdc_type_destroy(u->joined_type->children[u->nprobe + f]);
        u->joined_type->children[u->nprobe + f] = t;
    }
    cdc_type_destroy(cols);
    const cdc_sql_expr_t *conj[CDC_PLAN_MAX_CONJUNCTS];
    size_t nconj = on ? cdc_expr_conjuncts(on, conj, CDC_PLAN_MAX_CONJUNCTS) : 0;
    if (nconj > CDC_PLAN_MAX_CONJUNCTS) {
        *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, on->line, on->col,
                                "the join condition has more than %d conjuncts",
                                CDC_PLAN_MAX_CONJUNCTS);
        return -1;
    }
    env.row_type = u->joined_type;
    u->conds = cdc_xcalloc(nconj + 1, sizeof(cdc_expr_t *));
    cdc_buf_t ex = {0};
    char *arg = cdc_sql_expr_to_string(u->arg_sql);
    cdc_buf_printf(&ex, "invocation=[UNNEST(%s)%s]", arg, u->ordinality ? " WITH ORDINALITY" : "");
    free(arg);
    cdc_buf_puts(&ex, ", select=[");
    for (int f = 0; f < u->joined_type->nchildren; f++)
        cdc_buf_printf(&ex, "%s%s", f ? ", " : "", u->joined_type->names[f]);
    cdc_buf_printf(&ex, "], joinType=[%s]", u->left ? "LEFT" : "INNER");
    int rc = 0;
    for (size_t c = 0; c < nconj && rc == 0; c++) {
        if (is_true_literal(conj[c]))
            continue;
        rc = cdc_expr_compile(conj[c], &env, &u->conds[u->nconds], err);
        if (rc == 0) {
            char *t = cdc_sql_expr_to_string(conj[c]);
            cdc_buf_printf(&ex, "%s%s", u->nconds ? " AND " : ", condition=[", t);
            free(t);
            u->nconds++;
        }
    }
    if (u->nconds)
        cdc_buf_putc(&ex, ']');
    u->explain = cdc_xstrdup(cdc_buf_cstr(&ex));
    cdc_buf_free(&ex);
    return rc;
}
