// The ranges tsr_softmax_i8_args documents, and the integer exponential both versions share.
#ifndef TESSERA_SOFTMAX_I8_CHECKS_H
#define TESSERA_SOFTMAX_I8_CHECKS_H

#include "tessera/kernels_i8.h"

// What tsr_iexp_constants_for gives for a scale in [2^-11, 16).
static inline bool tsr_iexp_constants_ok(const tsr_iexp_constants &k) { return tsr_iexp_constants_valid(k) != 0; }

static inline bool tsr_softmax_i8_args_ok(const tsr_softmax_i8_args *a, const uint32_t *scratch)
{
    if (!a || !a->x || !a->y || !scratch || a->n == 0u || a->n > 1024u) return false;
    return tsr_iexp_constants_ok(a->constants);
}

// exp(fine scale * d) / 64 in the scale a * fine scale^2, for d <= 0 (|d| < 2^22):
// 2^-z (a (p + b)^2 + c) / 64, below 2^18.
static inline uint32_t tsr_iexp(int32_t d, const tsr_iexp_constants &k)
{
    const int32_t z = -d / k.ln2;          // d <= 0: a quotient of non-negative numbers
    const int32_t t = d + z * k.ln2 + k.b; // p + b, with p in (-ln2, 0]: 0 < t <= b
    const uint32_t l = uint32_t(t) * uint32_t(t) + uint32_t(k.c); // < 2771^2 + 4.03e6 < 2^24
    return z >= 26 ? 0u : l >> (z + 6);
}

// The quotient floor(u 2^shift / ln2) of tsr_iexp for an int8 softmax's u = max - x in
// [0, 255] by one 32-bit product: (u M) >> 19 for M = floor(2^(shift + 19) / ln2) + 1.
// M / 2^19 exceeds 2^shift / ln2 by at most 2^-19, so u M / 2^19 exceeds u 2^shift / ln2 by
// at most 255 / 2^19 < 1 / 1420 <= 1 / ln2, less than the distance from u 2^shift / ln2 (a
// multiple of 1 / ln2) up to the next integer: the floors agree. u M <= 255 (2^33 / 709 + 1)
// < 2^32. M is computed without a 64-bit division: 2^(31 + j) = (q ln2 + r) 2^j.
static const uint32_t tsr_iexp_quotient_bits = 19;
static inline uint32_t tsr_iexp_quotient_multiplier(const tsr_iexp_constants &k)
{
    const uint32_t ln2 = (uint32_t)k.ln2, e = (uint32_t)k.shift + tsr_iexp_quotient_bits; // 19..33
    if (e <= 31u) return (1u << e) / ln2 + 1u;
    const uint32_t j = e - 31u, q = 0x80000000u / ln2, r = 0x80000000u - q * ln2; // r < ln2 < 2^11
    return (q << j) + (r << j) / ln2 + 1u;
}

// The probabilities from the exponentials e (n of them, summing to sum >= 1): y = round(4096
// e / sum) without a division each: q = floor(m / sum) from one reciprocal, r = floor((2^32 -
// 1) / sum), as the high word of m * r, corrected upwards (q is at most 2 short, as m < 2^31:
// m * r / 2^32 > m / sum - m / 2^32 - 1). e[i] < 2^18 and sum < 2^28, so m = 4096 e[i] +
// sum / 2 < 2^31, and q <= 4096.
static inline void tsr_softmax_i8_normalize(const uint32_t *e, uint32_t n, uint32_t sum, uint16_t *y)
{
    const uint32_t reciprocal = 0xFFFFFFFFu / sum, half = sum / 2u;
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t m = e[i] * 4096u + half;
        uint32_t q = uint32_t((uint64_t(m) * reciprocal) >> 32);
        uint32_t rest = m - q * sum;
        while (rest >= sum) ++q, rest -= sum;
        y[i] = uint16_t(q);
    }
}

#endif
