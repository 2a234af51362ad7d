/*
 * tests/unit/row.c — the print format (every rule of DESIGN.md "Contracts"),
 * changelog modes, decimals, dates and times, batches and the arena.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_row.h"

static cdc_type_t *T(const char *text)
{
    cdc_error_t *err = NULL;
    cdc_type_t *t = cdc_type_parse(text, &err);
    cr_assert_not_null(t, "bad type %s", text);
    return t;
}

static void expect_value(const char *type, const cdc_value_t *v, const char *expected)
{
    cdc_type_t *t = T(type);
    cdc_buf_t b = {0};
    cdc_value_print(&b, v, t);
    cr_expect_str_eq(cdc_buf_cstr(&b), expected, "%s printed \"%s\", expected \"%s\"", type,
                     cdc_buf_cstr(&b), expected);
    cdc_buf_free(&b);
    cdc_type_destroy(t);
}

Test(print, row_shape_and_kinds)
{
    cdc_type_t *t = T("ROW<id INT, name STRING, description STRING, weight FLOAT>");
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    cdc_row_t *r = cdc_batch_add(&batch, CDC_INSERT, 4);
    r->values[0] = (cdc_value_t){.v.i = 101};
    r->values[1] = (cdc_value_t){.v.s = {"scooter", 7}};
    r->values[2] = (cdc_value_t){.v.s = {"Small 2-wheel scooter", 21}};
    r->values[3] = (cdc_value_t){.v.f = 3.14f};
    cdc_buf_t b = {0};
    cdc_row_print(&b, r, t);
    cr_expect_str_eq(cdc_buf_cstr(&b), "+I[101, scooter, Small 2-wheel scooter, 3.14]");
    const char *expect[] = {"+I[", "-U[", "+U[", "-D["};
    for (int k = 0; k < 4; k++) {
        r->kind = (cdc_kind_t)k;
        cdc_buf_clear(&b);
        cdc_row_print(&b, r, t);
        cr_expect(strncmp(cdc_buf_cstr(&b), expect[k], 3) == 0);
    }
    /* NULL prints null */
    r->values[2].flags = CDC_V_NULL;
    cdc_buf_clear(&b);
    r->kind = CDC_DELETE;
    cdc_row_print(&b, r, t);
    cr_expect_str_eq(cdc_buf_cstr(&b), "-D[101, scooter, null, 3.14]");
    cdc_buf_free(&b);
    cdc_batch_free(&batch);
    cdc_type_destroy(t);
}

Test(print, floats_shortest_round_trip)
{
    cdc_value_t v = {0};
    /* a DOUBLE 3.140000104904175 read into FLOAT prints 3.14 */
    v.v.f = (float)3.140000104904175;
    expect_value("FLOAT", &v, "3.14");
    v.v.f = 1.0f;
    expect_value("FLOAT", &v, "1.0");
    v.v.f = 0.875f;
    expect_value("FLOAT", &v, "0.875");
    v.v.f = 22.2f;
    expect_value("FLOAT", &v, "22.2");
    v.v.f = 1e7f;
    expect_value("FLOAT", &v, "1.0E7");
    v.v.f = 0.001f;
    expect_value("FLOAT", &v, "0.001");
    v.v.f = 0.0001f;
    expect_value("FLOAT", &v, "1.0E-4");
    v.v.f = -2.5f;
    expect_value("FLOAT", &v, "-2.5");
    v.v.f = NAN;
    expect_value("FLOAT", &v, "NaN");
    v.v.f = -INFINITY;
    expect_value("FLOAT", &v, "-Infinity");
    v.v.d = 3.140000104904175;
    expect_value("DOUBLE", &v, "3.140000104904175");
    v.v.d = 0.1;
    expect_value("DOUBLE", &v, "0.1");
    v.v.d = 100.0;
    expect_value("DOUBLE", &v, "100.0");
    v.v.d = 1234567.0;
    expect_value("DOUBLE", &v, "1234567.0");
    v.v.d = 12345678.9;
    expect_value("DOUBLE", &v, "1.23456789E7");
    v.v.d = -0.0;
    expect_value("DOUBLE", &v, "-0.0");
    v.v.d = 5e-324; /* shortest round trip; Java's older algorithm prints 4.9E-324 */
    expect_value("DOUBLE", &v, "5.0E-324");
    v.v.d = 1.7976931348623157e308;
    expect_value("DOUBLE", &v, "1.7976931348623157E308");
}

