/*
 * pgoutput.c — the `pgoutput` format: PostgreSQL logical replication messages
 * (the built-in pgoutput plugin, protocol versions 1 and 2) to rows.
 *
 * One message per decode() call, exactly the bytes of one XLogData payload
 * (or one row of pg_logical_slot_peek_binary_changes). Relation (R) messages
 * define the tables: each becomes a ROW type whose fields are the relation's
 * columns with types mapped from the type OIDs (pg_text.c); Insert, Update
 * and Delete tuples are parsed from the text output of each type into those
 * types. Made with a row type (a table's declared schema), the columns are
 * matched to its fields by name instead, and the text is parsed into the
 * declared types.
 *
 * Decisions (also in the README):
 *  - REPLICA IDENTITY FULL: U with an O tuple gives -U (old) and +U (new),
 *    D with O gives -D of the whole old row.
 *  - DEFAULT / INDEX identity: U gives +U only (an upsert keyed by the key
 *    columns, those with flag 1 in R); when the key changed (a K tuple), the
 *    old key is retracted first with -D (key columns set, the rest NULL).
 *    D gives -D with the key columns set, the rest NULL.
 *  - The unchanged-TOAST kind 'u' gives CDC_V_UNCHANGED | CDC_V_NULL: never data.
 *  - B, C, O, Y and M (logical message) produce no rows; T (truncate) is a
 *    TRUNCATE TABLE schema change per captured relation it names.
 *  - A Relation of a relation seen before whose columns differ is a schema
 *    change (decode returns CDC_DECODE_SCHEMA; schema_changes gives them).
 *  - Streamed transactions (protocol 2: S/E, then c or A) are buffered as raw
 *    messages and decoded on c; A drops the aborted (sub)transaction as the
 *    apply worker does: from the first message of that subxact on.
 *  - Binary tuple data ('b', START_REPLICATION with binary 'true') is an error.
 *
 * For the postgres-cdc source (cdc_plugin.h): source_pos() follows the
 * transactions (Begin opens one, Commit ends it at its end LSN), and the
 * requested metadata (database_name, op_ts, source.lsn, ...) is written into
 * each row as it is built; decode_at() gives the WAL position of a message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_int.h"

typedef struct pg_col {
    char *name;
    uint32_t oid;
    int32_t typmod;
    uint32_t at; /* byte offset of its type OID in the Relation message, for errors */
    bool key;
    bool check_len;         /* a declared CHAR/VARCHAR(n) the source's type may exceed */
    int target;             /* field index in the produced row, -1 = not produced */
    const cdc_type_t *type; /* the produced field's type (NULL when not produced) */
} pg_col_t;

typedef struct pg_rel {
    uint32_t relid;
    char *qname; /* "schema.table"; rows point at it (row->origin) */
    int nsplen;  /* the schema's length in qname */
    char ident;  /* replica identity: d, n, f, i */
    int ncols;
    pg_col_t *cols;
    cdc_type_t *type; /* natural ROW type (the OIDs mapped), owned; rows' type when
                         self-describing, a schema change's before/after */
    uint8_t *raw;     /* the message after the relation OID, to recognise a repeat */
    size_t rawlen;
    bool skip; /* not the table this deserializer is for */
    struct pg_rel *next;
} pg_rel_t;

/* one buffered message of a streamed transaction */
typedef struct pg_smsg {
    uint32_t xid; /* the (sub)transaction it belongs to */
    size_t off, len;
} pg_smsg_t;

typedef struct pg_stream {
    uint32_t xid; /* top-level transaction */
    cdc_buf_t bytes;
    pg_smsg_t *msgs;
    size_t n, cap;
} pg_stream_t;

/* metadata keys a CDC source may request (ctx->metadata), the postgres-cdc source's */
enum { MD_DATABASE, MD_SCHEMA, MD_TABLE, MD_OP_TS, MD_LSN, MD_TXID, MD_SNAPSHOT, MD_COUNT };

static const char *const md_keys[MD_COUNT] = {"database_name",  "schema_name", "table_name",
                                              "op_ts",          "source.lsn",  "source.txId",
                                              "source.snapshot"};

typedef struct pg_deser {
    cdc_deser_t base;
    const cdc_type_t *row_type; /* declared schema, or NULL (self-describing) */
    cdc_type_t *row_type_owned;
    const char *only_table; /* "schema.table" or "table", or NULL */
    pg_rel_t *rels;         /* current relations */
    pg_rel_t *retired;      /* replaced relations, kept for row_type() */
    pg_stream_t *streams;
    int nstreams, cap_streams;
    uint32_t cur_stream; /* xid between S and E, 0 outside */
    bool in_stream;
    bool copy_strings;          /* decoding a buffered message: copy text into the batch arena */
    cdc_binary_mode_t bin_mode; /* bytea columns declared STRING: as this text (not BYTES) */
    /* message being decoded, for errors */
    const uint8_t *msg;
    char mtype;
    /* for a CDC source: where the input stands, and the requested metadata */
    cdc_source_pos_t spos;
    uint64_t msg_pos;  /* decode_at's position of the message; 0 = made by the caller */
    uint32_t txid;     /* of the open transaction (Begin) */
    int64_t commit_ms; /* its commit time, unix ms (Begin) */
    uint8_t *meta;     /* MD_* of each requested key, in order */
    int nmeta;
    char *database; /* ctx->database, or NULL */
    /* schema changes met by the last decode() (Relation messages that changed a relation's
       columns, Truncate), and the row index where each falls */
    cdc_schema_change_t **changes;
    uint32_t *change_at;
    int nchanges, cap_changes;
    uint64_t txn_lsn; /* the open transaction's final LSN (Begin; c of a streamed one) */
} pg_deser_t;

