#include <string.h>

#include "kernel_checks.h"
#include "kernel_math.h"

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
    const float scale = tsr_sqrtf((float)head_size);
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
            for (uint32_t i = 0; i < head_size; ++i) score = tsr_mac(score, qh[i], kt[i]);
            att[t] = score / scale;
        }
        tsr_softmax_f32(att, last + 1u);
        float *yh = y + (size_t)r * dim + (size_t)h * head_size;
        for (uint32_t i = 0; i < head_size; ++i) yh[i] = 0.0f;
        for (uint32_t t = 0; t <= last; ++t) {
            const float *vt = v_cache + (size_t)t * kv_dim + kv_off;
            const float a = att[t];
            for (uint32_t i = 0; i < head_size; ++i) yh[i] = tsr_mac(yh[i], a, vt[i]);
        }
    }
    return TSR_KERNEL_OK;
}

// The tiled pieces, with the same operations in the same order as the whole kernel
// above. Scores keep q in registers for the common head sizes; the weighted sum
// keeps eight outputs in registers across the positions.
namespace {

template <int HS> void scores_fixed(const float *q, const float *keys, float *scores, uint32_t begin, uint32_t end,
                                    float scale)
{
    float qv[HS];
    for (int i = 0; i < HS; ++i) qv[i] = q[i];
    const float *kt = keys + (size_t)begin * HS;
    for (uint32_t t = begin; t < end; ++t, kt += HS) {
        float s = 0.0f;
        for (int i = 0; i < HS; ++i) s = tsr_mac(s, qv[i], kt[i]);
        scores[t] = s / scale;
    }
}

} // namespace

tsr_kernel_status tsr_attention_scores_f32(const float *q, const float *keys, float *scores, uint32_t count,
                                           uint32_t head_size, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(q && keys && scores && count && head_size);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    const float scale = tsr_sqrtf((float)head_size);
    uint32_t begin, end;
    tsr_core_range(count, core_id, core_count, &begin, &end);
    switch (head_size) {
    case 4: scores_fixed<4>(q, keys, scores, begin, end, scale); return TSR_KERNEL_OK;
    case 8: scores_fixed<8>(q, keys, scores, begin, end, scale); return TSR_KERNEL_OK;
    case 16: scores_fixed<16>(q, keys, scores, begin, end, scale); return TSR_KERNEL_OK;
    default: break;
    }
    for (uint32_t t = begin; t < end; ++t) {
        const float *kt = keys + (size_t)t * head_size;
        float score = 0.0f;
        for (uint32_t i = 0; i < head_size; ++i) score = tsr_mac(score, q[i], kt[i]);
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
    uint32_t i0 = begin;
    for (; i0 + 8u <= end; i0 += 8u) { // eight outputs in registers (two vectors on the host)
        float o[8];
        for (uint32_t k = 0; k < 8u; ++k) o[k] = out[i0 + k];
        const float *vt = values + i0;
        for (uint32_t t = 0; t < count; ++t, vt += head_size) {
            const float a = probs[t];
            for (uint32_t k = 0; k < 8u; ++k) o[k] = tsr_mac(o[k], a, vt[k]);
        }
        for (uint32_t k = 0; k < 8u; ++k) out[i0 + k] = o[k];
    }
    for (uint32_t t = 0; t < count && i0 < end; ++t) {
        const float a = probs[t];
        const float *vt = values + (size_t)t * head_size;
        for (uint32_t i = i0; i < end; ++i) out[i] = tsr_mac(out[i], a, vt[i]);
    }
    return TSR_KERNEL_OK;
}

uint32_t tsr_attention_f32_scratch_bytes(uint32_t context) { return 4u * context; }
