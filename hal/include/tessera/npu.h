/*
 * The NPU as the HAL sees it: its job descriptor, its weight layout and what a job
 * computes, exactly. One header for the packer (which writes the layout), the
 * runtime (which fills descriptors) and every board's NPU or emulator (which reads
 * only this layout), so the three cannot drift.
 *
 * The engine is N-EUREKA (Siracusa): a bit-serial, output-stationary datapath that
 * runs a GEMM as a 1x1 (pointwise) convolution, 8-bit activations, per-channel
 * requantization, inputs and outputs in L1, weights streamed from its own weight
 * memory (NMS) or from L1. The layout below is the one its 1x1 mode reads (pulp-nnx,
 * neureka/: NeurekaWeight.encode; GVSoC's model, neureka_matrixvec.cpp), so the packer's
 * bytes go to the engine as they are.
 *
 * ---- Weight layout (tensor layouts TSR_LAYOUT_NPU_W8 and _W4) ------------------
 *
 * An n x k weight matrix W (output channel c, input channel j), each value a
 * two's-complement integer of `bits` bits (8, or 4: values in [-8, 7]), is stored
 * offset, U = W + 128 (0..255), the engine's weight offset (-128) taking it back:
 *
 *   k is cut into KB = ceil(k / 32) blocks of 32 input channels, n is padded to a
 *   multiple of 32 (TSR_NPU_BLOCK_N); every channel past k or past n holds U = 128 (W 0).
 *   Block (c, kb) is 32 bytes at byte (c * KB + kb) * 32: eight little-endian words,
 *   word g holding in its bit 4 b + t the bit b of U[c][kb * 32 + 4 g + t]
 *   (b = 0..7, t = 0..3).
 *
 * So a channel is KB * 32 bytes whatever the bits: the 1x1 mode reads eight bit planes
 * a block, and 4-bit weights take the room of 8-bit ones (their upper planes are
 * those of U = W + 128).
 *
 * ---- What a job computes (TSR_NPU_GEMM_I8) --------------------------------------
 *
 *   y[r * ldy + c] = clamp(requantize(sum_j x[r * ldx + j] * W[c][j], multiplier[c], shift[c]), -128, 127)
 *
 * for r < m, c < n, j < k, with requantize as the cluster's int8 kernels define it
 * (tessera/kernels_i8.h: (acc * m) >> (31 - s), rounded half up, saturated). The
 * bit-serial datapath forms the sum plane by plane, then adds its weight offset,
 *
 *   sum_j x_j W[c][j] = sum_b 2^b sum_{j : bit b of U[c][j] set} x_j - 128 sum_j x_j,
 *
 * which is the same integer: a job is bit-exact with tsr_matmul_i8 on the same values.
 *
 * ---- TSR_NPU_GEMM_I8_RQS ---------------------------------------------------------
 *
 * The same sum, requantized as QuantLib's RequantShift (N-EUREKA's scale, bias and
 * shift; tessera/kernels_quantlib.h), per output channel c:
 *
 *   y[r * ldy + c] = clamp((acc * multiplier[c] + addend[c] + 2^(rqs_shift-1)) >> rqs_shift, -128, 127)
 *
 * with the product and sum in 64 bits and the shift arithmetic (floor): bit-exact with
 * tsr_matmul_i8_rqs on the same values.
 *
 * ---- TSR_NPU_GEMM_I8_RQS_STAGE ---------------------------------------------------
 *
 * RequantShift as N-EUREKA's normalization/quantization stage computes it, the rounding
 * already in the addend (the packer adds 2^(rqs_shift-1) to QuantLib's):
 *
 *   y[r * ldy + c] = clamp((acc * multiplier[c] + addend[c]) >> rqs_shift, -128, 127)
 *
 * in 64 bits. Its producer guarantees what the stage needs to give these integers
 * (tessera/neureka_requant.h): rqs_shift <= 31, every multiplier >= 0, and
 * |acc| multiplier[c] + |addend[c]| < 2^31 for every accumulator the job's weights can
 * give; an engine may then read the two tables in place (they lie in L1), and another job
 * outside that promise gets the engine's integers, not these.
 */
#ifndef TESSERA_NPU_H
#define TESSERA_NPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera/hal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TSR_NPU_BLOCK_K 32u /* input channels per block: one 32-bit word per bit plane */
#define TSR_NPU_BLOCK_N 32u /* output channels the datapath computes at once; n is padded to it */
#define TSR_NPU_ALIGN 4u    /* descriptors, weights and strides: whole 32-bit words */
#define TSR_NPU_MAX_K 32768u

