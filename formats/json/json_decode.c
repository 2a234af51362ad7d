/*
 * json_decode.c — JSON to rows: scalar conversion and the streaming row
 * decoder shared by every JSON format (see cdc_json.h).
 *
 * The row decoder is a stack machine driven by yajl-style events (from our
 * parser, json_lex.c). Each frame is an
 * open container: the row being filled (ROW), an array or map collecting its
 * elements in a scratch vector the frame keeps across messages, a subtree being
 * skipped (unknown field), or a subtree being re-serialized as text (an object
 * or array given for a STRING field, like Flink's JsonNode.toString()).
 * Nothing is allocated per message except output in the caller's arena.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cdc_json.h"

/* Hot-path helpers are forced inline into the parser's callbacks; rare paths are kept out of them.
 */
#define HOT static inline __attribute__((always_inline))
#define COLD static __attribute__((noinline))

static inline uint64_t load8(const char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w; /* p[0] in the low byte */
}

/* ---- small text helpers ---------------------------------------------------------------- */

/* Appends printf output to a fixed buffer at *pos (truncating). */
void cdc_json_bput(char *buf, size_t cap, size_t *pos, const char *fmt, ...)
{
    if (*pos >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *pos, cap - *pos, fmt, ap);
    va_end(ap);
    if (n > 0)
        *pos = *pos + (size_t)n < cap ? *pos + (size_t)n : cap - 1;
}

/* Writes the type as SQL text ("DECIMAL(5, 2)", "ARRAY<INT NOT NULL>"). */
void cdc_json_type_text(const cdc_type_t *t, char *buf, size_t cap, size_t *pos, bool with_null)
{
    switch (t->root) {
    case CDC_T_DECIMAL:
        cdc_json_bput(buf, cap, pos, "DECIMAL(%d, %d)", (int)t->precision, (int)t->scale);
        break;
    case CDC_T_CHAR:
    case CDC_T_BINARY:
        cdc_json_bput(buf, cap, pos, "%s(%d)", cdc_type_root_name(t->root), (int)t->length);
        break;
    case CDC_T_VARCHAR:
    case CDC_T_VARBINARY:
        if (t->length == CDC_MAX_LENGTH)
            cdc_json_bput(buf, cap, pos, "%s", t->root == CDC_T_VARCHAR ? "STRING" : "BYTES");
        else
            cdc_json_bput(buf, cap, pos, "%s(%d)", cdc_type_root_name(t->root), (int)t->length);
        break;
    case CDC_T_TIME:
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ:
        cdc_json_bput(buf, cap, pos, "%s(%d)", cdc_type_root_name(t->root), (int)t->precision);
        break;
    case CDC_T_ARRAY:
    case CDC_T_MULTISET:
        cdc_json_bput(buf, cap, pos, "%s<", cdc_type_root_name(t->root));
        cdc_json_type_text(t->children[0], buf, cap, pos, true);
        cdc_json_bput(buf, cap, pos, ">");
        break;
    case CDC_T_MAP:
        cdc_json_bput(buf, cap, pos, "MAP<");
        cdc_json_type_text(t->children[0], buf, cap, pos, true);
        cdc_json_bput(buf, cap, pos, ", ");
        cdc_json_type_text(t->children[1], buf, cap, pos, true);
        cdc_json_bput(buf, cap, pos, ">");
        break;
    case CDC_T_ROW:
        cdc_json_bput(buf, cap, pos, "ROW<");
        for (int i = 0; i < t->nchildren; i++) {
            cdc_json_bput(buf, cap, pos, "%s%s ", i ? ", " : "", t->names[i]);
            cdc_json_type_text(t->children[i], buf, cap, pos, true);
        }
        cdc_json_bput(buf, cap, pos, ">");
        break;
    default:
        cdc_json_bput(buf, cap, pos, "%s", cdc_type_root_name(t->root));
        break;
    }
    if (with_null && !t->nullable)
        cdc_json_bput(buf, cap, pos, " NOT NULL");
}

/* Writes `found string "abc"` / `found number 1.5` / `found boolean true` / `found null`. */
void cdc_json_found_text(char kind, const char *s, size_t len, char *buf, size_t cap, size_t *pos)
{
    switch (kind) {
    case 'n':
        cdc_json_bput(buf, cap, pos, "found null");
        return;
    case 'b':
        cdc_json_bput(buf, cap, pos, "found boolean %.*s", (int)len, s);
        return;
    case '#':
    case 's': {
        size_t shown = len;
        bool cut = false;
        if (shown > 40) {
            shown = 40;
            while (shown > 0 && ((unsigned char)s[shown] & 0xC0) == 0x80)
                shown--; /* do not split a UTF-8 sequence */
            cut = true;
        }
        if (kind == '#') {
            cdc_json_bput(buf, cap, pos, "found number %.*s%s", (int)shown, s, cut ? "..." : "");
            return;
        }
        /* control characters as JSON escapes: a NUL used to end the message there */
        cdc_json_bput(buf, cap, pos, "found string \"");
        size_t from = 0;
        for (size_t i = 0; i <= shown; i++) {
            if (i < shown && (unsigned char)s[i] >= 0x20)
                continue;
            cdc_json_bput(buf, cap, pos, "%.*s", (int)(i - from), s + from);
            if (i < shown)
                cdc_json_bput(buf, cap, pos, "\\u%04x", (unsigned)(unsigned char)s[i]);
            from = i + 1;
        }
        cdc_json_bput(buf, cap, pos, "%s\"", cut ? "..." : "");
        return;
    }
    default:
        cdc_json_bput(buf, cap, pos, "found %s", kind == '{' ? "an object" : "an array");
        return;
    }
}

/* "a number", "a string", ... for container mismatches. */
static const char *kind_noun(char kind)
{
    switch (kind) {
    case 'n':
        return "null";
    case 'b':
        return "a boolean";
    case '#':
        return "a number";
    case 's':
        return "a string";
    case '{':
        return "an object";
    default:
        return "an array";
    }
}

static const char *container_noun(const cdc_type_t *t)
{
    return t->root == CDC_T_ARRAY ? "an array" : "an object";
}

static bool is_container(const cdc_type_t *t)
{
    return t->root == CDC_T_ARRAY || cdc_type_is_map_like(t) || t->root == CDC_T_ROW;
}

/* `expected INT, found string "abc"` (or `expected an array, found a number`). */
static int mismatch(const cdc_type_t *t, char kind, const char *s, size_t len, char *errbuf,
                    size_t errlen)
{
    size_t pos = 0;
    if (is_container(t) && kind != 'n') {
        cdc_json_bput(errbuf, errlen, &pos, "expected %s, found %s", container_noun(t),
                      kind_noun(kind));
        return -1;
    }
    cdc_json_bput(errbuf, errlen, &pos, "expected ");
    cdc_json_type_text(t, errbuf, errlen, &pos, kind == 'n');
    cdc_json_bput(errbuf, errlen, &pos, ", ");
    cdc_json_found_text(kind, s, len, errbuf, errlen, &pos);
    return -1;
}