Test(print, integers_booleans_strings)
{
    cdc_value_t v = {0};
    v.v.i = INT64_MIN;
    expect_value("BIGINT", &v, "-9223372036854775808");
    v.v.i = 127;
    expect_value("TINYINT", &v, "127");
    v.v.b = true;
    expect_value("BOOLEAN", &v, "true");
    v.v.b = false;
    expect_value("BOOLEAN", &v, "false");
    v.v.s = (cdc_str_t){"with, comma", 11};
    expect_value("STRING", &v, "with, comma");
    v.v.s = (cdc_str_t){"", 0};
    expect_value("VARCHAR(3)", &v, "");
    v.v.s = (cdc_str_t){"\x0a\x1b\xff", 3};
    expect_value("BYTES", &v, "x'0a1bff'");
    v.v.s = (cdc_str_t){"", 0};
    expect_value("BINARY(1)", &v, "x''");
}

Test(print, decimals_keep_scale)
{
    cdc_value_t v = {0};
    v.v.dec = 150;
    expect_value("DECIMAL(5, 2)", &v, "1.50");
    v.v.dec = -5;
    expect_value("DECIMAL(5, 2)", &v, "-0.05");
    v.v.dec = 0;
    expect_value("DECIMAL(5, 2)", &v, "0.00");
    v.v.dec = 42;
    expect_value("DECIMAL(10, 0)", &v, "42");
    v.v.dec = cdc_pow10_i128(38) - 1;
    expect_value("DECIMAL(38, 0)", &v, "99999999999999999999999999999999999999");
    v.v.dec = -(cdc_pow10_i128(38) - 1);
    expect_value("DECIMAL(38, 38)", &v, "-0.99999999999999999999999999999999999999");
}

Test(print, dates_times_timestamps)
{
    cdc_value_t v = {0};
    v.v.i = cdc_days_from_civil(2020, 7, 30);
    expect_value("DATE", &v, "2020-07-30");
    v.v.i = 0;
    expect_value("DATE", &v, "1970-01-01");
    v.v.i = -1;
    expect_value("DATE", &v, "1969-12-31");
    v.v.i = cdc_days_from_civil(1, 1, 1);
    expect_value("DATE", &v, "0001-01-01");
    v.v.i = cdc_days_from_civil(9999, 12, 31);
    expect_value("DATE", &v, "9999-12-31");
    v.v.i = (10 * 3600 + 8 * 60 + 22) * 1000000000LL + 123456789;
    expect_value("TIME(0)", &v, "10:08:22");
    expect_value("TIME(3)", &v, "10:08:22.123");
    expect_value("TIME(9)", &v, "10:08:22.123456789");
    v.v.ts.millis = 1596103702123LL; /* 2020-07-30T10:08:22.123Z */
    v.v.ts.nanos = 456000;
    expect_value("TIMESTAMP(0)", &v, "2020-07-30T10:08:22");
    expect_value("TIMESTAMP(3)", &v, "2020-07-30T10:08:22.123");
    expect_value("TIMESTAMP(6)", &v, "2020-07-30T10:08:22.123456");
    expect_value("TIMESTAMP_LTZ(3)", &v, "2020-07-30T10:08:22.123Z");
    v.v.ts.millis = -1;
    v.v.ts.nanos = 0;
    expect_value("TIMESTAMP(3)", &v, "1969-12-31T23:59:59.999");
}