/* ---- reading ------------------------------------------------------------------------------- */

typedef struct pg_cur {
    const uint8_t *p, *end;
} pg_cur_t;

static int fail(pg_deser_t *d, const pg_cur_t *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(pg_deser_t *d, const pg_cur_t *c, const char *fmt, ...)
{
    cdc_buf_t *e = &d->base.errmsg;
    cdc_buf_clear(e);
    va_list ap;
    va_start(ap, fmt);
    char tmp[512];
    vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    cdc_buf_printf(e, "%s (message '%c' at byte %zu%s)", tmp,
                   d->mtype >= 0x20 && d->mtype < 0x7f ? d->mtype : '?', (size_t)(c->p - d->msg),
                   d->copy_strings ? ", in a streamed transaction" : "");
    return CDC_DECODE_ERROR;
}

static bool need(const pg_cur_t *c, size_t n)
{
    return (size_t)(c->end - c->p) >= n;
}

static uint8_t u8(pg_cur_t *c)
{
    return *c->p++;
}

static uint16_t u16(pg_cur_t *c)
{
    uint16_t v = (uint16_t)((c->p[0] << 8) | c->p[1]);
    c->p += 2;
    return v;
}

static uint32_t u32(pg_cur_t *c)
{
    uint32_t v =
        ((uint32_t)c->p[0] << 24) | ((uint32_t)c->p[1] << 16) | ((uint32_t)c->p[2] << 8) | c->p[3];
    c->p += 4;
    return v;
}

/* Skips n fixed bytes; -1 when the message is too short. */
static int skip(pg_deser_t *d, pg_cur_t *c, size_t n, const char *what)
{
    if (!need(c, n))
        return fail(d, c, "message ends inside %s", what);
    c->p += n;
    return 0;
}

static int rd_u32(pg_deser_t *d, pg_cur_t *c, uint32_t *v, const char *what)
{
    *v = 0; /* defined on failure too */
    if (!need(c, 4))
        return fail(d, c, "message ends inside %s", what);
    *v = u32(c);
    return 0;
}

/* A NUL-terminated string; *s points into the message. */
static int rd_str(pg_deser_t *d, pg_cur_t *c, const char **s, size_t *len, const char *what)
{
    const uint8_t *z = memchr(c->p, 0, (size_t)(c->end - c->p));
    *s = NULL;
    *len = 0;
    if (!z)
        return fail(d, c, "%s is not NUL-terminated", what);
    *s = (const char *)c->p;
    *len = (size_t)(z - c->p);
    c->p = z + 1;
    return 0;
}

/* ---- relations ------------------------------------------------------------------------------ */

static void rel_free(pg_rel_t *r)
{
    for (int i = 0; i < r->ncols; i++)
        free(r->cols[i].name);
    free(r->cols);
    free(r->qname);
    free(r->raw);
    cdc_type_destroy(r->type);
    free(r);
}

static pg_rel_t *rel_find(pg_deser_t *d, uint32_t relid)
{
    for (pg_rel_t *r = d->rels; r; r = r->next)
        if (r->relid == relid)
            return r;
    return NULL;
}

static bool table_matches(const char *only, const char *qname)
{
    if (strcmp(only, qname) == 0)
        return true;
    const char *dot = strchr(qname, '.');
    return !strchr(only, '.') && dot && strcmp(only, dot + 1) == 0;
}

/* Maps the relation's columns to produced fields (natural type or declared schema). */
static int rel_bind(pg_deser_t *d, pg_cur_t *c, pg_rel_t *r)
{
    r->type = cdc_type_new_row();
    for (int i = 0; i < r->ncols; i++)
        cdc_type_row_add(r->type, r->cols[i].name,
                         pg_type_for_oid(r->cols[i].oid, r->cols[i].typmod));
    if (!d->row_type) {
        for (int i = 0; i < r->ncols; i++) {
            r->cols[i].target = i;
            r->cols[i].type = r->type->children[i];
        }
        return 0;
    }
    r->skip = d->only_table && !table_matches(d->only_table, r->qname);
    for (int i = 0; i < r->ncols; i++) {
        int f = cdc_type_field_index(d->row_type, r->cols[i].name);
        r->cols[i].target = f;
        r->cols[i].type = f >= 0 ? d->row_type->children[f] : NULL;
        const cdc_type_t *t = r->cols[i].type, *nat = r->type->children[i];
        r->cols[i].check_len =
            t && (t->root == CDC_T_VARCHAR || t->root == CDC_T_CHAR) &&
            t->length < CDC_MAX_LENGTH &&
            !((nat->root == CDC_T_VARCHAR || nat->root == CDC_T_CHAR) && nat->length <= t->length);
        if (f >= 0 && !r->skip && !pg_type_compatible(r->cols[i].oid, r->cols[i].type)) {
            pg_cur_t at = {.p = d->msg + r->cols[i].at, .end = c->end};
            return fail(d, &at,
                        "column \"%s\" of \"%s\" has type OID %u, which cannot be read as %s",
                        r->cols[i].name, r->qname, r->cols[i].oid,
                        cdc_type_root_name(r->cols[i].type->root));
        }
    }
    return 0;
}

/* ---- schema changes ------------------------------------------------------------------------- */

/* "LSN X/Y": the message's WAL position (decode_at), else the open transaction's final LSN. */
static char *change_position(const pg_deser_t *d)
{
    uint64_t lsn = d->msg_pos > 1 ? d->msg_pos : d->txn_lsn;
    return cdc_strdup_printf("LSN %X/%X", (unsigned)(lsn >> 32), (unsigned)lsn);
}

/* Notes a change met by this decode(), falling before the rows from out->n on (takes it). */
static void change_note(pg_deser_t *d, cdc_schema_change_t *change, const cdc_batch_t *out)
{
    if (d->nchanges == d->cap_changes) {
        d->cap_changes = d->cap_changes ? d->cap_changes * 2 : 4;
        d->changes = cdc_xrealloc(d->changes, (size_t)d->cap_changes * sizeof(*d->changes));
        d->change_at = cdc_xrealloc(d->change_at, (size_t)d->cap_changes * sizeof(uint32_t));
    }
    d->changes[d->nchanges] = change;
    d->change_at[d->nchanges++] = out->n;
}

static void changes_clear(pg_deser_t *d)
{
    for (int i = 0; i < d->nchanges; i++)
        cdc_schema_change_free(d->changes[i]);
    d->nchanges = 0;
}

static int col_index(const pg_rel_t *r, const char *name)
{
    for (int i = 0; i < r->ncols; i++)
        if (strcmp(r->cols[i].name, name) == 0)
            return i;
    return -1;
}

/*
 * A Relation message replaced old by r: the change of its columns, or nothing
 * when they are the same (names, type OIDs and typmods; the replica identity
 * and key flags are no schema change). pgoutput sends no DDL: a column whose
 * name is gone, at a position where a new name has the same type, is taken as
 * renamed; any other pair is a drop and an add. pgoutput has no nullability:
 * every column is nullable on both sides.
 */
static void relation_changed(pg_deser_t *d, const pg_rel_t *old, const pg_rel_t *r,
                             const cdc_batch_t *out)
{
    bool same = old->ncols == r->ncols;
    for (int i = 0; same && i < r->ncols; i++)
        same = strcmp(old->cols[i].name, r->cols[i].name) == 0 &&
               old->cols[i].oid == r->cols[i].oid && old->cols[i].typmod == r->cols[i].typmod;
    if (same)
        return;
    char *pos = change_position(d);
    cdc_schema_change_t *change = cdc_schema_change_new(r->qname, pos, NULL);
    free(pos);
    cdc_schema_change_set_columns(change, old->type, r->type);
    const char **renames = cdc_xcalloc((size_t)r->ncols * 2 + 1, sizeof(char *));
    int nren = 0;
    for (int i = 0; i < r->ncols && i < old->ncols; i++) {
        const pg_col_t *o = &old->cols[i], *n = &r->cols[i];
        if (col_index(r, o->name) < 0 && col_index(old, n->name) < 0 && o->oid == n->oid &&
            o->typmod == n->typmod) {
            renames[nren++] = o->name;
            renames[nren++] = n->name;
        }
    }
    cdc_schema_change_diff(change, nren ? renames : NULL, NULL);
    free(renames);
    if (change->nitems == 0) { /* only a typmod the mapped types do not show */
        cdc_schema_change_free(change);
        return;
    }
    change_note(d, change, out);
}

/* The relation that r replaces: the same OID, else the same name (a table made again). */
static pg_rel_t *rel_prior(pg_deser_t *d, const pg_rel_t *r)
{
    pg_rel_t *old = rel_find(d, r->relid);
    for (pg_rel_t *x = d->rels; x && !old; x = x->next)
        if (strcmp(x->qname, r->qname) == 0)
            old = x;
    return old;
}

static int on_relation(pg_deser_t *d, pg_cur_t *c, const cdc_batch_t *out)
{
    uint32_t relid = 0;
    const char *nsp = NULL, *name = NULL;
    size_t nsplen = 0, namelen = 0;
    if (rd_u32(d, c, &relid, "the relation OID") < 0)
        return CDC_DECODE_ERROR;
    const uint8_t *raw = c->p;
    size_t rawlen = (size_t)(c->end - c->p);
    pg_rel_t *same = rel_find(d, relid);
    if (same && same->rawlen == rawlen && memcmp(same->raw, raw, rawlen) == 0)
        return CDC_DECODE_OK; /* the same relation again: keep it (no copy per repeat) */
    if (rd_str(d, c, &nsp, &nsplen, "the namespace") < 0 ||
        rd_str(d, c, &name, &namelen, "the relation name") < 0)
        return CDC_DECODE_ERROR;
    if (!need(c, 3))
        return fail(d, c, "message ends inside the relation header");
    char ident = (char)u8(c);
    int ncols = u16(c);
    pg_rel_t *r = cdc_xcalloc(1, sizeof(*r));
    r->relid = relid;
    r->ident = ident;
    r->qname = cdc_strdup_printf("%.*s.%.*s", nsplen ? (int)nsplen : 10,
                                 nsplen ? nsp : "pg_catalog", (int)namelen, name);
    r->nsplen = nsplen ? (int)nsplen : 10;
    r->cols = cdc_xcalloc(ncols ? (size_t)ncols : 1, sizeof(pg_col_t));
    for (int i = 0; i < ncols; i++) {
        const char *cn = NULL;
        size_t cnlen = 0;
        if (!need(c, 1)) {
            fail(d, c, "message ends before column %d of %d", i + 1, ncols);
            goto bad;
        }
        r->cols[i].key = (u8(c) & 1) != 0;
        if (rd_str(d, c, &cn, &cnlen, "a column name") < 0)
            goto bad;
        r->cols[i].name = cdc_xstrndup(cn, cnlen);
        r->ncols = i + 1;
        if (!need(c, 8)) {
            fail(d, c, "message ends inside the type of column \"%s\"", r->cols[i].name);
            goto bad;
        }
        r->cols[i].at = (uint32_t)(c->p - d->msg);
        r->cols[i].oid = u32(c);
        r->cols[i].typmod = (int32_t)u32(c);
    }
    if (c->p != c->end) {
        fail(d, c, "%zu unexpected bytes after the last column", (size_t)(c->end - c->p));
        goto bad;
    }
    if (rel_bind(d, c, r) < 0)
        goto bad;
    r->raw = cdc_xmalloc(rawlen ? rawlen : 1);
    memcpy(r->raw, raw, rawlen);
    r->rawlen = rawlen;
    pg_rel_t *prior = rel_prior(d, r);
    if (prior && !r->skip)
        relation_changed(d, prior, r, out);
    /* replace: the old one moves to the retired list (rows may still use its type) */
    for (pg_rel_t **pp = &d->rels; *pp; pp = &(*pp)->next) {
        if (*pp == prior) {
            pg_rel_t *old = *pp;
            *pp = old->next;
            old->next = d->retired;
            d->retired = old;
            break;
        }
    }
    r->next = d->rels;
    d->rels = r;
    return CDC_DECODE_OK;
bad:
    rel_free(r);
    return CDC_DECODE_ERROR;
}

/* ---- tuples ---------------------------------------------------------------------------------
 */

static uint32_t out_arity(pg_deser_t *d, const pg_rel_t *r)
{
    return d->row_type ? (uint32_t)d->row_type->nchildren : (uint32_t)r->ncols;
}

static void meta_str(cdc_value_t *v, const char *p, size_t n)
{
    v->v.s.ptr = p;
    v->v.s.len = (uint32_t)n;
}

/* The requested metadata of a row of relation r into vals (strings point at r and d). */
static void meta_fill(const pg_deser_t *d, const pg_rel_t *r, cdc_value_t *vals)
{
    uint64_t pos = d->msg_pos;
    for (int i = 0; i < d->nmeta; i++) {
        cdc_value_t *v = &vals[i];
        v->flags = 0;
        switch (d->meta[i]) {
        case MD_DATABASE:
            if (d->database)
                meta_str(v, d->database, strlen(d->database));
            else
                v->flags = CDC_V_NULL;
            break;
        case MD_SCHEMA:
            meta_str(v, r->qname, (size_t)r->nsplen);
            break;
        case MD_TABLE:
            meta_str(v, r->qname + r->nsplen + 1, strlen(r->qname + r->nsplen + 1));
            break;
        case MD_OP_TS:
            v->v.ts = (cdc_ts_t){.millis = pos ? d->commit_ms : 0};
            break;
        case MD_LSN:
            if (pos)
                v->v.i = (int64_t)pos;
            else
                v->flags = CDC_V_NULL;
            break;
        case MD_TXID:
            if (pos)
                v->v.i = d->txid;
            else
                v->flags = CDC_V_NULL;
            break;
        default: /* MD_SNAPSHOT */
            v->v.b = pos == 0;
            break;
        }
    }
}

/* The characters of UTF-8 text (its bytes but the continuation bytes). */
static size_t utf8_chars(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((uint8_t)s[i] & 0xC0) != 0x80;
    return n;
}

/*
 * A value that does not parse into its field. When the source's type is no
 * longer the declared one (a widened column: INT -> BIGINT, VARCHAR(10) ->
 * TEXT), values are checked one by one and the error says what to declare.
 */
static int value_error(pg_deser_t *d, const pg_cur_t *c, const pg_rel_t *r, int i, const char *why,
                       const char *text, uint32_t len)
{
    const cdc_type_t *now = r->type->children[i];
    int show = (int)(len > 60 ? 60 : len);
    if (!d->row_type || cdc_type_equals(now, r->cols[i].type))
        return fail(d, c, "column \"%s\" of \"%s\": %s: \"%.*s\"", r->cols[i].name, r->qname, why,
                    show, text);
    char *src = cdc_type_to_string(now), *decl = cdc_type_to_string(r->cols[i].type);
    fail(d, c,
         "column \"%s\" of \"%s\": value \"%.*s\" does not fit the declared %s (%s); the "
         "source column is now %s: declare it %s, or let schema.change.behavior evolve or "
         "lenient widen it",
         r->cols[i].name, r->qname, show, text, decl, why, src, src);
    free(src);
    free(decl);
    return CDC_DECODE_ERROR;
}

/*
 * Reads a TupleData into a new row of the given kind. key_only keeps only the
 * key columns (a K tuple: the others are 'n' anyway).
 */
static int read_tuple(pg_deser_t *d, pg_cur_t *c, pg_rel_t *r, cdc_kind_t kind, cdc_batch_t *out)
{
    if (!need(c, 2))
        return fail(d, c, "message ends before the tuple's column count");
    int n = u16(c);
    if (n != r->ncols)
        return fail(d, c, "tuple has %d columns, relation \"%s\" has %d", n, r->qname, r->ncols);
    cdc_row_t *row =
        r->skip ? NULL : cdc_batch_add(out, kind, out_arity(d, r) + (uint32_t)d->nmeta);
    if (row) {
        row->origin = r->qname;
        if (d->nmeta)
            meta_fill(d, r, row->values + out_arity(d, r));
    }
    for (int i = 0; i < n; i++) {
        if (!need(c, 1))
            return fail(d, c, "message ends before column \"%s\"", r->cols[i].name);
        char k = (char)u8(c);
        cdc_value_t *v = row && r->cols[i].target >= 0 ? &row->values[r->cols[i].target] : NULL;
        switch (k) {
        case 'n':
            break;
        case 'u':
            if (v)
                v->flags = CDC_V_NULL | CDC_V_UNCHANGED;
            break;
        case 't': {
            uint32_t len;
            if (rd_u32(d, c, &len, "a value length") < 0)
                return CDC_DECODE_ERROR;
            if (!need(c, len))
                return fail(d, c, "value of column \"%s\" is %u bytes, the message has %zu left",
                            r->cols[i].name, len, (size_t)(c->end - c->p));
            const char *text = (const char *)c->p;
            if (v) {
                if (d->copy_strings)
                    text = cdc_arena_memdup(&out->arena, text, len);
                const char *why =
                    d->bin_mode != CDC_BINARY_BYTES && r->cols[i].oid == PG_OID_BYTEA
                        ? pg_bytea_text(text, len, r->cols[i].type, d->bin_mode, &out->arena, v)
                        : pg_text_parse(r->cols[i].oid, text, len, r->cols[i].type, &out->arena, v);
                if (!why && r->cols[i].check_len &&
                    utf8_chars(text, len) > (size_t)r->cols[i].type->length)
                    why = "longer than the declared length";
                if (why)
                    return value_error(d, c, r, i, why, text, len);
            }
            c->p += len;
            break;
        }
        case 'b':
            return fail(d, c,
                        "column \"%s\" is in binary format; start replication without "
                        "binary 'true'",
                        r->cols[i].name);
        default:
            return fail(d, c, "unknown tuple column kind 0x%02x for column \"%s\"", (uint8_t)k,
                        r->cols[i].name);
        }
    }
    return 0;
}

static int change_rel(pg_deser_t *d, pg_cur_t *c, pg_rel_t **r)
{
    uint32_t relid;
    if (d->in_stream && skip(d, c, 4, "the transaction id") < 0)
        return CDC_DECODE_ERROR;
    if (rd_u32(d, c, &relid, "the relation OID") < 0)
        return CDC_DECODE_ERROR;
    *r = rel_find(d, relid);
    if (!*r)
        return fail(d, c, "no Relation message seen for relation OID %u", relid);
    return 0;
}

static int tuple_tag(pg_deser_t *d, pg_cur_t *c, char *tag)
{
    if (!need(c, 1))
        return fail(d, c, "message ends before the tuple tag");
    *tag = (char)u8(c);
    return 0;
}

static int on_insert(pg_deser_t *d, pg_cur_t *c, cdc_batch_t *out)
{
    pg_rel_t *r;
    char tag = 0;
    if (change_rel(d, c, &r) < 0 || tuple_tag(d, c, &tag) < 0)
        return CDC_DECODE_ERROR;
    if (tag != 'N')
        return fail(d, c, "expected tuple tag 'N', found 0x%02x", (uint8_t)tag);
    return read_tuple(d, c, r, CDC_INSERT, out);
}

static int on_update(pg_deser_t *d, pg_cur_t *c, cdc_batch_t *out)
{
    pg_rel_t *r;
    char tag = 0;
    if (change_rel(d, c, &r) < 0 || tuple_tag(d, c, &tag) < 0)
        return CDC_DECODE_ERROR;
    if (tag == 'K' || tag == 'O') {
        /* O: the whole old row (FULL) -> -U; K: the old key changed -> retract it with -D */
        if (read_tuple(d, c, r, tag == 'O' ? CDC_UPDATE_BEFORE : CDC_DELETE, out) < 0 ||
            tuple_tag(d, c, &tag) < 0)
            return CDC_DECODE_ERROR;
    }
    if (tag != 'N')
        return fail(d, c, "expected tuple tag 'N', found 0x%02x", (uint8_t)tag);
    return read_tuple(d, c, r, CDC_UPDATE_AFTER, out);
}

static int on_delete(pg_deser_t *d, pg_cur_t *c, cdc_batch_t *out)
{
    pg_rel_t *r;
    char tag = 0;
    if (change_rel(d, c, &r) < 0 || tuple_tag(d, c, &tag) < 0)
        return CDC_DECODE_ERROR;
    if (tag != 'K' && tag != 'O')
        return fail(d, c, "expected tuple tag 'K' or 'O', found 0x%02x", (uint8_t)tag);
    return read_tuple(d, c, r, CDC_DELETE, out);
}

/* ---- messages without rows (checked for shape) ----------------------------------------------
 */

static int expect_end(pg_deser_t *d, pg_cur_t *c)
{
    if (c->p != c->end)
        return fail(d, c, "%zu unexpected bytes at the end", (size_t)(c->end - c->p));
    return CDC_DECODE_OK;
}

static int on_type(pg_deser_t *d, pg_cur_t *c)
{
    const char *s;
    size_t n;
    if ((d->in_stream && skip(d, c, 4, "the transaction id") < 0) ||
        skip(d, c, 4, "the type OID") < 0 || rd_str(d, c, &s, &n, "the namespace") < 0 ||
        rd_str(d, c, &s, &n, "the type name") < 0)
        return CDC_DECODE_ERROR;
    return expect_end(d, c);
}

/* A Truncate: a TRUNCATE TABLE change per captured relation it names, in its order. */
static int on_truncate(pg_deser_t *d, pg_cur_t *c, const cdc_batch_t *out)
{
    uint32_t n;
    if ((d->in_stream && skip(d, c, 4, "the transaction id") < 0) ||
        rd_u32(d, c, &n, "the relation count") < 0 || skip(d, c, 1, "the options") < 0)
        return CDC_DECODE_ERROR;
    if ((size_t)(c->end - c->p) / 4 < n)
        return fail(d, c, "%u relations announced, room for %zu", n, (size_t)(c->end - c->p) / 4);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t relid = u32(c);
        const pg_rel_t *r = rel_find(d, relid);
        if (!r) {
            c->p -= 4;
            return fail(d, c, "truncate of relation OID %u, for which no Relation message was seen",
                        relid);
        }
        if (r->skip)
            continue;
        char *pos = change_position(d);
        cdc_schema_change_t *change = cdc_schema_change_new(r->qname, pos, NULL);
        free(pos);
        cdc_schema_change_set_columns(change, r->type, r->type);
        cdc_schema_change_add(change, CDC_SC_TRUNCATE_TABLE, NULL, NULL, NULL, NULL, NULL);
        change_note(d, change, out);
    }
    return expect_end(d, c);
}

