#include "kernel_checks.h"
#include "kernel_math.h"
#include "split_loops.h"
#include "tessera/kernels_bf16.h"

// As tsr_layernorm_f32 (split_loops.h's RMSNorm split), on bf16 values widened to fp32.
tsr_kernel_status tsr_layernorm_bf16(const tsr_bf16 *x, const tsr_bf16 *weight, const tsr_bf16 *bias, tsr_bf16 *y,
                                     uint32_t rows, uint32_t dim, float eps, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(x && weight && bias && y && rows && dim && eps > 0.0f);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t r0, r1, c0, c1;
    tsr_rmsnorm_split(rows, dim, core_id, core_count, &r0, &r1, &c0, &c1);
    for (uint32_t r = r0; r < r1; ++r) {
        const tsr_bf16 *xr = x + (size_t)r * dim;
        tsr_bf16 *yr = y + (size_t)r * dim;
        float sum = 0.0f;
        for (uint32_t j = 0; j < dim; ++j) sum += tsr_f32_from_bf16(xr[j]);
        const float mean = sum / (float)dim;
        float ss = 0.0f;
        for (uint32_t j = 0; j < dim; ++j) {
            const float d = tsr_f32_from_bf16(xr[j]) - mean;
            ss = tsr_mac(ss, d, d);
        }
        const float inv = 1.0f / tsr_sqrtf(ss / (float)dim + eps);
        for (uint32_t j = c0; j < c1; ++j)
            yr[j] = tsr_bf16_from_f32(tsr_mac(tsr_f32_from_bf16(bias[j]), tsr_f32_from_bf16(weight[j]),
                                              (tsr_f32_from_bf16(xr[j]) - mean) * inv));
    }
    return TSR_KERNEL_OK;
}

namespace {

// GELU's form `Gelu` of bf16 values, in fp32, rounded once; split over the cores.
template <float (*Gelu)(float)>
tsr_kernel_status gelu_bf16(const tsr_bf16 *x, tsr_bf16 *y, uint32_t count, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(x && y && count);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(count, core_id, core_count, &begin, &end);
    for (uint32_t i = begin; i < end; ++i) y[i] = tsr_bf16_from_f32(Gelu(tsr_f32_from_bf16(x[i])));
    return TSR_KERNEL_OK;
}

} // namespace

tsr_kernel_status tsr_gelu_tanh_bf16(const tsr_bf16 *x, tsr_bf16 *y, uint32_t count, uint32_t core_id, uint32_t core_count)
{
    return gelu_bf16<tsr_gelu_tanh>(x, y, count, core_id, core_count);
}

tsr_kernel_status tsr_gelu_erf_bf16(const tsr_bf16 *x, tsr_bf16 *y, uint32_t count, uint32_t core_id, uint32_t core_count)
{
    return gelu_bf16<tsr_gelu_erf>(x, y, count, core_id, core_count);
}
