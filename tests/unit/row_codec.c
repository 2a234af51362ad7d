/*
 * tests/unit/row_codec.c — the row codec of keyed state (src/core/cdc_row_codec.c):
 * round trips of every type with NULLs, UNCHANGED, nesting, empty strings and
 * extremes; every truncation and a set of corruptions rejected without reading
 * past the input.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_row_codec.h"

#define ALL_TYPES                                                                                  \
    "ROW<b BOOLEAN, t TINYINT, s SMALLINT, i INT, l BIGINT, f FLOAT, d DOUBLE, "                   \
    "dec DECIMAL(38, 10), c CHAR(3), v STRING, bin BINARY(2), vb BYTES, dt DATE, tm TIME(3), "     \
    "ts TIMESTAMP(9), tz TIMESTAMP_LTZ(3), a ARRAY<INT>, "                                         \
    "m MAP<STRING, ARRAY<BIGINT>>, r ROW<x INT, y ROW<z STRING>>>"

static cdc_type_t *T(const char *text)
{
    cdc_error_t *err = NULL;
    cdc_type_t *t = cdc_type_parse(text, &err);
    cr_assert_not_null(t, "bad type %s", text);
    return t;
}

static cdc_value_t S(const char *s)
{
    return (cdc_value_t){.v.s = {s, (uint32_t)strlen(s)}};
}

/* A row of ALL_TYPES; variant 0 plain values, 1 the extremes, 2 empty and NULL inside nesting. */
static cdc_row_t *sample(cdc_arena_t *a, int variant)
{
    cdc_row_t *r = cdc_row_new_in(a, 19);
    cdc_value_t *v = r->values;
    memset(v, 0, sizeof(cdc_value_t) * 19);
    cdc_i128 big = cdc_pow10_i128(38) - 1;
    if (variant == 1) {
        v[0].v.b = false;
        v[1].v.i = INT8_MIN;
        v[2].v.i = INT16_MAX;
        v[3].v.i = INT32_MIN;
        v[4].v.i = INT64_MIN;
        v[5].v.f = -INFINITY;
        v[6].v.d = -0.0;
        v[7].v.dec = -big;
        v[12].v.i = INT32_MAX;
        v[13].v.i = 86399999000000LL;
        v[14].v.ts = (cdc_ts_t){INT64_MAX, 999999};
        v[15].v.ts = (cdc_ts_t){INT64_MIN, 0};
    } else {
        v[0].v.b = true;
        v[1].v.i = 7;
        v[2].v.i = -300;
        v[3].v.i = 123456;
        v[4].v.i = 1LL << 40;
        v[5].v.f = 3.25f;
        v[6].v.d = 2.5e-300;
        v[7].v.dec = 1234567890;
        v[12].v.i = 19000;
        v[13].v.i = 3600000000000LL;
        v[14].v.ts = (cdc_ts_t){1589355606000LL, 123456};
        v[15].v.ts = (cdc_ts_t){-1, 999999};
    }
    v[8] = S(variant == 2 ? "" : "abc");
    v[9] = S(variant == 2 ? "" : "h\xc3\xa9llo, world");
    v[10] = (cdc_value_t){.v.s = {"\0\xff", 2}};
    v[11] = (cdc_value_t){.v.s = {variant == 2 ? "" : "\x01\x00\x02", variant == 2 ? 0 : 3}};
    /* ARRAY<INT>: [1, NULL, -2] or [] */
    v[16].v.arr.n = variant == 2 ? 0 : 3;
    v[16].v.arr.elems = cdc_arena_calloc(a, 3 * sizeof(cdc_value_t));
    v[16].v.arr.elems[0].v.i = 1;
    v[16].v.arr.elems[1].flags = CDC_V_NULL;
    v[16].v.arr.elems[2].v.i = variant == 1 ? INT32_MAX : -2;
    /* MAP<STRING, ARRAY<BIGINT>>: {k1=[5], k2=NULL} */
    v[17].v.arr.n = 2;
    v[17].v.arr.elems = cdc_arena_calloc(a, 2 * sizeof(cdc_value_t));
    v[17].v.arr.vals = cdc_arena_calloc(a, 2 * sizeof(cdc_value_t));
    v[17].v.arr.elems[0] = S("k1");
    v[17].v.arr.elems[1] = S(variant == 2 ? "" : "k2");
    v[17].v.arr.vals[0].v.arr.n = 1;
    v[17].v.arr.vals[0].v.arr.elems = cdc_arena_calloc(a, sizeof(cdc_value_t));
    v[17].v.arr.vals[0].v.arr.elems[0].v.i = variant == 1 ? INT64_MAX : 5;
    v[17].v.arr.vals[1].flags = CDC_V_NULL;
    /* ROW<x INT, y ROW<z STRING>> */
    cdc_row_t *inner = cdc_row_new_in(a, 2), *deep = cdc_row_new_in(a, 1);
    inner->values[0] = (cdc_value_t){.v.i = 42};
    if (variant == 2) {
        inner->values[1].flags = CDC_V_NULL;
    } else {
        inner->values[1] = (cdc_value_t){.v.row = deep};
        deep->values[0] = S("deep");
    }
    v[18].v.row = inner;
    return r;
}

