/*
 * cdc_util.h — tiny helpers every part needs: clocks and hex digits. Inline,
 * so hot paths pay nothing for calling them.
 */
#ifndef CDC_UTIL_H
#define CDC_UTIL_H

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
