/*
 * cdc_expr_dec.c — exact DECIMAL arithmetic for the expression engine.
 *
 * Values are 128-bit unscaled integers (|v| < 10^38). Intermediate results
 * (aligned sums, full products, scaled dividends) can need up to 77 digits,
 * so they are computed as sign + 256-bit magnitude and rounded HALF_UP (as
 * Java's BigDecimal) to the result scale before the precision check.
 */
#include "cdc_expr_int.h"

typedef unsigned __int128 u128;

typedef struct u256 {
    u128 hi, lo;
} u256;

static const u128 U64_MASK = ((u128)1 << 64) - 1;

static u128 pow10_u128(int n)
{
    return (u128)cdc_pow10_i128(n);
}

static u256 u256_of(u128 v)
{
    return (u256){0, v};
}

static int u256_cmp(u256 a, u256 b)
{
    if (a.hi != b.hi)
        return a.hi < b.hi ? -1 : 1;
    if (a.lo != b.lo)
        return a.lo < b.lo ? -1 : 1;
    return 0;
}

static bool u256_is_zero(u256 a)
{
    return a.hi == 0 && a.lo == 0;
}

/* a + b; returns false on overflow. */
static bool u256_add(u256 a, u256 b, u256 *out)
{
    u256 r;
    r.lo = a.lo + b.lo;
    u128 carry = r.lo < a.lo;
    r.hi = a.hi + b.hi + carry;
    if (r.hi < a.hi || (carry && r.hi == a.hi))
        return false;
    *out = r;
    return true;
}

/* a - b with a >= b. */
static u256 u256_sub(u256 a, u256 b)
{
    u256 r;
    r.lo = a.lo - b.lo;
    r.hi = a.hi - b.hi - (a.lo < b.lo);
    return r;
}

/* Full 128 x 128 -> 256 product. */
static u256 u128_mul(u128 a, u128 b)
{
    u128 a0 = a & U64_MASK, a1 = a >> 64, b0 = b & U64_MASK, b1 = b >> 64;
    u128 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    u128 mid = (p00 >> 64) + (p01 & U64_MASK) + (p10 & U64_MASK);
    u256 r;
    r.lo = (p00 & U64_MASK) | (mid << 64);
    r.hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    return r;
}

/* a * b; returns false on overflow. */
static bool u256_mul_u128(u256 a, u128 b, u256 *out)
{
    u256 low = u128_mul(a.lo, b);
    u256 high = u128_mul(a.hi, b);
    if (high.hi != 0)
        return false;
    u256 shifted = {high.lo, 0};
    return u256_add(low, shifted, out);
}

static bool u256_scale_up(u256 *m, int k)
{
    while (k > 0) {
        int step = k > 38 ? 38 : k;
        if (!u256_mul_u128(*m, pow10_u128(step), m))
            return false;
        k -= step;
    }
    return true;
}

/* n / d and n % d for d != 0 (binary long division; fast path when both fit 128 bits). */
static void u256_divmod(u256 n, u256 d, u256 *q, u256 *r)
{
    if (n.hi == 0 && d.hi == 0) {
        *q = u256_of(n.lo / d.lo);
        *r = u256_of(n.lo % d.lo);
        return;
    }
    if (u256_cmp(n, d) < 0) {
        *q = u256_of(0);
        *r = n;
        return;
    }
    u256 quo = {0, 0}, rem = {0, 0};
    for (int i = 255; i >= 0; i--) {
        /* rem = rem << 1 | bit i of n; rem < d < 2^256 so the shift loses at most a bit that
         * makes rem >= d anyway. */
        bool carry = (rem.hi >> 127) != 0;
        rem.hi = (rem.hi << 1) | (rem.lo >> 127);
        rem.lo = rem.lo << 1;
        u128 bit = i >= 128 ? (n.hi >> (i - 128)) & 1 : (n.lo >> i) & 1;
        rem.lo |= bit;
        if (carry || u256_cmp(rem, d) >= 0) {
            rem = u256_sub(rem, d); /* wraps correctly when carry is set */
            if (i >= 128)
                quo.hi |= (u128)1 << (i - 128);
            else
                quo.lo |= (u128)1 << i;
        }
    }
    *q = quo;
    *r = rem;
}

/* Truncating division by 10^k (any k). */
static u256 u256_div_pow10(u256 m, int k)
{
    u256 q, r;
    while (k > 0) {
        int step = k > 38 ? 38 : k;
        u256_divmod(m, u256_of(pow10_u128(step)), &q, &r);
        m = q;
        k -= step;
    }
    return m;
}

/* Divides by 10^k rounding HALF_UP (away from zero on the magnitude). */
static u256 u256_round_pow10(u256 m, int k)
{
    if (k <= 0)
        return m;
    m = u256_div_pow10(m, k - 1);
    u256 q, r;
    u256_divmod(m, u256_of(10), &q, &r);
    if (r.lo >= 5) {
        u256 one = u256_of(1);
        u256_add(q, one, &q);
    }
    return q;
}

static u128 mag_of(cdc_i128 v)
{
    return v < 0 ? (u128)(-(v + 1)) + 1 : (u128)v;
}

/* Stores sign * m when m < 10^p. */
static int fit(bool neg, u256 m, int p, cdc_i128 *out)
{
    if (m.hi != 0 || m.lo >= pow10_u128(p))
        return -1;
    cdc_i128 v = (cdc_i128)m.lo;
    *out = neg ? -v : v;
    return 0;
}

