/*
 * dbz_ddl.c — Debezium's own schema change events as a source of DDL
 * (option schema-changes): the messages of the connector's schema change
 * topic, {"source", "databaseName", "ddl", "tableChanges": [{"type": "CREATE" |
 * "ALTER" | "DROP", "id": "\"db\".\"t\"", "table": {"columns": [{"name",
 * "jdbcType", "typeName", "length", "scale", "optional",
 * "defaultValueExpression", ...}]}}]}, bare or inside a Connect envelope's
 * "payload"; a TRUNCATE statement without tableChanges; and a row topic's
 * truncate event (op "t").
 *
 * Each such event of a captured table becomes one cdc_schema_change_t: before
 * = the columns the format last knew of the table (an earlier event's, else
 * the Connect schema of its rows, else the declared row type), after = the
 * event's columns mapped to cdcflow types, items by cdc_schema_change_diff
 * with the renames read from the statement (RENAME COLUMN a TO b, CHANGE a b)
 * and the literal DEFAULTs. A captured table is one a row message named
 * (source db/schema and table); before any did, the one whose name is the
 * cdcflow table's name. Events are rare: they are parsed again here with a
 * small walker of their own, allocating freely.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "dbz_int.h"

#define DW_DEPTH 10

typedef struct ddl_col {
    char name[128], type_name[64];
    long jdbc, length, scale; /* -1: absent */
    bool optional;
    char *defexpr; /* NULL: none */
} ddl_col_t;

typedef struct ddl_entry {
    char kind[16];
    char *id;
    cdc_type_t *cols; /* NULL: the event gave no table */
    char **defaults;  /* pairs column, SQL literal; NULL-terminated */
    int ndefaults;
} ddl_entry_t;

typedef struct ddl_walk {
    int depth;
    char key[DW_DEPTH][40];
    char *ddl, *dbname;
    ddl_entry_t *entries;
    int nentries;
    ddl_col_t col;
    dbz_deser_t *d;
} ddl_walk_t;

/* The depth relative to the event's root object (1), inside "payload" or not; 0 = elsewhere. */
static int dw_rel(const ddl_walk_t *w, int depth)
{
    if (depth >= DW_DEPTH || depth < 1)
        return 0;
    if (depth >= 2 && strcmp(w->key[1], "payload") == 0)
        return depth - 1;
    if (strcmp(w->key[1], "schema") == 0 && depth >= 2)
        return 0;
    return depth;
}

/* The key of the container at relative depth rel (the member the container is the value of). */
static const char *dw_key(const ddl_walk_t *w, int rel)
{
    int off = w->depth >= 2 && strcmp(w->key[1], "payload") == 0 ? 1 : 0;
    return w->key[rel + off];
}

static int dw_start_map(void *ctx)
{
    ddl_walk_t *w = ctx;
    int d = ++w->depth;
    if (d < DW_DEPTH)
        w->key[d][0] = '\0';
    int rel = dw_rel(w, d);
    if (rel == 3 && strcmp(dw_key(w, 1), "tableChanges") == 0) {
        w->entries = cdc_xrealloc(w->entries, sizeof(*w->entries) * (size_t)(w->nentries + 1));
        memset(&w->entries[w->nentries++], 0, sizeof(*w->entries));
    } else if (rel == 4 && w->nentries && strcmp(dw_key(w, 1), "tableChanges") == 0 &&
               strcmp(dw_key(w, 3), "table") == 0) {
        ddl_entry_t *e = &w->entries[w->nentries - 1];
        cdc_type_destroy(e->cols);
        e->cols = cdc_type_new_row();
    } else if (rel == 6 && w->nentries && strcmp(dw_key(w, 4), "columns") == 0) {
        free(w->col.defexpr);
        memset(&w->col, 0, sizeof(w->col));
        w->col.jdbc = w->col.length = w->col.scale = -1;
        w->col.optional = true;
    }
    return 1;
}

static cdc_type_t *ddl_col_type(dbz_deser_t *d, const ddl_col_t *c);
static char *ddl_default_sql(const cdc_type_t *t, const char *expr);

static int dw_end_map(void *ctx)
{
    ddl_walk_t *w = ctx;
    int rel = dw_rel(w, w->depth);
    if (rel == 6 && w->nentries && strcmp(dw_key(w, 4), "columns") == 0 && w->col.name[0]) {
        ddl_entry_t *e = &w->entries[w->nentries - 1];
        if (e->cols) {
            cdc_type_t *t = ddl_col_type(w->d, &w->col);
            char *def = w->col.defexpr ? ddl_default_sql(t, w->col.defexpr) : NULL;
            if (def) {
                e->defaults =
                    cdc_xrealloc(e->defaults, sizeof(char *) * (size_t)(e->ndefaults + 3));
                e->defaults[e->ndefaults++] = cdc_xstrdup(w->col.name);
                e->defaults[e->ndefaults++] = def;
                e->defaults[e->ndefaults] = NULL;
            }
            cdc_type_row_add(e->cols, w->col.name, t);
        }
    }
    w->depth--;
    return 1;
}

