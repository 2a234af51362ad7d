/*
 * cdc_udf.h — loading scalar C functions from shared objects for
 *   CREATE [TEMPORARY [SYSTEM]] FUNCTION name AS 'path/to/lib.so:symbol' [LANGUAGE C]
 *
 * The shared object exports `symbol` as a `const cdc_udf_def_t` (see cdc.h
 * for the ABI). Loading opens the library with dlopen(RTLD_NOW | RTLD_LOCAL),
 * looks the symbol up and checks the definition: ABI version, a function
 * pointer, and type texts that parse and are of an allowed kind. A library is
 * opened once per process however many functions or identifiers name it; a
 * loaded definition stays valid until cdc_udf_unload_all().
 *
 * Not thread-safe: functions are loaded while statements execute, on one thread.
 */
#ifndef CDC_UDF_H
#define CDC_UDF_H

#include <stdbool.h>

#include "cdc.h"
#include "cdc_error.h"
#include "cdc_types.h"

/**
 * Loads the function named by @p identifier, "path/to/lib.so:symbol" (the
 * last ":" separates the symbol). A path without "/" is taken relative to the
 * working directory, never searched for on the library path.
 *
 * Returns a borrowed definition that stays valid until cdc_udf_unload_all(),
 * or NULL with *err (CDC_ERR_CATALOG): malformed identifier, a library that
 * cannot be opened (dlerror's text as detail), a missing symbol, a wrong ABI
 * version, a missing function pointer, or a type that does not parse or is not
 * one of BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, CHAR,
 * VARCHAR/STRING.
 */
const cdc_udf_def_t *cdc_udf_load(const char *identifier, cdc_error_t **err);

/**
 * Checks a definition as cdc_udf_load() does (@p identifier names it in
 * messages). Returns 0, or -1 with *err.
 */
int cdc_udf_validate(const cdc_udf_def_t *def, const char *identifier, cdc_error_t **err);

/** The value kind a parsed argument or return type travels as (CDC_UDF_INT64 for INT ...), or
 * CDC_UDF_NULL when the type is not allowed. */
cdc_udf_kind_t cdc_udf_kind_of(const cdc_type_t *type);

/** Closes every library opened by cdc_udf_load(); definitions returned before become invalid.
 * For tests and leak checkers; a run never needs it. */
void cdc_udf_unload_all(void);

#endif
