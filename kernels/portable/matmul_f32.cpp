#include "matmul_f32_driver.h"

// Optimized matmul. Register blocking instead of reordering sums: every output is
// still accumulated in index order with the same multiply-adds as the reference, so
// it matches it to the last bit, and results do not depend on how the work is split
// across cores (columns, in groups of four).
//
//  - GEMM (rows >= 4): a 4x4 block of outputs per inner loop, so each weight and
//    each activation value loaded is used four times.
//  - GEMV (rows < 4): eight weight rows against one activation row, eight inputs
//    per iteration: 8 + 64 loads and 64 multiply-adds for 64 MACs, plus the
//    pointer steps (about 2.3 instructions per MAC on RV32 with F).
//  (kernels/x86/matmul_f32_sse.cpp: the same blocks in SSE vectors.)
namespace {


inline void block_4x4(const float *x, const float *w, float *y, uint32_t k, uint32_t ldy, uint32_t r0,
                      uint32_t i0)
{
    const float *x0 = x + (size_t)r0 * k, *x1 = x0 + k, *x2 = x1 + k, *x3 = x2 + k;
    const float *w0 = w + (size_t)i0 * k, *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
    float a00 = 0, a01 = 0, a02 = 0, a03 = 0, a10 = 0, a11 = 0, a12 = 0, a13 = 0;
    float a20 = 0, a21 = 0, a22 = 0, a23 = 0, a30 = 0, a31 = 0, a32 = 0, a33 = 0;
    for (uint32_t j = 0; j < k; ++j) {
        const float v0 = x0[j], v1 = x1[j], v2 = x2[j], v3 = x3[j];
        const float c0 = w0[j], c1 = w1[j], c2 = w2[j], c3 = w3[j];
        a00 = tsr_mac(a00, c0, v0); a01 = tsr_mac(a01, c1, v0); a02 = tsr_mac(a02, c2, v0); a03 = tsr_mac(a03, c3, v0);
        a10 = tsr_mac(a10, c0, v1); a11 = tsr_mac(a11, c1, v1); a12 = tsr_mac(a12, c2, v1); a13 = tsr_mac(a13, c3, v1);
        a20 = tsr_mac(a20, c0, v2); a21 = tsr_mac(a21, c1, v2); a22 = tsr_mac(a22, c2, v2); a23 = tsr_mac(a23, c3, v2);
        a30 = tsr_mac(a30, c0, v3); a31 = tsr_mac(a31, c1, v3); a32 = tsr_mac(a32, c2, v3); a33 = tsr_mac(a33, c3, v3);
    }
    float *y0 = y + (size_t)r0 * ldy + i0, *y1 = y0 + ldy, *y2 = y1 + ldy, *y3 = y2 + ldy;
    y0[0] = a00; y0[1] = a01; y0[2] = a02; y0[3] = a03;
    y1[0] = a10; y1[1] = a11; y1[2] = a12; y1[3] = a13;
    y2[0] = a20; y2[1] = a21; y2[2] = a22; y2[3] = a23;
    y3[0] = a30; y3[1] = a31; y3[2] = a32; y3[3] = a33;
}

// s + c[0] v0 + ... + c[7] v7, added in that order.
inline float mac8(float s, const float *c, float v0, float v1, float v2, float v3, float v4, float v5, float v6,
                  float v7)
{
    s = tsr_mac(s, c[0], v0); s = tsr_mac(s, c[1], v1); s = tsr_mac(s, c[2], v2); s = tsr_mac(s, c[3], v3);
    s = tsr_mac(s, c[4], v4); s = tsr_mac(s, c[5], v5); s = tsr_mac(s, c[6], v6); s = tsr_mac(s, c[7], v7);
    return s;
}

// Outputs yr[i0..i0+8) of one activation row: eight weight rows, eight inputs a
// step; plain locals so that every accumulator and row pointer stays in a register.
inline void row_block8(const float *xr, const float *w, float *yr, uint32_t k, uint32_t i0)
{
    const float *w0 = w + (size_t)i0 * k, *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
    const float *w4 = w3 + k, *w5 = w4 + k, *w6 = w5 + k, *w7 = w6 + k;
    float a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
    const float *xp = xr;
    uint32_t left = k;
    for (; left >= 8u; left -= 8u, xp += 8, w0 += 8, w1 += 8, w2 += 8, w3 += 8, w4 += 8, w5 += 8, w6 += 8, w7 += 8) {
        const float v0 = xp[0], v1 = xp[1], v2 = xp[2], v3 = xp[3], v4 = xp[4], v5 = xp[5], v6 = xp[6], v7 = xp[7];
        a0 = mac8(a0, w0, v0, v1, v2, v3, v4, v5, v6, v7);
        a1 = mac8(a1, w1, v0, v1, v2, v3, v4, v5, v6, v7);
        a2 = mac8(a2, w2, v0, v1, v2, v3, v4, v5, v6, v7);
        a3 = mac8(a3, w3, v0, v1, v2, v3, v4, v5, v6, v7);
        a4 = mac8(a4, w4, v0, v1, v2, v3, v4, v5, v6, v7);
        a5 = mac8(a5, w5, v0, v1, v2, v3, v4, v5, v6, v7);
        a6 = mac8(a6, w6, v0, v1, v2, v3, v4, v5, v6, v7);
        a7 = mac8(a7, w7, v0, v1, v2, v3, v4, v5, v6, v7);
    }
    for (; left > 0u; --left) {
        const float v = *xp++;
        a0 = tsr_mac(a0, *w0++, v); a1 = tsr_mac(a1, *w1++, v); a2 = tsr_mac(a2, *w2++, v); a3 = tsr_mac(a3, *w3++, v);
        a4 = tsr_mac(a4, *w4++, v); a5 = tsr_mac(a5, *w5++, v); a6 = tsr_mac(a6, *w6++, v); a7 = tsr_mac(a7, *w7++, v);
    }
    float *y = yr + i0;
    y[0] = a0, y[1] = a1, y[2] = a2, y[3] = a3, y[4] = a4, y[5] = a5, y[6] = a6, y[7] = a7;
}

// The same for four outputs.
inline void row_block4(const float *xr, const float *w, float *yr, uint32_t k, uint32_t i0)
{
    const float *w0 = w + (size_t)i0 * k, *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
    float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    const float *xp = xr;
    uint32_t left = k;
    for (; left >= 8u; left -= 8u, xp += 8, w0 += 8, w1 += 8, w2 += 8, w3 += 8) {
        const float v0 = xp[0], v1 = xp[1], v2 = xp[2], v3 = xp[3], v4 = xp[4], v5 = xp[5], v6 = xp[6], v7 = xp[7];
        a0 = mac8(a0, w0, v0, v1, v2, v3, v4, v5, v6, v7);
        a1 = mac8(a1, w1, v0, v1, v2, v3, v4, v5, v6, v7);
        a2 = mac8(a2, w2, v0, v1, v2, v3, v4, v5, v6, v7);
        a3 = mac8(a3, w3, v0, v1, v2, v3, v4, v5, v6, v7);
    }
    for (; left > 0u; --left) {
        const float v = *xp++;
        a0 = tsr_mac(a0, *w0++, v); a1 = tsr_mac(a1, *w1++, v); a2 = tsr_mac(a2, *w2++, v); a3 = tsr_mac(a3, *w3++, v);
    }
    float *y = yr + i0;
    y[0] = a0, y[1] = a1, y[2] = a2, y[3] = a3;
}

} // namespace

tsr_kernel_status tsr_matmul_f32(const float *x, const float *w, float *y, uint32_t rows, uint32_t k, uint32_t n,
                                 uint32_t ldy, uint32_t core_id, uint32_t core_count)
{
    struct Blocks {
        static void block_4x4(const float *x, const float *w, float *y, uint32_t k, uint32_t ldy, uint32_t r0, uint32_t i0)
        {
            ::block_4x4(x, w, y, k, ldy, r0, i0);
        }
        static void row_block8(const float *xr, const float *w, float *yr, uint32_t k, uint32_t i0) { ::row_block8(xr, w, yr, k, i0); }
        static void row_block4(const float *xr, const float *w, float *yr, uint32_t k, uint32_t i0) { ::row_block4(xr, w, yr, k, i0); }
    };
    return tsr_matmul_f32_blocks<Blocks>(x, w, y, rows, k, n, ldy, core_id, core_count);
}
