/*
 * cdc_sql_expr_parse.c — the SQL parser's expressions (operators by
 * precedence, primaries, function calls, CASE, CAST, literals) and queries
 * (SELECT, FROM, joins, GROUP BY, set operations); see cdc_sql_parser.c for
 * the error conventions.
 */
#include "cdc_sql_parser_int.h"

#include <string.h>
#include <strings.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- expressions --------------------------------------------------------------------------- */

static cdc_sql_expr_t *parse_concat(parser_t *p);

static cdc_sql_expr_t *expr_new(cdc_sql_expr_kind_t kind, const tok_t *at_tok)
{
    cdc_sql_expr_t *e = cdc_xcalloc(1, sizeof(*e));
    e->kind = kind;
    e->line = at_tok->line;
    e->col = at_tok->col;
    return e;
}

static cdc_sql_expr_t *literal_new(cdc_sql_literal_kind_t kind, const tok_t *at_tok, char *text)
{
    cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_LITERAL, at_tok);
    e->literal.kind = kind;
    e->literal.text = text;
    return e;
}

static cdc_sql_expr_t *binary_new(cdc_sql_binary_op_t op, const tok_t *op_tok, cdc_sql_expr_t *left,
                                  cdc_sql_expr_t *right)
{
    cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_BINARY, op_tok);
    e->binary.op = op;
    e->binary.left = left;
    e->binary.right = right;
    return e;
}

/* Fails the node under construction: frees it and returns NULL. */
static cdc_sql_expr_t *drop_expr(cdc_sql_expr_t *e)
{
    cdc_sql_expr_destroy(e);
    return NULL;
}

static void push_arg(cdc_sql_expr_t *call, cdc_sql_expr_t *arg)
{
    PUSH(call->call.args, call->call.nargs, arg);
}

/* f( [DISTINCT] args ) and COUNT(*); the name token is current. */
static cdc_sql_expr_t *parse_call(parser_t *p)
{
    const tok_t *name = cur(p);
    cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_CALL, name);
    e->call.name = tok_value(p, name);
    advance(p); /* name */
    advance(p); /* ( */
    if (accept(p, CDC_SQL_TOK_RPAREN))
        return e;
    if (accept_kw(p, "DISTINCT"))
        e->call.distinct = true;
    if (at(p, CDC_SQL_TOK_STAR) && peek(p, 1)->kind == CDC_SQL_TOK_RPAREN) {
        push_arg(e, expr_new(CDC_SQL_EXPR_STAR, cur(p)));
        advance(p);
        advance(p);
        return e;
    }
    for (;;) {
        cdc_sql_expr_t *arg = cdc_sqlp_parse_expr(p);
        if (!arg)
            return drop_expr(e);
        push_arg(e, arg);
        if (accept(p, CDC_SQL_TOK_COMMA))
            continue;
        if (accept(p, CDC_SQL_TOK_RPAREN))
            return e;
        cdc_sqlp_fail_expected(p, "\",\" or \")\"");
        return drop_expr(e);
    }
}

/* SUBSTRING(s FROM a [FOR b]) or SUBSTRING(s, a [, b]). */
static cdc_sql_expr_t *parse_substring(parser_t *p)
{
    cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_CALL, cur(p));
    e->call.name = cdc_xstrdup("SUBSTRING");
    advance(p);
    advance(p);
    cdc_sql_expr_t *arg = cdc_sqlp_parse_expr(p);
    if (!arg)
        return drop_expr(e);
    push_arg(e, arg);
    if (accept_kw(p, "FROM")) {
        if (!(arg = cdc_sqlp_parse_expr(p)))
            return drop_expr(e);
        push_arg(e, arg);
        if (accept_kw(p, "FOR")) {
            if (!(arg = cdc_sqlp_parse_expr(p)))
                return drop_expr(e);
            push_arg(e, arg);
        }
        if (!cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN))
            return drop_expr(e);
        return e;
    }
    while (accept(p, CDC_SQL_TOK_COMMA)) {
        if (!(arg = cdc_sqlp_parse_expr(p)))
            return drop_expr(e);
        push_arg(e, arg);
    }
    if (!accept(p, CDC_SQL_TOK_RPAREN)) {
        cdc_sqlp_fail_expected(p, "\"FROM\", \",\" or \")\"");
        return drop_expr(e);
    }
    return e;
}

/* TRIM([BOTH|LEADING|TRAILING] [chars FROM] s) -> TRIM(mode, chars, s). */
static cdc_sql_expr_t *parse_trim(parser_t *p)
{
    const tok_t *start = cur(p);
    cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_CALL, start);
    e->call.name = cdc_xstrdup("TRIM");
    e->call.args = cdc_xcalloc(3, sizeof(cdc_sql_expr_t *));
    e->call.nargs = 3;
    advance(p);
    advance(p);
    bool explicit_mode = false;
    if (at_kw(p, "BOTH") || at_kw(p, "LEADING") || at_kw(p, "TRAILING")) {
        char *mode = tok_value(p, cur(p));
        e->call.args[0] = literal_new(CDC_SQL_LIT_SYMBOL, cur(p), upper_dup(mode));
        free(mode);
        explicit_mode = true;
        advance(p);
    } else {
        e->call.args[0] = literal_new(CDC_SQL_LIT_SYMBOL, start, cdc_xstrdup("BOTH"));
    }
    if (accept_kw(p, "FROM")) {
        if (!(e->call.args[2] = cdc_sqlp_parse_expr(p)))
            return drop_expr(e);
    } else {
        cdc_sql_expr_t *first = cdc_sqlp_parse_expr(p);
        if (!first)
            return drop_expr(e);
        if (accept_kw(p, "FROM")) {
            e->call.args[1] = first;
            if (!(e->call.args[2] = cdc_sqlp_parse_expr(p)))
                return drop_expr(e);
        } else if (explicit_mode) {
            cdc_sql_expr_destroy(first);
            cdc_sqlp_fail_expected(p, "\"FROM\"");
            return drop_expr(e);
        } else {
            e->call.args[2] = first;
        }
    }
    if (!e->call.args[1])
        e->call.args[1] = literal_new(CDC_SQL_LIT_STRING, start, cdc_xstrdup(" "));
    if (!cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN))
        return drop_expr(e);
    return e;
}

/* A unit word (HOUR, DAY...) as a SYMBOL literal, upper-cased; the compiler checks it. */
static cdc_sql_expr_t *parse_unit_symbol(parser_t *p)
{
    const tok_t *t = cur(p);
    if (t->kind != CDC_SQL_TOK_IDENT) {
        cdc_sqlp_fail_expected(p, "a time unit such as \"HOUR\" or \"DAY\"");
        return NULL;
    }
    char *word = tok_value(p, t);
    cdc_sql_expr_t *e = literal_new(CDC_SQL_LIT_SYMBOL, t, upper_dup(word));
    free(word);
    advance(p);
    return e;
}

/*
 * The function forms with keywords between the arguments, normalized to calls:
 *   POSITION(a IN b)          -> call "POSITION" {a, b}
 *   EXTRACT(unit FROM x)      -> call "EXTRACT" {SYMBOL unit, x}
 *   FLOOR/CEIL(x TO unit)     -> call "FLOOR"/"CEIL" {x, SYMBOL unit}
 * The name token is current and "(" follows. Other FLOOR/CEIL/POSITION calls parse as usual.
 */
static cdc_sql_expr_t *parse_keyword_call(parser_t *p)
{
    const tok_t *name = cur(p);
    bool extract = tok_kw(p, name, "EXTRACT"), position = tok_kw(p, name, "POSITION");
    cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_CALL, name);
    char *word = tok_value(p, name);
    e->call.name = upper_dup(word);
    free(word);
    advance(p);
    advance(p);
    cdc_sql_expr_t *first = extract    ? parse_unit_symbol(p)
                            : position ? parse_concat(p)
                                       : cdc_sqlp_parse_expr(p);
    if (!first)
        return drop_expr(e);
    push_arg(e, first);
    const char *kw = extract ? "FROM" : position ? "IN" : "TO";
    if (accept_kw(p, kw)) {
        cdc_sql_expr_t *second =
            extract || position ? cdc_sqlp_parse_expr(p) : parse_unit_symbol(p);
        if (!second)
            return drop_expr(e);
        push_arg(e, second);
    } else if (extract) {
        cdc_sqlp_fail_expected(p, "\"FROM\"");
        return drop_expr(e);
    } else {
        while (accept(p, CDC_SQL_TOK_COMMA)) {
            cdc_sql_expr_t *arg = cdc_sqlp_parse_expr(p);
            if (!arg)
                return drop_expr(e);
            push_arg(e, arg);
        }
    }
    if (!cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN))
        return drop_expr(e);
    return e;
}

/*
 * JSON_OBJECT([KEY] k VALUE v, ... [NULL | ABSENT ON NULL]) -> call "JSON_OBJECT"
 *   {SYMBOL NULL|ABSENT, k1, v1, ...} (default NULL ON NULL);
 * JSON_ARRAY(v, ... [NULL | ABSENT ON NULL]) -> call "JSON_ARRAY" {SYMBOL, v...} (default
 *   ABSENT ON NULL). The name token is current and "(" follows.
 */
static cdc_sql_expr_t *parse_json_ctor(parser_t *p)
{
    const tok_t *name = cur(p);
    bool object = tok_kw(p, name, "JSON_OBJECT");
    cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_CALL, name);
    e->call.name = cdc_xstrdup(object ? "JSON_OBJECT" : "JSON_ARRAY");
    push_arg(e, literal_new(CDC_SQL_LIT_SYMBOL, name, cdc_xstrdup(object ? "NULL" : "ABSENT")));
    advance(p);
    advance(p);
    while (!at(p, CDC_SQL_TOK_RPAREN)) {
        if ((at_kw(p, "NULL") || at_kw(p, "ABSENT")) && peek_kw(p, 1, "ON")) {
            free(e->call.args[0]->literal.text);
            e->call.args[0]->literal.text = cdc_xstrdup(at_kw(p, "NULL") ? "NULL" : "ABSENT");
            advance(p);
            advance(p);
            if (!cdc_sqlp_expect_kw(p, "NULL"))
                return drop_expr(e);
            break;
        }
        if (e->call.nargs > 1 && !cdc_sqlp_expect(p, CDC_SQL_TOK_COMMA))
            return drop_expr(e);
        if (object && at_kw(p, "KEY") && peek(p, 1)->kind != CDC_SQL_TOK_COMMA &&
            !peek_kw(p, 1, "VALUE"))
            advance(p);
        cdc_sql_expr_t *arg = object ? parse_concat(p) : cdc_sqlp_parse_expr(p);
        if (!arg)
            return drop_expr(e);
        push_arg(e, arg);
        if (object) {
            if (!cdc_sqlp_expect_kw(p, "VALUE") || !(arg = cdc_sqlp_parse_expr(p)))
                return drop_expr(e);
            push_arg(e, arg);
        }
    }
    if (!cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN))
        return drop_expr(e);
    return e;
}

/*
 * JSON_VALUE(doc, path [RETURNING type] [NULL ON EMPTY] [NULL ON ERROR]),
 * JSON_QUERY(doc, path [WITHOUT [ARRAY] WRAPPER] [NULL ON EMPTY] [NULL ON ERROR]),
 * JSON_EXISTS(doc, path [FALSE ON ERROR]): the default clauses are accepted, RETURNING becomes
 * TRY_CAST(JSON_VALUE(doc, path) AS type) (a value that does not convert is NULL, as NULL ON
 * ERROR); other clauses are refused by name. The name token is current and "(" follows.
 */
