/*
 * tests/unit/types.c — logical types: SQL text parse/print round trips and
 * errors that name the position.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_types.h"

static void roundtrip(const char *in, const char *expected)
{
    cdc_error_t *err = NULL;
    cdc_type_t *t = cdc_type_parse(in, &err);
    cr_assert_not_null(t, "parse of \"%s\" failed: %s", in, err ? err->message : "?");
    char *s = cdc_type_to_string(t);
    cr_expect_str_eq(s, expected, "\"%s\" printed as \"%s\"", in, s);
    /* the printed text parses back to an equal type */
    cdc_type_t *t2 = cdc_type_parse(s, &err);
    cr_assert_not_null(t2, "reparse of \"%s\" failed", s);
    cr_expect(cdc_type_equals(t, t2), "\"%s\" does not round-trip", s);
    free(s);
    cdc_type_destroy(t);
    cdc_type_destroy(t2);
}

Test(types, scalars)
{
    roundtrip("BOOLEAN", "BOOLEAN");
    roundtrip("tinyint", "TINYINT");
    roundtrip("SMALLINT", "SMALLINT");
    roundtrip("INT", "INT");
    roundtrip("INTEGER", "INT");
    roundtrip("BIGINT", "BIGINT");
    roundtrip("FLOAT", "FLOAT");
    roundtrip("DOUBLE", "DOUBLE");
    roundtrip("DOUBLE PRECISION", "DOUBLE");
    roundtrip("DATE", "DATE");
}

Test(types, sized)
{
    roundtrip("DECIMAL", "DECIMAL(10, 0)");
    roundtrip("DECIMAL(5)", "DECIMAL(5, 0)");
    roundtrip("DECIMAL(10,2)", "DECIMAL(10, 2)");
    roundtrip("NUMERIC(38, 38)", "DECIMAL(38, 38)");
    roundtrip("DEC(1, 0)", "DECIMAL(1, 0)");
    roundtrip("CHAR", "CHAR(1)");
    roundtrip("CHAR(10)", "CHAR(10)");
    roundtrip("VARCHAR(255)", "VARCHAR(255)");
    roundtrip("VARCHAR(2147483647)", "STRING");
    roundtrip("STRING", "STRING");
    roundtrip("BINARY(16)", "BINARY(16)");
    roundtrip("VARBINARY(8)", "VARBINARY(8)");
    roundtrip("BYTES", "BYTES");
    roundtrip("TIME", "TIME(0)");
    roundtrip("TIME(3)", "TIME(3)");
    roundtrip("TIMESTAMP", "TIMESTAMP(6)");
    roundtrip("TIMESTAMP(3)", "TIMESTAMP(3)");
    roundtrip("TIMESTAMP(9) WITHOUT TIME ZONE", "TIMESTAMP(9)");
    roundtrip("TIMESTAMP_LTZ(3)", "TIMESTAMP_LTZ(3)");
    roundtrip("TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP_LTZ(3)");
    roundtrip("TIMESTAMP WITH LOCAL TIME ZONE", "TIMESTAMP_LTZ(6)");
}

Test(types, nested_and_nullability)
{
    roundtrip("INT NOT NULL", "INT NOT NULL");
    roundtrip("STRING NULL", "STRING");
    roundtrip("ARRAY<INT>", "ARRAY<INT>");
    roundtrip("ARRAY<INT NOT NULL> NOT NULL", "ARRAY<INT NOT NULL> NOT NULL");
    roundtrip("MAP<STRING, BIGINT>", "MAP<STRING, BIGINT>");
    roundtrip("ROW<a INT, b STRING>", "ROW<a INT, b STRING>");
    roundtrip("ROW(a INT, b ARRAY<ROW<c DECIMAL(5, 2) NOT NULL>>)",
              "ROW<a INT, b ARRAY<ROW<c DECIMAL(5, 2) NOT NULL>>>");
    roundtrip("ROW<`my field` INT, `a``b` STRING>", "ROW<`my field` INT, `a``b` STRING>");
    roundtrip("ROW<a INT 'the comment'>", "ROW<a INT>");
    roundtrip("MAP<STRING, ARRAY<MAP<INT, TIMESTAMP_LTZ(3)>>>",
              "MAP<STRING, ARRAY<MAP<INT, TIMESTAMP_LTZ(3)>>>");
    roundtrip("ROW<>", "ROW<>");
}

static void bad(const char *in, const char *msg)
{
    cdc_error_t *err = NULL;
    cdc_type_t *t = cdc_type_parse(in, &err);
    cr_assert_null(t, "\"%s\" should not parse", in);
    cr_assert_not_null(err);
    cr_expect_str_eq(err->message, msg);
    cdc_error_destroy(err);
}

