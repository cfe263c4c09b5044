// The int8 rotary embedding and residual add: integers only.
#include "elementwise_i8_checks.h"
#include "kernel_checks.h"
#include "split_loops.h"
#include "tessera/kernels_i8.h"

namespace {

int8_t saturate(int32_t v) { return int8_t(v < -128 ? -128 : v > 127 ? 127 : v); }

// round(v / 2^14), halves up.
int32_t q14(int32_t v) { return (v + (1 << 13)) >> 14; }

} // namespace

tsr_kernel_status tsr_rope_i8(int8_t *q, int8_t *k, const int16_t *table, uint32_t rows, uint32_t pos, uint32_t dim,
                              uint32_t kv_dim, uint32_t head_size, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(q && k && table && rows && tsr_rope_shape_ok(dim, kv_dim, head_size));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    tsr_rope_pairs(rows, pos, dim, kv_dim, head_size, core_id, core_count, [&](uint32_t r, uint32_t i, size_t pair, bool in_k) {
        const int32_t c = table[2u * pair], s = table[2u * pair + 1u];
        int8_t *qv = q + (size_t)r * dim + i;
        int32_t v0 = qv[0], v1 = qv[1];
        qv[0] = saturate(q14(v0 * c - v1 * s));
        qv[1] = saturate(q14(v0 * s + v1 * c));
        if (in_k) {
            int8_t *kv = k + (size_t)r * kv_dim + i;
            v0 = kv[0], v1 = kv[1];
            kv[0] = saturate(q14(v0 * c - v1 * s));
            kv[1] = saturate(q14(v0 * s + v1 * c));
        }
    });
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_add_i8(const tsr_add_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_add_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->count, core_id, core_count, &begin, &end);
    for (uint32_t i = begin; i < end; ++i)
        a->y[i] = saturate(tsr_requantize(a->a[i], a->a_multiplier, a->a_shift) +
                           tsr_requantize(a->b[i], a->b_multiplier, a->b_shift));
    return TSR_KERNEL_OK;
}
