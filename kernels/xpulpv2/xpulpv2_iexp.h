// The integer exponential of the int8 softmax and SiLU (tsr_iexp, softmax_i8_checks.h) on
// XpulpV2: its quotient by ln2 through an exact reciprocal, taken once a call, instead of a
// division each (up to 35 cycles on these cores). The same bits.
#ifndef TESSERA_XPULPV2_IEXP_H
#define TESSERA_XPULPV2_IEXP_H

#include "softmax_i8_checks.h"
#include "xpulpv2_dot.h"

// floor((2^32 - 1) / ln2), for tsr_xpulpv2_iexp (ln2 >= 709: tsr_iexp_constants_ok).
static inline uint32_t tsr_xpulpv2_iexp_reciprocal(const tsr_iexp_constants &k) { return 0xFFFFFFFFu / (uint32_t)k.ln2; }

// tsr_iexp(d, k) for d <= 0 (|d| < 2^22), m = tsr_xpulpv2_iexp_reciprocal(k).
static inline uint32_t tsr_xpulpv2_iexp(int32_t d, const tsr_iexp_constants &k, uint32_t m)
{
    const uint32_t z = tsr_xpulpv2_divide((uint32_t)-d, (uint32_t)k.ln2, m);
    const int32_t t = d + (int32_t)z * k.ln2 + k.b;
    const uint32_t l = uint32_t(t) * uint32_t(t) + uint32_t(k.c);
    return z >= 26u ? 0u : l >> (z + 6u);
}

#endif
