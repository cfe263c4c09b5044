// tessera-pack as a library: checkpoint + tokenizer + board -> model image.
#ifndef TESSERA_PACK_PACKER_H
#define TESSERA_PACK_PACKER_H

#include <string>

#include <nlohmann/json.hpp>

#include "tessera/board_desc.h"
#include "tessera/models/graph.h"
#include "tessera/models/llama2c.h"
#include "tessera/pack/front_end.h"
#include "tessera/pack/cost_model.h"
#include "tessera/pack/engines.h"
#include "tessera/pack/memory_plan.h"
#include "tessera/pack/pack_options.h"

namespace tessera {

struct PackOptions {
    std::string checkpoint;
    std::string output;
    std::string tokenizer;   // empty: tok<vocab>.bin or tokenizer.bin beside the checkpoint
    std::string board = "host";
    Precision precision = Precision::kFp32;    // activations and KV cache
    Nonlinear nonlinear = Nonlinear::kInteger; // int8: softmax, RMSNorm and SiLU in integers or in float
    ExpKind exp = ExpKind::kAccurate;          // bf16: the exponential of softmax and SiLU
    // Whether the command line named them (a model of fixed precision refuses them then).
    bool precision_given = false, nonlinear_given = false, exp_given = false;
    std::string calibration;           // int8: a UTF-8 text file whose lines calibrate (default: the model's own output)
    bool progress = false;             // show the progress of long steps on stderr (tessera/tools/progress.h)
    uint32_t context = 0;      // 0: the model's seq_len
    uint32_t prompt_chunk = 0; // 0: min(16, context)
    bool prompt_logits_all = false; // logits for every row of a prompt chunk (teacher forcing)
    WeightType weight_type = WeightType::kFp32; // matmul weights: fp32 or bf16 (with fp32), int4 (with int8: W4A8)
    WeightsPlacement weights = WeightsPlacement::kAuto;
    // int8, a classifier that is the embedding table: stored once per channel and shared,
    // in 8 bits (--tied-embedding shared) or 4 (shared-int4); 0: twice (copy).
    uint32_t shared_table_bits = 0;
    uint64_t l1_bytes = 0;     // 0: the board's L1
    Scenario scenario = Scenario::kAuto; // engines (engines.h)
    uint32_t npu_weight_bits = 8;  // int8 on the NPU: 8, or 4 (the decoder layers' linear weights)
    // Q, K and V as one matmul step, W1 and W3 as one (--no-fuse: apart). Never under the
    // npu and npu-nms scenarios, where each is an NPU job of its own.
    bool fuse_linears = true;
    std::string report;        // JSON report path (optional)
    std::string memory_map;    // SVG memory map path (optional)
    std::string variant_list;  // C source registering the variants the image runs (optional; variant_list.h)
};

struct PackResult {
    ModelDescription model; // what the front end read (front_end.h)
    bool context_given = false; // --context, not the checkpoint's seq_len
    std::string weight_type; // of the matmul weights: fp32, bf16 or int8
    std::string precision;   // of the activations: fp32, bf16 or int8
    std::string calibration; // int8: what calibrated it
    double calibration_seconds = 0;
    BoardDesc board;
    Graph graph; // weight data released after writing
    MemoryPlan plan;
    EngineAssignment engines;
    std::vector<RunEstimate> estimates; // when the board has a cost model
    uint64_t image_bytes = 0;
    double seconds = 0;
};

// Throws InputError (unreadable input; OptionError: an option the model makes
// meaningless), BoardError, PlanError (does not fit) or std::system_error (cannot
// write); never leaves a partial output file.
PackResult pack(const PackOptions &options);

std::string pack_summary(const PackResult &result);

// The back end, for a graph from any front end (the Llama one: lower_llama): derives
// every step's parameters from its variant (derive_params), assigns engines (scenario,
// npu_weight_bits), plans memory for `board` (weights, l1_bytes) and returns the image;
// fills `result`'s graph, board, engines, plan, image bytes and estimates. The graph's
// tensors and steps are its front end's: names, kinds, scales, schedules. Throws
// PlanError when it does not fit.
std::vector<uint8_t> plan_graph(Graph graph, const Vocabulary &vocab, const BoardDesc &board, const PackOptions &options,
                                PackResult &result);

// A model from any front end lowered under `options` and planned by plan_graph; fills
// `result` (the model's description, precision and calibration too). `sizing_only`: a
// dry run's trial (front_end.h).
std::vector<uint8_t> plan_model(LoadedModel &model, const PackOptions &options, const BoardDesc &board, bool sizing_only,
                                PackResult &result);
// Frees the graph's weight data (a result kept after its image is written).
void release_weights(PackResult &result);

// A dry run: whether the plan fits the board, without writing anything; when it does
// not, the largest context that fits with the same options, and each smaller
// precision or weight type with the context it fits (int8 sized with BOS-only scales:
// the scales change no size). For a model of fixed precision (a decoder-only ONNX
// graph), which boards, scenarios and L1 sizes fit instead.
struct FitAlternative {
    std::string flags;     // the options that change: "--precision int8"
    uint32_t context = 0;  // the largest context that fits with them, at most the requested one (0: none)
    uint64_t image_bytes = 0; // at the requested context, when it fits there
};

// A board and scenario for a model of fixed precision: whether it fits at the board's
// L1, and the smallest L1 it fits at (0: none up to the board's).
struct BoardFit {
    std::string board, scenario;
    uint32_t l1 = 0;          // the board's
    bool fits = false;
    uint32_t smallest_l1 = 0; // when it fits
    std::string reason;       // when it does not
};

struct FitReport {
    bool fits = false;
    uint32_t context = 0;  // the requested context
    std::string reason;    // why it does not fit
    PackResult result;     // the plan, when it fits
    uint32_t largest_context = 0; // when it does not fit: with the same options (0: none)
    std::vector<FitAlternative> alternatives;
    std::vector<BoardFit> boards; // a model of fixed precision: every known board and scenario
    double seconds = 0;
};

// Throws InputError or BoardError (unusable input); a plan that does not fit is not an error here.
FitReport what_fits(const PackOptions &options);
std::string fit_summary(const FitReport &report);
nlohmann::json fit_report_json(const FitReport &report);
nlohmann::json pack_report(const PackResult &result);
// The summary as JSON (tessera-pack --json): the model, plan, regions and estimates.
nlohmann::json pack_summary_json(const PackResult &result);

} // namespace tessera

#endif
