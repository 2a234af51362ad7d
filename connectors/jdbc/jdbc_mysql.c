/*
 * jdbc_mysql.c — the MySQL/MariaDB dialect of the "jdbc" sink (url
 * "jdbc:mysql://HOST[:PORT]/DB" or "jdbc:mariadb://HOST[:PORT]/DB"), through
 * libmysqlclient (MariaDB Connector/C).
 *
 * Upserts are `INSERT ... ON DUPLICATE KEY UPDATE c = VALUES(c)` (columns
 * marked unchanged are left out of both lists); deletes are by key. Statements
 * are server-side prepared (mysql_stmt_prepare) once per connection and
 * executed with typed binds: integers as LONGLONG, FLOAT/DOUBLE as DOUBLE,
 * binary strings as BLOB and everything else (strings, DECIMAL, DATE, TIME,
 * DATETIME) as text; values are never part of the statement text. Each flush
 * is one transaction (START TRANSACTION ... COMMIT) on InnoDB, the session's
 * default storage engine, so auto-created tables are InnoDB.
 *
 * The session runs with sql_mode STRICT_ALL_TABLES (a value that does not fit
 * is an error, never a silent truncation), time_zone '+00:00' and the utf8mb4
 * character set. "username" and "password" are the login; the password never
 * appears in a message. The url takes no query parameters.
 *
 * Retriable failures (the batch is rolled back and replayed): a lost or
 * refused connection (2002, 2003, 2006, 2013, 2055, 1927 killed, 1053 server
 * shutdown, 4031 idle timeout), deadlock (1213) and lock wait timeout (1205).
 * The next BEGIN after a lost connection reconnects; statements prepared on
 * the old session are prepared again on first use. Anything else (1048 NOT
 * NULL, 1062 duplicate entry, 1406 data too long, ...) fails the job with the
 * server's message and error number. Note that MySQL's ON DUPLICATE KEY UPDATE
 * also updates the row that a non-key UNIQUE index finds, so such a duplicate
 * fails only for plain inserts (tables without a primary key).
 *
 * Identifiers are quoted with backticks, a backtick inside doubled; the
 * "table-name" option is one identifier taken verbatim.
 *
 * Column types for CREATE TABLE:
 *   BOOLEAN                 BOOLEAN (TINYINT(1))
 *   TINYINT .. BIGINT       TINYINT, SMALLINT, INT, BIGINT
 *   FLOAT, DOUBLE           FLOAT, DOUBLE
 *   DECIMAL(p, s)           DECIMAL(p, s)
 *   CHAR(n)                 CHAR(n) for n <= 255, else as VARCHAR(n)
 *   VARCHAR(n)              VARCHAR(n) for n <= 16383, else LONGTEXT (STRING is
 *                           LONGTEXT); in the primary key VARCHAR(n) for n <= 768,
 *                           else VARCHAR(255) (see my_key_column_type)
 *                           strings are utf8mb4 with the binary collation
 *                           utf8mb4_bin, so keys compare byte for byte
 *   BINARY(n), VARBINARY(n) BINARY(n) for n <= 255, VARBINARY(n) for n <= 65532,
 *                           else LONGBLOB (BYTES is LONGBLOB); in the primary key
 *                           VARBINARY(n) for n <= 3072, else VARBINARY(255)
 *   DATE                    DATE
 *   TIME(p)                 TIME(min(p, 6))
 *   TIMESTAMP(p)            DATETIME(min(p, 6))
 *   TIMESTAMP_LTZ(p)        DATETIME(min(p, 6)), the instant in UTC (DATETIME has
 *                           no time zone and MySQL's TIMESTAMP ends in 2038)
 *   ARRAY, MAP, ROW         no mapping (the sink rejects the table)
 */
#include <math.h>
#include <mysql.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jdbc_int.h"

#define KEY_CHARS 255 /* characters of an unbounded string key column (my_key_column_type) */

struct jdbc_conn_s {
    MYSQL *my;
    char *host, *db, *user, *password;
    unsigned port;
    unsigned generation; /* bumped by each reconnect; statements re-prepare when stale */
    unsigned errnum;     /* of the last failure; 0 when none */
    bool lost;           /* the last failure found the connection gone */
    char msg[1024];      /* its message, kept across the rollback that follows */
    /* set-based flush (bulk_*): multi-row DELETE and INSERT ... ON DUPLICATE KEY UPDATE */
    const jdbc_table_t *bulk_table;
    char *ins_head, *ins_tail, *del_head; /* built on first use for the writer's table */
    cdc_buf_t ins, del;                   /* statements being filled */
    int nins, ndel;                       /* rows in them */
};

/* One parameter's storage: the bind points here. */
typedef struct my_slot_s {
    long long i;
    double d;
    unsigned long length;
    my_bool is_null;
} my_slot_t;

