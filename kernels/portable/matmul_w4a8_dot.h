// The W4A8 kernels' inner product: sum_{j in group} x_j w_j for a whole group of 32
// (16 bytes) or a partial last one, a byte's two weights unpacked together.
#ifndef TESSERA_MATMUL_W4A8_DOT_H
#define TESSERA_MATMUL_W4A8_DOT_H

#include <stdint.h>

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

#endif
