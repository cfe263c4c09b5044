// tsr_matmul_i8 and tsr_matmul_i8_f32 with Helium: sixteen int8 products summed into a
// channel's 32-bit accumulator an instruction (VMLADAVA), four channels a pass over a
// row of x so that each vector of x is loaded once for four; the last, partial vector
// loaded with its missing lanes zero (VCTP predication), which adds nothing. Integer
// sums are exact in any order: the portable kernels' results, bit for bit.
#include <arm_mve.h>

#include "kernel_checks.h"
#include "matmul_i8_checks.h"
#include "matmul_i8_dot.h"
#include "requantize_fast.h"
#include "tessera/kernels_arm_mve.h"

namespace {

// sum_j x_j w_c[j] for four rows w_c of k weights, k >= 1.
inline void dot4(const int8_t *x, const int8_t *w0, const int8_t *w1, const int8_t *w2, const int8_t *w3, uint32_t k,
                 int32_t out[4])
{
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (uint32_t j = 0; j < k; j += 16u) {
        const mve_pred16_t p = vctp8q(k - j);
        const int8x16_t xv = vldrbq_z_s8(x + j, p);
        a0 = vmladavaq_s8(a0, xv, vldrbq_z_s8(w0 + j, p));
        a1 = vmladavaq_s8(a1, xv, vldrbq_z_s8(w1 + j, p));
        a2 = vmladavaq_s8(a2, xv, vldrbq_z_s8(w2 + j, p));
        a3 = vmladavaq_s8(a3, xv, vldrbq_z_s8(w3 + j, p));
    }
    out[0] = a0, out[1] = a1, out[2] = a2, out[3] = a3;
}

inline int32_t dot1(const int8_t *x, const int8_t *w, uint32_t k)
{
    int32_t a = 0;
    for (uint32_t j = 0; j < k; j += 16u) {
        const mve_pred16_t p = vctp8q(k - j);
        a = vmladavaq_s8(a, vldrbq_z_s8(x + j, p), vldrbq_z_s8(w + j, p));
    }
    return a;
}

// Every output channel in [begin, end) of every row: `emit(r, i, acc)` with channel i's
// sum for row r plus `offset(i)` (asked once a channel, whatever the rows), four channels
// a pass.
template <typename Offset, typename Emit>
inline void channels(const int8_t *x, const int8_t *w, uint32_t rows, uint32_t k, uint32_t begin, uint32_t end,
                     Offset offset, Emit emit)
{
    uint32_t i = begin;
    for (; i + 4u <= end; i += 4u) {
        const int8_t *wi = w + (size_t)i * k;
        const int32_t off[4] = {offset(i), offset(i + 1u), offset(i + 2u), offset(i + 3u)};
        for (uint32_t r = 0; r < rows; ++r) {
            int32_t acc[4];
            dot4(x + (size_t)r * k, wi, wi + k, wi + 2u * k, wi + 3u * k, k, acc);
            for (uint32_t c = 0; c < 4u; ++c) emit(r, i + c, acc[c] + off[c]);
        }
    }
    for (; i < end; ++i) {
        const int32_t off = offset(i);
        for (uint32_t r = 0; r < rows; ++r) emit(r, i, dot1(x + (size_t)r * k, w + (size_t)i * k, k) + off);
    }
}

} // namespace

tsr_kernel_status tsr_matmul_i8_mve(const tsr_matmul_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    const uint32_t k = a->k;
    channels(
        a->x, a->w, a->rows, k, begin, end,
        [&](uint32_t i) { // bias - x_zero sum_j w_ij (the portable kernel's offset): the same for every row
            return (a->bias ? a->bias[i] : 0) - (a->x_zero ? a->x_zero * tsr_i8_row_sum(a->w + (size_t)i * k, k) : 0);
        },
        [&](uint32_t r, uint32_t i, int32_t acc) {
            a->y[(size_t)r * a->ldy + i] =
                tsr_requantize_to_i8_fast(acc, a->multiplier[i], a->shift[i], a->y_zero, a->y_min, a->y_max);
        });
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_matmul_i8_f32_mve(const tsr_matmul_i8_f32_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_i8_f32_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    channels(
        a->x, a->w, a->rows, a->k, begin, end, [](uint32_t) { return int32_t(0); },
        [&](uint32_t r, uint32_t i, int32_t dot) { a->y[(size_t)r * a->ldy + i] = (float)dot * a->scale[i]; });
    return TSR_KERNEL_OK;
}
