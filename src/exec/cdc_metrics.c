/*
 * cdc_metrics.c — job counters, the Prometheus text endpoint and the live
 * status line (see cdc_metrics.h).
 */
#include "cdc_metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cdc_log.h"
#include "cdc_plugin.h"
#include "cdc_util.h"

#ifndef CDC_VERSION_STRING
#define CDC_VERSION_STRING "0.1.0"
#endif

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static cdc_pipe_metrics_t **reg;
static int nreg;
static int64_t start_unix_ms;
static atomic_bool stopping;

static const double lat_bounds[CDC_METRICS_LAT_BUCKETS] = {0.001, 0.0025, 0.005, 0.01, 0.025,
                                                           0.05,  0.1,    0.25,  1.0,  5.0};
static const double row_bounds[CDC_METRICS_ROW_BUCKETS] = {1,    10,    100,    1000,
                                                           5000, 10000, 100000, 1000000};

cdc_pipe_metrics_t *cdc_metrics_pipe_new(const char *job, const char *source, const char *sink,
                                         int nsplits, int64_t total_rows)
{
    cdc_pipe_metrics_t *m = cdc_xcalloc(1, sizeof(*m));
    m->job = cdc_xstrdup(job);
    m->source = cdc_xstrdup(source);
    m->sink = cdc_xstrdup(sink);
    m->total_rows = total_rows;
    pthread_mutex_init(&m->mu, NULL);
    m->nsplits = nsplits;
    m->samples = cdc_xcalloc((size_t)nsplits, sizeof(*m->samples));
    m->nsamples = cdc_xcalloc((size_t)nsplits, sizeof(*m->nsamples));
    m->writers = cdc_xcalloc((size_t)nsplits, sizeof(*m->writers));
    pthread_mutex_lock(&reg_mu);
    if (start_unix_ms == 0)
        start_unix_ms = cdc_wall_ms();
    reg = cdc_xrealloc(reg, (size_t)(nreg + 1) * sizeof(*reg));
    reg[nreg++] = m;
    pthread_mutex_unlock(&reg_mu);
    return m;
}

void cdc_metrics_flush(cdc_pipe_metrics_t *m, int64_t micros, uint64_t rows)
{
    atomic_fetch_add(&m->flushes, 1);
    atomic_fetch_add(&m->flush_us_sum, (unsigned long long)micros);
    atomic_fetch_add(&m->flush_rows_sum, rows);
    double s = (double)micros / 1e6;
    int b = 0;
    while (b < CDC_METRICS_LAT_BUCKETS && s > lat_bounds[b])
        b++;
    atomic_fetch_add(&m->flush_lat[b], 1);
    b = 0;
    while (b < CDC_METRICS_ROW_BUCKETS && (double)rows > row_bounds[b])
        b++;
    atomic_fetch_add(&m->flush_rows[b], 1);
    atomic_store(&m->last_commit_ms, cdc_wall_ms());
}

/* ---- gauges reported by readers and writers --------------------------------------------- */

typedef struct collect {
    cdc_pipe_metrics_t *m;
    int split;
    int cap;
} collect_t;

static __thread collect_t tls_collect;

void cdc_metrics_samples_begin(cdc_pipe_metrics_t *m, int split)
{
    pthread_mutex_lock(&m->mu);
    m->nsamples[split] = 0;
    tls_collect = (collect_t){.m = m, .split = split, .cap = -1};
}

