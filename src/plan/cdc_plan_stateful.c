/*
 * cdc_plan_stateful.c — planning a query with state (GROUP BY and aggregate calls, SELECT
 * DISTINCT, regular joins, Top-N) into a graph of operators (cdc_graph.h).
 *
 * The query is walked from the INSERT's query down its FROM (subqueries, WITH queries, views) to
 * the first level that needs state itself (L*). Everything under L* that needs no state is a leaf
 * pipe, planned as the bare query `SELECT * FROM <table, view or subquery>`; everything above L*
 * stays in the top pipe, whose tree is a copy of the path down to L* with L* replaced by its
 * post-query: L*'s select list (and HAVING) rewritten over the root operator's output, which is
 * an internal table (connector "$stateful") carrying the root's changelog mode and unique key.
 * Column references are resolved per level against a scope (qualifier, name -> field) and
 * rewritten to the unique field names of the operator rows, as Flink names them ("id", "id0").
 */
#include "cdc_graph.h"
#include "cdc_plan_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the internal table over an operator's output ------------------------------------------ */

typedef struct graph_source {
    cdc_source_t base;
    cdc_changelog_mode_t mode;
} graph_source_t;

static cdc_changelog_mode_t gs_mode(cdc_source_t *s)
{
    return ((graph_source_t *)s)->mode;
}

static int gs_open(cdc_source_t *s, int split, int nsplits, cdc_reader_t **out, cdc_error_t **err)
{
    (void)s, (void)split, (void)nsplits, (void)out;
    *err = cdc_error_new(CDC_ERR_INTERNAL, "the output of stateful operators is not a table that "
                                           "can be read on its own");
    return -1;
}

static void gs_destroy(cdc_source_t *s)
{
    free(s);
}

static const cdc_source_ops_t gs_ops = {
    .changelog_mode = gs_mode, .open_reader = gs_open, .destroy = gs_destroy};

static const cdc_option_def_t gs_options[] = {
    {.key = "changelog-mode",
     .type = CDC_OPT_STRING,
     .default_value = "I",
     .description = "Change kinds the operator emits (I, UB, UA, D)."},
    {0}};

static int gs_source_new(const cdc_table_ctx_t *ctx, cdc_source_t **out, cdc_error_t **err)
{
    (void)err;
    graph_source_t *g = cdc_xcalloc(1, sizeof(*g));
    g->base.ops = &gs_ops;
    g->base.produced = ctx->schema;
    const char *m = cdc_config_str(ctx->cfg, "changelog-mode");
    static const char *const kinds[] = {"I", "UB", "UA", "D"};
    for (const char *p = m; p && *p;) {
        if (*p == '[' || *p == ']' || *p == ' ') {
            p++;
            continue;
        }
        size_t n = strcspn(p, ",]");
        for (int k = 0; k < 4; k++)
            if (strlen(kinds[k]) == n && strncmp(p, kinds[k], n) == 0)
                g->mode |= CDC_MODE_BIT(k);
        p += n;
        if (*p == ',')
            p++;
    }
    *out = &g->base;
    return 0;
}

static const cdc_connector_factory_t graph_connector = {
    .identifier = "$stateful",
    .description = "the output of a query's stateful operators (internal)",
    .options = gs_options,
    .source_new = gs_source_new,
};

/* ---- planner state --------------------------------------------------------------------------- */

/* Where a level's text lives (errors put their caret there). */
typedef struct where_s {
    const char *text;
    size_t len;
    const char *filename;
} where_t;

/* One column a level's expressions may name: qualifier.name -> field of the input row. */
typedef struct scope_col {
    const char *qual; /* NULL when the relation has no name */
    const char *name;
    int field;
} scope_col_t;

typedef struct scope {
    scope_col_t *cols;
    int n, cap;
    const cdc_type_t *type; /* the input row; fields named uniquely */
} scope_t;

/* A relation: an operator's output, or a leaf pipe's rows. */
typedef struct rel {
    int op;   /* index into g->ops, or -1 */
    int leaf; /* when op < 0 */
    const cdc_type_t *type;
    int *ukey; /* owned */
    int nukey;
    cdc_changelog_mode_t mode;
} rel_t;

/* A Top-N filter the level above a ROW_NUMBER() level holds: name <= limit. */
typedef struct rank_filter {
    const char *name;
    int64_t limit;
} rank_filter_t;

typedef struct sp {
    const cdc_plan_env_t *penv;
    const cdc_sql_insert_t *ins;
    cdc_error_t **err;
    cdc_graph_t *g;
    int opcap, leafcap;
    /* WITH queries visible at the level being planned, innermost last */
    const cdc_sql_cte_t **ctes;
    int nctes, ctecap;
    /* things to free when planning ends */
    cdc_sql_query_t **queries;
    int nqueries, qcap;
    cdc_sql_expr_t **exprs;
    int nexprs, ecap;
    cdc_sql_query_t **shallow; /* copies that share their parts with the parsed tree */
    int nshallow, shcap;
    char *out_name;       /* the internal table's name */
    char *view_names[32]; /* "view c.d.v", the file names of views' texts */
    int nview_names;
} sp_t;

static void keep_query(sp_t *sp, cdc_sql_query_t *q)
{
    if (sp->nqueries == sp->qcap) {
        sp->qcap = sp->qcap ? sp->qcap * 2 : 8;
        sp->queries = cdc_xrealloc(sp->queries, sizeof(*sp->queries) * (size_t)sp->qcap);
    }
    sp->queries[sp->nqueries++] = q;
}

static cdc_sql_expr_t *keep_expr(sp_t *sp, cdc_sql_expr_t *e)
{
    if (sp->nexprs == sp->ecap) {
        sp->ecap = sp->ecap ? sp->ecap * 2 : 16;
        sp->exprs = cdc_xrealloc(sp->exprs, sizeof(*sp->exprs) * (size_t)sp->ecap);
    }
    sp->exprs[sp->nexprs++] = e;
    return e;
}

/* A copy of @p q sharing its parts (the copy alone is freed when planning ends). */
static cdc_sql_query_t *shallow_copy(sp_t *sp, const cdc_sql_query_t *q)
{
    cdc_sql_query_t *c = cdc_xmalloc(sizeof(*c));
    *c = *q;
    if (sp->nshallow == sp->shcap) {
        sp->shcap = sp->shcap ? sp->shcap * 2 : 4;
        sp->shallow = cdc_xrealloc(sp->shallow, sizeof(*sp->shallow) * (size_t)sp->shcap);
    }
    sp->shallow[sp->nshallow++] = c;
    return c;
}

/* A shallow query the planner made: its arrays are freed, the expressions are kept elsewhere. */
static cdc_sql_query_t *new_query(sp_t *sp, int line, int col)
{
    cdc_sql_query_t *q = cdc_xcalloc(1, sizeof(*q));
    q->line = line;
    q->col = col;
    keep_query(sp, q);
    return q;
}

static void free_queries(sp_t *sp)
{
    for (int i = 0; i < sp->nqueries; i++) {
        cdc_sql_query_t *q = sp->queries[i];
        for (size_t k = 0; k < q->nitems; k++)
            free(q->items[k].alias);
        free(q->items);
        free(q->from.alias);
        for (int k = 0; k < q->from.name.nparts; k++)
            free(q->from.name.parts[k]);
        free(q->ctes);
        free(q->group_by);
        if (q->from.tvf) { /* a group window's (group_window_query) */
            free(q->from.tvf->timecol.name);
            free(q->from.tvf);
        }
        free(q);
    }
    free(sp->queries);
    for (int i = 0; i < sp->nshallow; i++)
        free(sp->shallow[i]);
    free(sp->shallow);
    for (int i = 0; i < sp->nexprs; i++)
        cdc_sql_expr_destroy(sp->exprs[i]);
    free(sp->exprs);
    free(sp->ctes);
    for (int i = 0; i < sp->nview_names; i++)
        free(sp->view_names[i]);
}

static int fail_at(sp_t *sp, const where_t *w, int line, int col, const char *fmt, ...)
    CDC_PRINTF(5, 6);

static int fail_at(sp_t *sp, const where_t *w, int line, int col, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    *sp->err = cdc_sql_error_at(CDC_ERR_SQL, w->text, w->len, w->filename, line, col, "%s", msg);
    return -1;
}

static int add_op(sp_t *sp, cdc_op_t *op)
{
    cdc_graph_t *g = sp->g;
    if (g->nops == sp->opcap) {
        sp->opcap = sp->opcap ? sp->opcap * 2 : 8;
        g->ops = cdc_xrealloc(g->ops, sizeof(*g->ops) * (size_t)sp->opcap);
    }
    op->id = g->nops + 1;
    g->ops[g->nops] = op;
    return g->nops++;
}

/* Makes @p child's rows go into port @p port of operator @p op. */
static void connect(sp_t *sp, const rel_t *child, int op, int port)
{
    cdc_graph_t *g = sp->g;
    g->ops[op]->in_mode[port] = child->mode;
    if (child->op >= 0) {
        g->ops[child->op]->parent = g->ops[op];
        g->ops[child->op]->parent_port = port;
    } else {
        g->leaf_op[child->leaf] = op;
        g->leaf_port[child->leaf] = port;
    }
}

static void scope_add(scope_t *sc, const char *qual, const char *name, int field)
{
    if (sc->n == sc->cap) {
        sc->cap = sc->cap ? sc->cap * 2 : 16;
        sc->cols = cdc_xrealloc(sc->cols, sizeof(*sc->cols) * (size_t)sc->cap);
    }
    sc->cols[sc->n++] = (scope_col_t){.qual = qual, .name = name, .field = field};
}

/* ---- what needs state ------------------------------------------------------------------------ */

static bool is_agg_name(const char *n)
{
    static const char *const names[] = {
        "COUNT",          "SUM",        "AVG",     "MIN",        "MAX",         "SUM0",
        "FIRST_VALUE",    "LAST_VALUE", "LISTAGG", "STDDEV_POP", "STDDEV_SAMP", "VAR_POP",
        "VAR_SAMP",       "COLLECT",    "STDDEV",  "VARIANCE",   "ARRAY_AGG",   "JSON_ARRAYAGG",
        "JSON_OBJECTAGG", NULL};
    for (int i = 0; names[i]; i++)
        if (strcasecmp(n, names[i]) == 0)
            return true;
    return false;
}

typedef struct find_ctx {
    const cdc_sql_expr_t *agg;  /* first aggregate call */
    const cdc_sql_expr_t *over; /* first window call */
} find_ctx_t;

static void find_calls(const cdc_sql_expr_t *e, find_ctx_t *f);

static void find_calls_list(cdc_sql_expr_t *const *es, size_t n, find_ctx_t *f)
{
    for (size_t i = 0; i < n; i++)
        find_calls(es[i], f);
}

static void find_calls(const cdc_sql_expr_t *e, find_ctx_t *f)
{
    if (!e)
        return;
    switch (e->kind) {
    case CDC_SQL_EXPR_UNARY:
        find_calls(e->unary.operand, f);
        break;
    case CDC_SQL_EXPR_BINARY:
        find_calls(e->binary.left, f);
        find_calls(e->binary.right, f);
        break;
    case CDC_SQL_EXPR_CALL:
        if (e->call.over) {
            if (!f->over)
                f->over = e;
        } else if (e->call.name && is_agg_name(e->call.name)) {
            if (!f->agg)
                f->agg = e;
        }
        find_calls_list(e->call.args, e->call.nargs, f);
        break;
    case CDC_SQL_EXPR_CAST:
        find_calls(e->cast.operand, f);
        break;
    case CDC_SQL_EXPR_CASE:
        find_calls(e->case_expr.operand, f);
        for (size_t i = 0; i < e->case_expr.nwhens; i++) {
            find_calls(e->case_expr.whens[i].when, f);
            find_calls(e->case_expr.whens[i].then, f);
        }
        find_calls(e->case_expr.else_expr, f);
        break;
    case CDC_SQL_EXPR_IN:
        find_calls(e->in_list.operand, f);
        find_calls_list(e->in_list.items, e->in_list.nitems, f);
        break;
    case CDC_SQL_EXPR_BETWEEN:
        find_calls(e->between.operand, f);
        find_calls(e->between.low, f);
        find_calls(e->between.high, f);
        break;
    case CDC_SQL_EXPR_LIKE:
        find_calls(e->like.operand, f);
        find_calls(e->like.pattern, f);
        find_calls(e->like.escape, f);
        break;
    case CDC_SQL_EXPR_IS_NULL:
        find_calls(e->is_null.operand, f);
        break;
    case CDC_SQL_EXPR_SUBSCRIPT:
        find_calls(e->subscript.base, f);
        find_calls(e->subscript.index, f);
        break;
    default:
        break;
    }
}

/* The IN or EXISTS node of WHERE's conjunct @p e when it is a subquery predicate (under any
 * NOTs), with *anti when it is negated (NOT IN, NOT EXISTS); else NULL. */
static const cdc_sql_expr_t *subquery_pred(const cdc_sql_expr_t *e, bool *anti)
{
    bool neg = false;
    while (e && e->kind == CDC_SQL_EXPR_UNARY && e->unary.op == CDC_SQL_UNARY_NOT) {
        neg = !neg;
        e = e->unary.operand;
    }
    if (e && e->kind == CDC_SQL_EXPR_IN && e->in_list.subquery) {
        *anti = neg != e->in_list.negated;
        return e;
    }
    if (e && e->kind == CDC_SQL_EXPR_EXISTS) {
        *anti = neg;
        return e;
    }
    return NULL;
}

/* Whether a conjunct of @p where is a subquery predicate. */
static bool has_subquery_pred(const cdc_sql_expr_t *where)
{
    bool anti;
    if (where && where->kind == CDC_SQL_EXPR_BINARY && where->binary.op == CDC_SQL_BINARY_AND)
        return has_subquery_pred(where->binary.left) || has_subquery_pred(where->binary.right);
    return where && subquery_pred(where, &anti);
}

static void level_calls(const cdc_sql_query_t *q, find_ctx_t *f)
{
    for (size_t i = 0; i < q->nitems; i++)
        find_calls(q->items[i].expr, f);
    find_calls(q->having, f);
}

/* Whether this level itself needs state (not looking under its FROM). */
static bool level_needs_state(const cdc_sql_query_t *q)
{
    /* ORDER BY: a Top-N with LIMIT, else a TemporalSort (or Flink's error) */
    if (q->ngroup_by || q->having || q->distinct || q->from.tvf || q->norder_by || q->set_op ||
        has_subquery_pred(q->where))
        return true;
    for (size_t j = 0; j < q->njoins; j++)
        if (!q->joins[j].system_time && !q->joins[j].table.unnest)
            return true;
    find_ctx_t f = {0};
    level_calls(q, &f);
    return f.agg || f.over;
}

/* The query a FROM names when it is a subquery, a WITH query or a view (with its text), else
 * NULL (a table, or nothing). */
static const cdc_sql_query_t *from_query(sp_t *sp, const cdc_sql_table_ref_t *ref, where_t *w,
                                         const cdc_view_def_t **view)
{
    *view = NULL;
    if (ref->subquery)
        return ref->subquery;
    if (ref->name.nparts == 0)
        return NULL;
    if (ref->name.nparts == 1) {
        for (int i = sp->nctes - 1; i >= 0; i--)
            if (strcmp(sp->ctes[i]->name.name, ref->name.parts[0]) == 0)
                return sp->ctes[i]->query;
    }
    cdc_error_t *ignored = NULL;
    const cdc_table_def_t *t = NULL;
    const cdc_view_def_t *v = NULL;
    if (cdc_catalog_find(sp->penv->cat, &ref->name, &t, &v, &ignored) <= 0 || !v) {
        cdc_error_destroy(ignored);
        return NULL;
    }
    *view = v;
    w->text = v->query;
    w->len = strlen(v->query);
    w->filename = NULL;
    if (sp->nview_names < 32) {
        w->filename = sp->view_names[sp->nview_names++] =
            cdc_strdup_printf("view %s", v->qualified);
    }
    return v->query_ast;
}

static void push_ctes(sp_t *sp, const cdc_sql_query_t *q)
{
    for (size_t i = 0; i < q->nctes; i++) {
        if (sp->nctes == sp->ctecap) {
            sp->ctecap = sp->ctecap ? sp->ctecap * 2 : 8;
            sp->ctes = cdc_xrealloc(sp->ctes, sizeof(*sp->ctes) * (size_t)sp->ctecap);
        }
        sp->ctes[sp->nctes++] = &q->ctes[i];
    }
}

/* Whether a query (its levels down to the tables) needs state anywhere. */
static bool needs_state_deep(sp_t *sp, const cdc_sql_query_t *q, int depth)
{
    if (!q || depth > 32)
        return false;
    for (const cdc_sql_query_t *b = q; b; b = b->union_all) {
        if (level_needs_state(b))
            return true;
        int saved = sp->nctes;
        push_ctes(sp, q);
        where_t w = {0};
        const cdc_view_def_t *v;
        const cdc_sql_query_t *sub = from_query(sp, &b->from, &w, &v);
        bool r = sub && needs_state_deep(sp, sub, depth + 1);
        sp->nctes = saved;
        if (r)
            return true;
    }
    return false;
}

bool cdc_plan_needs_state(const cdc_plan_env_t *penv, const cdc_sql_insert_t *ins)
{
    sp_t sp = {.penv = penv, .ins = ins};
    bool r = ins->query && needs_state_deep(&sp, ins->query, 0);
    free(sp.ctes);
    for (int i = 0; i < sp.nview_names; i++)
        free(sp.view_names[i]);
    return r;
}

/* ---- expressions: references rewritten, aggregate calls and group keys replaced ---------- */

/* Calls fn on *slot, then (when fn returns 0) on every child slot. fn returns 1 to skip the
 * children (it replaced the node), 0 to go on, -1 to stop with an error. */
typedef int (*slot_fn)(cdc_sql_expr_t **slot, void *ctx);

static int walk_slots(cdc_sql_expr_t **slot, slot_fn fn, void *ctx)
{
    if (!*slot)
        return 0;
    int r = fn(slot, ctx);
    if (r != 0)
        return r < 0 ? -1 : 0;
    cdc_sql_expr_t *e = *slot;
    switch (e->kind) {
    case CDC_SQL_EXPR_UNARY:
        return walk_slots(&e->unary.operand, fn, ctx);
    case CDC_SQL_EXPR_BINARY:
        return walk_slots(&e->binary.left, fn, ctx) < 0 ? -1
                                                        : walk_slots(&e->binary.right, fn, ctx);
    case CDC_SQL_EXPR_CALL:
        for (size_t i = 0; i < e->call.nargs; i++)
            if (walk_slots(&e->call.args[i], fn, ctx) < 0)
                return -1;
        if (e->call.over) {
            cdc_sql_over_t *o = e->call.over;
            for (size_t i = 0; i < o->npartition_by; i++)
                if (walk_slots(&o->partition_by[i], fn, ctx) < 0)
                    return -1;
            for (size_t i = 0; i < o->norder_by; i++)
                if (walk_slots(&o->order_by[i].expr, fn, ctx) < 0)
                    return -1;
        }
        return 0;
    case CDC_SQL_EXPR_CAST:
        return walk_slots(&e->cast.operand, fn, ctx);
    case CDC_SQL_EXPR_CASE:
        if (walk_slots(&e->case_expr.operand, fn, ctx) < 0)
            return -1;
        for (size_t i = 0; i < e->case_expr.nwhens; i++)
            if (walk_slots(&e->case_expr.whens[i].when, fn, ctx) < 0 ||
                walk_slots(&e->case_expr.whens[i].then, fn, ctx) < 0)
                return -1;
        return walk_slots(&e->case_expr.else_expr, fn, ctx);
    case CDC_SQL_EXPR_IN:
        if (walk_slots(&e->in_list.operand, fn, ctx) < 0)
            return -1;
        for (size_t i = 0; i < e->in_list.nitems; i++)
            if (walk_slots(&e->in_list.items[i], fn, ctx) < 0)
                return -1;
        return 0;
    case CDC_SQL_EXPR_BETWEEN:
        return (walk_slots(&e->between.operand, fn, ctx) < 0 ||
                walk_slots(&e->between.low, fn, ctx) < 0 ||
                walk_slots(&e->between.high, fn, ctx) < 0)
                   ? -1
                   : 0;
    case CDC_SQL_EXPR_LIKE:
        return (walk_slots(&e->like.operand, fn, ctx) < 0 ||
                walk_slots(&e->like.pattern, fn, ctx) < 0 ||
                walk_slots(&e->like.escape, fn, ctx) < 0)
                   ? -1
                   : 0;
    case CDC_SQL_EXPR_IS_NULL:
        return walk_slots(&e->is_null.operand, fn, ctx);
    case CDC_SQL_EXPR_SUBSCRIPT:
        return (walk_slots(&e->subscript.base, fn, ctx) < 0 ||
                walk_slots(&e->subscript.index, fn, ctx) < 0)
                   ? -1
                   : 0;
    default:
        return 0;
    }
}

/* A column reference to field @p name, at line:col. */
static cdc_sql_expr_t *col_ref(const char *name, int line, int col)
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

typedef struct refs_ctx {
    sp_t *sp;
    const where_t *w;
    const scope_t *sc;
} refs_ctx_t;

/* Resolves a reference against the scope: the field and how many parts named it; -1 with
 * the error. */
static int resolve_ref(refs_ctx_t *rc, const cdc_sql_expr_t *e, int *field, size_t *used)
{
    const scope_t *sc = rc->sc;
    char *const *parts = e->column.parts;
    if (e->column.nparts >= 2) {
        bool qual_known = false;
        for (int i = 0; i < sc->n; i++) {
            if (!sc->cols[i].qual || strcmp(sc->cols[i].qual, parts[0]) != 0)
                continue;
            qual_known = true;
            if (strcmp(sc->cols[i].name, parts[1]) == 0) {
                *field = sc->cols[i].field;
                *used = 2;
                return 0;
            }
        }
        if (qual_known) {
            bool shadow = false; /* a column of that name (a ROW) wins over the qualifier */
            for (int i = 0; i < sc->n; i++)
                shadow = shadow || strcmp(sc->cols[i].name, parts[0]) == 0;
            if (!shadow)
                return fail_at(rc->sp, rc->w, e->line, e->col,
                               "Column '%s' not found in table '%s'", parts[1], parts[0]);
        }
    }
    int found = -1;
    for (int i = 0; i < sc->n; i++) {
        if (strcmp(sc->cols[i].name, parts[0]) != 0)
            continue;
        if (found >= 0 && found != sc->cols[i].field)
            return fail_at(rc->sp, rc->w, e->line, e->col,
                           "Column '%s' is ambiguous; qualify it with its table's name or alias",
                           parts[0]);
        found = sc->cols[i].field;
    }
    if (found < 0)
        return fail_at(rc->sp, rc->w, e->line, e->col, "Column '%s' not found in any table",
                       parts[0]);
    *field = found;
    *used = 1;
    return 0;
}

/* Column reference @p e, whose first @p used parts named a field, as field @p name (then the
 * rest of its parts: a ROW's fields). */
static void rename_ref(cdc_sql_expr_t *e, size_t used, const char *name)
{
    size_t rest = e->column.nparts - used;
    char **parts = cdc_xcalloc(rest + 1, sizeof(char *));
    parts[0] = cdc_xstrdup(name);
    for (size_t k = 0; k < rest; k++)
        parts[1 + k] = cdc_xstrdup(e->column.parts[used + k]);
    for (size_t k = 0; k < e->column.nparts; k++)
        free(e->column.parts[k]);
    free(e->column.parts);
    e->column.parts = parts;
    e->column.nparts = rest + 1;
}

