/*
 * fuzz/json.c — libFuzzer target of the json deserializer and serializer
 * (driver: cdcjson_fuzz.h).
 */
#include "cdcjson_fuzz.h"

extern const cdc_format_factory_t cdc_format_json;

static const char *const json_extra[] = {"ignore-parse-errors",
                                         "true",
                                         "timestamp-format.standard",
                                         "ISO-8601",
                                         "map-null-key.mode",
                                         "LITERAL",
                                         "encode.ignore-null-fields",
                                         "true",
                                         NULL};

CJF_TARGET(&cdc_format_json, json_extra)
