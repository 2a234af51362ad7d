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
 *  - initial: the tables read in chunks while the stream runs (the DBLog
 *    watermark algorithm of the core's cdc_snapshot.h): the stream starts at
 *    SHOW MASTER STATUS, and each chunk is one plain SELECT by key (no lock, no
 *    long transaction; MySQL 8 and MariaDB alike). On MariaDB the chunk's
 *    SELECT runs in a consistent-read transaction whose binlog_snapshot_file/
 *    _position are its exact watermark; on MySQL SHOW MASTER STATUS after the
 *    SELECT is. Splits other than the first read chunks in parallel
 *    (scan.parallelism); the first reads the stream and emits.
 *  - latest-offset: SHOW MASTER STATUS, then stream.
 *  - specific-offset: scan.startup.specific-offset.file / .pos, or .gtid-set
 *    (MariaDB @slave_connect_state: the server seeks the position itself).
 *  - timestamp: the oldest binlog file (SHOW BINARY LOGS), rows of events older
 *    than scan.startup.timestamp-millis dropped.
 *  - earliest-offset: the oldest binlog file, every row, no snapshot.
 *  - snapshot: as initial, but the stream's rows are not emitted (they only
 *    close the chunks) and the source ends once every chunk is emitted.
 * server-id is one id or a range 'first-last' (Flink CDC: one per split; a
 * range shorter than the splits is refused); split 0 registers with the first.
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
 * (in the snapshot) takes a new snapshot when restarted; later, the position
 * file also holds the snapshot's state (the tables and the chunks not yet
 * emitted), so a restart reads only what is left.
 * With a position file the reader also offers the two-phase commit
 * (cdc_plugin.h): the checkpoint id is stored with the position, and the
 * runtime commits only at a transaction's end (at_boundary; never inside a
 * chunk's rows), so a sink with the other half (filesystem) gets every change
 * exactly once across crashes.
 * Positions kept by the job's state (cdc_plugin.h positions/set_position_store):
 * split 0 reports one line whose token is its whole resume record (the position
 * file's lines and the schema history); given one, its first poll restores the
 * history and the snapshot's queue and opens the stream again at that position
 * (the snapshot starts only then, so no split takes a chunk of the queue the
 * record replaces).
 */
#include <errno.h>
#include <mysql.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cdc_plugin.h"

#include "binlog_int.h" /* cdc_mysql_binlog_seed: the format's column lists */

/* after mysql.h, which it needs */
#include <mariadb_rpl.h>

static const char *const mc_modes[] = {"initial",   "latest-offset",   "specific-offset",
                                       "timestamp", "earliest-offset", "snapshot",
                                       NULL};
enum { MODE_INITIAL, MODE_LATEST, MODE_SPECIFIC, MODE_TIMESTAMP, MODE_EARLIEST, MODE_SNAPSHOT };

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
     .type = CDC_OPT_STRING,
     .default_value = "5400",
     .description = "Replica server id, or a range '5400-5404' as Flink CDC (one id per split, "
                    "split i takes the i-th; the range needs at least scan.parallelism ids). "
                    "The binlog reader (split 0) registers with the first; each must differ "
                    "from the server's and from every other replica's (the server ends a dump "
                    "that reuses one)."},
    {.key = "scan.startup.mode",
     .type = CDC_OPT_ENUM,
     .default_value = "initial",
     .enum_values = mc_modes,
     .description = "'initial': the tables read in chunks (+I) while the binlog streams from "
                    "where it stood at the start (lock-free; MySQL and MariaDB); "
                    "'latest-offset': only changes from now; "
                    "'specific-offset': from scan.startup.specific-offset.file/.pos or "
                    ".gtid-set; 'timestamp': changes made at or after "
                    "scan.startup.timestamp-millis (reads the binlog from its oldest file); "
                    "'earliest-offset': every change from the oldest binlog file, no snapshot; "
                    "'snapshot': the snapshot only (+I), then the source ends."},
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
                    "NULL in every table). Default: the declared PRIMARY KEY, else the first "
                    "table's primary key. A table without either gets an error."},
    {.key = "scan.newly-added-table.enabled",
     .type = CDC_OPT_BOOL,
     .default_value = "false",
     .description = "On a restart from a position file: snapshot the tables 'table-name' matches "
                    "now that the saved state does not name (a table added to the pattern)."},
    {.key = "signal-data-collection",
     .type = CDC_OPT_STRING,
     .description = "(Debezium's signalling) \"db.table\" of a signal table (id VARCHAR(42) "
                    "PRIMARY KEY, type VARCHAR(32), data VARCHAR(2048)) outside 'table-name': a "
                    "row inserted with type 'execute-snapshot' and data {\"data-collections\": "
                    "[\"db.t\"], \"additional-conditions\": [{\"data-collection\": \"db.t\", "
                    "\"filter\": \"...\"}]} snapshots those tables (or the rows the filter "
                    "selects) again while the job streams. `cdcflow signal` inserts one."},
    {.key = "scan.parallelism",
     .type = CDC_OPT_INT,
     .min = 1,
     .max = 256,
     .description = "Splits of the source: the first reads the binlog and emits, the others read "
                    "snapshot chunks in parallel. Unset means the run's parallelism."},
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
    {.key = "debezium.",
     .type = CDC_OPT_PREFIX,
     .description = "Debezium properties (Flink CDC passes them to Debezium): "
                    "'debezium.snapshot.mode' (initial, initial_only, no_data/schema_only, "
                    "never) sets scan.startup.mode; 'debezium.binary.handling.mode' (bytes, "
                    "base64, base64-url-safe, hex) writes BINARY/VARBINARY/BLOB columns "
                    "declared STRING as that text (snapshot and binlog); a property this source "
                    "has its own option for is refused naming it; any other is accepted with a "
                    "warning: it has no effect."},
    {.key = "jdbc.properties.",
     .type = CDC_OPT_PREFIX,
     .description = "MySQL JDBC URL properties, where libmariadb has an equivalent: "
                    "connectTimeout and socketTimeout (ms, rounded up to seconds), useSSL, "
                    "requireSSL, sslMode (PREFERRED is REQUIRED: no fallback to plain), "
                    "verifyServerCertificate (VERIFY_CA/VERIFY_IDENTITY), characterEncoding "
                    "(UTF-8 only); any other is accepted with a warning: it has no effect."},
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
    MD_SNAPSHOT,
    MD_ROW_KIND
} mc_md_t;

static const cdc_metadata_def_t mc_metadata[] = {
    {"database_name", "STRING", "Database of the row's table.", false},
    {"table_name", "STRING", "Table the row comes from.", false},
    {"op_ts", "TIMESTAMP_LTZ(3)",
     "When the change was made (the binlog event's time); 0 (1970-01-01) for snapshot rows.",
     false},
    {"source.file", "STRING",
     "(cdcflow, Debezium source.file) Binlog file of the row's event; for snapshot rows the "
     "snapshot's position.",
     false},
    {"source.pos", "BIGINT",
     "(cdcflow, Debezium source.pos) Position of the row's event in source.file.", false},
    {"source.gtid", "STRING",
     "(cdcflow, Debezium source.gtid) GTID of the row's transaction: MariaDB '0-1-42', MySQL "
     "'3e11fa47-71ca-11e1-9e33-c80aa9429562:23' (NULL in the snapshot and for MySQL's "
     "anonymous transactions, gtid_mode=OFF).",
     false},
    {"source.server_id", "BIGINT", "(cdcflow, Debezium source.server_id) Server that wrote it.",
     false},
    {"source.snapshot", "BOOLEAN",
     "(cdcflow, Debezium source.snapshot) Whether the row comes from the snapshot.", false},
    {"row_kind", "STRING",
     "The row's change kind: '+I' (INSERT, and every snapshot row), '-U' (UPDATE_BEFORE), '+U' "
     "(UPDATE_AFTER), '-D' (DELETE), as Flink CDC. A column that differs between a row and "
     "its retraction: meant for plain copies, not for aggregations.",
     false},
    {0},
};

/* The MySQL JDBC URL properties (jdbc.properties.*) that libmariadb has an equivalent of. */
typedef struct mc_jdbc_s {
    unsigned connect_timeout; /* seconds; connectTimeout (ms) rounded up; 10 by default */
    unsigned rw_timeout;      /* seconds; socketTimeout (ms) rounded up; 0 = none */
    bool tls, verify;         /* useSSL / requireSSL / sslMode / verifyServerCertificate */
} mc_jdbc_t;

/* Connector/J's property names are case-sensitive; the values are not. */
static bool ieq(const char *a, const char *b)
{
    return strcasecmp(a, b) == 0;
}

/*
 * Reads jdbc.properties.* into out (NULL: only checking): the keys with a
 * libmariadb equivalent act, a bad value is a problem line, any other key is
 * warned about as ignored (when warn).
 */