Test(print, nested)
{
    cdc_arena_t a;
    cdc_arena_init(&a);
    cdc_value_t elems[2] = {{.v.i = 1}, {.v.i = 2}};
    cdc_value_t v = {.v.arr = {2, elems, NULL}};
    expect_value("ARRAY<INT>", &v, "[1, 2]");
    cdc_value_t none = {.v.arr = {0, NULL, NULL}};
    expect_value("ARRAY<INT>", &none, "[]");
    cdc_value_t keys[2] = {{.v.s = {"k", 1}}, {.v.s = {"k2", 2}}};
    cdc_value_t vals[2] = {{.v.s = {"v", 1}}, {.flags = CDC_V_NULL}};
    cdc_value_t m = {.v.arr = {2, keys, vals}};
    expect_value("MAP<STRING, STRING>", &m, "{k=v, k2=null}");
    cdc_row_t *inner = cdc_row_new_in(&a, 2);
    inner->values[0] = (cdc_value_t){.v.s = {"a", 1}};
    inner->values[1] = (cdc_value_t){.v.arr = {2, elems, NULL}};
    cdc_value_t r = {.v.row = inner};
    expect_value("ROW<x STRING, y ARRAY<INT>>", &r, "(a, [1, 2])");
    cdc_arena_free(&a);
}

Test(changelog, mode_strings)
{
    char buf[16];
    cr_expect_str_eq(cdc_changelog_mode_str(CDC_MODE_ALL, buf), "[I,UB,UA,D]");
    cr_expect_str_eq(cdc_changelog_mode_str(CDC_MODE_UPSERT, buf), "[I,UA,D]");
    cr_expect_str_eq(cdc_changelog_mode_str(CDC_MODE_INSERT_ONLY, buf), "[I]");
    cr_expect_str_eq(cdc_changelog_mode_str(0, buf), "[]");
    cr_expect_str_eq(cdc_kind_short(CDC_UPDATE_BEFORE), "-U");
}

static cdc_i128 dec(const char *s, int p, int sc, int *rc)
{
    cdc_i128 v = 0;
    *rc = cdc_decimal_parse(s, strlen(s), p, sc, &v);
    return v;
}

