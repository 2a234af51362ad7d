/*
 * avro_int.h — what the files of the Avro formats (avro, avro-confluent,
 * debezium-avro-confluent) share: the parsed Avro schema, the decode plan that
 * resolves a writer schema against the declared table, the binary reader and
 * writer, the schema derived from a table (Flink's AvroSchemaConverter), and
 * the Confluent Schema Registry client.
 *
 * Why our own schema parser and binary reader, not Avro C's generic values:
 * Avro C 1.11 drops every attribute it does not know (logicalType,
 * connect.name, connect.parameters.scale) so it cannot tell a DECIMAL from
 * bytes or a MicroTimestamp from a long; and a plan compiled once per writer
 * schema reads straight into the batch's values (strings point into the
 * message) with no allocation per record. Avro C validates every schema we
 * parse (avro_schema_from_json_length) and is the independent writer of the
 * tests and the ceiling of bench/avro_decode.sh.
 */
#ifndef AVRO_INT_H
#define AVRO_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "cdc_plugin.h"

/* ---- schemas ------------------------------------------------------------------------------- */

typedef enum av_kind {
    AV_NULL,
    AV_BOOLEAN,
    AV_INT,
    AV_LONG,
    AV_FLOAT,
    AV_DOUBLE,
    AV_BYTES,
    AV_STRING,
    AV_FIXED,
    AV_ENUM,
    AV_ARRAY,
    AV_MAP,
    AV_RECORD,
    AV_UNION
} av_kind_t;

/* Logical types: Avro's own and those of Kafka Connect / Debezium (connect.name). */
typedef enum av_logical {
    AV_LT_NONE,
    AV_LT_DECIMAL, /* bytes/fixed: Avro decimal or connect Decimal; scale in node->scale */
    AV_LT_DATE,    /* int days */
    AV_LT_TIME_MS, /* int/long */
    AV_LT_TIME_US,
    AV_LT_TIME_NS,
    AV_LT_TS_MS, /* long since the epoch */
    AV_LT_TS_US,
    AV_LT_TS_NS,
    AV_LT_ZONED, /* string: io.debezium.time.ZonedTimestamp (ISO-8601 text) */
    AV_LT_VSD    /* record io.debezium.data.VariableScaleDecimal {scale int, value bytes} */
} av_logical_t;

typedef struct av_node_s av_node_t;
struct av_node_s {
    av_kind_t kind;
    av_logical_t logical;
    int32_t scale;    /* AV_LT_DECIMAL */
    int32_t size;     /* AV_FIXED */
    int32_t n;        /* children: record fields, union branches, enum symbols */
    av_node_t **kids; /* record fields, union branches; array items and map values in kids[0] */
    char **names;     /* record field names, enum symbols */
    char *name;       /* full name of a record, enum or fixed */
};

/** A parsed schema: its nodes (a graph: named types may be referenced again) and its text. */
typedef struct av_schema_s {
    av_node_t *root;
    av_node_t **all; /* every node, for destroy */
    int nall, capall;
    char *json; /* the schema text as given */
} av_schema_t;

/**
 * Parses Avro schema JSON (validated by Avro C as well). Returns a new schema
 * the caller destroys, or NULL with *why (malloc'ed text, the caller frees).
 */
av_schema_t *av_schema_parse(const char *json, size_t len, char **why);
void av_schema_destroy(av_schema_t *s);

/**
 * Appends the Avro schema JSON Flink derives from a table's ROW type
 * (AvroSchemaConverter.convertToSchema: nullable types as ["null", T],
 * DECIMAL as bytes + decimal, DATE int date, TIME(0..3) int time-millis
 * (TIME(4..6): long time-micros, a cdcflow extension), TIMESTAMP
 * p <= 3 timestamp-millis else timestamp-micros, ARRAY, MAP with string
 * keys, ROW as a record named `name`). -1 with *err for a type Avro cannot hold.
 */
int av_schema_derive(const cdc_type_t *row, const char *name, cdc_buf_t *out, cdc_error_t **err);

/* ---- decode plans -------------------------------------------------------------------------- */

