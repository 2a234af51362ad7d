/*
 * json_lex.c — cdcflow's own JSON parser behind cdc_json_parser_t (see cdc_json.h).
 *
 * It parses one complete in-memory message and reports it to the same
 * yajl_callbacks the formats used to give yajl, with yajl's observable
 * behaviour: the same events with the same arguments (strings without escapes
 * point into the message, others into a reusable unescape buffer; numbers as
 * their text for yajl_number), a callback returning 0 cancels, several
 * top-level values follow each other as in yajl_allow_multiple_values, and
 * errors carry yajl's reasons at yajl's byte offsets (a token cut by the end
 * of the message is judged as if a space followed it, reported at the end,
 * like yajl_complete_parse).
 *
 * Deliberate differences from yajl 2.1, all RFC 8259 (and excluded by
 * fuzz/json_lex_diff.c):
 *  - UTF-8 is checked strictly: overlong forms, UTF-16 surrogates and code
 *    points above U+10FFFF are "invalid bytes in UTF8 string" (reported just
 *    after the sequence); yajl checks only the lead/continuation bit patterns.
 *  - \v and \f are not whitespace ("invalid char in json text").
 *  - An escaped UTF-16 surrogate that is not part of a high+low pair becomes
 *    U+FFFD; yajl writes "?" and drops the next character, or CESU bytes.
 *  - Containers nest at most CDC_JSON_PARSER_MAX_DEPTH deep.
 *  - A string left open by the end of the message is "premature EOF" even
 *    when it starts a second top-level value (nothing marked the end of the
 *    first); yajl's finishing pass accepts it there.
 *
 * Speed: one pass, a byte loop per state with table lookups for whitespace,
 * string bodies scanned 16 bytes at a time (SSE2) for '"', '\\', control and
 * non-ASCII bytes, no allocation per message (the unescape buffer grows to the
 * largest message once), and only the callbacks called indirectly.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cdc_json.h"

#define HOT static inline __attribute__((always_inline))
#define COLD static __attribute__((noinline, cold))

/* yajl's reasons, as cdc_json_parser_parse reported them (without "parse error: " and '.') */
static const char R_PREMATURE[] = "premature EOF";
static const char R_INVALID_CHAR[] = "invalid char in json text";
static const char R_INVALID_STRING[] = "invalid string in json text";
static const char R_UTF8[] = "invalid bytes in UTF8 string";
static const char R_ESCAPE[] = "inside a string, '\\' occurs before a character which it may not";
static const char R_CONTROL[] = "invalid character inside string";
static const char R_HEX[] = "invalid (non-hex) character occurs after '\\u' inside string";
static const char R_EXPONENT[] = "malformed number, a digit is required after the exponent";
static const char R_DECIMAL[] = "malformed number, a digit is required after the decimal point";
static const char R_MINUS[] = "malformed number, a digit is required after the minus sign";
static const char R_COMMENT[] = "probable comment found in input text, comments are not enabled";
static const char R_UNALLOWED[] = "unallowed token at this point in JSON text";
static const char R_KEY[] = "invalid object key (must be a string)";
static const char R_COLON[] = "object key and value must be separated by a colon (':')";
static const char R_MAP_NEXT[] = "after key and value, inside map, I expect ',' or '}'";
static const char R_ARRAY_NEXT[] = "after array element, I expect ',' or ']'";

#define STR_(x) #x
#define STR(x) STR_(x)
static const char R_DEPTH[] =
    "containers nested deeper than " STR(CDC_JSON_PARSER_MAX_DEPTH) " levels";

struct cdc_json_parser_s {
    const yajl_callbacks *cb; /* read at every event: the owner may swap its content */
    void *ctx;
    const unsigned char *msg; /* the message being parsed */
    size_t len;
    size_t pos;      /* offset just after the current token (cdc_json_parser_offset) */
    size_t root_end; /* offset marked by cdc_json_parser_mark_end, or SIZE_MAX */
    const char *reason;
    size_t err_at;
    unsigned char *ubuf; /* unescaped strings */
    size_t ucap;
    uint64_t stack[(CDC_JSON_PARSER_MAX_DEPTH + 63) / 64]; /* bit set: the level is a map */
};

