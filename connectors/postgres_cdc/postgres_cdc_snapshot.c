/*
 * postgres_cdc_snapshot.c — the initial snapshot of the `postgres-cdc` source
 * (see postgres_cdc.c's header for the design): snapshot rows as synthetic
 * pgoutput messages decoded like the stream's; the chunked, lock-free
 * snapshot by key (cdc_snapshot.h: chunks in short transactions, each with a
 * pg_logical_emit_message high watermark, read by any split); and the keyless
 * table's snapshot, one transaction on the slot's exported snapshot read in
 * ctid ranges.
 */
#include "pgc_int.h"

/* ---- synthetic pgoutput messages for snapshot rows ----------------------------------------- */

static void put_u8(cdc_buf_t *b, uint8_t v)
{
    cdc_buf_putc(b, (char)v);
}

static void put_u16(cdc_buf_t *b, uint16_t v)
{
    put_u8(b, (uint8_t)(v >> 8));
    put_u8(b, (uint8_t)v);
}

static void put_u32(cdc_buf_t *b, uint32_t v)
{
    put_u16(b, (uint16_t)(v >> 16));
    put_u16(b, (uint16_t)v);
}

static void put_cstr(cdc_buf_t *b, const char *s)
{
    cdc_buf_append(b, s, strlen(s) + 1);
}

int pgc_synth_relation(pgc_reader_t *r, cdc_batch_t *out, cdc_error_t **err)
{
    cdc_buf_t *b = &r->synth;
    cdc_buf_clear(b);
    put_u8(b, 'R');
    put_u32(b, r->relid);
    put_cstr(b, pgc_opt(r->src->cfg, "schema-name"));
    put_cstr(b, pgc_opt(r->src->cfg, "table-name"));
    put_u8(b, (uint8_t)r->ident);
    put_u16(b, (uint16_t)r->ncols);
    for (int i = 0; i < r->ncols; i++) {
        put_u8(b, r->cols[i].key ? 1 : 0);
        put_cstr(b, r->cols[i].name);
        put_u32(b, r->cols[i].oid);
        put_u32(b, (uint32_t)r->cols[i].typmod);
    }
    return pgc_feed(r, b->data, b->len, out, 0, false, err);
}

/* ---- snapshot rows: COPY's text rows as synthetic pgoutput Inserts -------------------------- */

static char *put_be32(char *p, uint32_t v)
{
    p[0] = (char)(v >> 24);
    p[1] = (char)(v >> 16);
    p[2] = (char)(v >> 8);
    p[3] = (char)v;
    return p + 4;
}

/*
 * One row of COPY's text format (tab-separated fields, \N for NULL, backslash escapes; the
 * text of each field is its type's output, as a SELECT's text result has it) as a pgoutput
 * Insert of the table's r->ncols columns, written straight into out's arena (the decoder's rows
 * point into it) and decoded into out. The fields of the key (keyidx: column indexes, nkey of
 * them) are pointed to in r->lastkey, in the arena. 0, or -1 with *err.
 */
