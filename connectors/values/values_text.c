/*
 * values_text.c — the text of the "values" connector's options: change-kind
 * lists, partition-list, readable-metadata, and the rows of "data" and
 * "metadata-data" ("+I[1, scooter, 3.14]; -D[2, 'big, scooter', null]"):
 * the row and field syntax is parsed here, a field's text becomes a value of
 * its column's type in values_convert.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strcasecmp, strcasestr */
#endif

#include "values_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- small text helpers ------------------------------------------------------------------ */

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Trims [*b, *e) of blanks. */
void values_trim(const char **b, const char **e)
{
    while (*b < *e && is_ws(**b))
        (*b)++;
    while (*e > *b && is_ws((*e)[-1]))
        (*e)--;
}

static const char *const kind_names[] = {"I", "UB", "UA", "D"};

/*
 * Parses a comma list of I, UB, UA, D. Returns 0, or -1 with a problem line
 * (when problems is not NULL).
 */
int values_parse_mode(const char *key, const char *text, cdc_changelog_mode_t *out,
                      cdc_buf_t *problems)
{
    cdc_changelog_mode_t mode = 0;
    const char *p = text;
    for (;;) {
        const char *e = strchr(p, ',');
        const char *end = e ? e : p + strlen(p);
        const char *b = p;
        values_trim(&b, &end);
        int k = -1;
        for (int i = 0; i < 4; i++)
            if ((size_t)(end - b) == strlen(kind_names[i]) &&
                strncasecmp(b, kind_names[i], (size_t)(end - b)) == 0)
                k = i;
        if (k < 0) {
            if (problems)
                cdc_buf_printf(problems,
                               "option \"%s\": unknown change kind \"%.*s\" (expected a comma "
                               "list of I, UB, UA, D)\n",
                               key, (int)(end - b), b);
            return -1;
        }
        mode |= CDC_MODE_BIT(k);
        if (!e)
            break;
        p = e + 1;
    }
    *out = mode;
    return 0;
}

/* ---- partition-list and readable-metadata ----------------------------------------------- */

void values_parts_free(cdc_kv_t *parts, int n)
{
    for (int i = 0; i < n; i++)
        cdc_kv_free(&parts[i]);
    free(parts);
}

/* "a:1,b:x;a:2,b:y" -> one kv per partition. Returns 0 or -1 (problems appended). */
int values_parse_partition_list(const char *text, cdc_kv_t **out, int *nout, cdc_buf_t *problems)
{
    cdc_kv_t *parts = NULL;
    int n = 0, bad = 0;
    const char *p = text;
    while (*p) {
        const char *semi = strchr(p, ';');
        const char *pend = semi ? semi : p + strlen(p);
        const char *pb = p, *pe = pend;
        values_trim(&pb, &pe);
        if (pb < pe) {
            parts = cdc_xrealloc(parts, sizeof(*parts) * (size_t)(n + 1));
            memset(&parts[n], 0, sizeof(parts[n]));
            cdc_kv_t *kv = &parts[n++];
            const char *q = pb;
            while (q < pe) {
                const char *comma = memchr(q, ',', (size_t)(pe - q));
                const char *qe = comma ? comma : pe;
                const char *colon = memchr(q, ':', (size_t)(qe - q));
                const char *kb = q, *ke = colon ? colon : qe;
                values_trim(&kb, &ke);
                if (!colon || kb == ke) {
                    const char *fb = q, *fe = qe;
                    values_trim(&fb, &fe);
                    cdc_buf_printf(problems,
                                   "option \"partition-list\": expected \"key:value\", found "
                                   "\"%.*s\"\n",
                                   (int)(fe - fb), fb);
                    bad = 1;
                } else {
                    const char *vb = colon + 1, *ve = qe;
                    values_trim(&vb, &ve);
                    char *k = cdc_xstrndup(kb, (size_t)(ke - kb));
                    char *v = cdc_xstrndup(vb, (size_t)(ve - vb));
                    if (cdc_kv_get(kv, k)) {
                        cdc_buf_printf(problems,
                                       "option \"partition-list\": partition %d names \"%s\" "
                                       "twice\n",
                                       n, k);
                        bad = 1;
                    }
                    cdc_kv_set(kv, k, v);
                    free(k);
                    free(v);
                }
                q = comma ? comma + 1 : pe;
            }
        }
        p = semi ? semi + 1 : pend;
    }
    if (bad) {
        values_parts_free(parts, n);
        return -1;
    }
    *out = parts;
    *nout = n;
    return 0;
}

