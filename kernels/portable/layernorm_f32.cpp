#include "kernel_checks.h"
#include "kernel_math.h"
#include "split_loops.h"

// Split as tsr_rmsnorm_split says (split_loops.h): rows over the cores, or with fewer rows
// than cores, every core its row's statistics and a slice of its columns.
tsr_kernel_status tsr_layernorm_f32(const float *x, const float *weight, const float *bias, float *y, uint32_t rows,
                                    uint32_t dim, float eps, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(x && weight && bias && y && rows && dim && eps > 0.0f);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t r0, r1, c0, c1;
    tsr_rmsnorm_split(rows, dim, core_id, core_count, &r0, &r1, &c0, &c1);
    for (uint32_t r = r0; r < r1; ++r) {
        const float *xr = x + (size_t)r * dim;
        float *yr = y + (size_t)r * dim;
        // The mean, then the mean of squared deviations (the biased variance, as torch's).
        float sum = 0.0f;
        for (uint32_t j = 0; j < dim; ++j) sum += xr[j];
        const float mean = sum / (float)dim;
        float ss = 0.0f;
        for (uint32_t j = 0; j < dim; ++j) {
            const float d = xr[j] - mean;
            ss = tsr_mac(ss, d, d);
        }
        const float inv = 1.0f / tsr_sqrtf(ss / (float)dim + eps);
        for (uint32_t j = c0; j < c1; ++j) yr[j] = tsr_mac(bias[j], weight[j], (xr[j] - mean) * inv);
    }
    return TSR_KERNEL_OK;
}
