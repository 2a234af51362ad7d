/*
 * kafka.c — the "kafka" connector's factory: the option table (Flink's
 * kafka connector options), cross-option rules, and the table shape shared
 * by the source and the sink (topics, librdkafka properties, key and value
 * fields).
 *
 * Every `properties.*` option goes to librdkafka verbatim (but the Java
 * client's, which kafka_props.c translates); librdkafka's own text explains
 * a bad one.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kafka_int.h"

static const char *const start_modes[] = {"earliest-offset", "latest-offset",    "group-offsets",
                                          "timestamp",       "specific-offsets", NULL};
static const char *const bound_modes[] = {"unbounded", "latest-offset", "timestamp",
                                          "specific-offsets", NULL};
static const char *const partitioners[] = {"default", "fixed", "round-robin", NULL};
static const char *const guarantees[] = {"at-least-once", "exactly-once", "none", NULL};
static const char *const includes[] = {"ALL", "EXCEPT_KEY", NULL};

/* Options both kafka and upsert-kafka take. */
#define OPT_TOPIC                                                                                  \
    {                                                                                              \
        .key = "topic", .type = CDC_OPT_LIST,                                                      \
        .description = "Topic name(s) to read, separated by ';' (the sink writes to exactly one)." \
    }
#define OPT_PROPERTIES                                                                             \
    {                                                                                              \
        .key = "properties.", .type = CDC_OPT_PREFIX,                                              \
        .description =                                                                             \
            "librdkafka configuration, passed verbatim: 'properties.bootstrap.servers' "           \
            "(required), 'properties.group.id', any other librdkafka property."                    \
    }
#define OPT_KEY_PREFIX                                                                             \
    {                                                                                              \
        .key = "key.fields-prefix", .type = CDC_OPT_STRING, .default_value = "",                   \
        .description = "Prefix of the key columns' names that the key format does not see "        \
                       "(avoids clashes with value columns)."                                      \
    }
#define OPT_VALUE_INCLUDE                                                                          \
    {                                                                                              \
        .key = "value.fields-include", .type = CDC_OPT_ENUM, .default_value = "ALL",               \
        .enum_values = includes,                                                                   \
        .description =                                                                             \
            "ALL: the value carries every physical column; EXCEPT_KEY: all but the key "           \
            "fields."                                                                              \
    }
#define OPT_BOUNDED_MODE                                                                           \
    {                                                                                              \
        .key = "scan.bounded.mode", .type = CDC_OPT_ENUM, .default_value = "unbounded",            \
        .enum_values = bound_modes,                                                                \
        .description =                                                                             \
            "Where reading stops: unbounded, latest-offset (what is there when the job "           \
            "starts), timestamp, specific-offsets. Bounded readers assign partitions "             \
            "statically (partition i to split i mod parallelism)."                                 \
    }
#define OPT_BOUNDED_TS                                                                             \
    {                                                                                              \
        .key = "scan.bounded.timestamp-millis", .type = CDC_OPT_INT,                               \
        .description = "Stop before the first message at or after this epoch millisecond "         \
                       "(scan.bounded.mode = timestamp)."                                          \
    }
#define OPT_BOUNDED_OFFSETS                                                                        \
    {                                                                                              \
        .key = "scan.bounded.specific-offsets", .type = CDC_OPT_STRING,                            \
        .description =                                                                             \
            "Stop offsets (exclusive): 'partition:0,offset:42;partition:1,offset:300' "            \
            "(scan.bounded.mode = specific-offsets); other partitions stop at the latest "         \
            "offset."                                                                              \
    }
#define OPT_EARLY_START                                                                            \
    {                                                                                              \
        .key = "scan.group.early-start", .type = CDC_OPT_BOOL, .default_value = "true",            \
        .description =                                                                             \
            "Unbounded: when the group is empty, read every partition at once (split i the "       \
            "partitions i mod parallelism) and hand them over at the group's first "               \
            "assignment, instead of waiting for the broker's "                                     \
            "group.initial.rebalance.delay.ms (README, \"kafka\")."                                \
    }
#define OPT_DELIVERY                                                                               \
    {                                                                                              \
        .key = "sink.delivery-guarantee", .type = CDC_OPT_ENUM, .default_value = "at-least-once",  \
        .enum_values = guarantees,                                                                 \
        .description = "at-least-once: idempotent producer, a flush waits for every delivery "     \
                       "report; none: a flush does not wait."                                      \
    }