static void mc_jdbc_props(const cdc_config_t *cfg, mc_jdbc_t *out, bool warn, cdc_buf_t *problems)
{
    mc_jdbc_t j = {.connect_timeout = 10};
    const cdc_kv_t *kv = cdc_config_prefixed(cfg, "jdbc.properties.");
    for (int i = 0; kv && i < kv->n; i++) {
        const char *k = kv->keys[i], *v = kv->values[i];
        int64_t n = -1;
        bool is_true = ieq(v, "true"), is_false = ieq(v, "false");
        if (strcmp(k, "connectTimeout") == 0 || strcmp(k, "socketTimeout") == 0) {
            if (cdc_parse_int(v, &n) < 0 || n < 0 || n > 86400000) {
                cdc_buf_printf(problems,
                               "%soption \"jdbc.properties.%s\": expected milliseconds (0 to "
                               "86400000), found '%s'",
                               problems->len ? "\n" : "", k, v);
                continue;
            }
            unsigned secs = (unsigned)((n + 999) / 1000);
            if (k[0] == 'c')
                j.connect_timeout = secs;
            else
                j.rw_timeout = secs;
        } else if (strcmp(k, "useSSL") == 0 || strcmp(k, "requireSSL") == 0 ||
                   strcmp(k, "verifyServerCertificate") == 0) {
            if (!is_true && !is_false) {
                cdc_buf_printf(problems,
                               "%soption \"jdbc.properties.%s\": expected true or false, found "
                               "'%s'",
                               problems->len ? "\n" : "", k, v);
                continue;
            }
            if (k[0] == 'v')
                j.verify = j.verify || is_true;
            j.tls = j.tls || is_true;
        } else if (strcmp(k, "sslMode") == 0) {
            if (ieq(v, "VERIFY_CA") || ieq(v, "VERIFY_IDENTITY"))
                j.tls = j.verify = true;
            else if (ieq(v, "REQUIRED") || ieq(v, "PREFERRED"))
                j.tls = true;
            else if (!ieq(v, "DISABLED"))
                cdc_buf_printf(problems,
                               "%soption \"jdbc.properties.sslMode\": expected DISABLED, "
                               "PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY, found '%s'",
                               problems->len ? "\n" : "", v);
        } else if (strcmp(k, "characterEncoding") == 0 && !ieq(v, "UTF-8") && !ieq(v, "utf8") &&
                   !ieq(v, "utf8mb4")) {
            cdc_buf_printf(problems,
                           "%soption \"jdbc.properties.characterEncoding\" = '%s': the source "
                           "reads text as utf8mb4 (UTF-8) only",
                           problems->len ? "\n" : "", v);
        } else if (strcmp(k, "characterEncoding") != 0 && warn) {
            fprintf(stderr,
                    "cdcflow: warning: mysql-cdc: option \"jdbc.properties.%s\" is ignored "
                    "(only connectTimeout, socketTimeout, useSSL, requireSSL, sslMode, "
                    "verifyServerCertificate and characterEncoding have a libmariadb "
                    "equivalent); accepted\n",
                    k);
        }
    }
    if (out)
        *out = j;
}

typedef struct mc_source {
    cdc_source_t base;
    cdc_type_t *schema;   /* physical columns */
    cdc_type_t *produced; /* physical + metadata, NULL without metadata */
    mc_md_t md[9];
    int nmd;
    bool row_kind; /* md holds MD_ROW_KIND */
    char *pattern; /* "^((db)\\.(table))$" */
    regex_t re;
    bool has_re;
    char *host, *user, *password, *db, *table, *start_file, *pos_file, *gtid, *tz;
    bool tz_fixed;    /* tz is UTC or an offset */
    int tz_offset;    /* seconds east of UTC, when tz_fixed */
    int64_t since_ms; /* 'timestamp' mode */
    int port;
    uint32_t server_id;  /* the first of the range (split 0's) */
    uint32_t server_ids; /* ids in the range, 1 for a single id */
    int mode;
    uint64_t start_pos;
    uint32_t chunk_size;
    char *chunk_col;            /* scan.incremental.snapshot.chunk.key-column */
    char *signal;               /* signal-data-collection */
    bool newly_added;           /* scan.newly-added-table.enabled */
    int key[16], nkey;          /* the chunk key: indexes into schema */
    cdc_snapshot_t *snap;       /* shared by the splits; split 0 lists the tables and starts it */
    cdc_binary_mode_t bin_mode; /* debezium.binary.handling.mode */
    mc_jdbc_t jdbc;             /* jdbc.properties.* with a libmariadb equivalent */
} mc_source_t;

typedef enum mc_phase { MC_STREAM, MC_WORKER, MC_DONE } mc_phase_t;

typedef struct mc_reader {
    cdc_reader_t base;
    mc_source_t *src;
    mc_phase_t phase;
    MYSQL *sql, *repl;
    bool mariadb;          /* the server is MariaDB (a chunk's SELECT has an exact watermark) */
    cdc_snapshot_t *snap;  /* the source's, while a snapshot runs (split 0: it emits) */
    cdc_snap_pos_t cur;    /* split 0: where the stream stands (after the last event) */
    int64_t t_open;        /* when the reader opened (ms) */
    bool streamed;         /* a streamed change was emitted */
    bool snap_logged;      /* the snapshot's end was logged */
    cdc_buf_t keytext[16]; /* the key texts of a chunk's last row */
    cdc_buf_t sqlbuf;
    cdc_config_t *sig_cfg; /* signal-data-collection: its own decoder of the same events */
    cdc_deser_t *sig_deser;
    cdc_type_t *sig_type;
    cdc_batch_t sig_batch;
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
    int nsplits;
    bool snap_saved_done; /* the finished snapshot's state is in the position file */
    /* schema changes the format found, given one per poll (copies; [0] is the current one) */
    cdc_schema_change_t **chg;
    int nchg, capchg;
    bool chg_given; /* chg[0] was returned by the last poll: the next poll drops it */
    /* positions kept by the job's state (cdc_reader_ops_t.positions) */
    char *key;                         /* "mysql-cdc/<host>:<port>/<db>.<table>/<split>" */
    const cdc_position_store_t *store; /* NULL: none */
    bool started;                      /* the first poll applied the store, started the snapshot */
    char *gtid_own;                    /* a stored GTID position (r->gtid points to it) */
    cdc_buf_t posbuf;                  /* the record positions() encodes */
} mc_reader_t;

#define MC_POS_MAGIC "cdcflow mysql-cdc position v1"
#define MC_HISTORY_HEADER "cdcflow mysql-binlog schema history v1\n"

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
    mysql_options(my, MYSQL_OPT_CONNECT_TIMEOUT, &s->jdbc.connect_timeout);
    if (s->jdbc.rw_timeout) {
        mysql_options(my, MYSQL_OPT_READ_TIMEOUT, &s->jdbc.rw_timeout);
        mysql_options(my, MYSQL_OPT_WRITE_TIMEOUT, &s->jdbc.rw_timeout);
    }
    if (s->jdbc.tls) { /* TLS required (libmariadb has no "try TLS, else plain") */
        my_bool on = 1, verify = s->jdbc.verify;
        mysql_ssl_set(my, NULL, NULL, NULL, NULL, NULL);
        mysql_options(my, MYSQL_OPT_SSL_ENFORCE, &on);
        mysql_options(my, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &verify);
    }
    mysql_options(my, MYSQL_SET_CHARSET_NAME, "utf8mb4");
    if (!mysql_real_connect(my, s->host, s->user, s->password ? s->password : "", NULL,
                            (unsigned)s->port, NULL, 0)) {
        my_fail(err, my, "connecting");
        mysql_close(my);
        return NULL;
    }
    /* (libmariadb 3.3 goes on in plain text when the server has no TLS and only ENFORCE is set) */
    if (s->jdbc.tls && !mysql_get_ssl_cipher(my)) {
        cdc_error_set(err, CDC_ERR_REMOTE,
                      "mysql-cdc: the server at %s:%d did not start TLS (SSL), which "
                      "jdbc.properties useSSL/requireSSL/sslMode require",
                      s->host, s->port);
        if (err && *err)
            cdc_error_set_hint(*err, "enable TLS on the server (have_ssl = YES), or set "
                                     "'jdbc.properties.sslMode' = 'DISABLED'");
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
static int resolve_key(mc_reader_t *r, cdc_error_t **err);
static int mc_start(mc_reader_t *r, cdc_error_t **err);
static int load_snapshot_state(mc_reader_t *r, const char *state, const char *origin,
                               cdc_error_t **err);

/* The metadata values of a snapshot row (after its physical fields); strings copied into the
 * arena. */
static void set_str(cdc_value_t *v, const char *p, size_t n, cdc_arena_t *arena)
{
    v->v.s.ptr = cdc_arena_memdup(arena, p, n);
    v->v.s.len = (uint32_t)n;
}

/* The row_kind metadata value: Flink's short names, static text (no copy per row). */
static void set_row_kind(cdc_value_t *v, cdc_kind_t kind)
{
    static const char *const names[] = {"+I", "-U", "+U", "-D"};
    v->flags = 0;
    v->v.s.ptr = names[kind];
    v->v.s.len = 2;
}

/* row_kind of the rows the format appended from `from` on: the format does not know the key, so
   it filled source.snapshot in that slot (see start_stream), replaced here. */
static void fill_row_kind(const mc_source_t *s, cdc_batch_t *out, uint32_t from)
{
    int base = s->schema->nchildren;
    for (int i = 0; i < s->nmd; i++)
        if (s->md[i] == MD_ROW_KIND)
            for (uint32_t r = from; r < out->n; r++)
                set_row_kind(&out->rows[r].values[base + i], out->rows[r].kind);
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
        case MD_ROW_KIND:
            set_row_kind(v, o->kind);
            break;
        }
    }
}

/* `name` quoted as a MySQL identifier (new string). */
static char *ident(const char *name)
{
    cdc_buf_t b = {0};
    cdc_buf_putc(&b, '`');
    for (const char *p = name; *p; p++) {
        if (*p == '`')
            cdc_buf_putc(&b, '`');
        cdc_buf_putc(&b, *p);
    }
    cdc_buf_putc(&b, '`');
    char *s = cdc_xstrdup(cdc_buf_cstr(&b));
    cdc_buf_free(&b);
    return s;
}

/* ---- snapshot chunks ------------------------------------------------------------------------ */

/* MariaDB's binlog position of the consistent-read snapshot just started ("" when none). */
static int snapshot_status(MYSQL *my, char *file, size_t flen, uint64_t *pos, cdc_error_t **err)
{
    const char *q = "SHOW STATUS LIKE 'binlog_snapshot_%'";
    if (mysql_query(my, q))
        return my_fail(err, my, q);
    MYSQL_RES *res = mysql_store_result(my);
    MYSQL_ROW row;
    file[0] = 0;
    *pos = 0;
    while (res && (row = mysql_fetch_row(res))) {
        if (row[0] && row[1] && strcasecmp(row[0], "binlog_snapshot_file") == 0)
            snprintf(file, flen, "%s", row[1]);
        else if (row[0] && row[1] && strcasecmp(row[0], "binlog_snapshot_position") == 0)
            *pos = strtoull(row[1], NULL, 10);
    }
    mysql_free_result(res);
    return 0;
}

