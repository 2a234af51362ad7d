/*
 * tests/unit/catalog.c — the catalog (FLIP-64): name resolution with 1, 2 and
 * 3 parts, temporary objects that shadow permanent ones, every catalog
 * statement through cdc_ddl_execute with exact error texts, CREATE TABLE
 * LIKE merging, SHOW CREATE TABLE round trips, DESCRIBE, functions loaded
 * from a test shared object, file catalogs (persistence, atomic files,
 * corrupt files, two writers in two processes).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cdc_catalog.h"
#include "cdc_ddl.h"
#include "cdc_udf.h"

/* ---- helpers --------------------------------------------------------------------------------- */

/* Runs every statement of @p sql; returns 0 or -1 with *err. Output goes to *out (may be NULL). */
static int run(cdc_catalog_t *cat, const char *sql, char **out, cdc_error_t **err)
{
    cdc_sql_script_t *script = NULL;
    char *buf = NULL;
    size_t blen = 0;
    FILE *f = open_memstream(&buf, &blen);
    int rc = cdc_sql_parse(sql, strlen(sql), "t.sql", &script, err);
    for (size_t i = 0; rc == 0 && i < script->count; i++) {
        int r = cdc_ddl_execute(cat, script->stmts[i], sql, strlen(sql), "t.sql", f, err);
        cr_assert_neq(r, 1, "not a catalog statement: %s", script->stmts[i]->text);
        rc = r;
    }
    cdc_sql_script_destroy(script);
    fclose(f);
    if (out)
        *out = buf;
    else
        free(buf);
    return rc;
}

/* Runs @p sql, which must succeed; returns its output (caller frees). */
static char *ok(cdc_catalog_t *cat, const char *sql)
{
    char *out = NULL;
    cdc_error_t *err = NULL;
    if (run(cat, sql, &out, &err) < 0) {
        char *msg = cdc_error_format(err);
        cr_assert_fail("unexpected failure of:\n%s\n%s", sql, msg);
    }
    return out;
}

static void ok_quiet(cdc_catalog_t *cat, const char *sql)
{
    free(ok(cat, sql));
}

/* Runs @p sql, which must fail; returns the formatted error (caller frees). */
static char *fails(cdc_catalog_t *cat, const char *sql)
{
    cdc_error_t *err = NULL;
    int rc = run(cat, sql, NULL, &err);
    cr_assert_eq(rc, -1, "expected a failure of:\n%s", sql);
    cr_assert_not_null(err);
    char *msg = cdc_error_format(err);
    cdc_error_destroy(err);
    return msg;
}

static void fails_with(cdc_catalog_t *cat, const char *sql, const char *expected)
{
    char *msg = fails(cat, sql);
    cr_assert_str_eq(msg, expected, "for:\n%s\n--- got:\n%s\n--- expected:\n%s", sql, msg,
                     expected);
    free(msg);
}

static void output_is(cdc_catalog_t *cat, const char *sql, const char *expected)
{
    char *out = ok(cat, sql);
    cr_assert_str_eq(out, expected, "for:\n%s\n--- got:\n%s\n--- expected:\n%s", sql, out,
                     expected);
    free(out);
}

static cdc_sql_name_t name_of(const char *a, const char *b, const char *c)
{
    cdc_sql_name_t nm = {{(char *)a, (char *)b, (char *)c}, 0, 1, 1};
    nm.nparts = c ? 3 : b ? 2 : 1;
    return nm;
}

static const cdc_table_def_t *table(cdc_catalog_t *cat, const char *a, const char *b, const char *c)
{
    cdc_sql_name_t nm = name_of(a, b, c);
    cdc_error_t *err = NULL;
    const cdc_table_def_t *t = cdc_catalog_get_table(cat, &nm, NULL, 0, NULL, &err);
    if (!t) {
        char *msg = cdc_error_format(err);
        cr_assert_fail("table %s not found: %s", a, msg);
    }
    return t;
}

static char *missing_table(cdc_catalog_t *cat, const char *a, const char *b, const char *c)
{
    cdc_sql_name_t nm = name_of(a, b, c);
    cdc_error_t *err = NULL;
    cr_assert_null(cdc_catalog_get_table(cat, &nm, NULL, 0, NULL, &err));
    cr_assert_not_null(err);
    char *msg = cdc_error_format(err);
    cdc_error_destroy(err);
    return msg;
}

#define CONN " WITH ('connector' = 'blackhole')"

/* A temporary directory, removed recursively at the end of the test. */
static char tmpdir[256];

static void make_tmpdir(void)
{
    strcpy(tmpdir, "/tmp/cdc-catalog-XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static void rm_tmpdir(void)
{
    if (!tmpdir[0])
        return;
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    cr_assert_eq(system(cmd), 0);
    tmpdir[0] = '\0';
}

static char *path_in(const char *rel)
{
    return cdc_strdup_printf("%s/%s", tmpdir, rel);
}

static bool exists(const char *rel)
{
    char *p = path_in(rel);
    bool e = access(p, F_OK) == 0;
    free(p);
    return e;
}

static char *slurp(const char *rel)
{
    char *p = path_in(rel);
    FILE *f = fopen(p, "rb");
    cr_assert_not_null(f, "cannot open %s", p);
    free(p);
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    int c;
    while ((c = fgetc(f)) != EOF)
        fputc(c, m);
    fclose(f);
    fclose(m);
    return buf;
}

static void spit(const char *rel, const char *content)
{
    char *p = path_in(rel);
    FILE *f = fopen(p, "wb");
    cr_assert_not_null(f);
    fputs(content, f);
    fclose(f);
    free(p);
}

/* Builds tests/data/udf/test_udf.c into tmpdir/libtest_udf.so; returns the library path. */
static char udf_lib[512];

static void build_udf(void)
{
    const char *src = getenv("CDC_SOURCE_DIR");
    char guess[512];
    if (!src) {
        /* __FILE__ is .../tests/unit/catalog.c */
        snprintf(guess, sizeof(guess), "%s", __FILE__);
        char *cut = strstr(guess, "tests/unit/catalog.c");
        if (cut)
            *cut = '\0';
        src = guess[0] ? guess : ".";
    }
    snprintf(udf_lib, sizeof(udf_lib), "%s/libtest_udf.so", tmpdir);
    char cmd[2048];
    snprintf(cmd, sizeof(cmd), "cc -shared -fPIC -I'%s/src' -o '%s' '%s/tests/data/udf/test_udf.c'",
             src, udf_lib, src);
    cr_assert_eq(system(cmd), 0, "could not build the test UDF: %s", cmd);
}

static char *sqlf(const char *fmt, ...) CDC_PRINTF(1, 2);
static char *sqlf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = cdc_strdup_vprintf(fmt, ap);
    va_end(ap);
    return s;
}

static void fini_all(void)
{
    cdc_catalog_set_builtin_functions(NULL);
    cdc_udf_unload_all();
    rm_tmpdir();
}

TestSuite(catalog, .fini = fini_all);

/* ---- start state and SHOW ------------------------------------------------------------------- */

Test(catalog, start_state)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    cr_assert_str_eq(cdc_catalog_current_catalog(cat), "default_catalog");
    cr_assert_str_eq(cdc_catalog_current_database(cat), "default_database");
    output_is(cat, "SHOW CATALOGS", "default_catalog\n");
    output_is(cat, "SHOW DATABASES", "default_database\n");
    output_is(cat, "SHOW CURRENT CATALOG", "default_catalog\n");
    output_is(cat, "SHOW CURRENT DATABASE", "default_database\n");
    output_is(cat, "SHOW TABLES", "");
    output_is(cat, "SHOW VIEWS", "");
    output_is(cat, "SHOW FUNCTIONS", "");
    cdc_catalog_destroy(cat);
}

Test(catalog, not_catalog_statements_return_1)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    const char *sql = "SET 'a' = 'b'; RESET; INSERT INTO x SELECT * FROM y; SELECT a FROM t; "
                      "EXPLAIN SELECT a FROM t";
    cdc_sql_script_t *script = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_sql_parse(sql, strlen(sql), NULL, &script, &err), 0);
    for (size_t i = 0; i < script->count; i++)
        cr_assert_eq(cdc_ddl_execute(cat, script->stmts[i], sql, strlen(sql), NULL, stdout, &err),
                     1);
    cdc_sql_script_destroy(script);
    cdc_catalog_destroy(cat);
}

Test(catalog, show_lists_are_sorted_and_unique)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    ok_quiet(cat, "CREATE TABLE zeta (a INT)" CONN ";"
                  "CREATE TABLE Alpha (a INT)" CONN ";"
                  "CREATE TABLE beta (a INT)" CONN ";"
                  "CREATE TEMPORARY TABLE beta (b INT)" CONN ";"
                  "CREATE TEMPORARY TABLE gamma (b INT)" CONN ";"
                  "CREATE VIEW v1 AS SELECT a FROM zeta;"
                  "CREATE TEMPORARY VIEW v0 AS SELECT a FROM zeta;"
                  "CREATE DATABASE db2; CREATE DATABASE `a b`;"
                  "CREATE CATALOG mem WITH ('type' = 'generic_in_memory')");
    /* SHOW TABLES lists tables and views, temporary ones too, each name once */
    output_is(cat, "SHOW TABLES", "Alpha\nbeta\ngamma\nv0\nv1\nzeta\n");
    output_is(cat, "SHOW VIEWS", "v0\nv1\n");
    output_is(cat, "SHOW DATABASES", "a b\ndb2\ndefault_database\n");
    output_is(cat, "SHOW CATALOGS", "default_catalog\nmem\n");
    cdc_catalog_destroy(cat);
}

/* ---- FLIP-64 resolution --------------------------------------------------------------------- */

Test(catalog, resolution_one_two_three_parts)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    ok_quiet(cat, "CREATE TABLE t (a INT)" CONN);
    const cdc_table_def_t *t = table(cat, "t", NULL, NULL);
    cr_assert_str_eq(t->qualified, "default_catalog.default_database.t");
    cr_assert_eq(table(cat, "default_database", "t", NULL), t);
    cr_assert_eq(table(cat, "default_catalog", "default_database", "t"), t);

    /* 1 part: current catalog and database */
    ok_quiet(cat, "CREATE DATABASE db2; USE db2; CREATE TABLE t (b INT)" CONN);
    output_is(cat, "SHOW CURRENT DATABASE", "db2\n");
    const cdc_table_def_t *t2 = table(cat, "t", NULL, NULL);
    cr_assert_str_eq(t2->qualified, "default_catalog.db2.t");
    /* 2 parts: database in the current catalog */
    cr_assert_eq(table(cat, "default_database", "t", NULL), t);
    /* 2 parts are never catalog.table */
    char *msg = missing_table(cat, "default_catalog", "t", NULL);
    cr_assert_str_eq(msg, "error: <input>:1:1: database \"default_catalog.default_catalog\" does "
                          "not exist\nHINT: did you mean \"default_database\"?");
    free(msg);

    /* USE CATALOG switches to that catalog's default database */
    ok_quiet(cat, "CREATE CATALOG c2 WITH ('type' = 'generic_in_memory'); USE CATALOG c2");
    output_is(cat, "SHOW CURRENT CATALOG; SHOW CURRENT DATABASE", "c2\ndefault_database\n");
    msg = missing_table(cat, "t", NULL, NULL);
    cr_assert_str_eq(msg, "error: <input>:1:1: table \"c2.default_database.t\" does not exist");
    free(msg);
    /* 3 parts: as written */
    cr_assert_eq(table(cat, "default_catalog", "db2", "t"), t2);
    /* USE cat.db sets both */
    ok_quiet(cat, "USE default_catalog.db2");
    output_is(cat, "SHOW CURRENT CATALOG; SHOW CURRENT DATABASE", "default_catalog\ndb2\n");
    cr_assert_eq(table(cat, "t", NULL, NULL), t2);
    cdc_catalog_destroy(cat);
}

