#include "kernel_checks.h"
#include "kernel_math.h"
#include "tessera/kernels_bf16.h"

// The definition: one output at a time, fp32 sum in index order, rounded once.
tsr_kernel_status tsr_matmul_bf16_ref(const tsr_matmul_bf16_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(a && a->x && a->w && a->y && a->rows && a->k && a->n && a->ldy >= a->n);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    for (uint32_t r = 0; r < a->rows; ++r) {
        const tsr_bf16 *xr = a->x + (size_t)r * a->k;
        for (uint32_t i = begin; i < end; ++i) {
            const tsr_bf16 *wi = a->w + (size_t)i * a->k;
            float sum = 0.0f;
            for (uint32_t j = 0; j < a->k; ++j) sum = tsr_mac(sum, tsr_f32_from_bf16(wi[j]), tsr_f32_from_bf16(xr[j]));
            a->y[(size_t)r * a->ldy + i] = tsr_bf16_from_f32(sum);
        }
    }
    return TSR_KERNEL_OK;
}

uint32_t tsr_matmul_bf16_scratch_bytes(const tsr_matmul_bf16_args *) { return 0; }
