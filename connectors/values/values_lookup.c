/*
 * values_lookup.c — the "values" connector as a lookup table (`JOIN v FOR
 * SYSTEM_TIME AS OF ...`): its +I/+U data rows matched by key with a linear
 * scan (test data is small), whatever the partitions, filters or limit
 * pushed for scans.
 */
#include "values_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- lookups (LookupTableSource): the data rows, matched by a linear scan ------------------ */

typedef struct values_lookup_s {
    cdc_lookup_t base;
    values_source_t *src;
    int *keys; /* physical columns */
    int nkeys;
} values_lookup_t;

static bool lookup_matches(const values_lookup_t *lk, const cdc_row_t *row, const cdc_value_t *keys)
{
    if (row->kind != CDC_INSERT && row->kind != CDC_UPDATE_AFTER)
        return false;
    for (int k = 0; k < lk->nkeys; k++) {
        const cdc_value_t *v = &row->values[lk->keys[k]];
        if (cdc_value_is_null(v) ||
            cdc_value_cmp(lk->src->schema->children[lk->keys[k]], v, &keys[k]) != 0)
            return false;
    }
    return true;
}

static int vl_lookup(cdc_lookup_t *base, const cdc_value_t *keys, cdc_batch_t *out,
                     cdc_error_t **err)
{
    (void)err;
    values_lookup_t *lk = (values_lookup_t *)base;
    const values_source_t *src = lk->src;
    uint32_t arity = (uint32_t)src->schema->nchildren;
    for (int i = 0; i < src->nrows; i++) {
        if (!lookup_matches(lk, &src->rows[i], keys))
            continue;
        cdc_row_t *row = cdc_batch_add(out, CDC_INSERT, arity);
        memcpy(row->values, src->rows[i].values, sizeof(cdc_value_t) * arity);
    }
    return 0;
}

static void vl_close(cdc_lookup_t *base)
{
    values_lookup_t *lk = (values_lookup_t *)base;
    if (!lk)
        return;
    free(lk->keys);
    free(lk);
}

static const cdc_lookup_ops_t values_lookup_ops = {
    .lookup = vl_lookup,
    .close = vl_close,
};

int values_source_open_lookup(cdc_source_t *base, const int *key_fields, int nkeys,
                              cdc_lookup_t **out, cdc_error_t **err)
{
    values_source_t *src = (values_source_t *)base;
    for (int k = 0; k < nkeys; k++) {
        const cdc_type_t *t = src->schema->children[key_fields[k]];
        if (t->root == CDC_T_ARRAY || cdc_type_is_map_like(t) || t->root == CDC_T_ROW)
            return cdc_error_set(err, CDC_ERR_PLAN,
                                 "values: column \"%s\" of table \"%s\" cannot be a lookup key "
                                 "(ARRAY, MAP, MULTISET and ROW values are not compared)",
                                 src->schema->names[key_fields[k]], src->name);
    }
    values_lookup_t *lk = cdc_xcalloc(1, sizeof(*lk));
    lk->base.ops = &values_lookup_ops;
    lk->src = src;
    lk->nkeys = nkeys;
    lk->keys = cdc_xcalloc((size_t)nkeys + 1, sizeof(int));
    memcpy(lk->keys, key_fields, sizeof(int) * (size_t)nkeys);
    *out = &lk->base;
    return 0;
}
