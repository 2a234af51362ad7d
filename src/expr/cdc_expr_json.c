/*
 * cdc_expr_json.c — Flink's JSON built-ins: JSON_VALUE, JSON_QUERY,
 * JSON_EXISTS, JSON_OBJECT and JSON_ARRAY.
 *
 * The expression layer may not use the json format plugin (docs/
 * ARCHITECTURE.md), so this file has its own small reader: it checks the
 * whole document (RFC 8259) and then walks the path over the text, without
 * building a tree or allocating. Paths: `$`, `.name`, `['name']` or
 * `["name"]`, `[n]` (0-based), an optional `lax`/`strict` prefix (both act
 * as lax); no wildcards, filters or array unwrapping. A document that is not
 * JSON, or a path that finds nothing, gives NULL (JSON_EXISTS: FALSE) as
 * Flink's defaults (NULL ON EMPTY, NULL ON ERROR, FALSE ON ERROR); the parser
 * accepts only those clauses and turns RETURNING into TRY_CAST. A constant
 * path that does not parse is a plan-time error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cdc_expr_int.h"
#include "cdc_value_text.h"

#define EVAL_KID CDC_XEVAL_KID
#define MAX_DEPTH 512

/* ---- the reader ----------------------------------------------------------------------------- */

typedef struct jtext {
    const char *s;
    size_t len;
} jtext_t;

static void ws(const jtext_t *j, size_t *i)
{
    while (*i < j->len &&
           (j->s[*i] == ' ' || j->s[*i] == '\t' || j->s[*i] == '\n' || j->s[*i] == '\r'))
        (*i)++;
}

static bool hex4(const jtext_t *j, size_t i, unsigned *v)
{
    if (i + 4 > j->len)
        return false;
    *v = 0;
    for (size_t k = i; k < i + 4; k++) {
        char c = j->s[k];
        unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 16;
        if (d > 15)
            return false;
        *v = *v * 16 + d;
    }
    return true;
}

