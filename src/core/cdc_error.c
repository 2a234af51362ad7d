/*
 * cdc_error.c — the error object and the allocation helpers.
 */
#include "cdc_error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(void)
{
    fputs("cdcflow: out of memory\n", stderr);
    abort();
}

void *cdc_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom();
    return p;
}

void *cdc_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom();
    return p;
}

void *cdc_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        oom();
    return p;
}

char *cdc_xstrdup(const char *s)
{
    return cdc_xstrndup(s, strlen(s));
}

char *cdc_xstrndup(const char *s, size_t n)
{
    char *p = cdc_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *cdc_strdup_vprintf(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        n = 0;
    char *p = cdc_xmalloc((size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *cdc_strdup_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = cdc_strdup_vprintf(fmt, ap);
    va_end(ap);
    return p;
}

cdc_error_t *cdc_error_newv(cdc_errcode_t code, const char *fmt, va_list ap)
{
    cdc_error_t *err = cdc_xcalloc(1, sizeof(*err));
    err->code = code;
    err->message = cdc_strdup_vprintf(fmt, ap);
    return err;
}

cdc_error_t *cdc_error_new(cdc_errcode_t code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cdc_error_t *err = cdc_error_newv(code, fmt, ap);
    va_end(ap);
    return err;
}

int cdc_error_set(cdc_error_t **errp, cdc_errcode_t code, const char *fmt, ...)
{
    if (errp) {
        va_list ap;
        va_start(ap, fmt);
        cdc_error_t *err = cdc_error_newv(code, fmt, ap);
        va_end(ap);
        cdc_error_destroy(*errp);
        *errp = err;
    }
    return -1;
}

void cdc_error_set_detail(cdc_error_t *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    free(err->detail);
    err->detail = cdc_strdup_vprintf(fmt, ap);
    va_end(ap);
}

void cdc_error_set_hint(cdc_error_t *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    free(err->hint);
    err->hint = cdc_strdup_vprintf(fmt, ap);
    va_end(ap);
}

void cdc_error_add_context(cdc_error_t *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = cdc_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (!err->context) {
        err->context = line;
        return;
    }
    char *joined = cdc_strdup_printf("%s\n%s", err->context, line);
    free(err->context);
    free(line);
    err->context = joined;
}

void cdc_error_destroy(cdc_error_t *err)
{
    if (!err)
        return;
    free(err->message);
    free(err->detail);
    free(err->hint);
    free(err->context);
    free(err);
}

/* Appends "LABEL: text", indenting continuation lines under the text. */
static char *append_block(char *out, const char *label, const char *text)
{
    size_t indent = strlen(label) + 2;
    size_t extra = strlen(label) + 3 + strlen(text);
    for (const char *p = text; *p; p++)
        if (*p == '\n')
            extra += indent;
    size_t len = strlen(out);
    out = cdc_xrealloc(out, len + extra + 1);
    char *w = out + len;
    w += sprintf(w, "\n%s: ", label);
    for (const char *p = text; *p; p++) {
        *w++ = *p;
        if (*p == '\n') {
            memset(w, ' ', indent);
            w += indent;
        }
    }
    *w = '\0';
    return out;
}

char *cdc_error_format(const cdc_error_t *err)
{
    char *out = cdc_strdup_printf("error: %s", err->message);
    if (err->detail)
        out = append_block(out, "DETAIL", err->detail);
    if (err->hint)
        out = append_block(out, "HINT", err->hint);
    if (err->context)
        out = append_block(out, "CONTEXT", err->context);
    return out;
}

void cdc_error_print(const cdc_error_t *err, void *stream)
{
    char *s = cdc_error_format(err);
    fprintf((FILE *)stream, "%s\n", s);
    free(s);
}
