/*
 * tests/unit/sql_parser.c — unit tests for the SQL lexer (cdc_sql_lexer) and
 * parser (cdc_sql_parser): every statement form, expression precedence, type
 * text capture, positions, and the exact wording of syntax errors.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_sql_lexer.h"
#include "cdc_sql_parser.h"

/* ---- helpers ------------------------------------------------------------------------------- */

static cdc_sql_script_t *parse_ok(const char *sql)
{
    cdc_sql_script_t *script = NULL;
    cdc_error_t *err = NULL;
    int rc = cdc_sql_parse(sql, strlen(sql), "test.sql", &script, &err);
    if (rc != 0) {
        char *msg = cdc_error_format(err);
        cr_log_error("unexpected parse failure:\n%s", msg);
        free(msg);
        cdc_error_destroy(err);
        cr_assert_fail("parse failed: %s", sql);
    }
    cr_assert_not_null(script);
    cr_assert_null(err);
    return script;
}

/* Parses a script that must hold exactly one statement. The script is kept in *holder. */
static cdc_sql_stmt_t *parse_one(const char *sql, cdc_sql_script_t **holder)
{
    *holder = parse_ok(sql);
    cr_assert_eq((*holder)->count, 1, "expected 1 statement, got %zu", (*holder)->count);
    return (*holder)->stmts[0];
}

static cdc_error_t *parse_err(const char *sql)
{
    cdc_sql_script_t *script = (cdc_sql_script_t *)0x1; /* must stay untouched */
    cdc_error_t *err = NULL;
    int rc = cdc_sql_parse(sql, strlen(sql), "test.sql", &script, &err);
    cr_assert_eq(rc, -1, "expected a parse failure: %s", sql);
    cr_assert_eq(script, (cdc_sql_script_t *)0x1);
    cr_assert_not_null(err);
    cr_assert_eq(err->code, CDC_ERR_SQL);
    return err;
}

static void assert_error(const char *sql, const char *message, const char *detail)
{
    cdc_error_t *err = parse_err(sql);
    cr_expect_str_eq(err->message, message);
    cr_expect_str_eq(err->detail, detail);
    cdc_error_destroy(err);
}

/* Test-only fully parenthesized dump of an expression tree, to check its shape. */
static void dump(char *out, size_t cap, const cdc_sql_expr_t *e);

static void dump_cat(char *out, size_t cap, const char *s)
{
    strncat(out, s, cap - strlen(out) - 1);
}

static void dump(char *out, size_t cap, const cdc_sql_expr_t *e)
{
    static const char *ops[] = {"",   "OR", "AND", "=", "<>", "<", "<=", ">",
                                ">=", "||", "+",   "-", "*",  "/", "%"};
    char *flat;
    switch (e->kind) {
    case CDC_SQL_EXPR_BINARY:
        dump_cat(out, cap, "(");
        dump_cat(out, cap, ops[e->binary.op]);
        dump_cat(out, cap, " ");
        dump(out, cap, e->binary.left);
        dump_cat(out, cap, " ");
        dump(out, cap, e->binary.right);
        dump_cat(out, cap, ")");
        break;
    case CDC_SQL_EXPR_UNARY:
        dump_cat(out, cap,
                 e->unary.op == CDC_SQL_UNARY_NOT     ? "(NOT "
                 : e->unary.op == CDC_SQL_UNARY_MINUS ? "(NEG "
                                                      : "(POS ");
        dump(out, cap, e->unary.operand);
        dump_cat(out, cap, ")");
        break;
    case CDC_SQL_EXPR_IS_NULL:
        dump_cat(out, cap, e->is_null.negated ? "(ISNOTNULL " : "(ISNULL ");
        dump(out, cap, e->is_null.operand);
        dump_cat(out, cap, ")");
        break;
    case CDC_SQL_EXPR_BETWEEN:
        dump_cat(out, cap, e->between.negated ? "(NOTBETWEEN " : "(BETWEEN ");
        dump(out, cap, e->between.operand);
        dump_cat(out, cap, " ");
        dump(out, cap, e->between.low);
        dump_cat(out, cap, " ");
        dump(out, cap, e->between.high);
        dump_cat(out, cap, ")");
        break;
    case CDC_SQL_EXPR_LIKE:
        dump_cat(out, cap, e->like.negated ? "(NOTLIKE " : "(LIKE ");
        dump(out, cap, e->like.operand);
        dump_cat(out, cap, " ");
        dump(out, cap, e->like.pattern);
        dump_cat(out, cap, ")");
        break;
    case CDC_SQL_EXPR_IN:
        dump_cat(out, cap, e->in_list.negated ? "(NOTIN " : "(IN ");
        dump(out, cap, e->in_list.operand);
        for (size_t i = 0; i < e->in_list.nitems; i++) {
            dump_cat(out, cap, " ");
            dump(out, cap, e->in_list.items[i]);
        }
        dump_cat(out, cap, ")");
        break;
    default:
        flat = cdc_sql_expr_to_string(e);
        dump_cat(out, cap, flat);
        free(flat);
        break;
    }
}

/* Parses "SELECT <expr> FROM t" and returns the tree dump of the single item. */
static void tree_of(const char *expr, char *out, size_t cap)
{
    char sql[512];
    snprintf(sql, sizeof(sql), "SELECT %s FROM t", expr);
    cdc_sql_script_t *script;
    cdc_sql_stmt_t *stmt = parse_one(sql, &script);
    cr_assert_eq(stmt->kind, CDC_SQL_STMT_QUERY);
    cr_assert_eq(stmt->query->nitems, 1, "%s: expected one select item", expr);
    out[0] = '\0';
    dump(out, cap, stmt->query->items[0].expr);
    cdc_sql_script_destroy(script);
}

static void assert_tree(const char *expr, const char *expected)
{
    char out[1024];
    tree_of(expr, out, sizeof(out));
    cr_expect_str_eq(out, expected, "tree of %s", expr);
}

/* Parses "SELECT <expr> FROM t" and checks cdc_sql_expr_to_string of the single item. */
static void assert_canonical(const char *expr, const char *expected)
{
    char sql[512];
    snprintf(sql, sizeof(sql), "SELECT %s FROM t", expr);
    cdc_sql_script_t *script;
    cdc_sql_stmt_t *stmt = parse_one(sql, &script);
    cr_assert_eq(stmt->query->nitems, 1, "%s: expected one select item", expr);
    char *text = cdc_sql_expr_to_string(stmt->query->items[0].expr);
    cr_expect_str_eq(text, expected, "canonical text of %s", expr);
    /* The canonical text parses back to the same canonical text. */
    snprintf(sql, sizeof(sql), "SELECT %s FROM t", text);
    cdc_sql_script_t *again;
    cdc_sql_stmt_t *stmt2 = parse_one(sql, &again);
    char *text2 = cdc_sql_expr_to_string(stmt2->query->items[0].expr);
    cr_expect_str_eq(text2, text, "round trip of %s", expr);
    free(text);
    free(text2);
    cdc_sql_script_destroy(again);
    cdc_sql_script_destroy(script);
}

static const cdc_sql_column_t *column(const cdc_sql_create_table_t *ct, const char *name)
{
    for (size_t i = 0; i < ct->ncolumns; i++)
        if (strcmp(ct->columns[i].name, name) == 0)
            return &ct->columns[i];
    cr_assert_fail("no column %s", name);
    return NULL;
}

static void assert_name(const cdc_sql_name_t *name, int nparts, const char *a, const char *b,
                        const char *c)
{
    const char *want[3] = {a, b, c};
    cr_assert_eq(name->nparts, nparts);
    for (int i = 0; i < nparts; i++)
        cr_expect_str_eq(name->parts[i], want[i]);
    for (int i = nparts; i < 3; i++)
        cr_expect_null(name->parts[i]);
}

/* ---- lexer --------------------------------------------------------------------------------- */

Test(sql_lexer, token_kinds_positions_and_values)
{
    const char *text = "select `my ``col`, 'it''s', 12, 3.25, .5, 1e3 -- note\n"
                       "  /* block\n comment */ a.b <> c != d <= e >= f || g % h;";
    struct {
        cdc_sql_token_kind_t kind;
        const char *value;
        int line, col;
    } want[] = {
        {CDC_SQL_TOK_IDENT, "select", 1, 1}, {CDC_SQL_TOK_QUOTED_IDENT, "my `col", 1, 8},
        {CDC_SQL_TOK_COMMA, ",", 1, 18},     {CDC_SQL_TOK_STRING, "it's", 1, 20},
        {CDC_SQL_TOK_COMMA, ",", 1, 27},     {CDC_SQL_TOK_INTEGER, "12", 1, 29},
        {CDC_SQL_TOK_COMMA, ",", 1, 31},     {CDC_SQL_TOK_DECIMAL, "3.25", 1, 33},
        {CDC_SQL_TOK_COMMA, ",", 1, 37},     {CDC_SQL_TOK_DECIMAL, ".5", 1, 39},
        {CDC_SQL_TOK_COMMA, ",", 1, 41},     {CDC_SQL_TOK_DECIMAL, "1e3", 1, 43},
        {CDC_SQL_TOK_IDENT, "a", 3, 13},     {CDC_SQL_TOK_DOT, ".", 3, 14},
        {CDC_SQL_TOK_IDENT, "b", 3, 15},     {CDC_SQL_TOK_NE, "<>", 3, 17},
        {CDC_SQL_TOK_IDENT, "c", 3, 20},     {CDC_SQL_TOK_NE, "!=", 3, 22},
        {CDC_SQL_TOK_IDENT, "d", 3, 25},     {CDC_SQL_TOK_LE, "<=", 3, 27},
        {CDC_SQL_TOK_IDENT, "e", 3, 30},     {CDC_SQL_TOK_GE, ">=", 3, 32},
        {CDC_SQL_TOK_IDENT, "f", 3, 35},     {CDC_SQL_TOK_CONCAT, "||", 3, 37},
        {CDC_SQL_TOK_IDENT, "g", 3, 40},     {CDC_SQL_TOK_PERCENT, "%", 3, 42},
        {CDC_SQL_TOK_IDENT, "h", 3, 44},     {CDC_SQL_TOK_SEMICOLON, ";", 3, 45},
        {CDC_SQL_TOK_EOF, "", 3, 46},
    };
    cdc_sql_lexer_t lex;
    cdc_sql_lexer_init(&lex, text, strlen(text), NULL);
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        cdc_sql_token_t tok;
        cdc_error_t *err = NULL;
        cr_assert_eq(cdc_sql_lexer_next(&lex, &tok, &err), 0, "token %zu", i);
        cr_expect_eq(tok.kind, want[i].kind, "token %zu kind %d", i, tok.kind);
        char *value = cdc_sql_token_value(text, &tok);
        cr_expect_str_eq(value, want[i].value, "token %zu", i);
        free(value);
        cr_expect_eq(tok.line, want[i].line, "token %zu line %d", i, tok.line);
        cr_expect_eq(tok.col, want[i].col, "token %zu col %d", i, tok.col);
    }
}

Test(sql_lexer, keywords_are_case_insensitive_identifiers_keep_case)
{
    const char *text = "SeLeCt MyCol";
    cdc_sql_lexer_t lex;
    cdc_sql_token_t tok;
    cdc_sql_lexer_init(&lex, text, strlen(text), NULL);
    cr_assert_eq(cdc_sql_lexer_next(&lex, &tok, NULL), 0);
    cr_expect(cdc_sql_token_is_keyword(text, &tok, "SELECT"));
    cr_expect(cdc_sql_token_is_keyword(text, &tok, "select"));
    cr_expect_not(cdc_sql_token_is_keyword(text, &tok, "SELECTS"));
    cr_assert_eq(cdc_sql_lexer_next(&lex, &tok, NULL), 0);
    char *v = cdc_sql_token_value(text, &tok);
    cr_expect_str_eq(v, "MyCol");
    free(v);
    cr_expect(cdc_sql_is_reserved("from", 4));
    cr_expect_not(cdc_sql_is_reserved("value", 5));
}

Test(sql_lexer, columns_count_characters_not_bytes)
{
    const char *text = "'h\xc3\xa9llo' x";
    cdc_sql_lexer_t lex;
    cdc_sql_token_t tok;
    cdc_sql_lexer_init(&lex, text, strlen(text), NULL);
    cr_assert_eq(cdc_sql_lexer_next(&lex, &tok, NULL), 0);
    cr_assert_eq(cdc_sql_lexer_next(&lex, &tok, NULL), 0);
    cr_expect_eq(tok.col, 9);
}

Test(sql_lexer, caret_copies_tabs)
{
    const char *text = "a\n\tb\tc  d\r\nlast";
    char *c = cdc_sql_caret(text, strlen(text), 2, 6);
    cr_expect_str_eq(c, "\tb\tc  d\n\t \t  ^");
    free(c);
    c = cdc_sql_caret(text, strlen(text), 3, 5);
    cr_expect_str_eq(c, "last\n    ^");
    free(c);
    c = cdc_sql_caret(text, strlen(text), 9, 1);
    cr_expect_str_eq(c, "\n^");
    free(c);
}

/* ---- CREATE TABLE -------------------------------------------------------------------------- */

