// tsr_matmul_i8 with AVX2: the dot products of i8_dot_avx2.h, four output channels a
// pass over a row of x; the zero point folded out as in the portable kernel; the four
// outputs requantized together (requantize_avx2.h) where their shifts allow, else one
// by one as there. The argument checks read the tables eight entries at a time.
#include "i8_dot_avx2.h"
#include "kernel_checks.h"
#include "matmul_i8_checks.h"
#include "matmul_i8_dot.h"
#include "requantize_avx2.h"
#include "requantize_fast.h"
#include "tessera/kernels_x86.h"

namespace {

// tsr_matmul_i8_args_ok, the per-channel tables compared eight at a time.
bool args_ok(const tsr_matmul_i8_args *a)
{
    if (!tsr_matmul_i8_scalars_ok(a)) return false;
    const uint32_t n8 = a->n & ~7u;
    __m256i bad = _mm256_setzero_si256();
    const __m256i low_m = _mm256_set1_epi32(1 << 30), zero = _mm256_setzero_si256();
    for (uint32_t i = 0; i < n8; i += 8) {
        const __m256i m = _mm256_loadu_si256((const __m256i *)(a->multiplier + i));
        const __m256i s = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(a->shift + i)));
        // m < 0, or 0 < m < 2^30; s < -31 or s > 30
        bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(zero, m));
        bad = _mm256_or_si256(bad, _mm256_andnot_si256(_mm256_cmpeq_epi32(m, zero), _mm256_cmpgt_epi32(low_m, m)));
        bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(_mm256_set1_epi32(-31), s));
        bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(s, _mm256_set1_epi32(30)));
        if (a->bias) {
            const __m256i b = _mm256_loadu_si256((const __m256i *)(a->bias + i));
            bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(b, _mm256_set1_epi32(1 << 26)));
            bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(_mm256_set1_epi32(-(1 << 26)), b));
        }
    }
    return _mm256_testz_si256(bad, bad) && tsr_matmul_i8_channels_ok(a, n8);
}

int32_t offset_of(const tsr_matmul_i8_args *a, uint32_t i) // bias - x_zero * sum_j w_ij: the same for every row
{
    return (a->bias ? a->bias[i] : 0) - (a->x_zero ? a->x_zero * tsr_i8_row_sum(a->w + (size_t)i * a->k, a->k) : 0);
}

int8_t one(const tsr_matmul_i8_args *a, uint32_t i, int32_t acc)
{
    return tsr_requantize_to_i8_fast(acc, a->multiplier[i], a->shift[i], a->y_zero, a->y_min, a->y_max);
}

} // namespace

tsr_kernel_status tsr_matmul_i8_avx2(const tsr_matmul_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    const uint32_t k = a->k;
    uint32_t i = begin;
    for (; i + 4u <= end; i += 4u) {
        const __m128i offset = _mm_setr_epi32(offset_of(a, i), offset_of(a, i + 1u), offset_of(a, i + 2u), offset_of(a, i + 3u));
        const __m128i mult = _mm_loadu_si128((const __m128i *)(a->multiplier + i));
        int32_t shifts;
        __builtin_memcpy(&shifts, a->shift + i, 4);
        const __m128i shift = _mm_cvtepi8_epi32(_mm_cvtsi32_si128(shifts));
        const bool fast = _mm_testz_si128(_mm_cmpgt_epi32(shift, _mm_set1_epi32(-2)), _mm_set1_epi32(-1));
        const __m128i rest = _mm_sub_epi32(_mm_set1_epi32(-2), shift); // 30 - shift - 32
        const int8_t *w = a->w + (size_t)i * k;
        for (uint32_t r = 0; r < a->rows; ++r) {
            const __m128i acc = _mm_add_epi32(tsr_avx2_dot4(a->x + (size_t)r * k, w, k), offset);
            int8_t *y = a->y + (size_t)r * a->ldy + i;
            if (fast) {
                tsr_sse_store_i8x4(y, tsr_sse_to_i8_range(tsr_sse_requantize_fast(acc, mult, rest), a->y_zero, a->y_min, a->y_max));
            } else {
                alignas(16) int32_t v[4];
                _mm_store_si128((__m128i *)v, acc);
                for (uint32_t c = 0; c < 4u; ++c) y[c] = one(a, i + c, v[c]);
            }
        }
    }
    for (; i < end; ++i) {
        const int32_t offset = offset_of(a, i);
        for (uint32_t r = 0; r < a->rows; ++r)
            a->y[(size_t)r * a->ldy + i] = one(a, i, tsr_avx2_dot1(a->x + (size_t)r * k, a->w + (size_t)i * k, k) + offset);
    }
    return TSR_KERNEL_OK;
}
