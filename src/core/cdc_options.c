/*
 * cdc_options.c — option tables: the validator, typed getters, parsers.
 */
#include "cdc_options.h"
#include "cdc_log.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct cdc_config_s {
    const cdc_option_def_t *defs;
    char *label;
    int ndefs;
    char **values;      /* per def: given value or NULL */
    cdc_kv_t *prefixed; /* per def (PREFIX type only) */
    cdc_kv_t given;     /* all keys of this scope, prefix removed */
};

/* ---- kv ------------------------------------------------------------------ */

void cdc_kv_set(cdc_kv_t *kv, const char *key, const char *value)
{
    for (int i = 0; i < kv->n; i++) {
        if (strcmp(kv->keys[i], key) == 0) {
            free(kv->values[i]);
            kv->values[i] = cdc_xstrdup(value);
            return;
        }
    }
    if (kv->n == kv->cap) {
        kv->cap = kv->cap ? kv->cap * 2 : 8;
        kv->keys = cdc_xrealloc(kv->keys, sizeof(char *) * (size_t)kv->cap);
        kv->values = cdc_xrealloc(kv->values, sizeof(char *) * (size_t)kv->cap);
    }
    kv->keys[kv->n] = cdc_xstrdup(key);
    kv->values[kv->n] = cdc_xstrdup(value);
    kv->n++;
}

const char *cdc_kv_get(const cdc_kv_t *kv, const char *key)
{
    for (int i = 0; i < kv->n; i++)
        if (strcmp(kv->keys[i], key) == 0)
            return kv->values[i];
    return NULL;
}

void cdc_kv_remove(cdc_kv_t *kv, const char *key)
{
    for (int i = 0; i < kv->n; i++) {
        if (strcmp(kv->keys[i], key) == 0) {
            free(kv->keys[i]);
            free(kv->values[i]);
            memmove(kv->keys + i, kv->keys + i + 1, sizeof(char *) * (size_t)(kv->n - i - 1));
            memmove(kv->values + i, kv->values + i + 1, sizeof(char *) * (size_t)(kv->n - i - 1));
            kv->n--;
            return;
        }
    }
}

void cdc_kv_copy(cdc_kv_t *dst, const cdc_kv_t *src)
{
    for (int i = 0; i < src->n; i++)
        cdc_kv_set(dst, src->keys[i], src->values[i]);
}

/* ---- ${VAR} references in option values ------------------------------------------------ */

static const char *plain_getenv(const char *name)
{
    return getenv(name);
}

static bool env_name_char(char c, bool first)
{
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (!first && c >= '0' && c <= '9');
}

char *cdc_env_expand(const char *value, const char *(*getenv_fn)(const char *name),
                     cdc_error_t **err)
{
    if (!getenv_fn)
        getenv_fn = plain_getenv;
    if (!strchr(value, '$'))
        return cdc_xstrdup(value);
    cdc_buf_t out = {0};
    const char *p = value;
    while (*p) {
        if (p[0] == '$' && p[1] == '$' && p[2] == '{') {
            cdc_buf_puts(&out, "${");
            p += 3;
            continue;
        }
        if (p[0] != '$' || p[1] != '{') {
            cdc_buf_putc(&out, *p++);
            continue;
        }
        const char *name = p + 2, *q = name;
        while (env_name_char(*q, q == name))
            q++;
        size_t nlen = (size_t)(q - name);
        const char *def = NULL;
        size_t dlen = 0;
        if (nlen > 0 && q[0] == ':' && q[1] == '-') {
            def = q + 2;
            const char *close = strchr(def, '}');
            if (close) {
                dlen = (size_t)(close - def);
                q = close;
            } else {
                q = def + strlen(def);
            }
        }
        if (nlen == 0 || *q != '}') {
            cdc_error_set(err, CDC_ERR_OPTION,
                          "malformed environment reference at character %d: expected ${NAME} "
                          "or ${NAME:-default} (NAME of letters, digits and _)",
                          (int)(p - value) + 1);
            cdc_error_set_hint(*err, "write $${ for a literal \"${\"");
            cdc_buf_free(&out);
            return NULL;
        }
        char var[256];
        if (nlen >= sizeof(var))
            nlen = sizeof(var) - 1;
        memcpy(var, name, nlen);
        var[nlen] = '\0';
        const char *v = getenv_fn(var);
        if (v && (*v || !def)) {
            cdc_buf_puts(&out, v);
        } else if (def) {
            cdc_buf_append(&out, def, dlen);
        } else {
            cdc_error_set(err, CDC_ERR_OPTION, "environment variable %s is not set", var);
            cdc_error_set_hint(*err, "export %s before running, or give a default: ${%s:-value}",
                               var, var);
            cdc_buf_free(&out);
            return NULL;
        }
        p = q + 1;
    }
    char *res = cdc_xstrdup(cdc_buf_cstr(&out));
    cdc_buf_free(&out);
    return res;
}