Test(sql_create_table, full_definition)
{
    const char *sql = "CREATE TABLE orders (\n"                                      /* 1 */
                      "  order_id BIGINT NOT NULL COMMENT 'the id',\n"               /* 2 */
                      "  price DECIMAL(10, 2),\n"                                    /* 3 */
                      "  total AS price * quantity,\n"                               /* 4 */
                      "  ts TIMESTAMP(3) METADATA FROM 'timestamp' VIRTUAL,\n"       /* 5 */
                      "  part INT METADATA,\n"                                       /* 6 */
                      "  quantity INT NULL,\n"                                       /* 7 */
                      "  CONSTRAINT pk PRIMARY KEY (order_id, part) NOT ENFORCED,\n" /* 8 */
                      "  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND\n"             /* 9 */
                      ") COMMENT 'orders table'\n"                                   /* 10 */
                      "PARTITIONED BY (part, `day`)\n"                               /* 11 */
                      "WITH (\n"                                                     /* 12 */
                      "  'connector' = 'kafka',\n"                                   /* 13 */
                      "  'value.format'='debezium-json'\n"                           /* 14 */
                      ")";
    cdc_sql_script_t *script;
    cdc_sql_stmt_t *stmt = parse_one(sql, &script);
    cr_assert_eq(stmt->kind, CDC_SQL_STMT_CREATE_TABLE);
    cr_expect_eq(stmt->line, 1);
    cr_expect_eq(stmt->col, 1);
    const cdc_sql_create_table_t *ct = &stmt->create_table;
    assert_name(&ct->name, 1, "orders", NULL, NULL);
    cr_expect_eq(ct->name.line, 1);
    cr_expect_eq(ct->name.col, 14);
    cr_expect_not(ct->temporary);
    cr_expect_not(ct->if_not_exists);
    cr_assert_eq(ct->ncolumns, 6);

    const cdc_sql_column_t *c = &ct->columns[0];
    cr_expect_str_eq(c->name, "order_id");
    cr_expect_eq(c->kind, CDC_SQL_COLUMN_PHYSICAL);
    cr_expect_str_eq(c->type.text, "BIGINT");
    cr_expect_eq(c->type.line, 2);
    cr_expect_eq(c->type.col, 12);
    cr_expect(c->not_null);
    cr_expect_str_eq(c->comment, "the id");
    cr_expect_eq(c->line, 2);
    cr_expect_eq(c->col, 3);

    c = column(ct, "price");
    cr_expect_str_eq(c->type.text, "DECIMAL(10, 2)");
    cr_expect_not(c->not_null);
    cr_expect_null(c->comment);

    c = column(ct, "total");
    cr_expect_eq(c->kind, CDC_SQL_COLUMN_COMPUTED);
    cr_expect_null(c->type.text);
    char *s = cdc_sql_expr_to_string(c->expr);
    cr_expect_str_eq(s, "price * quantity");
    free(s);

    c = column(ct, "ts");
    cr_expect_eq(c->kind, CDC_SQL_COLUMN_METADATA);
    cr_expect_str_eq(c->type.text, "TIMESTAMP(3)");
    cr_expect_str_eq(c->metadata_key, "timestamp");
    cr_expect(c->is_virtual);

    c = column(ct, "part");
    cr_expect_eq(c->kind, CDC_SQL_COLUMN_METADATA);
    cr_expect_null(c->metadata_key);
    cr_expect_not(c->is_virtual);

    c = column(ct, "quantity");
    cr_expect_eq(c->kind, CDC_SQL_COLUMN_PHYSICAL);
    cr_expect_not(c->not_null);

    cr_assert_not_null(ct->primary_key);
    cr_expect_str_eq(ct->primary_key->constraint_name, "pk");
    cr_expect_not(ct->primary_key->is_inline);
    cr_assert_eq(ct->primary_key->columns.count, 2);
    cr_expect_str_eq(ct->primary_key->columns.items[0].name, "order_id");
    cr_expect_str_eq(ct->primary_key->columns.items[1].name, "part");
    cr_expect_eq(ct->primary_key->line, 8);
    cr_expect_eq(ct->primary_key->col, 3);

    cr_assert_not_null(ct->watermark);
    cr_expect_str_eq(ct->watermark->column.name, "ts");
    s = cdc_sql_expr_to_string(ct->watermark->expr);
    cr_expect_str_eq(s, "ts - INTERVAL '5' SECOND");
    free(s);
    cr_expect_eq(ct->watermark->line, 9);

    cr_expect_str_eq(ct->comment, "orders table");
    cr_assert_eq(ct->partitioned_by.count, 2);
    cr_expect_str_eq(ct->partitioned_by.items[0].name, "part");
    cr_expect_str_eq(ct->partitioned_by.items[1].name, "day");

    cr_assert_eq(ct->options.count, 2);
    cr_expect_str_eq(ct->options.items[0].key, "connector");
    cr_expect_str_eq(ct->options.items[0].value, "kafka");
    cr_expect_eq(ct->options.items[0].line, 13);
    cr_expect_eq(ct->options.items[0].col, 3);
    cr_expect_eq(ct->options.items[0].value_line, 13);
    cr_expect_eq(ct->options.items[0].value_col, 17);
    cr_expect_str_eq(ct->options.items[1].key, "value.format");
    cr_expect_str_eq(ct->options.items[1].value, "debezium-json");
    cr_expect_eq(ct->options.items[1].line, 14);
    cr_expect_eq(ct->options.items[1].col, 3);
    cr_expect_eq(ct->options.items[1].value_col, 18);
    const cdc_sql_option_t *o = cdc_sql_options_find(&ct->options, "value.format");
    cr_assert_not_null(o);
    cr_expect_str_eq(o->value, "debezium-json");
    cr_expect_null(cdc_sql_options_find(&ct->options, "topic"));
    cr_expect_null(ct->like);
    cdc_sql_script_destroy(script);
}

Test(sql_create_table, type_text_is_captured_verbatim)
{
    const char *sql = "CREATE TABLE t (\n"
                      "  a DECIMAL(10, 2),\n"
                      "  b ROW<a INT, b ARRAY<STRING>>,\n"
                      "  c TIMESTAMP(3) WITH LOCAL TIME ZONE,\n"
                      "  d MAP<STRING, INT> NOT NULL,\n"
                      "  e ROW<x INT NOT NULL, y STRING 'doc'> NOT NULL,\n"
                      "  f ARRAY<ARRAY<INT>>,\n"
                      "  g TIME(0) WITHOUT TIME ZONE NULL,\n"
                      "  h INTERVAL DAY(2) TO SECOND(3),\n"
                      "  i DOUBLE PRECISION,\n"
                      "  j INT ARRAY NOT NULL,\n"
                      "  k VARCHAR(20) COMMENT 'name',\n"
                      "  l MAP<STRING, ROW<`my f` DECIMAL(5, 1)>>\n"
                      ")";
    struct {
        const char *name, *type;
        bool not_null;
    } want[] = {
        {"a", "DECIMAL(10, 2)", false},
        {"b", "ROW<a INT, b ARRAY<STRING>>", false},
        {"c", "TIMESTAMP(3) WITH LOCAL TIME ZONE", false},
        {"d", "MAP<STRING, INT>", true},
        {"e", "ROW<x INT NOT NULL, y STRING 'doc'>", true},
        {"f", "ARRAY<ARRAY<INT>>", false},
        {"g", "TIME(0) WITHOUT TIME ZONE", false},
        {"h", "INTERVAL DAY(2) TO SECOND(3)", false},
        {"i", "DOUBLE PRECISION", false},
        {"j", "INT ARRAY", true},
        {"k", "VARCHAR(20)", false},
        {"l", "MAP<STRING, ROW<`my f` DECIMAL(5, 1)>>", false},
    };
    cdc_sql_script_t *script;
    cdc_sql_stmt_t *stmt = parse_one(sql, &script);
    const cdc_sql_create_table_t *ct = &stmt->create_table;
    cr_assert_eq(ct->ncolumns, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < ct->ncolumns; i++) {
        cr_expect_str_eq(ct->columns[i].name, want[i].name);
        cr_expect_str_eq(ct->columns[i].type.text, want[i].type, "column %s", want[i].name);
        cr_expect_eq(ct->columns[i].not_null, want[i].not_null, "column %s", want[i].name);
        cr_expect_eq(ct->columns[i].type.line, (int)i + 2);
        cr_expect_eq(ct->columns[i].type.col, 5);
    }
    cr_expect_str_eq(column(ct, "k")->comment, "name");
    cdc_sql_script_destroy(script);
}

Test(sql_create_table, inline_primary_key_temporary_if_not_exists_three_part_name)
{
    cdc_sql_script_t *script;
    cdc_sql_stmt_t *stmt = parse_one(
        "create temporary table if not exists cat.`my db`.t (id INT PRIMARY KEY NOT ENFORCED, "
        "name STRING) with ('connector'='print');",
        &script);
    const cdc_sql_create_table_t *ct = &stmt->create_table;
    cr_expect(ct->temporary);
    cr_expect(ct->if_not_exists);
    assert_name(&ct->name, 3, "cat", "my db", "t");
    cr_assert_not_null(ct->primary_key);
    cr_expect(ct->primary_key->is_inline);
    cr_expect_null(ct->primary_key->constraint_name);
    cr_assert_eq(ct->primary_key->columns.count, 1);
    cr_expect_str_eq(ct->primary_key->columns.items[0].name, "id");
    cr_expect_str_eq(column(ct, "id")->type.text, "INT");
    cr_expect_str_eq(stmt->text, "create temporary table if not exists cat.`my db`.t (id INT "
                                 "PRIMARY KEY NOT ENFORCED, name STRING) with "
                                 "('connector'='print')");
    cdc_sql_script_destroy(script);
}

Test(sql_create_table, like_clause)
{
    cdc_sql_script_t *script;
    cdc_sql_stmt_t *stmt =
        parse_one("CREATE TABLE derived (extra INT) WITH ('topic' = 'x') LIKE db.base "
                  "(EXCLUDING ALL INCLUDING OPTIONS, OVERWRITING WATERMARKS INCLUDING METADATA)",
                  &script);
    const cdc_sql_create_table_t *ct = &stmt->create_table;
    cr_assert_not_null(ct->like);
    assert_name(&ct->like->source, 2, "db", "base", NULL);
    cr_assert_eq(ct->like->noptions, 4);
    cr_expect_eq(ct->like->options[0].mode, CDC_SQL_LIKE_EXCLUDING);
    cr_expect_eq(ct->like->options[0].feature, CDC_SQL_LIKE_ALL);
    cr_expect_eq(ct->like->options[1].mode, CDC_SQL_LIKE_INCLUDING);
    cr_expect_eq(ct->like->options[1].feature, CDC_SQL_LIKE_OPTIONS);
    cr_expect_eq(ct->like->options[2].mode, CDC_SQL_LIKE_OVERWRITING);
    cr_expect_eq(ct->like->options[2].feature, CDC_SQL_LIKE_WATERMARKS);
    cr_expect_eq(ct->like->options[3].feature, CDC_SQL_LIKE_METADATA);
    cdc_sql_script_destroy(script);

    /* The column list may be left out when LIKE supplies it. */
    stmt = parse_one("CREATE TABLE t2 WITH ('a' = 'b') LIKE t1", &script);
    cr_expect_eq(stmt->create_table.ncolumns, 0);
    assert_name(&stmt->create_table.like->source, 1, "t1", NULL, NULL);
    cr_expect_eq(stmt->create_table.like->noptions, 0);
    cdc_sql_script_destroy(script);

    assert_error("CREATE TABLE t2 (a INT) LIKE t1 (OVERWRITING PARTITIONS)",
                 "syntax error at test.sql:1:34: OVERWRITING cannot be used with PARTITIONS",
                 "CREATE TABLE t2 (a INT) LIKE t1 (OVERWRITING PARTITIONS)\n"
                 "                                 ^");
}

/* ---- other DDL ----------------------------------------------------------------------------- */

Test(sql_ddl, create_view)
{
    cdc_sql_script_t *script;
    cdc_sql_stmt_t *stmt = parse_one(
        "CREATE TEMPORARY VIEW IF NOT EXISTS v (x, y) AS SELECT a, b FROM t WHERE a > 1", &script);
    cr_assert_eq(stmt->kind, CDC_SQL_STMT_CREATE_VIEW);
    const cdc_sql_create_view_t *cv = &stmt->create_view;
    cr_expect(cv->temporary);
    cr_expect(cv->if_not_exists);
    assert_name(&cv->name, 1, "v", NULL, NULL);
    cr_assert_eq(cv->columns.count, 2);
    cr_expect_str_eq(cv->columns.items[1].name, "y");
    cr_assert_not_null(cv->query);
    cr_expect_eq(cv->query->nitems, 2);
    cr_expect_str_eq(cv->query->text, "SELECT a, b FROM t WHERE a > 1");
    cdc_sql_script_destroy(script);

    stmt = parse_one("CREATE VIEW db.v AS SELECT * FROM t", &script);
    cr_expect_not(stmt->create_view.temporary);
    cr_expect_eq(stmt->create_view.columns.count, 0);
    assert_name(&stmt->create_view.name, 2, "db", "v", NULL);
    cdc_sql_script_destroy(script);
}

