/*
 * jdbc_lookup.c — the "jdbc" connector as a source: a bounded scan (Flink's
 * JdbcRowDataInputFormat) and a LookupTableSource.
 *
 * Scan: the table read by `SELECT c1, ... FROM t`, or with scan.partition.*
 * cut into ranges of an integer column, one `... WHERE col BETWEEN lo AND
 * hi` per range (bounds as Flink's JdbcNumericBetweenParametersProvider:
 * ranges as even as the count allows, the first ones one larger), dealt to
 * the splits in turn (split i reads ranges i, i + n, ...). A reader runs one
 * range's query into its own batch and hands its rows out max_rows at a time;
 * it ends after its last range.
 *
 * Lookup (Flink's
 * JdbcRowDataLookupFunction): `JOIN dim FOR SYSTEM_TIME AS OF s.proc_time AS d
 * ON s.k = d.k` runs, per key not in the runtime's cache, one prepared
 *   SELECT "c1", "c2", ... FROM "table" WHERE "k1" = ? AND "k2" = ?
 * through the url's dialect (SQLite, PostgreSQL, MySQL/MariaDB), and turns
 * the result cells back into values of the declared column types.
 *
 * Each split has its own handle: its own connection and statement. A failed
 * lookup drops both, so the next attempt (the runtime retries per
 * lookup.max-retries, sleeping between attempts) connects again: a server
 * restart costs a retry, not the job. A value the declared type cannot hold
 * fails the job at once (retrying cannot fix it), naming the column and the
 * text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jdbc_int.h"

typedef struct jdbc_lookup_source_s {
    cdc_source_t base;
    const jdbc_dialect_t *dialect;
    char *qualified; /* the catalog table, for messages */
    char *target;    /* the url after the dialect's prefix */
    char *username, *password;
    char *table_name;
    cdc_type_t *schema;
    int part_col; /* scan.partition.column (index into schema), -1 = not partitioned */
    int64_t part_num, part_lo, part_hi;
} jdbc_lookup_source_t;

typedef struct jdbc_lookup_s {
    cdc_lookup_t base;
    jdbc_lookup_source_t *src;
    int *keys; /* physical columns */
    int nkeys;
    char *sql;
    jdbc_param_t *params;
    jdbc_conn_t *conn; /* NULL until connected (again) */
    jdbc_stmt_t *stmt;
    cdc_batch_t *out;      /* of the lookup running */
    char convert_err[256]; /* set by on_row when a cell does not convert */
} jdbc_lookup_t;

/* ---- cells to values ------------------------------------------------------------------- */

/* One cell as a value of type t (strings copied into arena). Returns 0 or -1. */
static int cell_value(const jdbc_cell_t *cell, const cdc_type_t *t, cdc_arena_t *arena,
                      cdc_value_t *out)
{
    memset(out, 0, sizeof(*out));
    if (cell->null) {
        out->flags = CDC_V_NULL;
        return 0;
    }
    return cdc_value_from_text(t, cell->ptr, cell->len, CDC_TEXT_JDBC | CDC_TEXT_COPY, arena, out,
                               NULL) == CDC_TEXT_OK
               ? 0
               : -1;
}

static int on_row(void *ctx, const jdbc_cell_t *cells, int ncells)
{
    jdbc_lookup_t *lk = ctx;
    const cdc_type_t *schema = lk->src->schema;
    if (ncells != schema->nchildren) {
        snprintf(lk->convert_err, sizeof(lk->convert_err), "the query returned %d columns, not %d",
                 ncells, schema->nchildren);
        return -1;
    }
    cdc_row_t *row = cdc_batch_add(lk->out, CDC_INSERT, (uint32_t)ncells);
    for (int c = 0; c < ncells; c++) {
        if (cell_value(&cells[c], schema->children[c], &lk->out->arena, &row->values[c]) < 0) {
            char *type = cdc_type_to_string(schema->children[c]);
            snprintf(lk->convert_err, sizeof(lk->convert_err),
                     "column \"%s\" holds '%.*s', not a value of type %s", schema->names[c],
                     (int)(cells[c].len > 64 ? 64 : cells[c].len), cells[c].ptr, type);
            free(type);
            return -1;
        }
    }
    return 0;
}

