// The W4A8 matmuls on XpulpV2 (tsr_matmul_w4a8, tsr_matmul_w4a8_f32): four output channels
// a pass over a row of x, a group of 32 weights (a word of each row, two of x, four times)
// in a hardware loop. A word of 4-bit weights (eight nibbles, two a byte, the even one low)
// becomes two words of signed bytes by three byte-wise shifts (sll.sci.b, sra.sci.b), the
// even weights and the odd ones, each against x's even or odd bytes (two shuffles of x's
// two words, shared by the four channels) in one sdotsp.b: 29 instructions for 32 MACs.
// Then, as the portable kernels, each group's sum times its scale, and the requantization
// (requantize_fast.h) or the one float multiply. The integer sums are exact in any order:
// the outputs are the portable kernels', bit for bit.
// k a multiple of 32 and x word-aligned (the weight rows, tsr_w4_row_bytes(k) apart, may
// be unaligned: the cores load them so); otherwise the portable kernels.
#include "kernel_checks.h"
#include "matmul_w4a8_checks.h"
#include "matmul_w4a8_dot.h"
#include "tessera/kernels_xpulpv2.h"
#include "xpulpv2_dot.h"
#include "xpulpv2_requantize.h"

namespace {

// acc[c] += sum_g gs_cg sum_{j in g} x_j w_cj over `groups` groups of 32 weights of the four
// rows `stride` bytes apart from w (16 bytes a group each) and their group scales (from gs,
// the same stride apart), x their activations: loop 1 over the groups, loop 0 over a group's
// four words, then each channel's sum times its scale (p.mac). Rows 1 to 3 are read at
// register offsets from row 0's address: an asm statement takes at most 30 operands.
inline void w4_groups_1x4(const int8_t *x, const uint8_t *w, const uint8_t *gs, uint32_t stride, uint32_t groups,
                          int32_t acc[4])
{
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    int32_t g0, g1, g2, g3;
    uint32_t xa, xb, xe, v0, v1, v2, t;
    const uint32_t even = 0x06040200u, odd = 0x07050301u, s1 = stride, s2 = 2u * stride;
    __asm__ volatile(".balign 4\n"
                     ".option push\n.option norvc\n.option norelax\n"
                     TSR_XP_SETUP1("%[groups]", 48)
                     "li %[g0], 0\n"
                     "li %[g1], 0\n"
                     "li %[g2], 0\n"
                     "li %[g3], 0\n"
                     "li %[t], 4\n"
                     TSR_XP_SETUP0("%[t]", 30)
                     TSR_XP_LW_POST4("%[xa]", "%[x]")
                     TSR_XP_LW_POST4("%[xb]", "%[x]")
                     TSR_XP_LW_RR("%[v1]", "%[w]", "%[s1]")
                     TSR_XP_LW_RR("%[v2]", "%[w]", "%[s2]")
                     "add %[t], %[w], %[s2]\n"
                     TSR_XP_LW_RR("%[v0]", "%[t]", "%[s1]") // row 3
                     "mv %[xe], %[xa]\n"
                     TSR_XP_SHUFFLE2_B("%[xe]", "%[xb]", "%[even]") // x0 x2 x4 x6
                     TSR_XP_SHUFFLE2_B("%[xa]", "%[xb]", "%[odd]")  // x1 x3 x5 x7
// A word of eight weights: the low nibbles (the even weights) moved up and shifted back
// down with their signs, the high ones shifted down with theirs.
#define TSR_W4_CHANNEL(v, g)                                                                                           \
    TSR_XP_SLL_SCI_B("%[t]", v, 4)                                                                                     \
    TSR_XP_SRA_SCI_B("%[t]", "%[t]", 4)                                                                                \
    TSR_XP_SRA_SCI_B(v, v, 4)                                                                                          \
    TSR_XP_SDOTSP_B(g, "%[xe]", "%[t]")                                                                                \
    TSR_XP_SDOTSP_B(g, "%[xa]", v)
                     TSR_W4_CHANNEL("%[v0]", "%[g3]")
                     TSR_XP_LW_POST4("%[v0]", "%[w]") // row 0
                     TSR_W4_CHANNEL("%[v1]", "%[g1]")
                     TSR_W4_CHANNEL("%[v2]", "%[g2]")
                     TSR_W4_CHANNEL("%[v0]", "%[g0]")
#undef TSR_W4_CHANNEL
                     // the group's end: each channel's sum times its scale
                     "add %[xb], %[gs], %[s1]\n"
                     "lbu %[xa], 0(%[gs])\n"
                     "lbu %[xe], 0(%[xb])\n"
                     "add %[t], %[gs], %[s2]\n"
                     "add %[xb], %[t], %[s1]\n"
                     "lbu %[t], 0(%[t])\n"
                     "lbu %[xb], 0(%[xb])\n"
                     TSR_XP_MAC("%[a0]", "%[xa]", "%[g0]")
                     TSR_XP_MAC("%[a1]", "%[xe]", "%[g1]")
                     TSR_XP_MAC("%[a2]", "%[t]", "%[g2]")
                     TSR_XP_MAC("%[a3]", "%[xb]", "%[g3]")
                     "addi %[gs], %[gs], 1\n"
                     ".option pop\n"
                     : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x), [w] "+r"(w),
                       [gs] "+r"(gs), [g0] "=&r"(g0), [g1] "=&r"(g1), [g2] "=&r"(g2), [g3] "=&r"(g3), [xa] "=&r"(xa),
                       [xb] "=&r"(xb), [xe] "=&r"(xe), [v0] "=&r"(v0), [v1] "=&r"(v1), [v2] "=&r"(v2), [t] "=&r"(t)
                     : [groups] "r"(groups), [even] "r"(even), [odd] "r"(odd), [s1] "r"(s1), [s2] "r"(s2)
                     : "memory");
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

// This core's share of output channels [0, n), four at a time (then one, the portable
// way): prepare(i, block) once a block, store(r, i, block, acc) with acc[c] = sum_g gs_cg
// sum_{j in g} x_rj w_cj. Each core starts at its own group, so that cores in step read x
// from different banks.
template <typename Prepare, typename Store>
inline void w4_channel_blocks(const int8_t *x, const uint8_t *w, uint32_t rows, uint32_t k, uint32_t n, uint32_t core_id,
                              uint32_t core_count, Prepare prepare, Store store)
{
    uint32_t begin, end;
    tsr_core_range(n, core_id, core_count, &begin, &end);
    const uint32_t stride = tsr_w4_row_bytes(k), half = k / 2u, groups = k / 32u, skew = core_id % groups;
    for (uint32_t i = begin; i < end;) {
        const uint8_t *wi = w + (size_t)i * stride;
        if (end - i < 4u) {
            prepare(i, 1u);
            for (uint32_t r = 0; r < rows; ++r) {
                const int32_t acc = tsr_w4_row_dot(x + (size_t)r * k, wi, k);
                store(r, i, 1u, &acc);
            }
            ++i;
            continue;
        }
        prepare(i, 4u);
        for (uint32_t r = 0; r < rows; ++r) {
            const int8_t *xr = x + (size_t)r * k;
            int32_t acc[4] = {0, 0, 0, 0};
            w4_groups_1x4(xr + 32u * skew, wi + 16u * skew, wi + half + skew, stride, groups - skew, acc);
            if (skew) w4_groups_1x4(xr, wi, wi + half, stride, skew, acc);
            store(r, i, 4u, acc);
        }
        i += 4u;
    }
}

// Whether the operands suit the groups above.
bool w4_fits(const int8_t *x, uint32_t k) { return k != 0u && k % 32u == 0u && ((uintptr_t)x & 3u) == 0u; }

} // namespace

