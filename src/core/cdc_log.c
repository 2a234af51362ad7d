/*
 * cdc_log.c — leveled event lines on stderr (see cdc_log.h).
 */
#include "cdc_log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cdc_arena.h"

static atomic_int log_level = CDC_LOG_WARN;
static atomic_bool log_json;
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static void (*hook_before)(void);
static void (*hook_after)(void);

static const char *const level_names[] = {"error", "warn", "info", "debug"};

int cdc_log_set_level(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (strcasecmp(name, level_names[i]) == 0) {
            atomic_store(&log_level, i);
            return 0;
        }
    if (strcasecmp(name, "warning") == 0) {
        atomic_store(&log_level, CDC_LOG_WARN);
        return 0;
    }
    return -1;
}

int cdc_log_set_format(const char *name)
{
    if (strcasecmp(name, "text") == 0)
        atomic_store(&log_json, false);
    else if (strcasecmp(name, "json") == 0)
        atomic_store(&log_json, true);
    else
        return -1;
    return 0;
}

bool cdc_log_enabled(cdc_log_level_t level)
{
    return (int)level <= atomic_load(&log_level);
}

bool cdc_log_json(void)
{
    return atomic_load(&log_json);
}

void cdc_log_set_hooks(void (*before)(void), void (*after)(void))
{
    pthread_mutex_lock(&log_mu);
    hook_before = before;
    hook_after = after;
    pthread_mutex_unlock(&log_mu);
}

void cdc_log_lock(void)
{
    pthread_mutex_lock(&log_mu);
}

void cdc_log_unlock(void)
{
    pthread_mutex_unlock(&log_mu);
}

static void put_time(cdc_buf_t *b)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    cdc_buf_printf(b, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
                   tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
}

/* A JSON string body: quotes, backslashes and control characters escaped. */
static void put_json_str(cdc_buf_t *b, const char *s)
{
    cdc_buf_putc(b, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            cdc_buf_putc(b, '\\');
            cdc_buf_putc(b, (char)c);
        } else if (c == '\n') {
            cdc_buf_puts(b, "\\n");
        } else if (c == '\t') {
            cdc_buf_puts(b, "\\t");
        } else if (c < 0x20) {
            cdc_buf_printf(b, "\\u%04x", c);
        } else {
            cdc_buf_putc(b, (char)c);
        }
    }
    cdc_buf_putc(b, '"');
}

static void emit(cdc_log_level_t level, const char *job, const char *table, const char *msg)
{
    cdc_buf_t b = {0};
    if (atomic_load(&log_json)) {
        cdc_buf_puts(&b, "{\"ts\":\"");
        put_time(&b);
        cdc_buf_printf(&b, "\",\"level\":\"%s\"", level_names[level]);
        if (job) {
            cdc_buf_puts(&b, ",\"job\":");
            put_json_str(&b, job);
        }
        if (table) {
            cdc_buf_puts(&b, ",\"table\":");
            put_json_str(&b, table);
        }
        cdc_buf_puts(&b, ",\"msg\":");
        put_json_str(&b, msg);
        cdc_buf_puts(&b, "}\n");
    } else {
        put_time(&b);
        cdc_buf_printf(&b, " %-5s",
                       level == CDC_LOG_WARN    ? "WARN"
                       : level == CDC_LOG_ERROR ? "ERROR"
                       : level == CDC_LOG_INFO  ? "INFO"
                                                : "DEBUG");
        if (job)
            cdc_buf_printf(&b, " [%s]", job);
        if (table)
            cdc_buf_printf(&b, " [%s]", table);
        cdc_buf_putc(&b, ' ');
        /* one event, one line: continuation lines are indented */
        for (const char *p = msg; *p; p++) {
            cdc_buf_putc(&b, *p);
            if (*p == '\n' && p[1])
                cdc_buf_puts(&b, "    ");
        }
        if (b.len == 0 || b.data[b.len - 1] != '\n')
            cdc_buf_putc(&b, '\n');
    }
    pthread_mutex_lock(&log_mu);
    if (hook_before)
        hook_before();
    fwrite(b.data, 1, b.len, stderr);
    fflush(stderr);
    if (hook_after)
        hook_after();
    pthread_mutex_unlock(&log_mu);
    cdc_buf_free(&b);
}

void cdc_log(cdc_log_level_t level, const char *job, const char *table, const char *fmt, ...)
{
    if (!cdc_log_enabled(level))
        return;
    va_list ap;
    va_start(ap, fmt);
    char *msg = cdc_strdup_vprintf(fmt, ap);
    va_end(ap);
    emit(level, job, table, msg);
    free(msg);
}

void cdc_log_error(const char *job, const char *table, const cdc_error_t *err)
{
    if (!cdc_log_enabled(CDC_LOG_ERROR))
        return;
    char *text = cdc_error_format(err);
    /* cdc_error_format starts with "error: "; the level says it already */
    const char *msg = strncmp(text, "error: ", 7) == 0 ? text + 7 : text;
    size_t n = strlen(msg);
    while (n > 0 && msg[n - 1] == '\n')
        ((char *)msg)[--n] = '\0';
    emit(CDC_LOG_ERROR, job, table, msg);
    free(text);
}
