#include "kernel_checks.h"
#include "kernel_math.h"
#include "tessera/kernels_bf16.h"

// The reference's bits (each output's sum in the same order, one rounding), with four
// output channels sharing each converted element of x.
namespace {

inline float f(tsr_bf16 v) { return tsr_f32_from_bf16(v); }

void four(const tsr_bf16 *x, const tsr_bf16 *w0, uint32_t k, float out[4])
{
    const tsr_bf16 *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    for (const tsr_bf16 *end = x + k; x != end; ++x) {
        const float v = f(*x);
        a0 = tsr_mac(a0, f(*w0++), v);
        a1 = tsr_mac(a1, f(*w1++), v);
        a2 = tsr_mac(a2, f(*w2++), v);
        a3 = tsr_mac(a3, f(*w3++), v);
    }
    out[0] = a0, out[1] = a1, out[2] = a2, out[3] = a3;
}

float one(const tsr_bf16 *x, const tsr_bf16 *w, uint32_t k)
{
    float a = 0.0f;
    for (const tsr_bf16 *end = x + k; x != end; ++x) a = tsr_mac(a, f(*w++), f(*x));
    return a;
}

} // namespace

tsr_kernel_status tsr_matmul_bf16(const tsr_matmul_bf16_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(a && a->x && a->w && a->y && a->rows && a->k && a->n && a->ldy >= a->n);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    const uint32_t k = a->k;
    for (uint32_t r = 0; r < a->rows; ++r) {
        const tsr_bf16 *xr = a->x + (size_t)r * k;
        tsr_bf16 *yr = a->y + (size_t)r * a->ldy;
        uint32_t i = begin;
        for (; i + 4u <= end; i += 4u) {
            float s[4];
            four(xr, a->w + (size_t)i * k, k, s);
            for (uint32_t c = 0; c < 4u; ++c) yr[i + c] = tsr_bf16_from_f32(s[c]);
        }
        for (; i < end; ++i) yr[i] = tsr_bf16_from_f32(one(xr, a->w + (size_t)i * k, k));
    }
    return TSR_KERNEL_OK;
}

namespace {

void four_w16(const float *x, const tsr_bf16 *w0, uint32_t k, float *out)
{
    const tsr_bf16 *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    for (const float *end = x + k; x != end; ++x) {
        const float v = *x;
        a0 = tsr_mac(a0, f(*w0++), v);
        a1 = tsr_mac(a1, f(*w1++), v);
        a2 = tsr_mac(a2, f(*w2++), v);
        a3 = tsr_mac(a3, f(*w3++), v);
    }
    out[0] = a0, out[1] = a1, out[2] = a2, out[3] = a3;
}

float one_w16(const float *x, const tsr_bf16 *w, uint32_t k)
{
    float a = 0.0f;
    for (const float *end = x + k; x != end; ++x) a = tsr_mac(a, f(*w++), *x);
    return a;
}

} // namespace

tsr_kernel_status tsr_matmul_f32_w16(const float *x, const tsr_bf16 *w, float *y, uint32_t rows, uint32_t k,
                                     uint32_t n, uint32_t ldy, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(x && w && y && rows && k && n && ldy >= n);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(n, core_id, core_count, &begin, &end);
    for (uint32_t r = 0; r < rows; ++r) {
        const float *xr = x + (size_t)r * k;
        float *yr = y + (size_t)r * ldy;
        uint32_t i = begin;
        for (; i + 4u <= end; i += 4u) four_w16(xr, w + (size_t)i * k, k, yr + i);
        for (; i < end; ++i) yr[i] = one_w16(xr, w + (size_t)i * k, k);
    }
    return TSR_KERNEL_OK;
}
