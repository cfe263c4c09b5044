#include "tessera/pack/tiler.h"
#include "tessera/variants.h"

#include <algorithm>

#include "tessera/step_geometry.h"

namespace tessera {

namespace {

constexpr double kCyclesPerDmaByte = 0.125;
constexpr double kCyclesPerTransfer = 50;
constexpr double kCyclesPerTile = 200;

tsr::StepGeometry geometry_of(const StepShape &s, const Tile &tile)
{
    return tsr::step_geometry(probe_step(s.step, tile), s.rows, s.cores);
}

// An operand whose staging buffer others share (a split matmul's outputs) is in L1, for
// staging, only when every one of them is: else all of them go through the buffer.
OperandsInL1 sharing(const tsr::StepGeometry &geo, OperandsInL1 in_l1)
{
    for (size_t j = 0; j < TSR_MAX_OPERANDS; ++j) {
        const tsr::OperandGeometry &o = geo.operand[j];
        if (o.shares != j && o.use == tsr::OperandUse::kStreamed && !in_l1[j]) in_l1[o.shares] = false;
    }
    return in_l1;
}

// Traffic of the operands that move: staged ones, and those only the DMA engine
// touches (data movement).
TileCost geometry_cost(const tsr::StepGeometry &geo, const OperandsInL1 &given)
{
    const OperandsInL1 in_l1 = sharing(geo, given);
    TileCost c;
    for (size_t k = 0; k < TSR_MAX_OPERANDS; ++k) {
        const tsr::OperandGeometry &o = geo.operand[k];
        const bool moves = o.use == tsr::OperandUse::kNone || o.use == tsr::OperandUse::kStaged ||
                           (o.use == tsr::OperandUse::kStreamed && !in_l1[k]);
        if (!moves) continue;
        c.dma_bytes += o.moved;
        c.dma_transfers += o.transfers;
    }
    c.tiles = geo.tiles;
    return c;
}

// Staging of a candidate: every operand kernels stream that is not in L1 gets a
// buffer of its own, unless it shares another operand's.
TileChoice staging_of(const StepShape &s, const Tile &tile, const OperandsInL1 &given)
{
    const tsr::StepGeometry geo = geometry_of(s, tile);
    const OperandsInL1 in_l1 = sharing(geo, given);
    TileChoice c;
    c.tile = tile;
    for (size_t k = 0; k < TSR_MAX_OPERANDS; ++k) {
        const tsr::OperandGeometry &o = geo.operand[k];
        const bool streams = o.use == tsr::OperandUse::kStaged || o.use == tsr::OperandUse::kScratch ||
                             (o.use == tsr::OperandUse::kStreamed && !in_l1[k]);
        if (!streams || o.shares != k) continue;
        c.staging_bytes[k] = o.bytes();
        c.l1_bytes += align_l1(c.staging_bytes[k]);
    }
    return c;
}

} // namespace

std::vector<uint32_t> halvings(uint32_t n)
{
    std::vector<uint32_t> v;
    for (uint32_t d = 1;; d *= 2) {
        const uint32_t t = (n + d - 1) / d;
        if (v.empty() || v.back() != t) v.push_back(t);
        if (t == 1) break;
    }
    return v;
}

double estimated_cycles(const TileCost &c)
{
    return kCyclesPerDmaByte * double(c.dma_bytes) + kCyclesPerTransfer * double(c.dma_transfers) +
           kCyclesPerTile * double(c.tiles) + c.compute_cycles;
}

tsr_step probe_step(const GraphStep &g, const Tile &tile)
{
    tsr_step s{};
    s.op = g.op;
    s.engine = g.engine;
    s.flags = g.flags;
    s.dtype = g.dtype;
    for (size_t i = 0; i < TSR_MAX_TILES; ++i) s.tile[i] = tile[i];
    if (const HostVariant *v = host_variant(g)) { // none: no row runs it, and the writer refuses it
        s.variant = v->id;
        v->encode(g, s.params);
    }
    return s;
}

std::optional<TileChoice> choose_tile(const StepShape &s, const OperandsInL1 &in_l1, uint64_t budget)
{
    const OpHost &host = op_host(s.step.op);
    std::optional<TileChoice> best;
    for (const Tile &tile : host.candidates(s)) {
        TileChoice c = staging_of(s, tile, in_l1);
        if (c.l1_bytes > budget) continue;
        c.cost = host.cost ? host.cost(s, tile, in_l1) : geometry_cost(geometry_of(s, tile), in_l1);
        c.cost.cycles = estimated_cycles(c.cost);
        if (!best || c.cost.cycles < best->cost.cycles ||
            (c.cost.cycles == best->cost.cycles && c.l1_bytes < best->l1_bytes))
            best = c;
    }
    return best;
}

TileCost data_movement_cost(const StepShape &s)
{
    TileCost c = geometry_cost(geometry_of(s, Tile{}), OperandsInL1{});
    c.cycles = estimated_cycles(c);
    return c;
}

uint64_t smallest_l1_bytes(const StepShape &s)
{
    uint64_t least = UINT64_MAX;
    for (const Tile &tile : op_host(s.step.op).candidates(s))
        least = std::min(least, staging_of(s, tile, OperandsInL1{}).l1_bytes);
    return least == UINT64_MAX ? 0 : least;
}

} // namespace tessera