/* One result column's storage (lookups): the fetched text or bytes. */
typedef struct my_col_s {
    cdc_buf_t buf;
    unsigned long length;
    my_bool null, error;
} my_col_t;

struct jdbc_stmt_s {
    jdbc_conn_t *conn;
    MYSQL_STMT *st;
    char *sql;
    unsigned generation; /* of the session it was prepared on */
    int nparams;
    MYSQL_BIND *binds;
    my_slot_t *slots;
    MYSQL_BIND *rbinds; /* result columns, for lookups */
    my_col_t *cols;
    int ncols;
};

static bool lost_errno(unsigned e)
{
    return e == 2002 || e == 2003 || e == 2006 || e == 2013 || e == 2055 || e == 1927 ||
           e == 1053 || e == 4031;
}

static void note_raw(jdbc_conn_t *conn, unsigned errnum, const char *sqlstate, const char *m)
{
    conn->errnum = errnum;
    conn->lost = lost_errno(errnum);
    if (errnum && sqlstate && *sqlstate && strcmp(sqlstate, "00000") != 0)
        snprintf(conn->msg, sizeof(conn->msg), "%s [error %u, SQLSTATE %s]",
                 m && *m ? m : "unknown error", errnum, sqlstate);
    else if (errnum)
        snprintf(conn->msg, sizeof(conn->msg), "%s [error %u]", m && *m ? m : "unknown error",
                 errnum);
    else
        snprintf(conn->msg, sizeof(conn->msg), "%s", m && *m ? m : "unknown error");
    if (errnum == 1406) { /* Data too long: say what an auto-created key holds */
        size_t n = strlen(conn->msg);
        snprintf(conn->msg + n, sizeof(conn->msg) - n,
                 "; note: a STRING (BYTES) primary key column made by sink.auto-create-table "
                 "holds at most %d characters (bytes); declare it VARCHAR(n), n <= 768, for "
                 "longer keys",
                 KEY_CHARS);
    }
}

static void note_conn(jdbc_conn_t *conn)
{
    note_raw(conn, mysql_errno(conn->my), mysql_sqlstate(conn->my), mysql_error(conn->my));
}

static void note_stmt(jdbc_stmt_t *s)
{
    note_raw(s->conn, mysql_stmt_errno(s->st), mysql_stmt_sqlstate(s->st), mysql_stmt_error(s->st));
}

static void my_quote_ident(cdc_buf_t *out, const char *ident)
{
    cdc_buf_putc(out, '`');
    for (const char *p = ident; *p; p++) {
        if (*p == '`')
            cdc_buf_putc(out, '`');
        cdc_buf_putc(out, *p);
    }
    cdc_buf_putc(out, '`');
}

/* "table-name" is one identifier, taken verbatim (a '.' in it is part of the name); the
   table lives in the url's database. */
static void my_quote_table(cdc_buf_t *out, const char *table_name)
{
    my_quote_ident(out, table_name);
}

static int time_precision(int32_t p)
{
    return p < 0 ? 0 : p > 6 ? 6 : p;
}

#define UTF8_BIN " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"

static int my_column_type(cdc_buf_t *out, const cdc_type_t *type)
{
    switch (type->root) {
    case CDC_T_BOOLEAN:
        cdc_buf_puts(out, "BOOLEAN");
        return 0;
    case CDC_T_TINYINT:
        cdc_buf_puts(out, "TINYINT");
        return 0;
    case CDC_T_SMALLINT:
        cdc_buf_puts(out, "SMALLINT");
        return 0;
    case CDC_T_INT:
        cdc_buf_puts(out, "INT");
        return 0;
    case CDC_T_BIGINT:
        cdc_buf_puts(out, "BIGINT");
        return 0;
    case CDC_T_FLOAT:
        cdc_buf_puts(out, "FLOAT");
        return 0;
    case CDC_T_DOUBLE:
        cdc_buf_puts(out, "DOUBLE");
        return 0;
    case CDC_T_DECIMAL:
        if (type->precision > 65 || type->scale > 38)
            return -1;
        cdc_buf_printf(out, "DECIMAL(%d, %d)", (int)type->precision, (int)type->scale);
        return 0;
    case CDC_T_CHAR:
        if (type->length >= 1 && type->length <= 255) {
            cdc_buf_printf(out, "CHAR(%d)" UTF8_BIN, (int)type->length);
            return 0;
        }
        /* fall through */
    case CDC_T_VARCHAR:
        if (type->length >= 1 && type->length <= 16383) /* 65535 bytes a row, 4 a char */
            cdc_buf_printf(out, "VARCHAR(%d)" UTF8_BIN, (int)type->length);
        else
            cdc_buf_puts(out, "LONGTEXT" UTF8_BIN);
        return 0;
    case CDC_T_BINARY:
        if (type->length >= 1 && type->length <= 255) {
            cdc_buf_printf(out, "BINARY(%d)", (int)type->length);
            return 0;
        }
        /* fall through */
    case CDC_T_VARBINARY:
        if (type->length >= 1 && type->length <= 65532)
            cdc_buf_printf(out, "VARBINARY(%d)", (int)type->length);
        else
            cdc_buf_puts(out, "LONGBLOB");
        return 0;
    case CDC_T_DATE:
        cdc_buf_puts(out, "DATE");
        return 0;
    case CDC_T_TIME:
        cdc_buf_printf(out, "TIME(%d)", time_precision(type->precision));
        return 0;
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ:
        cdc_buf_printf(out, "DATETIME(%d)", time_precision(type->precision));
        return 0;
    default:
        return -1;
    }
}

