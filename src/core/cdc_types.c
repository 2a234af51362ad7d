/*
 * cdc_types.c — logical types: SQL text parser and printer, copy, equality.
 */
#include "cdc_types.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const root_names[CDC_T__COUNT] = {
    [CDC_T_BOOLEAN] = "BOOLEAN",
    [CDC_T_TINYINT] = "TINYINT",
    [CDC_T_SMALLINT] = "SMALLINT",
    [CDC_T_INT] = "INT",
    [CDC_T_BIGINT] = "BIGINT",
    [CDC_T_FLOAT] = "FLOAT",
    [CDC_T_DOUBLE] = "DOUBLE",
    [CDC_T_DECIMAL] = "DECIMAL",
    [CDC_T_CHAR] = "CHAR",
    [CDC_T_VARCHAR] = "VARCHAR",
    [CDC_T_BINARY] = "BINARY",
    [CDC_T_VARBINARY] = "VARBINARY",
    [CDC_T_DATE] = "DATE",
    [CDC_T_TIME] = "TIME",
    [CDC_T_TIMESTAMP] = "TIMESTAMP",
    [CDC_T_TIMESTAMP_LTZ] = "TIMESTAMP_LTZ",
    [CDC_T_ARRAY] = "ARRAY",
    [CDC_T_MAP] = "MAP",
    [CDC_T_ROW] = "ROW",
    [CDC_T_MULTISET] = "MULTISET",
};

const char *cdc_type_root_name(cdc_type_root_t root)
{
    return root < CDC_T__COUNT ? root_names[root] : "?";
}

cdc_type_t *cdc_type_new(cdc_type_root_t root)
{
    cdc_type_t *t = cdc_xcalloc(1, sizeof(*t));
    t->root = root;
    t->nullable = true;
    switch (root) {
    case CDC_T_DECIMAL:
        t->precision = 10;
        break;
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
    case CDC_T_BINARY:
    case CDC_T_VARBINARY:
        t->length = 1;
        break;
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ:
        t->precision = 6;
        break;
    default:
        break;
    }
    return t;
}

cdc_type_t *cdc_type_new_decimal(int precision, int scale)
{
    cdc_type_t *t = cdc_type_new(CDC_T_DECIMAL);
    t->precision = precision;
    t->scale = scale;
    return t;
}

cdc_type_t *cdc_type_new_sized(cdc_type_root_t root, int32_t n)
{
    cdc_type_t *t = cdc_type_new(root);
    if (root == CDC_T_TIME || root == CDC_T_TIMESTAMP || root == CDC_T_TIMESTAMP_LTZ ||
        root == CDC_T_DECIMAL)
        t->precision = n;
    else
        t->length = n;
    return t;
}

static void add_child(cdc_type_t *t, const char *name, cdc_type_t *child)
{
    t->children = cdc_xrealloc(t->children, sizeof(*t->children) * (size_t)(t->nchildren + 1));
    if (t->root == CDC_T_ROW) {
        t->names = cdc_xrealloc(t->names, sizeof(*t->names) * (size_t)(t->nchildren + 1));
        t->names[t->nchildren] = cdc_xstrdup(name);
    }
    t->children[t->nchildren++] = child;
}

cdc_type_t *cdc_type_new_row(void)
{
    return cdc_type_new(CDC_T_ROW);
}

void cdc_type_row_add(cdc_type_t *row, const char *name, cdc_type_t *child)
{
    add_child(row, name, child);
}

cdc_type_t *cdc_type_new_array(cdc_type_t *elem)
{
    cdc_type_t *t = cdc_type_new(CDC_T_ARRAY);
    add_child(t, NULL, elem);
    return t;
}

cdc_type_t *cdc_type_new_map(cdc_type_t *key, cdc_type_t *value)
{
    cdc_type_t *t = cdc_type_new(CDC_T_MAP);
    add_child(t, NULL, key);
    add_child(t, NULL, value);
    return t;
}

static const cdc_type_t multiset_count = {.root = CDC_T_INT, .nullable = false};

bool cdc_type_is_map_like(const cdc_type_t *t)
{
    return t && (t->root == CDC_T_MAP || t->root == CDC_T_MULTISET);
}