static int dw_start_array(void *ctx)
{
    ddl_walk_t *w = ctx;
    int d = ++w->depth;
    if (d < DW_DEPTH)
        w->key[d][0] = '\0';
    return 1;
}

static int dw_end_array(void *ctx)
{
    ((ddl_walk_t *)ctx)->depth--;
    return 1;
}

static int dw_key_cb(void *ctx, const unsigned char *s, size_t len)
{
    ddl_walk_t *w = ctx;
    if (w->depth < DW_DEPTH)
        dbz_copy_str(w->key[w->depth], sizeof(w->key[0]), (const char *)s, len);
    return 1;
}

static int dw_scalar(ddl_walk_t *w, const char *s, size_t len, char kind)
{
    int rel = dw_rel(w, w->depth);
    const char *k = w->depth < DW_DEPTH ? w->key[w->depth] : "";
    char num[32];
    if (rel == 1 && kind == 's' && strcmp(k, "ddl") == 0) {
        free(w->ddl);
        w->ddl = cdc_xstrndup(s, len);
    } else if (rel == 1 && kind == 's' && strcmp(k, "databaseName") == 0) {
        free(w->dbname);
        w->dbname = cdc_xstrndup(s, len);
    } else if (rel == 3 && w->nentries && strcmp(dw_key(w, 1), "tableChanges") == 0) {
        ddl_entry_t *e = &w->entries[w->nentries - 1];
        if (kind == 's' && strcmp(k, "type") == 0)
            dbz_copy_str(e->kind, sizeof(e->kind), s, len);
        else if (kind == 's' && strcmp(k, "id") == 0) {
            free(e->id);
            e->id = cdc_xstrndup(s, len);
        }
    } else if (rel == 6 && w->nentries && strcmp(dw_key(w, 4), "columns") == 0) {
        ddl_col_t *c = &w->col;
        dbz_copy_str(num, sizeof(num), s, len);
        if (strcmp(k, "name") == 0)
            dbz_copy_str(c->name, sizeof(c->name), s, len);
        else if (strcmp(k, "typeName") == 0)
            dbz_copy_str(c->type_name, sizeof(c->type_name), s, len);
        else if (strcmp(k, "jdbcType") == 0 && kind == '#')
            c->jdbc = strtol(num, NULL, 10);
        else if (strcmp(k, "length") == 0 && kind == '#')
            c->length = strtol(num, NULL, 10);
        else if (strcmp(k, "scale") == 0 && kind == '#')
            c->scale = strtol(num, NULL, 10);
        else if (strcmp(k, "optional") == 0 && kind == 'b')
            c->optional = len == 4;
        else if (strcmp(k, "defaultValueExpression") == 0 && kind != 'n') {
            free(c->defexpr);
            c->defexpr = cdc_xstrndup(s, len);
        }
    }
    return 1;
}

static int dw_string(void *ctx, const unsigned char *s, size_t len)
{
    return dw_scalar(ctx, (const char *)s, len, 's');
}

static int dw_number(void *ctx, const char *s, size_t len)
{
    return dw_scalar(ctx, s, len, '#');
}

static int dw_bool(void *ctx, int b)
{
    return dw_scalar(ctx, b ? "true" : "false", b ? 4 : 5, 'b');
}

static int dw_null(void *ctx)
{
    return dw_scalar(ctx, "", 0, 'n');
}

static const yajl_callbacks dw_callbacks = {
    .yajl_null = dw_null,
    .yajl_boolean = dw_bool,
    .yajl_number = dw_number,
    .yajl_string = dw_string,
    .yajl_start_map = dw_start_map,
    .yajl_map_key = dw_key_cb,
    .yajl_end_map = dw_end_map,
    .yajl_start_array = dw_start_array,
    .yajl_end_array = dw_end_array,
};

static void dw_free(ddl_walk_t *w)
{
    for (int i = 0; i < w->nentries; i++) {
        free(w->entries[i].id);
        cdc_type_destroy(w->entries[i].cols);
        for (int j = 0; j < w->entries[i].ndefaults; j++)
            free(w->entries[i].defaults[j]);
        free(w->entries[i].defaults);
    }
    free(w->entries);
    free(w->ddl);
    free(w->dbname);
    free(w->col.defexpr);
}

/* ---- types and defaults ---------------------------------------------------------------------- */

