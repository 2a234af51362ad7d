/*
 * cdc_catalog_define.c — builds table, view and function definitions from
 * CREATE statements (columns, LIKE merging, types of computed columns,
 * expression checks) and prints definitions back as DDL (SHOW CREATE, catalog
 * files).
 */
#include "cdc_catalog_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cdc_udf.h"

/* ---- building definitions ----------------------------------------------------------------------
 */

/* Parses a column's type text, pointing at the problem inside the text on failure. */
cdc_type_t *cdc_cat_parse_column_type(const src_t *s, const cdc_sql_column_t *col,
                                      cdc_error_t **err)
{
    cdc_error_t *terr = NULL;
    cdc_type_t *type = cdc_type_parse(col->type.text ? col->type.text : "", &terr);
    if (!type) {
        int off = 0;
        const char *p = strstr(terr->message, "at column ");
        if (p)
            off = atoi(p + 10) - 1;
        const char *rest = strchr(terr->message, ':');
        cdc_cat_fail_at(err, CDC_ERR_SQL, s, col->type.line, col->type.col + off,
                        "invalid type of column \"%s\"%s", col->name, rest ? rest : "");
        cdc_error_destroy(terr);
        return NULL;
    }
    if (col->not_null)
        type->nullable = false;
    return type;
}

static int column_index(const cdc_table_def_t *t, const char *name)
{
    for (int i = 0; i < t->ncolumns; i++)
        if (strcmp(t->columns[i].name, name) == 0)
            return i;
    return -1;
}

static const char **column_names(const cdc_table_def_t *t, bool physical_only, int *n)
{
    const char **names = cdc_xcalloc((size_t)t->ncolumns + 1, sizeof(char *));
    *n = 0;
    for (int i = 0; i < t->ncolumns; i++)
        if (!physical_only || t->columns[i].kind == CDC_COLUMN_PHYSICAL)
            names[(*n)++] = t->columns[i].name;
    return names;
}

/* Appends a column; a physical column's type moves into the schema. */
static void add_column(cdc_table_def_t *t, cdc_column_def_t *col)
{
    t->columns = cdc_xrealloc(t->columns, sizeof(*t->columns) * (size_t)(t->ncolumns + 1));
    if (col->kind == CDC_COLUMN_PHYSICAL) {
        col->physical = t->schema->nchildren;
        cdc_type_row_add(t->schema, col->name, col->type);
    } else {
        col->physical = -1;
    }
    t->columns[t->ncolumns++] = *col;
}

static void column_copy(cdc_column_def_t *dst, const cdc_column_def_t *src)
{
    memset(dst, 0, sizeof(*dst));
    dst->name = cdc_xstrdup(src->name);
    dst->kind = src->kind;
    dst->type = src->type ? cdc_type_copy(src->type) : NULL;
    dst->expr = cdc_sql_expr_clone(src->expr);
    dst->expr_text = cdc_cat_dup_or_null(src->expr_text);
    dst->metadata_key = cdc_cat_dup_or_null(src->metadata_key);
    dst->metadata_from = src->metadata_from;
    dst->is_virtual = src->is_virtual;
    dst->not_null = src->not_null;
    dst->comment = cdc_cat_dup_or_null(src->comment);
}

/* Fills @p col from a parsed column. */
static int column_from_sql(const src_t *s, const cdc_sql_column_t *sc, cdc_column_def_t *col,
                           cdc_error_t **err)
{
    memset(col, 0, sizeof(*col));
    col->physical = -1;
    if (sc->kind == CDC_SQL_COLUMN_COMPUTED) {
        col->kind = CDC_COLUMN_COMPUTED;
        col->expr = cdc_sql_expr_clone(sc->expr);
        col->expr_text = cdc_sql_expr_to_string(sc->expr);
    } else {
        col->type = cdc_cat_parse_column_type(s, sc, err);
        if (!col->type)
            return -1;
        col->kind = sc->kind == CDC_SQL_COLUMN_METADATA ? CDC_COLUMN_METADATA : CDC_COLUMN_PHYSICAL;
        if (col->kind == CDC_COLUMN_METADATA) {
            col->metadata_from = sc->metadata_key != NULL;
            col->metadata_key = cdc_xstrdup(sc->metadata_key ? sc->metadata_key : sc->name);
            col->is_virtual = sc->is_virtual;
        }
    }
    col->name = cdc_xstrdup(sc->name);
    col->not_null = sc->not_null;
    col->comment = cdc_cat_dup_or_null(sc->comment);
    return 0;
}

/* ---- type derivation of computed columns ---------------------------------------------------- */

static bool any_nullable(cdc_catalog_t *cat, const cdc_table_def_t *t, cdc_sql_expr_t *const *es,
                         size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!es[i])
            continue;
        cdc_type_t *ty = cdc_cat_derive_type(cat, t, es[i]);
        bool nullable = !ty || ty->nullable;
        cdc_type_destroy(ty);
        if (nullable)
            return true;
    }
    return false;
}

static cdc_type_t *with_nullability(cdc_type_t *ty, bool nullable)
{
    if (ty)
        ty->nullable = nullable;
    return ty;
}

static bool call_is(const cdc_sql_expr_t *e, const char *name)
{
    return strcasecmp(e->call.name ? e->call.name : "", name) == 0;
}

/* The type of a computed column's expression when it can be told without a planner; NULL
 * otherwise. Nullability follows Flink: NULL in, NULL out. */
