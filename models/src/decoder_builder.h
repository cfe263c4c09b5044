// The decoder written once: every front end (llama2.c, GGUF, Hugging Face, QuantLib ONNX
// integer and float) lowers its layers through DecoderBuilder. An architecture is a
// description (DecoderArch); what a precision or a front end's constants make of each
// step is a LayerLowering's. The builder owns the order of the weights and of the steps.
#ifndef TESSERA_MODELS_DECODER_BUILDER_H
#define TESSERA_MODELS_DECODER_BUILDER_H

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "tessera/models/graph.h"

namespace tessera {

// Adds tensors and steps to a graph: the helpers every lowering shares.
class GraphBuilder {
public:
    explicit GraphBuilder(Graph &g) : g_(g) {}

    // A weight of `rows` x `cols` from its bytes as the image holds them (a packed layout may
    // hold more or fewer bytes than rows x cols elements: the larger counts).
    uint32_t raw(const std::string &name, uint32_t dtype, uint32_t rows, uint32_t cols, std::vector<uint8_t> bytes);
    // A weight from floats, in F32 or BF16 (encode_weights).
    uint32_t weight(const std::string &name, const float *values, uint32_t rows, uint32_t cols, uint32_t dtype);
    uint32_t tensor(const std::string &name, uint32_t kind, uint32_t rows, uint32_t cols, uint32_t dtype);
    GraphTensor &at(uint32_t id) { return g_.tensors[id]; }
    void step(GraphSchedule &s, uint16_t op, uint8_t dtype, std::initializer_list<uint32_t> operands,
              const tsr_op_attrs &params, std::string label, uint16_t layer = TSR_NO_LAYER, uint8_t flags = 0);
    Graph &graph() { return g_; }

private:
    Graph &g_;
};

// The linear layers of a decoder layer; the fused ones read one input for several outputs
// (their weights stacked, tsr_matmul_attrs.split).
enum class LinearRole : uint8_t { kQ, kK, kV, kQkv, kO, kGate, kUp, kGateUp, kDown };
constexpr uint32_t kLinearRoles = 9;
// Its weights' name and its step's label in a layer: "wq" ... "w2".
const char *linear_name(LinearRole role);

enum class NormSite : uint8_t { kAttention, kFfn, kFinal };
enum class Residual : uint8_t { kAttention, kFfn };

enum class NormKind : uint8_t { kRms, kLayer }; // LayerNorm: a gain and a bias
enum class FfnKind : uint8_t {
    kGated, // act(gate) * up, one SWIGLU step (SiLU, QuantLib's Hardswish)
    kGelu,  // GELU(up): GPT-2's and GPT-Neo's
};

// What a decoder layer is, beyond its sizes.
struct DecoderArch {
    NormKind norm = NormKind::kRms;
    // Q and K rotated in the layer (RoPE); false: the positions are the embedding's (a
    // learned table the front end adds before the first layer).
    bool rotary = true;
    FfnKind ffn = FfnKind::kGated;
    // K and V requantized to their caches' scales before they are appended (QuantLib's graphs).
    bool kv_requant = false;
    // The feed-forward's activation step, as its label says it ("swiglu", "hardswish_glu", "gelu").
    const char *ffn_label = "swiglu";
};

struct DecoderShape {
    uint32_t dim = 0, kv_dim = 0, hidden = 0, n_layers = 0, context = 0;
};

// One layer's weights and caches, as tensor ids (TSR_NO_TENSOR: a linear the layer does not
// have, such as Q, K and V when they are fused).
struct DecoderLayerWeights {
    uint32_t attn_norm = TSR_NO_TENSOR, ffn_norm = TSR_NO_TENSOR, k_cache = TSR_NO_TENSOR, v_cache = TSR_NO_TENSOR;
    uint32_t attn_norm_bias = TSR_NO_TENSOR, ffn_norm_bias = TSR_NO_TENSOR; // NormKind::kLayer
    std::array<uint32_t, kLinearRoles> linear{};
    uint32_t operator[](LinearRole r) const { return linear[size_t(r)]; }
};

// What one precision and one front end make of a decoder's weights and steps.
class LayerLowering {
public:
    virtual ~LayerLowering() = default;

