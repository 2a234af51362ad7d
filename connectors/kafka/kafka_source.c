/*
 * kafka_source.c — the kafka connector's source: each reader split is one
 * librdkafka consumer in the table's group.
 *
 * Unbounded reading subscribes (Kafka's group protocol shares the partitions
 * among every split of every `cdcflow run` with the same group.id). Offsets
 * are never committed by librdkafka: the reader remembers the next offset of
 * every message it returned and commit() -- called by the runtime only after
 * the sink's flush returned -- commits them (asynchronously; synchronously
 * before partitions are given up and when the reader closes). When the group
 * takes partitions away, the rebalance callback only notes it; poll then
 * returns CDC_POLL_FLUSH, the runtime writes, flushes and calls commit(),
 * and commit() commits and only then gives the partitions up (librdkafka
 * waits in its WAIT_UNASSIGN_CALL state until assign() is called, after the
 * callback returned). So no row read from a partition is left uncommitted
 * once another member may read it. With a sink that flushes in the
 * background (cdc_plugin.h's mark), the runtime calls mark() and goes on
 * reading; commit_mark() commits the marked offsets once the rows before
 * them are durable.
 *
 * Bounded reading (scan.bounded.mode other than unbounded) assigns
 * partitions statically: the topics' partitions, sorted by topic and
 * number, go round-robin to the splits; start and stop offsets are resolved
 * to numbers when the reader opens, and the reader ends when every partition
 * it owns reached its stop offset.
 *
 * Messages live until the next poll, so decoded values point into them
 * (no copy). A message that cannot be decoded stops the job with its topic,
 * partition and offset, or goes to scan.dead-letter.topic.
 *
 * A schema change the value format meets (debezium-json's schema-include) ends
 * the poll before the message whose row comes after it (CDC_POLL_SCHEMA, the
 * change at "topic T partition P offset O"): that message is not consumed, so
 * the commit after the change commits its offset, not the one after it; the
 * next poll takes it (and the messages dequeued behind it) first, and the
 * decoder, which has its schema now, reports no second change.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kafka_early.h"

typedef enum {
    MD_TOPIC,
    MD_PARTITION,
    MD_OFFSET,
    MD_TIMESTAMP,
    MD_TIMESTAMP_TYPE,
    MD_HEADERS,
    MD_KEY,
    MD_VALUE /* a metadata key of the value format ("value.<key>") */
} md_code_t;

static const struct {
    const char *key;
    const char *type;
} conn_md[] = {
    {"topic", "STRING NOT NULL"},
    {"partition", "INT NOT NULL"},
    {"offset", "BIGINT NOT NULL"},
    {"timestamp", "TIMESTAMP_LTZ(3) NOT NULL"},
    {"timestamp-type", "STRING NOT NULL"},
    {"headers", "MAP<STRING, BYTES> NOT NULL"},
    {"key", "BYTES"},
};
#define NCONN_MD ((int)(sizeof(conn_md) / sizeof(conn_md[0])))

typedef struct kafka_source_s {
    cdc_source_t base;
    kafka_table_t t;
    cdc_type_t *produced;
    md_code_t *md; /* per metadata field */
    int *md_vidx;  /* MD_VALUE: index among the value format's metadata */
    int nmd;
    char **vmeta; /* value format metadata keys, without "value." */
    int nvmeta;
    bool direct;               /* the value format's rows are the produced rows */
    kafka_early_plan_t *early; /* the splits' early-start decision; NULL: none */
} kafka_source_t;

/* Position of one partition the reader returned rows from. */
typedef struct kpos_s {
    char *topic;
    int32_t partition;
    int64_t next;       /* offset after the last message returned; -1 none */
    int64_t durable;    /* next as of the last commit() (the sink flushed up to it); -1 none */
    int64_t committed;  /* last offset sent to the group; -1 none */
    int64_t marked;     /* next as of the last mark() (its rows are being flushed); -1 none */
    int64_t stop;       /* bounded: exclusive stop offset */
    int64_t min_ts;     /* started by timestamp: skip older messages (INT64_MIN: none) */
    int64_t stop_ts;    /* bounded by timestamp: stop at the first message this new */
    bool done;          /* bounded: reached stop */
    char *held_by;      /* the early reader's token this partition waits on (paused); NULL */
    int64_t held_since; /* cdc_mono_ms when it was assigned held back */
} kpos_t;

typedef struct kafka_reader_s {
    cdc_reader_t base;
    kafka_source_t *src;
    rd_kafka_t *rk;
    cdc_deser_t *vdeser, *kdeser;
    cdc_batch_t vbatch, kbatch; /* scratch rows of the current poll */
    rd_kafka_message_t **held;  /* messages the current batch points into */
    uint32_t nheld, capheld;
    /* a schema change (the value format's): the poll ended before the message whose row comes
       after it; that message and the ones dequeued after it are taken first by the next poll */
    cdc_schema_change_t *change;
    bool change_ready;
    rd_kafka_message_t **pending;
    uint32_t npending, cappending, pending_next;
    kpos_t *pos;
    int npos, cappos, last;
    bool bounded;
    int nlive; /* bounded: partitions not done */
    bool revoke_pending, closing;
    bool lost; /* partitions taken away without the revoke barrier since the last commit */
    rd_kafka_topic_partition_list_t *revoked; /* partitions to give up in commit() */
    rd_kafka_t *dlq;
    rd_kafka_topic_t *dlq_rkt;
    uint64_t dlq_failed;
    char dlq_err[512];
    char where[256];                    /* context of the current message */
    rd_kafka_resp_err_t last_event_err; /* warnings about consumer errors: once per 10 s */
    int64_t last_event_warn;
    rd_kafka_resp_err_t last_commit_err; /* warnings about failed commits: once per 10 s */
    int64_t last_commit_warn;
    int64_t last_kick;       /* cdc_mono_ms of the last kick_fetcher */
    int64_t last_hold_check; /* cdc_mono_ms of the last hold_check */
    int kick_next;           /* the position whose leader the next kick wakes */
    bool had_messages;       /* the last poll returned messages */
    rd_kafka_queue_t *queue; /* the consumer queue (batch consumption) */
    int split, nsplits;
    bool assigned;                     /* bounded: the static assignment was made */
    const cdc_position_store_t *store; /* positions kept by the sink; NULL: none */
    cdc_buf_t stored;                  /* its "key\tposition\n" lines, loaded per assignment */
    cdc_error_t *store_err;            /* a load that failed in the rebalance callback */
    /* early start (kafka_early.c): decided at the first poll; while early is set the reader
       reads early->queue and the group's first assignment waits in handover until the
       runtime flushed (CDC_POLL_FLUSH, then commit()) */
    bool early_todo;
    kafka_early_t *early;
    kafka_early_t *early_old; /* handed over; closed once its messages are released */
    rd_kafka_topic_partition_list_t *handover;
    bool handover_asked;                         /* CDC_POLL_FLUSH was returned for the handover */
    rd_kafka_topic_partition_list_t *unreleased; /* a handover's release the group refused */
    char token[192];                             /* this reader's early token ("": none) */
    const char *extra[20];                       /* librdkafka settings of the consumers */
    char queue_kb[24];
} kafka_reader_t;

/* ---- positions -------------------------------------------------------------------------- */

static kpos_t *pos_find(kafka_reader_t *r, const char *topic, int32_t partition)
{
    if (r->last < r->npos && r->pos[r->last].partition == partition &&
        strcmp(r->pos[r->last].topic, topic) == 0)
        return &r->pos[r->last];
    for (int i = 0; i < r->npos; i++)
        if (r->pos[i].partition == partition && strcmp(r->pos[i].topic, topic) == 0) {
            r->last = i;
            return &r->pos[i];
        }
    if (r->npos == r->cappos) {
        r->cappos = r->cappos ? 2 * r->cappos : 16;
        r->pos = cdc_xrealloc(r->pos, sizeof(kpos_t) * (size_t)r->cappos);
    }
    r->pos[r->npos] = (kpos_t){.topic = cdc_xstrdup(topic),
                               .partition = partition,
                               .next = -1,
                               .durable = -1,
                               .committed = -1,
                               .marked = -1,
                               .stop = INT64_MAX,
                               .min_ts = INT64_MIN,
                               .stop_ts = INT64_MAX};
    r->last = r->npos;
    return &r->pos[r->npos++];
}

/* The position of a partition the reader returned rows from; NULL: none. */
static kpos_t *pos_get(kafka_reader_t *r, const char *topic, int32_t partition)
{
    for (int i = 0; i < r->npos; i++)
        if (r->pos[i].partition == partition && strcmp(r->pos[i].topic, topic) == 0)
            return &r->pos[i];
    return NULL;
}

/* Forgets the positions of these partitions (all when parts is NULL). */
static void pos_forget(kafka_reader_t *r, const rd_kafka_topic_partition_list_t *parts)
{
    int w = 0;
    for (int i = 0; i < r->npos; i++) {
        bool drop = !parts;
        for (int j = 0; parts && !drop && j < parts->cnt; j++)
            drop = parts->elems[j].partition == r->pos[i].partition &&
                   strcmp(parts->elems[j].topic, r->pos[i].topic) == 0;
        if (drop) {
            free(r->pos[i].topic);
            free(r->pos[i].held_by);
        } else
            r->pos[w++] = r->pos[i];
    }
    r->npos = w;
    r->last = 0;
}

static void mark_done(kafka_reader_t *r, kpos_t *p)
{
    if (p->done)
        return;
    p->done = true;
    r->nlive--;
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(l, p->topic, p->partition);
    rd_kafka_pause_partitions(r->rk, l);
    rd_kafka_topic_partition_list_destroy(l);
}

/* ---- start positions ------------------------------------------------------------------ */

static int64_t specific_offset(const kafka_offsets_t *o, int32_t partition)
{
    for (int i = 0; i < o->n; i++)
        if (o->partition[i] == partition)
            return o->offset[i];
    return RD_KAFKA_OFFSET_INVALID;
}