cdc_type_t *cdc_cat_derive_type(cdc_catalog_t *cat, const cdc_table_def_t *t,
                                const cdc_sql_expr_t *e)
{
    switch (e->kind) {
    case CDC_SQL_EXPR_COLUMN: {
        int i = column_index(t, e->column.parts[0]);
        if (i < 0 || e->column.nparts != 1 || !t->columns[i].type)
            return NULL;
        return cdc_type_copy(t->columns[i].type);
    }
    case CDC_SQL_EXPR_CAST: {
        cdc_type_t *ty = cdc_type_parse(e->cast.type.text ? e->cast.type.text : "", NULL);
        if (!ty)
            return NULL;
        if (e->cast.try_cast)
            return with_nullability(ty, true);
        cdc_sql_expr_t *const ops[] = {e->cast.operand};
        return with_nullability(ty, ty->nullable && any_nullable(cat, t, ops, 1));
    }
    case CDC_SQL_EXPR_LITERAL:
        switch (e->literal.kind) {
        case CDC_SQL_LIT_BOOLEAN:
            return with_nullability(cdc_type_new(CDC_T_BOOLEAN), false);
        case CDC_SQL_LIT_INTEGER: {
            long long v = strtoll(e->literal.text, NULL, 10);
            return with_nullability(
                cdc_type_new(v > 2147483647LL || v < -2147483648LL ? CDC_T_BIGINT : CDC_T_INT),
                false);
        }
        case CDC_SQL_LIT_STRING: {
            size_t n = strlen(e->literal.text);
            return with_nullability(cdc_type_new_sized(CDC_T_CHAR, (int32_t)(n ? n : 1)), false);
        }
        case CDC_SQL_LIT_DATE:
            return with_nullability(cdc_type_new(CDC_T_DATE), false);
        default:
            return NULL;
        }
    case CDC_SQL_EXPR_UNARY: {
        if (e->unary.op == CDC_SQL_UNARY_NOT) {
            cdc_sql_expr_t *const ops[] = {e->unary.operand};
            return with_nullability(cdc_type_new(CDC_T_BOOLEAN), any_nullable(cat, t, ops, 1));
        }
        return cdc_cat_derive_type(cat, t, e->unary.operand);
    }
    case CDC_SQL_EXPR_BINARY: {
        /* each operand derived once: nested expressions stay linear */
        cdc_type_t *a = cdc_cat_derive_type(cat, t, e->binary.left);
        cdc_type_t *b = cdc_cat_derive_type(cat, t, e->binary.right);
        bool b_interval = e->binary.right->kind == CDC_SQL_EXPR_LITERAL &&
                          e->binary.right->literal.kind == CDC_SQL_LIT_INTERVAL;
        bool nullable = !a || a->nullable || (b ? b->nullable : !b_interval);
        cdc_type_t *r = NULL;
        switch (e->binary.op) {
        case CDC_SQL_BINARY_CONCAT:
            r = cdc_type_new_sized(CDC_T_VARCHAR, CDC_MAX_LENGTH);
            break;
        case CDC_SQL_BINARY_ADD:
        case CDC_SQL_BINARY_SUB:
        case CDC_SQL_BINARY_MUL:
        case CDC_SQL_BINARY_DIV:
        case CDC_SQL_BINARY_MOD: {
            bool a_float = a && (a->root == CDC_T_DOUBLE || a->root == CDC_T_FLOAT);
            bool b_float = b && (b->root == CDC_T_DOUBLE || b->root == CDC_T_FLOAT);
            if (a && b && cdc_type_is_integer(a) && cdc_type_is_integer(b))
                r = cdc_type_new(a->root > b->root ? a->root : b->root);
            else if (a && b && (a_float || b_float) && (a_float || cdc_type_is_integer(a)) &&
                     (b_float || cdc_type_is_integer(b)))
                r = cdc_type_new(CDC_T_DOUBLE);
            else if (a && b_interval &&
                     (a->root == CDC_T_TIMESTAMP || a->root == CDC_T_TIMESTAMP_LTZ ||
                      a->root == CDC_T_DATE) &&
                     (e->binary.op == CDC_SQL_BINARY_ADD || e->binary.op == CDC_SQL_BINARY_SUB))
                r = cdc_type_copy(a);
            break;
        }
        default: /* comparisons, AND, OR */
            r = cdc_type_new(CDC_T_BOOLEAN);
            break;
        }
        cdc_type_destroy(a);
        cdc_type_destroy(b);
        return with_nullability(r, nullable);
    }
    case CDC_SQL_EXPR_IN: {
        cdc_sql_expr_t *const ops[] = {e->in_list.operand};
        return with_nullability(cdc_type_new(CDC_T_BOOLEAN),
                                any_nullable(cat, t, ops, 1) ||
                                    any_nullable(cat, t, e->in_list.items, e->in_list.nitems));
    }
    case CDC_SQL_EXPR_BETWEEN: {
        cdc_sql_expr_t *const ops[] = {e->between.operand, e->between.low, e->between.high};
        return with_nullability(cdc_type_new(CDC_T_BOOLEAN), any_nullable(cat, t, ops, 3));
    }
    case CDC_SQL_EXPR_LIKE: {
        cdc_sql_expr_t *const ops[] = {e->like.operand, e->like.pattern};
        return with_nullability(cdc_type_new(CDC_T_BOOLEAN), any_nullable(cat, t, ops, 2));
    }
    case CDC_SQL_EXPR_IS_NULL:
        return with_nullability(cdc_type_new(CDC_T_BOOLEAN), false);
    case CDC_SQL_EXPR_CALL: {
        /* user functions first: resolution already puts built-ins before catalog functions and
         * temporary system functions before built-ins */
        const cdc_udf_def_t *udf = NULL;
        cdc_error_t *ferr = NULL;
        int found = cat && e->call.name
                        ? cdc_catalog_resolve_function(cat, e->call.name, &udf, NULL, &ferr)
                        : 0;
        cdc_error_destroy(ferr);
        if (found == 1 && udf)
            return with_nullability(cdc_type_parse(udf->return_type, NULL), true);
        if (call_is(e, "PROCTIME") || call_is(e, "CURRENT_TIMESTAMP") || call_is(e, "NOW") ||
            call_is(e, "LOCALTIMESTAMP")) {
            cdc_type_t *ty = cdc_type_new_sized(
                call_is(e, "LOCALTIMESTAMP") ? CDC_T_TIMESTAMP : CDC_T_TIMESTAMP_LTZ, 3);
            return with_nullability(ty, false);
        }
        if (call_is(e, "COALESCE") && e->call.nargs > 0) {
            cdc_type_t *ty = cdc_cat_derive_type(cat, t, e->call.args[e->call.nargs - 1]);
            return with_nullability(ty, ty && ty->nullable);
        }
        if (call_is(e, "TO_TIMESTAMP"))
            return with_nullability(cdc_type_new_sized(CDC_T_TIMESTAMP, 3), true);
        cdc_type_t *ty = NULL;
        if (call_is(e, "UPPER") || call_is(e, "LOWER") || call_is(e, "TRIM") ||
            call_is(e, "CONCAT") || call_is(e, "SUBSTRING") || call_is(e, "SUBSTR") ||
            call_is(e, "LTRIM") || call_is(e, "RTRIM") || call_is(e, "REPLACE"))
            ty = cdc_type_new_sized(CDC_T_VARCHAR, CDC_MAX_LENGTH);
        else if (call_is(e, "CHAR_LENGTH") || call_is(e, "CHARACTER_LENGTH"))
            ty = cdc_type_new(CDC_T_INT);
        else if (call_is(e, "TO_TIMESTAMP_LTZ"))
            ty = cdc_type_new_sized(CDC_T_TIMESTAMP_LTZ, 3);
        if (!ty)
            return NULL;
        return with_nullability(ty, any_nullable(cat, t, e->call.args, e->call.nargs));
    }
    case CDC_SQL_EXPR_CASE:
        if (e->case_expr.nwhens > 0)
            return with_nullability(cdc_cat_derive_type(cat, t, e->case_expr.whens[0].then), true);
        return NULL;
    default:
        return NULL;
    }
}

/* ---- expression checks ------------------------------------------------------------------------
 */

typedef void (*expr_visit_fn)(const cdc_sql_expr_t *e, void *ctx);

static void walk_expr(const cdc_sql_expr_t *e, expr_visit_fn fn, void *ctx)
{
    if (!e)
        return;
    fn(e, ctx);
    switch (e->kind) {
    case CDC_SQL_EXPR_UNARY:
        walk_expr(e->unary.operand, fn, ctx);
        break;
    case CDC_SQL_EXPR_BINARY:
        walk_expr(e->binary.left, fn, ctx);
        walk_expr(e->binary.right, fn, ctx);
        break;
    case CDC_SQL_EXPR_CALL:
        for (size_t i = 0; i < e->call.nargs; i++)
            walk_expr(e->call.args[i], fn, ctx);
        break;
    case CDC_SQL_EXPR_CAST:
        walk_expr(e->cast.operand, fn, ctx);
        break;
    case CDC_SQL_EXPR_CASE:
        walk_expr(e->case_expr.operand, fn, ctx);
        for (size_t i = 0; i < e->case_expr.nwhens; i++) {
            walk_expr(e->case_expr.whens[i].when, fn, ctx);
            walk_expr(e->case_expr.whens[i].then, fn, ctx);
        }
        walk_expr(e->case_expr.else_expr, fn, ctx);
        break;
    case CDC_SQL_EXPR_IN:
        walk_expr(e->in_list.operand, fn, ctx);
        for (size_t i = 0; i < e->in_list.nitems; i++)
            walk_expr(e->in_list.items[i], fn, ctx);
        break;
    case CDC_SQL_EXPR_BETWEEN:
        walk_expr(e->between.operand, fn, ctx);
        walk_expr(e->between.low, fn, ctx);
        walk_expr(e->between.high, fn, ctx);
        break;
    case CDC_SQL_EXPR_LIKE:
        walk_expr(e->like.operand, fn, ctx);
        walk_expr(e->like.pattern, fn, ctx);
        walk_expr(e->like.escape, fn, ctx);
        break;
    case CDC_SQL_EXPR_IS_NULL:
        walk_expr(e->is_null.operand, fn, ctx);
        break;
    case CDC_SQL_EXPR_SUBSCRIPT:
        walk_expr(e->subscript.base, fn, ctx);
        walk_expr(e->subscript.index, fn, ctx);
        break;
    default:
        break;
    }
}

typedef struct ref_check {
    const cdc_table_def_t *t;
    const char *self;              /* the computed column being checked, or NULL */
    const cdc_sql_expr_t *bad;     /* first reference to an unknown column */
    const cdc_sql_expr_t *to_self; /* a reference to itself */
} ref_check_t;

