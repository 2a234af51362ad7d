/*
 * binlog.c — the `mysql-binlog` format: MySQL/MariaDB row-based binlog events
 * to rows.
 *
 * The input is a byte stream fed in pieces split anywhere: a binlog file as
 * the server writes it (the magic \xfebin, then events; option input=file) or
 * events back to back as a replica receives them (input=events). Whole events
 * are decoded in place (values point into the caller's bytes); an event cut
 * by a piece boundary is gathered in a buffer and its values are copied into
 * the batch arena. A decode() call with no bytes marks the end of the input.
 *
 * FORMAT_DESCRIPTION gives the checksum algorithm (CRC32 is verified on every
 * event) and the post-header lengths; TABLE_MAP (with the optional metadata
 * of binlog_row_metadata=MINIMAL/FULL: signedness, charsets, column names,
 * ENUM/SET labels, primary key) defines a table, kept by table id and reused
 * while the same map repeats; WRITE/UPDATE/DELETE_ROWS v1 and v2 give +I,
 * -U/+U and -D. Columns absent from a partial image (binlog_row_image=MINIMAL
 * or NOBLOB) are CDC_V_UNCHANGED, never NULL. QUERY, XID, ROTATE, GTID
 * (MySQL and MariaDB), GTID_LIST, ANNOTATE_ROWS, ROWS_QUERY and the other
 * control events produce no rows. A TRANSACTION_PAYLOAD (MySQL 8
 * binlog_transaction_compression=ON) is decompressed (zstd, at most 1 GiB) into
 * a buffer kept for the next one and its events decoded in turn, positions
 * staying the payload's. PARTIAL_UPDATE_ROWS (MySQL 8
 * binlog_row_value_options=PARTIAL_JSON) gives -U/+U, the JSON diffs of its
 * after image applied to the before value (binlog_jsondiff.c). MariaDB's
 * compressed events (log_bin_compress) are errors that say so.
 *
 * Without a row type each table is its own ROW type (columns named from
 * COLUMN_NAME metadata, else c1, c2, ...); with one, columns are matched to
 * the declared fields by name (by position when the binlog has no names).
 * Errors name the event type and "file:pos" of the event's first byte.
 *
 * For the mysql-cdc source (cdc_plugin.h): source_pos() follows the file, the
 * position after each event, the GTID (MariaDB "0-1-42", MySQL "uuid:23", "" for
 * MySQL's ANONYMOUS_GTID) and the transactions (a GTID or
 * a BEGIN QUERY opens one, an XID or any other QUERY ends it); the requested
 * metadata (database_name, op_ts, source.file, ...) is written into each row
 * as it is built, the values made once per ROWS event.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <regex.h>
#include <string.h>
#include <zstd.h>

#include "binlog_int.h"

#define HEADER_LEN 19
#define MAX_EVENT_SIZE (1u << 30)
#define F_IGNORABLE 0x0080
/* a TRANSACTION_PAYLOAD whose events take more than this uncompressed is refused */
#define MAX_PAYLOAD_UNCOMPRESSED (1u << 30)

typedef struct bl_table {
    uint64_t id;
    char *qname; /* "db.table"; rows point at it (row->origin) */
    int ncols;
    bl_col_t *cols;
    int *pk;
    int npk;
    cdc_type_t *type; /* natural ROW type, owned (self-describing mode) */
    bool skip;        /* not the table this deserializer is for */
    uint32_t nfields; /* fields of a row produced (declared or natural), before the metadata */
    int njson;        /* JSON columns (a partial after image has a bit for each) */
    uint8_t *raw;     /* the TABLE_MAP after the table id, to recognise a repeat */
    size_t rawlen;
    cdc_type_t *crow;     /* captured, with names: the columns (nullability set), owned */
    uint64_t checked_gen; /* bl_schemas_gen when cols was last compared with the lists */
    struct bl_table *next;
} bl_table_t;

/* metadata keys a CDC source may request (ctx->metadata), the mysql-cdc source's */
enum {
    MD_DATABASE,
    MD_TABLE,
    MD_OP_TS,
    MD_FILE,
    MD_POS,
    MD_GTID,
    MD_SERVER_ID,
    MD_SNAPSHOT,
    MD_COUNT
};

static const char *const md_keys[MD_COUNT] = {"database_name",    "table_name",     "op_ts",
                                              "source.file",      "source.pos",     "source.gtid",
                                              "source.server_id", "source.snapshot"};

typedef struct bl_deser {
    cdc_deser_t base;
    const cdc_type_t *row_type; /* declared, or NULL */
    cdc_type_t *row_type_owned;
    const char *only_table;
    regex_t only_re; /* table-pattern, when has_re */
    bool has_re;
    bool dt_ltz;                /* DATETIME may be declared TIMESTAMP_LTZ: wall time at dt_offset */
    cdc_binary_mode_t bin_mode; /* binary columns declared STRING: as this text (not BYTES) */
    int64_t dt_offset_ms;       /* the zone's offset from UTC */
    bool file_input;
    char *file;      /* current binlog file name */
    bool new_file;   /* the last ROTATE named another file than the one before */
    uint64_t offset; /* position of the next byte in the current file */
    int magic_have;
    cdc_buf_t pending; /* an event cut by a piece boundary */
    bool have_fde;
    bool checksum; /* CRC32 trailers */
    uint8_t post_len[256];
    bl_table_t *tables, *retired;
    cdc_buf_t scratch;
    /* the event being decoded, for errors */
    uint64_t ev_pos;
    uint8_t ev_type;
    long inner_at; /* inside a TRANSACTION_PAYLOAD: the inner event's offset in it; else -1 */
    bool copy;
    /* for a CDC source: where the input stands, and the requested metadata */
    cdc_source_pos_t spos;
    char gtid[64];     /* GTID of the transaction being read: MariaDB d-s-n, MySQL uuid:gno */
    const uint8_t *ev; /* the event being decoded (header first) */
    uint32_t ev_size;
    uint8_t *meta; /* MD_* of each requested key, in order */
    int nmeta;
    cdc_value_t *meta_vals; /* the current ROWS event's metadata values */
    /* TRANSACTION_PAYLOAD: the decompressed events (reused), the zstd context */
    cdc_buf_t payload;
    ZSTD_DCtx *zstd;
    bool payload_txn_end;      /* its events ended the transaction (XID, a QUERY but BEGIN) */
    cdc_buf_t jd_out, jd_work; /* PARTIAL_UPDATE_ROWS: a JSON value with its diffs applied */
    bl_schemas_t *schemas;     /* the captured tables' columns, the changes found */
} bl_deser_t;

/* ---- errors and reading --------------------------------------------------------------------- */

static const char *event_name(uint8_t t)
{
    switch (t) {
    case EV_QUERY:
        return "QUERY";
    case EV_STOP:
        return "STOP";
    case EV_ROTATE:
        return "ROTATE";
    case EV_FORMAT_DESCRIPTION:
        return "FORMAT_DESCRIPTION";
    case EV_XID:
        return "XID";
    case EV_TABLE_MAP:
        return "TABLE_MAP";
    case EV_WRITE_ROWS_V1:
        return "WRITE_ROWS_V1";
    case EV_UPDATE_ROWS_V1:
        return "UPDATE_ROWS_V1";
    case EV_DELETE_ROWS_V1:
        return "DELETE_ROWS_V1";
    case EV_WRITE_ROWS:
        return "WRITE_ROWS";
    case EV_UPDATE_ROWS:
        return "UPDATE_ROWS";
    case EV_DELETE_ROWS:
        return "DELETE_ROWS";
    case EV_GTID:
        return "GTID";
    case EV_ANONYMOUS_GTID:
        return "ANONYMOUS_GTID";
    case EV_PARTIAL_UPDATE_ROWS:
        return "PARTIAL_UPDATE_ROWS";
    case EV_TRANSACTION_PAYLOAD:
        return "TRANSACTION_PAYLOAD";
    case EV_MARIA_GTID:
        return "MARIADB_GTID";
    case EV_MARIA_GTID_LIST:
        return "MARIADB_GTID_LIST";
    default:
        return NULL;
    }
}

