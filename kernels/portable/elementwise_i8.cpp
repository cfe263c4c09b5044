#include "elementwise_i8_checks.h"
#include "kernel_checks.h"
#include "requantize_fast.h"

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
        const uint32_t root = tsr_rmsnorm_i8_root(sum, a->dim, a->eps_q8);
        for (uint32_t i = 0; i < a->dim; ++i) y[i] = tsr_rmsnorm_i8_one(x[i] - a->x_zero, a->weight[i], root, a);
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
        const int32_t silu16 = a->silu16 ? a->silu16[a->gate[i] + 128] : tsr_silu16_i8(a->gate[i] - a->gate_zero, e0, k);
        a->y[i] = tsr_requantize_to_i8_fast(silu16 * (a->up[i] - a->up_zero), a->multiplier, a->shift, a->y_zero, -128, 127);
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_swiglu_i8_silu_table(const tsr_iexp_constants *k, int32_t gate_zero, int16_t *table)
{
    if (!k || !table || !tsr_iexp_constants_ok(*k) || !tsr_zero_point_ok(gate_zero)) return TSR_KERNEL_BAD_ARGUMENT;
    const int32_t e0 = (int32_t)tsr_iexp(0, *k);
    for (int32_t v = -128; v < 128; ++v) table[v + 128] = (int16_t)tsr_silu16_i8(v - gate_zero, e0, *k); // |16 g| <= 4080
    return TSR_KERNEL_OK;
}