/* Offsets of the first messages at or after ts (RD_KAFKA_OFFSET_END when none), in place. */
static rd_kafka_resp_err_t offsets_for_time(rd_kafka_t *rk, rd_kafka_topic_partition_list_t *l,
                                            int64_t ts)
{
    for (int i = 0; i < l->cnt; i++)
        l->elems[i].offset = ts;
    return rd_kafka_offsets_for_times(rk, l, 30000);
}

/* Loads the sink's positions (when it keeps them) before partitions are placed. */
static int load_stored(kafka_reader_t *r, cdc_error_t **err)
{
    cdc_buf_clear(&r->stored);
    if (!r->store || r->store->load(r->store->ctx, &r->stored, err) == 0)
        return 0;
    cdc_error_add_context(*err, "kafka table \"%s\": looking up the positions its sink keeps",
                          r->src->t.name);
    return -1;
}

/* The next offset of a partition as the sink's positions say; -1: none. */
static int64_t stored_offset(kafka_reader_t *r, const char *topic, int32_t partition)
{
    char key[320];
    int n = snprintf(key, sizeof(key), "kafka/%s/%d\t", topic, (int)partition);
    if (n <= 0 || (size_t)n >= sizeof(key) || r->stored.len == 0)
        return -1;
    const char *s = cdc_buf_cstr(&r->stored);
    for (const char *at = s; (at = strstr(at, key)) != NULL; at += n)
        if (at == s || at[-1] == '\n')
            return strtoll(at + n, NULL, 10);
    return -1;
}

/*
 * Unbounded: a partition whose position the sink keeps resumes there (the
 * sink's commit is the decision; see cdc_plugin.h); else
 * a partition the group has a committed offset for resumes there
 * (the committed offsets are this job's state, as Flink's checkpoints);
 * the others start per scan.startup.mode.
 */
static void start_positions(kafka_reader_t *r, rd_kafka_topic_partition_list_t *parts)
{
    const kafka_table_t *t = &r->src->t;
    rd_kafka_topic_partition_list_t *c = rd_kafka_topic_partition_list_copy(parts);
    for (int i = 0; i < c->cnt; i++)
        c->elems[i].offset = RD_KAFKA_OFFSET_INVALID;
    bool known = rd_kafka_committed(r->rk, c, 30000) == RD_KAFKA_RESP_ERR_NO_ERROR;
    char token[256];
    for (int i = 0; known && i < c->cnt; i++) /* another early reader's: held back (step 6) */
        if (kafka_early_foreign(&c->elems[i], r->token, token, sizeof(token))) {
            kpos_t *kp = pos_find(r, parts->elems[i].topic, parts->elems[i].partition);
            free(kp->held_by);
            kp->held_by = cdc_xstrdup(token);
            kp->held_since = cdc_mono_ms();
            cdc_log(CDC_LOG_INFO, NULL, t->name,
                    "topic \"%s\" partition %d is still read by the early-started process %s: "
                    "held back until its release",
                    kp->topic, (int)kp->partition, token);
        }
    if (!r->store_err)
        load_stored(r, &r->store_err);
    rd_kafka_topic_partition_list_t *by_time = rd_kafka_topic_partition_list_new(0);
    for (int i = 0; i < parts->cnt; i++) {
        rd_kafka_topic_partition_t *p = &parts->elems[i];
        int64_t kept = stored_offset(r, p->topic, p->partition);
        if (kept >= 0) {
            p->offset = kept;
            continue;
        }
        if (!known || c->elems[i].offset >= 0) {
            p->offset = known ? c->elems[i].offset : RD_KAFKA_OFFSET_INVALID;
            continue;
        }
        switch (t->start_mode) {
        case KAFKA_START_EARLIEST:
            p->offset = RD_KAFKA_OFFSET_BEGINNING;
            break;
        case KAFKA_START_LATEST:
            p->offset = RD_KAFKA_OFFSET_END;
            break;
        case KAFKA_START_SPECIFIC:
            p->offset = specific_offset(&t->start_offsets, p->partition);
            break;
        case KAFKA_START_TIMESTAMP:
            rd_kafka_topic_partition_list_add(by_time, p->topic, p->partition);
            break;
        default:
            p->offset = RD_KAFKA_OFFSET_INVALID; /* librdkafka: committed, else auto.offset.reset */
        }
    }
    if (by_time->cnt > 0 && offsets_for_time(r->rk, by_time, t->start_ts) == 0)
        for (int i = 0; i < by_time->cnt; i++) {
            rd_kafka_topic_partition_t *p = rd_kafka_topic_partition_list_find(
                parts, by_time->elems[i].topic, by_time->elems[i].partition);
            if (!p)
                continue;
            /* no offset: every message is older, or the broker (the mock cluster) does not
               look offsets up by time; read from the start and skip older messages */
            p->offset = by_time->elems[i].offset >= 0 ? by_time->elems[i].offset
                                                      : RD_KAFKA_OFFSET_BEGINNING;
            pos_find(r, p->topic, p->partition)->min_ts = t->start_ts;
        }
    rd_kafka_topic_partition_list_destroy(by_time);
    rd_kafka_topic_partition_list_destroy(c);
}

/* ---- partitions held back for an early reader's release (kafka_early.c, step 6) ---------- */

/* The held-back partitions (NULL: none); offsets unset. */
static rd_kafka_topic_partition_list_t *held_list(kafka_reader_t *r)
{
    rd_kafka_topic_partition_list_t *l = NULL;
    for (int i = 0; i < r->npos; i++)
        if (r->pos[i].held_by) {
            if (!l)
                l = rd_kafka_topic_partition_list_new(r->npos);
            rd_kafka_topic_partition_list_add(l, r->pos[i].topic, r->pos[i].partition);
        }
    return l;
}

/* After the assignment: the held-back partitions fetch nothing (what came before is dropped). */
static void hold_pause(kafka_reader_t *r)
{
    rd_kafka_topic_partition_list_t *l = held_list(r);
    if (!l)
        return;
    rd_kafka_pause_partitions(r->rk, l);
    rd_kafka_topic_partition_list_destroy(l);
}

/*
 * Every 100 ms while partitions are held back: those whose committed offset no longer carries
 * another early reader's token (released), or that waited max(session.timeout.ms, 10 s) (the
 * early reader is presumably gone: a warning), are read from their committed offset.
 */
static void hold_check(kafka_reader_t *r)
{
    int64_t now = cdc_mono_ms();
    if (now - r->last_hold_check < 100)
        return;
    r->last_hold_check = now;
    rd_kafka_topic_partition_list_t *l = held_list(r);
    if (!l)
        return;
    for (int i = 0; i < l->cnt; i++)
        l->elems[i].offset = RD_KAFKA_OFFSET_INVALID;
    if (rd_kafka_committed(r->rk, l, 10000) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        rd_kafka_topic_partition_list_destroy(l);
        return;
    }
    const kafka_table_t *t = &r->src->t;
    int64_t limit = kafka_early_wait_limit(t);
    rd_kafka_topic_partition_list_t *go = rd_kafka_topic_partition_list_new(l->cnt);
    char token[256];
    for (int i = 0; i < l->cnt; i++) {
        kpos_t *p = pos_find(r, l->elems[i].topic, l->elems[i].partition);
        bool still = kafka_early_foreign(&l->elems[i], r->token, token, sizeof(token));
        if (still && now - p->held_since < limit)
            continue;
        if (still)
            cdc_log(CDC_LOG_WARN, NULL, t->name,
                    "topic \"%s\" partition %d: the early-started process %s did not release "
                    "it within %lld ms (presumably gone); reading from its committed offset %lld",
                    p->topic, (int)p->partition, p->held_by, (long long)limit,
                    (long long)l->elems[i].offset);
        else
            cdc_log(CDC_LOG_INFO, NULL, t->name,
                    "topic \"%s\" partition %d released by %s: reading from offset %lld", p->topic,
                    (int)p->partition, p->held_by, (long long)l->elems[i].offset);
        free(p->held_by);
        p->held_by = NULL;
        rd_kafka_topic_partition_list_add(go, p->topic, p->partition)->offset =
            l->elems[i].offset >= 0 ? l->elems[i].offset : RD_KAFKA_OFFSET_BEGINNING;
    }
    if (go->cnt > 0) {
        rd_kafka_error_destroy(rd_kafka_seek_partitions(r->rk, go, 10000));
        rd_kafka_resume_partitions(r->rk, go);
    }
    rd_kafka_topic_partition_list_destroy(go);
    rd_kafka_topic_partition_list_destroy(l);
}

/*
 * A handover's release that the group refused (a rebalance began): tried again at the next
 * assignment and commit, for the partitions that still carry this reader's token (a member
 * that gave up waiting for it may have committed since).
 */
static void retry_release(kafka_reader_t *r)
{
    rd_kafka_topic_partition_list_t *c = rd_kafka_topic_partition_list_copy(r->unreleased);
    for (int i = 0; i < c->cnt; i++)
        c->elems[i].offset = RD_KAFKA_OFFSET_INVALID;
    rd_kafka_resp_err_t e = rd_kafka_committed(r->rk, c, 10000);
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(c->cnt);
    for (int i = 0; !e && i < c->cnt; i++)
        if (kafka_early_token(&c->elems[i], r->token))
            rd_kafka_topic_partition_list_add(l, c->elems[i].topic, c->elems[i].partition)->offset =
                r->unreleased->elems[i].offset;
    if (!e && l->cnt > 0)
        e = kafka_early_release(r->rk, l);
    if (!e) {
        cdc_log(CDC_LOG_INFO, NULL, r->src->t.name,
                "early start: %d partition(s) released to group \"%s\" (again)", l->cnt,
                r->src->t.group_id);
        rd_kafka_topic_partition_list_destroy(r->unreleased);
        r->unreleased = NULL;
    }
    rd_kafka_topic_partition_list_destroy(l);
    rd_kafka_topic_partition_list_destroy(c);
}

static bool cooperative(rd_kafka_t *rk)
{
    return strcmp(rd_kafka_rebalance_protocol(rk), "COOPERATIVE") == 0;
}

