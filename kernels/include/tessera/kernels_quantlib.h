/*
 * QuantLib's integer operators as Deeploy runs them, bit for bit: the kernels of the
 * images that Tessera's ONNX front end makes from QuantLib-integerized graphs
 * (variants *.quantlib, *.rqs, rope.i8.matrix, requant.i8, swiglu.i8.hardswish).
 *
 *   RequantShift  y = clamp(floor((x mul + add + 2^(shift-1)) / 2^shift), lo, hi): round half up
 *   iRMSNorm      per row of N: s = floor(sum x^2 / N) + 1, std = isqrt(s),
 *                 y = clamp(trunc(x w / std) >> log2_d, lo, hi)
 *   iSoftmax      per row: x~ = x - max, z = floor(-x~ / log2), p = x~ + z log2,
 *                 e = (A (p + B)^2 + C) >> z, y = floor(e (n - 1) / sum e)
 *   iHardswish    h = x clamp(x + three, 0, six) one_over_six (then a scalar RequantShift)
 *
 * Every kernel takes its share of the work (core_id of core_count, as tessera/kernels.h)
 * and returns TSR_KERNEL_BAD_ARGUMENT for a null pointer, a zero size or constants
 * outside the ranges stated beside them; the arithmetic is exact in the widths used.
 */
#ifndef TESSERA_KERNELS_QUANTLIB_H
#define TESSERA_KERNELS_QUANTLIB_H

#include <stdbool.h>
#include <stdint.h>

#include "tessera/kernels.h"
#include "tessera/requant_params.h" /* tsr_rqs_params */

