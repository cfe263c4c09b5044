// tsr_requantize's bits with 32-bit operations where the shift allows: for
// 30 - shift >= 32 (shift <= -2, the usual case: a scale below 1/2), the product's
// high word (one `mulh` on RV32M) shifted by the rest, then rounded half up as
// (t >> 1) + (t & 1), which is (t + 1) >> 1 without overflow. Otherwise the 64-bit
// form (a variable 64-bit shift is a library call on RV32).
#ifndef TESSERA_REQUANTIZE_FAST_H
#define TESSERA_REQUANTIZE_FAST_H

#include "tessera/kernels_i8.h"

static inline int32_t tsr_requantize_fast(int32_t acc, int32_t multiplier, int32_t shift)
{
    const int32_t s = 30 - shift; // [0, 61] for shift in [-31, 30]
    if (s < 32) return tsr_requantize(acc, multiplier, shift);
    const int32_t t = (int32_t)(((int64_t)acc * multiplier) >> 32) >> (s - 32); // |product| <= 2^62: the high word fits
    return (t >> 1) + (t & 1);
}

static inline int8_t tsr_requantize_to_i8_fast(int32_t acc, int32_t multiplier, int32_t shift, int32_t y_zero,
                                               int32_t y_min, int32_t y_max)
{
    const int32_t r = tsr_requantize_fast(acc, multiplier, shift);
    // y_zero and the bounds lie in [-128, 127]: beyond [-256, 255] only the bound matters.
    const int32_t v = y_zero + (r < -256 ? -256 : r > 255 ? 255 : r);
    return (int8_t)(v < y_min ? y_min : v > y_max ? y_max : v);
}

#endif
