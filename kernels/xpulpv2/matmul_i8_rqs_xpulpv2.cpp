// tsr_matmul_i8_rqs (QuantLib's RequantShift per channel: Deeploy's graphs) on XpulpV2:
// the dot products of matmul_i8_xpulpv2.cpp, then the RequantShift. When x mul + add +
// round stays within int32 for every possible dot product (|x . w| <= k 2^14) with the
// largest |mul| and |add| of a block of four channels (checked once a block, from the
// values the block reads anyway), each output is the 32-bit form, clamped with max /
// min; otherwise the portable tsr_rqs_apply, which checks each. The same integers
// either way, bit-exact. Where the caller proved the 32-bit form for every channel
// (TSR_MATMUL_I8_RQS_FITS_32: the runtime, at open, from the weights) no block checks; the
// 32-bit form is then computed in unsigned words, so that a flag given wrongly wraps
// instead of overflowing.
#include "kernel_checks.h"
#include "tessera/kernels_quantlib.h"
#include "tessera/kernels_xpulpv2.h"
#include "xpulpv2_dot.h"
#include "xpulpv2_rqs.h"

namespace {

// Whether a block of four channels' 32-bit form holds for every int8 row (|x . w| <= bound),
// from its multipliers' and addends' largest magnitudes.
inline bool block_fits(bool shift_ok, uint32_t bound, int32_t m0, int32_t m1, int32_t m2, int32_t m3, int32_t a0,
                       int32_t a1, int32_t a2, int32_t a3, uint32_t round)
{
    const uint32_t mm = tsr_xpulpv2_maxu(tsr_xpulpv2_maxu(tsr_xpulpv2_magnitude(m0), tsr_xpulpv2_magnitude(m1)),
                                         tsr_xpulpv2_maxu(tsr_xpulpv2_magnitude(m2), tsr_xpulpv2_magnitude(m3)));
    const uint32_t ma = tsr_xpulpv2_maxu(tsr_xpulpv2_maxu(tsr_xpulpv2_magnitude(a0), tsr_xpulpv2_magnitude(a1)),
                                         tsr_xpulpv2_maxu(tsr_xpulpv2_magnitude(a2), tsr_xpulpv2_magnitude(a3)));
    return shift_ok && tsr_xpulpv2_fits_32_bit(bound, mm, ma, round);
}

// Channels [begin, end): four at a time (then one), each block's multipliers and
// addends read once for all rows; the block's outputs in the 32-bit form when it holds
// for all four channels, through tsr_rqs_apply (which checks each) otherwise.
// TwoRows: the fast form's rows two at a time (each weight word loaded once for both); an
// instantiation of its own, so that the one-row loop keeps its registers.
// (acc mul + d) >> shift in 32-bit words (d: the addend and rounding term), clamped.
inline int32_t rqs_32(int32_t acc, int32_t mul, uint32_t d, int32_t shift, int32_t lo, int32_t hi)
{
    return tsr_xpulpv2_clamp((int32_t)((uint32_t)acc * (uint32_t)mul + d) >> shift, lo, hi);
}

template <bool TwoRows>
void rqs_blocks(const tsr_matmul_i8_rqs_args *a, uint32_t begin, uint32_t end, uint32_t skew)
{
    const int8_t *const x = a->x, *const w = a->w;
    int8_t *const y = a->y; // its stores alias nothing the loops read from a
    const int32_t *const mul = a->mul, *const add = a->add;
    const uint32_t rows = a->rows, k = a->k, ldy = a->ldy, bound = a->k << 14; // |x . w| for int8 rows of k
    const int32_t shift = a->range.shift, lo = a->range.lo, hi = a->range.hi;
    const bool shift_ok = shift < 31;
    const int32_t round = shift > 0 && shift_ok ? (int32_t)(1u << (shift - 1)) : 0;
    const bool fits = shift_ok && (a->flags & TSR_MATMUL_I8_RQS_FITS_32) != 0u; // every block's 32-bit form holds
    uint32_t i = begin;
    for (; i + 4u <= end; i += 4u) {
        const int8_t *wi = w + (size_t)i * k;
        const int32_t m0 = mul[i], m1 = mul[i + 1], m2 = mul[i + 2], m3 = mul[i + 3];
        const int32_t a0 = add[i], a1 = add[i + 1], a2 = add[i + 2], a3 = add[i + 3];
        if (!fits && !block_fits(shift_ok, bound, m0, m1, m2, m3, a0, a1, a2, a3, (uint32_t)round)) {
            tsr_rqs_prepared p[4];
            for (uint32_t c = 0; c < 4u; ++c) {
                const tsr_rqs_params r = {mul[i + c], add[i + c], shift, lo, hi};
                p[c] = tsr_rqs_prepare(&r);
            }
            for (uint32_t r = 0; r < rows; ++r) {
                int32_t acc[4];
                tsr_xpulpv2_dot_1x4(x + (size_t)r * k, wi, k, skew, acc);
                for (uint32_t c = 0; c < 4u; ++c) y[(size_t)r * ldy + i + c] = (int8_t)tsr_rqs_apply(&p[c], acc[c]);
            }
            continue;
        }
        const uint32_t d0 = (uint32_t)a0 + (uint32_t)round, d1 = (uint32_t)a1 + (uint32_t)round,
                       d2 = (uint32_t)a2 + (uint32_t)round, d3 = (uint32_t)a3 + (uint32_t)round;
        auto store = [&](uint32_t r, const int32_t acc[4]) {
            int8_t *yr = y + (size_t)r * ldy + i;
            yr[0] = (int8_t)rqs_32(acc[0], m0, d0, shift, lo, hi);
            yr[1] = (int8_t)rqs_32(acc[1], m1, d1, shift, lo, hi);
            yr[2] = (int8_t)rqs_32(acc[2], m2, d2, shift, lo, hi);
            yr[3] = (int8_t)rqs_32(acc[3], m3, d3, shift, lo, hi);
        };
        uint32_t r = 0;
        for (; TwoRows && r + 2u <= rows; r += 2u) {
            int32_t acc0[4], acc1[4];
            tsr_xpulpv2_dot_2x4(x + (size_t)r * k, x + (size_t)(r + 1u) * k, wi, k, skew, acc0, acc1);
            store(r, acc0);
            store(r + 1u, acc1);
        }
        for (; r < rows; ++r) {
            int32_t acc[4];
            tsr_xpulpv2_dot_1x4(x + (size_t)r * k, wi, k, skew, acc);
            store(r, acc);
        }
    }
    for (; i < end; ++i) {
        const int8_t *wi = w + (size_t)i * k;
        const tsr_rqs_params r = {mul[i], add[i], shift, lo, hi};
        tsr_xpulpv2_rqs q;
        const bool fast = fits || tsr_xpulpv2_rqs_for(&r, bound, &q);
        const tsr_rqs_prepared p = fast ? tsr_rqs_prepared{} : tsr_rqs_prepare(&r);
        const uint32_t d = (uint32_t)add[i] + (uint32_t)round;
        for (uint32_t row = 0; row < rows; ++row) {
            const int32_t acc = tsr_xpulpv2_dot_1x1(x + (size_t)row * k, wi, k, skew);
            y[(size_t)row * ldy + i] = (int8_t)(fast ? rqs_32(acc, mul[i], d, shift, lo, hi) : tsr_rqs_apply(&p, acc));
        }
    }
}

// A token's one row with every block's 32-bit form known (TSR_MATMUL_I8_RQS_FITS_32): the
// block loop alone, without the rows loop and its strides, so that the compiler keeps the
// block's constants in registers. Then the channels after the last block of four.
void rqs_row_fits(const tsr_matmul_i8_rqs_args *a, uint32_t begin, uint32_t end, uint32_t skew)
{
    const int8_t *const x = a->x;
    const int8_t *wi = a->w + (size_t)begin * a->k;
    int8_t *yi = a->y + begin;
    const int32_t *mi = a->mul + begin, *ai = a->add + begin;
    const uint32_t k = a->k;
    const int32_t shift = a->range.shift, lo = a->range.lo, hi = a->range.hi; // shift < 31 (fits)
    const uint32_t round = shift > 0 ? 1u << (shift - 1) : 0u;
    uint32_t i = begin;
    for (; i + 4u <= end; i += 4u, wi += 4u * k, yi += 4, mi += 4, ai += 4) {
        int32_t acc[4];
        tsr_xpulpv2_dot_1x4(x, wi, k, skew, acc);
        yi[0] = (int8_t)rqs_32(acc[0], mi[0], (uint32_t)ai[0] + round, shift, lo, hi);
        yi[1] = (int8_t)rqs_32(acc[1], mi[1], (uint32_t)ai[1] + round, shift, lo, hi);
        yi[2] = (int8_t)rqs_32(acc[2], mi[2], (uint32_t)ai[2] + round, shift, lo, hi);
        yi[3] = (int8_t)rqs_32(acc[3], mi[3], (uint32_t)ai[3] + round, shift, lo, hi);
    }
    for (; i < end; ++i, wi += k, ++yi, ++mi, ++ai)
        *yi = (int8_t)rqs_32(tsr_xpulpv2_dot_1x1(x, wi, k, skew), *mi, (uint32_t)*ai + round, shift, lo, hi);
}

} // namespace

tsr_kernel_status tsr_matmul_i8_rqs_xpulpv2(const tsr_matmul_i8_rqs_args *a, uint32_t core_id, uint32_t core_count)
{
    if (!a || !tsr_xpulpv2_words(a->x, a->w, a->k)) return tsr_matmul_i8_rqs(a, core_id, core_count); // it checks
    TSR_KERNEL_REQUIRE(a->mul && a->add && a->y && a->rows && a->k <= 32768u && a->n && a->ldy >= a->n &&
                       tsr_rqs_valid(&a->range) && a->range.lo >= -128 && a->range.hi <= 127);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    const uint32_t skew = tsr_xpulpv2_skew(core_id, core_count, a->k >> 2);
    if (a->rows > 1u) rqs_blocks<true>(a, begin, end, skew);
    else if ((a->flags & TSR_MATMUL_I8_RQS_FITS_32) && a->range.shift < 31) rqs_row_fits(a, begin, end, skew);
    else rqs_blocks<false>(a, begin, end, skew);
    return TSR_KERNEL_OK;
}
