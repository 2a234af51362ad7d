/*
 * avro_registry.c — the Confluent Schema Registry client of the avro-confluent
 * formats, over HTTP with libcurl: writer schemas fetched by id
 * (GET /schemas/ids/{id}) and kept resolved in a cache by id, and schemas
 * registered under a subject (POST /subjects/{subject}/versions). Basic and
 * bearer authentication as Flink's options name them.
 */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "avro_int.h"
#include "cdc_json.h"

typedef struct cache_entry_s {
    int32_t id;
    av_resolved_t *res;
} cache_entry_t;

struct av_registry_s {
    char *url; /* without a trailing '/' */
    char *label;
    CURL *curl;
    struct curl_slist *headers;
    char *userpwd; /* basic auth "user:password", or NULL */
    cdc_buf_t body;
    cdc_buf_t req;
    cache_entry_t *cache;
    int ncache, capcache;
    int last; /* index of the last hit */
};

static size_t on_body(char *p, size_t size, size_t n, void *ctx)
{
    cdc_buf_append((cdc_buf_t *)ctx, p, size * n);
    return size * n;
}

static void curl_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* curl_global_init is not thread-safe: once, whichever split's deserializer comes first. */
static void curl_init_once(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, curl_init);
}

av_registry_t *av_registry_new(const cdc_config_t *cfg, const char *label, cdc_error_t **err)
{
    const char *url = cdc_config_str(cfg, "url");
    if (!url || !*url) {
        cdc_error_set(err, CDC_ERR_OPTION, "format \"%s\" needs option \"url\"", label);
        return NULL;
    }
    curl_init_once();
    av_registry_t *reg = cdc_xcalloc(1, sizeof(*reg));
    reg->url = cdc_xstrdup(url);
    size_t n = strlen(reg->url);
    while (n && reg->url[n - 1] == '/')
        reg->url[--n] = '\0';
    reg->label = cdc_xstrdup(label);
    reg->curl = curl_easy_init();
    reg->headers = curl_slist_append(NULL, "Accept: application/vnd.schemaregistry.v1+json, "
                                           "application/json");
    reg->headers =
        curl_slist_append(reg->headers, "Content-Type: application/vnd.schemaregistry.v1+json");
    const cdc_kv_t *props = cdc_config_prefixed(cfg, "properties.");
    const char *user = cdc_config_str(cfg, "basic-auth.user-info");
    if (!user && props)
        user = cdc_kv_get(props, "basic.auth.user.info");
    const char *source = cdc_config_str(cfg, "basic-auth.credentials-source");
    if (user && (!source || strcmp(source, "USER_INFO") == 0))
        reg->userpwd = cdc_xstrdup(user);
    const char *token = cdc_config_str(cfg, "bearer-auth.token");
    if (!token && props)
        token = cdc_kv_get(props, "bearer.auth.token");
    if (token) {
        cdc_buf_t h = {0};
        cdc_buf_printf(&h, "Authorization: Bearer %s", token);
        reg->headers = curl_slist_append(reg->headers, cdc_buf_cstr(&h));
        cdc_buf_free(&h);
    }
    return reg;
}

void av_registry_destroy(av_registry_t *reg)
{
    if (!reg)
        return;
    for (int i = 0; i < reg->ncache; i++)
        av_resolved_destroy(reg->cache[i].res);
    free(reg->cache);
    if (reg->curl)
        curl_easy_cleanup(reg->curl);
    curl_slist_free_all(reg->headers);
    free(reg->userpwd);
    free(reg->url);
    free(reg->label);
    cdc_buf_free(&reg->body);
    cdc_buf_free(&reg->req);
    free(reg);
}

/* One request; the body lands in reg->body. Returns the HTTP status, or -1 with errmsg. */
static long request(av_registry_t *reg, const char *path, const char *post, cdc_buf_t *errmsg)
{
    cdc_buf_t u = {0};
    cdc_buf_printf(&u, "%s%s", reg->url, path);
    CURL *c = reg->curl;
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, cdc_buf_cstr(&u));
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, reg->headers);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &reg->body);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 30000L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    if (reg->userpwd) {
        curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl_easy_setopt(c, CURLOPT_USERPWD, reg->userpwd);
    }
    if (post) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, post);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(post));
    }
    cdc_buf_clear(&reg->body);
    CURLcode rc = curl_easy_perform(c);
    long status = -1;
    if (rc != CURLE_OK) {
        cdc_buf_clear(errmsg);
        cdc_buf_printf(errmsg,
                       "schema registry %s: %s %s failed: %s (is the registry running there? "
                       "check the format's url)",
                       reg->url, post ? "POST" : "GET", path, curl_easy_strerror(rc));
    } else {
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    }
    cdc_buf_free(&u);
    return status;
}

/* The registry's own message of an error body ({"error_code":..,"message":..}), or the body. */
static void body_text(av_registry_t *reg, cdc_buf_t *out)
{
    size_t n = reg->body.len > 300 ? 300 : reg->body.len;
    cdc_buf_append(out, reg->body.data ? reg->body.data : "", n);
}

static yajl_val parse_body(av_registry_t *reg)
{
    char ebuf[128];
    return yajl_tree_parse(cdc_buf_cstr(&reg->body), ebuf, sizeof(ebuf));
}

