/*
 * tests/formats/pgoutput.c — the pgoutput format on messages built here byte by
 * byte from the protocol documentation: Begin/Commit/Origin/Type/Relation,
 * Insert, Update with K and O, Delete with K, Truncate, logical Message,
 * unchanged TOAST, protocol 2 streamed transactions (a subtransaction and a
 * whole transaction aborted), a declared schema matched by name, the error
 * texts (message type and byte offset), and every truncation and flipped byte
 * of every message (never a crash). The real-server test is
 * tests/integration/pgoutput_postgres.sh.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_plugin.h"

typedef struct msg {
    char data[512];
    size_t len;
} msg_t;

static void b1(msg_t *m, uint8_t v)
{
    m->data[m->len++] = (char)v;
}

static void b4(msg_t *m, uint32_t v)
{
    for (int i = 3; i >= 0; i--)
        b1(m, (uint8_t)(v >> (8 * i)));
}

static void b2(msg_t *m, uint16_t v)
{
    b1(m, (uint8_t)(v >> 8));
    b1(m, (uint8_t)v);
}

static void b8(msg_t *m, uint64_t v)
{
    b4(m, (uint32_t)(v >> 32));
    b4(m, (uint32_t)v);
}

static void str(msg_t *m, const char *s)
{
    size_t n = strlen(s) + 1;
    memcpy(m->data + m->len, s, n);
    m->len += n;
}

static void text(msg_t *m, const char *s)
{
    b1(m, 't');
    b4(m, (uint32_t)strlen(s));
    memcpy(m->data + m->len, s, strlen(s));
    m->len += strlen(s);
}

/* a tuple from a spec: "t:value", "n", "u" per column */
static void tuple(msg_t *m, int n, const char *const *cols)
{
    b2(m, (uint16_t)n);
    for (int i = 0; i < n; i++) {
        if (cols[i][0] == 't')
            text(m, cols[i] + 2);
        else
            b1(m, (uint8_t)cols[i][0]);
    }
}

typedef struct col {
    uint8_t flags;
    const char *name;
    uint32_t oid;
    int32_t typmod;
} col_t;

static msg_t relation(int xid, uint32_t relid, const char *nsp, const char *name, char ident, int n,
                      const col_t *cols)
{
    msg_t m = {0};
    b1(&m, 'R');
    if (xid)
        b4(&m, (uint32_t)xid);
    b4(&m, relid);
    str(&m, nsp);
    str(&m, name);
    b1(&m, (uint8_t)ident);
    b2(&m, (uint16_t)n);
    for (int i = 0; i < n; i++) {
        b1(&m, cols[i].flags);
        str(&m, cols[i].name);
        b4(&m, cols[i].oid);
        b4(&m, (uint32_t)cols[i].typmod);
    }
    return m;
}

/* I/U/D: kind letters and tuples: "N", then each tuple's columns */
static msg_t change(char type, int xid, uint32_t relid, char tag1, int n, const char *const *t1,
                    char tag2, const char *const *t2)
{
    msg_t m = {0};
    b1(&m, (uint8_t)type);
    if (xid)
        b4(&m, (uint32_t)xid);
    b4(&m, relid);
    b1(&m, (uint8_t)tag1);
    tuple(&m, n, t1);
    if (tag2) {
        b1(&m, (uint8_t)tag2);
        tuple(&m, n, t2);
    }
    return m;
}

static const col_t T_COLS[] = {
    {1, "id", 23, -1}, {0, "name", 25, -1}, {0, "amount", 1700, (10 << 16 | 2) + 4}};
static const col_t F_COLS[] = {{1, "id", 20, -1}, {1, "at", 1184, 3}};

