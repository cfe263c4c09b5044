// Tessera's own integer RMSNorm (tsr_rmsnorm_i8) on XpulpV2: a row's squares by
// sdotsp.b, its quotients by the row's root through an exact reciprocal (one division a
// row, not one an element), and a row's elements split over the cores, not only whole
// rows, so that one row (a token) takes every core: each core sums the rows it touches.
// In place (y overlapping x) it splits whole rows, since a core's outputs may be another
// core's inputs. The integers are the portable kernel's (elementwise_i8_checks.h).
// SwiGLU (tsr_swiglu_i8): with the image's table of silu16 (every int8 image the packer makes),
// an element is a lookup, a product and its requantization; without it, the integer
// exponential without its division (xpulpv2_iexp.h), and the quotient by e0 + e, which
// changes with each element, a division.
// The residual add (tsr_add_i8): each int8 input's requantization in 32-bit operations
// (the product's two words from mul and mulh, shifted together), not a 64-bit shift an
// element (a library call on RV32); bit-exact with the portable kernel.
#include "elementwise_i8_checks.h"
#include "kernel_checks.h"
#include "matmul_w4a8_checks.h"
#include "tessera/kernels_xpulpv2.h"
#include "xpulpv2_dot.h"
#include "xpulpv2_iexp.h"
#include "xpulpv2_requantize.h"
#include "xpulpv2_rqs.h"

namespace {

// The row's sum of squared (x - x_zero), as the portable kernel's (< 2^31).
uint32_t centred_squares(const int8_t *x, uint32_t dim, int32_t x_zero)
{
    if (x_zero == 0) return tsr_xpulpv2_squares(x, dim);
    uint32_t sum = 0;
    for (uint32_t i = 0; i < dim; ++i) {
        const int32_t u = x[i] - x_zero;
        sum += (uint32_t)(u * u);
    }
    return sum;
}

} // namespace

tsr_kernel_status tsr_rmsnorm_i8_xpulpv2(const tsr_rmsnorm_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_rmsnorm_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    const uint32_t dim = a->dim;
    if ((uint64_t)a->rows * dim > 0xFFFFFFFFu) return tsr_rmsnorm_i8(a, core_id, core_count);
    uint32_t begin, end;
    tsr_xpulpv2_row_items(a->x, a->y, a->rows, dim, core_id, core_count, &begin, &end);
    const int32_t scale = a->gain, y_zero = a->y_zero, x_zero = a->x_zero, gs = a->gain_shift;
    const int8_t *const x = a->x, *const weight = a->weight; // locals: a store to y could alias *a
    int8_t *const y = a->y;
    const uint32_t eps_q8 = a->eps_q8;
    const int32_t half_shift = gs ? 1 << (gs - 1) : 0;
    for (uint32_t i = begin; i < end;) {
        const uint32_t r = i < dim ? 0u : i / dim, c0 = i - r * dim, c1 = end - i < dim - c0 ? c0 + (end - i) : dim; // (a token: no division)
        const int8_t *xr = x + (size_t)r * dim;
        int8_t *yr = y + (size_t)r * dim;
        const uint32_t root = tsr_rmsnorm_i8_root(centred_squares(xr, dim, x_zero), dim, eps_q8, tsr_isqrt_masked);
        const uint32_t m = 0xFFFFFFFFu / root, half = root / 2u;
        for (uint32_t c = c0; c < c1; ++c) {
            // tsr_round_div(g u gain, root): |g u gain| < 2^30, halves away from zero.
            const int32_t n = weight[c] * (xr[c] - x_zero) * scale;
            const uint32_t q = tsr_xpulpv2_divide(tsr_xpulpv2_magnitude(n) + half, root, m);
            const int32_t v = n >= 0 ? (int32_t)q : -(int32_t)q;
            yr[c] = (int8_t)tsr_xpulpv2_clamp(y_zero + ((v + half_shift) >> gs), -128, 127);
        }
        i += c1 - c0;
    }
    return TSR_KERNEL_OK;
}

