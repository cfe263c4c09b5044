// RMSNorm, RoPE, residual add and attention over bf16 tensors: fp32 arithmetic, one
// rounding per output.

#include "kernel_checks.h"
#include "kernel_math.h"
#include "split_loops.h"
#include "tessera/kernels_bf16.h"

namespace {
inline float f(tsr_bf16 v) { return tsr_f32_from_bf16(v); }
inline tsr_bf16 b(float v) { return tsr_bf16_from_f32(v); }
inline float exp_of(float x, tsr_exp_kind kind) { return kind == TSR_EXP_SCHRAUDOLPH ? tsr_expf_schraudolph(x) : tsr_expf(x); }
} // namespace

tsr_kernel_status tsr_rmsnorm_bf16(const tsr_bf16 *x, const tsr_bf16 *weight, tsr_bf16 *y, uint32_t rows, uint32_t dim,
                                   float eps, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(x && weight && y && rows && dim && eps > 0.0f);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t r0, r1, c0, c1;
    tsr_rmsnorm_split(rows, dim, core_id, core_count, &r0, &r1, &c0, &c1);
    for (uint32_t r = r0; r < r1; ++r) {
        const tsr_bf16 *xr = x + (size_t)r * dim;
        tsr_bf16 *yr = y + (size_t)r * dim;
        float ss = 0.0f;
        for (uint32_t j = 0; j < dim; ++j) ss = tsr_mac(ss, f(xr[j]), f(xr[j]));
        ss = 1.0f / tsr_sqrtf(ss / (float)dim + eps);
        for (uint32_t j = c0; j < c1; ++j) yr[j] = b(f(weight[j]) * (ss * f(xr[j])));
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_rope_bf16(tsr_bf16 *q, tsr_bf16 *k, const float *table, uint32_t rows, uint32_t pos,
                                uint32_t dim, uint32_t kv_dim, uint32_t head_size, uint32_t core_id,
                                uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(q && k && table && rows && tsr_rope_shape_ok(dim, kv_dim, head_size));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    tsr_rope_pairs(rows, pos, dim, kv_dim, head_size, core_id, core_count, [&](uint32_t r, uint32_t i, size_t pair, bool in_k) {
        const float c = table[2u * pair], s = table[2u * pair + 1u];
        tsr_bf16 *qv = q + (size_t)r * dim + i;
        float v0 = f(qv[0]), v1 = f(qv[1]);
        qv[0] = b(v0 * c - v1 * s);
        qv[1] = b(v0 * s + v1 * c);
        if (in_k) {
            tsr_bf16 *kv = k + (size_t)r * kv_dim + i;
            v0 = f(kv[0]), v1 = f(kv[1]);
            kv[0] = b(v0 * c - v1 * s);
            kv[1] = b(v0 * s + v1 * c);
        }
    });
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_add_bf16(const tsr_bf16 *a, const tsr_bf16 *bb, tsr_bf16 *y, uint32_t count, uint32_t core_id,
                               uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(a && bb && y && count);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(count, core_id, core_count, &begin, &end);
    for (uint32_t i = begin; i < end; ++i) y[i] = b(f(a[i]) + f(bb[i]));
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_attention_scores_bf16(const tsr_bf16 *q, const tsr_bf16 *keys, float *scores, uint32_t count,
                                            uint32_t head_size)
{
    TSR_KERNEL_REQUIRE(q && keys && scores && count && head_size);
    const float inv = 1.0f / tsr_sqrtf((float)head_size);
    for (uint32_t t = 0; t < count; ++t) {
        const tsr_bf16 *key = keys + (size_t)t * head_size;
        float dot = 0.0f;
        for (uint32_t d = 0; d < head_size; ++d) dot = tsr_mac(dot, f(q[d]), f(key[d]));
        scores[t] = dot * inv;
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_softmax_f32_exp(float *x, uint32_t n, tsr_exp_kind kind)
{
    TSR_KERNEL_REQUIRE(x && n && (kind == TSR_EXP_ACCURATE || kind == TSR_EXP_SCHRAUDOLPH));
    float max = x[0];
    for (uint32_t i = 1; i < n; ++i) max = x[i] > max ? x[i] : max;
    float sum = 0.0f;
    for (uint32_t i = 0; i < n; ++i) sum += (x[i] = exp_of(x[i] - max, kind));
    const float inv = 1.0f / sum;
    for (uint32_t i = 0; i < n; ++i) x[i] *= inv;
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_attention_accumulate_bf16(const float *probs, const tsr_bf16 *values, float *acc,
                                                uint32_t count, uint32_t head_size)
{
    TSR_KERNEL_REQUIRE(probs && values && acc && count && head_size);
    for (uint32_t t = 0; t < count; ++t) {
        const tsr_bf16 *v = values + (size_t)t * head_size;
        for (uint32_t d = 0; d < head_size; ++d) acc[d] = tsr_mac(acc[d], probs[t], f(v[d]));
    }
    return TSR_KERNEL_OK;
}

uint32_t tsr_attention_bf16_scratch_bytes(uint32_t context, uint32_t head_size) { return 4u * context + 4u * head_size; }
