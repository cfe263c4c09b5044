#include <math.h>
#include <string.h>

#include "kernel_checks.h"

// One (row, head) pair per work item, computed whole by one core: scores, softmax
// and the weighted sum of values, in the order llama2.c uses.
tsr_kernel_status tsr_attention_f32_ref(const float *q, const float *k_cache, const float *v_cache,
                                    float *scratch, float *y, uint32_t rows, uint32_t pos,
                                    uint32_t n_heads, uint32_t n_kv_heads, uint32_t head_size,
                                    uint32_t context, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(q && k_cache && v_cache && scratch && y && rows && head_size);
    TSR_KERNEL_REQUIRE(n_kv_heads && n_heads % n_kv_heads == 0u && pos + rows <= context);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    const uint32_t dim = n_heads * head_size;
    const uint32_t kv_dim = n_kv_heads * head_size;
    const uint32_t group = n_heads / n_kv_heads;
    const float scale = sqrtf((float)head_size);
    float *att = scratch + (size_t)core_id * context;
    uint32_t begin, end;
    tsr_core_range(rows * n_heads, core_id, core_count, &begin, &end);
    for (uint32_t item = begin; item < end; ++item) {
        const uint32_t r = item / n_heads, h = item % n_heads;
        const uint32_t last = pos + r; // causal: attend to 0..last
        const float *qh = q + (size_t)r * dim + (size_t)h * head_size;
        const size_t kv_off = (size_t)(h / group) * head_size;
        for (uint32_t t = 0; t <= last; ++t) {
            const float *kt = k_cache + (size_t)t * kv_dim + kv_off;
            float score = 0.0f;
            for (uint32_t i = 0; i < head_size; ++i) score += qh[i] * kt[i];
            att[t] = score / scale;
        }
        tsr_softmax_f32(att, last + 1u);
        float *yh = y + (size_t)r * dim + (size_t)h * head_size;
        memset(yh, 0, head_size * sizeof(float));
        for (uint32_t t = 0; t <= last; ++t) {
            const float *vt = v_cache + (size_t)t * kv_dim + kv_off;
            const float a = att[t];
            for (uint32_t i = 0; i < head_size; ++i) yh[i] += a * vt[i];
        }
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_attention_scores_f32(const float *q, const float *keys, float *scores, uint32_t count,
                                           uint32_t head_size, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(q && keys && scores && count && head_size);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    const float scale = sqrtf((float)head_size);
    uint32_t begin, end;
    tsr_core_range(count, core_id, core_count, &begin, &end);
    for (uint32_t t = begin; t < end; ++t) {
        const float *kt = keys + (size_t)t * head_size;
        float score = 0.0f;
        for (uint32_t i = 0; i < head_size; ++i) score += q[i] * kt[i];
        scores[t] = score / scale;
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_attention_accumulate_f32(const float *probs, const float *values, float *out,
                                               uint32_t count, uint32_t head_size, uint32_t core_id,
                                               uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(probs && values && out && count && head_size);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(head_size, core_id, core_count, &begin, &end);
    for (uint32_t t = 0; t < count; ++t) {
        const float a = probs[t];
        const float *vt = values + (size_t)t * head_size;
        for (uint32_t i = begin; i < end; ++i) out[i] += a * vt[i];
    }
    return TSR_KERNEL_OK;
}
