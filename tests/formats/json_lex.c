/*
 * tests/formats/json_lex.c — our JSON parser (cdc_json_parser_*, json_lex.c)
 * on its own: every token kind, escapes, UTF-8, nesting, numbers, truncation,
 * cancellation, the end mark, and the error texts with their offsets.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "cdc_json.h"

/* ---- an event recorder ------------------------------------------------------------------ */

typedef struct ctx_s {
    cdc_json_parser_t *parser;
    cdc_buf_t out;
    int depth;
    bool mark;     /* mark the end of the top-level container */
    int cancel_at; /* event number that returns 0, or -1 */
    int count;
    const char *msg; /* the message, to tell where strings point */
    size_t len;
    size_t open_offset; /* offset seen by the first start_map */
} ctx_t;

static ctx_t cx;

static int ev(const char *kind, const void *s, size_t n)
{
    if (cx.out.len)
        cdc_buf_puts(&cx.out, " ");
    cdc_buf_puts(&cx.out, kind);
    if (s) {
        for (size_t i = 0; i < n; i++) {
            unsigned char c = ((const unsigned char *)s)[i];
            if (c < 0x20 || c >= 0x7f)
                cdc_buf_printf(&cx.out, "\\x%02x", c);
            else
                cdc_buf_printf(&cx.out, "%c", c);
        }
    }
    return cx.count++ == cx.cancel_at ? 0 : 1;
}

static int on_null(void *ctx)
{
    (void)ctx;
    return ev("n", NULL, 0);
}

static int on_bool(void *ctx, int b)
{
    (void)ctx;
    return ev(b ? "t" : "f", NULL, 0);
}

static int on_number(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    return ev("#", s, n);
}

static int on_string(void *ctx, const unsigned char *s, size_t n)
{
    (void)ctx;
    bool inside = (const char *)s >= cx.msg && (const char *)s + n <= cx.msg + cx.len;
    return ev(inside ? "s" : "S", s, n); /* S: unescaped copy */
}

static int on_key(void *ctx, const unsigned char *s, size_t n)
{
    (void)ctx;
    return ev("k", s, n);
}

static int open_c(const char *k)
{
    if (cx.open_offset == SIZE_MAX)
        cx.open_offset = cdc_json_parser_offset(cx.parser);
    cx.depth++;
    return ev(k, NULL, 0);
}

static int close_c(const char *k)
{
    int rc = ev(k, NULL, 0);
    if (--cx.depth == 0 && cx.mark)
        cdc_json_parser_mark_end(cx.parser);
    return rc;
}

static int on_start_map(void *ctx)
{
    (void)ctx;
    return open_c("{");
}

static int on_end_map(void *ctx)
{
    (void)ctx;
    return close_c("}");
}

static int on_start_array(void *ctx)
{
    (void)ctx;
    return open_c("[");
}

static int on_end_array(void *ctx)
{
    (void)ctx;
    return close_c("]");
}

static const yajl_callbacks cbs = {
    .yajl_null = on_null,
    .yajl_boolean = on_bool,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_key,
    .yajl_end_map = on_end_map,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end_array,
};

static cdc_buf_t result;

static void setup(void)
{
    memset(&cx, 0, sizeof(cx));
    cx.parser = cdc_json_parser_new(&cbs, &cx);
    cx.mark = true;
}

static void teardown(void)
{
    cdc_json_parser_destroy(cx.parser);
    cdc_buf_free(&cx.out);
    cdc_buf_free(&result);
}

TestSuite(json_lex, .init = setup, .fini = teardown);

/* Parses msg[0..len): "EVENTS | OK", "EVENTS | CANCELED" or "EVENTS | invalid JSON ...". */
static const char *parse_n(const char *msg, size_t len)
{
    cdc_buf_clear(&cx.out);
    cx.depth = 0;
    cx.count = 0;
    cx.msg = msg;
    cx.len = len;
    cx.open_offset = SIZE_MAX;
    cdc_buf_t err = {0};
    int rc = cdc_json_parser_parse(cx.parser, msg, len, &err);
    cdc_buf_clear(&result);
    cdc_buf_append(&result, cx.out.data, cx.out.len);
    cdc_buf_puts(&result, " | ");
    if (rc == CDC_JSON_PARSE_OK)
        cdc_buf_puts(&result, "OK");
    else if (rc == CDC_JSON_PARSE_CANCELED)
        cdc_buf_puts(&result, "CANCELED");
    else
        cdc_buf_append(&result, err.data, err.len);
    cdc_buf_free(&err);
    return cdc_buf_cstr(&result);
}

static const char *parse(const char *msg)
{
    cx.cancel_at = -1;
    return parse_n(msg, strlen(msg));
}

