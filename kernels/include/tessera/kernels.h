/*
 * Tessera compute kernels (fp32).
 *
 * Contract shared by every kernel:
 *  - operands by pointer, row-major, no aliasing between inputs and outputs unless
 *    the kernel says "in place";
 *  - each call computes the share of the work of core `core_id` out of
 *    `core_count` (core_id < core_count, core_count >= 1); calling it once per
 *    core, in any order or concurrently, computes the whole operator;
 *  - every output element is produced by exactly one core with a fixed summation
 *    order, so results do not depend on core_count;
 *  - no kernel allocates, blocks or calls the HAL.
 *
 * `_ref` kernels are the plain definitions the optimized ones are tested against.
 */
#ifndef TESSERA_KERNELS_H
#define TESSERA_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tsr_kernel_status {
    TSR_KERNEL_OK = 0,
    TSR_KERNEL_BAD_ARGUMENT = 1 /* null pointer, zero size or core_id >= core_count */
} tsr_kernel_status;

/* n / d for d >= 1. Where the cores divide slowly (TSR_CORES_DIVIDE_SLOWLY, from the CV32E40P's
 * toolchain files: a serial divider, up to 35 cycles), for a cluster's core counts (d <= 16)
 * and n < 2^27, the high word of n times ceil(2^32 / d): exact there, since
 * n (ceil(2^32 / d) d - 2^32) < 2^27 d <= 2^31; every kernel call splits its work. Elsewhere
 * the division. */
static inline uint32_t tsr_quotient_by_cores(uint32_t n, uint32_t d)
{
#if !defined(TSR_CORES_DIVIDE_SLOWLY)
    return n / d;
#else
    static const uint32_t reciprocal[17] = {0u, 0u, 2147483648u, 1431655766u, 1073741824u, 858993460u,
                                            715827883u, 613566757u, 536870912u, 477218589u, 429496730u,
                                            390451573u, 357913942u, 330382100u, 306783379u, 286331154u,
                                            268435456u};
    if (d >= 2u && d <= 16u && n < (1u << 27)) return (uint32_t)(((uint64_t)n * reciprocal[d]) >> 32);
    return d == 1u ? n : n / d;
#endif
}

/* [begin, end) share of `total` items for one core; contiguous, balanced to within one.
 * When the split is uneven the last cores take the extra items: core 0 also drives
 * the DMA engine and walks the schedule. */
static inline void tsr_core_range(uint32_t total, uint32_t core_id, uint32_t core_count,
                                  uint32_t *begin, uint32_t *end)
{
    const uint32_t base = tsr_quotient_by_cores(total, core_count), first_big = core_count - (total - base * core_count);
    *begin = core_id * base + (core_id > first_big ? core_id - first_big : 0u);
    *end = *begin + base + (core_id >= first_big ? 1u : 0u);
}

/* out[r] = table[tokens[r]]. tokens[r] in [0, vocab) (checked by the caller); dim >= 1. */
tsr_kernel_status tsr_embed_f32(const int32_t *tokens, const float *table, float *out,
                                uint32_t rows, uint32_t dim, uint32_t core_id, uint32_t core_count);

/* y[r] = weight * x[r] / sqrt(mean(x[r]^2) + eps). dim >= 1, eps > 0. y may equal x. */
tsr_kernel_status tsr_rmsnorm_f32(const float *x, const float *weight, float *y, uint32_t rows,
                                  uint32_t dim, float eps, uint32_t core_id, uint32_t core_count);

/* y[r] = weight * (x[r] - mean) / sqrt(var + eps) + bias, mean and var (biased: over dim) of
 * x[r]; as torch.nn.functional.layer_norm. dim >= 1, eps > 0. y must not overlap x (with
 * fewer rows than cores, every core reads a whole row that the others write parts of). */
tsr_kernel_status tsr_layernorm_f32(const float *x, const float *weight, const float *bias, float *y, uint32_t rows,
                                    uint32_t dim, float eps, uint32_t core_id, uint32_t core_count);

/* y[r * ldy + i] = sum_j w[i][j] * x[r][j] for r < rows, i < n, j < k (GEMM; GEMV when
 * rows = 1). rows, k, n >= 1, ldy >= n (the row stride of y, so a column tile can
 * be written in place). Work is split over output columns i. */
tsr_kernel_status tsr_matmul_f32_ref(const float *x, const float *w, float *y, uint32_t rows,
                                     uint32_t k, uint32_t n, uint32_t ldy, uint32_t core_id,
                                     uint32_t core_count);
