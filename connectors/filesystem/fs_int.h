/*
 * fs_int.h — private pieces shared by the filesystem connector's files:
 * Hive-style partition paths (escaping, listing, typing), small file helpers
 * (atomic writes, fsync of directories), the source and the sink.
 *
 * Layout of a table: path/k1=v1/k2=v2/part-...; partition values are escaped
 * as Hive's FileUtils.escapePathName does; a NULL value is written as
 * partition.default-name. Names starting with '.' or '_' are hidden: never
 * read as data (in-progress files, _SUCCESS, _cdcflow_state, ...).
 */
#ifndef FS_INT_H
#define FS_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "cdc_plugin.h"

#define FS_DEFAULT_PARTITION "__HIVE_DEFAULT_PARTITION__"
#define FS_CATALOG_FILE "_cdcflow_partitions" /* partitions committed by policy "catalog" */
/* two-phase commit: one manifest "<subtask>-<checkpoint>" per prepared checkpoint */
#define FS_PENDING_DIR "_cdcflow_pending"
/* positions kept for the source: one file "<job>-<subtask>" per writer of a run */
#define FS_POSITIONS_DIR "_cdcflow_positions"
#define FS_POSITIONS_HEADER "cdcflow-filesystem-positions 1\n"
/* the decided commit of files and positions: "c-<job>-<subtask>" in FS_PENDING_DIR */
#define FS_COMMIT_HEADER "cdcflow-filesystem-commit 1\n"
/* one mark "<job>" per live run of a sink, flock'ed while its process lives (fs_runs.c) */
#define FS_RUNS_DIR "_cdcflow_runs"

/* ---- paths ------------------------------------------------------------------------------- */

/** Appends s escaped as a Hive path component ("a/b" -> "a%2Fb"). */
void fs_escape(cdc_buf_t *out, const char *s, size_t n);
/** Unescapes %XX sequences of s[0..n) into a malloc'ed string. */
char *fs_unescape(const char *s, size_t n);
/** True for names readers never open as data ('.' or '_' first). */
bool fs_hidden(const char *name);
/** mkdir -p. Returns 0 or -1 with *err. */
int fs_mkdirs(const char *dir, cdc_error_t **err);
/** 32 random hex digits (a uuid without dashes) into buf[33]. */
void fs_random_id(char buf[33]);

/* ---- listing ----------------------------------------------------------------------------- */

typedef struct fs_part_s {
    char *rel;         /* "dt=2024-01-01/hr=10" ("" for a table without partitions) */
    cdc_kv_t kv;       /* partition column -> unescaped value text */
    cdc_value_t *vals; /* typed value per partition column (NULL for the default name) */
    bool kept;         /* selected by partition pushdown and partition filters */
} fs_part_t;

typedef struct fs_file_s {
    char *rel; /* path relative to the table path */
    int part;  /* index into the listing's parts */
    int64_t size;
} fs_file_t;

/** A snapshot of a table directory: partitions and visible files, sorted. */
typedef struct fs_listing_s {
    fs_part_t *parts;
    int nparts;
    fs_file_t *files;
    int nfiles;
    cdc_arena_t arena; /* typed partition values */
} fs_listing_t;

/** What a listing needs to know about the table. */
typedef struct fs_table_s {
    const char *name; /* qualified, for messages */
    const char *path;
    const cdc_type_t *schema;
    const int *pkeys; /* partition columns, in PARTITIONED BY order */
    int npkeys;
    const char *default_name;
    bool catalog_only; /* list only partitions committed to FS_CATALOG_FILE */
} fs_table_t;

/**
 * Lists the partitions (directories k=v, typed by the partition columns'
 * types) and the visible files of the table. A missing table directory is an
 * empty table. Returns 0 or -1 with *err naming the offending directory.
 */
int fs_list(const fs_table_t *t, fs_listing_t *out, cdc_error_t **err);
void fs_listing_free(fs_listing_t *l);

/* ---- factory halves ------------------------------------------------------------------------ */

int fs_source_new(const cdc_table_ctx_t *ctx, cdc_source_t **out, cdc_error_t **err);
/** The source's metadata keys (Flink's file.path, file.name, file.size, file.modification-time). */
extern const cdc_metadata_def_t fs_metadata[];
int fs_sink_new(const cdc_table_ctx_t *ctx, cdc_sink_t **out, cdc_error_t **err);

/** Copies the partition columns of ctx into *pkeys (malloc'ed); -1 with *err when bad. */
int fs_table_keys(const cdc_table_ctx_t *ctx, int **pkeys, cdc_error_t **err);
/** The ROW of the non-partition columns of schema (what a file holds), and their indexes. */
cdc_type_t *fs_data_type(const cdc_type_t *schema, const int *pkeys, int npkeys, int **cols,
                         int *ncols);

/* ---- source positions kept by the sink (fs_positions.c) ------------------------------------ */

typedef struct fs_pos_s {
    char *key;
    int64_t at; /* the greatest position seen */
} fs_pos_t;

typedef struct fs_poslist_s {
    fs_pos_t *v;
    int n, cap;
} fs_poslist_t;

/**
 * Merges "key\tposition" lines (with prefix != 0: only the lines starting with
 * it, without it) keeping the greatest position per key; counts lines it
 * cannot read into *bad (when not NULL). Returns how many positions grew.
 */
int fs_poslist_merge(fs_poslist_t *l, const char *text, size_t len, char prefix, int *bad);
/** Appends the list's lines, each after prefix when it is not 0. */
void fs_poslist_format(const fs_poslist_t *l, cdc_buf_t *out, char prefix);
void fs_poslist_free(fs_poslist_t *l);
/** Merges every positions file under <path>/_cdcflow_positions; 0 or -1 with *err. */
int fs_poslist_load_dir(fs_poslist_t *l, const char *path, cdc_error_t **err);

/* ---- runs and their leftovers (fs_runs.c) ------------------------------------------------- */

/** Marks run jobid live under path (an flock'ed file); the fd, or -1 with *err. */
int fs_run_register(const char *path, const char *jobid, cdc_error_t **err);
/** Removes the mark of a run that ends (fd from fs_run_register; -1: nothing). */
void fs_run_release(const char *path, const char *jobid, int fd);
/**
 * Removes the in-progress files of runs that died (their mark not locked; not
 * self) unless a manifest names them, then their marks. Returns how many
 * files went, or -1 with *err.
 */
int fs_runs_sweep(const char *path, const char *self, cdc_error_t **err);
/** Whether run jobid is alive (its mark exists and is locked). */
bool fs_run_alive(const char *path, const char *jobid);

#endif
