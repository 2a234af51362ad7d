/*
 * cdc_expr_str.c — Flink's string built-ins beyond the basic ones of
 * cdc_expr_func.c: REPLACE, REGEXP, REGEXP_REPLACE, REGEXP_EXTRACT, LPAD,
 * RPAD, POSITION, LOCATE, SPLIT_INDEX, INITCAP, REVERSE, MD5, SHA256,
 * TO_BASE64, FROM_BASE64, HASH_CODE, CHR, ASCII and IS [NOT] DISTINCT FROM.
 *
 * Semantics follow Flink's SqlFunctionUtils: NULL in, NULL out; a bad
 * regular expression or an out-of-range group gives NULL (REGEXP: FALSE)
 * at run time; a constant pattern is compiled once, at plan time, where a
 * bad one is an error. Regular expressions are POSIX extended (regcomp) with
 * \d and \D translated, matched on characters (the C.UTF-8 locale); other
 * Java-only syntax (lazy quantifiers, (?i), lookaround, \p{..}) is not
 * supported. Positions count code points.
 */
#include <locale.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_digest.h"
#include "cdc_expr_int.h"
#include "cdc_value_text.h"

#define EVAL_KID CDC_XEVAL_KID
#define EVAL_KID_OR_NULL CDC_XEVAL_KID_OR_NULL

/* Evaluates every kid into v[]; true when one is NULL (out is then set NULL). */
static int eval_all(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *v, cdc_value_t *out,
                    bool *is_null)
{
    *is_null = false;
    for (int i = 0; i < n->nkids; i++) {
        EVAL_KID(i, &v[i]);
        if (cdc_value_is_null(&v[i]))
            *is_null = true;
    }
    if (*is_null)
        cdc_xset_null(out);
    return 0;
}

#define EVAL_ALL(v)                                                                                \
    do {                                                                                           \
        bool null_;                                                                                \
        if (eval_all(n, cx, (v), out, &null_) < 0)                                                 \
            return -1;                                                                             \
        if (null_)                                                                                 \
            return 0;                                                                              \
    } while (0)

/* Byte offset of the first occurrence of needle in hay[from..), or -1. */
static long find_bytes(const char *hay, size_t hlen, size_t from, const char *needle, size_t nlen)
{
    if (nlen == 0)
        return from <= hlen ? (long)from : -1;
    for (size_t i = from; i + nlen <= hlen; i++)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, nlen) == 0)
            return (long)i;
    return -1;
}

static char *alloc_str(cdc_xctx_t *cx, size_t len)
{
    return cdc_arena_alloc(cx->arena, len ? len : 1);
}

/* ---- REPLACE -------------------------------------------------------------------------------- */

/* REPLACE(s, from, to) as Java's String.replace: an empty `from` inserts `to` around every
 * character. */
static int eval_replace(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t v[3];
    EVAL_ALL(v);
    const char *s = v[0].v.s.ptr, *from = v[1].v.s.ptr, *to = v[2].v.s.ptr;
    size_t slen = v[0].v.s.len, flen = v[1].v.s.len, tlen = v[2].v.s.len, count = 0;
    if (flen == 0) {
        count = cdc_xutf8_count(s, slen) + 1;
    } else {
        for (long at = find_bytes(s, slen, 0, from, flen); at >= 0;
             at = find_bytes(s, slen, (size_t)at + flen, from, flen))
            count++;
    }
    if (count == 0) {
        *out = v[0];
        return 0;
    }
    size_t len = slen + count * tlen - (flen ? count * flen : 0);
    if (len > UINT32_MAX)
        return cdc_xerr(cx, "REPLACE: result longer than 4 GB");
    char *p = alloc_str(cx, len), *w = p;
    size_t i = 0;
    if (flen == 0) {
        for (;;) {
            memcpy(w, to, tlen);
            w += tlen;
            if (i >= slen)
                break;
            size_t cl = cdc_xutf8_len(s + i, slen - i);
            memcpy(w, s + i, cl);
            w += cl;
            i += cl;
        }
    } else {
        for (long at = find_bytes(s, slen, 0, from, flen); at >= 0;
             at = find_bytes(s, slen, i, from, flen)) {
            memcpy(w, s + i, (size_t)at - i);
            w += (size_t)at - i;
            memcpy(w, to, tlen);
            w += tlen;
            i = (size_t)at + flen;
        }
        memcpy(w, s + i, slen - i);
    }
    cdc_xset_str(out, p, len);
    return 0;
}

