// Tessera's own integer attention (tsr_attention_scores_i8, tsr_softmax_i8,
// tsr_attention_accumulate_i8) on XpulpV2, the portable kernels' integers bit for bit:
//  - scores: a position's dot product with the query one sdotsp.b a word (symmetric
//    queries, head sizes a multiple of 4, word-aligned rows; otherwise the portable
//    kernel), then the portable requantization;
//  - softmax: the integer exponential's quotient by ln2 through an exact reciprocal (one
//    division a row, not one a position), the normalization as the portable kernel's;
//  - accumulation (head sizes a multiple of 4, one core): one p.mac a product, eight (or
//    four) dimensions a pass over the positions, a position's probability held in a register.
#include "attention_i8_checks.h"
#include "kernel_checks.h"
#include "softmax_i8_checks.h"
#include "tessera/kernels_xpulpv2.h"
#include "xpulpv2_dot.h"
#include "xpulpv2_iexp.h"
#include "xpulpv2_requantize.h"

namespace {

inline int32_t mac(int32_t acc, int32_t a, int32_t b)
{
    __asm__(TSR_XP_MAC("%0", "%1", "%2") : "+r"(acc) : "r"(a), "r"(b));
    return acc;
}

inline int32_t sdot(int32_t acc, uint32_t a, uint32_t b)
{
    __asm__(TSR_XP_SDOTSP_B("%0", "%1", "%2") : "+r"(acc) : "r"(a), "r"(b));
    return acc;
}

} // namespace

tsr_kernel_status tsr_attention_scores_i8_xpulpv2(const tsr_attention_scores_i8_args *a, uint32_t core_id,
                                                  uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_attention_scores_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    const uint32_t hs = a->head_size, words = hs >> 2;
    if (a->q_zero != 0 || (hs & 3u) || words > 16u || (((uintptr_t)a->q | (uintptr_t)a->keys) & 3u))
        return tsr_attention_scores_i8(a, core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->count, core_id, core_count, &begin, &end);
    const uint32_t *q = (const uint32_t *)(const void *)a->q;
    int32_t q_sum = 0;
    for (uint32_t d = 0; d < hs; ++d) q_sum += a->q[d];
    const int32_t offset = -a->k_zero * q_sum, multiplier = a->multiplier, shift = a->shift;
    const uint32_t *key = (const uint32_t *)(const void *)(a->keys + (size_t)begin * hs);
    int8_t *const scores = a->scores; // a local: a score's store could alias *a
    if (words == 1u) { // TinyLLama-v0's (microLlama's) head size 4: the query's word in a register
        const uint32_t q0 = q[0];
        for (uint32_t t = begin; t < end; ++t, ++key)
            scores[t] = tsr_xpulpv2_requantize_to_i8(sdot(offset, q0, key[0]), multiplier, shift, 0, -128, 127);
        return TSR_KERNEL_OK;
    }
    if (words == 2u) { // stories260K's head size 8: the query's two words in registers
        const uint32_t q0 = q[0], q1 = q[1];
        for (uint32_t t = begin; t < end; ++t, key += 2)
            scores[t] = tsr_xpulpv2_requantize_to_i8(sdot(sdot(offset, q0, key[0]), q1, key[1]), multiplier, shift, 0, -128, 127);
        return TSR_KERNEL_OK;
    }
    for (uint32_t t = begin; t < end; ++t, key += words) {
        int32_t dot = offset;
        for (uint32_t w = 0; w < words; ++w) dot = sdot(dot, q[w], key[w]);
        scores[t] = tsr_xpulpv2_requantize_to_i8(dot, multiplier, shift, 0, -128, 127);
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_softmax_i8_xpulpv2(const tsr_softmax_i8_args *a, uint32_t *e)
{
    if (!tsr_softmax_i8_args_ok(a, e)) return TSR_KERNEL_BAD_ARGUMENT;
    const int8_t *x = a->x;
    const uint32_t n = a->n;
    const tsr_iexp_constants k = a->constants; // a copy: a store to e could alias *a
    const int32_t shift = k.shift;
    const uint32_t m_ln2 = tsr_xpulpv2_iexp_reciprocal(k);
    int32_t max = x[0];
    for (uint32_t i = 1; i < n; ++i) max = x[i] > max ? x[i] : max;
    uint32_t sum = 0;
    for (uint32_t i = 0; i < n; ++i) sum += e[i] = tsr_xpulpv2_iexp((x[i] - max) * (1 << shift), k, m_ln2);
    tsr_softmax_i8_normalize(e, n, sum, a->y);
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_attention_accumulate_i8_xpulpv2(const tsr_attention_accumulate_i8_args *a, uint32_t core_id,
                                                      uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_attention_accumulate_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    const uint32_t hs = a->head_size, count = a->count;
    if (core_count != 1u || hs % 4u != 0u) return tsr_attention_accumulate_i8(a, core_id, core_count);
    int32_t p_sum = 0;
    for (uint32_t t = 0; t < count; ++t) p_sum += a->probs[t];
    const int32_t offset = -a->v_zero * p_sum;
    const uint16_t *const probs = a->probs;
    int32_t *const acc = a->acc;
    // Eight dimensions a pass over the positions (their sums in registers), then four.
    uint32_t d = 0;
    for (; d + 8u <= hs; d += 8u) {
        int32_t a0 = offset, a1 = offset, a2 = offset, a3 = offset, a4 = offset, a5 = offset, a6 = offset, a7 = offset;
        const int8_t *v = a->values + d;
        for (const uint16_t *p = probs, *stop = p + count; p != stop; ++p, v += hs) {
            const int32_t w = *p;
            a0 = mac(a0, w, v[0]), a1 = mac(a1, w, v[1]), a2 = mac(a2, w, v[2]), a3 = mac(a3, w, v[3]);
            a4 = mac(a4, w, v[4]), a5 = mac(a5, w, v[5]), a6 = mac(a6, w, v[6]), a7 = mac(a7, w, v[7]);
        }
        acc[d] += a0, acc[d + 1] += a1, acc[d + 2] += a2, acc[d + 3] += a3;
        acc[d + 4] += a4, acc[d + 5] += a5, acc[d + 6] += a6, acc[d + 7] += a7;
    }
    if (d < hs) { // four left (TinyLLama-v0's head size 4: all of it)
        int32_t a0 = offset, a1 = offset, a2 = offset, a3 = offset;
        const int8_t *v = a->values + d;
        for (const uint16_t *p = probs, *stop = p + count; p != stop; ++p, v += hs) {
            const int32_t w = *p;
            a0 = mac(a0, w, v[0]), a1 = mac(a1, w, v[1]), a2 = mac(a2, w, v[2]), a3 = mac(a3, w, v[3]);
        }
        acc[d] += a0, acc[d + 1] += a1, acc[d + 2] += a2, acc[d + 3] += a3;
    }
    return TSR_KERNEL_OK;
}