#define EXPECT(msg, want) cr_expect_str_eq(parse(msg), want, "input: %s", msg)

/* ---- tokens ------------------------------------------------------------------------------- */

Test(json_lex, every_token_kind)
{
    EXPECT("{\"a\":[1,-0,2.5e-3,true,false,null,\"x\"],\"b\":{},\"c\":[]}",
           "{ ka [ #1 #-0 #2.5e-3 t f n sx ] kb { } kc [ ] } | OK");
    EXPECT(" \t\r\n[ 1 , { \"k\" : \"v\" } ]\n", "[ #1 { kk sv } ] | OK");
    EXPECT("\"top\"", "stop | OK");
    EXPECT("42", "#42 | OK");
    EXPECT("true", "t | OK");
    EXPECT("null", "n | OK");
    EXPECT("{\"\":\"\"}", "{ k s } | OK");
}

Test(json_lex, offset_inside_callbacks)
{
    parse("  {\"a\":1}");
    cr_expect_eq(cx.open_offset, 3);
}

Test(json_lex, numbers)
{
    EXPECT("[-0,0,0.0,1e400,1E+2,1e-2,-12.5E7,123456789012345678901234567890]",
           "[ #-0 #0 #0.0 #1e400 #1E+2 #1e-2 #-12.5E7 #123456789012345678901234567890 ] | OK");
    /* leading zeros: "0" is a whole number, the "1" after it is a new token */
    EXPECT("[01]", "[ #0 | invalid JSON at byte 3: after array element, I expect ',' or ']'");
    EXPECT(
        "{\"id\":01}",
        "{ kid #0 | invalid JSON at byte 7: after key and value, inside map, I expect ',' or '}'");
    EXPECT("[-]", "[ | invalid JSON at byte 2: malformed number, a digit is required after the "
                  "minus sign");
    EXPECT("[1.]", "[ | invalid JSON at byte 3: malformed number, a digit is required after the "
                   "decimal point");
    EXPECT("[1e]", "[ | invalid JSON at byte 3: malformed number, a digit is required after the "
                   "exponent");
    EXPECT("[1e+]", "[ | invalid JSON at byte 4: malformed number, a digit is required after the "
                    "exponent");
    EXPECT("[.5]", "[ | invalid JSON at byte 2: invalid char in json text");
    EXPECT("[+1]", "[ | invalid JSON at byte 2: invalid char in json text");
    EXPECT("[1.5.3]", "[ #1.5 | invalid JSON at byte 5: invalid char in json text");
    /* a number cut by the end is complete; an incomplete one is judged there */
    EXPECT("-", " | invalid JSON at byte 1: malformed number, a digit is required after the "
                "minus sign");
    EXPECT("[1", "[ #1 | invalid JSON at byte 2: premature EOF");
    EXPECT("[1.", "[ | invalid JSON at byte 3: malformed number, a digit is required after the "
                  "decimal point");
}

/* ---- strings ------------------------------------------------------------------------------ */

Test(json_lex, escapes)
{
    EXPECT("[\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"]",
           "[ Sa\"b\\c/d\\x08e\\x0cf\\x0ag\\x0dh\\x09i ] | OK");
    EXPECT("[\"\\u0041\\u00e9\\u20AC\"]", "[ SA\\xc3\\xa9\\xe2\\x82\\xac ] | OK");
    /* a surrogate pair is one code point, U+1F600 */
    EXPECT("[\"\\ud83d\\ude00\"]", "[ S\\xf0\\x9f\\x98\\x80 ] | OK");
    /* unpaired surrogates become U+FFFD, and nothing after them is lost */
    EXPECT("[\"\\ud83dx\"]", "[ S\\xef\\xbf\\xbdx ] | OK");
    EXPECT("[\"\\ude00\\ud83d\"]", "[ S\\xef\\xbf\\xbd\\xef\\xbf\\xbd ] | OK");
    EXPECT("[\"\\ud83d\\u0041\"]", "[ S\\xef\\xbf\\xbdA ] | OK");
    /* \u0000 is a NUL byte inside the string */
    cr_expect_str_eq(parse("[\"a\\u0000b\"]"), "[ Sa\\x00b ] | OK");
    /* keys are unescaped too */
    EXPECT("{\"k\\u0031\":1}", "{ kk1 #1 } | OK");
    /* a string without escapes points into the message */
    EXPECT("[\"plain text that is longer than sixteen bytes\"]",
           "[ splain text that is longer than sixteen bytes ] | OK");
}

