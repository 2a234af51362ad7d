/*
 * cdc_error.h — the one error object of cdcflow.
 *
 * Set-up code (option validation, SQL, catalog, planning, connecting) returns
 * a cdc_error_t; the per-record path returns a cheap status and keeps its
 * message in a slot owned by its object (see cdc_deser_t), so a bad record
 * costs no allocation.
 *
 * Wording follows PostgreSQL's guide: a short lowercase message with
 * identifiers in double quotes; detail for facts; hint for what to do;
 * context lines added by callers from the inside out.
 */
#ifndef CDC_ERROR_H
#define CDC_ERROR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#if defined(__GNUC__)
#define CDC_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CDC_PRINTF(a, b)
#endif

typedef enum cdc_errcode {
    CDC_ERR_OPTION = 1, /* bad table/format/connector options */
    CDC_ERR_PARSE,      /* bad input data (messages, type text) */
    CDC_ERR_SQL,        /* SQL syntax or semantic error */
    CDC_ERR_CATALOG,    /* unknown/duplicate objects */
    CDC_ERR_PLAN,       /* planning: changelog negotiation, abilities */
    CDC_ERR_IO,         /* files, sockets */
    CDC_ERR_REMOTE,     /* a server said no */
    CDC_ERR_INTERNAL    /* a bug */
} cdc_errcode_t;

typedef struct cdc_error_s {
    cdc_errcode_t code;
    char *message; /* never NULL */
    char *detail;  /* may be NULL */
    char *hint;    /* may be NULL */
    char *context; /* '\n'-separated lines, innermost first; may be NULL */
    bool retriable;
    bool fatal;
} cdc_error_t;

/** Creates an error. Never returns NULL (aborts on out-of-memory). */
cdc_error_t *cdc_error_new(cdc_errcode_t code, const char *fmt, ...) CDC_PRINTF(2, 3);
cdc_error_t *cdc_error_newv(cdc_errcode_t code, const char *fmt, va_list ap);
/** Replaces the detail text. */
void cdc_error_set_detail(cdc_error_t *err, const char *fmt, ...) CDC_PRINTF(2, 3);
/** Replaces the hint text. */
void cdc_error_set_hint(cdc_error_t *err, const char *fmt, ...) CDC_PRINTF(2, 3);
/** Appends one context line (callers add theirs after the callee's). */
void cdc_error_add_context(cdc_error_t *err, const char *fmt, ...) CDC_PRINTF(2, 3);
/** Frees the error; NULL is accepted. */
void cdc_error_destroy(cdc_error_t *err);

/**
 * Formats the error the way the CLI prints it:
 *   error: MESSAGE
 *   DETAIL: ...
 *   HINT: ...
 *   CONTEXT: line1
 *            line2
 * Returns a malloc'ed string the caller frees.
 */
char *cdc_error_format(const cdc_error_t *err);

/** Writes cdc_error_format() output plus a newline to a stdio stream (FILE *). */
void cdc_error_print(const cdc_error_t *err, void *stream);

/** Helper: store a new error in *errp when errp is not NULL; returns -1. */
int cdc_error_set(cdc_error_t **errp, cdc_errcode_t code, const char *fmt, ...) CDC_PRINTF(3, 4);

/* malloc'ed printf; aborts on out-of-memory. */
char *cdc_strdup_printf(const char *fmt, ...) CDC_PRINTF(1, 2);
char *cdc_strdup_vprintf(const char *fmt, va_list ap);
/* Allocation helpers that abort on out-of-memory. */
void *cdc_xmalloc(size_t n);
void *cdc_xcalloc(size_t n, size_t size);
void *cdc_xrealloc(void *p, size_t n);
char *cdc_xstrdup(const char *s);
char *cdc_xstrndup(const char *s, size_t n);

#endif
