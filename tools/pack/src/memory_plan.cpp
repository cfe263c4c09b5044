#include "tessera/pack/memory_plan.h"

#include <algorithm>

#include "tessera/pack/static_allocator.h"

namespace tessera {

namespace {

// The plan's timeline: moment 0 is "always" (opened), then the prompt schedule's
// steps, the sampling after it, the token schedule's steps, the sampling after it.
// Buffers whose lifetimes do not meet may share bytes.
std::vector<Lifetime> compute_lifetimes(const Graph &g, uint32_t &length)
{
    const uint32_t none = UINT32_MAX;
    std::vector<Lifetime> life(g.tensors.size(), Lifetime{none, 0});
    auto touch = [&](uint32_t id, uint32_t t) {
        life[id].first = std::min(life[id].first, t);
        life[id].last = std::max(life[id].last, t);
    };
    uint32_t t = 1;
    auto walk = [&](const GraphSchedule &s, uint32_t logits) {
        for (const auto &step : s.steps) {
            for (uint32_t i = 0; i < step.operand_count; ++i) touch(step.operands[i], t);
            ++t;
        }
        touch(logits, t); // read by the sampler after the run
        touch(g.sampler_scratch, t);
        ++t;
    };
    walk(g.prompt, g.logits_prompt);
    walk(g.token, g.logits_token);
    length = t;
    for (size_t i = 0; i < g.tensors.size(); ++i) {
        if (g.tensors[i].kind == TSR_TENSOR_KV_CACHE || life[i].first == none) life[i] = Lifetime{0, length - 1};
    }
    return life;
}

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

std::string kib(uint64_t bytes) { return std::to_string(bytes) + " bytes (" + std::to_string((bytes + 1023) / 1024) + " KiB)"; }

} // namespace

MemoryPlan plan_memory(const Graph &g, const BoardDesc &board, WeightsPlacement weights)
{
    MemoryPlan plan;
    const size_t n = g.tensors.size();
    plan.region.assign(n, TSR_REGION_L2);
    plan.offset.assign(n, 0);
    plan.lifetime = compute_lifetimes(g, plan.timeline_length);
    for (uint32_t r = 0; r < TSR_REGION_COUNT; ++r) plan.regions[r].capacity = board.region_size[r];

    // Weights: one block, each tensor aligned, in tensor order.
    for (size_t i = 0; i < n; ++i) {
        if (g.tensors[i].kind != TSR_TENSOR_WEIGHT) continue;
        plan.weights_bytes = align_up(plan.weights_bytes, TSR_IMAGE_ALIGN);
        plan.offset[i] = plan.weights_bytes;
        plan.weights_bytes += g.tensors[i].bytes;
    }
    plan.weights_bytes = align_up(plan.weights_bytes, TSR_IMAGE_ALIGN);

    // Everything else: statically allocated in L2 over its lifetime.
    std::vector<AllocRequest> requests;
    std::vector<size_t> ids;
    uint64_t kv_bytes = 0;
    for (size_t i = 0; i < n; ++i) {
        if (g.tensors[i].kind == TSR_TENSOR_WEIGHT) continue;
        requests.push_back(AllocRequest{g.tensors[i].bytes, TSR_IMAGE_ALIGN, plan.lifetime[i].first, plan.lifetime[i].last});
        ids.push_back(i);
        if (g.tensors[i].kind == TSR_TENSOR_KV_CACHE) kv_bytes += g.tensors[i].bytes;
    }
    const AllocResult arena = allocate_best_fit(requests);
    const uint64_t l2 = board.region_size[TSR_REGION_L2];

    bool copy = false;
    switch (weights) {
    case WeightsPlacement::kImage: copy = false; break;
    case WeightsPlacement::kL2: copy = true; break;
    case WeightsPlacement::kAuto: copy = plan.weights_bytes + arena.arena_bytes <= l2; break;
    }
    plan.weights_in_place = !copy;
    plan.weights_region = copy ? TSR_REGION_L2 : TSR_REGION_IMAGE;
    const uint64_t base = copy ? plan.weights_bytes : 0; // weights first in L2, the arena after
    for (size_t k = 0; k < ids.size(); ++k) plan.offset[ids[k]] = base + arena.offsets[k];

    RegionPlan &l2plan = plan.regions[TSR_REGION_L2];
    l2plan.arena_bytes = base + arena.arena_bytes;
    l2plan.lower_bound = arena.lower_bound;
    l2plan.weights_bytes = copy ? plan.weights_bytes : 0;
    if (l2plan.arena_bytes > l2 || l2plan.arena_bytes > 0xFFFFFFC0u) {
        throw PlanError("the plan needs " + kib(l2plan.arena_bytes) + " of L2 (KV cache " + kib(kv_bytes) +
                        ", other buffers " + kib(arena.arena_bytes - std::min(arena.arena_bytes, kv_bytes)) +
                        (copy ? ", weights " + kib(plan.weights_bytes) : std::string()) + "); board '" + board.name +
                        "' has " + kib(l2) +
                        (copy && weights == WeightsPlacement::kL2 ? ". Try --weights-in image or a smaller --context"
                                                                  : ". Try a smaller --context or --prompt-chunk"));
    }
    return plan;
}

} // namespace tessera
