/*
 * canal_json.c — the `canal-json` format (Flink's format='canal-json'): Alibaba
 * Canal's flat JSON messages to changelog rows, and rows back to Canal JSON.
 *
 * A message carries a batch of row images in "data" (an array) with, for an
 * UPDATE, the changed columns of each in "old" (an array of the same length):
 *   {"data":[{..}],"old":[{..}],"database":"db","table":"t","type":"UPDATE",
 *    "isDdl":false,"pkNames":["id"],"sqlType":{"id":4},"ts":1589373515477,"es":..}
 * INSERT and INIT give +I per element; UPDATE gives -U (data overlaid with
 * old: a key present in old replaces the value, explicit null included) then
 * +U per element; DELETE gives -D. DDL (isDdl true, or a DDL type such as
 * CREATE or ALTER) is skipped. database.include / table.include drop the
 * messages of other tables before their rows are looked at.
 *
 * The envelope parsing is the shared engine in cdc_cdcjson_common.c.
 */
#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdc_cdcjson_common.h"

/* Envelope keys (indexes into canal_fields). */
enum { F_DATA, F_OLD, F_TYPE, F_DATABASE, F_TABLE, F_ISDDL, F_SQLTYPE, F_PKNAMES, F_TS, F_ES };

static const cdc_cj_field_t canal_fields[] = {
    [F_DATA] = {.key = "data", .kind = CDC_CJ_ROWS, .array = true},
    [F_OLD] = {.key = "old", .kind = CDC_CJ_OVERLAY, .array = true},
    [F_TYPE] = {.key = "type", .kind = CDC_CJ_TEXT},
    [F_DATABASE] = {.key = "database", .kind = CDC_CJ_TEXT},
    [F_TABLE] = {.key = "table", .kind = CDC_CJ_TEXT},
    [F_ISDDL] = {.key = "isDdl", .kind = CDC_CJ_BOOL},
    [F_SQLTYPE] = {.key = "sqlType", .kind = CDC_CJ_INT_MAP, .meta_only = true},
    [F_PKNAMES] = {.key = "pkNames", .kind = CDC_CJ_TEXT_ARRAY, .meta_only = true},
    [F_TS] = {.key = "ts", .kind = CDC_CJ_INT, .meta_only = true},
    [F_ES] = {.key = "es", .kind = CDC_CJ_INT, .meta_only = true},
    {0},
};

static const cdc_metadata_def_t canal_metadata[] = {
    {"database", "STRING", "Database of the change (\"database\").", false},
    {"table", "STRING", "Table of the change (\"table\").", false},
    {"sql-type", "MAP<STRING, INT>", "JDBC type code of each column (\"sqlType\").", false},
    {"pk-names", "ARRAY<STRING>", "Primary key columns (\"pkNames\").", false},
    {"ingestion-timestamp", "TIMESTAMP_LTZ(3)", "When Canal processed the change (\"ts\").", false},
    {"event-timestamp", "TIMESTAMP_LTZ(3)", "When the change was made in the database (\"es\").",
     false},
    {0},
};

static const cdc_cj_meta_src_t canal_meta_src[] = {
    {F_DATABASE, CDC_CJ_META_AS_IS, 0}, {F_TABLE, CDC_CJ_META_AS_IS, 0},
    {F_SQLTYPE, CDC_CJ_META_AS_IS, 0},  {F_PKNAMES, CDC_CJ_META_AS_IS, 0},
    {F_TS, CDC_CJ_META_MILLIS, 3},      {F_ES, CDC_CJ_META_MILLIS, 3},
};

static const cdc_option_def_t canal_options[] = {
    CDC_CJ_OPTDEF_IGNORE_PARSE_ERRORS,
    CDC_CJ_OPTDEFS_JSON,
    {.key = "database.include",
     .type = CDC_OPT_STRING,
     .description = "Read only messages whose \"database\" matches this regular expression as "
                    "a whole (Java's Pattern.matches). cdcflow uses POSIX extended regular "
                    "expressions plus \\d \\D \\w \\W \\s \\S and (?:...); other Java-only "
                    "syntax (lookaround, inline flags, \\p{..}) is rejected."},
    {.key = "table.include",
     .type = CDC_OPT_STRING,
     .description = "Read only messages whose \"table\" matches this regular expression as a "
                    "whole; the same syntax as database.include."},
    {0},
};