Test(sql_ddl, drop_statements)
{
    cdc_sql_script_t *script = parse_ok("DROP TABLE t; DROP TEMPORARY TABLE IF EXISTS c.d.t;\n"
                                        "DROP VIEW IF EXISTS v; DROP TEMPORARY VIEW v2;\n"
                                        "DROP CATALOG IF EXISTS c; DROP DATABASE c.d CASCADE;\n"
                                        "DROP DATABASE IF EXISTS d RESTRICT;\n"
                                        "DROP TEMPORARY FUNCTION IF EXISTS f; DROP FUNCTION db.g");
    cr_assert_eq(script->count, 9);
    cdc_sql_stmt_t **s = script->stmts;
    cr_expect_eq(s[0]->kind, CDC_SQL_STMT_DROP_TABLE);
    cr_expect_not(s[0]->drop.temporary);
    cr_expect_not(s[0]->drop.if_exists);
    assert_name(&s[0]->drop.name, 1, "t", NULL, NULL);
    cr_expect_eq(s[1]->kind, CDC_SQL_STMT_DROP_TABLE);
    cr_expect(s[1]->drop.temporary);
    cr_expect(s[1]->drop.if_exists);
    assert_name(&s[1]->drop.name, 3, "c", "d", "t");
    cr_expect_eq(s[2]->kind, CDC_SQL_STMT_DROP_VIEW);
    cr_expect(s[2]->drop.if_exists);
    cr_expect_eq(s[3]->kind, CDC_SQL_STMT_DROP_VIEW);
    cr_expect(s[3]->drop.temporary);
    cr_expect_eq(s[4]->kind, CDC_SQL_STMT_DROP_CATALOG);
    cr_expect(s[4]->drop.if_exists);
    cr_expect_eq(s[5]->kind, CDC_SQL_STMT_DROP_DATABASE);
    cr_expect(s[5]->drop.cascade);
    assert_name(&s[5]->drop.name, 2, "c", "d", NULL);
    cr_expect_eq(s[6]->kind, CDC_SQL_STMT_DROP_DATABASE);
    cr_expect_not(s[6]->drop.cascade);
    cr_expect(s[6]->drop.if_exists);
    cr_expect_eq(s[7]->kind, CDC_SQL_STMT_DROP_FUNCTION);
    cr_expect(s[7]->drop.temporary);
    cr_expect(s[7]->drop.if_exists);
    cr_expect_eq(s[8]->kind, CDC_SQL_STMT_DROP_FUNCTION);
    assert_name(&s[8]->drop.name, 2, "db", "g", NULL);
    cr_expect_eq(s[8]->line, 5);
    cr_expect_eq(s[8]->col, 38);
    cdc_sql_script_destroy(script);
}

Test(sql_ddl, catalog_database_function)
{
    cdc_sql_script_t *script = parse_ok(
        "CREATE CATALOG mycat WITH ('type' = 'generic_in_memory');\n"
        "CREATE DATABASE IF NOT EXISTS mycat.mydb COMMENT 'x' WITH ('k' = 'v');\n"
        "CREATE DATABASE plain;\n"
        "CREATE TEMPORARY FUNCTION IF NOT EXISTS my_upper AS 'libudf.so:my_upper' LANGUAGE c;\n"
        "CREATE FUNCTION db.f AS 'f_impl'");
    cr_assert_eq(script->count, 5);
    cdc_sql_stmt_t **s = script->stmts;
    cr_expect_eq(s[0]->kind, CDC_SQL_STMT_CREATE_CATALOG);
    assert_name(&s[0]->create_catalog.name, 1, "mycat", NULL, NULL);
    cr_assert_eq(s[0]->create_catalog.options.count, 1);
    cr_expect_str_eq(s[0]->create_catalog.options.items[0].value, "generic_in_memory");
    cr_expect_eq(s[1]->kind, CDC_SQL_STMT_CREATE_DATABASE);
    cr_expect(s[1]->create_database.if_not_exists);
    assert_name(&s[1]->create_database.name, 2, "mycat", "mydb", NULL);
    cr_expect_str_eq(s[1]->create_database.comment, "x");
    cr_expect_eq(s[1]->create_database.options.count, 1);
    cr_expect_eq(s[2]->create_database.options.count, 0);
    cr_expect_eq(s[3]->kind, CDC_SQL_STMT_CREATE_FUNCTION);
    const cdc_sql_create_function_t *f = &s[3]->create_function;
    cr_expect(f->temporary);
    cr_expect(f->if_not_exists);
    assert_name(&f->name, 1, "my_upper", NULL, NULL);
    cr_expect_str_eq(f->identifier, "libudf.so:my_upper");
    cr_expect_eq(f->identifier_line, 4);
    cr_expect_eq(f->identifier_col, 53);
    cr_expect_str_eq(f->language, "C");
    cr_expect_null(s[4]->create_function.language);
    cr_expect_not(s[4]->create_function.temporary);
    cdc_sql_script_destroy(script);
}

Test(sql_ddl, use_show_describe)
{
    cdc_sql_script_t *script =
        parse_ok("USE CATALOG c; USE db; USE c.db; SHOW CATALOGS; show databases; SHOW TABLES; "
                 "SHOW VIEWS; SHOW FUNCTIONS; SHOW CREATE TABLE db.t; DESCRIBE t; DESC c.d.t; "
                 "SHOW CURRENT DATABASE");
    cr_assert_eq(script->count, 12);
    cdc_sql_stmt_t **s = script->stmts;
    cr_expect_eq(s[0]->kind, CDC_SQL_STMT_USE_CATALOG);
    assert_name(&s[0]->use, 1, "c", NULL, NULL);
    cr_expect_eq(s[1]->kind, CDC_SQL_STMT_USE_DATABASE);
    assert_name(&s[1]->use, 1, "db", NULL, NULL);
    cr_expect_eq(s[2]->kind, CDC_SQL_STMT_USE_DATABASE);
    assert_name(&s[2]->use, 2, "c", "db", NULL);
    cr_expect_eq(s[3]->kind, CDC_SQL_STMT_SHOW);
    cr_expect_eq(s[3]->show, CDC_SQL_SHOW_CATALOGS);
    cr_expect_eq(s[4]->show, CDC_SQL_SHOW_DATABASES);
    cr_expect_eq(s[5]->show, CDC_SQL_SHOW_TABLES);
    cr_expect_eq(s[6]->show, CDC_SQL_SHOW_VIEWS);
    cr_expect_eq(s[7]->show, CDC_SQL_SHOW_FUNCTIONS);
    cr_expect_eq(s[8]->kind, CDC_SQL_STMT_SHOW_CREATE);
    cr_expect_not(s[8]->show_create.view);
    assert_name(&s[8]->show_create.name, 2, "db", "t", NULL);
    cr_expect_eq(s[9]->kind, CDC_SQL_STMT_DESCRIBE);
    assert_name(&s[9]->describe, 1, "t", NULL, NULL);
    cr_expect_eq(s[10]->kind, CDC_SQL_STMT_DESCRIBE);
    assert_name(&s[10]->describe, 3, "c", "d", "t");
    cr_expect_eq(s[11]->show, CDC_SQL_SHOW_CURRENT_DATABASE);
    cdc_sql_script_destroy(script);
}

Test(sql_ddl, set_and_reset)
{
    cdc_sql_script_t *script =
        parse_ok("SET 'pipeline.name' = 'it''s mine';\nSET;\nRESET 'pipeline.name';\nRESET");
    cr_assert_eq(script->count, 4);
    cdc_sql_stmt_t **s = script->stmts;
    cr_expect_eq(s[0]->kind, CDC_SQL_STMT_SET);
    cr_expect_str_eq(s[0]->set.key, "pipeline.name");
    cr_expect_str_eq(s[0]->set.value, "it's mine");
    cr_expect_eq(s[0]->set.key_col, 5);
    cr_expect_eq(s[0]->set.value_col, 23);
    cr_expect_eq(s[1]->kind, CDC_SQL_STMT_SET);
    cr_expect_null(s[1]->set.key);
    cr_expect_null(s[1]->set.value);
    cr_expect_eq(s[2]->kind, CDC_SQL_STMT_RESET);
    cr_expect_str_eq(s[2]->set.key, "pipeline.name");
    cr_expect_eq(s[3]->kind, CDC_SQL_STMT_RESET);
    cr_expect_null(s[3]->set.key);
    cdc_sql_script_destroy(script);
}

/* ---- DML ----------------------------------------------------------------------------------- */

Test(sql_dml, insert_forms)
{
    cdc_sql_script_t *script =
        parse_ok("INSERT INTO sink SELECT * FROM src;\n"
                 "INSERT OVERWRITE c.d.sink PARTITION (dt = '2024-01-01', hr = 12) (a, b) "
                 "SELECT x, y FROM src");
    cr_assert_eq(script->count, 2);
    const cdc_sql_insert_t *ins = &script->stmts[0]->insert;
    cr_expect_eq(script->stmts[0]->kind, CDC_SQL_STMT_INSERT);
    cr_expect_not(ins->overwrite);
    assert_name(&ins->table, 1, "sink", NULL, NULL);
    cr_expect_eq(ins->partition.count, 0);
    cr_expect_eq(ins->columns.count, 0);
    cr_assert_not_null(ins->query);
    cr_expect_eq(ins->query->items[0].expr->kind, CDC_SQL_EXPR_STAR);
    cr_expect_eq(ins->query->items[0].expr->star.qualifier.nparts, 0);

    ins = &script->stmts[1]->insert;
    cr_expect(ins->overwrite);
    assert_name(&ins->table, 3, "c", "d", "sink");
    cr_assert_eq(ins->partition.count, 2);
    cr_expect_str_eq(ins->partition.items[0].key, "dt");
    cr_expect_str_eq(ins->partition.items[0].value, "2024-01-01");
    cr_expect_str_eq(ins->partition.items[1].key, "hr");
    cr_expect_str_eq(ins->partition.items[1].value, "12");
    cr_assert_eq(ins->columns.count, 2);
    cr_expect_str_eq(ins->columns.items[0].name, "a");
    cr_expect_str_eq(ins->columns.items[1].name, "b");
    cr_expect_eq(ins->query->nitems, 2);
    cr_expect_eq(script->stmts[1]->line, 2);
    cdc_sql_script_destroy(script);
}

Test(sql_dml, statement_sets)
{
    cdc_sql_script_t *script = parse_ok("EXECUTE STATEMENT SET BEGIN\n"
                                        "  INSERT INTO a SELECT * FROM s;\n"
                                        "  INSERT INTO b SELECT id FROM s;\n"
                                        "END;\n"
                                        "BEGIN STATEMENT SET;\n"
                                        "INSERT INTO c SELECT * FROM s;\n"
                                        "END;\n"
                                        "SELECT 1 FROM s");
    cr_assert_eq(script->count, 3);
    cdc_sql_stmt_t *set = script->stmts[0];
    cr_expect_eq(set->kind, CDC_SQL_STMT_STATEMENT_SET);
    cr_assert_eq(set->statement_set.count, 2);
    cr_expect_eq(set->statement_set.inserts[0]->kind, CDC_SQL_STMT_INSERT);
    assert_name(&set->statement_set.inserts[0]->insert.table, 1, "a", NULL, NULL);
    assert_name(&set->statement_set.inserts[1]->insert.table, 1, "b", NULL, NULL);
    cr_expect_str_eq(set->statement_set.inserts[1]->text, "INSERT INTO b SELECT id FROM s");
    cr_expect_eq(set->statement_set.inserts[1]->line, 3);
    cr_expect_eq(set->statement_set.inserts[1]->col, 3);

    set = script->stmts[1];
    cr_expect_eq(set->kind, CDC_SQL_STMT_STATEMENT_SET);
    cr_assert_eq(set->statement_set.count, 1);
    assert_name(&set->statement_set.inserts[0]->insert.table, 1, "c", NULL, NULL);
    cr_expect_eq(set->line, 5);
    cr_expect_eq(script->stmts[2]->kind, CDC_SQL_STMT_QUERY);
    cdc_sql_script_destroy(script);
}

Test(sql_dml, explain)
{
    cdc_sql_script_t *script =
        parse_ok("EXPLAIN PLAN FOR INSERT INTO a SELECT * FROM s;\n"
                 "EXPLAIN SELECT x FROM s WHERE x > 1;\n"
                 "EXPLAIN STATEMENT SET BEGIN INSERT INTO a SELECT * FROM s; END;\n"
                 "EXPLAIN CHANGELOG_MODE, ESTIMATED_COST EXECUTE STATEMENT SET BEGIN "
                 "INSERT INTO a SELECT * FROM s END");
    cr_assert_eq(script->count, 4);
    cdc_sql_stmt_t **s = script->stmts;
    cr_expect_eq(s[0]->kind, CDC_SQL_STMT_EXPLAIN);
    cr_assert_not_null(s[0]->explain.stmt);
    cr_expect_eq(s[0]->explain.stmt->kind, CDC_SQL_STMT_INSERT);
    cr_expect_str_eq(s[0]->explain.stmt->text, "INSERT INTO a SELECT * FROM s");
    cr_expect_eq(s[0]->explain.details, 0);
    cr_expect_eq(s[1]->explain.stmt->kind, CDC_SQL_STMT_QUERY);
    cr_expect_not_null(s[1]->explain.stmt->query->where);
    cr_expect_eq(s[2]->explain.stmt->kind, CDC_SQL_STMT_STATEMENT_SET);
    cr_expect_eq(s[2]->explain.stmt->statement_set.count, 1);
    cr_expect_eq(s[3]->explain.stmt->kind, CDC_SQL_STMT_STATEMENT_SET);
    cr_expect_eq(s[3]->explain.details,
                 CDC_SQL_EXPLAIN_CHANGELOG_MODE | CDC_SQL_EXPLAIN_ESTIMATED_COST);
    cdc_sql_script_destroy(script);
}