Test(catalog, names_are_case_sensitive_and_quoted_names_work)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    ok_quiet(cat, "CREATE TABLE `Odd Name.x` (a INT)" CONN "; CREATE TABLE T (a INT)" CONN);
    table(cat, "Odd Name.x", NULL, NULL);
    char *msg = missing_table(cat, "t", NULL, NULL);
    cr_assert_str_eq(msg, "error: <input>:1:1: table \"default_catalog.default_database.t\" does "
                          "not exist\nHINT: did you mean \"T\"?");
    free(msg);
    cdc_catalog_destroy(cat);
}

Test(catalog, missing_table_did_you_mean_and_positions)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    ok_quiet(cat, "CREATE TABLE orders (id INT)" CONN);
    fails_with(cat, "DROP TABLE ordrs",
               "error: t.sql:1:12: table \"default_catalog.default_database.ordrs\" does not "
               "exist\n"
               "DETAIL: DROP TABLE ordrs\n"
               "                   ^\n"
               "HINT: did you mean \"orders\"?");
    fails_with(cat, "DROP TABLE nocat.db.t",
               "error: t.sql:1:12: catalog \"nocat\" does not exist\n"
               "DETAIL: DROP TABLE nocat.db.t\n"
               "                   ^");
    fails_with(cat, "DROP TABLE default_databse.orders",
               "error: t.sql:1:12: database \"default_catalog.default_databse\" does not exist\n"
               "DETAIL: DROP TABLE default_databse.orders\n"
               "                   ^\n"
               "HINT: did you mean \"default_database\"?");
    ok_quiet(cat, "DROP TABLE IF EXISTS ordrs; DROP TABLE IF EXISTS nocat.db.t; DROP VIEW IF "
                  "EXISTS nodb.v");
    cdc_catalog_destroy(cat);
}

Test(catalog, duplicate_names)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    ok_quiet(cat, "CREATE TABLE a (id INT)" CONN "; CREATE VIEW v AS SELECT id FROM a");
    fails_with(cat, "CREATE TABLE default_catalog.default_database.a (id INT)" CONN,
               "error: t.sql:1:14: table \"default_catalog.default_database.a\" already exists\n"
               "DETAIL: CREATE TABLE default_catalog.default_database.a (id INT) WITH "
               "('connector' = 'blackhole')\n"
               "                     ^");
    /* tables and views share one namespace */
    fails_with(cat, "CREATE TABLE v (id INT)" CONN,
               "error: t.sql:1:14: view \"default_catalog.default_database.v\" already exists\n"
               "DETAIL: CREATE TABLE v (id INT) WITH ('connector' = 'blackhole')\n"
               "                     ^");
    fails_with(cat, "CREATE VIEW a AS SELECT id FROM a",
               "error: t.sql:1:13: table \"default_catalog.default_database.a\" already exists\n"
               "DETAIL: CREATE VIEW a AS SELECT id FROM a\n"
               "                    ^");
    ok_quiet(cat, "CREATE TABLE IF NOT EXISTS a (other BIGINT)" CONN
                  "; CREATE VIEW IF NOT EXISTS v AS SELECT id FROM a");
    cr_assert_str_eq(table(cat, "a", NULL, NULL)->schema->names[0], "id");
    fails_with(cat, "CREATE DATABASE default_database",
               "error: t.sql:1:17: database \"default_catalog.default_database\" already exists\n"
               "DETAIL: CREATE DATABASE default_database\n"
               "                        ^");
    fails_with(cat, "CREATE CATALOG default_catalog WITH ('type' = 'generic_in_memory')",
               "error: t.sql:1:16: catalog \"default_catalog\" already exists\n"
               "DETAIL: CREATE CATALOG default_catalog WITH ('type' = 'generic_in_memory')\n"
               "                       ^");
    ok_quiet(cat, "CREATE DATABASE IF NOT EXISTS default_database; CREATE CATALOG IF NOT EXISTS "
                  "default_catalog WITH ('type' = 'nonsense')");
    cdc_catalog_destroy(cat);
}

/* ---- FLIP-64 temporary objects -------------------------------------------------------------- */

Test(catalog, temporary_table_shadows_permanent)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    ok_quiet(cat, "CREATE TABLE t (perm INT)" CONN "; CREATE TEMPORARY TABLE t (temp INT)" CONN);
    const cdc_table_def_t *t = table(cat, "t", NULL, NULL);
    cr_assert(t->temporary);
    cr_assert_str_eq(t->schema->names[0], "temp");
    /* the same identifier with 3 parts also sees the temporary one */
    cr_assert_eq(table(cat, "default_catalog", "default_database", "t"), t);
    /* dropping the permanent one while shadowed fails with Flink's message */
    fails_with(cat, "DROP TABLE t",
               "error: t.sql:1:12: Temporary table with identifier "
               "'`default_catalog`.`default_database`.`t`' exists. Drop it first before removing "
               "the permanent table.\n"
               "DETAIL: DROP TABLE t\n"
               "                   ^");
    /* DROP TEMPORARY drops only the temporary one: the permanent one is visible again */
    ok_quiet(cat, "DROP TEMPORARY TABLE t");
    t = table(cat, "t", NULL, NULL);
    cr_assert_not(t->temporary);
    cr_assert_str_eq(t->schema->names[0], "perm");
    fails_with(cat, "DROP TEMPORARY TABLE t",
               "error: t.sql:1:22: temporary table \"default_catalog.default_database.t\" does not "
               "exist\n"
               "DETAIL: DROP TEMPORARY TABLE t\n"
               "                             ^\n"
               "HINT: DROP TABLE without TEMPORARY drops a permanent table");
    ok_quiet(cat, "DROP TEMPORARY TABLE IF EXISTS t; DROP TABLE t");
    char *msg = missing_table(cat, "t", NULL, NULL);
    free(msg);
    cdc_catalog_destroy(cat);
}

Test(catalog, temporary_view_shadows_permanent_view)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    ok_quiet(cat, "CREATE TABLE src (a INT, b INT)" CONN ";"
                  "CREATE VIEW v AS SELECT a FROM src;"
                  "CREATE TEMPORARY VIEW v AS SELECT b FROM src");
    cdc_sql_name_t nm = name_of("v", NULL, NULL);
    cdc_error_t *err = NULL;
    const cdc_view_def_t *v = cdc_catalog_get_view(cat, &nm, NULL, 0, NULL, &err);
    cr_assert_not_null(v);
    cr_assert(v->temporary);
    cr_assert_str_eq(v->original_query, "SELECT b FROM src");
    fails_with(cat, "DROP VIEW v",
               "error: t.sql:1:11: Temporary view with identifier "
               "'`default_catalog`.`default_database`.`v`' exists. Drop it first before removing "
               "the permanent view.\n"
               "DETAIL: DROP VIEW v\n"
               "                  ^");
    ok_quiet(cat, "DROP TEMPORARY VIEW v");
    v = cdc_catalog_get_view(cat, &nm, NULL, 0, NULL, &err);
    cr_assert_not(v->temporary);
    ok_quiet(cat, "DROP VIEW v");
    cdc_catalog_destroy(cat);
}

Test(catalog, temporary_objects_need_existing_catalog_and_database)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    fails_with(cat, "CREATE TEMPORARY TABLE nodb.t (a INT)" CONN,
               "error: t.sql:1:24: database \"default_catalog.nodb\" does not exist\n"
               "DETAIL: CREATE TEMPORARY TABLE nodb.t (a INT) WITH ('connector' = 'blackhole')\n"
               "                               ^");
    fails_with(cat, "CREATE TEMPORARY VIEW nocat.db.v AS SELECT a FROM x",
               "error: t.sql:1:23: catalog \"nocat\" does not exist\n"
               "DETAIL: CREATE TEMPORARY VIEW nocat.db.v AS SELECT a FROM x\n"
               "                              ^");
    /* in another existing database, by its full name */
    ok_quiet(cat, "CREATE DATABASE db2; CREATE TEMPORARY TABLE db2.t (a INT)" CONN);
    cr_assert(table(cat, "db2", "t", NULL)->temporary);
    cr_assert_str_eq(table(cat, "db2", "t", NULL)->qualified, "default_catalog.db2.t");
    output_is(cat, "SHOW TABLES", "");
    output_is(cat, "USE db2; SHOW TABLES", "t\n");
    cdc_catalog_destroy(cat);
}

Test(catalog, temporary_duplicates_and_kinds)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    ok_quiet(cat, "CREATE TEMPORARY TABLE t (a INT)" CONN);
    fails_with(cat, "CREATE TEMPORARY TABLE t (a INT)" CONN,
               "error: t.sql:1:24: temporary table \"default_catalog.default_database.t\" already "
               "exists\n"
               "DETAIL: CREATE TEMPORARY TABLE t (a INT) WITH ('connector' = 'blackhole')\n"
               "                               ^");
    fails_with(cat, "CREATE TEMPORARY VIEW t AS SELECT a FROM t",
               "error: t.sql:1:23: temporary table \"default_catalog.default_database.t\" already "
               "exists\n"
               "DETAIL: CREATE TEMPORARY VIEW t AS SELECT a FROM t\n"
               "                              ^");
    ok_quiet(cat, "CREATE TEMPORARY TABLE IF NOT EXISTS t (b INT)" CONN);
    fails_with(cat, "DROP TEMPORARY VIEW t",
               "error: t.sql:1:21: temporary view \"default_catalog.default_database.t\" does not "
               "exist\n"
               "DETAIL: DROP TEMPORARY VIEW t\n"
               "                            ^\n"
               "HINT: \"default_catalog.default_database.t\" is a temporary table: use DROP "
               "TEMPORARY TABLE");
    /* a permanent table may be created while a temporary one has its name (Flink allows it) */
    ok_quiet(cat, "CREATE TABLE t (p INT)" CONN);
    cr_assert(table(cat, "t", NULL, NULL)->temporary);
    cdc_catalog_destroy(cat);
}

Test(catalog, drop_kind_mismatch)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    ok_quiet(cat, "CREATE TABLE t (a INT)" CONN "; CREATE VIEW v AS SELECT a FROM t");
    fails_with(cat, "DROP TABLE v",
               "error: t.sql:1:12: \"default_catalog.default_database.v\" is a view, not a table\n"
               "DETAIL: DROP TABLE v\n"
               "                   ^\n"
               "HINT: use DROP VIEW");
    fails_with(cat, "DROP VIEW t",
               "error: t.sql:1:11: \"default_catalog.default_database.t\" is a table, not a view\n"
               "DETAIL: DROP VIEW t\n"
               "                  ^\n"
               "HINT: use DROP TABLE");
    /* IF EXISTS: nothing of that kind, nothing to do (as in Flink) */
    ok_quiet(cat, "DROP TABLE IF EXISTS v; DROP VIEW IF EXISTS t");
    output_is(cat, "SHOW TABLES", "t\nv\n");
    char *msg = missing_table(cat, "v", NULL, NULL);
    cr_assert_str_eq(msg, "error: <input>:1:1: \"default_catalog.default_database.v\" is a view, "
                          "not a table");
    free(msg);
    cdc_catalog_destroy(cat);
}