static int on_message(pg_deser_t *d, pg_cur_t *c)
{
    const char *s;
    size_t n;
    uint32_t len;
    if ((d->in_stream && skip(d, c, 4, "the transaction id") < 0) ||
        skip(d, c, 9, "the flags and LSN") < 0 || rd_str(d, c, &s, &n, "the prefix") < 0 ||
        rd_u32(d, c, &len, "the content length") < 0)
        return CDC_DECODE_ERROR;
    if (!need(c, len))
        return fail(d, c, "content is %u bytes, the message has %zu left", len,
                    (size_t)(c->end - c->p));
    c->p += len;
    return expect_end(d, c);
}

static int on_origin(pg_deser_t *d, pg_cur_t *c)
{
    const char *s;
    size_t n;
    if (skip(d, c, 8, "the origin LSN") < 0 || rd_str(d, c, &s, &n, "the origin name") < 0)
        return CDC_DECODE_ERROR;
    return expect_end(d, c);
}

/* ---- streamed transactions ------------------------------------------------------------------
 */

static pg_stream_t *stream_get(pg_deser_t *d, uint32_t xid, bool create)
{
    for (int i = 0; i < d->nstreams; i++)
        if (d->streams[i].xid == xid)
            return &d->streams[i];
    if (!create)
        return NULL;
    if (d->nstreams == d->cap_streams) {
        d->cap_streams = d->cap_streams ? d->cap_streams * 2 : 4;
        d->streams = cdc_xrealloc(d->streams, (size_t)d->cap_streams * sizeof(*d->streams));
    }
    pg_stream_t *s = &d->streams[d->nstreams++];
    memset(s, 0, sizeof(*s));
    s->xid = xid;
    return s;
}