static cdc_type_t *sized(cdc_type_root_t root, long n, long dflt)
{
    if (n <= 0)
        n = dflt;
    if (n > CDC_MAX_LENGTH)
        n = CDC_MAX_LENGTH;
    return cdc_type_new_sized(root, (int32_t)n);
}

static cdc_type_t *timed(cdc_type_root_t root, long p)
{
    return cdc_type_new_sized(root, (int32_t)(p < 0 ? 0 : p > 9 ? 9 : p));
}

static cdc_type_t *decimal(long p, long s)
{
    if (p <= 0 || p > CDC_MAX_DECIMAL_PRECISION)
        return cdc_type_new_decimal(38, s > 0 && s <= 18 ? (int)s : 18);
    if (s < 0 || s > p)
        s = 0;
    return cdc_type_new_decimal((int)p, (int)s);
}

/* A type by a typeName (MySQL's and PostgreSQL's spellings), or NULL when it is none of them. */
static cdc_type_t *by_name(const ddl_col_t *c)
{
    char base[64];
    dbz_copy_str(base, sizeof(base), c->type_name, strlen(c->type_name));
    bool is_unsigned = strstr(base, "UNSIGNED") != NULL || strstr(base, "unsigned") != NULL;
    char *sp = strpbrk(base, " (");
    if (sp)
        *sp = '\0';
    long n = c->length, s = c->scale;
    static const struct {
        const char *name;
        cdc_type_root_t root, uroot;
    } ints[] = {{"TINYINT", CDC_T_TINYINT, CDC_T_SMALLINT}, {"SMALLINT", CDC_T_SMALLINT, CDC_T_INT},
                {"MEDIUMINT", CDC_T_INT, CDC_T_INT},        {"INT", CDC_T_INT, CDC_T_BIGINT},
                {"INTEGER", CDC_T_INT, CDC_T_BIGINT},       {"YEAR", CDC_T_INT, CDC_T_INT},
                {"INT2", CDC_T_SMALLINT, CDC_T_SMALLINT},   {"INT4", CDC_T_INT, CDC_T_INT},
                {"INT8", CDC_T_BIGINT, CDC_T_BIGINT},       {"SERIAL", CDC_T_INT, CDC_T_INT},
                {"BIGSERIAL", CDC_T_BIGINT, CDC_T_BIGINT}};
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
        if (strcasecmp(base, ints[i].name) == 0)
            return cdc_type_new(is_unsigned ? ints[i].uroot : ints[i].root);
    if (strcasecmp(base, "BIGINT") == 0)
        return is_unsigned ? cdc_type_new_decimal(20, 0) : cdc_type_new(CDC_T_BIGINT);
    if (strcasecmp(base, "BIT") == 0)
        return n <= 1 ? cdc_type_new(CDC_T_BOOLEAN) : sized(CDC_T_VARBINARY, (n + 7) / 8, 1);
    static const char *const bools[] = {"BOOL", "BOOLEAN"};
    for (size_t i = 0; i < 2; i++)
        if (strcasecmp(base, bools[i]) == 0)
            return cdc_type_new(CDC_T_BOOLEAN);
    if (strcasecmp(base, "FLOAT") == 0 || strcasecmp(base, "FLOAT4") == 0)
        return cdc_type_new(CDC_T_FLOAT);
    if (strcasecmp(base, "DOUBLE") == 0 || strcasecmp(base, "REAL") == 0 ||
        strcasecmp(base, "FLOAT8") == 0)
        return cdc_type_new(CDC_T_DOUBLE);
    if (strcasecmp(base, "DECIMAL") == 0 || strcasecmp(base, "NUMERIC") == 0 ||
        strcasecmp(base, "DEC") == 0 || strcasecmp(base, "FIXED") == 0)
        return n > 0 ? decimal(n, s) : decimal(strcasecmp(base, "NUMERIC") == 0 ? 0 : 10, s);
    if (strcasecmp(base, "CHAR") == 0 || strcasecmp(base, "BPCHAR") == 0 ||
        strcasecmp(base, "CHARACTER") == 0)
        return sized(CDC_T_CHAR, n, 1);
    if (strcasecmp(base, "VARCHAR") == 0)
        return sized(CDC_T_VARCHAR, n, CDC_MAX_LENGTH);
    static const char *const texts[] = {"TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "JSON",
                                        "JSONB",    "ENUM", "SET",        "UUID"};
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
        if (strcasecmp(base, texts[i]) == 0)
            return sized(CDC_T_VARCHAR, 0, CDC_MAX_LENGTH);
    if (strcasecmp(base, "BINARY") == 0)
        return sized(CDC_T_BINARY, n, 1);
    if (strcasecmp(base, "VARBINARY") == 0)
        return sized(CDC_T_VARBINARY, n, CDC_MAX_LENGTH);
    static const char *const blobs[] = {"TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB", "BYTEA"};
    for (size_t i = 0; i < sizeof(blobs) / sizeof(blobs[0]); i++)
        if (strcasecmp(base, blobs[i]) == 0)
            return sized(CDC_T_VARBINARY, 0, CDC_MAX_LENGTH);
    if (strcasecmp(base, "DATE") == 0)
        return cdc_type_new(CDC_T_DATE);
    if (strcasecmp(base, "TIME") == 0)
        return timed(CDC_T_TIME, n);
    if (strcasecmp(base, "DATETIME") == 0)
        return timed(CDC_T_TIMESTAMP, n);
    /* PostgreSQL's timestamp carries its precision in scale ("length" is the display size) */
    if (strcasecmp(base, "TIMESTAMP") == 0)
        return c->jdbc == 93 && s >= 0 && n > 9 ? timed(CDC_T_TIMESTAMP, s)
                                                : timed(CDC_T_TIMESTAMP_LTZ, n);
    if (strcasecmp(base, "TIMESTAMPTZ") == 0)
        return timed(CDC_T_TIMESTAMP_LTZ, s >= 0 ? s : 6);
    return NULL;
}