#define OPT_SINK_PARALLELISM                                                                       \
    {                                                                                              \
        .key = "sink.parallelism", .type = CDC_OPT_INT, .min = 1, .max = 65536,                    \
        .description = "Number of writers of the sink; unset means the run's parallelism."         \
    }

static const cdc_option_def_t kafka_options[] = {
    OPT_TOPIC,
    {.key = "topic-pattern",
     .type = CDC_OPT_STRING,
     .description = "Regular expression (POSIX extended) matching whole topic names to read; "
                    "instead of \"topic\"."},
    OPT_PROPERTIES,
    {.key = "format",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_FORMAT,
     .description = "Format of the message value; or use \"value.format\"."},
    {.key = "key.format",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_FORMAT,
     .description = "Format of the message key (needs \"key.fields\")."},
    {.key = "value.format",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_FORMAT,
     .description = "Format of the message value."},
    {.key = "key.fields",
     .type = CDC_OPT_LIST,
     .description = "Physical columns carried by the message key, separated by ';'."},
    OPT_KEY_PREFIX,
    OPT_VALUE_INCLUDE,
    {.key = "scan.startup.mode",
     .type = CDC_OPT_ENUM,
     .default_value = "group-offsets",
     .enum_values = start_modes,
     .description = "Where reading starts in a partition the group has no committed offset for "
                    "(a committed offset always wins when reading unbounded): earliest-offset, "
                    "latest-offset, group-offsets (properties.auto.offset.reset decides), "
                    "timestamp, specific-offsets."},
    {.key = "scan.startup.timestamp-millis",
     .type = CDC_OPT_INT,
     .description = "Start at the first message at or after this epoch millisecond "
                    "(scan.startup.mode = timestamp)."},
    {.key = "scan.startup.specific-offsets",
     .type = CDC_OPT_STRING,
     .description = "Start offsets: 'partition:0,offset:42;partition:1,offset:300' "
                    "(scan.startup.mode = specific-offsets); other partitions start from the "
                    "group's offsets."},
    OPT_BOUNDED_MODE,
    OPT_EARLY_START,
    OPT_BOUNDED_TS,
    OPT_BOUNDED_OFFSETS,
    {.key = "scan.dead-letter.topic",
     .type = CDC_OPT_STRING,
     .description = "Messages that cannot be decoded go to this topic (raw key, value and "
                    "headers plus cdcflow.error, cdcflow.topic, cdcflow.partition, "
                    "cdcflow.offset headers) and the job goes on."},
    {.key = "sink.partitioner",
     .type = CDC_OPT_ENUM,
     .default_value = "default",
     .enum_values = partitioners,
     .description = "default: by key hash (murmur2, as Kafka's Java client), unkeyed sticky; "
                    "fixed: writer i writes partition i mod partitions; round-robin: each "
                    "message to the next partition."},
    OPT_DELIVERY,
    OPT_SINK_PARALLELISM,
    {0},
};

static const cdc_metadata_def_t kafka_metadata[] = {
    {"topic", "STRING NOT NULL", "Topic of the message.", false},
    {"partition", "INT NOT NULL", "Partition of the message.", false},
    {"offset", "BIGINT NOT NULL", "Offset of the message in its partition.", false},
    {"timestamp", "TIMESTAMP_LTZ(3) NOT NULL",
     "Timestamp of the message; written by a sink (TIMESTAMP_LTZ or TIMESTAMP; NULL: the "
     "producer's clock).",
     true},
    {"timestamp-type", "STRING NOT NULL", "NoTimestampType, CreateTime or LogAppendTime.", false},
    {"headers", "MAP<STRING, BYTES> NOT NULL",
     "Headers of the message; written by a sink (values BYTES or STRING).", true},
    {"key", "BYTES", "Raw key of the message.", false},
    {0},
};

/* ---- cross-option rules ------------------------------------------------------------------ */

