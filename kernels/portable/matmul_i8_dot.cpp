// The int8 matmuls' out-of-line blocks (matmul_i8_dot.h), one copy for all of them.
#include "matmul_i8_dot.h"

void tsr_i8_dot_rows8(const int8_t *x, const int8_t *w0, uint32_t k, int32_t acc[8]) { tsr_i8_dot_rows<8>(x, w0, k, acc); }

#if TSR_I8_FLOAT_BLOCKS
// A fused multiply-add where the hardware has one (RV32F's fmadd.s: one instruction per
// MAC), else a multiply and an add: exact either way here.
#ifdef __FP_FAST_FMAF
#define TSR_I8_FMA(a, b, c) __builtin_fmaf(a, b, c)
#else
#define TSR_I8_FMA(a, b, c) ((a) * (b) + (c))
#endif

// Rows of k int8 values a float block sums exactly: every product is an integer of at
// most 2^14 in magnitude and every partial sum at most 1024 x 2^14 = 2^24, so each
// float multiply and add (or fused multiply-add) is exact, in any order.
#define TSR_I8_EXACT_F32_K 1024u

// Per k, eight loads and conversions serve sixteen multiply-adds, where the integer
// loops spend a load, a multiply and an add on each (RV32 without SIMD).
void tsr_i8_dot_4x4(const int8_t *x, const int8_t *w, uint32_t k, int32_t acc[4][4])
{
    for (uint32_t r = 0; r < 4u; ++r)
        for (uint32_t c = 0; c < 4u; ++c) acc[r][c] = 0;
    for (uint32_t j0 = 0; j0 < k; j0 += TSR_I8_EXACT_F32_K) {
        const uint32_t n = k - j0 < TSR_I8_EXACT_F32_K ? k - j0 : TSR_I8_EXACT_F32_K;
        const int8_t *x0 = x + j0, *x1 = x0 + k, *x2 = x1 + k, *x3 = x2 + k;
        const int8_t *w0 = w + j0, *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
        float a00 = 0, a01 = 0, a02 = 0, a03 = 0, a10 = 0, a11 = 0, a12 = 0, a13 = 0;
        float a20 = 0, a21 = 0, a22 = 0, a23 = 0, a30 = 0, a31 = 0, a32 = 0, a33 = 0;
        // Four positions per pointer step (the loads' offsets are immediates), then the rest.
        auto step = [&](uint32_t o) {
            const float u0 = x0[o], u1 = x1[o], u2 = x2[o], u3 = x3[o];
            const float v0 = w0[o], v1 = w1[o], v2 = w2[o], v3 = w3[o];
            a00 = TSR_I8_FMA(u0, v0, a00), a01 = TSR_I8_FMA(u0, v1, a01), a02 = TSR_I8_FMA(u0, v2, a02);
            a03 = TSR_I8_FMA(u0, v3, a03), a10 = TSR_I8_FMA(u1, v0, a10), a11 = TSR_I8_FMA(u1, v1, a11);
            a12 = TSR_I8_FMA(u1, v2, a12), a13 = TSR_I8_FMA(u1, v3, a13), a20 = TSR_I8_FMA(u2, v0, a20);
            a21 = TSR_I8_FMA(u2, v1, a21), a22 = TSR_I8_FMA(u2, v2, a22), a23 = TSR_I8_FMA(u2, v3, a23);
            a30 = TSR_I8_FMA(u3, v0, a30), a31 = TSR_I8_FMA(u3, v1, a31), a32 = TSR_I8_FMA(u3, v2, a32);
            a33 = TSR_I8_FMA(u3, v3, a33);
        };
        const int8_t *end4 = x0 + (n & ~3u), *end = x0 + n;
        for (; x0 != end4; x0 += 4, x1 += 4, x2 += 4, x3 += 4, w0 += 4, w1 += 4, w2 += 4, w3 += 4)
            step(0), step(1), step(2), step(3);
        for (; x0 != end; ++x0, ++x1, ++x2, ++x3, ++w0, ++w1, ++w2, ++w3) step(0);
        acc[0][0] += (int32_t)a00, acc[0][1] += (int32_t)a01, acc[0][2] += (int32_t)a02, acc[0][3] += (int32_t)a03;
        acc[1][0] += (int32_t)a10, acc[1][1] += (int32_t)a11, acc[1][2] += (int32_t)a12, acc[1][3] += (int32_t)a13;
        acc[2][0] += (int32_t)a20, acc[2][1] += (int32_t)a21, acc[2][2] += (int32_t)a22, acc[2][3] += (int32_t)a23;
        acc[3][0] += (int32_t)a30, acc[3][1] += (int32_t)a31, acc[3][2] += (int32_t)a32, acc[3][3] += (int32_t)a33;
    }
}
#endif
