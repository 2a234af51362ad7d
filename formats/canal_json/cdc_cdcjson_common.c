/*
 * cdc_cdcjson_common.c — the envelope engine of canal-json, maxwell-json and
 * ogg-json (see cdc_cdcjson_common.h): yajl events to envelope slots and
 * scratch rows, deferred problems, emitting rows with metadata, and the
 * prefix/row/suffix serializer.
 */
#include "cdc_cdcjson_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Types of envelope scalars, converted with the json format's coercions. */
static const cdc_type_t text_type = {
    .root = CDC_T_VARCHAR, .nullable = true, .length = CDC_MAX_LENGTH};
static const cdc_type_t bigint_type = {.root = CDC_T_BIGINT, .nullable = true};
static const cdc_type_t int_type = {.root = CDC_T_INT, .nullable = true};
static const cdc_type_t bool_type = {.root = CDC_T_BOOLEAN, .nullable = true};

/* Skipped values nested deeper than this cancel the parse. */
#define SKIP_MAX_DEPTH CDC_JSON_PARSER_MAX_DEPTH

enum { S_ROOT, S_ENV, S_VALUE, S_LIST, S_ROW, S_SKIP, S_TEXTS, S_INTS, S_DONE };
enum { EV_NULL, EV_BOOL, EV_NUM, EV_STR, EV_KEY, EV_SMAP, EV_EMAP, EV_SARR, EV_EARR };

cdc_changelog_mode_t cdc_cj_mode_all(const cdc_config_t *cfg)
{
    (void)cfg;
    return CDC_MODE_ALL;
}

/* ---- problems ------------------------------------------------------------------------------ */

/* Replaces buf with printf text (truncated to a line). */
static void put_reason(cdc_buf_t *buf, const char *fmt, va_list ap)
{
    char small[640];
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    cdc_buf_clear(buf);
    if (n > 0)
        cdc_buf_append(buf, small, (size_t)n < sizeof(small) ? (size_t)n : sizeof(small) - 1);
}

/* Replaces the reason with printf text (truncated to a line). */
static void set_reason(cdc_cj_deser_t *d, const char *fmt, va_list ap)
{
    put_reason(&d->reason, fmt, ap);
    d->failed = true;
}

/*
 * The message's deferred problem: the first, in message order, of the
 * envelope values still unreadable (a repeated key drops its earlier value's
 * problem with the value: the last wins).
 */
static void refresh_deferred(cdc_cj_deser_t *d)
{
    int first = -1;
    for (int i = 0; i < d->nenv; i++)
        if (d->slots[i].state == CDC_CJ_BAD && (first < 0 || d->slots[i].seq < d->slots[first].seq))
            first = i;
    cdc_buf_clear(&d->reason);
    d->failed = first >= 0;
    if (first >= 0)
        cdc_buf_append(&d->reason, d->why[first].data, d->why[first].len);
}

int cdc_cj_fail(cdc_cj_deser_t *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_reason(d, fmt, ap);
    va_end(ap);
    return -1;
}

int cdc_cj_pending(const cdc_cj_deser_t *d)
{
    return d->failed ? -1 : 0;
}

static const char *noun(int ev)
{
    static const char *const nouns[] = {"null",
                                        "a boolean",
                                        "a number",
                                        "a string",
                                        "a key",
                                        "an object",
                                        "the end of an object",
                                        "an array",
                                        "the end of an array"};
    return nouns[ev];
}

static const char *key_of(const cdc_cj_deser_t *d)
{
    return d->cur >= 0 ? d->fmt->fields[d->cur].key : "?";
}

/* Marks the current key unreadable, keeping its first problem; the message's is the first. */
static void defer(cdc_cj_deser_t *d, const char *fmt, ...) CDC_PRINTF(2, 3);
static void defer(cdc_cj_deser_t *d, const char *fmt, ...)
{
    if (d->cur < 0)
        return;
    cdc_cj_slot_t *slot = &d->slots[d->cur];
    if (slot->state == CDC_CJ_BAD)
        return;
    slot->state = CDC_CJ_BAD;
    slot->seq = ++d->seq;
    va_list ap;
    va_start(ap, fmt);
    put_reason(&d->why[d->cur], fmt, ap);
    va_end(ap);
    refresh_deferred(d);
}

/* A problem that ends the parse (cancels yajl); it replaces a deferred one. */
static int hard(cdc_cj_deser_t *d, const char *fmt, ...) CDC_PRINTF(2, 3);
static int hard(cdc_cj_deser_t *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_reason(d, fmt, ap);
    va_end(ap);
    return 0;
}

/* ---- parse: skipping ------------------------------------------------------------------------ */

