/*
 * cdc_options.h — declarative option tables and the one validator.
 *
 * Every factory declares its options in one static table; the validator
 * checks a table's WITH options against one or more such tables (connector
 * plus formats, each under its own prefix) and reports every problem at once:
 * unknown keys with a "did you mean", missing required keys, values of the
 * wrong type or range, bad enum values. Factories read validated values
 * through typed getters and never compare keys by hand.
 */
#ifndef CDC_OPTIONS_H
#define CDC_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "cdc_arena.h"
#include "cdc_error.h"

typedef enum cdc_opt_type {
    CDC_OPT_STRING,
    CDC_OPT_INT,      /* 64-bit signed integer; min/max checked when min < max */
    CDC_OPT_BOOL,     /* true/false (any case) */
    CDC_OPT_DOUBLE,   /* floating point; min/max checked when min < max */
    CDC_OPT_ENUM,     /* one of enum_values, case-insensitive */
    CDC_OPT_DURATION, /* "500 ms", "5s", "1 min", "2h", "1d"; plain number = ms */
    CDC_OPT_SIZE,     /* "64kb", "10 mb", "1gb"; plain number = bytes */
    CDC_OPT_LIST,     /* ';'-separated list */
    CDC_OPT_PREFIX    /* the key is a prefix ("properties."): any key under it is taken verbatim */
} cdc_opt_type_t;

#define CDC_OPT_REQUIRED 0x01u
#define CDC_OPT_SECRET 0x02u     /* never printed: errors, logs, EXPLAIN, describe */
#define CDC_OPT_DEPRECATED 0x04u /* still accepted */
#define CDC_OPT_FORMAT                                                                             \
    0x08u /* the value names a format; "x.format" puts its options under "x.<id>." */

typedef struct cdc_option_def_s {
    const char *key;
    cdc_opt_type_t type;
    unsigned flags;
    const char *default_value;      /* as text; NULL = no default */
    int64_t min, max;               /* for INT/DOUBLE/DURATION/SIZE when min < max */
    const char *const *enum_values; /* NULL-terminated, for ENUM */
    const char *description;
} cdc_option_def_t;

/** An ordered list of key/value text pairs, e.g. a table's WITH clause. */
typedef struct cdc_kv_s {
    char **keys;
    char **values;
    int n;
    int cap;
} cdc_kv_t;

/** Adds or replaces key (copied). */
void cdc_kv_set(cdc_kv_t *kv, const char *key, const char *value);
/** Value for key or NULL (borrowed). */
const char *cdc_kv_get(const cdc_kv_t *kv, const char *key);
void cdc_kv_remove(cdc_kv_t *kv, const char *key);
void cdc_kv_copy(cdc_kv_t *dst, const cdc_kv_t *src);
void cdc_kv_free(cdc_kv_t *kv);

/** Validated values for one option table. */
typedef struct cdc_config_s cdc_config_t;

/** One option table applied under a key prefix ("" for the connector, "json." for its format). */
typedef struct cdc_option_scope_s {
    const cdc_option_def_t *defs; /* terminated by an entry with key NULL */
    const char *prefix;
    const char *label; /* for messages: connector "kafka", format "json" */
    /* cross-option rules; appends one line per problem to problems (may be NULL) */
    void (*check)(const cdc_config_t *cfg, cdc_buf_t *problems);
} cdc_option_scope_t;

/**
 * Validates `given` against the scopes. Every key must belong to exactly one
 * scope (the longest matching prefix). On success returns 0 and out[i] (one per
 * scope) owns that scope's validated values. On failure returns -1 and *err
 * lists every problem in its detail, one per line.
 */
int cdc_options_validate(const cdc_option_scope_t *scopes, int nscopes, const cdc_kv_t *given,
                         cdc_config_t **out, cdc_error_t **err);

/** Validates values for a single scope with no prefix. */
cdc_config_t *cdc_config_new(const cdc_option_def_t *defs, const char *label, const cdc_kv_t *given,
                             cdc_error_t **err);
void cdc_config_destroy(cdc_config_t *cfg);

/** True when the table declares key (getters abort on undeclared keys). */
bool cdc_config_declares(const cdc_config_t *cfg, const char *key);

/* Getters. The key must be in the table (a wrong key aborts: it is a bug). */
bool cdc_config_isset(const cdc_config_t *cfg, const char *key);
const char *cdc_config_str(const cdc_config_t *cfg,
                           const char *key); /* NULL when unset, no default */
int64_t cdc_config_int(const cdc_config_t *cfg, const char *key);
bool cdc_config_bool(const cdc_config_t *cfg, const char *key);
double cdc_config_double(const cdc_config_t *cfg, const char *key);
int64_t cdc_config_duration_ms(const cdc_config_t *cfg, const char *key);
int64_t cdc_config_size(const cdc_config_t *cfg, const char *key);
/** Index into enum_values. */
int cdc_config_enum(const cdc_config_t *cfg, const char *key);
/** Keys under a PREFIX option, with the prefix removed (borrowed, lives with cfg). */
const cdc_kv_t *cdc_config_prefixed(const cdc_config_t *cfg, const char *prefix_key);
/** All given keys and values of this scope (prefix removed). */
const cdc_kv_t *cdc_config_given(const cdc_config_t *cfg);
const char *cdc_config_label(const cdc_config_t *cfg);

/** Parsers shared with the SQL layer; return 0 or -1. */
/**
 * Expands environment references in an option value: ${NAME} is the
 * variable's value, ${NAME:-text} falls back to text when NAME is unset or
 * empty, $${ is a literal "${". Returns a new string, or NULL with *err
 * naming the variable (an unset variable without a default is an error,
 * never an empty string). `getenv_fn` NULL means getenv.
 */
char *cdc_env_expand(const char *value, const char *(*getenv_fn)(const char *name),
                     cdc_error_t **err);

/** cdc_env_expand of every value of src into dst; errors name `what` and the key. */
int cdc_kv_env_expand(cdc_kv_t *dst, const cdc_kv_t *src, const char *what, cdc_error_t **err);

int cdc_parse_bool(const char *s, bool *out);
int cdc_parse_int(const char *s, int64_t *out);
int cdc_parse_duration_ms(const char *s, int64_t *out);
int cdc_parse_size(const char *s, int64_t *out);

/** Levenshtein distance, for "did you mean". */
int cdc_edit_distance(const char *a, const char *b);
/** The closest candidate within a sensible distance, or NULL. */
const char *cdc_closest(const char *word, const char *const *candidates, int n);

const char *cdc_opt_type_name(cdc_opt_type_t type);

#endif
