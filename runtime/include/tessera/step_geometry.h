/*
 * What a step needs of L1: for each operand, whether kernels touch it and how many
 * bytes of staging its tiles take, and how many tiles the step runs. Each operator
 * defines it once, in its device file (runtime/src/ops/<name>.cpp); the packer sizes
 * staging with it and the runtime refuses an image whose staging does not hold it,
 * so the two cannot disagree. Freestanding C++.
 */
#ifndef TESSERA_STEP_GEOMETRY_H
#define TESSERA_STEP_GEOMETRY_H

#include <stdint.h>

#include "tessera/image_format.h"

#ifdef __cplusplus
namespace tsr {

// ceil(a / b) for b >= 1, without a division where the answer needs none (a <= b: a
// token's one row, a step of one tile; b == 1): RV32 cores take up to 35 cycles for one,
// and every core decodes every step.
inline uint32_t ceil_div(uint32_t a, uint32_t b) { return a <= b ? (a != 0u ? 1u : 0u) : b == 1u ? a : (a + b - 1u) / b; }

enum class OperandUse : uint8_t {
    kNone = 0, // no kernel touches it (the DMA engine moves it, from any region)
    kStreamed, // kernels read or write it in L1: it lives there, or streams through staging
    kStaged,   // kernels see it only through staging (a KV cache)
    kScratch,  // no tensor: a buffer in L1 the plan gives the step (per-core scores), sized by its tiles
    kAbsent    // not used by this step (an operand the operator takes only in some forms): names no tensor
};

struct OperandGeometry {
    OperandUse use;
    uint8_t shares;      // operand whose staging buffer it uses (its own index when none)
    uint32_t slot_bytes; // bytes of one buffer
    uint32_t slots;      // buffers: 2 when double-buffered, per core where the operator says so
    uint64_t moved;      // bytes the DMA engine moves for it in a run of the most rows (when it is
    uint32_t transfers;  // staged; always for kNone and kStaged), and in how many transfers
    uint64_t bytes() const { return (uint64_t)slot_bytes * slots; }
};

struct StepGeometry {
    OperandGeometry operand[TSR_MAX_OPERANDS];
    uint32_t tiles; // a run of the most rows; 0 for data movement
    bool valid;     // false: the tile sizes are out of range for the params

    // Nothing used, no tiles, not valid. Field by field, in a loop: a freestanding
    // build would turn aggregate zeroing into a call to the C library's memset (a
    // byte loop on bare metal), on every step of every run.
    static StepGeometry none()
    {
        StepGeometry g;
        for (uint32_t i = 0; i < TSR_MAX_OPERANDS; ++i) {
            OperandGeometry &o = g.operand[i];
            o.use = OperandUse::kNone;
            o.shares = (uint8_t)i;
            o.slot_bytes = o.slots = o.transfers = 0;
            o.moved = 0;
        }
        g.tiles = 0;
        g.valid = false;
        return g;
    }

    // Operand i as a kernel operand of `slot_bytes` per tile over `tiles` tiles
    // (double-buffered when there is more than one).
    void stream(uint32_t i, uint64_t slot_bytes, uint32_t tile_count, OperandUse use = OperandUse::kStreamed)
    {
        operand[i].use = use;
        operand[i].shares = (uint8_t)i;
        operand[i].slot_bytes = slot_bytes > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)slot_bytes;
        operand[i].slots = tile_count > 1u ? 2u : 1u;
    }
    // The DMA traffic of operand i in a run of the most rows.
    void traffic(uint32_t i, uint64_t moved, uint64_t transfer_count)
    {
        operand[i].moved = moved;
        operand[i].transfers = transfer_count > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)transfer_count;
    }
};

// Rows a step runs with when its schedule runs up to `max_rows` rows.
inline uint32_t step_rows(const tsr_step &s, uint32_t max_rows)
{
    return (s.flags & TSR_STEP_ONE_ROW) ? 1u : max_rows;
}

// Geometry of `step` run with up to `rows` rows on `cores` cores (the plan's cores:
// per-core buffers are sized for them). All zero and valid = false for an unknown
// operator or tile sizes out of range.
StepGeometry step_geometry(const tsr_step &step, uint32_t rows, uint32_t cores);

// Reading ahead off chip (tsr_hal_ops.dma_prefetch), on a board whose image only the DMA
// reads: step j of `steps` (of a schedule) whose first tile's constant operand (its operator's
// `ahead`) is staged from off chip (TSR_REGION_IMAGE) is read ahead from `issuer`, the earliest
// of the steps before it that read nothing off chip, where two or more such come before it
// (issuer == j: none); `operand` and `tile_bytes` are that operand and its first tile's bytes.
// The runtime asks the board so (ResolvedStep::prefetches); the cost model counts it so.
struct Prefetch {
    uint32_t issuer, operand, tile_bytes;
};
Prefetch prefetch_for(const tsr_tensor *tensors, uint32_t tensor_count, const tsr_step *steps, uint32_t j);

// The L2 a run lends the board to read ahead in: the part of the sampler scratch (tensor
// `scratch`, which holds nothing during a run) above every other L2 tensor it meets, as L2
// offsets [*first, *end), word-aligned (empty: *first == *end).
void loan_range(const tsr_tensor *tensors, uint32_t tensor_count, uint32_t scratch, uint64_t *first, uint64_t *end);

// The bytes of a constant of `size` (its first tile `tile_bytes`) read ahead into `loan`
// bytes: all of it where the loan holds it, else as many whole first tiles as it holds.
inline uint32_t prefetch_bytes(uint32_t size, uint32_t tile_bytes, uint32_t loan)
{
    return size <= loan ? size : loan - (tile_bytes ? loan % tile_bytes : 0u);
}

} // namespace tsr
#endif

#endif /* TESSERA_STEP_GEOMETRY_H */
