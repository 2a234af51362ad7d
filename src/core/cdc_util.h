/*
 * cdc_util.h — tiny helpers every part needs: clocks, a hash and hex digits. Inline,
 * so hot paths pay nothing for calling them.
 */
#ifndef CDC_UTIL_H
#define CDC_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/** Monotonic milliseconds (intervals, timeouts). */
static inline int64_t cdc_mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/** Monotonic microseconds. */
static inline int64_t cdc_mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/** Wall-clock milliseconds since the epoch. */
static inline int64_t cdc_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/** The wall-clock time @p ms milliseconds from now (a deadline for pthread_cond_timedwait). */
static inline struct timespec cdc_wall_deadline(int64_t ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += (time_t)(ms / 1000);
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

/** FNV-1a hash of n bytes (hash tables of key bytes). */
static inline uint64_t cdc_hash_bytes(const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

/** The value of hex digit c (either case), or -1. */
static inline int cdc_hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

#endif