/* the messages of a protocol 1 session, in order */
static int session(msg_t *out)
{
    int n = 0;
    msg_t m = {0};
    b1(&m, 'B');
    b8(&m, 0x16B3748);
    b8(&m, 760000000000000ULL);
    b4(&m, 731);
    out[n++] = m;
    memset(&m, 0, sizeof(m));
    b1(&m, 'O');
    b8(&m, 0x100);
    str(&m, "upstream");
    out[n++] = m;
    memset(&m, 0, sizeof(m));
    b1(&m, 'Y');
    b4(&m, 16390);
    str(&m, "public");
    str(&m, "mood");
    out[n++] = m;
    out[n++] = relation(0, 16384, "public", "t", 'd', 3, T_COLS);
    out[n++] = change('I', 0, 16384, 'N', 3, (const char *[]){"t:1", "t:ab", "t:1.5"}, 0, NULL);
    /* the key changed: K holds the old key, the rest 'n'; the big column is unchanged TOAST */
    out[n++] = change('U', 0, 16384, 'K', 3, (const char *[]){"t:1", "n", "n"}, 'N',
                      (const char *[]){"t:2", "u", "t:-0.50"});
    out[n++] = change('U', 0, 16384, 'N', 3, (const char *[]){"t:2", "t:", "n"}, 0, NULL);
    out[n++] = change('D', 0, 16384, 'K', 3, (const char *[]){"t:2", "n", "n"}, 0, NULL);
    out[n++] = relation(0, 16385, "", "f", 'f', 2, F_COLS);
    out[n++] = change('U', 0, 16385, 'O', 2,
                      (const char *[]){"t:-9223372036854775808", "t:2024-01-31 12:45:06.5+05:30"},
                      'N', (const char *[]){"t:5", "t:0044-03-15 12:00:00-00:19:32 BC"});
    out[n++] = change('D', 0, 16385, 'O', 2, (const char *[]){"t:5", "n"}, 0, NULL);
    memset(&m, 0, sizeof(m));
    b1(&m, 'T');
    b4(&m, 2);
    b1(&m, 1);
    b4(&m, 16384);
    b4(&m, 16385);
    out[n++] = m;
    memset(&m, 0, sizeof(m));
    b1(&m, 'M');
    b1(&m, 1);
    b8(&m, 0x16B3800);
    str(&m, "cdc");
    b4(&m, 5);
    memcpy(m.data + m.len, "hello", 5);
    m.len += 5;
    out[n++] = m;
    memset(&m, 0, sizeof(m));
    b1(&m, 'C');
    b1(&m, 0);
    b8(&m, 0x16B3748);
    b8(&m, 0x16B3778);
    b8(&m, 760000000000000ULL);
    out[n++] = m;
    return n;
}

static const char *SESSION_ROWS =
    "public.t\t+I[1, ab, 1.50]\n"
    "public.t\t-D[1, null, null]\n"
    "public.t\t+U[2, <unchanged>, -0.50]\n"
    "public.t\t+U[2, , null]\n"
    "public.t\t-D[2, null, null]\n"
    "pg_catalog.f\t-U[-9223372036854775808, 2024-01-31T07:15:06.500Z]\n"
    "pg_catalog.f\t+U[5, -0043-03-15T12:19:32.000Z]\n"
    "pg_catalog.f\t-D[5, null]\n"
    "-- public.t at LSN 0/16B3748: TRUNCATE TABLE\n"
    "-- pg_catalog.f at LSN 0/16B3748: TRUNCATE TABLE\n";

typedef struct run {
    cdc_config_t *cfg;
    cdc_deser_t *deser;
    cdc_type_t *schema;
    cdc_batch_t batch;
    cdc_buf_t out;
} run_t;

static void run_open(run_t *r, const char *schema, const char *table)
{
    const cdc_format_factory_t *fmt = cdc_registry_format("pgoutput");
    cr_assert_not_null(fmt);
    cdc_kv_t kv = {0};
    if (table)
        cdc_kv_set(&kv, "table-name", table);
    cdc_error_t *err = NULL;
    r->cfg = cdc_config_new(fmt->options, "test", &kv, &err);
    cdc_kv_free(&kv);
    cr_assert_not_null(r->cfg);
    r->schema = schema ? cdc_type_parse(schema, &err) : NULL;
    cdc_format_ctx_t ctx = {.cfg = r->cfg, .row_type = r->schema, .table = "test"};
    cr_assert_eq(fmt->deser_new(&ctx, &r->deser, &err), 0);
    cdc_batch_init(&r->batch);
}

