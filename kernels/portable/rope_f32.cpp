#include "kernel_checks.h"
#include "split_loops.h"

tsr_kernel_status tsr_rope_f32(float *q, float *k, const float *table, uint32_t rows, uint32_t pos,
                               uint32_t dim, uint32_t kv_dim, uint32_t head_size,
                               uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(q && k && table && rows && tsr_rope_shape_ok(dim, kv_dim, head_size));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    tsr_rope_pairs(rows, pos, dim, kv_dim, head_size, core_id, core_count, [&](uint32_t r, uint32_t i, size_t pair, bool in_k) {
        const float fcr = table[2u * pair], fci = table[2u * pair + 1u];
        float *qv = q + (size_t)r * dim + i;
        float v0 = qv[0], v1 = qv[1];
        qv[0] = v0 * fcr - v1 * fci;
        qv[1] = v0 * fci + v1 * fcr;
        if (in_k) {
            float *kv = k + (size_t)r * kv_dim + i;
            v0 = kv[0]; v1 = kv[1];
            kv[0] = v0 * fcr - v1 * fci;
            kv[1] = v0 * fci + v1 * fcr;
        }
    });
    return TSR_KERNEL_OK;
}
