/*
 * cdc_sql_parser.c — recursive-descent parser for cdcflow's Flink-style SQL:
 * errors, identifiers, names, strings, options and types, the statements, and
 * the entry point. Expressions and queries are parsed in cdc_sql_expr_parse.c;
 * the syntax tree's destroy/clone functions and the expression printer are in
 * cdc_sql_tree.c; the parser state they share is in cdc_sql_parser_int.h.
 *
 * The whole script is tokenized first. If the lexer fails, the tokens read
 * so far end with an EOF placeholder and the lexer's error is reported only
 * when the parser reaches that point, so errors come out in source order.
 *
 * Every parse function returns NULL/false on error after recording the first
 * error in the parser; partially built nodes are always attached to a parent
 * that the caller destroys, so nothing leaks on the error path.
 */
#include "cdc_sql_parser_int.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ---- errors -------------------------------------------------------------------------------- */

/* The token as quoted in messages: "text" (cut at a line break or FOUND_MAX bytes), or
 * end of input. */
char *cdc_sqlp_describe_tok(const parser_t *p, const tok_t *t)
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
void cdc_sqlp_fail_at(parser_t *p, const tok_t *t, const char *hint, const char *fmt, ...)
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
    char *found = cdc_sqlp_describe_tok(p, t);
    cdc_sqlp_fail_at(p, t, hint, "expected %s, found %s", expected, found);
    free(found);
    return false;
}

/* Records "X is not supported yet" at line:col (for constructs whose syntax is valid Flink SQL
 * but that cdcflow does not run), unless an error is already recorded. Returns false. */
bool cdc_sqlp_fail_unsupported_at(parser_t *p, int line, int col, const char *what,
                                  const char *hint)
{
    if (p->err)
        return false;
    p->err = cdc_error_new(CDC_ERR_SQL, "%s:%d:%d: %s is not supported yet",
                           p->filename ? p->filename : "<input>", line, col, what);
    char *caret = cdc_sql_caret(p->text, p->len, line, col);
    cdc_error_set_detail(p->err, "%s", caret);
    free(caret);
    if (hint)
        cdc_error_set_hint(p->err, "%s", hint);
    return false;
}

/* The same at the current token. */
bool cdc_sqlp_fail_unsupported(parser_t *p, const char *what, const char *hint)
{
    return cdc_sqlp_fail_unsupported_at(p, cur(p)->line, cur(p)->col, what, hint);
}

bool cdc_sqlp_fail_expected(parser_t *p, const char *expected)
{
    return fail_expected_hint(p, expected, NULL);
}

bool cdc_sqlp_expect(parser_t *p, cdc_sql_token_kind_t kind)
{
    if (accept(p, kind))
        return true;
    return cdc_sqlp_fail_expected(p, cdc_sql_token_kind_name(kind));
}

bool cdc_sqlp_expect_kw(parser_t *p, const char *kw)
{
    if (accept_kw(p, kw))
        return true;
    char *quoted = cdc_strdup_printf("\"%s\"", kw);
    cdc_sqlp_fail_expected(p, quoted);
    free(quoted);
    return false;
}

bool cdc_sqlp_enter(parser_t *p)
{
    if (++p->depth > MAX_DEPTH) {
        cdc_sqlp_fail_at(p, cur(p), NULL, "expression is nested too deeply (more than %d levels)",
                         MAX_DEPTH);
        return false;
    }
    return true;
}

void cdc_sqlp_leave(parser_t *p)
{
    p->depth--;
}

/* ---- identifiers, names, strings, options, types ------------------------------------------- */

bool cdc_sqlp_parse_ident(parser_t *p, cdc_sql_ident_t *out, const char *what)
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
        return cdc_sqlp_fail_expected(p, what);
    }
    out->name = tok_value(p, t);
    out->line = t->line;
    out->col = t->col;
    advance(p);
    return true;
}

bool cdc_sqlp_parse_name(parser_t *p, cdc_sql_name_t *out, int max_parts, const char *what)
{
    cdc_sql_ident_t first;
    if (!cdc_sqlp_parse_ident(p, &first, what))
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
            return cdc_sqlp_fail_expected(p, "identifier");
        if (out->nparts == max_parts) {
            const char *hint = max_parts == 1   ? "this name has a single part"
                               : max_parts == 2 ? "write the name as [catalog.]database"
                                                : "write the name as [catalog.][database.]object";
            cdc_sqlp_fail_at(p, next, hint, "name has more than %d part%s", max_parts,
                             max_parts == 1 ? "" : "s");
            return false;
        }
        out->parts[out->nparts++] = tok_value(p, next);
        advance(p);
    }
    return true;
}

/* A string literal: value into *out, position into line/col (either may be NULL). */
bool cdc_sqlp_parse_string(parser_t *p, char **out, int *line, int *col)
{
    const tok_t *t = cur(p);
    if (t->kind != CDC_SQL_TOK_STRING)
        return cdc_sqlp_fail_expected(p, "string literal");
    free(*out);
    *out = tok_value(p, t);
    if (line)
        *line = t->line;
    if (col)
        *col = t->col;
    advance(p);
    return true;
}

