// QuantLib's elementwise operators and iRMSNorm (tessera/kernels_quantlib.h) on XpulpV2,
// bit-exact with the portable kernels (quantlib_i8.cpp):
//  - RequantShift, the residual add and iHardswish take each RequantShift in its 32-bit
//    form (xpulpv2_rqs.h), checked once a call against the bound of what it is applied to
//    (an int8, a sum of two, a product), instead of the portable tsr_rqs_apply's check of
//    each element; where a bound does not hold they run the portable kernel;
//  - iRMSNorm squares a row by sdotsp.b, divides by its root through an exact
//    reciprocal (one division a row, not one an element), and splits a row's elements
//    over the cores (each core sums the rows it touches), not only whole rows, so that
//    one row (a token) takes every core; in place (y overlapping x) it splits whole rows;
//  - RoPE as a matrix, head size 4: each row's 4 x 4 matrix transposed once into a word
//    a column, each output one dotsp.b of the head's word with a column.
#include "kernel_checks.h"
#include "tessera/kernels_quantlib.h"
#include "tessera/kernels_xpulpv2.h"
#include "xpulpv2_dot.h"
#include "xpulpv2_insn.h"
#include "xpulpv2_rqs.h"

tsr_kernel_status tsr_requant_i8_xpulpv2(const int8_t *x, int8_t *y, uint32_t count, const tsr_rqs_params *r,
                                         uint32_t core_id, uint32_t core_count)
{
    tsr_xpulpv2_rqs f;
    if (!x || !y || !count || !tsr_xpulpv2_rqs_for(r, 128u, &f))
        return tsr_requant_i8(x, y, count, r, core_id, core_count); // it checks
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(count, core_id, core_count, &begin, &end);
    for (uint32_t i = begin; i < end; ++i) y[i] = (int8_t)tsr_xpulpv2_rqs_apply(f, x[i]);
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_add_i8_rqs_xpulpv2(const tsr_add_i8_rqs_args *a, uint32_t core_id, uint32_t core_count)
{
    tsr_xpulpv2_rqs fa, fb, fy;
    // rqs_y sees a sum of two int8 ranges: |sum| <= 256.
    if (!a || !a->a || !a->b || !a->y || !a->count || !tsr_xpulpv2_rqs_for(a->rqs_a, 128u, &fa) ||
        !tsr_xpulpv2_rqs_for(a->rqs_b, 128u, &fb) ||
        !tsr_xpulpv2_rqs_for(a->rqs_y, 256u, &fy))
        return tsr_add_i8_rqs(a, core_id, core_count); // it checks
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->count, core_id, core_count, &begin, &end);
    const int8_t *x = a->a, *z = a->b;
    int8_t *y = a->y;
    for (uint32_t i = begin; i < end; ++i)
        y[i] = (int8_t)tsr_xpulpv2_rqs_apply(fy, tsr_xpulpv2_rqs_apply(fa, x[i]) + tsr_xpulpv2_rqs_apply(fb, z[i]));
    return TSR_KERNEL_OK;
}

