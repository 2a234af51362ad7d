/*
 * csv.c — the `csv` format (Flink's format='csv'): one line of delimited
 * fields per message to one +I row by position, and +I rows back to lines.
 *
 * Reading follows RFC 4180 as Jackson's CSV parser does under Flink's
 * options: a field may be quoted (the quote character doubled inside stands
 * for itself), escape-character escapes the next character, null-literal
 * reads as NULL, an unquoted empty field is NULL (a quoted one is the empty
 * string, and empty strings are written quoted, so NULL and '' both survive a
 * round trip; Flink reads an empty STRING field as ''), missing trailing
 * fields are NULL and extra fields are an error; ARRAY fields are split by
 * array-element-delimiter. Scalars are converted as the json format converts
 * string values (numbers, booleans, DECIMAL, DATE, TIME, TIMESTAMP as
 * "2020-07-30 10:08:22.123", BYTES as base64). A quoted field cannot span
 * lines: a message is one line. Writing quotes a field only when it needs it
 * (delimiter, quote, line break, leading or trailing blank).
 */
#include <stdlib.h>
#include <string.h>

#include "cdc_json.h"

static const cdc_option_def_t csv_options[] = {
    {.key = "field-delimiter",
     .type = CDC_OPT_STRING,
     .default_value = ",",
     .description = "Field delimiter: one character (\"\\t\" for a tab)."},
    {.key = "disable-quote-character",
     .type = CDC_OPT_BOOL,
     .default_value = "false",
     .description = "Read and write no quoting (quote-character is then not allowed)."},
    {.key = "quote-character",
     .type = CDC_OPT_STRING,
     .default_value = "\"",
     .description = "Quote character enclosing field values."},
    {.key = "allow-comments",
     .type = CDC_OPT_BOOL,
     .default_value = "false",
     .description = "Ignore lines starting with '#'."},
    {.key = "ignore-parse-errors",
     .type = CDC_OPT_BOOL,
     .default_value = "false",
     .description = "Drop a line that fails to parse and count it, instead of failing."},
    {.key = "array-element-delimiter",
     .type = CDC_OPT_STRING,
     .default_value = ";",
     .description = "Separator of the elements of an ARRAY field."},
    {.key = "escape-character",
     .type = CDC_OPT_STRING,
     .description = "Character that escapes the next one (disabled by default)."},
    {.key = "null-literal",
     .type = CDC_OPT_STRING,
     .description = "Field text read and written as NULL (by default NULL is written as an "
                    "empty field)."},
    {.key = "write-bigdecimal-in-scientific-notation",
     .type = CDC_OPT_BOOL,
     .default_value = "true",
     .description = "Write small DECIMAL values in scientific notation (1E-8) like Java's "
                    "BigDecimal.toString; false writes plain numbers."},
    {0},
};

/* "\t" written as two characters means a tab, as in Flink's docs. */
static int one_char(const char *s, char *out)
{
    if (!s)
        return -1;
    if (strcmp(s, "\\t") == 0) {
        *out = '\t';
        return 0;
    }
    if (strlen(s) != 1)
        return -1;
    *out = s[0];
    return 0;
}

static void csv_check(const cdc_config_t *cfg, cdc_buf_t *problems)
{
    char c;
    if (one_char(cdc_config_str(cfg, "field-delimiter"), &c) < 0)
        cdc_buf_printf(problems,
                       "option \"field-delimiter\" must be a single character, found "
                       "\"%s\"\n",
                       cdc_config_str(cfg, "field-delimiter"));
    if (cdc_config_bool(cfg, "disable-quote-character") && cdc_config_isset(cfg, "quote-character"))
        cdc_buf_puts(problems, "Format cannot define a quote character and disabled quote "
                               "character at the same time.\n");
    if (one_char(cdc_config_str(cfg, "quote-character"), &c) < 0)
        cdc_buf_puts(problems, "option \"quote-character\" must be a single character\n");
    const char *esc = cdc_config_str(cfg, "escape-character");
    if (esc && one_char(esc, &c) < 0)
        cdc_buf_puts(problems, "option \"escape-character\" must be a single character\n");
    const char *ad = cdc_config_str(cfg, "array-element-delimiter");
    if (!ad || !*ad)
        cdc_buf_puts(problems, "option \"array-element-delimiter\" must not be empty\n");
}

