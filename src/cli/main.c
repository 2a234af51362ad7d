/*
 * main.c — the cdcflow command line: decode, describe, run, explain.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_decode.h"
#include "cdc_metrics.h"
#include "cdc_options.h"
#include "cdc_reference.h"
#include "cdc_kafka_mock.h"
#include "cdc_runtime.h"

#define CDC_VERSION "0.1.0"

static void usage(FILE *out)
{
    fputs(
        "usage: cdcflow COMMAND [ARGS]\n"
        "\n"
        "commands:\n"
        "  run FILE.sql [OPTIONS]               run a pipeline (CREATE TABLE ..., INSERT INTO "
        "...)\n"
        "      --parallelism N                  splits per source (default 1)\n"
        "      --catalog-dir DIR                default_catalog is a file catalog in DIR\n"
        "      --state-dir DIR                  where sources keep positions (CDCFLOW_STATE_DIR)\n"
        "      --metrics-port N                 Prometheus /metrics and /healthz on N (0 = any)\n"
        "      --metrics-address ADDR           address to listen on (default 0.0.0.0)\n"
        "      --log-level error|warn|info|debug  (default warn; env CDCFLOW_LOG_LEVEL)\n"
        "      --log-format text|json           one line per event (env CDCFLOW_LOG_FORMAT)\n"
        "      --quiet                          no live status line on a terminal\n"
        "      --stop-timeout SECONDS           on SIGTERM/SIGINT, exit 3 if not stopped by then "
        "(30)\n"
        "  explain FILE.sql                     print the plans, run nothing\n"
        "  health [--port N] [--host ADDR]      exit 0 when a run's /healthz answers 200\n"
        "  decode --format NAME [--schema COLS] [-o KEY=VALUE]... [--table] [--count] [FILE|-]\n"
        "                                       decode one message per line into printed rows\n"
        "  signal CONNECTOR -o KEY=VALUE... --data-collections DB.T[,DB.T] [--filter COND]\n"
        "                                       ask a running CDC source to snapshot tables again\n"
        "                                       (execute-snapshot into its signal table)\n"
        "  describe [NAME|--markdown]           list connectors and formats, one's options, or\n"
        "                                       the whole reference as Markdown\n"
        "  kafka-mock [--partitions N] [--topic T]... [--brokers N]\n"
        "                                       serve a local Kafka (librdkafka's mock cluster)\n"
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

/* `cdcflow health`: what a container HEALTHCHECK runs (no curl in the image). */
/* Appends s as a JSON string. */
static void put_json_string(cdc_buf_t *b, const char *s)
{
    cdc_buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            cdc_buf_printf(b, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            cdc_buf_printf(b, "\\u%04x", (unsigned char)*s);
        else
            cdc_buf_putc(b, *s);
    }
    cdc_buf_putc(b, '"');
}

/*
 * cdcflow signal CONNECTOR -o KEY=VALUE... --data-collections db.t[,db.u] [--filter COND]:
 * an `execute-snapshot` signal (Debezium's data layout) into the source's signal table.
 */
