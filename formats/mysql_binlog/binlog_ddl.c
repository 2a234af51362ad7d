/*
 * binlog_ddl.c — the DDL statements of binlog QUERY events, parsed into what
 * they do to tables' columns (the mysql-binlog format's schema change
 * detection, binlog.c).
 *
 * bl_ddl_parse reads one statement (MySQL and MariaDB dialects: backquoted
 * identifiers, comments, IF [NOT] EXISTS) and gives one bl_ddl_op_t per table
 * it touches: ALTER TABLE's column clauses as items in order (ADD, DROP,
 * MODIFY, CHANGE, RENAME COLUMN; index, key, option and DEFAULT-only clauses
 * are no column change and give nothing), RENAME TABLE / ALTER ... RENAME TO,
 * TRUNCATE, CREATE TABLE (its columns) and DROP TABLE. A statement on a table
 * whose clauses cannot be read gives BL_DDL_OTHER for that table; statements
 * that are not table DDL (BEGIN, COMMIT, GRANT, CREATE INDEX, ...) give
 * nothing. Column types are MySQL's type text made into a bl_col_t as a
 * TABLE_MAP would describe the column, then mapped by bl_type_for, so a
 * parsed type and the type the next TABLE_MAP gives agree.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "binlog_int.h"

/* ---- tokens -----------------------------------------------------------------------------------
 */

enum { TK_END, TK_WORD, TK_QUOTED_ID, TK_STRING, TK_NUMBER, TK_PUNCT };

typedef struct tok {
    int kind;
    const char *p; /* the token's text in the statement (a quoted one with its quotes) */
    size_t n;
} tok_t;

typedef struct lex {
    const char *p, *end;
    tok_t t;     /* the current token */
    char id[80]; /* scratch for an identifier's text */
} lex_t;

static void skip_space(lex_t *lx)
{
    for (;;) {
        while (lx->p < lx->end && isspace((unsigned char)*lx->p))
            lx->p++;
        size_t left = (size_t)(lx->end - lx->p);
        if (left >= 2 && lx->p[0] == '/' && lx->p[1] == '*') {
            const char *e = lx->p + 2;
            while (e + 1 < lx->end && !(e[0] == '*' && e[1] == '/'))
                e++;
            lx->p = e + 1 < lx->end ? e + 2 : lx->end;
        } else if ((left >= 1 && lx->p[0] == '#') ||
                   (left >= 3 && lx->p[0] == '-' && lx->p[1] == '-' &&
                    (isspace((unsigned char)lx->p[2]) || (unsigned char)lx->p[2] < 32)) ||
                   (left == 2 && lx->p[0] == '-' && lx->p[1] == '-')) {
            while (lx->p < lx->end && *lx->p != '\n')
                lx->p++;
        } else {
            return;
        }
    }
}

/* Reads the next token into lx->t. */
static void next(lex_t *lx)
{
    skip_space(lx);
    tok_t *t = &lx->t;
    t->p = lx->p;
    t->n = 0;
    if (lx->p >= lx->end) {
        t->kind = TK_END;
        return;
    }
    char c = *lx->p;
    if (c == '`' || c == '\'' || c == '"') {
        const char *e = lx->p + 1;
        for (; e < lx->end; e++) {
            if (*e == '\\' && c != '`' && e + 1 < lx->end) {
                e++;
            } else if (*e == c) {
                if (e + 1 < lx->end && e[1] == c)
                    e++; /* a doubled quote */
                else
                    break;
            }
        }
        lx->p = e < lx->end ? e + 1 : lx->end;
        t->kind = c == '`' ? TK_QUOTED_ID : TK_STRING;
    } else if (isdigit((unsigned char)c)) {
        const char *e = lx->p;
        while (e < lx->end && (isalnum((unsigned char)*e) || *e == '.' || *e == '_' || *e == '$'))
            e++;
        lx->p = e;
        t->kind = TK_NUMBER;
    } else if (isalpha((unsigned char)c) || c == '_' || c == '$' || (unsigned char)c >= 0x80) {
        const char *e = lx->p;
        while (e < lx->end &&
               (isalnum((unsigned char)*e) || *e == '_' || *e == '$' || (unsigned char)*e >= 0x80))
            e++;
        lx->p = e;
        t->kind = TK_WORD;
    } else {
        lx->p++;
        t->kind = TK_PUNCT;
    }
    t->n = (size_t)(lx->p - t->p);
}

