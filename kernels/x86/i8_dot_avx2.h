// The int8 dot products of the AVX2 kernels: sixteen elements a step, sign-extended to
// 16 bits and multiplied and added in pairs (vpmaddwd: each pair at most 2 x 128 x 255,
// so the int32 lanes are exact as the portable kernels' sums are), the k % 16 tail in
// scalar code. Sums are exact in any order, so the results are the portable kernels'.
#ifndef TESSERA_I8_DOT_AVX2_H
#define TESSERA_I8_DOT_AVX2_H

#include <immintrin.h>
#include <stdint.h>

static inline __m256i tsr_avx2_widen16(const int8_t *p) { return _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)p)); }

// The four lanes' sums of a, b, c, d (eight int32 lanes each), in that order.
static inline __m128i tsr_avx2_sum4(__m256i a, __m256i b, __m256i c, __m256i d)
{
    const __m256i ab = _mm256_hadd_epi32(a, b), cd = _mm256_hadd_epi32(c, d);
    const __m256i abcd = _mm256_hadd_epi32(ab, cd); // per 128-bit half: a, b, c, d
    return _mm_add_epi32(_mm256_castsi256_si128(abcd), _mm256_extracti128_si256(abcd, 1));
}

// x . w_c for the four weight rows w0, w0 + k, w0 + 2k, w0 + 3k, in that order.
static inline __m128i tsr_avx2_dot4(const int8_t *x, const int8_t *w0, uint32_t k)
{
    const int8_t *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    const uint32_t k16 = k & ~15u;
    for (uint32_t j = 0; j < k16; j += 16) {
        const __m256i xv = tsr_avx2_widen16(x + j);
        a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(xv, tsr_avx2_widen16(w0 + j)));
        a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(xv, tsr_avx2_widen16(w1 + j)));
        a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(xv, tsr_avx2_widen16(w2 + j)));
        a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(xv, tsr_avx2_widen16(w3 + j)));
    }
    __m128i sums = tsr_avx2_sum4(a0, a1, a2, a3);
    if (k16 != k) {
        int32_t t0 = 0, t1 = 0, t2 = 0, t3 = 0;
        for (uint32_t j = k16; j < k; ++j) {
            const int32_t v = x[j];
            t0 += v * w0[j], t1 += v * w1[j], t2 += v * w2[j], t3 += v * w3[j];
        }
        sums = _mm_add_epi32(sums, _mm_setr_epi32(t0, t1, t2, t3));
    }
    return sums;
}

static inline int32_t tsr_avx2_dot1(const int8_t *x, const int8_t *w, uint32_t k)
{
    __m256i a = _mm256_setzero_si256();
    const uint32_t k16 = k & ~15u;
    for (uint32_t j = 0; j < k16; j += 16) a = _mm256_add_epi32(a, _mm256_madd_epi16(tsr_avx2_widen16(x + j), tsr_avx2_widen16(w + j)));
    const __m128i h = _mm_add_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
    const __m128i s = _mm_hadd_epi32(_mm_hadd_epi32(h, h), h);
    int32_t sum = _mm_cvtsi128_si32(s);
    for (uint32_t j = k16; j < k; ++j) sum += (int32_t)x[j] * w[j];
    return sum;
}

#endif
