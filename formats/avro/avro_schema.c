/*
 * avro_schema.c — Avro schemas: parsing schema JSON into a node graph that
 * keeps the attributes the binary decoder needs (logicalType and Kafka
 * Connect's connect.name / connect.parameters.scale, which Avro C drops), and
 * deriving the schema of a table as Flink's AvroSchemaConverter does.
 */
#include <avro.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "avro_int.h"
#include "cdc_json.h"

/* ---- parsing -------------------------------------------------------------------------------- */

typedef struct parse_s {
    av_schema_t *s;
    char **names; /* named types: full names and short names */
    av_node_t **named;
    int nnamed, capnamed;
    char *why;
    int depth;
} parse_t;

static av_node_t *node_new(parse_t *ps, av_kind_t kind)
{
    av_schema_t *s = ps->s;
    av_node_t *n = cdc_xcalloc(1, sizeof(*n));
    n->kind = kind;
    if (s->nall == s->capall) {
        s->capall = s->capall ? s->capall * 2 : 16;
        s->all = cdc_xrealloc(s->all, (size_t)s->capall * sizeof(*s->all));
    }
    s->all[s->nall++] = n;
    return n;
}

static void *perr(parse_t *ps, const char *fmt, ...) CDC_PRINTF(2, 3);
static void *perr(parse_t *ps, const char *fmt, ...)
{
    if (!ps->why) {
        cdc_buf_t b = {0};
        va_list ap;
        va_start(ap, fmt);
        char tmp[512];
        vsnprintf(tmp, sizeof(tmp), fmt, ap);
        va_end(ap);
        cdc_buf_puts(&b, tmp);
        ps->why = cdc_xstrdup(cdc_buf_cstr(&b));
        cdc_buf_free(&b);
    }
    return NULL;
}

static void name_add(parse_t *ps, const char *name, av_node_t *n)
{
    for (int i = 0; n->name && strcmp(name, n->name) == 0 && i < ps->nnamed; i++)
        if (ps->named[i] != n && strcmp(ps->named[i]->name, name) == 0) {
            perr(ps, "the name \"%s\" is defined twice", name);
            return;
        }
    if (ps->nnamed == ps->capnamed) {
        ps->capnamed = ps->capnamed ? ps->capnamed * 2 : 8;
        ps->names = cdc_xrealloc(ps->names, (size_t)ps->capnamed * sizeof(char *));
        ps->named = cdc_xrealloc(ps->named, (size_t)ps->capnamed * sizeof(av_node_t *));
    }
    ps->names[ps->nnamed] = cdc_xstrdup(name);
    ps->named[ps->nnamed++] = n;
}

static av_node_t *name_find(const parse_t *ps, const char *name, const char *ns)
{
    char full[512];
    if (ns && *ns && !strchr(name, '.'))
        snprintf(full, sizeof(full), "%s.%s", ns, name);
    else
        snprintf(full, sizeof(full), "%s", name);
    for (int pass = 0; pass < 2; pass++)
        for (int i = ps->nnamed - 1; i >= 0; i--)
            if (strcmp(ps->names[i], pass ? name : full) == 0)
                return ps->named[i];
    return NULL;
}

static yajl_val member(yajl_val obj, const char *key)
{
    if (!YAJL_IS_OBJECT(obj))
        return NULL;
    for (size_t i = 0; i < obj->u.object.len; i++)
        if (strcmp(obj->u.object.keys[i], key) == 0)
            return obj->u.object.values[i];
    return NULL;
}

static const char *member_str(yajl_val obj, const char *key)
{
    yajl_val v = member(obj, key);
    return YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL;
}

/* An integer attribute (Avro: a number; Kafka Connect's parameters: a string). */
static bool member_int(yajl_val obj, const char *key, long long *out)
{
    yajl_val v = member(obj, key);
    if (YAJL_IS_INTEGER(v)) {
        *out = YAJL_GET_INTEGER(v);
        return true;
    }
    const char *s = YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL;
    if (s && *s) {
        char *end;
        *out = strtoll(s, &end, 10);
        return !*end;
    }
    return false;
}

