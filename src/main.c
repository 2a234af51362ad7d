/*
 * main.c — the cdcflow command line: decode, describe, run, explain.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_decode.h"
#include "cdc_kafka_mock.h"
#include "cdc_runtime.h"

#define CDC_VERSION "0.1.0"

static void usage(FILE *out)
{
    fputs("usage: cdcflow COMMAND [ARGS]\n"
          "\n"
          "commands:\n"
          "  run FILE.sql [--parallelism N]       run a pipeline (CREATE TABLE ..., INSERT INTO "
          "...)\n"
          "  decode --format NAME [--schema COLS] [-o KEY=VALUE]... [--table] [--count] [FILE|-]\n"
          "                                       decode one message per line into printed rows\n"
          "  kafka-mock [--partitions N] [--topic T]... [--brokers N]\n"
          "                                       serve a local Kafka (librdkafka's mock cluster)\n"
          "  describe [NAME]                      list connectors and formats, or one's options\n"
          "  version                              print the version\n",
          out);
}

static int cmd_decode(int argc, char **argv)
{
    cdc_decode_args_t args = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((strcmp(a, "--format") == 0 || strcmp(a, "-f") == 0) && i + 1 < argc) {
            args.format = argv[++i];
        } else if (strncmp(a, "--format=", 9) == 0) {
            args.format = a + 9;
        } else if ((strcmp(a, "--schema") == 0 || strcmp(a, "-s") == 0) && i + 1 < argc) {
            args.schema = argv[++i];
        } else if (strncmp(a, "--schema=", 9) == 0) {
            args.schema = a + 9;
        } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
            const char *kv = argv[++i];
            const char *eq = strchr(kv, '=');
            if (!eq) {
                fprintf(stderr, "cdcflow: error: -o takes KEY=VALUE, found \"%s\"\n", kv);
                cdc_kv_free(&args.options);
                return 2;
            }
            char *key = cdc_xstrndup(kv, (size_t)(eq - kv));
            cdc_kv_set(&args.options, key, eq + 1);
            free(key);
        } else if (strcmp(a, "--table") == 0) {
            args.with_table = true;
        } else if (strcmp(a, "--count") == 0) {
            args.count_only = true;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "cdcflow: error: unknown decode option \"%s\"\n", a);
            cdc_kv_free(&args.options);
            return 2;
        } else if (!args.input) {
            args.input = a;
        } else {
            fprintf(stderr, "cdcflow: error: decode takes one input file, found \"%s\" too\n", a);
            cdc_kv_free(&args.options);
            return 2;
        }
    }
    if (!args.format) {
        fprintf(stderr, "cdcflow: error: decode needs --format NAME\n"
                        "HINT: \"cdcflow describe\" lists the formats.\n");
        cdc_kv_free(&args.options);
        return 2;
    }
    int rc = cdc_decode_run(&args, stdout, stderr);
    cdc_kv_free(&args.options);
    return rc;
}

int main(int argc, char **argv)
{
    cdc_error_t *err = NULL;
    if (cdc_registry_check(&err) < 0) {
        cdc_error_print(err, stderr);
        cdc_error_destroy(err);
        return 70;
    }
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "decode") == 0)
        return cmd_decode(argc - 1, argv + 1);
    if (strcmp(cmd, "describe") == 0)
        return cdc_describe(argc > 2 ? argv[2] : NULL, stdout, stderr);
    if (strcmp(cmd, "run") == 0 || strcmp(cmd, "explain") == 0)
        return cdc_runtime_main(argc - 1, argv + 1, strcmp(cmd, "explain") == 0);
    if (strcmp(cmd, "kafka-mock") == 0)
        return cdc_kafka_mock_main(argc - 1, argv + 1);
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        printf("cdcflow %s\n", CDC_VERSION);
        return 0;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "cdcflow: error: unknown command \"%s\"\n", cmd);
    usage(stderr);
    return 2;
}