namespace {

// iHardswish's activation h(g) = rqs_act(g clamp(g + three, 0, six) one_over_six) depends on
// the int8 gate alone: from this many elements a core, a table of its 256 values (about 20
// cycles each) is cheaper than its three dependent multiplications an element.
constexpr uint32_t kHardswishTableFrom = 512;

// y[i] = rqs_y(h[gate[i]] up[i]) for i < n: two elements an iteration, the odd one after.
void hardswish_by_table(const int8_t *gate, const int8_t *up, int8_t *y, uint32_t n, const int8_t *h,
                        const tsr_xpulpv2_rqs &r)
{
    if (const uint32_t pairs = n >> 1) {
        int32_t g0, g1, u0, u1;
        __asm__ volatile(TSR_HWLOOP_BEGIN("%[pairs]", 20)
                         TSR_XP_LB_POST1("%[g0]", "%[g]")
                         TSR_XP_LB_POST1("%[g1]", "%[g]")
                         TSR_XP_LB_POST1("%[u0]", "%[u]")
                         TSR_XP_LB_POST1("%[u1]", "%[u]")
                         TSR_XP_LB_RR("%[g0]", "%[h]", "%[g0]")
                         TSR_XP_LB_RR("%[g1]", "%[h]", "%[g1]")
                         "mul %[g0], %[g0], %[u0]\n"
                         "mul %[g1], %[g1], %[u1]\n"
                         "mul %[g0], %[g0], %[mul]\n"
                         "mul %[g1], %[g1], %[mul]\n"
                         "add %[g0], %[g0], %[ar]\n"
                         "add %[g1], %[g1], %[ar]\n"
                         "sra %[g0], %[g0], %[sh]\n"
                         "sra %[g1], %[g1], %[sh]\n"
                         TSR_XP_MAX("%[g0]", "%[g0]", "%[lo]")
                         TSR_XP_MAX("%[g1]", "%[g1]", "%[lo]")
                         TSR_XP_MIN("%[g0]", "%[g0]", "%[hi]")
                         TSR_XP_MIN("%[g1]", "%[g1]", "%[hi]")
                         TSR_XP_SB_POST1("%[g0]", "%[y]")
                         TSR_XP_SB_POST1("%[g1]", "%[y]")
                         TSR_HWLOOP_END
                         : [g] "+r"(gate), [u] "+r"(up), [y] "+r"(y), [g0] "=&r"(g0), [g1] "=&r"(g1), [u0] "=&r"(u0),
                           [u1] "=&r"(u1)
                         : [pairs] "r"(pairs), [h] "r"(h), [mul] "r"(r.mul), [ar] "r"(r.add_round), [sh] "r"(r.shift),
                           [lo] "r"(r.lo), [hi] "r"(r.hi)
                         : "memory");
    }
    if (n & 1u) *y = (int8_t)tsr_xpulpv2_rqs_apply(r, h[*gate] * *up);
}

} // namespace