/* Parses "partition:0,offset:42;partition:1,offset:300"; returns 0 or -1 with a problem line. */
static int parse_offsets(const char *key, const char *text, kafka_offsets_t *out,
                         cdc_buf_t *problems)
{
    memset(out, 0, sizeof(*out));
    char *copy = cdc_xstrdup(text);
    int rc = 0;
    for (char *save = NULL, *item = strtok_r(copy, ";", &save); item;
         item = strtok_r(NULL, ";", &save)) {
        long long p, o;
        int used = 0;
        while (*item == ' ')
            item++;
        if (sscanf(item, "partition:%lld,offset:%lld%n", &p, &o, &used) != 2 ||
            item[used + strspn(item + used, " ")] != '\0' || p < 0 || p > INT32_MAX || o < 0) {
            if (problems)
                cdc_buf_printf(problems,
                               "option \"%s\": expected 'partition:N,offset:M' items separated "
                               "by ';', found \"%s\"\n",
                               key, item);
            rc = -1;
            break;
        }
        out->partition = cdc_xrealloc(out->partition, sizeof(int32_t) * (size_t)(out->n + 1));
        out->offset = cdc_xrealloc(out->offset, sizeof(int64_t) * (size_t)(out->n + 1));
        out->partition[out->n] = (int32_t)p;
        out->offset[out->n] = o;
        out->n++;
    }
    if (rc == 0 && out->n == 0) {
        if (problems)
            cdc_buf_printf(problems, "option \"%s\": no 'partition:N,offset:M' item\n", key);
        rc = -1;
    }
    free(copy);
    if (rc < 0) {
        free(out->partition);
        free(out->offset);
        memset(out, 0, sizeof(*out));
    }
    return rc;
}

static void need(const cdc_config_t *cfg, const char *mode_key, const char *const *names,
                 int wanted, const char *needed, cdc_buf_t *problems)
{
    if (cdc_config_enum(cfg, mode_key) == wanted && !cdc_config_isset(cfg, needed))
        cdc_buf_printf(problems, "option \"%s\" = '%s' needs option \"%s\"\n", mode_key,
                       names[wanted], needed);
}

static void check_offsets(const cdc_config_t *cfg, const char *key, cdc_buf_t *problems)
{
    const char *s = cdc_config_str(cfg, key);
    kafka_offsets_t o;
    if (s && parse_offsets(key, s, &o, problems) == 0) {
        free(o.partition);
        free(o.offset);
    }
}

/* Rules of the options both connectors take. */
static void check_common(const cdc_config_t *cfg, cdc_buf_t *problems)
{
    const cdc_kv_t *props = cdc_config_prefixed(cfg, "properties.");
    if (!props || !cdc_kv_get(props, "bootstrap.servers"))
        cdc_buf_puts(problems, "option \"properties.bootstrap.servers\" is required\n");
    kafka_props_translate(props, NULL, problems);
    need(cfg, "scan.bounded.mode", bound_modes, KAFKA_BOUND_TIMESTAMP,
         "scan.bounded.timestamp-millis", problems);
    need(cfg, "scan.bounded.mode", bound_modes, KAFKA_BOUND_SPECIFIC,
         "scan.bounded.specific-offsets", problems);
    check_offsets(cfg, "scan.bounded.specific-offsets", problems);
    if (cdc_config_enum(cfg, "sink.delivery-guarantee") == KAFKA_DG_EXACTLY_ONCE)
        cdc_buf_puts(problems, "option \"sink.delivery-guarantee\" = 'exactly-once' is not "
                               "supported: use 'at-least-once' with a keyed (upsert) sink\n");
}