static int fail(bl_deser_t *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(bl_deser_t *d, const char *fmt, ...)
{
    cdc_buf_t *e = &d->base.errmsg;
    cdc_buf_clear(e);
    const char *name = event_name(d->ev_type);
    char num[24];
    snprintf(num, sizeof(num), "type %u", d->ev_type);
    cdc_buf_printf(e, "event %s at ", name ? name : num);
    if (d->inner_at >= 0)
        cdc_buf_printf(e, "byte %ld of the uncompressed TRANSACTION_PAYLOAD at ", d->inner_at);
    cdc_buf_printf(e, "%s:%llu: ", d->file ? d->file : "binlog", (unsigned long long)d->ev_pos);
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    cdc_buf_puts(e, tmp);
    return CDC_DECODE_ERROR;
}

typedef struct bl_cur {
    const uint8_t *p, *end;
} bl_cur_t;

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static bool has(const bl_cur_t *c, size_t n)
{
    return (size_t)(c->end - c->p) >= n;
}

/* length-encoded integer; -1 when cut or NULL (0xfb) */
static int lenenc(bl_cur_t *c, uint64_t *v)
{
    long n = bl_packed(c->p, (size_t)(c->end - c->p), v);
    if (n < 0)
        return -1;
    c->p += n;
    return 0;
}

/* ---- tables --------------------------------------------------------------------------------- */

static void table_free(bl_table_t *t)
{
    for (int i = 0; i < t->ncols; i++) {
        free(t->cols[i].name);
        for (int k = 0; k < t->cols[i].nlabels; k++)
            free(t->cols[i].labels[k]);
        free(t->cols[i].labels);
        cdc_type_destroy(t->cols[i].nat);
    }
    free(t->cols);
    free(t->pk);
    free(t->qname);
    free(t->raw);
    cdc_type_destroy(t->type);
    cdc_type_destroy(t->crow);
    free(t);
}

static void retire_all(bl_deser_t *d)
{
    while (d->tables) {
        bl_table_t *t = d->tables;
        d->tables = t->next;
        t->next = d->retired;
        d->retired = t;
    }
}

static bool is_numeric(uint8_t t)
{
    return t == MT_TINY || t == MT_SHORT || t == MT_INT24 || t == MT_LONG || t == MT_LONGLONG ||
           t == MT_FLOAT || t == MT_DOUBLE || t == MT_NEWDECIMAL || t == MT_DECIMAL;
}

/* columns that carry a collation in DEFAULT_CHARSET/COLUMN_CHARSET (GEOMETRY is a BLOB inside) */
static bool is_character(uint8_t t)
{
    return t == MT_STRING || t == MT_VARCHAR || t == MT_VAR_STRING || t == MT_BLOB ||
           t == MT_GEOMETRY;
}

/* the per-type metadata bytes of one column */
static int column_meta(bl_deser_t *d, bl_col_t *col, bl_cur_t *m, int i)
{
    int need = 0;
    switch (col->type) {
    case MT_FLOAT:
    case MT_DOUBLE:
    case MT_BLOB:
    case MT_GEOMETRY:
    case MT_JSON:
    case MT_TIME2:
    case MT_DATETIME2:
    case MT_TIMESTAMP2:
        need = 1;
        break;
    case MT_VARCHAR:
    case MT_VAR_STRING:
    case MT_BIT:
    case MT_NEWDECIMAL:
    case MT_STRING:
    case MT_ENUM:
    case MT_SET:
        need = 2;
        break;
    case MT_DECIMAL:
    case MT_TINY_BLOB:
    case MT_MEDIUM_BLOB:
    case MT_LONG_BLOB:
        return fail(d, "column %d has type %u, which a binlog never holds", i + 1, col->type);
    default:
        break;
    }
    if (!has(m, (size_t)need))
        return fail(d, "column metadata ends before column %d", i + 1);
    const uint8_t *p = m->p;
    m->p += need;
    switch (col->type) {
    case MT_VARCHAR:
    case MT_VAR_STRING:
        col->max_len = (uint32_t)le(p, 2);
        break;
    case MT_BIT:
        col->meta = (uint16_t)(p[1] << 8 | p[0]);
        break;
    case MT_NEWDECIMAL:
        col->meta = (uint16_t)(p[0] << 8 | p[1]);
        if (!bl_decimal_valid(p[0], p[1]))
            return fail(d, "column %d is DECIMAL(%u, %u), which cannot be", i + 1, p[0], p[1]);
        break;
    case MT_STRING:
    case MT_ENUM:
    case MT_SET: {
        uint8_t m0 = p[0], m1 = p[1];
        uint8_t real = (m0 & 0x30) != 0x30 ? (uint8_t)(m0 | 0x30) : m0;
        if (real == MT_ENUM || real == MT_SET) {
            col->type = real;
            col->meta = m1;
        } else {
            col->type = MT_STRING;
            col->max_len = (m0 & 0x30) != 0x30 ? (uint32_t)(m1 | (((m0 & 0x30) ^ 0x30) << 4)) : m1;
        }
        break;
    }
    default:
        if (need == 1)
            col->meta = p[0];
        break;
    }
    return 0;
}

/* lenenc-counted strings: count, then each a lenenc length and bytes */
static int read_labels(bl_cur_t *f, bl_col_t *col)
{
    uint64_t n;
    if (lenenc(f, &n) < 0 || n > (uint64_t)(f->end - f->p))
        return -1;
    for (int k = 0; k < col->nlabels; k++) /* a repeated field: the last one counts */
        free(col->labels[k]);
    free(col->labels);
    col->nlabels = 0;
    col->labels = cdc_xcalloc(n ? (size_t)n : 1, sizeof(char *));
    for (uint64_t k = 0; k < n; k++) {
        uint64_t len;
        if (lenenc(f, &len) < 0 || !has(f, len))
            return -1;
        col->labels[k] = cdc_xstrndup((const char *)f->p, (size_t)len);
        col->nlabels = (int)k + 1;
        f->p += len;
    }
    return 0;
}

/* One optional-metadata field (type, body in f). Unknown types are skipped. */
static int opt_field(bl_deser_t *d, bl_table_t *t, uint8_t type, bl_cur_t *f)
{
    int n = t->ncols;
    switch (type) {
    case 1: { /* SIGNEDNESS: one bit per numeric column, MSB first */
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (!is_numeric(t->cols[i].type))
                continue;
            if ((size_t)(k / 8) >= (size_t)(f->end - f->p))
                return -1;
            t->cols[i].is_unsigned = (f->p[k / 8] >> (7 - k % 8)) & 1;
            k++;
        }
        return 0;
    }
    case 2:    /* DEFAULT_CHARSET: default, then (char-column index, collation) pairs */
    case 10: { /* ENUM_AND_SET_DEFAULT_CHARSET */
        uint64_t def, idx, coll;
        if (lenenc(f, &def) < 0)
            return -1;
        if (type == 2)
            for (int i = 0; i < n; i++)
                if (is_character(t->cols[i].type))
                    t->cols[i].charset = (int)def;
        while (f->p < f->end) {
            if (lenenc(f, &idx) < 0 || lenenc(f, &coll) < 0)
                return -1;
            if (type != 2)
                continue;
            uint64_t k = 0;
            for (int i = 0; i < n; i++)
                if (is_character(t->cols[i].type) && k++ == idx)
                    t->cols[i].charset = (int)coll;
        }
        return 0;
    }
    case 3: /* COLUMN_CHARSET: one per character column */
        for (int i = 0; i < n; i++) {
            uint64_t coll;
            if (!is_character(t->cols[i].type))
                continue;
            if (lenenc(f, &coll) < 0)
                return -1;
            t->cols[i].charset = (int)coll;
        }
        return 0;
    case 4: /* COLUMN_NAME */
        for (int i = 0; i < n; i++) {
            uint64_t len;
            if (lenenc(f, &len) < 0 || !has(f, len))
                return -1;
            free(t->cols[i].name);
            t->cols[i].name = cdc_xstrndup((const char *)f->p, (size_t)len);
            f->p += len;
        }
        return 0;
    case 5:   /* SET_STR_VALUE */
    case 6: { /* ENUM_STR_VALUE */
        uint8_t want = type == 5 ? MT_SET : MT_ENUM;
        for (int i = 0; i < n; i++)
            if (t->cols[i].type == want && read_labels(f, &t->cols[i]) < 0)
                return -1;
        return 0;
    }
    case 8:   /* SIMPLE_PRIMARY_KEY */
    case 9: { /* PRIMARY_KEY_WITH_PREFIX */
        while (f->p < f->end) {
            uint64_t idx, prefix;
            if (lenenc(f, &idx) < 0 || idx >= (uint64_t)n || (type == 9 && lenenc(f, &prefix) < 0))
                return -1;
            t->pk = cdc_xrealloc(t->pk, (size_t)(t->npk + 1) * sizeof(int));
            t->pk[t->npk++] = (int)idx;
        }
        return 0;
    }
    default:
        (void)d;
        return 0;
    }
}

static bool table_matches(const char *only, const char *qname)
{
    if (strcmp(only, qname) == 0)
        return true;
    const char *dot = strchr(qname, '.');
    return !strchr(only, '.') && dot && strcmp(only, dot + 1) == 0;
}

/* Whether the table's changes count: the one table or the pattern, else every table. */
static bool captured(void *ctx, const char *qname)
{
    bl_deser_t *d = ctx;
    if (!d->row_type)
        return true;
    return !(d->only_table && !table_matches(d->only_table, qname)) &&
           !(d->has_re && regexec(&d->only_re, qname, 0, NULL, 0) != 0);
}

/*
 * A captured table's TABLE_MAP (a new one, or one seen again after a DDL): its
 * columns are the truth the lists are checked against. Without COLUMN_NAME
 * metadata there is nothing to check by.
 */
