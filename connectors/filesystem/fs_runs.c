/*
 * fs_runs.c — cleaning up after writers that died. A run of a filesystem
 * sink names its files ".part-<job>-<subtask>-<n>.inprogress" until they are
 * published; a process killed in between leaves them behind, hidden from
 * readers but still on disk. So every run marks itself live with
 * <path>/_cdcflow_runs/<job>, holding an exclusive flock on it while the
 * process lives (the kernel drops the lock when the process dies, even by
 * SIGKILL). A starting run sweeps: for every mark it can lock (its run is
 * dead) it removes that run's in-progress files that no manifest in
 * _cdcflow_pending names (those are decided or awaiting recovery: recover and
 * roll-forward handle them) and the temporary files of its cut-short atomic
 * writes, then the mark.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "fs_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int fs_run_register(const char *path, const char *jobid, cdc_error_t **err)
{
    char *dir = cdc_strdup_printf("%s/%s", path, FS_RUNS_DIR);
    char *mark = cdc_strdup_printf("%s/%s", dir, jobid);
    int fd = -1;
    if (fs_mkdirs(dir, err) == 0) {
        fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
            cdc_error_set(err, CDC_ERR_IO, "could not create and lock \"%s\": %s", mark,
                          strerror(errno));
            if (fd >= 0)
                close(fd);
            fd = -1;
        }
    }
    free(mark);
    free(dir);
    return fd;
}

void fs_run_release(const char *path, const char *jobid, int fd)
{
    if (fd < 0)
        return;
    char *mark = cdc_strdup_printf("%s/%s/%s", path, FS_RUNS_DIR, jobid);
    unlink(mark);
    close(fd);
    free(mark);
}

/* "rel/name" of every file a manifest names, one per line, into out. */
static int referenced(const char *path, cdc_buf_t *out, cdc_error_t **err)
{
    char *pdir = cdc_strdup_printf("%s/%s", path, FS_PENDING_DIR);
    DIR *d = opendir(pdir);
    int rc = 0;
    if (!d) {
        if (errno != ENOENT)
            rc = cdc_error_set(err, CDC_ERR_IO, "could not open \"%s\": %s", pdir, strerror(errno));
        free(pdir);
        return rc;
    }
    cdc_buf_t b = {0};
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *mf = cdc_strdup_printf("%s/%s", pdir, e->d_name);
        int got = cdc_file_read_all(mf, &b, err);
        free(mf);
        if (got < 0) {
            rc = -1;
            break;
        }
        if (got == 1 || b.len == 0)
            continue;
        const char *s = cdc_buf_cstr(&b);
        for (const char *nl; *s; s = nl ? nl + 1 : s + strlen(s)) {
            nl = strchr(s, '\n');
            size_t n = nl ? (size_t)(nl - s) : strlen(s);
            const char *tab = memchr(s, '\t', n);
            if (!tab || *s == '@')
                continue; /* the header, or a position */
            cdc_buf_append(out, s, (size_t)(tab - s));
            cdc_buf_putc(out, '/');
            cdc_buf_append(out, tab + 1, n - (size_t)(tab - s) - 1);
            cdc_buf_putc(out, '\n');
        }
    }
    closedir(d);
    cdc_buf_free(&b);
    free(pdir);
    return rc;
}

static bool is_referenced(const cdc_buf_t *refs, const char *rel, const char *name)
{
    size_t rl = strlen(rel), nl = strlen(name);
    for (const char *s = refs->data, *end = refs->data + refs->len; s && s < end;) {
        const char *eol = memchr(s, '\n', (size_t)(end - s));
        size_t n = (size_t)(eol - s);
        if (n == rl + 1 + nl && memcmp(s, rel, rl) == 0 && s[rl] == '/' &&
            memcmp(s + rl + 1, name, nl) == 0)
            return true;
        s = eol + 1;
    }
    return false;
}

/*
 * Under dir (the table's directory rel, "" at the top): removes the
 * in-progress files of the dead runs listed in dead ("<job>\n"...), unless a
 * manifest names them; descends into partition directories.
 */
