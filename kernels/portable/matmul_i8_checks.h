// The ranges tsr_matmul_i8_args documents, checked once per call (every version).
#ifndef TESSERA_MATMUL_I8_CHECKS_H
#define TESSERA_MATMUL_I8_CHECKS_H

#include "tessera/kernels_i8.h"
#include "tessera/kernels_i8_float.h"

static inline bool tsr_matmul_i8_args_ok(const tsr_matmul_i8_args *a)
{
    if (!a || !a->x || !a->w || !a->multiplier || !a->shift || !a->y) return false;
    if (a->rows == 0u || a->k == 0u || a->k > 32768u || a->n == 0u || a->ldy < a->n) return false;
    if (a->x_zero < -128 || a->x_zero > 127 || a->y_zero < -128 || a->y_zero > 127) return false;
    if (a->y_min < -128 || a->y_min > a->y_max || a->y_max > 127) return false;
    for (uint32_t i = 0; i < a->n; ++i) {
        const int32_t m = a->multiplier[i], s = a->shift[i];
        if ((m != 0 && m < (1 << 30)) || m < 0 || s < -31 || s > 30) return false;
        if (a->bias && (a->bias[i] > (1 << 26) || a->bias[i] < -(1 << 26))) return false;
    }
    return true;
}

static inline bool tsr_matmul_i8_f32_args_ok(const tsr_matmul_i8_f32_args *a)
{
    return a && a->x && a->w && a->scale && a->y && a->rows && a->k && a->k <= 32768u && a->n && a->ldy >= a->n;
}

#endif
