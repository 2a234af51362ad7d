/*
 * cdc_file.h — durable-file helpers (cdc_file.c).
 */
#ifndef CDC_FILE_H
#define CDC_FILE_H

#include <stddef.h>

#include "cdc_arena.h"
#include "cdc_error.h"

/** fsync of a directory (makes renames in it durable). Returns 0 or -1 with *err. */
int cdc_file_fsync_dir(const char *dir, cdc_error_t **err);
/**
 * Replaces path with data: a hidden temporary file beside it, fsync, rename,
 * fsync of the directory. A crash leaves the old content or the new, never a
 * mix. Returns 0 or -1 with *err.
 */
int cdc_file_write_atomic(const char *path, const char *data, size_t len, cdc_error_t **err);
/** Reads a whole file into out; returns 0, 1 when it does not exist, -1 with *err. */
int cdc_file_read_all(const char *path, cdc_buf_t *out, cdc_error_t **err);

#endif
