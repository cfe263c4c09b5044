// tsr_attention_scores_i8 and tsr_attention_accumulate_i8 for head size 8: two cached
// positions (16 bytes) a register, sign-extended to 16 bits and multiplied and added in
// pairs. Integer sums are exact in any order, so these are the portable kernels' bits;
// other head sizes, and a head split over cores, go to the portable kernels.
#include <immintrin.h>

#include "attention_i8_checks.h"
#include "kernel_checks.h"
#include "requantize_avx2.h"
#include "requantize_fast.h"
#include "tessera/kernels_x86.h"

namespace {

constexpr uint32_t kHead = 8;

// q' = q - q_zero, twice (positions t and t + 1), as 16-bit lanes.
__m256i q_twice(const tsr_attention_scores_i8_args *a)
{
    alignas(32) int16_t q[16];
    for (uint32_t d = 0; d < kHead; ++d) q[d] = q[d + kHead] = (int16_t)(a->q[d] - a->q_zero);
    return _mm256_load_si256((const __m256i *)q);
}

// The dots of positions t .. t + 7 (keys at `key`, 8 bytes each), in order.
__m256i dots8(const int8_t *key, __m256i q)
{
    auto pair = [&](uint32_t i) {
        return _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(key + 16u * i))), q);
    };
    // pair(i): positions 2i (lanes 0-3) and 2i + 1 (lanes 4-7), four partial sums each.
    const __m256i h01 = _mm256_hadd_epi32(pair(0), pair(1)), h23 = _mm256_hadd_epi32(pair(2), pair(3));
    const __m256i h = _mm256_hadd_epi32(h01, h23); // positions 0 2 4 6 | 1 3 5 7
    return _mm256_permutevar8x32_epi32(h, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

} // namespace

tsr_kernel_status tsr_attention_scores_i8_avx2(const tsr_attention_scores_i8_args *a, uint32_t core_id,
                                               uint32_t core_count)
{
    if (!tsr_attention_scores_i8_args_ok(a) || a->head_size != kHead || a->kv_stride > kHead) // strided: portable
        return tsr_attention_scores_i8(a, core_id, core_count);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->count, core_id, core_count, &begin, &end);
    int32_t q_sum = 0;
    for (uint32_t d = 0; d < kHead; ++d) q_sum += (int32_t)a->q[d] - a->q_zero;
    const int32_t offset = -a->k_zero * q_sum;
    const __m256i q = q_twice(a), off = _mm256_set1_epi32(offset);
    uint32_t t = begin;
    if (a->shift <= -2) { // the fast requantization, eight scores at a time
        const __m256i mult = _mm256_set1_epi32(a->multiplier), rest = _mm256_set1_epi32(-2 - a->shift);
        for (; t + 8u <= end; t += 8u) {
            const __m256i dot = _mm256_add_epi32(dots8(a->keys + (size_t)t * kHead, q), off);
            tsr_avx2_store_i8x8(a->scores + t, tsr_avx2_to_i8_range(tsr_avx2_requantize_fast(dot, mult, rest), 0, -128, 127));
        }
    }
    for (; t < end; ++t) {
        int32_t s = offset;
        for (uint32_t d = 0; d < kHead; ++d) s += ((int32_t)a->q[d] - a->q_zero) * a->keys[(size_t)t * kHead + d];
        a->scores[t] = tsr_requantize_to_i8_fast(s, a->multiplier, a->shift, 0, -128, 127);
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_attention_accumulate_i8_avx2(const tsr_attention_accumulate_i8_args *a, uint32_t core_id,
                                                   uint32_t core_count)
{
    if (!tsr_attention_accumulate_i8_args_ok(a) || a->head_size != kHead || core_count != 1u || a->kv_stride > kHead)
        return tsr_attention_accumulate_i8(a, core_id, core_count);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    // Positions t and t + 1 interleaved: lanes (v[t][d], v[t + 1][d]) against (p[t], p[t + 1])
    // (p <= 4096: a 16-bit lane), so each 32-bit lane d gains p[t] v[t][d] + p[t + 1] v[t + 1][d].
    __m256i acc = _mm256_setzero_si256();
    int32_t p_sum = 0;
    const uint16_t *p = a->probs;
    const int8_t *v = a->values;
    uint32_t t = 0;
    for (; t + 2u <= a->count; t += 2u, v += 2u * kHead) {
        const __m128i two = _mm_loadu_si128((const __m128i *)v);
        const __m256i vv = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(two, _mm_srli_si128(two, 8)));
        const uint32_t pp = (uint32_t)p[t] | ((uint32_t)p[t + 1u] << 16);
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(vv, _mm256_set1_epi32((int32_t)pp)));
        p_sum += p[t] + p[t + 1u];
    }
    alignas(32) int32_t sum[8];
    _mm256_store_si256((__m256i *)sum, acc);
    for (; t < a->count; ++t, v += kHead) {
        for (uint32_t d = 0; d < kHead; ++d) sum[d] += (int32_t)p[t] * v[d];
        p_sum += p[t];
    }
    const int32_t offset = -a->v_zero * p_sum;
    for (uint32_t d = 0; d < kHead; ++d) a->acc[d] += sum[d] + offset;
    return TSR_KERNEL_OK;
}
