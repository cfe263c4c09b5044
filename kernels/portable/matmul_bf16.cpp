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
    TSR_KERNEL_REQUIRE(a && a->x && a->w && (a->y || a->y_f32) && a->rows && a->k && a->n && a->ldy >= a->n);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    const uint32_t k = a->k;
    for (uint32_t r = 0; r < a->rows; ++r) {
        const tsr_bf16 *xr = a->x + (size_t)r * k;
        tsr_bf16 *yr = a->y ? a->y + (size_t)r * a->ldy : nullptr;
        float *yf = a->y_f32 ? a->y_f32 + (size_t)r * a->ldy : nullptr;
        auto put = [&](uint32_t i, float v) {
            if (a->bias) v += a->bias[i];
            if (yr) yr[i] = tsr_bf16_from_f32(v);
            else yf[i] = v;
        };
        uint32_t i = begin;
        for (; i + 4u <= end; i += 4u) {
            float s[4];
            four(xr, a->w + (size_t)i * k, k, s);
            for (uint32_t c = 0; c < 4u; ++c) put(i + c, s[c]);
        }
        for (; i < end; ++i) put(i, one(xr, a->w + (size_t)i * k, k));
    }
    return TSR_KERNEL_OK;
}

namespace {

// Two bf16 weights from one 32-bit load: the first (lower address) is the low half.
inline float low_half(uint32_t pair) { return tsr_f32_from_bf16(tsr_bf16(pair & 0xFFFFu)); }
inline float high_half(uint32_t pair)
{
    const uint32_t bits = pair & 0xFFFF0000u;
    float v;
    __builtin_memcpy(&v, &bits, sizeof v);
    return v;
}

// Eight output channels against one row of x: each x value loaded once for eight
// multiply-adds; the weights two at a time from 32-bit words when their rows are
// 4-byte aligned (k even, aligned base), which is what the packer's plans give.
void eight_w16(const float *x, const tsr_bf16 *w, uint32_t k, float *out)
{
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f, a4 = 0.0f, a5 = 0.0f, a6 = 0.0f, a7 = 0.0f;
    if ((k % 2u) == 0u && ((uintptr_t)w & 3u) == 0u) {
        const uint32_t *p = (const uint32_t *)__builtin_assume_aligned(w, 4);
        const uint32_t half = k / 2u;
        for (uint32_t j = 0; j < half; ++j, ++p, x += 2) {
            const float v0 = x[0], v1 = x[1];
            uint32_t q0, q1, q2, q3, q4, q5, q6, q7;
            __builtin_memcpy(&q0, p, 4), __builtin_memcpy(&q1, p + half, 4);
            __builtin_memcpy(&q2, p + 2u * half, 4), __builtin_memcpy(&q3, p + 3u * half, 4);
            __builtin_memcpy(&q4, p + 4u * half, 4), __builtin_memcpy(&q5, p + 5u * half, 4);
            __builtin_memcpy(&q6, p + 6u * half, 4), __builtin_memcpy(&q7, p + 7u * half, 4);
            a0 = tsr_mac(tsr_mac(a0, low_half(q0), v0), high_half(q0), v1);
            a1 = tsr_mac(tsr_mac(a1, low_half(q1), v0), high_half(q1), v1);
            a2 = tsr_mac(tsr_mac(a2, low_half(q2), v0), high_half(q2), v1);
            a3 = tsr_mac(tsr_mac(a3, low_half(q3), v0), high_half(q3), v1);
            a4 = tsr_mac(tsr_mac(a4, low_half(q4), v0), high_half(q4), v1);
            a5 = tsr_mac(tsr_mac(a5, low_half(q5), v0), high_half(q5), v1);
            a6 = tsr_mac(tsr_mac(a6, low_half(q6), v0), high_half(q6), v1);
            a7 = tsr_mac(tsr_mac(a7, low_half(q7), v0), high_half(q7), v1);
        }
    } else {
        for (uint32_t j = 0; j < k; ++j) {
            const float v = x[j];
            a0 = tsr_mac(a0, f(w[j]), v), a1 = tsr_mac(a1, f(w[k + j]), v);
            a2 = tsr_mac(a2, f(w[2u * k + j]), v), a3 = tsr_mac(a3, f(w[3u * k + j]), v);
            a4 = tsr_mac(a4, f(w[4u * k + j]), v), a5 = tsr_mac(a5, f(w[5u * k + j]), v);
            a6 = tsr_mac(a6, f(w[6u * k + j]), v), a7 = tsr_mac(a7, f(w[7u * k + j]), v);
        }
    }
    out[0] = a0, out[1] = a1, out[2] = a2, out[3] = a3, out[4] = a4, out[5] = a5, out[6] = a6, out[7] = a7;
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
        for (; i + 8u <= end; i += 8u) eight_w16(xr, w + (size_t)i * k, k, yr + i);
        for (; i < end; ++i) yr[i] = one_w16(xr, w + (size_t)i * k, k);
    }
    return TSR_KERNEL_OK;
}
