/*
 * cdc_sql_lexer.c — tokenizer for cdcflow's Flink-style SQL, plus the
 * caret/syntax-error helpers shared with the parser.
 */
#include "cdc_sql_lexer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILENAME_OR_DEFAULT(f) ((f) ? (f) : "<input>")

/* Words that cannot be bare identifiers: they would make the grammar ambiguous
 * (an alias without AS, the end of an expression) or Flink reserves them and a
 * pipeline that used them bare would not run there either. Sorted. */
static const char *const reserved_words[] = {
    "ALL",       "AND",    "AS",          "BETWEEN",
    "BY",        "CASE",   "CAST",        "CONSTRAINT",
    "CREATE",    "CROSS",  "DISTINCT",    "DROP",
    "ELSE",      "END",    "EXCEPT",      "FALSE",
    "FOR",       "FROM",   "FULL",        "GROUP",
    "HAVING",    "IN",     "INNER",       "INSERT",
    "INTERSECT", "INTO",   "IS",          "JOIN",
    "LEFT",      "LIKE",   "LIMIT",       "MATCH_RECOGNIZE",
    "NOT",       "NULL",   "ON",          "OR",
    "ORDER",     "OUTER",  "PRIMARY",     "RIGHT",
    "SELECT",    "TABLE",  "TABLESAMPLE", "THEN",
    "TRUE",      "UNION",  "VALUES",      "WHEN",
    "WHERE",     "WINDOW", "WITH",
};

static int ascii_upper(int c)
{
    return (c >= 'a' && c <= 'z') ? c - 'a' + 'A' : c;
}

/* Case-insensitive (ASCII) comparison of a counted word with a NUL-terminated one. */
static bool word_equals(const char *word, size_t len, const char *kw)
{
    size_t i = 0;
    for (; i < len && kw[i]; i++)
        if (ascii_upper((unsigned char)word[i]) != ascii_upper((unsigned char)kw[i]))
            return false;
    return i == len && kw[i] == '\0';
}

bool cdc_sql_is_reserved(const char *word, size_t len)
{
    for (size_t i = 0; i < sizeof(reserved_words) / sizeof(reserved_words[0]); i++)
        if (word_equals(word, len, reserved_words[i]))
            return true;
    return false;
}

bool cdc_sql_token_is_keyword(const char *text, const cdc_sql_token_t *tok, const char *keyword)
{
    return tok->kind == CDC_SQL_TOK_IDENT && word_equals(text + tok->offset, tok->len, keyword);
}

const char *cdc_sql_token_kind_name(cdc_sql_token_kind_t kind)
{
    switch (kind) {
    case CDC_SQL_TOK_EOF:
        return "end of input";
    case CDC_SQL_TOK_IDENT:
        return "identifier";
    case CDC_SQL_TOK_QUOTED_IDENT:
        return "quoted identifier";
    case CDC_SQL_TOK_STRING:
        return "string literal";
    case CDC_SQL_TOK_INTEGER:
        return "integer literal";
    case CDC_SQL_TOK_DECIMAL:
        return "decimal literal";
    case CDC_SQL_TOK_LPAREN:
        return "\"(\"";
    case CDC_SQL_TOK_RPAREN:
        return "\")\"";
    case CDC_SQL_TOK_LBRACKET:
        return "\"[\"";
    case CDC_SQL_TOK_RBRACKET:
        return "\"]\"";
    case CDC_SQL_TOK_COMMA:
        return "\",\"";
    case CDC_SQL_TOK_SEMICOLON:
        return "\";\"";
    case CDC_SQL_TOK_DOT:
        return "\".\"";
    case CDC_SQL_TOK_EQ:
        return "\"=\"";
    case CDC_SQL_TOK_NE:
        return "\"<>\"";
    case CDC_SQL_TOK_LT:
        return "\"<\"";
    case CDC_SQL_TOK_LE:
        return "\"<=\"";
    case CDC_SQL_TOK_GT:
        return "\">\"";
    case CDC_SQL_TOK_GE:
        return "\">=\"";
    case CDC_SQL_TOK_PLUS:
        return "\"+\"";
    case CDC_SQL_TOK_MINUS:
        return "\"-\"";
    case CDC_SQL_TOK_STAR:
        return "\"*\"";
    case CDC_SQL_TOK_SLASH:
        return "\"/\"";
    case CDC_SQL_TOK_PERCENT:
        return "\"%\"";
    case CDC_SQL_TOK_CONCAT:
        return "\"||\"";
    case CDC_SQL_TOK_HINT_START:
        return "\"/*+\"";
    case CDC_SQL_TOK_HINT_END:
        return "\"*/\"";
    case CDC_SQL_TOK_USTRING:
        return "Unicode string literal";
    }
    return "token";
}