static void check_map(bl_deser_t *d, bl_table_t *t, cdc_batch_t *out)
{
    if (!t->crow && !t->skip && captured(d, t->qname)) {
        for (int i = 0; i < t->ncols; i++)
            if (!t->cols[i].name)
                return;
        t->crow = cdc_type_new_row();
        for (int i = 0; i < t->ncols; i++) {
            cdc_type_t *ty = bl_type_for(&t->cols[i]);
            ty->nullable = t->cols[i].nullable;
            cdc_type_row_add(t->crow, t->cols[i].name, ty);
        }
    }
    if (!t->crow || t->checked_gen == bl_schemas_gen(d->schemas) + 1)
        return;
    bl_schemas_on_map(d->schemas, t->qname, t->crow, d->file, d->ev_pos, out->n);
    t->checked_gen = bl_schemas_gen(d->schemas) + 1; /* (+1: 0 is never checked) */
}

static bool compatible(const cdc_type_t *nat, const cdc_type_t *decl)
{
    bool str_n = nat->root == CDC_T_CHAR || nat->root == CDC_T_VARCHAR;
    bool str_d = decl->root == CDC_T_CHAR || decl->root == CDC_T_VARCHAR;
    bool bin_n = nat->root == CDC_T_BINARY || nat->root == CDC_T_VARBINARY;
    bool bin_d = decl->root == CDC_T_BINARY || decl->root == CDC_T_VARBINARY;
    if (str_n || bin_n)
        return (str_n && str_d) || (bin_n && bin_d);
    if (cdc_type_is_integer(nat) && cdc_type_is_integer(decl))
        return decl->root >= nat->root;
    return nat->root == decl->root;
}

/* Whether integer x fits a column of the integer type root. */
static bool int_fits(int64_t x, cdc_type_root_t root)
{
    switch (root) {
    case CDC_T_TINYINT:
        return x >= INT8_MIN && x <= INT8_MAX;
    case CDC_T_SMALLINT:
        return x >= INT16_MIN && x <= INT16_MAX;
    case CDC_T_INT:
        return x >= INT32_MIN && x <= INT32_MAX;
    default:
        return true;
    }
}

/* Sets each column's produced field and type. */
static int table_bind(bl_deser_t *d, bl_table_t *t)
{
    t->nfields = d->row_type ? (uint32_t)d->row_type->nchildren : (uint32_t)t->ncols;
    for (int i = 0; i < t->ncols; i++)
        t->cols[i].nat = bl_type_for(&t->cols[i]);
    if (!d->row_type) {
        t->type = cdc_type_new_row();
        for (int i = 0; i < t->ncols; i++) {
            char nm[16];
            snprintf(nm, sizeof(nm), "c%d", i + 1);
            cdc_type_row_add(t->type, t->cols[i].name ? t->cols[i].name : nm,
                             bl_type_for(&t->cols[i]));
        }
        for (int i = 0; i < t->ncols; i++) {
            t->cols[i].target = i;
            t->cols[i].out = t->type->children[i];
        }
        return 0;
    }
    t->skip = (d->only_table && !table_matches(d->only_table, t->qname)) ||
              (d->has_re && regexec(&d->only_re, t->qname, 0, NULL, 0) != 0);
    for (int i = 0; i < t->ncols; i++) {
        bl_col_t *c = &t->cols[i];
        int f = c->name ? cdc_type_field_index(d->row_type, c->name)
                        : (i < d->row_type->nchildren ? i : -1);
        c->target = f;
        c->out = f >= 0 ? d->row_type->children[f] : NULL;
        if (f < 0 || t->skip)
            continue;
        bool dt_as_ltz =
            d->dt_ltz && c->nat->root == CDC_T_TIMESTAMP && c->out->root == CDC_T_TIMESTAMP_LTZ;
        /* a source integer widened past the declared one (ALTER ... MODIFY n BIGINT): values
           are checked one by one (schema.change.behavior ignore keeps the declared type) */
        c->narrow = cdc_type_is_integer(c->nat) && cdc_type_is_integer(c->out) &&
                    c->out->root < c->nat->root;
        /* MySQL's BOOLEAN is TINYINT(1); Flink CDC reads it as BOOLEAN when declared so */
        c->as_bool = c->type == MT_TINY && c->out->root == CDC_T_BOOLEAN;
        /* a binary column declared STRING: text per binary.handling.mode (Debezium's) */
        bool bin_str = (c->nat->root == CDC_T_BINARY || c->nat->root == CDC_T_VARBINARY) &&
                       (c->out->root == CDC_T_CHAR || c->out->root == CDC_T_VARCHAR);
        c->bin_text = bin_str && d->bin_mode != CDC_BINARY_BYTES;
        if (c->bin_text)
            c->fast = BL_FAST_NONE; /* converted by slow_value */
        if (!dt_as_ltz && !c->narrow && !c->as_bool && !c->bin_text &&
            !compatible(c->nat, c->out)) {
            char tn[48];
            bl_type_name(c, tn, sizeof(tn));
            char *ns = cdc_type_to_string(c->nat), *ds = cdc_type_to_string(c->out);
            fail(d, "column \"%s\" of \"%s\" is %s (%s), declared %s%s", d->row_type->names[f],
                 t->qname, tn, ns, ds,
                 bin_str ? " (declare it BYTES, or set 'debezium.binary.handling.mode' to "
                           "base64, base64-url-safe or hex for text)"
                         : "");
            free(ns);
            free(ds);
            return -1;
        }
    }
    return 0;
}

static int on_table_map(bl_deser_t *d, bl_cur_t *c, cdc_batch_t *out)
{
    int idlen = d->post_len[EV_TABLE_MAP - 1] == 6 ? 4 : 6;
    if (!has(c, (size_t)idlen + 2))
        return fail(d, "event too short for the post-header");
    uint64_t id = le(c->p, idlen);
    c->p += idlen;
    const uint8_t *raw = c->p;
    size_t rawlen = (size_t)(c->end - c->p);
    for (bl_table_t *t = d->tables; t; t = t->next)
        if (t->id == id && t->rawlen == rawlen && memcmp(t->raw, raw, rawlen) == 0) {
            check_map(d, t, out); /* the same map again (every transaction repeats it) */
            return CDC_DECODE_OK;
        }
    /* a map retired by a FORMAT_DESCRIPTION (a new binlog file) comes back unchanged: reuse
     * it, so a long stream of rotations does not pile up copies */
    for (bl_table_t **pp = &d->retired; *pp; pp = &(*pp)->next) {
        bl_table_t *t = *pp;
        if (t->id == id && t->rawlen == rawlen && memcmp(t->raw, raw, rawlen) == 0) {
            bool taken = false;
            for (bl_table_t *a = d->tables; a; a = a->next)
                taken |= a->id == id;
            if (taken)
                break;
            *pp = t->next;
            t->next = d->tables;
            d->tables = t;
            check_map(d, t, out);
            return CDC_DECODE_OK;
        }
    }
    c->p += 2; /* flags */
    if (!has(c, 1) || !has(c, (size_t)c->p[0] + 2))
        return fail(d, "the schema name runs past the event");
    const uint8_t *db = c->p + 1;
    size_t dblen = c->p[0];
    c->p += dblen + 2;
    if (!has(c, 1) || !has(c, (size_t)c->p[0] + 2))
        return fail(d, "the table name runs past the event");
    const uint8_t *tn = c->p + 1;
    size_t tnlen = c->p[0];
    c->p += tnlen + 2;
    uint64_t ncols = 0, metalen = 0;
    if (lenenc(c, &ncols) < 0 || ncols == 0 || ncols > 4096 || !has(c, (size_t)ncols))
        return fail(d, "bad column count");
    bl_table_t *t = cdc_xcalloc(1, sizeof(*t));
    t->id = id;
    t->qname = cdc_strdup_printf("%.*s.%.*s", (int)dblen, db, (int)tnlen, tn);
    t->ncols = (int)ncols;
    t->cols = cdc_xcalloc((size_t)ncols, sizeof(bl_col_t));
    for (int i = 0; i < t->ncols; i++) {
        t->cols[i].type = c->p[i];
        t->cols[i].charset = -1;
    }
    c->p += ncols;
    if (lenenc(c, &metalen) < 0 || !has(c, (size_t)metalen)) {
        fail(d, "the column metadata runs past the event");
        goto bad;
    }
    bl_cur_t m = {c->p, c->p + metalen};
    for (int i = 0; i < t->ncols; i++)
        if (column_meta(d, &t->cols[i], &m, i) < 0)
            goto bad;
    c->p += metalen;
    size_t nb = ((size_t)ncols + 7) / 8;
    if (!has(c, nb)) {
        fail(d, "the nullability bitmap runs past the event");
        goto bad;
    }
    for (int i = 0; i < t->ncols; i++)
        t->cols[i].nullable = (c->p[i / 8] >> (i % 8)) & 1;
    c->p += nb;
    while (c->p < c->end) { /* optional metadata: type, lenenc length, value */
        uint8_t ftype = *c->p++;
        uint64_t flen;
        if (lenenc(c, &flen) < 0 || !has(c, (size_t)flen)) {
            fail(d, "optional metadata field %u runs past the event", ftype);
            goto bad;
        }
        bl_cur_t f = {c->p, c->p + flen};
        if (opt_field(d, t, ftype, &f) < 0) {
            fail(d, "optional metadata field %u is malformed", ftype);
            goto bad;
        }
        c->p += flen;
    }
    for (int i = 0; i < t->ncols; i++) {
        t->cols[i].fast = bl_fast_kind(&t->cols[i]);
        t->njson += t->cols[i].type == MT_JSON;
    }
    if (table_bind(d, t) < 0)
        goto bad;
    t->raw = cdc_xmalloc(rawlen ? rawlen : 1);
    memcpy(t->raw, raw, rawlen);
    t->rawlen = rawlen;
    for (bl_table_t **pp = &d->tables; *pp; pp = &(*pp)->next) {
        if ((*pp)->id == id) {
            bl_table_t *old = *pp;
            *pp = old->next;
            old->next = d->retired;
            d->retired = old;
            break;
        }
    }
    t->next = d->tables;
    d->tables = t;
    check_map(d, t, out);
    return CDC_DECODE_OK;
bad:
    table_free(t);
    return CDC_DECODE_ERROR;
}