static void stream_drop(pg_deser_t *d, pg_stream_t *s)
{
    cdc_buf_free(&s->bytes);
    free(s->msgs);
    *s = d->streams[--d->nstreams];
}

static void stream_add(pg_stream_t *s, uint32_t xid, const uint8_t *msg, size_t len)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->msgs = cdc_xrealloc(s->msgs, s->cap * sizeof(*s->msgs));
    }
    s->msgs[s->n++] = (pg_smsg_t){.xid = xid, .off = s->bytes.len, .len = len};
    cdc_buf_append(&s->bytes, msg, len);
}

static int decode_one(pg_deser_t *d, const uint8_t *msg, size_t len, cdc_batch_t *out);

static int on_stream_commit(pg_deser_t *d, pg_cur_t *c, cdc_batch_t *out)
{
    uint32_t xid;
    if (rd_u32(d, c, &xid, "the transaction id") < 0 ||
        skip(d, c, 25, "the flags, LSNs and timestamp") < 0 || expect_end(d, c) < 0)
        return CDC_DECODE_ERROR;
    pg_stream_t *s = stream_get(d, xid, false);
    if (!s)
        return CDC_DECODE_OK; /* a streamed transaction without changes */
    c->p -= 24;               /* its commit LSN, the position of the changes met in it */
    d->txn_lsn = (uint64_t)u32(c) << 32;
    d->txn_lsn |= u32(c);
    c->p += 16;
    /* the buffer may move while replaying nothing else; decode from it in place */
    int rc = CDC_DECODE_OK;
    d->copy_strings = true;
    d->in_stream = true;
    for (size_t i = 0; i < s->n && rc == CDC_DECODE_OK; i++)
        rc = decode_one(d, (const uint8_t *)s->bytes.data + s->msgs[i].off, s->msgs[i].len, out);
    d->in_stream = false;
    d->copy_strings = false;
    stream_drop(d, s);
    return rc;
}