/* ---- caret and errors ---------------------------------------------------------------------- */

char *cdc_sql_caret(const char *text, size_t len, int line, int col)
{
    /* Find the start of the requested line. */
    size_t start = 0;
    int cur = 1;
    while (cur < line && start < len) {
        const char *nl = memchr(text + start, '\n', len - start);
        if (!nl) {
            start = len;
            break;
        }
        start = (size_t)(nl - text) + 1;
        cur++;
    }
    if (cur < line)
        start = len;
    size_t end = start;
    while (end < len && text[end] != '\n')
        end++;
    size_t shown = end;
    if (shown > start && text[shown - 1] == '\r')
        shown--;

    /* Caret line: one blank per character before the column, tabs kept. */
    size_t pad_cap = (shown - start) + (col > 0 ? (size_t)col : 1) + 2;
    char *pad = cdc_xmalloc(pad_cap);
    size_t npad = 0;
    int c = 1;
    for (size_t i = start; i < shown && c < col; i++) {
        unsigned char ch = (unsigned char)text[i];
        if ((ch & 0xC0) == 0x80)
            continue; /* UTF-8 continuation byte: same character */
        pad[npad++] = ch == '\t' ? '\t' : ' ';
        c++;
    }
    for (; c < col; c++)
        pad[npad++] = ' ';
    pad[npad] = '\0';

    char *out = cdc_strdup_printf("%.*s\n%s^", (int)(shown - start), text + start, pad);
    free(pad);
    return out;
}

cdc_error_t *cdc_sql_syntax_error(const char *filename, const char *text, size_t len, int line,
                                  int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = cdc_strdup_vprintf(fmt, ap);
    va_end(ap);
    cdc_error_t *err = cdc_error_new(CDC_ERR_SQL, "syntax error at %s:%d:%d: %s",
                                     FILENAME_OR_DEFAULT(filename), line, col, what);
    free(what);
    char *caret = cdc_sql_caret(text, len, line, col);
    cdc_error_set_detail(err, "%s", caret);
    free(caret);
    return err;
}

/* ---- scanning ------------------------------------------------------------------------------ */

void cdc_sql_lexer_init(cdc_sql_lexer_t *lex, const char *text, size_t len, const char *filename)
{
    memset(lex, 0, sizeof(*lex));
    lex->text = text ? text : "";
    lex->len = text ? len : 0;
    lex->filename = filename;
    lex->line = 1;
    lex->col = 1;
    lex->end_line = 1;
    lex->end_col = 1;
}

static int peek_at(const cdc_sql_lexer_t *lex, size_t ahead)
{
    size_t i = lex->pos + ahead;
    return i < lex->len ? (unsigned char)lex->text[i] : -1;
}

/* Consumes one byte, keeping line and column (in characters) up to date. */
static void bump(cdc_sql_lexer_t *lex)
{
    unsigned char ch = (unsigned char)lex->text[lex->pos++];
    if (ch == '\n') {
        lex->line++;
        lex->col = 1;
    } else if ((ch & 0xC0) != 0x80) {
        lex->col++;
    }
}

static bool is_ident_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static bool is_ident_part(int c)
{
    return is_ident_start(c) || is_digit(c) || c == '$';
}

static int lex_fail(cdc_sql_lexer_t *lex, int line, int col, cdc_error_t **err, const char *hint,
                    const char *what)
{
    if (err) {
        cdc_error_destroy(*err);
        *err = cdc_sql_syntax_error(lex->filename, lex->text, lex->len, line, col, "%s", what);
        if (hint)
            cdc_error_set_hint(*err, "%s", hint);
    }
    return -1;
}

/* Skips blanks and comments; fails on an unterminated block comment. */
static int skip_space(cdc_sql_lexer_t *lex, cdc_error_t **err)
{
    for (;;) {
        int c = peek_at(lex, 0);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            bump(lex);
        } else if (c == '-' && peek_at(lex, 1) == '-') {
            while (lex->pos < lex->len && lex->text[lex->pos] != '\n')
                bump(lex);
        } else if (c == '/' && peek_at(lex, 1) == '*' && peek_at(lex, 2) != '+') {
            int line = lex->line, col = lex->col;
            bump(lex);
            bump(lex);
            for (;;) {
                if (lex->pos >= lex->len)
                    return lex_fail(lex, line, col, err, "close the comment with \"*/\"",
                                    "unterminated comment");
                if (peek_at(lex, 0) == '*' && peek_at(lex, 1) == '/') {
                    bump(lex);
                    bump(lex);
                    break;
                }
                bump(lex);
            }
        } else {
            return 0;
        }
    }
}

/* Scans a quoted token whose quote is doubled to escape it. */
static int scan_quoted(cdc_sql_lexer_t *lex, char quote, cdc_error_t **err, int line, int col)
{
    bump(lex); /* opening quote */
    for (;;) {
        if (lex->pos >= lex->len) {
            if (quote == '\'')
                return lex_fail(lex, line, col, err,
                                "close the string with a single quote; write '' for a quote "
                                "inside it",
                                "unterminated string literal");
            return lex_fail(lex, line, col, err,
                            "close the identifier with a backtick; write `` for a backtick "
                            "inside it",
                            "unterminated quoted identifier");
        }
        if (peek_at(lex, 0) == quote) {
            if (peek_at(lex, 1) == quote) {
                bump(lex);
                bump(lex);
                continue;
            }
            bump(lex);
            return 0;
        }
        bump(lex);
    }
}

static void scan_number(cdc_sql_lexer_t *lex, cdc_sql_token_kind_t *kind)
{
    *kind = CDC_SQL_TOK_INTEGER;
    while (is_digit(peek_at(lex, 0)))
        bump(lex);
    if (peek_at(lex, 0) == '.' && is_digit(peek_at(lex, 1))) {
        *kind = CDC_SQL_TOK_DECIMAL;
        bump(lex);
        while (is_digit(peek_at(lex, 0)))
            bump(lex);
    }
    int e = peek_at(lex, 0);
    if (e == 'e' || e == 'E') {
        int s = peek_at(lex, 1);
        size_t digits_at = (s == '+' || s == '-') ? 2 : 1;
        if (is_digit(peek_at(lex, digits_at))) {
            *kind = CDC_SQL_TOK_DECIMAL;
            for (size_t i = 0; i < digits_at; i++)
                bump(lex);
            while (is_digit(peek_at(lex, 0)))
                bump(lex);
        }
    }
}

int cdc_sql_lexer_next(cdc_sql_lexer_t *lex, cdc_sql_token_t *tok, cdc_error_t **err)
{
    if (skip_space(lex, err) < 0)
        return -1;
    memset(tok, 0, sizeof(*tok));
    tok->offset = lex->pos;
    tok->line = lex->line;
    tok->col = lex->col;
    if (lex->pos >= lex->len) {
        tok->kind = CDC_SQL_TOK_EOF;
        tok->line = lex->end_line;
        tok->col = lex->end_col;
        return 0;
    }

    int c = peek_at(lex, 0);
    int n = peek_at(lex, 1);
    cdc_sql_token_kind_t kind;
    size_t width = 1; /* for operators */

    if ((c == 'U' || c == 'u') && n == '&' && peek_at(lex, 2) == '\'') {
        bump(lex);
        bump(lex);
        if (scan_quoted(lex, '\'', err, tok->line, tok->col) < 0)
            return -1;
        kind = CDC_SQL_TOK_USTRING;
        width = 0;
    } else if (c == '/' && n == '*' && peek_at(lex, 2) == '+') {
        kind = CDC_SQL_TOK_HINT_START;
        width = 3;
        lex->in_hint = true;
    } else if (lex->in_hint && c == '*' && n == '/') {
        kind = CDC_SQL_TOK_HINT_END;
        width = 2;
        lex->in_hint = false;
    } else if (is_ident_start(c)) {
        kind = CDC_SQL_TOK_IDENT;
        while (is_ident_part(peek_at(lex, 0)))
            bump(lex);
        width = 0;
    } else if (is_digit(c) || (c == '.' && is_digit(n))) {
        scan_number(lex, &kind);
        width = 0;
    } else if (c == '\'' || c == '`') {
        if (scan_quoted(lex, (char)c, err, tok->line, tok->col) < 0)
            return -1;
        kind = c == '\'' ? CDC_SQL_TOK_STRING : CDC_SQL_TOK_QUOTED_IDENT;
        if (kind == CDC_SQL_TOK_QUOTED_IDENT && lex->pos - tok->offset == 2)
            return lex_fail(lex, tok->line, tok->col, err, NULL, "zero-length quoted identifier");
        width = 0;
    } else {
        switch (c) {
        case '(':
            kind = CDC_SQL_TOK_LPAREN;
            break;
        case ')':
            kind = CDC_SQL_TOK_RPAREN;
            break;
        case '[':
            kind = CDC_SQL_TOK_LBRACKET;
            break;
        case ']':
            kind = CDC_SQL_TOK_RBRACKET;
            break;
        case ',':
            kind = CDC_SQL_TOK_COMMA;
            break;
        case ';':
            kind = CDC_SQL_TOK_SEMICOLON;
            break;
        case '.':
            kind = CDC_SQL_TOK_DOT;
            break;
        case '=':
            kind = CDC_SQL_TOK_EQ;
            break;
        case '+':
            kind = CDC_SQL_TOK_PLUS;
            break;
        case '-':
            kind = CDC_SQL_TOK_MINUS;
            break;
        case '*':
            kind = CDC_SQL_TOK_STAR;
            break;
        case '/':
            kind = CDC_SQL_TOK_SLASH;
            break;
        case '%':
            kind = CDC_SQL_TOK_PERCENT;
            break;
        case '<':
            if (n == '>') {
                kind = CDC_SQL_TOK_NE;
                width = 2;
            } else if (n == '=') {
                kind = CDC_SQL_TOK_LE;
                width = 2;
            } else {
                kind = CDC_SQL_TOK_LT;
            }
            break;
        case '>':
            if (n == '=') {
                kind = CDC_SQL_TOK_GE;
                width = 2;
            } else {
                kind = CDC_SQL_TOK_GT;
            }
            break;
        case '!':
            if (n != '=')
                goto bad_char;
            kind = CDC_SQL_TOK_NE;
            width = 2;
            break;
        case '|':
            if (n != '|')
                goto bad_char;
            kind = CDC_SQL_TOK_CONCAT;
            width = 2;
            break;
        default:
            goto bad_char;
        }
    }
    for (size_t i = 0; i < width; i++)
        bump(lex);
    tok->kind = kind;
    tok->len = lex->pos - tok->offset;
    lex->end_line = lex->line;
    lex->end_col = lex->col;
    return 0;

bad_char:;
    char what[48];
    const char *hint = NULL;
    if (c == '"') {
        snprintf(what, sizeof(what), "unexpected character '\"'");
        hint = "quote identifiers with backticks (`name`) and strings with single quotes ('text')";
    } else if (c < 0x20 || c == 0x7F) {
        snprintf(what, sizeof(what), "unexpected character 0x%02X", (unsigned)c);
    } else {
        snprintf(what, sizeof(what), "unexpected character \"%c\"", c);
    }
    return lex_fail(lex, tok->line, tok->col, err, hint, what);
}

char *cdc_sql_token_value(const char *text, const cdc_sql_token_t *tok)
{
    const char *raw = text + tok->offset;
    if (tok->kind == CDC_SQL_TOK_USTRING && tok->len >= 4) {
        cdc_sql_token_t inner = *tok;
        inner.kind = CDC_SQL_TOK_STRING;
        inner.offset += 2;
        inner.len -= 2;
        return cdc_sql_token_value(text, &inner);
    }
    if ((tok->kind != CDC_SQL_TOK_STRING && tok->kind != CDC_SQL_TOK_QUOTED_IDENT) || tok->len < 2)
        return cdc_xstrndup(raw, tok->len);
    char quote = raw[0];
    char *out = cdc_xmalloc(tok->len);
    size_t n = 0;
    for (size_t i = 1; i + 1 < tok->len; i++) {
        out[n++] = raw[i];
        if (raw[i] == quote && i + 2 < tok->len && raw[i + 1] == quote)
            i++;
    }
    out[n] = '\0';
    return out;
}