/* ---- include patterns ------------------------------------------------------------------- */

static const char *const include_keys[2] = {"database.include", "table.include"};

/*
 * Rewrites a Java regular expression into a POSIX extended one for the subset
 * both share, plus the shorthand classes Java users write. Returns 0, or -1
 * with a reason in why.
 */
static int java_to_ere(const char *p, cdc_buf_t *out, char *why, size_t whylen)
{
    bool in_class = false;
    for (size_t i = 0; p[i]; i++) {
        char c = p[i];
        if (c == '\\') {
            char n = p[i + 1];
            if (!n) {
                snprintf(why, whylen, "it ends with a backslash");
                return -1;
            }
            i++;
            const char *rep = NULL;
            switch (n) {
            case 'd':
                rep = in_class ? "0-9" : "[0-9]";
                break;
            case 'w':
                rep = in_class ? "[:alnum:]_" : "[[:alnum:]_]";
                break;
            case 's':
                rep = in_class ? "[:space:]" : "[[:space:]]";
                break;
            case 'D':
                rep = in_class ? NULL : "[^0-9]";
                break;
            case 'W':
                rep = in_class ? NULL : "[^[:alnum:]_]";
                break;
            case 'S':
                rep = in_class ? NULL : "[^[:space:]]";
                break;
            default:
                break;
            }
            if (rep) {
                cdc_buf_puts(out, rep);
            } else if (isalnum((unsigned char)n) || (in_class && strchr("[]^-", n))) {
                snprintf(why, whylen, "the escape \\%c is not supported%s", n,
                         in_class ? " inside [...]" : "");
                return -1;
            } else if (in_class || strchr("<>`'", n)) {
                cdc_buf_putc(out, n); /* a literal character */
            } else {
                cdc_buf_putc(out, '\\');
                cdc_buf_putc(out, n);
            }
        } else if (in_class) {
            if (c == ']') {
                in_class = false;
            } else if (c == '[' || (c == '&' && p[i + 1] == '&')) {
                snprintf(why, whylen, "nested or intersected classes [..[..]] are not supported");
                return -1;
            }
            cdc_buf_putc(out, c);
        } else if (c == '[') {
            in_class = true;
            cdc_buf_putc(out, c);
            if (p[i + 1] == '^')
                cdc_buf_putc(out, p[++i]);
            if (p[i + 1] == ']')
                cdc_buf_putc(out, p[++i]);
        } else if (c == '(' && p[i + 1] == '?') {
            if (p[i + 2] != ':') {
                snprintf(why, whylen, "groups \"(?...)\" other than \"(?:...)\" are not supported");
                return -1;
            }
            cdc_buf_putc(out, '(');
            i += 2;
        } else {
            cdc_buf_putc(out, c);
        }
    }
    if (in_class) {
        snprintf(why, whylen, "a [ is not closed");
        return -1;
    }
    return 0;
}

/* Compiles pattern as a whole-string match. Returns 0, or -1 with a reason in why. */
static int include_compile(const char *pattern, regex_t *re, char *why, size_t whylen)
{
    cdc_buf_t ere = {0};
    int rc = java_to_ere(pattern, &ere, why, whylen);
    if (rc == 0) {
        /* alone first: "a)(b" must not pass as the group in "^(a)(b)$" */
        int e = regcomp(re, cdc_buf_cstr(&ere), REG_EXTENDED | REG_NOSUB);
        if (e == 0) {
            regfree(re);
            char *anchored = cdc_strdup_printf("^(%s)$", cdc_buf_cstr(&ere));
            e = regcomp(re, anchored, REG_EXTENDED | REG_NOSUB);
            free(anchored);
        }
        if (e != 0) {
            regerror(e, NULL, why, whylen);
            rc = -1;
        }
    }
    cdc_buf_free(&ere);
    return rc;
}