/*
 * A primary key column must fit InnoDB's index: 3,072 bytes for the whole key, and no TEXT or
 * BLOB. A string key of at most 768 characters (a binary one of at most 3,072 bytes) keeps its
 * declared type; a longer or unbounded one (STRING, BYTES) becomes VARCHAR(255) (VARBINARY(255)):
 * three such columns fit the limit. A longer value then fails the flush with the server's
 * "Data too long" (strict mode), naming the row.
 */
static int my_key_column_type(cdc_buf_t *out, const cdc_type_t *type)
{
    switch (type->root) {
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
        if (type->length >= 1 && type->length <= 768)
            return my_column_type(out, type);
        cdc_buf_printf(out, "VARCHAR(%d)" UTF8_BIN, KEY_CHARS);
        return 0;
    case CDC_T_BINARY:
    case CDC_T_VARBINARY:
        if (type->length >= 1 && type->length <= 3072)
            return my_column_type(out, type);
        cdc_buf_printf(out, "VARBINARY(%d)", KEY_CHARS);
        return 0;
    default:
        return my_column_type(out, type);
    }
}

static void my_insert_sql(cdc_buf_t *out, const jdbc_table_t *t, const uint8_t *omit)
{
    jdbc_sql_insert(out, &jdbc_dialect_mysql, t, omit);
}

/* Appends ` ON DUPLICATE KEY UPDATE c = VALUES(c), ...` over the non-key, non-omitted columns. */
static void my_upsert_tail(cdc_buf_t *out, const jdbc_table_t *t, const uint8_t *omit)
{
    cdc_buf_puts(out, " ON DUPLICATE KEY UPDATE ");
    bool first = true;
    for (int i = 0; i < t->schema->nchildren; i++) {
        if (omit[i] || jdbc_is_pk(t, i))
            continue;
        if (!first)
            cdc_buf_puts(out, ", ");
        my_quote_ident(out, t->schema->names[i]);
        cdc_buf_puts(out, " = VALUES(");
        my_quote_ident(out, t->schema->names[i]);
        cdc_buf_putc(out, ')');
        first = false;
    }
    if (first) { /* only key columns: keep the stored row as it is */
        const char *k = t->schema->names[t->pk[0]];
        my_quote_ident(out, k);
        cdc_buf_puts(out, " = ");
        my_quote_ident(out, k);
    }
}

static void my_upsert_sql(cdc_buf_t *out, const jdbc_table_t *t, const uint8_t *omit)
{
    my_insert_sql(out, t, omit);
    my_upsert_tail(out, t, omit);
}

static void my_delete_sql(cdc_buf_t *out, const jdbc_table_t *t)
{
    jdbc_sql_delete(out, &jdbc_dialect_mysql, t);
}

static pthread_once_t library_once = PTHREAD_ONCE_INIT;
static int library_rc;

static void library_init(void)
{
    library_rc = mysql_library_init(0, NULL, NULL);
}

static const char session_setup[] =
    "SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION', time_zone = '+00:00', "
    "default_storage_engine = InnoDB, autocommit = 1";

