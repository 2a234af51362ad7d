/*
 * cdc_catalog.h — tables known to a run, resolved by 1-, 2- or 3-part names
 * against the current catalog and database (default_catalog.default_database
 * at start).
 */
#ifndef CDC_CATALOG_H
#define CDC_CATALOG_H

#include "cdc_plugin.h"
#include "cdc_sql_parser.h"

typedef struct cdc_table_def_s {
    char *catalog, *database, *name;
    char *qualified;    /* "catalog.database.name" */
    cdc_type_t *schema; /* ROW of the physical columns */
    int *pk;            /* primary key column indexes */
    int npk;
    cdc_kv_t options; /* the WITH clause */
    bool temporary;
    int line, col; /* of the name in CREATE TABLE */
} cdc_table_def_t;

typedef struct cdc_catalog_s cdc_catalog_t;

cdc_catalog_t *cdc_catalog_new(void);
void cdc_catalog_destroy(cdc_catalog_t *cat);
const char *cdc_catalog_current_catalog(const cdc_catalog_t *cat);
const char *cdc_catalog_current_database(const cdc_catalog_t *cat);

/**
 * Creates a table from a parsed CREATE TABLE. Returns 0, or -1 with *err
 * (duplicate name, bad column type, unknown primary key column, ...). The
 * error carries line:col and a caret built from `text` (the whole script).
 */
int cdc_catalog_create_table(cdc_catalog_t *cat, const cdc_sql_create_table_t *ct, const char *text,
                             size_t len, const char *filename, cdc_error_t **err);

/** Finds a table by name; NULL with *err (naming the fully qualified path) when absent. */
const cdc_table_def_t *cdc_catalog_get_table(cdc_catalog_t *cat, const cdc_sql_name_t *name,
                                             const char *text, size_t len, const char *filename,
                                             cdc_error_t **err);

/** Builds "FILE:LINE:COL" location errors with the caret detail. */
cdc_error_t *cdc_sql_error_at(cdc_errcode_t code, const char *text, size_t len,
                              const char *filename, int line, int col, const char *fmt, ...)
    CDC_PRINTF(7, 8);

#endif
