/*
 * cdc_udf.c — scalar C functions loaded from shared objects (see cdc_udf.h).
 */
#include "cdc_udf.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_UDF_ARGS 64

/* One opened library; kept until cdc_udf_unload_all(). */
typedef struct udf_lib {
    char *path; /* realpath() when it resolves, else as given */
    void *handle;
} udf_lib_t;

static udf_lib_t *libs;
static int nlibs;

static const char *allowed_types =
    "BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, CHAR, VARCHAR or STRING";

cdc_udf_kind_t cdc_udf_kind_of(const cdc_type_t *type)
{
    switch (type->root) {
    case CDC_T_BOOLEAN:
        return CDC_UDF_BOOL;
    case CDC_T_TINYINT:
    case CDC_T_SMALLINT:
    case CDC_T_INT:
    case CDC_T_BIGINT:
        return CDC_UDF_INT64;
    case CDC_T_FLOAT:
    case CDC_T_DOUBLE:
        return CDC_UDF_DOUBLE;
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
        return CDC_UDF_STRING;
    default:
        return CDC_UDF_NULL;
    }
}

/* Checks one declared type text; @p what is "return type" or "argument 2 type". */
static int check_type(const char *text, const char *identifier, const char *what, cdc_error_t **err)
{
    if (!text)
        return cdc_error_set(err, CDC_ERR_CATALOG, "function \"%s\" declares no %s", identifier,
                             what);
    cdc_error_t *terr = NULL;
    cdc_type_t *type = cdc_type_parse(text, &terr);
    if (!type) {
        cdc_error_set(err, CDC_ERR_CATALOG, "function \"%s\" declares an invalid %s \"%s\"",
                      identifier, what, text);
        cdc_error_set_detail(*err, "%s", terr->message);
        cdc_error_destroy(terr);
        return -1;
    }
    int rc = 0;
    if (cdc_udf_kind_of(type) == CDC_UDF_NULL) {
        char *shown = cdc_type_to_string(type);
        cdc_error_set(err, CDC_ERR_CATALOG,
                      "function \"%s\" declares %s %s, which C functions "
                      "cannot take or return",
                      identifier, what, shown);
        cdc_error_set_hint(*err, "use %s", allowed_types);
        free(shown);
        rc = -1;
    }
    cdc_type_destroy(type);
    return rc;
}

int cdc_udf_validate(const cdc_udf_def_t *def, const char *identifier, cdc_error_t **err)
{
    if (def->abi_version != CDC_UDF_ABI_VERSION) {
        cdc_error_set(err, CDC_ERR_CATALOG, "function \"%s\" has ABI version %d, expected %d",
                      identifier, def->abi_version, CDC_UDF_ABI_VERSION);
        cdc_error_set_hint(*err, "rebuild the library against the cdc.h of this cdcflow");
        return -1;
    }
    if (!def->fn)
        return cdc_error_set(err, CDC_ERR_CATALOG, "function \"%s\" has no function pointer",
                             identifier);
    if (def->nargs < 0 || def->nargs > MAX_UDF_ARGS)
        return cdc_error_set(err, CDC_ERR_CATALOG,
                             "function \"%s\" declares %d arguments, expected 0 to %d", identifier,
                             def->nargs, MAX_UDF_ARGS);
    if (def->nargs > 0 && !def->arg_types)
        return cdc_error_set(err, CDC_ERR_CATALOG,
                             "function \"%s\" declares %d arguments but no argument types",
                             identifier, def->nargs);
    if (check_type(def->return_type, identifier, "return type", err) < 0)
        return -1;
    for (int i = 0; i < def->nargs; i++) {
        char what[48];
        snprintf(what, sizeof(what), "argument %d type", i + 1);
        if (check_type(def->arg_types[i], identifier, what, err) < 0)
            return -1;
    }
    return 0;
}

/* Opens (or finds already open) the library at @p path. */
static void *open_lib(const char *path, cdc_error_t **err)
{
    char *real = realpath(path, NULL);
    const char *key = real ? real : path;
    for (int i = 0; i < nlibs; i++) {
        if (strcmp(libs[i].path, key) == 0) {
            free(real);
            return libs[i].handle;
        }
    }
    dlerror();
    void *handle = dlopen(key, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        cdc_error_set(err, CDC_ERR_CATALOG, "could not open shared object \"%s\"", path);
        if (why)
            cdc_error_set_detail(*err, "%s", why);
        free(real);
        return NULL;
    }
    libs = cdc_xrealloc(libs, sizeof(*libs) * (size_t)(nlibs + 1));
    libs[nlibs].path = real ? real : cdc_xstrdup(path);
    libs[nlibs].handle = handle;
    nlibs++;
    return handle;
}

const cdc_udf_def_t *cdc_udf_load(const char *identifier, cdc_error_t **err)
{
    const char *colon = identifier ? strrchr(identifier, ':') : NULL;
    if (!colon || colon == identifier || colon[1] == '\0') {
        cdc_error_set(err, CDC_ERR_CATALOG, "invalid function identifier \"%s\"",
                      identifier ? identifier : "");
        cdc_error_set_hint(*err, "write 'path/to/lib.so:symbol'");
        return NULL;
    }
    size_t plen = (size_t)(colon - identifier);
    char *path = memchr(identifier, '/', plen) ? cdc_xstrndup(identifier, plen)
                                               : cdc_strdup_printf("./%.*s", (int)plen, identifier);
    const char *symbol = colon + 1;
    void *handle = open_lib(path, err);
    if (!handle) {
        free(path);
        return NULL;
    }
    dlerror();
    const cdc_udf_def_t *def = dlsym(handle, symbol);
    if (!def) {
        const char *why = dlerror();
        cdc_error_set(err, CDC_ERR_CATALOG, "symbol \"%s\" not found in \"%s\"", symbol, path);
        if (why)
            cdc_error_set_detail(*err, "%s", why);
        cdc_error_set_hint(*err, "the library must export \"const cdc_udf_def_t %s\"", symbol);
        free(path);
        return NULL;
    }
    free(path);
    if (cdc_udf_validate(def, identifier, err) < 0)
        return NULL;
    return def;
}

void cdc_udf_unload_all(void)
{
    for (int i = 0; i < nlibs; i++) {
        dlclose(libs[i].handle);
        free(libs[i].path);
    }
    free(libs);
    libs = NULL;
    nlibs = 0;
}
