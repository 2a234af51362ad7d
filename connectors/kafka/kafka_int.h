/*
 * kafka_int.h — private to the kafka connector: the table shape shared by
 * the source (kafka_source.c) and the sink (kafka_sink.c), built once from
 * the validated options in kafka.c.
 */
#ifndef CDC_KAFKA_INT_H
#define CDC_KAFKA_INT_H

#include <librdkafka/rdkafka.h>

#include "cdc_plugin.h"

enum {
    KAFKA_START_EARLIEST,
    KAFKA_START_LATEST,
    KAFKA_START_GROUP,
    KAFKA_START_TIMESTAMP,
    KAFKA_START_SPECIFIC
};
enum { KAFKA_BOUND_NONE, KAFKA_BOUND_LATEST, KAFKA_BOUND_TIMESTAMP, KAFKA_BOUND_SPECIFIC };
enum { KAFKA_PART_DEFAULT, KAFKA_PART_FIXED, KAFKA_PART_ROUND_ROBIN };
enum { KAFKA_DG_AT_LEAST_ONCE, KAFKA_DG_EXACTLY_ONCE, KAFKA_DG_NONE };

/** "partition:0,offset:42;partition:1,offset:300" parsed. */
typedef struct kafka_offsets_s {
    int32_t *partition;
    int64_t *offset;
    int n;
} kafka_offsets_t;

/** A kafka table: topics, librdkafka properties, and how rows map onto key and value. */
typedef struct kafka_table_s {
    char *name;
    cdc_type_t *schema; /* physical columns */
    char **topics;      /* from `topic`; NULL when topic-pattern is used */
    int ntopics;
    char *pattern;  /* topic-pattern as a POSIX extended regex anchored "^(...)$" */
    cdc_kv_t props; /* properties.* without the prefix */
    char *group_id; /* properties.group.id or a generated one */
    const cdc_table_format_t *key_fmt, *value_fmt;
    int *key_idx; /* physical index of each key field */
    int nkey;
    cdc_type_t *key_type; /* ROW of the key fields, names without key.fields-prefix */
    int *val_idx;         /* physical index of each value field */
    int nval;
    cdc_type_t *val_type;
    int start_mode, bound_mode;
    int64_t start_ts, bound_ts;
    kafka_offsets_t start_offsets, bound_offsets;
    char *dead_letter; /* scan.dead-letter.topic or NULL */
    int partitioner, guarantee;
    bool early_start; /* scan.group.early-start */
    bool upsert;      /* upsert-kafka: rows are +U per key, a null value is -D */
    /* upsert-kafka sink: keep the last change per key, produce at max rows / interval / flush
       (both > 0 to enable, as Flink) */
    int64_t buffer_max_rows, buffer_interval_ms;
} kafka_table_t;

int kafka_table_init(kafka_table_t *t, const cdc_table_ctx_t *ctx, bool for_sink, bool upsert,
                     cdc_error_t **err);
/** Changelog mode a format decodes (or encodes); NULL callbacks mean insert-only. */
cdc_changelog_mode_t kafka_format_mode(const cdc_table_format_t *f, bool encode);
void kafka_table_free(kafka_table_t *t);

/**
 * A librdkafka configuration holding the table's properties (verbatim) with
 * `extra` (NULL-terminated key, value pairs) set after them. On an invalid
 * property returns NULL with librdkafka's own text as the error's detail.
 */
rd_kafka_conf_t *kafka_conf_new(const kafka_table_t *t, const char *const *extra,
                                cdc_error_t **err);

/*
 * Copies the properties (properties.* without the prefix) into out for
 * librdkafka, translating the Java client's sasl.jaas.config (PLAIN, SCRAM)
 * and typed ssl.keystore.* / ssl.truststore.* to librdkafka's names. out
 * may be NULL (checking only); problems, when not NULL, gets one line per
 * property that has no librdkafka equivalent, saying what to use instead.
 * Returns the number of such problems.
 */
int kafka_props_translate(const cdc_kv_t *given, cdc_kv_t *out, cdc_buf_t *problems);

/** An error about the table, with librdkafka's text as detail. */
cdc_error_t *kafka_error(const kafka_table_t *t, rd_kafka_resp_err_t e, const char *fmt, ...)
    CDC_PRINTF(3, 4);

/** Every partition of the table's topics (or of those its pattern matches), sorted. */
int kafka_list_partitions(const kafka_table_t *t, rd_kafka_t *rk,
                          rd_kafka_topic_partition_list_t **out, cdc_error_t **err);

int kafka_source_new(const cdc_table_ctx_t *ctx, cdc_source_t **out, cdc_error_t **err);
int kafka_sink_new(const cdc_table_ctx_t *ctx, cdc_sink_t **out, cdc_error_t **err);
int kafka_upsert_source_new(const cdc_table_ctx_t *ctx, cdc_source_t **out, cdc_error_t **err);
int kafka_upsert_sink_new(const cdc_table_ctx_t *ctx, cdc_sink_t **out, cdc_error_t **err);

#endif
