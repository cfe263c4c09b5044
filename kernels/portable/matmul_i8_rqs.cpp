// The int8 matmul with QuantLib's RequantShift per output channel
// (tessera/kernels_quantlib.h): the reference, a dot product per output, and the
// kernel, four channels sharing each load of x (matmul_i8_dot.h). Exact integers:
// the two agree bit for bit.
#include "kernel_checks.h"
#include "matmul_i8_dot.h"
#include "tessera/kernels_quantlib.h"

namespace {

bool args_ok(const tsr_matmul_i8_rqs_args *a)
{
    return a && a->x && a->w && a->mul && a->add && a->y && a->rows && a->k && a->k <= 32768u && a->n && a->ldy >= a->n &&
           tsr_rqs_valid(&a->range) && a->range.lo >= -128 && a->range.hi <= 127;
}

// Channel c's RequantShift of acc (|acc| <= k 2^14): in 32 bits where its constants allow.
inline int8_t requant(const tsr_matmul_i8_rqs_args *a, uint32_t c, int32_t acc)
{
    const tsr_rqs_params &r = a->range;
    if (tsr_rqs_fits_i32(a->mul[c], a->add[c], r.shift, (int64_t)a->k * 16384))
        return (int8_t)tsr_rqs_i32(acc, a->mul[c], a->add[c], r.shift, r.lo, r.hi);
    return (int8_t)tsr_rqs_channel(acc, a->mul[c], a->add[c], &r);
}

} // namespace

tsr_kernel_status tsr_matmul_i8_rqs_ref(const tsr_matmul_i8_rqs_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(args_ok(a));
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
    TSR_KERNEL_REQUIRE(args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    for (uint32_t r = 0; r < a->rows; ++r) {
        const int8_t *x = a->x + (size_t)r * a->k;
        int8_t *y = a->y + (size_t)r * a->ldy;
        uint32_t c = begin;
        for (; c + 4u <= end; c += 4u) {
            int32_t acc[4];
            tsr_i8_dot_rows<4>(x, a->w + (size_t)c * a->k, a->k, acc);
            for (uint32_t i = 0; i < 4u; ++i) y[c + i] = requant(a, c + i, acc[i]);
        }
        for (; c < end; ++c) {
            int32_t acc[1];
            tsr_i8_dot_rows<1>(x, a->w + (size_t)c * a->k, a->k, acc);
            y[c] = requant(a, c, acc[0]);
        }
    }
    return TSR_KERNEL_OK;
}
