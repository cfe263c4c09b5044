/*
 * The requantization constants that several operators' parameters (tessera/variant_params.h)
 * and kernels (tessera/kernels_quantlib.h) share.
 */
#ifndef TESSERA_REQUANT_PARAMS_H
#define TESSERA_REQUANT_PARAMS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The integer exponential's constants for one input scale (tsr_iexp_constants). */
typedef struct tsr_iexp_params {
    int32_t shift, ln2, b, c;
} tsr_iexp_params;

/* A real factor as a Q31 multiplier and a shift: factor = multiplier * 2^(shift - 31). */
typedef struct tsr_requant_params {
    int32_t multiplier, shift;
} tsr_requant_params;

/* QuantLib's RequantShift with its constants: y = clamp(floor((x mul + add + 2^(shift-1)) / 2^shift), lo, hi)
 * (round half up; tessera/kernels_quantlib.h). mul and add are scalars here; per-channel ones
 * are in a weight tensor. */
typedef struct tsr_rqs_params {
    int32_t mul, add;
    int32_t shift;  /* log2 of RequantShift's div: 0..62 */
    int32_t lo, hi; /* the output range: [-n/2, n/2 - 1] signed, [0, n - 1] unsigned */
} tsr_rqs_params;

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_REQUANT_PARAMS_H */
