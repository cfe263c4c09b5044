// Non-linearities of int8 tensors computed in single precision (boards with an FPU).

#include "kernel_checks.h"
#include "kernel_math.h"
#include "tessera/kernels_i8_float.h"

namespace {

// round half away from zero, saturated to [-127, 127].
int8_t requantize(float v)
{
    if (!(v > -127.0f)) return -127; // NaN too: never expected, never undefined
    if (v > 127.0f) return 127;
    return (int8_t)(int32_t)(v >= 0.0f ? v + 0.5f : v - 0.5f);
}

} // namespace

tsr_kernel_status tsr_rmsnorm_i8_float(const int8_t *x, const int8_t *weight, int8_t *y, uint32_t rows, uint32_t dim,
                                       float eps, float out_scale, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(x && weight && y && rows && dim && eps > 0.0f && out_scale > 0.0f);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(rows, core_id, core_count, &begin, &end);
    for (uint32_t r = begin; r < end; ++r) {
        const int8_t *xr = x + (size_t)r * dim;
        int8_t *yr = y + (size_t)r * dim;
        int32_t sum = 0; // dim * 128^2 < 2^31 for dim < 2^17
        for (uint32_t i = 0; i < dim; ++i) sum += (int32_t)xr[i] * xr[i];
        const float norm = out_scale / tsr_sqrtf((float)sum / (float)dim + eps);
        for (uint32_t i = 0; i < dim; ++i) yr[i] = requantize((float)((int32_t)weight[i] * xr[i]) * norm);
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_swiglu_i8_float(const int8_t *gate, const int8_t *up, int8_t *y, uint32_t count,
                                      float gate_scale, float out_scale, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(gate && up && y && count && gate_scale > 0.0f && out_scale > 0.0f);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(count, core_id, core_count, &begin, &end);
    for (uint32_t i = begin; i < end; ++i) {
        const float g = (float)gate[i];
        const float sigmoid = 1.0f / (1.0f + tsr_expf(-g * gate_scale));
        y[i] = requantize(g * sigmoid * (float)up[i] * out_scale);
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_attention_scores_i8_float(const int8_t *q, const int8_t *keys, float *scores, uint32_t count,
                                                uint32_t head_size, float score_scale)
{
    TSR_KERNEL_REQUIRE(q && keys && scores && count && head_size);
    for (uint32_t t = 0; t < count; ++t) {
        int32_t dot = 0;
        const int8_t *key = keys + (size_t)t * head_size;
        for (uint32_t d = 0; d < head_size; ++d) dot += (int32_t)q[d] * key[d];
        scores[t] = (float)dot * score_scale;
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_attention_accumulate_i8_float(const float *probs, const int8_t *values, float *acc,
                                                    uint32_t count, uint32_t head_size)
{
    TSR_KERNEL_REQUIRE(probs && values && acc && count && head_size);
    for (uint32_t t = 0; t < count; ++t) {
        const float p = probs[t];
        const int8_t *v = values + (size_t)t * head_size;
        for (uint32_t d = 0; d < head_size; ++d) acc[d] += p * (float)v[d];
    }
    return TSR_KERNEL_OK;
}

void tsr_attention_output_i8_float(const float *acc, int8_t *out, uint32_t head_size, float out_scale)
{
    for (uint32_t d = 0; d < head_size; ++d) out[d] = requantize(acc[d] * out_scale);
}

uint32_t tsr_attention_i8_float_scratch_bytes(uint32_t context, uint32_t head_size)
{
    return 4u * context + 4u * head_size;
}
