/*
 * json_yajl_ref.h — the former yajl-based cdc_json_parser_t, kept as a
 * reference for fuzz/json_lex_diff.c and the benchmarks (not for formats).
 * Same contract as cdc_json_parser_* in cdc_json.h, with yajl 2.1 doing the
 * parsing (a pooled handle in yajl_allow_multiple_values mode).
 */
#ifndef CDC_JSON_YAJL_REF_H
#define CDC_JSON_YAJL_REF_H

#include "cdc_json.h"

typedef struct cdc_json_yajlref_s cdc_json_yajlref_t;

cdc_json_yajlref_t *cdc_json_yajlref_new(const yajl_callbacks *callbacks, void *ctx);
void cdc_json_yajlref_destroy(cdc_json_yajlref_t *parser);
/** As cdc_json_parser_parse; returns CDC_JSON_PARSE_*. */
int cdc_json_yajlref_parse(cdc_json_yajlref_t *parser, const char *msg, size_t len, cdc_buf_t *err);
size_t cdc_json_yajlref_offset(const cdc_json_yajlref_t *parser);
void cdc_json_yajlref_mark_end(cdc_json_yajlref_t *parser);

#endif