static int copy_row(pgc_reader_t *r, const char *line, size_t len, cdc_batch_t *out,
                    const int *keyidx, int nkey, cdc_error_t **err)
{
    if (len > 0 && line[len - 1] == '\n')
        len--;
    size_t cap = 8 + 5 * (size_t)r->ncols + len; /* unescaping only shrinks */
    char *msg = cdc_arena_alloc(&out->arena, cap);
    char *w = msg;
    *w++ = 'I';
    w = put_be32(w, r->relid);
    *w++ = 'N';
    *w++ = (char)(r->ncols >> 8);
    *w++ = (char)r->ncols;
    const char *p = line, *end = line + len;
    bool escaped = memchr(line, '\\', len) != NULL;
    for (int c = 0; c < r->ncols; c++) {
        if (c > 0) {
            if (p >= end || *p != '\t')
                goto short_row;
            p++;
        }
        if (end - p >= 2 && p[0] == '\\' && p[1] == 'N' && (end - p == 2 || p[2] == '\t')) {
            *w++ = 'n';
            p += 2;
            continue;
        }
        *w++ = 't';
        char *lenat = w;
        w += 4;
        char *start = w;
        if (!escaped) { /* (most rows: the field is its text) */
            const char *tab = memchr(p, '\t', (size_t)(end - p));
            const char *stop = tab ? tab : end;
            memcpy(w, p, (size_t)(stop - p));
            w += stop - p;
            p = stop;
        }
        while (escaped && p < end && *p != '\t') {
            if (*p != '\\') {
                *w++ = *p++;
                continue;
            }
            /* a backslash: COPY TO writes only these escapes */
            static const char esc[] = "bfnrtv\\", byte[] = "\b\f\n\r\t\v\\";
            const char *e = ++p < end ? memchr(esc, *p, sizeof(esc) - 1) : NULL;
            if (!e)
                goto bad_escape;
            *w++ = byte[e - esc];
            p++;
        }
        put_be32(lenat, (uint32_t)(w - start));
        for (int k = 0; k < nkey; k++)
            if (keyidx[k] == c) {
                r->lastkey[k] = start;
                r->lastkeylen[k] = (size_t)(w - start);
            }
    }
    if (p != end)
        goto short_row;
    return pgc_feed(r, msg, (size_t)(w - msg), out, 0, false, err);
short_row:
    return cdc_error_set(err, CDC_ERR_REMOTE,
                         "a snapshot row of \"%s\" from COPY has not the table's %d columns",
                         r->src->table_label, r->ncols);
bad_escape:
    return cdc_error_set(err, CDC_ERR_REMOTE,
                         "a snapshot row of \"%s\" from COPY has an escape COPY does not write "
                         "at byte %zu",
                         r->src->table_label, (size_t)(p - line));
}

/* Reads and drops the rest of the results of the statements sent (rows of a COPY too). */
static void drain(pgc_reader_t *r)
{
    PGresult *res;
    while ((res = PQgetResult(r->meta))) {
        if (PQresultStatus(res) == PGRES_COPY_OUT) {
            char *row;
            while (PQgetCopyData(r->meta, &row, 0) > 0)
                PQfreemem(row);
        }
        PQclear(res);
    }
}

/* The next result of r->sqlbuf's statements (sent with PQsendQuery), which must have status
   want; else NULL and *err naming what failed, with the rest of the results drained. */
static PGresult *next_result(pgc_reader_t *r, ExecStatusType want, const char *what,
                             cdc_error_t **err)
{
    PGresult *res = PQgetResult(r->meta);
    if (res && PQresultStatus(res) == want)
        return res;
    cdc_error_set(err, CDC_ERR_REMOTE, "%s of \"%s\" failed", what, r->src->table_label);
    cdc_error_set_detail(*err, "%s", res ? PQresultErrorMessage(res) : PQerrorMessage(r->meta));
    cdc_error_add_context(*err, "%s", cdc_buf_cstr(&r->sqlbuf));
    PQclear(res);
    drain(r);
    return NULL;
}

/* Sends r->sqlbuf's statements; 0, or -1 with *err. */
static int send_sql(pgc_reader_t *r, cdc_error_t **err)
{
    if (PQsendQuery(r->meta, cdc_buf_cstr(&r->sqlbuf)))
        return 0;
    cdc_error_set(err, CDC_ERR_REMOTE, "reading the snapshot of \"%s\" failed: %s",
                  r->src->table_label, PQerrorMessage(r->meta));
    return -1;
}

/*
 * The result of a `COPY (query) TO STDOUT`, the next of the statements sent: decodes its rows
 * into out as they arrive, so the server reads the next rows while these are decoded (a
 * SELECT's result comes whole, and the two would take turns). (libpq hands each row over in a
 * buffer of its own.) With nkey > 0, the last row's key fields are in r->lastkey. The number of
 * rows, or -1 with *err and the rest of the results drained (a row that fails leaves the rest
 * of the COPY read and dropped).
 */
static long copy_rows(pgc_reader_t *r, cdc_batch_t *out, const int *keyidx, int nkey,
                      cdc_error_t **err)
{
    PGresult *res = next_result(r, PGRES_COPY_OUT, "reading the snapshot", err);
    if (!res)
        return -1;
    PQclear(res);
    long n = 0;
    bool failed = false;
    char *row;
    int len;
    while ((len = PQgetCopyData(r->meta, &row, 0)) > 0) {
        if (!failed && copy_row(r, row, (size_t)len, out, keyidx, nkey, err) < 0)
            failed = true;
        n++;
        PQfreemem(row);
    }
    if (!failed) { /* the COPY's end */
        if (!(res = next_result(r, PGRES_COMMAND_OK, "reading the snapshot", err)))
            return -1;
        PQclear(res);
        return n;
    }
    drain(r);
    return -1;
}