void cdc_metrics_sample(void *ctx, const char *name, const char *labels, double value)
{
    (void)ctx;
    collect_t *c = &tls_collect;
    cdc_pipe_metrics_t *m = c->m;
    if (!m)
        return;
    int n = m->nsamples[c->split];
    if (n >= 1024)
        return; /* a reader reporting more series than that is a bug; keep the endpoint small */
    /* the array only grows while a reader's first reports come in */
    if ((n & (n - 1)) == 0 || n == 0) {
        int want = n == 0 ? 8 : n * 2;
        m->samples[c->split] =
            cdc_xrealloc(m->samples[c->split], (size_t)want * sizeof(cdc_metric_sample_t));
    }
    cdc_metric_sample_t *s = &m->samples[c->split][n];
    snprintf(s->name, sizeof(s->name), "%s", name);
    snprintf(s->labels, sizeof(s->labels), "%s", labels ? labels : "");
    s->value = value;
    m->nsamples[c->split] = n + 1;
}

void cdc_metrics_samples_end(cdc_pipe_metrics_t *m, int split)
{
    (void)split;
    tls_collect = (collect_t){0};
    pthread_mutex_unlock(&m->mu);
}

void cdc_metrics_set_writer(cdc_pipe_metrics_t *m, int split, struct cdc_writer_s *writer)
{
    pthread_mutex_lock(&m->mu);
    m->writers[split] = writer;
    pthread_mutex_unlock(&m->mu);
}

static void live_emit(void *ctx, const char *name, const char *labels, double value)
{
    cdc_pipe_metrics_t *m = ctx;
    if (m->nlive >= 1024)
        return;
    if (m->nlive == m->caplive) {
        m->caplive = m->caplive ? m->caplive * 2 : 8;
        m->live = cdc_xrealloc(m->live, (size_t)m->caplive * sizeof(*m->live));
    }
    cdc_metric_sample_t *s = &m->live[m->nlive++];
    snprintf(s->name, sizeof(s->name), "%s", name);
    snprintf(s->labels, sizeof(s->labels), "%s", labels ? labels : "");
    s->value = value;
}

/* Asks every open writer for its gauges (under the pipe's lock, so none closes meanwhile). */
static void collect_live(void)
{
    for (int i = 0; i < nreg; i++) {
        cdc_pipe_metrics_t *m = reg[i];
        pthread_mutex_lock(&m->mu);
        m->nlive = 0;
        for (int s = 0; s < m->nsplits; s++) {
            cdc_writer_t *w = m->writers[s];
            if (w && w->ops->metrics)
                w->ops->metrics(w, live_emit, m);
        }
        pthread_mutex_unlock(&m->mu);
    }
}

/* ---- Prometheus text format ------------------------------------------------------------ */

typedef struct known_metric {
    const char *name;
    const char *type;
    const char *help;
} known_metric_t;

/* what readers and writers may report; anything else is exported untyped */
static const known_metric_t reported[] = {
    {"cdcflow_source_lag_records", "gauge",
     "Records between the last one read and the end of the partition (Kafka consumer lag)."},
    {"cdcflow_source_offset", "gauge", "Next offset to read, per partition."},
    {"cdcflow_source_committed_offset", "gauge", "Offset committed to the consumer group."},
    {"cdcflow_source_binlog_position", "gauge", "Binlog position read (file in the label)."},
    {"cdcflow_source_lsn", "gauge", "WAL position (LSN) read, as a number."},
    {"cdcflow_source_decode_errors_total", "counter",
     "Messages that could not be decoded (skipped, dead-lettered or fatal)."},
    {"cdcflow_sink_retries_total", "counter",
     "Flushes retried after a transient failure (reconnect and replay)."},
    {NULL, NULL, NULL},
};

static void put_label_value(cdc_buf_t *b, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            cdc_buf_putc(b, '\\');
        if (*v == '\n') {
            cdc_buf_puts(b, "\\n");
            continue;
        }
        cdc_buf_putc(b, *v);
    }
}

static void put_labels(cdc_buf_t *b, const cdc_pipe_metrics_t *m, const char *table,
                       const char *extra)
{
    cdc_buf_puts(b, "{job=\"");
    put_label_value(b, m->job);
    cdc_buf_puts(b, "\",table=\"");
    put_label_value(b, table);
    cdc_buf_putc(b, '"');
    if (extra && *extra) {
        cdc_buf_putc(b, ',');
        cdc_buf_puts(b, extra);
    }
    cdc_buf_putc(b, '}');
}

