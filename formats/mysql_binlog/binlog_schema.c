/*
 * binlog_schema.c — the mysql-binlog format's column lists of the captured
 * tables, the schema changes found in the stream, and their history file.
 *
 * Each captured table's current columns (names, types as bl_type_for maps
 * them, nullability) are kept as a ROW type. A DDL in a QUERY event
 * (binlog_ddl.c) is applied to the list at once and reported at the QUERY's
 * position (before = the list, after = the list with the DDL applied, items
 * from the diff with the DDL's renames and DEFAULTs). A TABLE_MAP with
 * column names (binlog_row_metadata=FULL) is the truth: a list it differs
 * from (a DDL not read, or read wrong) gives a change from the diff, at the
 * TABLE_MAP, before any row of it; a table with no list is seeded by it.
 *
 * With a history file (option schema-history), every list is also written
 * there with the binlog position it holds from ("table TAB file TAB pos TAB
 * ROW<...>", "-" for a dropped table), atomically, when it changes. On a
 * restart the first ROTATE says where the stream resumes: entries from there
 * on are dropped (the stream meets those DDLs again and reports them), and
 * per table only the newest older one is kept, which is the list that holds
 * at the resume position. A run keeps at most HISTORY_PER_TABLE entries per
 * table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binlog_int.h"

#define HISTORY_PER_TABLE 32
#define HISTORY_HEADER "cdcflow mysql-binlog schema history v1\n"

typedef struct entry {
    char *table;
    char *file;
    uint64_t pos;
    cdc_type_t *cols; /* NULL: the table was dropped (or is unknown) */
} entry_t;

struct bl_schemas {
    char *path; /* the history file, or NULL */
    bool resolved;
    entry_t *ent; /* in stream order; a table's list is its last entry */
    int n, cap;
    uint64_t gen; /* grows with every change of a list */
    bl_ddl_t ddl;
    cdc_schema_change_t **chg; /* the changes of the current decode() */
    uint32_t *at;
    int nchg, capchg;
};

static void entry_free(entry_t *e)
{
    free(e->table);
    free(e->file);
    cdc_type_destroy(e->cols);
}

static const entry_t *find(const bl_schemas_t *s, const char *table)
{
    for (int i = s->n - 1; i >= 0; i--)
        if (strcmp(s->ent[i].table, table) == 0)
            return &s->ent[i];
    return NULL;
}

const cdc_type_t *bl_schemas_columns(const bl_schemas_t *s, const char *table)
{
    const entry_t *e = find(s, table);
    return e ? e->cols : NULL;
}

static const cdc_type_t *lookup(void *ctx, const char *table)
{
    return bl_schemas_columns(ctx, table);
}

void bl_schemas_dump(const bl_schemas_t *s, cdc_buf_t *b)
{
    cdc_buf_puts(b, HISTORY_HEADER);
    for (int i = 0; i < s->n; i++) {
        char *t = s->ent[i].cols ? cdc_type_to_string(s->ent[i].cols) : NULL;
        cdc_buf_printf(b, "%s\t%s\t%llu\t%s\n", s->ent[i].table, s->ent[i].file,
                       (unsigned long long)s->ent[i].pos, t ? t : "-");
        free(t);
    }
}

/* Writes the history file (when there is one); failures are logged: detection goes on. */
static void save(bl_schemas_t *s)
{
    if (!s->path)
        return;
    cdc_buf_t b = {0};
    bl_schemas_dump(s, &b);
    cdc_error_t *err = NULL;
    if (cdc_file_write_atomic(s->path, b.data, b.len, &err) < 0) {
        char *m = cdc_error_format(err);
        cdc_log(CDC_LOG_WARN, NULL, "mysql-binlog", "schema history %s not written: %s", s->path,
                m);
        free(m);
        cdc_error_destroy(err);
    }
    cdc_buf_free(&b);
}

