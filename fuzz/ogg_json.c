/*
 * fuzz/ogg_json.c — libFuzzer target of the ogg-json deserializer and
 * serializer (driver: cdcjson_fuzz.h, which shows the build command; link
 * formats/canal_json/cdc_cdcjson_common.c and formats/ogg_json/ogg_json.c).
 */
#include "cdcjson_fuzz.h"

extern const cdc_format_factory_t cdc_format_ogg_json;

static const char *const ogg_extra[] = {"ignore-parse-errors",
                                        "true",
                                        "timestamp-format.standard",
                                        "ISO-8601",
                                        "encode.decimal-as-plain-number",
                                        "true",
                                        NULL};

CJF_TARGET(&cdc_format_ogg_json, ogg_extra)