typedef struct csv_opts_s {
    char delim;
    bool quoting;
    char quote;
    bool has_escape;
    char escape;
    bool comments;
    char *null_literal; /* NULL when unset */
    char *array_delim;
    bool decimal_plain;
} csv_opts_t;

static void opts_read(const cdc_config_t *cfg, csv_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    one_char(cdc_config_str(cfg, "field-delimiter"), &o->delim);
    o->quoting = !cdc_config_bool(cfg, "disable-quote-character");
    one_char(cdc_config_str(cfg, "quote-character"), &o->quote);
    const char *esc = cdc_config_str(cfg, "escape-character");
    o->has_escape = esc && one_char(esc, &o->escape) == 0;
    o->comments = cdc_config_bool(cfg, "allow-comments");
    const char *nl = cdc_config_str(cfg, "null-literal");
    o->null_literal = nl ? cdc_xstrdup(nl) : NULL;
    o->array_delim = cdc_xstrdup(cdc_config_str(cfg, "array-element-delimiter"));
    o->decimal_plain = !cdc_config_bool(cfg, "write-bigdecimal-in-scientific-notation");
}

static void opts_free(csv_opts_t *o)
{
    free(o->null_literal);
    free(o->array_delim);
}

/* Types a CSV field can hold: scalars, and ARRAYs of scalars. */
static int check_type(const cdc_type_t *row, const char *table, cdc_error_t **err)
{
    for (int i = 0; i < row->nchildren; i++) {
        const cdc_type_t *t = row->children[i];
        if (t->root == CDC_T_ARRAY)
            t = t->children[0];
        if (t->root == CDC_T_ARRAY || cdc_type_is_map_like(t) || t->root == CDC_T_ROW) {
            char *ts = cdc_type_to_string(row->children[i]);
            cdc_error_set(err, CDC_ERR_OPTION,
                          "format \"csv\" cannot hold field \"%s\" of type %s%s%s", row->names[i],
                          ts, table ? " in table " : "", table ? table : "");
            free(ts);
            return -1;
        }
    }
    return 0;
}

/* ---- deserializer -------------------------------------------------------------------------- */

typedef struct csv_deser_s {
    cdc_deser_t base;
    cdc_type_t *row_type;
    csv_opts_t o;
    bool ignore_errors;
    cdc_buf_t field; /* unquoted text of the current field */
    cdc_buf_t elem;
} csv_deser_t;

/* One scalar from its text (empty non-string text is NULL). Returns 0 or -1 (errmsg set). */
static int convert(csv_deser_t *d, const cdc_type_t *t, const char *name, const char *s, size_t n,
                   bool quoted, cdc_arena_t *arena, cdc_value_t *out)
{
    memset(out, 0, sizeof(*out));
    bool is_text = t->root == CDC_T_CHAR || t->root == CDC_T_VARCHAR;
    bool is_null = (!quoted && d->o.null_literal && strlen(d->o.null_literal) == n &&
                    memcmp(d->o.null_literal, s, n) == 0) ||
                   (n == 0 && (!is_text || !quoted));
    if (is_null) {
        out->flags = CDC_V_NULL;
        if (t->nullable)
            return 0;
        cdc_buf_printf(&d->base.errmsg, "field \"%s\": NOT NULL, found null", name);
        return -1;
    }
    if (is_text) {
        out->v.s.ptr = n ? cdc_arena_memdup(arena, s, n) : "";
        out->v.s.len = (uint32_t)n;
        return 0;
    }
    char eb[200];
    if (cdc_json_convert_scalar(t, 's', s, n, false, arena, out, eb, sizeof(eb)) < 0) {
        cdc_buf_printf(&d->base.errmsg, "field \"%s\": %s", name, eb);
        return -1;
    }
    return 0;
}

