#include "kernel_checks.h"
#include "requantize_fast.h"
#include "softmax_i8_checks.h"

namespace {

// floor(sqrt(v)) by bits, integers only.
uint32_t isqrt(uint32_t v)
{
    uint32_t root = 0, bit = 1u << 30;
    while (bit > v) bit >>= 2;
    for (; bit; bit >>= 2) {
        if (v >= root + bit) v -= root + bit, root = (root >> 1) + bit;
        else root >>= 1;
    }
    return root;
}

// round(n / d) for d > 0, halves away from zero.
int32_t round_div(int32_t n, int32_t d) { return n >= 0 ? (n + d / 2) / d : -((-n + d / 2) / d); }

int32_t rounding_shift(int32_t v, int32_t s) { return s ? (v + (1 << (s - 1))) >> s : v; }

int8_t clamp_i8(int32_t v) { return int8_t(v < -128 ? -128 : v > 127 ? 127 : v); }

bool zero_ok(int32_t z) { return z >= -128 && z <= 127; }

} // namespace

tsr_kernel_status tsr_rmsnorm_i8(const tsr_rmsnorm_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(a && a->x && a->weight && a->y && a->rows && a->dim && a->dim <= 16384u &&
                       zero_ok(a->x_zero) && zero_ok(a->y_zero) && a->eps_q8 <= (1u << 24) &&
                       a->gain >= (1 << 14) && a->gain < (1 << 15) && a->gain_shift >= 0 && a->gain_shift <= 30);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->rows, core_id, core_count, &begin, &end);
    for (uint32_t r = begin; r < end; ++r) {
        const int8_t *x = a->x + (size_t)r * a->dim;
        int8_t *y = a->y + (size_t)r * a->dim;
        uint32_t sum = 0; // <= 16384 * 255^2 < 2^31
        for (uint32_t i = 0; i < a->dim; ++i) {
            const int32_t u = x[i] - a->x_zero;
            sum += (uint32_t)(u * u);
        }
        // 256 sum / dim in 32 bits: (sum / dim) * 256 + (sum % dim) * 256 / dim.
        const uint32_t mean_q8 = (sum / a->dim) * 256u + (sum % a->dim) * 256u / a->dim; // < 2^24
        uint32_t root = isqrt(mean_q8 + a->eps_q8);                                       // 1/16ths
        if (root == 0u) root = 1u;
        for (uint32_t i = 0; i < a->dim; ++i) {
            const int32_t u = x[i] - a->x_zero;
            const int32_t n = a->weight[i] * u; // |n| <= 128 * 255: times gain < 2^30
            y[i] = clamp_i8(a->y_zero + rounding_shift(round_div(n * a->gain, (int32_t)root), a->gain_shift));
        }
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_swiglu_i8(const tsr_swiglu_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(a && a->gate && a->up && a->y && a->count && zero_ok(a->gate_zero) && zero_ok(a->up_zero) &&
                       zero_ok(a->y_zero) && tsr_iexp_constants_ok(a->constants) && a->multiplier >= 0 &&
                       (a->multiplier == 0 || a->multiplier >= (1 << 30)) && a->shift >= -31 && a->shift <= 30);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->count, core_id, core_count, &begin, &end);
    const tsr_iexp_constants &k = a->constants;
    const int32_t e0 = (int32_t)tsr_iexp(0, k); // e^0: at most 2^18
    for (uint32_t i = begin; i < end; ++i) {
        const int32_t g = a->gate[i] - a->gate_zero; // |g| <= 255
        const int32_t e = (int32_t)tsr_iexp(-(g < 0 ? -g : g) * (1 << k.shift), k); // e^-|g|, <= e0
        // g sigmoid(g) in 1/16ths of the gate's scale: 16 g e0 / (e0 + e), or 16 g e / (e0 + e).
        // |16 g| e0 could reach 4080 * 2^18 > 2^31: e0 and e are divided by 4 first
        // (e0 / 4 is still above 11,000).
        const int32_t p = (g >= 0 ? e0 : e) >> 2, q = (e0 + e) >> 2;
        const int32_t silu16 = round_div(16 * g * p, q);
        const int32_t up = a->up[i] - a->up_zero;
        a->y[i] = tsr_requantize_to_i8_fast(silu16 * up, a->multiplier, a->shift, a->y_zero, -128, 127);
    }
    return TSR_KERNEL_OK;
}