static void head(cdc_buf_t *b, const char *name, const char *type, const char *help)
{
    cdc_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void put_num(cdc_buf_t *b, double v)
{
    if (v == (double)(long long)v && v < 9e15 && v > -9e15)
        cdc_buf_printf(b, " %lld\n", (long long)v);
    else
        cdc_buf_printf(b, " %.17g\n", v);
}

static void counter_family(cdc_buf_t *b, const char *name, const char *help, bool sink_table,
                           size_t offset)
{
    head(b, name, "counter", help);
    for (int i = 0; i < nreg; i++) {
        cdc_buf_puts(b, name);
        put_labels(b, reg[i], sink_table ? reg[i]->sink : reg[i]->source, NULL);
        put_num(b, (double)atomic_load((atomic_ullong *)((char *)reg[i] + offset)));
    }
}

static void histogram(cdc_buf_t *b, const char *name, const char *help, const double *bounds,
                      int nb, size_t buckets_off, size_t sum_off, double sum_scale)
{
    head(b, name, "histogram", help);
    for (int i = 0; i < nreg; i++) {
        cdc_pipe_metrics_t *m = reg[i];
        atomic_ullong *bk = (atomic_ullong *)((char *)m + buckets_off);
        unsigned long long cum = 0;
        char le[64];
        for (int k = 0; k <= nb; k++) {
            cum += atomic_load(&bk[k]);
            if (k < nb)
                snprintf(le, sizeof(le), "le=\"%g\"", bounds[k]);
            else
                snprintf(le, sizeof(le), "le=\"+Inf\"");
            cdc_buf_printf(b, "%s_bucket", name);
            put_labels(b, m, m->sink, le);
            put_num(b, (double)cum);
        }
        cdc_buf_printf(b, "%s_sum", name);
        put_labels(b, m, m->sink, NULL);
        put_num(b, (double)atomic_load((atomic_ullong *)((char *)m + sum_off)) * sum_scale);
        cdc_buf_printf(b, "%s_count", name);
        put_labels(b, m, m->sink, NULL);
        put_num(b, (double)cum);
    }
}

static void reported_families(cdc_buf_t *b)
{
    /* names in first-seen order, each family written together as the format requires */
    const char *names[64];
    int nnames = 0;
    for (int i = 0; i < nreg; i++) {
        cdc_pipe_metrics_t *m = reg[i];
        pthread_mutex_lock(&m->mu);
        for (int s = 0; s <= m->nsplits; s++) {
            const cdc_metric_sample_t *arr = s < m->nsplits ? m->samples[s] : m->live;
            int n = s < m->nsplits ? m->nsamples[s] : m->nlive;
            for (int k = 0; k < n; k++) {
                const char *nm = arr[k].name;
                bool seen = false;
                for (int j = 0; j < nnames && !seen; j++)
                    seen = strcmp(names[j], nm) == 0;
                if (!seen && nnames < 64)
                    names[nnames++] = nm;
            }
        }
        pthread_mutex_unlock(&m->mu);
    }
    for (int j = 0; j < nnames; j++) {
        char name[64];
        snprintf(name, sizeof(name), "%s", names[j]);
        const known_metric_t *km = NULL;
        for (int r = 0; reported[r].name && !km; r++)
            if (strcmp(reported[r].name, name) == 0)
                km = &reported[r];
        head(b, name, km ? km->type : "untyped", km ? km->help : "Reported by a connector.");
        for (int i = 0; i < nreg; i++) {
            cdc_pipe_metrics_t *m = reg[i];
            pthread_mutex_lock(&m->mu);
            for (int s = 0; s <= m->nsplits; s++)
                for (int k = 0; k < (s < m->nsplits ? m->nsamples[s] : m->nlive); k++) {
                    const cdc_metric_sample_t *sm =
                        s < m->nsplits ? &m->samples[s][k] : &m->live[k];
                    if (strcmp(sm->name, name) != 0)
                        continue;
                    cdc_buf_puts(b, name);
                    bool sink_side = strncmp(name, "cdcflow_sink_", 13) == 0;
                    put_labels(b, m, sink_side ? m->sink : m->source, sm->labels);
                    put_num(b, sm->value);
                }
            pthread_mutex_unlock(&m->mu);
        }
    }
}

void cdc_metrics_render(cdc_buf_t *b)
{
    pthread_mutex_lock(&reg_mu);
    collect_live();
    head(b, "cdcflow_info", "gauge", "Always 1; the version in a label.");
    cdc_buf_printf(b, "cdcflow_info{version=\"%s\"} 1\n", CDC_VERSION_STRING);
    head(b, "cdcflow_start_time_seconds", "gauge", "When the first job started (unix time).");
    cdc_buf_printf(b, "cdcflow_start_time_seconds %.3f\n", (double)start_unix_ms / 1000.0);
    counter_family(b, "cdcflow_records_read_total", "Rows read from the source table.", false,
                   offsetof(cdc_pipe_metrics_t, read));
    counter_family(b, "cdcflow_records_written_total", "Rows written to the sink table.", true,
                   offsetof(cdc_pipe_metrics_t, written));
    counter_family(b, "cdcflow_records_skipped_total",
                   "Rows dropped by table.exec.expression-error.policy = SKIP.", true,
                   offsetof(cdc_pipe_metrics_t, skipped));
    counter_family(b, "cdcflow_schema_changes_total",
                   "Schema changes of the source table met (README \"Schema changes\").", true,
                   offsetof(cdc_pipe_metrics_t, schema_changes));
    histogram(b, "cdcflow_sink_flush_duration_seconds",
              "Time a sink flush took until durable (then the source commits).", lat_bounds,
              CDC_METRICS_LAT_BUCKETS, offsetof(cdc_pipe_metrics_t, flush_lat),
              offsetof(cdc_pipe_metrics_t, flush_us_sum), 1e-6);
    histogram(b, "cdcflow_sink_flush_rows", "Rows read per flush (the batch size).", row_bounds,
              CDC_METRICS_ROW_BUCKETS, offsetof(cdc_pipe_metrics_t, flush_rows),
              offsetof(cdc_pipe_metrics_t, flush_rows_sum), 1.0);
    head(b, "cdcflow_last_commit_timestamp_seconds", "gauge",
         "When the source position was last committed after a durable flush (unix time, 0 = "
         "never).");
    for (int i = 0; i < nreg; i++) {
        cdc_buf_puts(b, "cdcflow_last_commit_timestamp_seconds");
        put_labels(b, reg[i], reg[i]->source, NULL);
        cdc_buf_printf(b, " %.3f\n", (double)atomic_load(&reg[i]->last_commit_ms) / 1000.0);
    }
    head(b, "cdcflow_running_splits", "gauge", "Reader threads of the pipe still running.");
    for (int i = 0; i < nreg; i++) {
        cdc_buf_puts(b, "cdcflow_running_splits");
        put_labels(b, reg[i], reg[i]->source, NULL);
        put_num(b, atomic_load(&reg[i]->running_splits));
    }
    reported_families(b);
    pthread_mutex_unlock(&reg_mu);
}

/* ---- HTTP ------------------------------------------------------------------------------ */

static int srv_fd = -1;
static pthread_t srv_thread;
static atomic_bool srv_stop;

void cdc_metrics_set_stopping(void)
{
    atomic_store(&stopping, true);
}

static void respond(int fd, const char *status, const char *ctype, const char *body, size_t len)
{
    char headbuf[256];
    int n = snprintf(headbuf, sizeof(headbuf),
                     "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n",
                     status, ctype, len);
    const char *parts[2] = {headbuf, body};
    size_t lens[2] = {(size_t)n, len};
    for (int p = 0; p < 2; p++) {
        size_t off = 0;
        while (off < lens[p]) {
            ssize_t w = send(fd, parts[p] + off, lens[p] - off, MSG_NOSIGNAL);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                return;
            off += (size_t)w;
        }
    }
}

static void serve_one(int fd)
{
    char req[4096];
    size_t got = 0;
    int64_t deadline = cdc_mono_ms() + 2000;
    while (got < sizeof(req) - 1) {
        int left = (int)(deadline - cdc_mono_ms());
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (left <= 0 || poll(&pfd, 1, left) <= 0)
            return; /* a client that does not send a request in time is dropped */
        ssize_t r = recv(fd, req + got, sizeof(req) - 1 - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return;
        got += (size_t)r;
        req[got] = '\0';
        if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
            break;
    }
    req[got] = '\0';
    char method[8] = {0}, path[256] = {0};
    if (sscanf(req, "%7s %255s", method, path) != 2) {
        respond(fd, "400 Bad Request", "text/plain", "bad request\n", 12);
        return;
    }
    char *q = strchr(path, '?');
    if (q)
        *q = '\0';
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        respond(fd, "405 Method Not Allowed", "text/plain", "use GET\n", 8);
    } else if (strcmp(path, "/metrics") == 0) {
        cdc_buf_t b = {0};
        cdc_metrics_render(&b);
        respond(fd, "200 OK", "text/plain; version=0.0.4; charset=utf-8", b.data, b.len);
        cdc_buf_free(&b);
    } else if (strcmp(path, "/healthz") == 0 || strcmp(path, "/health") == 0) {
        if (atomic_load(&stopping))
            respond(fd, "503 Service Unavailable", "text/plain", "stopping\n", 9);
        else
            respond(fd, "200 OK", "text/plain", "ok\n", 3);
    } else {
        respond(fd, "404 Not Found", "text/plain", "try /metrics or /healthz\n", 25);
    }
}

static void *server_main(void *arg)
{
    (void)arg;
    while (!atomic_load(&srv_stop)) {
        struct pollfd pfd = {.fd = srv_fd, .events = POLLIN};
        int r = poll(&pfd, 1, 200);
        if (r <= 0)
            continue;
        int fd = accept(srv_fd, NULL, NULL);
        if (fd < 0)
            continue;
        serve_one(fd);
        close(fd);
    }
    return NULL;
}

int cdc_metrics_serve(const char *bind_addr, int port, int *bound_port, cdc_error_t **err)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, bind_addr, &sa.sin_addr) != 1)
        return cdc_error_set(err, CDC_ERR_OPTION, "metrics address \"%s\" is not an IPv4 address",
                             bind_addr);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return cdc_error_set(err, CDC_ERR_IO, "could not create a socket: %s", strerror(errno));
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 16) < 0) {
        int e = errno;
        close(fd);
        cdc_error_set(err, CDC_ERR_IO, "could not listen on %s:%d for metrics: %s", bind_addr, port,
                      strerror(e));
        if (e == EADDRINUSE)
            cdc_error_set_hint(*err, "another process uses the port; pick another --metrics-port");
        return -1;
    }
    socklen_t sl = sizeof(sa);
    getsockname(fd, (struct sockaddr *)&sa, &sl);
    if (bound_port)
        *bound_port = ntohs(sa.sin_port);
    srv_fd = fd;
    atomic_store(&srv_stop, false);
    if (pthread_create(&srv_thread, NULL, server_main, NULL) != 0) {
        close(fd);
        srv_fd = -1;
        return cdc_error_set(err, CDC_ERR_INTERNAL, "could not start the metrics thread");
    }
    return 0;
}