/* ---- CREATE TABLE details ------------------------------------------------------------------- */

static const char *full_ddl = "CREATE TABLE orders (\n"
                              "  id BIGINT COMMENT 'the id',\n"
                              "  price DECIMAL(10, 2) NOT NULL,\n"
                              "  qty INT,\n"
                              "  ts TIMESTAMP(3),\n"
                              "  total AS price * qty,\n"
                              "  part STRING,\n"
                              "  topic STRING METADATA VIRTUAL,\n"
                              "  `offset` BIGINT METADATA FROM 'value.offset',\n"
                              "  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,\n"
                              "  CONSTRAINT pk PRIMARY KEY (id) NOT ENFORCED\n"
                              ") COMMENT 'all orders'\n"
                              "PARTITIONED BY (part)\n"
                              "WITH ('connector' = 'kafka', 'topic' = 'orders', 'format' = 'json')";

Test(catalog, table_definition_fields)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    ok_quiet(cat, full_ddl);
    const cdc_table_def_t *t = table(cat, "orders", NULL, NULL);
    cr_assert_eq(t->ncolumns, 8);
    cr_assert_eq(t->schema->nchildren, 5);
    const char *phys[] = {"id", "price", "qty", "ts", "part"};
    for (int i = 0; i < 5; i++)
        cr_assert_str_eq(t->schema->names[i], phys[i]);
    cr_assert_eq(t->columns[4].kind, CDC_COLUMN_COMPUTED);
    cr_assert_str_eq(t->columns[4].expr_text, "price * qty");
    cr_assert_not_null(t->columns[4].expr);
    cr_assert_eq(t->columns[4].physical, -1);
    cr_assert_null(t->columns[4].type, "DECIMAL arithmetic is left to the planner");
    cr_assert_eq(t->columns[6].kind, CDC_COLUMN_METADATA);
    cr_assert_str_eq(t->columns[6].metadata_key, "topic");
    cr_assert_not(t->columns[6].metadata_from);
    cr_assert(t->columns[6].is_virtual);
    cr_assert_str_eq(t->columns[7].metadata_key, "value.offset");
    cr_assert(t->columns[7].metadata_from);
    cr_assert_eq(t->columns[5].physical, 4);
    cr_assert_eq(t->columns[5].type, t->schema->children[4]);
    cr_assert_eq(t->npk, 1);
    cr_assert_eq(t->pk[0], 0);
    cr_assert_not(t->schema->children[0]->nullable, "primary key columns are NOT NULL");
    cr_assert_str_eq(t->pk_name, "pk");
    cr_assert_eq(t->npartition_keys, 1);
    cr_assert_eq(t->partition_keys[0], 4);
    cr_assert_str_eq(t->watermark_column, "ts");
    cr_assert_str_eq(t->watermark, "ts - INTERVAL '5' SECOND");
    cr_assert_str_eq(t->comment, "all orders");
    cr_assert_str_eq(t->columns[0].comment, "the id");
    cr_assert_eq(t->options.n, 3);
    cr_assert_str_eq(t->options.keys[2], "format");
    cr_assert_str_eq(t->ddl, full_ddl);
    cr_assert_str_eq(t->origin, "t.sql");
    cdc_catalog_destroy(cat);
}

Test(catalog, table_definition_errors)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    fails_with(cat, "CREATE TABLE t (a INT, a STRING)",
               "error: t.sql:1:24: column \"a\" is declared twice\n"
               "DETAIL: CREATE TABLE t (a INT, a STRING)\n"
               "                               ^");
    fails_with(cat, "CREATE TABLE t (a INT, b DECIMAL(40, 2))",
               "error: t.sql:1:34: invalid type of column \"b\": decimal precision must be between "
               "1 and 38, found 40\n"
               "DETAIL: CREATE TABLE t (a INT, b DECIMAL(40, 2))\n"
               "                                         ^");
    fails_with(cat, "CREATE TABLE t (a INT, b AS a + 1, PRIMARY KEY (b) NOT ENFORCED)",
               "error: t.sql:1:49: primary key column \"b\" is not a physical column of the table\n"
               "DETAIL: CREATE TABLE t (a INT, b AS a + 1, PRIMARY KEY (b) NOT ENFORCED)\n"
               "                                                        ^");
    fails_with(cat, "CREATE TABLE t (abc INT, PRIMARY KEY (abd) NOT ENFORCED)",
               "error: t.sql:1:39: primary key column \"abd\" is not a physical column of the "
               "table\n"
               "DETAIL: CREATE TABLE t (abc INT, PRIMARY KEY (abd) NOT ENFORCED)\n"
               "                                              ^\n"
               "HINT: did you mean \"abc\"?");
    fails_with(cat, "CREATE TABLE t (a INT, PRIMARY KEY (a, a) NOT ENFORCED)",
               "error: t.sql:1:40: column \"a\" appears twice in the primary key\n"
               "DETAIL: CREATE TABLE t (a INT, PRIMARY KEY (a, a) NOT ENFORCED)\n"
               "                                               ^");
    fails_with(cat, "CREATE TABLE t (a INT, m STRING METADATA) PARTITIONED BY (m)",
               "error: t.sql:1:59: partition key column \"m\" is not a physical column of the "
               "table\n"
               "DETAIL: CREATE TABLE t (a INT, m STRING METADATA) PARTITIONED BY (m)\n"
               "                                                                  ^");
    fails_with(cat, "CREATE TABLE t (a INT) PARTITIONED BY (a, a)",
               "error: t.sql:1:43: column \"a\" appears twice in the PARTITIONED BY clause\n"
               "DETAIL: CREATE TABLE t (a INT) PARTITIONED BY (a, a)\n"
               "                                                  ^");
    fails_with(cat, "CREATE TABLE t (ts TIMESTAMP(3), WATERMARK FOR tss AS tss)",
               "error: t.sql:1:48: watermark column \"tss\" does not exist\n"
               "DETAIL: CREATE TABLE t (ts TIMESTAMP(3), WATERMARK FOR tss AS tss)\n"
               "                                                       ^\n"
               "HINT: did you mean \"ts\"?");
    fails_with(cat, "CREATE TABLE t (id BIGINT, WATERMARK FOR id AS id)",
               "error: t.sql:1:42: watermark column \"id\" must be of type TIMESTAMP(p) or "
               "TIMESTAMP_LTZ(p) with p from 0 to 3, found BIGINT\n"
               "DETAIL: CREATE TABLE t (id BIGINT, WATERMARK FOR id AS id)\n"
               "                                                 ^");
    fails_with(cat, "CREATE TABLE t (ts TIMESTAMP(6), WATERMARK FOR ts AS ts)",
               "error: t.sql:1:48: watermark column \"ts\" must be of type TIMESTAMP(p) or "
               "TIMESTAMP_LTZ(p) with p from 0 to 3, found TIMESTAMP(6)\n"
               "DETAIL: CREATE TABLE t (ts TIMESTAMP(6), WATERMARK FOR ts AS ts)\n"
               "                                                       ^");
    fails_with(cat, "CREATE TABLE t (s STRING, ts AS CAST(s AS BIGINT), WATERMARK FOR ts AS ts)",
               "error: t.sql:1:66: watermark column \"ts\" must be of type TIMESTAMP(p) or "
               "TIMESTAMP_LTZ(p) with p from 0 to 3, found BIGINT\n"
               "DETAIL: CREATE TABLE t (s STRING, ts AS CAST(s AS BIGINT), WATERMARK FOR ts AS "
               "ts)\n"
               "                                                                         ^");
    fails_with(cat,
               "CREATE TABLE t (ts TIMESTAMP(3), WATERMARK FOR ts AS tz - INTERVAL '1' "
               "SECOND)",
               "error: t.sql:1:54: the watermark expression refers to column \"tz\", which table "
               "\"default_catalog.default_database.t\" does not have\n"
               "DETAIL: CREATE TABLE t (ts TIMESTAMP(3), WATERMARK FOR ts AS tz - INTERVAL '1' "
               "SECOND)\n"
               "                                                             ^\n"
               "HINT: did you mean \"ts\"?");
    fails_with(cat, "CREATE TABLE t (price INT, total AS prize * 2)",
               "error: t.sql:1:37: computed column \"total\" refers to column \"prize\", which "
               "table \"default_catalog.default_database.t\" does not have\n"
               "DETAIL: CREATE TABLE t (price INT, total AS prize * 2)\n"
               "                                            ^\n"
               "HINT: did you mean \"price\"?");
    fails_with(cat, "CREATE TABLE t (a INT, b AS b + 1)",
               "error: t.sql:1:29: computed column \"b\" refers to itself\n"
               "DETAIL: CREATE TABLE t (a INT, b AS b + 1)\n"
               "                                    ^");
    fails_with(cat, "CREATE TABLE t (a INT) WITH ('k' = '1', 'k' = '2')",
               "error: t.sql:1:41: option \"k\" is given twice\n"
               "DETAIL: CREATE TABLE t (a INT) WITH ('k' = '1', 'k' = '2')\n"
               "                                                ^");
    output_is(cat, "SHOW TABLES", "");
    /* a rowtime computed from a string is fine */
    ok_quiet(cat, "CREATE TABLE ok1 (s STRING, ts AS TO_TIMESTAMP(s), WATERMARK FOR ts AS ts - "
                  "INTERVAL '1' SECOND)" CONN);
    cdc_catalog_destroy(cat);
}

/* ---- CREATE TABLE ... LIKE ------------------------------------------------------------------ */

static const char *like_base = "CREATE TABLE base (\n"
                               "  id BIGINT,\n"
                               "  ts TIMESTAMP(3),\n"
                               "  part STRING,\n"
                               "  doubled AS id * 2,\n"
                               "  topic STRING METADATA VIRTUAL,\n"
                               "  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND,\n"
                               "  PRIMARY KEY (id) NOT ENFORCED\n"
                               ") PARTITIONED BY (part)\n"
                               "WITH ('connector' = 'kafka', 'topic' = 'base', 'format' = 'json')";

static char *show_create(cdc_catalog_t *cat, const char *name)
{
    char *sql = sqlf("SHOW CREATE TABLE %s", name);
    char *out = ok(cat, sql);
    free(sql);
    return out;
}

Test(catalog, like_defaults_include_all_overwrite_options)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    ok_quiet(cat, like_base);
    ok_quiet(cat, "CREATE TABLE derived (extra INT) WITH ('topic' = 'derived') LIKE base");
    char *out = show_create(cat, "derived");
    cr_assert_str_eq(out, "CREATE TABLE `default_catalog`.`default_database`.`derived` (\n"
                          "  `id` BIGINT NOT NULL,\n"
                          "  `ts` TIMESTAMP(3),\n"
                          "  `part` STRING,\n"
                          "  `doubled` AS id * 2,\n"
                          "  `topic` STRING METADATA VIRTUAL,\n"
                          "  `extra` INT,\n"
                          "  WATERMARK FOR `ts` AS ts - INTERVAL '1' SECOND,\n"
                          "  PRIMARY KEY (`id`) NOT ENFORCED\n"
                          ")\n"
                          "PARTITIONED BY (`part`)\n"
                          "WITH (\n"
                          "  'connector' = 'kafka',\n"
                          "  'topic' = 'derived',\n"
                          "  'format' = 'json'\n"
                          ")\n");
    free(out);
    const cdc_table_def_t *t = table(cat, "derived", NULL, NULL);
    cr_assert_str_eq(t->ddl, "CREATE TABLE derived (extra INT) WITH ('topic' = 'derived') LIKE "
                             "base");
    cdc_catalog_destroy(cat);
}

