// tsr_softmax_i8 with Helium, four lanes at a time, the portable kernel's bits:
//  - the maximum, sixteen scores a VMAXV;
//  - e = iexp(d), tsr_mve_iexp (iexp_mve.h);
//  - y = floor((4096 e + sum / 2) / sum) as the portable kernel finds it: the high word
//    of m r, r = floor((2^32 - 1) / sum), then corrected upwards twice (it is at most
//    two short), stored narrowed to sixteen bits.
// Corrections are lane arithmetic on sign masks (no predicate to move), and whole
// vectors run unpredicated, the last partial one once.
#include <arm_mve.h>

#include "iexp_mve.h"
#include "kernel_checks.h"

namespace {

// The exponentials of x[0..4) (lanes beyond `p` not stored and not summed).
TSR_MVE_INLINE uint32x4_t exps4(const int8_t *x, mve_pred16_t p, int32x4_t max, int32x4_t shift, float inv_ln2,
                                const tsr_iexp_constants &k)
{
    return tsr_mve_iexp(vshlq_s32(vsubq_s32(max, vldrbq_z_s32(x, p)), shift), inv_ln2, k);
}

// floor(m / sum) for the four m = 4096 e + half (< 2^31).
TSR_MVE_INLINE uint32x4_t quotients(uint32x4_t e, uint32_t half, uint32_t reciprocal, uint32_t sum)
{
    const uint32x4_t m = vaddq_n_u32(vshlq_n_u32(e, 12), half);
    return vreinterpretq_u32_s32(tsr_mve_floor_div(vreinterpretq_s32_u32(m), reciprocal, (int32_t)sum)); // sum < 2^31
}

} // namespace

tsr_kernel_status tsr_softmax_i8_mve(const tsr_softmax_i8_args *a, uint32_t *e)
{
    if (!tsr_softmax_i8_args_ok(a, e)) return TSR_KERNEL_BAD_ARGUMENT;
    const int8_t *x = a->x;
    const uint32_t n = a->n, n4 = n & ~3u;
    const tsr_iexp_constants k = a->constants;
    int8_t max = x[0];
    for (uint32_t i = 0; i < n; i += 16u) {
        const mve_pred16_t p = vctp8q(n - i);
        max = vmaxvq_p_s8(max, vldrbq_z_s8(x + i, p), p);
    }
    const float inv_ln2 = 1.0f / (float)k.ln2;
    const int32x4_t vmax = vdupq_n_s32(max), shift = vdupq_n_s32(k.shift);
    const mve_pred16_t all = vctp32q(4u), tail = vctp32q(n - n4);
    uint32_t sum = 0;
    for (uint32_t i = 0; i < n4; i += 4u) {
        const uint32x4_t ev = exps4(x + i, all, vmax, shift, inv_ln2, k);
        vstrwq_u32(e + i, ev);
        sum = vaddvaq_u32(sum, ev);
    }
    if (n4 < n) {
        const uint32x4_t ev = exps4(x + n4, tail, vmax, shift, inv_ln2, k);
        vstrwq_p_u32(e + n4, ev, tail);
        sum = vaddvaq_p_u32(sum, ev, tail);
    }
    const uint32_t reciprocal = 0xFFFFFFFFu / sum, half = sum / 2u;
    for (uint32_t i = 0; i < n4; i += 4u) vstrhq_u32(a->y + i, quotients(vldrwq_u32(e + i), half, reciprocal, sum));
    if (n4 < n) vstrhq_p_u32(a->y + n4, quotients(vldrwq_z_u32(e + n4, tail), half, reciprocal, sum), tail);
    return TSR_KERNEL_OK;
}