/* "COPY (SELECT <the table's columns>" into b (the caller ends it with ") TO STDOUT") */
static void put_select(pgc_reader_t *r, cdc_buf_t *b)
{
    cdc_buf_puts(b, "COPY (SELECT ");
    for (int i = 0; i < r->ncols; i++) {
        char *id = PQescapeIdentifier(r->meta, r->cols[i].name, strlen(r->cols[i].name));
        cdc_buf_printf(b, "%s%s", i ? ", " : "", id);
        PQfreemem(id);
    }
}

/* ---- a table without a key: ctid ranges in one transaction ---------------------------------- */

/* A table without a chunk key: the whole table in one REPEATABLE READ transaction on the
   slot's exported snapshot (NULL: the current state), read in ctid ranges. */
int pgc_keyless_start(pgc_reader_t *r, const char *snapshot_name, cdc_error_t **err)
{
    if (pgc_exec_ok(r->meta, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
                    "starting the snapshot transaction", err) < 0)
        return -1;
    int rc = 0;
    if (snapshot_name) {
        char *lit = PQescapeLiteral(r->meta, snapshot_name, strlen(snapshot_name));
        char *sql = cdc_strdup_printf("SET TRANSACTION SNAPSHOT %s", lit);
        PQfreemem(lit);
        rc = pgc_exec_ok(r->meta, sql, "importing the slot's snapshot", err);
        free(sql);
        if (rc < 0)
            return -1;
    }
    char relid[16];
    snprintf(relid, sizeof(relid), "%u", r->relid);
    const char *p1[1] = {relid};
    PGresult *res =
        pgc_query(r->meta,
                  "SELECT pg_relation_size($1::oid) / current_setting('block_size')::int, "
                  "reltuples::float8, relpages FROM pg_class WHERE oid = $1::oid",
                  1, p1, "sizing the snapshot's table", err);
    if (!res)
        return -1;
    double pages = PQntuples(res) ? strtod(PQgetvalue(res, 0, 0), NULL) : 0;
    double tuples = PQntuples(res) ? strtod(PQgetvalue(res, 0, 1), NULL) : -1;
    double relpages = PQntuples(res) ? strtod(PQgetvalue(res, 0, 2), NULL) : 0;
    PQclear(res);
    /* pages per query: about chunk-size rows, by the statistics' rows per page (100 without) */
    double per_page = tuples > 0 && relpages > 0 ? tuples / relpages : 100;
    double step = (double)r->src->chunk_size / (per_page > 1 ? per_page : 1);
    r->ctid_pages = (uint64_t)pages;
    r->ctid_step = step < 1 ? 1 : (uint64_t)step;
    r->ctid_next = 0;
    r->snapshot = true;
    cdc_log(CDC_LOG_INFO, NULL, r->src->table_label,
            "initial snapshot started (%s): %s, so the snapshot holds one transaction, read in "
            "ctid ranges of %llu pages",
            snapshot_name ? snapshot_name
            : r->src->startup == MODE_SNAPSHOT
                ? "current state"
                : "current state; changes since the slot replay after it",
            r->src->startup == MODE_SNAPSHOT ? "'scan.startup.mode' is 'snapshot'"
            : !r->src->incremental           ? "'scan.incremental.snapshot.enabled' is false"
            : r->src->nkey == 0              ? "the table has no primary key (and no "
                                               "'scan.incremental.snapshot.chunk.key-column') to match the "
                                               "stream's changes to chunks"
                                : "PostgreSQL before 14 has no logical messages to mark chunks",
            (unsigned long long)r->ctid_step);
    return 0;
}