static void check_ref(const cdc_sql_expr_t *e, void *ctx)
{
    ref_check_t *rc = ctx;
    if (e->kind != CDC_SQL_EXPR_COLUMN || rc->bad || rc->to_self)
        return;
    const char *name = e->column.parts[0];
    if (rc->self && strcmp(name, rc->self) == 0)
        rc->to_self = e;
    else if (column_index(rc->t, name) < 0)
        rc->bad = e;
}

/* Checks that an expression of a table refers to its columns only. On failure @p where (when
 * not NULL) is the error position instead of the reference's: used for expressions copied
 * from a LIKE base, whose positions belong to another text. */
static int check_expr_refs(const src_t *s, const cdc_table_def_t *t, const cdc_sql_expr_t *e,
                           const char *self, const char *what, const int *where, cdc_error_t **err)
{
    ref_check_t rc = {t, self, NULL, NULL};
    walk_expr(e, check_ref, &rc);
    if (rc.to_self) {
        int line = where ? where[0] : rc.to_self->line, col = where ? where[1] : rc.to_self->col;
        return cdc_cat_fail_at(err, CDC_ERR_SQL, s, line, col,
                               "computed column \"%s\" refers to itself", self);
    }
    if (!rc.bad)
        return 0;
    const char *name = rc.bad->column.parts[0];
    int line = where ? where[0] : rc.bad->line, col = where ? where[1] : rc.bad->col;
    cdc_cat_fail_at(err, CDC_ERR_SQL, s, line, col,
                    "%s refers to column \"%s\", which table \"%s\" does "
                    "not have",
                    what, name, t->qualified);
    if (where) {
        cdc_error_set_hint(*err, "the LIKE options leave column \"%s\" of the base table out",
                           name);
        return -1;
    }
    int n;
    const char **names = column_names(t, false, &n);
    cdc_cat_hint_closest(*err, name, names, n);
    free(names);
    return -1;
}

typedef struct ref_find {
    const char *name;
    bool found;
} ref_find_t;

static void find_ref(const cdc_sql_expr_t *e, void *ctx)
{
    ref_find_t *rf = ctx;
    if (e->kind == CDC_SQL_EXPR_COLUMN && strcmp(e->column.parts[0], rf->name) == 0)
        rf->found = true;
}

bool cdc_cat_expr_refers(const cdc_sql_expr_t *e, const char *column)
{
    ref_find_t rf = {column, false};
    walk_expr(e, find_ref, &rf);
    return rf.found;
}

/* ---- CREATE TABLE ------------------------------------------------------------------------------
 */

static const char *const like_feature_names[] = {
    [CDC_SQL_LIKE_ALL] = "ALL",
    [CDC_SQL_LIKE_CONSTRAINTS] = "CONSTRAINTS",
    [CDC_SQL_LIKE_GENERATED] = "GENERATED",
    [CDC_SQL_LIKE_METADATA] = "METADATA",
    [CDC_SQL_LIKE_OPTIONS] = "OPTIONS",
    [CDC_SQL_LIKE_PARTITIONS] = "PARTITIONS",
    [CDC_SQL_LIKE_WATERMARKS] = "WATERMARKS",
};

#define NFEATURES (CDC_SQL_LIKE_WATERMARKS + 1)

/* Flink's merging strategies: the default is INCLUDING ALL OVERWRITING OPTIONS; an ALL option
 * applies first, then the specific ones; each feature may be named once. */
static int like_modes(const src_t *s, const cdc_sql_like_t *like, cdc_sql_like_mode_t *modes,
                      cdc_error_t **err)
{
    for (int f = 0; f < NFEATURES; f++)
        modes[f] = CDC_SQL_LIKE_INCLUDING;
    modes[CDC_SQL_LIKE_OPTIONS] = CDC_SQL_LIKE_OVERWRITING;
    bool seen[NFEATURES] = {0};
    for (size_t i = 0; i < like->noptions; i++) {
        const cdc_sql_like_option_t *o = &like->options[i];
        if (seen[o->feature])
            return cdc_cat_fail_at(err, CDC_ERR_SQL, s, o->line, o->col,
                                   "LIKE option for %s is given twice",
                                   like_feature_names[o->feature]);
        seen[o->feature] = true;
        if (o->feature == CDC_SQL_LIKE_ALL)
            for (int f = 0; f < NFEATURES; f++)
                modes[f] = o->mode;
    }
    for (size_t i = 0; i < like->noptions; i++)
        if (like->options[i].feature != CDC_SQL_LIKE_ALL)
            modes[like->options[i].feature] = like->options[i].mode;
    return 0;
}

/* Adds the statement's columns, merging with the base's per the LIKE modes. */
static int merge_columns(const src_t *s, const cdc_sql_create_table_t *ct, cdc_table_def_t *t,
                         const cdc_table_def_t *base, const cdc_sql_like_mode_t *modes,
                         cdc_error_t **err)
{
    /* from_base[i]: column i was copied from the base table */
    bool *from_base = cdc_xcalloc((size_t)(base ? base->ncolumns : 0) + ct->ncolumns + 1, 1);
    if (base) {
        for (int i = 0; i < base->ncolumns; i++) {
            const cdc_column_def_t *bc = &base->columns[i];
            if (bc->kind == CDC_COLUMN_COMPUTED &&
                modes[CDC_SQL_LIKE_GENERATED] == CDC_SQL_LIKE_EXCLUDING)
                continue;
            if (bc->kind == CDC_COLUMN_METADATA &&
                modes[CDC_SQL_LIKE_METADATA] == CDC_SQL_LIKE_EXCLUDING)
                continue;
            cdc_column_def_t col;
            column_copy(&col, bc);
            /* the base's primary key made its columns NOT NULL; the key may not come along */
            if (col.type && col.kind != CDC_COLUMN_COMPUTED && !col.not_null)
                col.type->nullable = true;
            from_base[t->ncolumns] = true;
            add_column(t, &col);
        }
    }
    for (size_t i = 0; i < ct->ncolumns; i++) {
        const cdc_sql_column_t *sc = &ct->columns[i];
        int at = column_index(t, sc->name);
        if (at >= 0 && !from_base[at]) {
            cdc_cat_fail_at(err, CDC_ERR_SQL, s, sc->line, sc->col,
                            "column \"%s\" is declared twice", sc->name);
            goto fail;
        }
        if (at >= 0) {
            cdc_column_def_t *ex = &t->columns[at];
            cdc_column_kind_t nk = sc->kind == CDC_SQL_COLUMN_COMPUTED   ? CDC_COLUMN_COMPUTED
                                   : sc->kind == CDC_SQL_COLUMN_METADATA ? CDC_COLUMN_METADATA
                                                                         : CDC_COLUMN_PHYSICAL;
            if (nk == CDC_COLUMN_PHYSICAL || ex->kind != nk) {
                cdc_cat_fail_at(err, CDC_ERR_SQL, s, sc->line, sc->col,
                                "column \"%s\" already exists in the base table \"%s\"", sc->name,
                                base->qualified);
                if (nk != CDC_COLUMN_PHYSICAL)
                    cdc_error_set_hint(*err, "a %s column can only overwrite a %s column",
                                       nk == CDC_COLUMN_COMPUTED ? "computed" : "metadata",
                                       nk == CDC_COLUMN_COMPUTED ? "computed" : "metadata");
                goto fail;
            }
            cdc_sql_like_feature_t f =
                nk == CDC_COLUMN_COMPUTED ? CDC_SQL_LIKE_GENERATED : CDC_SQL_LIKE_METADATA;
            if (modes[f] != CDC_SQL_LIKE_OVERWRITING) {
                cdc_cat_fail_at(err, CDC_ERR_SQL, s, sc->line, sc->col,
                                "%s column \"%s\" already exists in the base table \"%s\"",
                                nk == CDC_COLUMN_COMPUTED ? "computed" : "metadata", sc->name,
                                base->qualified);
                cdc_error_set_hint(*err, "use EXCLUDING %s or OVERWRITING %s",
                                   like_feature_names[f], like_feature_names[f]);
                goto fail;
            }
            cdc_column_def_t col;
            if (column_from_sql(s, sc, &col, err) < 0)
                goto fail;
            cdc_cat_column_free(ex);
            col.physical = -1;
            *ex = col;
            from_base[at] = false;
            continue;
        }
        cdc_column_def_t col;
        if (column_from_sql(s, sc, &col, err) < 0)
            goto fail;
        add_column(t, &col);
    }
    /* computed columns: references, then types in declaration order */
    for (int i = 0; i < t->ncolumns; i++) {
        cdc_column_def_t *col = &t->columns[i];
        if (col->kind != CDC_COLUMN_COMPUTED)
            continue;
        char *what = cdc_strdup_printf("computed column \"%s\"", col->name);
        int where[2] = {ct->like ? ct->like->line : 0, ct->like ? ct->like->col : 0};
        int rc =
            check_expr_refs(s, t, col->expr, col->name, what, from_base[i] ? where : NULL, err);
        free(what);
        if (rc < 0)
            goto fail;
    }
    free(from_base);
    return 0;
fail:
    free(from_base);
    return -1;
}