namespace {

// tsr_requantize(v, multiplier, shift) for an int8 v, shift <= 22: |v multiplier| < 2^38,
// so for s = 30 - shift >= 8 the product shifted right by s lies within +-2^30: its low
// word is the high word's low bits over the low word's high bits. Then halves up, as
// (t >> 1) + (t & 1) (no overflow), and never saturated.
inline int32_t requantize_i8_input(int32_t v, int32_t multiplier, int32_t s)
{
    if (s >= 32) {
        const int32_t t = (int32_t)(((int64_t)v * multiplier) >> 32) >> (s - 32);
        return (t >> 1) + (t & 1);
    }
    const uint32_t lo = (uint32_t)v * (uint32_t)multiplier; // the low word (unsigned: it wraps)
    const int32_t hi = (int32_t)(((int64_t)v * multiplier) >> 32);
    const int32_t t = (int32_t)(((uint32_t)hi << (32 - s)) | (lo >> s));
    return (t >> 1) + (t & 1);
}

} // namespace

tsr_kernel_status tsr_add_i8_xpulpv2(const tsr_add_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_add_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    if (a->a_shift > 22 || a->b_shift > 22) return tsr_add_i8(a, core_id, core_count); // the 64-bit form
    uint32_t begin, end;
    tsr_core_range(a->count, core_id, core_count, &begin, &end);
    const int32_t am = a->a_multiplier, as = 30 - a->a_shift, bm = a->b_multiplier, bs = 30 - a->b_shift;
    const int8_t *const x = a->a, *const z = a->b; // locals: a store to y could alias *a
    int8_t *const y = a->y;
    for (uint32_t i = begin; i < end; ++i) // each term within +-2^30: their sum fits
        y[i] = (int8_t)tsr_xpulpv2_clamp(requantize_i8_input(x[i], am, as) + requantize_i8_input(z[i], bm, bs), -128, 127);
    return TSR_KERNEL_OK;
}

namespace {

// Elements [begin, end) without the table: the exponential and a division each (out of line,
// so that the table's path saves and restores few registers).
__attribute__((noinline)) void swiglu_computed(const tsr_swiglu_i8_args *a, uint32_t begin, uint32_t end)
{
    // The arguments in locals: a store of an output byte may alias *a, so read through a
    // the compiler would load each again for every element.
    const tsr_iexp_constants k = a->constants;
    const int8_t *const gate = a->gate, *const up = a->up;
    int8_t *const y = a->y;
    const int32_t gate_zero = a->gate_zero, up_zero = a->up_zero, multiplier = a->multiplier, shift = a->shift,
                  y_zero = a->y_zero, scale = 1 << k.shift;
    const uint32_t m = tsr_xpulpv2_iexp_reciprocal(k);
    const int32_t e0 = (int32_t)tsr_xpulpv2_iexp(0, k, m); // e^0: at most 2^18
    for (uint32_t i = begin; i < end; ++i) {
        // tsr_silu16_i8 (elementwise_i8_checks.h) with this exponential.
        const int32_t g = gate[i] - gate_zero;
        const int32_t e = (int32_t)tsr_xpulpv2_iexp(-(g < 0 ? -g : g) * scale, k, m);
        const int32_t p = (g >= 0 ? e0 : e) >> 2, q = (e0 + e) >> 2;
        const int32_t silu16 = tsr_round_div(16 * g * p, q);
        y[i] = tsr_xpulpv2_requantize_to_i8(silu16 * (up[i] - up_zero), multiplier, shift, y_zero, -128, 127);
    }
}

} // namespace

