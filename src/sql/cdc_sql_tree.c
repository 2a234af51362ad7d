/*
 * cdc_sql_tree.c — the syntax tree's destroy and clone functions and the
 * expression printer (cdc_sql_parser.h).
 */
#include "cdc_sql_parser_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- destroy ------------------------------------------------------------------------------- */

void cdc_sqlp_name_free(cdc_sql_name_t *name)
{
    for (int i = 0; i < 3; i++)
        free(name->parts[i]);
}

static void ident_list_free(cdc_sql_ident_list_t *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->items[i].name);
    free(list->items);
}

static void options_free(cdc_sql_options_t *opts)
{
    for (size_t i = 0; i < opts->count; i++) {
        free(opts->items[i].key);
        free(opts->items[i].value);
    }
    free(opts->items);
}

void cdc_sql_hints_free(cdc_sql_hints_t *hints)
{
    options_free(&hints->options);
    ident_list_free(&hints->others);
}

static void expr_list_free(cdc_sql_expr_t **items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cdc_sql_expr_destroy(items[i]);
    free(items);
}

static void order_items_free(cdc_sql_order_item_t *items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cdc_sql_expr_destroy(items[i].expr);
    free(items);
}

void cdc_sql_over_destroy(cdc_sql_over_t *o)
{
    if (!o)
        return;
    expr_list_free(o->partition_by, o->npartition_by);
    order_items_free(o->order_by, o->norder_by);
    cdc_sql_expr_destroy(o->lower.offset);
    cdc_sql_expr_destroy(o->upper.offset);
    free(o->name);
    free(o);
}

void cdc_sql_expr_destroy(cdc_sql_expr_t *e)
{
    if (!e)
        return;
    switch (e->kind) {
    case CDC_SQL_EXPR_LITERAL:
        free(e->literal.text);
        free(e->literal.unit);
        break;
    case CDC_SQL_EXPR_COLUMN:
        for (size_t i = 0; i < e->column.nparts; i++)
            free(e->column.parts[i]);
        free(e->column.parts);
        break;
    case CDC_SQL_EXPR_STAR:
        cdc_sqlp_name_free(&e->star.qualifier);
        break;
    case CDC_SQL_EXPR_UNARY:
        cdc_sql_expr_destroy(e->unary.operand);
        break;
    case CDC_SQL_EXPR_BINARY:
        cdc_sql_expr_destroy(e->binary.left);
        cdc_sql_expr_destroy(e->binary.right);
        break;
    case CDC_SQL_EXPR_CALL:
        free(e->call.name);
        expr_list_free(e->call.args, e->call.nargs);
        cdc_sql_over_destroy(e->call.over);
        break;
    case CDC_SQL_EXPR_CAST:
        cdc_sql_expr_destroy(e->cast.operand);
        free(e->cast.type.text);
        break;
    case CDC_SQL_EXPR_CASE:
        cdc_sql_expr_destroy(e->case_expr.operand);
        for (size_t i = 0; i < e->case_expr.nwhens; i++) {
            cdc_sql_expr_destroy(e->case_expr.whens[i].when);
            cdc_sql_expr_destroy(e->case_expr.whens[i].then);
        }
        free(e->case_expr.whens);
        cdc_sql_expr_destroy(e->case_expr.else_expr);
        break;
    case CDC_SQL_EXPR_IN:
        cdc_sql_expr_destroy(e->in_list.operand);
        expr_list_free(e->in_list.items, e->in_list.nitems);
        cdc_sql_query_destroy(e->in_list.subquery);
        break;
    case CDC_SQL_EXPR_EXISTS:
        cdc_sql_query_destroy(e->exists.query);
        break;
    case CDC_SQL_EXPR_BETWEEN:
        cdc_sql_expr_destroy(e->between.operand);
        cdc_sql_expr_destroy(e->between.low);
        cdc_sql_expr_destroy(e->between.high);
        break;
    case CDC_SQL_EXPR_LIKE:
        cdc_sql_expr_destroy(e->like.operand);
        cdc_sql_expr_destroy(e->like.pattern);
        cdc_sql_expr_destroy(e->like.escape);
        break;
    case CDC_SQL_EXPR_IS_NULL:
        cdc_sql_expr_destroy(e->is_null.operand);
        break;
    case CDC_SQL_EXPR_SUBSCRIPT:
        cdc_sql_expr_destroy(e->subscript.base);
        cdc_sql_expr_destroy(e->subscript.index);
        break;
    }
    free(e);
}

