#include "softmax_i8_checks.h"

// The definition: exponentials, their sum, then one division per element.
tsr_kernel_status tsr_softmax_i8_ref(const tsr_softmax_i8_args *a, uint32_t *e)
{
    if (!tsr_softmax_i8_args_ok(a, e)) return TSR_KERNEL_BAD_ARGUMENT;
    int32_t max = a->x[0];
    for (uint32_t i = 1; i < a->n; ++i)
        if (a->x[i] > max) max = a->x[i];
    uint32_t sum = 0;
    for (uint32_t i = 0; i < a->n; ++i) sum += e[i] = tsr_iexp((a->x[i] - max) * (1 << a->constants.shift), a->constants);
    for (uint32_t i = 0; i < a->n; ++i) {
        const uint32_t q = (e[i] * 4096u + sum / 2u) / sum;
        a->y[i] = uint16_t(q);
    }
    return TSR_KERNEL_OK;
}

uint32_t tsr_softmax_i8_scratch_bytes(const tsr_softmax_i8_args *a) { return a ? 4u * a->n : 0u; }
