// tsr_matmul_i8_f32 on XpulpV2 (the dequantizing classifier of an int8 image): the
// dot products of tsr_matmul_i8_xpulpv2 (four output channels a pass over k, one
// sdotsp.b per four MACs a channel, in a hardware loop), then the portable kernel's one
// float multiply per output: the integer sums are exact in any order, so the outputs
// are the portable kernel's bit for bit.
#include "kernel_checks.h"
#include "matmul_i8_checks.h"
#include "tessera/kernels_i8_float.h"
#include "tessera/kernels_xpulpv2.h"
#include "xpulpv2_dot.h"

tsr_kernel_status tsr_matmul_i8_f32_xpulpv2(const tsr_matmul_i8_f32_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_i8_f32_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    if (!tsr_xpulpv2_words(a->x, a->w, a->k))
        return tsr_matmul_i8_f32(a, core_id, core_count); // words only: the portable kernel for the rest
    tsr_xpulpv2_channel_blocks(
        a->x, a->w, a->rows, a->k, a->n, core_id, core_count, [](uint32_t, uint32_t, const int8_t *) {},
        [&](uint32_t r, uint32_t i, uint32_t block, const int32_t *acc) {
            float *y = a->y + (size_t)r * a->ldy + i;
            for (uint32_t c = 0; c < block; ++c) y[c] = (float)acc[c] * a->scale[i + c];
        });
    return TSR_KERNEL_OK;
}
