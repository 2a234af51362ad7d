/*
 * cdc_planner.c — planning INSERT INTO ... SELECT: tables and views, the
 * query's expressions, pushdown into the source (partitions, filters,
 * projection, limit, metadata), changelog negotiation (ChangelogNormalize,
 * DropUpdateBefore, rejection with Flink's message), and EXPLAIN.
 * cdc_plan_insert runs one phase after another over a shared plan_ctx_t.
 * Lookup joins are planned in cdc_plan_join.c; the per-row steps the plan
 * runs are in cdc_exec.c (cdc_pipe_transform) and cdc_normalize.c.
 */
#include "cdc_plan_int.h"

#include <stdlib.h>
#include <string.h>

#include "cdc_value_text.h" /* partition values and literals from their text */

#define MAX_VIEW_DEPTH 8 /* views, subqueries and WITH queries in one chain */

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
    case CDC_T_MULTISET:
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

static void scan_node(const cdc_pipe_t *p, cdc_buf_t *out, bool with_mode)
{
    char mode[16];
    const cdc_type_t *prod = p->src->produced;
    cdc_buf_printf(out, "TableSourceScan(table=[[%s]], fields=[", p->source_path);
    for (int i = 0; i < prod->nchildren; i++)
        cdc_buf_printf(out, "%s%s", i ? ", " : "", prod->names[i]);
    cdc_buf_putc(out, ']');
    if (with_mode)
        cdc_buf_printf(out, ", changelogMode=%s", cdc_changelog_mode_str(p->scan_mode, mode));
    if (p->pushed_partitions)
        cdc_buf_printf(out, ", partitions=%s", p->pushed_partitions);
    if (p->pushed_filters)
        cdc_buf_printf(out, ", filter=%s", p->pushed_filters);
    if (p->proj_text)
        cdc_buf_printf(out, ", project=%s", p->proj_text);
    if (p->limit_pushed)
        cdc_buf_printf(out, ", limit=%lld", (long long)p->limit);
    if (p->pushed_metadata)
        cdc_buf_printf(out, ", metadata=%s", p->pushed_metadata);
    if (with_mode && p->row_count >= 0)
        cdc_buf_printf(out, ", rowCount=%lld", (long long)p->row_count);
    cdc_buf_putc(out, ')');
}

void cdc_pipe_explain(const cdc_pipe_t *p, cdc_buf_t *out)
{
    char mode[16];
    int depth = 0;
#define INDENT()                                                                                   \
    do {                                                                                           \
        for (int d_ = 1; d_ < depth; d_++)                                                         \
            cdc_buf_puts(out, "   ");                                                              \
        if (depth)                                                                                 \
            cdc_buf_puts(out, "+- ");                                                              \
        depth++;                                                                                   \
    } while (0)
    INDENT();
    cdc_buf_printf(out, "Sink(table=[%s], fields=[", p->sink_name);
    for (int i = 0; i < p->sink_schema->nchildren; i++)
        cdc_buf_printf(out, "%s%s", i ? ", " : "", p->sink_schema->names[i]);
    cdc_buf_printf(out, "], changelogMode=%s, parallelism=%d)\n",
                   cdc_changelog_mode_str(p->mode, mode), p->parallelism);
    if (p->limit >= 0 && !p->limit_pushed) {
        INDENT();
        cdc_buf_printf(out, "Limit(fetch=%lld, changelogMode=%s)\n", (long long)p->limit,
                       cdc_changelog_mode_str(p->mode, mode));
    }
    if (p->drop_update_before) {
        INDENT();
        cdc_buf_printf(out, "DropUpdateBefore(changelogMode=%s)\n",
                       cdc_changelog_mode_str(p->mode, mode));
    }
    cdc_changelog_mode_t mid = p->normalize ? CDC_MODE_ALL : p->scan_mode;
    for (int s = p->nstages - 1; s >= 0; s--) {
        INDENT();
        cdc_buf_printf(out, "Calc(%s, changelogMode=%s)\n", p->stages[s].explain,
                       cdc_changelog_mode_str(mid, mode));
    }
    if (p->join) {
        INDENT();
        cdc_buf_printf(out, "LookupJoin(%s, changelogMode=%s)\n", p->join->explain,
                       cdc_changelog_mode_str(mid, mode));
    }
    if (p->unnest) {
        INDENT();
        cdc_buf_printf(out, "Correlate(%s, changelogMode=%s)\n", p->unnest->explain,
                       cdc_changelog_mode_str(mid, mode));
    }
    if (p->normalize) {
        INDENT();
        cdc_buf_puts(out, "ChangelogNormalize(key=[");
        for (int k = 0; k < p->nnorm_key; k++)
            cdc_buf_printf(out, "%s%s", k ? ", " : "", p->table_type->names[p->norm_key[k]]);
        cdc_buf_printf(out, "], changelogMode=%s)\n", cdc_changelog_mode_str(mid, mode));
    }
    if (!p->identity_table) {
        INDENT();
        cdc_buf_puts(out, "TableRow(columns=[");
        for (int c = 0; c < p->table_type->nchildren; c++) {
            cdc_buf_printf(out, "%s%s", c ? ", " : "", p->table_type->names[c]);
        }
        cdc_buf_printf(out, "], changelogMode=%s)\n", cdc_changelog_mode_str(p->scan_mode, mode));
    }
    INDENT();
    scan_node(p, out, true);
    cdc_buf_putc(out, '\n');
#undef INDENT
}

void cdc_pipe_explain_union(cdc_pipe_t *const *pipes, int n, cdc_buf_t *out)
{
    char mode[16];
    cdc_changelog_mode_t all = 0;
    for (int i = 0; i < n; i++)
        all |= pipes[i]->mode;
    const cdc_type_t *row = pipes[0]->sink_schema;
    cdc_buf_printf(out, "Sink(table=[%s], fields=[", pipes[0]->sink_name);
    for (int i = 0; i < row->nchildren; i++)
        cdc_buf_printf(out, "%s%s", i ? ", " : "", row->names[i]);
    cdc_buf_printf(out, "], changelogMode=%s, parallelism=%d)\n", cdc_changelog_mode_str(all, mode),
                   pipes[0]->parallelism);
    cdc_buf_puts(out, "+- Union(all=[true], union=[");
    for (int i = 0; i < row->nchildren; i++)
        cdc_buf_printf(out, "%s%s", i ? ", " : "", row->names[i]);
    cdc_buf_printf(out, "], changelogMode=%s)\n", cdc_changelog_mode_str(all, mode));
    /* each branch's plan without its Sink line, one level deeper: Flink's ":- " for all
     * branches but the last */
    for (int i = 0; i < n; i++) {
        cdc_buf_t b = {0};
        cdc_pipe_explain(pipes[i], &b);
        const char *line = memchr(b.data, '\n', b.len);
        const char *end = b.data + b.len;
        bool first = true;
        while (line && ++line < end) {
            const char *nl = memchr(line, '\n', (size_t)(end - line));
            size_t len = nl ? (size_t)(nl - line) : (size_t)(end - line);
            const char *lead =
                i < n - 1 ? (first ? "   :- " : "   :  ") : (first ? "   +- " : "      ");
            cdc_buf_printf(out, "%s%.*s\n", lead, (int)(len - 3), line + 3);
            first = false;
            line = nl;
        }
        cdc_buf_free(&b);
    }
}

int cdc_plan_check_hints(const cdc_plan_env_t *penv, const char *text, size_t len,
                         const char *filename, const cdc_sql_hints_t *hints, cdc_error_t **err)
{
    if (hints->others.count) {
        const cdc_sql_ident_t *h = &hints->others.items[0];
        *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, h->line, h->col,
                                "hint \"%s\" is not supported", h->name);
        cdc_error_set_hint(*err, "only OPTIONS('key' = 'value') table hints are applied; "
                                 "remove this hint");
        return -1;
    }
    if (hints->options.count && penv->dynamic_options_disabled) {
        const cdc_sql_option_t *o = &hints->options.items[0];
        *err = cdc_sql_error_at(CDC_ERR_SQL, text, len, filename, o->line, o->col,
                                "the OPTIONS hint is allowed only when "
                                "'table.dynamic-table-options.enabled' is true");
        cdc_error_set_hint(*err, "remove the hint, or RESET 'table.dynamic-table-options.enabled'");
        return -1;
    }
    return 0;
}

void cdc_plan_context_create_table(cdc_error_t *err, const cdc_table_def_t *def)
{
    cdc_error_add_context(err, "CREATE TABLE at %s:%d:%d", def->origin ? def->origin : "<input>",
                          def->line, def->col);
}

int cdc_plan_build_ctx(const cdc_table_def_t *def, const cdc_sql_hints_t *hints,
                       cdc_resolved_t *res, cdc_table_ctx_t *ctx, int parallelism,
                       cdc_error_t **err)
{
    cdc_kv_t merged = {0}; /* the table's options with the OPTIONS hint over them */
    cdc_kv_copy(&merged, &def->options);
    for (size_t i = 0; hints && i < hints->options.count; i++)
        cdc_kv_set(&merged, hints->options.items[i].key, hints->options.items[i].value);
    int rc = cdc_resolve_options(&merged, def->qualified, res, err);
    cdc_kv_free(&merged);
    if (rc < 0) {
        if (hints && hints->options.count)
            cdc_error_add_context(*err, "OPTIONS hint at line %d:%d of the query",
                                  hints->options.items[0].line, hints->options.items[0].col);
        cdc_plan_context_create_table(*err, def);
        return -1;
    }
    *ctx = (cdc_table_ctx_t){.name = def->qualified,
                             .schema = def->schema,
                             .pk = def->pk,
                             .npk = def->npk,
                             .cfg = res->cfg,
                             .formats = res->formats,
                             .nformats = res->nformats,
                             .parallelism = parallelism,
                             .partition_keys = def->partition_keys,
                             .npartition_keys = def->npartition_keys};
    return 0;
}

/* A WHERE conjunct as a pushable filter: `col op literal`, `literal op col`, `col IS [NOT] NULL`.
 */
static bool as_filter(const cdc_sql_expr_t *c, const cdc_table_def_t *def, const char *rel,
                      const char *alias, cdc_arena_t *arena, cdc_filter_t *f)
{
    const char *quals[2] = {rel, alias};
    const cdc_type_t *schema = def->schema;
    if (c->kind == CDC_SQL_EXPR_IS_NULL) {
        const cdc_sql_expr_t *o = c->is_null.operand;
        if (o->kind != CDC_SQL_EXPR_COLUMN)
            return false;
        int idx = cdc_type_field_index(schema, cdc_plan_ref_name(o, quals, alias ? 2 : 1));
        if (idx < 0)
            return false;
        f->field = idx;
        f->op = c->is_null.negated ? CDC_FILTER_IS_NOT_NULL : CDC_FILTER_IS_NULL;
        return true;
    }
    if (c->kind != CDC_SQL_EXPR_BINARY)
        return false;
    static const struct {
        cdc_sql_binary_op_t sql;
        cdc_filter_op_t op, flipped;
    } ops[] = {
        {CDC_SQL_BINARY_EQ, CDC_FILTER_EQ, CDC_FILTER_EQ},
        {CDC_SQL_BINARY_NE, CDC_FILTER_NE, CDC_FILTER_NE},
        {CDC_SQL_BINARY_LT, CDC_FILTER_LT, CDC_FILTER_GT},
        {CDC_SQL_BINARY_LE, CDC_FILTER_LE, CDC_FILTER_GE},
        {CDC_SQL_BINARY_GT, CDC_FILTER_GT, CDC_FILTER_LT},
        {CDC_SQL_BINARY_GE, CDC_FILTER_GE, CDC_FILTER_LE},
    };
    int k = -1;
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (ops[i].sql == c->binary.op)
            k = (int)i;
    if (k < 0)
        return false;
    const cdc_sql_expr_t *col = c->binary.left, *lit = c->binary.right;
    bool flip = false;
    if (col->kind != CDC_SQL_EXPR_COLUMN) {
        col = c->binary.right;
        lit = c->binary.left;
        flip = true;
    }
    if (col->kind != CDC_SQL_EXPR_COLUMN || lit->kind != CDC_SQL_EXPR_LITERAL)
        return false;
    int idx = cdc_type_field_index(schema, cdc_plan_ref_name(col, quals, alias ? 2 : 1));
    if (idx < 0)
        return false;
    const cdc_type_t *t = schema->children[idx];
    if (t->root == CDC_T_ARRAY || cdc_type_is_map_like(t) || t->root == CDC_T_ROW)
        return false;
    /* the literal as a value of the column's type, through its text */
    const cdc_sql_expr_t *l = lit;
    if (l->literal.kind == CDC_SQL_LIT_NULL)
        return false;
    const char *s = l->literal.text;
    cdc_type_t *nullable = cdc_type_copy(t);
    nullable->nullable = true;
    bool is_string = l->literal.kind == CDC_SQL_LIT_STRING;
    bool col_string = t->root == CDC_T_CHAR || t->root == CDC_T_VARCHAR;
    bool ok = is_string == col_string &&
              cdc_value_from_text(nullable, s, strlen(s),
                                  CDC_TEXT_ISO8601 | (is_string ? CDC_TEXT_COPY : CDC_TEXT_NUMBER),
                                  arena, &f->value, NULL) == CDC_TEXT_OK;
    cdc_type_destroy(nullable);
    if (!ok)
        return false;
    f->field = idx;
    f->op = flip ? ops[k].flipped : ops[k].op;
    return true;
}
/* ---- INSERT planning, phase by phase --------------------------------------------- */