/* Skips the value that starts with ev, then returns to state ret. */
static int skip_value(cdc_cj_deser_t *d, int ev, int ret)
{
    if (ev == EV_SMAP || ev == EV_SARR) {
        d->skip = 1;
        d->skip_ret = ret;
        d->state = S_SKIP;
    } else {
        d->state = ret;
    }
    return 1;
}

static int skip_event(cdc_cj_deser_t *d, int ev)
{
    if (ev == EV_SMAP || ev == EV_SARR) {
        if (++d->skip > SKIP_MAX_DEPTH)
            return hard(d, "JSON nested deeper than %d levels", SKIP_MAX_DEPTH);
    } else if (ev == EV_EMAP || ev == EV_EARR) {
        if (--d->skip == 0)
            d->state = d->skip_ret;
    }
    return 1;
}

/* A value of the wrong shape for its key: deferred, and skipped. */
static int wrong(cdc_cj_deser_t *d, int ev, const char *expected, int ret)
{
    defer(d, "\"%s\": expected %s, found %s", key_of(d), expected, noun(ev));
    return skip_value(d, ev, ret);
}

/* ---- parse: row objects --------------------------------------------------------------------- */

static int begin_row(cdc_cj_deser_t *d, int ret)
{
    if (d->nitems >= CDC_CJ_MAX_ROWS)
        return hard(d, "more than %u rows in one message", CDC_CJ_MAX_ROWS);
    if (d->nitems == d->items_cap) {
        d->items_cap = d->items_cap ? d->items_cap * 2 : 16;
        d->items = cdc_xrealloc(d->items, d->items_cap * sizeof(*d->items));
    }
    const cdc_cj_field_t *f = &d->fmt->fields[d->cur];
    cdc_arena_t *arena = &d->out->arena;
    cdc_cj_item_t *item = &d->items[d->nitems++];
    d->slots[d->cur].n++;
    item->values = cdc_arena_alloc(arena, sizeof(cdc_value_t) * (d->nfields ? d->nfields : 1));
    for (uint32_t i = 0; i < d->nfields; i++)
        item->values[i].flags = CDC_V_NULL;
    item->present = NULL;
    if (f->kind == CDC_CJ_OVERLAY)
        item->present = cdc_arena_calloc(arena, sizeof(uint64_t) * ((d->nfields + 63) / 64 + 1));
    d->scratch.kind = CDC_INSERT;
    d->scratch.arity = d->nfields;
    d->scratch.values = item->values;
    d->scratch.origin = NULL;
    cdc_json_rowdec_begin(f->kind == CDC_CJ_OVERLAY ? d->ovdec : d->rowdec, &d->scratch, arena);
    d->depth = 1;
    d->ret_state = ret;
    d->state = S_ROW;
    return 1;
}

static int field_index(const cdc_cj_deser_t *d, const char *s, size_t len)
{
    for (uint32_t i = 0; i < d->nfields; i++)
        if (d->name_len[i] == len && memcmp(d->row_type->names[i], s, len) == 0)
            return (int)i;
    return -1;
}

static int row_event(cdc_cj_deser_t *d, int ev, const char *s, size_t len)
{
    const cdc_cj_field_t *f = &d->fmt->fields[d->cur];
    bool overlay = f->kind == CDC_CJ_OVERLAY;
    cdc_json_rowdec_t *dec = overlay ? d->ovdec : d->rowdec;
    int rc;
    switch (ev) {
    case EV_NULL:
        rc = cdc_json_rowdec_null(dec);
        break;
    case EV_BOOL:
        rc = cdc_json_rowdec_bool(dec, s[0] == 't');
        break;
    case EV_NUM:
        rc = cdc_json_rowdec_number(dec, s, len);
        break;
    case EV_STR:
        rc = cdc_json_rowdec_string(dec, (const unsigned char *)s, len);
        break;
    case EV_KEY:
        if (overlay && d->depth == 1) {
            int i = field_index(d, s, len);
            if (i >= 0)
                d->items[d->nitems - 1].present[i >> 6] |= (uint64_t)1 << (i & 63);
        }
        rc = cdc_json_rowdec_map_key(dec, (const unsigned char *)s, len);
        break;
    case EV_SMAP:
        d->depth++;
        rc = cdc_json_rowdec_start_map(dec);
        break;
    case EV_SARR:
        d->depth++;
        rc = cdc_json_rowdec_start_array(dec);
        break;
    case EV_EMAP:
        d->depth--;
        rc = cdc_json_rowdec_end_map(dec);
        break;
    default: /* EV_EARR */
        d->depth--;
        rc = cdc_json_rowdec_end_array(dec);
        break;
    }
    if (rc == 0 && d->depth > 0)
        return 1;
    if (rc >= 0) { /* the object is complete */
        d->state = d->ret_state;
        d->elem++;
        return 1;
    }
    if (f->array)
        defer(d, "\"%s\"[%u]: %s", f->key, d->elem, cdc_json_rowdec_error(dec));
    else
        defer(d, "\"%s\": %s", f->key, cdc_json_rowdec_error(dec));
    d->elem++;
    if (d->depth == 0) {
        d->state = d->ret_state;
        return 1;
    }
    d->skip = d->depth;
    d->skip_ret = d->ret_state;
    d->state = S_SKIP;
    return 1;
}

