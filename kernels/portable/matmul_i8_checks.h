// The ranges tsr_matmul_i8_args documents, checked once per call (every version; the
// Helium one skips its tables' where the caller's flags say they were checked).
#ifndef TESSERA_MATMUL_I8_CHECKS_H
#define TESSERA_MATMUL_I8_CHECKS_H

#include "tessera/kernels_i8.h"
#include "tessera/kernels_i8_float.h"
#include "tessera/kernels_quantlib.h"

// Channels `from`..n of the tables: multiplier 0 or in [2^30, 2^31), shift in [-31, 30],
// bias (or NULL) in [-2^26, 2^26].
static inline bool tsr_matmul_i8_table_ok(const int32_t *multiplier, const int8_t *shift, const int32_t *bias,
                                          uint32_t from, uint32_t n)
{
    for (uint32_t i = from; i < n; ++i) {
        const int32_t m = multiplier[i], s = shift[i];
        if ((m != 0 && m < (1 << 30)) || m < 0 || s < -31 || s > 30) return false;
        if (bias && (bias[i] > (1 << 26) || bias[i] < -(1 << 26))) return false;
    }
    return true;
}

static inline bool tsr_matmul_i8_channels_ok(const tsr_matmul_i8_args *a, uint32_t from)
{
    return tsr_matmul_i8_table_ok(a->multiplier, a->shift, a->bias, from, a->n);
}

// The arguments other than the per-channel tables.
static inline bool tsr_matmul_i8_scalars_ok(const tsr_matmul_i8_args *a)
{
    if (!a || !a->x || !a->w || !a->multiplier || !a->shift || !a->y) return false;
    if (a->rows == 0u || a->k == 0u || a->k > 32768u || a->n == 0u || a->ldy < a->n) return false;
    if (a->x_zero < -128 || a->x_zero > 127 || a->y_zero < -128 || a->y_zero > 127) return false;
    return a->y_min >= -128 && a->y_min <= a->y_max && a->y_max <= 127;
}

static inline bool tsr_matmul_i8_args_ok(const tsr_matmul_i8_args *a)
{
    return tsr_matmul_i8_scalars_ok(a) && tsr_matmul_i8_channels_ok(a, 0u);
}

// QuantLib's RequantShift matmul (tessera/kernels_quantlib.h).
static inline bool tsr_matmul_i8_rqs_args_ok(const tsr_matmul_i8_rqs_args *a)
{
    return a && a->x && a->w && a->mul && a->add && a->y && a->rows && a->k && a->k <= 32768u && a->n && a->ldy >= a->n &&
           tsr_rqs_valid(&a->range) && a->range.lo >= -128 && a->range.hi <= 127;
}

static inline bool tsr_matmul_i8_f32_args_ok(const tsr_matmul_i8_f32_args *a)
{
    return a && a->x && a->w && a->scale && a->y && a->rows && a->k && a->k <= 32768u && a->n && a->ldy >= a->n;
}

#endif
