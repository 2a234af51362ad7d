/*
 * A custom partition-commit policy for tests/integration/filesystem_write.sh:
 * appends "table|partition|k=v,..." to the file named by $FS_POLICY_LOG, and
 * fails for a partition whose value is "fail".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_fs_commit.h"

int cdcflow_partition_commit(const cdc_fs_partition_t *p, char *errbuf, size_t errlen)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->values[i], "fail") == 0) {
            snprintf(errbuf, errlen, "refused partition %s", p->partition);
            return 1;
        }
    FILE *f = fopen(getenv("FS_POLICY_LOG"), "a");
    if (!f) {
        snprintf(errbuf, errlen, "cannot open the log");
        return 1;
    }
    fprintf(f, "%s|%s|", p->table, p->partition);
    for (int i = 0; i < p->n; i++)
        fprintf(f, "%s%s=%s", i ? "," : "", p->keys[i], p->values[i]);
    fprintf(f, "\n");
    fclose(f);
    return 0;
}
