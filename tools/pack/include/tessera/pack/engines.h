// Which engine runs each step: the packer's "GEMM as pointwise convolution" lowering
// of linear layers onto the NPU, and the deployment scenarios of the Deeploy paper.
#ifndef TESSERA_PACK_ENGINES_H
#define TESSERA_PACK_ENGINES_H

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/board_desc.h"
#include "tessera/models/graph.h"
#include "tessera/pack/pack_options.h"

namespace tessera {

// Scenario (pack_options.h), auto: the NPU takes the linear layers the cost model says
// it runs faster (weights in NMS while they fit), where the board has an NPU and the
// image is int8; else the cluster. The others are the paper's four deployments: one
// core; the whole cluster; every linear layer on the NPU with weights streamed from L2
// (or the image) through L1; the same with the weights in NMS while they fit.

struct EngineAssignment {
    Scenario scenario = Scenario::kCluster; // as resolved (never kAuto)
    uint32_t cores = 0;                     // the cluster cores the plan is for
    uint32_t weight_bits = 8;               // of the NPU's weights
    uint32_t npu_steps = 0;                 // steps of both schedules on the NPU
    uint32_t stage_steps = 0;               // of them, requantized in the NPU's own stage (form 3)
    uint64_t nms_bytes = 0;                 // weights placed in NMS
    std::vector<std::string> nms_weights;      // NPU weights in NMS
    std::vector<std::string> streamed_weights; // NPU weights that stream from L2 or the image
    std::vector<std::string> cluster_linear;   // linear layers left on the cluster, each with why
};

// Moves the eligible linear layers (int8 in, int8 weights per channel, int8 out: not
// the logits) to the NPU: their weights into the NPU's layout (tessera/npu.h), their
// steps' engine to NPU, and for weights in NMS the join (the first later step that
// reads the output); a RequantShift layer whose channels N-EUREKA's stage gives exactly
// gets the stage's form (requant_form RQS_STAGE, the rounding in its addends). Throws InputError
// when the scenario needs what the board or the precision lacks, and, for npu-nms asked for
// by name, when the NPU's weights do not all fit the weight memory (naming the first).
EngineAssignment assign_engines(Graph &g, const BoardDesc &board, Scenario scenario, uint32_t weight_bits);

// An n x k int8 matrix (row-major) in the NPU's layout (N-EUREKA's 1x1 mode) for `bits`-bit
// weights; throws std::range_error when a value does not fit `bits` bits.
std::vector<uint8_t> npu_weight_layout(const int8_t *w, uint32_t n, uint32_t k, uint32_t bits);

} // namespace tessera

#endif