void cdc_sql_query_destroy(cdc_sql_query_t *q)
{
    if (!q)
        return;
    free(q->text);
    for (size_t i = 0; i < q->nitems; i++) {
        cdc_sql_expr_destroy(q->items[i].expr);
        free(q->items[i].alias);
    }
    free(q->items);
    cdc_sql_hints_free(&q->hints);
    for (size_t i = 0; i < q->nctes; i++) {
        free(q->ctes[i].name.name);
        cdc_sql_query_destroy(q->ctes[i].query);
    }
    free(q->ctes);
    if (q->from.tvf) {
        cdc_sqlp_name_free(&q->from.tvf->data);
        free(q->from.tvf->timecol.name);
        cdc_sql_expr_destroy(q->from.tvf->size);
        cdc_sql_expr_destroy(q->from.tvf->step);
        cdc_sql_expr_destroy(q->from.tvf->offset);
        free(q->from.tvf);
    }
    cdc_sqlp_name_free(&q->from.name);
    cdc_sql_query_destroy(q->from.subquery);
    cdc_sql_hints_free(&q->from.hints);
    free(q->from.alias);
    for (size_t i = 0; i < q->njoins; i++) {
        cdc_sqlp_name_free(&q->joins[i].table.name);
        cdc_sql_unnest_t *un = q->joins[i].table.unnest;
        if (un) {
            cdc_sql_expr_destroy(un->arg);
            ident_list_free(&un->columns);
            free(un);
        }
        cdc_sql_query_destroy(q->joins[i].table.subquery);
        cdc_sql_hints_free(&q->joins[i].table.hints);
        free(q->joins[i].table.alias);
        cdc_sql_expr_destroy(q->joins[i].system_time);
        cdc_sql_expr_destroy(q->joins[i].on);
    }
    free(q->joins);
    cdc_sql_expr_destroy(q->where);
    expr_list_free(q->group_by, q->ngroup_by);
    free(q->group_sets);
    cdc_sql_expr_destroy(q->having);
    order_items_free(q->order_by, q->norder_by);
    for (size_t i = 0; i < q->nrows; i++) {
        for (size_t k = 0; k < q->rows[i].nitems; k++)
            cdc_sql_expr_destroy(q->rows[i].items[k]);
        free(q->rows[i].items);
    }
    free(q->rows);
    cdc_sql_query_destroy(q->union_all);
    cdc_sql_query_destroy(q->set_rhs);
    free(q);
}

static void create_table_free(cdc_sql_create_table_t *ct)
{
    cdc_sqlp_name_free(&ct->name);
    for (size_t i = 0; i < ct->ncolumns; i++) {
        cdc_sql_column_t *col = &ct->columns[i];
        free(col->name);
        free(col->type.text);
        free(col->comment);
        cdc_sql_expr_destroy(col->expr);
        free(col->metadata_key);
    }
    free(ct->columns);
    if (ct->primary_key) {
        free(ct->primary_key->constraint_name);
        ident_list_free(&ct->primary_key->columns);
        free(ct->primary_key);
    }
    if (ct->watermark) {
        free(ct->watermark->column.name);
        cdc_sql_expr_destroy(ct->watermark->expr);
        free(ct->watermark);
    }
    free(ct->comment);
    ident_list_free(&ct->partitioned_by);
    options_free(&ct->options);
    cdc_sql_query_destroy(ct->as_query);
    if (ct->like) {
        cdc_sqlp_name_free(&ct->like->source);
        free(ct->like->options);
        free(ct->like);
    }
}