Test(catalog, like_excluding_and_overwriting)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    ok_quiet(cat, like_base);
    ok_quiet(cat, "CREATE TABLE d1 (extra INT) WITH ('connector' = 'print') LIKE base (EXCLUDING "
                  "ALL)");
    char *out = show_create(cat, "d1");
    cr_assert_str_eq(out, "CREATE TABLE `default_catalog`.`default_database`.`d1` (\n"
                          "  `id` BIGINT,\n"
                          "  `ts` TIMESTAMP(3),\n"
                          "  `part` STRING,\n"
                          "  `extra` INT\n"
                          ")\n"
                          "WITH (\n"
                          "  'connector' = 'print'\n"
                          ")\n");
    free(out);
    /* ALL applies first, specific options after it, wherever they are written */
    ok_quiet(cat, "CREATE TABLE d2 (doubled AS id * 3, PRIMARY KEY (part) NOT ENFORCED) "
                  "LIKE base (EXCLUDING CONSTRAINTS, OVERWRITING GENERATED, INCLUDING ALL, "
                  "EXCLUDING METADATA, EXCLUDING WATERMARKS, EXCLUDING PARTITIONS, EXCLUDING "
                  "OPTIONS)");
    out = show_create(cat, "d2");
    cr_assert_str_eq(out, "CREATE TABLE `default_catalog`.`default_database`.`d2` (\n"
                          "  `id` BIGINT,\n"
                          "  `ts` TIMESTAMP(3),\n"
                          "  `part` STRING NOT NULL,\n"
                          "  `doubled` AS id * 3,\n"
                          "  PRIMARY KEY (`part`) NOT ENFORCED\n"
                          ")\n");
    free(out);
    /* INCLUDING OPTIONS fails on a key both define */
    fails_with(cat, "CREATE TABLE d3 WITH ('topic' = 'x') LIKE base (INCLUDING ALL)",
               "error: t.sql:1:23: option \"topic\" is already set by the base table "
               "\"default_catalog.default_database.base\"\n"
               "DETAIL: CREATE TABLE d3 WITH ('topic' = 'x') LIKE base (INCLUDING ALL)\n"
               "                              ^\n"
               "HINT: use OVERWRITING OPTIONS or EXCLUDING OPTIONS");
    cdc_catalog_destroy(cat);
}

Test(catalog, like_errors)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    ok_quiet(cat, like_base);
    ok_quiet(cat, "CREATE VIEW v AS SELECT id FROM base");
    fails_with(cat, "CREATE TABLE d (id INT) LIKE base",
               "error: t.sql:1:17: column \"id\" already exists in the base table "
               "\"default_catalog.default_database.base\"\n"
               "DETAIL: CREATE TABLE d (id INT) LIKE base\n"
               "                        ^");
    fails_with(cat, "CREATE TABLE d (part AS id + 1) LIKE base",
               "error: t.sql:1:17: column \"part\" already exists in the base table "
               "\"default_catalog.default_database.base\"\n"
               "DETAIL: CREATE TABLE d (part AS id + 1) LIKE base\n"
               "                        ^\n"
               "HINT: a computed column can only overwrite a computed column");
    fails_with(cat, "CREATE TABLE d (doubled AS id + 1) LIKE base",
               "error: t.sql:1:17: computed column \"doubled\" already exists in the base table "
               "\"default_catalog.default_database.base\"\n"
               "DETAIL: CREATE TABLE d (doubled AS id + 1) LIKE base\n"
               "                        ^\n"
               "HINT: use EXCLUDING GENERATED or OVERWRITING GENERATED");
    fails_with(cat, "CREATE TABLE d (topic STRING METADATA) LIKE base",
               "error: t.sql:1:17: metadata column \"topic\" already exists in the base table "
               "\"default_catalog.default_database.base\"\n"
               "DETAIL: CREATE TABLE d (topic STRING METADATA) LIKE base\n"
               "                        ^\n"
               "HINT: use EXCLUDING METADATA or OVERWRITING METADATA");
    fails_with(cat, "CREATE TABLE d (x INT, PRIMARY KEY (x) NOT ENFORCED) LIKE base",
               "error: t.sql:1:24: the base table \"default_catalog.default_database.base\" "
               "already has a primary key\n"
               "DETAIL: CREATE TABLE d (x INT, PRIMARY KEY (x) NOT ENFORCED) LIKE base\n"
               "                               ^\n"
               "HINT: use EXCLUDING CONSTRAINTS to replace it");
    fails_with(cat, "CREATE TABLE d (x INT) PARTITIONED BY (x) LIKE base",
               "error: t.sql:1:40: the base table \"default_catalog.default_database.base\" "
               "already has partition keys\n"
               "DETAIL: CREATE TABLE d (x INT) PARTITIONED BY (x) LIKE base\n"
               "                                               ^\n"
               "HINT: use EXCLUDING PARTITIONS to replace them");
    fails_with(cat, "CREATE TABLE d (WATERMARK FOR ts AS ts) LIKE base",
               "error: t.sql:1:17: the base table \"default_catalog.default_database.base\" "
               "already has a watermark\n"
               "DETAIL: CREATE TABLE d (WATERMARK FOR ts AS ts) LIKE base\n"
               "                        ^\n"
               "HINT: use EXCLUDING WATERMARKS or OVERWRITING WATERMARKS");
    ok_quiet(cat, "CREATE TABLE d (WATERMARK FOR ts AS ts) LIKE base (OVERWRITING WATERMARKS)");
    cr_assert_str_eq(table(cat, "d", NULL, NULL)->watermark, "ts");
    fails_with(cat,
               "CREATE TABLE e LIKE base (EXCLUDING ALL, INCLUDING OPTIONS, EXCLUDING "
               "OPTIONS)",
               "error: t.sql:1:61: LIKE option for OPTIONS is given twice\n"
               "DETAIL: CREATE TABLE e LIKE base (EXCLUDING ALL, INCLUDING OPTIONS, EXCLUDING "
               "OPTIONS)\n"
               "                                                                    ^");
    fails_with(cat, "CREATE TABLE e LIKE v",
               "error: t.sql:1:21: view \"default_catalog.default_database.v\" cannot be the "
               "source of LIKE\n"
               "DETAIL: CREATE TABLE e LIKE v\n"
               "                            ^\n"
               "HINT: LIKE copies the definition of a table");
    fails_with(cat, "CREATE TABLE e LIKE bse",
               "error: t.sql:1:21: table \"default_catalog.default_database.bse\" does not exist\n"
               "DETAIL: CREATE TABLE e LIKE bse\n"
               "                            ^\n"
               "HINT: did you mean \"base\"?");
    /* a computed column of the base that uses an excluded metadata column */
    ok_quiet(cat, "CREATE TABLE b2 (a INT, m STRING METADATA, up AS UPPER(m))" CONN);
    fails_with(cat, "CREATE TABLE e LIKE b2 (EXCLUDING METADATA)",
               "error: t.sql:1:16: computed column \"up\" refers to column \"m\", which table "
               "\"default_catalog.default_database.e\" does not have\n"
               "DETAIL: CREATE TABLE e LIKE b2 (EXCLUDING METADATA)\n"
               "                       ^\n"
               "HINT: the LIKE options leave column \"m\" of the base table out");
    cdc_catalog_destroy(cat);
}

/* ---- SHOW CREATE TABLE round trip and DESCRIBE --------------------------------------------- */

static bool types_equal_or_both_null(const cdc_type_t *a, const cdc_type_t *b)
{
    return (!a && !b) || (a && b && cdc_type_equals(a, b) && a->nullable == b->nullable);
}

static void assert_tables_equal(const cdc_table_def_t *a, const cdc_table_def_t *b)
{
    cr_assert(cdc_type_equals(a->schema, b->schema));
    cr_assert_eq(a->ncolumns, b->ncolumns);
    for (int i = 0; i < a->ncolumns; i++) {
        const cdc_column_def_t *x = &a->columns[i], *y = &b->columns[i];
        cr_assert_str_eq(x->name, y->name);
        cr_assert_eq(x->kind, y->kind);
        cr_assert(types_equal_or_both_null(x->type, y->type), "column %s", x->name);
        cr_assert_eq(x->physical, y->physical);
        cr_assert_eq(!x->expr_text, !y->expr_text);
        if (x->expr_text)
            cr_assert_str_eq(x->expr_text, y->expr_text);
        cr_assert_eq(!x->metadata_key, !y->metadata_key);
        if (x->metadata_key)
            cr_assert_str_eq(x->metadata_key, y->metadata_key);
        cr_assert_eq(x->metadata_from, y->metadata_from);
        cr_assert_eq(x->is_virtual, y->is_virtual);
        cr_assert_eq(!x->comment, !y->comment);
        if (x->comment)
            cr_assert_str_eq(x->comment, y->comment);
    }
    cr_assert_eq(a->npk, b->npk);
    for (int i = 0; i < a->npk; i++)
        cr_assert_eq(a->pk[i], b->pk[i]);
    cr_assert_eq(!a->pk_name, !b->pk_name);
    cr_assert_eq(a->npartition_keys, b->npartition_keys);
    for (int i = 0; i < a->npartition_keys; i++)
        cr_assert_eq(a->partition_keys[i], b->partition_keys[i]);
    cr_assert_eq(!a->watermark, !b->watermark);
    if (a->watermark) {
        cr_assert_str_eq(a->watermark, b->watermark);
        cr_assert_str_eq(a->watermark_column, b->watermark_column);
    }
    cr_assert_eq(!a->comment, !b->comment);
    if (a->comment)
        cr_assert_str_eq(a->comment, b->comment);
    cr_assert_eq(a->options.n, b->options.n);
    for (int i = 0; i < a->options.n; i++) {
        cr_assert_str_eq(a->options.keys[i], b->options.keys[i]);
        cr_assert_str_eq(a->options.values[i], b->options.values[i]);
    }
}

Test(catalog, show_create_table_round_trip)
{
    const char *ddls[] = {
        full_ddl,
        "CREATE TABLE `we``ird name` (`select` INT NOT NULL, `a b` ROW<`x y` INT, z "
        "ARRAY<STRING>>, m MAP<STRING, DECIMAL(38, 10)>, c AS `select` + 1 COMMENT 'it''s', "
        "t TIMESTAMP_LTZ(3) METADATA FROM 'ts' VIRTUAL) COMMENT 'q''uote' WITH ('k''' = 'v''')",
        "CREATE TABLE bare (a INT)",
        "CREATE TEMPORARY TABLE tmp (a CHAR(3), b BYTES, d DATE, PRIMARY KEY (a, d) NOT "
        "ENFORCED) WITH ('connector' = 'datagen')",
    };
    for (size_t i = 0; i < sizeof(ddls) / sizeof(ddls[0]); i++) {
        cdc_catalog_t *cat = cdc_catalog_new();
        ok_quiet(cat, ddls[i]);
        char *names = ok(cat, "SHOW TABLES");
        *strchr(names, '\n') = '\0';
        cdc_sql_name_t nm = name_of(names, NULL, NULL);
        cdc_error_t *err = NULL;
        const cdc_table_def_t *a = cdc_catalog_get_table(cat, &nm, NULL, 0, NULL, &err);
        cr_assert_not_null(a);
        char *sql = cdc_table_def_to_sql(a, true);
        char *quoted = cdc_sql_quote_ident(names);
        char *shown = show_create(cat, quoted);
        char *expected = sqlf("%s\n", sql);
        cr_assert_str_eq(shown, expected);
        free(expected);
        free(shown);
        free(quoted);
        cdc_catalog_t *cat2 = cdc_catalog_new();
        ok_quiet(cat2, sql);
        const cdc_table_def_t *b = cdc_catalog_get_table(cat2, &nm, NULL, 0, NULL, &err);
        cr_assert_not_null(b, "%s", sql);
        assert_tables_equal(a, b);
        /* printing again gives the same text */
        char *sql2 = cdc_table_def_to_sql(b, true);
        cr_assert_str_eq(sql, sql2);
        free(sql2);
        free(sql);
        free(names);
        cdc_catalog_destroy(cat2);
        cdc_catalog_destroy(cat);
    }
}

