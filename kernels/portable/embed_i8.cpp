// One token's embedding from a per-channel table shared with the classifier, rescaled
// in place (tsr_embed_row_i8_args). D elements a token: one plain version.
#include "kernel_checks.h"
#include "matmul_w4a8_checks.h"

tsr_kernel_status tsr_embed_row_i8(const tsr_embed_row_i8_args *a)
{
    TSR_KERNEL_REQUIRE(tsr_embed_row_i8_args_ok(a));
    int8_t *y = a->y;
    if (!a->w4) {
        for (uint32_t j = 0; j < a->dim; ++j) y[j] = tsr_requantize_to_i8(y[j], a->multiplier, a->shift, 0, -128, 127);
        return TSR_KERNEL_OK;
    }
    // Backwards: element j reads byte j / 2 <= j, which no later (smaller) element writes first.
    for (uint32_t j = a->dim; j-- > 0u;) {
        const int32_t w = tsr_w4_at((const uint8_t *)y, j) * (int32_t)a->group_scales[j / 32u];
        y[j] = tsr_requantize_to_i8(w, a->multiplier, a->shift, 0, -128, 127);
    }
    return TSR_KERNEL_OK;
}
