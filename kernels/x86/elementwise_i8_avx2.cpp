// tsr_rmsnorm_i8 and tsr_swiglu_i8 eight elements at a time, the portable kernels' bits:
// the same integer steps, the divisions by exact double quotients (iexp_avx2.h), the
// output requantized together where the shift allows (requantize_avx2.h).
#include "elementwise_i8_checks.h"
#include "iexp_avx2.h"
#include "kernel_checks.h"
#include "requantize_avx2.h"
#include "requantize_fast.h"
#include "tessera/kernels_x86.h"

namespace {

__m256i widen8(const int8_t *p) { return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p)); }

} // namespace

tsr_kernel_status tsr_rmsnorm_i8_avx2(const tsr_rmsnorm_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_rmsnorm_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->rows, core_id, core_count, &begin, &end);
    const uint32_t dim = a->dim, dim8 = dim & ~7u;
    const __m256i xz = _mm256_set1_epi32(a->x_zero), gain = _mm256_set1_epi32(a->gain);
    const __m128i gs = _mm_cvtsi32_si128(a->gain_shift);
    const __m256i half_shift = _mm256_set1_epi32(a->gain_shift ? 1 << (a->gain_shift - 1) : 0);
    for (uint32_t r = begin; r < end; ++r) {
        const int8_t *x = a->x + (size_t)r * dim;
        int8_t *y = a->y + (size_t)r * dim;
        __m256i squares = _mm256_setzero_si256(); // each lane <= 2048 x 255^2 < 2^31
        for (uint32_t i = 0; i < dim8; i += 8) {
            const __m256i u = _mm256_sub_epi32(widen8(x + i), xz);
            squares = _mm256_add_epi32(squares, _mm256_mullo_epi32(u, u));
        }
        alignas(32) uint32_t lanes[8];
        _mm256_store_si256((__m256i *)lanes, squares);
        uint32_t sum = 0;
        for (uint32_t l = 0; l < 8u; ++l) sum += lanes[l];
        for (uint32_t i = dim8; i < dim; ++i) {
            const int32_t u = x[i] - a->x_zero;
            sum += (uint32_t)(u * u);
        }
        const uint32_t root = tsr_rmsnorm_i8_root(sum, dim, a->eps_q8);
        const __m256i vroot = _mm256_set1_epi32((int32_t)root);
        for (uint32_t i = 0; i < dim8; i += 8) {
            const __m256i u = _mm256_sub_epi32(widen8(x + i), xz);
            const __m256i n = _mm256_mullo_epi32(_mm256_mullo_epi32(widen8(a->weight + i), u), gain); // < 2^30
            __m256i v = tsr_avx2_round_div(n, vroot);
            if (a->gain_shift) v = _mm256_sra_epi32(_mm256_add_epi32(v, half_shift), gs);
            v = _mm256_add_epi32(v, _mm256_set1_epi32(a->y_zero));
            tsr_avx2_store_i8x8(y + i, _mm256_min_epi32(_mm256_max_epi32(v, _mm256_set1_epi32(-128)), _mm256_set1_epi32(127)));
        }
        for (uint32_t i = dim8; i < dim; ++i) y[i] = tsr_rmsnorm_i8_one(x[i] - a->x_zero, a->weight[i], root, a);
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_swiglu_i8_avx2(const tsr_swiglu_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_swiglu_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->count, core_id, core_count, &begin, &end);
    const tsr_iexp_constants &k = a->constants;
    const int32_t e0 = (int32_t)tsr_iexp(0, k);
    uint32_t i = begin;
    if (a->shift <= -2) { // the fast requantization
        const __m256i ve0 = _mm256_set1_epi32(e0), gz = _mm256_set1_epi32(a->gate_zero), uz = _mm256_set1_epi32(a->up_zero);
        const __m256i mult = _mm256_set1_epi32(a->multiplier), rest = _mm256_set1_epi32(-2 - a->shift);
        const __m256 inv_ln2 = _mm256_set1_ps(1.0f / (float)k.ln2);
        const __m128i kshift = _mm_cvtsi32_si128(k.shift);
        for (; i + 8u <= end; i += 8u) {
            const __m256i g = _mm256_sub_epi32(widen8(a->gate + i), gz); // |g| <= 255
            const __m256i e = tsr_avx2_iexp(_mm256_sll_epi32(_mm256_abs_epi32(g), kshift), k, inv_ln2);
            const __m256i negative = _mm256_cmpgt_epi32(_mm256_setzero_si256(), g);
            const __m256i p = _mm256_srai_epi32(_mm256_blendv_epi8(ve0, e, negative), 2);
            const __m256i q = _mm256_srai_epi32(_mm256_add_epi32(ve0, e), 2);
            const __m256i n = _mm256_mullo_epi32(_mm256_slli_epi32(g, 4), p); // 16 g p: |.| < 2^29
            const __m256i silu16 = tsr_avx2_round_div(n, q);
            const __m256i up = _mm256_sub_epi32(widen8(a->up + i), uz);
            const __m256i r = tsr_avx2_requantize_fast(_mm256_mullo_epi32(silu16, up), mult, rest);
            tsr_avx2_store_i8x8(a->y + i, tsr_avx2_to_i8_range(r, a->y_zero, -128, 127));
        }
    }
    for (; i < end; ++i) {
        const int32_t silu16 = tsr_silu16_i8(a->gate[i] - a->gate_zero, e0, k);
        a->y[i] = tsr_requantize_to_i8_fast(silu16 * (a->up[i] - a->up_zero), a->multiplier, a->shift, a->y_zero, -128, 127);
    }
    return TSR_KERNEL_OK;
}
