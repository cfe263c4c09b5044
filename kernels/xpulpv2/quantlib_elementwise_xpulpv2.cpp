// QuantLib's elementwise operators and iRMSNorm (tessera/kernels_quantlib.h) on XpulpV2,
// bit-exact with the portable kernels (quantlib_i8.cpp):
//  - RequantShift, the residual add and iHardswish take each RequantShift in its 32-bit
//    form (xpulpv2_rqs.h), checked once a call against the bound of what it is applied to
//    (an int8, a sum of two, a product), instead of the portable tsr_rqs_apply's check of
//    each element; where a bound does not hold they run the portable kernel; where a core
//    has enough elements, what depends on one int8 alone (a RequantShift of it, iHardswish's
//    activation) is a table of its 256 values, looked up an element;
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

namespace {

// A RequantShift of an int8 depends on that int8 alone: from this many elements a core, a
// table of its 256 values (about 10 cycles each; the residual add's two tables from twice
// as many; iHardswish's activation, three dependent multiplications, about 20 a value) is
// cheaper than computing it an element.
constexpr uint32_t kTableFrom = 256;
constexpr uint32_t kHardswishTableFrom = 512;

// table[v + 128] = f(v) for every int8 v.
template <typename F> void table_of(int8_t table[256], F f)
{
    for (int32_t v = -128; v < 128; ++v) table[v + 128] = (int8_t)f(v);
}

// y[i] = t[x[i]] for i < n (t indexed from its middle): two elements a pass.
void lookup(const int8_t *x, int8_t *y, uint32_t n, const int8_t *t)
{
    if (const uint32_t pairs = n >> 1) {
        int32_t v0, v1;
        __asm__ volatile(TSR_HWLOOP_BEGIN("%[pairs]", 6)
                         TSR_XP_LB_POST1("%[v0]", "%[x]")
                         TSR_XP_LB_POST1("%[v1]", "%[x]")
                         TSR_XP_LB_RR("%[v0]", "%[t]", "%[v0]")
                         TSR_XP_LB_RR("%[v1]", "%[t]", "%[v1]")
                         TSR_XP_SB_POST1("%[v0]", "%[y]")
                         TSR_XP_SB_POST1("%[v1]", "%[y]")
                         TSR_HWLOOP_END
                         : [x] "+r"(x), [y] "+r"(y), [v0] "=&r"(v0), [v1] "=&r"(v1)
                         : [pairs] "r"(pairs), [t] "r"(t)
                         : "memory");
    }
    if (n & 1u) *y = t[*x];
}

// y[i] = rqs(ta[a[i]] + tb[b[i]]) (Product false: the residual add's two RequantShifts
// by table) or rqs(ta[a[i]] b[i]) (true: iHardswish's activation by table times up) for
// i < n, the tables indexed from their middle: two elements a hardware-loop pass.
template <bool Product>
void combine(const int8_t *a, const int8_t *b, int8_t *y, uint32_t n, const int8_t *ta, const int8_t *tb,
             const tsr_xpulpv2_rqs &r)
{
    if (const uint32_t pairs = n >> 1) {
        int32_t a0, a1, b0, b1;
#define TSR_COMBINE_LOAD                                                                                               \
    TSR_XP_LB_POST1("%[a0]", "%[a]")                                                                                   \
    TSR_XP_LB_POST1("%[a1]", "%[a]")                                                                                   \
    TSR_XP_LB_POST1("%[b0]", "%[b]")                                                                                   \
    TSR_XP_LB_POST1("%[b1]", "%[b]")                                                                                   \
    TSR_XP_LB_RR("%[a0]", "%[ta]", "%[a0]")                                                                            \
    TSR_XP_LB_RR("%[a1]", "%[ta]", "%[a1]")
#define TSR_COMBINE_RQS                                                                                                \
    "mul %[a0], %[a0], %[mul]\n"                                                                                       \
    "mul %[a1], %[a1], %[mul]\n"                                                                                       \
    "add %[a0], %[a0], %[ar]\n"                                                                                        \
    "add %[a1], %[a1], %[ar]\n"                                                                                        \
    "sra %[a0], %[a0], %[sh]\n"                                                                                        \
    "sra %[a1], %[a1], %[sh]\n"                                                                                        \
    TSR_XP_MAX("%[a0]", "%[a0]", "%[lo]")                                                                              \
    TSR_XP_MAX("%[a1]", "%[a1]", "%[lo]")                                                                              \
    TSR_XP_MIN("%[a0]", "%[a0]", "%[hi]")                                                                              \
    TSR_XP_MIN("%[a1]", "%[a1]", "%[hi]")                                                                              \
    TSR_XP_SB_POST1("%[a0]", "%[y]")                                                                                   \
    TSR_XP_SB_POST1("%[a1]", "%[y]")                                                                                   \
    TSR_HWLOOP_END                                                                                                     \
    : [a] "+r"(a), [b] "+r"(b), [y] "+r"(y), [a0] "=&r"(a0), [a1] "=&r"(a1), [b0] "=&r"(b0), [b1] "=&r"(b1)            \
    : [pairs] "r"(pairs), [ta] "r"(ta), [tb] "r"(tb), [mul] "r"(r.mul), [ar] "r"(r.add_round), [sh] "r"(r.shift),      \
      [lo] "r"(r.lo), [hi] "r"(r.hi)                                                                                   \
    : "memory"
        if (Product)
            __asm__ volatile(TSR_HWLOOP_BEGIN("%[pairs]", 20) TSR_COMBINE_LOAD
                             "mul %[a0], %[a0], %[b0]\n"
                             "mul %[a1], %[a1], %[b1]\n"
                             TSR_COMBINE_RQS);
        else
            __asm__ volatile(TSR_HWLOOP_BEGIN("%[pairs]", 22) TSR_COMBINE_LOAD
                             TSR_XP_LB_RR("%[b0]", "%[tb]", "%[b0]")
                             TSR_XP_LB_RR("%[b1]", "%[tb]", "%[b1]")
                             "add %[a0], %[a0], %[b0]\n"
                             "add %[a1], %[a1], %[b1]\n"
                             TSR_COMBINE_RQS);
#undef TSR_COMBINE_LOAD
#undef TSR_COMBINE_RQS
    }
    if (n & 1u) *y = (int8_t)tsr_xpulpv2_rqs_apply(r, Product ? ta[*a] * *b : ta[*a] + tb[*b]);
}

} // namespace

