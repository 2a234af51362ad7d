/*
 * fuzz/maxwell_json.c — libFuzzer target of the maxwell-json deserializer and
 * serializer (driver: cdcjson_fuzz.h, which shows the build command; link
 * formats/canal_json/cdc_cdcjson_common.c and formats/maxwell_json/maxwell_json.c).
 */
#include "cdcjson_fuzz.h"

extern const cdc_format_factory_t cdc_format_maxwell_json;

static const char *const maxwell_extra[] = {"ignore-parse-errors",
                                            "true",
                                            "timestamp-format.standard",
                                            "ISO-8601",
                                            "map-null-key.mode",
                                            "DROP",
                                            NULL};

CJF_TARGET(&cdc_format_maxwell_json, maxwell_extra)
