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

#include <stdbool.h>

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
    uint32_t flags;             /* TSR_MATMUL_I8_*: what the caller already knows of the tables; 0: nothing */
} tsr_matmul_i8_args;

/* tsr_matmul_i8_args.flags. TABLES_CHECKED: the caller found multiplier, shift and bias
 * in their ranges with tsr_matmul_i8_tables_ok, once for many calls (the runtime: at
 * open), which also says SHIFTS_FAST. A kernel may then skip its own scan of the tables
 * on each call: the Helium one does where both are set (no bias, x_zero 0), for the
 * channels its vector arithmetic takes, and the XpulpV2 one where TABLES_CHECKED is set
 * and there is no bias (it clamps each shift where it uses it); both are defined for any
 * table (a table changed since gives wrong numbers, never undefined behaviour). The
 * portable kernels check every call. */
#define TSR_MATMUL_I8_TABLES_CHECKED 1u
#define TSR_MATMUL_I8_SHIFTS_FAST 2u /* with TABLES_CHECKED: every shift <= -2 (a scale below 1/2) */

/* Whether n channels' tables lie in the ranges above (bias may be NULL); if so, *flags
 * gets TSR_MATMUL_I8_TABLES_CHECKED, with TSR_MATMUL_I8_SHIFTS_FAST when every shift is
 * at most -2. */
bool tsr_matmul_i8_tables_ok(const int32_t *multiplier, const int8_t *shift, const int32_t *bias, uint32_t n,
                             uint32_t *flags);

/* Per-core scratch bytes a call needs: none. */
uint32_t tsr_matmul_i8_scratch_bytes(const tsr_matmul_i8_args *args);
/* The definition, one output at a time. */
tsr_kernel_status tsr_matmul_i8_ref(const tsr_matmul_i8_args *args, uint32_t core_id, uint32_t core_count);
/* The same results, bit for bit: the zero point folded out of the inner loop, four
 * output channels per pass over a row of x, pointer increments. */
tsr_kernel_status tsr_matmul_i8(const tsr_matmul_i8_args *args, uint32_t core_id, uint32_t core_count);

/* W4A8: int8 activations and 4-bit weights in groups of 32 along k, an 8-bit scale a
 * group (the weights at half the bytes of int8, plus one byte a group):
 *   y[r * ldy + i] = clamp(y_zero + requantize(sum_g gs[i][g] sum_{j in g} (x[r][j] - x_zero) w[i][j],
 *                                              multiplier[i], shift[i]), -128, 127)
 * Row i of w is tsr_w4_row_bytes(k) bytes: ceil(k/2) bytes of weights, element j in byte
 * j/2 (the low nibble for even j), a two's-complement 4-bit value in [-8, 7]; then the
 * ceil(k/32) group scales gs[i][g] (uint8), group g covering j in [32g, min(32g + 32, k)).
 * The real weight is scale_w[i] gs[i][g] w[i][j]: (multiplier, shift) stands for
 * scale_x scale_w[i] / scale_y. Work is split over output channels i. */
static inline uint32_t tsr_w4_row_bytes(uint32_t k) { return (k + 1u) / 2u + (k + 31u) / 32u; }
typedef struct tsr_matmul_w4a8_args {
    const int8_t *x;           /* rows x k activations, zero point x_zero */
    const uint8_t *w;          /* n rows of tsr_w4_row_bytes(k) bytes */
    const int32_t *multiplier; /* n, each 0 or in [2^30, 2^31) */
    const int8_t *shift;       /* n, each in [-31, 30] */
    int8_t *y;                 /* rows x ldy */
    int32_t x_zero, y_zero;    /* [-128, 127] */
    uint32_t rows;             /* >= 1 */
    uint32_t k;                /* 1..2048: |accumulator| <= 64 groups x 255 x 32 x 255 x 8 < 2^31 */
    uint32_t n;                /* >= 1 */
    uint32_t ldy;              /* >= n */
} tsr_matmul_w4a8_args;
/* The definition, one weight at a time. */
tsr_kernel_status tsr_matmul_w4a8_ref(const tsr_matmul_w4a8_args *args, uint32_t core_id, uint32_t core_count);
/* The same results, bit for bit: a byte (two weights) at a time, the zero point folded
 * out of the inner loop into one offset per output channel. */
