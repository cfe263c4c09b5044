// The C source that registers the variants an image runs (tessera/variant_registry.h):
// a firmware built with it links only their kernels.
#ifndef TESSERA_PACK_VARIANT_LIST_H
#define TESSERA_PACK_VARIANT_LIST_H

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

// `variants`: tsr_variant_id values (image_variants); `source`: what they come from,
// for the file's comment; `isa`: the board's kernel set (TSR_ISA_* bits), whose tuned
// implementations of those variants the list names first, each guarded so that a
// runtime built without the set compiles it to nothing.
std::string variant_list_source(const std::vector<uint16_t> &variants, const std::string &source, uint32_t isa = 0);

} // namespace tessera

#endif