/* Where the binlog ends now: SHOW MASTER STATUS (SHOW BINARY LOG STATUS on MySQL 8.4+). */
static int query_master(MYSQL *my, char *file, size_t flen, uint64_t *pos, cdc_error_t **err)
{
    if (query_pos(my, "SHOW MASTER STATUS", 0, 1, file, flen, pos, err) == 0)
        return 0;
    if (mysql_errno(my) != 1064) /* not a syntax error: MySQL 8.4 renamed it */
        return -1;
    cdc_error_destroy(*err);
    *err = NULL;
    return query_pos(my, "SHOW BINARY LOG STATUS", 0, 1, file, flen, pos, err);
}

/* A binlog position as the snapshot compares them: the file's number, the offset. */
static cdc_snap_pos_t binlog_pos(const char *file, uint64_t pos)
{
    const char *dot = file ? strrchr(file, '.') : NULL;
    return (cdc_snap_pos_t){dot ? strtoull(dot + 1, NULL, 10) : 0, pos};
}

/* Appends the SQL literal of text t (quoted; MySQL converts it to the column's type). */
static void put_literal(MYSQL *my, cdc_buf_t *b, const char *t)
{
    size_t n = strlen(t);
    cdc_buf_grow(b, 2 * n + 3);
    b->data[b->len++] = '\'';
    b->len += mysql_real_escape_string(my, b->data + b->len, t, (unsigned long)n);
    b->data[b->len++] = '\'';
    b->data[b->len] = 0;
}

/* "(`k1`, `k2`)" or "`k1`" */
static void put_key_cols(const mc_source_t *s, cdc_buf_t *b)
{
    if (s->nkey > 1)
        cdc_buf_putc(b, '(');
    for (int i = 0; i < s->nkey; i++) {
        char *c = ident(s->schema->names[s->key[i]]);
        cdc_buf_printf(b, "%s%s", i ? ", " : "", c);
        free(c);
    }
    if (s->nkey > 1)
        cdc_buf_putc(b, ')');
}

static void put_key_vals(MYSQL *my, const mc_source_t *s, cdc_buf_t *b, char *const *k)
{
    if (s->nkey > 1)
        cdc_buf_putc(b, '(');
    for (int i = 0; i < s->nkey; i++) {
        if (i)
            cdc_buf_puts(b, ", ");
        put_literal(my, b, k[i]);
    }
    if (s->nkey > 1)
        cdc_buf_putc(b, ')');
}

/* " FROM `db`.`t` WHERE <range> [AND (extra)]" of a read */
static void put_from_where(MYSQL *my, const mc_source_t *s, const cdc_snap_read_t *rd,
                           const char *qname, cdc_buf_t *b)
{
    const char *dot = strchr(qname, '.');
    char *dbname = cdc_xstrndup(qname, (size_t)(dot - qname));
    char *db = ident(dbname), *tab = ident(dot + 1);
    cdc_buf_printf(b, " FROM %s.%s WHERE 1 = 1", db, tab);
    free(db);
    free(tab);
    free(dbname);
    if (rd->lo) {
        cdc_buf_puts(b, " AND ");
        put_key_cols(s, b);
        cdc_buf_puts(b, " > ");
        put_key_vals(my, s, b, rd->lo);
    }
    if (rd->hi) {
        cdc_buf_puts(b, " AND ");
        put_key_cols(s, b);
        cdc_buf_puts(b, rd->hi_incl ? " <= " : " < ");
        put_key_vals(my, s, b, rd->hi);
    }
    if (rd->extra)
        cdc_buf_printf(b, " AND (%s)", rd->extra);
}

/* The metadata of a chunk's rows: the high watermark's position. */
static void chunk_meta(const mc_source_t *s, cdc_snap_read_t *rd, const char *file, uint64_t pos)
{
    if (!s->nmd)
        return;
    const char *f = cdc_arena_strdup(&rd->rows.arena, file);
    mc_where_t w = {.file = f, .pos = pos, .snapshot = true};
    for (uint32_t i = 0; i < rd->rows.n; i++)
        fill_meta(s, &rd->rows.rows[i], &w, &rd->rows.arena);
}

/*
 * Reads one chunk with `my` (any split's connection): on MariaDB in a
 * consistent-read transaction whose binlog_snapshot_file/_position are the
 * exact watermark; on MySQL the SELECT alone, then SHOW MASTER STATUS as the
 * high watermark. Hands the rows to the snapshot (filled), or abandons the
 * read and fails.
 */
/*
 * A chunk's SELECT into sql: the declared columns (a column in `missing`, which
 * the table no longer has after a DROP or RENAME at the source, as NULL), then
 * the key as stored.
 */
static void chunk_sql(mc_reader_t *r, MYSQL *my, cdc_snap_read_t *rd, const char *qname,
                      const bool *missing, cdc_buf_t *sql)
{
    mc_source_t *s = r->src;
    const cdc_type_t *t = s->schema;
    cdc_buf_clear(sql);
    cdc_buf_puts(sql, "SELECT ");
    for (int i = 0; i < t->nchildren; i++) {
        char *c = ident(t->names[i]);
        if (missing && missing[i])
            cdc_buf_puts(sql, "NULL, ");
        else if (t->children[i]->root == CDC_T_TIMESTAMP_LTZ) /* to UTC text */
            cdc_buf_printf(sql, "CONVERT_TZ(%s, @@session.time_zone, '+00:00'), ", c);
        else
            cdc_buf_printf(sql, "%s, ", c);
        free(c);
    }
    for (int k = 0; k < s->nkey; k++) { /* the key as stored, for the next chunk's bound */
        char *c = ident(t->names[s->key[k]]);
        cdc_buf_printf(sql, "%s%s", k ? ", " : "", c);
        free(c);
    }
    put_from_where(my, s, rd, qname, sql);
    cdc_buf_puts(sql, " ORDER BY ");
    for (int k = 0; k < s->nkey; k++) {
        char *c = ident(t->names[s->key[k]]);
        cdc_buf_printf(sql, "%s%s", k ? ", " : "", c);
        free(c);
    }
    cdc_buf_printf(sql, " LIMIT %u", s->chunk_size);
}

/* Marks the declared columns table qname does not have (now); 0, or -1 with *err. */
static int missing_columns(mc_reader_t *r, MYSQL *my, const char *qname, bool *missing,
                           cdc_error_t **err)
{
    const cdc_type_t *t = r->src->schema;
    const char *dot = strchr(qname, '.');
    cdc_buf_t q = {0};
    cdc_buf_puts(&q, "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ");
    char *db = cdc_xstrndup(qname, (size_t)(dot - qname));
    put_literal(my, &q, db);
    free(db);
    cdc_buf_puts(&q, " AND TABLE_NAME = ");
    put_literal(my, &q, dot + 1);
    int rc = 0;
    if (mysql_query(my, cdc_buf_cstr(&q))) {
        rc = my_fail(err, my, "reading a table's columns");
    } else {
        for (int i = 0; i < t->nchildren; i++)
            missing[i] = true;
        MYSQL_RES *res = mysql_store_result(my);
        MYSQL_ROW row;
        while (res && (row = mysql_fetch_row(res)))
            for (int i = 0; row[0] && i < t->nchildren; i++)
                if (strcasecmp(row[0], t->names[i]) == 0)
                    missing[i] = false;
        mysql_free_result(res);
    }
    cdc_buf_free(&q);
    return rc;
}

/*
 * Per declared column of a chunk's result: a binary column (BINARY, VARBINARY, BLOB) declared
 * STRING, written as text per debezium.binary.handling.mode. In 'bytes' mode such a column is an
 * error, as in the binlog (its bytes are no text). A new array, or NULL with *err.
 */
static bool *bin_text_columns(const mc_source_t *s, MYSQL_RES *res, const char *qname,
                              cdc_error_t **err)
{
    const cdc_type_t *t = s->schema;
    MYSQL_FIELD *fields = mysql_fetch_fields(res);
    bool *bin = cdc_xcalloc((size_t)t->nchildren + 1, sizeof(bool));
    for (int i = 0; i < t->nchildren; i++) {
        enum enum_field_types ft = fields[i].type;
        bool binary =
            fields[i].charsetnr == 63 &&
            (ft == MYSQL_TYPE_STRING || ft == MYSQL_TYPE_VAR_STRING || ft == MYSQL_TYPE_VARCHAR ||
             ft == MYSQL_TYPE_BLOB || ft == MYSQL_TYPE_TINY_BLOB || ft == MYSQL_TYPE_MEDIUM_BLOB ||
             ft == MYSQL_TYPE_LONG_BLOB);
        cdc_type_root_t root = t->children[i]->root;
        bin[i] = binary && (root == CDC_T_CHAR || root == CDC_T_VARCHAR);
        if (bin[i] && s->bin_mode == CDC_BINARY_BYTES) {
            cdc_error_set(err, CDC_ERR_PLAN,
                          "mysql-cdc: snapshot of %s: column \"%s\" is binary, declared %s", qname,
                          t->names[i], root == CDC_T_CHAR ? "CHAR" : "STRING");
            cdc_error_set_hint(*err, "declare it BYTES, or set 'debezium.binary.handling.mode' to "
                                     "base64, base64-url-safe or hex for text");
            free(bin);
            return NULL;
        }
    }
    return bin;
}

