// The plan as a picture: one panel per region, time on x, address on y, one
// rectangle per buffer, the lower bound as a dashed line.
#ifndef TESSERA_PACK_MEMORY_MAP_SVG_H
#define TESSERA_PACK_MEMORY_MAP_SVG_H

#include <string>

#include "tessera/models/graph.h"
#include "tessera/pack/memory_plan.h"

namespace tessera {

std::string memory_map_svg(const Graph &graph, const MemoryPlan &plan, const std::string &title);

} // namespace tessera

#endif
