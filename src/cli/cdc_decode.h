/*
 * cdc_decode.h — `cdcflow decode` and `cdcflow describe`: decode captured
 * messages into printed rows without a pipeline; print the option tables.
 */
#ifndef CDC_DECODE_H
#define CDC_DECODE_H

#include <stdio.h>

#include "cdc_plugin.h"

typedef struct cdc_decode_args_s {
    const char *format;
    const char *schema; /* ROW field list text: "id INT NOT NULL, name STRING" */
    cdc_kv_t options;   /* format options without the prefix */
    bool with_table;
    bool count_only;   /* print only the number of rows (and skipped messages) */
    const char *input; /* path or "-" */
} cdc_decode_args_t;

/**
 * Decodes args->input one message per line into printed rows on out; errors
 * go to errout. Returns the process exit status (0 ok, 1 some message failed,
 * 2 usage/set-up error).
 */
int cdc_decode_run(const cdc_decode_args_t *args, FILE *out, FILE *errout);

/** `cdcflow describe [NAME]`; returns the exit status. */
int cdc_describe(const char *name, FILE *out, FILE *errout);

/** Parses "a INT, b STRING" (or "ROW<...>") into a ROW type. */
cdc_type_t *cdc_schema_parse(const char *text, cdc_error_t **err);

#endif
