/*
 * Tessera compute kernels, bf16: bf16 operands, fp32 accumulation, one rounding to
 * bf16 per output (round to nearest even), as PULP-TrainLib runs transformers on
 * GAP9. The shared contract of kernels.h holds. Argument structs as in kernels_i8.h.
 *
 * The exponential of softmax and SiLU is selectable: TSR_EXP_ACCURATE (tsr_expf,
 * 2 ulp) or TSR_EXP_SCHRAUDOLPH, the bit trick of the seed paper (Schraudolph 1999:
 * the bits of e^x as an integer are about 2^23 (x / ln 2 + 127); error under 6.2 %).
 */
#ifndef TESSERA_KERNELS_BF16_H
#define TESSERA_KERNELS_BF16_H

#include "tessera/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint16_t tsr_bf16; /* the upper half of an IEEE binary32 */

static inline float tsr_f32_from_bf16(tsr_bf16 v)
{
    const uint32_t bits = (uint32_t)v << 16;
    float f;
    __builtin_memcpy(&f, &bits, sizeof f);
    return f;
}

/* Round to nearest even; a NaN stays a (quiet) NaN, infinities stay. */
static inline tsr_bf16 tsr_bf16_from_f32(float f)
{
    uint32_t bits;
    __builtin_memcpy(&bits, &f, sizeof bits);
    if ((bits & 0x7F800000u) == 0x7F800000u && (bits & 0x007FFFFFu) != 0u) return (tsr_bf16)((bits >> 16) | 0x0040u);
    return (tsr_bf16)((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

typedef enum tsr_exp_kind { TSR_EXP_ACCURATE = 0, TSR_EXP_SCHRAUDOLPH = 1 } tsr_exp_kind;

/* e^x by Schraudolph's trick, as the seed paper writes it: 0 below about -87.3, +inf
 * from about 88.7, NaN for NaN; within 6.2 % (relative) in between. */
float tsr_expf_schraudolph(float x);

/* y[r * ldy + i] = bf16(sum_j w[i][j] x[r][j]), fp32 sums in index order (GEMM; GEMV
 * when rows = 1). Work is split over output columns i. */
typedef struct tsr_matmul_bf16_args {
    const tsr_bf16 *x; /* rows x k */
    const tsr_bf16 *w; /* n x k */
    tsr_bf16 *y;       /* rows x ldy; null when y_f32 is given */
    uint32_t rows, k, n; /* each >= 1 */
    uint32_t ldy;        /* >= n */
    float *y_f32;      /* rows x ldy fp32 outputs, unrounded (the logits); null: y */
    const float *bias; /* n fp32 biases added to the sums before they are rounded; null: none */
} tsr_matmul_bf16_args;

uint32_t tsr_matmul_bf16_scratch_bytes(const tsr_matmul_bf16_args *args); /* none */
tsr_kernel_status tsr_matmul_bf16_ref(const tsr_matmul_bf16_args *args, uint32_t core_id, uint32_t core_count);
/* The same bits: four output channels per pass over a row of x, pointer increments. */
tsr_kernel_status tsr_matmul_bf16(const tsr_matmul_bf16_args *args, uint32_t core_id, uint32_t core_count);

/* fp32 activations times bf16 weights (the weights stored and streamed at half the
 * bytes): y[r * ldy + i] = sum_j f32(w[i][j]) x[r][j], fp32 sums in index order, as
 * tsr_matmul_f32's contract (rows, k, n >= 1, ldy >= n; split over output columns). */
tsr_kernel_status tsr_matmul_f32_w16_ref(const float *x, const tsr_bf16 *w, float *y, uint32_t rows, uint32_t k,
                                         uint32_t n, uint32_t ldy, uint32_t core_id, uint32_t core_count);
/* The same bits: four output channels per pass over a row of x. */
tsr_kernel_status tsr_matmul_f32_w16(const float *x, const tsr_bf16 *w, float *y, uint32_t rows, uint32_t k,
                                     uint32_t n, uint32_t ldy, uint32_t core_id, uint32_t core_count);

/* In-place softmax of n >= 1 bf16 values, computed in fp32 (max, exponentials, a
 * sum in index order, one division each), rounded once. Single core. */
tsr_kernel_status tsr_softmax_bf16(tsr_bf16 *x, uint32_t n, tsr_exp_kind exp);

/* y = bf16(silu(gate) * up), silu(v) = v / (1 + e^-v), over `count` elements; y may alias. */
tsr_kernel_status tsr_swiglu_bf16(const tsr_bf16 *gate, const tsr_bf16 *up, tsr_bf16 *y, uint32_t count,
                                  tsr_exp_kind exp, uint32_t core_id, uint32_t core_count);

/* The other operators of a bf16 transformer, each computing in fp32 and rounding its
 * outputs once, with tsr_*_f32's contracts and splits (rmsnorm: rows; rope: (row,
 * pair), the table fp32; add: elements). */
/* LayerNorm of bf16 rows (weight and bias bf16), fp32 arithmetic as tsr_layernorm_f32's,
 * each output rounded once. */
tsr_kernel_status tsr_layernorm_bf16(const tsr_bf16 *x, const tsr_bf16 *weight, const tsr_bf16 *bias, tsr_bf16 *y,
                                     uint32_t rows, uint32_t dim, float eps, uint32_t core_id, uint32_t core_count);
/* GELU's tanh form of bf16 values, in fp32 as tsr_gelu_tanh_f32, rounded once. */
tsr_kernel_status tsr_gelu_tanh_bf16(const tsr_bf16 *x, tsr_bf16 *y, uint32_t count, uint32_t core_id, uint32_t core_count);
/* GELU's exact form of bf16 values, in fp32 as tsr_gelu_erf_f32, rounded once. */
tsr_kernel_status tsr_gelu_erf_bf16(const tsr_bf16 *x, tsr_bf16 *y, uint32_t count, uint32_t core_id, uint32_t core_count);
tsr_kernel_status tsr_rmsnorm_bf16(const tsr_bf16 *x, const tsr_bf16 *weight, tsr_bf16 *y, uint32_t rows, uint32_t dim,
                                   float eps, uint32_t core_id, uint32_t core_count);
tsr_kernel_status tsr_rope_bf16(tsr_bf16 *q, tsr_bf16 *k, const float *table, uint32_t rows, uint32_t pos,
                                uint32_t dim, uint32_t kv_dim, uint32_t head_size, uint32_t core_id,
                                uint32_t core_count);
tsr_kernel_status tsr_add_bf16(const tsr_bf16 *a, const tsr_bf16 *b, tsr_bf16 *y, uint32_t count, uint32_t core_id,
                               uint32_t core_count);
/* Attention pieces for one (row, head) over a bf16 KV cache, fp32 scores and sums:
 * scores[t] = (q . keys[t]) / sqrt(head_size); softmax in place with `exp`;
 * acc[d] += sum_t probs[t] values[t][d]; out[d] = bf16(acc[d]). count, head_size >= 1. */
tsr_kernel_status tsr_attention_scores_bf16(const tsr_bf16 *q, const tsr_bf16 *keys, float *scores, uint32_t count,
                                            uint32_t head_size);
tsr_kernel_status tsr_softmax_f32_exp(float *x, uint32_t n, tsr_exp_kind exp);
tsr_kernel_status tsr_attention_accumulate_bf16(const float *probs, const tsr_bf16 *values, float *acc,
                                                uint32_t count, uint32_t head_size);
/* One (row, head)'s scratch: the fp32 scores row (softmaxed in place), then the head's
 * fp32 accumulators at byte 4 x context. */
uint32_t tsr_attention_bf16_scratch_bytes(uint32_t context, uint32_t head_size);

#ifdef __cplusplus
}
#endif

#endif
