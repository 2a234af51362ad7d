/*
 * tests/unit/options.c — the option validator: each kind of mistake with its
 * exact text, every problem at once, prefixes and scopes, getters, secrets.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_options.h"

static const char *const modes[] = {"earliest-offset", "latest-offset", NULL};

static const cdc_option_def_t defs[] = {
    {.key = "topic", .type = CDC_OPT_STRING, .flags = CDC_OPT_REQUIRED, .description = "topic"},
    {.key = "rows",
     .type = CDC_OPT_INT,
     .default_value = "10",
     .min = 1,
     .max = 100,
     .description = "rows"},
    {.key = "fast", .type = CDC_OPT_BOOL, .default_value = "false", .description = "fast"},
    {.key = "scan.startup.mode",
     .type = CDC_OPT_ENUM,
     .default_value = "earliest-offset",
     .enum_values = modes,
     .description = "mode"},
    {.key = "interval", .type = CDC_OPT_DURATION, .default_value = "1 s", .description = "iv"},
    {.key = "buffer", .type = CDC_OPT_SIZE, .default_value = "64kb", .description = "buf"},
    {.key = "ratio",
     .type = CDC_OPT_DOUBLE,
     .default_value = "0.5",
     .min = 0,
     .max = 1,
     .description = "ratio"},
    {.key = "password", .type = CDC_OPT_INT, .flags = CDC_OPT_SECRET, .description = "pw"},
    {.key = "properties.", .type = CDC_OPT_PREFIX, .description = "passed through"},
    {0},
};

static cdc_kv_t kv_of(const char *const *pairs)
{
    cdc_kv_t kv = {0};
    for (int i = 0; pairs[i]; i += 2)
        cdc_kv_set(&kv, pairs[i], pairs[i + 1]);
    return kv;
}

static cdc_error_t *fails(const char *const *pairs)
{
    cdc_kv_t kv = kv_of(pairs);
    cdc_error_t *err = NULL;
    cdc_config_t *cfg = cdc_config_new(defs, "connector \"kafka\"", &kv, &err);
    cr_assert_null(cfg);
    cr_assert_not_null(err);
    cdc_kv_free(&kv);
    return err;
}

static void fails_with(const char *const *pairs, const char *detail)
{
    cdc_error_t *err = fails(pairs);
    cr_expect_str_eq(err->message, "invalid options for connector \"kafka\"");
    cr_expect_str_eq(err->detail, detail);
    cr_expect_str_eq(err->hint, "\"cdcflow describe kafka\" lists the options of connector "
                                "\"kafka\".");
    cdc_error_destroy(err);
}

Test(options, each_kind_of_mistake)
{
    fails_with((const char *[]){"topic", "t", "tpoic", "x", NULL},
               "unknown option \"tpoic\" (did you mean \"topic\"?)");
    fails_with((const char *[]){"topic", "t", "zzzzzzzz", "x", NULL},
               "unknown option \"zzzzzzzz\"");
    fails_with((const char *[]){NULL}, "missing required option \"topic\"");
    fails_with((const char *[]){"topic", "t", "rows", "many", NULL},
               "option \"rows\": expected an integer, found \"many\"");
    fails_with((const char *[]){"topic", "t", "rows", "0", NULL},
               "option \"rows\": value 0 is out of range [1, 100]");
    fails_with((const char *[]){"topic", "t", "fast", "yes", NULL},
               "option \"fast\": expected true or false, found \"yes\"");
    fails_with((const char *[]){"topic", "t", "scan.startup.mode", "earliest", NULL},
               "option \"scan.startup.mode\": expected one of earliest-offset, latest-offset; "
               "found \"earliest\"");
    fails_with((const char *[]){"topic", "t", "interval", "soon", NULL},
               "option \"interval\": expected a duration such as \"500 ms\", \"10 s\" or "
               "\"5 min\", found \"soon\"");
    fails_with((const char *[]){"topic", "t", "buffer", "big", NULL},
               "option \"buffer\": expected a size such as \"64 kb\" or \"10 mb\", found \"big\"");
    fails_with((const char *[]){"topic", "t", "ratio", "2", NULL},
               "option \"ratio\": value 2 is out of range [0, 1]");
}

Test(options, every_problem_at_once)
{
    fails_with((const char *[]){"tpoic", "x", "rows", "x", "fast", "1", NULL},
               "unknown option \"tpoic\" (did you mean \"topic\"?)\n"
               "option \"rows\": expected an integer, found \"x\"\n"
               "option \"fast\": expected true or false, found \"1\"\n"
               "missing required option \"topic\"");
}

Test(options, secrets_are_never_shown)
{
    cdc_error_t *err = fails((const char *[]){"topic", "t", "password", "hunter2", NULL});
    cr_expect_str_eq(err->detail, "option \"password\": expected an integer, found \"(secret)\"");
    char *all = cdc_error_format(err);
    cr_expect_null(strstr(all, "hunter2"));
    free(all);
    cdc_error_destroy(err);
}

Test(options, getters_and_defaults)
{
    cdc_kv_t kv = kv_of((const char *[]){
        "topic", "orders", "interval", "5 min", "properties.group.id", "g1", "properties.client.id",
        "c", "fast", "TRUE", "scan.startup.mode", "LATEST-OFFSET", NULL});
    cdc_error_t *err = NULL;
    cdc_config_t *cfg = cdc_config_new(defs, "connector \"kafka\"", &kv, &err);
    cr_assert_not_null(cfg, "%s", err ? err->detail : "");
    cr_expect_str_eq(cdc_config_str(cfg, "topic"), "orders");
    cr_expect_eq(cdc_config_int(cfg, "rows"), 10);
    cr_expect(cdc_config_bool(cfg, "fast"));
    cr_expect_eq(cdc_config_enum(cfg, "scan.startup.mode"), 1);
    cr_expect_eq(cdc_config_duration_ms(cfg, "interval"), 300000);
    cr_expect_eq(cdc_config_size(cfg, "buffer"), 65536);
    cr_expect_float_eq(cdc_config_double(cfg, "ratio"), 0.5, 1e-9);
    cr_expect(cdc_config_isset(cfg, "topic"));
    cr_expect_not(cdc_config_isset(cfg, "rows"));
    const cdc_kv_t *props = cdc_config_prefixed(cfg, "properties.");
    cr_expect_eq(props->n, 2);
    cr_expect_str_eq(cdc_kv_get(props, "group.id"), "g1");
    cr_expect_str_eq(cdc_kv_get(props, "client.id"), "c");
    cdc_config_destroy(cfg);
    cdc_kv_free(&kv);
}

static const cdc_option_def_t fmt_defs[] = {
    {.key = "ignore-parse-errors",
     .type = CDC_OPT_BOOL,
     .default_value = "false",
     .description = "skip"},
    {.key = "fail-on-missing-field",
     .type = CDC_OPT_BOOL,
     .default_value = "false",
     .description = "fail"},
    {0},
};

static void fmt_check(const cdc_config_t *cfg, cdc_buf_t *problems)
{
    if (cdc_config_bool(cfg, "ignore-parse-errors") &&
        cdc_config_bool(cfg, "fail-on-missing-field"))
        cdc_buf_puts(problems, "fail-on-missing-field and ignore-parse-errors shouldn't both be "
                               "true.\n");
}

Test(options, scopes_with_prefixes)
{
    cdc_option_scope_t scopes[] = {
        {.defs = defs, .prefix = "", .label = "connector \"kafka\""},
        {.defs = fmt_defs, .prefix = "value.json.", .label = "format \"json\"", .check = fmt_check},
    };
    cdc_kv_t kv =
        kv_of((const char *[]){"topic", "t", "value.json.ignore-parse-errors", "true", NULL});
    cdc_config_t *cfgs[2];
    cdc_error_t *err = NULL;
    cr_assert_eq(cdc_options_validate(scopes, 2, &kv, cfgs, &err), 0);
    cr_expect(cdc_config_bool(cfgs[1], "ignore-parse-errors"));
    cr_expect_str_eq(cdc_kv_get(cdc_config_given(cfgs[1]), "ignore-parse-errors"), "true");
    cdc_config_destroy(cfgs[0]);
    cdc_config_destroy(cfgs[1]);
    cdc_kv_free(&kv);

    kv = kv_of((const char *[]){"topic", "t", "value.json.ignore-parse-error", "true",
                                "value.json.fail-on-missing-field", "true", NULL});
    cr_assert_eq(cdc_options_validate(scopes, 2, &kv, cfgs, &err), -1);
    cr_expect_str_eq(err->message, "invalid options for format \"json\"");
    cr_expect_str_eq(err->detail, "unknown option \"value.json.ignore-parse-error\" (did you mean "
                                  "\"value.json.ignore-parse-errors\"?)");
    cdc_error_destroy(err);
    err = NULL;
    cdc_kv_free(&kv);

    kv = kv_of((const char *[]){"topic", "t", "value.json.ignore-parse-errors", "true",
                                "value.json.fail-on-missing-field", "true", NULL});
    cr_assert_eq(cdc_options_validate(scopes, 2, &kv, cfgs, &err), -1);
    cr_expect_str_eq(err->detail,
                     "fail-on-missing-field and ignore-parse-errors shouldn't both be true.");
    cdc_error_destroy(err);
    cdc_kv_free(&kv);
}

Test(options, parsers)
{
    int64_t v;
    cr_expect_eq(cdc_parse_duration_ms("500", &v), 0);
    cr_expect_eq(v, 500);
    cr_expect_eq(cdc_parse_duration_ms("1.5s", &v), 0);
    cr_expect_eq(v, 1500);
    cr_expect_eq(cdc_parse_duration_ms("2 h", &v), 0);
    cr_expect_eq(v, 7200000);
    cr_expect_eq(cdc_parse_duration_ms("-1 s", &v), -1);
    cr_expect_eq(cdc_parse_size("10 mb", &v), 0);
    cr_expect_eq(v, 10485760);
    cr_expect_eq(cdc_parse_int("12x", &v), -1);
    cr_expect_eq(cdc_parse_int("99999999999999999999", &v), -1);
    cr_expect_eq(cdc_edit_distance("topic", "tpoic"), 1);
    cr_expect_eq(cdc_edit_distance("kitten", "sitting"), 3);
    const char *cands[] = {"json", "csv", "debezium-json"};
    cr_expect_str_eq(cdc_closest("jsn", cands, 3), "json");
    cr_expect_null(cdc_closest("avro", cands, 3));
}

Test(errors, format_with_all_parts)
{
    cdc_error_t *err = cdc_error_new(CDC_ERR_PARSE, "bad \"%s\"", "x");
    cdc_error_set_detail(err, "line one\nline two");
    cdc_error_set_hint(err, "do this");
    cdc_error_add_context(err, "format \"json\"");
    cdc_error_add_context(err, "table \"t\"");
    char *s = cdc_error_format(err);
    cr_expect_str_eq(s, "error: bad \"x\"\n"
                        "DETAIL: line one\n"
                        "        line two\n"
                        "HINT: do this\n"
                        "CONTEXT: format \"json\"\n"
                        "         table \"t\"");
    free(s);
    cdc_error_destroy(err);
    cdc_error_destroy(NULL);
}

/* ---- ${VAR} expansion ------------------------------------------------------------------ */