static cdc_sql_expr_t *parse_json_query(parser_t *p)
{
    const tok_t *name = cur(p);
    bool value = tok_kw(p, name, "JSON_VALUE"), query = tok_kw(p, name, "JSON_QUERY");
    cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_CALL, name), *cast = NULL, *arg;
    char *word = tok_value(p, name);
    e->call.name = upper_dup(word);
    free(word);
    advance(p);
    advance(p);
    if (!(arg = cdc_sqlp_parse_expr(p)))
        return drop_expr(e);
    push_arg(e, arg);
    if (!cdc_sqlp_expect(p, CDC_SQL_TOK_COMMA) || !(arg = cdc_sqlp_parse_expr(p)))
        return drop_expr(e);
    push_arg(e, arg);
    if (value && at_kw(p, "RETURNING")) {
        cast = expr_new(CDC_SQL_EXPR_CAST, name);
        cast->cast.try_cast = true;
        cast->cast.operand = e;
        e = cast;
        advance(p);
        if (!cdc_sqlp_parse_type_text(p, &cast->cast.type))
            return drop_expr(e);
    }
    while (!at(p, CDC_SQL_TOK_RPAREN)) {
        const tok_t *t = cur(p);
        if (query && accept_kw(p, "WITHOUT")) {
            accept_kw(p, "ARRAY");
            if (!cdc_sqlp_expect_kw(p, "WRAPPER"))
                return drop_expr(e);
            continue;
        }
        bool dflt = value || query ? at_kw(p, "NULL") : at_kw(p, "FALSE");
        if (dflt && peek_kw(p, 1, "ON") && (peek_kw(p, 2, "EMPTY") || peek_kw(p, 2, "ERROR"))) {
            advance(p);
            advance(p);
            advance(p);
            continue;
        }
        char *what = cdc_sqlp_describe_tok(p, t);
        cdc_sqlp_fail_at(p, t,
                         value ? "supported: RETURNING type, NULL ON EMPTY, NULL ON ERROR"
                         : query
                             ? "supported: WITHOUT [ARRAY] WRAPPER, NULL ON EMPTY, NULL ON ERROR"
                             : "supported: FALSE ON ERROR",
                         "%s is not supported in this clause of %s", what,
                         value   ? "JSON_VALUE"
                         : query ? "JSON_QUERY"
                                 : "JSON_EXISTS");
        free(what);
        return drop_expr(e);
    }
    advance(p);
    return e;
}

/* CAST / TRY_CAST ( expr AS type ) */
static cdc_sql_expr_t *parse_cast(parser_t *p, bool try_cast)
{
    cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_CAST, cur(p));
    e->cast.try_cast = try_cast;
    advance(p);
    advance(p);
    if (!(e->cast.operand = cdc_sqlp_parse_expr(p)))
        return drop_expr(e);
    if (!cdc_sqlp_expect_kw(p, "AS") || !cdc_sqlp_parse_type_text(p, &e->cast.type) ||
        !cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN))
        return drop_expr(e);
    return e;
}

static cdc_sql_expr_t *parse_case(parser_t *p)
{
    cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_CASE, cur(p));
    advance(p);
    if (!at_kw(p, "WHEN")) {
        if (!(e->case_expr.operand = cdc_sqlp_parse_expr(p)))
            return drop_expr(e);
        if (!at_kw(p, "WHEN")) {
            cdc_sqlp_fail_expected(p, "\"WHEN\"");
            return drop_expr(e);
        }
    }
    while (accept_kw(p, "WHEN")) {
        PUSH(e->case_expr.whens, e->case_expr.nwhens, (cdc_sql_case_when_t){0});
        cdc_sql_case_when_t *w = &e->case_expr.whens[e->case_expr.nwhens - 1];
        if (!(w->when = cdc_sqlp_parse_expr(p)) || !cdc_sqlp_expect_kw(p, "THEN") ||
            !(w->then = cdc_sqlp_parse_expr(p)))
            return drop_expr(e);
    }
    if (accept_kw(p, "ELSE")) {
        if (!(e->case_expr.else_expr = cdc_sqlp_parse_expr(p)))
            return drop_expr(e);
        if (!cdc_sqlp_expect_kw(p, "END"))
            return drop_expr(e);
        return e;
    }
    if (!accept_kw(p, "END")) {
        cdc_sqlp_fail_expected(p, "\"WHEN\", \"ELSE\" or \"END\"");
        return drop_expr(e);
    }
    return e;
}

/* INTERVAL 'n' unit [TO unit]; the INTERVAL token is current and a string follows. */
static cdc_sql_expr_t *parse_interval(parser_t *p)
{
    static const char *const units[] = {"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"};
    cdc_sql_expr_t *e = literal_new(CDC_SQL_LIT_INTERVAL, cur(p), NULL);
    advance(p);
    cdc_sqlp_parse_string(p, &e->literal.text, NULL, NULL);
    for (int part = 0; part < 2; part++) {
        const tok_t *t = cur(p);
        const char *unit = NULL;
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]) && !unit; i++) {
            char plural[16];
            snprintf(plural, sizeof(plural), "%sS", units[i]);
            if (tok_kw(p, t, units[i]) || tok_kw(p, t, plural))
                unit = units[i];
        }
        if (!unit) {
            cdc_sqlp_fail_expected(
                p, "\"YEAR\", \"MONTH\", \"DAY\", \"HOUR\", \"MINUTE\" or \"SECOND\"");
            return drop_expr(e);
        }
        advance(p);
        if (part == 0) {
            e->literal.unit = cdc_xstrdup(unit);
            if (!accept_kw(p, "TO"))
                break;
        } else {
            char *both = cdc_strdup_printf("%s TO %s", e->literal.unit, unit);
            free(e->literal.unit);
            e->literal.unit = both;
        }
    }
    return e;
}

static bool is_niladic(const parser_t *p, const tok_t *t)
{
    static const char *const names[] = {"CURRENT_TIMESTAMP", "CURRENT_DATE", "CURRENT_TIME",
                                        "LOCALTIMESTAMP", "LOCALTIME"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (tok_kw(p, t, names[i]))
            return true;
    return false;
}

/* a, a.b.c, t.`my col` — the first part is current. */
static cdc_sql_expr_t *parse_column_ref(parser_t *p)
{
    cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_COLUMN, cur(p));
    PUSH(e->column.parts, e->column.nparts, tok_value(p, cur(p)));
    advance(p);
    while (at(p, CDC_SQL_TOK_DOT) && (peek(p, 1)->kind == CDC_SQL_TOK_IDENT ||
                                      peek(p, 1)->kind == CDC_SQL_TOK_QUOTED_IDENT)) {
        advance(p);
        PUSH(e->column.parts, e->column.nparts, tok_value(p, cur(p)));
        advance(p);
    }
    return e;
}

static bool parse_expr_list(parser_t *p, cdc_sql_expr_t ***items, size_t *n);

/* ARRAY[a, ...] and MAP[k, v, ...], Flink's value constructors: the calls "ARRAY[]" and "MAP[]"
 * (names no one can write as a call). */
static cdc_sql_expr_t *parse_collection_ctor(parser_t *p)
{
    cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_CALL, cur(p));
    e->call.name = cdc_xstrdup(at_kw(p, "ARRAY") ? "ARRAY[]" : "MAP[]");
    advance(p);
    advance(p); /* [ */
    if (!parse_expr_list(p, &e->call.args, &e->call.nargs) ||
        !cdc_sqlp_expect(p, CDC_SQL_TOK_RBRACKET))
        return drop_expr(e);
    return e;
}

static cdc_sql_expr_t *parse_primary(parser_t *p)
{
    const tok_t *t = cur(p);
    const tok_t *next = peek(p, 1);
    switch (t->kind) {
    case CDC_SQL_TOK_INTEGER:
    case CDC_SQL_TOK_DECIMAL: {
        cdc_sql_expr_t *e =
            literal_new(t->kind == CDC_SQL_TOK_INTEGER ? CDC_SQL_LIT_INTEGER : CDC_SQL_LIT_DECIMAL,
                        t, tok_value(p, t));
        advance(p);
        return e;
    }
    case CDC_SQL_TOK_STRING: {
        cdc_sql_expr_t *e = literal_new(CDC_SQL_LIT_STRING, t, tok_value(p, t));
        advance(p);
        return e;
    }
    case CDC_SQL_TOK_USTRING: { /* U&'...' [UESCAPE 'c'] */
        int line, col;
        char *text = cdc_sqlp_parse_ustring(p, &line, &col);
        return text ? literal_new(CDC_SQL_LIT_STRING, t, text) : NULL;
    }
    case CDC_SQL_TOK_LPAREN: {
        if (peek_kw(p, 1, "SELECT") || peek_kw(p, 1, "WITH")) {
            cdc_sqlp_fail_unsupported(p, "a subquery in an expression", NULL);
            return NULL;
        }
        advance(p);
        cdc_sql_expr_t *e = cdc_sqlp_parse_expr(p);
        if (!e)
            return NULL;
        if (at(p, CDC_SQL_TOK_COMMA)) { /* (a, b): a row, as ROW(a, b) */
            cdc_sql_expr_t *row = expr_new(CDC_SQL_EXPR_CALL, t);
            row->call.name = cdc_xstrdup("ROW");
            PUSH(row->call.args, row->call.nargs, e);
            while (accept(p, CDC_SQL_TOK_COMMA)) {
                if (!(e = cdc_sqlp_parse_expr(p)))
                    return drop_expr(row);
                PUSH(row->call.args, row->call.nargs, e);
            }
            e = row;
        }
        if (!cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN))
            return drop_expr(e);
        return e;
    }
    case CDC_SQL_TOK_QUOTED_IDENT:
        if (next->kind == CDC_SQL_TOK_LPAREN)
            return parse_call(p);
        return parse_column_ref(p);
    case CDC_SQL_TOK_IDENT:
        break;
    default:
        cdc_sqlp_fail_expected(p, "expression");
        return NULL;
    }

    if (tok_kw(p, t, "TRUE") || tok_kw(p, t, "FALSE") || tok_kw(p, t, "NULL")) {
        char *word = tok_value(p, t);
        cdc_sql_expr_t *e = literal_new(
            tok_kw(p, t, "NULL") ? CDC_SQL_LIT_NULL : CDC_SQL_LIT_BOOLEAN, t, upper_dup(word));
        free(word);
        advance(p);
        return e;
    }
    if (next->kind == CDC_SQL_TOK_STRING) {
        cdc_sql_literal_kind_t kind = 0;
        if (tok_kw(p, t, "DATE"))
            kind = CDC_SQL_LIT_DATE;
        else if (tok_kw(p, t, "TIME"))
            kind = CDC_SQL_LIT_TIME;
        else if (tok_kw(p, t, "TIMESTAMP"))
            kind = CDC_SQL_LIT_TIMESTAMP;
        else if (tok_kw(p, t, "INTERVAL"))
            return parse_interval(p);
        if (kind) {
            advance(p);
            cdc_sql_expr_t *e = literal_new(kind, t, tok_value(p, next));
            advance(p);
            return e;
        }
    }
    if (tok_kw(p, t, "CASE"))
        return parse_case(p);
    if ((tok_kw(p, t, "ARRAY") || tok_kw(p, t, "MAP")) && next->kind == CDC_SQL_TOK_LBRACKET)
        return parse_collection_ctor(p);
    if (next->kind == CDC_SQL_TOK_LPAREN) {
        if (tok_kw(p, t, "EXISTS")) {
            cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_EXISTS, t);
            advance(p);
            advance(p);
            if (!at_kw(p, "SELECT") && !at_kw(p, "WITH")) {
                cdc_sqlp_fail_expected(p, "\"SELECT\" or \"WITH\" (a subquery)");
                return drop_expr(e);
            }
            if (!(e->exists.query = cdc_sqlp_parse_query(p)) ||
                !cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN))
                return drop_expr(e);
            return e;
        }
        if (tok_kw(p, t, "CAST"))
            return parse_cast(p, false);
        if (tok_kw(p, t, "TRY_CAST"))
            return parse_cast(p, true);
        if (tok_kw(p, t, "SUBSTRING"))
            return parse_substring(p);
        if (tok_kw(p, t, "TRIM"))
            return parse_trim(p);
        if ((tok_kw(p, t, "EXTRACT") || tok_kw(p, t, "POSITION") || tok_kw(p, t, "FLOOR") ||
             tok_kw(p, t, "CEIL") || tok_kw(p, t, "CEILING")) &&
            peek(p, 2)->kind != CDC_SQL_TOK_RPAREN)
            return parse_keyword_call(p);
        if (tok_kw(p, t, "JSON_OBJECT") || tok_kw(p, t, "JSON_ARRAY"))
            return parse_json_ctor(p);
        if (tok_kw(p, t, "JSON_VALUE") || tok_kw(p, t, "JSON_QUERY") || tok_kw(p, t, "JSON_EXISTS"))
            return parse_json_query(p);
        if (is_ident_tok(p, t) || tok_kw(p, t, "LEFT") || tok_kw(p, t, "RIGHT"))
            return parse_call(p);
    }
    if (is_niladic(p, t)) {
        cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_CALL, t);
        char *word = tok_value(p, t);
        e->call.name = upper_dup(word);
        free(word);
        e->call.niladic = true;
        advance(p);
        return e;
    }
    if (!is_ident_tok(p, t)) {
        cdc_sqlp_fail_expected(p, "expression");
        return NULL;
    }
    return parse_column_ref(p);
}