void cdc_metrics_stop_server(void)
{
    if (srv_fd < 0)
        return;
    atomic_store(&srv_stop, true);
    pthread_join(srv_thread, NULL);
    close(srv_fd);
    srv_fd = -1;
}

/* ---- status line ----------------------------------------------------------------------- */

static pthread_t st_thread;
static atomic_bool st_run;
static bool st_started;
static int st_interval_ms;
static char st_line[512];
static bool st_shown;
static double st_rate;

static void put_count(cdc_buf_t *b, unsigned long long v)
{
    char d[32];
    int n = snprintf(d, sizeof(d), "%llu", v);
    for (int i = 0; i < n; i++) {
        cdc_buf_putc(b, d[i]);
        if ((n - i - 1) % 3 == 0 && i < n - 1)
            cdc_buf_putc(b, ',');
    }
}

typedef struct totals {
    unsigned long long read, written, errors;
    double lag;
    int64_t total; /* -1 unknown */
} totals_t;

static totals_t sum_totals(void)
{
    totals_t t = {0};
    t.total = 0;
    pthread_mutex_lock(&reg_mu);
    for (int i = 0; i < nreg; i++) {
        cdc_pipe_metrics_t *m = reg[i];
        t.read += atomic_load(&m->read);
        t.written += atomic_load(&m->written);
        t.errors += atomic_load(&m->skipped);
        if (m->total_rows < 0 || t.total < 0)
            t.total = -1;
        else
            t.total += m->total_rows;
        pthread_mutex_lock(&m->mu);
        for (int s = 0; s < m->nsplits; s++)
            for (int k = 0; k < m->nsamples[s]; k++) {
                const cdc_metric_sample_t *sm = &m->samples[s][k];
                if (strcmp(sm->name, "cdcflow_source_lag_records") == 0)
                    t.lag += sm->value;
                else if (strcmp(sm->name, "cdcflow_source_decode_errors_total") == 0)
                    t.errors += (unsigned long long)sm->value;
            }
        pthread_mutex_unlock(&m->mu);
    }
    if (nreg == 0)
        t.total = -1;
    pthread_mutex_unlock(&reg_mu);
    return t;
}

