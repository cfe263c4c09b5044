#include "elementwise_i8_checks.h"
#include "kernel_checks.h"
#include "requantize_fast.h"
#include "softmax_i8_checks.h"


tsr_kernel_status tsr_rmsnorm_i8(const tsr_rmsnorm_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_rmsnorm_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->rows, core_id, core_count, &begin, &end);
    for (uint32_t r = begin; r < end; ++r) {
        const int8_t *x = a->x + (size_t)r * a->dim;
        int8_t *y = a->y + (size_t)r * a->dim;
        uint32_t sum = 0; // <= 16384 * 255^2 < 2^31
        for (uint32_t i = 0; i < a->dim; ++i) {
            const int32_t u = x[i] - a->x_zero;
            sum += (uint32_t)(u * u);
        }
        // 256 sum / dim in 32 bits: (sum / dim) * 256 + (sum % dim) * 256 / dim.
        const uint32_t mean_q8 = (sum / a->dim) * 256u + (sum % a->dim) * 256u / a->dim; // < 2^24
        uint32_t root = tsr_isqrt(mean_q8 + a->eps_q8);                                       // 1/16ths
        if (root == 0u) root = 1u;
        for (uint32_t i = 0; i < a->dim; ++i) {
            const int32_t u = x[i] - a->x_zero;
            const int32_t n = a->weight[i] * u; // |n| <= 128 * 255: times gain < 2^30
            y[i] = tsr_clamp_i8(a->y_zero + tsr_rounding_shift(tsr_round_div(n * a->gain, (int32_t)root), a->gain_shift));
        }
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_swiglu_i8(const tsr_swiglu_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_swiglu_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->count, core_id, core_count, &begin, &end);
    const tsr_iexp_constants &k = a->constants;
    const int32_t e0 = (int32_t)tsr_iexp(0, k); // e^0: at most 2^18
    for (uint32_t i = begin; i < end; ++i) {
        const int32_t g = a->gate[i] - a->gate_zero; // |g| <= 255
        const int32_t e = (int32_t)tsr_iexp(-(g < 0 ? -g : g) * (1 << k.shift), k); // e^-|g|, <= e0
        // g sigmoid(g) in 1/16ths of the gate's scale: 16 g e0 / (e0 + e), or 16 g e / (e0 + e).
        // |16 g| e0 could reach 4080 * 2^18 > 2^31: e0 and e are divided by 4 first
        // (e0 / 4 is still above 11,000).
        const int32_t p = (g >= 0 ? e0 : e) >> 2, q = (e0 + e) >> 2;
        const int32_t silu16 = tsr_round_div(16 * g * p, q);
        const int32_t up = a->up[i] - a->up_zero;
        a->y[i] = tsr_requantize_to_i8_fast(silu16 * up, a->multiplier, a->shift, a->y_zero, -128, 127);
    }
    return TSR_KERNEL_OK;
}
