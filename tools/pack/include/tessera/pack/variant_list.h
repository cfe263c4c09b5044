// The C source that registers the variants an image runs (tessera/variant_registry.h):
// a firmware built with it links only their kernels.
#ifndef TESSERA_PACK_VARIANT_LIST_H
#define TESSERA_PACK_VARIANT_LIST_H

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

// `variants`: tsr_variant_id values (image_variants); `source`: what they come from,
// for the file's comment.
std::string variant_list_source(const std::vector<uint16_t> &variants, const std::string &source);

} // namespace tessera

#endif
