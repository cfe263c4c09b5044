/*
 * sqrtf without fsqrt.s, for the pulp-rtl cores with the FPU.
 *
 * On the Verilator model of cv32e40p with FPU=1 (its fpnew divider/square-root unit,
 * fpnew_divsqrt_th_32), an fdiv.s or fsqrt.s never completes: the core waits for ever.
 * The firmware for those cores is therefore compiled with -mno-fdiv
 * (toolchain/riscv32-imfc-xpulpv2-elf.cmake): divisions go to libgcc's __divsf3 and
 * square roots to sqrtf, which picolibc implements with fsqrt.s. This one replaces it
 * (the board's link forces it in ahead of libm): the root by integer arithmetic,
 * correctly rounded (to nearest, ties to even) like fsqrt.s and IEEE 754, so results
 * are the same bits. tests/kernels/sqrtf_integer_test.cpp holds it against the host's.
 */
#include <stdint.h>

#ifndef TSR_SQRTF_NAME
#define TSR_SQRTF_NAME sqrtf
#endif

/* floor(sqrt(v)) and v - floor(sqrt(v))^2, bit by bit. */
static uint64_t isqrt_u64(uint64_t v, uint64_t *remainder)
{
    uint64_t root = 0;
    uint64_t bit = (uint64_t)1 << 62;
    while (bit > v) {
        bit >>= 2;
    }
    while (bit != 0) {
        if (v >= root + bit) {
            v -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    *remainder = v;
    return root;
}

float TSR_SQRTF_NAME(float x)
{
    union {
        float f;
        uint32_t u;
    } in = {x}, out;
    const uint32_t sign = in.u >> 31;
    int32_t exponent = (int32_t)((in.u >> 23) & 0xFFu);
    uint32_t mantissa = in.u & 0x7FFFFFu;
    if (exponent == 0xFF) { /* NaN stays (quieted), +inf stays, -inf is invalid */
        if (mantissa != 0) {
            out.u = in.u | 0x400000u;
            return out.f;
        }
        out.u = sign ? 0x7FC00000u : in.u;
        return out.f;
    }
    if (exponent == 0 && mantissa == 0) {
        return x; /* +0 and -0 */
    }
    if (sign) {
        out.u = 0x7FC00000u;
        return out.f;
    }
    if (exponent == 0) { /* subnormal: normalize */
        exponent = 1;
        while ((mantissa & 0x800000u) == 0) {
            mantissa <<= 1;
            --exponent;
        }
    } else {
        mantissa |= 0x800000u;
    }
    /* x = mantissa * 2^p with p even; the root of mantissa << 26 has 25 or 26 bits. */
    int32_t p = exponent - 127 - 23;
    if (p & 1) {
        mantissa <<= 1;
        --p;
    }
    uint64_t remainder;
    uint64_t root = isqrt_u64((uint64_t)mantissa << 26, &remainder);
    /* sqrt(x) = root_exact * 2^(p/2 - 13); keep 24 bits, then round. */
    int32_t shift = root >> 25 ? 2 : 1;
    uint32_t kept = (uint32_t)(root >> shift);
    const uint32_t round = (uint32_t)(root >> (shift - 1)) & 1u;
    const int sticky = remainder != 0 || (shift == 2 && (root & 1u));
    int32_t biased = 23 + p / 2 - 13 + shift + 127;
    if (round && (sticky || (kept & 1u))) {
        ++kept;
        if (kept == 0x1000000u) {
            kept >>= 1;
            ++biased;
        }
    }
    out.u = ((uint32_t)biased << 23) | (kept & 0x7FFFFFu);
    return out.f;
}