/* ---- rows ----------------------------------------------------------------------------------- */

/* A column bitmap of a ROWS event: which columns an image carries. */
typedef struct bl_image {
    const uint8_t *present;
    uint32_t np; /* how many: the bits of the NULL bitmap before each image */
    bool all;    /* every column (binlog_row_image=FULL) */
} bl_image_t;

static void image_init(bl_image_t *img, const uint8_t *present, int ncols)
{
    img->present = present;
    img->np = 0;
    for (int i = 0; i < ncols; i++)
        img->np += (present[i / 8] >> (i % 8)) & 1;
    img->all = img->np == (uint32_t)ncols;
}

/* Decodes a column that is not a fast kind (or must be copied) into v, or steps over it when v
 * is NULL (not produced); returns the bytes used or -1 with *why set. */
static long slow_value(bl_deser_t *d, const bl_col_t *col, const uint8_t *p, size_t avail,
                       cdc_arena_t *arena, cdc_value_t *v, const char **why)
{
    if (!v) { /* not produced: decoded as its mapped type only to step over it */
        bl_col_t skipped = *col;
        skipped.out = col->nat;
        cdc_value_t tmp;
        return bl_value(&skipped, p, avail, d->copy, arena, &d->scratch, &tmp, why);
    }
    long used = bl_value(col, p, avail, d->copy, arena, &d->scratch, v, why);
    if (used >= 0 && d->dt_ltz && !(v->flags & CDC_V_NULL) && col->nat->root == CDC_T_TIMESTAMP &&
        col->out->root == CDC_T_TIMESTAMP_LTZ)
        v->v.ts.millis -= d->dt_offset_ms; /* wall time in the server's zone to UTC */
    if (used >= 0 && col->bin_text && !(v->flags & CDC_V_NULL)) {
        const unsigned char *b = (const unsigned char *)v->v.s.ptr;
        size_t n = v->v.s.len;
        if (col->type == MT_STRING && n < col->max_len && col->max_len <= 255) {
            /* BINARY(N) loses its trailing 0x00 bytes in the binlog: pad them back */
            unsigned char *padded = cdc_arena_calloc(arena, col->max_len);
            memcpy(padded, b, n);
            b = padded;
            n = col->max_len;
        }
        cdc_text_bytes_to_text(arena, d->bin_mode, b, n, &v->v.s);
    }
    return used;
}

/*
 * A JSON column of a PARTIAL_UPDATE_ROWS after image whose partial bit is set: its length (as
 * the column's), then JSON diffs to apply to the before value bv (of the row's -U). v NULL:
 * not produced, stepped over.
 */
static long partial_json(bl_deser_t *d, const bl_col_t *col, const uint8_t *p, size_t avail,
                         const cdc_value_t *bv, cdc_arena_t *arena, cdc_value_t *v,
                         const char **why)
{
    int prefix = col->meta;
    if (prefix < 1 || prefix > 4 || avail < (size_t)prefix) {
        *why =
            prefix < 1 || prefix > 4 ? "JSON length size is not 1..4" : "row ends inside a length";
        return -1;
    }
    uint64_t len = le(p, prefix);
    if (len > avail - (size_t)prefix) {
        *why = "length runs past the row";
        return -1;
    }
    if (!v)
        return prefix + (long)len;
    if (bv->flags & CDC_V_UNCHANGED) {
        *why = "its partial JSON update needs the before value, which the before image lacks; "
               "set binlog_row_image=FULL on the server (or binlog_row_value_options='')";
        return -1;
    }
    if (bv->flags & CDC_V_NULL) {
        *why = "a partial JSON update of a NULL before value";
        return -1;
    }
    if (bl_json_apply_diffs(bv->v.s.ptr, bv->v.s.len, p + prefix, (size_t)len, &d->jd_out,
                            &d->jd_work, why) < 0)
        return -1;
    v->flags = 0;
    v->v.s.ptr = cdc_arena_memdup(arena, d->jd_out.data, d->jd_out.len);
    v->v.s.len = (uint32_t)d->jd_out.len;
    return prefix + (long)len;
}

/*
 * Reads one row image into a new row of out (unless the table is skipped). partial_ai: the
 * after image of a PARTIAL_UPDATE_ROWS event, whose JSON diffs apply to the values of the row
 * before it in out (its -U).
 */
static int read_image(bl_deser_t *d, bl_cur_t *c, bl_table_t *t, const bl_image_t *img,
                      cdc_kind_t kind, cdc_batch_t *out, long rowno, bool partial_ai)
{
    const uint8_t *partial = NULL; /* a bit per JSON column: its value is a list of diffs */
    uint32_t before = out->n - 1;  /* the -U, when the table is produced */
    if (partial_ai) {
        uint64_t opts;
        if (lenenc(c, &opts) < 0)
            return fail(d, "row %ld of \"%s\": the value options run past the event", rowno,
                        t->qname);
        if (opts & 1) { /* PARTIAL_JSON_UPDATES */
            partial = c->p;
            if (!has(c, ((size_t)t->njson + 7) / 8))
                return fail(d, "row %ld of \"%s\": the partial JSON bits run past the event", rowno,
                            t->qname);
            c->p += ((size_t)t->njson + 7) / 8;
        }
    }
    size_t nb = (img->np + 7) / 8;
    if (!has(c, nb))
        return fail(d, "row %ld of \"%s\": the NULL bitmap runs past the event", rowno, t->qname);
    const uint8_t *nulls = c->p;
    const uint8_t *p = c->p + nb, *end = c->end;
    cdc_value_t *vals = NULL;
    if (!t->skip) {
        cdc_row_t *row = cdc_batch_add(out, kind, t->nfields + (uint32_t)d->nmeta);
        row->origin = t->qname;
        vals = row->values;
        if (d->nmeta)
            memcpy(vals + t->nfields, d->meta_vals, (size_t)d->nmeta * sizeof(cdc_value_t));
    }
    bool copy = d->copy;
    uint32_t k = 0, j = 0;
    for (int i = 0; i < t->ncols; i++) {
        const bl_col_t *col = &t->cols[i];
        cdc_value_t *v = vals && col->target >= 0 ? &vals[col->target] : NULL;
        bool diffs = false;
        if (partial && col->type == MT_JSON) {
            diffs = (partial[j / 8] >> (j % 8)) & 1;
            j++;
        }
        if (!img->all && !((img->present[i / 8] >> (i % 8)) & 1)) {
            if (v)
                v->flags = CDC_V_NULL | CDC_V_UNCHANGED; /* not in a partial image */
            continue;
        }
        bool isnull = (nulls[k / 8] >> (k % 8)) & 1;
        k++;
        if (isnull)
            continue; /* the row starts all NULL */
        const char *why = NULL;
        long used;
        if (diffs)
            used = partial_json(d, col, p, (size_t)(end - p),
                                v ? &out->rows[before].values[col->target] : NULL, &out->arena, v,
                                &why);
        else if (v && col->fast != BL_FAST_NONE && !(copy && col->fast >= BL_FAST_STR1))
            used = bl_value_fast(col->fast, p, (size_t)(end - p), v, &why);
        else
            used = slow_value(d, col, p, (size_t)(end - p), &out->arena, v, &why);
        if (used < 0) {
            char tn[48];
            bl_type_name(col, tn, sizeof(tn));
            return fail(d, "row %ld of \"%s\", column %d%s%s%s (%s): %s", rowno, t->qname, i + 1,
                        col->name ? " \"" : "", col->name ? col->name : "", col->name ? "\"" : "",
                        tn, why);
        }
        if (v && col->as_bool) {
            int64_t x = v->v.i;
            v->v.b = x != 0;
        }
        if (v && col->narrow && !int_fits(v->v.i, col->out->root)) {
            char tn[48];
            bl_type_name(col, tn, sizeof(tn));
            char *ds = cdc_type_to_string(col->out), *ns = cdc_type_to_string(col->nat);
            fail(d,
                 "row %ld of \"%s\", column \"%s\": %lld does not fit the declared %s (the "
                 "source column is %s, read as %s): declare it %s, or, after an ALTER at the "
                 "source, let schema.change.behavior (lenient, evolve) widen it",
                 rowno, t->qname, col->name ? col->name : "?", (long long)v->v.i, ds, tn, ns, ns);
            free(ds);
            free(ns);
            return -1;
        }
        p += used;
    }
    c->p = p;
    return 0;
}