static int cmd_signal(int argc, char **argv)
{
    const char *connector = NULL, *collections = NULL, *filter = NULL;
    cdc_kv_t opts = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-o") == 0 && i + 1 < argc && strchr(argv[i + 1], '=')) {
            const char *kv = argv[++i], *eq = strchr(kv, '=');
            char *key = cdc_xstrndup(kv, (size_t)(eq - kv));
            cdc_kv_set(&opts, key, eq + 1);
            free(key);
        } else if (strcmp(a, "--data-collections") == 0 && i + 1 < argc) {
            collections = argv[++i];
        } else if (strcmp(a, "--filter") == 0 && i + 1 < argc) {
            filter = argv[++i];
        } else if (a[0] != '-' && !connector) {
            connector = a;
        } else {
            fprintf(stderr, "cdcflow: error: signal: unexpected \"%s\"\n", a);
            connector = NULL;
            collections = NULL;
            break;
        }
    }
    if (!connector || !collections) {
        fprintf(stderr, "usage: cdcflow signal CONNECTOR -o KEY=VALUE... --data-collections "
                        "DB.TABLE[,DB.TABLE] [--filter CONDITION]\n");
        cdc_kv_free(&opts);
        return 2;
    }
    const cdc_connector_factory_t *f = cdc_registry_connector(connector);
    if (!f || !f->send_signal) {
        fprintf(stderr, "cdcflow: error: connector \"%s\" %s\n", connector,
                f ? "takes no signals (mysql-cdc and postgres-cdc do)" : "does not exist");
        cdc_kv_free(&opts);
        return 2;
    }
    cdc_buf_t data = {0};
    cdc_buf_puts(&data, "{\"data-collections\": [");
    char *list = cdc_xstrdup(collections), *save = NULL;
    int n = 0;
    for (char *c = strtok_r(list, ",", &save); c; c = strtok_r(NULL, ",", &save), n++) {
        cdc_buf_puts(&data, n ? ", " : "");
        put_json_string(&data, c);
    }
    cdc_buf_puts(&data, "], \"type\": \"incremental\"");
    if (filter) {
        cdc_buf_puts(&data, ", \"additional-conditions\": [");
        strcpy(list, collections);
        n = 0;
        for (char *c = strtok_r(list, ",", &save); c; c = strtok_r(NULL, ",", &save), n++) {
            cdc_buf_puts(&data, n ? ", {\"data-collection\": " : "{\"data-collection\": ");
            put_json_string(&data, c);
            cdc_buf_puts(&data, ", \"filter\": ");
            put_json_string(&data, filter);
            cdc_buf_putc(&data, '}');
        }
        cdc_buf_putc(&data, ']');
    }
    cdc_buf_putc(&data, '}');
    free(list);
    cdc_error_t *err = NULL;
    int rc = f->send_signal(&opts, "execute-snapshot", cdc_buf_cstr(&data), &err);
    if (rc < 0) {
        cdc_error_print(err, stderr);
        cdc_error_destroy(err);
    } else {
        printf("sent execute-snapshot %s\n", cdc_buf_cstr(&data));
    }
    cdc_buf_free(&data);
    cdc_kv_free(&opts);
    return rc < 0 ? 1 : 0;
}

static int cmd_health(int argc, char **argv)
{
    const char *host = "127.0.0.1";
    int64_t port = 9249;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
            if (cdc_parse_int(argv[++i], &port) < 0 || port < 1 || port > 65535) {
                fprintf(stderr, "cdcflow: error: --port takes 1 to 65535, found \"%s\"\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--host") == 0 && i + 1 < argc) {
            host = argv[++i];
        } else {
            fprintf(stderr, "cdcflow: error: unknown health option \"%s\"\n", argv[i]);
            return 2;
        }
    }
    cdc_error_t *err = NULL;
    cdc_buf_t body = {0};
    int status = cdc_metrics_probe(host, (int)port, "/healthz", 3000, &body, &err);
    if (status < 0) {
        fprintf(stderr, "cdcflow: unhealthy: ");
        cdc_error_print(err, stderr);
        cdc_error_destroy(err);
        cdc_buf_free(&body);
        return 1;
    }
    printf("%d %s", status, body.len ? cdc_buf_cstr(&body) : "\n");
    cdc_buf_free(&body);
    return status == 200 ? 0 : 1;
}

int main(int argc, char **argv)
{
    /* A fixed mmap threshold (glibc's default rises to 32 MiB after the first large free): the
       large blocks of the state store (its slot array when it grows, RocksDB's write batches,
       memtable and cache blocks) go back to the system when freed instead of fragmenting the
       threads' arenas. bench/stateful.sh's join: peak RSS 86 MB to 77 MB, same speed. */
    mallopt(M_MMAP_THRESHOLD, 128 << 10);
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
    if (strcmp(cmd, "describe") == 0 && argc > 2 && strcmp(argv[2], "--markdown") == 0)
        return cdc_describe_markdown(stdout);
    if (strcmp(cmd, "describe") == 0)
        return cdc_describe(argc > 2 ? argv[2] : NULL, stdout, stderr);
    if (strcmp(cmd, "run") == 0 || strcmp(cmd, "explain") == 0)
        return cdc_runtime_main(argc - 1, argv + 1, strcmp(cmd, "explain") == 0);
    if (strcmp(cmd, "signal") == 0)
        return cmd_signal(argc - 1, argv + 1);
    if (strcmp(cmd, "health") == 0)
        return cmd_health(argc - 1, argv + 1);
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
