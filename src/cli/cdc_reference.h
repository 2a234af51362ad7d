/*
 * cdc_reference.h — the generated pipeline reference (docs/REFERENCE.md).
 */
#ifndef CDC_REFERENCE_H
#define CDC_REFERENCE_H

#include <stdio.h>

/** Writes every connector and format with its options and metadata as Markdown. */
int cdc_describe_markdown(FILE *out);

#endif
