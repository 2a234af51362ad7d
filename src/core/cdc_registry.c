/*
 * cdc_registry.c — the list of factories, start-up checks, and resolving a
 * table's options against its connector and formats.
 *
 * Adding a format or connector: define its factory in its own folder, whose
 * CMakeLists.txt names it in a cdc_plugin() call; the list below is generated.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_plugin.h"

/* The factories of the plugins this build has: cdc_registry_list.h is generated
 * by CMake from each plugin folder's cdc_plugin() call (cmake/CdcPlugin.cmake),
 * sorted by symbol, one CDC_FORMAT(sym) or CDC_CONNECTOR(sym) line each. */
#define CDC_FORMAT(sym) extern const cdc_format_factory_t sym;
#define CDC_CONNECTOR(sym) extern const cdc_connector_factory_t sym;
#include "cdc_registry_list.h"
#undef CDC_FORMAT
#undef CDC_CONNECTOR

static const cdc_format_factory_t *const formats[] = {
#define CDC_FORMAT(sym) &sym,
#define CDC_CONNECTOR(sym)
#include "cdc_registry_list.h"
#undef CDC_FORMAT
#undef CDC_CONNECTOR
    NULL,
};

static const cdc_connector_factory_t *const connectors[] = {
#define CDC_FORMAT(sym)
#define CDC_CONNECTOR(sym) &sym,
#include "cdc_registry_list.h"
#undef CDC_FORMAT
#undef CDC_CONNECTOR
    NULL,
};

const cdc_format_factory_t *const *cdc_registry_formats(void)
{
    return formats;
}

const cdc_connector_factory_t *const *cdc_registry_connectors(void)
{
    return connectors;
}

const cdc_format_factory_t *cdc_registry_format(const char *id)
{
    for (int i = 0; formats[i]; i++)
        if (strcmp(formats[i]->identifier, id) == 0)
            return formats[i];
    return NULL;
}

/* Connectors of the engine itself (the stateful planner's internal table): found by identifier,
 * never listed. Registered once at start-up, before any thread plans. */
static const cdc_connector_factory_t *internal[4];

void cdc_registry_add_internal(const cdc_connector_factory_t *f)
{
    for (int i = 0; i < 4; i++) {
        if (internal[i] == f)
            return;
        if (!internal[i]) {
            internal[i] = f;
            return;
        }
    }
}

const cdc_connector_factory_t *cdc_registry_connector(const char *id)
{
    for (int i = 0; connectors[i]; i++)
        if (strcmp(connectors[i]->identifier, id) == 0)
            return connectors[i];
    for (int i = 0; i < 4 && internal[i]; i++)
        if (strcmp(internal[i]->identifier, id) == 0)
            return internal[i];
    return NULL;
}

cdc_error_t *cdc_registry_unknown(const char *kind, const char *id)
{
    const char *names[64];
    int n = 0;
    cdc_buf_t list = {0};
    if (strcmp(kind, "format") == 0) {
        for (int i = 0; formats[i] && n < 64; i++)
            names[n++] = formats[i]->identifier;
    } else {
        for (int i = 0; connectors[i] && n < 64; i++)
            names[n++] = connectors[i]->identifier;
    }
    for (int i = 0; i < n; i++)
        cdc_buf_printf(&list, "%s%s", i ? ", " : "", names[i]);
    cdc_error_t *err = cdc_error_new(CDC_ERR_OPTION, "unknown %s \"%s\"", kind, id);
    const char *sug = cdc_closest(id, names, n);
    cdc_error_set_detail(err, "available %ss: %s", kind, cdc_buf_cstr(&list));
    if (sug)
        cdc_error_set_hint(err, "did you mean \"%s\"?", sug);
    cdc_buf_free(&list);
    return err;
}

int cdc_metadata_find(const cdc_metadata_def_t *defs, const char *connector, const char *key,
                      cdc_error_t **err)
{
    for (int j = 0; defs[j].key; j++)
        if (strcmp(defs[j].key, key) == 0)
            return j;
    cdc_error_t *e = cdc_error_new(CDC_ERR_PLAN, "connector \"%s\" offers no metadata key \"%s\"",
                                   connector, key);
    cdc_buf_t list = {0};
    for (int j = 0; defs[j].key; j++)
        cdc_buf_printf(&list, "%s%s", j ? ", " : "", defs[j].key);
    cdc_error_set_detail(e, "readable metadata: %s", cdc_buf_cstr(&list));
    cdc_buf_free(&list);
    if (err) {
        cdc_error_destroy(*err);
        *err = e;
    } else {
        cdc_error_destroy(e);
    }
    return -1;
}

const cdc_table_format_t *cdc_table_format(const cdc_table_ctx_t *ctx, const char *option)
{
    for (int i = 0; i < ctx->nformats; i++)
        if (strcmp(ctx->formats[i].option, option) == 0)
            return &ctx->formats[i];
    return NULL;
}

