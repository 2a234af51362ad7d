/*
 * postgres_cdc.c — the `postgres-cdc` source: one PostgreSQL table captured
 * through a logical replication slot and the pgoutput plugin, decoded by our
 * `pgoutput` format (never by a library's decoder).
 *
 * This file: connections, the table, the stream, the reader; the snapshot's
 * reads are in postgres_cdc_snapshot.c (shared declarations: pgc_int.h).
 *
 * Start-up (split 0 streams; a slot has one consumer, the other splits read snapshot chunks):
 *  1. a normal connection checks the table (its relation id, columns, key
 *     and replica identity), and makes sure the publication exists and
 *     covers the table and the signal table, if any (creating `FOR TABLE`
 *     when publication.autocreate; on-demand snapshots: their section);
 *  2. the replication connection (replication=database) looks for the slot:
 *     - it exists: resume from its confirmed position (no snapshot);
 *     - it does not, scan.startup.mode = initial, the table has a chunk key
 *       (declared PRIMARY KEY, chunk.key-column, or the catalog's key) and
 *       the server is PostgreSQL 14+: the chunked, lock-free snapshot of
 *       cdc_snapshot.h (DBLog). A slot "<slot>_init" is created and streamed
 *       at once (with pgoutput's `messages 'true'`); chunks are read by key,
 *       each in its own short REPEATABLE READ transaction, by this split when
 *       no other reads, else by the others (poll_worker); each chunk's high
 *       watermark is pg_logical_emit_message's LSN, which the stream's 'M'
 *       message carries exactly (the end of its WAL record; checked on
 *       PostgreSQL 15), so a chunk is emitted once the stream reached it,
 *       without the keys the stream changed meanwhile. A chunk is one round
 *       trip (BEGIN, the snapshot, `COPY (SELECT ...) TO STDOUT`, COMMIT,
 *       the watermark); COPY's rows are decoded as they arrive, while the
 *       server reads on. Chunk rows become synthetic pgoutput Inserts
 *       decoded by the same decoder as the stream, so snapshot and stream
 *       rows are typed identically. With a state directory the ranges not
 *       yet emitted are saved with the LSN,
 *       and a restart resumes both from "<slot>_init"; without one it reads
 *       every chunk again while the stream replays from that slot's confirmed
 *       position. When the last chunk is emitted (outside a transaction)
 *       poll() returns CDC_POLL_FLUSH, and at the commit that follows
 *       "<slot>_init" is copied to "<slot>" (pg_copy_logical_replication_slot)
 *       and dropped, and the stream goes on from "<slot>" at the committed
 *       LSN. So "<slot>" exists only once a snapshot is complete. A commit
 *       is decoded a moment before it is visible to new snapshots: each
 *       chunk records pg_current_snapshot(), and one that misses any of the
 *       last 64 transactions streamed before the read was seen is read again
 *       (pgc_check_read);
 *     - it does not, initial, no chunk key: "<slot>_init" is created with
 *       EXPORT_SNAPSHOT; the normal connection imports that snapshot
 *       (REPEATABLE READ, SET TRANSACTION SNAPSHOT) and reads the table in
 *       ctid ranges, all in that one transaction (without a key the stream's
 *       changes cannot be matched to chunks); then as above, the stream
 *       starting from "<slot>" after the copy. A run that stops during it
 *       reads the table again at the current state; the changes streamed
 *       after it from the slot's older consistent point replay every change
 *       since (full row images), which also removes rows the first attempt
 *       wrote and that were deleted meanwhile;
 *     - it does not, latest-offset: "<slot>" is created now.
 *  3. START_REPLICATION SLOT ... LOGICAL 0/0 (proto_version 1,
 *     publication_names): XLogData payloads go to the decoder; keepalives
 *     that ask for it are answered. While streaming, the slot guard (its
 *     section below) keeps the slot moving and fails fast on a lost one.
 *
 * Positions: poll() remembers the end LSN of the last Commit whose rows it
 * returned; commit() — which the runtime calls only after the sinks' flush
 * returned — reports that LSN as flushed in a standby status update, so the
 * server keeps everything not yet durable downstream and a restart replays
 * from there (at-least-once delivery, exactly-once effect on keyed sinks).
 * With --state-dir the reader also offers the two-phase commit (cdc_plugin.h)
 * through a state file (see save_checkpoint), so a sink with the other half
 * (filesystem) gets every change exactly once across crashes. Positions kept
 * by the job's state (cdc_plugin.h positions/set_position_store): split 0
 * reports one line whose token is the state file's record; given one, the
 * first poll loads it instead of the state file, before the streams open.
 *
 * Both connections pin DateStyle=ISO, TimeZone=UTC, extra_float_digits=3,
 * IntervalStyle=postgres and client_encoding=UTF8: pgoutput prints values
 * with the walsender's settings, and the decoder parses exactly that text.
 */
#include "pgc_int.h"

/* scan.startup.mode, in the order of MODE_* */
static const char *const pgc_startup_modes[] = {"initial", "latest-offset", "committed-offset",
                                                "snapshot", NULL};

static const cdc_metadata_def_t pgc_metadata[] = {
    {"database_name", "STRING", "Database of the row's table.", false},
    {"schema_name", "STRING", "Schema of the row's table.", false},
    {"table_name", "STRING", "Table the row comes from.", false},
    {"op_ts", "TIMESTAMP_LTZ(3)",
     "When the row's transaction committed; 0 (1970-01-01) for snapshot rows.", false},
    {"source.lsn", "BIGINT",
     "(cdcflow, Debezium source.lsn) WAL position of the change; NULL for snapshot rows.", false},
    {"source.txId", "BIGINT",
     "(cdcflow, Debezium source.txId) Transaction id of the change; NULL for snapshot rows.",
     false},
    {"source.snapshot", "BOOLEAN",
     "(cdcflow, Debezium source.snapshot) Whether the row comes from the initial snapshot.", false},
    {0},
};

const char *pgc_opt(const cdc_config_t *cfg, const char *key)
{
    const char *v = cdc_config_str(cfg, key);
    return v ? v : "";
}

/* ---- connections ------------------------------------------------------------------------ */

/* Where and as whom to connect: from a source's options or `cdcflow signal`'s -o pairs. */
typedef struct pgc_conninfo {
    const char *host, *port, *dbname, *user, *password, *sslmode, *sslrootcert;
    int timeout_s; /* libpq connect_timeout; 0: 10 s */
    int retries;   /* further attempts, 1 s apart, after a failed one */
} pgc_conninfo_t;

static PGconn *connect_info(const pgc_conninfo_t *ci, bool replication, cdc_error_t **err)
{
    const char *keys[16], *vals[16];
    int n = 0;
    keys[n] = "host", vals[n++] = ci->host;
    keys[n] = "port", vals[n++] = ci->port;
    keys[n] = "dbname", vals[n++] = ci->dbname;
    keys[n] = "user", vals[n++] = ci->user;
    if (ci->password)
        keys[n] = "password", vals[n++] = ci->password;
    keys[n] = "application_name", vals[n++] = "cdcflow";
    keys[n] = "options", vals[n++] = PGC_PINNED;
    char timeout[16];
    snprintf(timeout, sizeof(timeout), "%d", ci->timeout_s > 0 ? ci->timeout_s : 10);
    keys[n] = "connect_timeout", vals[n++] = timeout;
    if (ci->sslmode)
        keys[n] = "sslmode", vals[n++] = ci->sslmode;
    if (ci->sslrootcert)
        keys[n] = "sslrootcert", vals[n++] = ci->sslrootcert;
    if (replication)
        keys[n] = "replication", vals[n++] = "database";
    keys[n] = NULL;
    vals[n] = NULL;
    PGconn *conn = PQconnectdbParams(keys, vals, 0);
    int attempt = 1;
    for (; attempt <= ci->retries && (!conn || PQstatus(conn) != CONNECTION_OK); attempt++) {
        cdc_log(CDC_LOG_WARN, NULL, "postgres-cdc",
                "could not connect to PostgreSQL at %s:%s (attempt %d of %d): %s; retrying in 1 s",
                ci->host, ci->port, attempt, ci->retries + 1,
                conn ? PQerrorMessage(conn) : "out of memory");
        PQfinish(conn);
        struct timespec pause = {.tv_sec = 1};
        nanosleep(&pause, NULL); /* (at open, before the job's loop: nothing else waits) */
        conn = PQconnectdbParams(keys, vals, 0);
    }
    if (!conn || PQstatus(conn) != CONNECTION_OK) {
        cdc_error_set(err, CDC_ERR_REMOTE, "could not connect to PostgreSQL at %s:%s%s (%d %s)",
                      ci->host, ci->port, replication ? " for replication" : "", attempt,
                      attempt == 1 ? "attempt" : "attempts, 'connect.max-retries'");
        cdc_error_set_detail(*err, "%s", conn ? PQerrorMessage(conn) : "out of memory");
        if (replication)
            cdc_error_set_hint(*err, "the user needs the REPLICATION attribute and pg_hba.conf a "
                                     "\"replication\" line; the server needs wal_level=logical");
        PQfinish(conn);
        return NULL;
    }
    return conn;
}

PGconn *pgc_connect(pgc_source_t *s, bool replication, cdc_error_t **err)
{
    const cdc_config_t *c = s->cfg;
    char port[16];
    snprintf(port, sizeof(port), "%lld", (long long)cdc_config_int(c, "port"));
    pgc_conninfo_t ci = {.host = pgc_opt(c, "hostname"),
                         .port = port,
                         .dbname = pgc_opt(c, "database-name"),
                         .user = pgc_opt(c, "username"),
                         .password = cdc_config_str(c, "password"),
                         .sslmode = cdc_config_str(c, "sslmode"),
                         .sslrootcert = cdc_config_str(c, "sslrootcert"),
                         .timeout_s = (int)(cdc_config_duration_ms(c, "connect.timeout") / 1000),
                         .retries = (int)cdc_config_int(c, "connect.max-retries")};
    if (ci.timeout_s < 2)
        ci.timeout_s = 2; /* (libpq's least) */
    return connect_info(&ci, replication, err);
}

/* Runs a statement that returns no rows (or whose rows are ignored). */
int pgc_exec_ok(PGconn *conn, const char *sql, const char *what, cdc_error_t **err)
{
    PGresult *r = PQexec(conn, sql);
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        cdc_error_set(err, CDC_ERR_REMOTE, "%s failed", what);
        cdc_error_set_detail(*err, "%s", PQresultErrorMessage(r));
        PQclear(r);
        return -1;
    }
    PQclear(r);
    return 0;
}

PGresult *pgc_query(PGconn *conn, const char *sql, int nparams, const char *const *params,
                    const char *what, cdc_error_t **err)
{
    PGresult *r = PQexecParams(conn, sql, nparams, NULL, params, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK && PQresultStatus(r) != PGRES_COMMAND_OK) {
        cdc_error_set(err, CDC_ERR_REMOTE, "%s failed", what);
        cdc_error_set_detail(*err, "%s", PQresultErrorMessage(r));
        PQclear(r);
        return NULL;
    }
    return r;
}

/* quoted "schema"."table" by libpq's escaping */
char *pgc_qualified(PGconn *conn, const char *schema, const char *table)
{
    char *a = PQescapeIdentifier(conn, schema, strlen(schema));
    char *b = PQescapeIdentifier(conn, table, strlen(table));
    char *q = cdc_strdup_printf("%s.%s", a ? a : "\"\"", b ? b : "\"\"");
    PQfreemem(a);
    PQfreemem(b);
    return q;
}

/* ---- the table, the publication and the slot -------------------------------------------- */

