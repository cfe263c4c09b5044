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
    if (const uint32_t *exps = a->exps)
        for (uint32_t i = 0; i < n; ++i) sum += e[i] = exps[max - x[i]];
    else
        for (uint32_t i = 0; i < n; ++i) sum += e[i] = tsr_iexp((x[i] - max) * (1 << shift), a->constants);
    tsr_softmax_i8_normalize(e, n, sum, a->y);
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_softmax_i8_exp_table(const tsr_iexp_constants *k, uint32_t *table)
{
    if (!k || !table || !tsr_iexp_constants_ok(*k)) return TSR_KERNEL_BAD_ARGUMENT;
    for (int32_t u = 0; u < (int32_t)TSR_SOFTMAX_I8_EXP_ENTRIES; ++u) table[u] = tsr_iexp(-u * (1 << k->shift), *k);
    return TSR_KERNEL_OK;
}

int tsr_softmax_i8_exp_table_ok(const uint32_t *table)
{
    if (!table || table[0] == 0u) return 0;
    uint32_t high = 0; // the entries' bits at 2^18 and above, or-ed
    for (uint32_t u = 0; u < TSR_SOFTMAX_I8_EXP_ENTRIES; ++u) high |= table[u] >> 18;
    return high == 0u;
}