/* A string metadata value: a copy in the arena (the source may change before the batch ends). */
static void meta_str(cdc_value_t *v, const char *p, size_t n, cdc_arena_t *arena)
{
    v->v.s.ptr = cdc_arena_memdup(arena, p, n);
    v->v.s.len = (uint32_t)n;
}

/* The metadata values of the current ROWS event's rows (of table t), into d->meta_vals. */
static void meta_prepare(bl_deser_t *d, const bl_table_t *t, cdc_arena_t *arena)
{
    const char *dot = strchr(t->qname, '.');
    size_t dblen = dot ? (size_t)(dot - t->qname) : strlen(t->qname);
    const char *tn = dot ? dot + 1 : "";
    uint64_t log_pos = le(d->ev + 13, 4);
    for (int i = 0; i < d->nmeta; i++) {
        cdc_value_t *v = &d->meta_vals[i];
        v->flags = 0;
        switch (d->meta[i]) {
        case MD_DATABASE: /* rows point at t->qname too (row->origin) */
            v->v.s.ptr = t->qname;
            v->v.s.len = (uint32_t)dblen;
            break;
        case MD_TABLE:
            v->v.s.ptr = tn;
            v->v.s.len = (uint32_t)strlen(tn);
            break;
        case MD_OP_TS:
            v->v.ts = (cdc_ts_t){.millis = (int64_t)le(d->ev, 4) * 1000};
            break;
        case MD_FILE:
            meta_str(v, d->file ? d->file : "", d->file ? strlen(d->file) : 0, arena);
            break;
        case MD_POS:
            v->v.i = log_pos >= d->ev_size ? (int64_t)(log_pos - d->ev_size) : 0;
            break;
        case MD_GTID:
            if (d->gtid[0])
                meta_str(v, d->gtid, strlen(d->gtid), arena);
            else
                v->flags = CDC_V_NULL;
            break;
        case MD_SERVER_ID:
            v->v.i = (int64_t)le(d->ev + 5, 4);
            break;
        default: /* MD_SNAPSHOT: binlog rows are never the snapshot's */
            v->v.b = false;
            break;
        }
    }
}

static int on_rows(bl_deser_t *d, bl_cur_t *c, uint8_t type, cdc_batch_t *out)
{
    bool partial = type == EV_PARTIAL_UPDATE_ROWS;
    bool v2 = (type >= EV_WRITE_ROWS && type <= EV_DELETE_ROWS) || partial;
    int idlen = d->post_len[type - 1] == 6 ? 4 : 6;
    if (!has(c, (size_t)idlen + 2 + (v2 ? 2 : 0)))
        return fail(d, "event too short for the post-header");
    uint64_t id = le(c->p, idlen);
    c->p += idlen + 2;
    if (v2) {
        uint16_t extra = (uint16_t)le(c->p, 2);
        if (extra < 2 || !has(c, extra))
            return fail(d, "extra data of %u bytes runs past the event", extra);
        c->p += extra;
    }
    bl_table_t *t = NULL;
    for (bl_table_t *x = d->tables; x; x = x->next)
        if (x->id == id)
            t = x;
    if (!t)
        return fail(d, "no TABLE_MAP event for table id %llu", (unsigned long long)id);
    uint64_t ncols = 0;
    if (lenenc(c, &ncols) < 0 || ncols != (uint64_t)t->ncols)
        return fail(d, "the event has %llu columns, TABLE_MAP of \"%s\" has %d",
                    (unsigned long long)ncols, t->qname, t->ncols);
    size_t nb = ((size_t)ncols + 7) / 8;
    bool upd = type == EV_UPDATE_ROWS || type == EV_UPDATE_ROWS_V1 || partial;
    if (!has(c, nb * (upd ? 2 : 1)))
        return fail(d, "the column bitmaps run past the event");
    bl_image_t before, after;
    image_init(&before, c->p, t->ncols);
    image_init(&after, upd ? c->p + nb : c->p, t->ncols);
    c->p += nb * (upd ? 2 : 1);
    cdc_kind_t kind = type == EV_WRITE_ROWS || type == EV_WRITE_ROWS_V1 ? CDC_INSERT : CDC_DELETE;
    if (d->nmeta && !t->skip)
        meta_prepare(d, t, &out->arena);
    uint32_t nrows = out->n;
    for (long rowno = 1; c->p < c->end; rowno++) {
        int rc = upd ? read_image(d, c, t, &before, CDC_UPDATE_BEFORE, out, rowno, false)
                     : read_image(d, c, t, &before, kind, out, rowno, false);
        if (rc == 0 && upd)
            rc = read_image(d, c, t, &after, CDC_UPDATE_AFTER, out, rowno, partial);
        if (rc < 0) {
            cdc_batch_truncate(out, out->n - nrows); /* none of a bad event's rows */
            return CDC_DECODE_ERROR;
        }
    }
    return CDC_DECODE_OK;
}

/* ---- control events ------------------------------------------------------------------------- */

static bool version_has_checksum(const uint8_t *ver)
{
    unsigned a = 0, b = 0, c = 0;
    char v[51];
    memcpy(v, ver, 50);
    v[50] = 0;
    sscanf(v, "%u.%u.%u", &a, &b, &c);
    if (strstr(v, "MariaDB") && a == 5 && b >= 3)
        return true;
    return a > 5 || (a == 5 && (b > 6 || (b == 6 && c >= 1)));
}

static int on_format_description(bl_deser_t *d, const uint8_t *ev, size_t size)
{
    if (size < HEADER_LEN + 2 + 50 + 4 + 1)
        return fail(d, "event of %zu bytes is too short", size);
    const uint8_t *b = ev + HEADER_LEN;
    if (le(b, 2) != 4)
        return fail(d, "binlog version %u is not 4", (unsigned)le(b, 2));
    if (b[56] != HEADER_LEN)
        return fail(d, "header length %u is not 19", b[56]);
    size_t end = size;
    bool crc = false;
    if (version_has_checksum(b + 2)) {
        uint8_t alg = ev[size - 5];
        if (alg != 0 && alg != 1 && alg != 0xff)
            return fail(d, "unknown checksum algorithm %u", alg);
        crc = alg == 1;
        end = size - 5;
        if (crc && bl_crc32(ev, size - 4) != (uint32_t)le(ev + size - 4, 4))
            return fail(d, "checksum mismatch");
    }
    if (end < HEADER_LEN + 57)
        return fail(d, "event of %zu bytes is too short for its checksum algorithm", size);
    memset(d->post_len, 0, sizeof(d->post_len));
    size_t n = end - (HEADER_LEN + 57);
    memcpy(d->post_len, b + 57, n > 255 ? 255 : n);
    d->checksum = crc;
    d->have_fde = true;
    retire_all(d); /* table ids are valid within one binlog */
    return CDC_DECODE_OK;
}

static int on_rotate(bl_deser_t *d, const uint8_t *ev, size_t end, uint64_t *next_pos)
{
    if (end < HEADER_LEN + 8)
        return fail(d, "event too short");
    uint64_t pos = le(ev + HEADER_LEN, 8);
    const char *name = (const char *)ev + HEADER_LEN + 8;
    size_t len = end - HEADER_LEN - 8;
    /* before a FORMAT_DESCRIPTION nobody knows about checksums: drop a trailer that is one */
    if (!d->have_fde && len >= 4 && bl_crc32(ev, end - 4) == (uint32_t)le(ev + end - 4, 4))
        len -= 4;
    if (len == 0 || memchr(name, 0, len))
        return fail(d, "bad file name");
    /* the first name learned is no move; later, another name is (also from an artificial
       ROTATE: a dump past a file that ends without one, e.g. with STOP, goes on in the next) */
    d->new_file = d->file && (strlen(d->file) != len || memcmp(d->file, name, len) != 0);
    free(d->file);
    d->file = cdc_xstrndup(name, len);
    *next_pos = pos;
    if (!d->file_input) /* a stream starts with a ROTATE naming where */
        bl_schemas_start(d->schemas, d->file, pos);
    return CDC_DECODE_OK;
}