/* e, e, ...: appended to *items (what was parsed stays there on failure, for the caller to free).
 */
static bool parse_expr_list(parser_t *p, cdc_sql_expr_t ***items, size_t *n)
{
    do {
        cdc_sql_expr_t *e = cdc_sqlp_parse_expr(p);
        if (!e)
            return false;
        PUSH(*items, *n, e);
    } while (accept(p, CDC_SQL_TOK_COMMA));
    return true;
}

/* k [ASC|DESC] [NULLS FIRST|LAST], ...: the keys of ORDER BY (BY is behind), in a query or in
 * OVER; appended to *items. */
static bool parse_order_items(parser_t *p, cdc_sql_order_item_t **items, size_t *n)
{
    do {
        cdc_sql_expr_t *e = cdc_sqlp_parse_expr(p);
        if (!e)
            return false;
        PUSH(*items, *n, ((cdc_sql_order_item_t){.expr = e}));
        cdc_sql_order_item_t *it = &(*items)[*n - 1];
        if (accept_kw(p, "DESC"))
            it->desc = true;
        else
            accept_kw(p, "ASC");
        if (accept_kw(p, "NULLS")) {
            if (accept_kw(p, "FIRST"))
                it->nulls = 1;
            else if (accept_kw(p, "LAST"))
                it->nulls = 2;
            else
                return cdc_sqlp_fail_expected(p, "\"FIRST\" or \"LAST\"");
        }
    } while (accept(p, CDC_SQL_TOK_COMMA));
    return true;
}

/* One bound of a frame: UNBOUNDED PRECEDING|FOLLOWING, CURRENT ROW, expr PRECEDING|FOLLOWING. */
static bool parse_bound(parser_t *p, cdc_sql_bound_t *b)
{
    b->line = cur(p)->line;
    b->col = cur(p)->col;
    if (accept_kw(p, "UNBOUNDED")) {
        if (accept_kw(p, "PRECEDING"))
            b->kind = CDC_SQL_BOUND_UNBOUNDED_PRECEDING;
        else if (accept_kw(p, "FOLLOWING"))
            b->kind = CDC_SQL_BOUND_UNBOUNDED_FOLLOWING;
        else
            return cdc_sqlp_fail_expected(p, "\"PRECEDING\" or \"FOLLOWING\"");
        return true;
    }
    if (accept_kw(p, "CURRENT")) {
        b->kind = CDC_SQL_BOUND_CURRENT_ROW;
        return cdc_sqlp_expect_kw(p, "ROW");
    }
    if (!(b->offset = cdc_sqlp_parse_expr(p)))
        return false;
    if (accept_kw(p, "PRECEDING"))
        b->kind = CDC_SQL_BOUND_PRECEDING;
    else if (accept_kw(p, "FOLLOWING"))
        b->kind = CDC_SQL_BOUND_FOLLOWING;
    else
        return cdc_sqlp_fail_expected(p, "\"PRECEDING\" or \"FOLLOWING\"");
    return true;
}

/* What is inside the parentheses of OVER (...) or WINDOW w AS (...), up to ")": [PARTITION BY
 * e, ...] [ORDER BY k, ...] [ROWS|RANGE {BETWEEN bound AND bound | bound}]. */
static bool parse_window_spec(parser_t *p, cdc_sql_over_t *o)
{
    if (accept_kw(p, "PARTITION") &&
        (!cdc_sqlp_expect_kw(p, "BY") || !parse_expr_list(p, &o->partition_by, &o->npartition_by)))
        return false;
    if (accept_kw(p, "ORDER") &&
        (!cdc_sqlp_expect_kw(p, "BY") || !parse_order_items(p, &o->order_by, &o->norder_by)))
        return false;
    if (at_kw(p, "ROWS") || at_kw(p, "RANGE")) {
        o->frame = at_kw(p, "ROWS") ? 1 : 2;
        o->frame_line = cur(p)->line;
        o->frame_col = cur(p)->col;
        advance(p);
        if (accept_kw(p, "BETWEEN")) {
            if (!parse_bound(p, &o->lower) || !cdc_sqlp_expect_kw(p, "AND") ||
                !parse_bound(p, &o->upper))
                return false;
        } else {
            if (!parse_bound(p, &o->lower))
                return false;
            o->upper = (cdc_sql_bound_t){
                .kind = CDC_SQL_BOUND_CURRENT_ROW, .line = o->lower.line, .col = o->lower.col};
        }
    }
    if (!at(p, CDC_SQL_TOK_RPAREN))
        return cdc_sqlp_fail_expected(p, o->frame           ? "\")\""
                                         : o->norder_by     ? "\",\", \"ROWS\", \"RANGE\" or \")\""
                                         : o->npartition_by ? "\"ORDER\", \",\" or \")\""
                                                            : "\"PARTITION\", \"ORDER\" or \")\"");
    advance(p);
    return true;
}

/* OVER (window) or OVER w after a call: the OVER token is current. A named window waits in
 * p->named for its query's WINDOW clause. */
static bool parse_over(parser_t *p, cdc_sql_expr_t *call)
{
    cdc_sql_over_t *o = cdc_xcalloc(1, sizeof(*o));
    call->call.over = o;
    o->line = cur(p)->line;
    o->col = cur(p)->col;
    advance(p); /* OVER */
    if (!at(p, CDC_SQL_TOK_LPAREN)) {
        o->line = cur(p)->line;
        o->col = cur(p)->col;
        cdc_sql_ident_t id = {0};
        if (!cdc_sqlp_parse_ident(p, &id, "window name"))
            return false;
        o->name = id.name;
        PUSH(p->named, p->nnamed, o);
        return true;
    }
    advance(p);
    return parse_window_spec(p, o);
}

/* primary { [ index ] }, and a call's OVER (...) (a bare "over" after a call is its alias) */
static cdc_sql_expr_t *parse_postfix(parser_t *p)
{
    cdc_sql_expr_t *e = parse_primary(p);
    if (e && e->kind == CDC_SQL_EXPR_CALL && !e->call.niladic && at_kw(p, "OVER") &&
        (peek(p, 1)->kind == CDC_SQL_TOK_LPAREN || is_ident_tok(p, peek(p, 1))) &&
        !parse_over(p, e))
        return drop_expr(e);
    for (;;) {
        if (e && at(p, CDC_SQL_TOK_DOT) &&
            (e->kind == CDC_SQL_EXPR_SUBSCRIPT || e->kind == CDC_SQL_EXPR_CALL) &&
            (peek(p, 1)->kind == CDC_SQL_TOK_IDENT ||
             peek(p, 1)->kind == CDC_SQL_TOK_QUOTED_IDENT)) {
            /* items[1].sku, f(x).name: a field of the ROW before the dot */
            cdc_sql_expr_t *s = expr_new(CDC_SQL_EXPR_SUBSCRIPT, peek(p, 1));
            s->subscript.base = e;
            s->subscript.field = true;
            advance(p);
            s->subscript.index = literal_new(CDC_SQL_LIT_STRING, cur(p), tok_value(p, cur(p)));
            advance(p);
            e = s;
            continue;
        }
        if (!e || !at(p, CDC_SQL_TOK_LBRACKET))
            break;
        cdc_sql_expr_t *s = expr_new(CDC_SQL_EXPR_SUBSCRIPT, cur(p));
        s->subscript.base = e;
        e = s;
        advance(p);
        if (!(s->subscript.index = cdc_sqlp_parse_expr(p)) ||
            !cdc_sqlp_expect(p, CDC_SQL_TOK_RBRACKET))
            return drop_expr(e);
    }
    return e;
}

static cdc_sql_expr_t *parse_unary(parser_t *p)
{
    const tok_t *t = cur(p);
    if (t->kind != CDC_SQL_TOK_MINUS && t->kind != CDC_SQL_TOK_PLUS)
        return parse_postfix(p);
    if (!cdc_sqlp_enter(p))
        return NULL;
    advance(p);
    cdc_sql_expr_t *operand = parse_unary(p);
    cdc_sqlp_leave(p);
    if (!operand)
        return NULL;
    cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_UNARY, t);
    e->unary.op = t->kind == CDC_SQL_TOK_MINUS ? CDC_SQL_UNARY_MINUS : CDC_SQL_UNARY_PLUS;
    e->unary.operand = operand;
    return e;
}

static cdc_sql_expr_t *parse_multiplicative(parser_t *p)
{
    cdc_sql_expr_t *left = parse_unary(p);
    while (left) {
        const tok_t *t = cur(p);
        cdc_sql_binary_op_t op;
        if (t->kind == CDC_SQL_TOK_STAR)
            op = CDC_SQL_BINARY_MUL;
        else if (t->kind == CDC_SQL_TOK_SLASH)
            op = CDC_SQL_BINARY_DIV;
        else if (t->kind == CDC_SQL_TOK_PERCENT)
            op = CDC_SQL_BINARY_MOD;
        else
            break;
        advance(p);
        cdc_sql_expr_t *right = parse_unary(p);
        if (!right)
            return drop_expr(left);
        left = binary_new(op, t, left, right);
    }
    return left;
}

static cdc_sql_expr_t *parse_additive(parser_t *p)
{
    cdc_sql_expr_t *left = parse_multiplicative(p);
    while (left && (at(p, CDC_SQL_TOK_PLUS) || at(p, CDC_SQL_TOK_MINUS))) {
        const tok_t *t = cur(p);
        advance(p);
        cdc_sql_expr_t *right = parse_multiplicative(p);
        if (!right)
            return drop_expr(left);
        left = binary_new(t->kind == CDC_SQL_TOK_PLUS ? CDC_SQL_BINARY_ADD : CDC_SQL_BINARY_SUB, t,
                          left, right);
    }
    return left;
}