static int sweep_dir(const char *path, const char *rel, const cdc_buf_t *dead,
                     const cdc_buf_t *refs, int depth)
{
    char *dir = *rel ? cdc_strdup_printf("%s/%s", path, rel) : cdc_xstrdup(path);
    DIR *d = opendir(dir);
    int removed = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        const char *nm = e->d_name;
        char *full = cdc_strdup_printf("%s/%s", dir, nm);
        struct stat st;
        if (nm[0] != '.' && nm[0] != '_' && depth < 16 && lstat(full, &st) == 0 &&
            S_ISDIR(st.st_mode)) {
            char *sub = *rel ? cdc_strdup_printf("%s/%s", rel, nm) : cdc_xstrdup(nm);
            removed += sweep_dir(path, sub, dead, refs, depth + 1);
            free(sub);
        } else if (strncmp(nm, ".part-", 6) == 0 && strlen(nm) > 17 &&
                   strcmp(nm + strlen(nm) - 11, ".inprogress") == 0) {
            /* ".part-<job>-<subtask>-<n>.inprogress": the final name is part-... */
            char *final = cdc_xstrndup(nm + 1, strlen(nm) - 12);
            const char *job = final + 5, *dash = strchr(job, '-');
            bool mine = false;
            for (const char *s = dead->data, *end = dead->data + dead->len; dash && s && s < end;) {
                const char *eol = memchr(s, '\n', (size_t)(end - s));
                mine = mine || ((size_t)(eol - s) == (size_t)(dash - job) &&
                                memcmp(s, job, (size_t)(dash - job)) == 0);
                s = eol + 1;
            }
            if (mine && !is_referenced(refs, rel, final) && unlink(full) == 0)
                removed++;
            free(final);
        }
        free(full);
    }
    if (d)
        closedir(d);
    free(dir);
    return removed;
}

/* Temporary files of atomic writes (".<name>.<pid>.<n>.tmp") a dead run left in subdir. */
static int sweep_tmp(const char *path, const char *subdir, const cdc_buf_t *dead)
{
    char *dir = cdc_strdup_printf("%s/%s", path, subdir);
    DIR *d = opendir(dir);
    int removed = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        const char *nm = e->d_name;
        size_t n = strlen(nm);
        if (nm[0] != '.' || n < 5 || strcmp(nm + n - 4, ".tmp") != 0)
            continue;
        bool mine = false;
        for (const char *s = dead->data, *end = dead->data + dead->len; !mine && s && s < end;) {
            const char *eol = memchr(s, '\n', (size_t)(end - s));
            char *job = cdc_xstrndup(s, (size_t)(eol - s));
            mine = strstr(nm, job) != NULL;
            free(job);
            s = eol + 1;
        }
        char *full = cdc_strdup_printf("%s/%s", dir, nm);
        if (mine && unlink(full) == 0)
            removed++;
        free(full);
    }
    if (d)
        closedir(d);
    free(dir);
    return removed;
}

int fs_runs_sweep(const char *path, const char *self, cdc_error_t **err)
{
    char *rdir = cdc_strdup_printf("%s/%s", path, FS_RUNS_DIR);
    DIR *d = opendir(rdir);
    if (!d) {
        int rc = errno == ENOENT ? 0
                                 : cdc_error_set(err, CDC_ERR_IO, "could not open \"%s\": %s", rdir,
                                                 strerror(errno));
        free(rdir);
        return rc;
    }
    cdc_buf_t dead = {0};
    int *fds = NULL, nfds = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, self) == 0)
            continue;
        char *mark = cdc_strdup_printf("%s/%s", rdir, e->d_name);
        int fd = open(mark, O_RDONLY | O_CLOEXEC);
        free(mark);
        if (fd < 0)
            continue;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
            close(fd); /* its run is alive */
            continue;
        }
        cdc_buf_printf(&dead, "%s\n", e->d_name);
        fds = cdc_xrealloc(fds, sizeof(int) * (size_t)(nfds + 1));
        fds[nfds++] = fd; /* held until the sweep is done: a second sweeper skips it */
    }
    closedir(d);
    int rc = 0;
    if (nfds > 0) {
        cdc_buf_t refs = {0};
        rc = referenced(path, &refs, err);
        if (rc == 0) {
            rc = sweep_dir(path, "", &dead, &refs, 0) + sweep_tmp(path, FS_PENDING_DIR, &dead) +
                 sweep_tmp(path, FS_POSITIONS_DIR, &dead);
            const char *s = cdc_buf_cstr(&dead);
            for (const char *nl; *s; s = nl + 1) {
                nl = strchr(s, '\n');
                char *mark = cdc_strdup_printf("%s/%.*s", rdir, (int)(nl - s), s);
                unlink(mark);
                free(mark);
            }
        }
        cdc_buf_free(&refs);
    }
    for (int i = 0; i < nfds; i++)
        close(fds[i]);
    free(fds);
    cdc_buf_free(&dead);
    free(rdir);
    return rc;
}

bool fs_run_alive(const char *path, const char *jobid)
{
    char *mark = cdc_strdup_printf("%s/%s/%s", path, FS_RUNS_DIR, jobid);
    int fd = open(mark, O_RDONLY | O_CLOEXEC);
    free(mark);
    if (fd < 0)
        return false; /* marks exist from a run's first writer on, before any file of it */
    bool alive = flock(fd, LOCK_SH | LOCK_NB) < 0;
    close(fd);
    return alive;
}
