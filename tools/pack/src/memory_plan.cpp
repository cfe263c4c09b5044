#include "tessera/pack/memory_plan.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "tessera/pack/static_allocator.h"
#include "tessera/step_geometry.h"

namespace tessera {

namespace {

// The plan's timeline: moment 0 is "always" (opened), then the prompt schedule's
// steps, the sampling after it, the token schedule's steps, the sampling after it.
// Buffers whose lifetimes do not meet may share bytes.
std::vector<Lifetime> compute_lifetimes(const Graph &g, MemoryPlan &plan)
{
    const uint32_t none = UINT32_MAX;
    std::vector<Lifetime> life(g.tensors.size(), Lifetime{none, 0});
    auto touch = [&](uint32_t id, uint32_t t) {
        life[id].first = std::min(life[id].first, t);
        life[id].last = std::max(life[id].last, t);
    };
    uint32_t t = 1;
    auto walk = [&](const GraphSchedule &s, uint32_t logits, uint32_t rotation, uint32_t which) {
        plan.schedule_window[which][0] = t;
        if (rotation != TSR_NO_TENSOR) touch(rotation, t); // written by the runtime before the run
        for (uint32_t i = 0; i < s.steps.size(); ++i) {
            const GraphStep &step = s.steps[i];
            for (uint32_t k = 0; k < step.operand_count; ++k)
                if (step.operands[k] != TSR_NO_TENSOR) touch(step.operands[k], t); // none: a scratch slot
            // An NPU job reading NMS runs on until its join: its input and output live that long.
            if (step.engine == TSR_ENGINE_NPU && step.params.matmul.join) {
                const uint32_t until = t + std::min<uint32_t>(step.params.matmul.join, uint32_t(s.steps.size()) - 1) - i;
                touch(step.operands[0], until);
                touch(step.operands[2], until);
            }
            StepPlan sp;
            sp.schedule = which;
            sp.index = i;
            sp.moment = t;
            plan.steps.push_back(sp);
            ++t;
        }
        touch(logits, t); // read by the sampler after the run (the sampler scratch: see place_between_runs)
        plan.schedule_window[which][1] = t;
        ++t;
    };
    walk(g.prompt, g.logits_prompt, g.rotation_prompt, 0);
    walk(g.token, g.logits_token, g.rotation_token, 1);
    plan.timeline_length = t;
    for (size_t i = 0; i < g.tensors.size(); ++i)
        if (g.tensors[i].kind == TSR_TENSOR_KV_CACHE || life[i].first == none) life[i] = Lifetime{0, t - 1};
    life[g.sampler_scratch] = Lifetime{plan.schedule_window[0][1], plan.schedule_window[1][1]}; // for reports
    return life;
}

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// The sampler scratch holds data only between runs, while the runtime samples or
// encodes: it may share bytes with every buffer of a schedule's steps, never with
// the KV caches, the step table or either schedule's logits (an encode may come
// between a run and its sampling). The lowest offset clear of those.
uint64_t place_between_runs(uint64_t size, const std::vector<std::pair<uint64_t, uint64_t>> &keep_out)
{
    std::vector<uint64_t> starts = {0};
    for (const auto &[offset, bytes] : keep_out) starts.push_back(align_up(offset + bytes, TSR_IMAGE_ALIGN));
    std::sort(starts.begin(), starts.end());
    for (uint64_t at : starts) {
        bool clear = true;
        for (const auto &[offset, bytes] : keep_out) clear = clear && (at + size <= offset || offset + bytes <= at);
        if (clear) return at;
    }
    return starts.back();
}

std::string kib(uint64_t bytes)
{
    if (bytes % 1024 == 0) return std::to_string(bytes) + " bytes (" + std::to_string(bytes / 1024) + " KiB)";
    char kib[32];
    std::snprintf(kib, sizeof kib, "%.2f", double(bytes) / 1024.0); // 512 bytes are 0.50 KiB, not "1 KiB"
    return std::to_string(bytes) + " bytes (" + kib + " KiB)";
}

const GraphStep &step_of(const Graph &g, const StepPlan &sp)
{
    return (sp.schedule == 0 ? g.prompt : g.token).steps[sp.index];
}
uint32_t rows_of(const Graph &g, const StepPlan &sp)
{
    return (step_of(g, sp).flags & TSR_STEP_ONE_ROW) ? 1u : (sp.schedule == 0 ? g.prompt.max_rows : 1u);
}

bool is_tiled(const GraphStep &s) { return tsr_op_tile_kind(s.op) != TSR_TILE_MOVE; }

bool live_at(const Lifetime &l, uint32_t t) { return l.first <= t && t <= l.last; }

// Fills per-region and per-schedule arena and bound figures from a placement.
void measure(RegionPlan &rp, const std::vector<AllocRequest> &req, const std::vector<uint64_t> &off, uint64_t base,
             const MemoryPlan &plan)
{
    for (int s = 0; s < 2; ++s) {
        const uint32_t lo = plan.schedule_window[s][0], hi = plan.schedule_window[s][1];
        std::vector<AllocRequest> window;
        uint64_t top = 0;
        for (size_t i = 0; i < req.size(); ++i) {
            if (req[i].last < lo || req[i].first > hi) continue;
            AllocRequest w = req[i];
            w.first = std::max(w.first, lo);
            w.last = std::min(w.last, hi);
            window.push_back(w);
            top = std::max(top, off[i] + req[i].size);
        }
        rp.schedule_arena[s] = window.empty() ? 0 : base + top;
        rp.schedule_lower_bound[s] = window.empty() ? 0 : base + live_bytes_lower_bound(window);
    }
}

// Places buffers that live in both schedules first, then each schedule's own
// buffers above them, separately: the schedules never run at the same time, so
// each gets the packing of its own buffers alone.
AllocResult place_by_schedule(const std::vector<AllocRequest> &req, const MemoryPlan &plan, double budget_ms)
{
    const uint32_t prompt_end = plan.schedule_window[0][1], token_start = plan.schedule_window[1][0];
    std::vector<size_t> shared, own[2];
    for (size_t i = 0; i < req.size(); ++i) {
        if (req[i].last <= prompt_end && req[i].first >= 1) own[0].push_back(i);
        else if (req[i].first >= token_start) own[1].push_back(i);
        else shared.push_back(i);
    }
    auto subset = [&](const std::vector<size_t> &ids) {
        std::vector<AllocRequest> out;
        for (size_t i : ids) out.push_back(req[i]);
        return out;
    };
    AllocResult out;
    out.offsets.assign(req.size(), 0);
    out.method = "best-fit";
    const AllocResult base = allocate(subset(shared), budget_ms);
    for (size_t k = 0; k < shared.size(); ++k) out.offsets[shared[k]] = base.offsets[k];
    if (std::string(base.method) == "search") out.method = "search";
    uint64_t top = 0;
    for (int w = 0; w < 2; ++w) {
        const AllocResult part = allocate(subset(own[w]), budget_ms);
        for (size_t k = 0; k < own[w].size(); ++k) out.offsets[own[w][k]] = base.arena_bytes + part.offsets[k];
        top = std::max(top, part.arena_bytes);
        if (std::string(part.method) == "search") out.method = "search";
    }
    out.arena_bytes = base.arena_bytes + top;
    out.lower_bound = live_bytes_lower_bound(req);
    out.meets_bound = out.arena_bytes == out.lower_bound;
    return out;
}

// The L1 budget of a plan: its bytes, where they come from (for messages), the cores.
struct L1Budget {
    uint64_t bytes;
    std::string source;
    uint32_t cores;
    bool in_place; // the board's cores do its copies (dma.by_core): the cluster's kernels read operands where they lie
};

// Which tensors live in L1: attention scores and the NPU's inputs and outputs must;
// activations do while they fit (demoted to L2 otherwise); weights, the KV cache and
// what the runtime reads (tokens, logits, sampler scratch) are in L2.
struct L1Residents {
    std::vector<bool> must, in;
    std::vector<bool> held; // weights L1 holds for good: a block of their own below the arena (hold_in_l1)
    L1Residents(const Graph &g)
    {
        const size_t n = g.tensors.size();
        held.assign(n, false);
        must.assign(n, false);
        for (const GraphSchedule *sch : {&g.prompt, &g.token})
            for (const GraphStep &st : sch->steps)
                if (st.engine == TSR_ENGINE_NPU) must[st.operands[0]] = must[st.operands[2]] = true;
        for (size_t i = 0; i < n; ++i)
            if (g.tensors[i].kind == TSR_TENSOR_SCRATCH && i != g.sampler_scratch) must[i] = true;
        in.assign(n, false);
        for (size_t i = 0; i < n; ++i) in[i] = must[i] || g.tensors[i].kind == TSR_TENSOR_ACTIVATION;
    }
};

// The smallest L1 any plan can run in: each step alone, everything streamed.
void check_smallest_l1(const Graph &g, const MemoryPlan &plan, const L1Budget &l1)
{
    uint64_t need = 0;
    const StepPlan *worst = nullptr;
    for (const StepPlan &sp : plan.steps) {
        const GraphStep &st = step_of(g, sp);
        if (!is_tiled(st)) continue;
        const uint64_t least = smallest_l1_bytes(StepShape{st, rows_of(g, sp), l1.cores});
        if (least > need) {
            need = least;
            worst = &sp;
        }
    }
    if (worst && need > l1.bytes)
        throw PlanError("operator '" + step_of(g, *worst).label + "' (" + tsr_op_name(step_of(g, *worst).op) + ", " +
                        (worst->schedule == 0 ? "prompt" : "token") + " schedule) needs at least " + kib(need) +
                        " of L1 for its smallest tile; " + l1.source + " is " + kib(l1.bytes));
}

// L1's requests (the residents', then the steps' staging) and their placement.
struct L1Placement {
    std::vector<AllocRequest> requests;
    AllocResult alloc;
};

// When each step's staging is first live: at its own moment, or, for a weight's staging, from
// the schedule's staged step before it on, so that no step in between moves anything into
// that buffer and the runtime may fetch the weight's first tile ahead from that step on
// (resolve_ahead: from a step with staging of its own back, no earlier).
std::vector<std::array<uint32_t, TSR_MAX_OPERANDS>> staging_first(const Graph &g, const MemoryPlan &plan,
                                                                   const std::vector<bool> &ahead)
{
    std::vector<std::array<uint32_t, TSR_MAX_OPERANDS>> first(plan.steps.size());
    uint32_t staged[2] = {UINT32_MAX, UINT32_MAX}; // per schedule, the moment of its last step with staging
    for (size_t si = 0; si < plan.steps.size(); ++si) {
        const StepPlan &sp = plan.steps[si];
        const GraphStep &st = step_of(g, sp);
        bool any = false;
        for (size_t k = 0; k < TSR_MAX_OPERANDS; ++k) {
            first[si][k] = sp.moment;
            if (!sp.choice.staging_bytes[k]) continue;
            any = true;
            const bool weight = k < st.operand_count && st.operands[k] < g.tensors.size() &&
                                g.tensors[st.operands[k]].kind == TSR_TENSOR_WEIGHT;
            if (ahead[si] && weight && staged[sp.schedule] < sp.moment) first[si][k] = staged[sp.schedule];
        }
        if (any) staged[sp.schedule] = sp.moment;
    }
    return first;
}

// Chooses tiles in the L1 the residents leave free at each step; when a step cannot
// run, or the allocation cannot pack L1, moves the largest activation live there to
// L2 and plans again. Weights' staging is first planned live from the staged step before
// (staging_first); where L1 cannot be packed so, those live early at the busiest moment
// are planned at their own steps alone, before anything else moves.
L1Placement plan_l1(const Graph &g, MemoryPlan &plan, L1Residents &res, const L1Budget &budget, double search_ms)
{
    const size_t n = g.tensors.size();
    const uint64_t l1 = budget.bytes;
    const uint32_t cores = budget.cores;
    std::vector<bool> &in_l1 = res.in;
    L1Placement out;
    std::vector<AllocRequest> &l1_req = out.requests;
    AllocResult &l1_alloc = out.alloc;
    std::vector<uint64_t> step_cap(plan.steps.size(), UINT64_MAX); // lowered where packing L1 failed
    std::vector<bool> ahead(plan.steps.size(), true); // weights' staging live from the staged step before (staging_first)
    for (;;) {
        std::vector<uint64_t> live(plan.timeline_length, 0);
        for (size_t i = 0; i < n; ++i)
            if (in_l1[i])
                for (uint32_t t = plan.lifetime[i].first; t <= plan.lifetime[i].last; ++t)
                    live[t] += align_up(g.tensors[i].bytes, kL1Align);
        auto demote_largest_live_at = [&](uint32_t t) {
            size_t victim = SIZE_MAX;
            for (size_t i = 0; i < n; ++i)
                if (in_l1[i] && !res.must[i] && live_at(plan.lifetime[i], t) &&
                    (victim == SIZE_MAX || g.tensors[i].bytes > g.tensors[victim].bytes))
                    victim = i;
            if (victim == SIZE_MAX) return false;
            in_l1[victim] = false;
            plan.demoted.push_back(uint32_t(victim));
            return true;
        };
        bool replan = false;
        for (size_t si = 0; si < plan.steps.size(); ++si) {
            StepPlan &sp = plan.steps[si];
            const GraphStep &st = step_of(g, sp);
            sp.tiled = is_tiled(st);
            if (!sp.tiled) {
                sp.choice = TileChoice{};
                sp.choice.cost = data_movement_cost(StepShape{st, rows_of(g, sp), cores});
                continue;
            }
            OperandsInL1 flags{};
            for (uint32_t k = 0; k < st.operand_count; ++k)
                flags[k] = st.operands[k] != TSR_NO_TENSOR &&
                           (in_l1[st.operands[k]] || res.held[st.operands[k]] ||
                            (budget.in_place && st.engine == TSR_ENGINE_CLUSTER));
            const uint64_t used = live[sp.moment];
            const auto choice =
                used <= l1 ? choose_tile(StepShape{st, rows_of(g, sp), cores}, flags, std::min(l1 - used, step_cap[si]))
                           : std::nullopt;
            if (!choice) {
                if (!demote_largest_live_at(sp.moment))
                    throw PlanError("operator '" + st.label + "' does not fit in " + budget.source + " (" + kib(l1) + ")");
                replan = true;
                break;
            }
            sp.choice = *choice;
        }
        if (replan) continue;

        // The tiles settled: pack L1, the staging planned ahead where it can be (staging_first).
        uint32_t busiest = 0;
        for (;;) {
            l1_req.clear();
            for (size_t i = 0; i < n; ++i)
                if (in_l1[i])
                    l1_req.push_back({align_up(g.tensors[i].bytes, kL1Align), kL1Align, plan.lifetime[i].first,
                                      plan.lifetime[i].last});
            const auto first = staging_first(g, plan, ahead);
            std::vector<size_t> step_of_request(l1_req.size(), SIZE_MAX);
            for (size_t si = 0; si < plan.steps.size(); ++si)
                for (size_t k = 0; k < TSR_MAX_OPERANDS; ++k)
                    if (plan.steps[si].choice.staging_bytes[k]) {
                        l1_req.push_back({align_up(plan.steps[si].choice.staging_bytes[k], kL1Align), kL1Align,
                                          first[si][k], plan.steps[si].moment});
                        step_of_request.push_back(si);
                    }
            l1_alloc = place_by_schedule(l1_req, plan, 0); // best-fit while the plan still changes
            if (l1_alloc.arena_bytes <= l1) break;
            // No packing of L1 found: at the busiest moment, plan the staging live there ahead
            // of its step at its step alone; else (below) move an activation to L2, or else give
            // that step's tiles less room.
            std::vector<uint64_t> peak(plan.timeline_length, 0);
            for (const auto &r : l1_req)
                for (uint32_t t = r.first; t <= r.last; ++t) peak[t] += r.size;
            busiest = uint32_t(std::max_element(peak.begin(), peak.end()) - peak.begin());
            bool early = false; // requests live at `busiest` before their step's moment
            for (size_t r = 0; r < l1_req.size(); ++r)
                if (step_of_request[r] != SIZE_MAX && l1_req[r].first < l1_req[r].last && l1_req[r].first <= busiest &&
                    busiest <= l1_req[r].last)
                    ahead[step_of_request[r]] = false, early = true;
            if (!early) break;
        }
        if (l1_alloc.arena_bytes <= l1) break;
        if (demote_largest_live_at(busiest)) continue;
        bool shrunk = false;
        for (size_t si = 0; si < plan.steps.size(); ++si)
            if (plan.steps[si].moment == busiest && plan.steps[si].choice.l1_bytes > kL1Align) {
                step_cap[si] = plan.steps[si].choice.l1_bytes - kL1Align;
                shrunk = true;
            }
        if (!shrunk)
            throw PlanError("cannot pack L1 (" + kib(l1) + "): best packing needs " + kib(l1_alloc.arena_bytes));
    }

    { // the plan is settled: search once where a schedule's packing misses its bound
        const AllocResult searched = place_by_schedule(l1_req, plan, search_ms);
        if (searched.arena_bytes <= l1_alloc.arena_bytes) l1_alloc = searched;
    }

    return out;
}

// Staging tensors join the graph, at their L1 offsets; steps get their tiles.
void place_l1(Graph &g, MemoryPlan &plan, const L1Residents &res, L1Placement &l1, uint32_t cores)
{
    const size_t n = g.tensors.size();
    const std::vector<bool> &in_l1 = res.in;
    const std::vector<AllocRequest> &l1_req = l1.requests;
    const AllocResult &l1_alloc = l1.alloc;
    plan.region.assign(n, TSR_REGION_L2);
    for (size_t i = 0; i < n; ++i)
        if (in_l1[i]) plan.region[i] = TSR_REGION_L1;
    plan.offset.assign(n, 0);
    size_t request = 0;
    for (size_t i = 0; i < n; ++i)
        if (in_l1[i]) plan.offset[i] = l1_alloc.offsets[request++];
    for (StepPlan &sp : plan.steps) {
        GraphStep &st = (sp.schedule == 0 ? g.prompt : g.token).steps[sp.index];
        st.tile = sp.choice.tile;
        for (size_t k = 0; k < TSR_MAX_OPERANDS; ++k) {
            if (!sp.choice.staging_bytes[k]) continue;
            GraphTensor t;
            t.name = st.label + (sp.schedule == 0 ? ".prompt" : ".token") + ".stage" + std::to_string(k);
            t.kind = TSR_TENSOR_STAGING;
            t.rows = 1;
            t.cols = uint32_t(sp.choice.staging_bytes[k] / 4);
            t.bytes = sp.choice.staging_bytes[k];
            st.staging[k] = g.add(std::move(t));
            plan.region.push_back(TSR_REGION_L1);
            plan.lifetime.push_back({l1_req[request].first, sp.moment}); // staging_first's
            plan.offset.push_back(l1_alloc.offsets[request++]);
        }
        const uint32_t rows = rows_of(g, sp);
        // Operands that share another's staging buffer (attention's values) name it too.
        const tsr::StepGeometry geo = tsr::step_geometry(probe_step(st, st.tile), rows, cores);
        for (size_t k = 0; k < TSR_MAX_OPERANDS; ++k)
            if (geo.operand[k].shares != k && geo.operand[k].use != tsr::OperandUse::kNone)
                st.staging[k] = st.staging[geo.operand[k].shares];
        plan.dma_bytes_per_token[sp.schedule] += sp.choice.cost.dma_bytes / rows;
    }
    // The runtime's step table (every core reads its step's entry at every step) at the
    // bottom of L1, the weights held there above it (hold_in_l1), the arena above them,
    // where L1 has room left for the table; else in L2: the tiles never give way to it.
    RegionPlan &l1plan = plan.regions[TSR_REGION_L1];
    const uint64_t table_bytes = align_up(g.tensors[g.step_table].bytes, kL1Align);
    uint64_t base = 0; // the arena's offset in L1
    if (align_up(l1_alloc.arena_bytes, kL1Align) + table_bytes + plan.l1_weights_bytes <= l1plan.capacity) {
        base = table_bytes + plan.l1_weights_bytes;
        for (size_t i = 0; i < plan.region.size(); ++i)
            if (plan.region[i] == TSR_REGION_L1) plan.offset[i] += base;
        plan.region[g.step_table] = TSR_REGION_L1;
        plan.offset[g.step_table] = 0;
        plan.l1_weights_offset = table_bytes;
        for (size_t i = 0; i < n; ++i)
            if (res.held[i]) plan.region[i] = TSR_REGION_L1; // offsets in their block: place_weights
    } else if (plan.l1_weights_bytes) {
        throw std::logic_error("the weights held in L1 leave no room for the plan's arena");
    }
    l1plan.arena_bytes = base + l1_alloc.arena_bytes;
    l1plan.lower_bound = base + l1_alloc.lower_bound; // the table and the weights are live at every moment
    l1plan.weights_bytes = plan.l1_weights_bytes;
    l1plan.method = l1_alloc.method;
    measure(l1plan, l1_req, l1_alloc.offsets, base, plan);

}

// Lays out the weights for which `in(i)` holds as one block, each tensor aligned, in
// tensor order: their offsets in it, and its size.
template <typename In> uint64_t weight_block(const Graph &g, MemoryPlan &plan, In in)
{
    uint64_t block = 0;
    for (size_t i = 0; i < g.tensors.size(); ++i) {
        if (g.tensors[i].kind != TSR_TENSOR_WEIGHT || !in(i)) continue;
        block = align_up(block, TSR_IMAGE_ALIGN);
        plan.offset[i] = block;
        block += g.tensors[i].bytes;
    }
    return align_up(block, TSR_IMAGE_ALIGN);
}

// The NPU's weights for NMS: a block of their own, copied to NMS offset 0 at open. The
// others' bytes as one block (place_l2 decides where they live).
void place_weights(Graph &g, MemoryPlan &plan, const BoardDesc &board)
{
    auto held = [&](size_t i) { return plan.region[i] == TSR_REGION_L1; }; // hold_in_l1's
    if (weight_block(g, plan, held) > plan.l1_weights_bytes)
        throw std::logic_error("the weights held in L1 outgrow the room kept for them");
    plan.weights_bytes = weight_block(g, plan, [&](size_t i) { return !g.tensors[i].in_nms && !held(i); });
    plan.nms_weights_bytes = weight_block(g, plan, [&](size_t i) { return g.tensors[i].in_nms; });
    {
        RegionPlan &nms = plan.regions[TSR_REGION_NMS];
        nms.arena_bytes = nms.lower_bound = nms.weights_bytes = plan.nms_weights_bytes;
        nms.method = "weights";
        for (int w = 0; w < 2; ++w) nms.schedule_arena[w] = nms.schedule_lower_bound[w] = plan.nms_weights_bytes;
        if (plan.nms_weights_bytes > board.region_size[TSR_REGION_NMS])
            throw PlanError("the NPU's weights need " + kib(plan.nms_weights_bytes) + " of NMS; board '" + board.name +
                            "' has " + kib(board.region_size[TSR_REGION_NMS]));
    }

}

bool on_chip_any(const std::vector<bool> &v) { return std::find(v.begin(), v.end(), true) != v.end(); }

// Weights a step reads as an operand: the DMA engine moves them (staged, or a row an
// embedding). The others are the constants its params name (requantization vectors,
// tables), which the cores read where they are, and per-channel scales, which nothing
// reads once the packer has derived those from them. `whole`: an operand of a step
// other than EMBED (read whole, not a row a token).
struct OperandWeights {
    std::vector<bool> operand, whole;
    std::vector<bool> scales; // per-channel scales no step reads: the runtime checks their size at open, no more
};
OperandWeights operand_weights(const Graph &g)
{
    const size_t n = g.tensors.size();
    OperandWeights out{std::vector<bool>(n, false), std::vector<bool>(n, false), std::vector<bool>(n, false)};
    for (const GraphSchedule *sch : {&g.prompt, &g.token})
        for (const GraphStep &st : sch->steps)
            for (uint32_t k = 0; k < st.operand_count; ++k)
                if (st.operands[k] != TSR_NO_TENSOR) {
                    out.operand[st.operands[k]] = true;
                    if (st.op != TSR_OP_EMBED) out.whole[st.operands[k]] = true;
                }
    for (const GraphTensor &t : g.tensors)
        if (t.quant == TSR_QUANT_PER_CHANNEL && t.quant_params < n && !out.operand[t.quant_params])
            out.scales[t.quant_params] = true;
    return out;
}

// The weights to copy into `budget` bytes of L2 when not all fit (per-channel scales
// last: nothing reads them): first the constants the cores read where they are (on a board whose cores cannot read its off-chip
// memory they must be on chip: see place_l2), then the most reused per byte: a
// matmul's weights are read whole by every token, an embedding table that no matmul
// reads only a row a token (it stays off chip); among equals the smaller first (more
// tensors on chip, fewer transfers off it).
std::vector<bool> most_reused_weights(const Graph &g, const MemoryPlan &plan, uint64_t budget)
{
    const size_t n = g.tensors.size();
    const OperandWeights read = operand_weights(g);
    const std::vector<bool> &operand = read.operand, &read_whole = read.whole;
    std::vector<size_t> order;
    for (size_t i = 0; i < n; ++i)
        if (g.tensors[i].kind == TSR_TENSOR_WEIGHT && !g.tensors[i].in_nms && plan.region[i] != TSR_REGION_L1)
            order.push_back(i);
    auto per_byte = [&](size_t i) {
        return read.scales[i] ? 0.0 : !operand[i] ? 2.0 : read_whole[i] ? 1.0 : 1.0 / std::max<uint32_t>(g.tensors[i].rows, 1u);
    };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (per_byte(a) != per_byte(b)) return per_byte(a) > per_byte(b);
        return g.tensors[a].bytes < g.tensors[b].bytes;
    });
    std::vector<bool> out(n, false);
    uint64_t used = 0;
    for (size_t i : order) {
        const uint64_t bytes = align_up(g.tensors[i].bytes, TSR_IMAGE_ALIGN);
        if (used + bytes > budget) continue;
        out[i] = true;
        used += bytes;
    }
    return out;
}

