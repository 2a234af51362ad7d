/*
 * mysql_cdc.c — the `mysql-cdc` source (after Flink CDC's mysql-cdc): changes
 * of the MySQL/MariaDB tables matched by "(database-name)\.(table-name)" (POSIX
 * extended regexes, anchored) read as a replica, decoded by the `mysql-binlog`
 * format into the one declared table; metadata columns (database_name,
 * table_name, op_ts, source.file/pos/gtid/server_id/snapshot) are appended
 * after the decoded fields (by the format as it decodes; here for snapshot
 * rows). The format also reports the file, the position after each event, the
 * GTID and the transactions' ends (source_pos), and the server's heartbeats
 * and rotations, so this file reads no event's bytes.
 *
 * One reader (split 0; the others end at once). libmariadb's replication API
 * carries the stream (COM_BINLOG_DUMP, packet framing); every event's bytes go
 * to the mysql-binlog deserializer (input=events, the tables chosen by the regex,
 * columns matched to the declared schema by name), never to the library's row
 * decoder. The session asks for the server's checksums, GTID-aware events
 * (MariaDB capability 4) and heartbeats every 100 ms, so a poll returns even
 * when the server is idle.
 *
 * scan.startup.mode:
 *  - initial: a consistent-read transaction (START TRANSACTION WITH CONSISTENT
 *    SNAPSHOT) reads the table as +I rows, and MariaDB's binlog_snapshot_file
 *    and binlog_snapshot_position give the binlog position of exactly that
 *    snapshot; the stream starts there, so no change is lost or doubled at
 *    the seam (MariaDB; MySQL has no such status variables).
 *  - latest-offset: SHOW MASTER STATUS, then stream.
 *  - specific-offset: scan.startup.specific-offset.file / .pos, or .gtid-set
 *    (MariaDB @slave_connect_state: the server seeks the position itself).
 *  - timestamp: the oldest binlog file (SHOW BINARY LOGS), rows of events older
 *    than scan.startup.timestamp-millis dropped.
 * server-time-zone is the snapshot session's time_zone and the zone of DATETIME
 * columns declared TIMESTAMP_LTZ (snapshot: CONVERT_TZ; binlog: the format's
 * datetime-zone-offset). A real ROTATE reopens the dump at the new file
 * (libmariadb 3.3 misparses the next file's events in the same dump).
 * With position.file set, commit() writes the position after the last
 * transaction (XID, or a QUERY that is not BEGIN) whose events were read before
 * it — whose rows the sinks have made durable — atomically (a temporary file
 * renamed), and a reader that finds the file resumes there instead of
 * following scan.startup.mode. A transaction cut by a poll is read again after
 * a restart (at least once), never lost. A job killed before its first commit
 * (in the snapshot) takes a new snapshot when restarted.
 * With a position file the reader also offers the two-phase commit
 * (cdc_plugin.h): the checkpoint id is stored with the position, and the
 * runtime commits only at a transaction's end (at_boundary; never inside the
 * snapshot), so a sink with the other half (filesystem) gets every change
 * exactly once across crashes.
 */
#include <mysql.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cdc_plugin.h"

/* after mysql.h, which it needs */
#include <mariadb_rpl.h>

static const char *const mc_modes[] = {"initial", "latest-offset", "specific-offset", "timestamp",
                                       NULL};
enum { MODE_INITIAL, MODE_LATEST, MODE_SPECIFIC, MODE_TIMESTAMP };

static const cdc_option_def_t mc_options[] = {
    {.key = "hostname",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_REQUIRED,
     .description = "MySQL/MariaDB server host name or address."},
    {.key = "port",
     .type = CDC_OPT_INT,
     .default_value = "3306",
     .min = 1,
     .max = 65535,
     .description = "Server port."},
    {.key = "username",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_REQUIRED,
     .description = "A user with REPLICATION SLAVE, REPLICATION CLIENT (BINLOG MONITOR) and "
                    "SELECT on the table."},
    {.key = "password",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_SECRET,
     .description = "Password of the user; never printed."},
    {.key = "database-name",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_REQUIRED,
     .description = "Database of the tables: a POSIX extended regular expression matching the "
                    "whole name (an exact name is one)."},
    {.key = "table-name",
     .type = CDC_OPT_STRING,
     .flags = CDC_OPT_REQUIRED,
     .description = "Tables to capture: a POSIX extended regular expression matching a table "
                    "name of 'database-name' as a whole (as Flink CDC, the source matches "
                    "\"(database-name)\\.(table-name)\" against db.table); the rows of every "
                    "matched table go to this one table, columns matched by name."},
    {.key = "server-id",
     .type = CDC_OPT_INT,
     .default_value = "5400",
     .min = 1,
     .max = 4294967295LL,
     .description = "Replica server id; must differ from the server's and from every other "
                    "replica's (the server ends a dump that reuses one)."},
    {.key = "scan.startup.mode",
     .type = CDC_OPT_ENUM,
     .default_value = "initial",
     .enum_values = mc_modes,
     .description = "'initial': a consistent snapshot of the tables (+I), then the binlog from "
                    "the snapshot's position (MariaDB); 'latest-offset': only changes from now; "
                    "'specific-offset': from scan.startup.specific-offset.file/.pos or "
                    ".gtid-set; 'timestamp': changes made at or after "
                    "scan.startup.timestamp-millis (reads the binlog from its oldest file)."},
    {.key = "scan.startup.specific-offset.gtid-set",
     .type = CDC_OPT_STRING,
     .description = "With 'specific-offset': the MariaDB GTID position already processed "
                    "(\"0-1-42\", one domain-server-seq per domain, comma-separated); the stream "
                    "starts after it (@slave_connect_state). Takes precedence over .file/.pos."},
    {.key = "scan.startup.timestamp-millis",
     .type = CDC_OPT_INT,
     .min = 0,
     .max = INT64_MAX,
     .description = "With 'timestamp': milliseconds since the epoch; row events written earlier "
                    "(binlog event time, whole seconds) are skipped. The binlog is read from the "
                    "oldest file SHOW BINARY LOGS lists."},
    {.key = "server-time-zone",
     .type = CDC_OPT_STRING,
     .default_value = "+00:00",
     .description = "The server's time zone: the snapshot session's time_zone, and the zone in "
                    "which DATETIME columns declared TIMESTAMP_LTZ are read (snapshot and "
                    "binlog). 'UTC' or an offset '+08:00' (a named zone such as "
                    "'Asia/Shanghai' needs the server's time zone tables and cannot read "
                    "DATETIME as TIMESTAMP_LTZ from the binlog)."},
    {.key = "scan.startup.specific-offset.file",
     .type = CDC_OPT_STRING,
     .description = "Binlog file to start in with 'specific-offset'."},
    {.key = "scan.startup.specific-offset.pos",
     .type = CDC_OPT_INT,
     .default_value = "4",
     .min = 4,
     .max = INT64_MAX,
     .description = "Binlog position to start at with 'specific-offset'."},
    {.key = "position.file",
     .type = CDC_OPT_STRING,
     .description = "(cdcflow) File that keeps the position of the last transaction the sinks "
                    "committed (written at each commit, atomically); a restarted job resumes "
                    "from it. Default: <--state-dir>/<catalog.db.table>.mysql-cdc.pos when the "
                    "run has a state directory."},
    {0},
};

