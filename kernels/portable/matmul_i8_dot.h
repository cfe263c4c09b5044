// The inner loops of the int8 matmuls (requantizing and dequantizing): dot products
// of a row of x with one, four or eight weight rows, the channels sharing each load of
// x, pointers stepping four bytes at a time, no index arithmetic in the loop.
#ifndef TESSERA_MATMUL_I8_DOT_H
#define TESSERA_MATMUL_I8_DOT_H

#include <stddef.h>
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

// The same for eight rows, out of line (matmul_i8_dot.cpp: one copy for every int8
// matmul), away from the drivers below: their own live values would push its sixteen
// pointers and sums out of a core's registers.
void tsr_i8_dot_rows8(const int8_t *x, const int8_t *w0, uint32_t k, int32_t acc[8]);

// Whether the exact float blocks run: on hardware floats (a core without an FPU would
// emulate them, slower than the integer loops), and not where the build asks for size
// (-Os: the integer loops are the smaller code).
#if (defined(__riscv) && !defined(__riscv_flen)) || (defined(__arm__) && !defined(__ARM_FP)) || defined(__OPTIMIZE_SIZE__)
#define TSR_I8_FLOAT_BLOCKS 0
#else
#define TSR_I8_FLOAT_BLOCKS 1
#endif

// acc[r][c] = x_r . w_c for four rows of x (stride k) and four weight rows (stride k), in
// float where that is exact (matmul_i8_dot.cpp): the same integers as the integer loops.
void tsr_i8_dot_4x4(const int8_t *x, const int8_t *w, uint32_t k, int32_t acc[4][4]);

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
#if TSR_I8_FLOAT_BLOCKS
        if (block >= 4u)
            for (; r + 4u <= rows; r += 4u) {
                int32_t acc[4][8], part[4][4];
                for (uint32_t half = 0; half < block; half += 4u) {
                    tsr_i8_dot_4x4(x + (size_t)r * k, wi + (size_t)half * k, k, part);
                    for (uint32_t q = 0; q < 4u; ++q)
                        for (uint32_t c = 0; c < 4u; ++c) acc[q][half + c] = part[q][c];
                }
                for (uint32_t q = 0; q < 4u; ++q) store(r + q, i, block, acc[q]);
            }
#endif
#ifndef __OPTIMIZE_SIZE__
        if (block == 1u) // one channel: eight, then four, rows share each load of its weights
            for (; r + 4u <= rows;) {
                int32_t acc[8];
                const uint32_t n = rows - r >= 8u ? 8u : 4u;
                if (n == 8u) tsr_i8_dot_rows8(wi, x + (size_t)r * k, k, acc);
                else tsr_i8_dot_rows<4>(wi, x + (size_t)r * k, k, acc);
                for (uint32_t q = 0; q < n; ++q) store(r + q, i, 1u, acc + q);
                r += n;
            }
#endif
        for (; r < rows; ++r) {
            int32_t acc[8];
            const int8_t *xr = x + (size_t)r * k;
            if (block == 8u) tsr_i8_dot_rows8(xr, wi, k, acc);
            else if (block == 4u) tsr_i8_dot_rows<4>(xr, wi, k, acc);
            else tsr_i8_dot_rows<1>(xr, wi, k, acc);
            store(r, i, block, acc);
        }
        i += block;
    }
}

#endif