Test(decimal, parse_and_round)
{
    int rc;
    char buf[64];
    struct {
        const char *in;
        int p, s;
        const char *out;
    } cases[] = {
        {"1.5", 5, 2, "1.50"},
        {"-12.345", 10, 2, "-12.35"},
        {"12.344", 10, 2, "12.34"},
        {"0.005", 5, 2, "0.01"},
        {"1e3", 10, 0, "1000"},
        {"1.5E-2", 5, 3, "0.015"},
        {"-0", 5, 0, "0"},
        {"000123.4500", 9, 4, "123.4500"},
        {"0.0000001", 5, 2, "0.00"},
        {"99999999999999999999999999999999999999", 38, 0, "99999999999999999999999999999999999999"},
        {".5", 3, 1, "0.5"},
        {"+7", 3, 0, "7"},
        /* around the 64-bit fast path (18 digits) */
        {"999999999999999999", 18, 0, "999999999999999999"},
        {"1234567890123456789", 19, 0, "1234567890123456789"},
        {"12345678901234567.5", 18, 0, "12345678901234568"},
        {"123456789012345678", 38, 10, "123456789012345678.0000000000"},
        {"-0.000000000000000001", 20, 18, "-0.000000000000000001"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cdc_i128 v = dec(cases[i].in, cases[i].p, cases[i].s, &rc);
        cr_assert_eq(rc, 0, "%s did not parse", cases[i].in);
        cdc_decimal_format(v, cases[i].s, buf);
        cr_expect_str_eq(buf, cases[i].out, "%s -> %s, expected %s", cases[i].in, buf,
                         cases[i].out);
    }
    const char *bad[] = {"", "-", "abc", "1.2.3", "1e", "12a", "1 ", "e5"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        dec(bad[i], 10, 2, &rc);
        cr_expect_eq(rc, -1, "\"%s\" should not parse", bad[i]);
    }
    dec("999999999999999999", 17, 0, &rc);
    cr_expect_eq(rc, -1, "18 nines do not fit DECIMAL(17, 0)");
    dec("99999999999999999.5", 17, 0, &rc);
    cr_expect_eq(rc, -1, "rounds up past DECIMAL(17, 0)");
    dec("1000", 3, 0, &rc);
    cr_expect_eq(rc, -1, "1000 does not fit DECIMAL(3, 0)");
    dec("9.995", 3, 2, &rc);
    cr_expect_eq(rc, -1, "9.995 rounds to 10.00 which does not fit DECIMAL(3, 2)");
    dec("100000000000000000000000000000000000000", 38, 0, &rc);
    cr_expect_eq(rc, -1);
    /* regress: 2^129 used to wrap around to 0 */
    dec("680564733841876926926749214863536422912", 38, 0, &rc);
    cr_expect_eq(rc, -1);
    dec("-99999999999999999999999999999999999999999999999999", 38, 0, &rc);
    cr_expect_eq(rc, -1);
}

Test(datetime, parse)
{
    int32_t d;
    cr_expect_eq(cdc_date_parse("2020-02-29", 10, &d), 0);
    cr_expect_eq(d, cdc_days_from_civil(2020, 2, 29));
    cr_expect_eq(cdc_date_parse("2019-02-29", 10, &d), -1);
    cr_expect_eq(cdc_date_parse("2020-13-01", 10, &d), -1);
    cr_expect_eq(cdc_date_parse("2020-1-5", 8, &d), 0);
    cr_expect_eq(cdc_date_parse("20200105", 8, &d), -1);
    int64_t n;
    cr_expect_eq(cdc_time_parse("10:08:22.123456", 15, 3, &n), 0);
    cr_expect_eq(n, (10 * 3600 + 8 * 60 + 22) * 1000000000LL + 123000000);
    cr_expect_eq(cdc_time_parse("24:00:00", 8, 0, &n), -1);
    cr_expect_eq(cdc_time_parse("10:08", 5, 0, &n), 0);
    cdc_ts_t ts;
    bool zone;
    cr_expect_eq(cdc_timestamp_parse("2020-07-30 10:08:22.123", 23, 3, false, &ts, &zone), 0);
    cr_expect_eq(ts.millis, 1596103702123LL);
    cr_expect_eq(cdc_timestamp_parse("2020-07-30T10:08:22Z", 20, 3, true, &ts, &zone), 0);
    cr_expect(zone);
    cr_expect_eq(ts.millis, 1596103702000LL);
    cr_expect_eq(cdc_timestamp_parse("2020-07-30T12:08:22+02:00", 25, 3, true, &ts, &zone), 0);
    cr_expect_eq(ts.millis, 1596103702000LL);
    cr_expect_eq(cdc_timestamp_parse("2020-07-30T10:08:22Z", 20, 3, false, &ts, &zone), -1);
    cr_expect_eq(cdc_timestamp_parse("2020-07-30T10:08:22.123456789", 29, 9, false, &ts, &zone), 0);
    cr_expect_eq(ts.nanos, 456789);
}

Test(batch, arena_reuse_keeps_capacity)
{
    cdc_batch_t b;
    cdc_batch_init(&b);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 5000; i++) {
            cdc_row_t *r = cdc_batch_add(&b, CDC_INSERT, 8);
            cr_assert(cdc_value_is_null(&r->values[7]));
            char *s = cdc_arena_strdup(&b.arena, "some text value");
            cr_assert_str_eq(s, "some text value");
        }
        cr_expect_eq(b.n, 5000);
        cdc_batch_reset(&b);
        cr_expect_eq(b.n, 0);
        cr_expect_not_null(b.arena.head);
    }
    cdc_batch_free(&b);
}

Test(buf, printf_grows)
{
    cdc_buf_t b = {0};
    for (int i = 0; i < 1000; i++)
        cdc_buf_printf(&b, "%04d,", i);
    cr_expect_eq(b.len, 5000);
    cr_expect(strncmp(cdc_buf_cstr(&b) + 4995, "0999,", 5) == 0);
    char big[1000];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    cdc_buf_clear(&b);
    cdc_buf_printf(&b, "%s", big);
    cr_expect_eq(b.len, 999);
    cdc_buf_free(&b);
}

/* ---- the digit writers of the print format, against printf ------------------------- */