void values_meta_decl_free(meta_decl_t *m)
{
    for (int i = 0; i < m->n; i++)
        free(m->keys[i]);
    free(m->keys);
    cdc_type_destroy(m->row);
    memset(m, 0, sizeof(*m));
}

/* "k:TYPE,k2:DECIMAL(10, 2)" (commas inside parentheses or <> belong to the type). */
int values_parse_readable_metadata(const char *text, meta_decl_t *out, cdc_buf_t *problems)
{
    meta_decl_t m = {0};
    m.row = cdc_type_new_row();
    int bad = 0;
    const char *p = text;
    while (*p) {
        int depth = 0;
        const char *e = p;
        while (*e && !(*e == ',' && depth == 0)) {
            if (*e == '(' || *e == '<')
                depth++;
            else if ((*e == ')' || *e == '>') && depth > 0)
                depth--;
            e++;
        }
        const char *b = p, *end = e;
        values_trim(&b, &end);
        if (b < end) {
            const char *colon = memchr(b, ':', (size_t)(end - b));
            const char *kb = b, *ke = colon ? colon : end;
            values_trim(&kb, &ke);
            if (!colon || kb == ke) {
                cdc_buf_printf(problems,
                               "option \"readable-metadata\": expected \"key:TYPE\", found "
                               "\"%.*s\"\n",
                               (int)(end - b), b);
                bad = 1;
            } else {
                char *key = cdc_xstrndup(kb, (size_t)(ke - kb));
                cdc_error_t *terr = NULL;
                cdc_type_t *t = cdc_type_parse_n(colon + 1, (size_t)(end - colon - 1), &terr);
                if (!t) {
                    cdc_buf_printf(problems, "option \"readable-metadata\": key \"%s\": %s\n", key,
                                   terr ? terr->message : "bad type");
                    bad = 1;
                    free(key);
                } else if (cdc_type_field_index(m.row, key) >= 0) {
                    cdc_buf_printf(
                        problems, "option \"readable-metadata\": key \"%s\" declared twice\n", key);
                    bad = 1;
                    cdc_type_destroy(t);
                    free(key);
                } else {
                    cdc_type_row_add(m.row, key, t);
                    m.keys = cdc_xrealloc(m.keys, sizeof(char *) * (size_t)(m.n + 1));
                    m.keys[m.n++] = key;
                }
                cdc_error_destroy(terr);
            }
        }
        p = *e ? e + 1 : e;
    }
    if (bad) {
        values_meta_decl_free(&m);
        return -1;
    }
    *out = m;
    return 0;
}

/* ---- text -> values ------------------------------------------------------------------------ */

static size_t utf8_chars(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            c++;
    return c;
}

/*
 * One field's text into a value of type t (see values_int.h). DATE and TIME
 * go through the core's converter; the other scalars keep their own rules,
 * which the default and CAST dialects of cdc_value_from_text do not give:
 * quoted tokens are not trimmed, booleans are only true/false, integers take
 * strtoll's syntax, floats strtod's (hex, inf, nan), decimals with too many
 * digits are refused (the default dialect rounds), and a TIMESTAMP_LTZ takes
 * any zone or none. (The PostgreSQL and JDBC dialects happen to parse
 * decimals alike, but the test connector's syntax should not follow theirs.)
 */