static int refs_fn(cdc_sql_expr_t **slot, void *ctx)
{
    refs_ctx_t *rc = ctx;
    cdc_sql_expr_t *e = *slot;
    if (e->kind != CDC_SQL_EXPR_COLUMN)
        return 0;
    int field = -1;
    size_t used = 1;
    if (resolve_ref(rc, e, &field, &used) < 0)
        return -1;
    rename_ref(e, used, rc->sc->type->names[field]);
    return 1;
}

/* A copy of @p e (kept until planning ends) whose references name the scope's fields. */
static cdc_sql_expr_t *rewrite(sp_t *sp, const where_t *w, const scope_t *sc,
                               const cdc_sql_expr_t *e)
{
    if (!e)
        return NULL;
    cdc_sql_expr_t *c = keep_expr(sp, cdc_sql_expr_clone(e));
    refs_ctx_t rc = {.sp = sp, .w = w, .sc = sc};
    cdc_sql_expr_t *root = c;
    if (walk_slots(&root, refs_fn, &rc) < 0)
        return NULL;
    return root;
}

/* The select list with `*` and `t.*` expanded to the scope's columns, rewritten. Items
 * (expressions kept; aliases owned by the caller's query) into q. */
static int expand_items(sp_t *sp, const where_t *w, const scope_t *sc, const cdc_sql_query_t *src,
                        cdc_sql_query_t *q)
{
    size_t cap = src->nitems + (size_t)sc->n;
    q->items = cdc_xcalloc(cap, sizeof(*q->items));
    for (size_t i = 0; i < src->nitems; i++) {
        const cdc_sql_select_item_t *it = &src->items[i];
        if (it->expr->kind == CDC_SQL_EXPR_STAR) {
            const cdc_sql_name_t *qn = &it->expr->star.qualifier;
            bool any = false;
            bool *seen = cdc_xcalloc((size_t)sc->type->nchildren, sizeof(bool));
            for (int c = 0; c < sc->n; c++) {
                if (qn->nparts &&
                    (!sc->cols[c].qual || strcmp(sc->cols[c].qual, qn->parts[qn->nparts - 1]) != 0))
                    continue;
                if (seen[sc->cols[c].field])
                    continue;
                seen[sc->cols[c].field] = true;
                any = true;
                if (q->nitems == cap) {
                    cap *= 2;
                    q->items = cdc_xrealloc(q->items, sizeof(*q->items) * cap);
                }
                q->items[q->nitems++] = (cdc_sql_select_item_t){
                    .expr = keep_expr(sp, col_ref(sc->type->names[sc->cols[c].field],
                                                  it->expr->line, it->expr->col)),
                    .alias = cdc_xstrdup(sc->cols[c].name)};
            }
            free(seen);
            if (!any)
                return fail_at(sp, w, it->expr->line, it->expr->col, "Unknown table '%s' in *",
                               qn->nparts ? qn->parts[qn->nparts - 1] : "");
            continue;
        }
        cdc_sql_expr_t *e = rewrite(sp, w, sc, it->expr);
        if (!e)
            return -1;
        char *alias = it->alias ? cdc_xstrdup(it->alias) : NULL;
        if (!alias && it->expr->kind == CDC_SQL_EXPR_COLUMN)
            alias = cdc_xstrdup(it->expr->column.parts[it->expr->column.nparts - 1]);
        if (!alias)
            alias = cdc_strdup_printf("EXPR$%zu", q->nitems);
        q->items[q->nitems++] = (cdc_sql_select_item_t){.expr = e, .alias = alias};
    }
    return 0;
}

/* ---- relations ------------------------------------------------------------------------------- */

static void rel_free(rel_t *r)
{
    free(r->ukey);
    r->ukey = NULL;
    r->nukey = 0;
}

static int *ints_dup(const int *a, int n)
{
    if (n <= 0)
        return NULL;
    int *c = cdc_xcalloc((size_t)n, sizeof(int));
    memcpy(c, a, sizeof(int) * (size_t)n);
    return c;
}

static void rel_of_op(sp_t *sp, int op, rel_t *r)
{
    cdc_op_t *o = sp->g->ops[op];
    *r = (rel_t){.op = op,
                 .leaf = -1,
                 .type = o->out_type,
                 .ukey = ints_dup(o->ukey, o->nukey),
                 .nukey = o->nukey,
                 .mode = o->mode};
}

/* The visible WITH queries as a query's own list (innermost first, so they shadow). */
static void give_ctes(sp_t *sp, cdc_sql_query_t *q)
{
    if (!sp->nctes)
        return;
    q->ctes = cdc_xcalloc((size_t)sp->nctes, sizeof(*q->ctes));
    for (int i = sp->nctes - 1; i >= 0; i--)
        q->ctes[q->nctes++] = *sp->ctes[i];
}

/* cdc_plan_common_row at line:col of @p w's text. */
static int common_row(sp_t *sp, const where_t *w, int line, int col, const cdc_type_t *const *types,
                      int n, const char *what, const char *part, cdc_type_t **out)
{
    cdc_plan_env_t env = *sp->penv;
    env.text = w->text;
    env.len = w->len;
    env.filename = w->filename;
    return cdc_plan_common_row(&env, line, col, types, n, what, part, out, sp->err);
}

static void rel_of_op(sp_t *sp, int op, rel_t *r);

/* A Union operator (UNION ALL) over the @p n relations in[0..n): the leaves in[0].leaf.. when
 * in[0] is a leaf (consecutive), else the operators in[i].op. */
static int make_union(sp_t *sp, const rel_t *in, int n, rel_t *out)
{
    cdc_op_t *op = cdc_xcalloc(1, sizeof(*op));
    int idx = add_op(sp, op);
    op->kind = CDC_OP_UNION;
    op->in_type[0] = (cdc_type_t *)in[0].type;
    op->out_type = cdc_type_copy(in[0].type);
    cdc_changelog_mode_t mode = 0;
    for (int i = 0; i < n; i++) {
        rel_t r =
            in[0].op < 0 ? (rel_t){.op = -1, .leaf = in[0].leaf + i, .mode = in[0].mode} : in[i];
        mode |= r.mode;
        connect(sp, &r, idx, 0);
    }
    op->in_mode[0] = mode;
    op->mode = mode;
    cdc_buf_t sel = {0};
    for (int f = 0; f < op->out_type->nchildren; f++)
        cdc_buf_printf(&sel, "%s%s", f ? ", " : "", op->out_type->names[f]);
    char mb[16];
    op->explain = cdc_strdup_printf("Union(all=[true], union=[%s], changelogMode=%s)",
                                    cdc_buf_cstr(&sel), cdc_changelog_mode_str(mode, mb));
    cdc_buf_free(&sel);
    rel_of_op(sp, idx, out);
    return 0;
}

/* A leaf: the bare query SELECT * FROM ref, planned as any pipe. */
static int plan_leaf(sp_t *sp, const cdc_sql_table_ref_t *ref, const where_t *w, rel_t *out)
{
    cdc_graph_t *g = sp->g;
    cdc_sql_query_t *q = new_query(sp, ref->name.line, ref->name.col);
    q->items = cdc_xcalloc(1, sizeof(*q->items));
    cdc_sql_expr_t *star = cdc_xcalloc(1, sizeof(*star));
    star->kind = CDC_SQL_EXPR_STAR;
    star->line = ref->name.line;
    star->col = ref->name.col;
    q->items[0].expr = keep_expr(sp, star);
    q->nitems = 1;
    q->from = *ref; /* borrowed: forgotten before the query is freed */
    q->from.tvf = NULL;
    q->from.alias = ref->alias ? cdc_xstrdup(ref->alias) : NULL;
    for (int k = 0; k < ref->name.nparts; k++)
        q->from.name.parts[k] = cdc_xstrdup(ref->name.parts[k]);
    give_ctes(sp, q);
    cdc_sql_insert_t ins = {0};
    ins.query = q;
    cdc_plan_env_t penv = *sp->penv;
    penv.result_types = NULL;
    penv.text = w->text;
    penv.len = w->len;
    penv.filename = w->filename;
    /* a UNION ALL on the way to the tables: a pipe per branch, into a Union operator, planned
       again with the union's types when the branches' differ */
    cdc_pipe_t *pipes[64];
    int np = 0;
    cdc_type_t *common = NULL;
    for (int pass = 0; pass < 2; pass++) {
        cdc_plan_branch_t br = {0};
        do {
            if (np == 64) {
                fail_at(sp, w, ref->name.line, ref->name.col,
                        "more than 64 branches of UNION ALL under a stateful operator");
                goto fail;
            }
            if (cdc_plan_insert_branch(&penv, &ins, &br, &pipes[np], sp->err) < 0)
                goto fail;
            np++;
        } while (cdc_plan_branch_next(&br));
        if (pass || np == 1)
            break;
        const cdc_type_t *types[64];
        for (int i = 0; i < np; i++)
            types[i] = pipes[i]->sink_schema;
        if (common_row(sp, w, ref->name.line, ref->name.col, types, np, "UNION ALL", "branch",
                       &common) < 0)
            goto fail;
        if (!common)
            break;
        while (np > 0)
            cdc_pipe_destroy(pipes[--np]);
        penv.result_types = common;
    }
    cdc_type_destroy(common);
    common = NULL;
    for (int i = 0; i < np; i++) {
        if (g->nleaves == sp->leafcap) {
            sp->leafcap = sp->leafcap ? sp->leafcap * 2 : 4;
            g->leaves = cdc_xrealloc(g->leaves, sizeof(*g->leaves) * (size_t)sp->leafcap);
            g->leaf_op = cdc_xrealloc(g->leaf_op, sizeof(int) * (size_t)sp->leafcap);
            g->leaf_port = cdc_xrealloc(g->leaf_port, sizeof(int) * (size_t)sp->leafcap);
            g->leaf_wm = cdc_xrealloc(g->leaf_wm, sizeof(*g->leaf_wm) * (size_t)sp->leafcap);
        }
        g->leaf_wm[g->nleaves] = NULL;
        g->leaves[g->nleaves] = pipes[i];
        g->leaf_op[g->nleaves] = -1;
        g->leaf_port[g->nleaves] = 0;
        *out = (rel_t){
            .op = -1, .leaf = g->nleaves++, .type = pipes[i]->sink_schema, .mode = pipes[i]->mode};
    }
    if (np > 1) {
        int first = g->nleaves - np;
        cdc_changelog_mode_t mode = 0;
        for (int i = 0; i < np; i++)
            mode |= pipes[i]->mode;
        *out = (rel_t){.op = -1, .leaf = first, .type = pipes[0]->sink_schema, .mode = mode};
        return make_union(sp, out, np, out);
    }
    /* a table's primary key is a unique key of its rows (`*` keeps every column in order) */
    const cdc_table_def_t *def = NULL;
    const cdc_view_def_t *view = NULL;
    cdc_error_t *ignored = NULL;
    if (!ref->subquery && ref->name.nparts &&
        cdc_catalog_find(sp->penv->cat, &ref->name, &def, &view, &ignored) > 0 && def &&
        def->npk > 0) {
        out->ukey = cdc_xcalloc((size_t)def->npk, sizeof(int));
        for (int k = 0; k < def->npk; k++)
            for (int c = 0; c < def->ncolumns; c++)
                if (def->columns[c].kind == CDC_COLUMN_PHYSICAL &&
                    def->columns[c].physical == def->pk[k])
                    out->ukey[k] = c;
        out->nukey = def->npk;
    }
    cdc_error_destroy(ignored);
    return 0;
fail:
    cdc_type_destroy(common);
    while (np > 0)
        cdc_pipe_destroy(pipes[--np]);
    return -1;
}

/* A processing-time attribute: field f of a leaf whose pipe selects a PROCTIME() column there. */
static bool leaf_proctime(sp_t *sp, const rel_t *r, int f)
{
    if (r->op >= 0)
        return false;
    const cdc_pipe_t *p = sp->g->leaves[r->leaf];
    if (!p->col_proctime ||
        f >= (p->nstages ? p->stages[p->nstages - 1].nitems : p->table_type->nchildren))
        return false; /* no stages: the table's columns as they are */
    int c = f;
    for (int s = p->nstages - 1; s >= 0 && c >= 0; s--)
        c = cdc_expr_column_index(p->stages[s].items[c]);
    return c >= 0 && c < p->table_type->nchildren && p->col_proctime[c];
}

/* `c AS c` is just `c` in a query the planner made (EXPLAIN prints it so). */
static void strip_same_aliases(cdc_sql_query_t *q)
{
    for (size_t i = 0; i < q->nitems; i++) {
        const cdc_sql_expr_t *e = q->items[i].expr;
        if (q->items[i].alias && e->kind == CDC_SQL_EXPR_COLUMN && e->column.nparts == 1 &&
            strcmp(e->column.parts[0], q->items[i].alias) == 0) {
            free(q->items[i].alias);
            q->items[i].alias = NULL;
        }
    }
}

/* A Calc operator: @p q (its items and WHERE over @p in) compiled. */
static int make_calc(sp_t *sp, const where_t *w, const rel_t *in, cdc_sql_query_t *q, rel_t *out,
                     const char *name)
{
    cdc_op_t *op = cdc_xcalloc(1, sizeof(*op));
    int idx = add_op(sp, op);
    op->kind = CDC_OP_CALC;
    op->in_type[0] = (cdc_type_t *)in->type;
    strip_same_aliases(q);
    cdc_plan_level_t lv = {.q = q, .text = w->text, .len = w->len, .filename = w->filename};
    if (cdc_plan_compile_stage(sp->penv, &lv, in->type, NULL, &op->stage, sp->err) < 0)
        return -1;
    op->out_type = cdc_type_copy(op->stage.out_type);
    op->mode = in->mode;
    op->explain = cdc_strdup_printf("%s(%s)", name, op->stage.explain);
    /* the input's unique key survives when each of its fields is selected as it is */
    if (in->nukey > 0) {
        int *k = cdc_xcalloc((size_t)in->nukey, sizeof(int));
        bool all = true;
        for (int u = 0; u < in->nukey && all; u++) {
            k[u] = -1;
            for (int i = 0; i < op->stage.nitems && k[u] < 0; i++)
                if (cdc_expr_column_index(op->stage.items[i]) == in->ukey[u])
                    k[u] = i;
            all = k[u] >= 0;
        }
        if (all && !q->where) {
            op->ukey = k;
            op->nukey = in->nukey;
        } else if (all) {
            op->ukey = k; /* a filter keeps keys unique */
            op->nukey = in->nukey;
        } else {
            free(k);
        }
    }
    connect(sp, in, idx, 0);
    rel_of_op(sp, idx, out);
    return 0;
}

static int plan_level(sp_t *sp, const cdc_sql_query_t *q, const where_t *w, const rank_filter_t *rf,
                      int nrf, rel_t *out, cdc_sql_query_t **post);

/* The Top-N filters a level's WHERE holds on names (rn <= N, rn < N, rn = 1, rn BETWEEN 1 AND N).
 */
static int rank_filters(const cdc_sql_expr_t *e, rank_filter_t *rf, int nrf, int cap)
{
    if (!e || nrf >= cap)
        return nrf;
    if (e->kind == CDC_SQL_EXPR_BINARY && e->binary.op == CDC_SQL_BINARY_AND) {
        nrf = rank_filters(e->binary.left, rf, nrf, cap);
        return rank_filters(e->binary.right, rf, nrf, cap);
    }
    const cdc_sql_expr_t *c = NULL, *lit = NULL;
    int64_t adj = 0;
    if (e->kind == CDC_SQL_EXPR_BINARY) {
        /* rn op N, or N op rn read as rn op' N */
        const cdc_sql_expr_t *l = e->binary.left, *r = e->binary.right;
        cdc_sql_binary_op_t op = e->binary.op;
        if (l->kind == CDC_SQL_EXPR_LITERAL && r->kind == CDC_SQL_EXPR_COLUMN) {
            const cdc_sql_expr_t *t = l;
            l = r;
            r = t;
            op = op == CDC_SQL_BINARY_GE   ? CDC_SQL_BINARY_LE
                 : op == CDC_SQL_BINARY_GT ? CDC_SQL_BINARY_LT
                 : op == CDC_SQL_BINARY_EQ ? CDC_SQL_BINARY_EQ
                                           : CDC_SQL_BINARY_NE;
        }
        if (l->kind == CDC_SQL_EXPR_COLUMN && r->kind == CDC_SQL_EXPR_LITERAL &&
            (op == CDC_SQL_BINARY_LE || op == CDC_SQL_BINARY_EQ || op == CDC_SQL_BINARY_LT)) {
            c = l;
            lit = r;
            adj = op == CDC_SQL_BINARY_LT ? -1 : 0;
        }
        if (c && e->binary.op == CDC_SQL_BINARY_EQ &&
            !(lit->literal.kind == CDC_SQL_LIT_INTEGER && strcmp(lit->literal.text, "1") == 0))
            c = NULL;
    } else if (e->kind == CDC_SQL_EXPR_BETWEEN && !e->between.negated &&
               e->between.operand->kind == CDC_SQL_EXPR_COLUMN &&
               e->between.high->kind == CDC_SQL_EXPR_LITERAL &&
               e->between.low->kind == CDC_SQL_EXPR_LITERAL &&
               strcmp(e->between.low->literal.text, "1") == 0) {
        c = e->between.operand;
        lit = e->between.high;
    }
    if (!c || lit->literal.kind != CDC_SQL_LIT_INTEGER)
        return nrf;
    rf[nrf].name = c->column.parts[c->column.nparts - 1];
    rf[nrf].limit = strtoll(lit->literal.text, NULL, 10) + adj;
    return nrf + 1;
}

/* The relation a FROM (or a join's table) reads, and the name its columns go by. */
static int plan_input(sp_t *sp, const cdc_sql_table_ref_t *ref, const where_t *w,
                      const cdc_sql_expr_t *outer_where, rel_t *out, const char **qual)
{
    *qual =
        ref->alias ? ref->alias : (ref->name.nparts ? ref->name.parts[ref->name.nparts - 1] : NULL);
    where_t w2 = *w;
    const cdc_view_def_t *view = NULL;
    const cdc_sql_query_t *sub = from_query(sp, ref, &w2, &view);
    int saved = sp->nctes;
    bool deep = sub && needs_state_deep(sp, sub, 0);
    sp->nctes = saved;
    if (!deep)
        return plan_leaf(sp, ref, w, out);
    if (sub->union_all)
        return fail_at(sp, w, ref->name.line, ref->name.col,
                       "UNION ALL together with GROUP BY, joins, DISTINCT or Top-N in one "
                       "query is not supported yet");
    rank_filter_t rf[16];
    int nrf = rank_filters(outer_where, rf, 0, 16);
    rel_t r = {0};
    cdc_sql_query_t *post = NULL;
    if (view)
        sp->nctes = 0; /* a view sees only the catalog */
    int rc = plan_level(sp, sub, &w2, rf, nrf, &r, &post);
    sp->nctes = saved;
    if (rc < 0) {
        rel_free(&r);
        return -1;
    }
    if (view && view->ncolumns > 0) {
        for (int i = 0; i < view->ncolumns && i < (int)post->nitems; i++) {
            free(post->items[i].alias);
            post->items[i].alias = cdc_xstrdup(view->columns[i]);
        }
    }
    rc = make_calc(sp, &w2, &r, post, out, "Calc");
    rel_free(&r);
    return rc;
}

/* ---- joins ----------------------------------------------------------------------------------- */

static const char *join_kind_name(int kind)
{
    switch (kind) {
    case CDC_SQL_JOIN_LEFT:
        return "LeftOuterJoin";
    case CDC_SQL_JOIN_RIGHT:
        return "RightOuterJoin";
    case CDC_SQL_JOIN_FULL:
        return "FullOuterJoin";
    default:
        return "InnerJoin";
    }
}

static int key_family(const cdc_type_t *t)
{
    if (cdc_type_is_integer(t))
        return 1;
    if (t->root == CDC_T_CHAR || t->root == CDC_T_VARCHAR)
        return 2;
    if (t->root == CDC_T_BINARY || t->root == CDC_T_VARBINARY)
        return 3;
    return 0;
}

/* Whether equal values of the two key types give equal key bytes (cdc_row_key_bytes). */
static bool keys_comparable(const cdc_type_t *a, const cdc_type_t *b)
{
    int fa = key_family(a), fb = key_family(b);
    if (fa || fb)
        return fa == fb;
    if (a->root != b->root)
        return false;
    return a->root != CDC_T_DECIMAL || a->scale == b->scale;
}

static void split_and(cdc_sql_expr_t *e, cdc_sql_expr_t **out, int *n, int cap)
{
    if (e && e->kind == CDC_SQL_EXPR_BINARY && e->binary.op == CDC_SQL_BINARY_AND) {
        split_and(e->binary.left, out, n, cap);
        split_and(e->binary.right, out, n, cap);
    } else if (e && *n < cap) {
        out[(*n)++] = e;
    }
}

/* @p a AND @p b (copies, kept until planning ends); @p b alone when @p a is NULL. */
static cdc_sql_expr_t *and_kept(sp_t *sp, const cdc_sql_expr_t *a, cdc_sql_expr_t *b)
{
    if (!a)
        return b;
    cdc_sql_expr_t *and = cdc_xcalloc(1, sizeof(*and));
    and->kind = CDC_SQL_EXPR_BINARY;
    and->binary.op = CDC_SQL_BINARY_AND;
    and->line = b->line;
    and->col = b->col;
    and->binary.left = cdc_sql_expr_clone(a);
    and->binary.right = cdc_sql_expr_clone(b);
    return keep_expr(sp, and);
}

/* The ON clause of a comma join (FROM a, b WHERE ...): the conjuncts of WHERE that the joined
 * scope resolves (the others name tables joined later), ANDed; NULL when none. The level's
 * WHERE still applies after the join (for an inner join, the same rows). */
static cdc_sql_expr_t *comma_on(sp_t *sp, const where_t *w, const scope_t *sc,
                                const cdc_sql_expr_t *where)
{
    cdc_sql_expr_t *all = where ? keep_expr(sp, cdc_sql_expr_clone(where)) : NULL;
    cdc_sql_expr_t *conj[64];
    int n = 0;
    split_and(all, conj, &n, 64);
    cdc_sql_expr_t *on = NULL;
    for (int i = 0; i < n; i++) {
        cdc_sql_expr_t *r = rewrite(sp, w, sc, conj[i]);
        if (!r) { /* names a table not joined yet: for a later join */
            cdc_error_destroy(*sp->err);
            *sp->err = NULL;
            continue;
        }
        on = and_kept(sp, on, r);
    }
    return on;
}

static int compile_leaf_wm(sp_t *sp, const cdc_table_def_t *def, const rel_t *in);

/* A time attribute operand of an interval join's bound: a column of @p out, or one plus or minus
 * an INTERVAL literal (*off, ms). */
static bool time_operand(const cdc_sql_expr_t *e, const cdc_type_t *out, int *field, int64_t *off)
{
    *off = 0;
    if (e->kind == CDC_SQL_EXPR_BINARY &&
        (e->binary.op == CDC_SQL_BINARY_ADD || e->binary.op == CDC_SQL_BINARY_SUB) &&
        cdc_expr_interval_ms(e->binary.right, off) == 0) {
        if (e->binary.op == CDC_SQL_BINARY_SUB)
            *off = -*off;
        e = e->binary.left;
    }
    if (e->kind != CDC_SQL_EXPR_COLUMN || e->column.nparts != 1)
        return false;
    *field = cdc_type_field_index(out, e->column.parts[0]);
    return *field >= 0;
}

