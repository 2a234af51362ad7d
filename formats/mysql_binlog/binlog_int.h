/*
 * binlog_int.h — private to the mysql-binlog format: a TABLE_MAP's columns,
 * the Flink type each maps to, and the decoding of one column value of a row
 * image (formats/mysql_binlog/binlog_value.c, binlog_json.c).
 */
#ifndef BINLOG_INT_H
#define BINLOG_INT_H

#include "cdc_plugin.h"

/* event type codes (Log_event_type; MariaDB's from 160) */
enum {
    EV_QUERY = 2,
    EV_STOP = 3,
    EV_ROTATE = 4,
    EV_INTVAR = 5,
    EV_FORMAT_DESCRIPTION = 15,
    EV_XID = 16,
    EV_TABLE_MAP = 19,
    EV_WRITE_ROWS_V1 = 23,
    EV_UPDATE_ROWS_V1 = 24,
    EV_DELETE_ROWS_V1 = 25,
    EV_HEARTBEAT = 27,
    EV_WRITE_ROWS = 30,
    EV_UPDATE_ROWS = 31,
    EV_DELETE_ROWS = 32,
    EV_GTID = 33,
    EV_ANONYMOUS_GTID = 34,
    EV_PARTIAL_UPDATE_ROWS = 39,
    EV_TRANSACTION_PAYLOAD = 40,
    EV_MARIA_GTID = 162,
    EV_MARIA_GTID_LIST = 163,
    EV_QUERY_COMPRESSED = 165,
};

/* column type codes (MySQL enum_field_types) */
enum {
    MT_DECIMAL = 0,
    MT_TINY = 1,
    MT_SHORT = 2,
    MT_LONG = 3,
    MT_FLOAT = 4,
    MT_DOUBLE = 5,
    MT_NULL = 6,
    MT_TIMESTAMP = 7,
    MT_LONGLONG = 8,
    MT_INT24 = 9,
    MT_DATE = 10,
    MT_TIME = 11,
    MT_DATETIME = 12,
    MT_YEAR = 13,
    MT_NEWDATE = 14,
    MT_VARCHAR = 15,
    MT_BIT = 16,
    MT_TIMESTAMP2 = 17,
    MT_DATETIME2 = 18,
    MT_TIME2 = 19,
    MT_JSON = 245,
    MT_NEWDECIMAL = 246,
    MT_ENUM = 247,
    MT_SET = 248,
    MT_TINY_BLOB = 249,
    MT_MEDIUM_BLOB = 250,
    MT_LONG_BLOB = 251,
    MT_BLOB = 252,
    MT_VAR_STRING = 253,
    MT_STRING = 254,
    MT_GEOMETRY = 255
};

typedef struct bl_col {
    uint8_t type;     /* binlog type; STRING columns carry their real type (ENUM, SET) */
    uint16_t meta;    /* per-type: max length, fsp, length-prefix size, (precision<<8)|scale */
    uint32_t max_len; /* STRING/VARCHAR: bytes */
    bool is_unsigned; /* from optional metadata SIGNEDNESS */
    bool nullable;
    int charset;   /* collation id, -1 unknown */
    char *name;    /* NULL without optional metadata COLUMN_NAME */
    char **labels; /* ENUM/SET labels (optional metadata), NULL when absent */
    int nlabels;
    uint8_t fast;          /* BL_FAST_*: decoded inline by bl_value_fast, or BL_FAST_NONE */
    int target;            /* produced field index, -1 = not produced */
    const cdc_type_t *out; /* the produced field's type */
    bool as_bool;          /* a TINYINT (MySQL's BOOLEAN) declared BOOLEAN: 0 is FALSE, else TRUE */
    bool bin_text;         /* a binary column declared STRING: text per binary.handling.mode */
    bool narrow;           /* an integer declared narrower than the column is now (a widened
                              source column): each value is checked against the declared type */
    cdc_type_t *nat;       /* the mapped type (owned), for columns not produced */
} bl_col_t;

