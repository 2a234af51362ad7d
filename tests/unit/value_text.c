/*
 * tests/unit/value_text.c — cdc_value_from_text: every scalar type under each
 * dialect (Flink's JSON text, CAST, PostgreSQL, MySQL) and modifier flag,
 * with the errors (not of the type, out of range, bad dates, too many
 * fraction digits).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "cdc_value_text.h"

static cdc_arena_t arena;
static cdc_type_t *types[8];
static int ntypes;

static void setup(void)
{
    cdc_arena_init(&arena);
    ntypes = 0;
}

static void teardown(void)
{
    for (int i = 0; i < ntypes; i++)
        cdc_type_destroy(types[i]);
    cdc_arena_free(&arena);
}

TestSuite(value_text, .init = setup, .fini = teardown);

static const cdc_type_t *ty(const char *text)
{
    cdc_error_t *err = NULL;
    cdc_type_t *t = cdc_type_parse(text, &err);
    cr_assert_not_null(t, "type %s", text);
    if (ntypes == 8) {
        for (int i = 0; i < ntypes; i++)
            cdc_type_destroy(types[i]);
        ntypes = 0;
    }
    types[ntypes++] = t;
    return t;
}

/* Converts s under flags; returns the status and leaves the value in *v and the reason in why. */
static int conv(const char *type, const char *s, unsigned flags, cdc_value_t *v, const char **why)
{
    *why = NULL;
    return cdc_value_from_text(ty(type), s, strlen(s), flags, &arena, v, why);
}

static int64_t days(int y, unsigned m, unsigned d)
{
    return cdc_days_from_civil(y, m, d);
}