/* The state the phases of cdc_plan_insert share; plan_ctx_free releases what they leave. */
typedef struct plan_ctx {
    const cdc_plan_env_t *penv;
    const cdc_sql_insert_t *ins;
    cdc_error_t **err;
    cdc_plan_branch_t *br;                       /* the branches of UNION ALL this pipe reads */
    cdc_plan_level_t levels[MAX_VIEW_DEPTH + 1]; /* the INSERT's query, then each view's */
    int nlevels;
    const cdc_plan_level_t *inner; /* the query over the table (rewritten under a lookup join) */
    bool result_mode;              /* a bare query whose rows are printed */
    const cdc_table_def_t *src_def, *sink_def;
    cdc_table_def_t *values_def; /* the constant source of a level without FROM; then the pipe's */
    cdc_sql_query_t *values_q;   /* VALUES rewritten to a query over it; then the pipe's */
    cdc_pipe_t *p;
    int ncols; /* columns of the source table */
    cdc_arena_t scratch;
    bool *need;          /* per column: read by the query (or a computed column it reads) */
    cdc_plan_paths_t pc; /* the access paths of those references (nested projection) */
    const cdc_sql_expr_t *conj[CDC_PLAN_MAX_CONJUNCTS]; /* of the innermost WHERE */
    size_t nconj;
    cdc_filter_t *filters;
    char *filter_texts[CDC_PLAN_MAX_CONJUNCTS];
    cdc_sql_query_t *join_q;             /* the innermost query rewritten to the joined row */
    cdc_sql_expr_t *join_on;             /* its ON clause, rewritten */
    const cdc_sql_join_t *the_join;      /* as written */
    int nphys;                           /* physical columns of the source table */
    int *proj;                           /* the needed physical columns, in table order */
    int nproj;                           /* physical fields of the (whole-column) scan row */
    int *phys_pos;                       /* physical column -> index in the scan row, or -1 */
    cdc_field_path_t *npaths;            /* nested paths pushed, per projected column */
    int nnpaths;                         /* (leaves of the source's rows under nested projection) */
    int nleaves;                         /* physical fields of the source's rows */
    const cdc_type_t *scan_type;         /* the (whole-column) scan row */
    const cdc_type_t *query_type;        /* the query's output row */
    cdc_changelog_mode_t mode, accepted; /* what reaches the sink, what the sink accepts */
    const cdc_type_t *sink_row;          /* the sink's row: physical, then metadata columns */
    int *sink_decl;                      /* persisted sink columns in declared order: index in
                                            sink_row (computed and VIRTUAL ones are left out) */
    int nsink_decl;
} plan_ctx_t;

/* INSERT INTO t, or a bare query whose rows are printed (table name absent) */
static int plan_sink_table(plan_ctx_t *cx)
{
    const cdc_plan_env_t *penv = cx->penv;
    const cdc_sql_insert_t *ins = cx->ins;
    cx->result_mode = ins->table.nparts == 0;
    if (cdc_plan_check_hints(penv, penv->text, penv->len, penv->filename, &ins->hints, cx->err) < 0)
        return -1;
    if (!cx->result_mode) {
        cx->sink_def = cdc_catalog_get_table(penv->cat, &ins->table, penv->text, penv->len,
                                             penv->filename, cx->err);
        if (!cx->sink_def)
            return -1;
    }
    return 0;
}

/* What a query level may not contain yet: regular joins, several joins, DISTINCT, a view's LIMIT.
 */
static int check_level(const plan_ctx_t *cx, const cdc_plan_level_t *lv)
{
    cdc_error_t **err = cx->err;
    for (size_t jx = 0; jx < lv->q->njoins; jx++) {
        const cdc_sql_join_t *jn = &lv->q->joins[jx];
        if (jn->table.unnest && jx > 0) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, jn->line, jn->col,
                                    "UNNEST after another join of the same query is not "
                                    "supported yet");
            return -1;
        }
        if (!jn->system_time && !jn->table.unnest) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, jn->line, jn->col,
                                    "regular joins are not supported yet");
            cdc_error_set_hint(*err, "a lookup join is: JOIN dim FOR SYSTEM_TIME AS OF "
                                     "s.proc_time AS d ON s.k = d.k, with `proc_time AS "
                                     "PROCTIME()` declared on the probe table");
            return -1;
        }
        if (jx > 0) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, jn->line, jn->col,
                                    "only one lookup join per query is supported yet");
            return -1;
        }
    }
    if (lv->q->distinct) {
        *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, lv->q->line,
                                lv->q->col, "SELECT DISTINCT is not supported yet");
        return -1;
    }
    if (lv->q->has_limit && cx->nlevels > 1) {
        *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, lv->q->limit_line,
                                lv->q->limit_col, "LIMIT inside a %s is not supported yet",
                                lv->view ? "view" : "subquery");
        return -1;
    }
    return 0;
}

static void find_over(const cdc_sql_expr_t *node, void *ctx)
{
    const cdc_sql_expr_t **first = ctx;
    if (!*first && node->kind == CDC_SQL_EXPR_CALL && node->call.over)
        *first = node;
}

/* The stateful forms the parser reads but the planner does not run yet, refused by name where
 * they are written: GROUP BY, HAVING, ORDER BY, window functions (OVER), RIGHT and FULL joins
 * (regular joins: check_level). Returns 0, or -1 with *err. */
static int refuse_stateful(const plan_ctx_t *cx, const cdc_plan_level_t *lv)
{
    const cdc_sql_query_t *q = lv->q;
    const cdc_sql_expr_t *over = NULL;
    for (size_t i = 0; i < q->nitems; i++)
        cdc_plan_walk_exprs(q->items[i].expr, find_over, &over);
    cdc_plan_walk_exprs(q->where, find_over, &over);
    const cdc_sql_join_t *outer = NULL;
    for (size_t j = 0; j < q->njoins && !outer; j++)
        if (q->joins[j].kind == CDC_SQL_JOIN_RIGHT || q->joins[j].kind == CDC_SQL_JOIN_FULL)
            outer = &q->joins[j];
    const struct {
        bool on;
        const char *what;
        int line, col;
    } forms[] = {
        {outer, outer && outer->kind == CDC_SQL_JOIN_FULL ? "FULL JOIN" : "RIGHT JOIN",
         outer ? outer->line : 0, outer ? outer->col : 0},
        {q->ngroup_by, "GROUP BY", q->group_line, q->group_col},
        {q->having, "HAVING", q->having_line, q->having_col},
        {over, "a window function (OVER)", over ? over->call.over->line : 0,
         over ? over->call.over->col : 0},
        {q->norder_by, "ORDER BY", q->order_line, q->order_col},
    };
    int first = -1; /* the first in the text */
    for (int i = 0; i < (int)(sizeof(forms) / sizeof(forms[0])); i++)
        if (forms[i].on &&
            (first < 0 || forms[i].line < forms[first].line ||
             (forms[i].line == forms[first].line && forms[i].col < forms[first].col)))
            first = i;
    if (first < 0)
        return 0;
    const char *what = forms[first].what;
    int line = forms[first].line, col = forms[first].col;
    if (strcmp(what, "ORDER BY") == 0) /* with a LIMIT it is a Top-N (cdc_plan_stateful.c) */
        *cx->err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, line, col,
                                    "Sort on a non-time-attribute field is not supported: "
                                    "ORDER BY needs a LIMIT here (a Top-N)");
    else
        *cx->err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, line, col,
                                    "%s is not supported yet", what);
    return -1;
}

#define VALUES_ROW_COLUMN "$row" /* the constant source's one column: the row number */

/* The bounded `values` source of SELECT without FROM (one row) and of VALUES (a row each):
 * rows +I[0], +I[1], ... of the one column VALUES_ROW_COLUMN. Owned by the caller. */
static cdc_table_def_t *values_source_def(size_t nrows, int line, int col)
{
    cdc_table_def_t *t = cdc_xcalloc(1, sizeof(*t));
    t->catalog = cdc_xstrdup("");
    t->database = cdc_xstrdup("");
    t->name = cdc_xstrdup("*values*");
    t->qualified = cdc_xstrdup("*values*");
    t->temporary = true;
    t->line = line;
    t->col = col;
    t->schema = cdc_type_new_row();
    t->schema->nullable = false;
    cdc_type_t *ty = cdc_type_new(CDC_T_BIGINT);
    ty->nullable = false;
    cdc_type_row_add(t->schema, VALUES_ROW_COLUMN, ty);
    t->columns = cdc_xcalloc(1, sizeof(*t->columns));
    t->ncolumns = 1;
    t->columns[0] = (cdc_column_def_t){.name = cdc_xstrdup(VALUES_ROW_COLUMN),
                                       .kind = CDC_COLUMN_PHYSICAL,
                                       .type = t->schema->children[0],
                                       .physical = 0,
                                       .not_null = true};
    cdc_buf_t data = {0};
    for (size_t r = 0; r < nrows; r++)
        cdc_buf_printf(&data, "%s+I[%zu]", r ? "; " : "", r);
    cdc_kv_set(&t->options, "connector", "values");
    cdc_kv_set(&t->options, "data", cdc_buf_cstr(&data));
    cdc_buf_free(&data);
    t->origin = cdc_xstrdup("<values>");
    return t;
}

static cdc_sql_expr_t *values_expr_new(cdc_sql_expr_kind_t kind, int line, int col)
{
    cdc_sql_expr_t *e = cdc_xcalloc(1, sizeof(*e));
    e->kind = kind;
    e->line = line;
    e->col = col;
    return e;
}

/* VALUES (a0, b0), (a1, b1), ... as the query over the constant source:
 * SELECT CASE $row WHEN 0 THEN a0 ... ELSE a_last END AS EXPR$0, ... (the last row is the ELSE,
 * so the column is nullable only when a value is). New query the caller frees. */
