#include "kernel_math.h"
#include "tessera/kernels.h"

void tsr_softmax_f32(float *x, uint32_t n)
{
    float max_val = x[0];
    for (uint32_t i = 1; i < n; ++i)
        if (x[i] > max_val) max_val = x[i];
    float sum = 0.0f;
    for (uint32_t i = 0; i < n; ++i) {
        x[i] = tsr_expf(x[i] - max_val);
        sum += x[i];
    }
    for (uint32_t i = 0; i < n; ++i) x[i] /= sum;
}

uint32_t tsr_argmax_f32(const float *x, uint32_t n)
{
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; ++i)
        if (x[i] > x[best]) best = i;
    return best;
}
