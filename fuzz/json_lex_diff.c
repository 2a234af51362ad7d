/*
 * fuzz/json_lex_diff.c — differential libFuzzer target: every input goes
 * through our parser (cdc_json_parser_*, json_lex.c) and through yajl 2.1
 * (cdc_json_yajlref_*, the former implementation), each recording its
 * callback events; acceptance, the events with their values and offsets,
 * and the error text ("invalid JSON at byte N: REASON") must agree.
 *
 * The first input byte picks how the callbacks behave, as the formats' do:
 * bit 0 marks the end of a top-level container (cdc_json_parser_mark_end),
 * bit 1 cancels at the event numbered by the second byte. Events after the
 * mark are not recorded (yajl reports them, our parser stops).
 *
 * Inputs where json_lex.c deliberately differs from yajl (see its header) are
 * parsed by both but not compared: a lax-valid but not strictly valid UTF-8
 * sequence, \v or \f, an escaped UTF-16 surrogate outside a high+low pair,
 * or more '[' and '{' than CDC_JSON_PARSER_MAX_DEPTH. And one outcome is
 * allowed to differ: yajl accepts a string left open by the end of the
 * message when it starts a second top-level value (nothing marked the end of
 * the first), where ours reports "premature EOF".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_json.h"
#include "json_yajl_ref.h"

typedef struct rec_s {
    cdc_buf_t ev;
    bool ours;
    void *parser;
    int depth;
    bool marked;
    bool mark_mode;
    int cancel_at; /* -1: never */
    int count;
} rec_t;

static size_t rec_offset(rec_t *r)
{
    return r->ours ? cdc_json_parser_offset(r->parser) : cdc_json_yajlref_offset(r->parser);
}

/* Records one event; returns the callback result. */
static int rec(rec_t *r, char kind, const void *s, size_t n, bool with_offset)
{
    if (r->marked)
        return 1;
    cdc_buf_printf(&r->ev, "%c", kind);
    if (s) {
        cdc_buf_printf(&r->ev, "%zu:", n);
        cdc_buf_append(&r->ev, s, n);
    }
    if (with_offset)
        cdc_buf_printf(&r->ev, "@%zu", rec_offset(r));
    cdc_buf_puts(&r->ev, "\n");
    return r->count++ == r->cancel_at ? 0 : 1;
}

static int on_null(void *ctx)
{
    return rec(ctx, 'n', NULL, 0, true);
}

static int on_bool(void *ctx, int b)
{
    return rec(ctx, b ? 't' : 'f', NULL, 0, true);
}

static int on_number(void *ctx, const char *s, size_t n)
{
    /* no offset: yajl reports a number cut by the end from its finishing pass */
    return rec(ctx, '#', s, n, false);
}

static int on_string(void *ctx, const unsigned char *s, size_t n)
{
    return rec(ctx, 's', s, n, true);
}

static int on_key(void *ctx, const unsigned char *s, size_t n)
{
    return rec(ctx, 'k', s, n, true);
}

static int on_open(rec_t *r, char kind)
{
    int rc = rec(r, kind, NULL, 0, true);
    r->depth++;
    return rc;
}

static int on_close(rec_t *r, char kind)
{
    int rc = rec(r, kind, NULL, 0, true);
    if (--r->depth == 0 && r->mark_mode && !r->marked) {
        if (r->ours)
            cdc_json_parser_mark_end(r->parser);
        else
            cdc_json_yajlref_mark_end(r->parser);
        r->marked = true;
    }
    return rc;
}

static int on_start_map(void *ctx)
{
    return on_open(ctx, '{');
}

static int on_end_map(void *ctx)
{
    return on_close(ctx, '}');
}

static int on_start_array(void *ctx)
{
    return on_open(ctx, '[');
}

static int on_end_array(void *ctx)
{
    return on_close(ctx, ']');
}