/* ---- parse: envelope values --------------------------------------------------------------- */

static char scalar_kind(int ev)
{
    return ev == EV_NULL ? 'n' : ev == EV_BOOL ? 'b' : ev == EV_NUM ? '#' : 's';
}

static bool is_open(int ev)
{
    return ev == EV_SMAP || ev == EV_SARR;
}

static void tmp_push(cdc_cj_deser_t *d)
{
    if (d->tmp_n == d->tmp_cap) {
        d->tmp_cap = d->tmp_cap ? d->tmp_cap * 2 : 16;
        d->tmp_keys = cdc_xrealloc(d->tmp_keys, d->tmp_cap * sizeof(cdc_value_t));
        d->tmp_vals = cdc_xrealloc(d->tmp_vals, d->tmp_cap * sizeof(cdc_value_t));
    }
    d->tmp_n++;
}

/* Ends a TEXT_ARRAY or INT_MAP: copies the elements into the arena. */
static int end_collection(cdc_cj_deser_t *d, bool map)
{
    cdc_cj_slot_t *slot = &d->slots[d->cur];
    if (slot->state != CDC_CJ_BAD) {
        size_t sz = (size_t)d->tmp_n * sizeof(cdc_value_t);
        cdc_array_t *arr = &slot->val.v.arr;
        arr->n = d->tmp_n;
        arr->elems = cdc_arena_alloc(&d->out->arena, sz ? sz : 1);
        arr->vals = map ? cdc_arena_alloc(&d->out->arena, sz ? sz : 1) : NULL;
        if (sz && map) { /* tmp_* are NULL until the first element ever */
            memcpy(arr->elems, d->tmp_keys, sz);
            memcpy(arr->vals, d->tmp_vals, sz);
        } else if (sz) {
            memcpy(arr->elems, d->tmp_vals, sz);
        }
        slot->val.flags = 0;
        slot->state = CDC_CJ_SET;
    }
    d->state = S_ENV;
    return 1;
}

/* An element of a TEXT_ARRAY (S_TEXTS) or a key or value of an INT_MAP (S_INTS). */
static int collection_event(cdc_cj_deser_t *d, int ev, const char *s, size_t len)
{
    bool map = d->state == S_INTS;
    if (ev == (map ? EV_EMAP : EV_EARR))
        return end_collection(d, map);
    if (d->tmp_n >= CDC_CJ_MAX_ROWS && (ev == EV_KEY || !map))
        return hard(d, "more than %u elements in \"%s\"", CDC_CJ_MAX_ROWS, key_of(d));
    char why[400];
    if (ev == EV_KEY) {
        tmp_push(d);
        cdc_value_t *k = &d->tmp_keys[d->tmp_n - 1];
        k->v.s.ptr = cdc_arena_memdup(&d->out->arena, s, len);
        k->v.s.len = (uint32_t)len;
        k->flags = 0;
        d->tmp_vals[d->tmp_n - 1].flags = CDC_V_NULL;
        return 1;
    }
    uint32_t idx = map ? d->tmp_n - 1 : d->tmp_n;
    if (is_open(ev)) {
        if (map)
            defer(d, "\"%s\": key \"%.*s\": expected INT, found %s", key_of(d),
                  (int)(d->tmp_keys[idx].v.s.len > 60 ? 60 : d->tmp_keys[idx].v.s.len),
                  d->tmp_keys[idx].v.s.ptr, noun(ev));
        else
            defer(d, "\"%s\"[%u]: expected STRING, found %s", key_of(d), idx, noun(ev));
        return skip_value(d, ev, d->state);
    }
    if (!map)
        tmp_push(d);
    cdc_value_t *v = &d->tmp_vals[idx];
    if (cdc_json_convert_scalar(map ? &int_type : &text_type, scalar_kind(ev), s, len, false,
                                &d->out->arena, v, why, sizeof(why)) < 0) {
        v->flags = CDC_V_NULL;
        if (map)
            defer(d, "\"%s\": key \"%.*s\": %s", key_of(d),
                  (int)(d->tmp_keys[idx].v.s.len > 60 ? 60 : d->tmp_keys[idx].v.s.len),
                  d->tmp_keys[idx].v.s.ptr, why);
        else
            defer(d, "\"%s\"[%u]: %s", key_of(d), idx, why);
    }
    return 1;
}