static void on_rebalance(rd_kafka_t *rk, rd_kafka_resp_err_t e,
                         rd_kafka_topic_partition_list_t *parts, void *opaque)
{
    kafka_reader_t *r = opaque;
    if (r->early) {
        /* early start: the first assignment is taken after the sink's flush (handover);
           nothing of the group's is assigned before it */
        if (r->handover)
            rd_kafka_topic_partition_list_destroy(r->handover);
        r->handover = NULL;
        if (e == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
            r->handover = rd_kafka_topic_partition_list_copy(parts);
            return;
        }
        if (cooperative(rk))
            rd_kafka_error_destroy(rd_kafka_incremental_unassign(rk, parts));
        else
            rd_kafka_assign(rk, NULL);
        return;
    }
    if (e == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
        if (r->unreleased)
            retry_release(r);
        start_positions(r, parts);
        cdc_log(CDC_LOG_INFO, NULL, r->src->t.name, "group \"%s\" assigned %d partition(s)",
                r->src->t.group_id, parts->cnt);
        if (cooperative(rk))
            rd_kafka_error_destroy(rd_kafka_incremental_assign(rk, parts));
        else
            rd_kafka_assign(rk, parts);
        hold_pause(r);
        return;
    }
    if (e == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS && !r->closing) {
        /* given up in commit(), after the runtime flushed the sink */
        if (rd_kafka_assignment_lost(rk)) {
            r->lost = true;
            pos_forget(r, parts);
        }
        if (r->revoked)
            rd_kafka_topic_partition_list_destroy(r->revoked);
        r->revoked = rd_kafka_topic_partition_list_copy(parts);
        r->revoke_pending = true;
        return;
    }
    pos_forget(r, e == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS ? parts : NULL);
    if (cooperative(rk))
        rd_kafka_error_destroy(rd_kafka_incremental_unassign(rk, parts));
    else
        rd_kafka_assign(rk, NULL);
}

/* ---- bounded: static assignment ---------------------------------------------------------- */

static int cmp_tp(const void *a, const void *b)
{
    const rd_kafka_topic_partition_t *x = a, *y = b;
    int c = strcmp(x->topic, y->topic);
    return c ? c : (x->partition > y->partition) - (x->partition < y->partition);
}

int kafka_list_partitions(const kafka_table_t *t, rd_kafka_t *rk,
                          rd_kafka_topic_partition_list_t **out, cdc_error_t **err)
{
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 1, NULL, &md, 30000);
    if (e) {
        cdc_error_destroy(*err);
        *err = kafka_error(t, e, "could not read the cluster's metadata");
        return -1;
    }
    regex_t re;
    if (t->pattern && regcomp(&re, t->pattern, REG_EXTENDED | REG_NOSUB) != 0) {
        rd_kafka_metadata_destroy(md);
        cdc_error_destroy(*err);
        *err = cdc_error_new(CDC_ERR_OPTION, "option \"topic-pattern\" is not a valid regular "
                                             "expression");
        return -1;
    }
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(16);
    for (int i = 0; i < md->topic_cnt; i++) {
        const struct rd_kafka_metadata_topic *mt = &md->topics[i];
        bool want = false;
        for (int k = 0; k < t->ntopics; k++)
            want = want || strcmp(t->topics[k], mt->topic) == 0;
        if (t->pattern)
            want = regexec(&re, mt->topic, 0, NULL, 0) == 0;
        if (!want || mt->err)
            continue;
        for (int p = 0; p < mt->partition_cnt; p++)
            rd_kafka_topic_partition_list_add(l, mt->topic, mt->partitions[p].id);
    }
    if (t->pattern)
        regfree(&re);
    for (int k = 0; k < t->ntopics; k++) {
        bool found = false;
        for (int i = 0; i < l->cnt && !found; i++)
            found = strcmp(l->elems[i].topic, t->topics[k]) == 0;
        if (!found) {
            rd_kafka_metadata_destroy(md);
            rd_kafka_topic_partition_list_destroy(l);
            cdc_error_destroy(*err);
            *err = kafka_error(t, 0, "topic \"%s\" does not exist", t->topics[k]);
            return -1;
        }
    }
    rd_kafka_metadata_destroy(md);
    qsort(l->elems, (size_t)l->cnt, sizeof(l->elems[0]), cmp_tp);
    *out = l;
    return 0;
}

static bool reset_is_earliest(const kafka_table_t *t)
{
    const char *v = cdc_kv_get(&t->props, "auto.offset.reset");
    return v && (strcmp(v, "earliest") == 0 || strcmp(v, "smallest") == 0 ||
                 strcmp(v, "beginning") == 0);
}

/* The key of a bounded partition's position kept across a re-plan (cdc_resume_note). */
static void resume_key(const kafka_reader_t *r, const char *topic, int32_t partition,
                       const char *what, char *out, size_t cap)
{
    snprintf(out, cap, "kafka\t%s\t%s\t%d\t%s", r->src->t.name, topic, (int)partition, what);
}

/* Resolves start and stop offsets of the split's partitions and assigns them. */
static int assign_bounded(kafka_reader_t *r, int split, int nsplits, cdc_error_t **err)
{
    const kafka_table_t *t = &r->src->t;
    rd_kafka_topic_partition_list_t *all = NULL;
    if (load_stored(r, err) < 0 || kafka_list_partitions(t, r->rk, &all, err) < 0)
        return -1;
    rd_kafka_topic_partition_list_t *mine = rd_kafka_topic_partition_list_new(all->cnt);
    for (int i = split; i < all->cnt; i += nsplits)
        rd_kafka_topic_partition_list_add(mine, all->elems[i].topic, all->elems[i].partition);
    rd_kafka_topic_partition_list_destroy(all);
    int n = mine->cnt;
    int64_t *lo = cdc_xcalloc((size_t)n + 1, sizeof(int64_t));
    int64_t *hi = cdc_xcalloc((size_t)n + 1, sizeof(int64_t));
    rd_kafka_resp_err_t e = 0;
    for (int i = 0; i < n && !e; i++)
        e = rd_kafka_query_watermark_offsets(r->rk, mine->elems[i].topic, mine->elems[i].partition,
                                             &lo[i], &hi[i], 30000);
    rd_kafka_topic_partition_list_t *start = rd_kafka_topic_partition_list_copy(mine);
    rd_kafka_topic_partition_list_t *stop = rd_kafka_topic_partition_list_copy(mine);
    if (!e && t->start_mode == KAFKA_START_TIMESTAMP)
        e = offsets_for_time(r->rk, start, t->start_ts);
    if (!e && t->bound_mode == KAFKA_BOUND_TIMESTAMP)
        e = offsets_for_time(r->rk, stop, t->bound_ts);
    rd_kafka_topic_partition_list_t *committed = rd_kafka_topic_partition_list_copy(mine);
    for (int i = 0; i < n; i++)
        committed->elems[i].offset = RD_KAFKA_OFFSET_INVALID;
    if (!e && (t->start_mode == KAFKA_START_GROUP || t->start_mode == KAFKA_START_SPECIFIC))
        e = rd_kafka_committed(r->rk, committed, 30000);
    int rc = 0;
    if (e) {
        cdc_error_destroy(*err);
        *err = kafka_error(t, e, "could not look up the offsets to read");
        rc = -1;
        goto out;
    }
    for (int i = 0; i < n; i++) {
        rd_kafka_topic_partition_t *p = &mine->elems[i];
        int64_t group = committed->elems[i].offset >= 0 ? committed->elems[i].offset
                        : reset_is_earliest(t)          ? lo[i]
                                                        : hi[i];
        int64_t from = group;
        switch (t->start_mode) {
        case KAFKA_START_EARLIEST:
            from = lo[i];
            break;
        case KAFKA_START_LATEST:
            from = hi[i];
            break;
        case KAFKA_START_TIMESTAMP:
            from = start->elems[i].offset >= 0 ? start->elems[i].offset : lo[i];
            break;
        case KAFKA_START_SPECIFIC: {
            int64_t o = specific_offset(&t->start_offsets, p->partition);
            from = o >= 0 ? o : group;
            break;
        }
        default:
            break;
        }
        int64_t until = hi[i];
        if (t->bound_mode == KAFKA_BOUND_TIMESTAMP && stop->elems[i].offset >= 0)
            until = stop->elems[i].offset;
        if (t->bound_mode == KAFKA_BOUND_SPECIFIC) {
            int64_t o = specific_offset(&t->bound_offsets, p->partition);
            if (o >= 0)
                until = o;
        }
        int64_t kept = stored_offset(r, p->topic, p->partition);
        if (kept >= 0)
            from = kept;
        /* the job planned again after a schema change goes on where the last reader
           stopped, up to the stop it had */
        char key[512];
        resume_key(r, p->topic, p->partition, "next", key, sizeof(key));
        int64_t res = cdc_resume_get(key);
        if (res >= 0)
            from = res;
        resume_key(r, p->topic, p->partition, "stop", key, sizeof(key));
        res = cdc_resume_get(key);
        if (res >= 0)
            until = res;
        cdc_resume_note(key, until);
        if (from < lo[i])
            from = lo[i];
        p->offset = from;
        kpos_t *kp = pos_find(r, p->topic, p->partition);
        kp->stop = until;
        if (t->start_mode == KAFKA_START_TIMESTAMP)
            kp->min_ts = t->start_ts;
        if (t->bound_mode == KAFKA_BOUND_TIMESTAMP)
            kp->stop_ts = t->bound_ts;
        r->nlive++;
        if (from >= until) {
            kp->done = true;
            r->nlive--;
        }
    }
    /* assign only what is left to read */
    rd_kafka_topic_partition_list_t *todo = rd_kafka_topic_partition_list_new(n);
    for (int i = 0; i < n; i++) {
        const kpos_t *kp = pos_find(r, mine->elems[i].topic, mine->elems[i].partition);
        if (!kp->done)
            rd_kafka_topic_partition_list_add(todo, kp->topic, kp->partition)->offset =
                mine->elems[i].offset;
    }
    e = rd_kafka_assign(r->rk, todo);
    rd_kafka_topic_partition_list_destroy(todo);
    if (e) {
        cdc_error_destroy(*err);
        *err = kafka_error(t, e, "could not assign the partitions to read");
        rc = -1;
    }
out:
    rd_kafka_topic_partition_list_destroy(committed);
    rd_kafka_topic_partition_list_destroy(start);
    rd_kafka_topic_partition_list_destroy(stop);
    rd_kafka_topic_partition_list_destroy(mine);
    free(lo);
    free(hi);
    return rc;
}

