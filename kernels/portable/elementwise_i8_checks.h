// The ranges the int8 RMSNorm and SwiGLU arguments document, and the integer
// arithmetic every version of them shares.
#ifndef TESSERA_ELEMENTWISE_I8_CHECKS_H
#define TESSERA_ELEMENTWISE_I8_CHECKS_H

#include "kernel_checks.h"
#include "softmax_i8_checks.h"

// floor(sqrt(v)) by bits, integers only.
static inline uint32_t tsr_isqrt(uint32_t v)
{
    uint32_t root = 0, bit = 1u << 30;
    while (bit > v) bit >>= 2;
    for (; bit; bit >>= 2) {
        if (v >= root + bit) v -= root + bit, root = (root >> 1) + bit;
        else root >>= 1;
    }
    return root;
}

// The same root with each bit's step a mask instead of a branch, for cores whose taken
// branches cost a refetch (the PULP cores' RMSNorm).
static inline uint32_t tsr_isqrt_masked(uint32_t v)
{
    uint32_t root = 0, bit = 1u << 30;
    while (bit > v) bit >>= 2;
    for (; bit; bit >>= 2) {
        const uint32_t t = root + bit, take = 0u - (uint32_t)(v >= t); // all ones where v >= root + bit
        v -= t & take;
        root = (root >> 1) + (bit & take);
    }
    return root;
}

// round(n / d) for d > 0, halves away from zero.
static inline int32_t tsr_round_div(int32_t n, int32_t d) { return n >= 0 ? (n + d / 2) / d : -((-n + d / 2) / d); }

static inline int32_t tsr_rounding_shift(int32_t v, int32_t s) { return s ? (v + (1 << (s - 1))) >> s : v; }

static inline int8_t tsr_clamp_i8(int32_t v) { return int8_t(v < -128 ? -128 : v > 127 ? 127 : v); }

static inline bool tsr_zero_point_ok(int32_t z) { return z >= -128 && z <= 127; }

// RMSNorm's root of a row from its sum of squared (x - x_zero): 256 sum / dim in 32 bits,
// (sum / dim) * 256 + (sum % dim) * 256 / dim (< 2^24), plus eps_q8; its square root in
// 1/16ths of the input's scale, at least 1.
static inline uint32_t tsr_rmsnorm_i8_root(uint32_t sum, uint32_t dim, uint32_t eps_q8,
                                           uint32_t (*isqrt)(uint32_t) = tsr_isqrt)
{
    uint32_t mean_q8;
    if ((dim & (dim - 1u)) == 0u) { // a power of two: the same quotients by shifts (a division costs RV32 cores up to 35 cycles)
        uint32_t s = 0;
        while ((1u << s) < dim) ++s;
        mean_q8 = (sum >> s) * 256u + ((sum & (dim - 1u)) * 256u >> s);
    } else {
        mean_q8 = (sum / dim) * 256u + (sum % dim) * 256u / dim;
    }
    const uint32_t root = isqrt(mean_q8 + eps_q8);
    return root ? root : 1u;
}

// One RMSNorm output: u = x - x_zero, g the gain element (|g u| <= 128 * 255: times gain < 2^30).
static inline int8_t tsr_rmsnorm_i8_one(int32_t u, int32_t g, uint32_t root, const tsr_rmsnorm_i8_args *a)
{
    return tsr_clamp_i8(a->y_zero + tsr_rounding_shift(tsr_round_div(g * u * a->gain, (int32_t)root), a->gain_shift));
}