int values_convert(const cdc_type_t *t, const char *s, size_t n, bool quoted, cdc_arena_t *arena,
                   cdc_value_t *out)
{
    memset(out, 0, sizeof(*out));
    if (!quoted && n == 4 && strncasecmp(s, "null", 4) == 0) {
        out->flags = CDC_V_NULL;
        return t->nullable ? CONV_OK : CONV_NOT_NULL;
    }
    char *end = NULL;
    switch (t->root) {
    case CDC_T_BOOLEAN:
        if (strcasecmp(s, "true") == 0)
            out->v.b = true;
        else if (strcasecmp(s, "false") == 0)
            out->v.b = false;
        else
            return CONV_BAD;
        return CONV_OK;
    case CDC_T_TINYINT:
    case CDC_T_SMALLINT:
    case CDC_T_INT:
    case CDC_T_BIGINT: {
        if (n == 0 || is_ws(s[0]))
            return CONV_BAD;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (errno || *end)
            return CONV_BAD;
        long long lim = t->root == CDC_T_TINYINT    ? 127LL
                        : t->root == CDC_T_SMALLINT ? 32767LL
                        : t->root == CDC_T_INT      ? 2147483647LL
                                                    : 0;
        if (lim && (v > lim || v < -lim - 1))
            return CONV_BAD;
        out->v.i = v;
        return CONV_OK;
    }
    case CDC_T_FLOAT:
    case CDC_T_DOUBLE: {
        if (n == 0 || is_ws(s[0]))
            return CONV_BAD;
        errno = 0;
        double d = strtod(s, &end);
        if (*end)
            return CONV_BAD;
        bool inf_text = strcasestr(s, "inf") != NULL;
        if (t->root == CDC_T_FLOAT) {
            float f = strtof(s, &end);
            if (isinf(f) && !inf_text)
                return CONV_BAD;
            out->v.f = f;
        } else {
            if (isinf(d) && !inf_text)
                return CONV_BAD;
            out->v.d = d;
        }
        return CONV_OK;
    }
    case CDC_T_DECIMAL:
        return cdc_decimal_parse(s, n, t->precision, t->scale, &out->v.dec) == 0 ? CONV_OK
                                                                                 : CONV_BAD;
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
        if (utf8_chars(s, n) > (size_t)t->length)
            return CONV_BAD;
        out->v.s.ptr = cdc_arena_memdup(arena, s, n ? n : 1);
        out->v.s.len = (uint32_t)n;
        return CONV_OK;
    case CDC_T_BINARY:
    case CDC_T_VARBINARY: {
        if (quoted) {
            if (n > (size_t)t->length)
                return CONV_BAD;
            out->v.s.ptr = cdc_arena_memdup(arena, s, n ? n : 1);
            out->v.s.len = (uint32_t)n;
            return CONV_OK;
        }
        /* x'0a1b', as the print format shows bytes */
        if (n < 3 || (s[0] != 'x' && s[0] != 'X') || s[1] != '\'' || s[n - 1] != '\'' ||
            (n - 3) % 2 != 0)
            return CONV_BAD;
        size_t nb = (n - 3) / 2;
        if (nb > (size_t)t->length)
            return CONV_BAD;
        char *bytes = cdc_arena_alloc(arena, nb ? nb : 1);
        for (size_t i = 0; i < nb; i++) {
            int hi = cdc_hex_digit(s[2 + 2 * i]), lo = cdc_hex_digit(s[3 + 2 * i]);
            if (hi < 0 || lo < 0)
                return CONV_BAD;
            bytes[i] = (char)(hi << 4 | lo);
        }
        out->v.s.ptr = bytes;
        out->v.s.len = (uint32_t)nb;
        return CONV_OK;
    }
    case CDC_T_DATE:
    case CDC_T_TIME: /* the core's default dialect: exactly cdc_date_parse / cdc_time_parse */
        return cdc_value_from_text(t, s, n, 0, arena, out, NULL) == CDC_TEXT_OK ? CONV_OK
                                                                                : CONV_BAD;
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ: {
        bool had_zone = false;
        if (cdc_timestamp_parse(s, n, t->precision, t->root == CDC_T_TIMESTAMP_LTZ, &out->v.ts,
                                &had_zone) < 0)
            return CONV_BAD;
        return CONV_OK;
    }
    default:
        return CONV_NESTED;
    }
}

static void skip_ws(parse_t *p)
{
    while (p->i < p->len && is_ws(p->s[p->i]))
        p->i++;
}