int cdc_kv_env_expand(cdc_kv_t *dst, const cdc_kv_t *src, const char *what, cdc_error_t **err)
{
    for (int i = 0; i < src->n; i++) {
        char *v = cdc_env_expand(src->values[i], NULL, err);
        if (!v) {
            cdc_error_add_context(*err, "option \"%s\" of %s", src->keys[i], what);
            return -1;
        }
        cdc_kv_set(dst, src->keys[i], v);
        free(v);
    }
    return 0;
}

void cdc_kv_free(cdc_kv_t *kv)
{
    for (int i = 0; i < kv->n; i++) {
        free(kv->keys[i]);
        free(kv->values[i]);
    }
    free(kv->keys);
    free(kv->values);
    memset(kv, 0, sizeof(*kv));
}

/* ---- parsers ----------------------------------------------------------------- */

const char *cdc_opt_type_name(cdc_opt_type_t t)
{
    switch (t) {
    case CDC_OPT_STRING:
        return "string";
    case CDC_OPT_INT:
        return "int";
    case CDC_OPT_BOOL:
        return "boolean";
    case CDC_OPT_DOUBLE:
        return "double";
    case CDC_OPT_ENUM:
        return "enum";
    case CDC_OPT_DURATION:
        return "duration";
    case CDC_OPT_SIZE:
        return "size";
    case CDC_OPT_LIST:
        return "list";
    case CDC_OPT_PREFIX:
        return "prefix";
    }
    return "?";
}

int cdc_parse_bool(const char *s, bool *out)
{
    if (strcasecmp(s, "true") == 0)
        *out = true;
    else if (strcasecmp(s, "false") == 0)
        *out = false;
    else
        return -1;
    return 0;
}

int cdc_parse_int(const char *s, int64_t *out)
{
    while (isspace((unsigned char)*s))
        s++;
    if (!*s)
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    while (isspace((unsigned char)*end))
        end++;
    if (errno || *end || end == s)
        return -1;
    *out = v;
    return 0;
}

/* Splits "12 ms" into number and unit; returns -1 on junk. */
static int number_unit(const char *s, double *num, const char **unit)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)*s))
        return -1;
    *num = strtod(s, &end);
    if (errno || end == s || *num < 0)
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    *unit = end;
    size_t n = strlen(end);
    while (n && isspace((unsigned char)end[n - 1]))
        n--;
    if (end[n] != '\0')
        return -1; /* trailing spaces are not allowed here: keep it simple */
    return 0;
}

