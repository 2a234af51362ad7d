/*
 * postgres_cdc_schema.c — schema changes of the captured table in the
 * postgres-cdc reader: the poll ends at a change the pgoutput decoder met
 * (a Relation whose columns differ, a Truncate), the change's history, and the
 * replay of the transaction that held it.
 *
 * pgoutput sends a Relation message before the first row of a table in a
 * session and again after its columns changed, inside the transaction that
 * changed them. The commit the runtime makes after a change can confirm only
 * the end of the last whole transaction, so a new reader (a re-plan, a
 * restart) replays the transaction of the change from its Begin. Two things
 * make that replay right:
 *  - the history: the table's last Relation message is kept (in the state
 *    file with --state-dir, and in this process for a re-plan) and fed to a
 *    new reader's decoder before the stream starts, so that the first
 *    Relation differing from it is reported (a DDL made while cdcflow was
 *    stopped) and one equal to it is not (the change already handled);
 *  - the skip mark: the transaction of the change (its final LSN) and the
 *    number of row messages (Insert, Update, Delete, Truncate) in it before
 *    the change (the WAL positions of the stream's messages inside a
 *    transaction do not tell them apart: a Relation's is 0). Replaying that
 *    transaction, those row messages and the Relation messages among them
 *    (the old relation's, which a new session sends first) are skipped: their
 *    rows were written before the change, and decoded again with the new
 *    columns they would overwrite what the sink did for the change (a new
 *    column's DEFAULT) with NULL.
 * The state file's lines: "schema\trelation\t<hex of the Relation message>"
 * and "schema\tskip\t<final LSN>\t<row messages before the change>".
 */
#include <pthread.h>

#include "pgc_int.h"

#include <stdio.h>
#include <string.h>

static void fill_defaults(pgc_reader_t *r, cdc_schema_change_t *c);

/* ---- what this process remembers per slot (a re-plan opens a new source and reader) ---------- */

typedef struct pgc_sc_mem {
    char *slot;
    cdc_buf_t hist;
    uint64_t skip_txn, skip_rows;
    struct pgc_sc_mem *next;
} pgc_sc_mem_t;

static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;
static pgc_sc_mem_t *mem_list;

static pgc_sc_mem_t *mem_find(const char *slot, bool create)
{
    for (pgc_sc_mem_t *m = mem_list; m; m = m->next)
        if (strcmp(m->slot, slot) == 0)
            return m;
    if (!create)
        return NULL;
    pgc_sc_mem_t *m = cdc_xcalloc(1, sizeof(*m));
    m->slot = cdc_xstrdup(slot);
    m->next = mem_list;
    mem_list = m;
    return m;
}

static const char *slot_of(const pgc_reader_t *r)
{
    return pgc_opt(r->src->cfg, "slot.name");
}

/* ---- messages ------------------------------------------------------------------------------- */

static uint64_t be64(const char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | (uint8_t)p[i];
    return v;
}

/* Whether a Relation message (protocol 1) names the captured table. */
static bool names_table(const pgc_reader_t *r, const char *msg, size_t len)
{
    const char *nsp = msg + 5, *end = msg + len;
    if (len < 7)
        return false;
    const char *z = memchr(nsp, 0, (size_t)(end - nsp));
    if (!z || z + 1 >= end)
        return false;
    const char *name = z + 1;
    const char *z2 = memchr(name, 0, (size_t)(end - name));
    if (!z2)
        return false;
    const char *label = r->src->table_label;
    size_t nl = (size_t)(z - nsp);
    return strncmp(label, nsp, nl) == 0 && label[nl] == '.' && strcmp(label + nl + 1, name) == 0;
}

bool pgc_schema_skip(pgc_reader_t *r, const char *msg, size_t len)
{
    if (len < 1)
        return false;
    char type = msg[0];
    if (type == 'B' && len >= 9) {
        r->txn_final = be64(msg + 1);
        r->txn_rows = 0;
        return false;
    }
    if (type == 'C') {
        r->txn_final = 0;
        return false;
    }
    bool row = type == 'I' || type == 'U' || type == 'D' || type == 'T';
    bool skip = (row || type == 'R') && r->skip_txn && r->txn_final == r->skip_txn &&
                r->txn_rows < r->skip_rows;
    r->txn_rows += row;
    return skip;
}

void pgc_schema_after(pgc_reader_t *r, const char *msg, size_t len, bool met)
{
    if (len > 0 && msg[0] == 'R' && names_table(r, msg, len) &&
        (r->hist.len != len || memcmp(r->hist.data, msg, len) != 0)) {
        cdc_buf_clear(&r->hist);
        cdc_buf_append(&r->hist, msg, len);
        r->schema_dirty = true;
    }
    if (!met)
        return;
    const cdc_schema_change_t *const *changes;
    const uint32_t *at;
    if (r->deser->ops->schema_changes(r->deser, &changes, &at) < 1)
        return;
    cdc_schema_change_free(r->change);
    r->change = cdc_schema_change_copy(changes[0]); /* one message: one change of one table */
    fill_defaults(r, r->change);
    r->change_ready = true;
    /* a replay of this transaction skips what came before the change; a Truncate is itself
       done once it is committed, a Relation is compared with the history again */
    r->skip_txn = r->txn_final;
    r->skip_rows = r->txn_rows; /* (a Truncate counts itself: it is done) */
    r->schema_dirty = true;
}

