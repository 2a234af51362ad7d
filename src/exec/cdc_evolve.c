/*
 * cdc_evolve.c — schema.change.behavior: from a source's schema change to the
 * edits of the pipeline's two tables (source and sink), their application
 * (the sink's apply_schema_change, the catalog), and the record a restarted
 * process re-applies.
 *
 * What each policy does (Flink CDC's meanings; README "Schema changes"):
 * - exception: the job fails at the change, naming it; nothing is committed
 *   past it.
 * - ignore: nothing changes; the declared columns go on as they are.
 * - lenient (default): an added column is added (nullable) to the source's
 *   declared columns and to the sink when the source table says
 *   'schema.evolution.columns' = 'all' and the query carries it (SELECT *);
 *   a dropped column is made nullable; a rename is a drop plus an add; a type
 *   is widened; TRUNCATE and DROP TABLE are not carried.
 * - evolve: the same, but drops and renames are applied to both tables and
 *   TRUNCATE empties the sink; anything the sink cannot do fails the job.
 * - try_evolve: as evolve; what the sink cannot do is warned about and left.
 * A change is carried to a sink column only through a query item that is
 * the column itself (`*`, `c`, `c AS x`); added columns only through a final
 * `*` without an INSERT column list (they are appended to both tables).
 */
#include "cdc_evolve.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cdc_ddl.h"
#include "cdc_plan_int.h"
#include "cdc_log.h"
#include "cdc_runtime.h"
#include "cdc_util.h"

void cdc_evolve_clear(cdc_evolve_t *ev)
{
    cdc_schema_change_free(ev->src_edits);
    cdc_schema_change_free(ev->sink_edits);
    cdc_buf_free(&ev->notes);
    memset(ev, 0, sizeof(*ev));
}

int cdc_evolve_table_options(const cdc_table_def_t *t, cdc_sc_policy_t *policy, bool *has_policy,
                             bool *all_columns, cdc_error_t **err)
{
    const char *b = cdc_kv_get(&t->options, "schema.change.behavior");
    const char *c = cdc_kv_get(&t->options, "schema.evolution.columns");
    *has_policy = b != NULL;
    *all_columns = false;
    if (b && cdc_sc_policy_parse(b, policy) < 0)
        return cdc_error_set(err, CDC_ERR_OPTION,
                             "table \"%s\": 'schema.change.behavior' = '%s': expected exception, "
                             "evolve, try_evolve, lenient or ignore",
                             t->qualified, b);
    if (c && strcasecmp(c, "all") != 0 && strcasecmp(c, "declared") != 0)
        return cdc_error_set(err, CDC_ERR_OPTION,
                             "table \"%s\": 'schema.evolution.columns' = '%s': expected declared "
                             "or all",
                             t->qualified, c);
    *all_columns = c && strcasecmp(c, "all") == 0;
    return 0;
}

/* ---- the query's column mapping ------------------------------------------------------------ */

/* Per output column of the query: the source column it is, or NULL for an expression. */
typedef struct qmap {
    const char **from; /* per output column */
    int n;
    bool star_last;  /* the last select item is * (added columns would come last) */
    bool col_list;   /* INSERT INTO t (cols) */
    const char **to; /* per output column: the sink column it fills */
    int nto;
} qmap_t;

static bool is_from_ref(const cdc_sql_query_t *q, const cdc_sql_expr_t *e)
{
    if (e->kind != CDC_SQL_EXPR_COLUMN)
        return false;
    if (e->column.nparts == 1)
        return true;
    const char *qual = e->column.parts[0];
    return e->column.nparts == 2 &&
           ((q->from.alias && strcmp(q->from.alias, qual) == 0) ||
            strcmp(q->from.name.parts[q->from.name.nparts - 1], qual) == 0);
}

