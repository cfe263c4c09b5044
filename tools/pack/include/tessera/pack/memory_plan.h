// Where every tensor of a graph lives (region, static offset), and how every step
// is tiled: the packer's whole memory decision, made once on the host.
#ifndef TESSERA_PACK_MEMORY_PLAN_H
#define TESSERA_PACK_MEMORY_PLAN_H

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/board_desc.h"
#include "tessera/errors.h"
#include "tessera/models/graph.h"
#include "tessera/pack/tiler.h"

namespace tessera {

enum class WeightsPlacement { kAuto, kImage, kL2 };

struct PlanOptions {
    WeightsPlacement weights = WeightsPlacement::kAuto;
    uint64_t l1_bytes = 0;   // 0: the board's L1
    uint32_t cores = 0;      // cluster cores to plan for (per-core buffers); 0: the board's
    double search_ms = 150;  // exact allocation search budget per allocation
};

struct Lifetime {
    uint32_t first = 0, last = 0; // moments on the plan's timeline (see memory_plan.cpp)
};

struct RegionPlan {
    uint64_t capacity = 0;     // bytes the plan may use (the board's, or --l1)
    uint64_t arena_bytes = 0;  // bytes the plan uses, weights copied there included
    uint64_t lower_bound = 0;  // most bytes live at one moment: no plan can use less
    uint64_t weights_bytes = 0;
    const char *method = "";   // allocation: "best-fit" or "search"
    // The same two figures over each schedule's moments alone: [0] prompt, [1] token.
    uint64_t schedule_arena[2] = {0, 0};
    uint64_t schedule_lower_bound[2] = {0, 0};
};

struct StepPlan {
    uint32_t schedule = 0; // 0 prompt, 1 token
    uint32_t index = 0;    // within its schedule
    uint32_t moment = 0;
    bool tiled = false;    // false: data movement only (EMBED, KV_APPEND)
    TileChoice choice;     // tile, staging bytes and cost (cost only when not tiled)
};

struct MemoryPlan {
    std::vector<uint32_t> region;  // per tensor (staging tensors added by the plan included)
    std::vector<uint64_t> offset;  // per tensor: in its region, or in the weights block for weights
    std::vector<Lifetime> lifetime;
    RegionPlan regions[TSR_REGION_COUNT];
    std::vector<StepPlan> steps;   // prompt schedule's steps, then the token schedule's
    std::vector<uint32_t> demoted; // activations that did not fit L1 and live in L2
    uint64_t dma_bytes_per_token[2] = {0, 0}; // estimated, per schedule
    uint32_t cores = 0;            // the cluster cores the plan is for
    bool operands_in_place = false; // the cluster's kernels read operands outside L1 unstaged (dma.by_core)
    uint64_t nms_weights_bytes = 0; // weights the NPU reads in place from NMS (at NMS offset 0)
    bool weights_in_place = true;                 // no weight is copied to L2
    uint32_t weights_region = TSR_REGION_IMAGE;   // L2 when some are
    uint64_t weights_region_offset = 0;           // the L2 block's offset in L2
    uint64_t l1_weights_bytes = 0;                // the block copied to L1 at open (the weights L1 holds)
    uint64_t l1_weights_offset = 0;               // its offset in L1 (above the step table)
    uint64_t weights_bytes = 0;                   // every weight outside NMS, as one block
    uint64_t l2_weights_bytes = 0;                // the block copied to L2 at open
    uint64_t image_weights_bytes = 0;             // the block read in place from the image (off chip)
    uint32_t timeline_length = 0;
    uint32_t schedule_window[2][2] = {}; // first and last moment of each schedule (sampling included)
};


// Plans `graph` for `board`: adds staging tensors to it and fills every step's
// tile and staging. Throws PlanError naming what does not fit and what it needs.
MemoryPlan plan_memory(Graph &graph, const BoardDesc &board, const PlanOptions &options);

} // namespace tessera

#endif