/*
 * A column's DEFAULT as PostgreSQL prints it, as a SQL literal when it is one ("5",
 * "'x'::text" -> "'x'", "(-1)" -> "-1"), else its text (sinks refuse to copy an
 * expression); NULL when the column has none. pgoutput carries no DEFAULT: an added column's
 * is read from the catalog (as it is now: the DDL is the latest one on the column, nearly
 * always).
 */
static char *column_default(PGconn *c, uint32_t relid, const char *column)
{
    char rel[16];
    snprintf(rel, sizeof(rel), "%u", relid);
    const char *params[2] = {rel, column};
    PGresult *res = PQexecParams(c,
                                 "SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d JOIN "
                                 "pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = "
                                 "d.adnum WHERE a.attrelid = $1 AND a.attname = $2 AND NOT "
                                 "a.attisdropped AND a.atthasdef",
                                 2, NULL, params, NULL, NULL, 0);
    char *out = NULL;
    if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1) {
        const char *e = PQgetvalue(res, 0, 0);
        size_t n = strlen(e);
        if (n > 2 && e[0] == '(' && e[n - 1] == ')') { /* (-1) */
            e++;
            n -= 2;
        }
        const char *cast = NULL;
        if (e[0] == '\'') { /* 'x'::type: the quoted part, if the rest is only the cast */
            const char *q = e + 1;
            while (q < e + n && !(q[0] == '\'' && (q + 1 >= e + n || q[1] != '\'')))
                q += q[0] == '\'' ? 2 : 1;
            if (q < e + n && (q + 1 == e + n || strncmp(q + 1, "::", 2) == 0))
                cast = q + 1;
        }
        out = cast ? cdc_xstrndup(e, (size_t)(cast - e)) : cdc_xstrndup(e, n);
    }
    PQclear(res);
    return out;
}

/* Gives the change's added columns their DEFAULTs from the catalog (a connection of its own:
   the reader's may have a chunk in flight). */
static void fill_defaults(pgc_reader_t *r, cdc_schema_change_t *c)
{
    bool any = false;
    for (int i = 0; i < c->nitems; i++)
        any |= c->items[i].kind == CDC_SC_ADD_COLUMN && !c->items[i].default_sql;
    if (!any)
        return;
    cdc_error_t *err = NULL;
    PGconn *conn = pgc_connect(r->src, false, &err);
    if (!conn) {
        cdc_log(CDC_LOG_WARN, NULL, c->table, "the added columns' DEFAULTs are not known: %s",
                err ? err->message : "?");
        cdc_error_destroy(err);
        return;
    }
    for (int i = 0; i < c->nitems; i++)
        if (c->items[i].kind == CDC_SC_ADD_COLUMN && !c->items[i].default_sql)
            c->items[i].default_sql = column_default(conn, r->relid, c->items[i].column);
    PQfinish(conn);
}

const cdc_schema_change_t *pgc_schema_change(cdc_reader_t *base)
{
    pgc_reader_t *r = (pgc_reader_t *)base;
    return r->change_ready ? r->change : NULL;
}

/* ---- history -------------------------------------------------------------------------------- */

void pgc_schema_committed(pgc_reader_t *r, uint64_t confirmed)
{
    r->change_ready = false;
    if (r->skip_txn && confirmed >= r->skip_txn) {
        r->skip_txn = r->skip_rows = 0; /* that transaction is whole downstream */
        r->schema_dirty = true;
    }
    pthread_mutex_lock(&mem_lock);
    pgc_sc_mem_t *m = mem_find(slot_of(r), true);
    cdc_buf_clear(&m->hist);
    cdc_buf_append(&m->hist, r->hist.data, r->hist.len);
    m->skip_txn = r->skip_txn;
    m->skip_rows = r->skip_rows;
    pthread_mutex_unlock(&mem_lock);
}

void pgc_schema_save(const pgc_reader_t *r, cdc_buf_t *b)
{
    if (r->hist.len) {
        cdc_buf_puts(b, "schema\trelation\t");
        for (size_t i = 0; i < r->hist.len; i++)
            cdc_buf_printf(b, "%02x", (uint8_t)r->hist.data[i]);
        cdc_buf_putc(b, '\n');
    }
    if (r->skip_txn)
        cdc_buf_printf(b, "schema\tskip\t%X/%X\t%llu\n", (unsigned)(r->skip_txn >> 32),
                       (unsigned)r->skip_txn, (unsigned long long)r->skip_rows);
}