/* Moves magnitude m from scale `from` to scale `to` (HALF_UP when shrinking). */
static bool rescale_mag(u256 *m, int from, int to)
{
    if (to >= from)
        return u256_scale_up(m, to - from);
    *m = u256_round_pow10(*m, from - to);
    return true;
}

int cdc_xdec_add(cdc_i128 a, int sa, cdc_i128 b, int sb, bool subtract, int p, int s, cdc_i128 *out)
{
    int s0 = sa > sb ? sa : sb;
    u256 ma = u256_of(mag_of(a)), mb = u256_of(mag_of(b));
    bool na = a < 0, nb = (b < 0) != subtract;
    if (b == 0)
        nb = false;
    if (!u256_scale_up(&ma, s0 - sa) || !u256_scale_up(&mb, s0 - sb))
        return -1;
    u256 m;
    bool neg;
    if (na == nb) {
        if (!u256_add(ma, mb, &m))
            return -1;
        neg = na;
    } else if (u256_cmp(ma, mb) >= 0) {
        m = u256_sub(ma, mb);
        neg = na;
    } else {
        m = u256_sub(mb, ma);
        neg = nb;
    }
    if (!rescale_mag(&m, s0, s))
        return -1;
    return fit(neg && !u256_is_zero(m), m, p, out);
}

int cdc_xdec_mul(cdc_i128 a, int sa, cdc_i128 b, int sb, int p, int s, cdc_i128 *out)
{
    u256 m = u128_mul(mag_of(a), mag_of(b));
    if (!rescale_mag(&m, sa + sb, s))
        return -1;
    bool neg = (a < 0) != (b < 0);
    return fit(neg && !u256_is_zero(m), m, p, out);
}

int cdc_xdec_div(cdc_i128 a, int sa, cdc_i128 b, int sb, int p, int s, cdc_i128 *out)
{
    if (b == 0)
        return -2;
    /* result = a / b * 10^(s - sa + sb), rounded HALF_UP */
    int e = s - sa + sb;
    u128 ma = mag_of(a), mb = mag_of(b);
    u256 q, r, d;
    if (e >= 0) {
        /* Long division in chunks of up to 38 digits: the remainder stays below mb. */
        d = u256_of(mb);
        u256_divmod(u256_of(ma), d, &q, &r);
        int left = e;
        while (left > 0) {
            int step = left > 38 ? 38 : left;
            u256 num, qd, rd;
            if (!u256_mul_u128(r, pow10_u128(step), &num))
                return -1; /* cannot happen: r < 2^127 and 10^38 < 2^127 */
            u256_divmod(num, d, &qd, &rd);
            if (!u256_mul_u128(q, pow10_u128(step), &q) || !u256_add(q, qd, &q))
                return -1;
            if (q.hi != 0)
                return -1; /* far beyond any precision */
            r = rd;
            left -= step;
        }
    } else {
        d = u256_of(mb);
        if (!u256_scale_up(&d, -e))
            return -1;
        u256_divmod(u256_of(ma), d, &q, &r);
    }
    /* HALF_UP: round up when 2r >= d */
    u256 twice;
    if (!u256_add(r, r, &twice) || u256_cmp(twice, d) >= 0) {
        if (!u256_add(q, u256_of(1), &q))
            return -1;
    }
    bool neg = (a < 0) != (b < 0);
    return fit(neg && !u256_is_zero(q), q, p, out);
}

int cdc_xdec_mod(cdc_i128 a, int sa, cdc_i128 b, int sb, int p, int s, cdc_i128 *out)
{
    if (b == 0)
        return -2;
    int s0 = sa > sb ? sa : sb;
    u256 ma = u256_of(mag_of(a)), mb = u256_of(mag_of(b));
    if (!u256_scale_up(&ma, s0 - sa) || !u256_scale_up(&mb, s0 - sb))
        return -1;
    u256 q, r;
    u256_divmod(ma, mb, &q, &r);
    if (!rescale_mag(&r, s0, s))
        return -1;
    return fit(a < 0 && !u256_is_zero(r), r, p, out); /* sign of the dividend, as Java */
}

int cdc_xdec_cmp(cdc_i128 a, int sa, cdc_i128 b, int sb)
{
    if (sa == sb)
        return a < b ? -1 : a > b;
    bool na = a < 0, nb = b < 0;
    if (na != nb)
        return na ? -1 : 1;
    int s0 = sa > sb ? sa : sb;
    u256 ma = u256_of(mag_of(a)), mb = u256_of(mag_of(b));
    u256_scale_up(&ma, s0 - sa); /* at most 76 digits: fits */
    u256_scale_up(&mb, s0 - sb);
    int c = u256_cmp(ma, mb);
    return na ? -c : c;
}

int cdc_xdec_rescale(cdc_i128 v, int from, int p, int to, cdc_i128 *out)
{
    u256 m = u256_of(mag_of(v));
    if (!rescale_mag(&m, from, to))
        return -1;
    return fit(v < 0 && !u256_is_zero(m), m, p, out);
}

cdc_i128 cdc_xdec_floor_ceil(cdc_i128 v, int s, bool ceil)
{
    if (s == 0)
        return v;
    cdc_i128 f = (cdc_i128)pow10_u128(s);
    cdc_i128 q = v / f, r = v % f; /* truncates toward zero */
    if (r != 0) {
        if (ceil && v > 0)
            q++;
        else if (!ceil && v < 0)
            q--;
    }
    return q;
}
