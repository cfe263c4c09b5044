// tsr_rope_i8 with Helium: RoPE is a complex product, (v0 + i v1)(c + i s), and Helium
// has one for 16-bit lane pairs: VQRDMLSDH puts round(2 (a0 b0 - a1 b1) / 2^16) in the
// even lane, VQRDMLADHX round(2 (a0 b1 + a1 b0) / 2^16) in the odd one (rounding half
// up). With a = 2 v (int8 widened and doubled) and b = the table's Q14 (c, s), that is
// round((v0 c - v1 s) / 2^14) and round((v0 s + v1 c) / 2^14), halves up, as the
// portable kernel (|result| <= 255: no 16-bit saturation); VQMOVNB then saturates each
// to int8. Four pairs a vector, a head's tail predicated: the portable kernel's bits.
#include <arm_mve.h>

#include "kernel_checks.h"
#include "split_loops.h"
#include "tessera/kernels_arm_mve.h"

namespace {

// n pairs of v (2n int8, in place) turned by the table's n (c, s) pairs.
TSR_MVE_INLINE void rotate(int8_t *v, const int16_t *table, uint32_t n)
{
    for (uint32_t j = 0; j < 2u * n; j += 8u) {
        const mve_pred16_t p = vctp16q(2u * n - j);
        const int16x8_t x = vldrbq_z_s16(v + j, p);
        const int16x8_t a = vaddq_s16(x, x), b = vldrhq_z_s16(table + j, p);
        const int16x8_t y = vqrdmladhxq_s16(vqrdmlsdhq_s16(vuninitializedq_s16(), a, b), a, b);
        vstrbq_p_s16(v + j, vreinterpretq_s16_s8(vqmovnbq_s16(vuninitializedq_s8(), y)), p);
    }
}

} // namespace

tsr_kernel_status tsr_rope_i8_mve(int8_t *q, int8_t *k, const int16_t *table, uint32_t rows, uint32_t pos, uint32_t dim,
                                  uint32_t kv_dim, uint32_t head_size, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(q && k && table && rows && tsr_rope_shape_ok(dim, kv_dim, head_size));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    // tsr_rope_pairs' split, walked a head's run of pairs at a time (one table row part).
    const uint32_t half = head_size / 2u, pairs = dim / 2u;
    uint32_t begin, end;
    tsr_core_range(rows * pairs, core_id, core_count, &begin, &end);
    for (uint32_t item = begin; item < end;) {
        const uint32_t r = item / pairs, i = 2u * (item - r * pairs), in_head = (i % head_size) / 2u;
        const uint32_t n = end - item < half - in_head ? end - item : half - in_head;
        const int16_t *t = table + 2u * ((size_t)(pos + r) * half + in_head);
        rotate(q + (size_t)r * dim + i, t, n);
        if (i < kv_dim) rotate(k + (size_t)r * kv_dim + i, t, n); // kv_dim is whole heads
        item += n;
    }
    return TSR_KERNEL_OK;
}