static void canal_check(const cdc_config_t *cfg, cdc_buf_t *problems)
{
    for (int k = 0; k < 2; k++) {
        const char *pattern = cdc_config_str(cfg, include_keys[k]);
        if (!pattern)
            continue;
        regex_t re;
        char why[256];
        if (include_compile(pattern, &re, why, sizeof(why)) < 0) {
            cdc_buf_printf(problems, "option \"%s\": invalid regular expression \"%s\": %s\n",
                           include_keys[k], pattern, why);
            continue;
        }
        regfree(&re);
    }
}

/* ---- deserializer ------------------------------------------------------------------------ */

typedef struct canal_deser_s {
    cdc_cj_deser_t cj;
    regex_t include[2]; /* database, table */
    bool has_include[2];
    cdc_buf_t name; /* the name being matched, NUL-terminated */
} canal_deser_t;

static int canal_init(cdc_cj_deser_t *cj, const cdc_format_ctx_t *ctx, cdc_error_t **err)
{
    canal_deser_t *d = (canal_deser_t *)cj;
    for (int k = 0; k < 2; k++) {
        const char *pattern = cdc_config_str(ctx->cfg, include_keys[k]);
        if (!pattern)
            continue;
        char why[256];
        if (include_compile(pattern, &d->include[k], why, sizeof(why)) < 0) {
            cdc_error_t *e =
                cdc_error_new(CDC_ERR_OPTION, "option \"%s\": invalid regular expression \"%s\"",
                              include_keys[k], pattern);
            cdc_error_set_detail(e, "%s", why);
            cdc_error_set_hint(e, "the whole name must match, e.g. 'inventory|shop_.*'.");
            if (ctx->table)
                cdc_error_add_context(e, "table \"%s\"", ctx->table);
            cdc_error_destroy(*err);
            *err = e;
            return -1;
        }
        d->has_include[k] = true;
    }
    return 0;
}

static void canal_fini(cdc_cj_deser_t *cj)
{
    canal_deser_t *d = (canal_deser_t *)cj;
    for (int k = 0; k < 2; k++)
        if (d->has_include[k])
            regfree(&d->include[k]);
    cdc_buf_free(&d->name);
}

/* True when the message's database (k = 0) or table (k = 1) passes its include pattern. */
static bool canal_included(canal_deser_t *d, int k)
{
    const cdc_cj_slot_t *slot = &d->cj.slots[k == 0 ? F_DATABASE : F_TABLE];
    cdc_buf_clear(&d->name);
    if (slot->state == CDC_CJ_SET) /* absent or null is matched as "" */
        cdc_buf_append(&d->name, slot->val.v.s.ptr, slot->val.v.s.len);
    regmatch_t span = {.rm_so = 0, .rm_eo = (regoff_t)d->name.len};
    return regexec(&d->include[k], cdc_buf_cstr(&d->name), 1, &span, REG_STARTEND) == 0;
}

/* Canal's DDL and control event types: skipped like CREATE. */
static bool canal_is_ddl_type(const cdc_cj_deser_t *cj)
{
    static const char *const ddl[] = {"CREATE",     "ALTER",      "ERASE",  "QUERY", "TRUNCATE",
                                      "RENAME",     "CINDEX",     "DINDEX", "GTID",  "XACOMMIT",
                                      "XAROLLBACK", "MHEARTBEAT", NULL};
    for (int i = 0; ddl[i]; i++)
        if (cdc_cj_text_is(cj, F_TYPE, ddl[i]))
            return true;
    return false;
}

static const char *state_word(uint8_t state)
{
    return state == CDC_CJ_NULL ? "null" : "missing";
}