static bool is_word(const lex_t *lx, const char *w)
{
    return lx->t.kind == TK_WORD && strlen(w) == lx->t.n && strncasecmp(lx->t.p, w, lx->t.n) == 0;
}

static bool is_punct(const lex_t *lx, char c)
{
    return lx->t.kind == TK_PUNCT && lx->t.p[0] == c;
}

/* Consumes the word w when it is the current token. */
static bool accept(lex_t *lx, const char *w)
{
    if (!is_word(lx, w))
        return false;
    next(lx);
    return true;
}

static bool accept_punct(lex_t *lx, char c)
{
    if (!is_punct(lx, c))
        return false;
    next(lx);
    return true;
}

/* IF EXISTS / IF NOT EXISTS, when there (whether it was). */
static bool skip_if_exists(lex_t *lx)
{
    if (!is_word(lx, "IF"))
        return false;
    next(lx);
    accept(lx, "NOT");
    accept(lx, "EXISTS");
    return true;
}

/* The identifier at the current token (backquotes removed), consumed; NULL when none. */
static const char *ident(lex_t *lx)
{
    if (lx->t.kind != TK_WORD && lx->t.kind != TK_QUOTED_ID)
        return NULL;
    size_t k = 0;
    if (lx->t.kind == TK_WORD) {
        k = lx->t.n < sizeof(lx->id) - 1 ? lx->t.n : sizeof(lx->id) - 1;
        memcpy(lx->id, lx->t.p, k);
    } else {
        for (size_t i = 1; i + 1 < lx->t.n && k < sizeof(lx->id) - 1; i++) {
            lx->id[k++] = lx->t.p[i];
            if (lx->t.p[i] == '`')
                i++; /* `` is one backquote */
        }
    }
    lx->id[k] = 0;
    next(lx);
    return lx->id;
}

/* A table name, [db.]t, qualified by the default db; a new string, or NULL. */
static char *table_name(lex_t *lx, const char *db)
{
    const char *a = ident(lx);
    if (!a)
        return NULL;
    char first[sizeof(lx->id)];
    snprintf(first, sizeof(first), "%s", a);
    if (!is_punct(lx, '.'))
        return cdc_strdup_printf("%s.%s", db && *db ? db : "", first);
    next(lx);
    const char *b = ident(lx);
    return b ? cdc_strdup_printf("%s.%s", first, b) : NULL;
}

/* Skips a parenthesised group whose '(' is the current token, and the ')'. */
static bool skip_group(lex_t *lx)
{
    int depth = 0;
    do {
        if (lx->t.kind == TK_END)
            return false;
        if (is_punct(lx, '('))
            depth++;
        else if (is_punct(lx, ')'))
            depth--;
        next(lx);
    } while (depth > 0);
    return true;
}

/* The current NUMBER token's digits as an integer (the token is not NUL-terminated); -2 when
   it is not plain digits or above 2^30 (no column length or precision is). */
static long tok_int(const lex_t *lx)
{
    long v = 0;
    for (size_t i = 0; i < lx->t.n; i++) {
        char c = lx->t.p[i];
        if (c < '0' || c > '9' || v > (1L << 30) / 10)
            return -2;
        v = v * 10 + (c - '0');
    }
    return lx->t.n ? v : -2;
}

/* An integer in parentheses, e.g. the (10) of VARCHAR(10); -1 when absent, -2 when bad. */
static long paren_int(lex_t *lx, long *second)
{
    if (second)
        *second = -1;
    if (!is_punct(lx, '('))
        return -1;
    next(lx);
    if (lx->t.kind != TK_NUMBER)
        return -2;
    long v = tok_int(lx);
    next(lx);
    if (accept_punct(lx, ',')) {
        if (lx->t.kind != TK_NUMBER)
            return -2;
        long w = tok_int(lx);
        if (w < 0)
            return -2;
        if (second)
            *second = w;
        next(lx);
    }
    return v >= 0 && accept_punct(lx, ')') ? v : -2;
}