static void kafka_check(const cdc_config_t *cfg, cdc_buf_t *problems)
{
    bool topic = cdc_config_isset(cfg, "topic"), pattern = cdc_config_isset(cfg, "topic-pattern");
    if (topic && pattern)
        cdc_buf_puts(problems, "options \"topic\" and \"topic-pattern\" exclude each other\n");
    if (!topic && !pattern)
        cdc_buf_puts(problems, "option \"topic\" or \"topic-pattern\" is required\n");
    check_common(cfg, problems);
    bool fmt = cdc_config_isset(cfg, "format"), vfmt = cdc_config_isset(cfg, "value.format");
    if (fmt && vfmt)
        cdc_buf_puts(problems, "options \"format\" and \"value.format\" exclude each other\n");
    if (!fmt && !vfmt)
        cdc_buf_puts(problems, "option \"format\" or \"value.format\" is required\n");
    bool kfmt = cdc_config_isset(cfg, "key.format"), kf = cdc_config_isset(cfg, "key.fields");
    if (kfmt && !kf)
        cdc_buf_puts(problems, "option \"key.format\" needs option \"key.fields\"\n");
    if (kf && !kfmt)
        cdc_buf_puts(problems, "option \"key.fields\" needs option \"key.format\"\n");
    if (cdc_config_enum(cfg, "value.fields-include") == 1 && !kf)
        cdc_buf_puts(problems, "option \"value.fields-include\" = 'EXCEPT_KEY' needs option "
                               "\"key.fields\"\n");
    need(cfg, "scan.startup.mode", start_modes, KAFKA_START_TIMESTAMP,
         "scan.startup.timestamp-millis", problems);
    need(cfg, "scan.startup.mode", start_modes, KAFKA_START_SPECIFIC,
         "scan.startup.specific-offsets", problems);
    check_offsets(cfg, "scan.startup.specific-offsets", problems);
}

/* ---- the table ------------------------------------------------------------------------ */

/* Getters for options the upsert-kafka table may not declare. */
static const char *opt_str(const cdc_config_t *cfg, const char *key)
{
    return cdc_config_declares(cfg, key) ? cdc_config_str(cfg, key) : NULL;
}

static int opt_enum(const cdc_config_t *cfg, const char *key)
{
    return cdc_config_declares(cfg, key) ? cdc_config_enum(cfg, key) : 0;
}

static int64_t opt_int(const cdc_config_t *cfg, const char *key)
{
    return cdc_config_declares(cfg, key) ? cdc_config_int(cfg, key) : 0;
}

cdc_error_t *kafka_error(const kafka_table_t *t, rd_kafka_resp_err_t e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cdc_error_t *err = cdc_error_newv(CDC_ERR_REMOTE, fmt, ap);
    va_end(ap);
    if (e)
        cdc_error_set_detail(err, "%s", rd_kafka_err2str(e));
    if (t)
        cdc_error_add_context(err, "kafka table \"%s\"", t->name);
    return err;
}

rd_kafka_conf_t *kafka_conf_new(const kafka_table_t *t, const char *const *extra, cdc_error_t **err)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    char errstr[512];
    for (int pass = 0; pass < 2; pass++) {
        int n = pass == 0 ? t->props.n : 0;
        if (pass == 1)
            while (extra && extra[2 * n])
                n++;
        for (int i = 0; i < n; i++) {
            const char *k = pass == 0 ? t->props.keys[i] : extra[2 * i];
            const char *v = pass == 0 ? t->props.values[i] : extra[2 * i + 1];
            if (rd_kafka_conf_set(conf, k, v, errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK) {
                cdc_error_t *e = cdc_error_new(CDC_ERR_OPTION, "invalid Kafka property \"%s\"", k);
                cdc_error_set_detail(e, "%s", errstr);
                cdc_error_set_hint(e, "options \"properties.*\" go to librdkafka verbatim; see its "
                                      "CONFIGURATION.md for the names and values it takes.");
                cdc_error_add_context(e, "option \"properties.%s\" of kafka table \"%s\"", k,
                                      t->name);
                rd_kafka_conf_destroy(conf);
                cdc_error_destroy(*err);
                *err = e;
                return NULL;
            }
        }
    }
    return conf;
}

static char **split_list(const char *text, int *n)
{
    char **out = NULL;
    *n = 0;
    char *copy = cdc_xstrdup(text);
    for (char *save = NULL, *w = strtok_r(copy, ";", &save); w; w = strtok_r(NULL, ";", &save)) {
        while (*w == ' ')
            w++;
        size_t len = strlen(w);
        while (len > 0 && w[len - 1] == ' ')
            len--;
        if (len == 0)
            continue;
        out = cdc_xrealloc(out, sizeof(char *) * (size_t)(*n + 1));
        out[(*n)++] = cdc_xstrndup(w, len);
    }
    free(copy);
    return out;
}

