/*
 * cdc_debezium.c — the 'debezium.*' options of the CDC sources: which are
 * acted on, refused with the equivalent option, or ignored with a warning
 * (cdc_debezium.h).
 */
#include "cdc_debezium.h"

#include <stdio.h>
#include <string.h>

#include "cdc_util.h"

static const char *snapshot_mode(const cdc_dbz_snapshot_t *snap, const char *value)
{
    for (int i = 0; value && snap[i].dbz; i++)
        if (strcmp(snap[i].dbz, value) == 0)
            return snap[i].mode;
    return NULL;
}

static void snapshot_problem(const cdc_config_t *cfg, const cdc_dbz_snapshot_t *snap,
                             const char *value, cdc_buf_t *problems)
{
    const char *mode = snapshot_mode(snap, value);
    if (!mode) {
        cdc_buf_printf(problems,
                       "%soption \"debezium.snapshot.mode\": '%s' has no equivalent here; "
                       "accepted: ",
                       problems->len ? "\n" : "", value);
        for (int i = 0; snap[i].dbz; i++)
            cdc_buf_printf(problems, "%s'%s' (= scan.startup.mode '%s')", i ? ", " : "",
                           snap[i].dbz, snap[i].mode);
        return;
    }
    const char *given = cdc_config_isset(cfg, "scan.startup.mode")
                            ? cdc_config_str(cfg, "scan.startup.mode")
                            : NULL;
    if (given && strcmp(given, mode) != 0)
        cdc_buf_printf(problems,
                       "%soption \"debezium.snapshot.mode\" = '%s' means scan.startup.mode "
                       "'%s', but 'scan.startup.mode' = '%s' is given too: keep one",
                       problems->len ? "\n" : "", value, mode, given);
}

/*
 * Debezium properties that change which rows or values a job reads: with no Debezium here,
 * ignoring one would silently give other rows than Flink CDC does, so they are refused. A key
 * ending in '.' is a prefix.
 */
static const char *const result_changing[] = {
    "snapshot.select.statement.overrides",
    "skipped.operations",
    "column.include.list",
    "column.exclude.list",
    "column.whitelist",
    "column.blacklist",
    "table.exclude.list",
    "database.exclude.list",
    "column.mask.",
    "column.truncate.",
    "converters",
    "transforms",
    NULL,
};

static bool changes_results(const char *key)
{
    for (int i = 0; result_changing[i]; i++) {
        size_t n = strlen(result_changing[i]);
        if (result_changing[i][n - 1] == '.' ? strncmp(key, result_changing[i], n) == 0
                                             : strcmp(key, result_changing[i]) == 0)
            return true;
    }
    return false;
}

void cdc_dbz_check(const cdc_config_t *cfg, const char *connector, const cdc_dbz_equiv_t *equiv,
                   const cdc_dbz_snapshot_t *snap, cdc_buf_t *problems)
{
    const cdc_kv_t *dbz = cdc_config_prefixed(cfg, "debezium.");
    for (int i = 0; dbz && i < dbz->n; i++) {
        const char *key = dbz->keys[i], *value = dbz->values[i];
        if (strcmp(key, "snapshot.mode") == 0) {
            snapshot_problem(cfg, snap, value, problems);
            continue;
        }
        if (strcmp(key, "binary.handling.mode") == 0) {
            bool known = false;
            for (int m = 0; cdc_binary_modes[m]; m++)
                known = known || strcmp(cdc_binary_modes[m], value) == 0;
            if (!known)
                cdc_buf_printf(problems,
                               "%soption \"debezium.binary.handling.mode\": expected bytes, "
                               "base64, base64-url-safe or hex, found '%s'",
                               problems->len ? "\n" : "", value);
            continue;
        }
        const char *option = NULL;
        for (int j = 0; equiv && equiv[j].dbz; j++)
            if (strcmp(equiv[j].dbz, key) == 0)
                option = equiv[j].option;
        if (!option && changes_results(key))
            cdc_buf_printf(problems,
                           "%soption \"debezium.%s\": it changes which rows or values Debezium "
                           "reads, and %s is not Debezium: not supported (filter or transform "
                           "in the query instead)",
                           problems->len ? "\n" : "", key, connector);
        else if (option)
            cdc_buf_printf(problems,
                           "%soption \"debezium.%s\": %s is not Debezium and has its own option "
                           "for this: use '%s' instead",
                           problems->len ? "\n" : "", key, connector, option);
        else
            fprintf(stderr,
                    "cdcflow: warning: %s: option \"debezium.%s\" is ignored (there is no "
                    "Debezium engine here; of the Debezium properties only snapshot.mode and "
                    "binary.handling.mode have an effect); accepted\n",
                    connector, key);
    }
}

int cdc_dbz_startup_mode(const cdc_config_t *cfg, const cdc_dbz_snapshot_t *snap,
                         const char *const *modes)
{
    const cdc_kv_t *dbz = cdc_config_prefixed(cfg, "debezium.");
    const char *mode = cdc_config_isset(cfg, "scan.startup.mode")
                           ? NULL
                           : snapshot_mode(snap, dbz ? cdc_kv_get(dbz, "snapshot.mode") : NULL);
    for (int i = 0; mode && modes[i]; i++)
        if (strcmp(modes[i], mode) == 0)
            return i;
    return cdc_config_enum(cfg, "scan.startup.mode");
}

cdc_binary_mode_t cdc_dbz_binary_mode(const cdc_config_t *cfg)
{
    const cdc_kv_t *dbz = cdc_config_prefixed(cfg, "debezium.");
    const char *v = dbz ? cdc_kv_get(dbz, "binary.handling.mode") : NULL;
    for (int m = 0; v && cdc_binary_modes[m]; m++)
        if (strcmp(cdc_binary_modes[m], v) == 0)
            return (cdc_binary_mode_t)m;
    return CDC_BINARY_BYTES;
}
