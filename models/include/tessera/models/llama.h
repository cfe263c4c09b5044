// Llama (llama2.c flavour) lowered to Tessera's two schedules.
#ifndef TESSERA_MODELS_LLAMA_H
#define TESSERA_MODELS_LLAMA_H

#include <vector>

#include "tessera/models/graph.h"
#include "tessera/models/llama2c.h"

namespace tessera {

struct LlamaLowering {
    uint32_t context = 0;           // KV cache positions, 1..seq_len
    uint32_t prompt_chunk = 0;      // rows of the prompt schedule, 1..context
    bool prompt_logits_all = false; // logits for every row of a prompt chunk, not only its last
    // Element type of the matmul weights: F32, or BF16 (half the bytes and DMA traffic;
    // activations, the KV cache and an embedding shared with the classifier stay F32).
    uint32_t matmul_weights = TSR_DTYPE_F32;
};

// The checkpoint's weights are moved into the graph.
Graph lower_llama(LlamaCheckpoint &&checkpoint, const LlamaLowering &options);

// RoPE angles as llama2.c computes them: table[pos][i] = {cos, sin} of
// pos * theta^(-2i / head_size), in single precision.
std::vector<float> llama_rope_table(uint32_t context, uint32_t head_size, float theta);

} // namespace tessera

#endif
