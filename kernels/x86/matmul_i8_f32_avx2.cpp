// tsr_matmul_i8_f32 with AVX2 dot products (i8_dot_avx2.h), four output channels a
// pass, each sum converted and multiplied by its channel's factor (the same single
// rounding of each as the portable kernel's scalar code).
#include "i8_dot_avx2.h"
#include "kernel_checks.h"
#include "matmul_i8_checks.h"
#include "tessera/kernels_x86.h"

tsr_kernel_status tsr_matmul_i8_f32_avx2(const tsr_matmul_i8_f32_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_i8_f32_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    const uint32_t k = a->k;
    uint32_t i = begin;
    for (; i + 4u <= end; i += 4u) {
        const __m128 scale = _mm_loadu_ps(a->scale + i);
        for (uint32_t r = 0; r < a->rows; ++r) {
            const __m128i acc = tsr_avx2_dot4(a->x + (size_t)r * k, a->w + (size_t)i * k, k);
            _mm_storeu_ps(a->y + (size_t)r * a->ldy + i, _mm_mul_ps(_mm_cvtepi32_ps(acc), scale));
        }
    }
    for (; i < end; ++i)
        for (uint32_t r = 0; r < a->rows; ++r)
            a->y[(size_t)r * a->ldy + i] = (float)tsr_avx2_dot1(a->x + (size_t)r * k, a->w + (size_t)i * k, k) * a->scale[i];
    return TSR_KERNEL_OK;
}