Test(catalog, describe_table)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    ok_quiet(cat, "CREATE TABLE d (\n"
                  "  id BIGINT,\n"
                  "  name STRING NOT NULL,\n"
                  "  ts TIMESTAMP(3),\n"
                  "  up AS UPPER(name),\n"
                  "  n AS CHAR_LENGTH(name) + 1,\n"
                  "  topic STRING METADATA FROM 'value.topic' VIRTUAL,\n"
                  "  c AS id * 1.5,\n"
                  "  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,\n"
                  "  PRIMARY KEY (id, name) NOT ENFORCED\n"
                  ")" CONN);
    output_is(cat, "DESCRIBE d",
              "name   type          null   key            extras                               "
              "watermark\n"
              "id     BIGINT        FALSE  PRI(id, name)\n"
              "name   STRING        FALSE  PRI(id, name)\n"
              "ts     TIMESTAMP(3)  TRUE                                                       ts "
              "- INTERVAL '5' SECOND\n"
              "up     STRING        FALSE                 AS UPPER(name)\n"
              "n      INT           FALSE                 AS CHAR_LENGTH(name) + 1\n"
              "topic  STRING        TRUE                  METADATA FROM 'value.topic' VIRTUAL\n"
              "c                                          AS id * 1.5\n");
    ok_quiet(cat, "CREATE VIEW v AS SELECT id FROM d");
    fails_with(cat, "DESC v",
               "error: t.sql:1:6: DESCRIBE of view \"default_catalog.default_database.v\" is not "
               "supported yet\n"
               "DETAIL: DESC v\n"
               "             ^\n"
               "HINT: SHOW CREATE VIEW shows its query");
    fails_with(cat, "DESCRIBE nope",
               "error: t.sql:1:10: table \"default_catalog.default_database.nope\" does not exist\n"
               "DETAIL: DESCRIBE nope\n"
               "                 ^");
    cdc_catalog_destroy(cat);
}

/* ---- views -------------------------------------------------------------------------------------
 */

/* A view's stored query keeps GROUP BY, HAVING, ORDER BY, OVER and RIGHT/FULL joins, and the
 * stored text prints back the same once parsed again (print -> parse -> print). */
Test(catalog, view_with_stateful_forms_round_trips)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    ok_quiet(cat,
             "CREATE TABLE t (a INT, b STRING)" CONN ";"
             "CREATE TABLE u (a INT, n STRING)" CONN ";"
             "CREATE VIEW g AS SELECT b, COUNT(*) AS c FROM t WHERE a > 0 GROUP BY b, a + 1 "
             "HAVING COUNT(*) > 1 ORDER BY c DESC NULLS LAST, b LIMIT 3;"
             "CREATE VIEW w AS SELECT a, ROW_NUMBER() OVER (PARTITION BY b ORDER BY a DESC) AS "
             "rn FROM t RIGHT OUTER JOIN u AS x ON t.a = x.a FULL JOIN u ON u.a = t.a");
    const char *expected_g =
        "SELECT b, COUNT(*) AS `c` FROM `default_catalog`.`default_database`.`t` WHERE a > 0 "
        "GROUP BY b, a + 1 HAVING COUNT(*) > 1 ORDER BY c DESC NULLS LAST, b LIMIT 3";
    const char *expected_w =
        "SELECT a, ROW_NUMBER() OVER (PARTITION BY b ORDER BY a DESC) AS `rn` FROM "
        "`default_catalog`.`default_database`.`t` RIGHT JOIN "
        "`default_catalog`.`default_database`.`u` AS `x` ON t.a = x.a FULL JOIN "
        "`default_catalog`.`default_database`.`u` ON u.a = t.a";
    const char *names[] = {"g", "w"}, *expected[] = {expected_g, expected_w};
    for (int i = 0; i < 2; i++) {
        cdc_sql_name_t nm = name_of(names[i], NULL, NULL);
        cdc_error_t *err = NULL;
        const cdc_view_def_t *v = cdc_catalog_get_view(cat, &nm, NULL, 0, NULL, &err);
        cr_assert_not_null(v);
        cr_expect_str_eq(v->query, expected[i]);
        /* the stored text, parsed and stored again, is the same text */
        char *again = cdc_strdup_printf("CREATE VIEW %s2 AS %s", names[i], v->query);
        ok_quiet(cat, again);
        free(again);
        char *name2 = cdc_strdup_printf("%s2", names[i]);
        nm = name_of(name2, NULL, NULL);
        const cdc_view_def_t *v2 = cdc_catalog_get_view(cat, &nm, NULL, 0, NULL, &err);
        cr_assert_not_null(v2);
        cr_expect_str_eq(v2->query, expected[i]);
        free(name2);
    }
    cdc_catalog_destroy(cat);
}

Test(catalog, views)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    ok_quiet(cat, "CREATE DATABASE db2; USE db2; CREATE TABLE t (a INT, b STRING)" CONN ";"
                  "CREATE TABLE dim (a INT, n STRING)" CONN ";"
                  "CREATE VIEW v (x, y) COMMENT 'my view' AS SELECT a, UPPER(b) AS bb FROM t "
                  "WHERE a > 1 LIMIT 5;"
                  "CREATE VIEW j AS SELECT DISTINCT t.a, d.n FROM t AS x LEFT JOIN db2.dim "
                  "FOR SYSTEM_TIME AS OF x.a AS d ON x.a = d.a;"
                  "CREATE VIEW vv AS SELECT * FROM v");
    output_is(cat, "SHOW CREATE VIEW v",
              "CREATE VIEW `default_catalog`.`db2`.`v` (`x`, `y`)\n"
              "COMMENT 'my view'\n"
              "AS SELECT a, UPPER(b) AS `bb` FROM `default_catalog`.`db2`.`t` WHERE a > 1 LIMIT "
              "5\n");
    output_is(cat, "SHOW CREATE VIEW j",
              "CREATE VIEW `default_catalog`.`db2`.`j`\n"
              "AS SELECT DISTINCT t.a, d.n FROM `default_catalog`.`db2`.`t` AS `x` LEFT JOIN "
              "`default_catalog`.`db2`.`dim` FOR SYSTEM_TIME AS OF x.a AS `d` ON x.a = d.a\n");
    cdc_sql_name_t nm = name_of("v", NULL, NULL);
    cdc_error_t *err = NULL;
    const cdc_view_def_t *v = cdc_catalog_get_view(cat, &nm, NULL, 0, NULL, &err);
    cr_assert_not_null(v);
    cr_assert_str_eq(v->original_query, "SELECT a, UPPER(b) AS bb FROM t WHERE a > 1 LIMIT 5");
    cr_assert_eq(v->ncolumns, 2);
    cr_assert_str_eq(v->columns[1], "y");
    cr_assert_str_eq(v->comment, "my view");
    cr_assert_not_null(v->query_ast);
    cr_assert_eq(v->query_ast->nitems, 2);
    cr_assert_eq(v->query_ast->from.name.nparts, 3);
    cr_assert_str_eq(v->ddl, "CREATE VIEW v (x, y) COMMENT 'my view' AS SELECT a, UPPER(b) AS bb "
                             "FROM t WHERE a > 1 LIMIT 5");
    output_is(cat, "SHOW VIEWS", "j\nv\nvv\n");
    fails_with(cat, "CREATE VIEW w (x) AS SELECT a, b FROM t",
               "error: t.sql:1:16: view \"default_catalog.db2.w\" names 1 column but its query "
               "produces 2\n"
               "DETAIL: CREATE VIEW w (x) AS SELECT a, b FROM t\n"
               "                       ^");
    fails_with(cat, "CREATE VIEW w (x, x) AS SELECT a, b FROM t",
               "error: t.sql:1:19: column \"x\" appears twice in the column list of view "
               "\"default_catalog.db2.w\"\n"
               "DETAIL: CREATE VIEW w (x, x) AS SELECT a, b FROM t\n"
               "                          ^");
    fails_with(cat, "CREATE VIEW w AS SELECT a FROM t JOIN nope ON t.a = nope.a",
               "error: t.sql:1:39: table \"default_catalog.db2.nope\" does not exist\n"
               "DETAIL: CREATE VIEW w AS SELECT a FROM t JOIN nope ON t.a = nope.a\n"
               "                                              ^");
    fails_with(cat, "SHOW CREATE TABLE v",
               "error: t.sql:1:19: \"default_catalog.db2.v\" is a view, not a table\n"
               "DETAIL: SHOW CREATE TABLE v\n"
               "                          ^\n"
               "HINT: use SHOW CREATE VIEW");
    fails_with(cat, "SHOW CREATE VIEW t",
               "error: t.sql:1:18: \"default_catalog.db2.t\" is a table, not a view\n"
               "DETAIL: SHOW CREATE VIEW t\n"
               "                         ^\n"
               "HINT: use SHOW CREATE TABLE");
    /* a view keeps meaning the same tables after USE */
    ok_quiet(cat, "USE default_database; CREATE TABLE t (other INT)" CONN);
    output_is(cat, "SHOW CREATE VIEW db2.vv",
              "CREATE VIEW `default_catalog`.`db2`.`vv`\n"
              "AS SELECT * FROM `default_catalog`.`db2`.`v`\n");
    cdc_catalog_destroy(cat);
}

/* ---- functions ---------------------------------------------------------------------------------
 */

static const char *const test_builtins[] = {"UPPER", "LOWER", "CONCAT", NULL};

static void *test_alloc(cdc_udf_ctx_t *ctx, size_t n)
{
    (void)ctx;
    static char buf[256];
    cr_assert_lt(n, sizeof(buf));
    return buf;
}

static int64_t call_int(const cdc_udf_def_t *udf, int64_t x)
{
    cdc_udf_ctx_t ctx = {test_alloc, NULL};
    cdc_udf_value_t arg = {.kind = CDC_UDF_INT64, .v.i = x}, res = {0};
    char errbuf[64];
    cr_assert_eq(udf->fn(&ctx, &arg, 1, &res, errbuf, sizeof(errbuf)), 0);
    cr_assert_eq(res.kind, CDC_UDF_INT64);
    return res.v.i;
}

static char *call_str(const cdc_udf_def_t *udf, const char *s)
{
    cdc_udf_ctx_t ctx = {test_alloc, NULL};
    cdc_udf_value_t arg = {.kind = CDC_UDF_STRING, .v.s = {s, strlen(s)}}, res = {0};
    char errbuf[64];
    cr_assert_eq(udf->fn(&ctx, &arg, 1, &res, errbuf, sizeof(errbuf)), 0);
    cr_assert_eq(res.kind, CDC_UDF_STRING);
    return cdc_xstrndup(res.v.s.ptr, res.v.s.len);
}

