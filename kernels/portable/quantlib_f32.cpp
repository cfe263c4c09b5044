// The float kernels of QuantLib's float graphs (tessera/kernels_quantlib.h).
#include "kernel_checks.h"
#include "tessera/kernels_quantlib.h"

tsr_kernel_status tsr_matmul_f32_bias(const float *x, const float *w, const float *bias, float *y, uint32_t rows,
                                      uint32_t k, uint32_t n, uint32_t ldy, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(x && w && bias && y && rows && k && n && ldy >= n);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(n, core_id, core_count, &begin, &end);
    for (uint32_t r = 0; r < rows; ++r)
        for (uint32_t c = begin; c < end; ++c) {
            const float *xr = x + (size_t)r * k, *wc = w + (size_t)c * k;
            float acc = 0.0f;
            for (uint32_t j = 0; j < k; ++j) acc += xr[j] * wc[j];
            y[(size_t)r * ldy + c] = acc + bias[c];
        }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_rope_matrix_f32(float *q, float *k, const float *rotation, uint32_t rows, uint32_t dim,
                                      uint32_t kv_dim, uint32_t head_size, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(q && k && rotation && rows && head_size && head_size <= 64u && dim && kv_dim &&
                       dim % head_size == 0u && kv_dim % head_size == 0u);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    const uint32_t hs = head_size, qh = dim / hs, heads = qh + kv_dim / hs;
    uint32_t begin, end;
    tsr_core_range(rows * heads, core_id, core_count, &begin, &end);
    for (uint32_t item = begin; item < end; ++item) {
        const uint32_t r = item / heads, h = item % heads;
        float *x = h < qh ? q + (size_t)r * dim + (size_t)h * hs : k + (size_t)r * kv_dim + (size_t)(h - qh) * hs;
        const float *m = rotation + (size_t)r * hs * hs;
        float in[64];
        for (uint32_t i = 0; i < hs; ++i) in[i] = x[i];
        for (uint32_t j = 0; j < hs; ++j) {
            float s = 0.0f;
            for (uint32_t i = 0; i < hs; ++i) s += in[i] * m[i * hs + j];
            x[j] = s;
        }
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_hardswish_f32(const float *gate, const float *up, float *y, uint32_t count, uint32_t core_id,
                                    uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(gate && up && y && count);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(count, core_id, core_count, &begin, &end);
    for (uint32_t i = begin; i < end; ++i) {
        const float g = gate[i], c = g + 3.0f;
        y[i] = g * (c < 0.0f ? 0.0f : c > 6.0f ? 6.0f : c) / 6.0f * up[i];
    }
    return TSR_KERNEL_OK;
}