/* A type by java.sql.Types, or NULL. */
static cdc_type_t *by_jdbc(const ddl_col_t *c)
{
    switch (c->jdbc) {
    case -7:
    case 16:
        return cdc_type_new(CDC_T_BOOLEAN);
    case -6:
        return cdc_type_new(CDC_T_TINYINT);
    case 5:
        return cdc_type_new(CDC_T_SMALLINT);
    case 4:
        return cdc_type_new(CDC_T_INT);
    case -5:
        return cdc_type_new(CDC_T_BIGINT);
    case 6:
    case 8:
        return cdc_type_new(CDC_T_DOUBLE);
    case 7:
        return cdc_type_new(CDC_T_FLOAT);
    case 2:
    case 3:
        return decimal(c->length, c->scale);
    case 1:
        return sized(CDC_T_CHAR, c->length, 1);
    case 12:
        return sized(CDC_T_VARCHAR, c->length, CDC_MAX_LENGTH);
    case -1:
    case -15:
    case -9:
    case -16:
        return sized(CDC_T_VARCHAR, 0, CDC_MAX_LENGTH);
    case -2:
        return sized(CDC_T_BINARY, c->length, 1);
    case -3:
    case -4:
    case 2004:
        return sized(CDC_T_VARBINARY, 0, CDC_MAX_LENGTH);
    case 91:
        return cdc_type_new(CDC_T_DATE);
    case 92:
        return timed(CDC_T_TIME, c->scale > 0 ? c->scale : 0);
    case 93:
        return timed(CDC_T_TIMESTAMP, c->scale > 0 ? c->scale : 0);
    case 2014:
        return timed(CDC_T_TIMESTAMP_LTZ, c->scale > 0 ? c->scale : 6);
    default:
        return NULL;
    }
}

/* The cdcflow type of an event's column; STRING (said at debug level) when it is not known. */
static cdc_type_t *ddl_col_type(dbz_deser_t *d, const ddl_col_t *c)
{
    cdc_type_t *t = by_name(c);
    if (!t)
        t = by_jdbc(c);
    if (!t) {
        cdc_log(CDC_LOG_DEBUG, NULL, d->sc_table,
                "debezium-json: schema change event at message %llu: column \"%s\" has type "
                "\"%s\" (jdbcType %ld), which cdcflow does not know: taken as STRING",
                (unsigned long long)d->nmsgs, c->name, c->type_name, c->jdbc);
        t = sized(CDC_T_VARCHAR, 0, CDC_MAX_LENGTH);
    }
    t->nullable = c->optional;
    return t;
}

static bool is_number(const char *s)
{
    char *end;
    if (!*s)
        return false;
    strtod(s, &end);
    return *end == '\0' && !isspace((unsigned char)*s);
}

/*
 * The DEFAULT of a column as a SQL literal, or NULL when it is not a literal
 * (CURRENT_TIMESTAMP, a function, a date). Debezium gives MySQL's default as
 * its value ("5", "abc") and PostgreSQL's as its expression ("'abc'::text").
 */
