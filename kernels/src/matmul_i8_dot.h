// The inner loops of the int8 matmuls (requantizing and dequantizing): dot products
// of a row of x with one or four weight rows, four channels sharing each load of x,
// pointers stepping, no index arithmetic in the loop.
#ifndef TESSERA_MATMUL_I8_DOT_H
#define TESSERA_MATMUL_I8_DOT_H

#include <stdint.h>

static inline int32_t tsr_i8_row_sum(const int8_t *w, uint32_t k)
{
    int32_t s = 0;
    for (uint32_t j = 0; j < k; ++j) s += w[j];
    return s;
}

static inline void tsr_i8_dot4(const int8_t *x, const int8_t *w0, uint32_t k, int32_t acc[4])
{
    const int8_t *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (const int8_t *end = x + k; x != end; ++x) {
        const int32_t v = *x;
        a0 += v * *w0++;
        a1 += v * *w1++;
        a2 += v * *w2++;
        a3 += v * *w3++;
    }
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

static inline int32_t tsr_i8_dot(const int8_t *x, const int8_t *w, uint32_t k)
{
    int32_t a = 0;
    for (const int8_t *end = x + k; x != end; ++x) a += (int32_t)*x * *w++;
    return a;
}

// x (rows x k) times weight rows [begin, end) (n x k), four channels at a time
// (one at the tail): prepare(i, block) once per block of channels i.., then
// store(r, i, block, acc) with each row's accumulators.
template <typename Prepare, typename Store>
static inline void tsr_i8_channel_blocks(const int8_t *x, const int8_t *w, uint32_t rows, uint32_t k, uint32_t begin,
                                         uint32_t end, Prepare prepare, Store store)
{
    for (uint32_t i = begin; i < end;) {
        const uint32_t block = end - i >= 4u ? 4u : 1u;
        prepare(i, block);
        for (uint32_t r = 0; r < rows; ++r) {
            int32_t acc[4];
            if (block == 4u) tsr_i8_dot4(x + (size_t)r * k, w + (size_t)i * k, k, acc);
            else acc[0] = tsr_i8_dot(x + (size_t)r * k, w + (size_t)i * k, k);
            store(r, i, block, acc);
        }
        i += block;
    }
}

#endif
