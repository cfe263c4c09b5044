// The ranges tsr_matmul_w4a8_args documents, checked once per call (both versions).
#ifndef TESSERA_MATMUL_W4A8_CHECKS_H
#define TESSERA_MATMUL_W4A8_CHECKS_H

#include "tessera/kernels_i8.h"
#include "tessera/kernels_i8_float.h"

static inline bool tsr_matmul_w4a8_args_ok(const tsr_matmul_w4a8_args *a)
{
    if (!a || !a->x || !a->w || !a->multiplier || !a->shift || !a->y) return false;
    if (a->rows == 0u || a->k == 0u || a->k > 2048u || a->n == 0u || a->ldy < a->n) return false;
    if (a->x_zero < -128 || a->x_zero > 127 || a->y_zero < -128 || a->y_zero > 127) return false;
    for (uint32_t i = 0; i < a->n; ++i) {
        const int32_t m = a->multiplier[i], s = a->shift[i];
        if ((m != 0 && m < (1 << 30)) || m < 0 || s < -31 || s > 30) return false;
    }
    return true;
}

// The dequantizing form's ranges (tsr_matmul_w4a8_f32_args).
static inline bool tsr_matmul_w4a8_f32_args_ok(const tsr_matmul_w4a8_f32_args *a)
{
    return a && a->x && a->w && a->scale && a->y && a->rows && a->k && a->k <= 2048u && a->n && a->ldy >= a->n;
}

// A token's embedding row (tsr_embed_row_i8_args): its factor's ranges, and a W4 row's
// group scales and width (both versions).
static inline bool tsr_embed_row_i8_args_ok(const tsr_embed_row_i8_args *a)
{
    if (!a || !a->y || !a->dim || a->w4 > 1u) return false;
    if ((a->multiplier != 0 && a->multiplier < (1 << 30)) || a->multiplier < 0 || a->shift < -31 || a->shift > 30) return false;
    return !a->w4 || (a->group_scales && a->dim <= 2048u);
}

// Weight j of a row: the nibble of byte j/2, sign-extended.
static inline int32_t tsr_w4_at(const uint8_t *row, uint32_t j)
{
    const uint32_t b = row[j / 2u];
    const uint32_t nib = (j & 1u) ? b >> 4 : b & 15u;
    return (int32_t)nib - (int32_t)((nib & 8u) << 1);
}

#endif