/* `value 300 does not fit TINYINT` */
static int overflow(const cdc_type_t *t, const char *s, size_t len, char *errbuf, size_t errlen)
{
    size_t pos = 0;
    cdc_json_bput(errbuf, errlen, &pos, "value %.*s%s does not fit ", (int)(len > 60 ? 60 : len), s,
                  len > 60 ? "..." : "");
    cdc_json_type_text(t, errbuf, errlen, &pos, false);
    return -1;
}

/* ---- scalar conversion ------------------------------------------------------------------- */

/* The layout a timestamp must have, for messages ("yyyy-MM-dd HH:mm:ss.SSS"). */
static void ts_layout(const cdc_type_t *t, bool iso8601, char *buf, size_t cap, size_t *pos)
{
    cdc_json_bput(buf, cap, pos, "yyyy-MM-dd%cHH:mm:ss", iso8601 ? 'T' : ' ');
    if (t->precision > 0)
        cdc_json_bput(buf, cap, pos, ".%.*s", (int)t->precision, "SSSSSSSSS");
    if (t->root == CDC_T_TIMESTAMP_LTZ)
        cdc_json_bput(buf, cap, pos, "Z");
}

static int ts_mismatch(const cdc_type_t *t, const char *s, size_t len, bool iso8601, char *errbuf,
                       size_t errlen)
{
    size_t pos = 0;
    cdc_json_bput(errbuf, errlen, &pos, "expected ");
    cdc_json_type_text(t, errbuf, errlen, &pos, false);
    cdc_json_bput(errbuf, errlen, &pos, " as %s \"", iso8601 ? "ISO-8601" : "SQL");
    ts_layout(t, iso8601, errbuf, errlen, &pos);
    cdc_json_bput(errbuf, errlen, &pos, "\", ");
    cdc_json_found_text('s', s, len, errbuf, errlen, &pos);
    return -1;
}

/*
 * The conversion behind cdc_json_convert_scalar and the row decoder. Strings
 * lying inside [in, in + inlen) are referenced instead of copied.
 */
static int convert(const cdc_type_t *t, char kind, const char *s, size_t len, bool iso8601,
                   cdc_arena_t *arena, const char *in, size_t inlen, cdc_value_t *out, char *errbuf,
                   size_t errlen)
{
    if (kind == 'n') {
        if (!t->nullable)
            return mismatch(t, kind, s, len, errbuf, errlen);
        out->flags = CDC_V_NULL;
        return 0;
    }
    cdc_type_root_t root = t->root;
    bool text = root == CDC_T_CHAR || root == CDC_T_VARCHAR;
    if (kind == 'b') {
        if (root == CDC_T_BOOLEAN)
            out->v.b = s[0] == 't';
        else if (text)
            out->v.s = s[0] == 't' ? (cdc_str_t){"true", 4} : (cdc_str_t){"false", 5};
        else
            return mismatch(t, kind, s, len, errbuf, errlen);
        out->flags = 0;
        return 0;
    }
    if ((kind != 's' && kind != '#' && !text) || is_container(t))
        return mismatch(t, kind, s, len, errbuf, errlen);
    unsigned flags = (iso8601 ? CDC_TEXT_ISO8601 : 0) | (kind == '#' ? CDC_TEXT_NUMBER : 0);
    if (text &&
        !(in && (uintptr_t)s >= (uintptr_t)in && (uintptr_t)s + len <= (uintptr_t)in + inlen))
        flags |= CDC_TEXT_COPY; /* else referenced in the message */
    int rc = cdc_value_from_text(t, s, len, flags, arena, out, NULL);
    if (rc == CDC_TEXT_OK)
        return 0;
    if (rc == CDC_TEXT_RANGE) {
        if (text)
            return overflow(t, s, 20, errbuf, errlen);
        if (kind == 's')
            cdc_text_trim(&s, &len); /* Flink trims numbers given as strings */
        return overflow(t, s, len, errbuf, errlen);
    }
    if (kind == 's' && (root == CDC_T_TIMESTAMP || root == CDC_T_TIMESTAMP_LTZ))
        return ts_mismatch(t, s, len, iso8601, errbuf, errlen);
    if (kind == 's' && (root == CDC_T_BINARY || root == CDC_T_VARBINARY)) {
        size_t pos = 0;
        cdc_json_bput(errbuf, errlen, &pos, "expected base64 text for ");
        cdc_json_type_text(t, errbuf, errlen, &pos, false);
        cdc_json_bput(errbuf, errlen, &pos, ", ");
        cdc_json_found_text(kind, s, len, errbuf, errlen, &pos);
        return -1;
    }
    return mismatch(t, kind, s, len, errbuf, errlen);
}

int cdc_json_convert_scalar(const cdc_type_t *t, char kind, const char *s, size_t len, bool iso8601,
                            cdc_arena_t *arena, cdc_value_t *out, char *errbuf, size_t errlen)
{
    if (errlen)
        errbuf[0] = '\0';
    return convert(t, kind, s, len, iso8601, arena, NULL, 0, out, errbuf, errlen);
}

int cdc_json_check_type(const cdc_type_t *t, cdc_error_t **err)
{
    if (cdc_type_is_map_like(t) && is_container(t->children[0])) {
        char buf[256];
        size_t pos = 0;
        cdc_json_type_text(t, buf, sizeof(buf), &pos, false);
        cdc_error_t *e =
            cdc_error_new(CDC_ERR_OPTION, "JSON format doesn't support %s as key type of a map",
                          cdc_type_root_name(t->children[0]->root));
        cdc_error_set_detail(e, "the type is %s", buf);
        cdc_error_set_hint(e, "JSON object keys are text: use a scalar key type such as STRING.");
        if (err) {
            cdc_error_destroy(*err);
            *err = e;
        } else {
            cdc_error_destroy(e);
        }
        return -1;
    }
    for (int i = 0; i < t->nchildren; i++)
        if (cdc_json_check_type(t->children[i], err) < 0)
            return -1;
    return 0;
}

/* ---- row decoder ------------------------------------------------------------------------- */

/* A precomputed view of a type: children and, for ROW, a field-name index. */
typedef struct plan_s plan_t;
struct plan_s {
    const cdc_type_t *type;
    uint32_t id;               /* preorder number in the row type's tree (cdc_json_hook_t) */
    plan_t **kids;             /* ROW: fields; ARRAY: element; MAP: key, value */
    const cdc_type_t **ktypes; /* the kids' types */
    uint32_t n;                /* number of kids */
    const char **names;        /* ROW: zero-padded to a multiple of 8 bytes */
    uint32_t *name_len;
    int32_t *slots; /* open-addressing table of field indexes, -1 = empty */
    uint32_t mask;
    uint8_t *roots;     /* the kids' type roots */
    uint64_t *w0;       /* ROW: the first 8 bytes of each name, zero-padded */
    uint32_t *not_null; /* ROW: indexes of the NOT NULL fields */
    uint32_t n_not_null;
};

/* F_HOST: outside any row (the json format's own level); events there return 2 */
enum { F_ROW, F_ARRAY, F_MAP, F_SKIP, F_CAPTURE, F_HOST };

