#include "kernel_checks.h"

tsr_kernel_status tsr_rope_f32(float *q, float *k, const float *table, uint32_t rows, uint32_t pos,
                               uint32_t dim, uint32_t kv_dim, uint32_t head_size,
                               uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(q && k && table && rows && dim && kv_dim && head_size);
    TSR_KERNEL_REQUIRE(head_size % 2u == 0u && dim % head_size == 0u && kv_dim % head_size == 0u);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    const uint32_t half = head_size / 2u;
    const uint32_t pairs = dim / 2u; // kv_dim <= dim: the k pairs are a prefix of these
    uint32_t begin, end;
    tsr_core_range(rows * pairs, core_id, core_count, &begin, &end);
    for (uint32_t item = begin; item < end; ++item) {
        const uint32_t r = item / pairs, i = 2u * (item % pairs);
        const float *cs = table + ((size_t)(pos + r) * half + (i % head_size) / 2u) * 2u;
        const float fcr = cs[0], fci = cs[1];
        float *qv = q + (size_t)r * dim + i;
        float v0 = qv[0], v1 = qv[1];
        qv[0] = v0 * fcr - v1 * fci;
        qv[1] = v0 * fci + v1 * fcr;
        if (i < kv_dim) {
            float *kv = k + (size_t)r * kv_dim + i;
            v0 = kv[0]; v1 = kv[1];
            kv[0] = v0 * fcr - v1 * fci;
            kv[1] = v0 * fci + v1 * fcr;
        }
    }
    return TSR_KERNEL_OK;
}
