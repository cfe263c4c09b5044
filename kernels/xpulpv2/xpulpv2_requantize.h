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

#endif
