#include "kernel_checks.h"

// Optimized matmul. Register blocking instead of reordering sums: every output is
// still accumulated in index order, so it matches the reference to the last bit
// wherever the compiler contracts multiply-adds the same way, and results do not
// depend on how the work is split across cores.
//
//  - GEMM (rows >= 4): a 4x4 block of outputs per inner loop, so each weight and
//    each activation value loaded is used four times.
//  - GEMV (rows < 4): four weight rows per inner loop against one activation row,
//    four independent accumulation chains to hide the add latency.
namespace {

inline void block_4x4(const float *x, const float *w, float *y, uint32_t k, uint32_t ldy,
                      uint32_t r0, uint32_t i0)
{
    const float *x0 = x + (size_t)r0 * k, *x1 = x0 + k, *x2 = x1 + k, *x3 = x2 + k;
    const float *w0 = w + (size_t)i0 * k, *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
    float a00 = 0, a01 = 0, a02 = 0, a03 = 0, a10 = 0, a11 = 0, a12 = 0, a13 = 0;
    float a20 = 0, a21 = 0, a22 = 0, a23 = 0, a30 = 0, a31 = 0, a32 = 0, a33 = 0;
    for (uint32_t j = 0; j < k; ++j) {
        const float v0 = x0[j], v1 = x1[j], v2 = x2[j], v3 = x3[j];
        const float c0 = w0[j], c1 = w1[j], c2 = w2[j], c3 = w3[j];
        a00 += c0 * v0; a01 += c1 * v0; a02 += c2 * v0; a03 += c3 * v0;
        a10 += c0 * v1; a11 += c1 * v1; a12 += c2 * v1; a13 += c3 * v1;
        a20 += c0 * v2; a21 += c1 * v2; a22 += c2 * v2; a23 += c3 * v2;
        a30 += c0 * v3; a31 += c1 * v3; a32 += c2 * v3; a33 += c3 * v3;
    }
    float *y0 = y + (size_t)r0 * ldy + i0, *y1 = y0 + ldy, *y2 = y1 + ldy, *y3 = y2 + ldy;
    y0[0] = a00; y0[1] = a01; y0[2] = a02; y0[3] = a03;
    y1[0] = a10; y1[1] = a11; y1[2] = a12; y1[3] = a13;
    y2[0] = a20; y2[1] = a21; y2[2] = a22; y2[3] = a23;
    y3[0] = a30; y3[1] = a31; y3[2] = a32; y3[3] = a33;
}

inline void row_times_4(const float *xr, const float *w, float *yr, uint32_t k, uint32_t i0)
{
    const float *w0 = w + (size_t)i0 * k, *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
    float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (uint32_t j = 0; j < k; ++j) {
        const float v = xr[j];
        a0 += w0[j] * v; a1 += w1[j] * v; a2 += w2[j] * v; a3 += w3[j] * v;
    }
    yr[i0] = a0; yr[i0 + 1] = a1; yr[i0 + 2] = a2; yr[i0 + 3] = a3;
}

inline float dot(const float *a, const float *b, uint32_t k)
{
    float sum = 0.0f;
    for (uint32_t j = 0; j < k; ++j) sum += a[j] * b[j];
    return sum;
}

} // namespace

tsr_kernel_status tsr_matmul_f32(const float *x, const float *w, float *y, uint32_t rows,
                                 uint32_t k, uint32_t n, uint32_t ldy, uint32_t core_id,
                                 uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(x && w && y && rows && k && n && ldy >= n);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(n, core_id, core_count, &begin, &end);
    const uint32_t i4_end = begin + ((end - begin) & ~3u);
    uint32_t r = 0;
    for (; r + 4 <= rows; r += 4) {
        for (uint32_t i = begin; i < i4_end; i += 4) block_4x4(x, w, y, k, ldy, r, i);
        for (uint32_t i = i4_end; i < end; ++i)
            for (uint32_t rr = r; rr < r + 4; ++rr)
                y[(size_t)rr * ldy + i] = dot(w + (size_t)i * k, x + (size_t)rr * k, k);
    }
    for (; r < rows; ++r) {
        const float *xr = x + (size_t)r * k;
        float *yr = y + (size_t)r * ldy;
        for (uint32_t i = begin; i < i4_end; i += 4) row_times_4(xr, w, yr, k, i);
        for (uint32_t i = i4_end; i < end; ++i) yr[i] = dot(w + (size_t)i * k, xr, k);
    }
    return TSR_KERNEL_OK;
}
