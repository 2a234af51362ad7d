/*
 * fuzz/canal_json.c — libFuzzer target of the canal-json deserializer and
 * serializer (driver: cdcjson_fuzz.h, which shows the build command; link
 * the files of formats/canal_json). The second deserializer also filters with
 * database.include / table.include.
 */
#include "cdcjson_fuzz.h"

extern const cdc_format_factory_t cdc_format_canal_json;

static const char *const canal_extra[] = {"ignore-parse-errors",
                                          "true",
                                          "timestamp-format.standard",
                                          "ISO-8601",
                                          "database.include",
                                          "(?:inv\\w*|d.*)",
                                          "table.include",
                                          "[a-z_]+\\d*|t",
                                          "encode.decimal-as-plain-number",
                                          "true",
                                          "map-null-key.mode",
                                          "LITERAL",
                                          NULL};

CJF_TARGET(&cdc_format_canal_json, canal_extra)