/* decodes one message; rows are printed with their table */
static int run_msg(run_t *r, const msg_t *m)
{
    char *copy = cdc_xmalloc(m->len ? m->len : 1); /* exactly the message: overreads show */
    memcpy(copy, m->data, m->len);
    cdc_buf_clear(&r->deser->errmsg);
    int rc = r->deser->ops->decode(r->deser, copy, m->len, &r->batch);
    const cdc_schema_change_t *const *changes = NULL;
    const uint32_t *at = NULL;
    int nchanges =
        rc == CDC_DECODE_SCHEMA ? r->deser->ops->schema_changes(r->deser, &changes, &at) : 0;
    if (rc == CDC_DECODE_SCHEMA) {
        cr_expect_gt(nchanges, 0);
        rc = 0;
    }
    for (uint32_t i = 0, next = 0; i <= r->batch.n; i++) {
        for (; (int)next < nchanges && at[next] <= i; next++) {
            cdc_buf_printf(&r->out, "-- %s at %s: ", changes[next]->table, changes[next]->position);
            cdc_schema_change_describe(changes[next], &r->out);
            cdc_buf_putc(&r->out, '\n');
        }
        if (i == r->batch.n)
            break;
        const cdc_row_t *row = &r->batch.rows[i];
        if (!r->schema)
            cdc_buf_printf(&r->out, "%s\t", row->origin);
        cdc_row_print(&r->out, row, r->schema ? r->schema : r->deser->ops->row_type(r->deser, row));
        cdc_buf_putc(&r->out, '\n');
    }
    cdc_batch_reset(&r->batch);
    free(copy);
    return rc;
}

static void run_close(run_t *r)
{
    r->deser->ops->destroy(r->deser);
    cdc_config_destroy(r->cfg);
    cdc_type_destroy(r->schema);
    cdc_batch_free(&r->batch);
    cdc_buf_free(&r->out);
}

Test(pgoutput, protocol1_session)
{
    msg_t msgs[32];
    int n = session(msgs);
    run_t r = {0};
    run_open(&r, NULL, NULL);
    for (int i = 0; i < n; i++)
        cr_assert_eq(run_msg(&r, &msgs[i]), 0, "message %d: %s", i, cdc_buf_cstr(&r.deser->errmsg));
    cr_expect_str_eq(cdc_buf_cstr(&r.out), SESSION_ROWS);
    run_close(&r);
}

Test(pgoutput, declared_schema_by_name_and_table)
{
    msg_t msgs[32];
    int n = session(msgs);
    run_t r = {0};
    run_open(&r, "ROW<amount DECIMAL(12, 3), id BIGINT, missing STRING>", "t");
    for (int i = 0; i < n; i++)
        cr_assert_eq(run_msg(&r, &msgs[i]), 0, "message %d: %s", i, cdc_buf_cstr(&r.deser->errmsg));
    cr_expect_str_eq(cdc_buf_cstr(&r.out), "+I[1.500, 1, null]\n"
                                           "-D[null, 1, null]\n"
                                           "+U[-0.500, 2, null]\n"
                                           "+U[null, 2, null]\n"
                                           "-D[null, 2, null]\n"
                                           "-- public.t at LSN 0/16B3748: TRUNCATE TABLE\n");
    run_close(&r);
    /* a type the text cannot become is refused when the relation arrives */
    run_open(&r, "ROW<name INT>", "public.t");
    cr_expect_eq(run_msg(&r, &msgs[3]), CDC_DECODE_ERROR);
    cr_expect_str_eq(cdc_buf_cstr(&r.deser->errmsg),
                     "column \"name\" of \"public.t\" has type OID 25, which cannot be read as INT "
                     "(message 'R' at byte 35)");
    run_close(&r);
}

