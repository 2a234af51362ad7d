/*
 * cdc_schema_change.c — building, diffing, applying and printing schema
 * changes; the schema.change.behavior policy names.
 */
#include "cdc_schema_change.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static char *dup_or_null(const char *s)
{
    return s ? cdc_xstrdup(s) : NULL;
}

cdc_schema_change_t *cdc_schema_change_new(const char *table, const char *position, const char *ddl)
{
    cdc_schema_change_t *c = cdc_xcalloc(1, sizeof(*c));
    c->table = cdc_xstrdup(table ? table : "");
    c->position = cdc_xstrdup(position ? position : "");
    c->ddl = dup_or_null(ddl);
    return c;
}

static void item_free(cdc_sc_item_t *it)
{
    free(it->column);
    free(it->new_name);
    cdc_type_destroy(it->type);
    cdc_type_destroy(it->old_type);
    free(it->default_sql);
    free(it->after);
}

void cdc_schema_change_free(cdc_schema_change_t *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->nitems; i++)
        item_free(&c->items[i]);
    free(c->items);
    cdc_type_destroy(c->before);
    cdc_type_destroy(c->after);
    free(c->table);
    free(c->position);
    free(c->ddl);
    free(c);
}

static cdc_type_t *type_copy_or_null(const cdc_type_t *t)
{
    return t ? cdc_type_copy(t) : NULL;
}

void cdc_schema_change_set_columns(cdc_schema_change_t *c, const cdc_type_t *before,
                                   const cdc_type_t *after)
{
    cdc_type_t *b = type_copy_or_null(before), *a = type_copy_or_null(after);
    cdc_type_destroy(c->before);
    cdc_type_destroy(c->after);
    c->before = b;
    c->after = a;
}

cdc_sc_item_t *cdc_schema_change_add(cdc_schema_change_t *c, cdc_sc_kind_t kind, const char *column,
                                     const char *new_name, const cdc_type_t *type,
                                     const cdc_type_t *old_type, const char *default_sql)
{
    if (c->nitems == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 4;
        c->items = cdc_xrealloc(c->items, (size_t)c->cap * sizeof(*c->items));
    }
    cdc_sc_item_t *it = &c->items[c->nitems++];
    memset(it, 0, sizeof(*it));
    it->kind = kind;
    it->column = dup_or_null(column);
    it->new_name = dup_or_null(new_name);
    it->type = type_copy_or_null(type);
    it->old_type = type_copy_or_null(old_type);
    it->default_sql = dup_or_null(default_sql);
    return it;
}

cdc_schema_change_t *cdc_schema_change_copy(const cdc_schema_change_t *c)
{
    cdc_schema_change_t *n = cdc_schema_change_new(c->table, c->position, c->ddl);
    cdc_schema_change_set_columns(n, c->before, c->after);
    for (int i = 0; i < c->nitems; i++) {
        const cdc_sc_item_t *it = &c->items[i];
        cdc_sc_item_t *d = cdc_schema_change_add(n, it->kind, it->column, it->new_name, it->type,
                                                 it->old_type, it->default_sql);
        d->after = dup_or_null(it->after);
    }
    return n;
}

/* The value paired with key in a NULL-terminated list of pairs, or NULL. */
static const char *pair_lookup(const char *const *pairs, const char *key, bool by_second)
{
    for (int i = 0; pairs && pairs[i] && pairs[i + 1]; i += 2)
        if (strcmp(pairs[i + (by_second ? 1 : 0)], key) == 0)
            return pairs[i + (by_second ? 0 : 1)];
    return NULL;
}