/* Keyless: the next ctid range (the last one open-ended); sets *done at the end. */
int pgc_keyless_poll(pgc_reader_t *r, cdc_batch_t *out, bool *done, cdc_error_t **err)
{
    if (r->ctid_next > r->ctid_pages) {
        if (pgc_exec_ok(r->meta, "COMMIT", "ending the snapshot transaction", err) < 0)
            return -1;
        r->snapshot = false;
        *done = true;
        return 0;
    }
    cdc_buf_t *q = &r->sqlbuf;
    cdc_buf_clear(q);
    put_select(r, q);
    char *qt = pgc_qualified(r->meta, pgc_opt(r->src->cfg, "schema-name"),
                             pgc_opt(r->src->cfg, "table-name"));
    cdc_buf_printf(q, " FROM ONLY %s WHERE ctid >= '(%llu,0)'::tid", qt,
                   (unsigned long long)r->ctid_next);
    free(qt);
    uint64_t end = r->ctid_next + r->ctid_step;
    if (end <= r->ctid_pages)
        cdc_buf_printf(q, " AND ctid < '(%llu,0)'::tid", (unsigned long long)end);
    else
        end = r->ctid_pages + 1; /* the last query: every page from here (the table may grow) */
    cdc_buf_puts(q, ") TO STDOUT");
    if (send_sql(r, err) < 0)
        return -1;
    long n = copy_rows(r, out, NULL, 0, err);
    if (n >= 0)
        drain(r); /* (the end of the statements) */
    if (n < 0) {
        cdc_error_add_context(*err, "at page %llu", (unsigned long long)r->ctid_next);
        return -1;
    }
    r->ctid_next = end;
    return 0;
}

/* ---- the chunked snapshot (a key) ------------------------------------------------------------ */

/* "k" or "(k1, k2)" */
static void put_key_cols(pgc_reader_t *r, cdc_buf_t *b)
{
    const pgc_source_t *s = r->src;
    if (s->nkey > 1)
        cdc_buf_putc(b, '(');
    for (int i = 0; i < s->nkey; i++) {
        const char *n = s->physical->names[s->key[i]];
        char *id = PQescapeIdentifier(r->meta, n, strlen(n));
        cdc_buf_printf(b, "%s%s", i ? ", " : "", id);
        PQfreemem(id);
    }
    if (s->nkey > 1)
        cdc_buf_putc(b, ')');
}

/* The key's texts as literals (PostgreSQL coerces them to the columns' types). */
static void put_key_vals(pgc_reader_t *r, cdc_buf_t *b, char *const *k)
{
    int n = r->src->nkey;
    if (n > 1)
        cdc_buf_putc(b, '(');
    for (int i = 0; i < n; i++) {
        char *lit = PQescapeLiteral(r->meta, k[i], strlen(k[i]));
        cdc_buf_printf(b, "%s%s", i ? ", " : "", lit ? lit : "NULL");
        PQfreemem(lit);
    }
    if (n > 1)
        cdc_buf_putc(b, ')');
}

/* " FROM ONLY t WHERE <range> [AND (extra)]" of a read */
static void put_from_where(pgc_reader_t *r, const cdc_snap_read_t *rd, cdc_buf_t *b)
{
    char *qt = pgc_qualified(r->meta, pgc_opt(r->src->cfg, "schema-name"),
                             pgc_opt(r->src->cfg, "table-name"));
    cdc_buf_printf(b, " FROM ONLY %s WHERE true", qt);
    free(qt);
    if (rd->lo) {
        cdc_buf_puts(b, " AND ");
        put_key_cols(r, b);
        cdc_buf_puts(b, " > ");
        put_key_vals(r, b, rd->lo);
    }
    if (rd->hi) {
        cdc_buf_puts(b, " AND ");
        put_key_cols(r, b);
        cdc_buf_puts(b, rd->hi_incl ? " <= " : " < ");
        put_key_vals(r, b, rd->hi);
    }
    if (rd->extra)
        cdc_buf_printf(b, " AND (%s)", rd->extra);
}

/* A failed statement of a chunk: the error, the transaction rolled back, the read abandoned. */
static int chunk_fail(pgc_reader_t *r, cdc_snap_read_t *rd, PGresult *res, const char *what,
                      cdc_error_t **err)
{
    if (res) {
        cdc_error_set(err, CDC_ERR_REMOTE, "%s of \"%s\" failed", what, r->src->table_label);
        cdc_error_set_detail(*err, "%s", PQresultErrorMessage(res));
        cdc_error_add_context(*err, "%s", cdc_buf_cstr(&r->sqlbuf));
        PQclear(res);
    }
    if (PQtransactionStatus(r->meta) != PQTRANS_IDLE)
        PQclear(PQexec(r->meta, "ROLLBACK"));
    cdc_snapshot_abandon(r->src->snap, rd);
    return -1;
}