Test(pgoutput, protocol2_streamed_transactions)
{
    static const col_t S_COLS[] = {{1, "k", 23, -1}, {0, "v", 1009, -1}};
    msg_t m[16];
    int n = 0;
    msg_t x = {0};
    b1(&x, 'S');
    b4(&x, 700);
    b1(&x, 1);
    m[n++] = x;
    m[n++] = relation(700, 16386, "s", "big", 'd', 2, S_COLS);
    m[n++] =
        change('I', 700, 16386, 'N', 2, (const char *[]){"t:1", "t:{a,\"b c\",NULL}"}, 0, NULL);
    m[n++] = change('I', 701, 16386, 'N', 2, (const char *[]){"t:2", "t:{gone}"}, 0, NULL);
    memset(&x, 0, sizeof(x));
    b1(&x, 'E');
    m[n++] = x;
    memset(&x, 0, sizeof(x));
    b1(&x, 'A');
    b4(&x, 700);
    b4(&x, 701); /* the subtransaction rolled back */
    m[n++] = x;
    memset(&x, 0, sizeof(x));
    b1(&x, 'S');
    b4(&x, 800);
    b1(&x, 1);
    m[n++] = x;
    m[n++] = change('I', 800, 16386, 'N', 2, (const char *[]){"t:8", "t:{}"}, 0, NULL);
    memset(&x, 0, sizeof(x));
    b1(&x, 'E');
    m[n++] = x;
    memset(&x, 0, sizeof(x));
    b1(&x, 'S');
    b4(&x, 700);
    b1(&x, 0);
    m[n++] = x;
    m[n++] = change('U', 700, 16386, 'N', 2, (const char *[]){"t:1", "u"}, 0, NULL);
    memset(&x, 0, sizeof(x));
    b1(&x, 'E');
    m[n++] = x;
    memset(&x, 0, sizeof(x));
    b1(&x, 'A');
    b4(&x, 800);
    b4(&x, 800); /* the whole transaction rolled back */
    m[n++] = x;
    memset(&x, 0, sizeof(x));
    b1(&x, 'c');
    b4(&x, 700);
    b1(&x, 0);
    b8(&x, 1);
    b8(&x, 2);
    b8(&x, 3);
    m[n++] = x;
    run_t r = {0};
    run_open(&r, NULL, NULL);
    for (int i = 0; i < n; i++) {
        cr_assert_eq(run_msg(&r, &m[i]), 0, "message %d: %s", i, cdc_buf_cstr(&r.deser->errmsg));
        if (i < n - 1)
            cr_assert_eq(r.out.len, 0, "rows before the stream commit (message %d)", i);
    }
    cr_expect_str_eq(cdc_buf_cstr(&r.out), "s.big\t+I[1, [a, b c, null]]\n"
                                           "s.big\t+U[1, <unchanged>]\n");
    run_close(&r);
}

Test(pgoutput, errors_name_the_message_and_byte)
{
    msg_t msgs[32];
    session(msgs);
    run_t r = {0};
    run_open(&r, NULL, NULL);
    /* before any Relation */
    cr_expect_eq(run_msg(&r, &msgs[4]), CDC_DECODE_ERROR);
    cr_expect_str_eq(cdc_buf_cstr(&r.deser->errmsg),
                     "no Relation message seen for relation OID 16384 (message 'I' at byte 5)");
    cr_assert_eq(run_msg(&r, &msgs[3]), 0);
    msg_t cut = msgs[4];
    cut.len -= 2;
    cr_expect_eq(run_msg(&r, &cut), CDC_DECODE_ERROR);
    cr_expect_str_eq(cdc_buf_cstr(&r.deser->errmsg),
                     "value of column \"amount\" is 3 bytes, the message has 1 left (message 'I' "
                     "at byte 26)");
    msg_t bad = change('I', 0, 16384, 'N', 3, (const char *[]){"t:x1", "n", "n"}, 0, NULL);
    cr_expect_eq(run_msg(&r, &bad), CDC_DECODE_ERROR);
    cr_expect_str_eq(
        cdc_buf_cstr(&r.deser->errmsg),
        "column \"id\" of \"public.t\": not an integer: \"x1\" (message 'I' at byte 13)");
    msg_t unknown = {.data = "Z", .len = 1};
    cr_expect_eq(run_msg(&r, &unknown), CDC_DECODE_ERROR);
    cr_expect_str_eq(cdc_buf_cstr(&r.deser->errmsg),
                     "unknown message type 0x5a (message 'Z' at byte 0)");
    run_close(&r);
}

Test(pgoutput, every_truncation_and_flipped_byte)
{
    msg_t msgs[32];
    int n = session(msgs);
    for (int k = 0; k < n; k++) {
        for (size_t len = 0; len <= msgs[k].len; len++) {
            for (int flip = -1; flip < (int)len; flip++) {
                run_t r = {0};
                run_open(&r, NULL, NULL);
                for (int i = 0; i < k; i++)
                    run_msg(&r, &msgs[i]);
                msg_t m = msgs[k];
                m.len = len;
                if (flip >= 0)
                    m.data[flip] ^= 0x5a;
                int rc = run_msg(&r, &m);
                if (rc == CDC_DECODE_ERROR)
                    cr_expect_gt(r.deser->errmsg.len, 0);
                else if (flip < 0)
                    cr_expect_eq(len, msgs[k].len, "message %d cut at %zu decoded", k, len);
                run_close(&r);
            }
        }
    }
}