static char *print_row(const cdc_row_t *r, const cdc_type_t *t)
{
    cdc_buf_t b = {0};
    cdc_row_print(&b, r, t);
    char *s = strdup(cdc_buf_cstr(&b));
    cdc_buf_free(&b);
    return s;
}

/* Encodes row, decodes it back, compares the print form; returns the encoding's length. */
static size_t round_trip(const cdc_row_t *row, const cdc_type_t *t)
{
    cdc_buf_t enc = {0};
    cdc_row_encode(&enc, row, t);
    cdc_arena_t out;
    cdc_arena_init(&out);
    size_t used = 0;
    cdc_row_t *back = cdc_row_decode(enc.data, enc.len, t, &out, &used);
    cr_assert_not_null(back);
    cr_expect_eq(used, enc.len);
    cr_expect_eq(back->kind, CDC_INSERT);
    char *want = print_row(row, t), *got = print_row(back, t);
    cr_expect_str_eq(got, want);
    for (uint32_t i = 0; i < row->arity; i++)
        cr_expect_eq(back->values[i].flags, row->values[i].flags, "field %u flags", i);
    free(want);
    free(got);
    size_t n = enc.len;
    cdc_arena_free(&out);
    cdc_buf_free(&enc);
    return n;
}

Test(row_codec, every_type_round_trips)
{
    cdc_type_t *t = T(ALL_TYPES);
    cdc_arena_t a;
    cdc_arena_init(&a);
    for (int variant = 0; variant < 3; variant++)
        round_trip(sample(&a, variant), t);
    cdc_arena_free(&a);
    cdc_type_destroy(t);
}

Test(row_codec, extremes_are_exact)
{
    cdc_type_t *t = T(ALL_TYPES);
    cdc_arena_t a, out;
    cdc_arena_init(&a);
    cdc_arena_init(&out);
    cdc_row_t *r = sample(&a, 1);
    r->values[5].v.f = NAN;
    cdc_buf_t enc = {0};
    cdc_row_encode(&enc, r, t);
    size_t used;
    cdc_row_t *back = cdc_row_decode(enc.data, enc.len, t, &out, &used);
    cr_assert_not_null(back);
    cr_expect_eq(back->values[4].v.i, INT64_MIN);
    cr_expect(back->values[7].v.dec == -(cdc_pow10_i128(38) - 1));
    cr_expect(isnan(back->values[5].v.f));
    cr_expect(signbit(back->values[6].v.d) && back->values[6].v.d == 0.0);
    cr_expect_eq(back->values[14].v.ts.millis, INT64_MAX);
    cr_expect_eq(back->values[14].v.ts.nanos, 999999);
    cr_expect_eq(back->values[15].v.ts.millis, INT64_MIN);
    /* the widest decimal the type allows, and the 128-bit ends, through the value codec */
    cdc_type_t *dt = T("DECIMAL(38, 0)");
    cdc_i128 ends[] = {(cdc_i128)((unsigned __int128)1 << 127),
                       (cdc_i128)(((unsigned __int128)1 << 127) - 1), 0, -1};
    for (int k = 0; k < 4; k++) {
        cdc_buf_clear(&enc);
        cdc_value_t v = {.v.dec = ends[k]}, w;
        cdc_value_encode(&enc, &v, dt);
        cr_assert_eq(cdc_value_decode(enc.data, enc.len, dt, &out, &w), enc.len);
        cr_expect(w.v.dec == ends[k], "128-bit end %d", k);
    }
    cdc_type_destroy(dt);
    cdc_buf_free(&enc);
    cdc_arena_free(&out);
    cdc_arena_free(&a);
    cdc_type_destroy(t);
}

