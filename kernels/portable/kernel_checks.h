// Argument checks shared by the kernels: cheap, done once per call, never in loops.
#ifndef TESSERA_KERNEL_CHECKS_H
#define TESSERA_KERNEL_CHECKS_H

#include "tessera/kernels.h"

#define TSR_KERNEL_REQUIRE(cond)                 \
    do {                                         \
        if (!(cond)) return TSR_KERNEL_BAD_ARGUMENT; \
    } while (0)

#define TSR_KERNEL_REQUIRE_CORE(core_id, core_count) \
    TSR_KERNEL_REQUIRE((core_count) >= 1u && (core_id) < (core_count))

#endif
