// Tessera's integer RoPE (tsr_rope_i8) on XpulpV2: the table pair (c, s) loaded as one word of
// half-words and each output one dotsp.h of it with the pair (v0, v1) packed as (v0, -v1) or
// (v1, v0) (the negation on the int8 side, where it cannot overflow: any table gives the
// portable kernel's bytes); the rounding, shift and saturation as the portable kernel's. The
// same split over the cores as tsr_rope_pairs (split_loops.h), walked a row at a time.
#include "kernel_checks.h"
#include "split_loops.h"
#include "tessera/kernels_xpulpv2.h"
#include "xpulpv2_insn.h"
#include "xpulpv2_rqs.h"

namespace {

// The half-words (lo, hi) as one word (pack: rs1's low half above rs2's).
inline uint32_t halves(int32_t lo, int32_t hi)
{
    uint32_t v;
    __asm__(TSR_XP_PACK("%0", "%1", "%2") : "=r"(v) : "r"(hi), "r"(lo));
    return v;
}

inline int32_t dot_h(uint32_t a, uint32_t b)
{
    int32_t d;
    __asm__(TSR_XP_DOTSP_H("%0", "%1", "%2") : "=r"(d) : "r"(a), "r"(b));
    return d;
}

// round(v / 2^14) halves up, saturated to int8 (the portable kernel's q14 and saturate).
inline int8_t q14_i8(int32_t v) { return (int8_t)tsr_xpulpv2_clamp((v + (1 << 13)) >> 14, -128, 127); }

// The pair at p turned by cs = (c, s): v0 c - v1 s, v1 c + v0 s.
inline void turn(int8_t *p, uint32_t cs)
{
    const int32_t v0 = p[0], v1 = p[1];
    p[0] = q14_i8(dot_h(halves(v0, -v1), cs));
    p[1] = q14_i8(dot_h(halves(v1, v0), cs));
}

} // namespace

tsr_kernel_status tsr_rope_i8_xpulpv2(int8_t *q, int8_t *k, const int16_t *table, uint32_t rows, uint32_t pos, uint32_t dim,
                                      uint32_t kv_dim, uint32_t head_size, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(q && k && table && rows && tsr_rope_shape_ok(dim, kv_dim, head_size));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    if ((uintptr_t)table & 3u) return tsr_rope_i8(q, k, table, rows, pos, dim, kv_dim, head_size, core_id, core_count);
    // tsr_rope_pairs' split, walked a row at a time: the row's table pairs (c, s), c the low
    // half, and each pair's head column j counted on, not recomputed a pair.
    const uint32_t half = head_size / 2u, pairs = dim / 2u, kv_pairs = kv_dim / 2u;
    uint32_t begin, end;
    tsr_core_range(rows * pairs, core_id, core_count, &begin, &end);
    for (uint32_t item = begin; item < end;) {
        // (A token's row, and a head size of a power of two: no division, up to 35 cycles here.)
        const uint32_t r = item < pairs ? 0u : item / pairs, p0 = item - r * pairs,
                       p1 = end - item < pairs - p0 ? p0 + (end - item) : pairs;
        const uint32_t *cs = (const uint32_t *)(const void *)table + (size_t)(pos + r) * half;
        int8_t *qr = q + (size_t)r * dim, *kr = k + (size_t)r * kv_dim;
        uint32_t j = (half & (half - 1u)) == 0u ? p0 & (half - 1u) : p0 % half;
        for (uint32_t p = p0; p < p1; ++p) {
            turn(qr + 2u * p, cs[j]);
            if (p < kv_pairs) turn(kr + 2u * p, cs[j]);
            if (++j == half) j = 0u;
        }
        item += p1 - p0;
    }
    return TSR_KERNEL_OK;
}
