// tsr_matmul_i8_rqs (QuantLib's RequantShift per channel: Deeploy's graphs) on XpulpV2:
// the dot products of matmul_i8_xpulpv2.cpp, the portable kernel's RequantShift
// (tsr_rqs_prepare / tsr_rqs_apply): the same integers, bit-exact.
#include "kernel_checks.h"
#include "tessera/kernels_quantlib.h"
#include "tessera/kernels_xpulpv2.h"
#include "xpulpv2_dot.h"

tsr_kernel_status tsr_matmul_i8_rqs_xpulpv2(const tsr_matmul_i8_rqs_args *a, uint32_t core_id, uint32_t core_count)
{
    if (!a || !tsr_xpulpv2_words(a->x, a->w, a->k)) return tsr_matmul_i8_rqs(a, core_id, core_count); // it checks
    TSR_KERNEL_REQUIRE(a->mul && a->add && a->y && a->rows && a->k <= 32768u && a->n && a->ldy >= a->n &&
                       tsr_rqs_valid(&a->range) && a->range.lo >= -128 && a->range.hi <= 127);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    tsr_rqs_prepared rqs[4]; // the block's channels, prepared once for every row
    tsr_xpulpv2_channel_blocks(
        a->x, a->w, a->rows, a->k, a->n, core_id, core_count,
        [&](uint32_t i, uint32_t block, const int8_t *) {
            for (uint32_t c = 0; c < block; ++c) {
                const tsr_rqs_params r = {a->mul[i + c], a->add[i + c], a->range.shift, a->range.lo, a->range.hi};
                rqs[c] = tsr_rqs_prepare(&r);
            }
        },
        [&](uint32_t r, uint32_t i, uint32_t block, const int32_t *acc) {
            int8_t *y = a->y + (size_t)r * a->ldy + i;
            for (uint32_t c = 0; c < block; ++c) y[c] = (int8_t)tsr_rqs_apply(&rqs[c], acc[c]);
        });
    return TSR_KERNEL_OK;
}
