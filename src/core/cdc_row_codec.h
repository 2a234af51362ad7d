/*
 * cdc_row_codec.h — rows to bytes and back, for keyed state: a compact
 * encoding of the values of a ROW type (every type cdc_value_t holds, nested
 * ARRAY, MAP and ROW included, NULL and the UNCHANGED flag kept). The bytes
 * are only read back with the same type; they are not an exchange format.
 */
#ifndef CDC_ROW_CODEC_H
#define CDC_ROW_CODEC_H

#include "cdc_row.h"
#include "cdc_types.h"
#include "cdc_arena.h"

/** Appends the encoding of @p row (its values; the kind is not kept) of ROW type @p t to @p out. */
void cdc_row_encode(cdc_buf_t *out, const cdc_row_t *row, const cdc_type_t *t);

/**
 * Decodes one row of ROW type @p t from data[0..len), its values and strings copied into @p arena
 * (kind CDC_INSERT). Returns the row and sets *used to the bytes read, or NULL when the data
 * is short or malformed (state written by another version: the caller reports it).
 */
cdc_row_t *cdc_row_decode(const void *data, size_t len, const cdc_type_t *t, cdc_arena_t *arena,
                          size_t *used);

/** Appends one value of type @p t (the encoding cdc_row_encode uses per field). */
void cdc_value_encode(cdc_buf_t *out, const cdc_value_t *v, const cdc_type_t *t);

/** Decodes one value into *v (strings in @p arena); bytes read, or 0 when malformed. */
size_t cdc_value_decode(const void *data, size_t len, const cdc_type_t *t, cdc_arena_t *arena,
                        cdc_value_t *v);

#endif