static int resolve_key_list(const src_t *s, cdc_table_def_t *t, const cdc_sql_ident_list_t *cols,
                            const char *what, int **out, int *nout, cdc_error_t **err)
{
    *out = cdc_xcalloc(cols->count + 1, sizeof(int));
    *nout = 0;
    for (size_t i = 0; i < cols->count; i++) {
        const cdc_sql_ident_t *id = &cols->items[i];
        int ci = column_index(t, id->name);
        if (ci < 0 || t->columns[ci].kind != CDC_COLUMN_PHYSICAL) {
            cdc_cat_fail_at(err, CDC_ERR_SQL, s, id->line, id->col,
                            "%s column \"%s\" is not a physical column of the table", what,
                            id->name);
            if (ci < 0) {
                int n;
                const char **names = column_names(t, true, &n);
                cdc_cat_hint_closest(*err, id->name, names, n);
                free(names);
            }
            return -1;
        }
        int idx = t->columns[ci].physical;
        for (int k = 0; k < *nout; k++)
            if ((*out)[k] == idx)
                return cdc_cat_fail_at(err, CDC_ERR_SQL, s, id->line, id->col,
                                       "column \"%s\" appears twice in the %s", id->name,
                                       strcmp(what, "primary key") == 0 ? "primary key"
                                                                        : "PARTITIONED BY clause");
        (*out)[(*nout)++] = idx;
    }
    return 0;
}

/* CREATE TABLE: the primary key and the partition keys, given or from the LIKE base. */
static int table_keys(const src_t *s, const cdc_sql_create_table_t *ct, cdc_table_def_t *t,
                      const cdc_table_def_t *base, const cdc_sql_like_mode_t *modes,
                      cdc_error_t **err)
{
    /* primary key */
    bool base_pk = base && base->npk && modes[CDC_SQL_LIKE_CONSTRAINTS] == CDC_SQL_LIKE_INCLUDING;
    if (ct->primary_key) {
        if (base_pk) {
            cdc_cat_fail_at(err, CDC_ERR_SQL, s, ct->primary_key->line, ct->primary_key->col,
                            "the base table \"%s\" already has a primary key", base->qualified);
            cdc_error_set_hint(*err, "use EXCLUDING CONSTRAINTS to replace it");
            return -1;
        }
        if (resolve_key_list(s, t, &ct->primary_key->columns, "primary key", &t->pk, &t->npk, err) <
            0)
            return -1;
        t->pk_name = cdc_cat_dup_or_null(ct->primary_key->constraint_name);
    } else if (base_pk) {
        t->pk = cdc_xcalloc((size_t)base->npk, sizeof(int));
        for (int i = 0; i < base->npk; i++)
            t->pk[t->npk++] = cdc_type_field_index(t->schema, base->schema->names[base->pk[i]]);
        t->pk_name = cdc_cat_dup_or_null(base->pk_name);
    }
    for (int i = 0; i < t->npk; i++) /* Flink makes primary key columns NOT NULL */
        t->schema->children[t->pk[i]]->nullable = false;

    /* partition keys */
    bool base_parts =
        base && base->npartition_keys && modes[CDC_SQL_LIKE_PARTITIONS] == CDC_SQL_LIKE_INCLUDING;
    if (ct->partitioned_by.count) {
        if (base_parts) {
            cdc_cat_fail_at(err, CDC_ERR_SQL, s, ct->partitioned_by.items[0].line,
                            ct->partitioned_by.items[0].col,
                            "the base table \"%s\" already has partition keys", base->qualified);
            cdc_error_set_hint(*err, "use EXCLUDING PARTITIONS to replace them");
            return -1;
        }
        if (resolve_key_list(s, t, &ct->partitioned_by, "partition key", &t->partition_keys,
                             &t->npartition_keys, err) < 0)
            return -1;
    } else if (base_parts) {
        t->partition_keys = cdc_xcalloc((size_t)base->npartition_keys, sizeof(int));
        for (int i = 0; i < base->npartition_keys; i++)
            t->partition_keys[t->npartition_keys++] =
                cdc_type_field_index(t->schema, base->schema->names[base->partition_keys[i]]);
    }
    return 0;
}

/* CREATE TABLE: the watermark, given or from the LIKE base. */
static int table_watermark(cdc_catalog_t *cat, const src_t *s, const cdc_sql_create_table_t *ct,
                           cdc_table_def_t *t, const cdc_table_def_t *base,
                           const cdc_sql_like_mode_t *modes, cdc_error_t **err)
{
    /* watermark */
    if (ct->watermark) {
        const cdc_sql_watermark_t *wm = ct->watermark;
        if (base && base->watermark_column &&
            modes[CDC_SQL_LIKE_WATERMARKS] == CDC_SQL_LIKE_INCLUDING) {
            cdc_cat_fail_at(err, CDC_ERR_SQL, s, wm->line, wm->col,
                            "the base table \"%s\" already has a watermark", base->qualified);
            cdc_error_set_hint(*err, "use EXCLUDING WATERMARKS or OVERWRITING WATERMARKS");
            return -1;
        }
        int ci = column_index(t, wm->column.name);
        if (ci < 0) {
            cdc_cat_fail_at(err, CDC_ERR_SQL, s, wm->column.line, wm->column.col,
                            "watermark column \"%s\" does not exist", wm->column.name);
            int n;
            const char **names = column_names(t, false, &n);
            cdc_cat_hint_closest(*err, wm->column.name, names, n);
            free(names);
            return -1;
        }
        const cdc_type_t *ty = t->columns[ci].type;
        cdc_type_t *derived = NULL;
        if (!ty && t->columns[ci].expr)
            ty = derived = cdc_cat_derive_type(cat, t, t->columns[ci].expr);
        if (ty && !((ty->root == CDC_T_TIMESTAMP || ty->root == CDC_T_TIMESTAMP_LTZ) &&
                    ty->precision <= 3)) {
            char *shown = cdc_type_to_string(ty);
            cdc_cat_fail_at(
                err, CDC_ERR_SQL, s, wm->column.line, wm->column.col,
                "watermark column \"%s\" must be of type TIMESTAMP(p) or TIMESTAMP_LTZ(p) "
                "with p from 0 to 3, found %s",
                wm->column.name, shown);
            free(shown);
            cdc_type_destroy(derived);
            return -1;
        }
        cdc_type_destroy(derived);
        if (check_expr_refs(s, t, wm->expr, NULL, "the watermark expression", NULL, err) < 0)
            return -1;
        t->watermark_column = cdc_xstrdup(wm->column.name);
        t->watermark_expr = cdc_sql_expr_clone(wm->expr);
        t->watermark = cdc_sql_expr_to_string(wm->expr);
    } else if (base && base->watermark_column &&
               modes[CDC_SQL_LIKE_WATERMARKS] != CDC_SQL_LIKE_EXCLUDING) {
        int where[2] = {ct->like->line, ct->like->col};
        if (column_index(t, base->watermark_column) < 0) {
            cdc_cat_fail_at(
                err, CDC_ERR_SQL, s, where[0], where[1],
                "the watermark of \"%s\" is on column \"%s\", which the LIKE options leave "
                "out",
                base->qualified, base->watermark_column);
            cdc_error_set_hint(*err, "use EXCLUDING WATERMARKS");
            return -1;
        }
        if (check_expr_refs(s, t, base->watermark_expr, NULL, "the watermark of the base table",
                            where, err) < 0)
            return -1;
        t->watermark_column = cdc_xstrdup(base->watermark_column);
        t->watermark_expr = cdc_sql_expr_clone(base->watermark_expr);
        t->watermark = cdc_cat_dup_or_null(base->watermark);
    }
    return 0;
}