static void create_fn(cdc_catalog_t *cat, const char *how, const char *name, const char *symbol)
{
    char *sql = sqlf("CREATE %sFUNCTION %s AS '%s:%s'", how, name, udf_lib, symbol);
    ok_quiet(cat, sql);
    free(sql);
}

Test(catalog, functions_resolution_and_shadowing)
{
    make_tmpdir();
    build_udf();
    cdc_ddl_set_builtin_functions(test_builtins);
    cdc_catalog_t *cat = cdc_catalog_new();
    create_fn(cat, "TEMPORARY ", "Twice", "udf_twice");
    const cdc_udf_def_t *udf = cdc_catalog_lookup_function(cat, "twice");
    cr_assert_not_null(udf);
    cr_assert_eq(call_int(udf, 21), 42);
    cr_assert_eq(cdc_catalog_lookup_function(cat, "TWICE"), udf, "names are case-insensitive");
    cr_assert_eq(cdc_catalog_lookup_function(cat, "default_database.twice"), udf);
    cr_assert_eq(cdc_catalog_lookup_function(cat, "default_catalog.default_database.twice"), udf);
    cr_assert_null(cdc_catalog_lookup_function(cat, "nope"));
    cr_assert_null(cdc_catalog_lookup_function(cat, "other_db.twice"));

    /* a temporary system function shadows a built-in */
    cr_assert_null(cdc_catalog_lookup_function(cat, "upper"));
    create_fn(cat, "TEMPORARY SYSTEM ", "upper", "udf_greet");
    const cdc_udf_def_t *greet = cdc_catalog_lookup_function(cat, "UPPER");
    cr_assert_not_null(greet);
    char *s = call_str(greet, "bob");
    cr_assert_str_eq(s, "hello, bob");
    free(s);
    /* a catalog function named like a built-in is reachable only by a qualified name */
    create_fn(cat, "TEMPORARY ", "lower", "udf_twice");
    cr_assert_null(cdc_catalog_lookup_function(cat, "lower"));
    cr_assert_not_null(cdc_catalog_lookup_function(cat, "default_database.lower"));

    create_fn(cat, "", "perm", "udf_twice");
    output_is(cat, "SHOW FUNCTIONS", "concat\nlower\nperm\ntwice\nupper\n");
    const cdc_function_def_t *def = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_catalog_resolve_function(cat, "perm", &udf, &def, &err), 1);
    cr_assert_str_eq(def->qualified, "default_catalog.default_database.perm");
    cr_assert_not(def->temporary);
    cr_assert_str_eq(def->language, "C");

    /* temporary shadows permanent; the permanent one cannot be dropped meanwhile */
    create_fn(cat, "TEMPORARY ", "perm", "udf_greet");
    cr_assert_eq(cdc_catalog_lookup_function(cat, "perm"), greet);
    fails_with(cat, "DROP FUNCTION perm",
               "error: t.sql:1:15: Temporary function with identifier "
               "'`default_catalog`.`default_database`.`perm`' exists. Drop it first before "
               "removing the permanent function.\n"
               "DETAIL: DROP FUNCTION perm\n"
               "                      ^");
    ok_quiet(cat, "DROP TEMPORARY FUNCTION perm");
    cr_assert_eq(cdc_catalog_lookup_function(cat, "perm"), udf);
    ok_quiet(cat, "DROP FUNCTION perm");
    cr_assert_null(cdc_catalog_lookup_function(cat, "perm"));
    /* Flink refuses a permanent function while a temporary one has the name */
    char *sql = sqlf("CREATE FUNCTION twice AS '%s:udf_twice'", udf_lib);
    char *msg = fails(cat, sql);
    cr_assert(strstr(msg, "error: t.sql:1:17: temporary function "
                          "\"default_catalog.default_database.twice\" already exists\n"),
              "%s", msg);
    cr_assert(strstr(msg, "HINT: drop it first with DROP TEMPORARY FUNCTION"), "%s", msg);
    free(msg);
    free(sql);

    fails_with(cat, "DROP TEMPORARY SYSTEM FUNCTION nope",
               "error: t.sql:1:32: temporary system function \"nope\" does not exist\n"
               "DETAIL: DROP TEMPORARY SYSTEM FUNCTION nope\n"
               "                                       ^");
    fails_with(cat, "DROP TEMPORARY FUNCTION upper",
               "error: t.sql:1:25: temporary function "
               "\"default_catalog.default_database.upper\" does not exist\n"
               "DETAIL: DROP TEMPORARY FUNCTION upper\n"
               "                                ^\n"
               "HINT: \"upper\" is a temporary system function: use DROP TEMPORARY SYSTEM "
               "FUNCTION");
    fails_with(cat, "DROP FUNCTION nope",
               "error: t.sql:1:15: function \"default_catalog.default_database.nope\" does not "
               "exist\n"
               "DETAIL: DROP FUNCTION nope\n"
               "                      ^");
    ok_quiet(cat, "DROP TEMPORARY SYSTEM FUNCTION UPPER; DROP FUNCTION IF EXISTS nope");
    cr_assert_null(cdc_catalog_lookup_function(cat, "upper"), "the built-in is back");
    output_is(cat, "SHOW FUNCTIONS", "concat\nlower\ntwice\nupper\n");
    cdc_catalog_destroy(cat);
}

Test(catalog, function_load_errors)
{
    make_tmpdir();
    build_udf();
    cdc_catalog_t *cat = cdc_catalog_new();
    char *msg = fails(cat, "CREATE TEMPORARY FUNCTION f AS '/nonexistent/lib.so:sym'");
    cr_assert(strstr(msg, "error: t.sql:1:32: could not open shared object "
                          "\"/nonexistent/lib.so\"\n"
                          "DETAIL: /nonexistent/lib.so: cannot open shared object file"),
              "%s", msg);
    cr_assert(strstr(msg, "\n        CREATE TEMPORARY FUNCTION f AS '/nonexistent/lib.so:sym'\n"
                          "                                       ^"),
              "%s", msg);
    free(msg);

    struct {
        const char *symbol;
        const char *expected; /* %s: the library path */
    } cases[] = {
        {"nosuch", "error: t.sql:1:32: symbol \"nosuch\" not found in \"%s\""},
        {"udf_bad_abi", "error: t.sql:1:32: function \"%s:udf_bad_abi\" has ABI version 99, "
                        "expected 1"},
        {"udf_bad_arg_type", "error: t.sql:1:32: function \"%s:udf_bad_arg_type\" declares "
                             "argument 1 type DECIMAL(10, 2), which C functions cannot take or "
                             "return"},
        {"udf_bad_type_text", "error: t.sql:1:32: function \"%s:udf_bad_type_text\" declares "
                              "an invalid return type \"NOT A TYPE\"\nDETAIL: invalid data type "
                              "at column 1: expected a data type, found \"NOT\""},
        {"udf_no_fn", "error: t.sql:1:32: function \"%s:udf_no_fn\" has no function pointer"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *sql = sqlf("CREATE TEMPORARY FUNCTION f AS '%s:%s'", udf_lib, cases[i].symbol);
        char *expected = sqlf(cases[i].expected, udf_lib);
        msg = fails(cat, sql);
        cr_assert(strncmp(msg, expected, strlen(expected)) == 0, "got:\n%s\nexpected:\n%s", msg,
                  expected);
        free(msg);
        free(expected);
        free(sql);
    }
    char *sql = sqlf("CREATE TEMPORARY FUNCTION f AS '%s:udf_bad_arg_type'", udf_lib);
    msg = fails(cat, sql);
    cr_assert(strstr(msg, "HINT: use BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, "
                          "CHAR, VARCHAR or STRING"),
              "%s", msg);
    free(msg);
    free(sql);
    sql = sqlf("CREATE TEMPORARY FUNCTION f AS '%s:nosuch'", udf_lib);
    msg = fails(cat, sql);
    cr_assert(strstr(msg, "undefined symbol: nosuch"), "%s", msg);
    cr_assert(strstr(msg, "HINT: the library must export \"const cdc_udf_def_t nosuch\""), "%s",
              msg);
    free(msg);
    free(sql);

    fails_with(cat, "CREATE TEMPORARY FUNCTION f AS 'libx.so'",
               "error: t.sql:1:32: invalid function identifier \"libx.so\"\n"
               "DETAIL: CREATE TEMPORARY FUNCTION f AS 'libx.so'\n"
               "                                       ^\n"
               "HINT: write 'path/to/lib.so:symbol'");
    sql = sqlf("CREATE TEMPORARY FUNCTION f AS '%s:udf_twice' LANGUAGE JAVA", udf_lib);
    msg = fails(cat, sql);
    cr_assert(strstr(msg, "error: t.sql:1:27: function language \"JAVA\" is not supported\n"), "%s",
              msg);
    cr_assert(strstr(msg, "HINT: cdcflow loads C functions from shared objects: LANGUAGE C"), "%s",
              msg);
    free(msg);
    free(sql);
    output_is(cat, "SHOW FUNCTIONS", "");
    cdc_catalog_destroy(cat);
}

Test(catalog, udf_load_directly)
{
    make_tmpdir();
    build_udf();
    char *id = sqlf("%s:udf_twice", udf_lib);
    cdc_error_t *err = NULL;
    const cdc_udf_def_t *a = cdc_udf_load(id, &err);
    cr_assert_not_null(a);
    cr_assert_eq(cdc_udf_load(id, &err), a, "one library, opened once");
    /* another path to the same file reaches the same handle */
    char *link = sqlf("%s/link.so", tmpdir);
    cr_assert_eq(symlink(udf_lib, link), 0);
    char *id2 = sqlf("%s:udf_twice", link);
    cr_assert_eq(cdc_udf_load(id2, &err), a);
    /* without "/", relative to the working directory */
    cr_assert_eq(chdir(tmpdir), 0);
    cr_assert_eq(cdc_udf_load("libtest_udf.so:udf_twice", &err), a);
    cr_assert_null(cdc_udf_load("nothere.so:udf_twice", &err));
    cr_assert_str_eq(err->message, "could not open shared object \"./nothere.so\"");
    cdc_error_destroy(err);
    err = NULL;
    cr_assert_null(cdc_udf_load(":x", &err));
    cr_assert_str_eq(err->message, "invalid function identifier \":x\"");
    cdc_error_destroy(err);
    free(id);
    free(id2);
    free(link);
}

/* ---- databases and catalogs --------------------------------------------------------------------
 */

Test(catalog, databases)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    ok_quiet(cat, "CREATE DATABASE db COMMENT 'x' WITH ('k' = 'v');"
                  "CREATE TABLE db.t (a INT)" CONN ";"
                  "CREATE TEMPORARY VIEW db.v AS SELECT a FROM db.t");
    fails_with(cat, "DROP DATABASE db",
               "error: t.sql:1:15: database \"default_catalog.db\" is not empty\n"
               "DETAIL: it holds 1 table, 1 view and 0 functions (temporary ones included)\n"
               "        DROP DATABASE db\n"
               "                      ^\n"
               "HINT: use DROP DATABASE ... CASCADE to drop it with its contents");
    fails_with(cat, "DROP DATABASE db RESTRICT",
               "error: t.sql:1:15: database \"default_catalog.db\" is not empty\n"
               "DETAIL: it holds 1 table, 1 view and 0 functions (temporary ones included)\n"
               "        DROP DATABASE db RESTRICT\n"
               "                      ^\n"
               "HINT: use DROP DATABASE ... CASCADE to drop it with its contents");
    ok_quiet(cat, "DROP DATABASE db CASCADE");
    output_is(cat, "SHOW DATABASES", "default_database\n");
    char *msg = missing_table(cat, "db", "t", NULL);
    cr_assert_str_eq(msg, "error: <input>:1:1: database \"default_catalog.db\" does not exist");
    free(msg);
    fails_with(cat, "DROP DATABASE default_database",
               "error: t.sql:1:15: cannot drop database \"default_catalog.default_database\": it "
               "is the current database\n"
               "DETAIL: DROP DATABASE default_database\n"
               "                      ^\n"
               "HINT: switch to another database with USE first");
    fails_with(cat, "DROP DATABASE db",
               "error: t.sql:1:15: database \"default_catalog.db\" does not exist\n"
               "DETAIL: DROP DATABASE db\n"
               "                      ^");
    fails_with(cat, "CREATE DATABASE nocat.db",
               "error: t.sql:1:17: catalog \"nocat\" does not exist\n"
               "DETAIL: CREATE DATABASE nocat.db\n"
               "                        ^");
    fails_with(cat, "USE default_databas",
               "error: t.sql:1:5: database \"default_catalog.default_databas\" does not exist\n"
               "DETAIL: USE default_databas\n"
               "            ^\n"
               "HINT: did you mean \"default_database\"?");
    fails_with(cat, "USE CATALOG default_catalg",
               "error: t.sql:1:13: catalog \"default_catalg\" does not exist\n"
               "DETAIL: USE CATALOG default_catalg\n"
               "                    ^\n"
               "HINT: did you mean \"default_catalog\"?");
    ok_quiet(cat, "DROP DATABASE IF EXISTS db; DROP DATABASE IF EXISTS nocat.db; CREATE "
                  "DATABASE e; DROP DATABASE e RESTRICT");
    output_is(cat, "SHOW DATABASES", "default_database\n");
    cdc_catalog_destroy(cat);
}

