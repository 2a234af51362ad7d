/*
 * values.c — the "values" connector, cdcflow's counterpart of Flink's test
 * `values` connector: a source that produces the rows written in its "data"
 * option (any change kinds, every source ability: partitions, filters,
 * projection, limit, metadata, row count) and a sink that prints what it
 * receives or materializes it into a table printed at close. Planner tests
 * use it to exercise every ability and every changelog negotiation outcome
 * without external systems.
 *
 * Data text: rows separated by ';', each in the print format with a kind,
 * "+I[1, scooter, 3.14]; -D[2, 'big, scooter', null]". A field is null, a bare
 * token parsed by the column's type, or a single-quoted string ('' is a quote).
 * All rows are parsed when the source is made, into memory the source owns.
 *
 * As a lookup table (`JOIN v FOR SYSTEM_TIME AS OF ...`), its +I/+U data rows
 * are matched by key with a linear scan (test data is small), whatever the
 * partitions, filters or limit pushed for scans.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* nanosleep, strcasecmp */
#endif

#include "cdc_values.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define IDLE_POLL_NS 50000000L /* an unbounded reader past its data sleeps 50 ms per poll */

static const cdc_option_def_t values_options[] = {
    {.key = "data",
     .type = CDC_OPT_STRING,
     .description = "Source rows separated by ';', each in the print format with its kind: "
                    "\"+I[1, scooter, 3.14]; -D[2, 'a, b', null]\". A field is null, a bare "
                    "token parsed by the column's type, or a single-quoted string ('' for a "
                    "quote)."},
    {.key = "changelog-mode",
     .type = CDC_OPT_STRING,
     .default_value = "I",
     .description = "Change kinds the source declares, a comma list of I, UB, UA, D; every data "
                    "row's kind must be one of them."},
    {.key = "bounded",
     .type = CDC_OPT_BOOL,
     .default_value = "true",
     .description = "When false, readers stay open after the data, producing nothing, until "
                    "the job is stopped."},
    {.key = "enable-projection-push-down",
     .type = CDC_OPT_BOOL,
     .default_value = "true",
     .description = "Whether the source accepts projection pushdown."},
    {.key = "filterable-fields",
     .type = CDC_OPT_LIST,
     .description = "Columns (';'-separated) whose filters the source accepts and applies."},
    {.key = "enable-limit-push-down",
     .type = CDC_OPT_BOOL,
     .default_value = "true",
     .description = "Whether the source accepts limit pushdown."},
    {.key = "partition-list",
     .type = CDC_OPT_STRING,
     .description = "The table's partitions, \"a:1,b:x;a:2,b:y\"; a data row belongs to the "
                    "partition its partition columns' values equal."},
    {.key = "readable-metadata",
     .type = CDC_OPT_STRING,
     .description = "Metadata keys the source offers, \"key:TYPE,key2:TYPE\"."},
    {.key = "metadata-data",
     .type = CDC_OPT_STRING,
     .description = "Metadata values, one row per data row in the data syntax (kind optional) "
                    "with the readable-metadata fields in declaration order; unset = nulls."},
    {.key = "scan.parallelism",
     .type = CDC_OPT_INT,
     .min = 1,
     .max = 65536,
     .description = "Number of source splits; split k of n reads the k-th contiguous range of "
                    "the rows. Unset means the run's parallelism."},
    {.key = "sink-changelog-mode-enforced",
     .type = CDC_OPT_STRING,
     .description = "Change kinds the sink accepts, a comma list of I, UB, UA, D; unset = "
                    "whatever is requested."},
    {.key = "sink.materialize",
     .type = CDC_OPT_BOOL,
     .default_value = "false",
     .description = "Instead of printing each row, keep the table (by primary key, else as a "
                    "multiset) and print it sorted at close."},
    {.key = "print-identifier",
     .type = CDC_OPT_STRING,
     .description = "Message that prefixes every printed line (\"identifier> +I[...]\")."},
    CDC_LOOKUP_OPTION_DEFS,
    {0},
};

