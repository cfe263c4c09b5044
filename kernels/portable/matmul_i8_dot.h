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

static inline int32_t tsr_i8_dot(const int8_t *x, const int8_t *w, uint32_t k)
{
    int32_t a = 0;
    for (const int8_t *end = x + k; x != end; ++x) a += (int32_t)*x * *w++;
    return a;
}

// x (rows x k) times weight rows [begin, end) (n x k), eight channels at a time
// (four, then one, at the tail): prepare(i, block) once per block of channels i.., then
// store(r, i, block, acc) with each row's accumulators.
template <typename Prepare, typename Store>
static inline void tsr_i8_channel_blocks(const int8_t *x, const int8_t *w, uint32_t rows, uint32_t k, uint32_t begin,
                                         uint32_t end, Prepare prepare, Store store)
{
    for (uint32_t i = begin; i < end;) {
        const uint32_t block = end - i >= 8u ? 8u : end - i >= 4u ? 4u : 1u;
        prepare(i, block);
        for (uint32_t r = 0; r < rows; ++r) {
            int32_t acc[8];
            const int8_t *xr = x + (size_t)r * k, *wi = w + (size_t)i * k;
            if (block == 8u) tsr_i8_dot_rows<8>(xr, wi, k, acc);
            else if (block == 4u) tsr_i8_dot_rows<4>(xr, wi, k, acc);
            else acc[0] = tsr_i8_dot(xr, wi, k);
            store(r, i, block, acc);
        }
        i += block;
    }
}

#endif