/* a Relation message sent again unchanged keeps the relation (no copy per repeat);
 * a changed one replaces it, and rows decoded before keep their old type */
Test(pgoutput, regress_relation_repeat_and_replace)
{
    msg_t msgs[32];
    session(msgs);
    run_t r = {0};
    run_open(&r, NULL, NULL);
    cdc_batch_t keep;
    cdc_batch_init(&keep);
    cr_assert_eq(r.deser->ops->decode(r.deser, msgs[3].data, msgs[3].len, &keep), 0);
    cr_assert_eq(r.deser->ops->decode(r.deser, msgs[4].data, msgs[4].len, &keep), 0);
    cr_assert_eq(r.deser->ops->decode(r.deser, msgs[3].data, msgs[3].len, &keep), 0);
    cr_assert_eq(r.deser->ops->decode(r.deser, msgs[4].data, msgs[4].len, &keep), 0);
    cr_assert_eq(keep.n, 2);
    cr_expect_eq(keep.rows[0].origin, keep.rows[1].origin);
    static const col_t two[] = {{1, "id", 23, -1}, {0, "name", 25, -1}};
    msg_t altered = relation(0, 16384, "public", "t", 'd', 2, two);
    cr_assert_eq(r.deser->ops->decode(r.deser, altered.data, altered.len, &keep),
                 CDC_DECODE_SCHEMA);
    msg_t ins = change('I', 0, 16384, 'N', 2, (const char *[]){"t:5", "t:x"}, 0, NULL);
    cr_assert_eq(r.deser->ops->decode(r.deser, ins.data, ins.len, &keep), 0);
    cr_assert_eq(keep.n, 3);
    cr_expect_neq(keep.rows[2].origin, keep.rows[0].origin);
    cr_expect_eq(r.deser->ops->row_type(r.deser, &keep.rows[0])->nchildren, 3);
    cr_expect_eq(r.deser->ops->row_type(r.deser, &keep.rows[2])->nchildren, 2);
    cdc_batch_free(&keep);
    run_close(&r);
}

/* ---- source position and metadata (what the postgres-cdc source reads) ---------------------- */

static bool str_is(const cdc_value_t *v, const char *s)
{
    return !(v->flags & CDC_V_NULL) && v->v.s.len == strlen(s) &&
           memcmp(v->v.s.ptr, s, v->v.s.len) == 0;
}

/*
 * The protocol 1 session read as the postgres-cdc source reads it (decode_at with each
 * message's WAL position, every metadata key requested, the declared schema of public.t):
 * Begin opens the transaction, Commit ends it at its end LSN, and the rows carry the
 * transaction's time and id and their message's LSN; a message made by the caller (pos 0)
 * gives a snapshot row.
 */
