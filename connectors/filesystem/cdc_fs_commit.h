/*
 * cdc_fs_commit.h — the ABI of a custom partition-commit policy of the
 * filesystem connector ('sink.partition-commit.policy.kind' = 'custom').
 *
 * 'sink.partition-commit.policy.class' names a shared object, optionally with
 * a symbol: '/path/libmy.so' or '/path/libmy.so:my_commit'. The symbol
 * (default CDC_FS_COMMIT_SYMBOL) is a function of type cdc_fs_commit_fn. The
 * sink calls it once a partition is committed (after its files are durable
 * and visible, and after the other policies listed before "custom"), from the
 * writer thread that commits it, with the sink's lock held: it must be
 * thread-safe and should be quick. A partition that receives more files later
 * is committed again, so the function must be idempotent.
 *
 * It returns 0, or non-zero with a reason in errbuf (NUL-terminated, at most
 * errlen bytes): the job then fails with that reason.
 */
#ifndef CDC_FS_COMMIT_H
#define CDC_FS_COMMIT_H

#include <stddef.h>

#define CDC_FS_COMMIT_SYMBOL "cdcflow_partition_commit"

typedef struct cdc_fs_partition_s {
    const char *table;          /* qualified table name: "default_catalog.default_database.t" */
    const char *table_path;     /* the table's 'path' */
    const char *partition;      /* relative directory: "dt=2024-01-01/hr=10" (escaped) */
    const char *partition_path; /* absolute directory of the partition */
    const char *const *keys;    /* partition columns, in PARTITIONED BY order */
    const char *const *values;  /* their values (unescaped; the default name for NULL) */
    int n;
} cdc_fs_partition_t;

typedef int (*cdc_fs_commit_fn)(const cdc_fs_partition_t *partition, char *errbuf, size_t errlen);

#endif