// The weights L1 holds for good, below the arena: a weight held there is copied once, at
// open, where a streamed one costs a transfer (and its wait) at every step that reads it,
// and a constant read in place costs an L2 load (about 15 cycles on siracusa) at every
// use. The candidates, in order: the constants the cores read where they are
// (requantization and rotation tables), then the weights steps read whole, the smaller
// first (the more transfers a byte saves); never an embedding table only the embedding
// reads (a row a token), per-channel scales (nothing reads them), what an NPU step reads
// (in its own layout, from NMS or streamed) or attention's QuantLib tables (a step copies
// them into its scratch: on GVSoC, an L1-to-L1 copy by core 0 cost microLlama128 12 % of
// its cycles). Integer attention's tables of exponentials come last, held only in the room
// left (a step copies one not held into its scratch): held among the constants, the 1 KiB
// tables of TinyLLama-v0's eight layers took the room of its rotation table and RMSNorm
// weights, 1,557 K -> 1,589 K cycles a token. A prefix of that order is planned again, its weights in L1 (their steps
// stage nothing, the arena has that much less room), only where it moves no activation to
// L2 and gives no step a costlier tile than it had: the room is taken only where no step's
// tiles wanted it. The longest such prefix of the constants is held; then, among the
// prefixes that add weights to it, the one with the fewest estimated cycles a token (a
// token run's steps, plus a prompt run's per row), if fewer than without them.
void hold_in_l1(const Graph &g, MemoryPlan &plan, L1Residents &res, L1Placement &placement, const L1Budget &budget,
                double search_ms)
{
    const uint64_t table = align_up(g.tensors[g.step_table].bytes, kL1Align);
    if (table >= budget.bytes) return;
    const OperandWeights read = operand_weights(g);
    std::vector<bool> skip(g.tensors.size(), false); // what an NPU step reads; attention's QuantLib tables
    std::vector<bool> late(g.tensors.size(), false); // integer attention's exponentials: held in the room left
    for (const GraphSchedule *sch : {&g.prompt, &g.token})
        for (const GraphStep &st : sch->steps) {
            if (st.engine == TSR_ENGINE_NPU)
                for (uint32_t k = 0; k < st.operand_count; ++k)
                    if (st.operands[k] != TSR_NO_TENSOR) skip[st.operands[k]] = true;
            if (st.op == TSR_OP_ATTENTION && st.params.attention.tables < g.tensors.size())
                skip[st.params.attention.tables] = true;
            if (st.op == TSR_OP_ATTENTION && st.dtype == TSR_DTYPE_I8 && st.params.attention.exp == TSR_NONLINEAR_INTEGER &&
                st.params.attention.exps < g.tensors.size())
                late[st.params.attention.exps] = true;
        }
    std::vector<size_t> order;
    for (size_t i = 0; i < g.tensors.size(); ++i) {
        const GraphTensor &t = g.tensors[i];
        if (t.kind != TSR_TENSOR_WEIGHT || t.in_nms || skip[i] || late[i] || read.scales[i] ||
            (read.operand[i] && !read.whole[i]))
            continue;
        order.push_back(i);
    }
    std::vector<size_t> lates;
    for (size_t i = 0; i < g.tensors.size(); ++i)
        if (late[i]) lates.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (read.operand[a] != read.operand[b]) return !read.operand[a]; // the constants first
        return g.tensors[a].bytes < g.tensors[b].bytes;
    });
    // The constants are no step's operand: the step costs do not see where they lie, yet
    // every use in place is an L2 load (TinyLLama-v0's shape on GVSoC's Siracusa: its
    // matmuls' requantization vectors read from L2 stalled a core 24 K cycles a token). So
    // the longest prefix of them that fits (the smaller first), where it moves no activation
    // and costs no step its tiles, is held whatever the estimate says; then the weights,
    // each longer prefix of them only where it lowers the estimate further.
    const size_t constants = size_t(std::count_if(order.begin(), order.end(), [&](size_t i) { return !read.operand[i]; }));
    const double prompt_rows = std::max<uint32_t>(g.prompt.max_rows, 1u);
    auto cycles_a_token = [&](const MemoryPlan &p) {
        double c = 0;
        for (const StepPlan &sp : p.steps) c += sp.choice.cost.cycles / (sp.schedule == 0 ? prompt_rows : 1.0);
        return c;
    };
    struct Trial {
        MemoryPlan plan;
        L1Residents res;
        L1Placement placement;
        uint64_t bytes;
    };
    // The plan with the first `count` candidates held (bytes: as weight_block lays them
    // out, each tensor aligned), or none where it demotes an activation or does not fit.
    auto hold = [&](size_t count, double ms) -> std::optional<Trial> {
        Trial t{plan, res, {}, 0};
        t.res.held.assign(g.tensors.size(), false);
        for (size_t j = 0; j < count; ++j) {
            t.res.held[order[j]] = true;
            t.bytes += align_up(g.tensors[order[j]].bytes, TSR_IMAGE_ALIGN);
        }
        if (table + t.bytes >= budget.bytes) return std::nullopt;
        L1Budget b = budget;
        b.bytes = budget.bytes - table - t.bytes;
        try {
            t.placement = plan_l1(g, t.plan, t.res, b, ms);
        } catch (const PlanError &) {
            return std::nullopt;
        }
        if (t.plan.demoted.size() != plan.demoted.size()) return std::nullopt;
        for (size_t i = 0; i < plan.steps.size(); ++i) // the room they take costs no step its tiles
            if (t.plan.steps[i].choice.cost.cycles > plan.steps[i].choice.cost.cycles) return std::nullopt;
        return t;
    };
    double best = cycles_a_token(plan);
    size_t best_count = 0;
    uint64_t bytes = 0;
    size_t count = 0;
    while (count < constants && table + bytes + align_up(g.tensors[order[count]].bytes, TSR_IMAGE_ALIGN) < budget.bytes)
        bytes += align_up(g.tensors[order[count++]].bytes, TSR_IMAGE_ALIGN);
    // The longest prefix of them held (halving the range that fails: a shorter prefix takes
    // less room); the constants beyond it are dropped from the order, the weights follow.
    double held = best;
    for (size_t lo = 0, hi = count; lo < hi;) {
        const size_t mid = (lo + hi + 1u) / 2u;
        const std::optional<Trial> t = hold(mid, 0);
        const double c = t ? cycles_a_token(t->plan) : 0.0;
        if (t && c <= best)
            best_count = lo = mid, held = c;
        else
            hi = mid - 1u;
    }
    best = held;
    order.erase(order.begin() + std::ptrdiff_t(best_count), order.begin() + std::ptrdiff_t(constants)); // those not held
    count = best_count;
    bytes = 0;
    for (size_t j = 0; j < count; ++j) bytes += align_up(g.tensors[order[j]].bytes, TSR_IMAGE_ALIGN);
    while (count < order.size()) { // then the weights, prefix by prefix
        bytes += align_up(g.tensors[order[count++]].bytes, TSR_IMAGE_ALIGN);
        if (table + bytes >= budget.bytes) break;
        const std::optional<Trial> t = hold(count, 0);
        if (!t) continue;
        const double c = cycles_a_token(t->plan);
        if (c < best) best = c, best_count = count;
    }
    // Then, in the room left, the longest prefix of the integer attention's tables that
    // moves nothing and costs nothing (a step copies those not held into its scratch).
    order.resize(best_count);
    order.insert(order.end(), lates.begin(), lates.end());
    size_t lo = 0;
    for (size_t hi = lates.size(); lo < hi;) {
        const size_t mid = (lo + hi + 1u) / 2u;
        const std::optional<Trial> t = hold(best_count + mid, 0);
        if (t && cycles_a_token(t->plan) <= best)
            lo = mid;
        else
            hi = mid - 1u;
    }
    best_count += lo;
    if (best_count == 0) return;
    std::optional<Trial> t = hold(best_count, search_ms);
    if (!t) return;
    t->plan.l1_weights_bytes = t->bytes;
    plan = std::move(t->plan);
    res = std::move(t->res);
    placement = std::move(t->placement);
}