Test(value_text, integers_with_range_checks)
{
    cdc_value_t v;
    const char *why;
    cr_assert_eq(conv("INT", " -42 ", 0, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.i, -42);
    cr_assert_eq(v.flags, 0);
    cr_assert_eq(conv("TINYINT", "127", 0, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(conv("TINYINT", "128", 0, &v, &why), CDC_TEXT_RANGE);
    cr_assert_str_eq(why, "integer out of range of the column type");
    cr_assert_eq(conv("SMALLINT", "-32769", 0, &v, &why), CDC_TEXT_RANGE);
    cr_assert_eq(conv("BIGINT", "-9223372036854775808", 0, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.i, INT64_MIN);
    cr_assert_eq(conv("BIGINT", "9223372036854775808", 0, &v, &why), CDC_TEXT_RANGE);
    cr_assert_str_eq(why, "integer out of range");
    cr_assert_eq(conv("INT", "1.5", 0, &v, &why), CDC_TEXT_BAD);
    cr_assert_str_eq(why, "not an integer");
    cr_assert_eq(conv("INT", "", 0, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("INT", "-", 0, &v, &why), CDC_TEXT_BAD);
    /* a number token is not trimmed; PostgreSQL's text neither */
    cr_assert_eq(conv("INT", " 1", CDC_TEXT_NUMBER, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("INT", " 1", CDC_TEXT_PG, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("INT", "+7", CDC_TEXT_PG, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.i, 7);
    /* CAST trims and checks the range */
    cr_assert_eq(conv("TINYINT", "\t-128\n", CDC_TEXT_CAST, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.i, -128);
    cr_assert_eq(conv("TINYINT", "-129", CDC_TEXT_CAST, &v, &why), CDC_TEXT_RANGE);
    /* MySQL: strtoll's rules, no range check of the column type */
    cr_assert_eq(conv("TINYINT", " 300", CDC_TEXT_MYSQL, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.i, 300);
    cr_assert_eq(conv("INT", "12x", CDC_TEXT_MYSQL, &v, &why), CDC_TEXT_BAD);
    cr_assert_str_eq(why, "not an integer of the column type");
}

Test(value_text, booleans_per_dialect)
{
    cdc_value_t v;
    const char *why;
    cr_assert_eq(conv("BOOLEAN", " TRUE ", 0, &v, &why), CDC_TEXT_OK);
    cr_assert(v.v.b);
    cr_assert_eq(conv("BOOLEAN", "false", 0, &v, &why), CDC_TEXT_OK);
    cr_assert(!v.v.b);
    cr_assert_eq(conv("BOOLEAN", "yes", 0, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("BOOLEAN", "1", CDC_TEXT_NUMBER, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("BOOLEAN", " Yes", CDC_TEXT_CAST, &v, &why), CDC_TEXT_OK);
    cr_assert(v.v.b);
    cr_assert_eq(conv("BOOLEAN", "n", CDC_TEXT_CAST, &v, &why), CDC_TEXT_OK);
    cr_assert(!v.v.b);
    cr_assert_eq(conv("BOOLEAN", "maybe", CDC_TEXT_CAST, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("BOOLEAN", "t", CDC_TEXT_PG, &v, &why), CDC_TEXT_OK);
    cr_assert(v.v.b);
    cr_assert_eq(conv("BOOLEAN", "0", CDC_TEXT_PG, &v, &why), CDC_TEXT_OK);
    cr_assert(!v.v.b);
    cr_assert_eq(conv("BOOLEAN", "true", CDC_TEXT_PG, &v, &why), CDC_TEXT_BAD);
    cr_assert_str_eq(why, "not a boolean");
    cr_assert_eq(conv("BOOLEAN", "0", CDC_TEXT_MYSQL, &v, &why), CDC_TEXT_OK);
    cr_assert(!v.v.b);
    cr_assert_eq(conv("BOOLEAN", "2", CDC_TEXT_MYSQL, &v, &why), CDC_TEXT_OK);
    cr_assert(v.v.b);
}

Test(value_text, floats)
{
    cdc_value_t v;
    const char *why;
    cr_assert_eq(conv("DOUBLE", " 1.5e3 ", 0, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.d, 1500.0);
    cr_assert_eq(conv("DOUBLE", "-Infinity", 0, &v, &why), CDC_TEXT_OK);
    cr_assert(isinf(v.v.d) && v.v.d < 0);
    cr_assert_eq(conv("FLOAT", "NaN", 0, &v, &why), CDC_TEXT_OK);
    cr_assert(isnan(v.v.f));
    cr_assert_eq(conv("DOUBLE", "0x10", 0, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("DOUBLE", "1e999", 0, &v, &why), CDC_TEXT_OK); /* Java: Infinity */
    cr_assert(isinf(v.v.d));
    cr_assert_eq(conv("FLOAT", "0.1", CDC_TEXT_NUMBER, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.f, 0.1f);
    /* CAST: case-insensitive specials, only number characters */
    cr_assert_eq(conv("DOUBLE", " -infinity ", CDC_TEXT_CAST, &v, &why), CDC_TEXT_OK);
    cr_assert(isinf(v.v.d));
    cr_assert_eq(conv("DOUBLE", "inf", CDC_TEXT_CAST, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("FLOAT", "3.4e39", CDC_TEXT_CAST, &v, &why), CDC_TEXT_OK);
    cr_assert(isinf(v.v.f));
    /* PostgreSQL: whatever strtod reads wholly, below 64 bytes */
    cr_assert_eq(conv("DOUBLE", "Infinity", CDC_TEXT_PG, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(conv("DOUBLE", "1.5 ", CDC_TEXT_PG, &v, &why), CDC_TEXT_BAD);
    cr_assert_str_eq(why, "not a floating-point number");
    cr_assert_eq(conv("DOUBLE", "", CDC_TEXT_MYSQL, &v, &why), CDC_TEXT_BAD);
    cr_assert_str_eq(why, "not a number");
    cr_assert_eq(conv("FLOAT", "-2.25", CDC_TEXT_MYSQL, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.f, -2.25f);
}

Test(value_text, decimals_with_precision_and_scale)
{
    cdc_value_t v;
    const char *why;
    cr_assert_eq(conv("DECIMAL(5, 2)", " 3.14159 ", 0, &v, &why), CDC_TEXT_OK);
    cr_assert(v.v.dec == 314);
    cr_assert_eq(conv("DECIMAL(5, 2)", "2.005", 0, &v, &why), CDC_TEXT_OK); /* HALF_UP */
    cr_assert(v.v.dec == 201);
    cr_assert_eq(conv("DECIMAL(5, 2)", "1234", 0, &v, &why), CDC_TEXT_RANGE);
    cr_assert_eq(conv("DECIMAL(5, 2)", "1e2", 0, &v, &why), CDC_TEXT_OK);
    cr_assert(v.v.dec == 10000);
    cr_assert_eq(conv("DECIMAL(38, 0)", "1e40", 0, &v, &why), CDC_TEXT_RANGE);
    cr_assert_eq(conv("DECIMAL(5, 2)", "abc", 0, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("DECIMAL(5, 2)", " 1.5", CDC_TEXT_CAST, &v, &why), CDC_TEXT_OK);
    cr_assert(v.v.dec == 150);
    cr_assert_eq(conv("DECIMAL(5, 2)", "NaN", CDC_TEXT_PG, &v, &why), CDC_TEXT_BAD);
    cr_assert_str_eq(why, "NaN has no DECIMAL value");
    cr_assert_eq(conv("DECIMAL(5, 2)", "9999", CDC_TEXT_PG, &v, &why), CDC_TEXT_BAD);
    cr_assert_str_eq(why, "not a decimal of the column's precision");
    cr_assert_eq(conv("DECIMAL(5, 2)", "x", CDC_TEXT_MYSQL, &v, &why), CDC_TEXT_BAD);
    cr_assert_str_eq(why, "not a decimal of the column type");
}

Test(value_text, strings_and_bytes)
{
    cdc_value_t v;
    const char *why;
    const char *s = "héllo";
    cr_assert_eq(cdc_value_from_text(ty("STRING"), s, strlen(s), 0, &arena, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.s.ptr, s); /* referenced */
    cr_assert_eq(cdc_value_from_text(ty("STRING"), s, strlen(s), CDC_TEXT_COPY, &arena, &v, &why),
                 CDC_TEXT_OK);
    cr_assert(v.v.s.ptr != s && v.v.s.len == strlen(s) && memcmp(v.v.s.ptr, s, v.v.s.len) == 0);
    cr_assert_eq(conv("BYTES", "AQID", 0, &v, &why), CDC_TEXT_OK);
    cr_assert(v.v.s.len == 3 && memcmp(v.v.s.ptr, "\1\2\3", 3) == 0);
    cr_assert_eq(conv("BYTES", "AQ==", 0, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.s.len, 1);
    cr_assert_eq(conv("BYTES", "A!", 0, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("BYTES", "\\x0aFF", CDC_TEXT_PG, &v, &why), CDC_TEXT_OK);
    cr_assert(v.v.s.len == 2 && memcmp(v.v.s.ptr, "\x0a\xff", 2) == 0);
    cr_assert_eq(conv("BYTES", "0aff", CDC_TEXT_PG, &v, &why), CDC_TEXT_BAD);
    cr_assert_str_eq(why, "not a hex bytea (bytea_output must be hex)");
    cr_assert_eq(conv("BYTES", "\\x0g", CDC_TEXT_PG, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("BYTES", "raw", CDC_TEXT_MYSQL | CDC_TEXT_COPY, &v, &why), CDC_TEXT_OK);
    cr_assert(v.v.s.len == 3 && memcmp(v.v.s.ptr, "raw", 3) == 0);
}

Test(value_text, dates)
{
    cdc_value_t v;
    const char *why;
    cr_assert_eq(conv("DATE", "2020-07-30", 0, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.i, days(2020, 7, 30));
    cr_assert_eq(conv("DATE", "2021-02-29", 0, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("DATE", " 2020-07-30", 0, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("DATE", "20200730", CDC_TEXT_NUMBER, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("DATE", " 2020-07-30 ", CDC_TEXT_CAST, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.i, days(2020, 7, 30));
    /* PostgreSQL: BC years, infinity refused */
    cr_assert_eq(conv("DATE", "0044-03-15 BC", CDC_TEXT_PG, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.i, days(-43, 3, 15));
    cr_assert_eq(conv("DATE", "infinity", CDC_TEXT_PG, &v, &why), CDC_TEXT_BAD);
    cr_assert_str_eq(why, "an infinite date has no DATE value");
    cr_assert_eq(conv("DATE", "2020-13-01", CDC_TEXT_PG, &v, &why), CDC_TEXT_BAD);
    cr_assert_str_eq(why, "not a date");
    /* MySQL: zero and partial dates are NULL */
    cr_assert_eq(conv("DATE", "0000-00-00", CDC_TEXT_MYSQL, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.flags, CDC_V_NULL);
    cr_assert_eq(conv("DATE", "2020-00-10", CDC_TEXT_MYSQL, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.flags, CDC_V_NULL);
    cr_assert_eq(conv("DATE", "2020-07-30", CDC_TEXT_MYSQL, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.flags, 0);
}

Test(value_text, times_with_fractions)
{
    cdc_value_t v;
    const char *why;
    cr_assert_eq(conv("TIME(3)", "10:08:22.123456", 0, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.i, (10 * 3600 + 8 * 60 + 22) * 1000000000LL + 123000000LL);
    cr_assert_eq(conv("TIME(0)", "25:00:00", 0, &v, &why), CDC_TEXT_BAD);
    /* digits past the ninth are dropped, as past the precision */
    cr_assert_eq(conv("TIME(9)", "00:00:00.1234567891", 0, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.i, 123456789);
    cr_assert_eq(conv("TIME(3)", "10:08:22.", 0, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("TIME(0)", " 10:08 ", CDC_TEXT_CAST, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.i, (10 * 3600 + 8 * 60) * 1000000000LL);
    /* PostgreSQL: 24:00:00 and every fraction digit kept */
    cr_assert_eq(conv("TIME(0)", "24:00:00", CDC_TEXT_PG, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.i, 86400 * 1000000000LL);
    cr_assert_eq(conv("TIME(0)", "00:00:00.5", CDC_TEXT_PG, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.i, 500000000LL);
    cr_assert_eq(conv("TIME(6)", "24:00:01", CDC_TEXT_PG, &v, &why), CDC_TEXT_BAD);
    cr_assert_str_eq(why, "not a time");
    cr_assert_eq(conv("TIME(6)", "00:00:00.0123456789", CDC_TEXT_PG, &v, &why), CDC_TEXT_BAD);
    /* MySQL: fractions to 9 digits whatever the column's precision */
    cr_assert_eq(conv("TIME(0)", "01:02:03.5", CDC_TEXT_MYSQL, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.i, 3723 * 1000000000LL + 500000000LL);
}

Test(value_text, timestamps_per_standard)
{
    cdc_value_t v;
    const char *why;
    int64_t base = days(2020, 7, 30) * 86400000LL + (10 * 3600 + 8 * 60 + 22) * 1000LL;
    cr_assert_eq(conv("TIMESTAMP(3)", "2020-07-30 10:08:22.123", 0, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.ts.millis, base + 123);
    cr_assert_eq(conv("TIMESTAMP(3)", "2020-07-30T10:08:22.123", 0, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("TIMESTAMP(3)", "2020-07-30T10:08:22.123", CDC_TEXT_ISO8601, &v, &why),
                 CDC_TEXT_OK);
    cr_assert_eq(v.v.ts.millis, base + 123);
    cr_assert_eq(conv("TIMESTAMP(3)", "2020-07-30 10:08:22", CDC_TEXT_ISO8601, &v, &why),
                 CDC_TEXT_BAD);
    cr_assert_eq(conv("TIMESTAMP(9)", "2020-07-30 10:08:22.123456789", 0, &v, &why), CDC_TEXT_OK);
    cr_assert(v.v.ts.millis == base + 123 && v.v.ts.nanos == 456789);
    cr_assert_eq(conv("TIMESTAMP(3)", "2020-07-30 10:08:22.", 0, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("TIMESTAMP(0)", "2020-07-30 10:08", 0, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(conv("TIMESTAMP(0)", "2020-02-30 10:08:22", 0, &v, &why), CDC_TEXT_BAD);
    /* TIMESTAMP_LTZ text ends with Z */
    cr_assert_eq(conv("TIMESTAMP_LTZ(3)", "2020-07-30 10:08:22Z", 0, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.ts.millis, base);
    cr_assert_eq(conv("TIMESTAMP_LTZ(3)", "2020-07-30 10:08:22", 0, &v, &why), CDC_TEXT_BAD);
    /* CAST: a zone on TIMESTAMP_LTZ only */
    cr_assert_eq(conv("TIMESTAMP_LTZ(3)", " 2020-07-30 12:08:22+02:00 ", CDC_TEXT_CAST, &v, &why),
                 CDC_TEXT_OK);
    cr_assert_eq(v.v.ts.millis, base);
    cr_assert_eq(conv("TIMESTAMP(3)", "2020-07-30 12:08:22+02:00", CDC_TEXT_CAST, &v, &why),
                 CDC_TEXT_BAD);
    /* PostgreSQL: offsets on timestamptz only */
    cr_assert_eq(conv("TIMESTAMP_LTZ(6)", "2020-07-30 12:08:22+02", CDC_TEXT_PG | CDC_TEXT_PG_ZONED,
                      &v, &why),
                 CDC_TEXT_OK);
    cr_assert_eq(v.v.ts.millis, base);
    cr_assert_eq(conv("TIMESTAMP(6)", "2020-07-30 12:08:22+02", CDC_TEXT_PG, &v, &why),
                 CDC_TEXT_BAD);
    cr_assert_str_eq(why, "a zone offset in a timestamp without time zone");
    cr_assert_eq(
        conv("TIMESTAMP_LTZ(6)", "2020-07-30 10:08:22", CDC_TEXT_PG | CDC_TEXT_PG_ZONED, &v, &why),
        CDC_TEXT_BAD);
    cr_assert_str_eq(why, "a timestamp with time zone without an offset");
    cr_assert_eq(conv("TIMESTAMP(6)", "-infinity", CDC_TEXT_PG, &v, &why), CDC_TEXT_BAD);
    cr_assert_str_eq(why, "an infinite timestamp has no TIMESTAMP value");
    /* MySQL: zero dates are NULL */
    cr_assert_eq(conv("TIMESTAMP(0)", "0000-00-00 00:00:00", CDC_TEXT_MYSQL, &v, &why),
                 CDC_TEXT_OK);
    cr_assert_eq(v.flags, CDC_V_NULL);
    cr_assert_eq(conv("TIMESTAMP(0)", "2020-07-30 10:08:22.5", CDC_TEXT_MYSQL, &v, &why),
                 CDC_TEXT_OK);
    cr_assert(v.flags == 0 && v.v.ts.millis == base + 500);
}

Test(value_text, number_tokens_and_containers)
{
    cdc_value_t v;
    const char *why;
    cr_assert_eq(conv("STRING", "12.5", CDC_TEXT_NUMBER, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.s.len, 4);
    cr_assert_eq(conv("TIMESTAMP(3)", "12", CDC_TEXT_NUMBER, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("BYTES", "12", CDC_TEXT_NUMBER, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("ARRAY<INT>", "[1]", 0, &v, &why), CDC_TEXT_BAD);
    cr_assert_str_eq(why, "no conversion to the column type");
}

/* cdc_value_to_text of v (type text), compared with want. */
static void to_text(const char *type, const cdc_value_t *v, unsigned flags, const char *want)
{
    char buf[CDC_VALUE_TEXT_MAX];
    int n = cdc_value_to_text(v, ty(type), flags, buf);
    cr_assert_eq(n, (int)strlen(want), "%s: \"%s\"", type, buf);
    cr_assert_str_eq(buf, want);
}

Test(value_text, to_text_for_sinks_and_casts)
{
    cdc_value_t v = {0};
    v.v.b = true;
    to_text("BOOLEAN", &v, 0, "true");
    v.v.i = INT64_MIN;
    to_text("BIGINT", &v, 0, "-9223372036854775808");
    v.v.d = 0.1;
    to_text("DOUBLE", &v, 0, "0.1");
    v.v.f = 1e10f;
    to_text("FLOAT", &v, 0, "1.0E10");
    v.v.dec = -150;
    to_text("DECIMAL(5, 2)", &v, 0, "-1.50");
    v.v.i = days(2020, 7, 30);
    to_text("DATE", &v, 0, "2020-07-30");
    v.v.i = days(-43, 3, 15);
    to_text("DATE", &v, 0, "-0043-03-15");
    v.v.i = (10 * 3600 + 8 * 60 + 22) * 1000000000LL + 120000000LL;
    to_text("TIME(3)", &v, 0, "10:08:22.120");
    to_text("TIME(0)", &v, 0, "10:08:22");
    to_text("TIME(3)", &v, CDC_TEXT_SHORT_FRACTION, "10:08:22.12");
    v.v.i = 838 * 3600 * 1000000000LL; /* MySQL durations */
    to_text("TIME(0)", &v, 0, "838:00:00");
    v.v.i = -(3723 * 1000000000LL);
    to_text("TIME(0)", &v, 0, "-01:02:03");
    v.v.ts.millis = days(2020, 7, 30) * 86400000LL + 22 * 1000 + 5;
    v.v.ts.nanos = 0;
    to_text("TIMESTAMP(3)", &v, 0, "2020-07-30 00:00:22.005");
    to_text("TIMESTAMP(3)", &v, CDC_TEXT_ISO8601, "2020-07-30T00:00:22.005");
    to_text("TIMESTAMP_LTZ(6)", &v, CDC_TEXT_ISO8601 | CDC_TEXT_SHORT_FRACTION,
            "2020-07-30T00:00:22.005Z");
    v.v.ts.millis = -1; /* before the epoch: the day before */
    to_text("TIMESTAMP(3)", &v, 0, "1969-12-31 23:59:59.999");
    char buf[CDC_VALUE_TEXT_MAX];
    cr_assert_eq(cdc_value_to_text(&v, ty("STRING"), 0, buf), -1);
    cr_assert_eq(cdc_value_to_text(&v, ty("ARRAY<INT>"), 0, buf), -1);
}

/* What cdc_value_to_text writes, cdc_value_from_text reads back. */
Test(value_text, round_trips)
{
    const char *cases[][2] = {
        {"DECIMAL(10, 3)", "-1234567.125"},
        {"DATE", "1999-12-31"},
        {"TIME(6)", "23:59:59.000001"},
        {"TIMESTAMP(9)", "2000-02-29 12:00:00.123456789"},
        {"BIGINT", "42"},
        {"BOOLEAN", "false"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cdc_value_t v;
        const char *why;
        cr_assert_eq(conv(cases[i][0], cases[i][1], 0, &v, &why), CDC_TEXT_OK, "%s", cases[i][1]);
        to_text(cases[i][0], &v, 0, cases[i][1]);
    }
}

Test(value_text, jdbc_cells)
{
    cdc_value_t v;
    const char *why;
    unsigned j = CDC_TEXT_JDBC | CDC_TEXT_COPY;
    cr_assert_eq(conv("BOOLEAN", "TRUE", j, &v, &why), CDC_TEXT_OK);
    cr_assert(v.v.b);
    cr_assert_eq(conv("BOOLEAN", "F", j, &v, &why), CDC_TEXT_OK);
    cr_assert(!v.v.b);
    cr_assert_eq(conv("BOOLEAN", "yes", j, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("INT", "3.0", j, &v, &why), CDC_TEXT_OK); /* a REAL holding an integer */
    cr_assert_eq(v.v.i, 3);
    cr_assert_eq(conv("INT", "3.5", j, &v, &why), CDC_TEXT_BAD);
    cr_assert_eq(conv("DOUBLE", "-inf", j, &v, &why), CDC_TEXT_OK);
    cr_assert(isinf(v.v.d) && v.v.d < 0);
    cr_assert_eq(conv("DOUBLE", "1.5x", j, &v, &why), CDC_TEXT_BAD);
    int64_t base = days(2020, 7, 30) * 86400000LL + (10 * 3600 + 8 * 60 + 22) * 1000LL;
    cr_assert_eq(conv("TIMESTAMP_LTZ(3)", "2020-07-30 12:08:22+02", j, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.ts.millis, base);
    cr_assert_eq(conv("TIMESTAMP(3)", "2020-07-30 10:08:22", j, &v, &why), CDC_TEXT_OK);
    cr_assert_eq(v.v.ts.millis, base);
    cr_assert_eq(conv("BYTES", "raw", j, &v, &why), CDC_TEXT_OK);
    cr_assert(v.v.s.len == 3 && memcmp(v.v.s.ptr, "raw", 3) == 0);
}

/* The inline fast path (up to 18 digits) and the slow path (19 and more) agree at the seam. */
Test(value_text, parse_i64_fast_and_slow_paths)
{
    static const struct {
        const char *s;
        int rc;
        int64_t v;
    } cases[] = {
        {"0", 0, 0},
        {"-0", 0, 0},
        {"+7", 0, 7},
        {"999999999999999999", 0, 999999999999999999LL},   /* 18 digits: inline */
        {"-999999999999999999", 0, -999999999999999999LL}, /* 18 digits: inline */
        {"1000000000000000000", 0, 1000000000000000000LL}, /* 19 digits: slow */
        {"9223372036854775807", 0, INT64_MAX},
        {"-9223372036854775808", 0, INT64_MIN},
        {"9223372036854775808", -2, 0},
        {"-9223372036854775809", -2, 0},
        {"00000000000000000000000001", 0, 1},
        {"", -1, 0},
        {"-", -1, 0},
        {"+", -1, 0},
        {"12a", -1, 0},
        {" 1", -1, 0},
        {"1234567890123456789x", -1, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int64_t v = 0;
        int rc = cdc_text_parse_i64(cases[i].s, strlen(cases[i].s), &v);
        cr_expect_eq(rc, cases[i].rc, "\"%s\": rc %d", cases[i].s, rc);
        if (rc == 0)
            cr_expect_eq(v, cases[i].v, "\"%s\": %lld", cases[i].s, (long long)v);
    }
}

/* regress_json_exponent_integers (issue 18, 5): a number token whose value is an integer is one
   for the integer types however it is written (Flink reads 1e2 as 100); a fraction is not */
Test(value_text, number_tokens_written_with_exponent_or_fraction)
{
    static const struct {
        const char *type, *s;
        int rc;
        int64_t v;
    } cases[] = {
        {"BIGINT", "1e2", CDC_TEXT_OK, 100},
        {"BIGINT", "1E+2", CDC_TEXT_OK, 100},
        {"BIGINT", "100.0", CDC_TEXT_OK, 100},
        {"BIGINT", "100e-2", CDC_TEXT_OK, 1},
        {"BIGINT", "-2.5e1", CDC_TEXT_OK, -25},
        {"BIGINT", "0.0e99", CDC_TEXT_OK, 0},
        {"BIGINT", "-0e0", CDC_TEXT_OK, 0},
        {"BIGINT", "9.223372036854775807e18", CDC_TEXT_OK, INT64_MAX},
        {"BIGINT", "-9.223372036854775808e18", CDC_TEXT_OK, INT64_MIN},
        {"BIGINT", "9.223372036854775808e18", CDC_TEXT_RANGE, 0},
        {"BIGINT", "1e400", CDC_TEXT_RANGE, 0},
        {"BIGINT", "1.5", CDC_TEXT_BAD, 0},
        {"BIGINT", "1e-1", CDC_TEXT_BAD, 0},
        {"BIGINT", "1.0000000000000000000000000001", CDC_TEXT_BAD, 0},
        {"INT", "3e9", CDC_TEXT_RANGE, 0},
        {"TINYINT", "1.27e2", CDC_TEXT_OK, 127},
        {"TINYINT", "1.28e2", CDC_TEXT_RANGE, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cdc_value_t v;
        const char *why;
        int rc = conv(cases[i].type, cases[i].s, CDC_TEXT_NUMBER, &v, &why);
        cr_expect_eq(rc, cases[i].rc, "%s %s: rc %d (%s)", cases[i].type, cases[i].s, rc,
                     why ? why : "");
        if (rc == CDC_TEXT_OK)
            cr_expect_eq(v.v.i, cases[i].v, "%s %s: %lld", cases[i].type, cases[i].s,
                         (long long)v.v.i);
    }
    /* only number tokens: as text, "1e2" is no integer (CAST and the string forms stay strict) */
    cdc_value_t v;
    const char *why;
    cr_expect_eq(conv("BIGINT", "1e2", 0, &v, &why), CDC_TEXT_BAD);
    cr_expect_eq(conv("BIGINT", "1e2", CDC_TEXT_CAST, &v, &why), CDC_TEXT_BAD);
}

/* Debezium's binary.handling.mode: every mode on every remainder length (0, 1, 2 mod 3) */
Test(value_text, bytes_to_text_per_binary_mode)
{
    static const struct {
        cdc_binary_mode_t mode;
        const char *in, *out;
    } cases[] = {
        {CDC_BINARY_HEX, "", ""},
        {CDC_BINARY_HEX, "\x01\xfb\x00", "01fb00"},
        {CDC_BINARY_BASE64, "\xfb\xff", "+/8="},
        {CDC_BINARY_BASE64, "\xfb\xef\xbe", "++++"},
        {CDC_BINARY_BASE64, "\x00", "AA=="},
        {CDC_BINARY_BASE64_URL, "\xfb\xff", "-_8="},
        {CDC_BINARY_BASE64_URL, "\xfb\xef\xbe\x41", "----QQ=="},
        {CDC_BINARY_BYTES, "\x01\x02", "\x01\x02"},
    };
    cdc_arena_t arena;
    cdc_arena_init(&arena);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cdc_str_t out;
        size_t n = i == 1 ? 3 : strlen(cases[i].in); /* (case 1 holds a 0x00) */
        if (i == 4)
            n = 1;
        cdc_text_bytes_to_text(&arena, cases[i].mode, (const unsigned char *)cases[i].in, n, &out);
        cr_expect_eq(out.len, strlen(cases[i].out), "case %zu: length %u", i, out.len);
        cr_expect(memcmp(out.ptr, cases[i].out, out.len) == 0, "case %zu: %.*s", i, (int)out.len,
                  out.ptr);
    }
    cr_expect_str_eq(cdc_binary_modes[CDC_BINARY_BASE64_URL], "base64-url-safe");
    cdc_arena_free(&arena);
}
