/*
 * cdc_decode.c — `cdcflow decode` (messages in, printed rows out) and
 * `cdcflow describe` (the option tables as documentation).
 */
#include "cdc_decode.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

cdc_type_t *cdc_schema_parse(const char *text, cdc_error_t **err)
{
    while (*text == ' ' || *text == '\t' || *text == '\n')
        text++;
    if (strncasecmp(text, "ROW<", 4) == 0 || strncasecmp(text, "ROW(", 4) == 0)
        return cdc_type_parse(text, err);
    /* a bare field list: parse it as ROW<...> and shift error columns back */
    char *wrapped = cdc_strdup_printf("ROW<%s>", text);
    cdc_type_t *t = cdc_type_parse(wrapped, err);
    free(wrapped);
    if (!t && err && *err) {
        cdc_error_t *e = *err;
        /* "invalid data type at column N: ..." -> column N-4 in the user's text */
        const char *p = strstr(e->message, "at column ");
        if (p) {
            long col = strtol(p + 10, NULL, 10);
            const char *rest = strchr(p, ':');
            char *msg = cdc_strdup_printf("invalid schema at column %ld%s", col > 4 ? col - 4 : 1,
                                          rest ? rest : "");
            free(e->message);
            e->message = msg;
        }
        free(e->detail);
        e->detail = NULL;
    }
    return t;
}

/* ---- decode ------------------------------------------------------------------ */

typedef struct line_reader {
    FILE *fp;
    char *buf;
    size_t cap, start, end;
    bool eof;
} line_reader_t;

/* Returns the next line without its '\n' (valid until the next call), or NULL at end. */

/* Message bytes for an error's DETAIL: control bytes (a NUL ended the text there) as \xNN. */
static void put_shown(FILE *f, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\x%02x", c);
        else
            fputc(c, f);
    }
}

static const char *next_line(line_reader_t *r, size_t *len)
{
    for (;;) {
        char *nl = r->end > r->start ? memchr(r->buf + r->start, '\n', r->end - r->start) : NULL;
        if (nl) {
            const char *line = r->buf + r->start;
            *len = (size_t)(nl - line);
            r->start += *len + 1;
            return line;
        }
        if (r->eof) {
            if (r->end > r->start) {
                const char *line = r->buf + r->start;
                *len = r->end - r->start;
                r->start = r->end;
                return line;
            }
            return NULL;
        }
        /* move the partial line to the front and read more */
        if (r->start > 0) {
            memmove(r->buf, r->buf + r->start, r->end - r->start);
            r->end -= r->start;
            r->start = 0;
        }
        if (r->end == r->cap) {
            r->cap *= 2;
            r->buf = cdc_xrealloc(r->buf, r->cap);
        }
        size_t n = fread(r->buf + r->end, 1, r->cap - r->end, r->fp);
        r->end += n;
        if (n == 0)
            r->eof = true;
    }
}

static void print_error(FILE *errout, cdc_error_t *err)
{
    char *s = cdc_error_format(err);
    fprintf(errout, "cdcflow: %s\n", s);
    free(s);
}

/* One line per schema change: "-- schema change: db.t at binlog f:pos: ADD COLUMN c INT". */
static void print_change(const cdc_schema_change_t *c, cdc_buf_t *text)
{
    cdc_buf_printf(text, "-- schema change: %s at %s: ", c->table, c->position);
    cdc_schema_change_describe(c, text);
    cdc_buf_putc(text, '\n');
}

/*
 * Appends the rows added since `before`, each with its table when asked, and
 * the schema changes the last decode met (rc CDC_DECODE_SCHEMA) where they fall among them.
 */
