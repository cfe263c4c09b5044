// attention on the host: chunks of cached positions (every halving of the context)
// and cores sharing the heads (every halving of the cluster: fewer cores, less scratch,
// more rounds). Its traffic depends on the run's position: the plan assumes half the
// context cached.
#include "shapes.h"

namespace tessera {
namespace {

std::vector<Tile> candidates(const StepShape &s)
{
    std::vector<Tile> out;
    for (uint32_t tc : halvings(s.step.params[3]))
        for (uint32_t ac : halvings(s.cores)) out.push_back({tc, ac, 0});
    return out;
}

TileCost cost(const StepShape &s, const Tile &tile, const OperandsInL1 &in_l1)
{
    const auto &p = s.step.params;
    const uint64_t nh = p[0], hs = p[2], ctx = p[3], R = s.rows, heads = R * nh;
    const uint64_t keys = ctx / 2 + 1, chunks = (keys + tile[0] - 1) / tile[0];
    TileCost c;
    c.dma_bytes = 2 * heads * keys * hs * 4; // keys and values of every (row, head)
    c.dma_transfers = 2 * heads * chunks;
    for (size_t k : {0u, 4u}) // q and y, a head at a time, when not in L1
        if (!in_l1[k]) {
            c.dma_bytes += heads * hs * 4;
            c.dma_transfers += heads;
        }
    c.tiles = (heads + tile[1] - 1) / tile[1] * 2 * chunks; // fewer cores: more rounds
    // The work itself (scores and weighted sums, two cycles a multiply-add), spread
    // over the cores that share it: fewer cores save scratch, not time.
    c.compute_cycles = 2.0 * double(2 * heads * keys * hs) / double(tile[1]);
    return c;
}

} // namespace

extern const OpHost op_host_ATTENTION = {candidates, cost};

} // namespace tessera