/* ---- queries ------------------------------------------------------------------------------- */

Test(sql_query, select_items_aliases_where_limit)
{
    cdc_sql_script_t *script;
    cdc_sql_stmt_t *stmt =
        parse_one("SELECT DISTINCT o.*, id, price * 2 AS double_price, UPPER(name) n, `select` "
                  "FROM db.orders AS o WHERE price > 10 LIMIT 100",
                  &script);
    cdc_sql_query_t *q = stmt->query;
    cr_expect(q->distinct);
    cr_assert_eq(q->nitems, 5);
    cr_expect_eq(q->items[0].expr->kind, CDC_SQL_EXPR_STAR);
    cr_expect_eq(q->items[0].expr->star.qualifier.nparts, 1);
    cr_expect_str_eq(q->items[0].expr->star.qualifier.parts[0], "o");
    cr_expect_eq(q->items[1].expr->kind, CDC_SQL_EXPR_COLUMN);
    cr_expect_null(q->items[1].alias);
    cr_expect_str_eq(q->items[2].alias, "double_price");
    cr_expect_eq(q->items[2].alias_col, 39);
    cr_expect_eq(q->items[3].expr->kind, CDC_SQL_EXPR_CALL);
    cr_expect_str_eq(q->items[3].expr->call.name, "UPPER");
    cr_expect_str_eq(q->items[3].alias, "n");
    cr_expect_eq(q->items[4].expr->kind, CDC_SQL_EXPR_COLUMN);
    cr_expect_str_eq(q->items[4].expr->column.parts[0], "select");
    assert_name(&q->from.name, 2, "db", "orders", NULL);
    cr_expect_str_eq(q->from.alias, "o");
    cr_expect_eq(q->njoins, 0);
    cr_assert_not_null(q->where);
    char *w = cdc_sql_expr_to_string(q->where);
    cr_expect_str_eq(w, "price > 10");
    free(w);
    cr_expect(q->has_limit);
    cr_expect_eq(q->limit, 100);
    cdc_sql_script_destroy(script);

    stmt = parse_one("select a from t", &script);
    cr_expect_not(stmt->query->distinct);
    cr_expect_null(stmt->query->where);
    cr_expect_not(stmt->query->has_limit);
    cr_expect_null(stmt->query->from.alias);
    cdc_sql_script_destroy(script);
}

Test(sql_query, lookup_join)
{
    cdc_sql_script_t *script;
    cdc_sql_stmt_t *stmt =
        parse_one("SELECT o.id, c.name FROM orders AS o\n"
                  "LEFT JOIN customers FOR SYSTEM_TIME AS OF o.proc_time AS c ON o.cid = c.id\n"
                  "JOIN rates r ON o.cur = r.cur\n"
                  "WHERE o.id > 0",
                  &script);
    cdc_sql_query_t *q = stmt->query;
    cr_assert_eq(q->njoins, 2);
    const cdc_sql_join_t *j = &q->joins[0];
    cr_expect_eq(j->kind, CDC_SQL_JOIN_LEFT);
    assert_name(&j->table.name, 1, "customers", NULL, NULL);
    cr_expect_str_eq(j->table.alias, "c");
    cr_assert_not_null(j->system_time);
    char *s = cdc_sql_expr_to_string(j->system_time);
    cr_expect_str_eq(s, "o.proc_time");
    free(s);
    s = cdc_sql_expr_to_string(j->on);
    cr_expect_str_eq(s, "o.cid = c.id");
    free(s);
    cr_expect_eq(j->line, 2);
    cr_expect_eq(j->col, 1);
    j = &q->joins[1];
    cr_expect_eq(j->kind, CDC_SQL_JOIN_INNER);
    cr_expect_null(j->system_time);
    cr_expect_str_eq(j->table.alias, "r");
    cr_expect_not_null(q->where);
    cdc_sql_script_destroy(script);
}

Test(sql_query, group_by_having_order_by)
{
    cdc_sql_script_t *script;
    cdc_sql_stmt_t *stmt = parse_one("SELECT k, COUNT(*) AS n FROM t WHERE v > 0\n"
                                     "GROUP BY k, v + 1 HAVING COUNT(*) > 2\n"
                                     "ORDER BY n DESC NULLS LAST, k ASC, v NULLS FIRST LIMIT 10",
                                     &script);
    const cdc_sql_query_t *q = stmt->query;
    cr_assert_eq(q->ngroup_by, 2);
    cr_expect_eq(q->group_line, 2);
    cr_expect_eq(q->group_col, 1);
    cr_expect_eq(q->having_line, 2);
    cr_expect_eq(q->having_col, 19);
    char *s = cdc_sql_expr_to_string(q->group_by[1]);
    cr_expect_str_eq(s, "v + 1");
    free(s);
    s = cdc_sql_expr_to_string(q->having);
    cr_expect_str_eq(s, "COUNT(*) > 2");
    free(s);
    cr_assert_eq(q->norder_by, 3);
    cr_expect_eq(q->order_line, 3);
    cr_expect_eq(q->order_col, 1);
    cr_expect(q->order_by[0].desc);
    cr_expect_eq(q->order_by[0].nulls, 2);
    cr_expect_not(q->order_by[1].desc);
    cr_expect_eq(q->order_by[1].nulls, 0);
    cr_expect_eq(q->order_by[2].nulls, 1);
    s = cdc_sql_order_items_to_string(q->order_by, q->norder_by);
    cr_expect_str_eq(s, "n DESC NULLS LAST, k, v NULLS FIRST");
    free(s);
    cr_expect(q->has_limit);
    cr_expect_eq(q->limit, 10);
    cdc_sql_script_destroy(script);

    /* HAVING alone, and ORDER BY inside a subquery */
    stmt = parse_one("SELECT * FROM (SELECT a FROM t ORDER BY a) HAVING SUM(a) > 1", &script);
    cr_expect_not_null(stmt->query->having);
    cr_expect_eq(stmt->query->ngroup_by, 0);
    cr_expect_eq(stmt->query->from.subquery->norder_by, 1);
    cdc_sql_script_destroy(script);
}

Test(sql_query, window_functions)
{
    assert_canonical("row_number() OVER (PARTITION BY a, b ORDER BY ts DESC)",
                     "ROW_NUMBER() OVER (PARTITION BY a, b ORDER BY ts DESC)");
    assert_canonical("RANK() over (order by x nulls last, y asc)",
                     "RANK() OVER (ORDER BY x NULLS LAST, y)");
    assert_canonical("SUM(v) OVER (PARTITION BY k) + 1", "SUM(v) OVER (PARTITION BY k) + 1");
    assert_canonical("COUNT(*) OVER ()", "COUNT(*) OVER ()");
    assert_canonical("DENSE_RANK() OVER (ORDER BY a)[1]", "DENSE_RANK() OVER (ORDER BY a)[1]");

    cdc_sql_script_t *script;
    cdc_sql_stmt_t *stmt = parse_one("SELECT a,\n  ROW_NUMBER() OVER (PARTITION BY a ORDER BY b) "
                                     "AS rn, COUNT(*) over FROM t",
                                     &script);
    const cdc_sql_query_t *q = stmt->query;
    cr_assert_eq(q->nitems, 3);
    const cdc_sql_over_t *o = q->items[1].expr->call.over;
    cr_assert_not_null(o);
    cr_expect_eq(o->line, 2);
    cr_expect_eq(o->col, 16);
    cr_expect_eq(o->npartition_by, 1);
    cr_expect_eq(o->norder_by, 1);
    cr_expect_str_eq(q->items[1].alias, "rn");
    /* a bare "over" after a call is an alias */
    cr_expect_null(q->items[2].expr->call.over);
    cr_expect_str_eq(q->items[2].alias, "over");
    /* a clone copies the window */
    cdc_sql_expr_t *copy = cdc_sql_expr_clone(q->items[1].expr);
    char *a = cdc_sql_expr_to_string(q->items[1].expr), *b = cdc_sql_expr_to_string(copy);
    cr_expect_str_eq(a, b);
    cr_expect_neq(copy->call.over, o);
    free(a);
    free(b);
    cdc_sql_expr_destroy(copy);
    cdc_sql_script_destroy(script);
}

Test(sql_query, window_frames_and_named_windows)
{
    assert_canonical("SUM(a) OVER (PARTITION BY k ORDER BY t ROWS BETWEEN 2 PRECEDING AND CURRENT "
                     "ROW)",
                     "SUM(a) OVER (PARTITION BY k ORDER BY t ROWS BETWEEN 2 PRECEDING AND CURRENT "
                     "ROW)");
    /* ROWS x is BETWEEN x AND CURRENT ROW */
    assert_canonical(
        "COUNT(*) OVER (ORDER BY t range unbounded preceding)",
        "COUNT(*) OVER (ORDER BY t RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)");
    assert_canonical("MAX(a) OVER (ORDER BY t RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND 1 "
                     "FOLLOWING)",
                     "MAX(a) OVER (ORDER BY t RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND 1 "
                     "FOLLOWING)");

    /* OVER w takes the window of the WINDOW clause (printed as its definition), keeping its
       own place; a subquery's windows are its own */
    cdc_sql_script_t *script;
    cdc_sql_stmt_t *stmt =
        parse_one("SELECT SUM(a) OVER w, AVG(a) OVER w2 FROM (SELECT MIN(b) OVER "
                  "w FROM u WINDOW w AS (ORDER BY c)) WINDOW w AS (PARTITION BY "
                  "k ORDER BY t ROWS 3 PRECEDING), w2 AS (ORDER BY t)",
                  &script);
    const cdc_sql_query_t *q = stmt->query;
    const cdc_sql_over_t *o = q->items[0].expr->call.over;
    cr_assert_not_null(o);
    cr_expect_str_eq(o->name, "w");
    cr_expect_eq(o->col, 20);
    cr_expect_eq(o->frame, 1);
    cr_expect_eq(o->lower.kind, CDC_SQL_BOUND_PRECEDING);
    cr_expect_eq(o->upper.kind, CDC_SQL_BOUND_CURRENT_ROW);
    char *t = cdc_sql_expr_to_string(q->items[0].expr);
    cr_expect_str_eq(t, "SUM(a) OVER (PARTITION BY k ORDER BY t ROWS BETWEEN 3 PRECEDING AND "
                        "CURRENT ROW)");
    free(t);
    t = cdc_sql_expr_to_string(q->items[1].expr);
    cr_expect_str_eq(t, "AVG(a) OVER (ORDER BY t)");
    free(t);
    t = cdc_sql_expr_to_string(q->from.subquery->items[0].expr);
    cr_expect_str_eq(t, "MIN(b) OVER (ORDER BY c)");
    free(t);
    cdc_sql_script_destroy(script);
}

Test(sql_query, outer_joins)
{
    cdc_sql_script_t *script;
    cdc_sql_stmt_t *stmt = parse_one("SELECT * FROM a RIGHT OUTER JOIN b ON a.k = b.k\n"
                                     "FULL JOIN c AS x ON b.k = x.k LEFT OUTER JOIN d ON d.k = x.k "
                                     "INNER JOIN e ON e.k = d.k RIGHT JOIN f ON TRUE "
                                     "FULL OUTER JOIN g ON TRUE",
                                     &script);
    const cdc_sql_query_t *q = stmt->query;
    cr_assert_eq(q->njoins, 6);
    const cdc_sql_join_kind_t kinds[] = {CDC_SQL_JOIN_RIGHT, CDC_SQL_JOIN_FULL,  CDC_SQL_JOIN_LEFT,
                                         CDC_SQL_JOIN_INNER, CDC_SQL_JOIN_RIGHT, CDC_SQL_JOIN_FULL};
    for (size_t i = 0; i < 6; i++)
        cr_expect_eq(q->joins[i].kind, kinds[i], "join %zu", i);
    cr_expect_eq(q->joins[1].line, 2);
    cr_expect_eq(q->joins[1].col, 1);
    cr_expect_str_eq(q->joins[1].table.alias, "x");
    cdc_sql_script_destroy(script);
}

/* GROUPING SETS, ROLLUP, CUBE: the keys once each, the sets as masks over them in Calcite's
 * order (enclosing sets first), the cross product of several elements, duplicates dropped */
static void assert_sets(const char *sql, size_t nkeys, const uint64_t *want, size_t nwant)
{
    cdc_sql_script_t *script;
    cdc_sql_stmt_t *stmt = parse_one(sql, &script);
    const cdc_sql_query_t *q = stmt->query;
    cr_assert_eq(q->ngroup_by, nkeys, "%s: %zu keys", sql, q->ngroup_by);
    cr_assert_eq(q->ngroup_sets, nwant, "%s: %zu sets", sql, q->ngroup_sets);
    for (size_t i = 0; i < nwant; i++)
        cr_expect_eq(q->group_sets[i], want[i], "%s: set %zu is %llx", sql, i,
                     (unsigned long long)q->group_sets[i]);
    cdc_sql_script_destroy(script);
}