#ifdef __cplusplus
extern "C" {
#endif

/* A RequantShift's constants are usable: shift 0..62, lo <= hi. */
static inline bool tsr_rqs_valid(const tsr_rqs_params *r)
{
    return r->shift >= 0 && r->shift <= 62 && r->lo <= r->hi;
}

/* RequantShift of x (|x| < 2^31 x |mul| < 2^62: any int32 x with any int32 mul). */
static inline int32_t tsr_rqs(int64_t x, const tsr_rqs_params *r)
{
    const int64_t round = r->shift ? (int64_t)1 << (r->shift - 1) : 0;
    const int64_t v = (x * r->mul + r->add + round) >> r->shift; /* arithmetic: floor */
    return (int32_t)(v < r->lo ? r->lo : v > r->hi ? r->hi : v);
}

/* The same with a per-channel multiplier and addend (the shift and range of r). */
static inline int32_t tsr_rqs_channel(int64_t x, int32_t mul, int32_t add, const tsr_rqs_params *r)
{
    const tsr_rqs_params c = {mul, add, r->shift, r->lo, r->hi};
    return tsr_rqs(x, &c);
}

/* A RequantShift prepared once per call (or per channel): tsr_rqs_apply takes its 32-bit
 * form (the addend and rounding term summed once) for every x with |x| <= limit,
 * where x mul + add + round stays within int32, and tsr_rqs otherwise. Real accumulators
 * lie far inside their worst case, so the 32-bit form is the one that runs. */
typedef struct tsr_rqs_prepared {
    tsr_rqs_params r;
    int32_t add_round;
    uint32_t limit, span; /* x is within [-limit, limit] when (uint32_t)x + limit < span */
} tsr_rqs_prepared;
static inline tsr_rqs_prepared tsr_rqs_prepare(const tsr_rqs_params *r)
{
    tsr_rqs_prepared p;
    p.r = *r;
    p.add_round = 0;
    p.limit = 0;
    p.span = 0; /* none */
    const uint32_t m = r->mul < 0 ? 0u - (uint32_t)r->mul : (uint32_t)r->mul;
    const uint32_t a = r->add < 0 ? 0u - (uint32_t)r->add : (uint32_t)r->add;
    const uint32_t round = r->shift > 0 && r->shift < 31 ? 1u << (r->shift - 1) : 0u;
    if (r->shift < 0 || r->shift >= 31 || a > 0x7FFFFFFFu - round) return p;
    const uint32_t room = 0x7FFFFFFFu - round - a; /* |x mul| <= room */
    p.limit = m ? room / m : 0x7FFFFFFFu;
    p.span = 2u * p.limit + 1u;
    p.add_round = r->add + (int32_t)round;
    return p;
}
/* The 64-bit form, out of line so that tsr_rqs_apply stays small enough to inline
 * (static, not inline: GCC refuses noinline on an inline function; unused: a file that
 * includes the header and never calls it draws no warning). */
#if defined(__GNUC__)
__attribute__((noinline, unused))
#endif
static int32_t tsr_rqs_wide(int32_t x, const tsr_rqs_params *r)
{
    return tsr_rqs(x, r);
}
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int32_t tsr_rqs_apply(const tsr_rqs_prepared *p, int32_t x)
{
    if ((uint32_t)x + p->limit >= p->span) return tsr_rqs_wide(x, &p->r);
    const int32_t v = (x * p->r.mul + p->add_round) >> p->r.shift; /* arithmetic: floor */
    return v < p->r.lo ? p->r.lo : v > p->r.hi ? p->r.hi : v;
}

/* Elementwise RequantShift of int8 values into int8: lo >= -128, hi <= 127. */
tsr_kernel_status tsr_requant_i8(const int8_t *x, int8_t *y, uint32_t count, const tsr_rqs_params *r,
                                 uint32_t core_id, uint32_t core_count);

/* y = rqs_y(rqs_a(a) + rqs_b(b)), elementwise; every range within int8. */
typedef struct tsr_add_i8_rqs_args {
    const int8_t *a, *b;
    int8_t *y;
    const tsr_rqs_params *rqs_a, *rqs_b, *rqs_y;
    uint32_t count;
} tsr_add_i8_rqs_args;
tsr_kernel_status tsr_add_i8_rqs(const tsr_add_i8_rqs_args *args, uint32_t core_id, uint32_t core_count);

/* The gated unit with iHardswish for SiLU: y = rqs_y(rqs_act(hardswish(gate)) up); three, six and
 * one_over_six in 0..2^15, ranges within int8. */
typedef struct tsr_hardswish_i8_args {
    const int8_t *gate, *up;
    int8_t *y;
    int32_t three, six, one_over_six;
    const tsr_rqs_params *rqs_act, *rqs_y;
    uint32_t count;
} tsr_hardswish_i8_args;
tsr_kernel_status tsr_hardswish_i8(const tsr_hardswish_i8_args *args, uint32_t core_id, uint32_t core_count);

/* iRMSNorm over rows x dim (dim 1..16384), w I32 per column (|w| < 2^24), log2_d 0..31,
 * lo >= -128, hi <= 127. y may equal x. */
typedef struct tsr_irmsnorm_i8_args {
    const int8_t *x;
    const int32_t *w;
    int8_t *y;
    uint32_t rows, dim;
    int32_t log2_d, lo, hi;
} tsr_irmsnorm_i8_args;
tsr_kernel_status tsr_irmsnorm_i8(const tsr_irmsnorm_i8_args *args, uint32_t core_id, uint32_t core_count);
/* floor(sqrt(v)), exactly. */
uint32_t tsr_isqrt_u32(uint32_t v);

/* y[r][c] = RequantShift(sum_j x[r][j] w[c][j], mul[c], add[c]) for rows x n outputs (row stride ldy >= n),
 * with the shift and range of `range` (within int8); k 1..32768. Split over output columns. */
typedef struct tsr_matmul_i8_rqs_args {
    const int8_t *x, *w;
    const int32_t *mul, *add; /* this call's n channels */
    int8_t *y;
    tsr_rqs_params range;     /* shift, lo, hi (mul and add unused) */
    uint32_t rows, k, n, ldy;
    uint32_t flags;           /* TSR_MATMUL_I8_RQS_*: what the caller already knows; 0: nothing */
} tsr_matmul_i8_rqs_args;
/* tsr_matmul_i8_rqs_args.flags. FITS_32: the caller found, once for many calls (the
 * runtime: at open, from the weights), that tsr_matmul_i8_rqs_fits_32 holds for every
 * channel the call is given: each output's RequantShift then takes its 32-bit form
 * without a check (the XpulpV2 and Helium kernels; the portable ones check as before). A kernel given it
 * wrongly computes wrong numbers, never undefined behaviour. */
#define TSR_MATMUL_I8_RQS_FITS_32 1u
/* Whether, for each of the n channels c of w (n x k int8, k <= 32768), every int8 row x
 * keeps x . w_c mul[c] + add[c] + the rounding term of `shift` within int32: with
 * |x . w_c| <= 128 sum_j |w_cj|, 128 sum_j |w_cj| |mul[c]| + |add[c]| + round < 2^31.
 * False for a shift outside 0..30. */
bool tsr_matmul_i8_rqs_fits_32(const int8_t *w, const int32_t *mul, const int32_t *add, uint32_t n, uint32_t k,
                               int32_t shift);
tsr_kernel_status tsr_matmul_i8_rqs_ref(const tsr_matmul_i8_rqs_args *args, uint32_t core_id, uint32_t core_count);
tsr_kernel_status tsr_matmul_i8_rqs(const tsr_matmul_i8_rqs_args *args, uint32_t core_id, uint32_t core_count);

/* RoPE as a matrix per row, in place: every head h of q (rows x dim) and of k (rows x kv_dim) becomes
 * rqs_q(x_h M_r) or rqs_k(x_h M_r), M_r the row's head_size x head_size int8 matrix (row-major), and
 * (x M)_j = sum_i x_i M[i][j]. head_size 1..64; ranges within int8. */
typedef struct tsr_rope_matrix_i8_args {
    int8_t *q, *k;
    const int8_t *rotation; /* rows x head_size^2 */
    const tsr_rqs_params *rqs_q, *rqs_k;
    uint32_t rows, dim, kv_dim, head_size;
} tsr_rope_matrix_i8_args;
tsr_kernel_status tsr_rope_matrix_i8(const tsr_rope_matrix_i8_args *args, uint32_t core_id, uint32_t core_count);

/*
 * Attention with QuantLib's operators, for one (row, head) at a time as the attention operator
 * walks them. What Deeploy's graph computes between the two matmuls (RequantShift, TrueIntegerDiv,
 * RequantShift, the mask's RequantShift and add, RequantShift, iSoftmax, RequantShift) maps each
 * int8 score, or each softmax output, through a chain of integer functions of one int8 value: the
 * packer evaluates them into the tables below, so the kernels compute exactly the graph's values.
 */
typedef struct tsr_quantlib_attention {
    tsr_rqs_params scores;   /* q.k -> int8 score s (lo >= -128, hi <= 127) */
    tsr_rqs_params out;      /* sum p v -> int8 output */
    int32_t levels;          /* iSoftmax's n - 1 (255) */
    int32_t reserved;
    int8_t visible[256];     /* s + 128 -> the softmax input of a visible position (mask 0) */
    int8_t masked[256];      /* s + 128 -> that of a masked one (mask -128: later rows of the chunk) */
    int32_t exp[256];        /* iSoftmax's e for x - max = -i: 0..TSR_QUANTLIB_MAX_EXP, exp[0] > 0 */
    int8_t prob[256];        /* iSoftmax's y (0..levels) -> the probability's int8 (RequantShift) */
} tsr_quantlib_attention;
#define TSR_QUANTLIB_ATTENTION_WORDS (sizeof(tsr_quantlib_attention) / 4u)
#define TSR_QUANTLIB_MAX_EXP (1 << 20)   /* so that a row's sum fits 32 bits */
#define TSR_QUANTLIB_MAX_CONTEXT 2048u

/* One core's scratch for a row of n <= context positions: int8 softmax inputs, int8 probabilities,
 * int32 exponentials, the head's int32 accumulators; each part 4-byte aligned. */
typedef struct tsr_quantlib_attention_layout {
    uint32_t probs, exps, acc, bytes;
} tsr_quantlib_attention_layout;
tsr_quantlib_attention_layout tsr_quantlib_attention_scratch_layout(uint32_t context, uint32_t head_size);

/* Scores of `count` keys (positions first.., each head_size int8) against q: u[j] for position
 * first + j, visible when first + j <= row_pos. */
tsr_kernel_status tsr_quantlib_scores(const int8_t *q, const int8_t *keys, int8_t *u, uint32_t count, uint32_t head_size,
                                      uint32_t first, uint32_t row_pos, const tsr_quantlib_attention *t);
/* iSoftmax over u[0..n) into int8 probabilities (exps: n int32 of scratch). */
tsr_kernel_status tsr_quantlib_softmax(const int8_t *u, int8_t *probs, int32_t *exps, uint32_t n,
                                       const tsr_quantlib_attention *t);
/* acc[i] += sum_j probs[j] values[j][i] over count positions. */
tsr_kernel_status tsr_quantlib_accumulate(const int8_t *probs, const int8_t *values, int32_t *acc, uint32_t count,
                                          uint32_t head_size);
/* y[i] = RequantShift(acc[i]) with t->out. */
tsr_kernel_status tsr_quantlib_output(const int32_t *acc, int8_t *y, uint32_t head_size, const tsr_quantlib_attention *t);
/* Several rows of one head over the same n positions (a prompt chunk, as Deeploy's graphs attend:
 * every row the whole chunk, its later positions masked), each as tsr_quantlib_scores (first 0),
 * tsr_quantlib_softmax, tsr_quantlib_accumulate from zero and tsr_quantlib_output one row at a
 * time: row r (< rows) reads the head at q + r q_stride, writes the one at y + r y_stride, and
 * sees positions 0..row_pos + r pos_step unmasked. keys and values: n positions of head_size
 * int8 each, kv_stride bytes from one position's to the next (0: head_size, one after the
 * other; else at least head_size: a head's column of a block of several heads' rows).
 * scratch: tsr_quantlib_attention_scratch_layout(n, head_size).bytes, 4-byte aligned.
 * n 1..TSR_QUANTLIB_MAX_CONTEXT. */
typedef struct tsr_quantlib_rows_args {
    const int8_t *q, *keys, *values;
    int8_t *y;
    uint8_t *scratch;
    const tsr_quantlib_attention *t;
    uint32_t rows, n, head_size;
    uint32_t q_stride, y_stride; /* bytes from a row's head to the next row's */
    uint32_t row_pos, pos_step;
    uint32_t kv_stride; /* bytes from a position's key (value) to the next's; 0: head_size */
} tsr_quantlib_rows_args;
tsr_kernel_status tsr_quantlib_rows(const tsr_quantlib_rows_args *args);
/* The tables' own ranges, which the kernels check as they use them: the RequantShifts within int8,
 * levels 1..255, the exponentials 0..TSR_QUANTLIB_MAX_EXP with exp[0] > 0, context 1..TSR_QUANTLIB_MAX_CONTEXT. */
bool tsr_quantlib_attention_valid(const tsr_quantlib_attention *t, uint32_t context);

/*
 * The float graphs QuantLib exports beside the integer ones (RMSNorm, Div, Softmax, HardSwish
 * in float; Deeploy's FP32 tests) need three more kernels than Llama's fp32 set:
 */
/* y[r][c] = sum_j x[r][j] w[c][j] + bias[c] (row stride ldy >= n); split over output columns. */
tsr_kernel_status tsr_matmul_f32_bias(const float *x, const float *w, const float *bias, float *y, uint32_t rows,
                                      uint32_t k, uint32_t n, uint32_t ldy, uint32_t core_id, uint32_t core_count);
/* RoPE as a matrix per row, in place, in float: (x M)_j = sum_i x_i M[i][j] for every head. */
tsr_kernel_status tsr_rope_matrix_f32(float *q, float *k, const float *rotation, uint32_t rows, uint32_t dim,
                                      uint32_t kv_dim, uint32_t head_size, uint32_t core_id, uint32_t core_count);
/* y = hardswish(gate) up, hardswish(v) = v min(max(v + 3, 0), 6) / 6 (QuantLib's SiLU). */
tsr_kernel_status tsr_hardswish_f32(const float *gate, const float *up, float *y, uint32_t count, uint32_t core_id,
                                    uint32_t core_count);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif
