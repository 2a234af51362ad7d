/*
 * binlog_jsondiff.c — MySQL 8's partial JSON updates (binlog_row_value_options=PARTIAL_JSON):
 * the after image of a JSON column in a PARTIAL_UPDATE_ROWS event may be a list of diffs
 * (REPLACE, INSERT or REMOVE at a path such as $.a[1].b) to apply to the before value. They are
 * applied here to the before value's JSON text (as bl_json_to_text writes it: ", " and ": "
 * separators), by splicing the text at the spans the path leads to; no tree is built.
 */
#include <string.h>

#include "binlog_int.h"

enum { OP_REPLACE, OP_INSERT, OP_REMOVE };

#define NOPOS ((size_t)-1)

static size_t ws(const char *d, size_t n, size_t i)
{
    while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r'))
        i++;
    return i;
}

/* The end of the JSON value starting at i, or NOPOS when it is malformed. */
static size_t skip_value(const char *d, size_t n, size_t i)
{
    if (i >= n)
        return NOPOS;
    if (d[i] == '"') {
        for (i++; i < n; i++) {
            if (d[i] == '\\')
                i++;
            else if (d[i] == '"')
                return i + 1;
        }
        return NOPOS;
    }
    if (d[i] == '{' || d[i] == '[') {
        int depth = 0;
        for (; i < n; i++) {
            if (d[i] == '"') {
                size_t e = skip_value(d, n, i);
                if (e == NOPOS)
                    return NOPOS;
                i = e - 1;
            } else if (d[i] == '{' || d[i] == '[') {
                depth++;
            } else if ((d[i] == '}' || d[i] == ']') && --depth == 0) {
                return i + 1;
            }
        }
        return NOPOS;
    }
    size_t s = i;
    while (i < n && !strchr(",]} \t\n\r", d[i]))
        i++;
    return i > s ? i : NOPOS;
}

/* One leg of a path: a member name (quoted: a JSON string's insides) or an array index. */
typedef struct leg {
    bool is_index;
    uint64_t index;
    const char *k, *ke;
    bool quoted;
} leg_t;

