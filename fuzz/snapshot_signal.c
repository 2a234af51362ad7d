/*
 * fuzz/snapshot_signal.c — libFuzzer target of the snapshot signal's parser
 * (cdc_snap_signal_parse, src/core/cdc_snapshot.c): the `data` of an
 * `execute-snapshot` row a user inserts into a CDC source's signal table.
 * Seeds: tests/data/seeds/snapshot_signal/. Any input either parses into at
 * least one collection, each a string, or fails with a message that says
 * "snapshot signal:"; nothing leaks (ASan).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_plugin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cdc_snap_signal_t sig;
    cdc_error_t *err = NULL;
    if (cdc_snap_signal_parse((const char *)data, size, &sig, &err) == 0) {
        if (sig.n < 1)
            abort();
        for (int i = 0; i < sig.n; i++)
            if (!sig.collections[i] || strlen(sig.collections[i]) > size)
                abort();
        cdc_snap_signal_free(&sig);
    } else {
        if (!err || strncmp(err->message, "snapshot signal: ", 17) != 0)
            abort();
        cdc_error_destroy(err);
    }
    return 0;
}
