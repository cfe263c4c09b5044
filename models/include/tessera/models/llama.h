// Llama (llama2.c flavour) lowered to Tessera's two schedules.
#ifndef TESSERA_MODELS_LLAMA_H
#define TESSERA_MODELS_LLAMA_H

#include <map>
#include <string>
#include <vector>

#include "tessera/models/graph.h"
#include "tessera/models/llama2c.h"

namespace tessera {

struct LlamaLowering {
    uint32_t context = 0;           // KV cache positions, 1..seq_len
    uint32_t prompt_chunk = 0;      // rows of the prompt schedule, 1..context
    bool prompt_logits_all = false; // logits for every row of a prompt chunk, not only its last
    // Element type of the activations and the KV cache: F32, BF16 (every weight BF16,
    // fp32 sums) or I8 (W8A8, integer-only unless `nonlinear` says float).
    uint32_t precision = TSR_DTYPE_F32;
    // F32 only: element type of the matmul weights, F32 or BF16 (half the bytes and DMA
    // traffic; an embedding shared with the classifier stays F32).
    uint32_t matmul_weights = TSR_DTYPE_F32;
    uint32_t exp = 0;                           // BF16: tsr_exp_kind of softmax and SiLU
    uint32_t nonlinear = TSR_NONLINEAR_INTEGER; // I8: how softmax, RMSNorm and SiLU compute
    uint32_t linear_bits = 8;                   // I8: bits of the decoder layers' linear weights (8 or 4; held as int8)
    bool w4_groups = false; // I8: the decoder layers' linear weights W4A8 (4-bit, groups of 32: tessera/kernels_i8.h)
    // I8, a classifier that is the embedding table (llama2.c's shared weights): 0, the
    // table twice (the embedding per tensor, the classifier per channel in 8 bits); 8 or 4,
    // once, per channel in 8 bits or in W4A8's 4-bit groups, the embedding rescaling each
    // row it reads to its activations' scale.
    uint32_t shared_table_bits = 0;
    // Q, K and V as one matmul step, and W1 and W3 (their weights stacked, the outputs split:
    // tsr_matmul_attrs.split): fewer steps a token, the same values.
    bool fuse_linears = false;
    // I8: the largest magnitude of each activation (names without the schedule suffix:
    // "layer0.q", "layer0.attention.scores"), from calibration.
    const std::map<std::string, double> *ranges = nullptr;
};

// The graph of a checkpoint: its weights copied in, in the element types `options`
// asks for. The first form frees the checkpoint's weights as soon as they are in (a
// large model's weights are then held once, not twice); the second leaves them.
Graph lower_llama(LlamaCheckpoint &&checkpoint, const LlamaLowering &options);
Graph lower_llama(const LlamaCheckpoint &checkpoint, const LlamaLowering &options);

// RoPE angles as llama2.c computes them: table[pos][i] = {cos, sin} of
// pos * theta^(-2i / head_size), in single precision.
std::vector<float> llama_rope_table(uint32_t context, uint32_t head_size, float theta);

} // namespace tessera

#endif
