#include "kernel_checks.h"
#include "attention_i8_checks.h"

// The reference's bits (integer sums are exact in any order), with the zero points
// folded out of the inner loops:
//   sum_d (q_d - qz)(k_d - kz) = sum_d q'_d k_d - kz sum_d q'_d,  q' = q - qz,
//   sum_t p_t (v_td - vz) = sum_t p_t v_td - vz sum_t p_t.
tsr_kernel_status tsr_attention_scores_i8(const tsr_attention_scores_i8_args *a, uint32_t core_id,
                                          uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_attention_scores_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->count, core_id, core_count, &begin, &end);
    const uint32_t hs = a->head_size;
    int32_t q_sum = 0;
    for (uint32_t d = 0; d < hs; ++d) q_sum += (int32_t)a->q[d] - a->q_zero;
    const int32_t offset = -a->k_zero * q_sum;
    const int8_t *key = a->keys + (size_t)begin * hs;
    for (uint32_t t = begin; t < end; ++t) {
        int32_t dot = offset;
        const int8_t *q = a->q;
        for (const int8_t *stop = key + hs; key != stop; ++key, ++q) dot += ((int32_t)*q - a->q_zero) * *key;
        a->scores[t] = tsr_requantize_to_i8(dot, a->multiplier, a->shift, 0, -128, 127);
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_attention_accumulate_i8(const tsr_attention_accumulate_i8_args *a, uint32_t core_id,
                                              uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_attention_accumulate_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->head_size, core_id, core_count, &begin, &end);
    int32_t p_sum = 0;
    for (uint32_t t = 0; t < a->count; ++t) p_sum += a->probs[t];
    const int32_t offset = -a->v_zero * p_sum;
    for (uint32_t d = begin; d < end; ++d) {
        int32_t sum = offset;
        const int8_t *v = a->values + d;
        const uint16_t *p = a->probs;
        for (const uint16_t *stop = p + a->count; p != stop; ++p, v += a->head_size) sum += (int32_t)*p * *v;
        a->acc[d] += sum;
    }
    return TSR_KERNEL_OK;
}