/* Appends the list of table from (file, pos) on (cols copied; NULL: dropped). */
static void set_list(bl_schemas_t *s, const char *table, const cdc_type_t *cols, const char *file,
                     uint64_t pos)
{
    int mine = 0, first = -1;
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->ent[i].table, table) == 0 && (mine++, first < 0))
            first = i;
    if (mine >= HISTORY_PER_TABLE) { /* the oldest goes */
        entry_free(&s->ent[first]);
        memmove(&s->ent[first], &s->ent[first + 1], (size_t)(s->n - first - 1) * sizeof(entry_t));
        s->n--;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->ent = cdc_xrealloc(s->ent, (size_t)s->cap * sizeof(entry_t));
    }
    s->ent[s->n++] = (entry_t){cdc_xstrdup(table), cdc_xstrdup(file ? file : "binlog"), pos,
                               cols ? cdc_type_copy(cols) : NULL};
    s->gen++;
    save(s);
}

/* The entries of a history's text p[0..len) after its header, appended; the malformed lines. */
static int parse(bl_schemas_t *s, const char *p, size_t len)
{
    const char *end = p + len;
    cdc_error_t *err = NULL;
    int bad = 0;
    for (p += strlen(HISTORY_HEADER); p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            nl = end;
        const char *f[4] = {p, NULL, NULL, NULL};
        int k = 1;
        for (const char *q = p; q < nl && k < 4; q++)
            if (*q == '\t')
                f[k++] = q + 1;
        bool ok = k == 4;
        if (ok) {
            char *table = cdc_xstrndup(f[0], (size_t)(f[1] - f[0] - 1));
            char *file = cdc_xstrndup(f[1], (size_t)(f[2] - f[1] - 1));
            cdc_type_t *cols = NULL;
            ok = nl - f[3] == 1 && f[3][0] == '-';
            if (!ok) {
                cols = cdc_type_parse_n(f[3], (size_t)(nl - f[3]), &err);
                cdc_error_destroy(err);
                err = NULL;
                ok = cols && cols->root == CDC_T_ROW;
            }
            if (ok) {
                if (s->n == s->cap) {
                    s->cap = s->cap ? s->cap * 2 : 16;
                    s->ent = cdc_xrealloc(s->ent, (size_t)s->cap * sizeof(entry_t));
                }
                s->ent[s->n++] = (entry_t){table, file, strtoull(f[2], NULL, 10), cols};
            } else {
                free(table);
                free(file);
                cdc_type_destroy(cols);
            }
        }
        bad += !ok && nl > p;
        p = nl + 1;
    }
    return bad;
}

static void load(bl_schemas_t *s)
{
    cdc_buf_t b = {0};
    cdc_error_t *err = NULL;
    if (cdc_file_read_all(s->path, &b, &err) < 0 || b.len == 0) {
        cdc_error_destroy(err); /* none yet */
        cdc_buf_free(&b);
        return;
    }
    const char *p = cdc_buf_cstr(&b);
    if (strncmp(p, HISTORY_HEADER, strlen(HISTORY_HEADER)) != 0) {
        cdc_log(CDC_LOG_WARN, NULL, "mysql-binlog",
                "schema history %s is not one cdcflow wrote; the column lists start afresh",
                s->path);
        cdc_buf_free(&b);
        return;
    }
    parse(s, p, b.len);
    cdc_buf_free(&b);
}

int bl_schemas_restore(bl_schemas_t *s, const char *text, size_t len)
{
    size_t hlen = strlen(HISTORY_HEADER);
    if (len < hlen || memcmp(text, HISTORY_HEADER, hlen) != 0)
        return -1;
    bl_schemas_t fresh = {0};
    if (parse(&fresh, text, len) > 0) {
        for (int i = 0; i < fresh.n; i++)
            entry_free(&fresh.ent[i]);
        free(fresh.ent);
        return -1;
    }
    for (int i = 0; i < s->n; i++)
        entry_free(&s->ent[i]);
    free(s->ent);
    s->ent = fresh.ent;
    s->n = fresh.n;
    s->cap = fresh.cap;
    s->resolved = false; /* the stream's first ROTATE says which entries hold */
    s->gen++;
    save(s);
    return 0;
}

bl_schemas_t *bl_schemas_new(const char *history)
{
    bl_schemas_t *s = cdc_xcalloc(1, sizeof(*s));
    if (history && *history) {
        s->path = cdc_xstrdup(history);
        load(s);
    }
    return s;
}

void bl_schemas_free(bl_schemas_t *s)
{
    if (!s)
        return;
    bl_schemas_begin(s);
    for (int i = 0; i < s->n; i++)
        entry_free(&s->ent[i]);
    free(s->ent);
    free(s->chg);
    free(s->at);
    free(s->path);
    bl_ddl_free(&s->ddl);
    free(s);
}

