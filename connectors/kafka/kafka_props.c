/*
 * kafka_props.c — the Java Kafka client's properties that Flink users paste
 * into `properties.*`, translated to librdkafka's where it has an
 * equivalent and refused with a pointer to it where it has none:
 *
 *   sasl.jaas.config (PlainLoginModule, ScramLoginModule)
 *                                  -> sasl.username, sasl.password
 *   ssl.keystore.type = PKCS12     -> ssl.keystore.location/.password kept
 *   ssl.keystore.type = PEM        -> ssl.certificate.location + ssl.key.location
 *                                     (or ssl.certificate.pem + ssl.key.pem)
 *   ssl.truststore.type = PEM      -> ssl.ca.location (or ssl.ca.pem)
 *   JKS stores, PKCS12 truststores, other login modules: refused.
 *
 * Every other property goes to librdkafka verbatim.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kafka_int.h"

/* The Java-only keys this file consumes; the rest pass through. */
static const char *const java_keys[] = {"sasl.jaas.config",
                                        "ssl.keystore.type",
                                        "ssl.keystore.location",
                                        "ssl.keystore.password",
                                        "ssl.keystore.key",
                                        "ssl.keystore.certificate.chain",
                                        "ssl.truststore.type",
                                        "ssl.truststore.location",
                                        "ssl.truststore.password",
                                        "ssl.truststore.certificates",
                                        NULL};

