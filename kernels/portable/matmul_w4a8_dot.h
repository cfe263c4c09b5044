// The W4A8 kernels' inner product: sum_{j in group} x_j w_j for a whole group of 32
// (16 bytes) or a partial last one, a byte's two weights unpacked together.
#ifndef TESSERA_MATMUL_W4A8_DOT_H
#define TESSERA_MATMUL_W4A8_DOT_H

#include <stdint.h>

#include "matmul_w4a8_checks.h"

static inline int32_t tsr_w4_group_dot(const int8_t *x, const uint8_t *w, uint32_t count)
{
    int32_t even = 0, odd = 0;
    uint32_t j = 0;
    for (; j + 1u < count; j += 2u) {
        const uint32_t b = w[j / 2u];
        const int32_t lo = (int32_t)(int8_t)(uint8_t)(b << 4) >> 4, hi = (int32_t)(int8_t)(uint8_t)b >> 4;
        even += (int32_t)x[j] * lo;
        odd += (int32_t)x[j + 1u] * hi;
    }
    if (j < count) even += (int32_t)x[j] * ((int32_t)(int8_t)(uint8_t)(w[j / 2u] << 4) >> 4);
    return even + odd;
}

// sum_g gs_g sum_{j in g} x_j w_j over a whole W4_G32 row of k weights (its group scales
// follow its ceil(k/2) bytes): the product both W4A8 kernels requantize or dequantize.
static inline int32_t tsr_w4_row_dot(const int8_t *x, const uint8_t *w, uint32_t k)
{
    const uint8_t *gs = w + (k + 1u) / 2u;
    int32_t acc = 0;
    for (uint32_t j = 0, g = 0; j < k; j += 32u, ++g)
        acc += (int32_t)gs[g] * tsr_w4_group_dot(x + j, w + j / 2u, k - j < 32u ? k - j : 32u);
    return acc;
}

// sum_g gs_g sum_{j in g} w_j over a W4_G32 row of k weights: the zero point's share of a
// channel (x_zero times it comes off the channel's sums).
static inline int32_t tsr_w4_weight_sum(const uint8_t *w, uint32_t k)
{
    const uint8_t *gs = w + (k + 1u) / 2u;
    int32_t total = 0;
    for (uint32_t g = 0; 32u * g < k; ++g) {
        int32_t sum = 0;
        for (uint32_t j = 32u * g; j < k && j < 32u * g + 32u; ++j) sum += tsr_w4_at(w, j);
        total += (int32_t)gs[g] * sum;
    }
    return total;
}

#endif
