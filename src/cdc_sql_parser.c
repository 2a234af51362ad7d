/*
 * cdc_sql_parser.c — recursive-descent parser for cdcflow's Flink-style SQL,
 * the syntax tree's destroy/clone functions and the expression printer.
 *
 * The whole script is tokenized first. If the lexer fails, the tokens read
 * so far end with an EOF placeholder and the lexer's error is reported only
 * when the parser reaches that point, so errors come out in source order.
 *
 * Every parse function returns NULL/false on error after recording the first
 * error in the parser; partially built nodes are always attached to a parent
 * that the caller destroys, so nothing leaks on the error path.
 */
#include "cdc_sql_parser.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 200     /* nesting of expressions (parentheses, NOT, unary minus) */
#define MAX_TYPE_DEPTH 64 /* nesting of <> and () in a data type */
#define FOUND_MAX 40      /* longest token text quoted in a message */

typedef cdc_sql_token_t tok_t;

typedef struct parser {
    const char *text;
    size_t len;
    const char *filename;
    tok_t *toks; /* always ends with an EOF token */
    size_t ntoks;
    size_t pos;
    cdc_error_t *lex_err; /* lexing stopped at the final (placeholder) token */
    cdc_error_t *err;     /* first error */
    size_t prev_end;      /* end offset of the last consumed token */
    int depth;
} parser_t;

/* Appends one element to a malloc'ed array, growing it by one. */
#define PUSH(arr, count, value)                                                                    \
    do {                                                                                           \
        (arr) = cdc_xrealloc((arr), ((count) + 1) * sizeof(*(arr)));                               \
        (arr)[(count)++] = (value);                                                                \
    } while (0)

static void name_free(cdc_sql_name_t *name);

/* ---- tokens -------------------------------------------------------------------------------- */

static const tok_t *peek(const parser_t *p, size_t k)
{
    size_t i = p->pos + k;
    if (i >= p->ntoks)
        i = p->ntoks - 1;
    return &p->toks[i];
}

static const tok_t *cur(const parser_t *p)
{
    return peek(p, 0);
}

static bool at(const parser_t *p, cdc_sql_token_kind_t kind)
{
    return cur(p)->kind == kind;
}

static bool tok_kw(const parser_t *p, const tok_t *t, const char *kw)
{
    return cdc_sql_token_is_keyword(p->text, t, kw);
}

static bool at_kw(const parser_t *p, const char *kw)
{
    return tok_kw(p, cur(p), kw);
}

static bool peek_kw(const parser_t *p, size_t k, const char *kw)
{
    return tok_kw(p, peek(p, k), kw);
}

static void advance(parser_t *p)
{
    if (p->pos + 1 < p->ntoks) {
        const tok_t *t = &p->toks[p->pos];
        p->prev_end = t->offset + t->len;
        p->pos++;
    }
}

static bool accept(parser_t *p, cdc_sql_token_kind_t kind)
{
    if (!at(p, kind))
        return false;
    advance(p);
    return true;
}

static bool accept_kw(parser_t *p, const char *kw)
{
    if (!at_kw(p, kw))
        return false;
    advance(p);
    return true;
}

static char *tok_value(const parser_t *p, const tok_t *t)
{
    return cdc_sql_token_value(p->text, t);
}

static char *source_text(const parser_t *p, size_t start, size_t end)
{
    if (end < start)
        end = start;
    return cdc_xstrndup(p->text + start, end - start);
}

/* True for a token usable as an identifier: quoted, or a bare non-reserved word. */
static bool is_ident_tok(const parser_t *p, const tok_t *t)
{
    return t->kind == CDC_SQL_TOK_QUOTED_IDENT ||
           (t->kind == CDC_SQL_TOK_IDENT && !cdc_sql_is_reserved(p->text + t->offset, t->len));
}

static char *upper_dup(const char *s)
{
    char *out = cdc_xstrdup(s);
    for (char *c = out; *c; c++)
        if (*c >= 'a' && *c <= 'z')
            *c = (char)(*c - 'a' + 'A');
    return out;
}

/* ---- errors -------------------------------------------------------------------------------- */

/* The token as quoted in messages: "text" (cut at a line break or FOUND_MAX bytes), or
 * end of input. */
static char *describe_tok(const parser_t *p, const tok_t *t)
{
    if (t->kind == CDC_SQL_TOK_EOF)
        return cdc_xstrdup("end of input");
    const char *s = p->text + t->offset;
    size_t n = t->len;
    bool cut = false;
    const char *nl = memchr(s, '\n', n);
    if (nl) {
        n = (size_t)(nl - s);
        cut = true;
    }
    if (n > FOUND_MAX) {
        n = FOUND_MAX;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--; /* do not split a UTF-8 character */
        cut = true;
    }
    if (n > 0 && s[n - 1] == '\r')
        n--;
    return cdc_strdup_printf("\"%.*s%s\"", (int)n, s, cut ? "..." : "");
}

/* Records an error at token @p t unless one is already recorded. */
static void fail_at(parser_t *p, const tok_t *t, const char *hint, const char *fmt, ...)
    CDC_PRINTF(4, 5);