static int value_event(cdc_cj_deser_t *d, int ev, const char *s, size_t len)
{
    if (d->cur < 0)
        return skip_value(d, ev, S_ENV);
    const cdc_cj_field_t *f = &d->fmt->fields[d->cur];
    cdc_cj_slot_t *slot = &d->slots[d->cur];
    if (ev == EV_NULL) {
        slot->state = CDC_CJ_NULL;
        d->state = S_ENV;
        return 1;
    }
    switch (f->kind) {
    case CDC_CJ_ROWS:
    case CDC_CJ_OVERLAY:
        slot->first = d->nitems;
        slot->n = 0;
        d->elem = 0;
        if (f->array) {
            if (ev != EV_SARR)
                return wrong(d, ev, "an array of objects", S_ENV);
            slot->state = CDC_CJ_SET;
            d->state = S_LIST;
            return 1;
        }
        if (ev != EV_SMAP)
            return wrong(d, ev, "an object", S_ENV);
        slot->state = CDC_CJ_SET;
        return begin_row(d, S_ENV);
    case CDC_CJ_TEXT:
    case CDC_CJ_INT:
    case CDC_CJ_BOOL: {
        const cdc_type_t *t = f->kind == CDC_CJ_TEXT  ? &text_type
                              : f->kind == CDC_CJ_INT ? &bigint_type
                                                      : &bool_type;
        if (is_open(ev))
            return wrong(d, ev,
                         f->kind == CDC_CJ_TEXT  ? "a string"
                         : f->kind == CDC_CJ_INT ? "an integer"
                                                 : "a boolean",
                         S_ENV);
        char why[400];
        if (cdc_json_convert_scalar(t, scalar_kind(ev), s, len, false, &d->out->arena, &slot->val,
                                    why, sizeof(why)) < 0)
            defer(d, "\"%s\": %s", f->key, why);
        else
            slot->state = CDC_CJ_SET;
        d->state = S_ENV;
        return 1;
    }
    case CDC_CJ_TEXT_ARRAY:
        if (ev != EV_SARR)
            return wrong(d, ev, "an array of strings", S_ENV);
        d->tmp_n = 0;
        d->state = S_TEXTS;
        return 1;
    case CDC_CJ_INT_MAP:
        if (ev != EV_SMAP)
            return wrong(d, ev, "an object of integers", S_ENV);
        d->tmp_n = 0;
        d->state = S_INTS;
        return 1;
    default:
        return skip_value(d, ev, S_ENV);
    }
}

static int find_env(const cdc_cj_deser_t *d, const char *s, size_t len)
{
    for (int i = 0; i < d->nenv; i++) {
        const char *k = d->fmt->fields[i].key;
        if (d->wanted[i] && strlen(k) == len && memcmp(k, s, len) == 0)
            return i;
    }
    return -1;
}

static int event(cdc_cj_deser_t *d, int ev, const char *s, size_t len)
{
    switch (d->state) {
    case S_ROW:
        return row_event(d, ev, s, len);
    case S_SKIP:
        return skip_event(d, ev);
    case S_ROOT:
        if (ev != EV_SMAP)
            return hard(d, "expected a JSON object, found %s", noun(ev));
        d->state = S_ENV;
        return 1;
    case S_ENV:
        if (ev == EV_EMAP) {
            d->state = S_DONE;
            cdc_json_parser_mark_end(d->parser);
            return 1;
        }
        d->cur = find_env(d, s, len); /* yajl: only keys and end_map occur here */
        if (d->cur >= 0 && d->slots[d->cur].state != CDC_CJ_ABSENT) {
            /* a repeated key: the last wins, as in Jackson (Flink's parser); the earlier
               value and its problem go (its rows stay unreferenced in the arena) */
            bool was_bad = d->slots[d->cur].state == CDC_CJ_BAD;
            memset(&d->slots[d->cur], 0, sizeof(d->slots[0]));
            if (was_bad)
                refresh_deferred(d);
        }
        d->state = S_VALUE;
        return 1;
    case S_VALUE:
        return value_event(d, ev, s, len);
    case S_LIST:
        if (ev == EV_EARR) {
            d->state = S_ENV;
            return 1;
        }
        if (ev == EV_SMAP)
            return begin_row(d, S_LIST);
        defer(d, "\"%s\"[%u]: expected an object, found %s", key_of(d), d->elem, noun(ev));
        d->elem++;
        return skip_value(d, ev, S_LIST);
    case S_TEXTS:
    case S_INTS:
        return collection_event(d, ev, s, len);
    default:
        return hard(d, "unexpected JSON after the message");
    }
}