/* Whether the transaction xid (32 bits, as pgoutput's Begin gives it) is visible in the
   snapshot "xmin:xmax:xip,..." (pg_current_snapshot's 64-bit xids). */
static bool xid_visible(const char *snap, uint32_t xid)
{
    char *end;
    uint64_t xmin = strtoull(snap, &end, 10);
    if (*end != ':')
        return true; /* (not a snapshot: nothing to say) */
    uint64_t xmax = strtoull(end + 1, &end, 10);
    uint64_t full = (xmax & ~(uint64_t)0xffffffff) | xid; /* the epoch of xmax */
    if (full > xmax + 0x80000000ULL && full >= 0x100000000ULL)
        full -= 0x100000000ULL;
    if (full < xmin)
        return true;
    if (full >= xmax)
        return false;
    for (const char *p = *end == ':' ? end + 1 : ""; *p;) {
        if (strtoull(p, &end, 10) == full)
            return false;
        p = *end == ',' ? end + 1 : "";
    }
    return true;
}

/*
 * The snapshot's check (coordinator): every transaction the stream carried before the read was
 * seen (its end at or before obs) is in no tombstone, so the chunk's snapshot must have seen
 * it; a commit is decoded a moment before it is visible to new snapshots, and a chunk whose
 * snapshot missed one of the last PGC_RECENT is read again (older ones are long visible).
 */
bool pgc_check_read(void *ctx, const cdc_snap_read_t *rd, cdc_snap_pos_t obs)
{
    const pgc_reader_t *r = ctx;
    if (!rd->conn_data)
        return true;
    int n = r->nrecent < PGC_RECENT ? r->nrecent : PGC_RECENT;
    for (int i = 0; i < n; i++) {
        if (r->recent[i].end > obs.minor || xid_visible(rd->conn_data, r->recent[i].xid))
            continue;
        cdc_log(CDC_LOG_DEBUG, NULL, r->src->table_label,
                "chunk %llu: transaction %u (streamed before the read was seen) is not in its "
                "snapshot %s: reading it again",
                (unsigned long long)rd->id, r->recent[i].xid, (const char *)rd->conn_data);
        return false;
    }
    return true;
}

/*
 * Reads one chunk on r->meta (any split's normal connection): the SELECT in its own short
 * REPEATABLE READ transaction, then the high watermark: a logical message whose LSN (the end of
 * its WAL record, which the stream's 'M' carries) follows every change the SELECT saw. Its
 * transaction has an xid, so its commit flushes the WAL and the walsender sends the message at
 * once. Hands the rows to the snapshot (filled), or abandons the read and fails.
 */
/* The chunk key's columns among the table's (keyidx), for the next chunk's bound. */
static int key_columns(pgc_reader_t *r, int *keyidx, cdc_error_t **err)
{
    pgc_source_t *s = r->src;
    for (int k = 0; k < s->nkey; k++) {
        keyidx[k] = -1;
        for (int c = 0; c < r->ncols && keyidx[k] < 0; c++)
            if (strcmp(r->cols[c].name, s->physical->names[s->key[k]]) == 0)
                keyidx[k] = c;
        if (keyidx[k] < 0)
            return cdc_error_set(err, CDC_ERR_PLAN,
                                 "postgres-cdc: the chunk key column \"%s\" is not a column of "
                                 "\"%s\"",
                                 s->physical->names[s->key[k]], s->table_label);
    }
    return 0;
}

/* Sends a chunk's statements (one round trip: they run back to back) without waiting for
   them: the server reads the chunk while the reader goes on (read_chunk_end takes the
   results). */
static int read_chunk_send(pgc_reader_t *r, cdc_snap_read_t *rd, cdc_error_t **err)
{
    pgc_source_t *s = r->src;
    cdc_buf_t *q = &r->sqlbuf;
    cdc_buf_clear(q);
    cdc_buf_puts(q, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; "
                    "SELECT pg_current_snapshot()::text; ");
    put_select(r, q);
    put_from_where(r, rd, q);
    cdc_buf_puts(q, " ORDER BY ");
    put_key_cols(r, q);
    cdc_buf_printf(q,
                   " LIMIT %u) TO STDOUT; COMMIT; "
                   "SELECT pg_logical_emit_message(false, 'cdcflow-snapshot', '%llu'), "
                   "txid_current()",
                   s->chunk_size, (unsigned long long)rd->id);
    if (send_sql(r, err) < 0)
        return chunk_fail(r, rd, NULL, NULL, err);
    return 0;
}

