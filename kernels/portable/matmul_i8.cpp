#include "kernel_checks.h"
#include "matmul_i8_checks.h"

// Integer sums are exact in any order (the ranges keep them below 2^31), so this
// gives the reference's bits while doing less per MAC:
//   sum_j (x_j - x_zero) w_ij = sum_j x_j w_ij - x_zero sum_j w_ij,
// the second sum once per output channel and row-independent (matmul_i8_dot.h).
#include "matmul_i8_dot.h"
#include "requantize_fast.h"

tsr_kernel_status tsr_matmul_i8(const tsr_matmul_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    const uint32_t k = a->k;
    int32_t offset[8]; // bias - x_zero * sum_j w_ij: the same for every row
    tsr_i8_channel_blocks(
        a->x, a->w, a->rows, k, begin, end,
        [&](uint32_t i, uint32_t block) {
            for (uint32_t c = 0; c < block; ++c) // symmetric activations (x_zero 0) skip the row sums
                offset[c] = (a->bias ? a->bias[i + c] : 0) -
                            (a->x_zero ? a->x_zero * tsr_i8_row_sum(a->w + (size_t)(i + c) * k, k) : 0);
        },
        [&](uint32_t r, uint32_t i, uint32_t block, const int32_t *acc) {
            int8_t *yr = a->y + (size_t)r * a->ldy + i;
            for (uint32_t c = 0; c < block; ++c)
                yr[c] = tsr_requantize_to_i8_fast(acc[c] + offset[c], a->multiplier[i + c], a->shift[i + c], a->y_zero,
                                             a->y_min, a->y_max);
        });
    return TSR_KERNEL_OK;
}

bool tsr_matmul_i8_tables_ok(const int32_t *multiplier, const int8_t *shift, const int32_t *bias, uint32_t n,
                             uint32_t *flags)
{
    if (!multiplier || !shift || !flags || !tsr_matmul_i8_table_ok(multiplier, shift, bias, 0u, n)) return false;
    int32_t most = -31;
    for (uint32_t i = 0; i < n; ++i) most = shift[i] > most ? shift[i] : most;
    *flags = TSR_MATMUL_I8_TABLES_CHECKED | (most <= -2 ? TSR_MATMUL_I8_SHIFTS_FAST : 0u);
    return true;
}