tsr_kernel_status tsr_hardswish_i8_xpulpv2(const tsr_hardswish_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    tsr_xpulpv2_rqs act, out;
    // rqs_act sees g (gate one_over_six): |.| <= 128 six one_over_six, below 2^31 (the
    // portable kernel's narrow case); rqs_y sees an int8 times an int8: |.| <= 2^14.
    if (!a || !a->gate || !a->up || !a->y || !a->count ||
        a->three < 0 || a->three > 32768 || a->six < 0 || a->six > 32768 || a->one_over_six < 0 ||
        a->one_over_six > 32768 || (int64_t)128 * a->six * a->one_over_six >= ((int64_t)1 << 31) ||
        !tsr_xpulpv2_rqs_for(a->rqs_act, (uint32_t)(128 * a->six * a->one_over_six), &act) ||
        !tsr_xpulpv2_rqs_for(a->rqs_y, 1u << 14, &out))
        return tsr_hardswish_i8(a, core_id, core_count); // it checks
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->count, core_id, core_count, &begin, &end);
    const int8_t *gate = a->gate, *up = a->up;
    int8_t *y = a->y;
    const int32_t three = a->three, six = a->six, sixth = a->one_over_six;
    auto activation = [&](int32_t g) { return tsr_xpulpv2_rqs_apply(act, g * (tsr_xpulpv2_clamp(g + three, 0, six) * sixth)); };
    if (end - begin < kHardswishTableFrom) {
        for (uint32_t i = begin; i < end; ++i) y[i] = (int8_t)tsr_xpulpv2_rqs_apply(out, activation(gate[i]) * up[i]);
        return TSR_KERNEL_OK;
    }
    int8_t table[256]; // the activation of every int8 gate, indexed by gate + 128
    for (int32_t g = -128; g < 128; ++g) table[g + 128] = (int8_t)activation(g);
    hardswish_by_table(gate + begin, up + begin, y + begin, end - begin, table + 128, out);
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_irmsnorm_i8_xpulpv2(const tsr_irmsnorm_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    if (!a || !a->x || !a->y || (uint64_t)a->rows * a->dim > 0xFFFFFFFFu) return tsr_irmsnorm_i8(a, core_id, core_count);
    TSR_KERNEL_REQUIRE(a->w && a->rows && a->dim && a->dim <= 16384u && a->log2_d >= 0 && a->log2_d <= 31 &&
                       a->lo <= a->hi && a->lo >= -128 && a->hi <= 127);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    const uint32_t dim = a->dim;
    const int8_t *const x = a->x;
    const int32_t *const w = a->w;
    int8_t *const y = a->y;
    const int32_t shift = a->log2_d, lo = a->lo, hi = a->hi;
    uint32_t begin, end;
    tsr_xpulpv2_row_items(x, y, a->rows, dim, core_id, core_count, &begin, &end);
    // |w| < 2^24, so |x w| < 2^31: the columns this core reads, before it writes any.
    const uint32_t c_first = begin < end ? begin % dim : 0u, c_count = end - begin < dim ? end - begin : dim;
    for (uint32_t j = 0, c = c_first; j < c_count; ++j, c = c + 1u == dim ? 0u : c + 1u)
        TSR_KERNEL_REQUIRE((uint32_t)w[c] + ((1u << 24) - 1u) < (1u << 25) - 1u);
    for (uint32_t i = begin; i < end;) {
        const uint32_t r = i / dim, c0 = i - r * dim, c1 = end - i < dim - c0 ? c0 + (end - i) : dim;
        const int8_t *xr = x + (size_t)r * dim;
        int8_t *yr = y + (size_t)r * dim;
        const uint32_t std = tsr_isqrt_u32(tsr_xpulpv2_squares(xr, dim) / dim + 1u); // >= 1
        const uint32_t m = 0xFFFFFFFFu / std;
        for (uint32_t c = c0; c < c1; ++c) {
            const int32_t p = xr[c] * w[c]; // C's division truncates: the quotient of |p|, signed
            const uint32_t q = tsr_xpulpv2_divide(p < 0 ? 0u - (uint32_t)p : (uint32_t)p, std, m);
            yr[c] = (int8_t)tsr_xpulpv2_clamp((p < 0 ? -(int32_t)q : (int32_t)q) >> shift, lo, hi);
        }
        i += c1 - c0;
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_rope_matrix_i8_xpulpv2(const tsr_rope_matrix_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    tsr_xpulpv2_rqs fq, fk; // |x . column| <= 4 x 2^14
    if (!a || !a->q || !a->k || !a->rotation || a->head_size != 4u || !a->dim || !a->kv_dim || a->dim % 4u ||
        a->kv_dim % 4u || (((uintptr_t)a->q | (uintptr_t)a->k | (uintptr_t)a->rotation) & 3u) ||
        !tsr_xpulpv2_rqs_for(a->rqs_q, 1u << 16, &fq) || !tsr_xpulpv2_rqs_for(a->rqs_k, 1u << 16, &fk))
        return tsr_rope_matrix_i8(a, core_id, core_count); // it checks
    TSR_KERNEL_REQUIRE(a->rows);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    const uint32_t qh = a->dim / 4u, heads = qh + a->kv_dim / 4u;
    if ((uint64_t)a->rows * heads > 0xFFFFFFFFu) return tsr_rope_matrix_i8(a, core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->rows * heads, core_id, core_count, &begin, &end);
    uint32_t r = begin / heads, h = begin - r * heads, row = 0xFFFFFFFFu;
    uint32_t col[4];
    for (uint32_t item = begin; item < end; ++item) {
        if (r != row) { // the row's matrix m[i][j], column j as one word: byte i is m[i][j]
            const uint32_t *m = (const uint32_t *)(const void *)(a->rotation + (size_t)r * 16u);
            for (uint32_t j = 0; j < 4u; ++j)
                col[j] = ((m[0] >> (8u * j)) & 0xFFu) | ((m[1] >> (8u * j)) & 0xFFu) << 8 |
                         ((m[2] >> (8u * j)) & 0xFFu) << 16 | ((m[3] >> (8u * j)) & 0xFFu) << 24;
            row = r;
        }
        const bool in_q = h < qh;
        int8_t *x = in_q ? a->q + (size_t)r * a->dim + (size_t)h * 4u : a->k + (size_t)r * a->kv_dim + (size_t)(h - qh) * 4u;
        const tsr_xpulpv2_rqs &f = in_q ? fq : fk;
        const uint32_t xw = *(const uint32_t *)(const void *)x;
        for (uint32_t j = 0; j < 4u; ++j) x[j] = (int8_t)tsr_xpulpv2_rqs_apply(f, tsr_xpulpv2_dotsp(xw, col[j]));
        if (++h == heads) h = 0, ++r;
    }
    return TSR_KERNEL_OK;
}
