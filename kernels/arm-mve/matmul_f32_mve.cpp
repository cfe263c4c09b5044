// tsr_matmul_f32 with Helium's float lanes: a lane per output, so that each output still
// adds its products one input after the other with the reference's multiply-add (fused
// where the target's scalar one is: tsr_mac), the reference's bits. A step gathers one
// input's weights of four output rows into a vector (VLDRW gather by row offsets), then
// multiplies-adds it by that input of each activation row.
#include <arm_mve.h>

#include "mac_mve.h"
#include "matmul_f32_driver.h"
#include "tessera/kernels_arm_mve.h"

namespace {

// The rows c < 4 of a block as element offsets from its first row, c k (a gather of
// column j loads w0[j + c k]).
TSR_MVE_INLINE uint32x4_t row_offsets(uint32_t k)
{
    const uint32x4_t lanes = {0u, 1u, 2u, 3u};
    return vmulq_n_u32(lanes, k);
}

struct MveBlocks {
    static void block_4x4(const float *x, const float *w, float *y, uint32_t k, uint32_t ldy, uint32_t r0, uint32_t i0)
    {
        const float *x0 = x + (size_t)r0 * k, *x1 = x0 + k, *x2 = x1 + k, *x3 = x2 + k, *w0 = w + (size_t)i0 * k;
        const uint32x4_t rows = row_offsets(k);
        float32x4_t a0 = vdupq_n_f32(0.0f), a1 = a0, a2 = a0, a3 = a0; // a_r: row r, outputs i0..i0+3
        for (uint32_t j = 0; j < k; ++j) {
            const float32x4_t c = vldrwq_gather_shifted_offset_f32(w0 + j, rows);
            a0 = tsr_mve_mac_n(a0, c, x0[j]), a1 = tsr_mve_mac_n(a1, c, x1[j]), a2 = tsr_mve_mac_n(a2, c, x2[j]), a3 = tsr_mve_mac_n(a3, c, x3[j]);
        }
        float *y0 = y + (size_t)r0 * ldy + i0;
        vst1q_f32(y0, a0);
        vst1q_f32(y0 + ldy, a1);
        vst1q_f32(y0 + 2 * (size_t)ldy, a2);
        vst1q_f32(y0 + 3 * (size_t)ldy, a3);
    }
    static void row_block8(const float *xr, const float *w, float *yr, uint32_t k, uint32_t i0)
    {
        const float *lo_w = w + (size_t)i0 * k, *hi_w = lo_w + 4u * (size_t)k;
        const uint32x4_t rows = row_offsets(k);
        float32x4_t lo = vdupq_n_f32(0.0f), hi = lo;
        for (uint32_t j = 0; j < k; ++j) {
            const float v = xr[j];
            lo = tsr_mve_mac_n(lo, vldrwq_gather_shifted_offset_f32(lo_w + j, rows), v);
            hi = tsr_mve_mac_n(hi, vldrwq_gather_shifted_offset_f32(hi_w + j, rows), v);
        }
        vst1q_f32(yr + i0, lo);
        vst1q_f32(yr + i0 + 4, hi);
    }
    static void row_block4(const float *xr, const float *w, float *yr, uint32_t k, uint32_t i0)
    {
        const float *w0 = w + (size_t)i0 * k;
        const uint32x4_t rows = row_offsets(k);
        float32x4_t acc = vdupq_n_f32(0.0f);
        for (uint32_t j = 0; j < k; ++j) acc = tsr_mve_mac_n(acc, vldrwq_gather_shifted_offset_f32(w0 + j, rows), xr[j]);
        vst1q_f32(yr + i0, acc);
    }
};

} // namespace

tsr_kernel_status tsr_matmul_f32_mve(const float *x, const float *w, float *y, uint32_t rows, uint32_t k, uint32_t n,
                                     uint32_t ldy, uint32_t core_id, uint32_t core_count)
{
    return tsr_matmul_f32_blocks<MveBlocks>(x, w, y, rows, k, n, ldy, core_id, core_count);
}