Test(sql_query, grouping_sets)
{
    assert_sets("SELECT a FROM t GROUP BY ROLLUP (a, b)", 2, (uint64_t[]){3, 1, 0}, 3);
    assert_sets("SELECT a FROM t GROUP BY a, CUBE (b)", 2, (uint64_t[]){3, 1}, 2);
    assert_sets("SELECT a FROM t GROUP BY CUBE (a, b, c)", 3, (uint64_t[]){7, 3, 5, 1, 6, 2, 4, 0},
                8);
    assert_sets("SELECT a FROM t GROUP BY GROUPING SETS ((a), (), (a, b), a)", 2,
                (uint64_t[]){3, 1, 0}, 3);
    assert_sets("SELECT a FROM t GROUP BY GROUPING SETS (a, ROLLUP (b)), ROLLUP ((a, c))", 3,
                (uint64_t[]){7, 5, 1, 2, 0}, 5);
    assert_sets("SELECT a FROM t GROUP BY a, a + 1", 2, NULL, 0);
}

Test(sql_query, stateful_forms_not_yet_parsed_are_named)
{
    assert_error("SELECT SUM(a) OVER w FROM t", "test.sql:1:20: Window 'w' not found",
                 "SELECT SUM(a) OVER w FROM t\n                   ^");
    assert_error(
        "SELECT SUM(a) OVER (ORDER BY b ROWS 1) FROM t",
        "syntax error at test.sql:1:38: expected \"PRECEDING\" or \"FOLLOWING\", found "
        "\")\"",
        "SELECT SUM(a) OVER (ORDER BY b ROWS 1) FROM t\n                                     ^");
    assert_error(
        "SELECT RANK() OVER (ORDER BY a NULLS) FROM t",
        "syntax error at test.sql:1:37: expected \"FIRST\" or \"LAST\", found \")\"",
        "SELECT RANK() OVER (ORDER BY a NULLS) FROM t\n                                    ^");
    assert_error(
        "SELECT RANK() OVER (PARTITION BY a b) FROM t",
        "syntax error at test.sql:1:36: expected \"ORDER\", \",\" or \")\", found \"b\"",
        "SELECT RANK() OVER (PARTITION BY a b) FROM t\n                                   ^");
    assert_error("SELECT a FROM t ORDER BY a UNION ALL SELECT a FROM u",
                 "test.sql:1:17: ORDER BY on an operand of a set operator is not supported yet",
                 "SELECT a FROM t ORDER BY a UNION ALL SELECT a FROM u\n                ^");
    assert_error("SELECT a FROM t UNION ALL SELECT a FROM u ORDER BY a",
                 "test.sql:1:43: ORDER BY on a UNION ALL is not supported yet",
                 "SELECT a FROM t UNION ALL SELECT a FROM u ORDER BY a\n"
                 "                                          ^");
    assert_error("SELECT a FROM t CROSS JOIN u", "test.sql:1:17: CROSS JOIN is not supported yet",
                 "SELECT a FROM t CROSS JOIN u\n                ^");
    cdc_error_t *err =
        parse_err("SELECT a FROM t FULL JOIN u FOR SYSTEM_TIME AS OF t.pt ON t.k = u.k");
    cr_expect_str_eq(err->message, "test.sql:1:29: FOR SYSTEM_TIME AS OF on a RIGHT or FULL join "
                                   "is not supported yet");
    cr_expect_str_eq(err->hint, "a lookup join is JOIN or LEFT JOIN ... FOR SYSTEM_TIME AS OF");
    cdc_error_destroy(err);
    assert_error("SELECT a FROM t RIGHT JOIN u FOR SYSTEM_TIME AS OF t.pt ON t.k = u.k",
                 "test.sql:1:30: FOR SYSTEM_TIME AS OF on a RIGHT or FULL join is not supported "
                 "yet",
                 "SELECT a FROM t RIGHT JOIN u FOR SYSTEM_TIME AS OF t.pt ON t.k = u.k\n"
                 "                             ^");
}

Test(sql_query, bare_queries_and_separators)
{
    cdc_sql_script_t *script = parse_ok(";; SELECT 1 FROM t;;\n\n select 2 from u ;");
    cr_assert_eq(script->count, 2);
    cr_expect_str_eq(script->stmts[0]->text, "SELECT 1 FROM t");
    cr_expect_str_eq(script->stmts[1]->text, "select 2 from u");
    cr_expect_eq(script->stmts[1]->line, 3);
    cr_expect_eq(script->stmts[1]->col, 2);
    cdc_sql_script_destroy(script);

    script = parse_ok("  -- only a comment\n/* and another */\n");
    cr_expect_eq(script->count, 0);
    cdc_sql_script_destroy(script);
}

/* ---- expressions --------------------------------------------------------------------------- */

Test(sql_expr, precedence)
{
    assert_tree("a OR b AND c", "(OR a (AND b c))");
    assert_tree("a AND b OR c", "(OR (AND a b) c)");
    assert_tree("NOT a AND b", "(AND (NOT a) b)");
    assert_tree("NOT a = b", "(NOT (= a b))");
    assert_tree("a = b OR c <> d", "(OR (= a b) (<> c d))");
    assert_tree("a || b = c", "(= (|| a b) c)");
    assert_tree("a + b || c", "(|| (+ a b) c)");
    assert_tree("a + b * c", "(+ a (* b c))");
    assert_tree("a * b + c", "(+ (* a b) c)");
    assert_tree("a - b - c", "(- (- a b) c)");
    assert_tree("a / b % c", "(% (/ a b) c)");
    assert_tree("-a * b", "(* (NEG a) b)");
    assert_tree("- - a", "(NEG (NEG a))");
    assert_tree("(a + b) * c", "(* (+ a b) c)");
    assert_tree("a + 1 > b * 2", "(> (+ a 1) (* b 2))");
    assert_tree("a IS NOT NULL AND b IS NULL", "(AND (ISNOTNULL a) (ISNULL b))");
    assert_tree("a + 1 IS NULL", "(ISNULL (+ a 1))");
    assert_tree("a BETWEEN 1 AND 2 AND b", "(AND (BETWEEN a 1 2) b)");
    assert_tree("a NOT BETWEEN b + 1 AND c * 2", "(NOTBETWEEN a (+ b 1) (* c 2))");
    assert_tree("a NOT IN (1, 2 + 3) OR b IN (4)", "(OR (NOTIN a 1 (+ 2 3)) (IN b 4))");
    assert_tree("name NOT LIKE 'a%' || x", "(NOTLIKE name (|| 'a%' x))");
    assert_tree("NOT a LIKE 'x' OR b", "(OR (NOT (LIKE a 'x')) b)");
    assert_tree("a <= b AND c >= d AND e < f AND g > h AND i != j",
                "(AND (AND (AND (AND (<= a b) (>= c d)) (< e f)) (> g h)) (<> i j))");
}

Test(sql_expr, canonical_text)
{
    assert_canonical("a+1", "a + 1");
    assert_canonical("(a + 1) * 2", "(a + 1) * 2");
    assert_canonical("((a))", "a");
    assert_canonical("a - (b - c)", "a - (b - c)");
    assert_canonical("(a - b) - c", "a - b - c");
    assert_canonical("a>10 AND (b OR c)", "a > 10 AND (b OR c)");
    assert_canonical("NOT (a OR b)", "NOT (a OR b)");
    assert_canonical("-(-x)", "-(-x)");
    assert_canonical("-(a + b)", "-(a + b)");
    assert_canonical("upper(name)", "UPPER(name)");
    assert_canonical("count(*)", "COUNT(*)");
    assert_canonical("count( DISTINCT  a)", "COUNT(DISTINCT a)");
    assert_canonical("cast(a as BIGINT)", "CAST(a AS BIGINT)");
    assert_canonical("try_cast(a AS DECIMAL(10, 2))", "TRY_CAST(a AS DECIMAL(10, 2))");
    assert_canonical("CAST(ts AS TIMESTAMP(3) WITH LOCAL TIME ZONE)",
                     "CAST(ts AS TIMESTAMP(3) WITH LOCAL TIME ZONE)");
    assert_canonical("case when a > 1 then 'x' when a > 0 then 'y' else 'z' end",
                     "CASE WHEN a > 1 THEN 'x' WHEN a > 0 THEN 'y' ELSE 'z' END");
    assert_canonical("CASE op WHEN 'c' THEN 1 END", "CASE op WHEN 'c' THEN 1 END");
    assert_canonical("a not in (1,2)", "a NOT IN (1, 2)");
    assert_canonical("a between 1 and 2", "a BETWEEN 1 AND 2");
    assert_canonical("a like 'x\\_%' escape '\\'", "a LIKE 'x\\_%' ESCAPE '\\'");
    assert_canonical("a is not null", "a IS NOT NULL");
    assert_canonical("'it''s'", "'it''s'");
    assert_canonical("true OR false OR null", "TRUE OR FALSE OR NULL");
    assert_canonical("date '2020-01-01'", "DATE '2020-01-01'");
    assert_canonical("TIME '12:00:00'", "TIME '12:00:00'");
    assert_canonical("timestamp '2020-01-01 00:00:00'", "TIMESTAMP '2020-01-01 00:00:00'");
    assert_canonical("interval '5' seconds", "INTERVAL '5' SECOND");
    assert_canonical("INTERVAL '1 02:03' DAY TO MINUTE", "INTERVAL '1 02:03' DAY TO MINUTE");
    assert_canonical("1.50 + .5 + 1e3", "1.50 + .5 + 1e3");
    assert_canonical("arr[1] + m['k'][2]", "arr[1] + m['k'][2]");
    assert_canonical("t.payload.after.id", "t.payload.after.id");
    assert_canonical("`my col` || `select`", "`my col` || `select`");
    assert_canonical("current_timestamp", "CURRENT_TIMESTAMP");
    assert_canonical("a || b || c", "a || b || c");
    assert_canonical("a = (b = c)", "a = (b = c)");
    assert_canonical("IF(a > 1, 'x', 'y')", "IF(a > 1, 'x', 'y')");
    assert_canonical("LEFT(s, 2)", "LEFT(s, 2)");
}

Test(sql_expr, special_forms_normalize_to_calls)
{
    cdc_sql_script_t *script;
    cdc_sql_stmt_t *stmt = parse_one("SELECT SUBSTRING(s FROM 2 FOR 3), substring(s, 2), "
                                     "TRIM(s), TRIM(LEADING 'x' FROM s), TRIM(BOTH FROM s) FROM t",
                                     &script);
    cdc_sql_select_item_t *it = stmt->query->items;
    cr_assert_eq(stmt->query->nitems, 5);
    cr_expect_eq(it[0].expr->kind, CDC_SQL_EXPR_CALL);
    cr_expect_str_eq(it[0].expr->call.name, "SUBSTRING");
    cr_expect_eq(it[0].expr->call.nargs, 3);
    char *s = cdc_sql_expr_to_string(it[0].expr);
    cr_expect_str_eq(s, "SUBSTRING(s, 2, 3)");
    free(s);
    cr_expect_eq(it[1].expr->call.nargs, 2);

    const cdc_sql_expr_t *trim = it[2].expr;
    cr_expect_str_eq(trim->call.name, "TRIM");
    cr_assert_eq(trim->call.nargs, 3);
    cr_expect_eq(trim->call.args[0]->literal.kind, CDC_SQL_LIT_SYMBOL);
    cr_expect_str_eq(trim->call.args[0]->literal.text, "BOTH");
    cr_expect_eq(trim->call.args[1]->literal.kind, CDC_SQL_LIT_STRING);
    cr_expect_str_eq(trim->call.args[1]->literal.text, " ");
    cr_expect_eq(trim->call.args[2]->kind, CDC_SQL_EXPR_COLUMN);
    s = cdc_sql_expr_to_string(trim);
    cr_expect_str_eq(s, "TRIM(BOTH ' ' FROM s)");
    free(s);
    s = cdc_sql_expr_to_string(it[3].expr);
    cr_expect_str_eq(s, "TRIM(LEADING 'x' FROM s)");
    free(s);
    s = cdc_sql_expr_to_string(it[4].expr);
    cr_expect_str_eq(s, "TRIM(BOTH ' ' FROM s)");
    free(s);
    cdc_sql_script_destroy(script);
}

