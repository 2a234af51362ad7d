/*
 * tests/unit/schema_change.c — schema changes: items derived from two column
 * lists, applied to a ROW type, printed; the policy names.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_schema_change.h"

static cdc_type_t *row(const char *text)
{
    cdc_error_t *err = NULL;
    cdc_type_t *t = cdc_type_parse(text, &err);
    cr_assert_not_null(t, "%s: %s", text, err ? err->message : "?");
    return t;
}

static char *describe(const cdc_schema_change_t *c)
{
    cdc_buf_t b = {0};
    cdc_schema_change_describe(c, &b);
    char *s = cdc_xstrdup(cdc_buf_cstr(&b));
    cdc_buf_free(&b);
    return s;
}

static void expect_type(const cdc_type_t *t, const char *want)
{
    char *s = cdc_type_to_string(t);
    cr_expect_str_eq(s, want);
    free(s);
}

Test(schema_change, diff_add_drop_rename_type)
{
    cdc_type_t *b = row("ROW<id INT NOT NULL, a VARCHAR(10) NOT NULL, old STRING, gone INT>");
    cdc_type_t *a = row("ROW<id BIGINT NOT NULL, a VARCHAR(100), fresh STRING, extra INT>");
    cdc_schema_change_t *c = cdc_schema_change_new("db.t", "binlog b.000001:120", NULL);
    cdc_schema_change_set_columns(c, b, a);
    const char *ren[] = {"old", "fresh", NULL};
    const char *def[] = {"extra", "5", NULL};
    cdc_schema_change_diff(c, ren, def);
    char *s = describe(c);
    cr_expect_str_eq(s, "RENAME COLUMN old TO fresh, ADD COLUMN extra INT DEFAULT 5, DROP COLUMN "
                        "gone, ALTER COLUMN TYPE id INT NOT NULL -> BIGINT NOT NULL, ALTER "
                        "COLUMN TYPE a VARCHAR(10) NOT NULL -> VARCHAR(100)");
    free(s);
    /* applying the items to the old list gives the new one */
    cdc_error_t *err = NULL;
    cdc_type_t *r = cdc_schema_change_apply(c, b, &err);
    cr_assert_not_null(r, "%s", err ? err->message : "?");
    cr_expect(cdc_type_equals(r, a));
    cdc_type_destroy(r);
    cdc_type_destroy(a);
    cdc_type_destroy(b);
    cdc_schema_change_free(c);
}

Test(schema_change, diff_equal_lists_has_no_items)
{
    cdc_type_t *b = row("ROW<id INT, v STRING>");
    cdc_schema_change_t *c = cdc_schema_change_new("db.t", "", NULL);
    cdc_schema_change_set_columns(c, b, b);
    cdc_schema_change_diff(c, NULL, NULL);
    cr_expect_eq(c->nitems, 0);
    cdc_type_destroy(b);
    cdc_schema_change_free(c);
}

Test(schema_change, add_positions)
{
    cdc_type_t *b = row("ROW<id INT, v STRING>");
    cdc_type_t *a = row("ROW<first INT, id INT, mid INT, v STRING, last INT>");
    cdc_schema_change_t *c = cdc_schema_change_new("db.t", "", NULL);
    cdc_schema_change_set_columns(c, b, a);
    cdc_schema_change_diff(c, NULL, NULL);
    char *s = describe(c);
    cr_expect_str_eq(s, "ADD COLUMN first INT FIRST, ADD COLUMN mid INT AFTER id, ADD COLUMN last "
                        "INT");
    free(s);
    cdc_error_t *err = NULL;
    cdc_type_t *r = cdc_schema_change_apply(c, b, &err);
    cr_assert_not_null(r);
    expect_type(r, "ROW<first INT, id INT, mid INT, v STRING, last INT>");
    cdc_type_destroy(r);
    cdc_type_destroy(a);
    cdc_type_destroy(b);
    cdc_schema_change_free(c);
}

Test(schema_change, apply_errors_name_the_column)
{
    cdc_type_t *b = row("ROW<id INT, v STRING>");
    cdc_schema_change_t *c = cdc_schema_change_new("db.t", "", NULL);
    cdc_schema_change_add(c, CDC_SC_DROP_COLUMN, "nope", NULL, NULL, NULL, NULL);
    cdc_error_t *err = NULL;
    cr_expect_null(cdc_schema_change_apply(c, b, &err));
    cr_assert_not_null(err);
    cr_expect(strstr(err->message, "DROP COLUMN nope: the table has no such column") != NULL, "%s",
              err->message);
    cdc_error_destroy(err);
    cdc_schema_change_free(c);
    c = cdc_schema_change_new("db.t", "", NULL);
    cdc_schema_change_add(c, CDC_SC_ADD_COLUMN, "v", NULL, b->children[1], NULL, NULL);
    err = NULL;
    cr_expect_null(cdc_schema_change_apply(c, b, &err));
    cr_assert_not_null(err);
    cr_expect(strstr(err->message, "ADD COLUMN v: the table has that column already") != NULL);
    cdc_error_destroy(err);
    /* table items leave the columns alone; a copy is equal */
    cdc_schema_change_free(c);
    c = cdc_schema_change_new("db.t", "", "TRUNCATE t");
    cdc_schema_change_add(c, CDC_SC_TRUNCATE_TABLE, NULL, NULL, NULL, NULL, NULL);
    cdc_type_t *r = cdc_schema_change_apply(c, b, &err);
    cr_expect(cdc_type_equals(r, b));
    cdc_schema_change_t *d = cdc_schema_change_copy(c);
    char *s = describe(d);
    cr_expect_str_eq(s, "TRUNCATE TABLE");
    cr_expect_str_eq(d->ddl, "TRUNCATE t");
    free(s);
    cdc_schema_change_free(d);
    cdc_type_destroy(r);
    cdc_type_destroy(b);
    cdc_schema_change_free(c);
}

Test(schema_change, policies)
{
    cdc_sc_policy_t p;
    cr_expect_eq(cdc_sc_policy_parse("TRY_EVOLVE", &p), 0);
    cr_expect_eq(p, CDC_SC_TRY_EVOLVE);
    cr_expect_eq(cdc_sc_policy_parse("lenient", &p), 0);
    cr_expect_eq(p, CDC_SC_LENIENT);
    cr_expect_str_eq(cdc_sc_policy_name(CDC_SC_EXCEPTION), "exception");
    cr_expect_eq(cdc_sc_policy_parse("evolves", &p), -1);
    cr_expect_eq(cdc_sc_policy_parse(NULL, &p), -1);
}