Test(json_lex, string_errors)
{
    EXPECT("[\"a\\x\"]", "[ | invalid JSON at byte 4: inside a string, '\\' occurs before a "
                         "character which it may not");
    EXPECT("[\"\\u12G4\"]", "[ | invalid JSON at byte 6: invalid (non-hex) character occurs "
                            "after '\\u' inside string");
    EXPECT("[\"a\tb\"]", "[ | invalid JSON at byte 3: invalid character inside string");
    EXPECT("[\"a\\u00", "[ | invalid JSON at byte 7: invalid (non-hex) character occurs "
                        "after '\\u' inside string");
    EXPECT("[\"a\\", "[ | invalid JSON at byte 4: inside a string, '\\' occurs before a "
                     "character which it may not");
    EXPECT("[\"abc", "[ | invalid JSON at byte 5: premature EOF");
    /* an escape in a string past a control character: the control character first */
    EXPECT("[\"\\n\x01\"]", "[ | invalid JSON at byte 4: invalid character inside string");
}

Test(json_lex, utf8)
{
    EXPECT("[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\x7f\"]",
           "[ s\\xc3\\xa9\\xe2\\x82\\xac\\xf0\\x9f\\x98\\x80\\x7f ] | OK");
    EXPECT("[\"a\xff\"]", "[ | invalid JSON at byte 4: invalid bytes in UTF8 string");
    EXPECT("[\"a\x80\"]", "[ | invalid JSON at byte 4: invalid bytes in UTF8 string");
    EXPECT("[\"\xc3\"]", "[ | invalid JSON at byte 4: invalid bytes in UTF8 string");
    EXPECT("[\"\xc3", "[ | invalid JSON at byte 3: invalid bytes in UTF8 string");
    /* strict (RFC 3629): overlong, surrogate, above U+10FFFF; yajl accepts these */
    EXPECT("[\"\xc0\x80\"]", "[ | invalid JSON at byte 4: invalid bytes in UTF8 string");
    EXPECT("[\"\xe0\x80\x80\"]", "[ | invalid JSON at byte 5: invalid bytes in UTF8 string");
    EXPECT("[\"\xed\xa0\x80\"]", "[ | invalid JSON at byte 5: invalid bytes in UTF8 string");
    EXPECT("[\"\xf4\x90\x80\x80\"]", "[ | invalid JSON at byte 6: invalid bytes in UTF8 string");
    EXPECT("[\"\xf5\x80\x80\x80\"]", "[ | invalid JSON at byte 6: invalid bytes in UTF8 string");
    /* UTF-8 in a long string (the 16-byte scan) and in a string with escapes */
    EXPECT("[\"0123456789abcdef\xc3\xa9\"]", "[ s0123456789abcdef\\xc3\\xa9 ] | OK");
    EXPECT("[\"\\n\xc3\xa9\"]", "[ S\\x0a\\xc3\\xa9 ] | OK");
    EXPECT("[\"\\n\xc3(\"]", "[ | invalid JSON at byte 6: invalid bytes in UTF8 string");
    /* outside strings, bytes >= 0x80 are not JSON */
    EXPECT("[\xc3\xa9]", "[ | invalid JSON at byte 2: invalid char in json text");
}

/* ---- structure ------------------------------------------------------------------------------ */

Test(json_lex, nesting_limit)
{
    static char buf[2 * CDC_JSON_PARSER_MAX_DEPTH + 4];
    size_t n = CDC_JSON_PARSER_MAX_DEPTH;
    memset(buf, '[', n);
    memset(buf + n, ']', n);
    cx.cancel_at = -1;
    const char *r = parse_n(buf, 2 * n);
    cr_expect(strstr(r, "| OK") != NULL, "%zu levels: %s", n, r + strlen(r) - 10);
    memset(buf, '[', n + 1);
    memset(buf + n + 1, ']', n + 1);
    r = parse_n(buf, 2 * n + 2);
    cr_expect(strstr(r, "| invalid JSON at byte 1025: containers nested deeper than 1024 levels"),
              "%s", r + strlen(r) - 80);
}