typedef struct frame_s {
    uint8_t kind;
    int32_t cur;        /* ROW: field the next value is for, -1 = unknown key (skip it) */
    int32_t expect;     /* ROW: the field after the last one seen: keys usually come in order */
    uint32_t nseen;     /* ROW */
    uint32_t n, cap;    /* ARRAY, MAP: items; the scratch vectors are kept across messages */
    uint32_t slot;      /* where the container goes in the parent frame */
    uint32_t depth;     /* SKIP, CAPTURE: nesting inside the skipped/captured subtree */
    bool hooked;        /* CAPTURE: an object the hook takes as one value of plan's type */
    const plan_t *plan; /* the container's plan (ROW/ARRAY/MAP) */
    const cdc_type_t *const *ktypes; /* plan->ktypes */
    const char *const *names;        /* ROW: plan->names */
    const uint32_t *name_len;        /* ROW: plan->name_len */
    const uint64_t *w0;              /* ROW: plan->w0 */
    const uint8_t *roots;            /* plan->roots */
    uint32_t nfields;                /* ROW: plan->n */
    cdc_value_t *vals;               /* ROW: row->values */
    cdc_row_t *row;
    uint64_t *seen;     /* ROW: fields seen */
    cdc_value_t *items; /* ARRAY elements, MAP values */
    cdc_value_t *keys;  /* MAP keys */
} frame_t;

struct cdc_json_rowdec_s {
    frame_t *f; /* the top frame */
    int top;
    cdc_json_opts_t opts;
    cdc_arena_t *arena;
    const char *in; /* the message, for string references */
    size_t inlen;
    plan_t *root;
    frame_t frames[CDC_JSON_MAX_DEPTH + 1];
    frame_t host;         /* kind F_HOST: where f points between rows of the json format */
    cdc_json_hook_t hook; /* scalar == NULL: none */
    uint64_t *seen;       /* seen_words per frame */
    uint32_t seen_words;
    /* capture of an object/array given for a STRING field */
    cdc_buf_t cap;
    bool cap_after_key;
    bool cap_first[CDC_JSON_PARSER_MAX_DEPTH + 2];
    char reason[400];
    char err[512];
};