/* ---- dead letters ------------------------------------------------------------------------ */

static void on_dlq_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    kafka_reader_t *r = opaque;
    if (m->err && r->dlq_failed++ == 0)
        snprintf(r->dlq_err, sizeof(r->dlq_err), "%s", rd_kafka_err2str(m->err));
}

static int dlq_open(kafka_reader_t *r, cdc_error_t **err)
{
    const kafka_table_t *t = &r->src->t;
    const char *extra[] = {"enable.idempotence", "true", NULL};
    rd_kafka_conf_t *conf = kafka_conf_new(t, extra, err);
    if (!conf)
        return -1;
    rd_kafka_conf_set_dr_msg_cb(conf, on_dlq_delivery);
    rd_kafka_conf_set_opaque(conf, r);
    char errstr[512];
    r->dlq = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
    if (!r->dlq) {
        rd_kafka_conf_destroy(conf); /* (rd_kafka_new owns it only on success) */
        cdc_error_destroy(*err);
        *err = kafka_error(t, 0, "could not create the dead-letter producer");
        cdc_error_set_detail(*err, "%s", errstr);
        return -1;
    }
    r->dlq_rkt = rd_kafka_topic_new(r->dlq, t->dead_letter, NULL);
    return 0;
}

static void add_header_num(rd_kafka_headers_t *h, const char *name, long long v)
{
    char num[32];
    int n = snprintf(num, sizeof(num), "%lld", v);
    rd_kafka_header_add(h, name, -1, num, n);
}

/* Produces the raw message with the reason to the dead-letter topic (a rare path). */
static int dlq_send(kafka_reader_t *r, const rd_kafka_message_t *m, const char *reason,
                    cdc_error_t **err)
{
    rd_kafka_headers_t *orig = NULL;
    rd_kafka_headers_t *h = rd_kafka_message_headers(m, &orig) == RD_KAFKA_RESP_ERR_NO_ERROR
                                ? rd_kafka_headers_copy(orig)
                                : rd_kafka_headers_new(4);
    rd_kafka_header_add(h, "cdcflow.error", -1, reason, -1);
    const char *topic = rd_kafka_topic_name(m->rkt);
    rd_kafka_header_add(h, "cdcflow.topic", -1, topic, -1);
    add_header_num(h, "cdcflow.partition", m->partition);
    add_header_num(h, "cdcflow.offset", m->offset);
    for (;;) {
        rd_kafka_resp_err_t e = rd_kafka_producev(
            r->dlq, RD_KAFKA_V_RKT(r->dlq_rkt), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
            RD_KAFKA_V_KEY(m->key, m->key_len), RD_KAFKA_V_VALUE(m->payload, m->len),
            RD_KAFKA_V_HEADERS(h), RD_KAFKA_V_END);
        if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
            rd_kafka_poll(r->dlq, 100);
            continue;
        }
        if (e) {
            rd_kafka_headers_destroy(h);
            cdc_error_destroy(*err);
            *err = kafka_error(&r->src->t, e, "could not produce to the dead-letter topic \"%s\"",
                               r->src->t.dead_letter);
            return -1;
        }
        rd_kafka_poll(r->dlq, 0);
        return 0;
    }
}

/* ---- decoding -------------------------------------------------------------------------- */

static void set_where(kafka_reader_t *r, const rd_kafka_message_t *m, const char *fmt)
{
    snprintf(r->where, sizeof(r->where), "format \"%s\", topic \"%s\" partition %d offset %lld",
             fmt, rd_kafka_topic_name(m->rkt), (int)m->partition, (long long)m->offset);
}

/* A message that cannot be decoded: dead letter, or the job stops. */
static int bad_message(kafka_reader_t *r, const rd_kafka_message_t *m, const char *part,
                       cdc_deser_t *deser, const char *fmt, cdc_error_t **err)
{
    const char *reason = cdc_buf_cstr(&deser->errmsg);
    if (r->dlq)
        return dlq_send(r, m, reason, err);
    set_where(r, m, fmt);
    cdc_error_t *e = cdc_error_new(CDC_ERR_PARSE, "cannot decode the %s of a Kafka message", part);
    cdc_error_set_detail(e, "%s", reason);
    cdc_error_set_hint(e, "set 'scan.dead-letter.topic' to route such messages aside, or the "
                          "format's 'ignore-parse-errors' to skip them.");
    cdc_error_add_context(e, "%s", r->where);
    cdc_error_destroy(*err);
    *err = e;
    return -1;
}

static void fill_headers(const rd_kafka_message_t *m, cdc_arena_t *arena, cdc_value_t *v)
{
    rd_kafka_headers_t *h = NULL;
    v->flags = 0;
    v->v.arr = (cdc_array_t){0};
    if (rd_kafka_message_headers(m, &h) != RD_KAFKA_RESP_ERR_NO_ERROR)
        return;
    size_t n = rd_kafka_header_cnt(h);
    cdc_value_t *keys = cdc_arena_calloc(arena, sizeof(cdc_value_t) * (n + 1));
    cdc_value_t *vals = cdc_arena_calloc(arena, sizeof(cdc_value_t) * (n + 1));
    for (size_t i = 0; i < n; i++) {
        const char *name;
        const void *val;
        size_t size;
        rd_kafka_header_get_all(h, i, &name, &val, &size);
        keys[i].v.s = (cdc_str_t){name, (uint32_t)strlen(name)};
        if (val)
            vals[i].v.s = (cdc_str_t){val, (uint32_t)size};
        else
            vals[i].flags = CDC_V_NULL;
    }
    v->v.arr = (cdc_array_t){.n = (uint32_t)n, .elems = keys, .vals = vals};
}

static const char *const ts_types[] = {"NoTimestampType", "CreateTime", "LogAppendTime"};

static void fill_metadata(kafka_reader_t *r, const rd_kafka_message_t *m, const cdc_row_t *vrow,
                          cdc_row_t *o, cdc_arena_t *arena)
{
    const kafka_source_t *s = r->src;
    int nphys = s->t.schema->nchildren;
    for (int k = 0; k < s->nmd; k++) {
        cdc_value_t *v = &o->values[nphys + k];
        v->flags = 0;
        switch (s->md[k]) {
        case MD_TOPIC: {
            const char *tn = rd_kafka_topic_name(m->rkt);
            v->v.s = (cdc_str_t){tn, (uint32_t)strlen(tn)};
            break;
        }
        case MD_PARTITION:
            v->v.i = m->partition;
            break;
        case MD_OFFSET:
            v->v.i = m->offset;
            break;
        case MD_TIMESTAMP:
        case MD_TIMESTAMP_TYPE: {
            rd_kafka_timestamp_type_t tt;
            int64_t ts = rd_kafka_message_timestamp(m, &tt);
            if (s->md[k] == MD_TIMESTAMP) {
                v->v.ts = (cdc_ts_t){.millis = ts < 0 ? 0 : ts};
            } else {
                const char *name = ts_types[tt >= 0 && tt <= 2 ? tt : 0];
                v->v.s = (cdc_str_t){name, (uint32_t)strlen(name)};
            }
            break;
        }
        case MD_HEADERS:
            fill_headers(m, arena, v);
            break;
        case MD_KEY:
            if (m->key)
                v->v.s = (cdc_str_t){m->key, (uint32_t)m->key_len};
            else
                v->flags = CDC_V_NULL;
            break;
        case MD_VALUE:
            if (vrow)
                *v = vrow->values[s->t.nval + s->md_vidx[k]];
            else
                v->flags = CDC_V_NULL;
            break;
        }
    }
}

/* Decodes one message into out; returns 0 (rows added, or none) or -1. */
static int decode_message(kafka_reader_t *r, const rd_kafka_message_t *m, cdc_batch_t *out,
                          cdc_error_t **err)
{
    const kafka_source_t *s = r->src;
    if (!m->payload && !s->t.upsert)
        return 0; /* a tombstone carries no row for the kafka connector */
    const cdc_row_t *krow = NULL;
    if (r->kdeser && m->key) {
        uint32_t k0 = r->kbatch.n;
        int rc = r->kdeser->ops->decode(r->kdeser, m->key, m->key_len, &r->kbatch);
        if (rc != CDC_DECODE_OK) {
            cdc_batch_truncate(&r->kbatch, r->kbatch.n - k0);
            if (rc == CDC_DECODE_SKIPPED)
                return 0;
            return bad_message(r, m, "key", r->kdeser, s->t.key_fmt->factory->identifier, err);
        }
        if (r->kbatch.n > k0)
            krow = &r->kbatch.rows[k0];
    }
    uint32_t arity = (uint32_t)s->produced->nchildren;
    if (!m->payload) {
        /* upsert-kafka: a tombstone deletes its key */
        if (krow) {
            cdc_row_t *o = cdc_batch_add(out, CDC_DELETE, arity);
            for (int j = 0; j < s->t.nkey; j++)
                o->values[s->t.key_idx[j]] = krow->values[j];
            fill_metadata(r, m, NULL, o, &out->arena);
        }
        return 0;
    }
    cdc_batch_t *vb = s->direct ? out : &r->vbatch;
    uint32_t v0 = vb->n;
    int rc = r->vdeser->ops->decode(r->vdeser, m->payload, m->len, vb);
    if (rc == CDC_DECODE_SCHEMA) {
        /* the poll ends before this message; the next one decodes it again (its decoder then
           has the new schema: no second change) */
        cdc_batch_truncate(vb, vb->n - v0);
        const cdc_schema_change_t *const *changes = NULL;
        const uint32_t *at = NULL;
        if (r->vdeser->ops->schema_changes(r->vdeser, &changes, &at) < 1)
            return 0;
        cdc_schema_change_free(r->change);
        r->change = cdc_schema_change_copy(changes[0]);
        free(r->change->position);
        r->change->position =
            cdc_strdup_printf("topic %s partition %d offset %lld", rd_kafka_topic_name(m->rkt),
                              (int)m->partition, (long long)m->offset);
        if (strcmp(r->change->table, r->src->t.name) == 0) { /* no source block: the topic */
            free(r->change->table);
            r->change->table = cdc_xstrdup(rd_kafka_topic_name(m->rkt));
        }
        return 1;
    }
    if (rc != CDC_DECODE_OK) {
        cdc_batch_truncate(vb, vb->n - v0);
        if (rc == CDC_DECODE_SKIPPED)
            return 0;
        return bad_message(r, m, "value", r->vdeser, s->t.value_fmt->factory->identifier, err);
    }
    if (s->direct)
        return 0;
    for (uint32_t i = v0; i < vb->n; i++) {
        const cdc_row_t *vr = &vb->rows[i];
        cdc_row_t *o = cdc_batch_add(out, s->t.upsert ? CDC_UPDATE_AFTER : vr->kind, arity);
        if (krow)
            for (int j = 0; j < s->t.nkey; j++)
                o->values[s->t.key_idx[j]] = krow->values[j];
        for (int j = 0; j < s->t.nval; j++)
            o->values[s->t.val_idx[j]] = vr->values[j];
        o->origin = vr->origin;
        fill_metadata(r, m, vr, o, &out->arena);
    }
    return 0;
}