int cdc_parse_duration_ms(const char *s, int64_t *out)
{
    static const struct {
        const char *unit;
        double ms;
    } units[] = {
        {"", 1},
        {"ms", 1},
        {"milli", 1},
        {"millis", 1},
        {"millisecond", 1},
        {"milliseconds", 1},
        {"s", 1000},
        {"sec", 1000},
        {"secs", 1000},
        {"second", 1000},
        {"seconds", 1000},
        {"min", 60000},
        {"mins", 60000},
        {"minute", 60000},
        {"minutes", 60000},
        {"m", 60000},
        {"h", 3600000},
        {"hour", 3600000},
        {"hours", 3600000},
        {"d", 86400000},
        {"day", 86400000},
        {"days", 86400000},
    };
    double num;
    const char *unit;
    if (number_unit(s, &num, &unit) < 0)
        return -1;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcasecmp(unit, units[i].unit) == 0) {
            double v = num * units[i].ms;
            if (v > 9.2e18)
                return -1;
            *out = (int64_t)llround(v);
            return 0;
        }
    }
    return -1;
}

int cdc_parse_size(const char *s, int64_t *out)
{
    static const struct {
        const char *unit;
        double mult;
    } units[] = {
        {"", 1},
        {"b", 1},
        {"bytes", 1},
        {"k", 1024},
        {"kb", 1024},
        {"kib", 1024},
        {"m", 1048576},
        {"mb", 1048576},
        {"mib", 1048576},
        {"g", 1073741824.0},
        {"gb", 1073741824.0},
        {"gib", 1073741824.0},
        {"t", 1099511627776.0},
        {"tb", 1099511627776.0},
    };
    double num;
    const char *unit;
    if (number_unit(s, &num, &unit) < 0)
        return -1;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcasecmp(unit, units[i].unit) == 0) {
            double v = num * units[i].mult;
            if (v > 9.2e18)
                return -1;
            *out = (int64_t)llround(v);
            return 0;
        }
    }
    return -1;
}

int cdc_edit_distance(const char *a, const char *b)
{
    /* optimal string alignment: Levenshtein plus adjacent swaps at cost 1 */
    size_t la = strlen(a), lb = strlen(b);
    if (la > 128 || lb > 128)
        return 1000;
    static _Thread_local int d[130][130];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            int v = d[i - 1][j - 1] + (ca != cb);
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    }
    return d[la][lb];
}

const char *cdc_closest(const char *word, const char *const *cands, int n)
{
    const char *best = NULL;
    int bestd = 1000;
    int limit = (int)strlen(word) / 3;
    if (limit < 2)
        limit = 2;
    for (int i = 0; i < n; i++) {
        int d = cdc_edit_distance(word, cands[i]);
        if (d < bestd) {
            bestd = d;
            best = cands[i];
        }
    }
    return bestd <= limit ? best : NULL;
}

/* ---- validation ----------------------------------------------------------------- */

static int ndefs_of(const cdc_option_def_t *defs)
{
    int n = 0;
    while (defs && defs[n].key)
        n++;
    return n;
}

static cdc_config_t *config_alloc(const cdc_option_def_t *defs, const char *label)
{
    cdc_config_t *cfg = cdc_xcalloc(1, sizeof(*cfg));
    cfg->defs = defs;
    cfg->label = cdc_xstrdup(label ? label : "");
    cfg->ndefs = ndefs_of(defs);
    cfg->values = cdc_xcalloc((size_t)cfg->ndefs + 1, sizeof(char *));
    cfg->prefixed = cdc_xcalloc((size_t)cfg->ndefs + 1, sizeof(cdc_kv_t));
    return cfg;
}

void cdc_config_destroy(cdc_config_t *cfg)
{
    if (!cfg)
        return;
    for (int i = 0; i < cfg->ndefs; i++) {
        free(cfg->values[i]);
        cdc_kv_free(&cfg->prefixed[i]);
    }
    free(cfg->values);
    free(cfg->prefixed);
    cdc_kv_free(&cfg->given);
    free(cfg->label);
    free(cfg);
}