static cdc_sql_expr_t *parse_concat(parser_t *p)
{
    cdc_sql_expr_t *left = parse_additive(p);
    while (left && at(p, CDC_SQL_TOK_CONCAT)) {
        const tok_t *t = cur(p);
        advance(p);
        cdc_sql_expr_t *right = parse_additive(p);
        if (!right)
            return drop_expr(left);
        left = binary_new(CDC_SQL_BINARY_CONCAT, t, left, right);
    }
    return left;
}

static bool comparison_op(cdc_sql_token_kind_t kind, cdc_sql_binary_op_t *op)
{
    switch (kind) {
    case CDC_SQL_TOK_EQ:
        *op = CDC_SQL_BINARY_EQ;
        return true;
    case CDC_SQL_TOK_NE:
        *op = CDC_SQL_BINARY_NE;
        return true;
    case CDC_SQL_TOK_LT:
        *op = CDC_SQL_BINARY_LT;
        return true;
    case CDC_SQL_TOK_LE:
        *op = CDC_SQL_BINARY_LE;
        return true;
    case CDC_SQL_TOK_GT:
        *op = CDC_SQL_BINARY_GT;
        return true;
    case CDC_SQL_TOK_GE:
        *op = CDC_SQL_BINARY_GE;
        return true;
    default:
        return false;
    }
}

/* [NOT] IN / BETWEEN / LIKE after the operand; the keyword (or NOT) is current. */
static cdc_sql_expr_t *parse_predicate(parser_t *p, cdc_sql_expr_t *operand)
{
    const tok_t *start = cur(p);
    bool negated = accept_kw(p, "NOT");
    cdc_sql_expr_t *e;
    if (accept_kw(p, "IN")) {
        e = expr_new(CDC_SQL_EXPR_IN, start);
        e->in_list.operand = operand;
        e->in_list.negated = negated;
        if (!cdc_sqlp_expect(p, CDC_SQL_TOK_LPAREN))
            return drop_expr(e);
        if (at_kw(p, "SELECT") || at_kw(p, "WITH")) {
            if (!(e->in_list.subquery = cdc_sqlp_parse_query(p)) ||
                !cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN))
                return drop_expr(e);
            return e;
        }
        for (;;) {
            cdc_sql_expr_t *item = cdc_sqlp_parse_expr(p);
            if (!item)
                return drop_expr(e);
            PUSH(e->in_list.items, e->in_list.nitems, item);
            if (accept(p, CDC_SQL_TOK_COMMA))
                continue;
            if (accept(p, CDC_SQL_TOK_RPAREN))
                return e;
            cdc_sqlp_fail_expected(p, "\",\" or \")\"");
            return drop_expr(e);
        }
    }
    if (accept_kw(p, "BETWEEN")) {
        e = expr_new(CDC_SQL_EXPR_BETWEEN, start);
        e->between.operand = operand;
        e->between.negated = negated;
        if (!(e->between.low = parse_concat(p)) || !cdc_sqlp_expect_kw(p, "AND") ||
            !(e->between.high = parse_concat(p)))
            return drop_expr(e);
        return e;
    }
    /* LIKE: the caller checked the keyword. */
    advance(p);
    e = expr_new(CDC_SQL_EXPR_LIKE, start);
    e->like.operand = operand;
    e->like.negated = negated;
    if (!(e->like.pattern = parse_concat(p)))
        return drop_expr(e);
    if (accept_kw(p, "ESCAPE") && !(e->like.escape = parse_concat(p)))
        return drop_expr(e);
    return e;
}

/* x IS [NOT] TRUE | FALSE | UNKNOWN (the keyword current), as the SQL it means: COALESCE(x,
 * FALSE), COALESCE(x, TRUE) with NOT around where negative, x IS [NOT] NULL. */
static cdc_sql_expr_t *is_truth(parser_t *p, const tok_t *is, cdc_sql_expr_t *x, bool negated)
{
    const tok_t *w = cur(p);
    advance(p);
    if (tok_kw(p, w, "UNKNOWN")) {
        cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_IS_NULL, is);
        e->is_null.operand = x;
        e->is_null.negated = negated;
        return e;
    }
    bool want = tok_kw(p, w, "TRUE"); /* IS TRUE: x, NULL as FALSE; IS FALSE: NOT x, NULL as TRUE */
    cdc_sql_expr_t *c = expr_new(CDC_SQL_EXPR_CALL, is);
    c->call.name = cdc_xstrdup("COALESCE");
    push_arg(c, x);
    push_arg(c, literal_new(CDC_SQL_LIT_BOOLEAN, w, cdc_xstrdup(want ? "FALSE" : "TRUE")));
    if (want != negated)
        return c;
    cdc_sql_expr_t *n = expr_new(CDC_SQL_EXPR_UNARY, is);
    n->unary.op = CDC_SQL_UNARY_NOT;
    n->unary.operand = c;
    return n;
}

static cdc_sql_expr_t *parse_comparison(parser_t *p)
{
    cdc_sql_expr_t *left = parse_concat(p);
    while (left) {
        const tok_t *t = cur(p);
        cdc_sql_binary_op_t op;
        if (comparison_op(t->kind, &op)) {
            advance(p);
            cdc_sql_expr_t *right = parse_concat(p);
            if (!right)
                return drop_expr(left);
            left = binary_new(op, t, left, right);
        } else if (tok_kw(p, t, "IS") && (peek_kw(p, 1, "DISTINCT") ||
                                          (peek_kw(p, 1, "NOT") && peek_kw(p, 2, "DISTINCT")))) {
            /* a IS [NOT] DISTINCT FROM b -> call "IS [NOT] DISTINCT FROM" {a, b} */
            advance(p);
            bool negated = accept_kw(p, "NOT");
            advance(p); /* DISTINCT */
            if (!cdc_sqlp_expect_kw(p, "FROM"))
                return drop_expr(left);
            cdc_sql_expr_t *right = parse_concat(p);
            if (!right)
                return drop_expr(left);
            cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_CALL, t);
            e->call.name = cdc_xstrdup(negated ? "IS NOT DISTINCT FROM" : "IS DISTINCT FROM");
            push_arg(e, left);
            push_arg(e, right);
            left = e;
        } else if (tok_kw(p, t, "IS") &&
                   (peek_kw(p, 1, "TRUE") || peek_kw(p, 1, "FALSE") || peek_kw(p, 1, "UNKNOWN") ||
                    (peek_kw(p, 1, "NOT") && (peek_kw(p, 2, "TRUE") || peek_kw(p, 2, "FALSE") ||
                                              peek_kw(p, 2, "UNKNOWN"))))) {
            advance(p);
            bool negated = accept_kw(p, "NOT");
            left = is_truth(p, t, left, negated);
        } else if (tok_kw(p, t, "IS") &&
                   (peek_kw(p, 1, "JSON") || (peek_kw(p, 1, "NOT") && peek_kw(p, 2, "JSON")))) {
            cdc_sqlp_fail_unsupported(p, "IS JSON", "JSON_EXISTS(s, '$') is TRUE for JSON text");
            return drop_expr(left);
        } else if (tok_kw(p, t, "SIMILAR") || (tok_kw(p, t, "NOT") && peek_kw(p, 1, "SIMILAR"))) {
            cdc_sqlp_fail_unsupported(p, "SIMILAR TO", "use LIKE, or REGEXP(s, pattern)");
            return drop_expr(left);
        } else if (tok_kw(p, t, "IS")) {
            advance(p);
            cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_IS_NULL, t);
            e->is_null.operand = left;
            left = e;
            e->is_null.negated = accept_kw(p, "NOT");
            if (!accept_kw(p, "NULL")) {
                cdc_sqlp_fail_expected(p, e->is_null.negated ? "\"NULL\""
                                                             : "\"NULL\" or \"NOT NULL\"");
                return drop_expr(left);
            }
        } else if (tok_kw(p, t, "IN") || tok_kw(p, t, "BETWEEN") || tok_kw(p, t, "LIKE") ||
                   (tok_kw(p, t, "NOT") &&
                    (peek_kw(p, 1, "IN") || peek_kw(p, 1, "BETWEEN") || peek_kw(p, 1, "LIKE")))) {
            left = parse_predicate(p, left);
        } else {
            break;
        }
    }
    return left;
}

static cdc_sql_expr_t *parse_not(parser_t *p)
{
    const tok_t *t = cur(p);
    if (!tok_kw(p, t, "NOT"))
        return parse_comparison(p);
    if (!cdc_sqlp_enter(p))
        return NULL;
    advance(p);
    cdc_sql_expr_t *operand = parse_not(p);
    cdc_sqlp_leave(p);
    if (!operand)
        return NULL;
    cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_UNARY, t);
    e->unary.op = CDC_SQL_UNARY_NOT;
    e->unary.operand = operand;
    return e;
}

static cdc_sql_expr_t *parse_and(parser_t *p)
{
    cdc_sql_expr_t *left = parse_not(p);
    while (left && at_kw(p, "AND")) {
        const tok_t *t = cur(p);
        advance(p);
        cdc_sql_expr_t *right = parse_not(p);
        if (!right)
            return drop_expr(left);
        left = binary_new(CDC_SQL_BINARY_AND, t, left, right);
    }
    return left;
}

static cdc_sql_expr_t *parse_or(parser_t *p)
{
    cdc_sql_expr_t *left = parse_and(p);
    while (left && at_kw(p, "OR")) {
        const tok_t *t = cur(p);
        advance(p);
        cdc_sql_expr_t *right = parse_and(p);
        if (!right)
            return drop_expr(left);
        left = binary_new(CDC_SQL_BINARY_OR, t, left, right);
    }
    return left;
}

cdc_sql_expr_t *cdc_sqlp_parse_expr(parser_t *p)
{
    if (!cdc_sqlp_enter(p))
        return NULL;
    cdc_sql_expr_t *e = parse_or(p);
    cdc_sqlp_leave(p);
    return e;
}

/* ---- queries ------------------------------------------------------------------------------- */

/* [AS] alias, where a bare alias must be a non-reserved word. */
static bool parse_alias(parser_t *p, char **alias, int *line, int *col)
{
    cdc_sql_ident_t id;
    if (accept_kw(p, "AS")) {
        if (!cdc_sqlp_parse_ident(p, &id, "alias"))
            return false;
    } else if (at_kw(p, "FETCH") && (peek_kw(p, 1, "FIRST") || peek_kw(p, 1, "NEXT"))) {
        return cdc_sqlp_fail_unsupported(p, "FETCH", "write LIMIT n");
    } else if (is_ident_tok(p, cur(p))) {
        cdc_sqlp_parse_ident(p, &id, "alias");
    } else {
        return true;
    }
    *alias = id.name;
    *line = id.line;
    *col = id.col;
    return true;
}

/* Is the current position "*" or "q1[.q2[.q3]].*"? Returns the number of qualifier parts,
 * or -1. */
static int star_qualifier_parts(const parser_t *p)
{
    if (at(p, CDC_SQL_TOK_STAR))
        return 0;
    for (size_t k = 0, n = 0; n < 3; k += 2, n++) {
        const tok_t *t = peek(p, k);
        if (t->kind != CDC_SQL_TOK_IDENT && t->kind != CDC_SQL_TOK_QUOTED_IDENT)
            return -1;
        if (peek(p, k + 1)->kind != CDC_SQL_TOK_DOT)
            return -1;
        if (peek(p, k + 2)->kind == CDC_SQL_TOK_STAR)
            return (int)n + 1;
    }
    return -1;
}

