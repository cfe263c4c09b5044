// tsr_attention_scores_i8 and tsr_attention_accumulate_i8 with Helium, the portable
// kernels' bits (integer sums are exact in any order; the zero points folded out as
// there: attention_i8.cpp).
//  - Scores, head sizes 4, 8 and multiples of 16 with q_zero 0 (Tessera's own images:
//    q is symmetric): sixteen bytes of keys hold 16 / head_size positions, each summed
//    by one VMLADAV against a copy of q placed in its lanes (zeros elsewhere); four
//    positions' sums requantized as one vector (VMULH, VRSHL: matmul_i8_mve.cpp). Other
//    shapes take the portable kernel.
//  - Accumulate: four accumulators a vector, a position's four values widened as they
//    load (VLDRB.S32) and multiplied by its probability into them (VMLA).
#include <arm_mve.h>

#include "attention_i8_checks.h"
#include "kernel_checks.h"
#include "requantize_fast.h"
#include "tessera/kernels_arm_mve.h"

namespace {

// q in lanes [j hs, (j + 1) hs) of qv[j], zeros elsewhere, for the 16 / hs positions
// sixteen bytes of keys hold (hs 4 or 8; hs 16 and up: qv[0] is q's first 16): a plain
// VMLADAV of qv[j] against those bytes is position j's sum, no predicate to set.
struct Query {
    int8x16_t qv[4];
    Query(const int8_t *q, uint32_t hs)
    {
        const uint32_t per = hs < 16u ? 16u / hs : 1u, width = hs < 16u ? hs : 16u;
        for (uint32_t j = 0; j < per; ++j) {
            int8_t lanes[16] = {};
            for (uint32_t d = 0; d < width; ++d) lanes[j * width + d] = q[d];
            qv[j] = vldrbq_s8(lanes);
        }
    }
};

// The sum for position t alone (the last positions of a call).
TSR_MVE_INLINE int32_t dot_at(const int8_t *keys, uint32_t t, uint32_t hs, const Query &query, const int8_t *q)
{
    const int8_t *k = keys + (size_t)t * hs;
    if (hs < 16u) return vmladavq_s8(query.qv[0], vldrbq_z_s8(k, vctp8q(hs)));
    int32_t dot = 0;
    for (uint32_t d = 0; d < hs; d += 16u) dot = vmladavaq_s8(dot, vldrbq_s8(q + d), vldrbq_s8(k + d));
    return dot;
}

// Four consecutive positions' sums from the keys at k, as one vector: H 4 or 8 (16 / H
// positions a load), or 0 for a head size of 16 or more.
template <uint32_t H>
TSR_MVE_INLINE int32x4_t dot_four(const int8_t *k, uint32_t hs, const Query &query, const int8_t *q)
{
    int32_t s[4];
    if (H) {
        for (uint32_t c = 0; c < 4u; c += 16u / H) {
            const int8x16_t kv = vldrbq_s8(k + c * H);
            for (uint32_t j = 0; j < 16u / H; ++j) s[c + j] = vmladavq_s8(query.qv[j], kv);
        }
    } else {
        for (uint32_t j = 0; j < 4u; ++j) s[j] = dot_at(k, j, hs, query, q);
    }
    int32x4_t v = vdupq_n_s32(s[0]);
    v = vsetq_lane_s32(s[1], v, 1);
    v = vsetq_lane_s32(s[2], v, 2);
    return vsetq_lane_s32(s[3], v, 3);
}

// Scores of positions t.. four at a time, requantized as one vector (shift <= -2: the
// path of matmul_i8_mve.cpp); returns the first position left.
template <uint32_t H>
TSR_MVE_INLINE uint32_t scores_four(const tsr_attention_scores_i8_args *a, uint32_t t, uint32_t end, int32_t offset,
                                    const Query &query)
{
    const uint32_t hs = a->head_size;
    const int32x4_t vs = vdupq_n_s32(a->shift + 1), m = vdupq_n_s32(a->multiplier);
    for (; t + 4u <= end; t += 4u) {
        const int32x4_t sums = vaddq_n_s32(dot_four<H>(a->keys + (size_t)t * hs, hs, query, a->q), offset);
        const int32x4_t r = vrshlq_s32(vmulhq_s32(sums, m), vs);
        vstrbq_s32(a->scores + t, vmaxq_s32(vminq_s32(r, vdupq_n_s32(127)), vdupq_n_s32(-128)));
    }
    return t;
}

// A head of 4 C accumulators, all in registers over the positions: per position its
// probability and C loads of four values widened to 32 bits, each multiplied into its
// accumulators (VMLA), unpredicated.
template <uint32_t C> TSR_MVE_INLINE void accumulate_head(const tsr_attention_accumulate_i8_args *a, int32_t offset)
{
    int32x4_t acc[C];
    for (uint32_t c = 0; c < C; ++c) acc[c] = vaddq_n_s32(vldrwq_s32(a->acc + 4u * c), offset);
    const int8_t *v = a->values;
    for (const uint16_t *p = a->probs, *stop = p + a->count; p != stop; ++p, v += 4u * C) {
        const int32_t w = *p;
        for (uint32_t c = 0; c < C; ++c) acc[c] = vmlaq_n_s32(acc[c], vldrbq_s32(v + 4u * c), w);
    }
    for (uint32_t c = 0; c < C; ++c) vstrwq_s32(a->acc + 4u * c, acc[c]);
}

} // namespace

