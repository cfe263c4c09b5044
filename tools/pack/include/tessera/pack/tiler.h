// Tile constraints and costs per operator: which tile shapes are legal, how many
// bytes of L1 each needs (double-buffered staging of streamed operands, from the
// runtime's own tile geometry), and what each costs in DMA bytes, DMA transfers
// and kernel calls. The planner picks the cheapest tile that fits.
#ifndef TESSERA_PACK_TILER_H
#define TESSERA_PACK_TILER_H

#include <array>
#include <cstdint>
#include <optional>

#include "tessera/models/graph.h"

namespace tessera {

struct TileCost {
    uint64_t dma_bytes = 0;     // per run of max_rows rows (attention: at half the context)
    uint64_t dma_transfers = 0;
    uint64_t kernel_calls = 0;
    double cycles = 0;          // the estimate minimised: DMA time + transfer and call overheads
};

struct TileChoice {
    std::array<uint32_t, 4> tile{};
    std::array<uint64_t, TSR_MAX_OPERANDS> staging_bytes{}; // 0: operand not staged
    uint64_t l1_bytes = 0; // staging total, each buffer rounded to the allocation alignment
    TileCost cost;
};

// in_l1[i]: operand i lives in L1 (read in place, no staging).
using OperandsInL1 = std::array<bool, TSR_MAX_OPERANDS>;

// Cheapest legal tile whose staging fits `budget` bytes of L1, if any.
std::optional<TileChoice> choose_tile(const GraphStep &step, uint32_t max_rows, const OperandsInL1 &in_l1,
                                      uint64_t budget);

// DMA traffic of a step that has no tiles (EMBED, KV_APPEND): data movement only.
TileCost data_movement_cost(const GraphStep &step, uint32_t max_rows);

// The least L1 this step can run in: every streamable operand staged, smallest
// tiles, plus what must live in L1 whole (attention scores).
uint64_t smallest_l1_bytes(const GraphStep &step, uint32_t max_rows, uint64_t resident_bytes);

constexpr uint64_t kL1Align = TSR_IMAGE_ALIGN;
inline uint64_t align_l1(uint64_t v) { return (v + kL1Align - 1) / kL1Align * kL1Align; }

} // namespace tessera

#endif
