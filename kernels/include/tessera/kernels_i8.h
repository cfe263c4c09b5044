/*
 * Tessera compute kernels, int8 (W8A8, integer only), in the manner of CMSIS-NN:
 * one argument struct per operator family, every argument's range stated, a status
 * return, and a *_scratch_bytes query for the per-core scratch a call needs.
 * The shared contract of kernels.h holds (core shares, no allocation, results that
 * do not depend on core_count). No floating point is used anywhere in them: they
 * build for cores without an FPU (rv32imac) without a single soft-float call.
 *
 * Quantization: real = scale * (q - zero_point). Weights are symmetric per output
 * channel (zero point 0); activations have one scale and zero point per tensor.
 * An int32 accumulator is brought back to int8 by a per-channel multiplier and
 * shift, as CMSIS-NN's arm_nn_requantize does:
 *
 *   requantize(acc, m, s) = (acc * m) >> (31 - s), rounded half up,
 *
 * with m in [2^30, 2^31) (a Q31 number in [0.5, 1); 0 gives 0) and s in [-31, 30]:
 * the real factor scale_x * scale_w[i] / scale_y is m * 2^(s - 31).
 */
#ifndef TESSERA_KERNELS_I8_H
#define TESSERA_KERNELS_I8_H

#include "tessera/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The requantization above, exactly, saturated to int32; the kernels share it. */
static inline int32_t tsr_requantize(int32_t acc, int32_t multiplier, int32_t shift)
{
    const int64_t product = (int64_t)acc * (int64_t)multiplier;       /* |product| <= 2^62 */
    const int64_t rounded = ((product >> (30 - shift)) + 1) >> 1;     /* one bit more, then half up */
    return rounded > INT32_MAX ? INT32_MAX : rounded < INT32_MIN ? INT32_MIN : (int32_t)rounded;
}

/* y_zero + requantize(...), clamped to [y_min, y_max]. */
static inline int8_t tsr_requantize_to_i8(int32_t acc, int32_t multiplier, int32_t shift, int32_t y_zero,
                                          int32_t y_min, int32_t y_max)
{
    const int64_t v = (int64_t)y_zero + tsr_requantize(acc, multiplier, shift);
    return (int8_t)(v < y_min ? y_min : v > y_max ? y_max : v);
}

/* y[r * ldy + i] = clamp(y_zero + requantize(bias[i] + sum_j (x[r][j] - x_zero) * w[i][j],
 *                                            multiplier[i], shift[i]), y_min, y_max)
 * for r < rows, i < n, j < k (GEMM; GEMV when rows = 1). Work is split over output
 * channels i. */
typedef struct tsr_matmul_i8_args {
    const int8_t *x;            /* rows x k activations, zero point x_zero */
    const int8_t *w;            /* n x k weights, row i = output channel i, zero point 0 */
    const int32_t *bias;        /* n, each in [-2^26, 2^26], in the scale scale_x * scale_w[i]; NULL: none */
    const int32_t *multiplier;  /* n, each 0 or in [2^30, 2^31) */
    const int8_t *shift;        /* n, each in [-31, 30] */
    int8_t *y;                  /* rows x ldy */
    int32_t x_zero;             /* [-128, 127] */
    int32_t y_zero;             /* [-128, 127] */
    int32_t y_min, y_max;       /* -128 <= y_min <= y_max <= 127 */
    uint32_t rows;              /* >= 1 */
    uint32_t k;                 /* 1..32768: |accumulator| < 32768 * 255 * 127 + 2^26 < 2^31 */
    uint32_t n;                 /* >= 1 */
    uint32_t ldy;               /* >= n: the row stride of y, so a column tile is written in place */
} tsr_matmul_i8_args;

/* Per-core scratch bytes a call needs: none. */
uint32_t tsr_matmul_i8_scratch_bytes(const tsr_matmul_i8_args *args);
/* The definition, one output at a time. */
tsr_kernel_status tsr_matmul_i8_ref(const tsr_matmul_i8_args *args, uint32_t core_id, uint32_t core_count);
/* The same results, bit for bit: the zero point folded out of the inner loop, four
 * output channels per pass over a row of x, pointer increments. */
tsr_kernel_status tsr_matmul_i8(const tsr_matmul_i8_args *args, uint32_t core_id, uint32_t core_count);

#ifdef __cplusplus
}
#endif

#endif
