/*
 * pgc_schema_probe.c — drives the postgres-cdc reader the way the runtime does around schema
 * changes, for tests/integration/postgres_cdc_schema.sh (the end-to-end handling in
 * `cdcflow run` is the runtime's): opens the source on a table with the declared columns,
 * polls until the stream is idle, prints each row and each change the reader reports
 * (CDC_POLL_SCHEMA: "-- schema change: <table> at <position>: <items>"), and commits after
 * every poll. With --reopen, after a change's commit it closes the reader and opens a new one
 * with the change's columns declared (as a re-plan under 'evolve' does), resuming from that
 * commit.
 *
 * usage: pgc_schema_probe PORT SLOT 'COLS' [--state-dir DIR] [--reopen]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_plugin.h"
#include "exec/cdc_runtime.h"

typedef struct probe {
    cdc_config_t *cfg;
    cdc_type_t *schema;
    cdc_source_t *src;
    cdc_reader_t *reader;
} probe_t;

static void probe_close(probe_t *p)
{
    if (p->reader)
        p->reader->ops->close(p->reader);
    if (p->src)
        p->src->ops->destroy(p->src);
    cdc_config_destroy(p->cfg);
    cdc_type_destroy(p->schema);
    memset(p, 0, sizeof(*p));
}

static int probe_open(probe_t *p, const char *port, const char *slot, cdc_type_t *schema,
                      cdc_error_t **err)
{
    const cdc_connector_factory_t *f = cdc_registry_connector("postgres-cdc");
    cdc_kv_t kv = {0};
    cdc_kv_set(&kv, "hostname", "127.0.0.1");
    cdc_kv_set(&kv, "port", port);
    cdc_kv_set(&kv, "username", "postgres");
    cdc_kv_set(&kv, "database-name", "shop");
    cdc_kv_set(&kv, "schema-name", "public");
    cdc_kv_set(&kv, "table-name", "t");
    cdc_kv_set(&kv, "slot.name", slot);
    cdc_kv_set(&kv, "scan.startup.mode", "latest-offset");
    p->schema = schema;
    p->cfg = cdc_config_new(f->options, "connector \"postgres-cdc\"", &kv, err);
    cdc_kv_free(&kv);
    if (!p->cfg)
        return -1;
    cdc_table_ctx_t ctx = {.name = "probe.t", .schema = schema, .cfg = p->cfg, .parallelism = 1};
    if (f->source_new(&ctx, &p->src, err) < 0)
        return -1;
    return p->src->ops->open_reader(p->src, 0, 1, &p->reader, err);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: pgc_schema_probe PORT SLOT 'COLS' [--state-dir DIR] [--reopen]\n");
        return 2;
    }
    bool reopen = false;
    for (int i = 4; i < argc; i++) {
        if (strcmp(argv[i], "--reopen") == 0)
            reopen = true;
        else if (strcmp(argv[i], "--state-dir") == 0 && i + 1 < argc)
            cdc_runtime_set_state_dir(argv[++i]);
    }
    cdc_error_t *err = NULL;
    char *row_text = cdc_strdup_printf("ROW<%s>", argv[3]);
    cdc_type_t *schema = cdc_type_parse(row_text, &err);
    free(row_text);
    probe_t p = {0};
    if (!schema || probe_open(&p, argv[1], argv[2], schema, &err) < 0)
        goto fail;
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    cdc_buf_t out = {0};
    int idle = 0;
    while (idle < 20) { /* 20 empty polls of up to 100 ms: the stream is read */
        cdc_batch_reset(&batch);
        int rc = p.reader->ops->poll(p.reader, &batch, 100, &err);
        if (rc == CDC_POLL_ERROR)
            goto fail;
        for (uint32_t i = 0; i < batch.n; i++) {
            cdc_row_print(&out, &batch.rows[i], p.src->produced);
            cdc_buf_putc(&out, '\n');
        }
        const cdc_schema_change_t *change =
            rc == CDC_POLL_SCHEMA ? p.reader->ops->schema_change(p.reader) : NULL;
        if (change) {
            cdc_buf_printf(&out, "-- schema change: %s at %s: ", change->table, change->position);
            cdc_schema_change_describe(change, &out);
            cdc_buf_putc(&out, '\n');
        }
        fputs(cdc_buf_cstr(&out), stdout);
        fflush(stdout);
        cdc_buf_clear(&out);
        idle = batch.n == 0 && !change ? idle + 1 : 0;
        if (p.reader->ops->commit && p.reader->ops->commit(p.reader, &err) < 0)
            goto fail;
        if (change && reopen && change->after) {
            cdc_type_t *next = cdc_type_copy(change->after);
            probe_close(&p);
            printf("-- reopened\n");
            if (probe_open(&p, argv[1], argv[2], next, &err) < 0)
                goto fail;
        }
    }
    cdc_batch_free(&batch);
    cdc_buf_free(&out);
    probe_close(&p);
    return 0;
fail:
    fprintf(stderr, "pgc_schema_probe: %s\n", err ? err->message : "failed");
    if (err && err->detail)
        fprintf(stderr, "  detail: %s\n", err->detail);
    cdc_error_destroy(err);
    probe_close(&p);
    return 1;
}