static void qmap_build(const cdc_sql_insert_t *ins, const cdc_table_def_t *src,
                       const cdc_table_def_t *sink, qmap_t *m)
{
    const cdc_sql_query_t *q = ins->query;
    memset(m, 0, sizeof(*m));
    int cap = src->ncolumns * (int)q->nitems + (int)q->nitems + 1;
    m->from = cdc_xcalloc((size_t)cap, sizeof(*m->from));
    for (size_t i = 0; i < q->nitems; i++) {
        const cdc_sql_expr_t *e = q->items[i].expr;
        if (e->kind == CDC_SQL_EXPR_STAR) {
            for (int c = 0; c < src->ncolumns; c++)
                m->from[m->n++] =
                    src->columns[c].kind == CDC_COLUMN_PHYSICAL ? src->columns[c].name : NULL;
            m->star_last = i + 1 == q->nitems;
        } else {
            m->from[m->n++] = is_from_ref(q, e) ? e->column.parts[e->column.nparts - 1] : NULL;
        }
    }
    m->col_list = ins->columns.count > 0;
    m->to = cdc_xcalloc((size_t)m->n + 1, sizeof(*m->to));
    if (m->col_list) {
        for (int i = 0; i < (int)ins->columns.count && i < m->n; i++)
            m->to[m->nto++] = ins->columns.items[i].name;
    } else {
        for (int c = 0; c < sink->ncolumns && m->nto < m->n; c++)
            if (sink->columns[c].kind == CDC_COLUMN_PHYSICAL)
                m->to[m->nto++] = sink->columns[c].name;
    }
}

static void qmap_free(qmap_t *m)
{
    free(m->from);
    free(m->to);
}

/* Whether the query names source column `col` anywhere but through `*` (an item, WHERE, GROUP
 * BY, HAVING, ORDER BY). */
typedef struct named_ctx {
    const char *col;
    bool found;
} named_ctx_t;

static void named_visit(const cdc_sql_expr_t *ref, void *ctx)
{
    named_ctx_t *n = ctx;
    if (strcmp(ref->column.parts[ref->column.nparts - 1], n->col) == 0 ||
        strcmp(ref->column.parts[0], n->col) == 0)
        n->found = true;
}

static bool query_names(const cdc_sql_query_t *q, const char *col)
{
    named_ctx_t n = {col, false};
    for (size_t i = 0; i < q->nitems; i++)
        if (q->items[i].expr->kind != CDC_SQL_EXPR_STAR)
            cdc_plan_walk_columns(q->items[i].expr, named_visit, &n);
    cdc_plan_walk_columns(q->where, named_visit, &n);
    for (size_t i = 0; i < q->ngroup_by; i++)
        cdc_plan_walk_columns(q->group_by[i], named_visit, &n);
    cdc_plan_walk_columns(q->having, named_visit, &n);
    for (size_t i = 0; i < q->norder_by; i++)
        cdc_plan_walk_columns(q->order_by[i].expr, named_visit, &n);
    return n.found;
}

/* ---- types -------------------------------------------------------------------------------- */

static int int_rank(cdc_type_root_t r)
{
    return r == CDC_T_TINYINT ? 1 : r == CDC_T_SMALLINT ? 2 : r == CDC_T_INT ? 3 : 4;
}

/* Whether every value of `src` fits `decl` (nullability aside). */
static bool type_covers(const cdc_type_t *decl, const cdc_type_t *src)
{
    bool sd = decl->root == CDC_T_CHAR || decl->root == CDC_T_VARCHAR;
    bool ss = src->root == CDC_T_CHAR || src->root == CDC_T_VARCHAR;
    bool bd = decl->root == CDC_T_BINARY || decl->root == CDC_T_VARBINARY;
    bool bs = src->root == CDC_T_BINARY || src->root == CDC_T_VARBINARY;
    if (sd || ss)
        return sd && ss && decl->length >= src->length;
    if (bd || bs)
        return bd && bs && decl->length >= src->length;
    if (cdc_type_is_integer(decl) && cdc_type_is_integer(src))
        return int_rank(decl->root) >= int_rank(src->root);
    if (decl->root == CDC_T_DECIMAL && src->root == CDC_T_DECIMAL)
        return decl->scale >= src->scale &&
               decl->precision - decl->scale >= src->precision - src->scale;
    if (decl->root == CDC_T_DECIMAL && cdc_type_is_integer(src))
        return decl->precision - decl->scale >= (int[]){0, 3, 5, 10, 19}[int_rank(src->root)];
    if (decl->root == CDC_T_DOUBLE && (src->root == CDC_T_FLOAT || cdc_type_is_integer(src)))
        return true;
    if (decl->root != src->root)
        return false;
    if (decl->root == CDC_T_TIMESTAMP || decl->root == CDC_T_TIMESTAMP_LTZ ||
        decl->root == CDC_T_TIME)
        return decl->precision >= src->precision;
    return cdc_type_equals(decl, src) || decl->root == src->root;
}

