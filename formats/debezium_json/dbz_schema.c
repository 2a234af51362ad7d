/*
 * dbz_schema.c — schema changes seen in debezium-json messages with
 * schema-include: the Kafka Connect `schema` block of each message describes
 * the table's columns (the fields of its `after` struct, else `before`). When
 * it differs from the last message's, the decoder reports a change before the
 * message's row: before = the last schema's columns, after = this one's, the
 * items from cdc_schema_change_diff (Connect schemas name no renames: a
 * rename is a drop and an add).
 *
 * The hot path compares the raw schema text with the last one (no allocation);
 * only a different text is parsed, with a small walker over the JSON events.
 */
#include <stdio.h>
#include <stdlib.h>

#include "dbz_int.h"

#define SC_DEPTH 8

typedef struct sc_walk {
    int depth;
    char key[SC_DEPTH][40];
    bool ok[SC_DEPTH]; /* the container at this depth is on the path to a column */
    char envf[16];     /* the envelope field's "field" ("before", "after", ...) */
    cdc_type_t *cols;  /* the envelope field's columns */
    cdc_type_t *after, *before;
    char col[128], type[16], lname[64];
    bool optional;
    long scale, prec;
} sc_walk_t;

/* The Flink type of a Connect schema node (its type, logical name and parameters). */
static cdc_type_t *connect_type(const sc_walk_t *w)
{
    static const struct {
        const char *name, *sql;
    } logical[] = {{"io.debezium.time.Date", "DATE"},
                   {"org.apache.kafka.connect.data.Date", "DATE"},
                   {"io.debezium.time.Time", "TIME(3)"},
                   {"org.apache.kafka.connect.data.Time", "TIME(3)"},
                   {"io.debezium.time.MicroTime", "TIME(6)"},
                   {"io.debezium.time.NanoTime", "TIME(9)"},
                   {"io.debezium.time.Timestamp", "TIMESTAMP(3)"},
                   {"org.apache.kafka.connect.data.Timestamp", "TIMESTAMP(3)"},
                   {"io.debezium.time.MicroTimestamp", "TIMESTAMP(6)"},
                   {"io.debezium.time.NanoTimestamp", "TIMESTAMP(9)"},
                   {"io.debezium.time.ZonedTimestamp", "TIMESTAMP_LTZ(6)"},
                   {"io.debezium.data.VariableScaleDecimal", "DECIMAL(38, 18)"}};
    static const struct {
        const char *type, *sql;
    } plain[] = {{"int8", "TINYINT"},    {"int16", "SMALLINT"}, {"int32", "INT"},
                 {"int64", "BIGINT"},    {"float32", "FLOAT"},  {"float64", "DOUBLE"},
                 {"boolean", "BOOLEAN"}, {"bytes", "BYTES"}};
    char sql[48] = "STRING"; /* string, and what has no flat Flink type here (struct, array) */
    if (strcmp(w->lname, "org.apache.kafka.connect.data.Decimal") == 0) {
        snprintf(sql, sizeof(sql), "DECIMAL(%ld, %ld)", w->prec > 0 ? w->prec : 38, w->scale);
    } else {
        bool found = false;
        for (size_t i = 0; i < sizeof(logical) / sizeof(logical[0]) && !found; i++)
            if ((found = strcmp(w->lname, logical[i].name) == 0))
                snprintf(sql, sizeof(sql), "%s", logical[i].sql);
        for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]) && !found; i++)
            if ((found = strcmp(w->type, plain[i].type) == 0))
                snprintf(sql, sizeof(sql), "%s", plain[i].sql);
    }
    cdc_error_t *err = NULL;
    cdc_type_t *t = cdc_type_parse(sql, &err);
    cdc_error_destroy(err);
    if (!t)
        t = cdc_type_new(CDC_T_VARCHAR);
    t->nullable = w->optional;
    return t;
}

