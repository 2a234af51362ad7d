/*
 * cdc_filter.c — evaluating a pushed-down filter (cdc_filter_t) on one value, for the
 * sources that accept filters (values, filesystem partitions).
 */
#include "cdc_plugin.h"

bool cdc_filter_passes(const cdc_type_t *t, const cdc_value_t *v, cdc_filter_op_t op,
                       const cdc_value_t *lit)
{
    bool is_null = cdc_value_is_null(v);
    if (op == CDC_FILTER_IS_NULL)
        return is_null;
    if (op == CDC_FILTER_IS_NOT_NULL)
        return !is_null;
    if (is_null)
        return false;
    int c = cdc_value_cmp(t, v, lit);
    if (c == 2)
        return op == CDC_FILTER_NE;
    switch (op) {
    case CDC_FILTER_EQ:
        return c == 0;
    case CDC_FILTER_NE:
        return c != 0;
    case CDC_FILTER_LT:
        return c < 0;
    case CDC_FILTER_LE:
        return c <= 0;
    case CDC_FILTER_GT:
        return c > 0;
    case CDC_FILTER_GE:
        return c >= 0;
    default:
        return false;
    }
}