void cdc_schema_change_diff(cdc_schema_change_t *c, const char *const *renames,
                            const char *const *defaults)
{
    const cdc_type_t *b = c->before, *a = c->after;
    if (!b || !a)
        return;
    /* renames first: the old column must exist before and the new one after */
    for (int i = 0; renames && renames[i] && renames[i + 1]; i += 2)
        if (cdc_type_field_index(b, renames[i]) >= 0 &&
            cdc_type_field_index(a, renames[i + 1]) >= 0 && cdc_type_field_index(a, renames[i]) < 0)
            cdc_schema_change_add(c, CDC_SC_RENAME_COLUMN, renames[i], renames[i + 1], NULL, NULL,
                                  NULL);
    /* added: in the after list, neither before nor a rename's target */
    for (int j = 0; j < a->nchildren; j++) {
        const char *nm = a->names[j];
        if (cdc_type_field_index(b, nm) >= 0 || pair_lookup(renames, nm, true))
            continue;
        cdc_sc_item_t *it = cdc_schema_change_add(c, CDC_SC_ADD_COLUMN, nm, NULL, a->children[j],
                                                  NULL, pair_lookup(defaults, nm, false));
        it->after = cdc_xstrdup(j == 0 ? "" : a->names[j - 1]);
        if (j == a->nchildren - 1)
            it->after = (free(it->after), NULL);
    }
    /* dropped: before, not after, not renamed away */
    for (int j = 0; j < b->nchildren; j++) {
        const char *nm = b->names[j];
        if (cdc_type_field_index(a, nm) >= 0 || pair_lookup(renames, nm, false))
            continue;
        cdc_schema_change_add(c, CDC_SC_DROP_COLUMN, nm, NULL, NULL, b->children[j], NULL);
    }
    /* type or nullability changed (a renamed column compared under its new name) */
    for (int j = 0; j < b->nchildren; j++) {
        const char *nm = b->names[j];
        const char *now = pair_lookup(renames, nm, false);
        int k = cdc_type_field_index(a, now && cdc_type_field_index(a, nm) < 0 ? now : nm);
        if (k < 0 || cdc_type_equals(b->children[j], a->children[k]))
            continue;
        cdc_schema_change_add(c, CDC_SC_ALTER_TYPE, a->names[k], NULL, a->children[k],
                              b->children[j], NULL);
    }
}

/* A copy of row with field i removed, or replaced by (name, type) when name is set. */
static cdc_type_t *row_edit(const cdc_type_t *row, int drop, const char *name,
                            const cdc_type_t *type, int insert_at)
{
    cdc_type_t *n = cdc_type_new_row();
    n->nullable = row->nullable;
    for (int i = 0; i <= row->nchildren; i++) {
        if (i == insert_at)
            cdc_type_row_add(n, name, cdc_type_copy(type));
        if (i == row->nchildren)
            break;
        if (i == drop) {
            if (name && insert_at < 0)
                cdc_type_row_add(n, name, cdc_type_copy(type));
            continue;
        }
        cdc_type_row_add(n, row->names[i], cdc_type_copy(row->children[i]));
    }
    return n;
}

cdc_type_t *cdc_schema_change_apply(const cdc_schema_change_t *c, const cdc_type_t *row,
                                    cdc_error_t **err)
{
    cdc_type_t *cur = cdc_type_copy(row);
    for (int i = 0; i < c->nitems; i++) {
        const cdc_sc_item_t *it = &c->items[i];
        cdc_type_t *next = NULL;
        int at = it->column ? cdc_type_field_index(cur, it->column) : -1;
        switch (it->kind) {
        case CDC_SC_ADD_COLUMN: {
            if (at >= 0)
                goto has;
            int pos = cur->nchildren;
            if (it->after && !it->after[0])
                pos = 0;
            else if (it->after && cdc_type_field_index(cur, it->after) >= 0)
                pos = cdc_type_field_index(cur, it->after) + 1;
            next = row_edit(cur, -1, it->column, it->type, pos);
            break;
        }
        case CDC_SC_DROP_COLUMN:
            if (at < 0)
                goto lacks;
            next = row_edit(cur, at, NULL, NULL, -1);
            break;
        case CDC_SC_RENAME_COLUMN:
            if (at < 0)
                goto lacks;
            if (cdc_type_field_index(cur, it->new_name) >= 0) {
                cdc_error_set(err, CDC_ERR_PLAN,
                              "%s: RENAME COLUMN %s TO %s: the table has a "
                              "column %s already",
                              c->table, it->column, it->new_name, it->new_name);
                goto fail;
            }
            next = row_edit(cur, at, it->new_name, cur->children[at], -1);
            break;
        case CDC_SC_ALTER_TYPE:
            if (at < 0)
                goto lacks;
            next = row_edit(cur, at, it->column, it->type, -1);
            break;
        default:
            continue;
        }
        cdc_type_destroy(cur);
        cur = next;
        continue;
    has:
        cdc_error_set(err, CDC_ERR_PLAN, "%s: ADD COLUMN %s: the table has that column already",
                      c->table, it->column);
        goto fail;
    lacks:
        cdc_error_set(err, CDC_ERR_PLAN, "%s: %s %s: the table has no such column", c->table,
                      cdc_sc_kind_name(it->kind), it->column);
        goto fail;
    }
    return cur;
fail:
    cdc_type_destroy(cur);
    return NULL;
}

