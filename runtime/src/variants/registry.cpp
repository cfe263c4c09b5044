#include "registry.h"

namespace tsr {

uint8_t registered_variant(uint32_t id)
{
    for (uint32_t i = 0; i < tsr_variant_count && i < kNoVariant; ++i)
        if (tsr_variants[i] && tsr_variants[i]->id == id) return (uint8_t)i;
    return kNoVariant;
}

uint32_t registered_features()
{
    uint32_t features = 0;
    tsr_variant_row row;
    for (uint32_t i = 0; i < tsr_variant_count && i < kNoVariant; ++i)
        if (tsr_variants[i] && tsr_variant_lookup(tsr_variants[i]->id, &row)) features |= row.feature;
    return features;
}

} // namespace tsr
