#include "kernel_checks.h"
#include "kernel_math.h"
#include "tessera/kernels_bf16.h"

// The definition: one output at a time, fp32 sum in index order, rounded once.
tsr_kernel_status tsr_matmul_bf16_ref(const tsr_matmul_bf16_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(a && a->x && a->w && (a->y || a->y_f32) && a->rows && a->k && a->n && a->ldy >= a->n);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    for (uint32_t r = 0; r < a->rows; ++r) {
        const tsr_bf16 *xr = a->x + (size_t)r * a->k;
        for (uint32_t i = begin; i < end; ++i) {
            const tsr_bf16 *wi = a->w + (size_t)i * a->k;
            float sum = 0.0f;
            for (uint32_t j = 0; j < a->k; ++j) sum = tsr_mac(sum, tsr_f32_from_bf16(wi[j]), tsr_f32_from_bf16(xr[j]));
            if (a->bias) sum += a->bias[i];
            if (a->y) a->y[(size_t)r * a->ldy + i] = tsr_bf16_from_f32(sum);
            else a->y_f32[(size_t)r * a->ldy + i] = sum;
        }
    }
    return TSR_KERNEL_OK;
}

uint32_t tsr_matmul_bf16_scratch_bytes(const tsr_matmul_bf16_args *) { return 0; }

tsr_kernel_status tsr_matmul_f32_w16_ref(const float *x, const tsr_bf16 *w, float *y, uint32_t rows, uint32_t k,
                                         uint32_t n, uint32_t ldy, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(x && w && y && rows && k && n && ldy >= n);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(n, core_id, core_count, &begin, &end);
    for (uint32_t r = 0; r < rows; ++r) {
        const float *xr = x + (size_t)r * k;
        for (uint32_t i = begin; i < end; ++i) {
            const tsr_bf16 *wi = w + (size_t)i * k;
            float sum = 0.0f;
            for (uint32_t j = 0; j < k; ++j) sum = tsr_mac(sum, tsr_f32_from_bf16(wi[j]), xr[j]);
            y[(size_t)r * ldy + i] = sum;
        }
    }
    return TSR_KERNEL_OK;
}