Test(pgoutput, source_position_and_metadata)
{
    static const char *const keys[] = {"database_name", "schema_name", "table_name",     "op_ts",
                                       "source.lsn",    "source.txId", "source.snapshot"};
    const cdc_format_factory_t *fmt = cdc_registry_format("pgoutput");
    cdc_kv_t kv = {0};
    cdc_kv_set(&kv, "table-name", "public.t");
    cdc_error_t *err = NULL;
    cdc_config_t *cfg = cdc_config_new(fmt->options, "test", &kv, &err);
    cdc_kv_free(&kv);
    cdc_type_t *schema = cdc_type_parse("ROW<id INT, name STRING, amount DECIMAL(10, 2)>", &err);
    cr_assert_not_null(cfg);
    cr_assert_not_null(schema);
    cdc_format_ctx_t ctx = {.cfg = cfg,
                            .row_type = schema,
                            .metadata = keys,
                            .nmetadata = 7,
                            .table = "test",
                            .database = "shop"};
    cdc_deser_t *deser;
    cr_assert_eq(fmt->deser_new(&ctx, &deser, &err), 0);
    const cdc_source_pos_t *sp = deser->ops->source_pos(deser);
    cr_expect(!sp->in_txn && !sp->txn_end);
    msg_t msgs[32];
    int n = session(msgs);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    int rows = 0;
    const int64_t commit_ms = 760000000000000LL / 1000 + 946684800000LL;
    for (int i = 0; i < n; i++) {
        uint64_t lsn = 0x16B3750 + (uint64_t)i * 0x10;
        int rc = deser->ops->decode_at(deser, msgs[i].data, msgs[i].len, lsn, &batch);
        cr_assert_eq(rc, msgs[i].data[0] == 'T' ? CDC_DECODE_SCHEMA : 0, "message %d: %s", i,
                     cdc_buf_cstr(&deser->errmsg));
        if (rc == CDC_DECODE_SCHEMA) { /* the Truncate's own LSN; only the declared table */
            const cdc_schema_change_t *const *changes;
            const uint32_t *at;
            cr_assert_eq(deser->ops->schema_changes(deser, &changes, &at), 1);
            cr_expect_str_eq(changes[0]->position, "LSN 0/16B3800");
            cr_expect_str_eq(changes[0]->table, "public.t");
        }
        bool commit = msgs[i].data[0] == 'C';
        cr_expect_eq(sp->in_txn, !commit, "message %d", i);
        cr_expect_eq(sp->txn_end, commit, "message %d", i);
        cr_expect_eq(sp->ts_ms, commit_ms);
        for (uint32_t k = 0; k < batch.n; k++, rows++) {
            const cdc_row_t *row = &batch.rows[k];
            cr_assert_eq(row->arity, 3 + 7);
            const cdc_value_t *md = row->values + 3;
            cr_expect(str_is(&md[0], "shop") && str_is(&md[1], "public") && str_is(&md[2], "t"));
            cr_expect_eq(md[3].v.ts.millis, commit_ms);
            cr_expect(!(md[4].flags & CDC_V_NULL) && md[4].v.i == (int64_t)lsn, "message %d", i);
            cr_expect(!(md[5].flags & CDC_V_NULL) && md[5].v.i == 731);
            cr_expect(!md[6].v.b);
        }
        cdc_batch_reset(&batch);
    }
    cr_expect_eq(rows, 5); /* public.t's; pg_catalog.f is not the table */
    cr_expect_eq(sp->pos, 0x16B3778);
    /* a snapshot row: a message the caller made (position 0) */
    msg_t snap = change('I', 0, 16384, 'N', 3, (const char *[]){"t:9", "t:z", "n"}, 0, NULL);
    cr_assert_eq(deser->ops->decode_at(deser, snap.data, snap.len, 0, &batch), 0);
    cr_assert_eq(batch.n, 1);
    const cdc_value_t *md = batch.rows[0].values + 3;
    cr_expect(str_is(&md[2], "t") && md[3].v.ts.millis == 0 && (md[4].flags & CDC_V_NULL) &&
              (md[5].flags & CDC_V_NULL) && md[6].v.b);
    cr_expect(!sp->txn_end && sp->pos == 0x16B3778);
    cdc_batch_free(&batch);
    deser->ops->destroy(deser);
    /* a key the format does not know */
    const char *bad[] = {"source.gtid"};
    cdc_format_ctx_t bctx = {.cfg = cfg, .metadata = bad, .nmetadata = 1, .table = "test"};
    cr_assert_eq(fmt->deser_new(&bctx, &deser, &err), -1);
    cr_expect_str_eq(err->message, "format \"pgoutput\" offers no metadata key \"source.gtid\"");
    cdc_error_destroy(err);
    cdc_type_destroy(schema);
    cdc_config_destroy(cfg);
}

/* ---- schema changes -------------------------------------------------------------------------- */

/*
 * Relation messages that change a relation seen before: each is a change between the rows
 * (its position the transaction's final LSN when the message's own is not known), with the
 * full column lists before and after; a repeat, a first Relation, a change of the replica
 * identity or key flags only, and a change of a table the deserializer is not for are none.
 */
