// The integer exponential, the sign masks and the division by a reciprocal that Helium's
// int8 non-linearities share (softmax_i8_mve.cpp, elementwise_i8_mve.cpp), four lanes at
// a time, bit for bit as the scalar forms (softmax_i8_checks.h).
#ifndef TESSERA_IEXP_MVE_H
#define TESSERA_IEXP_MVE_H

#include <arm_mve.h>

#include "softmax_i8_checks.h"
#include "tessera/kernels_arm_mve.h"

// -1 in the lanes where v < 0, else 0 (an arithmetic shift: no predicate to move).
TSR_MVE_INLINE int32x4_t tsr_mve_negative(int32x4_t v) { return vshrq_n_s32(v, 31); }

// tsr_iexp(-d_neg, k) for d_neg in [0, 2^22): z = floor(d_neg / ln2) from a float
// estimate (d_neg is exact in a float and the quotient, below 2^13, comes within one of
// it), corrected on sign masks; t = b - (d_neg - z ln2); (t^2 + c) >> (z + 6), the shift
// clamped to 32, which VSHL turns into 0 as z >= 26 does there.
TSR_MVE_INLINE uint32x4_t tsr_mve_iexp(int32x4_t d_neg, float inv_ln2, const tsr_iexp_constants &k)
{
    const int32x4_t ln2 = vdupq_n_s32(k.ln2);
    int32x4_t z = vcvtq_s32_f32(vmulq_n_f32(vcvtq_f32_s32(d_neg), inv_ln2));
    int32x4_t rest = vsubq_s32(d_neg, vmulq_s32(z, ln2));
    const int32x4_t low = tsr_mve_negative(rest); // z one too big
    z = vaddq_s32(z, low), rest = vaddq_s32(rest, vandq_s32(ln2, low));
    const int32x4_t high = tsr_mve_negative(vsubq_s32(vsubq_s32(ln2, vdupq_n_s32(1)), rest)); // rest >= ln2
    z = vsubq_s32(z, high), rest = vsubq_s32(rest, vandq_s32(ln2, high));
    const uint32x4_t t = vreinterpretq_u32_s32(vsubq_s32(vdupq_n_s32(k.b), rest));
    const uint32x4_t l = vaddq_n_u32(vmulq_u32(t, t), (uint32_t)k.c);
    return vshlq_u32(l, vnegq_s32(vminq_s32(vaddq_n_s32(z, 6), vdupq_n_s32(32))));
}

// floor(a / d) for four a in [0, 2^31) and d >= 1, from r = floor((2^32 - 1) / d): the high
// word of a r, at most two short (tsr_softmax_i8's argument), corrected on sign masks.
TSR_MVE_INLINE int32x4_t tsr_mve_floor_div(int32x4_t a, uint32_t r, int32_t d)
{
    int32x4_t q = vreinterpretq_s32_u32(vmulhq_u32(vreinterpretq_u32_s32(a), vdupq_n_u32(r)));
    int32x4_t rest = vsubq_s32(a, vmulq_n_s32(q, d));
    for (int step = 0; step < 2; ++step) {
        const int32x4_t short_by_one = tsr_mve_negative(vsubq_s32(vdupq_n_s32(d - 1), rest)); // rest >= d
        q = vsubq_s32(q, short_by_one), rest = vsubq_s32(rest, vandq_s32(vdupq_n_s32(d), short_by_one));
    }
    return q;
}

#endif