/* Appends a problem "option "data": row N: <what>, found <what is at the cursor>". */
static int parse_fatal(parse_t *p, int rowno, const char *expected)
{
    cdc_buf_printf(p->problems, "option \"%s\": row %d: expected %s, found ", p->opt, rowno,
                   expected);
    if (p->i >= p->len) {
        cdc_buf_puts(p->problems, "the end of the text\n");
    } else {
        size_t n = p->len - p->i;
        if (n > 12)
            n = 12;
        cdc_buf_printf(p->problems, "\"%.*s\"\n", (int)n, p->s + p->i);
    }
    return -1;
}

/*
 * Reads one field's token at the cursor into p->tok: a single-quoted string
 * ('' is a quote; *quoted set) or a bare token up to ',', ']' or ';' outside
 * brackets, trimmed. Returns 0, or -1 when a quoted string does not end
 * (problem appended; field is its number, for the message).
 */
static int read_token(parse_t *p, int rowno, uint32_t field, bool *quoted)
{
    skip_ws(p);
    *quoted = false;
    cdc_buf_clear(&p->tok);
    if (p->i < p->len && p->s[p->i] == '\'') {
        *quoted = true;
        p->i++;
        for (;;) {
            if (p->i >= p->len) {
                cdc_buf_printf(p->problems,
                               "option \"%s\": row %d, field %u: unterminated quoted string\n",
                               p->opt, rowno, field);
                return -1;
            }
            char c = p->s[p->i];
            if (c == '\'') {
                if (p->i + 1 < p->len && p->s[p->i + 1] == '\'') {
                    cdc_buf_putc(&p->tok, '\'');
                    p->i += 2;
                    continue;
                }
                p->i++;
                break;
            }
            cdc_buf_putc(&p->tok, c);
            p->i++;
        }
        skip_ws(p);
        return 0;
    }
    /* brackets nest, so a nested value ("[1, 2]") stays one token */
    const char *b = p->s + p->i;
    int depth = 0;
    while (p->i < p->len) {
        char c = p->s[p->i];
        if (depth == 0 && (c == ',' || c == ']' || c == ';'))
            break;
        if (c == '[' || c == '(' || c == '{')
            depth++;
        else if ((c == ']' || c == ')' || c == '}') && depth > 0)
            depth--;
        p->i++;
    }
    const char *e = p->s + p->i;
    values_trim(&b, &e);
    cdc_buf_append(&p->tok, b, (size_t)(e - b));
    return 0;
}

/*
 * Converts the token in p->tok into field nf of the row; on failure the
 * message goes to p->msg (appended to the problems once the row is read) and
 * false is returned.
 */
static bool convert_token(parse_t *p, int rowno, uint32_t nf, bool quoted, cdc_value_t *out)
{
    const char *tok = cdc_buf_cstr(&p->tok);
    const cdc_type_t *ft = p->row_type->children[nf];
    int rc = values_convert(ft, tok, p->tok.len, quoted, p->arena, out);
    if (rc == CONV_OK)
        return true;
    char *ts = cdc_type_to_string(ft);
    cdc_buf_printf(&p->msg, "option \"%s\": row %d, field \"%s\": ", p->opt, rowno,
                   p->row_type->names[nf]);
    if (rc == CONV_NESTED)
        cdc_buf_printf(&p->msg, "values of type %s are not supported (only null)\n", ts);
    else if (rc == CONV_NOT_NULL)
        cdc_buf_printf(&p->msg, "expected %s, found null\n", ts);
    else
        cdc_buf_printf(&p->msg, "expected %s, found \"%s\"\n", ts, tok);
    free(ts);
    return false;
}

/*
 * Reads a row's fields after its "[" through the "]" into values (room for
 * the row type's arity); *nf is the number of fields found, *conv_bad set
 * when one did not convert (the first such message in p->msg). Returns 0, or
 * -1 when the row is malformed (problem appended).
 */