static void fail_at(parser_t *p, const tok_t *t, const char *hint, const char *fmt, ...)
{
    if (p->err)
        return;
    if (p->lex_err && t == &p->toks[p->ntoks - 1]) {
        /* The parser reached the point where lexing failed: that is the real error. */
        p->err = p->lex_err;
        p->lex_err = NULL;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    char *what = cdc_strdup_vprintf(fmt, ap);
    va_end(ap);
    p->err = cdc_sql_syntax_error(p->filename, p->text, p->len, t->line, t->col, "%s", what);
    free(what);
    if (hint)
        cdc_error_set_hint(p->err, "%s", hint);
}

/* "expected X, found Y" at the current token. Always returns false. */
static bool fail_expected_hint(parser_t *p, const char *expected, const char *hint)
{
    const tok_t *t = cur(p);
    char *found = describe_tok(p, t);
    fail_at(p, t, hint, "expected %s, found %s", expected, found);
    free(found);
    return false;
}

static bool fail_expected(parser_t *p, const char *expected)
{
    return fail_expected_hint(p, expected, NULL);
}

static bool expect(parser_t *p, cdc_sql_token_kind_t kind)
{
    if (accept(p, kind))
        return true;
    return fail_expected(p, cdc_sql_token_kind_name(kind));
}

static bool expect_kw(parser_t *p, const char *kw)
{
    if (accept_kw(p, kw))
        return true;
    char *quoted = cdc_strdup_printf("\"%s\"", kw);
    fail_expected(p, quoted);
    free(quoted);
    return false;
}

static bool enter(parser_t *p)
{
    if (++p->depth > MAX_DEPTH) {
        fail_at(p, cur(p), NULL, "expression is nested too deeply (more than %d levels)",
                MAX_DEPTH);
        return false;
    }
    return true;
}

static void leave(parser_t *p)
{
    p->depth--;
}

/* ---- identifiers, names, strings, options, types ------------------------------------------- */

static bool parse_ident(parser_t *p, cdc_sql_ident_t *out, const char *what)
{
    const tok_t *t = cur(p);
    if (!is_ident_tok(p, t)) {
        if (t->kind == CDC_SQL_TOK_IDENT) {
            char *hint = cdc_strdup_printf("\"%.*s\" is a reserved word; quote it with backticks "
                                           "to use it as a name: `%.*s`",
                                           (int)t->len, p->text + t->offset, (int)t->len,
                                           p->text + t->offset);
            fail_expected_hint(p, what, hint);
            free(hint);
            return false;
        }
        return fail_expected(p, what);
    }
    out->name = tok_value(p, t);
    out->line = t->line;
    out->col = t->col;
    advance(p);
    return true;
}

static bool parse_name(parser_t *p, cdc_sql_name_t *out, int max_parts, const char *what)
{
    cdc_sql_ident_t first;
    if (!parse_ident(p, &first, what))
        return false;
    out->parts[0] = first.name;
    out->nparts = 1;
    out->line = first.line;
    out->col = first.col;
    while (at(p, CDC_SQL_TOK_DOT)) {
        const tok_t *next = peek(p, 1);
        advance(p);
        /* After a dot any word is a name part, reserved or not: db.`table` and db.table agree. */
        if (next->kind != CDC_SQL_TOK_IDENT && next->kind != CDC_SQL_TOK_QUOTED_IDENT)
            return fail_expected(p, "identifier");
        if (out->nparts == max_parts) {
            const char *hint = max_parts == 1   ? "this name has a single part"
                               : max_parts == 2 ? "write the name as [catalog.]database"
                                                : "write the name as [catalog.][database.]object";
            fail_at(p, next, hint, "name has more than %d part%s", max_parts,
                    max_parts == 1 ? "" : "s");
            return false;
        }
        out->parts[out->nparts++] = tok_value(p, next);
        advance(p);
    }
    return true;
}

/* A string literal: value into *out, position into line/col (either may be NULL). */
static bool parse_string(parser_t *p, char **out, int *line, int *col)
{
    const tok_t *t = cur(p);
    if (t->kind != CDC_SQL_TOK_STRING)
        return fail_expected(p, "string literal");
    free(*out);
    *out = tok_value(p, t);
    if (line)
        *line = t->line;
    if (col)
        *col = t->col;
    advance(p);
    return true;
}

/* ( ident, ident, ... ) */
static bool parse_paren_ident_list(parser_t *p, cdc_sql_ident_list_t *list, const char *what)
{
    if (!expect(p, CDC_SQL_TOK_LPAREN))
        return false;
    for (;;) {
        cdc_sql_ident_t id;
        if (!parse_ident(p, &id, what))
            return false;
        PUSH(list->items, list->count, id);
        if (accept(p, CDC_SQL_TOK_COMMA))
            continue;
        if (accept(p, CDC_SQL_TOK_RPAREN))
            return true;
        return fail_expected(p, "\",\" or \")\"");
    }
}

/* WITH ( 'k' = 'v', ... ) — the WITH is already consumed. */
static bool parse_options(parser_t *p, cdc_sql_options_t *opts)
{
    static const char *hint = "write options as 'key' = 'value', both quoted";
    if (!expect(p, CDC_SQL_TOK_LPAREN))
        return false;
    if (accept(p, CDC_SQL_TOK_RPAREN))
        return true;
    for (;;) {
        if (!at(p, CDC_SQL_TOK_STRING))
            return fail_expected_hint(p, "string literal", hint);
        PUSH(opts->items, opts->count, (cdc_sql_option_t){0});
        cdc_sql_option_t *opt = &opts->items[opts->count - 1];
        parse_string(p, &opt->key, &opt->line, &opt->col);
        if (!expect(p, CDC_SQL_TOK_EQ))
            return false;
        if (!at(p, CDC_SQL_TOK_STRING))
            return fail_expected_hint(p, "string literal", hint);
        parse_string(p, &opt->value, &opt->value_line, &opt->value_col);
        if (accept(p, CDC_SQL_TOK_COMMA))
            continue;
        if (accept(p, CDC_SQL_TOK_RPAREN))
            return true;
        return fail_expected(p, "\",\" or \")\"");
    }
}

/* Words that may follow the first word of a type at the top level:
 * TIMESTAMP(3) WITH LOCAL TIME ZONE, TIME WITHOUT TIME ZONE, CHARACTER VARYING,
 * DOUBLE PRECISION, INT ARRAY, INT MULTISET, INTERVAL DAY(2) TO SECOND(3). */
static bool type_word_continues(const parser_t *p, const tok_t *t, const tok_t *next)
{
    static const char *const words[] = {"LOCAL", "TIME",     "ZONE",   "VARYING", "PRECISION",
                                        "ARRAY", "MULTISET", "TO",     "YEAR",    "MONTH",
                                        "DAY",   "HOUR",     "MINUTE", "SECOND"};
    if (tok_kw(p, t, "WITH") || tok_kw(p, t, "WITHOUT"))
        return tok_kw(p, next, "LOCAL") || tok_kw(p, next, "TIME");
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (tok_kw(p, t, words[i]))
            return true;
    return false;
}

/*
 * Captures a data type as source text without interpreting it. Inside <> and ()
 * anything goes (ROW<a INT NOT NULL 'comment'>); at the top level the type ends at the
 * first token that cannot continue it, so "INT NOT NULL", "INT METADATA", "INT," and
 * "INT)" all stop before the second token.
 */
static bool parse_type_text(parser_t *p, cdc_sql_type_text_t *out)
{
    const tok_t *first = cur(p);
    if (first->kind != CDC_SQL_TOK_IDENT)
        return fail_expected(p, "data type");
    char stack[MAX_TYPE_DEPTH]; /* expected closers: '>' or ')' */
    int depth = 0;
    advance(p);
    for (;;) {
        const tok_t *t = cur(p);
        const tok_t *prev = &p->toks[p->pos - 1];
        if (depth == 0) {
            bool opener = t->kind == CDC_SQL_TOK_LT || t->kind == CDC_SQL_TOK_LPAREN;
            if (opener ? prev->kind != CDC_SQL_TOK_IDENT
                       : !(t->kind == CDC_SQL_TOK_IDENT && type_word_continues(p, t, peek(p, 1))))
                break;
        }
        switch (t->kind) {
        case CDC_SQL_TOK_EOF:
        case CDC_SQL_TOK_SEMICOLON:
            return fail_expected(p, stack[depth - 1] == '>' ? "\">\"" : "\")\"");
        case CDC_SQL_TOK_LT:
        case CDC_SQL_TOK_LPAREN:
            if (depth == MAX_TYPE_DEPTH) {
                fail_at(p, t, NULL, "data type is nested too deeply");
                return false;
            }
            stack[depth++] = t->kind == CDC_SQL_TOK_LT ? '>' : ')';
            break;
        case CDC_SQL_TOK_GT:
        case CDC_SQL_TOK_RPAREN:
            if (stack[depth - 1] != (t->kind == CDC_SQL_TOK_GT ? '>' : ')'))
                return fail_expected(p, stack[depth - 1] == '>' ? "\">\"" : "\")\"");
            depth--;
            break;
        default:
            break;
        }
        advance(p);
    }
    out->text = source_text(p, first->offset, p->prev_end);
    out->line = first->line;
    out->col = first->col;
    return true;
}

/* [IF NOT EXISTS] */
static bool parse_if_not_exists(parser_t *p, bool *flag)
{
    if (!accept_kw(p, "IF"))
        return true;
    if (!expect_kw(p, "NOT") || !expect_kw(p, "EXISTS"))
        return false;
    *flag = true;
    return true;
}

/* [IF EXISTS] */
static bool parse_if_exists(parser_t *p, bool *flag)
{
    if (!accept_kw(p, "IF"))
        return true;
    if (!expect_kw(p, "EXISTS"))
        return false;
    *flag = true;
    return true;
}

/* ---- expressions --------------------------------------------------------------------------- */

static cdc_sql_expr_t *parse_expr(parser_t *p);
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
        cdc_sql_expr_t *arg = parse_expr(p);
        if (!arg)
            return drop_expr(e);
        push_arg(e, arg);
        if (accept(p, CDC_SQL_TOK_COMMA))
            continue;
        if (accept(p, CDC_SQL_TOK_RPAREN))
            return e;
        fail_expected(p, "\",\" or \")\"");
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
    cdc_sql_expr_t *arg = parse_expr(p);
    if (!arg)
        return drop_expr(e);
    push_arg(e, arg);
    if (accept_kw(p, "FROM")) {
        if (!(arg = parse_expr(p)))
            return drop_expr(e);
        push_arg(e, arg);
        if (accept_kw(p, "FOR")) {
            if (!(arg = parse_expr(p)))
                return drop_expr(e);
            push_arg(e, arg);
        }
        if (!expect(p, CDC_SQL_TOK_RPAREN))
            return drop_expr(e);
        return e;
    }
    while (accept(p, CDC_SQL_TOK_COMMA)) {
        if (!(arg = parse_expr(p)))
            return drop_expr(e);
        push_arg(e, arg);
    }
    if (!accept(p, CDC_SQL_TOK_RPAREN)) {
        fail_expected(p, "\"FROM\", \",\" or \")\"");
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
        if (!(e->call.args[2] = parse_expr(p)))
            return drop_expr(e);
    } else {
        cdc_sql_expr_t *first = parse_expr(p);
        if (!first)
            return drop_expr(e);
        if (accept_kw(p, "FROM")) {
            e->call.args[1] = first;
            if (!(e->call.args[2] = parse_expr(p)))
                return drop_expr(e);
        } else if (explicit_mode) {
            cdc_sql_expr_destroy(first);
            fail_expected(p, "\"FROM\"");
            return drop_expr(e);
        } else {
            e->call.args[2] = first;
        }
    }
    if (!e->call.args[1])
        e->call.args[1] = literal_new(CDC_SQL_LIT_STRING, start, cdc_xstrdup(" "));
    if (!expect(p, CDC_SQL_TOK_RPAREN))
        return drop_expr(e);
    return e;
}