static int on_null(void *ctx)
{
    return event(ctx, EV_NULL, "null", 4);
}

static int on_bool(void *ctx, int b)
{
    return b ? event(ctx, EV_BOOL, "true", 4) : event(ctx, EV_BOOL, "false", 5);
}

static int on_number(void *ctx, const char *s, size_t len)
{
    return event(ctx, EV_NUM, s, len);
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
    return event(ctx, EV_STR, (const char *)s, len);
}

static int on_map_key(void *ctx, const unsigned char *s, size_t len)
{
    return event(ctx, EV_KEY, (const char *)s, len);
}

static int on_start_map(void *ctx)
{
    return event(ctx, EV_SMAP, NULL, 0);
}

static int on_end_map(void *ctx)
{
    return event(ctx, EV_EMAP, NULL, 0);
}

static int on_start_array(void *ctx)
{
    return event(ctx, EV_SARR, NULL, 0);
}

static int on_end_array(void *ctx)
{
    return event(ctx, EV_EARR, NULL, 0);
}

static const yajl_callbacks cj_callbacks = {
    .yajl_null = on_null,
    .yajl_boolean = on_bool,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_map_key,
    .yajl_end_map = on_end_map,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end_array,
};

/* ---- decode -------------------------------------------------------------------------------- */

static int cj_decode(cdc_deser_t *base, const char *msg, size_t len, cdc_batch_t *out)
{
    cdc_cj_deser_t *d = (cdc_cj_deser_t *)base;
    if (!msg || len == 0)
        return CDC_DECODE_OK; /* tombstone */
    uint32_t before = out->n;
    memset(d->slots, 0, sizeof(d->slots[0]) * (size_t)d->nenv);
    d->nitems = 0;
    d->failed = false;
    d->seq = 0;
    d->meta = NULL;
    d->origin = NULL;
    d->out = out;
    d->state = S_ROOT;
    d->cur = -1;
    cdc_buf_clear(&d->reason);
    cdc_json_rowdec_set_input(d->rowdec, msg, len);
    cdc_json_rowdec_set_input(d->ovdec, msg, len);
    int rc = cdc_json_parser_parse(d->parser, msg, len, &d->reason);
    cdc_json_rowdec_set_input(d->rowdec, NULL, 0);
    cdc_json_rowdec_set_input(d->ovdec, NULL, 0);
    if (rc == CDC_JSON_PARSE_OK)
        rc = d->fmt->finish(d, out);
    else
        rc = -1;
    d->out = NULL;
    if (rc == 0)
        return CDC_DECODE_OK;
    cdc_batch_truncate(out, out->n - before);
    if (d->ignore_parse_errors) {
        d->base.skipped++;
        return CDC_DECODE_SKIPPED;
    }
    cdc_buf_clear(&d->base.errmsg);
    cdc_buf_printf(&d->base.errmsg, "corrupt %s JSON message: ", d->fmt->name);
    cdc_buf_append(&d->base.errmsg, d->reason.data, d->reason.len);
    return CDC_DECODE_ERROR;
}

/* ---- helpers for finish ---------------------------------------------------------------------- */

bool cdc_cj_text_is(const cdc_cj_deser_t *d, int i, const char *s)
{
    const cdc_cj_slot_t *slot = &d->slots[i];
    size_t n = strlen(s);
    return slot->state == CDC_CJ_SET && slot->val.v.s.len == n &&
           memcmp(slot->val.v.s.ptr, s, n) == 0;
}

/* Parses OGG-style timestamp text: date, ' ' or 'T', time, optional zone (else UTC). */
static int ts_text(const cdc_str_t *s, int precision, cdc_ts_t *out)
{
    bool zoned = false;
    if (s->len < 11 || (s->ptr[10] != ' ' && s->ptr[10] != 'T'))
        return -1;
    return cdc_timestamp_parse(s->ptr, s->len, precision, true, out, &zoned);
}