typedef enum tsr_npu_job_kind {
    TSR_NPU_GEMM_I8 = 1,    /* int8 pointwise convolution / GEMM with per-channel requantization */
    TSR_NPU_GEMM_I8_RQS = 2, /* the same with QuantLib's RequantShift per channel (multiplier, addend, rqs_shift) */
    TSR_NPU_GEMM_I8_RQS_STAGE = 3 /* RequantShift as the engine's stage takes it: the rounding in the addend */
} tsr_npu_job_kind;

/* tsr_npu_job.flags */
#define TSR_NPU_WEIGHTS_NMS 1u /* weights are read in place from NMS; otherwise from L1 (staged there by DMA) */
#define TSR_NPU_FLAGS_ 1u

struct tsr_npu_job {
    uint32_t kind;        /* tsr_npu_job_kind */
    uint32_t flags;       /* TSR_NPU_* */
    uint32_t weight_bits; /* 8 or 4 */
    uint32_t m, n, k;     /* rows, output channels, input channels: each >= 1, k <= TSR_NPU_MAX_K */
    uint32_t ldx, ldy;    /* bytes from one row of input (>= k) / output (>= n) to the next */
    const uint32_t *weights;   /* the layout above, channels 0..n-1 (4-byte aligned) */
    const int8_t *input;       /* m rows in L1 */
    int8_t *output;            /* m rows in L1 */
    const int32_t *multiplier; /* n; GEMM_I8: each 0 or in [2^30, 2^31); GEMM_I8_RQS: any; _STAGE: each >= 0 */
    const int8_t *shift;       /* GEMM_I8: n, each in [-31, 30]; the RequantShift forms: unused */
    uint32_t tag;              /* opaque to the engine; boards show it in traces (the runtime: the step's layer) */
    const int32_t *addend;     /* GEMM_I8_RQS and _STAGE: n */
    uint32_t rqs_shift;        /* GEMM_I8_RQS: 0..62; _STAGE: 0..31 */
};

#define TSR_NPU_PLANES 8u     /* bit planes a block holds, whatever the weight bits */
#define TSR_NPU_W_OFFSET 128  /* U = W + 128: the engine's weight offset is -128 */

/* Words of one output channel: KB blocks of eight words (32 bytes, the engine's weight port). */
static inline uint32_t tsr_npu_channel_words(uint32_t k, uint32_t bits)
{
    (void)bits; /* the 1x1 mode reads eight planes for any width */
    return (k + TSR_NPU_BLOCK_K - 1u) / TSR_NPU_BLOCK_K * TSR_NPU_PLANES;
}
/* Bytes of one output channel, and of a whole n x k matrix (n padded to TSR_NPU_BLOCK_N). */
static inline uint64_t tsr_npu_channel_bytes(uint32_t k, uint32_t bits) { return 4u * (uint64_t)tsr_npu_channel_words(k, bits); }
static inline uint64_t tsr_npu_weight_bytes(uint32_t n, uint32_t k, uint32_t bits)
{
    const uint64_t padded = ((uint64_t)n + TSR_NPU_BLOCK_N - 1u) / TSR_NPU_BLOCK_N * TSR_NPU_BLOCK_N;
    return padded * tsr_npu_channel_bytes(k, bits);
}

/* Whether [p, p + bytes) lies inside `r`. */
static inline bool tsr_npu_inside(const tsr_hal_region *r, const void *p, uint64_t bytes)
{
    const uintptr_t a = (uintptr_t)p, base = (uintptr_t)r->base;
    return r->base != NULL && a >= base && bytes <= r->size && a - base <= r->size - bytes;
}

/* What a board checks before it queues a job (regions: the board's table). A job it
 * refuses is not queued and changes nothing. */
static inline tsr_hal_status tsr_npu_check_job(const tsr_npu_job *job, const tsr_hal_region regions[TSR_REGION_COUNT])
{
    if (job == NULL) return TSR_HAL_INVALID;
    if ((uintptr_t)job % TSR_NPU_ALIGN != 0u) return TSR_HAL_MISALIGNED;
    const bool stage = job->kind == TSR_NPU_GEMM_I8_RQS_STAGE, rqs = job->kind == TSR_NPU_GEMM_I8_RQS || stage;
    if ((job->kind != TSR_NPU_GEMM_I8 && !rqs) || (job->flags & ~TSR_NPU_FLAGS_) != 0u) return TSR_HAL_INVALID;
    if (rqs ? (!job->addend || job->rqs_shift > (stage ? 31u : 62u) || (uintptr_t)job->addend % 4u != 0u) : !job->shift)
        return TSR_HAL_INVALID;
    if (job->weight_bits != 8u && job->weight_bits != 4u) return TSR_HAL_INVALID;
    if (!job->m || !job->n || !job->k || job->k > TSR_NPU_MAX_K || job->ldx < job->k || job->ldy < job->n)
        return TSR_HAL_INVALID;
    if (!job->weights || !job->input || !job->output || !job->multiplier) return TSR_HAL_INVALID;
    if ((uintptr_t)job->weights % TSR_NPU_ALIGN != 0u || (uintptr_t)job->multiplier % 4u != 0u) return TSR_HAL_MISALIGNED;
    const tsr_hal_region *l1 = &regions[TSR_REGION_L1];
    const uint64_t in_bytes = (uint64_t)(job->m - 1u) * job->ldx + job->k;
    const uint64_t out_bytes = (uint64_t)(job->m - 1u) * job->ldy + job->n;
    if (!tsr_npu_inside(l1, job->input, in_bytes) || !tsr_npu_inside(l1, job->output, out_bytes))
        return TSR_HAL_OUT_OF_REGION;
    const uint64_t w_bytes = (uint64_t)job->n * tsr_npu_channel_bytes(job->k, job->weight_bits);
    const tsr_hal_region *w_region = (job->flags & TSR_NPU_WEIGHTS_NMS) ? &regions[TSR_REGION_NMS] : l1;
    if (!tsr_npu_inside(w_region, job->weights, w_bytes)) return TSR_HAL_OUT_OF_REGION;
    return TSR_HAL_OK;
}