/* CREATE TABLE: the options, given or from the LIKE base. */
static int table_options(const src_t *s, const cdc_sql_create_table_t *ct, cdc_table_def_t *t,
                         const cdc_table_def_t *base, const cdc_sql_like_mode_t *modes,
                         cdc_error_t **err)
{
    /* options */
    if (base && modes[CDC_SQL_LIKE_OPTIONS] != CDC_SQL_LIKE_EXCLUDING)
        cdc_kv_copy(&t->options, &base->options);
    {
        cdc_kv_t given = {0};
        for (size_t i = 0; i < ct->options.count; i++) {
            const cdc_sql_option_t *opt = &ct->options.items[i];
            if (cdc_kv_get(&given, opt->key)) {
                cdc_cat_fail_at(err, CDC_ERR_SQL, s, opt->line, opt->col,
                                "option \"%s\" is given twice", opt->key);
                cdc_kv_free(&given);
                return -1;
            }
            cdc_kv_set(&given, opt->key, opt->value);
            if (base && modes[CDC_SQL_LIKE_OPTIONS] == CDC_SQL_LIKE_INCLUDING &&
                cdc_kv_get(&base->options, opt->key)) {
                cdc_cat_fail_at(err, CDC_ERR_SQL, s, opt->line, opt->col,
                                "option \"%s\" is already set by the base table \"%s\"", opt->key,
                                base->qualified);
                cdc_error_set_hint(*err, "use OVERWRITING OPTIONS or EXCLUDING OPTIONS");
                cdc_kv_free(&given);
                return -1;
            }
            cdc_kv_set(&t->options, opt->key, opt->value);
        }
        cdc_kv_free(&given);
    }
    return 0;
}

/* Builds the definition of a CREATE TABLE (without registering it). */
cdc_table_def_t *cdc_cat_build_table(cdc_catalog_t *cat, const cdc_sql_create_table_t *ct,
                                     const src_t *s, const ident_t *id, cdc_error_t **err)
{
    cdc_table_def_t *t = cdc_xcalloc(1, sizeof(*t));
    t->catalog = cdc_xstrdup(id->c);
    t->database = cdc_xstrdup(id->d);
    t->name = cdc_xstrdup(id->o);
    t->qualified = cdc_xstrdup(id->q);
    t->temporary = ct->temporary;
    t->line = ct->name.line;
    t->col = ct->name.col;
    t->origin = cdc_xstrdup(s->filename ? s->filename : "<input>");
    t->schema = cdc_type_new_row();
    t->schema->nullable = false;
    t->comment = cdc_cat_dup_or_null(ct->comment);

    const cdc_table_def_t *base = NULL;
    cdc_sql_like_mode_t modes[NFEATURES] = {0};
    if (ct->like) {
        if (like_modes(s, ct->like, modes, err) < 0)
            goto fail;
        const cdc_view_def_t *bv = NULL;
        int r = cdc_catalog_find(cat, &ct->like->source, &base, &bv, err);
        if (r < 0)
            goto fail;
        if (r == 0) {
            ident_t bid = cdc_cat_qualify(cat, &ct->like->source, false);
            cdc_error_destroy(*err);
            *err = cdc_cat_missing_object_error(cat, s, &ct->like->source, &bid, OBJ_TABLE);
            cdc_cat_ident_free(&bid);
            goto fail;
        }
        if (bv) {
            cdc_cat_fail_at(err, CDC_ERR_SQL, s, ct->like->source.line, ct->like->source.col,
                            "view \"%s\" cannot be the source of LIKE", bv->qualified);
            cdc_error_set_hint(*err, "LIKE copies the definition of a table");
            goto fail;
        }
    }
    if (merge_columns(s, ct, t, base, modes, err) < 0)
        goto fail;

    if (table_keys(s, ct, t, base, modes, err) < 0 ||
        table_watermark(cat, s, ct, t, base, modes, err) < 0)
        goto fail;

    /* computed column types, now that every column is known */
    for (int i = 0; i < t->ncolumns; i++)
        if (t->columns[i].kind == CDC_COLUMN_COMPUTED && !t->columns[i].type)
            t->columns[i].type = cdc_cat_derive_type(cat, t, t->columns[i].expr);

    if (table_options(s, ct, t, base, modes, err) < 0)
        goto fail;
    return t;
fail:
    cdc_cat_table_free(t);
    return NULL;
}

/* ---- DDL printing ---------------------------------------------------------------------------- */

static void put_name(cdc_buf_t *b, const char *c, const char *d, const char *o, bool qualified)
{
    if (qualified && c && d) {
        cdc_sql_put_ident(b, c);
        cdc_buf_putc(b, '.');
        cdc_sql_put_ident(b, d);
        cdc_buf_putc(b, '.');
    }
    cdc_sql_put_ident(b, o);
}

static void put_options(cdc_buf_t *b, const cdc_kv_t *opts)
{
    cdc_buf_puts(b, "WITH (\n");
    for (int i = 0; i < opts->n; i++) {
        cdc_buf_puts(b, "  ");
        cdc_sql_put_string(b, opts->keys[i]);
        cdc_buf_puts(b, " = ");
        cdc_sql_put_string(b, opts->values[i]);
        cdc_buf_puts(b, i + 1 < opts->n ? ",\n" : "\n");
    }
    cdc_buf_putc(b, ')');
}

/* The edit of physical column `name` by `edits`: the item, or NULL when none touches it. */
static const cdc_sc_item_t *column_edit(const cdc_schema_change_t *edits, const char *name)
{
    for (int i = 0; edits && i < edits->nitems; i++) {
        const cdc_sc_item_t *it = &edits->items[i];
        if (it->column && strcmp(it->column, name) == 0 &&
            (it->kind == CDC_SC_DROP_COLUMN || it->kind == CDC_SC_RENAME_COLUMN ||
             it->kind == CDC_SC_ALTER_TYPE))
            return it;
    }
    return NULL;
}

/* A physical column's name after the edits (a renamed one's new name); NULL when dropped. */
static const char *edited_name(const cdc_schema_change_t *edits, const char *name)
{
    const cdc_sc_item_t *it = column_edit(edits, name);
    if (it && it->kind == CDC_SC_DROP_COLUMN)
        return NULL;
    return it && it->kind == CDC_SC_RENAME_COLUMN ? it->new_name : name;
}

static void put_column_type(cdc_buf_t *b, const cdc_type_t *type)
{
    char *ty = cdc_type_to_string(type);
    cdc_buf_printf(b, " %s", ty);
    free(ty);
}

void cdc_cat_put_column_sql(cdc_buf_t *b, const cdc_column_def_t *c, const char *name,
                            const cdc_type_t *type)
{
    cdc_sql_put_ident(b, name);
    if (c->kind == CDC_COLUMN_COMPUTED) {
        cdc_buf_printf(b, " AS %s", c->expr_text);
    } else {
        put_column_type(b, type);
        if (c->kind == CDC_COLUMN_METADATA) {
            cdc_buf_puts(b, " METADATA");
            if (c->metadata_from) {
                cdc_buf_puts(b, " FROM ");
                cdc_sql_put_string(b, c->metadata_key);
            }
            if (c->is_virtual)
                cdc_buf_puts(b, " VIRTUAL");
        }
    }
    if (c->comment) {
        cdc_buf_puts(b, " COMMENT ");
        cdc_sql_put_string(b, c->comment);
    }
}