typedef struct av_plan_s av_plan_t;
struct av_plan_s {
    const av_node_t *w;  /* writer node */
    const cdc_type_t *t; /* target type, or NULL: skip */
    uint8_t op;          /* AV_OP_* */
    int32_t n;           /* kids */
    av_plan_t **kids;    /* union: per branch; array/map: kids[0]; record: per writer field */
    int32_t *target;     /* record: per writer field, the target field, or -1 (skipped) */
    const char **fname;  /* record: per writer field, its name (for messages) */
    int32_t nt;          /* record: fields of the target ROW */
};

/** Plans of one writer schema against one target ROW: owns the plans. */
typedef struct av_resolved_s {
    av_schema_t *schema;
    av_plan_t *root;
    av_plan_t **all;
    int nall, capall;
} av_resolved_t;

/**
 * Compiles the decode plan of writer schema `schema` (taken) for target row
 * type `row` (borrowed; must outlive the result): writer fields are matched to
 * columns by name, a column absent from the writer is NULL (an error when NOT
 * NULL), a writer field that is not a column is skipped, and every type is
 * checked to fit its column. -1 with *err naming the field.
 */
av_resolved_t *av_resolve(av_schema_t *schema, const cdc_type_t *row, cdc_error_t **err);
void av_resolved_destroy(av_resolved_t *r);

/* Nesting of values a message may have (a recursive schema could nest without end). */
#define AV_MAX_DEPTH 128

/** Where a decode stands: the input, the arena values go to, the error slot. */
typedef struct av_reader_s {
    const uint8_t *p, *end, *start;
    cdc_arena_t *arena;
    cdc_buf_t *err;
    size_t base;             /* bytes of the message before start (the Confluent header) */
    const char *errpath[16]; /* field names, innermost first, filled on an error */
    int nerrpath;
    int depth; /* records, arrays and maps open (at most AV_MAX_DEPTH) */
} av_reader_t;

/**
 * Reads one record of plan (a record plan) into values[0..plan->nt) (all set,
 * absent columns NULL). 0, or -1 with the reason in rd->err.
 */
int av_read_record(av_reader_t *rd, const av_plan_t *plan, cdc_value_t *values);
/** Reads one value of plan into *out (out NULL: skips it). 0 or -1. */
int av_read_value(av_reader_t *rd, const av_plan_t *plan, cdc_value_t *out);
/** Starts rd->err with "at byte N: " and what; -1. */
int av_fail(av_reader_t *rd, const char *fmt, ...) CDC_PRINTF(2, 3);

/* ---- the binary writer --------------------------------------------------------------------- */

void av_write_long(cdc_buf_t *out, int64_t v);
/**
 * Appends the Avro binary of row (of ROW type t) as the schema
 * av_schema_derive gives. -1 with the reason in errmsg (a value Avro's type
 * cannot hold: a TIMESTAMP(9)).
 */
int av_write_row(cdc_buf_t *out, const cdc_row_t *row, const cdc_type_t *t, cdc_buf_t *errmsg);

/* ---- the schema registry ------------------------------------------------------------------- */

typedef struct av_registry_s av_registry_t;

/**
 * A registry client for the format's options (url, properties.*,
 * basic-auth.*, bearer-auth.*). label names the format in messages. Returns
 * a client the caller destroys, or NULL with *err.
 */
av_registry_t *av_registry_new(const cdc_config_t *cfg, const char *label, cdc_error_t **err);
void av_registry_destroy(av_registry_t *reg);
/**
 * The writer schema of id: fetched once (GET /schemas/ids/{id}), resolved
 * against row and kept in the client's cache. Borrowed; lives with the client.
 * NULL with the reason in errmsg (the URL, the HTTP status, the registry's text).
 */
const av_resolved_t *av_registry_resolved(av_registry_t *reg, int32_t id, const cdc_type_t *row,
                                          cdc_buf_t *errmsg);
/** Registers schema under subject (POST /subjects/{subject}/versions); 0 with *id, or -1. */
int av_registry_register(av_registry_t *reg, const char *subject, const char *schema, int32_t *id,
                         cdc_error_t **err);

#endif