static bool parse_select_item(parser_t *p, cdc_sql_select_item_t *item)
{
    int nq = star_qualifier_parts(p);
    if (nq >= 0) {
        cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_STAR, cur(p));
        e->star.qualifier.line = e->line;
        e->star.qualifier.col = e->col;
        for (int i = 0; i < nq; i++) {
            e->star.qualifier.parts[e->star.qualifier.nparts++] = tok_value(p, cur(p));
            advance(p); /* part */
            advance(p); /* . */
        }
        advance(p); /* * */
        item->expr = e;
        return true;
    }
    if (!(item->expr = cdc_sqlp_parse_expr(p)))
        return false;
    return parse_alias(p, &item->alias, &item->alias_line, &item->alias_col);
}

static bool parse_table_ref(parser_t *p, cdc_sql_table_ref_t *ref, bool lookup)
{
    if (!cdc_sqlp_parse_name(p, &ref->name, 3, "table name") ||
        !cdc_sqlp_parse_hints(p, &ref->hints))
        return false;
    if (lookup)
        return true; /* the alias comes after FOR SYSTEM_TIME AS OF */
    return parse_alias(p, &ref->alias, &ref->alias_line, &ref->alias_col);
}

/* A join with a user-defined table function (LATERAL TABLE(f(x)), TABLE(f(x))) at token @p k
 * ahead: refused by name, cdcflow's user functions being scalar ones. Always returns false. */
static bool fail_udtf(parser_t *p, size_t k)
{
    const tok_t *t = peek(p, k);
    if (p->err)
        return false;
    p->err = cdc_error_new(CDC_ERR_SQL, "%s:%d:%d: user-defined table functions are not supported",
                           p->filename ? p->filename : "<input>", t->line, t->col);
    char *caret = cdc_sql_caret(p->text, p->len, t->line, t->col);
    cdc_error_set_detail(p->err, "%s", caret);
    free(caret);
    cdc_error_set_hint(p->err, "user functions are scalar ones (CREATE FUNCTION ... LANGUAGE C); "
                               "an ARRAY or MAP column is expanded with CROSS JOIN UNNEST(c)");
    return false;
}

/* UNNEST(expr) [WITH ORDINALITY] [[AS] alias [(c1, ...)]] as the table of a join. */
static bool parse_unnest(parser_t *p, cdc_sql_table_ref_t *ref)
{
    cdc_sql_unnest_t *un = cdc_xcalloc(1, sizeof(*un));
    ref->unnest = un;
    un->line = cur(p)->line;
    un->col = cur(p)->col;
    ref->name.line = un->line;
    ref->name.col = un->col;
    advance(p); /* UNNEST */
    if (!cdc_sqlp_expect(p, CDC_SQL_TOK_LPAREN) || !(un->arg = cdc_sqlp_parse_expr(p)))
        return false;
    if (at(p, CDC_SQL_TOK_COMMA))
        return cdc_sqlp_fail_unsupported(p, "UNNEST of several arguments",
                                         "join one UNNEST per array");
    if (!cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN))
        return false;
    if (accept_kw(p, "WITH")) {
        if (!cdc_sqlp_expect_kw(p, "ORDINALITY"))
            return false;
        un->ordinality = true;
    }
    if (!parse_alias(p, &ref->alias, &ref->alias_line, &ref->alias_col))
        return false;
    if (!ref->alias || !accept(p, CDC_SQL_TOK_LPAREN))
        return true;
    do {
        cdc_sql_ident_t id;
        if (!cdc_sqlp_parse_ident(p, &id, "column name"))
            return false;
        PUSH(un->columns.items, un->columns.count, id);
    } while (accept(p, CDC_SQL_TOK_COMMA));
    return cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN);
}

/* True when the token @p k ahead starts a user-defined table function: LATERAL TABLE or TABLE(. */
static bool at_udtf(const parser_t *p, size_t k)
{
    return (peek_kw(p, k, "LATERAL") && !peek_kw(p, k + 1, "UNNEST")) ||
           (peek_kw(p, k, "TABLE") && peek(p, k + 1)->kind == CDC_SQL_TOK_LPAREN);
}

/* A subquery in FROM or a join: "( query )" where the query is a SELECT, WITH or VALUES, or a
 * set operation of queries in parentheses ("((SELECT ...) INTERSECT (SELECT ...))"), as Flink
 * accepts. The current token is the "(". */
static bool parse_subquery_ref(parser_t *p, cdc_sql_table_ref_t *ref)
{
    const tok_t *open = cur(p);
    advance(p);
    if (!cdc_sqlp_at_query(p))
        return cdc_sqlp_fail_expected(p, "\"SELECT\", \"WITH\" or \"VALUES\" (a subquery)");
    if (!(ref->subquery = cdc_sqlp_parse_query(p)) || !cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN))
        return false;
    ref->name.line = open->line;
    ref->name.col = open->col;
    return true;
}

static bool parse_join(parser_t *p, cdc_sql_query_t *q)
{
    const tok_t *start = cur(p);
    PUSH(q->joins, q->njoins, (cdc_sql_join_t){0});
    cdc_sql_join_t *j = &q->joins[q->njoins - 1];
    j->kind = CDC_SQL_JOIN_INNER;
    j->line = start->line;
    j->col = start->col;
    if (accept_kw(p, "LEFT"))
        j->kind = CDC_SQL_JOIN_LEFT;
    else if (accept_kw(p, "RIGHT"))
        j->kind = CDC_SQL_JOIN_RIGHT;
    else if (accept_kw(p, "FULL"))
        j->kind = CDC_SQL_JOIN_FULL;
    else
        accept_kw(p, "INNER");
    if (j->kind != CDC_SQL_JOIN_INNER)
        accept_kw(p, "OUTER");
    if (!cdc_sqlp_expect_kw(p, "JOIN"))
        return false;
    if (at_udtf(p, 0))
        return fail_udtf(p, 0);
    accept_kw(p, "LATERAL");
    if (at_kw(p, "UNNEST")) {
        if (j->kind == CDC_SQL_JOIN_RIGHT || j->kind == CDC_SQL_JOIN_FULL)
            return cdc_sqlp_fail_unsupported_at(p, j->line, j->col,
                                                "a RIGHT or FULL join with UNNEST",
                                                "UNNEST is joined with JOIN or LEFT JOIN");
        if (!parse_unnest(p, &j->table))
            return false;
        if (!cdc_sqlp_expect_kw(p, "ON") || !(j->on = cdc_sqlp_parse_expr(p)))
            return false;
        return true;
    }
    if (at(p, CDC_SQL_TOK_LPAREN)) {
        /* JOIN (SELECT ...) [AS] alias ON ...: a subquery, as in FROM */
        if (!parse_subquery_ref(p, &j->table))
            return false;
    } else if (!parse_table_ref(p, &j->table, true)) {
        return false;
    }
    if (at_kw(p, "FOR")) {
        if (j->table.subquery)
            return cdc_sqlp_fail_unsupported(p, "FOR SYSTEM_TIME AS OF on a subquery",
                                             "a lookup join reads a table");
        if (j->kind == CDC_SQL_JOIN_RIGHT || j->kind == CDC_SQL_JOIN_FULL)
            return cdc_sqlp_fail_unsupported(
                p, "FOR SYSTEM_TIME AS OF on a RIGHT or FULL join",
                "a lookup join is JOIN or LEFT JOIN ... FOR SYSTEM_TIME AS OF");
        advance(p);
        if (!cdc_sqlp_expect_kw(p, "SYSTEM_TIME") || !cdc_sqlp_expect_kw(p, "AS") ||
            !cdc_sqlp_expect_kw(p, "OF") || !(j->system_time = cdc_sqlp_parse_expr(p)))
            return false;
    }
    if (!parse_alias(p, &j->table.alias, &j->table.alias_line, &j->table.alias_col))
        return false;
    if (!cdc_sqlp_expect_kw(p, "ON") || !(j->on = cdc_sqlp_parse_expr(p)))
        return false;
    return true;
}

static bool parse_limit(parser_t *p, cdc_sql_query_t *q)
{
    const tok_t *t = cur(p);
    if (t->kind != CDC_SQL_TOK_INTEGER)
        return cdc_sqlp_fail_expected(p, "non-negative integer");
    long long v = 0;
    for (size_t i = 0; i < t->len; i++) {
        int d = p->text[t->offset + i] - '0';
        if (v > (LLONG_MAX - d) / 10) {
            char *found = cdc_sqlp_describe_tok(p, t);
            cdc_sqlp_fail_at(p, t, NULL, "LIMIT value %s is out of range", found);
            free(found);
            return false;
        }
        v = v * 10 + d;
    }
    q->has_limit = true;
    q->limit = v;
    q->limit_line = t->line;
    q->limit_col = t->col;
    advance(p);
    return true;
}

/* WITH name AS (query) [, ...]: the current token is WITH. */
static bool parse_with(parser_t *p, cdc_sql_query_t *q)
{
    advance(p); /* WITH */
    if (at_kw(p, "RECURSIVE"))
        return cdc_sqlp_fail_unsupported(p, "WITH RECURSIVE", NULL);
    for (;;) {
        cdc_sql_cte_t cte = {0};
        if (!cdc_sqlp_parse_ident(p, &cte.name, "name of a WITH query"))
            return false;
        PUSH(q->ctes, q->nctes, cte);
        if (at(p, CDC_SQL_TOK_LPAREN))
            return cdc_sqlp_fail_unsupported(p, "a column list on a WITH query",
                                             "name the columns with AS aliases in its SELECT");
        if (!cdc_sqlp_expect_kw(p, "AS") || !cdc_sqlp_expect(p, CDC_SQL_TOK_LPAREN) ||
            !(q->ctes[q->nctes - 1].query = cdc_sqlp_parse_query(p)) ||
            !cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN))
            return false;
        if (!accept(p, CDC_SQL_TOK_COMMA))
            return true;
    }
}

/* One argument of a window TVF, positional (index i) or named (NAME =>). */
static bool parse_tvf_arg(parser_t *p, cdc_sql_window_tvf_t *w, int i, bool *named_seen)
{
    static const char *const names[4][5] = {
        {"DATA", "TIMECOL", "SIZE", "OFFSET", NULL}, /* TUMBLE */
        {"DATA", "TIMECOL", "SLIDE", "SIZE", "OFFSET"},
        {"DATA", "TIMECOL", "STEP", "SIZE", "OFFSET"},
    };
    const char *const *order = names[w->kind - 1];
    const char *which = NULL;
    if (cur(p)->kind == CDC_SQL_TOK_IDENT && peek(p, 1)->kind == CDC_SQL_TOK_EQ &&
        peek(p, 2)->kind == CDC_SQL_TOK_GT && peek(p, 2)->offset == peek(p, 1)->offset + 1) {
        for (int k = 0; k < 5 && order[k] && !which; k++)
            if (tok_kw(p, cur(p), order[k]))
                which = order[k];
        if (!which)
            return cdc_sqlp_fail_expected(p, "a window function's parameter (DATA, TIMECOL, "
                                             "SIZE, SLIDE, STEP, OFFSET)");
        advance(p);
        advance(p);
        advance(p);
        *named_seen = true;
    } else {
        if (*named_seen)
            return cdc_sqlp_fail_expected(p, "a named parameter (NAME => value) after named ones");
        if (i >= 5 || !order[i])
            return cdc_sqlp_fail_expected(p, "\")\"");
        which = order[i];
    }
    if (strcmp(which, "DATA") == 0) {
        if (!cdc_sqlp_expect_kw(p, "TABLE"))
            return false;
        return cdc_sqlp_parse_name(p, &w->data, 3, "table name");
    }
    if (strcmp(which, "TIMECOL") == 0) {
        if (!cdc_sqlp_expect_kw(p, "DESCRIPTOR") || !cdc_sqlp_expect(p, CDC_SQL_TOK_LPAREN) ||
            !cdc_sqlp_parse_ident(p, &w->timecol, "time attribute column"))
            return false;
        return cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN);
    }
    cdc_sql_expr_t **slot = strcmp(which, "SIZE") == 0     ? &w->size
                            : strcmp(which, "OFFSET") == 0 ? &w->offset
                                                           : &w->step;
    if (*slot)
        return cdc_sqlp_fail_expected(p, "each parameter once");
    return (*slot = cdc_sqlp_parse_expr(p)) != NULL;
}

