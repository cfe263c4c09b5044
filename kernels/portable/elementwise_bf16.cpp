#include "kernel_checks.h"
#include "kernel_math.h"
#include "tessera/kernels_bf16.h"

float tsr_expf_schraudolph(float x)
{
    // The seed paper's constants: A = 2^23 / ln 2, B = 127 * 2^23; C = 2^23 and
    // D = 255 * 2^23 bound the integer to the exponent field: below C, 0; from D, the
    // bits of +inf. A NaN stays NaN (a float-to-integer conversion of it would be
    // undefined).
    const float a = 12102203.161561485f, b = 1065353216.0f, c = 8388608.0f, d = 2139095040.0f;
    if (x != x) return x;
    float v = a * x + b;
    if (v < c) return 0.0f;
    if (v > d) v = d;
    const uint32_t n = (uint32_t)v;
    float out;
    __builtin_memcpy(&out, &n, sizeof out);
    return out;
}

namespace {
inline float exp_of(float x, tsr_exp_kind kind) { return kind == TSR_EXP_SCHRAUDOLPH ? tsr_expf_schraudolph(x) : tsr_expf(x); }
} // namespace

tsr_kernel_status tsr_softmax_bf16(tsr_bf16 *x, uint32_t n, tsr_exp_kind kind)
{
    TSR_KERNEL_REQUIRE(x && n && (kind == TSR_EXP_ACCURATE || kind == TSR_EXP_SCHRAUDOLPH));
    float max = tsr_f32_from_bf16(x[0]);
    for (uint32_t i = 1; i < n; ++i) {
        const float v = tsr_f32_from_bf16(x[i]);
        max = v > max ? v : max;
    }
    float sum = 0.0f;
    for (uint32_t i = 0; i < n; ++i) sum += exp_of(tsr_f32_from_bf16(x[i]) - max, kind);
    // The exponentials again rather than a fp32 buffer: the row stays bf16 in L1.
    for (uint32_t i = 0; i < n; ++i) x[i] = tsr_bf16_from_f32(exp_of(tsr_f32_from_bf16(x[i]) - max, kind) / sum);
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_swiglu_bf16(const tsr_bf16 *gate, const tsr_bf16 *up, tsr_bf16 *y, uint32_t count,
                                  tsr_exp_kind kind, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(gate && up && y && count && (kind == TSR_EXP_ACCURATE || kind == TSR_EXP_SCHRAUDOLPH));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(count, core_id, core_count, &begin, &end);
    for (uint32_t i = begin; i < end; ++i) {
        const float g = tsr_f32_from_bf16(gate[i]);
        y[i] = tsr_bf16_from_f32(g / (1.0f + exp_of(-g, kind)) * tsr_f32_from_bf16(up[i]));
    }
    return TSR_KERNEL_OK;
}