static const struct {
    const char *name;
    av_kind_t kind;
} primitives[] = {
    {"null", AV_NULL},   {"boolean", AV_BOOLEAN}, {"int", AV_INT},     {"long", AV_LONG},
    {"float", AV_FLOAT}, {"double", AV_DOUBLE},   {"bytes", AV_BYTES}, {"string", AV_STRING},
};

static const struct {
    const char *name;
    av_logical_t lt;
} logicals[] = {
    /* Avro's logicalType */
    {"date", AV_LT_DATE},
    {"time-millis", AV_LT_TIME_MS},
    {"time-micros", AV_LT_TIME_US},
    {"timestamp-millis", AV_LT_TS_MS},
    {"timestamp-micros", AV_LT_TS_US},
    {"timestamp-nanos", AV_LT_TS_NS},
    {"local-timestamp-millis", AV_LT_TS_MS},
    {"local-timestamp-micros", AV_LT_TS_US},
    {"local-timestamp-nanos", AV_LT_TS_NS},
    /* Kafka Connect's and Debezium's connect.name */
    {"org.apache.kafka.connect.data.Date", AV_LT_DATE},
    {"org.apache.kafka.connect.data.Time", AV_LT_TIME_MS},
    {"org.apache.kafka.connect.data.Timestamp", AV_LT_TS_MS},
    {"io.debezium.time.Date", AV_LT_DATE},
    {"io.debezium.time.Time", AV_LT_TIME_MS},
    {"io.debezium.time.MicroTime", AV_LT_TIME_US},
    {"io.debezium.time.NanoTime", AV_LT_TIME_NS},
    {"io.debezium.time.Timestamp", AV_LT_TS_MS},
    {"io.debezium.time.MicroTimestamp", AV_LT_TS_US},
    {"io.debezium.time.NanoTimestamp", AV_LT_TS_NS},
    {"io.debezium.time.ZonedTimestamp", AV_LT_ZONED},
};

static void set_logical(av_node_t *n, yajl_val obj)
{
    const char *lt = member_str(obj, "logicalType");
    const char *cn = member_str(obj, "connect.name");
    long long scale = 0;
    if ((lt && strcmp(lt, "decimal") == 0) && (n->kind == AV_BYTES || n->kind == AV_FIXED)) {
        n->logical = AV_LT_DECIMAL;
        n->scale = member_int(obj, "scale", &scale) ? (int32_t)scale : 0;
        return;
    }
    if (cn && strcmp(cn, "org.apache.kafka.connect.data.Decimal") == 0 &&
        (n->kind == AV_BYTES || n->kind == AV_FIXED)) {
        n->logical = AV_LT_DECIMAL;
        n->scale =
            member_int(member(obj, "connect.parameters"), "scale", &scale) ? (int32_t)scale : 0;
        return;
    }
    for (size_t i = 0; i < sizeof(logicals) / sizeof(logicals[0]); i++) {
        if ((lt && strcmp(lt, logicals[i].name) == 0) ||
            (cn && strcmp(cn, logicals[i].name) == 0)) {
            av_logical_t l = logicals[i].lt;
            bool fits = l == AV_LT_ZONED ? n->kind == AV_STRING
                        : l == AV_LT_DATE || l == AV_LT_TIME_MS
                            ? n->kind == AV_INT || n->kind == AV_LONG
                            : n->kind == AV_LONG;
            if (fits) /* a logical type on the wrong type is ignored, as the spec says */
                n->logical = l;
            return;
        }
    }
}

static av_node_t *parse_node(parse_t *ps, yajl_val v, const char *ns);

static char *full_name(yajl_val obj, const char *ns, const char **ns_out)
{
    const char *name = member_str(obj, "name");
    const char *own = member_str(obj, "namespace");
    if (!name)
        return NULL;
    char buf[512];
    if (strchr(name, '.')) {
        snprintf(buf, sizeof(buf), "%s", name);
    } else {
        const char *space = own ? own : ns;
        snprintf(buf, sizeof(buf), "%s%s%s", space && *space ? space : "",
                 space && *space ? "." : "", name);
    }
    char *dot = strrchr(buf, '.');
    static __thread char nsbuf[512];
    snprintf(nsbuf, sizeof(nsbuf), "%.*s", dot ? (int)(dot - buf) : 0, buf);
    *ns_out = nsbuf;
    return cdc_xstrdup(buf);
}

