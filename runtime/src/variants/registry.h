// The variants this runtime registers (tsr_variants, tessera/variant_registry.h), as
// the image checks and the operators ask about them.
#ifndef TESSERA_VARIANTS_REGISTRY_H
#define TESSERA_VARIANTS_REGISTRY_H

#include <stdint.h>

#include "tessera/variant_registry.h"

#include "tessera/tessera.h"

namespace tsr {
struct StepChecker;
// Each operator's row: what the registrations of its variants hold (its kernels), a type
// its device file defines (runtime/src/ops/<op>.cpp), one per row of ops.def.
template <uint16_t Op> struct OpRow;
} // namespace tsr

// A variant's row, typed by its operator: the member of the variant's operator (a
// registration sets the one its operator's row type picks; ops/variant_rows.h reads it).
union tsr_variant_row_ptr {
#define TSR_OP(NAME, id, name, operands, tile_kind, arithmetic)                                                      \
    const tsr::OpRow<id> *op_##NAME;                                                                                 \
    constexpr tsr_variant_row_ptr(const tsr::OpRow<id> *row) : op_##NAME(row) {}
#include "tessera/ops.def"
#undef TSR_OP
    constexpr tsr_variant_row_ptr(decltype(nullptr)) : op_EMBED(nullptr) {} // data movement: no row
};

// A variant's implementation, as its operator's device file registers it
// (TSR_REGISTER_VARIANT, ops/variant_rows.h).
struct tsr_variant_impl {
    uint16_t id;                                  // tsr_variant_id
    uint32_t isa;                                 // the TSR_ISA_* bits its kernels need (0: portable)
    tessera_status (*check)(tsr::StepChecker &c); // the checks of its own parameters (null: none)
    tsr_variant_row_ptr row;                      // its kernels: its operator's row (null: none)
};

namespace tsr {

constexpr uint8_t kNoVariant = 0xFF;

// The index in tsr_variants of a registration of variant `id`, tuned or portable (what
// the checks and the geometry consult: a tuned one checks and lays out as the portable
// one does; a firmware's list may hold only the tuned one), or kNoVariant when this
// runtime does not register it.
uint8_t registered_variant(uint32_t id);
// The registration of variant `id` that runs on a board with TSR_ISA_* bits `isa`: the
// first in tsr_variants whose bits the board has (tuned ones are listed before the
// portable one, which any board runs), or kNoVariant.
uint8_t registered_variant_for(uint32_t id, uint32_t isa);
// The features (TSR_FEATURE_*) of the registered variants.
uint32_t registered_features();

} // namespace tsr

#endif
