// The int8 matmul with QuantLib's RequantShift per output channel
// (tessera/kernels_quantlib.h): the reference, a dot product per output, and the
// kernel, blocks of channels sharing each load of x and, four rows at a time, exact
// float blocks (matmul_i8_dot.h). Exact integers: the two agree bit for bit.
#include "kernel_checks.h"
#include "matmul_i8_checks.h"
#include "matmul_i8_dot.h"
#include "tessera/kernels_quantlib.h"

tsr_kernel_status tsr_matmul_i8_rqs_ref(const tsr_matmul_i8_rqs_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_i8_rqs_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    for (uint32_t r = 0; r < a->rows; ++r)
        for (uint32_t c = begin; c < end; ++c) {
            int32_t acc = 0; // k x 128^2 <= 2^29
            for (uint32_t j = 0; j < a->k; ++j) acc += a->x[(size_t)r * a->k + j] * a->w[(size_t)c * a->k + j];
            a->y[(size_t)r * a->ldy + c] = (int8_t)tsr_rqs_channel(acc, a->mul[c], a->add[c], &a->range);
        }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_matmul_i8_rqs(const tsr_matmul_i8_rqs_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_i8_rqs_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    tsr_rqs_prepared rqs[8]; // the block's channels, prepared once for every row
    tsr_i8_channel_blocks(
        a->x, a->w, a->rows, a->k, begin, end,
        [&](uint32_t i, uint32_t block) {
            for (uint32_t c = 0; c < block; ++c) {
                const tsr_rqs_params r = {a->mul[i + c], a->add[i + c], a->range.shift, a->range.lo, a->range.hi};
                rqs[c] = tsr_rqs_prepare(&r);
            }
        },
        [&](uint32_t r, uint32_t i, uint32_t block, const int32_t *acc) {
            int8_t *y = a->y + (size_t)r * a->ldy + i;
            for (uint32_t c = 0; c < block; ++c) y[c] = (int8_t)tsr_rqs_apply(&rqs[c], acc[c]);
        });
    return TSR_KERNEL_OK;
}

bool tsr_matmul_i8_rqs_fits_32(const int8_t *w, const int32_t *mul, const int32_t *add, uint32_t n, uint32_t k,
                               int32_t shift)
{
    if (!w || !mul || !add || k > 32768u || shift < 0 || shift > 30) return false;
    const uint64_t round = shift > 0 ? (uint64_t)1 << (shift - 1) : 0u;
    for (uint32_t c = 0; c < n; ++c) {
        uint32_t sum = 0; // <= 32768 x 128
        for (uint32_t j = 0; j < k; ++j) sum += (uint32_t)(w[(size_t)c * k + j] < 0 ? -w[(size_t)c * k + j] : w[(size_t)c * k + j]);
        const uint64_t m = mul[c] < 0 ? 0u - (uint64_t)(int64_t)mul[c] : (uint64_t)mul[c];
        const uint64_t a = add[c] < 0 ? 0u - (uint64_t)(int64_t)add[c] : (uint64_t)add[c];
        if ((uint64_t)sum * 128u * m + a + round > 0x7FFFFFFFu) return false; // < 2^22 x 2^7 x 2^31 + 2^33: no wrap
    }
    return true;
}