static av_node_t *parse_named(parse_t *ps, yajl_val obj, const char *type, const char *ns)
{
    const char *inner_ns = ns;
    char *full = full_name(obj, ns, &inner_ns);
    if (!full)
        return perr(ps, "a %s without a \"name\"", type);
    char nsdup[512];
    snprintf(nsdup, sizeof(nsdup), "%s", inner_ns);
    av_node_t *n = NULL;
    if (strcmp(type, "record") == 0 || strcmp(type, "error") == 0) {
        n = node_new(ps, AV_RECORD);
        n->name = full;
        name_add(ps, full, n);
        const char *dot = strrchr(full, '.');
        if (dot)
            name_add(ps, dot + 1, n);
        yajl_val fields = member(obj, "fields");
        if (!YAJL_IS_ARRAY(fields))
            return perr(ps, "record \"%s\" has no \"fields\" array", full);
        size_t nf = fields->u.array.len;
        n->n = (int32_t)nf;
        n->kids = cdc_xcalloc(nf + 1, sizeof(*n->kids));
        n->names = cdc_xcalloc(nf + 1, sizeof(*n->names));
        for (size_t i = 0; i < nf; i++) {
            yajl_val f = fields->u.array.values[i];
            const char *fname = member_str(f, "name");
            yajl_val ftype = member(f, "type");
            if (!fname || !ftype)
                return perr(ps, "field %zu of record \"%s\" lacks \"name\" or \"type\"", i, full);
            n->names[i] = cdc_xstrdup(fname);
            if (!(n->kids[i] = parse_node(ps, ftype, nsdup)))
                return NULL;
        }
        const char *cn = member_str(obj, "connect.name");
        if (((cn && strcmp(cn, "io.debezium.data.VariableScaleDecimal") == 0) ||
             strcmp(full, "io.debezium.data.VariableScaleDecimal") == 0) &&
            nf == 2 && n->kids[0]->kind == AV_INT && n->kids[1]->kind == AV_BYTES &&
            strcmp(n->names[0], "scale") == 0 && strcmp(n->names[1], "value") == 0)
            n->logical = AV_LT_VSD;
        return n;
    }
    if (strcmp(type, "enum") == 0) {
        n = node_new(ps, AV_ENUM);
        n->name = full;
        name_add(ps, full, n);
        yajl_val syms = member(obj, "symbols");
        if (!YAJL_IS_ARRAY(syms))
            return perr(ps, "enum \"%s\" has no \"symbols\"", full);
        n->n = (int32_t)syms->u.array.len;
        n->names = cdc_xcalloc((size_t)n->n + 1, sizeof(*n->names));
        for (int32_t i = 0; i < n->n; i++) {
            const char *sym = YAJL_GET_STRING(syms->u.array.values[i]);
            n->names[i] = cdc_xstrdup(sym ? sym : "");
        }
        return n;
    }
    /* fixed */
    n = node_new(ps, AV_FIXED);
    n->name = full;
    name_add(ps, full, n);
    long long size = 0;
    if (!member_int(obj, "size", &size) || size < 0 || size > INT32_MAX)
        return perr(ps, "fixed \"%s\" has no valid \"size\"", full);
    n->size = (int32_t)size;
    set_logical(n, obj);
    return n;
}