/* The results of a chunk's statements (read_chunk_send): its rows, then the high watermark;
   hands the rows to the snapshot (filled), or abandons the read and fails. */
static int read_chunk_end(pgc_reader_t *r, cdc_snap_read_t *rd, cdc_error_t **err)
{
    pgc_source_t *s = r->src;
    int keyidx[16];
    if (key_columns(r, keyidx, err) < 0) {
        drain(r);
        return chunk_fail(r, rd, NULL, NULL, err);
    }
    PGresult *res = next_result(r, PGRES_COMMAND_OK, "starting a snapshot chunk", err);
    if (!res)
        return chunk_fail(r, rd, NULL, NULL, err);
    PQclear(res);
    /* the transaction's snapshot (its first statement takes it), for pgc_check_read */
    res = next_result(r, PGRES_TUPLES_OK, "reading a snapshot chunk's snapshot", err);
    if (!res)
        return chunk_fail(r, rd, NULL, NULL, err);
    free(rd->conn_data); /* (the read's: the engine frees the last one) */
    rd->conn_data = cdc_xstrdup(PQntuples(res) == 1 ? PQgetvalue(res, 0, 0) : "");
    PQclear(res);
    uint32_t first = rd->rows.n;
    long n = copy_rows(r, &rd->rows, keyidx, s->nkey, err);
    if (n < 0)
        return chunk_fail(r, rd, NULL, NULL, err);
    const char *table = cdc_snapshot_table(s->snap, rd->table);
    for (uint32_t j = first; j < rd->rows.n; j++)
        rd->rows.rows[j].origin = table; /* (outlives this reader's decoder) */
    if (n > 0)
        for (int k = 0; k < s->nkey; k++) {
            cdc_buf_clear(&r->keytext[k]);
            cdc_buf_append(&r->keytext[k], r->lastkey[k], r->lastkeylen[k]);
            cdc_buf_cstr(&r->keytext[k]);
        }
    if (!(res = next_result(r, PGRES_COMMAND_OK, "ending a snapshot chunk", err)))
        return chunk_fail(r, rd, NULL, NULL, err);
    PQclear(res);
    /* the high watermark: a logical message whose LSN (the end of its WAL record, which the
       stream's 'M' carries) follows every change the SELECT saw; its transaction has an xid,
       so its commit flushes the WAL and the walsender sends the message at once */
    res = next_result(r, PGRES_TUPLES_OK, "writing a snapshot chunk's watermark", err);
    unsigned hi = 0, lo = 0;
    if (!res || PQntuples(res) != 1 || sscanf(PQgetvalue(res, 0, 0), "%X/%X", &hi, &lo) != 2) {
        if (res) {
            cdc_error_set(err, CDC_ERR_REMOTE,
                          "writing a snapshot chunk's watermark of \"%s\" "
                          "gave no LSN",
                          s->table_label);
            PQclear(res);
            drain(r);
        }
        chunk_fail(r, rd, NULL, NULL, err);
        cdc_error_set_hint(*err, "the user needs the REPLICATION attribute (or superuser) to "
                                 "call pg_logical_emit_message");
        return -1;
    }
    PQclear(res);
    drain(r);
    rd->hw = (cdc_snap_pos_t){0, (uint64_t)hi << 32 | lo};
    rd->exact = false;
    char *last[16];
    for (int k = 0; k < s->nkey; k++)
        last[k] = r->keytext[k].data;
    cdc_snapshot_filled(s->snap, rd, n >= (int)s->chunk_size ? last : NULL);
    return 0;
}

/* A chunk read start to end (the splits reading chunks). */
static int read_chunk(pgc_reader_t *r, cdc_snap_read_t *rd, cdc_error_t **err)
{
    return read_chunk_send(r, rd, err) < 0 ? -1 : read_chunk_end(r, rd, err);
}