static cdc_type_t *with_null(const cdc_type_t *t, bool nullable)
{
    cdc_type_t *c = cdc_type_copy(t);
    c->nullable = nullable;
    return c;
}

static const cdc_type_t *column_type(const cdc_table_def_t *t, const char *name, bool *is_pk)
{
    int i = cdc_type_field_index(t->schema, name);
    if (is_pk) {
        *is_pk = false;
        for (int k = 0; i >= 0 && k < t->npk; k++)
            *is_pk |= t->pk[k] == i;
    }
    return i >= 0 ? t->schema->children[i] : NULL;
}

/* ---- deciding ----------------------------------------------------------------------------- */

typedef struct dctx {
    cdc_evolve_t *ev;
    const cdc_sql_query_t *q;
    qmap_t m;
    bool all;
    const char *src_name, *sink_name;
} dctx_t;

static void note(dctx_t *d, const char *fmt, ...) CDC_PRINTF(2, 3);
static void note(dctx_t *d, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (d->ev->notes.len)
        cdc_buf_puts(&d->ev->notes, "; ");
    cdc_buf_puts(&d->ev->notes, buf);
}

static cdc_schema_change_t *edits(cdc_schema_change_t **slot, const char *table,
                                  const cdc_schema_change_t *c)
{
    if (!*slot)
        *slot = cdc_schema_change_new(table, c->position, c->ddl);
    return *slot;
}

static void add_column(dctx_t *d, const cdc_schema_change_t *c, const char *col,
                       const cdc_type_t *type, const char *def)
{
    cdc_evolve_t *ev = d->ev;
    if (column_type(ev->src, col, NULL))
        return; /* declared already (or added before a restart) */
    if (!d->all) {
        note(d,
             "column %s is not declared in \"%s\", so it is not carried (declare it, or set "
             "'schema.evolution.columns' = 'all' on the table)",
             col, d->src_name);
        return;
    }
    if (!d->m.star_last || d->m.col_list || d->m.nto != d->m.n) {
        note(d,
             "column %s is not carried to \"%s\": only a query ending in * without an INSERT "
             "column list carries added columns",
             col, d->sink_name);
        return;
    }
    cdc_type_t *t = with_null(type, ev->policy == CDC_SC_EVOLVE ? type->nullable : true);
    if (!t->nullable && !def)
        t->nullable = true; /* existing rows have no value for it */
    cdc_schema_change_add(edits(&ev->src_edits, ev->src->qualified, c), CDC_SC_ADD_COLUMN, col,
                          NULL, t, NULL, NULL);
    if (!column_type(ev->sink, col, NULL))
        cdc_schema_change_add(edits(&ev->sink_edits, ev->sink->qualified, c), CDC_SC_ADD_COLUMN,
                              col, NULL, t, NULL, def);
    cdc_type_destroy(t);
}

/* The sink columns the source column feeds directly (NULL-terminated, borrowed names). */
static int fed(const dctx_t *d, const char *col, const char **out, int cap)
{
    int n = 0;
    for (int i = 0; i < d->m.nto && n + 1 < cap; i++)
        if (d->m.from[i] && strcmp(d->m.from[i], col) == 0)
            out[n++] = d->m.to[i];
    out[n] = NULL;
    return n;
}

