// The dequantizing int8 matmul (the classifier of an int8 image): integer dot
// products, one float multiply per output.
#include "kernel_checks.h"
#include "matmul_i8_checks.h"
#include "matmul_i8_dot.h"

uint32_t tsr_matmul_i8_f32_scratch_bytes(const tsr_matmul_i8_f32_args *) { return 0u; }

tsr_kernel_status tsr_matmul_i8_f32_ref(const tsr_matmul_i8_f32_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_i8_f32_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    for (uint32_t r = 0; r < a->rows; ++r)
        for (uint32_t i = begin; i < end; ++i) {
            int32_t acc = 0;
            for (uint32_t j = 0; j < a->k; ++j) acc += (int32_t)a->x[(size_t)r * a->k + j] * a->w[(size_t)i * a->k + j];
            a->y[(size_t)r * a->ldy + i] = (float)acc * a->scale[i];
        }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_matmul_i8_f32(const tsr_matmul_i8_f32_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_i8_f32_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    tsr_i8_channel_blocks(
        a->x, a->w, a->rows, a->k, begin, end, [](uint32_t, uint32_t) {},
        [&](uint32_t r, uint32_t i, uint32_t block, const int32_t *acc) {
            float *y = a->y + (size_t)r * a->ldy + i;
            for (uint32_t c = 0; c < block; ++c) y[c] = (float)acc[c] * a->scale[i + c];
        });
    return TSR_KERNEL_OK;
}