tsr_kernel_status tsr_requant_i8_xpulpv2(const int8_t *x, int8_t *y, uint32_t count, const tsr_rqs_params *r,
                                         uint32_t core_id, uint32_t core_count)
{
    tsr_xpulpv2_rqs f;
    if (!x || !y || !count || !tsr_xpulpv2_rqs_for(r, 128u, &f))
        return tsr_requant_i8(x, y, count, r, core_id, core_count); // it checks
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(count, core_id, core_count, &begin, &end);
    if (end - begin < kTableFrom) {
        for (uint32_t i = begin; i < end; ++i) y[i] = (int8_t)tsr_xpulpv2_rqs_apply(f, x[i]);
        return TSR_KERNEL_OK;
    }
    int8_t table[256];
    table_of(table, [&](int32_t v) { return tsr_xpulpv2_rqs_apply(f, v); });
    lookup(x + begin, y + begin, end - begin, table + 128);
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
    if (end - begin < 2u * kTableFrom) { // two tables
        for (uint32_t i = begin; i < end; ++i)
            y[i] = (int8_t)tsr_xpulpv2_rqs_apply(fy, tsr_xpulpv2_rqs_apply(fa, x[i]) + tsr_xpulpv2_rqs_apply(fb, z[i]));
        return TSR_KERNEL_OK;
    }
    int8_t ta[256], tb[256];
    table_of(ta, [&](int32_t v) { return tsr_xpulpv2_rqs_apply(fa, v); });
    table_of(tb, [&](int32_t v) { return tsr_xpulpv2_rqs_apply(fb, v); });
    combine<false>(x + begin, z + begin, y + begin, end - begin, ta + 128, tb + 128, fy);
    return TSR_KERNEL_OK;
}

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
    int8_t table[256]; // the activation of every int8 gate
    table_of(table, activation);
    combine<true>(gate + begin, up + begin, y + begin, end - begin, table + 128, nullptr, out);
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
    uint32_t col[4] = {0u, 0u, 0u, 0u}; // (set at the first item: r != row)
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