static bool is_java_key(const char *k)
{
    for (int i = 0; java_keys[i]; i++)
        if (strcmp(k, java_keys[i]) == 0)
            return true;
    return false;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/*
 * Parses "<LoginModule> <flag> key="value" key=value ...;" into the module
 * name and the username/password values (malloc'd, NULL when absent).
 * Returns NULL, or a static text saying what is malformed.
 */
static const char *jaas_parse(const char *s, char **module, char **user, char **password)
{
    static const char *const flags[] = {"required", "requisite", "sufficient", "optional", NULL};
    *module = *user = *password = NULL;
    while (isspace((unsigned char)*s))
        s++;
    const char *m = s;
    while (*s && !isspace((unsigned char)*s) && *s != ';')
        s++;
    if (s == m)
        return "no login module class";
    *module = cdc_xstrndup(m, (size_t)(s - m));
    while (isspace((unsigned char)*s))
        s++;
    size_t fl = 0;
    while (isalpha((unsigned char)s[fl]))
        fl++;
    bool flag_ok = false;
    for (int i = 0; flags[i]; i++)
        flag_ok |= fl == strlen(flags[i]) && strncmp(s, flags[i], fl) == 0;
    if (!flag_ok)
        return "expected a control flag (required, requisite, sufficient, optional) after the "
               "login module";
    s += fl;
    cdc_buf_t val = {0};
    for (;;) {
        while (isspace((unsigned char)*s))
            s++;
        if (*s == ';')
            break;
        if (!*s) {
            cdc_buf_free(&val);
            return "missing the closing ';'";
        }
        const char *k = s;
        while (*s && *s != '=' && !isspace((unsigned char)*s) && *s != ';')
            s++;
        size_t kl = (size_t)(s - k);
        if (*s != '=' || kl == 0) {
            cdc_buf_free(&val);
            return "expected key=value options";
        }
        s++;
        cdc_buf_clear(&val);
        if (*s == '"') {
            for (s++; *s && *s != '"'; s++) {
                if (*s == '\\' && s[1])
                    s++;
                cdc_buf_putc(&val, *s);
            }
            if (*s != '"') {
                cdc_buf_free(&val);
                return "unterminated quoted value";
            }
            s++;
        } else {
            while (*s && !isspace((unsigned char)*s) && *s != ';')
                cdc_buf_putc(&val, *s++);
        }
        char **dst = kl == 8 && strncmp(k, "username", 8) == 0   ? user
                     : kl == 8 && strncmp(k, "password", 8) == 0 ? password
                                                                 : NULL;
        if (dst) {
            free(*dst);
            *dst = cdc_xstrdup(val.len ? cdc_buf_cstr(&val) : "");
        }
    }
    cdc_buf_free(&val);
    return NULL;
}

/* Sets k = v in out when both are there (out is NULL when only checking). */
static void put(cdc_kv_t *out, const char *k, const char *v)
{
    if (out && v)
        cdc_kv_set(out, k, v);
}

#define PROBLEM(...)                                                                               \
    do {                                                                                           \
        nproblems++;                                                                               \
        if (problems)                                                                              \
            cdc_buf_printf(problems, __VA_ARGS__);                                                 \
    } while (0)

/* sasl.jaas.config -> sasl.username / sasl.password (+ sasl.mechanism PLAIN when unset). */
static int translate_jaas(const cdc_kv_t *given, cdc_kv_t *out, cdc_buf_t *problems)
{
    int nproblems = 0;
    const char *jaas = cdc_kv_get(given, "sasl.jaas.config");
    if (!jaas)
        return 0;
    char *module, *user, *password;
    const char *bad = jaas_parse(jaas, &module, &user, &password);
    bool plain = module && ends_with(module, ".PlainLoginModule");
    bool scram = module && ends_with(module, ".ScramLoginModule");
    const char *mech = cdc_kv_get(given, "sasl.mechanism");
    if (!mech)
        mech = cdc_kv_get(given, "sasl.mechanisms");
    if (bad)
        PROBLEM("option \"properties.sasl.jaas.config\": %s; expected e.g. "
                "'org.apache.kafka.common.security.plain.PlainLoginModule required "
                "username=\"u\" password=\"p\";'\n",
                bad);
    else if (!plain && !scram)
        PROBLEM("option \"properties.sasl.jaas.config\": login module \"%s\" has no librdkafka "
                "equivalent; only PlainLoginModule and ScramLoginModule are translated (to "
                "'sasl.username'/'sasl.password'); for Kerberos set 'properties.sasl.kerberos.*', "
                "for OAUTHBEARER 'properties.sasl.oauthbearer.*' instead of sasl.jaas.config\n",
                module);
    else if (!user || !password)
        PROBLEM("option \"properties.sasl.jaas.config\": the %s needs username=\"...\" and "
                "password=\"...\"\n",
                plain ? "PlainLoginModule" : "ScramLoginModule");
    else if (cdc_kv_get(given, "sasl.username") || cdc_kv_get(given, "sasl.password"))
        PROBLEM("option \"properties.sasl.jaas.config\" and \"properties.sasl.username\"/"
                "\"properties.sasl.password\" exclude each other: keep one of them\n");
    else if (scram && !mech)
        PROBLEM("option \"properties.sasl.jaas.config\" with ScramLoginModule needs "
                "'properties.sasl.mechanism' = 'SCRAM-SHA-256' or 'SCRAM-SHA-512'\n");
    else if (out) {
        cdc_kv_set(out, "sasl.username", user);
        cdc_kv_set(out, "sasl.password", password);
        if (!mech)
            cdc_kv_set(out, "sasl.mechanism", "PLAIN");
    }
    free(module);
    free(user);
    free(password);
    return nproblems;
}

/* ssl.keystore.* (Java) -> librdkafka's keystore (PKCS#12) or PEM certificate and key. */
static int translate_keystore(const cdc_kv_t *given, cdc_kv_t *out, cdc_buf_t *problems)
{
    int nproblems = 0;
    const char *type = cdc_kv_get(given, "ssl.keystore.type");
    const char *loc = cdc_kv_get(given, "ssl.keystore.location");
    const char *pass = cdc_kv_get(given, "ssl.keystore.password");
    const char *key = cdc_kv_get(given, "ssl.keystore.key");
    const char *chain = cdc_kv_get(given, "ssl.keystore.certificate.chain");
    if (!type || strcasecmp(type, "PKCS12") == 0) {
        /* librdkafka's own ssl.keystore.* is PKCS#12; no type keeps its meaning */
        put(out, "ssl.keystore.location", loc);
        put(out, "ssl.keystore.password", pass);
        if (key || chain)
            PROBLEM("option \"properties.ssl.keystore.%s\" needs 'properties.ssl.keystore.type' "
                    "= 'PEM' (or use librdkafka's 'properties.ssl.key.pem' and "
                    "'properties.ssl.certificate.pem')\n",
                    key ? "key" : "certificate.chain");
    } else if (strcasecmp(type, "PEM") == 0) {
        /* one PEM file with the key and the chain: OpenSSL takes each part from it */
        put(out, "ssl.certificate.location", loc);
        put(out, "ssl.key.location", loc);
        put(out, "ssl.key.pem", key);
        put(out, "ssl.certificate.pem", chain);
        if (pass)
            PROBLEM("option \"properties.ssl.keystore.password\": a PEM keystore has no store "
                    "password; the private key's password is 'properties.ssl.key.password'\n");
    } else {
        PROBLEM("option \"properties.ssl.keystore.type\" = '%s' has no librdkafka equivalent: "
                "convert the keystore (keytool -importkeystore -deststoretype PKCS12) and set "
                "'properties.ssl.keystore.type' = 'PKCS12' (librdkafka's "
                "'ssl.keystore.location'), or use PEM files with 'properties.ssl.certificate."
                "location' and 'properties.ssl.key.location'\n",
                type);
    }
    return nproblems;
}

/* ssl.truststore.* (Java) -> librdkafka's ssl.ca.location / ssl.ca.pem (PEM only). */
static int translate_truststore(const cdc_kv_t *given, cdc_kv_t *out, cdc_buf_t *problems)
{
    int nproblems = 0;
    const char *type = cdc_kv_get(given, "ssl.truststore.type");
    const char *loc = cdc_kv_get(given, "ssl.truststore.location");
    const char *certs = cdc_kv_get(given, "ssl.truststore.certificates");
    if (!type && !loc && !certs && !cdc_kv_get(given, "ssl.truststore.password"))
        return 0;
    if (type && strcasecmp(type, "PEM") == 0) {
        put(out, "ssl.ca.location", loc);
        put(out, "ssl.ca.pem", certs);
        return 0;
    }
    PROBLEM("option \"properties.ssl.truststore.%s\": a %s truststore has no librdkafka "
            "equivalent: export the CA certificates as PEM (keytool -exportcert -rfc, or openssl "
            "pkcs12 -nokeys) and set 'properties.ssl.ca.location' (or "
            "'properties.ssl.truststore.type' = 'PEM')\n",
            type    ? "type"
            : loc   ? "location"
            : certs ? "certificates"
                    : "password",
            type ? type : "JKS (the Java default)");
    return nproblems;
}

int kafka_props_translate(const cdc_kv_t *given, cdc_kv_t *out, cdc_buf_t *problems)
{
    if (out)
        for (int i = 0; given && i < given->n; i++)
            if (!is_java_key(given->keys[i]))
                cdc_kv_set(out, given->keys[i], given->values[i]);
    if (!given)
        return 0;
    return translate_jaas(given, out, problems) + translate_keystore(given, out, problems) +
           translate_truststore(given, out, problems);
}