static cdc_sql_query_t *values_query(const cdc_sql_query_t *vq)
{
    cdc_sql_query_t *q = cdc_xcalloc(1, sizeof(*q));
    q->line = vq->line;
    q->col = vq->col;
    q->text = cdc_xstrdup(vq->text ? vq->text : "");
    q->nitems = vq->rows[0].nitems;
    q->items = cdc_xcalloc(q->nitems, sizeof(*q->items));
    for (size_t c = 0; c < q->nitems; c++) {
        cdc_sql_select_item_t *item = &q->items[c];
        item->alias = cdc_strdup_printf("EXPR$%zu", c);
        if (vq->nrows == 1) {
            item->expr = cdc_sql_expr_clone(vq->rows[0].items[c]);
            continue;
        }
        const cdc_sql_values_row_t *first = &vq->rows[0];
        cdc_sql_expr_t *e = values_expr_new(CDC_SQL_EXPR_CASE, first->line, first->col);
        cdc_sql_expr_t *row = values_expr_new(CDC_SQL_EXPR_COLUMN, first->line, first->col);
        row->column.parts = cdc_xcalloc(1, sizeof(char *));
        row->column.parts[0] = cdc_xstrdup(VALUES_ROW_COLUMN);
        row->column.nparts = 1;
        e->case_expr.operand = row;
        e->case_expr.nwhens = vq->nrows - 1;
        e->case_expr.whens = cdc_xcalloc(e->case_expr.nwhens, sizeof(*e->case_expr.whens));
        for (size_t r = 0; r + 1 < vq->nrows; r++) {
            const cdc_sql_values_row_t *vr = &vq->rows[r];
            cdc_sql_expr_t *n = values_expr_new(CDC_SQL_EXPR_LITERAL, vr->line, vr->col);
            n->literal.kind = CDC_SQL_LIT_INTEGER;
            n->literal.text = cdc_strdup_printf("%zu", r);
            e->case_expr.whens[r].when = n;
            e->case_expr.whens[r].then = cdc_sql_expr_clone(vr->items[c]);
        }
        e->case_expr.else_expr = cdc_sql_expr_clone(vq->rows[vq->nrows - 1].items[c]);
        item->expr = e;
    }
    return q;
}

/* A level without FROM (SELECT without FROM, VALUES) reads the constant source. */
static int plan_values_level(plan_ctx_t *cx, cdc_plan_level_t *lv)
{
    for (size_t i = 0; i < lv->q->nitems; i++) {
        const cdc_sql_expr_t *e = lv->q->items[i].expr;
        if (e->kind == CDC_SQL_EXPR_STAR) {
            *cx->err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, e->line,
                                        e->col, "SELECT * needs a FROM clause");
            return -1;
        }
    }
    cx->values_def = values_source_def(lv->q->nrows ? lv->q->nrows : 1, lv->q->line, lv->q->col);
    cx->src_def = cx->values_def;
    if (lv->q->nrows) {
        cx->values_q = values_query(lv->q);
        lv->q = cx->values_q;
    }
    return 0;
}

/* The WITH query a one-part FROM name of level @p l means: its own WITH list, then those of
 * the levels above it down to the top of its text (a view's query does not see the WITH
 * queries of the query using the view). NULL when the name is a catalog object's. */
static const cdc_sql_cte_t *find_cte(const plan_ctx_t *cx, int l, const cdc_sql_name_t *name)
{
    if (name->nparts != 1)
        return NULL;
    for (; l >= 0; l--) {
        const cdc_plan_level_t *lv = &cx->levels[l];
        const cdc_sql_query_t *q = lv->head ? lv->head : lv->q;
        for (size_t i = 0; i < q->nctes; i++)
            if (strcmp(q->ctes[i].name.name, name->parts[0]) == 0)
                return &q->ctes[i];
        if (lv->view)
            break;
    }
    return NULL;
}

/* The level under @p lv when its FROM is a subquery or names a WITH query (inlined in the same
 * text, as a view is); 0 when it names a catalog object, -1 with *err. */
static int push_inline_level(plan_ctx_t *cx, const cdc_plan_level_t *lv)
{
    const cdc_sql_table_ref_t *from = &lv->q->from;
    const cdc_sql_cte_t *cte = from->subquery ? NULL : find_cte(cx, cx->nlevels - 1, &from->name);
    if (!from->subquery && !cte)
        return 0;
    const char *what = from->subquery ? "a subquery" : "a WITH query";
    cdc_error_t **err = cx->err;
    if (from->hints.options.count) {
        const cdc_sql_option_t *o = &from->hints.options.items[0];
        *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, o->line, o->col,
                                "%s cannot take an OPTIONS hint: hints apply to tables only", what);
        return -1;
    }
    if (lv->q->njoins) {
        *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, from->name.line,
                                from->name.col, "the probe side of %s must be a table, not %s",
                                lv->q->joins[0].table.unnest ? "UNNEST" : "a lookup join", what);
        cdc_error_set_hint(*err, "join inside the subquery, on its table");
        return -1;
    }
    if (cx->nlevels > MAX_VIEW_DEPTH) {
        *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, from->name.line,
                                from->name.col,
                                "views, subqueries and WITH queries nest deeper than %d levels "
                                "(or a WITH query names itself)",
                                MAX_VIEW_DEPTH);
        return -1;
    }
    cx->levels[cx->nlevels++] = (cdc_plan_level_t){
        .q = from->subquery ? from->subquery : cte->query,
        .text = lv->text,
        .len = lv->len,
        .filename = lv->filename,
        .rel_name = from->subquery ? (from->alias ? from->alias : "") : cte->name.name};
    return 1;
}

/* A level whose query is a UNION ALL reads the branch cx->br picks there (and records how
 * many there are); 0, or -1 with *err when the query nests too many unions. */
static int pick_branch(plan_ctx_t *cx, cdc_plan_level_t *lv)
{
    if (!lv->q->union_all)
        return 0;
    cdc_plan_branch_t *br = cx->br;
    if (br->depth == CDC_PLAN_MAX_UNIONS) {
        *cx->err =
            cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, lv->q->line, lv->q->col,
                             "more than %d UNION ALL on the way to one table", CDC_PLAN_MAX_UNIONS);
        return -1;
    }
    int k = br->depth++;
    int n = 0;
    const cdc_sql_query_t *b = lv->q;
    for (const cdc_sql_query_t *u = lv->q; u; u = u->union_all, n++)
        if (n == br->pick[k])
            b = u;
    br->nbranches[k] = n;
    if (b != lv->q) {
        lv->head = lv->q;
        lv->q = b;
    }
    return 0;
}

bool cdc_plan_branch_next(cdc_plan_branch_t *br)
{
    for (int k = br->depth - 1; k >= 0; k--) {
        if (++br->pick[k] < br->nbranches[k]) {
            /* the unions after k depend on the branch taken at k: met again from their first */
            for (int j = k + 1; j < CDC_PLAN_MAX_UNIONS; j++)
                br->pick[j] = 0;
            return true;
        }
        br->pick[k] = 0;
    }
    return false;
}

/* the chain of queries: the INSERT's, then each view's down to a table */
static int plan_query_chain(plan_ctx_t *cx)
{
    const cdc_plan_env_t *penv = cx->penv;
    cdc_error_t **err = cx->err;
    cdc_plan_level_t *levels = cx->levels;
    levels[cx->nlevels++] = (cdc_plan_level_t){
        .q = cx->ins->query, .text = penv->text, .len = penv->len, .filename = penv->filename};
    for (;;) {
        cdc_plan_level_t *lv = &levels[cx->nlevels - 1];
        if (pick_branch(cx, lv) < 0 || refuse_stateful(cx, lv) < 0 || check_level(cx, lv) < 0)
            return -1;
        const cdc_sql_hints_t *hints[3] = {&lv->q->hints, &lv->q->from.hints,
                                           lv->q->njoins ? &lv->q->joins[0].table.hints : NULL};
        for (int h = 0; h < 3; h++)
            if (hints[h] &&
                cdc_plan_check_hints(penv, lv->text, lv->len, lv->filename, hints[h], err) < 0)
                return -1;
        int inl = push_inline_level(cx, lv);
        if (inl < 0)
            return -1;
        if (inl > 0)
            continue;
        if (!lv->q->from.name.nparts) {
            if (plan_values_level(cx, lv) < 0)
                return -1;
            break;
        }
        const cdc_table_def_t *t = NULL;
        const cdc_view_def_t *v = NULL;
        int found = cdc_catalog_find(penv->cat, &lv->q->from.name, &t, &v, err);
        if (found < 0)
            return -1;
        if (found == 0) {
            /* reuse the catalog's message, positioned in this level's text */
            if (!cdc_catalog_get_table(penv->cat, &lv->q->from.name, lv->text, lv->len,
                                       lv->filename, err))
                return -1;
        }
        if (t) {
            cx->src_def = t;
            break;
        }
        if (lv->q->from.hints.options.count) {
            const cdc_sql_option_t *o = &lv->q->from.hints.options.items[0];
            *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename, o->line, o->col,
                                    "view \"%s\" cannot take an OPTIONS hint: hints apply to "
                                    "tables only",
                                    v->qualified);
            cdc_error_set_hint(*err, "put the hint on the table in the view's query");
            return -1;
        }
        if (lv->q->njoins) {
            *err = cdc_sql_error_at(
                CDC_ERR_SQL, lv->text, lv->len, lv->filename, lv->q->from.name.line,
                lv->q->from.name.col, "the probe side of %s must be a table, \"%s\" is a view",
                lv->q->joins[0].table.unnest ? "UNNEST" : "a lookup join", v->qualified);
            return -1;
        }
        if (cx->nlevels > MAX_VIEW_DEPTH) {
            *err = cdc_sql_error_at(CDC_ERR_SQL, lv->text, lv->len, lv->filename,
                                    lv->q->from.name.line, lv->q->from.name.col,
                                    "views nest deeper than %d levels", MAX_VIEW_DEPTH);
            return -1;
        }
        levels[cx->nlevels++] =
            (cdc_plan_level_t){.q = v->query_ast,
                               .text = v->query,
                               .len = strlen(v->query),
                               .filename = cdc_strdup_printf("view %s", v->qualified),
                               .owned_name = true,
                               .view = v,
                               .rel_name = v->name};
    }
    cx->inner = &levels[cx->nlevels - 1];
    return 0;
}

/* the pipe, and the source built by its factory */
static int plan_source(plan_ctx_t *cx)
{
    const cdc_plan_env_t *penv = cx->penv;
    const cdc_table_def_t *src_def = cx->src_def;
    const cdc_plan_level_t *inner = cx->inner;
    cdc_error_t **err = cx->err;
    cdc_pipe_t *p = cx->p = cdc_xcalloc(1, sizeof(*p));
    p->values_def = cx->values_def;
    p->values_query = cx->values_q;
    cx->values_def = NULL;
    cx->values_q = NULL;
    p->limit = cx->ins->query->has_limit ? cx->ins->query->limit : -1;
    p->row_count = -1;
    p->skip_bad_rows = penv->skip_bad_rows;
    p->source_name = cdc_xstrdup(src_def->qualified);
    p->source_path =
        cdc_strdup_printf("%s, %s, %s", src_def->catalog, src_def->database, src_def->name);

    if (cdc_plan_build_ctx(src_def, &inner->q->from.hints, &p->src_res, &p->src_ctx,
                           penv->parallelism, err) < 0)
        return -1;
    if (cdc_config_declares(p->src_res.cfg, "scan.parallelism") &&
        cdc_config_isset(p->src_res.cfg, "scan.parallelism"))
        p->src_ctx.parallelism = (int)cdc_config_int(p->src_res.cfg, "scan.parallelism");
    if (p->src_ctx.parallelism < 1)
        p->src_ctx.parallelism = 1;
    p->parallelism = p->src_ctx.parallelism;
    if (!p->src_res.connector->source_new) {
        *err = cdc_sql_error_at(CDC_ERR_PLAN, inner->text, inner->len, inner->filename,
                                inner->q->from.name.line, inner->q->from.name.col,
                                "connector \"%s\" of table \"%s\" cannot be read (it is a sink "
                                "only)",
                                p->src_res.connector->identifier, src_def->qualified);
        return -1;
    }
    if (p->src_res.connector->source_new(&p->src_ctx, &p->src, err) < 0) {
        cdc_error_add_context(*err, "table \"%s\"", src_def->qualified);
        cdc_plan_context_create_table(*err, src_def);
        return -1;
    }
    if (!p->src->ops->open_reader) {
        *err = cdc_sql_error_at(CDC_ERR_PLAN, inner->text, inner->len, inner->filename,
                                inner->q->from.name.line, inner->q->from.name.col,
                                "connector \"%s\" of table \"%s\" cannot be scanned (it is a "
                                "lookup source only)",
                                p->src_res.connector->identifier, src_def->qualified);
        cdc_error_set_hint(*err,
                           "join it as a lookup table: JOIN %s FOR SYSTEM_TIME AS OF "
                           "s.proc_time AS d ON ...",
                           src_def->name);
        return -1;
    }
    p->scan_mode = p->src->ops->changelog_mode(p->src);
    return 0;
}

