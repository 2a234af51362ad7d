/*
 * binlog_int.h — private to the mysql-binlog format: a TABLE_MAP's columns,
 * the Flink type each maps to, and the decoding of one column value of a row
 * image (formats/mysql_binlog/binlog_value.c, binlog_json.c).
 */
#ifndef BINLOG_INT_H
#define BINLOG_INT_H

#include "cdc_plugin.h"

/* column type codes (MySQL enum_field_types) */
enum {
    MT_DECIMAL = 0,
    MT_TINY = 1,
    MT_SHORT = 2,
    MT_LONG = 3,
    MT_FLOAT = 4,
    MT_DOUBLE = 5,
    MT_NULL = 6,
    MT_TIMESTAMP = 7,
    MT_LONGLONG = 8,
    MT_INT24 = 9,
    MT_DATE = 10,
    MT_TIME = 11,
    MT_DATETIME = 12,
    MT_YEAR = 13,
    MT_NEWDATE = 14,
    MT_VARCHAR = 15,
    MT_BIT = 16,
    MT_TIMESTAMP2 = 17,
    MT_DATETIME2 = 18,
    MT_TIME2 = 19,
    MT_JSON = 245,
    MT_NEWDECIMAL = 246,
    MT_ENUM = 247,
    MT_SET = 248,
    MT_TINY_BLOB = 249,
    MT_MEDIUM_BLOB = 250,
    MT_LONG_BLOB = 251,
    MT_BLOB = 252,
    MT_VAR_STRING = 253,
    MT_STRING = 254,
    MT_GEOMETRY = 255
};

typedef struct bl_col {
    uint8_t type;     /* binlog type; STRING columns carry their real type (ENUM, SET) */
    uint16_t meta;    /* per-type: max length, fsp, length-prefix size, (precision<<8)|scale */
    uint32_t max_len; /* STRING/VARCHAR: bytes */
    bool is_unsigned; /* from optional metadata SIGNEDNESS */
    bool nullable;
    int charset;   /* collation id, -1 unknown */
    char *name;    /* NULL without optional metadata COLUMN_NAME */
    char **labels; /* ENUM/SET labels (optional metadata), NULL when absent */
    int nlabels;
    int target;            /* produced field index, -1 = not produced */
    const cdc_type_t *out; /* the produced field's type */
    cdc_type_t *nat;       /* the mapped type (owned), for columns not produced */
} bl_col_t;

/** The Flink type of a column (new, caller owns). */
cdc_type_t *bl_type_for(const bl_col_t *col);

/** A short name of the column type for messages ("INT UNSIGNED", "DATETIME2(3)"). */
void bl_type_name(const bl_col_t *col, char *buf, size_t n);

/**
 * Decodes the value of col at p (at most avail bytes) into v of type col->out.
 * Strings point into the input unless copy is set (then into arena). Returns the
 * bytes consumed, or -1 with *why set (a short reason). scratch is a reusable buffer
 * (JSON text is built in it).
 */
long bl_value(const bl_col_t *col, const uint8_t *p, size_t avail, bool copy, cdc_arena_t *arena,
              cdc_buf_t *scratch, cdc_value_t *v, const char **why);

/**
 * A packed NEWDECIMAL(p, s) of at most avail bytes as text ("-12.50") in out
 * (>= 128 bytes); returns the text length, or -1 when p/s are impossible, the
 * bytes are too few, or a digit group is out of range.
 */
int bl_decimal_text(const uint8_t *src, size_t avail, int p, int s, char *out);

/** Whether NEWDECIMAL(p, s) is a valid declaration (1 <= p <= 65, s <= 30, s <= p). */
bool bl_decimal_valid(int p, int s);

/**
 * Appends MySQL binary JSON (type 245) as JSON text; returns 0, or -1 with *why
 * set when the document is malformed.
 */
int bl_json_to_text(const uint8_t *p, size_t len, cdc_buf_t *out, const char **why);

/** Prepares bl_crc32 (tables, CPU check); call before it, from any thread. */
void bl_crc32_init(void);

/** CRC-32 (zlib's, as binlog_checksum=CRC32 stores it) of n bytes. */
uint32_t bl_crc32(const uint8_t *p, size_t n);

/** The same by tables only (what bl_crc32 does without PCLMULQDQ); for tests. */
uint32_t bl_crc32_tables(const uint8_t *p, size_t n);

#endif
