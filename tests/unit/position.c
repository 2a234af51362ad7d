/*
 * tests/unit/position.c — position tokens (cdc_position.h): keys escaped,
 * records round-tripped through the lines, the errors for tokens that
 * cannot be read.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "cdc_position.h"

Test(position, key_part_escapes_whitespace_percent_and_slash)
{
    cdc_buf_t b = {0};
    cdc_position_key_part(&b, "a b\tc/d%e\nf^(x)\\.y$");
    cr_expect_str_eq(cdc_buf_cstr(&b), "a%20b%09c%2Fd%25e%0Af^(x)\\.y$");
    cdc_buf_free(&b);
}

Test(position, put_then_get_round_trip)
{
    const char *rec = "cdcflow test position v1\nfile.000001\t120\nrange\tdb.t\t\\N\t5\t\n";
    cdc_buf_t lines = {0}, got = {0};
    cdc_buf_puts(&lines, "other/key\t12\n");
    cdc_position_put(&lines, "test/k/0", rec, strlen(rec));
    cdc_position_put(&lines, "test/k/00", "x", 1);
    const char *tab = strchr(strstr(cdc_buf_cstr(&lines), "test/k/0\t"), '\t');
    size_t toklen = strcspn(tab + 1, "\n");
    cr_expect(memchr(tab + 1, ' ', toklen) == NULL && memchr(tab + 1, '\t', toklen) == NULL,
              "no whitespace in the token");
    cdc_error_t *err = NULL;
    cr_assert_eq(
        cdc_position_get(lines.data, lines.len, "test/k/0", "cdcflow test position v1", &got, &err),
        1);
    cr_expect_str_eq(cdc_buf_cstr(&got), rec);
    cr_expect_eq(
        cdc_position_get(lines.data, lines.len, "test/k", "cdcflow test position v1", &got, &err),
        0, "a key that is a prefix of another is not it");
    cr_expect_eq(cdc_position_get(NULL, 0, "test/k/0", "m", &got, &err), 0);
    cr_expect_null(err);
    cdc_buf_free(&lines);
    cdc_buf_free(&got);
}

Test(position, unreadable_tokens_are_errors_naming_the_key)
{
    cdc_buf_t got = {0}, lines = {0};
    cdc_error_t *err = NULL;
    const char *bad = "mysql-cdc/h:1/x/0\tnot*base64!\n";
    cr_assert_eq(cdc_position_get(bad, strlen(bad), "mysql-cdc/h:1/x/0", "m v1", &got, &err), -1);
    cr_assert_not_null(err);
    cr_expect_str_eq(err->message,
                     "the stored position of \"mysql-cdc/h:1/x/0\" cannot be read: it is not "
                     "base64 text");
    cr_expect(strstr(err->hint, "delete the job's state directory") != NULL);
    cdc_error_destroy(err);
    err = NULL;
    cdc_position_put(&lines, "k", "m v2\nwhatever", 13); /* another version's record */
    cr_assert_eq(cdc_position_get(lines.data, lines.len, "k", "m v1", &got, &err), -1);
    cr_expect_str_eq(err->message, "the stored position of \"k\" cannot be read: it is not a "
                                   "position record of this version");
    cdc_error_destroy(err);
    cdc_buf_free(&lines);
    cdc_buf_free(&got);
}