Test(sql_expr, keyword_function_forms_normalize_and_print_back)
{
    assert_canonical("POSITION('@' IN email)", "POSITION('@' IN email)");
    assert_canonical("position(a || 'x' IN b)", "POSITION(a || 'x' IN b)");
    assert_canonical("EXTRACT(hour FROM ts)", "EXTRACT(HOUR FROM ts)");
    assert_canonical("FLOOR(ts TO HOUR)", "FLOOR(ts TO HOUR)");
    assert_canonical("ceil(ts TO day)", "CEIL(ts TO DAY)");
    assert_canonical("FLOOR(x)", "FLOOR(x)");
    assert_canonical("a IS DISTINCT FROM b + 1", "(a IS DISTINCT FROM b + 1)");
    assert_canonical("JSON_OBJECT(KEY 'a' VALUE 1, 'b' VALUE x ABSENT ON NULL)",
                     "JSON_OBJECT(KEY 'a' VALUE 1, KEY 'b' VALUE x ABSENT ON NULL)");
    assert_canonical("JSON_OBJECT()", "JSON_OBJECT(NULL ON NULL)");
    assert_canonical("json_array(1, JSON_ARRAY('x'))",
                     "JSON_ARRAY(1, JSON_ARRAY('x' ABSENT ON NULL) ABSENT ON NULL)");
    assert_canonical("JSON_VALUE(doc, '$.a' RETURNING INT NULL ON EMPTY NULL ON ERROR)",
                     "TRY_CAST(JSON_VALUE(doc, '$.a') AS INT)");
    assert_canonical("JSON_QUERY(doc, '$.a' WITHOUT ARRAY WRAPPER)", "JSON_QUERY(doc, '$.a')");
    assert_canonical("JSON_EXISTS(doc, '$.a' FALSE ON ERROR)", "JSON_EXISTS(doc, '$.a')");
    assert_canonical("a IS NOT DISTINCT FROM NULL AND c", "(a IS NOT DISTINCT FROM NULL) AND c");
}

Test(sql_expr, node_details_and_positions)
{
    cdc_sql_script_t *script;
    cdc_sql_stmt_t *stmt = parse_one("SELECT\n  a.b.c + 1,\n  CAST(x AS ROW<a INT>),\n"
                                     "  -5, INTERVAL '2' DAY TO SECOND FROM t",
                                     &script);
    cdc_sql_select_item_t *it = stmt->query->items;
    const cdc_sql_expr_t *add = it[0].expr;
    cr_assert_eq(add->kind, CDC_SQL_EXPR_BINARY);
    cr_expect_eq(add->binary.op, CDC_SQL_BINARY_ADD);
    cr_expect_eq(add->line, 2);
    cr_expect_eq(add->col, 9); /* the operator */
    const cdc_sql_expr_t *col = add->binary.left;
    cr_assert_eq(col->kind, CDC_SQL_EXPR_COLUMN);
    cr_assert_eq(col->column.nparts, 3);
    cr_expect_str_eq(col->column.parts[2], "c");
    cr_expect_eq(col->line, 2);
    cr_expect_eq(col->col, 3);
    cr_expect_eq(add->binary.right->literal.kind, CDC_SQL_LIT_INTEGER);
    cr_expect_str_eq(add->binary.right->literal.text, "1");

    const cdc_sql_expr_t *cast = it[1].expr;
    cr_assert_eq(cast->kind, CDC_SQL_EXPR_CAST);
    cr_expect_not(cast->cast.try_cast);
    cr_expect_str_eq(cast->cast.type.text, "ROW<a INT>");
    cr_expect_eq(cast->cast.type.line, 3);
    cr_expect_eq(cast->cast.type.col, 13);
    cr_expect_eq(cast->line, 3);
    cr_expect_eq(cast->col, 3);

    cr_expect_eq(it[2].expr->kind, CDC_SQL_EXPR_UNARY);
    cr_expect_eq(it[2].expr->unary.op, CDC_SQL_UNARY_MINUS);
    cr_expect_eq(it[3].expr->literal.kind, CDC_SQL_LIT_INTERVAL);
    cr_expect_str_eq(it[3].expr->literal.text, "2");
    cr_expect_str_eq(it[3].expr->literal.unit, "DAY TO SECOND");
    cdc_sql_script_destroy(script);
}

Test(sql_expr, clone_and_take_ownership)
{
    cdc_sql_script_t *script;
    cdc_sql_stmt_t *stmt =
        parse_one("SELECT CASE WHEN a IN (1, 2) THEN TRIM(s) ELSE CAST(b AS INT) END, "
                  "x NOT BETWEEN 1 AND 2, y LIKE 'a' ESCAPE 'b', m['k'], t.*, -z IS NULL FROM t",
                  &script);
    for (size_t i = 0; i < stmt->query->nitems; i++) {
        cdc_sql_expr_t *copy = cdc_sql_expr_clone(stmt->query->items[i].expr);
        char *a = cdc_sql_expr_to_string(stmt->query->items[i].expr);
        char *b = cdc_sql_expr_to_string(copy);
        cr_expect_str_eq(a, b);
        free(a);
        free(b);
        cdc_sql_expr_destroy(copy);
    }
    /* A consumer may take a statement out of the script. */
    cdc_sql_stmt_t *taken = script->stmts[0];
    script->stmts[0] = NULL;
    cdc_sql_script_destroy(script);
    cr_expect_eq(taken->kind, CDC_SQL_STMT_QUERY);
    cdc_sql_stmt_destroy(taken);
}

Test(sql_expr, names_and_quoting)
{
    char *q = cdc_sql_quote_ident("my col");
    cr_expect_str_eq(q, "`my col`");
    free(q);
    q = cdc_sql_quote_ident("a`b");
    cr_expect_str_eq(q, "`a``b`");
    free(q);
    q = cdc_sql_quote_ident("plain_1");
    cr_expect_str_eq(q, "plain_1");
    free(q);
    q = cdc_sql_quote_ident("from");
    cr_expect_str_eq(q, "`from`");
    free(q);

    cdc_sql_script_t *script;
    cdc_sql_stmt_t *stmt = parse_one("DESCRIBE `my cat`.db.`t``x`", &script);
    assert_name(&stmt->describe, 3, "my cat", "db", "t`x");
    char *n = cdc_sql_name_to_string(&stmt->describe);
    cr_expect_str_eq(n, "`my cat`.db.`t``x`");
    free(n);
    cdc_sql_script_destroy(script);
}

Test(sql_comments, comments_anywhere)
{
    cdc_sql_script_t *script = parse_ok("-- leading comment\n"
                                        "CREATE /* inline */ TABLE t ( -- trailing\n"
                                        "  a INT /* between */ NOT NULL,\n"
                                        "  b STRING -- last column\n"
                                        ") WITH ('connector' /* k */ = 'print'); /* done */\n"
                                        "SELECT a -- comment at the end\n"
                                        "FROM t");
    cr_assert_eq(script->count, 2);
    const cdc_sql_create_table_t *ct = &script->stmts[0]->create_table;
    cr_assert_eq(ct->ncolumns, 2);
    cr_expect_str_eq(ct->columns[0].type.text, "INT");
    cr_expect(ct->columns[0].not_null);
    cr_expect_str_eq(ct->columns[1].type.text, "STRING");
    cr_expect_str_eq(ct->options.items[0].value, "print");
    cr_expect_eq(script->stmts[0]->line, 2);
    cr_expect_eq(script->stmts[1]->line, 6);
    cdc_sql_script_destroy(script);
}

/* ---- errors -------------------------------------------------------------------------------- */

Test(sql_errors, missing_paren)
{
    assert_error("CREATE TABLE t (\n"
                 "  id INT,\n"
                 "  name STRING\n"
                 "WITH ('connector' = 'kafka')",
                 "syntax error at test.sql:4:1: expected \",\" or \")\", found \"WITH\"",
                 "WITH ('connector' = 'kafka')\n"
                 "^");
    assert_error("CREATE TABLE t id INT",
                 "syntax error at test.sql:1:16: expected \"(\", found \"id\"",
                 "CREATE TABLE t id INT\n"
                 "               ^");
    assert_error("SELECT UPPER(a FROM t",
                 "syntax error at test.sql:1:16: expected \",\" or \")\", found \"FROM\"",
                 "SELECT UPPER(a FROM t\n"
                 "               ^");
}

Test(sql_errors, bad_token)
{
    cdc_error_t *err = parse_err("SELECT a FROM t WHERE a @ 1");
    cr_expect_str_eq(err->message, "syntax error at test.sql:1:25: unexpected character \"@\"");
    cr_expect_str_eq(err->detail, "SELECT a FROM t WHERE a @ 1\n"
                                  "                        ^");
    cdc_error_destroy(err);
    assert_error("SELECT a FROM t WHERE a = = 1",
                 "syntax error at test.sql:1:27: expected expression, found \"=\"",
                 "SELECT a FROM t WHERE a = = 1\n"
                 "                          ^");
    assert_error("FROBNICATE t",
                 "syntax error at test.sql:1:1: expected statement, found \"FROBNICATE\"",
                 "FROBNICATE t\n"
                 "^");
    err = parse_err("SELECT \"a\" FROM t");
    cr_expect_str_eq(err->message, "syntax error at test.sql:1:8: unexpected character '\"'");
    cr_expect_not_null(err->hint);
    cdc_error_destroy(err);
}

Test(sql_errors, unterminated_string)
{
    cdc_error_t *err = parse_err("SET 'a' = 'b';\nSET 'pipeline.name' = 'oops;\nSELECT 1 FROM t");
    cr_expect_str_eq(err->message, "syntax error at test.sql:2:23: unterminated string literal");
    cr_expect_str_eq(err->detail, "SET 'pipeline.name' = 'oops;\n"
                                  "                      ^");
    cr_expect_str_eq(err->hint,
                     "close the string with a single quote; write '' for a quote inside it");
    cdc_error_destroy(err);
}

Test(sql_errors, unterminated_comment_and_quoted_identifier)
{
    cdc_error_t *err = parse_err("SELECT a /* never\nclosed FROM t");
    cr_expect_str_eq(err->message, "syntax error at test.sql:1:10: unterminated comment");
    cr_expect_str_eq(err->detail, "SELECT a /* never\n"
                                  "         ^");
    cdc_error_destroy(err);
    assert_error("SELECT `abc FROM t",
                 "syntax error at test.sql:1:8: unterminated quoted identifier",
                 "SELECT `abc FROM t\n"
                 "       ^");
}

Test(sql_errors, primary_key_without_not_enforced)
{
    cdc_error_t *err = parse_err("CREATE TABLE t (\n"
                                 "  id BIGINT,\n"
                                 "  PRIMARY KEY (id)\n"
                                 ") WITH ('connector' = 'jdbc')");
    cr_expect_str_eq(err->message,
                     "syntax error at test.sql:4:1: expected \"NOT ENFORCED\", found \")\"");
    cr_expect_str_eq(err->detail, ") WITH ('connector' = 'jdbc')\n^");
    cr_assert_not_null(err->hint);
    cr_expect(strstr(err->hint, "Flink requires primary keys to be declared NOT ENFORCED") != NULL);
    cdc_error_destroy(err);
    assert_error("CREATE TABLE t (id INT PRIMARY KEY ENFORCED)",
                 "syntax error at test.sql:1:36: expected \"NOT ENFORCED\", found \"ENFORCED\"",
                 "CREATE TABLE t (id INT PRIMARY KEY ENFORCED)\n"
                 "                                   ^");
    assert_error("CREATE TABLE t (id INT PRIMARY KEY NOT ENFORCED, PRIMARY KEY (id) NOT ENFORCED)",
                 "syntax error at test.sql:1:50: duplicate primary key definition",
                 "CREATE TABLE t (id INT PRIMARY KEY NOT ENFORCED, PRIMARY KEY (id) NOT "
                 "ENFORCED)\n"
                 "                                                 ^");
}

Test(sql_errors, missing_select_after_insert)
{
    assert_error("INSERT INTO t",
                 "syntax error at test.sql:1:14: expected \"SELECT\", \"WITH\" or \"VALUES\", "
                 "found end of input",
                 "INSERT INTO t\n"
                 "             ^");
    assert_error("INSERT INTO t TABLE (1)",
                 "syntax error at test.sql:1:15: expected \"SELECT\", \"WITH\" or \"VALUES\", "
                 "found \"TABLE\"",
                 "INSERT INTO t TABLE (1)\n"
                 "              ^");
}

Test(sql_errors, unexpected_end_of_input)
{
    assert_error("SELECT a FROM t WHERE a >\n",
                 "syntax error at test.sql:1:26: expected expression, found end of input",
                 "SELECT a FROM t WHERE a >\n"
                 "                         ^");
    assert_error("CREATE TABLE t (a INT, b ROW<x INT",
                 "syntax error at test.sql:1:35: expected \">\", found end of input",
                 "CREATE TABLE t (a INT, b ROW<x INT\n"
                 "                                  ^");
    assert_error("EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM b;",
                 "syntax error at test.sql:1:59: expected \"INSERT\" or \"END\", found end of "
                 "input",
                 "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM b;\n"
                 "                                                          ^");
}

Test(sql_errors, bad_limit_value)
{
    assert_error("SELECT a FROM t LIMIT 1.5",
                 "syntax error at test.sql:1:23: expected non-negative integer, found \"1.5\"",
                 "SELECT a FROM t LIMIT 1.5\n"
                 "                      ^");
    assert_error("SELECT a FROM t LIMIT -1",
                 "syntax error at test.sql:1:23: expected non-negative integer, found \"-\"",
                 "SELECT a FROM t LIMIT -1\n"
                 "                      ^");
    assert_error("SELECT a FROM t LIMIT 99999999999999999999",
                 "syntax error at test.sql:1:23: LIMIT value \"99999999999999999999\" is out of "
                 "range",
                 "SELECT a FROM t LIMIT 99999999999999999999\n"
                 "                      ^");
}