/* requantize(acc, m, s) as tessera/kernels_i8.h defines it, clamped to int8. */
static inline int8_t tsr_npu_requantize(int32_t acc, int32_t multiplier, int32_t shift)
{
    if (shift < -31) shift = -31; /* the datapath's shifter saturates; a valid job never asks for more */
    if (shift > 30) shift = 30;
    const int64_t rounded = ((((int64_t)acc * multiplier) >> (30 - shift)) + 1) >> 1;
    return (int8_t)(rounded < -128 ? -128 : rounded > 127 ? 127 : rounded);
}

/* (acc * multiplier + addend) >> shift, clamped to int8 (shift 0..62): the stage's form. */
static inline int8_t tsr_npu_requant_stage(int32_t acc, int32_t multiplier, int32_t addend, uint32_t shift)
{
    const int64_t v = ((int64_t)acc * multiplier + addend) >> shift;
    return (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v);
}

/* QuantLib's RequantShift of acc, clamped to int8 (shift 0..62). */
static inline int8_t tsr_npu_requant_shift(int32_t acc, int32_t multiplier, int32_t addend, uint32_t shift)
{
    const int64_t round = shift ? (int64_t)1 << (shift - 1u) : 0;
    const int64_t v = ((int64_t)acc * multiplier + addend + round) >> shift;
    return (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v);
}

/* Runs a checked job the way the bit-serial datapath does: for each output channel,
 * block by block and plane by plane, the inputs whose offset weight U has the plane's
 * bit set are summed with the plane's weight 2^b; the weight offset then takes
 * 128 sum_j x_j away. */
static inline void tsr_npu_run_job(const tsr_npu_job *job)
{
    const uint32_t blocks = (job->k + TSR_NPU_BLOCK_K - 1u) / TSR_NPU_BLOCK_K;
    for (uint32_t r = 0; r < job->m; ++r) {
        const int8_t *x = job->input + (size_t)r * job->ldx;
        int32_t x_sum = 0;
        for (uint32_t j = 0; j < job->k; ++j) x_sum += x[j];
        for (uint32_t c = 0; c < job->n; ++c) {
            const uint32_t *w = job->weights + (size_t)c * blocks * TSR_NPU_PLANES;
            int32_t acc = 0;
            for (uint32_t kb = 0; kb < blocks; ++kb)
                for (uint32_t g = 0; g < TSR_NPU_PLANES; ++g) {
                    const uint32_t j0 = kb * TSR_NPU_BLOCK_K + 4u * g;
                    const uint32_t word = w[kb * TSR_NPU_PLANES + g];
                    for (uint32_t b = 0; b < TSR_NPU_PLANES; ++b) {
                        int32_t plane = 0;
                        for (uint32_t t = 0; t < 4u && j0 + t < job->k; ++t) /* padding never reads x */
                            if ((word >> (4u * b + t)) & 1u) plane += x[j0 + t];
                        acc += plane * (int32_t)(1u << b);
                    }
                }
            acc -= TSR_NPU_W_OFFSET * x_sum;
            job->output[(size_t)r * job->ldy + c] =
                job->kind == TSR_NPU_GEMM_I8_RQS_STAGE ? tsr_npu_requant_stage(acc, job->multiplier[c], job->addend[c], job->rqs_shift)
                : job->kind == TSR_NPU_GEMM_I8_RQS     ? tsr_npu_requant_shift(acc, job->multiplier[c], job->addend[c], job->rqs_shift)
                                                       : tsr_npu_requantize(acc, job->multiplier[c], job->shift[c]);
        }
    }
}

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_NPU_H */