Test(pgoutput, schema_changes_between_rows)
{
    static const col_t v2[] = {{1, "id", 23, -1},
                               {0, "label", 25, -1},
                               {0, "amount", 1700, (10 << 16 | 2) + 4},
                               {0, "c", 23, -1}};
    static const col_t v3[] = {{1, "id", 20, -1}, {0, "label", 25, -1}, {0, "c", 23, -1}};
    static const col_t keyflags[] = {{0, "id", 20, -1}, {1, "label", 25, -1}, {0, "c", 23, -1}};
    msg_t msgs[32];
    session(msgs);
    msg_t seq[] = {
        msgs[0],
        msgs[3],
        change('I', 0, 16384, 'N', 3, (const char *[]){"t:1", "t:a", "t:1"}, 0, NULL),
        msgs[3],                                       /* the same again */
        relation(0, 16384, "public", "t", 'd', 4, v2), /* rename name -> label, add c */
        change('I', 0, 16384, 'N', 4, (const char *[]){"t:2", "t:b", "t:2", "t:5"}, 0, NULL),
        relation(0, 16384, "public", "t", 'd', 3, v3),       /* drop amount, id int4 -> int8 */
        relation(0, 16384, "public", "t", 'f', 3, keyflags), /* identity and keys only */
        change('I', 0, 16384, 'N', 3, (const char *[]){"t:5000000000", "t:c", "n"}, 0, NULL),
        msgs[8], /* pg_catalog.f, first seen */
    };
    run_t r = {0};
    run_open(&r, NULL, NULL);
    for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++)
        cr_assert_eq(run_msg(&r, &seq[i]), 0, "message %zu: %s", i, cdc_buf_cstr(&r.deser->errmsg));
    cr_expect_str_eq(
        cdc_buf_cstr(&r.out),
        "public.t\t+I[1, a, 1.00]\n"
        "-- public.t at LSN 0/16B3748: RENAME COLUMN name TO label, ADD COLUMN c INT\n"
        "public.t\t+I[2, b, 2.00, 5]\n"
        "-- public.t at LSN 0/16B3748: DROP COLUMN amount, ALTER COLUMN TYPE id INT -> "
        "BIGINT\n"
        "public.t\t+I[5000000000, c, null]\n");
    run_close(&r);

    /* declared for pg_catalog.f: public.t's changes are not reported */
    run_open(&r, "ROW<id BIGINT>", "f");
    for (size_t i = 0; i < 7; i++)
        cr_assert_eq(run_msg(&r, &seq[i]), 0, "message %zu", i);
    cr_expect_str_eq(cdc_buf_cstr(&r.out), "");
    run_close(&r);
}

/* The before and after lists are the full columns, mapped as the format maps them, nullable. */
Test(pgoutput, schema_change_columns)
{
    static const col_t v2[] = {{1, "id", 23, -1}, {0, "name", 1043, 14}};
    const cdc_format_factory_t *fmt = cdc_registry_format("pgoutput");
    cdc_error_t *err = NULL;
    cdc_config_t *cfg = cdc_config_new(fmt->options, "test", &(cdc_kv_t){0}, &err);
    cdc_type_t *schema = cdc_type_parse("ROW<id INT>", &err);
    cdc_format_ctx_t ctx = {.cfg = cfg, .row_type = schema, .table = "test"};
    cdc_deser_t *deser;
    cr_assert_eq(fmt->deser_new(&ctx, &deser, &err), 0);
    cdc_batch_t batch;
    cdc_batch_init(&batch);
    msg_t a = relation(0, 16384, "public", "t", 'd', 3, T_COLS);
    msg_t b = relation(0, 16384, "public", "t", 'd', 2, v2);
    cr_assert_eq(deser->ops->decode_at(deser, a.data, a.len, 0x100, &batch), 0);
    cr_assert_eq(deser->ops->decode_at(deser, b.data, b.len, 0x1F0, &batch), CDC_DECODE_SCHEMA);
    const cdc_schema_change_t *const *changes;
    const uint32_t *at;
    cr_assert_eq(deser->ops->schema_changes(deser, &changes, &at), 1);
    const cdc_schema_change_t *c = changes[0];
    cr_expect_str_eq(c->position, "LSN 0/1F0");
    cr_expect_null(c->ddl);
    char *before = cdc_type_to_string(c->before), *after = cdc_type_to_string(c->after);
    cr_expect_str_eq(before, "ROW<id INT, name STRING, amount DECIMAL(10, 2)>");
    cr_expect_str_eq(after, "ROW<id INT, name VARCHAR(10)>");
    free(before);
    free(after);
    cr_expect_eq(at[0], 0);
    /* the next decode forgets them */
    cr_assert_eq(deser->ops->decode_at(deser, b.data, b.len, 0x200, &batch), 0);
    cr_expect_eq(deser->ops->schema_changes(deser, &changes, &at), 0);
    cdc_batch_free(&batch);
    deser->ops->destroy(deser);
    cdc_type_destroy(schema);
    cdc_config_destroy(cfg);
}