enum { R_OK, R_ERR, R_CANCEL };

/* ---- character classes ------------------------------------------------------------------- */

/* JSON whitespace (RFC 8259: space, tab, line feed, carriage return) */
static const unsigned char ws_class[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1};

/* bytes that end the fast scan of a string body: '"', '\\', control, non-ASCII */
static const unsigned char str_class[256] = {
    [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1,
    [0x07] = 1, [0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1,
    [0x0e] = 1, [0x0f] = 1, [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1,
    [0x15] = 1, [0x16] = 1, [0x17] = 1, [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1,
    [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1, ['"'] = 1,  ['\\'] = 1, [0x80 ... 0xff] = 1};

/* hex digit value + 1, 0 for other bytes */
static const unsigned char hex_class[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,  ['7'] = 8,
    ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16};

/* the byte a one-character escape stands for, 0 for 'u' and invalid escapes */
static const unsigned char esc_value[256] = {
    ['"'] = '"',  ['\\'] = '\\', ['/'] = '/',  ['b'] = '\b',
    ['f'] = '\f', ['n'] = '\n',  ['r'] = '\r', ['t'] = '\t'};

static inline bool is_digit(unsigned char c)
{
    return (unsigned)(c - '0') < 10;
}

/* ---- errors -----------------------------------------------------------------------------------
 */

/* Records a lexical or parse error at offset at; returns NULL for the scanners' convenience. */
static const unsigned char *fail(cdc_json_parser_t *p, const char *reason, size_t at)
{
    p->reason = reason;
    p->err_at = at;
    return NULL;
}

/* The message ended inside a token: judged as if a space followed, at the end (yajl's finish). */
static const unsigned char *fail_end(cdc_json_parser_t *p, const char *reason)
{
    return fail(p, reason, p->len);
}

static size_t off(const cdc_json_parser_t *p, const unsigned char *q)
{
    return (size_t)(q - p->msg);
}

/* ---- strings ----------------------------------------------------------------------------------
 */

/*
 * One UTF-8 sequence starting at q (a byte >= 0x80). yajl's checks and offsets
 * first (lead byte pattern: just after it; a continuation byte that is not
 * 10xxxxxx: just after that byte; the end of the message: at the end), then
 * the strict ones (overlong, surrogate, above U+10FFFF: after the sequence).
 */
COLD const unsigned char *utf8_seq(cdc_json_parser_t *p, const unsigned char *q,
                                   const unsigned char *end)
{
    unsigned lead = *q++;
    int n = (lead >> 5) == 0x6 ? 1 : (lead >> 4) == 0xe ? 2 : (lead >> 3) == 0x1e ? 3 : 0;
    if (n == 0)
        return fail(p, R_UTF8, off(p, q));
    const unsigned char *first = q;
    for (int i = 0; i < n; i++) {
        if (q == end)
            return fail_end(p, R_UTF8);
        if ((*q++ >> 6) != 0x2)
            return fail(p, R_UTF8, off(p, q));
    }
    unsigned b1 = *first;
    bool ok = lead >= 0xc2 && lead <= 0xf4;
    if (lead == 0xe0)
        ok = b1 >= 0xa0; /* overlong */
    else if (lead == 0xed)
        ok = b1 <= 0x9f; /* surrogate */
    else if (lead == 0xf0)
        ok = b1 >= 0x90; /* overlong */
    else if (lead == 0xf4)
        ok = b1 <= 0x8f; /* above U+10FFFF */
    return ok ? q : fail(p, R_UTF8, off(p, q));
}

static void ubuf_reserve(cdc_json_parser_t *p, size_t need)
{
    if (need <= p->ucap)
        return;
    size_t cap = p->ucap ? p->ucap * 2 : 256;
    while (cap < need)
        cap *= 2;
    free(p->ubuf);
    p->ubuf = cdc_xmalloc(cap);
    p->ucap = cap;
}

/* Reads 4 hex digits at q (after "\u") into *cp; NULL on error. */
static const unsigned char *hex4(cdc_json_parser_t *p, const unsigned char *q,
                                 const unsigned char *end, unsigned *cp)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++, q++) {
        if (q == end)
            return fail_end(p, R_HEX);
        unsigned h = hex_class[*q];
        if (!h)
            return fail(p, R_HEX, off(p, q));
        v = v << 4 | (h - 1);
    }
    *cp = v;
    return q;
}

static unsigned char *put_utf8(unsigned char *o, unsigned cp)
{
    if (cp < 0x80) {
        *o++ = (unsigned char)cp;
    } else if (cp < 0x800) {
        *o++ = (unsigned char)(0xc0 | cp >> 6);
        *o++ = (unsigned char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        *o++ = (unsigned char)(0xe0 | cp >> 12);
        *o++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        *o++ = (unsigned char)(0x80 | (cp & 0x3f));
    } else {
        *o++ = (unsigned char)(0xf0 | cp >> 18);
        *o++ = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
        *o++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        *o++ = (unsigned char)(0x80 | (cp & 0x3f));
    }
    return o;
}

/*
 * A "\u" escape at q (the 'u'): decodes it, and a following low surrogate
 * escape with a high one, into o. Unpaired surrogates become U+FFFD.
 */
static const unsigned char *unicode_escape(cdc_json_parser_t *p, const unsigned char *q,
                                           const unsigned char *end, unsigned char **o)
{
    unsigned cp;
    q = hex4(p, q + 1, end, &cp);
    if (!q)
        return NULL;
    if (cp >= 0xd800 && cp <= 0xdfff) {
        unsigned lo;
        if (cp <= 0xdbff && end - q >= 6 && q[0] == '\\' && q[1] == 'u' &&
            hex4(p, q + 2, q + 6, &lo) && lo >= 0xdc00 && lo <= 0xdfff) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            q += 6;
        } else {
            cp = 0xfffd; /* the next escape, if any, is decoded (and checked) on its own */
        }
        p->reason = NULL; /* hex4 may have failed on the lookahead: not an error here */
    }
    *o = put_utf8(*o, cp);
    return q;
}

/*
 * The rest of a string from its first backslash or control byte at q
 * (start: just after the opening quote): unescapes into p->ubuf.
 */
COLD const unsigned char *string_slow(cdc_json_parser_t *p, const unsigned char *start,
                                      const unsigned char *q, const unsigned char *end,
                                      const unsigned char **out, size_t *outlen)
{
    if (*q != '\\')
        return fail(p, R_CONTROL, off(p, q));
    /* decoded text is never longer than its source */
    ubuf_reserve(p, (size_t)(end - start) + 1);
    unsigned char *o = p->ubuf;
    memcpy(o, start, (size_t)(q - start));
    o += q - start;
    for (;;) {
        unsigned char c = *q;
        if (c == '"') {
            *o = 0;
            *out = p->ubuf;
            *outlen = (size_t)(o - p->ubuf);
            return q + 1;
        }
        if (c == '\\') {
            if (++q == end)
                return fail_end(p, R_ESCAPE);
            if (*q == 'u') {
                q = unicode_escape(p, q, end, &o);
                if (!q)
                    return NULL;
            } else if (esc_value[*q]) {
                *o++ = esc_value[*q++];
            } else {
                return fail(p, R_ESCAPE, off(p, q));
            }
        } else if (c < 0x20) {
            return fail(p, R_CONTROL, off(p, q));
        } else if (c >= 0x80) {
            const unsigned char *e = utf8_seq(p, q, end);
            if (!e)
                return NULL;
            memcpy(o, q, (size_t)(e - q));
            o += e - q;
            q = e;
        } else {
            *o++ = c;
            q++;
        }
        if (q == end)
            return fail_end(p, R_PREMATURE);
    }
}

/*
 * A string whose opening quote is at q[-1]. Returns the position after its
 * closing quote with the content in *out and *outlen (into the message when it
 * has no escapes), or NULL with the error recorded.
 */
HOT const unsigned char *scan_string(cdc_json_parser_t *p, const unsigned char *q,
                                     const unsigned char *end, const unsigned char **out,
                                     size_t *outlen)
{
    const unsigned char *start = q;
    for (;;) {
#if defined(__SSE2__)
        const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
        const __m128i space = _mm_set1_epi8(0x20);
        while (end - q >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)q);
            /* signed < 0x20: control bytes and every byte >= 0x80 */
            __m128i hit =
                _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
                             _mm_cmplt_epi8(v, space));
            unsigned m = (unsigned)_mm_movemask_epi8(hit);
            if (m) {
                q += __builtin_ctz(m);
                goto special;
            }
            q += 16;
        }
#endif
        while (q < end && !str_class[*q])
            q++;
        if (q == end)
            return fail_end(p, R_PREMATURE);
#if defined(__SSE2__)
    special:
#endif
        if (*q == '"') {
            *out = start;
            *outlen = (size_t)(q - start);
            return q + 1;
        }
        if (*q < 0x80)
            return string_slow(p, start, q, end, out, outlen);
        q = utf8_seq(p, q, end);
        if (!q)
            return NULL;
    }
}