/* ---- types ------------------------------------------------------------------------------------
 */

#define CS_UTF8MB4 45
#define CS_BINARY 63

static const struct {
    const char *name;
    uint8_t type;
    int8_t charset; /* 0 = none, 1 = character, 2 = binary */
} type_words[] = {
    {"TINYINT", MT_TINY, 0},
    {"INT1", MT_TINY, 0},
    {"BOOL", MT_TINY, 0},
    {"BOOLEAN", MT_TINY, 0},
    {"SMALLINT", MT_SHORT, 0},
    {"INT2", MT_SHORT, 0},
    {"MEDIUMINT", MT_INT24, 0},
    {"INT3", MT_INT24, 0},
    {"MIDDLEINT", MT_INT24, 0},
    {"INT", MT_LONG, 0},
    {"INTEGER", MT_LONG, 0},
    {"INT4", MT_LONG, 0},
    {"BIGINT", MT_LONGLONG, 0},
    {"INT8", MT_LONGLONG, 0},
    {"SERIAL", MT_LONGLONG, 0},
    {"FLOAT", MT_FLOAT, 0},
    {"FLOAT4", MT_FLOAT, 0},
    {"DOUBLE", MT_DOUBLE, 0},
    {"REAL", MT_DOUBLE, 0},
    {"FLOAT8", MT_DOUBLE, 0},
    {"DECIMAL", MT_NEWDECIMAL, 0},
    {"DEC", MT_NEWDECIMAL, 0},
    {"NUMERIC", MT_NEWDECIMAL, 0},
    {"FIXED", MT_NEWDECIMAL, 0},
    {"DATE", MT_DATE, 0},
    {"TIME", MT_TIME2, 0},
    {"DATETIME", MT_DATETIME2, 0},
    {"TIMESTAMP", MT_TIMESTAMP2, 0},
    {"YEAR", MT_YEAR, 0},
    {"CHAR", MT_STRING, 1},
    {"CHARACTER", MT_STRING, 1},
    {"NCHAR", MT_STRING, 1},
    {"VARCHAR", MT_VARCHAR, 1},
    {"NVARCHAR", MT_VARCHAR, 1},
    {"VARCHAR2", MT_VARCHAR, 1},
    {"BINARY", MT_STRING, 2},
    {"VARBINARY", MT_VARCHAR, 2},
    {"TINYTEXT", MT_BLOB, 1},
    {"TEXT", MT_BLOB, 1},
    {"MEDIUMTEXT", MT_BLOB, 1},
    {"LONGTEXT", MT_BLOB, 1},
    {"TINYBLOB", MT_BLOB, 2},
    {"BLOB", MT_BLOB, 2},
    {"MEDIUMBLOB", MT_BLOB, 2},
    {"LONGBLOB", MT_BLOB, 2},
    {"JSON", MT_JSON, 0},
    {"ENUM", MT_ENUM, 1},
    {"SET", MT_SET, 1},
    {"BIT", MT_BIT, 0},
    {"GEOMETRY", MT_GEOMETRY, 0},
    {"POINT", MT_GEOMETRY, 0},
    {"LINESTRING", MT_GEOMETRY, 0},
    {"POLYGON", MT_GEOMETRY, 0},
    {"MULTIPOINT", MT_GEOMETRY, 0},
    {"MULTILINESTRING", MT_GEOMETRY, 0},
    {"MULTIPOLYGON", MT_GEOMETRY, 0},
    {"GEOMETRYCOLLECTION", MT_GEOMETRY, 0},
};

/*
 * A MySQL type at the current token, as a TABLE_MAP would describe the
 * column; false when it is not one this knows.
 */