int pgc_load_table(pgc_reader_t *r, cdc_error_t **err)
{
    pgc_source_t *s = r->src;
    const char *schema = pgc_opt(s->cfg, "schema-name"), *table = pgc_opt(s->cfg, "table-name");
    const char *params[2] = {schema, table};
    PGresult *res = pgc_query(r->meta,
                              "SELECT c.oid, c.relreplident FROM pg_class c JOIN pg_namespace n ON "
                              "n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2 AND "
                              "c.relkind IN ('r', 'p')",
                              2, params, "looking up the table", err);
    if (!res)
        return -1;
    if (PQntuples(res) != 1) {
        PQclear(res);
        cdc_error_set(err, CDC_ERR_CATALOG, "table \"%s\" does not exist in database \"%s\"",
                      s->table_label, pgc_opt(s->cfg, "database-name"));
        cdc_error_set_hint(*err, "check 'schema-name' and 'table-name' (names are exact, "
                                 "case-sensitive)");
        return -1;
    }
    r->relid = (uint32_t)strtoul(PQgetvalue(res, 0, 0), NULL, 10);
    r->ident = PQgetvalue(res, 0, 1)[0];
    PQclear(res);
    char relid[16];
    snprintf(relid, sizeof(relid), "%u", r->relid);
    const char *p1[1] = {relid};
    /* the columns pgoutput sends, in its order, with the replica identity key flag */
    res = pgc_query(r->meta,
                    "SELECT a.attname, a.atttypid, a.atttypmod, "
                    "coalesce(a.attnum = ANY (i.indkey), false) "
                    "FROM pg_attribute a LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND "
                    "(i.indisreplident OR (i.indisprimary AND NOT EXISTS (SELECT 1 FROM pg_index j "
                    "WHERE j.indrelid = a.attrelid AND j.indisreplident))) "
                    "WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped "
                    "AND a.attgenerated = '' ORDER BY a.attnum",
                    1, p1, "reading the table's columns", err);
    if (!res)
        return -1;
    r->ncols = PQntuples(res);
    r->cols = cdc_xcalloc((size_t)r->ncols, sizeof(*r->cols));
    for (int i = 0; i < r->ncols; i++) {
        r->cols[i].name = cdc_xstrdup(PQgetvalue(res, i, 0));
        r->cols[i].oid = (uint32_t)strtoul(PQgetvalue(res, i, 1), NULL, 10);
        r->cols[i].typmod = (int32_t)strtol(PQgetvalue(res, i, 2), NULL, 10);
        r->cols[i].key = PQgetvalue(res, i, 3)[0] == 't';
    }
    PQclear(res);
    /* every declared column must exist upstream, unless the slot exists already: then the
       table lost it since (a DROP or RENAME at the source that schema.change.behavior kept in
       the pipeline) and its value is NULL */
    const cdc_type_t *row = s->physical;
    int slot_known = -1;
    for (int f = 0; f < row->nchildren; f++) {
        bool found = false;
        for (int i = 0; i < r->ncols && !found; i++)
            found = strcmp(r->cols[i].name, row->names[f]) == 0;
        if (!found && slot_known < 0) {
            const char *sp[1] = {pgc_opt(s->cfg, "slot.name")};
            res = pgc_query(r->meta, "SELECT 1 FROM pg_replication_slots WHERE slot_name = $1", 1,
                            sp, "looking up the replication slot", err);
            if (!res)
                return -1;
            slot_known = PQntuples(res) == 1;
            PQclear(res);
        }
        if (!found && slot_known == 1) {
            cdc_log(CDC_LOG_WARN, NULL, s->table_label,
                    "declared column \"%s\" is no longer in table \"%s\" (dropped or renamed at "
                    "the source): its value is NULL",
                    row->names[f], s->table_label);
        } else if (!found) {
            cdc_error_set(err, CDC_ERR_CATALOG, "column \"%s\" does not exist in table \"%s\"",
                          row->names[f], s->table_label);
            cdc_buf_t names = {0};
            for (int i = 0; i < r->ncols; i++)
                cdc_buf_printf(&names, "%s%s", i ? ", " : "", r->cols[i].name);
            cdc_error_set_hint(*err, "the table's columns are: %s", cdc_buf_cstr(&names));
            cdc_buf_free(&names);
            return -1;
        }
    }
    if (s->changelog == CL_ALL && r->ident != 'f') {
        cdc_error_set(err, CDC_ERR_PLAN,
                      "table \"%s\" has REPLICA IDENTITY %s: updates and deletes carry only the "
                      "key, not the old row that 'changelog-mode' = 'all' promises",
                      s->table_label,
                      r->ident == 'd'   ? "DEFAULT"
                      : r->ident == 'n' ? "NOTHING"
                                        : "USING INDEX");
        cdc_error_set_hint(*err,
                           "run ALTER TABLE %s REPLICA IDENTITY FULL, or declare a PRIMARY KEY "
                           "and set 'changelog-mode' = 'upsert'",
                           s->table_label);
        return -1;
    }
    if (s->changelog == CL_UPSERT && r->ident == 'n') {
        cdc_error_set(err, CDC_ERR_PLAN,
                      "table \"%s\" has REPLICA IDENTITY NOTHING: deletes cannot be captured",
                      s->table_label);
        cdc_error_set_hint(*err, "give the table a primary key or REPLICA IDENTITY FULL");
        return -1;
    }
    return 0;
}

/* Makes sure the publication covers schema.table (creating it, or adding the table, with
   publication.autocreate). */
static int publish_table(pgc_reader_t *r, const char *schema, const char *table, cdc_error_t **err)
{
    pgc_source_t *s = r->src;
    const char *pub = pgc_opt(s->cfg, "publication.name");
    const char *params[3] = {pub, schema, table};
    PGresult *res = pgc_query(r->meta,
                              "SELECT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = $1), "
                              "EXISTS (SELECT 1 FROM pg_publication_tables WHERE pubname = $1 AND "
                              "schemaname = $2 AND tablename = $3)",
                              3, params, "looking up the publication", err);
    if (!res)
        return -1;
    bool exists = PQgetvalue(res, 0, 0)[0] == 't';
    bool covers = PQgetvalue(res, 0, 1)[0] == 't';
    PQclear(res);
    if (covers)
        return 0;
    char *qpub = PQescapeIdentifier(r->meta, pub, strlen(pub));
    char *qt = pgc_qualified(r->meta, schema, table);
    int rc = 0;
    if (!cdc_config_bool(s->cfg, "publication.autocreate")) {
        cdc_error_set(err, CDC_ERR_CATALOG,
                      exists ? "publication \"%s\" does not include table \"%s.%s\""
                             : "publication \"%s\" does not exist (table \"%s.%s\")",
                      pub, schema, table);
        cdc_error_set_hint(*err,
                           exists ? "ALTER PUBLICATION %s ADD TABLE %s"
                                  : "CREATE PUBLICATION %s FOR TABLE %s, or set "
                                    "'publication.autocreate' = 'true'",
                           qpub, qt);
        rc = -1;
    } else {
        char *sql = exists ? cdc_strdup_printf("ALTER PUBLICATION %s ADD TABLE %s", qpub, qt)
                           : cdc_strdup_printf("CREATE PUBLICATION %s FOR TABLE %s", qpub, qt);
        rc = pgc_exec_ok(
            r->meta, sql,
            exists ? "adding the table to the publication" : "creating the publication", err);
        if (rc == 0)
            cdc_log(CDC_LOG_INFO, NULL, s->table_label, "%s publication \"%s\" (table %s.%s)",
                    exists ? "added to" : "created", pub, schema, table);
        free(sql);
    }
    PQfreemem(qpub);
    free(qt);
    return rc;
}

/* The signal table exists with the columns a signal is read from (id, type, data). */
static int check_signal_table(pgc_reader_t *r, cdc_error_t **err)
{
    pgc_source_t *s = r->src;
    const char *params[2] = {s->sig_schema, s->sig_table};
    PGresult *res = pgc_query(r->meta,
                              "SELECT count(*) FILTER (WHERE a.attname IN ('id', 'type', 'data')) "
                              "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                              "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT "
                              "a.attisdropped WHERE n.nspname = $1 AND c.relname = $2 AND "
                              "c.relkind IN ('r', 'p') GROUP BY c.oid",
                              2, params, "looking up the signal table", err);
    if (!res)
        return -1;
    bool ok = PQntuples(res) == 1 && strcmp(PQgetvalue(res, 0, 0), "3") == 0;
    bool exists = PQntuples(res) == 1;
    PQclear(res);
    if (ok)
        return 0;
    cdc_error_set(err, CDC_ERR_CATALOG,
                  exists ? "signal table \"%s\" lacks a column id, type or data"
                         : "signal table \"%s\" does not exist in database \"%s\"",
                  s->signal, pgc_opt(s->cfg, "database-name"));
    cdc_error_set_hint(*err,
                       "create it: CREATE TABLE %s (id VARCHAR(42) PRIMARY KEY, type "
                       "VARCHAR(32) NOT NULL, data TEXT); or fix 'signal-data-collection'",
                       s->signal);
    return -1;
}

/* The publication covers the table, and the signal table when there is one. */
static int ensure_publication(pgc_reader_t *r, cdc_error_t **err)
{
    pgc_source_t *s = r->src;
    if (publish_table(r, pgc_opt(s->cfg, "schema-name"), pgc_opt(s->cfg, "table-name"), err) < 0)
        return -1;
    if (s->signal && (check_signal_table(r, err) < 0 ||
                      publish_table(r, s->sig_schema, s->sig_table, err) < 0)) {
        cdc_error_add_context(*err, "'signal-data-collection' = '%s'", s->signal);
        return -1;
    }
    return 0;
}

static int find_slot(pgc_reader_t *r, const char *slot, bool *exists, cdc_error_t **err)
{
    const char *params[1] = {slot};
    PGresult *res = pgc_query(r->meta,
                              "SELECT plugin, database, active_pid FROM pg_replication_slots WHERE "
                              "slot_name = $1",
                              1, params, "looking up the replication slot", err);
    if (!res)
        return -1;
    *exists = PQntuples(res) == 1;
    int rc = 0;
    if (*exists && strcmp(PQgetvalue(res, 0, 0), "pgoutput") != 0) {
        cdc_error_set(err, CDC_ERR_CATALOG,
                      "replication slot \"%s\" uses plugin \"%s\", not pgoutput", slot,
                      PQgetvalue(res, 0, 0));
        cdc_error_set_hint(*err, "pick another 'slot.name', or drop that slot");
        rc = -1;
    } else if (*exists &&
               strcmp(PQgetvalue(res, 0, 1), pgc_opt(r->src->cfg, "database-name")) != 0) {
        cdc_error_set(err, CDC_ERR_CATALOG, "replication slot \"%s\" belongs to database \"%s\"",
                      slot, PQgetvalue(res, 0, 1));
        cdc_error_set_hint(*err, "slot names are per server: pick another 'slot.name'");
        rc = -1;
    } else if (*exists && !PQgetisnull(res, 0, 2)) {
        cdc_error_set(err, CDC_ERR_REMOTE, "replication slot \"%s\" is in use by server process %s",
                      slot, PQgetvalue(res, 0, 2));
        cdc_error_set_hint(*err, "another cdcflow run (or another consumer) reads this slot; a "
                                 "slot has one reader: give each pipeline its own 'slot.name'");
        rc = -1;
    }
    PQclear(res);
    return rc;
}

/* ---- decoding ------------------------------------------------------------------------------ */

/* Decodes one message: from the stream (lsn: its WAL start), or made here (the snapshot's; its
   rows' position metadata are NULL). */
int pgc_feed(pgc_reader_t *r, const char *msg, size_t len, cdc_batch_t *out, uint64_t lsn,
             bool stream, cdc_error_t **err)
{
    uint64_t pos = stream ? (lsn ? lsn : 1) : 0;
    int rc = r->deser->ops->decode_at(r->deser, msg, len, pos, out);
    if (rc == CDC_DECODE_ERROR) {
        r->decode_errors++;
        cdc_error_set(err, CDC_ERR_PARSE, "cannot decode a pgoutput message of table \"%s\": %s",
                      r->src->table_label, cdc_buf_cstr(&r->deser->errmsg));
        if (lsn)
            cdc_error_add_context(*err, "at LSN %X/%X", (unsigned)(lsn >> 32), (unsigned)lsn);
        else
            cdc_error_add_context(*err, "in the initial snapshot");
        return -1;
    }
    return rc == CDC_DECODE_SCHEMA ? 1 : 0;
}

/* ---- streaming ------------------------------------------------------------------------------ */

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void set_u64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        p[i] = (uint8_t)v;
        v >>= 8;
    }
}

/* A standby status update confirming confirmed_lsn; reply asks the server for a keepalive. */
static int status_message(pgc_reader_t *r, bool reply, cdc_error_t **err)
{
    int64_t now = cdc_mono_ms();
    uint8_t msg[34];
    msg[0] = 'r';
    /* written and flushed = what is durable downstream; applied likewise */
    set_u64(msg + 1, r->confirmed_lsn);
    set_u64(msg + 9, r->confirmed_lsn);
    set_u64(msg + 17, r->confirmed_lsn);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    /* microseconds since 2000-01-01 */
    int64_t pgnow = ((int64_t)ts.tv_sec - 946684800) * 1000000 + ts.tv_nsec / 1000;
    set_u64(msg + 25, (uint64_t)pgnow);
    msg[33] = reply ? 1 : 0;
    if (PQputCopyData(r->repl, (const char *)msg, sizeof(msg)) != 1 || PQflush(r->repl) != 0) {
        cdc_error_set(err, CDC_ERR_REMOTE,
                      "could not send the replication status to PostgreSQL (table \"%s\")",
                      r->src->table_label);
        cdc_error_set_detail(*err, "%s", PQerrorMessage(r->repl));
        return -1;
    }
    r->last_status_ms = now;
    return 0;
}