/* ---- the reader ------------------------------------------------------------------------ */

static void release_held(kafka_reader_t *r)
{
    for (uint32_t i = 0; i < r->nheld; i++)
        rd_kafka_message_destroy(r->held[i]);
    r->nheld = 0;
}

static void hold(kafka_reader_t *r, rd_kafka_message_t *m)
{
    if (r->nheld == r->capheld) {
        r->capheld = r->capheld ? 2 * r->capheld : 1024;
        r->held = cdc_xrealloc(r->held, sizeof(*r->held) * r->capheld);
    }
    r->held[r->nheld++] = m;
}

/* An event instead of a message; returns 0 to go on, -1 when the job must stop. */
static int on_event(kafka_reader_t *r, const rd_kafka_message_t *m, cdc_error_t **err)
{
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        if (r->bounded && m->rkt) {
            kpos_t *p = pos_find(r, rd_kafka_topic_name(m->rkt), m->partition);
            if (m->offset >= p->stop)
                mark_done(r, p);
        }
        return 0;
    }
    char reason[512];
    rd_kafka_resp_err_t fe = rd_kafka_fatal_error(r->rk, reason, sizeof(reason));
    if (fe) {
        cdc_error_destroy(*err);
        *err = kafka_error(&r->src->t, fe, "the Kafka consumer failed");
        cdc_error_set_detail(*err, "%s", reason);
        return -1;
    }
    /* broker down, leader change, network errors, a topic not there yet: librdkafka retries;
       say so now and then, since a consumer's errors reach only the application */
    int64_t now = (int64_t)time(NULL);
    if (m->err != r->last_event_err || now - r->last_event_warn >= 10) {
        r->last_event_err = m->err;
        r->last_event_warn = now;
        cdc_log(CDC_LOG_WARN, NULL, r->src->t.name, "%s (retrying)", rd_kafka_message_errstr(m));
    }
    return 0;
}

/* One message or event from the queue; returns 0 to go on, 1 when the value format met a
   schema change before this message (r->change; the message is not consumed), -1 when the job
   must stop. */
static int take(kafka_reader_t *r, rd_kafka_message_t *m, cdc_batch_t *out, cdc_error_t **err)
{
    if (m->err) {
        int rc = on_event(r, m, err);
        rd_kafka_message_destroy(m);
        return rc;
    }
    kpos_t *p = pos_find(r, rd_kafka_topic_name(m->rkt), m->partition);
    if (p->held_by) { /* fetched before the pause: read again from the released offset */
        rd_kafka_message_destroy(m);
        return 0;
    }
    if (r->bounded && (p->done || m->offset >= p->stop)) {
        mark_done(r, p);
        rd_kafka_message_destroy(m);
        return 0;
    }
    if (p->min_ts != INT64_MIN || p->stop_ts != INT64_MAX) {
        int64_t ts = rd_kafka_message_timestamp(m, NULL);
        if (ts >= p->stop_ts) {
            mark_done(r, p);
            rd_kafka_message_destroy(m);
            return 0;
        }
        if (ts < p->min_ts) {
            p->next = m->offset + 1;
            rd_kafka_message_destroy(m);
            return 0;
        }
    }
    hold(r, m);
    int rc = decode_message(r, m, out, err);
    if (rc < 0)
        return -1;
    if (rc > 0) { /* a schema change before this message: it is not consumed yet */
        r->nheld--;
        return 1;
    }
    p->next = m->offset + 1;
    if (r->bounded && p->next >= p->stop)
        mark_done(r, p);
    return 0;
}

#define KAFKA_BATCH 256

/*
 * The queue ran dry while messages were coming: wakes a fetcher. librdkafka 2.0 decides
 * again whether to fetch partitions whose queue was full (queued.max.messages.kbytes) only
 * when their broker's thread wakes, up to a second later; a request to that broker (a
 * watermark query, answered from memory) wakes it now. At most every 20 ms, one broker per
 * kick in turn, so that the small queue of the memory bound costs no waiting.
 */
static void kick_fetcher(kafka_reader_t *r)
{
    int64_t now = cdc_mono_ms();
    if (r->npos == 0 || now - r->last_kick < 20)
        return;
    r->last_kick = now;
    const kpos_t *p = &r->pos[r->kick_next++ % r->npos];
    int64_t lo, hi;
    rd_kafka_query_watermark_offsets(r->early ? r->early->rk : r->rk, p->topic, p->partition, &lo,
                                     &hi, 100);
}

/* Keeps msgs[0..n) for the next poll, in order, after those still pending. */
static void keep_pending(kafka_reader_t *r, rd_kafka_message_t **msgs, uint32_t n)
{
    if (r->pending_next > 0) { /* drop the taken front */
        memmove(r->pending, r->pending + r->pending_next,
                (r->npending - r->pending_next) * sizeof(*r->pending));
        r->npending -= r->pending_next;
        r->pending_next = 0;
    }
    if (r->npending + n > r->cappending) {
        r->cappending = r->npending + n + 16;
        r->pending = cdc_xrealloc(r->pending, r->cappending * sizeof(*r->pending));
    }
    memcpy(r->pending + r->npending, msgs, n * sizeof(*msgs));
    r->npending += n;
}

/* Takes the messages a schema change left; CDC_POLL_SCHEMA when one meets another change. */
static int take_pending(kafka_reader_t *r, cdc_batch_t *out, cdc_error_t **err)
{
    while (r->pending_next < r->npending) {
        rd_kafka_message_t *m = r->pending[r->pending_next++];
        int rc = take(r, m, out, err);
        if (rc < 0)
            return CDC_POLL_ERROR;
        if (rc > 0) {
            r->pending[--r->pending_next] = m;
            r->change_ready = true;
            return CDC_POLL_SCHEMA;
        }
    }
    r->npending = r->pending_next = 0;
    return CDC_POLL_OK;
}

/* ---- early start (kafka_early.c) -------------------------------------------------------- */

/* At the first poll: start early, or subscribe as usual. */
static int early_decide(kafka_reader_t *r, cdc_error_t **err)
{
    const kafka_table_t *t = &r->src->t;
    const char *why = r->store                                 ? "the sink keeps the positions"
                      : t->start_mode == KAFKA_START_TIMESTAMP ? "scan.startup.mode is timestamp"
                                                               : NULL;
    if (why) {
        cdc_log(CDC_LOG_INFO, NULL, t->name, "no early start: %s", why);
        rd_kafka_resp_err_t e = kafka_subscribe(t, r->rk);
        if (e) {
            cdc_error_destroy(*err);
            *err = kafka_error(t, e, "could not subscribe to the topics");
            return -1;
        }
        return 0;
    }
    return kafka_early_begin(t, r->extra, r->rk, r->src->early, r->split, r->nsplits, &r->early,
                             r->token, sizeof(r->token), err) < 0
               ? -1
               : 0;
}

/* Early: serves the group consumer's queue (its rebalance callback notes the assignment). */
static int early_serve_group(kafka_reader_t *r, cdc_error_t **err)
{
    rd_kafka_message_t *msgs[16];
    ssize_t n = rd_kafka_consume_batch_queue(r->queue, 0, msgs, 16);
    for (ssize_t i = 0; i < n; i++) {
        int rc = msgs[i]->err ? on_event(r, msgs[i], err) : 0;
        rd_kafka_message_destroy(msgs[i]); /* (no message before the group's assignment) */
        if (rc < 0) {
            for (ssize_t j = i + 1; j < n; j++)
                rd_kafka_message_destroy(msgs[j]);
            return -1;
        }
    }
    return 0;
}

/* The early consumer's partitions at the durable positions (their start offsets if none). */
static rd_kafka_topic_partition_list_t *early_durable(kafka_reader_t *r)
{
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_copy(r->early->parts);
    for (int i = 0; i < l->cnt; i++) {
        const kpos_t *p = pos_get(r, l->elems[i].topic, l->elems[i].partition);
        if (p && p->durable >= 0)
            l->elems[i].offset = p->durable;
    }
    return l;
}

/*
 * The group's first assignment, after the runtime made every row read early durable: the
 * group consumer commits the positions of every partition read early with empty metadata
 * (released; the members given them wait for that), then takes its assignment from the
 * committed offsets as usual.
 */
