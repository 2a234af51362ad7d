/*
 * cdc_print.h — internal hook of the "print" connector: where its writers
 * write. For tests and embedders; the CLI does not need it.
 */
#ifndef CDC_PRINT_H
#define CDC_PRINT_H

#include <stdio.h>

#include "cdc_plugin.h"

/**
 * Makes writers opened from now on by a print sink write to `stream` instead
 * of standard output / standard error. The stream is borrowed: it must
 * outlive those writers. NULL restores the default. Returns 0, or -1 when
 * sink was not made by the print connector.
 */
int cdc_print_sink_set_stream(cdc_sink_t *sink, FILE *stream);

#endif
