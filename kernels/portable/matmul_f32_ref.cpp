#include "kernel_checks.h"
#include "kernel_math.h"

// The definition: one output at a time, summed in index order.
tsr_kernel_status tsr_matmul_f32_ref(const float *x, const float *w, float *y, uint32_t rows,
                                     uint32_t k, uint32_t n, uint32_t ldy, uint32_t core_id,
                                     uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(x && w && y && rows && k && n && ldy >= n);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(n, core_id, core_count, &begin, &end);
    for (uint32_t r = 0; r < rows; ++r) {
        const float *xr = x + (size_t)r * k;
        for (uint32_t i = begin; i < end; ++i) {
            const float *wi = w + (size_t)i * k;
            float sum = 0.0f;
            for (uint32_t j = 0; j < k; ++j) sum = tsr_mac(sum, wi[j], xr[j]);
            y[(size_t)r * ldy + i] = sum;
        }
    }
    return TSR_KERNEL_OK;
}