tsr_kernel_status tsr_matmul_w4a8(const tsr_matmul_w4a8_args *args, uint32_t core_id, uint32_t core_count);

/* Softmax in integers, after I-BERT (Kim et al., 2021): exp(x) = 2^-z exp(p) with
 * p = x + z ln2 in (-ln2, 0], and exp(p) ~ a (p + b)^2 + c (a = 0.3585, b = 1.353,
 * c = 0.344), every quantity an integer. I-BERT rounds ln 2, b and c to the input's
 * scale, which is too coarse for int8 scores (at scale 0.25, ln 2 becomes 0.5); so
 * the scores are first moved to a fine scale, x << shift, scale / 2^shift in
 * [2^-11, 2^-10), where the rounding costs nothing visible. The constants depend on
 * the input scale only: the packer computes them once (tsr_iexp_constants_for) and
 * the device never sees a float.
 *
 *   y[i] = round(4096 * e[i] / sum_j e[j]) (probabilities, scale 2^-12: eight bits
 *   would lose the small weights of a long context), e[i] = iexp((x[i] - max x) << shift) / 64. */
typedef struct tsr_iexp_constants {
    int32_t shift; /* 0..14: input scale / 2^shift is in [2^-11, 2^-10) */
    int32_t ln2;   /* floor(ln 2 / fine scale), 709..1420 */
    int32_t b;     /* floor(b / fine scale), 1385..2771 */
    int32_t c;     /* floor(c / (a fine scale^2)), 1,006,000..4,024,000 */
} tsr_iexp_constants;

typedef struct tsr_softmax_i8_args {
    const int8_t *x;              /* n scores, real = scale * x */
    uint16_t *y;                  /* n probabilities, real = y / 4096; may not alias x */
    uint32_t n;                   /* 1..1024 */
    tsr_iexp_constants constants; /* from tsr_iexp_constants_for(scale), scale in [2^-11, 16) */
    const uint32_t *exps;         /* NULL, or the exponential of each u = max - x at u
                                   * (tsr_softmax_i8_exp_table for these constants): read
                                   * instead of computed, where a kernel reads it. Its caller
                                   * checks it once (tsr_softmax_i8_exp_table_ok): another
                                   * table that passes gives other numbers, never undefined
                                   * behaviour */
} tsr_softmax_i8_args;

/* The 256 exponentials of tsr_softmax_i8 for the constants k, u = max - x at table[u]: a
 * kernel's lookup instead of the integer exponential. TSR_KERNEL_BAD_ARGUMENT for constants
 * tsr_iexp_constants_for does not give. */
#define TSR_SOFTMAX_I8_EXP_ENTRIES 256u
tsr_kernel_status tsr_softmax_i8_exp_table(const tsr_iexp_constants *k, uint32_t *table);
/* Whether a table keeps the kernels in their ranges (every entry below 2^18, the first at
 * least 1: a row's sum is positive and below 2^28): 1 or 0. */
int tsr_softmax_i8_exp_table_ok(const uint32_t *table);

/* The constants for input scale `scale` in [2^-11, 16); host side (floating point,
 * never compiled into the device's kernels). Returns 0 for a scale out of range. */
static inline int tsr_iexp_constants_for(double scale, tsr_iexp_constants *out)
{
    if (!(scale >= 1.0 / 2048.0 && scale < 16.0)) return 0;
    int32_t shift = 0;
    double fine = scale;
    while (fine >= 1.0 / 1024.0) fine /= 2.0, ++shift;
    out->shift = shift;
    out->ln2 = (int32_t)__builtin_floor(0.69314718055994531 / fine);
    out->b = (int32_t)__builtin_floor(1.353 / fine);
    out->c = (int32_t)__builtin_floor(0.344 / (0.3585 * fine * fine));
    return 1;
}

/* Whether k is what tsr_iexp_constants_for gives for some scale in [2^-11, 16). */
static inline int tsr_iexp_constants_valid(tsr_iexp_constants k)
{
    return k.shift >= 0 && k.shift <= 14 && k.ln2 >= 709 && k.ln2 <= 1420 && k.b >= 1385 && k.b <= 2771 &&
           k.c >= 1000000 && k.c <= 4030000;
}

uint32_t tsr_softmax_i8_scratch_bytes(const tsr_softmax_i8_args *args); /* 4 * n: the exponentials */
/* One row, on one core (a softmax row is one core's work in attention). scratch: at
 * least tsr_softmax_i8_scratch_bytes, 4-byte aligned. */