bool cdc_type_contains(const cdc_type_t *t, cdc_type_root_t root)
{
    if (t->root == root)
        return true;
    for (int i = 0; i < t->nchildren; i++)
        if (cdc_type_contains(t->children[i], root))
            return true;
    return false;
}

const cdc_type_t *cdc_type_map_value(const cdc_type_t *t)
{
    return t->root == CDC_T_MULTISET ? &multiset_count : t->children[1];
}

void cdc_type_destroy(cdc_type_t *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nchildren; i++) {
        cdc_type_destroy(t->children[i]);
        if (t->names)
            free(t->names[i]);
    }
    free(t->children);
    free(t->names);
    free(t);
}

cdc_type_t *cdc_type_copy(const cdc_type_t *src)
{
    cdc_type_t *t = cdc_xmalloc(sizeof(*t));
    *t = *src;
    t->children = NULL;
    t->names = NULL;
    t->nchildren = 0;
    for (int i = 0; i < src->nchildren; i++)
        add_child(t, src->names ? src->names[i] : NULL, cdc_type_copy(src->children[i]));
    return t;
}

bool cdc_type_equals(const cdc_type_t *a, const cdc_type_t *b)
{
    if (a->root != b->root || a->nullable != b->nullable || a->length != b->length ||
        a->precision != b->precision || a->scale != b->scale || a->nchildren != b->nchildren)
        return false;
    for (int i = 0; i < a->nchildren; i++) {
        if (a->names && strcmp(a->names[i], b->names[i]) != 0)
            return false;
        if (!cdc_type_equals(a->children[i], b->children[i]))
            return false;
    }
    return true;
}

int cdc_type_field_index(const cdc_type_t *row, const char *name)
{
    for (int i = 0; i < row->nchildren; i++)
        if (strcmp(row->names[i], name) == 0)
            return i;
    return -1;
}

bool cdc_type_is_integer(const cdc_type_t *t)
{
    return t->root >= CDC_T_TINYINT && t->root <= CDC_T_BIGINT;
}

/* ---- printing ---------------------------------------------------------- */

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf_t;

