#include "kernel_checks.h"
#include "matmul_w4a8_checks.h"

// The definition: one output at a time, each group's (x - x_zero) * w summed in index
// order, then scaled by the group's scale.
tsr_kernel_status tsr_matmul_w4a8_ref(const tsr_matmul_w4a8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_w4a8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    const uint32_t k = a->k, groups = (k + 31u) / 32u, stride = tsr_w4_row_bytes(k);
    for (uint32_t r = 0; r < a->rows; ++r) {
        const int8_t *xr = a->x + (size_t)r * k;
        for (uint32_t i = begin; i < end; ++i) {
            const uint8_t *wi = a->w + (size_t)i * stride, *gs = wi + (k + 1u) / 2u;
            int32_t acc = 0;
            for (uint32_t g = 0; g < groups; ++g) {
                int32_t dot = 0;
                for (uint32_t j = 32u * g; j < k && j < 32u * g + 32u; ++j)
                    dot += ((int32_t)xr[j] - a->x_zero) * tsr_w4_at(wi, j);
                acc += (int32_t)gs[g] * dot;
            }
            a->y[(size_t)r * a->ldy + i] = tsr_requantize_to_i8(acc, a->multiplier[i], a->shift[i], a->y_zero, -128, 127);
        }
    }
    return TSR_KERNEL_OK;
}