/* The value of hex digit @p c, or -1. */
static int hex_value(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/*
 * A Unicode string literal U&'...' [UESCAPE 'c'] (current token): escapes are <c>XXXX and
 * <c>+XXXXXX (hex code points) and <c><c> for the escape character itself; the escape
 * character is \ unless UESCAPE names another. Returns the UTF-8 text (the caller frees it)
 * and its position in line/col, or NULL after recording the error.
 */
char *cdc_sqlp_parse_ustring(parser_t *p, int *line, int *col)
{
    const tok_t *t = cur(p);
    char *raw = tok_value(p, t);
    *line = t->line;
    *col = t->col;
    advance(p);
    char esc = '\\';
    if (accept_kw(p, "UESCAPE")) {
        const tok_t *e = cur(p);
        char *ev = NULL;
        if (!cdc_sqlp_parse_string(p, &ev, NULL, NULL)) {
            free(raw);
            return NULL;
        }
        bool ok = strlen(ev) == 1 && hex_value(ev[0]) < 0 && ev[0] != '+' && ev[0] != '\'' &&
                  ev[0] != '"' && ev[0] != ' ';
        esc = ev[0];
        free(ev);
        if (!ok) {
            cdc_sqlp_fail_at(p, e,
                             "write UESCAPE with one character that is not a hex digit, "
                             "'+', a quote or a blank",
                             "invalid UESCAPE character");
            free(raw);
            return NULL;
        }
    }
    char *s = cdc_xmalloc(strlen(raw) + 1); /* never longer than the escaped text */
    size_t n = 0;
    for (size_t i = 0; raw[i];) {
        if (raw[i] != esc) {
            s[n++] = raw[i++];
            continue;
        }
        if (raw[i + 1] == esc) {
            s[n++] = esc;
            i += 2;
            continue;
        }
        size_t start = i, ndig = raw[i + 1] == '+' ? 6 : 4;
        i += raw[i + 1] == '+' ? 2 : 1;
        unsigned long cp = 0;
        size_t d = 0;
        for (; d < ndig && hex_value(raw[i]) >= 0; d++, i++)
            cp = cp * 16 + (unsigned long)hex_value(raw[i]);
        if (d < ndig || cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            cdc_sqlp_fail_at(p, t,
                             "write <escape>XXXX or <escape>+XXXXXX with a code point from "
                             "U+0001 to U+10FFFF (not a surrogate), <escape><escape> for the "
                             "escape character itself",
                             "invalid Unicode escape \"%.*s\" in string literal",
                             (int)(i - start + (d < ndig && raw[i] ? 1 : 0)), raw + start);
            free(raw);
            free(s);
            return NULL;
        }
        if (cp < 0x80) {
            s[n++] = (char)cp;
        } else if (cp < 0x800) {
            s[n++] = (char)(0xC0 | (cp >> 6));
            s[n++] = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            s[n++] = (char)(0xE0 | (cp >> 12));
            s[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            s[n++] = (char)(0x80 | (cp & 0x3F));
        } else {
            s[n++] = (char)(0xF0 | (cp >> 18));
            s[n++] = (char)(0x80 | ((cp >> 12) & 0x3F));
            s[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            s[n++] = (char)(0x80 | (cp & 0x3F));
        }
    }
    free(raw);
    s[n] = '\0';
    return s;
}

/* ( ident, ident, ... ) */
static bool parse_paren_ident_list(parser_t *p, cdc_sql_ident_list_t *list, const char *what)
{
    if (!cdc_sqlp_expect(p, CDC_SQL_TOK_LPAREN))
        return false;
    for (;;) {
        cdc_sql_ident_t id;
        if (!cdc_sqlp_parse_ident(p, &id, what))
            return false;
        PUSH(list->items, list->count, id);
        if (accept(p, CDC_SQL_TOK_COMMA))
            continue;
        if (accept(p, CDC_SQL_TOK_RPAREN))
            return true;
        return cdc_sqlp_fail_expected(p, "\",\" or \")\"");
    }
}

/* WITH ( 'k' = 'v', ... ) — the WITH is already consumed. */
static bool parse_options(parser_t *p, cdc_sql_options_t *opts)
{
    static const char *hint = "write options as 'key' = 'value', both quoted";
    if (!cdc_sqlp_expect(p, CDC_SQL_TOK_LPAREN))
        return false;
    if (accept(p, CDC_SQL_TOK_RPAREN))
        return true;
    for (;;) {
        if (!at(p, CDC_SQL_TOK_STRING))
            return fail_expected_hint(p, "string literal", hint);
        PUSH(opts->items, opts->count, (cdc_sql_option_t){0});
        cdc_sql_option_t *opt = &opts->items[opts->count - 1];
        cdc_sqlp_parse_string(p, &opt->key, &opt->line, &opt->col);
        if (!cdc_sqlp_expect(p, CDC_SQL_TOK_EQ))
            return false;
        if (!at(p, CDC_SQL_TOK_STRING))
            return fail_expected_hint(p, "string literal", hint);
        cdc_sqlp_parse_string(p, &opt->value, &opt->value_line, &opt->value_col);
        if (accept(p, CDC_SQL_TOK_COMMA))
            continue;
        if (accept(p, CDC_SQL_TOK_RPAREN))
            return true;
        return cdc_sqlp_fail_expected(p, "\",\" or \")\"");
    }
}

/* Skips a balanced ( ... ) group: the arguments of a hint that is kept by name only. */
static bool skip_group(parser_t *p)
{
    int depth = 0;
    do {
        if (at(p, CDC_SQL_TOK_EOF) || at(p, CDC_SQL_TOK_HINT_END))
            return cdc_sqlp_fail_expected(p, "\")\"");
        depth += at(p, CDC_SQL_TOK_LPAREN) ? 1 : at(p, CDC_SQL_TOK_RPAREN) ? -1 : 0;
        advance(p);
    } while (depth > 0);
    return true;
}

/*
 * A hint comment, "/" "*+" hint [, hint ...] "*" "/", if one opens here: a hint is OPTIONS('k' =
 * 'v', ...) (into hints->options) or any other NAME [(args)] (its name into hints->others). Nothing
 * when no hint opens here.
 */
bool cdc_sqlp_parse_hints(parser_t *p, cdc_sql_hints_t *hints)
{
    if (!accept(p, CDC_SQL_TOK_HINT_START))
        return true;
    for (;;) {
        cdc_sql_ident_t id;
        if (!cdc_sqlp_parse_ident(p, &id, "hint name"))
            return false;
        if (strcasecmp(id.name, "OPTIONS") == 0) {
            free(id.name);
            if (!parse_options(p, &hints->options))
                return false;
        } else {
            PUSH(hints->others.items, hints->others.count, id);
            if (at(p, CDC_SQL_TOK_LPAREN) && !skip_group(p))
                return false;
        }
        if (accept(p, CDC_SQL_TOK_COMMA))
            continue;
        if (accept(p, CDC_SQL_TOK_HINT_END))
            return true;
        return cdc_sqlp_fail_expected(p, "\",\" or \"*/\"");
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
bool cdc_sqlp_parse_type_text(parser_t *p, cdc_sql_type_text_t *out)
{
    const tok_t *first = cur(p);
    if (first->kind != CDC_SQL_TOK_IDENT)
        return cdc_sqlp_fail_expected(p, "data type");
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
            return cdc_sqlp_fail_expected(p, stack[depth - 1] == '>' ? "\">\"" : "\")\"");
        case CDC_SQL_TOK_LT:
        case CDC_SQL_TOK_LPAREN:
            if (depth == MAX_TYPE_DEPTH) {
                cdc_sqlp_fail_at(p, t, NULL, "data type is nested too deeply");
                return false;
            }
            stack[depth++] = t->kind == CDC_SQL_TOK_LT ? '>' : ')';
            break;
        case CDC_SQL_TOK_GT:
        case CDC_SQL_TOK_RPAREN:
            if (stack[depth - 1] != (t->kind == CDC_SQL_TOK_GT ? '>' : ')'))
                return cdc_sqlp_fail_expected(p, stack[depth - 1] == '>' ? "\">\"" : "\")\"");
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
    if (!cdc_sqlp_expect_kw(p, "NOT") || !cdc_sqlp_expect_kw(p, "EXISTS"))
        return false;
    *flag = true;
    return true;
}

/* [IF EXISTS] */
static bool parse_if_exists(parser_t *p, bool *flag)
{
    if (!accept_kw(p, "IF"))
        return true;
    if (!cdc_sqlp_expect_kw(p, "EXISTS"))
        return false;
    *flag = true;
    return true;
}

/* ---- CREATE TABLE -------------------------------------------------------------------------- */

/* [CONSTRAINT name] PRIMARY KEY [(cols)] NOT ENFORCED; @p col is set for the inline form. */
static bool parse_primary_key(parser_t *p, cdc_sql_create_table_t *ct, const cdc_sql_column_t *col)
{
    const tok_t *start = cur(p);
    if (ct->primary_key) {
        cdc_sqlp_fail_at(p, start,
                         "a table has at most one primary key, possibly over several columns",
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
        if (!cdc_sqlp_parse_ident(p, &id, "constraint name"))
            return false;
        pk->constraint_name = id.name;
    }
    if (!cdc_sqlp_expect_kw(p, "PRIMARY") || !cdc_sqlp_expect_kw(p, "KEY"))
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
    if (!cdc_sqlp_parse_ident(p, &id, "column definition"))
        return false;
    col->name = id.name;
    col->line = id.line;
    col->col = id.col;
    if (accept_kw(p, "AS")) {
        col->kind = CDC_SQL_COLUMN_COMPUTED;
        if (!(col->expr = cdc_sqlp_parse_expr(p)))
            return false;
        if (accept_kw(p, "COMMENT") && !cdc_sqlp_parse_string(p, &col->comment, NULL, NULL))
            return false;
        return true;
    }
    col->kind = CDC_SQL_COLUMN_PHYSICAL;
    if (!cdc_sqlp_parse_type_text(p, &col->type))
        return false;
    for (;;) {
        if (accept_kw(p, "METADATA")) {
            col->kind = CDC_SQL_COLUMN_METADATA;
            if (accept_kw(p, "FROM") && !cdc_sqlp_parse_string(p, &col->metadata_key, NULL, NULL))
                return false;
            if (accept_kw(p, "VIRTUAL"))
                col->is_virtual = true;
        } else if (accept_kw(p, "NOT")) {
            if (!cdc_sqlp_expect_kw(p, "NULL"))
                return false;
            col->not_null = true;
        } else if (accept_kw(p, "NULL")) {
            col->not_null = false;
        } else if (at_kw(p, "PRIMARY") || at_kw(p, "CONSTRAINT")) {
            if (!parse_primary_key(p, ct, col))
                return false;
        } else if (accept_kw(p, "COMMENT")) {
            if (!cdc_sqlp_parse_string(p, &col->comment, NULL, NULL))
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
        cdc_sqlp_fail_at(p, start, NULL, "multiple WATERMARK definitions are not supported");
        return false;
    }
    cdc_sql_watermark_t *wm = cdc_xcalloc(1, sizeof(*wm));
    ct->watermark = wm;
    wm->line = start->line;
    wm->col = start->col;
    advance(p); /* WATERMARK */
    advance(p); /* FOR */
    if (!cdc_sqlp_parse_ident(p, &wm->column, "column name") || !cdc_sqlp_expect_kw(p, "AS") ||
        !(wm->expr = cdc_sqlp_parse_expr(p)))
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
        return cdc_sqlp_fail_expected(p, "\",\" or \")\"");
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
    if (!cdc_sqlp_parse_name(p, &like->source, 3, "table name"))
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
            return cdc_sqlp_fail_expected(p, like->noptions ? "\"INCLUDING\", \"EXCLUDING\", "
                                                              "\"OVERWRITING\" or \")\""
                                                            : "\"INCLUDING\", \"EXCLUDING\" or "
                                                              "\"OVERWRITING\"");
        advance(p);
        const tok_t *ft = cur(p);
        size_t i = 0;
        while (i < sizeof(features) / sizeof(features[0]) && !tok_kw(p, ft, features[i].word))
            i++;
        if (i == sizeof(features) / sizeof(features[0]))
            return cdc_sqlp_fail_expected(p,
                                          "\"ALL\", \"CONSTRAINTS\", \"GENERATED\", \"METADATA\", "
                                          "\"OPTIONS\", \"PARTITIONS\" or \"WATERMARKS\"");
        if (opt.mode == CDC_SQL_LIKE_OVERWRITING && !features[i].overwritable) {
            cdc_sqlp_fail_at(p, mt, "use INCLUDING or EXCLUDING",
                             "OVERWRITING cannot be used with %s", features[i].word);
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
    if (!parse_if_not_exists(p, &ct->if_not_exists) ||
        !cdc_sqlp_parse_name(p, &ct->name, 3, "table name"))
        return false;
    if (at(p, CDC_SQL_TOK_LPAREN)) {
        if (!parse_table_elements(p, ct))
            return false;
    } else if (!at_kw(p, "COMMENT") && !at_kw(p, "PARTITIONED") && !at_kw(p, "WITH") &&
               !at_kw(p, "LIKE") && !at_kw(p, "AS")) {
        return cdc_sqlp_fail_expected(p, "\"(\"");
    }
    if (accept_kw(p, "COMMENT") && !cdc_sqlp_parse_string(p, &ct->comment, NULL, NULL))
        return false;
    if (accept_kw(p, "PARTITIONED")) {
        if (!cdc_sqlp_expect_kw(p, "BY") ||
            !parse_paren_ident_list(p, &ct->partitioned_by, "column name"))
            return false;
    }
    if (accept_kw(p, "WITH") && !parse_options(p, &ct->options))
        return false;
    if (at_kw(p, "LIKE") && !parse_like_clause(p, ct))
        return false;
    if (!at_kw(p, "AS"))
        return true;
    /* CREATE TABLE ... AS SELECT (Flink's CTAS): the query gives the columns */
    if (ct->ncolumns || ct->primary_key || ct->watermark || ct->like)
        return cdc_sqlp_fail_unsupported(
            p, "CREATE TABLE ... AS SELECT with columns, constraints, a watermark or LIKE",
            "leave them out: the table's columns are the query's");
    ct->as_line = cur(p)->line;
    ct->as_col = cur(p)->col;
    advance(p);
    return (ct->as_query = cdc_sqlp_parse_query(p)) != NULL;
}

/* ---- ALTER TABLE --------------------------------------------------------------------------- */

/* ADD / MODIFY: one column definition, primary key or watermark, or several in parentheses; a
 * column may be placed FIRST or AFTER another (Flink's ALTER TABLE, FLIP-273). */
static bool parse_alter_columns(parser_t *p, cdc_sql_alter_table_t *al)
{
    bool list = accept(p, CDC_SQL_TOK_LPAREN);
    for (;;) {
        bool ok;
        if (at_kw(p, "PRIMARY") || at_kw(p, "CONSTRAINT")) {
            ok = parse_primary_key(p, &al->elements, NULL);
        } else if (at_kw(p, "WATERMARK") && peek_kw(p, 1, "FOR")) {
            ok = parse_watermark(p, &al->elements);
        } else {
            cdc_sql_column_position_t pos = {0};
            ok = parse_column(p, &al->elements);
            if (ok && accept_kw(p, "FIRST")) {
                pos.kind = CDC_SQL_POS_FIRST;
            } else if (ok && accept_kw(p, "AFTER")) {
                pos.kind = CDC_SQL_POS_AFTER;
                ok = cdc_sqlp_parse_ident(p, &pos.after, "column name");
            }
            PUSH(al->positions, al->npositions, pos);
        }
        if (!ok)
            return false;
        if (!list || accept(p, CDC_SQL_TOK_RPAREN))
            return true;
        if (!cdc_sqlp_expect(p, CDC_SQL_TOK_COMMA))
            return false;
    }
}

/* RESET ('k1', 'k2') */
static bool parse_reset_keys(parser_t *p, cdc_sql_options_t *opts)
{
    if (!cdc_sqlp_expect(p, CDC_SQL_TOK_LPAREN))
        return false;
    do {
        cdc_sql_option_t o = {0};
        if (!cdc_sqlp_parse_string(p, &o.key, &o.line, &o.col))
            return false;
        PUSH(opts->items, opts->count, o);
    } while (accept(p, CDC_SQL_TOK_COMMA));
    return cdc_sqlp_expect(p, CDC_SQL_TOK_RPAREN);
}

static bool parse_alter_table(parser_t *p, cdc_sql_stmt_t *stmt)
{
    cdc_sql_alter_table_t *al = &stmt->alter_table;
    stmt->kind = CDC_SQL_STMT_ALTER_TABLE;
    advance(p); /* ALTER */
    if (!cdc_sqlp_expect_kw(p, "TABLE"))
        return false;
    if (!parse_if_exists(p, &al->if_exists) || !cdc_sqlp_parse_name(p, &al->name, 3, "table name"))
        return false;
    const tok_t *act = cur(p);
    al->action_line = act->line;
    al->action_col = act->col;
    if (accept_kw(p, "RENAME")) {
        if (accept_kw(p, "TO")) {
            al->action = CDC_SQL_ALTER_RENAME_TABLE;
            return cdc_sqlp_parse_name(p, &al->new_name, 3, "table name");
        }
        al->action = CDC_SQL_ALTER_RENAME_COLUMN;
        return cdc_sqlp_parse_ident(p, &al->column, "column name") && cdc_sqlp_expect_kw(p, "TO") &&
               cdc_sqlp_parse_ident(p, &al->new_column, "column name");
    }
    if (accept_kw(p, "SET")) {
        al->action = CDC_SQL_ALTER_SET;
        return parse_options(p, &al->options);
    }
    if (accept_kw(p, "RESET")) {
        al->action = CDC_SQL_ALTER_RESET;
        return parse_reset_keys(p, &al->options);
    }
    if (at_kw(p, "ADD") || at_kw(p, "MODIFY")) {
        al->action = at_kw(p, "ADD") ? CDC_SQL_ALTER_ADD : CDC_SQL_ALTER_MODIFY;
        advance(p);
        return parse_alter_columns(p, al);
    }
    if (accept_kw(p, "DROP")) {
        al->action = CDC_SQL_ALTER_DROP;
        if (at_kw(p, "PRIMARY") && peek_kw(p, 1, "KEY")) {
            al->action = CDC_SQL_ALTER_DROP_PRIMARY_KEY;
            advance(p);
            advance(p);
            return true;
        }
        if (accept_kw(p, "CONSTRAINT")) {
            al->action = CDC_SQL_ALTER_DROP_CONSTRAINT;
            return cdc_sqlp_parse_ident(p, &al->column, "constraint name");
        }
        if (accept_kw(p, "WATERMARK")) {
            al->action = CDC_SQL_ALTER_DROP_WATERMARK;
            return true;
        }
        if (at(p, CDC_SQL_TOK_LPAREN))
            return parse_paren_ident_list(p, &al->drop, "column name");
        cdc_sql_ident_t id;
        if (!cdc_sqlp_parse_ident(p, &id, "column name"))
            return false;
        PUSH(al->drop.items, al->drop.count, id);
        return true;
    }
    return cdc_sqlp_fail_expected(p, "\"RENAME\", \"SET\", \"RESET\", \"ADD\", \"MODIFY\" or "
                                     "\"DROP\"");
}

/* ---- other statements ---------------------------------------------------------------------- */

static bool parse_create_view(parser_t *p, cdc_sql_stmt_t *stmt, bool temporary)
{
    cdc_sql_create_view_t *cv = &stmt->create_view;
    stmt->kind = CDC_SQL_STMT_CREATE_VIEW;
    cv->temporary = temporary;
    advance(p); /* VIEW */
    if (!parse_if_not_exists(p, &cv->if_not_exists) ||
        !cdc_sqlp_parse_name(p, &cv->name, 3, "view name"))
        return false;
    if (at(p, CDC_SQL_TOK_LPAREN) && !parse_paren_ident_list(p, &cv->columns, "column name"))
        return false;
    if (accept_kw(p, "COMMENT") && !cdc_sqlp_parse_string(p, &cv->comment, NULL, NULL))
        return false;
    if (!cdc_sqlp_expect_kw(p, "AS"))
        return false;
    return (cv->query = cdc_sqlp_parse_query(p)) != NULL;
}

static bool parse_create_function(parser_t *p, cdc_sql_stmt_t *stmt, bool temporary, bool system)
{
    cdc_sql_create_function_t *cf = &stmt->create_function;
    stmt->kind = CDC_SQL_STMT_CREATE_FUNCTION;
    cf->temporary = temporary;
    cf->system = system;
    advance(p); /* FUNCTION */
    if (!parse_if_not_exists(p, &cf->if_not_exists) ||
        !cdc_sqlp_parse_name(p, &cf->name, system ? 1 : 3, "function name") ||
        !cdc_sqlp_expect_kw(p, "AS") ||
        !cdc_sqlp_parse_string(p, &cf->identifier, &cf->identifier_line, &cf->identifier_col))
        return false;
    if (accept_kw(p, "LANGUAGE")) {
        if (!at(p, CDC_SQL_TOK_IDENT))
            return cdc_sqlp_fail_expected(p, "language name");
        char *word = tok_value(p, cur(p));
        cf->language = upper_dup(word);
        free(word);
        advance(p);
    }
    return true;
}

/* [CREATE OR] REPLACE [TEMPORARY] TABLE t [COMMENT] [PARTITIONED BY] [WITH] AS query (Flink's
 * RTAS, FLIP-303): a CREATE TABLE ... AS that replaces the table; AS is required, IF NOT
 * EXISTS refused. */
static bool parse_replace_table(parser_t *p, cdc_sql_stmt_t *stmt, int replace)
{
    bool temporary = replace == CDC_SQL_CREATE_OR_REPLACE && accept_kw(p, "TEMPORARY");
    if (!at_kw(p, "TABLE"))
        return cdc_sqlp_fail_expected(p, "\"TABLE\"");
    if (peek_kw(p, 1, "IF")) {
        cdc_sqlp_fail_at(p, peek(p, 1), "a replaced table may or may not exist",
                         "IF NOT EXISTS cannot be used with [CREATE OR] REPLACE TABLE");
        return false;
    }
    stmt->create_table.replace = replace;
    if (!parse_create_table(p, stmt, temporary))
        return false;
    if (!stmt->create_table.as_query)
        return cdc_sqlp_fail_expected(p, "\"AS\"");
    return true;
}

static bool parse_create(parser_t *p, cdc_sql_stmt_t *stmt)
{
    advance(p); /* CREATE */
    if (at_kw(p, "OR") && peek_kw(p, 1, "REPLACE")) {
        advance(p);
        advance(p);
        return parse_replace_table(p, stmt, CDC_SQL_CREATE_OR_REPLACE);
    }
    bool temporary = accept_kw(p, "TEMPORARY");
    bool system = temporary && accept_kw(p, "SYSTEM");
    if (at_kw(p, "FUNCTION"))
        return parse_create_function(p, stmt, temporary, system);
    if (system)
        return cdc_sqlp_fail_expected(p, "\"FUNCTION\"");
    if (at_kw(p, "TABLE"))
        return parse_create_table(p, stmt, temporary);
    if (at_kw(p, "VIEW"))
        return parse_create_view(p, stmt, temporary);
    if (temporary)
        return cdc_sqlp_fail_expected(p, "\"TABLE\", \"VIEW\" or \"FUNCTION\"");
    if (accept_kw(p, "CATALOG")) {
        cdc_sql_create_catalog_t *cc = &stmt->create_catalog;
        stmt->kind = CDC_SQL_STMT_CREATE_CATALOG;
        return parse_if_not_exists(p, &cc->if_not_exists) &&
               cdc_sqlp_parse_name(p, &cc->name, 1, "catalog name") &&
               cdc_sqlp_expect_kw(p, "WITH") && parse_options(p, &cc->options);
    }
    if (accept_kw(p, "DATABASE")) {
        cdc_sql_create_database_t *cd = &stmt->create_database;
        stmt->kind = CDC_SQL_STMT_CREATE_DATABASE;
        if (!parse_if_not_exists(p, &cd->if_not_exists) ||
            !cdc_sqlp_parse_name(p, &cd->name, 2, "database name"))
            return false;
        if (accept_kw(p, "COMMENT") && !cdc_sqlp_parse_string(p, &cd->comment, NULL, NULL))
            return false;
        if (accept_kw(p, "WITH") && !parse_options(p, &cd->options))
            return false;
        return true;
    }
    return cdc_sqlp_fail_expected(p,
                                  "\"TABLE\", \"VIEW\", \"FUNCTION\", \"CATALOG\" or \"DATABASE\"");
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
        return cdc_sqlp_fail_expected(p, "\"FUNCTION\"");
    } else if (accept_kw(p, "TABLE")) {
        stmt->kind = CDC_SQL_STMT_DROP_TABLE;
    } else if (accept_kw(p, "VIEW")) {
        stmt->kind = CDC_SQL_STMT_DROP_VIEW;
        what = "view name";
    } else if (d->temporary) {
        return cdc_sqlp_fail_expected(p, "\"TABLE\", \"VIEW\" or \"FUNCTION\"");
    } else if (accept_kw(p, "CATALOG")) {
        stmt->kind = CDC_SQL_STMT_DROP_CATALOG;
        what = "catalog name";
        max_parts = 1;
    } else if (accept_kw(p, "DATABASE")) {
        stmt->kind = CDC_SQL_STMT_DROP_DATABASE;
        what = "database name";
        max_parts = 2;
    } else {
        return cdc_sqlp_fail_expected(
            p, "\"TABLE\", \"VIEW\", \"FUNCTION\", \"CATALOG\" or \"DATABASE\"");
    }
    if (!parse_if_exists(p, &d->if_exists) || !cdc_sqlp_parse_name(p, &d->name, max_parts, what))
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
        return cdc_sqlp_parse_name(p, &stmt->use, 1, "catalog name");
    }
    stmt->kind = CDC_SQL_STMT_USE_DATABASE;
    return cdc_sqlp_parse_name(p, &stmt->use, 2, "database name");
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
            return cdc_sqlp_fail_expected(p, "\"CATALOG\" or \"DATABASE\"");
        return true;
    }
    if (accept_kw(p, "PARTITIONS")) {
        stmt->kind = CDC_SQL_STMT_SHOW_PARTITIONS;
        return cdc_sqlp_parse_name(p, &stmt->show_create.name, 3, "table name");
    }
    if (accept_kw(p, "CREATE")) {
        stmt->kind = CDC_SQL_STMT_SHOW_CREATE;
        if (accept_kw(p, "VIEW"))
            stmt->show_create.view = true;
        else if (!accept_kw(p, "TABLE"))
            return cdc_sqlp_fail_expected(p, "\"TABLE\" or \"VIEW\"");
        return cdc_sqlp_parse_name(p, &stmt->show_create.name, 3,
                                   stmt->show_create.view ? "view name" : "table name");
    }
    return cdc_sqlp_fail_expected(
        p, "\"CATALOGS\", \"DATABASES\", \"TABLES\", \"VIEWS\", \"FUNCTIONS\", "
           "\"CURRENT\", \"PARTITIONS\" or \"CREATE\"");
}

/*
 * A SET key or value as the SQL client takes it: a quoted string, or unquoted source text.
 * An unquoted key is one run of words, dots, dashes and digits without blanks
 * (execution.checkpointing.interval, restart-strategy.type); an unquoted value is the text up
 * to the ";" with its blanks trimmed (3s, 8, true, my job).
 */
static bool parse_set_word(parser_t *p, bool value, char **out, int *line, int *col)
{
    static const char *hint = "write SET 'key' = 'value' (quotes are optional when the key is "
                              "one dotted word and the value has no ';')";
    if (at(p, CDC_SQL_TOK_STRING))
        return cdc_sqlp_parse_string(p, out, line, col);
    const tok_t *first = cur(p);
    size_t start = first->offset;
    while (!at(p, CDC_SQL_TOK_SEMICOLON) && !at(p, CDC_SQL_TOK_EOF) &&
           (value || (!at(p, CDC_SQL_TOK_EQ) &&
                      (p->pos == 0 || cur(p) == first || cur(p)->offset == p->prev_end)))) {
        cdc_sql_token_kind_t k = cur(p)->kind;
        if (!value && k != CDC_SQL_TOK_IDENT && k != CDC_SQL_TOK_DOT && k != CDC_SQL_TOK_MINUS &&
            k != CDC_SQL_TOK_INTEGER && k != CDC_SQL_TOK_DECIMAL)
            break;
        advance(p);
    }
    if (cur(p) == first)
        return fail_expected_hint(p, value ? "value" : "key", hint);
    *out = source_text(p, start, p->prev_end);
    *line = first->line;
    *col = first->col;
    return true;
}

/* SET [k = v] and RESET [k]: k and v quoted ('k' = 'v') or not (k = v), as in the SQL client. */
static bool parse_set(parser_t *p, cdc_sql_stmt_t *stmt, bool reset)
{
    cdc_sql_set_t *s = &stmt->set;
    stmt->kind = reset ? CDC_SQL_STMT_RESET : CDC_SQL_STMT_SET;
    advance(p);
    if (at(p, CDC_SQL_TOK_SEMICOLON) || at(p, CDC_SQL_TOK_EOF))
        return true;
    if (!parse_set_word(p, false, &s->key, &s->key_line, &s->key_col))
        return false;
    if (reset)
        return true;
    if (!cdc_sqlp_expect(p, CDC_SQL_TOK_EQ))
        return false;
    return parse_set_word(p, true, &s->value, &s->value_line, &s->value_col);
}

/* PARTITION (k = 'v', k2 = 12) */
static bool parse_partition_spec(parser_t *p, cdc_sql_options_t *spec)
{
    if (!cdc_sqlp_expect(p, CDC_SQL_TOK_LPAREN))
        return false;
    for (;;) {
        cdc_sql_ident_t key;
        if (!cdc_sqlp_parse_ident(p, &key, "column name"))
            return false;
        PUSH(spec->items, spec->count, (cdc_sql_option_t){0});
        cdc_sql_option_t *opt = &spec->items[spec->count - 1];
        opt->key = key.name;
        opt->line = key.line;
        opt->col = key.col;
        if (!cdc_sqlp_expect(p, CDC_SQL_TOK_EQ))
            return false;
        const tok_t *v = cur(p);
        if (v->kind != CDC_SQL_TOK_STRING && v->kind != CDC_SQL_TOK_INTEGER &&
            v->kind != CDC_SQL_TOK_DECIMAL)
            return cdc_sqlp_fail_expected(p, "literal");
        opt->value = tok_value(p, v);
        opt->value_line = v->line;
        opt->value_col = v->col;
        advance(p);
        if (accept(p, CDC_SQL_TOK_COMMA))
            continue;
        if (accept(p, CDC_SQL_TOK_RPAREN))
            return true;
        return cdc_sqlp_fail_expected(p, "\",\" or \")\"");
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
        return cdc_sqlp_fail_expected(p, "\"INTO\" or \"OVERWRITE\"");
    if (!cdc_sqlp_parse_name(p, &ins->table, 3, "table name") ||
        !cdc_sqlp_parse_hints(p, &ins->hints))
        return false;
    if (accept_kw(p, "PARTITION") && !parse_partition_spec(p, &ins->partition))
        return false;
    /* a column list, unless the "(" opens the query: INSERT INTO t (SELECT ...) UNION (...) */
    if (at(p, CDC_SQL_TOK_LPAREN) && !cdc_sqlp_at_query(p) &&
        !parse_paren_ident_list(p, &ins->columns, "column name"))
        return false;
    if (at_kw(p, "VALUES"))
        return (ins->query = cdc_sqlp_parse_values(p)) != NULL;
    if (!cdc_sqlp_at_query(p))
        return cdc_sqlp_fail_expected(p, "\"SELECT\", \"WITH\" or \"VALUES\"");
    return (ins->query = cdc_sqlp_parse_query(p)) != NULL;
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
            return cdc_sqlp_fail_expected(p, "\"INSERT\" or \"END\"");
        cdc_sql_stmt_t *ins = parse_insert_stmt(p);
        if (!ins)
            return false;
        PUSH(set->inserts, set->count, ins);
        if (!at(p, CDC_SQL_TOK_SEMICOLON) && !at_kw(p, "END"))
            return cdc_sqlp_fail_expected(p, "\";\" or \"END\"");
    }
}

/* [EXECUTE] STATEMENT SET BEGIN ... END; the first keyword is current. */
static bool parse_execute_set(parser_t *p, cdc_sql_stmt_t *stmt)
{
    stmt->kind = CDC_SQL_STMT_STATEMENT_SET;
    accept_kw(p, "EXECUTE");
    if (!cdc_sqlp_expect_kw(p, "STATEMENT") || !cdc_sqlp_expect_kw(p, "SET") ||
        !cdc_sqlp_expect_kw(p, "BEGIN"))
        return false;
    return parse_statement_set_body(p, stmt);
}

/* BEGIN STATEMENT SET; ... END (Flink SQL client form). */
static bool parse_begin_set(parser_t *p, cdc_sql_stmt_t *stmt)
{
    stmt->kind = CDC_SQL_STMT_STATEMENT_SET;
    advance(p); /* BEGIN */
    if (!cdc_sqlp_expect_kw(p, "STATEMENT") || !cdc_sqlp_expect_kw(p, "SET") ||
        !cdc_sqlp_expect(p, CDC_SQL_TOK_SEMICOLON))
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
    if (!ex->details && accept_kw(p, "PLAN") && !cdc_sqlp_expect_kw(p, "FOR"))
        return false;

    const tok_t *start = cur(p);
    cdc_sql_stmt_t *inner = stmt_new(start);
    ex->stmt = inner;
    bool ok;
    if (at_kw(p, "INSERT")) {
        ok = parse_insert(p, inner);
    } else if (cdc_sqlp_at_query(p)) {
        inner->kind = CDC_SQL_STMT_QUERY;
        ok = (inner->query = cdc_sqlp_parse_query(p)) != NULL;
    } else if (at_kw(p, "STATEMENT") || at_kw(p, "EXECUTE")) {
        ok = parse_execute_set(p, inner);
    } else {
        return cdc_sqlp_fail_expected(p, "\"SELECT\", \"INSERT\" or \"STATEMENT SET\"");
    }
    if (ok)
        inner->text = source_text(p, start->offset, p->prev_end);
    return ok;
}

/*
 * Flink SQL statements cdcflow does not run, recognised by their first words so that they are
 * refused by name ("TRUNCATE TABLE is not supported yet") rather than as a syntax error.
 * Returns true (and sets the error) when the current tokens start one of them.
 */
static bool refuse_flink_statement(parser_t *p)
{
    static const struct {
        const char *w[3];
        const char *hint;
    } forms[] = {
        {{"TRUNCATE", "TABLE"}, "cdcflow runs streaming INSERT jobs only"},
        {{"DELETE", "FROM"}, "cdcflow runs streaming INSERT jobs only"},
        {{"UPDATE"}, "cdcflow runs streaming INSERT jobs only"},
        {{"ANALYZE", "TABLE"}, NULL},
        {{"LOAD", "MODULE"}, "the built-in functions are always loaded"},
        {{"UNLOAD", "MODULE"}, "the built-in functions are always loaded"},
        {{"USE", "MODULES"}, "the built-in functions are always loaded"},
        {{"CALL"}, NULL},
        {{"ADD", "JAR"}, "user functions are C shared objects: CREATE FUNCTION f AS 'lib.so:sym'"},
        {{"REMOVE", "JAR"}, NULL},
        {{"SHOW", "JARS"}, NULL},
        {{"SHOW", "JOBS"}, "a job is one cdcflow process"},
        {{"STOP", "JOB"}, "a job is one cdcflow process: stop it with SIGTERM"},
        {{"SHOW", "MODULES"}, NULL},
        {{"SHOW", "FULL", "MODULES"}, NULL},
        {{"SHOW", "COLUMNS"}, "DESCRIBE t lists the columns"},
        {{"SHOW", "PROCEDURES"}, NULL},
        {{"SHOW", "USER", "FUNCTIONS"}, "SHOW FUNCTIONS lists them"},
        {{"SHOW", "MODELS"}, NULL},
        {{"SHOW", "MATERIALIZED", "TABLES"}, NULL},
        {{"SHOW", "CREATE", "CATALOG"}, NULL},
        {{"SHOW", "CREATE", "FUNCTION"}, NULL},
        {{"SHOW", "CREATE", "MATERIALIZED"}, NULL},
        {{"DESCRIBE", "EXTENDED"}, "DESCRIBE t"},
        {{"DESC", "EXTENDED"}, "DESCRIBE t"},
        {{"DESCRIBE", "CATALOG"}, NULL},
        {{"DESCRIBE", "DATABASE"}, NULL},
        {{"DESCRIBE", "FUNCTION"}, NULL},
        {{"DESCRIBE", "JOB"}, NULL},
        {{"ALTER", "VIEW"}, "DROP VIEW and CREATE VIEW again"},
        {{"ALTER", "DATABASE"}, NULL},
        {{"ALTER", "CATALOG"}, NULL},
        {{"ALTER", "FUNCTION"}, "DROP FUNCTION and CREATE FUNCTION again"},
        {{"ALTER", "MATERIALIZED", "TABLE"}, NULL},
        {{"ALTER", "MODEL"}, NULL},
        {{"CREATE", "MATERIALIZED", "TABLE"}, NULL},
        {{"CREATE", "MODEL"}, NULL},
        {{"CREATE", "TEMPORARY", "MODEL"}, NULL},
    };
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        size_t n = 0;
        while (n < 3 && forms[i].w[n] && peek_kw(p, n, forms[i].w[n]))
            n++;
        if (n == 0 || (n < 3 && forms[i].w[n]))
            continue; /* not all of its words */
        char what[64];
        snprintf(what, sizeof(what), "%s%s%s%s%s", forms[i].w[0], n > 1 ? " " : "",
                 n > 1 ? forms[i].w[1] : "", n > 2 ? " " : "", n > 2 ? forms[i].w[2] : "");
        return !cdc_sqlp_fail_unsupported(p, what, forms[i].hint);
    }
    return false;
}

static cdc_sql_stmt_t *parse_statement(parser_t *p)
{
    const tok_t *start = cur(p);
    cdc_sql_stmt_t *stmt = stmt_new(start);
    bool ok;
    if (refuse_flink_statement(p)) {
        ok = false;
    } else if (at_kw(p, "CREATE")) {
        ok = parse_create(p, stmt);
    } else if (at_kw(p, "DROP")) {
        ok = parse_drop(p, stmt);
    } else if (at_kw(p, "REPLACE") && peek_kw(p, 1, "TABLE")) {
        advance(p); /* REPLACE */
        ok = parse_replace_table(p, stmt, CDC_SQL_REPLACE);
    } else if (at_kw(p, "ALTER")) {
        ok = parse_alter_table(p, stmt);
    } else if (at_kw(p, "USE")) {
        ok = parse_use(p, stmt);
    } else if (at_kw(p, "SHOW")) {
        ok = parse_show(p, stmt);
    } else if (at_kw(p, "DESCRIBE") || at_kw(p, "DESC")) {
        stmt->kind = CDC_SQL_STMT_DESCRIBE;
        advance(p);
        ok = cdc_sqlp_parse_name(p, &stmt->describe, 3, "table name");
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
    } else if (cdc_sqlp_at_query(p)) {
        stmt->kind = CDC_SQL_STMT_QUERY;
        ok = (stmt->query = cdc_sqlp_parse_query(p)) != NULL;
    } else {
        ok = cdc_sqlp_fail_expected(p, "statement");
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
                cdc_sqlp_fail_at(&p, cur(&p), NULL, "%s", "");
            break;
        }
        cdc_sql_stmt_t *stmt = parse_statement(&p);
        if (!stmt)
            break;
        PUSH(script->stmts, script->count, stmt);
        if (!at(&p, CDC_SQL_TOK_SEMICOLON) && !at(&p, CDC_SQL_TOK_EOF)) {
            cdc_sqlp_fail_expected(&p, "\";\" or end of input");
            break;
        }
    }
    free(p.toks);
    free(p.named);
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
    case CDC_SQL_STMT_ALTER_TABLE:
        return "ALTER TABLE";
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