Test(row_codec, nulls_and_unchanged_are_kept)
{
    cdc_type_t *t = T(ALL_TYPES);
    cdc_arena_t a;
    cdc_arena_init(&a);
    cdc_row_t *r = sample(&a, 0);
    for (uint32_t i = 0; i < r->arity; i += 2)
        r->values[i].flags = CDC_V_NULL;
    r->values[9].flags = CDC_V_UNCHANGED;
    size_t n = round_trip(r, t);
    cr_expect_lt(n, 80, "NULLs take one byte each (%zu bytes)", n);
    /* all NULL: one byte per field */
    for (uint32_t i = 0; i < r->arity; i++)
        r->values[i].flags = CDC_V_NULL;
    cr_expect_eq(round_trip(r, t), 19);
    cdc_arena_free(&a);
    cdc_type_destroy(t);
}

Test(row_codec, varint_boundaries_round_trip)
{
    /* the one-byte and 64-bit fast paths and the 128-bit loop, at their edges */
    cdc_type_t *bt = T("BIGINT"), *dt = T("DECIMAL(38, 0)");
    int64_t ints[] = {0, -1, 63, -64, 64, -65, 8191, 8192, INT64_MAX, INT64_MIN};
    cdc_i128 decs[] = {63,
                       64,
                       -65,
                       (cdc_i128)INT64_MAX,
                       (cdc_i128)INT64_MIN,
                       (cdc_i128)UINT64_MAX,
                       (cdc_i128)UINT64_MAX + 1,
                       -(cdc_i128)UINT64_MAX - 1};
    cdc_arena_t out;
    cdc_arena_init(&out);
    cdc_buf_t enc = {0};
    for (size_t k = 0; k < sizeof(ints) / sizeof(ints[0]); k++) {
        cdc_buf_clear(&enc);
        cdc_value_t v = {.v.i = ints[k]}, w;
        cdc_value_encode(&enc, &v, bt);
        cr_assert_eq(cdc_value_decode(enc.data, enc.len, bt, &out, &w), enc.len);
        cr_expect_eq(w.v.i, ints[k], "BIGINT %lld", (long long)ints[k]);
        if (ints[k] >= -64 && ints[k] <= 63)
            cr_expect_eq(enc.len, 2, "flags + one byte for %lld", (long long)ints[k]);
    }
    for (size_t k = 0; k < sizeof(decs) / sizeof(decs[0]); k++) {
        cdc_buf_clear(&enc);
        cdc_value_t v = {.v.dec = decs[k]}, w;
        cdc_value_encode(&enc, &v, dt);
        cr_assert_eq(cdc_value_decode(enc.data, enc.len, dt, &out, &w), enc.len);
        cr_expect(w.v.dec == decs[k], "decimal %zu", k);
    }
    cdc_buf_free(&enc);
    cdc_arena_free(&out);
    cdc_type_destroy(bt);
    cdc_type_destroy(dt);
}

Test(row_codec, small_integers_are_compact)
{
    cdc_type_t *t = T("ROW<a BIGINT, b INT>");
    cdc_arena_t a;
    cdc_arena_init(&a);
    cdc_row_t *r = cdc_row_new_in(&a, 2);
    r->values[0] = (cdc_value_t){.v.i = -1};
    r->values[1] = (cdc_value_t){.v.i = 63};
    cr_expect_eq(round_trip(r, t), 4); /* flags + 1 byte each */
    cdc_arena_free(&a);
    cdc_type_destroy(t);
}

Test(row_codec, every_truncation_is_rejected)
{
    cdc_type_t *t = T(ALL_TYPES);
    cdc_arena_t a, out;
    cdc_arena_init(&a);
    cdc_arena_init(&out);
    for (int variant = 0; variant < 3; variant++) {
        cdc_buf_t enc = {0};
        cdc_row_encode(&enc, sample(&a, variant), t);
        for (size_t len = 0; len < enc.len; len++) {
            /* an exact-size copy, so ASan sees any read past it */
            unsigned char *copy = malloc(len ? len : 1);
            memcpy(copy, enc.data, len);
            size_t used = 12345;
            cr_expect_null(cdc_row_decode(copy, len, t, &out, &used), "variant %d len %zu/%zu",
                           variant, len, enc.len);
            free(copy);
            cdc_arena_reset(&out);
        }
        cdc_buf_free(&enc);
    }
    cdc_arena_free(&out);
    cdc_arena_free(&a);
    cdc_type_destroy(t);
}