static int send_status(pgc_reader_t *r, bool force, cdc_error_t **err)
{
    if (!force && cdc_mono_ms() - r->last_status_ms < PGC_STATUS_INTERVAL_MS)
        return 0;
    return status_message(r, false, err);
}

/* ---- the slot guard ------------------------------------------------------------------------
 *
 * A slot keeps every WAL segment from its restart_lsn on, so a slot that does not move fills
 * the server's disk, and with max_slot_wal_keep_size the server invalidates it (wal_status
 * 'lost'): the changes in between are gone. So, while streaming: keepalives confirm the
 * server's WAL end when nothing is pending (on_copy), a status update asks for a keepalive
 * when none came for heartbeat.interval.ms, heartbeat.action.query runs as often, the slot's
 * retained WAL is read (a gauge, a warning above slot.retained-wal.warn-size), and a lost slot
 * fails the job with an error that is final (retrying cannot bring the WAL back).
 */

/* The slot the guard watches: the one streamed ("<slot>_init" during a chunked snapshot). */
static const char *guard_slot(const pgc_reader_t *r)
{
    return r->stream_slot ? r->stream_slot : pgc_opt(r->src->cfg, "slot.name");
}

/* Whether a server error says the slot lost WAL it needed (PostgreSQL 13-15, 16+, or WAL
   removed under a slot not yet marked invalid). */
static bool slot_lost_text(const char *msg)
{
    return msg && (strstr(msg, "can no longer get changes from replication slot") ||
                   strstr(msg, "cannot read from logical replication slot") ||
                   strstr(msg, "has been invalidated") || strstr(msg, "has already been removed"));
}

/* The final error of a lost slot; server_text (may be NULL) becomes the detail. */
static int slot_lost_error(pgc_reader_t *r, const char *server_text, cdc_error_t **err)
{
    const char *slot = guard_slot(r);
    cdc_error_set(err, CDC_ERR_REMOTE,
                  "replication slot \"%s\" lost WAL this job still needed: changes of \"%s\" "
                  "were missed",
                  slot, r->src->table_label);
    size_t n = server_text ? strlen(server_text) : 0;
    while (n > 0 && (server_text[n - 1] == '\n' || server_text[n - 1] == ' '))
        n--;
    if (n > 0)
        cdc_error_set_detail(*err, "%.*s", (int)n, server_text);
    else
        cdc_error_set_detail(*err, "pg_replication_slots.wal_status is 'lost': the server removed "
                                   "WAL the slot had not confirmed (max_slot_wal_keep_size)");
    cdc_error_set_hint(*err,
                       "the slot cannot be resumed: drop it (SELECT "
                       "pg_drop_replication_slot('%s'))%s and run again with "
                       "'scan.startup.mode' = 'initial' to take a new snapshot (rows deleted "
                       "meanwhile stay in the sink: empty it first for an exact copy); raise "
                       "max_slot_wal_keep_size so it does not happen again",
                       slot, r->src->ckpt_file ? " and remove the state file" : "");
    /* where: the slot's last confirmed position (changes after it are the missed ones) */
    const char *params[1] = {slot};
    PGresult *res = r->inflight ? NULL /* (the connection reads a chunk) */
                                : PQexecParams(r->meta,
                                               "SELECT confirmed_flush_lsn FROM "
                                               "pg_replication_slots WHERE slot_name = $1",
                                               1, NULL, params, NULL, NULL, 0);
    if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 && !PQgetisnull(res, 0, 0))
        cdc_error_add_context(*err, "replication slot \"%s\" confirmed up to LSN %s", slot,
                              PQgetvalue(res, 0, 0));
    PQclear(res);
    if (r->src->ckpt_file)
        cdc_error_add_context(*err, "state file \"%s\"", r->src->ckpt_file);
    (*err)->fatal = true;
    return -1;
}

/* Reads the slot's wal_status and retained WAL; warns above the threshold; a lost slot is
   an error. */
static int check_slot(pgc_reader_t *r, cdc_error_t **err)
{
    const char *slot = guard_slot(r);
    const char *params[1] = {slot};
    r->last_slot_check_ms = cdc_mono_ms();
    PGresult *res =
        pgc_query(r->meta,
                  PQserverVersion(r->meta) >= 130000
                      ? "SELECT wal_status, pg_wal_lsn_diff(pg_current_wal_lsn(), "
                        "restart_lsn)::bigint FROM pg_replication_slots WHERE slot_name = $1"
                      : "SELECT NULL::text, pg_wal_lsn_diff(pg_current_wal_lsn(), "
                        "restart_lsn)::bigint FROM pg_replication_slots WHERE slot_name = $1",
                  1, params, "reading the replication slot's WAL", err);
    if (!res) {
        cdc_error_add_context(*err, "replication slot \"%s\"", slot);
        return -1;
    }
    if (PQntuples(res) != 1) {
        PQclear(res);
        r->retained_wal = -1;
        return 0; /* not created yet */
    }
    char status[16];
    snprintf(status, sizeof(status), "%s", PQgetisnull(res, 0, 0) ? "" : PQgetvalue(res, 0, 0));
    r->retained_wal = PQgetisnull(res, 0, 1) ? -1 : strtoll(PQgetvalue(res, 0, 1), NULL, 10);
    PQclear(res);
    if (strcmp(status, "lost") == 0)
        return slot_lost_error(r, NULL, err);
    int64_t warn = cdc_config_size(r->src->cfg, "slot.retained-wal.warn-size");
    bool above = (warn > 0 && r->retained_wal > warn) || strcmp(status, "unreserved") == 0;
    if (!above) {
        r->last_wal_warn_ms = 0;
        return 0;
    }
    if (r->last_wal_warn_ms && r->last_slot_check_ms - r->last_wal_warn_ms < PGC_WAL_WARN_REPEAT_MS)
        return 0;
    r->last_wal_warn_ms = r->last_slot_check_ms;
    cdc_log(CDC_LOG_WARN, NULL, r->src->table_label,
            "replication slot \"%s\" retains %.1f MiB of WAL (%lld bytes; wal_status %s, "
            "'slot.retained-wal.warn-size' %lld bytes): the server keeps it until this job "
            "confirms it; check that the job keeps up and its sink commits, and that "
            "'heartbeat.interval.ms' is not 0 (with 'heartbeat.action.query' on a quiet "
            "database); 'unreserved' means the server will soon invalidate the slot "
            "(max_slot_wal_keep_size) and the job will stop",
            slot, (double)r->retained_wal / 1048576.0, (long long)r->retained_wal,
            *status ? status : "unknown", (long long)warn);
    return 0;
}

/* The normal connection is idle while streaming: a server or network that dropped it gets a
   new one before the guard uses it. */
static void meta_reset_if_lost(pgc_reader_t *r)
{
    if (PQstatus(r->meta) == CONNECTION_BAD)
        PQreset(r->meta);
}

/* Runs heartbeat.action.query on the normal connection; a failure is logged once per streak
   (the stream goes on: the heartbeat only helps the slot move). */
static void run_heartbeat_action(pgc_reader_t *r, const char *sql)
{
    r->last_action_ms = cdc_mono_ms();
    meta_reset_if_lost(r);
    PGresult *res = PQexec(r->meta, sql);
    ExecStatusType st = PQresultStatus(res);
    bool ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (!ok && !r->action_failing)
        cdc_log(CDC_LOG_WARN, NULL, r->src->table_label,
                "'heartbeat.action.query' failed (retried every heartbeat; the stream goes on): "
                "%s",
                PQresultErrorMessage(res));
    else if (ok && r->action_failing)
        cdc_log(CDC_LOG_INFO, NULL, r->src->table_label, "'heartbeat.action.query' succeeds again");
    r->action_failing = !ok;
    PQclear(res);
}

/* Between polls of the stream: requests a keepalive, runs the action query, reads the slot. */
static int slot_guard(pgc_reader_t *r, cdc_error_t **err)
{
    int64_t now = cdc_mono_ms();
    int64_t hb = r->heartbeat_ms;
    if (hb > 0 && now - r->last_keepalive_ms >= hb) {
        r->last_keepalive_ms = now;
        if (status_message(r, true, err) < 0)
            return -1;
    }
    if (r->inflight)
        return 0; /* the normal connection reads a chunk: the rest waits for the next poll */
    const char *action = cdc_config_str(r->src->cfg, "heartbeat.action.query");
    if (hb > 0 && action && *action && now - r->last_action_ms >= hb)
        run_heartbeat_action(r, action);
    int64_t every = hb > 0 && hb < PGC_SLOT_CHECK_MAX_MS ? hb : PGC_SLOT_CHECK_MAX_MS;
    if (now - r->last_slot_check_ms < every)
        return 0;
    meta_reset_if_lost(r);
    cdc_error_t *e = NULL;
    if (check_slot(r, &e) == 0) {
        if (r->check_failing)
            cdc_log(CDC_LOG_INFO, NULL, r->src->table_label, "reading the slot's WAL works again");
        r->check_failing = false;
        return 0;
    }
    if (e->fatal) { /* the slot is lost */
        *err = e;
        return -1;
    }
    /* a failed read is not a reason to stop the stream (which reports a lost slot itself) */
    if (!r->check_failing)
        cdc_log(CDC_LOG_WARN, NULL, r->src->table_label,
                "replication slot \"%s\": %s (retried every heartbeat; the stream goes on): %s",
                guard_slot(r), e->message, e->detail ? e->detail : "");
    r->check_failing = true;
    r->retained_wal = -1;
    cdc_error_destroy(e);
    return 0;
}

int pgc_start_streaming(pgc_reader_t *r, const char *slot, cdc_error_t **err)
{
    const char *pub = pgc_opt(r->src->cfg, "publication.name");
    char *qslot = PQescapeIdentifier(r->repl, slot, strlen(slot));
    /* publication_names takes a quoted identifier list inside a string literal */
    char *qpub = PQescapeIdentifier(r->repl, pub, strlen(pub));
    char *lit = PQescapeLiteral(r->repl, qpub, strlen(qpub));
    /* from the two-phase checkpoint's LSN when it is ahead of the slot (the server takes the
       later of it and the slot's confirmed position; transactions that ended before are skipped) */
    /* during a chunked snapshot (or with signals: one may start) also the logical messages: the
       chunks' high watermarks */
    char *sql = cdc_strdup_printf(
        "START_REPLICATION SLOT %s LOGICAL %X/%X (proto_version '1', "
        "publication_names %s%s)",
        qslot, (unsigned)(r->ckpt_lsn >> 32), (unsigned)r->ckpt_lsn, lit,
        r->snap || (r->sig_deser && PQserverVersion(r->meta) >= 140000) ? ", messages 'true'" : "");
    PQfreemem(qslot);
    PQfreemem(qpub);
    PQfreemem(lit);
    PGresult *res = PQexec(r->repl, sql);
    free(sql);
    if (PQresultStatus(res) != PGRES_COPY_BOTH && slot_lost_text(PQresultErrorMessage(res))) {
        slot_lost_error(r, PQresultErrorMessage(res), err);
        PQclear(res);
        return -1;
    }
    if (PQresultStatus(res) != PGRES_COPY_BOTH) {
        cdc_error_set(err, CDC_ERR_REMOTE, "could not start replication from slot \"%s\"", slot);
        cdc_error_set_detail(*err, "%s", PQresultErrorMessage(res));
        PQclear(res);
        return -1;
    }
    PQclear(res);
    r->streaming = true;
    r->stream_slot = slot;
    r->last_status_ms = cdc_mono_ms();
    r->last_keepalive_ms = r->last_status_ms;
    snprintf(r->slot_labels, sizeof(r->slot_labels), "slot=\"%s\"", slot);
    if (check_slot(r, err) < 0)
        return -1;
    cdc_log(CDC_LOG_INFO, NULL, r->src->table_label, "streaming changes from slot \"%s\"", slot);
    return 0;
}

static void release_held(pgc_reader_t *r)
{
    for (int i = 0; i < r->nheld; i++)
        PQfreemem(r->held[i]);
    r->nheld = 0;
}

