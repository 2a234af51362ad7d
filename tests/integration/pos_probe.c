/*
 * pos_probe.c — drives a source reader the way the stateful runtime drives one whose
 * positions the job's state keeps (cdc_reader_ops_t.positions / set_position_store), for
 * tests/integration/positions_mysql_cdc.sh and positions_postgres_cdc.sh: opens the source
 * through the registry with the options given, optionally with a store that loads the
 * "key\tposition" lines of a file, polls (a few rows at a time) and prints every row. With
 * --rows N it stops at the first transaction boundary (at_boundary) after N rows, writes the
 * reader's positions() to the --save file and commits upstream (unless --no-commit: the
 * upstream record stays behind the saved one); otherwise it stops after --idle-ms without
 * rows (then saving too, when --save is given).
 *
 * usage: pos_probe CONNECTOR 'COLS' [--rows N] [--save FILE] [--store FILE] [--no-commit]
 *                  [--idle-ms MS] [--parallelism P] [key=value ...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_plugin.h"

typedef struct probe_args {
    const char *connector, *cols, *save, *store;
    long rows, idle_ms;
    int parallelism;
    bool no_commit;
    cdc_kv_t opts;
} probe_args_t;

/* The store: the file's lines (none when it does not exist). */
static int store_load(void *ctx, cdc_buf_t *out, cdc_error_t **err)
{
    cdc_buf_clear(out);
    return cdc_file_read_all(ctx, out, err) < 0 ? -1 : 0;
}

static int parse_args(int argc, char **argv, probe_args_t *a)
{
    memset(a, 0, sizeof(*a));
    a->idle_ms = 3000;
    a->parallelism = 1;
    if (argc < 3)
        return -1;
    a->connector = argv[1];
    a->cols = argv[2];
    for (int i = 3; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        if (strcmp(argv[i], "--no-commit") == 0) {
            a->no_commit = true;
        } else if (i + 1 < argc && strcmp(argv[i], "--rows") == 0) {
            a->rows = atol(argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "--save") == 0) {
            a->save = argv[++i];
        } else if (i + 1 < argc && strcmp(argv[i], "--store") == 0) {
            a->store = argv[++i];
        } else if (i + 1 < argc && strcmp(argv[i], "--idle-ms") == 0) {
            a->idle_ms = atol(argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "--parallelism") == 0) {
            a->parallelism = atoi(argv[++i]);
        } else if (eq && argv[i][0] != '-') {
            char *k = cdc_xstrndup(argv[i], (size_t)(eq - argv[i]));
            cdc_kv_set(&a->opts, k, eq + 1);
            free(k);
        } else {
            return -1;
        }
    }
    return 0;
}

/* positions() into the save file (when given), then the upstream commit unless told not to. */
static int save_positions(const probe_args_t *a, cdc_reader_t *reader, cdc_error_t **err)
{
    cdc_buf_t pos = {0};
    int rc = reader->ops->positions(reader, &pos, err);
    if (rc == 0 && a->save)
        rc = cdc_file_write_atomic(a->save, pos.data ? pos.data : "", pos.len, err);
    cdc_buf_free(&pos);
    if (rc == 0 && !a->no_commit && reader->ops->commit)
        rc = reader->ops->commit(reader, err);
    return rc;
}

static int run(const probe_args_t *a, cdc_error_t **err)
{
    const cdc_connector_factory_t *f = cdc_registry_connector(a->connector);
    if (!f)
        return cdc_error_set(err, CDC_ERR_OPTION, "no connector \"%s\"", a->connector);
    char *row_text = cdc_strdup_printf("ROW<%s>", a->cols);
    cdc_type_t *schema = cdc_type_parse(row_text, err);
    free(row_text);
    cdc_config_t *cfg = schema ? cdc_config_new(f->options, "probe", &a->opts, err) : NULL;
    cdc_source_t *src = NULL;
    cdc_reader_t *reader = NULL;
    int rc = -1;
    cdc_table_ctx_t ctx = {
        .name = "probe.t", .schema = schema, .cfg = cfg, .parallelism = a->parallelism};
    if (!cfg || f->source_new(&ctx, &src, err) < 0 ||
        src->ops->open_reader(src, 0, a->parallelism, &reader, err) < 0)
        goto done;
    cdc_position_store_t store = {.load = store_load, .ctx = (void *)a->store};
    if (a->store)
        reader->ops->set_position_store(reader, &store);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    cdc_buf_t out = {0};
    long rows = 0;
    int64_t last = cdc_mono_ms();
    for (;;) {
        cdc_batch_reset(&batch);
        int prc = reader->ops->poll(reader, &batch, 2, err);
        if (prc == CDC_POLL_ERROR)
            break;
        for (uint32_t i = 0; i < batch.n; i++) {
            cdc_row_print(&out, &batch.rows[i], src->produced);
            cdc_buf_putc(&out, '\n');
        }
        fputs(cdc_buf_cstr(&out), stdout);
        fflush(stdout);
        cdc_buf_clear(&out);
        rows += batch.n;
        if (batch.n)
            last = cdc_mono_ms();
        bool boundary = !reader->ops->at_boundary || reader->ops->at_boundary(reader);
        if (prc == CDC_POLL_FLUSH) { /* the runtime's barrier: positions, then the commit */
            cdc_buf_t scratch = {0};
            int frc = reader->ops->positions(reader, &scratch, err);
            cdc_buf_free(&scratch);
            if (frc < 0 || (reader->ops->commit && reader->ops->commit(reader, err) < 0))
                break;
        }
        bool stop = (a->rows > 0 && rows >= a->rows && boundary) ||
                    cdc_mono_ms() - last > a->idle_ms || prc == CDC_POLL_END;
        if (stop) {
            rc = a->save || a->rows > 0 ? save_positions(a, reader, err) : 0;
            break;
        }
    }
    cdc_batch_free(&batch);
    cdc_buf_free(&out);
done:
    if (reader)
        reader->ops->close(reader);
    if (src)
        src->ops->destroy(src);
    cdc_config_destroy(cfg);
    cdc_type_destroy(schema);
    return rc;
}

int main(int argc, char **argv)
{
    probe_args_t a;
    if (parse_args(argc, argv, &a) < 0) {
        fprintf(stderr, "usage: pos_probe CONNECTOR 'COLS' [--rows N] [--save FILE] [--store "
                        "FILE] [--no-commit] [--idle-ms MS] [--parallelism P] [key=value ...]\n");
        return 2;
    }
    cdc_error_t *err = NULL;
    int rc = run(&a, &err);
    if (rc < 0) {
        char *m = err ? cdc_error_format(err) : NULL;
        fprintf(stderr, "pos_probe: %s\n", m ? m : "failed");
        free(m);
    }
    cdc_error_destroy(err);
    cdc_kv_free(&a.opts);
    return rc < 0 ? 1 : 0;
}
