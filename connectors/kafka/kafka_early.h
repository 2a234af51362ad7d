/*
 * kafka_early.h — private to the kafka connector: early start of an unbounded reader
 * before its group's first assignment (kafka_early.c says how and why).
 */
#ifndef CDC_KAFKA_EARLY_H
#define CDC_KAFKA_EARLY_H

#include "kafka_int.h"

/** The consumer that reads every partition before the group's first assignment. */
typedef struct kafka_early_s {
    rd_kafka_t *rk;                         /* never joins the group */
    rd_kafka_queue_t *queue;                /* its consumer queue */
    rd_kafka_topic_partition_list_t *parts; /* every partition, at its start offset */
    char token[192];                        /* "cdcflow-early:<host>:<pid>:<random>" */
} kafka_early_t;

/** Subscribes rk to the table's topics (or its pattern). */
rd_kafka_resp_err_t kafka_subscribe(const kafka_table_t *t, rd_kafka_t *rk);

/** The early-start decision a source's splits share (opaque; kafka_early.c). */
typedef struct kafka_early_plan_s kafka_early_plan_t;

kafka_early_plan_t *kafka_early_plan_new(void);
/** Accepts NULL. */
void kafka_early_plan_destroy(kafka_early_plan_t *plan);

/**
 * Decides whether split `split` of `nsplits`, whose group consumer is rk (not subscribed
 * yet), starts early; extra are the librdkafka settings of rk. The first split of the source
 * to call decides for all of them (the others wait for it): each split reads the partitions
 * i mod nsplits = split of the sorted list. Returns 1 with *out (owned by the caller; rk is
 * subscribed and the early consumer assigned), 0 when not (rk subscribed; the reason logged
 * at INFO), -1 with *err when rk could not subscribe. token gets the split's token when the
 * process starts early (its partitions carry it), else it is left as it is.
 */
int kafka_early_begin(const kafka_table_t *t, const char *const *extra, rd_kafka_t *rk,
                      kafka_early_plan_t *plan, int split, int nsplits, kafka_early_t **out,
                      char *token, size_t token_cap, cdc_error_t **err);

/** Commits l's offsets with empty metadata through rk: the partitions are released. */
rd_kafka_resp_err_t kafka_early_release(rd_kafka_t *rk, const rd_kafka_topic_partition_list_t *l);

/** Whether a committed offset carries this token. */
bool kafka_early_token(const rd_kafka_topic_partition_t *p, const char *token);

/**
 * Step 6: whether a committed offset carries the token of another early reader (not own; not
 * a process of this host that is gone); the token is copied into token.
 */
bool kafka_early_foreign(const rd_kafka_topic_partition_t *p, const char *own, char *token,
                         size_t cap);

/** How long a member holds back a partition for its release: max(session.timeout.ms, 10 s). */
int64_t kafka_early_wait_limit(const kafka_table_t *t);

/** Closes the early consumer; accepts NULL. */
void kafka_early_destroy(kafka_early_t *x);

#endif