/* the table row type: every column in declared order */
static int plan_table_row(plan_ctx_t *cx)
{
    const cdc_table_def_t *src_def = cx->src_def;
    cdc_pipe_t *p = cx->p;
    int ncols = cx->ncols = src_def->ncolumns;
    p->table_type = cdc_type_new_row();
    p->table_type->nullable = false;
    for (int c = 0; c < ncols; c++) {
        const cdc_column_def_t *col = &src_def->columns[c];
        const cdc_type_t *ct =
            col->kind == CDC_COLUMN_PHYSICAL ? src_def->schema->children[col->physical] : col->type;
        if (!ct) { /* computed column whose type the catalog could not derive: compile later */
            ct = NULL;
        }
        cdc_type_row_add(p->table_type, col->name,
                         ct ? cdc_type_copy(ct) : cdc_type_new(CDC_T_VARCHAR));
    }
    p->col_scan = cdc_xcalloc((size_t)ncols + 1, sizeof(int));
    p->col_expr = cdc_xcalloc((size_t)ncols + 1, sizeof(cdc_expr_t *));
    p->col_proctime = cdc_xcalloc((size_t)ncols + 1, sizeof(bool));
    return 0;
}

/* a lookup join: the dim side, and the query rewritten to the joined row */
static int plan_join_side(plan_ctx_t *cx)
{
    const cdc_plan_level_t *inner = cx->inner;
    if (!inner->q->njoins)
        return 0;
    int rc = inner->q->joins[0].table.unnest
                 ? cdc_plan_join_unnest(cx->penv, inner, cx->src_def, cx->p->table_type,
                                        &cx->p->unnest, &cx->join_q, &cx->join_on, cx->err)
                 : cdc_plan_join_dim(cx->penv, inner, cx->src_def, cx->p->table_type, &cx->p->join,
                                     &cx->join_q, &cx->join_on, cx->err);
    if (rc < 0)
        return -1;
    cx->the_join = &inner->q->joins[0];
    cx->levels[cx->nlevels - 1].q = cx->join_q;
    return 0;
}

/* columns the innermost query needs, and through computed columns, what those need */
static int plan_needed_columns(plan_ctx_t *cx)
{
    const cdc_table_def_t *src_def = cx->src_def;
    const cdc_plan_level_t *inner = cx->inner;
    cdc_pipe_t *p = cx->p;
    int ncols = cx->ncols;
    bool *need = cx->need = cdc_xcalloc((size_t)ncols + 1, sizeof(bool));
    const char *quals[2] = {src_def->name, inner->q->from.alias};
    for (size_t i = 0; i < inner->q->nitems; i++)
        cdc_plan_mark_refs(inner->q->items[i].expr, p->table_type, quals, 2, need);
    cdc_plan_mark_refs(inner->q->where, p->table_type, quals, 2, need);
    cdc_plan_mark_refs(cx->join_on, p->table_type, NULL, 0, need);
    if (p->unnest)
        cdc_plan_mark_refs(p->unnest->arg_sql, p->table_type, NULL, 0, need);
    for (int c = 0; c < ncols; c++)
        if (need[c] && src_def->columns[c].kind == CDC_COLUMN_COMPUTED)
            cdc_plan_mark_refs(src_def->columns[c].expr, p->table_type, NULL, 0, need);

    /* the access paths of those references (nested projection) */
    cdc_plan_paths_t *pc = &cx->pc;
    pc->row_type = p->table_type;
    pc->quals = quals;
    pc->nquals = 2;
    for (size_t i = 0; i < inner->q->nitems; i++)
        cdc_plan_walk_columns(inner->q->items[i].expr, cdc_plan_path_ref, pc);
    cdc_plan_walk_columns(inner->q->where, cdc_plan_path_ref, pc);
    cdc_plan_walk_columns(cx->join_on, cdc_plan_path_ref, pc);
    if (p->unnest)
        cdc_plan_walk_columns(p->unnest->arg_sql, cdc_plan_path_ref, pc);
    pc->quals = NULL;
    pc->nquals = 0;
    for (int c = 0; c < ncols; c++)
        if (need[c] && src_def->columns[c].kind == CDC_COLUMN_COMPUTED)
            cdc_plan_walk_columns(src_def->columns[c].expr, cdc_plan_path_ref, pc);

    /* primary key columns are needed when the changes are keyed (normalize, upsert sinks) */
    if (p->scan_mode != CDC_MODE_INSERT_ONLY) {
        for (int k = 0; k < src_def->npk; k++)
            for (int c = 0; c < ncols; c++)
                if (src_def->columns[c].kind == CDC_COLUMN_PHYSICAL &&
                    src_def->columns[c].physical == src_def->pk[k])
                    need[c] = true;
    }
    return 0;
}

/*
 * Whether partition `part` may hold rows the innermost WHERE keeps: each
 * conjunct over partition columns only, evaluated on a row holding the
 * partition's values (a conjunct that does not compile or evaluate keeps it).
 */
static bool partition_kept(plan_ctx_t *cx, const cdc_kv_t *part, const cdc_expr_env_t *env)
{
    const cdc_table_def_t *src_def = cx->src_def;
    const cdc_type_t *phys = src_def->schema;
    bool keep = true;
    cdc_row_t *row = cdc_row_new_in(&cx->scratch, (uint32_t)phys->nchildren);
    for (int k = 0; k < part->n; k++) {
        int idx = cdc_type_field_index(phys, part->keys[k]);
        if (idx < 0)
            continue;
        cdc_type_t *nt = cdc_type_copy(phys->children[idx]);
        nt->nullable = true;
        if (cdc_value_from_text(nt, part->values[k], strlen(part->values[k]),
                                CDC_TEXT_ISO8601 | CDC_TEXT_COPY, &cx->scratch, &row->values[idx],
                                NULL) != CDC_TEXT_OK)
            row->values[idx].flags = CDC_V_NULL;
        cdc_type_destroy(nt);
    }
    for (size_t c = 0; c < cx->nconj && keep; c++) {
        bool *refs = cdc_xcalloc((size_t)phys->nchildren + 1, sizeof(bool));
        cdc_plan_mark_refs(cx->conj[c], phys, NULL, 0, refs);
        bool only_parts = true, any = false;
        for (int f = 0; f < phys->nchildren; f++) {
            if (!refs[f])
                continue;
            any = true;
            bool is_part = false;
            for (int pk = 0; pk < src_def->npartition_keys; pk++)
                is_part = is_part || src_def->partition_keys[pk] == f;
            only_parts = only_parts && is_part;
        }
        free(refs);
        if (!any || !only_parts)
            continue;
        cdc_expr_t *e = NULL;
        cdc_error_t *cerr = NULL;
        if (cdc_expr_compile(cx->conj[c], env, &e, &cerr) == 0) {
            bool k2 = true;
            char eb[128];
            if (cdc_expr_eval_predicate(e, row, &cx->scratch, &k2, eb, sizeof(eb)) == 0)
                keep = k2;
        }
        cdc_error_destroy(cerr);
        cdc_expr_destroy(e);
    }
    return keep;
}

/* partition pushdown: conjuncts over partition columns only, decided per partition */
static int plan_partitions(plan_ctx_t *cx)
{
    const cdc_plan_env_t *penv = cx->penv;
    const cdc_table_def_t *src_def = cx->src_def;
    const cdc_plan_level_t *inner = cx->inner;
    cdc_pipe_t *p = cx->p;
    cdc_error_t **err = cx->err;
    cx->nconj =
        inner->q->where ? cdc_expr_conjuncts(inner->q->where, cx->conj, CDC_PLAN_MAX_CONJUNCTS) : 0;
    if (cx->nconj > CDC_PLAN_MAX_CONJUNCTS)
        cx->nconj = CDC_PLAN_MAX_CONJUNCTS;
    if (!(src_def->npartition_keys > 0 && p->src->ops->list_partitions &&
          p->src->ops->apply_partitions && cx->nlevels == 1 && cx->nconj > 0))
        return 0;
    cdc_kv_t *parts = NULL;
    int nparts = 0;
    if (p->src->ops->list_partitions(p->src, &parts, &nparts, err) < 0)
        return -1;
    cdc_expr_env_t env = {.row_type = src_def->schema,
                          .udf_lookup = cdc_plan_udf_lookup,
                          .udf_ctx = penv->cat,
                          .text = penv->text,
                          .len = penv->len,
                          .filename = penv->filename};
    cdc_kv_t *kept = cdc_xcalloc((size_t)nparts + 1, sizeof(cdc_kv_t));
    int nkept = 0;
    bool pruned_any = false;
    for (int i = 0; i < nparts; i++) {
        if (partition_kept(cx, &parts[i], &env))
            cdc_kv_copy(&kept[nkept++], &parts[i]);
        else
            pruned_any = true;
    }
    int rc = 0;
    if (pruned_any) {
        if (p->src->ops->apply_partitions(p->src, kept, nkept, err) < 0) {
            rc = -1;
        } else {
            cdc_buf_t b = {0};
            cdc_buf_putc(&b, '[');
            for (int i = 0; i < nkept; i++) {
                cdc_buf_puts(&b, i ? ", {" : "{");
                for (int k = 0; k < kept[i].n; k++)
                    cdc_buf_printf(&b, "%s%s=%s", k ? ", " : "", kept[i].keys[k],
                                   kept[i].values[k]);
                cdc_buf_putc(&b, '}');
            }
            cdc_buf_putc(&b, ']');
            p->pushed_partitions = cdc_xstrdup(cdc_buf_cstr(&b));
            cdc_buf_free(&b);
        }
    }
    for (int i = 0; i < nkept; i++)
        cdc_kv_free(&kept[i]);
    free(kept);
    for (int i = 0; i < nparts; i++)
        cdc_kv_free(&parts[i]);
    free(parts);
    return rc;
}

/* filter pushdown: simple conjuncts of the innermost WHERE (still evaluated by the Calc) */
static int plan_filters(plan_ctx_t *cx)
{
    const cdc_table_def_t *src_def = cx->src_def;
    cdc_pipe_t *p = cx->p;
    size_t nconj = cx->nconj;
    if (!(p->src->ops->apply_filters && nconj > 0))
        return 0;
    cdc_filter_t *filters = cx->filters = cdc_xcalloc(nconj, sizeof(*filters));
    int nf = 0;
    for (size_t c = 0; c < nconj; c++) {
        if (as_filter(cx->conj[c], src_def, src_def->name, cx->inner->q->from.alias, &cx->scratch,
                      &filters[nf])) {
            cx->filter_texts[nf] = cdc_sql_expr_to_string(cx->conj[c]);
            filters[nf].text = cx->filter_texts[nf];
            nf++;
        }
    }
    if (nf > 0) {
        bool accepted[CDC_PLAN_MAX_CONJUNCTS] = {0};
        p->src->ops->apply_filters(p->src, filters, nf, accepted);
        cdc_buf_t b = {0};
        int na = 0;
        for (int i = 0; i < nf; i++)
            if (accepted[i])
                cdc_buf_printf(&b, "%s%s", na++ ? ", " : "[", filters[i].text);
        if (na) {
            cdc_buf_putc(&b, ']');
            p->pushed_filters = cdc_xstrdup(cdc_buf_cstr(&b));
        }
        cdc_buf_free(&b);
    }
    return 0;
}