tsr_kernel_status tsr_softmax_i8_ref(const tsr_softmax_i8_args *args, uint32_t *scratch);
tsr_kernel_status tsr_softmax_i8(const tsr_softmax_i8_args *args, uint32_t *scratch);

/* Attention for one (row, head) in int8, in the pieces the tiled executor runs (as
 * tsr_attention_scores_f32 / _accumulate_f32): scores of a chunk of cached keys,
 * tsr_softmax_i8 over all of them, then the probabilities' weighted sum of a chunk of
 * cached values. The KV cache is int8 with one scale and zero point per tensor.
 *
 * scores[t] = clamp(requantize(sum_d (q[d] - q_zero) (keys[t][d] - k_zero), m, s), -128, 127)
 *   for t < count, split over t; (m, s) stands for scale_q scale_k / (sqrt(head_size) scale_scores).
 * acc[d] += sum_t probs[t] (values[t][d] - v_zero), d < head_size, split over d: int32
 *   accumulators in the scale scale_v / 4096, across the chunks of a row;
 * out[d] = clamp(o_zero + requantize(acc[d], m, s), -128, 127) when the row is done
 *   ((m, s) stands for scale_v / (4096 scale_out)). */
typedef struct tsr_attention_scores_i8_args {
    const int8_t *q;        /* head_size */
    const int8_t *keys;     /* count positions of head_size, kv_stride bytes apart */
    int8_t *scores;         /* count */
    int32_t q_zero, k_zero; /* [-128, 127] */
    int32_t multiplier;     /* 0 or [2^30, 2^31) */
    int32_t shift;          /* [-31, 30] */
    uint32_t count;         /* >= 1 */
    uint32_t head_size;     /* 1..1024 */
    uint32_t kv_stride;     /* 0 (head_size: one after the other) or >= head_size */
} tsr_attention_scores_i8_args;

typedef struct tsr_attention_accumulate_i8_args {
    const uint16_t *probs; /* count, scale 1/4096 (tsr_softmax_i8) */
    const int8_t *values;  /* count positions of head_size, kv_stride bytes apart */
    int32_t *acc;          /* head_size accumulators, zeroed by the caller before a row's first chunk */
    int32_t v_zero;        /* [-128, 127] */
    uint32_t count;        /* >= 1; a row's chunks together at most 1024 positions */
    uint32_t head_size;    /* >= 1 */
    uint32_t kv_stride;    /* 0 (head_size: one after the other) or >= head_size */
} tsr_attention_accumulate_i8_args;

/* One (row, head)'s scratch on its core, offsets in bytes from a 4-byte aligned buffer:
 * the int8 scores row (the scores pass writes it), the probabilities (uint16, the
 * softmax's output), the softmax's own scratch (tsr_softmax_i8_scratch_bytes) and the
 * head's int32 accumulators (the accumulate pass); each part 4-byte aligned. */
typedef struct tsr_attention_i8_layout {
    uint32_t probs, exps, acc, bytes; /* the scores row starts at 0; bytes: the whole */
} tsr_attention_i8_layout;
tsr_attention_i8_layout tsr_attention_i8_scratch_layout(uint32_t context, uint32_t head_size);
uint32_t tsr_attention_i8_scratch_bytes(uint32_t context, uint32_t head_size); /* ..._layout(...).bytes */
tsr_kernel_status tsr_attention_scores_i8_ref(const tsr_attention_scores_i8_args *args, uint32_t core_id,
                                              uint32_t core_count);
tsr_kernel_status tsr_attention_scores_i8(const tsr_attention_scores_i8_args *args, uint32_t core_id,
                                          uint32_t core_count);
tsr_kernel_status tsr_attention_accumulate_i8_ref(const tsr_attention_accumulate_i8_args *args, uint32_t core_id,
                                                  uint32_t core_count);
tsr_kernel_status tsr_attention_accumulate_i8(const tsr_attention_accumulate_i8_args *args, uint32_t core_id,
                                              uint32_t core_count);
/* out[d] from the finished accumulators, d < head_size (one core: head_size is small). */
void tsr_attention_output_i8(const int32_t *acc, int8_t *out, uint32_t head_size, int32_t multiplier, int32_t shift,
                             int32_t o_zero);

