// The packer's back end and its one entry: a model from any front end (front_end.h),
// planned for one board and written as an image with its reports.
#include "tessera/pack/packer.h"

#include <chrono>
#include <filesystem>
#include <optional>

#include "front_ends/calibration_text.h" // finish_graph
#include "tessera/board_desc.h"
#include "tessera/pack/image_writer.h"
#include "tessera/pack/memory_map_svg.h"
#include "tessera/pack/tiler.h"
#include "tessera/pack/variant_list.h"
#include "tessera/tools/output_file.h"

namespace tessera {

namespace {

// A board whose cores do the DMA's copies (dma.by_core) has its kernels read operands
// where they lie: attention reads a head's keys and values in the cache itself when the
// cache holds that head's positions together (TSR_LAYOUT_KV_HEAD_MAJOR), where a
// row-major cache needs each head's columns gathered first.
void store_kv_caches_by_head(Graph &g)
{
    for (GraphSchedule *s : {&g.prompt, &g.token})
        for (GraphStep &st : s->steps)
            if (st.op == TSR_OP_ATTENTION) {
                st.params.attention.kv_layout = TSR_LAYOUT_KV_HEAD_MAJOR;
                g.tensors[st.operands[1]].layout = g.tensors[st.operands[2]].layout = TSR_LAYOUT_KV_HEAD_MAJOR;
            }
}

} // namespace

std::vector<uint8_t> plan_graph(Graph graph, const Vocabulary &vocab, const BoardDesc &board, const PackOptions &o,
                                PackResult &r)
{
    try {
        derive_params(graph); // each step's variant derives its int8 factors from its operands' scales
    } catch (const std::range_error &e) {
        throw PlanError(std::string("int8 lowering: ") + e.what());
    }
    r.board = board;
    r.graph = std::move(graph);
    r.engines = assign_engines(r.graph, r.board, o.scenario, o.npu_weight_bits);
    finish_graph(r.graph, vocab);
    if (r.board.dma_by_core) store_kv_caches_by_head(r.graph);
    PlanOptions plan_options;
    plan_options.weights = o.weights;
    plan_options.l1_bytes = o.l1_bytes;
    plan_options.cores = r.engines.cores;
    r.plan = plan_memory(r.graph, r.board, plan_options);
    std::vector<uint8_t> image = build_image(r.graph, vocab, r.plan, r.board);
    r.image_bytes = image.size();
    if (const uint32_t flash = r.board.region_size[TSR_REGION_IMAGE]; flash && image.size() > flash) {
        if (!r.board.offchip.present())
            throw PlanError("the image is " + std::to_string(image.size()) + " bytes; board '" + r.board.name + "' has " +
                            std::to_string(flash) + " bytes of flash (regions.flash in its description)");
        throw PlanError("the image is " + std::to_string(image.size()) + " bytes (weights: " +
                        std::to_string(r.plan.image_weights_bytes) + " read from off-chip memory, " +
                        std::to_string(r.plan.l2_weights_bytes) + " copied to L2 at open); board '" + r.board.name +
                        "' has " + std::to_string(flash) + " bytes of off-chip " + r.board.offchip.kind +
                        " (offchip.bytes in its description). It fits a board with at least " +
                        std::to_string(image.size()) + " bytes of it, or in fewer bytes of weights: int8 takes about a "
                        "quarter of fp32's, W4A8 (--precision int8 --weight-type int4) about an eighth" +
                        (r.graph.hyper.shared_classifier && !o.shared_table_bits
                             ? "; its classifier being its embedding table, int8 can store that once (--tied-embedding "
                               "shared)"
                             : ""));
    }
    if (r.board.cost.present()) r.estimates = standard_estimates(image.data(), image.size(), r.board);
    return image;
}

std::vector<uint8_t> plan_model(LoadedModel &model, const PackOptions &o, const BoardDesc &board, bool sizing_only,
                                PackResult &r)
{
    const ModelDescription &d = model.description();
    r.model = d;
    r.context_given = o.context != 0;
    if (!d.fixed_precision.empty()) {
        r.weight_type = r.precision = d.fixed_precision;
    } else {
        r.weight_type = o.precision == Precision::kFp32 || o.weight_type == WeightType::kInt4 ? name_of(o.weight_type)
                                                                                            : name_of(o.precision);
        r.precision = name_of(o.precision);
    }
    Graph graph = model.lower(o, sizing_only, r.calibration, r.calibration_seconds);
    return plan_graph(std::move(graph), model.vocabulary(), board, o, r);
}

void release_weights(PackResult &r)
{
    for (auto &t : r.graph.tensors) std::vector<uint8_t>().swap(t.data);
}

PackResult pack(const PackOptions &o)
{
    const auto t0 = std::chrono::steady_clock::now();
    // Every output is checked (and opened) before any work; all appear at the end or none.
    // None of them may be an input: the checkpoint (the files of a Hugging Face
    // folder), the tokenizer, a board file, the calibration text.
    const std::vector<NamedPath> outputs = {{"--output", o.output},
                                            {"--report", o.report},
                                            {"--memory-map", o.memory_map},
                                            {"--emit-variants", o.variant_list}};
    std::vector<NamedPath> inputs = {{"the checkpoint", o.checkpoint}, {"the tokenizer", o.tokenizer},
                                     {"the calibration text", o.calibration}};
    check_outputs(outputs, inputs);
    OutputFile image_out(o.output);
    std::optional<OutputFile> report_out, map_out, variants_out;
    if (!o.report.empty()) report_out.emplace(o.report);
    if (!o.memory_map.empty()) map_out.emplace(o.memory_map);
    if (!o.variant_list.empty()) variants_out.emplace(o.variant_list);

    const BoardDesc board = load_board_desc(o.board);
    std::unique_ptr<LoadedModel> model = read_model(o);
    model->check_options(o);
    // And the files found by name, which nothing has replaced yet: the board's
    // description, a tokenizer beside a llama2.c checkpoint.
    inputs.push_back({"the board description", board.source});
    for (const std::string &f : model->other_inputs()) inputs.push_back({"the tokenizer", f});
    check_outputs(outputs, inputs);
    PackResult r;
    model->lowering_for_the_last_time();
    const std::vector<uint8_t> image = plan_model(*model, o, board, false, r);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    image_out.write(image.data(), image.size());
    if (report_out) report_out->write(pack_report(r).dump(1) + "\n");
    if (map_out)
        map_out->write(memory_map_svg(r.graph, r.plan, "Tessera memory plan: " + r.board.name + ", " +
                                                           std::to_string(r.plan.regions[TSR_REGION_L1].capacity) +
                                                           "-byte L1"));
    if (variants_out)
        variants_out->write(variant_list_source(image_variants(r.graph),
                                                "the image " + (o.output == "-" ? std::string("on standard output")
                                                                                : std::filesystem::path(o.output).filename().string()) +
                                                    " (board " + r.board.name + ")",
                                                r.board.isa));
    commit_all({&image_out, report_out ? &*report_out : nullptr, map_out ? &*map_out : nullptr,
                variants_out ? &*variants_out : nullptr});
    release_weights(r);
    return r;
}

} // namespace tessera
