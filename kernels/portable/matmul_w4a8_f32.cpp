// The dequantizing W4A8 matmul (the classifier of a W4A8 image that shares its table
// with the embedding): integer group sums, one float multiply per output.
#include "kernel_checks.h"
#include "matmul_w4a8_checks.h"
#include "matmul_w4a8_dot.h"
#include "tessera/kernels_i8_float.h"

// The definition, one weight at a time.
tsr_kernel_status tsr_matmul_w4a8_f32_ref(const tsr_matmul_w4a8_f32_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_w4a8_f32_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    const uint32_t k = a->k, groups = (k + 31u) / 32u, stride = tsr_w4_row_bytes(k);
    for (uint32_t r = 0; r < a->rows; ++r)
        for (uint32_t i = begin; i < end; ++i) {
            const uint8_t *wi = a->w + (size_t)i * stride, *gs = wi + (k + 1u) / 2u;
            int32_t acc = 0;
            for (uint32_t g = 0; g < groups; ++g) {
                int32_t dot = 0;
                for (uint32_t j = 32u * g; j < k && j < 32u * g + 32u; ++j) dot += (int32_t)a->x[(size_t)r * k + j] * tsr_w4_at(wi, j);
                acc += (int32_t)gs[g] * dot;
            }
            a->y[(size_t)r * a->ldy + i] = (float)acc * a->scale[i];
        }
    return TSR_KERNEL_OK;
}

// The same bits: a byte (two weights) at a time.
tsr_kernel_status tsr_matmul_w4a8_f32(const tsr_matmul_w4a8_f32_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_w4a8_f32_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    const uint32_t k = a->k, stride = tsr_w4_row_bytes(k);
    for (uint32_t i = begin; i < end; ++i)
        for (uint32_t r = 0; r < a->rows; ++r)
            a->y[(size_t)r * a->ldy + i] = (float)tsr_w4_row_dot(a->x + (size_t)r * k, a->w + (size_t)i * stride, k) * a->scale[i];
    return TSR_KERNEL_OK;
}
