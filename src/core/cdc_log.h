/*
 * cdc_log.h — one line per event on stderr, as text or JSON.
 *
 * Text:  2026-12-02T11:10:00.123Z INFO  [job] [table] message
 * JSON:  {"ts":"2026-12-02T11:10:00.123Z","level":"info","job":"...","table":"...","msg":"..."}
 *
 * The default level is warn: a run stays quiet unless something needs a
 * person (services pass --log-level info). Nothing secret is ever logged:
 * callers log table names, positions and counts, never option values.
 * Thread-safe; a live status line (cdc_status) is cleared before a line is
 * written and redrawn after it.
 */
#ifndef CDC_LOG_H
#define CDC_LOG_H

#include <stdbool.h>

#include "cdc_error.h"

typedef enum cdc_log_level {
    CDC_LOG_ERROR,
    CDC_LOG_WARN,
    CDC_LOG_INFO,
    CDC_LOG_DEBUG
} cdc_log_level_t;

/** Sets the level from "error", "warn", "info" or "debug"; -1 for anything else. */
int cdc_log_set_level(const char *name);
/** Sets the format from "text" or "json"; -1 for anything else. */
int cdc_log_set_format(const char *name);
bool cdc_log_enabled(cdc_log_level_t level);
bool cdc_log_json(void);

/** Logs one event. job and table may be NULL. */
void cdc_log(cdc_log_level_t level, const char *job, const char *table, const char *fmt, ...)
    CDC_PRINTF(4, 5);
/** Logs an error object (message, detail, hint, context) as one event. */
void cdc_log_error(const char *job, const char *table, const cdc_error_t *err);

/**
 * Called with the log lock held around every line so a status line can be
 * cleared and redrawn (set by cdc_status). NULL hooks do nothing.
 */
void cdc_log_set_hooks(void (*before)(void), void (*after)(void));
/** The lock every stderr writer shares. */
void cdc_log_lock(void);
void cdc_log_unlock(void);

#endif