static int convert_field(csv_deser_t *d, int i, bool quoted, cdc_arena_t *arena, cdc_value_t *out)
{
    const cdc_type_t *t = d->row_type->children[i];
    const char *name = d->row_type->names[i];
    const char *s = d->field.data ? d->field.data : "";
    size_t n = d->field.len;
    if (t->root != CDC_T_ARRAY)
        return convert(d, t, name, s, n, quoted, arena, out);
    memset(out, 0, sizeof(*out));
    if (n == 0 && quoted) /* "" is the empty array; an unquoted empty field is NULL */
        return 0;
    if ((!quoted && d->o.null_literal && strlen(d->o.null_literal) == n &&
         memcmp(d->o.null_literal, s, n) == 0) ||
        n == 0) {
        out->flags = CDC_V_NULL;
        if (t->nullable)
            return 0;
        cdc_buf_printf(&d->base.errmsg, "field \"%s\": NOT NULL, found null", name);
        return -1;
    }
    size_t dl = strlen(d->o.array_delim);
    uint32_t count = 1;
    for (size_t k = 0; k + dl <= n; k++)
        if (memcmp(s + k, d->o.array_delim, dl) == 0) {
            count++;
            k += dl - 1;
        }
    cdc_value_t *elems = cdc_arena_calloc(arena, sizeof(cdc_value_t) * count);
    uint32_t e = 0;
    size_t b = 0;
    for (size_t k = 0; k <= n; k++) {
        if (k < n && !(k + dl <= n && memcmp(s + k, d->o.array_delim, dl) == 0))
            continue;
        if (convert(d, t->children[0], name, s + b, k - b, false, arena, &elems[e++]) < 0)
            return -1;
        b = k + dl;
        k += dl - 1;
    }
    out->v.arr.n = e;
    out->v.arr.elems = elems;
    return 0;
}

static int csv_fail(csv_deser_t *d, cdc_batch_t *out, uint32_t n0)
{
    cdc_batch_truncate(out, out->n - n0);
    if (d->ignore_errors) {
        d->base.skipped++;
        return CDC_DECODE_SKIPPED;
    }
    return CDC_DECODE_ERROR;
}