static const yajl_callbacks callbacks = {
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

/* A UTF-8 sequence yajl accepts (bit patterns) that RFC 3629 does not. */
static bool lax_only_utf8(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned c = s[i];
        int k = (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xe ? 2 : (c >> 3) == 0x1e ? 3 : 0;
        if (k == 0 || i + (size_t)k >= n)
            continue;
        bool cont = true;
        for (int j = 1; j <= k; j++)
            cont = cont && (s[i + (size_t)j] >> 6) == 0x2;
        if (!cont)
            continue;
        unsigned b1 = s[i + 1];
        if (c < 0xc2 || c > 0xf4 || (c == 0xe0 && b1 < 0xa0) || (c == 0xed && b1 > 0x9f) ||
            (c == 0xf0 && b1 < 0x90) || (c == 0xf4 && b1 > 0x8f))
            return true;
    }
    return false;
}

static int hexval(uint8_t c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* The code unit of "\uXXXX" at s[i], or -1. */
static long escape_at(const uint8_t *s, size_t n, size_t i)
{
    if (i + 6 > n || s[i] != '\\' || s[i + 1] != 'u')
        return -1;
    long v = 0;
    for (size_t j = 2; j < 6; j++) {
        int h = hexval(s[i + j]);
        if (h < 0)
            return -1;
        v = v << 4 | h;
    }
    return v;
}

/* A surrogate escape that is not a high one directly followed by a low one. */
static bool unpaired_surrogate(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i] != '\\')
            continue;
        if (s[i + 1] != 'u') {
            i++; /* "\\", "\"" ... */
            continue;
        }
        long cp = escape_at(s, n, i);
        if (cp < 0xd800 || cp > 0xdfff)
            continue;
        if (cp >= 0xdc00)
            return true;
        long lo = escape_at(s, n, i + 6);
        if (lo < 0xdc00 || lo > 0xdfff)
            return true;
        i += 11;
    }
    /* a backslash before it ("\\uD800" is text) only makes this exclude more */
    return false;
}

static bool excluded(const uint8_t *s, size_t n)
{
    size_t opens = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\v' || s[i] == '\f')
            return true;
        opens += s[i] == '[' || s[i] == '{';
    }
    return opens > CDC_JSON_PARSER_MAX_DEPTH || lax_only_utf8(s, n) || unpaired_surrogate(s, n);
}

static void run(rec_t *r, const char *msg, size_t len, cdc_buf_t *err, int *rc)
{
    cdc_buf_clear(err);
    *rc = r->ours ? cdc_json_parser_parse(r->parser, msg, len, err)
                  : cdc_json_yajlref_parse(r->parser, msg, len, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static rec_t ours, ref;
    static cdc_buf_t err_ours, err_ref;
    if (!ours.parser) {
        ours.ours = true;
        ours.parser = cdc_json_parser_new(&callbacks, &ours);
        ref.parser = cdc_json_yajlref_new(&callbacks, &ref);
    }
    if (size < 2)
        return 0;
    uint8_t mode = data[0], cancel = data[1];
    const char *msg = (const char *)data + 2;
    size_t len = size - 2;
    /* a private copy, so that reads past the end are caught */
    char *copy = malloc(len ? len : 1);
    memcpy(copy, msg, len);
    int rc_ours, rc_ref;
    rec_t *both[2] = {&ours, &ref};
    for (int i = 0; i < 2; i++) {
        rec_t *r = both[i];
        cdc_buf_clear(&r->ev);
        r->depth = 0;
        r->marked = false;
        r->mark_mode = mode & 1;
        r->cancel_at = mode & 2 ? cancel : -1;
        r->count = 0;
    }
    run(&ours, copy, len, &err_ours, &rc_ours);
    run(&ref, copy, len, &err_ref, &rc_ref);
    if (!excluded(data + 2, len)) {
        bool same = rc_ours == rc_ref && ours.ev.len == ref.ev.len &&
                    memcmp(ours.ev.data, ref.ev.data, ours.ev.len) == 0;
        if (!same && rc_ref == CDC_JSON_PARSE_OK && rc_ours == CDC_JSON_PARSE_INVALID &&
            !ours.marked && ours.ev.len == ref.ev.len &&
            memcmp(ours.ev.data, ref.ev.data, ours.ev.len) == 0 && err_ours.len > 13 &&
            memcmp(err_ours.data + err_ours.len - 13, "premature EOF", 13) == 0) {
            free(copy);
            return 0; /* yajl's open string after a complete value */
        }
        if (same && rc_ours == CDC_JSON_PARSE_INVALID)
            same = err_ours.len == err_ref.len &&
                   memcmp(err_ours.data, err_ref.data, err_ours.len) == 0;
        if (!same) {
            fprintf(stderr, "json_lex_diff: results differ (mode %u, cancel at %u)\n", mode,
                    cancel);
            fprintf(stderr, "ours: rc %d %.*s\n%.*s\n", rc_ours, (int)err_ours.len,
                    err_ours.data ? err_ours.data : "", (int)ours.ev.len,
                    ours.ev.data ? ours.ev.data : "");
            fprintf(stderr, "yajl: rc %d %.*s\n%.*s\n", rc_ref, (int)err_ref.len,
                    err_ref.data ? err_ref.data : "", (int)ref.ev.len,
                    ref.ev.data ? ref.ev.data : "");
            abort();
        }
    }
    free(copy);
    return 0;
}