static void hold(pgc_reader_t *r, char *buf)
{
    if (r->nheld == r->capheld) {
        r->capheld = r->capheld ? r->capheld * 2 : 64;
        r->held = cdc_xrealloc(r->held, (size_t)r->capheld * sizeof(*r->held));
    }
    r->held[r->nheld++] = buf;
}

/* ---- on-demand snapshots (signal-data-collection) -------------------------------------------
 *
 * The signal table's inserts come in the same stream (the table is in the publication); a
 * second pgoutput decoder reads only that table's three columns, so its rows never reach the
 * sink. An 'execute-snapshot' naming the captured table queues it (with its filter) in the
 * snapshot engine. After the initial snapshot (or with latest-offset, or a resumed slot) the
 * engine's chunks then run on the permanent slot's stream, watermarks and reconciliation as in
 * the initial snapshot, without its end (the slot copy): the stream just goes on.
 */

/* The signal table's decoder: the same messages, only that table, its three columns. */
static int open_signals(pgc_reader_t *r, cdc_error_t **err)
{
    const cdc_format_factory_t *fmt = cdc_registry_format("pgoutput");
    cdc_batch_init(&r->sig_batch);
    cdc_kv_t kv = {0};
    cdc_kv_set(&kv, "table-name", r->src->signal);
    r->sig_cfg = cdc_config_new(fmt->options, "format \"pgoutput\"", &kv, err);
    cdc_kv_free(&kv);
    if (!r->sig_cfg)
        return -1;
    r->sig_type = cdc_type_parse("ROW<id STRING, type STRING, data STRING>", NULL);
    cdc_format_ctx_t fctx = {.cfg = r->sig_cfg, .row_type = r->sig_type, .table = r->src->signal};
    return fmt->deser_new(&fctx, &r->sig_deser, err);
}

/* Whether a signal's data collection names the captured table: "schema.table", or the table's
   name alone (a postgres-cdc source captures one table). */
static bool captures(const pgc_source_t *s, const char *name)
{
    return strcmp(name, s->table_label) == 0 || strcmp(name, pgc_opt(s->cfg, "table-name")) == 0;
}

/* Starts an on-demand snapshot on the stream (split 0) when none runs: 1, 0 when it cannot
   (logged: the signal is skipped), -1 on an error. Snapshot rows are decoded by the stream's
   decoder, so it gets the table's current Relation first. */
static int start_on_demand(pgc_reader_t *r, cdc_batch_t *out, const char *at, cdc_error_t **err)
{
    pgc_source_t *s = r->src;
    if (r->snap)
        return 1; /* (the initial snapshot, or one on demand, runs: the table joins its queue) */
    meta_reset_if_lost(r);
    cdc_error_t *e = NULL;
    if (s->nkey == 0 && pgc_resolve_key(r, &e) < 0) {
        cdc_log(CDC_LOG_WARN, NULL, s->table_label, "signal %s: %s; skipped", at, e->message);
        cdc_error_destroy(e);
        return 0;
    }
    if (s->nkey == 0 || PQserverVersion(r->meta) < 140000) {
        cdc_log(CDC_LOG_WARN, NULL, s->table_label,
                "signal %s: an on-demand snapshot needs %s; skipped", at,
                s->nkey == 0 ? "a key (a primary key or "
                               "'scan.incremental.snapshot.chunk.key-column')"
                             : "PostgreSQL 14 or later (logical messages as watermarks)");
        return 0;
    }
    for (int i = 0; i < r->ncols; i++) /* (the table as it is now) */
        free(r->cols[i].name);
    free(r->cols);
    r->cols = NULL;
    if (pgc_load_table(r, err) < 0 || pgc_synth_relation(r, out, err) < 0)
        return -1;
    r->snap = s->snap;
    r->resnap = true;
    r->resnap_ms = cdc_mono_ms();
    r->resnap_base = cdc_snapshot_stats(s->snap);
    return 1;
}

/*
 * The signal table's rows in this message (the decoder also needs its Relation): an inserted
 * 'execute-snapshot' queues the captured table (with its filter). Another type, malformed data or a
 * table this source does not capture is logged and skipped (the signal table is the user's; a typo
 * must not stop the job).
 */
static int read_signals(pgc_reader_t *r, const char *msg, size_t len, uint64_t lsn,
                        cdc_batch_t *out, cdc_error_t **err)
{
    pgc_source_t *s = r->src;
    cdc_batch_reset(&r->sig_batch);
    cdc_buf_clear(&r->sig_deser->errmsg);
    if (r->sig_deser->ops->decode(r->sig_deser, msg, len, &r->sig_batch) == CDC_DECODE_ERROR) {
        cdc_error_set(err, CDC_ERR_PARSE, "postgres-cdc: signal table \"%s\": %s", s->signal,
                      cdc_buf_cstr(&r->sig_deser->errmsg));
        cdc_error_add_context(*err, "at LSN %X/%X", (unsigned)(lsn >> 32), (unsigned)lsn);
        return -1;
    }
    for (uint32_t i = 0; i < r->sig_batch.n; i++) {
        const cdc_row_t *row = &r->sig_batch.rows[i];
        const cdc_value_t *id = &row->values[0], *type = &row->values[1], *data = &row->values[2];
        char at[160];
        snprintf(at, sizeof(at), "\"%.*s\" (table %s, LSN %X/%X)",
                 (id->flags & CDC_V_NULL) ? 0 : (int)(id->v.s.len > 64 ? 64 : id->v.s.len),
                 id->v.s.ptr, s->signal, (unsigned)(lsn >> 32), (unsigned)lsn);
        bool null_type = (type->flags & CDC_V_NULL) != 0;
        if (null_type || type->v.s.len != 16 || memcmp(type->v.s.ptr, "execute-snapshot", 16)) {
            cdc_log(CDC_LOG_WARN, NULL, s->table_label,
                    "signal %s: type \"%.*s\" is not supported (only 'execute-snapshot'); "
                    "skipped",
                    at, null_type ? 0 : (int)type->v.s.len, type->v.s.ptr);
            continue;
        }
        cdc_snap_signal_t sig;
        cdc_error_t *e = NULL;
        if ((data->flags & CDC_V_NULL) ||
            cdc_snap_signal_parse(data->v.s.ptr, data->v.s.len, &sig, &e) < 0) {
            cdc_log(CDC_LOG_WARN, NULL, s->table_label, "signal %s: %s; skipped", at,
                    e ? e->message : "its data is NULL");
            cdc_error_destroy(e);
            continue;
        }
        for (int k = 0; k < sig.n; k++) {
            if (!captures(s, sig.collections[k])) {
                cdc_log(CDC_LOG_WARN, NULL, s->table_label,
                        "signal %s: %s is not the table this source captures (%s); skipped", at,
                        sig.collections[k], s->table_label);
                continue;
            }
            int rc = start_on_demand(r, out, at, err);
            if (rc < 0) {
                cdc_snap_signal_free(&sig);
                return -1;
            }
            if (rc == 0)
                continue;
            cdc_log(CDC_LOG_INFO, NULL, s->table_label, "signal: snapshot of %s%s%s",
                    sig.collections[k], sig.filters[k] ? " where " : "",
                    sig.filters[k] ? sig.filters[k] : "");
            cdc_snapshot_queue_table(s->snap, 0, sig.filters[k]);
        }
        cdc_snap_signal_free(&sig);
    }
    return 0;
}

/* Split 0: an on-demand snapshot has emitted its last chunk; its figures. */
static void end_on_demand(pgc_reader_t *r)
{
    cdc_snap_stats_t st = cdc_snapshot_stats(r->snap), b = r->resnap_base;
    cdc_log(CDC_LOG_INFO, NULL, r->src->table_label,
            "on-demand snapshot done: %llu rows in %llu chunks in %.1f s; %llu rows left to the "
            "stream's newer changes",
            (unsigned long long)(st.rows - b.rows), (unsigned long long)(st.chunks - b.chunks),
            (double)(cdc_mono_ms() - r->resnap_ms) / 1000.0,
            (unsigned long long)(st.reconciled - b.reconciled));
    r->snap = NULL;
    r->resnap = false;
    r->state_stale = true; /* (the next commit saves the state without its ranges) */
}

/* Handles one CopyData message: 0, 1 when it was a logical message during a chunked snapshot
   (a chunk's watermark), 2 at a schema change (r->change), -1 on an error. */
static int on_copy(pgc_reader_t *r, char *buf, int len, cdc_batch_t *out, cdc_error_t **err)
{
    const uint8_t *p = (const uint8_t *)buf;
    if (len >= 1 && p[0] == 'k') {
        if (len < 18) {
            cdc_error_set(err, CDC_ERR_REMOTE, "short keepalive message (%d bytes)", len);
            return -1;
        }
        uint64_t end = get_u64(p + 1);
        r->last_keepalive_ms = cdc_mono_ms();
        if (r->heartbeat_ms > 0 && !r->sp->in_txn && r->pending_lsn <= r->confirmed_lsn &&
            end > r->confirmed_lsn) {
            /* everything returned is durable and no transaction is open: WAL up to here holds
               nothing for us, so the slot may release it (an idle table must not pin WAL) */
            r->confirmed_lsn = end;
            r->pending_lsn = end;
            return send_status(r, true, err);
        }
        return send_status(r, p[17] != 0, err);
    }
    if (len < 25 || p[0] != 'w') {
        cdc_error_set(err, CDC_ERR_REMOTE, "unexpected replication message 0x%02x (%d bytes)",
                      len ? p[0] : 0, len);
        return -1;
    }
    uint64_t start = get_u64(p + 1);
    const char *payload = buf + 25;
    size_t plen = (size_t)len - 25;
    if (start > r->received_lsn)
        r->received_lsn = start;
    /* a logical message (flags u8, lsn u64, ...): its LSN is the one pg_logical_emit_message
       returned (the end of its WAL record), a chunk's high watermark */
    uint64_t msg_lsn = plen >= 10 && payload[0] == 'M' ? get_u64((const uint8_t *)payload + 2) : 0;
    uint32_t from = out->n;
    /* (a replay of the transaction of a schema change skips what came before it) */
    bool skipped = pgc_schema_skip(r, payload, plen);
    int fed = skipped ? 0 : pgc_feed(r, payload, plen, out, start, true, err);
    if (fed < 0)
        return -1;
    if (!skipped)
        pgc_schema_after(r, payload, plen, fed == 1);
    if (r->sp->txn_end) /* a Commit: the server may release the WAL up to its end */
        r->pending_lsn = r->sp->pos;
    /* a snapshot runs, or a signal may start one: the position and the last transactions */
    bool track = r->snap || r->sig_deser;
    if (track && plen >= 21 && payload[0] == 'B') /* final LSN, commit time, xid */
        r->txn_xid = get_u32((const uint8_t *)payload + 17);
    if (track && r->sp->txn_end) {
        int i = r->nrecent++ % PGC_RECENT;
        r->recent[i].xid = r->txn_xid;
        r->recent[i].end = r->sp->pos;
    }
    if (track) { /* where the stream stands */
        uint64_t at = r->sp->txn_end && r->sp->pos > msg_lsn ? r->sp->pos : msg_lsn;
        if (at > r->cur.minor)
            r->cur = (cdc_snap_pos_t){0, at};
    }
    if (r->snap) { /* the snapshot sees the stream's rows */
        cdc_snapshot_observe(r->snap, out, from, r->cur);
    }
    if (!r->streamed && out->n > from) { /* (during a snapshot: how soon changes flow) */
        r->streamed = true;
        cdc_log(CDC_LOG_INFO, NULL, r->src->table_label, "first streamed change after %lld ms",
                (long long)(cdc_mono_ms() - r->t_open));
    }
    if (r->sig_deser && plen > 0 && (payload[0] == 'R' || payload[0] == 'I') &&
        read_signals(r, payload, plen, start, out, err) < 0)
        return -1;
    if (fed == 1 && r->change_ready)
        return 2;
    return r->snap && msg_lsn ? 1 : 0; /* a watermark: a chunk may be ready */
}

