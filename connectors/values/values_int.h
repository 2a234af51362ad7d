/*
 * values_int.h — private to the "values" connector: what its files share.
 * values.c holds the options, the source and the factory; values_text.c the
 * text of the options (change kinds, partition-list, readable-metadata, and
 * the rows of "data" and "metadata-data" parsed into values); values_lookup.c
 * the lookups over the data rows; values_sink.c the sink.
 */
#ifndef VALUES_INT_H
#define VALUES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cdc_values.h"

/* ---- the text of the options (values_text.c) ------------------------------------------------ */

/** Trims [*b, *e) of blanks (space, tab, CR, LF). */
void values_trim(const char **b, const char **e);

/**
 * Parses a comma list of I, UB, UA, D (key names the option in messages).
 * Returns 0, or -1 with a problem line (when problems is not NULL).
 */
int values_parse_mode(const char *key, const char *text, cdc_changelog_mode_t *out,
                      cdc_buf_t *problems);

/** Frees n partitions of values_parse_partition_list and the array. */
void values_parts_free(cdc_kv_t *parts, int n);

/**
 * "a:1,b:x;a:2,b:y" -> one kv per partition, malloc'ed into *out (free with
 * values_parts_free). Returns 0 or -1 (problems appended).
 */
int values_parse_partition_list(const char *text, cdc_kv_t **out, int *nout, cdc_buf_t *problems);

/* The keys and types of option readable-metadata. */
typedef struct meta_decl_s {
    char **keys;
    cdc_type_t *row; /* ROW<key TYPE, ...> in declaration order */
    int n;
} meta_decl_t;

/** Frees what m holds and zeroes it. */
void values_meta_decl_free(meta_decl_t *m);

/**
 * "k:TYPE,k2:DECIMAL(10, 2)" (commas inside parentheses or <> belong to the
 * type) into *out, owned by the caller (values_meta_decl_free). Returns 0 or -1
 * (problems appended).
 */
int values_parse_readable_metadata(const char *text, meta_decl_t *out, cdc_buf_t *problems);

/* Results of values_convert. */
enum { CONV_OK = 0, CONV_BAD = -1, CONV_NESTED = -2, CONV_NOT_NULL = -3 };

/**
 * Converts one field's text (NUL-terminated, n bytes) into a value of type t;
 * strings are copied into the arena. A bare "null" is NULL; a quoted token
 * is always text. Returns CONV_OK or why not (CONV_BAD, CONV_NESTED for a
 * nested type, CONV_NOT_NULL for a null of a NOT NULL type).
 */
int values_convert(const cdc_type_t *t, const char *s, size_t n, bool quoted, cdc_arena_t *arena,
                   cdc_value_t *out);

/* Parsing state of a "data" or "metadata-data" text. */
typedef struct parse_s {
    const char *opt; /* option name, for messages */
    const char *s;
    size_t len, i;
    const cdc_type_t *row_type;
    bool kind_optional;
    cdc_changelog_mode_t mode; /* kinds allowed */
    cdc_arena_t *arena;
    cdc_buf_t *problems;
    cdc_buf_t tok;
    cdc_buf_t msg;
} parse_t;

/**
 * Parses every row of p's text. Rows and their values live in p->arena;
 * *rows is malloc'ed. Returns 0, or -1 when a problem was appended (then
 * *rows is freed). A malformed row stops the parse; a bad value only fails
 * its row. p->tok and p->msg are scratch the caller frees.
 */
int values_parse_rows(parse_t *p, cdc_row_t **rows_out, int *nrows_out);

/* ---- options, the source (values.c) --------------------------------------------------------- */

/** Cross-option rules that do not need the table's schema (the factory's check). */
void values_check(const cdc_config_t *cfg, cdc_buf_t *problems);

/** Sets *err to "invalid options for connector "values"" with problems as detail; -1. */
int values_option_error(cdc_buf_t *problems, cdc_error_t **err);

typedef struct vpart_s {
    cdc_kv_t kv;
    int *fields;       /* column of each key */
    cdc_value_t *vals; /* value of each key, of its column's type */
    bool kept;         /* after apply_partitions */
} vpart_t;

typedef struct vfilter_s {
    int field;
    cdc_filter_op_t op;
    cdc_value_t value;
    char *text;
} vfilter_t;

typedef struct values_source_s {
    cdc_source_t base;
    char *name;
    cdc_type_t *schema;   /* physical columns */
    cdc_type_t *produced; /* base.produced */
    cdc_arena_t arena;    /* parsed values */
    cdc_row_t *rows;
    int nrows;
    cdc_row_t *meta_rows; /* one per row, fields of meta.row; NULL = all null */
    int *row_part;        /* partition of each row, -1 for none */
    vpart_t *parts;
    int nparts;
    bool pruned;
    vfilter_t *filters;
    int nfilters;
    char **filterable;
    int nfilterable;
    int *proj; /* produced physical fields -> schema index */
    int nproj;
    bool projected;
    meta_decl_t meta;
    int *msel; /* produced metadata fields -> meta index */
    int nmsel;
    int64_t limit; /* < 0: none */
    bool bounded;
    bool proj_enabled;
    bool limit_enabled;
    cdc_changelog_mode_t mode;
} values_source_t;

/* ---- lookups (values_lookup.c) and the sink (values_sink.c) --------------------------------- */

/** The source's open_lookup: a lookup over src's +I/+U data rows, borrowing src. */
int values_source_open_lookup(cdc_source_t *base, const int *key_fields, int nkeys,
                              cdc_lookup_t **out, cdc_error_t **err);

/** The factory's sink_new: a sink that prints or materializes what it receives. */
int values_sink_new(const cdc_table_ctx_t *ctx, cdc_sink_t **out, cdc_error_t **err);

#endif