/* metadata columns (Flink CDC's mysql-cdc readable metadata) */
typedef enum mc_md {
    MD_DATABASE,
    MD_TABLE,
    MD_OP_TS,
    MD_FILE,
    MD_POS,
    MD_GTID,
    MD_SERVER_ID,
    MD_SNAPSHOT
} mc_md_t;

static const cdc_metadata_def_t mc_metadata[] = {
    {"database_name", "STRING", "Database of the row's table."},
    {"table_name", "STRING", "Table the row comes from."},
    {"op_ts", "TIMESTAMP_LTZ(3)",
     "When the change was made (the binlog event's time); 0 (1970-01-01) for snapshot rows."},
    {"source.file", "STRING",
     "(cdcflow, Debezium source.file) Binlog file of the row's event; for snapshot rows the "
     "snapshot's position."},
    {"source.pos", "BIGINT",
     "(cdcflow, Debezium source.pos) Position of the row's event in source.file."},
    {"source.gtid", "STRING",
     "(cdcflow, Debezium source.gtid) GTID of the row's transaction: MariaDB '0-1-42', MySQL "
     "'3e11fa47-71ca-11e1-9e33-c80aa9429562:23' (NULL in the snapshot and for MySQL's "
     "anonymous transactions, gtid_mode=OFF)."},
    {"source.server_id", "BIGINT", "(cdcflow, Debezium source.server_id) Server that wrote it."},
    {"source.snapshot", "BOOLEAN",
     "(cdcflow, Debezium source.snapshot) Whether the row comes from the snapshot."},
    {0},
};

typedef struct mc_source {
    cdc_source_t base;
    cdc_type_t *schema;   /* physical columns */
    cdc_type_t *produced; /* physical + metadata, NULL without metadata */
    mc_md_t md[8];
    int nmd;
    char *pattern; /* "^((db)\\.(table))$" */
    regex_t re;
    bool has_re;
    char *host, *user, *password, *db, *table, *start_file, *pos_file, *gtid, *tz;
    bool tz_fixed;    /* tz is UTC or an offset */
    int tz_offset;    /* seconds east of UTC, when tz_fixed */
    int64_t since_ms; /* 'timestamp' mode */
    int port;
    uint32_t server_id;
    int mode;
    uint64_t start_pos;
} mc_source_t;

typedef enum mc_phase { MC_SNAPSHOT, MC_STREAM, MC_DONE } mc_phase_t;

typedef struct mc_reader {
    cdc_reader_t base;
    mc_source_t *src;
    mc_phase_t phase;
    MYSQL *sql, *repl;
    MYSQL_RES *snap;
    char **snap_tables; /* "db.table" of the matched tables; rows point at them (origin) */
    int nsnap, isnap;
    MARIADB_RPL *rpl;
    cdc_config_t *fmt_cfg;
    cdc_deser_t *deser;
    MARIADB_RPL_EVENT **held; /* events the current batch's rows point into */
    int nheld, capheld;
    char file[512]; /* binlog file of the stream */
    char txn_file[512];
    uint64_t txn_pos; /* after the last transaction read */
    char done_file[512];
    uint64_t done_pos; /* committed */
    uint64_t start_pos;
    const char *gtid; /* start the stream at this GTID position (not from a position file) */
    int64_t since_ms; /* rows of events before it are dropped ('timestamp') */
    bool reopen;      /* a real ROTATE was read: dump again from the new file */
    const cdc_source_pos_t *sp; /* the format's: file, positions, transactions */
    uint64_t checkpoint;        /* two-phase: the id stored with the position (0: none) */
} mc_reader_t;

/* Where snapshot rows come from, for the metadata columns (the format fills stream rows'). */
typedef struct mc_where {
    int64_t ts_ms;
    const char *file;
    uint64_t pos;
    const char *gtid; /* NULL in the snapshot */
    uint32_t server_id;
    bool snapshot;
} mc_where_t;

static int my_fail(cdc_error_t **err, MYSQL *my, const char *what)
{
    cdc_error_t *e = cdc_error_new(CDC_ERR_REMOTE, "mysql-cdc: %s failed", what);
    if (my)
        cdc_error_set_detail(e, "%s (error %u)", mysql_error(my), mysql_errno(my));
    if (err) {
        cdc_error_destroy(*err);
        *err = e;
    } else {
        cdc_error_destroy(e);
    }
    return -1;
}

