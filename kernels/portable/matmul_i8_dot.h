// The inner loops of the int8 matmuls (requantizing and dequantizing): dot products
// of a row of x with one, four or eight weight rows, the channels sharing each load of
// x, pointers stepping four bytes at a time, no index arithmetic in the loop.
#ifndef TESSERA_MATMUL_I8_DOT_H
#define TESSERA_MATMUL_I8_DOT_H

#include <stdint.h>

static inline int32_t tsr_i8_row_sum(const int8_t *w, uint32_t k)
{
    int32_t s = 0;
    for (uint32_t j = 0; j < k; ++j) s += w[j];
    return s;
}

// x . w_c for C weight rows w0, w0 + k, ...: k unrolled by four so that one pointer
// step serves four products per row (RV32 without SIMD: a load, a multiply and an
// add per MAC, plus the steps).
template <uint32_t C>
static inline void tsr_i8_dot_rows(const int8_t *x, const int8_t *w0, uint32_t k, int32_t acc[C])
{
    const int8_t *w[C];
    int32_t a[C];
#pragma GCC unroll 8
    for (uint32_t c = 0; c < C; ++c) w[c] = w0 + (size_t)c * k, a[c] = 0;
    const int8_t *end4 = x + (k & ~3u), *end = x + k;
    for (; x != end4; x += 4) {
        const int32_t x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
#pragma GCC unroll 8
        for (uint32_t c = 0; c < C; ++c) {
            a[c] += x0 * w[c][0] + x1 * w[c][1] + x2 * w[c][2] + x3 * w[c][3];
            w[c] += 4;
        }
    }
    for (; x != end; ++x) {
        const int32_t v = *x;
#pragma GCC unroll 8
        for (uint32_t c = 0; c < C; ++c) a[c] += v * *w[c]++;
    }
#pragma GCC unroll 8
    for (uint32_t c = 0; c < C; ++c) acc[c] = a[c];
}

// The same for eight rows, not inlined into the drivers below: their own live values
// would push its sixteen pointers and sums out of a core's registers.
__attribute__((noinline)) static void tsr_i8_dot_rows8(const int8_t *x, const int8_t *w0, uint32_t k, int32_t acc[8])
{
    tsr_i8_dot_rows<8>(x, w0, k, acc);
}

static inline int32_t tsr_i8_dot(const int8_t *x, const int8_t *w, uint32_t k)
{
    int32_t a = 0;
    for (const int8_t *end = x + k; x != end; ++x) a += (int32_t)*x * *w++;
    return a;
}

// Whether the exact float blocks below run on hardware (a core without an FPU would
// emulate them: slower than the integer loops).
#if (defined(__riscv) && !defined(__riscv_flen)) || (defined(__arm__) && !defined(__ARM_FP))
#define TSR_I8_FLOAT_BLOCKS 0
#else
#define TSR_I8_FLOAT_BLOCKS 1
#endif

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

// acc[r][c] = x_r . w_c for four rows of x (stride k) and four weight rows (stride k),
// in float where that is exact (the same integers as the integer loops): per k, eight
// loads and conversions serve sixteen multiply-adds, where the integer loops spend a
// load, a multiply and an add on each (RV32 without SIMD).
__attribute__((noinline)) static void tsr_i8_dot_4x4(const int8_t *x, const int8_t *w, uint32_t k, int32_t acc[4][4])
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

// x (rows x k) times weight rows [begin, end) (n x k), eight channels at a time
// (four, then one, at the tail): prepare(i, block) once per block of channels i.., then
// store(r, i, block, acc) with each row's accumulators. Four rows at a time go through
// the exact float blocks (TSR_I8_FLOAT_BLOCKS), the other rows through the integer loops
// (a lone channel with the rows as the shared operand).
template <typename Prepare, typename Store>
static inline void tsr_i8_channel_blocks(const int8_t *x, const int8_t *w, uint32_t rows, uint32_t k, uint32_t begin,
                                         uint32_t end, Prepare prepare, Store store)
{
    for (uint32_t i = begin; i < end;) {
        const uint32_t block = end - i >= 8u ? 8u : end - i >= 4u ? 4u : 1u;
        prepare(i, block);
        const int8_t *wi = w + (size_t)i * k;
        uint32_t r = 0;
        if (TSR_I8_FLOAT_BLOCKS && block >= 4u)
            for (; r + 4u <= rows; r += 4u) {
                int32_t acc[4][8], part[4][4];
                for (uint32_t half = 0; half < block; half += 4u) {
                    tsr_i8_dot_4x4(x + (size_t)r * k, wi + (size_t)half * k, k, part);
                    for (uint32_t q = 0; q < 4u; ++q)
                        for (uint32_t c = 0; c < 4u; ++c) acc[q][half + c] = part[q][c];
                }
                for (uint32_t q = 0; q < 4u; ++q) store(r + q, i, block, acc[q]);
            }
        if (block == 1u) // one channel: eight, then four, rows share each load of its weights
            for (; r + 4u <= rows;) {
                int32_t acc[8];
                const uint32_t n = rows - r >= 8u ? 8u : 4u;
                if (n == 8u) tsr_i8_dot_rows8(wi, x + (size_t)r * k, k, acc);
                else tsr_i8_dot_rows<4>(wi, x + (size_t)r * k, k, acc);
                for (uint32_t q = 0; q < n; ++q) store(r + q, i, 1u, acc + q);
                r += n;
            }
        for (; r < rows; ++r) {
            int32_t acc[8];
            const int8_t *xr = x + (size_t)r * k;
            if (block == 8u) tsr_i8_dot_rows8(xr, wi, k, acc);
            else if (block == 4u) tsr_i8_dot_rows<4>(xr, wi, k, acc);
            else acc[0] = tsr_i8_dot(xr, wi, k);
            store(r, i, block, acc);
        }
        i += block;
    }
}

#endif