int cdc_cj_build_meta(cdc_cj_deser_t *d, cdc_batch_t *out)
{
    if (d->nmeta == 0)
        return 0;
    d->meta = cdc_arena_alloc(&out->arena, sizeof(cdc_value_t) * (size_t)d->nmeta);
    for (int m = 0; m < d->nmeta; m++) {
        const cdc_cj_meta_src_t *src = &d->fmt->meta_src[d->meta_ids[m]];
        const cdc_cj_slot_t *slot = &d->slots[src->field];
        cdc_value_t *v = &d->meta[m];
        v->flags = CDC_V_NULL;
        if (slot->state != CDC_CJ_SET)
            continue;
        const char *key = d->fmt->fields[src->field].key;
        switch (src->conv) {
        case CDC_CJ_META_AS_IS:
            *v = slot->val;
            break;
        case CDC_CJ_META_MILLIS:
            v->v.ts.millis = slot->val.v.i;
            v->v.ts.nanos = 0;
            v->flags = 0;
            break;
        case CDC_CJ_META_SECONDS:
            if (slot->val.v.i > INT64_MAX / 1000 || slot->val.v.i < INT64_MIN / 1000)
                return cdc_cj_fail(d, "\"%s\": %lld seconds is out of range", key,
                                   (long long)slot->val.v.i);
            v->v.ts.millis = slot->val.v.i * 1000;
            v->v.ts.nanos = 0;
            v->flags = 0;
            break;
        case CDC_CJ_META_TS_TEXT:
            if (ts_text(&slot->val.v.s, src->precision, &v->v.ts) < 0) {
                uint32_t n = slot->val.v.s.len > 60 ? 60 : slot->val.v.s.len;
                return cdc_cj_fail(d,
                                   "\"%s\": expected a timestamp \"yyyy-MM-dd HH:mm:ss.ffffff\", "
                                   "found string \"%.*s%s\"",
                                   key, (int)n, slot->val.v.s.ptr,
                                   n < slot->val.v.s.len ? "..." : "");
            }
            v->flags = 0;
            break;
        }
    }
    return 0;
}

void cdc_cj_set_origin(cdc_cj_deser_t *d, cdc_batch_t *out, int db_field, int table_field)
{
    const cdc_cj_slot_t *db = db_field >= 0 ? &d->slots[db_field] : NULL;
    const cdc_cj_slot_t *tb = table_field >= 0 ? &d->slots[table_field] : NULL;
    bool has_db = db && db->state == CDC_CJ_SET;
    bool has_tb = tb && tb->state == CDC_CJ_SET;
    d->origin = NULL;
    if (!has_db && !has_tb)
        return;
    size_t n = (has_db ? db->val.v.s.len : 0) + (has_tb ? tb->val.v.s.len : 0) + 2;
    char *p = cdc_arena_alloc(&out->arena, n);
    size_t w = 0;
    if (has_db) {
        memcpy(p, db->val.v.s.ptr, db->val.v.s.len);
        w = db->val.v.s.len;
    }
    if (has_db && has_tb)
        p[w++] = '.';
    if (has_tb) {
        memcpy(p + w, tb->val.v.s.ptr, tb->val.v.s.len);
        w += tb->val.v.s.len;
    }
    p[w] = '\0';
    d->origin = p;
}

int cdc_cj_emit(cdc_cj_deser_t *d, cdc_batch_t *out, cdc_kind_t kind, const cdc_cj_item_t *data,
                const cdc_cj_item_t *overlay, const char *what)
{
    if (overlay) {
        for (uint32_t i = 0; i < d->nfields; i++) {
            if (!(overlay->present[i >> 6] & ((uint64_t)1 << (i & 63))))
                continue;
            const cdc_type_t *t = d->row_type->children[i];
            if (!t->nullable && cdc_value_is_null(&overlay->values[i])) {
                char why[400];
                cdc_value_t ignored;
                cdc_json_convert_scalar(t, 'n', "null", 4, false, &out->arena, &ignored, why,
                                        sizeof(why));
                return cdc_cj_fail(d, "%s: field \"%s\": %s", what, d->row_type->names[i], why);
            }
        }
    }
    cdc_row_t *row = cdc_batch_add(out, kind, d->nfields + (uint32_t)d->nmeta);
    memcpy(row->values, data->values, sizeof(cdc_value_t) * d->nfields);
    if (overlay)
        for (uint32_t i = 0; i < d->nfields; i++)
            if (overlay->present[i >> 6] & ((uint64_t)1 << (i & 63)))
                row->values[i] = overlay->values[i];
    if (d->nmeta)
        memcpy(row->values + d->nfields, d->meta, sizeof(cdc_value_t) * (size_t)d->nmeta);
    row->origin = d->origin;
    return 0;
}

/* ---- deserializer set-up ------------------------------------------------------------------------
 */

