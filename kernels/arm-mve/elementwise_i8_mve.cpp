// The int8 elementwise kernels with Helium, four lanes at a time, the portable kernels'
// bits (elementwise_i8.cpp, rope_add_i8.cpp):
//  - add: requantize(v, m, s) of an int8 v exactly in 32-bit lanes: with m = 256 mh + ml,
//    (v m) >> k = (v mh + ((v ml) >> 8)) >> (k - 8) for k = 30 - s >= 8 (the dropped
//    fraction never carries), and the final (t + 1) >> 1 folds into one rounding shift
//    right by k - 7 (VRSHL); shifts above 22 (a scale ratio of 2^22) go lane by lane;
//  - SwiGLU: the integer exponential (iexp_mve.h), then silu's division lane by lane
//    (UDIV: Helium divides nothing) and the requantization as one vector (VMULH, VRSHL);
//  - RMSNorm: the row's sum of squares eight 16-bit lanes a VMLADAVA, its root once (the
//    scalar form), then round(g u gain / root) from one reciprocal a row as the softmax
//    does (the high word of A r, corrected upwards twice), and the rounding shift.
#include <arm_mve.h>

#include "elementwise_i8_checks.h"
#include "iexp_mve.h"
#include "kernel_checks.h"
#include "requantize_fast.h"

namespace {

// requantize(v, m, s) for four int8 v (s <= 22), as above.
TSR_MVE_INLINE int32x4_t requantize_i8(int32x4_t v, int32_t m, int32_t s)
{
    const int32x4_t n = vaddq_s32(vmulq_n_s32(v, m >> 8), vshrq_n_s32(vmulq_n_s32(v, m & 0xFF), 8));
    return vrshlq_s32(n, vdupq_n_s32(s - 23));
}

TSR_MVE_INLINE int32x4_t clamp_i8(int32x4_t v) { return vmaxq_s32(vminq_s32(v, vdupq_n_s32(127)), vdupq_n_s32(-128)); }

} // namespace

tsr_kernel_status tsr_add_i8_mve(const tsr_add_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_add_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->count, core_id, core_count, &begin, &end);
    if (a->a_shift > 22 || a->b_shift > 22) { // the scalar form
        for (uint32_t i = begin; i < end; ++i) {
            const int32_t v = tsr_requantize(a->a[i], a->a_multiplier, a->a_shift) +
                              tsr_requantize(a->b[i], a->b_multiplier, a->b_shift);
            a->y[i] = tsr_clamp_i8(v);
        }
        return TSR_KERNEL_OK;
    }
    for (uint32_t i = begin; i < end; i += 4u) {
        const mve_pred16_t p = vctp32q(end - i);
        const int32x4_t sum = vaddq_s32(requantize_i8(vldrbq_z_s32(a->a + i, p), a->a_multiplier, a->a_shift),
                                        requantize_i8(vldrbq_z_s32(a->b + i, p), a->b_multiplier, a->b_shift));
        vstrbq_p_s32(a->y + i, clamp_i8(sum), p);
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_swiglu_i8_mve(const tsr_swiglu_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_swiglu_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->count, core_id, core_count, &begin, &end);
    const tsr_iexp_constants k = a->constants;
    const int32_t e0 = (int32_t)tsr_iexp(0, k); // e^0: at most 2^18
    const float inv_ln2 = 1.0f / (float)k.ln2;
    const int32_t m = a->multiplier, s = a->shift;
    for (uint32_t i = begin; i < end; i += 4u) {
        const mve_pred16_t p = vctp32q(end - i);
        // tsr_silu16_i8: p / q of e0 and e = e^-|g|, both quartered; round(16 g p / q)
        const int32x4_t g = vsubq_n_s32(vldrbq_z_s32(a->gate + i, p), a->gate_zero);
        const int32x4_t e = vreinterpretq_s32_u32(tsr_mve_iexp(vshlq_s32(vabsq_s32(g), vdupq_n_s32(k.shift)), inv_ln2, k));
        const int32x4_t neg = tsr_mve_negative(g);
        const int32x4_t num = vshrq_n_s32(vorrq_s32(vandq_s32(neg, e), vbicq_s32(vdupq_n_s32(e0), neg)), 2);
        const int32x4_t den = vshrq_n_s32(vaddq_n_s32(e, e0), 2);
        const int32x4_t n = vmulq_s32(vshlq_n_s32(g, 4), num); // |n| <= 4080 x 2^16
        int32_t abs_n[4], d[4], silu[4];
        vst1q_s32(abs_n, vaddq_s32(vabsq_s32(n), vshrq_n_s32(den, 1)));
        vst1q_s32(d, den);
        for (uint32_t l = 0; l < 4u; ++l) silu[l] = (int32_t)((uint32_t)abs_n[l] / (uint32_t)d[l]);
        const int32x4_t sign = tsr_mve_negative(n);
        const int32x4_t silu16 = vsubq_s32(veorq_s32(vld1q_s32(silu), sign), sign);
        const int32x4_t prod = vmulq_s32(silu16, vsubq_n_s32(vldrbq_z_s32(a->up + i, p), a->up_zero));
        if (s <= -2) {
            const int32x4_t r = vrshlq_s32(vmulhq_s32(prod, vdupq_n_s32(m)), vdupq_n_s32(s + 1));
            vstrbq_p_s32(a->y + i, clamp_i8(vaddq_n_s32(r, a->y_zero)), p);
        } else {
            int32_t lane[4];
            vst1q_s32(lane, prod);
            for (uint32_t l = 0; l < 4u && i + l < end; ++l)
                a->y[i + l] = tsr_requantize_to_i8_fast(lane[l], m, s, a->y_zero, -128, 127);
        }
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_rmsnorm_i8_mve(const tsr_rmsnorm_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_rmsnorm_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->rows, core_id, core_count, &begin, &end);
    const uint32_t dim = a->dim;
    for (uint32_t row = begin; row < end; ++row) {
        const int8_t *x = a->x + (size_t)row * dim;
        int8_t *y = a->y + (size_t)row * dim;
        int32_t sum = 0; // <= 16384 x 255^2 < 2^31
        for (uint32_t i = 0; i < dim; i += 8u) {
            const mve_pred16_t p = vctp16q(dim - i);
            const int16x8_t u = vsubq_n_s16(vldrbq_z_s16(x + i, p), (int16_t)a->x_zero);
            sum = vmladavaq_p_s16(sum, u, u, p);
        }
        const uint32_t root = tsr_rmsnorm_i8_root((uint32_t)sum, dim, a->eps_q8);
        const uint32_t reciprocal = 0xFFFFFFFFu / root;
        for (uint32_t i = 0; i < dim; i += 4u) {
            const mve_pred16_t p = vctp32q(dim - i);
            const int32x4_t u = vsubq_n_s32(vldrbq_z_s32(x + i, p), a->x_zero);
            const int32x4_t n = vmulq_n_s32(vmulq_s32(vldrbq_z_s32(a->weight + i, p), u), a->gain); // |n| < 2^30
            const int32x4_t sign = tsr_mve_negative(n);
            const int32x4_t q = tsr_mve_floor_div(vaddq_n_s32(vabsq_s32(n), (int32_t)(root / 2u)), reciprocal, (int32_t)root);
            const int32x4_t rounded = vsubq_s32(veorq_s32(q, sign), sign); // tsr_round_div: halves away from zero
            const int32x4_t v = vaddq_n_s32(vrshlq_s32(rounded, vdupq_n_s32(-a->gain_shift)), a->y_zero);
            vstrbq_p_s32(y + i, clamp_i8(v), p);
        }
    }
    return TSR_KERNEL_OK;
}