static void print_rows(const cdc_decode_args_t *args, cdc_deser_t *deser, const cdc_type_t *schema,
                       const cdc_batch_t *batch, uint32_t before, int rc, cdc_buf_t *text)
{
    const cdc_schema_change_t *const *changes = NULL;
    const uint32_t *at = NULL;
    int nchanges = rc == CDC_DECODE_SCHEMA && deser->ops->schema_changes
                       ? deser->ops->schema_changes(deser, &changes, &at)
                       : 0;
    int next = 0;
    /* rows of one table follow each other: ask once per run of rows with the same origin (the
     * self-describing formats, mysql-binlog and pgoutput, find a row's type by that pointer) */
    const char *last_origin = NULL;
    const cdc_type_t *last_type = NULL;
    for (uint32_t i = before; i < batch->n && !args->count_only; i++) {
        for (; next < nchanges && at[next] <= i; next++)
            print_change(changes[next], text);
        const cdc_row_t *row = &batch->rows[i];
        const cdc_type_t *type = schema;
        if (!type && row->origin && row->origin == last_origin) {
            type = last_type;
        } else if (!type && deser->ops->row_type) {
            type = deser->ops->row_type(deser, row);
            last_origin = row->origin;
            last_type = type;
        }
        if (!type)
            continue;
        if (args->with_table && row->origin) {
            cdc_buf_puts(text, row->origin);
            cdc_buf_putc(text, '\t');
        }
        cdc_row_print(text, row, type);
        cdc_buf_putc(text, '\n');
    }
    for (; next < nchanges && !args->count_only; next++)
        print_change(changes[next], text);
}

static void flush_text(cdc_buf_t *text, FILE *out, bool force)
{
    if (text->len && (force || text->len >= 1 << 16)) {
        fwrite(text->data, 1, text->len, out);
        cdc_buf_clear(text);
    }
}

/* Hex text ("0a1B", optionally "\x"-prefixed as psql prints bytea) to bytes; -1 = bad column. */
static long hex_decode(const char *s, size_t len, cdc_buf_t *bytes)
{
    static const signed char hv[256] = {
        ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,
        ['6'] = 7,  ['7'] = 8,  ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
        ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
        ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16};
    size_t i = 0;
    if (len >= 2 && s[0] == '\\' && s[1] == 'x')
        i = 2;
    cdc_buf_clear(bytes);
    cdc_buf_reserve(bytes, len / 2 + 1);
    for (; i < len; i += 2) {
        int hi = hv[(unsigned char)s[i]];
        if (!hi)
            return (long)i + 1;
        if (i + 1 >= len || !hv[(unsigned char)s[i + 1]])
            return (long)i + 2;
        bytes->data[bytes->len++] = (char)(((hi - 1) << 4) | (hv[(unsigned char)s[i + 1]] - 1));
    }
    return -1;
}

static const char *input_name(const cdc_decode_args_t *args)
{
    return args->input && strcmp(args->input, "-") ? args->input : "stdin";
}

/* CDC_INPUT_STREAM: raw bytes in chunks, then the end mark; the first error stops. */
static int decode_stream(const cdc_decode_args_t *args, const cdc_format_factory_t *fmt,
                         cdc_deser_t *deser, const cdc_type_t *schema, FILE *in, FILE *out,
                         FILE *errout, uint64_t *nrows)
{
    /* 64 KiB pieces: the rows decoded from one piece (values in the batch arena) are printed
     * while still in the cache; 1 MiB pieces made about 5 MB of rows per batch and printing
     * them missed the cache (the mysql-binlog bench: 79 ms -> 68 ms for 1M rows) */
    enum { CHUNK = 1 << 16 };
    char *chunk = cdc_xmalloc(CHUNK);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    cdc_buf_t text = {0};
    int status = 0;
    for (bool end = false; !end;) {
        size_t n = fread(chunk, 1, CHUNK, in);
        end = n == 0;
        cdc_buf_clear(&deser->errmsg);
        int rc = deser->ops->decode(deser, end ? NULL : chunk, n, &batch);
        *nrows += batch.n;
        print_rows(args, deser, schema, &batch, 0, rc, &text);
        cdc_batch_reset(&batch);
        flush_text(&text, out, rc == CDC_DECODE_ERROR);
        if (rc == CDC_DECODE_ERROR) {
            fflush(out);
            fprintf(errout, "cdcflow: error: cannot decode %s: %s\n", input_name(args),
                    cdc_buf_cstr(&deser->errmsg));
            fprintf(errout, "CONTEXT: format \"%s\", %s\n", fmt->identifier, input_name(args));
            status = 1;
            break;
        }
    }
    flush_text(&text, out, true);
    cdc_buf_free(&text);
    cdc_batch_free(&batch);
    free(chunk);
    return status;
}