Test(catalog, catalogs)
{
    cdc_catalog_t *cat = cdc_catalog_new();
    fails_with(cat, "CREATE CATALOG c WITH ('type' = 'hive')",
               "error: t.sql:1:33: unknown catalog type \"hive\"\n"
               "DETAIL: CREATE CATALOG c WITH ('type' = 'hive')\n"
               "                                        ^\n"
               "HINT: supported types: file, generic_in_memory");
    fails_with(cat, "CREATE CATALOG c WITH ('path' = '/tmp')",
               "error: t.sql:1:16: catalog \"c\" has no option \"type\"\n"
               "DETAIL: CREATE CATALOG c WITH ('path' = '/tmp')\n"
               "                       ^\n"
               "HINT: add 'type' = 'file' (with 'path') or 'type' = 'generic_in_memory'");
    fails_with(cat, "CREATE CATALOG c WITH ('type' = 'generic_in_memory', 'pth' = 'x')",
               "error: invalid options for catalog \"c\"\n"
               "DETAIL: unknown option \"pth\"\n"
               "HINT: a generic_in_memory catalog takes the options type, default-database\n"
               "CONTEXT: CREATE CATALOG at t.sql:1:1");
    fails_with(cat, "CREATE CATALOG c WITH ('type' = 'file')",
               "error: invalid options for catalog \"c\"\n"
               "DETAIL: missing required option \"path\"\n"
               "HINT: a file catalog takes the options type, path, default-database\n"
               "CONTEXT: CREATE CATALOG at t.sql:1:1");
    ok_quiet(cat, "CREATE CATALOG m WITH ('type' = 'generic_in_memory', 'default-database' = "
                  "'main');"
                  "CREATE TEMPORARY TABLE m.main.t (a INT)" CONN ";"
                  "USE CATALOG m");
    output_is(cat, "SHOW CURRENT DATABASE; SHOW DATABASES; SHOW TABLES", "main\nmain\nt\n");
    fails_with(cat, "DROP CATALOG m",
               "error: t.sql:1:14: cannot drop catalog \"m\": it is the current catalog\n"
               "DETAIL: DROP CATALOG m\n"
               "                     ^\n"
               "HINT: switch to another catalog with USE CATALOG first");
    ok_quiet(cat, "USE CATALOG default_catalog; DROP CATALOG m; DROP CATALOG IF EXISTS m");
    output_is(cat, "SHOW CATALOGS", "default_catalog\n");
    /* its temporary objects went with it */
    ok_quiet(cat, "CREATE CATALOG m WITH ('type' = 'generic_in_memory', 'default-database' = "
                  "'main')");
    char *msg = missing_table(cat, "m", "main", "t");
    cr_assert_str_eq(msg, "error: <input>:1:1: table \"m.main.t\" does not exist");
    free(msg);
    fails_with(cat, "DROP CATALOG x",
               "error: t.sql:1:14: catalog \"x\" does not exist\n"
               "DETAIL: DROP CATALOG x\n"
               "                     ^\n"
               "HINT: did you mean \"m\"?");
    cdc_catalog_destroy(cat);
}

/* ---- file catalogs ----------------------------------------------------------------------------
 */

static cdc_catalog_t *open_dir(const char *dir)
{
    cdc_error_t *err = NULL;
    cdc_catalog_t *cat = cdc_catalog_new_with_dir(dir, false, &err);
    if (!cat) {
        char *msg = cdc_error_format(err);
        cr_assert_fail("could not open %s: %s", dir, msg);
    }
    return cat;
}