/* Makes source column col and the sink columns it feeds nullable (lenient drop). */
static int relax(dctx_t *d, const cdc_schema_change_t *c, const char *col, cdc_error_t **err)
{
    cdc_evolve_t *ev = d->ev;
    bool pk;
    const cdc_type_t *st = column_type(ev->src, col, &pk);
    if (pk)
        return cdc_error_set(err, CDC_ERR_PLAN,
                             "primary key column %s of \"%s\" was dropped at the source (%s)", col,
                             d->src_name, c->position);
    if (!st->nullable) {
        cdc_type_t *t = with_null(st, true);
        cdc_schema_change_add(edits(&ev->src_edits, ev->src->qualified, c), CDC_SC_ALTER_TYPE, col,
                              NULL, t, st, NULL);
        cdc_type_destroy(t);
    }
    const char *to[16];
    fed(d, col, to, 16);
    for (int i = 0; to[i]; i++) {
        bool kpk;
        const cdc_type_t *kt = column_type(ev->sink, to[i], &kpk);
        if (!kt || kt->nullable || kpk)
            continue;
        cdc_type_t *t = with_null(kt, true);
        cdc_schema_change_add(edits(&ev->sink_edits, ev->sink->qualified, c), CDC_SC_ALTER_TYPE,
                              to[i], NULL, t, kt, NULL);
        cdc_type_destroy(t);
    }
    return 0;
}

/* evolve's DROP and RENAME: only a column the query takes through * can follow. */
static int strict_ok(dctx_t *d, const cdc_schema_change_t *c, const cdc_sc_item_t *it,
                     cdc_error_t **err)
{
    bool pk;
    column_type(d->ev->src, it->column, &pk);
    if (!pk && !query_names(d->q, it->column))
        return 0;
    cdc_error_set(err, CDC_ERR_PLAN,
                  "schema change of %s at %s: %s %s cannot be carried by 'schema.change.behavior' "
                  "= 'evolve': %s",
                  c->table, c->position, cdc_sc_kind_name(it->kind), it->column,
                  pk ? "it is a primary key column" : "the query names the column");
    cdc_error_set_hint(*err, "'lenient' keeps the column (nullable) instead; or change the "
                             "pipeline and restart: the job resumes at this change");
    return -1;
}