tsr_kernel_status tsr_matmul_f32(const float *x, const float *w, float *y, uint32_t rows,
                                 uint32_t k, uint32_t n, uint32_t ldy, uint32_t core_id,
                                 uint32_t core_count);

/* Rotary embedding as llama2.c applies it, in place: for every pair (2i, 2i+1) of q
 * (rows x dim) and of k (rows x kv_dim), rotate by the angle of position pos + r and
 * pair index (2i mod head_size)/2. table[p][j] = {cos, sin}, p < context,
 * j < head_size/2. head_size even, dim and kv_dim multiples of head_size,
 * pos + rows <= context. */
tsr_kernel_status tsr_rope_f32(float *q, float *k, const float *table, uint32_t rows, uint32_t pos,
                               uint32_t dim, uint32_t kv_dim, uint32_t head_size,
                               uint32_t core_id, uint32_t core_count);

/* Causal grouped-query attention over the KV cache, whole (the reference). Row r
 * (position pos + r) of head h attends to cache positions 0..pos+r of kv head
 * h / (n_heads / n_kv_heads). q, y: rows x (n_heads * head_size); caches:
 * context x (n_kv_heads * head_size); scratch: core_count x context floats.
 * n_heads a multiple of n_kv_heads, pos + rows <= context. */
tsr_kernel_status tsr_attention_f32_ref(const float *q, const float *k_cache, const float *v_cache,
                                        float *scratch, float *y, uint32_t rows, uint32_t pos,
                                        uint32_t n_heads, uint32_t n_kv_heads, uint32_t head_size,
                                        uint32_t context, uint32_t core_id, uint32_t core_count);

/* Attention in tiles over the cached sequence, the pieces the tiled executor runs
 * for one (row, head): scores of a chunk of keys, then (after tsr_softmax_f32 over
 * all scores) the weighted sum of a chunk of values. Same operations in the same
 * order as the whole kernel, so the results are identical.
 *   scores[t] = dot(q, keys[t]) / sqrt(head_size), t < count; split over t.
 *   out[i] += sum_t probs[t] * values[t][i], i < head_size; split over i.
 * keys/values: count rows of head_size floats, contiguous. */
tsr_kernel_status tsr_attention_scores_f32(const float *q, const float *keys, float *scores,
                                           uint32_t count, uint32_t head_size, uint32_t core_id,
                                           uint32_t core_count);
tsr_kernel_status tsr_attention_accumulate_f32(const float *probs, const float *values, float *out,
                                               uint32_t count, uint32_t head_size, uint32_t core_id,
                                               uint32_t core_count);
/* The first position a row sees that sees n positions (its own the last) through a local
 * window of `window` (0: none, every position). */
static inline uint32_t tsr_attention_window_first(uint32_t n, uint32_t window)
{
    return window && n > window ? n - window : 0u;
}

/* One (row, head)'s scratch on its core: the scores row of `context` floats, softmaxed in
 * place, that the accumulate pass reads (the sums go straight into the output). */
uint32_t tsr_attention_f32_scratch_bytes(uint32_t context);

/* y = a + b over `count` elements. y may equal a or b. */
tsr_kernel_status tsr_add_f32(const float *a, const float *b, float *y, uint32_t count,
                              uint32_t core_id, uint32_t core_count);

/* y = GELU(x) in its tanh form, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (GPT-2's
 * "gelu_new"), over `count` elements. y may equal x. */
tsr_kernel_status tsr_gelu_tanh_f32(const float *x, float *y, uint32_t count, uint32_t core_id, uint32_t core_count);
/* y = GELU(x) in its exact form, 0.5 x (1 + erf(x / sqrt(2))) (GPT-2's "gelu"; erf within
 * 1.5e-7, Abramowitz and Stegun 7.1.26), over `count` elements. y may equal x. */
tsr_kernel_status tsr_gelu_erf_f32(const float *x, float *y, uint32_t count, uint32_t core_id, uint32_t core_count);

/* y = silu(gate) * up over `count` elements, silu(v) = v / (1 + exp(-v)). y may alias. */
tsr_kernel_status tsr_swiglu_f32(const float *gate, const float *up, float *y, uint32_t count,
                                 uint32_t core_id, uint32_t core_count);

/* In-place softmax of n >= 1 values (single core: the reduction is not split). The
 * maximum and the sum run in eight lanes (element i in lane i % 8) combined pairwise,
 * a fixed order: the same bits for every caller, vectorizable on the host. */
void tsr_softmax_f32(float *x, uint32_t n);

/* Index of the first maximum of n >= 1 values. */
uint32_t tsr_argmax_f32(const float *x, uint32_t n);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_KERNELS_H */