/* Checks one value against its def; appends a problem line when wrong. */
static void check_value(const cdc_option_def_t *def, const char *full_key, const char *value,
                        cdc_buf_t *problems)
{
    bool secret = (def->flags & CDC_OPT_SECRET) != 0;
    const char *shown = secret ? "(secret)" : value;
    int64_t iv = 0;
    double dv = 0;
    bool bv;
    bool ranged = def->min < def->max;
    switch (def->type) {
    case CDC_OPT_STRING:
    case CDC_OPT_LIST:
    case CDC_OPT_PREFIX:
        return;
    case CDC_OPT_BOOL:
        if (cdc_parse_bool(value, &bv) < 0)
            cdc_buf_printf(problems, "option \"%s\": expected true or false, found \"%s\"\n",
                           full_key, shown);
        return;
    case CDC_OPT_INT:
        if (cdc_parse_int(value, &iv) < 0) {
            cdc_buf_printf(problems, "option \"%s\": expected an integer, found \"%s\"\n", full_key,
                           shown);
            return;
        }
        break;
    case CDC_OPT_DOUBLE: {
        char *end;
        errno = 0;
        dv = strtod(value, &end);
        if (errno || end == value || *end || !isfinite(dv)) {
            cdc_buf_printf(problems, "option \"%s\": expected a number, found \"%s\"\n", full_key,
                           shown);
            return;
        }
        if (ranged && (dv < (double)def->min || dv > (double)def->max))
            cdc_buf_printf(problems, "option \"%s\": value %s is out of range [%lld, %lld]\n",
                           full_key, shown, (long long)def->min, (long long)def->max);
        return;
    }
    case CDC_OPT_DURATION:
        if (cdc_parse_duration_ms(value, &iv) < 0) {
            cdc_buf_printf(problems,
                           "option \"%s\": expected a duration such as \"500 ms\", \"10 s\" or "
                           "\"5 min\", found \"%s\"\n",
                           full_key, shown);
            return;
        }
        break;
    case CDC_OPT_SIZE:
        if (cdc_parse_size(value, &iv) < 0) {
            cdc_buf_printf(problems,
                           "option \"%s\": expected a size such as \"64 kb\" or \"10 mb\", found "
                           "\"%s\"\n",
                           full_key, shown);
            return;
        }
        break;
    case CDC_OPT_ENUM: {
        for (int i = 0; def->enum_values[i]; i++)
            if (strcasecmp(def->enum_values[i], value) == 0)
                return;
        cdc_buf_printf(problems, "option \"%s\": expected one of ", full_key);
        for (int i = 0; def->enum_values[i]; i++)
            cdc_buf_printf(problems, "%s%s", i ? ", " : "", def->enum_values[i]);
        cdc_buf_printf(problems, "; found \"%s\"\n", shown);
        return;
    }
    }
    if (ranged && (iv < def->min || iv > def->max)) {
        if (def->max == INT64_MAX)
            cdc_buf_printf(problems, "option \"%s\": value %s must be at least %lld\n", full_key,
                           shown, (long long)def->min);
        else
            cdc_buf_printf(problems, "option \"%s\": value %s is out of range [%lld, %lld]\n",
                           full_key, shown, (long long)def->min, (long long)def->max);
    }
}

static int find_def(const cdc_config_t *cfg, const char *key)
{
    for (int i = 0; i < cfg->ndefs; i++)
        if (cfg->defs[i].type != CDC_OPT_PREFIX && strcmp(cfg->defs[i].key, key) == 0)
            return i;
    for (int i = 0; i < cfg->ndefs; i++)
        if (cfg->defs[i].type == CDC_OPT_PREFIX &&
            strncmp(cfg->defs[i].key, key, strlen(cfg->defs[i].key)) == 0 &&
            strlen(key) > strlen(cfg->defs[i].key))
            return i;
    return -1;
}