static uint64_t xorshift(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void expect_int(int64_t i)
{
    char want[32], got[32];
    snprintf(want, sizeof(want), "%lld", (long long)i);
    cr_expect_eq(cdc_int64_format(i, got), (int)strlen(want), "%s", want);
    cr_expect_str_eq(got, want);
    cdc_value_t v = {.v.i = i};
    expect_value("BIGINT", &v, want);
}

Test(print, integers_match_printf)
{
    expect_int(0);
    expect_int(INT64_MIN);
    expect_int(INT64_MAX);
    expect_int(INT64_MIN + 1);
    /* every digit count: 10^k - 1, 10^k, 10^k + 1 and their negatives */
    int64_t p = 1;
    for (int k = 0; k <= 18; k++) {
        for (int64_t d = -1; d <= 1; d++) {
            expect_int(p + d);
            expect_int(-(p + d));
        }
        if (k < 18)
            p *= 10;
    }
    uint64_t x = 0x2545f4914f6cdd1dull;
    for (int i = 0; i < 20000; i++) {
        int64_t v = (int64_t)(xorshift(&x) >> (xorshift(&x) % 64));
        expect_int(i % 2 ? v : -v);
    }
}

/* the digits one at a time in 128-bit arithmetic: what cdc_decimal_format always printed */
static void decimal_reference(cdc_i128 unscaled, int scale, char *buf)
{
    char digits[48];
    int nd = 0;
    bool neg = unscaled < 0;
    unsigned __int128 u =
        neg ? (unsigned __int128)(-(unscaled + 1)) + 1 : (unsigned __int128)unscaled;
    do {
        digits[nd++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (nd <= scale)
        digits[nd++] = '0';
    char *w = buf;
    if (neg)
        *w++ = '-';
    for (int i = nd - 1; i >= 0; i--) {
        *w++ = digits[i];
        if (i == scale && scale > 0)
            *w++ = '.';
    }
    *w = '\0';
}

static void expect_decimal(cdc_i128 unscaled, int scale)
{
    char want[64], got[64];
    decimal_reference(unscaled, scale, want);
    cr_expect_eq(cdc_decimal_format(unscaled, scale, got), (int)strlen(want), "%s", want);
    cr_expect_str_eq(got, want, "scale %d: %s, expected %s", scale, got, want);
}

Test(print, decimals_match_the_reference)
{
    cdc_value_t v = {.v.dec = (cdc_i128)UINT64_MAX}; /* BIGINT UNSIGNED */
    expect_value("DECIMAL(20, 0)", &v, "18446744073709551615");
    v.v.dec = -(cdc_i128)UINT64_MAX;
    expect_value("DECIMAL(20, 2)", &v, "-184467440737095516.15");
    v.v.dec = -1;
    expect_value("DECIMAL(10, 6)", &v, "-0.000001");
    v.v.dec = -(cdc_pow10_i128(19) + 7); /* past 64 bits' 19 digits: a zero-padded low group */
    expect_value("DECIMAL(38, 3)", &v, "-10000000000000000.007");
    const cdc_i128 e19 = cdc_pow10_i128(19), max38 = cdc_pow10_i128(38) - 1;
    const cdc_i128 edges[] = {0,
                              1,
                              (cdc_i128)UINT64_MAX,
                              (cdc_i128)UINT64_MAX + 1,
                              (cdc_i128)INT64_MAX,
                              (cdc_i128)INT64_MAX + 1,
                              e19 - 1,
                              e19,
                              e19 + 1,
                              e19 * 10 + 5,
                              max38,
                              cdc_pow10_i128(37) + 1,
                              (cdc_i128)(((unsigned __int128)1 << 127) - 1)};
    for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
        for (int scale = 0; scale <= 38; scale++) {
            expect_decimal(edges[i], scale);
            expect_decimal(-edges[i], scale);
        }
    }
    expect_decimal(-(cdc_i128)(((unsigned __int128)1 << 127) - 1) - 1, 5); /* INT128_MIN */
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 20000; i++) {
        unsigned __int128 r = (unsigned __int128)xorshift(&x) << 64 | xorshift(&x);
        cdc_i128 u = (cdc_i128)(r % (unsigned __int128)cdc_pow10_i128((int)(xorshift(&x) % 39)));
        expect_decimal(i % 2 ? u : -u, (int)(xorshift(&x) % 39));
    }
}

/* hh:mm:ss[.f] by printf: the fraction cut (not rounded) to p digits (0..9), i.e. the first p
 * of its nine */
static void time_reference(int64_t nanos, int p, char *buf, size_t size)
{
    int64_t s = nanos / 1000000000LL;
    char frac[16];
    snprintf(frac, sizeof(frac), "%09lld", (long long)(nanos % 1000000000LL));
    frac[p] = '\0';
    snprintf(buf, size, "%02lld:%02lld:%02lld%s%s", (long long)(s / 3600), (long long)(s / 60 % 60),
             (long long)(s % 60), p > 0 ? "." : "", frac);
}

Test(print, times_and_timestamps_at_every_precision)
{
    char ty[40], want[96], date[40];
    cdc_value_t v = {0};
    /* fractional seconds 0..6 of one instant, as the binlog's TIME2/DATETIME2/TIMESTAMP2 give */
    static const char *const frac[] = {"", ".1", ".12", ".123", ".1234", ".12345", ".123456"};
    v.v.ts.millis = cdc_days_from_civil(2024, 2, 29) * 86400000LL + 45296123; /* 12:34:56.123 */
    v.v.ts.nanos = 456000;
    for (int p = 0; p <= 6; p++) {
        snprintf(ty, sizeof(ty), "TIMESTAMP(%d)", p);
        snprintf(want, sizeof(want), "2024-02-29T12:34:56%s", frac[p]);
        expect_value(ty, &v, want);
        snprintf(ty, sizeof(ty), "TIMESTAMP_LTZ(%d)", p);
        strcat(want, "Z");
        expect_value(ty, &v, want);
    }
    v.v.ts.millis = 0;
    v.v.ts.nanos = 0;
    expect_value("TIMESTAMP(6)", &v, "1970-01-01T00:00:00.000000");
    v.v.ts.millis = cdc_days_from_civil(10000, 1, 1) * 86400000LL;
    expect_value("TIMESTAMP(0)", &v, "10000-01-01T00:00:00");
    v.v.i = cdc_days_from_civil(-1, 12, 31);
    expect_value("DATE", &v, "-0001-12-31");
    v.v.i = cdc_days_from_civil(0, 1, 1);
    expect_value("DATE", &v, "0000-01-01");
    v.v.i = (838 * 3600 + 59 * 60 + 59) * 1000000000LL + 500000000; /* MySQL TIME's maximum */
    expect_value("TIME(2)", &v, "838:59:59.50");
    /* a negative TIME (MySQL's range is -838:59:59 .. 838:59:59) prints as MySQL prints it */
    v.v.i = -1000000000LL;
    expect_value("TIME(0)", &v, "-00:00:01");
    v.v.i = -((838 * 3600 + 59 * 60 + 59) * 1000000000LL + 250000000);
    expect_value("TIME(3)", &v, "-838:59:59.250");
    v.v.i = -1000;
    expect_value("TIME(6)", &v, "-00:00:00.000001");
    uint64_t x = 0x243f6a8885a308d3ull;
    for (int i = 0; i < 20000; i++) {
        int p = (int)(xorshift(&x) % 10);
        int64_t nanos = (int64_t)(xorshift(&x) % (86400ULL * 1000000000ULL * 40));
        snprintf(ty, sizeof(ty), "TIME(%d)", p);
        time_reference(nanos, p, want, sizeof(want));
        v.v.i = nanos;
        expect_value(ty, &v, want);
        int64_t days = (int64_t)(xorshift(&x) % 3652059); /* 0001-01-01 .. 9999-12-31 */
        days += cdc_days_from_civil(1, 1, 1);
        int64_t y;
        unsigned m, d;
        cdc_civil_from_days(days, &y, &m, &d);
        snprintf(date, sizeof(date), "%04lld-%02u-%02u", (long long)y, m, d);
        v.v.i = days;
        expect_value("DATE", &v, date);
        int64_t ms = (int64_t)(xorshift(&x) % 86400000);
        v.v.ts.millis = days * 86400000LL + ms;
        v.v.ts.nanos = (int32_t)(xorshift(&x) % 1000000);
        snprintf(ty, sizeof(ty), "TIMESTAMP(%d)", p);
        int n = snprintf(want, sizeof(want), "%sT", date);
        time_reference(ms * 1000000LL + v.v.ts.nanos, p, want + n, sizeof(want) - (size_t)n);
        expect_value(ty, &v, want);
    }
}
