// tsr_matmul_i8 on XpulpV2: for each row of x and each block of four output channels,
// one pass over k in a hardware loop whose body loads a word of x and a word of each
// of the four weight rows (post-incrementing) and does four sdotsp.b: 16 MACs in 9
// instructions, no branch. The integer sums equal the portable kernel's (exact in any
// order), and the requantization is the portable one's (xpulpv2_requantize.h): bit-exact.
// Where the caller checked the tables once (flags TABLES_CHECKED: the runtime, at open)
// the kernel does not scan all n channels' multipliers and shifts again on every call (in
// L2 on siracusa: two loads of about 15 cycles a channel, on every core); each shift is
// clamped to its range where it is used, so a table changed since gives wrong numbers,
// never undefined behaviour.
#include "kernel_checks.h"
#include "matmul_i8_checks.h"
#include "matmul_i8_dot.h"
#include "tessera/kernels_xpulpv2.h"
#include "xpulpv2_dot.h"
#include "xpulpv2_requantize.h"

namespace {

// A token's one row without offsets (no bias, x_zero 0: every int8 image Tessera makes from a
// checkpoint): the block loop alone, without the rows loop, its strides and the offsets, so
// that the compiler keeps the call's constants in registers. Then the channels after the
// last block of four.
void row_without_offsets(const tsr_matmul_i8_args *a, uint32_t begin, uint32_t end, uint32_t skew,
                         const tsr_xpulpv2_output_bounds &bounds)
{
    const int8_t *const x = a->x;
    const uint32_t k = a->k;
    const int8_t *wi = a->w + (size_t)begin * k;
    int8_t *yi = a->y + begin;
    const int32_t *mi = a->multiplier + begin;
    const int8_t *si = a->shift + begin;
    uint32_t i = begin;
    for (; i + 4u <= end; i += 4u, wi += 4u * k, yi += 4, mi += 4, si += 4) {
        int32_t acc[4];
        tsr_xpulpv2_dot_1x4(x, wi, k, skew, acc);
        yi[0] = tsr_xpulpv2_requantize_bounded(acc[0], mi[0], si[0], bounds);
        yi[1] = tsr_xpulpv2_requantize_bounded(acc[1], mi[1], si[1], bounds);
        yi[2] = tsr_xpulpv2_requantize_bounded(acc[2], mi[2], si[2], bounds);
        yi[3] = tsr_xpulpv2_requantize_bounded(acc[3], mi[3], si[3], bounds);
    }
    for (; i < end; ++i, wi += k, ++yi, ++mi, ++si)
        *yi = tsr_xpulpv2_requantize_bounded(tsr_xpulpv2_dot_1x1(x, wi, k, skew), *mi, *si, bounds);
}

} // namespace

tsr_kernel_status tsr_matmul_i8_xpulpv2(const tsr_matmul_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    const bool checked = a && (a->flags & TSR_MATMUL_I8_TABLES_CHECKED) && !a->bias; // a bias: checked here
    TSR_KERNEL_REQUIRE(checked ? tsr_matmul_i8_scalars_ok(a) : tsr_matmul_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    const uint32_t k = a->k;
    if (!tsr_xpulpv2_words(a->x, a->w, k))
        return tsr_matmul_i8(a, core_id, core_count); // words only: the portable kernel for the rest
    int32_t offset[4] = {0, 0, 0, 0}; // bias - x_zero * sum_j w_ij, as the portable kernel (0 without either)
    // The arguments in locals: a store of an output byte may alias *a, so read through a
    // the compiler would load each again for every channel.
    const int32_t *const bias = a->bias, *const multiplier = a->multiplier;
    const int8_t *const shifts = a->shift;
    int8_t *const y = a->y;
    const uint32_t ldy = a->ldy;
    const int32_t x_zero = a->x_zero;
    const tsr_xpulpv2_output_bounds bounds = {a->y_min - a->y_zero, a->y_max - a->y_zero, a->y_zero};
    const bool offsets = bias || x_zero; // else every offset is 0, and a channel adds none
    if (a->rows == 1u && !offsets) {
        uint32_t begin, end;
        tsr_core_range(a->n, core_id, core_count, &begin, &end);
        row_without_offsets(a, begin, end, tsr_xpulpv2_skew(core_id, core_count, k >> 2), bounds);
        return TSR_KERNEL_OK;
    }
    tsr_xpulpv2_channel_blocks(
        a->x, a->w, a->rows, k, a->n, core_id, core_count,
        [&offset, offsets, bias, x_zero, k](uint32_t i, uint32_t block, const int8_t *wi) {
            if (!offsets) return;
            int32_t sums[4] = {0, 0, 0, 0};
            if (x_zero && block == 4u) tsr_xpulpv2_row_sums_4(wi, k, sums);
            else if (x_zero) sums[0] = tsr_i8_row_sum(wi, k);
            for (uint32_t c = 0; c < block; ++c) offset[c] = (bias ? bias[i + c] : 0) - x_zero * sums[c];
        },
        [&offset, offsets, multiplier, shifts, y, ldy, bounds](uint32_t r, uint32_t i, uint32_t block, const int32_t *acc) {
            tsr_xpulpv2_requantize_block(y + (size_t)r * ldy + i, acc, offset, offsets, multiplier + i, shifts + i, block,
                                         bounds);
        });
    return TSR_KERNEL_OK;
}