/* The bounds of an interval join found so far: left.t - right.t in [lo, hi]. */
typedef struct ibounds {
    int lt, rt; /* the time fields (of the joined row), -1 until found */
    int64_t lo, hi;
    bool has_lo, has_hi;
} ibounds_t;

/* Takes "a OP b" (a and b time operands) into @p ib when it bounds a left time attribute
 * against a right one (fields below @p nl are the left's). false when it is no such bound. */
static bool take_bound(ibounds_t *ib, const cdc_sql_expr_t *a, cdc_sql_binary_op_t op,
                       const cdc_sql_expr_t *b, const cdc_type_t *out, int nl)
{
    int fa, fb;
    int64_t oa, ob;
    if (!time_operand(a, out, &fa, &oa) || !time_operand(b, out, &fb, &ob))
        return false;
    if ((fa < nl) == (fb < nl))
        return false;
    if (fa >= nl) { /* right OP left: flip to left OP' right */
        int tf = fa;
        int64_t to = oa;
        fa = fb, oa = ob, fb = tf, ob = to;
        op = op == CDC_SQL_BINARY_LT   ? CDC_SQL_BINARY_GT
             : op == CDC_SQL_BINARY_LE ? CDC_SQL_BINARY_GE
             : op == CDC_SQL_BINARY_GT ? CDC_SQL_BINARY_LT
             : op == CDC_SQL_BINARY_GE ? CDC_SQL_BINARY_LE
                                       : op;
    }
    if ((ib->lt >= 0 && ib->lt != fa) || (ib->rt >= 0 && ib->rt != fb))
        return false; /* bounds on other time columns: not this interval */
    const cdc_type_t *ta = out->children[fa], *tb = out->children[fb];
    if ((ta->root != CDC_T_TIMESTAMP && ta->root != CDC_T_TIMESTAMP_LTZ) || ta->root != tb->root)
        return false;
    int64_t d = ob - oa; /* left.t OP right.t + d */
    switch (op) {
    case CDC_SQL_BINARY_GE:
    case CDC_SQL_BINARY_GT: {
        int64_t lo = op == CDC_SQL_BINARY_GT ? d + 1 : d;
        ib->lo = ib->has_lo && ib->lo > lo ? ib->lo : lo;
        ib->has_lo = true;
        break;
    }
    case CDC_SQL_BINARY_LE:
    case CDC_SQL_BINARY_LT: {
        int64_t hi = op == CDC_SQL_BINARY_LT ? d - 1 : d;
        ib->hi = ib->has_hi && ib->hi < hi ? ib->hi : hi;
        ib->has_hi = true;
        break;
    }
    default:
        return false;
    }
    ib->lt = fa;
    ib->rt = fb;
    return true;
}

/* Takes conjunct @p e of a join condition into @p ib when it is a time bound (a comparison or a
 * BETWEEN of time attributes of each side). */
static void take_time_bounds(ibounds_t *ib, const cdc_sql_expr_t *e, const cdc_type_t *out, int nl)
{
    if (e->kind == CDC_SQL_EXPR_BINARY)
        take_bound(ib, e->binary.left, e->binary.op, e->binary.right, out, nl);
    else if (e->kind == CDC_SQL_EXPR_BETWEEN && !e->between.negated &&
             take_bound(ib, e->between.operand, CDC_SQL_BINARY_GE, e->between.low, out, nl))
        take_bound(ib, e->between.operand, CDC_SQL_BINARY_LE, e->between.high, out, nl);
}

/* Whether field @p f of join input @p r is an event-time attribute: a leaf's column that its
 * table's WATERMARK is declared for; *def is that table. */
static bool join_rowtime(sp_t *sp, const rel_t *r, int f, const cdc_table_def_t **def)
{
    if (r->op >= 0 || f < 0)
        return false;
    const cdc_pipe_t *p = sp->g->leaves[r->leaf];
    cdc_sql_name_t name = {0};
    char *q = cdc_xstrdup(p->source_name), *save = NULL;
    for (char *part = strtok_r(q, ".", &save); part && name.nparts < 3;
         part = strtok_r(NULL, ".", &save))
        name.parts[name.nparts++] = part;
    const cdc_view_def_t *view = NULL;
    cdc_error_t *ignored = NULL;
    *def = NULL;
    bool ok = name.nparts == 3 &&
              cdc_catalog_find(sp->penv->cat, &name, def, &view, &ignored) > 0 && *def &&
              (*def)->watermark_column && strcmp((*def)->watermark_column, r->type->names[f]) == 0;
    cdc_error_destroy(ignored);
    free(q);
    return ok;
}

/* The join of @p left (scope *sc) with the table of @p j: a Join operator; *sc grows by the right
 * side's columns. */
static int plan_join(sp_t *sp, const where_t *w, const cdc_sql_join_t *j,
                     const cdc_sql_expr_t *where, rel_t *left, scope_t *sc, scope_t *next)
{
    if (j->system_time)
        return fail_at(sp, w, j->line, j->col,
                       "a lookup join (FOR SYSTEM_TIME AS OF) in a query with GROUP BY, regular "
                       "joins, DISTINCT or Top-N is not supported yet");
    if (j->table.unnest) {
        fail_at(sp, w, j->line, j->col,
                "UNNEST in a query with GROUP BY, regular joins, DISTINCT or Top-N is not "
                "supported yet");
        cdc_error_set_hint(*sp->err, "UNNEST in a subquery: FROM (SELECT ... FROM t CROSS JOIN "
                                     "UNNEST(...) AS u (x)) GROUP BY ...");
        return -1;
    }
    rel_t right = {0};
    const char *rqual;
    if (plan_input(sp, &j->table, w, NULL, &right, &rqual) < 0)
        return -1;
    cdc_op_t *op = cdc_xcalloc(1, sizeof(*op));
    int idx = add_op(sp, op);
    op->kind = CDC_OP_JOIN;
    op->join_kind = j->kind;
    op->in_type[0] = (cdc_type_t *)left->type;
    op->in_type[1] = (cdc_type_t *)right.type;
    int nl = left->type->nchildren, nr = right.type->nchildren;
    op->out_type = cdc_type_new_row();
    op->out_type->nullable = false;
    bool lnull = j->kind == CDC_SQL_JOIN_RIGHT || j->kind == CDC_SQL_JOIN_FULL;
    bool rnull = j->kind == CDC_SQL_JOIN_LEFT || j->kind == CDC_SQL_JOIN_FULL;
    for (int f = 0; f < nl; f++) {
        cdc_type_t *t = cdc_type_copy(left->type->children[f]);
        t->nullable = t->nullable || lnull;
        cdc_type_row_add(op->out_type, left->type->names[f], t);
    }
    for (int f = 0; f < nr; f++) {
        char name[256];
        snprintf(name, sizeof(name), "%s", right.type->names[f]);
        for (int k = 0; cdc_type_field_index(op->out_type, name) >= 0; k++)
            snprintf(name, sizeof(name), "%s%d", right.type->names[f], k);
        cdc_type_t *t = cdc_type_copy(right.type->children[f]);
        t->nullable = t->nullable || rnull;
        cdc_type_row_add(op->out_type, name, t);
    }
    /* the joined scope: the left columns as they were, then the right's */
    next->type = op->out_type;
    for (int i = 0; i < sc->n; i++)
        scope_add(next, sc->cols[i].qual, sc->cols[i].name, sc->cols[i].field);
    for (int f = 0; f < nr; f++)
        scope_add(next, rqual, right.type->names[f], nl + f);
    cdc_sql_expr_t *on = j->on ? rewrite(sp, w, next, j->on) : comma_on(sp, w, next, where);
    if (!on) {
        rel_free(&right);
        if (!*sp->err)
            return fail_at(sp, w, j->line, j->col,
                           "the tables joined with \",\" need a condition in WHERE that relates "
                           "them (an equality between a column of each)");
        return -1;
    }
    cdc_sql_expr_t *conj[64];
    int nconj = 0;
    split_and(on, conj, &nconj, 64);
    op->lkeys = cdc_xcalloc((size_t)nconj + 1, sizeof(int));
    op->rkeys = cdc_xcalloc((size_t)nconj + 1, sizeof(int));
    cdc_buf_t eq = {0}, other = {0};
    cdc_sql_expr_t *rest = NULL;
    ibounds_t ib = {.lt = -1, .rt = -1};
    for (int c = 0; c < nconj; c++) {
        cdc_sql_expr_t *e = conj[c];
        take_time_bounds(&ib, e, op->out_type, nl);
        int a = -1, b = -1;
        if (e->kind == CDC_SQL_EXPR_BINARY && e->binary.op == CDC_SQL_BINARY_EQ &&
            e->binary.left->kind == CDC_SQL_EXPR_COLUMN && e->binary.left->column.nparts == 1 &&
            e->binary.right->kind == CDC_SQL_EXPR_COLUMN && e->binary.right->column.nparts == 1) {
            a = cdc_type_field_index(op->out_type, e->binary.left->column.parts[0]);
            b = cdc_type_field_index(op->out_type, e->binary.right->column.parts[0]);
            if (a >= nl && b < nl) {
                int t = a;
                a = b;
                b = t;
            }
        }
        if (a >= 0 && a < nl && b >= nl) {
            if (!keys_comparable(left->type->children[a], right.type->children[b - nl])) {
                char *ta = cdc_type_to_string(left->type->children[a]);
                char *tb = cdc_type_to_string(right.type->children[b - nl]);
                fail_at(sp, w, e->line, e->col,
                        "the join keys %s (%s) and %s (%s) have types that do not compare as "
                        "equal values; CAST one side to the other's type",
                        op->out_type->names[a], ta, op->out_type->names[b], tb);
                free(ta);
                free(tb);
                cdc_buf_free(&eq);
                cdc_buf_free(&other);
                rel_free(&right);
                return -1;
            }
            op->lkeys[op->nkeys] = a;
            op->rkeys[op->nkeys++] = b - nl;
            cdc_buf_printf(&eq, "%s=(%s, %s)", eq.len ? ", " : "", op->out_type->names[a],
                           op->out_type->names[b]);
            continue;
        }
        rest = and_kept(sp, rest, e);
    }
    if (op->nkeys == 0) {
        cdc_buf_free(&eq);
        cdc_buf_free(&other);
        rel_free(&right);
        return fail_at(sp, w, j->line, j->col,
                       "a regular join needs at least one equality between a column of each "
                       "side in its ON clause (a join without one is not supported yet)");
    }
    if (rest) {
        cdc_expr_env_t env = {.row_type = op->out_type,
                              .udf_lookup = cdc_plan_udf_lookup,
                              .udf_ctx = sp->penv->cat,
                              .text = w->text,
                              .len = w->len,
                              .filename = w->filename};
        if (cdc_expr_compile(rest, &env, &op->cond, sp->err) < 0 ||
            cdc_expr_require_boolean(op->cond, rest, &env, "ON", sp->err) < 0) {
            cdc_buf_free(&eq);
            cdc_buf_free(&other);
            rel_free(&right);
            return -1;
        }
        char *t = cdc_sql_expr_to_string(rest);
        cdc_buf_printf(&other, "%s", t);
        free(t);
    }
    /* an interval join: append-only inputs bounded against each other on event time */
    const cdc_table_def_t *ldef = NULL, *rdef = NULL;
    op->interval = ib.has_lo && ib.has_hi && left->mode == CDC_MODE_INSERT_ONLY &&
                   right.mode == CDC_MODE_INSERT_ONLY && join_rowtime(sp, left, ib.lt, &ldef) &&
                   join_rowtime(sp, &right, ib.rt - nl, &rdef);
    if (op->interval) {
        op->ltime = ib.lt;
        op->rtime = ib.rt - nl;
        op->ilo = ib.lo;
        op->ihi = ib.hi;
        if (compile_leaf_wm(sp, ldef, left) < 0 || compile_leaf_wm(sp, rdef, &right) < 0) {
            cdc_buf_free(&eq);
            cdc_buf_free(&other);
            rel_free(&right);
            return -1;
        }
    }
    /* changelog and unique keys: each side with at most one row per join key keeps the other
       side's key unique */
    bool insert_only = left->mode == CDC_MODE_INSERT_ONLY && right.mode == CDC_MODE_INSERT_ONLY &&
                       (j->kind == CDC_SQL_JOIN_INNER || op->interval);
    op->mode =
        insert_only ? CDC_MODE_INSERT_ONLY : (CDC_MODE_BIT(CDC_INSERT) | CDC_MODE_BIT(CDC_DELETE));
    op->side_ukey[0] = ints_dup(left->ukey, left->nukey);
    op->side_nukey[0] = left->nukey;
    op->side_ukey[1] = ints_dup(right.ukey, right.nukey);
    op->side_nukey[1] = right.nukey;
    bool r_one = right.nukey > 0, l_one = left->nukey > 0;
    for (int u = 0; u < right.nukey; u++) {
        bool in = false;
        for (int k = 0; k < op->nkeys; k++)
            in = in || op->rkeys[k] == right.ukey[u];
        r_one = r_one && in;
    }
    for (int u = 0; u < left->nukey; u++) {
        bool in = false;
        for (int k = 0; k < op->nkeys; k++)
            in = in || op->lkeys[k] == left->ukey[u];
        l_one = l_one && in;
    }
    if (r_one && left->nukey > 0 && !lnull) {
        op->ukey = ints_dup(left->ukey, left->nukey);
        op->nukey = left->nukey;
    } else if (l_one && right.nukey > 0 && !rnull) {
        op->nukey = right.nukey;
        op->ukey = cdc_xcalloc((size_t)right.nukey, sizeof(int));
        for (int u = 0; u < right.nukey; u++)
            op->ukey[u] = nl + right.ukey[u];
    } else if (j->kind == CDC_SQL_JOIN_INNER && left->nukey > 0 && right.nukey > 0) {
        op->nukey = left->nukey + right.nukey;
        op->ukey = cdc_xcalloc((size_t)op->nukey, sizeof(int));
        for (int u = 0; u < left->nukey; u++)
            op->ukey[u] = left->ukey[u];
        for (int u = 0; u < right.nukey; u++)
            op->ukey[left->nukey + u] = nl + right.ukey[u];
    }
    char mb[16];
    cdc_buf_t sel = {0};
    for (int f = 0; f < op->out_type->nchildren; f++)
        cdc_buf_printf(&sel, "%s%s", f ? ", " : "", op->out_type->names[f]);
    /* what each side's rows are unique by, as Flink's plans say it */
    const char *spec[2];
    for (int sd = 0; sd < 2; sd++) {
        bool one = sd == 0 ? l_one : r_one;
        int nuk = sd == 0 ? left->nukey : right.nukey;
        spec[sd] = one ? "JoinKeyContainsUniqueKey" : nuk > 0 ? "HasUniqueKey" : "NoUniqueKey";
    }
    /* the condition as Flink prints it: the equalities, ANDed with the rest */
    if (other.len) {
        cdc_buf_t both = {0};
        cdc_buf_printf(&both, "AND(%s, %s)", cdc_buf_cstr(&eq), cdc_buf_cstr(&other));
        cdc_buf_free(&eq);
        eq = both;
        cdc_buf_clear(&other);
    }
    if (op->interval)
        op->explain = cdc_strdup_printf(
            "IntervalJoin(joinType=[%s], windowBounds=[isRowTime=true, leftLowerBound=%lld, "
            "leftUpperBound=%lld, leftTimeIndex=%d, rightTimeIndex=%d], where=[%s]%s, "
            "select=[%s], changelogMode=%s)",
            join_kind_name(j->kind), (long long)op->ilo, (long long)op->ihi, op->ltime, op->rtime,
            cdc_buf_cstr(&eq), cdc_buf_cstr(&other), cdc_buf_cstr(&sel),
            cdc_changelog_mode_str(op->mode, mb));
    else
        op->explain = cdc_strdup_printf(
            "Join(joinType=[%s], where=[%s]%s, select=[%s], leftInputSpec=[%s], "
            "rightInputSpec=[%s], changelogMode=%s)",
            join_kind_name(j->kind), cdc_buf_cstr(&eq), cdc_buf_cstr(&other), cdc_buf_cstr(&sel),
            spec[0], spec[1], cdc_changelog_mode_str(op->mode, mb));
    cdc_buf_free(&sel);
    cdc_buf_free(&eq);
    cdc_buf_free(&other);
    connect(sp, left, idx, 0);
    connect(sp, &right, idx, 1);
    rel_free(&right);
    rel_free(left);
    rel_of_op(sp, idx, left);
    return 0;
}

/* ---- GROUP BY, aggregate calls, DISTINCT ---------------------------------------------------- */

typedef struct agg_ref {
    char *text;                /* the call as SQL, rewritten */
    const cdc_sql_expr_t *arg; /* NULL for COUNT(*) */
    cdc_agg_fn_t fn;
    bool distinct;
} agg_ref_t;

typedef struct agg_ctx {
    sp_t *sp;
    const where_t *w;
    agg_ref_t aggs[64];
    int naggs;
    char *group_text[64];
    const char *group_name[64];
    int ngroups;
    char agg_name[64][256];
    bool over;              /* collect the OVER calls (an OVER aggregation), not the plain ones */
    const cdc_op_t *expand; /* GROUPING SETS: the Expand; NULL for a plain GROUP BY */
    const char *eid_name;   /* the aggregate's field of the set's id */
} agg_ctx_t;

static int collect_agg(cdc_sql_expr_t **slot, void *ctx)
{
    agg_ctx_t *ac = ctx;
    cdc_sql_expr_t *e = *slot;
    if (e->kind != CDC_SQL_EXPR_CALL || !e->call.name || !e->call.over != !ac->over)
        return 0;
    if (ac->over && !is_agg_name(e->call.name))
        return fail_at(ac->sp, ac->w, e->line, e->col,
                       "%s() OVER is not supported yet (COUNT, SUM, AVG, MIN and MAX are; "
                       "ROW_NUMBER() for Top-N, as the only window call of its query)",
                       e->call.name);
    if (!is_agg_name(e->call.name))
        return 0;
    static const struct {
        const char *name;
        cdc_agg_fn_t fn;
    } fns[] = {{"COUNT", CDC_AGG_COUNT}, {"SUM", CDC_AGG_SUM}, {"AVG", CDC_AGG_AVG},
               {"MIN", CDC_AGG_MIN},     {"MAX", CDC_AGG_MAX}, {"SUM0", CDC_AGG_SUM0}};
    cdc_agg_fn_t fn = 0;
    for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
        if (strcasecmp(e->call.name, fns[i].name) == 0)
            fn = fns[i].fn;
    if (!fn)
        return fail_at(ac->sp, ac->w, e->line, e->col,
                       "aggregate function %s is not supported yet (COUNT, SUM, AVG, MIN and "
                       "MAX are)",
                       e->call.name);
    if (e->call.nargs != 1)
        return fail_at(ac->sp, ac->w, e->line, e->col, "%s takes one argument", e->call.name);
    const cdc_sql_expr_t *arg = e->call.args[0];
    if (arg->kind == CDC_SQL_EXPR_STAR) {
        if (fn != CDC_AGG_COUNT || e->call.distinct)
            return fail_at(ac->sp, ac->w, e->line, e->col, "%s(*) is not valid; name a column",
                           e->call.name);
        fn = CDC_AGG_COUNT_STAR;
        arg = NULL;
    }
    find_ctx_t f = {0};
    find_calls(arg, &f);
    if (f.agg || f.over)
        return fail_at(ac->sp, ac->w, (f.agg ? f.agg : f.over)->line, (f.agg ? f.agg : f.over)->col,
                       "an aggregate call cannot contain another aggregate or window call");
    char *text = cdc_sql_expr_to_string(e);
    for (int i = 0; i < ac->naggs; i++)
        if (strcmp(ac->aggs[i].text, text) == 0) {
            free(text);
            return 1;
        }
    if (ac->naggs == 64) {
        free(text);
        return fail_at(ac->sp, ac->w, e->line, e->col, "too many aggregate calls (64 at most)");
    }
    ac->aggs[ac->naggs++] =
        (agg_ref_t){.text = text, .arg = arg, .fn = fn, .distinct = e->call.distinct};
    return 1;
}

/* Turns node @p e, in place, into a reference to field @p name (its operands freed), so trees
 * that hold it keep owning it. */
static void morph_to_ref(cdc_sql_expr_t *e, const char *name)
{
    cdc_sql_expr_t *old = cdc_xcalloc(1, sizeof(*old));
    *old = *e;
    cdc_sql_expr_destroy(old);
    int line = e->line, col = e->col;
    memset(e, 0, sizeof(*e));
    e->kind = CDC_SQL_EXPR_COLUMN;
    e->line = line;
    e->col = col;
    e->column.parts = cdc_xcalloc(1, sizeof(char *));
    e->column.parts[0] = cdc_xstrdup(name);
    e->column.nparts = 1;
}

static cdc_sql_expr_t *int_literal(long long v, int line, int col)
{
    cdc_sql_expr_t *e = cdc_xcalloc(1, sizeof(*e));
    e->kind = CDC_SQL_EXPR_LITERAL;
    e->line = line;
    e->col = col;
    e->literal.kind = CDC_SQL_LIT_INTEGER;
    e->literal.text = cdc_strdup_printf("%lld", v);
    return e;
}

/* GROUPING(k, ...) / GROUPING_ID(k, ...) of the row's grouping set (bit j, from the left, set
 * when the j-th key is not in it), in place: CAST(CASE $e WHEN id THEN bits ... END AS
 * BIGINT), or CAST(0 AS BIGINT) for a plain GROUP BY. */
static int replace_grouping(agg_ctx_t *ac, cdc_sql_expr_t *e)
{
    if (e->call.nargs < 1 || e->call.nargs > 63)
        return fail_at(ac->sp, ac->w, e->line, e->col, "%s takes one to 63 GROUP BY keys",
                       e->call.name);
    int key[63];
    for (size_t j = 0; j < e->call.nargs; j++) {
        char *t = cdc_sql_expr_to_string(e->call.args[j]);
        key[j] = -1;
        for (int g = 0; g < ac->ngroups && key[j] < 0; g++)
            if (strcmp(ac->group_text[g], t) == 0)
                key[j] = g;
        free(t);
        if (key[j] < 0)
            return fail_at(ac->sp, ac->w, e->call.args[j]->line, e->call.args[j]->col,
                           "Argument to %s operator must be a grouped expression", e->call.name);
    }
    cdc_sql_expr_t *body;
    const cdc_op_t *x = ac->expand;
    if (!x) {
        body = int_literal(0, e->line, e->col);
    } else {
        body = cdc_xcalloc(1, sizeof(*body));
        body->kind = CDC_SQL_EXPR_CASE;
        body->line = e->line;
        body->col = e->col;
        body->case_expr.operand = col_ref(ac->eid_name, e->line, e->col);
        body->case_expr.whens = cdc_xcalloc((size_t)x->nsets, sizeof(*body->case_expr.whens));
        for (int s = 0; s < x->nsets; s++) {
            long long v = 0;
            for (size_t j = 0; j < e->call.nargs; j++)
                v = v * 2 + !(x->sets[s] >> key[j] & 1);
            body->case_expr.whens[s].when = int_literal(x->set_ids[s], e->line, e->col);
            body->case_expr.whens[s].then = int_literal(v, e->line, e->col);
        }
        body->case_expr.nwhens = (size_t)x->nsets;
        body->case_expr.else_expr = int_literal(0, e->line, e->col);
    }
    cdc_sql_expr_t *c = cdc_xcalloc(1, sizeof(*c));
    c->kind = CDC_SQL_EXPR_CAST;
    c->line = e->line;
    c->col = e->col;
    c->cast.operand = body;
    c->cast.type.text = cdc_xstrdup("BIGINT");
    c->cast.type.line = e->line;
    c->cast.type.col = e->col;
    /* the call's node becomes the CAST (trees that hold it keep owning it) */
    cdc_sql_expr_t old = *e;
    *e = *c;
    *c = old;
    cdc_sql_expr_destroy(c);
    return 1;
}