/* ---- start-up checks --------------------------------------------------------- */

int cdc_format_metadata_ids(const cdc_format_ctx_t *ctx, const char *format,
                            const char *const *keys, int nkeys, uint8_t *ids, cdc_error_t **err)
{
    for (int i = 0; i < ctx->nmetadata; i++) {
        int k = 0;
        while (k < nkeys && strcmp(keys[k], ctx->metadata[i]) != 0)
            k++;
        if (k == nkeys)
            return cdc_error_set(err, CDC_ERR_PLAN, "format \"%s\" offers no metadata key \"%s\"",
                                 format, ctx->metadata[i]);
        ids[i] = (uint8_t)k;
    }
    return 0;
}

static bool good_identifier(const char *s)
{
    if (!s || !islower((unsigned char)*s))
        return false;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-'))
            return false;
    return true;
}

static void check_table(const char *what, const char *id, const cdc_option_def_t *defs,
                        cdc_buf_t *problems)
{
    for (int i = 0; defs && defs[i].key; i++) {
        const cdc_option_def_t *d = &defs[i];
        for (int j = 0; j < i; j++)
            if (strcmp(defs[j].key, d->key) == 0)
                cdc_buf_printf(problems, "%s \"%s\": option \"%s\" declared twice\n", what, id,
                               d->key);
        if (!d->description || !*d->description)
            cdc_buf_printf(problems, "%s \"%s\": option \"%s\" has no description\n", what, id,
                           d->key);
        if (d->type == CDC_OPT_ENUM && !d->enum_values)
            cdc_buf_printf(problems, "%s \"%s\": enum option \"%s\" has no values\n", what, id,
                           d->key);
        if (d->default_value) {
            cdc_kv_t kv = {0};
            cdc_kv_set(&kv, d->key, d->default_value);
            cdc_option_def_t one[2] = {*d, {0}};
            one[0].flags &= ~CDC_OPT_REQUIRED;
            cdc_error_t *err = NULL;
            cdc_config_t *cfg = cdc_config_new(one, what, &kv, &err);
            if (!cfg)
                cdc_buf_printf(problems, "%s \"%s\": default of \"%s\" does not parse: %s\n", what,
                               id, d->key, err->detail ? err->detail : err->message);
            cdc_config_destroy(cfg);
            cdc_error_destroy(err);
            cdc_kv_free(&kv);
        }
    }
}

int cdc_registry_check(cdc_error_t **err)
{
    cdc_buf_t problems = {0};
    for (int i = 0; formats[i]; i++) {
        const cdc_format_factory_t *f = formats[i];
        if (!good_identifier(f->identifier))
            cdc_buf_printf(&problems, "format \"%s\": identifier must be lowercase with dashes\n",
                           f->identifier ? f->identifier : "(null)");
        for (int j = 0; j < i; j++)
            if (strcmp(formats[j]->identifier, f->identifier) == 0)
                cdc_buf_printf(&problems, "format \"%s\" registered twice\n", f->identifier);
        if (!f->deser_new && !f->ser_new)
            cdc_buf_printf(&problems, "format \"%s\" can neither decode nor encode\n",
                           f->identifier);
        check_table("format", f->identifier, f->options, &problems);
    }
    for (int i = 0; connectors[i]; i++) {
        const cdc_connector_factory_t *c = connectors[i];
        if (!good_identifier(c->identifier))
            cdc_buf_printf(&problems,
                           "connector \"%s\": identifier must be lowercase with dashes\n",
                           c->identifier ? c->identifier : "(null)");
        for (int j = 0; j < i; j++)
            if (strcmp(connectors[j]->identifier, c->identifier) == 0)
                cdc_buf_printf(&problems, "connector \"%s\" registered twice\n", c->identifier);
        if (!c->source_new && !c->sink_new)
            cdc_buf_printf(&problems, "connector \"%s\" is neither a source nor a sink\n",
                           c->identifier);
        check_table("connector", c->identifier, c->options, &problems);
    }
    if (problems.len == 0)
        return 0;
    problems.len--;
    cdc_error_t *e = cdc_error_new(CDC_ERR_INTERNAL, "the factory registry is inconsistent");
    cdc_error_set_detail(e, "%s", cdc_buf_cstr(&problems));
    cdc_buf_free(&problems);
    if (err) {
        cdc_error_destroy(*err);
        *err = e;
    } else {
        cdc_error_destroy(e);
    }
    return -1;
}

/* ---- resolving a table's options ------------------------------------------------- */