static av_node_t *parse_node(parse_t *ps, yajl_val v, const char *ns)
{
    if (++ps->depth > 64) {
        ps->depth--;
        return perr(ps, "nested more than 64 levels deep");
    }
    av_node_t *res = NULL;
    if (YAJL_IS_STRING(v)) {
        const char *t = YAJL_GET_STRING(v);
        for (size_t i = 0; i < sizeof(primitives) / sizeof(primitives[0]); i++)
            if (strcmp(t, primitives[i].name) == 0)
                res = node_new(ps, primitives[i].kind);
        if (!res && !(res = name_find(ps, t, ns)))
            perr(ps, "unknown type \"%s\"", t);
    } else if (YAJL_IS_ARRAY(v)) {
        res = node_new(ps, AV_UNION);
        res->n = (int32_t)v->u.array.len;
        res->kids = cdc_xcalloc((size_t)res->n + 1, sizeof(*res->kids));
        for (int32_t i = 0; i < res->n; i++)
            if (!(res->kids[i] = parse_node(ps, v->u.array.values[i], ns))) {
                res = NULL;
                break;
            }
    } else if (YAJL_IS_OBJECT(v)) {
        yajl_val tv = member(v, "type");
        const char *t = YAJL_IS_STRING(tv) ? YAJL_GET_STRING(tv) : NULL;
        if (!tv) {
            perr(ps, "an object without \"type\"");
        } else if (!t) {
            res = parse_node(ps, tv, ns);
        } else if (!strcmp(t, "record") || !strcmp(t, "error") || !strcmp(t, "enum") ||
                   !strcmp(t, "fixed")) {
            res = parse_named(ps, v, t, ns);
        } else if (!strcmp(t, "array") || !strcmp(t, "map")) {
            yajl_val items = member(v, t[0] == 'a' ? "items" : "values");
            res = node_new(ps, t[0] == 'a' ? AV_ARRAY : AV_MAP);
            res->n = 1;
            res->kids = cdc_xcalloc(2, sizeof(*res->kids));
            if (!items)
                res = perr(ps, "%s without \"%s\"", t, t[0] == 'a' ? "items" : "values");
            else if (!(res->kids[0] = parse_node(ps, items, ns)))
                res = NULL;
        } else {
            res = parse_node(ps, tv, ns);
            if (res && res->kind <= AV_STRING && res->kind != AV_NULL) {
                /* a primitive with attributes: a node of its own for its logical type */
                av_node_t *n = node_new(ps, res->kind);
                set_logical(n, v);
                res = n;
            }
        }
    } else {
        perr(ps, "a schema must be a string, an array or an object");
    }
    ps->depth--;
    return res;
}

/* Avro C's verdict on a schema our parser took (it reads the specification as well). */
static char *avro_c_check(const char *json, size_t len)
{
    avro_schema_t check;
    if (avro_schema_from_json_length(json, len, &check) != 0) {
        char tmp[600];
        snprintf(tmp, sizeof(tmp), "not a valid Avro schema: %s", avro_strerror());
        return cdc_xstrdup(tmp);
    }
    avro_schema_decref(check);
    return NULL;
}

av_schema_t *av_schema_parse(const char *json, size_t len, char **why)
{
    *why = NULL;
    char *text = cdc_xmalloc(len + 1);
    memcpy(text, json, len);
    text[len] = '\0';
    char ebuf[256];
    yajl_val tree = yajl_tree_parse(text, ebuf, sizeof(ebuf));
    if (!tree) {
        *why = cdc_xstrdup(ebuf);
        free(text);
        return NULL;
    }
    av_schema_t *s = cdc_xcalloc(1, sizeof(*s));
    s->json = text;
    parse_t ps = {.s = s};
    s->root = parse_node(&ps, tree, "");
    yajl_tree_free(tree);
    for (int i = 0; i < ps.nnamed; i++)
        free(ps.names[i]);
    free(ps.names);
    free(ps.named);
    /* Avro C only after ours: it leaks on some schemas it refuses (a name defined twice) */
    if (s->root && !ps.why)
        ps.why = avro_c_check(json, len);
    if (!s->root || ps.why) {
        *why = ps.why ? ps.why : cdc_xstrdup("not a valid Avro schema");
        av_schema_destroy(s);
        return NULL;
    }
    return s;
}

void av_schema_destroy(av_schema_t *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nall; i++) {
        av_node_t *n = s->all[i];
        if (n->names)
            for (int32_t k = 0; k < n->n; k++)
                free(n->names[k]);
        free(n->names);
        free(n->kids);
        free(n->name);
        free(n);
    }
    free(s->all);
    free(s->json);
    free(s);
}

/* ---- deriving the schema of a table (Flink's AvroSchemaConverter) --------------------------- */

static int derive_type(const cdc_type_t *t, const char *name, cdc_buf_t *out, cdc_error_t **err);

