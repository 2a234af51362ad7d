/*
 * cdc_kafka_mock.c — `cdcflow kafka-mock`: starts librdkafka's mock cluster
 * (real Kafka protocol over TCP on loopback), creates the topics, prints the
 * bootstrap address as the first line of stdout and serves until SIGINT or
 * SIGTERM.
 *
 * Faults are injected through stdin, one command per line; each is answered
 * with one line on stdout, "ok" or "error: ...":
 *   down BROKER_ID                      the broker stops accepting connections
 *   up BROKER_ID                        it accepts them again
 *   create TOPIC PARTITIONS             creates a topic
 *   leader TOPIC PARTITION BROKER_ID    moves a partition's leader
 *
 * Limits of the mock (librdkafka 2.0): each partition keeps at most about
 * 5 MB and 100,000 message sets and drops the oldest beyond that, and
 * nothing survives the process.
 */
#include "cdc_kafka_mock.h"

#include <errno.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cdc_options.h"

static volatile sig_atomic_t mock_stop;

static void on_mock_signal(int sig)
{
    (void)sig;
    mock_stop = 1;
}

static int mock_usage(void)
{
    fputs("usage: cdcflow kafka-mock [--partitions N] [--topic T]... [--brokers N]\n", stderr);
    return 2;
}

static int parse_count(const char *what, const char *text, int64_t max, int *out)
{
    int64_t n;
    if (cdc_parse_int(text, &n) < 0 || n < 1 || n > max) {
        fprintf(stderr, "cdcflow: error: %s takes 1 to %lld, found \"%s\"\n", what, (long long)max,
                text);
        return -1;
    }
    *out = (int)n;
    return 0;
}

static int word_count(char *line, char **words, int max)
{
    int n = 0;
    for (char *save = NULL, *w = strtok_r(line, " \t\r", &save); w && n < max;
         w = strtok_r(NULL, " \t\r", &save))
        words[n++] = w;
    return n;
}

/* Executes one stdin command; writes the answer line. */
static void mock_command(rd_kafka_mock_cluster_t *mc, int nbrokers, char *line)
{
    char *w[5];
    int n = word_count(line, w, 5);
    int64_t a = 0, b = 0;
    rd_kafka_resp_err_t e = RD_KAFKA_RESP_ERR_NO_ERROR;
    if (n == 0)
        return;
    if ((strcmp(w[0], "down") == 0 || strcmp(w[0], "up") == 0) && n == 2 &&
        cdc_parse_int(w[1], &a) == 0) {
        if (a < 1 || a > nbrokers) {
            printf("error: no broker %lld (brokers are 1 to %d)\n", (long long)a, nbrokers);
            fflush(stdout);
            return;
        }
        e = strcmp(w[0], "down") == 0 ? rd_kafka_mock_broker_set_down(mc, (int32_t)a)
                                      : rd_kafka_mock_broker_set_up(mc, (int32_t)a);
    } else if (strcmp(w[0], "create") == 0 && n == 3 && cdc_parse_int(w[2], &a) == 0 && a > 0) {
        e = rd_kafka_mock_topic_create(mc, w[1], (int)a, nbrokers < 3 ? nbrokers : 3);
    } else if (strcmp(w[0], "leader") == 0 && n == 4 && cdc_parse_int(w[2], &a) == 0 &&
               cdc_parse_int(w[3], &b) == 0) {
        e = rd_kafka_mock_partition_set_leader(mc, w[1], (int32_t)a, (int32_t)b);
    } else {
        printf("error: unknown command \"%s\" (down ID, up ID, create TOPIC PARTITIONS, leader "
               "TOPIC PARTITION ID)\n",
               w[0]);
        fflush(stdout);
        return;
    }
    if (e)
        printf("error: %s\n", rd_kafka_err2str(e));
    else
        puts("ok");
    fflush(stdout);
}

/* Reads whatever stdin has and runs the complete lines; returns false at EOF. */
static bool mock_read_stdin(rd_kafka_mock_cluster_t *mc, int nbrokers, char *buf, size_t cap,
                            size_t *len)
{
    ssize_t r = read(0, buf + *len, cap - 1 - *len);
    if (r <= 0)
        return r < 0 && errno == EINTR;
    *len += (size_t)r;
    buf[*len] = '\0';
    char *start = buf, *nl;
    while ((nl = strchr(start, '\n')) != NULL) {
        *nl = '\0';
        mock_command(mc, nbrokers, start);
        start = nl + 1;
    }
    *len = (size_t)(buf + *len - start);
    memmove(buf, start, *len);
    if (*len == cap - 1) /* an overlong line: drop it */
        *len = 0;
    return true;
}

int cdc_kafka_mock_main(int argc, char **argv)
{
    int partitions = 1, nbrokers = 1;
    const char *topics[64];
    int ntopics = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--partitions") == 0 && i + 1 < argc) {
            if (parse_count("--partitions", argv[++i], 100000, &partitions) < 0)
                return 2;
        } else if (strcmp(argv[i], "--brokers") == 0 && i + 1 < argc) {
            if (parse_count("--brokers", argv[++i], 16, &nbrokers) < 0)
                return 2;
        } else if (strcmp(argv[i], "--topic") == 0 && i + 1 < argc) {
            if (ntopics == 64) {
                fputs("cdcflow: error: at most 64 --topic options\n", stderr);
                return 2;
            }
            topics[ntopics++] = argv[++i];
        } else {
            fprintf(stderr, "cdcflow: error: unknown kafka-mock option \"%s\"\n", argv[i]);
            return mock_usage();
        }
    }
    char errstr[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof(errstr));
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
    if (!rk) {
        fprintf(stderr, "cdcflow: error: could not create the mock's Kafka handle\nDETAIL: %s\n",
                errstr);
        return 1;
    }
    rd_kafka_mock_cluster_t *mc = rd_kafka_mock_cluster_new(rk, nbrokers);
    if (!mc) {
        fputs("cdcflow: error: could not start the mock cluster\n", stderr);
        rd_kafka_destroy(rk);
        return 1;
    }
    int status = 0;
    for (int t = 0; t < ntopics; t++) {
        rd_kafka_resp_err_t e =
            rd_kafka_mock_topic_create(mc, topics[t], partitions, nbrokers < 3 ? nbrokers : 3);
        if (e) {
            fprintf(stderr, "cdcflow: error: could not create topic \"%s\"\nDETAIL: %s\n",
                    topics[t], rd_kafka_err2str(e));
            status = 1;
            goto out;
        }
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_mock_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    printf("%s\n", rd_kafka_mock_cluster_bootstraps(mc));
    fflush(stdout);
    char buf[4096];
    size_t len = 0;
    bool reading = true;
    while (!mock_stop) {
        struct pollfd pfd = {.fd = 0, .events = POLLIN};
        if (!reading) {
            usleep(200 * 1000);
            continue;
        }
        int r = poll(&pfd, 1, 200);
        if (r > 0)
            reading = mock_read_stdin(mc, nbrokers, buf, sizeof(buf), &len);
    }
out:
    rd_kafka_mock_cluster_destroy(mc);
    rd_kafka_destroy(rk);
    return status;
}