/* The column lines of CREATE TABLE, each without its separator, into lines (NUL-separated). */
static int column_lines(const cdc_table_def_t *t, const cdc_schema_change_t *edits,
                        cdc_buf_t *lines, cdc_error_t **err)
{
    int n = 0;
    for (int i = 0; i < t->ncolumns; i++) {
        const cdc_column_def_t *c = &t->columns[i];
        const cdc_sc_item_t *ed =
            c->kind == CDC_COLUMN_PHYSICAL ? column_edit(edits, c->name) : NULL;
        if (ed && ed->kind == CDC_SC_DROP_COLUMN) {
            for (int k = 0; k < t->npk; k++)
                if (strcmp(t->schema->names[t->pk[k]], c->name) == 0)
                    return cdc_error_set(err, CDC_ERR_CATALOG,
                                         "table \"%s\": column \"%s\" is part of the primary "
                                         "key and cannot be dropped",
                                         t->qualified, c->name);
            continue;
        }
        cdc_buf_puts(lines, "  ");
        cdc_cat_put_column_sql(lines, c,
                               ed && ed->kind == CDC_SC_RENAME_COLUMN ? ed->new_name : c->name,
                               ed && ed->kind == CDC_SC_ALTER_TYPE ? ed->type : c->type);
        cdc_buf_putc(lines, '\0');
        n++;
    }
    /* added columns go last (a query's * then ends with them) */
    for (int i = 0; edits && i < edits->nitems; i++) {
        const cdc_sc_item_t *it = &edits->items[i];
        if (it->kind != CDC_SC_ADD_COLUMN)
            continue;
        cdc_buf_puts(lines, "  ");
        cdc_sql_put_ident(lines, it->column);
        put_column_type(lines, it->type);
        cdc_buf_putc(lines, '\0');
        n++;
    }
    return n;
}

static void put_key_list(cdc_buf_t *b, const cdc_table_def_t *t, const int *keys, int n,
                         const cdc_schema_change_t *edits)
{
    for (int i = 0; i < n; i++) {
        const char *nm = edited_name(edits, t->schema->names[keys[i]]);
        if (i)
            cdc_buf_puts(b, ", ");
        cdc_sql_put_ident(b, nm ? nm : t->schema->names[keys[i]]);
    }
}

char *cdc_cat_table_sql(const cdc_table_def_t *t, const cdc_buf_t *lines, int ncols,
                        const char *watermark, const char *pk, const cdc_schema_change_t *edits,
                        bool qualified)
{
    cdc_buf_t b = {0};
    cdc_buf_puts(&b, t->temporary ? "CREATE TEMPORARY TABLE " : "CREATE TABLE ");
    put_name(&b, t->catalog, t->database, t->name, qualified);
    int nitems = ncols + (watermark ? 1 : 0) + (pk ? 1 : 0);
    if (nitems) {
        cdc_buf_puts(&b, " (\n");
        int k = 0;
        for (size_t off = 0; off < lines->len; off += strlen(lines->data + off) + 1) {
            cdc_buf_puts(&b, lines->data + off);
            cdc_buf_puts(&b, ++k < nitems ? ",\n" : "\n");
        }
        if (watermark) {
            cdc_buf_printf(&b, "  %s", watermark);
            cdc_buf_puts(&b, ++k < nitems ? ",\n" : "\n");
        }
        if (pk)
            cdc_buf_printf(&b, "  %s\n", pk);
        cdc_buf_putc(&b, ')');
    }
    if (t->comment) {
        cdc_buf_puts(&b, " COMMENT ");
        cdc_sql_put_string(&b, t->comment);
    }
    if (t->npartition_keys) {
        cdc_buf_puts(&b, "\nPARTITIONED BY (");
        put_key_list(&b, t, t->partition_keys, t->npartition_keys, edits);
        cdc_buf_putc(&b, ')');
    }
    if (t->options.n) {
        cdc_buf_putc(&b, '\n');
        put_options(&b, &t->options);
    }
    return cdc_cat_buf_take(&b);
}

void cdc_cat_put_watermark(cdc_buf_t *b, const char *column, const char *expr)
{
    cdc_buf_puts(b, "WATERMARK FOR ");
    cdc_sql_put_ident(b, column);
    cdc_buf_printf(b, " AS %s", expr);
}

void cdc_cat_put_pk_start(cdc_buf_t *b, const char *name)
{
    if (name) {
        cdc_buf_puts(b, "CONSTRAINT ");
        cdc_sql_put_ident(b, name);
        cdc_buf_putc(b, ' ');
    }
    cdc_buf_puts(b, "PRIMARY KEY (");
}

char *cdc_table_def_to_sql_edited(const cdc_table_def_t *t, const cdc_schema_change_t *edits,
                                  bool qualified, cdc_error_t **err)
{
    cdc_buf_t wm = {0}, pk = {0}, lines = {0};
    int ncols = column_lines(t, edits, &lines, err);
    if (ncols < 0) {
        cdc_buf_free(&lines);
        return NULL;
    }
    if (t->watermark_column)
        cdc_cat_put_watermark(&wm, t->watermark_column, t->watermark);
    if (t->npk) {
        cdc_cat_put_pk_start(&pk, t->pk_name);
        put_key_list(&pk, t, t->pk, t->npk, edits);
        cdc_buf_puts(&pk, ") NOT ENFORCED");
    }
    char *sql = cdc_cat_table_sql(t, &lines, ncols, t->watermark_column ? cdc_buf_cstr(&wm) : NULL,
                                  t->npk ? cdc_buf_cstr(&pk) : NULL, edits, qualified);
    cdc_buf_free(&lines);
    cdc_buf_free(&wm);
    cdc_buf_free(&pk);
    return sql;
}

char *cdc_table_def_to_sql(const cdc_table_def_t *t, bool qualified)
{
    return cdc_table_def_to_sql_edited(t, NULL, qualified, NULL);
}

char *cdc_view_def_to_sql(const cdc_view_def_t *v, bool qualified)
{
    cdc_buf_t b = {0};
    cdc_buf_puts(&b, v->temporary ? "CREATE TEMPORARY VIEW " : "CREATE VIEW ");
    put_name(&b, v->catalog, v->database, v->name, qualified);
    if (v->ncolumns) {
        cdc_buf_puts(&b, " (");
        for (int i = 0; i < v->ncolumns; i++) {
            if (i)
                cdc_buf_puts(&b, ", ");
            cdc_sql_put_ident(&b, v->columns[i]);
        }
        cdc_buf_putc(&b, ')');
    }
    if (v->comment) {
        cdc_buf_puts(&b, "\nCOMMENT ");
        cdc_sql_put_string(&b, v->comment);
    }
    cdc_buf_printf(&b, "\nAS %s", v->query);
    return cdc_cat_buf_take(&b);
}

char *cdc_function_def_to_sql(const cdc_function_def_t *f, bool qualified)
{
    cdc_buf_t b = {0};
    cdc_buf_puts(&b, f->system      ? "CREATE TEMPORARY SYSTEM FUNCTION "
                     : f->temporary ? "CREATE TEMPORARY FUNCTION "
                                    : "CREATE FUNCTION ");
    put_name(&b, f->catalog, f->database, f->name, qualified && !f->system);
    cdc_buf_puts(&b, " AS ");
    cdc_sql_put_string(&b, f->identifier);
    cdc_buf_printf(&b, " LANGUAGE %s", f->language ? f->language : "C");
    return cdc_cat_buf_take(&b);
}

char *cdc_cat_database_to_sql(const db_t *db)
{
    cdc_buf_t b = {0};
    cdc_buf_puts(&b, "CREATE DATABASE ");
    cdc_sql_put_ident(&b, db->name);
    if (db->comment) {
        cdc_buf_puts(&b, " COMMENT ");
        cdc_sql_put_string(&b, db->comment);
    }
    if (db->options.n) {
        cdc_buf_putc(&b, '\n');
        put_options(&b, &db->options);
    }
    return cdc_cat_buf_take(&b);
}

/* ---- CREATE VIEW --------------------------------------------------------------------------- */

static void put_table_ref(cdc_buf_t *b, const cdc_catalog_t *cat, const cdc_sql_name_t *name)
{
    ident_t id = cdc_cat_qualify(cat, name, false);
    put_name(b, id.c, id.d, id.o, true);
    cdc_cat_ident_free(&id);
}

static void put_expr(cdc_buf_t *b, const cdc_sql_expr_t *e)
{
    char *s = cdc_sql_expr_to_string(e);
    cdc_buf_puts(b, s);
    free(s);
}

