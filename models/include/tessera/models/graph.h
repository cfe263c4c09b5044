// The lowered form of a model that the packer plans and writes: tensors and the
// two schedules (prompt chunk, single token) as ordered operator steps. Model
// families produce it; nothing after this point knows which family it was.
#ifndef TESSERA_MODELS_GRAPH_H
#define TESSERA_MODELS_GRAPH_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/image_format.h"
#include "tessera/models/op_attributes.h"

namespace tessera {

struct GraphTensor {
    std::string name;
    uint32_t dtype = TSR_DTYPE_F32;
    uint32_t kind = TSR_TENSOR_ACTIVATION; // tsr_tensor_kind
    uint32_t rows = 0, cols = 0;           // the image's dims: {rows, cols}
    uint64_t bytes = 0;
    std::vector<uint8_t> data; // weights only: the elements as the image holds them (little-endian)
    // Quantization (tsr_quant_kind): a per-tensor scale, or per-channel scales in the
    // F32 weight tensor `quant_params`.
    uint32_t quant = TSR_QUANT_NONE;
    double scale = 1.0;
    uint32_t quant_params = TSR_NO_TENSOR;
    uint32_t layout = TSR_LAYOUT_ROW_MAJOR; // tsr_layout: NPU weights are in the engine's (tessera/npu.h)
    bool in_nms = false;                    // weights the NPU reads in place from NMS
};

// Weight bytes from floats: F32 as they are, BF16 rounded to nearest even.
std::vector<uint8_t> encode_weights(const float *values, size_t count, uint32_t dtype);
template <typename T> std::vector<uint8_t> raw_bytes(const std::vector<T> &v)
{
    const uint8_t *p = reinterpret_cast<const uint8_t *>(v.data());
    return std::vector<uint8_t>(p, p + v.size() * sizeof(T));
}


struct GraphStep {
    uint16_t op = 0;
    uint8_t engine = TSR_ENGINE_CLUSTER;
    uint8_t flags = 0; // TSR_STEP_*
    uint8_t dtype = TSR_DTYPE_F32; // of its activations
    std::array<uint32_t, TSR_MAX_OPERANDS> operands{};
    uint32_t operand_count = 0;
    tsr_op_attrs params{}; // the member named after op
    std::string label;             // for reports: "layer3.wq"
    uint16_t layer = TSR_NO_LAYER; // for profiles
    // int8: the scale of an intermediate the operator computes, which no tensor holds
    // (integer attention: its scores); 0 where there is none. The other int8
    // parameters follow from the operands' scales (the packer's derive_params).
    double inner_scale = 0;
    // Filled by the packer's planner: tile sizes and the L1 staging tensor of each
    // operand streamed from L2 (TSR_NO_TENSOR: the operand is in L1 or not a kernel operand).
    std::array<uint32_t, TSR_MAX_TILES> tile{};
    std::array<uint32_t, TSR_MAX_OPERANDS> staging{TSR_NO_TENSOR, TSR_NO_TENSOR, TSR_NO_TENSOR,
                                                   TSR_NO_TENSOR, TSR_NO_TENSOR, TSR_NO_TENSOR};
};

struct GraphSchedule {
    uint32_t max_rows = 1;
    std::vector<GraphStep> steps;
};

struct ModelHyper {
    uint32_t arch = TSR_ARCH_LLAMA;
    uint32_t dim = 0, hidden_dim = 0, n_layers = 0, n_heads = 0, n_kv_heads = 0, vocab_size = 0, seq_len = 0;
    uint32_t context = 0, prompt_chunk = 0;
    uint32_t bos_id = 1, eos_id = 2;
    float norm_eps = 1e-5f, rope_theta = 10000.0f;
    bool shared_classifier = true;
    bool prompt_logits_all = false; // the prompt schedule keeps logits for every row
    bool decoder_only = false;      // hidden rows in and out (TSR_IMAGE_DECODER_ONLY): no vocabulary, no
                                    // sampler scratch; tokens/logits name the rows in and out
    uint32_t precision = TSR_DTYPE_F32;           // of the activations
};

struct Graph {
    ModelHyper hyper;
    std::vector<GraphTensor> tensors;
    GraphSchedule prompt, token;
    uint32_t logits_prompt = 0, logits_token = 0, tokens_prompt = 0, tokens_token = 0, sampler_scratch = 0;
    uint32_t step_table = 0; // the runtime's resolved steps (added by the packer)
    // Decoder-only: each row's RoPE matrix (I8, IO), which the runtime writes before a run.
    uint32_t rotation_prompt = TSR_NO_TENSOR, rotation_token = TSR_NO_TENSOR;

    uint32_t add(GraphTensor t)
    {
        if (!t.bytes) t.bytes = uint64_t(t.rows) * t.cols * tsr_dtype_bytes(t.dtype);
        tensors.push_back(std::move(t));
        return uint32_t(tensors.size() - 1);
    }
};

} // namespace tessera

#endif
