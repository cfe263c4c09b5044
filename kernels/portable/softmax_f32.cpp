#include "kernel_math.h"
#include "tessera/kernels.h"

// The sum is taken in eight lanes (element i in lane i % 8), then the lanes are
// combined pairwise: a fixed order, so every caller on every core gets the same bits,
// and one that needs no chain of dependent additions. The lanes are plain locals, so
// a scalar core keeps them in registers and a vector unit can take them as one vector.
// A NaN among the inputs makes the results NaN or meaningless, never a fault.
void tsr_softmax_f32(float *x, uint32_t n)
{
    // The maximum in the same eight lanes: any order gives the same value (up to the
    // sign of a zero maximum, which changes no x - max), and a NaN never wins a
    // comparison, as in a plain loop.
    const float first = x[0];
    float m0 = first, m1 = first, m2 = first, m3 = first, m4 = first, m5 = first, m6 = first, m7 = first;
    uint32_t j = 0;
    for (; j + 8u <= n; j += 8u) {
        const float *v = x + j;
        m0 = v[0] > m0 ? v[0] : m0, m1 = v[1] > m1 ? v[1] : m1, m2 = v[2] > m2 ? v[2] : m2, m3 = v[3] > m3 ? v[3] : m3;
        m4 = v[4] > m4 ? v[4] : m4, m5 = v[5] > m5 ? v[5] : m5, m6 = v[6] > m6 ? v[6] : m6, m7 = v[7] > m7 ? v[7] : m7;
    }
    for (; j < n; ++j) m0 = x[j] > m0 ? x[j] : m0;
    m0 = m4 > m0 ? m4 : m0, m1 = m5 > m1 ? m5 : m1, m2 = m6 > m2 ? m6 : m2, m3 = m7 > m3 ? m7 : m3;
    m0 = m2 > m0 ? m2 : m0, m1 = m3 > m1 ? m3 : m1;
    const float max_val = m1 > m0 ? m1 : m0;

    for (uint32_t i = 0; i < n; ++i) x[i] = tsr_expf(x[i] - max_val);

    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f, s4 = 0.0f, s5 = 0.0f, s6 = 0.0f, s7 = 0.0f;
    uint32_t i = 0;
    for (; i + 8u <= n; i += 8u) {
        const float *v = x + i;
        s0 += v[0], s1 += v[1], s2 += v[2], s3 += v[3], s4 += v[4], s5 += v[5], s6 += v[6], s7 += v[7];
    }
    float tail[7] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    for (uint32_t l = 0; i + l < n; ++l) tail[l] = x[i + l];
    s0 += tail[0], s1 += tail[1], s2 += tail[2], s3 += tail[3], s4 += tail[4], s5 += tail[5], s6 += tail[6];
    s0 += s4, s1 += s5, s2 += s6, s3 += s7;
    s0 += s2, s1 += s3;
    const float sum = s0 + s1;
    for (uint32_t k = 0; k < n; ++k) x[k] /= sum;
}

uint32_t tsr_argmax_f32(const float *x, uint32_t n)
{
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; ++i)
        if (x[i] > x[best]) best = i;
    return best;
}
