/*
 * cdc_position.h — the "key\tposition" lines of readers whose position is a
 * whole resume record (binlog position, snapshot progress, schema history)
 * rather than an offset: the record travels as one token (base64 of its
 * text, which starts with a magic line naming its kind and version), so a
 * consumer of the lines (cdc_reader_ops_t.positions) treats it as opaque.
 */
#ifndef CDC_POSITION_H
#define CDC_POSITION_H

#include <stddef.h>

#include "cdc_arena.h"
#include "cdc_error.h"

/**
 * Appends s to out as a part of a position key: bytes that are whitespace or
 * control characters, '%', '/' and DEL become %XX, so the key holds no tab,
 * space or newline and '/' stays the separator of its parts.
 */
void cdc_position_key_part(cdc_buf_t *out, const char *s);

/**
 * Sets err's hint for a stored position that cannot be used: another version
 * wrote it or it was edited; delete the job's state directory to start over
 * (then also `also`, e.g. " and the replication slot", when not NULL).
 */
void cdc_position_hint(cdc_error_t *err, const char *also);

/** Appends "key\t<token>\n", the token being record[0..len) as base64 (no whitespace). */
void cdc_position_put(cdc_buf_t *out, const char *key, const char *record, size_t len);

/**
 * Looks key up in lines[0..len) ("key\ttoken\n" each) and decodes its token
 * into record (replaced). Returns 1 when found, 0 when no line has the key,
 * -1 with *err (naming the key, with a hint to start over) when the token is
 * not base64 or its text does not start with magic (a line without its
 * newline: "cdcflow mysql-cdc position v1"): state another version wrote, or
 * edited by hand.
 */
int cdc_position_get(const char *lines, size_t len, const char *key, const char *magic,
                     cdc_buf_t *record, cdc_error_t **err);

#endif
