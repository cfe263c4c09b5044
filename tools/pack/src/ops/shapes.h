// What the operators' host files share: the tile shapes of data movement (none) and
// of row-tiled operators.
#ifndef TESSERA_PACK_OPS_SHAPES_H
#define TESSERA_PACK_OPS_SHAPES_H

#include "tessera/pack/memory_plan.h"
#include "tessera/pack/tiler.h"

namespace tessera {

std::vector<Tile> no_tiles(const StepShape &s);  // data movement: one empty tile plan
std::vector<Tile> row_tiles(const StepShape &s); // rows per tile: every halving of the rows

} // namespace tessera

#endif