// g sigmoid(g) in 1/16ths of the gate's scale for g = gate - gate_zero (|g| <= 255): 16 g e0
// / (e0 + e), or 16 g e / (e0 + e), with e = e^-|g| and e0 = e^0 (<= 2^18). |16 g| e0 could
// reach 4080 * 2^18 > 2^31: e0 and e are divided by 4 first (e0 / 4 is still above 11,000).
static inline int32_t tsr_silu16_i8(int32_t g, int32_t e0, const tsr_iexp_constants &k)
{
    const int32_t e = (int32_t)tsr_iexp(-(g < 0 ? -g : g) * (1 << k.shift), k);
    const int32_t p = (g >= 0 ? e0 : e) >> 2, q = (e0 + e) >> 2;
    return tsr_round_div(16 * g * p, q);
}

static inline bool tsr_rmsnorm_i8_args_ok(const tsr_rmsnorm_i8_args *a)
{
    return a && a->x && a->weight && a->y && a->rows && a->dim && a->dim <= 16384u && tsr_zero_point_ok(a->x_zero) &&
           tsr_zero_point_ok(a->y_zero) && a->eps_q8 <= (1u << 24) && a->gain >= (1 << 14) && a->gain < (1 << 15) &&
           a->gain_shift >= 0 && a->gain_shift <= 30;
}

static inline bool tsr_add_i8_args_ok(const tsr_add_i8_args *a)
{
    return a && a->a && a->b && a->y && a->count && tsr_requant_ok(a->a_multiplier, a->a_shift) &&
           tsr_requant_ok(a->b_multiplier, a->b_shift);
}

static inline bool tsr_swiglu_i8_args_ok(const tsr_swiglu_i8_args *a)
{
    return a && a->gate && a->up && a->y && a->count && tsr_zero_point_ok(a->gate_zero) &&
           tsr_zero_point_ok(a->up_zero) && tsr_zero_point_ok(a->y_zero) && tsr_iexp_constants_ok(a->constants) &&
           tsr_requant_ok(a->multiplier, a->shift);
}

// LayerNorm (tsr_layernorm_i8): its arguments in range, and the steps of a row's statistics
// that every kernel set computes alike.
static inline bool tsr_layernorm_i8_args_ok(const tsr_layernorm_i8_args *a)
{
    return a && a->x && a->weight && a->bias && a->y && a->rows && a->dim && a->dim <= 16384u && a->shift >= -31 &&
           a->shift <= 30;
}

// floor(sum / d) for sum < d 2^32 (d <= 16384): by 32-bit division, exactly where sum
// fits 32 bits, else of sum's top 32 bits and shifted back (the mean of squares to 18 or
// more significant bits), so that a 32-bit core needs no 64-bit division routine.
static inline uint32_t tsr_layernorm_i8_mean(uint64_t sum, uint32_t d)
{
    if (sum <= 0xFFFFFFFFu) return (uint32_t)sum / d;
    uint32_t k = 0;
    while ((sum >> k) > 0xFFFFFFFFu) ++k;
    return ((uint32_t)(sum >> k) / d) << k; // < 2^32: sum < d 2^32
}

// round(2^38 / s) for 1 <= s <= 2^16, by two 32-bit divisions: 2^38 / s = 128 (2^31 / s)
// + 128 (2^31 mod s) / s.
static inline int64_t tsr_layernorm_i8_reciprocal(uint32_t s)
{
    const uint32_t q = 0x80000000u / s, r = 0x80000000u % s; // r < s <= 2^16: 128 r + s / 2 < 2^24
    return (int64_t)q * 128 + (r * 128u + s / 2u) / s;
}

// A row's reciprocal deviation r = round(2^38 / max(1, isqrt(mean((256 x - m)^2) + eps_q16)))
// from ss, the sum of (256 x - m)^2 over the row's d elements.
static inline int64_t tsr_layernorm_i8_inverse(uint64_t ss, uint32_t d, uint32_t eps_q16)
{
    const uint64_t v = (uint64_t)tsr_layernorm_i8_mean(ss, d) + eps_q16; // the mean of d^2: below 2^32
    const uint32_t root = tsr_isqrt(v > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)v);
    return tsr_layernorm_i8_reciprocal(root ? root : 1u);
}

#endif