/* ---- numbers and literals ---------------------------------------------------------------------
 */

/* A number at q (a '-' or a digit), yajl's grammar: it ends before the first byte that cannot
 * continue it. */
HOT const unsigned char *scan_number(cdc_json_parser_t *p, const unsigned char *q,
                                     const unsigned char *end)
{
    if (*q == '-' && ++q == end)
        return fail_end(p, R_MINUS);
    if (*q == '0') {
        q++;
    } else if (is_digit(*q)) {
        do
            q++;
        while (q < end && is_digit(*q));
    } else {
        return fail(p, R_MINUS, off(p, q));
    }
    if (q < end && *q == '.') {
        if (++q == end)
            return fail_end(p, R_DECIMAL);
        if (!is_digit(*q))
            return fail(p, R_DECIMAL, off(p, q));
        do
            q++;
        while (q < end && is_digit(*q));
    }
    if (q < end && (*q | 0x20) == 'e') {
        if (++q == end)
            return fail_end(p, R_EXPONENT);
        if ((*q == '+' || *q == '-') && ++q == end)
            return fail_end(p, R_EXPONENT);
        if (!is_digit(*q))
            return fail(p, R_EXPONENT, off(p, q));
        do
            q++;
        while (q < end && is_digit(*q));
    }
    return q;
}

