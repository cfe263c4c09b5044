// Argument checks shared by the kernels: cheap, done once per call, never in loops.
#ifndef TESSERA_KERNEL_CHECKS_H
#define TESSERA_KERNEL_CHECKS_H

#include <stdbool.h>

#include "tessera/kernels.h"

#define TSR_KERNEL_REQUIRE(cond)                 \
    do {                                         \
        if (!(cond)) return TSR_KERNEL_BAD_ARGUMENT; \
    } while (0)

#define TSR_KERNEL_REQUIRE_CORE(core_id, core_count) \
    TSR_KERNEL_REQUIRE((core_count) >= 1u && (core_id) < (core_count))

// A Q31 requantization factor as every int8 kernel takes it: multiplier 0 or in
// [2^30, 2^31), shift in [-31, 30].
static inline bool tsr_requant_ok(int32_t m, int32_t s)
{
    return !((m != 0 && m < (1 << 30)) || m < 0 || s < -31 || s > 30);
}

#endif