static bool parse_type(lex_t *lx, bl_col_t *col, bool *serial)
{
    memset(col, 0, sizeof(*col));
    col->charset = -1;
    int k = -1;
    accept(lx, "NATIONAL");   /* NATIONAL CHAR / VARCHAR */
    if (accept(lx, "LONG")) { /* LONG, LONG VARCHAR: MEDIUMTEXT; LONG VARBINARY: MEDIUMBLOB */
        col->type = MT_BLOB;
        col->charset = accept(lx, "VARBINARY") ? CS_BINARY : CS_UTF8MB4;
        accept(lx, "VARCHAR");
        return true;
    }
    for (int i = 0; i < (int)(sizeof(type_words) / sizeof(type_words[0])); i++)
        if (is_word(lx, type_words[i].name))
            k = i;
    if (k < 0)
        return false;
    *serial = is_word(lx, "SERIAL");
    next(lx);
    col->type = type_words[k].type;
    if (type_words[k].charset)
        col->charset = type_words[k].charset == 2 ? CS_BINARY : CS_UTF8MB4;
    long a = -1, b = -1;
    if (col->type == MT_ENUM || col->type == MT_SET) {
        if (!is_punct(lx, '(') || !skip_group(lx))
            return false;
    } else {
        if (col->type == MT_STRING && col->charset == CS_UTF8MB4 && accept(lx, "VARYING"))
            col->type = MT_VARCHAR;
        if (col->type == MT_DOUBLE)
            accept(lx, "PRECISION");
        a = paren_int(lx, &b);
        if (a == -2)
            return false;
    }
    switch (col->type) {
    case MT_FLOAT:
        if (a > 24)
            col->type = MT_DOUBLE;
        break;
    case MT_NEWDECIMAL:
        col->meta = (uint16_t)((a < 0 ? 10 : a) << 8 | (b < 0 ? 0 : b));
        break;
    case MT_TIME2:
    case MT_DATETIME2:
    case MT_TIMESTAMP2:
        col->meta = (uint16_t)(a < 0 ? 0 : a);
        break;
    case MT_BIT: {
        long bits = a < 0 ? 1 : a;
        col->meta = (uint16_t)((bits / 8) << 8 | (bits % 8));
        break;
    }
    case MT_STRING:
    case MT_VARCHAR: {
        long n = a < 0 ? 1 : a;
        col->max_len = (uint32_t)(col->charset == CS_BINARY ? n : n * 4);
        break;
    }
    default:
        break;
    }
    for (;;) { /* UNSIGNED, SIGNED, ZEROFILL */
        if (accept(lx, "UNSIGNED") || accept(lx, "ZEROFILL"))
            col->is_unsigned = true;
        else if (!accept(lx, "SIGNED"))
            break;
    }
    if (*serial)
        col->is_unsigned = true;
    return true;
}

/* ---- column definitions -----------------------------------------------------------------------
 */

typedef struct coldef {
    char name[80];
    cdc_type_t *type; /* with its nullability */
    char *default_sql;
    bool has_pos; /* FIRST or AFTER */
    char after[80];
} coldef_t;

static bool at_clause_end(const lex_t *lx)
{
    return lx->t.kind == TK_END || is_punct(lx, ',') || is_punct(lx, ')') || is_punct(lx, ';');
}

