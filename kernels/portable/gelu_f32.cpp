#include "kernel_checks.h"
#include "kernel_math.h"

// tanh(u) = 1 - 2 / (e^(2u) + 1): e^(2u) overflowing to +inf gives 1, underflowing to 0
// gives -1, so no range needs a branch.
tsr_kernel_status tsr_gelu_tanh_f32(const float *x, float *y, uint32_t count, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(x && y && count);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(count, core_id, core_count, &begin, &end);
    const float k = 0.7978845608028654f; // sqrt(2 / pi)
    for (uint32_t i = begin; i < end; ++i) {
        const float v = x[i];
        const float u = k * tsr_mac(v, 0.044715f * v, v * v);
        const float t = 1.0f - 2.0f / (tsr_expf(2.0f * u) + 1.0f);
        y[i] = 0.5f * v * (1.0f + t);
    }
    return TSR_KERNEL_OK;
}