static int read_chunk(mc_reader_t *r, MYSQL *my, cdc_snap_read_t *rd, cdc_error_t **err)
{
    mc_source_t *s = r->src;
    const cdc_type_t *t = s->schema;
    const char *qname = cdc_snapshot_table(s->snap, rd->table);
    cdc_buf_t *sql = &r->sqlbuf;
    bool *missing = NULL;
    chunk_sql(r, my, rd, qname, NULL, sql);
    char file[512] = "";
    uint64_t pos = 0;
    bool exact = r->mariadb;
    if (exact) {
        if (run(my, "START TRANSACTION WITH CONSISTENT SNAPSHOT", err) < 0 ||
            snapshot_status(my, file, sizeof(file), &pos, err) < 0)
            goto fail;
        exact = file[0] && pos >= 4; /* (else a SHOW MASTER STATUS after the SELECT) */
    }
    if (mysql_query(my, cdc_buf_cstr(sql)) && mysql_errno(my) == 1054 /* ER_BAD_FIELD_ERROR */) {
        /* a declared column the table lost (a DDL at the source): NULL for it */
        missing = cdc_xcalloc((size_t)t->nchildren + 1, sizeof(*missing));
        if (missing_columns(r, my, qname, missing, err) < 0)
            goto fail;
        for (int k = 0; k < s->nkey; k++)
            if (missing[s->key[k]]) {
                cdc_error_set(err, CDC_ERR_PLAN,
                              "mysql-cdc: snapshot of %s: the chunk key column "
                              "\"%s\" is gone from the table",
                              qname, t->names[s->key[k]]);
                goto fail;
            }
        chunk_sql(r, my, rd, qname, missing, sql);
        mysql_query(my, cdc_buf_cstr(sql));
    }
    if (mysql_errno(my)) {
        my_fail(err, my, "a snapshot chunk's SELECT");
        if (err && *err)
            cdc_error_add_context(*err, "%s", cdc_buf_cstr(sql));
        goto fail;
    }
    MYSQL_RES *res = mysql_use_result(my);
    if (!res) {
        my_fail(err, my, "reading a snapshot chunk");
        goto fail;
    }
    MYSQL_ROW row;
    uint32_t n = 0;
    int nc = t->nchildren;
    bool *bin_text = bin_text_columns(s, res, qname, err);
    if (!bin_text) {
        mysql_free_result(res);
        goto fail;
    }
    while ((row = mysql_fetch_row(res))) {
        unsigned long *lens = mysql_fetch_lengths(res);
        cdc_row_t *o = cdc_batch_add(&rd->rows, CDC_INSERT, (uint32_t)(nc + s->nmd));
        o->origin = qname;
        for (int i = 0; i < nc; i++) {
            cdc_value_t *v = &o->values[i];
            if (!row[i])
                continue;
            v->flags = 0;
            if (bin_text[i]) { /* binary declared STRING: debezium.binary.handling.mode */
                cdc_text_bytes_to_text(&rd->rows.arena, s->bin_mode, (const unsigned char *)row[i],
                                       lens[i], &v->v.s);
                continue;
            }
            /* MySQL text into the declared type (zero dates become NULL) */
            const char *why = NULL;
            if (cdc_value_from_text(t->children[i], row[i], lens[i], CDC_TEXT_MYSQL | CDC_TEXT_COPY,
                                    &rd->rows.arena, v, &why) != CDC_TEXT_OK) {
                cdc_error_set(err, CDC_ERR_PARSE,
                              "mysql-cdc: snapshot of %s, column \"%s\": %s: \"%.*s\"", qname,
                              t->names[i], why, (int)(lens[i] > 60 ? 60 : lens[i]), row[i]);
                mysql_free_result(res);
                free(bin_text);
                goto fail;
            }
        }
        for (int k = 0; k < s->nkey; k++) {
            cdc_buf_clear(&r->keytext[k]);
            if (row[nc + k])
                cdc_buf_append(&r->keytext[k], row[nc + k], lens[nc + k]);
            cdc_buf_cstr(&r->keytext[k]);
        }
        n++;
    }
    free(bin_text);
    if (mysql_errno(my)) {
        my_fail(err, my, "reading a snapshot chunk");
        mysql_free_result(res);
        goto fail;
    }
    mysql_free_result(res);
    if (exact && run(my, "COMMIT", err) < 0)
        goto fail;
    if (!exact && query_master(my, file, sizeof(file), &pos, err) < 0)
        goto fail;
    rd->hw = binlog_pos(file, pos);
    rd->exact = exact;
    chunk_meta(s, rd, file, pos);
    char *last[16];
    for (int k = 0; k < s->nkey; k++)
        last[k] = r->keytext[k].data;
    cdc_snapshot_filled(s->snap, rd, n >= s->chunk_size ? last : NULL);
    free(missing);
    return 0;
fail:
    free(missing);
    if (r->mariadb)
        mysql_query(my, "ROLLBACK");
    cdc_snapshot_abandon(s->snap, rd);
    return -1;
}

/* Plans a whole integer-keyed range for the splits: its min, max and the table's row
 * estimate. */
static int plan_chunks(mc_reader_t *r, MYSQL *my, cdc_snap_read_t *rd, cdc_error_t **err)
{
    mc_source_t *s = r->src;
    const char *qname = cdc_snapshot_table(s->snap, rd->table);
    cdc_buf_t *sql = &r->sqlbuf;
    cdc_buf_clear(sql);
    char *c = ident(s->schema->names[s->key[0]]);
    cdc_buf_printf(sql,
                   "SELECT MIN(%s), MAX(%s), (SELECT TABLE_ROWS FROM "
                   "information_schema.TABLES WHERE CONCAT(TABLE_SCHEMA, '.', TABLE_NAME) = ",
                   c, c);
    free(c);
    put_literal(my, sql, qname);
    cdc_buf_puts(sql, ")");
    put_from_where(my, s, rd, qname, sql);
    if (mysql_query(my, cdc_buf_cstr(sql))) {
        my_fail(err, my, "planning the snapshot's chunks");
        cdc_snapshot_abandon(s->snap, rd);
        return -1;
    }
    MYSQL_RES *res = mysql_store_result(my);
    MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
    if (row && row[0] && row[1])
        cdc_snapshot_plan(s->snap, rd, strtoll(row[0], NULL, 10), strtoll(row[1], NULL, 10),
                          row[2] ? strtod(row[2], NULL) : 0);
    mysql_free_result(res);
    return 0;
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
        run(r->repl,
            r->snap && cdc_snapshot_has_work(r->snap)
                ? "SET @master_heartbeat_period = 10000000" /* chunks wait for the position */
                : "SET @master_heartbeat_period = 100000000",
            err) < 0)
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

/*
 * The signal table's rows in this event: an inserted 'execute-snapshot' queues
 * its tables (with their filters) in the snapshot. A signal naming a table the
 * source does not capture, or malformed data, is logged and skipped (the
 * signal table is the user's; a typo must not stop the job).
 */
static int read_signals(mc_reader_t *r, const char *bytes, size_t n, cdc_error_t **err)
{
    cdc_batch_reset(&r->sig_batch);
    cdc_buf_clear(&r->sig_deser->errmsg);
    int rc = r->sig_deser->ops->decode(r->sig_deser, bytes, n, &r->sig_batch);
    if (rc != CDC_DECODE_OK && rc != CDC_DECODE_SCHEMA) /* (the signal table's own DDL) */
        return cdc_error_set(err, CDC_ERR_PARSE, "mysql-cdc: signal table %s: %s", r->src->signal,
                             cdc_buf_cstr(&r->sig_deser->errmsg));
    for (uint32_t i = 0; i < r->sig_batch.n; i++) {
        const cdc_row_t *row = &r->sig_batch.rows[i];
        const cdc_value_t *type = &row->values[1], *data = &row->values[2];
        if (row->kind != CDC_INSERT || (type->flags & CDC_V_NULL) || (data->flags & CDC_V_NULL) ||
            type->v.s.len != 16 || memcmp(type->v.s.ptr, "execute-snapshot", 16) != 0)
            continue;
        cdc_snap_signal_t sig;
        cdc_error_t *e = NULL;
        if (cdc_snap_signal_parse(data->v.s.ptr, data->v.s.len, &sig, &e) < 0) {
            cdc_log(CDC_LOG_WARN, NULL, "mysql-cdc", "signal table %s: %s; signal skipped",
                    r->src->signal, e->message);
            cdc_error_destroy(e);
            continue;
        }
        for (int k = 0; k < sig.n; k++) {
            int t = cdc_snapshot_find_table(r->snap, sig.collections[k]);
            if (t < 0) {
                cdc_log(CDC_LOG_WARN, NULL, "mysql-cdc",
                        "signal: %s is not a table this source captured when it started; "
                        "skipped",
                        sig.collections[k]);
                continue;
            }
            if (r->src->nkey == 0 && resolve_key(r, err) < 0) {
                cdc_snap_signal_free(&sig);
                return -1;
            }
            cdc_log(CDC_LOG_INFO, NULL, "mysql-cdc", "signal: snapshot of %s%s%s",
                    sig.collections[k], sig.filters[k] ? " where " : "",
                    sig.filters[k] ? sig.filters[k] : "");
            cdc_snapshot_queue_table(r->snap, t, sig.filters[k]);
        }
        cdc_snap_signal_free(&sig);
    }
    return 0;
}

/*
 * Copies the changes the last decode found: an event gives them before any
 * of its rows (a TABLE_MAP or a QUERY has none), and a poll returns each.
 */
static void keep_changes(mc_reader_t *r)
{
    const cdc_schema_change_t *const *changes;
    const uint32_t *at;
    int n = r->deser->ops->schema_changes(r->deser, &changes, &at);
    for (int i = 0; i < n; i++) {
        if (r->nchg == r->capchg) {
            r->capchg = r->capchg ? r->capchg * 2 : 4;
            r->chg = cdc_xrealloc(r->chg, (size_t)r->capchg * sizeof(*r->chg));
        }
        r->chg[r->nchg++] = cdc_schema_change_copy(changes[i]);
    }
}

/* The change the last poll returned CDC_POLL_SCHEMA for goes; the next, if any, is due. */
static bool next_change(mc_reader_t *r)
{
    if (r->chg_given && r->nchg) {
        cdc_schema_change_free(r->chg[0]);
        memmove(r->chg, r->chg + 1, (size_t)(r->nchg - 1) * sizeof(*r->chg));
        r->nchg--;
    }
    r->chg_given = r->nchg > 0;
    return r->chg_given;
}