void cdc_status_format(cdc_buf_t *b, double rate, int width)
{
    totals_t t = sum_totals();
    cdc_buf_puts(b, "cdcflow ");
    if (t.total > 0) {
        double frac = (double)t.read / (double)t.total;
        if (frac > 1)
            frac = 1;
        int bar = 20;
        int fill = (int)(frac * bar + 0.5);
        cdc_buf_putc(b, '[');
        for (int i = 0; i < bar; i++)
            cdc_buf_putc(b, i < fill ? '#' : '-');
        cdc_buf_printf(b, "] %3d%%  ", (int)(frac * 100));
        put_count(b, t.read);
        cdc_buf_putc(b, '/');
        put_count(b, (unsigned long long)t.total);
        cdc_buf_puts(b, " rows  ");
        cdc_buf_printf(b, "%.0f rows/s  ", rate);
        if (rate > 0 && t.read < (unsigned long long)t.total) {
            long eta = (long)((double)((unsigned long long)t.total - t.read) / rate + 0.5);
            cdc_buf_printf(b, "ETA %ld:%02ld:%02ld  ", eta / 3600, eta / 60 % 60, eta % 60);
        }
    } else {
        put_count(b, t.read);
        cdc_buf_puts(b, " rows  ");
        cdc_buf_printf(b, "%.0f rows/s  ", rate);
        cdc_buf_puts(b, "lag ");
        put_count(b, (unsigned long long)t.lag);
        cdc_buf_puts(b, "  ");
    }
    cdc_buf_puts(b, "errors ");
    put_count(b, t.errors);
    if (width > 0 && b->len > (size_t)width)
        b->len = (size_t)width;
    cdc_buf_cstr(b);
}

