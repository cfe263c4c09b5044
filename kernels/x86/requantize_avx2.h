// tsr_requantize_to_i8_fast (requantize_fast.h) four or eight lanes at a time, for lanes
// whose shift is at most -2 (the fast form: 30 - shift >= 32), the usual case: the
// product's high word (vpmuldq on the even and the odd lanes), shifted by -2 - shift
// (vpsravd), rounded half up as (t >> 1) + (t & 1), then y_zero added and clamped as there.
// Callers take the scalar form for any other shift.
#ifndef TESSERA_REQUANTIZE_AVX2_H
#define TESSERA_REQUANTIZE_AVX2_H

#include <immintrin.h>
#include <stdint.h>

static inline __m128i tsr_sse_requantize_fast(__m128i acc, __m128i mult, __m128i rest_shift)
{
    const __m128i even = _mm_mul_epi32(acc, mult);
    const __m128i odd = _mm_mul_epi32(_mm_srli_epi64(acc, 32), _mm_srli_epi64(mult, 32));
    const __m128i hi = _mm_blend_epi32(_mm_srli_epi64(even, 32), odd, 0xA); // each product's high word
    const __m128i t = _mm_srav_epi32(hi, rest_shift);
    return _mm_add_epi32(_mm_srai_epi32(t, 1), _mm_and_si128(t, _mm_set1_epi32(1)));
}

static inline __m256i tsr_avx2_requantize_fast(__m256i acc, __m256i mult, __m256i rest_shift)
{
    const __m256i even = _mm256_mul_epi32(acc, mult);
    const __m256i odd = _mm256_mul_epi32(_mm256_srli_epi64(acc, 32), _mm256_srli_epi64(mult, 32));
    const __m256i hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
    const __m256i t = _mm256_srav_epi32(hi, rest_shift);
    return _mm256_add_epi32(_mm256_srai_epi32(t, 1), _mm256_and_si256(t, _mm256_set1_epi32(1)));
}

// y_zero + clamp(r, -256, 255), clamped to [y_min, y_max] (tsr_requantize_to_i8_fast's tail).
static inline __m128i tsr_sse_to_i8_range(__m128i r, int32_t y_zero, int32_t y_min, int32_t y_max)
{
    r = _mm_min_epi32(_mm_max_epi32(r, _mm_set1_epi32(-256)), _mm_set1_epi32(255));
    const __m128i v = _mm_add_epi32(r, _mm_set1_epi32(y_zero));
    return _mm_min_epi32(_mm_max_epi32(v, _mm_set1_epi32(y_min)), _mm_set1_epi32(y_max));
}

static inline __m256i tsr_avx2_to_i8_range(__m256i r, int32_t y_zero, int32_t y_min, int32_t y_max)
{
    r = _mm256_min_epi32(_mm256_max_epi32(r, _mm256_set1_epi32(-256)), _mm256_set1_epi32(255));
    const __m256i v = _mm256_add_epi32(r, _mm256_set1_epi32(y_zero));
    return _mm256_min_epi32(_mm256_max_epi32(v, _mm256_set1_epi32(y_min)), _mm256_set1_epi32(y_max));
}

// Four int32 lanes in [-128, 127] as four bytes at y.
static inline void tsr_sse_store_i8x4(int8_t *y, __m128i v)
{
    const __m128i b = _mm_packs_epi16(_mm_packs_epi32(v, v), _mm_setzero_si128());
    const int32_t word = _mm_cvtsi128_si32(b);
    __builtin_memcpy(y, &word, 4);
}

// Eight int32 lanes in [-128, 127] as eight bytes at y.
static inline void tsr_avx2_store_i8x8(int8_t *y, __m256i v)
{
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storel_epi64((__m128i *)y, _mm_packs_epi16(w, w));
}

#endif
