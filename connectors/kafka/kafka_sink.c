/*
 * kafka_sink.c — the kafka connector's sink: one librdkafka producer per
 * writer. Rows are encoded with the value format (and the key format over
 * key.fields) into buffers the writer keeps; librdkafka copies the bytes.
 * flush() waits until every delivery report arrived and fails with
 * librdkafka's text when one reports an error, so the source commits its
 * offsets only after Kafka acknowledged the rows.
 *
 * upsert-kafka with sink.buffer-flush.max-rows and .interval keeps only the
 * last change of each key (its encoded key and value, or a tombstone) in a
 * hash table over an arena, and produces the table when it holds max-rows
 * keys, when the interval passed, and at every flush: a burst of updates to
 * one key becomes one message, and per-key order holds because a table is
 * produced whole before the next one fills.
 *
 * Writable metadata (persisted METADATA columns, Flink's R/W keys): the rows
 * carry `timestamp` and/or `headers` after the physical fields; they become
 * the message's timestamp and headers (rd_kafka_producev). librdkafka takes
 * a headers list it allocates per message (it keeps it with its copy of the
 * message), so a row with headers costs that allocation, one without none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kafka_int.h"

typedef struct kafka_sink_s {
    cdc_sink_t base;
    kafka_table_t t;
    int md_ts, md_headers; /* index in the rows of the timestamp / headers metadata, or -1 */
} kafka_sink_t;

/* The metadata of one message: NULL when not written (or a NULL value). */
typedef struct kmeta_s {
    const cdc_value_t *ts;      /* TIMESTAMP(_LTZ) */
    const cdc_array_t *headers; /* MAP<STRING, BYTES | STRING> */
} kmeta_t;

/* One buffered key: its last change. */
typedef struct kbuf_entry_s {
    uint64_t hash;
    char *key, *value; /* in the arena; value NULL = tombstone */
    uint32_t klen, vlen;
    bool used;
    bool has_ts;
    cdc_value_t ts;
    cdc_array_t *headers; /* in the arena, or NULL */
} kbuf_entry_t;

typedef struct kafka_writer_s {
    cdc_writer_t base;
    kafka_sink_t *sink;
    rd_kafka_t *rk;
    rd_kafka_topic_t *rkt;
    cdc_ser_t *vser, *kser;
    cdc_buf_t vbuf, kbuf;
    cdc_row_t krow, vrow; /* the key and value fields of the current row */
    int32_t nparts, fixed;
    uint64_t rr;
    uint64_t failed; /* delivery reports with an error since the last flush */
    char first_err[512];
    /* upsert-kafka buffering (see the top of the file) */
    bool buffering;
    kbuf_entry_t *slots;
    uint32_t nslots, nkeys;
    cdc_arena_t arena;
    int64_t buffer_since_ms;
} kafka_writer_t;

static uint64_t hash_bytes(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    kafka_writer_t *w = opaque;
    if (m->err && w->failed++ == 0)
        snprintf(w->first_err, sizeof(w->first_err), "partition %d: %s", (int)m->partition,
                 rd_kafka_err2str(m->err));
}

static int encode_error(kafka_writer_t *w, cdc_ser_t *ser, const char *part, cdc_error_t **err)
{
    cdc_error_destroy(*err);
    *err = cdc_error_new(CDC_ERR_PARSE, "cannot encode the %s of a row for Kafka", part);
    cdc_error_set_detail(*err, "%s", cdc_buf_cstr(&ser->errmsg));
    cdc_error_add_context(*err, "kafka table \"%s\" topic \"%s\"", w->sink->t.name,
                          w->sink->t.topics[0]);
    return -1;
}

static int32_t pick_partition(kafka_writer_t *w)
{
    switch (w->sink->t.partitioner) {
    case KAFKA_PART_FIXED:
        return w->fixed;
    case KAFKA_PART_ROUND_ROBIN:
        return (int32_t)(w->rr++ % (uint64_t)w->nparts);
    default:
        return RD_KAFKA_PARTITION_UA;
    }
}