tsr_kernel_status tsr_swiglu_i8_xpulpv2(const tsr_swiglu_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_swiglu_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->count, core_id, core_count, &begin, &end);
    if (!a->silu16) {
        swiglu_computed(a, begin, end);
        return TSR_KERNEL_OK;
    }
    const int8_t *const gate = a->gate, *const up = a->up; // locals: a store to y could alias *a
    int8_t *const y = a->y;
    const int32_t up_zero = a->up_zero, multiplier = a->multiplier, shift = a->shift, y_zero = a->y_zero;
    const int16_t *const silu16 = a->silu16 + 128; // indexed by the gate's int8 value
    const tsr_xpulpv2_output_bounds bounds = {-128 - y_zero, 127 - y_zero, y_zero};
    if (begin < end && shift <= -2) { // the usual scale: tsr_xpulpv2_requantize_bounded's short path, in a hardware loop
        const int8_t *g = gate + begin, *u = up + begin;
        int8_t *yo = y + begin;
        int32_t gv, uv, d;
        __asm__ volatile(TSR_HWLOOP_BEGIN("%[n]", 14)
                         TSR_XP_LB_POST1("%[gv]", "%[g]")
                         TSR_XP_LB_POST1("%[uv]", "%[u]")
                         "slli %[gv], %[gv], 1\n"
                         TSR_XP_LH_RR("%[d]", "%[t]", "%[gv]")
                         "sub %[uv], %[uv], %[uz]\n"
                         "mul %[d], %[d], %[uv]\n"
                         "mulh %[d], %[d], %[m]\n"
                         "sra %[d], %[d], %[sh]\n"
                         "addi %[d], %[d], 1\n"
                         "srai %[d], %[d], 1\n"
                         TSR_XP_MAX("%[d]", "%[d]", "%[lo]")
                         TSR_XP_MIN("%[d]", "%[d]", "%[hi]")
                         "add %[d], %[d], %[yz]\n"
                         TSR_XP_SB_POST1("%[d]", "%[y]")
                         TSR_HWLOOP_END
                         : [g] "+r"(g), [u] "+r"(u), [y] "+r"(yo), [gv] "=&r"(gv), [uv] "=&r"(uv), [d] "=&r"(d)
                         : [n] "r"(end - begin), [t] "r"(silu16), [uz] "r"(up_zero), [m] "r"(multiplier),
                           [sh] "r"(-2 - shift), [lo] "r"(bounds.lo), [hi] "r"(bounds.hi), [yz] "r"(y_zero)
                         : "memory");
        return TSR_KERNEL_OK;
    }
    for (uint32_t i = begin; i < end; ++i)
        y[i] = tsr_xpulpv2_requantize_bounded(silu16[gate[i]] * (up[i] - up_zero), multiplier, shift, bounds);
    return TSR_KERNEL_OK;
}

// One token's embedding row rescaled in place (tsr_embed_row_i8): each requantization in
// its 32-bit forms (requantize_fast.h), a W4 row's byte expanded into its two elements at
// once (the bytes from the last, whose two outputs lie at or after it).
tsr_kernel_status tsr_embed_row_i8_xpulpv2(const tsr_embed_row_i8_args *a)
{
    TSR_KERNEL_REQUIRE(tsr_embed_row_i8_args_ok(a));
    int8_t *const y = a->y;
    const int32_t m = a->multiplier, s = a->shift;
    const uint32_t dim = a->dim;
    if (!a->w4) {
        for (uint32_t j = 0; j < dim; ++j) y[j] = tsr_xpulpv2_requantize_to_i8(y[j], m, s, 0, -128, 127);
        return TSR_KERNEL_OK;
    }
    const uint8_t *gs = a->group_scales;
    if (dim & 1u) { // the last byte's low nibble alone
        const uint32_t j = dim - 1u;
        const int32_t w = (int32_t)(int8_t)(uint8_t)((uint8_t)y[j / 2u] << 4) >> 4;
        y[j] = tsr_xpulpv2_requantize_to_i8(w * (int32_t)gs[j / 32u], m, s, 0, -128, 127);
    }
    for (uint32_t b = dim / 2u; b-- > 0u;) {
        const int32_t byte = (int8_t)y[b], g = gs[b / 16u]; // elements 2b, 2b + 1: one group
        const int32_t lo = (int32_t)(int8_t)(uint8_t)(byte << 4) >> 4, hi = byte >> 4;
        y[2u * b + 1u] = tsr_xpulpv2_requantize_to_i8(hi * g, m, s, 0, -128, 127);
        y[2u * b] = tsr_xpulpv2_requantize_to_i8(lo * g, m, s, 0, -128, 127);
    }
    return TSR_KERNEL_OK;
}