/* Plans a whole integer-keyed range for the splits: its min, max and the row estimate. */
static int plan_chunks(pgc_reader_t *r, cdc_snap_read_t *rd, cdc_error_t **err)
{
    pgc_source_t *s = r->src;
    cdc_buf_t *q = &r->sqlbuf;
    cdc_buf_clear(q);
    const char *n = s->physical->names[s->key[0]];
    char *id = PQescapeIdentifier(r->meta, n, strlen(n));
    cdc_buf_printf(q,
                   "SELECT min(%s)::text, max(%s)::text, (SELECT reltuples::float8 FROM "
                   "pg_class WHERE oid = %u)",
                   id, id, r->relid);
    PQfreemem(id);
    put_from_where(r, rd, q);
    PGresult *res = PQexec(r->meta, cdc_buf_cstr(q));
    if (PQresultStatus(res) != PGRES_TUPLES_OK)
        return chunk_fail(r, rd, res, "planning the snapshot's chunks", err);
    if (PQntuples(res) == 1 && !PQgetisnull(res, 0, 0) && !PQgetisnull(res, 0, 1))
        cdc_snapshot_plan(s->snap, rd, strtoll(PQgetvalue(res, 0, 0), NULL, 10),
                          strtoll(PQgetvalue(res, 0, 1), NULL, 10),
                          PQgetisnull(res, 0, 2) ? 0 : strtod(PQgetvalue(res, 0, 2), NULL));
    PQclear(res);
    return 0;
}

/* No chunked snapshot in this run: the splits reading chunks end. */
void pgc_snapshot_none(pgc_reader_t *r)
{
    cdc_snapshot_clear(r->src->snap);
    cdc_snapshot_set_check(r->src->snap, pgc_check_read, r); /* (an on-demand snapshot's) */
    cdc_snapshot_start(r->src->snap);
    r->snap = NULL;
}

/*
 * The chunk key when neither chunk.key-column nor a declared PRIMARY KEY gave it: the table's
 * primary key (or replica identity index) from the catalog, whose columns must be declared
 * (the stream's changes are matched to chunks by them). None: 0 and no key (the ctid path).
 */
int pgc_resolve_key(pgc_reader_t *r, cdc_error_t **err)
{
    pgc_source_t *s = r->src;
    for (int i = 0; i < r->ncols && s->nkey == 0; i++) {
        if (!r->cols[i].key)
            continue;
        for (int j = i; j < r->ncols; j++) {
            if (!r->cols[j].key)
                continue;
            int f = cdc_type_field_index(s->physical, r->cols[j].name);
            if (f < 0 || s->nkey == (int)(sizeof(s->key) / sizeof(s->key[0]))) {
                s->nkey = 0;
                cdc_error_set(err, CDC_ERR_PLAN,
                              "postgres-cdc: the primary key column \"%s\" of \"%s\" is not a "
                              "declared column: the snapshot matches the stream's changes to its "
                              "chunks by the key",
                              r->cols[j].name, s->table_label);
                cdc_error_set_hint(*err, "declare the column (and PRIMARY KEY (...) NOT "
                                         "ENFORCED), or set "
                                         "'scan.incremental.snapshot.chunk.key-column'");
                return -1;
            }
            s->key[s->nkey++] = f;
        }
    }
    cdc_snapshot_set_key(s->snap, s->key, s->nkey);
    return 0;
}

/* The saved state's ranges (the chunks an earlier run had not emitted) into the queue. */
int pgc_load_ranges(pgc_reader_t *r, cdc_error_t **err)
{
    pgc_source_t *s = r->src;
    cdc_snapshot_clear(s->snap);
    for (const char *line = cdc_buf_cstr(&r->ckpt_state); *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (len > 6 && strncmp(line, "range\t", 6) == 0) {
            char *one = cdc_xstrndup(line, len);
            int rc = cdc_snapshot_load_line(s->snap, one);
            free(one);
            if (rc < 0) {
                cdc_error_set(err, CDC_ERR_PARSE,
                              "postgres-cdc: %s: a malformed snapshot range line: \"%.*s\"",
                              r->state_origin ? r->state_origin : "the saved state",
                              (int)(len > 80 ? 80 : len), line);
                if (r->state_stored && err && *err)
                    cdc_position_hint(*err, " (and the replication slot)");
                return -1;
            }
        }
        line += len + (nl ? 1 : 0);
    }
    return 0;
}

/* The chunked snapshot of a keyed table: the stream from "<slot>_init" at once (with the
   logical messages), the chunks meanwhile; the saved ranges when an earlier run left some. */