static void cj_deser_destroy(cdc_deser_t *base)
{
    cdc_cj_deser_t *d = (cdc_cj_deser_t *)base;
    if (!d)
        return;
    if (d->fmt->fini)
        d->fmt->fini(d);
    cdc_json_parser_destroy(d->parser);
    cdc_json_rowdec_destroy(d->rowdec);
    cdc_json_rowdec_destroy(d->ovdec);
    cdc_type_destroy(d->row_type);
    cdc_type_destroy(d->relaxed);
    free(d->name_len);
    free(d->meta_ids);
    free(d->items);
    free(d->tmp_keys);
    free(d->tmp_vals);
    cdc_buf_free(&d->reason);
    for (int i = 0; i < CDC_CJ_MAX_FIELDS; i++)
        cdc_buf_free(&d->why[i]);
    cdc_buf_free(&d->base.errmsg);
    free(d);
}

static const cdc_deser_ops_t cj_deser_ops = {
    .decode = cj_decode,
    .destroy = cj_deser_destroy,
};

/* The row type is a ROW the JSON writers and readers can handle. */
static int check_row_type(const cdc_cj_format_t *fmt, const cdc_format_ctx_t *ctx,
                          cdc_error_t **err)
{
    if (!ctx->row_type || ctx->row_type->root != CDC_T_ROW)
        return cdc_error_set(err, CDC_ERR_INTERNAL, "format \"%s\" needs a ROW type",
                             fmt->identifier);
    if (cdc_json_check_type(ctx->row_type, err) < 0) {
        if (ctx->table)
            cdc_error_add_context(*err, "table \"%s\"", ctx->table);
        return -1;
    }
    return 0;
}

/* Maps the requested metadata keys to indexes into fmt->metadata. */
static int resolve_metadata(const cdc_cj_format_t *fmt, const cdc_format_ctx_t *ctx, int *ids,
                            cdc_error_t **err)
{
    for (int m = 0; m < ctx->nmetadata; m++) {
        ids[m] = -1;
        const char *names[CDC_CJ_MAX_FIELDS];
        int n = 0;
        for (int k = 0; fmt->metadata[k].key; k++) {
            if (n < CDC_CJ_MAX_FIELDS)
                names[n++] = fmt->metadata[k].key;
            if (strcmp(fmt->metadata[k].key, ctx->metadata[m]) == 0)
                ids[m] = k;
        }
        if (ids[m] >= 0)
            continue;
        cdc_buf_t list = {0};
        for (int k = 0; k < n; k++)
            cdc_buf_printf(&list, "%s%s", k ? ", " : "", names[k]);
        cdc_error_t *e = cdc_error_new(CDC_ERR_OPTION, "format \"%s\" has no metadata key \"%s\"",
                                       fmt->identifier, ctx->metadata[m]);
        cdc_error_set_detail(e, "available metadata keys: %s", cdc_buf_cstr(&list));
        const char *sug = cdc_closest(ctx->metadata[m], names, n);
        if (sug)
            cdc_error_set_hint(e, "did you mean \"%s\"?", sug);
        if (ctx->table)
            cdc_error_add_context(e, "table \"%s\"", ctx->table);
        cdc_buf_free(&list);
        cdc_error_destroy(*err);
        *err = e;
        return -1;
    }
    return 0;
}

int cdc_cj_deser_new(const cdc_cj_format_t *fmt, const cdc_format_ctx_t *ctx, cdc_deser_t **out,
                     cdc_error_t **err)
{
    if (check_row_type(fmt, ctx, err) < 0)
        return -1;
    int *ids = cdc_xcalloc((size_t)ctx->nmetadata + 1, sizeof(int));
    if (resolve_metadata(fmt, ctx, ids, err) < 0) {
        free(ids);
        return -1;
    }
    cdc_cj_deser_t *d = cdc_xcalloc(1, fmt->deser_size);
    d->base.ops = &cj_deser_ops;
    d->fmt = fmt;
    d->meta_ids = ids;
    d->nmeta = ctx->nmetadata;
    d->row_type = cdc_type_copy(ctx->row_type);
    d->relaxed = cdc_type_copy(ctx->row_type);
    d->nfields = (uint32_t)d->row_type->nchildren;
    d->name_len = cdc_xcalloc(d->nfields + 1, sizeof(uint32_t));
    for (uint32_t i = 0; i < d->nfields; i++) {
        d->relaxed->children[i]->nullable = true; /* "old" carries only some columns */
        d->name_len[i] = (uint32_t)strlen(d->row_type->names[i]);
    }
    while (fmt->fields[d->nenv].key)
        d->nenv++;
    for (int i = 0; i < d->nenv; i++)
        d->wanted[i] = !fmt->fields[i].meta_only && fmt->fields[i].kind != CDC_CJ_SKIP;
    for (int m = 0; m < d->nmeta; m++)
        d->wanted[fmt->meta_src[ids[m]].field] = true;
    d->ignore_parse_errors = cdc_config_bool(ctx->cfg, "ignore-parse-errors");
    cdc_json_opts_t opts = {
        .fail_on_missing_field = false,
        .iso8601 = cdc_config_enum(ctx->cfg, "timestamp-format.standard") == 1,
        .bool_digits = fmt->bool_digits,
    };
    d->rowdec = cdc_json_rowdec_new(d->row_type, &opts);
    d->ovdec = cdc_json_rowdec_new(d->relaxed, &opts);
    d->parser = cdc_json_parser_new(&cj_callbacks, d);
    if (fmt->init && fmt->init(d, ctx, err) < 0) {
        cj_deser_destroy(&d->base);
        return -1;
    }
    *out = &d->base;
    return 0;
}