/* ---- the lookup handle ----------------------------------------------------------------- */

static void drop_connection(jdbc_lookup_t *lk)
{
    const jdbc_dialect_t *d = lk->src->dialect;
    d->finalize(lk->stmt);
    d->disconnect(lk->conn);
    lk->stmt = NULL;
    lk->conn = NULL;
}

static int remote_error(jdbc_lookup_t *lk, const char *what, cdc_error_t **err)
{
    const jdbc_dialect_t *d = lk->src->dialect;
    cdc_error_t *e = cdc_error_new(CDC_ERR_REMOTE, "%s of table \"%s\" failed (%s)", what,
                                   lk->src->table_name, d->name);
    cdc_error_set_detail(e, "%s", d->errmsg(lk->conn));
    e->retriable = true;
    drop_connection(lk);
    *err = e;
    return -1;
}

static int ensure_connected(jdbc_lookup_t *lk, cdc_error_t **err)
{
    const jdbc_dialect_t *d = lk->src->dialect;
    if (lk->stmt)
        return 0;
    if (!lk->conn &&
        d->connect(lk->src->target, lk->src->username, lk->src->password, &lk->conn, err) < 0) {
        lk->conn = NULL;
        if (*err)
            (*err)->retriable = true;
        return -1;
    }
    lk->stmt = d->prepare(lk->conn, lk->sql);
    if (!lk->stmt)
        return remote_error(lk, "preparing the lookup query", err);
    return 0;
}

/* Runs the bound statement, its rows appended to out; 0, or -1 with *err (what: the query). */
static int run_query(jdbc_lookup_t *lk, cdc_batch_t *out, const char *what, cdc_error_t **err)
{
    lk->out = out;
    lk->convert_err[0] = '\0';
    int rc = lk->src->dialect->query(lk->stmt, on_row, lk);
    lk->out = NULL;
    if (rc == 0)
        return 0;
    if (lk->convert_err[0]) {
        cdc_error_t *e = cdc_error_new(CDC_ERR_PARSE, "a row of table \"%s\" cannot be read: %s",
                                       lk->src->table_name, lk->convert_err);
        cdc_error_set_hint(e, "declare the column with a type that holds the stored values");
        e->fatal = true;
        *err = e;
        return -1;
    }
    return remote_error(lk, what, err);
}

static int jl_lookup(cdc_lookup_t *base, const cdc_value_t *keys, cdc_batch_t *out,
                     cdc_error_t **err)
{
    jdbc_lookup_t *lk = (jdbc_lookup_t *)base;
    const jdbc_dialect_t *d = lk->src->dialect;
    if (ensure_connected(lk, err) < 0)
        return -1;
    for (int k = 0; k < lk->nkeys; k++) {
        jdbc_to_param(&lk->params[k], &keys[k], lk->src->schema->children[lk->keys[k]]);
        if (d->bind(lk->stmt, k, &lk->params[k]) < 0)
            return remote_error(lk, "binding a lookup key", err);
    }
    return run_query(lk, out, "the lookup query", err);
}

static void jl_close(cdc_lookup_t *base)
{
    jdbc_lookup_t *lk = (jdbc_lookup_t *)base;
    if (!lk)
        return;
    drop_connection(lk);
    free(lk->keys);
    free(lk->params);
    free(lk->sql);
    free(lk);
}

static const cdc_lookup_ops_t jdbc_lookup_ops = {
    .lookup = jl_lookup,
    .close = jl_close,
};

/* SELECT every column FROM the table WHERE each key column = a parameter. */
static void lookup_sql(cdc_buf_t *out, const jdbc_lookup_source_t *src, const int *keys, int nkeys)
{
    const jdbc_dialect_t *d = src->dialect;
    cdc_buf_puts(out, "SELECT ");
    for (int c = 0; c < src->schema->nchildren; c++) {
        if (c)
            cdc_buf_puts(out, ", ");
        d->quote_ident(out, src->schema->names[c]);
    }
    cdc_buf_puts(out, " FROM ");
    d->quote_table(out, src->table_name);
    for (int k = 0; k < nkeys; k++) {
        cdc_buf_puts(out, k ? " AND " : " WHERE ");
        d->quote_ident(out, src->schema->names[keys[k]]);
        if (d->dollar_params)
            cdc_buf_printf(out, " = $%d", k + 1);
        else
            cdc_buf_puts(out, " = ?");
    }
}

static int js_open_lookup(cdc_source_t *base, const int *key_fields, int nkeys, cdc_lookup_t **out,
                          cdc_error_t **err)
{
    (void)err;
    jdbc_lookup_source_t *src = (jdbc_lookup_source_t *)base;
    jdbc_lookup_t *lk = cdc_xcalloc(1, sizeof(*lk));
    lk->base.ops = &jdbc_lookup_ops;
    lk->src = src;
    lk->nkeys = nkeys;
    lk->keys = cdc_xcalloc((size_t)nkeys + 1, sizeof(int));
    memcpy(lk->keys, key_fields, sizeof(int) * (size_t)nkeys);
    lk->params = cdc_xcalloc((size_t)nkeys + 1, sizeof(jdbc_param_t));
    cdc_buf_t sql = {0};
    lookup_sql(&sql, src, key_fields, nkeys);
    lk->sql = cdc_xstrdup(cdc_buf_cstr(&sql));
    cdc_buf_free(&sql);
    *out = &lk->base; /* connects at the first lookup (and again after a failure) */
    return 0;
}

/* ---- the scan ----------------------------------------------------------------------------- */

typedef struct jdbc_scan_s {
    cdc_reader_t base;
    jdbc_lookup_t q; /* the connection, statement and row callback (no key: params bounds) */
    int64_t next;    /* the next range to read (this split's: next % nsplits == split) */
    int64_t nranges; /* ranges in all */
    int nsplits;
    cdc_batch_t part; /* the rows of the range read last */
    uint32_t at;      /* the next of them to hand out */
} jdbc_scan_t;

/* Range r of the partitioned scan: [lo, hi] (Flink's JdbcNumericBetweenParametersProvider). */
static void scan_range(const jdbc_lookup_source_t *src, int64_t nranges, int64_t r, int64_t *lo,
                       int64_t *hi)
{
    __int128 count = (__int128)src->part_hi - src->part_lo + 1;
    __int128 base = count / nranges, extra = count % nranges;
    __int128 start = src->part_lo + base * r + (r < extra ? r : extra);
    *lo = (int64_t)start;
    *hi = (int64_t)(start + base + (r < extra ? 1 : 0) - 1);
}

/* Reads range r (or the whole table) into s->part; 0, or -1 with *err. */
static int scan_read(jdbc_scan_t *s, int64_t r, cdc_error_t **err)
{
    jdbc_lookup_t *lk = &s->q;
    const jdbc_dialect_t *d = lk->src->dialect;
    cdc_batch_reset(&s->part);
    s->at = 0;
    if (ensure_connected(lk, err) < 0)
        return -1;
    if (lk->src->part_col >= 0) {
        int64_t bound[2];
        scan_range(lk->src, s->nranges, r, &bound[0], &bound[1]);
        for (int k = 0; k < 2; k++) {
            cdc_value_t v = {.v.i = bound[k]};
            jdbc_to_param(&lk->params[k], &v, lk->src->schema->children[lk->src->part_col]);
            if (d->bind(lk->stmt, k, &lk->params[k]) < 0)
                return remote_error(lk, "binding a scan range", err);
        }
    }
    if (run_query(lk, &s->part, "the scan query", err) < 0) {
        (*err)->retriable = false; /* (a range's rows are read once: no retry mid-scan) */
        return -1;
    }
    return 0;
}

static int jscan_poll(cdc_reader_t *base, cdc_batch_t *out, uint32_t max_rows, cdc_error_t **err)
{
    jdbc_scan_t *s = (jdbc_scan_t *)base;
    while (s->at == s->part.n) {
        if (s->next >= s->nranges)
            return CDC_POLL_END;
        if (scan_read(s, s->next, err) < 0) {
            cdc_error_add_context(*err, "table \"%s\"", s->q.src->qualified);
            return CDC_POLL_ERROR;
        }
        s->next += s->nsplits;
    }
    const cdc_type_t *schema = s->q.src->schema;
    for (uint32_t n = 0; n < max_rows && s->at < s->part.n; n++, s->at++) {
        const cdc_row_t *in = &s->part.rows[s->at];
        cdc_row_t *row = cdc_batch_add(out, CDC_INSERT, in->arity);
        for (uint32_t c = 0; c < in->arity; c++)
            cdc_value_keep(&out->arena, schema->children[c], &in->values[c], &row->values[c]);
    }
    return CDC_POLL_OK;
}

static void jscan_close(cdc_reader_t *base)
{
    jdbc_scan_t *s = (jdbc_scan_t *)base;
    if (!s)
        return;
    drop_connection(&s->q);
    free(s->q.params);
    free(s->q.sql);
    cdc_batch_free(&s->part);
    free(s);
}

static const cdc_reader_ops_t jdbc_scan_ops = {
    .poll = jscan_poll,
    .close = jscan_close,
};

static int js_open_reader(cdc_source_t *base, int split, int nsplits, cdc_reader_t **out,
                          cdc_error_t **err)
{
    (void)err;
    jdbc_lookup_source_t *src = (jdbc_lookup_source_t *)base;
    jdbc_scan_t *s = cdc_xcalloc(1, sizeof(*s));
    s->base.ops = &jdbc_scan_ops;
    s->q.src = src;
    s->q.params = cdc_xcalloc(2, sizeof(jdbc_param_t));
    cdc_batch_init(&s->part);
    s->nsplits = nsplits > 0 ? nsplits : 1;
    s->next = split;
    s->nranges = 1;
    cdc_buf_t sql = {0};
    lookup_sql(&sql, src, NULL, 0);
    if (src->part_col >= 0) {
        __int128 count = (__int128)src->part_hi - src->part_lo + 1;
        s->nranges = count < src->part_num ? (int64_t)count : src->part_num;
        const jdbc_dialect_t *d = src->dialect;
        cdc_buf_puts(&sql, " WHERE ");
        d->quote_ident(&sql, src->schema->names[src->part_col]);
        cdc_buf_puts(&sql, d->dollar_params ? " BETWEEN $1 AND $2" : " BETWEEN ? AND ?");
    }
    s->q.sql = cdc_xstrdup(cdc_buf_cstr(&sql));
    cdc_buf_free(&sql);
    *out = &s->base; /* connects at the first poll */
    return 0;
}

/* ---- the source ------------------------------------------------------------------------- */

static cdc_changelog_mode_t js_changelog_mode(cdc_source_t *base)
{
    (void)base;
    return CDC_MODE_INSERT_ONLY;
}

static void js_describe(cdc_source_t *base, cdc_buf_t *out)
{
    jdbc_lookup_source_t *src = (jdbc_lookup_source_t *)base;
    cdc_buf_printf(out, "jdbc(%s, table-name=%s", src->dialect->name, src->table_name);
    if (src->part_col >= 0)
        cdc_buf_printf(out,
                       ", scan.partition.column=%s, scan.partition.num=%lld, bounds=[%lld, %lld]",
                       src->schema->names[src->part_col], (long long)src->part_num,
                       (long long)src->part_lo, (long long)src->part_hi);
    cdc_buf_putc(out, ')');
}