/* ---- regular expressions -------------------------------------------------------------------- */

enum { RX_MATCH, RX_REPLACE, RX_EXTRACT };

/* Patterns and strings are UTF-8: regcomp/regexec run under the C.UTF-8 locale of the calling
 * thread only (uselocale), so '.' and classes match whole characters; without that locale they
 * match bytes. */
static locale_t rx_loc;
static pthread_once_t rx_loc_once = PTHREAD_ONCE_INIT;

static void rx_loc_init(void)
{
    rx_loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

static locale_t rx_enter(void)
{
    pthread_once(&rx_loc_once, rx_loc_init);
    return rx_loc ? uselocale(rx_loc) : (locale_t)0;
}

static void rx_leave(locale_t prev)
{
    if (rx_loc)
        uselocale(prev);
}

/* Java regex text -> POSIX ERE: \d and \D become classes. Returns the regcomp code. */
static int rx_compile(regex_t *re, const char *p, size_t len, char *text)
{
    size_t w = 0;
    bool in_class = false;
    for (size_t i = 0; i < len; i++) {
        char c = p[i];
        if (c == '\\' && i + 1 < len && (p[i + 1] == 'd' || p[i + 1] == 'D')) {
            bool neg = p[i + 1] == 'D';
            const char *cls = in_class ? "0-9" : neg ? "[^0-9]" : "[0-9]";
            memcpy(text + w, cls, strlen(cls));
            w += strlen(cls);
            i++;
            continue;
        }
        if (c == '\\' && i + 1 < len) {
            text[w++] = c;
            text[w++] = p[++i];
            continue;
        }
        if (c == '[' && !in_class)
            in_class = true;
        else if (c == ']' && in_class && i > 0 && p[i - 1] != '[' && p[i - 1] != '^')
            in_class = false;
        text[w++] = c;
    }
    text[w] = '\0';
    locale_t prev = rx_enter();
    int rc = regcomp(re, text, REG_EXTENDED);
    rx_leave(prev);
    return rc;
}

static void rx_free(void *aux)
{
    regfree(aux);
    free(aux);
}

/* The node's regex: the one compiled at plan time, or the pattern p compiled into *local (the
 * caller frees it when *used_local). False when the pattern does not compile. */
static bool rx_get(const cdc_xnode_t *n, cdc_xctx_t *cx, const cdc_value_t *p, regex_t *local,
                   const regex_t **re, bool *used_local)
{
    *used_local = false;
    if (n->aux) {
        *re = n->aux;
        return true;
    }
    char *text = cdc_arena_alloc(cx->arena, (size_t)p->v.s.len * 5 + 1);
    if (rx_compile(local, p->v.s.ptr, p->v.s.len, text) != 0)
        return false;
    *re = local;
    *used_local = true;
    return true;
}

/* One match of re in s[from..len): 0 with m[] filled (offsets into s), or REG_NOMATCH. */
static int rx_exec(const regex_t *re, const char *s, size_t from, size_t len, regmatch_t *m,
                   size_t nm)
{
    m[0].rm_so = (regoff_t)from;
    m[0].rm_eo = (regoff_t)len;
    locale_t prev = rx_enter();
    int rc = regexec(re, s ? s : "", nm, m, REG_STARTEND | (from > 0 ? REG_NOTBOL : 0));
    rx_leave(prev);
    return rc;
}

/* REGEXP(s, re) -> BOOLEAN; REGEXP_REPLACE(s, re, literal); REGEXP_EXTRACT(s, re [, group]). */
static int eval_regexp(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t v[3];
    EVAL_ALL(v);
    const char *s = v[0].v.s.ptr;
    size_t slen = v[0].v.s.len;
    regex_t local;
    const regex_t *re;
    bool used_local;
    if (n->ival == RX_MATCH && v[1].v.s.len == 0) { /* Flink: an empty pattern never matches */
        out->flags = 0;
        out->v.b = false;
        return 0;
    }
    if (!rx_get(n, cx, &v[1], &local, &re, &used_local)) {
        if (n->ival == RX_MATCH) {
            out->flags = 0;
            out->v.b = false;
        } else {
            cdc_xset_null(out);
        }
        return 0;
    }
    regmatch_t m[10];
    int rc = 0;
    if (n->ival == RX_MATCH) {
        out->flags = 0;
        out->v.b = rx_exec(re, s, 0, slen, m, 1) == 0;
    } else if (n->ival == RX_EXTRACT) {
        int64_t group = n->nkids > 2 ? v[2].v.i : 0;
        if (group < 0 || (size_t)group > re->re_nsub || group >= 10 ||
            rx_exec(re, s, 0, slen, m, 10) != 0 || m[group].rm_so < 0)
            cdc_xset_null(out);
        else
            cdc_xset_str(out, s + m[group].rm_so, (size_t)(m[group].rm_eo - m[group].rm_so));
    } else {
        /* two passes: the length, then the text; an empty match copies one character */
        const char *to = v[2].v.s.ptr;
        size_t tlen = v[2].v.s.len;
        char *p = NULL;
        size_t len = 0;
        for (int pass = 0; pass < 2; pass++) {
            size_t i = 0, w = 0;
            while (i <= slen && rx_exec(re, s, i, slen, m, 1) == 0) {
                size_t so = (size_t)m[0].rm_so, eo = (size_t)m[0].rm_eo;
                if (pass) {
                    memcpy(p + w, s + i, so - i);
                    memcpy(p + w + so - i, to, tlen);
                }
                w += so - i + tlen;
                i = eo;
                if (eo == so) {
                    if (eo >= slen) {
                        i = slen + 1;
                        break;
                    }
                    size_t cl = cdc_xutf8_len(s + eo, slen - eo);
                    if (pass)
                        memcpy(p + w, s + eo, cl);
                    w += cl;
                    i = eo + cl;
                }
            }
            if (i < slen) {
                if (pass)
                    memcpy(p + w, s + i, slen - i);
                w += slen - i;
            }
            if (!pass) {
                if (w > UINT32_MAX) {
                    rc = cdc_xerr(cx, "REGEXP_REPLACE: result longer than 4 GB");
                    break;
                }
                len = w;
                p = alloc_str(cx, len);
            }
        }
        if (rc == 0)
            cdc_xset_str(out, p, len);
    }
    if (used_local)
        regfree(&local);
    return rc;
}

/* ---- padding, search, split ----------------------------------------------------------------- */

/* LPAD/RPAD(s, len, pad): NULL for a negative len or an empty pad; s cut to len characters when
 * longer. ival: 1 for RPAD. */
static int eval_pad(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t v[3];
    EVAL_ALL(v);
    int64_t want = v[1].v.i;
    if (want < 0 || v[2].v.s.len == 0) {
        cdc_xset_null(out);
        return 0;
    }
    const char *s = v[0].v.s.ptr, *pad = v[2].v.s.ptr;
    size_t slen = v[0].v.s.len, plen = v[2].v.s.len;
    size_t have = cdc_xutf8_count(s, slen);
    if ((uint64_t)want <= have) {
        cdc_xset_str(out, s, cdc_xutf8_offset(s, slen, (size_t)want));
        return 0;
    }
    size_t fill = (size_t)want - have, pchars = cdc_xutf8_count(pad, plen);
    size_t whole = fill / pchars, part = cdc_xutf8_offset(pad, plen, fill % pchars);
    if (whole > (UINT32_MAX - slen - part) / plen)
        return cdc_xerr(cx, "%s: result longer than 4 GB", n->ival ? "RPAD" : "LPAD");
    size_t len = slen + whole * plen + part;
    char *p = alloc_str(cx, len), *w = p;
    if (n->ival) {
        memcpy(w, s, slen);
        w += slen;
    }
    for (size_t k = 0; k < whole; k++, w += plen)
        memcpy(w, pad, plen);
    memcpy(w, pad, part);
    w += part;
    if (!n->ival)
        memcpy(w, s, slen);
    cdc_xset_str(out, p, len);
    return 0;
}

/* POSITION(needle IN s) / LOCATE(needle, s [, from]): 1-based character position, 0 when not
 * found. */
static int eval_locate(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t v[3] = {0}; /* (two kids or three) */
    EVAL_ALL(v);
    const char *s = v[1].v.s.ptr;
    size_t slen = v[1].v.s.len;
    int64_t from = n->nkids > 2 ? v[2].v.i : 1;
    out->flags = 0;
    out->v.i = 0;
    if (from < 1)
        return 0;
    size_t nchars = cdc_xutf8_count(s, slen);
    if (v[0].v.s.len == 0) { /* Java's indexOf: an empty needle is found where the search starts */
        out->v.i = (uint64_t)from - 1 < nchars ? from : (int64_t)nchars + 1;
        return 0;
    }
    if ((uint64_t)from - 1 >= nchars)
        return 0;
    size_t start = cdc_xutf8_offset(s, slen, (size_t)from - 1);
    long at = find_bytes(s, slen, start, v[0].v.s.ptr, v[0].v.s.len);
    if (at >= 0)
        out->v.i = (int64_t)cdc_xutf8_count(s, (size_t)at) + 1;
    return 0;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* SPLIT_INDEX(s, sep, i): the i-th (0-based) field of s split at every sep (an empty sep: at
 * every whitespace character); NULL when out of range or s is empty. */
static int eval_split_index(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t v[3];
    EVAL_ALL(v);
    const char *s = v[0].v.s.ptr, *sep = v[1].v.s.ptr;
    size_t slen = v[0].v.s.len, seplen = v[1].v.s.len;
    int64_t want = v[2].v.i;
    cdc_xset_null(out);
    if (want < 0 || slen == 0)
        return 0;
    size_t start = 0;
    for (int64_t field = 0;; field++) {
        size_t end = start, next;
        if (seplen == 0) {
            while (end < slen && !is_space(s[end]))
                end++;
            next = end + 1;
        } else {
            long at = find_bytes(s, slen, start, sep, seplen);
            end = at < 0 ? slen : (size_t)at;
            next = end + seplen;
        }
        if (field == want) {
            cdc_xset_str(out, s + start, end - start);
            return 0;
        }
        if (end >= slen)
            return 0;
        start = next;
    }
}

/* ---- per-character functions ---------------------------------------------------------------- */

static bool is_alnum_ascii(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* INITCAP as Flink's (Calcite's): words are runs of ASCII letters and digits; the first
 * character of each is upper-cased, the others lower-cased; every other character (non-ASCII
 * ones included) separates words and is kept. */
static int eval_initcap(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a;
    EVAL_KID_OR_NULL(0, &a);
    char *p = alloc_str(cx, a.v.s.len);
    bool start = true;
    for (uint32_t i = 0; i < a.v.s.len; i++) {
        unsigned char c = (unsigned char)a.v.s.ptr[i];
        if (is_alnum_ascii(c)) {
            if (start && c >= 'a' && c <= 'z')
                c = (unsigned char)(c - 'a' + 'A');
            else if (!start && c >= 'A' && c <= 'Z')
                c = (unsigned char)(c - 'A' + 'a');
            start = false;
        } else {
            start = true;
        }
        p[i] = (char)c;
    }
    cdc_xset_str(out, p, a.v.s.len);
    return 0;
}

static int eval_reverse(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a;
    EVAL_KID_OR_NULL(0, &a);
    size_t len = a.v.s.len;
    char *p = alloc_str(cx, len);
    for (size_t i = 0; i < len;) {
        size_t cl = cdc_xutf8_len(a.v.s.ptr + i, len - i);
        memcpy(p + len - i - cl, a.v.s.ptr + i, cl);
        i += cl;
    }
    cdc_xset_str(out, p, len);
    return 0;
}

/* The code point at s[0..len) and its byte count (U+FFFD for an invalid byte). */
static uint32_t utf8_decode(const char *s, size_t len, size_t *cl)
{
    *cl = cdc_xutf8_len(s, len);
    const unsigned char *u = (const unsigned char *)s;
    switch (*cl) {
    case 2:
        return (uint32_t)(u[0] & 0x1F) << 6 | (u[1] & 0x3F);
    case 3:
        return (uint32_t)(u[0] & 0x0F) << 12 | (uint32_t)(u[1] & 0x3F) << 6 | (u[2] & 0x3F);
    case 4:
        return (uint32_t)(u[0] & 0x07) << 18 | (uint32_t)(u[1] & 0x3F) << 12 |
               (uint32_t)(u[2] & 0x3F) << 6 | (u[3] & 0x3F);
    default:
        return u[0] < 0x80 ? u[0] : 0xFFFD;
    }
}

/* HASH_CODE(s): Java's String.hashCode over the UTF-16 code units. */
static int eval_hash_code(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a;
    EVAL_KID_OR_NULL(0, &a);
    uint32_t h = 0;
    for (size_t i = 0; i < a.v.s.len;) {
        size_t cl;
        uint32_t cp = utf8_decode(a.v.s.ptr + i, a.v.s.len - i, &cl);
        if (cp >= 0x10000) {
            h = h * 31 + (0xD800 + ((cp - 0x10000) >> 10));
            h = h * 31 + (0xDC00 + ((cp - 0x10000) & 0x3FF));
        } else {
            h = h * 31 + cp;
        }
        i += cl;
    }
    out->flags = 0;
    out->v.i = (int32_t)h;
    return 0;
}

/* ASCII(s): the first character's code (0 for ''). */
static int eval_ascii(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a;
    EVAL_KID_OR_NULL(0, &a);
    size_t cl;
    out->flags = 0;
    out->v.i = a.v.s.len ? (int64_t)utf8_decode(a.v.s.ptr, a.v.s.len, &cl) : 0;
    return 0;
}

/* CHR(n): the character of code n mod 256 ('' for a negative n), as Flink. */
static int eval_chr(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a;
    EVAL_KID_OR_NULL(0, &a);
    char *p = alloc_str(cx, 2);
    size_t len = 0;
    if (a.v.i >= 0) {
        unsigned c = (unsigned)(a.v.i & 0xFF);
        if (c < 0x80) {
            p[len++] = (char)c;
        } else {
            p[len++] = (char)(0xC0 | (c >> 6));
            p[len++] = (char)(0x80 | (c & 0x3F));
        }
    }
    cdc_xset_str(out, p, len);
    return 0;
}

/* ---- digests and base64 --------------------------------------------------------------------- */

/* MD5(s) / SHA256(s): lowercase hex of the UTF-8 bytes' digest. ival: 1 for SHA256. */
static int eval_digest(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a;
    EVAL_KID_OR_NULL(0, &a);
    unsigned char d[32];
    size_t dlen = n->ival ? 32 : 16;
    if (n->ival)
        cdc_digest_sha256(a.v.s.ptr, a.v.s.len, d);
    else
        cdc_digest_md5(a.v.s.ptr, a.v.s.len, d);
    char *p = alloc_str(cx, dlen * 2);
    cdc_digest_hex(d, dlen, p);
    cdc_xset_str(out, p, dlen * 2);
    return 0;
}

static int eval_to_base64(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a;
    EVAL_KID_OR_NULL(0, &a);
    size_t cap = ((size_t)a.v.s.len + 2) / 3 * 4 + 1;
    cdc_buf_t b = {alloc_str(cx, cap), 0, cap}; /* big enough: the encoder never grows it */
    cdc_text_base64_encode(&b, (const unsigned char *)a.v.s.ptr, a.v.s.len);
    cdc_xset_str(out, b.data, b.len);
    return 0;
}

static int eval_from_base64(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a;
    EVAL_KID_OR_NULL(0, &a);
    unsigned char *p = (unsigned char *)alloc_str(cx, (size_t)a.v.s.len / 4 * 3 + 3);
    long len = cdc_text_base64_decode(a.v.s.ptr, a.v.s.len, false, p);
    if (len < 0)
        return cdc_xerr(cx,
                        "FROM_BASE64: '%.*s' is not base64 (standard alphabet A-Z a-z 0-9 + /, "
                        "'=' padding)",
                        (int)(a.v.s.len > 64 ? 64 : a.v.s.len), a.v.s.ptr);
    cdc_xset_str(out, (const char *)p, (size_t)len);
    return 0;
}

/* ---- IS [NOT] DISTINCT FROM ----------------------------------------------------------------- */

/* NULL equals NULL; never NULL. negated: IS NOT DISTINCT FROM. */
static int eval_distinct(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t a, b;
    EVAL_KID(0, &a);
    EVAL_KID(1, &b);
    bool an = cdc_value_is_null(&a), bn = cdc_value_is_null(&b), distinct;
    if (an || bn)
        distinct = an != bn;
    else
        distinct = n->cmp(n->kids[0]->type, &a, n->kids[1]->type, &b) != 0;
    out->flags = 0;
    out->v.b = distinct != n->negated;
    return 0;
}

/* ---- compile -------------------------------------------------------------------------------- */

/* Every argument a string, except those marked 'i' (integer) in @p kinds ("ssi"). */
static bool check_args(cdc_xnode_t **args, int nargs, const char *kinds)
{
    cdc_type_t *str = cdc_xstring_type(true), *bigint = cdc_xtype_of(CDC_T_BIGINT, true);
    bool ok = true;
    for (int i = 0; i < nargs; i++) {
        bool want_int = kinds[i] == 'i';
        cdc_xcoerce_null(args[i], want_int ? bigint : str);
        if (want_int ? !cdc_xis_int(args[i]) : !cdc_xis_str(args[i]))
            ok = false;
    }
    cdc_type_destroy(str);
    cdc_type_destroy(bigint);
    return ok;
}

typedef struct str_func {
    const char *kinds; /* argument kinds, s or i */
    cdc_xeval_fn eval;
    cdc_type_root_t result; /* CDC_T_VARCHAR for STRING */
    bool nullable;          /* the result may be NULL for non-NULL arguments */
} str_func_t;

enum {
    SF_REPLACE,
    SF_LPAD,
    SF_RPAD,
    SF_LOCATE,
    SF_SPLIT_INDEX,
    SF_INITCAP,
    SF_REVERSE,
    SF_MD5,
    SF_SHA256,
    SF_TO_BASE64,
    SF_FROM_BASE64,
    SF_HASH_CODE,
    SF_ASCII,
    SF_CHR
};

static const str_func_t str_funcs[] = {
    [SF_REPLACE] = {"sss", eval_replace, CDC_T_VARCHAR, false},
    [SF_LPAD] = {"sis", eval_pad, CDC_T_VARCHAR, true},
    [SF_RPAD] = {"sis", eval_pad, CDC_T_VARCHAR, true},
    [SF_LOCATE] = {"ssi", eval_locate, CDC_T_INT, false},
    [SF_SPLIT_INDEX] = {"ssi", eval_split_index, CDC_T_VARCHAR, true},
    [SF_INITCAP] = {"s", eval_initcap, CDC_T_VARCHAR, false},
    [SF_REVERSE] = {"s", eval_reverse, CDC_T_VARCHAR, false},
    [SF_MD5] = {"s", eval_digest, CDC_T_VARCHAR, false},
    [SF_SHA256] = {"s", eval_digest, CDC_T_VARCHAR, false},
    [SF_TO_BASE64] = {"s", eval_to_base64, CDC_T_VARCHAR, false},
    [SF_FROM_BASE64] = {"s", eval_from_base64, CDC_T_VARCHAR, false},
    [SF_HASH_CODE] = {"s", eval_hash_code, CDC_T_INT, false},
    [SF_ASCII] = {"s", eval_ascii, CDC_T_INT, false},
    [SF_CHR] = {"i", eval_chr, CDC_T_VARCHAR, false},
};

/* The functions of str_funcs; variant: SF_*. ival: 1 for RPAD and SHA256. */
static cdc_xnode_t *f_str(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                          const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    const str_func_t *f = &str_funcs[def->variant];
    if (!check_args(args, nargs, f->kinds))
        return cdc_xbad(cc, ast, def, args, nargs);
    bool nullable = f->nullable || cdc_xany_nullable(args, nargs);
    cdc_type_t *t =
        f->result == CDC_T_VARCHAR ? cdc_xstring_type(nullable) : cdc_xtype_of(f->result, nullable);
    cdc_xnode_t *n = cdc_xnode_new(f->eval, t, ast->line, ast->col);
    n->ival = def->variant == SF_RPAD || def->variant == SF_SHA256;
    return cdc_xadopt(cc, n, args, nargs);
}

static cdc_xnode_t *f_regexp(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                             const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    const char *kinds = def->variant == RX_EXTRACT ? "ssi" : "sss";
    if (!check_args(args, nargs, kinds))
        return cdc_xbad(cc, ast, def, args, nargs);
    regex_t *re = NULL;
    cdc_xnode_t *pat = args[1];
    if (pat->eval == cdc_xeval_literal && !cdc_value_is_null(&pat->lit) &&
        !(def->variant == RX_MATCH && pat->lit.v.s.len == 0)) {
        re = cdc_xmalloc(sizeof(*re));
        char *text = cdc_xmalloc((size_t)pat->lit.v.s.len * 5 + 1);
        int rc = rx_compile(re, pat->lit.v.s.ptr, pat->lit.v.s.len, text);
        free(text);
        if (rc != 0) {
            char msg[128];
            regerror(rc, re, msg, sizeof(msg));
            free(re);
            const cdc_sql_expr_t *at = ast->call.args[1];
            cdc_xcerr(cc, at->line, at->col,
                      "patterns are POSIX extended regular expressions (with \\d and \\D)",
                      "invalid regular expression '%.*s' in \"%s\": %s", (int)pat->lit.v.s.len,
                      pat->lit.v.s.ptr, def->name, msg);
            cdc_xfree_args(args, nargs);
            return NULL;
        }
    }
    bool nullable = def->variant != RX_MATCH || cdc_xany_nullable(args, nargs);
    cdc_type_t *t = def->variant == RX_MATCH ? cdc_xtype_of(CDC_T_BOOLEAN, nullable)
                                             : cdc_xstring_type(nullable);
    cdc_xnode_t *n = cdc_xnode_new(eval_regexp, t, ast->line, ast->col);
    n->ival = def->variant;
    n->aux = re;
    n->aux_free = re ? rx_free : NULL;
    return cdc_xadopt(cc, n, args, nargs);
}

static cdc_xnode_t *f_distinct(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                               const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    cdc_xcmp_fn cmp = cdc_xcmp_prepare(cc, args, nargs, def->name, ast->line, ast->col);
    if (!cmp) {
        cdc_xfree_args(args, nargs);
        return NULL;
    }
    cdc_xnode_t *n =
        cdc_xnode_new(eval_distinct, cdc_xtype_of(CDC_T_BOOLEAN, false), ast->line, ast->col);
    n->negated = def->variant != 0;
    n->cmp = cmp;
    return cdc_xadopt(cc, n, args, 2);
}

const cdc_xfunc_def_t cdc_xfuncs_str[] = {
    {"REPLACE", 3, 3, f_str, SF_REPLACE, "REPLACE(STRING, STRING, STRING)"},
    {"REGEXP", 2, 2, f_regexp, RX_MATCH, "REGEXP(STRING, STRING)"},
    {"REGEXP_REPLACE", 3, 3, f_regexp, RX_REPLACE, "REGEXP_REPLACE(STRING, STRING, STRING)"},
    {"REGEXP_EXTRACT", 2, 3, f_regexp, RX_EXTRACT, "REGEXP_EXTRACT(STRING, STRING [, INT])"},
    {"LPAD", 3, 3, f_str, SF_LPAD, "LPAD(STRING, INT, STRING)"},
    {"RPAD", 3, 3, f_str, SF_RPAD, "RPAD(STRING, INT, STRING)"},
    {"POSITION", 2, 2, f_str, SF_LOCATE, "POSITION(STRING IN STRING)"},
    {"LOCATE", 2, 3, f_str, SF_LOCATE, "LOCATE(STRING, STRING [, INT])"},
    {"SPLIT_INDEX", 3, 3, f_str, SF_SPLIT_INDEX, "SPLIT_INDEX(STRING, STRING, INT)"},
    {"INITCAP", 1, 1, f_str, SF_INITCAP, "INITCAP(STRING)"},
    {"REVERSE", 1, 1, f_str, SF_REVERSE, "REVERSE(STRING)"},
    {"MD5", 1, 1, f_str, SF_MD5, "MD5(STRING)"},
    {"SHA256", 1, 1, f_str, SF_SHA256, "SHA256(STRING)"},
    {"TO_BASE64", 1, 1, f_str, SF_TO_BASE64, "TO_BASE64(STRING)"},
    {"FROM_BASE64", 1, 1, f_str, SF_FROM_BASE64, "FROM_BASE64(STRING)"},
    {"HASH_CODE", 1, 1, f_str, SF_HASH_CODE, "HASH_CODE(STRING)"},
    {"ASCII", 1, 1, f_str, SF_ASCII, "ASCII(STRING)"},
    {"CHR", 1, 1, f_str, SF_CHR, "CHR(INT)"},
    {"IS DISTINCT FROM", 2, 2, f_distinct, 0, NULL},
    {"IS NOT DISTINCT FROM", 2, 2, f_distinct, 1, NULL},
    {NULL, 0, 0, NULL, 0, NULL},
};
