/* Every variant of tessera/variants.def: what the runtime library registers unless a
 * firmware links a list of its own (tessera/variant_registry.h). */
#include "tessera/variant_registry.h"

const struct tsr_variant_impl *const tsr_variants[] = {
#define TSR_VARIANT(NAME, id, name, op, engine, dtype, arithmetic, feature) &TSR_VARIANT_IMPL(NAME),
#include "tessera/variants.def"
#undef TSR_VARIANT
};
const uint32_t tsr_variant_count = sizeof tsr_variants / sizeof tsr_variants[0];
