// tsr_matmul_i8 on XpulpV2: for each row of x and each block of four output channels,
// one pass over k in a hardware loop whose body loads a word of x and a word of each
// of the four weight rows (post-incrementing) and does four cv.sdotsp.b: 16 MACs in 9
// instructions, no branch. The integer sums equal the portable kernel's (exact in any
// order), and the requantization is the portable one's (requantize_fast.h): bit-exact.
#include "kernel_checks.h"
#include "matmul_i8_checks.h"
#include "matmul_i8_dot.h"
#include "requantize_fast.h"
#include "tessera/kernels_xpulpv2.h"
#include "xpulpv2_insn.h"

namespace {

// acc[c] = x . w_c for the four weight rows w, w + k, w + 2k, w + 3k (k = 4 * words).
inline void dot_1x4(const int8_t *x, const int8_t *w, uint32_t k, int32_t acc[4])
{
    const int8_t *w0 = w, *w1 = w + k, *w2 = w + 2 * k, *w3 = w + 3 * k;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    uint32_t xv, v0, v1, v2, v3;
    __asm__ volatile(".balign 4\n"
                     ".option push\n.option norvc\n.option norelax\n"
                     TSR_CV_SETUP0("%[n]", 9)
                     TSR_CV_LW_POST4("%[xv]", "%[x]")
                     TSR_CV_LW_POST4("%[v0]", "%[w0]")
                     TSR_CV_LW_POST4("%[v1]", "%[w1]")
                     TSR_CV_LW_POST4("%[v2]", "%[w2]")
                     TSR_CV_LW_POST4("%[v3]", "%[w3]")
                     TSR_CV_SDOTSP_B("%[a0]", "%[xv]", "%[v0]")
                     TSR_CV_SDOTSP_B("%[a1]", "%[xv]", "%[v1]")
                     TSR_CV_SDOTSP_B("%[a2]", "%[xv]", "%[v2]")
                     TSR_CV_SDOTSP_B("%[a3]", "%[xv]", "%[v3]")
                     ".option pop\n"
                     : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x), [w0] "+r"(w0),
                       [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3), [xv] "=&r"(xv), [v0] "=&r"(v0), [v1] "=&r"(v1),
                       [v2] "=&r"(v2), [v3] "=&r"(v3)
                     : [n] "r"(k >> 2)
                     : "memory");
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

// acc = x . w (k = 4 * words).
inline int32_t dot_1x1(const int8_t *x, const int8_t *w, uint32_t k)
{
    int32_t a = 0;
    uint32_t xv, v;
    __asm__ volatile(".balign 4\n"
                     ".option push\n.option norvc\n.option norelax\n"
                     TSR_CV_SETUP0("%[n]", 4)
                     TSR_CV_LW_POST4("%[xv]", "%[x]")
                     TSR_CV_LW_POST4("%[v]", "%[w]")
                     "nop\n"
                     TSR_CV_SDOTSP_B("%[a]", "%[xv]", "%[v]")
                     ".option pop\n"
                     : [a] "+r"(a), [x] "+r"(x), [w] "+r"(w), [xv] "=&r"(xv), [v] "=&r"(v)
                     : [n] "r"(k >> 2)
                     : "memory");
    return a;
}

} // namespace

tsr_kernel_status tsr_matmul_i8_xpulpv2(const tsr_matmul_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    const uint32_t k = a->k;
    if ((k & 3u) != 0u || k == 0u || (((uintptr_t)a->x | (uintptr_t)a->w) & 3u) != 0u)
        return tsr_matmul_i8(a, core_id, core_count); // words only: the portable kernel for the rest
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    for (uint32_t i = begin; i < end;) {
        const uint32_t block = end - i >= 4u ? 4u : 1u;
        const int8_t *wi = a->w + (size_t)i * k;
        int32_t offset[4]; // bias - x_zero * sum_j w_ij, as the portable kernel
        for (uint32_t c = 0; c < block; ++c)
            offset[c] = (a->bias ? a->bias[i + c] : 0) - (a->x_zero ? a->x_zero * tsr_i8_row_sum(wi + (size_t)c * k, k) : 0);
        for (uint32_t r = 0; r < a->rows; ++r) {
            const int8_t *xr = a->x + (size_t)r * k;
            int32_t acc[4];
            if (block == 4u) dot_1x4(xr, wi, k, acc);
            else acc[0] = dot_1x1(xr, wi, k);
            int8_t *yr = a->y + (size_t)r * a->ldy + i;
            for (uint32_t c = 0; c < block; ++c)
                yr[c] = tsr_requantize_to_i8_fast(acc[c] + offset[c], a->multiplier[i + c], a->shift[i + c], a->y_zero,
                                                  a->y_min, a->y_max);
        }
        i += block;
    }
    return TSR_KERNEL_OK;
}