/*
 * nested projection: per needed physical column, the nested paths read
 * (over the physical schema), or the whole column when it is read whole
 * anywhere (or needed without a path, e.g. as a primary key column); a
 * path covered by another one is dropped. Returns whether any is nested.
 */
static bool nested_paths(plan_ctx_t *cx)
{
    const cdc_table_def_t *src_def = cx->src_def;
    const cdc_plan_paths_t *pc = &cx->pc;
    const int *proj = cx->proj;
    cdc_field_path_t *npaths = cx->npaths =
        cdc_xcalloc((size_t)pc->n + (size_t)cx->nproj + 1, sizeof(*npaths));
    int nnpaths = 0;
    bool any_nested = false;
    for (int i = 0; i < cx->nproj; i++) {
        int col = -1;
        for (int c = 0; c < cx->ncols && col < 0; c++)
            if (src_def->columns[c].kind == CDC_COLUMN_PHYSICAL &&
                src_def->columns[c].physical == proj[i])
                col = c;
        int first = nnpaths;
        bool whole = false;
        for (int k = 0; k < pc->n && !whole; k++) {
            if (pc->paths[k].idx[0] != col)
                continue;
            if (pc->paths[k].depth == 1) {
                whole = true;
                break;
            }
            cdc_field_path_t fp = pc->paths[k];
            fp.idx[0] = proj[i];
            npaths[nnpaths++] = fp;
        }
        if (whole || nnpaths == first) {
            nnpaths = first;
            npaths[nnpaths++] = (cdc_field_path_t){.depth = 1, .idx = {proj[i]}};
            continue;
        }
        qsort(&npaths[first], (size_t)(nnpaths - first), sizeof(*npaths), cdc_plan_path_cmp);
        int kept = first;
        for (int k = first; k < nnpaths; k++) /* sorted: a covering path comes first */
            if (kept == first || !cdc_plan_path_covers(&npaths[kept - 1], &npaths[k]))
                npaths[kept++] = npaths[k];
        nnpaths = kept;
        any_nested = true;
    }
    cx->nnpaths = nnpaths;
    return any_nested;
}

/* the whole-column scan row: the projected columns, rebuilt from their leaves */
static void whole_row_nest(plan_ctx_t *cx)
{
    const cdc_table_def_t *src_def = cx->src_def;
    cdc_pipe_t *p = cx->p;
    const int *proj = cx->proj;
    const cdc_field_path_t *npaths = cx->npaths;
    p->whole_type = cdc_type_new_row();
    p->whole_type->nullable = false;
    p->whole_nest = cdc_xcalloc((size_t)cx->nproj + 1, sizeof(*p->whole_nest));
    cdc_buf_t b = {0};
    cdc_buf_putc(&b, '[');
    for (int i = 0; i < cx->nphys; i++)
        cx->phys_pos[i] = -1;
    int leaf = 0;
    for (int i = 0; i < cx->nproj; i++) {
        const cdc_type_t *ct = src_def->schema->children[proj[i]];
        cx->phys_pos[proj[i]] = i;
        cdc_type_row_add(p->whole_type, src_def->schema->names[proj[i]], cdc_type_copy(ct));
        cdc_nest_t *root = &p->whole_nest[i];
        root->scan = -1;
        for (; leaf < cx->nnpaths && npaths[leaf].idx[0] == proj[i]; leaf++) {
            const cdc_field_path_t *fp = &npaths[leaf];
            cdc_buf_printf(&b, "%s%s", leaf ? ", " : "", src_def->schema->names[proj[i]]);
            cdc_nest_t *node = root;
            const cdc_type_t *t = ct;
            for (int d = 1; d < fp->depth; d++) {
                if (!node->fields) {
                    node->nfields = t->nchildren;
                    node->fields = cdc_xcalloc((size_t)t->nchildren + 1, sizeof(cdc_nest_t));
                    for (int f = 0; f < t->nchildren; f++)
                        node->fields[f].scan = -1;
                }
                cdc_buf_printf(&b, ".%s", t->names[fp->idx[d]]);
                node = &node->fields[fp->idx[d]];
                t = t->children[fp->idx[d]];
            }
            node->scan = leaf;
        }
    }
    cdc_buf_putc(&b, ']');
    p->proj_text = cdc_xstrdup(cdc_buf_cstr(&b));
    cdc_buf_free(&b);
}

/* projection: the needed physical columns, pushed when the source can (nested when it can) */
static int plan_projection(plan_ctx_t *cx)
{
    const cdc_table_def_t *src_def = cx->src_def;
    cdc_pipe_t *p = cx->p;
    int nphys = cx->nphys = src_def->schema->nchildren;
    int *proj = cx->proj = cdc_xcalloc((size_t)nphys + 1, sizeof(int));
    int nproj = 0;
    for (int c = 0; c < cx->ncols; c++)
        if (cx->need[c] && src_def->columns[c].kind == CDC_COLUMN_PHYSICAL)
            proj[nproj++] = src_def->columns[c].physical;
    /* keep table order of physical columns */
    for (int i = 1; i < nproj; i++)
        for (int j = i; j > 0 && proj[j - 1] > proj[j]; j--) {
            int tmp = proj[j];
            proj[j] = proj[j - 1];
            proj[j - 1] = tmp;
        }
    cx->nproj = nproj;
    cx->phys_pos = cdc_xcalloc((size_t)nphys + 1, sizeof(int)); /* physical -> scan index */
    for (int i = 0; i < nphys; i++)
        cx->phys_pos[i] = i;

    bool any_nested = nested_paths(cx);
    free(cx->pc.paths);
    cx->pc.paths = NULL;
    if (any_nested && p->src->ops->apply_nested_projection &&
        p->src->ops->apply_nested_projection(p->src, cx->npaths, cx->nnpaths) == 0) {
        whole_row_nest(cx);
    } else if (nproj < nphys && p->src->ops->apply_projection &&
               p->src->ops->apply_projection(p->src, proj, nproj) == 0) {
        cdc_buf_t b = {0};
        cdc_buf_putc(&b, '[');
        for (int i = 0; i < nphys; i++)
            cx->phys_pos[i] = -1;
        for (int i = 0; i < nproj; i++) {
            cx->phys_pos[proj[i]] = i;
            cdc_buf_printf(&b, "%s%s", i ? ", " : "", src_def->schema->names[proj[i]]);
        }
        cdc_buf_putc(&b, ']');
        p->proj_text = cdc_xstrdup(cdc_buf_cstr(&b));
        cdc_buf_free(&b);
    } else {
        cx->nproj = nphys;
    }
    cx->nleaves =
        p->whole_nest ? cx->nnpaths : cx->nproj; /* physical fields of the source's rows */
    return 0;
}

/* Adds to @p e where the metadata columns of table @p def are declared and where the query uses
 * the table (@p verb "read" or "written"). */
static void add_metadata_context(cdc_error_t *e, const cdc_table_def_t *def, const char *verb,
                                 const char *filename, int line, int col)
{
    cdc_error_add_context(e, "metadata columns of table \"%s\" (CREATE TABLE at %s:%d:%d)",
                          def->qualified, def->origin ? def->origin : "<input>", def->line,
                          def->col);
    cdc_error_add_context(e, "%s at %s:%d:%d", verb, filename, line, col);
}

/* metadata columns: requested from the source, appended after the physical fields */
static int plan_metadata(plan_ctx_t *cx)
{
    const cdc_table_def_t *src_def = cx->src_def;
    const cdc_plan_level_t *inner = cx->inner;
    cdc_pipe_t *p = cx->p;
    cdc_error_t **err = cx->err;
    int nproj = cx->nproj, nleaves = cx->nleaves;
    const char *keys[64];
    int nkeys = 0;
    for (int c = 0; c < cx->ncols; c++) {
        p->col_scan[c] = -1;
        if (src_def->columns[c].kind == CDC_COLUMN_PHYSICAL)
            p->col_scan[c] = cx->phys_pos[src_def->columns[c].physical];
        else if (src_def->columns[c].kind == CDC_COLUMN_METADATA && cx->need[c] && nkeys < 64) {
            p->col_scan[c] = nproj + nkeys;
            keys[nkeys++] = src_def->columns[c].metadata_key;
        }
    }
    if (nkeys > 0) {
        if (!p->src->ops->apply_metadata) {
            *err = cdc_sql_error_at(CDC_ERR_PLAN, inner->text, inner->len, inner->filename,
                                    inner->q->from.name.line, inner->q->from.name.col,
                                    "connector \"%s\" of table \"%s\" offers no metadata "
                                    "(column reads '%s')",
                                    p->src_res.connector->identifier, src_def->qualified, keys[0]);
            return -1;
        }
        if (p->src->ops->apply_metadata(p->src, keys, nkeys, err) < 0) {
            add_metadata_context(*err, src_def, "read", inner->filename, inner->q->from.name.line,
                                 inner->q->from.name.col);
            return -1;
        }
        cdc_buf_t b = {0};
        for (int i = 0; i < nkeys; i++)
            cdc_buf_printf(&b, "%s%s", i ? ", " : "[", keys[i]);
        cdc_buf_putc(&b, ']');
        p->pushed_metadata = cdc_xstrdup(cdc_buf_cstr(&b));
        cdc_buf_free(&b);
    }
    if (p->whole_nest) {
        /* metadata fields follow the leaves in the source's rows, the columns in the whole row */
        const cdc_type_t *prod = p->src->produced;
        int nmeta = prod->nchildren - nleaves;
        p->whole_nest = cdc_xrealloc(
            p->whole_nest, sizeof(*p->whole_nest) * (size_t)(nproj + (nmeta > 0 ? nmeta : 0) + 1));
        for (int i = 0; i < nmeta; i++) {
            p->whole_nest[nproj + i] = (cdc_nest_t){.scan = nleaves + i};
            cdc_type_row_add(p->whole_type, prod->names[nleaves + i],
                             cdc_type_copy(prod->children[nleaves + i]));
        }
    }
    return 0;
}

/* computed columns over the scan row (the whole-column one under nested projection) */
static int plan_computed_columns(plan_ctx_t *cx)
{
    const cdc_table_def_t *src_def = cx->src_def;
    cdc_pipe_t *p = cx->p;
    cdc_error_t **err = cx->err;
    int ncols = cx->ncols;
    const cdc_type_t *scan_type = cx->scan_type = p->whole_type ? p->whole_type : p->src->produced;
    cdc_expr_env_t env = {.row_type = scan_type,
                          .udf_lookup = cdc_plan_udf_lookup,
                          .udf_ctx = cx->penv->cat,
                          .text = NULL,
                          .len = 0,
                          .filename = src_def->origin};
    for (int c = 0; c < ncols; c++) {
        const cdc_column_def_t *col = &src_def->columns[c];
        if (col->kind != CDC_COLUMN_COMPUTED || !cx->need[c])
            continue;
        if (cdc_plan_is_proctime(col->expr)) {
            p->col_proctime[c] = true;
            cdc_type_destroy(p->table_type->children[c]);
            p->table_type->children[c] = cdc_type_new_sized(CDC_T_TIMESTAMP_LTZ, 3);
            p->table_type->children[c]->nullable = false;
            continue;
        }
        if (cdc_expr_compile(col->expr, &env, &p->col_expr[c], err) < 0) {
            cdc_error_add_context(*err, "computed column \"%s\" of table \"%s\"", col->name,
                                  src_def->qualified);
            return -1;
        }
        cdc_type_destroy(p->table_type->children[c]);
        p->table_type->children[c] = cdc_type_copy(cdc_expr_type(p->col_expr[c]));
    }
    if (p->join && cdc_plan_join_condition(cx->penv, cx->inner, p->join, p->table_type, cx->join_on,
                                           cx->the_join, err) < 0)
        return -1;
    if (p->unnest && cdc_plan_unnest_compile(cx->penv, cx->inner, p->unnest, p->table_type,
                                             cx->join_on, err) < 0)
        return -1;
    p->identity_table = ncols == scan_type->nchildren;
    for (int c = 0; c < ncols && p->identity_table; c++)
        p->identity_table = p->col_scan[c] == c;
    return 0;
}