/* CDC_INPUT_LINES and CDC_INPUT_HEX_LINES: one message per line; a bad one is reported. */
static int decode_lines(const cdc_decode_args_t *args, const cdc_format_factory_t *fmt,
                        cdc_deser_t *deser, const cdc_type_t *schema, FILE *in, FILE *out,
                        FILE *errout, uint64_t *nrows, uint64_t *nmsgs)
{
    line_reader_t rd = {.fp = in, .cap = 1 << 20};
    rd.buf = cdc_xmalloc(rd.cap);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    cdc_buf_t text = {0}, bytes = {0};
    bool hex = fmt->decode_input == CDC_INPUT_HEX_LINES;
    int status = 0;
    uint64_t lineno = 0;
    size_t len;
    const char *line;
    while ((line = next_line(&rd, &len)) != NULL) {
        lineno++;
        if (len && line[len - 1] == '\r')
            len--;
        uint32_t before = batch.n;
        cdc_buf_clear(&deser->errmsg);
        const char *msg = line;
        size_t mlen = len;
        long bad = -1;
        if (hex) {
            bad = hex_decode(line, len, &bytes);
            msg = bytes.data;
            mlen = bytes.len;
        }
        int rc;
        if (bad >= 0) {
            cdc_buf_printf(&deser->errmsg, "not hex at column %ld", bad);
            rc = CDC_DECODE_ERROR;
        } else {
            rc = deser->ops->decode(deser, mlen ? msg : NULL, mlen, &batch);
        }
        if (rc != CDC_DECODE_OK && rc != CDC_DECODE_SCHEMA) {
            cdc_batch_truncate(&batch, batch.n - before);
            if (rc == CDC_DECODE_ERROR) {
                status = 1;
                flush_text(&text, out, true);
                fflush(out);
                fprintf(errout, "cdcflow: error: cannot decode line %llu: %s\n",
                        (unsigned long long)lineno, cdc_buf_cstr(&deser->errmsg));
                fputs("DETAIL: message: ", errout);
                put_shown(errout, line, len > 200 ? 200 : len);
                fprintf(errout, "%s\n", len > 200 ? "..." : "");
                fprintf(errout, "CONTEXT: format \"%s\", %s line %llu\n", fmt->identifier,
                        input_name(args), (unsigned long long)lineno);
            }
        }
        *nrows += batch.n - before;
        print_rows(args, deser, schema, &batch, before, rc, &text);
        cdc_batch_reset(&batch);
        flush_text(&text, out, false);
    }
    flush_text(&text, out, true);
    *nmsgs = lineno;
    free(rd.buf);
    cdc_buf_free(&text);
    cdc_buf_free(&bytes);
    cdc_batch_free(&batch);
    return status;
}

