#include "registry.h"

namespace tsr {

uint8_t registered_variant_for(uint32_t id, uint32_t isa)
{
    for (uint32_t i = 0; i < tsr_variant_count && i < kNoVariant; ++i)
        if (tsr_variants[i] && tsr_variants[i]->id == id && (tsr_variants[i]->isa & ~isa) == 0u) return (uint8_t)i;
    return kNoVariant;
}

uint8_t registered_variant(uint32_t id) { return registered_variant_for(id, 0xFFFFFFFFu); }

uint32_t registered_features()
{
    uint32_t features = 0;
    tsr_variant_row row;
    for (uint32_t i = 0; i < tsr_variant_count && i < kNoVariant; ++i)
        if (tsr_variants[i] && tsr_variant_lookup(tsr_variants[i]->id, &row)) features |= row.feature;
    return features;
}

} // namespace tsr
