/*
 * cdc_datagen.h — the generator source that the "datagen" connector is built
 * on (FLIP-238's DataGeneratorSource): a bounded or unbounded range of row
 * indexes, split evenly over readers, each row made by a generator function,
 * emitted at a throttled rate.
 *
 * Also exposes the two pure pieces of arithmetic the readers use (split ranges
 * and the rate throttle), so they can be tested without clocks.
 */
#ifndef CDC_DATAGEN_H
#define CDC_DATAGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cdc_plugin.h"

/**
 * Fills `row` (arity = fields of the source's row type, all NULL, kind
 * INSERT) with the row at `index`. Variable-size data goes into `arena` and
 * lives as long as the batch. Returns 0, or non-zero with a reason in errbuf
 * (NUL-terminated, at most errlen bytes). Must leave the kind INSERT.
 *
 * For the rows to be the same however the range is split, the result must
 * depend only on (ctx, index). Readers of one source may call fn from
 * different threads at once: fn must only read ctx.
 */
typedef int (*cdc_datagen_fn)(void *ctx, int64_t index, cdc_row_t *row, cdc_arena_t *arena,
                              char *errbuf, size_t errlen);

/**
 * A source of `count` rows (count < 0: unbounded) of row_type made by fn,
 * throttled to rows_per_second over all readers together (each of N readers
 * gets rows_per_second / N; <= 0 means no throttle).
 *
 * row_type must be a ROW; it is copied. The source does not own ctx, which
 * must outlive it. Returns NULL when row_type is not a ROW or fn is NULL.
 *
 * Readers: open_reader(split k of n) produces indexes [k*C/n, (k+1)*C/n) in
 * order for a bounded count C, and k, k+n, k+2n, ... forever when unbounded.
 * Abilities: apply_projection (the full row is made, then the projected
 * fields are kept), apply_limit (caps the total count), describe.
 */
cdc_source_t *cdc_datagen_source_new(const cdc_type_t *row_type, int64_t count,
                                     double rows_per_second, cdc_datagen_fn fn, void *ctx);

/**
 * The index range [*begin, *end) of split `split` of `nsplits` over `count`
 * rows: [split*count/nsplits, (split+1)*count/nsplits). Exact for any int64
 * count (no overflow).
 */
void cdc_datagen_split_range(int64_t count, int split, int nsplits, int64_t *begin, int64_t *end);

/**
 * A token-bucket rate throttle: the bucket holds one second's worth of rows
 * (at least one row), starts full at the first poll, and refills smoothly at
 * `rate` rows per second. A reader that was not polled for a while bursts by
 * at most one bucket.
 */
typedef struct cdc_datagen_throttle_s {
    double rate;     /* rows per second; <= 0 = unlimited */
    int64_t t0_ns;   /* monotonic time of row 0, shifted when credit is capped */
    int64_t emitted; /* rows taken since t0 */
    bool started;
} cdc_datagen_throttle_t;

void cdc_datagen_throttle_init(cdc_datagen_throttle_t *t, double rows_per_second);

/**
 * Rows that may be emitted at monotonic time now_ns (INT64_MAX when
 * unlimited). When it returns 0, *wait_ns (if not NULL) is set to the time
 * until the next row is due; else *wait_ns is 0. The first call starts the
 * clock.
 */
int64_t cdc_datagen_throttle_budget(cdc_datagen_throttle_t *t, int64_t now_ns, int64_t *wait_ns);

/**
 * Nanoseconds from now_ns until `rows` rows are available in total (0 when
 * they already are, or when unlimited or not started).
 */
int64_t cdc_datagen_throttle_wait(const cdc_datagen_throttle_t *t, int64_t now_ns, int64_t rows);

/** Records that n rows were emitted. */
void cdc_datagen_throttle_take(cdc_datagen_throttle_t *t, int64_t n);

#endif