/* true, false or null at q (word[0] == *q), checked byte by byte as yajl does. */
COLD const unsigned char *literal_slow(cdc_json_parser_t *p, const unsigned char *q,
                                       const unsigned char *end, const char *word, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        if (q + i == end)
            return fail_end(p, R_INVALID_STRING);
        if (q[i] != (unsigned char)word[i])
            return fail(p, R_INVALID_STRING, off(p, q + i));
    }
    return q + n;
}

HOT const unsigned char *scan_literal(cdc_json_parser_t *p, const unsigned char *q,
                                      const unsigned char *end, const char *word, size_t n)
{
    if ((size_t)(end - q) >= n && memcmp(q, word, n) == 0)
        return q + n;
    return literal_slow(p, q, end, word, n);
}

/* ---- unexpected tokens --------------------------------------------------------------------------
 */

enum { ST_VALUE, ST_KEY, ST_COLON, ST_MAP_NEXT, ST_ARRAY_NEXT };

/*
 * A token at q that the state does not accept: lexes it as yajl would, for a
 * lexical error or the state's parse error at yajl's offset (just after the
 * token; for ST_MAP_NEXT yajl steps back by the token's length, without its
 * quotes for a string; a number cut by the end is judged at the end).
 */
COLD int unexpected(cdc_json_parser_t *p, const unsigned char *q, const unsigned char *end,
                    int state)
{
    const unsigned char *e, *s;
    size_t n;
    size_t back;
    switch (*q) {
    case '{':
    case '}':
    case '[':
    case ']':
    case ',':
    case ':':
        e = q + 1;
        back = 1;
        break;
    case '"':
        e = scan_string(p, q + 1, end, &s, &n);
        back = e ? (size_t)(e - q) - 2 : 0;
        break;
    case 't':
        e = scan_literal(p, q, end, "true", 4);
        back = 4;
        break;
    case 'f':
        e = scan_literal(p, q, end, "false", 5);
        back = 5;
        break;
    case 'n':
        e = scan_literal(p, q, end, "null", 4);
        back = 4;
        break;
    case '-':
    case '0' ... '9':
        e = scan_number(p, q, end);
        back = e ? (size_t)(e - q) : 0;
        if (e == end)
            back = 0; /* yajl saw it only at the end */
        break;
    case '/':
        e = fail(p, R_COMMENT, off(p, q));
        back = 0;
        break;
    default:
        e = fail(p, R_INVALID_CHAR, off(p, q) + 1);
        back = 0;
        break;
    }
    if (!e)
        return R_ERR;
    static const char *const reasons[] = {R_UNALLOWED, R_KEY, R_COLON, R_MAP_NEXT, R_ARRAY_NEXT};
    size_t at = off(p, e);
    if (state == ST_MAP_NEXT)
        at = at >= back ? at - back : 0;
    fail(p, reasons[state], at);
    return R_ERR;
}

