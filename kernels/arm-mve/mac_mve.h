// tsr_mac (kernel_math.h) in Helium's float lanes, fused exactly where it fuses: each
// lane's bits are the scalar form's. The fp32 kernels of the set share them.
#ifndef TESSERA_MAC_MVE_H
#define TESSERA_MAC_MVE_H

#include <arm_mve.h>

#include "kernel_math.h"
#include "tessera/kernels_arm_mve.h"

// acc + a * b, lane by lane.
TSR_MVE_INLINE float32x4_t tsr_mve_mac(float32x4_t acc, float32x4_t a, float32x4_t b)
{
#if TSR_MAC_FUSES
    return vfmaq_f32(acc, a, b);
#else
    return vaddq_f32(acc, vmulq_f32(a, b));
#endif
}

// acc + v * x, x the same in every lane.
TSR_MVE_INLINE float32x4_t tsr_mve_mac_n(float32x4_t acc, float32x4_t v, float x)
{
#if TSR_MAC_FUSES
    return vfmaq_n_f32(acc, v, x);
#else
    return vaddq_f32(acc, vmulq_n_f32(v, x));
#endif
}

#endif
