// Tessera's integer LayerNorm (tsr_layernorm_i8) on XpulpV2, bit-exact with the portable
// kernel. A row's statistics, which every core computes where a row's columns are split
// over the cores (a token), are a word at a time: its sum and its sum of squares by two
// sdotsp.b a word in a hardware loop (against 0x01010101 and against itself), and the sum of
// squared deviations from them in one 64-bit expression,
//   sum (256 x - m)^2 = 65536 sum x^2 - 512 m sum x + dim m^2,
// instead of a 64-bit product and sum an element. An element's normalized value is then one
// 32 x 32-bit product (mul, mulh), floor((256 d r + 2^37) / 2^38) = floor((d r + 2^29) / 2^30),
// where the row's reciprocal deviation r fits 31 bits (a deviation above half a step of x:
// every row but an all-but-constant one, which takes the portable arithmetic), its gain a
// 32-bit product where |z| < 2^16, the bias added with saturation, and the requantization
// tsr_xpulpv2_requantize_to_i8.
#include "elementwise_i8_checks.h"
#include "split_loops.h"
#include "tessera/kernels_xpulpv2.h"
#include "xpulpv2_dot.h"
#include "xpulpv2_requantize.h"

namespace {

// The sum of a row's int8s and of their squares.
void row_sums(const int8_t *x, uint32_t dim, int32_t *sum, uint32_t *squares)
{
    int32_t s = 0, q = 0;
    uint32_t i = 0;
    if (tsr_xpulpv2_words(x, x, dim & ~3u)) {
        const uint32_t ones = 0x01010101u;
        const int8_t *p = x;
        uint32_t v;
        __asm__ volatile(".balign 4\n"
                         ".option push\n.option norvc\n.option norelax\n"
                         TSR_XP_SETUP0("%[n]", 4)
                         TSR_XP_LW_POST4("%[v]", "%[p]")
                         "nop\n"
                         TSR_XP_SDOTSP_B("%[s]", "%[one]", "%[v]")
                         TSR_XP_SDOTSP_B("%[q]", "%[v]", "%[v]")
                         ".option pop\n"
                         : [s] "+r"(s), [q] "+r"(q), [p] "+r"(p), [v] "=&r"(v)
                         : [n] "r"(dim >> 2), [one] "r"(ones)
                         : "memory");
        i = dim & ~3u;
    }
    for (; i < dim; ++i) s += x[i], q += x[i] * x[i];
    *sum = s;
    *squares = (uint32_t)q; // <= 16384 x 2^14 = 2^28
}

// An element's output from its normalized value z: sat32(z weight + bias) requantized.
inline int8_t output(int32_t z, int32_t weight, int32_t bias, int32_t multiplier, int32_t shift)
{
    int32_t acc;
    if ((uint32_t)(z + 65536) < 131072u) { // |z| < 2^16, |weight| <= 2^15: the product fits
        if (__builtin_add_overflow(z * weight, bias, &acc)) acc = bias > 0 ? INT32_MAX : INT32_MIN; // both of bias's sign
    } else {
        const int64_t wide = (int64_t)z * weight + bias;
        acc = wide > INT32_MAX ? INT32_MAX : wide < INT32_MIN ? INT32_MIN : (int32_t)wide;
    }
    return tsr_xpulpv2_requantize_to_i8(acc, multiplier, shift, 0, -128, 127);
}

} // namespace

tsr_kernel_status tsr_layernorm_i8_xpulpv2(const tsr_layernorm_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_layernorm_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    const uint32_t D = a->dim, eps = a->eps_q16;
    const int8_t *const x0 = a->x; // locals: a store to y could alias *a
    const int16_t *const weight = a->weight;
    const int32_t *const bias = a->bias;
    int8_t *const y0 = a->y;
    const int32_t multiplier = a->multiplier, shift = a->shift;
    uint32_t r0, r1, c0, c1;
    tsr_rmsnorm_split(a->rows, D, core_id, core_count, &r0, &r1, &c0, &c1);
    for (uint32_t r = r0; r < r1; ++r) {
        const int8_t *x = x0 + (size_t)r * D;
        int8_t *y = y0 + (size_t)r * D;
        int32_t sum;
        uint32_t squares;
        row_sums(x, D, &sum, &squares);
        const int32_t m = tsr_round_div(sum * 256, (int32_t)D); // |256 sum| <= 2^29, |m| <= 2^15
        // The portable kernel's sum of (256 x - m)^2, from the two sums (each term below 2^46).
        const int64_t ss = ((int64_t)squares << 16) - (int64_t)512 * m * sum + (int64_t)D * m * m;
        const int64_t inv = tsr_layernorm_i8_inverse((uint64_t)ss, D, eps);
        if (inv < ((int64_t)1 << 31)) {
            const int32_t q = (int32_t)inv;
            for (uint32_t i = c0; i < c1; ++i) {
                const int32_t d = x[i] * 256 - m; // |d| < 2^16: |d q| < 2^47
                const int32_t z = (int32_t)(((int64_t)d * q + (1 << 29)) >> 30);
                y[i] = output(z, weight[i], bias[i], multiplier, shift);
            }
        } else {
            for (uint32_t i = c0; i < c1; ++i) {
                const int32_t z = (int32_t)(((int64_t)(x[i] * 256 - m) * 256 * inv + ((int64_t)1 << 37)) >> 38);
                y[i] = output(z, weight[i], bias[i], multiplier, shift);
            }
        }
    }
    return TSR_KERNEL_OK;
}