int pgc_chunks_start(pgc_reader_t *r, bool init_exists, cdc_error_t **err)
{
    pgc_source_t *s = r->src;
    bool resume = init_exists && r->ckpt_state.len > 0;
    if (!init_exists && pgc_create_slot(r, r->init_slot, false, NULL, 0, err) < 0)
        return -1;
    if (resume) { /* the ranges the earlier run had not emitted */
        if (pgc_load_ranges(r, err) < 0)
            return -1;
    } else if (init_exists) {
        r->ckpt_lsn = 0; /* (from the slot's confirmed position) */
    }
    r->snap = s->snap;
    cdc_snapshot_set_check(s->snap, pgc_check_read, r);
    cdc_snapshot_start(s->snap);
    cdc_log(CDC_LOG_INFO, NULL, s->table_label,
            "initial snapshot started (%s): chunks of %u rows by the key while the stream runs "
            "from slot \"%s\"",
            resume        ? "resumed from the saved ranges"
            : init_exists ? "an earlier snapshot did not finish: taking it again"
                          : "lock-free",
            s->chunk_size, r->init_slot);
    return pgc_start_streaming(r, r->init_slot, err);
}

/*
 * Split 0 in a chunked snapshot: emits the chunks the stream has passed; when no read is
 * alive, reads the next chunk itself; at the end (outside a transaction) asks for the commit
 * after which the slot is made permanent. Returns a poll status, or PGC_STREAM.
 */
int pgc_chunks_poll(pgc_reader_t *r, cdc_batch_t *out, uint32_t max, cdc_error_t **err)
{
    if (cdc_snapshot_emit(r->snap, out, max, r->cur) > 0)
        return CDC_POLL_OK;
    int alive = cdc_snapshot_alive(r->snap);
    if (r->inflight) { /* its rows are read once the reads before it are emitted */
        if (alive > 1)
            return PGC_STREAM;
        cdc_snap_read_t *rd = r->inflight;
        r->inflight = NULL;
        if (read_chunk_end(r, rd, err) < 0)
            return CDC_POLL_ERROR;
    } else if (alive > 0) {
        return PGC_STREAM;
    }
    if (cdc_snapshot_finished(r->snap)) {
        if (r->sp->in_txn || r->resnap) /* (an on-demand snapshot: pgc_poll ends it) */
            return PGC_STREAM;
        cdc_snapshot_log_end(r->snap, r->src->table_label, r->t_open);
        r->awaiting_durable = true;
        return CDC_POLL_FLUSH; /* flush and commit: then the slot is made permanent */
    }
    /* Alone, the next chunk is sent now and read after this one is emitted: the server reads
       it while the stream brings this one's watermark and its rows go out. With other splits
       reading, they keep the server busy, and this split reads only when no read is alive (a
       chunk sent ahead would wait for theirs). */
    bool ahead = r->nsplits == 1;
    cdc_snap_read_t *rd = cdc_snapshot_take(r->snap, false, ahead ? 2 : 1);
    if (rd && (ahead ? read_chunk_send(r, rd, err) : read_chunk(r, rd, err)) < 0)
        return CDC_POLL_ERROR;
    if (ahead)
        r->inflight = rd;
    return cdc_snapshot_emit(r->snap, out, max, r->cur) > 0 ? CDC_POLL_OK : PGC_STREAM;
}

/* A split other than the first: reads chunks (its own connection and decoder) until the
   snapshot is finished. */
int pgc_worker_poll(pgc_reader_t *r, cdc_batch_t *out, cdc_error_t **err)
{
    pgc_source_t *s = r->src;
    cdc_snap_read_t *rd = cdc_snapshot_take(s->snap, true, 2 * r->nsplits);
    if (!rd) /* (stopped: split 0 failed or closed before the snapshot's end) */
        return cdc_snapshot_finished(s->snap) || cdc_snapshot_stopped(s->snap) ? CDC_POLL_END
                                                                               : CDC_POLL_OK;
    if (!r->meta && (!(r->meta = pgc_connect(s, false, err)) || pgc_load_table(r, err) < 0 ||
                     pgc_make_deser(r, err) < 0 || pgc_synth_relation(r, out, err) < 0)) {
        cdc_snapshot_abandon(s->snap, rd);
        return CDC_POLL_ERROR;
    }
    if (cdc_snapshot_wants_plan(s->snap, rd) && plan_chunks(r, rd, err) < 0)
        return CDC_POLL_ERROR;
    return read_chunk(r, rd, err) < 0 ? CDC_POLL_ERROR : CDC_POLL_OK;
}