static void free_list(char **l, int n)
{
    for (int i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

void kafka_table_free(kafka_table_t *t)
{
    free(t->name);
    cdc_type_destroy(t->schema);
    free_list(t->topics, t->ntopics);
    free(t->pattern);
    cdc_kv_free(&t->props);
    free(t->group_id);
    free(t->key_idx);
    free(t->val_idx);
    cdc_type_destroy(t->key_type);
    cdc_type_destroy(t->val_type);
    free(t->start_offsets.partition);
    free(t->start_offsets.offset);
    free(t->bound_offsets.partition);
    free(t->bound_offsets.offset);
    free(t->dead_letter);
    memset(t, 0, sizeof(*t));
}

static int table_fail(kafka_table_t *t, cdc_error_t **err, cdc_error_t *e)
{
    kafka_table_free(t); /* the planner names the table */
    cdc_error_destroy(*err);
    *err = e;
    return -1;
}

/* Key and value fields: which physical columns each part of the message carries. */
static int table_fields(kafka_table_t *t, const cdc_table_ctx_t *ctx, cdc_error_t **err)
{
    const cdc_config_t *cfg = ctx->cfg;
    const cdc_type_t *s = t->schema;
    int nf = s->nchildren;
    const char *prefix = opt_str(cfg, "key.fields-prefix");
    size_t plen = prefix ? strlen(prefix) : 0;
    bool *is_key = cdc_xcalloc((size_t)nf + 1, sizeof(bool));
    t->key_type = cdc_type_new_row();
    const char *kf = opt_str(cfg, "key.fields");
    char *pk_fields = NULL; /* upsert-kafka: the primary key is the message key */
    if (t->upsert) {
        cdc_buf_t b = {0};
        for (int i = 0; i < ctx->npk; i++)
            cdc_buf_printf(&b, "%s%s", i ? ";" : "", s->names[ctx->pk[i]]);
        pk_fields = cdc_xstrdup(cdc_buf_cstr(&b));
        cdc_buf_free(&b);
        kf = pk_fields;
    }
    if (kf) {
        int n;
        char **names = split_list(kf, &n);
        t->key_idx = cdc_xcalloc((size_t)n + 1, sizeof(int));
        for (int i = 0; i < n; i++) {
            int idx = cdc_type_field_index(s, names[i]);
            if (idx < 0 || is_key[idx] || (plen && strncmp(names[i], prefix, plen) != 0)) {
                cdc_error_t *e =
                    idx < 0 ? cdc_error_new(CDC_ERR_OPTION,
                                            "option \"key.fields\" names \"%s\", which is not a "
                                            "physical column",
                                            names[i])
                    : is_key[idx]
                        ? cdc_error_new(CDC_ERR_OPTION, "option \"key.fields\" names \"%s\" twice",
                                        names[i])
                        : cdc_error_new(CDC_ERR_OPTION,
                                        "key field \"%s\" does not start with key.fields-prefix "
                                        "\"%s\"",
                                        names[i], prefix);
                free_list(names, n);
                free(is_key);
                free(pk_fields);
                return table_fail(t, err, e);
            }
            is_key[idx] = true;
            t->key_idx[t->nkey++] = idx;
            cdc_type_row_add(t->key_type, names[i] + plen, cdc_type_copy(s->children[idx]));
        }
        free_list(names, n);
    }
    free(pk_fields);
    bool except_key = opt_enum(cfg, "value.fields-include") == 1;
    t->val_type = cdc_type_new_row();
    t->val_idx = cdc_xcalloc((size_t)nf + 1, sizeof(int));
    for (int i = 0; i < nf; i++) {
        if (except_key && is_key[i])
            continue;
        t->val_idx[t->nval++] = i;
        cdc_type_row_add(t->val_type, s->names[i], cdc_type_copy(s->children[i]));
    }
    free(is_key);
    return 0;
}

cdc_changelog_mode_t kafka_format_mode(const cdc_table_format_t *f, bool encode)
{
    cdc_changelog_mode_t (*fn)(const cdc_config_t *) =
        encode ? f->factory->encode_mode : f->factory->decode_mode;
    return fn ? fn(f->cfg) : CDC_MODE_INSERT_ONLY;
}

static cdc_error_t *upsert_error(const cdc_table_ctx_t *ctx, const kafka_table_t *t,
                                 cdc_changelog_mode_t mode)
{
    if (ctx->npk == 0) {
        cdc_error_t *e = cdc_error_new(
            CDC_ERR_PLAN, "the upsert-kafka table \"%s\" needs a PRIMARY KEY", ctx->name);
        cdc_error_set_hint(e, "declare PRIMARY KEY (...) NOT ENFORCED: its columns are the "
                              "message key.");
        return e;
    }
    const cdc_table_format_t *f = mode != CDC_MODE_INSERT_ONLY ? t->value_fmt : t->key_fmt;
    cdc_error_t *e = cdc_error_new(CDC_ERR_PLAN,
                                   "upsert-kafka needs insert-only formats, found \"%s\" as "
                                   "option \"%s\"",
                                   f->factory->identifier, f->option);
    cdc_error_set_hint(e, "the changes come from the key and the value (a null value is a "
                          "delete): use a plain format such as json.");
    return e;
}

int kafka_table_init(kafka_table_t *t, const cdc_table_ctx_t *ctx, bool for_sink, bool upsert,
                     cdc_error_t **err)
{
    memset(t, 0, sizeof(*t));
    const cdc_config_t *cfg = ctx->cfg;
    t->upsert = upsert;
    if (upsert && for_sink) {
        t->buffer_max_rows = cdc_config_int(cfg, "sink.buffer-flush.max-rows");
        t->buffer_interval_ms = cdc_config_duration_ms(cfg, "sink.buffer-flush.interval");
    }
    t->name = cdc_xstrdup(ctx->name);
    t->schema = cdc_type_copy(ctx->schema);
    kafka_props_translate(cdc_config_prefixed(cfg, "properties."), &t->props, NULL);
    const char *topic = opt_str(cfg, "topic");
    if (topic)
        t->topics = split_list(topic, &t->ntopics);
    const char *pat = opt_str(cfg, "topic-pattern");
    if (pat)
        t->pattern = cdc_strdup_printf("^(%s)$", pat);
    if (for_sink && (pat || t->ntopics != 1))
        return table_fail(t, err,
                          cdc_error_new(CDC_ERR_OPTION,
                                        "a kafka sink writes to one topic, found %s",
                                        pat ? "\"topic-pattern\"" : "a list in \"topic\""));
    const char *gid = cdc_kv_get(&t->props, "group.id");
    t->group_id = gid ? cdc_xstrdup(gid) : cdc_strdup_printf("cdcflow-%s", ctx->name);
    t->value_fmt = cdc_table_format(ctx, "value.format");
    if (!t->value_fmt)
        t->value_fmt = cdc_table_format(ctx, "format");
    t->key_fmt = cdc_table_format(ctx, "key.format");
    if (!t->value_fmt)
        return table_fail(t, err, cdc_error_new(CDC_ERR_INTERNAL, "kafka: no value format"));
    cdc_changelog_mode_t mode = kafka_format_mode(t->value_fmt, for_sink);
    if (upsert && (ctx->npk == 0 || mode != CDC_MODE_INSERT_ONLY ||
                   (t->key_fmt && kafka_format_mode(t->key_fmt, for_sink) != CDC_MODE_INSERT_ONLY)))
        return table_fail(t, err, upsert_error(ctx, t, mode));
    if (!upsert && ctx->npk > 0 && mode == CDC_MODE_INSERT_ONLY) {
        cdc_error_t *e = cdc_error_new(CDC_ERR_PLAN,
                                       "the kafka table \"%s\" with format \"%s\" cannot declare a "
                                       "PRIMARY KEY",
                                       ctx->name, t->value_fmt->factory->identifier);
        cdc_error_set_detail(e, "an insert-only format cannot guarantee the semantics of a "
                                "primary key (as in Flink)");
        cdc_error_set_hint(e, "use the upsert-kafka connector, or a changelog value format such "
                              "as debezium-json, or drop the PRIMARY KEY.");
        return table_fail(t, err, e);
    }
    if (table_fields(t, ctx, err) < 0)
        return -1;
    /* upsert-kafka reads every key from the start (modes' index 0 is earliest-offset) */
    t->start_mode = opt_enum(cfg, "scan.startup.mode");
    t->bound_mode = opt_enum(cfg, "scan.bounded.mode");
    t->early_start = !for_sink && cdc_config_bool(cfg, "scan.group.early-start");
    t->start_ts = opt_int(cfg, "scan.startup.timestamp-millis");
    t->bound_ts = opt_int(cfg, "scan.bounded.timestamp-millis");
    const char *so = opt_str(cfg, "scan.startup.specific-offsets");
    if (so)
        parse_offsets("scan.startup.specific-offsets", so, &t->start_offsets, NULL);
    const char *bo = opt_str(cfg, "scan.bounded.specific-offsets");
    if (bo)
        parse_offsets("scan.bounded.specific-offsets", bo, &t->bound_offsets, NULL);
    const char *dl = opt_str(cfg, "scan.dead-letter.topic");
    t->dead_letter = dl ? cdc_xstrdup(dl) : NULL;
    t->partitioner = opt_enum(cfg, "sink.partitioner");
    t->guarantee = opt_enum(cfg, "sink.delivery-guarantee");
    /* librdkafka judges the properties now, so a bad one fails the plan, not the run */
    rd_kafka_conf_t *conf = kafka_conf_new(t, NULL, err);
    if (!conf) {
        kafka_table_free(t);
        return -1;
    }
    rd_kafka_conf_destroy(conf);
    return 0;
}

const cdc_connector_factory_t cdc_connector_kafka = {
    .identifier = "kafka",
    .description = "Apache Kafka topics through librdkafka, as Flink's kafka connector: a source "
                   "(consumer group members, offsets committed after the sink's flush) and a "
                   "sink (idempotent producer).",
    .options = kafka_options,
    .check = kafka_check,
    .metadata = kafka_metadata,
    .source_new = kafka_source_new,
    .sink_new = kafka_sink_new,
};

/* ---- upsert-kafka ----------------------------------------------------------------------- */

static const cdc_option_def_t upsert_kafka_options[] = {
    OPT_TOPIC,
    OPT_PROPERTIES,
    {.key = "key.format",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_FORMAT | CDC_OPT_REQUIRED,
     .description = "Format of the message key: the PRIMARY KEY columns (insert-only format)."},
    {.key = "value.format",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_FORMAT | CDC_OPT_REQUIRED,
     .description = "Format of the message value (insert-only format); a null value is a "
                    "delete."},
    OPT_KEY_PREFIX,
    OPT_VALUE_INCLUDE,
    OPT_BOUNDED_MODE,
    OPT_EARLY_START,
    OPT_BOUNDED_TS,
    OPT_BOUNDED_OFFSETS,
    OPT_DELIVERY,
    OPT_SINK_PARALLELISM,
    {.key = "sink.buffer-flush.max-rows",
     .type = CDC_OPT_INT,
     .default_value = "0",
     .min = 0,
     .max = 10000000,
     .description = "Keys buffered (the last change of each) before they are produced; 0 "
                    "disables buffering. Needs sink.buffer-flush.interval too."},
    {.key = "sink.buffer-flush.interval",
     .type = CDC_OPT_DURATION,
     .default_value = "0",
     .description = "Produce the buffered changes at least this often; 0 disables buffering. "
                    "Needs sink.buffer-flush.max-rows too."},
    {0},
};

static void upsert_kafka_check(const cdc_config_t *cfg, cdc_buf_t *problems)
{
    if (!cdc_config_isset(cfg, "topic"))
        cdc_buf_puts(problems, "option \"topic\" is required\n");
    check_common(cfg, problems);
    int64_t rows = cdc_config_int(cfg, "sink.buffer-flush.max-rows");
    int64_t ms = cdc_config_duration_ms(cfg, "sink.buffer-flush.interval");
    if ((rows > 0) != (ms > 0))
        cdc_buf_puts(problems, "options \"sink.buffer-flush.max-rows\" and "
                               "\"sink.buffer-flush.interval\" must both be greater than 0 to "
                               "buffer (or both 0)\n");
}

const cdc_connector_factory_t cdc_connector_upsert_kafka = {
    .identifier = "upsert-kafka",
    .description = "A Kafka topic as a table keyed by its PRIMARY KEY, as Flink's upsert-kafka: "
                   "the source reads +U per key and -D for a null value; the sink writes +I/+U "
                   "as the value and -D as a tombstone.",
    .options = upsert_kafka_options,
    .check = upsert_kafka_check,
    .metadata = kafka_metadata,
    .source_new = kafka_upsert_source_new,
    .sink_new = kafka_upsert_sink_new,
};