Test(json_lex, structure_errors)
{
    EXPECT("}", " | invalid JSON at byte 1: unallowed token at this point in JSON text");
    EXPECT("[,]", "[ | invalid JSON at byte 2: unallowed token at this point in JSON text");
    EXPECT("[1,]", "[ #1 | invalid JSON at byte 4: unallowed token at this point in JSON text");
    EXPECT("{\"id\":1,}",
           "{ kid #1 | invalid JSON at byte 9: invalid object key (must be a string)");
    EXPECT("{1:2}", "{ | invalid JSON at byte 2: invalid object key (must be a string)");
    EXPECT(
        "{\"a\" 1}",
        "{ ka | invalid JSON at byte 6: object key and value must be separated by a colon (':')");
    EXPECT(
        "{\"a\":1 \"bcd\"}",
        "{ ka #1 | invalid JSON at byte 9: after key and value, inside map, I expect ',' or '}'");
    EXPECT("[1 2]", "[ #1 | invalid JSON at byte 4: after array element, I expect ',' or ']'");
    EXPECT("[1}", "[ #1 | invalid JSON at byte 3: after array element, I expect ',' or ']'");
    EXPECT(
        "{\"a\":1]",
        "{ ka #1 | invalid JSON at byte 6: after key and value, inside map, I expect ',' or '}'");
    EXPECT("hello", " | invalid JSON at byte 1: invalid char in json text");
    EXPECT("nope", " | invalid JSON at byte 1: invalid string in json text");
    EXPECT("[tru", "[ | invalid JSON at byte 4: invalid string in json text");
    EXPECT("[/* c */]", "[ | invalid JSON at byte 1: probable comment found in input text, "
                        "comments are not enabled");
    EXPECT("   ", " | invalid JSON at byte 3: premature EOF");
    EXPECT("", " | invalid JSON at byte 0: premature EOF");
    EXPECT("{\"id\":", "{ kid | invalid JSON at byte 6: premature EOF");
    /* \v and \f are not JSON whitespace (yajl skips them) */
    EXPECT("[\v1]", "[ | invalid JSON at byte 2: invalid char in json text");
}

Test(json_lex, end_mark_and_trailing_data)
{
    EXPECT("{\"id\":1} \n", "{ kid #1 } | OK");
    EXPECT("{\"id\":1} x", "{ kid #1 } | invalid JSON at byte 9: trailing garbage");
    EXPECT("{\"id\":1} {}", "{ kid #1 } | invalid JSON at byte 9: trailing garbage");
    EXPECT("[1]\"abc", "[ #1 ] | invalid JSON at byte 3: trailing garbage");
    /* without the mark, values follow each other (yajl_allow_multiple_values) */
    cx.mark = false;
    EXPECT("{} [1] 2 \"x\"", "{ } [ #1 ] #2 sx | OK");
    EXPECT("01", "#0 #1 | OK");
    EXPECT("{} }", "{ } | invalid JSON at byte 4: unallowed token at this point in JSON text");
}

Test(json_lex, whole_document)
{
    const char *doc = "{\"a\":[1,-2.5e3,true,false,null],\"b\\n\":\"x\\u00e9\xc3\xa9\",\"c\":{}}";
    size_t n = strlen(doc);
    cx.cancel_at = -1;
    cr_assert_str_eq(parse_n(doc, n),
                     "{ ka [ #1 #-2.5e3 t f n ] kb\\x0a Sx\\xc3\\xa9\\xc3\\xa9 kc { } } | OK");
}

Test(json_lex, truncated_at_every_byte)
{
    const char *doc = "{\"a\":[1,-2.5e3,true,false,null],\"b\\n\":\"x\\u00e9\xc3\xa9\",\"c\":{}}";
    size_t n = strlen(doc);
    cx.cancel_at = -1;
    for (size_t k = 1; k < n; k++) {
        const char *r = parse_n(doc, k);
        char want[64];
        snprintf(want, sizeof(want), "| invalid JSON at byte %zu: ", k);
        cr_expect(strstr(r, want) != NULL, "prefix %zu: %s", k, r);
    }
}

Test(json_lex, cancel_from_every_callback)
{
    const char *doc = "{\"a\":[1,true,null,\"s\",{}]}";
    /* events: { ka [ #1 t n ss { } ] } */
    const char *want[] = {"{",
                          "{ ka",
                          "{ ka [",
                          "{ ka [ #1",
                          "{ ka [ #1 t",
                          "{ ka [ #1 t n",
                          "{ ka [ #1 t n ss",
                          "{ ka [ #1 t n ss {",
                          "{ ka [ #1 t n ss { }",
                          "{ ka [ #1 t n ss { } ]",
                          "{ ka [ #1 t n ss { } ] }"};
    for (int i = 0; i < 11; i++) {
        cx.cancel_at = i;
        char exp[96];
        snprintf(exp, sizeof(exp), "%s | CANCELED", want[i]);
        cr_expect_str_eq(parse_n(doc, strlen(doc)), exp, "cancel at %d", i);
    }
    /* the parser is usable after a cancel */
    cr_expect_str_eq(parse("[1]"), "[ #1 ] | OK");
}

Test(json_lex, reuse_after_errors)
{
    EXPECT("{\"a\":\"\\n", "{ ka | invalid JSON at byte 8: premature EOF");
    EXPECT("{\"a\":\"\\n\"}", "{ ka S\\x0a } | OK");
    EXPECT("[", "[ | invalid JSON at byte 1: premature EOF");
    EXPECT("{\"a\":1}", "{ ka #1 } | OK");
}
