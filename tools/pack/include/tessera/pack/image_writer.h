// Serializes a planned graph into a model image (runtime/include/tessera/image_format.h).
#ifndef TESSERA_PACK_IMAGE_WRITER_H
#define TESSERA_PACK_IMAGE_WRITER_H

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/board_desc.h"
#include "tessera/models/graph.h"
#include "tessera/models/llama2c.h"
#include "tessera/pack/memory_plan.h"

namespace tessera {

// The tokenizer section: header, entries, ids sorted by piece, NUL-terminated pieces.
std::vector<uint8_t> build_tokenizer_section(const Vocabulary &vocab);

// The variants (tsr_variant_id, tessera/variants.def) the graph's steps run, in id
// order, each once; throws PlanError for a step no variant runs.
std::vector<uint16_t> image_variants(const Graph &graph);

// The features (TSR_FEATURE_*) of `variants`: what an image that runs them needs.
uint32_t variant_features(const std::vector<uint16_t> &variants);

std::vector<uint8_t> build_image(const Graph &graph, const Vocabulary &vocab, const MemoryPlan &plan,
                                 const BoardDesc &board);

} // namespace tessera

#endif