static char *ddl_default_sql(const cdc_type_t *t, const char *expr)
{
    if (expr[0] == '\'') { /* already quoted: up to its closing quote, a cast left off */
        size_t i = 1;
        for (; expr[i]; i++)
            if (expr[i] == '\'' && expr[i + 1] != '\'')
                break;
            else if (expr[i] == '\'')
                i++;
        return expr[i] ? cdc_xstrndup(expr, i + 1) : NULL;
    }
    switch (t->root) {
    case CDC_T_TINYINT:
    case CDC_T_SMALLINT:
    case CDC_T_INT:
    case CDC_T_BIGINT:
    case CDC_T_FLOAT:
    case CDC_T_DOUBLE:
    case CDC_T_DECIMAL:
        return is_number(expr) ? cdc_xstrdup(expr) : NULL;
    case CDC_T_BOOLEAN:
        if (strcmp(expr, "1") == 0 || strcasecmp(expr, "true") == 0 || strcmp(expr, "b'1'") == 0)
            return cdc_xstrdup("TRUE");
        if (strcmp(expr, "0") == 0 || strcasecmp(expr, "false") == 0 || strcmp(expr, "b'0'") == 0)
            return cdc_xstrdup("FALSE");
        return NULL;
    case CDC_T_CHAR:
    case CDC_T_VARCHAR: {
        cdc_buf_t b = {0};
        cdc_buf_putc(&b, '\'');
        for (const char *p = expr; *p; p++) {
            if (*p == '\'')
                cdc_buf_putc(&b, '\'');
            cdc_buf_putc(&b, *p);
        }
        cdc_buf_putc(&b, '\'');
        char *out = cdc_xstrdup(cdc_buf_cstr(&b));
        cdc_buf_free(&b);
        return out;
    }
    default:
        return NULL;
    }
}

/* ---- the statement: renames and a TRUNCATE's table ------------------------------------------- */

/* The next token of a DDL text into tok (identifiers unquoted); false at the end. */
static bool ddl_token(const char **p, char *tok, size_t cap, bool *quoted)
{
    const char *s = *p;
    while (*s && isspace((unsigned char)*s))
        s++;
    if (!*s)
        return false;
    size_t n = 0;
    *quoted = false;
    if (*s == '`' || *s == '"' || *s == '\'') {
        char q = *s++;
        *quoted = q != '\'';
        for (; *s; s++) {
            if (*s == q && s[1] == q)
                s++;
            else if (*s == q)
                break;
            if (n + 1 < cap)
                tok[n++] = *s;
        }
        if (*s)
            s++;
        if (q == '\'') /* a string literal: no identifier */
            n = 0;
    } else if (isalnum((unsigned char)*s) || *s == '_' || *s == '$') {
        while (*s && (isalnum((unsigned char)*s) || *s == '_' || *s == '$')) {
            if (n + 1 < cap)
                tok[n++] = *s;
            s++;
        }
    } else {
        tok[n++] = *s++;
    }
    tok[n] = '\0';
    *p = s;
    return true;
}

#define DDL_TOKENS 256

/* Splits ddl into up to DDL_TOKENS tokens (each 128 bytes); returns how many. */
static int ddl_tokens(const char *ddl, char (*toks)[128], bool *quoted)
{
    int n = 0;
    while (n < DDL_TOKENS && ddl_token(&ddl, toks[n], sizeof(toks[0]), &quoted[n]))
        n++;
    return n;
}

static bool kw(const char *tok, bool quoted, const char *word)
{
    return !quoted && strcasecmp(tok, word) == 0;
}

/*
 * The renames of a statement as pairs old, new (NULL-terminated; free each
 * and the array): RENAME COLUMN a TO b and CHANGE [COLUMN] a b, kept when
 * they fit the column lists (a only before, b only after).
 */
static char **ddl_renames(const char *ddl, const cdc_type_t *before, const cdc_type_t *after)
{
    if (!ddl || !before || !after)
        return NULL;
    char(*toks)[128] = cdc_xmalloc(sizeof(*toks) * DDL_TOKENS);
    bool quoted[DDL_TOKENS];
    int n = ddl_tokens(ddl, toks, quoted);
    char **pairs = NULL;
    int np = 0;
    for (int i = 0; i < n; i++) {
        const char *from = NULL, *to = NULL;
        if (kw(toks[i], quoted[i], "RENAME") && i + 4 < n &&
            kw(toks[i + 1], quoted[i + 1], "COLUMN") && kw(toks[i + 3], quoted[i + 3], "TO")) {
            from = toks[i + 2];
            to = toks[i + 4];
        } else if (kw(toks[i], quoted[i], "CHANGE") && i + 2 < n) {
            int j = kw(toks[i + 1], quoted[i + 1], "COLUMN") ? i + 2 : i + 1;
            if (j + 1 < n) {
                from = toks[j];
                to = toks[j + 1];
            }
        }
        if (!from || strcmp(from, to) == 0 || cdc_type_field_index(before, from) < 0 ||
            cdc_type_field_index(after, from) >= 0 || cdc_type_field_index(after, to) < 0 ||
            cdc_type_field_index(before, to) >= 0)
            continue;
        pairs = cdc_xrealloc(pairs, sizeof(char *) * (size_t)(np + 3));
        pairs[np++] = cdc_xstrdup(from);
        pairs[np++] = cdc_xstrdup(to);
        pairs[np] = NULL;
    }
    free(toks);
    return pairs;
}

