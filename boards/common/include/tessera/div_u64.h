/* n / d on 64-bit numbers by shifts and subtractions (0 for d = 0): RV32 has 64-bit
 * division only as a library call, some 1.7 KB of libgcc a bare-metal board and its
 * demos need not carry. For boards' console output, as decimal text too. */
#ifndef TESSERA_DIV_U64_H
#define TESSERA_DIV_U64_H

#include <stdint.h>

static inline uint64_t tsr_div_u64(uint64_t n, uint64_t d)
{
    if (d == 0u) return 0u;
    uint64_t q = 0, r = 0;
    for (int bit = 63; bit >= 0; --bit) {
        r = (r << 1) | ((n >> bit) & 1u);
        if (r >= d) r -= d, q |= (uint64_t)1 << bit;
    }
    return q;
}

/* v in decimal into out (21 bytes hold any), NUL-terminated; returns out. */
static inline char *tsr_u64_decimal(uint64_t v, char out[21])
{
    char digits[20];
    int n = 0;
    do {
        const uint64_t q = tsr_div_u64(v, 10u);
        digits[n++] = (char)('0' + (v - q * 10u));
        v = q;
    } while (v);
    for (int i = 0; i < n; ++i) out[i] = digits[n - 1 - i];
    out[n] = 0;
    return out;
}

#endif