static int on_stream_abort(pg_deser_t *d, pg_cur_t *c)
{
    uint32_t xid, subxid;
    if (rd_u32(d, c, &xid, "the transaction id") < 0 ||
        rd_u32(d, c, &subxid, "the subtransaction id") < 0)
        return CDC_DECODE_ERROR;
    /* protocol 4 adds the abort LSN and timestamp */
    if (c->p != c->end && skip(d, c, 16, "the abort LSN and timestamp") < 0)
        return CDC_DECODE_ERROR;
    if (expect_end(d, c) < 0)
        return CDC_DECODE_ERROR;
    pg_stream_t *s = stream_get(d, xid, false);
    if (!s)
        return CDC_DECODE_OK;
    if (subxid == xid) {
        stream_drop(d, s);
        return CDC_DECODE_OK;
    }
    for (size_t i = 0; i < s->n; i++) {
        if (s->msgs[i].xid == subxid) {
            s->bytes.len = s->msgs[i].off;
            s->n = i;
            break;
        }
    }
    return CDC_DECODE_OK;
}

/* ---- dispatch -------------------------------------------------------------------------------
 */

static int decode_one(pg_deser_t *d, const uint8_t *msg, size_t len, cdc_batch_t *out)
{
    static const uint8_t none[1];
    if (!msg)
        msg = none, len = 0;
    pg_cur_t c = {.p = msg, .end = msg + len};
    const uint8_t *saved_msg = d->msg;
    char saved_type = d->mtype;
    d->msg = msg;
    d->mtype = len ? (char)msg[0] : '?';
    int rc;
    if (len == 0) {
        rc = fail(d, &c, "empty message");
        goto done;
    }
    char type = (char)u8(&c);
    /* inside S..E every message but the stream control ones is buffered until c/A */
    if (d->in_stream && !d->copy_strings && type != 'S' && type != 'E' && type != 'c' &&
        type != 'A') {
        uint32_t xid = 0;
        if (rd_u32(d, &c, &xid, "the transaction id") < 0) {
            rc = CDC_DECODE_ERROR;
            goto done;
        }
        stream_add(stream_get(d, d->cur_stream, true), xid, msg, len);
        rc = CDC_DECODE_OK;
        goto done;
    }
    switch (type) {
    case 'B': /* final LSN, commit time (us since 2000-01-01), xid */
        rc = skip(d, &c, 20, "the begin fields") < 0 ? CDC_DECODE_ERROR : expect_end(d, &c);
        if (rc == CDC_DECODE_OK) {
            c.p = msg + 1;
            d->txn_lsn = (uint64_t)u32(&c) << 32;
            d->txn_lsn |= u32(&c);
            uint64_t us = (uint64_t)u32(&c) << 32;
            us |= u32(&c);
            d->commit_ms = (int64_t)us / 1000 + 946684800000LL;
            d->txid = u32(&c);
            d->spos.ts_ms = d->commit_ms;
            d->spos.in_txn = true;
        }
        break;
    case 'C': /* flags, commit LSN, end LSN, commit time */
        rc = skip(d, &c, 25, "the commit fields") < 0 ? CDC_DECODE_ERROR : expect_end(d, &c);
        if (rc == CDC_DECODE_OK) {
            c.p = msg + 10;
            d->spos.pos = (uint64_t)u32(&c) << 32;
            d->spos.pos |= u32(&c);
            d->spos.in_txn = false;
            d->spos.txn_end = true;
        }
        break;
    case 'O':
        rc = on_origin(d, &c);
        break;
    case 'R':
        if (d->in_stream && skip(d, &c, 4, "the transaction id") < 0) {
            rc = CDC_DECODE_ERROR;
            break;
        }
        rc = on_relation(d, &c, out);
        break;
    case 'Y':
        rc = on_type(d, &c);
        break;
    case 'I':
        rc = on_insert(d, &c, out);
        break;
    case 'U':
        rc = on_update(d, &c, out);
        break;
    case 'D':
        rc = on_delete(d, &c, out);
        break;
    case 'T':
        rc = on_truncate(d, &c, out);
        break;
    case 'M':
        rc = on_message(d, &c);
        break;
    case 'S': {
        uint32_t xid;
        if (d->in_stream) {
            rc = fail(d, &c, "stream start inside a stream (no stream stop before it)");
            break;
        }
        if (rd_u32(d, &c, &xid, "the transaction id") < 0 ||
            skip(d, &c, 1, "the first-segment flag") < 0 || expect_end(d, &c) < 0) {
            rc = CDC_DECODE_ERROR;
            break;
        }
        d->in_stream = true;
        d->cur_stream = xid;
        rc = CDC_DECODE_OK;
        break;
    }
    case 'E':
        if (!d->in_stream) {
            rc = fail(d, &c, "stream stop outside a stream");
            break;
        }
        d->in_stream = false;
        rc = expect_end(d, &c);
        break;
    case 'c':
        rc = on_stream_commit(d, &c, out);
        break;
    case 'A':
        rc = on_stream_abort(d, &c);
        break;
    default:
        c.p--;
        rc = fail(d, &c, "unknown message type 0x%02x", (uint8_t)type);
        break;
    }
done:
    d->msg = saved_msg;
    d->mtype = saved_type;
    return rc;
}

