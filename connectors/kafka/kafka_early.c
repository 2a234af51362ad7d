/*
 * kafka_early.c — early start of an unbounded kafka reader (scan.group.early-start; issue 17).
 *
 * The broker assigns the partitions of an empty group only after its
 * group.initial.rebalance.delay.ms (3 s by default). A reader that finds the group empty
 * reads every partition at once through a second consumer that never joins the group, and
 * hands the partitions over to the group at its first assignment:
 *
 *  1. the start offset of every partition is resolved as the group would (the committed
 *     offset, else scan.startup.mode / auto.offset.reset);
 *  2. a non-member ("simple") commit of those offsets with a token as metadata,
 *     "cdcflow-early:<host>:<pid>:<random>", succeeds only while the group is empty (Kafka:
 *     state Empty; the mock cluster: never joined);
 *  3. the group consumer subscribes and the simple commit is repeated until it fails (a
 *     JoinGroup registered); the offsets are read back: of several processes probing at
 *     once, only the last one that committed finds its token on every partition, and only
 *     that one starts early. No row is read before this check;
 *  4. rows flow; offsets cannot be committed meanwhile (the group is not empty), so nothing
 *     is committed beyond what is durable;
 *  5. at the first assignment the reader stops, the runtime flushes the sink, and the
 *     reader commits through the group (a member of the current generation) the positions
 *     of every partition it read, with empty metadata: released;
 *  6. every member, at every assignment, holds back (paused, its messages dropped) a partition
 *     whose committed offset carries another early reader's token, until it is released
 *     (kafka_source.c, hold_check), so no partition has two writers.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kafka_early.h"

#define EARLY_PREFIX "cdcflow-early:"
#define EARLY_PROBE_MS 2000 /* longest wait for the group's first JoinGroup to register */

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

rd_kafka_resp_err_t kafka_subscribe(const kafka_table_t *t, rd_kafka_t *rk)
{
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(t->ntopics + 1);
    for (int i = 0; i < t->ntopics; i++)
        rd_kafka_topic_partition_list_add(l, t->topics[i], RD_KAFKA_PARTITION_UA);
    if (t->pattern)
        rd_kafka_topic_partition_list_add(l, t->pattern, RD_KAFKA_PARTITION_UA);
    rd_kafka_resp_err_t e = rd_kafka_subscribe(rk, l);
    rd_kafka_topic_partition_list_destroy(l);
    return e;
}

bool kafka_early_token(const rd_kafka_topic_partition_t *p, const char *token)
{
    size_t n = strlen(token);
    return p->metadata && p->metadata_size == n && memcmp(p->metadata, token, n) == 0;
}

/* The early token a committed offset carries, copied into out; false: none. */
static bool token_of(const rd_kafka_topic_partition_t *p, char *out, size_t cap)
{
    size_t np = strlen(EARLY_PREFIX);
    if (!p->metadata || p->metadata_size < np || p->metadata_size >= cap ||
        memcmp(p->metadata, EARLY_PREFIX, np) != 0)
        return false;
    memcpy(out, p->metadata, p->metadata_size);
    out[p->metadata_size] = '\0';
    return true;
}