/* limit: pushed only when nothing between scan and sink can drop or add rows */
static int plan_limit(plan_ctx_t *cx)
{
    cdc_pipe_t *p = cx->p;
    bool simple = cx->nlevels == 1 && !cx->inner->q->where &&
                  p->scan_mode == CDC_MODE_INSERT_ONLY && !p->join && !p->unnest;
    if (p->limit >= 0 && simple && p->src->ops->apply_limit &&
        p->src->ops->apply_limit(p->src, p->limit) == 0)
        p->limit_pushed = true;
    if (p->src->ops->report_row_count)
        p->row_count = p->src->ops->report_row_count(p->src);
    return 0;
}

/* the Calc stages, innermost first; the last one is skipped when it is an identity */
static int plan_stages(plan_ctx_t *cx)
{
    cdc_pipe_t *p = cx->p;
    p->stages = cdc_xcalloc((size_t)cx->nlevels, sizeof(*p->stages));
    const cdc_type_t *in_type = p->join     ? p->join->joined_type
                                : p->unnest ? p->unnest->joined_type
                                            : p->table_type;
    const char *rel_name = cx->src_def->name;
    for (int l = cx->nlevels - 1; l >= 0; l--) {
        if (cdc_plan_compile_stage(cx->penv, &cx->levels[l], in_type, rel_name,
                                   &p->stages[p->nstages], cx->err) < 0) {
            if (p->values_query && cx->levels[l].q == p->values_query)
                cdc_error_add_context(*cx->err,
                                      "in VALUES, whose rows are merged per column as CASE "
                                      "row-number WHEN 0 THEN first-row-value ... ELSE "
                                      "last-row-value END: the values of a column need a "
                                      "common type");
            p->nstages++;
            return -1;
        }
        in_type = p->stages[p->nstages].out_type;
        rel_name = cx->levels[l].rel_name;
        p->nstages++;
    }
    if (p->nstages == 1 && !p->stages[0].where && !p->join && !p->unnest) {
        bool identity = p->stages[0].nitems == p->table_type->nchildren;
        /* a stateful query's top pipe names the result's columns: renames are kept there */
        bool names = cx->penv->stateful_node != NULL;
        for (int i = 0; identity && i < p->stages[0].nitems; i++)
            identity =
                cdc_expr_column_index(p->stages[0].items[i]) == i &&
                (!names || strcmp(p->stages[0].out_type->names[i], p->table_type->names[i]) == 0);
        if (identity) {
            cdc_stage_t *st = &p->stages[0];
            for (int i = 0; i < st->nitems; i++)
                cdc_expr_destroy(st->items[i]);
            free(st->items);
            cdc_type_destroy(st->out_type);
            free(st->explain);
            p->nstages = 0;
            in_type = p->table_type;
        }
    }
    cx->query_type = in_type;
    return 0;
}

/* A bare query's branch of UNION ALL whose column types are not the union's (penv->result_types)
 * gets a Calc casting them, so that every branch prints the common types. */
static int plan_union_cast(plan_ctx_t *cx)
{
    const cdc_type_t *rt = cx->penv->result_types, *qt = cx->query_type;
    bool differ = false;
    for (int i = 0; rt && i < qt->nchildren; i++)
        differ = differ || !cdc_type_equals(qt->children[i], rt->children[i]);
    if (!differ)
        return 0;
    cdc_pipe_t *p = cx->p;
    p->stages = cdc_xrealloc(p->stages, sizeof(*p->stages) * (size_t)(p->nstages + 1));
    cdc_stage_t *st = &p->stages[p->nstages++];
    memset(st, 0, sizeof(*st));
    st->out_type = cdc_type_new_row();
    st->items = cdc_xcalloc((size_t)qt->nchildren, sizeof(*st->items));
    cdc_buf_t ex = {0};
    cdc_buf_puts(&ex, "select=[");
    cdc_expr_env_t env = {.row_type = qt, .text = cx->penv->text, .len = cx->penv->len};
    int rc = 0;
    for (int i = 0; i < qt->nchildren && rc == 0; i++) {
        char *parts[1] = {qt->names[i]};
        cdc_sql_expr_t ref = {.kind = CDC_SQL_EXPR_COLUMN, .line = 1, .col = 1};
        ref.column.parts = parts;
        ref.column.nparts = 1;
        cdc_sql_expr_t cast = {.kind = CDC_SQL_EXPR_CAST, .line = 1, .col = 1};
        cast.cast.operand = &ref;
        cast.cast.type.text = cdc_type_to_string(rt->children[i]);
        bool same = cdc_type_equals(qt->children[i], rt->children[i]);
        rc = cdc_expr_compile(same ? &ref : &cast, &env, &st->items[i], cx->err);
        if (rc == 0) {
            st->nitems++;
            cdc_type_row_add(st->out_type, qt->names[i],
                             cdc_type_copy(cdc_expr_type(st->items[i])));
            if (same)
                cdc_buf_printf(&ex, "%s%s", i ? ", " : "", qt->names[i]);
            else
                cdc_buf_printf(&ex, "%sCAST(%s AS %s) AS %s", i ? ", " : "", qt->names[i],
                               cast.cast.type.text, qt->names[i]);
        }
        free(cast.cast.type.text);
    }
    cdc_buf_putc(&ex, ']');
    st->explain = cdc_xstrdup(cdc_buf_cstr(&ex));
    cdc_buf_free(&ex);
    cx->query_type = st->out_type;
    return rc;
}

/* The writable metadata key of a sink's connector, or NULL. */
static const cdc_metadata_def_t *writable_key(const cdc_connector_factory_t *conn, const char *key)
{
    for (const cdc_metadata_def_t *md = conn->metadata; md && md->key; md++)
        if (md->writable && strcmp(md->key, key) == 0)
            return md;
    return NULL;
}

/*
 * The sink's row, as Flink's persisted schema: the physical columns, then each METADATA
 * column that is not VIRTUAL (its key given to the sink's apply_metadata); computed and
 * VIRTUAL columns are not written. cx->sink_decl lists the persisted columns in declared
 * order, which is the order an INSERT without a column list fills them in.
 */
static int plan_sink_row(plan_ctx_t *cx)
{
    const cdc_plan_env_t *penv = cx->penv;
    const cdc_sql_insert_t *ins = cx->ins;
    const cdc_table_def_t *sink_def = cx->sink_def;
    cdc_pipe_t *p = cx->p;
    const cdc_type_t *phys = sink_def->schema;
    int ncols = sink_def->ncolumns ? sink_def->ncolumns : phys->nchildren;
    cx->sink_decl = cdc_xcalloc((size_t)ncols + 1, sizeof(int));
    const char *keys[64];
    const cdc_type_t *types[64];
    int nmeta = 0;
    cdc_type_t *row = NULL;
    for (int c = 0; c < ncols; c++) {
        const cdc_column_def_t *col = sink_def->ncolumns ? &sink_def->columns[c] : NULL;
        if (!col || col->kind == CDC_COLUMN_PHYSICAL) {
            cx->sink_decl[cx->nsink_decl++] = col ? col->physical : c;
            continue;
        }
        if (col->kind != CDC_COLUMN_METADATA || col->is_virtual)
            continue;
        const cdc_connector_factory_t *conn = p->sink_res.connector;
        bool any = false;
        for (const cdc_metadata_def_t *md = conn->metadata; md && md->key; md++)
            any = any || md->writable;
        if (!any || !p->sink->ops->apply_metadata || nmeta == 64) {
            *cx->err = cdc_sql_error_at(CDC_ERR_PLAN, penv->text, penv->len, penv->filename,
                                        ins->table.line, ins->table.col,
                                        "Table '%s' declares persistable metadata columns, but "
                                        "the underlying sink of connector '%s' doesn't support "
                                        "writing metadata (column '%s')",
                                        sink_def->qualified, conn->identifier, col->name);
            cdc_error_set_hint(*cx->err, "If the column should not be persisted, it can be "
                                         "declared with the VIRTUAL keyword.");
            cdc_type_destroy(row);
            return -1;
        }
        if (!writable_key(conn, col->metadata_key)) {
            cdc_buf_t avail = {0};
            for (const cdc_metadata_def_t *md = conn->metadata; md && md->key; md++)
                if (md->writable)
                    cdc_buf_printf(&avail, "%s%s", avail.len ? ", " : "", md->key);
            *cx->err = cdc_sql_error_at(CDC_ERR_PLAN, penv->text, penv->len, penv->filename,
                                        ins->table.line, ins->table.col,
                                        "Invalid metadata key '%s' in column '%s' of table '%s'. "
                                        "The sink of connector '%s' supports the following "
                                        "metadata keys for writing: %s",
                                        col->metadata_key, col->name, sink_def->qualified,
                                        conn->identifier, cdc_buf_cstr(&avail));
            cdc_error_set_hint(*cx->err, "a read-only metadata column must be declared VIRTUAL "
                                         "to be left out of INSERT INTO");
            cdc_buf_free(&avail);
            cdc_type_destroy(row);
            return -1;
        }
        if (!row)
            row = cdc_type_copy(phys);
        keys[nmeta] = col->metadata_key;
        types[nmeta++] = col->type;
        cx->sink_decl[cx->nsink_decl++] = row->nchildren;
        cdc_type_row_add(row, col->name, cdc_type_copy(col->type));
    }
    p->sink_row = row;
    p->sink_schema = cx->sink_row = row ? row : phys;
    if (nmeta && p->sink->ops->apply_metadata(p->sink, keys, types, nmeta, cx->err) < 0) {
        add_metadata_context(*cx->err, sink_def, "written", penv->filename, ins->table.line,
                             ins->table.col);
        return -1;
    }
    return 0;
}

/* the sink: the table, or for a bare query a print sink shaped like the query */
static int plan_sink(plan_ctx_t *cx)
{
    const cdc_plan_env_t *penv = cx->penv;
    const cdc_sql_insert_t *ins = cx->ins;
    cdc_pipe_t *p = cx->p;
    cdc_error_t **err = cx->err;
    if (cx->result_mode) {
        cdc_table_def_t *rd = cdc_xcalloc(1, sizeof(*rd));
        rd->catalog = cdc_xstrdup("");
        rd->database = cdc_xstrdup("");
        rd->name = cdc_xstrdup("*result*");
        rd->qualified = cdc_xstrdup("*result*");
        rd->schema = cdc_type_copy(cx->query_type);
        cdc_kv_set(&rd->options, "connector", "print");
        p->result_def = rd;
        cx->sink_def = rd;
    }
    const cdc_table_def_t *sink_def = cx->sink_def;
    p->sink_name = cdc_xstrdup(sink_def->qualified);
    p->sink_schema = sink_def->schema;
    if (cdc_plan_build_ctx(sink_def, &ins->hints, &p->sink_res, &p->sink_ctx, p->parallelism, err) <
        0)
        return -1;
    if (!p->sink_res.connector->sink_new) {
        *err = cdc_sql_error_at(CDC_ERR_PLAN, penv->text, penv->len, penv->filename,
                                ins->table.line, ins->table.col,
                                "connector \"%s\" of table \"%s\" cannot be written (it is a "
                                "source only)",
                                p->sink_res.connector->identifier, sink_def->qualified);
        return -1;
    }
    if (p->sink_res.connector->sink_new(&p->sink_ctx, &p->sink, err) < 0) {
        cdc_error_add_context(*err, "table \"%s\"", sink_def->qualified);
        cdc_plan_context_create_table(*err, sink_def);
        return -1;
    }
    return plan_sink_row(cx);
}