int cdc_decode_run(const cdc_decode_args_t *args, FILE *out, FILE *errout)
{
    cdc_error_t *err = NULL;
    const cdc_format_factory_t *fmt = cdc_registry_format(args->format);
    if (!fmt) {
        err = cdc_registry_unknown("format", args->format);
        print_error(errout, err);
        cdc_error_destroy(err);
        return 2;
    }
    if (!fmt->deser_new) {
        fprintf(errout, "cdcflow: error: format \"%s\" cannot decode\n", fmt->identifier);
        return 2;
    }
    char *label = cdc_strdup_printf("format \"%s\"", fmt->identifier);
    /* a binary format that names positions by file learns the input's base name */
    cdc_kv_t opts = {0};
    for (int i = 0; i < args->options.n; i++)
        cdc_kv_set(&opts, args->options.keys[i], args->options.values[i]);
    bool declares_file = false;
    for (int i = 0; fmt->options && fmt->options[i].key; i++)
        declares_file |= strcmp(fmt->options[i].key, "file-name") == 0;
    if (declares_file && !cdc_kv_get(&opts, "file-name") && args->input &&
        strcmp(args->input, "-") != 0) {
        const char *slash = strrchr(args->input, '/');
        cdc_kv_set(&opts, "file-name", slash ? slash + 1 : args->input);
    }
    cdc_option_scope_t scope = {
        .defs = fmt->options, .prefix = "", .label = label, .check = fmt->check};
    cdc_config_t *cfg = NULL;
    cdc_options_validate(&scope, 1, &opts, &cfg, &err);
    cdc_kv_free(&opts);
    free(label);
    if (!cfg) {
        print_error(errout, err);
        cdc_error_destroy(err);
        return 2;
    }
    cdc_type_t *schema = NULL;
    if (args->schema) {
        schema = cdc_schema_parse(args->schema, &err);
        if (!schema) {
            print_error(errout, err);
            cdc_error_destroy(err);
            cdc_config_destroy(cfg);
            return 2;
        }
    } else if (!fmt->self_describing) {
        fprintf(errout,
                "cdcflow: error: format \"%s\" needs --schema\n"
                "HINT: give the columns, e.g. --schema 'id INT NOT NULL, name STRING'\n",
                fmt->identifier);
        cdc_config_destroy(cfg);
        return 2;
    }
    cdc_format_ctx_t ctx = {.cfg = cfg, .row_type = schema, .table = "decode"};
    cdc_deser_t *deser = NULL;
    if (fmt->deser_new(&ctx, &deser, &err) < 0) {
        print_error(errout, err);
        cdc_error_destroy(err);
        cdc_type_destroy(schema);
        cdc_config_destroy(cfg);
        return 2;
    }
    FILE *in = stdin;
    if (args->input && strcmp(args->input, "-") != 0) {
        in = fopen(args->input, "rb");
        if (!in) {
            fprintf(errout, "cdcflow: error: could not open \"%s\": %s\n", args->input,
                    strerror(errno));
            deser->ops->destroy(deser);
            cdc_type_destroy(schema);
            cdc_config_destroy(cfg);
            return 2;
        }
    }
    uint64_t nrows = 0, nmsgs = 0;
    int status = fmt->decode_input == CDC_INPUT_STREAM
                     ? decode_stream(args, fmt, deser, schema, in, out, errout, &nrows)
                     : decode_lines(args, fmt, deser, schema, in, out, errout, &nrows, &nmsgs);
    if (args->count_only) {
        if (fmt->decode_input == CDC_INPUT_STREAM)
            fprintf(out, "%llu rows\n", (unsigned long long)nrows);
        else
            fprintf(out, "%llu rows from %llu messages\n", (unsigned long long)nrows,
                    (unsigned long long)nmsgs);
    }
    fflush(out);
    if (deser->skipped)
        fprintf(errout,
                "cdcflow: skipped %llu message(s) that could not be decoded "
                "(ignore-parse-errors)\n",
                (unsigned long long)deser->skipped);
    if (in != stdin)
        fclose(in);
    deser->ops->destroy(deser);
    cdc_type_destroy(schema);
    cdc_config_destroy(cfg);
    return status;
}

/* ---- describe ---------------------------------------------------------------- */

static void describe_options(FILE *out, const cdc_option_def_t *defs, const char *prefix)
{
    if (!defs || !defs[0].key) {
        fprintf(out, "  (no options)\n");
        return;
    }
    for (int i = 0; defs[i].key; i++) {
        const cdc_option_def_t *d = &defs[i];
        char type[128];
        if (d->type == CDC_OPT_ENUM) {
            cdc_buf_t b = {0};
            for (int k = 0; d->enum_values[k]; k++)
                cdc_buf_printf(&b, "%s%s", k ? "|" : "", d->enum_values[k]);
            snprintf(type, sizeof(type), "enum(%s)", cdc_buf_cstr(&b));
            cdc_buf_free(&b);
        } else {
            snprintf(type, sizeof(type), "%s", cdc_opt_type_name(d->type));
        }
        fprintf(out, "  %s%s%s\n", prefix, d->key, d->type == CDC_OPT_PREFIX ? "*" : "");
        fprintf(out, "      type: %s", type);
        if (d->flags & CDC_OPT_REQUIRED)
            fprintf(out, ", required");
        if (d->default_value)
            fprintf(out, ", default: %s",
                    (d->flags & CDC_OPT_SECRET) ? "(secret)" : d->default_value);
        if (d->min < d->max)
            fprintf(out, ", range: [%lld, %lld]", (long long)d->min, (long long)d->max);
        if (d->flags & CDC_OPT_SECRET)
            fprintf(out, ", secret");
        if (d->flags & CDC_OPT_DEPRECATED)
            fprintf(out, ", deprecated");
        fprintf(out, "\n      %s\n", d->description);
    }
}

static void describe_metadata(FILE *out, const cdc_metadata_def_t *md, const char *prefix)
{
    if (!md || !md[0].key)
        return;
    fprintf(out, "metadata (readable as METADATA FROM '%skey'; R/W: a sink writes it):\n", prefix);
    for (int i = 0; md[i].key; i++)
        fprintf(out, "  %-22s %-24s %-3s %s\n", md[i].key, md[i].type, md[i].writable ? "R/W" : "R",
                md[i].description);
}