/* A quoted SQL string: 'it''s'. */
static void put_string(cdc_buf_t *b, const char *s)
{
    cdc_buf_putc(b, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            cdc_buf_putc(b, '\'');
        cdc_buf_putc(b, *s);
    }
    cdc_buf_putc(b, '\'');
}

/* The hints as a hint comment, " /" "*+ OPTIONS('k' = 'v'), NAME *" "/", or nothing. Other
 * hints keep their name only: the planner refuses them by name. */
static void put_hints(cdc_buf_t *b, const cdc_sql_hints_t *h)
{
    if (!h->options.count && !h->others.count)
        return;
    cdc_buf_puts(b, " /*+ ");
    if (h->options.count) {
        cdc_buf_puts(b, "OPTIONS(");
        for (size_t i = 0; i < h->options.count; i++) {
            if (i)
                cdc_buf_puts(b, ", ");
            put_string(b, h->options.items[i].key);
            cdc_buf_puts(b, " = ");
            put_string(b, h->options.items[i].value);
        }
        cdc_buf_putc(b, ')');
    }
    for (size_t i = 0; i < h->others.count; i++) {
        if (i || h->options.count)
            cdc_buf_puts(b, ", ");
        cdc_sql_put_ident(b, h->others.items[i].name);
    }
    cdc_buf_puts(b, " */");
}

/* The WITH queries visible in a query: its own, then those of the queries around it. */
typedef struct cte_scope {
    const cdc_sql_query_t *q;
    const struct cte_scope *outer;
} cte_scope_t;

/* True when @p name is one part naming a WITH query in @p scope (not a catalog table). */
static bool names_cte(const cte_scope_t *scope, const cdc_sql_name_t *name)
{
    for (; scope && name->nparts == 1; scope = scope->outer)
        for (size_t i = 0; i < scope->q->nctes; i++)
            if (strcmp(scope->q->ctes[i].name.name, name->parts[0]) == 0)
                return true;
    return false;
}

static void put_query(cdc_buf_t *b, const cdc_catalog_t *cat, const cdc_sql_query_t *q,
                      const cte_scope_t *outer);

/* FROM's table: a catalog name qualified, a WITH query's name as is, or a subquery. */
static void put_from(cdc_buf_t *b, const cdc_catalog_t *cat, const cdc_sql_table_ref_t *ref,
                     const cte_scope_t *scope)
{
    if (ref->unnest) {
        cdc_buf_puts(b, "UNNEST(");
        put_expr(b, ref->unnest->arg);
        cdc_buf_puts(b, ref->unnest->ordinality ? ") WITH ORDINALITY" : ")");
    } else if (ref->tvf) {
        static const char *const fn[] = {"", "TUMBLE", "HOP", "CUMULATE"};
        cdc_buf_printf(b, "TABLE(%s(TABLE ", fn[ref->tvf->kind]);
        if (names_cte(scope, &ref->name))
            cdc_sql_put_ident(b, ref->name.parts[0]);
        else
            put_table_ref(b, cat, &ref->name);
        cdc_buf_puts(b, ", DESCRIPTOR(");
        cdc_sql_put_ident(b, ref->tvf->timecol.name);
        cdc_buf_puts(b, ")");
        if (ref->tvf->step) {
            cdc_buf_puts(b, ", ");
            put_expr(b, ref->tvf->step);
        }
        cdc_buf_puts(b, ", ");
        put_expr(b, ref->tvf->size);
        if (ref->tvf->offset) {
            cdc_buf_puts(b, ", ");
            put_expr(b, ref->tvf->offset);
        }
        cdc_buf_puts(b, "))");
    } else if (ref->subquery) {
        cdc_buf_putc(b, '(');
        put_query(b, cat, ref->subquery, scope);
        cdc_buf_putc(b, ')');
    } else if (names_cte(scope, &ref->name)) {
        cdc_sql_put_ident(b, ref->name.parts[0]);
    } else {
        put_table_ref(b, cat, &ref->name);
    }
}

/* What follows WHERE: GROUP BY, HAVING, UNION ALL and the next branches (they see the WITH
 * queries of the first, @p scope), ORDER BY, LIMIT. */
static void put_tail(cdc_buf_t *b, const cdc_catalog_t *cat, const cdc_sql_query_t *q,
                     const cte_scope_t *scope)
{
    for (size_t i = 0; i < q->ngroup_by && !q->ngroup_sets; i++) {
        cdc_buf_puts(b, i ? ", " : " GROUP BY ");
        put_expr(b, q->group_by[i]);
    }
    for (size_t s = 0; s < q->ngroup_sets; s++) { /* ROLLUP and CUBE as the sets they stand for */
        cdc_buf_puts(b, s ? ", (" : " GROUP BY GROUPING SETS ((");
        bool first = true;
        for (size_t i = 0; i < q->ngroup_by; i++)
            if (q->group_sets[s] >> i & 1) {
                cdc_buf_puts(b, first ? "" : ", ");
                put_expr(b, q->group_by[i]);
                first = false;
            }
        cdc_buf_puts(b, s + 1 == q->ngroup_sets ? "))" : ")");
    }
    if (q->having) {
        cdc_buf_puts(b, " HAVING ");
        put_expr(b, q->having);
    }
    if (q->union_all) {
        cdc_buf_puts(b, " UNION ALL ");
        put_query(b, cat, q->union_all, scope);
    }
    if (q->set_op) {
        static const char *const words[] = {"", " UNION ", " INTERSECT ", " EXCEPT "};
        cdc_buf_printf(b, "%s%s(", words[q->set_op], q->set_all ? "ALL " : "");
        put_query(b, cat, q->set_rhs, scope);
        cdc_buf_putc(b, ')');
    }
    if (q->norder_by) {
        char *keys = cdc_sql_order_items_to_string(q->order_by, q->norder_by);
        cdc_buf_puts(b, " ORDER BY ");
        cdc_buf_puts(b, keys);
        free(keys);
    }
    if (q->has_limit)
        cdc_buf_printf(b, " LIMIT %lld", q->limit);
}

static const char *const join_words[] = {
    [CDC_SQL_JOIN_INNER] = " JOIN ",
    [CDC_SQL_JOIN_LEFT] = " LEFT JOIN ",
    [CDC_SQL_JOIN_RIGHT] = " RIGHT JOIN ",
    [CDC_SQL_JOIN_FULL] = " FULL JOIN ",
};

/* The query with every table name fully qualified, so the view means the same in any session. */
static char *expand_query(const cdc_catalog_t *cat, const cdc_sql_query_t *q)
{
    cdc_buf_t b = {0};
    put_query(&b, cat, q, NULL);
    return cdc_cat_buf_take(&b);
}

static void put_query(cdc_buf_t *b, const cdc_catalog_t *cat, const cdc_sql_query_t *q,
                      const cte_scope_t *outer)
{
    const cte_scope_t scope = {.q = q, .outer = outer};
    for (size_t i = 0; i < q->nctes; i++) {
        cdc_buf_puts(b, i ? ", " : "WITH ");
        cdc_sql_put_ident(b, q->ctes[i].name.name);
        cdc_buf_puts(b, " AS (");
        /* a WITH query sees the ones before it (and itself: then it loops, which the planner
         * reports) */
        put_query(b, cat, q->ctes[i].query, &scope);
        cdc_buf_puts(b, ")");
    }
    if (q->nctes)
        cdc_buf_putc(b, ' ');
    cdc_buf_puts(b, "SELECT");
    put_hints(b, &q->hints);
    cdc_buf_puts(b, q->distinct ? " DISTINCT " : " ");
    for (size_t i = 0; i < q->nitems; i++) {
        if (i)
            cdc_buf_puts(b, ", ");
        put_expr(b, q->items[i].expr);
        if (q->items[i].alias) {
            cdc_buf_puts(b, " AS ");
            cdc_sql_put_ident(b, q->items[i].alias);
        }
    }
    if (!q->from.subquery && !q->from.name.nparts) { /* SELECT without FROM */
        put_tail(b, cat, q, &scope);
        return;
    }
    cdc_buf_puts(b, " FROM ");
    put_from(b, cat, &q->from, &scope);
    put_hints(b, &q->from.hints);
    if (q->from.alias) {
        cdc_buf_puts(b, " AS ");
        cdc_sql_put_ident(b, q->from.alias);
    }
    for (size_t i = 0; i < q->njoins; i++) {
        const cdc_sql_join_t *j = &q->joins[i];
        cdc_buf_puts(b, j->comma ? ", " : join_words[j->kind]);
        put_from(b, cat, &j->table, &scope);
        put_hints(b, &j->table.hints);
        if (j->system_time) {
            cdc_buf_puts(b, " FOR SYSTEM_TIME AS OF ");
            put_expr(b, j->system_time);
        }
        if (j->table.alias) {
            cdc_buf_puts(b, " AS ");
            cdc_sql_put_ident(b, j->table.alias);
        }
        for (size_t c = 0; j->table.unnest && c < j->table.unnest->columns.count; c++) {
            cdc_buf_puts(b, c ? ", " : " (");
            cdc_sql_put_ident(b, j->table.unnest->columns.items[c].name);
            if (c + 1 == j->table.unnest->columns.count)
                cdc_buf_putc(b, ')');
        }
        if (j->on) {
            cdc_buf_puts(b, " ON ");
            put_expr(b, j->on);
        }
    }
    if (q->where) {
        cdc_buf_puts(b, " WHERE ");
        put_expr(b, q->where);
    }
    put_tail(b, cat, q, &scope);
}

