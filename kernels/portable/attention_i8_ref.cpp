#include "kernel_checks.h"
#include "attention_i8_checks.h"
#include "requantize_fast.h"

// The definitions: one score, one accumulator at a time, in index order.
tsr_kernel_status tsr_attention_scores_i8_ref(const tsr_attention_scores_i8_args *a, uint32_t core_id,
                                              uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_attention_scores_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->count, core_id, core_count, &begin, &end);
    const uint32_t stride = a->kv_stride ? a->kv_stride : a->head_size;
    for (uint32_t t = begin; t < end; ++t) {
        const int8_t *key = a->keys + (size_t)t * stride;
        int32_t dot = 0; // |dot| <= 1024 * 255 * 255 < 2^27
        for (uint32_t d = 0; d < a->head_size; ++d) dot += ((int32_t)a->q[d] - a->q_zero) * ((int32_t)key[d] - a->k_zero);
        a->scores[t] = tsr_requantize_to_i8(dot, a->multiplier, a->shift, 0, -128, 127);
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_attention_accumulate_i8_ref(const tsr_attention_accumulate_i8_args *a, uint32_t core_id,
                                                  uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_attention_accumulate_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->head_size, core_id, core_count, &begin, &end);
    const uint32_t stride = a->kv_stride ? a->kv_stride : a->head_size;
    for (uint32_t d = begin; d < end; ++d) {
        int32_t sum = a->acc[d]; // a row: |sum| <= 1024 * 4096 * 255 < 2^31
        for (uint32_t t = 0; t < a->count; ++t)
            sum += (int32_t)a->probs[t] * ((int32_t)a->values[(size_t)t * stride + d] - a->v_zero);
        a->acc[d] = sum;
    }
    return TSR_KERNEL_OK;
}

void tsr_attention_output_i8(const int32_t *acc, int8_t *out, uint32_t head_size, int32_t multiplier, int32_t shift,
                             int32_t o_zero)
{
    // tsr_requantize_to_i8's bits, in 32-bit operations where the shift allows (every
    // token requantizes each head's outputs: 40 calls a token for stories260K).
    for (uint32_t d = 0; d < head_size; ++d)
        out[d] = tsr_requantize_to_i8_fast(acc[d], multiplier, shift, o_zero, -128, 127);
}

namespace {
uint32_t up4(uint32_t v) { return (v + 3u) & ~3u; }
} // namespace

tsr_attention_i8_layout tsr_attention_i8_scratch_layout(uint32_t context, uint32_t head_size)
{
    tsr_attention_i8_layout x = {};
    x.probs = up4(context);                 // int8 scores
    x.exps = x.probs + up4(2u * context);   // uint16 probabilities
    tsr_softmax_i8_args softmax = {};
    softmax.n = context;
    x.acc = x.exps + up4(tsr_softmax_i8_scratch_bytes(&softmax)); // the softmax kernel's own
    x.bytes = x.acc + 4u * head_size;       // int32 accumulators
    return x;
}

uint32_t tsr_attention_i8_scratch_bytes(uint32_t context, uint32_t head_size)
{
    return tsr_attention_i8_scratch_layout(context, head_size).bytes;
}
