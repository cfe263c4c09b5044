// tsr_requantize's bits with 32-bit operations (a variable 64-bit shift is a library
// call on RV32): the product's two words (`mul` and `mulh` on RV32M), p = acc multiplier.
// Elsewhere (x86-64, Arm) only the first form: their 64-bit shifts are cheap.
// For s = 30 - shift >= 32 (shift <= -2, the usual case: a scale below 1/2) the high
// word shifted by the rest, then rounded half up as (t >> 1) + (t & 1), which is
// (t + 1) >> 1 without overflow. Below, on RV32, ((p >> s) + 1) >> 1 is (p >> (s + 1))
// plus bit s of p: the two words shifted together, saturated to int32 where the high word
// says the value does not fit.
#ifndef TESSERA_REQUANTIZE_FAST_H
#define TESSERA_REQUANTIZE_FAST_H

#include "tessera/kernels_i8.h"

// tsr_requantize for s = 30 - shift in [0, 31] from the product's two words.
static inline int32_t tsr_requantize_two_words(int32_t acc, int32_t multiplier, int32_t shift)
{
    const int32_t s = 30 - shift;
    const int64_t p = (int64_t)acc * multiplier; // |p| <= 2^62
    const int32_t hi = (int32_t)(p >> 32);
    const uint32_t lo = (uint32_t)p;
    // u = p >> (s + 1) as words: high u_hi, low u_lo; bit s of p rounds it.
    const int32_t u_hi = hi >> (s == 31 ? 31 : s + 1);
    const uint32_t u_lo = s == 31 ? (uint32_t)hi : ((uint32_t)hi << (31 - s)) | (lo >> (s + 1));
    const int32_t bit = (int32_t)((lo >> s) & 1u);
    if (u_hi != ((int32_t)u_lo >> 31)) return u_hi < 0 ? INT32_MIN : INT32_MAX; // beyond int32, and so is u + bit
    return (int32_t)u_lo == INT32_MAX ? INT32_MAX : (int32_t)u_lo + bit;
}

static inline int32_t tsr_requantize_fast(int32_t acc, int32_t multiplier, int32_t shift)
{
    const int32_t s = 30 - shift; // [0, 61] for shift in [-31, 30]
    if (s >= 32) {
        const int32_t t = (int32_t)(((int64_t)acc * multiplier) >> 32) >> (s - 32); // the high word
        return (t >> 1) + (t & 1);
    }
#if defined(__riscv) && __riscv_xlen == 32
    return tsr_requantize_two_words(acc, multiplier, shift);
#else
    return tsr_requantize(acc, multiplier, shift); // a 64-bit shift is an instruction or two here
#endif
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
