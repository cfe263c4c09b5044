// Tile constraints and costs per operator: which tile shapes are legal (each
// operator's host file, src/ops/<name>.cpp), how many bytes of L1 each needs and
// what it moves (the operator's own geometry, shared with the runtime), and what it
// costs. The planner picks the cheapest tile that fits.
#ifndef TESSERA_PACK_TILER_H
#define TESSERA_PACK_TILER_H

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "tessera/models/graph.h"

namespace tessera {

struct TileCost {
    uint64_t dma_bytes = 0;     // per run of the step's most rows (attention: at half the context)
    uint64_t dma_transfers = 0;
    uint64_t tiles = 0;         // tile loop iterations: two cluster barriers each
    double compute_cycles = 0;  // where a tile plan changes how the work spreads over the cores
    double cycles = 0;          // the estimate minimised: DMA time, transfer and barrier overheads, compute
};

using Tile = std::array<uint32_t, TSR_MAX_TILES>;

struct TileChoice {
    Tile tile{};
    std::array<uint64_t, TSR_MAX_OPERANDS> staging_bytes{}; // 0: no buffer (in L1, or shares another's)
    uint64_t l1_bytes = 0; // staging total, each buffer rounded to the allocation alignment
    TileCost cost;
};

// in_l1[i]: operand i lives in L1 (read in place, no staging).
using OperandsInL1 = std::array<bool, TSR_MAX_OPERANDS>;

// What a step looks like to the tiler: the graph step, the rows it runs with, the
// plan's cores (per-core buffers).
struct StepShape {
    const GraphStep &step;
    uint32_t rows;
    uint32_t cores;
};

// Cheapest legal tile whose staging fits `budget` bytes of L1, if any.
std::optional<TileChoice> choose_tile(const StepShape &s, const OperandsInL1 &in_l1, uint64_t budget);

// DMA traffic of a step that has no tiles (data movement only).
TileCost data_movement_cost(const StepShape &s);

// The least L1 this step can run in: every streamable operand staged (scratch too),
// smallest tiles.
uint64_t smallest_l1_bytes(const StepShape &s);

constexpr uint64_t kL1Align = TSR_IMAGE_ALIGN;
inline uint64_t align_l1(uint64_t v) { return (v + kL1Align - 1) / kL1Align * kL1Align; }

// ---- what each operator's host file provides ------------------------------------------

class Evaluation;

// The work of one run of a step, for the cost model (tessera/pack/cost_model.h):
// multiply-accumulates, elements of non-linear or elementwise arithmetic, and, for
// an operator whose traffic or tiles depend on the run's position or cores, the DMA
// bytes and the busiest core's tiles (else < 0: the geometry's).
struct Work {
    double macs = 0, elements = 0, dma_bytes = -1, tiles = -1;
    double dma_transfers = -1; // where the operator's own count replaces the geometry's (with dma_bytes)
};

// A variant's host side (tessera/variants.def): how the packer derives the step's
// attributes from its operands' scales and the graph's constants (int8: the
// requantization factors and tables, the integer exponential's constants), and how
// it writes them as the variant's struct (tessera/variant_params.h).
struct HostVariant {
    uint16_t id; // tsr_variant_id
    void (*encode)(const GraphStep &s, tsr_param_record &out); // put_params<id>
    void (*derive)(GraphStep &s, Graph &g) = nullptr;          // null: the lowering's attributes are final
};

// Writes variant V's struct into a step's record: its tag and length, the struct, zeros.
template <unsigned V> void put_params(tsr_param_record &out, const tsr_variant_params_t<V> &p)
{
    out = tsr_param_record{};
    out.variant = uint16_t(V);
    out.bytes = uint16_t(sizeof p);
    std::memcpy(out.data, &p, sizeof p);
}

struct OpHost {
    // The tile shapes worth trying.
    std::vector<Tile> (*candidates)(const StepShape &s);
    // Null: the cost follows from the geometry's traffic. An operator whose traffic
    // depends on the run (attention: the cached positions) estimates its own.
    TileCost (*cost)(const StepShape &s, const Tile &tile, const OperandsInL1 &in_l1);
    // The step of an fp32 graph run on one row at the evaluation's position, in single
    // precision (calibration, tessera/pack/calibration.h).
    void (*evaluate)(const GraphStep &s, Evaluation &e);
    // Null: no arithmetic (data movement). `rows` of the run, `kv` positions cached.
    Work (*work)(const tsr_step &s, uint32_t rows, uint32_t pos, uint32_t cores); // `rows` rows from `pos` on `cores`
    // Its variants, each with its encoding (every row of tessera/variants.def of the operator).
    const HostVariant *variants = nullptr;
    uint32_t variant_count = 0;
};
const OpHost &op_host(uint32_t op);
// The host side of the variant that runs step s, or null when no row runs it.
const HostVariant *host_variant(const GraphStep &s);

// Each step's parameters as its variant derives them (OpHost::variants), in place:
// after lowering, before planning. Throws std::range_error for a factor with no
// integer form, naming the step.
void derive_params(Graph &g);

// Shared by the host files: n, ceil(n/2), ceil(n/4), ..., 1.
std::vector<uint32_t> halvings(uint32_t n);
// The cost model (cycles): a 64-bit DMA moves 8 bytes a cycle; a transfer costs its
// programming; a tile costs two barriers; plus the compute that depends on the plan.
double estimated_cycles(const TileCost &c);
// The runtime's step for a graph step with a tile plan, to ask the geometry.
tsr_step probe_step(const GraphStep &g, const Tile &tile);

} // namespace tessera

#endif
