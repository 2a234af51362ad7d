/*
 * cdc_ddl.h — executing catalog statements: CREATE/DROP TABLE, VIEW,
 * FUNCTION, DATABASE, CATALOG; ALTER TABLE; USE [CATALOG]; SHOW ...; SHOW CREATE
 * TABLE/VIEW; DESCRIBE.
 *
 * Output (to the stream given) is plain text meant for people and golden files:
 *   SHOW CATALOGS|DATABASES|TABLES|VIEWS|FUNCTIONS|CURRENT ...
 *       one name per line, sorted by byte value, no header; SHOW TABLES lists
 *       tables and views (as Flink does), temporary ones included; SHOW
 *       FUNCTIONS lists user functions and the built-ins named by
 *       cdc_ddl_set_builtin_functions(), in lower case.
 *   SHOW CREATE TABLE|VIEW name
 *       the normalized DDL (cdc_table_def_to_sql / cdc_view_def_to_sql) with
 *       the fully qualified name, then a newline; it parses back to an equal
 *       object.
 *   DESCRIBE name
 *       a header line "name  type  null  key  extras  watermark" and one line
 *       per column, cells padded to the widest value plus two spaces,
 *       trailing blanks trimmed: the type without NOT NULL, null TRUE/FALSE,
 *       key "PRI(a, b)" on primary key columns, extras "AS expr" for computed
 *       and "METADATA FROM 'key' [VIRTUAL]" for metadata columns, and the
 *       watermark expression on the watermark's column.
 * Other statements print nothing.
 */
#ifndef CDC_DDL_H
#define CDC_DDL_H

#include <stdio.h>

#include "cdc_catalog.h"

/**
 * Executes @p st when it is a catalog statement. @p text / @p len is the
 * whole script and @p filename its name, for messages (FILE:LINE:COL and a
 * caret). Returns 0 when executed, 1 when @p st is not a catalog statement
 * (SET, RESET, INSERT, statement sets, EXPLAIN, queries, CREATE TABLE ... AS
 * SELECT: the runtime's), -1 with *err on error.
 */
int cdc_ddl_execute(cdc_catalog_t *cat, const cdc_sql_stmt_t *st, const char *text, size_t len,
                    const char *filename, FILE *out, cdc_error_t **err);

/**
 * Names the built-in functions (a NULL-terminated array that must outlive
 * every catalog; NULL clears): SHOW FUNCTIONS lists them, and they take
 * precedence over user functions of the same one-part name except temporary
 * system functions. Same as cdc_catalog_set_builtin_functions().
 */
void cdc_ddl_set_builtin_functions(const char *const *names);

#endif