/*
 * The expression that fills sink column @p i when no query column feeds it: the static
 * partition value of INSERT ... PARTITION (k = 'v') cast to the column's type, else NULL
 * (a target column list that leaves the column out). Returns a new tree the caller frees.
 */
static cdc_sql_expr_t *fill_expr(plan_ctx_t *cx, int i)
{
    const cdc_type_t *to = cx->sink_row->children[i];
    const cdc_sql_option_t *o = cdc_sql_options_find(&cx->ins->partition, cx->sink_row->names[i]);
    cdc_sql_expr_t *lit = cdc_xcalloc(1, sizeof(*lit));
    lit->kind = CDC_SQL_EXPR_LITERAL;
    lit->line = o ? o->value_line : cx->ins->table.line;
    lit->col = o ? o->value_col : cx->ins->table.col;
    lit->literal.kind = o ? CDC_SQL_LIT_STRING : CDC_SQL_LIT_NULL;
    lit->literal.text = cdc_xstrdup(o ? o->value : "NULL");
    cdc_sql_expr_t *cast = cdc_xcalloc(1, sizeof(*cast));
    cast->kind = CDC_SQL_EXPR_CAST;
    cast->line = lit->line;
    cast->col = lit->col;
    cast->cast.operand = lit;
    cdc_type_t *nullable = cdc_type_copy(to);
    nullable->nullable = true;
    cast->cast.type.text = cdc_type_to_string(nullable);
    cast->cast.type.line = lit->line;
    cast->cast.type.col = lit->col;
    cdc_type_destroy(nullable);
    return cast;
}

/* a final Calc that puts the query's columns into the sink's column order (order[i] is the
   query column of sink column i) and fills the others (order[i] < 0, fill_expr) */
static int reorder_stage(plan_ctx_t *cx, const int *order)
{
    cdc_pipe_t *p = cx->p;
    const cdc_type_t *query_type = cx->query_type;
    const cdc_type_t *ks = cx->sink_row;
    int nk = ks->nchildren;
    p->stages = cdc_xrealloc(p->stages, sizeof(*p->stages) * (size_t)(p->nstages + 1));
    cdc_stage_t *st = &p->stages[p->nstages];
    memset(st, 0, sizeof(*st));
    st->out_type = cdc_type_new_row();
    st->items = cdc_xcalloc((size_t)nk, sizeof(*st->items));
    p->nstages++;
    cdc_buf_t ex = {0};
    cdc_buf_puts(&ex, "select=[");
    cdc_expr_env_t env = {.row_type = query_type, .text = cx->penv->text, .len = cx->penv->len};
    int rc = 0;
    for (int i = 0; i < nk && rc == 0; i++) {
        cdc_sql_expr_t ref = {.kind = CDC_SQL_EXPR_COLUMN, .line = 1, .col = 1};
        cdc_sql_expr_t *fill = order[i] < 0 ? fill_expr(cx, i) : NULL;
        char *parts[1] = {order[i] < 0 ? NULL : query_type->names[order[i]]};
        ref.column.parts = parts;
        ref.column.nparts = 1;
        rc = cdc_expr_compile(fill ? fill : &ref, &env, &st->items[i], cx->err);
        if (rc == 0) {
            st->nitems++;
            cdc_type_row_add(st->out_type, ks->names[i],
                             cdc_type_copy(cdc_expr_type(st->items[i])));
            char *text = fill ? cdc_sql_expr_to_string(fill) : NULL;
            if (fill)
                cdc_buf_printf(&ex, "%s%s AS %s", i ? ", " : "", text, ks->names[i]);
            else
                cdc_buf_printf(&ex, "%s%s", i ? ", " : "", parts[0]);
            free(text);
        }
        cdc_sql_expr_destroy(fill);
    }
    cdc_buf_putc(&ex, ']');
    st->explain = cdc_xstrdup(cdc_buf_cstr(&ex));
    cdc_buf_free(&ex);
    return rc;
}

/* Checks each sink column can take its query column (type, nullability); a filled column
   (order[i] < 0) gets NULL unless it is a static partition column. Returns 0 or -1. */
static int check_assignable(plan_ctx_t *cx, const int *order)
{
    const cdc_plan_env_t *penv = cx->penv;
    const cdc_sql_insert_t *ins = cx->ins;
    const cdc_table_def_t *sink_def = cx->sink_def;
    const cdc_type_t *query_type = cx->query_type;
    const cdc_type_t *ks = cx->sink_row;
    cdc_error_t **err = cx->err;
    for (int i = 0; i < ks->nchildren; i++) {
        int qi = order[i];
        const cdc_type_t *to = ks->children[i];
        if (qi < 0) {
            if (!to->nullable && !cdc_sql_options_find(&ins->partition, ks->names[i])) {
                *err = cdc_sql_error_at(CDC_ERR_SQL, penv->text, penv->len, penv->filename,
                                        ins->table.line, ins->table.col,
                                        "column \"%s\" of \"%s\" is NOT NULL but the INSERT "
                                        "gives it no value",
                                        ks->names[i], sink_def->qualified);
                cdc_error_set_hint(*err,
                                   "name \"%s\" in the INSERT's column list and select a "
                                   "value for it",
                                   ks->names[i]);
                return -1;
            }
            continue;
        }
        const cdc_type_t *from = query_type->children[qi];
        if (!assignable(from, to)) {
            char *a = cdc_type_to_string(from), *b = cdc_type_to_string(to);
            *err = cdc_sql_error_at(CDC_ERR_SQL, penv->text, penv->len, penv->filename,
                                    ins->query->line, ins->query->col,
                                    "column \"%s\" of type %s cannot be written to column "
                                    "\"%s\" of type %s",
                                    query_type->names[qi], a, ks->names[i], b);
            free(a);
            free(b);
            return -1;
        }
        if (!to->nullable && from->nullable) {
            /* checked per row, as Flink's table.exec.sink.not-null-enforcer */
            cdc_pipe_t *p = cx->p;
            p->not_null_cols =
                cdc_xrealloc(p->not_null_cols, sizeof(int) * (size_t)(p->nnot_null + 1));
            p->not_null_cols[p->nnot_null++] = i;
            p->not_null_drop = penv->not_null_drop;
        }
    }
    return 0;
}

/* The sink column order[] entry of each target column: the INSERT's column list, or every
   column that is not a static partition column, in table order. Returns the count, or -1. */
static int target_columns(plan_ctx_t *cx, int *order)
{
    const cdc_plan_env_t *penv = cx->penv;
    const cdc_sql_insert_t *ins = cx->ins;
    const cdc_table_def_t *sink_def = cx->sink_def;
    const cdc_type_t *ks = cx->sink_row;
    int n = 0;
    if (!ins->columns.count) {
        for (int d = 0; d < cx->nsink_decl; d++)
            if (!cdc_sql_options_find(&ins->partition, ks->names[cx->sink_decl[d]]))
                order[cx->sink_decl[d]] = n++;
        return n;
    }
    for (size_t i = 0; i < ins->columns.count; i++) {
        const cdc_sql_ident_t *id = &ins->columns.items[i];
        int idx = cdc_type_field_index(ks, id->name);
        const char *why = idx < 0                                           ? "not found in"
                          : order[idx] >= 0                                 ? "named twice for"
                          : cdc_sql_options_find(&ins->partition, id->name) ? "a static partition "
                                                                              "column of"
                                                                            : NULL;
        if (why) {
            *cx->err =
                cdc_sql_error_at(CDC_ERR_SQL, penv->text, penv->len, penv->filename, id->line,
                                 id->col, "column \"%s\" %s%s table \"%s\"", id->name,
                                 idx >= 0 && order[idx] < 0 ? "is " : "", why, sink_def->qualified);
            return -1;
        }
        order[idx] = n++;
    }
    return n;
}

/* map the query's columns onto the sink's: a target column list may leave columns out (they
   get NULL) and static partition columns get their PARTITION value, as in Flink */
static int plan_column_map(plan_ctx_t *cx)
{
    const cdc_plan_env_t *penv = cx->penv;
    const cdc_sql_insert_t *ins = cx->ins;
    const cdc_table_def_t *sink_def = cx->sink_def;
    cdc_error_t **err = cx->err;
    const cdc_type_t *ks = cx->sink_row;
    int nq = cx->query_type->nchildren;
    int *order = cdc_xcalloc((size_t)ks->nchildren + 1, sizeof(int)); /* sink -> query column */
    for (int i = 0; i < ks->nchildren; i++)
        order[i] = -1;
    int ntarget = target_columns(cx, order);
    if (ntarget < 0) {
        free(order);
        return -1;
    }
    if (nq != ntarget) {
        *err = cdc_sql_error_at(
            CDC_ERR_SQL, penv->text, penv->len, penv->filename, ins->query->line, ins->query->col,
            ins->columns.count     ? "the query produces %d columns but the column list of "
                                     "table \"%s\" names %d"
            : ins->partition.count ? "the query produces %d columns but table \"%s\" has %d "
                                     "besides its static partition columns"
                                   : "the query produces %d columns but table \"%s\" has %d",
            nq, sink_def->qualified, ntarget);
        if (ins->partition.count && !ins->columns.count)
            cdc_error_set_hint(*err, "static partition columns take their value from "
                                     "PARTITION (...): leave them out of the SELECT");
        free(order);
        return -1;
    }
    int rc = check_assignable(cx, order);
    bool identity = nq == ks->nchildren;
    for (int i = 0; identity && i < ks->nchildren; i++)
        identity = order[i] == i;
    if (rc == 0 && !identity)
        rc = reorder_stage(cx, order);
    free(order);
    return rc;
}