static int canal_finish(cdc_cj_deser_t *cj, cdc_batch_t *out)
{
    canal_deser_t *d = (canal_deser_t *)cj;
    for (int k = 0; k < 2; k++) {
        if (!d->has_include[k])
            continue;
        if (cj->slots[k == 0 ? F_DATABASE : F_TABLE].state == CDC_CJ_BAD)
            return cdc_cj_pending(cj);
        if (!canal_included(d, k))
            return 0; /* another database or table: dropped unread */
    }
    const cdc_cj_slot_t *ddl = &cj->slots[F_ISDDL];
    if (ddl->state == CDC_CJ_SET && ddl->val.v.b)
        return 0;
    const cdc_cj_slot_t *type = &cj->slots[F_TYPE];
    if (type->state == CDC_CJ_BAD)
        return cdc_cj_pending(cj);
    if (type->state != CDC_CJ_SET)
        return cdc_cj_fail(cj, "\"type\" is %s", state_word(type->state));
    bool insert = cdc_cj_text_is(cj, F_TYPE, "INSERT") || cdc_cj_text_is(cj, F_TYPE, "INIT");
    bool update = cdc_cj_text_is(cj, F_TYPE, "UPDATE");
    bool delete = cdc_cj_text_is(cj, F_TYPE, "DELETE");
    if (!insert && !update && !delete) {
        if (canal_is_ddl_type(cj))
            return 0;
        uint32_t n = type->val.v.s.len > 60 ? 60 : type->val.v.s.len;
        return cdc_cj_fail(cj, "unknown \"type\" value \"%.*s%s\"", (int)n, type->val.v.s.ptr,
                           n < type->val.v.s.len ? "..." : "");
    }
    if (cdc_cj_pending(cj) < 0)
        return -1;
    const cdc_cj_slot_t *data = &cj->slots[F_DATA];
    if (data->state != CDC_CJ_SET)
        return cdc_cj_fail(cj, "\"data\" is %s", state_word(data->state));
    const cdc_cj_slot_t *old = &cj->slots[F_OLD];
    if (update && old->state != CDC_CJ_SET)
        return cdc_cj_fail(cj, "\"old\" is %s in an UPDATE", state_word(old->state));
    if (update && old->n != data->n)
        return cdc_cj_fail(cj, "\"old\" has %u rows but \"data\" has %u", old->n, data->n);
    if (cdc_cj_build_meta(cj, out) < 0)
        return -1;
    cdc_cj_set_origin(cj, out, F_DATABASE, F_TABLE);
    for (uint32_t i = 0; i < data->n; i++) {
        const cdc_cj_item_t *row = cdc_cj_item(cj, F_DATA, i);
        if (insert) {
            cdc_cj_emit(cj, out, CDC_INSERT, row, NULL, NULL);
        } else if (delete) {
            cdc_cj_emit(cj, out, CDC_DELETE, row, NULL, NULL);
        } else {
            char what[32];
            snprintf(what, sizeof(what), "\"old\"[%u]", i);
            if (cdc_cj_emit(cj, out, CDC_UPDATE_BEFORE, row, cdc_cj_item(cj, F_OLD, i), what) < 0)
                return -1;
            cdc_cj_emit(cj, out, CDC_UPDATE_AFTER, row, NULL, NULL);
        }
    }
    return 0;
}

static const cdc_cj_format_t canal_format = {
    .name = "Canal",
    .identifier = "canal-json",
    .fields = canal_fields,
    .metadata = canal_metadata,
    .meta_src = canal_meta_src,
    .deser_size = sizeof(canal_deser_t),
    .bool_digits = true, /* MySQL BOOLEAN is TINYINT(1): Canal sends "0" and "1" */
    .init = canal_init,
    .fini = canal_fini,
    .finish = canal_finish,
    .insert_prefix = "{\"data\":[",
    .insert_suffix = "],\"type\":\"INSERT\"}",
    .delete_prefix = "{\"data\":[",
    .delete_suffix = "],\"type\":\"DELETE\"}",
};

CDC_CJ_CONSTRUCTORS(canal, canal_format)

const cdc_format_factory_t cdc_format_canal_json = {
    .identifier = "canal-json",
    .description = "Canal JSON change messages (data/old arrays, type INSERT/UPDATE/DELETE), "
                   "as Flink's canal-json format.",
    .options = canal_options,
    .check = canal_check,
    .metadata = canal_metadata,
    .decode_mode = cdc_cj_mode_all,
    .encode_mode = cdc_cj_mode_all,
    .deser_new = canal_deser_new,
    .ser_new = canal_ser_new,
};