static int on_query(bl_deser_t *d, const uint8_t *ev, size_t end, cdc_batch_t *out)
{
    bl_cur_t c = {ev + HEADER_LEN, ev + end};
    if (!has(&c, 13))
        return fail(d, "event too short for the post-header");
    uint8_t dblen = c.p[8];
    uint16_t svlen = (uint16_t)le(c.p + 11, 2);
    if (!has(&c, 13 + (size_t)svlen + dblen + 1) || c.p[13 + svlen + dblen] != 0)
        return fail(d, "status variables or schema name run past the event");
    char db[256];
    memcpy(db, c.p + 13 + svlen, dblen);
    db[dblen] = 0;
    const char *sql = (const char *)c.p + 13 + svlen + dblen + 1;
    bl_schemas_on_ddl(d->schemas, sql, (size_t)((const char *)c.end - sql), db, d->file, d->ev_pos,
                      captured, d, out->n);
    return CDC_DECODE_OK;
}

static int min_body(bl_deser_t *d, size_t have, size_t want)
{
    if (have < want)
        return fail(d, "body of %zu bytes, at least %zu expected", have, want);
    return CDC_DECODE_OK;
}

/*
 * A MySQL GTID or ANONYMOUS_GTID event: flags (1), SID (16), GNO (8), then the logical clock
 * and commit times, which nothing here needs. Keeps "uuid:gno" for the source position (""
 * for an anonymous transaction).
 */
static int on_mysql_gtid(bl_deser_t *d, const uint8_t *b, size_t body, uint8_t type)
{
    if (min_body(d, body, 25) < 0)
        return CDC_DECODE_ERROR;
    uint64_t gno = le(b + 17, 8);
    if (type == EV_ANONYMOUS_GTID) {
        d->gtid[0] = 0;
        return CDC_DECODE_OK;
    }
    if (gno < 1 || gno >= (uint64_t)INT64_MAX)
        return fail(d, "GNO %llu is out of range (1 to 2^63-2); the event is corrupt",
                    (unsigned long long)gno);
    static const char hex[] = "0123456789abcdef";
    char *o = d->gtid;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            *o++ = '-';
        *o++ = hex[b[1 + i] >> 4];
        *o++ = hex[b[1 + i] & 15];
    }
    snprintf(o, sizeof(d->gtid) - (size_t)(o - d->gtid), ":%llu", (unsigned long long)gno);
    return CDC_DECODE_OK;
}

/* ---- source position ------------------------------------------------------------------------ */

/* Whether a QUERY event's statement (after the status variables and schema) is BEGIN. */
static bool query_is_begin(const uint8_t *ev, size_t end)
{
    size_t svlen = (size_t)le(ev + HEADER_LEN + 11, 2);
    size_t at = HEADER_LEN + 13 + svlen + ev[HEADER_LEN + 8] + 1;
    return at + 5 <= end && memcmp(ev + at, "BEGIN", 5) == 0;
}

/*
 * Follows the source position after a decoded event: the position after it, the MariaDB
 * GTID, and the transactions. Artificial events (log_pos 0) open or end none.
 */
static void follow(bl_deser_t *d, const uint8_t *ev, size_t end, uint8_t type)
{
    cdc_source_pos_t *sp = &d->spos;
    uint64_t log_pos = le(ev + 13, 4);
    sp->file = d->file;
    sp->pos = log_pos;
    sp->ts_ms = (int64_t)le(ev, 4) * 1000;
    if (type == EV_ROTATE) { /* the position in the new file; time 0: a dump's artificial one */
        sp->pos = d->offset;
        sp->rotate = le(ev, 4) != 0 || d->new_file;
        return;
    }
    if (type == EV_STOP)
        sp->file_end = true;
    if (type == EV_MARIA_GTID) /* seq_no, domain_id; the server from the header */
        snprintf(d->gtid, sizeof(d->gtid), "%llu-%llu-%llu",
                 (unsigned long long)le(ev + HEADER_LEN + 8, 4), (unsigned long long)le(ev + 5, 4),
                 (unsigned long long)le(ev + HEADER_LEN, 8));
    if (log_pos == 0)
        return;
    if (type == EV_MARIA_GTID || type == EV_GTID) /* a transaction (or DDL) begins */
        sp->in_txn = true;
    bool boundary = type == EV_XID || (type == EV_TRANSACTION_PAYLOAD && d->payload_txn_end);
    if (type == EV_QUERY) { /* BEGIN opens, anything else (COMMIT, DDL) closes */
        boundary = !query_is_begin(ev, end);
        sp->in_txn = sp->in_txn || !boundary;
    }
    if (boundary) {
        sp->in_txn = false;
        sp->txn_end = true;
    }
}

/* ---- events --------------------------------------------------------------------------------- */

static int on_payload(bl_deser_t *d, const uint8_t *p, size_t body, cdc_batch_t *out);

/*
 * Decodes the body of an event whose checksum is verified (or that has none, inside a
 * TRANSACTION_PAYLOAD): ev is the event, header first, end the length without the checksum.
 * A ROTATE sets *next.
 */
static int decode_body(bl_deser_t *d, const uint8_t *ev, size_t end, uint64_t *next,
                       cdc_batch_t *out)
{
    uint8_t type = ev[4];
    uint16_t flags = (uint16_t)le(ev + 17, 2);
    bl_cur_t c = {ev + HEADER_LEN, ev + end};
    size_t body = end - HEADER_LEN;
    switch (type) {
    case EV_ROTATE:
        return on_rotate(d, ev, end, next);
    case EV_QUERY:
        return on_query(d, ev, end, out);
    case EV_XID:
        return min_body(d, body, 8);
    case EV_GTID:
    case EV_ANONYMOUS_GTID:
        return on_mysql_gtid(d, c.p, body, type);
    case EV_MARIA_GTID:
        return min_body(d, body, 13); /* seq_no, domain_id, flags */
    case EV_MARIA_GTID_LIST:
        if (min_body(d, body, 4) < 0)
            return CDC_DECODE_ERROR;
        return min_body(d, body, 4 + (size_t)(le(c.p, 4) & 0x0fffffff) * 16);
    case EV_TABLE_MAP:
        return on_table_map(d, &c, out);
    case EV_WRITE_ROWS_V1:
    case EV_UPDATE_ROWS_V1:
    case EV_DELETE_ROWS_V1:
    case EV_WRITE_ROWS:
    case EV_UPDATE_ROWS:
    case EV_DELETE_ROWS:
    case EV_PARTIAL_UPDATE_ROWS:
        return on_rows(d, &c, type, out);
    case EV_TRANSACTION_PAYLOAD:
        return on_payload(d, c.p, body, out);
    default:
        if (type >= EV_QUERY_COMPRESSED && type <= 171)
            return fail(d, "compressed events are not supported; set log_bin_compress=OFF on "
                           "the server");
        if (type == 0 || (type > 41 && type < 160) || (type > 171 && !(flags & F_IGNORABLE)))
            return fail(d, "unknown event type (not marked ignorable)");
        /* the rest (STOP, INTVAR, RAND, USER_VAR, HEARTBEAT, PREVIOUS_GTIDS, ROWS_QUERY,
         * ANNOTATE_ROWS, BINLOG_CHECKPOINT, START_ENCRYPTION, ...) carry no rows */
        return CDC_DECODE_OK;
    }
}

/*
 * The events of a TRANSACTION_PAYLOAD (MySQL 8 binlog_transaction_compression=ON), one after
 * the other: complete events without checksums, log_pos 0. Positions and metadata stay those
 * of the payload event (d->ev); rows are copied when the events were decompressed (the buffer
 * is reused by the next payload).
 */
static int payload_events(bl_deser_t *d, const uint8_t *p, size_t n, bool copy, cdc_batch_t *out)
{
    bool was_copy = d->copy;
    int rc = CDC_DECODE_OK;
    d->copy = was_copy || copy;
    d->payload_txn_end = false;
    for (size_t at = 0; at < n && rc == CDC_DECODE_OK;) {
        d->inner_at = (long)at;
        d->ev_type = n - at > 4 ? p[at + 4] : 0;
        uint32_t size = n - at >= HEADER_LEN ? (uint32_t)le(p + at + 9, 4) : 0;
        if (n - at < HEADER_LEN || size < HEADER_LEN || size > n - at) {
            rc = fail(d, "the event (%zu bytes left, size %u) runs past the payload", n - at, size);
            break;
        }
        const uint8_t *ev = p + at;
        uint8_t type = ev[4];
        if (type == EV_FORMAT_DESCRIPTION || type == EV_ROTATE || type == EV_TRANSACTION_PAYLOAD ||
            type == EV_GTID || type == EV_ANONYMOUS_GTID) {
            rc = fail(d, "this event cannot be inside a transaction payload; the payload is "
                         "corrupt");
            break;
        }
        uint64_t unused = 0;
        rc = decode_body(d, ev, size, &unused, out);
        if (type == EV_XID || (type == EV_QUERY && !query_is_begin(ev, size)))
            d->payload_txn_end = true;
        at += size;
    }
    if (rc == CDC_DECODE_OK)
        d->ev_type = EV_TRANSACTION_PAYLOAD;
    d->inner_at = -1;
    d->copy = was_copy;
    return rc;
}