void cdc_resolved_free(cdc_resolved_t *res)
{
    cdc_config_destroy(res->cfg);
    for (int i = 0; i < res->nformats; i++) {
        cdc_config_destroy((cdc_config_t *)res->formats[i].cfg);
        free((char *)res->formats[i].option);
    }
    memset(res, 0, sizeof(*res));
}

static int resolve_expanded(const cdc_kv_t *options, const char *table, cdc_resolved_t *out,
                            cdc_error_t **err)
{
    const char *conn_id = cdc_kv_get(options, "connector");
    if (!conn_id) {
        cdc_error_t *e =
            cdc_error_new(CDC_ERR_OPTION, "table \"%s\" has no \"connector\" option", table);
        cdc_error_set_hint(e, "add 'connector' = '...' to the WITH clause; \"cdcflow describe\" "
                              "lists the connectors.");
        cdc_error_destroy(*err);
        *err = e;
        return -1;
    }
    const cdc_connector_factory_t *conn = cdc_registry_connector(conn_id);
    if (!conn) {
        cdc_error_t *e = cdc_registry_unknown("connector", conn_id);
        cdc_error_add_context(e, "table \"%s\"", table);
        cdc_error_destroy(*err);
        *err = e;
        return -1;
    }
    cdc_kv_t given = {0};
    cdc_kv_copy(&given, options);
    cdc_kv_remove(&given, "connector");
    /* the runtime's, for any source (README "Schema changes"; cdc_evolve.c checks them) */
    cdc_kv_remove(&given, "schema.change.behavior");
    cdc_kv_remove(&given, "schema.evolution.columns");

    cdc_option_scope_t scopes[5];
    char *labels[5] = {0};
    char *prefixes[5] = {0};
    int nscopes = 0;
    labels[0] = cdc_strdup_printf("connector \"%s\"", conn->identifier);
    scopes[nscopes++] = (cdc_option_scope_t){
        .defs = conn->options, .prefix = "", .label = labels[0], .check = conn->check};
    for (int i = 0; conn->options && conn->options[i].key && nscopes < 5; i++) {
        const cdc_option_def_t *d = &conn->options[i];
        if (!(d->flags & CDC_OPT_FORMAT))
            continue;
        const char *fid = cdc_kv_get(&given, d->key);
        if (!fid)
            fid = d->default_value;
        if (!fid)
            continue;
        const cdc_format_factory_t *f = cdc_registry_format(fid);
        if (!f) {
            cdc_error_t *e = cdc_registry_unknown("format", fid);
            cdc_error_add_context(e, "option \"%s\" of table \"%s\"", d->key, table);
            cdc_error_destroy(*err);
            *err = e;
            for (int k = 0; k < nscopes; k++) {
                free(labels[k]);
                free(prefixes[k]);
            }
            cdc_kv_free(&given);
            return -1;
        }
        size_t kl = strlen(d->key) - strlen("format"); /* "value.format" -> "value." */
        prefixes[nscopes] = cdc_strdup_printf("%.*s%s.", (int)kl, d->key, f->identifier);
        labels[nscopes] = cdc_strdup_printf("format \"%s\"", f->identifier);
        out->formats[out->nformats].option = cdc_xstrdup(d->key);
        out->formats[out->nformats].factory = f;
        out->nformats++;
        scopes[nscopes] = (cdc_option_scope_t){.defs = f->options,
                                               .prefix = prefixes[nscopes],
                                               .label = labels[nscopes],
                                               .check = f->check};
        nscopes++;
    }
    cdc_config_t *cfgs[5] = {0};
    int rc = cdc_options_validate(scopes, nscopes, &given, cfgs, err);
    for (int k = 0; k < nscopes; k++) {
        free(labels[k]);
        free(prefixes[k]);
    }
    cdc_kv_free(&given);
    if (rc < 0) {
        cdc_error_add_context(*err, "table \"%s\"", table);
        for (int i = 0; i < out->nformats; i++)
            free((char *)out->formats[i].option);
        memset(out, 0, sizeof(*out));
        return -1;
    }
    out->connector = conn;
    out->cfg = cfgs[0];
    for (int i = 0; i < out->nformats; i++)
        out->formats[i].cfg = cfgs[i + 1];
    return 0;
}

int cdc_resolve_options(const cdc_kv_t *options, const char *table, cdc_resolved_t *out,
                        cdc_error_t **err)
{
    memset(out, 0, sizeof(*out));
    /* ${VAR} references are expanded here, when the table is used, so catalogs, SHOW CREATE
       TABLE and EXPLAIN keep the reference and never the (secret) value */
    cdc_kv_t expanded = {0};
    char *what = cdc_strdup_printf("table \"%s\"", table);
    int rc = cdc_kv_env_expand(&expanded, options, what, err);
    free(what);
    if (rc == 0)
        rc = resolve_expanded(&expanded, table, out, err);
    cdc_kv_free(&expanded);
    return rc;
}
