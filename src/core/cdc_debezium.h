/*
 * cdc_debezium.h — the 'debezium.*' options of the CDC sources (mysql-cdc,
 * postgres-cdc). Flink CDC hands them to the Debezium engine it embeds;
 * here there is no Debezium, so each key is one of: acted on
 * (snapshot.mode, mapped onto scan.startup.mode; binary.handling.mode),
 * refused with the option that does the same (a key the source has its own
 * option for, which would otherwise be silently overridden), refused as
 * changing the rows read (column filters, masks, snapshot overrides,
 * skipped operations), or accepted with a warning naming it as ignored.
 */
#ifndef CDC_DEBEZIUM_H
#define CDC_DEBEZIUM_H

#include "cdc_options.h"
#include "cdc_util.h"
#include "cdc_value_text.h"

/** A Debezium property (without "debezium.") and the source's option that does the same. */
typedef struct cdc_dbz_equiv_s {
    const char *dbz, *option;
} cdc_dbz_equiv_t;

/** A Debezium snapshot.mode value and the scan.startup.mode it is (NULL-terminated list). */
typedef struct cdc_dbz_snapshot_s {
    const char *dbz, *mode;
} cdc_dbz_snapshot_t;

/**
 * Checks cfg's 'debezium.*' keys, one line per problem into problems:
 * snapshot.mode must be in snap (and agree with a scan.startup.mode given too),
 * binary.handling.mode one of cdc_binary_modes; a key of equiv (NULL-terminated)
 * is refused naming the option to set instead, a key that changes the rows read is
 * refused; any other key is accepted with a warning on stderr naming it as ignored. connector names
 * the source in messages.
 */
void cdc_dbz_check(const cdc_config_t *cfg, const char *connector, const cdc_dbz_equiv_t *equiv,
                   const cdc_dbz_snapshot_t *snap, cdc_buf_t *problems);

/**
 * The scan.startup.mode to follow, as an index into modes (the option's enum
 * values): the option when given, else what 'debezium.snapshot.mode' maps to
 * in snap, else the option's default.
 */
int cdc_dbz_startup_mode(const cdc_config_t *cfg, const cdc_dbz_snapshot_t *snap,
                         const char *const *modes);

/** 'debezium.binary.handling.mode' (bytes when unset; cdc_dbz_check validated it). */
cdc_binary_mode_t cdc_dbz_binary_mode(const cdc_config_t *cfg);

#endif