static int parse_fields(parse_t *p, int rowno, cdc_value_t *values, uint32_t *nf, bool *conv_bad)
{
    uint32_t arity = (uint32_t)p->row_type->nchildren;
    cdc_buf_clear(&p->msg);
    skip_ws(p);
    if (p->i < p->len && p->s[p->i] == ']') {
        p->i++;
        return 0;
    }
    for (;;) {
        bool quoted;
        if (read_token(p, rowno, *nf + 1, &quoted) < 0)
            return -1;
        if (*nf < arity && !*conv_bad)
            *conv_bad = !convert_token(p, rowno, *nf, quoted, &values[*nf]);
        (*nf)++;
        if (p->i < p->len && p->s[p->i] == ',') {
            p->i++;
            continue;
        }
        if (p->i < p->len && p->s[p->i] == ']') {
            p->i++;
            return 0;
        }
        char what[64];
        snprintf(what, sizeof(what), "\",\" or \"]\" after field %u", *nf);
        parse_fatal(p, rowno, what);
        return -1;
    }
}

/*
 * Parses every row. Rows and their values live in p->arena; *rows is
 * malloc'ed. Returns 0, or -1 when a problem was appended (then *rows is
 * freed). A malformed row stops the parse; a bad value only fails its row.
 */
int values_parse_rows(parse_t *p, cdc_row_t **rows_out, int *nrows_out)
{
    static const struct {
        const char *text;
        cdc_kind_t kind;
    } kinds[] = {{"+I", CDC_INSERT},
                 {"-U", CDC_UPDATE_BEFORE},
                 {"+U", CDC_UPDATE_AFTER},
                 {"-D", CDC_DELETE}};
    uint32_t arity = (uint32_t)p->row_type->nchildren;
    cdc_row_t *rows = NULL;
    int n = 0, rowno = 0;
    bool bad = false;
    for (;;) {
        skip_ws(p);
        if (p->i >= p->len)
            break;
        if (p->s[p->i] == ';') {
            p->i++;
            continue;
        }
        rowno++;
        cdc_kind_t kind = CDC_INSERT;
        bool have_kind = false;
        for (size_t k = 0; k < 4 && p->i + 1 < p->len; k++)
            if (memcmp(p->s + p->i, kinds[k].text, 2) == 0) {
                kind = kinds[k].kind;
                have_kind = true;
            }
        if (have_kind)
            p->i += 2;
        else if (!p->kind_optional)
            goto fatal_kind;
        skip_ws(p);
        if (p->i >= p->len || p->s[p->i] != '[') {
            parse_fatal(p, rowno,
                        have_kind ? "\"[\"" : "a change kind (+I, -U, +U or -D) or \"[\"");
            goto fail;
        }
        p->i++;
        cdc_value_t *values = cdc_arena_alloc(p->arena, sizeof(cdc_value_t) * (arity ? arity : 1));
        for (uint32_t f = 0; f < arity; f++)
            values[f].flags = CDC_V_NULL;
        uint32_t nf = 0;
        bool conv_bad = false;
        if (parse_fields(p, rowno, values, &nf, &conv_bad) < 0)
            goto fail;
        skip_ws(p);
        if (p->i < p->len && p->s[p->i] != ';') {
            parse_fatal(p, rowno, "\";\" after \"]\"");
            goto fail;
        }
        char mbuf[16];
        if (nf != arity) {
            cdc_buf_printf(p->problems, "option \"%s\": row %d: expected %u fields, found %u\n",
                           p->opt, rowno, arity, nf);
            bad = true;
        } else if (conv_bad) {
            cdc_buf_append(p->problems, p->msg.data, p->msg.len);
            bad = true;
        } else if (!(p->mode & CDC_MODE_BIT(kind))) {
            cdc_buf_printf(p->problems,
                           "option \"%s\": row %d: kind %s is not in changelog-mode %s\n", p->opt,
                           rowno, cdc_kind_short(kind), cdc_changelog_mode_str(p->mode, mbuf));
            bad = true;
        }
        rows = cdc_xrealloc(rows, sizeof(*rows) * (size_t)(n + 1));
        rows[n].kind = kind;
        rows[n].arity = arity;
        rows[n].values = values;
        rows[n].origin = NULL;
        n++;
    }
    if (bad)
        goto fail;
    *rows_out = rows;
    *nrows_out = n;
    return 0;
fatal_kind:
    parse_fatal(p, rowno, "a change kind (+I, -U, +U or -D)");
fail:
    free(rows);
    return -1;
}