/* sink abilities asked for by the statement */
static int plan_sink_abilities(plan_ctx_t *cx)
{
    const cdc_plan_env_t *penv = cx->penv;
    const cdc_sql_insert_t *ins = cx->ins;
    const cdc_table_def_t *sink_def = cx->sink_def;
    cdc_pipe_t *p = cx->p;
    cdc_error_t **err = cx->err;
    if (ins->overwrite) {
        if (!p->sink->ops->apply_overwrite) {
            *err = cdc_sql_error_at(CDC_ERR_PLAN, penv->text, penv->len, penv->filename,
                                    ins->table.line, ins->table.col,
                                    "connector \"%s\" of table \"%s\" does not support INSERT "
                                    "OVERWRITE",
                                    p->sink_res.connector->identifier, sink_def->qualified);
            return -1;
        }
        if (p->sink->ops->apply_overwrite(p->sink, true, err) < 0)
            return -1;
    }
    if (ins->partition.count) {
        if (!p->sink->ops->apply_static_partition) {
            *err = cdc_sql_error_at(CDC_ERR_PLAN, penv->text, penv->len, penv->filename,
                                    ins->table.line, ins->table.col,
                                    "connector \"%s\" of table \"%s\" does not support static "
                                    "partitions",
                                    p->sink_res.connector->identifier, sink_def->qualified);
            return -1;
        }
        cdc_kv_t kv = {0};
        for (size_t i = 0; i < ins->partition.count; i++) {
            const cdc_sql_option_t *o = &ins->partition.items[i];
            bool is_key = false;
            for (int k = 0; k < sink_def->npartition_keys; k++)
                is_key = is_key ||
                         strcmp(sink_def->schema->names[sink_def->partition_keys[k]], o->key) == 0;
            if (!is_key) {
                *err = cdc_sql_error_at(CDC_ERR_SQL, penv->text, penv->len, penv->filename, o->line,
                                        o->col, "\"%s\" is not a partition column of \"%s\"",
                                        o->key, sink_def->qualified);
                cdc_kv_free(&kv);
                return -1;
            }
            cdc_kv_set(&kv, o->key, o->value);
        }
        int rc = p->sink->ops->apply_static_partition(p->sink, &kv, err);
        cdc_kv_free(&kv);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* ChangelogNormalize keyed by the source's primary key (as columns of the table row) */
static void add_normalize(plan_ctx_t *cx)
{
    const cdc_table_def_t *src_def = cx->src_def;
    cdc_pipe_t *p = cx->p;
    p->nnorm_key = src_def->npk;
    p->norm_key = cdc_xcalloc((size_t)src_def->npk, sizeof(int));
    for (int k = 0; k < src_def->npk; k++)
        for (int c = 0; c < cx->ncols; c++)
            if (src_def->columns[c].kind == CDC_COLUMN_PHYSICAL &&
                src_def->columns[c].physical == src_def->pk[k])
                p->norm_key[k] = c;
    p->norm = cdc_norm_new(p->table_type);
    pthread_mutex_init(&p->norm_lock, NULL);
}

/* changelog negotiation: the source's changes, ChangelogNormalize, DropUpdateBefore, the sink's */
static int plan_changelog(plan_ctx_t *cx)
{
    const cdc_plan_env_t *penv = cx->penv;
    const cdc_sql_insert_t *ins = cx->ins;
    const cdc_table_def_t *src_def = cx->src_def, *sink_def = cx->sink_def;
    const cdc_plan_level_t *inner = cx->inner;
    cdc_pipe_t *p = cx->p;
    cdc_error_t **err = cx->err;
    cdc_changelog_mode_t mode = p->scan_mode;
    bool has_ua = (mode & CDC_MODE_BIT(CDC_UPDATE_AFTER)) != 0;
    bool has_ub = (mode & CDC_MODE_BIT(CDC_UPDATE_BEFORE)) != 0;
    if (has_ub && !has_ua) {
        *err = cdc_sql_error_at(CDC_ERR_PLAN, inner->text, inner->len, inner->filename,
                                inner->q->from.name.line, inner->q->from.name.col,
                                "Table '%s' produces a changelog stream that contains "
                                "UPDATE_BEFORE but no UPDATE_AFTER, which is invalid",
                                src_def->qualified);
        return -1;
    }
    bool upsert_source = has_ua && !has_ub;
    if ((upsert_source || (penv->cdc_events_duplicate && mode != CDC_MODE_INSERT_ONLY)) &&
        src_def->npk == 0) {
        if (upsert_source)
            *err = cdc_sql_error_at(CDC_ERR_PLAN, inner->text, inner->len, inner->filename,
                                    inner->q->from.name.line, inner->q->from.name.col,
                                    "Table '%s' produces a changelog stream that contains "
                                    "UPDATE_AFTER but no UPDATE_BEFORE. This requires defining a "
                                    "primary key constraint on the table.",
                                    src_def->qualified);
        else
            *err = cdc_sql_error_at(CDC_ERR_PLAN, inner->text, inner->len, inner->filename,
                                    inner->q->from.name.line, inner->q->from.name.col,
                                    "Configuration 'table.exec.source.cdc-events-duplicate' is "
                                    "enabled which requires the changelog sources to define a "
                                    "PRIMARY KEY. However, table '%s' doesn't have a primary "
                                    "key.",
                                    src_def->qualified);
        return -1;
    }
    cdc_changelog_mode_t accepted = p->sink->ops->changelog_mode(p->sink, mode | CDC_MODE_ALL);
    if (upsert_source && (accepted & CDC_MODE_BIT(CDC_UPDATE_BEFORE)))
        p->normalize = true;
    if (penv->cdc_events_duplicate && mode != CDC_MODE_INSERT_ONLY)
        p->normalize = true;
    if (p->normalize) {
        mode = CDC_MODE_ALL;
        add_normalize(cx);
    }
    if ((mode & CDC_MODE_BIT(CDC_UPDATE_BEFORE)) && !(accepted & CDC_MODE_BIT(CDC_UPDATE_BEFORE)) &&
        (accepted & CDC_MODE_BIT(CDC_UPDATE_AFTER))) {
        p->drop_update_before = true;
        mode &= (cdc_changelog_mode_t)~CDC_MODE_BIT(CDC_UPDATE_BEFORE);
        /* a filter after the updates may let a row's -U through and stop its +U (the row no
           longer passes): the sink must then delete it, so such -U become -D (Flink keeps
           UPDATE_BEFORE before such a filter, and upsert sinks delete on it) */
        for (int s = 0; s < p->nstages; s++)
            if (p->stages[s].where && (accepted & CDC_MODE_BIT(CDC_DELETE)))
                p->update_before_as_delete = true;
        if (p->update_before_as_delete)
            mode |= CDC_MODE_BIT(CDC_DELETE);
    }
    cx->mode = mode;
    cx->accepted = accepted;
    cdc_changelog_mode_t missing = mode & (cdc_changelog_mode_t)~accepted;
    if (missing) {
        cdc_buf_t kinds = {0}, node = {0};
        kinds_text(missing, &kinds);
        if (penv->stateful_node) { /* as Flink: the node that makes the updates */
            const char *e = penv->stateful_node, *cm = strstr(e, ", changelogMode=");
            cdc_buf_append(&node, e, cm ? (size_t)(cm - e) : strlen(e));
            if (cm)
                cdc_buf_putc(&node, ')');
        } else {
            scan_node(p, &node, false);
        }
        *err = cdc_sql_error_at(CDC_ERR_PLAN, penv->text, penv->len, penv->filename,
                                ins->table.line, ins->table.col,
                                "Table sink '%s' doesn't support consuming %s changes which is "
                                "produced by node %s",
                                sink_def->qualified, cdc_buf_cstr(&kinds), cdc_buf_cstr(&node));
        if (sink_def->npk == 0 && (accepted & CDC_MODE_BIT(CDC_UPDATE_AFTER)) == 0)
            cdc_error_set_hint(*err,
                               "declare a PRIMARY KEY on \"%s\" if its connector can "
                               "apply updates and deletes by key",
                               sink_def->qualified);
        cdc_buf_free(&kinds);
        cdc_buf_free(&node);
        return -1;
    }
    return 0;
}

/* a sink keyed by a primary key must get changes keyed the same way */
static int plan_sink_key(plan_ctx_t *cx)
{
    const cdc_plan_env_t *penv = cx->penv;
    const cdc_table_def_t *src_def = cx->src_def, *sink_def = cx->sink_def;
    cdc_pipe_t *p = cx->p;
    /* the output of stateful operators: its unique keys are checked by cdc_plan_stateful */
    bool graph_output = strcmp(p->src_res.connector->identifier, "$stateful") == 0;
    if (cx->mode != CDC_MODE_INSERT_ONLY && sink_def->npk > 0 && !graph_output) {
        bool ok = src_def->npk == sink_def->npk;
        for (int k = 0; ok && k < sink_def->npk; k++) {
            /* the sink's key column must be a bare reference, through every stage, to a
               primary key column of the source */
            int idx = sink_def->pk[k];
            for (int s = p->nstages - 1; s >= 0 && idx >= 0; s--)
                idx = cdc_expr_column_index(p->stages[s].items[idx]);
            bool in_src_pk = false;
            for (int j = 0; idx >= 0 && idx < cx->ncols && j < src_def->npk; j++)
                in_src_pk = in_src_pk || (src_def->columns[idx].kind == CDC_COLUMN_PHYSICAL &&
                                          src_def->columns[idx].physical == src_def->pk[j]);
            ok = in_src_pk;
        }
        if (!ok) {
            *cx->err = cdc_sql_error_at(CDC_ERR_PLAN, penv->text, penv->len, penv->filename,
                                        cx->ins->table.line, cx->ins->table.col,
                                        "the primary key of table sink '%s' does not match the "
                                        "key of the changes from '%s'",
                                        sink_def->qualified, src_def->qualified);
            cdc_error_set_hint(*cx->err, "updates and deletes are applied by key: the sink's "
                                         "PRIMARY KEY columns must be the source's PRIMARY KEY "
                                         "columns, selected unchanged");
            return -1;
        }
    }
    p->mode = cx->mode;
    return 0;
}

static void plan_ctx_free(plan_ctx_t *cx)
{
    for (int i = 0; i < CDC_PLAN_MAX_CONJUNCTS; i++)
        free(cx->filter_texts[i]);
    free(cx->filters);
    free(cx->need);
    free(cx->pc.paths);
    free(cx->proj);
    free(cx->phys_pos);
    free(cx->npaths);
    free(cx->sink_decl);
    cdc_arena_free(&cx->scratch);
    cdc_plan_join_query_free(cx->join_q);
    cdc_sql_expr_destroy(cx->join_on);
    cdc_table_def_destroy(cx->values_def);
    cdc_sql_query_destroy(cx->values_q);
    for (int l = 0; l < cx->nlevels; l++)
        if (cx->levels[l].owned_name)
            free((char *)cx->levels[l].filename);
}

/* The phases of cdc_plan_insert, in order; each returns 0, or -1 with *cx->err. */
static int (*const plan_phases[])(plan_ctx_t *cx) = {
    plan_sink_table,       /* the sink table (none for a bare query) */
    plan_query_chain,      /* the INSERT's query, then each view's, down to the source table */
    plan_source,           /* the pipe and its source */
    plan_table_row,        /* the table row: every column of the source table */
    plan_join_side,        /* a lookup join's dim table; the query rewritten to the joined row */
    plan_needed_columns,   /* the columns (and nested paths) the query reads */
    plan_partitions,       /* partition pushdown */
    plan_filters,          /* filter pushdown */
    plan_projection,       /* projection pushdown, nested when the source can */
    plan_metadata,         /* metadata columns requested from the source */
    plan_computed_columns, /* computed columns; the lookup join's keys and conditions */
    plan_limit,            /* limit pushdown, row count */
    plan_stages,           /* the Calc stages of the views and the query */
    plan_union_cast,       /* a bare query's UNION ALL branch cast to the union's types */
    plan_sink,             /* the sink (a print sink for a bare query) */
    plan_column_map,       /* the query's columns onto the sink's */
    plan_sink_abilities,   /* INSERT OVERWRITE, static partitions */
    plan_changelog,        /* changelog negotiation: ChangelogNormalize, DropUpdateBefore */
    plan_sink_key,         /* a keyed sink gets changes keyed the same way */
};

int cdc_plan_insert(const cdc_plan_env_t *penv, const cdc_sql_insert_t *ins, cdc_pipe_t **out,
                    cdc_error_t **err)
{
    cdc_plan_branch_t br = {0};
    return cdc_plan_insert_branch(penv, ins, &br, out, err);
}

int cdc_plan_insert_branch(const cdc_plan_env_t *penv, const cdc_sql_insert_t *ins,
                           cdc_plan_branch_t *br, cdc_pipe_t **out, cdc_error_t **err)
{
    br->depth = 0;
    plan_ctx_t cx = {.penv = penv, .ins = ins, .err = err, .br = br};
    cdc_arena_init(&cx.scratch);
    for (size_t i = 0; i < sizeof(plan_phases) / sizeof(plan_phases[0]); i++) {
        if (plan_phases[i](&cx) < 0) {
            plan_ctx_free(&cx);
            cdc_pipe_destroy(cx.p);
            return -1;
        }
    }
    plan_ctx_free(&cx);
    *out = cx.p;
    return 0;
}