/* RMSNorm in integers, with 32-bit integer division as Deeploy does it:
 *   u = x - x_zero; r = isqrt(256 sum(u^2) / dim + eps_q8) (the RMS in 1/16ths of the
 *   input's scale, at least 1); y = clamp(y_zero + round(round(g[i] u[i] gain / r) / 2^gain_shift)).
 * gain = round(16 scale_g / scale_y 2^gain_shift), the host's choice of gain_shift putting
 * it in [2^14, 2^15); eps_q8 = round(256 eps / scale_x^2). */
typedef struct tsr_rmsnorm_i8_args {
    const int8_t *x;      /* rows x dim */
    const int8_t *weight; /* dim, symmetric (zero point 0), scale scale_g */
    int8_t *y;            /* rows x dim; may equal x */
    int32_t x_zero, y_zero; /* [-128, 127] */
    uint32_t eps_q8;      /* <= 2^24 */
    int32_t gain;         /* [2^14, 2^15) */
    int32_t gain_shift;   /* 0..30 */
    uint32_t rows;        /* >= 1 */
    uint32_t dim;         /* 1..16384 */
} tsr_rmsnorm_i8_args;
tsr_kernel_status tsr_rmsnorm_i8(const tsr_rmsnorm_i8_args *args, uint32_t core_id, uint32_t core_count);

/* SwiGLU in integers: silu(g) = g sigmoid(g) with sigmoid from the integer exponential
 * of tsr_softmax_i8 (sigmoid(v) = E(0) / (E(0) + E(-|v|)), or its complement for v < 0),
 * in the gate's scale / 16; then times (up - up_zero), requantized:
 *   y = clamp(y_zero + requantize(silu16(gate) (up - up_zero), multiplier, shift)),
 * (multiplier, shift) standing for scale_gate scale_up / (16 scale_y); the constants
 * from tsr_iexp_constants_for(scale_gate). */
typedef struct tsr_swiglu_i8_args {
    const int8_t *gate, *up;
    int8_t *y;                       /* may equal gate or up */
    int32_t gate_zero, up_zero, y_zero; /* [-128, 127] */
    tsr_iexp_constants constants;
    int32_t multiplier, shift;       /* as tsr_matmul_i8's */
    uint32_t count;                  /* >= 1 */
    const int16_t *silu16;           /* NULL, or silu16 of each gate value v at v + 128
                                      * (tsr_swiglu_i8_silu_table for these constants and
                                      * gate_zero): read instead of computed, where a kernel
                                      * reads it (kernels that compute give the same integers
                                      * for the table it makes; any other table gives other
                                      * numbers, never undefined behaviour: |silu16| < 2^15) */
} tsr_swiglu_i8_args;
tsr_kernel_status tsr_swiglu_i8(const tsr_swiglu_i8_args *args, uint32_t core_id, uint32_t core_count);

/* The 256 values of silu16 (tsr_swiglu_i8) for the constants k and gate_zero (in [-128, 127]),
 * gate value v at table[v + 128]: a kernel's lookup instead of an exponential and a division
 * an element. TSR_KERNEL_BAD_ARGUMENT for constants tsr_iexp_constants_for does not give. */
#define TSR_SWIGLU_I8_SILU_ENTRIES 256u
tsr_kernel_status tsr_swiglu_i8_silu_table(const tsr_iexp_constants *k, int32_t gate_zero, int16_t *table);

/* RoPE in integers: table[pos][i] = {round(16384 cos), round(16384 sin)} (Q14, as
 * tsr_rope_f32's table), each pair (v0, v1) of q (and of k, for i < kv_dim) becomes
 *   (round((v0 c - v1 s) / 2^14), round((v0 s + v1 c) / 2^14)), halves up, saturated,
 * in the input's own scale. rows >= 1; head_size even, dividing dim and kv_dim <= dim;
 * split over (row, pair) as tsr_rope_f32. */
tsr_kernel_status tsr_rope_i8(int8_t *q, int8_t *k, const int16_t *table, uint32_t rows, uint32_t pos, uint32_t dim,
                              uint32_t kv_dim, uint32_t head_size, uint32_t core_id, uint32_t core_count);

/* y = clamp(requantize(a, a_multiplier, a_shift) + requantize(b, b_multiplier, b_shift)),
 * symmetric (zero points 0): the residual connection, each input brought to y's scale. */