Test(sql_errors, more_cases)
{
    /* Statements must be separated. */
    assert_error("SELECT a FROM t SELECT b FROM u",
                 "syntax error at test.sql:1:17: expected \";\" or end of input, found "
                 "\"SELECT\"",
                 "SELECT a FROM t SELECT b FROM u\n"
                 "                ^");
    /* Options must be quoted. */
    cdc_error_t *err = parse_err("CREATE TABLE t (a INT) WITH (connector = 'kafka')");
    cr_expect_str_eq(err->message, "syntax error at test.sql:1:30: expected string literal, found "
                                   "\"connector\"");
    cr_expect_str_eq(err->hint, "write options as 'key' = 'value', both quoted");
    cdc_error_destroy(err);
    /* A reserved word as a name gets a hint. */
    err = parse_err("CREATE TABLE t (select INT)");
    cr_expect_str_eq(err->message,
                     "syntax error at test.sql:1:17: expected column definition, found "
                     "\"select\"");
    cr_expect_str_eq(err->hint, "\"select\" is a reserved word; quote it with backticks to use "
                                "it as a name: `select`");
    cdc_error_destroy(err);
    /* Too many name parts. */
    assert_error("DROP TABLE a.b.c.d", "syntax error at test.sql:1:18: name has more than 3 parts",
                 "DROP TABLE a.b.c.d\n"
                 "                 ^");
    assert_error("USE CATALOG a.b", "syntax error at test.sql:1:15: name has more than 1 part",
                 "USE CATALOG a.b\n"
                 "              ^");
    /* Missing FROM. */
    assert_error("SELECT a b c FROM t",
                 "syntax error at test.sql:1:12: expected \",\" or \"FROM\", found \"c\"",
                 "SELECT a b c FROM t\n"
                 "           ^");
    /* CASE without END. */
    assert_error("SELECT CASE WHEN a THEN 1 FROM t",
                 "syntax error at test.sql:1:27: expected \"WHEN\", \"ELSE\" or \"END\", found "
                 "\"FROM\"",
                 "SELECT CASE WHEN a THEN 1 FROM t\n"
                 "                          ^");
    /* CAST without a type. */
    assert_error("SELECT CAST(a AS) FROM t",
                 "syntax error at test.sql:1:17: expected data type, found \")\"",
                 "SELECT CAST(a AS) FROM t\n"
                 "                ^");
    /* Long tokens are cut in messages. */
    err = parse_err("SELECT a FROM t 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'");
    cr_expect_str_eq(err->message,
                     "syntax error at test.sql:1:17: expected \";\" or end of input, found "
                     "\"'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\"");
    cdc_error_destroy(err);
}

Test(sql_errors, first_error_in_source_order_wins)
{
    /* A syntax error before a lexical error is reported, not the later lexical error. */
    assert_error("SELECT FROM t; SELECT 'unterminated",
                 "syntax error at test.sql:1:8: expected expression, found \"FROM\"",
                 "SELECT FROM t; SELECT 'unterminated\n"
                 "       ^");
    /* A lexical error where a statement could end is still reported. */
    assert_error("SELECT a FROM t `oops",
                 "syntax error at test.sql:1:17: unterminated quoted identifier",
                 "SELECT a FROM t `oops\n"
                 "                ^");
}

Test(sql_errors, caret_lines_up_under_tabs_and_null_filename)
{
    const char *sql = "SELECT a\n\tFROM\tt WHERE\t)";
    cdc_sql_script_t *script = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_sql_parse(sql, strlen(sql), NULL, &script, &err), -1);
    cr_expect_str_eq(err->message,
                     "syntax error at <input>:2:15: expected expression, found \")\"");
    cr_expect_str_eq(err->detail, "\tFROM\tt WHERE\t)\n\t    \t       \t^");
    cdc_error_destroy(err);
}

Test(sql_errors, deep_nesting_is_an_error_not_a_crash)
{
    size_t n = 5000;
    char *sql = malloc(n * 2 + 32);
    strcpy(sql, "SELECT ");
    size_t len = strlen(sql);
    for (size_t i = 0; i < n; i++)
        sql[len++] = '(';
    sql[len++] = '1';
    for (size_t i = 0; i < n; i++)
        sql[len++] = ')';
    strcpy(sql + len, " FROM t");
    cdc_error_t *err = parse_err(sql);
    cr_expect(strstr(err->message, "nested too deeply") != NULL, "%s", err->message);
    cdc_error_destroy(err);
    free(sql);
}

/* Each truncation of a valid script either parses or fails with a positioned error; the
 * sanitizers check that no path leaks or reads out of bounds. */
static void every_prefix_fails_cleanly(const char *sql)
{
    size_t total = strlen(sql);
    for (size_t n = 0; n <= total; n++) {
        cdc_sql_script_t *script = NULL;
        cdc_error_t *err = NULL;
        int rc = cdc_sql_parse(sql, n, "p.sql", &script, &err);
        if (rc == 0) {
            cr_expect_null(err);
            cdc_sql_script_destroy(script);
        } else {
            cr_assert_not_null(err);
            cr_expect(strncmp(err->message, "syntax error at p.sql:1:", 24) == 0, "%s",
                      err->message);
            cr_expect_not_null(err->detail);
            cdc_error_destroy(err);
        }
    }
    cdc_sql_script_t *script = NULL;
    cdc_error_t *err = NULL;
    cr_expect_eq(cdc_sql_parse(sql, total, "p.sql", &script, &err), 0);
    cdc_sql_script_destroy(script);
}

Test(sql_errors, every_prefix_of_stateful_forms_fails_cleanly)
{
    every_prefix_fails_cleanly(
        "SELECT k, ROW_NUMBER() OVER (PARTITION BY k, j ORDER BY ts DESC NULLS LAST) AS rn, "
        "SUM(v) OVER () FROM a RIGHT OUTER JOIN b ON a.k = b.k FULL JOIN c AS x ON x.k = a.k "
        "WHERE v > 0 GROUP BY k, j HAVING COUNT(*) > 1 ORDER BY k ASC, j DESC NULLS FIRST "
        "LIMIT 3");
}

Test(sql_errors, every_prefix_fails_cleanly)
{
    every_prefix_fails_cleanly(
        "CREATE TABLE c.d.t (id INT NOT NULL, r ROW<a INT>, x AS TRIM(LEADING 'a' "
        "FROM s), m STRING METADATA FROM 'k' VIRTUAL, PRIMARY KEY (id) NOT ENFORCED, "
        "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) COMMENT 'c' PARTITIONED BY "
        "(id) WITH ('a' = 'b') LIKE s (EXCLUDING ALL); INSERT INTO s PARTITION "
        "(p = 1) (a) SELECT DISTINCT t.*, CASE x WHEN 1 THEN 'a' ELSE 'b' END AS y "
        "FROM t LEFT JOIN u FOR SYSTEM_TIME AS OF t.pt AS v ON t.a = v.a WHERE "
        "a NOT BETWEEN 1 AND 2 AND b IN (1, 2) AND c LIKE 'x' AND d IS NOT NULL "
        "LIMIT 3; EXPLAIN STATEMENT SET BEGIN INSERT INTO a SELECT * FROM b; END");
}

Test(sql_query, subquery_with_queries_and_no_from)
{
    cdc_sql_script_t *s = NULL;
    cdc_sql_stmt_t *st =
        parse_one("WITH a AS (SELECT x FROM t), b AS (SELECT x FROM a) "
                  "SELECT y FROM (SELECT x AS y FROM b WHERE x > 1) AS s WHERE y < 9",
                  &s);
    cr_assert_eq(st->kind, CDC_SQL_STMT_QUERY);
    const cdc_sql_query_t *q = st->query;
    cr_assert_eq(q->nctes, 2);
    cr_expect_str_eq(q->ctes[0].name.name, "a");
    cr_expect_str_eq(q->ctes[1].query->from.name.parts[0], "a");
    cr_assert_not_null(q->from.subquery);
    cr_expect_eq(q->from.name.nparts, 0);
    cr_expect_str_eq(q->from.alias, "s");
    cr_expect_str_eq(q->from.subquery->from.name.parts[0], "b");
    cr_expect_not_null(q->from.subquery->where);
    cr_expect_not_null(q->where);
    cdc_sql_script_destroy(s);

    st = parse_one("SELECT 1, 'x'", &s);
    cr_expect_eq(st->query->nitems, 2);
    cr_expect_eq(st->query->from.name.nparts, 0);
    cr_expect_null(st->query->from.subquery);
    cdc_sql_script_destroy(s);
}

/* Set operators: INTERSECT binds tighter, the others apply left to right; a query already
 * combined is wrapped (SELECT * FROM (q)) before the next operator; UNION ALL stays a chain. */
Test(sql_query, set_operators)
{
    cdc_sql_script_t *s;
    cdc_sql_stmt_t *st = parse_one("SELECT a FROM t UNION SELECT a FROM u INTERSECT ALL SELECT a "
                                   "FROM v EXCEPT SELECT a FROM w",
                                   &s);
    const cdc_sql_query_t *q = st->query;
    /* ((t UNION (u INTERSECT ALL v)) EXCEPT w) */
    cr_assert_eq(q->set_op, CDC_SQL_SET_EXCEPT);
    cr_expect(!q->set_all);
    cr_expect_str_eq(q->set_rhs->from.name.parts[0], "w");
    const cdc_sql_query_t *l = q->from.subquery;
    cr_assert_not_null(l);
    cr_assert_eq(l->set_op, CDC_SQL_SET_UNION);
    cr_expect_str_eq(l->from.name.parts[0], "t");
    cr_assert_eq(l->set_rhs->set_op, CDC_SQL_SET_INTERSECT);
    cr_expect(l->set_rhs->set_all);
    cr_expect_str_eq(l->set_rhs->from.name.parts[0], "u");
    cr_expect_str_eq(l->set_rhs->set_rhs->from.name.parts[0], "v");
    cdc_sql_script_destroy(s);
    st = parse_one("(SELECT a FROM t) MINUS (SELECT a FROM u) UNION ALL SELECT a FROM v", &s);
    q = st->query;
    cr_assert_null(q->set_rhs);
    cr_assert_not_null(q->union_all);
    cr_expect_eq(q->from.subquery->set_op, CDC_SQL_SET_EXCEPT);
    cr_expect_str_eq(q->union_all->from.name.parts[0], "v");
    cdc_sql_script_destroy(s);
    assert_error("SELECT a FROM t INTERSECT SELECT a, b FROM u",
                 "syntax error at test.sql:1:27: this operand of a set operator (UNION, INTERSECT, "
                 "EXCEPT) has 2 "
                 "columns, the first has 1: every operand has the same number of columns",
                 "SELECT a FROM t INTERSECT SELECT a, b FROM u\n                          ^");
}

Test(sql_query, unsupported_forms_are_named)
{
    assert_error("SELECT * FROM TABLE(SESSION(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))",
                 "test.sql:1:21: a table function in FROM other than the window functions TUMBLE, "
                 "HOP, CUMULATE is not supported yet",
                 "SELECT * FROM TABLE(SESSION(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))\n"
                 "                    ^");
    assert_error(
        "SELECT * FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))",
        "syntax error at test.sql:1:15: HOP needs TABLE data, DESCRIPTOR(time column), SLIDE "
        "and SIZE",
        "SELECT * FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))\n"
        "              ^");
}

Test(sql_query, subquery_predicates_parse_print_and_clone)
{
    assert_canonical("b IN (SELECT b FROM u)", "b IN (SELECT b FROM u)");
    assert_canonical("NOT EXISTS (SELECT 1 FROM u WHERE u.k = t.k)",
                     "NOT EXISTS (SELECT 1 FROM u WHERE u.k = t.k)");
    assert_canonical("(a, b) NOT IN (SELECT x, y FROM u)", "ROW(a, b) NOT IN (SELECT x, y FROM u)");
    /* a clone holds its own subquery, at the original's positions */
    cdc_sql_script_t *script;
    cdc_sql_stmt_t *st =
        parse_one("SELECT a FROM t\nWHERE  b IN (SELECT b FROM u WHERE c > 1)", &script);
    cdc_sql_expr_t *c = cdc_sql_expr_clone(st->query->where);
    cr_assert_not_null(c->in_list.subquery);
    cr_assert_neq(c->in_list.subquery, st->query->where->in_list.subquery);
    cr_expect_eq(c->in_list.subquery->line, 2);
    cr_expect_eq(c->in_list.subquery->col, 14);
    cr_expect_eq(c->in_list.subquery->where->line, 2);
    cr_expect_eq(c->in_list.subquery->where->col, 38);
    cdc_sql_expr_destroy(c);
    cdc_sql_script_destroy(script);
}

Test(sql_query, values_in_from_is_a_union_of_rows)
{
    /* VALUES in FROM: one SELECT without FROM per row, chained by UNION ALL, named by the
     * column list after the alias */
    cdc_sql_script_t *s;
    cdc_sql_stmt_t *st = parse_one("SELECT a FROM (VALUES (1), (2)) AS t (a)", &s);
    const cdc_sql_query_t *sub = st->query->from.subquery;
    cr_assert_not_null(sub);
    cr_assert_not_null(sub->union_all);
    cr_assert_null(sub->union_all->union_all);
    cr_expect_str_eq(sub->items[0].alias, "a");
    cr_expect_str_eq(sub->union_all->items[0].alias, "a");
    cdc_sql_script_destroy(s);
}

