/*
 * The operator variants a runtime runs (the rows of tessera/variants.def it was
 * linked with), as TFLite Micro's MicroMutableOpResolver: a firmware pays only for
 * the kernels of the variants it registers.
 *
 * The runtime library registers every variant (runtime/src/variants/all_variants.c).
 * A firmware that runs known images instead links one list of its own: `tessera-pack
 * --emit-variants FILE.c` writes the list an image needs, and an object defining
 * tsr_variants and tsr_variant_count, linked before the library, replaces the
 * library's. An image with a step whose variant is not registered is refused at
 * open, naming the variant (TESSERA_ERR_IMAGE_UNSUPPORTED).
 *
 * A list:
 *
 *   #include "tessera/variant_registry.h"
 *   const struct tsr_variant_impl *const tsr_variants[] = {
 *       &TSR_VARIANT_IMPL(EMBED), &TSR_VARIANT_IMPL(MATMUL_I8), ...
 *   };
 *   const uint32_t tsr_variant_count = sizeof tsr_variants / sizeof tsr_variants[0];
 */
#ifndef TESSERA_VARIANT_REGISTRY_H
#define TESSERA_VARIANT_REGISTRY_H

#include <stdint.h>

#include "tessera/variants.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A variant's implementation as its operator's device file defines it: its id, the
 * checks of its own parameters and its kernels (opaque outside the runtime). */
struct tsr_variant_impl;

/* The implementation of the variant named NAME in tessera/variants.def. */
#define TSR_VARIANT_IMPL(NAME) tsr_variant_impl_##NAME

#define TSR_VARIANT(NAME, id, name, op, engine, dtype, arithmetic, feature, params) \
    extern const struct tsr_variant_impl TSR_VARIANT_IMPL(NAME);
#include "tessera/variants.def"
#undef TSR_VARIANT

/* A variant's kernels from instruction set SET (kernels/<isa>/; tessera/hal.h TSR_ISA_SET):
 * registered before the variant's portable implementation, used where the board's
 * tsr_hal_board.isa has the set's bit. */
#define TSR_VARIANT_IMPL_TUNED(NAME, SET) tsr_variant_impl_##NAME##_##SET

/* The registered variants: at most 255, each portable one at most once. */
extern const struct tsr_variant_impl *const tsr_variants[];
extern const uint32_t tsr_variant_count;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_VARIANT_REGISTRY_H */
