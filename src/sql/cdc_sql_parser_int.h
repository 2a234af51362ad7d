/*
 * cdc_sql_parser_int.h — private to the SQL parser (cdc_sql_parser.c,
 * cdc_sql_expr_parse.c, cdc_sql_tree.c): the parser state, token helpers and
 * the parse functions those files share. Not for other modules.
 * Each function is described where it is defined.
 */
#ifndef CDC_SQL_PARSER_INT_H
#define CDC_SQL_PARSER_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "cdc_sql_parser.h"

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
    bool set_term;          /* the next cdc_sqlp_parse_query parses one operand of a set operator */
    cdc_sql_over_t **named; /* OVER w calls waiting for their query's WINDOW clause */
    size_t nnamed;
} parser_t;

/* Appends one element to a malloc'ed array, growing it by one. */
#define PUSH(arr, count, value)                                                                    \
    do {                                                                                           \
        (arr) = cdc_xrealloc((arr), ((count) + 1) * sizeof(*(arr)));                               \
        (arr)[(count)++] = (value);                                                                \
    } while (0)

/* ---- tokens ---- */

static inline const tok_t *peek(const parser_t *p, size_t k)
{
    size_t i = p->pos + k;
    if (i >= p->ntoks)
        i = p->ntoks - 1;
    return &p->toks[i];
}

static inline const tok_t *cur(const parser_t *p)
{
    return peek(p, 0);
}

static inline bool at(const parser_t *p, cdc_sql_token_kind_t kind)
{
    return cur(p)->kind == kind;
}

static inline bool tok_kw(const parser_t *p, const tok_t *t, const char *kw)
{
    return cdc_sql_token_is_keyword(p->text, t, kw);
}

static inline bool at_kw(const parser_t *p, const char *kw)
{
    return tok_kw(p, cur(p), kw);
}

static inline bool peek_kw(const parser_t *p, size_t k, const char *kw)
{
    return tok_kw(p, peek(p, k), kw);
}

static inline void advance(parser_t *p)
{
    if (p->pos + 1 < p->ntoks) {
        const tok_t *t = &p->toks[p->pos];
        p->prev_end = t->offset + t->len;
        p->pos++;
    }
}

static inline bool accept(parser_t *p, cdc_sql_token_kind_t kind)
{
    if (!at(p, kind))
        return false;
    advance(p);
    return true;
}

static inline bool accept_kw(parser_t *p, const char *kw)
{
    if (!at_kw(p, kw))
        return false;
    advance(p);
    return true;
}

static inline char *tok_value(const parser_t *p, const tok_t *t)
{
    return cdc_sql_token_value(p->text, t);
}

static inline char *source_text(const parser_t *p, size_t start, size_t end)
{
    if (end < start)
        end = start;
    return cdc_xstrndup(p->text + start, end - start);
}

/* True for a token usable as an identifier: quoted, or a bare non-reserved word. */
static inline bool is_ident_tok(const parser_t *p, const tok_t *t)
{
    return t->kind == CDC_SQL_TOK_QUOTED_IDENT ||
           (t->kind == CDC_SQL_TOK_IDENT && !cdc_sql_is_reserved(p->text + t->offset, t->len));
}

static inline char *upper_dup(const char *s)
{
    char *out = cdc_xstrdup(s);
    for (char *c = out; *c; c++)
        if (*c >= 'a' && *c <= 'z')
            *c = (char)(*c - 'a' + 'A');
    return out;
}

/* ---- cdc_sql_parser.c: errors, identifiers, names, strings, types ---- */

char *cdc_sqlp_describe_tok(const parser_t *p, const tok_t *t);
void cdc_sqlp_fail_at(parser_t *p, const tok_t *t, const char *hint, const char *fmt, ...)
    CDC_PRINTF(4, 5);
bool cdc_sqlp_fail_expected(parser_t *p, const char *expected);
bool cdc_sqlp_fail_unsupported(parser_t *p, const char *what, const char *hint);
/* The same at line:col. */
bool cdc_sqlp_fail_unsupported_at(parser_t *p, int line, int col, const char *what,
                                  const char *hint);
bool cdc_sqlp_expect(parser_t *p, cdc_sql_token_kind_t kind);
bool cdc_sqlp_expect_kw(parser_t *p, const char *kw);
bool cdc_sqlp_enter(parser_t *p);
void cdc_sqlp_leave(parser_t *p);
bool cdc_sqlp_parse_ident(parser_t *p, cdc_sql_ident_t *out, const char *what);
bool cdc_sqlp_parse_name(parser_t *p, cdc_sql_name_t *out, int max_parts, const char *what);
bool cdc_sqlp_parse_string(parser_t *p, char **out, int *line, int *col);
char *cdc_sqlp_parse_ustring(parser_t *p, int *line, int *col);
bool cdc_sqlp_parse_type_text(parser_t *p, cdc_sql_type_text_t *out);
bool cdc_sqlp_parse_hints(parser_t *p, cdc_sql_hints_t *hints);

/* ---- cdc_sql_expr_parse.c: expressions and queries ---- */

cdc_sql_expr_t *cdc_sqlp_parse_expr(parser_t *p);
cdc_sql_query_t *cdc_sqlp_parse_query(parser_t *p);
cdc_sql_query_t *cdc_sqlp_parse_values(parser_t *p);
/* True when the current token starts a query: SELECT, WITH, VALUES or "(" before one. */
bool cdc_sqlp_at_query(const parser_t *p);

/* ---- cdc_sql_tree.c: destroy, clone, printing ---- */

void cdc_sqlp_name_free(cdc_sql_name_t *name);

#endif