/* The headers of a message, or NULL for none: a list librdkafka takes on a successful produce. */
static rd_kafka_headers_t *make_headers(const cdc_array_t *map)
{
    if (!map || map->n == 0)
        return NULL;
    rd_kafka_headers_t *h = rd_kafka_headers_new(map->n);
    for (uint32_t i = 0; i < map->n; i++) {
        const cdc_value_t *k = &map->elems[i], *v = &map->vals[i];
        if (cdc_value_is_null(k))
            continue;
        bool vnull = cdc_value_is_null(v);
        rd_kafka_header_add(h, k->v.s.ptr, (ssize_t)k->v.s.len, vnull ? NULL : v->v.s.ptr,
                            vnull ? 0 : (ssize_t)v->v.s.len);
    }
    return h;
}

static int produce(kafka_writer_t *w, const char *key, size_t klen, const char *value, size_t vlen,
                   const kmeta_t *md, cdc_error_t **err)
{
    const kafka_table_t *t = &w->sink->t;
    int32_t part = pick_partition(w);
    int64_t ts = md->ts ? md->ts->v.ts.millis : 0; /* 0: librdkafka takes the current time */
    rd_kafka_headers_t *h = make_headers(md->headers);
    for (;;) {
        rd_kafka_resp_err_t e =
            h ? rd_kafka_producev(w->rk, RD_KAFKA_V_RKT(w->rkt), RD_KAFKA_V_PARTITION(part),
                                  RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                  RD_KAFKA_V_VALUE((void *)value, value ? vlen : 0),
                                  RD_KAFKA_V_KEY(key, klen), RD_KAFKA_V_TIMESTAMP(ts),
                                  RD_KAFKA_V_HEADERS(h), RD_KAFKA_V_END)
              : rd_kafka_producev(w->rk, RD_KAFKA_V_RKT(w->rkt), RD_KAFKA_V_PARTITION(part),
                                  RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                  RD_KAFKA_V_VALUE((void *)value, value ? vlen : 0),
                                  RD_KAFKA_V_KEY(key, klen), RD_KAFKA_V_TIMESTAMP(ts),
                                  RD_KAFKA_V_END);
        if (!e)
            return 0;
        if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
            if (h)
                rd_kafka_headers_destroy(h); /* (librdkafka owns it only on success) */
            cdc_error_destroy(*err);
            *err = kafka_error(t, e, "could not produce to topic \"%s\"", t->topics[0]);
            return -1;
        }
        rd_kafka_poll(w->rk, 100); /* the local queue is full: wait for deliveries */
    }
}

/* A copy of a MAP<STRING, BYTES|STRING> value in the arena. */
static cdc_array_t *copy_headers(cdc_arena_t *arena, const cdc_array_t *map)
{
    cdc_array_t *c = cdc_arena_alloc(arena, sizeof(*c));
    c->n = map->n;
    c->elems = cdc_arena_alloc(arena, sizeof(cdc_value_t) * (map->n ? map->n : 1));
    c->vals = cdc_arena_alloc(arena, sizeof(cdc_value_t) * (map->n ? map->n : 1));
    for (uint32_t i = 0; i < map->n; i++) {
        const cdc_value_t *src[2] = {&map->elems[i], &map->vals[i]};
        cdc_value_t *dst[2] = {&c->elems[i], &c->vals[i]};
        for (int j = 0; j < 2; j++) {
            *dst[j] = *src[j];
            if (!cdc_value_is_null(src[j]))
                dst[j]->v.s.ptr = cdc_arena_memdup(arena, src[j]->v.s.len ? src[j]->v.s.ptr : "",
                                                   src[j]->v.s.len);
        }
    }
    return c;
}

/* Keeps (key, value) as the key's last change; value NULL is a tombstone. */
static int buffer_put(kafka_writer_t *w, const char *key, size_t klen, const char *value,
                      size_t vlen, const kmeta_t *md)
{
    if ((w->nkeys + 1) * 2 > w->nslots) { /* keep the table at most half full */
        uint32_t n = w->nslots ? w->nslots * 2 : 1024;
        kbuf_entry_t *slots = cdc_xcalloc(n, sizeof(*slots));
        for (uint32_t i = 0; i < w->nslots; i++) {
            if (!w->slots[i].used)
                continue;
            uint32_t j = (uint32_t)(w->slots[i].hash & (n - 1));
            while (slots[j].used)
                j = (j + 1) & (n - 1);
            slots[j] = w->slots[i];
        }
        free(w->slots);
        w->slots = slots;
        w->nslots = n;
    }
    uint64_t h = hash_bytes(key ? key : "", klen);
    uint32_t j = (uint32_t)(h & (w->nslots - 1));
    while (w->slots[j].used && !(w->slots[j].hash == h && w->slots[j].klen == klen &&
                                 memcmp(w->slots[j].key, key ? key : "", klen) == 0))
        j = (j + 1) & (w->nslots - 1);
    kbuf_entry_t *e = &w->slots[j];
    if (!e->used) {
        if (w->nkeys == 0)
            w->buffer_since_ms = cdc_mono_ms();
        e->used = true;
        e->hash = h;
        e->key = cdc_arena_memdup(&w->arena, key ? key : "", klen);
        e->klen = (uint32_t)klen;
        w->nkeys++;
    }
    /* the value is replaced; the old copy stays in the arena until the table is produced */
    e->value = value ? cdc_arena_memdup(&w->arena, vlen ? value : "", vlen) : NULL;
    e->vlen = (uint32_t)vlen;
    e->has_ts = md->ts != NULL;
    if (md->ts)
        e->ts = *md->ts;
    e->headers = md->headers ? copy_headers(&w->arena, md->headers) : NULL;
    return 0;
}

/* Produces every buffered key's last change and empties the table (keeps its memory). */
static int buffer_produce(kafka_writer_t *w, cdc_error_t **err)
{
    for (uint32_t i = 0; i < w->nslots && w->nkeys > 0; i++) {
        kbuf_entry_t *e = &w->slots[i];
        if (!e->used)
            continue;
        kmeta_t md = {.ts = e->has_ts ? &e->ts : NULL, .headers = e->headers};
        if (produce(w, e->key, e->klen, e->value, e->vlen, &md, err) < 0)
            return -1;
        e->used = false;
        w->nkeys--;
    }
    w->nkeys = 0;
    memset(w->slots, 0, (size_t)w->nslots * sizeof(*w->slots));
    cdc_arena_reset(&w->arena);
    return 0;
}

static int kw_write(cdc_writer_t *base, const cdc_batch_t *batch, cdc_error_t **err)
{
    kafka_writer_t *w = (kafka_writer_t *)base;
    const kafka_sink_t *s = w->sink;
    const kafka_table_t *t = &s->t;
    bool whole = t->nval == t->schema->nchildren && !t->upsert && s->md_ts < 0 && s->md_headers < 0;
    for (uint32_t i = 0; i < batch->n; i++) {
        const cdc_row_t *row = &batch->rows[i];
        const cdc_row_t *vrow = row;
        kmeta_t md = {0};
        if (s->md_ts >= 0 && !cdc_value_is_null(&row->values[s->md_ts]))
            md.ts = &row->values[s->md_ts];
        if (s->md_headers >= 0 && !cdc_value_is_null(&row->values[s->md_headers]))
            md.headers = &row->values[s->md_headers].v.arr;
        /* upsert-kafka: -D/-U are tombstones, +I/+U the row as an insert of the value format */
        bool tombstone = t->upsert && (row->kind == CDC_DELETE || row->kind == CDC_UPDATE_BEFORE);
        if (!whole) {
            w->vrow.kind = t->upsert ? CDC_INSERT : row->kind;
            for (int j = 0; j < t->nval; j++)
                w->vrow.values[j] = row->values[t->val_idx[j]];
            vrow = &w->vrow;
        }
        cdc_buf_clear(&w->vbuf);
        int rc = tombstone ? 0 : w->vser->ops->encode(w->vser, vrow, &w->vbuf);
        if (rc < 0)
            return encode_error(w, w->vser, "value", err);
        if (rc > 0)
            continue;
        const char *key = NULL;
        size_t klen = 0;
        if (w->kser) {
            for (int j = 0; j < t->nkey; j++)
                w->krow.values[j] = row->values[t->key_idx[j]];
            cdc_buf_clear(&w->kbuf);
            if (w->kser->ops->encode(w->kser, &w->krow, &w->kbuf) < 0)
                return encode_error(w, w->kser, "key", err);
            key = w->kbuf.data ? w->kbuf.data : "";
            klen = w->kbuf.len;
        }
        if (w->buffering) {
            if (buffer_put(w, key, klen, tombstone ? NULL : w->vbuf.data,
                           tombstone ? 0 : w->vbuf.len, &md) < 0 ||
                (w->nkeys >= (uint32_t)t->buffer_max_rows && buffer_produce(w, err) < 0))
                return -1;
            continue;
        }
        if (produce(w, key, klen, tombstone ? NULL : w->vbuf.data, tombstone ? 0 : w->vbuf.len, &md,
                    err) < 0)
            return -1;
    }
    if (w->buffering && w->nkeys > 0 &&
        cdc_mono_ms() - w->buffer_since_ms >= w->sink->t.buffer_interval_ms &&
        buffer_produce(w, err) < 0)
        return -1;
    rd_kafka_poll(w->rk, 0);
    return 0;
}

static int kw_flush(cdc_writer_t *base, cdc_error_t **err)
{
    kafka_writer_t *w = (kafka_writer_t *)base;
    const kafka_table_t *t = &w->sink->t;
    if (w->buffering && w->nkeys > 0 && buffer_produce(w, err) < 0)
        return -1;
    if (t->guarantee == KAFKA_DG_NONE)
        rd_kafka_poll(w->rk, 0);
    else
        while (rd_kafka_outq_len(w->rk) > 0)
            rd_kafka_flush(w->rk, 1000); /* message.timeout.ms bounds each delivery */
    if (w->failed == 0)
        return 0;
    cdc_error_destroy(*err);
    *err = kafka_error(t, 0, "could not deliver %llu message(s) to topic \"%s\"",
                       (unsigned long long)w->failed, t->topics[0]);
    cdc_error_set_detail(*err, "%s", w->first_err);
    w->failed = 0;
    return -1;
}

static void kw_close(cdc_writer_t *base)
{
    kafka_writer_t *w = (kafka_writer_t *)base;
    if (!w)
        return;
    if (w->rk) {
        rd_kafka_flush(w->rk, 10000);
        if (w->rkt)
            rd_kafka_topic_destroy(w->rkt);
        rd_kafka_destroy(w->rk);
    }
    if (w->vser)
        w->vser->ops->destroy(w->vser);
    if (w->kser)
        w->kser->ops->destroy(w->kser);
    cdc_buf_free(&w->vbuf);
    cdc_buf_free(&w->kbuf);
    free(w->slots);
    cdc_arena_free(&w->arena);
    free(w->krow.values);
    free(w->vrow.values);
    free(w);
}

static const cdc_writer_ops_t kafka_writer_ops = {
    .write = kw_write,
    .flush = kw_flush,
    .close = kw_close,
};

static int open_ser(const kafka_table_t *t, const cdc_table_format_t *f, const cdc_type_t *row,
                    cdc_ser_t **out, cdc_error_t **err)
{
    if (!f->factory->ser_new) {
        cdc_error_destroy(*err);
        *err = cdc_error_new(CDC_ERR_PLAN, "format \"%s\" cannot encode", f->factory->identifier);
        cdc_error_add_context(*err, "kafka table \"%s\"", t->name);
        return -1;
    }
    cdc_format_ctx_t fctx = {.cfg = f->cfg, .row_type = row, .table = t->name};
    return f->factory->ser_new(&fctx, out, err);
}

static int count_partitions(kafka_writer_t *w, cdc_error_t **err)
{
    const kafka_table_t *t = &w->sink->t;
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t e = rd_kafka_metadata(w->rk, 0, w->rkt, &md, 30000);
    if (!e && (md->topic_cnt != 1 || md->topics[0].err))
        e = md->topic_cnt == 1 ? md->topics[0].err : RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART;
    if (e) {
        if (md)
            rd_kafka_metadata_destroy(md);
        cdc_error_destroy(*err);
        *err = kafka_error(t, e, "could not read the partitions of topic \"%s\"", t->topics[0]);
        return -1;
    }
    w->nparts = md->topics[0].partition_cnt;
    rd_kafka_metadata_destroy(md);
    return w->nparts > 0 ? 0 : -1;
}

static int ksk_open_writer(cdc_sink_t *base, int subtask, int nsubtasks, cdc_writer_t **out,
                           cdc_error_t **err)
{
    (void)nsubtasks;
    kafka_sink_t *s = (kafka_sink_t *)base;
    const kafka_table_t *t = &s->t;
    kafka_writer_t *w = cdc_xcalloc(1, sizeof(*w));
    w->base.ops = &kafka_writer_ops;
    w->sink = s;
    w->buffering = t->upsert && t->buffer_max_rows > 0 && t->buffer_interval_ms > 0;
    cdc_arena_init(&w->arena);
    w->krow = (cdc_row_t){.kind = CDC_INSERT,
                          .arity = (uint32_t)t->nkey,
                          .values = cdc_xcalloc((size_t)t->nkey + 1, sizeof(cdc_value_t))};
    w->vrow = (cdc_row_t){.arity = (uint32_t)t->nval,
                          .values = cdc_xcalloc((size_t)t->nval + 1, sizeof(cdc_value_t))};
    if (open_ser(t, t->value_fmt, t->val_type, &w->vser, err) < 0)
        goto fail;
    if (t->key_fmt && open_ser(t, t->key_fmt, t->key_type, &w->kser, err) < 0)
        goto fail;
    /* Kafka's Java default for keys (murmur2), unless the properties choose */
    const char *extra[8];
    int n = 0;
    if (!cdc_kv_get(&t->props, "partitioner")) {
        extra[n++] = "partitioner";
        extra[n++] = "murmur2_random";
    }
    if (t->guarantee == KAFKA_DG_AT_LEAST_ONCE && !cdc_kv_get(&t->props, "enable.idempotence")) {
        extra[n++] = "enable.idempotence";
        extra[n++] = "true";
    }
    extra[n] = NULL;
    rd_kafka_conf_t *conf = kafka_conf_new(t, extra, err);
    if (!conf)
        goto fail;
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    rd_kafka_conf_set_opaque(conf, w);
    char errstr[512];
    w->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
    if (!w->rk) {
        rd_kafka_conf_destroy(conf); /* (rd_kafka_new owns it only on success) */
        cdc_error_destroy(*err);
        *err = kafka_error(t, 0, "could not create the Kafka producer");
        cdc_error_set_detail(*err, "%s", errstr);
        goto fail;
    }
    w->rkt = rd_kafka_topic_new(w->rk, t->topics[0], NULL);
    if (t->partitioner != KAFKA_PART_DEFAULT) {
        if (count_partitions(w, err) < 0)
            goto fail;
        w->fixed = subtask % w->nparts;
    }
    *out = &w->base;
    return 0;
fail:
    kw_close(&w->base);
    return -1;
}

static cdc_changelog_mode_t ksk_changelog_mode(cdc_sink_t *base, cdc_changelog_mode_t requested)
{
    const kafka_table_t *t = &((kafka_sink_t *)base)->t;
    return (t->upsert ? CDC_MODE_UPSERT : kafka_format_mode(t->value_fmt, true)) & requested;
}