static int replace_grouped(cdc_sql_expr_t **slot, void *ctx)
{
    agg_ctx_t *ac = ctx;
    cdc_sql_expr_t *e = *slot;
    if (e->kind == CDC_SQL_EXPR_LITERAL)
        return 1;
    if (e->kind == CDC_SQL_EXPR_CALL && !e->call.over && e->call.name &&
        (strcasecmp(e->call.name, "GROUPING") == 0 || strcasecmp(e->call.name, "GROUPING_ID") == 0))
        return replace_grouping(ac, e);
    char *text = cdc_sql_expr_to_string(e);
    for (int g = 0; g < ac->ngroups; g++) {
        if (strcmp(ac->group_text[g], text) == 0) {
            free(text);
            morph_to_ref(e, ac->group_name[g]);
            return 1;
        }
    }
    if (e->kind == CDC_SQL_EXPR_CALL && !e->call.over && e->call.name &&
        is_agg_name(e->call.name)) {
        for (int a = 0; a < ac->naggs; a++) {
            if (strcmp(ac->aggs[a].text, text) == 0) {
                free(text);
                morph_to_ref(e, ac->agg_name[a]);
                return 1;
            }
        }
    }
    free(text);
    if (e->kind == CDC_SQL_EXPR_COLUMN)
        return fail_at(ac->sp, ac->w, e->line, e->col, "Expression '%s' is not being grouped",
                       e->column.parts[0]);
    return 0;
}

static cdc_type_t *agg_type(cdc_agg_fn_t fn, const cdc_type_t *arg)
{
    cdc_type_t *t;
    switch (fn) {
    case CDC_AGG_COUNT_STAR:
    case CDC_AGG_COUNT:
        t = cdc_type_new(CDC_T_BIGINT);
        t->nullable = false;
        return t;
    case CDC_AGG_MIN:
    case CDC_AGG_MAX:
        if (arg->root == CDC_T_ROW || arg->root == CDC_T_ARRAY || cdc_type_is_map_like(arg))
            return NULL;
        t = cdc_type_copy(arg);
        t->nullable = true;
        return t;
    default:
        if (cdc_type_is_integer(arg) || arg->root == CDC_T_FLOAT || arg->root == CDC_T_DOUBLE) {
            t = cdc_type_copy(arg);
        } else if (arg->root == CDC_T_DECIMAL) {
            int scale = arg->scale;
            if (fn == CDC_AGG_AVG && scale < 6)
                scale = 6;
            t = cdc_type_new_decimal(38, scale);
        } else {
            return NULL;
        }
        t->nullable = fn != CDC_AGG_SUM0;
        return t;
    }
}

static void window_text(const cdc_op_t *op, const char *timecol, cdc_buf_t *b);

/* GROUPING SETS, ROLLUP, CUBE: Flink's Expand over the pre-aggregation Calc @p r (its first
 * @p ng fields the group keys), in place of it. */
static const cdc_op_t *make_expand(sp_t *sp, const cdc_sql_query_t *q, int ng, rel_t *r)
{
    cdc_op_t *op = cdc_xcalloc(1, sizeof(*op));
    int idx = add_op(sp, op);
    op->kind = CDC_OP_EXPAND;
    op->in_type[0] = (cdc_type_t *)r->type;
    op->ngroup = ng;
    op->nsets = (int)q->ngroup_sets;
    op->sets = cdc_xcalloc(q->ngroup_sets, sizeof(uint64_t));
    op->set_ids = cdc_xcalloc(q->ngroup_sets, sizeof(int64_t));
    uint64_t all = ~(uint64_t)0;
    for (int s = 0; s < op->nsets; s++) {
        op->sets[s] = q->group_sets[s];
        all &= op->sets[s];
        for (int g = 0; g < ng; g++)
            if (!(op->sets[s] >> g & 1))
                op->set_ids[s] |= (int64_t)1 << (ng - 1 - g);
    }
    op->out_type = cdc_type_copy(r->type);
    for (int g = 0; g < ng; g++) /* a key some set leaves out is NULL in that set's rows */
        if (!(all >> g & 1))
            op->out_type->children[g]->nullable = true;
    char eid[64] = "$e";
    for (int k = 0; cdc_type_field_index(op->out_type, eid) >= 0; k++)
        snprintf(eid, sizeof(eid), "$e%d", k);
    cdc_type_t *bt = cdc_type_new(CDC_T_BIGINT);
    bt->nullable = false;
    cdc_type_row_add(op->out_type, eid, bt);
    op->mode = r->mode;
    cdc_buf_t b = {0};
    cdc_buf_puts(&b, "Expand(projects=[");
    for (int s = 0; s < op->nsets; s++) {
        cdc_buf_puts(&b, s ? ", {" : "{");
        for (int f = 0; f < r->type->nchildren; f++)
            cdc_buf_printf(&b, "%s%s%s", f ? ", " : "",
                           f < ng && !(op->sets[s] >> f & 1) ? "null AS " : "", r->type->names[f]);
        cdc_buf_printf(&b, "%s%lld AS %s}", r->type->nchildren ? ", " : "",
                       (long long)op->set_ids[s], eid);
    }
    cdc_buf_puts(&b, "])");
    op->explain = cdc_xstrdup(cdc_buf_cstr(&b));
    cdc_buf_free(&b);
    connect(sp, r, idx, 0);
    rel_free(r);
    rel_of_op(sp, idx, r);
    return op;
}

/* The pre-aggregation Calc, the GroupAggregate and the post-query of an aggregating level. */
static int plan_aggregate(sp_t *sp, const where_t *w, const cdc_sql_query_t *q, const scope_t *sc,
                          rel_t *r, cdc_sql_query_t **post)
{
    agg_ctx_t ac = {.sp = sp, .w = w};
    int rc = -1;
    cdc_sql_query_t *pq = new_query(sp, q->line, q->col);
    if (expand_items(sp, w, sc, q, pq) < 0)
        goto out;
    cdc_sql_expr_t *having = q->having ? rewrite(sp, w, sc, q->having) : NULL;
    if (q->having && !having)
        goto out;
    if (q->distinct && (q->ngroup_by || q->having))
        goto distinct_unsupported;
    /* group keys: GROUP BY's, or every select item of SELECT DISTINCT */
    size_t ng = q->distinct ? pq->nitems : q->ngroup_by;
    if (ng > 64) {
        fail_at(sp, w, q->group_line, q->group_col, "too many GROUP BY keys (64 at most)");
        goto out;
    }
    cdc_sql_query_t *pre = new_query(sp, q->line, q->col);
    pre->items = cdc_xcalloc(ng + 64, sizeof(*pre->items));
    for (size_t g = 0; g < ng; g++) {
        cdc_sql_expr_t *ge = q->distinct ? pq->items[g].expr : rewrite(sp, w, sc, q->group_by[g]);
        if (!ge)
            goto out;
        find_ctx_t f = {0};
        find_calls(ge, &f);
        if (f.agg || f.over) {
            const cdc_sql_expr_t *bad = f.agg ? f.agg : f.over;
            fail_at(sp, w, bad->line, bad->col, "GROUP BY cannot contain an aggregate call");
            goto out;
        }
        ac.group_text[g] = cdc_sql_expr_to_string(ge);
        char *name = q->distinct ? cdc_xstrdup(pq->items[g].alias)
                     : ge->kind == CDC_SQL_EXPR_COLUMN && ge->column.nparts == 1
                         ? cdc_xstrdup(ge->column.parts[0])
                         : cdc_strdup_printf("$f%zu", g);
        pre->items[pre->nitems++] = (cdc_sql_select_item_t){.expr = ge, .alias = name};
        ac.ngroups++;
    }
    if (!q->distinct) {
        for (size_t i = 0; i < pq->nitems; i++)
            if (walk_slots(&pq->items[i].expr, collect_agg, &ac) < 0)
                goto out;
        if (having && walk_slots(&having, collect_agg, &ac) < 0)
            goto out;
    }
    int arg_field[64];
    for (int a = 0; a < ac.naggs; a++) {
        const cdc_sql_expr_t *arg = ac.aggs[a].arg;
        arg_field[a] = -1;
        if (!arg)
            continue;
        /* the same argument is computed once */
        char *at = cdc_sql_expr_to_string(arg);
        for (int b = 0; b < a && arg_field[a] < 0; b++) {
            if (!ac.aggs[b].arg)
                continue;
            char *bt = cdc_sql_expr_to_string(ac.aggs[b].arg);
            if (strcmp(at, bt) == 0)
                arg_field[a] = arg_field[b];
            free(bt);
        }
        free(at);
        if (arg_field[a] >= 0)
            continue;
        arg_field[a] = (int)pre->nitems;
        /* a column keeps its name (once), as in Flink's plans; an expression is $f<field> */
        char *alias = NULL;
        if (arg->kind == CDC_SQL_EXPR_COLUMN && arg->column.nparts == 1) {
            alias = cdc_xstrdup(arg->column.parts[0]);
            for (size_t k = 0; k < pre->nitems && alias; k++)
                if (strcmp(pre->items[k].alias, alias) == 0) {
                    free(alias);
                    alias = NULL;
                }
        }
        if (!alias)
            alias = cdc_strdup_printf("$f%zu", pre->nitems);
        pre->items[pre->nitems++] =
            (cdc_sql_select_item_t){.expr = (cdc_sql_expr_t *)arg, .alias = alias};
    }
    if (q->where && !(pre->where = rewrite(sp, w, sc, q->where)))
        goto out;
    rel_t prel = {0};
    if (make_calc(sp, w, r, pre, &prel, "Calc") < 0)
        goto out;
    if (q->ngroup_sets)
        ac.expand = make_expand(sp, q, (int)ng, &prel);
    const cdc_type_t *pt = prel.type;
    /* the operator: grouped by the keys (and the grouping set's id) */
    size_t nk = ng + (ac.expand ? 1 : 0);
    cdc_op_t *op = cdc_xcalloc(1, sizeof(*op));
    int idx = add_op(sp, op);
    op->kind = CDC_OP_AGG;
    op->in_type[0] = (cdc_type_t *)pt;
    op->out_type = cdc_type_new_row();
    op->out_type->nullable = false;
    op->ngroup = (int)nk;
    op->group = cdc_xcalloc(nk + 1, sizeof(int));
    cdc_buf_t ex = {0}, sel = {0};
    for (size_t g = 0; g < nk; g++) {
        int f = g < ng ? (int)g : pt->nchildren - 1;
        op->group[g] = f;
        cdc_type_row_add(op->out_type, pt->names[f], cdc_type_copy(pt->children[f]));
        if (g < ng)
            ac.group_name[g] = op->out_type->names[g];
        else
            ac.eid_name = op->out_type->names[g];
        cdc_buf_printf(&ex, "%s%s", g ? ", " : "", pt->names[f]);
        cdc_buf_printf(&sel, "%s%s", g ? ", " : "", pt->names[f]);
    }
    op->aggs = cdc_xcalloc((size_t)ac.naggs + 1, sizeof(*op->aggs));
    for (int a = 0; a < ac.naggs; a++) {
        cdc_agg_call_t *c = &op->aggs[op->naggs++];
        c->fn = ac.aggs[a].fn;
        c->distinct = ac.aggs[a].distinct;
        c->arg = arg_field[a];
        c->text = cdc_xstrdup(ac.aggs[a].text);
        c->type = agg_type(c->fn, c->arg >= 0 ? pt->children[c->arg] : NULL);
        if (!c->type) {
            char *tt = cdc_type_to_string(pt->children[c->arg]);
            fail_at(sp, w, ac.aggs[a].arg->line, ac.aggs[a].arg->col,
                    "%s cannot take an argument of type %s", c->text, tt);
            free(tt);
            cdc_buf_free(&ex);
            cdc_buf_free(&sel);
            rel_free(&prel);
            goto out;
        }
        /* named as Flink names them: a select item that is the call alone by its name (its
           alias, or EXPR$i), a call inside an expression $f<field> */
        const char *item_name = NULL;
        for (size_t i = 0; i < pq->nitems && !item_name; i++) {
            const cdc_sql_expr_t *ie = pq->items[i].expr;
            if (ie->kind != CDC_SQL_EXPR_CALL || ie->call.over)
                continue;
            char *t = cdc_sql_expr_to_string(ie);
            if (strcmp(t, c->text) == 0)
                item_name = pq->items[i].alias;
            free(t);
        }
        if (item_name)
            snprintf(ac.agg_name[a], sizeof(ac.agg_name[a]), "%s", item_name);
        else
            snprintf(ac.agg_name[a], sizeof(ac.agg_name[a]), "$f%d", (int)nk + a);
        for (int k = 0; cdc_type_field_index(op->out_type, ac.agg_name[a]) >= 0; k++)
            snprintf(ac.agg_name[a], sizeof(ac.agg_name[a]), "%s%d", item_name ? item_name : "$f",
                     k);
        cdc_type_row_add(op->out_type, ac.agg_name[a], cdc_type_copy(c->type));
        cdc_buf_printf(&sel, "%s%s AS %s", sel.len ? ", " : "", c->text, ac.agg_name[a]);
    }
    op->mode = CDC_MODE_ALL;
    if (nk > 0) {
        op->nukey = (int)nk;
        op->ukey = cdc_xcalloc(nk, sizeof(int));
        for (size_t g = 0; g < nk; g++)
            op->ukey[g] = (int)g;
    }
    /* GROUP BY window_start, window_end of a window table function: a window aggregation */
    const cdc_op_t *wop = r->op >= 0 && sp->g->ops[r->op]->kind == CDC_OP_WINDOW && !q->njoins
                              ? sp->g->ops[r->op]
                              : NULL;
    int gs = -1, ge = -1, gt = -1;
    for (size_t g = 0; wop && g < ng; g++) {
        const cdc_sql_expr_t *e = pre->items[g].expr;
        int nin = wop->in_type[0]->nchildren;
        if (e->kind == CDC_SQL_EXPR_COLUMN && e->column.nparts == 1) {
            if (strcmp(e->column.parts[0], wop->out_type->names[nin]) == 0)
                gs = (int)g;
            if (strcmp(e->column.parts[0], wop->out_type->names[nin + 1]) == 0)
                ge = (int)g;
            if (strcmp(e->column.parts[0], wop->out_type->names[nin + 2]) == 0)
                gt = (int)g;
        }
    }
    for (int s = 0; gs >= 0 && ge >= 0 && ac.expand && s < ac.expand->nsets; s++)
        if (!(ac.expand->sets[s] >> gs & 1) || !(ac.expand->sets[s] >> ge & 1)) {
            fail_at(sp, w, q->group_line, q->group_col,
                    "window_start and window_end must be in every grouping set of a window "
                    "aggregation");
            cdc_buf_free(&ex);
            cdc_buf_free(&sel);
            rel_free(&prel);
            goto out;
        }
    if (gs >= 0 && ge >= 0) {
        op->windowed = true;
        op->win_end_field = ge;
        op->win_kind = wop->win_kind;
        op->win_size = wop->win_size;
        op->win_step = wop->win_step;
        op->win_offset = wop->win_offset;
        op->proctime = wop->proctime;
        op->win_time_field = gt;
        op->mode = CDC_MODE_INSERT_ONLY;
        cdc_buf_t gb = {0}, sb = {0}, wb = {0};
        for (size_t g = 0; g < nk; g++) {
            if ((int)g == gs || (int)g == ge || (int)g == gt) /* window properties */
                continue;
            cdc_buf_printf(&gb, "%s%s", gb.len ? ", " : "", pt->names[op->group[g]]);
            cdc_buf_printf(&sb, "%s%s", sb.len ? ", " : "", pt->names[op->group[g]]);
        }
        for (int a = 0; a < op->naggs; a++)
            cdc_buf_printf(&sb, "%s%s AS %s", sb.len ? ", " : "", op->aggs[a].text, ac.agg_name[a]);
        cdc_buf_printf(&sb, "%sstart('w$) AS %s, end('w$) AS %s", sb.len ? ", " : "", pt->names[gs],
                       pt->names[ge]);
        if (gt >= 0)
            cdc_buf_printf(&sb, ", %s('w$) AS %s", wop->proctime ? "proctime" : "rowtime",
                           pt->names[gt]);
        window_text(op, wop->in_type[0]->names[wop->timecol], &wb);
        op->explain = cdc_strdup_printf("WindowAggregate(%s%s%swindow=[%s], select=[%s], "
                                        "changelogMode=[I])",
                                        gb.len ? "groupBy=[" : "", cdc_buf_cstr(&gb),
                                        gb.len ? "], " : "", cdc_buf_cstr(&wb), cdc_buf_cstr(&sb));
        cdc_buf_free(&gb);
        cdc_buf_free(&sb);
        cdc_buf_free(&wb);
    } else
        op->explain = cdc_strdup_printf(
            "GroupAggregate(%s%s%sselect=[%s], changelogMode=[I,UB,UA,D])", ng ? "groupBy=[" : "",
            cdc_buf_cstr(&ex), ng ? "], " : "", cdc_buf_cstr(&sel));
    cdc_buf_free(&ex);
    cdc_buf_free(&sel);
    connect(sp, &prel, idx, 0);
    rel_free(&prel);
    rel_free(r);
    rel_of_op(sp, idx, r);
    /* the post-query over the operator's row */
    for (size_t i = 0; i < pq->nitems; i++)
        if (walk_slots(&pq->items[i].expr, replace_grouped, &ac) < 0)
            goto out;
    if (having) {
        if (walk_slots(&having, replace_grouped, &ac) < 0)
            goto out;
        pq->where = having;
    }
    *post = pq;
    rc = 0;
    goto out;
distinct_unsupported:
    fail_at(sp, w, q->line, q->col,
            "SELECT DISTINCT together with GROUP BY or HAVING is not supported yet");
out:
    for (int a = 0; a < ac.naggs; a++)
        free(ac.aggs[a].text);
    for (int g = 0; g < ac.ngroups; g++)
        free(ac.group_text[g]);
    return rc;
}

/* ---- Top-N: ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...) ------------------------------- */

/* A query (for a Calc before an operator) that keeps every field of @p r, with room for
 * @p extra more items. */
static cdc_sql_query_t *fields_query(sp_t *sp, const cdc_sql_query_t *q, const rel_t *r,
                                     size_t extra)
{
    cdc_sql_query_t *fq = new_query(sp, q->line, q->col);
    fq->items = cdc_xcalloc((size_t)r->type->nchildren + extra + 1, sizeof(*fq->items));
    for (int f = 0; f < r->type->nchildren; f++)
        fq->items[fq->nitems++] = (cdc_sql_select_item_t){
            .expr = keep_expr(sp, col_ref(r->type->names[f], q->line, q->col)),
            .alias = cdc_xstrdup(r->type->names[f])};
    return fq;
}

/* An operator's input: a Calc of @p fq over @p r, or @p r itself when fq is NULL. */
static int calc_input(sp_t *sp, const where_t *w, const rel_t *r, cdc_sql_query_t *fq, rel_t *in)
{
    if (fq)
        return make_calc(sp, w, r, fq, in, "Calc");
    *in = *r;
    in->ukey = ints_dup(r->ukey, r->nukey);
    return 0;
}

/* The PARTITION BY columns of a window into op->part (fields of @p t), listed in *pb. */
static int partition_fields(sp_t *sp, const where_t *w, const cdc_sql_over_t *ov,
                            const cdc_type_t *t, cdc_op_t *op, cdc_buf_t *pb, const char *what)
{
    for (size_t i = 0; i < ov->npartition_by; i++) {
        const cdc_sql_expr_t *e = ov->partition_by[i];
        int f = e->kind == CDC_SQL_EXPR_COLUMN && e->column.nparts == 1
                    ? cdc_type_field_index(t, e->column.parts[0])
                    : -1;
        if (f < 0)
            return fail_at(sp, w, e->line, e->col,
                           "PARTITION BY of %s takes columns; compute the expression in a "
                           "subquery",
                           what);
        op->part[op->npart++] = f;
        cdc_buf_printf(pb, "%s%s", i ? ", " : "", t->names[f]);
    }
    return 0;
}

