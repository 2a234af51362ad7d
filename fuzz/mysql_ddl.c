/*
 * fuzz/mysql_ddl.c — libFuzzer target of the mysql-binlog format's DDL parser
 * (formats/mysql_binlog/binlog_ddl.c): the input is one statement, parsed with
 * and without a table's current columns; every op must be well formed (a table
 * name, an ALTER's edits). Seeds: tests/data/mysql_binlog/ddl.sql's lines.
 * CI builds it with -DCDC_FUZZ=ON (scripts/fuzz.sh).
 */
#include <stdint.h>
#include <stdlib.h>

#include "cdc_plugin.h"
#include "../formats/mysql_binlog/binlog_int.h"

static cdc_type_t *cols;

static const cdc_type_t *lookup(void *ctx, const char *table)
{
    (void)ctx;
    (void)table;
    return cols;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!cols)
        cols = cdc_type_parse("ROW<id INT NOT NULL, a VARCHAR(10), b BIGINT>", NULL);
    bl_ddl_t ddl = {0};
    for (int pass = 0; pass < 2; pass++) {
        int n = bl_ddl_parse((const char *)data, size, "db", &ddl, pass ? lookup : NULL, NULL);
        for (int i = 0; i < n; i++) {
            const bl_ddl_op_t *op = &ddl.ops[i];
            if (!op->table || (op->kind == BL_DDL_ALTER && !op->edits))
                abort();
            if (op->kind == BL_DDL_ALTER && pass) {
                cdc_error_t *err = NULL;
                cdc_type_t *after = cdc_schema_change_apply(op->edits, cols, &err);
                if (!after && !err)
                    abort();
                cdc_type_destroy(after);
                cdc_error_destroy(err);
            }
        }
    }
    bl_ddl_free(&ddl);
    return 0;
}
