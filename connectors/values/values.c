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
 *
 * This file: the options, the source and the factory; values_text.c parses
 * the options' text, values_lookup.c does the lookups, values_sink.c is the
 * sink (values_int.h, what they share).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* nanosleep, strcasecmp */
#endif

#include "values_int.h"

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

/* Cross-option rules that do not need the table's schema. */
void values_check(const cdc_config_t *cfg, cdc_buf_t *problems)
{
    cdc_changelog_mode_t mode;
    values_parse_mode("changelog-mode", cdc_config_str(cfg, "changelog-mode"), &mode, problems);
    const char *enforced = cdc_config_str(cfg, "sink-changelog-mode-enforced");
    if (enforced)
        values_parse_mode("sink-changelog-mode-enforced", enforced, &mode, problems);
    const char *pl = cdc_config_str(cfg, "partition-list");
    if (pl) {
        cdc_kv_t *parts = NULL;
        int n = 0;
        if (values_parse_partition_list(pl, &parts, &n, problems) == 0)
            values_parts_free(parts, n);
    }
    const char *rm = cdc_config_str(cfg, "readable-metadata");
    if (rm) {
        meta_decl_t m;
        if (values_parse_readable_metadata(rm, &m, problems) == 0)
            values_meta_decl_free(&m);
    }
    if (cdc_config_str(cfg, "metadata-data") && !rm)
        cdc_buf_puts(problems, "option \"metadata-data\": needs option \"readable-metadata\"\n");
    cdc_lookup_check(cfg, problems);
}

/* ---- the source ---------------------------------------------------------------------------- */

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
        if (t->root == CDC_T_ARRAY || cdc_type_is_map_like(t) || t->root == CDC_T_ROW)
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
    values_meta_decl_free(&src->meta);
    cdc_arena_free(&src->arena);
    free(src);
}

static const cdc_source_ops_t values_source_ops = {
    .changelog_mode = vs_changelog_mode,
    .list_partitions = vs_list_partitions,
    .apply_partitions = vs_apply_partitions,
    .apply_filters = vs_apply_filters,
    .apply_projection = vs_apply_projection,
    .apply_limit = vs_apply_limit,
    .open_reader = vs_open_reader,
    .open_lookup = values_source_open_lookup,
    .apply_metadata = vs_apply_metadata,
    .report_row_count = vs_report_row_count,
    .describe = vs_describe,
    .destroy = vs_destroy,
};

int values_option_error(cdc_buf_t *problems, cdc_error_t **err)
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
            int rc =
                values_convert(t, cdc_buf_cstr(&tok), tok.len, false, &src->arena, &pt->vals[k]);
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
        values_option_error(&problems, err);
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
    values_parse_mode("changelog-mode", cdc_config_str(cfg, "changelog-mode"), &src->mode, NULL);
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
    values_parse_rows(&p, &src->rows, &src->nrows);

    const char *pl = cdc_config_str(cfg, "partition-list");
    cdc_kv_t *kvs = NULL;
    int nkvs = 0;
    if (pl)
        values_parse_partition_list(pl, &kvs, &nkvs, &problems);
    setup_partitions(src, kvs, nkvs, &problems);

    const char *ff = cdc_config_str(cfg, "filterable-fields");
    for (const char *q = ff; q && *q;) {
        const char *semi = strchr(q, ';');
        const char *b = q, *e = semi ? semi : q + strlen(q);
        values_trim(&b, &e);
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
        values_parse_readable_metadata(rm, &src->meta, &problems);
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
        if (values_parse_rows(&mp, &src->meta_rows, &nmeta) == 0 && nmeta != src->nrows) {
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
        values_option_error(&problems, err);
        cdc_buf_free(&problems);
        vs_destroy(&src->base);
        return -1;
    }
    cdc_buf_free(&problems);
    rebuild_produced(src);
    *out = &src->base;
    return 0;
}

/* ---- factory ------------------------------------------------------------------------------- */

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
