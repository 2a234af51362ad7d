/*
 * cdc_values.h — internal hooks of the "values" connector (the test connector
 * that reads rows from its "data" option and prints or materializes what it
 * receives). For tests and embedders; the CLI does not need it.
 */
#ifndef CDC_VALUES_H
#define CDC_VALUES_H

#include <stdint.h>
#include <stdio.h>

#include "cdc_plugin.h"

/**
 * Makes a values sink print to `stream` instead of standard output: rows of
 * writers opened from now on, and the materialized table. The stream is
 * borrowed: it must outlive the sink. NULL restores standard output. Returns
 * 0, or -1 when sink was not made by the values connector.
 */
int cdc_values_sink_set_stream(cdc_sink_t *sink, FILE *stream);

/**
 * Number of changes a materializing values sink could not apply (removing a
 * row that is not in the table); each was reported on standard error. -1
 * when sink was not made by the values connector.
 */
int64_t cdc_values_sink_errors(cdc_sink_t *sink);

#endif
