/*
 * cdc_position.c — position lines whose position is a whole resume record,
 * carried as one base64 token (cdc_position.h).
 */
#include "cdc_position.h"

#include <stdlib.h>
#include <string.h>

#include "cdc_value_text.h"

void cdc_position_key_part(cdc_buf_t *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        if (*p <= ' ' || *p == '%' || *p == '/' || *p == 0x7f)
            cdc_buf_printf(out, "%%%02X", (unsigned)*p);
        else
            cdc_buf_putc(out, (char)*p);
    }
}

void cdc_position_put(cdc_buf_t *out, const char *key, const char *record, size_t len)
{
    cdc_buf_puts(out, key);
    cdc_buf_putc(out, '\t');
    cdc_text_base64_encode(out, (const unsigned char *)record, len);
    cdc_buf_putc(out, '\n');
}

void cdc_position_hint(cdc_error_t *err, const char *also)
{
    if (err)
        cdc_error_set_hint(err,
                           "it was written by another version of cdcflow or edited by hand; to "
                           "start the source over, delete the job's state directory%s",
                           also ? also : "");
}

/* The error for a token that cannot be used: what is wrong, and how to start over. */
static int bad_token(cdc_error_t **err, const char *key, const char *why, const char *tok, size_t n)
{
    cdc_error_set(err, CDC_ERR_PARSE, "the stored position of \"%s\" cannot be read: %s", key, why);
    if (err && *err) {
        cdc_error_set_detail(*err, "the position begins \"%.*s\" (%zu bytes)",
                             (int)(n > 40 ? 40 : n), tok, n);
        cdc_position_hint(*err, NULL);
    }
    return -1;
}

int cdc_position_get(const char *lines, size_t len, const char *key, const char *magic,
                     cdc_buf_t *record, cdc_error_t **err)
{
    size_t klen = strlen(key);
    const char *end = lines ? lines + len : NULL;
    for (const char *line = lines; line && line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *stop = nl ? nl : end;
        if ((size_t)(stop - line) > klen && memcmp(line, key, klen) == 0 && line[klen] == '\t') {
            const char *tok = line + klen + 1;
            size_t n = (size_t)(stop - tok);
            cdc_buf_clear(record);
            cdc_buf_reserve(record, n / 4 * 3 + 4);
            long got = cdc_text_base64_decode(tok, n, false, (unsigned char *)record->data);
            if (got < 0)
                return bad_token(err, key, "it is not base64 text", tok, n);
            record->len = (size_t)got;
            record->data[record->len] = 0;
            size_t mlen = strlen(magic);
            if (record->len <= mlen || memcmp(record->data, magic, mlen) != 0 ||
                record->data[mlen] != '\n')
                return bad_token(err, key, "it is not a position record of this version", tok, n);
            return 1;
        }
        line = nl ? nl + 1 : end;
    }
    return 0;
}