static void st_clear(void)
{
    if (st_shown)
        fputs("\r\033[K", stderr);
}

static void st_redraw(void)
{
    if (st_line[0]) {
        fputs(st_line, stderr);
        st_shown = true;
    }
}

static void *status_main(void *arg)
{
    (void)arg;
    int64_t last_t = cdc_mono_ms();
    unsigned long long last_rows = sum_totals().read;
    double rate = 0;
    while (atomic_load(&st_run)) {
        for (int slept = 0; slept < st_interval_ms && atomic_load(&st_run); slept += 50) {
            struct timespec ts = {0, 50 * 1000000L};
            nanosleep(&ts, NULL);
        }
        int64_t now = cdc_mono_ms();
        unsigned long long rows = sum_totals().read;
        if (now > last_t) {
            double inst = (double)(rows - last_rows) * 1000.0 / (double)(now - last_t);
            rate = rate == 0 ? inst : 0.5 * rate + 0.5 * inst;
        }
        last_t = now;
        last_rows = rows;
        st_rate = rate;
        cdc_buf_t b = {0};
        cdc_status_format(&b, rate, 200);
        cdc_log_lock();
        snprintf(st_line, sizeof(st_line), "\r\033[K%s", b.data);
        fputs(st_line, stderr);
        fflush(stderr);
        st_shown = true;
        cdc_log_unlock();
        cdc_buf_free(&b);
    }
    return NULL;
}

