/*
 * filesystem.c — the "filesystem" connector's factory (Flink's filesystem
 * connector with the Hive table model): its option table and cross-option
 * rules. The source is in fs_source.c, the sink in fs_sink.c, partition paths
 * in fs_path.c.
 */
#include <string.h>

#include "fs_int.h"

static const char *const fs_triggers[] = {"process-time", "partition-time", NULL};

static const cdc_option_def_t fs_options[] = {
    {.key = "path",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_REQUIRED,
     .description = "Directory of the table: files directly in it, or under partition "
                    "directories k1=v1/k2=v2 in PARTITIONED BY order."},
    {.key = "format",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_REQUIRED | CDC_OPT_FORMAT,
     .description = "Format of the files, one message per line: json, csv, debezium-json, "
                    "canal-json, maxwell-json, ogg-json."},
    {.key = "partition.default-name",
     .type = CDC_OPT_STRING,
     .default_value = FS_DEFAULT_PARTITION,
     .description = "Directory value that stands for a NULL partition value."},
    {.key = "source.monitor-interval",
     .type = CDC_OPT_DURATION,
     .description = "Makes the source unbounded: the directory is scanned this often and new "
                    "files and partitions are read once each, in order of partition then file. "
                    "Unset: read what is there and end."},
    {.key = "source.state-path",
     .type = CDC_OPT_STRING,
     .description = "Directory of the unbounded source's state (the files read, committed with "
                    "the sink), so a restart reads no file twice. Default "
                    "<path>/_cdcflow_state/<qualified table name>."},
    {.key = "scan.parallelism",
     .type = CDC_OPT_INT,
     .min = 1,
     .max = 65536,
     .description = "Number of reader splits (unset: the run's parallelism). Files are dealt to "
                    "splits in order; each split reads its files in order."},
    {.key = "sink.rolling-policy.file-size",
     .type = CDC_OPT_SIZE,
     .default_value = "128mb",
     .min = 1,
     .max = INT64_MAX,
     .description = "A file is closed (and made visible at the next commit) once it reaches "
                    "this size."},
    {.key = "sink.rolling-policy.rollover-interval",
     .type = CDC_OPT_DURATION,
     .default_value = "30 min",
     .description = "A file is closed (and made visible at the next commit) once it has been "
                    "open this long. Every commit (execution.checkpointing.interval) also ends "
                    "the open files."},
    {.key = "sink.partition-commit.trigger",
     .type = CDC_OPT_ENUM,
     .default_value = "process-time",
     .enum_values = fs_triggers,
     .description = "When a written partition is committed: process-time (its creation + "
                    "delay has passed) or partition-time (the time extracted from its values + "
                    "delay has passed on the wall clock, UTC). The end of a job commits every "
                    "partition it wrote."},
    {.key = "sink.partition-commit.delay",
     .type = CDC_OPT_DURATION,
     .default_value = "0 s",
     .description = "Delay before a partition is committed (see the trigger)."},
    {.key = "sink.partition-commit.policy.kind",
     .type = CDC_OPT_STRING,
     .description = "Comma list of what commits a partition, in order: success-file (writes "
                    "the success file), catalog (alias metastore: adds the partition to "
                    "<path>/_cdcflow_partitions; SHOW PARTITIONS and readers then list only "
                    "committed partitions), custom (policy.class)."},
    {.key = "sink.partition-commit.policy.class",
     .type = CDC_OPT_STRING,
     .description = "Custom policy: a shared object \"/path/lib.so[:symbol]\" exporting "
                    "cdc_fs_commit_fn (connectors/filesystem/cdc_fs_commit.h; default symbol "
                    "cdcflow_partition_commit)."},
    {.key = "sink.partition-commit.success-file.name",
     .type = CDC_OPT_STRING,
     .default_value = "_SUCCESS",
     .description = "Name of the file the success-file policy writes into a committed "
                    "partition."},
    {.key = "sink.shuffle-by-partition.enable",
     .type = CDC_OPT_BOOL,
     .default_value = "false",
     .description = "Flink: route the rows of one partition to one writer (fewer files). "
                    "Accepted, no effect: the runtime has no exchange between splits (each "
                    "split's writer writes every partition its rows fall in, so a partition gets "
                    "up to one file per split and commit); with parallelism > 1 a warning says "
                    "so."},
    {.key = "partition.time-extractor.timestamp-pattern",
     .type = CDC_OPT_STRING,
     .description = "How partition-time gets a partition's time: partition values put in with "
                    "$column (\"$dt $hr:00:00\"), giving \"yyyy-mm-dd[ hh:mm[:ss]]\". Default: "
                    "the first partition column's value."},
    {0},
};

static void fs_check(const cdc_config_t *cfg, cdc_buf_t *problems)
{
    const char *path = cdc_config_str(cfg, "path");
    if (path && !*path)
        cdc_buf_puts(problems, "option \"path\" must not be empty\n");
    const char *kinds = cdc_config_str(cfg, "sink.partition-commit.policy.kind");
    bool custom = false;
    for (const char *s = kinds; s && *s;) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        const char *b = s;
        while (n && *b == ' ') {
            b++;
            n--;
        }
        while (n && b[n - 1] == ' ')
            n--;
        static const char *const known[] = {"success-file", "catalog", "metastore", "custom"};
        bool ok = false;
        for (int i = 0; i < 4; i++)
            if (strlen(known[i]) == n && strncmp(known[i], b, n) == 0)
                ok = true;
        if (!ok)
            cdc_buf_printf(problems,
                           "option \"sink.partition-commit.policy.kind\": unknown policy \"%.*s\" "
                           "(expected a comma list of success-file, catalog, metastore, "
                           "custom)\n",
                           (int)n, b);
        custom = custom || (n == 6 && strncmp(b, "custom", 6) == 0);
        s = e ? e + 1 : s + strlen(s);
    }
    if (custom && !cdc_config_str(cfg, "sink.partition-commit.policy.class"))
        cdc_buf_puts(problems, "option \"sink.partition-commit.policy.kind\" names custom: "
                               "option \"sink.partition-commit.policy.class\" is required\n");
}

const cdc_connector_factory_t cdc_connector_filesystem = {
    .identifier = "filesystem",
    .description = "Files of one message per line in a directory, Hive-style partitioned "
                   "(path/k=v/...): bounded or monitored source with partition, filter, "
                   "projection and limit pushdown; sink with rolling files made visible at "
                   "commit, static/dynamic partitions, OVERWRITE and partition commit.",
    .options = fs_options,
    .check = fs_check,
    .metadata = fs_metadata,
    .source_new = fs_source_new,
    .sink_new = fs_sink_new,
};
