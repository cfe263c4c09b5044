// tsr_matmul_i8_rqs (QuantLib's RequantShift per channel: Deeploy's graphs) on XpulpV2:
// the dot products of matmul_i8_xpulpv2.cpp, then the RequantShift. When x mul + add +
// round stays within int32 for every possible dot product (|x . w| <= k 2^14) with the
// largest |mul| and |add| of the core's channels (one hardware loop over them a call),
// each output is the 32-bit form, clamped with cv.max / cv.min; otherwise the portable
// tsr_rqs_apply, which checks each. The same integers either way, bit-exact.
#include "kernel_checks.h"
#include "tessera/kernels_quantlib.h"
#include "tessera/kernels_xpulpv2.h"
#include "xpulpv2_dot.h"
#include "xpulpv2_rqs.h"

namespace {

// Whether every channel in [begin, end) takes the 32-bit form.
bool all_32_bit(const tsr_matmul_i8_rqs_args *a, uint32_t begin, uint32_t end)
{
    const int32_t shift = a->range.shift;
    if (shift >= 31 || begin >= end) return shift < 31;
    const int32_t *mul = a->mul + begin, *add = a->add + begin;
    uint32_t most_mul = 0, most_add = 0, m, d;
    __asm__ volatile(".balign 4\n.option push\n.option norvc\n.option norelax\n"
                     TSR_CV_SETUP0("%[n]", 6)
                     TSR_CV_LW_POST4("%[m]", "%[mul]")
                     TSR_CV_LW_POST4("%[d]", "%[add]")
                     TSR_CV_ABS("%[m]", "%[m]")
                     TSR_CV_ABS("%[d]", "%[d]")
                     TSR_CV_MAXU("%[mm]", "%[mm]", "%[m]")
                     TSR_CV_MAXU("%[md]", "%[md]", "%[d]")
                     ".option pop\n"
                     : [mul] "+r"(mul), [add] "+r"(add), [mm] "+r"(most_mul), [md] "+r"(most_add), [m] "=&r"(m),
                       [d] "=&r"(d)
                     : [n] "r"(end - begin)
                     : "memory");
    const uint32_t round = shift > 0 ? 1u << (shift - 1) : 0u;
    return (uint64_t)(a->k << 14) * most_mul + most_add + round <= 0x7FFFFFFFu;
}

// Channels [begin, end) in the 32-bit form: four at a time (then one), each block's
// multipliers and addends (with the rounding term) held for all rows.
void rqs_32_bit(const tsr_matmul_i8_rqs_args *a, uint32_t begin, uint32_t end, uint32_t skew)
{
    const int8_t *const x = a->x, *const w = a->w;
    int8_t *const y = a->y; // its stores alias nothing the loops read from a
    const int32_t *const mul = a->mul, *const add = a->add;
    const uint32_t rows = a->rows, k = a->k, ldy = a->ldy;
    const int32_t shift = a->range.shift, lo = a->range.lo, hi = a->range.hi;
    const int32_t round = shift > 0 ? (int32_t)(1u << (shift - 1)) : 0;
    uint32_t i = begin;
    for (; i + 4u <= end; i += 4u) {
        const int8_t *wi = w + (size_t)i * k;
        const int32_t m0 = mul[i], m1 = mul[i + 1], m2 = mul[i + 2], m3 = mul[i + 3];
        const int32_t d0 = add[i] + round, d1 = add[i + 1] + round, d2 = add[i + 2] + round, d3 = add[i + 3] + round;
        for (uint32_t r = 0; r < rows; ++r) {
            int32_t acc[4];
            tsr_xpulpv2_dot_1x4(x + (size_t)r * k, wi, k, skew, acc);
            int8_t *yr = y + (size_t)r * ldy + i;
            yr[0] = (int8_t)tsr_xpulpv2_clamp((acc[0] * m0 + d0) >> shift, lo, hi);
            yr[1] = (int8_t)tsr_xpulpv2_clamp((acc[1] * m1 + d1) >> shift, lo, hi);
            yr[2] = (int8_t)tsr_xpulpv2_clamp((acc[2] * m2 + d2) >> shift, lo, hi);
            yr[3] = (int8_t)tsr_xpulpv2_clamp((acc[3] * m3 + d3) >> shift, lo, hi);
        }
    }
    for (; i < end; ++i) {
        const int8_t *wi = w + (size_t)i * k;
        const int32_t m = mul[i], d = add[i] + round;
        for (uint32_t r = 0; r < rows; ++r)
            y[(size_t)r * ldy + i] =
                (int8_t)tsr_xpulpv2_clamp((tsr_xpulpv2_dot_1x1(x + (size_t)r * k, wi, k, skew) * m + d) >> shift, lo, hi);
    }
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
    if (all_32_bit(a, begin, end)) {
        rqs_32_bit(a, begin, end, tsr_xpulpv2_skew(core_id, a->k >> 2));
        return TSR_KERNEL_OK;
    }
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