static int decide_item(dctx_t *d, const cdc_schema_change_t *c, const cdc_sc_item_t *it,
                       cdc_error_t **err)
{
    cdc_evolve_t *ev = d->ev;
    bool strict = ev->policy == CDC_SC_EVOLVE || ev->policy == CDC_SC_TRY_EVOLVE;
    switch (it->kind) {
    case CDC_SC_ADD_COLUMN:
        add_column(d, c, it->column, it->type, it->default_sql);
        return 0;
    case CDC_SC_DROP_COLUMN:
        if (!column_type(ev->src, it->column, NULL))
            return 0;
        if (!strict)
            return relax(d, c, it->column, err);
        if (strict_ok(d, c, it, err) < 0)
            return -1;
        cdc_schema_change_add(edits(&ev->src_edits, ev->src->qualified, c), CDC_SC_DROP_COLUMN,
                              it->column, NULL, NULL, NULL, NULL);
        {
            const char *to[16];
            fed(d, it->column, to, 16);
            for (int i = 0; to[i]; i++)
                cdc_schema_change_add(edits(&ev->sink_edits, ev->sink->qualified, c),
                                      CDC_SC_DROP_COLUMN, to[i], NULL, NULL, NULL, NULL);
        }
        return 0;
    case CDC_SC_RENAME_COLUMN: {
        const cdc_type_t *nt =
            c->after ? column_type(&(cdc_table_def_t){.schema = c->after}, it->new_name, NULL)
                     : NULL;
        if (!column_type(ev->src, it->column, NULL)) {
            if (nt)
                add_column(d, c, it->new_name, nt, NULL);
            return 0;
        }
        if (!strict) {
            if (relax(d, c, it->column, err) < 0)
                return -1;
            if (nt)
                add_column(d, c, it->new_name, nt, NULL);
            return 0;
        }
        if (strict_ok(d, c, it, err) < 0)
            return -1;
        cdc_schema_change_add(edits(&ev->src_edits, ev->src->qualified, c), CDC_SC_RENAME_COLUMN,
                              it->column, it->new_name, NULL, NULL, NULL);
        const char *to[16];
        fed(d, it->column, to, 16);
        for (int i = 0; to[i]; i++)
            if (strcmp(to[i], it->column) == 0 && !column_type(ev->sink, it->new_name, NULL))
                cdc_schema_change_add(edits(&ev->sink_edits, ev->sink->qualified, c),
                                      CDC_SC_RENAME_COLUMN, to[i], it->new_name, NULL, NULL, NULL);
        return 0;
    }
    case CDC_SC_ALTER_TYPE: {
        const cdc_type_t *st = column_type(ev->src, it->column, NULL);
        if (!st)
            return 0;
        bool relaxed = it->type->nullable && !st->nullable;
        if (!type_covers(st, it->type) || relaxed) {
            cdc_type_t *t = type_covers(st, it->type) ? cdc_type_copy(st) : cdc_type_copy(it->type);
            t->nullable = st->nullable || it->type->nullable;
            bool pk;
            column_type(ev->src, it->column, &pk);
            if (pk)
                t->nullable = false;
            if (!cdc_type_equals(t, st))
                cdc_schema_change_add(edits(&ev->src_edits, ev->src->qualified, c),
                                      CDC_SC_ALTER_TYPE, it->column, NULL, t, st, NULL);
            cdc_type_destroy(t);
        }
        const char *to[16];
        fed(d, it->column, to, 16);
        for (int i = 0; to[i]; i++) {
            bool kpk;
            const cdc_type_t *kt = column_type(ev->sink, to[i], &kpk);
            if (!kt)
                continue;
            cdc_type_t *t = type_covers(kt, it->type) ? cdc_type_copy(kt) : cdc_type_copy(it->type);
            t->nullable = !kpk && (kt->nullable || it->type->nullable);
            if (!cdc_type_equals(t, kt))
                cdc_schema_change_add(edits(&ev->sink_edits, ev->sink->qualified, c),
                                      CDC_SC_ALTER_TYPE, to[i], NULL, t, kt, NULL);
            cdc_type_destroy(t);
        }
        return 0;
    }
    case CDC_SC_TRUNCATE_TABLE: {
        if (!strict) {
            note(d, "TRUNCATE is not carried by 'lenient' ('evolve' and 'try_evolve' empty the "
                    "sink)");
            return 0;
        }
        /* only when this table alone feeds the sink (not a pattern of several) */
        const char *tn = cdc_kv_get(&ev->src->options, "table-name");
        const char *dot = strrchr(c->table, '.');
        const char *name = dot ? dot + 1 : c->table;
        if (!tn || strcmp(tn, name) != 0) {
            note(d, "TRUNCATE of %s is not carried: \"%s\" may read several tables", c->table,
                 d->src_name);
            return 0;
        }
        cdc_schema_change_add(edits(&ev->sink_edits, ev->sink->qualified, c), CDC_SC_TRUNCATE_TABLE,
                              NULL, NULL, NULL, NULL, NULL);
        return 0;
    }
    case CDC_SC_CREATE_TABLE:
        note(d, "CREATE TABLE %s: its rows flow when the source captures it", c->table);
        return 0;
    case CDC_SC_DROP_TABLE:
        note(d, "DROP TABLE %s: the sink table is kept (cdcflow never drops a sink table)",
             c->table);
        return 0;
    case CDC_SC_OTHER:
        note(d, "a DDL cdcflow does not understand: check that \"%s\" still fits", d->sink_name);
        return 0;
    }
    return 0;
}

static void describe_change(const cdc_schema_change_t *c, cdc_buf_t *b)
{
    cdc_buf_printf(b, "schema change of %s at %s: ", c->table, c->position);
    cdc_schema_change_describe(c, b);
    if (c->ddl)
        cdc_buf_printf(b, " (DDL: %s)", c->ddl);
}