static void handover(kafka_reader_t *r)
{
    const kafka_table_t *t = &r->src->t;
    rd_kafka_topic_partition_list_t *l = early_durable(r);
    rd_kafka_resp_err_t e = kafka_early_release(r->rk, l);
    if (e) {
        cdc_log(CDC_LOG_WARN, NULL, t->name,
                "early start: could not commit the positions of %d partition(s) to group "
                "\"%s\": %s (tried again at the next assignment; meanwhile their next owners "
                "hold them back until then, up to their timeout, then read again from the start "
                "offsets: rows are applied again)",
                l->cnt, t->group_id, rd_kafka_err2str(e));
        r->unreleased = l;
    } else {
        cdc_log(CDC_LOG_INFO, NULL, t->name,
                "early start over: %d partition(s) committed at the positions read and handed "
                "over to group \"%s\"",
                l->cnt, t->group_id);
        rd_kafka_topic_partition_list_destroy(l);
    }
    /* the early consumer's messages: the held ones are released by the next poll (then the
       consumer is closed); the pending ones (after a schema change) are read again */
    for (uint32_t i = r->pending_next; i < r->npending; i++)
        rd_kafka_message_destroy(r->pending[i]);
    r->npending = r->pending_next = 0;
    r->early_old = r->early;
    r->early = NULL;
    pos_forget(r, NULL);
    rd_kafka_topic_partition_list_t *parts = r->handover;
    r->handover = NULL;
    r->handover_asked = false;
    on_rebalance(r->rk, RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS, parts, r);
    rd_kafka_topic_partition_list_destroy(parts);
}

#define EARLY_CLOSE_WAIT_MS 10000 /* closing while early: the longest wait for the assignment */

/*
 * Closing while early, before the group consumer leaves: waits (bounded) for the group's
 * first assignment and commits the durable positions through the group, released (a commit
 * from outside the group is refused while it has members, and by the mock cluster once the
 * group was joined). Returns whether they were.
 */
static bool early_close_in_group(kafka_reader_t *r)
{
    int64_t deadline = cdc_mono_ms() + EARLY_CLOSE_WAIT_MS;
    cdc_error_t *err = NULL;
    while (!r->handover && cdc_mono_ms() < deadline) {
        rd_kafka_message_t *m[16];
        ssize_t n = rd_kafka_consume_batch_queue(r->queue, 100, m, 16);
        for (ssize_t i = 0; i < n; i++) {
            if (m[i]->err)
                on_event(r, m[i], &err);
            rd_kafka_message_destroy(m[i]);
        }
        if (err)
            break;
    }
    cdc_error_destroy(err);
    if (!r->handover)
        return false;
    rd_kafka_topic_partition_list_t *l = early_durable(r);
    rd_kafka_resp_err_t e = kafka_early_release(r->rk, l);
    rd_kafka_topic_partition_list_destroy(l);
    if (cooperative(r->rk))
        rd_kafka_error_destroy(rd_kafka_incremental_assign(r->rk, r->handover));
    else
        rd_kafka_assign(r->rk, r->handover);
    if (!e)
        cdc_log(CDC_LOG_INFO, NULL, r->src->t.name,
                "early start over on closing: positions committed to group \"%s\"",
                r->src->t.group_id);
    return !e;
}

/* Closing while early, after the group consumer left: releases the durable positions from
   outside the group (Kafka accepts it when the group is empty now), unless done. */
static void early_close(kafka_reader_t *r, bool released)
{
    const kafka_table_t *t = &r->src->t;
    rd_kafka_topic_partition_list_t *l = early_durable(r);
    rd_kafka_resp_err_t e = released ? 0 : kafka_early_release(r->early->rk, l);
    if (e)
        cdc_log(CDC_LOG_WARN, NULL, t->name,
                "early start: could not commit the positions of %d partition(s) to group "
                "\"%s\" on closing: %s (the next start reads again from the start offsets)",
                l->cnt, t->group_id, rd_kafka_err2str(e));
    rd_kafka_topic_partition_list_destroy(l);
    kafka_early_destroy(r->early);
    r->early = NULL;
}

static int kr_poll(cdc_reader_t *base, cdc_batch_t *out, uint32_t max_rows, cdc_error_t **err)
{
    kafka_reader_t *r = (kafka_reader_t *)base;
    release_held(r);
    r->change_ready = false;
    cdc_batch_reset(&r->vbatch);
    cdc_batch_reset(&r->kbatch);
    if (r->store_err) {
        cdc_error_destroy(*err);
        *err = r->store_err;
        r->store_err = NULL;
        return CDC_POLL_ERROR;
    }
    kafka_early_destroy(r->early_old); /* its messages are released */
    r->early_old = NULL;
    if (r->early_todo) {
        r->early_todo = false;
        if (early_decide(r, err) < 0)
            return CDC_POLL_ERROR;
    }
    if (r->early && early_serve_group(r, err) < 0)
        return CDC_POLL_ERROR;
    if (r->handover && r->handover_asked) {
        /* flushed (CDC_POLL_FLUSH) without a commit(): a job that never commits offsets */
        for (int i = 0; i < r->npos; i++)
            r->pos[i].durable = r->pos[i].next;
        handover(r);
    }
    if (r->handover) {
        r->handover_asked = true;
        return CDC_POLL_FLUSH;
    }
    if (r->revoke_pending)
        return CDC_POLL_FLUSH;
    if (!r->early && !r->bounded)
        hold_check(r);
    if (r->bounded && !r->assigned) {
        /* here, not at open: the sink's positions are known only after open */
        if (assign_bounded(r, r->split, r->nsplits, err) < 0)
            return CDC_POLL_ERROR;
        r->assigned = true;
    }
    if (r->npending > 0) {
        int rc = take_pending(r, out, err);
        if (rc != CDC_POLL_OK)
            return rc;
    }
    if (r->bounded && r->nlive == 0)
        return CDC_POLL_END;
    rd_kafka_message_t *msgs[KAFKA_BATCH];
    bool waited = false;
    rd_kafka_queue_t *queue = r->early ? r->early->queue : r->queue;
    while (out->n < max_rows && !r->revoke_pending && !(r->bounded && r->nlive == 0)) {
        size_t want = max_rows - out->n < KAFKA_BATCH ? max_rows - out->n : KAFKA_BATCH;
        ssize_t n = rd_kafka_consume_batch_queue(queue, 0, msgs, want);
        if (n == 0 && !waited) {
            /* nothing there: block up to 100 ms for one message (never spin, never hang) */
            if (r->had_messages)
                kick_fetcher(r);
            waited = true;
            n = rd_kafka_consume_batch_queue(queue, 100, msgs, 1);
        }
        if (n <= 0)
            break;
        waited = true;
        for (ssize_t i = 0; i < n; i++) {
            int rc = take(r, msgs[i], out, err);
            if (rc < 0) {
                for (ssize_t j = i + 1; j < n; j++)
                    rd_kafka_message_destroy(msgs[j]);
                return CDC_POLL_ERROR;
            }
            if (rc > 0) {
                keep_pending(r, msgs + i, (uint32_t)(n - i));
                r->change_ready = true;
                return CDC_POLL_SCHEMA;
            }
        }
    }
    r->had_messages = out->n > 0;
    return r->revoke_pending ? CDC_POLL_FLUSH : CDC_POLL_OK;
}

static void commit_warning(kafka_reader_t *r, rd_kafka_resp_err_t e)
{
    int64_t now = (int64_t)time(NULL);
    if (e == r->last_commit_err && now - r->last_commit_warn < 10)
        return;
    r->last_commit_err = e;
    r->last_commit_warn = now;
    /* not fatal: the rows are in the sink; whoever reads the partitions next replays
       from the last commit and the sink rewrites them (at-least-once) */
    cdc_log(CDC_LOG_WARN, NULL, r->src->t.name,
            "could not commit offsets of group \"%s\": %s (the rows are written; a replay from "
            "the previous commit rewrites them)",
            r->src->t.group_id, rd_kafka_err2str(e));
}

static void on_commit(rd_kafka_t *rk, rd_kafka_resp_err_t e,
                      rd_kafka_topic_partition_list_t *offsets, void *opaque)
{
    (void)rk;
    kafka_reader_t *r = opaque;
    for (int i = 0; !e && offsets && i < offsets->cnt; i++)
        e = offsets->elems[i].err;
    if (e && e != RD_KAFKA_RESP_ERR__NO_OFFSET)
        commit_warning(r, e);
}

/*
 * Commits the durable offsets not committed yet (all when `all`). Periodic
 * commits are asynchronous (the pipeline does not wait a round trip every
 * flush); before partitions are given up and when the reader closes they are
 * synchronous, so what was written is committed before anyone else reads on.
 */
static void commit_positions(kafka_reader_t *r, bool sync, bool all)
{
    if (r->early)
        return; /* the group is not empty: nothing can be committed until the handover */
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(r->npos);
    for (int i = 0; i < r->npos; i++)
        if (r->pos[i].durable >= 0 && (all || r->pos[i].durable > r->pos[i].committed))
            rd_kafka_topic_partition_list_add(l, r->pos[i].topic, r->pos[i].partition)->offset =
                r->pos[i].durable;
    if (l->cnt > 0) {
        rd_kafka_resp_err_t e = rd_kafka_commit(r->rk, l, sync ? 0 : 1);
        for (int i = 0; sync && !e && i < l->cnt; i++)
            e = l->elems[i].err;
        if (e)
            commit_warning(r, e);
        else
            for (int i = 0; i < r->npos; i++)
                if (r->pos[i].durable > r->pos[i].committed)
                    r->pos[i].committed = r->pos[i].durable;
    }
    for (int i = 0; r->bounded && i < r->npos; i++) {
        char key[512];
        resume_key(r, r->pos[i].topic, r->pos[i].partition, "next", key, sizeof(key));
        if (r->pos[i].durable >= 0)
            cdc_resume_note(key, r->pos[i].durable);
    }
    rd_kafka_topic_partition_list_destroy(l);
}