void cdc_sql_stmt_destroy(cdc_sql_stmt_t *stmt)
{
    if (!stmt)
        return;
    free(stmt->text);
    switch (stmt->kind) {
    case CDC_SQL_STMT_CREATE_TABLE:
        create_table_free(&stmt->create_table);
        break;
    case CDC_SQL_STMT_ALTER_TABLE:
        cdc_sqlp_name_free(&stmt->alter_table.name);
        cdc_sqlp_name_free(&stmt->alter_table.new_name);
        free(stmt->alter_table.column.name);
        free(stmt->alter_table.new_column.name);
        options_free(&stmt->alter_table.options);
        create_table_free(&stmt->alter_table.elements);
        for (size_t i = 0; i < stmt->alter_table.npositions; i++)
            free(stmt->alter_table.positions[i].after.name);
        free(stmt->alter_table.positions);
        ident_list_free(&stmt->alter_table.drop);
        break;
    case CDC_SQL_STMT_CREATE_VIEW:
        cdc_sqlp_name_free(&stmt->create_view.name);
        ident_list_free(&stmt->create_view.columns);
        free(stmt->create_view.comment);
        cdc_sql_query_destroy(stmt->create_view.query);
        break;
    case CDC_SQL_STMT_CREATE_CATALOG:
        cdc_sqlp_name_free(&stmt->create_catalog.name);
        options_free(&stmt->create_catalog.options);
        break;
    case CDC_SQL_STMT_CREATE_DATABASE:
        cdc_sqlp_name_free(&stmt->create_database.name);
        free(stmt->create_database.comment);
        options_free(&stmt->create_database.options);
        break;
    case CDC_SQL_STMT_CREATE_FUNCTION:
        cdc_sqlp_name_free(&stmt->create_function.name);
        free(stmt->create_function.identifier);
        free(stmt->create_function.language);
        break;
    case CDC_SQL_STMT_DROP_TABLE:
    case CDC_SQL_STMT_DROP_VIEW:
    case CDC_SQL_STMT_DROP_CATALOG:
    case CDC_SQL_STMT_DROP_DATABASE:
    case CDC_SQL_STMT_DROP_FUNCTION:
        cdc_sqlp_name_free(&stmt->drop.name);
        break;
    case CDC_SQL_STMT_USE_CATALOG:
    case CDC_SQL_STMT_USE_DATABASE:
        cdc_sqlp_name_free(&stmt->use);
        break;
    case CDC_SQL_STMT_SHOW:
        break;
    case CDC_SQL_STMT_SHOW_CREATE:
    case CDC_SQL_STMT_SHOW_PARTITIONS:
        cdc_sqlp_name_free(&stmt->show_create.name);
        break;
    case CDC_SQL_STMT_DESCRIBE:
        cdc_sqlp_name_free(&stmt->describe);
        break;
    case CDC_SQL_STMT_SET:
    case CDC_SQL_STMT_RESET:
        free(stmt->set.key);
        free(stmt->set.value);
        break;
    case CDC_SQL_STMT_INSERT:
        cdc_sqlp_name_free(&stmt->insert.table);
        cdc_sql_hints_free(&stmt->insert.hints);
        options_free(&stmt->insert.partition);
        ident_list_free(&stmt->insert.columns);
        cdc_sql_query_destroy(stmt->insert.query);
        break;
    case CDC_SQL_STMT_STATEMENT_SET:
        for (size_t i = 0; i < stmt->statement_set.count; i++)
            cdc_sql_stmt_destroy(stmt->statement_set.inserts[i]);
        free(stmt->statement_set.inserts);
        break;
    case CDC_SQL_STMT_EXPLAIN:
        cdc_sql_stmt_destroy(stmt->explain.stmt);
        break;
    case CDC_SQL_STMT_QUERY:
        cdc_sql_query_destroy(stmt->query);
        break;
    }
    free(stmt);
}

void cdc_sql_script_destroy(cdc_sql_script_t *script)
{
    if (!script)
        return;
    for (size_t i = 0; i < script->count; i++)
        cdc_sql_stmt_destroy(script->stmts[i]);
    free(script->stmts);
    free(script);
}

/* ---- clone --------------------------------------------------------------------------------- */

static char *dup_or_null(const char *s)
{
    return s ? cdc_xstrdup(s) : NULL;
}

static void name_copy(cdc_sql_name_t *dst, const cdc_sql_name_t *src)
{
    *dst = *src;
    for (int i = 0; i < 3; i++)
        dst->parts[i] = dup_or_null(src->parts[i]);
}

static cdc_sql_expr_t **expr_list_clone(cdc_sql_expr_t *const *items, size_t n)
{
    if (!items)
        return NULL;
    cdc_sql_expr_t **out = cdc_xcalloc(n, sizeof(*out));
    for (size_t i = 0; i < n; i++)
        out[i] = cdc_sql_expr_clone(items[i]);
    return out;
}

cdc_sql_order_item_t *cdc_sql_order_items_clone(const cdc_sql_order_item_t *items, size_t n)
{
    if (!items)
        return NULL;
    cdc_sql_order_item_t *out = cdc_xcalloc(n, sizeof(*out));
    for (size_t i = 0; i < n; i++) {
        out[i] = items[i];
        out[i].expr = cdc_sql_expr_clone(items[i].expr);
    }
    return out;
}

cdc_sql_over_t *cdc_sql_over_clone(const cdc_sql_over_t *src)
{
    if (!src)
        return NULL;
    cdc_sql_over_t *o = cdc_xmalloc(sizeof(*o));
    *o = *src;
    o->partition_by = expr_list_clone(src->partition_by, src->npartition_by);
    o->order_by = cdc_sql_order_items_clone(src->order_by, src->norder_by);
    o->lower.offset = cdc_sql_expr_clone(src->lower.offset);
    o->upper.offset = cdc_sql_expr_clone(src->upper.offset);
    o->name = src->name ? cdc_xstrdup(src->name) : NULL;
    return o;
}

/* A copy of a subquery: its text parsed again, after as many line breaks and spaces as put it at
 * its line:col, so the copy's positions are the original's. NULL if it does not parse (it did). */
