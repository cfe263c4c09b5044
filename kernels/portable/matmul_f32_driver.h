// The optimized fp32 matmul's loop over blocks of outputs, shared by the portable
// kernel and an instruction set's (kernels/<isa>/): `Blocks` supplies block_4x4,
// row_block8 and row_block4 (tsr_matmul_f32's blocks, each output accumulated in index
// order with the reference's multiply-adds, so every set gives the reference's bits).
#ifndef TESSERA_MATMUL_F32_DRIVER_H
#define TESSERA_MATMUL_F32_DRIVER_H

#include "kernel_checks.h"
#include "kernel_math.h"

inline float tsr_f32_dot(const float *w, const float *x, uint32_t k)
{
    float sum = 0.0f;
    for (uint32_t j = 0; j < k; ++j) sum = tsr_mac(sum, w[j], x[j]);
    return sum;
}

template <class Blocks>
tsr_kernel_status tsr_matmul_f32_blocks(const float *x, const float *w, float *y, uint32_t rows, uint32_t k, uint32_t n,
                                        uint32_t ldy, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(x && w && y && rows && k && n && ldy >= n);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t g0, g1; // groups of four columns: blocks stay whole on one core
    tsr_core_range((n + 3u) / 4u, core_id, core_count, &g0, &g1);
    const uint32_t begin = 4u * g0, end = 4u * g1 < n ? 4u * g1 : n;
    const uint32_t i4_end = begin + ((end - begin) & ~3u);
    uint32_t r = 0;
    for (; r + 4 <= rows; r += 4) {
        for (uint32_t i = begin; i < i4_end; i += 4) Blocks::block_4x4(x, w, y, k, ldy, r, i);
        for (uint32_t i = i4_end; i < end; ++i)
            for (uint32_t rr = r; rr < r + 4; ++rr)
                y[(size_t)rr * ldy + i] = tsr_f32_dot(w + (size_t)i * k, x + (size_t)rr * k, k);
    }
    for (; r < rows; ++r) {
        const float *xr = x + (size_t)r * k;
        float *yr = y + (size_t)r * ldy;
        uint32_t i = begin;
        for (; i + 8u <= i4_end; i += 8u) Blocks::row_block8(xr, w, yr, k, i);
        for (; i < i4_end; i += 4u) Blocks::row_block4(xr, w, yr, k, i);
        for (; i < end; ++i) yr[i] = tsr_f32_dot(w + (size_t)i * k, xr, k);
    }
    return TSR_KERNEL_OK;
}

#endif