/* The text from st to the current token's start, trailing blanks removed (a new string). */
static char *text_upto(const char *st, const lex_t *lx)
{
    const char *e = lx->t.p; /* (at the end: the end of the statement) */
    while (e > st && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
        e--;
    return cdc_xstrndup(st, (size_t)(e - st));
}

/*
 * A DEFAULT's value as a SQL literal; an expression (CURRENT_TIMESTAMP, (x + 1)) as its
 * text, which sinks refuse to copy (its value differs per row and per server); NULL for NULL.
 */
static char *default_literal(lex_t *lx)
{
    char *lit = NULL;
    if (is_punct(lx, '(')) {
        const char *st = lx->t.p;
        skip_group(lx);
        return text_upto(st, lx);
    }
    if (is_punct(lx, '-') || is_punct(lx, '+')) {
        char sign = lx->t.p[0];
        next(lx);
        if (lx->t.kind == TK_NUMBER)
            lit = cdc_strdup_printf("%s%.*s", sign == '-' ? "-" : "", (int)lx->t.n, lx->t.p);
    } else if (lx->t.kind == TK_NUMBER || lx->t.kind == TK_STRING) {
        if (lx->t.kind == TK_STRING && lx->t.p[0] == '"') /* "x" -> 'x' */
            lit = cdc_strdup_printf("'%.*s'", (int)lx->t.n - 2, lx->t.p + 1);
        else
            lit = cdc_strdup_printf("%.*s", (int)lx->t.n, lx->t.p);
    } else if (is_word(lx, "TRUE") || is_word(lx, "FALSE")) {
        lit = cdc_xstrdup(is_word(lx, "TRUE") ? "TRUE" : "FALSE");
    } else if (lx->t.kind == TK_WORD && !is_word(lx, "NULL")) {
        /* CURRENT_TIMESTAMP[(n)], a function: its text */
        const char *st = lx->t.p;
        next(lx);
        if (is_punct(lx, '('))
            skip_group(lx);
        return text_upto(st, lx);
    }
    if (lx->t.kind != TK_END)
        next(lx);
    return lit;
}

/*
 * A column definition after its name: type and attributes, up to the end of
 * the clause. False when the type is unknown or the text is cut.
 */
static bool parse_coldef(lex_t *lx, coldef_t *cd)
{
    bl_col_t col;
    bool serial = false, not_null = false;
    if (!parse_type(lx, &col, &serial))
        return false;
    not_null = serial;
    while (!at_clause_end(lx)) {
        if (accept(lx, "NOT")) {
            if (!accept(lx, "NULL"))
                return false;
            not_null = true;
        } else if (accept(lx, "NULL")) {
            not_null = false;
        } else if (accept(lx, "DEFAULT")) {
            free(cd->default_sql);
            cd->default_sql = default_literal(lx);
        } else if (accept(lx, "PRIMARY")) {
            not_null = true;
        } else if (accept(lx, "FIRST")) {
            cd->has_pos = true;
            cd->after[0] = 0;
        } else if (accept(lx, "AFTER")) {
            const char *a = ident(lx);
            if (!a)
                return false;
            cd->has_pos = true;
            snprintf(cd->after, sizeof(cd->after), "%s", a);
        } else if (accept(lx, "CHARACTER") || accept(lx, "CHARSET")) {
            accept(lx, "SET");
            if (is_word(lx, "binary") && (col.charset == CS_UTF8MB4))
                col.charset = CS_BINARY;
            if (col.charset == CS_BINARY && (col.type == MT_STRING || col.type == MT_VARCHAR))
                col.max_len /= 4;
            next(lx);
        } else if (is_punct(lx, '(')) {
            if (!skip_group(lx))
                return false;
        } else {
            next(lx); /* COMMENT 'x', COLLATE x, AUTO_INCREMENT, KEY, ON UPDATE, AS (...) ... */
        }
    }
    cd->type = bl_type_for(&col);
    cd->type->nullable = !not_null;
    return true;
}

static void coldef_clear(coldef_t *cd)
{
    cdc_type_destroy(cd->type);
    free(cd->default_sql);
    memset(cd, 0, sizeof(*cd));
}

/* ---- the operations ---------------------------------------------------------------------------
 */

static bl_ddl_op_t *add_op(bl_ddl_t *ddl, bl_ddl_kind_t kind, char *table)
{
    if (ddl->n == ddl->cap) {
        ddl->cap = ddl->cap ? ddl->cap * 2 : 4;
        ddl->ops = cdc_xrealloc(ddl->ops, (size_t)ddl->cap * sizeof(*ddl->ops));
    }
    bl_ddl_op_t *op = &ddl->ops[ddl->n++];
    memset(op, 0, sizeof(*op));
    op->kind = kind;
    op->table = table;
    return op;
}

static void pairs_add(char ***pairs, int *n, const char *a, const char *b)
{
    *pairs = cdc_xrealloc(*pairs, (size_t)(*n + 3) * sizeof(char *));
    (*pairs)[(*n)++] = cdc_xstrdup(a);
    (*pairs)[(*n)++] = cdc_xstrdup(b);
    (*pairs)[*n] = NULL;
}

static void pairs_free(char **pairs)
{
    for (int i = 0; pairs && pairs[i]; i++)
        free(pairs[i]);
    free(pairs);
}

static void op_clear(bl_ddl_op_t *op)
{
    free(op->table);
    free(op->new_table);
    cdc_schema_change_free(op->edits);
    cdc_type_destroy(op->columns);
    pairs_free(op->renames);
    pairs_free(op->defaults);
}

void bl_ddl_clear(bl_ddl_t *ddl)
{
    for (int i = 0; i < ddl->n; i++)
        op_clear(&ddl->ops[i]);
    ddl->n = 0;
}

void bl_ddl_free(bl_ddl_t *ddl)
{
    bl_ddl_clear(ddl);
    free(ddl->ops);
    ddl->ops = NULL;
    ddl->cap = 0;
}

/* Adds a column definition to an ALTER's edits: ADD, or (moved) DROP then ADD. */
static void edit_add(bl_ddl_op_t *op, const coldef_t *cd)
{
    cdc_sc_item_t *it =
        cdc_schema_change_add(op->edits, CDC_SC_ADD_COLUMN, cd->name, NULL, cd->type, NULL, NULL);
    if (cd->has_pos)
        it->after = cdc_xstrdup(cd->after);
    if (cd->default_sql)
        pairs_add(&op->defaults, &op->ndefaults, cd->name, cd->default_sql);
}

/*
 * MODIFY / CHANGE: the column `old` becomes cd (renamed when the names
 * differ). Written as DROP then ADD so that a FIRST/AFTER moves it; the
 * detection diffs the lists by name, so no drop is reported.
 */
static void edit_replace(bl_ddl_op_t *op, const char *old, coldef_t *cd, const cdc_type_t *cur)
{
    if (strcmp(old, cd->name) != 0)
        pairs_add(&op->renames, &op->nrenames, old, cd->name);
    if (!cd->has_pos && cur) { /* keep its place: after the column before it */
        int at = cdc_type_field_index(cur, old);
        cd->has_pos = at >= 0;
        snprintf(cd->after, sizeof(cd->after), "%s", at > 0 ? cur->names[at - 1] : "");
    }
    cdc_schema_change_add(op->edits, CDC_SC_DROP_COLUMN, old, NULL, NULL, NULL, NULL);
    cdc_sc_item_t *it =
        cdc_schema_change_add(op->edits, CDC_SC_ADD_COLUMN, cd->name, NULL, cd->type, NULL, NULL);
    if (cd->has_pos)
        it->after = cdc_xstrdup(cd->after);
}

/*
 * ALTER's ADD [COLUMN] c def / ADD [COLUMN] (c def, ...); false when unreadable.
 * With IF NOT EXISTS (if_not), a column cur has already is no change.
 */
static bool alter_add(lex_t *lx, bl_ddl_op_t *op, bool if_not, const cdc_type_t *cur)
{
    bool group = accept_punct(lx, '(');
    do {
        coldef_t cd = {0};
        const char *nm = ident(lx);
        if (!nm)
            return false;
        snprintf(cd.name, sizeof(cd.name), "%s", nm);
        bool ok = parse_coldef(lx, &cd);
        if (ok && !(if_not && cur && cdc_type_field_index(cur, cd.name) >= 0))
            edit_add(op, &cd);
        coldef_clear(&cd);
        if (!ok)
            return false;
    } while (group && accept_punct(lx, ','));
    return !group || accept_punct(lx, ')');
}

static const char *const non_column[] = {"INDEX",    "KEY",     "UNIQUE",     "PRIMARY",
                                         "FULLTEXT", "SPATIAL", "CONSTRAINT", "FOREIGN",
                                         "CHECK",    "PERIOD",  "SYSTEM",     NULL};

static bool is_non_column(const lex_t *lx)
{
    for (int i = 0; non_column[i]; i++)
        if (is_word(lx, non_column[i]))
            return true;
    return false;
}

/* Skips the rest of a clause (up to a ',' or ')' at depth 0, or the end). */
static bool skip_clause(lex_t *lx)
{
    while (!at_clause_end(lx)) {
        if (is_punct(lx, '(')) {
            if (!skip_group(lx))
                return false;
        } else {
            next(lx);
        }
    }
    return true;
}

/*
 * One ALTER TABLE clause; false when it cannot be read. cur is the table's
 * column list when known (MODIFY keeps a column's place).
 */
static bool alter_clause(lex_t *lx, bl_ddl_op_t *op, const char *db, const cdc_type_t *cur)
{
    if (accept(lx, "ADD")) {
        if (is_non_column(lx))
            return skip_clause(lx);
        accept(lx, "COLUMN");
        bool if_not = skip_if_exists(lx);
        return alter_add(lx, op, if_not, cur);
    }
    if (accept(lx, "DROP")) {
        if (is_non_column(lx) || is_word(lx, "PARTITION"))
            return skip_clause(lx);
        accept(lx, "COLUMN");
        bool if_exists = skip_if_exists(lx);
        const char *nm = ident(lx);
        if (!nm)
            return false;
        if (!(if_exists && cur && cdc_type_field_index(cur, nm) < 0))
            cdc_schema_change_add(op->edits, CDC_SC_DROP_COLUMN, nm, NULL, NULL, NULL, NULL);
        return skip_clause(lx);
    }
    if (is_word(lx, "MODIFY") || is_word(lx, "CHANGE")) {
        bool change = is_word(lx, "CHANGE");
        next(lx);
        accept(lx, "COLUMN");
        skip_if_exists(lx);
        char old[80];
        const char *nm = ident(lx);
        if (!nm)
            return false;
        snprintf(old, sizeof(old), "%s", nm);
        coldef_t cd = {0};
        snprintf(cd.name, sizeof(cd.name), "%s", old);
        if (change) {
            const char *nn = ident(lx);
            if (!nn)
                return false;
            snprintf(cd.name, sizeof(cd.name), "%s", nn);
        }
        bool ok = parse_coldef(lx, &cd);
        if (ok)
            edit_replace(op, old, &cd, cur);
        coldef_clear(&cd);
        return ok;
    }
    if (accept(lx, "RENAME")) {
        if (accept(lx, "COLUMN")) {
            char old[80];
            const char *nm = ident(lx);
            if (!nm)
                return false;
            snprintf(old, sizeof(old), "%s", nm);
            if (!accept(lx, "TO") || !(nm = ident(lx)))
                return false;
            cdc_schema_change_add(op->edits, CDC_SC_RENAME_COLUMN, old, nm, NULL, NULL, NULL);
            pairs_add(&op->renames, &op->nrenames, old, nm);
            return true;
        }
        if (is_word(lx, "INDEX") || is_word(lx, "KEY"))
            return skip_clause(lx);
        if (!accept(lx, "TO"))
            accept(lx, "AS");
        free(op->new_table);
        op->new_table = table_name(lx, db);
        return op->new_table != NULL;
    }
    if (accept(lx, "ALTER")) { /* SET/DROP DEFAULT, index visibility: no column change */
        return skip_clause(lx);
    }
    /* ENGINE=, CONVERT TO, FORCE, ALGORITHM=, LOCK=, ORDER BY, options: no column change; a
     * CONVERT TO CHARACTER SET can change a column's type, which the next TABLE_MAP shows */
    return skip_clause(lx);
}

static void parse_alter(lex_t *lx, const char *db, bl_ddl_t *ddl,
                        const cdc_type_t *(*lookup)(void *, const char *), void *ctx)
{
    accept(lx, "ONLINE");
    accept(lx, "IGNORE");
    if (!accept(lx, "TABLE"))
        return;
    skip_if_exists(lx);
    char *t = table_name(lx, db);
    if (!t)
        return;
    bl_ddl_op_t *op = add_op(ddl, BL_DDL_ALTER, t);
    op->edits = cdc_schema_change_new(t, "", NULL);
    const cdc_type_t *cur = lookup ? lookup(ctx, t) : NULL;
    if ((accept(lx, "WAIT") || accept(lx, "NOWAIT")) && lx->t.kind == TK_NUMBER)
        next(lx);
    bool ok = true;
    if (lx->t.kind != TK_END && !is_punct(lx, ';')) {
        do
            ok = alter_clause(lx, op, db, cur);
        while (ok && accept_punct(lx, ','));
    }
    if (!ok || (lx->t.kind != TK_END && !is_punct(lx, ';')))
        op->kind = BL_DDL_OTHER;
}

/* CREATE TABLE t (defs) / LIKE / AS SELECT */
static void parse_create(lex_t *lx, const char *db, bl_ddl_t *ddl)
{
    if (accept(lx, "OR"))
        accept(lx, "REPLACE");
    accept(lx, "TEMPORARY");
    if (!accept(lx, "TABLE"))
        return;
    skip_if_exists(lx);
    char *t = table_name(lx, db);
    if (!t)
        return;
    bl_ddl_op_t *op = add_op(ddl, BL_DDL_CREATE, t);
    if (!accept_punct(lx, '('))
        return; /* LIKE, AS SELECT: the columns come with the first TABLE_MAP */
    cdc_type_t *row = cdc_type_new_row();
    bool ok = true;
    do {
        if (is_non_column(lx) || is_word(lx, "INDEX") || is_word(lx, "KEY")) {
            ok = skip_clause(lx);
            continue;
        }
        coldef_t cd = {0};
        const char *nm = ident(lx);
        if (!nm) {
            ok = false;
            break;
        }
        snprintf(cd.name, sizeof(cd.name), "%s", nm);
        ok = parse_coldef(lx, &cd) && cdc_type_field_index(row, cd.name) < 0;
        if (ok) {
            cdc_type_row_add(row, cd.name, cd.type);
            cd.type = NULL;
        }
        coldef_clear(&cd);
    } while (ok && accept_punct(lx, ','));
    if (ok && accept_punct(lx, ')') && row->nchildren > 0) {
        op->columns = row;
        return;
    }
    cdc_type_destroy(row); /* not read: the first TABLE_MAP gives the columns */
}

/* DROP TABLE / TRUNCATE / RENAME TABLE: a list of tables */
static void parse_table_list(lex_t *lx, const char *db, bl_ddl_t *ddl, bl_ddl_kind_t kind)
{
    do {
        char *t = table_name(lx, db);
        if (!t)
            return;
        bl_ddl_op_t *op = add_op(ddl, kind, t);
        if (kind == BL_DDL_RENAME) {
            if (!accept(lx, "TO") || !(op->new_table = table_name(lx, db))) {
                op->kind = BL_DDL_OTHER;
                return;
            }
        }
    } while (accept_punct(lx, ','));
}

int bl_ddl_parse(const char *sql, size_t len, const char *db, bl_ddl_t *ddl,
                 const cdc_type_t *(*lookup)(void *ctx, const char *table), void *ctx)
{
    bl_ddl_clear(ddl);
    lex_t lx = {.p = sql, .end = sql + len};
    next(&lx);
    if (accept(&lx, "ALTER")) {
        parse_alter(&lx, db, ddl, lookup, ctx);
    } else if (accept(&lx, "CREATE")) {
        parse_create(&lx, db, ddl);
    } else if (accept(&lx, "DROP")) {
        accept(&lx, "TEMPORARY");
        if (accept(&lx, "TABLE")) {
            skip_if_exists(&lx);
            parse_table_list(&lx, db, ddl, BL_DDL_DROP);
        }
    } else if (accept(&lx, "TRUNCATE")) {
        accept(&lx, "TABLE");
        parse_table_list(&lx, db, ddl, BL_DDL_TRUNCATE);
    } else if (accept(&lx, "RENAME")) {
        if (accept(&lx, "TABLE") || accept(&lx, "TABLES"))
            parse_table_list(&lx, db, ddl, BL_DDL_RENAME);
    }
    return ddl->n;
}
