/*
 * Tessera compute kernels for the PULP cores' XpulpV2 extensions (kernels/xpulpv2/),
 * in their CORE-V encodings (cv32e40p with COREV_PULP): packed-SIMD dot products
 * (cv.sdotsp.b: four int8 products summed into a register), post-incrementing loads
 * (cv.lw) and hardware loops (cv.setup). The same contracts and the same results, bit
 * for bit, as the portable kernels they stand in for (tessera/kernels_i8.h). Built only
 * for RV32 targets whose cores have the extensions (CMake's TESSERA_KERNEL_SETS with
 * XPULPV2); the runtime registers them for boards whose tsr_hal_board.isa has
 * TSR_ISA_XPULPV2 (boards/pulp-rtl).
 */
#ifndef TESSERA_KERNELS_XPULPV2_H
#define TESSERA_KERNELS_XPULPV2_H

#include "tessera/kernels.h"
#include "tessera/kernels_i8.h"
#include "tessera/kernels_i8_float.h"
#include "tessera/kernels_quantlib.h"

#ifdef __cplusplus
extern "C" {
#endif

/* tsr_matmul_i8: four output channels a pass over a row of x, one cv.sdotsp.b per four
 * MACs a channel, in a hardware loop (k a multiple of 4, x and w word-aligned; otherwise
 * the portable kernel). */
tsr_kernel_status tsr_matmul_i8_xpulpv2(const tsr_matmul_i8_args *args, uint32_t core_id, uint32_t core_count);
/* tsr_matmul_i8_f32 (the dequantizing classifier): the same dot products. */
tsr_kernel_status tsr_matmul_i8_f32_xpulpv2(const tsr_matmul_i8_f32_args *args, uint32_t core_id, uint32_t core_count);
/* tsr_matmul_i8_rqs (QuantLib's RequantShift): the same dot products. */
tsr_kernel_status tsr_matmul_i8_rqs_xpulpv2(const tsr_matmul_i8_rqs_args *args, uint32_t core_id, uint32_t core_count);

/* tsr_matmul_w4a8 and tsr_matmul_w4a8_f32 (W4A8): four output channels a pass over a group of
 * 32 weights, each word of nibbles made two words of bytes (xor, shift, masks) against x's
 * even and odd bytes in cv.sdotsp.b, in a hardware loop (k a multiple of 32, x word-aligned;
 * otherwise the portable kernels). */
tsr_kernel_status tsr_matmul_w4a8_xpulpv2(const tsr_matmul_w4a8_args *args, uint32_t core_id, uint32_t core_count);
tsr_kernel_status tsr_matmul_w4a8_f32_xpulpv2(const tsr_matmul_w4a8_f32_args *args, uint32_t core_id,
                                              uint32_t core_count);

/* tsr_rmsnorm_i8 (Tessera's integer RMSNorm): a row's squares by cv.sdotsp.b, its
 * quotients by an exact reciprocal of the row's root, a row's elements split over the
 * cores (in place: whole rows). */
tsr_kernel_status tsr_rmsnorm_i8_xpulpv2(const tsr_rmsnorm_i8_args *args, uint32_t core_id, uint32_t core_count);
/* LayerNorm (tsr_layernorm_i8): a row's sum and sum of squares by sdotsp.b, a row's squared
 * deviations from them, an element's normalized value one 32 x 32-bit product. */
tsr_kernel_status tsr_layernorm_i8_xpulpv2(const tsr_layernorm_i8_args *args, uint32_t core_id, uint32_t core_count);
/* tsr_add_i8 (the residual add): each requantization in 32-bit operations where both
 * shifts are at most 22 (otherwise the portable kernel). */
tsr_kernel_status tsr_add_i8_xpulpv2(const tsr_add_i8_args *args, uint32_t core_id, uint32_t core_count);
/* tsr_swiglu_i8: the integer exponential's quotient by ln2 through an exact reciprocal. */
tsr_kernel_status tsr_swiglu_i8_xpulpv2(const tsr_swiglu_i8_args *args, uint32_t core_id, uint32_t core_count);

/* tsr_embed_row_i8 (a token's row of a table shared with the classifier, int8 or W4): each
 * requantization in 32-bit operations, a W4 byte's two elements together. */
tsr_kernel_status tsr_embed_row_i8_xpulpv2(const tsr_embed_row_i8_args *args);

/* Tessera's integer attention: scores one cv.sdotsp.b a word of the head (symmetric queries,
 * head sizes a multiple of 4, word-aligned; otherwise the portable kernel); the softmax's
 * exponentials without a division each; the accumulation (head sizes a multiple of 4, one
 * core) one p.mac a product, eight dimensions a pass. Keys and values kv_stride apart cost
 * nothing more (register post-increment loads): TSR_ATTENTION_KV_STRIDE_FREE_xpulpv2, which
 * the runtime reads to gather a token's round of KV heads as one block. */
#define TSR_ATTENTION_KV_STRIDE_FREE_xpulpv2 1
/* Its softmax looks each exponential up in the image's table (tsr_softmax_i8_args.exps). */
#define TSR_SOFTMAX_I8_READS_TABLE_xpulpv2 1
tsr_kernel_status tsr_attention_scores_i8_xpulpv2(const tsr_attention_scores_i8_args *args, uint32_t core_id,
                                                  uint32_t core_count);
tsr_kernel_status tsr_softmax_i8_xpulpv2(const tsr_softmax_i8_args *args, uint32_t *scratch);
tsr_kernel_status tsr_attention_accumulate_i8_xpulpv2(const tsr_attention_accumulate_i8_args *args, uint32_t core_id,
                                                      uint32_t core_count);

/* QuantLib attention (tsr_quantlib_*): scores of head size 4 one cv.sdotsp.b a position
 * (other sizes: the portable kernel); iSoftmax's quotients by an exact reciprocal multiply
 * (one division a row, not one a position); the accumulation four positions a pass,
 * transposed into one cv.sdotsp.b a dimension. */
tsr_kernel_status tsr_quantlib_scores_xpulpv2(const int8_t *q, const int8_t *keys, int8_t *u, uint32_t count,
                                              uint32_t head_size, uint32_t first, uint32_t row_pos,
                                              const tsr_quantlib_attention *t);
tsr_kernel_status tsr_quantlib_softmax_xpulpv2(const int8_t *u, int8_t *probs, int32_t *exps, uint32_t n,
                                               const tsr_quantlib_attention *t);
tsr_kernel_status tsr_quantlib_accumulate_xpulpv2(const int8_t *probs, const int8_t *values, int32_t *acc,
                                                  uint32_t count, uint32_t head_size);
/* Several rows of a head in one call (head size 4, word-aligned keys and values; otherwise the
 * portable kernel): the scores' maximum kept as they are made, each row's output requantized
 * in its 32-bit form. */
tsr_kernel_status tsr_quantlib_rows_xpulpv2(const tsr_quantlib_rows_args *args);

/* QuantLib's elementwise operators and iRMSNorm: each RequantShift in its 32-bit form,
 * checked once a call against the bound of its input instead of once an element (where
 * it does not hold: the portable kernel); iRMSNorm's squares by cv.sdotsp.b, its
 * divisions by an exact reciprocal, a row's elements split over the cores. */
tsr_kernel_status tsr_requant_i8_xpulpv2(const int8_t *x, int8_t *y, uint32_t count, const tsr_rqs_params *r,
                                         uint32_t core_id, uint32_t core_count);
tsr_kernel_status tsr_add_i8_rqs_xpulpv2(const tsr_add_i8_rqs_args *args, uint32_t core_id, uint32_t core_count);
tsr_kernel_status tsr_hardswish_i8_xpulpv2(const tsr_hardswish_i8_args *args, uint32_t core_id, uint32_t core_count);
tsr_kernel_status tsr_irmsnorm_i8_xpulpv2(const tsr_irmsnorm_i8_args *args, uint32_t core_id, uint32_t core_count);
/* tsr_rope_i8 (Tessera's integer RoPE): a pair packed into half-words, each output one
 * cv.dotsp.h with the table pair's (c, -s) or (s, c) (a table not word-aligned: portable). */
tsr_kernel_status tsr_rope_i8_xpulpv2(int8_t *q, int8_t *k, const int16_t *table, uint32_t rows, uint32_t pos, uint32_t dim,
                                      uint32_t kv_dim, uint32_t head_size, uint32_t core_id, uint32_t core_count);
/* RoPE as a matrix, head size 4: the row's matrix transposed once into a word a column,
 * each output one cv.dotsp.b of the head's word with it (other head sizes: portable). */
tsr_kernel_status tsr_rope_matrix_i8_xpulpv2(const tsr_rope_matrix_i8_args *args, uint32_t core_id, uint32_t core_count);

#ifdef __cplusplus
}
#endif

#endif