/* Dead letters are durable before the offsets that skip them are committed. */
static int dlq_drain(kafka_reader_t *r, cdc_error_t **err)
{
    if (!r->dlq)
        return 0;
    while (rd_kafka_outq_len(r->dlq) > 0)
        rd_kafka_flush(r->dlq, 1000);
    if (!r->dlq_failed)
        return 0;
    cdc_error_destroy(*err);
    *err = kafka_error(&r->src->t, 0,
                       "could not deliver %llu message(s) to the dead-letter topic \"%s\"",
                       (unsigned long long)r->dlq_failed, r->src->t.dead_letter);
    cdc_error_set_detail(*err, "%s", r->dlq_err);
    return -1;
}

static int kr_commit(cdc_reader_t *base, cdc_error_t **err)
{
    kafka_reader_t *r = (kafka_reader_t *)base;
    if (dlq_drain(r, err) < 0)
        return -1;
    for (int i = 0; i < r->npos; i++)
        r->pos[i].durable = r->pos[i].next;
    r->lost = false;
    if (r->handover) {
        handover(r);
        return 0;
    }
    if (r->unreleased && !r->revoke_pending)
        retry_release(r);
    commit_positions(r, r->revoke_pending, false);
    if (r->revoke_pending) {
        cdc_log(CDC_LOG_INFO, NULL, r->src->t.name,
                "group \"%s\" rebalances: %d partition(s) given up after the sink's flush and "
                "the commit of their offsets",
                r->src->t.group_id, r->revoked ? r->revoked->cnt : 0);
        if (cooperative(r->rk))
            rd_kafka_error_destroy(rd_kafka_incremental_unassign(r->rk, r->revoked));
        else
            rd_kafka_assign(r->rk, NULL);
        pos_forget(r, cooperative(r->rk) ? r->revoked : NULL);
        rd_kafka_topic_partition_list_destroy(r->revoked);
        r->revoked = NULL;
        r->revoke_pending = false;
    }
    return 0;
}

/* The overlapped commit (cdc_plugin.h): the offsets of what was read so far... */
static void kr_mark(cdc_reader_t *base)
{
    kafka_reader_t *r = (kafka_reader_t *)base;
    for (int i = 0; i < r->npos; i++)
        r->pos[i].marked = r->pos[i].next;
}

/* ...committed once the sink says the rows before them are durable (asynchronously). */
static int kr_commit_mark(cdc_reader_t *base, cdc_error_t **err)
{
    kafka_reader_t *r = (kafka_reader_t *)base;
    if (dlq_drain(r, err) < 0)
        return -1;
    for (int i = 0; i < r->npos; i++)
        if (r->pos[i].marked > r->pos[i].durable)
            r->pos[i].durable = r->pos[i].marked;
    commit_positions(r, false, false);
    return 0;
}

static int kr_positions(cdc_reader_t *base, cdc_buf_t *out, cdc_error_t **err)
{
    kafka_reader_t *r = (kafka_reader_t *)base;
    if (dlq_drain(r, err) < 0)
        return -1;
    if (r->lost || rd_kafka_assignment_lost(r->rk)) {
        /* rows of partitions another consumer may already be reading are in the sink's
           unfinished files: deciding now could show them twice; nothing is decided */
        cdc_error_destroy(*err);
        *err = kafka_error(&r->src->t, 0,
                           "group \"%s\" took partitions from this consumer before the rows read "
                           "from them were committed",
                           r->src->t.group_id);
        cdc_error_set_detail(*err, "the consumer missed its session timeout or "
                                   "max.poll.interval.ms; the rows since the last commit are not "
                                   "committed, and their partitions' new owner reads them");
        cdc_error_set_hint(*err, "run again; if it recurs, raise "
                                 "'properties.session.timeout.ms' or commit more often");
        return -1;
    }
    for (int i = 0; i < r->npos; i++)
        if (r->pos[i].next >= 0)
            cdc_buf_printf(out, "kafka/%s/%d\t%lld\n", r->pos[i].topic, (int)r->pos[i].partition,
                           (long long)r->pos[i].next);
    return 0;
}

static void kr_set_position_store(cdc_reader_t *base, const cdc_position_store_t *store)
{
    ((kafka_reader_t *)base)->store = store;
}

static void kr_close(cdc_reader_t *base)
{
    kafka_reader_t *r = (kafka_reader_t *)base;
    if (!r)
        return;
    r->closing = true;
    release_held(r);
    for (uint32_t i = r->pending_next; i < r->npending; i++)
        rd_kafka_message_destroy(r->pending[i]);
    free(r->pending);
    cdc_schema_change_free(r->change);
    if (r->rk && r->npos > 0 && !r->lost && !rd_kafka_assignment_lost(r->rk))
        commit_positions(r, true, true); /* the last async commits may still be in flight */
    if (r->rk && r->revoke_pending) {
        /* a revoke the runtime did not get to finish (an error came first): librdkafka waits
           for it, and would wait in consumer_close forever */
        if (cooperative(r->rk))
            rd_kafka_error_destroy(rd_kafka_incremental_unassign(r->rk, r->revoked));
        else
            rd_kafka_assign(r->rk, NULL);
        r->revoke_pending = false;
    }
    bool released = r->queue && r->early && early_close_in_group(r);
    if (r->queue)
        rd_kafka_queue_destroy(r->queue);
    if (r->rk) {
        rd_kafka_consumer_close(r->rk);
        rd_kafka_destroy(r->rk);
    }
    if (r->early) /* after the group consumer left: the group may be empty now */
        early_close(r, released);
    kafka_early_destroy(r->early_old);
    if (r->handover)
        rd_kafka_topic_partition_list_destroy(r->handover);
    if (r->unreleased)
        rd_kafka_topic_partition_list_destroy(r->unreleased);
    if (r->dlq) {
        rd_kafka_flush(r->dlq, 10000);
        rd_kafka_topic_destroy(r->dlq_rkt);
        rd_kafka_destroy(r->dlq);
    }
    if (r->revoked)
        rd_kafka_topic_partition_list_destroy(r->revoked);
    if (r->vdeser) {
        if (r->vdeser->skipped)
            cdc_log(CDC_LOG_WARN, NULL, r->src->t.name,
                    "skipped %llu message(s) that could not be decoded (ignore-parse-errors)",
                    (unsigned long long)r->vdeser->skipped);
        r->vdeser->ops->destroy(r->vdeser);
    }
    if (r->kdeser)
        r->kdeser->ops->destroy(r->kdeser);
    cdc_batch_free(&r->vbatch);
    cdc_batch_free(&r->kbatch);
    cdc_buf_free(&r->stored);
    cdc_error_destroy(r->store_err);
    pos_forget(r, NULL);
    free(r->pos);
    free(r->held);
    free(r);
}

/* Gauges per partition: next offset, committed offset, lag from the cached high watermark. */
static void kr_metrics(cdc_reader_t *base, cdc_metric_emit_fn emit, void *ctx)
{
    kafka_reader_t *r = (kafka_reader_t *)base;
    char labels[160];
    for (int i = 0; i < r->npos; i++) {
        const kpos_t *p = &r->pos[i];
        if (p->next < 0)
            continue;
        snprintf(labels, sizeof(labels), "topic=\"%s\",partition=\"%d\"", p->topic,
                 (int)p->partition);
        emit(ctx, "cdcflow_source_offset", labels, (double)p->next);
        if (p->committed >= 0)
            emit(ctx, "cdcflow_source_committed_offset", labels, (double)p->committed);
        int64_t lo = -1, hi = -1;
        if (rd_kafka_get_watermark_offsets(r->early ? r->early->rk : r->rk, p->topic, p->partition,
                                           &lo, &hi) == RD_KAFKA_RESP_ERR_NO_ERROR &&
            hi >= 0)
            emit(ctx, "cdcflow_source_lag_records", labels,
                 (double)(hi > p->next ? hi - p->next : 0));
    }
    uint64_t skipped = r->vdeser ? r->vdeser->skipped : 0;
    emit(ctx, "cdcflow_source_decode_errors_total", "", (double)skipped);
}

static const cdc_schema_change_t *kr_schema_change(cdc_reader_t *base)
{
    kafka_reader_t *r = (kafka_reader_t *)base;
    return r->change_ready ? r->change : NULL;
}

static const cdc_reader_ops_t kafka_reader_ops = {
    .schema_change = kr_schema_change,
    .poll = kr_poll,
    .commit = kr_commit,
    .close = kr_close,
    .metrics = kr_metrics,
    .positions = kr_positions,
    .set_position_store = kr_set_position_store,
    .mark = kr_mark,
    .commit_mark = kr_commit_mark,
};

static int open_deser(const kafka_source_t *s, const cdc_table_format_t *f, const cdc_type_t *row,
                      const char *const *meta, int nmeta, cdc_deser_t **out, cdc_error_t **err)
{
    if (!f->factory->deser_new) {
        cdc_error_destroy(*err);
        *err = cdc_error_new(CDC_ERR_PLAN, "format \"%s\" cannot decode", f->factory->identifier);
        cdc_error_add_context(*err, "kafka table \"%s\"", s->t.name);
        return -1;
    }
    cdc_format_ctx_t fctx = {
        .cfg = f->cfg, .row_type = row, .metadata = meta, .nmetadata = nmeta, .table = s->t.name};
    return f->factory->deser_new(&fctx, out, err);
}

