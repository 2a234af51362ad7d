/*
 * cdc_expr_time.c — Flink's date and time built-ins.
 */
#include "cdc_expr_int.h"

cdc_xnode_t *cdc_xtime_compile_special(cdc_xcompiler_t *cc, const cdc_sql_expr_t *ast,
                                       bool *handled)
{
    (void)cc;
    (void)ast;
    *handled = false;
    return NULL;
}

const cdc_xfunc_def_t cdc_xfuncs_time[] = {
    {NULL, 0, 0, NULL, 0, NULL},
};
