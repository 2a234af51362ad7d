/*
 * cdc_types.h — logical types (Flink's LogicalType): parse from and print to
 * SQL type text, compare, copy.
 *
 * A type is an immutable tree owned by whoever created it; children are owned
 * by their parent. STRING is VARCHAR(2147483647) and BYTES is
 * VARBINARY(2147483647), exactly as in Flink, and print back as STRING/BYTES.
 */
#ifndef CDC_TYPES_H
#define CDC_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cdc_error.h"

typedef enum cdc_type_root {
    CDC_T_BOOLEAN,
    CDC_T_TINYINT,
    CDC_T_SMALLINT,
    CDC_T_INT,
    CDC_T_BIGINT,
    CDC_T_FLOAT,
    CDC_T_DOUBLE,
    CDC_T_DECIMAL,
    CDC_T_CHAR,
    CDC_T_VARCHAR,
    CDC_T_BINARY,
    CDC_T_VARBINARY,
    CDC_T_DATE,
    CDC_T_TIME,
    CDC_T_TIMESTAMP,
    CDC_T_TIMESTAMP_LTZ,
    CDC_T_ARRAY,
    CDC_T_MAP,
    CDC_T_ROW,
    CDC_T_MULTISET, /* a bag: element -> count, stored like a MAP<element, INT NOT NULL> */
    CDC_T__COUNT
} cdc_type_root_t;

#define CDC_MAX_LENGTH 2147483647
#define CDC_MAX_DECIMAL_PRECISION 38

typedef struct cdc_type_s cdc_type_t;
struct cdc_type_s {
    cdc_type_root_t root;
    bool nullable;
    int32_t length;    /* CHAR, VARCHAR, BINARY, VARBINARY */
    int32_t precision; /* DECIMAL (1..38), TIME/TIMESTAMP/TIMESTAMP_LTZ (0..9) */
    int32_t scale;     /* DECIMAL */
    int32_t nchildren; /* ARRAY, MULTISET: 1 element; MAP: key, value; ROW: fields */
    cdc_type_t **children;
    char **names; /* ROW field names (nchildren of them), else NULL */
};

/**
 * Parses SQL type text such as "DECIMAL(10, 2) NOT NULL" or
 * "ROW<a INT, b ARRAY<STRING>>". Returns a new type the caller destroys, or
 * NULL with *err set; the error names the 1-based column of the problem.
 */
cdc_type_t *cdc_type_parse(const char *text, cdc_error_t **err);
/** Same, for a text of given length. */
cdc_type_t *cdc_type_parse_n(const char *text, size_t len, cdc_error_t **err);

/** Prints the type as Flink does ("DECIMAL(10, 2) NOT NULL"); malloc'ed. */
char *cdc_type_to_string(const cdc_type_t *type);

/** Constructors. Each returns a new nullable type. */
cdc_type_t *cdc_type_new(cdc_type_root_t root);
cdc_type_t *cdc_type_new_decimal(int precision, int scale);
cdc_type_t *cdc_type_new_sized(cdc_type_root_t root, int32_t length_or_precision);
/** New ROW type with no fields; add them with cdc_type_row_add (takes child). */
cdc_type_t *cdc_type_new_row(void);
void cdc_type_row_add(cdc_type_t *row, const char *name, cdc_type_t *child);
/** New ARRAY (takes elem) and MAP (takes key and value). */
cdc_type_t *cdc_type_new_array(cdc_type_t *elem);
cdc_type_t *cdc_type_new_map(cdc_type_t *key, cdc_type_t *value);

/**
 * True for MAP and MULTISET. Both hold their values as key/value pairs
 * (v.arr.elems, v.arr.vals): a MULTISET maps each distinct element to its
 * count, so code that handles a map handles a multiset with
 * cdc_type_map_value as the value type.
 */
bool cdc_type_is_map_like(const cdc_type_t *type);
/** True if @p type or a type nested in it has root @p root. */
bool cdc_type_contains(const cdc_type_t *type, cdc_type_root_t root);
/** A MAP's value type, or INT NOT NULL (static, never destroyed) for a MULTISET's counts. */
const cdc_type_t *cdc_type_map_value(const cdc_type_t *type);

cdc_type_t *cdc_type_copy(const cdc_type_t *type);
bool cdc_type_equals(const cdc_type_t *a, const cdc_type_t *b);
void cdc_type_destroy(cdc_type_t *type);

/** Index of a ROW field by name (case-sensitive), or -1. */
int cdc_type_field_index(const cdc_type_t *row, const char *name);

/** True for TINYINT..BIGINT. */
bool cdc_type_is_integer(const cdc_type_t *type);
/** The SQL keyword of a root ("INT", "VARCHAR", ...). */
const char *cdc_type_root_name(cdc_type_root_t root);

#endif