static cdc_sql_query_t *query_clone(const cdc_sql_query_t *src)
{
    if (!src || !src->text)
        return NULL;
    size_t pad = (size_t)(src->line > 1 ? src->line - 1 : 0) +
                 (size_t)(src->col > 1 ? src->col - 1 : 0),
           len = strlen(src->text);
    char *sql = cdc_xmalloc(pad + len + 1);
    memset(sql, '\n', (size_t)(src->line > 1 ? src->line - 1 : 0));
    memset(sql + (src->line > 1 ? src->line - 1 : 0), ' ',
           (size_t)(src->col > 1 ? src->col - 1 : 0));
    memcpy(sql + pad, src->text, len + 1);
    cdc_sql_script_t *script = NULL;
    cdc_error_t *err = NULL;
    cdc_sql_query_t *q = NULL;
    if (cdc_sql_parse(sql, pad + len, NULL, &script, &err) == 0 && script->count == 1 &&
        script->stmts[0]->kind == CDC_SQL_STMT_QUERY) {
        q = script->stmts[0]->query;
        script->stmts[0]->query = NULL;
    }
    cdc_error_destroy(err);
    cdc_sql_script_destroy(script);
    free(sql);
    return q;
}

cdc_sql_expr_t *cdc_sql_expr_clone(const cdc_sql_expr_t *src)
{
    if (!src)
        return NULL;
    cdc_sql_expr_t *e = cdc_xmalloc(sizeof(*e));
    *e = *src;
    switch (src->kind) {
    case CDC_SQL_EXPR_LITERAL:
        e->literal.text = dup_or_null(src->literal.text);
        e->literal.unit = dup_or_null(src->literal.unit);
        break;
    case CDC_SQL_EXPR_COLUMN:
        e->column.parts = cdc_xcalloc(src->column.nparts, sizeof(char *));
        for (size_t i = 0; i < src->column.nparts; i++)
            e->column.parts[i] = cdc_xstrdup(src->column.parts[i]);
        break;
    case CDC_SQL_EXPR_STAR:
        name_copy(&e->star.qualifier, &src->star.qualifier);
        break;
    case CDC_SQL_EXPR_UNARY:
        e->unary.operand = cdc_sql_expr_clone(src->unary.operand);
        break;
    case CDC_SQL_EXPR_BINARY:
        e->binary.left = cdc_sql_expr_clone(src->binary.left);
        e->binary.right = cdc_sql_expr_clone(src->binary.right);
        break;
    case CDC_SQL_EXPR_CALL:
        e->call.name = dup_or_null(src->call.name);
        e->call.args = expr_list_clone(src->call.args, src->call.nargs);
        e->call.over = cdc_sql_over_clone(src->call.over);
        break;
    case CDC_SQL_EXPR_CAST:
        e->cast.operand = cdc_sql_expr_clone(src->cast.operand);
        e->cast.type.text = dup_or_null(src->cast.type.text);
        break;
    case CDC_SQL_EXPR_CASE:
        e->case_expr.operand = cdc_sql_expr_clone(src->case_expr.operand);
        e->case_expr.whens = NULL;
        if (src->case_expr.nwhens) {
            e->case_expr.whens = cdc_xcalloc(src->case_expr.nwhens, sizeof(cdc_sql_case_when_t));
            for (size_t i = 0; i < src->case_expr.nwhens; i++) {
                e->case_expr.whens[i].when = cdc_sql_expr_clone(src->case_expr.whens[i].when);
                e->case_expr.whens[i].then = cdc_sql_expr_clone(src->case_expr.whens[i].then);
            }
        }
        e->case_expr.else_expr = cdc_sql_expr_clone(src->case_expr.else_expr);
        break;
    case CDC_SQL_EXPR_IN:
        e->in_list.operand = cdc_sql_expr_clone(src->in_list.operand);
        e->in_list.items = expr_list_clone(src->in_list.items, src->in_list.nitems);
        e->in_list.subquery = query_clone(src->in_list.subquery);
        break;
    case CDC_SQL_EXPR_EXISTS:
        e->exists.query = query_clone(src->exists.query);
        break;
    case CDC_SQL_EXPR_BETWEEN:
        e->between.operand = cdc_sql_expr_clone(src->between.operand);
        e->between.low = cdc_sql_expr_clone(src->between.low);
        e->between.high = cdc_sql_expr_clone(src->between.high);
        break;
    case CDC_SQL_EXPR_LIKE:
        e->like.operand = cdc_sql_expr_clone(src->like.operand);
        e->like.pattern = cdc_sql_expr_clone(src->like.pattern);
        e->like.escape = cdc_sql_expr_clone(src->like.escape);
        break;
    case CDC_SQL_EXPR_IS_NULL:
        e->is_null.operand = cdc_sql_expr_clone(src->is_null.operand);
        break;
    case CDC_SQL_EXPR_SUBSCRIPT:
        e->subscript.base = cdc_sql_expr_clone(src->subscript.base);
        e->subscript.index = cdc_sql_expr_clone(src->subscript.index);
        e->subscript.field = src->subscript.field;
        break;
    }
    return e;
}

