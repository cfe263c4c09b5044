#include "tessera/pack/tiler.h"

#include <algorithm>
#include <vector>

#include "tessera/tile_geometry.h"

namespace tessera {

namespace {

// Cost model (cycles): a 64-bit DMA moves 8 bytes a cycle; a transfer costs its
// programming; a kernel call costs a fork and a join.
constexpr double kCyclesPerDmaByte = 0.125;
constexpr double kCyclesPerTransfer = 50;
constexpr double kCyclesPerKernelCall = 200;

// n, ceil(n/2), ceil(n/4), ..., 1
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

tsr_step probe_of(const GraphStep &g, const std::array<uint32_t, 4> &tile)
{
    tsr_step s{};
    s.op = g.op;
    for (size_t i = 0; i < TSR_MAX_PARAMS; ++i) s.params[i] = g.params[i];
    for (size_t i = 0; i < 4; ++i) s.tile[i] = tile[i];
    return s;
}

// DMA traffic and calls of one candidate, for the operands that are staged.
TileCost cost_of(const GraphStep &g, uint32_t R, const std::array<uint32_t, 4> &tile, const OperandsInL1 &in_l1)
{
    const auto &p = g.params;
    TileCost c;
    auto stream = [&](size_t k, uint64_t bytes, uint64_t transfers) {
        if (in_l1[k]) return;
        c.dma_bytes += bytes;
        c.dma_transfers += transfers;
    };
    switch (g.op) {
    case TSR_OP_MATMUL: {
        const uint64_t K = p[0], N = p[1], rt = tsr::ceil_div(R, tile[0]), ct = tsr::ceil_div(uint32_t(N), tile[1]);
        stream(0, R * K * 4, rt);
        stream(1, rt * N * K * 4, rt * ct);
        stream(2, R * N * 4, rt * ct);
        c.kernel_calls = rt * ct;
        break;
    }
    case TSR_OP_RMSNORM: {
        const uint64_t D = p[0], rt = tsr::ceil_div(R, tile[0]);
        stream(0, R * D * 4, rt);
        stream(1, D * 4, 1);
        stream(2, R * D * 4, rt);
        c.kernel_calls = rt;
        break;
    }
    case TSR_OP_ADD:
    case TSR_OP_SWIGLU: {
        const uint64_t n = p[0], rt = tsr::ceil_div(R, tile[0]);
        for (size_t k = 0; k < 3; ++k) stream(k, R * n * 4, rt);
        c.kernel_calls = rt;
        break;
    }
    case TSR_OP_ROPE: {
        const uint64_t D = p[0], KV = p[1], hs = p[2], rt = tsr::ceil_div(R, tile[0]);
        stream(0, 2 * R * D * 4, 2 * rt); // in and back out
        stream(1, 2 * R * KV * 4, 2 * rt);
        stream(2, R * hs * 4, rt);
        c.kernel_calls = rt;
        break;
    }
    case TSR_OP_ATTENTION: {
        const uint64_t nh = p[0], hs = p[2], ctx = p[3], D = nh * hs;
        const uint64_t keys = ctx / 2 + 1, chunks = (keys + tile[0] - 1) / tile[0];
        stream(0, R * D * 4, R);
        stream(1, R * nh * keys * hs * 4, R * nh * chunks);
        stream(2, R * nh * keys * hs * 4, R * nh * chunks);
        stream(4, R * D * 4, R);
        c.kernel_calls = R * nh * (2 * chunks + 1);
        break;
    }
    default: break;
    }
    c.cycles = kCyclesPerDmaByte * double(c.dma_bytes) + kCyclesPerTransfer * double(c.dma_transfers) +
               kCyclesPerKernelCall * double(c.kernel_calls);
    return c;
}

std::vector<std::array<uint32_t, 4>> candidates(const GraphStep &g, uint32_t R)
{
    std::vector<std::array<uint32_t, 4>> out;
    switch (g.op) {
    case TSR_OP_MATMUL:
        for (uint32_t tr : halvings(R))
            for (uint32_t tn : halvings(g.params[1])) out.push_back({tr, tn, 0, 0});
        break;
    case TSR_OP_RMSNORM:
    case TSR_OP_ADD:
    case TSR_OP_SWIGLU:
    case TSR_OP_ROPE:
        for (uint32_t tr : halvings(R)) out.push_back({tr, 0, 0, 0});
        break;
    case TSR_OP_ATTENTION:
        for (uint32_t tc : halvings(g.params[3])) out.push_back({tc, 0, 0, 0});
        break;
    default: break;
    }
    return out;
}

// Staging bytes of a candidate: every kernel operand not in L1 gets its own buffer,
// except attention's values, which reuse the keys' buffer.
TileChoice staging_of(const GraphStep &g, uint32_t R, const std::array<uint32_t, 4> &tile, const OperandsInL1 &in_l1)
{
    const tsr::StepGeometry geo = tsr::step_geometry(probe_of(g, tile), R);
    TileChoice c;
    c.tile = tile;
    for (size_t k = 0; k < TSR_MAX_OPERANDS; ++k) {
        if (!geo.operand[k].kernel_operand || in_l1[k]) continue;
        if (g.op == TSR_OP_ATTENTION && (k == 3 || k == 2)) continue; // scores: resident; values: share keys'
        c.staging_bytes[k] = geo.operand[k].bytes();
        c.l1_bytes += align_l1(c.staging_bytes[k]);
    }
    return c;
}

} // namespace

std::optional<TileChoice> choose_tile(const GraphStep &step, uint32_t R, const OperandsInL1 &in_l1, uint64_t budget)
{
    std::optional<TileChoice> best;
    for (const auto &tile : candidates(step, R)) {
        TileChoice c = staging_of(step, R, tile, in_l1);
        if (c.l1_bytes > budget) continue;
        c.cost = cost_of(step, R, tile, in_l1);
        if (!best || c.cost.cycles < best->cost.cycles ||
            (c.cost.cycles == best->cost.cycles && c.l1_bytes < best->l1_bytes))
            best = c;
    }
    return best;
}

TileCost data_movement_cost(const GraphStep &g, uint32_t R)
{
    TileCost c;
    if (g.op == TSR_OP_EMBED) {
        c.dma_bytes = uint64_t(R) * g.params[1] * 4;
        c.dma_transfers = R;
    } else if (g.op == TSR_OP_KV_APPEND) {
        c.dma_bytes = 2ull * R * g.params[0] * 4;
        c.dma_transfers = 2;
    }
    c.cycles = kCyclesPerDmaByte * double(c.dma_bytes) + kCyclesPerTransfer * double(c.dma_transfers);
    return c;
}

uint64_t smallest_l1_bytes(const GraphStep &step, uint32_t R, uint64_t resident_bytes)
{
    uint64_t least = UINT64_MAX;
    OperandsInL1 none{};
    for (const auto &tile : candidates(step, R)) least = std::min(least, staging_of(step, R, tile, none).l1_bytes);
    return least == UINT64_MAX ? resident_bytes : least + resident_bytes;
}

} // namespace tessera