static int plan_rank(sp_t *sp, const where_t *w, const cdc_sql_query_t *q, const scope_t *sc,
                     const rank_filter_t *rf, int nrf, rel_t *r, cdc_sql_query_t **post)
{
    cdc_sql_query_t *pq = new_query(sp, q->line, q->col);
    if (expand_items(sp, w, sc, q, pq) < 0)
        return -1;
    int item = -1;
    for (size_t i = 0; i < pq->nitems; i++) {
        find_ctx_t f = {0};
        find_calls(pq->items[i].expr, &f);
        if (!f.over)
            continue;
        const cdc_sql_expr_t *e = pq->items[i].expr;
        if (f.over != e || item >= 0)
            return fail_at(sp, w, f.over->line, f.over->col,
                           "a window function is supported as one select item of its own "
                           "(ROW_NUMBER() OVER (...) AS rn) for Top-N; other OVER aggregations "
                           "are not supported yet");
        if (strcasecmp(e->call.name, "ROW_NUMBER") != 0)
            return fail_at(sp, w, e->line, e->col,
                           "%s() OVER is not supported yet; Top-N is supported with ROW_NUMBER()",
                           e->call.name);
        item = (int)i;
    }
    const cdc_sql_expr_t *call = pq->items[item].expr;
    const cdc_sql_over_t *ov = call->call.over;
    const char *rn_name = pq->items[item].alias;
    int64_t limit = -1;
    for (int i = 0; i < nrf; i++)
        if (strcmp(rf[i].name, rn_name) == 0 && (limit < 0 || rf[i].limit < limit))
            limit = rf[i].limit;
    if (limit < 0)
        return fail_at(sp, w, call->line, call->col,
                       "ROW_NUMBER() OVER (...) needs a filter on its result in the enclosing "
                       "query (WHERE %s <= N, or %s = 1): Flink runs it as Top-N; without one "
                       "it is an OVER aggregation, which is not supported yet",
                       rn_name, rn_name);
    if (limit < 1)
        limit = 0;
    if (ov->norder_by == 0)
        return fail_at(sp, w, ov->line, ov->col, "ROW_NUMBER() OVER needs an ORDER BY");
    /* the level's WHERE comes before the ranking */
    rel_t in = {0};
    cdc_sql_query_t *fq = q->where ? fields_query(sp, q, r, 0) : NULL;
    if (fq && !(fq->where = rewrite(sp, w, sc, q->where)))
        return -1;
    if (calc_input(sp, w, r, fq, &in) < 0)
        return -1;
    cdc_op_t *op = cdc_xcalloc(1, sizeof(*op));
    int idx = add_op(sp, op);
    op->kind = CDC_OP_RANK;
    op->in_type[0] = (cdc_type_t *)in.type;
    op->limit = limit;
    op->emit_rn = true;
    op->part = cdc_xcalloc(ov->npartition_by + 1, sizeof(int));
    op->order = cdc_xcalloc(ov->norder_by, sizeof(int));
    op->desc = cdc_xcalloc(ov->norder_by, sizeof(bool));
    op->nulls_first = cdc_xcalloc(ov->norder_by, sizeof(bool));
    cdc_buf_t pb = {0}, ob = {0};
    if (partition_fields(sp, w, ov, in.type, op, &pb, "ROW_NUMBER()") < 0) {
        rel_free(&in);
        return -1;
    }
    for (size_t i = 0; i < ov->norder_by; i++) {
        const cdc_sql_expr_t *e = ov->order_by[i].expr;
        int f = e->kind == CDC_SQL_EXPR_COLUMN && e->column.nparts == 1
                    ? cdc_type_field_index(in.type, e->column.parts[0])
                    : -1;
        if (f < 0) {
            rel_free(&in);
            return fail_at(sp, w, e->line, e->col,
                           "ORDER BY of ROW_NUMBER() takes columns; compute the expression in a "
                           "subquery");
        }
        op->order[op->norder] = f;
        op->desc[op->norder] = ov->order_by[i].desc;
        /* Flink orders NULL first ascending, last descending, unless told */
        op->nulls_first[op->norder] =
            ov->order_by[i].nulls ? ov->order_by[i].nulls == 1 : !ov->order_by[i].desc;
        cdc_buf_printf(&ob, "%s%s %s", i ? ", " : "", in.type->names[f],
                       ov->order_by[i].desc ? "DESC" : "ASC");
        op->norder++;
    }
    op->by_arrival = op->norder == 1 && leaf_proctime(sp, &in, op->order[0]);
    op->out_type = cdc_type_copy(in.type);
    char rn_field[256];
    snprintf(rn_field, sizeof(rn_field), "%s", rn_name);
    for (int k = 0; cdc_type_field_index(op->out_type, rn_field) >= 0; k++)
        snprintf(rn_field, sizeof(rn_field), "%s%d", rn_name, k);
    cdc_type_t *bt = cdc_type_new(CDC_T_BIGINT);
    bt->nullable = false;
    cdc_type_row_add(op->out_type, rn_field, bt);
    op->mode = CDC_MODE_ALL;
    /* keyed by (partition, rn); with rn = 1 (deduplication) by the partition alone, as Flink */
    op->nukey = limit == 1 && op->npart > 0 ? op->npart : op->npart + 1;
    op->ukey = cdc_xcalloc((size_t)op->nukey, sizeof(int));
    memcpy(op->ukey, op->part, sizeof(int) * (size_t)op->npart);
    if (op->nukey > op->npart)
        op->ukey[op->npart] = op->out_type->nchildren - 1;
    op->explain = cdc_strdup_printf(
        "%s(strategy=[RetractStrategy], rankType=[ROW_NUMBER], rankRange=[rankStart=1, "
        "rankEnd=%lld], partitionBy=[%s], orderBy=[%s], select=[..., %s], "
        "changelogMode=[I,UB,UA,D])",
        op->by_arrival ? (limit == 1 ? "Deduplicate" : "Rank") : "Rank", (long long)limit,
        cdc_buf_cstr(&pb), cdc_buf_cstr(&ob), rn_field);
    cdc_buf_free(&pb);
    cdc_buf_free(&ob);
    connect(sp, &in, idx, 0);
    rel_free(&in);
    rel_free(r);
    rel_of_op(sp, idx, r);
    morph_to_ref(pq->items[item].expr, rn_field);
    *post = pq;
    return 0;
}

/* ---- window table functions ------------------------------------------------------------ */

static const char *const tvf_names[] = {"", "TUMBLE", "HOP", "CUMULATE"};

/* A duration as Flink's plans print it: "10 min", "5 s", "1 h", "250 ms". */
static void put_duration(cdc_buf_t *b, int64_t ms)
{
    if (ms % 3600000 == 0)
        cdc_buf_printf(b, "%lld h", (long long)(ms / 3600000));
    else if (ms % 60000 == 0)
        cdc_buf_printf(b, "%lld min", (long long)(ms / 60000));
    else if (ms % 1000 == 0)
        cdc_buf_printf(b, "%lld s", (long long)(ms / 1000));
    else
        cdc_buf_printf(b, "%lld ms", (long long)ms);
}

/* "TUMBLE(time_col=[ts], size=[10 min])" */
static void window_text(const cdc_op_t *op, const char *timecol, cdc_buf_t *b)
{
    cdc_buf_printf(b, "%s(time_col=[%s], ", tvf_names[op->win_kind], timecol);
    if (op->win_kind == CDC_SQL_TVF_HOP) {
        cdc_buf_puts(b, "size=[");
        put_duration(b, op->win_size);
        cdc_buf_puts(b, "], slide=[");
        put_duration(b, op->win_step);
    } else if (op->win_kind == CDC_SQL_TVF_CUMULATE) {
        cdc_buf_puts(b, "max_size=[");
        put_duration(b, op->win_size);
        cdc_buf_puts(b, "], step=[");
        put_duration(b, op->win_step);
    } else {
        cdc_buf_puts(b, "size=[");
        put_duration(b, op->win_size);
    }
    cdc_buf_putc(b, ']');
    if (op->win_offset) {
        cdc_buf_puts(b, ", offset=[");
        put_duration(b, op->win_offset);
        cdc_buf_putc(b, ']');
    }
    cdc_buf_putc(b, ')');
}

static int interval_arg(sp_t *sp, const where_t *w, const cdc_sql_expr_t *e, const char *what,
                        int64_t *ms)
{
    if (!e) {
        *ms = 0;
        return 0;
    }
    if (cdc_expr_interval_ms(e, ms) < 0)
        return fail_at(sp, w, e->line, e->col,
                       "the %s of a window is a day-time INTERVAL literal (INTERVAL '10' MINUTES)",
                       what);
    return 0;
}

/* The WATERMARK of table @p def compiled over the rows of its leaf @p in (once). */
static int compile_leaf_wm(sp_t *sp, const cdc_table_def_t *def, const rel_t *in)
{
    cdc_graph_t *g = sp->g;
    if (g->leaf_wm[in->leaf])
        return 0;
    cdc_expr_env_t env = {.row_type = in->type,
                          .udf_lookup = cdc_plan_udf_lookup,
                          .udf_ctx = sp->penv->cat,
                          .text = def->ddl,
                          .len = def->ddl ? strlen(def->ddl) : 0,
                          .filename = def->origin};
    return cdc_expr_compile(def->watermark_expr, &env, &g->leaf_wm[in->leaf], sp->err);
}

/* Whether field @p f of @p r is the window_time of an event-time window aggregation (through
 * Calcs that select it as it is): a rowtime attribute a window function over a view or WITH
 * query can take (Flink's cascading window aggregation). */
static bool rel_window_rowtime(sp_t *sp, const rel_t *r, int f)
{
    const cdc_graph_t *g = sp->g;
    int op = r->op;
    while (op >= 0 && f >= 0) {
        const cdc_op_t *o = g->ops[op];
        if (o->kind != CDC_OP_CALC)
            return o->kind == CDC_OP_AGG && o->windowed && !o->proctime && f == o->win_time_field;
        f = f < o->stage.nitems ? cdc_expr_column_index(o->stage.items[f]) : -1;
        int child = -1;
        for (int c = 0; c < g->nops && child < 0; c++)
            if (g->ops[c]->parent == o)
                child = c;
        op = child;
    }
    return false;
}

/* FROM TABLE(TUMBLE|HOP|CUMULATE(TABLE t, DESCRIPTOR(ts), ...)): the table's leaf with its
 * watermark, or a view's (a WITH query's) window aggregation whose window_time it takes, and the
 * window table function over it. */
static int plan_window_input(sp_t *sp, const cdc_sql_table_ref_t *ref, const where_t *w, rel_t *out,
                             const char **qual)
{
    const cdc_sql_window_tvf_t *tv = ref->tvf;
    *qual = ref->alias;
    const cdc_table_def_t *def = NULL;
    const cdc_view_def_t *view = NULL;
    cdc_error_t *ignored = NULL;
    if (cdc_catalog_find(sp->penv->cat, &ref->name, &def, &view, &ignored) <= 0 || !def) {
        cdc_error_destroy(ignored);
        def = NULL;
    }
    cdc_sql_table_ref_t dref = *ref;
    dref.tvf = NULL;
    dref.alias = NULL;
    /* a view or WITH query with state (a window aggregation) is planned as operators */
    where_t w2 = *w;
    const cdc_view_def_t *qview = NULL;
    const cdc_sql_query_t *sub = def ? NULL : from_query(sp, &dref, &w2, &qview);
    int saved = sp->nctes;
    bool deep = sub && needs_state_deep(sp, sub, 0);
    sp->nctes = saved;
    if (!deep && view)
        return fail_at(sp, w, ref->name.line, ref->name.col,
                       "a window function over a view without a window aggregation is not "
                       "supported yet; name its table");
    rel_t in = {0};
    const char *inq = NULL;
    if (deep ? plan_input(sp, &dref, w, NULL, &in, &inq) < 0 : plan_leaf(sp, &dref, w, &in) < 0)
        return -1;
    int rc = -1;
    int tc = cdc_type_field_index(in.type, tv->timecol.name);
    if (tc < 0) {
        fail_at(sp, w, tv->timecol.line, tv->timecol.col, "Column '%s' not found in table '%s'",
                tv->timecol.name, ref->name.parts[ref->name.nparts - 1]);
        goto out;
    }
    const cdc_type_t *tt = in.type->children[tc];
    bool proctime = leaf_proctime(sp, &in, tc);
    bool cascade = deep && rel_window_rowtime(sp, &in, tc);
    if (!proctime && !cascade &&
        (!def || !def->watermark_column || strcmp(def->watermark_column, tv->timecol.name) != 0 ||
         (tt->root != CDC_T_TIMESTAMP && tt->root != CDC_T_TIMESTAMP_LTZ))) {
        char *ts = cdc_type_to_string(tt);
        fail_at(sp, w, tv->timecol.line, tv->timecol.col,
                "The window function requires the timecol is a time attribute type, but is %s.",
                ts);
        free(ts);
        cdc_error_set_hint(*sp->err,
                           "declare the column an event-time attribute on the table: "
                           "WATERMARK FOR %s AS %s - INTERVAL '5' SECOND, or window on a "
                           "processing-time attribute (a column AS PROCTIME()); over a view, "
                           "the window_time of its window aggregation",
                           tv->timecol.name, tv->timecol.name);
        goto out;
    }
    if (in.mode != CDC_MODE_INSERT_ONLY) {
        char mb[16];
        fail_at(sp, w, tv->line, tv->col,
                "%s over table '%s', whose changelog %s has updates or deletes, is not supported "
                "yet (window functions read append-only tables)",
                tvf_names[tv->kind], def ? def->qualified : ref->name.parts[ref->name.nparts - 1],
                cdc_changelog_mode_str(in.mode, mb));
        goto out;
    }
    /* the table's watermark (a cascade's is its input's) */
    if (!proctime && !cascade && compile_leaf_wm(sp, def, &in) < 0)
        goto out;
    cdc_op_t *op = cdc_xcalloc(1, sizeof(*op));
    int idx = add_op(sp, op);
    op->kind = CDC_OP_WINDOW;
    op->proctime = proctime;
    op->win_kind = tv->kind;
    op->timecol = tc;
    op->in_type[0] = (cdc_type_t *)in.type;
    if (interval_arg(sp, w, tv->size, "size", &op->win_size) < 0 ||
        interval_arg(sp, w, tv->step, tv->kind == CDC_SQL_TVF_HOP ? "slide" : "step",
                     &op->win_step) < 0 ||
        interval_arg(sp, w, tv->offset, "offset", &op->win_offset) < 0)
        goto out;
    if (op->win_size <= 0 || (tv->step && op->win_step <= 0)) {
        fail_at(sp, w, tv->line, tv->col, "a window's size%s must be positive",
                tv->step ? " and step" : "");
        goto out;
    }
    if (tv->step && op->win_size % op->win_step != 0) {
        fail_at(sp, w, tv->line, tv->col,
                "%s window requires size must be an integral multiple of %s", tvf_names[tv->kind],
                tv->kind == CDC_SQL_TVF_HOP ? "slide" : "step");
        goto out;
    }
    op->out_type = cdc_type_copy(in.type);
    static const char *const wcols[] = {"window_start", "window_end", "window_time"};
    /* the input's own window columns (a cascade's) give way to the new windows' */
    for (int f = 0; f < op->out_type->nchildren; f++) {
        char **name = &op->out_type->names[f];
        if (strcmp(*name, wcols[0]) != 0 && strcmp(*name, wcols[1]) != 0 &&
            strcmp(*name, wcols[2]) != 0)
            continue;
        char buf[64];
        for (int k = 0;; k++) {
            snprintf(buf, sizeof(buf), "%s%d", *name, k);
            if (cdc_type_field_index(op->out_type, buf) < 0)
                break;
        }
        free(*name);
        *name = cdc_xstrdup(buf);
    }
    for (int k = 0; k < 3; k++) {
        cdc_type_t *t = cdc_type_new_sized(k == 2 ? tt->root : CDC_T_TIMESTAMP, 3);
        t->nullable = false;
        cdc_type_row_add(op->out_type, wcols[k], t);
    }
    op->mode = CDC_MODE_INSERT_ONLY;
    cdc_buf_t b = {0};
    cdc_buf_puts(&b, "WindowTableFunction(window=[");
    window_text(op, tv->timecol.name, &b);
    cdc_buf_puts(&b, "])");
    op->explain = cdc_xstrdup(cdc_buf_cstr(&b));
    cdc_buf_free(&b);
    connect(sp, &in, idx, 0);
    rel_of_op(sp, idx, out);
    rc = 0;
out:
    rel_free(&in);
    return rc;
}

/* ---- OVER aggregation: agg(x) OVER (PARTITION BY ... ORDER BY time ROWS|RANGE ...) ---------- */

/* A window's frame as the operator runs it: ROWS or RANGE, and how far back it reaches (-1:
 * UNBOUNDED PRECEDING); Flink's default without a frame is RANGE UNBOUNDED PRECEDING. */
static int over_frame(sp_t *sp, const where_t *w, const cdc_sql_over_t *o, bool *rows,
                      int64_t *preceding)
{
    *rows = o->frame == 1;
    *preceding = -1;
    if (!o->frame)
        return 0;
    if (o->upper.kind != CDC_SQL_BOUND_CURRENT_ROW || o->lower.kind == CDC_SQL_BOUND_FOLLOWING ||
        o->lower.kind == CDC_SQL_BOUND_UNBOUNDED_FOLLOWING) {
        const cdc_sql_bound_t *b =
            o->upper.kind != CDC_SQL_BOUND_CURRENT_ROW ? &o->upper : &o->lower;
        fail_at(sp, w, b->line, b->col, "OVER RANGE FOLLOWING windows are not supported yet.");
        cdc_error_set_hint(*sp->err, "end the frame at CURRENT ROW: ROWS BETWEEN n PRECEDING AND "
                                     "CURRENT ROW, or RANGE BETWEEN INTERVAL '..' PRECEDING AND "
                                     "CURRENT ROW");
        return -1;
    }
    if (o->lower.kind == CDC_SQL_BOUND_CURRENT_ROW) {
        *preceding = 0;
        return 0;
    }
    if (o->lower.kind == CDC_SQL_BOUND_UNBOUNDED_PRECEDING)
        return 0;
    const cdc_sql_expr_t *e = o->lower.offset;
    if (*rows) {
        if (e->kind != CDC_SQL_EXPR_LITERAL || e->literal.kind != CDC_SQL_LIT_INTEGER)
            return fail_at(sp, w, e->line, e->col,
                           "the offset of a ROWS frame is a non-negative integer literal "
                           "(ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)");
        *preceding = strtoll(e->literal.text, NULL, 10);
        return 0;
    }
    if (cdc_expr_interval_ms(e, preceding) < 0 || *preceding < 0)
        return fail_at(sp, w, e->line, e->col,
                       "the offset of a RANGE frame over a time attribute is a day-time INTERVAL "
                       "literal (RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW)");
    return 0;
}

/* The window as the operator runs it, as text: the same for windows that only differ in how
 * they are written (a default frame, a named window). */
static char *over_key(const cdc_sql_over_t *o, bool rows, int64_t preceding)
{
    cdc_sql_over_t bare = *o; /* borrowed fields, printed only */
    bare.frame = 0;
    char *t = cdc_sql_over_to_string(&bare);
    char *k = cdc_strdup_printf("%s|%d|%lld", t, rows, (long long)preceding);
    free(t);
    return k;
}

typedef struct over_check {
    sp_t *sp;
    const where_t *w;
    const cdc_sql_over_t *first;
    char *key;
} over_check_t;

/* Every OVER call of the level has the same window (Flink runs one window per OverAggregate). */
static int check_over(cdc_sql_expr_t **slot, void *ctx)
{
    over_check_t *oc = ctx;
    const cdc_sql_expr_t *e = *slot;
    if (e->kind != CDC_SQL_EXPR_CALL || !e->call.over)
        return 0;
    bool rows;
    int64_t preceding;
    if (over_frame(oc->sp, oc->w, e->call.over, &rows, &preceding) < 0)
        return -1;
    char *k = over_key(e->call.over, rows, preceding);
    if (!oc->first) {
        oc->first = e->call.over;
        oc->key = k;
        return 0;
    }
    bool same = strcmp(k, oc->key) == 0;
    free(k);
    if (!same) {
        fail_at(oc->sp, oc->w, e->call.over->line, e->call.over->col,
                "All aggregates must be computed on the same window.");
        cdc_error_set_hint(*oc->sp->err,
                           "give every OVER of the SELECT the same window (a WINDOW w AS (...) "
                           "clause and OVER w), or compute the others in another query");
        return -1;
    }
    return 0;
}

/* The ORDER BY keys of @p q as fields of @p t, into op's order/desc/nulls_first and "k ASC, ..."
 * text. 0, or -1 with sp->err. */
static int order_fields(sp_t *sp, const where_t *w, const cdc_sql_query_t *q, const cdc_type_t *t,
                        cdc_op_t *op, cdc_buf_t *text, const char *what)
{
    op->order = cdc_xcalloc(q->norder_by, sizeof(int));
    op->desc = cdc_xcalloc(q->norder_by, sizeof(bool));
    op->nulls_first = cdc_xcalloc(q->norder_by, sizeof(bool));
    for (size_t i = 0; i < q->norder_by; i++) {
        const cdc_sql_expr_t *e = q->order_by[i].expr;
        int f = e->kind == CDC_SQL_EXPR_COLUMN
                    ? cdc_type_field_index(t, e->column.parts[e->column.nparts - 1])
                    : -1;
        if (f < 0)
            return fail_at(sp, w, e->line, e->col,
                           "%s takes the names of the query's columns (or their aliases); select "
                           "the expression and order by its alias",
                           what);
        op->order[op->norder] = f;
        op->desc[op->norder] = q->order_by[i].desc;
        op->nulls_first[op->norder] =
            q->order_by[i].nulls ? q->order_by[i].nulls == 1 : !q->order_by[i].desc;
        cdc_buf_printf(text, "%s%s %s", i ? ", " : "", t->names[f],
                       q->order_by[i].desc ? "DESC" : "ASC");
        op->norder++;
    }
    return 0;
}

/* ---- group windows: GROUP BY TUMBLE(ts, size) / HOP(ts, slide, size) -------------------- */

typedef struct gw_ctx {
    sp_t *sp;
    const where_t *w;
    const cdc_sql_expr_t *win; /* the GROUP BY's TUMBLE(...) / HOP(...) */
    bool uses_time;            /* an item names *_ROWTIME or *_PROCTIME */
} gw_ctx_t;

/* TUMBLE_START(ts, size) and the other auxiliary functions of the group window, in place: its
 * window table function's window_start, window_end, window_time. */
static int replace_window_aux(cdc_sql_expr_t **slot, void *ctx)
{
    gw_ctx_t *gc = ctx;
    cdc_sql_expr_t *e = *slot;
    if (e->kind != CDC_SQL_EXPR_CALL || e->call.over || !e->call.name)
        return 0;
    static const char *const kinds[] = {"TUMBLE", "HOP", "SESSION"};
    static const struct {
        const char *suffix, *column;
    } aux[] = {{"_START", "window_start"},
               {"_END", "window_end"},
               {"_ROWTIME", "window_time"},
               {"_PROCTIME", "window_time"}};
    for (int k = 0; k < 3; k++) {
        size_t kl = strlen(kinds[k]);
        if (strncasecmp(e->call.name, kinds[k], kl) != 0)
            continue;
        for (int a = 0; a < 4; a++) {
            if (strcasecmp(e->call.name + kl, aux[a].suffix) != 0)
                continue;
            const cdc_sql_expr_t *win = gc->win;
            bool same =
                strcasecmp(win->call.name, kinds[k]) == 0 && win->call.nargs == e->call.nargs;
            for (size_t i = 0; same && i < e->call.nargs; i++) {
                char *x = cdc_sql_expr_to_string(e->call.args[i]);
                char *y = cdc_sql_expr_to_string(win->call.args[i]);
                same = strcmp(x, y) == 0;
                free(x);
                free(y);
            }
            if (!same) {
                char *wt = cdc_sql_expr_to_string(win);
                fail_at(gc->sp, gc->w, e->line, e->col,
                        "%s takes the group window of the GROUP BY, %s, and its arguments",
                        e->call.name, wt);
                free(wt);
                return -1;
            }
            gc->uses_time = gc->uses_time || a >= 2;
            morph_to_ref(e, aux[a].column);
            return 1;
        }
    }
    return 0;
}

/* An OVER call of the post-query becomes a reference to its field of the operator's row. */
static int replace_over(cdc_sql_expr_t **slot, void *ctx)
{
    agg_ctx_t *ac = ctx;
    cdc_sql_expr_t *e = *slot;
    if (e->kind != CDC_SQL_EXPR_CALL || !e->call.over)
        return 0;
    char *text = cdc_sql_expr_to_string(e);
    for (int a = 0; a < ac->naggs; a++)
        if (strcmp(ac->aggs[a].text, text) == 0)
            morph_to_ref(e, ac->agg_name[a]);
    free(text);
    return 1;
}

/* The time attribute an OVER window is ordered by: field @p f of @p r, an event-time attribute
 * (the column of its table's WATERMARK; the watermark is compiled for the leaf) or a
 * processing-time one (*proctime). 0, or -1 with Flink's error. */
static int over_time_attr(sp_t *sp, const where_t *w, const cdc_sql_query_t *q, const rel_t *r,
                          int f, const cdc_sql_expr_t *at, bool *proctime)
{
    *proctime = f >= 0 && leaf_proctime(sp, r, f);
    if (*proctime)
        return 0;
    const cdc_table_def_t *def = NULL;
    const cdc_view_def_t *view = NULL;
    cdc_error_t *ignored = NULL;
    if (f >= 0 && r->op < 0 && !q->njoins && !q->from.subquery && q->from.name.nparts &&
        cdc_catalog_find(sp->penv->cat, &q->from.name, &def, &view, &ignored) > 0 && def &&
        def->watermark_column && strcmp(def->watermark_column, r->type->names[f]) == 0 &&
        (r->type->children[f]->root == CDC_T_TIMESTAMP ||
         r->type->children[f]->root == CDC_T_TIMESTAMP_LTZ))
        return compile_leaf_wm(sp, def, r);
    cdc_error_destroy(ignored);
    fail_at(sp, w, at->line, at->col,
            "OVER windows' ordering in stream mode must be defined on a time attribute.");
    cdc_error_set_hint(*sp->err,
                       "order by a column of the table that has a WATERMARK FOR it (event time) "
                       "or that is AS PROCTIME() (processing time)");
    return -1;
}