static int pg_decode_at(cdc_deser_t *base, const char *msg, size_t len, uint64_t pos,
                        cdc_batch_t *out)
{
    pg_deser_t *d = (pg_deser_t *)base;
    d->msg_pos = pos;
    d->spos.txn_end = false;
    changes_clear(d);
    uint32_t before = out->n;
    int rc = decode_one(d, (const uint8_t *)msg, msg ? len : 0, out);
    if (rc != CDC_DECODE_OK) {
        cdc_batch_truncate(out, out->n - before);
        changes_clear(d);
        return rc;
    }
    return d->nchanges ? CDC_DECODE_SCHEMA : CDC_DECODE_OK;
}

static int pg_decode(cdc_deser_t *base, const char *msg, size_t len, cdc_batch_t *out)
{
    return pg_decode_at(base, msg, len, 0, out);
}

static const cdc_source_pos_t *pg_source_pos(cdc_deser_t *base)
{
    return &((pg_deser_t *)base)->spos;
}

static const cdc_type_t *pg_row_type(cdc_deser_t *base, const cdc_row_t *row)
{
    pg_deser_t *d = (pg_deser_t *)base;
    if (d->row_type)
        return d->row_type;
    for (pg_rel_t *r = d->rels; r; r = r->next)
        if (r->qname == row->origin)
            return r->type;
    for (pg_rel_t *r = d->retired; r; r = r->next)
        if (r->qname == row->origin)
            return r->type;
    return NULL;
}