int cdc_options_validate(const cdc_option_scope_t *scopes, int nscopes, const cdc_kv_t *given,
                         cdc_config_t **out, cdc_error_t **err)
{
    cdc_buf_t problems = {0};
    int first_bad_scope = -1;
    size_t last_len = 0;
    for (int s = 0; s < nscopes; s++)
        out[s] = config_alloc(scopes[s].defs, scopes[s].label);

    /* all full keys, for suggestions */
    int nall = 0;
    for (int s = 0; s < nscopes; s++)
        nall += ndefs_of(scopes[s].defs);
    char **all = cdc_xcalloc((size_t)nall + 1, sizeof(char *));
    nall = 0;
    for (int s = 0; s < nscopes; s++)
        for (int i = 0; scopes[s].defs && scopes[s].defs[i].key; i++)
            all[nall++] = cdc_strdup_printf("%s%s", scopes[s].prefix, scopes[s].defs[i].key);

    for (int k = 0; k < given->n; k++) {
        const char *key = given->keys[k];
        int best = -1;
        size_t bestlen = 0;
        for (int s = 0; s < nscopes; s++) {
            size_t pl = strlen(scopes[s].prefix);
            if (strncmp(scopes[s].prefix, key, pl) == 0 && (best < 0 || pl > bestlen)) {
                best = s;
                bestlen = pl;
            }
        }
        int d = best >= 0 ? find_def(out[best], key + bestlen) : -1;
        if (d < 0) {
            const char *sug = cdc_closest(key, (const char *const *)all, nall);
            if (sug)
                cdc_buf_printf(&problems, "unknown option \"%s\" (did you mean \"%s\"?)\n", key,
                               sug);
            else
                cdc_buf_printf(&problems, "unknown option \"%s\"\n", key);
            if (first_bad_scope < 0)
                first_bad_scope = best >= 0 ? best : 0;
            continue;
        }
        cdc_config_t *cfg = out[best];
        const cdc_option_def_t *def = &cfg->defs[d];
        const char *value = given->values[k];
        cdc_kv_set(&cfg->given, key + bestlen, value);
        if (def->type == CDC_OPT_PREFIX) {
            cdc_kv_set(&cfg->prefixed[d], key + bestlen + strlen(def->key), value);
            continue;
        }
        last_len = problems.len;
        check_value(def, key, value, &problems);
        if (problems.len != last_len && first_bad_scope < 0)
            first_bad_scope = best;
        free(cfg->values[d]);
        cfg->values[d] = cdc_xstrdup(value);
    }
    for (int s = 0; s < nscopes; s++) {
        cdc_config_t *cfg = out[s];
        for (int i = 0; i < cfg->ndefs; i++) {
            const cdc_option_def_t *def = &cfg->defs[i];
            if ((def->flags & CDC_OPT_REQUIRED) && !cfg->values[i] && !def->default_value &&
                (def->type != CDC_OPT_PREFIX || cfg->prefixed[i].n == 0)) {
                cdc_buf_printf(&problems, "missing required option \"%s%s\"\n", scopes[s].prefix,
                               def->key);
                if (first_bad_scope < 0)
                    first_bad_scope = s;
            }
        }
        if (scopes[s].check) {
            last_len = problems.len;
            scopes[s].check(cfg, &problems);
            if (problems.len != last_len && first_bad_scope < 0)
                first_bad_scope = s;
        }
    }
    for (int i = 0; i < nall; i++)
        free(all[i]);
    free(all);
    if (problems.len == 0) {
        cdc_buf_free(&problems);
        return 0;
    }
    while (problems.len && problems.data[problems.len - 1] == '\n')
        problems.len--;
    const cdc_option_scope_t *bad = &scopes[first_bad_scope];
    if (err) {
        cdc_error_t *e = cdc_error_new(CDC_ERR_OPTION, "invalid options for %s", bad->label);
        cdc_error_set_detail(e, "%s", cdc_buf_cstr(&problems));
        const char *name = strchr(bad->label, '"');
        if (name)
            cdc_error_set_hint(e, "\"cdcflow describe %.*s\" lists the options of %s.",
                               (int)(strlen(name) - 2), name + 1, bad->label);
        cdc_error_destroy(*err);
        *err = e;
    }
    cdc_buf_free(&problems);
    for (int s = 0; s < nscopes; s++) {
        cdc_config_destroy(out[s]);
        out[s] = NULL;
    }
    return -1;
}