/* The OVER calls of a level (all over one window): a Calc for the WHERE and the calls'
 * arguments when needed, the OverAggregate, and the post-query over its row. */
static int plan_over(sp_t *sp, const where_t *w, const cdc_sql_query_t *q, const scope_t *sc,
                     rel_t *r, cdc_sql_query_t **post)
{
    agg_ctx_t ac = {.sp = sp, .w = w, .over = true};
    over_check_t oc = {.sp = sp, .w = w};
    int rc = -1;
    rel_t in = {0};
    cdc_sql_query_t *pq = new_query(sp, q->line, q->col);
    if (expand_items(sp, w, sc, q, pq) < 0)
        goto out;
    for (size_t i = 0; i < pq->nitems; i++)
        if (walk_slots(&pq->items[i].expr, check_over, &oc) < 0 ||
            walk_slots(&pq->items[i].expr, collect_agg, &ac) < 0)
            goto out;
    const cdc_sql_over_t *ov = oc.first;
    bool rows;
    int64_t preceding;
    if (over_frame(sp, w, ov, &rows, &preceding) < 0)
        goto out;
    if (r->mode != CDC_MODE_INSERT_ONLY) {
        char mb[16];
        fail_at(sp, w, ov->line, ov->col,
                "StreamPhysicalOverAggregate doesn't support consuming update and delete changes "
                "(its input's changelog is %s)",
                cdc_changelog_mode_str(r->mode, mb));
        cdc_error_set_hint(*sp->err, "an OVER aggregation reads an append-only table or query");
        goto out;
    }
    if (ov->norder_by != 1) {
        fail_at(sp, w, ov->line, ov->col,
                "The window can only be ordered by a single time column.");
        goto out;
    }
    if (ov->order_by[0].desc) {
        const cdc_sql_expr_t *e = ov->order_by[0].expr;
        fail_at(sp, w, e->line, e->col, "The window can only be ordered in ASCENDING mode.");
        goto out;
    }
    const cdc_sql_expr_t *oe = ov->order_by[0].expr;
    int tf = oe->kind == CDC_SQL_EXPR_COLUMN && oe->column.nparts == 1
                 ? cdc_type_field_index(r->type, oe->column.parts[0])
                 : -1;
    bool proctime;
    if (over_time_attr(sp, w, q, r, tf, oe, &proctime) < 0)
        goto out;
    /* the Calc before: the level's WHERE, the arguments that are not columns */
    int arg_field[64];
    bool calc = q->where != NULL;
    for (int a = 0; a < ac.naggs; a++) {
        const cdc_sql_expr_t *arg = ac.aggs[a].arg;
        arg_field[a] = !arg ? -1
                       : arg->kind == CDC_SQL_EXPR_COLUMN && arg->column.nparts == 1
                           ? cdc_type_field_index(r->type, arg->column.parts[0])
                           : -2;
        calc = calc || arg_field[a] == -2;
    }
    cdc_sql_query_t *pre = NULL;
    if (calc) {
        pre = fields_query(sp, q, r, (size_t)ac.naggs);
        for (int a = 0; a < ac.naggs; a++) {
            if (arg_field[a] != -2)
                continue;
            arg_field[a] = (int)pre->nitems;
            pre->items[pre->nitems++] =
                (cdc_sql_select_item_t){.expr = (cdc_sql_expr_t *)ac.aggs[a].arg,
                                        .alias = cdc_strdup_printf("$f%zu", pre->nitems)};
        }
        if (q->where && !(pre->where = rewrite(sp, w, sc, q->where)))
            goto out;
    }
    if (calc_input(sp, w, r, pre, &in) < 0)
        goto out;
    cdc_op_t *op = cdc_xcalloc(1, sizeof(*op));
    int idx = add_op(sp, op);
    op->kind = CDC_OP_OVER;
    op->in_type[0] = (cdc_type_t *)in.type;
    op->timecol = tf;
    op->by_arrival = proctime;
    op->over_rows = rows;
    op->over_preceding = preceding;
    op->part = cdc_xcalloc(ov->npartition_by + 1, sizeof(int));
    cdc_buf_t pb = {0}, sel = {0};
    if (partition_fields(sp, w, ov, in.type, op, &pb, "an OVER aggregation") < 0) {
        cdc_buf_free(&pb);
        goto out;
    }
    op->out_type = cdc_type_copy(in.type);
    for (int f = 0; f < in.type->nchildren; f++)
        cdc_buf_printf(&sel, "%s%s", f ? ", " : "", in.type->names[f]);
    op->aggs = cdc_xcalloc((size_t)ac.naggs + 1, sizeof(*op->aggs));
    for (int a = 0; a < ac.naggs; a++) {
        cdc_agg_call_t *c = &op->aggs[op->naggs++];
        c->fn = ac.aggs[a].fn;
        c->distinct = ac.aggs[a].distinct;
        c->arg = arg_field[a];
        /* EXPLAIN prints the call without its window, which is printed once */
        char *full = ac.aggs[a].text, *cut = strstr(full, " OVER (");
        c->text = cut ? cdc_strdup_printf("%.*s", (int)(cut - full), full) : cdc_xstrdup(full);
        c->type = agg_type(c->fn, c->arg >= 0 ? in.type->children[c->arg] : NULL);
        if (!c->type) {
            char *tt = cdc_type_to_string(in.type->children[c->arg]);
            fail_at(sp, w, ac.aggs[a].arg->line, ac.aggs[a].arg->col,
                    "%s cannot take an argument of type %s", c->text, tt);
            free(tt);
            cdc_buf_free(&pb);
            cdc_buf_free(&sel);
            goto out;
        }
        /* Flink's names of a window's results: w0$o0, w0$o1, ... */
        snprintf(ac.agg_name[a], sizeof(ac.agg_name[a]), "w0$o%d", a);
        cdc_type_row_add(op->out_type, ac.agg_name[a], cdc_type_copy(c->type));
        cdc_buf_printf(&sel, ", %s AS %s", c->text, ac.agg_name[a]);
    }
    op->mode = CDC_MODE_INSERT_ONLY;
    char bound[64];
    if (preceding < 0)
        snprintf(bound, sizeof(bound), "UNBOUNDED PRECEDING");
    else if (preceding == 0)
        snprintf(bound, sizeof(bound), "CURRENT ROW");
    else
        snprintf(bound, sizeof(bound), "%lld PRECEDING", (long long)preceding);
    op->explain = cdc_strdup_printf(
        "OverAggregate(%s%s%sorderBy=[%s ASC], window=[ %s BETWEEN %s AND CURRENT ROW], "
        "select=[%s], changelogMode=[I])",
        op->npart ? "partitionBy=[" : "", cdc_buf_cstr(&pb), op->npart ? "], " : "",
        in.type->names[tf], rows ? "ROWS" : "RANG", bound, cdc_buf_cstr(&sel));
    cdc_buf_free(&pb);
    cdc_buf_free(&sel);
    connect(sp, &in, idx, 0);
    rel_free(r);
    rel_of_op(sp, idx, r);
    for (size_t i = 0; i < pq->nitems; i++)
        walk_slots(&pq->items[i].expr, replace_over, &ac);
    *post = pq;
    rc = 0;
out:
    rel_free(&in);
    free(oc.key);
    for (int a = 0; a < ac.naggs; a++)
        free(ac.aggs[a].text);
    return rc;
}

/* A level that groups by a group window (Flink's deprecated GROUP BY TUMBLE(ts, INTERVAL ...),
 * HOP(ts, slide, size)) as the aggregation of its window table function: FROM TABLE(TUMBLE(TABLE
 * t, DESCRIPTOR(ts), size)) GROUP BY window_start, window_end [, window_time], the other keys.
 * *out is the rewritten level (kept until planning ends); 0 when there is no group window, 1,
 * or -1 with the error. */
static int group_window_query(sp_t *sp, const where_t *w, const cdc_sql_query_t *q,
                              cdc_sql_query_t **out)
{
    gw_ctx_t gc = {.sp = sp, .w = w};
    int kind = 0;
    for (size_t i = 0; i < q->ngroup_by; i++) {
        const cdc_sql_expr_t *e = q->group_by[i];
        if (e->kind != CDC_SQL_EXPR_CALL || e->call.over || !e->call.name)
            continue;
        int k = strcasecmp(e->call.name, "TUMBLE") == 0    ? CDC_SQL_TVF_TUMBLE
                : strcasecmp(e->call.name, "HOP") == 0     ? CDC_SQL_TVF_HOP
                : strcasecmp(e->call.name, "SESSION") == 0 ? -1
                                                           : 0;
        if (!k)
            continue;
        if (gc.win)
            return fail_at(sp, w, e->line, e->col, "a query groups by one group window at most");
        if (k < 0) {
            fail_at(sp, w, e->line, e->col, "a SESSION group window is not supported yet");
            cdc_error_set_hint(*sp->err, "TUMBLE and HOP group windows are, and the window "
                                         "table functions TUMBLE, HOP and CUMULATE");
            return -1;
        }
        gc.win = e;
        kind = k;
    }
    if (!gc.win)
        return 0;
    const cdc_sql_expr_t *win = gc.win;
    size_t want = kind == CDC_SQL_TVF_HOP ? 3 : 2;
    if (win->call.nargs != want || win->call.args[0]->kind != CDC_SQL_EXPR_COLUMN)
        return fail_at(sp, w, win->line, win->col, "%s",
                       kind == CDC_SQL_TVF_HOP
                           ? "a HOP group window takes a time attribute, the slide and the size: "
                             "HOP(ts, INTERVAL '5' MINUTE, INTERVAL '1' HOUR)"
                           : "a TUMBLE group window takes a time attribute and the size: "
                             "TUMBLE(ts, INTERVAL '10' MINUTE)");
    if (q->ngroup_sets)
        return fail_at(sp, w, q->group_line, q->group_col,
                       "GROUPING SETS together with a group window is not supported yet");
    if (q->from.subquery || q->from.tvf || q->njoins || !q->from.name.nparts)
        return fail_at(sp, w, win->line, win->col,
                       "a group window over a join or a subquery is not supported yet; group "
                       "a table's rows");
    cdc_sql_query_t *nq = new_query(sp, q->line, q->col);
    const cdc_sql_expr_t *tcol = win->call.args[0];
    cdc_sql_window_tvf_t *tv = cdc_xcalloc(1, sizeof(*tv));
    tv->kind = kind;
    tv->data = q->from.name;
    tv->timecol.name = cdc_xstrdup(tcol->column.parts[tcol->column.nparts - 1]);
    tv->timecol.line = tcol->line;
    tv->timecol.col = tcol->col;
    tv->size = win->call.args[want - 1];
    tv->step = kind == CDC_SQL_TVF_HOP ? win->call.args[1] : NULL;
    tv->line = win->line;
    tv->col = win->col;
    nq->from = q->from;
    nq->from.tvf = tv;
    nq->from.alias = q->from.alias ? cdc_xstrdup(q->from.alias) : NULL;
    for (int k = 0; k < q->from.name.nparts; k++)
        nq->from.name.parts[k] = cdc_xstrdup(q->from.name.parts[k]);
    if (q->nctes) {
        nq->ctes = cdc_xcalloc(q->nctes, sizeof(*nq->ctes));
        memcpy(nq->ctes, q->ctes, q->nctes * sizeof(*nq->ctes));
        nq->nctes = q->nctes;
    }
    nq->hints = q->hints;
    nq->where = q->where;
    nq->order_by = q->order_by;
    nq->norder_by = q->norder_by;
    nq->order_line = q->order_line;
    nq->order_col = q->order_col;
    nq->has_limit = q->has_limit;
    nq->limit = q->limit;
    nq->limit_line = q->limit_line;
    nq->limit_col = q->limit_col;
    nq->group_line = q->group_line;
    nq->group_col = q->group_col;
    nq->having_line = q->having_line;
    nq->having_col = q->having_col;
    nq->items = cdc_xcalloc(q->nitems + 1, sizeof(*nq->items));
    for (size_t i = 0; i < q->nitems; i++) {
        const cdc_sql_select_item_t *it = &q->items[i];
        cdc_sql_expr_t *e = keep_expr(sp, cdc_sql_expr_clone(it->expr));
        /* named as Flink names them: an expression's column is EXPR$<i> */
        char *alias = it->alias                               ? cdc_xstrdup(it->alias)
                      : it->expr->kind == CDC_SQL_EXPR_COLUMN ? NULL
                                                              : cdc_strdup_printf("EXPR$%zu", i);
        nq->items[nq->nitems++] = (cdc_sql_select_item_t){.expr = e, .alias = alias};
        if (walk_slots(&nq->items[i].expr, replace_window_aux, &gc) < 0)
            return -1;
    }
    if (q->having) {
        nq->having = keep_expr(sp, cdc_sql_expr_clone(q->having));
        if (walk_slots(&nq->having, replace_window_aux, &gc) < 0)
            return -1;
    }
    nq->group_by = cdc_xcalloc(q->ngroup_by + 3, sizeof(*nq->group_by));
    for (size_t i = 0; i < q->ngroup_by; i++)
        if (q->group_by[i] != win)
            nq->group_by[nq->ngroup_by++] = q->group_by[i];
    static const char *const wcols[] = {"window_start", "window_end", "window_time"};
    for (int k = 0; k < (gc.uses_time ? 3 : 2); k++)
        nq->group_by[nq->ngroup_by++] = keep_expr(sp, col_ref(wcols[k], win->line, win->col));
    *out = nq;
    return 1;
}

/* The post-query over @p t that selects its first @p n columns as they are. */
static cdc_sql_query_t *identity_query(sp_t *sp, const cdc_sql_query_t *q, const cdc_type_t *t,
                                       int n)
{
    cdc_sql_query_t *pq = new_query(sp, q->line, q->col);
    pq->items = cdc_xcalloc((size_t)n + 1, sizeof(*pq->items));
    for (int f = 0; f < n; f++)
        pq->items[pq->nitems++] =
            (cdc_sql_select_item_t){.expr = keep_expr(sp, col_ref(t->names[f], q->line, q->col))};
    return pq;
}

/* ORDER BY ... LIMIT n (a Top-N over the whole result, Flink's SortLimit): the level's rows
 * so far as a Calc, ranked, and a post-query without the rank. */
static int plan_sort_limit(sp_t *sp, const where_t *w, const cdc_sql_query_t *q, rel_t *r,
                           cdc_sql_query_t **post)
{
    rel_t c = {0};
    if (make_calc(sp, w, r, *post, &c, "Calc") < 0)
        return -1;
    cdc_op_t *op = cdc_xcalloc(1, sizeof(*op));
    int idx = add_op(sp, op);
    op->kind = CDC_OP_RANK;
    op->in_type[0] = (cdc_type_t *)c.type;
    op->limit = q->limit;
    op->emit_rn = true;
    op->part = cdc_xcalloc(1, sizeof(int));
    cdc_buf_t ob = {0};
    int rc = -1;
    if (order_fields(sp, w, q, c.type, op, &ob, "ORDER BY ... LIMIT") < 0)
        goto out;
    op->out_type = cdc_type_copy(c.type);
    char rn[64] = "$rn";
    for (int k = 0; cdc_type_field_index(op->out_type, rn) >= 0; k++)
        snprintf(rn, sizeof(rn), "$rn%d", k);
    cdc_type_t *bt = cdc_type_new(CDC_T_BIGINT);
    bt->nullable = false;
    cdc_type_row_add(op->out_type, rn, bt);
    op->mode = CDC_MODE_ALL;
    op->nukey = 1;
    op->ukey = cdc_xcalloc(1, sizeof(int));
    op->ukey[0] = op->out_type->nchildren - 1;
    op->explain = cdc_strdup_printf("SortLimit(orderBy=[%s], offset=[0], fetch=[%lld], "
                                    "changelogMode=[I,UB,UA,D])",
                                    cdc_buf_cstr(&ob), (long long)q->limit);
    connect(sp, &c, idx, 0);
    rel_free(r);
    rel_of_op(sp, idx, r);
    *post = identity_query(sp, q, c.type, c.type->nchildren);
    rc = 0;
out:
    cdc_buf_free(&ob);
    rel_free(&c);
    return rc;
}

/* ORDER BY without LIMIT (Flink's TemporalSort): the first key an event-time attribute of the
 * table the level reads, ascending, its rows append-only; they are held until the watermark
 * passes their time, then emitted in the keys' order. Anything else is Flink's error. */
static int plan_temporal_sort(sp_t *sp, const where_t *w, const cdc_sql_query_t *q, rel_t *r,
                              cdc_sql_query_t **post)
{
    static const char non_time[] = "Sort on a non-time-attribute field is not supported: ORDER "
                                   "BY needs a LIMIT here (a Top-N)";
    cdc_graph_t *g = sp->g;
    const cdc_table_def_t *def = NULL;
    cdc_error_t *ignored = NULL;
    if (r->op >= 0 || q->from.subquery || !q->from.name.nparts ||
        cdc_catalog_find(sp->penv->cat, &q->from.name, &def, NULL, &ignored) <= 0 || !def) {
        cdc_error_destroy(ignored);
        return fail_at(sp, w, q->order_line, q->order_col, "%s", non_time);
    }
    /* an ORDER BY column the select list leaves out is carried through the sort, then dropped */
    cdc_sql_query_t *pq = *post;
    int nvis = -1;
    bool star = false;
    for (size_t i = 0; i < pq->nitems; i++)
        star |= pq->items[i].expr->kind == CDC_SQL_EXPR_STAR;
    for (size_t k = 0; k < q->norder_by && !star; k++) {
        const cdc_sql_expr_t *e = q->order_by[k].expr;
        if (e->kind != CDC_SQL_EXPR_COLUMN)
            continue;
        const char *name = e->column.parts[e->column.nparts - 1];
        bool shown = false;
        for (size_t i = 0; i < pq->nitems && !shown; i++) {
            const cdc_sql_select_item_t *it = &pq->items[i];
            const char *n = it->alias ? it->alias
                            : it->expr->kind == CDC_SQL_EXPR_COLUMN
                                ? it->expr->column.parts[it->expr->column.nparts - 1]
                                : NULL;
            shown = n && strcmp(n, name) == 0;
        }
        if (shown || cdc_type_field_index(r->type, name) < 0)
            continue;
        if (nvis < 0)
            nvis = (int)pq->nitems;
        pq->items = cdc_xrealloc(pq->items, sizeof(*pq->items) * (pq->nitems + 1));
        pq->items[pq->nitems++] =
            (cdc_sql_select_item_t){.expr = keep_expr(sp, col_ref(name, e->line, e->col))};
    }
    rel_t c = {0};
    if (make_calc(sp, w, r, pq, &c, "Calc") < 0)
        return -1;
    if (nvis < 0)
        nvis = c.type->nchildren;
    cdc_op_t *op = cdc_xcalloc(1, sizeof(*op));
    int idx = add_op(sp, op);
    op->kind = CDC_OP_SORT;
    op->in_type[0] = (cdc_type_t *)c.type;
    cdc_buf_t ob = {0};
    int rc = -1;
    if (order_fields(sp, w, q, c.type, op, &ob, "ORDER BY") < 0)
        goto out;
    /* the first key: the leaf's watermark column, selected as it is */
    op->timecol = op->order[0];
    int lf = cdc_expr_column_index(g->ops[c.op]->stage.items[op->timecol]);
    const cdc_type_t *tt = c.type->children[op->timecol];
    bool rowtime = lf >= 0 && def->watermark_column &&
                   strcmp(r->type->names[lf], def->watermark_column) == 0 &&
                   (tt->root == CDC_T_TIMESTAMP || tt->root == CDC_T_TIMESTAMP_LTZ);
    if (!rowtime && lf >= 0 && leaf_proctime(sp, r, lf)) {
        fail_at(sp, w, q->order_line, q->order_col,
                "ORDER BY a processing-time attribute (without LIMIT) is not supported yet");
        cdc_error_set_hint(*sp->err, "order by an event-time attribute (a column with WATERMARK "
                                     "FOR it), or add a LIMIT (a Top-N)");
        goto out;
    }
    if (!rowtime || op->desc[0]) {
        fail_at(sp, w, q->order_line, q->order_col, "%s", non_time);
        if (rowtime)
            cdc_error_set_hint(*sp->err, "a time attribute is sorted ascending only");
        goto out;
    }
    if (r->mode != CDC_MODE_INSERT_ONLY) {
        char mb[16];
        fail_at(sp, w, q->order_line, q->order_col,
                "TemporalSort doesn't support consuming update and delete changes, which table "
                "\"%s\" produces (changelogMode=%s)",
                def->qualified, cdc_changelog_mode_str(r->mode, mb));
        goto out;
    }
    if (compile_leaf_wm(sp, def, r) < 0)
        goto out;
    op->out_type = cdc_type_copy(c.type);
    op->mode = CDC_MODE_INSERT_ONLY;
    op->explain = cdc_strdup_printf("TemporalSort(orderBy=[%s])", cdc_buf_cstr(&ob));
    connect(sp, &c, idx, 0);
    rel_free(r);
    rel_of_op(sp, idx, r);
    *post = identity_query(sp, q, c.type, nvis);
    rc = 0;
out:
    cdc_buf_free(&ob);
    rel_free(&c);
    return rc;
}

/* ---- set operators: UNION, INTERSECT, EXCEPT [ALL] ---------------------------------------- */

/* @p in with its columns cast to @p to (a Calc), or as it is when it has those types already. */
static int cast_rel(sp_t *sp, const where_t *w, int line, int col, rel_t *in, const cdc_type_t *to,
                    const cdc_type_t *names)
{
    bool same = true;
    for (int f = 0; f < to->nchildren; f++)
        same = same && cdc_type_equals(in->type->children[f], to->children[f]) &&
               strcmp(in->type->names[f], names->names[f]) == 0;
    if (same)
        return 0;
    cdc_sql_query_t *q = new_query(sp, line, col);
    q->items = cdc_xcalloc((size_t)to->nchildren + 1, sizeof(*q->items));
    for (int f = 0; f < to->nchildren; f++) {
        cdc_sql_expr_t *e = keep_expr(sp, col_ref(in->type->names[f], line, col));
        if (!cdc_type_equals(in->type->children[f], to->children[f])) {
            cdc_sql_expr_t *c = cdc_xcalloc(1, sizeof(*c));
            c->kind = CDC_SQL_EXPR_CAST;
            c->line = line;
            c->col = col;
            c->cast.operand = cdc_sql_expr_clone(e);
            c->cast.type.text = cdc_type_to_string(to->children[f]);
            e = keep_expr(sp, c);
        }
        q->items[q->nitems++] =
            (cdc_sql_select_item_t){.expr = e, .alias = cdc_xstrdup(names->names[f])};
    }
    rel_t out = {0};
    if (make_calc(sp, w, in, q, &out, "Calc") < 0)
        return -1;
    rel_free(in);
    *in = out;
    return 0;
}

/* The rows of an operand of a set operator: @p q (a query) as a relation. */
static int plan_operand(sp_t *sp, const where_t *w, const cdc_sql_query_t *q, rel_t *out)
{
    cdc_sql_table_ref_t ref = {0};
    ref.subquery = (cdc_sql_query_t *)q;
    ref.name.line = q->line;
    ref.name.col = q->col;
    const char *qual;
    return plan_input(sp, &ref, w, NULL, out, &qual);
}

/* The expression of SQL text @p text (the planner's own, over known names), kept; NULL with
 * *sp->err when it does not parse. */