void cdc_status_start(int interval_ms)
{
    if (st_started)
        return;
    st_interval_ms = interval_ms > 0 ? interval_ms : 1000;
    atomic_store(&st_run, true);
    cdc_log_set_hooks(st_clear, st_redraw);
    if (pthread_create(&st_thread, NULL, status_main, NULL) == 0)
        st_started = true;
}

void cdc_status_stop(void)
{
    if (!st_started)
        return;
    atomic_store(&st_run, false);
    pthread_join(st_thread, NULL);
    st_started = false;
    cdc_log_set_hooks(NULL, NULL);
    cdc_buf_t b = {0};
    cdc_status_format(&b, st_rate, 200);
    cdc_log_lock();
    if (st_shown) {
        /* leave the final figures on screen */
        fprintf(stderr, "\r\033[K%s\n", b.data);
        fflush(stderr);
        st_shown = false;
    }
    st_line[0] = '\0';
    cdc_log_unlock();
    cdc_buf_free(&b);
}

/* ---- the health probe (what a container healthcheck runs) ------------------------------ */

int cdc_metrics_probe(const char *host, int port, const char *path, int timeout_ms, cdc_buf_t *body,
                      cdc_error_t **err)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
        return cdc_error_set(err, CDC_ERR_OPTION, "\"%s\" is not an IPv4 address", host);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return cdc_error_set(err, CDC_ERR_IO, "could not create a socket: %s", strerror(errno));
    struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        int e = errno;
        close(fd);
        return cdc_error_set(err, CDC_ERR_IO, "could not connect to %s:%d: %s", host, port,
                             strerror(e));
    }
    char req[512];
    int n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n",
                     path, host);
    if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
        close(fd);
        return cdc_error_set(err, CDC_ERR_IO, "could not send the request to %s:%d", host, port);
    }
    cdc_buf_t resp = {0};
    char chunk[4096];
    ssize_t r;
    while ((r = recv(fd, chunk, sizeof(chunk), 0)) > 0)
        cdc_buf_append(&resp, chunk, (size_t)r);
    close(fd);
    cdc_buf_cstr(&resp);
    int status = 0;
    if (resp.len < 12 || sscanf(resp.data, "HTTP/1.%*d %d", &status) != 1) {
        cdc_buf_free(&resp);
        return cdc_error_set(err, CDC_ERR_IO, "no HTTP answer from %s:%d", host, port);
    }
    const char *b = strstr(resp.data, "\r\n\r\n");
    if (body && b)
        cdc_buf_puts(body, b + 4);
    cdc_buf_free(&resp);
    return status;
}
