#include "kernel_checks.h"
#include "kernel_math.h"

tsr_kernel_status tsr_add_f32(const float *a, const float *b, float *y, uint32_t count,
                              uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(a && b && y && count);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(count, core_id, core_count, &begin, &end);
    for (uint32_t i = begin; i < end; ++i) y[i] = a[i] + b[i];
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_swiglu_f32(const float *gate, const float *up, float *y, uint32_t count,
                                 uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(gate && up && y && count);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(count, core_id, core_count, &begin, &end);
    for (uint32_t i = begin; i < end; ++i) {
        float v = gate[i];
        v *= 1.0f / (1.0f + tsr_expf(-v));
        y[i] = v * up[i];
    }
    return TSR_KERNEL_OK;
}