static const cdc_schema_change_t *mc_schema_change(cdc_reader_t *base)
{
    mc_reader_t *r = (mc_reader_t *)base;
    return r->chg_given && r->nchg ? r->chg[0] : NULL;
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
        int drc = r->deser->ops->decode(r->deser, (const char *)bytes, n, out);
        if (drc != CDC_DECODE_OK && drc != CDC_DECODE_SCHEMA) {
            cdc_error_set(err, CDC_ERR_PARSE, "mysql-cdc: %s", cdc_buf_cstr(&r->deser->errmsg));
            return CDC_POLL_ERROR;
        }
        if (r->src->row_kind)
            fill_row_kind(r->src, out, from);
        if (drc == CDC_DECODE_SCHEMA)
            keep_changes(r);
        if (r->sig_deser && read_signals(r, (const char *)bytes, n, err) < 0)
            return CDC_POLL_ERROR;
        const cdc_source_pos_t *sp = r->sp;
        if (r->snap && sp->pos) { /* where the stream stands; the snapshot sees its rows */
            cdc_snap_pos_t at = binlog_pos(sp->file ? sp->file : r->file, sp->pos);
            if (at.major != r->cur.major || at.minor > r->cur.minor)
                r->cur = at;
            cdc_snapshot_observe(r->snap, out, from, r->cur);
        }
        if (!r->streamed && out->n > from && r->snap) {
            r->streamed = true;
            cdc_log(CDC_LOG_INFO, NULL, "mysql-cdc", "first streamed change after %lld ms",
                    (long long)(cdc_mono_ms() - r->t_open));
        }
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
        /* 'timestamp': rows before the start time; 'snapshot': the stream only moves the
           chunks' watermarks (and corrects their rows), it emits nothing */
        if (out->n > from && (sp->ts_ms < r->since_ms || r->src->mode == MODE_SNAPSHOT))
            cdc_batch_truncate(out, out->n - from);
        if (r->nchg) { /* one event: its change falls before any row of it */
            r->chg_given = true;
            return CDC_POLL_SCHEMA;
        }
    }
    return CDC_POLL_OK;
}

static void release_held(mc_reader_t *r)
{
    for (int i = 0; i < r->nheld; i++)
        mariadb_free_rpl_event(r->held[i]);
    r->nheld = 0;
}

/* The snapshot's end, once: its figures. */
static void log_snapshot_end(mc_reader_t *r)
{
    cdc_snapshot_log_end(r->snap, "mysql-cdc", r->t_open);
    r->snap_logged = true;
}

/*
 * Split 0 in a snapshot: emits the chunks the stream has passed; when no read
 * is alive, reads the next chunk itself (the only reader with parallelism 1;
 * with more, the others read and this one mostly streams).
 */
static int poll_chunks(mc_reader_t *r, cdc_batch_t *out, uint32_t max_rows, cdc_error_t **err)
{
    if (cdc_snapshot_emit(r->snap, out, max_rows, r->cur) > 0)
        return CDC_POLL_OK;
    if (cdc_snapshot_alive(r->snap) > 0)
        return CDC_POLL_OK;
    if (cdc_snapshot_finished(r->snap)) {
        if (!r->snap_logged)
            log_snapshot_end(r);
        return CDC_POLL_OK;
    }
    r->snap_logged = false;
    cdc_snap_read_t *rd = cdc_snapshot_take(r->snap, false, 1);
    if (rd && read_chunk(r, r->sql, rd, err) < 0)
        return CDC_POLL_ERROR;
    cdc_snapshot_emit(r->snap, out, max_rows, r->cur);
    return CDC_POLL_OK;
}

/* A split other than the first: reads chunks until the snapshot is finished. */
static int poll_worker(mc_reader_t *r, cdc_error_t **err)
{
    mc_source_t *s = r->src;
    cdc_snap_read_t *rd = cdc_snapshot_take(s->snap, true, 2 * r->nsplits);
    if (!rd) /* (stopped: split 0 failed or ended before the snapshot finished) */
        return cdc_snapshot_finished(s->snap) || cdc_snapshot_stopped(s->snap) ? CDC_POLL_END
                                                                               : CDC_POLL_OK;
    if (!r->sql) {
        if (!(r->sql = mc_connect(s, s->tz, err))) {
            cdc_snapshot_abandon(s->snap, rd);
            return CDC_POLL_ERROR;
        }
        r->mariadb = strstr(mysql_get_server_info(r->sql), "MariaDB") != NULL;
    }
    if (cdc_snapshot_wants_plan(s->snap, rd) && plan_chunks(r, r->sql, rd, err) < 0)
        return CDC_POLL_ERROR;
    return read_chunk(r, r->sql, rd, err) < 0 ? CDC_POLL_ERROR : CDC_POLL_OK;
}

static int mc_poll(cdc_reader_t *base, cdc_batch_t *out, uint32_t max_rows, cdc_error_t **err)
{
    mc_reader_t *r = (mc_reader_t *)base;
    release_held(r);
    if (r->phase == MC_STREAM && !r->started && mc_start(r, err) < 0)
        return CDC_POLL_ERROR;
    if (next_change(r)) /* several changes of one event (DROP TABLE a, b): one per poll */
        return CDC_POLL_SCHEMA;
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
    case MC_STREAM:
        if (r->snap) {
            int rc = poll_chunks(r, out, max_rows, err);
            if (rc != CDC_POLL_OK || out->n > 0)
                return rc;
            if (r->src->mode == MODE_SNAPSHOT && cdc_snapshot_finished(r->snap))
                return CDC_POLL_END; /* 'snapshot': every chunk emitted */
        }
        return poll_stream(r, out, max_rows, err);
    case MC_WORKER:
        return poll_worker(r, err);
    default:
        return CDC_POLL_END;
    }
}

/* The snapshot's tables and the chunks not emitted yet ("snapshot<TAB>v2", then lines). */
static void put_snapshot_state(mc_reader_t *r, cdc_buf_t *b)
{
    if (!r->snap)
        return;
    cdc_buf_puts(b, "snapshot\tv2\n");
    for (int i = 0; i < cdc_snapshot_ntables(r->snap); i++)
        cdc_buf_printf(b, "table\t%s\n", cdc_snapshot_table(r->snap, i));
    cdc_snapshot_save(r->snap, b);
}