static int csv_decode(cdc_deser_t *base, const char *msg, size_t len, cdc_batch_t *out)
{
    csv_deser_t *d = (csv_deser_t *)base;
    cdc_buf_clear(&d->base.errmsg);
    if (len && msg[len - 1] == '\n')
        len--;
    if (len && msg[len - 1] == '\r')
        len--;
    if (!msg || len == 0)
        return CDC_DECODE_OK; /* an empty line is no row */
    if (d->o.comments && msg[0] == '#')
        return CDC_DECODE_OK;
    uint32_t n0 = out->n;
    int nf = d->row_type->nchildren;
    cdc_row_t *row = cdc_batch_add(out, CDC_INSERT, (uint32_t)nf);
    int f = 0;
    size_t i = 0;
    for (;;) {
        cdc_buf_clear(&d->field);
        bool quoted = false;
        if (d->o.quoting && i < len && msg[i] == d->o.quote) {
            quoted = true;
            i++;
            for (;;) {
                if (i >= len) {
                    cdc_buf_printf(&d->base.errmsg, "field %d: unterminated quoted value", f + 1);
                    return csv_fail(d, out, n0);
                }
                char c = msg[i];
                if (d->o.has_escape && c == d->o.escape && i + 1 < len) {
                    cdc_buf_putc(&d->field, msg[i + 1]);
                    i += 2;
                    continue;
                }
                if (c == d->o.quote) {
                    if (i + 1 < len && msg[i + 1] == d->o.quote) {
                        cdc_buf_putc(&d->field, c);
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                cdc_buf_putc(&d->field, c);
                i++;
            }
            if (i < len && msg[i] != d->o.delim) {
                cdc_buf_printf(&d->base.errmsg,
                               "field %d: expected a delimiter after the closing quote, found "
                               "\"%c\"",
                               f + 1, msg[i]);
                return csv_fail(d, out, n0);
            }
        } else {
            while (i < len && msg[i] != d->o.delim) {
                if (d->o.has_escape && msg[i] == d->o.escape && i + 1 < len) {
                    cdc_buf_putc(&d->field, msg[i + 1]);
                    i += 2;
                    continue;
                }
                cdc_buf_putc(&d->field, msg[i++]);
            }
        }
        if (f >= nf) {
            cdc_buf_printf(&d->base.errmsg, "expected %d fields, found more", nf);
            return csv_fail(d, out, n0);
        }
        if (convert_field(d, f, quoted, &out->arena, &row->values[f]) < 0)
            return csv_fail(d, out, n0);
        f++;
        if (i >= len)
            break;
        i++;            /* the delimiter */
        if (i == len) { /* a trailing delimiter: one more, empty field */
            cdc_buf_clear(&d->field);
            if (f >= nf) {
                cdc_buf_printf(&d->base.errmsg, "expected %d fields, found more", nf);
                return csv_fail(d, out, n0);
            }
            if (convert_field(d, f, false, &out->arena, &row->values[f]) < 0)
                return csv_fail(d, out, n0);
            f++;
            break;
        }
    }
    for (; f < nf; f++) { /* missing trailing fields are NULL */
        if (!d->row_type->children[f]->nullable) {
            cdc_buf_printf(&d->base.errmsg,
                           "field \"%s\": NOT NULL, but the line has only %d "
                           "fields",
                           d->row_type->names[f], f);
            return csv_fail(d, out, n0);
        }
    }
    return CDC_DECODE_OK;
}

static void csv_deser_destroy(cdc_deser_t *base)
{
    csv_deser_t *d = (csv_deser_t *)base;
    if (!d)
        return;
    cdc_type_destroy(d->row_type);
    opts_free(&d->o);
    cdc_buf_free(&d->field);
    cdc_buf_free(&d->elem);
    cdc_buf_free(&d->base.errmsg);
    free(d);
}

static const cdc_deser_ops_t csv_deser_ops = {
    .decode = csv_decode,
    .destroy = csv_deser_destroy,
};

static int check_ctx(const cdc_format_ctx_t *ctx, cdc_error_t **err)
{
    if (!ctx->row_type || ctx->row_type->root != CDC_T_ROW)
        return cdc_error_set(err, CDC_ERR_INTERNAL, "format \"csv\" needs a ROW type");
    if (ctx->nmetadata > 0)
        return cdc_error_set(err, CDC_ERR_OPTION, "format \"csv\" has no metadata key \"%s\"",
                             ctx->metadata[0]);
    return check_type(ctx->row_type, ctx->table, err);
}

static int csv_deser_new(const cdc_format_ctx_t *ctx, cdc_deser_t **out, cdc_error_t **err)
{
    if (check_ctx(ctx, err) < 0)
        return -1;
    csv_deser_t *d = cdc_xcalloc(1, sizeof(*d));
    d->base.ops = &csv_deser_ops;
    d->row_type = cdc_type_copy(ctx->row_type);
    opts_read(ctx->cfg, &d->o);
    d->ignore_errors = cdc_config_bool(ctx->cfg, "ignore-parse-errors");
    *out = &d->base;
    return 0;
}

/* ---- serializer ------------------------------------------------------------------------------ */

typedef struct csv_ser_s {
    cdc_ser_t base;
    cdc_type_t *row_type;
    csv_opts_t o;
    cdc_json_encode_opts_t jopts;
    cdc_buf_t text;
} csv_ser_t;

/* The text of a non-NULL scalar into s->text. */
static void scalar_text(csv_ser_t *s, const cdc_value_t *v, const cdc_type_t *t)
{
    cdc_buf_clear(&s->text);
    if (t->root == CDC_T_CHAR || t->root == CDC_T_VARCHAR) {
        cdc_buf_append(&s->text, v->v.s.ptr, v->v.s.len);
        return;
    }
    cdc_json_write_value(&s->text, v, t, &s->jopts);
    /* JSON strings here (dates, times, base64) hold no escapes: drop the quotes */
    if (s->text.len >= 2 && s->text.data[0] == '"') {
        memmove(s->text.data, s->text.data + 1, s->text.len - 2);
        s->text.len -= 2;
    }
}

static void put_field(csv_ser_t *s, cdc_buf_t *out, const char *p, size_t n)
{
    bool need = false;
    if (s->o.quoting) {
        need = n > 0 && (p[0] == ' ' || p[0] == '\t' || p[n - 1] == ' ' || p[n - 1] == '\t');
        for (size_t i = 0; i < n && !need; i++)
            need = p[i] == s->o.delim || p[i] == s->o.quote || p[i] == '\n' || p[i] == '\r' ||
                   (s->o.comments && i == 0 && p[i] == '#');
        /* an empty string is quoted so that it does not read back as NULL */
        if (n == 0)
            need = true;
    }
    if (need)
        cdc_buf_putc(out, s->o.quote);
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (need && c == s->o.quote)
            cdc_buf_putc(out, s->o.quote);
        else if (!need && s->o.has_escape &&
                 (c == s->o.delim || c == s->o.escape || c == '\n' || c == '\r'))
            cdc_buf_putc(out, s->o.escape);
        cdc_buf_putc(out, c);
    }
    if (need)
        cdc_buf_putc(out, s->o.quote);
}

static void put_null(csv_ser_t *s, cdc_buf_t *out)
{
    if (s->o.null_literal)
        cdc_buf_puts(out, s->o.null_literal);
}

static int csv_encode(cdc_ser_t *base, const cdc_row_t *row, cdc_buf_t *out)
{
    csv_ser_t *s = (csv_ser_t *)base;
    if (row->kind != CDC_INSERT) {
        cdc_buf_clear(&s->base.errmsg);
        cdc_buf_printf(&s->base.errmsg,
                       "format \"csv\" writes only insert (+I) rows, found a %s "
                       "row",
                       cdc_kind_short(row->kind));
        return -1;
    }
    cdc_buf_t arr = {0};
    for (int i = 0; i < s->row_type->nchildren; i++) {
        if (i)
            cdc_buf_putc(out, s->o.delim);
        const cdc_value_t *v = &row->values[i];
        const cdc_type_t *t = s->row_type->children[i];
        if (cdc_value_is_null(v)) {
            put_null(s, out);
            continue;
        }
        if (t->root != CDC_T_ARRAY) {
            scalar_text(s, v, t);
            put_field(s, out, s->text.data ? s->text.data : "", s->text.len);
            continue;
        }
        cdc_buf_clear(&arr);
        for (uint32_t k = 0; k < v->v.arr.n; k++) {
            if (k)
                cdc_buf_puts(&arr, s->o.array_delim);
            const cdc_value_t *e = &v->v.arr.elems[k];
            if (cdc_value_is_null(e)) {
                if (s->o.null_literal)
                    cdc_buf_puts(&arr, s->o.null_literal);
                continue;
            }
            scalar_text(s, e, t->children[0]);
            cdc_buf_append(&arr, s->text.data, s->text.len);
        }
        put_field(s, out, arr.data ? arr.data : "", arr.len);
    }
    cdc_buf_free(&arr);
    return 0;
}

static void csv_ser_destroy(cdc_ser_t *base)
{
    csv_ser_t *s = (csv_ser_t *)base;
    if (!s)
        return;
    cdc_type_destroy(s->row_type);
    opts_free(&s->o);
    cdc_buf_free(&s->text);
    cdc_buf_free(&s->base.errmsg);
    free(s);
}

static const cdc_ser_ops_t csv_ser_ops = {
    .encode = csv_encode,
    .destroy = csv_ser_destroy,
};

static int csv_ser_new(const cdc_format_ctx_t *ctx, cdc_ser_t **out, cdc_error_t **err)
{
    if (check_ctx(ctx, err) < 0)
        return -1;
    csv_ser_t *s = cdc_xcalloc(1, sizeof(*s));
    s->base.ops = &csv_ser_ops;
    s->row_type = cdc_type_copy(ctx->row_type);
    opts_read(ctx->cfg, &s->o);
    s->jopts.decimal_as_plain_number = s->o.decimal_plain;
    *out = &s->base;
    return 0;
}

const cdc_format_factory_t cdc_format_csv = {
    .identifier = "csv",
    .description = "Delimited text, one line per row (Flink's csv format): fields by position, "
                   "RFC 4180 quoting; insert-only.",
    .options = csv_options,
    .check = csv_check,
    .metadata = NULL,
    .decode_mode = NULL,
    .encode_mode = NULL,
    .deser_new = csv_deser_new,
    .ser_new = csv_ser_new,
};
