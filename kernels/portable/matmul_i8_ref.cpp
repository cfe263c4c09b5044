#include "kernel_checks.h"
#include "matmul_i8_checks.h"

// The definition: one output at a time, (x - x_zero) * w summed in index order.
tsr_kernel_status tsr_matmul_i8_ref(const tsr_matmul_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    for (uint32_t r = 0; r < a->rows; ++r) {
        const int8_t *xr = a->x + (size_t)r * a->k;
        for (uint32_t i = begin; i < end; ++i) {
            const int8_t *wi = a->w + (size_t)i * a->k;
            int32_t acc = a->bias ? a->bias[i] : 0;
            for (uint32_t j = 0; j < a->k; ++j) acc += ((int32_t)xr[j] - a->x_zero) * (int32_t)wi[j];
            a->y[(size_t)r * a->ldy + i] =
                tsr_requantize_to_i8(acc, a->multiplier[i], a->shift[i], a->y_zero, a->y_min, a->y_max);
        }
    }
    return TSR_KERNEL_OK;
}

uint32_t tsr_matmul_i8_scratch_bytes(const tsr_matmul_i8_args *) { return 0; }