static int sc_start_map(void *ctx)
{
    sc_walk_t *w = ctx;
    int d = ++w->depth;
    if (d >= SC_DEPTH)
        return 1;
    w->key[d][0] = '\0';
    w->ok[d] = d == 1 || ((d == 3 || d == 5) && w->ok[d - 1]) ||
               (d == 6 && w->ok[5] && strcmp(w->key[5], "parameters") == 0);
    if (d == 3 && w->ok[d]) {
        w->envf[0] = '\0';
        cdc_type_destroy(w->cols);
        w->cols = cdc_type_new_row();
    } else if (d == 5 && w->ok[d]) {
        w->col[0] = w->type[0] = w->lname[0] = '\0';
        w->optional = true; /* Connect's default is false; Debezium always writes it */
        w->scale = 0;
        w->prec = 0;
    }
    return 1;
}

static int sc_end_map(void *ctx)
{
    sc_walk_t *w = ctx;
    int d = w->depth--;
    if (d >= SC_DEPTH || !w->ok[d])
        return 1;
    if (d == 5 && w->col[0]) {
        cdc_type_row_add(w->cols, w->col, connect_type(w));
    } else if (d == 3) {
        cdc_type_t **slot = strcmp(w->envf, "after") == 0    ? &w->after
                            : strcmp(w->envf, "before") == 0 ? &w->before
                                                             : NULL;
        if (slot && !*slot) {
            *slot = w->cols;
            w->cols = NULL;
        }
    }
    return 1;
}

static int sc_start_array(void *ctx)
{
    sc_walk_t *w = ctx;
    int d = ++w->depth;
    if (d < SC_DEPTH)
        w->ok[d] = (d == 2 || d == 4) && w->ok[d - 1] && strcmp(w->key[d - 1], "fields") == 0;
    return 1;
}

static int sc_end_array(void *ctx)
{
    ((sc_walk_t *)ctx)->depth--;
    return 1;
}

static int sc_key(void *ctx, const unsigned char *s, size_t len)
{
    sc_walk_t *w = ctx;
    if (w->depth < SC_DEPTH)
        dbz_copy_str(w->key[w->depth], sizeof(w->key[0]), (const char *)s, len);
    return 1;
}

static int sc_scalar(sc_walk_t *w, const char *s, size_t len, bool is_true)
{
    int d = w->depth;
    if (d >= SC_DEPTH || !w->ok[d])
        return 1;
    const char *k = w->key[d];
    if (d == 3 && strcmp(k, "field") == 0) {
        dbz_copy_str(w->envf, sizeof(w->envf), s, len);
    } else if (d == 5) {
        if (strcmp(k, "field") == 0)
            dbz_copy_str(w->col, sizeof(w->col), s, len);
        else if (strcmp(k, "type") == 0)
            dbz_copy_str(w->type, sizeof(w->type), s, len);
        else if (strcmp(k, "name") == 0)
            dbz_copy_str(w->lname, sizeof(w->lname), s, len);
        else if (strcmp(k, "optional") == 0)
            w->optional = is_true;
    } else if (d == 6) {
        char num[24];
        dbz_copy_str(num, sizeof(num), s, len);
        if (strcmp(k, "scale") == 0)
            w->scale = strtol(num, NULL, 10);
        else if (strcmp(k, "connect.decimal.precision") == 0)
            w->prec = strtol(num, NULL, 10);
    }
    return 1;
}

static int sc_string(void *ctx, const unsigned char *s, size_t len)
{
    return sc_scalar(ctx, (const char *)s, len, false);
}

static int sc_number(void *ctx, const char *s, size_t len)
{
    return sc_scalar(ctx, s, len, false);
}

static int sc_bool(void *ctx, int b)
{
    return sc_scalar(ctx, b ? "true" : "false", b ? 4 : 5, b != 0);
}

static int sc_null(void *ctx)
{
    (void)ctx;
    return 1;
}

static const yajl_callbacks sc_callbacks = {
    .yajl_null = sc_null,
    .yajl_boolean = sc_bool,
    .yajl_number = sc_number,
    .yajl_string = sc_string,
    .yajl_start_map = sc_start_map,
    .yajl_map_key = sc_key,
    .yajl_end_map = sc_end_map,
    .yajl_start_array = sc_start_array,
    .yajl_end_array = sc_end_array,
};

/* The columns a Connect schema text describes (after, else before), or NULL. */
static cdc_type_t *schema_columns(const char *text, size_t len)
{
    sc_walk_t w = {0};
    cdc_json_parser_t *p = cdc_json_parser_new(&sc_callbacks, &w);
    cdc_buf_t err = {0};
    int rc = cdc_json_parser_parse(p, text, len, &err);
    cdc_json_parser_destroy(p);
    cdc_buf_free(&err);
    cdc_type_destroy(w.cols);
    cdc_type_t *cols = w.after ? w.after : w.before;
    cdc_type_destroy(cols == w.after ? w.before : w.after);
    if (rc != CDC_JSON_PARSE_OK) {
        cdc_type_destroy(cols);
        return NULL;
    }
    return cols;
}

size_t dbz_src_table(const dbz_deser_t *d, char *buf, size_t cap)
{
    if (cdc_value_is_null(&d->src_table))
        return 0;
    const cdc_value_t *ns = !cdc_value_is_null(&d->src_schema) && d->src_schema.v.s.len > 0
                                ? &d->src_schema
                                : &d->src_db;
    int n = cdc_value_is_null(ns)
                ? snprintf(buf, cap, "%.*s", (int)d->src_table.v.s.len, d->src_table.v.s.ptr)
                : snprintf(buf, cap, "%.*s.%.*s", (int)ns->v.s.len, ns->v.s.ptr,
                           (int)d->src_table.v.s.len, d->src_table.v.s.ptr);
    return n > 0 ? (size_t)n : 0;
}

/* "ns.table" from the message's source block, else the format's table. */
static char *change_table(const dbz_deser_t *d)
{
    char buf[256];
    size_t len = dbz_src_table(d, buf, sizeof(buf));
    if (len == 0)
        return cdc_xstrdup(d->sc_table ? d->sc_table : "");
    if (len < sizeof(buf))
        return cdc_xstrdup(buf);
    char *big = cdc_xmalloc(len + 1);
    dbz_src_table(d, big, len + 1);
    return big;
}

int dbz_schema_check(dbz_deser_t *d)
{
    if (d->schema_kind || d->schema_end <= d->schema_start)
        return 0;
    const char *text = d->msg + d->schema_start;
    size_t len = d->schema_end - d->schema_start;
    if (d->sc_text.len == len && memcmp(d->sc_text.data, text, len) == 0) {
        d->sc_resync = false;
        return 0; /* the same schema as the last message's: the usual case */
    }
    cdc_type_t *cols = schema_columns(text, len);
    if (!cols)
        return 0; /* no row schema (a control message's) */
    cdc_buf_clear(&d->sc_text);
    cdc_buf_append(&d->sc_text, text, len);
    /* after a schema change event, its change is reported: this schema is taken as it is */
    bool changed = d->sc_cols && !d->sc_resync && !cdc_type_equals(d->sc_cols, cols);
    d->sc_resync = false;
    if (changed) {
        char *table = change_table(d);
        char pos[32];
        snprintf(pos, sizeof(pos), "message %llu", (unsigned long long)d->nmsgs);
        cdc_schema_change_free(d->sc_change);
        d->sc_change = cdc_schema_change_new(table, pos, NULL);
        free(table);
        cdc_schema_change_set_columns(d->sc_change, d->sc_cols, cols);
        cdc_schema_change_diff(d->sc_change, NULL, NULL);
        d->sc_at = d->n0;
    }
    cdc_type_destroy(d->sc_cols);
    d->sc_cols = cols;
    return changed && d->sc_change->nitems > 0;
}

int dbz_schema_changes(cdc_deser_t *base, const cdc_schema_change_t *const **changes,
                       const uint32_t **at)
{
    dbz_deser_t *d = (dbz_deser_t *)base;
    *changes = (const cdc_schema_change_t *const *)&d->sc_change;
    *at = &d->sc_at;
    return d->sc_met ? 1 : 0;
}

void dbz_schema_free(dbz_deser_t *d)
{
    cdc_buf_free(&d->sc_text);
    cdc_type_destroy(d->sc_cols);
    cdc_schema_change_free(d->sc_change);
    free(d->sc_table);
}