int pgc_schema_load(pgc_reader_t *r, const char *text, cdc_error_t **err)
{
    for (const char *line = strstr(text, "\nschema\t"); line; line = strstr(line, "\nschema\t")) {
        line += 8;
        size_t len = strcspn(line, "\n");
        unsigned a, b;
        unsigned long long n;
        bool ok = true;
        if (strncmp(line, "relation\t", 9) == 0) {
            cdc_buf_clear(&r->hist);
            for (size_t i = 9; ok && i + 1 < len; i += 2) {
                int hi = cdc_hex_digit(line[i]), lo = cdc_hex_digit(line[i + 1]);
                ok = hi >= 0 && lo >= 0;
                cdc_buf_putc(&r->hist, (char)(hi << 4 | lo));
            }
            ok = ok && (len - 9) % 2 == 0 && r->hist.len > 0 && r->hist.data[0] == 'R';
        } else if (sscanf(line, "skip\t%X/%X\t%llu", &a, &b, &n) == 3) {
            r->skip_txn = (uint64_t)a << 32 | b;
            r->skip_rows = n;
        } else {
            ok = false;
        }
        if (!ok) {
            cdc_error_set(err, CDC_ERR_IO,
                          "postgres-cdc: %s: a malformed schema line: \"schema\t%.*s\"",
                          r->state_origin, (int)(len > 80 ? 80 : len), line);
            cdc_error_set_hint(*err, "the file was changed by hand or cut; remove the line to "
                                     "forget the table's column history (a change made while "
                                     "cdcflow was stopped is then not reported)");
            return -1;
        }
    }
    return 0;
}

int pgc_schema_prime(pgc_reader_t *r, cdc_error_t **err)
{
    if (!r->src->ckpt_file || !r->hist.len) { /* no state file: what this process remembers */
        pthread_mutex_lock(&mem_lock);
        const pgc_sc_mem_t *m = mem_find(slot_of(r), false);
        if (m && !r->hist.len) {
            cdc_buf_append(&r->hist, m->hist.data, m->hist.len);
            r->skip_txn = m->skip_txn;
            r->skip_rows = m->skip_rows;
        }
        pthread_mutex_unlock(&mem_lock);
    }
    if (!r->hist.len)
        return 0;
    cdc_batch_t none;
    cdc_batch_init(&none);
    int rc = pgc_feed(r, r->hist.data, r->hist.len, &none, 0, false, err);
    cdc_batch_free(&none);
    return rc < 0 ? -1 : 0;
}

/* Appends a big-endian integer of n bytes. */
static void put_be(cdc_buf_t *b, uint32_t v, int n)
{
    for (int i = n - 1; i >= 0; i--)
        cdc_buf_putc(b, (char)(v >> (8 * i)));
}

int pgc_schema_seed(pgc_reader_t *r, cdc_error_t **err)
{
    if (r->hist.len)
        return 0; /* the state file, or this process, has the table's last Relation */
    /* only for a stream that starts now: a slot kept from before may be behind a DDL the
       catalog already shows */
    const char *slot = pgc_opt(r->src->cfg, "slot.name");
    char *init = cdc_strdup_printf("%s_init", slot);
    const char *params[2] = {slot, init};
    PGresult *res =
        pgc_query(r->meta, "SELECT 1 FROM pg_replication_slots WHERE slot_name IN ($1, $2)", 2,
                  params, "looking up the replication slot", err);
    free(init);
    if (!res)
        return -1;
    bool fresh = PQntuples(res) == 0;
    PQclear(res);
    if (!fresh)
        return 0;
    /* the Relation pgoutput would send for the table as the catalog has it now */
    const char *schema = pgc_opt(r->src->cfg, "schema-name");
    const char *table = pgc_opt(r->src->cfg, "table-name");
    cdc_buf_putc(&r->hist, 'R');
    put_be(&r->hist, r->relid, 4);
    cdc_buf_append(&r->hist, schema, strlen(schema) + 1);
    cdc_buf_append(&r->hist, table, strlen(table) + 1);
    cdc_buf_putc(&r->hist, r->ident);
    put_be(&r->hist, (uint32_t)r->ncols, 2);
    for (int i = 0; i < r->ncols; i++) {
        cdc_buf_putc(&r->hist, r->cols[i].key ? 1 : 0);
        cdc_buf_append(&r->hist, r->cols[i].name, strlen(r->cols[i].name) + 1);
        put_be(&r->hist, r->cols[i].oid, 4);
        put_be(&r->hist, (uint32_t)r->cols[i].typmod, 4);
    }
    r->schema_dirty = true;
    cdc_batch_t none;
    cdc_batch_init(&none);
    int rc = pgc_feed(r, r->hist.data, r->hist.len, &none, 0, false, err);
    cdc_batch_free(&none);
    return rc < 0 ? -1 : 0;
}
