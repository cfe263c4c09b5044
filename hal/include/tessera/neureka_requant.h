/*
 * A job's requantization (tessera/npu.h) as N-EUREKA's normalization/quantization stage
 * computes it, and when that is exact.
 *
 * The stage (GVSoC's neureka_normquant.cpp, 32-bit scale, bias and per-channel shift) gives
 * output channel c of an accumulator acc
 *
 *   y = clamp((int32_t)(acc * scale[c] + bias[c]) >> shift[c], -128, 127)
 *
 * with scale unsigned 32-bit, bias int32, shift 0..31, the product and sum taken in 64 bits
 * and then truncated to 32 (the shift arithmetic). Each of a job's forms is
 * floor((acc * M + A) / 2^S), clamped:
 *
 *   TSR_NPU_GEMM_I8      M = multiplier, A = 2^(30 - s), S = 31 - s  (s = shift, -31..30)
 *   TSR_NPU_GEMM_I8_RQS  M = multiplier, A = addend + 2^(S - 1) (0 when S = 0), S = rqs_shift
 *   TSR_NPU_GEMM_I8_RQS_STAGE  M = multiplier, A = addend, S = rqs_shift
 *
 * and with z = min(S, trailing zeros of M), floor((acc M + A) / 2^S) =
 * floor((acc (M >> z) + (A >> z)) / 2^(S - z)) (A >> z the floor). So the stage gives the
 * job's integers, for every |acc| <= bound, when M >= 0, S - z <= 31 and
 * (M >> z) bound + |A >> z| < 2^31: nothing then wraps in the truncation. A job whose
 * channels all pass runs whole on the engine; any other finishes on the cluster.
 */
#ifndef TESSERA_NEUREKA_REQUANT_H
#define TESSERA_NEUREKA_REQUANT_H

#include <stdbool.h>
#include <stdint.h>

#include "tessera/npu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsr_neureka_requant {
    uint32_t scale;
    int32_t bias;
    uint8_t shift;
} tsr_neureka_requant;

/* The largest |acc| a job's inputs can give: |x| <= 128, |W| <= 2^(bits - 1), k terms. */
static inline uint64_t tsr_neureka_acc_bound(const tsr_npu_job *job)
{
    return (uint64_t)job->k * 128u * (1u << (job->weight_bits - 1u));
}

/* Channel c of a checked job in the stage's terms; false when the stage cannot give its
 * integers for every |acc| <= bound (the cluster's case). */
static inline bool tsr_neureka_requant_of(const tsr_npu_job *job, uint32_t c, uint64_t bound, tsr_neureka_requant *out)
{
    const int32_t m = job->multiplier[c];
    if (m < 0) return false;
    int64_t a;
    uint32_t s;
    if (job->kind != TSR_NPU_GEMM_I8) {
        s = job->rqs_shift;
        a = (int64_t)job->addend[c] + (s && job->kind == TSR_NPU_GEMM_I8_RQS ? (int64_t)1 << (s - 1u) : 0);
    } else {
        int32_t sh = job->shift[c];
        sh = sh < -31 ? -31 : sh > 30 ? 30 : sh; /* as tsr_npu_requantize */
        s = (uint32_t)(31 - sh);
        a = (int64_t)1 << (30 - sh);
    }
    const uint32_t tz = m == 0 ? 64u : (uint32_t)__builtin_ctz((uint32_t)m);
    const uint32_t z = tz < s ? tz : s;
    const uint64_t scale = (uint64_t)(uint32_t)m >> z;
    const int64_t bias = a >> z; /* arithmetic: the floor */
    if (s - z > 31u) return false;
    const uint64_t mag = bias < 0 ? (uint64_t)-bias : (uint64_t)bias;
    /* scale < 2^32 and bound < 2^30 (k <= TSR_NPU_MAX_K): the product fits 64 bits, no division */
    if (mag > (uint64_t)INT32_MAX || scale * bound > (uint64_t)INT32_MAX - mag) return false;
    out->scale = (uint32_t)scale;
    out->bias = (int32_t)bias;
    out->shift = (uint8_t)(s - z);
    return true;
}

/* y as the stage computes it. */
static inline int8_t tsr_neureka_requantize(int32_t acc, const tsr_neureka_requant *q)
{
    const int32_t v = (int32_t)(uint32_t)((uint64_t)((int64_t)acc * (int64_t)q->scale + q->bias));
    const int32_t y = v >> q->shift;
    return (int8_t)(y < -128 ? -128 : y > 127 ? 127 : y);
}

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_NEUREKA_REQUANT_H */
