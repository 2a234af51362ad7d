/*
 * values_sink.c — the "values" connector's sink: prints each row it receives
 * ("identifier> +I[...]"), or with sink.materialize keeps the table (by
 * primary key, else as a multiset) and prints it sorted at close.
 */
#include "values_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        cdc_log(CDC_LOG_WARN, NULL, sink->name,
                "values sink cannot apply %s: no such row in the table", cdc_buf_cstr(&b));
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

int values_sink_new(const cdc_table_ctx_t *ctx, cdc_sink_t **out, cdc_error_t **err)
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
        values_option_error(&problems, err);
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
        values_parse_mode("sink-changelog-mode-enforced", enforced, &sink->enforced, NULL);
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