static const char *fake_env(const char *name)
{
    if (strcmp(name, "HOST") == 0)
        return "db.local";
    if (strcmp(name, "EMPTY") == 0)
        return "";
    return NULL;
}

static char *expand_ok(const char *in)
{
    cdc_error_t *err = NULL;
    char *out = cdc_env_expand(in, fake_env, &err);
    cr_assert_not_null(out, "expanding \"%s\" failed: %s", in, err ? err->message : "?");
    return out;
}

Test(env_expand, references_defaults_and_escapes)
{
    const char *cases[][2] = {
        {"plain", "plain"},
        {"$5 and $x", "$5 and $x"},
        {"jdbc:postgresql://${HOST}:5432/db", "jdbc:postgresql://db.local:5432/db"},
        {"${HOST}${HOST}", "db.localdb.local"},
        {"${MISSING:-fallback}", "fallback"},
        {"${EMPTY:-fallback}", "fallback"},
        {"[${EMPTY}]", "[]"},
        {"${HOST:-x}", "db.local"},
        {"${MISSING:-}", ""},
        {"$${HOST}", "${HOST}"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *out = expand_ok(cases[i][0]);
        cr_expect_str_eq(out, cases[i][1], "input \"%s\"", cases[i][0]);
        free(out);
    }
}

Test(env_expand, unset_and_malformed_are_errors)
{
    const char *bad[][2] = {
        {"${MISSING}", "environment variable MISSING is not set"},
        {"x${HOST", "malformed environment reference at character 2"},
        {"${}", "malformed environment reference at character 1"},
        {"${9A}", "malformed environment reference"},
        {"${A-B}", "malformed environment reference"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cdc_error_t *err = NULL;
        char *out = cdc_env_expand(bad[i][0], fake_env, &err);
        cr_expect_null(out, "input \"%s\" expanded to \"%s\"", bad[i][0], out ? out : "");
        cr_assert_not_null(err);
        cr_expect(strstr(err->message, bad[i][1]) != NULL, "input \"%s\": message \"%s\"",
                  bad[i][0], err->message);
        cr_expect_not_null(err->hint);
        cdc_error_destroy(err);
    }
}