const char *cdc_sc_kind_name(cdc_sc_kind_t kind)
{
    switch (kind) {
    case CDC_SC_ADD_COLUMN:
        return "ADD COLUMN";
    case CDC_SC_DROP_COLUMN:
        return "DROP COLUMN";
    case CDC_SC_RENAME_COLUMN:
        return "RENAME COLUMN";
    case CDC_SC_ALTER_TYPE:
        return "ALTER COLUMN TYPE";
    case CDC_SC_TRUNCATE_TABLE:
        return "TRUNCATE TABLE";
    case CDC_SC_CREATE_TABLE:
        return "CREATE TABLE";
    case CDC_SC_DROP_TABLE:
        return "DROP TABLE";
    case CDC_SC_OTHER:
        break;
    }
    return "OTHER DDL";
}

static void put_type(cdc_buf_t *out, const cdc_type_t *t)
{
    char *s = cdc_type_to_string(t);
    cdc_buf_puts(out, s);
    free(s);
}

void cdc_schema_change_describe(const cdc_schema_change_t *c, cdc_buf_t *out)
{
    for (int i = 0; i < c->nitems; i++) {
        const cdc_sc_item_t *it = &c->items[i];
        if (i)
            cdc_buf_puts(out, ", ");
        cdc_buf_puts(out, cdc_sc_kind_name(it->kind));
        if (it->column)
            cdc_buf_printf(out, " %s", it->column);
        switch (it->kind) {
        case CDC_SC_ADD_COLUMN:
            cdc_buf_putc(out, ' ');
            put_type(out, it->type);
            if (it->default_sql)
                cdc_buf_printf(out, " DEFAULT %s", it->default_sql);
            if (it->after)
                cdc_buf_printf(out, it->after[0] ? " AFTER %s" : " FIRST", it->after);
            break;
        case CDC_SC_RENAME_COLUMN:
            cdc_buf_printf(out, " TO %s", it->new_name);
            break;
        case CDC_SC_ALTER_TYPE:
            cdc_buf_puts(out, " ");
            if (it->old_type) {
                put_type(out, it->old_type);
                cdc_buf_puts(out, " -> ");
            }
            put_type(out, it->type);
            break;
        case CDC_SC_OTHER:
            if (c->ddl)
                cdc_buf_printf(out, " (%s)", c->ddl);
            break;
        default:
            break;
        }
    }
}

static const char *const policy_names[] = {[CDC_SC_LENIENT] = "lenient",
                                           [CDC_SC_EXCEPTION] = "exception",
                                           [CDC_SC_EVOLVE] = "evolve",
                                           [CDC_SC_TRY_EVOLVE] = "try_evolve",
                                           [CDC_SC_IGNORE] = "ignore"};

int cdc_sc_policy_parse(const char *text, cdc_sc_policy_t *out)
{
    for (int i = 0; i < (int)(sizeof(policy_names) / sizeof(policy_names[0])); i++)
        if (text && strcasecmp(text, policy_names[i]) == 0) {
            *out = (cdc_sc_policy_t)i;
            return 0;
        }
    return -1;
}

const char *cdc_sc_policy_name(cdc_sc_policy_t policy)
{
    return policy_names[policy];
}
