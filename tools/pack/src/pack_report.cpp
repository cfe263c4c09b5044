#include <sstream>

#include "tessera/pack/packer.h"
#include "tessera/pack/image_writer.h"
#include "tessera/pack/tiler.h"
#include "tessera/variants.h"

namespace tessera {

namespace {

// The planner's cycles of one run of a schedule (0 prompt, 1 token): each step's cost
// alone, added up (a serial sum; the estimates give the critical path).
double serial_cycles(const PackResult &r, uint32_t schedule)
{
    double sum = 0;
    for (const StepPlan &sp : r.plan.steps)
        if (sp.schedule == schedule) sum += sp.choice.cost.cycles;
    return sum;
}

} // namespace

// Which memory holds what, in one line: per region its arena's weights, KV cache and the
// buffers that share the rest over the schedule (activations, staging tiles, I/O,
// scratch, the step table: which of them is where is in --report); the image's memory
// and the weights it keeps.
static std::string memory_line(const PackResult &r)
{
    uint64_t by[TSR_REGION_COUNT][TSR_TENSOR_KIND_LAST_ + 1] = {};
    for (size_t i = 0; i < r.graph.tensors.size(); ++i) {
        const GraphTensor &t = r.graph.tensors[i];
        if (r.plan.region[i] < TSR_REGION_COUNT && t.kind <= TSR_TENSOR_KIND_LAST_)
            by[r.plan.region[i]][t.kind] += (t.bytes + TSR_IMAGE_ALIGN - 1) / TSR_IMAGE_ALIGN * TSR_IMAGE_ALIGN;
    }
    std::ostringstream s;
    s << "memory    ";
    const char *sep = "";
    for (uint32_t reg = TSR_REGION_L1; reg < TSR_REGION_COUNT; ++reg) {
        const uint64_t arena = r.plan.regions[reg].arena_bytes;
        if (!arena) continue;
        const uint64_t weights = reg == TSR_REGION_L2 ? r.plan.l2_weights_bytes : by[reg][TSR_TENSOR_WEIGHT];
        const uint64_t kv = by[reg][TSR_TENSOR_KV_CACHE];
        s << sep << tsr_region_name(reg) << " " << arena << ":";
        const char *inner = " ";
        auto part = [&](const char *what, uint64_t bytes) {
            if (!bytes) return;
            s << inner << what << " " << bytes;
            inner = ", ";
        };
        part("weights", weights);
        part("KV cache", kv);
        part(by[reg][TSR_TENSOR_STAGING] ? "activations, staging and I/O" : "activations and I/O",
             arena > weights + kv ? arena - weights - kv : 0);
        sep = "; ";
    }
    if (r.plan.image_weights_bytes)
        s << sep << (r.board.offchip.present() ? "off-chip " + r.board.offchip.kind : std::string("image")) << ": weights "
          << r.plan.image_weights_bytes;
    s << "\n";
    return s.str();
}

std::string pack_summary(const PackResult &r)
{
    const ModelHyper &m = r.model.hyper;
    const ModelHyper &h = r.graph.hyper;
    std::ostringstream s;
    s << "model     " << r.model.format << ": dim " << m.dim << ", hidden " << m.hidden_dim << ", " << m.n_layers
      << " layers, " << m.n_heads << " heads (" << m.n_kv_heads << " KV)";
    if (m.decoder_only)
        s << ", decoder only: hidden rows in and out\n";
    else
        s << ", vocab " << m.vocab_size << ", seq_len " << m.seq_len
          << (m.shared_classifier ? ", shared classifier" : ", separate classifier") << "\n";
    s << "tokenizer " << r.model.tokenizer << "\n";
    s << "precision " << r.precision
      << (!r.model.fixed_precision.empty() ? " (the graph's own)"
          : r.precision == "fp32" ? ", " + r.weight_type + " matmul weights"
          : r.weight_type == "int4" ? ", W4A8: the decoder layers' weights in 4 bits, groups of 32" : "")
      << "\n";
    if (!r.calibration.empty())
        s << "calibrate " << r.calibration << " in " << static_cast<int>(r.calibration_seconds * 1000) << " ms\n";
    s << "board     " << r.board.name << " (" << r.board.cores << " cores), context " << h.context
      << (r.context_given ? " (--context)"
          : h.decoder_only ? " (max(256, S_past + S) of the graph; --context N for another)"
                           : " (the checkpoint's seq_len; --context N to use fewer)")
      << ", prompt chunk "
      << h.prompt_chunk << "\n";
    s << "engines   scenario " << name_of(r.engines.scenario) << ": " << r.engines.cores << " cluster core"
      << (r.engines.cores == 1 ? "" : "s") << ", " << r.engines.npu_steps << " NPU steps";
    if (r.engines.npu_steps)
        s << " (" << r.engines.stage_steps << " requantized in the NPU's own stage; " << r.engines.weight_bits
          << "-bit weights; " << r.engines.nms_weights.size() << " weight tensors, "
          << r.engines.nms_bytes << " bytes, in NMS; " << r.engines.streamed_weights.size()
          << " streamed from "
          << (!r.plan.image_weights_bytes ? "L2" : r.plan.l2_weights_bytes ? "L2 or the image" : "the image") << ")";
    s << "\n";
    for (const std::string &w : r.engines.streamed_weights) s << "npu       " << w << " streams (NMS full)\n";
    for (const std::string &w : r.engines.cluster_linear) s << "cluster   " << w << "\n";
    s << "weights   " << r.plan.weights_bytes << " bytes, ";
    if (!r.plan.image_weights_bytes)
        s << "copied to L2 at open";
    else if (!r.plan.l2_weights_bytes)
        s << "used in place from the image";
    else
        s << r.plan.l2_weights_bytes << " copied to L2 at open (the most reused), " << r.plan.image_weights_bytes
          << " used in place from the image";
    if (r.plan.image_weights_bytes && r.board.offchip.present())
        s << " in off-chip " << r.board.offchip.kind << " (" << static_cast<uint64_t>(r.board.offchip.bytes_per_second / 1e6)
          << " MB/s, " << (r.board.offchip.cores_read ? "cores read it in place" : "DMA only") << ")";
    else if (r.plan.image_weights_bytes && r.plan.l2_weights_bytes == 0 && r.plan.weights_bytes + r.plan.regions[TSR_REGION_L2].arena_bytes > r.board.region_size[TSR_REGION_L2])
        s << " (they do not fit in L2; board '" << r.board.name << "' describes no off-chip memory to hold them: "
          << "\"offchip\" in its description)";
    s << "\n";
    for (uint32_t reg = TSR_REGION_L1; reg < TSR_REGION_COUNT; ++reg) {
        const RegionPlan &p = r.plan.regions[reg];
        if (!p.arena_bytes) continue;
        s << "region    " << tsr_region_name(reg) << ": arena " << p.arena_bytes << " bytes, lower bound "
          << p.lower_bound << " (" << p.method << ")";
        for (int k = 0; k < 2; ++k)
            s << "; " << (k ? "token" : "prompt") << " " << p.schedule_arena[k] << " / " << p.schedule_lower_bound[k];
        s << "; capacity " << p.capacity << "\n";
    }
    s << memory_line(r);
    s << "tiles     " << r.plan.demoted.size() << " activations moved to L2; planned DMA bytes per token with half the "
      << "context cached (position " << h.context / 2 << "): prompt " << r.plan.dma_bytes_per_token[0] << " (per row of a "
      << h.prompt_chunk << "-row chunk), token " << r.plan.dma_bytes_per_token[1] << "\n";
    s << "schedules prompt " << r.graph.prompt.steps.size() << " steps x " << r.graph.prompt.max_rows << " rows, token "
      << r.graph.token.steps.size() << " steps; the planner's cycles, serial sum of the steps at position "
      << h.context / 2 << ": prompt " << static_cast<uint64_t>(serial_cycles(r, 0)) << " per chunk, token "
      << static_cast<uint64_t>(serial_cycles(r, 1)) << " per token\n";
    s << "variants ";
    tsr_variant_row row{};
    for (uint16_t id : image_variants(r.graph))
        if (tsr_variant_lookup(id, &row)) s << " " << row.name;
    s << "\n";
    s << "image     " << r.image_bytes << " bytes";
    if (r.board.offchip.present())
        s << " of " << r.board.offchip.bytes << " bytes of off-chip " << r.board.offchip.kind;
    else if (const uint32_t flash = r.board.region_size[TSR_REGION_IMAGE])
        s << " of " << flash << " bytes of flash";
    else
        s << " (the board gives no flash size: not checked)";
    s << " in " << static_cast<int>(r.seconds * 1000) << " ms\n";
    if (r.board.cost.present())
        s << estimate_lines(r.estimates, r.board);
    else
        s << "estimate  none: " << no_cost_model(r.board) << "\n";
    return s.str();
}

namespace {

// One schedule's part of the report: its steps' operands, tiles, staging and planned costs.
nlohmann::json schedule_report(const PackResult &r, const GraphSchedule &s, uint32_t which)
{
    using nlohmann::json;
    const Graph &g = r.graph;
    json steps = json::array();
    for (const StepPlan &sp : r.plan.steps) {
        if (sp.schedule != which) continue;
        const GraphStep &st = s.steps[sp.index];
        json ops = json::array(), staged = json::array();
        for (uint32_t k = 0; k < st.operand_count; ++k) {
            const bool scratch = st.operands[k] == TSR_NO_TENSOR;
            const std::string name = scratch ? "(scratch)" : g.tensors[st.operands[k]].name;
            ops.push_back(name);
            if (st.staging[k] != TSR_NO_TENSOR) staged.push_back(name);
        }
        json tile = json::object();
        switch (tsr_op_tile_kind(st.op)) {
        case TSR_TILE_MATMUL: tile = {{"rows", st.tile[0]}, {"cols", st.tile[1]}}; break;
        case TSR_TILE_POSITIONS: tile = {{"cached_positions", st.tile[0]}}; break;
        case TSR_TILE_ROWS: tile = {{"rows", st.tile[0]}}; break;
        case TSR_TILE_MOVE: break;
        }
        tsr_variant_row variant{};
        steps.push_back({{"label", st.label},
                         {"op", tsr_op_name(st.op)},
                         {"variant", tsr_variant_lookup(probe_step(st, st.tile).variant, &variant) ? variant.name : "?"},
                         {"layer", st.layer == TSR_NO_LAYER ? json(nullptr) : json(st.layer)},
                         {"rows", (st.flags & TSR_STEP_ONE_ROW) ? 1u : s.max_rows},
                         {"engine", st.engine == TSR_ENGINE_DMA ? "dma" : st.engine == TSR_ENGINE_NPU ? "npu" : "cluster"},
                         {"operands", ops},
                         {"staged", staged},
                         {"tile", tile},
                         {"l1_staging_bytes", sp.choice.l1_bytes},
                         {"dma_bytes", sp.choice.cost.dma_bytes},
                         {"dma_transfers", sp.choice.cost.dma_transfers},
                         {"tiles", sp.choice.cost.tiles},
                         {"estimated_cycles", sp.choice.cost.cycles}});
    }
    return json{{"max_rows", s.max_rows},
                {"planned_at_position", g.hyper.context / 2},
                {"dma_bytes_per_token", r.plan.dma_bytes_per_token[which]},
                {"estimated_cycles_serial_sum", serial_cycles(r, which)},
                {"steps", steps}};
}

} // namespace

nlohmann::json pack_report(const PackResult &r)
{
    using nlohmann::json;
    const Graph &g = r.graph;
    json j;
    j["format"] = "tessera-pack-report/1";
    const ModelHyper &m = r.model.hyper;
    j["checkpoint"] = {{"front_end", r.model.front_end}, {"format", r.model.format}, {"dim", m.dim},
                       {"hidden_dim", m.hidden_dim}, {"n_layers", m.n_layers}, {"n_heads", m.n_heads},
                       {"n_kv_heads", m.n_kv_heads}, {"vocab_size", m.vocab_size}, {"seq_len", m.seq_len},
                       {"shared_classifier", m.shared_classifier}, {"decoder_only", m.decoder_only},
                       {"tokenizer", r.model.tokenizer}};
    j["board"] = {{"name", r.board.name}, {"fingerprint", r.board.fingerprint()}, {"cores", r.board.cores}};
    j["image"] = {{"bytes", r.image_bytes}, {"context", g.hyper.context}, {"prompt_chunk", g.hyper.prompt_chunk},
                  {"prompt_logits", g.hyper.prompt_logits_all ? "all" : "last"},
                  {"weight_type", r.weight_type}, {"precision", r.precision},
                  {"weights_bytes", r.plan.weights_bytes}, {"weights_in_place", r.plan.weights_in_place}};
    json regions = json::object();
    for (uint32_t reg = TSR_REGION_L1; reg < TSR_REGION_COUNT; ++reg) {
        const RegionPlan &p = r.plan.regions[reg];
        if (!p.capacity) continue;
        regions[tsr_region_name(reg)] = {
            {"size", p.capacity},
            {"arena_bytes", p.arena_bytes},
            {"lower_bound_bytes", p.lower_bound},
            {"weights_bytes", p.weights_bytes},
            {"allocation", p.method},
            {"schedules",
             {{"prompt", {{"arena_bytes", p.schedule_arena[0]}, {"lower_bound_bytes", p.schedule_lower_bound[0]}}},
              {"token", {{"arena_bytes", p.schedule_arena[1]}, {"lower_bound_bytes", p.schedule_lower_bound[1]}}}}}};
    }
    j["regions"] = regions;
    json tensors = json::array();
    for (size_t i = 0; i < g.tensors.size(); ++i) {
        const GraphTensor &t = g.tensors[i];
        tensors.push_back({{"id", i}, {"name", t.name}, {"kind", tsr_tensor_kind_name(t.kind)},
                           {"region", tsr_region_name(r.plan.region[i])},
                           {"offset", r.plan.offset[i]}, {"bytes", t.bytes}, {"rows", t.rows}, {"cols", t.cols},
                           {"first", r.plan.lifetime[i].first}, {"last", r.plan.lifetime[i].last}});
    }
    j["tensors"] = tensors;
    j["schedules"] = {{"prompt", schedule_report(r, g.prompt, 0)}, {"token", schedule_report(r, g.token, 1)}};
    json demoted = json::array();
    for (uint32_t id : r.plan.demoted) demoted.push_back(g.tensors[id].name);
    j["activations_in_l2"] = demoted;
    j["timeline_length"] = r.plan.timeline_length;
    j["engines"] = {{"scenario", name_of(r.engines.scenario)}, {"cluster_cores", r.engines.cores},
                    {"npu_steps", r.engines.npu_steps}, {"npu_stage_steps", r.engines.stage_steps},
                    {"npu_weight_bits", r.engines.weight_bits},
                    {"nms_bytes", r.engines.nms_bytes}, {"nms_weights", r.engines.nms_weights},
                    {"streamed_weights", r.engines.streamed_weights}, {"cluster_linear", r.engines.cluster_linear}};
    if (!r.estimates.empty()) j["estimates"] = estimate_json(r.estimates, r.board);
    else if (!r.board.cost.present()) j["estimates"] = {{"none", no_cost_model(r.board)}};
    // What each figure counts, in the words the summary and tessera-generate use.
    j["what_figures_count"] = {
        {"schedules.*.dma_bytes_per_token",
         "planned DMA bytes per token with half the context cached (position planned_at_position); the prompt's per "
         "row of a max_rows-row chunk"},
        {"schedules.*.steps[].dma_bytes", "planned DMA bytes of the step in one run of the schedule (a prompt chunk of "
                                          "max_rows rows, or one token), at position planned_at_position"},
        {"schedules.*.steps[].estimated_cycles",
         "the planner's cycles of the step alone in one run, at position planned_at_position; their sum is "
         "estimated_cycles_serial_sum, a serial sum and not the critical path (estimates.runs[] give that)"},
        {"estimates.runs[].cycles_per_token",
         "the board cost model's critical path of one run at that position, engines overlapping, divided by its rows"},
        {"estimates.runs[].busy_cycles_per_token",
         "cycles each engine is busy in that run, per token; they overlap, so their sum exceeds the critical path"},
        {"estimates.runs[].dma_bytes_per_token", "DMA bytes of one run at that position, divided by its rows"},
        {"estimates.unit", "what cycles_per_token counts where the board's fitted costs price the steps: cycles, or "
                           "instructions (qemu-virt-rv32)"},
        {"estimates.fitted_costs", "the source of the board's costs fitted to measured runs (scripts/fit-costs.py), "
                                   "or none: its per-precision rates alone"}};
    return j;
}


nlohmann::json pack_summary_json(const PackResult &r)
{
    nlohmann::json j = pack_report(r);
    j["format"] = "tessera-pack-summary/1";
    j.erase("tensors");
    for (const char *which : {"prompt", "token"}) j["schedules"][which].erase("steps");
    j["calibration"] = r.calibration.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.calibration);
    j["seconds"] = r.seconds;
    return j;
}

} // namespace tessera