static int poll_stream(pgc_reader_t *r, cdc_batch_t *out, uint32_t max, cdc_error_t **err)
{
    int64_t deadline = cdc_mono_ms() + 100;
    while (out->n < max) {
        char *buf = NULL;
        int len = PQgetCopyData(r->repl, &buf, 1);
        if (len > 0) {
            hold(r, buf);
            int rc = on_copy(r, buf, len, out, err);
            if (rc < 0)
                return -1;
            if (rc > 0)
                break; /* emit the chunk (or the rows before a schema change) before reading on */
            continue;
        }
        if (len == -1 || len == -2) {
            /* the server's reason, when it ended the stream with an error */
            PGresult *res = len == -1 ? PQgetResult(r->repl) : NULL;
            const char *why = res && *PQresultErrorMessage(res) ? PQresultErrorMessage(res)
                                                                : PQerrorMessage(r->repl);
            if (slot_lost_text(why)) {
                slot_lost_error(r, why, err);
                PQclear(res);
                return -1;
            }
            cdc_error_set(err, CDC_ERR_REMOTE, "the replication stream of \"%s\" ended",
                          r->src->table_label);
            cdc_error_set_detail(*err, "%s", why);
            PQclear(res);
            cdc_error_set_hint(*err, "the server may have restarted or ended the connection; "
                                     "run again to resume from the last committed position");
            return -1;
        }
        /* nothing buffered: return what we have, or wait (bounded) for the socket */
        if (out->n > 0)
            break;
        int left = (int)(deadline - cdc_mono_ms());
        if (left <= 0)
            break;
        struct pollfd pfd = {.fd = PQsocket(r->repl), .events = POLLIN};
        if (poll(&pfd, 1, left) > 0 && PQconsumeInput(r->repl) == 0) {
            cdc_error_set(err, CDC_ERR_REMOTE, "lost the replication connection of \"%s\"",
                          r->src->table_label);
            cdc_error_set_detail(*err, "%s", PQerrorMessage(r->repl));
            cdc_error_set_hint(*err, "run again to resume from the last committed position");
            return -1;
        }
    }
    if (slot_guard(r, err) < 0)
        return -1;
    return send_status(r, false, err);
}

/* ---- reader -------------------------------------------------------------------------------- */

/* CREATE_REPLICATION_SLOT on the replication connection; the exported snapshot's name into
   snapshot (when given). */
int pgc_create_slot(pgc_reader_t *r, const char *name, bool export, char *snapshot, size_t cap,
                    cdc_error_t **err)
{
    char *qname = PQescapeIdentifier(r->repl, name, strlen(name));
    char *sql = cdc_strdup_printf("CREATE_REPLICATION_SLOT %s LOGICAL pgoutput %s", qname,
                                  export ? "EXPORT_SNAPSHOT" : "NOEXPORT_SNAPSHOT");
    PQfreemem(qname);
    PGresult *res = PQexec(r->repl, sql);
    free(sql);
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        cdc_error_set(err, CDC_ERR_REMOTE, "could not create replication slot \"%s\"", name);
        cdc_error_set_detail(*err, "%s", PQresultErrorMessage(res));
        cdc_error_set_hint(*err, "the server needs wal_level=logical and a free "
                                 "max_replication_slots entry");
        PQclear(res);
        return -1;
    }
    cdc_log(CDC_LOG_INFO, NULL, r->src->table_label, "created replication slot \"%s\" at %s", name,
            PQgetvalue(res, 0, 1));
    if (snapshot)
        snprintf(snapshot, cap, "%s", PQgetvalue(res, 0, 2));
    PQclear(res);
    return 0;
}

static int make_permanent(pgc_reader_t *r, cdc_error_t **err);

static int pgc_open_streams(pgc_reader_t *r, cdc_error_t **err)
{
    pgc_source_t *s = r->src;
    if (s->startup == MODE_SNAPSHOT) {
        /* snapshot only: the table as it is now, in one transaction; no slot */
        pgc_snapshot_none(r);
        return pgc_keyless_start(r, NULL, err);
    }
    const char *slot = pgc_opt(s->cfg, "slot.name");
    bool exists = false;
    if (find_slot(r, slot, &exists, err) < 0)
        return -1;
    if (exists && r->ckpt_state.len > 0 && PQserverVersion(r->meta) >= 140000) {
        /* an on-demand snapshot had ranges left (the state file): resume it on the stream */
        if (pgc_resolve_key(r, err) < 0 || pgc_load_ranges(r, err) < 0)
            return -1;
        cdc_snapshot_set_check(s->snap, pgc_check_read, r);
        cdc_snapshot_start(s->snap);
        r->snap = s->snap;
        r->resnap = true;
        r->resnap_ms = cdc_mono_ms();
        cdc_log(CDC_LOG_INFO, NULL, s->table_label,
                "replication slot \"%s\" exists: resuming from its confirmed position, and the "
                "on-demand snapshot resumed from the saved ranges",
                slot);
        return pgc_start_streaming(r, slot, err);
    }
    if (exists) {
        pgc_snapshot_none(r);
        cdc_log(CDC_LOG_INFO, NULL, s->table_label,
                "replication slot \"%s\" exists: resuming from its confirmed position", slot);
        return pgc_start_streaming(r, slot, err);
    }
    if (s->startup != MODE_INITIAL) {
        pgc_snapshot_none(r);
        if (pgc_create_slot(r, slot, false, NULL, 0, err) < 0)
            return -1;
        return pgc_start_streaming(r, slot, err);
    }
    /* the snapshot's slot: permanent, renamed (copied) to slot.name only once the snapshot is
       durable downstream, so slot.name existing means "snapshot done" */
    r->init_slot = cdc_strdup_printf("%.56s_init", slot);
    bool init_exists = false;
    if (find_slot(r, r->init_slot, &init_exists, err) < 0)
        return -1;
    if (init_exists && r->ckpt_snapshot) {
        /* an earlier run committed its snapshot and stopped before the slot copy */
        pgc_snapshot_none(r);
        cdc_log(CDC_LOG_INFO, NULL, s->table_label,
                "the snapshot of the earlier run is committed (checkpoint %llu): finishing it",
                (unsigned long long)r->checkpoint);
        return make_permanent(r, err);
    }
    if (pgc_resolve_key(r, err) < 0)
        return -1;
    /* a key (and PostgreSQL 14+ for the messages): chunks while the stream runs */
    if (s->incremental && s->nkey > 0 && PQserverVersion(r->meta) >= 140000)
        return pgc_chunks_start(r, init_exists, err);
    pgc_snapshot_none(r);
    if (init_exists) {
        /* an earlier run stopped during its snapshot: read the table again now; the changes
           from the slot's start replayed after it correct whatever that run had written */
        cdc_log(CDC_LOG_INFO, NULL, s->table_label,
                "replication slot \"%s\" exists: an earlier snapshot did not finish; taking it "
                "again",
                r->init_slot);
        return pgc_keyless_start(r, NULL, err);
    }
    char sname[128];
    if (pgc_create_slot(r, r->init_slot, true, sname, sizeof(sname), err) < 0)
        return -1;
    return pgc_keyless_start(r, sname, err);
}

/* The snapshot is durable downstream: copy the temporary slot (at the snapshot's consistent
   point, or where its stream was confirmed) to the permanent one and stream from that. */
