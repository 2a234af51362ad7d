/*
 * tests/unit/registry.c — walks the whole registry: the start-up check
 * passes, every factory rejects an unknown key with a "did you mean" and
 * names each missing required key, and every option has a description.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_plugin.h"

Test(registry, startup_check_passes)
{
    cdc_error_t *err = NULL;
    int rc = cdc_registry_check(&err);
    cr_assert_eq(rc, 0, "%s", err ? err->detail : "");
}

static void expect_rejects_unknown(const char *label, const cdc_option_def_t *defs)
{
    const char *first = defs && defs[0].key ? defs[0].key : NULL;
    cdc_kv_t kv = {0};
    /* a near miss of the first option: a "did you mean" must name it */
    if (first && defs[0].type != CDC_OPT_PREFIX) {
        char *typo = cdc_strdup_printf("%sx", first);
        cdc_kv_set(&kv, typo, "1");
        cdc_error_t *err = NULL;
        cdc_config_t *cfg = cdc_config_new(defs, label, &kv, &err);
        cr_expect_null(cfg, "%s accepted unknown key \"%s\"", label, typo);
        cr_assert_not_null(err);
        char *want = cdc_strdup_printf("unknown option \"%s\" (did you mean \"%s\"?)", typo, first);
        cr_expect(strstr(err->detail, want) != NULL, "%s: \"%s\" not in \"%s\"", label, want,
                  err->detail);
        free(want);
        free(typo);
        cdc_error_destroy(err);
        cdc_config_destroy(cfg);
        cdc_kv_free(&kv);
    }
    cdc_kv_set(&kv, "surely-not-an-option-of-anything", "1");
    cdc_error_t *err = NULL;
    cdc_config_t *cfg = cdc_config_new(defs, label, &kv, &err);
    cr_expect_null(cfg);
    cr_assert_not_null(err);
    cr_expect(strstr(err->detail, "unknown option \"surely-not-an-option-of-anything\"") != NULL);
    /* every required option without a default is named as missing */
    for (int i = 0; defs && defs[i].key; i++) {
        if ((defs[i].flags & CDC_OPT_REQUIRED) && !defs[i].default_value) {
            char *want = cdc_strdup_printf("missing required option \"%s\"", defs[i].key);
            cr_expect(strstr(err->detail, want) != NULL, "%s: \"%s\" not in \"%s\"", label, want,
                      err->detail);
            free(want);
        }
        cr_expect(defs[i].description && *defs[i].description, "%s: %s has no description", label,
                  defs[i].key);
    }
    cdc_error_destroy(err);
    cdc_config_destroy(cfg);
    cdc_kv_free(&kv);
}

Test(registry, every_factory_rejects_unknown_and_names_missing)
{
    int n = 0;
    for (const cdc_format_factory_t *const *f = cdc_registry_formats(); *f; f++, n++)
        expect_rejects_unknown((*f)->identifier, (*f)->options);
    for (const cdc_connector_factory_t *const *c = cdc_registry_connectors(); *c; c++, n++)
        expect_rejects_unknown((*c)->identifier, (*c)->options);
    cr_expect_geq(n, 4);
}

Test(registry, lookup_and_unknown_identifiers)
{
    cr_expect_not_null(cdc_registry_format("json"));
    cr_expect_not_null(cdc_registry_connector("datagen"));
    cr_expect_not_null(cdc_registry_connector("print"));
    cr_expect_not_null(cdc_registry_connector("blackhole"));
    cr_expect_null(cdc_registry_format("jsn"));
    cdc_error_t *err = cdc_registry_unknown("format", "jsn");
    cr_expect_str_eq(err->message, "unknown format \"jsn\"");
    cr_expect_str_eq(err->hint, "did you mean \"json\"?");
    cdc_error_destroy(err);
}

Test(registry, resolve_table_options_with_format_prefix)
{
    cdc_kv_t kv = {0};
    cdc_kv_set(&kv, "connector", "datagen");
    cdc_kv_set(&kv, "number-of-rows", "5");
    cdc_resolved_t res;
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_resolve_options(&kv, "c.d.t", &res, &err), 0, "%s", err ? err->detail : "");
    cr_expect_eq(cdc_config_int(res.cfg, "number-of-rows"), 5);
    cdc_resolved_free(&res);

    cdc_kv_set(&kv, "connector", "datagn");
    cr_assert_eq(cdc_resolve_options(&kv, "c.d.t", &res, &err), -1);
    cr_expect_str_eq(err->message, "unknown connector \"datagn\"");
    cr_expect_str_eq(err->hint, "did you mean \"datagen\"?");
    cr_expect_str_eq(err->context, "table \"c.d.t\"");
    cdc_error_destroy(err);
    err = NULL;

    cdc_kv_set(&kv, "connector", "datagen");
    cdc_kv_set(&kv, "number-of-row", "5");
    cr_assert_eq(cdc_resolve_options(&kv, "c.d.t", &res, &err), -1);
    cr_expect_str_eq(err->message, "invalid options for connector \"datagen\"");
    cr_expect_str_eq(err->detail,
                     "unknown option \"number-of-row\" (did you mean \"number-of-rows\"?)");
    cdc_error_destroy(err);
    err = NULL;

    cdc_kv_t nok = {0};
    cdc_kv_set(&nok, "number-of-rows", "5");
    cr_assert_eq(cdc_resolve_options(&nok, "c.d.t", &res, &err), -1);
    cr_expect_str_eq(err->message, "table \"c.d.t\" has no \"connector\" option");
    cdc_error_destroy(err);
    cdc_kv_free(&nok);
    cdc_kv_free(&kv);
}