static void js_destroy(cdc_source_t *base)
{
    jdbc_lookup_source_t *src = (jdbc_lookup_source_t *)base;
    if (!src)
        return;
    free(src->qualified);
    free(src->target);
    free(src->username);
    if (src->password) {
        memset(src->password, 0, strlen(src->password));
        free(src->password);
    }
    free(src->table_name);
    cdc_type_destroy(src->schema);
    free(src);
}

static const cdc_source_ops_t jdbc_lookup_source_ops = {
    .changelog_mode = js_changelog_mode,
    .open_reader = js_open_reader,
    .open_lookup = js_open_lookup,
    .describe = js_describe,
    .destroy = js_destroy,
};

int jdbc_lookup_source_new(const cdc_table_ctx_t *ctx, cdc_source_t **out, cdc_error_t **err)
{
    const char *url = cdc_config_str(ctx->cfg, "url");
    const jdbc_dialect_t *d = url ? jdbc_dialect_for(url) : NULL;
    if (!d)
        return cdc_error_set(err, CDC_ERR_OPTION, "option \"url\": no dialect for \"%s\"",
                             url ? url : "");
    if (!d->query)
        return cdc_error_set(err, CDC_ERR_PLAN,
                             "the %s dialect of the jdbc connector cannot "
                             "look rows up",
                             d->name);
    for (int c = 0; c < ctx->schema->nchildren; c++) {
        cdc_type_root_t r = ctx->schema->children[c]->root;
        if (r == CDC_T_ARRAY || r == CDC_T_MAP || r == CDC_T_MULTISET || r == CDC_T_ROW)
            return cdc_error_set(err, CDC_ERR_PLAN,
                                 "column \"%s\" of a jdbc lookup table cannot be read: ARRAY, "
                                 "MAP, MULTISET and ROW columns are not supported",
                                 ctx->schema->names[c]);
    }
    jdbc_lookup_source_t *src = cdc_xcalloc(1, sizeof(*src));
    src->base.ops = &jdbc_lookup_source_ops;
    src->dialect = d;
    src->qualified = cdc_xstrdup(ctx->name ? ctx->name : "");
    src->target = cdc_xstrdup(url + strlen(d->url_prefix));
    const char *u = cdc_config_str(ctx->cfg, "username");
    const char *p = cdc_config_str(ctx->cfg, "password");
    src->username = u ? cdc_xstrdup(u) : NULL;
    src->password = p ? cdc_xstrdup(p) : NULL;
    src->table_name = cdc_xstrdup(cdc_config_str(ctx->cfg, "table-name"));
    src->schema = cdc_type_copy(ctx->schema);
    src->base.produced = src->schema;
    src->part_col = -1;
    const char *pc = cdc_config_str(ctx->cfg, "scan.partition.column");
    if (pc && cdc_config_isset(ctx->cfg, "scan.partition.num")) { /* (jdbc_check: all four) */
        src->part_col = cdc_type_field_index(src->schema, pc);
        if (src->part_col < 0 || !cdc_type_is_integer(src->schema->children[src->part_col])) {
            cdc_error_set(
                err, CDC_ERR_OPTION, "option \"scan.partition.column\" = '%s': %s of table \"%s\"",
                pc, src->part_col < 0 ? "not a column" : "not an integer column", src->qualified);
            cdc_error_set_hint(*err, "name a TINYINT, SMALLINT, INT or BIGINT column of the "
                                     "table");
            js_destroy(&src->base);
            return -1;
        }
        src->part_num = cdc_config_int(ctx->cfg, "scan.partition.num");
        src->part_lo = cdc_config_int(ctx->cfg, "scan.partition.lower-bound");
        src->part_hi = cdc_config_int(ctx->cfg, "scan.partition.upper-bound");
    }
    *out = &src->base;
    return 0;
}