cdc_evolve_action_t cdc_evolve_decide(cdc_catalog_t *cat, const cdc_sql_insert_t *ins,
                                      const cdc_pipe_t *pipe, const cdc_schema_change_t *change,
                                      cdc_sc_policy_t session_policy, cdc_evolve_t *ev,
                                      cdc_error_t **err)
{
    memset(ev, 0, sizeof(*ev));
    const cdc_table_def_t *src = NULL, *sink = NULL;
    const cdc_view_def_t *view = NULL;
    if (!ins->query->from.name.nparts ||
        cdc_catalog_find(cat, &ins->query->from.name, &src, &view, err) <= 0 || !src ||
        cdc_catalog_find(cat, &ins->table, &sink, &view, err) <= 0 || !sink) {
        if (!*err)
            cdc_error_set(err, CDC_ERR_PLAN,
                          "schema change of %s at %s: the pipeline's tables "
                          "are not plain tables; cannot evolve it",
                          change->table, change->position);
        return CDC_EVOLVE_FAIL;
    }
    ev->src = src;
    ev->sink = sink;
    bool has_policy, all;
    ev->policy = session_policy;
    if (cdc_evolve_table_options(src, &ev->policy, &has_policy, &all, err) < 0)
        return CDC_EVOLVE_FAIL;
    if (ev->policy == CDC_SC_EXCEPTION) {
        cdc_buf_t b = {0};
        describe_change(change, &b);
        cdc_error_set(err, CDC_ERR_PLAN, "%s; 'schema.change.behavior' is 'exception'",
                      cdc_buf_cstr(&b));
        cdc_buf_free(&b);
        cdc_error_set_hint(*err,
                           "SET 'schema.change.behavior' = 'lenient' (the default), "
                           "'evolve' or 'try_evolve' carries it to \"%s\", 'ignore' goes on "
                           "without it; the job resumes at this change",
                           pipe->sink_name);
        return CDC_EVOLVE_FAIL;
    }
    if (ev->policy == CDC_SC_IGNORE)
        return CDC_EVOLVE_GO_ON;
    if (ins->query->njoins > 0) {
        cdc_buf_printf(&ev->notes, "a query with a join carries no schema change");
        return CDC_EVOLVE_GO_ON;
    }
    dctx_t d = {.ev = ev,
                .q = ins->query,
                .all = all,
                .src_name = pipe->source_name,
                .sink_name = pipe->sink_name};
    qmap_build(ins, src, sink, &d.m);
    int rc = 0;
    for (int i = 0; i < change->nitems && rc == 0; i++)
        rc = decide_item(&d, change, &change->items[i], err);
    qmap_free(&d.m);
    if (rc < 0)
        return CDC_EVOLVE_FAIL;
    return ev->src_edits || ev->sink_edits ? CDC_EVOLVE_REPLAN : CDC_EVOLVE_GO_ON;
}

/* ---- applying ----------------------------------------------------------------------------- */

/* The record of an evolved table: "<state-dir>/<qualified>.evolved.sql". */
static char *record_path(const char *qualified)
{
    const char *dir = cdc_state_dir();
    return dir ? cdc_strdup_printf("%s/%s.evolved.sql", dir, qualified) : NULL;
}

/* Scripts (and their texts) of the definitions made here: the catalog may point into them. */
static cdc_sql_script_t **kept;
static char **kept_text;
static int nkept;

void cdc_evolve_release(void)
{
    for (int i = 0; i < nkept; i++) {
        cdc_sql_script_destroy(kept[i]);
        free(kept_text[i]);
    }
    free(kept);
    free(kept_text);
    kept = NULL;
    kept_text = NULL;
    nkept = 0;
}

/* Runs one generated statement against the catalog, keeping its text alive. */
static int run_sql(cdc_catalog_t *cat, const char *sql, cdc_error_t **err)
{
    char *text = cdc_xstrdup(sql);
    cdc_sql_script_t *script = NULL;
    if (cdc_sql_parse(text, strlen(text), "<schema evolution>", &script, err) < 0) {
        free(text);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < script->count && rc == 0; i++)
        rc = cdc_ddl_execute(cat, script->stmts[i], text, strlen(text), "<schema evolution>", NULL,
                             err) < 0
                 ? -1
                 : 0;
    kept = cdc_xrealloc(kept, (size_t)(nkept + 1) * sizeof(*kept));
    kept_text = cdc_xrealloc(kept_text, (size_t)(nkept + 1) * sizeof(*kept_text));
    kept[nkept] = script;
    kept_text[nkept++] = text;
    return rc;
}

