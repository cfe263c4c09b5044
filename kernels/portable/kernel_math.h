// Arithmetic every kernel shares, so the reference and optimized versions of a
// kernel do exactly the same operations.
#ifndef TESSERA_KERNEL_MATH_H
#define TESSERA_KERNEL_MATH_H

#include <stdint.h>
#include <string.h>

// acc + a * b, fused (one rounding) where the core has a fused multiply-add
// (RISC-V F, x86 FMA; TSR_MAC_FUSES, which a vector form of it follows to keep its
// bits), else two roundings. Kernels are compiled with -ffp-contract=off: no other
// expression is fused behind their back.
#if defined(__riscv_flen) || defined(__FP_FAST_FMAF)
#define TSR_MAC_FUSES 1
#else
#define TSR_MAC_FUSES 0
#endif
static inline float tsr_mac(float acc, float a, float b)
{
#if TSR_MAC_FUSES
    return __builtin_fmaf(a, b, acc);
#else
    return acc + a * b;
#endif
}

// The square root, correctly rounded. Through the compiler's builtin, not <math.h>:
// picolibc's RISC-V header inlines sqrtf as fsqrt.s even when the compiler is told
// -mno-fdiv (the pulp-rtl FPU cores, whose model never completes one); the builtin
// then calls sqrtf, and is the instruction wherever the target has it.
static inline float tsr_sqrtf(float x)
{
    return __builtin_sqrtf(x);
}

// e^x within 2 ulp over the whole float range (0 below -103.972, +inf from 88.72283,
// NaN for NaN): x = n ln2 + r with |r| <= ln2/2, e^r by a degree-6 polynomial, then
// the exponent. Two forms that give the same bits for all 2^32 inputs (checked
// exhaustively once; kernels_test checks every 127th float and the edges):
//  - tsr_expf_branching, for scalar cores: n by lrintf (one instruction), and a rare
//    branch that scales a subnormal or near-overflow result in two steps;
//  - tsr_expf_branch_free, for cores whose compiler vectorizes a loop of it: n by
//    adding 1.5 * 2^23 (rounds to nearest even, as lrintf), and 2^n as
//    2^(n/2) * 2^(n - n/2), two normal factors whatever e^x is; the first product is
//    exact, the second rounds once.
// tsr_expf is the form for the target. Softmax and SiLU use it.
static inline float tsr_expf_poly(float x, float fn) // e^(x - fn ln2), about 1
{
    float r = tsr_mac(x, fn, -0.693359375f); // x - n ln2, the high part exactly
    r = tsr_mac(r, fn, 2.12194440e-4f);      // and the low part
    float p = 1.9875691500e-4f;
    p = tsr_mac(1.3981999507e-3f, p, r);
    p = tsr_mac(8.3334519073e-3f, p, r);
    p = tsr_mac(4.1665795894e-2f, p, r);
    p = tsr_mac(1.6666665459e-1f, p, r);
    p = tsr_mac(5.0000001201e-1f, p, r);
    return tsr_mac(r, p, r * r) + 1.0f; // 1 + r + r^2 (1/2 + r (1/6 + ...))
}

static inline float tsr_pow2i(int32_t e) // 2^e for e in -126..127
{
    const uint32_t bits = (uint32_t)(e + 127) << 23;
    float f;
    __builtin_memcpy(&f, &bits, sizeof f); // a register move, even freestanding
    return f;
}

static inline float tsr_expf_branching(float x)
{
    // "x < 88.72283f" as the branch that is taken: its negation would be an unordered
    // comparison, which RISC-V compilers wrap in a save and restore of the FP flags.
    if (__builtin_expect(x < 88.72283f, 1)) {
        if (x < -103.972f) return 0.0f;
        const int32_t n = (int32_t)__builtin_lrintf(x * 1.44269504088896341f); // no errno
        float p = tsr_expf_poly(x, (float)n);
        int32_t e = n;
        if ((uint32_t)(e + 125) > 252u) { // outside -125..127: rare
            if (e > 127) { // just below the overflow threshold: 2^128 is not a float, 2 * 2^127 is
                p *= 2.0f;
                e -= 1;
            } else { // a subnormal result: scale in two steps
                p *= 5.42101086e-20f; // 2^-64
                e += 64;
            }
        }
        return p * tsr_pow2i(e);
    }
    return x > 0.0f ? __builtin_inff() : x; // +inf, or NaN
}