/* FROM TABLE(TUMBLE|HOP|CUMULATE(...)) [AS] alias: the current token is TABLE. */
static bool parse_window_tvf(parser_t *p, cdc_sql_table_ref_t *ref)
{
    const tok_t *table = cur(p);
    advance(p); /* TABLE */
    advance(p); /* ( */
    static const char *const fns[] = {"TUMBLE", "HOP", "CUMULATE"};
    int kind = 0;
    for (int k = 0; k < 3 && !kind; k++)
        if (tok_kw(p, cur(p), fns[k]) ||
            (cur(p)->kind == CDC_SQL_TOK_IDENT && cur(p)->len == strlen(fns[k]) &&
             strncasecmp(p->text + cur(p)->offset, fns[k], cur(p)->len) == 0))
            kind = k + 1;
    if (!kind)
        return cdc_sqlp_fail_unsupported(
            p, "a table function in FROM other than the window functions TUMBLE, HOP, CUMULATE",
            NULL);
    cdc_sql_window_tvf_t *w = cdc_xcalloc(1, sizeof(*w));
    ref->tvf = w;
    w->kind = (cdc_sql_tvf_kind_t)kind;
    w->line = cur(p)->line;
    w->col = cur(p)->col;
    advance(p);
    if (!cdc_sqlp_expect(p, CDC_SQL_TOK_LPAREN))
        return false;
    bool named = false;
    for (int i = 0;; i++) {
        if (!parse_tvf_arg(p, w, i, &named))
            return false;
        if (!accept(p, CDC_SQL_TOK_COMMA))
            break;
    }
    if (!cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN) || !cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN))
        return false;
    if (!w->data.nparts || !w->timecol.name || !w->size ||
        (kind != CDC_SQL_TVF_TUMBLE && !w->step)) {
        cdc_sqlp_fail_at(p, table, NULL, "%s needs TABLE data, DESCRIPTOR(time column)%s and SIZE",
                         fns[kind - 1],
                         kind == CDC_SQL_TVF_HOP        ? ", SLIDE"
                         : kind == CDC_SQL_TVF_CUMULATE ? ", STEP"
                                                        : "");
        return false;
    }
    /* the data table is the reference's name: views, CTEs and catalogs resolve as for FROM t */
    for (int k = 0; k < w->data.nparts; k++)
        ref->name.parts[k] = cdc_xstrdup(w->data.parts[k]);
    ref->name.nparts = w->data.nparts;
    ref->name.line = table->line;
    ref->name.col = table->col;
    return parse_alias(p, &ref->alias, &ref->alias_line, &ref->alias_col);
}

/* True when a select list's column count is known from the text (no "*"). */
static bool count_known(const cdc_sql_query_t *q)
{
    for (size_t i = 0; i < q->nitems; i++)
        if (q->items[i].expr->kind == CDC_SQL_EXPR_STAR)
            return false;
    return true;
}

/* The column list of "(subquery) AS t (c1, c2, ...)", as Flink names the columns of VALUES: the
 * names become the aliases of the items of @p sub (of each branch of a UNION ALL). */
static bool parse_column_aliases(parser_t *p, cdc_sql_query_t *sub)
{
    const tok_t *open = cur(p);
    cdc_sql_ident_t *names = NULL;
    size_t n = 0;
    bool ok = cdc_sqlp_expect(p, CDC_SQL_TOK_LPAREN);
    while (ok) {
        PUSH(names, n, (cdc_sql_ident_t){0});
        if (!(ok = cdc_sqlp_parse_ident(p, &names[n - 1], "column name")))
            n--;
        else if (!accept(p, CDC_SQL_TOK_COMMA))
            break;
    }
    ok = ok && cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN);
    for (cdc_sql_query_t *b = sub; ok && b; b = b->union_all) {
        if (!count_known(b)) {
            ok = cdc_sqlp_fail_unsupported_at(p, open->line, open->col,
                                              "a column list after a subquery with SELECT *",
                                              "name the columns in the subquery's SELECT");
        } else if (b->nitems != n) {
            cdc_sqlp_fail_at(p, open, NULL,
                             "the column list has %zu names, the subquery %zu columns", n,
                             b->nitems);
            ok = false;
        }
        for (size_t k = 0; ok && k < n; k++) {
            free(b->items[k].alias);
            b->items[k].alias = cdc_xstrdup(names[k].name);
            b->items[k].alias_line = names[k].line;
            b->items[k].alias_col = names[k].col;
        }
    }
    for (size_t k = 0; k < n; k++)
        free(names[k].name);
    free(names);
    return ok;
}

/* What follows FROM: a table or view name, or a subquery in parentheses. Window table
 * functions and other table expressions are refused by name. */
static bool parse_from(parser_t *p, cdc_sql_query_t *q)
{
    if (at_kw(p, "TABLE") && peek(p, 1)->kind == CDC_SQL_TOK_LPAREN)
        return parse_window_tvf(p, &q->from);
    if (at_kw(p, "LATERAL") || at_kw(p, "UNNEST"))
        return cdc_sqlp_fail_unsupported(p, "LATERAL / UNNEST in FROM", NULL);
    if (!at(p, CDC_SQL_TOK_LPAREN))
        return parse_table_ref(p, &q->from, false);
    if (!parse_subquery_ref(p, &q->from))
        return false;
    if (!cdc_sqlp_parse_hints(p, &q->from.hints) ||
        !parse_alias(p, &q->from.alias, &q->from.alias_line, &q->from.alias_col))
        return false;
    return !q->from.alias || !at(p, CDC_SQL_TOK_LPAREN) ||
           parse_column_aliases(p, q->from.subquery);
}

/* ---- GROUP BY ---- */

/* Grouping sets while GROUP BY is parsed: masks over the query's group_by. */
typedef struct gsets {
    uint64_t *m;
    size_t n;
} gsets_t;

enum { MAX_GROUP_SETS = 4096 };

static bool gsets_add(parser_t *p, gsets_t *s, uint64_t m)
{
    if (s->n >= MAX_GROUP_SETS) {
        cdc_sqlp_fail_at(p, cur(p), NULL, "too many grouping sets (%d at most)", MAX_GROUP_SETS);
        return false;
    }
    PUSH(s->m, s->n, m);
    return true;
}

/* The index of @p e in q->group_by (taken, or freed when an equal one is there already); -1 with
 * the error when there are too many. */
static int group_expr_index(parser_t *p, cdc_sql_query_t *q, cdc_sql_expr_t *e)
{
    char *t = cdc_sql_expr_to_string(e);
    for (size_t i = 0; i < q->ngroup_by; i++) {
        char *u = cdc_sql_expr_to_string(q->group_by[i]);
        bool same = strcmp(t, u) == 0;
        free(u);
        if (same) {
            free(t);
            cdc_sql_expr_destroy(e);
            return (int)i;
        }
    }
    free(t);
    if (q->ngroup_by >= 64) {
        cdc_sqlp_fail_at(p, cur(p), NULL, "too many GROUP BY keys (64 at most)");
        cdc_sql_expr_destroy(e);
        return -1;
    }
    PUSH(q->group_by, q->ngroup_by, e);
    return (int)q->ngroup_by - 1;
}

/* e, or (e, ...) or (): the mask of the expressions. */
static bool parse_group_columns(parser_t *p, cdc_sql_query_t *q, uint64_t *mask)
{
    *mask = 0;
    bool paren = at(p, CDC_SQL_TOK_LPAREN) &&
                 (peek(p, 1)->kind == CDC_SQL_TOK_RPAREN || peek(p, 1)->kind != CDC_SQL_TOK_LPAREN);
    if (paren)
        advance(p);
    if (paren && accept(p, CDC_SQL_TOK_RPAREN))
        return true;
    do {
        cdc_sql_expr_t *e = cdc_sqlp_parse_expr(p);
        int i = e ? group_expr_index(p, q, e) : -1;
        if (i < 0)
            return false;
        *mask |= (uint64_t)1 << i;
    } while (paren && accept(p, CDC_SQL_TOK_COMMA));
    return !paren || cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN);
}

static bool parse_group_element(parser_t *p, cdc_sql_query_t *q, gsets_t *out, bool nested,
                                bool *sets);

/* ROLLUP (x, ...) / CUBE (x, ...), at the word: their sets into @p out. */
static bool parse_rollup_cube(parser_t *p, cdc_sql_query_t *q, gsets_t *out)
{
    bool cube = at_kw(p, "CUBE");
    advance(p);
    if (!cdc_sqlp_expect(p, CDC_SQL_TOK_LPAREN))
        return false;
    uint64_t m[64];
    int n = 0;
    do {
        if (n == 64) {
            cdc_sqlp_fail_at(p, cur(p), NULL, "too many GROUP BY keys (64 at most)");
            return false;
        }
        if (!parse_group_columns(p, q, &m[n++]))
            return false;
    } while (accept(p, CDC_SQL_TOK_COMMA));
    if (!cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN))
        return false;
    if (!cube) { /* (x1, .., xn), (x1, .., xn-1), .., () */
        for (int k = n; k >= 0; k--) {
            uint64_t u = 0;
            for (int i = 0; i < k; i++)
                u |= m[i];
            if (!gsets_add(p, out, u))
                return false;
        }
        return true;
    }
    if (n > 12) {
        cdc_sqlp_fail_at(p, cur(p), NULL, "CUBE of more than 12 elements (%d)", n);
        return false;
    }
    for (uint32_t bits = 0; bits < (1u << n); bits++) {
        uint64_t u = 0;
        for (int i = 0; i < n; i++)
            if (!(bits & (1u << i)))
                u |= m[i];
        if (!gsets_add(p, out, u))
            return false;
    }
    return true;
}

/* One element of GROUP BY or (@p nested) of GROUPING SETS (...): an expression, there also a
 * (list), ROLLUP, CUBE or GROUPING SETS. Its sets into @p out; *sets for the last three. */
static bool parse_group_element(parser_t *p, cdc_sql_query_t *q, gsets_t *out, bool nested,
                                bool *sets)
{
    if ((at_kw(p, "ROLLUP") || at_kw(p, "CUBE")) && peek(p, 1)->kind == CDC_SQL_TOK_LPAREN) {
        *sets = true;
        return parse_rollup_cube(p, q, out);
    }
    if (at_kw(p, "GROUPING") && peek_kw(p, 1, "SETS")) {
        *sets = true;
        advance(p);
        advance(p);
        if (!cdc_sqlp_expect(p, CDC_SQL_TOK_LPAREN))
            return false;
        do {
            bool inner = false;
            if (!parse_group_element(p, q, out, true, &inner))
                return false;
        } while (accept(p, CDC_SQL_TOK_COMMA));
        return cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN);
    }
    uint64_t m = 0;
    if (nested) {
        if (!parse_group_columns(p, q, &m))
            return false;
    } else {
        cdc_sql_expr_t *e = cdc_sqlp_parse_expr(p);
        int i = e ? group_expr_index(p, q, e) : -1;
        if (i < 0)
            return false;
        m = (uint64_t)1 << i;
    }
    return gsets_add(p, out, m);
}