static int ks_open_reader(cdc_source_t *base, int split, int nsplits, cdc_reader_t **out,
                          cdc_error_t **err)
{
    kafka_source_t *s = (kafka_source_t *)base;
    const kafka_table_t *t = &s->t;
    kafka_reader_t *r = cdc_xcalloc(1, sizeof(*r));
    r->base.ops = &kafka_reader_ops;
    r->src = s;
    r->bounded = t->bound_mode != KAFKA_BOUND_NONE;
    cdc_batch_init(&r->vbatch);
    cdc_batch_init(&r->kbatch);
    if (open_deser(s, t->value_fmt, t->val_type, (const char *const *)s->vmeta, s->nvmeta,
                   &r->vdeser, err) < 0)
        goto fail;
    if (t->key_fmt && open_deser(s, t->key_fmt, t->key_type, NULL, 0, &r->kdeser, err) < 0)
        goto fail;
    if (t->dead_letter && dlq_open(r, err) < 0)
        goto fail;
    const char **extra = r->extra;
    char *queue_kb = r->queue_kb;
    extra[0] = "group.id";
    extra[1] = t->group_id;
    extra[2] = "enable.auto.commit";
    extra[3] = "false";
    extra[4] = "enable.auto.offset.store";
    extra[5] = "false";
    extra[6] = "enable.partition.eof";
    extra[7] = r->bounded ? "true" : "false";
    int nx = 8;
    /*
     * The memory bound (README, "kafka"): librdkafka 2.0 stops fetching while the
     * consumer queue is over these thresholds (kick_fetcher makes it look again
     * soon). The message count is set out of the way; the bytes are 8 MB per
     * job, shared by its splits (at least 4 MB each), and a
     * fetch brings at most 2 MB (64 kB per partition): the queue holds what a
     * reader decodes in a few tens of milliseconds, and the memory it takes does
     * not grow with the number of partitions. Set unless the properties set them.
     */
    if (!cdc_kv_get(&t->props, "queued.min.messages")) {
        extra[nx++] = "queued.min.messages";
        extra[nx++] = "1000000";
    }
    if (!cdc_kv_get(&t->props, "queued.max.messages.kbytes")) {
        int kb = 8192 / (nsplits > 0 ? nsplits : 1);
        snprintf(queue_kb, sizeof(r->queue_kb), "%d", kb < 4096 ? 4096 : kb);
        extra[nx++] = "queued.max.messages.kbytes";
        extra[nx++] = queue_kb;
    }
    if (!cdc_kv_get(&t->props, "fetch.max.bytes")) {
        extra[nx++] = "fetch.max.bytes";
        extra[nx++] = "2097152";
    }
    if (!cdc_kv_get(&t->props, "max.partition.fetch.bytes")) {
        extra[nx++] = "max.partition.fetch.bytes";
        extra[nx++] = "65536";
    }
    extra[nx] = NULL;
    rd_kafka_conf_t *conf = kafka_conf_new(t, extra, err);
    if (!conf)
        goto fail;
    rd_kafka_conf_set_opaque(conf, r);
    if (!r->bounded)
        rd_kafka_conf_set_rebalance_cb(conf, on_rebalance);
    rd_kafka_conf_set_offset_commit_cb(conf, on_commit);
    char errstr[512];
    r->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
    if (!r->rk) {
        rd_kafka_conf_destroy(conf); /* (rd_kafka_new owns it only on success) */
        cdc_error_destroy(*err);
        *err = kafka_error(t, 0, "could not create the Kafka consumer");
        cdc_error_set_detail(*err, "%s", errstr);
        goto fail;
    }
    rd_kafka_poll_set_consumer(r->rk);
    r->queue = rd_kafka_queue_get_consumer(r->rk);
    r->split = split;
    r->nsplits = nsplits;
    if (!r->bounded && s->early) {
        r->early_todo = true; /* at the first poll, when the sink's positions are known */
    } else if (!r->bounded) {
        rd_kafka_resp_err_t e = kafka_subscribe(t, r->rk);
        if (e) {
            cdc_error_destroy(*err);
            *err = kafka_error(t, e, "could not subscribe to the topics");
            goto fail;
        }
    }
    *out = &r->base;
    return 0;
fail:
    kr_close(&r->base);
    return -1;
}

/* ---- the source -------------------------------------------------------------------------- */

static cdc_changelog_mode_t ks_changelog_mode(cdc_source_t *base)
{
    const kafka_table_t *t = &((kafka_source_t *)base)->t;
    return t->upsert ? CDC_MODE_UPSERT : kafka_format_mode(t->value_fmt, false);
}

static const cdc_metadata_def_t *format_md(const kafka_table_t *t, const char *key)
{
    const cdc_metadata_def_t *md = t->value_fmt->factory->metadata;
    for (int i = 0; md && md[i].key; i++)
        if (strcmp(md[i].key, key) == 0)
            return &md[i];
    return NULL;
}

static void free_meta(kafka_source_t *s)
{
    for (int i = 0; i < s->nvmeta; i++)
        free(s->vmeta[i]);
    free(s->vmeta);
    free(s->md);
    free(s->md_vidx);
    s->vmeta = NULL;
    s->md = NULL;
    s->md_vidx = NULL;
    s->nmd = s->nvmeta = 0;
}

static int unknown_md(kafka_source_t *s, const char *key, cdc_error_t **err)
{
    cdc_buf_t avail = {0};
    for (int j = 0; j < NCONN_MD; j++)
        cdc_buf_printf(&avail, "%s%s", j ? ", " : "", conn_md[j].key);
    const cdc_metadata_def_t *md = s->t.value_fmt->factory->metadata;
    for (int j = 0; md && md[j].key; j++)
        cdc_buf_printf(&avail, ", value.%s", md[j].key);
    cdc_error_destroy(*err);
    *err = cdc_error_new(CDC_ERR_PLAN, "connector \"kafka\" offers no metadata key \"%s\"", key);
    cdc_error_set_detail(*err, "readable metadata: %s", cdc_buf_cstr(&avail));
    cdc_error_add_context(*err, "kafka table \"%s\"", s->t.name);
    cdc_buf_free(&avail);
    free_meta(s);
    return -1;
}

static int ks_apply_metadata(cdc_source_t *base, const char *const *keys, int n, cdc_error_t **err)
{
    kafka_source_t *s = (kafka_source_t *)base;
    free_meta(s);
    s->md = cdc_xcalloc((size_t)n + 1, sizeof(md_code_t));
    s->md_vidx = cdc_xcalloc((size_t)n + 1, sizeof(int));
    s->vmeta = cdc_xcalloc((size_t)n + 1, sizeof(char *));
    cdc_type_t *prod = cdc_type_copy(s->t.schema);
    for (int i = 0; i < n; i++) {
        const char *type = NULL;
        for (int j = 0; j < NCONN_MD && !type; j++)
            if (strcmp(conn_md[j].key, keys[i]) == 0) {
                s->md[i] = (md_code_t)j;
                type = conn_md[j].type;
            }
        if (!type && strncmp(keys[i], "value.", 6) == 0) {
            const cdc_metadata_def_t *d = format_md(&s->t, keys[i] + 6);
            if (d) {
                s->md[i] = MD_VALUE;
                s->md_vidx[i] = s->nvmeta;
                s->vmeta[s->nvmeta++] = cdc_xstrdup(keys[i] + 6);
                type = d->type;
            }
        }
        if (!type) {
            cdc_type_destroy(prod);
            return unknown_md(s, keys[i], err);
        }
        cdc_type_t *ty = cdc_type_parse(type, err);
        if (!ty) {
            cdc_type_destroy(prod);
            free_meta(s);
            return -1;
        }
        cdc_type_row_add(prod, keys[i], ty);
        s->nmd++;
    }
    cdc_type_destroy(s->produced);
    s->produced = prod;
    s->base.produced = prod;
    s->direct = !s->t.key_fmt && s->t.nval == s->t.schema->nchildren && s->nvmeta == s->nmd;
    return 0;
}

static void ks_describe(cdc_source_t *base, cdc_buf_t *out)
{
    const kafka_table_t *t = &((kafka_source_t *)base)->t;
    static const char *const sm[] = {"earliest-offset", "latest-offset", "group-offsets",
                                     "timestamp", "specific-offsets"};
    static const char *const bm[] = {"unbounded", "latest-offset", "timestamp", "specific-offsets"};
    cdc_buf_puts(out, "kafka(topic=");
    for (int i = 0; i < t->ntopics; i++)
        cdc_buf_printf(out, "%s%s", i ? ";" : "", t->topics[i]);
    if (t->pattern)
        cdc_buf_printf(out, "%s", t->pattern);
    cdc_buf_printf(out, ", format=%s", t->value_fmt->factory->identifier);
    if (t->key_fmt)
        cdc_buf_printf(out, ", key.format=%s", t->key_fmt->factory->identifier);
    cdc_buf_printf(out, ", group=%s, startup=%s, bounded=%s)", t->group_id, sm[t->start_mode],
                   bm[t->bound_mode]);
}

static void ks_destroy(cdc_source_t *base)
{
    kafka_source_t *s = (kafka_source_t *)base;
    if (!s)
        return;
    free_meta(s);
    cdc_type_destroy(s->produced);
    kafka_early_plan_destroy(s->early);
    kafka_table_free(&s->t);
    free(s);
}

static const cdc_source_ops_t kafka_source_ops = {
    .changelog_mode = ks_changelog_mode,
    .open_reader = ks_open_reader,
    .apply_metadata = ks_apply_metadata,
    .describe = ks_describe,
    .destroy = ks_destroy,
};

static int source_new(const cdc_table_ctx_t *ctx, bool upsert, cdc_source_t **out,
                      cdc_error_t **err)
{
    kafka_source_t *s = cdc_xcalloc(1, sizeof(*s));
    if (kafka_table_init(&s->t, ctx, false, upsert, err) < 0) {
        free(s);
        return -1;
    }
    s->base.ops = &kafka_source_ops;
    s->produced = cdc_type_copy(s->t.schema);
    s->base.produced = s->produced;
    s->direct = !s->t.key_fmt && s->t.nval == s->t.schema->nchildren;
    if (s->t.early_start && s->t.bound_mode == KAFKA_BOUND_NONE)
        s->early = kafka_early_plan_new();
    *out = &s->base;
    return 0;
}

int kafka_source_new(const cdc_table_ctx_t *ctx, cdc_source_t **out, cdc_error_t **err)
{
    return source_new(ctx, false, out, err);
}

int kafka_upsert_source_new(const cdc_table_ctx_t *ctx, cdc_source_t **out, cdc_error_t **err)
{
    return source_new(ctx, true, out, err);
}