/* ---- serializer ------------------------------------------------------------------------------ */

typedef struct cj_ser_s {
    cdc_ser_t base;
    const cdc_cj_format_t *fmt;
    cdc_type_t *row_type;
    cdc_json_encode_opts_t opts;
    char *literal;
} cj_ser_t;

static int cj_encode(cdc_ser_t *base, const cdc_row_t *row, cdc_buf_t *out)
{
    cj_ser_t *s = (cj_ser_t *)base;
    const cdc_cj_format_t *fmt = s->fmt;
    bool ins = row->kind == CDC_INSERT || row->kind == CDC_UPDATE_AFTER;
    if (!ins && row->kind != CDC_UPDATE_BEFORE && row->kind != CDC_DELETE) {
        cdc_buf_clear(&s->base.errmsg);
        cdc_buf_printf(&s->base.errmsg, "format \"%s\" cannot write a row of kind %d",
                       fmt->identifier, (int)row->kind);
        return -1;
    }
    if (row->arity < (uint32_t)s->row_type->nchildren) {
        cdc_buf_clear(&s->base.errmsg);
        cdc_buf_printf(&s->base.errmsg, "format \"%s\" needs %d fields, the row has %u",
                       fmt->identifier, s->row_type->nchildren, row->arity);
        return -1;
    }
    size_t start = out->len;
    cdc_buf_puts(out, ins ? fmt->insert_prefix : fmt->delete_prefix);
    if (cdc_json_write_row(out, row, s->row_type, &s->opts) < 0) {
        out->len = start;
        cdc_buf_clear(&s->base.errmsg);
        cdc_buf_puts(&s->base.errmsg, CDC_JSON_ERR_MAP_NULL_KEY);
        return -1;
    }
    cdc_buf_puts(out, ins ? fmt->insert_suffix : fmt->delete_suffix);
    return 0;
}

static void cj_ser_destroy(cdc_ser_t *base)
{
    cj_ser_t *s = (cj_ser_t *)base;
    if (!s)
        return;
    cdc_type_destroy(s->row_type);
    cdc_buf_free(&s->base.errmsg);
    free(s->literal);
    free(s);
}

static const cdc_ser_ops_t cj_ser_ops = {
    .encode = cj_encode,
    .destroy = cj_ser_destroy,
};

int cdc_cj_ser_new(const cdc_cj_format_t *fmt, const cdc_format_ctx_t *ctx, cdc_ser_t **out,
                   cdc_error_t **err)
{
    if (check_row_type(fmt, ctx, err) < 0)
        return -1;
    if (ctx->nmetadata > 0) {
        cdc_error_t *e =
            cdc_error_new(CDC_ERR_OPTION, "format \"%s\" cannot write metadata key \"%s\"",
                          fmt->identifier, ctx->metadata[0]);
        cdc_error_set_hint(e, "the metadata of %s is read-only; declare the column VIRTUAL.",
                           fmt->identifier);
        if (ctx->table)
            cdc_error_add_context(e, "table \"%s\"", ctx->table);
        cdc_error_destroy(*err);
        *err = e;
        return -1;
    }
    cj_ser_t *s = cdc_xcalloc(1, sizeof(*s));
    s->base.ops = &cj_ser_ops;
    s->fmt = fmt;
    s->row_type = cdc_type_copy(ctx->row_type);
    cdc_json_encode_opts_read(ctx->cfg, &s->opts);
    /* own the literal: the serializer may outlive the config */
    s->literal = cdc_xstrdup(s->opts.map_null_key_literal ? s->opts.map_null_key_literal : "null");
    s->opts.map_null_key_literal = s->literal;
    *out = &s->base;
    return 0;
}