/* Calcite's order of grouping sets: a set before the sets it encloses, else by its keys. */
static int gset_cmp(uint64_t a, uint64_t b)
{
    if (a == b)
        return 0;
    if ((a & b) == b)
        return -1;
    if ((a & b) == a)
        return 1;
    for (int i = 0; i < 64; i++) {
        bool ha = a >> i & 1, hb = b >> i & 1;
        if (ha != hb)
            return ha ? -1 : 1;
    }
    return 0;
}

/* [GROUP BY element, ...] [HAVING cond]; with GROUPING SETS, ROLLUP or CUBE among the elements,
 * the grouping sets are the cross product of the elements' sets; group windows are refused by
 * name. */
static bool parse_group_by(parser_t *p, cdc_sql_query_t *q)
{
    if (at_kw(p, "HAVING")) {
        q->having_line = cur(p)->line;
        q->having_col = cur(p)->col;
        advance(p);
        return (q->having = cdc_sqlp_parse_expr(p)) != NULL;
    }
    if (!at_kw(p, "GROUP"))
        return true;
    q->group_line = cur(p)->line;
    q->group_col = cur(p)->col;
    advance(p);
    if (!cdc_sqlp_expect_kw(p, "BY"))
        return false;
    gsets_t acc = {0}, el = {0};
    bool any_sets = false, ok = gsets_add(p, &acc, 0);
    while (ok) {
        bool sets = false;
        el.n = 0;
        ok = parse_group_element(p, q, &el, false, &sets);
        any_sets = any_sets || sets;
        /* the cross product */
        gsets_t next = {0};
        for (size_t a = 0; ok && a < acc.n; a++)
            for (size_t b = 0; ok && b < el.n; b++)
                ok = gsets_add(p, &next, acc.m[a] | el.m[b]);
        free(acc.m);
        acc = next;
        if (!ok || !accept(p, CDC_SQL_TOK_COMMA))
            break;
    }
    free(el.m);
    if (ok && any_sets) {
        /* sorted (insertion: there are few), duplicates dropped */
        size_t n = 0;
        for (size_t i = 0; i < acc.n; i++) {
            uint64_t m = acc.m[i];
            size_t at = n;
            bool dup = false;
            for (size_t k = 0; k < n && !dup; k++)
                dup = acc.m[k] == m;
            if (dup)
                continue;
            while (at > 0 && gset_cmp(acc.m[at - 1], m) > 0) {
                acc.m[at] = acc.m[at - 1];
                at--;
            }
            acc.m[at] = m;
            n++;
        }
        q->group_sets = acc.m;
        q->ngroup_sets = n;
        acc.m = NULL;
    }
    free(acc.m);
    if (!ok)
        return false;
    return !at_kw(p, "HAVING") || parse_group_by(p, q);
}

/* WINDOW w AS (window), ... after HAVING: each OVER w of the query (p->named from @p first on)
 * gets a copy of w's window (keeping its name and place); a name no WINDOW defines is an error.
 */
static bool parse_window_clause(parser_t *p, size_t first)
{
    cdc_sql_over_t **defs = NULL;
    size_t ndefs = 0;
    bool ok = true;
    if (accept_kw(p, "WINDOW")) {
        do {
            cdc_sql_ident_t id = {0};
            if (!cdc_sqlp_parse_ident(p, &id, "window name")) {
                ok = false;
                break;
            }
            cdc_sql_over_t *d = cdc_xcalloc(1, sizeof(*d));
            d->name = id.name;
            d->line = id.line;
            d->col = id.col;
            PUSH(defs, ndefs, d);
            if (!cdc_sqlp_expect_kw(p, "AS") || !cdc_sqlp_expect(p, CDC_SQL_TOK_LPAREN) ||
                !parse_window_spec(p, d)) {
                ok = false;
                break;
            }
        } while (accept(p, CDC_SQL_TOK_COMMA));
    }
    for (size_t i = first; ok && i < p->nnamed; i++) {
        cdc_sql_over_t *o = p->named[i];
        const cdc_sql_over_t *d = NULL;
        for (size_t k = 0; k < ndefs && !d; k++)
            if (strcmp(defs[k]->name, o->name) == 0)
                d = defs[k];
        if (!d) {
            if (!p->err) { /* Calcite's words */
                p->err =
                    cdc_error_new(CDC_ERR_SQL, "%s:%d:%d: Window '%s' not found",
                                  p->filename ? p->filename : "<input>", o->line, o->col, o->name);
                char *caret = cdc_sql_caret(p->text, p->len, o->line, o->col);
                cdc_error_set_detail(p->err, "%s", caret);
                free(caret);
            }
            ok = false;
            break;
        }
        cdc_sql_over_t *c = cdc_sql_over_clone(d);
        free(c->name);
        c->name = o->name;
        c->line = o->line;
        c->col = o->col;
        *o = *c;
        free(c);
    }
    for (size_t k = 0; k < ndefs; k++)
        cdc_sql_over_destroy(defs[k]);
    free(defs);
    p->nnamed = first;
    return ok;
}

/* After GROUP BY and HAVING: clauses cdcflow does not run yet get their name in the error. */
static bool refuse_tail(parser_t *p)
{
    static const struct {
        const char *word, *what, *hint;
    } words[] = {
        {"WINDOW", "WINDOW", NULL},
        {"MATCH_RECOGNIZE", "MATCH_RECOGNIZE (pattern recognition)", NULL},
        {"TABLESAMPLE", "TABLESAMPLE", NULL},
        {"OFFSET", "OFFSET", NULL},
    };
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (at_kw(p, words[i].word))
            return cdc_sqlp_fail_unsupported(p, words[i].what, words[i].hint);
    if (at(p, CDC_SQL_TOK_COMMA) && at_udtf(p, 1))
        return fail_udtf(p, 1);
    if (at(p, CDC_SQL_TOK_COMMA))
        return cdc_sqlp_fail_unsupported(p, "a join written with \",\" in FROM",
                                         "write JOIN ... ON");
    return true;
}

/* True at the end of a query without FROM: ";", ")", the end of input, or END (statement set). */
static bool at_query_end(const parser_t *p)
{
    return at(p, CDC_SQL_TOK_SEMICOLON) || at(p, CDC_SQL_TOK_RPAREN) || at(p, CDC_SQL_TOK_EOF) ||
           at_kw(p, "END");
}

/* VALUES (e, ...), (e, ...): the rows of INSERT INTO t VALUES as a query (see nrows). */
cdc_sql_query_t *cdc_sqlp_parse_values(parser_t *p)
{
    const tok_t *start = cur(p);
    cdc_sql_query_t *q = cdc_xcalloc(1, sizeof(*q));
    q->line = start->line;
    q->col = start->col;
    advance(p); /* VALUES */
    do {
        const tok_t *open = cur(p);
        cdc_sql_values_row_t empty = {.line = open->line, .col = open->col};
        PUSH(q->rows, q->nrows, empty);
        cdc_sql_values_row_t *row = &q->rows[q->nrows - 1];
        if (!cdc_sqlp_expect(p, CDC_SQL_TOK_LPAREN) ||
            !parse_expr_list(p, &row->items, &row->nitems))
            goto fail;
        if (!cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN))
            goto fail;
        if (row->nitems != q->rows[0].nitems) {
            cdc_sqlp_fail_at(p, open, "every row of VALUES has the same number of values",
                             "row %zu of VALUES has %zu values, the first row has %zu", q->nrows,
                             row->nitems, q->rows[0].nitems);
            goto fail;
        }
    } while (accept(p, CDC_SQL_TOK_COMMA));
    q->text = source_text(p, start->offset, p->prev_end);
    return q;
fail:
    cdc_sql_query_destroy(q);
    return NULL;
}

/* Branch @p next of UNION ALL after @p first: as many columns (where "*" does not hide the
 * count: the planner checks those) and no LIMIT of its own (a LIMIT after the last branch would
 * limit the whole union, which is not supported). */
static bool check_union_branch(parser_t *p, const cdc_sql_query_t *first,
                               const cdc_sql_query_t *next, const tok_t *at_next)
{
    if (count_known(first) && count_known(next) && first->nitems != next->nitems) {
        cdc_sqlp_fail_at(p, at_next, "add or remove columns (CAST(NULL AS type) fills one)",
                         "this operand of a set operator (UNION, INTERSECT, EXCEPT) has %zu "
                         "columns, the first has %zu: every operand has the same number of "
                         "columns",
                         next->nitems, first->nitems);
        return false;
    }
    if (next->norder_by)
        return cdc_sqlp_fail_unsupported_at(p, next->order_line, next->order_col,
                                            "ORDER BY on a UNION ALL", NULL);
    if (next->has_limit)
        return cdc_sqlp_fail_unsupported_at(p, next->limit_line, next->limit_col,
                                            "LIMIT on a UNION ALL", NULL);
    return true;
}

bool cdc_sqlp_at_query(const parser_t *p)
{
    if (at(p, CDC_SQL_TOK_LPAREN))
        return peek_kw(p, 1, "SELECT") || peek_kw(p, 1, "WITH") || peek_kw(p, 1, "VALUES") ||
               peek(p, 1)->kind == CDC_SQL_TOK_LPAREN;
    return at_kw(p, "SELECT") || at_kw(p, "WITH") || at_kw(p, "VALUES");
}

/* VALUES (e, ...), ... as a query (a view's, a statement's): SELECT e, ... UNION ALL SELECT e,
 * ..., one SELECT without FROM per row, the columns named EXPR$i as Flink names them. */
static cdc_sql_query_t *parse_values_query(parser_t *p)
{
    cdc_sql_query_t *v = cdc_sqlp_parse_values(p);
    if (!v)
        return NULL;
    cdc_sql_query_t *first = NULL, **tail = &first;
    for (size_t r = 0; r < v->nrows; r++) {
        cdc_sql_values_row_t *row = &v->rows[r];
        cdc_sql_query_t *q = cdc_xcalloc(1, sizeof(*q));
        q->line = row->line;
        q->col = row->col;
        q->nitems = row->nitems;
        q->items = cdc_xcalloc(row->nitems, sizeof(*q->items));
        for (size_t k = 0; k < row->nitems; k++)
            q->items[k].expr = row->items[k];
        row->nitems = 0; /* the expressions moved to q */
        *tail = q;
        tail = &q->union_all;
    }
    first->text = v->text;
    v->text = NULL;
    cdc_sql_query_destroy(v);
    return first;
}

/* The end of parsing query @p q (entered with cdc_sqlp_enter): when @p ok its text from offset
 * @p start on, else q is destroyed. Returns q, or NULL when not ok. */
static cdc_sql_query_t *finish_query(parser_t *p, cdc_sql_query_t *q, size_t start, bool ok)
{
    cdc_sqlp_leave(p);
    if (!ok) {
        cdc_sql_query_destroy(q);
        return NULL;
    }
    free(q->text);
    q->text = source_text(p, start, p->prev_end);
    return q;
}

/* Whether the current token starts a set operator: UNION, INTERSECT, EXCEPT or MINUS. */
static bool at_set_op(const parser_t *p)
{
    return at_kw(p, "UNION") || at_kw(p, "INTERSECT") || at_kw(p, "EXCEPT") || at_kw(p, "MINUS");
}