/* Replaces table t's definition by `sql` (a CREATE TABLE of the same name). */
static int replace_table(cdc_catalog_t *cat, const cdc_table_def_t *t, const char *sql,
                         cdc_error_t **err)
{
    cdc_buf_t drop = {0};
    cdc_buf_puts(&drop, t->temporary ? "DROP TEMPORARY TABLE " : "DROP TABLE ");
    cdc_sql_put_ident(&drop, t->catalog);
    cdc_buf_putc(&drop, '.');
    cdc_sql_put_ident(&drop, t->database);
    cdc_buf_putc(&drop, '.');
    cdc_sql_put_ident(&drop, t->name);
    int rc = run_sql(cat, cdc_buf_cstr(&drop), err);
    cdc_buf_free(&drop);
    if (rc == 0)
        rc = run_sql(cat, sql, err);
    if (rc < 0)
        cdc_error_add_context(*err, "changing the definition of table \"%s\"", t->qualified);
    return rc;
}

/* Evolves t by edits in the catalog and records it (original DDL, then the new one). */
static int evolve_table(cdc_catalog_t *cat, const cdc_table_def_t *t,
                        const cdc_schema_change_t *edits, cdc_error_t **err)
{
    char *declared = cdc_table_def_to_sql(t, true);
    char *sql = cdc_table_def_to_sql_edited(t, edits, true, err);
    if (!sql) {
        free(declared);
        return -1;
    }
    /* the record keeps the declaration the first evolution started from */
    char *path = record_path(t->qualified);
    cdc_buf_t old = {0};
    const char *origin = declared;
    if (path && cdc_file_read_all(path, &old, NULL) == 0) {
        /* evolved before: the record keeps the script's declaration it started from */
        const char *sep = strstr(cdc_buf_cstr(&old), "\n-- evolved:\n");
        if (sep && strncmp(old.data, "-- declared:\n", strlen("-- declared:\n")) == 0) {
            old.data[sep - old.data] = '\0';
            origin = old.data + strlen("-- declared:\n");
        }
    }
    int rc = replace_table(cat, t, sql, err);
    if (rc == 0 && path) {
        char *rec = cdc_strdup_printf("-- declared:\n%s\n-- evolved:\n%s\n", origin, sql);
        rc = cdc_file_write_atomic(path, rec, strlen(rec), err);
        free(rec);
    }
    cdc_buf_free(&old);
    free(path);
    free(declared);
    free(sql);
    return rc;
}

