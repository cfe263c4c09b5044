// tsr_softmax_i8, eight lanes at a time, the portable kernel's bits:
//  - e = iexp(d) by tsr_avx2_iexp (iexp_avx2.h);
//  - y = floor((4096 e + sum / 2) / sum): both operands below 2^31 are exact doubles and
//    the quotient, below 2^13, lies at least 1 / sum < 2^-28 from the next integer, far
//    above a double's rounding there (2^-40), so truncating the double quotient is exact.
#include <immintrin.h>

#include "iexp_avx2.h"
#include "kernel_checks.h"
#include "softmax_i8_checks.h"
#include "tessera/kernels_x86.h"


tsr_kernel_status tsr_softmax_i8_avx2(const tsr_softmax_i8_args *a, uint32_t *e)
{
    if (!tsr_softmax_i8_args_ok(a, e)) return TSR_KERNEL_BAD_ARGUMENT;
    const int8_t *x = a->x;
    const uint32_t n = a->n, n8 = n & ~7u;
    const tsr_iexp_constants &k = a->constants;
    int32_t max = x[0];
    for (uint32_t i = 1; i < n; ++i) max = x[i] > max ? x[i] : max;
    const __m256i vmax = _mm256_set1_epi32(max);
    const __m256 inv_ln2 = _mm256_set1_ps(1.0f / (float)k.ln2);
    __m256i vsum = _mm256_setzero_si256();
    for (uint32_t i = 0; i < n8; i += 8) {
        const __m256i xv = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(x + i)));
        const __m256i d_neg = _mm256_slli_epi32(_mm256_sub_epi32(vmax, xv), k.shift); // -(x - max) << shift
        const __m256i ev = tsr_avx2_iexp(d_neg, k, inv_ln2);
        _mm256_storeu_si256((__m256i *)(e + i), ev);
        vsum = _mm256_add_epi32(vsum, ev);
    }
    alignas(32) uint32_t lanes[8];
    _mm256_store_si256((__m256i *)lanes, vsum);
    uint32_t sum = 0;
    for (uint32_t l = 0; l < 8u; ++l) sum += lanes[l];
    for (uint32_t i = n8; i < n; ++i) sum += e[i] = tsr_iexp((x[i] - max) * (1 << k.shift), k);
    const __m256d dsum = _mm256_set1_pd((double)sum);
    const __m256i half = _mm256_set1_epi32((int32_t)(sum / 2u));
    uint32_t i = 0;
    for (; i + 4u <= n; i += 4) {
        const __m128i ev = _mm_loadu_si128((const __m128i *)(e + i));
        const __m128i m = _mm_add_epi32(_mm_slli_epi32(ev, 12), _mm256_castsi256_si128(half)); // < 2^31
        const __m128i q = _mm256_cvttpd_epi32(_mm256_div_pd(_mm256_cvtepi32_pd(m), dsum));
        _mm_storel_epi64((__m128i *)(a->y + i), _mm_packus_epi32(q, q)); // q <= 4096
    }
    for (; i < n; ++i) a->y[i] = uint16_t((e[i] * 4096u + sum / 2u) / sum);
    return TSR_KERNEL_OK;
}