static MYSQL *mc_connect(const mc_source_t *s, const char *tz, cdc_error_t **err)
{
    MYSQL *my = mysql_init(NULL);
    unsigned timeout = 10;
    mysql_options(my, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
    mysql_options(my, MYSQL_SET_CHARSET_NAME, "utf8mb4");
    if (!mysql_real_connect(my, s->host, s->user, s->password ? s->password : "", NULL,
                            (unsigned)s->port, NULL, 0)) {
        my_fail(err, my, "connecting");
        mysql_close(my);
        return NULL;
    }
    char esc[200], q[256];
    if (strlen(tz) >= sizeof(esc) / 2)
        tz = "+00:00";
    mysql_real_escape_string(my, esc, tz, strlen(tz));
    snprintf(q, sizeof(q), "SET time_zone = '%s'", esc);
    if (mysql_query(my, q)) {
        my_fail(err, my, q);
        if (err && *err)
            cdc_error_set_hint(*err, "check 'server-time-zone': a named zone needs the server's "
                                     "time zone tables (mariadb-tzinfo-to-sql)");
        mysql_close(my);
        return NULL;
    }
    return my;
}

static int run(MYSQL *my, const char *sql, cdc_error_t **err)
{
    if (mysql_query(my, sql))
        return my_fail(err, my, sql);
    MYSQL_RES *r = mysql_store_result(my);
    mysql_free_result(r);
    return 0;
}

/* The first row of a query's two first columns (file, position). */
static int query_pos(MYSQL *my, const char *sql, int fcol, int pcol, char *file, size_t flen,
                     uint64_t *pos, cdc_error_t **err)
{
    if (mysql_query(my, sql))
        return my_fail(err, my, sql);
    MYSQL_RES *r = mysql_store_result(my);
    MYSQL_ROW row = r ? mysql_fetch_row(r) : NULL;
    int rc = 0;
    if (!row || !row[fcol] || !row[pcol]) {
        rc = cdc_error_set(err, CDC_ERR_REMOTE, "mysql-cdc: \"%s\" gave no binlog position", sql);
        if (err && *err)
            cdc_error_set_hint(*err, "start the server with log_bin and binlog_format=ROW");
    } else {
        snprintf(file, flen, "%s", row[fcol]);
        *pos = strtoull(row[pcol], NULL, 10);
    }
    mysql_free_result(r);
    return rc;
}

static int start_stream(mc_reader_t *r, cdc_error_t **err);
static int snapshot_table(mc_reader_t *r, cdc_error_t **err);

/* The metadata values of a snapshot row (after its physical fields); strings copied into the
 * arena. */
static void set_str(cdc_value_t *v, const char *p, size_t n, cdc_arena_t *arena)
{
    v->v.s.ptr = cdc_arena_memdup(arena, p, n);
    v->v.s.len = (uint32_t)n;
}

static void fill_meta(const mc_source_t *s, cdc_row_t *o, const mc_where_t *w, cdc_arena_t *arena)
{
    const char *q = o->origin ? o->origin : "";
    const char *dot = strchr(q, '.');
    size_t dblen = dot ? (size_t)(dot - q) : strlen(q);
    const char *tn = dot ? dot + 1 : "";
    int base = s->schema->nchildren;
    for (int i = 0; i < s->nmd; i++) {
        cdc_value_t *v = &o->values[base + i];
        v->flags = 0;
        switch (s->md[i]) {
        case MD_DATABASE:
            set_str(v, q, dblen, arena);
            break;
        case MD_TABLE:
            set_str(v, tn, strlen(tn), arena);
            break;
        case MD_OP_TS:
            v->v.ts = (cdc_ts_t){.millis = w->ts_ms};
            break;
        case MD_FILE:
            set_str(v, w->file, strlen(w->file), arena);
            break;
        case MD_POS:
            v->v.i = (int64_t)w->pos;
            break;
        case MD_GTID:
            if (w->gtid && *w->gtid)
                set_str(v, w->gtid, strlen(w->gtid), arena);
            else
                v->flags = CDC_V_NULL;
            break;
        case MD_SERVER_ID:
            v->v.i = w->server_id;
            break;
        case MD_SNAPSHOT:
            v->v.b = w->snapshot;
            break;
        }
    }
}

static int poll_snapshot(mc_reader_t *r, cdc_batch_t *out, uint32_t max_rows, cdc_error_t **err)
{
    const cdc_type_t *t = r->src->schema;
    const char *qname = r->snap_tables[r->isnap];
    MYSQL_ROW row;
    while (out->n < max_rows && (row = mysql_fetch_row(r->snap))) {
        unsigned long *lens = mysql_fetch_lengths(r->snap);
        cdc_row_t *o = cdc_batch_add(out, CDC_INSERT, (uint32_t)(t->nchildren + r->src->nmd));
        o->origin = qname;
        if (r->src->nmd) {
            mc_where_t w = {.file = r->file, .pos = r->start_pos, .snapshot = true};
            fill_meta(r->src, o, &w, &out->arena);
        }
        for (int i = 0; i < t->nchildren; i++) {
            cdc_value_t *v = &o->values[i];
            if (!row[i])
                continue;
            v->flags = 0;
            /* MySQL text into the declared type (zero dates become NULL) */
            const char *why = NULL;
            if (cdc_value_from_text(t->children[i], row[i], lens[i], CDC_TEXT_MYSQL | CDC_TEXT_COPY,
                                    &out->arena, v, &why) != CDC_TEXT_OK) {
                cdc_error_set(err, CDC_ERR_PARSE,
                              "mysql-cdc: snapshot of %s, column \"%s\": %s: \"%.*s\"", qname,
                              t->names[i], why, (int)(lens[i] > 60 ? 60 : lens[i]), row[i]);
                return CDC_POLL_ERROR;
            }
        }
    }
    if (out->n < max_rows) { /* this table is read */
        if (mysql_errno(r->sql)) {
            my_fail(err, r->sql, "reading the snapshot");
            return CDC_POLL_ERROR;
        }
        mysql_free_result(r->snap);
        r->snap = NULL;
        if (++r->isnap < r->nsnap)
            return snapshot_table(r, err) < 0 ? CDC_POLL_ERROR : CDC_POLL_OK;
        if (run(r->sql, "COMMIT", err) < 0 || start_stream(r, err) < 0)
            return CDC_POLL_ERROR;
    }
    return CDC_POLL_OK;
}

/* ---- stream --------------------------------------------------------------------------------- */

static int start_stream(mc_reader_t *r, cdc_error_t **err)
{
    mc_source_t *s = r->src;
    if (!(r->repl = mc_connect(s, "+00:00", err)))
        return -1;
    if (r->gtid) { /* MariaDB GTID: the server ignores the dump's file/pos and seeks itself */
        char esc[1024];
        size_t n = strlen(r->gtid);
        if (n >= sizeof(esc) / 2)
            return cdc_error_set(err, CDC_ERR_OPTION, "mysql-cdc: the GTID set is too long");
        mysql_real_escape_string(r->repl, esc, r->gtid, n);
        char *q = cdc_strdup_printf("SET @slave_connect_state = '%s'", esc);
        int rc = run(r->repl, q, err);
        free(q);
        if (rc < 0 || run(r->repl, "SET @slave_gtid_strict_mode = 0", err) < 0 ||
            run(r->repl, "SET @slave_gtid_ignore_duplicates = 0", err) < 0)
            return -1;
        r->file[0] = 0;
        r->start_pos = 4;
    }
    if (run(r->repl, "SET @master_binlog_checksum = @@global.binlog_checksum", err) < 0 ||
        run(r->repl, "SET @mariadb_slave_capability = 4", err) < 0 ||
        run(r->repl, "SET @master_heartbeat_period = 100000000", err) < 0)
        return -1;
    r->rpl = mariadb_rpl_init(r->repl);
    if (!r->rpl)
        return my_fail(err, r->repl, "mariadb_rpl_init");
    mariadb_rpl_optionsv(r->rpl, MARIADB_RPL_FILENAME, r->file, strlen(r->file));
    mariadb_rpl_optionsv(r->rpl, MARIADB_RPL_START, (unsigned long)r->start_pos);
    mariadb_rpl_optionsv(r->rpl, MARIADB_RPL_SERVER_ID, (unsigned int)s->server_id);
    mariadb_rpl_optionsv(r->rpl, MARIADB_RPL_FLAGS, 0);
    if (mariadb_rpl_open(r->rpl)) {
        my_fail(err, r->repl, "COM_BINLOG_DUMP");
        if (r->gtid && err && *err)
            cdc_error_add_context(*err, "GTID position \"%s\"", r->gtid);
        return -1;
    }
    snprintf(r->txn_file, sizeof(r->txn_file), "%s", r->file);
    r->txn_pos = r->start_pos;
    r->phase = MC_STREAM;
    return 0;
}

/* The binlog file after `cur` in SHOW BINARY LOGS, into r->file at position 4. */
static int next_binlog(mc_reader_t *r, const char *cur, cdc_error_t **err)
{
    if (mysql_query(r->sql, "SHOW BINARY LOGS"))
        return my_fail(err, r->sql, "SHOW BINARY LOGS");
    MYSQL_RES *res = mysql_store_result(r->sql);
    MYSQL_ROW row;
    bool seen = false, found = false;
    while (res && (row = mysql_fetch_row(res)) && !found) {
        if (seen && row[0]) {
            snprintf(r->file, sizeof(r->file), "%s", row[0]);
            found = true;
        }
        seen = seen || (row[0] && strcmp(row[0], cur) == 0);
    }
    mysql_free_result(res);
    if (!found)
        return cdc_error_set(err, CDC_ERR_REMOTE,
                             "mysql-cdc: binlog %s ends with the server's STOP, and SHOW BINARY "
                             "LOGS lists no file after it",
                             cur);
    r->start_pos = 4;
    return 0;
}

static int poll_stream(mc_reader_t *r, cdc_batch_t *out, uint32_t max_rows, cdc_error_t **err)
{
    while (out->n < max_rows) {
        MARIADB_RPL_EVENT *ev = mariadb_rpl_fetch(r->rpl, NULL);
        if (!ev) {
            my_fail(err, r->repl, "reading the binlog stream");
            if (err && *err && r->sp && r->sp->file)
                cdc_error_add_context(*err, "after binlog %s:%llu", r->sp->file,
                                      (unsigned long long)r->sp->pos);
            return CDC_POLL_ERROR;
        }
        if (r->nheld == r->capheld) {
            r->capheld = r->capheld ? r->capheld * 2 : 64;
            r->held = cdc_xrealloc(r->held, (size_t)r->capheld * sizeof(*r->held));
        }
        r->held[r->nheld++] = ev; /* rows point into it until the next poll */
        const unsigned char *bytes = ev->raw_data + ev->raw_data_ofs;
        size_t n = ev->raw_data_size - ev->raw_data_ofs;
        cdc_buf_clear(&r->deser->errmsg);
        uint32_t from = out->n;
        if (r->deser->ops->decode(r->deser, (const char *)bytes, n, out) != CDC_DECODE_OK) {
            cdc_error_set(err, CDC_ERR_PARSE, "mysql-cdc: %s", cdc_buf_cstr(&r->deser->errmsg));
            return CDC_POLL_ERROR;
        }
        const cdc_source_pos_t *sp = r->sp;
        if (sp->heartbeat)
            break; /* the server is idle: give the runtime a turn */
        if (sp->file_end) {
            /* the server stopped here: the file ends with STOP and the dump would go on in
               the next one, which libmariadb 3.3 fails on as after a ROTATE ("Malformed
               packet", mostly under load): the dump is opened again at the next file */
            if (next_binlog(r, sp->file ? sp->file : r->file, err) < 0)
                return CDC_POLL_ERROR;
            r->reopen = true;
            break;
        }
        if (sp->rotate) {
            /* libmariadb 3.3 fails to parse the next file's events in the same dump
             * ("Malformed packet"), so the dump is opened again at the new file, as a restart
             * would */
            snprintf(r->file, sizeof(r->file), "%s", sp->file);
            r->start_pos = sp->pos >= 4 ? sp->pos : 4;
            r->reopen = true;
            break;
        }
        if (sp->txn_end) {
            snprintf(r->txn_file, sizeof(r->txn_file), "%s", sp->file ? sp->file : r->file);
            r->txn_pos = sp->pos;
        }
        if (out->n > from && sp->ts_ms < r->since_ms)
            cdc_batch_truncate(out, out->n - from); /* 'timestamp': before the start time */
    }
    return CDC_POLL_OK;
}

static void release_held(mc_reader_t *r)
{
    for (int i = 0; i < r->nheld; i++)
        mariadb_free_rpl_event(r->held[i]);
    r->nheld = 0;
}

static int mc_poll(cdc_reader_t *base, cdc_batch_t *out, uint32_t max_rows, cdc_error_t **err)
{
    mc_reader_t *r = (mc_reader_t *)base;
    release_held(r);
    if (r->reopen) {
        r->reopen = false;
        mariadb_rpl_close(r->rpl);
        r->rpl = NULL;
        mysql_close(r->repl);
        r->repl = NULL;
        r->gtid = NULL; /* from here on the file and position */
        char txn_file[sizeof(r->txn_file)];
        uint64_t txn_pos = r->txn_pos;
        snprintf(txn_file, sizeof(txn_file), "%s", r->txn_file);
        if (start_stream(r, err) < 0)
            return CDC_POLL_ERROR;
        snprintf(r->txn_file, sizeof(r->txn_file), "%s", txn_file); /* (start_stream resets) */
        r->txn_pos = txn_pos;
    }
    switch (r->phase) {
    case MC_SNAPSHOT:
        return poll_snapshot(r, out, max_rows, err);
    case MC_STREAM:
        return poll_stream(r, out, max_rows, err);
    default:
        return CDC_POLL_END;
    }
}

/* Writes the position (and the two-phase checkpoint id, when not 0) to the position file. */
static int save_position(mc_reader_t *r, uint64_t checkpoint, cdc_error_t **err)
{
    if (r->phase != MC_STREAM || !r->src->pos_file || !r->txn_file[0])
        return 0; /* (a GTID start knows its file at the first transaction) */
    if (r->done_pos == r->txn_pos && strcmp(r->done_file, r->txn_file) == 0 && checkpoint == 0)
        return 0;
    char line[600];
    int n = checkpoint ? snprintf(line, sizeof(line), "%s\t%llu\t%llu\n", r->txn_file,
                                  (unsigned long long)r->txn_pos, (unsigned long long)checkpoint)
                       : snprintf(line, sizeof(line), "%s\t%llu\n", r->txn_file,
                                  (unsigned long long)r->txn_pos);
    int rc = cdc_file_write_atomic(r->src->pos_file, line, (size_t)n, err);
    if (rc < 0)
        cdc_error_add_context(*err, "mysql-cdc: saving the binlog position");
    if (rc == 0) {
        snprintf(r->done_file, sizeof(r->done_file), "%s", r->txn_file);
        r->done_pos = r->txn_pos;
        if (checkpoint)
            r->checkpoint = checkpoint;
    }
    return rc;
}

static int mc_commit(cdc_reader_t *base, cdc_error_t **err)
{
    return save_position((mc_reader_t *)base, 0, err);
}

/*
 * Two-phase commit (with position.file): the checkpoint id goes into the
 * position file with the position, atomically; the runtime calls it only at a
 * transaction's end (at_boundary), so the position covers every row prepared.
 * No position yet (a GTID start before its first transaction): no row either.
 */
static int mc_commit_checkpoint(cdc_reader_t *base, uint64_t checkpoint, cdc_error_t **err)
{
    return save_position((mc_reader_t *)base, checkpoint, err);
}

static uint64_t mc_last_checkpoint(cdc_reader_t *base)
{
    return ((mc_reader_t *)base)->checkpoint;
}

/* In the stream, outside a transaction: the snapshot is a whole only with the stream after it. */
static bool mc_at_boundary(cdc_reader_t *base)
{
    mc_reader_t *r = (mc_reader_t *)base;
    return r->phase == MC_STREAM && !r->sp->in_txn;
}

static void mc_close(cdc_reader_t *base)
{
    mc_reader_t *r = (mc_reader_t *)base;
    if (!r)
        return;
    release_held(r);
    free(r->held);
    if (r->snap)
        mysql_free_result(r->snap);
    if (r->rpl)
        mariadb_rpl_close(r->rpl);
    if (r->repl)
        mysql_close(r->repl);
    if (r->sql)
        mysql_close(r->sql);
    if (r->deser)
        r->deser->ops->destroy(r->deser);
    cdc_config_destroy(r->fmt_cfg);
    for (int i = 0; i < r->nsnap; i++)
        free(r->snap_tables[i]);
    free(r->snap_tables);
    free(r);
}

static const cdc_reader_ops_t mc_reader_ops = {
    .poll = mc_poll,
    .commit = mc_commit,
    .close = mc_close,
};

/* With a position file: also the two-phase commit's source half (exactly-once files). */
static const cdc_reader_ops_t mc_reader_ops_2pc = {
    .poll = mc_poll,
    .commit = mc_commit,
    .close = mc_close,
    .commit_checkpoint = mc_commit_checkpoint,
    .last_checkpoint = mc_last_checkpoint,
    .at_boundary = mc_at_boundary,
};

/* The position file's "file<TAB>pos[<TAB>checkpoint]", when there is one. */
static bool read_pos_file(const char *path, char *file, size_t flen, uint64_t *pos,
                          uint64_t *checkpoint)
{
    FILE *fp = path ? fopen(path, "r") : NULL;
    if (!fp)
        return false;
    char line[600];
    bool ok = fgets(line, sizeof(line), fp) != NULL;
    fclose(fp);
    char *tab = ok ? strchr(line, '\t') : NULL;
    if (!tab || (size_t)(tab - line) >= flen)
        return false;
    memcpy(file, line, (size_t)(tab - line));
    file[tab - line] = 0;
    char *end;
    *pos = strtoull(tab + 1, &end, 10);
    *checkpoint = *end == '\t' ? strtoull(end + 1, NULL, 10) : 0;
    return *pos >= 4;
}

static char *ident(MYSQL *my, const char *name)
{
    cdc_buf_t b = {0};
    cdc_buf_putc(&b, '`');
    for (const char *p = name; *p; p++) {
        if (*p == '`')
            cdc_buf_putc(&b, '`');
        cdc_buf_putc(&b, *p);
    }
    cdc_buf_putc(&b, '`');
    (void)my;
    char *s = cdc_xstrdup(cdc_buf_cstr(&b));
    cdc_buf_free(&b);
    return s;
}

static int list_tables(mc_reader_t *r, cdc_error_t **err);

static int start_snapshot(mc_reader_t *r, cdc_error_t **err)
{
    if (run(r->sql, "START TRANSACTION WITH CONSISTENT SNAPSHOT", err) < 0)
        return -1;
    char *f = NULL;
    if (mysql_query(r->sql, "SHOW STATUS LIKE 'binlog_snapshot_%'"))
        return my_fail(err, r->sql, "SHOW STATUS LIKE 'binlog_snapshot_%'");
    MYSQL_RES *res = mysql_store_result(r->sql);
    MYSQL_ROW row;
    while (res && (row = mysql_fetch_row(res))) {
        if (row[0] && row[1] && strcmp(row[0], "Binlog_snapshot_file") == 0)
            f = cdc_xstrdup(row[1]);
        else if (row[0] && row[1] && strcmp(row[0], "Binlog_snapshot_position") == 0)
            r->start_pos = strtoull(row[1], NULL, 10);
    }
    mysql_free_result(res);
    if (!f || !*f || r->start_pos < 4) {
        free(f);
        int rc = cdc_error_set(err, CDC_ERR_REMOTE,
                               "mysql-cdc: the server gives no binlog position of a consistent "
                               "snapshot (binlog_snapshot_file)");
        if (err && *err)
            cdc_error_set_hint(*err, "'initial' needs MariaDB with log_bin; use "
                                     "'latest-offset' or 'specific-offset' otherwise");
        return rc;
    }
    snprintf(r->file, sizeof(r->file), "%s", f);
    free(f);
    if (list_tables(r, err) < 0)
        return -1;
    r->phase = MC_SNAPSHOT;
    if (r->nsnap == 0) { /* nothing matched yet: the stream may create the tables */
        if (run(r->sql, "COMMIT", err) < 0)
            return -1;
        return start_stream(r, err);
    }
    return snapshot_table(r, err);
}

/* The matched tables, in the consistent-read transaction (information_schema is not
 * transactional, but a table created after the snapshot has no rows in it). */
static int list_tables(mc_reader_t *r, cdc_error_t **err)
{
    const char *q = "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE "
                    "TABLE_TYPE = 'BASE TABLE' ORDER BY 1, 2";
    if (mysql_query(r->sql, q))
        return my_fail(err, r->sql, q);
    MYSQL_RES *res = mysql_store_result(r->sql);
    MYSQL_ROW row;
    int cap = 0;
    while (res && (row = mysql_fetch_row(res))) {
        char *name = cdc_strdup_printf("%s.%s", row[0] ? row[0] : "", row[1] ? row[1] : "");
        if (regexec(&r->src->re, name, 0, NULL, 0) != 0) {
            free(name);
            continue;
        }
        if (r->nsnap == cap) {
            cap = cap ? cap * 2 : 8;
            r->snap_tables = cdc_xrealloc(r->snap_tables, (size_t)cap * sizeof(char *));
        }
        r->snap_tables[r->nsnap++] = name;
    }
    mysql_free_result(res);
    return 0;
}

/* Starts reading the declared columns of snapshot table isnap. */
static int snapshot_table(mc_reader_t *r, cdc_error_t **err)
{
    mc_source_t *s = r->src;
    const char *qname = r->snap_tables[r->isnap];
    const char *dot = strchr(qname, '.');
    char *dbname = cdc_xstrndup(qname, (size_t)(dot - qname));
    cdc_buf_t sql = {0};
    cdc_buf_puts(&sql, "SELECT ");
    for (int i = 0; i < s->schema->nchildren; i++) {
        char *c = ident(r->sql, s->schema->names[i]);
        if (s->schema->children[i]->root == CDC_T_TIMESTAMP_LTZ) /* to UTC text */
            cdc_buf_printf(&sql, "%sCONVERT_TZ(%s, @@session.time_zone, '+00:00')", i ? ", " : "",
                           c);
        else
            cdc_buf_printf(&sql, "%s%s", i ? ", " : "", c);
        free(c);
    }
    char *db = ident(r->sql, dbname), *tab = ident(r->sql, dot + 1);
    cdc_buf_printf(&sql, " FROM %s.%s", db, tab);
    free(db);
    free(tab);
    free(dbname);
    int rc = mysql_query(r->sql, cdc_buf_cstr(&sql)) ? my_fail(err, r->sql, cdc_buf_cstr(&sql)) : 0;
    cdc_buf_free(&sql);
    if (rc < 0)
        return -1;
    r->snap = mysql_use_result(r->sql);
    if (!r->snap)
        return my_fail(err, r->sql, "reading the snapshot");
    return 0;
}

static int mc_open_reader(cdc_source_t *base, int split, int nsplits, cdc_reader_t **out,
                          cdc_error_t **err)
{
    (void)nsplits;
    mc_source_t *s = (mc_source_t *)base;
    mc_reader_t *r = cdc_xcalloc(1, sizeof(*r));
    r->base.ops = split == 0 && s->pos_file ? &mc_reader_ops_2pc : &mc_reader_ops;
    r->src = s;
    *out = &r->base;
    if (split != 0) { /* one binlog stream: the other splits have nothing to read */
        r->phase = MC_DONE;
        return 0;
    }
    const cdc_format_factory_t *fmt = cdc_registry_format("mysql-binlog");
    cdc_kv_t kv = {0};
    cdc_kv_set(&kv, "input", "events");
    cdc_kv_set(&kv, "table-pattern", s->pattern);
    char off[24];
    snprintf(off, sizeof(off), "%d", s->tz_offset);
    if (s->tz_fixed)
        cdc_kv_set(&kv, "datetime-zone-offset", off);
    r->fmt_cfg = cdc_config_new(fmt->options, "format \"mysql-binlog\"", &kv, err);
    cdc_kv_free(&kv);
    const char *keys[sizeof(s->md) / sizeof(s->md[0])];
    for (int i = 0; i < s->nmd; i++)
        keys[i] = mc_metadata[s->md[i]].key;
    cdc_format_ctx_t fctx = {.cfg = r->fmt_cfg,
                             .row_type = s->schema,
                             .metadata = keys,
                             .nmetadata = s->nmd,
                             .table = "mysql-cdc"};
    if (!r->fmt_cfg || fmt->deser_new(&fctx, &r->deser, err) < 0)
        goto fail;
    r->sp = r->deser->ops->source_pos(r->deser);
    if (!(r->sql = mc_connect(s, s->tz, err)))
        goto fail;
    if (read_pos_file(s->pos_file, r->file, sizeof(r->file), &r->start_pos, &r->checkpoint)) {
        snprintf(r->done_file, sizeof(r->done_file), "%s", r->file);
        r->done_pos = r->start_pos;
    } else if (s->mode == MODE_INITIAL) {
        if (start_snapshot(r, err) < 0)
            goto fail;
        return 0;
    } else if (s->mode == MODE_LATEST) {
        if (query_pos(r->sql, "SHOW MASTER STATUS", 0, 1, r->file, sizeof(r->file), &r->start_pos,
                      err) < 0)
            goto fail;
    } else if (s->mode == MODE_TIMESTAMP) { /* the oldest binlog file, rows filtered by time */
        if (query_pos(r->sql, "SHOW BINARY LOGS", 0, 1, r->file, sizeof(r->file), &r->start_pos,
                      err) < 0)
            goto fail;
        r->start_pos = 4;
        r->since_ms = s->since_ms;
    } else if (s->gtid) {
        r->gtid = s->gtid;
    } else {
        snprintf(r->file, sizeof(r->file), "%s", s->start_file ? s->start_file : "");
        r->start_pos = s->start_pos;
    }
    if (start_stream(r, err) < 0)
        goto fail;
    return 0;
fail:
    mc_close(&r->base);
    *out = NULL;
    return -1;
}

/* ---- source --------------------------------------------------------------------------------- */

static cdc_changelog_mode_t mc_changelog_mode(cdc_source_t *base)
{
    (void)base;
    return CDC_MODE_ALL;
}

static void mc_describe(cdc_source_t *base, cdc_buf_t *out)
{
    mc_source_t *s = (mc_source_t *)base;
    cdc_buf_printf(out, "mysql-cdc(%s.%s, server-id=%u)", s->db, s->table, s->server_id);
}

static void mc_destroy(cdc_source_t *base)
{
    mc_source_t *s = (mc_source_t *)base;
    if (!s)
        return;
    cdc_type_destroy(s->schema);
    cdc_type_destroy(s->produced);
    if (s->has_re)
        regfree(&s->re);
    free(s->pattern);
    free(s->host);
    free(s->user);
    free(s->password);
    free(s->db);
    free(s->table);
    free(s->start_file);
    free(s->pos_file);
    free(s->gtid);
    free(s->tz);
    free(s);
}

static int mc_apply_metadata(cdc_source_t *base, const char *const *keys, int n, cdc_error_t **err)
{
    mc_source_t *s = (mc_source_t *)base;
    if (n > (int)(sizeof(s->md) / sizeof(s->md[0])))
        return cdc_error_set(err, CDC_ERR_PLAN, "mysql-cdc: too many metadata columns (%d)", n);
    cdc_type_t *prod = cdc_type_copy(s->schema);
    for (int i = 0; i < n; i++) {
        int j = 0;
        while (mc_metadata[j].key && strcmp(mc_metadata[j].key, keys[i]) != 0)
            j++;
        if (!mc_metadata[j].key) {
            cdc_type_destroy(prod);
            cdc_error_set(err, CDC_ERR_PLAN,
                          "connector \"mysql-cdc\" offers no metadata key \"%s\"", keys[i]);
            if (err && *err) {
                cdc_buf_t list = {0};
                for (int k = 0; mc_metadata[k].key; k++)
                    cdc_buf_printf(&list, "%s%s", k ? ", " : "", mc_metadata[k].key);
                cdc_error_set_detail(*err, "readable metadata: %s", cdc_buf_cstr(&list));
                cdc_buf_free(&list);
            }
            return -1;
        }
        s->md[i] = (mc_md_t)j;
        cdc_type_row_add(prod, keys[i], cdc_type_parse(mc_metadata[j].type, NULL));
    }
    s->nmd = n;
    cdc_type_destroy(s->produced);
    s->produced = prod;
    s->base.produced = prod;
    return 0;
}

static const cdc_source_ops_t mc_source_ops = {
    .changelog_mode = mc_changelog_mode,
    .open_reader = mc_open_reader,
    .apply_metadata = mc_apply_metadata,
    .describe = mc_describe,
    .destroy = mc_destroy,
};

static char *opt(const cdc_config_t *cfg, const char *key)
{
    const char *v = cdc_config_str(cfg, key);
    return v && *v ? cdc_xstrdup(v) : NULL;
}

static void mc_check(const cdc_config_t *cfg, cdc_buf_t *problems)
{
    int mode = cdc_config_enum(cfg, "scan.startup.mode");
    if (mode == MODE_SPECIFIC && !cdc_config_isset(cfg, "scan.startup.specific-offset.file") &&
        !cdc_config_isset(cfg, "scan.startup.specific-offset.gtid-set"))
        cdc_buf_printf(problems,
                       "%s'scan.startup.mode' = 'specific-offset' needs "
                       "'scan.startup.specific-offset.file' or '.gtid-set'",
                       problems->len ? "\n" : "");
    const char *gtid = cdc_config_str(cfg, "scan.startup.specific-offset.gtid-set");
    if (mode == MODE_SPECIFIC && gtid && strchr(gtid, ':'))
        cdc_buf_printf(problems,
                       "%s'scan.startup.specific-offset.gtid-set' = '%s' is a MySQL GTID set "
                       "(uuid:interval); only MariaDB GTID positions (domain-server-sequence, "
                       "e.g. '0-1-42') are supported: MariaDB Connector/C's replication API "
                       "(mariadb_rpl_open) sends only COM_BINLOG_DUMP, a file and position, "
                       "never MySQL's COM_BINLOG_DUMP_GTID with a GTID set. Give the binlog "
                       "position instead: 'scan.startup.specific-offset.file' and '.pos' (SHOW "
                       "MASTER STATUS on the server)",
                       problems->len ? "\n" : "", gtid);
    if (mode == MODE_TIMESTAMP && !cdc_config_isset(cfg, "scan.startup.timestamp-millis"))
        cdc_buf_printf(problems,
                       "%s'scan.startup.mode' = 'timestamp' needs "
                       "'scan.startup.timestamp-millis'",
                       problems->len ? "\n" : "");
}

/* 'UTC', 'Z' or [+-]HH:MM: the offset in seconds; false for a named zone. */
static bool parse_offset(const char *tz, int *secs)
{
    if (strcmp(tz, "UTC") == 0 || strcmp(tz, "Z") == 0 || strcmp(tz, "GMT") == 0)
        return (*secs = 0), true;
    int h, m;
    char sign, end;
    if (sscanf(tz, "%c%d:%d%c", &sign, &h, &m, &end) != 3 || (sign != '+' && sign != '-') ||
        h < 0 || h > 14 || m < 0 || m > 59)
        return false;
    *secs = (sign == '-' ? -1 : 1) * (h * 3600 + m * 60);
    return true;
}

static int mc_source_new(const cdc_table_ctx_t *ctx, cdc_source_t **out, cdc_error_t **err)
{
    const cdc_config_t *cfg = ctx->cfg;
    mc_source_t *s = cdc_xcalloc(1, sizeof(*s));
    s->base.ops = &mc_source_ops;
    s->schema = cdc_type_copy(ctx->schema);
    s->base.produced = s->schema;
    s->host = opt(cfg, "hostname");
    s->user = opt(cfg, "username");
    s->password = opt(cfg, "password");
    s->db = opt(cfg, "database-name");
    s->table = opt(cfg, "table-name");
    s->start_file = opt(cfg, "scan.startup.specific-offset.file");
    s->pos_file = opt(cfg, "position.file");
    if (!s->pos_file && cdc_state_dir())
        s->pos_file = cdc_strdup_printf("%s/%s.mysql-cdc.pos", cdc_state_dir(), ctx->name);
    s->port = (int)cdc_config_int(cfg, "port");
    s->server_id = (uint32_t)cdc_config_int(cfg, "server-id");
    s->mode = cdc_config_enum(cfg, "scan.startup.mode");
    s->start_pos = (uint64_t)cdc_config_int(cfg, "scan.startup.specific-offset.pos");
    s->gtid = opt(cfg, "scan.startup.specific-offset.gtid-set");
    s->since_ms = cdc_config_isset(cfg, "scan.startup.timestamp-millis")
                      ? cdc_config_int(cfg, "scan.startup.timestamp-millis")
                      : 0;
    s->tz = opt(cfg, "server-time-zone");
    if (!s->tz)
        s->tz = cdc_xstrdup("+00:00");
    s->tz_fixed = parse_offset(s->tz, &s->tz_offset);
    s->pattern = cdc_strdup_printf("(%s)\\.(%s)", s->db, s->table);
    char *anchored = cdc_strdup_printf("^(%s)$", s->pattern);
    int rc = regcomp(&s->re, anchored, REG_EXTENDED | REG_NOSUB);
    free(anchored);
    if (rc != 0) {
        char msg[160];
        regerror(rc, &s->re, msg, sizeof(msg));
        cdc_error_set(err, CDC_ERR_OPTION,
                      "mysql-cdc: 'database-name' / 'table-name' are no regular expression: %s",
                      msg);
        if (err && *err)
            cdc_error_set_detail(*err, "the pattern \"%s\" (POSIX extended)", s->pattern);
        mc_destroy(&s->base);
        return -1;
    }
    s->has_re = true;
    *out = &s->base;
    return 0;
}

const cdc_connector_factory_t cdc_connector_mysql_cdc = {
    .identifier = "mysql-cdc",
    .description = "Changes of a MySQL/MariaDB table read as a replica (binlog rows decoded by "
                   "mysql-binlog): a consistent snapshot, then the stream.",
    .options = mc_options,
    .check = mc_check,
    .metadata = mc_metadata,
    .source_new = mc_source_new,
};