/*
 * The commonest columns, decoded inline per row without bl_value's generality: integers
 * that become v.i, and strings kept as they are in the binlog (VARCHAR of a charset other
 * than latin1, which is converted), which point into the input.
 */
enum {
    BL_FAST_NONE,
    BL_FAST_I8,
    BL_FAST_U8,
    BL_FAST_I16,
    BL_FAST_U16,
    BL_FAST_I24,
    BL_FAST_U24,
    BL_FAST_I32,
    BL_FAST_U32,
    BL_FAST_I64,
    BL_FAST_STR1, /* 1-byte length, then the bytes */
    BL_FAST_STR2, /* 2-byte length */
};

/** The BL_FAST_* kind of a column whose type, signedness and charset are known. */
uint8_t bl_fast_kind(const bl_col_t *col);

static inline uint32_t bl_le16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static inline uint32_t bl_le24(const uint8_t *p)
{
    return bl_le16(p) | (uint32_t)p[2] << 16;
}

static inline uint32_t bl_le32(const uint8_t *p)
{
    return bl_le24(p) | (uint32_t)p[3] << 24;
}

/**
 * Decodes a value of a BL_FAST_* kind (not NONE) as bl_value does: returns the bytes
 * consumed, or -1 with *why set. Strings point into p.
 */
static inline long bl_value_fast(uint8_t kind, const uint8_t *p, size_t avail, cdc_value_t *v,
                                 const char **why)
{
    static const uint8_t size[] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 8, 1, 2};
    v->flags = 0;
    if (avail < size[kind]) {
        *why = kind >= BL_FAST_STR1 ? "row ends inside a length" : "row ends inside the value";
        return -1;
    }
    switch (kind) {
    case BL_FAST_I8:
        v->v.i = (int8_t)p[0];
        return 1;
    case BL_FAST_U8:
        v->v.i = p[0];
        return 1;
    case BL_FAST_I16:
        v->v.i = (int16_t)bl_le16(p);
        return 2;
    case BL_FAST_U16:
        v->v.i = bl_le16(p);
        return 2;
    case BL_FAST_I24:
        v->v.i = (int32_t)(bl_le24(p) << 8) >> 8;
        return 3;
    case BL_FAST_U24:
        v->v.i = bl_le24(p);
        return 3;
    case BL_FAST_I32:
        v->v.i = (int32_t)bl_le32(p);
        return 4;
    case BL_FAST_U32:
        v->v.i = bl_le32(p);
        return 4;
    case BL_FAST_I64:
        v->v.i = (int64_t)((uint64_t)bl_le32(p) | (uint64_t)bl_le32(p + 4) << 32);
        return 8;
    default: { /* BL_FAST_STR1, BL_FAST_STR2 */
        int prefix = size[kind];
        uint32_t len = prefix == 1 ? p[0] : bl_le16(p);
        if (len > avail - (size_t)prefix) {
            *why = "length runs past the row";
            return -1;
        }
        v->v.s.ptr = (const char *)p + prefix;
        v->v.s.len = len;
        return prefix + (long)len;
    }
    }
}

/**
 * A packed integer (length-encoded: < 0xfb itself, 0xfc/0xfd/0xfe then 2, 3 or 8 bytes) of at
 * most avail bytes at p: the bytes used, or -1 when it is cut or 0xfb/0xff.
 */
static inline long bl_packed(const uint8_t *p, size_t avail, uint64_t *v)
{
    if (avail < 1)
        return -1;
    uint8_t b = p[0];
    int n = b < 0xfb ? 0 : b == 0xfc ? 2 : b == 0xfd ? 3 : b == 0xfe ? 8 : -1;
    if (n < 0 || avail - 1 < (size_t)n)
        return -1;
    *v = b;
    if (n) {
        *v = 0;
        for (int i = n; i >= 1; i--)
            *v = *v << 8 | p[i];
    }
    return 1 + n;
}

/** The Flink type of a column (new, caller owns). */
cdc_type_t *bl_type_for(const bl_col_t *col);

/** A short name of the column type for messages ("INT UNSIGNED", "DATETIME2(3)"). */
void bl_type_name(const bl_col_t *col, char *buf, size_t n);

