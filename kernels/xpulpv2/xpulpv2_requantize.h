// tsr_requantize_to_i8 on XpulpV2: requantize_fast.h's arithmetic with its clamps as p.max /
// p.min, and the usual case (shift <= -2: a scale below 1/2) on a short path of its own, the
// product's high word shifted and rounded half up. A channel's shift is clamped to [-31, 30]
// (the range the kernels' checks hold it to) as the int8 matmuls clamp it: a table changed
// since its check gives wrong numbers, never undefined behaviour. Bit-exact with
// tsr_requantize_to_i8 for every shift in that range.
#ifndef TESSERA_XPULPV2_REQUANTIZE_H
#define TESSERA_XPULPV2_REQUANTIZE_H

#include <stdint.h>

#include "requantize_fast.h"
#include "xpulpv2_rqs.h"

// The rare case (shift > -2: a scale of 1/2 or more) out of line, so that the usual one's loop
// does not compute the product's low word it has no use for.
static __attribute__((noinline)) int32_t tsr_xpulpv2_requantize_two_words(int32_t acc, int32_t multiplier, int32_t shift)
{
    return tsr_requantize_two_words(acc, multiplier, shift);
}

static inline int8_t tsr_xpulpv2_requantize_to_i8(int32_t acc, int32_t multiplier, int32_t shift, int32_t y_zero,
                                                  int32_t y_min, int32_t y_max)
{
    shift = tsr_xpulpv2_clamp(shift, -31, 30);
    int32_t r;
    if (__builtin_expect(shift <= -2, 1)) { // s = 30 - shift >= 32: the high word alone, shifted by s - 32
        const int32_t t = (int32_t)(((int64_t)acc * multiplier) >> 32) >> (-2 - shift);
        r = (t >> 1) + (t & 1);
    } else {
        r = tsr_xpulpv2_requantize_two_words(acc, multiplier, shift);
    }
    // y_zero and the bounds lie in [-128, 127]: beyond [-256, 255] only the bound matters.
    return (int8_t)tsr_xpulpv2_clamp(y_zero + tsr_xpulpv2_clamp(r, -256, 255), y_min, y_max);
}

// The same output for a channel of a call whose clamps are folded (tsr_xpulpv2_output_bounds):
// (y_zero + clamp(r, -256, 255)) clamped to [y_min, y_max] is y_zero + clamp(r, lo, hi) for
// lo = y_min - y_zero and hi = y_max - y_zero, both in [-255, 255] (y_min > y_max too: y_max
// either way). The usual case's shift by -2 - shift is sra's: an amount beyond 31 (a table
// changed since its check) takes its low five bits, a wrong number, never undefined
// behaviour; so only the rare case clamps the shift.
typedef struct tsr_xpulpv2_output_bounds {
    int32_t lo, hi, y_zero;
} tsr_xpulpv2_output_bounds;

static inline __attribute__((always_inline)) int8_t tsr_xpulpv2_requantize_bounded(int32_t acc, int32_t multiplier,
                                                                                   int32_t shift,
                                                                                   const tsr_xpulpv2_output_bounds &b)
{
    int32_t r;
    if (__builtin_expect(shift <= -2, 1)) {
        int32_t t = (int32_t)(((int64_t)acc * multiplier) >> 32); // |t| <= 2^30: t + 1 does not overflow
        __asm__("sra %0, %0, %1" : "+r"(t) : "r"(-2 - shift));
        r = (t + 1) >> 1;
    } else {
        r = tsr_xpulpv2_requantize_two_words(acc, multiplier, tsr_xpulpv2_clamp(shift, -31, 30));
    }
    return (int8_t)(tsr_xpulpv2_clamp(r, b.lo, b.hi) + b.y_zero);
}

// A matmul's block of `block` (4 or 1) channels of one row: acc[c] (+ offset[c] where
// `offsets`) requantized by multiplier m[c] and shift s[c] into yr[c]. Four are unrolled,
// so that their sums stay in registers.
static inline __attribute__((always_inline)) void
tsr_xpulpv2_requantize_block(int8_t *yr, const int32_t *acc, const int32_t *offset, bool offsets, const int32_t *m,
                             const int8_t *s, uint32_t block, const tsr_xpulpv2_output_bounds &b)
{
    if (block == 4u) {
        int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
        if (offsets) a0 += offset[0], a1 += offset[1], a2 += offset[2], a3 += offset[3];
        yr[0] = tsr_xpulpv2_requantize_bounded(a0, m[0], s[0], b);
        yr[1] = tsr_xpulpv2_requantize_bounded(a1, m[1], s[1], b);
        yr[2] = tsr_xpulpv2_requantize_bounded(a2, m[2], s[2], b);
        yr[3] = tsr_xpulpv2_requantize_bounded(a3, m[3], s[3], b);
    } else {
        yr[0] = tsr_xpulpv2_requantize_bounded(acc[0] + offset[0], m[0], s[0], b);
    }
}

#endif