static cdc_sql_expr_t *expr_of_text(sp_t *sp, const char *text)
{
    char *sql = cdc_strdup_printf("SELECT %s", text);
    cdc_sql_script_t *script = NULL;
    cdc_sql_expr_t *e = NULL;
    if (cdc_sql_parse(sql, strlen(sql), "<stateful>", &script, sp->err) == 0) {
        cdc_sql_query_t *q = script->stmts[0]->query;
        e = keep_expr(sp, q->items[0].expr);
        q->items[0].expr = NULL;
    }
    cdc_sql_script_destroy(script);
    free(sql);
    return e;
}

/* A Calc over @p in: its columns, then @p extra (SQL text over them, named @p names). */
static int calc_extra(sp_t *sp, const where_t *w, int line, int col, rel_t *in,
                      const char *const *extra, const char *const *names, int nextra)
{
    cdc_sql_query_t *q = new_query(sp, line, col);
    int nf = in->type->nchildren;
    q->items = cdc_xcalloc((size_t)(nf + nextra + 1), sizeof(*q->items));
    for (int f = 0; f < nf; f++)
        q->items[q->nitems++] =
            (cdc_sql_select_item_t){.expr = keep_expr(sp, col_ref(in->type->names[f], line, col)),
                                    .alias = cdc_xstrdup(in->type->names[f])};
    for (int i = 0; i < nextra; i++) {
        cdc_sql_expr_t *e = expr_of_text(sp, extra[i]);
        if (!e)
            return -1;
        q->items[q->nitems++] = (cdc_sql_select_item_t){.expr = e, .alias = cdc_xstrdup(names[i])};
    }
    rel_t out = {0};
    if (make_calc(sp, w, in, q, &out, "Calc") < 0)
        return -1;
    rel_free(in);
    *in = out;
    return 0;
}

/* A GroupAggregate over every column of @p r (a distinct), with COUNT(arg) calls for the
 * fields @p count_args (named @p count_names). */
static void make_distinct(sp_t *sp, rel_t *r, int ngroup, const int *count_args,
                          const char *const *count_names, int ncount)
{
    cdc_op_t *op = cdc_xcalloc(1, sizeof(*op));
    int idx = add_op(sp, op);
    op->kind = CDC_OP_AGG;
    op->in_type[0] = (cdc_type_t *)r->type;
    op->out_type = cdc_type_new_row();
    op->out_type->nullable = false;
    op->ngroup = ngroup;
    op->group = cdc_xcalloc((size_t)ngroup + 1, sizeof(int));
    cdc_buf_t gb = {0}, sel = {0};
    for (int g = 0; g < ngroup; g++) {
        op->group[g] = g;
        cdc_type_row_add(op->out_type, r->type->names[g], cdc_type_copy(r->type->children[g]));
        cdc_buf_printf(&gb, "%s%s", g ? ", " : "", r->type->names[g]);
    }
    cdc_buf_puts(&sel, cdc_buf_cstr(&gb));
    op->aggs = cdc_xcalloc((size_t)ncount + 1, sizeof(*op->aggs));
    for (int a = 0; a < ncount; a++) {
        cdc_agg_call_t *c = &op->aggs[op->naggs++];
        c->fn = CDC_AGG_COUNT;
        c->arg = count_args[a];
        c->text = cdc_strdup_printf("COUNT(%s)", r->type->names[c->arg]);
        c->type = agg_type(CDC_AGG_COUNT, NULL);
        cdc_type_row_add(op->out_type, count_names[a], cdc_type_copy(c->type));
        cdc_buf_printf(&sel, ", %s AS %s", c->text, count_names[a]);
    }
    op->mode = CDC_MODE_ALL;
    op->nukey = ngroup;
    op->ukey = ints_dup(op->group, ngroup);
    op->explain = cdc_strdup_printf("GroupAggregate(groupBy=[%s], select=[%s], "
                                    "changelogMode=[I,UB,UA,D])",
                                    cdc_buf_cstr(&gb), cdc_buf_cstr(&sel));
    cdc_buf_free(&gb);
    cdc_buf_free(&sel);
    connect(sp, r, idx, 0);
    rel_free(r);
    rel_of_op(sp, idx, r);
}

/* What a semi (anti) join matches on: key pairs, and the other condition over the left's fields
 * then the right's (cond_type), printed as @p where. The arrays, cond and cond_type go to the
 * operator. */
typedef struct semi_spec {
    bool anti, null_safe;
    int nkeys;
    int *lkeys, *rkeys;
    cdc_expr_t *cond; /* NULL when none */
    cdc_type_t *cond_type;
    const char *where;
} semi_spec_t;

/* How Flink's plans say a join input's rows are unique: by the join key, by a key, or not. */
static const char *input_spec(const rel_t *r, const int *keys, int nkeys)
{
    bool in_key = r->nukey > 0;
    for (int u = 0; u < r->nukey; u++) {
        bool in = false;
        for (int k = 0; k < nkeys; k++)
            in = in || keys[k] == r->ukey[u];
        in_key = in_key && in;
    }
    return in_key ? "JoinKeyContainsUniqueKey" : r->nukey > 0 ? "HasUniqueKey" : "NoUniqueKey";
}

/* A semi (anti) join: the left rows while they match some (no) right row; *left becomes it. */
static void make_semi_join(sp_t *sp, rel_t *left, rel_t *right, const semi_spec_t *s)
{
    cdc_op_t *op = cdc_xcalloc(1, sizeof(*op));
    int idx = add_op(sp, op);
    op->kind = CDC_OP_JOIN;
    op->join_kind = CDC_SQL_JOIN_INNER;
    op->semi = !s->anti;
    op->anti = s->anti;
    op->null_safe = s->null_safe;
    op->in_type[0] = (cdc_type_t *)left->type;
    op->in_type[1] = (cdc_type_t *)right->type;
    op->out_type = cdc_type_copy(left->type);
    op->nkeys = s->nkeys;
    op->lkeys = s->lkeys;
    op->rkeys = s->rkeys;
    op->cond = s->cond;
    op->cond_type = s->cond_type;
    op->ukey = ints_dup(left->ukey, left->nukey);
    op->nukey = left->nukey;
    op->mode = left->mode == CDC_MODE_INSERT_ONLY && right->mode == CDC_MODE_INSERT_ONLY && !s->anti
                   ? CDC_MODE_INSERT_ONLY
                   : (CDC_MODE_BIT(CDC_INSERT) | CDC_MODE_BIT(CDC_DELETE));
    cdc_buf_t sel = {0};
    for (int f = 0; f < left->type->nchildren; f++)
        cdc_buf_printf(&sel, "%s%s", f ? ", " : "", left->type->names[f]);
    char mb[16];
    op->explain = cdc_strdup_printf(
        "Join(joinType=[%s], where=[%s], select=[%s], leftInputSpec=[%s], rightInputSpec=[%s], "
        "changelogMode=%s)",
        s->anti ? "LeftAntiJoin" : "LeftSemiJoin", s->where, cdc_buf_cstr(&sel),
        input_spec(left, s->lkeys, s->nkeys), input_spec(right, s->rkeys, s->nkeys),
        cdc_changelog_mode_str(op->mode, mb));
    cdc_buf_free(&sel);
    connect(sp, left, idx, 0);
    connect(sp, right, idx, 1);
    rel_free(left);
    rel_free(right);
    rel_of_op(sp, idx, left);
}

/* The right side's name of left field name @p n as Flink prints it: n0 for n (in @p buf). */
static const char *right_name(const cdc_type_t *left, const char *n, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", n);
    for (int k = 0; cdc_type_field_index(left, buf) >= 0; k++)
        snprintf(buf, cap, "%s%d", n, k);
    return buf;
}

/* INTERSECT and EXCEPT: a semi (anti) join of the left rows with the right on every column, NULL
 * matching NULL (IS NOT DISTINCT FROM), as Flink plans them. */
static void make_set_join(sp_t *sp, rel_t *left, rel_t *right, bool anti)
{
    int n = left->type->nchildren;
    semi_spec_t s = {.anti = anti, .null_safe = true, .nkeys = n};
    s.lkeys = cdc_xcalloc((size_t)n, sizeof(int));
    s.rkeys = cdc_xcalloc((size_t)n, sizeof(int));
    cdc_buf_t where = {0};
    cdc_buf_puts(&where, n > 1 ? "AND(" : "");
    for (int f = 0; f < n; f++) {
        s.lkeys[f] = s.rkeys[f] = f;
        char rn[256];
        cdc_buf_printf(&where, "%sIS NOT DISTINCT FROM(%s, %s)", f ? ", " : "",
                       left->type->names[f],
                       right_name(left->type, right->type->names[f], rn, sizeof(rn)));
    }
    cdc_buf_puts(&where, n > 1 ? ")" : "");
    s.where = cdc_buf_cstr(&where);
    make_semi_join(sp, left, right, &s);
    cdc_buf_free(&where);
}

/* $REPLICATE_ROWS$: each row (count, fields...) as count copies of its fields. */
static void make_replicate(sp_t *sp, rel_t *r)
{
    cdc_op_t *op = cdc_xcalloc(1, sizeof(*op));
    int idx = add_op(sp, op);
    op->kind = CDC_OP_REPLICATE;
    op->in_type[0] = (cdc_type_t *)r->type;
    op->out_type = cdc_type_new_row();
    op->out_type->nullable = false;
    cdc_buf_t sel = {0};
    for (int f = 1; f < r->type->nchildren; f++) {
        cdc_type_row_add(op->out_type, r->type->names[f], cdc_type_copy(r->type->children[f]));
        cdc_buf_printf(&sel, "%s%s", f > 1 ? ", " : "", r->type->names[f]);
    }
    op->mode = CDC_MODE_BIT(CDC_INSERT) | CDC_MODE_BIT(CDC_DELETE);
    char mb[16];
    op->explain = cdc_strdup_printf("Correlate(invocation=[$REPLICATE_ROWS$(%s, %s)], "
                                    "select=[%s], changelogMode=%s)",
                                    r->type->names[0], cdc_buf_cstr(&sel), cdc_buf_cstr(&sel),
                                    cdc_changelog_mode_str(op->mode, mb));
    cdc_buf_free(&sel);
    connect(sp, r, idx, 0);
    rel_free(r);
    rel_of_op(sp, idx, r);
}

/* q UNION | INTERSECT | EXCEPT [ALL] q->set_rhs, as Flink plans them:
 *   UNION          Union of both, GroupAggregate over every column;
 *   INTERSECT      GroupAggregate over a LeftSemiJoin of the left with the right on every column;
 *   EXCEPT         the same over a LeftAntiJoin;
 *   INTERSECT ALL, EXCEPT ALL: Union of both with a marker column per side, GroupAggregate
 *                  counting each side's rows per distinct row, then as many copies of the row as
 *                  min(left, right) (left - right) ($REPLICATE_ROWS$).
 * NULLs compare equal. The result's columns are the left's names with the common types. */
static int plan_set_op(sp_t *sp, const cdc_sql_query_t *q, const where_t *w, rel_t *out,
                       cdc_sql_query_t **post)
{
    static const char *const op_names[] = {"", "UNION", "INTERSECT", "EXCEPT"};
    char what[32];
    snprintf(what, sizeof(what), "%s%s", op_names[q->set_op], q->set_all ? " ALL" : "");
    int line = q->set_line, col = q->set_col;
    cdc_sql_query_t *lq = shallow_copy(sp, q);
    lq->set_op = CDC_SQL_SET_NONE;
    lq->set_rhs = NULL;
    lq->set_all = false;
    int saved = sp->nctes;
    push_ctes(sp, q);
    rel_t side[2] = {{0}, {0}};
    int rc = -1;
    if (plan_operand(sp, w, lq, &side[0]) < 0 || plan_operand(sp, w, q->set_rhs, &side[1]) < 0)
        goto out;
    const cdc_type_t *types[2] = {side[0].type, side[1].type};
    cdc_type_t *common = NULL;
    if (common_row(sp, w, line, col, types, 2, what, "operand", &common) < 0)
        goto out;
    cdc_type_t *names = cdc_type_copy(side[0].type);
    const cdc_type_t *to = common ? common : names;
    int crc = cast_rel(sp, w, line, col, &side[0], to, names);
    if (crc == 0)
        crc = cast_rel(sp, w, line, col, &side[1], to, names);
    cdc_type_destroy(common);
    cdc_type_destroy(names);
    if (crc < 0)
        goto out;
    int n = side[0].type->nchildren;
    if (q->set_op == CDC_SQL_SET_UNION) {
        rel_t u = {0};
        make_union(sp, side, 2, &u);
        *out = u;
        make_distinct(sp, out, n, NULL, NULL, 0);
    } else if (!q->set_all) {
        make_set_join(sp, &side[0], &side[1], q->set_op == CDC_SQL_SET_EXCEPT);
        *out = side[0];
        side[0] = (rel_t){0};
        make_distinct(sp, out, n, NULL, NULL, 0);
    } else {
        static const char *const mark_names[] = {"vcol_left_marker", "vcol_right_marker"};
        static const char *const marks[2][2] = {{"TRUE", "CAST(NULL AS BOOLEAN)"},
                                                {"CAST(NULL AS BOOLEAN)", "TRUE"}};
        for (int sd = 0; sd < 2; sd++)
            if (calc_extra(sp, w, line, col, &side[sd], marks[sd], mark_names, 2) < 0)
                goto out;
        rel_t u = {0};
        make_union(sp, side, 2, &u);
        *out = u;
        static const char *const cnt_names[] = {"vcol_left_cnt", "vcol_right_cnt"};
        int args[2] = {n, n + 1};
        make_distinct(sp, out, n, args, cnt_names, 2);
        /* the number of copies, then the columns */
        const char *rep = q->set_op == CDC_SQL_SET_INTERSECT
                              ? "CASE WHEN vcol_left_cnt > vcol_right_cnt THEN vcol_right_cnt "
                                "ELSE vcol_left_cnt END"
                              : "CASE WHEN vcol_left_cnt > vcol_right_cnt THEN vcol_left_cnt - "
                                "vcol_right_cnt ELSE 0 END";
        const char *rep_name = "$rows";
        rel_t cr = *out;
        *out = (rel_t){0};
        cdc_sql_query_t *cq = new_query(sp, line, col);
        cq->items = cdc_xcalloc((size_t)n + 2, sizeof(*cq->items));
        cdc_sql_expr_t *re = expr_of_text(sp, rep);
        if (!re) {
            rel_free(&cr);
            goto out;
        }
        cq->items[cq->nitems++] =
            (cdc_sql_select_item_t){.expr = re, .alias = cdc_xstrdup(rep_name)};
        for (int f = 0; f < n; f++)
            cq->items[cq->nitems++] = (cdc_sql_select_item_t){
                .expr = keep_expr(sp, col_ref(cr.type->names[f], line, col)),
                .alias = cdc_xstrdup(cr.type->names[f])};
        int mrc = make_calc(sp, w, &cr, cq, out, "Calc");
        rel_free(&cr);
        if (mrc < 0)
            goto out;
        make_replicate(sp, out);
    }
    /* the post-query: every column */
    cdc_sql_query_t *pq = new_query(sp, q->line, q->col);
    pq->items = cdc_xcalloc((size_t)out->type->nchildren + 1, sizeof(*pq->items));
    for (int f = 0; f < out->type->nchildren; f++)
        pq->items[pq->nitems++] = (cdc_sql_select_item_t){
            .expr = keep_expr(sp, col_ref(out->type->names[f], q->line, q->col)),
            .alias = cdc_xstrdup(out->type->names[f])};
    *post = pq;
    rc = 0;
out:
    rel_free(&side[0]);
    rel_free(&side[1]);
    sp->nctes = saved;
    return rc;
}

/* ---- subquery predicates in WHERE: [NOT] IN (SELECT ...), [NOT] EXISTS (SELECT ...) ------- */

/* Whether subquery @p q is one level over tables and joins (no GROUP BY, DISTINCT, Top-N, set
 * operator...), whose WHERE may name the enclosing query's columns. */
static bool simple_subquery(const cdc_sql_query_t *q)
{
    if (q->set_op || q->union_all || q->nrows || q->from.tvf ||
        (q->from.name.nparts == 0 && !q->from.subquery) || q->ngroup_by || q->having ||
        q->distinct || q->norder_by || q->has_limit)
        return false;
    find_ctx_t f = {0};
    level_calls(q, &f);
    return !f.agg && !f.over;
}

/* A correlated condition's references: the subquery's columns first, then the enclosing
 * query's. The first pass marks the subquery's columns it names, the second renames every
 * reference to its field of cond_type (the enclosing query's fields, then the right side's). */
typedef struct corr_ctx {
    refs_ctx_t in, out;
    bool *used;
    const int *pos; /* second pass: the subquery's field -> its column of the right side */
    const cdc_type_t *cond_type;
    int nl;
} corr_ctx_t;

static int corr_fn(cdc_sql_expr_t **slot, void *ctx)
{
    corr_ctx_t *cc = ctx;
    cdc_sql_expr_t *e = *slot;
    if (e->kind != CDC_SQL_EXPR_COLUMN)
        return 0;
    sp_t *sp = cc->in.sp;
    int field = -1;
    size_t used = 1;
    bool inner = resolve_ref(&cc->in, e, &field, &used) == 0;
    if (!inner) {
        cdc_error_destroy(*sp->err);
        *sp->err = NULL;
        if (resolve_ref(&cc->out, e, &field, &used) < 0)
            return -1;
    }
    if (!cc->pos) {
        if (inner)
            cc->used[field] = true;
        return 1;
    }
    rename_ref(e, used, cc->cond_type->names[inner ? cc->nl + cc->pos[field] : field]);
    return 1;
}

/* A binary node @p l op @p r (taken) at line:col. */
static cdc_sql_expr_t *binary_new(cdc_sql_binary_op_t bop, cdc_sql_expr_t *l, cdc_sql_expr_t *r,
                                  int line, int col)
{
    cdc_sql_expr_t *e = cdc_xcalloc(1, sizeof(*e));
    e->kind = CDC_SQL_EXPR_BINARY;
    e->binary.op = bop;
    e->binary.left = l;
    e->binary.right = r;
    e->line = line;
    e->col = col;
    return e;
}

static int plan_subquery_pred(sp_t *sp, const where_t *w, const cdc_sql_expr_t *e, bool anti,
                              rel_t *left, const scope_t *sc);

/* The subquery's rows when it is one level (simple_subquery): its FROM and joins filtered by the
 * conditions of its WHERE that name only its columns, with IN's columns first (*nin of them),
 * then the columns its other conditions (the correlated ones, into corr[]) name, at pos[field]. */
static int plan_correlated(sp_t *sp, const where_t *w, const cdc_sql_query_t *sq, bool is_in,
                           const scope_t *sc, rel_t *right, scope_t *isc, int *nin,
                           cdc_sql_expr_t **corr, int *ncorr, int **pos)
{
    rel_t inner = {0};
    const char *qual;
    if (plan_input(sp, &sq->from, w, sq->where, &inner, &qual) < 0)
        return -1;
    isc->type = inner.type;
    for (int f = 0; f < inner.type->nchildren; f++)
        scope_add(isc, qual, inner.type->names[f], f);
    for (size_t j = 0; j < sq->njoins; j++) {
        scope_t next = {0};
        int jr = plan_join(sp, w, &sq->joins[j], sq->where, &inner, isc, &next);
        free(isc->cols);
        *isc = next;
        if (jr < 0) {
            rel_free(&inner);
            return -1;
        }
    }
    cdc_sql_query_t *iq = new_query(sp, sq->line, sq->col);
    cdc_sql_expr_t *conj[64];
    int n = 0;
    split_and(sq->where, conj, &n, 64);
    int rc = -1, ni = inner.type->nchildren;
    bool *used = cdc_xcalloc((size_t)ni + 1, sizeof(bool));
    for (int i = 0; i < n; i++) {
        bool anti;
        const cdc_sql_expr_t *p = subquery_pred(conj[i], &anti);
        if (p) { /* its own subquery predicate: a semi (anti) join of its rows */
            if (plan_subquery_pred(sp, w, p, anti, &inner, isc) < 0)
                goto out;
            isc->type = inner.type;
            continue;
        }
        cdc_sql_expr_t *r = rewrite(sp, w, isc, conj[i]);
        if (r) { /* its own: a filter of its rows */
            iq->where = and_kept(sp, iq->where, r);
            continue;
        }
        cdc_error_destroy(*sp->err);
        *sp->err = NULL;
        cdc_sql_expr_t *c = keep_expr(sp, cdc_sql_expr_clone(conj[i]));
        corr_ctx_t cc = {
            .in = {.sp = sp, .w = w, .sc = isc}, .out = {.sp = sp, .w = w, .sc = sc}, .used = used};
        if (walk_slots(&c, corr_fn, &cc) < 0)
            goto out;
        corr[(*ncorr)++] = conj[i];
    }
    if (is_in && expand_items(sp, w, isc, sq, iq) < 0)
        goto out;
    *nin = (int)iq->nitems;
    iq->items = cdc_xrealloc(iq->items, sizeof(*iq->items) * (iq->nitems + (size_t)ni + 1));
    *pos = cdc_xcalloc((size_t)ni + 1, sizeof(int));
    for (int f = 0; f < ni; f++) {
        if (!used[f])
            continue;
        char alias[256];
        snprintf(alias, sizeof(alias), "%s", inner.type->names[f]);
        for (int k = 0; k < *nin; k++)
            if (iq->items[k].alias && strcmp(iq->items[k].alias, alias) == 0) {
                snprintf(alias, sizeof(alias), "%s_%d", inner.type->names[f], f);
                break;
            }
        (*pos)[f] = (int)iq->nitems;
        iq->items[iq->nitems++] = (cdc_sql_select_item_t){
            .expr = keep_expr(sp, col_ref(inner.type->names[f], sq->line, sq->col)),
            .alias = cdc_xstrdup(alias)};
    }
    if (iq->nitems == 0) { /* EXISTS naming none of its columns: any row counts */
        cdc_sql_expr_t *t = expr_of_text(sp, "TRUE");
        if (!t)
            goto out;
        iq->items[iq->nitems++] = (cdc_sql_select_item_t){.expr = t, .alias = cdc_xstrdup("$f0")};
    }
    rc = make_calc(sp, w, &inner, iq, right, "Calc");
out:
    free(used);
    rel_free(&inner);
    return rc;
}

/* A subquery predicate (a conjunct of WHERE) over @p left, the rows of the enclosing level (scope
 * @p sc), as Flink plans it: a LeftSemiJoin (IN, EXISTS) or LeftAntiJoin (NOT IN, NOT EXISTS) of
 * them with the subquery's rows. IN's operands are compared with the subquery's columns; its
 * WHERE's conditions on its own columns filter it, the others (correlated) compare with the
 * enclosing query's: an equality between a column of each is a join key, the rest the join's
 * condition. NOT IN keeps SQL's three-valued logic as Flink does, a NULL comparison counting as a
 * match (OR(IS NULL(=(x, y)), =(x, y))): a NULL in the subquery leaves no row, a NULL x is kept
 * only while the subquery is empty; x = y is a join key only when both are NOT NULL. */