/**
 * Decodes the value of col at p (at most avail bytes) into v of type col->out.
 * Strings point into the input unless copy is set (then into arena). Returns the
 * bytes consumed, or -1 with *why set (a short reason). scratch is a reusable buffer
 * (JSON text is built in it).
 */
long bl_value(const bl_col_t *col, const uint8_t *p, size_t avail, bool copy, cdc_arena_t *arena,
              cdc_buf_t *scratch, cdc_value_t *v, const char **why);

/**
 * A packed NEWDECIMAL(p, s) of at most avail bytes as text ("-12.50") in out
 * (>= 128 bytes); returns the text length, or -1 when p/s are impossible, the
 * bytes are too few, or a digit group is out of range.
 */
int bl_decimal_text(const uint8_t *src, size_t avail, int p, int s, char *out);

/** Whether NEWDECIMAL(p, s) is a valid declaration (1 <= p <= 65, s <= 30, s <= p). */
bool bl_decimal_valid(int p, int s);

/**
 * Appends MySQL binary JSON (type 245) as JSON text; returns 0, or -1 with *why
 * set when the document is malformed.
 */
int bl_json_to_text(const uint8_t *p, size_t len, cdc_buf_t *out, const char **why);

/** Appends n bytes as a JSON string (quoted, escaped as MySQL prints it). */
void bl_json_put_string(cdc_buf_t *out, const uint8_t *s, size_t n);

/**
 * Applies the JSON diffs of a PARTIAL_UPDATE_ROWS after image (Json_diff_vector: per diff, the
 * operation byte 0 REPLACE / 1 INSERT / 2 REMOVE, a packed-length path such as $.a[1].b, and but
 * for REMOVE a packed-length MySQL binary JSON value) of len bytes at p to doc, the column's
 * before value as JSON text (bl_json_to_text's form). The result replaces the contents of out;
 * work is a scratch buffer. Returns 0, or -1 with *why set.
 */
int bl_json_apply_diffs(const char *doc, size_t doclen, const uint8_t *p, size_t len,
                        cdc_buf_t *out, cdc_buf_t *work, const char **why);

/** Prepares bl_crc32 (tables, CPU check); call before it, from any thread. */
void bl_crc32_init(void);

/** CRC-32 (zlib's, as binlog_checksum=CRC32 stores it) of n bytes. */
uint32_t bl_crc32(const uint8_t *p, size_t n);

/** The same by tables only (what bl_crc32 does without PCLMULQDQ); for tests. */
uint32_t bl_crc32_tables(const uint8_t *p, size_t n);

/* ---- DDL of QUERY events (binlog_ddl.c) ---- */

typedef enum bl_ddl_kind {
    BL_DDL_ALTER,    /* edits: the column clauses in order (ADD, DROP, RENAME; MODIFY and CHANGE
                        as DROP then ADD, so a move is one); new_table when it also renames */
    BL_DDL_RENAME,   /* RENAME TABLE table TO new_table */
    BL_DDL_TRUNCATE, /* TRUNCATE [TABLE] */
    BL_DDL_CREATE,   /* columns: its columns, or NULL (LIKE, AS SELECT, unreadable) */
    BL_DDL_DROP,     /* DROP TABLE */
    BL_DDL_OTHER     /* a statement on the table that could not be read */
} bl_ddl_kind_t;

typedef struct bl_ddl_op {
    bl_ddl_kind_t kind;
    char *table;                /* "db.t", unqualified names qualified by the QUERY's default db */
    char *new_table;            /* RENAME, ALTER ... RENAME TO; else NULL */
    cdc_schema_change_t *edits; /* ALTER: items for cdc_schema_change_apply */
    cdc_type_t *columns;        /* CREATE: ROW of the columns (nullability set), or NULL */
    char **renames;             /* pairs old, new; NULL-terminated; or NULL */
    char **defaults;            /* pairs column, SQL literal of ADD ... DEFAULT; or NULL */
    int nrenames, ndefaults;
} bl_ddl_op_t;

typedef struct bl_ddl {
    bl_ddl_op_t *ops;
    int n, cap;
} bl_ddl_t;

/**
 * Parses one statement of len bytes (db: the QUERY's default schema) into
 * ddl's ops, replacing those of the last call; returns how many (0: not table
 * DDL). lookup, when not NULL, gives a table's current columns (borrowed), so
 * that MODIFY and CHANGE keep a column's place. Never fails: what cannot be
 * read is BL_DDL_OTHER.
 */
int bl_ddl_parse(const char *sql, size_t len, const char *db, bl_ddl_t *ddl,
                 const cdc_type_t *(*lookup)(void *ctx, const char *table), void *ctx);
/** Drops the ops (keeps the array for the next parse). */
void bl_ddl_clear(bl_ddl_t *ddl);
/** Frees everything ddl holds (ddl itself is the caller's). */
void bl_ddl_free(bl_ddl_t *ddl);

/* ---- the captured tables' column lists and their changes (binlog_schema.c) ---- */

typedef struct bl_schemas bl_schemas_t;

/** New lists, loaded from the history file `history` when set and it exists. bl_schemas_free. */
bl_schemas_t *bl_schemas_new(const char *history);
void bl_schemas_free(bl_schemas_t *s);
/** Where the stream starts (the first ROTATE): the history entries that hold there are kept. */
void bl_schemas_start(bl_schemas_t *s, const char *file, uint64_t pos);
/** A decode() begins: the changes of the last one are dropped. */
void bl_schemas_begin(bl_schemas_t *s);
/** The changes since bl_schemas_begin and the row index of each (borrowed). */
int bl_schemas_pending(bl_schemas_t *s, const cdc_schema_change_t *const **changes,
                       const uint32_t **at);
/** A table's current columns (borrowed, until the next change), or NULL when not known. */
const cdc_type_t *bl_schemas_columns(const bl_schemas_t *s, const char *table);
/** Grows with every change of a list. */
uint64_t bl_schemas_gen(const bl_schemas_t *s);
/**
 * The statement of a QUERY event that starts at (file, ev_pos): its changes
 * of tables captured() says yes to, falling at row index `at`.
 */
void bl_schemas_on_ddl(bl_schemas_t *s, const char *sql, size_t n, const char *db, const char *file,
                       uint64_t ev_pos, bool (*captured)(void *, const char *), void *ctx,
                       uint32_t at);
/**
 * Starts table's list from its CREATE TABLE (SHOW CREATE TABLE) as holding from the start
 * of binlog `file`, unless a list is known (history, map). For a stream that starts now.
 */
void bl_schemas_seed(bl_schemas_t *s, const char *table, const char *sql, size_t n,
                     const char *file);
/**
 * The same through a mysql-binlog deserializer (for mysql-cdc, which depends on this format):
 * table "db.t", create_sql its SHOW CREATE TABLE.
 */
void cdc_mysql_binlog_seed(cdc_deser_t *deser, const char *table, const char *create_sql,
                           const char *file);
/** Appends the history's text (the history file's: a header line, then one entry a line). */
void bl_schemas_dump(const bl_schemas_t *s, cdc_buf_t *b);
/**
 * Replaces the lists with those of a history's text (bl_schemas_dump's), to be cut at the
 * stream's start as a loaded file is; written to the history file, if any. 0, or -1 (the
 * lists unchanged) when the text is not such a history.
 */
int bl_schemas_restore(bl_schemas_t *s, const char *text, size_t len);
/**
 * The same two through a mysql-binlog deserializer, for mysql-cdc's position record: the
 * history of the column lists (as of the last event decoded), and its replacement.
 */
void cdc_mysql_binlog_history(cdc_deser_t *deser, cdc_buf_t *out);
int cdc_mysql_binlog_restore_history(cdc_deser_t *deser, const char *text, size_t len);
/** A captured table's TABLE_MAP with names: cols (a ROW) is the truth from (file, ev_pos). */
void bl_schemas_on_map(bl_schemas_t *s, const char *table, const cdc_type_t *cols, const char *file,
                       uint64_t ev_pos, uint32_t at);

#endif
