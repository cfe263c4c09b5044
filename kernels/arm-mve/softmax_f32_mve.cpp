// tsr_softmax_f32 with Helium's float lanes, the portable kernel's bits:
//  - the maximum by lane compares (a NaN never wins, as in the plain loop);
//  - e^x four lanes at a time by tsr_expf_branch_free's steps, each the same float
//    operation in the same order (the multiply-adds fused where tsr_mac fuses), so every
//    lane gives tsr_expf's bits (kernel_math.h), the out-of-range selections included,
//    except where the result is subnormal (Helium flushes it): those lanes take tsr_expf;
//  - the sum in the portable kernel's eight partial sums (two vectors) and its order of
//    combining them; the division one element at a time (Helium divides nothing).
#include <arm_mve.h>

#include "kernel_math.h"
#include "mac_mve.h"
#include "tessera/kernels_arm_mve.h"

namespace {

TSR_MVE_INLINE float32x4_t pow2i(int32x4_t e) // 2^e for e in -126..127
{
    return vreinterpretq_f32_s32(vshlq_n_s32(vaddq_n_s32(e, 127), 23));
}

// tsr_expf_branch_free in four lanes.
TSR_MVE_INLINE float32x4_t expf4(float32x4_t x)
{
    const float lo = -103.972f, hi = 88.72283f;
    const float32x4_t vlo = vdupq_n_f32(lo), vhi = vdupq_n_f32(hi);
    const float32x4_t xc = vpselq_f32(vlo, vpselq_f32(vhi, x, vcmpgtq_f32(x, vhi)), vcmpltq_f32(x, vlo));
    const float32x4_t t = vaddq_n_f32(vmulq_n_f32(xc, 1.44269504088896341f), 12582912.0f);
    const int32x4_t n = vsubq_n_s32(vreinterpretq_s32_f32(t), 0x4B400000);
    const float32x4_t fn = vsubq_n_f32(t, 12582912.0f);
    float32x4_t r = tsr_mve_mac(xc, fn, vdupq_n_f32(-0.693359375f));
    r = tsr_mve_mac(r, fn, vdupq_n_f32(2.12194440e-4f));
    float32x4_t p = vdupq_n_f32(1.9875691500e-4f);
    p = tsr_mve_mac(vdupq_n_f32(1.3981999507e-3f), p, r);
    p = tsr_mve_mac(vdupq_n_f32(8.3334519073e-3f), p, r);
    p = tsr_mve_mac(vdupq_n_f32(4.1665795894e-2f), p, r);
    p = tsr_mve_mac(vdupq_n_f32(1.6666665459e-1f), p, r);
    p = tsr_mve_mac(vdupq_n_f32(5.0000001201e-1f), p, r);
    p = vaddq_n_f32(tsr_mve_mac(r, p, vmulq_f32(r, r)), 1.0f);
    const int32x4_t e1 = vshrq_n_s32(n, 1), e2 = vsubq_s32(n, e1);
    const float32x4_t y = vmulq_f32(vmulq_f32(p, pow2i(e1)), pow2i(e2));
    // x < lo ? 0 : x >= hi ? inf : x != x ? x : y
    float32x4_t out = vpselq_f32(x, y, vcmpneq_f32(x, x));
    out = vpselq_f32(vdupq_n_f32(__builtin_inff()), out, vcmpgeq_f32(x, vhi));
    return vpselq_f32(vdupq_n_f32(0.0f), out, vcmpltq_f32(x, vlo));
}

// e^(x - max) in place as the loop below, but each lane whose result is subnormal (x - max
// below -87.34, which Helium would flush to zero) from the portable kernel's tsr_expf. Out
// of line: its calls would cost the common loop its vector registers.
__attribute__((noinline)) void exp_with_subnormals(float *x, uint32_t n, float max_val)
{
    for (uint32_t i = 0; i < n; i += 4u) {
        const mve_pred16_t p = vctp32q(n - i);
        const float32x4_t d = vsubq_n_f32(vldrwq_z_f32(x + i, p), max_val);
        vstrwq_p_f32(x + i, expf4(d), p);
        const mve_pred16_t tiny = vcmpltq_m_n_f32(d, -87.0f, p);
        if (tiny) {
            float lanes[4];
            vst1q_f32(lanes, d);
            for (uint32_t l = 0; l < 4u; ++l)
                if (tiny & (1u << (4u * l))) x[i + l] = tsr_expf(lanes[l]);
        }
    }
}

} // namespace

void tsr_softmax_f32_mve(float *x, uint32_t n)
{
    const uint32_t n4 = n & ~3u;
    float32x4_t m = vdupq_n_f32(x[0]), lowest = m;
    for (uint32_t j = 0; j < n4; j += 4u) {
        const float32x4_t v = vld1q_f32(x + j);
        m = vpselq_f32(v, m, vcmpgtq_f32(v, m));
        lowest = vminnmq_f32(lowest, v); // only to choose the loop below: a NaN may be passed over
    }
    float lane[4], low[4];
    vst1q_f32(lane, m);
    vst1q_f32(low, lowest);
    float max_val = lane[0], min_val = low[0];
    for (uint32_t l = 1; l < 4u; ++l) {
        max_val = lane[l] > max_val ? lane[l] : max_val;
        min_val = low[l] < min_val ? low[l] : min_val;
    }
    for (uint32_t j = n4; j < n; ++j) {
        max_val = x[j] > max_val ? x[j] : max_val;
        min_val = x[j] < min_val ? x[j] : min_val;
    }

    // Helium's float arithmetic flushes subnormal results to zero, the scalar FPU's does
    // not: where e^(x - max) is below 2^-126 (x - max < -87.34: rare, a score that far below
    // the row's maximum, which the pass above found) those lanes take the portable
    // kernel's scalar exponential.
    if (min_val - max_val >= -87.0f) {
        for (uint32_t i = 0; i < n; i += 4u) {
            const mve_pred16_t p = vctp32q(n - i);
            vstrwq_p_f32(x + i, expf4(vsubq_n_f32(vldrwq_z_f32(x + i, p), max_val)), p);
        }
    } else {
        exp_with_subnormals(x, n, max_val);
    }

    // The portable kernel's partial sums s0..s7: lo holds s0..s3, hi s4..s7.
    float32x4_t lo = vdupq_n_f32(0.0f), hi = lo;
    uint32_t i = 0;
    for (; i + 8u <= n; i += 8u) lo = vaddq_f32(lo, vld1q_f32(x + i)), hi = vaddq_f32(hi, vld1q_f32(x + i + 4));
    { // its tail: elements i.. added into s0..s6 (zeros beyond); s7 + 0 is s7, which is never -0
        float tail[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
        for (uint32_t l = 0; i + l < n; ++l) tail[l] = x[i + l];
        lo = vaddq_f32(lo, vld1q_f32(tail));
        hi = vaddq_f32(hi, vld1q_f32(tail + 4));
    }
    const float32x4_t s = vaddq_f32(lo, hi); // s0 += s4, ..., s3 += s7
    const float s0 = vgetq_lane_f32(s, 0) + vgetq_lane_f32(s, 2), s1 = vgetq_lane_f32(s, 1) + vgetq_lane_f32(s, 3);
    const float sum = s0 + s1;
    for (uint32_t k = 0; k < n; ++k) x[k] /= sum;
}
