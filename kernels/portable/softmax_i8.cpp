#include "softmax_i8_checks.h"

// The reference's bits without a division per element (tsr_softmax_i8_normalize).
tsr_kernel_status tsr_softmax_i8(const tsr_softmax_i8_args *a, uint32_t *e)
{
    if (!tsr_softmax_i8_args_ok(a, e)) return TSR_KERNEL_BAD_ARGUMENT;
    const int8_t *x = a->x;
    const uint32_t n = a->n;
    const int32_t shift = a->constants.shift;
    int32_t max = x[0];
    for (uint32_t i = 1; i < n; ++i) max = x[i] > max ? x[i] : max;
    uint32_t sum = 0;
    for (uint32_t i = 0; i < n; ++i) sum += e[i] = tsr_iexp((x[i] - max) * (1 << shift), a->constants);
    tsr_softmax_i8_normalize(e, n, sum, a->y);
    return TSR_KERNEL_OK;
}
