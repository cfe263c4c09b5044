/* Every variant of tessera/variants.def: what the runtime library registers unless a
 * firmware links a list of its own (tessera/variant_registry.h). The tuned
 * implementations of the instruction sets the runtime is built with come first, so a
 * board that runs them gets them (registered_variant_for). */
#include "tessera/variant_registry.h"
#include "tessera/kernel_sets.h"

/* The built sets' rows (kernels/<set>/tuned_variants.def, gathered by kernels/kernel_sets.cmake). */
#define TSR_TUNED(OP, SET, NAME, suffix) extern const struct tsr_variant_impl TSR_VARIANT_IMPL_TUNED(NAME, SET);
#include "tessera/tuned_all.def"
#undef TSR_TUNED

const struct tsr_variant_impl *const tsr_variants[] = {
#define TSR_TUNED(OP, SET, NAME, suffix) &TSR_VARIANT_IMPL_TUNED(NAME, SET),
#include "tessera/tuned_all.def"
#undef TSR_TUNED
#define TSR_VARIANT(NAME, id, name, op, engine, dtype, arithmetic, feature, params) &TSR_VARIANT_IMPL(NAME),
#include "tessera/variants.def"
#undef TSR_VARIANT
};
const uint32_t tsr_variant_count = sizeof tsr_variants / sizeof tsr_variants[0];