static int make_permanent(pgc_reader_t *r, cdc_error_t **err)
{
    const char *slot = pgc_opt(r->src->cfg, "slot.name");
    if (r->streaming && r->pending_lsn > r->confirmed_lsn) {
        r->confirmed_lsn = r->pending_lsn;
        if (send_status(r, true, err) < 0)
            return -1;
    }
    const char *params[2] = {r->init_slot, slot};
    PGresult *res = pgc_query(r->meta, "SELECT pg_copy_logical_replication_slot($1, $2, false)", 2,
                              params, "making the replication slot permanent", err);
    if (!res)
        return -1;
    PQclear(res);
    cdc_log(CDC_LOG_INFO, NULL, r->src->table_label,
            "initial snapshot durable: replication slot \"%s\" made permanent", slot);
    /* the old session held the snapshot's slot; drop it from a new one */
    PQfinish(r->repl);
    r->streaming = false;
    r->stream_slot = NULL;
    r->repl = pgc_connect(r->src, true, err);
    if (!r->repl)
        return -1;
    const char *p1[1] = {r->init_slot};
    /* the old session's walsender may take a moment to exit and release the slot */
    for (int tries = 0;; tries++) {
        res = pgc_query(r->meta, "SELECT pg_drop_replication_slot($1)", 1, p1,
                        "dropping the snapshot's replication slot", err);
        if (res)
            break;
        char *m = *err ? cdc_error_format(*err) : NULL;
        bool busy = m && strstr(m, "is active for PID");
        free(m);
        if (!busy || tries == 100)
            return -1;
        cdc_error_destroy(*err);
        *err = NULL;
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    PQclear(res);
    r->awaiting_durable = false;
    r->snap = NULL;
    /* (the copy may lag the status just sent: what was committed is not streamed again) */
    if (r->confirmed_lsn > r->ckpt_lsn)
        r->ckpt_lsn = r->confirmed_lsn;
    return pgc_start_streaming(r, slot, err);
}

/* The decoder of this reader (snapshot rows of a worker are decoded as split 0's). */
int pgc_make_deser(pgc_reader_t *r, cdc_error_t **err)
{
    pgc_source_t *s = r->src;
    const cdc_format_factory_t *fmt = cdc_registry_format("pgoutput");
    cdc_kv_t fo = {0};
    cdc_kv_set(&fo, "table-name", s->table_label);
    cdc_kv_set(&fo, "binary.handling.mode", cdc_binary_modes[cdc_dbz_binary_mode(s->cfg)]);
    r->fmt_cfg = cdc_config_new(fmt->options, "format \"pgoutput\"", &fo, err);
    cdc_kv_free(&fo);
    if (!r->fmt_cfg)
        return -1;
    const char *keys[sizeof(s->md) / sizeof(s->md[0])];
    for (int i = 0; i < s->nmd; i++)
        keys[i] = pgc_metadata[s->md[i]].key;
    cdc_format_ctx_t fctx = {.cfg = r->fmt_cfg,
                             .row_type = s->physical,
                             .metadata = keys,
                             .nmetadata = s->nmd,
                             .table = s->table_label,
                             .database = pgc_opt(s->cfg, "database-name")};
    if (fmt->deser_new(&fctx, &r->deser, err) < 0)
        return -1;
    r->sp = r->deser->ops->source_pos(r->deser);
    return 0;
}

static int apply_store(pgc_reader_t *r, cdc_error_t **err);

static int pgc_poll(cdc_reader_t *base, cdc_batch_t *out, uint32_t max, cdc_error_t **err)
{
    pgc_reader_t *r = (pgc_reader_t *)base;
    if (r->worker)
        return pgc_worker_poll(r, out, err);
    release_held(r);
    r->change_ready = false;
    if (r->awaiting_durable)
        return CDC_POLL_FLUSH;
    if (r->ended)
        return CDC_POLL_END;
    if (!r->started && apply_store(r, err) < 0)
        return CDC_POLL_ERROR;
    if (!r->snapshot && !r->streaming) {
        if (pgc_open_streams(r, err) < 0)
            return CDC_POLL_ERROR;
        if ((r->snapshot || r->snap) && pgc_synth_relation(r, out, err) < 0)
            return CDC_POLL_ERROR;
    }
    if (r->snapshot) {
        bool done = false;
        if (pgc_keyless_poll(r, out, &done, err) < 0)
            return CDC_POLL_ERROR;
        if (done && r->src->startup == MODE_SNAPSHOT) {
            cdc_log(CDC_LOG_INFO, NULL, r->src->table_label,
                    "snapshot read ('scan.startup.mode' = 'snapshot'): the source ends");
            r->snapshot = false;
            r->ended = true;
            return CDC_POLL_END;
        }
        if (done) {
            cdc_log(CDC_LOG_INFO, NULL, r->src->table_label, "initial snapshot read");
            r->awaiting_durable = true;
            return CDC_POLL_FLUSH; /* flush and commit: then the slot is made permanent */
        }
        return CDC_POLL_OK;
    }
    if (r->snap && r->resnap && cdc_snapshot_finished(r->snap))
        end_on_demand(r);
    if (r->snap) {
        int rc = pgc_chunks_poll(r, out, max, err);
        if (rc != PGC_STREAM)
            return rc;
    }
    if (poll_stream(r, out, max, err) < 0)
        return CDC_POLL_ERROR;
    return r->change_ready ? CDC_POLL_SCHEMA : CDC_POLL_OK;
}

static int save_checkpoint(pgc_reader_t *r, uint64_t checkpoint, uint64_t lsn, bool snapshot,
                           cdc_error_t **err);

static int pgc_commit(cdc_reader_t *base, cdc_error_t **err)
{
    pgc_reader_t *r = (pgc_reader_t *)base;
    if (r->worker)
        return 0;
    uint64_t lsn = r->pending_lsn > r->ckpt_lsn ? r->pending_lsn : r->ckpt_lsn;
    if (r->awaiting_durable) {
        if (r->src->ckpt_file && r->streaming &&
            save_checkpoint(r, r->checkpoint, lsn, true, err) < 0)
            return -1;
        return make_permanent(r, err);
    }
    if (!r->streaming)
        return 0;
    pgc_schema_committed(r, r->pending_lsn);
    /* with a state directory: the position and the snapshot's ranges left, for a restart */
    if (r->src->ckpt_file &&
        (r->snap || r->state_stale || r->schema_dirty || r->pending_lsn > r->confirmed_lsn) &&
        save_checkpoint(r, r->checkpoint, lsn, false, err) < 0)
        return -1;
    if (r->pending_lsn <= r->confirmed_lsn)
        return 0;
    r->confirmed_lsn = r->pending_lsn;
    return send_status(r, true, err);
}

/* ---- two-phase commit (with a state directory) ----------------------------------------------
 *
 * The state file holds "<checkpoint>\t<lsn>\t<snapshot|stream>": the runtime's
 * decision for the files a sink prepared (cdc_plugin.h). It is written before
 * the slot moves: at the snapshot's end before the slot copy (a restart that
 * finds the state "snapshot" and "<slot>_init" alone finishes the copy instead
 * of reading the table again), in the stream before the standby status update
 * (a restart streams from the state's LSN, ahead of the slot's). Commits come
 * only at transaction ends (at_boundary), so the LSN covers every row prepared.
 */

/* Appends the state file's text (also the record of the position the job's state keeps). */
static void put_state(pgc_reader_t *r, cdc_buf_t *b, uint64_t checkpoint, uint64_t lsn,
                      bool snapshot)
{
    cdc_buf_printf(b, "%llu\t%X/%X\t%s\n", (unsigned long long)checkpoint, (unsigned)(lsn >> 32),
                   (unsigned)lsn, snapshot ? "snapshot" : "stream");
    if (r->snap) { /* a chunked snapshot runs: its table and the ranges not emitted yet */
        cdc_buf_printf(b, "snapshot\tv2\ntable\t%s\n", r->src->table_label);
        cdc_snapshot_save(r->snap, b);
    }
    pgc_schema_save(r, b);
}

static int save_checkpoint(pgc_reader_t *r, uint64_t checkpoint, uint64_t lsn, bool snapshot,
                           cdc_error_t **err)
{
    cdc_buf_t *b = &r->filebuf; /* (sqlbuf may hold the statements of a chunk in flight) */
    cdc_buf_clear(b);
    put_state(r, b, checkpoint, lsn, snapshot);
    if (cdc_file_write_atomic(r->src->ckpt_file, b->data, b->len, err) < 0) {
        cdc_error_add_context(*err, "postgres-cdc \"%s\": saving the checkpoint",
                              r->src->table_label);
        return -1;
    }
    r->checkpoint = checkpoint;
    r->ckpt_lsn = lsn;
    r->ckpt_snapshot = r->ckpt_snapshot || snapshot;
    r->state_stale = false;
    r->schema_dirty = false;
    return 0;
}

/*
 * A state's text (put_state's): the LSN to stream from, whether a snapshot was
 * committed, the ranges a chunked snapshot had left, the schema history. 0, 1
 * when its first line is malformed (the caller's error), or -1 with *err.
 */
static int load_state(pgc_reader_t *r, const char *text, uint64_t *checkpoint, cdc_error_t **err)
{
    unsigned long long id = 0;
    unsigned hi = 0, lo = 0;
    char kind[16] = "";
    if (sscanf(text, "%llu\t%X/%X\t%15s", &id, &hi, &lo, kind) != 4 ||
        (strcmp(kind, "snapshot") != 0 && strcmp(kind, "stream") != 0))
        return 1;
    *checkpoint = id;
    r->ckpt_lsn = (uint64_t)hi << 32 | lo;
    /* "stream" follows a committed snapshot, or a slot without one, unless a chunked snapshot
       had ranges left ("snapshot\tv2", then its ranges: the restart resumes it) */
    const char *rest = strchr(text, '\n');
    bool v2 = rest && strncmp(rest + 1, "snapshot\tv2\n", 12) == 0;
    r->ckpt_snapshot = !(v2 && strstr(rest, "\nrange\t"));
    cdc_buf_clear(&r->ckpt_state);
    if (v2 && !r->ckpt_snapshot)
        cdc_buf_puts(&r->ckpt_state, rest + 1);
    return pgc_schema_load(r, text, err) < 0 ? -1 : 0;
}

/* The state file, when there is one; a malformed one is an error naming it. */
static int load_checkpoint(pgc_reader_t *r, cdc_error_t **err)
{
    cdc_buf_t b = {0};
    int rc = cdc_file_read_all(r->src->ckpt_file, &b, err);
    if (rc != 0) {
        cdc_buf_free(&b);
        return rc < 0 ? -1 : 0;
    }
    free(r->state_origin);
    r->state_origin = cdc_strdup_printf("state file \"%s\"", r->src->ckpt_file);
    rc = load_state(r, cdc_buf_cstr(&b), &r->checkpoint, err);
    if (rc == 1) {
        cdc_error_set(err, CDC_ERR_IO, "\"%s\" is not a postgres-cdc state file cdcflow wrote",
                      r->src->ckpt_file);
        cdc_error_set_hint(*err, "it should read \"<checkpoint>\t<lsn>\t<snapshot|stream>\"; "
                                 "remove it only together with the replication slot");
    }
    cdc_buf_free(&b);
    return rc == 0 ? 0 : -1;
}

#define PGC_POS_MAGIC "cdcflow postgres-cdc position v1"

static bool pgc_at_boundary(cdc_reader_t *base);

/*
 * The job's state keeps the position (cdc_plugin.h): one line for split 0, its
 * token the whole resume record — PGC_POS_MAGIC, then the state file's text
 * (the LSN after the last transaction returned, the chunked snapshot's ranges
 * not emitted, the table's last Relation). The splits reading chunks have none:
 * their reads stay alive in the shared snapshot until split 0 emits them, so
 * its record saves them as ranges to read again (exact with any parallelism).
 */
static int pgc_positions(cdc_reader_t *base, cdc_buf_t *out, cdc_error_t **err)
{
    pgc_reader_t *r = (pgc_reader_t *)base;
    if (r->worker)
        return 0;
    if (!pgc_at_boundary(base))
        return cdc_error_set(err, CDC_ERR_INTERNAL,
                             "postgres-cdc \"%s\": the position was asked inside a "
                             "transaction, a chunk's rows or the keyless snapshot, where none is "
                             "exact",
                             r->key);
    uint64_t lsn = !r->streaming                  ? r->ckpt_lsn
                   : r->pending_lsn > r->ckpt_lsn ? r->pending_lsn
                                                  : r->ckpt_lsn;
    cdc_buf_t *b = &r->filebuf;
    cdc_buf_clear(b);
    cdc_buf_puts(b, PGC_POS_MAGIC "\n");
    put_state(r, b, r->checkpoint, lsn, r->awaiting_durable);
    cdc_position_put(out, r->key, b->data, b->len);
    return 0;
}

static void pgc_set_position_store(cdc_reader_t *base, const cdc_position_store_t *store)
{
    ((pgc_reader_t *)base)->store = store;
}

/*
 * The first poll of split 0: a record the job's state keeps for this key
 * replaces what the state file (or this process) gave; the streams then open
 * from it (START_REPLICATION at its LSN: the server skips the transactions
 * that ended before, even when the slot's confirmed position is older).
 */
static int apply_store(pgc_reader_t *r, cdc_error_t **err)
{
    r->started = true;
    if (!r->store)
        return 0;
    cdc_buf_t lines = {0}, rec = {0};
    int rc = r->store->load(r->store->ctx, &lines, err);
    if (rc == 0)
        rc = cdc_position_get(lines.data, lines.len, r->key, PGC_POS_MAGIC, &rec, err);
    if (rc == 1) {
        free(r->state_origin);
        r->state_origin = cdc_strdup_printf("the stored position of \"%s\"", r->key);
        r->state_stored = true;
        uint64_t checkpoint = 0; /* (the two-phase id is the state file's; not used here) */
        cdc_buf_clear(&r->hist);
        r->skip_txn = r->skip_rows = 0;
        rc = load_state(r, cdc_buf_cstr(&rec) + strlen(PGC_POS_MAGIC) + 1, &checkpoint, err);
        if (rc == 1)
            rc = cdc_error_set(err, CDC_ERR_PARSE,
                               "the stored position of \"%s\" cannot be read: its first line is "
                               "not \"<checkpoint>\t<lsn>\t<snapshot|stream>\"",
                               r->key);
        if (rc < 0 && err && *err)
            cdc_position_hint(*err, " (and the replication slot)");
        if (rc == 0 && r->hist.len == 0) /* (none kept: the catalog's, as at a fresh start) */
            rc = pgc_schema_seed(r, err);
        if (rc == 0)
            rc = pgc_schema_prime(r, err);
        if (rc == 0)
            cdc_log(CDC_LOG_INFO, NULL, r->src->table_label,
                    "\"%s\": resuming from the position the job's state keeps (LSN %X/%X)", r->key,
                    (unsigned)(r->ckpt_lsn >> 32), (unsigned)r->ckpt_lsn);
    }
    cdc_buf_free(&lines);
    cdc_buf_free(&rec);
    if (rc < 0 && err && *err)
        cdc_error_add_context(*err, "postgres-cdc: resuming from the job's state");
    return rc < 0 ? -1 : 0;
}

static int pgc_commit_checkpoint(cdc_reader_t *base, uint64_t checkpoint, cdc_error_t **err)
{
    pgc_reader_t *r = (pgc_reader_t *)base;
    if (r->awaiting_durable) {
        uint64_t at = !r->streaming                  ? 0
                      : r->pending_lsn > r->ckpt_lsn ? r->pending_lsn
                                                     : r->ckpt_lsn;
        if (save_checkpoint(r, checkpoint, at, true, err) < 0)
            return -1;
        return make_permanent(r, err);
    }
    if (r->snapshot)
        return cdc_error_set(err, CDC_ERR_INTERNAL,
                             "postgres-cdc: a commit inside the snapshot of \"%s\"",
                             r->src->table_label);
    uint64_t lsn = r->pending_lsn > r->ckpt_lsn ? r->pending_lsn : r->ckpt_lsn;
    if (r->streaming)
        pgc_schema_committed(r, r->pending_lsn);
    if (save_checkpoint(r, checkpoint, lsn, false, err) < 0)
        return -1;
    if (!r->streaming || r->pending_lsn <= r->confirmed_lsn)
        return 0;
    r->confirmed_lsn = r->pending_lsn;
    return send_status(r, true, err);
}

static uint64_t pgc_last_checkpoint(cdc_reader_t *base)
{
    return ((pgc_reader_t *)base)->checkpoint;
}

/* Outside the keyless snapshot, a transaction and a chunk's rows. */
static bool pgc_at_boundary(cdc_reader_t *base)
{
    pgc_reader_t *r = (pgc_reader_t *)base;
    return !r->worker && !r->snapshot && !r->sp->in_txn &&
           !(r->snap && cdc_snapshot_mid_read(r->snap));
}

static void pgc_metrics(cdc_reader_t *base, cdc_metric_emit_fn emit, void *ctx)
{
    pgc_reader_t *r = (pgc_reader_t *)base;
    if (r->worker)
        return;
    emit(ctx, "cdcflow_source_lsn", "kind=\"received\"", (double)r->received_lsn);
    emit(ctx, "cdcflow_source_lsn", "kind=\"confirmed\"", (double)r->confirmed_lsn);
    emit(ctx, "cdcflow_source_decode_errors_total", "", (double)r->decode_errors);
    if (r->streaming && r->retained_wal >= 0)
        emit(ctx, "cdcflow_source_slot_retained_wal_bytes", r->slot_labels,
             (double)r->retained_wal);
}

static void pgc_close(cdc_reader_t *base)
{
    pgc_reader_t *r = (pgc_reader_t *)base;
    if (r->snapshot)
        PQclear(PQexec(r->meta, "ROLLBACK"));
    if (!r->worker) /* split 0 ends: so do the splits reading chunks */
        cdc_snapshot_stop(r->src->snap);
    if (r->snapshot || r->awaiting_durable || (r->snap && !r->resnap))
        cdc_log(CDC_LOG_WARN, NULL, r->src->table_label,
                "stopped before the initial snapshot was durable: the next run takes it again "
                "and replays the changes since from slot \"%s\"",
                r->init_slot);
    else if (r->resnap)
        cdc_log(CDC_LOG_WARN, NULL, r->src->table_label, "stopped during an on-demand snapshot: %s",
                r->src->ckpt_file ? "the next run resumes it from the state file"
                                  : "without --state-dir it is lost; send the signal again");
    release_held(r);
    free(r->held);
    if (r->repl) {
        PQputCopyEnd(r->repl, NULL);
        PQfinish(r->repl);
    }
    PQfinish(r->meta);
    if (r->deser)
        r->deser->ops->destroy(r->deser);
    cdc_config_destroy(r->fmt_cfg);
    if (r->sig_deser)
        r->sig_deser->ops->destroy(r->sig_deser);
    cdc_config_destroy(r->sig_cfg);
    cdc_type_destroy(r->sig_type);
    cdc_batch_free(&r->sig_batch);
    for (int i = 0; i < r->ncols; i++)
        free(r->cols[i].name);
    free(r->cols);
    free(r->init_slot);
    cdc_buf_free(&r->synth);
    for (int i = 0; i < 16; i++)
        cdc_buf_free(&r->keytext[i]);
    cdc_buf_free(&r->sqlbuf);
    cdc_buf_free(&r->filebuf);
    cdc_buf_free(&r->ckpt_state);
    free(r->state_origin);
    free(r->key);
    cdc_schema_change_free(r->change);
    cdc_buf_free(&r->hist);
    free(r);
}

static const cdc_reader_ops_t pgc_reader_ops = {
    .poll = pgc_poll,
    .commit = pgc_commit,
    .close = pgc_close,
    .metrics = pgc_metrics,
    .positions = pgc_positions,
    .set_position_store = pgc_set_position_store,
    .at_boundary = pgc_at_boundary,
    .schema_change = pgc_schema_change,
};

/* With a state directory: also the two-phase commit's source half (exactly-once files). */
static const cdc_reader_ops_t pgc_reader_ops_2pc = {
    .poll = pgc_poll,
    .commit = pgc_commit,
    .close = pgc_close,
    .metrics = pgc_metrics,
    .commit_checkpoint = pgc_commit_checkpoint,
    .last_checkpoint = pgc_last_checkpoint,
    .positions = pgc_positions,
    .set_position_store = pgc_set_position_store,
    .at_boundary = pgc_at_boundary,
    .schema_change = pgc_schema_change,
};

static int pgc_open_reader(cdc_source_t *base, int split, int nsplits, cdc_reader_t **out,
                           cdc_error_t **err)
{
    pgc_source_t *s = (pgc_source_t *)base;
    pgc_reader_t *r = cdc_xcalloc(1, sizeof(*r));
    r->base.ops = split == 0 && s->ckpt_file ? &pgc_reader_ops_2pc : &pgc_reader_ops;
    r->src = s;
    r->heartbeat_ms = cdc_config_duration_ms(s->cfg, "heartbeat.interval.ms");
    r->retained_wal = -1;
    r->nsplits = nsplits;
    r->t_open = cdc_mono_ms();
    *out = &r->base;
    cdc_buf_t key = {0};
    cdc_buf_puts(&key, "postgres-cdc/");
    cdc_position_key_part(&key, pgc_opt(s->cfg, "hostname"));
    cdc_buf_putc(&key, ':');
    cdc_position_key_part(&key, pgc_opt(s->cfg, "port"));
    cdc_buf_putc(&key, '/');
    cdc_position_key_part(&key, pgc_opt(s->cfg, "database-name"));
    cdc_buf_putc(&key, '/');
    cdc_position_key_part(&key, pgc_opt(s->cfg, "slot.name"));
    cdc_buf_printf(&key, "/%d", split);
    r->key = cdc_xstrdup(cdc_buf_cstr(&key));
    cdc_buf_free(&key);
    if (split > 0) {
        r->worker = true; /* a replication slot has one reader: the others read chunks */
        return 0;
    }
    if ((s->ckpt_file && load_checkpoint(r, err) < 0) || pgc_make_deser(r, err) < 0 ||
        pgc_schema_prime(r, err) < 0 || (s->signal && open_signals(r, err) < 0))
        return -1; /* (the runtime closes the reader, which stops the other splits) */
    r->meta = pgc_connect(s, false, err);
    if (!r->meta)
        return -1;
    if (pgc_load_table(r, err) < 0 || pgc_schema_seed(r, err) < 0)
        return -1;
    if (s->startup == MODE_SNAPSHOT)
        return 0; /* (no slot, no publication: one SELECT of the table) */
    if (ensure_publication(r, err) < 0)
        return -1;
    r->repl = pgc_connect(s, true, err);
    if (!r->repl)
        return -1;
    return 0;
}

static cdc_changelog_mode_t pgc_changelog_mode(cdc_source_t *base)
{
    pgc_source_t *s = (pgc_source_t *)base;
    if (s->startup == MODE_SNAPSHOT)
        return CDC_MODE_INSERT_ONLY; /* (the table's rows, no changes) */
    return s->changelog == CL_UPSERT ? CDC_MODE_UPSERT : CDC_MODE_ALL;
}

static void pgc_describe(cdc_source_t *base, cdc_buf_t *out)
{
    pgc_source_t *s = (pgc_source_t *)base;
    cdc_buf_printf(out, "postgres-cdc(table=%s, slot=%s, publication=%s, startup=%s, changelog=%s)",
                   s->table_label, pgc_opt(s->cfg, "slot.name"),
                   pgc_opt(s->cfg, "publication.name"), pgc_startup_modes[s->startup],
                   s->changelog == CL_UPSERT ? "upsert" : "all");
}

static void pgc_destroy(cdc_source_t *base)
{
    pgc_source_t *s = (pgc_source_t *)base;
    if (!s)
        return;
    cdc_type_destroy(s->produced);
    cdc_type_destroy(s->physical);
    free(s->table_label);
    free(s->ckpt_file);
    free(s->signal);
    free(s->sig_schema);
    free(s->sig_table);
    cdc_snapshot_destroy(s->snap);
    free(s);
}

static int pgc_apply_metadata(cdc_source_t *base, const char *const *keys, int n, cdc_error_t **err)
{
    pgc_source_t *s = (pgc_source_t *)base;
    if (n > (int)(sizeof(s->md) / sizeof(s->md[0])))
        return cdc_error_set(err, CDC_ERR_PLAN, "postgres-cdc: too many metadata columns (%d)", n);
    cdc_type_t *prod = cdc_type_copy(s->physical);
    for (int i = 0; i < n; i++) {
        int j = cdc_metadata_find(pgc_metadata, "postgres-cdc", keys[i], err);
        if (j < 0) {
            cdc_type_destroy(prod);
            return -1;
        }
        s->md[i] = j;
        cdc_type_row_add(prod, keys[i], cdc_type_parse(pgc_metadata[j].type, NULL));
    }
    s->nmd = n;
    cdc_type_destroy(s->produced);
    s->produced = prod;
    s->base.produced = prod;
    return 0;
}

static const cdc_source_ops_t pgc_source_ops = {
    .apply_metadata = pgc_apply_metadata,
    .changelog_mode = pgc_changelog_mode,
    .open_reader = pgc_open_reader,
    .describe = pgc_describe,
    .destroy = pgc_destroy,
};

static const char *const changelog_modes[] = {"all", "upsert", NULL};

/* Flink CDC's options that have no effect here: accepted, with one warning saying why. */
static const struct {
    const char *key, *why;
} pgc_no_effect[] = {
    {"scan.snapshot.fetch.size",
     "the snapshot's rows are streamed by COPY, not fetched in batches"},
    {"connect.pool.size", "each split opens its own connections"},
    {"chunk-meta.group.size", "chunk boundaries are not sent between processes"},
    {"chunk-key.even-distribution.factor.upper-bound",
     "chunks are cut by reading chunk-size rows in key order, never computed from the key's range"},
    {"chunk-key.even-distribution.factor.lower-bound",
     "chunks are cut by reading chunk-size rows in key order, never computed from the key's range"},
    {"scan.incremental.close-idle-reader.enabled", "a split with no chunks left ends"},
    {"scan.incremental.snapshot.backfill.skip",
     "the changes during a chunk's read are always merged into it (exactly-once rows)"},
    {"scan.lsn-commit.checkpoints-num-delay",
     "the slot is confirmed once a checkpoint is durable downstream, and a restart resumes there"},
};

/* Debezium properties a Flink user may write, and the option that does the same here. */
static const cdc_dbz_equiv_t pgc_debezium_equiv[] = {
    {"slot.name", "slot.name"},
    {"publication.name", "publication.name"},
    {"publication.autocreate.mode", "publication.autocreate"},
    {"plugin.name", "decoding.plugin.name"},
    {"snapshot.fetch.size", "scan.snapshot.fetch.size"},
    {"heartbeat.interval.ms", "heartbeat.interval.ms"},
    {"heartbeat.action.query", "heartbeat.action.query"},
    {"signal.data.collection", "signal-data-collection"},
    {"database.sslmode", "sslmode"},
    {"database.sslrootcert", "sslrootcert"},
    {NULL, NULL},
};

/* Debezium's snapshot.mode as scan.startup.mode ('never': no snapshot, the slot's position) */
static const cdc_dbz_snapshot_t pgc_snapshot_modes[] = {
    {"initial", "initial"},           {"initial_only", "snapshot"},  {"no_data", "latest-offset"},
    {"schema_only", "latest-offset"}, {"never", "committed-offset"}, {NULL, NULL},
};

/* Cross-option rules: one warning per key with no effect; the debezium.* keys (cdc_dbz_check). */
static void pgc_check(const cdc_config_t *cfg, cdc_buf_t *problems)
{
    for (size_t i = 0; i < sizeof(pgc_no_effect) / sizeof(pgc_no_effect[0]); i++)
        if (cdc_config_isset(cfg, pgc_no_effect[i].key))
            fprintf(stderr,
                    "cdcflow: warning: postgres-cdc: option \"%s\" has no effect in cdcflow (%s); "
                    "accepted\n",
                    pgc_no_effect[i].key, pgc_no_effect[i].why);
    cdc_dbz_check(cfg, "postgres-cdc", pgc_debezium_equiv, pgc_snapshot_modes, problems);
}

static const cdc_option_def_t pgc_options[] = {
    {.key = "hostname",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_REQUIRED,
     .description = "PostgreSQL server host."},
    {.key = "port",
     .type = CDC_OPT_INT,
     .default_value = "5432",
     .min = 1,
     .max = 65535,
     .description = "PostgreSQL server port."},
    {.key = "username",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_REQUIRED,
     .description = "User with the REPLICATION attribute (and SELECT on the table)."},
    {.key = "password",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_SECRET,
     .description = "Password of the user."},
    {.key = "database-name",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_REQUIRED,
     .description = "Database of the table."},
    {.key = "schema-name",
     .type = CDC_OPT_STRING,
     .default_value = "public",
     .description = "Schema of the table."},
    {.key = "table-name",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_REQUIRED,
     .description = "Table to capture (exact name)."},
    {.key = "slot.name",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_REQUIRED,
     .description = "Logical replication slot: created on first start, resumed afterwards. One "
                    "slot per captured table and pipeline."},
    {.key = "publication.name",
     .type = CDC_OPT_STRING,
     .default_value = "cdcflow_publication",
     .description = "Publication the slot streams."},
    {.key = "publication.autocreate",
     .type = CDC_OPT_BOOL,
     .default_value = "true",
     .description = "Create the publication (FOR TABLE) or add the table to it when missing."},
    {.key = "decoding.plugin.name",
     .type = CDC_OPT_ENUM,
     .default_value = "pgoutput",
     .enum_values = (const char *const[]){"pgoutput", NULL},
     .description = "Output plugin of the slot (pgoutput, decoded by the pgoutput format)."},
    {.key = "scan.startup.mode",
     .type = CDC_OPT_ENUM,
     .default_value = "initial",
     .enum_values = pgc_startup_modes,
     .description = "initial: snapshot the table, then stream from the slot's consistent point; "
                    "latest-offset: stream changes from now on; committed-offset: resume from "
                    "the slot's confirmed position (a new slot: from now on, as latest-offset). "
                    "An existing slot always resumes; snapshot: the table as it is now, in one "
                    "transaction (no slot), then the source ends (insert-only)."},
    {.key = "scan.incremental.snapshot.enabled",
     .type = CDC_OPT_BOOL,
     .default_value = "true",
     .description = "true: the snapshot is read in chunks by key while the stream runs; false: "
                    "the whole table in one REPEATABLE READ transaction on the slot's exported "
                    "snapshot (in ctid ranges), then the stream (as a table without a key)."},
    {.key = "scan.snapshot.fetch.size",
     .type = CDC_OPT_INT,
     .min = 1,
     .max = INT32_MAX,
     .description = "Accepted with a warning, no effect: the snapshot's rows are streamed by "
                    "COPY, not fetched in batches."},
    {.key = "scan.incremental.snapshot.chunk.size",
     .type = CDC_OPT_INT,
     .default_value = "8096",
     .min = 1,
     .max = 10000000,
     .description = "Rows per chunk of the snapshot: one SELECT each, held in memory until the "
                    "stream passes its high watermark."},
    {.key = "scan.incremental.snapshot.chunk.key-column",
     .type = CDC_OPT_STRING,
     .description = "Column the snapshot's chunks are cut by (a declared column, unique and NOT "
                    "NULL). Default: the declared PRIMARY KEY, else the table's primary key. A "
                    "table without either is read in one transaction, in ctid ranges."},
    {.key = "signal-data-collection",
     .type = CDC_OPT_STRING,
     .description = "(Debezium's signalling) \"schema.table\" of a signal table (id VARCHAR(42) "
                    "PRIMARY KEY, type VARCHAR(32), data TEXT) in the publication (added by "
                    "publication.autocreate): a row inserted with type 'execute-snapshot' and "
                    "data {\"data-collections\": [\"schema.t\"], \"additional-conditions\": "
                    "[{\"data-collection\": \"schema.t\", \"filter\": \"...\"}]} snapshots the "
                    "table (or the rows the filter selects) again while the job streams; the "
                    "table's name alone also matches. `cdcflow signal` inserts one."},
    {.key = "scan.parallelism",
     .type = CDC_OPT_INT,
     .min = 1,
     .max = 256,
     .description = "Splits of the source: the first reads the slot and emits, the others read "
                    "snapshot chunks in parallel. Unset means the run's parallelism."},
    {.key = "changelog-mode",
     .type = CDC_OPT_ENUM,
     .default_value = "all",
     .enum_values = changelog_modes,
     .description = "all: -U/+U pairs and full deletes (needs REPLICA IDENTITY FULL); upsert: +U "
                    "and deletes by primary key (REPLICA IDENTITY DEFAULT)."},
    {.key = "heartbeat.interval.ms",
     .type = CDC_OPT_DURATION,
     .default_value = "30 s",
     .description = "While the captured table is idle, keepalives confirm the server's WAL end "
                    "(when every row read is committed) so the slot does not retain WAL; when "
                    "none came for this long a keepalive is requested, and "
                    "heartbeat.action.query runs this often. 0: off (the slot moves only with "
                    "the table's own changes)."},
    {.key = "heartbeat.action.query",
     .type = CDC_OPT_STRING,
     .description = "Statement run every heartbeat.interval.ms on a normal connection (e.g. an "
                    "INSERT into a heartbeat table) so that a slot on a quiet database sees "
                    "WAL; a failure is logged and the stream goes on."},
    {.key = "slot.retained-wal.warn-size",
     .type = CDC_OPT_SIZE,
     .default_value = "1gb",
     .description = "Warn when the slot retains more WAL than this (read every heartbeat, at "
                    "most every 10 s; metric cdcflow_source_slot_retained_wal_bytes). 0: "
                    "never."},
    {.key = "sslmode",
     .type = CDC_OPT_STRING,
     .description = "libpq sslmode (disable, prefer, require, verify-ca, verify-full)."},
    {.key = "sslrootcert",
     .type = CDC_OPT_STRING,
     .description = "CA certificate file for verify-ca / verify-full."},
    {.key = "connect.timeout",
     .type = CDC_OPT_DURATION,
     .default_value = "30 s",
     .min = 1000,
     .max = 3600000,
     .description = "Longest wait for a connection to the server (libpq connect_timeout, whole "
                    "seconds, at least 2)."},
    {.key = "connect.max-retries",
     .type = CDC_OPT_INT,
     .default_value = "3",
     .min = 0,
     .max = 100,
     .description = "Connections that fail are tried again this many times, 1 s apart, before "
                    "the source fails."},
    {.key = "connect.pool.size",
     .type = CDC_OPT_INT,
     .min = 1,
     .max = 1000,
     .description = "Accepted with a warning, no effect: each split opens its own connections."},
    {.key = "chunk-meta.group.size",
     .type = CDC_OPT_INT,
     .min = 1,
     .max = INT32_MAX,
     .description = "Accepted with a warning, no effect: chunk boundaries are not sent between "
                    "processes."},
    {.key = "chunk-key.even-distribution.factor.upper-bound",
     .type = CDC_OPT_DOUBLE,
     .description = "Accepted with a warning, no effect: chunks are cut by reading chunk-size "
                    "rows in key order, never computed from the key's minimum and maximum."},
    {.key = "chunk-key.even-distribution.factor.lower-bound",
     .type = CDC_OPT_DOUBLE,
     .description = "Accepted with a warning, no effect (see the upper bound)."},
    {.key = "scan.incremental.close-idle-reader.enabled",
     .type = CDC_OPT_BOOL,
     .description = "Accepted with a warning, no effect: a split with no chunks left ends."},
    {.key = "scan.incremental.snapshot.backfill.skip",
     .type = CDC_OPT_BOOL,
     .description = "Accepted with a warning, no effect: the changes during a chunk's read are "
                    "always merged into it (exactly-once rows, which at-least-once allows)."},
    {.key = "scan.lsn-commit.checkpoints-num-delay",
     .type = CDC_OPT_INT,
     .min = 0,
     .max = INT32_MAX,
     .description = "Accepted with a warning, no effect: the slot is confirmed once a "
                    "checkpoint is durable downstream, and a restart resumes from it."},
    {.key = "debezium.",
     .type = CDC_OPT_PREFIX,
     .description = "Debezium properties (Flink CDC passes them to Debezium): "
                    "'debezium.snapshot.mode' (initial, initial_only, no_data/schema_only, "
                    "never) sets scan.startup.mode; 'debezium.binary.handling.mode' (bytes, "
                    "base64, base64-url-safe, hex) writes bytea columns declared STRING as that "
                    "text; a property this source has its own option for is refused naming it; "
                    "any other is accepted with a warning: it has no effect."},
    {0},
};

static int pgc_source_new(const cdc_table_ctx_t *ctx, cdc_source_t **out, cdc_error_t **err)
{
    const cdc_config_t *cfg = ctx->cfg;
    pgc_source_t *s = cdc_xcalloc(1, sizeof(*s));
    s->base.ops = &pgc_source_ops;
    s->cfg = cfg;
    s->physical = cdc_type_copy(ctx->schema);
    s->produced = cdc_type_copy(ctx->schema);
    s->base.produced = s->produced;
    s->table_label =
        cdc_strdup_printf("%s.%s", pgc_opt(cfg, "schema-name"), pgc_opt(cfg, "table-name"));
    s->startup = cdc_dbz_startup_mode(cfg, pgc_snapshot_modes, pgc_startup_modes);
    if (cdc_state_dir())
        s->ckpt_file = cdc_strdup_printf("%s/%s.postgres-cdc.ckpt", cdc_state_dir(),
                                         pgc_opt(cfg, "slot.name"));
    s->changelog = cdc_config_enum(cfg, "changelog-mode");
    if (s->changelog == CL_UPSERT && ctx->npk == 0) {
        pgc_destroy(&s->base);
        cdc_error_set(err, CDC_ERR_PLAN,
                      "'changelog-mode' = 'upsert' needs a PRIMARY KEY on table \"%s\"", ctx->name);
        cdc_error_set_hint(*err, "declare the table's key: PRIMARY KEY (id) NOT ENFORCED");
        return -1;
    }
    s->chunk_size = (uint32_t)cdc_config_int(cfg, "scan.incremental.snapshot.chunk.size");
    s->incremental = cdc_config_bool(cfg, "scan.incremental.snapshot.enabled");
    const char *chunk_col = cdc_config_str(cfg, "scan.incremental.snapshot.chunk.key-column");
    if (chunk_col && *chunk_col) {
        int i = cdc_type_field_index(s->physical, chunk_col);
        if (i < 0) {
            pgc_destroy(&s->base);
            return cdc_error_set(err, CDC_ERR_OPTION,
                                 "postgres-cdc: 'scan.incremental.snapshot.chunk.key-column' = "
                                 "'%s' is not a column of table \"%s\"",
                                 chunk_col, ctx->name);
        }
        s->key[s->nkey++] = i;
    } else {
        for (int i = 0; i < ctx->npk && i < (int)(sizeof(s->key) / sizeof(s->key[0])); i++)
            s->key[s->nkey++] = ctx->pk[i];
    }
    const char *sig = cdc_config_str(cfg, "signal-data-collection");
    if (sig && *sig) {
        const char *dot = strchr(sig, '.');
        if (!dot || dot == sig || !dot[1] || strchr(dot + 1, '.') ||
            strcmp(sig, s->table_label) == 0) {
            pgc_destroy(&s->base);
            cdc_error_set(err, CDC_ERR_OPTION,
                          "postgres-cdc: 'signal-data-collection' = '%s' is not \"schema.table\" "
                          "of a table other than the captured one",
                          sig);
            cdc_error_set_hint(*err, "name the signal table with its schema, e.g. "
                                     "'public.cdcflow_signals'");
            return -1;
        }
        s->signal = cdc_xstrdup(sig);
        s->sig_schema = cdc_xstrndup(sig, (size_t)(dot - sig));
        s->sig_table = cdc_xstrdup(dot + 1);
    }
    s->snap = cdc_snapshot_new(s->physical, s->key, s->nkey, s->chunk_size);
    cdc_snapshot_add_table(s->snap, s->table_label); /* as the stream's rows name it */
    *out = &s->base;
    return 0;
}

/* `cdcflow signal`: the signal row, inserted with the source's connection options. */
static int pgc_send_signal(const cdc_kv_t *opts, const char *type, const char *data,
                           cdc_error_t **err)
{
    const char *table = cdc_kv_get(opts, "signal-data-collection");
    pgc_conninfo_t ci = {.host = cdc_kv_get(opts, "hostname"),
                         .port = cdc_kv_get(opts, "port"),
                         .dbname = cdc_kv_get(opts, "database-name"),
                         .user = cdc_kv_get(opts, "username"),
                         .password = cdc_kv_get(opts, "password"),
                         .sslmode = cdc_kv_get(opts, "sslmode"),
                         .sslrootcert = cdc_kv_get(opts, "sslrootcert")};
    if (!ci.port)
        ci.port = "5432";
    if (!ci.host || !ci.user || !ci.dbname || !table)
        return cdc_error_set(err, CDC_ERR_OPTION,
                             "postgres-cdc: a signal needs 'hostname', 'username', "
                             "'database-name' and 'signal-data-collection' (and 'port', "
                             "'password')");
    const char *dot = strchr(table, '.');
    if (!dot || dot == table || !dot[1])
        return cdc_error_set(err, CDC_ERR_OPTION,
                             "postgres-cdc: 'signal-data-collection' = '%s' is not "
                             "\"schema.table\"",
                             table);
    PGconn *conn = connect_info(&ci, false, err);
    if (!conn)
        return -1;
    char *schema = cdc_xstrndup(table, (size_t)(dot - table));
    char *qt = pgc_qualified(conn, schema, dot + 1);
    /* a unique id, as Debezium's examples use (gen_random_uuid() is built in from 13) */
    char *sql = cdc_strdup_printf("INSERT INTO %s (id, type, data) VALUES (%s, $1, $2)", qt,
                                  PQserverVersion(conn) >= 130000
                                      ? "gen_random_uuid()::text"
                                      : "md5(random()::text || clock_timestamp()::text)");
    const char *params[2] = {type, data};
    PGresult *res = pgc_query(conn, sql, 2, params, "inserting the signal", err);
    int rc = res ? 0 : -1;
    if (res)
        PQclear(res);
    else
        cdc_error_add_context(*err, "signal table \"%s\" in database \"%s\"", table, ci.dbname);
    free(sql);
    free(qt);
    free(schema);
    PQfinish(conn);
    return rc;
}

const cdc_connector_factory_t cdc_connector_postgres_cdc = {
    .identifier = "postgres-cdc",
    .description = "Captures one PostgreSQL table through a logical replication slot (pgoutput): "
                   "an initial snapshot, then every change, resumable from the slot.",
    .options = pgc_options,
    .check = pgc_check,
    .metadata = pgc_metadata,
    .source_new = pgc_source_new,
    .send_signal = pgc_send_signal,
};