static int pg_schema_changes(cdc_deser_t *base, const cdc_schema_change_t *const **changes,
                             const uint32_t **at)
{
    pg_deser_t *d = (pg_deser_t *)base;
    *changes = (const cdc_schema_change_t *const *)d->changes;
    *at = d->change_at;
    return d->nchanges;
}

static void pg_destroy(cdc_deser_t *base)
{
    pg_deser_t *d = (pg_deser_t *)base;
    if (!d)
        return;
    changes_clear(d);
    free(d->changes);
    free(d->change_at);
    for (pg_rel_t *lists[2] = {d->rels, d->retired}, **l = lists; l < lists + 2; l++) {
        while (*l) {
            pg_rel_t *n = (*l)->next;
            rel_free(*l);
            *l = n;
        }
    }
    while (d->nstreams)
        stream_drop(d, &d->streams[0]);
    free(d->streams);
    free(d->meta);
    free(d->database);
    cdc_type_destroy(d->row_type_owned);
    cdc_buf_free(&d->base.errmsg);
    free(d);
}

static const cdc_deser_ops_t pg_deser_ops = {
    .decode = pg_decode,
    .destroy = pg_destroy,
    .row_type = pg_row_type,
    .source_pos = pg_source_pos,
    .decode_at = pg_decode_at,
    .schema_changes = pg_schema_changes,
};