static inline float tsr_expf_branch_free(float x)
{
    const float lo = -103.972f, hi = 88.72283f;
    const float xc = x < lo ? lo : (x > hi ? hi : x); // NaN stays NaN
    const float shifter = 12582912.0f;                // 1.5 * 2^23
    const float t = xc * 1.44269504088896341f + shifter;
    uint32_t t_bits;
    __builtin_memcpy(&t_bits, &t, sizeof t_bits);
    const int32_t n = (int32_t)(t_bits - 0x4B400000u); // t's integer part: round(x / ln2)
    const float p = tsr_expf_poly(xc, t - shifter);
    const int32_t e1 = n >> 1, e2 = n - e1; // each in -75..64
    const float y = p * tsr_pow2i(e1) * tsr_pow2i(e2);
    return x < lo ? 0.0f : (x >= hi ? __builtin_inff() : (x != x ? x : y));
}

static inline float tsr_expf(float x)
{
#if defined(__riscv)
    return tsr_expf_branching(x);
#else
    return tsr_expf_branch_free(x);
#endif
}

// The position of the highest set bit of v >= 1 (0..31), by halving: a count of leading
// zeros is a library call on RV32 without Zbb.
// GELU's tanh form of one value: 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3))), tanh(u) as
// 1 - 2 / (e^(2u) + 1) (e^(2u) overflowing to +inf gives 1, underflowing to 0 gives -1).
static inline float tsr_gelu_tanh(float v)
{
    const float u = 0.7978845608028654f * tsr_mac(v, 0.044715f * v, v * v);
    const float t = 1.0f - 2.0f / (tsr_expf(2.0f * u) + 1.0f);
    return 0.5f * v * (1.0f + t);
}

// erf(x) by Abramowitz and Stegun 7.1.26 (|error| <= 1.5e-7): 1 - (a1 t + ... + a5 t^5) e^(-x^2),
// t = 1 / (1 + p |x|), odd in x.
static inline float tsr_erf(float x)
{
    const float a = x < 0.0f ? -x : x, t = 1.0f / tsr_mac(1.0f, 0.3275911f, a);
    float p = tsr_mac(-1.453152027f, 1.061405429f, t);
    p = tsr_mac(1.421413741f, p, t);
    p = tsr_mac(-0.284496736f, p, t);
    p = tsr_mac(0.254829592f, p, t);
    const float y = 1.0f - p * t * tsr_expf(-a * a);
    return x < 0.0f ? -y : y;
}

// GELU's exact form of one value: 0.5 v (1 + erf(v / sqrt(2))).
static inline float tsr_gelu_erf(float v) { return 0.5f * v * (1.0f + tsr_erf(v * 0.7071067811865476f)); }

static inline uint32_t tsr_top_bit(uint32_t v)
{
    uint32_t a = 0;
    if (v >> 16) v >>= 16, a += 16;
    if (v >> 8) v >>= 8, a += 8;
    if (v >> 4) v >>= 4, a += 4;
    if (v >> 2) v >>= 2, a += 2;
    return a + (v >> 1);
}

// floor((hi 2^32 + lo) / d) for hi < d (the quotient fits 32 bits), and the remainder in
// *rem: two 32-bit divisions of 16-bit digits, each corrected (Hacker's Delight's divlu),
// where a 64-bit division is a library call on RV32 (about 150 cycles on a PULP core).
static inline uint32_t tsr_udiv_64_32(uint32_t hi, uint32_t lo, uint32_t d, uint32_t *rem)
{
    const uint32_t b = 1u << 16, s = 31u - tsr_top_bit(d); // d normalized: its top bit set
    d <<= s;
    const uint32_t d1 = d >> 16, d0 = d & 0xFFFFu;
    const uint32_t n32 = s ? (hi << s) | (lo >> (32u - s)) : hi, n10 = lo << s, n1 = n10 >> 16, n0 = n10 & 0xFFFFu;
    uint32_t q1 = n32 / d1, r = n32 - q1 * d1;
    while (q1 >= b || q1 * d0 > ((r << 16) | n1)) { // at most twice
        --q1;
        r += d1;
        if (r >= b) break;
    }
    const uint32_t n21 = (n32 << 16) + n1 - q1 * d; // modulo 2^32: the true value is below d
    uint32_t q0 = n21 / d1;
    r = n21 - q0 * d1;
    while (q0 >= b || q0 * d0 > ((r << 16) | n0)) {
        --q0;
        r += d1;
        if (r >= b) break;
    }
    *rem = ((n21 << 16) + n0 - q0 * d) >> s;
    return (q1 << 16) | q0;
}

#endif
