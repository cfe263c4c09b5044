#include "kernel_checks.h"
#include "kernel_math.h"
#include "split_loops.h"

// Split as tsr_rmsnorm_split says (split_loops.h).
tsr_kernel_status tsr_rmsnorm_f32(const float *x, const float *weight, float *y, uint32_t rows,
                                  uint32_t dim, float eps, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(x && weight && y && rows && dim && eps > 0.0f);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t r0, r1, c0, c1;
    tsr_rmsnorm_split(rows, dim, core_id, core_count, &r0, &r1, &c0, &c1);
    for (uint32_t r = r0; r < r1; ++r) {
        const float *xr = x + (size_t)r * dim;
        float *yr = y + (size_t)r * dim;
        // Same operation order as llama2.c: mean of squares, + eps, reciprocal sqrt.
        float ss = 0.0f;
        for (uint32_t j = 0; j < dim; ++j) ss = tsr_mac(ss, xr[j], xr[j]);
        ss /= (float)dim;
        ss += eps;
        ss = 1.0f / tsr_sqrtf(ss);
        for (uint32_t j = c0; j < c1; ++j) yr[j] = weight[j] * (ss * xr[j]);
    }
    return TSR_KERNEL_OK;
}
