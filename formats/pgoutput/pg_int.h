/*
 * pg_int.h — private to the pgoutput format: PostgreSQL type OIDs to Flink
 * types, and the text output of the built-in types parsed into values
 * (formats/pgoutput/pg_text.c).
 */
#ifndef PG_INT_H
#define PG_INT_H

#include "cdc_plugin.h"

/** The Flink type a column of this type OID and typmod maps to (new, caller owns). */
cdc_type_t *pg_type_for_oid(uint32_t oid, int32_t typmod);

/** True when text of type OID can be parsed into a field of type t. */
bool pg_type_compatible(uint32_t oid, const cdc_type_t *t);

/**
 * Parses the text output of a value of type OID into *v of type t. Strings
 * point into text (which must outlive the batch); decoded bytes and arrays go
 * into arena. Returns NULL, or a short reason ("not a date").
 */
#define PG_OID_BYTEA 17
/**
 * A bytea's text ("\\x0102") into v: as text per mode (Debezium's binary.handling.mode, not
 * BYTES) when t is a string type, else as pg_text_parse. Written into the arena. NULL, or why not.
 */
const char *pg_bytea_text(const char *text, size_t len, const cdc_type_t *t, cdc_binary_mode_t mode,
                          cdc_arena_t *arena, cdc_value_t *v);
const char *pg_text_parse(uint32_t oid, const char *text, size_t len, const cdc_type_t *t,
                          cdc_arena_t *arena, cdc_value_t *v);

#endif
