#include <math.h>

#include "kernel_checks.h"

tsr_kernel_status tsr_rmsnorm_f32(const float *x, const float *weight, float *y, uint32_t rows,
                                  uint32_t dim, float eps, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(x && weight && y && rows && dim && eps > 0.0f);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(rows, core_id, core_count, &begin, &end);
    for (uint32_t r = begin; r < end; ++r) {
        const float *xr = x + (size_t)r * dim;
        float *yr = y + (size_t)r * dim;
        // Same operation order as llama2.c: mean of squares, + eps, reciprocal sqrt.
        float ss = 0.0f;
        for (uint32_t j = 0; j < dim; ++j) ss += xr[j] * xr[j];
        ss /= (float)dim;
        ss += eps;
        ss = 1.0f / sqrtf(ss);
        for (uint32_t j = 0; j < dim; ++j) yr[j] = weight[j] * (ss * xr[j]);
    }
    return TSR_KERNEL_OK;
}