static void ksk_destroy(cdc_sink_t *base)
{
    kafka_sink_t *s = (kafka_sink_t *)base;
    if (!s)
        return;
    kafka_table_free(&s->t);
    free(s);
}

/*
 * Schema changes (kafka and upsert-kafka): messages describe themselves (json by field
 * names, debezium-json with schema-include by its schema, Avro by the writer's schema), so
 * there is nothing to change: writers built on the new row type serialize the new columns.
 */
static int ksk_apply_schema_change(cdc_sink_t *base, const cdc_schema_change_t *change,
                                   cdc_error_t **err)
{
    (void)base;
    (void)change;
    (void)err;
    return 0;
}

static bool is_text(const cdc_type_t *ty, bool bytes)
{
    return ty->root == CDC_T_CHAR || ty->root == CDC_T_VARCHAR ||
           (bytes && (ty->root == CDC_T_BINARY || ty->root == CDC_T_VARBINARY));
}

/* Writable metadata: `timestamp` and `headers` after the physical fields (Flink's R/W keys). */
static int ksk_apply_metadata(cdc_sink_t *base, const char *const *keys,
                              const cdc_type_t *const *types, int n, cdc_error_t **err)
{
    kafka_sink_t *s = (kafka_sink_t *)base;
    int nphys = s->t.schema->nchildren;
    s->md_ts = s->md_headers = -1;
    for (int i = 0; i < n; i++) {
        const cdc_type_t *ty = types[i];
        bool is_ts = strcmp(keys[i], "timestamp") == 0;
        bool ok = is_ts ? ty->root == CDC_T_TIMESTAMP || ty->root == CDC_T_TIMESTAMP_LTZ
                        : ty->root == CDC_T_MAP && is_text(ty->children[0], false) &&
                              is_text(ty->children[1], true);
        if (!ok) {
            char *text = cdc_type_to_string(ty);
            cdc_error_destroy(*err);
            *err = cdc_error_new(CDC_ERR_PLAN,
                                 "Invalid data type for metadata column of key '%s'. The column "
                                 "cannot be declared as '%s' because the type must be castable "
                                 "to metadata type '%s'.",
                                 keys[i], text, is_ts ? "TIMESTAMP_LTZ(3)" : "MAP<STRING, BYTES>");
            cdc_error_set_hint(*err, is_ts ? "declare it TIMESTAMP_LTZ(3) or TIMESTAMP(3)"
                                           : "declare it MAP<STRING, BYTES> (or MAP<STRING, "
                                             "STRING>)");
            free(text);
            return -1;
        }
        *(is_ts ? &s->md_ts : &s->md_headers) = nphys + i;
    }
    return 0;
}

static const cdc_sink_ops_t kafka_sink_ops = {
    .changelog_mode = ksk_changelog_mode,
    .apply_metadata = ksk_apply_metadata,
    .open_writer = ksk_open_writer,
    .destroy = ksk_destroy,
    .apply_schema_change = ksk_apply_schema_change,
};

static int sink_new(const cdc_table_ctx_t *ctx, bool upsert, cdc_sink_t **out, cdc_error_t **err)
{
    kafka_sink_t *s = cdc_xcalloc(1, sizeof(*s));
    if (kafka_table_init(&s->t, ctx, true, upsert, err) < 0) {
        free(s);
        return -1;
    }
    s->base.ops = &kafka_sink_ops;
    s->md_ts = s->md_headers = -1;
    *out = &s->base;
    return 0;
}

int kafka_sink_new(const cdc_table_ctx_t *ctx, cdc_sink_t **out, cdc_error_t **err)
{
    return sink_new(ctx, false, out, err);
}

int kafka_upsert_sink_new(const cdc_table_ctx_t *ctx, cdc_sink_t **out, cdc_error_t **err)
{
    return sink_new(ctx, true, out, err);
}
