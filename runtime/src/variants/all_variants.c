/* Every variant of tessera/variants.def: what the runtime library registers unless a
 * firmware links a list of its own (tessera/variant_registry.h). The tuned
 * implementations of the instruction sets the runtime is built with come first, so a
 * board that runs them gets them (registered_variant_for). */
#include "tessera/variant_registry.h"

#define TSR_TUNED_VARIANT(SET, NAME) TSR_IF_KERNEL_SET_##SET(extern const struct tsr_variant_impl TSR_VARIANT_IMPL_TUNED(NAME, SET);)
#include "tuned_variants.def"
#undef TSR_TUNED_VARIANT

const struct tsr_variant_impl *const tsr_variants[] = {
#define TSR_TUNED_VARIANT(SET, NAME) TSR_IF_KERNEL_SET_##SET(&TSR_VARIANT_IMPL_TUNED(NAME, SET),)
#include "tuned_variants.def"
#undef TSR_TUNED_VARIANT
#define TSR_VARIANT(NAME, id, name, op, engine, dtype, arithmetic, feature) &TSR_VARIANT_IMPL(NAME),
#include "tessera/variants.def"
#undef TSR_VARIANT
};
const uint32_t tsr_variant_count = sizeof tsr_variants / sizeof tsr_variants[0];