int cdc_evolve_apply(cdc_catalog_t *cat, const cdc_pipe_t *pipe, const cdc_schema_change_t *change,
                     cdc_evolve_t *ev, cdc_error_t **err)
{
    if (ev->sink_edits) {
        cdc_schema_change_t *sc = ev->sink_edits;
        free(sc->table);
        sc->table = cdc_xstrdup(pipe->sink_name);
        const char *why = NULL;
        cdc_error_t *e = NULL;
        cdc_type_t *after = cdc_schema_change_apply(sc, ev->sink->schema, &e);
        if (after) {
            cdc_type_destroy(sc->after);
            sc->after = after;
            cdc_type_destroy(sc->before);
            sc->before = cdc_type_copy(ev->sink->schema);
            if (!pipe->sink->ops->apply_schema_change)
                why = "the sink cannot change its table";
            else if (pipe->sink->ops->apply_schema_change(pipe->sink, sc, &e) < 0)
                why = e ? e->message : "the sink failed";
        } else {
            why = e ? e->message : "the change does not fit the sink's columns";
        }
        if (why && ev->policy != CDC_SC_TRY_EVOLVE &&
            !(ev->policy == CDC_SC_LENIENT && !pipe->sink->ops->apply_schema_change)) {
            cdc_buf_t b = {0};
            cdc_schema_change_describe(sc, &b);
            if (!e)
                e = cdc_error_new(CDC_ERR_REMOTE, "%s", why);
            cdc_error_add_context(e,
                                  "applying %s to table \"%s\" (schema change of %s at %s, "
                                  "'schema.change.behavior' = '%s')",
                                  cdc_buf_cstr(&b), pipe->sink_name, change->table,
                                  change->position, cdc_sc_policy_name(ev->policy));
            cdc_error_set_hint(e, "'try_evolve' goes on without changing the sink; the job "
                                  "resumes at this change");
            cdc_buf_free(&b);
            *err = e;
            return -1;
        }
        if (why) {
            cdc_log(CDC_LOG_WARN, NULL, pipe->sink_name,
                    "schema change of %s at %s is not applied to the sink (%s); going on without "
                    "it",
                    change->table, change->position, why);
            /* what the sink did not take is not produced either */
            cdc_schema_change_free(ev->sink_edits);
            ev->sink_edits = NULL;
            cdc_schema_change_t *keep = NULL;
            for (int i = 0; ev->src_edits && i < ev->src_edits->nitems; i++) {
                const cdc_sc_item_t *it = &ev->src_edits->items[i];
                if (it->kind == CDC_SC_ADD_COLUMN || it->kind == CDC_SC_DROP_COLUMN ||
                    it->kind == CDC_SC_RENAME_COLUMN)
                    continue;
                cdc_schema_change_add(edits(&keep, ev->src->qualified, change), it->kind,
                                      it->column, it->new_name, it->type, it->old_type,
                                      it->default_sql);
            }
            cdc_schema_change_free(ev->src_edits);
            ev->src_edits = keep;
        }
        cdc_error_destroy(e);
    }
    const cdc_table_def_t *src = ev->src, *sink = ev->sink;
    if (ev->sink_edits && evolve_table(cat, sink, ev->sink_edits, err) < 0)
        return -1;
    if (ev->src_edits && src != sink && evolve_table(cat, src, ev->src_edits, err) < 0)
        return -1;
    return 0;
}

int cdc_evolve_restore(cdc_catalog_t *cat, const cdc_sql_name_t *name, cdc_error_t **err)
{
    const cdc_table_def_t *t = NULL;
    const cdc_view_def_t *v = NULL;
    if (!cdc_state_dir() || cdc_catalog_find(cat, name, &t, &v, NULL) <= 0 || !t)
        return 0;
    char *path = record_path(t->qualified);
    cdc_buf_t rec = {0};
    int rc = 0;
    if (cdc_file_read_all(path, &rec, NULL) == 0) {
        const char *text = cdc_buf_cstr(&rec);
        const char *sep = strstr(text, "\n-- evolved:\n");
        char *declared = cdc_table_def_to_sql(t, true);
        size_t hl = strlen("-- declared:\n");
        if (sep && strncmp(text, "-- declared:\n", hl) == 0 &&
            (size_t)(sep - text - hl) == strlen(declared) &&
            memcmp(text + hl, declared, strlen(declared)) == 0) {
            const char *sql = sep + strlen("\n-- evolved:\n");
            if (strncmp(sql, declared, strlen(declared)) != 0) {
                cdc_log(CDC_LOG_INFO, NULL, t->qualified,
                        "columns as evolved by an earlier run's schema changes (%s)", path);
                rc = replace_table(cat, t, sql, err);
            }
        } else if (sep && strcmp(sep + strlen("\n-- evolved:\n"), declared) != 0 &&
                   strncmp(sep + strlen("\n-- evolved:\n"), declared, strlen(declared)) != 0) {
            cdc_log(CDC_LOG_INFO, NULL, t->qualified,
                    "the declaration changed since an earlier run evolved it: %s no longer "
                    "applies",
                    path);
        }
        free(declared);
    }
    cdc_buf_free(&rec);
    free(path);
    return rc;
}