/*
 * TRANSACTION_PAYLOAD: a header of (field type, length, value) triples, each a packed integer,
 * up to the end mark 0 (1 payload size, 2 compression type, 3 uncompressed size; unknown ones
 * are skipped by their length), then the payload: zstd (type 0) or plain (type 255) events.
 */
static int on_payload(bl_deser_t *d, const uint8_t *p, size_t body, cdc_batch_t *out)
{
    bl_cur_t c = {p, p + body};
    uint64_t size = UINT64_MAX, ctype = UINT64_MAX, usize = UINT64_MAX;
    for (;;) {
        uint64_t ftype, flen, v;
        if (lenenc(&c, &ftype) < 0)
            return fail(d, "the payload header ends before its end mark");
        if (ftype == 0)
            break;
        if (lenenc(&c, &flen) < 0 || !has(&c, (size_t)flen))
            return fail(d, "payload header field %llu runs past the event",
                        (unsigned long long)ftype);
        bl_cur_t f = {c.p, c.p + flen};
        c.p += flen;
        if (ftype > 3)
            continue;
        if (lenenc(&f, &v) < 0)
            return fail(d, "payload header field %llu is malformed", (unsigned long long)ftype);
        *(ftype == 1 ? &size : ftype == 2 ? &ctype : &usize) = v;
    }
    size_t have = (size_t)(c.end - c.p);
    if (size == UINT64_MAX || ctype == UINT64_MAX)
        return fail(d, "the payload header lacks the %s",
                    size == UINT64_MAX ? "payload size" : "compression type");
    if (size != have)
        return fail(d, "the payload header says %llu bytes, the event holds %zu",
                    (unsigned long long)size, have);
    if (ctype == 255)
        return payload_events(d, c.p, have, false, out);
    if (ctype != 0)
        return fail(d, "compression type %llu is unknown (0 is zstd, 255 none)",
                    (unsigned long long)ctype);
    if (usize == UINT64_MAX)
        return fail(d, "the payload header lacks the uncompressed size");
    if (usize > MAX_PAYLOAD_UNCOMPRESSED)
        return fail(d,
                    "the transaction takes %llu bytes uncompressed, more than the limit of "
                    "1 GiB; split it into smaller transactions, or set "
                    "binlog_transaction_compression=OFF on the server",
                    (unsigned long long)usize);
    if (!d->zstd && !(d->zstd = ZSTD_createDCtx()))
        return fail(d, "out of memory for the zstd decompressor");
    cdc_buf_clear(&d->payload);
    cdc_buf_reserve(&d->payload, (size_t)usize);
    size_t got = ZSTD_decompressDCtx(d->zstd, d->payload.data, (size_t)usize, c.p, have);
    if (ZSTD_isError(got))
        return fail(d, "zstd cannot decompress the payload: %s", ZSTD_getErrorName(got));
    if (got != usize)
        return fail(d, "the payload decompresses to %zu bytes, its header says %llu", got,
                    (unsigned long long)usize);
    return payload_events(d, (const uint8_t *)d->payload.data, got, true, out);
}

static int decode_event(bl_deser_t *d, const uint8_t *ev, size_t size, cdc_batch_t *out)
{
    uint8_t type = ev[4];
    d->ev_type = type;
    if (type == EV_HEARTBEAT && !d->file_input) { /* a replica's stream: the server is idle */
        d->spos.heartbeat = true;
        if (le(ev + 13, 4) != 0) /* where the server's binlog stands: the next event's start */
            d->spos.pos = le(ev + 13, 4);
        return CDC_DECODE_OK;
    }
    d->ev = ev;
    d->ev_size = (uint32_t)size;
    uint64_t next = d->offset + size;
    if (!d->file_input) {
        uint64_t log_pos = le(ev + 13, 4);
        if (log_pos >= size) {
            d->ev_pos = log_pos - size;
            next = log_pos;
        }
    }
    if (type == EV_FORMAT_DESCRIPTION) {
        int rc = on_format_description(d, ev, size);
        d->offset = next;
        if (rc == CDC_DECODE_OK)
            follow(d, ev, size, type);
        return rc;
    }
    size_t end = size;
    if (d->checksum) {
        if (size < HEADER_LEN + 4)
            return fail(d, "event of %zu bytes has no room for its checksum", size);
        end = size - 4;
        if (bl_crc32(ev, end) != (uint32_t)le(ev + end, 4))
            return fail(d, "checksum mismatch (stored %08x, computed %08x)",
                        (uint32_t)le(ev + end, 4), bl_crc32(ev, end));
    }
    if (!d->have_fde && type != EV_ROTATE && type != EV_MARIA_GTID_LIST && type != EV_HEARTBEAT)
        return fail(d, "no FORMAT_DESCRIPTION event before it");
    int rc = decode_body(d, ev, end, &next, out);
    d->offset = next;
    if (rc == CDC_DECODE_OK)
        follow(d, ev, end, type);
    return rc;
}

/* Validates a header's event size; 0 or an error. */
static int check_size(bl_deser_t *d, const uint8_t *hdr, uint32_t *size)
{
    d->ev_type = hdr[4];
    *size = (uint32_t)le(hdr + 9, 4);
    if (*size < HEADER_LEN || *size > MAX_EVENT_SIZE)
        return fail(d, "event size %u is impossible", *size);
    return 0;
}

static const uint8_t MAGIC[4] = {0xfe, 'b', 'i', 'n'};

static int bl_feed(bl_deser_t *d, const uint8_t *p, size_t n, cdc_batch_t *out)
{
    while (n > 0) {
        if (d->file_input && d->magic_have < 4) {
            if (*p != MAGIC[d->magic_have]) {
                d->ev_type = 0;
                d->ev_pos = d->offset;
                cdc_buf_clear(&d->base.errmsg);
                cdc_buf_printf(&d->base.errmsg,
                               "%s is not a binlog file: byte %llu is 0x%02x, the magic header "
                               "is fe 62 69 6e",
                               d->file ? d->file : "the input", (unsigned long long)d->offset, *p);
                return CDC_DECODE_ERROR;
            }
            d->magic_have++;
            d->offset++;
            if (d->magic_have == 4)
                bl_schemas_start(d->schemas, d->file ? d->file : "binlog", d->offset);
            p++;
            n--;
            continue;
        }
        uint32_t size;
        if (d->pending.len) {
            size_t have = d->pending.len;
            size_t want = have < HEADER_LEN ? HEADER_LEN : 0;
            if (have >= HEADER_LEN) {
                if (check_size(d, (const uint8_t *)d->pending.data, &size) < 0)
                    return CDC_DECODE_ERROR;
                want = size;
            }
            size_t take = want - have < n ? want - have : n;
            cdc_buf_append(&d->pending, p, take);
            p += take;
            n -= take;
            if (d->pending.len < HEADER_LEN)
                continue;
            if (check_size(d, (const uint8_t *)d->pending.data, &size) < 0)
                return CDC_DECODE_ERROR;
            if (d->pending.len < size)
                continue;
            d->ev_pos = d->offset;
            d->copy = true;
            int rc = decode_event(d, (const uint8_t *)d->pending.data, size, out);
            d->copy = false;
            d->pending.len = 0;
            if (rc != CDC_DECODE_OK)
                return rc;
            continue;
        }
        if (n < HEADER_LEN) {
            cdc_buf_append(&d->pending, p, n);
            break;
        }
        d->ev_pos = d->offset;
        if (check_size(d, p, &size) < 0)
            return CDC_DECODE_ERROR;
        if (n < size) {
            cdc_buf_append(&d->pending, p, n);
            break;
        }
        int rc = decode_event(d, p, size, out);
        if (rc != CDC_DECODE_OK)
            return rc;
        p += size;
        n -= size;
    }
    return CDC_DECODE_OK;
}

static int bl_decode(cdc_deser_t *base, const char *msg, size_t len, cdc_batch_t *out)
{
    bl_deser_t *d = (bl_deser_t *)base;
    d->spos.txn_end = d->spos.heartbeat = d->spos.rotate = d->spos.file_end = false;
    bl_schemas_begin(d->schemas);
    if (!msg || !len) { /* the end of the input */
        d->ev_pos = d->offset;
        if (d->pending.len) {
            d->ev_type = d->pending.len > 4 ? (uint8_t)d->pending.data[4] : 0;
            return fail(d, "the input ends inside an event (%zu bytes of it read)", d->pending.len);
        }
        if (d->file_input && d->magic_have > 0 && d->magic_have < 4) {
            d->ev_type = 0;
            return fail(d, "the input ends inside the magic header");
        }
        return CDC_DECODE_OK;
    }
    int rc = bl_feed(d, (const uint8_t *)msg, len, out);
    const cdc_schema_change_t *const *changes;
    const uint32_t *at;
    if (rc == CDC_DECODE_OK && bl_schemas_pending(d->schemas, &changes, &at) > 0)
        return CDC_DECODE_SCHEMA;
    return rc;
}