/* ---- the parser -------------------------------------------------------------------------------
 */

#define SKIP_WS()                                                                                  \
    do {                                                                                           \
        while (q < end && ws_class[*q])                                                            \
            q++;                                                                                   \
    } while (0)

/* Calls callback NAME with the arguments after ctx, if set; cancels on 0. */
#define EVENT(name, ...)                                                                           \
    do {                                                                                           \
        p->pos = off(p, q);                                                                        \
        if (p->cb->name && !p->cb->name(p->ctx, ##__VA_ARGS__))                                    \
            return R_CANCEL;                                                                       \
    } while (0)

#define ERR_IF_NULL(x)                                                                             \
    do {                                                                                           \
        if (!(x))                                                                                  \
            return R_ERR;                                                                          \
    } while (0)

static int run(cdc_json_parser_t *p)
{
    const unsigned char *q = p->msg, *end = p->msg + p->len;
    unsigned depth = 0;
    const unsigned char *s, *e;
    size_t n;

value:
    SKIP_WS();
    if (q == end)
        goto eof;
    switch (*q) {
    case '"':
        e = scan_string(p, q + 1, end, &s, &n);
        ERR_IF_NULL(e);
        q = e;
        EVENT(yajl_string, s, n);
        goto after_value;
    case '{':
        if (depth == CDC_JSON_PARSER_MAX_DEPTH) {
            fail(p, R_DEPTH, off(p, q) + 1);
            return R_ERR;
        }
        q++;
        EVENT(yajl_start_map);
        p->stack[depth >> 6] |= (uint64_t)1 << (depth & 63);
        depth++;
        SKIP_WS();
        if (q < end && *q == '}') {
            q++;
            EVENT(yajl_end_map);
            depth--;
            goto after_value;
        }
        goto key;
    case '[':
        if (depth == CDC_JSON_PARSER_MAX_DEPTH) {
            fail(p, R_DEPTH, off(p, q) + 1);
            return R_ERR;
        }
        q++;
        EVENT(yajl_start_array);
        p->stack[depth >> 6] &= ~((uint64_t)1 << (depth & 63));
        depth++;
        SKIP_WS();
        if (q < end && *q == ']') {
            q++;
            EVENT(yajl_end_array);
            depth--;
            goto after_value;
        }
        goto value;
    case 't':
        e = scan_literal(p, q, end, "true", 4);
        ERR_IF_NULL(e);
        q = e;
        EVENT(yajl_boolean, 1);
        goto after_value;
    case 'f':
        e = scan_literal(p, q, end, "false", 5);
        ERR_IF_NULL(e);
        q = e;
        EVENT(yajl_boolean, 0);
        goto after_value;
    case 'n':
        e = scan_literal(p, q, end, "null", 4);
        ERR_IF_NULL(e);
        q = e;
        EVENT(yajl_null);
        goto after_value;
    case '-':
    case '0' ... '9':
        s = q;
        e = scan_number(p, q, end);
        ERR_IF_NULL(e);
        q = e;
        EVENT(yajl_number, (const char *)s, (size_t)(e - s));
        goto after_value;
    default:
        return unexpected(p, q, end, ST_VALUE);
    }

key:
    SKIP_WS();
    if (q == end)
        goto eof;
    if (*q != '"')
        return unexpected(p, q, end, ST_KEY);
    e = scan_string(p, q + 1, end, &s, &n);
    ERR_IF_NULL(e);
    q = e;
    EVENT(yajl_map_key, s, n);
    SKIP_WS();
    if (q == end)
        goto eof;
    if (*q != ':')
        return unexpected(p, q, end, ST_COLON);
    q++;
    goto value;

after_value:
    if (depth == 0) {
        /* the end of a top-level value: the owner decides about the rest */
        if (p->root_end != SIZE_MAX)
            return R_OK;
        SKIP_WS();
        if (q == end)
            return R_OK;
        goto value; /* another value, as yajl_allow_multiple_values */
    }
    SKIP_WS();
    if (q == end)
        goto eof;
    if (p->stack[(depth - 1) >> 6] & ((uint64_t)1 << ((depth - 1) & 63))) {
        if (*q == ',') {
            q++;
            goto key;
        }
        if (*q != '}')
            return unexpected(p, q, end, ST_MAP_NEXT);
        q++;
        EVENT(yajl_end_map);
    } else {
        if (*q == ',') {
            q++;
            goto value;
        }
        if (*q != ']')
            return unexpected(p, q, end, ST_ARRAY_NEXT);
        q++;
        EVENT(yajl_end_array);
    }
    depth--;
    goto after_value;

eof:
    fail_end(p, R_PREMATURE);
    return R_ERR;
}

/* ---- the API ----------------------------------------------------------------------------------
 */

cdc_json_parser_t *cdc_json_parser_new(const yajl_callbacks *callbacks, void *ctx)
{
    /* numbers are reported as text only */
    if (!callbacks->yajl_number && (callbacks->yajl_integer || callbacks->yajl_double))
        abort();
    cdc_json_parser_t *p = cdc_xcalloc(1, sizeof(*p));
    p->cb = callbacks;
    p->ctx = ctx;
    p->root_end = SIZE_MAX;
    return p;
}

void cdc_json_parser_destroy(cdc_json_parser_t *p)
{
    if (!p)
        return;
    free(p->ubuf);
    free(p);
}

size_t cdc_json_parser_offset(const cdc_json_parser_t *p)
{
    return p->pos;
}

void cdc_json_parser_mark_end(cdc_json_parser_t *p)
{
    if (p->root_end == SIZE_MAX)
        p->root_end = p->pos;
}

/* Offset of the first non-whitespace byte at or after from, or len. */
static size_t skip_space(const char *msg, size_t len, size_t from)
{
    while (from < len && ws_class[(unsigned char)msg[from]])
        from++;
    return from;
}

static void set_invalid(cdc_buf_t *err, size_t at, const char *reason)
{
    cdc_buf_clear(err);
    cdc_buf_printf(err, "invalid JSON at byte %zu: %s", at, reason);
}

int cdc_json_parser_parse(cdc_json_parser_t *p, const char *msg, size_t len, cdc_buf_t *err)
{
    if (skip_space(msg, len, 0) == len) {
        set_invalid(err, len, R_PREMATURE);
        return CDC_JSON_PARSE_INVALID;
    }
    p->msg = (const unsigned char *)msg;
    p->len = len;
    p->pos = 0;
    p->root_end = SIZE_MAX;
    int rc = run(p);
    if (p->root_end != SIZE_MAX) {
        size_t junk = skip_space(msg, len, p->root_end);
        if (junk < len) {
            /* whatever the rest is, bytes follow the complete value */
            set_invalid(err, junk, "trailing garbage");
            return CDC_JSON_PARSE_INVALID;
        }
    }
    if (rc == R_CANCEL)
        return CDC_JSON_PARSE_CANCELED;
    if (rc == R_ERR) {
        set_invalid(err, p->err_at, p->reason);
        return CDC_JSON_PARSE_INVALID;
    }
    return CDC_JSON_PARSE_OK;
}