static void sb_put(sbuf_t *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = cdc_xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_puts(sbuf_t *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

static bool plain_ident(const char *s)
{
    if (!(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return false;
    return true;
}

static void print_type(sbuf_t *b, const cdc_type_t *t)
{
    char tmp[64];
    switch (t->root) {
    case CDC_T_DECIMAL:
        snprintf(tmp, sizeof(tmp), "DECIMAL(%d, %d)", t->precision, t->scale);
        sb_puts(b, tmp);
        break;
    case CDC_T_VARCHAR:
        if (t->length == CDC_MAX_LENGTH) {
            sb_puts(b, "STRING");
            break;
        }
        /* fall through */
    case CDC_T_CHAR:
    case CDC_T_BINARY:
        snprintf(tmp, sizeof(tmp), "%s(%d)", root_names[t->root], t->length);
        sb_puts(b, tmp);
        break;
    case CDC_T_VARBINARY:
        if (t->length == CDC_MAX_LENGTH)
            sb_puts(b, "BYTES");
        else {
            snprintf(tmp, sizeof(tmp), "VARBINARY(%d)", t->length);
            sb_puts(b, tmp);
        }
        break;
    case CDC_T_TIME:
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ:
        snprintf(tmp, sizeof(tmp), "%s(%d)", root_names[t->root], t->precision);
        sb_puts(b, tmp);
        break;
    case CDC_T_ARRAY:
    case CDC_T_MULTISET:
        sb_puts(b, root_names[t->root]);
        sb_puts(b, "<");
        print_type(b, t->children[0]);
        sb_puts(b, ">");
        break;
    case CDC_T_MAP:
        sb_puts(b, "MAP<");
        print_type(b, t->children[0]);
        sb_puts(b, ", ");
        print_type(b, t->children[1]);
        sb_puts(b, ">");
        break;
    case CDC_T_ROW:
        sb_puts(b, "ROW<");
        for (int i = 0; i < t->nchildren; i++) {
            if (i)
                sb_puts(b, ", ");
            if (plain_ident(t->names[i])) {
                sb_puts(b, t->names[i]);
            } else {
                sb_puts(b, "`");
                for (const char *s = t->names[i]; *s; s++) {
                    if (*s == '`')
                        sb_puts(b, "``");
                    else
                        sb_put(b, s, 1);
                }
                sb_puts(b, "`");
            }
            sb_puts(b, " ");
            print_type(b, t->children[i]);
        }
        sb_puts(b, ">");
        break;
    default:
        sb_puts(b, root_names[t->root]);
        break;
    }
    if (!t->nullable)
        sb_puts(b, " NOT NULL");
}

char *cdc_type_to_string(const cdc_type_t *type)
{
    sbuf_t b = {0};
    print_type(&b, type);
    return b.p;
}

/* ---- parsing ----------------------------------------------------------- */

typedef struct tparser {
    const char *text;
    size_t len;
    size_t pos;
    /* current token */
    size_t tok_start, tok_len;
    enum { TK_END, TK_WORD, TK_NUMBER, TK_PUNCT, TK_QUOTED, TK_STRING, TK_BAD } tok;
    cdc_error_t **err;
    bool failed;
} tparser_t;

static void next_token(tparser_t *p)
{
    while (p->pos < p->len && isspace((unsigned char)p->text[p->pos]))
        p->pos++;
    p->tok_start = p->pos;
    if (p->pos >= p->len) {
        p->tok = TK_END;
        p->tok_len = 0;
        return;
    }
    char c = p->text[p->pos];
    if (isalpha((unsigned char)c) || c == '_') {
        while (p->pos < p->len &&
               (isalnum((unsigned char)p->text[p->pos]) || p->text[p->pos] == '_'))
            p->pos++;
        p->tok = TK_WORD;
    } else if (isdigit((unsigned char)c)) {
        while (p->pos < p->len && isdigit((unsigned char)p->text[p->pos]))
            p->pos++;
        p->tok = TK_NUMBER;
    } else if (c == '`' || c == '\'') {
        p->pos++;
        for (;;) {
            if (p->pos >= p->len) {
                p->tok = TK_BAD;
                p->tok_len = p->pos - p->tok_start;
                return;
            }
            if (p->text[p->pos] == c) {
                if (p->pos + 1 < p->len && p->text[p->pos + 1] == c) {
                    p->pos += 2;
                    continue;
                }
                p->pos++;
                break;
            }
            p->pos++;
        }
        p->tok = c == '`' ? TK_QUOTED : TK_STRING;
    } else {
        p->pos++;
        p->tok = TK_PUNCT;
    }
    p->tok_len = p->pos - p->tok_start;
}

static bool is_word(tparser_t *p, const char *w)
{
    return p->tok == TK_WORD && strlen(w) == p->tok_len &&
           strncasecmp(p->text + p->tok_start, w, p->tok_len) == 0;
}

static bool is_punct(tparser_t *p, char c)
{
    return p->tok == TK_PUNCT && p->text[p->tok_start] == c;
}

static void fail(tparser_t *p, const char *expected)
{
    if (p->failed)
        return;
    p->failed = true;
    if (p->tok == TK_END)
        cdc_error_set(p->err, CDC_ERR_PARSE,
                      "invalid data type at column %zu: expected %s, found end of input",
                      p->tok_start + 1, expected);
    else if (p->tok == TK_BAD)
        cdc_error_set(p->err, CDC_ERR_PARSE,
                      "invalid data type at column %zu: unterminated quoted name",
                      p->tok_start + 1);
    else
        cdc_error_set(p->err, CDC_ERR_PARSE,
                      "invalid data type at column %zu: expected %s, found \"%.*s\"",
                      p->tok_start + 1, expected, (int)p->tok_len, p->text + p->tok_start);
    if (p->err && *p->err)
        cdc_error_set_detail(*p->err, "%.*s\n%*s^", (int)p->len, p->text, (int)p->tok_start, "");
}

static bool expect_punct(tparser_t *p, char c)
{
    if (!is_punct(p, c)) {
        char what[8];
        snprintf(what, sizeof(what), "\"%c\"", c);
        fail(p, what);
        return false;
    }
    next_token(p);
    return true;
}

static bool expect_punct(tparser_t *p, char c);

/* Reads "(n)" when present; returns def otherwise. */
static int32_t opt_size(tparser_t *p, int32_t def, int32_t min, int32_t max, const char *what)
{
    if (!is_punct(p, '('))
        return def;
    next_token(p);
    if (p->tok != TK_NUMBER) {
        fail(p, what);
        return def;
    }
    size_t at = p->tok_start;
    long long v = 0;
    for (size_t i = 0; i < p->tok_len && v <= (long long)max + 1; i++)
        v = v * 10 + (p->text[p->tok_start + i] - '0');
    if (v < min || v > max) {
        p->failed = true;
        cdc_error_set(p->err, CDC_ERR_PARSE,
                      "invalid data type at column %zu: %s must be between %d and %d, found %.*s",
                      at + 1, what, min, max, (int)p->tok_len, p->text + p->tok_start);
        return def;
    }
    next_token(p);
    if (!expect_punct(p, ')'))
        return def;
    return (int32_t)v;
}

static cdc_type_t *parse_type(tparser_t *p, int depth);

static char *unquote(tparser_t *p)
{
    if (p->tok == TK_WORD)
        return cdc_xstrndup(p->text + p->tok_start, p->tok_len);
    /* backtick-quoted: drop quotes, collapse doubled backticks */
    char *s = cdc_xmalloc(p->tok_len);
    size_t n = 0;
    for (size_t i = p->tok_start + 1; i < p->tok_start + p->tok_len - 1; i++) {
        s[n++] = p->text[i];
        if (p->text[i] == '`')
            i++;
    }
    s[n] = '\0';
    return s;
}

static cdc_type_t *parse_row_fields(tparser_t *p, cdc_type_t *row, char close, int depth)
{
    next_token(p);
    if (is_punct(p, close)) {
        next_token(p);
        return row;
    }
    for (;;) {
        if (p->tok != TK_WORD && p->tok != TK_QUOTED) {
            fail(p, "a field name");
            return row;
        }
        char *name = unquote(p);
        if (cdc_type_field_index(row, name) >= 0) {
            p->failed = true;
            cdc_error_set(p->err, CDC_ERR_PARSE,
                          "invalid data type at column %zu: duplicate field name \"%s\"",
                          p->tok_start + 1, name);
            free(name);
            return row;
        }
        next_token(p);
        cdc_type_t *child = parse_type(p, depth + 1);
        if (!child) {
            free(name);
            return row;
        }
        add_child(row, name, child);
        free(name);
        if (p->tok == TK_STRING) /* field comment */
            next_token(p);
        if (is_punct(p, ',')) {
            next_token(p);
            continue;
        }
        if (!is_punct(p, close)) {
            fail(p, close == '>' ? "\",\" or \">\"" : "\",\" or \")\"");
            return row;
        }
        next_token(p);
        return row;
    }
}

/* Consumes "TIME ZONE"; false (and an error) when something else follows. */
static bool expect_time_zone(tparser_t *p)
{
    if (!is_word(p, "TIME")) {
        fail(p, "\"TIME ZONE\"");
        return false;
    }
    next_token(p);
    if (!is_word(p, "ZONE")) {
        fail(p, "\"ZONE\"");
        return false;
    }
    next_token(p);
    return true;
}

static cdc_type_t *parse_type(tparser_t *p, int depth)
{
    if (depth > 64) {
        fail(p, "a shallower type (nesting deeper than 64)");
        return NULL;
    }
    cdc_type_t *t = NULL;
    if (p->tok != TK_WORD) {
        fail(p, "a data type");
        return NULL;
    }
    /* keywords that name a type with no parameters */
    static const struct {
        const char *word;
        cdc_type_root_t root;
    } plain[] = {
        {"BOOLEAN", CDC_T_BOOLEAN}, {"TINYINT", CDC_T_TINYINT}, {"SMALLINT", CDC_T_SMALLINT},
        {"INT", CDC_T_INT},         {"INTEGER", CDC_T_INT},     {"BIGINT", CDC_T_BIGINT},
        {"FLOAT", CDC_T_FLOAT},     {"DATE", CDC_T_DATE},
    };
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]) && !t; i++) {
        if (is_word(p, plain[i].word)) {
            t = cdc_type_new(plain[i].root);
            next_token(p);
        }
    }
    if (t) {
        /* done */
    } else if (is_word(p, "DOUBLE")) {
        t = cdc_type_new(CDC_T_DOUBLE);
        next_token(p);
        if (is_word(p, "PRECISION"))
            next_token(p);
    } else if (is_word(p, "DECIMAL") || is_word(p, "DEC") || is_word(p, "NUMERIC")) {
        t = cdc_type_new(CDC_T_DECIMAL);
        next_token(p);
        if (is_punct(p, '(')) {
            next_token(p);
            if (p->tok != TK_NUMBER) {
                fail(p, "a precision");
                goto bad;
            }
            /* reuse opt_size by stepping back: parse manually */
            long long v = 0;
            for (size_t i = 0; i < p->tok_len && v < 1000; i++)
                v = v * 10 + (p->text[p->tok_start + i] - '0');
            if (v < 1 || v > CDC_MAX_DECIMAL_PRECISION) {
                p->failed = true;
                cdc_error_set(p->err, CDC_ERR_PARSE,
                              "invalid data type at column %zu: decimal precision must be "
                              "between 1 and 38, found %.*s",
                              p->tok_start + 1, (int)p->tok_len, p->text + p->tok_start);
                goto bad;
            }
            t->precision = (int32_t)v;
            t->scale = 0;
            next_token(p);
            if (is_punct(p, ',')) {
                next_token(p);
                if (p->tok != TK_NUMBER) {
                    fail(p, "a scale");
                    goto bad;
                }
                long long s = 0;
                for (size_t i = 0; i < p->tok_len && s < 1000; i++)
                    s = s * 10 + (p->text[p->tok_start + i] - '0');
                if (s > v) {
                    p->failed = true;
                    cdc_error_set(p->err, CDC_ERR_PARSE,
                                  "invalid data type at column %zu: decimal scale must be "
                                  "between 0 and the precision %lld, found %.*s",
                                  p->tok_start + 1, v, (int)p->tok_len, p->text + p->tok_start);
                    goto bad;
                }
                t->scale = (int32_t)s;
                next_token(p);
            }
            if (!expect_punct(p, ')'))
                goto bad;
        }
    } else if (is_word(p, "CHAR") || is_word(p, "CHARACTER")) {
        next_token(p);
        if (is_word(p, "VARYING")) {
            next_token(p);
            t = cdc_type_new(CDC_T_VARCHAR);
        } else {
            t = cdc_type_new(CDC_T_CHAR);
        }
        t->length = opt_size(p, 1, 1, CDC_MAX_LENGTH, "a length");
    } else if (is_word(p, "VARCHAR")) {
        next_token(p);
        t = cdc_type_new(CDC_T_VARCHAR);
        t->length = opt_size(p, 1, 1, CDC_MAX_LENGTH, "a length");
    } else if (is_word(p, "STRING")) {
        next_token(p);
        t = cdc_type_new(CDC_T_VARCHAR);
        t->length = CDC_MAX_LENGTH;
    } else if (is_word(p, "BINARY")) {
        next_token(p);
        t = cdc_type_new(CDC_T_BINARY);
        t->length = opt_size(p, 1, 1, CDC_MAX_LENGTH, "a length");
    } else if (is_word(p, "VARBINARY")) {
        next_token(p);
        t = cdc_type_new(CDC_T_VARBINARY);
        t->length = opt_size(p, 1, 1, CDC_MAX_LENGTH, "a length");
    } else if (is_word(p, "BYTES")) {
        next_token(p);
        t = cdc_type_new(CDC_T_VARBINARY);
        t->length = CDC_MAX_LENGTH;
    } else if (is_word(p, "TIME")) {
        next_token(p);
        t = cdc_type_new(CDC_T_TIME);
        t->precision = opt_size(p, 0, 0, 9, "a precision");
        if (is_word(p, "WITHOUT")) {
            next_token(p);
            if (!expect_time_zone(p))
                goto bad;
        }
    } else if (is_word(p, "TIMESTAMP")) {
        next_token(p);
        t = cdc_type_new(CDC_T_TIMESTAMP);
        t->precision = opt_size(p, 6, 0, 9, "a precision");
        if (is_word(p, "WITHOUT") || is_word(p, "WITH")) {
            bool with = is_word(p, "WITH");
            next_token(p);
            if (with) {
                if (!is_word(p, "LOCAL")) {
                    fail(p, "\"LOCAL TIME ZONE\"");
                    goto bad;
                }
                next_token(p);
                t->root = CDC_T_TIMESTAMP_LTZ;
            }
            if (!expect_time_zone(p))
                goto bad;
        }
    } else if (is_word(p, "TIMESTAMP_LTZ")) {
        next_token(p);
        t = cdc_type_new(CDC_T_TIMESTAMP_LTZ);
        t->precision = opt_size(p, 6, 0, 9, "a precision");
    } else if (is_word(p, "ARRAY") || is_word(p, "MULTISET")) {
        t = cdc_type_new(is_word(p, "ARRAY") ? CDC_T_ARRAY : CDC_T_MULTISET);
        next_token(p);
        if (!expect_punct(p, '<'))
            goto bad;
        cdc_type_t *e = parse_type(p, depth + 1);
        if (!e)
            goto bad;
        add_child(t, NULL, e);
        if (!expect_punct(p, '>'))
            goto bad;
    } else if (is_word(p, "MAP")) {
        next_token(p);
        t = cdc_type_new(CDC_T_MAP);
        if (!expect_punct(p, '<'))
            goto bad;
        cdc_type_t *k = parse_type(p, depth + 1);
        if (!k)
            goto bad;
        add_child(t, NULL, k);
        if (!expect_punct(p, ','))
            goto bad;
        cdc_type_t *v = parse_type(p, depth + 1);
        if (!v)
            goto bad;
        add_child(t, NULL, v);
        if (!expect_punct(p, '>'))
            goto bad;
    } else if (is_word(p, "ROW")) {
        next_token(p);
        t = cdc_type_new(CDC_T_ROW);
        if (is_punct(p, '<'))
            parse_row_fields(p, t, '>', depth);
        else if (is_punct(p, '('))
            parse_row_fields(p, t, ')', depth);
        else
            fail(p, "\"<\" or \"(\"");
        if (p->failed)
            goto bad;
    } else {
        fail(p, "a data type");
        return NULL;
    }
    if (p->failed)
        goto bad;
    /* Flink's postfix forms: INT ARRAY = ARRAY<INT>, INT ARRAY ARRAY = ARRAY<ARRAY<INT>>,
     * INT MULTISET = MULTISET<INT> */
    while (is_word(p, "ARRAY") || is_word(p, "MULTISET")) {
        cdc_type_t *arr = cdc_type_new(is_word(p, "ARRAY") ? CDC_T_ARRAY : CDC_T_MULTISET);
        next_token(p);
        add_child(arr, NULL, t);
        t = arr;
    }
    if (is_word(p, "NOT")) {
        next_token(p);
        if (!is_word(p, "NULL")) {
            fail(p, "\"NULL\"");
            goto bad;
        }
        next_token(p);
        t->nullable = false;
    } else if (is_word(p, "NULL")) {
        next_token(p);
    }
    return t;
bad:
    cdc_type_destroy(t);
    return NULL;
}

cdc_type_t *cdc_type_parse_n(const char *text, size_t len, cdc_error_t **err)
{
    tparser_t p = {.text = text, .len = len, .err = err};
    next_token(&p);
    cdc_type_t *t = parse_type(&p, 0);
    if (t && p.tok != TK_END) {
        fail(&p, "end of type");
        cdc_type_destroy(t);
        return NULL;
    }
    return t;
}

cdc_type_t *cdc_type_parse(const char *text, cdc_error_t **err)
{
    return cdc_type_parse_n(text, strlen(text), err);
}
