// matmul on the host: tiles of rows x output columns, every halving of each; its
// traffic is its geometry's (x once per row tile, the weights again for every row tile).
#include "shapes.h"

namespace tessera {
namespace {

std::vector<Tile> candidates(const StepShape &s)
{
    std::vector<Tile> out;
    for (uint32_t tr : halvings(s.rows))
        for (uint32_t tn : halvings(s.step.params[1])) out.push_back({tr, tn, 0});
    return out;
}

} // namespace

extern const OpHost op_host_MATMUL = {candidates, nullptr};

} // namespace tessera
