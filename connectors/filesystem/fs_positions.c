/*
 * fs_positions.c — source positions kept by the filesystem sink: lists of
 * "key<TAB>position" lines (a Kafka partition and its next offset, say),
 * merged by taking the greatest position per key, and the positions files
 * under <path>/_cdcflow_positions (one per writer of a run) they are read
 * from. See fs_sink.c for the commit protocol that writes them.
 */
#include "fs_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static fs_pos_t *find(fs_poslist_t *l, const char *key, size_t klen)
{
    for (int i = 0; i < l->n; i++)
        if (strncmp(l->v[i].key, key, klen) == 0 && l->v[i].key[klen] == '\0')
            return &l->v[i];
    return NULL;
}

/* One line "key\tposition"; false when it is not one. */
static bool merge_line(fs_poslist_t *l, const char *s, size_t n, int *grew)
{
    const char *tab = memchr(s, '\t', n);
    if (!tab || tab == s || tab + 1 == s + n)
        return false;
    int64_t at = 0;
    for (const char *d = tab + 1; d < s + n; d++) {
        if (*d < '0' || *d > '9' || at > (INT64_MAX - 9) / 10)
            return false;
        at = at * 10 + (*d - '0');
    }
    size_t klen = (size_t)(tab - s);
    fs_pos_t *p = find(l, s, klen);
    if (!p) {
        if (l->n == l->cap) {
            l->cap = l->cap ? 2 * l->cap : 16;
            l->v = cdc_xrealloc(l->v, sizeof(fs_pos_t) * (size_t)l->cap);
        }
        p = &l->v[l->n++];
        p->key = cdc_xstrndup(s, klen);
        p->at = -1;
    }
    if (at > p->at) {
        p->at = at;
        (*grew)++;
    }
    return true;
}

int fs_poslist_merge(fs_poslist_t *l, const char *text, size_t len, char prefix, int *bad)
{
    int grew = 0;
    for (const char *s = text, *end = text + len; s < end;) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
        if (prefix == '\0' || (n > 0 && *s == prefix)) {
            size_t skip = prefix ? 1 : 0;
            if (!merge_line(l, s + skip, n - skip, &grew) && bad)
                (*bad)++;
        }
        s += n + (nl ? 1 : 0);
    }
    return grew;
}

void fs_poslist_format(const fs_poslist_t *l, cdc_buf_t *out, char prefix)
{
    for (int i = 0; i < l->n; i++) {
        if (prefix)
            cdc_buf_putc(out, prefix);
        cdc_buf_printf(out, "%s\t%lld\n", l->v[i].key, (long long)l->v[i].at);
    }
}

void fs_poslist_free(fs_poslist_t *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i].key);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

int fs_poslist_load_dir(fs_poslist_t *l, const char *path, cdc_error_t **err)
{
    char *dir = cdc_strdup_printf("%s/%s", path, FS_POSITIONS_DIR);
    DIR *d = opendir(dir);
    if (!d) {
        int rc = 0;
        if (errno != ENOENT)
            rc = cdc_error_set(err, CDC_ERR_IO, "could not open \"%s\": %s", dir, strerror(errno));
        free(dir);
        return rc;
    }
    cdc_buf_t b = {0};
    int rc = 0;
    struct dirent *e;
    size_t hl = strlen(FS_POSITIONS_HEADER);
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue; /* ".", "..", and files cdc_file_write_atomic has not finished */
        char *f = cdc_strdup_printf("%s/%s", dir, e->d_name);
        int got = cdc_file_read_all(f, &b, err);
        if (got < 0) {
            rc = -1;
        } else if (got == 0) {
            int bad = 0;
            if (b.len < hl || memcmp(b.data, FS_POSITIONS_HEADER, hl) != 0) {
                bad = 1;
            } else {
                fs_poslist_merge(l, b.data + hl, b.len - hl, '\0', &bad);
            }
            if (bad) {
                rc = cdc_error_set(err, CDC_ERR_IO,
                                   "\"%s\" is not a positions file cdcflow wrote "
                                   "(%d line(s) it cannot read)",
                                   f, bad);
                cdc_error_set_hint(*err, "only cdcflow writes to %s/; move the file away", dir);
            }
        }
        free(f);
    }
    closedir(d);
    cdc_buf_free(&b);
    free(dir);
    return rc;
}