typedef struct tsr_add_i8_args {
    const int8_t *a, *b;
    int8_t *y;                          /* may equal a or b */
    int32_t a_multiplier, a_shift;      /* as tsr_matmul_i8's multiplier and shift */
    int32_t b_multiplier, b_shift;
    uint32_t count;                     /* >= 1 */
} tsr_add_i8_args;
tsr_kernel_status tsr_add_i8(const tsr_add_i8_args *args, uint32_t core_id, uint32_t core_count);

/* One token's embedding read from a per-channel table (an int8 classifier's rows, stored
 * once and shared with the embedding), rescaled in place to the output's scale:
 *   int8 rows (w4 0):  y[j] = clamp(requantize(q[j], multiplier, shift), -128, 127)
 *   W4_G32 rows (w4 1): y[j] = clamp(requantize(gs[j / 32] w[j], multiplier, shift), -128, 127)
 * where on entry y holds the row as the table stores it: dim int8 values q, or the
 * ceil(dim/2) bytes of 4-bit weights w of a W4_G32 row (tsr_matmul_w4a8_args), whose
 * ceil(dim/32) group scales gs are passed apart (they would be overwritten). (multiplier,
 * shift) stands for scale_w[row] / scale_y. One core; dim elements of work a token. */
typedef struct tsr_embed_row_i8_args {
    int8_t *y;                   /* dim bytes */
    const uint8_t *group_scales; /* w4: ceil(dim/32) bytes, not inside y; else unused */
    int32_t multiplier, shift;   /* multiplier 0 or in [2^30, 2^31), shift in [-31, 30] */
    uint32_t dim;                /* >= 1; w4: <= 2048 */
    uint32_t w4;                 /* 0 or 1 */
} tsr_embed_row_i8_args;
tsr_kernel_status tsr_embed_row_i8(const tsr_embed_row_i8_args *args);

/* LayerNorm in integers, as I-BERT computes it (no floating point), symmetric int8 in
 * and out (zero points 0), a row at a time:
 *   m = round(256 sum(x) / dim)                  the mean, in 1/256ths of x's scale
 *   d[i] = 256 x[i] - m                          |d| < 2^16
 *   v = floor(sum(d^2) / dim) + eps_q16          the variance in 1/65536ths of scale_x^2
 *                                                (saturated at 2^32 - 1; where sum(d^2) passes
 *                                                2^32, of its top 32 bits, shifted back)
 *   s = max(1, isqrt(v))                         the deviation, in 1/256ths of scale_x
 *   r = round(2^38 / s)                          once a row: no division an element
 *   z[i] = floor((256 d[i] r + 2^37) / 2^38)     the normalized value in Q8, |z| <= 2^23
 *   y[i] = clamp(requantize(sat32(z[i] weight[i] + bias[i]), multiplier, shift), -128, 127)
 * weight of scale scale_g (I16), bias of scale scale_g / 256 (I32), (multiplier, shift)
 * standing for scale_g / (256 scale_y); eps_q16 = round(65536 eps / scale_x^2).
 * Rows are split over the cores; with fewer rows than cores, every core computes each
 * row's statistics and writes its share of the columns (y must then not overlap x). */
typedef struct tsr_layernorm_i8_args {
    const int8_t *x;       /* rows x dim */
    const int16_t *weight; /* dim */
    const int32_t *bias;   /* dim */
    int8_t *y;             /* rows x dim; may equal x where rows >= the cores */
    uint32_t eps_q16;
    int32_t multiplier, shift; /* as tsr_matmul_i8's */
    uint32_t rows;         /* >= 1 */
    uint32_t dim;          /* 1..16384 */
} tsr_layernorm_i8_args;
tsr_kernel_status tsr_layernorm_i8(const tsr_layernorm_i8_args *args, uint32_t core_id, uint32_t core_count);

/* y[i] = table[x[i] + 128] over count elements (y may equal x): an int8 function of one
 * int8 input, tabulated for its input and output scales (GELU: the host computes the 256
 * values exactly, what I-BERT's polynomial approximates). Elements split over the cores. */
tsr_kernel_status tsr_lut_i8(const int8_t *x, const int8_t *table, int8_t *y, uint32_t count, uint32_t core_id,
                             uint32_t core_count);

#ifdef __cplusplus
}
#endif

#endif