static uint32_t hash_name(const char *s, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static plan_t *plan_new(const cdc_type_t *t, uint32_t *max_fields, uint32_t *next_id)
{
    plan_t *p = cdc_xcalloc(1, sizeof(*p));
    p->type = t;
    p->id = (*next_id)++;
    /* a MULTISET decodes as a map of its elements to their counts: kid 1 is INT NOT NULL */
    p->n = (uint32_t)t->nchildren + (t->root == CDC_T_MULTISET);
    p->kids = cdc_xcalloc(p->n + 1, sizeof(plan_t *));
    p->ktypes = cdc_xcalloc(p->n + 1, sizeof(cdc_type_t *));
    p->roots = cdc_xcalloc(p->n + 1, 1);
    for (uint32_t i = 0; i < p->n; i++) {
        const cdc_type_t *kt = i < (uint32_t)t->nchildren ? t->children[i] : cdc_type_map_value(t);
        p->kids[i] = plan_new(kt, max_fields, next_id);
        p->ktypes[i] = kt;
        p->roots[i] = (uint8_t)kt->root;
    }
    if (t->root == CDC_T_ROW) {
        if (p->n > *max_fields)
            *max_fields = p->n;
        p->names = cdc_xcalloc(p->n + 1, sizeof(char *));
        p->name_len = cdc_xcalloc(p->n + 1, sizeof(uint32_t));
        p->not_null = cdc_xcalloc(p->n + 1, sizeof(uint32_t));
        p->w0 = cdc_xcalloc(p->n + 1, sizeof(uint64_t));
        uint32_t size = 4;
        while (size < p->n * 2)
            size *= 2;
        p->mask = size - 1;
        p->slots = cdc_xmalloc(size * sizeof(int32_t));
        for (uint32_t i = 0; i < size; i++)
            p->slots[i] = -1;
        for (uint32_t i = 0; i < p->n; i++) {
            p->name_len[i] = (uint32_t)strlen(t->names[i]);
            char *padded = cdc_xcalloc(1, (p->name_len[i] + 8) & ~(size_t)7);
            memcpy(padded, t->names[i], p->name_len[i]);
            p->names[i] = padded;
            p->w0[i] = load8(padded);
            if (!t->children[i]->nullable)
                p->not_null[p->n_not_null++] = i;
            uint32_t h = hash_name(p->names[i], p->name_len[i]) & p->mask;
            while (p->slots[h] >= 0)
                h = (h + 1) & p->mask;
            p->slots[h] = (int32_t)i;
        }
    }
    return p;
}

static void plan_free(plan_t *p)
{
    if (!p)
        return;
    for (uint32_t i = 0; i < p->n; i++)
        plan_free(p->kids[i]);
    free(p->kids);
    free(p->ktypes);
    free(p->roots);
    free(p->w0);
    for (uint32_t i = 0; p->names && i < p->n; i++)
        free((char *)p->names[i]);
    free(p->names);
    free(p->name_len);
    free(p->not_null);
    free(p->slots);
    free(p);
}

/* Sets up a zeroed decoder. */
static void rowdec_init(cdc_json_rowdec_t *dec, const cdc_type_t *row_type,
                        const cdc_json_opts_t *opts)
{
    uint32_t max_fields = 1, next_id = 0;
    dec->root = plan_new(row_type, &max_fields, &next_id);
    if (opts)
        dec->opts = *opts;
    dec->seen_words = (max_fields + 63) / 64;
    dec->seen = cdc_xcalloc((size_t)dec->seen_words * (CDC_JSON_MAX_DEPTH + 1), sizeof(uint64_t));
    for (int i = 0; i <= CDC_JSON_MAX_DEPTH; i++)
        dec->frames[i].seen = dec->seen + (size_t)i * dec->seen_words;
    dec->f = &dec->frames[0];
    dec->host.kind = F_HOST;
}

cdc_json_rowdec_t *cdc_json_rowdec_new(const cdc_type_t *row_type, const cdc_json_opts_t *opts)
{
    cdc_json_rowdec_t *dec = cdc_xcalloc(1, sizeof(*dec));
    rowdec_init(dec, row_type, opts);
    return dec;
}

/* Frees what a decoder owns, not the decoder. */
static void rowdec_fini(cdc_json_rowdec_t *dec)
{
    for (int i = 0; i <= CDC_JSON_MAX_DEPTH; i++) {
        free(dec->frames[i].items);
        free(dec->frames[i].keys);
    }
    free(dec->seen);
    cdc_buf_free(&dec->cap);
    plan_free(dec->root);
}

void cdc_json_rowdec_destroy(cdc_json_rowdec_t *dec)
{
    if (!dec)
        return;
    rowdec_fini(dec);
    free(dec);
}

void cdc_json_rowdec_set_input(cdc_json_rowdec_t *dec, const char *msg, size_t len)
{
    dec->in = msg;
    dec->inlen = msg ? len : 0;
}

void cdc_json_rowdec_set_hook(cdc_json_rowdec_t *dec, const cdc_json_hook_t *hook)
{
    if (hook)
        dec->hook = *hook;
    else
        memset(&dec->hook, 0, sizeof(dec->hook));
}

const char *cdc_json_rowdec_error(const cdc_json_rowdec_t *dec)
{
    return dec->err;
}

static void row_frame_init(cdc_json_rowdec_t *dec, frame_t *f, const plan_t *p, cdc_row_t *row)
{
    f->kind = F_ROW;
    f->plan = p;
    f->ktypes = p->ktypes;
    f->names = p->names;
    f->name_len = p->name_len;
    f->w0 = p->w0;
    f->roots = p->roots;
    f->nfields = p->n;
    f->row = row;
    f->vals = row->values;
    f->cur = -1;
    f->expect = 0;
    f->nseen = 0;
    if (dec->seen_words == 1)
        f->seen[0] = 0;
    else
        memset(f->seen, 0, (size_t)dec->seen_words * sizeof(uint64_t));
}

void cdc_json_rowdec_begin(cdc_json_rowdec_t *dec, cdc_row_t *row, cdc_arena_t *arena)
{
    dec->arena = arena;
    dec->top = 0;
    dec->f = &dec->frames[0];
    dec->err[0] = '\0';
    row_frame_init(dec, dec->f, dec->root, row);
}

/* ---- errors with the field path ---- */

/* Writes a map key for a path ("[k1]"); no allocation. */
static void key_text(const cdc_value_t *k, const cdc_type_t *t, char *buf, size_t cap, size_t *pos)
{
    if (cdc_value_is_null(k))
        cdc_json_bput(buf, cap, pos, "[null]");
    else if (t->root == CDC_T_CHAR || t->root == CDC_T_VARCHAR)
        cdc_json_bput(buf, cap, pos, "[%.*s]", (int)(k->v.s.len > 40 ? 40 : k->v.s.len),
                      k->v.s.ptr);
    else if (cdc_type_is_integer(t))
        cdc_json_bput(buf, cap, pos, "[%lld]", (long long)k->v.i);
    else if (t->root == CDC_T_BOOLEAN)
        cdc_json_bput(buf, cap, pos, "[%s]", k->v.b ? "true" : "false");
    else
        cdc_json_bput(buf, cap, pos, "[...]");
}

/* Writes the path of frames 0..upto ("a.b[2]") into buf. */
static void path_text(const cdc_json_rowdec_t *dec, int upto, char *buf, size_t cap, size_t *pos)
{
    size_t start = *pos;
    for (int i = 0; i <= upto; i++) {
        const frame_t *f = &dec->frames[i];
        if (f->kind == F_ROW) {
            if (f->cur < 0)
                return;
            cdc_json_bput(buf, cap, pos, "%s%s", *pos > start ? "." : "", f->plan->names[f->cur]);
        } else if (f->kind == F_ARRAY) {
            if (f->n == 0)
                return;
            cdc_json_bput(buf, cap, pos, "[%u]", f->n - 1);
        } else if (f->kind == F_MAP) {
            if (f->n == 0)
                return;
            key_text(&f->keys[f->n - 1], f->plan->ktypes[0], buf, cap, pos);
        } else {
            return;
        }
    }
}

/* dec->err = `field "PATH[.extra]": REASON` */
static int fail_at(cdc_json_rowdec_t *dec, int upto, const char *extra, const char *reason)
{
    size_t pos = 0;
    char *b = dec->err;
    size_t cap = sizeof(dec->err);
    cdc_json_bput(b, cap, &pos, "field \"");
    size_t before = pos;
    path_text(dec, upto, b, cap, &pos);
    if (extra)
        cdc_json_bput(b, cap, &pos, "%s%s", pos > before ? "." : "", extra);
    cdc_json_bput(b, cap, &pos, "\": %s", reason);
    return -1;
}

static int fail_depth(cdc_json_rowdec_t *dec, int limit)
{
    snprintf(dec->err, sizeof(dec->err), "JSON nested deeper than %d levels", limit);
    return -1;
}

/* ---- value slots ---- */

static void grow(frame_t *f, bool keys)
{
    uint32_t cap = f->cap ? f->cap * 2 : 16;
    f->items = cdc_xrealloc(f->items, cap * sizeof(cdc_value_t));
    if (keys || f->keys)
        f->keys = cdc_xrealloc(f->keys, cap * sizeof(cdc_value_t));
    f->cap = cap;
}

static inline cdc_value_t *slot_value(frame_t *f, uint32_t slot)
{
    return f->kind == F_ROW ? &f->vals[slot] : &f->items[slot];
}

/* ---- capture: a subtree re-serialized as compact JSON text ---- */

static void cap_sep(cdc_json_rowdec_t *dec, uint32_t level)
{
    if (dec->cap_after_key) {
        dec->cap_after_key = false;
    } else {
        if (!dec->cap_first[level])
            cdc_buf_putc(&dec->cap, ',');
        dec->cap_first[level] = false;
    }
}

static void cap_open(cdc_json_rowdec_t *dec, frame_t *f, char c)
{
    cap_sep(dec, f->depth);
    cdc_buf_putc(&dec->cap, c);
    f->depth++;
    dec->cap_first[f->depth] = true;
}

static void cap_scalar(cdc_json_rowdec_t *dec, frame_t *f, char kind, const char *s, size_t len)
{
    cap_sep(dec, f->depth);
    if (kind == 's')
        cdc_json_write_string(&dec->cap, s, len);
    else if (kind == 'n')
        cdc_buf_append(&dec->cap, "null", 4);
    else
        cdc_buf_append(&dec->cap, s, len);
}

/* ---- events ---- */

/* The general case of a scalar: conversion with full checks and messages. */
static int scalar_slow(cdc_json_rowdec_t *dec, const cdc_type_t *t, char kind, const char *s,
                       size_t len, cdc_value_t *dst)
{
    dec->reason[0] = '\0';
    if (dec->opts.bool_digits && t->root == CDC_T_BOOLEAN && (kind == 's' || kind == '#') &&
        len == 1 && (s[0] == '0' || s[0] == '1')) {
        dst->v.b = s[0] == '1';
        dst->flags = 0;
        return 0;
    }
    if (convert(t, kind, s, len, dec->opts.iso8601, dec->arena, dec->in, dec->inlen, dst,
                dec->reason, sizeof(dec->reason)) < 0)
        return fail_at(dec, dec->top, NULL, dec->reason);
    return 0;
}

/* A string for CHAR/VARCHAR: referenced when it lies in the message, else copied. */
HOT void store_string(cdc_json_rowdec_t *dec, const char *s, size_t len, cdc_value_t *dst)
{
    if ((uintptr_t)s - (uintptr_t)dec->in < dec->inlen &&
        len <= dec->inlen - ((uintptr_t)s - (uintptr_t)dec->in))
        dst->v.s.ptr = s; /* unescaped: points into the message */
    else
        dst->v.s.ptr = cdc_arena_memdup(dec->arena, s, len);
    dst->v.s.len = (uint32_t)len;
    dst->flags = 0;
}

/* True when all 8 bytes of w are ASCII digits. */
static inline bool eight_digits(uint64_t w)
{
    uint64_t hi = w & 0xF0F0F0F0F0F0F0F0ull;                                     /* 0x30 each */
    uint64_t carry = ((w + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4; /* 0x03: <= '9' */
    return (hi | carry) == 0x3333333333333333ull;
}

/* The value of 8 ASCII digits (p[0] most significant), three multiplications. */
static inline uint32_t eight_digits_value(uint64_t w)
{
    w -= 0x3030303030303030ull;
    w = w * 10 + (w >> 8); /* byte 2k: the 2-digit number of digits 2k, 2k+1 */
    uint64_t pairs02 = w & 0x000000FF000000FFull;         /* pairs 0 and 2 */
    uint64_t pairs13 = (w >> 16) & 0x000000FF000000FFull; /* pairs 1 and 3 */
    return (uint32_t)((pairs02 * (100 + (1000000ull << 32)) + pairs13 * (1 + (10000ull << 32))) >>
                      32);
}

/* A JSON integer for TINYINT..BIGINT; 1 when it needs the slow path (and its message). */
HOT int store_integer(cdc_type_root_t root, const char *s, size_t len, cdc_value_t *dst)
{
    const char *p = s, *e = s + len;
    bool neg = len && *p == '-';
    p += neg;
    if (e - p > 19 || p == e)
        return 1; /* 19 digits always fit 64 unsigned bits */
    uint64_t v = 0;
    for (; e - p >= 8; p += 8) {
        uint64_t w = load8(p);
        if (!eight_digits(w))
            return 1;
        v = v * 100000000u + eight_digits_value(w);
    }
    for (; p < e; p++) {
        unsigned d = (unsigned)(unsigned char)*p - '0';
        if (d > 9)
            return 1;
        v = v * 10 + d;
    }
    if (v > (uint64_t)INT64_MAX + neg)
        return 1;
    int64_t x = neg ? (int64_t)(0 - v) : (int64_t)v;
    if (!cdc_int_fits(root, x))
        return 1;
    dst->v.i = x;
    dst->flags = 0;
    return 0;
}

/*
 * Any scalar into a resolved slot: the fast paths of the common conversions,
 * then the general conversion with full checks and messages.
 */
COLD int store_scalar(cdc_json_rowdec_t *dec, const cdc_type_t *t, char kind, const char *s,
                      size_t len, cdc_value_t *dst)
{
    cdc_type_root_t root = t->root;
    if (kind == 's') {
        if ((root == CDC_T_VARCHAR || root == CDC_T_CHAR) && len <= UINT32_MAX) {
            store_string(dec, s, len, dst);
            return 0;
        }
        if (root == CDC_T_TIMESTAMP || root == CDC_T_TIMESTAMP_LTZ) {
            size_t n = len - (root == CDC_T_TIMESTAMP_LTZ);
            if ((root == CDC_T_TIMESTAMP || (len && s[n] == 'Z')) &&
                cdc_text_timestamp_fast(s, n, dec->opts.iso8601 ? 'T' : ' ', t->precision,
                                        &dst->v.ts) == 0) {
                dst->flags = 0;
                return 0;
            }
        }
    } else if (kind == '#') {
        /* yajl checked the number syntax */
        if (root == CDC_T_DOUBLE) {
            dst->v.d = cdc_text_to_double(s, len, dec->arena);
            dst->flags = 0;
            return 0;
        }
        if (root == CDC_T_DECIMAL && cdc_text_to_decimal(s, len, t, &dst->v.dec) == 0) {
            dst->flags = 0;
            return 0;
        }
        if (root >= CDC_T_TINYINT && root <= CDC_T_BIGINT && store_integer(root, s, len, dst) == 0)
            return 0;
    } else if (kind == 'b' && root == CDC_T_BOOLEAN) {
        dst->v.b = s[0] == 't';
        dst->flags = 0;
        return 0;
    }
    return scalar_slow(dec, t, kind, s, len, dst);
}

/* A scalar anywhere but in a known ROW field: array element, map value, skip, capture. */
COLD int scalar_general(cdc_json_rowdec_t *dec, char kind, const char *s, size_t len)
{
    frame_t *f = dec->f;
    switch (f->kind) {
    case F_ROW:
        if (f->cur < 0)
            return 0;
        return store_scalar(dec, f->ktypes[f->cur], kind, s, len, &f->vals[f->cur]);
    case F_ARRAY:
        if (f->n == f->cap)
            grow(f, false);
        f->n++;
        return store_scalar(dec, f->ktypes[0], kind, s, len, &f->items[f->n - 1]);
    case F_MAP: /* the key was added by map_key */
        return store_scalar(dec, f->ktypes[1], kind, s, len, &f->items[f->n - 1]);
    case F_CAPTURE:
        cap_scalar(dec, f, kind, s, len);
        return 0;
    case F_HOST:
        return 2;
    default:
        return 0;
    }
}

/* A scalar when a hook is set: the hook converts it for its type and node. */
COLD int scalar_hooked(cdc_json_rowdec_t *dec, char kind, const char *s, size_t len)
{
    frame_t *f = dec->f;
    const plan_t *p;
    cdc_value_t *dst;
    switch (f->kind) {
    case F_ROW:
        if (f->cur < 0)
            return 0;
        p = f->plan->kids[f->cur];
        dst = &f->vals[f->cur];
        break;
    case F_ARRAY:
        if (f->n == f->cap)
            grow(f, false);
        f->n++;
        p = f->plan->kids[0];
        dst = &f->items[f->n - 1];
        break;
    case F_MAP:
        p = f->plan->kids[1];
        dst = &f->items[f->n - 1];
        break;
    default:
        return scalar_general(dec, kind, s, len);
    }
    dec->reason[0] = '\0';
    if (dec->hook.scalar(dec->hook.ctx, p->type, p->id, kind, s, len, dst, dec->reason,
                         sizeof(dec->reason)) < 0)
        return fail_at(dec, dec->top, NULL, dec->reason);
    return 0;
}

/* A scalar event. Kept small: it is inlined into every yajl callback. */
HOT int scalar(cdc_json_rowdec_t *dec, char kind, const char *s, size_t len)
{
    frame_t *f = dec->f;
    if (__builtin_expect(dec->hook.scalar != NULL, 0))
        return scalar_hooked(dec, kind, s, len);
    if (f->kind == F_ROW && f->cur >= 0) {
        cdc_type_root_t root = (cdc_type_root_t)f->roots[f->cur];
        cdc_value_t *dst = &f->vals[f->cur];
        if (kind == 's' && (root == CDC_T_VARCHAR || root == CDC_T_CHAR) && len <= UINT32_MAX) {
            store_string(dec, s, len, dst);
            return 0;
        }
        if (kind == '#' && root >= CDC_T_TINYINT && root <= CDC_T_BIGINT &&
            store_integer(root, s, len, dst) == 0)
            return 0;
        return store_scalar(dec, f->ktypes[f->cur], kind, s, len, dst);
    }
    return scalar_general(dec, kind, s, len);
}

int cdc_json_rowdec_null(cdc_json_rowdec_t *dec)
{
    return scalar(dec, 'n', "null", 4);
}

int cdc_json_rowdec_bool(cdc_json_rowdec_t *dec, int b)
{
    return b ? scalar(dec, 'b', "true", 4) : scalar(dec, 'b', "false", 5);
}

int cdc_json_rowdec_number(cdc_json_rowdec_t *dec, const char *s, size_t len)
{
    return scalar(dec, '#', s, len);
}

int cdc_json_rowdec_string(cdc_json_rowdec_t *dec, const unsigned char *s, size_t len)
{
    return scalar(dec, 's', (const char *)s, len);
}

/*
 * True when a key equals a field name (w0: its first 8 bytes), decided a word
 * at a time; false when they differ or when the key does not lie inside the
 * message with 8-byte words to spare (the caller then takes the slow path).
 * The names are stored zero-padded to a multiple of 8 bytes; the key bytes
 * read past its end are masked off. No call: the callbacks that inline this
 * need no stack frame on their fast path.
 */
HOT bool name_eq_fast(const cdc_json_rowdec_t *dec, const char *key, const char *padded,
                      uint64_t w0, size_t len)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uintptr_t off = (uintptr_t)key - (uintptr_t)dec->in;
    if (off >= dec->inlen || ((len + 7) & ~(size_t)7) > dec->inlen - off)
        return false;
    if (len <= 8) /* the usual case: one word, without touching the name */
        return len == 0 || ((load8(key) ^ w0) & (~(uint64_t)0 >> (64 - 8 * len))) == 0;
    size_t i = 0;
    for (; i + 8 <= len; i += 8)
        if (load8(key + i) != load8(padded + i))
            return false;
    return i == len ||
           ((load8(key + i) ^ load8(padded + i)) & (~(uint64_t)0 >> (64 - 8 * (len - i)))) == 0;
#else
    (void)dec;
    (void)key;
    (void)padded;
    (void)w0;
    (void)len;
    return false;
#endif
}

/* Compares a key with a field name: word-wise when possible, else memcmp. */
static bool name_eq(const cdc_json_rowdec_t *dec, const char *key, const char *padded, uint64_t w0,
                    size_t len)
{
    return name_eq_fast(dec, key, padded, w0, len) || memcmp(key, padded, len) == 0;
}

HOT int32_t find_field(const cdc_json_rowdec_t *dec, const frame_t *f, const char *s, size_t len)
{
    uint32_t g = (uint32_t)f->expect;
    if (g < f->nfields && f->name_len[g] == len && name_eq(dec, s, f->names[g], f->w0[g], len))
        return (int32_t)g;
    const plan_t *p = f->plan;
    for (uint32_t h = hash_name(s, len) & p->mask;; h = (h + 1) & p->mask) {
        int32_t i = p->slots[h];
        if (i < 0)
            return -1;
        if (p->name_len[i] == len && name_eq(dec, s, p->names[i], p->w0[i], len))
            return i;
    }
}

COLD int map_key_slow(cdc_json_rowdec_t *dec, frame_t *f, const char *s, size_t len)
{
    switch (f->kind) {
    case F_ROW: {
        int32_t i = find_field(dec, f, s, len);
        f->cur = i;
        if (i >= 0) {
            f->expect = i + 1;
            if (dec->opts.fail_on_missing_field) {
                uint64_t bit = (uint64_t)1 << (i & 63);
                uint64_t *w = &f->seen[i >> 6];
                f->nseen += !(*w & bit);
                *w |= bit;
            }
        }
        return 0;
    }
    case F_MAP: {
        if (f->n == f->cap)
            grow(f, true);
        dec->reason[0] = '\0';
        int rc = convert(f->ktypes[0], 's', s, len, dec->opts.iso8601, dec->arena, dec->in,
                         dec->inlen, &f->keys[f->n], dec->reason, sizeof(dec->reason));
        if (rc < 0) {
            char msg[450];
            size_t pos = 0;
            cdc_json_bput(msg, sizeof(msg), &pos, "map key: %s", dec->reason);
            return fail_at(dec, dec->top - 1, NULL, msg);
        }
        /* a repeated key: the last value wins (Jackson's rule), in the earlier entry's place */
        for (uint32_t i = 0; i < f->n; i++) {
            if (cdc_value_cmp(f->ktypes[0], &f->keys[i], &f->keys[f->n]) == 0) {
                memmove(&f->keys[i], &f->keys[i + 1], (f->n - i) * sizeof(cdc_value_t));
                memmove(&f->items[i], &f->items[i + 1], (f->n - 1 - i) * sizeof(cdc_value_t));
                f->n--;
                break;
            }
        }
        f->items[f->n].flags = CDC_V_NULL;
        f->n++;
        return 0;
    }
    case F_CAPTURE:
        cap_sep(dec, f->depth);
        cdc_json_write_string(&dec->cap, s, len);
        cdc_buf_putc(&dec->cap, ':');
        dec->cap_after_key = true;
        return 0;
    default:
        return 0;
    }
}

/*
 * A key event. The fast path: a ROW whose keys come in schema order (the
 * usual case: producers write fields in a fixed order) and no seen-set to
 * keep (only fail-on-missing-field needs it; NOT NULL is checked on the values).
 */
HOT int map_key(cdc_json_rowdec_t *dec, const char *s, size_t len)
{
    frame_t *f = dec->f;
    uint32_t g = (uint32_t)f->expect;
    if (f->kind == F_ROW && !dec->opts.fail_on_missing_field && g < f->nfields &&
        f->name_len[g] == len && name_eq_fast(dec, s, f->names[g], f->w0[g], len)) {
        f->cur = (int32_t)g;
        f->expect = (int32_t)g + 1;
        return 0;
    }
    return map_key_slow(dec, f, s, len);
}

int cdc_json_rowdec_map_key(cdc_json_rowdec_t *dec, const unsigned char *key, size_t len)
{
    return map_key(dec, (const char *)key, len);
}

static int open_container(cdc_json_rowdec_t *dec, char kind)
{
    frame_t *f = dec->f;
    if (f->kind == F_HOST)
        return 2;
    if (f->kind == F_SKIP || f->kind == F_CAPTURE) {
        /* a subtree taken whole or skipped needs no frame per level */
        if (dec->top + (int)f->depth >= CDC_JSON_PARSER_MAX_DEPTH)
            return fail_depth(dec, CDC_JSON_PARSER_MAX_DEPTH);
        if (f->kind == F_CAPTURE)
            cap_open(dec, f, kind == '{' ? '{' : '[');
        else
            f->depth++;
        return 0;
    }
    if (dec->top >= CDC_JSON_MAX_DEPTH)
        return fail_depth(dec, CDC_JSON_MAX_DEPTH);
    frame_t *c = f + 1;
    uint32_t slot;
    int kid; /* which plan kid types the value */
    switch (f->kind) {
    case F_ROW:
        if (f->cur < 0) { /* unknown field: skip the subtree */
            c->kind = F_SKIP;
            c->depth = 1;
            dec->top++;
            dec->f = c;
            return 0;
        }
        slot = (uint32_t)f->cur;
        kid = f->cur;
        break;
    case F_ARRAY:
        if (f->n == f->cap)
            grow(f, false);
        slot = f->n++;
        kid = 0;
        break;
    default: /* F_MAP: the key was added by map_key */
        slot = f->n - 1;
        kid = 1;
        break;
    }
    const plan_t *p = f->plan->kids[kid];
    const cdc_type_t *t = p->type;
    slot_value(f, slot)->flags = CDC_V_NULL;
    bool hooked = kind == '{' && dec->hook.object && t->root != CDC_T_ROW &&
                  !cdc_type_is_map_like(t) && dec->hook.object(dec->hook.ctx, t, p->id);
    if (kind == '{' && t->root == CDC_T_ROW) {
        row_frame_init(dec, c, p, cdc_row_new_in(dec->arena, p->n));
    } else if ((kind == '{' && cdc_type_is_map_like(t)) ||
               (kind == '[' && t->root == CDC_T_ARRAY)) {
        c->kind = kind == '{' ? F_MAP : F_ARRAY;
        c->plan = p;
        c->ktypes = p->ktypes;
        c->n = 0;
        if (c->kind == F_MAP && c->cap && !c->keys)
            c->keys = cdc_xmalloc(c->cap * sizeof(cdc_value_t));
    } else if (hooked || t->root == CDC_T_CHAR || t->root == CDC_T_VARCHAR) {
        /* the JSON text, for a STRING or (hooked) as one value the hook converts */
        c->kind = F_CAPTURE;
        c->hooked = hooked;
        c->plan = p;
        c->depth = 0;
        cdc_buf_clear(&dec->cap);
        dec->cap_after_key = false;
        dec->cap_first[0] = true;
        cap_open(dec, c, kind);
    } else {
        dec->reason[0] = '\0';
        mismatch(t, kind, NULL, 0, dec->reason, sizeof(dec->reason));
        return fail_at(dec, dec->top, NULL, dec->reason);
    }
    c->slot = slot;
    dec->top++;
    dec->f = c;
    return 0;
}

static int fail_missing_not_null(cdc_json_rowdec_t *dec, const frame_t *f, uint32_t i)
{
    size_t pos = 0;
    cdc_json_bput(dec->reason, sizeof(dec->reason), &pos, "missing, expected ");
    cdc_json_type_text(f->ktypes[i], dec->reason, sizeof(dec->reason), &pos, true);
    return fail_at(dec, dec->top - 1, f->names[i], dec->reason);
}

/*
 * Checks a finished ROW frame: fields absent under fail-on-missing-field, and
 * NOT NULL fields still NULL (a null value fails on arrival, so such a field
 * was absent).
 */
static int check_row_end(cdc_json_rowdec_t *dec, const frame_t *f)
{
    const plan_t *p = f->plan;
    if (dec->opts.fail_on_missing_field && f->nseen < p->n) {
        for (uint32_t i = 0; i < p->n; i++) {
            if (!(f->seen[i >> 6] & ((uint64_t)1 << (i & 63))))
                return fail_at(dec, dec->top - 1, p->names[i], "missing");
        }
    }
    for (uint32_t k = 0; k < p->n_not_null; k++) {
        uint32_t i = p->not_null[k];
        if (cdc_value_is_null(&f->vals[i]))
            return fail_missing_not_null(dec, f, i);
    }
    return 0;
}

/* Closes the top frame and stores its value in the parent. Returns 1 at the root. */
static int close_container(cdc_json_rowdec_t *dec, char kind)
{
    frame_t *f = dec->f;
    cdc_value_t v;
    v.flags = 0;
    switch (f->kind) {
    case F_HOST:
        return 2;
    case F_SKIP:
        if (--f->depth > 0)
            return 0;
        dec->top--;
        dec->f = f - 1;
        return 0;
    case F_CAPTURE:
        cdc_buf_putc(&dec->cap, kind == '}' ? '}' : ']');
        if (--f->depth > 0)
            return 0;
        if (f->hooked) {
            dec->reason[0] = '\0';
            if (dec->hook.scalar(dec->hook.ctx, f->plan->type, f->plan->id, '{', dec->cap.data,
                                 dec->cap.len, &v, dec->reason, sizeof(dec->reason)) < 0)
                return fail_at(dec, dec->top - 1, NULL, dec->reason);
            break;
        }
        v.v.s.ptr = cdc_arena_memdup(dec->arena, dec->cap.data, dec->cap.len);
        v.v.s.len = (uint32_t)dec->cap.len;
        break;
    case F_ROW:
        if ((dec->opts.fail_on_missing_field || f->plan->n_not_null) && check_row_end(dec, f) < 0)
            return -1;
        if (dec->top == 0)
            return 1;
        v.v.row = f->row;
        break;
    default: { /* F_ARRAY, F_MAP */
        size_t sz = (size_t)f->n * sizeof(cdc_value_t);
        v.v.arr.n = f->n;
        v.v.arr.elems = cdc_arena_alloc(dec->arena, sz);
        v.v.arr.vals = NULL;
        if (f->kind == F_MAP) {
            v.v.arr.vals = cdc_arena_alloc(dec->arena, sz);
            if (sz) { /* keys/items are NULL until the first non-empty map */
                memcpy(v.v.arr.elems, f->keys, sz);
                memcpy(v.v.arr.vals, f->items, sz);
            }
        } else if (sz) {
            memcpy(v.v.arr.elems, f->items, sz);
        }
        break;
    }
    }
    dec->top--;
    dec->f = f - 1;
    *slot_value(f - 1, f->slot) = v;
    return 0;
}

int cdc_json_rowdec_start_map(cdc_json_rowdec_t *dec)
{
    return open_container(dec, '{');
}

int cdc_json_rowdec_end_map(cdc_json_rowdec_t *dec)
{
    return close_container(dec, '}');
}

int cdc_json_rowdec_start_array(cdc_json_rowdec_t *dec)
{
    return open_container(dec, '[');
}

int cdc_json_rowdec_end_array(cdc_json_rowdec_t *dec)
{
    return close_container(dec, ']');
}

/* ---- the json format's deserializer ----------------------------------------------------- */

/*
 * It lives here, beside the row decoder, so that its yajl callbacks inline the
 * decoder's event handlers: this is the hot path of the format.
 */

enum { S_START, S_ARRAY, S_DONE };

typedef struct json_deser_s {
    cdc_deser_t base;
    cdc_type_t *row_type;
    cdc_json_parser_t *parser;
    bool ignore_parse_errors;
    /* the message being decoded */
    cdc_batch_t *out;
    uint32_t added;
    int state;
    bool in_array;               /* the message is a top-level array of objects (Flink 1.15+) */
    cdc_json_rowdec_t rowdec[1]; /* embedded: one load less per event */
} json_deser_t;

/*
 * The row decoder handles every event; those outside a row come back as 2
 * (F_HOST) and are handled here: the top-level object or array of objects.
 */

/* A value where a row object must be: cancels the parse (after the value: ignored). */
static int root_error(json_deser_t *d, const char *found)
{
    if (d->state == S_DONE)
        return 1; /* trailing garbage, reported by the parser */
    cdc_buf_clear(&d->base.errmsg);
    cdc_buf_printf(&d->base.errmsg, "expected a JSON object%s, found %s",
                   d->in_array ? " in the top-level array" : "", found);
    return 0;
}

/* A row decoder error as a yajl callback result. */
static int fwd_error(json_deser_t *d)
{
    cdc_buf_clear(&d->base.errmsg);
    cdc_buf_puts(&d->base.errmsg, d->rowdec->err);
    return 0;
}

static int scalar_result(json_deser_t *d, int rc, const char *found)
{
    return rc == 0 ? 1 : rc == 2 ? root_error(d, found) : fwd_error(d);
}

static int on_null(void *ctx)
{
    json_deser_t *d = ctx;
    return scalar_result(d, scalar(d->rowdec, 'n', "null", 4), "null");
}

static int on_bool(void *ctx, int b)
{
    json_deser_t *d = ctx;
    int rc = b ? scalar(d->rowdec, 'b', "true", 4) : scalar(d->rowdec, 'b', "false", 5);
    return scalar_result(d, rc, "a boolean");
}

/*
 * The three busiest callbacks do only their fast path inline and end in a tail
 * call otherwise, so the fast path needs no stack frame.
 */
COLD int on_number_slow(json_deser_t *d, const char *s, size_t len)
{
    return scalar_result(d, scalar(d->rowdec, '#', s, len), "a number");
}

static int on_number(void *ctx, const char *s, size_t len)
{
    json_deser_t *d = ctx;
    frame_t *f = d->rowdec->f;
    if (f->kind == F_ROW && f->cur >= 0) {
        cdc_type_root_t root = (cdc_type_root_t)f->roots[f->cur];
        if (root >= CDC_T_TINYINT && root <= CDC_T_BIGINT &&
            store_integer(root, s, len, &f->vals[f->cur]) == 0)
            return 1;
    }
    return on_number_slow(d, s, len);
}

COLD int on_string_slow(json_deser_t *d, const unsigned char *s, size_t len)
{
    return scalar_result(d, scalar(d->rowdec, 's', (const char *)s, len), "a string");
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
    json_deser_t *d = ctx;
    cdc_json_rowdec_t *dec = d->rowdec;
    frame_t *f = dec->f;
    if (f->kind == F_ROW && f->cur >= 0) {
        cdc_type_root_t root = (cdc_type_root_t)f->roots[f->cur];
        uintptr_t off = (uintptr_t)s - (uintptr_t)dec->in;
        if ((root == CDC_T_VARCHAR || root == CDC_T_CHAR) && off < dec->inlen &&
            len <= dec->inlen - off && len <= UINT32_MAX) {
            cdc_value_t *dst = &f->vals[f->cur];
            dst->v.s.ptr = (const char *)s; /* unescaped: points into the message */
            dst->v.s.len = (uint32_t)len;
            dst->flags = 0;
            return 1;
        }
    }
    return on_string_slow(d, s, len);
}

COLD int on_map_key_slow(json_deser_t *d, const unsigned char *s, size_t len)
{
    /* outside a row only after the value: ignored */
    return map_key_slow(d->rowdec, d->rowdec->f, (const char *)s, len) >= 0 ? 1 : fwd_error(d);
}

static int on_map_key(void *ctx, const unsigned char *s, size_t len)
{
    json_deser_t *d = ctx;
    cdc_json_rowdec_t *dec = d->rowdec;
    frame_t *f = dec->f;
    uint32_t g = (uint32_t)f->expect;
    if (f->kind == F_ROW && !dec->opts.fail_on_missing_field && g < f->nfields &&
        f->name_len[g] == len && name_eq_fast(dec, (const char *)s, f->names[g], f->w0[g], len)) {
        f->cur = (int32_t)g;
        f->expect = (int32_t)g + 1;
        return 1;
    }
    return on_map_key_slow(d, s, len);
}

static int on_start_map(void *ctx)
{
    json_deser_t *d = ctx;
    int rc = open_container(d->rowdec, '{');
    if (rc != 2)
        return rc == 0 ? 1 : fwd_error(d);
    if (d->state == S_DONE)
        return 1;
    cdc_row_t *row = cdc_batch_add(d->out, CDC_INSERT, (uint32_t)d->row_type->nchildren);
    d->added++;
    cdc_json_rowdec_begin(d->rowdec, row, &d->out->arena);
    return 1;
}

static int on_end_map(void *ctx)
{
    json_deser_t *d = ctx;
    int rc = close_container(d->rowdec, '}');
    if (rc == 0 || rc == 2) /* 2: after the value */
        return 1;
    if (rc < 0)
        return fwd_error(d);
    d->rowdec->f = &d->rowdec->host; /* the row is complete */
    if (!d->in_array) {
        d->state = S_DONE;
        cdc_json_parser_mark_end(d->parser);
    }
    return 1;
}

static int on_start_array(void *ctx)
{
    json_deser_t *d = ctx;
    int rc = open_container(d->rowdec, '[');
    if (rc != 2)
        return rc == 0 ? 1 : fwd_error(d);
    if (d->state == S_DONE)
        return 1;
    if (d->state == S_ARRAY)
        return root_error(d, "an array");
    d->in_array = true;
    d->state = S_ARRAY;
    return 1;
}

static int on_end_array(void *ctx)
{
    json_deser_t *d = ctx;
    int rc = close_container(d->rowdec, ']');
    if (rc != 2)
        return rc == 0 ? 1 : fwd_error(d);
    if (d->state == S_DONE)
        return 1;
    d->state = S_DONE;
    cdc_json_parser_mark_end(d->parser);
    return 1;
}

static const yajl_callbacks json_callbacks = {
    .yajl_null = on_null,
    .yajl_boolean = on_bool,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_map_key,
    .yajl_end_map = on_end_map,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end_array,
};

static int json_decode(cdc_deser_t *base, const char *msg, size_t len, cdc_batch_t *out)
{
    json_deser_t *d = (json_deser_t *)base;
    if (!msg || len == 0)
        return CDC_DECODE_OK; /* tombstone */
    d->out = out;
    d->added = 0;
    d->state = S_START;
    d->in_array = false;
    d->rowdec->f = &d->rowdec->host;
    /* msg outlives the rows (the caller keeps it until the batch is reset) */
    cdc_json_rowdec_set_input(d->rowdec, msg, len);
    int rc = cdc_json_parser_parse(d->parser, msg, len, &d->base.errmsg);
    cdc_json_rowdec_set_input(d->rowdec, NULL, 0);
    if (rc == CDC_JSON_PARSE_OK)
        return CDC_DECODE_OK;
    cdc_batch_truncate(out, d->added);
    if (d->ignore_parse_errors) {
        /*
         * Flink's ignore-parse-errors sets only the failing field to NULL and
         * keeps the row; we drop the whole message and count it, so a row is
         * never half-filled with guesses (and the count shows the loss).
         */
        d->base.skipped++;
        return CDC_DECODE_SKIPPED;
    }
    return CDC_DECODE_ERROR;
}

static void json_deser_destroy(cdc_deser_t *base)
{
    json_deser_t *d = (json_deser_t *)base;
    if (!d)
        return;
    cdc_json_parser_destroy(d->parser);
    rowdec_fini(d->rowdec);
    cdc_type_destroy(d->row_type);
    cdc_buf_free(&d->base.errmsg);
    free(d);
}

static const cdc_deser_ops_t json_deser_ops = {
    .decode = json_decode,
    .destroy = json_deser_destroy,
};

cdc_deser_t *cdc_json_deser_new(cdc_type_t *row_type, const cdc_json_opts_t *opts,
                                bool ignore_parse_errors)
{
    json_deser_t *d = cdc_xcalloc(1, sizeof(*d));
    d->base.ops = &json_deser_ops;
    d->row_type = row_type;
    d->ignore_parse_errors = ignore_parse_errors;
    rowdec_init(d->rowdec, row_type, opts);
    d->parser = cdc_json_parser_new(&json_callbacks, d);
    return &d->base;
}