/* The next leg of the path at *p: 1, 0 at its end, -1 when it is malformed. */
static int next_leg(const char **p, const char *e, leg_t *leg)
{
    const char *s = *p;
    if (s >= e)
        return 0;
    memset(leg, 0, sizeof(*leg));
    if (*s == '[') {
        leg->is_index = true;
        const char *q = s + 1;
        for (; q < e && *q >= '0' && *q <= '9' && leg->index < (1ULL << 40); q++)
            leg->index = leg->index * 10 + (uint64_t)(*q - '0');
        if (q == s + 1 || q >= e || *q != ']')
            return -1;
        *p = q + 1;
        return 1;
    }
    if (*s != '.' || s + 1 >= e)
        return -1;
    s++;
    if (*s == '"') {
        const char *q = s + 1;
        while (q < e && *q != '"')
            q += *q == '\\' ? 2 : 1;
        if (q >= e)
            return -1;
        leg->k = s + 1;
        leg->ke = q;
        leg->quoted = true;
        *p = q + 1;
        return 1;
    }
    const char *q = s;
    while (q < e && *q != '.' && *q != '[')
        q++;
    leg->k = s;
    leg->ke = q;
    *p = q;
    return 1;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* The next unit of a name, a quoted one's escapes decoded; -1 at its end. */
static long name_unit(const char **s, const char *e, bool quoted)
{
    if (*s >= e)
        return -1;
    unsigned char c = (unsigned char)*(*s)++;
    if (!quoted || c != '\\' || *s >= e)
        return c;
    c = (unsigned char)*(*s)++;
    switch (c) {
    case 'b':
        return 8;
    case 't':
        return 9;
    case 'n':
        return 10;
    case 'f':
        return 12;
    case 'r':
        return 13;
    case 'u': {
        long v = 0;
        for (int i = 0; i < 4; i++, (*s)++) {
            int h = *s < e ? hexval(**s) : -1;
            if (h < 0)
                return -2; /* matches nothing */
            v = v << 4 | h;
        }
        return v;
    }
    default:
        return c;
    }
}

static bool name_eq(const char *a, const char *ae, bool aq, const char *b, const char *be, bool bq)
{
    for (;;) {
        long x = name_unit(&a, ae, aq), y = name_unit(&b, be, bq);
        if (x != y || x == -2)
            return false;
        if (x == -1)
            return true;
    }
}

/* Where a leg leads in the container whose value starts at `at`. */
typedef struct loc {
    bool found;
    size_t item;     /* found: where the member (its name) or the element starts */
    size_t vs, ve;   /* found: its value */
    size_t prev_end; /* the end of the item before it, NOPOS when it is the first */
    size_t next;     /* the start of the item after it, NOPOS when it is the last */
    size_t close;    /* not found: the container's closing bracket */
    bool empty;      /* not found: the container has no items */
} loc_t;

static int find_leg(const char *d, size_t n, size_t at, const leg_t *leg, loc_t *l,
                    const char **why)
{
    bool obj = !leg->is_index;
    size_t i = ws(d, n, at);
    if (i >= n || d[i] != (obj ? '{' : '[')) {
        *why = obj ? "a JSON diff's path names a member of a value that is not an object"
                   : "a JSON diff's path names an element of a value that is not an array";
        return -1;
    }
    memset(l, 0, sizeof(*l));
    l->prev_end = NOPOS;
    l->empty = true;
    char close = obj ? '}' : ']';
    i++;
    for (uint64_t k = 0;; k++) {
        i = ws(d, n, i);
        if (k == 0 && i < n && d[i] == close) {
            l->close = i;
            return 0;
        }
        size_t item = i, ne = i;
        if (obj) {
            ne = skip_value(d, n, i);
            if (ne == NOPOS || d[i] != '"' || (i = ws(d, n, ne)) >= n || d[i] != ':')
                break;
            i = ws(d, n, i + 1);
        }
        size_t ve = skip_value(d, n, i);
        if (ve == NOPOS)
            break;
        l->empty = false;
        size_t after = ws(d, n, ve);
        bool hit = obj ? name_eq(d + item + 1, d + ne - 1, true, leg->k, leg->ke, leg->quoted)
                       : k == leg->index;
        if (hit) {
            l->found = true;
            l->item = item;
            l->vs = i;
            l->ve = ve;
            l->next = after < n && d[after] == ',' ? ws(d, n, after + 1) : NOPOS;
            return 0;
        }
        l->prev_end = ve;
        if (after < n && d[after] == close) {
            l->close = after;
            return 0;
        }
        if (after >= n || d[after] != ',')
            break;
        i = after + 1;
    }
    *why = "the before value of a partially updated JSON column is malformed";
    return -1;
}

static int packed(const uint8_t **p, const uint8_t *e, uint64_t *v)
{
    long n = bl_packed(*p, (size_t)(e - *p), v);
    if (n < 0 || *v > (uint64_t)(e - *p - n))
        return -1;
    *p += n;
    return 0;
}

int bl_json_apply_diffs(const char *doc, size_t doclen, const uint8_t *p, size_t len,
                        cdc_buf_t *out, cdc_buf_t *work, const char **why)
{
    const uint8_t *e = p + len;
    cdc_buf_clear(out);
    cdc_buf_append(out, doc, doclen);
    while (p < e) {
        uint8_t op = *p++;
        uint64_t plen, vlen = 0;
        if (op > OP_REMOVE) {
            *why = "a JSON diff has an unknown operation (not 0 REPLACE, 1 INSERT, 2 REMOVE)";
            return -1;
        }
        if (packed(&p, e, &plen) < 0) {
            *why = "a JSON diff's path runs past the value";
            return -1;
        }
        const char *path = (const char *)p, *pe = path + plen;
        p += plen;
        const uint8_t *val = p;
        if (op != OP_REMOVE) {
            if (packed(&p, e, &vlen) < 0 || vlen == 0) {
                *why = "a JSON diff's value runs past the column";
                return -1;
            }
            val = p;
            p += vlen;
        }
        if (plen == 0 || path[0] != '$') {
            *why = "a JSON diff's path does not start with $";
            return -1;
        }
        /* follow the path to its last leg */
        const char *s = path + 1;
        leg_t leg, next;
        int more = next_leg(&s, pe, &leg);
        size_t at = 0;
        loc_t l;
        const char *d = out->data;
        size_t n = out->len;
        while (more == 1) {
            if (find_leg(d, n, at, &leg, &l, why) < 0)
                return -1;
            more = next_leg(&s, pe, &next);
            if (more == 0)
                break;
            if (!l.found) {
                *why = "a JSON diff's path is not in the before value";
                return -1;
            }
            at = l.vs;
            leg = next;
        }
        if (more < 0) {
            *why = "a JSON diff's path is malformed";
            return -1;
        }
        /* splice: out[0, cut) + insert + out[resume, n) into work */
        size_t cut, resume;
        cdc_buf_clear(work);
        if (s == path + 1) { /* "$": the whole document */
            if (op != OP_REPLACE) {
                *why = "a JSON diff inserts or removes the whole document";
                return -1;
            }
            cut = 0;
            resume = n;
        } else if (op == OP_REPLACE || op == OP_REMOVE) {
            if (!l.found) {
                *why = "a JSON diff replaces or removes a path the before value does not have";
                return -1;
            }
            cut = op == OP_REPLACE                         ? l.vs
                  : l.next != NOPOS || l.prev_end == NOPOS ? l.item
                                                           : l.prev_end;
            resume = op == OP_REPLACE ? l.ve : l.next != NOPOS ? l.next : l.ve;
        } else if (l.found && !leg.is_index) {
            *why = "a JSON diff inserts a member the before value has already";
            return -1;
        } else {
            cut = resume = l.found ? l.item : l.close;
        }
        cdc_buf_append(work, d, cut);
        if (op == OP_INSERT && !l.found && !l.empty)
            cdc_buf_puts(work, ", ");
        if (op == OP_INSERT && !leg.is_index) {
            if (leg.quoted)
                cdc_buf_append(work, leg.k - 1, (size_t)(leg.ke - leg.k) + 2);
            else
                bl_json_put_string(work, (const uint8_t *)leg.k, (size_t)(leg.ke - leg.k));
            cdc_buf_puts(work, ": ");
        }
        if (op != OP_REMOVE && bl_json_to_text(val, (size_t)vlen, work, why) < 0)
            return -1;
        if (op == OP_INSERT && l.found)
            cdc_buf_puts(work, ", ");
        cdc_buf_append(work, d + resume, n - resume);
        cdc_buf_t tmp = *out;
        *out = *work;
        *work = tmp;
    }
    return 0;
}