Test(types, errors_name_the_column)
{
    bad("", "invalid data type at column 1: expected a data type, found end of input");
    bad("INTT", "invalid data type at column 1: expected a data type, found \"INTT\"");
    bad("DECIMAL(39, 2)",
        "invalid data type at column 9: decimal precision must be between 1 and 38, found 39");
    bad("DECIMAL(5, 6)", "invalid data type at column 12: decimal scale must be between 0 and "
                         "the precision 5, found 6");
    bad("VARCHAR(0)",
        "invalid data type at column 9: a length must be between 1 and 2147483647, found 0");
    bad("TIMESTAMP(10)",
        "invalid data type at column 11: a precision must be between 0 and 9, found 10");
    bad("ARRAY<INT", "invalid data type at column 10: expected \">\", found end of input");
    bad("MAP<INT>", "invalid data type at column 8: expected \",\", found \">\"");
    bad("ROW<a INT b INT>", "invalid data type at column 11: expected \",\" or \">\", found \"b\"");
    bad("ROW<a INT, a STRING>", "invalid data type at column 12: duplicate field name \"a\"");
    bad("INT NOT", "invalid data type at column 8: expected \"NULL\", found end of input");
    bad("INT extra", "invalid data type at column 5: expected end of type, found \"extra\"");
    bad("TIMESTAMP(3) WITH TIME ZONE",
        "invalid data type at column 19: expected \"LOCAL TIME ZONE\", found \"TIME\"");
    bad("ROW<`a INT>", "invalid data type at column 5: unterminated quoted name");
}

Test(types, error_detail_has_caret)
{
    cdc_error_t *err = NULL;
    cr_assert_null(cdc_type_parse("MAP<INT>", &err));
    cr_expect_str_eq(err->detail, "MAP<INT>\n       ^");
    cdc_error_destroy(err);
}

Test(types, deep_nesting_is_refused)
{
    char buf[2048] = "";
    for (int i = 0; i < 100; i++)
        strcat(buf, "ARRAY<");
    strcat(buf, "INT");
    for (int i = 0; i < 100; i++)
        strcat(buf, ">");
    cdc_error_t *err = NULL;
    cr_expect_null(cdc_type_parse(buf, &err));
    cr_expect_not_null(err);
    cdc_error_destroy(err);
}

Test(types, builders_and_lookup)
{
    cdc_type_t *row = cdc_type_new_row();
    cdc_type_row_add(row, "id", cdc_type_new(CDC_T_INT));
    cdc_type_row_add(row, "tags", cdc_type_new_array(cdc_type_new_sized(CDC_T_VARCHAR, 10)));
    cdc_type_row_add(row, "m",
                     cdc_type_new_map(cdc_type_new(CDC_T_INT), cdc_type_new_decimal(4, 1)));
    char *s = cdc_type_to_string(row);
    cr_expect_str_eq(s, "ROW<id INT, tags ARRAY<VARCHAR(10)>, m MAP<INT, DECIMAL(4, 1)>>");
    cr_expect_eq(cdc_type_field_index(row, "tags"), 1);
    cr_expect_eq(cdc_type_field_index(row, "nope"), -1);
    cdc_type_t *copy = cdc_type_copy(row);
    cr_expect(cdc_type_equals(row, copy));
    copy->children[0]->nullable = false;
    cr_expect_not(cdc_type_equals(row, copy));
    free(s);
    cdc_type_destroy(row);
    cdc_type_destroy(copy);
}

Test(types, postfix_array_and_multiset)
{
    roundtrip("INT ARRAY", "ARRAY<INT>");
    roundtrip("STRING ARRAY ARRAY NOT NULL", "ARRAY<ARRAY<STRING>> NOT NULL");
    roundtrip("ROW<a BIGINT ARRAY>", "ROW<a ARRAY<BIGINT>>");
    roundtrip("INT MULTISET", "MULTISET<INT>");
    roundtrip("MULTISET<STRING NOT NULL> NOT NULL", "MULTISET<STRING NOT NULL> NOT NULL");
    roundtrip("INT MULTISET ARRAY", "ARRAY<MULTISET<INT>>");
    roundtrip("ROW<a MULTISET<MAP<STRING, INT>>>", "ROW<a MULTISET<MAP<STRING, INT>>>");
    bad("MULTISET<INT, INT>", "invalid data type at column 13: expected \">\", found \",\"");
    bad("MULTISET INT", "invalid data type at column 10: expected \"<\", found \"INT\"");
}

Test(types, multiset_is_map_like)
{
    cdc_error_t *err = NULL;
    cdc_type_t *m = cdc_type_parse("MULTISET<STRING>", &err);
    cdc_type_t *map = cdc_type_parse("MAP<STRING, INT NOT NULL>", &err);
    cdc_type_t *arr = cdc_type_parse("ARRAY<INT MULTISET>", &err);
    cr_assert(m && map && arr);
    cr_expect(cdc_type_is_map_like(m) && cdc_type_is_map_like(map));
    cr_expect_not(cdc_type_is_map_like(arr));
    cr_expect(cdc_type_equals(cdc_type_map_value(m), map->children[1]));
    cr_expect(cdc_type_contains(arr, CDC_T_MULTISET));
    cr_expect_not(cdc_type_contains(map, CDC_T_MULTISET));
    cr_expect_not(cdc_type_equals(m, map));
    cdc_type_destroy(m);
    cdc_type_destroy(map);
    cdc_type_destroy(arr);
}