/* Whether the statement names column (an identifier token, case-insensitive). */
static bool ddl_mentions(const char *ddl, const char *column)
{
    char tok[128];
    bool quoted;
    while (ddl && ddl_token(&ddl, tok, sizeof(tok), &quoted))
        if (strcasecmp(tok, column) == 0)
            return true;
    return false;
}

/* TRUNCATE [TABLE] [db.]t: "db.t" (db from databaseName when unqualified), or NULL. */
static char *ddl_truncated(const char *ddl, const char *dbname)
{
    char toks[5][128];
    bool quoted[5];
    int n = 0;
    while (n < 5 && ddl_token(&ddl, toks[n], sizeof(toks[0]), &quoted[n]))
        n++;
    if (n < 2 || !kw(toks[0], quoted[0], "TRUNCATE"))
        return NULL;
    int i = kw(toks[1], quoted[1], "TABLE") ? 2 : 1;
    if (i >= n || !toks[i][0])
        return NULL;
    if (i + 2 < n && strcmp(toks[i + 1], ".") == 0)
        return cdc_strdup_printf("%s.%s", toks[i], toks[i + 2]);
    return dbname ? cdc_strdup_printf("%s.%s", dbname, toks[i]) : cdc_xstrdup(toks[i]);
}

/* "db.t" from an id "\"db\".\"t\"" (or db.t; the last two parts of three). */
static char *ddl_table_id(const char *id)
{
    char parts[3][128];
    int n = 0;
    bool quoted;
    char tok[128];
    while (ddl_token(&id, tok, sizeof(tok), &quoted)) {
        if (strcmp(tok, ".") == 0 && !quoted)
            continue;
        if (n == 3) {
            memmove(parts[0], parts[1], sizeof(parts[0]) * 2);
            n = 2;
        }
        snprintf(parts[n++], sizeof(parts[0]), "%s", tok);
    }
    if (n == 0)
        return NULL;
    if (n == 1)
        return cdc_xstrdup(parts[0]);
    return cdc_strdup_printf("%s.%s", parts[n - 2], parts[n - 1]);
}

/* ---- the tables: captured ones, last known columns ------------------------------------------- */

static dbz_ddl_table_t *known(dbz_deser_t *d, const char *table)
{
    for (uint32_t i = 0; i < d->nddl_tables; i++)
        if (strcmp(d->ddl_tables[i].table, table) == 0)
            return &d->ddl_tables[i];
    return NULL;
}

static void remember(dbz_deser_t *d, const char *table, const cdc_type_t *cols)
{
    dbz_ddl_table_t *k = known(d, table);
    if (!k) {
        d->ddl_tables =
            cdc_xrealloc(d->ddl_tables, sizeof(*d->ddl_tables) * (size_t)(d->nddl_tables + 1));
        k = &d->ddl_tables[d->nddl_tables++];
        k->table = cdc_xstrdup(table);
        k->cols = NULL;
    }
    cdc_type_destroy(k->cols);
    k->cols = cols ? cdc_type_copy(cols) : NULL;
    k->dropped = cols == NULL;
}

void dbz_ddl_note_row(dbz_deser_t *d)
{
    char name[256];
    size_t len = dbz_src_table(d, name, sizeof(name));
    if (len == 0 || len >= sizeof(name))
        return;
    for (uint32_t i = 0; i < d->nrow_tables; i++)
        if (strcmp(d->row_tables[i], name) == 0)
            return;
    d->row_tables =
        cdc_xrealloc(d->row_tables, sizeof(*d->row_tables) * (size_t)(d->nrow_tables + 1));
    d->row_tables[d->nrow_tables++] = cdc_xstrdup(name);
}

/* A table whose events count: one the rows named; before any did, the cdcflow table's name. */
static bool captured(const dbz_deser_t *d, const char *table)
{
    for (uint32_t i = 0; i < d->nrow_tables; i++)
        if (strcmp(d->row_tables[i], table) == 0)
            return true;
    if (d->nrow_tables > 0 || !d->sc_table)
        return false;
    const char *a = strrchr(table, '.'), *b = strrchr(d->sc_table, '.');
    return strcasecmp(a ? a + 1 : table, b ? b + 1 : d->sc_table) == 0;
}