    // Weights, in the order the builder asks for them.
    virtual uint32_t norm_weight(uint32_t layer, NormSite site) = 0;
    // NormKind::kLayer: the norm's bias, right after its weight.
    virtual uint32_t norm_bias(uint32_t layer, NormSite site)
    {
        (void)layer, (void)site;
        return TSR_NO_TENSOR;
    }
    // Whether layer `layer` runs `fused` (kQkv or kGateUp) as one step.
    virtual bool fuses(uint32_t layer, LinearRole fused) = 0;
    virtual uint32_t linear_weight(uint32_t layer, LinearRole role) = 0;
    // Tables a layer's steps read beside its weights (QuantLib attention's constants).
    virtual void layer_tables(uint32_t layer) { (void)layer; }
    virtual uint32_t kv_cache(uint32_t layer, bool values) = 0;

    // An activation `name` + `suffix` (the schedule's) of rows x cols; `name` is what
    // calibration calls it.
    virtual uint32_t activation(const std::string &name, const char *suffix, uint32_t rows, uint32_t cols) = 0;

    // The steps' element type and parameters.
    virtual uint8_t dtype() const = 0;
    virtual tsr_op_attrs norm(uint32_t layer, NormSite site) const = 0;
    // split0, split1: a fused step's outputs' columns (tsr_matmul_attrs.split).
    virtual tsr_op_attrs linear(uint32_t layer, LinearRole role, uint32_t split0, uint32_t split1) const = 0;
    virtual tsr_op_attrs rope(uint32_t layer) const = 0;
    // DecoderArch::kv_requant: the requantization of K (values false) or V.
    virtual tsr_op_attrs kv_requant(uint32_t layer, bool values) const
    {
        (void)layer, (void)values;
        return tsr_op_attrs{};
    }
    virtual tsr_op_attrs attention(uint32_t layer) const = 0;
    // The scale of attention's scores where the variant requantizes them to one (int8); 0: none.
    virtual double attention_inner_scale(uint32_t layer) const
    {
        (void)layer;
        return 0;
    }
    virtual tsr_op_attrs add(uint32_t layer, Residual site) const = 0;
    virtual tsr_op_attrs ffn(uint32_t layer) const = 0;
};

// The decoder's layers, weights and steps, through a LayerLowering.
class DecoderBuilder {
public:
    DecoderBuilder(Graph &g, const DecoderArch &arch, const DecoderShape &shape, LayerLowering &lowering)
        : b_(g), arch_(arch), shape_(shape), lowering_(lowering)
    {
    }

    // Every layer's weights and caches, layer by layer.
    void weights();
    // Layer `layer`'s steps on R rows from x; `positions` is rope's table or its rows'
    // rotations. Returns the layer's output.
    uint32_t layer(GraphSchedule &s, uint32_t R, const char *suffix, uint32_t layer, uint32_t x, uint32_t positions);
    // Every layer's, from x; returns the last layer's output.
    uint32_t layers(GraphSchedule &s, uint32_t R, const char *suffix, uint32_t x, uint32_t positions);
    const DecoderLayerWeights &weights_of(uint32_t layer) const { return weights_[layer]; }
    // A norm step of the architecture's kind: x through weight (and bias) into y.
    void norm(GraphSchedule &s, uint32_t x, uint32_t weight, uint32_t bias, uint32_t y, const tsr_op_attrs &params,
              std::string label, uint16_t layer = TSR_NO_LAYER, uint8_t flags = 0);

private:
    GraphBuilder b_;
    const DecoderArch arch_;
    const DecoderShape shape_;
    LayerLowering &lowering_;
    std::vector<DecoderLayerWeights> weights_;
};

} // namespace tessera

#endif