/* CAST / TRY_CAST ( expr AS type ) */
static cdc_sql_expr_t *parse_cast(parser_t *p, bool try_cast)
{
    cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_CAST, cur(p));
    e->cast.try_cast = try_cast;
    advance(p);
    advance(p);
    if (!(e->cast.operand = parse_expr(p)))
        return drop_expr(e);
    if (!expect_kw(p, "AS") || !parse_type_text(p, &e->cast.type) || !expect(p, CDC_SQL_TOK_RPAREN))
        return drop_expr(e);
    return e;
}

static cdc_sql_expr_t *parse_case(parser_t *p)
{
    cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_CASE, cur(p));
    advance(p);
    if (!at_kw(p, "WHEN")) {
        if (!(e->case_expr.operand = parse_expr(p)))
            return drop_expr(e);
        if (!at_kw(p, "WHEN")) {
            fail_expected(p, "\"WHEN\"");
            return drop_expr(e);
        }
    }
    while (accept_kw(p, "WHEN")) {
        PUSH(e->case_expr.whens, e->case_expr.nwhens, (cdc_sql_case_when_t){0});
        cdc_sql_case_when_t *w = &e->case_expr.whens[e->case_expr.nwhens - 1];
        if (!(w->when = parse_expr(p)) || !expect_kw(p, "THEN") || !(w->then = parse_expr(p)))
            return drop_expr(e);
    }
    if (accept_kw(p, "ELSE")) {
        if (!(e->case_expr.else_expr = parse_expr(p)))
            return drop_expr(e);
        if (!expect_kw(p, "END"))
            return drop_expr(e);
        return e;
    }
    if (!accept_kw(p, "END")) {
        fail_expected(p, "\"WHEN\", \"ELSE\" or \"END\"");
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
    parse_string(p, &e->literal.text, NULL, NULL);
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
            fail_expected(p, "\"YEAR\", \"MONTH\", \"DAY\", \"HOUR\", \"MINUTE\" or \"SECOND\"");
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
    case CDC_SQL_TOK_LPAREN: {
        advance(p);
        cdc_sql_expr_t *e = parse_expr(p);
        if (!e)
            return NULL;
        if (!expect(p, CDC_SQL_TOK_RPAREN))
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
        fail_expected(p, "expression");
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
    if (next->kind == CDC_SQL_TOK_LPAREN) {
        if (tok_kw(p, t, "CAST"))
            return parse_cast(p, false);
        if (tok_kw(p, t, "TRY_CAST"))
            return parse_cast(p, true);
        if (tok_kw(p, t, "SUBSTRING"))
            return parse_substring(p);
        if (tok_kw(p, t, "TRIM"))
            return parse_trim(p);
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
        fail_expected(p, "expression");
        return NULL;
    }
    return parse_column_ref(p);
}

/* primary { [ index ] } */
static cdc_sql_expr_t *parse_postfix(parser_t *p)
{
    cdc_sql_expr_t *e = parse_primary(p);
    while (e && at(p, CDC_SQL_TOK_LBRACKET)) {
        cdc_sql_expr_t *s = expr_new(CDC_SQL_EXPR_SUBSCRIPT, cur(p));
        s->subscript.base = e;
        e = s;
        advance(p);
        if (!(s->subscript.index = parse_expr(p)) || !expect(p, CDC_SQL_TOK_RBRACKET))
            return drop_expr(e);
    }
    return e;
}

static cdc_sql_expr_t *parse_unary(parser_t *p)
{
    const tok_t *t = cur(p);
    if (t->kind != CDC_SQL_TOK_MINUS && t->kind != CDC_SQL_TOK_PLUS)
        return parse_postfix(p);
    if (!enter(p))
        return NULL;
    advance(p);
    cdc_sql_expr_t *operand = parse_unary(p);
    leave(p);
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
        if (!expect(p, CDC_SQL_TOK_LPAREN))
            return drop_expr(e);
        for (;;) {
            cdc_sql_expr_t *item = parse_expr(p);
            if (!item)
                return drop_expr(e);
            PUSH(e->in_list.items, e->in_list.nitems, item);
            if (accept(p, CDC_SQL_TOK_COMMA))
                continue;
            if (accept(p, CDC_SQL_TOK_RPAREN))
                return e;
            fail_expected(p, "\",\" or \")\"");
            return drop_expr(e);
        }
    }
    if (accept_kw(p, "BETWEEN")) {
        e = expr_new(CDC_SQL_EXPR_BETWEEN, start);
        e->between.operand = operand;
        e->between.negated = negated;
        if (!(e->between.low = parse_concat(p)) || !expect_kw(p, "AND") ||
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
        } else if (tok_kw(p, t, "IS")) {
            advance(p);
            cdc_sql_expr_t *e = expr_new(CDC_SQL_EXPR_IS_NULL, t);
            e->is_null.operand = left;
            left = e;
            e->is_null.negated = accept_kw(p, "NOT");
            if (!accept_kw(p, "NULL")) {
                fail_expected(p, e->is_null.negated ? "\"NULL\"" : "\"NULL\" or \"NOT NULL\"");
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
    if (!enter(p))
        return NULL;
    advance(p);
    cdc_sql_expr_t *operand = parse_not(p);
    leave(p);
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

static cdc_sql_expr_t *parse_expr(parser_t *p)
{
    if (!enter(p))
        return NULL;
    cdc_sql_expr_t *e = parse_or(p);
    leave(p);
    return e;
}

/* ---- queries ------------------------------------------------------------------------------- */

/* [AS] alias, where a bare alias must be a non-reserved word. */
static bool parse_alias(parser_t *p, char **alias, int *line, int *col)
{
    cdc_sql_ident_t id;
    if (accept_kw(p, "AS")) {
        if (!parse_ident(p, &id, "alias"))
            return false;
    } else if (is_ident_tok(p, cur(p))) {
        parse_ident(p, &id, "alias");
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
    if (!(item->expr = parse_expr(p)))
        return false;
    return parse_alias(p, &item->alias, &item->alias_line, &item->alias_col);
}

static bool parse_table_ref(parser_t *p, cdc_sql_table_ref_t *ref, bool lookup)
{
    if (!parse_name(p, &ref->name, 3, "table name"))
        return false;
    if (lookup)
        return true; /* the alias comes after FOR SYSTEM_TIME AS OF */
    return parse_alias(p, &ref->alias, &ref->alias_line, &ref->alias_col);
}

static bool parse_join(parser_t *p, cdc_sql_query_t *q)
{
    const tok_t *start = cur(p);
    PUSH(q->joins, q->njoins, (cdc_sql_join_t){0});
    cdc_sql_join_t *j = &q->joins[q->njoins - 1];
    j->kind = CDC_SQL_JOIN_INNER;
    j->line = start->line;
    j->col = start->col;
    if (accept_kw(p, "LEFT")) {
        j->kind = CDC_SQL_JOIN_LEFT;
        accept_kw(p, "OUTER");
    } else {
        accept_kw(p, "INNER");
    }
    if (!expect_kw(p, "JOIN") || !parse_table_ref(p, &j->table, true))
        return false;
    if (accept_kw(p, "FOR")) {
        if (!expect_kw(p, "SYSTEM_TIME") || !expect_kw(p, "AS") || !expect_kw(p, "OF") ||
            !(j->system_time = parse_expr(p)))
            return false;
    }
    if (!parse_alias(p, &j->table.alias, &j->table.alias_line, &j->table.alias_col))
        return false;
    if (!expect_kw(p, "ON") || !(j->on = parse_expr(p)))
        return false;
    return true;
}

static bool parse_limit(parser_t *p, cdc_sql_query_t *q)
{
    const tok_t *t = cur(p);
    if (t->kind != CDC_SQL_TOK_INTEGER)
        return fail_expected(p, "non-negative integer");
    long long v = 0;
    for (size_t i = 0; i < t->len; i++) {
        int d = p->text[t->offset + i] - '0';
        if (v > (LLONG_MAX - d) / 10) {
            char *found = describe_tok(p, t);
            fail_at(p, t, NULL, "LIMIT value %s is out of range", found);
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

static cdc_sql_query_t *parse_query(parser_t *p)
{
    const tok_t *start = cur(p);
    if (!tok_kw(p, start, "SELECT")) {
        fail_expected(p, "\"SELECT\"");
        return NULL;
    }
    cdc_sql_query_t *q = cdc_xcalloc(1, sizeof(*q));
    q->line = start->line;
    q->col = start->col;
    advance(p);
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
        fail_expected(p, "\",\" or \"FROM\"");
        goto fail;
    }
    if (!parse_table_ref(p, &q->from, false))
        goto fail;
    while (at_kw(p, "JOIN") || at_kw(p, "LEFT") || at_kw(p, "INNER"))
        if (!parse_join(p, q))
            goto fail;
    if (accept_kw(p, "WHERE") && !(q->where = parse_expr(p)))
        goto fail;
    if (accept_kw(p, "LIMIT") && !parse_limit(p, q))
        goto fail;
    q->text = source_text(p, start->offset, p->prev_end);
    return q;
fail:
    cdc_sql_query_destroy(q);
    return NULL;
}

/* ---- CREATE TABLE -------------------------------------------------------------------------- */

/* [CONSTRAINT name] PRIMARY KEY [(cols)] NOT ENFORCED; @p col is set for the inline form. */
static bool parse_primary_key(parser_t *p, cdc_sql_create_table_t *ct, const cdc_sql_column_t *col)
{
    const tok_t *start = cur(p);
    if (ct->primary_key) {
        fail_at(p, start, "a table has at most one primary key, possibly over several columns",
                "duplicate primary key definition");
        return false;
    }
    cdc_sql_primary_key_t *pk = cdc_xcalloc(1, sizeof(*pk));
    ct->primary_key = pk;
    pk->line = start->line;
    pk->col = start->col;
    pk->is_inline = col != NULL;
    if (accept_kw(p, "CONSTRAINT")) {
        cdc_sql_ident_t id;
        if (!parse_ident(p, &id, "constraint name"))
            return false;
        pk->constraint_name = id.name;
    }
    if (!expect_kw(p, "PRIMARY") || !expect_kw(p, "KEY"))
        return false;
    if (col) {
        cdc_sql_ident_t id = {cdc_xstrdup(col->name), col->line, col->col};
        PUSH(pk->columns.items, pk->columns.count, id);
    } else if (!parse_paren_ident_list(p, &pk->columns, "column name")) {
        return false;
    }
    if (!(at_kw(p, "NOT") && peek_kw(p, 1, "ENFORCED")))
        return fail_expected_hint(p, "\"NOT ENFORCED\"",
                                  "Flink requires primary keys to be declared NOT ENFORCED: it "
                                  "does not own the data and cannot enforce the constraint");
    advance(p);
    advance(p);
    return true;
}

static bool parse_column(parser_t *p, cdc_sql_create_table_t *ct)
{
    PUSH(ct->columns, ct->ncolumns, (cdc_sql_column_t){0});
    cdc_sql_column_t *col = &ct->columns[ct->ncolumns - 1];
    cdc_sql_ident_t id;
    if (!parse_ident(p, &id, "column definition"))
        return false;
    col->name = id.name;
    col->line = id.line;
    col->col = id.col;
    if (accept_kw(p, "AS")) {
        col->kind = CDC_SQL_COLUMN_COMPUTED;
        if (!(col->expr = parse_expr(p)))
            return false;
        if (accept_kw(p, "COMMENT") && !parse_string(p, &col->comment, NULL, NULL))
            return false;
        return true;
    }
    col->kind = CDC_SQL_COLUMN_PHYSICAL;
    if (!parse_type_text(p, &col->type))
        return false;
    for (;;) {
        if (accept_kw(p, "METADATA")) {
            col->kind = CDC_SQL_COLUMN_METADATA;
            if (accept_kw(p, "FROM") && !parse_string(p, &col->metadata_key, NULL, NULL))
                return false;
            if (accept_kw(p, "VIRTUAL"))
                col->is_virtual = true;
        } else if (accept_kw(p, "NOT")) {
            if (!expect_kw(p, "NULL"))
                return false;
            col->not_null = true;
        } else if (accept_kw(p, "NULL")) {
            col->not_null = false;
        } else if (at_kw(p, "PRIMARY") || at_kw(p, "CONSTRAINT")) {
            if (!parse_primary_key(p, ct, col))
                return false;
        } else if (accept_kw(p, "COMMENT")) {
            if (!parse_string(p, &col->comment, NULL, NULL))
                return false;
        } else {
            return true;
        }
    }
}

static bool parse_watermark(parser_t *p, cdc_sql_create_table_t *ct)
{
    const tok_t *start = cur(p);
    if (ct->watermark) {
        fail_at(p, start, NULL, "multiple WATERMARK definitions are not supported");
        return false;
    }
    cdc_sql_watermark_t *wm = cdc_xcalloc(1, sizeof(*wm));
    ct->watermark = wm;
    wm->line = start->line;
    wm->col = start->col;
    advance(p); /* WATERMARK */
    advance(p); /* FOR */
    if (!parse_ident(p, &wm->column, "column name") || !expect_kw(p, "AS") ||
        !(wm->expr = parse_expr(p)))
        return false;
    return true;
}

static bool parse_table_elements(parser_t *p, cdc_sql_create_table_t *ct)
{
    advance(p); /* ( */
    for (;;) {
        bool ok;
        if (at_kw(p, "PRIMARY") || at_kw(p, "CONSTRAINT"))
            ok = parse_primary_key(p, ct, NULL);
        else if (at_kw(p, "WATERMARK") && peek_kw(p, 1, "FOR"))
            ok = parse_watermark(p, ct);
        else
            ok = parse_column(p, ct);
        if (!ok)
            return false;
        if (accept(p, CDC_SQL_TOK_COMMA))
            continue;
        if (accept(p, CDC_SQL_TOK_RPAREN))
            return true;
        return fail_expected(p, "\",\" or \")\"");
    }
}

static bool parse_like_clause(parser_t *p, cdc_sql_create_table_t *ct)
{
    static const struct {
        const char *word;
        cdc_sql_like_feature_t feature;
        bool overwritable;
    } features[] = {
        {"ALL", CDC_SQL_LIKE_ALL, false},
        {"CONSTRAINTS", CDC_SQL_LIKE_CONSTRAINTS, false},
        {"GENERATED", CDC_SQL_LIKE_GENERATED, true},
        {"METADATA", CDC_SQL_LIKE_METADATA, true},
        {"OPTIONS", CDC_SQL_LIKE_OPTIONS, true},
        {"PARTITIONS", CDC_SQL_LIKE_PARTITIONS, false},
        {"WATERMARKS", CDC_SQL_LIKE_WATERMARKS, true},
    };
    const tok_t *start = cur(p);
    cdc_sql_like_t *like = cdc_xcalloc(1, sizeof(*like));
    ct->like = like;
    like->line = start->line;
    like->col = start->col;
    advance(p); /* LIKE */
    if (!parse_name(p, &like->source, 3, "table name"))
        return false;
    if (!accept(p, CDC_SQL_TOK_LPAREN))
        return true;
    for (;;) {
        const tok_t *mt = cur(p);
        cdc_sql_like_option_t opt = {0};
        opt.line = mt->line;
        opt.col = mt->col;
        if (tok_kw(p, mt, "INCLUDING"))
            opt.mode = CDC_SQL_LIKE_INCLUDING;
        else if (tok_kw(p, mt, "EXCLUDING"))
            opt.mode = CDC_SQL_LIKE_EXCLUDING;
        else if (tok_kw(p, mt, "OVERWRITING"))
            opt.mode = CDC_SQL_LIKE_OVERWRITING;
        else
            return fail_expected(p, like->noptions ? "\"INCLUDING\", \"EXCLUDING\", "
                                                     "\"OVERWRITING\" or \")\""
                                                   : "\"INCLUDING\", \"EXCLUDING\" or "
                                                     "\"OVERWRITING\"");
        advance(p);
        const tok_t *ft = cur(p);
        size_t i = 0;
        while (i < sizeof(features) / sizeof(features[0]) && !tok_kw(p, ft, features[i].word))
            i++;
        if (i == sizeof(features) / sizeof(features[0]))
            return fail_expected(p, "\"ALL\", \"CONSTRAINTS\", \"GENERATED\", \"METADATA\", "
                                    "\"OPTIONS\", \"PARTITIONS\" or \"WATERMARKS\"");
        if (opt.mode == CDC_SQL_LIKE_OVERWRITING && !features[i].overwritable) {
            fail_at(p, mt, "use INCLUDING or EXCLUDING", "OVERWRITING cannot be used with %s",
                    features[i].word);
            return false;
        }
        opt.feature = features[i].feature;
        advance(p);
        PUSH(like->options, like->noptions, opt);
        accept(p, CDC_SQL_TOK_COMMA);
        if (accept(p, CDC_SQL_TOK_RPAREN))
            return true;
    }
}

static bool parse_create_table(parser_t *p, cdc_sql_stmt_t *stmt, bool temporary)
{
    cdc_sql_create_table_t *ct = &stmt->create_table;
    stmt->kind = CDC_SQL_STMT_CREATE_TABLE;
    ct->temporary = temporary;
    advance(p); /* TABLE */
    if (!parse_if_not_exists(p, &ct->if_not_exists) || !parse_name(p, &ct->name, 3, "table name"))
        return false;
    if (at(p, CDC_SQL_TOK_LPAREN)) {
        if (!parse_table_elements(p, ct))
            return false;
    } else if (!at_kw(p, "COMMENT") && !at_kw(p, "PARTITIONED") && !at_kw(p, "WITH") &&
               !at_kw(p, "LIKE")) {
        return fail_expected(p, "\"(\"");
    }
    if (accept_kw(p, "COMMENT") && !parse_string(p, &ct->comment, NULL, NULL))
        return false;
    if (accept_kw(p, "PARTITIONED")) {
        if (!expect_kw(p, "BY") || !parse_paren_ident_list(p, &ct->partitioned_by, "column name"))
            return false;
    }
    if (accept_kw(p, "WITH") && !parse_options(p, &ct->options))
        return false;
    if (at_kw(p, "LIKE") && !parse_like_clause(p, ct))
        return false;
    return true;
}

/* ---- other statements ---------------------------------------------------------------------- */

static bool parse_create_view(parser_t *p, cdc_sql_stmt_t *stmt, bool temporary)
{
    cdc_sql_create_view_t *cv = &stmt->create_view;
    stmt->kind = CDC_SQL_STMT_CREATE_VIEW;
    cv->temporary = temporary;
    advance(p); /* VIEW */
    if (!parse_if_not_exists(p, &cv->if_not_exists) || !parse_name(p, &cv->name, 3, "view name"))
        return false;
    if (at(p, CDC_SQL_TOK_LPAREN) && !parse_paren_ident_list(p, &cv->columns, "column name"))
        return false;
    if (accept_kw(p, "COMMENT") && !parse_string(p, &cv->comment, NULL, NULL))
        return false;
    if (!expect_kw(p, "AS"))
        return false;
    return (cv->query = parse_query(p)) != NULL;
}

static bool parse_create_function(parser_t *p, cdc_sql_stmt_t *stmt, bool temporary, bool system)
{
    cdc_sql_create_function_t *cf = &stmt->create_function;
    stmt->kind = CDC_SQL_STMT_CREATE_FUNCTION;
    cf->temporary = temporary;
    cf->system = system;
    advance(p); /* FUNCTION */
    if (!parse_if_not_exists(p, &cf->if_not_exists) ||
        !parse_name(p, &cf->name, system ? 1 : 3, "function name") || !expect_kw(p, "AS") ||
        !parse_string(p, &cf->identifier, &cf->identifier_line, &cf->identifier_col))
        return false;
    if (accept_kw(p, "LANGUAGE")) {
        if (!at(p, CDC_SQL_TOK_IDENT))
            return fail_expected(p, "language name");
        char *word = tok_value(p, cur(p));
        cf->language = upper_dup(word);
        free(word);
        advance(p);
    }
    return true;
}

static bool parse_create(parser_t *p, cdc_sql_stmt_t *stmt)
{
    advance(p); /* CREATE */
    bool temporary = accept_kw(p, "TEMPORARY");
    bool system = temporary && accept_kw(p, "SYSTEM");
    if (at_kw(p, "FUNCTION"))
        return parse_create_function(p, stmt, temporary, system);
    if (system)
        return fail_expected(p, "\"FUNCTION\"");
    if (at_kw(p, "TABLE"))
        return parse_create_table(p, stmt, temporary);
    if (at_kw(p, "VIEW"))
        return parse_create_view(p, stmt, temporary);
    if (temporary)
        return fail_expected(p, "\"TABLE\", \"VIEW\" or \"FUNCTION\"");
    if (accept_kw(p, "CATALOG")) {
        cdc_sql_create_catalog_t *cc = &stmt->create_catalog;
        stmt->kind = CDC_SQL_STMT_CREATE_CATALOG;
        return parse_if_not_exists(p, &cc->if_not_exists) &&
               parse_name(p, &cc->name, 1, "catalog name") && expect_kw(p, "WITH") &&
               parse_options(p, &cc->options);
    }
    if (accept_kw(p, "DATABASE")) {
        cdc_sql_create_database_t *cd = &stmt->create_database;
        stmt->kind = CDC_SQL_STMT_CREATE_DATABASE;
        if (!parse_if_not_exists(p, &cd->if_not_exists) ||
            !parse_name(p, &cd->name, 2, "database name"))
            return false;
        if (accept_kw(p, "COMMENT") && !parse_string(p, &cd->comment, NULL, NULL))
            return false;
        if (accept_kw(p, "WITH") && !parse_options(p, &cd->options))
            return false;
        return true;
    }
    return fail_expected(p, "\"TABLE\", \"VIEW\", \"FUNCTION\", \"CATALOG\" or \"DATABASE\"");
}

static bool parse_drop(parser_t *p, cdc_sql_stmt_t *stmt)
{
    cdc_sql_drop_t *d = &stmt->drop;
    advance(p); /* DROP */
    d->temporary = accept_kw(p, "TEMPORARY");
    d->system = d->temporary && accept_kw(p, "SYSTEM");
    int max_parts = 3;
    const char *what = "table name";
    if (accept_kw(p, "FUNCTION")) {
        stmt->kind = CDC_SQL_STMT_DROP_FUNCTION;
        what = "function name";
        max_parts = d->system ? 1 : 3;
    } else if (d->system) {
        return fail_expected(p, "\"FUNCTION\"");
    } else if (accept_kw(p, "TABLE")) {
        stmt->kind = CDC_SQL_STMT_DROP_TABLE;
    } else if (accept_kw(p, "VIEW")) {
        stmt->kind = CDC_SQL_STMT_DROP_VIEW;
        what = "view name";
    } else if (d->temporary) {
        return fail_expected(p, "\"TABLE\", \"VIEW\" or \"FUNCTION\"");
    } else if (accept_kw(p, "CATALOG")) {
        stmt->kind = CDC_SQL_STMT_DROP_CATALOG;
        what = "catalog name";
        max_parts = 1;
    } else if (accept_kw(p, "DATABASE")) {
        stmt->kind = CDC_SQL_STMT_DROP_DATABASE;
        what = "database name";
        max_parts = 2;
    } else {
        return fail_expected(p, "\"TABLE\", \"VIEW\", \"FUNCTION\", \"CATALOG\" or \"DATABASE\"");
    }
    if (!parse_if_exists(p, &d->if_exists) || !parse_name(p, &d->name, max_parts, what))
        return false;
    if (stmt->kind == CDC_SQL_STMT_DROP_DATABASE) {
        if (accept_kw(p, "CASCADE"))
            d->cascade = true;
        else
            accept_kw(p, "RESTRICT");
    }
    return true;
}

static bool parse_use(parser_t *p, cdc_sql_stmt_t *stmt)
{
    advance(p); /* USE */
    if (at_kw(p, "CATALOG") && is_ident_tok(p, peek(p, 1))) {
        advance(p);
        stmt->kind = CDC_SQL_STMT_USE_CATALOG;
        return parse_name(p, &stmt->use, 1, "catalog name");
    }
    stmt->kind = CDC_SQL_STMT_USE_DATABASE;
    return parse_name(p, &stmt->use, 2, "database name");
}

static bool parse_show(parser_t *p, cdc_sql_stmt_t *stmt)
{
    static const struct {
        const char *word;
        cdc_sql_show_kind_t kind;
    } lists[] = {
        {"CATALOGS", CDC_SQL_SHOW_CATALOGS},   {"DATABASES", CDC_SQL_SHOW_DATABASES},
        {"TABLES", CDC_SQL_SHOW_TABLES},       {"VIEWS", CDC_SQL_SHOW_VIEWS},
        {"FUNCTIONS", CDC_SQL_SHOW_FUNCTIONS},
    };
    advance(p); /* SHOW */
    for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
        if (accept_kw(p, lists[i].word)) {
            stmt->kind = CDC_SQL_STMT_SHOW;
            stmt->show = lists[i].kind;
            return true;
        }
    }
    if (accept_kw(p, "CURRENT")) {
        stmt->kind = CDC_SQL_STMT_SHOW;
        if (accept_kw(p, "CATALOG"))
            stmt->show = CDC_SQL_SHOW_CURRENT_CATALOG;
        else if (accept_kw(p, "DATABASE"))
            stmt->show = CDC_SQL_SHOW_CURRENT_DATABASE;
        else
            return fail_expected(p, "\"CATALOG\" or \"DATABASE\"");
        return true;
    }
    if (accept_kw(p, "PARTITIONS")) {
        stmt->kind = CDC_SQL_STMT_SHOW_PARTITIONS;
        return parse_name(p, &stmt->show_create.name, 3, "table name");
    }
    if (accept_kw(p, "CREATE")) {
        stmt->kind = CDC_SQL_STMT_SHOW_CREATE;
        if (accept_kw(p, "VIEW"))
            stmt->show_create.view = true;
        else if (!accept_kw(p, "TABLE"))
            return fail_expected(p, "\"TABLE\" or \"VIEW\"");
        return parse_name(p, &stmt->show_create.name, 3,
                          stmt->show_create.view ? "view name" : "table name");
    }
    return fail_expected(p, "\"CATALOGS\", \"DATABASES\", \"TABLES\", \"VIEWS\", \"FUNCTIONS\", "
                            "\"CURRENT\", \"PARTITIONS\" or \"CREATE\"");
}

/* SET ['k' = 'v'] and RESET ['k']. */
static bool parse_set(parser_t *p, cdc_sql_stmt_t *stmt, bool reset)
{
    static const char *hint = "quote the key and the value: SET 'key' = 'value'";
    cdc_sql_set_t *s = &stmt->set;
    stmt->kind = reset ? CDC_SQL_STMT_RESET : CDC_SQL_STMT_SET;
    advance(p);
    if (at(p, CDC_SQL_TOK_SEMICOLON) || at(p, CDC_SQL_TOK_EOF))
        return true;
    if (!at(p, CDC_SQL_TOK_STRING))
        return fail_expected_hint(p, "string literal", reset ? NULL : hint);
    parse_string(p, &s->key, &s->key_line, &s->key_col);
    if (reset)
        return true;
    if (!expect(p, CDC_SQL_TOK_EQ))
        return false;
    if (!at(p, CDC_SQL_TOK_STRING))
        return fail_expected_hint(p, "string literal", hint);
    parse_string(p, &s->value, &s->value_line, &s->value_col);
    return true;
}

/* PARTITION (k = 'v', k2 = 12) */
static bool parse_partition_spec(parser_t *p, cdc_sql_options_t *spec)
{
    if (!expect(p, CDC_SQL_TOK_LPAREN))
        return false;
    for (;;) {
        cdc_sql_ident_t key;
        if (!parse_ident(p, &key, "column name"))
            return false;
        PUSH(spec->items, spec->count, (cdc_sql_option_t){0});
        cdc_sql_option_t *opt = &spec->items[spec->count - 1];
        opt->key = key.name;
        opt->line = key.line;
        opt->col = key.col;
        if (!expect(p, CDC_SQL_TOK_EQ))
            return false;
        const tok_t *v = cur(p);
        if (v->kind != CDC_SQL_TOK_STRING && v->kind != CDC_SQL_TOK_INTEGER &&
            v->kind != CDC_SQL_TOK_DECIMAL)
            return fail_expected(p, "literal");
        opt->value = tok_value(p, v);
        opt->value_line = v->line;
        opt->value_col = v->col;
        advance(p);
        if (accept(p, CDC_SQL_TOK_COMMA))
            continue;
        if (accept(p, CDC_SQL_TOK_RPAREN))
            return true;
        return fail_expected(p, "\",\" or \")\"");
    }
}

static bool parse_insert(parser_t *p, cdc_sql_stmt_t *stmt)
{
    cdc_sql_insert_t *ins = &stmt->insert;
    stmt->kind = CDC_SQL_STMT_INSERT;
    advance(p); /* INSERT */
    if (accept_kw(p, "OVERWRITE"))
        ins->overwrite = true;
    else if (!accept_kw(p, "INTO"))
        return fail_expected(p, "\"INTO\" or \"OVERWRITE\"");
    if (!parse_name(p, &ins->table, 3, "table name"))
        return false;
    if (accept_kw(p, "PARTITION") && !parse_partition_spec(p, &ins->partition))
        return false;
    if (at(p, CDC_SQL_TOK_LPAREN) && !parse_paren_ident_list(p, &ins->columns, "column name"))
        return false;
    return (ins->query = parse_query(p)) != NULL;
}

static cdc_sql_stmt_t *stmt_new(const tok_t *start)
{
    cdc_sql_stmt_t *stmt = cdc_xcalloc(1, sizeof(*stmt));
    stmt->line = start->line;
    stmt->col = start->col;
    return stmt;
}

/* Parses one INSERT as a statement of its own (statement sets, EXPLAIN). */
static cdc_sql_stmt_t *parse_insert_stmt(parser_t *p)
{
    const tok_t *start = cur(p);
    cdc_sql_stmt_t *stmt = stmt_new(start);
    if (!parse_insert(p, stmt)) {
        cdc_sql_stmt_destroy(stmt);
        return NULL;
    }
    stmt->text = source_text(p, start->offset, p->prev_end);
    return stmt;
}

/* insert; insert; ... END — after BEGIN (or BEGIN STATEMENT SET;). */
static bool parse_statement_set_body(parser_t *p, cdc_sql_stmt_t *stmt)
{
    cdc_sql_statement_set_t *set = &stmt->statement_set;
    stmt->kind = CDC_SQL_STMT_STATEMENT_SET;
    for (;;) {
        while (accept(p, CDC_SQL_TOK_SEMICOLON))
            ;
        if (accept_kw(p, "END"))
            return true;
        if (!at_kw(p, "INSERT"))
            return fail_expected(p, "\"INSERT\" or \"END\"");
        cdc_sql_stmt_t *ins = parse_insert_stmt(p);
        if (!ins)
            return false;
        PUSH(set->inserts, set->count, ins);
        if (!at(p, CDC_SQL_TOK_SEMICOLON) && !at_kw(p, "END"))
            return fail_expected(p, "\";\" or \"END\"");
    }
}

/* [EXECUTE] STATEMENT SET BEGIN ... END; the first keyword is current. */
static bool parse_execute_set(parser_t *p, cdc_sql_stmt_t *stmt)
{
    stmt->kind = CDC_SQL_STMT_STATEMENT_SET;
    accept_kw(p, "EXECUTE");
    if (!expect_kw(p, "STATEMENT") || !expect_kw(p, "SET") || !expect_kw(p, "BEGIN"))
        return false;
    return parse_statement_set_body(p, stmt);
}

/* BEGIN STATEMENT SET; ... END (Flink SQL client form). */
static bool parse_begin_set(parser_t *p, cdc_sql_stmt_t *stmt)
{
    stmt->kind = CDC_SQL_STMT_STATEMENT_SET;
    advance(p); /* BEGIN */
    if (!expect_kw(p, "STATEMENT") || !expect_kw(p, "SET") || !expect(p, CDC_SQL_TOK_SEMICOLON))
        return false;
    return parse_statement_set_body(p, stmt);
}

static bool parse_explain(parser_t *p, cdc_sql_stmt_t *stmt)
{
    static const struct {
        const char *word;
        unsigned flag;
    } details[] = {
        {"CHANGELOG_MODE", CDC_SQL_EXPLAIN_CHANGELOG_MODE},
        {"ESTIMATED_COST", CDC_SQL_EXPLAIN_ESTIMATED_COST},
        {"JSON_EXECUTION_PLAN", CDC_SQL_EXPLAIN_JSON_EXECUTION_PLAN},
    };
    cdc_sql_explain_t *ex = &stmt->explain;
    stmt->kind = CDC_SQL_STMT_EXPLAIN;
    advance(p); /* EXPLAIN */
    for (size_t i = 0; i < sizeof(details) / sizeof(details[0]); i++) {
        if (accept_kw(p, details[i].word)) {
            ex->details |= details[i].flag;
            accept(p, CDC_SQL_TOK_COMMA);
            i = (size_t)-1; /* look for another detail */
        }
    }
    if (!ex->details && accept_kw(p, "PLAN") && !expect_kw(p, "FOR"))
        return false;

    const tok_t *start = cur(p);
    cdc_sql_stmt_t *inner = stmt_new(start);
    ex->stmt = inner;
    bool ok;
    if (at_kw(p, "INSERT")) {
        ok = parse_insert(p, inner);
    } else if (at_kw(p, "SELECT")) {
        inner->kind = CDC_SQL_STMT_QUERY;
        ok = (inner->query = parse_query(p)) != NULL;
    } else if (at_kw(p, "STATEMENT") || at_kw(p, "EXECUTE")) {
        ok = parse_execute_set(p, inner);
    } else {
        return fail_expected(p, "\"SELECT\", \"INSERT\" or \"STATEMENT SET\"");
    }
    if (ok)
        inner->text = source_text(p, start->offset, p->prev_end);
    return ok;
}

static cdc_sql_stmt_t *parse_statement(parser_t *p)
{
    const tok_t *start = cur(p);
    cdc_sql_stmt_t *stmt = stmt_new(start);
    bool ok;
    if (at_kw(p, "CREATE")) {
        ok = parse_create(p, stmt);
    } else if (at_kw(p, "DROP")) {
        ok = parse_drop(p, stmt);
    } else if (at_kw(p, "USE")) {
        ok = parse_use(p, stmt);
    } else if (at_kw(p, "SHOW")) {
        ok = parse_show(p, stmt);
    } else if (at_kw(p, "DESCRIBE") || at_kw(p, "DESC")) {
        stmt->kind = CDC_SQL_STMT_DESCRIBE;
        advance(p);
        ok = parse_name(p, &stmt->describe, 3, "table name");
    } else if (at_kw(p, "SET")) {
        ok = parse_set(p, stmt, false);
    } else if (at_kw(p, "RESET")) {
        ok = parse_set(p, stmt, true);
    } else if (at_kw(p, "INSERT")) {
        ok = parse_insert(p, stmt);
    } else if (at_kw(p, "EXECUTE")) {
        ok = parse_execute_set(p, stmt);
    } else if (at_kw(p, "BEGIN")) {
        ok = parse_begin_set(p, stmt);
    } else if (at_kw(p, "EXPLAIN")) {
        ok = parse_explain(p, stmt);
    } else if (at_kw(p, "SELECT")) {
        stmt->kind = CDC_SQL_STMT_QUERY;
        ok = (stmt->query = parse_query(p)) != NULL;
    } else {
        ok = fail_expected(p, "statement");
    }
    if (!ok) {
        cdc_sql_stmt_destroy(stmt);
        return NULL;
    }
    stmt->text = source_text(p, start->offset, p->prev_end);
    return stmt;
}

/* ---- entry point --------------------------------------------------------------------------- */

static void tokenize(parser_t *p)
{
    cdc_sql_lexer_t lex;
    cdc_sql_lexer_init(&lex, p->text, p->len, p->filename);
    size_t cap = 64;
    p->toks = cdc_xmalloc(cap * sizeof(*p->toks));
    for (;;) {
        if (p->ntoks == cap) {
            cap *= 2;
            p->toks = cdc_xrealloc(p->toks, cap * sizeof(*p->toks));
        }
        tok_t *t = &p->toks[p->ntoks++];
        if (cdc_sql_lexer_next(&lex, t, &p->lex_err) < 0) {
            /* Placeholder where lexing stopped; reaching it reports lex_err. */
            memset(t, 0, sizeof(*t));
            t->kind = CDC_SQL_TOK_EOF;
            t->offset = lex.pos;
            t->line = lex.line;
            t->col = lex.col;
            return;
        }
        if (t->kind == CDC_SQL_TOK_EOF)
            return;
    }
}

int cdc_sql_parse(const char *text, size_t len, const char *filename, cdc_sql_script_t **out,
                  cdc_error_t **err)
{
    parser_t p = {0};
    p.text = text ? text : "";
    p.len = text ? len : 0;
    p.filename = filename;
    tokenize(&p);

    cdc_sql_script_t *script = cdc_xcalloc(1, sizeof(*script));
    for (;;) {
        while (accept(&p, CDC_SQL_TOK_SEMICOLON))
            ;
        if (at(&p, CDC_SQL_TOK_EOF)) {
            if (p.lex_err)
                fail_at(&p, cur(&p), NULL, "%s", "");
            break;
        }
        cdc_sql_stmt_t *stmt = parse_statement(&p);
        if (!stmt)
            break;
        PUSH(script->stmts, script->count, stmt);
        if (!at(&p, CDC_SQL_TOK_SEMICOLON) && !at(&p, CDC_SQL_TOK_EOF)) {
            fail_expected(&p, "\";\" or end of input");
            break;
        }
    }
    free(p.toks);
    cdc_error_destroy(p.lex_err);
    if (p.err) {
        cdc_sql_script_destroy(script);
        if (err) {
            cdc_error_destroy(*err);
            *err = p.err;
        } else {
            cdc_error_destroy(p.err);
        }
        return -1;
    }
    *out = script;
    return 0;
}

/* ---- destroy ------------------------------------------------------------------------------- */

static void name_free(cdc_sql_name_t *name)
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

static void expr_list_free(cdc_sql_expr_t **items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cdc_sql_expr_destroy(items[i]);
    free(items);
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
        name_free(&e->star.qualifier);
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
    name_free(&q->from.name);
    free(q->from.alias);
    for (size_t i = 0; i < q->njoins; i++) {
        name_free(&q->joins[i].table.name);
        free(q->joins[i].table.alias);
        cdc_sql_expr_destroy(q->joins[i].system_time);
        cdc_sql_expr_destroy(q->joins[i].on);
    }
    free(q->joins);
    cdc_sql_expr_destroy(q->where);
    free(q);
}

static void create_table_free(cdc_sql_create_table_t *ct)
{
    name_free(&ct->name);
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
    if (ct->like) {
        name_free(&ct->like->source);
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
    case CDC_SQL_STMT_CREATE_VIEW:
        name_free(&stmt->create_view.name);
        ident_list_free(&stmt->create_view.columns);
        free(stmt->create_view.comment);
        cdc_sql_query_destroy(stmt->create_view.query);
        break;
    case CDC_SQL_STMT_CREATE_CATALOG:
        name_free(&stmt->create_catalog.name);
        options_free(&stmt->create_catalog.options);
        break;
    case CDC_SQL_STMT_CREATE_DATABASE:
        name_free(&stmt->create_database.name);
        free(stmt->create_database.comment);
        options_free(&stmt->create_database.options);
        break;
    case CDC_SQL_STMT_CREATE_FUNCTION:
        name_free(&stmt->create_function.name);
        free(stmt->create_function.identifier);
        free(stmt->create_function.language);
        break;
    case CDC_SQL_STMT_DROP_TABLE:
    case CDC_SQL_STMT_DROP_VIEW:
    case CDC_SQL_STMT_DROP_CATALOG:
    case CDC_SQL_STMT_DROP_DATABASE:
    case CDC_SQL_STMT_DROP_FUNCTION:
        name_free(&stmt->drop.name);
        break;
    case CDC_SQL_STMT_USE_CATALOG:
    case CDC_SQL_STMT_USE_DATABASE:
        name_free(&stmt->use);
        break;
    case CDC_SQL_STMT_SHOW:
        break;
    case CDC_SQL_STMT_SHOW_CREATE:
    case CDC_SQL_STMT_SHOW_PARTITIONS:
        name_free(&stmt->show_create.name);
        break;
    case CDC_SQL_STMT_DESCRIBE:
        name_free(&stmt->describe);
        break;
    case CDC_SQL_STMT_SET:
    case CDC_SQL_STMT_RESET:
        free(stmt->set.key);
        free(stmt->set.value);
        break;
    case CDC_SQL_STMT_INSERT:
        name_free(&stmt->insert.table);
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

static void print_call(sbuf_t *sb, const cdc_sql_expr_t *e)
{
    const char *name = e->call.name ? e->call.name : "";
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
        print_list(sb, e->in_list.items, e->in_list.nitems);
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

/* ---- small helpers ------------------------------------------------------------------------- */

const cdc_sql_option_t *cdc_sql_options_find(const cdc_sql_options_t *opts, const char *key)
{
    for (size_t i = opts->count; i-- > 0;)
        if (opts->items[i].key && strcmp(opts->items[i].key, key) == 0)
            return &opts->items[i];
    return NULL;
}

const char *cdc_sql_stmt_kind_name(cdc_sql_stmt_kind_t kind)
{
    switch (kind) {
    case CDC_SQL_STMT_CREATE_TABLE:
        return "CREATE TABLE";
    case CDC_SQL_STMT_CREATE_VIEW:
        return "CREATE VIEW";
    case CDC_SQL_STMT_CREATE_CATALOG:
        return "CREATE CATALOG";
    case CDC_SQL_STMT_CREATE_DATABASE:
        return "CREATE DATABASE";
    case CDC_SQL_STMT_CREATE_FUNCTION:
        return "CREATE FUNCTION";
    case CDC_SQL_STMT_DROP_TABLE:
        return "DROP TABLE";
    case CDC_SQL_STMT_DROP_VIEW:
        return "DROP VIEW";
    case CDC_SQL_STMT_DROP_CATALOG:
        return "DROP CATALOG";
    case CDC_SQL_STMT_DROP_DATABASE:
        return "DROP DATABASE";
    case CDC_SQL_STMT_DROP_FUNCTION:
        return "DROP FUNCTION";
    case CDC_SQL_STMT_USE_CATALOG:
        return "USE CATALOG";
    case CDC_SQL_STMT_USE_DATABASE:
        return "USE";
    case CDC_SQL_STMT_SHOW:
        return "SHOW";
    case CDC_SQL_STMT_SHOW_CREATE:
        return "SHOW CREATE";
    case CDC_SQL_STMT_SHOW_PARTITIONS:
        return "SHOW PARTITIONS";
    case CDC_SQL_STMT_DESCRIBE:
        return "DESCRIBE";
    case CDC_SQL_STMT_SET:
        return "SET";
    case CDC_SQL_STMT_RESET:
        return "RESET";
    case CDC_SQL_STMT_INSERT:
        return "INSERT";
    case CDC_SQL_STMT_STATEMENT_SET:
        return "STATEMENT SET";
    case CDC_SQL_STMT_EXPLAIN:
        return "EXPLAIN";
    case CDC_SQL_STMT_QUERY:
        return "SELECT";
    }
    return "statement";
}