tsr_kernel_status tsr_matmul_w4a8_xpulpv2(const tsr_matmul_w4a8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_w4a8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    if (!w4_fits(a->x, a->k)) return tsr_matmul_w4a8(a, core_id, core_count);
    // The arguments in locals: an output byte's store may alias *a.
    const int32_t *const multiplier = a->multiplier;
    const int8_t *const shifts = a->shift;
    const uint8_t *const w = a->w;
    int8_t *const y = a->y;
    const uint32_t ldy = a->ldy, k = a->k, stride = tsr_w4_row_bytes(k);
    const int32_t x_zero = a->x_zero;
    const tsr_xpulpv2_output_bounds bounds = {-128 - a->y_zero, 127 - a->y_zero, a->y_zero};
    int32_t offset[4] = {0, 0, 0, 0}; // -x_zero sum_g gs_g sum_{j in g} w_j, the same for every row
    w4_channel_blocks(
        a->x, w, a->rows, k, a->n, core_id, core_count,
        [&offset, w, x_zero, k, stride](uint32_t i, uint32_t block) {
            if (x_zero)
                for (uint32_t c = 0; c < block; ++c) offset[c] = -x_zero * tsr_w4_weight_sum(w + (size_t)(i + c) * stride, k);
        },
        [&offset, x_zero, multiplier, shifts, y, ldy, bounds](uint32_t r, uint32_t i, uint32_t block, const int32_t *acc) {
            tsr_xpulpv2_requantize_block(y + (size_t)r * ldy + i, acc, offset, x_zero != 0, multiplier + i, shifts + i,
                                         block, bounds);
        });
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_matmul_w4a8_f32_xpulpv2(const tsr_matmul_w4a8_f32_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_w4a8_f32_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    if (!w4_fits(a->x, a->k)) return tsr_matmul_w4a8_f32(a, core_id, core_count);
    const float *const scale = a->scale;
    float *const y = a->y;
    const uint32_t ldy = a->ldy;
    w4_channel_blocks(a->x, a->w, a->rows, a->k, a->n, core_id, core_count, [](uint32_t, uint32_t) {},
                      [=](uint32_t r, uint32_t i, uint32_t block, const int32_t *acc) {
                          float *yr = y + (size_t)r * ldy + i;
                          for (uint32_t c = 0; c < block; ++c) yr[c] = (float)acc[c] * scale[i + c];
                      });
    return TSR_KERNEL_OK;
}