/* Whether type b (a Connect schema's or the declared one) is at least as wide as a. */
static bool covers(const cdc_type_t *b, const cdc_type_t *a)
{
    bool bs = b->root == CDC_T_CHAR || b->root == CDC_T_VARCHAR;
    bool as = a->root == CDC_T_CHAR || a->root == CDC_T_VARCHAR;
    if (b->root == CDC_T_VARCHAR && b->length == CDC_MAX_LENGTH)
        return true; /* text: Connect says "string" for ENUM, JSON, DECIMAL as text, ... */
    if (bs || as)
        return bs && as && b->length >= a->length;
    if ((b->root == CDC_T_BINARY || b->root == CDC_T_VARBINARY) &&
        (a->root == CDC_T_BINARY || a->root == CDC_T_VARBINARY))
        return b->length >= a->length;
    if (cdc_type_is_integer(b) && cdc_type_is_integer(a))
        return b->root >= a->root;
    if (b->root == CDC_T_DOUBLE && a->root == CDC_T_FLOAT)
        return true;
    if (b->root == CDC_T_DECIMAL && a->root == CDC_T_DECIMAL)
        return b->scale >= a->scale && b->precision - b->scale >= a->precision - a->scale;
    if (b->root == a->root &&
        (b->root == CDC_T_TIME || b->root == CDC_T_TIMESTAMP || b->root == CDC_T_TIMESTAMP_LTZ))
        return b->precision >= a->precision;
    return b->root == a->root;
}

/*
 * The columns before an event of table: the last event's (exact), else the
 * Connect schema of its rows or the declared row type, whose types are less
 * exact than the event's (no lengths, unsigned widened): where one is at
 * least as wide as the event's, the event's is taken (with its nullability
 * too for the declared type), so that only real changes are items. A declared
 * column the event lacks is left out unless the statement names it (DROP,
 * RENAME): the declared columns need not be the source's.
 */
static cdc_type_t *baseline(dbz_deser_t *d, const char *table, const cdc_type_t *after,
                            const char *ddl)
{
    const dbz_ddl_table_t *k = known(d, table);
    if (k)
        return k->cols ? cdc_type_copy(k->cols) : NULL;
    bool is_row = false;
    for (uint32_t i = 0; i < d->nrow_tables; i++)
        is_row |= strcmp(d->row_tables[i], table) == 0;
    bool connect = is_row && d->sc_cols;
    const cdc_type_t *from = connect ? d->sc_cols : d->row_type;
    cdc_type_t *cols = cdc_type_new_row();
    for (int i = 0; i < from->nchildren; i++) {
        const char *name = from->names[i];
        int j = after ? cdc_type_field_index(after, name) : -1;
        if (j < 0 && !connect && after && !ddl_mentions(ddl, name))
            continue;
        bool take = j >= 0 && covers(from->children[i], after->children[j]);
        cdc_type_t *t = cdc_type_copy(take ? after->children[j] : from->children[i]);
        if (take && connect)
            t->nullable = from->children[i]->nullable;
        cdc_type_row_add(cols, name, t);
    }
    return cols;
}

/* ---- the event ------------------------------------------------------------------------------- */

/*
 * The event's fingerprint, noted when its change is reported: the kafka reader
 * reads the message again after the change (the same decoder, or a new one when
 * the job is planned again: cdc_resume_note carries it to that one), and that
 * is no second change.
 */
static int64_t fingerprint(const dbz_deser_t *d)
{
    uint64_t h = 1469598103934665603ull ^ d->len;
    for (size_t i = 0; i < d->len; i++)
        h = (h ^ (unsigned char)d->msg[i]) * 1099511628211ull;
    return (int64_t)(h >> 1);
}

static void resume_key(const dbz_deser_t *d, char *key, size_t cap)
{
    snprintf(key, cap, "debezium-json\t%s\tschema-change-event", d->sc_table ? d->sc_table : "");
}

static bool reported(dbz_deser_t *d, int64_t fp)
{
    if (fp == d->ddl_last)
        return true;
    char key[512];
    resume_key(d, key, sizeof(key));
    return cdc_resume_get(key) == fp;
}

static void report(dbz_deser_t *d, cdc_schema_change_t *change, int64_t fp)
{
    char pos[32];
    snprintf(pos, sizeof(pos), "message %llu", (unsigned long long)d->nmsgs);
    free(change->position);
    change->position = cdc_xstrdup(pos);
    cdc_schema_change_free(d->sc_change);
    d->sc_change = change;
    d->sc_at = d->n0;
    d->sc_resync = true;
    d->ddl_last = fp;
    char key[512];
    resume_key(d, key, sizeof(key));
    cdc_resume_note(key, fp);
}

