#include "softmax_i8_checks.h"

// The reference's bits without a division per element: q = floor(m / sum) from one
// reciprocal, r = floor((2^32 - 1) / sum), as the high word of m * r, corrected
// upwards (q is at most 2 short, as m < 2^31: m * r / 2^32 > m / sum - m / 2^32 - 1).
// e[i] < 2^18 and sum < 2^28, so m = 4096 e[i] + sum / 2 < 2^31, and q <= 4096.
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
    const uint32_t reciprocal = 0xFFFFFFFFu / sum, half = sum / 2u;
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t m = e[i] * 4096u + half;
        uint32_t q = uint32_t((uint64_t(m) * reciprocal) >> 32);
        uint32_t rest = m - q * sum;
        while (rest >= sum) ++q, rest -= sum;
        a->y[i] = uint16_t(q);
    }
    return TSR_KERNEL_OK;
}