cdc_config_t *cdc_config_new(const cdc_option_def_t *defs, const char *label, const cdc_kv_t *given,
                             cdc_error_t **err)
{
    cdc_option_scope_t scope = {.defs = defs, .prefix = "", .label = label};
    cdc_config_t *cfg = NULL;
    if (cdc_options_validate(&scope, 1, given, &cfg, err) < 0)
        return NULL;
    return cfg;
}

/* ---- getters ------------------------------------------------------------------ */

static int def_index(const cdc_config_t *cfg, const char *key)
{
    for (int i = 0; i < cfg->ndefs; i++)
        if (strcmp(cfg->defs[i].key, key) == 0)
            return i;
    cdc_log(CDC_LOG_ERROR, NULL, NULL, "internal error: option \"%s\" is not declared by %s", key,
            cfg->label);
    abort();
}

bool cdc_config_declares(const cdc_config_t *cfg, const char *key)
{
    for (int i = 0; i < cfg->ndefs; i++)
        if (strcmp(cfg->defs[i].key, key) == 0)
            return true;
    return false;
}

bool cdc_config_isset(const cdc_config_t *cfg, const char *key)
{
    int i = def_index(cfg, key);
    return cfg->values[i] != NULL || cfg->prefixed[i].n > 0;
}

const char *cdc_config_str(const cdc_config_t *cfg, const char *key)
{
    int i = def_index(cfg, key);
    return cfg->values[i] ? cfg->values[i] : cfg->defs[i].default_value;
}

int64_t cdc_config_int(const cdc_config_t *cfg, const char *key)
{
    const char *s = cdc_config_str(cfg, key);
    int64_t v = 0;
    if (s)
        cdc_parse_int(s, &v);
    return v;
}

bool cdc_config_bool(const cdc_config_t *cfg, const char *key)
{
    const char *s = cdc_config_str(cfg, key);
    bool v = false;
    if (s)
        cdc_parse_bool(s, &v);
    return v;
}

double cdc_config_double(const cdc_config_t *cfg, const char *key)
{
    const char *s = cdc_config_str(cfg, key);
    return s ? strtod(s, NULL) : 0.0;
}

int64_t cdc_config_duration_ms(const cdc_config_t *cfg, const char *key)
{
    const char *s = cdc_config_str(cfg, key);
    int64_t v = 0;
    if (s)
        cdc_parse_duration_ms(s, &v);
    return v;
}

int64_t cdc_config_size(const cdc_config_t *cfg, const char *key)
{
    const char *s = cdc_config_str(cfg, key);
    int64_t v = 0;
    if (s)
        cdc_parse_size(s, &v);
    return v;
}

int cdc_config_enum(const cdc_config_t *cfg, const char *key)
{
    int i = def_index(cfg, key);
    const char *s = cfg->values[i] ? cfg->values[i] : cfg->defs[i].default_value;
    if (!s)
        return -1;
    for (int k = 0; cfg->defs[i].enum_values[k]; k++)
        if (strcasecmp(cfg->defs[i].enum_values[k], s) == 0)
            return k;
    return -1;
}

const cdc_kv_t *cdc_config_prefixed(const cdc_config_t *cfg, const char *prefix_key)
{
    return &cfg->prefixed[def_index(cfg, prefix_key)];
}

const cdc_kv_t *cdc_config_given(const cdc_config_t *cfg)
{
    return &cfg->given;
}

const char *cdc_config_label(const cdc_config_t *cfg)
{
    return cfg->label;
}