/* One tableChanges entry: a change to report, or NULL. */
static cdc_schema_change_t *entry_change(dbz_deser_t *d, const ddl_walk_t *w, const ddl_entry_t *e,
                                         const char *table)
{
    cdc_schema_change_t *change = cdc_schema_change_new(table, "", w->ddl);
    if (strcasecmp(e->kind, "DROP") == 0) {
        const dbz_ddl_table_t *k = known(d, table);
        if (k && k->dropped)
            goto none;
        cdc_type_t *before = baseline(d, table, NULL, w->ddl);
        cdc_schema_change_set_columns(change, before, NULL);
        cdc_type_destroy(before);
        cdc_schema_change_add(change, CDC_SC_DROP_TABLE, NULL, NULL, NULL, NULL, NULL);
        remember(d, table, NULL);
        return change;
    }
    if (!e->cols)
        goto none;
    if (strcasecmp(e->kind, "CREATE") == 0) {
        const dbz_ddl_table_t *k = known(d, table);
        if (k && k->cols && cdc_type_equals(k->cols, e->cols))
            goto none;
        cdc_schema_change_set_columns(change, NULL, e->cols);
        cdc_schema_change_add(change, CDC_SC_CREATE_TABLE, NULL, NULL, NULL, NULL, NULL);
        remember(d, table, e->cols);
        return change;
    }
    cdc_type_t *before = baseline(d, table, e->cols, w->ddl);
    if (!before) { /* an ALTER of a table the events dropped: it is there again */
        cdc_schema_change_set_columns(change, NULL, e->cols);
        cdc_schema_change_add(change, CDC_SC_CREATE_TABLE, NULL, NULL, NULL, NULL, NULL);
        remember(d, table, e->cols);
        return change;
    }
    cdc_schema_change_set_columns(change, before, e->cols);
    char **renames = ddl_renames(w->ddl, before, e->cols);
    cdc_schema_change_diff(change, (const char *const *)renames, (const char *const *)e->defaults);
    for (int i = 0; renames && renames[i]; i++)
        free(renames[i]);
    free(renames);
    cdc_type_destroy(before);
    remember(d, table, e->cols);
    if (change->nitems > 0)
        return change;
none:
    cdc_schema_change_free(change);
    return NULL;
}

static cdc_schema_change_t *truncate_change(dbz_deser_t *d, const char *table, const char *ddl)
{
    if (!captured(d, table))
        return NULL;
    cdc_schema_change_t *change = cdc_schema_change_new(table, "", ddl);
    cdc_schema_change_add(change, CDC_SC_TRUNCATE_TABLE, NULL, NULL, NULL, NULL, NULL);
    return change;
}

int dbz_ddl_check(dbz_deser_t *d)
{
    bool truncate = d->oplen == 1 && d->op[0] == 't'; /* a row topic's truncate event */
    if (!truncate && !((d->seen | d->top_seen) & SEEN_CONTROL) && !d->schema_kind)
        return 0;
    int64_t fp = fingerprint(d);
    if (reported(d, fp))
        return 0;
    cdc_schema_change_t *change = NULL;
    if (truncate) {
        char name[256];
        size_t len = dbz_src_table(d, name, sizeof(name));
        change = len && len < sizeof(name) ? truncate_change(d, name, NULL) : NULL;
        if (change)
            report(d, change, fp);
        return change != NULL;
    }
    ddl_walk_t w = {.d = d};
    cdc_json_parser_t *p = cdc_json_parser_new(&dw_callbacks, &w);
    cdc_buf_t err = {0};
    int rc = cdc_json_parser_parse(p, d->msg, d->len, &err);
    cdc_json_parser_destroy(p);
    cdc_buf_free(&err);
    if (rc == CDC_JSON_PARSE_OK && w.nentries == 0 && w.ddl) {
        char *table = ddl_truncated(w.ddl, w.dbname);
        if (table)
            change = truncate_change(d, table, w.ddl);
        free(table);
    }
    for (int i = 0; rc == CDC_JSON_PARSE_OK && i < w.nentries && !change; i++) {
        char *table = w.entries[i].id ? ddl_table_id(w.entries[i].id) : NULL;
        if (table && captured(d, table))
            change = entry_change(d, &w, &w.entries[i], table);
        free(table);
    }
    dw_free(&w);
    if (change)
        report(d, change, fp);
    return change != NULL;
}

void dbz_ddl_free(dbz_deser_t *d)
{
    for (uint32_t i = 0; i < d->nddl_tables; i++) {
        free(d->ddl_tables[i].table);
        cdc_type_destroy(d->ddl_tables[i].cols);
    }
    free(d->ddl_tables);
    for (uint32_t i = 0; i < d->nrow_tables; i++)
        free(d->row_tables[i]);
    free(d->row_tables);
}