static bool before(const char *fa, uint64_t pa, const char *fb, uint64_t pb)
{
    int c = strcmp(fa, fb);
    return c < 0 || (c == 0 && pa < pb);
}

void bl_schemas_start(bl_schemas_t *s, const char *file, uint64_t pos)
{
    if (s->resolved || !file)
        return;
    s->resolved = true;
    int k = 0;
    for (int i = 0; i < s->n; i++) {
        entry_t *e = &s->ent[i];
        bool keep = before(e->file, e->pos, file, pos);
        for (int j = i + 1; keep && j < s->n; j++) /* a newer one that holds at the start */
            if (strcmp(s->ent[j].table, e->table) == 0 &&
                before(s->ent[j].file, s->ent[j].pos, file, pos))
                keep = false;
        if (keep)
            s->ent[k++] = *e;
        else
            entry_free(e);
    }
    s->n = k;
}

void bl_schemas_begin(bl_schemas_t *s)
{
    for (int i = 0; i < s->nchg; i++)
        cdc_schema_change_free(s->chg[i]);
    s->nchg = 0;
}

int bl_schemas_pending(bl_schemas_t *s, const cdc_schema_change_t *const **changes,
                       const uint32_t **at)
{
    *changes = (const cdc_schema_change_t *const *)s->chg;
    *at = s->at;
    return s->nchg;
}

uint64_t bl_schemas_gen(const bl_schemas_t *s)
{
    return s->gen;
}

/* Keeps a change to report (or frees it when it has no item). */
static void push(bl_schemas_t *s, cdc_schema_change_t *c, uint32_t at)
{
    if (c->nitems == 0) {
        cdc_schema_change_free(c);
        return;
    }
    if (s->nchg == s->capchg) {
        s->capchg = s->capchg ? s->capchg * 2 : 4;
        s->chg = cdc_xrealloc(s->chg, (size_t)s->capchg * sizeof(*s->chg));
        s->at = cdc_xrealloc(s->at, (size_t)s->capchg * sizeof(*s->at));
    }
    s->chg[s->nchg] = c;
    s->at[s->nchg++] = at;
}

static void other(cdc_schema_change_t *c, const char *why, const char *pos)
{
    cdc_log(CDC_LOG_DEBUG, NULL, "mysql-binlog", "DDL at %s on \"%s\" not read (%s): %s", pos,
            c->table, why, c->ddl ? c->ddl : "");
    cdc_schema_change_add(c, CDC_SC_OTHER, NULL, NULL, NULL, NULL, NULL);
}

/* One table's ALTER: the change from its list, which it updates. */
static void on_alter(bl_schemas_t *s, const bl_ddl_op_t *op, cdc_schema_change_t *c,
                     const char *file, uint64_t ev_pos, const char *pos)
{
    const cdc_type_t *cur = bl_schemas_columns(s, op->table);
    if (op->edits->nitems == 0)
        return; /* indexes, options, DEFAULTs: no column change */
    if (!cur) {
        other(c, "its columns are not known yet", pos);
        return;
    }
    cdc_error_t *err = NULL;
    cdc_type_t *after = cdc_schema_change_apply(op->edits, cur, &err);
    if (!after) {
        other(c, err ? err->message : "does not fit the columns", pos);
        cdc_error_destroy(err);
        return;
    }
    cdc_schema_change_set_columns(c, cur, after);
    cdc_schema_change_diff(c, (const char *const *)op->renames, (const char *const *)op->defaults);
    set_list(s, op->table, after, file, ev_pos);
    cdc_type_destroy(after);
}