static int bl_schema_changes(cdc_deser_t *base, const cdc_schema_change_t *const **changes,
                             const uint32_t **at)
{
    return bl_schemas_pending(((bl_deser_t *)base)->schemas, changes, at);
}

static const cdc_type_t *bl_row_type(cdc_deser_t *base, const cdc_row_t *row)
{
    bl_deser_t *d = (bl_deser_t *)base;
    if (d->row_type)
        return d->row_type;
    for (bl_table_t *lists[2] = {d->tables, d->retired}, **l = lists; l < lists + 2; l++)
        for (bl_table_t *t = *l; t; t = t->next)
            if (t->qname == row->origin)
                return t->type;
    return NULL;
}

static const cdc_source_pos_t *bl_source_pos(cdc_deser_t *base)
{
    return &((bl_deser_t *)base)->spos;
}

static void bl_destroy(cdc_deser_t *base)
{
    bl_deser_t *d = (bl_deser_t *)base;
    if (!d)
        return;
    retire_all(d);
    while (d->retired) {
        bl_table_t *t = d->retired;
        d->retired = t->next;
        table_free(t);
    }
    free(d->file);
    free(d->meta);
    free(d->meta_vals);
    cdc_buf_free(&d->pending);
    cdc_buf_free(&d->scratch);
    cdc_buf_free(&d->payload);
    cdc_buf_free(&d->jd_out);
    cdc_buf_free(&d->jd_work);
    ZSTD_freeDCtx(d->zstd);
    bl_schemas_free(d->schemas);
    cdc_type_destroy(d->row_type_owned);
    if (d->has_re)
        regfree(&d->only_re);
    cdc_buf_free(&d->base.errmsg);
    free(d);
}

static const cdc_deser_ops_t bl_deser_ops = {
    .decode = bl_decode,
    .destroy = bl_destroy,
    .row_type = bl_row_type,
    .source_pos = bl_source_pos,
    .schema_changes = bl_schema_changes,
};

/* ---- factory -------------------------------------------------------------------------------- */

static const char *const bl_inputs[] = {"file", "events", NULL};

static const cdc_option_def_t bl_options[] = {
    {.key = "input",
     .type = CDC_OPT_ENUM,
     .default_value = "file",
     .enum_values = bl_inputs,
     .description = "'file': a binlog file as the server writes it (the magic fe 62 69 6e, then "
                    "events); 'events': events back to back as a replica receives them (no "
                    "magic; positions come from each event's log_pos). Either may arrive split "
                    "at any byte."},
    {.key = "file-name",
     .type = CDC_OPT_STRING,
     .description = "The binlog file the input starts in, for positions in messages "
                    "(\"mysql-bin.000003:4711\"); ROTATE events change it. `cdcflow decode` sets "
                    "it to the input file's base name."},
    {.key = "table-name",
     .type = CDC_OPT_STRING,
     .description = "With a declared schema: produce rows only for this table, \"db.table\" or "
                    "\"table\" (any database). Ignored when the format describes its own tables "
                    "(`cdcflow decode` without --schema)."},
    {.key = "table-pattern",
     .type = CDC_OPT_STRING,
     .description = "With a declared schema: produce rows only for the tables whose \"db.table\" "
                    "this POSIX extended regular expression matches as a whole (the mysql-cdc "
                    "source's regex table-name)."},
    {.key = "schema-history",
     .type = CDC_OPT_STRING,
     .description = "A file keeping the captured tables' column lists with the binlog position "
                    "each holds from (written when one changes), so that a stream resumed at an "
                    "older position reports a DDL at its own position against the columns that "
                    "held before it (the mysql-cdc source sets it). Unset: the lists start from "
                    "the first TABLE_MAP of each table."},
    {.key = "datetime-zone-offset",
     .type = CDC_OPT_INT,
     .min = -86400,
     .max = 86400,
     .description = "With a declared schema: DATETIME columns may be declared TIMESTAMP_LTZ; their "
                    "wall time is read at this offset from UTC, in seconds (the mysql-cdc "
                    "source's server-time-zone). Unset: such a declaration is an error."},
    {.key = "binary.handling.mode",
     .type = CDC_OPT_ENUM,
     .default_value = "bytes",
     .enum_values = cdc_binary_modes,
     .description = "With a declared schema (Debezium's binary.handling.mode; the mysql-cdc "
                    "source sets it from 'debezium.binary.handling.mode'): BINARY, VARBINARY "
                    "and BLOB columns declared STRING are written as 'base64', "
                    "'base64-url-safe' or 'hex' text. 'bytes': they must be declared BYTES."},
    {0},
};

static int bl_deser_new(const cdc_format_ctx_t *ctx, cdc_deser_t **out, cdc_error_t **err)
{
    bl_crc32_init();
    bl_deser_t *d = cdc_xcalloc(1, sizeof(*d));
    d->base.ops = &bl_deser_ops;
    d->spos.gtid = d->gtid;
    d->inner_at = -1;
    d->nmeta = ctx->nmetadata > 0 ? ctx->nmetadata : 0;
    d->meta = cdc_xcalloc((size_t)d->nmeta + 1, 1);
    d->meta_vals = cdc_xcalloc((size_t)d->nmeta + 1, sizeof(cdc_value_t));
    if (cdc_format_metadata_ids(ctx, "mysql-binlog", md_keys, MD_COUNT, d->meta, err) < 0) {
        bl_destroy(&d->base);
        return -1;
    }
    const char *pat = cdc_config_str(ctx->cfg, "table-pattern");
    if (pat && *pat) {
        char *anchored = cdc_strdup_printf("^(%s)$", pat);
        int rc = regcomp(&d->only_re, anchored, REG_EXTENDED | REG_NOSUB);
        free(anchored);
        if (rc != 0) {
            char msg[160];
            regerror(rc, &d->only_re, msg, sizeof(msg));
            cdc_error_set(err, CDC_ERR_OPTION,
                          "format \"mysql-binlog\": bad 'table-pattern' "
                          "\"%s\": %s",
                          pat, msg);
            bl_destroy(&d->base);
            return -1;
        }
        d->has_re = true;
    }
    if (ctx->row_type) {
        d->row_type_owned = cdc_type_copy(ctx->row_type);
        d->row_type = d->row_type_owned;
    }
    const char *only = cdc_config_str(ctx->cfg, "table-name");
    d->only_table = only && *only ? only : NULL;
    d->file_input = cdc_config_enum(ctx->cfg, "input") == 0;
    if (cdc_config_isset(ctx->cfg, "datetime-zone-offset")) {
        d->dt_ltz = true;
        d->dt_offset_ms = cdc_config_int(ctx->cfg, "datetime-zone-offset") * 1000;
    }
    d->bin_mode = (cdc_binary_mode_t)cdc_config_enum(ctx->cfg, "binary.handling.mode");
    const char *file = cdc_config_str(ctx->cfg, "file-name");
    d->file = file && *file ? cdc_xstrdup(file) : NULL;
    d->schemas = bl_schemas_new(cdc_config_str(ctx->cfg, "schema-history"));
    *out = &d->base;
    return 0;
}

static cdc_changelog_mode_t bl_decode_mode(const cdc_config_t *cfg)
{
    (void)cfg;
    return CDC_MODE_ALL;
}

const cdc_format_factory_t cdc_format_mysql_binlog = {
    .identifier = "mysql-binlog",
    .description = "MySQL/MariaDB row-based binlog (a file or a replica's event stream): "
                   "WRITE +I, UPDATE -U/+U, DELETE -D; types mapped as Flink CDC does.",
    .options = bl_options,
    .decode_mode = bl_decode_mode,
    .deser_new = bl_deser_new,
    .decode_input = CDC_INPUT_STREAM,
    .self_describing = true,
};

void cdc_mysql_binlog_seed(cdc_deser_t *deser, const char *table, const char *create_sql,
                           const char *file)
{
    bl_deser_t *d = (bl_deser_t *)deser;
    if (d->schemas)
        bl_schemas_seed(d->schemas, table, create_sql, strlen(create_sql), file);
}

void cdc_mysql_binlog_history(cdc_deser_t *deser, cdc_buf_t *out)
{
    bl_deser_t *d = (bl_deser_t *)deser;
    if (d->schemas)
        bl_schemas_dump(d->schemas, out);
}

int cdc_mysql_binlog_restore_history(cdc_deser_t *deser, const char *text, size_t len)
{
    bl_deser_t *d = (bl_deser_t *)deser;
    return d->schemas ? bl_schemas_restore(d->schemas, text, len) : -1;
}
