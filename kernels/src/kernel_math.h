// Arithmetic every kernel shares, so the reference and optimized versions of a
// kernel do exactly the same operations.
#ifndef TESSERA_KERNEL_MATH_H
#define TESSERA_KERNEL_MATH_H

#include <stdint.h>
#include <string.h>

// acc + a * b, fused (one rounding) where the core has a fused multiply-add
// (RISC-V F, x86 FMA), else two roundings. Kernels are compiled with
// -ffp-contract=off: no other expression is fused behind their back.
static inline float tsr_mac(float acc, float a, float b)
{
#if defined(__riscv_flen) || defined(__FP_FAST_FMAF)
    return __builtin_fmaf(a, b, acc);
#else
    return acc + a * b;
#endif
}

// e^x within 2 ulp over the whole float range (0 below -104, +inf above 88.72,
// NaN for NaN), in about twenty instructions: x = n ln2 + r with |r| <= ln2/2,
// e^r by a degree-6 polynomial, then the exponent. Softmax and SiLU use it.
static inline float tsr_expf(float x)
{
    if (!(x < 88.72283f)) return x > 0.0f ? __builtin_inff() : x; // +inf, or NaN
    if (x < -103.972f) return 0.0f;
    const int32_t n = (int32_t)__builtin_lrintf(x * 1.44269504088896341f); // one instruction, no errno
    const float fn = (float)n;
    float r = tsr_mac(x, fn, -0.693359375f);     // x - n ln2, the high part exactly
    r = tsr_mac(r, fn, 2.12194440e-4f);          // and the low part
    float p = 1.9875691500e-4f;
    p = tsr_mac(1.3981999507e-3f, p, r);
    p = tsr_mac(8.3334519073e-3f, p, r);
    p = tsr_mac(4.1665795894e-2f, p, r);
    p = tsr_mac(1.6666665459e-1f, p, r);
    p = tsr_mac(5.0000001201e-1f, p, r);
    p = tsr_mac(r, p, r * r) + 1.0f;             // 1 + r + r^2 (1/2 + r (1/6 + ...))
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
    const uint32_t bits = (uint32_t)(e + 127) << 23;
    float scale;
    __builtin_memcpy(&scale, &bits, sizeof scale); // a register move, even freestanding
    return p * scale;
}

#endif