/* Opens conn->my from the stored parameters; -1 with the failure noted. */
static int open_session(jdbc_conn_t *conn)
{
    MYSQL *my = mysql_init(NULL);
    if (!my) {
        note_raw(conn, 0, NULL, "out of memory");
        return -1;
    }
    unsigned timeout = 10;
    my_bool no = 0;
    mysql_options(my, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
    mysql_options(my, MYSQL_OPT_RECONNECT, &no); /* we reconnect ourselves, at BEGIN */
    mysql_options(my, MYSQL_SET_CHARSET_NAME, "utf8mb4");
    conn->my = my;
    if (!mysql_real_connect(my, conn->host, conn->user, conn->password, conn->db, conn->port, NULL,
                            0)) {
        note_conn(conn);
        conn->lost = true;
        return -1;
    }
    if (mysql_real_query(my, session_setup, sizeof(session_setup) - 1) != 0) {
        note_conn(conn);
        return -1;
    }
    return 0;
}

static void my_disconnect(jdbc_conn_t *conn)
{
    if (!conn)
        return;
    if (conn->my)
        mysql_close(conn->my);
    free(conn->ins_head);
    free(conn->ins_tail);
    free(conn->del_head);
    cdc_buf_free(&conn->ins);
    cdc_buf_free(&conn->del);
    free(conn->host);
    free(conn->db);
    free(conn->user);
    if (conn->password) {
        memset(conn->password, 0, strlen(conn->password));
        free(conn->password);
    }
    free(conn);
}

static int my_connect(const char *target, const char *username, const char *password,
                      jdbc_conn_t **out, cdc_error_t **err)
{
    if (strncmp(target, "//", 2) != 0)
        return cdc_error_set(err, CDC_ERR_OPTION,
                             "option \"url\": expected \"jdbc:mysql://HOST[:PORT]/DB\"");
    if (strchr(target, '?'))
        return cdc_error_set(err, CDC_ERR_OPTION,
                             "option \"url\": the mysql dialect takes no query parameters "
                             "(use the \"username\" and \"password\" options)");
    const char *p = target + 2;
    const char *slash = strchr(p, '/');
    size_t hostport = slash ? (size_t)(slash - p) : strlen(p);
    if (memchr(p, '@', hostport)) /* user:password@host: the text is never echoed */
        return cdc_error_set(err, CDC_ERR_OPTION,
                             "option \"url\": the mysql dialect takes no credentials in the url "
                             "(use the \"username\" and \"password\" options)");
    jdbc_conn_t *conn = cdc_xcalloc(1, sizeof(*conn));
    conn->port = 3306;
    const char *colon = memchr(p, ':', hostport);
    size_t hostlen = colon ? (size_t)(colon - p) : hostport;
    if (colon) {
        char *end;
        unsigned long port = strtoul(colon + 1, &end, 10);
        if (end != p + hostport || end == colon + 1 || port == 0 || port > 65535) {
            my_disconnect(conn);
            return cdc_error_set(err, CDC_ERR_OPTION,
                                 "option \"url\": the port is not a number from 1 to 65535");
        }
        conn->port = (unsigned)port;
    }
    conn->host = cdc_xmalloc(hostlen + 1);
    memcpy(conn->host, p, hostlen);
    conn->host[hostlen] = '\0';
    if (!*conn->host) {
        free(conn->host);
        conn->host = cdc_xstrdup("localhost");
    }
    conn->db = slash && slash[1] ? cdc_xstrdup(slash + 1) : NULL;
    conn->user = username && *username ? cdc_xstrdup(username) : NULL;
    conn->password = password ? cdc_xstrdup(password) : NULL;
    pthread_once(&library_once, library_init);
    if (library_rc != 0 || open_session(conn) < 0) {
        cdc_error_set(err, CDC_ERR_IO, "could not connect to MySQL at \"%s\"", target);
        if (err && *err)
            cdc_error_set_detail(*err, "mysql: %s",
                                 library_rc ? "the client library did not initialise" : conn->msg);
        my_disconnect(conn);
        return -1;
    }
    *out = conn;
    return 0;
}

static int my_exec(jdbc_conn_t *conn, const char *sql)
{
    if (mysql_real_query(conn->my, sql, strlen(sql)) != 0) {
        note_conn(conn);
        return -1;
    }
    MYSQL_RES *res = mysql_store_result(conn->my);
    if (res)
        mysql_free_result(res);
    return 0;
}

static int my_begin(jdbc_conn_t *conn)
{
    if (conn->lost) {
        if (conn->my)
            mysql_close(conn->my); /* detaches the statements prepared on it */
        conn->my = NULL;
        conn->generation++;
        if (open_session(conn) < 0) {
            conn->lost = true;
            return -1;
        }
        conn->lost = false;
    }
    return my_exec(conn, "START TRANSACTION");
}

static int my_commit(jdbc_conn_t *conn)
{
    return my_exec(conn, "COMMIT");
}

static void my_rollback(jdbc_conn_t *conn)
{
    if (conn->lost || !conn->my)
        return;
    if (mysql_real_query(conn->my, "ROLLBACK", 8) != 0 && lost_errno(mysql_errno(conn->my)))
        conn->lost = true; /* keep the message of the failure before */
}

static int prepare_on_session(jdbc_stmt_t *s)
{
    jdbc_conn_t *conn = s->conn;
    if (s->st)
        mysql_stmt_close(s->st);
    s->st = mysql_stmt_init(conn->my);
    if (!s->st) {
        note_conn(conn);
        return -1;
    }
    if (mysql_stmt_prepare(s->st, s->sql, strlen(s->sql)) != 0) {
        note_stmt(s);
        return -1;
    }
    if ((int)mysql_stmt_param_count(s->st) != s->nparams) {
        note_raw(conn, 0, NULL, "the prepared statement has an unexpected parameter count");
        return -1;
    }
    s->generation = conn->generation;
    return 0;
}

static int count_params(const char *sql)
{
    int n = 0;
    for (const char *p = sql; *p; p++) {
        if (*p == '`') { /* skip quoted identifiers, which may hold '?' */
            for (p++; *p && !(*p == '`' && p[1] != '`'); p++)
                if (*p == '`')
                    p++;
            if (!*p)
                break;
        } else if (*p == '?') {
            n++;
        }
    }
    return n;
}

static void my_finalize(jdbc_stmt_t *s)
{
    if (!s)
        return;
    if (s->st)
        mysql_stmt_close(s->st);
    free(s->binds);
    free(s->slots);
    for (int c = 0; c < s->ncols; c++)
        cdc_buf_free(&s->cols[c].buf);
    free(s->cols);
    free(s->rbinds);
    free(s->sql);
    free(s);
}

static jdbc_stmt_t *my_prepare(jdbc_conn_t *conn, const char *sql)
{
    jdbc_stmt_t *s = cdc_xcalloc(1, sizeof(*s));
    s->conn = conn;
    s->sql = cdc_xstrdup(sql);
    s->nparams = count_params(sql);
    s->binds = cdc_xcalloc((size_t)s->nparams + 1, sizeof(MYSQL_BIND));
    s->slots = cdc_xcalloc((size_t)s->nparams + 1, sizeof(my_slot_t));
    if (prepare_on_session(s) < 0) {
        my_finalize(s);
        return NULL;
    }
    return s;
}

static int my_bind(jdbc_stmt_t *s, int idx, const jdbc_param_t *p)
{
    if (idx < 0 || idx >= s->nparams) {
        char m[96];
        snprintf(m, sizeof(m), "parameter %d of a %d-parameter statement", idx + 1, s->nparams);
        note_raw(s->conn, 0, NULL, m);
        return -1;
    }
    MYSQL_BIND *b = &s->binds[idx];
    my_slot_t *slot = &s->slots[idx];
    memset(b, 0, sizeof(*b));
    slot->is_null = 0;
    b->is_null = &slot->is_null;
    b->length = &slot->length;
    switch (p->kind) {
    case JDBC_P_NULL:
        slot->is_null = 1;
        b->buffer_type = MYSQL_TYPE_NULL;
        break;
    case JDBC_P_INT:
        slot->i = p->i;
        b->buffer_type = MYSQL_TYPE_LONGLONG;
        b->buffer = &slot->i;
        break;
    case JDBC_P_DOUBLE:
        slot->d = p->d;
        b->buffer_type = MYSQL_TYPE_DOUBLE;
        b->buffer = &slot->d;
        break;
    case JDBC_P_TEXT:
        slot->length = (unsigned long)p->len;
        /* an instant (TIMESTAMP_LTZ) comes in UTC with a 'Z'; DATETIME takes it without */
        if (p->type && p->type->root == CDC_T_TIMESTAMP_LTZ && p->len > 0 &&
            p->ptr[p->len - 1] == 'Z')
            slot->length--;
        b->buffer_type = MYSQL_TYPE_STRING;
        b->buffer = (void *)p->ptr;
        b->buffer_length = slot->length;
        break;
    case JDBC_P_BLOB:
        slot->length = (unsigned long)p->len;
        b->buffer_type = MYSQL_TYPE_BLOB;
        b->buffer = (void *)p->ptr;
        b->buffer_length = slot->length;
        break;
    }
    return 0;
}

static int my_step(jdbc_stmt_t *s)
{
    if (s->generation != s->conn->generation && prepare_on_session(s) < 0)
        return -1;
    if (mysql_stmt_bind_param(s->st, s->binds) != 0 || mysql_stmt_execute(s->st) != 0) {
        note_stmt(s);
        return -1;
    }
    return 0;
}

/* ---- set-based flush ------------------------------------------------------------------ */

/*
 * A flush of many keys is written with multi-row statements: `DELETE FROM t WHERE pk IN
 * (...)` for the keys to delete (also those deleted then written again) and `INSERT INTO t
 * (...) VALUES (...), (...) ON DUPLICATE KEY UPDATE c = VALUES(c)` for the rest, each sent
 * when it reaches BULK_BYTES (deletes always before the inserts that may follow them), in the
 * flush's transaction. Values are in the statement text, strings escaped by the driver
 * (mysql_real_escape_string, for the connection's character set), binary strings as hex
 * literals. A failure leaves the transaction to be rolled back; jdbc.c then replays the
 * flush with prepared statements, which names the failing row.
 *
 * Measured with bench/mysql_sink.sh (MariaDB 10.11, 1,000,000 changes over 100,000 keys): at
 * 5,000 changes a flush 10.2 s against 23.2 s with one prepared statement per row, and at 100
 * (200,000 changes) 2.4 s against 3.8 s, so every flush of 2 keys or more takes this path.
 */
#define BULK_BYTES (1024 * 1024) /* well under max_allowed_packet (16 MB by default) */

static void bulk_sql(jdbc_conn_t *conn, const jdbc_table_t *t)
{
    cdc_buf_t b = {0};
    uint8_t *none = cdc_xcalloc((size_t)t->schema->nchildren + 1, 1);
    cdc_buf_puts(&b, "INSERT INTO ");
    my_quote_table(&b, t->name);
    cdc_buf_puts(&b, " (");
    for (int i = 0; i < t->schema->nchildren; i++) {
        if (i)
            cdc_buf_puts(&b, ", ");
        my_quote_ident(&b, t->schema->names[i]);
    }
    cdc_buf_puts(&b, ") VALUES ");
    conn->ins_head = cdc_xstrdup(cdc_buf_cstr(&b));
    cdc_buf_clear(&b);
    my_upsert_tail(&b, t, none);
    conn->ins_tail = cdc_xstrdup(cdc_buf_cstr(&b));
    cdc_buf_clear(&b);
    cdc_buf_puts(&b, "DELETE FROM ");
    my_quote_table(&b, t->name);
    cdc_buf_puts(&b, " WHERE ");
    if (t->npk == 1) {
        my_quote_ident(&b, t->schema->names[t->pk[0]]);
        cdc_buf_puts(&b, " IN (");
    }
    conn->del_head = cdc_xstrdup(cdc_buf_cstr(&b));
    conn->bulk_table = t;
    free(none);
    cdc_buf_free(&b);
}

/* Appends one value as SQL text; -1 when it has none (NaN, infinities). */
static int put_value(jdbc_conn_t *conn, cdc_buf_t *b, const jdbc_param_t *p)
{
    static const char hex[] = "0123456789abcdef";
    switch (p->kind) {
    case JDBC_P_NULL:
        cdc_buf_puts(b, "NULL");
        return 0;
    case JDBC_P_INT:
        cdc_buf_printf(b, "%lld", (long long)p->i);
        return 0;
    case JDBC_P_DOUBLE:
        if (isnan(p->d) || isinf(p->d)) {
            note_raw(conn, 0, NULL, "NaN and infinities have no MySQL literal");
            return -1;
        }
        cdc_buf_printf(b, p->type && p->type->root == CDC_T_FLOAT ? "%.9g" : "%.17g", p->d);
        return 0;
    case JDBC_P_TEXT: {
        size_t len = p->len;
        /* an instant (TIMESTAMP_LTZ) comes in UTC with a 'Z'; DATETIME takes it without */
        if (p->type && p->type->root == CDC_T_TIMESTAMP_LTZ && len > 0 && p->ptr[len - 1] == 'Z')
            len--;
        cdc_buf_reserve(b, 2 * len + 3);
        cdc_buf_putc(b, '\'');
        b->len += mysql_real_escape_string(conn->my, b->data + b->len, p->ptr, (unsigned long)len);
        cdc_buf_putc(b, '\'');
        return 0;
    }
    case JDBC_P_BLOB:
        cdc_buf_reserve(b, 2 * p->len + 4);
        cdc_buf_puts(b, "X'");
        for (size_t i = 0; i < p->len; i++) {
            unsigned char c = (unsigned char)p->ptr[i];
            cdc_buf_putc(b, hex[c >> 4]);
            cdc_buf_putc(b, hex[c & 15]);
        }
        cdc_buf_putc(b, '\'');
        return 0;
    }
    return 0;
}

/* Sends the filled statements, deletes first. */
static int bulk_send(jdbc_conn_t *conn)
{
    if (conn->ndel > 0) {
        cdc_buf_puts(&conn->del, conn->bulk_table->npk == 1 ? ")" : "");
        if (my_exec(conn, cdc_buf_cstr(&conn->del)) < 0)
            return -1;
        conn->ndel = 0;
    }
    if (conn->nins > 0) {
        cdc_buf_puts(&conn->ins, conn->ins_tail);
        if (my_exec(conn, cdc_buf_cstr(&conn->ins)) < 0)
            return -1;
        conn->nins = 0;
    }
    return 0;
}

static int my_bulk_begin(jdbc_conn_t *conn, const jdbc_table_t *t)
{
    if (!conn->del_head)
        bulk_sql(conn, t);
    conn->nins = conn->ndel = 0;
    return my_begin(conn);
}

static int my_bulk_row(jdbc_conn_t *conn, char op, const jdbc_param_t *params, int n)
{
    const jdbc_table_t *t = conn->bulk_table;
    if (op != 'U') { /* 'D' and 'R': the key goes first */
        cdc_buf_t *b = &conn->del;
        if (conn->ndel == 0) {
            cdc_buf_clear(b);
            cdc_buf_puts(b, conn->del_head);
        } else {
            cdc_buf_puts(b, t->npk == 1 ? ", " : " OR ");
        }
        for (int k = 0; k < t->npk; k++) {
            if (t->npk > 1) {
                cdc_buf_puts(b, k ? " AND " : "(");
                my_quote_ident(b, t->schema->names[t->pk[k]]);
                cdc_buf_puts(b, " = ");
            }
            if (put_value(conn, b, &params[t->pk[k]]) < 0)
                return -1;
        }
        if (t->npk > 1)
            cdc_buf_putc(b, ')');
        conn->ndel++;
    }
    if (op != 'D') {
        cdc_buf_t *b = &conn->ins;
        if (conn->nins == 0) {
            cdc_buf_clear(b);
            cdc_buf_puts(b, conn->ins_head);
        } else {
            cdc_buf_puts(b, ", ");
        }
        cdc_buf_putc(b, '(');
        for (int i = 0; i < n; i++) {
            if (i)
                cdc_buf_puts(b, ", ");
            if (put_value(conn, b, &params[i]) < 0)
                return -1;
        }
        cdc_buf_putc(b, ')');
        conn->nins++;
    }
    if (conn->del.len >= BULK_BYTES || conn->ins.len >= BULK_BYTES)
        return bulk_send(conn);
    return 0;
}

static int my_bulk_commit(jdbc_conn_t *conn)
{
    if (bulk_send(conn) < 0)
        return -1;
    return my_commit(conn);
}

/* Binds result column c to its buffer (every column fetched as text, binary ones as bytes). */
static void bind_col(jdbc_stmt_t *s, int c)
{
    my_col_t *col = &s->cols[c];
    MYSQL_BIND *b = &s->rbinds[c];
    memset(b, 0, sizeof(*b));
    b->buffer_type = MYSQL_TYPE_STRING;
    b->buffer = col->buf.data;
    b->buffer_length = (unsigned long)col->buf.cap;
    b->length = &col->length;
    b->is_null = &col->null;
    b->error = &col->error;
}

static int fetch_rows(jdbc_stmt_t *s, jdbc_row_fn row, void *ctx)
{
    jdbc_cell_t cells[JDBC_MAX_QUERY_COLUMNS];
    for (;;) {
        int rc = mysql_stmt_fetch(s->st);
        if (rc == MYSQL_NO_DATA)
            return 0;
        if (rc == 1) {
            note_stmt(s);
            return -1;
        }
        for (int c = 0; c < s->ncols; c++) {
            my_col_t *col = &s->cols[c];
            if (!col->null && col->length > col->buf.cap) { /* truncated: fetch it whole */
                cdc_buf_reserve(&col->buf, col->length - col->buf.len + 1);
                bind_col(s, c);
                if (mysql_stmt_fetch_column(s->st, &s->rbinds[c], (unsigned)c, 0) != 0) {
                    note_stmt(s);
                    return -1;
                }
            }
            cells[c].null = col->null;
            cells[c].ptr = col->null ? "" : col->buf.data;
            cells[c].len = col->null ? 0 : col->length;
        }
        if (rc == MYSQL_DATA_TRUNCATED && mysql_stmt_bind_result(s->st, s->rbinds) != 0) {
            note_stmt(s);
            return -1;
        }
        if (row(ctx, cells, s->ncols) < 0) {
            note_raw(s->conn, 0, NULL, "a result row was refused");
            return -1;
        }
    }
}

/* Lookups: executes the bound SELECT and streams its rows through the column buffers. */
static int my_query(jdbc_stmt_t *s, jdbc_row_fn row, void *ctx)
{
    if (s->generation != s->conn->generation && prepare_on_session(s) < 0)
        return -1;
    if (mysql_stmt_bind_param(s->st, s->binds) != 0 || mysql_stmt_execute(s->st) != 0) {
        note_stmt(s);
        return -1;
    }
    int n = (int)mysql_stmt_field_count(s->st);
    if (n > JDBC_MAX_QUERY_COLUMNS)
        n = JDBC_MAX_QUERY_COLUMNS;
    if (n > s->ncols) {
        s->cols = cdc_xrealloc(s->cols, sizeof(*s->cols) * (size_t)n);
        s->rbinds = cdc_xrealloc(s->rbinds, sizeof(*s->rbinds) * (size_t)n);
        memset(&s->cols[s->ncols], 0, sizeof(*s->cols) * (size_t)(n - s->ncols));
        for (int c = s->ncols; c < n; c++)
            cdc_buf_reserve(&s->cols[c].buf, 64);
    }
    s->ncols = n;
    for (int c = 0; c < n; c++)
        bind_col(s, c);
    int rc = -1;
    if (mysql_stmt_bind_result(s->st, s->rbinds) != 0)
        note_stmt(s);
    else
        rc = fetch_rows(s, row, ctx);
    mysql_stmt_free_result(s->st);
    return rc;
}

static const char *my_errmsg(jdbc_conn_t *conn)
{
    return conn->msg;
}

static bool my_retriable(jdbc_conn_t *conn)
{
    return conn->lost || conn->errnum == 1213 || conn->errnum == 1205;
}

/* MODIFY COLUMN with the type CREATE TABLE uses and the nullability asked for (MODIFY keeps
   nothing it is not told: a DEFAULT of the column is dropped). */
static int my_alter_type(jdbc_conn_t *conn, const jdbc_alter_t *a, cdc_buf_t *sql)
{
    cdc_buf_clear(sql);
    cdc_buf_puts(sql, "ALTER TABLE ");
    my_quote_table(sql, a->table);
    cdc_buf_puts(sql, " MODIFY COLUMN ");
    my_quote_ident(sql, a->column);
    cdc_buf_putc(sql, ' ');
    if (a->key)
        my_key_column_type(sql, a->type);
    else
        my_column_type(sql, a->type);
    cdc_buf_puts(sql, a->type->nullable ? " NULL" : " NOT NULL");
    return my_exec(conn, cdc_buf_cstr(sql));
}

/* DDL commits implicitly: one statement per item, each idempotent on its own. IF [NOT] EXISTS
   is MariaDB's (MySQL 8 refuses it): used under "jdbc:mariadb:" only; either way the columns
   are checked first. */
#define MY_SCHEMA_OPS(if_exists)                                                                   \
    .ddl_begin = NULL, .ddl_if_exists = if_exists, .truncate_sql = "TRUNCATE TABLE ",              \
    .columns_query = "SELECT column_name, is_nullable = 'NO' FROM information_schema.columns "     \
                     "WHERE table_schema = DATABASE() AND table_name = ? "                         \
                     "ORDER BY ordinal_position",                                                  \
    .alter_type = my_alter_type

const jdbc_dialect_t jdbc_dialect_mysql = {
    .name = "mysql",
    .url_prefix = "jdbc:mysql:",
    .quote_ident = my_quote_ident,
    .quote_table = my_quote_table,
    .column_type = my_column_type,
    .key_column_type = my_key_column_type,
    .upsert_sql = my_upsert_sql,
    .insert_sql = my_insert_sql,
    .delete_sql = my_delete_sql,
    .connect = my_connect,
    .disconnect = my_disconnect,
    .exec = my_exec,
    .begin = my_begin,
    .commit = my_commit,
    .rollback = my_rollback,
    .prepare = my_prepare,
    .bind = my_bind,
    .step = my_step,
    .finalize = my_finalize,
    .errmsg = my_errmsg,
    .retriable = my_retriable,
    .bulk_begin = my_bulk_begin,
    .bulk_row = my_bulk_row,
    .bulk_commit = my_bulk_commit,
    .bulk_min = 2,
    .query = my_query,
    MY_SCHEMA_OPS(false),
};

/* The same dialect under MariaDB's url prefix. */
const jdbc_dialect_t jdbc_dialect_mariadb = {
    .name = "mariadb",
    .url_prefix = "jdbc:mariadb:",
    .quote_ident = my_quote_ident,
    .quote_table = my_quote_table,
    .column_type = my_column_type,
    .key_column_type = my_key_column_type,
    .upsert_sql = my_upsert_sql,
    .insert_sql = my_insert_sql,
    .delete_sql = my_delete_sql,
    .connect = my_connect,
    .disconnect = my_disconnect,
    .exec = my_exec,
    .begin = my_begin,
    .commit = my_commit,
    .rollback = my_rollback,
    .prepare = my_prepare,
    .bind = my_bind,
    .step = my_step,
    .finalize = my_finalize,
    .errmsg = my_errmsg,
    .retriable = my_retriable,
    .bulk_begin = my_bulk_begin,
    .bulk_row = my_bulk_row,
    .bulk_commit = my_bulk_commit,
    .bulk_min = 2,
    .query = my_query,
    MY_SCHEMA_OPS(true),
};