/* Parses a view's stored query; the result's first statement is the query. */
static int parse_view_query(cdc_view_def_t *v, cdc_error_t **err)
{
    char *label = cdc_strdup_printf("view %s", v->qualified);
    int rc = cdc_sql_parse(v->query, strlen(v->query), label, &v->script, err);
    free(label);
    if (rc < 0)
        return -1;
    if (v->script->count != 1 || v->script->stmts[0]->kind != CDC_SQL_STMT_QUERY)
        return cdc_error_set(err, CDC_ERR_SQL, "the query of view \"%s\" is not one SELECT",
                             v->qualified);
    v->query_ast = v->script->stmts[0]->query;
    return 0;
}

static bool query_has_star(const cdc_sql_query_t *q)
{
    for (size_t i = 0; i < q->nitems; i++)
        if (q->items[i].expr->kind == CDC_SQL_EXPR_STAR)
            return true;
    return false;
}

/* Checks that the tables a query names (in FROM, its joins, its subqueries and WITH queries)
 * exist. Returns 0, or -1 with *err. */
static int check_query_refs(cdc_catalog_t *cat, const src_t *s, const cdc_sql_query_t *q,
                            const cte_scope_t *outer, cdc_error_t **err)
{
    const cte_scope_t scope = {.q = q, .outer = outer};
    for (size_t i = 0; i < q->nctes; i++)
        if (check_query_refs(cat, s, q->ctes[i].query, &scope, err) < 0)
            return -1;
    for (size_t i = 0; i <= q->njoins; i++) {
        const cdc_sql_table_ref_t *ref = i ? &q->joins[i - 1].table : &q->from;
        if (ref->subquery) {
            if (check_query_refs(cat, s, ref->subquery, &scope, err) < 0)
                return -1;
            continue;
        }
        const cdc_sql_name_t *name = &ref->name;
        if (!name->nparts || names_cte(&scope, name))
            continue;
        int r = cdc_catalog_find(cat, name, NULL, NULL, err);
        if (r < 0)
            return -1;
        if (r == 0) {
            ident_t rid = cdc_cat_qualify(cat, name, false);
            cdc_error_destroy(*err);
            *err = cdc_cat_missing_object_error(cat, s, name, &rid, OBJ_TABLE);
            cdc_cat_ident_free(&rid);
            return -1;
        }
    }
    return 0;
}

/* Builds a view. @p stored: the query text is a catalog file's, already qualified, and its
 * tables are not checked (they may live in catalogs this run does not know). */
cdc_view_def_t *cdc_cat_build_view(cdc_catalog_t *cat, const cdc_sql_create_view_t *cv,
                                   const src_t *s, const ident_t *id, bool stored,
                                   cdc_error_t **err)
{
    cdc_view_def_t *v = cdc_xcalloc(1, sizeof(*v));
    v->catalog = cdc_xstrdup(id->c);
    v->database = cdc_xstrdup(id->d);
    v->name = cdc_xstrdup(id->o);
    v->qualified = cdc_xstrdup(id->q);
    v->temporary = cv->temporary;
    v->line = cv->name.line;
    v->col = cv->name.col;
    v->origin = cdc_xstrdup(s->filename ? s->filename : "<input>");
    v->comment = cdc_cat_dup_or_null(cv->comment);
    const cdc_sql_query_t *q = cv->query;
    v->original_query = cdc_xstrdup(q->text ? q->text : "");
    if (!stored && check_query_refs(cat, s, q, NULL, err) < 0)
        goto fail;
    v->query = stored ? cdc_xstrdup(v->original_query) : expand_query(cat, q);
    for (size_t i = 0; i < cv->columns.count; i++) {
        const cdc_sql_ident_t *c = &cv->columns.items[i];
        for (int k = 0; k < v->ncolumns; k++) {
            if (strcmp(v->columns[k], c->name) == 0) {
                cdc_cat_fail_at(err, CDC_ERR_SQL, s, c->line, c->col,
                                "column \"%s\" appears twice in the column list of view \"%s\"",
                                c->name, v->qualified);
                goto fail;
            }
        }
        v->columns = cdc_xrealloc(v->columns, sizeof(char *) * (size_t)(v->ncolumns + 1));
        v->columns[v->ncolumns++] = cdc_xstrdup(c->name);
    }
    if (v->ncolumns && !query_has_star(q) && (size_t)v->ncolumns != q->nitems) {
        cdc_cat_fail_at(err, CDC_ERR_SQL, s, cv->columns.items[0].line, cv->columns.items[0].col,
                        "view \"%s\" names %d column%s but its query produces %zu", v->qualified,
                        v->ncolumns, v->ncolumns == 1 ? "" : "s", q->nitems);
        goto fail;
    }
    if (parse_view_query(v, err) < 0)
        goto fail;
    return v;
fail:
    cdc_cat_view_free(v);
    return NULL;
}

/* ---- CREATE FUNCTION ----------------------------------------------------------------------- */

cdc_function_def_t *cdc_cat_build_function(const cdc_sql_create_function_t *cf, const src_t *s,
                                           const ident_t *id, bool load, cdc_error_t **err)
{
    if (cf->language && strcmp(cf->language, "C") != 0) {
        cdc_cat_fail_at(err, CDC_ERR_SQL, s, cf->name.line, cf->name.col,
                        "function language \"%s\" is not supported", cf->language);
        cdc_error_set_hint(*err, "cdcflow loads C functions from shared objects: LANGUAGE C");
        return NULL;
    }
    const cdc_udf_def_t *udf = NULL;
    if (load) {
        cdc_error_t *uerr = NULL;
        udf = cdc_udf_load(cf->identifier, &uerr);
        if (!udf) {
            cdc_cat_fail_at(err, CDC_ERR_CATALOG, s, cf->identifier_line, cf->identifier_col, "%s",
                            uerr->message);
            cdc_cat_detail_prepend(*err, uerr->detail);
            if (uerr->hint)
                cdc_error_set_hint(*err, "%s", uerr->hint);
            cdc_error_destroy(uerr);
            return NULL;
        }
    }
    cdc_function_def_t *f = cdc_xcalloc(1, sizeof(*f));
    if (!cf->system) {
        f->catalog = cdc_xstrdup(id->c);
        f->database = cdc_xstrdup(id->d);
        f->qualified = cdc_xstrdup(id->q);
    }
    f->name = cdc_xstrdup(id->o);
    if (cf->system)
        f->qualified = cdc_xstrdup(id->o);
    f->temporary = cf->temporary;
    f->system = cf->system;
    f->identifier = cdc_xstrdup(cf->identifier);
    f->language = cdc_xstrdup("C");
    f->udf = udf;
    f->origin = cdc_xstrdup(s->filename ? s->filename : "<input>");
    return f;
}
