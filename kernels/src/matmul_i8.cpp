#include "kernel_checks.h"
#include "matmul_i8_checks.h"

// Integer sums are exact in any order (the ranges keep them below 2^31), so this
// gives the reference's bits while doing less per MAC:
//   sum_j (x_j - x_zero) w_ij = sum_j x_j w_ij - x_zero sum_j w_ij,
// the second sum once per output channel and row-independent; four channels share
// each load of x; pointers step, no index arithmetic in the loop.
namespace {

int32_t row_sum(const int8_t *w, uint32_t k)
{
    int32_t s = 0;
    for (uint32_t j = 0; j < k; ++j) s += w[j];
    return s;
}

void four_channels(const int8_t *x, const int8_t *w0, uint32_t k, int32_t acc[4])
{
    const int8_t *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (const int8_t *end = x + k; x != end; ++x) {
        const int32_t v = *x;
        a0 += v * *w0++;
        a1 += v * *w1++;
        a2 += v * *w2++;
        a3 += v * *w3++;
    }
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

int32_t one_channel(const int8_t *x, const int8_t *w, uint32_t k)
{
    int32_t a = 0;
    for (const int8_t *end = x + k; x != end; ++x) a += int32_t(*x) * *w++;
    return a;
}

} // namespace

tsr_kernel_status tsr_matmul_i8(const tsr_matmul_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    const uint32_t k = a->k;
    for (uint32_t i = begin; i < end;) {
        const uint32_t block = end - i >= 4u ? 4u : 1u;
        int32_t offset[4]; // bias - x_zero * sum_j w_ij: the same for every row
        for (uint32_t c = 0; c < block; ++c)
            offset[c] = (a->bias ? a->bias[i + c] : 0) - a->x_zero * row_sum(a->w + (size_t)(i + c) * k, k);
        for (uint32_t r = 0; r < a->rows; ++r) {
            const int8_t *xr = a->x + (size_t)r * k;
            int32_t acc[4];
            if (block == 4u) four_channels(xr, a->w + (size_t)i * k, k, acc);
            else acc[0] = one_channel(xr, a->w + (size_t)i * k, k);
            int8_t *yr = a->y + (size_t)r * a->ldy + i;
            for (uint32_t c = 0; c < block; ++c)
                yr[c] = tsr_requantize_to_i8(acc[c] + offset[c], a->multiplier[i + c], a->shift[i + c], a->y_zero,
                                             a->y_min, a->y_max);
        }
        i += block;
    }
    return TSR_KERNEL_OK;
}
