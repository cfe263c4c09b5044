#include "kernel_checks.h"
#include "attention_i8_checks.h"
#include "requantize_fast.h"

// The reference's bits (integer sums are exact in any order), with the zero points
// folded out of the inner loops:
//   sum_d (q_d - qz)(k_d - kz) = sum_d q'_d k_d - kz sum_d q'_d,  q' = q - qz,
//   sum_t p_t (v_td - vz) = sum_t p_t v_td - vz sum_t p_t.
// Head sizes up to 16 (stories260K's 8, TinyLLama-v0's 4) have loops unrolled over
// the head, with q' or the accumulators in registers.

namespace {

constexpr uint32_t kUnrolledHead = 16;

template <uint32_t H>
void scores_unrolled(const tsr_attention_scores_i8_args *a, uint32_t begin, uint32_t end, int32_t offset)
{
    int32_t q[H];
#pragma GCC unroll 16
    for (uint32_t d = 0; d < H; ++d) q[d] = (int32_t)a->q[d] - a->q_zero;
    const int8_t *key = a->keys + (size_t)begin * H;
    for (int8_t *out = a->scores + begin, *stop = a->scores + end; out != stop; ++out, key += H) {
        int32_t dot = offset;
#pragma GCC unroll 16
        for (uint32_t d = 0; d < H; ++d) dot += q[d] * key[d];
        *out = tsr_requantize_to_i8_fast(dot, a->multiplier, a->shift, 0, -128, 127);
    }
}

// Any head size, keys `stride` bytes apart (head_size: one after the other).
void scores_any(const tsr_attention_scores_i8_args *a, uint32_t begin, uint32_t end, int32_t offset, uint32_t stride)
{
    const uint32_t hs = a->head_size;
    const int8_t *row = a->keys + (size_t)begin * stride;
    for (uint32_t t = begin; t < end; ++t, row += stride) {
        int32_t dot = offset;
        const int8_t *q = a->q;
        for (const int8_t *key = row, *stop = row + hs; key != stop; ++key, ++q) dot += ((int32_t)*q - a->q_zero) * *key;
        a->scores[t] = tsr_requantize_to_i8_fast(dot, a->multiplier, a->shift, 0, -128, 127);
    }
}

// All of the head's accumulators (d in [0, H)), positions outermost.
template <uint32_t H>
void accumulate_unrolled(const tsr_attention_accumulate_i8_args *a, int32_t offset)
{
    int32_t acc[H];
#pragma GCC unroll 16
    for (uint32_t d = 0; d < H; ++d) acc[d] = offset;
    const int8_t *v = a->values;
    for (const uint16_t *p = a->probs, *stop = p + a->count; p != stop; ++p, v += H) {
        const int32_t w = *p;
#pragma GCC unroll 16
        for (uint32_t d = 0; d < H; ++d) acc[d] += w * v[d];
    }
#pragma GCC unroll 16
    for (uint32_t d = 0; d < H; ++d) a->acc[d] += acc[d];
}

} // namespace

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
    if (a->kv_stride && a->kv_stride != hs) { // a head's column of several heads' rows
        scores_any(a, begin, end, offset, a->kv_stride);
        return TSR_KERNEL_OK;
    }
    switch (hs) {
    case 4: scores_unrolled<4>(a, begin, end, offset); break;
    case 8: scores_unrolled<8>(a, begin, end, offset); break;
    case kUnrolledHead: scores_unrolled<kUnrolledHead>(a, begin, end, offset); break;
    default: scores_any(a, begin, end, offset, hs);
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
    const uint32_t stride = a->kv_stride ? a->kv_stride : a->head_size;
    if (begin == 0u && end == a->head_size && stride == a->head_size) { // one core has the whole head
        switch (a->head_size) {
        case 4: accumulate_unrolled<4>(a, offset); return TSR_KERNEL_OK;
        case 8: accumulate_unrolled<8>(a, offset); return TSR_KERNEL_OK;
        case kUnrolledHead: accumulate_unrolled<kUnrolledHead>(a, offset); return TSR_KERNEL_OK;
        default: break;
        }
    }
    for (uint32_t d = begin; d < end; ++d) {
        int32_t sum = offset;
        const int8_t *v = a->values + d;
        const uint16_t *p = a->probs;
        for (const uint16_t *stop = p + a->count; p != stop; ++p, v += stride) sum += (int32_t)*p * *v;
        a->acc[d] += sum;
    }
    return TSR_KERNEL_OK;
}
