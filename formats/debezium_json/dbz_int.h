/*
 * dbz_int.h — private to the debezium-json format: how a column's value is
 * encoded in a message (from the Kafka Connect schema when it is included),
 * and the conversion of one JSON scalar to a value of the declared column type
 * under that encoding (formats/debezium_json/dbz_convert.c).
 */
#ifndef DBZ_INT_H
#define DBZ_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cdc_json.h"

/** How a column is encoded; DBZ_ENC_NONE when no schema describes it. */
typedef enum dbz_enc {
    DBZ_ENC_NONE = 0,   /* no schema (or bytes without a logical name): the column type drives */
    DBZ_ENC_PLAIN,      /* a plain Connect int/float/boolean/string without a logical name */
    DBZ_ENC_DECIMAL,    /* org.apache.kafka.connect.data.Decimal: base64, scale parameter */
    DBZ_ENC_VSDECIMAL,  /* io.debezium.data.VariableScaleDecimal: {"scale": n, "value": base64} */
    DBZ_ENC_DATE,       /* io.debezium.time.Date, connect Date: days since 1970-01-01 */
    DBZ_ENC_TIME_MS,    /* io.debezium.time.Time, connect Time: millis past midnight */
    DBZ_ENC_TIME_US,    /* io.debezium.time.MicroTime */
    DBZ_ENC_TIME_NS,    /* io.debezium.time.NanoTime */
    DBZ_ENC_TS_MS,      /* io.debezium.time.Timestamp, connect Timestamp: epoch millis, no zone */
    DBZ_ENC_TS_US,      /* io.debezium.time.MicroTimestamp */
    DBZ_ENC_TS_NS,      /* io.debezium.time.NanoTimestamp */
    DBZ_ENC_ZONED_TS,   /* io.debezium.time.ZonedTimestamp: ISO-8601 text with offset */
    DBZ_ENC_ZONED_TIME, /* io.debezium.time.ZonedTime: ISO time with offset */
    DBZ_ENC_BITS        /* io.debezium.data.Bits: base64, little-endian */
} dbz_enc_t;

typedef struct dbz_colenc_s {
    uint8_t enc;   /* dbz_enc_t */
    int32_t scale; /* DBZ_ENC_DECIMAL */
} dbz_colenc_t;

/** The encoding a Connect schema node describes (name may be NULL). */
dbz_enc_t dbz_enc_classify(const char *type, size_t tlen, const char *name, size_t nlen);
/** The logical name of an encoding, for messages. */
const char *dbz_enc_name(dbz_enc_t enc);

/** Largest Decimal/VariableScaleDecimal payload decoded (bytes); beyond is an error. */
#define DBZ_MAX_DECIMAL_BYTES 4096
/** Scales beyond +-this are an error (Connect allows any int32). */
#define DBZ_MAX_SCALE 10000

/** What a conversion needs besides the value. */
typedef struct dbz_conv_s {
    bool iso8601;        /* timestamp-format.standard = ISO-8601 */
    bool precise_base64; /* decimal.handling = precise-base64 */
    const char *in;      /* the message: strings lying inside it are referenced */
    size_t inlen;
    cdc_arena_t *arena; /* where copies go */
    char *err;          /* reason on failure (NUL-terminated, truncated) */
    size_t errlen;
} dbz_conv_t;

/**
 * Converts one JSON scalar (kind 'n' null, 'b' boolean, '#' number, 's' string,
 * as cdc_json_convert_scalar) encoded as enc into *out of type t. Returns 0, or
 * -1 with the reason in cx->err ("expected DATE, found string \"x\"").
 */
int dbz_convert(const dbz_conv_t *cx, const cdc_type_t *t, dbz_colenc_t enc, char kind,
                const char *s, size_t len, cdc_value_t *out);

/**
 * Converts a VariableScaleDecimal ({scale, value}) into *out of type t (DECIMAL,
 * FLOAT, DOUBLE, an integer type or a string type). Returns 0 or -1 as above.
 */
int dbz_convert_vsd(const dbz_conv_t *cx, const cdc_type_t *t, int64_t scale, const char *b64,
                    size_t len, cdc_value_t *out);

#endif