/* Writes the position (and the two-phase checkpoint id, when not 0) to the position file. */
static int save_position(mc_reader_t *r, uint64_t checkpoint, cdc_error_t **err)
{
    if (r->phase != MC_STREAM || !r->src->pos_file || !r->txn_file[0])
        return 0; /* (a GTID start knows its file at the first transaction) */
    bool snap_busy = r->snap && !(cdc_snapshot_finished(r->snap) && r->snap_saved_done);
    if (r->done_pos == r->txn_pos && strcmp(r->done_file, r->txn_file) == 0 && checkpoint == 0 &&
        !snap_busy)
        return 0;
    cdc_buf_t b = {0};
    if (checkpoint)
        cdc_buf_printf(&b, "%s\t%llu\t%llu\n", r->txn_file, (unsigned long long)r->txn_pos,
                       (unsigned long long)checkpoint);
    else
        cdc_buf_printf(&b, "%s\t%llu\n", r->txn_file, (unsigned long long)r->txn_pos);
    bool finished = r->snap && cdc_snapshot_finished(r->snap);
    put_snapshot_state(r, &b);
    int rc = cdc_file_write_atomic(r->src->pos_file, b.data, b.len, err);
    cdc_buf_free(&b);
    if (rc < 0)
        cdc_error_add_context(*err, "mysql-cdc: saving the binlog position");
    if (rc == 0) {
        snprintf(r->done_file, sizeof(r->done_file), "%s", r->txn_file);
        r->done_pos = r->txn_pos;
        r->snap_saved_done = finished;
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

/* In the stream, outside a transaction, not inside a chunk's rows. */
static bool mc_at_boundary(cdc_reader_t *base)
{
    mc_reader_t *r = (mc_reader_t *)base;
    return r->phase == MC_STREAM && !r->sp->in_txn && !(r->snap && cdc_snapshot_mid_read(r->snap));
}

/*
 * The job's state keeps the position (cdc_plugin.h): one line for split 0, its
 * token the whole resume record — MC_POS_MAGIC, "file<TAB>pos" after the last
 * transaction read (or "gtid<TAB>set" before the first one of a GTID start),
 * the snapshot's state as in the position file, and the schema history. The
 * splits reading chunks have none of their own: their reads are alive in the
 * shared snapshot until split 0 emits them, so split 0's record saves them as
 * ranges to read again (exact with any parallelism).
 */
static int mc_positions(cdc_reader_t *base, cdc_buf_t *out, cdc_error_t **err)
{
    mc_reader_t *r = (mc_reader_t *)base;
    if (r->phase != MC_STREAM)
        return 0;
    if (!mc_at_boundary(base))
        return cdc_error_set(err, CDC_ERR_INTERNAL,
                             "mysql-cdc \"%s\": the position was asked inside a transaction or "
                             "a chunk's rows, where none is exact",
                             r->key);
    cdc_buf_t *b = &r->posbuf;
    cdc_buf_clear(b);
    cdc_buf_puts(b, MC_POS_MAGIC "\n");
    if (r->txn_file[0])
        cdc_buf_printf(b, "%s\t%llu\n", r->txn_file, (unsigned long long)r->txn_pos);
    else if (r->gtid)
        cdc_buf_printf(b, "gtid\t%s\n", r->gtid);
    else
        return cdc_error_set(err, CDC_ERR_INTERNAL, "mysql-cdc \"%s\": no position yet", r->key);
    put_snapshot_state(r, b);
    cdc_mysql_binlog_history(r->deser, b);
    cdc_position_put(out, r->key, b->data, b->len);
    return 0;
}

static void mc_set_position_store(cdc_reader_t *base, const cdc_position_store_t *store)
{
    ((mc_reader_t *)base)->store = store;
}

/* A stored record that cannot be applied: the error names the key and the problem. */
static int bad_record(mc_reader_t *r, const char *why, cdc_error_t **err)
{
    cdc_error_set(err, CDC_ERR_PARSE, "the stored position of \"%s\" cannot be read: %s", r->key,
                  why);
    if (err && *err)
        cdc_position_hint(*err, NULL);
    return -1;
}

/*
 * Resumes from a stored record (mc_positions'): the schema history, the
 * snapshot's queue, and the stream opened again at the record's position.
 */
static int resume_stored(mc_reader_t *r, const char *rec, cdc_error_t **err)
{
    const char *line = rec + strlen(MC_POS_MAGIC) + 1;
    const char *nl = strchr(line, '\n');
    const char *hist = strstr(line, "\n" MC_HISTORY_HEADER);
    const char *tab = nl ? memchr(line, '\t', (size_t)(nl - line)) : NULL;
    if (!nl || !hist || !tab || tab == line || (size_t)(tab - line) >= sizeof(r->file))
        return bad_record(r, "its position line or schema history is missing", err);
    char *state = cdc_xstrndup(nl + 1, (size_t)(hist + 1 - (nl + 1)));
    int rc = 0;
    if (cdc_mysql_binlog_restore_history(r->deser, hist + 1, strlen(hist + 1)) < 0)
        rc = bad_record(r, "its schema history is malformed", err);
    char *origin = cdc_strdup_printf("the stored position of \"%s\"", r->key);
    if (rc == 0 && r->snap && load_snapshot_state(r, state, origin, err) < 0)
        rc = -1;
    free(origin);
    free(state);
    if (rc == 0 && r->snap && cdc_snapshot_has_work(r->snap) && r->src->nkey == 0)
        rc = resolve_key(r, err);
    if (rc < 0)
        return -1;
    if (r->rpl)
        mariadb_rpl_close(r->rpl);
    r->rpl = NULL;
    if (r->repl)
        mysql_close(r->repl);
    r->repl = NULL;
    r->since_ms = 0; /* (as a resume from the position file) */
    if ((size_t)(tab - line) == 4 && strncmp(line, "gtid", 4) == 0) {
        free(r->gtid_own);
        r->gtid = r->gtid_own = cdc_xstrndup(tab + 1, (size_t)(nl - tab - 1));
        r->file[0] = 0;
        r->start_pos = 4;
    } else {
        char *end;
        unsigned long long pos = strtoull(tab + 1, &end, 10);
        if (end != nl || pos < 4)
            return bad_record(r, "its binlog position is not a number of at least 4", err);
        r->gtid = NULL;
        memcpy(r->file, line, (size_t)(tab - line));
        r->file[tab - line] = 0;
        r->start_pos = pos;
        snprintf(r->done_file, sizeof(r->done_file), "%s", r->file);
        r->done_pos = r->start_pos;
    }
    r->cur = binlog_pos(r->file, r->start_pos);
    cdc_log(CDC_LOG_INFO, NULL, "mysql-cdc",
            "\"%s\": resuming from the position the job's state "
            "keeps (binlog %s:%llu)",
            r->key, r->file[0] ? r->file : "(GTID)", (unsigned long long)r->start_pos);
    return start_stream(r, err);
}

/* The first poll of split 0: the stored position, if the job's state has one; the snapshot. */
static int mc_start(mc_reader_t *r, cdc_error_t **err)
{
    r->started = true;
    int rc = 0;
    if (r->store) {
        cdc_buf_t lines = {0}, rec = {0};
        rc = r->store->load(r->store->ctx, &lines, err);
        if (rc == 0)
            rc = cdc_position_get(lines.data, lines.len, r->key, MC_POS_MAGIC, &rec, err);
        if (rc == 1)
            rc = resume_stored(r, cdc_buf_cstr(&rec), err);
        cdc_buf_free(&lines);
        cdc_buf_free(&rec);
        if (rc < 0 && err && *err)
            cdc_error_add_context(*err, "mysql-cdc: resuming from the job's state");
    }
    if (r->snap)
        cdc_snapshot_start(r->snap);
    return rc < 0 ? -1 : 0;
}

static void mc_close(cdc_reader_t *base)
{
    mc_reader_t *r = (mc_reader_t *)base;
    if (!r)
        return;
    release_held(r);
    free(r->held);
    for (int i = 0; i < r->nchg; i++)
        cdc_schema_change_free(r->chg[i]);
    free(r->chg);
    if (r->snap) /* split 0 ends: so do the splits reading chunks */
        cdc_snapshot_stop(r->snap);
    if (r->rpl)
        mariadb_rpl_close(r->rpl);
    if (r->repl)
        mysql_close(r->repl);
    if (r->sql)
        mysql_close(r->sql);
    if (r->deser)
        r->deser->ops->destroy(r->deser);
    cdc_config_destroy(r->fmt_cfg);
    if (r->sig_deser)
        r->sig_deser->ops->destroy(r->sig_deser);
    cdc_config_destroy(r->sig_cfg);
    cdc_type_destroy(r->sig_type);
    cdc_batch_free(&r->sig_batch);
    for (int i = 0; i < 16; i++)
        cdc_buf_free(&r->keytext[i]);
    cdc_buf_free(&r->sqlbuf);
    cdc_buf_free(&r->posbuf);
    free(r->key);
    free(r->gtid_own);
    free(r);
}

static const cdc_reader_ops_t mc_reader_ops = {
    .poll = mc_poll,
    .commit = mc_commit,
    .close = mc_close,
    .positions = mc_positions,
    .set_position_store = mc_set_position_store,
    .at_boundary = mc_at_boundary,
    .schema_change = mc_schema_change,
};

/* With a position file: also the two-phase commit's source half (exactly-once files). */
static const cdc_reader_ops_t mc_reader_ops_2pc = {
    .poll = mc_poll,
    .commit = mc_commit,
    .close = mc_close,
    .commit_checkpoint = mc_commit_checkpoint,
    .last_checkpoint = mc_last_checkpoint,
    .positions = mc_positions,
    .set_position_store = mc_set_position_store,
    .at_boundary = mc_at_boundary,
    .schema_change = mc_schema_change,
};

/*
 * The position file: "file<TAB>pos[<TAB>checkpoint]", then (since the chunked
 * snapshot) "snapshot<TAB>v2", the tables it read ("table<TAB>db.t") and the
 * ranges it had not emitted (cdc_snapshot_save's lines), into *state.
 */
static bool read_pos_file(const char *path, char *file, size_t flen, uint64_t *pos,
                          uint64_t *checkpoint, cdc_buf_t *state)
{
    if (!path || access(path, F_OK) != 0)
        return false;
    cdc_buf_t b = {0};
    cdc_error_t *e = NULL;
    if (cdc_file_read_all(path, &b, &e) < 0) {
        cdc_error_destroy(e);
        cdc_buf_free(&b);
        return false;
    }
    const char *line = cdc_buf_cstr(&b);
    const char *nl = strchr(line, '\n');
    const char *tab = strchr(line, '\t');
    bool ok = tab && (!nl || tab < nl) && (size_t)(tab - line) < flen;
    if (ok) {
        memcpy(file, line, (size_t)(tab - line));
        file[tab - line] = 0;
        char *end;
        *pos = strtoull(tab + 1, &end, 10);
        *checkpoint = *end == '\t' ? strtoull(end + 1, NULL, 10) : 0;
        ok = *pos >= 4;
        if (nl)
            cdc_buf_puts(state, nl + 1);
    }
    cdc_buf_free(&b);
    return ok;
}

/* The tables the pattern matches now, in name order ("db.t" each, new strings); -1 with *err. */
static int matched_tables(mc_reader_t *r, char ***out, int *n, cdc_error_t **err)
{
    const char *q = "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE "
                    "TABLE_TYPE = 'BASE TABLE' ORDER BY 1, 2";
    *out = NULL;
    *n = 0;
    if (mysql_query(r->sql, q))
        return my_fail(err, r->sql, q);
    MYSQL_RES *res = mysql_store_result(r->sql);
    MYSQL_ROW row;
    while (res && (row = mysql_fetch_row(res))) {
        char *name = cdc_strdup_printf("%s.%s", row[0] ? row[0] : "", row[1] ? row[1] : "");
        if (regexec(&r->src->re, name, 0, NULL, 0) != 0) {
            free(name);
            continue;
        }
        *out = cdc_xrealloc(*out, (size_t)(*n + 1) * sizeof(**out));
        (*out)[(*n)++] = name;
    }
    mysql_free_result(res);
    return 0;
}

/* The tables matched now, in name order, added to the snapshot (a whole range each). Tables
 * created later come whole through the stream. */
static int list_tables(mc_reader_t *r, cdc_error_t **err)
{
    char **names;
    int n;
    if (matched_tables(r, &names, &n, err) < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        cdc_snapshot_add_table(r->src->snap, names[i]);
        free(names[i]);
    }
    free(names);
    return 0;
}

/*
 * A fresh start (no position file): each captured table's columns, from SHOW
 * CREATE TABLE, start the format's column lists, so the stream's first DDL of
 * a table is read against them. (A resumed job has its schema history.)
 */
static int seed_schemas(mc_reader_t *r, cdc_error_t **err)
{
    char **names;
    int n;
    if (matched_tables(r, &names, &n, err) < 0)
        return -1;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const char *dot = strchr(names[i], '.');
        char *dbname = cdc_xstrndup(names[i], (size_t)(dot - names[i]));
        char *db = ident(dbname);
        free(dbname);
        char *tb = ident(dot + 1);
        char *sql = cdc_strdup_printf("SHOW CREATE TABLE %s.%s", db, tb);
        if (rc == 0 && mysql_query(r->sql, sql)) {
            rc = my_fail(err, r->sql, sql);
        } else if (rc == 0) {
            MYSQL_RES *res = mysql_store_result(r->sql);
            MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
            if (row && row[1])
                cdc_mysql_binlog_seed(r->deser, names[i], row[1], r->file);
            mysql_free_result(res);
        }
        free(sql);
        free(db);
        free(tb);
        free(names[i]);
    }
    free(names);
    return rc;
}

/*
 * The chunk key when neither chunk.key-column nor a declared PRIMARY KEY gave
 * it: the primary key of the first table, whose columns must be declared (the
 * stream's changes are matched to chunks by them).
 */
static int resolve_key(mc_reader_t *r, cdc_error_t **err)
{
    mc_source_t *s = r->src;
    if (s->nkey > 0 || cdc_snapshot_ntables(s->snap) == 0)
        return 0;
    const char *qname = cdc_snapshot_table(s->snap, 0);
    const char *dot = strchr(qname, '.');
    cdc_buf_t *q = &r->sqlbuf;
    cdc_buf_clear(q);
    cdc_buf_puts(q, "SELECT COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE "
                    "CONSTRAINT_NAME = 'PRIMARY' AND TABLE_SCHEMA = ");
    char *db = cdc_xstrndup(qname, (size_t)(dot - qname));
    put_literal(r->sql, q, db);
    free(db);
    cdc_buf_puts(q, " AND TABLE_NAME = ");
    put_literal(r->sql, q, dot + 1);
    cdc_buf_puts(q, " ORDER BY ORDINAL_POSITION");
    if (mysql_query(r->sql, cdc_buf_cstr(q)))
        return my_fail(err, r->sql, "reading the table's primary key");
    MYSQL_RES *res = mysql_store_result(r->sql);
    MYSQL_ROW row;
    int rc = 0;
    while (rc == 0 && res && (row = mysql_fetch_row(res))) {
        int i = row[0] ? cdc_type_field_index(s->schema, row[0]) : -1;
        if (i < 0 || s->nkey == (int)(sizeof(s->key) / sizeof(s->key[0]))) {
            rc = cdc_error_set(err, CDC_ERR_PLAN,
                               "mysql-cdc: the primary key column \"%s\" of %s is not a column "
                               "of the table: the snapshot matches the stream's changes to its "
                               "chunks by the key",
                               row[0] ? row[0] : "", qname);
            if (err && *err)
                cdc_error_set_hint(*err, "declare the column (and PRIMARY KEY (...) NOT "
                                         "ENFORCED), or set "
                                         "'scan.incremental.snapshot.chunk.key-column'");
        } else {
            s->key[s->nkey++] = i;
        }
    }
    mysql_free_result(res);
    if (rc == 0 && s->nkey == 0) {
        rc = cdc_error_set(err, CDC_ERR_PLAN,
                           "mysql-cdc: table %s has no primary key, and the snapshot reads "
                           "tables in chunks by a unique key",
                           qname);
        if (err && *err)
            cdc_error_set_hint(*err, "set 'scan.incremental.snapshot.chunk.key-column' to a "
                                     "unique, NOT NULL column of the table (declared in CREATE "
                                     "TABLE), or start without a snapshot "
                                     "('scan.startup.mode' = 'latest-offset')");
    }
    if (rc < 0)
        s->nkey = 0;
    else
        cdc_snapshot_set_key(s->snap, s->key, s->nkey);
    return rc;
}

/*
 * A saved snapshot state (the lines after the position: "snapshot<TAB>v2", the
 * tables it read, the ranges it had not emitted) replaces the queue; with
 * scan.newly-added-table.enabled the tables it does not name are queued too.
 * origin names where the state comes from, for the error of a malformed line.
 */
static int load_snapshot_state(mc_reader_t *r, const char *state, const char *origin,
                               cdc_error_t **err)
{
    mc_source_t *s = r->src;
    cdc_snapshot_clear(s->snap);
    if (strncmp(state, "snapshot\tv2\n", 12) != 0)
        return 0;
    int n = cdc_snapshot_ntables(s->snap);
    bool *known = cdc_xcalloc((size_t)n + 1, sizeof(bool));
    for (const char *line = state; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (len > 6 && strncmp(line, "table\t", 6) == 0) {
            for (int i = 0; i < n; i++)
                if (strlen(cdc_snapshot_table(s->snap, i)) == len - 6 &&
                    strncmp(cdc_snapshot_table(s->snap, i), line + 6, len - 6) == 0)
                    known[i] = true;
        } else if (len > 6 && strncmp(line, "range\t", 6) == 0) {
            char *one = cdc_xstrndup(line, len);
            int rc = cdc_snapshot_load_line(s->snap, one);
            free(one);
            if (rc < 0) {
                free(known);
                return cdc_error_set(err, CDC_ERR_PARSE,
                                     "mysql-cdc: %s: a malformed snapshot range line: \"%.*s\"",
                                     origin, (int)(len > 80 ? 80 : len), line);
            }
        }
        line += len + (nl ? 1 : 0);
    }
    for (int i = 0; i < n; i++) {
        if (known[i] || !s->newly_added)
            continue;
        cdc_log(CDC_LOG_INFO, NULL, "mysql-cdc", "newly added table %s: snapshot",
                cdc_snapshot_table(s->snap, i));
        cdc_snapshot_queue_table(s->snap, i, NULL);
    }
    free(known);
    return 0;
}

/*
 * Split 0's snapshot: the tables listed, and what to read — all of them for
 * 'initial' without a position file; after a restart, the ranges the state
 * had not emitted and (scan.newly-added-table.enabled) the tables it does not
 * name; nothing otherwise (the snapshot object still names the tables, so a
 * later restart knows which are new). The first poll starts it (after a
 * position the job's state keeps, if any, replaced the queue).
 */
static int setup_snapshot(mc_reader_t *r, bool resumed, const char *state, cdc_error_t **err)
{
    mc_source_t *s = r->src;
    if (list_tables(r, err) < 0)
        return -1;
    r->snap = s->snap;
    if (resumed || (s->mode != MODE_INITIAL && s->mode != MODE_SNAPSHOT))
        cdc_snapshot_clear(s->snap);
    if (resumed) {
        char *origin = cdc_strdup_printf("position file %s", s->pos_file);
        int rc = load_snapshot_state(r, state, origin, err);
        free(origin);
        if (rc < 0)
            return -1;
    }
    /* the chunk key before the readers of the other splits may take a chunk */
    if (cdc_snapshot_has_work(s->snap) && resolve_key(r, err) < 0)
        return -1;
    return 0;
}

/* The signal table's decoder: the same events, only that table, its three columns. */
static int open_signals(mc_reader_t *r, const cdc_format_factory_t *fmt, cdc_error_t **err)
{
    cdc_buf_t re = {0};
    for (const char *p = r->src->signal; *p; p++) { /* the name as a regex */
        if (strchr("\\.[](){}*+?^$|", *p))
            cdc_buf_putc(&re, '\\');
        cdc_buf_putc(&re, *p);
    }
    cdc_kv_t kv = {0};
    cdc_kv_set(&kv, "input", "events");
    cdc_kv_set(&kv, "table-pattern", cdc_buf_cstr(&re));
    r->sig_cfg = cdc_config_new(fmt->options, "format \"mysql-binlog\"", &kv, err);
    cdc_kv_free(&kv);
    cdc_buf_free(&re);
    r->sig_type = cdc_type_parse("ROW<id STRING, type STRING, data STRING>", NULL);
    cdc_batch_init(&r->sig_batch);
    cdc_format_ctx_t fctx = {.cfg = r->sig_cfg, .row_type = r->sig_type, .table = "mysql-cdc"};
    if (!r->sig_cfg || fmt->deser_new(&fctx, &r->sig_deser, err) < 0)
        return -1;
    return 0;
}

static int server_ids_short(uint32_t first, uint32_t count, int nsplits, cdc_error_t **err);

static int mc_open_reader(cdc_source_t *base, int split, int nsplits, cdc_reader_t **out,
                          cdc_error_t **err)
{
    mc_source_t *s = (mc_source_t *)base;
    if (s->server_ids > 1 && nsplits > (int)s->server_ids)
        return server_ids_short(s->server_id, s->server_ids, nsplits, err);
    mc_reader_t *r = cdc_xcalloc(1, sizeof(*r));
    r->base.ops = split == 0 && s->pos_file ? &mc_reader_ops_2pc : &mc_reader_ops;
    r->src = s;
    r->nsplits = nsplits;
    r->t_open = cdc_mono_ms();
    *out = &r->base;
    cdc_buf_t key = {0};
    cdc_buf_printf(&key, "mysql-cdc/");
    cdc_position_key_part(&key, s->host);
    cdc_buf_printf(&key, ":%d/", s->port);
    cdc_position_key_part(&key, s->db);
    cdc_buf_putc(&key, '.');
    cdc_position_key_part(&key, s->table);
    cdc_buf_printf(&key, "/%d", split);
    r->key = cdc_xstrdup(cdc_buf_cstr(&key));
    cdc_buf_free(&key);
    if (split != 0) { /* one binlog stream: the other splits read snapshot chunks, if any */
        r->phase = MC_WORKER;
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
    cdc_kv_set(&kv, "binary.handling.mode", cdc_binary_modes[s->bin_mode]);
    char *history = s->pos_file ? cdc_strdup_printf("%s.schema", s->pos_file) : NULL;
    if (history) /* the column lists with the positions they hold from, beside the position */
        cdc_kv_set(&kv, "schema-history", history);
    free(history);
    r->fmt_cfg = cdc_config_new(fmt->options, "format \"mysql-binlog\"", &kv, err);
    cdc_kv_free(&kv);
    const char *keys[sizeof(s->md) / sizeof(s->md[0])];
    for (int i = 0; i < s->nmd; i++) /* row_kind: a slot the format fills, replaced after it */
        keys[i] = s->md[i] == MD_ROW_KIND ? "source.snapshot" : mc_metadata[s->md[i]].key;
    cdc_format_ctx_t fctx = {.cfg = r->fmt_cfg,
                             .row_type = s->schema,
                             .metadata = keys,
                             .nmetadata = s->nmd,
                             .table = "mysql-cdc"};
    cdc_buf_t state = {0};
    if (!r->fmt_cfg || fmt->deser_new(&fctx, &r->deser, err) < 0)
        goto fail;
    r->sp = r->deser->ops->source_pos(r->deser);
    if (s->signal && open_signals(r, fmt, err) < 0)
        goto fail;
    if (!(r->sql = mc_connect(s, s->tz, err)))
        goto fail;
    r->mariadb = strstr(mysql_get_server_info(r->sql), "MariaDB") != NULL;
    bool resumed =
        read_pos_file(s->pos_file, r->file, sizeof(r->file), &r->start_pos, &r->checkpoint, &state);
    if (resumed) {
        snprintf(r->done_file, sizeof(r->done_file), "%s", r->file);
        r->done_pos = r->start_pos;
    } else if (s->mode == MODE_INITIAL || s->mode == MODE_LATEST || s->mode == MODE_SNAPSHOT) {
        /* ('initial': the chunks are read while the stream runs from here) */
        if (query_master(r->sql, r->file, sizeof(r->file), &r->start_pos, err) < 0)
            goto fail;
    } else if (s->mode == MODE_TIMESTAMP || s->mode == MODE_EARLIEST) {
        /* the oldest binlog file ('timestamp': rows filtered by time) */
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
    if (!resumed && r->file[0] && seed_schemas(r, err) < 0)
        goto fail;
    if (setup_snapshot(r, resumed, cdc_buf_cstr(&state), err) < 0)
        goto fail;
    cdc_buf_free(&state);
    r->cur = binlog_pos(r->file, r->start_pos);
    if (start_stream(r, err) < 0)
        goto fail;
    return 0;
fail:
    cdc_buf_free(&state);
    cdc_snapshot_stop(s->snap);
    mc_close(&r->base);
    *out = NULL;
    return -1;
}

/* ---- source --------------------------------------------------------------------------------- */

static cdc_changelog_mode_t mc_changelog_mode(cdc_source_t *base)
{
    return ((mc_source_t *)base)->mode == MODE_SNAPSHOT ? CDC_MODE_INSERT_ONLY : CDC_MODE_ALL;
}

static void mc_describe(cdc_source_t *base, cdc_buf_t *out)
{
    mc_source_t *s = (mc_source_t *)base;
    cdc_buf_printf(out, "mysql-cdc(%s.%s, server-id=%u", s->db, s->table, s->server_id);
    if (s->server_ids > 1)
        cdc_buf_printf(out, "-%u", s->server_id + s->server_ids - 1);
    cdc_buf_puts(out, ")");
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
    free(s->chunk_col);
    free(s->signal);
    cdc_snapshot_destroy(s->snap);
    free(s);
}

static int mc_apply_metadata(cdc_source_t *base, const char *const *keys, int n, cdc_error_t **err)
{
    mc_source_t *s = (mc_source_t *)base;
    if (n > (int)(sizeof(s->md) / sizeof(s->md[0])))
        return cdc_error_set(err, CDC_ERR_PLAN, "mysql-cdc: too many metadata columns (%d)", n);
    cdc_type_t *prod = cdc_type_copy(s->schema);
    for (int i = 0; i < n; i++) {
        int j = cdc_metadata_find(mc_metadata, "mysql-cdc", keys[i], err);
        if (j < 0) {
            cdc_type_destroy(prod);
            return -1;
        }
        s->md[i] = (mc_md_t)j;
        s->row_kind |= j == MD_ROW_KIND;
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

/* "5400" or "5400-5404": the first id and how many; 0, or -1 when malformed. */
static int parse_server_ids(const char *text, uint32_t *first, uint32_t *count)
{
    *first = 5400;
    *count = 1;
    if (!text)
        return 0;
    char *end;
    errno = 0;
    unsigned long long a = strtoull(text, &end, 10), b = a;
    if (end == text || *text == '-' || *text == '+')
        return -1;
    if (*end == '-') {
        const char *p = end + 1;
        if (*p < '0' || *p > '9')
            return -1;
        b = strtoull(p, &end, 10);
    }
    if (errno || *end || a < 1 || b < a || b > 4294967295ULL)
        return -1;
    *first = (uint32_t)a;
    *count = (uint32_t)(b - a + 1);
    return 0;
}

/* The error of a server-id range with fewer ids than splits. */
static int server_ids_short(uint32_t first, uint32_t count, int nsplits, cdc_error_t **err)
{
    cdc_error_set(err, CDC_ERR_OPTION,
                  "mysql-cdc: 'server-id' = '%u-%u' has %u ids for %d splits (one id per split)",
                  first, first + count - 1, count, nsplits);
    if (err && *err)
        cdc_error_set_hint(*err,
                           "widen the range to %d ids, e.g. '%u-%u', or lower "
                           "'scan.parallelism'.",
                           nsplits, first, first + (uint32_t)nsplits - 1);
    return -1;
}

/* Debezium properties a Flink CDC user may write, and the option that does the same here. */
static const cdc_dbz_equiv_t mc_debezium_equiv[] = {
    {"database.hostname", "hostname"},
    {"database.port", "port"},
    {"database.user", "username"},
    {"database.password", "password"},
    {"database.server.id", "server-id"},
    {"database.include.list", "database-name"},
    {"table.include.list", "table-name"},
    {"signal.data.collection", "signal-data-collection"},
    {"database.serverTimezone", "server-time-zone"},
    {"database.connectionTimeZone", "server-time-zone"},
    {NULL, NULL},
};

/* Debezium's snapshot.mode as scan.startup.mode ('never': the binlog from its oldest file) */
static const cdc_dbz_snapshot_t mc_snapshot_modes[] = {
    {"initial", "initial"},           {"initial_only", "snapshot"}, {"no_data", "latest-offset"},
    {"schema_only", "latest-offset"}, {"never", "earliest-offset"}, {NULL, NULL},
};

static void mc_check(const cdc_config_t *cfg, cdc_buf_t *problems)
{
    cdc_dbz_check(cfg, "mysql-cdc", mc_debezium_equiv, mc_snapshot_modes, problems);
    mc_jdbc_props(cfg, NULL, true, problems);
    const char *ids = cdc_config_str(cfg, "server-id");
    uint32_t first, count;
    if (ids && parse_server_ids(ids, &first, &count) < 0)
        cdc_buf_printf(problems,
                       "%soption \"server-id\": expected an id (1..4294967295) or a range "
                       "'first-last' such as '5400-5404' (first <= last), found \"%s\"",
                       problems->len ? "\n" : "", ids);
    int64_t par =
        cdc_config_isset(cfg, "scan.parallelism") ? cdc_config_int(cfg, "scan.parallelism") : 0;
    if (ids && parse_server_ids(ids, &first, &count) == 0 && count > 1 && par > count)
        cdc_buf_printf(problems,
                       "%soption \"server-id\" = '%s' has %u ids for 'scan.parallelism' = %lld "
                       "splits: give a range of at least %lld ids (one per split)",
                       problems->len ? "\n" : "", ids, count, (long long)par, (long long)par);
    int mode = cdc_dbz_startup_mode(cfg, mc_snapshot_modes, mc_modes);
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
    parse_server_ids(cdc_config_str(cfg, "server-id"), &s->server_id, &s->server_ids);
    if (s->server_ids > 1 && ctx->parallelism > (int)s->server_ids) {
        server_ids_short(s->server_id, s->server_ids, ctx->parallelism, err);
        mc_destroy(&s->base);
        return -1;
    }
    s->mode = cdc_dbz_startup_mode(cfg, mc_snapshot_modes, mc_modes);
    s->bin_mode = cdc_dbz_binary_mode(cfg);
    cdc_buf_t ignored = {0}; /* (mc_check reported the problems) */
    mc_jdbc_props(cfg, &s->jdbc, false, &ignored);
    cdc_buf_free(&ignored);
    s->start_pos = (uint64_t)cdc_config_int(cfg, "scan.startup.specific-offset.pos");
    s->gtid = opt(cfg, "scan.startup.specific-offset.gtid-set");
    s->since_ms = cdc_config_isset(cfg, "scan.startup.timestamp-millis")
                      ? cdc_config_int(cfg, "scan.startup.timestamp-millis")
                      : 0;
    s->chunk_size = (uint32_t)cdc_config_int(cfg, "scan.incremental.snapshot.chunk.size");
    s->chunk_col = opt(cfg, "scan.incremental.snapshot.chunk.key-column");
    s->signal = opt(cfg, "signal-data-collection");
    s->newly_added = cdc_config_bool(cfg, "scan.newly-added-table.enabled");
    if (s->chunk_col) {
        int i = cdc_type_field_index(s->schema, s->chunk_col);
        if (i < 0) {
            cdc_error_set(err, CDC_ERR_OPTION,
                          "mysql-cdc: 'scan.incremental.snapshot.chunk.key-column' = '%s' is "
                          "not a column of the table",
                          s->chunk_col);
            mc_destroy(&s->base);
            return -1;
        }
        s->key[s->nkey++] = i;
    } else {
        for (int i = 0; i < ctx->npk && i < (int)(sizeof(s->key) / sizeof(s->key[0])); i++)
            s->key[s->nkey++] = ctx->pk[i];
    }
    s->snap = cdc_snapshot_new(s->schema, s->key, s->nkey, s->chunk_size);
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

/* `cdcflow signal`: the signal row, inserted with the source's connection options. */
static int mc_send_signal(const cdc_kv_t *opts, const char *type, const char *data,
                          cdc_error_t **err)
{
    const char *host = cdc_kv_get(opts, "hostname"), *user = cdc_kv_get(opts, "username");
    const char *table = cdc_kv_get(opts, "signal-data-collection");
    const char *port = cdc_kv_get(opts, "port"), *pw = cdc_kv_get(opts, "password");
    if (!host || !user || !table)
        return cdc_error_set(err, CDC_ERR_OPTION,
                             "mysql-cdc: a signal needs 'hostname', 'username' and "
                             "'signal-data-collection' (and 'port', 'password')");
    const char *dot = strchr(table, '.');
    if (!dot)
        return cdc_error_set(err, CDC_ERR_OPTION,
                             "mysql-cdc: 'signal-data-collection' = '%s' is not \"db.table\"",
                             table);
    mc_source_t s = {.host = (char *)host,
                     .user = (char *)user,
                     .password = (char *)pw,
                     .port = port ? atoi(port) : 3306,
                     .jdbc = {.connect_timeout = 10}};
    MYSQL *my = mc_connect(&s, "+00:00", err);
    if (!my)
        return -1;
    char *db = cdc_xstrndup(table, (size_t)(dot - table));
    char *qdb = ident(db), *qt = ident(dot + 1);
    cdc_buf_t q = {0};
    cdc_buf_printf(&q, "INSERT INTO %s.%s (id, type, data) VALUES (UUID(), ", qdb, qt);
    put_literal(my, &q, type);
    cdc_buf_puts(&q, ", ");
    put_literal(my, &q, data);
    cdc_buf_puts(&q, ")");
    int rc = run(my, cdc_buf_cstr(&q), err);
    free(db);
    free(qdb);
    free(qt);
    cdc_buf_free(&q);
    mysql_close(my);
    return rc;
}

const cdc_connector_factory_t cdc_connector_mysql_cdc = {
    .identifier = "mysql-cdc",
    .description = "Changes of a MySQL/MariaDB table read as a replica (binlog rows decoded by "
                   "mysql-binlog): a consistent snapshot, then the stream.",
    .options = mc_options,
    .check = mc_check,
    .metadata = mc_metadata,
    .source_new = mc_source_new,
    .send_signal = mc_send_signal,
};