int cdc_describe(const char *name, FILE *out, FILE *errout)
{
    const cdc_format_factory_t *const *fmts = cdc_registry_formats();
    const cdc_connector_factory_t *const *conns = cdc_registry_connectors();
    if (!name) {
        fprintf(out, "connectors:\n");
        for (int i = 0; conns[i]; i++)
            fprintf(out, "  %-16s %-12s %s\n", conns[i]->identifier,
                    conns[i]->source_new && conns[i]->sink_new ? "source+sink"
                    : conns[i]->source_new                     ? "source"
                                                               : "sink",
                    conns[i]->description);
        fprintf(out, "formats:\n");
        for (int i = 0; fmts[i]; i++)
            fprintf(out, "  %-16s %-12s %s\n", fmts[i]->identifier,
                    fmts[i]->deser_new && fmts[i]->ser_new ? "decode+encode"
                    : fmts[i]->deser_new                   ? "decode"
                                                           : "encode",
                    fmts[i]->description);
        fprintf(out, "\n\"cdcflow describe NAME\" prints the options of one of them.\n");
        return 0;
    }
    bool found = false;
    const cdc_connector_factory_t *conn = cdc_registry_connector(name);
    if (conn) {
        found = true;
        fprintf(out, "connector \"%s\": %s\n", conn->identifier, conn->description);
        fprintf(out, "kind: %s\n",
                conn->source_new && conn->sink_new ? "source and sink"
                : conn->source_new                 ? "source"
                                                   : "sink");
        fprintf(out, "options ('connector' = '%s'):\n", conn->identifier);
        describe_options(out, conn->options, "");
        describe_metadata(out, conn->metadata, "");
    }
    const cdc_format_factory_t *fmt = cdc_registry_format(name);
    if (fmt) {
        if (found)
            fprintf(out, "\n");
        found = true;
        fprintf(out, "format \"%s\": %s\n", fmt->identifier, fmt->description);
        cdc_kv_t none = {0};
        cdc_option_def_t *relaxed = NULL;
        int n = 0;
        while (fmt->options && fmt->options[n].key)
            n++;
        relaxed = cdc_xcalloc((size_t)n + 1, sizeof(*relaxed));
        for (int i = 0; i < n; i++) {
            relaxed[i] = fmt->options[i];
            relaxed[i].flags &= ~CDC_OPT_REQUIRED;
        }
        cdc_config_t *cfg = cdc_config_new(relaxed, "format", &none, NULL);
        char m1[16], m2[16];
        fprintf(
            out, "changelog mode with default options: decode %s, encode %s\n",
            fmt->deser_new
                ? cdc_changelog_mode_str(
                      fmt->decode_mode && cfg ? fmt->decode_mode(cfg) : CDC_MODE_INSERT_ONLY, m1)
                : "(none)",
            fmt->ser_new
                ? cdc_changelog_mode_str(
                      fmt->encode_mode && cfg ? fmt->encode_mode(cfg) : CDC_MODE_INSERT_ONLY, m2)
                : "(none)");
        cdc_config_destroy(cfg);
        free(relaxed);
        fprintf(out,
                "options (in a table's WITH clause, prefixed \"%s.\"; under kafka "
                "\"value.%s.\" or \"key.%s.\"):\n",
                fmt->identifier, fmt->identifier, fmt->identifier);
        describe_options(out, fmt->options, "");
        describe_metadata(out, fmt->metadata, "");
    }
    if (!found) {
        const char *names[128];
        int n = 0;
        for (int i = 0; conns[i] && n < 128; i++)
            names[n++] = conns[i]->identifier;
        for (int i = 0; fmts[i] && n < 128; i++)
            names[n++] = fmts[i]->identifier;
        const char *sug = cdc_closest(name, names, n);
        fprintf(errout, "cdcflow: error: no connector or format named \"%s\"\n", name);
        if (sug)
            fprintf(errout, "HINT: did you mean \"%s\"?\n", sug);
        else
            fprintf(errout, "HINT: \"cdcflow describe\" lists them all.\n");
        return 2;
    }
    return 0;
}
