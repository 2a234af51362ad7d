/*
 * cdc_filter.c — what sources that accept pushdowns share (values, filesystem):
 * evaluating a pushed-down filter (cdc_filter_t) on one value, keeping its literal,
 * narrowing a projection and the row type it produces.
 */
#include <stdlib.h>
#include <string.h>

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

void cdc_filter_keep_literal(cdc_arena_t *arena, const cdc_type_t *t, const cdc_filter_t *f,
                             cdc_value_t *out)
{
    memset(out, 0, sizeof(*out));
    out->flags = CDC_V_NULL;
    if (f->op != CDC_FILTER_IS_NULL && f->op != CDC_FILTER_IS_NOT_NULL)
        cdc_value_keep(arena, t, &f->value, out);
}

int cdc_projection_narrow(int **proj, int *nproj, const int *fields, int n)
{
    if (n < 0 || (n > 0 && !fields))
        return -1;
    for (int k = 0; k < n; k++)
        if (fields[k] < 0 || fields[k] >= *nproj)
            return -1;
    int *next = cdc_xmalloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (int k = 0; k < n; k++)
        next[k] = (*proj)[fields[k]];
    free(*proj);
    *proj = next;
    *nproj = n;
    return 0;
}

cdc_type_t *cdc_type_project(const cdc_type_t *row, const int *proj, int n)
{
    cdc_type_t *t = cdc_type_new_row();
    t->nullable = row->nullable;
    for (int k = 0; k < n; k++)
        cdc_type_row_add(t, row->names[proj[k]], cdc_type_copy(row->children[proj[k]]));
    return t;
}
