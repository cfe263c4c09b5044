/*
 * int8 tensors with float arithmetic where an FPU makes it cheap (the packer's
 * "float non-linearities" variant, and the dequantizing classifier): the inputs and
 * outputs are int8 (symmetric, zero point 0) as in kernels_i8.h; in between, values
 * are dequantized, computed in single precision and requantized by rounding half
 * away from zero and saturating to [-127, 127]. These live in objects of their own:
 * the integer-only kernels (kernels_i8.h) never reference floating point.
 */
#ifndef TESSERA_KERNELS_I8_FLOAT_H
#define TESSERA_KERNELS_I8_FLOAT_H

#include "tessera/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* y[r * ldy + i] = (float)(sum_j x[r][j] w[i][j]) * scale[i]: an int8 GEMM whose output
 * is dequantized (the logits). rows >= 1, 1 <= k <= 32768, n >= 1, ldy >= n; split over
 * output channels i. */
typedef struct tsr_matmul_i8_f32_args {
    const int8_t *x;    /* rows x k */
    const int8_t *w;    /* n x k */
    const float *scale; /* n: scale_x * scale_w[i] */
    float *y;           /* rows x ldy */
    uint32_t rows, k, n, ldy;
} tsr_matmul_i8_f32_args;
uint32_t tsr_matmul_i8_f32_scratch_bytes(const tsr_matmul_i8_f32_args *args); /* none */
tsr_kernel_status tsr_matmul_i8_f32_ref(const tsr_matmul_i8_f32_args *args, uint32_t core_id, uint32_t core_count);
tsr_kernel_status tsr_matmul_i8_f32(const tsr_matmul_i8_f32_args *args, uint32_t core_id, uint32_t core_count);

/* The same with W4A8's weights (tsr_matmul_w4a8_args' rows: 4-bit, groups of 32 with an
 * 8-bit scale each): y[r * ldy + i] = (float)(sum_g gs[i][g] sum_{j in g} x[r][j] w[i][j])
 * * scale[i], scale[i] = scale_x scale_w[i]; 1 <= k <= 2048. The classifier of a W4A8
 * image whose embedding table it shares. */
typedef struct tsr_matmul_w4a8_f32_args {
    const int8_t *x;    /* rows x k, symmetric */
    const uint8_t *w;   /* n rows of tsr_w4_row_bytes(k) bytes */
    const float *scale; /* n */
    float *y;           /* rows x ldy */
    uint32_t rows, k, n, ldy;
} tsr_matmul_w4a8_f32_args;
tsr_kernel_status tsr_matmul_w4a8_f32_ref(const tsr_matmul_w4a8_f32_args *args, uint32_t core_id, uint32_t core_count);
tsr_kernel_status tsr_matmul_w4a8_f32(const tsr_matmul_w4a8_f32_args *args, uint32_t core_id, uint32_t core_count);

/* y = requantize(g[i] x[i] / sqrt(mean(x^2) + eps) * out_scale): RMSNorm of int8 rows
 * (rows x dim, dim >= 1) with int8 gain g; eps = eps / scale_x^2 (> 0), out_scale =
 * scale_g / scale_y (> 0). Split over rows. y may equal x. */
tsr_kernel_status tsr_rmsnorm_i8_float(const int8_t *x, const int8_t *weight, int8_t *y, uint32_t rows, uint32_t dim,
                                       float eps, float out_scale, uint32_t core_id, uint32_t core_count);

/* y = requantize(silu(gate_scale g) up * out_scale / gate_scale), out_scale = scale_gate
 * scale_up / scale_y: SwiGLU of count >= 1 int8 pairs. Split over elements. */
tsr_kernel_status tsr_swiglu_i8_float(const int8_t *gate, const int8_t *up, int8_t *y, uint32_t count,
                                      float gate_scale, float out_scale, uint32_t core_id, uint32_t core_count);

/* Attention pieces for one (row, head), as tsr_attention_scores_f32 / _accumulate_f32:
 * scores[t] = score_scale * sum_d q[d] keys[t][d] (real scores; then tsr_softmax_f32),
 * acc[d] += sum_t probs[t] values[t][d] (in the values' scale), and the output
 * out[d] = requantize(acc[d] * out_scale). count >= 1, head_size >= 1. */
tsr_kernel_status tsr_attention_scores_i8_float(const int8_t *q, const int8_t *keys, float *scores, uint32_t count,
                                                uint32_t head_size, float score_scale);
tsr_kernel_status tsr_attention_accumulate_i8_float(const float *probs, const int8_t *values, float *acc,
                                                    uint32_t count, uint32_t head_size);
void tsr_attention_output_i8_float(const float *acc, int8_t *out, uint32_t head_size, float out_scale);
/* One (row, head)'s scratch: as tsr_attention_bf16_scratch_bytes, fp32 scores then fp32
 * accumulators at byte 4 x context. */
uint32_t tsr_attention_i8_float_scratch_bytes(uint32_t context, uint32_t head_size);

#ifdef __cplusplus
}
#endif

#endif