/* ---- small text helpers ------------------------------------------------------------------ */

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Trims [*b, *e) of blanks. */
static void trim(const char **b, const char **e)
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
static int parse_mode(const char *key, const char *text, cdc_changelog_mode_t *out,
                      cdc_buf_t *problems)
{
    cdc_changelog_mode_t mode = 0;
    const char *p = text;
    for (;;) {
        const char *e = strchr(p, ',');
        const char *end = e ? e : p + strlen(p);
        const char *b = p;
        trim(&b, &end);
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

static void parts_free(cdc_kv_t *parts, int n)
{
    for (int i = 0; i < n; i++)
        cdc_kv_free(&parts[i]);
    free(parts);
}

/* "a:1,b:x;a:2,b:y" -> one kv per partition. Returns 0 or -1 (problems appended). */
static int parse_partition_list(const char *text, cdc_kv_t **out, int *nout, cdc_buf_t *problems)
{
    cdc_kv_t *parts = NULL;
    int n = 0, bad = 0;
    const char *p = text;
    while (*p) {
        const char *semi = strchr(p, ';');
        const char *pend = semi ? semi : p + strlen(p);
        const char *pb = p, *pe = pend;
        trim(&pb, &pe);
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
                trim(&kb, &ke);
                if (!colon || kb == ke) {
                    const char *fb = q, *fe = qe;
                    trim(&fb, &fe);
                    cdc_buf_printf(problems,
                                   "option \"partition-list\": expected \"key:value\", found "
                                   "\"%.*s\"\n",
                                   (int)(fe - fb), fb);
                    bad = 1;
                } else {
                    const char *vb = colon + 1, *ve = qe;
                    trim(&vb, &ve);
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
        parts_free(parts, n);
        return -1;
    }
    *out = parts;
    *nout = n;
    return 0;
}

typedef struct meta_decl_s {
    char **keys;
    cdc_type_t *row; /* ROW<key TYPE, ...> in declaration order */
    int n;
} meta_decl_t;

static void meta_decl_free(meta_decl_t *m)
{
    for (int i = 0; i < m->n; i++)
        free(m->keys[i]);
    free(m->keys);
    cdc_type_destroy(m->row);
    memset(m, 0, sizeof(*m));
}

/* "k:TYPE,k2:DECIMAL(10, 2)" (commas inside parentheses or <> belong to the type). */
static int parse_readable_metadata(const char *text, meta_decl_t *out, cdc_buf_t *problems)
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
        trim(&b, &end);
        if (b < end) {
            const char *colon = memchr(b, ':', (size_t)(end - b));
            const char *kb = b, *ke = colon ? colon : end;
            trim(&kb, &ke);
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
        meta_decl_free(&m);
        return -1;
    }
    *out = m;
    return 0;
}

/* Cross-option rules that do not need the table's schema. */
static void values_check(const cdc_config_t *cfg, cdc_buf_t *problems)
{
    cdc_changelog_mode_t mode;
    parse_mode("changelog-mode", cdc_config_str(cfg, "changelog-mode"), &mode, problems);
    const char *enforced = cdc_config_str(cfg, "sink-changelog-mode-enforced");
    if (enforced)
        parse_mode("sink-changelog-mode-enforced", enforced, &mode, problems);
    const char *pl = cdc_config_str(cfg, "partition-list");
    if (pl) {
        cdc_kv_t *parts = NULL;
        int n = 0;
        if (parse_partition_list(pl, &parts, &n, problems) == 0)
            parts_free(parts, n);
    }
    const char *rm = cdc_config_str(cfg, "readable-metadata");
    if (rm) {
        meta_decl_t m;
        if (parse_readable_metadata(rm, &m, problems) == 0)
            meta_decl_free(&m);
    }
    if (cdc_config_str(cfg, "metadata-data") && !rm)
        cdc_buf_puts(problems, "option \"metadata-data\": needs option \"readable-metadata\"\n");
    cdc_lookup_check(cfg, problems);
}

/* ---- text -> values ------------------------------------------------------------------------ */

enum { CONV_OK = 0, CONV_BAD = -1, CONV_NESTED = -2, CONV_NOT_NULL = -3 };

static size_t utf8_chars(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            c++;
    return c;
}

/*
 * Converts one field's text (NUL-terminated, n bytes) into a value of type t;
 * strings are copied into the arena. A bare "null" is NULL; a quoted token
 * is always text.
 */
static int convert(const cdc_type_t *t, const char *s, size_t n, bool quoted, cdc_arena_t *arena,
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
    case CDC_T_DATE: {
        int32_t days;
        if (cdc_date_parse(s, n, &days) < 0)
            return CONV_BAD;
        out->v.i = days;
        return CONV_OK;
    }
    case CDC_T_TIME: {
        int64_t nanos;
        if (cdc_time_parse(s, n, t->precision, &nanos) < 0)
            return CONV_BAD;
        out->v.i = nanos;
        return CONV_OK;
    }
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

/* Parsing state of a "data" or "metadata-data" text. */
typedef struct parse_s {
    const char *opt; /* option name, for messages */
    const char *s;
    size_t len, i;
    const cdc_type_t *row_type;
    bool kind_optional;
    cdc_changelog_mode_t mode; /* kinds allowed */
    cdc_arena_t *arena;
    cdc_buf_t *problems;
    cdc_buf_t tok;
    cdc_buf_t msg;
} parse_t;

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
 * Parses every row. Rows and their values live in p->arena; *rows is
 * malloc'ed. Returns 0, or -1 when a problem was appended (then *rows is
 * freed). A malformed row stops the parse; a bad value only fails its row.
 */
static int parse_rows(parse_t *p, cdc_row_t **rows_out, int *nrows_out)
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
        cdc_buf_clear(&p->msg);
        skip_ws(p);
        if (p->i < p->len && p->s[p->i] == ']') {
            p->i++;
        } else {
            for (;;) {
                skip_ws(p);
                bool quoted = false;
                cdc_buf_clear(&p->tok);
                if (p->i < p->len && p->s[p->i] == '\'') {
                    quoted = true;
                    p->i++;
                    for (;;) {
                        if (p->i >= p->len) {
                            cdc_buf_printf(p->problems,
                                           "option \"%s\": row %d, field %u: unterminated "
                                           "quoted string\n",
                                           p->opt, rowno, nf + 1);
                            goto fail;
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
                } else {
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
                    trim(&b, &e);
                    cdc_buf_append(&p->tok, b, (size_t)(e - b));
                }
                const char *tok = cdc_buf_cstr(&p->tok);
                if (nf < arity && !conv_bad) {
                    const cdc_type_t *ft = p->row_type->children[nf];
                    int rc = convert(ft, tok, p->tok.len, quoted, p->arena, &values[nf]);
                    if (rc != CONV_OK) {
                        char *ts = cdc_type_to_string(ft);
                        cdc_buf_printf(&p->msg, "option \"%s\": row %d, field \"%s\": ", p->opt,
                                       rowno, p->row_type->names[nf]);
                        if (rc == CONV_NESTED)
                            cdc_buf_printf(&p->msg,
                                           "values of type %s are not supported (only "
                                           "null)\n",
                                           ts);
                        else if (rc == CONV_NOT_NULL)
                            cdc_buf_printf(&p->msg, "expected %s, found null\n", ts);
                        else
                            cdc_buf_printf(&p->msg, "expected %s, found \"%s\"\n", ts, tok);
                        free(ts);
                        conv_bad = true;
                    }
                }
                nf++;
                if (p->i < p->len && p->s[p->i] == ',') {
                    p->i++;
                    continue;
                }
                if (p->i < p->len && p->s[p->i] == ']') {
                    p->i++;
                    break;
                }
                char what[64];
                snprintf(what, sizeof(what), "\",\" or \"]\" after field %u", nf);
                parse_fatal(p, rowno, what);
                goto fail;
            }
        }
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

/* ---- comparing values ---------------------------------------------------------------------- */

/* ---- the source ---------------------------------------------------------------------------- */

typedef struct vpart_s {
    cdc_kv_t kv;
    int *fields;       /* column of each key */
    cdc_value_t *vals; /* value of each key, of its column's type */
    bool kept;         /* after apply_partitions */
} vpart_t;

typedef struct vfilter_s {
    int field;
    cdc_filter_op_t op;
    cdc_value_t value;
    char *text;
} vfilter_t;

typedef struct values_source_s {
    cdc_source_t base;
    char *name;
    cdc_type_t *schema;   /* physical columns */
    cdc_type_t *produced; /* base.produced */
    cdc_arena_t arena;    /* parsed values */
    cdc_row_t *rows;
    int nrows;
    cdc_row_t *meta_rows; /* one per row, fields of meta.row; NULL = all null */
    int *row_part;        /* partition of each row, -1 for none */
    vpart_t *parts;
    int nparts;
    bool pruned;
    vfilter_t *filters;
    int nfilters;
    char **filterable;
    int nfilterable;
    int *proj; /* produced physical fields -> schema index */
    int nproj;
    bool projected;
    meta_decl_t meta;
    int *msel; /* produced metadata fields -> meta index */
    int nmsel;
    int64_t limit; /* < 0: none */
    bool bounded;
    bool proj_enabled;
    bool limit_enabled;
    cdc_changelog_mode_t mode;
} values_source_t;

typedef struct values_reader_s {
    cdc_reader_t base;
    values_source_t *src;
    int *idx; /* rows this reader produces, in data order */
    int n;
    int pos;
} values_reader_t;

static bool filter_passes(const values_source_t *src, const vfilter_t *f, const cdc_row_t *row)
{
    return cdc_filter_passes(src->schema->children[f->field], &row->values[f->field], f->op,
                             &f->value);
}

static bool row_selected(const values_source_t *src, int i)
{
    if (src->pruned && (src->row_part[i] < 0 || !src->parts[src->row_part[i]].kept))
        return false;
    for (int k = 0; k < src->nfilters; k++)
        if (!filter_passes(src, &src->filters[k], &src->rows[i]))
            return false;
    return true;
}

/* Indexes of the rows to produce (partitions, filters, then limit); malloc'ed. */
static int *select_rows(const values_source_t *src, int *n)
{
    int *idx = cdc_xmalloc(sizeof(int) * (size_t)(src->nrows > 0 ? src->nrows : 1));
    int m = 0;
    for (int i = 0; i < src->nrows; i++) {
        if (src->limit >= 0 && m >= src->limit)
            break;
        if (row_selected(src, i))
            idx[m++] = i;
    }
    *n = m;
    return idx;
}

static void rebuild_produced(values_source_t *src)
{
    cdc_type_t *t = cdc_type_project(src->schema, src->proj, src->nproj);
    for (int k = 0; k < src->nmsel; k++)
        cdc_type_row_add(t, src->meta.keys[src->msel[k]],
                         cdc_type_copy(src->meta.row->children[src->msel[k]]));
    cdc_type_destroy(src->produced);
    src->produced = t;
    src->base.produced = t;
}

static int vs_poll(cdc_reader_t *base, cdc_batch_t *out, uint32_t max_rows, cdc_error_t **err)
{
    (void)err;
    values_reader_t *r = (values_reader_t *)base;
    values_source_t *src = r->src;
    if (r->pos >= r->n) {
        if (src->bounded)
            return CDC_POLL_END;
        struct timespec ts = {.tv_sec = 0, .tv_nsec = IDLE_POLL_NS};
        nanosleep(&ts, NULL);
        return CDC_POLL_OK;
    }
    uint32_t arity = (uint32_t)(src->nproj + src->nmsel);
    for (uint32_t k = 0; k < max_rows && r->pos < r->n; k++) {
        int i = r->idx[r->pos++];
        const cdc_row_t *in = &src->rows[i];
        cdc_row_t *row = cdc_batch_add(out, in->kind, arity);
        for (int j = 0; j < src->nproj; j++)
            row->values[j] = in->values[src->proj[j]];
        for (int j = 0; j < src->nmsel; j++)
            if (src->meta_rows)
                row->values[src->nproj + j] = src->meta_rows[i].values[src->msel[j]];
    }
    return CDC_POLL_OK;
}

static void vs_reader_close(cdc_reader_t *base)
{
    values_reader_t *r = (values_reader_t *)base;
    if (!r)
        return;
    free(r->idx);
    free(r);
}

static const cdc_reader_ops_t values_reader_ops = {
    .poll = vs_poll,
    .commit = NULL,
    .close = vs_reader_close,
};

static cdc_changelog_mode_t vs_changelog_mode(cdc_source_t *base)
{
    return ((values_source_t *)base)->mode;
}

static int vs_list_partitions(cdc_source_t *base, cdc_kv_t **parts, int *nparts, cdc_error_t **err)
{
    (void)err;
    values_source_t *src = (values_source_t *)base;
    cdc_kv_t *out = cdc_xcalloc((size_t)src->nparts + 1, sizeof(cdc_kv_t));
    for (int i = 0; i < src->nparts; i++)
        cdc_kv_copy(&out[i], &src->parts[i].kv);
    *parts = out;
    *nparts = src->nparts;
    return 0;
}

static bool kv_equal(const cdc_kv_t *a, const cdc_kv_t *b)
{
    if (a->n != b->n)
        return false;
    for (int i = 0; i < a->n; i++) {
        const char *v = cdc_kv_get(b, a->keys[i]);
        if (!v || strcmp(v, a->values[i]) != 0)
            return false;
    }
    return true;
}

static int vs_apply_partitions(cdc_source_t *base, const cdc_kv_t *parts, int nparts,
                               cdc_error_t **err)
{
    values_source_t *src = (values_source_t *)base;
    bool *kept = cdc_xcalloc((size_t)src->nparts + 1, sizeof(bool));
    for (int k = 0; k < nparts; k++) {
        int found = -1;
        for (int i = 0; i < src->nparts && found < 0; i++)
            if (kv_equal(&parts[k], &src->parts[i].kv))
                found = i;
        if (found < 0) {
            cdc_buf_t b = {0};
            for (int j = 0; j < parts[k].n; j++)
                cdc_buf_printf(&b, "%s%s=%s", j ? ", " : "", parts[k].keys[j], parts[k].values[j]);
            cdc_error_set(err, CDC_ERR_PLAN, "values: {%s} is not a partition of table \"%s\"",
                          cdc_buf_cstr(&b), src->name);
            cdc_buf_free(&b);
            free(kept);
            return -1;
        }
        kept[found] = true;
    }
    for (int i = 0; i < src->nparts; i++)
        src->parts[i].kept = kept[i];
    src->pruned = true;
    free(kept);
    return 0;
}

static int vs_apply_filters(cdc_source_t *base, const cdc_filter_t *filters, int n, bool *accepted)
{
    values_source_t *src = (values_source_t *)base;
    for (int k = 0; k < n; k++) {
        const cdc_filter_t *f = &filters[k];
        accepted[k] = false;
        if (f->field < 0 || f->field >= src->schema->nchildren)
            continue;
        const cdc_type_t *t = src->schema->children[f->field];
        if (t->root == CDC_T_ARRAY || t->root == CDC_T_MAP || t->root == CDC_T_ROW)
            continue;
        bool filterable = false;
        for (int j = 0; j < src->nfilterable && !filterable; j++)
            filterable = strcmp(src->filterable[j], src->schema->names[f->field]) == 0;
        if (!filterable)
            continue;
        src->filters = cdc_xrealloc(src->filters, sizeof(vfilter_t) * (size_t)(src->nfilters + 1));
        vfilter_t *vf = &src->filters[src->nfilters++];
        vf->field = f->field;
        vf->op = f->op;
        cdc_filter_keep_literal(&src->arena, t, f, &vf->value);
        vf->text = cdc_xstrdup(f->text ? f->text : "?");
        accepted[k] = true;
    }
    return 0;
}

static int vs_apply_projection(cdc_source_t *base, const int *fields, int n)
{
    values_source_t *src = (values_source_t *)base;
    if (!src->proj_enabled || cdc_projection_narrow(&src->proj, &src->nproj, fields, n) < 0)
        return -1;
    src->projected = true;
    rebuild_produced(src);
    return 0;
}

static int vs_apply_limit(cdc_source_t *base, int64_t limit)
{
    values_source_t *src = (values_source_t *)base;
    if (!src->limit_enabled || limit < 0)
        return -1;
    if (src->limit < 0 || limit < src->limit)
        src->limit = limit;
    return 0;
}

static int vs_apply_metadata(cdc_source_t *base, const char *const *keys, int n, cdc_error_t **err)
{
    values_source_t *src = (values_source_t *)base;
    int *msel = cdc_xmalloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (int k = 0; k < n; k++) {
        msel[k] = -1;
        for (int j = 0; j < src->meta.n; j++)
            if (strcmp(src->meta.keys[j], keys[k]) == 0)
                msel[k] = j;
        if (msel[k] < 0) {
            cdc_buf_t avail = {0};
            for (int j = 0; j < src->meta.n; j++)
                cdc_buf_printf(&avail, "%s%s", j ? ", " : "", src->meta.keys[j]);
            cdc_error_t *e =
                cdc_error_new(CDC_ERR_PLAN, "values: table \"%s\" offers no metadata key \"%s\"",
                              src->name, keys[k]);
            if (src->meta.n)
                cdc_error_set_detail(e, "readable metadata: %s", cdc_buf_cstr(&avail));
            else
                cdc_error_set_hint(e, "declare it with option \"readable-metadata\".");
            cdc_buf_free(&avail);
            free(msel);
            if (err) {
                cdc_error_destroy(*err);
                *err = e;
            } else {
                cdc_error_destroy(e);
            }
            return -1;
        }
    }
    free(src->msel);
    src->msel = msel;
    src->nmsel = n;
    rebuild_produced(src);
    return 0;
}

static int64_t vs_report_row_count(cdc_source_t *base)
{
    values_source_t *src = (values_source_t *)base;
    int64_t n = 0;
    for (int i = 0; i < src->nrows; i++)
        if (row_selected(src, i))
            n++;
    return n;
}

static int vs_open_reader(cdc_source_t *base, int split, int nsplits, cdc_reader_t **out,
                          cdc_error_t **err)
{
    values_source_t *src = (values_source_t *)base;
    if (nsplits < 1 || split < 0 || split >= nsplits)
        return cdc_error_set(err, CDC_ERR_INTERNAL, "values: bad split %d of %d", split, nsplits);
    int m = 0;
    int *sel = select_rows(src, &m);
    int64_t b = (int64_t)m * split / nsplits, e = (int64_t)m * (split + 1) / nsplits;
    values_reader_t *r = cdc_xcalloc(1, sizeof(*r));
    r->base.ops = &values_reader_ops;
    r->src = src;
    r->n = (int)(e - b);
    r->idx = cdc_xmalloc(sizeof(int) * (size_t)(r->n > 0 ? r->n : 1));
    if (r->n > 0)
        memcpy(r->idx, sel + b, sizeof(int) * (size_t)r->n);
    free(sel);
    *out = &r->base;
    return 0;
}

static void vs_describe(cdc_source_t *base, cdc_buf_t *out)
{
    values_source_t *src = (values_source_t *)base;
    cdc_buf_printf(out, "values(rows=%d", src->nrows);
    if (src->pruned) {
        cdc_buf_puts(out, ", partitions=[");
        int nk = 0;
        for (int i = 0; i < src->nparts; i++) {
            if (!src->parts[i].kept)
                continue;
            cdc_buf_puts(out, nk++ ? ", {" : "{");
            for (int k = 0; k < src->parts[i].kv.n; k++)
                cdc_buf_printf(out, "%s%s=%s", k ? ", " : "", src->parts[i].kv.keys[k],
                               src->parts[i].kv.values[k]);
            cdc_buf_putc(out, '}');
        }
        cdc_buf_putc(out, ']');
    }
    if (src->nfilters) {
        cdc_buf_puts(out, ", filter=[");
        for (int k = 0; k < src->nfilters; k++)
            cdc_buf_printf(out, "%s%s", k ? ", " : "", src->filters[k].text);
        cdc_buf_putc(out, ']');
    }
    if (src->projected) {
        cdc_buf_puts(out, ", project=[");
        for (int k = 0; k < src->nproj; k++)
            cdc_buf_printf(out, "%s%s", k ? ", " : "", src->schema->names[src->proj[k]]);
        cdc_buf_putc(out, ']');
    }
    if (src->limit >= 0)
        cdc_buf_printf(out, ", limit=%lld", (long long)src->limit);
    if (src->nmsel) {
        cdc_buf_puts(out, ", metadata=[");
        for (int k = 0; k < src->nmsel; k++)
            cdc_buf_printf(out, "%s%s", k ? ", " : "", src->meta.keys[src->msel[k]]);
        cdc_buf_putc(out, ']');
    }
    if (!src->bounded)
        cdc_buf_puts(out, ", unbounded");
    cdc_buf_putc(out, ')');
}

static void vs_destroy(cdc_source_t *base)
{
    values_source_t *src = (values_source_t *)base;
    if (!src)
        return;
    free(src->name);
    cdc_type_destroy(src->schema);
    cdc_type_destroy(src->produced);
    free(src->rows);
    free(src->meta_rows);
    free(src->row_part);
    for (int i = 0; i < src->nparts; i++) {
        cdc_kv_free(&src->parts[i].kv);
        free(src->parts[i].fields);
        free(src->parts[i].vals);
    }
    free(src->parts);
    for (int i = 0; i < src->nfilters; i++)
        free(src->filters[i].text);
    free(src->filters);
    for (int i = 0; i < src->nfilterable; i++)
        free(src->filterable[i]);
    free(src->filterable);
    free(src->proj);
    free(src->msel);
    meta_decl_free(&src->meta);
    cdc_arena_free(&src->arena);
    free(src);
}

/* ---- lookups (LookupTableSource): the data rows, matched by a linear scan ------------------ */

typedef struct values_lookup_s {
    cdc_lookup_t base;
    values_source_t *src;
    int *keys; /* physical columns */
    int nkeys;
} values_lookup_t;

static bool lookup_matches(const values_lookup_t *lk, const cdc_row_t *row, const cdc_value_t *keys)
{
    if (row->kind != CDC_INSERT && row->kind != CDC_UPDATE_AFTER)
        return false;
    for (int k = 0; k < lk->nkeys; k++) {
        const cdc_value_t *v = &row->values[lk->keys[k]];
        if (cdc_value_is_null(v) ||
            cdc_value_cmp(lk->src->schema->children[lk->keys[k]], v, &keys[k]) != 0)
            return false;
    }
    return true;
}

static int vl_lookup(cdc_lookup_t *base, const cdc_value_t *keys, cdc_batch_t *out,
                     cdc_error_t **err)
{
    (void)err;
    values_lookup_t *lk = (values_lookup_t *)base;
    const values_source_t *src = lk->src;
    uint32_t arity = (uint32_t)src->schema->nchildren;
    for (int i = 0; i < src->nrows; i++) {
        if (!lookup_matches(lk, &src->rows[i], keys))
            continue;
        cdc_row_t *row = cdc_batch_add(out, CDC_INSERT, arity);
        memcpy(row->values, src->rows[i].values, sizeof(cdc_value_t) * arity);
    }
    return 0;
}

static void vl_close(cdc_lookup_t *base)
{
    values_lookup_t *lk = (values_lookup_t *)base;
    if (!lk)
        return;
    free(lk->keys);
    free(lk);
}

static const cdc_lookup_ops_t values_lookup_ops = {
    .lookup = vl_lookup,
    .close = vl_close,
};

static int vs_open_lookup(cdc_source_t *base, const int *key_fields, int nkeys, cdc_lookup_t **out,
                          cdc_error_t **err)
{
    values_source_t *src = (values_source_t *)base;
    for (int k = 0; k < nkeys; k++) {
        const cdc_type_t *t = src->schema->children[key_fields[k]];
        if (t->root == CDC_T_ARRAY || t->root == CDC_T_MAP || t->root == CDC_T_ROW)
            return cdc_error_set(err, CDC_ERR_PLAN,
                                 "values: column \"%s\" of table \"%s\" cannot be a lookup key "
                                 "(ARRAY, MAP and ROW values are not compared)",
                                 src->schema->names[key_fields[k]], src->name);
    }
    values_lookup_t *lk = cdc_xcalloc(1, sizeof(*lk));
    lk->base.ops = &values_lookup_ops;
    lk->src = src;
    lk->nkeys = nkeys;
    lk->keys = cdc_xcalloc((size_t)nkeys + 1, sizeof(int));
    memcpy(lk->keys, key_fields, sizeof(int) * (size_t)nkeys);
    *out = &lk->base;
    return 0;
}

static const cdc_source_ops_t values_source_ops = {
    .changelog_mode = vs_changelog_mode,
    .list_partitions = vs_list_partitions,
    .apply_partitions = vs_apply_partitions,
    .apply_filters = vs_apply_filters,
    .apply_projection = vs_apply_projection,
    .apply_limit = vs_apply_limit,
    .open_reader = vs_open_reader,
    .open_lookup = vs_open_lookup,
    .apply_metadata = vs_apply_metadata,
    .report_row_count = vs_report_row_count,
    .describe = vs_describe,
    .destroy = vs_destroy,
};

static int option_error(cdc_buf_t *problems, cdc_error_t **err)
{
    while (problems->len && problems->data[problems->len - 1] == '\n')
        problems->len--;
    cdc_error_t *e = cdc_error_new(CDC_ERR_OPTION, "invalid options for connector \"values\"");
    cdc_error_set_detail(e, "%s", cdc_buf_cstr(problems));
    cdc_error_set_hint(e, "\"cdcflow describe values\" lists the options of connector "
                          "\"values\".");
    if (err) {
        cdc_error_destroy(*err);
        *err = e;
    } else {
        cdc_error_destroy(e);
    }
    return -1;
}

/* Type-dependent set-up: partitions against the schema, rows into them. */
static void setup_partitions(values_source_t *src, cdc_kv_t *kvs, int n, cdc_buf_t *problems)
{
    src->parts = cdc_xcalloc((size_t)n + 1, sizeof(vpart_t));
    src->nparts = n;
    cdc_buf_t tok = {0};
    for (int i = 0; i < n; i++) {
        vpart_t *pt = &src->parts[i];
        pt->kv = kvs[i];
        pt->fields = cdc_xcalloc((size_t)pt->kv.n + 1, sizeof(int));
        pt->vals = cdc_xcalloc((size_t)pt->kv.n + 1, sizeof(cdc_value_t));
        for (int k = 0; k < pt->kv.n; k++) {
            const char *key = pt->kv.keys[k], *val = pt->kv.values[k];
            int f = cdc_type_field_index(src->schema, key);
            pt->fields[k] = f;
            if (f < 0) {
                cdc_buf_printf(problems,
                               "option \"partition-list\": \"%s\" is not a physical column\n", key);
                continue;
            }
            const cdc_type_t *t = src->schema->children[f];
            cdc_buf_clear(&tok);
            cdc_buf_puts(&tok, val);
            int rc = convert(t, cdc_buf_cstr(&tok), tok.len, false, &src->arena, &pt->vals[k]);
            if (rc == CONV_NOT_NULL || rc == CONV_BAD || rc == CONV_NESTED) {
                char *ts = cdc_type_to_string(t);
                cdc_buf_printf(problems,
                               "option \"partition-list\": partition %d, key \"%s\": expected "
                               "%s, found \"%s\"\n",
                               i + 1, key, ts, val);
                free(ts);
            }
        }
    }
    cdc_buf_free(&tok);
    free(kvs);
    src->row_part = cdc_xmalloc(sizeof(int) * (size_t)(src->nrows > 0 ? src->nrows : 1));
    for (int r = 0; r < src->nrows; r++) {
        src->row_part[r] = -1;
        for (int i = 0; i < src->nparts && src->row_part[r] < 0; i++) {
            const vpart_t *pt = &src->parts[i];
            bool match = true;
            for (int k = 0; k < pt->kv.n && match; k++) {
                int f = pt->fields[k];
                if (f < 0) {
                    match = false;
                    break;
                }
                const cdc_value_t *v = &src->rows[r].values[f];
                bool vn = cdc_value_is_null(v), pn = cdc_value_is_null(&pt->vals[k]);
                match = vn == pn &&
                        (vn || cdc_value_cmp(src->schema->children[f], v, &pt->vals[k]) == 0);
            }
            if (match)
                src->row_part[r] = i;
        }
    }
}

static int values_source_new(const cdc_table_ctx_t *ctx, cdc_source_t **out, cdc_error_t **err)
{
    const cdc_config_t *cfg = ctx->cfg;
    if (!ctx->schema || ctx->schema->root != CDC_T_ROW)
        return cdc_error_set(err, CDC_ERR_INTERNAL, "values: the table schema is not a ROW");
    cdc_buf_t problems = {0};
    values_check(cfg, &problems); /* again: the validator may have run without it */
    if (problems.len) {
        option_error(&problems, err);
        cdc_buf_free(&problems);
        return -1;
    }
    values_source_t *src = cdc_xcalloc(1, sizeof(*src));
    src->base.ops = &values_source_ops;
    src->name = cdc_xstrdup(ctx->name ? ctx->name : "?");
    src->schema = cdc_type_copy(ctx->schema);
    cdc_arena_init(&src->arena);
    src->limit = -1;
    src->bounded = cdc_config_bool(cfg, "bounded");
    src->proj_enabled = cdc_config_bool(cfg, "enable-projection-push-down");
    src->limit_enabled = cdc_config_bool(cfg, "enable-limit-push-down");
    parse_mode("changelog-mode", cdc_config_str(cfg, "changelog-mode"), &src->mode, NULL);
    src->nproj = src->schema->nchildren;
    src->proj = cdc_xmalloc(sizeof(int) * (size_t)(src->nproj > 0 ? src->nproj : 1));
    for (int i = 0; i < src->nproj; i++)
        src->proj[i] = i;

    parse_t p = {.opt = "data",
                 .row_type = src->schema,
                 .mode = src->mode,
                 .arena = &src->arena,
                 .problems = &problems};
    const char *data = cdc_config_str(cfg, "data");
    p.s = data ? data : "";
    p.len = strlen(p.s);
    parse_rows(&p, &src->rows, &src->nrows);

    const char *pl = cdc_config_str(cfg, "partition-list");
    cdc_kv_t *kvs = NULL;
    int nkvs = 0;
    if (pl)
        parse_partition_list(pl, &kvs, &nkvs, &problems);
    setup_partitions(src, kvs, nkvs, &problems);

    const char *ff = cdc_config_str(cfg, "filterable-fields");
    for (const char *q = ff; q && *q;) {
        const char *semi = strchr(q, ';');
        const char *b = q, *e = semi ? semi : q + strlen(q);
        trim(&b, &e);
        if (b < e) {
            char *name = cdc_xstrndup(b, (size_t)(e - b));
            if (cdc_type_field_index(src->schema, name) < 0)
                cdc_buf_printf(&problems, "option \"filterable-fields\": unknown column \"%s\"\n",
                               name);
            src->filterable =
                cdc_xrealloc(src->filterable, sizeof(char *) * (size_t)(src->nfilterable + 1));
            src->filterable[src->nfilterable++] = name;
        }
        q = semi ? semi + 1 : NULL;
    }

    const char *rm = cdc_config_str(cfg, "readable-metadata");
    if (rm)
        parse_readable_metadata(rm, &src->meta, &problems);
    const char *md = cdc_config_str(cfg, "metadata-data");
    if (md && src->meta.row) {
        parse_t mp = {.opt = "metadata-data",
                      .s = md,
                      .len = strlen(md),
                      .row_type = src->meta.row,
                      .kind_optional = true,
                      .mode = CDC_MODE_ALL,
                      .arena = &src->arena,
                      .problems = &problems};
        int nmeta = 0;
        if (parse_rows(&mp, &src->meta_rows, &nmeta) == 0 && nmeta != src->nrows) {
            cdc_buf_printf(&problems,
                           "option \"metadata-data\": expected one row per data row (%d), found "
                           "%d\n",
                           src->nrows, nmeta);
        }
        cdc_buf_free(&mp.tok);
        cdc_buf_free(&mp.msg);
    }
    cdc_buf_free(&p.tok);
    cdc_buf_free(&p.msg);
    if (problems.len) {
        option_error(&problems, err);
        cdc_buf_free(&problems);
        vs_destroy(&src->base);
        return -1;
    }
    cdc_buf_free(&problems);
    rebuild_produced(src);
    *out = &src->base;
    return 0;
}

/* ---- the sink ----------------------------------------------------------------------------- */

static pthread_mutex_t values_print_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct mat_entry_s {
    char *key;
    char *text; /* "+I[...]" */
    int64_t count;
    struct mat_entry_s *next;
} mat_entry_t;

typedef struct values_sink_s {
    cdc_sink_t base;
    char *name;
    cdc_type_t *schema;
    int *pk;
    int npk;
    char *identifier; /* NULL when unset or empty */
    bool materialize;
    bool has_enforced;
    cdc_changelog_mode_t enforced;
    bool has_partition;
    cdc_kv_t partition;
    bool overwrite;
    FILE *stream;         /* NULL = stdout */
    pthread_mutex_t lock; /* the materialized state and the counters below */
    mat_entry_t **buckets;
    size_t nbuckets;
    size_t nentries;
    int nsubtasks;
    int opened, closed;
    bool pending; /* writers opened since the state was last printed */
    int64_t errors;
} values_sink_t;

typedef struct values_writer_s {
    cdc_writer_t base;
    values_sink_t *sink;
    FILE *stream;
    const char *stream_name;
    char *prefix;
    size_t prefix_len;
    cdc_buf_t buf;
    cdc_buf_t key;
} values_writer_t;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static mat_entry_t **mat_find(values_sink_t *sink, const char *key)
{
    if (!sink->buckets) {
        sink->nbuckets = 64;
        sink->buckets = cdc_xcalloc(sink->nbuckets, sizeof(mat_entry_t *));
    }
    mat_entry_t **pe = &sink->buckets[hash_str(key) % sink->nbuckets];
    while (*pe && strcmp((*pe)->key, key) != 0)
        pe = &(*pe)->next;
    return pe;
}

static void mat_grow(values_sink_t *sink)
{
    if (sink->nentries <= sink->nbuckets)
        return;
    size_t nb = sink->nbuckets * 2;
    mat_entry_t **nbk = cdc_xcalloc(nb, sizeof(mat_entry_t *));
    for (size_t i = 0; i < sink->nbuckets; i++) {
        mat_entry_t *e = sink->buckets[i];
        while (e) {
            mat_entry_t *next = e->next;
            size_t h = hash_str(e->key) % nb;
            e->next = nbk[h];
            nbk[h] = e;
            e = next;
        }
    }
    free(sink->buckets);
    sink->buckets = nbk;
    sink->nbuckets = nb;
}

static void mat_entry_free(mat_entry_t *e)
{
    if (e->text != e->key)
        free(e->text);
    free(e->key);
    free(e);
}

/* Applies one change (sink->lock held). text is the row printed as +I. */
static void mat_apply(values_sink_t *sink, cdc_kind_t kind, const char *key, const char *text,
                      const cdc_row_t *row)
{
    bool add = kind == CDC_INSERT || kind == CDC_UPDATE_AFTER;
    mat_entry_t **pe = mat_find(sink, key);
    if (sink->npk > 0) {
        if (add) {
            if (*pe) {
                free((*pe)->text);
                (*pe)->text = cdc_xstrdup(text);
            } else {
                mat_entry_t *e = cdc_xcalloc(1, sizeof(*e));
                e->key = cdc_xstrdup(key);
                e->text = cdc_xstrdup(text);
                e->count = 1;
                *pe = e;
                sink->nentries++;
                mat_grow(sink);
            }
        } else if (*pe) {
            mat_entry_t *e = *pe;
            *pe = e->next;
            mat_entry_free(e);
            sink->nentries--;
        }
        return;
    }
    if (add) {
        if (*pe) {
            (*pe)->count++;
        } else {
            mat_entry_t *e = cdc_xcalloc(1, sizeof(*e));
            e->key = cdc_xstrdup(key);
            e->text = e->key;
            e->count = 1;
            *pe = e;
            sink->nentries++;
            mat_grow(sink);
        }
    } else if (*pe) {
        if (--(*pe)->count == 0) {
            mat_entry_t *e = *pe;
            *pe = e->next;
            mat_entry_free(e);
            sink->nentries--;
        }
    } else {
        sink->errors++;
        cdc_buf_t b = {0};
        cdc_row_print(&b, row, sink->schema);
        fprintf(stderr, "cdcflow: values sink \"%s\": cannot apply %s: no such row in the table\n",
                sink->name, cdc_buf_cstr(&b));
        cdc_buf_free(&b);
    }
}

/* "overwrite" and "partition(k=v, ...)" lines, each after prefix. */
static void put_header(const values_sink_t *sink, const char *prefix, cdc_buf_t *out)
{
    if (sink->overwrite)
        cdc_buf_printf(out, "%soverwrite\n", prefix);
    if (sink->has_partition) {
        cdc_buf_printf(out, "%spartition(", prefix);
        for (int i = 0; i < sink->partition.n; i++)
            cdc_buf_printf(out, "%s%s=%s", i ? ", " : "", sink->partition.keys[i],
                           sink->partition.values[i]);
        cdc_buf_puts(out, ")\n");
    }
}

static int cmp_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Prints the materialized table (sink->lock held). */
static void mat_print(values_sink_t *sink)
{
    size_t n = 0;
    for (size_t i = 0; i < sink->nbuckets; i++)
        for (mat_entry_t *e = sink->buckets[i]; e; e = e->next)
            n += (size_t)e->count;
    const char **texts = cdc_xmalloc(sizeof(char *) * (n ? n : 1));
    size_t k = 0;
    for (size_t i = 0; i < sink->nbuckets; i++)
        for (mat_entry_t *e = sink->buckets[i]; e; e = e->next)
            for (int64_t c = 0; c < e->count; c++)
                texts[k++] = e->text;
    qsort(texts, n, sizeof(char *), cmp_text);
    char *prefix = sink->identifier ? cdc_strdup_printf("%s> ", sink->identifier) : cdc_xstrdup("");
    cdc_buf_t b = {0};
    put_header(sink, prefix, &b);
    for (size_t i = 0; i < n; i++)
        cdc_buf_printf(&b, "%s%s\n", prefix, texts[i]);
    FILE *stream = sink->stream ? sink->stream : stdout;
    pthread_mutex_lock(&values_print_lock);
    if (b.len)
        fwrite(b.data, 1, b.len, stream);
    fflush(stream);
    pthread_mutex_unlock(&values_print_lock);
    cdc_buf_free(&b);
    free(prefix);
    free(texts);
    sink->pending = false;
}

static int vk_write(cdc_writer_t *base, const cdc_batch_t *batch, cdc_error_t **err)
{
    values_writer_t *w = (values_writer_t *)base;
    values_sink_t *sink = w->sink;
    char mbuf[16];
    for (uint32_t i = 0; i < batch->n; i++) {
        const cdc_row_t *row = &batch->rows[i];
        if (row->arity != (uint32_t)sink->schema->nchildren)
            return cdc_error_set(err, CDC_ERR_INTERNAL,
                                 "values: row of %u fields for a table of %d columns", row->arity,
                                 sink->schema->nchildren);
        if (sink->has_enforced && !(sink->enforced & CDC_MODE_BIT(row->kind)))
            return cdc_error_set(err, CDC_ERR_INTERNAL,
                                 "values: table \"%s\" received a %s row but accepts only %s",
                                 sink->name, cdc_kind_short(row->kind),
                                 cdc_changelog_mode_str(sink->enforced, mbuf));
    }
    if (!sink->materialize) {
        cdc_buf_clear(&w->buf);
        for (uint32_t i = 0; i < batch->n; i++) {
            cdc_buf_append(&w->buf, w->prefix, w->prefix_len);
            cdc_row_print(&w->buf, &batch->rows[i], sink->schema);
            cdc_buf_putc(&w->buf, '\n');
        }
        if (w->buf.len == 0)
            return 0;
        pthread_mutex_lock(&values_print_lock);
        errno = 0;
        size_t n = fwrite(w->buf.data, 1, w->buf.len, w->stream);
        int errnum = errno;
        pthread_mutex_unlock(&values_print_lock);
        if (n != w->buf.len)
            return cdc_error_set(err, CDC_ERR_IO, "could not write to %s: %s", w->stream_name,
                                 errnum ? strerror(errnum) : "unknown error");
        return 0;
    }
    pthread_mutex_lock(&sink->lock);
    for (uint32_t i = 0; i < batch->n; i++) {
        const cdc_row_t *row = &batch->rows[i];
        cdc_row_t as_insert = *row;
        as_insert.kind = CDC_INSERT;
        cdc_buf_clear(&w->buf);
        cdc_row_print(&w->buf, &as_insert, sink->schema);
        const char *text = cdc_buf_cstr(&w->buf);
        const char *key = text;
        if (sink->npk > 0) {
            /* each key field as N (NULL) or V<len>:<printed value> */
            cdc_buf_clear(&w->key);
            for (int k = 0; k < sink->npk; k++) {
                const cdc_value_t *v = &row->values[sink->pk[k]];
                if (cdc_value_is_null(v)) {
                    cdc_buf_putc(&w->key, 'N');
                    continue;
                }
                cdc_buf_t one = {0};
                cdc_value_print(&one, v, sink->schema->children[sink->pk[k]]);
                cdc_buf_printf(&w->key, "V%zu:", one.len);
                cdc_buf_append(&w->key, one.data, one.len);
                cdc_buf_free(&one);
            }
            key = cdc_buf_cstr(&w->key);
        }
        mat_apply(sink, row->kind, key, text, row);
    }
    pthread_mutex_unlock(&sink->lock);
    return 0;
}

static int vk_flush(cdc_writer_t *base, cdc_error_t **err)
{
    values_writer_t *w = (values_writer_t *)base;
    if (w->sink->materialize)
        return 0;
    pthread_mutex_lock(&values_print_lock);
    errno = 0;
    int rc = fflush(w->stream);
    int errnum = errno;
    pthread_mutex_unlock(&values_print_lock);
    if (rc != 0)
        return cdc_error_set(err, CDC_ERR_IO, "could not flush %s: %s", w->stream_name,
                             errnum ? strerror(errnum) : "unknown error");
    return 0;
}

static void vk_close(cdc_writer_t *base)
{
    values_writer_t *w = (values_writer_t *)base;
    if (!w)
        return;
    values_sink_t *sink = w->sink;
    if (sink->materialize) {
        pthread_mutex_lock(&sink->lock);
        sink->closed++;
        /* the whole table is printed once every subtask's writer has closed */
        if (sink->closed == sink->opened && sink->closed >= sink->nsubtasks) {
            mat_print(sink);
            sink->opened = sink->closed = 0;
        }
        pthread_mutex_unlock(&sink->lock);
    } else {
        pthread_mutex_lock(&values_print_lock);
        fflush(w->stream);
        pthread_mutex_unlock(&values_print_lock);
    }
    cdc_buf_free(&w->buf);
    cdc_buf_free(&w->key);
    free(w->prefix);
    free(w);
}

static const cdc_writer_ops_t values_writer_ops = {
    .write = vk_write,
    .flush = vk_flush,
    .close = vk_close,
};

static cdc_changelog_mode_t vk_changelog_mode(cdc_sink_t *base, cdc_changelog_mode_t requested)
{
    values_sink_t *sink = (values_sink_t *)base;
    return sink->has_enforced ? (cdc_changelog_mode_t)(requested & sink->enforced) : requested;
}

static int vk_apply_static_partition(cdc_sink_t *base, const cdc_kv_t *partition, cdc_error_t **err)
{
    (void)err;
    values_sink_t *sink = (values_sink_t *)base;
    cdc_kv_free(&sink->partition);
    memset(&sink->partition, 0, sizeof(sink->partition));
    if (partition)
        cdc_kv_copy(&sink->partition, partition);
    sink->has_partition = partition != NULL;
    return 0;
}

static int vk_apply_overwrite(cdc_sink_t *base, bool overwrite, cdc_error_t **err)
{
    (void)err;
    ((values_sink_t *)base)->overwrite = overwrite;
    return 0;
}

static int vk_open_writer(cdc_sink_t *base, int subtask, int nsubtasks, cdc_writer_t **out,
                          cdc_error_t **err)
{
    values_sink_t *sink = (values_sink_t *)base;
    if (nsubtasks < 1 || subtask < 0 || subtask >= nsubtasks)
        return cdc_error_set(err, CDC_ERR_INTERNAL, "values: bad subtask %d of %d", subtask,
                             nsubtasks);
    values_writer_t *w = cdc_xcalloc(1, sizeof(*w));
    w->base.ops = &values_writer_ops;
    w->sink = sink;
    w->stream = sink->stream ? sink->stream : stdout;
    w->stream_name = sink->stream ? "the values stream" : "standard output";
    /* as the print connector: identifier, ":K" when parallel, then "> " */
    if (nsubtasks > 1)
        w->prefix = sink->identifier ? cdc_strdup_printf("%s:%d> ", sink->identifier, subtask + 1)
                                     : cdc_strdup_printf("%d> ", subtask + 1);
    else
        w->prefix =
            sink->identifier ? cdc_strdup_printf("%s> ", sink->identifier) : cdc_xstrdup("");
    w->prefix_len = strlen(w->prefix);
    if (sink->materialize) {
        pthread_mutex_lock(&sink->lock);
        sink->opened++;
        sink->nsubtasks = nsubtasks;
        sink->pending = true;
        pthread_mutex_unlock(&sink->lock);
    } else {
        cdc_buf_t b = {0};
        put_header(sink, w->prefix, &b);
        if (b.len) {
            pthread_mutex_lock(&values_print_lock);
            fwrite(b.data, 1, b.len, w->stream);
            pthread_mutex_unlock(&values_print_lock);
        }
        cdc_buf_free(&b);
    }
    *out = &w->base;
    return 0;
}

static void vk_destroy(cdc_sink_t *base)
{
    values_sink_t *sink = (values_sink_t *)base;
    if (!sink)
        return;
    if (sink->materialize && sink->pending)
        mat_print(sink); /* some writer never opened or closed: print what there is */
    for (size_t i = 0; i < sink->nbuckets; i++) {
        mat_entry_t *e = sink->buckets[i];
        while (e) {
            mat_entry_t *next = e->next;
            mat_entry_free(e);
            e = next;
        }
    }
    free(sink->buckets);
    pthread_mutex_destroy(&sink->lock);
    cdc_kv_free(&sink->partition);
    free(sink->name);
    cdc_type_destroy(sink->schema);
    free(sink->pk);
    free(sink->identifier);
    free(sink);
}

static const cdc_sink_ops_t values_sink_ops = {
    .changelog_mode = vk_changelog_mode,
    .apply_static_partition = vk_apply_static_partition,
    .apply_overwrite = vk_apply_overwrite,
    .open_writer = vk_open_writer,
    .destroy = vk_destroy,
};

static int values_sink_new(const cdc_table_ctx_t *ctx, cdc_sink_t **out, cdc_error_t **err)
{
    const cdc_config_t *cfg = ctx->cfg;
    if (!ctx->schema || ctx->schema->root != CDC_T_ROW)
        return cdc_error_set(err, CDC_ERR_INTERNAL, "values: the table schema is not a ROW");
    for (int k = 0; k < ctx->npk; k++)
        if (ctx->pk[k] < 0 || ctx->pk[k] >= ctx->schema->nchildren)
            return cdc_error_set(err, CDC_ERR_INTERNAL, "values: primary key column %d of %d",
                                 ctx->pk[k], ctx->schema->nchildren);
    cdc_buf_t problems = {0};
    values_check(cfg, &problems);
    if (problems.len) {
        option_error(&problems, err);
        cdc_buf_free(&problems);
        return -1;
    }
    cdc_buf_free(&problems);
    values_sink_t *sink = cdc_xcalloc(1, sizeof(*sink));
    sink->base.ops = &values_sink_ops;
    sink->name = cdc_xstrdup(ctx->name ? ctx->name : "?");
    sink->schema = cdc_type_copy(ctx->schema);
    sink->npk = ctx->npk > 0 ? ctx->npk : 0;
    sink->pk = cdc_xmalloc(sizeof(int) * (size_t)(sink->npk > 0 ? sink->npk : 1));
    for (int k = 0; k < sink->npk; k++)
        sink->pk[k] = ctx->pk[k];
    const char *id = cdc_config_str(cfg, "print-identifier");
    sink->identifier = id && *id ? cdc_xstrdup(id) : NULL;
    sink->materialize = cdc_config_bool(cfg, "sink.materialize");
    const char *enforced = cdc_config_str(cfg, "sink-changelog-mode-enforced");
    if (enforced) {
        sink->has_enforced = true;
        parse_mode("sink-changelog-mode-enforced", enforced, &sink->enforced, NULL);
    }
    pthread_mutex_init(&sink->lock, NULL);
    *out = &sink->base;
    return 0;
}

int cdc_values_sink_set_stream(cdc_sink_t *base, FILE *stream)
{
    if (!base || base->ops != &values_sink_ops)
        return -1;
    ((values_sink_t *)base)->stream = stream;
    return 0;
}

int64_t cdc_values_sink_errors(cdc_sink_t *base)
{
    if (!base || base->ops != &values_sink_ops)
        return -1;
    values_sink_t *sink = (values_sink_t *)base;
    pthread_mutex_lock(&sink->lock);
    int64_t n = sink->errors;
    pthread_mutex_unlock(&sink->lock);
    return n;
}

const cdc_connector_factory_t cdc_connector_values = {
    .identifier = "values",
    .description = "Test connector (Flink's values): a source of the rows written in option "
                   "\"data\" with every source ability, and a sink that prints or materializes "
                   "what it receives.",
    .options = values_options,
    .check = values_check,
    .metadata = NULL,
    .source_new = values_source_new,
    .sink_new = values_sink_new,
};
