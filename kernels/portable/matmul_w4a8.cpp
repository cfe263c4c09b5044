#include "kernel_checks.h"
#include "matmul_w4a8_checks.h"
#include "matmul_w4a8_dot.h"
#include "requantize_fast.h"

// Integer sums are exact in any order (the ranges keep them below 2^31), so this gives
// the reference's bits while doing less per weight:
//   sum_g gs_g sum_{j in g} (x_j - x_zero) w_j = sum_g gs_g sum_{j in g} x_j w_j - x_zero sum_g gs_g sum_{j in g} w_j,
// the second sum once per output channel; a byte's two weights unpacked together.
tsr_kernel_status tsr_matmul_w4a8(const tsr_matmul_w4a8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_w4a8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    const uint32_t k = a->k, stride = tsr_w4_row_bytes(k);
    for (uint32_t i = begin; i < end; ++i) {
        const uint8_t *wi = a->w + (size_t)i * stride;
        const int32_t offset = a->x_zero ? -a->x_zero * tsr_w4_weight_sum(wi, k) : 0; // the same for every row
        for (uint32_t r = 0; r < a->rows; ++r) {
            const int32_t acc = offset + tsr_w4_row_dot(a->x + (size_t)r * k, wi, k);
            a->y[(size_t)r * a->ldy + i] =
                tsr_requantize_to_i8_fast(acc, a->multiplier[i], a->shift[i], a->y_zero, -128, 127);
        }
    }
    return TSR_KERNEL_OK;
}
