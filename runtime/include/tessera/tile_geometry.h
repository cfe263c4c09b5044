/*
 * Tile geometry of each operator: which operands a kernel touches, and how many
 * bytes of L1 a streamed operand's staging tensor needs for a tile plan. One
 * definition for the packer (which sizes staging tensors) and the runtime (which
 * refuses an image whose staging cannot hold its tiles), so they cannot disagree.
 * Freestanding: C++ inline functions only.
 */
#ifndef TESSERA_TILE_GEOMETRY_H
#define TESSERA_TILE_GEOMETRY_H

#include <stdint.h>

#include "tessera/image_format.h"

#ifdef __cplusplus
namespace tsr {

inline uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1u) / b; }

// One streamed operand: `slots` buffers of `slot_bytes` each (two when it has more
// than one tile, so the next tile's DMA overlaps the current tile's compute).
struct OperandStream {
    bool kernel_operand; // the kernel reads or writes it: it must be in L1 or staged
    uint32_t slot_bytes;
    uint32_t slots;
    uint64_t bytes() const { return (uint64_t)slot_bytes * slots; }
};

struct StepGeometry {
    OperandStream operand[TSR_MAX_OPERANDS];
    bool valid;
};

// Geometry of `step` run with up to `max_rows` rows. valid = false when the tile
// sizes are out of range for the op's params.
inline StepGeometry step_geometry(const tsr_step &s, uint32_t max_rows)
{
    StepGeometry g = {};
    const uint32_t *p = s.params;
    const uint32_t R = max_rows;
    auto set = [&](uint32_t i, uint64_t slot_bytes, uint32_t tiles) {
        g.operand[i].kernel_operand = true;
        g.operand[i].slot_bytes = slot_bytes > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)slot_bytes;
        g.operand[i].slots = tiles > 1u ? 2u : 1u;
    };
    switch (s.op) {
    case TSR_OP_MATMUL: {
        const uint32_t tr = s.tile[0], tn = s.tile[1], K = p[0], N = p[1];
        if (!tr || tr > R || !tn || tn > N) return g;
        const uint32_t rt = ceil_div(R, tr), ct = ceil_div(N, tn);
        set(0, (uint64_t)tr * K * 4u, rt);
        set(1, (uint64_t)tn * K * 4u, rt * ct);
        set(2, (uint64_t)tr * tn * 4u, rt * ct);
        break;
    }
    case TSR_OP_RMSNORM: {
        const uint32_t tr = s.tile[0], D = p[0];
        if (!tr || tr > R) return g;
        const uint32_t rt = ceil_div(R, tr);
        set(0, (uint64_t)tr * D * 4u, rt);
        set(1, (uint64_t)D * 4u, 1u);
        set(2, (uint64_t)tr * D * 4u, rt);
        break;
    }
    case TSR_OP_ADD:
    case TSR_OP_SWIGLU: {
        const uint32_t tr = s.tile[0], n = p[0];
        if (!tr || tr > R) return g;
        const uint32_t rt = ceil_div(R, tr);
        for (uint32_t i = 0; i < 3u; ++i) set(i, (uint64_t)tr * n * 4u, rt);
        break;
    }
    case TSR_OP_ROPE: {
        const uint32_t tr = s.tile[0], D = p[0], KV = p[1], hs = p[2];
        if (!tr || tr > R) return g;
        const uint32_t rt = ceil_div(R, tr);
        set(0, (uint64_t)tr * D * 4u, rt);
        set(1, (uint64_t)tr * KV * 4u, rt);
        set(2, (uint64_t)tr * hs * 4u, rt);
        break;
    }
    case TSR_OP_ATTENTION: {
        const uint32_t tc = s.tile[0], nh = p[0], hs = p[2], ctx = p[3];
        if (!tc || tc > ctx) return g;
        const uint32_t chunks = ceil_div(ctx, tc);
        set(0, (uint64_t)nh * hs * 4u, R);       // q, a row at a time
        set(1, (uint64_t)tc * hs * 4u, chunks);  // keys, then values: one staging for both
        set(2, (uint64_t)tc * hs * 4u, chunks);
        set(3, (uint64_t)ctx * 4u, 1u);          // scores: must live in L1
        set(4, (uint64_t)nh * hs * 4u, R);       // y, a row at a time
        break;
    }
    case TSR_OP_EMBED:
    case TSR_OP_KV_APPEND:
        break; // data movement only: the DMA engine reads and writes any region
    default:
        return g;
    }
    g.valid = true;
    return g;
}

} // namespace tsr
#endif

#endif /* TESSERA_TILE_GEOMETRY_H */