static int derive_plain(const cdc_type_t *t, const char *name, cdc_buf_t *out, cdc_error_t **err)
{
    switch (t->root) {
    case CDC_T_BOOLEAN:
        cdc_buf_puts(out, "\"boolean\"");
        return 0;
    case CDC_T_TINYINT:
    case CDC_T_SMALLINT:
    case CDC_T_INT:
        cdc_buf_puts(out, "\"int\"");
        return 0;
    case CDC_T_BIGINT:
        cdc_buf_puts(out, "\"long\"");
        return 0;
    case CDC_T_FLOAT:
        cdc_buf_puts(out, "\"float\"");
        return 0;
    case CDC_T_DOUBLE:
        cdc_buf_puts(out, "\"double\"");
        return 0;
    case CDC_T_CHAR:
    case CDC_T_VARCHAR:
        cdc_buf_puts(out, "\"string\"");
        return 0;
    case CDC_T_BINARY:
    case CDC_T_VARBINARY:
        cdc_buf_puts(out, "\"bytes\"");
        return 0;
    case CDC_T_DECIMAL:
        cdc_buf_printf(out,
                       "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":%d,"
                       "\"scale\":%d}",
                       (int)t->precision, (int)t->scale);
        return 0;
    case CDC_T_DATE:
        cdc_buf_puts(out, "{\"type\":\"int\",\"logicalType\":\"date\"}");
        return 0;
    case CDC_T_TIME:
        if (t->precision > 6)
            break;
        cdc_buf_puts(out, t->precision <= 3
                              ? "{\"type\":\"int\",\"logicalType\":\"time-millis\"}"
                              : "{\"type\":\"long\",\"logicalType\":\"time-micros\"}");
        return 0;
    case CDC_T_TIMESTAMP:
    case CDC_T_TIMESTAMP_LTZ:
        if (t->precision > 6)
            break;
        cdc_buf_printf(out, "{\"type\":\"long\",\"logicalType\":\"timestamp-%s\"}",
                       t->precision <= 3 ? "millis" : "micros");
        return 0;
    case CDC_T_ARRAY:
        cdc_buf_puts(out, "{\"type\":\"array\",\"items\":");
        if (derive_type(t->children[0], name, out, err) < 0)
            return -1;
        cdc_buf_putc(out, '}');
        return 0;
    case CDC_T_MAP:
        if (t->children[0]->root != CDC_T_VARCHAR && t->children[0]->root != CDC_T_CHAR)
            break;
        cdc_buf_puts(out, "{\"type\":\"map\",\"values\":");
        if (derive_type(t->children[1], name, out, err) < 0)
            return -1;
        cdc_buf_putc(out, '}');
        return 0;
    case CDC_T_ROW:
        cdc_buf_puts(out, "{\"type\":\"record\",\"name\":");
        cdc_json_write_string(out, name, strlen(name));
        cdc_buf_puts(out, ",\"fields\":[");
        for (int32_t i = 0; i < t->nchildren; i++) {
            const cdc_type_t *c = t->children[i];
            cdc_buf_puts(out, i ? ",{\"name\":" : "{\"name\":");
            cdc_json_write_string(out, t->names[i], strlen(t->names[i]));
            cdc_buf_puts(out, ",\"type\":");
            char sub[256];
            snprintf(sub, sizeof(sub), "%s_%s", name, t->names[i]);
            if (derive_type(c, sub, out, err) < 0)
                return -1;
            if (c->nullable)
                cdc_buf_puts(out, ",\"default\":null");
            cdc_buf_putc(out, '}');
        }
        cdc_buf_puts(out, "]}");
        return 0;
    default:
        break;
    }
    char *text = cdc_type_to_string(t);
    cdc_error_set(err, CDC_ERR_OPTION, "type %s has no Avro schema", text);
    if (err && *err)
        cdc_error_set_hint(*err, "Avro holds TIME up to TIME(6), TIMESTAMP up to TIMESTAMP(6) and "
                                 "MAP with string keys: declare the column so");
    free(text);
    return -1;
}

static int derive_type(const cdc_type_t *t, const char *name, cdc_buf_t *out, cdc_error_t **err)
{
    if (!t->nullable)
        return derive_plain(t, name, out, err);
    cdc_buf_puts(out, "[\"null\",");
    if (derive_plain(t, name, out, err) < 0)
        return -1;
    cdc_buf_putc(out, ']');
    return 0;
}

int av_schema_derive(const cdc_type_t *row, const char *name, cdc_buf_t *out, cdc_error_t **err)
{
    return derive_plain(row, name, out, err);
}
