// The integer arithmetic of the int8 non-linearities eight (or four) lanes at a time,
// bit for bit as the scalar forms (softmax_i8_checks.h, elementwise_i8_checks.h).
#ifndef TESSERA_IEXP_AVX2_H
#define TESSERA_IEXP_AVX2_H

#include <immintrin.h>

#include "softmax_i8_checks.h"

// tsr_iexp(-d_neg, k) for d_neg in [0, 2^22]: z = floor(d_neg / ln2) from a float
// estimate (within one of it: d_neg is exact in a float, the quotient below 2^13 with a
// relative error near 2^-22), corrected in integers; t = b - (d_neg - z ln2); then
// (t^2 + c) >> (z + 6), a shift of 32 or more giving 0 (vpsrlvd), as z >= 26 does there.
static inline __m256i tsr_avx2_iexp(__m256i d_neg, const tsr_iexp_constants &k, __m256 inv_ln2)
{
    const __m256i ln2 = _mm256_set1_epi32(k.ln2);
    __m256i z = _mm256_cvttps_epi32(_mm256_mul_ps(_mm256_cvtepi32_ps(d_neg), inv_ln2));
    __m256i rest = _mm256_sub_epi32(d_neg, _mm256_mullo_epi32(z, ln2));
    const __m256i low = _mm256_cmpgt_epi32(_mm256_setzero_si256(), rest); // z one too big
    z = _mm256_add_epi32(z, low), rest = _mm256_add_epi32(rest, _mm256_and_si256(low, ln2));
    const __m256i high = _mm256_cmpgt_epi32(rest, _mm256_sub_epi32(ln2, _mm256_set1_epi32(1))); // one too small
    z = _mm256_sub_epi32(z, high), rest = _mm256_sub_epi32(rest, _mm256_and_si256(high, ln2));
    const __m256i t = _mm256_sub_epi32(_mm256_set1_epi32(k.b), rest);
    const __m256i l = _mm256_add_epi32(_mm256_mullo_epi32(t, t), _mm256_set1_epi32(k.c));
    return _mm256_srlv_epi32(l, _mm256_add_epi32(z, _mm256_set1_epi32(6)));
}

// floor(n / d) for 0 <= n < 2^31 and 0 < d < 2^22: n and d are exact doubles; the
// quotient, below 2^31, is rounded by less than 2^31 x 2^-53 = 2^-22, and one that is
// not an integer lies at least 1 / d > 2^-22 below the next, so truncating is exact.
static inline __m128i tsr_sse_floor_div(__m128i n, __m128i d)
{
    return _mm256_cvttpd_epi32(_mm256_div_pd(_mm256_cvtepi32_pd(n), _mm256_cvtepi32_pd(d)));
}

// tsr_round_div(n, d) for |n| + d / 2 < 2^31, 0 < d < 2^22: halves away from zero.
static inline __m256i tsr_avx2_round_div(__m256i n, __m256i d)
{
    const __m256i a = _mm256_add_epi32(_mm256_abs_epi32(n), _mm256_srli_epi32(d, 1));
    const __m256i q = _mm256_set_m128i(tsr_sse_floor_div(_mm256_extracti128_si256(a, 1), _mm256_extracti128_si256(d, 1)),
                                       tsr_sse_floor_div(_mm256_castsi256_si128(a), _mm256_castsi256_si128(d)));
    return _mm256_sign_epi32(q, n); // -q for n < 0 (q for n = 0 is 0 either way)
}

#endif