const av_resolved_t *av_registry_resolved(av_registry_t *reg, int32_t id, const cdc_type_t *row,
                                          cdc_buf_t *errmsg)
{
    if (reg->last < reg->ncache && reg->cache[reg->last].id == id)
        return reg->cache[reg->last].res;
    for (int i = 0; i < reg->ncache; i++)
        if (reg->cache[i].id == id) {
            reg->last = i;
            return reg->cache[i].res;
        }
    char path[64];
    snprintf(path, sizeof(path), "/schemas/ids/%d", (int)id);
    long status = request(reg, path, NULL, errmsg);
    if (status < 0)
        return NULL;
    if (status != 200) {
        cdc_buf_clear(errmsg);
        cdc_buf_printf(errmsg, "%s schema id %d: GET %s%s answered HTTP %ld: ",
                       status == 404 ? "unknown" : "no", (int)id, reg->url, path, status);
        body_text(reg, errmsg);
        cdc_buf_puts(errmsg, status == 404 ? " (was the message written against another "
                                             "registry? check the format's url)"
                                           : "");
        return NULL;
    }
    yajl_val tree = parse_body(reg);
    const char *keys[] = {"schema", NULL};
    yajl_val sv = tree ? yajl_tree_get(tree, keys, yajl_t_string) : NULL;
    if (!sv) {
        cdc_buf_clear(errmsg);
        cdc_buf_printf(errmsg, "schema id %d: GET %s%s answered no \"schema\" string: ", (int)id,
                       reg->url, path);
        body_text(reg, errmsg);
        yajl_tree_free(tree);
        return NULL;
    }
    const char *text = YAJL_GET_STRING(sv);
    char *why = NULL;
    av_schema_t *s = av_schema_parse(text, strlen(text), &why);
    yajl_tree_free(tree);
    if (!s) {
        cdc_buf_clear(errmsg);
        cdc_buf_printf(errmsg, "schema id %d from %s: %s", (int)id, reg->url, why);
        free(why);
        return NULL;
    }
    cdc_error_t *e = NULL;
    av_resolved_t *r = av_resolve(s, row, &e);
    if (!r) {
        cdc_buf_clear(errmsg);
        cdc_buf_printf(errmsg, "writer schema id %d (%s): %s%s%s", (int)id, reg->url, e->message,
                       e->hint ? "; hint: " : "", e->hint ? e->hint : "");
        cdc_error_destroy(e);
        return NULL;
    }
    if (reg->ncache == reg->capcache) {
        reg->capcache = reg->capcache ? reg->capcache * 2 : 4;
        reg->cache = cdc_xrealloc(reg->cache, (size_t)reg->capcache * sizeof(*reg->cache));
    }
    reg->cache[reg->ncache] = (cache_entry_t){.id = id, .res = r};
    reg->last = reg->ncache++;
    return r;
}

int av_registry_register(av_registry_t *reg, const char *subject, const char *schema, int32_t *id,
                         cdc_error_t **err)
{
    cdc_buf_clear(&reg->req);
    cdc_buf_puts(&reg->req, "{\"schema\":");
    cdc_json_write_string(&reg->req, schema, strlen(schema));
    cdc_buf_putc(&reg->req, '}');
    char *esc = curl_easy_escape(reg->curl, subject, 0);
    cdc_buf_t path = {0};
    cdc_buf_printf(&path, "/subjects/%s/versions", esc);
    curl_free(esc);
    cdc_buf_t msg = {0};
    long status = request(reg, cdc_buf_cstr(&path), cdc_buf_cstr(&reg->req), &msg);
    int rc = -1;
    if (status < 0) {
        cdc_error_set(err, CDC_ERR_REMOTE, "format \"%s\": %s", reg->label, cdc_buf_cstr(&msg));
    } else if (status != 200) {
        body_text(reg, &msg);
        cdc_error_set(err, CDC_ERR_REMOTE,
                      "format \"%s\": registering the schema under subject \"%s\" failed: POST "
                      "%s%s answered HTTP %ld",
                      reg->label, subject, reg->url, cdc_buf_cstr(&path), status);
        if (err && *err) {
            cdc_error_set_detail(*err, "%s", cdc_buf_cstr(&msg));
            cdc_error_set_hint(*err, status == 401 || status == 403
                                         ? "check basic-auth.user-info or bearer-auth.token"
                                         : "a 409 means the subject's compatibility rule refuses "
                                           "the table's schema: change the rule or the table");
        }
    } else {
        yajl_val tree = parse_body(reg);
        const char *keys[] = {"id", NULL};
        yajl_val iv = tree ? yajl_tree_get(tree, keys, yajl_t_number) : NULL;
        if (iv && YAJL_IS_INTEGER(iv)) {
            *id = (int32_t)YAJL_GET_INTEGER(iv);
            rc = 0;
        } else {
            cdc_error_set(err, CDC_ERR_REMOTE, "format \"%s\": POST %s%s answered no \"id\"",
                          reg->label, reg->url, cdc_buf_cstr(&path));
        }
        yajl_tree_free(tree);
    }
    cdc_buf_free(&msg);
    cdc_buf_free(&path);
    return rc;
}