Test(sql_query, insert_values_rows)
{
    cdc_sql_script_t *s = NULL;
    cdc_sql_stmt_t *st = parse_one("INSERT INTO t (a, b) VALUES (1, 'x'), (2 + 3, NULL)", &s);
    cr_assert_eq(st->kind, CDC_SQL_STMT_INSERT);
    const cdc_sql_query_t *q = st->insert.query;
    cr_assert_eq(q->nrows, 2);
    cr_expect_eq(q->nitems, 0);
    cr_expect_eq(q->rows[1].nitems, 2);
    cr_expect_eq(q->rows[1].line, 1);
    cr_expect_eq(q->rows[1].col, 39);
    cr_expect_eq(q->rows[1].items[0]->kind, CDC_SQL_EXPR_BINARY);
    cdc_sql_script_destroy(s);
    assert_error("INSERT INTO t VALUES (1, 2), (3)",
                 "syntax error at test.sql:1:30: row 2 of VALUES has 1 values, the first row has 2",
                 "INSERT INTO t VALUES (1, 2), (3)\n                             ^");
}

Test(sql_alter_table, forms)
{
    cdc_sql_script_t *s = NULL;
    cdc_sql_stmt_t *st = parse_one("ALTER TABLE IF EXISTS db.t ADD (a INT NOT NULL, b STRING)", &s);
    cr_assert_eq(st->kind, CDC_SQL_STMT_ALTER_TABLE);
    const cdc_sql_alter_table_t *al = &st->alter_table;
    cr_expect(al->if_exists);
    assert_name(&al->name, 2, "db", "t", NULL);
    cr_expect_eq(al->action, CDC_SQL_ALTER_ADD);
    cr_assert_eq(al->elements.ncolumns, 2);
    cr_expect_str_eq(al->elements.columns[0].type.text, "INT");
    cr_expect(al->elements.columns[0].not_null);
    cdc_sql_script_destroy(s);

    st = parse_one("ALTER TABLE t MODIFY c BIGINT", &s);
    cr_expect_eq(st->alter_table.action, CDC_SQL_ALTER_MODIFY);
    cr_expect_eq(st->alter_table.elements.ncolumns, 1);
    cdc_sql_script_destroy(s);

    st = parse_one("ALTER TABLE t DROP (a, b)", &s);
    cr_expect_eq(st->alter_table.action, CDC_SQL_ALTER_DROP);
    cr_expect_eq(st->alter_table.drop.count, 2);
    cdc_sql_script_destroy(s);

    st = parse_one("ALTER TABLE t RENAME a TO b", &s);
    cr_expect_eq(st->alter_table.action, CDC_SQL_ALTER_RENAME_COLUMN);
    cr_expect_str_eq(st->alter_table.column.name, "a");
    cr_expect_str_eq(st->alter_table.new_column.name, "b");
    cdc_sql_script_destroy(s);

    st = parse_one("ALTER TABLE t RENAME TO c.d.u", &s);
    cr_expect_eq(st->alter_table.action, CDC_SQL_ALTER_RENAME_TABLE);
    assert_name(&st->alter_table.new_name, 3, "c", "d", "u");
    cdc_sql_script_destroy(s);

    st = parse_one("ALTER TABLE t SET ('k' = 'v')", &s);
    cr_expect_eq(st->alter_table.action, CDC_SQL_ALTER_SET);
    cr_expect_str_eq(st->alter_table.options.items[0].value, "v");
    cdc_sql_script_destroy(s);

    st = parse_one("ALTER TABLE t RESET ('k', 'k2')", &s);
    cr_expect_eq(st->alter_table.action, CDC_SQL_ALTER_RESET);
    cr_expect_eq(st->alter_table.options.count, 2);
    cr_expect_null(st->alter_table.options.items[1].value);
    cdc_sql_script_destroy(s);

    st = parse_one("ALTER TABLE t ADD (a INT FIRST, b AS a + 1 AFTER a, c STRING, "
                   "PRIMARY KEY (a) NOT ENFORCED, WATERMARK FOR ts AS ts)",
                   &s);
    al = &st->alter_table;
    cr_assert_eq(al->npositions, 3);
    cr_expect_eq(al->positions[0].kind, CDC_SQL_POS_FIRST);
    cr_expect_eq(al->positions[1].kind, CDC_SQL_POS_AFTER);
    cr_expect_str_eq(al->positions[1].after.name, "a");
    cr_expect_eq(al->positions[2].kind, CDC_SQL_POS_NONE);
    cr_expect_eq(al->elements.columns[1].kind, CDC_SQL_COLUMN_COMPUTED);
    cr_assert_not_null(al->elements.primary_key);
    cr_assert_not_null(al->elements.watermark);
    cdc_sql_script_destroy(s);

    st = parse_one("ALTER TABLE t DROP PRIMARY KEY", &s);
    cr_expect_eq(st->alter_table.action, CDC_SQL_ALTER_DROP_PRIMARY_KEY);
    cdc_sql_script_destroy(s);
    st = parse_one("ALTER TABLE t DROP CONSTRAINT pk", &s);
    cr_expect_eq(st->alter_table.action, CDC_SQL_ALTER_DROP_CONSTRAINT);
    cr_expect_str_eq(st->alter_table.column.name, "pk");
    cdc_sql_script_destroy(s);
    st = parse_one("ALTER TABLE t DROP WATERMARK", &s);
    cr_expect_eq(st->alter_table.action, CDC_SQL_ALTER_DROP_WATERMARK);
    cdc_sql_script_destroy(s);

    assert_error("ALTER TABLE t ADD a INT AFTER",
                 "syntax error at test.sql:1:30: expected column name, found end of input",
                 "ALTER TABLE t ADD a INT AFTER\n                             ^");
}

Test(sql_create_table, replace_as_select)
{
    cdc_sql_script_t *s = NULL;
    cdc_sql_stmt_t *st = parse_one("REPLACE TABLE t WITH ('connector' = 'print') AS SELECT 1", &s);
    cr_assert_eq(st->kind, CDC_SQL_STMT_CREATE_TABLE);
    cr_expect_eq(st->create_table.replace, CDC_SQL_REPLACE);
    cr_expect_not_null(st->create_table.as_query);
    cdc_sql_script_destroy(s);
    st = parse_one("CREATE OR REPLACE TABLE t AS SELECT 1", &s);
    cr_expect_eq(st->create_table.replace, CDC_SQL_CREATE_OR_REPLACE);
    cdc_sql_script_destroy(s);
    assert_error("REPLACE TABLE t (a INT) WITH ('connector' = 'print')",
                 "syntax error at test.sql:1:53: expected \"AS\", found end of input",
                 "REPLACE TABLE t (a INT) WITH ('connector' = 'print')\n"
                 "                                                    ^");
}

Test(sql_query, unnest)
{
    cdc_sql_script_t *s = NULL;
    cdc_sql_stmt_t *st =
        parse_one("SELECT * FROM o CROSS JOIN UNNEST(o.tags) WITH ORDINALITY AS t (tag, pos)", &s);
    const cdc_sql_query_t *q = st->query;
    cr_assert_eq(q->njoins, 1);
    const cdc_sql_unnest_t *un = q->joins[0].table.unnest;
    cr_assert_not_null(un);
    cr_expect(un->ordinality);
    cr_expect_eq(un->columns.count, 2);
    cr_expect_str_eq(q->joins[0].table.alias, "t");
    cr_expect_null(q->joins[0].on);
    cdc_sql_script_destroy(s);
    st = parse_one("SELECT * FROM o LEFT JOIN UNNEST(m) AS u ON TRUE", &s);
    cr_expect_eq(st->query->joins[0].kind, CDC_SQL_JOIN_LEFT);
    cr_expect_not_null(st->query->joins[0].on);
    cdc_sql_script_destroy(s);
    assert_error("SELECT * FROM o, LATERAL TABLE(f(x)) AS t (y)",
                 "test.sql:1:18: user-defined table functions are not supported",
                 "SELECT * FROM o, LATERAL TABLE(f(x)) AS t (y)\n                 ^");
}

Test(sql_create_table, as_select)
{
    cdc_sql_script_t *s = NULL;
    cdc_sql_stmt_t *st = parse_one("CREATE TABLE t WITH ('connector' = 'print') AS "
                                   "WITH a AS (SELECT x FROM u) SELECT x FROM a",
                                   &s);
    cr_assert_eq(st->kind, CDC_SQL_STMT_CREATE_TABLE);
    const cdc_sql_create_table_t *ct = &st->create_table;
    cr_expect_eq(ct->ncolumns, 0);
    cr_expect_eq(ct->options.count, 1);
    cr_assert_not_null(ct->as_query);
    cr_expect_eq(ct->as_query->nctes, 1);
    cr_expect_eq(ct->as_col, 45);
    cdc_sql_script_destroy(s);
    assert_error("CREATE TABLE t (a INT) AS SELECT 1",
                 "test.sql:1:24: CREATE TABLE ... AS SELECT with columns, constraints, a "
                 "watermark or LIKE is not supported yet",
                 "CREATE TABLE t (a INT) AS SELECT 1\n                       ^");
}

/* Flink statements and query clauses cdcflow does not run are refused by name, at their first
 * word, never as a bare syntax error. */
Test(sql_errors, regress_flink_forms_refused_by_name)
{
    static const struct {
        const char *sql, *message;
    } cases[] = {
        {"TRUNCATE TABLE t", "test.sql:1:1: TRUNCATE TABLE is not supported yet"},
        {"DELETE FROM t WHERE a = 1", "test.sql:1:1: DELETE FROM is not supported yet"},
        {"UPDATE t SET a = 1", "test.sql:1:1: UPDATE is not supported yet"},
        {"ANALYZE TABLE t COMPUTE STATISTICS", "test.sql:1:1: ANALYZE TABLE is not supported yet"},
        {"LOAD MODULE hive", "test.sql:1:1: LOAD MODULE is not supported yet"},
        {"USE MODULES core", "test.sql:1:1: USE MODULES is not supported yet"},
        {"ADD JAR '/x.jar'", "test.sql:1:1: ADD JAR is not supported yet"},
        {"SHOW JOBS", "test.sql:1:1: SHOW JOBS is not supported yet"},
        {"show full modules", "test.sql:1:1: SHOW FULL MODULES is not supported yet"},
        {"SHOW COLUMNS FROM t", "test.sql:1:1: SHOW COLUMNS is not supported yet"},
        {"DESCRIBE EXTENDED t", "test.sql:1:1: DESCRIBE EXTENDED is not supported yet"},
        {"ALTER VIEW v AS SELECT 1", "test.sql:1:1: ALTER VIEW is not supported yet"},
        {"CREATE MATERIALIZED TABLE m AS SELECT 1",
         "test.sql:1:1: CREATE MATERIALIZED TABLE is not supported yet"},
        {"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts)",
         "test.sql:1:17: MATCH_RECOGNIZE (pattern recognition) is not supported yet"},
        {"SELECT * FROM t TABLESAMPLE SYSTEM (10)",
         "test.sql:1:17: TABLESAMPLE is not supported yet"},
        {"SELECT * FROM t LIMIT 2 OFFSET 1", "test.sql:1:25: OFFSET is not supported yet"},
        {"SELECT * FROM t FETCH FIRST 2 ROWS ONLY", "test.sql:1:17: FETCH is not supported yet"},
        {"SELECT a FROM t WHERE s SIMILAR TO 'x'",
         "test.sql:1:25: SIMILAR TO is not supported yet"},
        {"SELECT a IS NOT JSON FROM t", "test.sql:1:10: IS JSON is not supported yet"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cdc_error_t *err = parse_err(cases[i].sql);
        cr_expect_str_eq(err->message, cases[i].message, "%s", cases[i].sql);
        cdc_error_destroy(err);
    }
}

/* Set operations of parenthesized queries: in FROM, in a join, at top level, in INSERT. */
Test(sql_query, regress_paren_set_op_operands)
{
    cdc_sql_script_t *s = parse_ok(
        "SELECT * FROM ((SELECT a FROM t1) INTERSECT (SELECT a FROM t2));\n"
        "SELECT x.a FROM t JOIN ((SELECT a FROM t1) EXCEPT (SELECT a FROM t2)) x ON t.a = x.a;\n"
        "(SELECT a FROM t1) UNION (SELECT a FROM t2);\n"
        "INSERT INTO o (SELECT a FROM t1) UNION ALL (SELECT a FROM t2);\n"
        "INSERT INTO o (a) (SELECT a FROM t1) UNION (SELECT a FROM t2)");
    cr_assert_eq(s->count, 5);
    cr_expect_eq(s->stmts[0]->query->from.subquery->set_op, CDC_SQL_SET_INTERSECT);
    cr_expect_eq(s->stmts[1]->query->joins[0].table.subquery->set_op, CDC_SQL_SET_EXCEPT);
    cr_expect_eq(s->stmts[2]->query->set_op, CDC_SQL_SET_UNION);
    cr_expect_eq(s->stmts[3]->insert.columns.count, 0);
    cr_expect_not_null(s->stmts[3]->insert.query->union_all);
    cr_expect_eq(s->stmts[4]->insert.columns.count, 1);
    cr_expect_eq(s->stmts[4]->insert.query->set_op, CDC_SQL_SET_UNION);
    cdc_sql_script_destroy(s);
}