/* A token of a process on this host that is gone (its partitions are not held back). */
static bool owner_gone(const char *token)
{
    char host[65] = ""; /* the token holds at most 64 characters of it */
    gethostname(host, sizeof(host) - 1);
    const char *h = token + strlen(EARLY_PREFIX);
    const char *colon = strchr(h, ':');
    if (!colon || (size_t)(colon - h) != strlen(host) || strncmp(h, host, strlen(host)) != 0)
        return false;
    long pid = strtol(colon + 1, NULL, 10);
    return pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

/* Commits l's offsets with metadata md ("" releases; NULL: l's own) through rk; the first
   error. */
static rd_kafka_resp_err_t commit_with(rd_kafka_t *rk, const rd_kafka_topic_partition_list_t *l,
                                       const char *md)
{
    rd_kafka_topic_partition_list_t *c = rd_kafka_topic_partition_list_copy(l);
    for (int i = 0; i < c->cnt; i++) {
        c->elems[i].err = RD_KAFKA_RESP_ERR_NO_ERROR;
        if (!md)
            continue;
        free(c->elems[i].metadata);
        c->elems[i].metadata = md[0] ? cdc_xstrdup(md) : NULL;
        c->elems[i].metadata_size = strlen(md);
    }
    rd_kafka_resp_err_t e = rd_kafka_commit(rk, c, 0);
    for (int i = 0; !e && i < c->cnt; i++)
        e = c->elems[i].err;
    rd_kafka_topic_partition_list_destroy(c);
    return e;
}

rd_kafka_resp_err_t kafka_early_release(rd_kafka_t *rk, const rd_kafka_topic_partition_list_t *l)
{
    return commit_with(rk, l, "");
}

/* The answer of a simple commit to a group that is not empty (any more). */
static bool group_busy(rd_kafka_resp_err_t e)
{
    return e == RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID || e == RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION ||
           e == RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS;
}

static bool reset_earliest(const kafka_table_t *t)
{
    const char *v = cdc_kv_get(&t->props, "auto.offset.reset");
    return v && (strcmp(v, "earliest") == 0 || strcmp(v, "smallest") == 0 ||
                 strcmp(v, "beginning") == 0);
}

/* Step 1: l's offsets set to where the group would start each partition; an error's text. */
static const char *resolve_starts(const kafka_table_t *t, rd_kafka_t *rk,
                                  rd_kafka_topic_partition_list_t *l)
{
    for (int i = 0; i < l->cnt; i++)
        l->elems[i].offset = RD_KAFKA_OFFSET_INVALID;
    if (rd_kafka_committed(rk, l, 10000) != RD_KAFKA_RESP_ERR_NO_ERROR)
        return "the committed offsets could not be read";
    for (int i = 0; i < l->cnt; i++) {
        rd_kafka_topic_partition_t *p = &l->elems[i];
        if (p->offset >= 0)
            continue;
        int64_t lo = -1, hi = -1;
        if (rd_kafka_query_watermark_offsets(rk, p->topic, p->partition, &lo, &hi, 10000) !=
            RD_KAFKA_RESP_ERR_NO_ERROR)
            return "the partitions' offsets could not be read";
        bool earliest = reset_earliest(t);
        if (t->start_mode == KAFKA_START_EARLIEST)
            earliest = true;
        else if (t->start_mode == KAFKA_START_LATEST)
            earliest = false;
        p->offset = earliest ? lo : hi;
        for (int k = 0; t->start_mode == KAFKA_START_SPECIFIC && k < t->start_offsets.n; k++)
            if (t->start_offsets.partition[k] == p->partition)
                p->offset = t->start_offsets.offset[k] < lo ? lo : t->start_offsets.offset[k];
    }
    return NULL;
}

/* The decision of a source's splits: made once, by the first split that polls. */
struct kafka_early_plan_s {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int state; /* 0: not yet, 1: a split decides, 2: decided */
    bool early;
    int nsplits;
    rd_kafka_topic_partition_list_t *parts; /* every partition at its start offset; metadata:
                                               the token of the split that reads it */
    bool *taken;                            /* per split: its share was handed out */
    char base[160];                         /* "cdcflow-early:<host>:<pid>:<random>" */
};

kafka_early_plan_t *kafka_early_plan_new(void)
{
    kafka_early_plan_t *plan = cdc_xcalloc(1, sizeof(*plan));
    pthread_mutex_init(&plan->lock, NULL);
    pthread_cond_init(&plan->cond, NULL);
    return plan;
}

void kafka_early_plan_destroy(kafka_early_plan_t *plan)
{
    if (!plan)
        return;
    if (plan->parts)
        rd_kafka_topic_partition_list_destroy(plan->parts);
    free(plan->taken);
    pthread_mutex_destroy(&plan->lock);
    pthread_cond_destroy(&plan->cond);
    free(plan);
}

/* The token of split i of n. */
static void split_token(const kafka_early_plan_t *plan, int split, char *out, size_t cap)
{
    if (plan->nsplits == 1)
        snprintf(out, cap, "%s", plan->base);
    else
        snprintf(out, cap, "%s:%d", plan->base, split);
}

/* Whether every partition in c carries the token the plan gave it. */
static bool all_carry(const rd_kafka_topic_partition_list_t *c,
                      const rd_kafka_topic_partition_list_t *want)
{
    for (int i = 0; i < c->cnt; i++)
        if (!kafka_early_token(&c->elems[i], want->elems[i].metadata))
            return false;
    return c->cnt > 0;
}

/* Steps 2 and 3 through the probing consumer prk, rk being the group consumer; true: this
   process starts early. */
static bool probe(const kafka_table_t *t, kafka_early_plan_t *plan, rd_kafka_t *prk, rd_kafka_t *rk,
                  bool *subscribed, cdc_error_t **err)
{
    rd_kafka_resp_err_t e = commit_with(prk, plan->parts, NULL);
    if (e) {
        cdc_log(CDC_LOG_INFO, NULL, t->name,
                "group \"%s\" is not empty (an offset commit outside the group was refused: "
                "%s): no early start, the partitions come with the group's assignment",
                t->group_id, rd_kafka_err2str(e));
        return false;
    }
    e = kafka_subscribe(t, rk);
    if (e) {
        cdc_error_destroy(*err);
        *err = kafka_error(t, e, "could not subscribe to the topics");
        return false;
    }
    *subscribed = true;
    int64_t t0 = cdc_mono_ms();
    while (!group_busy(e = commit_with(prk, plan->parts, NULL)) &&
           cdc_mono_ms() - t0 < EARLY_PROBE_MS)
        sleep_ms(2);
    if (!group_busy(e)) {
        /* the join did not register in time: take the tokens back (they would make every
           member hold its partitions back); refused means it registered after all */
        e = kafka_early_release(prk, plan->parts);
        if (!group_busy(e)) {
            cdc_log(CDC_LOG_INFO, NULL, t->name,
                    "group \"%s\": its first join did not register within %d ms: no early start",
                    t->group_id, EARLY_PROBE_MS);
            return false;
        }
    }
    rd_kafka_topic_partition_list_t *c = rd_kafka_topic_partition_list_copy(plan->parts);
    for (int i = 0; i < c->cnt; i++)
        c->elems[i].offset = RD_KAFKA_OFFSET_INVALID;
    e = rd_kafka_committed(prk, c, 10000);
    bool mine = !e && all_carry(c, plan->parts);
    char other[256] = "";
    for (int i = 0; !mine && i < c->cnt && !other[0]; i++)
        token_of(&c->elems[i], other, sizeof(other));
    rd_kafka_topic_partition_list_destroy(c);
    if (!mine)
        cdc_log(CDC_LOG_INFO, NULL, t->name,
                "group \"%s\": another process started at the same time%s%s: no early start",
                t->group_id, other[0] ? " and starts early: " : "", other);
    return mine;
}

/* A consumer outside the group (never subscribes); NULL when it cannot be made. */
static rd_kafka_t *outsider_new(const kafka_table_t *t, const char *const *extra)
{
    cdc_error_t *cerr = NULL;
    rd_kafka_conf_t *conf = kafka_conf_new(t, extra, &cerr);
    cdc_error_destroy(cerr);
    if (!conf)
        return NULL;
    char errstr[512];
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
    if (!rk)
        rd_kafka_conf_destroy(conf);
    return rk;
}

/* Step 1 to 3 for every split of the source, by the first one that polls. */
static void decide(const kafka_table_t *t, const char *const *extra, rd_kafka_t *rk,
                   kafka_early_plan_t *plan, int nsplits, bool *subscribed, cdc_error_t **err)
{
    char host[128] = "";
    gethostname(host, sizeof(host) - 1);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned seed = (unsigned)(ts.tv_nsec ^ getpid());
    snprintf(plan->base, sizeof(plan->base), EARLY_PREFIX "%.64s:%ld:%08x%04x", host,
             (long)getpid(), (unsigned)rand_r(&seed), (unsigned)(ts.tv_nsec & 0xffff));
    plan->nsplits = nsplits;
    plan->taken = cdc_xcalloc((size_t)nsplits, sizeof(bool));
    const char *why = NULL;
    rd_kafka_t *prk = outsider_new(t, extra);
    cdc_error_t *cerr = NULL;
    if (!prk)
        why = "a second consumer could not be created";
    else if (kafka_list_partitions(t, prk, &plan->parts, &cerr) < 0)
        why = "the topics' partitions could not be listed";
    cdc_error_destroy(cerr);
    if (!why)
        why = resolve_starts(t, prk, plan->parts);
    if (why) {
        cdc_log(CDC_LOG_INFO, NULL, t->name, "group \"%s\": no early start: %s", t->group_id, why);
    } else {
        for (int i = 0; i < plan->parts->cnt; i++) {
            char token[192];
            split_token(plan, i % nsplits, token, sizeof(token));
            free(plan->parts->elems[i].metadata); /* what the committed offset had */
            plan->parts->elems[i].metadata = cdc_xstrdup(token);
            plan->parts->elems[i].metadata_size = strlen(token);
        }
        plan->early = probe(t, plan, prk, rk, subscribed, err);
    }
    if (prk) {
        rd_kafka_consumer_close(prk);
        rd_kafka_destroy(prk);
    }
}

int kafka_early_begin(const kafka_table_t *t, const char *const *extra, rd_kafka_t *rk,
                      kafka_early_plan_t *plan, int split, int nsplits, kafka_early_t **out,
                      char *token, size_t token_cap, cdc_error_t **err)
{
    *out = NULL;
    bool deciding = false, subscribed = false;
    pthread_mutex_lock(&plan->lock);
    if (plan->state == 0) {
        plan->state = 1;
        deciding = true;
    }
    while (plan->state == 1 && !deciding)
        pthread_cond_wait(&plan->cond, &plan->lock);
    pthread_mutex_unlock(&plan->lock);
    if (deciding) {
        decide(t, extra, rk, plan, nsplits, &subscribed, err);
        pthread_mutex_lock(&plan->lock);
        plan->state = 2;
        pthread_cond_broadcast(&plan->cond);
        pthread_mutex_unlock(&plan->lock);
        if (*err)
            return -1;
    }
    /* this split's share: partitions i of the sorted list with i mod nsplits = split, once */
    pthread_mutex_lock(&plan->lock);
    bool mine = plan->early && plan->nsplits == nsplits && split < nsplits && !plan->taken[split];
    if (mine)
        plan->taken[split] = true;
    pthread_mutex_unlock(&plan->lock);
    kafka_early_t *x = NULL;
    if (mine) {
        split_token(plan, split, token, token_cap);
        x = cdc_xcalloc(1, sizeof(*x));
        snprintf(x->token, sizeof(x->token), "%s", token);
        x->parts = rd_kafka_topic_partition_list_new(plan->parts->cnt / nsplits + 1);
        for (int i = split; i < plan->parts->cnt; i += nsplits)
            rd_kafka_topic_partition_list_add(x->parts, plan->parts->elems[i].topic,
                                              plan->parts->elems[i].partition)
                ->offset = plan->parts->elems[i].offset;
        if (x->parts->cnt == 0 || !(x->rk = outsider_new(t, extra))) {
            if (x->parts->cnt > 0)
                cdc_log(CDC_LOG_WARN, NULL, t->name,
                        "group \"%s\": split %d could not create its early consumer; its %d "
                        "partition(s) are held back by their next owners until their timeout",
                        t->group_id, split + 1, x->parts->cnt);
            kafka_early_destroy(x);
            x = NULL;
        }
    }
    if (!subscribed) {
        rd_kafka_resp_err_t e = kafka_subscribe(t, rk);
        if (e) {
            kafka_early_destroy(x);
            cdc_error_destroy(*err);
            *err = kafka_error(t, e, "could not subscribe to the topics");
            return -1;
        }
    }
    if (!x)
        return 0;
    rd_kafka_poll_set_consumer(x->rk);
    rd_kafka_assign(x->rk, x->parts);
    x->queue = rd_kafka_queue_get_consumer(x->rk);
    cdc_log(CDC_LOG_INFO, NULL, t->name,
            "group \"%s\" is empty: early start, reading %d partition(s) until the group's "
            "first assignment (%s)",
            t->group_id, x->parts->cnt, x->token);
    *out = x;
    return 1;
}

void kafka_early_destroy(kafka_early_t *x)
{
    if (!x)
        return;
    if (x->queue)
        rd_kafka_queue_destroy(x->queue);
    if (x->rk) {
        rd_kafka_consumer_close(x->rk);
        rd_kafka_destroy(x->rk);
    }
    if (x->parts)
        rd_kafka_topic_partition_list_destroy(x->parts);
    free(x);
}

bool kafka_early_foreign(const rd_kafka_topic_partition_t *p, const char *own, char *token,
                         size_t cap)
{
    return token_of(p, token, cap) && strcmp(token, own) != 0 && !owner_gone(token);
}

int64_t kafka_early_wait_limit(const kafka_table_t *t)
{
    const char *st = cdc_kv_get(&t->props, "session.timeout.ms");
    int64_t limit = st ? strtoll(st, NULL, 10) : 45000; /* librdkafka's default */
    return limit < 10000 ? 10000 : limit;
}