tsr_kernel_status tsr_attention_scores_i8_mve(const tsr_attention_scores_i8_args *a, uint32_t core_id,
                                              uint32_t core_count)
{
    const uint32_t hs = a ? a->head_size : 0u;
    if (!a || a->q_zero != 0 || !(hs == 4u || hs == 8u || hs % 16u == 0u) || a->kv_stride > hs) // strided: portable
        return tsr_attention_scores_i8(a, core_id, core_count); // checks its arguments itself
    TSR_KERNEL_REQUIRE(tsr_attention_scores_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->count, core_id, core_count, &begin, &end);
    const Query query(a->q, hs);
    int32_t q_sum = 0;
    for (uint32_t d = 0; d < hs; ++d) q_sum += a->q[d];
    const int32_t offset = -a->k_zero * q_sum, m = a->multiplier, s = a->shift;
    uint32_t t = begin;
    if (s <= -2) t = hs == 4u ? scores_four<4>(a, t, end, offset, query)
                   : hs == 8u ? scores_four<8>(a, t, end, offset, query)
                              : scores_four<0>(a, t, end, offset, query);
    for (; t < end; ++t)
        a->scores[t] = tsr_requantize_to_i8_fast(dot_at(a->keys, t, hs, query, a->q) + offset, m, s, 0, -128, 127);
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_attention_accumulate_i8_mve(const tsr_attention_accumulate_i8_args *a, uint32_t core_id,
                                                  uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_attention_accumulate_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->head_size, core_id, core_count, &begin, &end);
    const uint32_t hs = a->head_size, count = a->count;
    uint32_t p_sum = 0;
    for (uint32_t t = 0; t < count; t += 8u) p_sum = vaddvaq_p_u16(p_sum, vldrhq_z_u16(a->probs + t, vctp16q(count - t)), vctp16q(count - t));
    const int32_t offset = -a->v_zero * (int32_t)p_sum;
    const uint32_t stride = a->kv_stride ? a->kv_stride : hs;
    if (begin == 0u && end == hs && stride == hs && (hs == 4u || hs == 8u || hs == 16u)) { // the whole head in registers
        if (hs == 4u) accumulate_head<1>(a, offset);
        else if (hs == 8u) accumulate_head<2>(a, offset);
        else accumulate_head<4>(a, offset);
        return TSR_KERNEL_OK;
    }
    for (uint32_t d = begin; d < end; d += 4u) {
        const mve_pred16_t p = vctp32q(end - d);
        int32x4_t acc = vaddq_n_s32(vldrwq_z_s32(a->acc + d, p), offset);
        const int8_t *v = a->values + d;
        for (uint32_t t = 0; t < count; ++t, v += stride) acc = vmlaq_n_s32(acc, vldrbq_z_s32(v, p), (int32_t)a->probs[t]);
        vstrwq_p_s32(a->acc + d, acc, p);
    }
    return TSR_KERNEL_OK;
}