/* SELECT * FROM (q): a query already combined, as the left operand of the next set operator. */
static cdc_sql_query_t *wrap_query(cdc_sql_query_t *q)
{
    cdc_sql_query_t *w = cdc_xcalloc(1, sizeof(*w));
    w->line = q->line;
    w->col = q->col;
    w->items = cdc_xcalloc(1, sizeof(*w->items));
    w->nitems = 1;
    w->items[0].expr = cdc_xcalloc(1, sizeof(cdc_sql_expr_t));
    w->items[0].expr->kind = CDC_SQL_EXPR_STAR;
    w->items[0].expr->line = q->line;
    w->items[0].expr->col = q->col;
    w->from.subquery = q;
    w->from.name.line = q->line;
    w->from.name.col = q->col;
    /* the WITH list stays visible to every operand: it moves to the outermost query */
    w->ctes = q->ctes;
    w->nctes = q->nctes;
    q->ctes = NULL;
    q->nctes = 0;
    return w;
}

/* One operand of a set operator: a SELECT or a query in parentheses, without the operators
 * after it. */
static cdc_sql_query_t *parse_set_operand(parser_t *p)
{
    if (!at_kw(p, "SELECT") && !at(p, CDC_SQL_TOK_LPAREN) && !at_kw(p, "VALUES")) {
        cdc_sqlp_fail_expected(p, "\"SELECT\" (the next operand of a set operator)");
        return NULL;
    }
    p->set_term = true;
    cdc_sql_query_t *q = cdc_sqlp_parse_query(p);
    p->set_term = false;
    return q; /* check_union_branch refuses its ORDER BY or LIMIT */
}

/* Combines *q with @p rhs by operator @p op (CDC_SQL_SET_NONE: UNION ALL), left to right. */
static void combine(cdc_sql_query_t **q, cdc_sql_set_op_t op, bool all, cdc_sql_query_t *rhs,
                    const tok_t *kw)
{
    if ((*q)->set_op)
        *q = wrap_query(*q);
    if (op == CDC_SQL_SET_NONE) {
        if (rhs->set_op)
            rhs = wrap_query(rhs);
        cdc_sql_query_t *last = *q;
        while (last->union_all)
            last = last->union_all;
        last->union_all = rhs;
        return;
    }
    (*q)->set_op = op;
    (*q)->set_all = all;
    (*q)->set_rhs = rhs;
    (*q)->set_line = kw->line;
    (*q)->set_col = kw->col;
}

/* The set operators after the first operand *q (one is current): UNION [ALL], INTERSECT [ALL],
 * EXCEPT [ALL] (MINUS), INTERSECT binding tighter than the others, each left-associative as in
 * Flink (Calcite). *q becomes the combined query. */
static bool parse_set_ops(parser_t *p, cdc_sql_query_t **q)
{
    while (at_set_op(p)) {
        const tok_t *kw = cur(p);
        cdc_sql_set_op_t op = tok_kw(p, kw, "UNION")       ? CDC_SQL_SET_UNION
                              : tok_kw(p, kw, "INTERSECT") ? CDC_SQL_SET_INTERSECT
                                                           : CDC_SQL_SET_EXCEPT;
        advance(p);
        bool all = accept_kw(p, "ALL");
        if (!all)
            accept_kw(p, "DISTINCT");
        const tok_t *at_next = cur(p);
        cdc_sql_query_t *rhs = parse_set_operand(p);
        /* INTERSECT binds tighter: it takes the right operand first */
        while (rhs && op != CDC_SQL_SET_INTERSECT && at_kw(p, "INTERSECT")) {
            const tok_t *ikw = cur(p);
            advance(p);
            bool iall = accept_kw(p, "ALL");
            if (!iall)
                accept_kw(p, "DISTINCT");
            cdc_sql_query_t *r2 = parse_set_operand(p);
            if (!r2) {
                cdc_sql_query_destroy(rhs);
                return false;
            }
            combine(&rhs, CDC_SQL_SET_INTERSECT, iall, r2, ikw);
        }
        if (!rhs)
            return false;
        if (!check_union_branch(p, *q, rhs, at_next)) {
            cdc_sql_query_destroy(rhs);
            return false;
        }
        combine(q, op == CDC_SQL_SET_UNION && all ? CDC_SQL_SET_NONE : op, all, rhs, kw);
    }
    return true;
}

/* ( query ) [UNION ALL branch ...]: a query in parentheses, as Flink's pages write the branches
 * of set operations. ORDER BY and LIMIT stay inside the parentheses of a lone query. */
static cdc_sql_query_t *parse_paren_query(parser_t *p, bool term)
{
    const tok_t *start = cur(p);
    if (!cdc_sqlp_enter(p))
        return NULL;
    advance(p); /* ( */
    cdc_sql_query_t *q = cdc_sqlp_parse_query(p);
    if (!q || !cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN) || !refuse_tail(p))
        goto fail;
    if (at_kw(p, "ORDER") || at_kw(p, "LIMIT")) {
        cdc_sqlp_fail_unsupported(p, "ORDER BY or LIMIT after a query in parentheses",
                                  "write it inside the parentheses");
        goto fail;
    }
    if (!term && at_set_op(p)) {
        if (q->norder_by || q->has_limit) {
            cdc_sqlp_fail_unsupported_at(p, q->has_limit ? q->limit_line : q->order_line,
                                         q->has_limit ? q->limit_col : q->order_col,
                                         "ORDER BY or LIMIT in an operand of a set operator", NULL);
            goto fail;
        }
        if (!parse_set_ops(p, &q))
            goto fail;
    }
    return finish_query(p, q, start->offset, true);
fail:
    return finish_query(p, q, 0, false);
}

cdc_sql_query_t *cdc_sqlp_parse_query(parser_t *p)
{
    const tok_t *start = cur(p);
    bool term = p->set_term; /* an operand of a set operator: the operators are the caller's */
    p->set_term = false;
    if (tok_kw(p, start, "VALUES"))
        return parse_values_query(p);
    if (start->kind == CDC_SQL_TOK_LPAREN && cdc_sqlp_at_query(p))
        return parse_paren_query(p, term);
    if (!tok_kw(p, start, "SELECT") && !tok_kw(p, start, "WITH")) {
        cdc_sqlp_fail_expected(p, "\"SELECT\"");
        return NULL;
    }
    if (!cdc_sqlp_enter(p))
        return NULL;
    cdc_sql_query_t *q = cdc_xcalloc(1, sizeof(*q));
    size_t named = p->nnamed; /* OVER w of this query from here on */
    q->line = start->line;
    q->col = start->col;
    if (at_kw(p, "WITH") && !parse_with(p, q))
        goto fail;
    if (!cdc_sqlp_expect_kw(p, "SELECT"))
        goto fail;
    if (!cdc_sqlp_parse_hints(p, &q->hints))
        goto fail;
    if (accept_kw(p, "DISTINCT"))
        q->distinct = true;
    else
        accept_kw(p, "ALL");
    for (;;) {
        PUSH(q->items, q->nitems, (cdc_sql_select_item_t){0});
        if (!parse_select_item(p, &q->items[q->nitems - 1]))
            goto fail;
        if (!accept(p, CDC_SQL_TOK_COMMA))
            break;
    }
    if (!accept_kw(p, "FROM")) {
        /* SELECT without FROM: one row of constants */
        if (!at_query_end(p) && !at_set_op(p)) {
            if (refuse_tail(p))
                cdc_sqlp_fail_expected(p, "\",\" or \"FROM\"");
            goto fail;
        }
    } else {
        if (!parse_from(p, q))
            goto fail;
        for (;;) {
            if (at(p, CDC_SQL_TOK_COMMA)) {
                /* FROM a, b: an inner join whose conditions are in WHERE */
                const tok_t *comma = cur(p);
                advance(p);
                PUSH(q->joins, q->njoins, (cdc_sql_join_t){0});
                cdc_sql_join_t *j = &q->joins[q->njoins - 1];
                j->kind = CDC_SQL_JOIN_INNER;
                j->comma = true;
                j->line = comma->line;
                j->col = comma->col;
                if (at_udtf(p, 0)) {
                    fail_udtf(p, 0);
                    goto fail;
                }
                accept_kw(p, "LATERAL");
                if (at_kw(p, "UNNEST")) { /* FROM t, UNNEST(t.a) AS u (x): a cross join */
                    if (!parse_unnest(p, &j->table))
                        goto fail;
                    continue;
                }
                if (at(p, CDC_SQL_TOK_LPAREN)) {
                    if (!parse_subquery_ref(p, &j->table))
                        goto fail;
                } else if (!cdc_sqlp_parse_name(p, &j->table.name, 3, "table name") ||
                           !cdc_sqlp_parse_hints(p, &j->table.hints)) {
                    goto fail;
                }
                if (!parse_alias(p, &j->table.alias, &j->table.alias_line, &j->table.alias_col))
                    goto fail;
                continue;
            }
            if (at_kw(p, "CROSS") && peek_kw(p, 1, "JOIN") &&
                (peek_kw(p, 2, "UNNEST") ||
                 (peek_kw(p, 2, "LATERAL") && peek_kw(p, 3, "UNNEST")))) {
                /* CROSS JOIN UNNEST(...): an inner join without a condition */
                PUSH(q->joins, q->njoins, (cdc_sql_join_t){0});
                cdc_sql_join_t *j = &q->joins[q->njoins - 1];
                j->kind = CDC_SQL_JOIN_INNER;
                j->comma = true;
                j->line = cur(p)->line;
                j->col = cur(p)->col;
                advance(p);
                advance(p);
                accept_kw(p, "LATERAL");
                if (!parse_unnest(p, &j->table))
                    goto fail;
                continue;
            }
            if (!(at_kw(p, "JOIN") || at_kw(p, "LEFT") || at_kw(p, "INNER") || at_kw(p, "RIGHT") ||
                  at_kw(p, "FULL")))
                break;
            if (!parse_join(p, q))
                goto fail;
        }
        if (at_kw(p, "CROSS") && peek_kw(p, 1, "JOIN") && at_udtf(p, 2)) {
            advance(p);
            advance(p);
            fail_udtf(p, 0);
            goto fail;
        }
        if (at_kw(p, "CROSS")) {
            cdc_sqlp_fail_unsupported(p, "CROSS JOIN", "write JOIN ... ON");
            goto fail;
        }
        if (accept_kw(p, "WHERE") && !(q->where = cdc_sqlp_parse_expr(p)))
            goto fail;
        if (!parse_group_by(p, q))
            goto fail;
    }
    if (!parse_window_clause(p, named))
        goto fail;
    if (!refuse_tail(p))
        goto fail;
    if (at_kw(p, "ORDER")) {
        q->order_line = cur(p)->line;
        q->order_col = cur(p)->col;
        advance(p);
        if (!cdc_sqlp_expect_kw(p, "BY") || !parse_order_items(p, &q->order_by, &q->norder_by))
            goto fail;
        if (at_set_op(p)) {
            cdc_sqlp_fail_unsupported_at(p, q->order_line, q->order_col,
                                         "ORDER BY on an operand of a set operator", NULL);
            goto fail;
        }
    }
    if (!term && at_set_op(p) && !parse_set_ops(p, &q))
        goto fail;
    if (q->set_op && at_kw(p, "LIMIT")) {
        cdc_sqlp_fail_unsupported(p, "LIMIT on the result of a set operator",
                                  "select from the query in a subquery and limit that");
        goto fail;
    }
    if (accept_kw(p, "LIMIT") && !parse_limit(p, q))
        goto fail;
    if (at_kw(p, "OFFSET") || at_kw(p, "FETCH")) {
        cdc_sqlp_fail_unsupported(p, at_kw(p, "OFFSET") ? "OFFSET" : "FETCH", "write LIMIT n");
        goto fail;
    }
    return finish_query(p, q, start->offset, true);
fail:
    p->nnamed = named < p->nnamed ? named : p->nnamed;
    return finish_query(p, q, 0, false);
}
