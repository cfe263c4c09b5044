// Where every tensor of a graph lives: region and static offset.
#ifndef TESSERA_PACK_MEMORY_PLAN_H
#define TESSERA_PACK_MEMORY_PLAN_H

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/board_desc.h"
#include "tessera/models/graph.h"

namespace tessera {

enum class WeightsPlacement { kAuto, kImage, kL2 };

struct Lifetime {
    uint32_t first = 0, last = 0; // moments on the plan's timeline (see memory_plan.cpp)
};

struct RegionPlan {
    uint64_t arena_bytes = 0;  // bytes of the region the plan uses (weights copied there included)
    uint64_t lower_bound = 0;  // live-bytes bound of the arena part (weights excluded)
    uint64_t weights_bytes = 0;
    uint64_t capacity = 0;     // the board's region size
};

struct MemoryPlan {
    std::vector<uint32_t> region;  // per tensor
    std::vector<uint64_t> offset;  // per tensor: within its region, or within the weights block for weights
    std::vector<Lifetime> lifetime;
    RegionPlan regions[TSR_REGION_COUNT];
    bool weights_in_place = true;
    uint32_t weights_region = TSR_REGION_IMAGE;
    uint64_t weights_region_offset = 0; // where the weights block is copied in its region
    uint64_t weights_bytes = 0;
    uint32_t timeline_length = 0;
};

struct PlanError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Plans activations, KV cache, IO and scratch in L2 over the lifetimes of both
// schedules, and decides whether weights are copied to L2 or used in place.
MemoryPlan plan_memory(const Graph &graph, const BoardDesc &board, WeightsPlacement weights);

} // namespace tessera

#endif
