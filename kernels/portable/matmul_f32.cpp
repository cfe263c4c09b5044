#include "kernel_checks.h"
#include "kernel_math.h"

#if defined(__SSE2__) && !defined(__FP_FAST_FMAF)
#include <xmmintrin.h>
#define TSR_MATMUL_SSE 1 // the host's vectors; tsr_mac there is a multiply then an add
#endif

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
//  - On x86 (SSE), the same blocks hold four outputs in each vector register: four
//    weight rows are loaded four inputs at a time and transposed, so that a lane
//    still adds its row's products one input after the other.
namespace {

#if TSR_MATMUL_SSE
// Columns j..j+3 of four weight rows, transposed: c[m] = (w0[j+m], ..., w3[j+m]).
inline void load_columns4(const float *w0, const float *w1, const float *w2, const float *w3, __m128 c[4])
{
    __m128 r0 = _mm_loadu_ps(w0), r1 = _mm_loadu_ps(w1), r2 = _mm_loadu_ps(w2), r3 = _mm_loadu_ps(w3);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    c[0] = r0, c[1] = r1, c[2] = r2, c[3] = r3;
}
inline __m128 column1(const float *w0, const float *w1, const float *w2, const float *w3)
{
    return _mm_setr_ps(*w0, *w1, *w2, *w3);
}
inline __m128 mac4(__m128 acc, __m128 c, float v) { return _mm_add_ps(acc, _mm_mul_ps(c, _mm_set1_ps(v))); }
#endif

inline void block_4x4(const float *x, const float *w, float *y, uint32_t k, uint32_t ldy, uint32_t r0,
                      uint32_t i0)
{
    const float *x0 = x + (size_t)r0 * k, *x1 = x0 + k, *x2 = x1 + k, *x3 = x2 + k;
    const float *w0 = w + (size_t)i0 * k, *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
#if TSR_MATMUL_SSE
    {
        __m128 a0 = _mm_setzero_ps(), a1 = a0, a2 = a0, a3 = a0; // a_r: row r, outputs i0..i0+3
        uint32_t j = 0;
        for (; j + 4u <= k; j += 4u) {
            __m128 c[4];
            load_columns4(w0 + j, w1 + j, w2 + j, w3 + j, c);
            for (uint32_t m = 0; m < 4u; ++m) {
                a0 = mac4(a0, c[m], x0[j + m]);
                a1 = mac4(a1, c[m], x1[j + m]);
                a2 = mac4(a2, c[m], x2[j + m]);
                a3 = mac4(a3, c[m], x3[j + m]);
            }
        }
        for (; j < k; ++j) {
            const __m128 c = column1(w0 + j, w1 + j, w2 + j, w3 + j);
            a0 = mac4(a0, c, x0[j]), a1 = mac4(a1, c, x1[j]), a2 = mac4(a2, c, x2[j]), a3 = mac4(a3, c, x3[j]);
        }
        float *y0 = y + (size_t)r0 * ldy + i0;
        _mm_storeu_ps(y0, a0);
        _mm_storeu_ps(y0 + ldy, a1);
        _mm_storeu_ps(y0 + 2 * (size_t)ldy, a2);
        _mm_storeu_ps(y0 + 3 * (size_t)ldy, a3);
        return;
    }
#endif
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
#if TSR_MATMUL_SSE
    {
        __m128 lo = _mm_setzero_ps(), hi = lo; // outputs i0..i0+3, i0+4..i0+7
        uint32_t j = 0;
        for (; j + 4u <= k; j += 4u) {
            __m128 c[4], d[4];
            load_columns4(w0 + j, w1 + j, w2 + j, w3 + j, c);
            load_columns4(w4 + j, w5 + j, w6 + j, w7 + j, d);
            for (uint32_t m = 0; m < 4u; ++m) {
                lo = mac4(lo, c[m], xr[j + m]);
                hi = mac4(hi, d[m], xr[j + m]);
            }
        }
        for (; j < k; ++j) {
            lo = mac4(lo, column1(w0 + j, w1 + j, w2 + j, w3 + j), xr[j]);
            hi = mac4(hi, column1(w4 + j, w5 + j, w6 + j, w7 + j), xr[j]);
        }
        _mm_storeu_ps(yr + i0, lo);
        _mm_storeu_ps(yr + i0 + 4, hi);
        return;
    }
#endif
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
#if TSR_MATMUL_SSE
    {
        __m128 a = _mm_setzero_ps();
        uint32_t j = 0;
        for (; j + 4u <= k; j += 4u) {
            __m128 c[4];
            load_columns4(w0 + j, w1 + j, w2 + j, w3 + j, c);
            for (uint32_t m = 0; m < 4u; ++m) a = mac4(a, c[m], xr[j + m]);
        }
        for (; j < k; ++j) a = mac4(a, column1(w0 + j, w1 + j, w2 + j, w3 + j), xr[j]);
        _mm_storeu_ps(yr + i0, a);
        return;
    }
#endif
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

inline float dot(const float *w, const float *x, uint32_t k)
{
    float sum = 0.0f;
    for (uint32_t j = 0; j < k; ++j) sum = tsr_mac(sum, w[j], x[j]);
    return sum;
}

} // namespace

tsr_kernel_status tsr_matmul_f32(const float *x, const float *w, float *y, uint32_t rows,
                                 uint32_t k, uint32_t n, uint32_t ldy, uint32_t core_id,
                                 uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(x && w && y && rows && k && n && ldy >= n);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t g0, g1; // groups of four columns: blocks stay whole on one core
    tsr_core_range((n + 3u) / 4u, core_id, core_count, &g0, &g1);
    const uint32_t begin = 4u * g0, end = 4u * g1 < n ? 4u * g1 : n;
    const uint32_t i4_end = begin + ((end - begin) & ~3u);
    uint32_t r = 0;
    for (; r + 4 <= rows; r += 4) {
        for (uint32_t i = begin; i < i4_end; i += 4) block_4x4(x, w, y, k, ldy, r, i);
        for (uint32_t i = i4_end; i < end; ++i)
            for (uint32_t rr = r; rr < r + 4; ++rr) y[(size_t)rr * ldy + i] = dot(w + (size_t)i * k, x + (size_t)rr * k, k);
    }
    for (; r < rows; ++r) {
        const float *xr = x + (size_t)r * k;
        float *yr = y + (size_t)r * ldy;
        uint32_t i = begin;
        for (; i + 8u <= i4_end; i += 8u) row_block8(xr, w, yr, k, i);
        for (; i < i4_end; i += 4u) row_block4(xr, w, yr, k, i);
        for (; i < end; ++i) yr[i] = dot(w + (size_t)i * k, xr, k);
    }
    return TSR_KERNEL_OK;
}
