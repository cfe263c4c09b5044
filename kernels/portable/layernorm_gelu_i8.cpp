// The int8 LayerNorm and table lookup (tessera/kernels_i8.h): integers only, so that a
// core without an FPU runs GPT-2's norms and GELU.
#include "elementwise_i8_checks.h"
#include "split_loops.h"
#include "tessera/kernels_i8.h"

// Split as tsr_rmsnorm_split says (split_loops.h): rows over the cores, or with fewer rows
// than cores, every core its row's statistics and a slice of its columns.
tsr_kernel_status tsr_layernorm_i8(const tsr_layernorm_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_layernorm_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    const uint32_t D = a->dim;
    uint32_t r0, r1, c0, c1;
    tsr_rmsnorm_split(a->rows, D, core_id, core_count, &r0, &r1, &c0, &c1);
    for (uint32_t r = r0; r < r1; ++r) {
        const int8_t *x = a->x + (size_t)r * D;
        int8_t *y = a->y + (size_t)r * D;
        int32_t sum = 0; // |sum| <= 128 x 16384 = 2^21
        for (uint32_t i = 0; i < D; ++i) sum += x[i];
        const int32_t m = tsr_round_div(sum * 256, (int32_t)D); // |256 sum| <= 2^29
        uint64_t ss = 0;                                        // dim x 2^32 at most
        for (uint32_t i = 0; i < D; ++i) {
            const int32_t d = x[i] * 256 - m;
            ss += (uint64_t)((int64_t)d * d);
        }
        // z = 256 d / s as a multiplication: 2^38 / s rounded (>= 2^22: s <= 2^16), then
        // rounded half up (|256 d| < 2^24: the product stays below 2^62).
        const int64_t inv = tsr_layernorm_i8_inverse(ss, D, a->eps_q16);
        for (uint32_t i = c0; i < c1; ++i) {
            const int64_t z = ((int64_t)(x[i] * 256 - m) * 256 * inv + ((int64_t)1 << 37)) >> 38; // |z| <= 2^23
            const int64_t acc = z * a->weight[i] + a->bias[i];
            const int32_t acc32 = acc > INT32_MAX ? INT32_MAX : acc < INT32_MIN ? INT32_MIN : (int32_t)acc;
            y[i] = tsr_requantize_to_i8(acc32, a->multiplier, a->shift, 0, -128, 127);
        }
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_lut_i8(const int8_t *x, const int8_t *table, int8_t *y, uint32_t count, uint32_t core_id,
                             uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(x && table && y && count);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(count, core_id, core_count, &begin, &end);
    for (uint32_t i = begin; i < end; ++i) y[i] = table[x[i] + 128];
    return TSR_KERNEL_OK;
}