/* ---- printing ------------------------------------------------------------------------------ */

typedef struct sbuf {
    char *buf;
    size_t len;
    size_t cap;
} sbuf_t;

static void sb_putn(sbuf_t *sb, const char *s, size_t n)
{
    if (sb->len + n + 1 > sb->cap) {
        size_t cap = sb->cap ? sb->cap : 64;
        while (cap < sb->len + n + 1)
            cap *= 2;
        sb->buf = cdc_xrealloc(sb->buf, cap);
        sb->cap = cap;
    }
    memcpy(sb->buf + sb->len, s, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
}

static void sb_puts(sbuf_t *sb, const char *s)
{
    sb_putn(sb, s, strlen(s));
}

/* Appends s between quote characters, doubling the quote inside. */
static void sb_quoted(sbuf_t *sb, const char *s, char quote)
{
    sb_putn(sb, &quote, 1);
    for (const char *c = s; *c; c++) {
        sb_putn(sb, c, 1);
        if (*c == quote)
            sb_putn(sb, c, 1);
    }
    sb_putn(sb, &quote, 1);
}

static bool is_plain_word(const char *s)
{
    if (!s[0] || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (const char *c = s; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_'))
            return false;
    return true;
}

static void sb_ident(sbuf_t *sb, const char *ident)
{
    if (is_plain_word(ident) && !cdc_sql_is_reserved(ident, strlen(ident)))
        sb_puts(sb, ident);
    else
        sb_quoted(sb, ident, '`');
}

char *cdc_sql_quote_ident(const char *ident)
{
    sbuf_t sb = {0};
    sb_ident(&sb, ident);
    return sb.buf;
}

char *cdc_sql_name_to_string(const cdc_sql_name_t *name)
{
    sbuf_t sb = {0};
    sb_puts(&sb, "");
    for (int i = 0; i < name->nparts; i++) {
        if (i)
            sb_puts(&sb, ".");
        sb_ident(&sb, name->parts[i]);
    }
    return sb.buf;
}

/* Binding strength, higher binds tighter; mirrors the parser's levels. */
enum {
    PREC_OR = 1,
    PREC_AND,
    PREC_NOT,
    PREC_CMP,
    PREC_CONCAT,
    PREC_ADD,
    PREC_MUL,
    PREC_UNARY,
    PREC_PRIMARY
};

static int binary_prec(cdc_sql_binary_op_t op)
{
    switch (op) {
    case CDC_SQL_BINARY_OR:
        return PREC_OR;
    case CDC_SQL_BINARY_AND:
        return PREC_AND;
    case CDC_SQL_BINARY_CONCAT:
        return PREC_CONCAT;
    case CDC_SQL_BINARY_ADD:
    case CDC_SQL_BINARY_SUB:
        return PREC_ADD;
    case CDC_SQL_BINARY_MUL:
    case CDC_SQL_BINARY_DIV:
    case CDC_SQL_BINARY_MOD:
        return PREC_MUL;
    default:
        return PREC_CMP;
    }
}

static const char *binary_text(cdc_sql_binary_op_t op)
{
    switch (op) {
    case CDC_SQL_BINARY_OR:
        return "OR";
    case CDC_SQL_BINARY_AND:
        return "AND";
    case CDC_SQL_BINARY_EQ:
        return "=";
    case CDC_SQL_BINARY_NE:
        return "<>";
    case CDC_SQL_BINARY_LT:
        return "<";
    case CDC_SQL_BINARY_LE:
        return "<=";
    case CDC_SQL_BINARY_GT:
        return ">";
    case CDC_SQL_BINARY_GE:
        return ">=";
    case CDC_SQL_BINARY_CONCAT:
        return "||";
    case CDC_SQL_BINARY_ADD:
        return "+";
    case CDC_SQL_BINARY_SUB:
        return "-";
    case CDC_SQL_BINARY_MUL:
        return "*";
    case CDC_SQL_BINARY_DIV:
        return "/";
    case CDC_SQL_BINARY_MOD:
        return "%";
    }
    return "?";
}

static int expr_prec(const cdc_sql_expr_t *e)
{
    switch (e->kind) {
    case CDC_SQL_EXPR_BINARY:
        return binary_prec(e->binary.op);
    case CDC_SQL_EXPR_UNARY:
        return e->unary.op == CDC_SQL_UNARY_NOT ? PREC_NOT : PREC_UNARY;
    case CDC_SQL_EXPR_IN:
    case CDC_SQL_EXPR_BETWEEN:
    case CDC_SQL_EXPR_LIKE:
    case CDC_SQL_EXPR_IS_NULL:
        return PREC_CMP;
    default:
        return PREC_PRIMARY;
    }
}

static void print_expr(sbuf_t *sb, const cdc_sql_expr_t *e);

/* Prints e, parenthesized when it binds looser than min_prec. */
static void print_sub(sbuf_t *sb, const cdc_sql_expr_t *e, int min_prec)
{
    bool paren = expr_prec(e) < min_prec;
    if (paren)
        sb_puts(sb, "(");
    print_expr(sb, e);
    if (paren)
        sb_puts(sb, ")");
}

static void print_list(sbuf_t *sb, cdc_sql_expr_t *const *items, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            sb_puts(sb, ", ");
        print_expr(sb, items[i]);
    }
}

static void print_literal(sbuf_t *sb, const cdc_sql_expr_t *e)
{
    const char *text = e->literal.text ? e->literal.text : "";
    switch (e->literal.kind) {
    case CDC_SQL_LIT_STRING:
        sb_quoted(sb, text, '\'');
        break;
    case CDC_SQL_LIT_DATE:
    case CDC_SQL_LIT_TIME:
    case CDC_SQL_LIT_TIMESTAMP:
        sb_puts(sb, e->literal.kind == CDC_SQL_LIT_DATE   ? "DATE "
                    : e->literal.kind == CDC_SQL_LIT_TIME ? "TIME "
                                                          : "TIMESTAMP ");
        sb_quoted(sb, text, '\'');
        break;
    case CDC_SQL_LIT_INTERVAL:
        sb_puts(sb, "INTERVAL ");
        sb_quoted(sb, text, '\'');
        sb_puts(sb, " ");
        sb_puts(sb, e->literal.unit ? e->literal.unit : "");
        break;
    default:
        sb_puts(sb, text);
        break;
    }
}

static bool is_symbol(const cdc_sql_expr_t *e)
{
    return e && e->kind == CDC_SQL_EXPR_LITERAL && e->literal.kind == CDC_SQL_LIT_SYMBOL;
}

/* The keyword forms the parser normalized (cdc_sql_expr_parse.c); false for other calls. */
static bool print_keyword_call(sbuf_t *sb, const cdc_sql_expr_t *e)
{
    const char *name = e->call.name ? e->call.name : "";
    if (e->call.nargs != 2)
        return false;
    cdc_sql_expr_t *a = e->call.args[0], *b = e->call.args[1];
    if (strcmp(name, "IS DISTINCT FROM") == 0 || strcmp(name, "IS NOT DISTINCT FROM") == 0) {
        sb_puts(sb, "(");
        print_expr(sb, a);
        sb_puts(sb, " ");
        sb_puts(sb, name);
        sb_puts(sb, " ");
        print_expr(sb, b);
        sb_puts(sb, ")");
        return true;
    }
    const char *sep = strcasecmp(name, "POSITION") == 0                  ? " IN "
                      : strcasecmp(name, "EXTRACT") == 0 && is_symbol(a) ? " FROM "
                      : is_symbol(b)                                     ? " TO "
                                                                         : NULL;
    if (!sep)
        return false;
    sb_puts(sb, name);
    sb_puts(sb, "(");
    print_expr(sb, a);
    sb_puts(sb, sep);
    print_expr(sb, b);
    sb_puts(sb, ")");
    return true;
}

/* JSON_OBJECT/JSON_ARRAY as the parser normalized them: {SYMBOL on-null, args...}. */
static bool print_json_ctor(sbuf_t *sb, const cdc_sql_expr_t *e)
{
    const char *name = e->call.name ? e->call.name : "";
    bool object = strcmp(name, "JSON_OBJECT") == 0;
    if ((!object && strcmp(name, "JSON_ARRAY") != 0) || e->call.nargs < 1 ||
        !is_symbol(e->call.args[0]))
        return false;
    sb_puts(sb, name);
    sb_puts(sb, "(");
    for (size_t i = 1; i < e->call.nargs; i += object ? 2 : 1) {
        if (i > 1)
            sb_puts(sb, ", ");
        if (object) {
            sb_puts(sb, "KEY ");
            print_expr(sb, e->call.args[i]);
            sb_puts(sb, " VALUE ");
            print_expr(sb, i + 1 < e->call.nargs ? e->call.args[i + 1] : NULL);
        } else {
            print_expr(sb, e->call.args[i]);
        }
    }
    sb_puts(sb, e->call.nargs > 1 ? " " : "");
    print_expr(sb, e->call.args[0]);
    sb_puts(sb, " ON NULL)");
    return true;
}

static void print_order_items(sbuf_t *sb, const cdc_sql_order_item_t *items, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            sb_puts(sb, ", ");
        print_expr(sb, items[i].expr);
        if (items[i].desc)
            sb_puts(sb, " DESC");
        if (items[i].nulls)
            sb_puts(sb, items[i].nulls == 1 ? " NULLS FIRST" : " NULLS LAST");
    }
}

char *cdc_sql_order_items_to_string(const cdc_sql_order_item_t *items, size_t n)
{
    sbuf_t sb = {0};
    sb_puts(&sb, "");
    print_order_items(&sb, items, n);
    return sb.buf;
}

static void print_bound(sbuf_t *sb, const cdc_sql_bound_t *b)
{
    static const char *const words[] = {"",           "UNBOUNDED PRECEDING",
                                        " PRECEDING", "CURRENT ROW",
                                        " FOLLOWING", "UNBOUNDED FOLLOWING"};
    if (b->offset)
        print_expr(sb, b->offset);
    sb_puts(sb, words[b->kind]);
}

/* "PARTITION BY ... ORDER BY ... ROWS BETWEEN ... AND ..." of a window (a named window is
 * printed as its definition). */
static void print_window(sbuf_t *sb, const cdc_sql_over_t *o)
{
    const char *sep = "";
    if (o->npartition_by) {
        sb_puts(sb, "PARTITION BY ");
        print_list(sb, o->partition_by, o->npartition_by);
        sep = " ";
    }
    if (o->norder_by) {
        sb_puts(sb, sep);
        sb_puts(sb, "ORDER BY ");
        print_order_items(sb, o->order_by, o->norder_by);
        sep = " ";
    }
    if (o->frame) {
        sb_puts(sb, sep);
        sb_puts(sb, o->frame == 1 ? "ROWS BETWEEN " : "RANGE BETWEEN ");
        print_bound(sb, &o->lower);
        sb_puts(sb, " AND ");
        print_bound(sb, &o->upper);
    }
}

/* " OVER (PARTITION BY ... ORDER BY ...)" of a window function call, or nothing. */
static void print_over(sbuf_t *sb, const cdc_sql_over_t *o)
{
    if (!o)
        return;
    sb_puts(sb, " OVER (");
    print_window(sb, o);
    sb_puts(sb, ")");
}

char *cdc_sql_over_to_string(const cdc_sql_over_t *o)
{
    sbuf_t sb = {0};
    sb_puts(&sb, "");
    print_window(&sb, o);
    return sb.buf;
}

static void print_call(sbuf_t *sb, const cdc_sql_expr_t *e)
{
    const char *name = e->call.name ? e->call.name : "";
    bool done = print_json_ctor(sb, e) || print_keyword_call(sb, e);
    if (done) {
        print_over(sb, e->call.over);
        return;
    }
    if (strcmp(name, "ARRAY[]") == 0 || strcmp(name, "MAP[]") == 0) {
        sb_puts(sb, name[0] == 'A' ? "ARRAY[" : "MAP[");
        print_list(sb, e->call.args, e->call.nargs);
        sb_puts(sb, "]");
        return;
    }
    if (is_plain_word(name)) {
        char *upper = upper_dup(name);
        sb_puts(sb, upper);
        free(upper);
    } else {
        sb_quoted(sb, name, '`');
    }
    if (e->call.niladic)
        return;
    sb_puts(sb, "(");
    if (strcmp(name, "TRIM") == 0 && e->call.nargs == 3 && e->call.args[0] &&
        e->call.args[0]->kind == CDC_SQL_EXPR_LITERAL &&
        e->call.args[0]->literal.kind == CDC_SQL_LIT_SYMBOL) {
        print_expr(sb, e->call.args[0]);
        sb_puts(sb, " ");
        print_expr(sb, e->call.args[1]);
        sb_puts(sb, " FROM ");
        print_expr(sb, e->call.args[2]);
    } else {
        if (e->call.distinct)
            sb_puts(sb, "DISTINCT ");
        print_list(sb, e->call.args, e->call.nargs);
    }
    sb_puts(sb, ")");
    print_over(sb, e->call.over);
}

static void print_expr(sbuf_t *sb, const cdc_sql_expr_t *e)
{
    if (!e) {
        sb_puts(sb, "?");
        return;
    }
    switch (e->kind) {
    case CDC_SQL_EXPR_LITERAL:
        print_literal(sb, e);
        break;
    case CDC_SQL_EXPR_COLUMN:
        for (size_t i = 0; i < e->column.nparts; i++) {
            if (i)
                sb_puts(sb, ".");
            sb_ident(sb, e->column.parts[i]);
        }
        break;
    case CDC_SQL_EXPR_STAR:
        for (int i = 0; i < e->star.qualifier.nparts; i++) {
            sb_ident(sb, e->star.qualifier.parts[i]);
            sb_puts(sb, ".");
        }
        sb_puts(sb, "*");
        break;
    case CDC_SQL_EXPR_UNARY:
        if (e->unary.op == CDC_SQL_UNARY_NOT) {
            sb_puts(sb, "NOT ");
            print_sub(sb, e->unary.operand, PREC_NOT);
        } else {
            const cdc_sql_expr_t *o = e->unary.operand;
            sb_puts(sb, e->unary.op == CDC_SQL_UNARY_MINUS ? "-" : "+");
            /* -(-a): never print "--", which would start a comment. */
            print_sub(sb, o, (o && o->kind == CDC_SQL_EXPR_UNARY) ? PREC_PRIMARY : PREC_UNARY);
        }
        break;
    case CDC_SQL_EXPR_BINARY: {
        int prec = binary_prec(e->binary.op);
        print_sub(sb, e->binary.left, prec);
        sb_puts(sb, " ");
        sb_puts(sb, binary_text(e->binary.op));
        sb_puts(sb, " ");
        print_sub(sb, e->binary.right, prec + 1);
        break;
    }
    case CDC_SQL_EXPR_CALL:
        print_call(sb, e);
        break;
    case CDC_SQL_EXPR_CAST:
        sb_puts(sb, e->cast.try_cast ? "TRY_CAST(" : "CAST(");
        print_expr(sb, e->cast.operand);
        sb_puts(sb, " AS ");
        sb_puts(sb, e->cast.type.text ? e->cast.type.text : "");
        sb_puts(sb, ")");
        break;
    case CDC_SQL_EXPR_CASE:
        sb_puts(sb, "CASE");
        if (e->case_expr.operand) {
            sb_puts(sb, " ");
            print_expr(sb, e->case_expr.operand);
        }
        for (size_t i = 0; i < e->case_expr.nwhens; i++) {
            sb_puts(sb, " WHEN ");
            print_expr(sb, e->case_expr.whens[i].when);
            sb_puts(sb, " THEN ");
            print_expr(sb, e->case_expr.whens[i].then);
        }
        if (e->case_expr.else_expr) {
            sb_puts(sb, " ELSE ");
            print_expr(sb, e->case_expr.else_expr);
        }
        sb_puts(sb, " END");
        break;
    case CDC_SQL_EXPR_IN:
        print_sub(sb, e->in_list.operand, PREC_CMP);
        sb_puts(sb, e->in_list.negated ? " NOT IN (" : " IN (");
        if (e->in_list.subquery)
            sb_puts(sb, e->in_list.subquery->text ? e->in_list.subquery->text : "SELECT ...");
        else
            print_list(sb, e->in_list.items, e->in_list.nitems);
        sb_puts(sb, ")");
        break;
    case CDC_SQL_EXPR_EXISTS:
        sb_puts(sb, "EXISTS (");
        sb_puts(sb,
                e->exists.query && e->exists.query->text ? e->exists.query->text : "SELECT ...");
        sb_puts(sb, ")");
        break;
    case CDC_SQL_EXPR_BETWEEN:
        print_sub(sb, e->between.operand, PREC_CMP);
        sb_puts(sb, e->between.negated ? " NOT BETWEEN " : " BETWEEN ");
        print_sub(sb, e->between.low, PREC_CONCAT);
        sb_puts(sb, " AND ");
        print_sub(sb, e->between.high, PREC_CONCAT);
        break;
    case CDC_SQL_EXPR_LIKE:
        print_sub(sb, e->like.operand, PREC_CMP);
        sb_puts(sb, e->like.negated ? " NOT LIKE " : " LIKE ");
        print_sub(sb, e->like.pattern, PREC_CONCAT);
        if (e->like.escape) {
            sb_puts(sb, " ESCAPE ");
            print_sub(sb, e->like.escape, PREC_CONCAT);
        }
        break;
    case CDC_SQL_EXPR_IS_NULL:
        print_sub(sb, e->is_null.operand, PREC_CMP);
        sb_puts(sb, e->is_null.negated ? " IS NOT NULL" : " IS NULL");
        break;
    case CDC_SQL_EXPR_SUBSCRIPT:
        print_sub(sb, e->subscript.base, PREC_PRIMARY);
        if (e->subscript.field) {
            sb_puts(sb, ".");
            sb_ident(sb, e->subscript.index->literal.text);
            break;
        }
        sb_puts(sb, "[");
        print_expr(sb, e->subscript.index);
        sb_puts(sb, "]");
        break;
    }
}

char *cdc_sql_expr_to_string(const cdc_sql_expr_t *expr)
{
    sbuf_t sb = {0};
    sb_puts(&sb, "");
    print_expr(&sb, expr);
    return sb.buf;
}
