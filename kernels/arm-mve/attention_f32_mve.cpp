// tsr_attention_scores_f32 and tsr_attention_accumulate_f32 in Helium's float lanes, the
// portable kernels' bits: each lane is one score (one position: its keys gathered a
// head element a step) or one output, and adds its products in the same order with
// tsr_mac's multiply-add; the scores' division by sqrt(head_size) lane by lane (Helium
// divides nothing).
#include <arm_mve.h>

#include "kernel_checks.h"
#include "mac_mve.h"
#include "tessera/kernels_arm_mve.h"

tsr_kernel_status tsr_attention_scores_f32_mve(const float *q, const float *keys, float *scores, uint32_t count,
                                               uint32_t head_size, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(q && keys && scores && count && head_size);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    const float scale = tsr_sqrtf((float)head_size);
    uint32_t begin, end;
    tsr_core_range(count, core_id, core_count, &begin, &end);
    const uint32x4_t lanes = {0u, 1u, 2u, 3u};
    const uint32x4_t rows = vmulq_n_u32(lanes, head_size); // four positions' offsets, in elements
    uint32_t t = begin;
    for (; t + 4u <= end; t += 4u) {
        const float *k = keys + (size_t)t * head_size;
        float32x4_t acc = vdupq_n_f32(0.0f);
        for (uint32_t i = 0; i < head_size; ++i) acc = tsr_mve_mac_n(acc, vldrwq_gather_shifted_offset_f32(k + i, rows), q[i]);
        float lane[4];
        vst1q_f32(lane, acc);
        for (uint32_t l = 0; l < 4u; ++l) scores[t + l] = lane[l] / scale;
    }
    for (; t < end; ++t) {
        const float *kt = keys + (size_t)t * head_size;
        float score = 0.0f;
        for (uint32_t i = 0; i < head_size; ++i) score = tsr_mac(score, q[i], kt[i]);
        scores[t] = score / scale;
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_attention_accumulate_f32_mve(const float *probs, const float *values, float *out, uint32_t count,
                                                   uint32_t head_size, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(probs && values && out && count && head_size);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(head_size, core_id, core_count, &begin, &end);
    uint32_t i0 = begin;
    for (; i0 + 8u <= end; i0 += 8u) { // eight outputs, two vectors
        float32x4_t lo = vld1q_f32(out + i0), hi = vld1q_f32(out + i0 + 4);
        const float *vt = values + i0;
        for (uint32_t t = 0; t < count; ++t, vt += head_size) {
            const float a = probs[t];
            lo = tsr_mve_mac_n(lo, vld1q_f32(vt), a), hi = tsr_mve_mac_n(hi, vld1q_f32(vt + 4), a);
        }
        vst1q_f32(out + i0, lo);
        vst1q_f32(out + i0 + 4, hi);
    }
    for (; i0 < end; i0 += 4u) { // the rest, four (or fewer) a vector
        const mve_pred16_t p = vctp32q(end - i0);
        float32x4_t o = vldrwq_z_f32(out + i0, p);
        const float *vt = values + i0;
        for (uint32_t t = 0; t < count; ++t, vt += head_size) o = tsr_mve_mac_n(o, vldrwq_z_f32(vt, p), probs[t]);
        vstrwq_p_f32(out + i0, o, p);
    }
    return TSR_KERNEL_OK;
}