// L2: the KV cache, what the runtime reads and writes, demoted activations; the
// weights first when they are copied there (all of them, or on a board with off-chip
// memory the most reused that fit).
void place_l2(Graph &g, MemoryPlan &plan, const BoardDesc &board, const PlanOptions &opt)
{
    std::vector<AllocRequest> l2_req;
    std::vector<size_t> l2_ids;
    uint64_t kv_bytes = 0;
    for (size_t i = 0; i < g.tensors.size(); ++i) {
        if (plan.region[i] != TSR_REGION_L2 || g.tensors[i].kind == TSR_TENSOR_WEIGHT) continue;
        if (i == g.sampler_scratch) continue; // placed last, between runs
        l2_req.push_back({align_up(g.tensors[i].bytes, TSR_IMAGE_ALIGN), TSR_IMAGE_ALIGN, plan.lifetime[i].first,
                          plan.lifetime[i].last});
        l2_ids.push_back(i);
        if (g.tensors[i].kind == TSR_TENSOR_KV_CACHE) kv_bytes += g.tensors[i].bytes;
    }
    AllocResult arena = place_by_schedule(l2_req, plan, opt.search_ms);
    {
        std::vector<std::pair<uint64_t, uint64_t>> keep_out;
        for (size_t k = 0; k < l2_ids.size(); ++k) {
            const size_t i = l2_ids[k];
            const uint32_t kind = g.tensors[i].kind;
            if (kind == TSR_TENSOR_KV_CACHE || kind == TSR_TENSOR_STEP_TABLE || i == g.logits_prompt ||
                i == g.logits_token)
                keep_out.push_back({arena.offsets[k], l2_req[k].size});
        }
        const uint64_t bytes = align_up(g.tensors[g.sampler_scratch].bytes, TSR_IMAGE_ALIGN);
        const uint64_t at = place_between_runs(bytes, keep_out);
        // In the bound and the per-schedule figures it counts where it is live: at each sampling.
        for (uint32_t which = 0; which < 2; ++which) {
            const uint32_t moment = plan.schedule_window[which][1];
            l2_req.push_back({bytes, TSR_IMAGE_ALIGN, moment, moment});
            l2_ids.push_back(g.sampler_scratch);
            arena.offsets.push_back(at);
        }
        arena.arena_bytes = std::max(arena.arena_bytes, at + bytes);
        arena.lower_bound = live_bytes_lower_bound(l2_req);
    }
    const uint64_t l2 = board.region_size[TSR_REGION_L2];
    // Which weights are copied to L2 at open; the others are read from the image.
    std::vector<bool> on_chip(g.tensors.size(), false);
    auto held = [&](size_t i) { return g.tensors[i].kind == TSR_TENSOR_WEIGHT && plan.region[i] == TSR_REGION_L1; };
    auto all = [&](bool v) {
        for (size_t i = 0; i < g.tensors.size(); ++i) on_chip[i] = g.tensors[i].kind == TSR_TENSOR_WEIGHT && !held(i) && v;
    };
    switch (opt.weights) {
    case WeightsPlacement::kImage: all(false); break;
    case WeightsPlacement::kL2: all(true); break;
    case WeightsPlacement::kAuto:
        all(plan.weights_bytes + arena.arena_bytes <= l2);
        // Too many for L2 on a board with off-chip memory: the most reused on chip.
        if (!on_chip_any(on_chip) && board.offchip.present() && arena.arena_bytes < l2)
            on_chip = most_reused_weights(g, plan, l2 - arena.arena_bytes);
        break;
    }
    if (board.offchip.present() && !board.offchip.cores_read) { // the cores read the params' constants where they are
        const OperandWeights read = operand_weights(g);
        for (size_t i = 0; i < g.tensors.size(); ++i)
            if (g.tensors[i].kind == TSR_TENSOR_WEIGHT && !held(i) && !read.operand[i] && !read.scales[i]) on_chip[i] = true;
    }
    for (size_t i = 0; i < g.tensors.size(); ++i)
        if (g.tensors[i].in_nms) on_chip[i] = false; // in their own block
    plan.l2_weights_bytes = weight_block(g, plan, [&](size_t i) { return on_chip[i]; });
    plan.image_weights_bytes =
        weight_block(g, plan, [&](size_t i) { return !on_chip[i] && !g.tensors[i].in_nms && !held(i); });
    const bool copy = plan.l2_weights_bytes > 0;
    plan.weights_in_place = !copy;
    plan.weights_region = copy ? TSR_REGION_L2 : TSR_REGION_IMAGE;
    for (size_t i = 0; i < g.tensors.size(); ++i)
        if (g.tensors[i].kind == TSR_TENSOR_WEIGHT && !held(i))
            plan.region[i] = g.tensors[i].in_nms ? TSR_REGION_NMS : on_chip[i] ? TSR_REGION_L2 : TSR_REGION_IMAGE;
    const uint64_t base = plan.l2_weights_bytes; // weights first in L2, the arena after
    for (size_t k = 0; k < l2_ids.size(); ++k) plan.offset[l2_ids[k]] = base + arena.offsets[k];

    RegionPlan &l2plan = plan.regions[TSR_REGION_L2];
    l2plan.arena_bytes = base + arena.arena_bytes;
    l2plan.lower_bound = base + arena.lower_bound;
    l2plan.weights_bytes = base;
    l2plan.method = arena.method;
    measure(l2plan, l2_req, arena.offsets, base, plan);
    if (l2plan.arena_bytes > l2 || l2plan.arena_bytes > 0xFFFFFFC0u) {
        throw PlanError("the plan needs " + kib(l2plan.arena_bytes) + " of L2 (KV cache " + kib(kv_bytes) +
                        ", other buffers " + kib(arena.arena_bytes - std::min(arena.arena_bytes, kv_bytes)) +
                        (copy ? ", weights " + kib(plan.l2_weights_bytes) : std::string()) + "); board '" + board.name +
                        "' has " + kib(l2) +
                        (copy && opt.weights == WeightsPlacement::kL2 ? ". Try --weights-in image or a smaller --context"
                                                                       : ". Try a smaller --context or --prompt-chunk"));
    }
}

} // namespace

