#include "kernel_checks.h"
#include "kernel_math.h"

namespace {

// GELU's form `Gelu` over count elements, split over the cores.
template <float (*Gelu)(float)>
tsr_kernel_status gelu_f32(const float *x, float *y, uint32_t count, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(x && y && count);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(count, core_id, core_count, &begin, &end);
    for (uint32_t i = begin; i < end; ++i) y[i] = Gelu(x[i]);
    return TSR_KERNEL_OK;
}

} // namespace

tsr_kernel_status tsr_gelu_tanh_f32(const float *x, float *y, uint32_t count, uint32_t core_id, uint32_t core_count)
{
    return gelu_f32<tsr_gelu_tanh>(x, y, count, core_id, core_count);
}

tsr_kernel_status tsr_gelu_erf_f32(const float *x, float *y, uint32_t count, uint32_t core_id, uint32_t core_count)
{
    return gelu_f32<tsr_gelu_erf>(x, y, count, core_id, core_count);
}