/* ---- factory --------------------------------------------------------------------------------
 */

static const cdc_option_def_t pg_options[] = {
    {.key = "table-name",
     .type = CDC_OPT_STRING,
     .description = "With a declared schema: produce rows only for this relation, \"schema.table\" "
                    "or \"table\" (any schema). Without it, the rows of every relation are matched "
                    "to the declared columns by name. Ignored when the format describes its own "
                    "tables (`cdcflow decode` without --schema)."},
    {.key = "binary.handling.mode",
     .type = CDC_OPT_ENUM,
     .default_value = "bytes",
     .enum_values = cdc_binary_modes,
     .description = "(Debezium's binary.handling.mode; the postgres-cdc source sets it from "
                    "'debezium.binary.handling.mode') bytea columns declared STRING as 'base64', "
                    "'base64-url-safe' or 'hex' text of their bytes; 'bytes': PostgreSQL's own "
                    "text form ('\\x0102')."},
    {0},
};

static int pg_deser_new(const cdc_format_ctx_t *ctx, cdc_deser_t **out, cdc_error_t **err)
{
    pg_deser_t *d = cdc_xcalloc(1, sizeof(*d));
    d->base.ops = &pg_deser_ops;
    d->database = ctx->database ? cdc_xstrdup(ctx->database) : NULL;
    d->spos.gtid = ""; /* PostgreSQL has none */
    d->nmeta = ctx->nmetadata > 0 ? ctx->nmetadata : 0;
    d->meta = cdc_xcalloc((size_t)d->nmeta + 1, 1);
    if (cdc_format_metadata_ids(ctx, "pgoutput", md_keys, MD_COUNT, d->meta, err) < 0) {
        pg_destroy(&d->base);
        return -1;
    }
    if (ctx->row_type) {
        d->row_type_owned = cdc_type_copy(ctx->row_type);
        d->row_type = d->row_type_owned;
    }
    const char *only = cdc_config_str(ctx->cfg, "table-name");
    d->only_table = only && *only ? only : NULL;
    d->bin_mode = (cdc_binary_mode_t)cdc_config_enum(ctx->cfg, "binary.handling.mode");
    *out = &d->base;
    return 0;
}

static cdc_changelog_mode_t pg_decode_mode(const cdc_config_t *cfg)
{
    (void)cfg;
    return CDC_MODE_ALL;
}

const cdc_format_factory_t cdc_format_pgoutput = {
    .identifier = "pgoutput",
    .description = "PostgreSQL logical replication (pgoutput, protocol 1 and 2): REPLICA IDENTITY "
                   "FULL gives -U/+U, DEFAULT gives upserts keyed by the key columns.",
    .options = pg_options,
    .decode_mode = pg_decode_mode,
    .deser_new = pg_deser_new,
    .decode_input = CDC_INPUT_HEX_LINES,
    .self_describing = true,
};
