/*
 * Tessera compute kernels tuned for x86-64 with AVX2 (kernels/x86/): the same contracts
 * and the same results, bit for bit, as the portable kernels they stand in for
 * (tessera/kernels_i8.h, tessera/kernels_i8_float.h). Built only for x86 targets, each
 * file with -mavx2; call them only where tsr_x86_avx2_available() says the machine
 * runs AVX2 (the runtime registers them for boards whose tsr_hal_board.isa has
 * TSR_ISA_X86_AVX2: the host board checks the machine once, when it is made).
 */
#ifndef TESSERA_KERNELS_X86_H
#define TESSERA_KERNELS_X86_H

#include "tessera/kernels.h"
#include "tessera/kernels_i8.h"
#include "tessera/kernels_i8_float.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether this machine and its OS run AVX2 (CPUID leaf 7 and the saved YMM state). */
int tsr_x86_avx2_available(void);

/* tsr_matmul_f32: its blocks of outputs in SSE vectors, four outputs a register (a
 * multiply then an add, as the portable kernel without FMA). */
tsr_kernel_status tsr_matmul_f32_sse(const float *x, const float *w, float *y, uint32_t rows, uint32_t k, uint32_t n,
                                     uint32_t ldy, uint32_t core_id, uint32_t core_count);
/* tsr_matmul_i8: sixteen products per instruction (sign-extended to 16 bits, multiplied
 * and added in pairs), four output channels per pass over a row of x. */
tsr_kernel_status tsr_matmul_i8_avx2(const tsr_matmul_i8_args *args, uint32_t core_id, uint32_t core_count);
/* tsr_matmul_i8_f32: the same integer dot products. */
tsr_kernel_status tsr_matmul_i8_f32_avx2(const tsr_matmul_i8_f32_args *args, uint32_t core_id, uint32_t core_count);
/* tsr_attention_scores_i8 and tsr_attention_accumulate_i8: head size 8 (stories260K's)
 * vectorized, two cached positions a register; other head sizes, and keys and values a
 * stride apart, as the portable kernels (so the runtime does not ask for a stride). */
#define TSR_ATTENTION_KV_STRIDE_FREE_avx2 0
/* Its softmax computes the exponentials eight lanes at a time: no table (the runtime then
 * neither passes nor copies one). */
#define TSR_SOFTMAX_I8_READS_TABLE_avx2 0
tsr_kernel_status tsr_attention_scores_i8_avx2(const tsr_attention_scores_i8_args *args, uint32_t core_id,
                                               uint32_t core_count);
tsr_kernel_status tsr_attention_accumulate_i8_avx2(const tsr_attention_accumulate_i8_args *args, uint32_t core_id,
                                                   uint32_t core_count);
/* tsr_softmax_i8: the integer exponential eight lanes at a time, the quotients by
 * exact double-precision division. Scratch as tsr_softmax_i8_scratch_bytes. */
tsr_kernel_status tsr_softmax_i8_avx2(const tsr_softmax_i8_args *args, uint32_t *scratch);

/* tsr_rmsnorm_i8 and tsr_swiglu_i8: eight elements at a time, the divisions by exact
 * double-precision quotients. */
tsr_kernel_status tsr_rmsnorm_i8_avx2(const tsr_rmsnorm_i8_args *args, uint32_t core_id, uint32_t core_count);
tsr_kernel_status tsr_swiglu_i8_avx2(const tsr_swiglu_i8_args *args, uint32_t core_id, uint32_t core_count);

#ifdef __cplusplus
}
#endif

#endif