void bl_schemas_on_ddl(bl_schemas_t *s, const char *sql, size_t n, const char *db, const char *file,
                       uint64_t ev_pos, bool (*captured)(void *, const char *), void *ctx,
                       uint32_t at)
{
    if (bl_ddl_parse(sql, n, db, &s->ddl, lookup, s) == 0)
        return;
    char pos[600];
    snprintf(pos, sizeof(pos), "binlog %s:%llu", file ? file : "binlog",
             (unsigned long long)ev_pos);
    char *text = cdc_xstrndup(sql, n);
    for (int i = 0; i < s->ddl.n; i++) {
        const bl_ddl_op_t *op = &s->ddl.ops[i];
        bool cap_new = op->new_table && captured(ctx, op->new_table);
        if (!captured(ctx, op->table) && !cap_new)
            continue;
        const cdc_type_t *cur = bl_schemas_columns(s, op->table);
        cdc_schema_change_t *c = cdc_schema_change_new(op->table, pos, text);
        switch (op->kind) {
        case BL_DDL_ALTER:
            if (captured(ctx, op->table))
                on_alter(s, op, c, file, ev_pos, pos);
            break;
        case BL_DDL_TRUNCATE:
            cdc_schema_change_set_columns(c, cur, cur);
            cdc_schema_change_add(c, CDC_SC_TRUNCATE_TABLE, NULL, NULL, NULL, NULL, NULL);
            break;
        case BL_DDL_CREATE:
            cdc_schema_change_set_columns(c, NULL, op->columns);
            cdc_schema_change_add(c, CDC_SC_CREATE_TABLE, NULL, NULL, NULL, NULL, NULL);
            set_list(s, op->table, op->columns, file, ev_pos);
            break;
        case BL_DDL_DROP:
            cdc_schema_change_set_columns(c, cur, NULL);
            cdc_schema_change_add(c, CDC_SC_DROP_TABLE, NULL, NULL, NULL, NULL, NULL);
            if (cur)
                set_list(s, op->table, NULL, file, ev_pos);
            break;
        case BL_DDL_OTHER:
            cdc_schema_change_set_columns(c, cur, NULL);
            other(c, "a clause this reader does not know", pos);
            break;
        case BL_DDL_RENAME:
            break;
        }
        if (op->new_table) { /* the table gets another name: gone here, created there */
            const cdc_type_t *now = bl_schemas_columns(s, op->table);
            cdc_type_t *cols = now ? cdc_type_copy(now) : NULL;
            if (captured(ctx, op->table)) {
                if (c->nitems) {
                    push(s, c, at);
                    c = cdc_schema_change_new(op->table, pos, text);
                }
                cdc_schema_change_set_columns(c, cols, NULL);
                cdc_schema_change_add(c, CDC_SC_DROP_TABLE, NULL, NULL, NULL, NULL, NULL);
                if (cols)
                    set_list(s, op->table, NULL, file, ev_pos);
            }
            if (cap_new) {
                push(s, c, at);
                c = cdc_schema_change_new(op->new_table, pos, text);
                cdc_schema_change_set_columns(c, NULL, cols);
                cdc_schema_change_add(c, CDC_SC_CREATE_TABLE, NULL, NULL, NULL, NULL, NULL);
                set_list(s, op->new_table, cols, file, ev_pos);
            }
            cdc_type_destroy(cols);
        }
        push(s, c, at);
    }
    free(text);
}

void bl_schemas_seed(bl_schemas_t *s, const char *table, const char *sql, size_t n,
                     const char *file)
{
    if (bl_schemas_columns(s, table))
        return; /* the history (or a map) knows it */
    const char *dot = strchr(table, '.');
    char *db = dot ? cdc_xstrndup(table, (size_t)(dot - table)) : NULL;
    if (bl_ddl_parse(sql, n, db, &s->ddl, lookup, s) > 0 && s->ddl.ops[0].kind == BL_DDL_CREATE &&
        s->ddl.ops[0].columns)
        set_list(s, table, s->ddl.ops[0].columns, file, 0);
    free(db);
}

void bl_schemas_on_map(bl_schemas_t *s, const char *table, const cdc_type_t *cols, const char *file,
                       uint64_t ev_pos, uint32_t at)
{
    const cdc_type_t *cur = bl_schemas_columns(s, table);
    if (cur && cdc_type_equals(cur, cols))
        return;
    if (cur) {
        char pos[600];
        snprintf(pos, sizeof(pos), "binlog %s:%llu", file ? file : "binlog",
                 (unsigned long long)ev_pos);
        cdc_schema_change_t *c = cdc_schema_change_new(table, pos, NULL);
        cdc_schema_change_set_columns(c, cur, cols);
        cdc_schema_change_diff(c, NULL, NULL);
        push(s, c, at);
    }
    set_list(s, table, cols, file, ev_pos);
}