static size_t put_utf8(char *w, unsigned cp)
{
    if (cp < 0x80) {
        w[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        w[0] = (char)(0xC0 | (cp >> 6));
        w[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        w[0] = (char)(0xE0 | (cp >> 12));
        w[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        w[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    w[0] = (char)(0xF0 | (cp >> 18));
    w[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    w[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    w[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* The string at j->s[*i] (its opening quote): checks it, moves past it and, when out is not NULL,
 * writes its unescaped bytes there (never more than the escaped length) and their count to
 * *outlen. */
static bool str(const jtext_t *j, size_t *i, char *out, size_t *outlen)
{
    size_t k = *i + 1, w = 0;
    while (k < j->len && j->s[k] != '"') {
        unsigned char c = (unsigned char)j->s[k];
        if (c < 0x20)
            return false;
        if (c != '\\') {
            if (out)
                out[w] = (char)c;
            w++;
            k++;
            continue;
        }
        if (++k >= j->len)
            return false;
        char e = j->s[k++];
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e && simple) {
            static const char map[] = "\"\\/\b\f\n\r\t";
            if (out)
                out[w] = map[simple - "\"\\/bfnrt"];
            w++;
            continue;
        }
        unsigned cp;
        if (e != 'u' || !hex4(j, k, &cp))
            return false;
        k += 4;
        if (cp >= 0xD800 && cp < 0xDC00) { /* a high surrogate: a low one must follow */
            unsigned lo;
            if (k + 6 <= j->len && j->s[k] == '\\' && j->s[k + 1] == 'u' && hex4(j, k + 2, &lo) &&
                lo >= 0xDC00 && lo < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                k += 6;
            } else {
                cp = 0xFFFD;
            }
        } else if (cp >= 0xDC00 && cp < 0xE000) {
            cp = 0xFFFD;
        }
        char buf[4];
        size_t n = put_utf8(out ? out + w : buf, cp);
        w += n;
    }
    if (k >= j->len)
        return false;
    *i = k + 1;
    if (outlen)
        *outlen = w;
    return true;
}

static bool digits(const jtext_t *j, size_t *i)
{
    size_t k = *i;
    while (*i < j->len && j->s[*i] >= '0' && j->s[*i] <= '9')
        (*i)++;
    return *i > k;
}

static bool number(const jtext_t *j, size_t *i)
{
    if (*i < j->len && j->s[*i] == '-')
        (*i)++;
    if (*i < j->len && j->s[*i] == '0')
        (*i)++;
    else if (!digits(j, i))
        return false;
    if (*i < j->len && j->s[*i] == '.') {
        (*i)++;
        if (!digits(j, i))
            return false;
    }
    if (*i < j->len && (j->s[*i] == 'e' || j->s[*i] == 'E')) {
        (*i)++;
        if (*i < j->len && (j->s[*i] == '+' || j->s[*i] == '-'))
            (*i)++;
        if (!digits(j, i))
            return false;
    }
    return true;
}

static bool word(const jtext_t *j, size_t *i, const char *w)
{
    size_t n = strlen(w);
    if (*i + n > j->len || memcmp(j->s + *i, w, n) != 0)
        return false;
    *i += n;
    return true;
}

/* Checks and skips the value at *i (leading blanks skipped). */
static bool skip(const jtext_t *j, size_t *i, int depth)
{
    ws(j, i);
    if (*i >= j->len || depth > MAX_DEPTH)
        return false;
    char c = j->s[*i];
    if (c == '"')
        return str(j, i, NULL, NULL);
    if (c == 't')
        return word(j, i, "true");
    if (c == 'f')
        return word(j, i, "false");
    if (c == 'n')
        return word(j, i, "null");
    if (c != '{' && c != '[')
        return number(j, i);
    char close = c == '{' ? '}' : ']';
    (*i)++;
    ws(j, i);
    if (*i < j->len && j->s[*i] == close) {
        (*i)++;
        return true;
    }
    for (;;) {
        if (c == '{') {
            ws(j, i);
            if (*i >= j->len || j->s[*i] != '"' || !str(j, i, NULL, NULL))
                return false;
            ws(j, i);
            if (*i >= j->len || j->s[(*i)++] != ':')
                return false;
        }
        if (!skip(j, i, depth + 1))
            return false;
        ws(j, i);
        if (*i >= j->len)
            return false;
        char sep = j->s[(*i)++];
        if (sep == close)
            return true;
        if (sep != ',')
            return false;
    }
}

/* ---- paths ---------------------------------------------------------------------------------- */

/* One path step: a member name (escaped text of the path, quote char or 0) or an index. */
typedef struct step {
    bool index;
    int64_t n;
    const char *name;
    size_t namelen;
    char quote; /* 0 for .name */
} step_t;

/* The path after its `$` at p[*k]: reads the next step. Returns 1, 0 at the end, -1 when it does
 * not parse. */
static int path_next(const char *p, size_t len, size_t *k, step_t *st)
{
    while (*k < len && p[*k] == ' ')
        (*k)++;
    if (*k >= len)
        return 0;
    memset(st, 0, sizeof(*st));
    if (p[*k] == '.') {
        size_t b = ++(*k);
        while (*k < len && p[*k] != '.' && p[*k] != '[' && p[*k] != ' ')
            (*k)++;
        if (*k == b || (*k - b == 1 && p[b] == '*'))
            return -1;
        st->name = p + b;
        st->namelen = *k - b;
        return 1;
    }
    if (p[*k] != '[')
        return -1;
    (*k)++;
    if (*k < len && (p[*k] == '\'' || p[*k] == '"')) {
        char q = p[(*k)++];
        size_t b = *k;
        while (*k < len && p[*k] != q)
            (*k)++;
        if (*k + 1 >= len || p[*k + 1] != ']')
            return -1;
        st->name = p + b;
        st->namelen = *k - b;
        st->quote = q;
        *k += 2;
        return 1;
    }
    size_t b = *k;
    int64_t n = 0;
    while (*k < len && p[*k] >= '0' && p[*k] <= '9' && n < INT32_MAX)
        n = n * 10 + (p[(*k)++] - '0');
    if (*k == b || *k >= len || p[*k] != ']')
        return -1;
    (*k)++;
    st->index = true;
    st->n = n;
    return 1;
}

/* Checks the path's syntax; returns the offset just past `$`, or -1. */
static long path_start(const char *p, size_t len)
{
    size_t k = 0;
    while (k < len && p[k] == ' ')
        k++;
    if (len - k >= 4 && strncasecmp(p + k, "lax ", 4) == 0)
        k += 4;
    else if (len - k >= 7 && strncasecmp(p + k, "strict ", 7) == 0)
        k += 7;
    while (k < len && p[k] == ' ')
        k++;
    if (k >= len || p[k] != '$')
        return -1;
    size_t start = ++k;
    step_t st;
    int rc;
    while ((rc = path_next(p, len, &k, &st)) == 1)
        ;
    return rc < 0 ? -1 : (long)start;
}

/* Whether the JSON string at j->s[i] equals the step's member name. */
static bool key_matches(const jtext_t *j, size_t i, const step_t *st, char *scratch)
{
    size_t end = i, n;
    if (!str(j, &end, scratch, &n))
        return false;
    return n == st->namelen && memcmp(scratch, st->name, n) == 0;
}

/* Finds the value the path p names in the (checked) document; *at is its offset. */
static bool locate(const jtext_t *j, const char *p, size_t plen, size_t *at, cdc_xctx_t *cx)
{
    long start = path_start(p, plen);
    if (start < 0)
        return false;
    size_t k = (size_t)start, i = 0;
    char *scratch = NULL;
    step_t st;
    ws(j, &i);
    while (path_next(p, plen, &k, &st) == 1) {
        char c = j->s[i];
        if (st.index ? c != '[' : c != '{')
            return false;
        i++;
        ws(j, &i);
        if (j->s[i] == (st.index ? ']' : '}'))
            return false;
        for (int64_t idx = 0;; idx++) {
            bool hit;
            if (st.index) {
                hit = idx == st.n;
            } else {
                if (!scratch)
                    scratch = cdc_arena_alloc(cx->arena, j->len);
                hit = key_matches(j, i, &st, scratch);
                str(j, &i, NULL, NULL);
                ws(j, &i);
                i++; /* : */
            }
            ws(j, &i);
            if (hit)
                break;
            skip(j, &i, 0);
            ws(j, &i);
            if (j->s[i++] != ',')
                return false; /* the end of the container: not found */
            ws(j, &i);
        }
    }
    *at = i;
    return true;
}

/* ---- JSON_VALUE, JSON_QUERY, JSON_EXISTS ---------------------------------------------------- */

enum { J_VALUE, J_QUERY, J_EXISTS };

/* Copies the value at j->s[from..to) without blanks outside strings into w; returns the length. */
static size_t compact(const jtext_t *j, size_t from, size_t to, char *w)
{
    size_t o = 0;
    bool in_str = false;
    for (size_t i = from; i < to; i++) {
        char c = j->s[i];
        if (in_str) {
            w[o++] = c;
            if (c == '\\' && i + 1 < to)
                w[o++] = j->s[++i];
            else if (c == '"')
                in_str = false;
        } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            w[o++] = c;
            in_str = c == '"';
        }
    }
    return o;
}

/* kids: json, path; ival: J_* */
static int eval_json_query(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    cdc_value_t doc, path;
    EVAL_KID(0, &doc);
    EVAL_KID(1, &path);
    if (cdc_value_is_null(&doc) || cdc_value_is_null(&path)) {
        cdc_xset_null(out);
        return 0;
    }
    jtext_t j = {doc.v.s.ptr, doc.v.s.len};
    size_t end = 0, at;
    bool ok = skip(&j, &end, 0);
    ws(&j, &end);
    ok = ok && end == j.len && locate(&j, path.v.s.ptr, path.v.s.len, &at, cx);
    if (n->ival == J_EXISTS) {
        out->flags = 0;
        out->v.b = ok;
        return 0;
    }
    cdc_xset_null(out);
    if (!ok)
        return 0;
    char c = j.s[at];
    size_t vend = at;
    skip(&j, &vend, 0);
    if (n->ival == J_QUERY) { /* objects and arrays only (WITHOUT WRAPPER) */
        if (c == '{' || c == '[') {
            char *w = cdc_arena_alloc(cx->arena, vend - at);
            cdc_xset_str(out, w, compact(&j, at, vend, w));
        }
        return 0;
    }
    if (c == '{' || c == '[' || c == 'n')
        return 0;
    if (c == '"') {
        char *w = cdc_arena_alloc(cx->arena, vend - at);
        size_t len, i = at;
        str(&j, &i, w, &len);
        cdc_xset_str(out, w, len);
        return 0;
    }
    cdc_xset_str(out, j.s + at, vend - at); /* a number, true or false as written */
    return 0;
}

/* ---- JSON_OBJECT, JSON_ARRAY ---------------------------------------------------------------- */

typedef struct ctor {
    bool object;
    bool absent_on_null;
    bool raw[]; /* per kid: a nested JSON_OBJECT/JSON_ARRAY, inserted as JSON */
} ctor_t;

static size_t put_json_string(char *w, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    w[o++] = '"';
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = c == '"'    ? "\\\""
                          : c == '\\' ? "\\\\"
                          : c == '\n' ? "\\n"
                          : c == '\r' ? "\\r"
                          : c == '\t' ? "\\t"
                          : c == '\b' ? "\\b"
                          : c == '\f' ? "\\f"
                                      : NULL;
        if (esc) {
            memcpy(w + o, esc, 2);
            o += 2;
        } else if (c < 0x20) {
            memcpy(w + o, "\\u00", 4);
            w[o + 4] = hex[c >> 4];
            w[o + 5] = hex[c & 15];
            o += 6;
        } else {
            w[o++] = (char)c;
        }
    }
    w[o++] = '"';
    return o;
}

/* Room a value of type t and value v may take as JSON (an ARRAY's elements, a MAP's entries
 * each with a separator). */
static size_t json_room(const cdc_type_t *t, const cdc_value_t *v)
{
    if (cdc_value_is_null(v))
        return 4;
    if (t->root == CDC_T_ARRAY || t->root == CDC_T_MAP) {
        size_t room = 2;
        for (uint32_t i = 0; i < v->v.arr.n; i++) {
            room += json_room(t->children[0], &v->v.arr.elems[i]) + 2;
            if (t->root == CDC_T_MAP)
                room += json_room(t->children[1], &v->v.arr.vals[i]) + 2;
        }
        return room;
    }
    return cdc_xcat(t) == CDC_XC_STR ? (size_t)v->v.s.len * 6 + 2 : CDC_VALUE_TEXT_MAX + 2;
}

static size_t put_json_value(char *w, const cdc_type_t *t, const cdc_value_t *v, bool raw);

/* An ARRAY as a JSON array, a MAP as an object (keys as their text), as Flink writes them. */
static size_t put_json_collection(char *w, const cdc_type_t *t, const cdc_value_t *v)
{
    bool map = t->root == CDC_T_MAP;
    size_t o = 0;
    w[o++] = map ? '{' : '[';
    for (uint32_t i = 0; i < v->v.arr.n; i++) {
        if (i)
            w[o++] = ',';
        if (map) {
            const cdc_value_t *k = &v->v.arr.elems[i];
            if (cdc_xcat(t->children[0]) == CDC_XC_STR || cdc_value_is_null(k)) {
                o += cdc_value_is_null(k) ? put_json_string(w + o, "null", 4)
                                          : put_json_string(w + o, k->v.s.ptr, k->v.s.len);
            } else {
                char buf[CDC_VALUE_TEXT_MAX];
                int n = cdc_value_to_text(k, t->children[0],
                                          CDC_TEXT_ISO8601 | CDC_TEXT_SHORT_FRACTION, buf);
                o += put_json_string(w + o, buf, n > 0 ? (size_t)n : 0);
            }
            w[o++] = ':';
            o += put_json_value(w + o, t->children[1], &v->v.arr.vals[i], false);
        } else {
            o += put_json_value(w + o, t->children[0], &v->v.arr.elems[i], false);
        }
    }
    w[o++] = map ? '}' : ']';
    return o;
}

static size_t put_json_value(char *w, const cdc_type_t *t, const cdc_value_t *v, bool raw)
{
    if (cdc_value_is_null(v)) {
        memcpy(w, "null", 4);
        return 4;
    }
    if (t->root == CDC_T_ARRAY || t->root == CDC_T_MAP)
        return put_json_collection(w, t, v);
    cdc_xcat_t c = cdc_xcat(t);
    if (c == CDC_XC_STR) {
        if (raw) {
            memcpy(w, v->v.s.ptr, v->v.s.len);
            return v->v.s.len;
        }
        return put_json_string(w, v->v.s.ptr, v->v.s.len);
    }
    char buf[CDC_VALUE_TEXT_MAX];
    int n = cdc_value_to_text(v, t, CDC_TEXT_ISO8601 | CDC_TEXT_SHORT_FRACTION, buf);
    if (n < 0)
        n = 0;
    bool quoted = c == CDC_XC_DATE || c == CDC_XC_TIME || c == CDC_XC_TS || c == CDC_XC_LTZ ||
                  ((c == CDC_XC_FLOAT || c == CDC_XC_DOUBLE) &&
                   !(buf[0] == '-' || (buf[0] >= '0' && buf[0] <= '9')));
    if (quoted)
        return put_json_string(w, buf, (size_t)n);
    memcpy(w, buf, (size_t)n);
    return (size_t)n;
}

/* kids: object: k1, v1, ...; array: v...; aux: ctor_t */
static int eval_json_ctor(const cdc_xnode_t *n, cdc_xctx_t *cx, cdc_value_t *out)
{
    const ctor_t *ct = n->aux;
    cdc_value_t vals[32];
    cdc_value_t *v = n->nkids <= 32 ? vals : cdc_arena_alloc(cx->arena, sizeof(*v) * n->nkids);
    size_t room = 2;
    for (int i = 0; i < n->nkids; i++) {
        EVAL_KID(i, &v[i]);
        if (ct->object && i % 2 == 0 && cdc_value_is_null(&v[i]))
            return cdc_xerr(cx, "JSON_OBJECT: key %d is NULL", i / 2 + 1);
        room += json_room(n->kids[i]->type, &v[i]) + 2;
    }
    char *w = cdc_arena_alloc(cx->arena, room);
    size_t o = 0;
    int count = 0;
    w[o++] = ct->object ? '{' : '[';
    int stride = ct->object ? 2 : 1;
    for (int i = 0; i < n->nkids; i += stride) {
        int vi = i + stride - 1;
        if (cdc_value_is_null(&v[vi]) && ct->absent_on_null)
            continue;
        if (count++)
            w[o++] = ',';
        if (ct->object) {
            o += put_json_string(w + o, v[i].v.s.ptr, v[i].v.s.len);
            w[o++] = ':';
        }
        o += put_json_value(w + o, n->kids[vi]->type, &v[vi], ct->raw[vi]);
    }
    w[o++] = ct->object ? '}' : ']';
    cdc_xset_str(out, w, o);
    return 0;
}

/* ---- compile -------------------------------------------------------------------------------- */

static bool is_ctor_call(const cdc_sql_expr_t *e)
{
    return e->kind == CDC_SQL_EXPR_CALL && (strcasecmp(e->call.name, "JSON_OBJECT") == 0 ||
                                            strcasecmp(e->call.name, "JSON_ARRAY") == 0);
}

/* Whether values of type @p t can be written as JSON: scalars but BINARY, and ARRAYs and MAPs of
 * them (a ROW is not: Flink's field names for it are not settled here). */
static bool json_writable(const cdc_type_t *t)
{
    if (t->root == CDC_T_ARRAY)
        return json_writable(t->children[0]);
    if (t->root == CDC_T_MAP)
        return json_writable(t->children[0]) && t->children[0]->root != CDC_T_ARRAY &&
               t->children[0]->root != CDC_T_MAP && json_writable(t->children[1]);
    cdc_xcat_t c = cdc_xcat(t);
    return c != CDC_XC_BIN && c != CDC_XC_OTHER;
}

/* A JSON_OBJECT/JSON_ARRAY node over compiled args (taken); ast_args are their trees. */
static cdc_xnode_t *make_ctor(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast, bool object,
                              bool absent, cdc_sql_expr_t *const *ast_args, cdc_xnode_t **args,
                              int nargs)
{
    const char *name = object ? "JSON_OBJECT" : "JSON_ARRAY";
    if (object && nargs % 2 != 0)
        return cdc_xcerr(cc, ast->line, ast->col, "JSON_OBJECT(KEY k VALUE v, ...)",
                         "\"%s\" takes key and value pairs", name);
    cdc_type_t *str = cdc_xstring_type(true);
    cdc_xcoerce_all(args, nargs, str);
    for (int i = 0; i < nargs; i++) {
        cdc_xcat_t c = cdc_xcat(args[i]->type);
        bool key = object && i % 2 == 0;
        if ((key && c != CDC_XC_STR) || !json_writable(args[i]->type)) {
            char buf[128];
            const cdc_sql_expr_t *at = ast_args[i];
            cdc_xcerr(cc, at->line, at->col,
                      key ? "keys are strings"
                          : "values are strings, numbers, booleans, dates and times, ARRAYs and "
                            "MAPs of them, or nested JSON_OBJECT/JSON_ARRAY",
                      "\"%s\" cannot take %s as a %s", name, cdc_xtype_name(args[i]->type, buf),
                      key ? "key" : "value");
            cdc_xfree_args(args, nargs);
            return NULL;
        }
    }
    ctor_t *ct = cdc_xcalloc(1, sizeof(*ct) + (size_t)(nargs ? nargs : 1) * sizeof(bool));
    ct->object = object;
    ct->absent_on_null = absent;
    for (int i = 0; i < nargs; i++)
        ct->raw[i] = is_ctor_call(ast_args[i]);
    cdc_xnode_t *n = cdc_xnode_new(eval_json_ctor, cdc_xstring_type(false), ast->line, ast->col);
    n->aux = ct;
    n->aux_free = free;
    return cdc_xadopt(cc, n, args, nargs);
}

cdc_xnode_t *cdc_xjson_compile_special(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                                       bool *handled)
{
    *handled = false;
    if (!is_ctor_call(ast) || ast->call.nargs < 1 ||
        ast->call.args[0]->kind != CDC_SQL_EXPR_LITERAL ||
        ast->call.args[0]->literal.kind != CDC_SQL_LIT_SYMBOL)
        return NULL;
    *handled = true;
    bool absent = strcmp(ast->call.args[0]->literal.text, "ABSENT") == 0;
    size_t nargs = ast->call.nargs - 1;
    cdc_xnode_t **args = cdc_xcalloc(nargs ? nargs : 1, sizeof(*args));
    cdc_xnode_t *n = NULL;
    if (cdc_xcompile_args(cc, (const cdc_sql_expr_t *const *)ast->call.args + 1, nargs, args))
        n = make_ctor(cc, ast, strcasecmp(ast->call.name, "JSON_OBJECT") == 0, absent,
                      ast->call.args + 1, args, (int)nargs);
    free(args);
    return n;
}

/* JSON_OBJECT/JSON_ARRAY called with plain arguments (a quoted name): the default ON NULL. */
static cdc_xnode_t *f_ctor(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                           const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    return make_ctor(cc, ast, def->variant, !def->variant, ast->call.args, args, nargs);
}

static cdc_xnode_t *f_json_query(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                                 const cdc_xfunc_def_t *def, cdc_xnode_t **args, int nargs)
{
    cdc_xcoerce_all(args, nargs, cdc_xstring_type(true));
    if (!cdc_xis_str(args[0]) || !cdc_xis_str(args[1]))
        return cdc_xbad(cc, ast, def, args, nargs);
    cdc_xnode_t *path = args[1];
    if (path->eval == cdc_xeval_literal && !cdc_value_is_null(&path->lit) &&
        path_start(path->lit.v.s.ptr, path->lit.v.s.len) < 0) {
        const cdc_sql_expr_t *at = ast->call.args[1];
        cdc_xcerr(cc, at->line, at->col,
                  "supported: $, .name, ['name'], [n], with an optional lax or strict",
                  "invalid JSON path '%.*s' in \"%s\"", (int)path->lit.v.s.len, path->lit.v.s.ptr,
                  def->name);
        cdc_xfree_args(args, nargs);
        return NULL;
    }
    cdc_type_t *t = def->variant == J_EXISTS
                        ? cdc_xtype_of(CDC_T_BOOLEAN, cdc_xany_nullable(args, nargs))
                        : cdc_xstring_type(true);
    cdc_xnode_t *n = cdc_xnode_new(eval_json_query, t, ast->line, ast->col);
    n->ival = def->variant;
    return cdc_xadopt(cc, n, args, nargs);
}

const cdc_xfunc_def_t cdc_xfuncs_json[] = {
    {"JSON_VALUE", 2, 2, f_json_query, J_VALUE, "JSON_VALUE(STRING, path)"},
    {"JSON_QUERY", 2, 2, f_json_query, J_QUERY, "JSON_QUERY(STRING, path)"},
    {"JSON_EXISTS", 2, 2, f_json_query, J_EXISTS, "JSON_EXISTS(STRING, path)"},
    {"JSON_OBJECT", 0, -1, f_ctor, 1, "JSON_OBJECT([KEY] k VALUE v, ... [NULL | ABSENT ON NULL])"},
    {"JSON_ARRAY", 0, -1, f_ctor, 0, "JSON_ARRAY(v, ... [NULL | ABSENT ON NULL])"},
    {NULL, 0, 0, NULL, 0, NULL},
};