static int plan_subquery_pred(sp_t *sp, const where_t *w, const cdc_sql_expr_t *e, bool anti,
                              rel_t *left, const scope_t *sc)
{
    bool is_in = e->kind == CDC_SQL_EXPR_IN;
    const cdc_sql_query_t *sq = is_in ? e->in_list.subquery : e->exists.query;
    const char *what = is_in ? (anti ? "NOT IN" : "IN") : (anti ? "NOT EXISTS" : "EXISTS");
    /* IN's operands: x, or each of a row (a, b) */
    cdc_sql_expr_t *const *ops = NULL;
    int nops = 0;
    if (is_in) {
        const cdc_sql_expr_t *o = e->in_list.operand;
        if (o->kind == CDC_SQL_EXPR_CALL && !o->call.over && o->call.nargs > 0 &&
            strcasecmp(o->call.name, "ROW") == 0) {
            ops = o->call.args;
            nops = (int)o->call.nargs;
        } else {
            ops = &e->in_list.operand;
            nops = 1;
        }
    }
    int saved = sp->nctes;
    push_ctes(sp, sq);
    rel_t right = {0};
    scope_t isc = {0};
    cdc_sql_expr_t *corr[64];
    int ncorr = 0, nin = 0, *pos = NULL, rc = -1;
    cdc_type_t *cond_type = NULL;
    semi_spec_t s = {.anti = anti};
    cdc_buf_t wh = {0};
    int npieces = 0;
    if (simple_subquery(sq)) {
        if (plan_correlated(sp, w, sq, is_in, sc, &right, &isc, &nin, corr, &ncorr, &pos) < 0)
            goto out;
    } else { /* a query of its own (GROUP BY, DISTINCT, set operators...), not correlated */
        if (plan_operand(sp, w, sq, &right) < 0) {
            if (*sp->err && !(*sp->err)->hint && strstr((*sp->err)->message, "Column '") &&
                strstr((*sp->err)->message, "not found"))
                cdc_error_set_hint(*sp->err,
                                   "a subquery of %s with GROUP BY, DISTINCT, aggregates, a "
                                   "set operator or ORDER BY cannot name the enclosing query's "
                                   "columns yet (only one over tables and joins can)",
                                   what);
            goto out;
        }
        nin = is_in ? right.type->nchildren : 0;
    }
    if (is_in && nin != nops) {
        fail_at(sp, w, e->line, e->col,
                "%s compares %d value%s with a subquery of %d column%s: the subquery selects "
                "one column per value",
                what, nops, nops == 1 ? "" : "s", nin, nin == 1 ? "" : "s");
        goto out;
    }
    /* the condition's row: the enclosing query's fields, then the right side's */
    int nl = left->type->nchildren, nr = right.type->nchildren;
    cond_type = cdc_type_new_row();
    cond_type->nullable = false;
    for (int f = 0; f < nl; f++)
        cdc_type_row_add(cond_type, left->type->names[f], cdc_type_copy(left->type->children[f]));
    for (int f = 0; f < nr; f++) {
        char rn[256];
        cdc_type_row_add(cond_type, right_name(cond_type, right.type->names[f], rn, sizeof(rn)),
                         cdc_type_copy(right.type->children[f]));
    }
    s.lkeys = cdc_xcalloc((size_t)(nops + ncorr) + 1, sizeof(int));
    s.rkeys = cdc_xcalloc((size_t)(nops + ncorr) + 1, sizeof(int));
    cdc_sql_expr_t *rest = NULL;
    cdc_buf_t pieces = {0};
    for (int i = 0; i < nops; i++) {
        cdc_sql_expr_t *x = rewrite(sp, w, sc, ops[i]);
        if (!x)
            goto out;
        const cdc_type_t *yt = right.type->children[i];
        const char *yn = cond_type->names[nl + i];
        int a = x->kind == CDC_SQL_EXPR_COLUMN && x->column.nparts == 1
                    ? cdc_type_field_index(left->type, x->column.parts[0])
                    : -1;
        bool nullable = a < 0 || left->type->children[a]->nullable || yt->nullable;
        char *xs = a >= 0 ? cdc_xstrdup(x->column.parts[0]) : cdc_sql_expr_to_string(x);
        cdc_buf_printf(&pieces, "%s", npieces++ ? ", " : "");
        if (a >= 0 && keys_comparable(left->type->children[a], yt) && !(anti && nullable)) {
            s.lkeys[s.nkeys] = a;
            s.rkeys[s.nkeys++] = i;
            cdc_buf_printf(&pieces, "=(%s, %s)", xs, yn);
            free(xs);
            continue;
        }
        cdc_sql_expr_t *eq = binary_new(CDC_SQL_BINARY_EQ, cdc_sql_expr_clone(x),
                                        col_ref(yn, e->line, e->col), e->line, e->col);
        if (anti) { /* (x = y) IS NULL OR x = y: a NULL comparison matches */
            cdc_sql_expr_t *isn = cdc_xcalloc(1, sizeof(*isn));
            isn->kind = CDC_SQL_EXPR_IS_NULL;
            isn->line = e->line;
            isn->col = e->col;
            isn->is_null.operand = cdc_sql_expr_clone(eq);
            eq = binary_new(CDC_SQL_BINARY_OR, isn, eq, e->line, e->col);
            cdc_buf_printf(&pieces, "OR(IS NULL(=(%s, %s)), =(%s, %s))", xs, yn, xs, yn);
        } else {
            cdc_buf_printf(&pieces, "=(%s, %s)", xs, yn);
        }
        free(xs);
        rest = and_kept(sp, rest, keep_expr(sp, eq));
    }
    for (int i = 0; i < ncorr; i++) {
        cdc_sql_expr_t *c = keep_expr(sp, cdc_sql_expr_clone(corr[i]));
        corr_ctx_t cc = {.in = {.sp = sp, .w = w, .sc = &isc},
                         .out = {.sp = sp, .w = w, .sc = sc},
                         .pos = pos,
                         .cond_type = cond_type,
                         .nl = nl};
        if (walk_slots(&c, corr_fn, &cc) < 0) {
            cdc_buf_free(&pieces);
            goto out;
        }
        int a = -1, b = -1;
        if (c->kind == CDC_SQL_EXPR_BINARY && c->binary.op == CDC_SQL_BINARY_EQ &&
            c->binary.left->kind == CDC_SQL_EXPR_COLUMN && c->binary.left->column.nparts == 1 &&
            c->binary.right->kind == CDC_SQL_EXPR_COLUMN && c->binary.right->column.nparts == 1) {
            a = cdc_type_field_index(cond_type, c->binary.left->column.parts[0]);
            b = cdc_type_field_index(cond_type, c->binary.right->column.parts[0]);
            if (a >= nl && b < nl) {
                int t = a;
                a = b;
                b = t;
            }
        }
        cdc_buf_printf(&pieces, "%s", npieces++ ? ", " : "");
        if (a >= 0 && a < nl && b >= nl &&
            keys_comparable(cond_type->children[a], cond_type->children[b])) {
            s.lkeys[s.nkeys] = a;
            s.rkeys[s.nkeys++] = b - nl;
            cdc_buf_printf(&pieces, "=(%s, %s)", cond_type->names[a], cond_type->names[b]);
            continue;
        }
        char *t = cdc_sql_expr_to_string(c);
        cdc_buf_puts(&pieces, t);
        free(t);
        rest = and_kept(sp, rest, c);
    }
    if (rest) {
        cdc_expr_env_t env = {.row_type = cond_type,
                              .udf_lookup = cdc_plan_udf_lookup,
                              .udf_ctx = sp->penv->cat,
                              .text = w->text,
                              .len = w->len,
                              .filename = w->filename};
        if (cdc_expr_compile(rest, &env, &s.cond, sp->err) < 0 ||
            cdc_expr_require_boolean(s.cond, rest, &env, "WHERE", sp->err) < 0) {
            cdc_buf_free(&pieces);
            goto out;
        }
    }
    if (npieces == 0)
        cdc_buf_puts(&wh, "true");
    else
        cdc_buf_printf(&wh, npieces > 1 ? "AND(%s)" : "%s", cdc_buf_cstr(&pieces));
    cdc_buf_free(&pieces);
    s.where = cdc_buf_cstr(&wh);
    s.cond_type = cond_type;
    cond_type = NULL;
    make_semi_join(sp, left, &right, &s);
    s = (semi_spec_t){0};
    rc = 0;
out:
    free(s.lkeys);
    free(s.rkeys);
    cdc_expr_destroy(s.cond);
    cdc_type_destroy(cond_type);
    cdc_buf_free(&wh);
    free(pos);
    free(isc.cols);
    rel_free(&right);
    sp->nctes = saved;
    return rc;
}

/* ---- a level ------------------------------------------------------------------------------- */

static int plan_level(sp_t *sp, const cdc_sql_query_t *q, const where_t *w, const rank_filter_t *rf,
                      int nrf, rel_t *out, cdc_sql_query_t **post)
{
    if (q->set_op)
        return plan_set_op(sp, q, w, out, post);
    if (q->union_all)
        return fail_at(sp, w, q->line, q->col,
                       "UNION ALL together with GROUP BY, joins, DISTINCT or Top-N in one query "
                       "is not supported yet");
    if (q->has_limit && !q->norder_by)
        return fail_at(sp, w, q->limit_line, q->limit_col,
                       "LIMIT without ORDER BY in a query with GROUP BY, joins, DISTINCT or "
                       "Top-N is not supported yet");
    if (q->from.name.nparts == 0 && !q->from.subquery)
        return fail_at(sp, w, q->line, q->col,
                       "GROUP BY, DISTINCT or aggregate calls without FROM are not supported");
    cdc_sql_query_t *gq = NULL;
    int gr = group_window_query(sp, w, q, &gq);
    if (gr < 0)
        return -1;
    if (gr > 0)
        q = gq;
    /* WHERE's subquery predicates: semi and anti joins after the FROM and its joins, the rest of
       WHERE as before */
    const cdc_sql_expr_t *preds[16];
    bool pred_anti[16];
    int npreds = 0;
    if (has_subquery_pred(q->where)) {
        cdc_sql_expr_t *conj[64];
        int n = 0;
        split_and(q->where, conj, &n, 64);
        cdc_sql_query_t *lq = shallow_copy(sp, q);
        lq->where = NULL;
        for (int i = 0; i < n; i++) {
            const cdc_sql_expr_t *p = subquery_pred(conj[i], &pred_anti[npreds]);
            if (!p) {
                lq->where = and_kept(sp, lq->where, conj[i]);
                continue;
            }
            if (npreds == 16)
                return fail_at(sp, w, p->line, p->col,
                               "more than 16 subquery predicates in one WHERE");
            preds[npreds++] = p;
        }
        q = lq;
    }
    int saved = sp->nctes;
    push_ctes(sp, q);
    int rc = -1;
    scope_t sc = {0};
    const char *qual;
    if (q->from.tvf ? plan_window_input(sp, &q->from, w, out, &qual) < 0
                    : plan_input(sp, &q->from, w, q->where, out, &qual) < 0)
        goto done;
    sc.type = out->type;
    for (int f = 0; f < out->type->nchildren; f++)
        scope_add(&sc, qual, out->type->names[f], f);
    for (size_t j = 0; j < q->njoins; j++) {
        scope_t next = {0};
        int jr = plan_join(sp, w, &q->joins[j], q->where, out, &sc, &next);
        free(sc.cols);
        sc = next;
        if (jr < 0)
            goto done;
    }
    for (int i = 0; i < npreds; i++) {
        if (plan_subquery_pred(sp, w, preds[i], pred_anti[i], out, &sc) < 0)
            goto done;
        sc.type = out->type;
    }
    find_ctx_t f = {0};
    level_calls(q, &f);
    if (q->ngroup_by || f.agg || q->having || q->distinct) {
        if (f.over) {
            fail_at(sp, w, f.over->line, f.over->col,
                    "a window function together with GROUP BY in one query is not supported "
                    "yet; rank the grouped rows in an enclosing query");
            goto done;
        }
        rc = plan_aggregate(sp, w, q, &sc, out, post);
    } else if (f.over && strcasecmp(f.over->call.name, "ROW_NUMBER") == 0) {
        rc = plan_rank(sp, w, q, &sc, rf, nrf, out, post);
    } else if (f.over) {
        rc = plan_over(sp, w, q, &sc, out, post);
    } else {
        /* joins only: the select list and WHERE over the joined row */
        cdc_sql_query_t *pq = new_query(sp, q->line, q->col);
        if (expand_items(sp, w, &sc, q, pq) < 0)
            goto done;
        if (q->where && !(pq->where = rewrite(sp, w, &sc, q->where)))
            goto done;
        *post = pq;
        rc = 0;
    }
    if (rc == 0 && q->norder_by)
        rc = q->has_limit ? plan_sort_limit(sp, w, q, out, post)
                          : plan_temporal_sort(sp, w, q, out, post);
done:
    free(sc.cols);
    sp->nctes = saved;
    return rc;
}

/* ---- the INSERT ---------------------------------------------------------------------------- */

static unsigned graph_counter;

/* The root's output as the temporary table the top pipe reads. */
static int register_output(sp_t *sp, const cdc_op_t *root)
{
    cdc_graph_t *g = sp->g;
    g->out_name = cdc_strdup_printf("__stateful_%u", ++graph_counter);
    cdc_buf_t b = {0};
    char *qn = cdc_sql_quote_ident(g->out_name);
    cdc_buf_printf(&b, "CREATE TEMPORARY TABLE %s (", qn);
    free(qn);
    for (int f = 0; f < root->out_type->nchildren; f++) {
        char *n = cdc_sql_quote_ident(root->out_type->names[f]);
        char *t = cdc_type_to_string(root->out_type->children[f]);
        cdc_buf_printf(&b, "%s%s %s", f ? ", " : "", n, t);
        free(n);
        free(t);
    }
    /* no PRIMARY KEY (it would make nullable group keys NOT NULL): the sink's key is checked
       against the result's unique key by check_sink_key, and plan_sink_key lets it be */
    char mb[16];
    cdc_buf_printf(&b, ") WITH ('connector' = '$stateful', 'changelog-mode' = '%s')",
                   cdc_changelog_mode_str(root->mode, mb));
    cdc_sql_script_t *script = NULL;
    int rc = cdc_sql_parse(b.data, b.len, "<stateful>", &script, sp->err);
    if (rc == 0)
        rc = cdc_catalog_create_table_stmt(sp->penv->cat, script->stmts[0], b.data, b.len,
                                           "<stateful>", sp->err);
    cdc_sql_script_destroy(script);
    cdc_buf_free(&b);
    if (rc == 0)
        g->cat = sp->penv->cat;
    return rc;
}

void cdc_plan_graph_forget(cdc_graph_t *g)
{
    if (!g->cat || !g->out_name)
        return;
    char *qn = cdc_sql_quote_ident(g->out_name);
    char *text = cdc_strdup_printf("DROP TEMPORARY TABLE IF EXISTS %s", qn);
    free(qn);
    cdc_sql_script_t *script = NULL;
    cdc_error_t *err = NULL;
    if (cdc_sql_parse(text, strlen(text), "<stateful>", &script, &err) == 0)
        cdc_catalog_drop(g->cat, script->stmts[0], text, strlen(text), "<stateful>", &err);
    cdc_error_destroy(err);
    cdc_sql_script_destroy(script);
    free(text);
    g->cat = NULL;
}

/* A sink keyed by columns that are not a unique key of the result gets, per key, the last change
 * (Flink would add a SinkUpsertMaterializer): said once at planning. */
static void check_sink_key(sp_t *sp, const cdc_op_t *root)
{
    const cdc_pipe_t *top = sp->g->top;
    const cdc_table_def_t *def = NULL;
    const cdc_view_def_t *v = NULL;
    cdc_error_t *ignored = NULL;
    if (top->mode == CDC_MODE_INSERT_ONLY || !sp->ins->table.nparts ||
        cdc_catalog_find(sp->penv->cat, &sp->ins->table, &def, &v, &ignored) <= 0 || !def ||
        def->npk == 0) {
        cdc_error_destroy(ignored);
        return;
    }
    bool covered = root->nukey > 0;
    for (int u = 0; u < root->nukey && covered; u++) {
        bool found = false;
        for (int k = 0; k < def->npk && !found; k++) {
            int idx = def->pk[k];
            for (int s = top->nstages - 1; s >= 0 && idx >= 0; s--)
                idx = idx < top->stages[s].nitems ? cdc_expr_column_index(top->stages[s].items[idx])
                                                  : -1;
            found = idx == root->ukey[u];
        }
        covered = found;
    }
    if (!covered)
        cdc_log(CDC_LOG_WARN, NULL, def->qualified,
                "the primary key of table sink '%s' is not a unique key the planner can derive "
                "for the query's result: when several result rows share a key, the sink keeps "
                "the last change for it (Flink adds a SinkUpsertMaterializer here; cdcflow does "
                "not yet)",
                def->qualified);
}

/* table.exec.mini-batch.*: every GroupAggregate (not a window aggregation, whose windows fire on
 * the watermark anyway) buffers its input per group key and folds each batch into its state, as
 * Flink's MiniBatchGroupAggFunction; the other operators take changes one at a time. Flink asks
 * for a size once an operator uses it ("table.exec.mini-batch.size must be > 0."): so here. */
static int mark_minibatch(sp_t *sp, const where_t *w)
{
    cdc_graph_t *g = sp->g;
    const cdc_plan_env_t *penv = sp->penv;
    if (!penv->minibatch)
        return 0;
    g->minibatch_ms = penv->minibatch_ms;
    g->minibatch_size = penv->minibatch_size;
    for (int i = 0; i < g->nops; i++) {
        cdc_op_t *op = g->ops[i];
        if (op->kind != CDC_OP_AGG || op->windowed)
            continue;
        if (penv->minibatch_size <= 0) {
            fail_at(sp, w, sp->ins->query->line, sp->ins->query->col,
                    "setting \"table.exec.mini-batch.size\" must be > 0 when mini-batch is "
                    "enabled: the query's GroupAggregate buffers its input rows in batches of "
                    "that many");
            cdc_error_set_hint(*sp->err,
                               "SET 'table.exec.mini-batch.size' = '5000' (rows per batch, "
                               "with 'table.exec.mini-batch.allow-latency' the longest a row "
                               "waits), or SET 'table.exec.mini-batch.enabled' = 'false'");
            return -1;
        }
        op->minibatch = true;
    }
    return 0;
}

int cdc_plan_stateful(const cdc_plan_env_t *penv, const cdc_sql_insert_t *ins, cdc_pipe_t ***leaves,
                      int *nleaves, cdc_error_t **err)
{
    cdc_registry_add_internal(&graph_connector);
    sp_t sp = {.penv = penv, .ins = ins, .err = err};
    sp.g = cdc_xcalloc(1, sizeof(*sp.g));
    cdc_graph_t *g = sp.g;
    enum { MAXPATH = 32 };
    const cdc_sql_query_t *path[MAXPATH];
    where_t pw[MAXPATH];
    const char *names[MAXPATH];
    int k = 0;
    path[0] = ins->query;
    pw[0] = (where_t){.text = penv->text, .len = penv->len, .filename = penv->filename};
    names[0] = NULL;
    char **aliases = cdc_xcalloc(MAXPATH, sizeof(char *));
    cdc_sql_query_t *copies[MAXPATH] = {0};
    rel_t root = {0};
    cdc_sql_query_t *post = NULL;
    int rc = -1;
    while (!level_needs_state(path[k])) {
        const cdc_sql_query_t *q = path[k];
        if (q->union_all) {
            fail_at(&sp, &pw[k], q->line, q->col,
                    "UNION ALL together with GROUP BY, joins, DISTINCT or Top-N in one query is "
                    "not supported yet");
            goto out;
        }
        if (k + 1 == MAXPATH) {
            fail_at(&sp, &pw[k], q->line, q->col, "queries are nested too deeply");
            goto out;
        }
        push_ctes(&sp, q);
        const cdc_view_def_t *view = NULL;
        pw[k + 1] = pw[k];
        const cdc_sql_query_t *sub = from_query(&sp, &q->from, &pw[k + 1], &view);
        if (!sub) {
            fail_at(&sp, &pw[k], q->line, q->col, "internal: no query with state found");
            goto out;
        }
        if (view)
            sp.nctes = 0;
        names[k + 1] = q->from.alias         ? q->from.alias
                       : q->from.name.nparts ? q->from.name.parts[q->from.name.nparts - 1]
                                             : NULL;
        path[++k] = sub;
    }
    rank_filter_t rf[16];
    int nrf = k > 0 ? rank_filters(path[k - 1]->where, rf, 0, 16) : 0;
    if (plan_level(&sp, path[k], &pw[k], rf, nrf, &root, &post) < 0)
        goto out;
    cdc_op_t *rop = g->ops[root.op];
    if (register_output(&sp, rop) < 0)
        goto out;
    post->from.name.parts[0] = cdc_xstrdup(g->out_name);
    post->from.name.nparts = 1;
    post->from.name.line = path[k]->from.name.line;
    post->from.name.col = path[k]->from.name.col;
    /* the levels above L*, copied down to it, with L* replaced by its post-query */
    const cdc_sql_query_t *child = post;
    for (int i = k - 1; i >= 0; i--) {
        cdc_sql_query_t *c = cdc_xcalloc(1, sizeof(*c));
        *c = *path[i];
        copies[i] = c;
        c->from.subquery = (cdc_sql_query_t *)child;
        c->from.name.nparts = 0;
        memset(c->from.name.parts, 0, sizeof(c->from.name.parts));
        if (!c->from.alias && names[i + 1])
            c->from.alias = aliases[i] = cdc_xstrdup(names[i + 1]);
        child = c;
    }
    cdc_sql_insert_t ins2 = *ins;
    ins2.query = (cdc_sql_query_t *)child;
    strip_same_aliases(post);
    cdc_plan_env_t penv2 = *penv;
    penv2.stateful_node = rop->explain;
    if (cdc_plan_insert(&penv2, &ins2, &g->top, err) < 0)
        goto out;
    check_sink_key(&sp, rop);
    for (int i = 0; i < g->nleaves; i++) {
        if (g->leaf_op[i] < 0) {
            fail_at(&sp, &pw[0], ins->query->line, ins->query->col,
                    "internal: a table of the query feeds no operator");
            goto out;
        }
        g->leaves[i]->graph = g;
        /* the leaf's rows end in the top pipe's sink: its logs and metrics say so */
        free(g->leaves[i]->sink_name);
        g->leaves[i]->sink_name = cdc_xstrdup(g->top->sink_name);
    }
    g->refs = g->nleaves;
    g->ttl_ms = penv->state_ttl_ms;
    if (mark_minibatch(&sp, &pw[0]) < 0)
        goto out;
    g->resumable = true;
    for (int i = 0; i < g->nleaves; i++) {
        static const char *const resumable[] = {"kafka", "upsert-kafka", "mysql-cdc",
                                                "postgres-cdc", NULL};
        const char *id = g->leaves[i]->src_res.connector->identifier;
        bool ok = false;
        for (int r = 0; resumable[r]; r++)
            ok = ok || strcmp(id, resumable[r]) == 0;
        g->resumable = g->resumable && ok;
    }
    *leaves = cdc_xcalloc((size_t)g->nleaves, sizeof(**leaves));
    memcpy(*leaves, g->leaves, sizeof(**leaves) * (size_t)g->nleaves);
    *nleaves = g->nleaves;
    rc = 0;
out:
    rel_free(&root);
    for (int i = 0; i < MAXPATH; i++) {
        free(copies[i]);
        free(aliases[i]);
    }
    free(aliases);
    free_queries(&sp);
    if (rc < 0) {
        for (int i = 0; i < g->nleaves; i++) {
            g->leaves[i]->graph = NULL;
            cdc_pipe_destroy(g->leaves[i]);
            cdc_expr_destroy(g->leaf_wm[i]);
            g->leaf_wm[i] = NULL;
        }
        g->nleaves = 0;
        g->refs = 1;
        cdc_graph_release(g);
    }
    return rc;
}
