/*
 * Tessera compute kernels for Arm's Helium (the M-profile Vector Extension of the
 * Cortex-M55 and M85; kernels/arm-mve/): 128-bit vectors of sixteen int8 lanes,
 * VMLADAV's sixteen multiply-accumulates into one 32-bit sum an instruction, tails by
 * lane predication (VCTP) instead of scalar loops. The same contracts and the same
 * results, bit for bit, as the portable kernels they stand in for (tessera/kernels_i8.h,
 * tessera/kernels_i8_float.h). Built for Arm targets with MVE (CMake's
 * TESSERA_KERNEL_SETS with ARM_MVE); the runtime registers them for boards whose
 * tsr_hal_board.isa has TSR_ISA_ARM_MVE (boards/mps3-an547).
 */
#ifndef TESSERA_KERNELS_ARM_MVE_H
#define TESSERA_KERNELS_ARM_MVE_H

#include "tessera/kernels.h"
#include "tessera/kernels_i8.h"
#include "tessera/kernels_i8_float.h"
#include "tessera/kernels_quantlib.h"

/* The sets' helpers (dot products, requantization, the exponential) are forced inline:
 * a MinSizeRel build (-Os) would otherwise call them once per vector. */
#define TSR_MVE_INLINE inline __attribute__((always_inline))

#ifdef __cplusplus
extern "C" {
#endif

/* tsr_matmul_i8: four output channels a pass over a row of x, one VMLADAVA per sixteen
 * MACs a channel, the four sums requantized as one vector; the zero point folded out as
 * in the portable kernel. */
tsr_kernel_status tsr_matmul_i8_mve(const tsr_matmul_i8_args *args, uint32_t core_id, uint32_t core_count);
/* tsr_matmul_i8_f32 (the dequantizing classifier): the same dot products. */
tsr_kernel_status tsr_matmul_i8_f32_mve(const tsr_matmul_i8_f32_args *args, uint32_t core_id, uint32_t core_count);
/* tsr_matmul_i8_rqs (Deeploy's graphs): the same dot products, four channels'
 * RequantShift as one vector where its 32-bit form holds (tsr_rqs_apply), else by lane. */
tsr_kernel_status tsr_matmul_i8_rqs_mve(const tsr_matmul_i8_rqs_args *args, uint32_t core_id, uint32_t core_count);

/* tsr_matmul_f32 in float lanes, a lane per output (its bits: each output's products
 * added in input order with the reference's multiply-add), weights gathered four rows
 * at a time. */
tsr_kernel_status tsr_matmul_f32_mve(const float *x, const float *w, float *y, uint32_t rows, uint32_t k, uint32_t n,
                                     uint32_t ldy, uint32_t core_id, uint32_t core_count);

/* tsr_softmax_f32 (attention.f32 tuned whole: these three): e^x four lanes at a time by tsr_expf's own steps, the
 * sum in the portable kernel's order (its bits). */
void tsr_softmax_f32_mve(float *x, uint32_t n);
/* tsr_attention_scores_f32 (four positions a vector, keys gathered) and
 * tsr_attention_accumulate_f32 (outputs in lanes), each lane in the reference's order. */
tsr_kernel_status tsr_attention_scores_f32_mve(const float *q, const float *keys, float *scores, uint32_t count,
                                               uint32_t head_size, uint32_t core_id, uint32_t core_count);
tsr_kernel_status tsr_attention_accumulate_f32_mve(const float *probs, const float *values, float *out, uint32_t count,
                                                   uint32_t head_size, uint32_t core_id, uint32_t core_count);

/* Keys a stride apart: the portable scores kernel (so the runtime does not ask for one). */
#define TSR_ATTENTION_KV_STRIDE_FREE_mve 0
/* Its softmax computes the exponentials four lanes at a time: no table (the runtime then
 * neither passes nor copies one). */
#define TSR_SOFTMAX_I8_READS_TABLE_mve 0
/* The integer attention's pieces (attention.i8.integer). Scores: head sizes 4, 8 and
 * multiples of 16 with q_zero 0, a predicated VMLADAV a position, four positions
 * requantized as one vector; any other shape runs the portable kernel. Accumulate: four
 * accumulators a vector, a position's values times its probability (VMLA). Softmax: the
 * integer exponential and the division four lanes at a time. */
tsr_kernel_status tsr_attention_scores_i8_mve(const tsr_attention_scores_i8_args *args, uint32_t core_id,
                                              uint32_t core_count);
tsr_kernel_status tsr_attention_accumulate_i8_mve(const tsr_attention_accumulate_i8_args *args, uint32_t core_id,
                                                  uint32_t core_count);
tsr_kernel_status tsr_softmax_i8_mve(const tsr_softmax_i8_args *args, uint32_t *scratch);

/* The int8 elementwise kernels, four lanes at a time (kernels/arm-mve/elementwise_i8_mve.cpp
 * says how each stays exact). */
tsr_kernel_status tsr_add_i8_mve(const tsr_add_i8_args *args, uint32_t core_id, uint32_t core_count);
tsr_kernel_status tsr_swiglu_i8_mve(const tsr_swiglu_i8_args *args, uint32_t core_id, uint32_t core_count);
tsr_kernel_status tsr_rmsnorm_i8_mve(const tsr_rmsnorm_i8_args *args, uint32_t core_id, uint32_t core_count);
/* tsr_rope_i8: four pairs a vector as complex products (VQRDMLSDH, VQRDMLADHX). */
tsr_kernel_status tsr_rope_i8_mve(int8_t *q, int8_t *k, const int16_t *table, uint32_t rows, uint32_t pos, uint32_t dim,
                                  uint32_t kv_dim, uint32_t head_size, uint32_t core_id, uint32_t core_count);

#ifdef __cplusplus
}
#endif

#endif
