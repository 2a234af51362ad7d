/*
 * cdc_sql_lexer.h — the tokenizer for cdcflow's Flink-style SQL.
 *
 * Turns script text into tokens that point back into the text (offset,
 * length, 1-based line and column). Bare words are one token kind: the
 * parser decides from context whether a word is a keyword, comparing it
 * case-insensitively, so identifiers keep the case they were written in.
 * Backtick-quoted identifiers, single-quoted strings and comments follow
 * Flink SQL: `a``b` and 'it''s' are escapes, comments run from "--" to
 * the end of the line or are C-style blocks (not nested).
 *
 * Columns count characters (UTF-8 code points), a tab counting as one, so
 * cdc_sql_caret() can copy tabs from the source line and the caret lines up.
 */
#ifndef CDC_SQL_LEXER_H
#define CDC_SQL_LEXER_H

#include <stdbool.h>
#include <stddef.h>

#include "cdc_error.h"

typedef enum cdc_sql_token_kind {
    CDC_SQL_TOK_EOF = 0,
    CDC_SQL_TOK_IDENT,        /* bare word: identifier or keyword */
    CDC_SQL_TOK_QUOTED_IDENT, /* `my col` */
    CDC_SQL_TOK_STRING,       /* 'text' */
    CDC_SQL_TOK_INTEGER,      /* 42 */
    CDC_SQL_TOK_DECIMAL,      /* 4.2, .5, 1e3 */
    CDC_SQL_TOK_LPAREN,       /* ( */
    CDC_SQL_TOK_RPAREN,       /* ) */
    CDC_SQL_TOK_LBRACKET,     /* [ */
    CDC_SQL_TOK_RBRACKET,     /* ] */
    CDC_SQL_TOK_COMMA,        /* , */
    CDC_SQL_TOK_SEMICOLON,    /* ; */
    CDC_SQL_TOK_DOT,          /* . */
    CDC_SQL_TOK_EQ,           /* = */
    CDC_SQL_TOK_NE,           /* <> or != */
    CDC_SQL_TOK_LT,           /* < */
    CDC_SQL_TOK_LE,           /* <= */
    CDC_SQL_TOK_GT,           /* > */
    CDC_SQL_TOK_GE,           /* >= */
    CDC_SQL_TOK_PLUS,         /* + */
    CDC_SQL_TOK_MINUS,        /* - */
    CDC_SQL_TOK_STAR,         /* * */
    CDC_SQL_TOK_SLASH,        /* / */
    CDC_SQL_TOK_PERCENT,      /* % */
    CDC_SQL_TOK_CONCAT,       /* || */
    CDC_SQL_TOK_HINT_START,   /* the slash, star, plus that opens a hint comment */
    CDC_SQL_TOK_HINT_END,     /* the star, slash that closes it */
    CDC_SQL_TOK_USTRING /* U&'text': a Unicode string literal (escapes undone by the parser) */
} cdc_sql_token_kind_t;

typedef struct cdc_sql_token {
    cdc_sql_token_kind_t kind;
    size_t offset; /* of the first byte in the script text */
    size_t len;    /* raw length, quotes included; 0 for EOF */
    int line;      /* 1-based */
    int col;       /* 1-based, in characters */
} cdc_sql_token_t;

/* Lexer state; fields are private, the struct is public so it can live on the stack. */
typedef struct cdc_sql_lexer {
    const char *text;
    size_t len;
    const char *filename;
    size_t pos;
    int line;
    int col;
    int end_line; /* position just after the last token returned */
    int end_col;
    bool in_hint; /* inside a hint comment */
} cdc_sql_lexer_t;

/**
 * Prepares @p lex to tokenize @p text (@p len bytes, need not be NUL-terminated).
 * The lexer borrows @p text and @p filename (NULL prints as "<input>"); both must
 * outlive it. Nothing is allocated, there is no destroy.
 */
void cdc_sql_lexer_init(cdc_sql_lexer_t *lex, const char *text, size_t len, const char *filename);

/**
 * Reads the next token into @p tok. At the end of the text returns a
 * CDC_SQL_TOK_EOF token placed just after the last real token (1:1 for an
 * empty script), and keeps returning it.
 *
 * Returns 0 on success. On a lexical error (unterminated string, comment or
 * quoted identifier, unexpected character) returns -1 and stores in @p err a
 * new CDC_ERR_SQL error the caller owns, positioned at the start of the bad
 * token: "syntax error at FILE:LINE:COL: unterminated string literal".
 */
int cdc_sql_lexer_next(cdc_sql_lexer_t *lex, cdc_sql_token_t *tok, cdc_error_t **err);

/**
 * Returns the value of @p tok as a new NUL-terminated string the caller
 * frees: quotes removed and escapes undone for strings and quoted
 * identifiers, the raw text for every other kind. @p text is the script.
 */
char *cdc_sql_token_value(const char *text, const cdc_sql_token_t *tok);

/** True when @p tok is a bare word equal to @p keyword, ignoring ASCII case. */
bool cdc_sql_token_is_keyword(const char *text, const cdc_sql_token_t *tok, const char *keyword);

/**
 * True when the word (@p len bytes, any case) is reserved in cdcflow's
 * grammar and must be backtick-quoted to be used as an identifier.
 */
bool cdc_sql_is_reserved(const char *word, size_t len);

/** A short English name of a token kind ("identifier", "\")\"") for messages. Static string. */
const char *cdc_sql_token_kind_name(cdc_sql_token_kind_t kind);

/**
 * Builds the two-line "source line, then a caret" text used as the DETAIL of
 * SQL errors: line @p line of @p text (without its line break), a newline,
 * then one blank per character before column @p col (tabs copied as tabs)
 * and "^". A line past the end of the text prints as empty. Returns a new
 * string the caller frees.
 */
char *cdc_sql_caret(const char *text, size_t len, int line, int col);

/**
 * Creates a CDC_ERR_SQL error whose message is "syntax error at
 * FILE:LINE:COL: " followed by the formatted text, with the
 * cdc_sql_caret() detail. @p filename NULL prints as "<input>". The caller
 * owns the returned error. Used by the lexer and the parser.
 */
cdc_error_t *cdc_sql_syntax_error(const char *filename, const char *text, size_t len, int line,
                                  int col, const char *fmt, ...) CDC_PRINTF(6, 7);

#endif
