/*
 * cdc_file.c — small durable-file helpers shared by the core and the
 * connectors: whole-file reads, atomic replacement (temporary file, fsync,
 * rename, fsync of the directory) and directory syncs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "cdc_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int io_error(cdc_error_t **err, const char *what, const char *path)
{
    return cdc_error_set(err, CDC_ERR_IO, "could not %s \"%s\": %s", what, path, strerror(errno));
}

int cdc_file_fsync_dir(const char *dir, cdc_error_t **err)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return io_error(err, "open directory", dir);
    int rc = 0;
    if (fsync(fd) < 0 && errno != EINVAL)
        rc = io_error(err, "sync directory", dir);
    close(fd);
    return rc;
}

int cdc_file_write_atomic(const char *path, const char *data, size_t len, cdc_error_t **err)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? cdc_xstrndup(path, (size_t)(slash - path)) : cdc_xstrdup(".");
    static atomic_uint seq;
    char *tmp = cdc_strdup_printf("%s/.%s.%d.%u.tmp", dir, slash ? slash + 1 : path, (int)getpid(),
                                  atomic_fetch_add(&seq, 1));
    int rc = -1;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        io_error(err, "create", tmp);
        goto out;
    }
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            io_error(err, "write", tmp);
            close(fd);
            unlink(tmp);
            goto out;
        }
        off += (size_t)w;
    }
    if (fsync(fd) < 0) {
        io_error(err, "sync", tmp);
        close(fd);
        unlink(tmp);
        goto out;
    }
    close(fd);
    if (rename(tmp, path) < 0) {
        io_error(err, "rename into place", path);
        unlink(tmp);
        goto out;
    }
    rc = cdc_file_fsync_dir(dir, err);
out:
    free(tmp);
    free(dir);
    return rc;
}

int cdc_file_read_all(const char *path, cdc_buf_t *out, cdc_error_t **err)
{
    cdc_buf_clear(out);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 1;
        return io_error(err, "open", path);
    }
    for (;;) {
        cdc_buf_reserve(out, 65536);
        ssize_t r = read(fd, out->data + out->len, out->cap - out->len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            io_error(err, "read", path);
            close(fd);
            return -1;
        }
        if (r == 0)
            break;
        out->len += (size_t)r;
    }
    close(fd);
    return 0;
}