/* Counts the files of a directory whose name starts with @p prefix. */
static int count_files(const char *rel, const char *prefix)
{
    char *p = path_in(rel);
    DIR *d = opendir(p);
    free(p);
    cr_assert_not_null(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
            n++;
    closedir(d);
    return n;
}

Test(catalog, file_catalog_persists)
{
    make_tmpdir();
    build_udf();
    char *dir = path_in("cat");
    cdc_catalog_t *cat = open_dir(dir);
    cr_assert(exists("cat/.lock"));
    cr_assert(exists("cat/default_database"));
    ok_quiet(cat, full_ddl);
    ok_quiet(cat, "CREATE DATABASE sales COMMENT 'money' WITH ('owner' = 'me');"
                  "USE sales;"
                  "CREATE TABLE `my table/x.y` (a INT)" CONN ";"
                  "CREATE VIEW v AS SELECT a FROM `my table/x.y`;"
                  "CREATE TEMPORARY TABLE tmp (a INT)" CONN ";"
                  "USE default_database");
    create_fn(cat, "", "Twice", "udf_twice");
    ok_quiet(cat, "CREATE TABLE calc (a BIGINT, b AS TWICE(a))" CONN);
    char *before = show_create(cat, "orders");
    cdc_catalog_destroy(cat);

    /* the layout */
    char *content = slurp("cat/default_database/orders.table.sql");
    cr_assert(strncmp(content, "CREATE TABLE `orders` (\n", 24) == 0, "%s", content);
    cr_assert(strstr(content, "'json'\n);\n") != NULL, "%s", content);
    free(content);
    cr_assert(exists("cat/sales/my%20table%2Fx%2Ey.table.sql"));
    content = slurp("cat/sales/v.view.sql");
    cr_assert_str_eq(content, "CREATE VIEW `v`\nAS SELECT a FROM "
                              "`default_catalog`.`sales`.`my table/x.y`;\n");
    free(content);
    content = slurp("cat/default_database/twice.function.sql");
    char *expected = sqlf("CREATE FUNCTION `twice` AS '%s:udf_twice' LANGUAGE C;\n", udf_lib);
    cr_assert_str_eq(content, expected);
    free(expected);
    free(content);
    content = slurp("cat/sales/.database.sql");
    cr_assert_str_eq(content, "CREATE DATABASE `sales` COMMENT 'money'\nWITH (\n  'owner' = "
                              "'me'\n);\n");
    free(content);
    cr_assert_not(exists("cat/sales/tmp.table.sql"), "temporary tables stay in memory");
    cr_assert_eq(count_files("cat/default_database", ".tmp-"), 0);
    cr_assert_eq(count_files("cat/sales", ".tmp-"), 0);

    /* a second run sees the same objects */
    cat = open_dir(dir);
    output_is(cat, "SHOW DATABASES", "default_database\nsales\n");
    output_is(cat, "SHOW TABLES", "calc\norders\n");
    /* a computed column typed by a function of the same catalog (regress: re-reading recursed) */
    output_is(cat, "DESCRIBE calc",
              "name  type    null  key  extras       watermark\n"
              "a     BIGINT  TRUE\n"
              "b     BIGINT  TRUE       AS TWICE(a)\n");
    output_is(cat, "USE sales; SHOW TABLES; USE default_database", "my table/x.y\nv\n");
    char *after = show_create(cat, "orders");
    cr_assert_str_eq(after, before);
    free(after);
    const cdc_table_def_t *t = table(cat, "orders", NULL, NULL);
    cr_assert_str_eq(t->qualified, "default_catalog.default_database.orders");
    cr_assert(strstr(t->origin, "/cat/default_database/orders.table.sql"), "%s", t->origin);
    /* functions load when first used */
    const cdc_udf_def_t *udf = cdc_catalog_lookup_function(cat, "twice");
    cr_assert_not_null(udf);
    cr_assert_eq(call_int(udf, 4), 8);
    output_is(cat, "SHOW FUNCTIONS", "twice\n");

    /* drops remove the files */
    ok_quiet(cat, "DROP TABLE orders; DROP TABLE calc; DROP FUNCTION twice");
    cr_assert_not(exists("cat/default_database/orders.table.sql"));
    cr_assert_not(exists("cat/default_database/twice.function.sql"));
    ok_quiet(cat, "DROP DATABASE sales CASCADE");
    cr_assert_not(exists("cat/sales"));
    cdc_catalog_destroy(cat);
    cat = open_dir(dir);
    output_is(cat, "SHOW DATABASES; SHOW TABLES; SHOW FUNCTIONS", "default_database\n");
    cdc_catalog_destroy(cat);
    free(before);
    free(dir);
}

Test(catalog, file_catalog_created_by_sql)
{
    make_tmpdir();
    char *dir = path_in("fc/nested");
    char *sql = sqlf("CREATE CATALOG fc WITH ('type' = 'file', 'path' = '%s', 'default-database' = "
                     "'main');"
                     "CREATE TABLE fc.main.t (a INT)" CONN ";"
                     "USE CATALOG fc;"
                     "CREATE DATABASE other",
                     dir);
    cdc_catalog_t *cat = cdc_catalog_new();
    ok_quiet(cat, sql);
    output_is(cat, "SHOW CURRENT DATABASE", "main\n");
    cdc_catalog_destroy(cat);
    cr_assert(exists("fc/nested/main/t.table.sql"));
    cr_assert(exists("fc/nested/other"));
    /* the next run registers the catalog again and finds its objects */
    free(sql);
    sql = sqlf("CREATE CATALOG fc WITH ('type' = 'file', 'path' = '%s', 'default-database' = "
               "'main'); USE CATALOG fc",
               dir);
    cat = cdc_catalog_new();
    ok_quiet(cat, sql);
    output_is(cat, "SHOW TABLES; SHOW DATABASES", "t\nmain\nother\n");
    cdc_catalog_destroy(cat);
    free(sql);
    free(dir);
}

static char *open_dir_fails(const char *dir)
{
    cdc_error_t *err = NULL;
    cr_assert_null(cdc_catalog_new_with_dir(dir, false, &err));
    cr_assert_not_null(err);
    char *msg = cdc_error_format(err);
    cdc_error_destroy(err);
    return msg;
}

Test(catalog, file_catalog_corrupt_files)
{
    make_tmpdir();
    char *dir = path_in("cat");
    cdc_catalog_destroy(open_dir(dir));
    spit("cat/default_database/bad.table.sql", "CREATE TABLE `bad` (a INT,");
    char *msg = open_dir_fails(dir);
    char *expected = sqlf("error: catalog \"default_catalog\": file \"%s/default_database/"
                          "bad.table.sql\" does not load\n"
                          "DETAIL: syntax error at %s/default_database/bad.table.sql:1:27: "
                          "expected column definition, found end of input\n"
                          "        CREATE TABLE `bad` (a INT,\n"
                          "                                  ^\n"
                          "HINT: cdcflow writes these files itself; restore the file from a "
                          "backup, or remove it to drop the object\n"
                          "CONTEXT: catalog directory \"%s\"",
                          dir, dir, dir);
    cr_assert_str_eq(msg, expected);
    free(expected);
    free(msg);

    spit("cat/default_database/bad.table.sql", "CREATE TABLE `other` (a INT);\n");
    msg = open_dir_fails(dir);
    cr_assert(strstr(msg, "bad.table.sql:1:14: the statement must name the object \"bad\" (one "
                          "part, as the file name says)"),
              "%s", msg);
    free(msg);

    spit("cat/default_database/bad.table.sql", "CREATE VIEW `bad` AS SELECT a FROM t;\n");
    msg = open_dir_fails(dir);
    cr_assert(strstr(msg, "does not load\nDETAIL: expected one CREATE TABLE statement\n"), "%s",
              msg);
    free(msg);

    spit("cat/default_database/bad.table.sql", "CREATE TABLE `bad` (a DECIMAL(50, 1));\n");
    msg = open_dir_fails(dir);
    cr_assert(strstr(msg, "bad.table.sql:1:31: invalid type of column \"a\": decimal precision "
                          "must be between 1 and 38, found 50"),
              "%s", msg);
    free(msg);

    /* stray files are ignored: temporary files of a writer that died, other names */
    char *bad = path_in("cat/default_database/bad.table.sql");
    cr_assert_eq(remove(bad), 0);
    free(bad);
    spit("cat/default_database/.tmp-42-x.table.sql", "garbage");
    spit("cat/default_database/README", "garbage");
    spit("cat/.hidden", "garbage");
    cdc_catalog_t *cat = open_dir(dir);
    output_is(cat, "SHOW TABLES", "");
    cdc_catalog_destroy(cat);
    free(dir);
}

Test(catalog, file_catalog_two_managers_one_directory)
{
    make_tmpdir();
    char *dir = path_in("cat");
    cdc_catalog_t *a = open_dir(dir);
    cdc_catalog_t *b = open_dir(dir);
    ok_quiet(a, "CREATE TABLE t (a INT)" CONN "; CREATE TABLE u (x INT)" CONN);
    /* b re-reads the directory when it changed */
    cr_assert_str_eq(table(b, "t", NULL, NULL)->schema->names[0], "a");
    fails_with(b, "CREATE TABLE t (other INT)" CONN,
               "error: t.sql:1:14: table \"default_catalog.default_database.t\" already exists\n"
               "DETAIL: CREATE TABLE t (other INT) WITH ('connector' = 'blackhole')\n"
               "                     ^");
    /* a's definitions stay valid after b replaces the table */
    const cdc_table_def_t *old = table(a, "u", NULL, NULL);
    ok_quiet(b, "DROP TABLE u; CREATE TABLE u (y BIGINT)" CONN);
    const cdc_table_def_t *fresh = table(a, "u", NULL, NULL);
    cr_assert_neq(fresh, old);
    cr_assert_str_eq(old->schema->names[0], "x");
    cr_assert_str_eq(fresh->schema->names[0], "y");
    /* unchanged objects keep their address across re-reads */
    const cdc_table_def_t *ta = table(a, "t", NULL, NULL);
    ok_quiet(b, "CREATE TABLE w (a INT)" CONN);
    cr_assert_eq(table(a, "t", NULL, NULL), ta);
    ok_quiet(a, "DROP TABLE w");
    char *msg = missing_table(b, "w", NULL, NULL);
    free(msg);
    ok_quiet(b, "CREATE DATABASE db2");
    output_is(a, "SHOW DATABASES", "db2\ndefault_database\n");
    cdc_catalog_destroy(a);
    cdc_catalog_destroy(b);
    free(dir);
}

/* Child process: creates @p n tables named p<id>_<i> and tries to create "shared"; exits with
 * 10 when it created "shared", 11 when it found it existing, 1 on any other failure. */
static void child_writer(const char *dir, int id, int n)
{
    cdc_error_t *err = NULL;
    cdc_catalog_t *cat = cdc_catalog_new_with_dir(dir, false, &err);
    if (!cat)
        _exit(1);
    int status = 11;
    for (int i = 0; i < n; i++) {
        char *sql =
            sqlf("CREATE TABLE p%d_%d (a INT, b STRING)" CONN "; CREATE TABLE IF NOT EXISTS "
                 "common (a INT)" CONN,
                 id, i);
        if (run(cat, sql, NULL, &err) < 0)
            _exit(1);
        free(sql);
        if (i == n / 2) {
            int rc = run(cat, "CREATE TABLE shared (a INT)" CONN, NULL, &err);
            if (rc == 0)
                status = 10;
            else if (!strstr(err->message, "table \"default_catalog.default_database.shared\" "
                                           "already exists"))
                _exit(1);
            cdc_error_destroy(err);
            err = NULL;
        }
    }
    cdc_catalog_destroy(cat);
    _exit(status);
}

Test(catalog, file_catalog_two_processes)
{
    make_tmpdir();
    char *dir = path_in("cat");
    cdc_catalog_destroy(open_dir(dir));
    enum { NPROC = 3, NTABLES = 20 };
    pid_t pids[NPROC];
    for (int p = 0; p < NPROC; p++) {
        pids[p] = fork();
        cr_assert_geq(pids[p], 0);
        if (pids[p] == 0)
            child_writer(dir, p, NTABLES);
    }
    int created = 0;
    for (int p = 0; p < NPROC; p++) {
        int st = 0;
        cr_assert_eq(waitpid(pids[p], &st, 0), pids[p]);
        cr_assert(WIFEXITED(st));
        cr_assert(WEXITSTATUS(st) == 10 || WEXITSTATUS(st) == 11, "child %d exited %d", p,
                  WEXITSTATUS(st));
        created += WEXITSTATUS(st) == 10;
    }
    cr_assert_eq(created, 1, "exactly one process creates \"shared\"");
    cdc_catalog_t *cat = open_dir(dir);
    char **names = NULL;
    cdc_error_t *err = NULL;
    int n = cdc_catalog_list(cat, CDC_SQL_SHOW_TABLES, &names, &err);
    cr_assert_eq(n, NPROC * NTABLES + 2);
    for (int p = 0; p < NPROC; p++)
        for (int i = 0; i < NTABLES; i++) {
            char *nm = sqlf("p%d_%d", p, i);
            cr_assert_str_eq(table(cat, nm, NULL, NULL)->schema->names[1], "b");
            free(nm);
        }
    cdc_catalog_list_free(names);
    cr_assert_eq(count_files("cat/default_database", ".tmp-"), 0);
    cdc_catalog_destroy(cat);
    free(dir);
}

/* ---- regressions and the older entry points ------------------------------------------------- */

Test(catalog, regress_derive_type_is_linear)
{
    /* each operand of a binary operator was derived twice: 2^60 steps for this column */
    cdc_buf_t b = {0};
    cdc_buf_puts(&b, "CREATE TABLE t (a INT NOT NULL, s AS a");
    for (int i = 0; i < 60; i++)
        cdc_buf_puts(&b, " + a");
    cdc_buf_puts(&b, ")" CONN);
    cdc_catalog_t *cat = cdc_catalog_new();
    ok_quiet(cat, cdc_buf_cstr(&b));
    const cdc_table_def_t *t = table(cat, "t", NULL, NULL);
    char *ty = cdc_type_to_string(t->columns[1].type);
    cr_assert_str_eq(ty, "INT NOT NULL");
    free(ty);
    cdc_buf_free(&b);
    cdc_catalog_destroy(cat);
}

Test(catalog, create_table_from_the_parsed_struct)
{
    /* cdc_catalog_create_table: the runtime's entry point before cdc_ddl_execute */
    const char *sql = "CREATE TABLE x (a INT, PRIMARY KEY (a) NOT ENFORCED)" CONN;
    cdc_sql_script_t *script = NULL;
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_sql_parse(sql, strlen(sql), "x.sql", &script, &err), 0);
    cdc_catalog_t *cat = cdc_catalog_new();
    cr_assert_eq(cdc_catalog_create_table(cat, &script->stmts[0]->create_table, sql, strlen(sql),
                                          "x.sql", &err),
                 0);
    const cdc_table_def_t *t = table(cat, "x", NULL, NULL);
    cr_assert_str_eq(t->ddl, "CREATE TABLE `default_catalog`.`default_database`.`x` (\n"
                             "  `a` INT NOT NULL,\n"
                             "  PRIMARY KEY (`a`) NOT ENFORCED\n"
                             ")\n"
                             "WITH (\n"
                             "  'connector' = 'blackhole'\n"
                             ")");
    cr_assert_eq(cdc_catalog_create_table(cat, &script->stmts[0]->create_table, sql, strlen(sql),
                                          "x.sql", &err),
                 -1);
    cr_assert_str_eq(err->message,
                     "x.sql:1:14: table \"default_catalog.default_database.x\" already exists");
    cdc_error_destroy(err);
    cdc_sql_script_destroy(script);
    cdc_catalog_destroy(cat);
}

Test(catalog, temporary_function_needs_its_database)
{
    make_tmpdir();
    build_udf();
    cdc_catalog_t *cat = cdc_catalog_new();
    char *sql = sqlf("CREATE TEMPORARY FUNCTION nodb.f AS '%s:udf_twice'", udf_lib);
    char *msg = fails(cat, sql);
    cr_assert(strstr(msg, "error: t.sql:1:27: database \"default_catalog.nodb\" does not exist\n"),
              "%s", msg);
    free(msg);
    free(sql);
    cdc_catalog_destroy(cat);
}

Test(catalog, file_catalog_reads_hand_written_files)
{
    make_tmpdir();
    char *dir = path_in("cat");
    cdc_catalog_destroy(open_dir(dir));
    char *shop = path_in("cat/shop");
    cr_assert_eq(mkdir(shop, 0755), 0);
    free(shop);
    spit("cat/shop/items.table.sql", "-- written by hand\n"
                                     "CREATE TABLE items (id INT, name STRING) WITH "
                                     "('connector' = 'datagen')\n");
    spit("cat/shop/cheap.view.sql", "CREATE VIEW cheap AS SELECT id FROM shop.items");
    cdc_catalog_t *cat = open_dir(dir);
    output_is(cat, "USE shop; SHOW TABLES", "cheap\nitems\n");
    cr_assert_str_eq(table(cat, "items", NULL, NULL)->qualified, "default_catalog.shop.items");
    cdc_catalog_destroy(cat);
    free(dir);
}