static bool decodes(const char *type, const void *data, size_t len)
{
    cdc_type_t *t = T(type);
    cdc_arena_t out;
    cdc_arena_init(&out);
    cdc_value_t v;
    size_t n = cdc_value_decode(data, len, t, &out, &v);
    cdc_arena_free(&out);
    cdc_type_destroy(t);
    return n != 0;
}

Test(row_codec, malformed_values_are_rejected)
{
    cr_expect(decodes("BOOLEAN", "\x00\x01", 2));
    cr_expect(!decodes("BOOLEAN", "\x00\x02", 2), "boolean other than 0/1");
    cr_expect(!decodes("INT", "\x04", 1), "unknown flag bit");
    cr_expect(decodes("TINYINT", "\x00\xfe\x01", 3)); /* zigzag 254 = 127 */
    cr_expect(!decodes("TINYINT", "\x00\x80\x02", 3), "tinyint out of range");
    cr_expect(!decodes("BIGINT", "\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 11),
              "varint past 64 bits");
    cr_expect(!decodes("BIGINT", "\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12),
              "varint of 11 bytes");
    cr_expect(!decodes("STRING",
                       "\x00\x05"
                       "abc",
                       5),
              "length past the end");
    cr_expect(!decodes("ARRAY<INT>", "\x00\xff\xff\xff\xff\x0f\x00\x00", 8),
              "count beyond the bytes left");
    cr_expect(!decodes("MAP<INT, INT>", "\x00\x02\x01\x01\x01", 5), "map count of pairs");
    cr_expect(!decodes("TIMESTAMP(3)", "\x00\x02\xc0\x84\x3d", 5), "nanos 1000000");
    cr_expect(decodes("TIMESTAMP(3)", "\x00\x02\xbf\x84\x3d", 5));
    cr_expect(!decodes("FLOAT", "\x00\x01\x02\x03", 4));
}

Test(row_codec, corrupt_bytes_never_crash)
{
    cdc_type_t *t = T(ALL_TYPES);
    cdc_arena_t a, out;
    cdc_arena_init(&a);
    cdc_arena_init(&out);
    cdc_buf_t enc = {0};
    cdc_row_encode(&enc, sample(&a, 0), t);
    unsigned char *copy = malloc(enc.len);
    uint64_t rng = 42;
    int decoded = 0;
    for (int round = 0; round < 20000; round++) {
        memcpy(copy, enc.data, enc.len);
        for (int k = 0; k < 3; k++) {
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            copy[(rng >> 33) % enc.len] = (unsigned char)(rng >> 17);
        }
        size_t used;
        cdc_row_t *r = cdc_row_decode(copy, enc.len, t, &out, &used);
        if (r) {
            decoded++;
            cr_assert_leq(used, enc.len);
            cdc_buf_t p = {0};
            cdc_row_print(&p, r, t); /* every pointer in it is valid */
            cdc_buf_free(&p);
        }
        cdc_arena_reset(&out);
    }
    cr_expect_gt(decoded, 0);
    free(copy);
    cdc_buf_free(&enc);
    cdc_arena_free(&out);
    cdc_arena_free(&a);
    cdc_type_destroy(t);
}

/* A MULTISET is kept as a MAP of its elements' counts: both halves round-trip, and its bytes
 * are a MAP<t, INT NOT NULL>'s. */
Test(row_codec, multiset_round_trips_like_a_map)
{
    cdc_type_t *mt = T("MULTISET<STRING>"), *map = T("MAP<STRING, INT NOT NULL>");
    cdc_arena_t out;
    cdc_arena_init(&out);
    cdc_value_t keys[] = {S("a"), S("b")}, counts[] = {{.v.i = 2}, {.v.i = 1}};
    cdc_value_t v = {.v.arr = {.n = 2, .elems = keys, .vals = counts}}, w;
    cdc_buf_t enc = {0}, enc_map = {0};
    cdc_value_encode(&enc, &v, mt);
    cdc_value_encode(&enc_map, &v, map);
    cr_assert_eq(enc.len, enc_map.len);
    cr_expect_eq(memcmp(enc.data, enc_map.data, enc.len), 0);
    cr_assert_eq(cdc_value_decode(enc.data, enc.len, mt, &out, &w), enc.len);
    cdc_buf_t text = {0};
    cdc_value_print(&text, &w, mt);
    cr_expect_str_eq(cdc_buf_cstr(&text), "{a=2, b=1}");
    cdc_buf_free(&text);
    cdc_buf_free(&enc);
    cdc_buf_free(&enc_map);
    cdc_arena_free(&out);
    cdc_type_destroy(mt);
    cdc_type_destroy(map);
}