MemoryPlan plan_memory(Graph &g, const BoardDesc &board, const PlanOptions &opt)
{
    MemoryPlan plan;
    plan.lifetime = compute_lifetimes(g, plan);
    for (uint32_t r = 0; r < TSR_REGION_COUNT; ++r) plan.regions[r].capacity = board.region_size[r];
    L1Budget l1{opt.l1_bytes ? opt.l1_bytes : board.region_size[TSR_REGION_L1], "", opt.cores ? opt.cores : board.cores,
                board.dma_by_core};
    plan.operands_in_place = board.dma_by_core;
    l1.source = opt.l1_bytes ? "--l1 " + std::to_string(l1.bytes) : "board '" + board.name + "' L1";
    plan.cores = l1.cores;
    plan.regions[TSR_REGION_L1].capacity = l1.bytes;

    L1Residents residents(g);
    check_smallest_l1(g, plan, l1);
    L1Placement placement = plan_l1(g, plan, residents, l1, opt.search_ms);
    if (opt.weights == WeightsPlacement::kAuto) hold_in_l1(g, plan, residents, placement, l1, opt.search_ms);
    place_l1(g, plan, residents, placement, l1.cores);
    place_weights(g, plan, board);
    place_l2(g, plan, board, opt);
    return plan;
}

} // namespace tessera
