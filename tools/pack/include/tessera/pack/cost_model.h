// The board's cost and energy model applied to a model image: estimated cycles per
// engine and on the critical path, tokens per second at the board's clock, energy
// per token (board.json "cost", tessera/board_desc.h). It reads only the image and
// the description, so the packer's report and tessera-generate --profile agree.
#ifndef TESSERA_PACK_COST_MODEL_H
#define TESSERA_PACK_COST_MODEL_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tessera/board_desc.h"
#include "tessera/host_board.hpp"

namespace tessera {

// One variant's steps in a run: the busiest core's share of their work, and what the
// model gives them (fitted: from the board's fitted costs; else from its per-precision
// rates).
struct VariantWork {
    double calls = 0, macs = 0, elements = 0; // calls: tiles; MACs and elements: one core's share
    double bytes = 0, transfers = 0;          // the steps' DMA bytes and transfers
    double cost = 0;
    bool fitted = false;
};

// One run of a schedule: `rows` tokens from position `pos`.
struct RunEstimate {
    bool prompt = false;
    uint32_t rows = 0, pos = 0;
    uint32_t cores = 0;        // the cores it runs on
    double cycles = 0;         // critical path of the run
    double decoder_cycles = 0; // of it, the steps of the decoder layers (the Deeploy paper's scope)
    double cluster = 0, dma = 0, npu = 0; // cycles each engine is busy
    uint64_t dma_bytes = 0;
    uint32_t npu_jobs = 0;
    // Off-chip memory (a board with "offchip"): the bytes the run streams from it (weights
    // read in place from the image), the cycles that stream takes at its bandwidth, and the
    // cycles the run would take were it free (the compute bound: steps no longer wait for it).
    double offchip_bytes = 0, offchip = 0, compute_bound = 0;
    bool bandwidth_bound() const { return offchip > compute_bound; }
    // Per model layer (TSR_NO_LAYER: the steps outside the layers), the off-chip stream
    // against the steps' own cycles: a step's stream overlaps its compute (its tiles are
    // double-buffered), `exposed` is what the steps waited beyond that. A stream read ahead
    // under the steps before its own (tsr::prefetch_for) counts those cycles as its steps' too.
    struct LayerStream {
        double offchip = 0, compute = 0, exposed = 0;
    };
    std::map<uint32_t, LayerStream> layer_stream;
    double energy_uj = 0;
    std::string unit = "cycles";                 // the fitted costs' unit where they are used
    const FittedCosts *fitted = nullptr;         // the fitted costs used, if any
    std::map<std::string, VariantWork> variants; // cluster steps by variant name
    double per_token(double v) const { return rows ? v / rows : 0; }
    double tokens_per_second(double clock_hz) const { return cycles > 0 ? clock_hz * rows / cycles : 0; }
};

// One interval an engine is busy in an estimated run, for a timeline in estimated
// cycles (tessera-generate --timeline-clock estimated).
struct EstimatedSlice {
    enum class Lane { kCluster, kDma, kNpu } lane;
    const char *name;    // the operator, "copy" (DMA) or "matmul" (an NPU job)
    uint32_t layer;      // the step's model layer, or TSR_NO_LAYER
    double start, end;   // cycles since the run began
    double amount;       // DMA: bytes; NPU: multiply-accumulates
};

// The model's per-engine pieces, shared with the packer's engine choice.
double npu_job_cycles(const BoardCost &c, double macs, double weight_bytes, uint32_t bits, bool nms);
double cluster_cycles(const BoardCost &c, uint32_t dtype, double macs, double elements, uint32_t cores);

// Estimates one run of the prompt (prompt = true) or token schedule of a valid
// image for `board` (which must have a cost model: board.cost.present()). With
// `slices`, also appends when each engine is busy. `cores`: the cores it runs on (0:
// the image's planned cores). A step whose variant the board's fitted costs for
// `kernel_set` have (BoardCost::fitted_for: "" is the board's own) costs what they
// say, DMA and barriers included (an NPU step so priced is its controller's work alone:
// what the QEMU board's compute harts count; no NPU job is queued for it); any other
// takes the per-precision rates.
RunEstimate estimate_run(const uint8_t *image, size_t size, const BoardDesc &board, bool prompt, uint32_t rows,
                         uint32_t pos, std::vector<EstimatedSlice> *slices = nullptr, uint32_t cores = 0,
                         const std::string &kernel_set = "");

// One run of a schedule, as tessera_prompt (chunks) and tessera_step made it.
struct RunSpec {
    bool prompt;
    uint32_t rows, pos;
};

// The runs laid end to end in the board's estimated cycles, as the host board's
// timeline events (times in cycles): a "fork" per run on core 0, each cluster step on
// every core the image is planned for, DMA copies and NPU jobs on their lanes.
std::vector<TimelineEvent> estimated_timeline(const uint8_t *image, size_t size, const BoardDesc &board,
                                              const std::vector<RunSpec> &runs);

// The usual set: prompts of half a chunk and of a whole one (the image's), and single
// tokens at positions 1, context / 2 and context - 1.
std::vector<RunEstimate> standard_estimates(const uint8_t *image, size_t size, const BoardDesc &board);

// "estimate  token at position 128, per token: 12345 cycles on the critical path (decoder layers 10000), ..." lines.
// Why a board gives no estimate: "board 'x' has no cost model (...)".
std::string no_cost_model(const BoardDesc &board);
std::string estimate_lines(const std::vector<RunEstimate> &runs, const BoardDesc &board);
nlohmann::json estimate_json(const std::vector<RunEstimate> &runs, const BoardDesc &board);

} // namespace tessera

#endif
