// tsr_matmul_f32's blocks in SSE vectors (the x86 set): four outputs in each register;
// four weight rows are loaded four inputs at a time and transposed, so that a lane still
// adds its row's products one input after the other, a multiply then an add as the
// portable kernel's tsr_mac without FMA: the reference's bits.
#include <xmmintrin.h>

#include "matmul_f32_driver.h"
#include "tessera/kernels_x86.h"

namespace {

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

struct SseBlocks {
    static void block_4x4(const float *x, const float *w, float *y, uint32_t k, uint32_t ldy, uint32_t r0, uint32_t i0)
    {
        const float *x0 = x + (size_t)r0 * k, *x1 = x0 + k, *x2 = x1 + k, *x3 = x2 + k;
        const float *w0 = w + (size_t)i0 * k, *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
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
    }
    // Outputs yr[i0..i0+8) of one activation row.
    static void row_block8(const float *xr, const float *w, float *yr, uint32_t k, uint32_t i0)
    {
        const float *w0 = w + (size_t)i0 * k, *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
        const float *w4 = w3 + k, *w5 = w4 + k, *w6 = w5 + k, *w7 = w6 + k;
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
    }
    static void row_block4(const float *xr, const float *w, float *yr, uint32_t k, uint32_t i0)
    {
        const float *w0 = w + (size_t)i0 * k, *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
        __m128 a = _mm_setzero_ps();
        uint32_t j = 0;
        for (; j + 4u <= k; j += 4u) {
            __m128 c[4];
            load_columns4(w0 + j, w1 + j, w2 + j, w3 + j, c);
            for (uint32_t m = 0; m < 4u; ++m) a = mac4(a, c[m], xr[j + m]);
        }
        for (; j < k; ++j) a = mac4(a, column1(w0 + j, w1 + j, w2 + j, w3 + j), xr[j]);
        _mm_storeu_ps(yr + i0, a);
    }
};

} // namespace

tsr_kernel_status tsr_matmul_f32_sse(const float *x, const float *w, float *y, uint32_t rows, uint32_t k, uint32_t n,
                                     uint32_t ldy, uint32_t core_id, uint32_t core_count)
{
    return tsr_matmul_f32_blocks<SseBlocks>(x, w, y, rows, k, n, ldy, core_id, core_count);
}
