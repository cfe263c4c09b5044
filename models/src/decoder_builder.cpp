#include "decoder_builder.h"

#include <algorithm>

namespace tessera {

uint32_t GraphBuilder::raw(const std::string &name, uint32_t dtype, uint32_t rows, uint32_t cols,
                           std::vector<uint8_t> bytes)
{
    GraphTensor t;
    t.name = name;
    t.dtype = dtype;
    t.kind = TSR_TENSOR_WEIGHT;
    t.rows = rows;
    t.cols = cols;
    t.bytes = std::max<uint64_t>(bytes.size(), uint64_t(rows) * cols * tsr_dtype_bytes(dtype));
    t.data = std::move(bytes);
    return g_.add(std::move(t));
}

uint32_t GraphBuilder::weight(const std::string &name, const float *values, uint32_t rows, uint32_t cols,
                              uint32_t dtype)
{
    return raw(name, dtype, rows, cols, encode_weights(values, size_t(rows) * cols, dtype));
}

uint32_t GraphBuilder::tensor(const std::string &name, uint32_t kind, uint32_t rows, uint32_t cols, uint32_t dtype)
{
    GraphTensor t;
    t.name = name;
    t.kind = kind;
    t.rows = rows;
    t.cols = cols;
    t.dtype = dtype;
    return g_.add(std::move(t));
}

void GraphBuilder::step(GraphSchedule &s, uint16_t op, uint8_t dtype, std::initializer_list<uint32_t> operands,
                        const tsr_op_attrs &params, std::string label, uint16_t layer, uint8_t flags)
{
    GraphStep st;
    st.op = op;
    st.engine = tsr_op_tile_kind(op) == TSR_TILE_MOVE ? TSR_ENGINE_DMA : TSR_ENGINE_CLUSTER;
    st.flags = flags;
    st.dtype = dtype;
    st.layer = layer;
    st.operands.fill(TSR_NO_TENSOR);
    for (uint32_t o : operands) st.operands[st.operand_count++] = o;
    st.params = params;
    st.label = std::move(label);
    s.steps.push_back(std::move(st));
}

const char *linear_name(LinearRole role)
{
    static const char *const kNames[kLinearRoles] = {"wq", "wk", "wv", "wqkv", "wo", "w1", "w3", "w13", "w2"};
    return kNames[size_t(role)];
}

void DecoderBuilder::weights()
{
    LayerLowering &P = lowering_;
    weights_.resize(shape_.n_layers);
    for (uint32_t l = 0; l < shape_.n_layers; ++l) {
        DecoderLayerWeights &w = weights_[l];
        w.linear.fill(TSR_NO_TENSOR);
        auto linears = [&](LinearRole fused, std::initializer_list<LinearRole> parts) {
            if (P.fuses(l, fused)) w.linear[size_t(fused)] = P.linear_weight(l, fused);
            else
                for (LinearRole r : parts) w.linear[size_t(r)] = P.linear_weight(l, r);
        };
        const bool bias = arch_.norm == NormKind::kLayer;
        w.attn_norm = P.norm_weight(l, NormSite::kAttention);
        if (bias) w.attn_norm_bias = P.norm_bias(l, NormSite::kAttention);
        linears(LinearRole::kQkv, {LinearRole::kQ, LinearRole::kK, LinearRole::kV});
        w.linear[size_t(LinearRole::kO)] = P.linear_weight(l, LinearRole::kO);
        w.ffn_norm = P.norm_weight(l, NormSite::kFfn);
        if (bias) w.ffn_norm_bias = P.norm_bias(l, NormSite::kFfn);
        if (arch_.ffn == FfnKind::kGated) linears(LinearRole::kGateUp, {LinearRole::kGate, LinearRole::kUp});
        else w.linear[size_t(LinearRole::kUp)] = P.linear_weight(l, LinearRole::kUp);
        w.linear[size_t(LinearRole::kDown)] = P.linear_weight(l, LinearRole::kDown);
        P.layer_tables(l);
        w.k_cache = P.kv_cache(l, false);
        w.v_cache = P.kv_cache(l, true);
    }
}

uint32_t DecoderBuilder::layer(GraphSchedule &s, uint32_t R, const char *suffix, uint32_t l, uint32_t x,
                               uint32_t positions)
{
    const LayerLowering &P = lowering_;
    const DecoderLayerWeights &w = weights_[l];
    const uint32_t D = shape_.dim, KV = shape_.kv_dim, H = shape_.hidden;
    const std::string p = "layer" + std::to_string(l) + ".";
    const uint16_t L = uint16_t(l);
    const uint8_t T = P.dtype();
    auto act = [&](const char *name, uint32_t cols) { return lowering_.activation(p + name, suffix, R, cols); };
    auto linear = [&](LinearRole role, uint32_t in, std::initializer_list<uint32_t> out, uint32_t split0 = 0,
                      uint32_t split1 = 0) {
        const uint32_t *o = out.begin();
        const tsr_op_attrs params = P.linear(l, role, split0, split1);
        const std::string label = p + linear_name(role);
        if (out.size() == 1) b_.step(s, TSR_OP_MATMUL, T, {in, w[role], o[0]}, params, label, L);
        else if (out.size() == 2) b_.step(s, TSR_OP_MATMUL, T, {in, w[role], o[0], o[1]}, params, label, L);
        else b_.step(s, TSR_OP_MATMUL, T, {in, w[role], o[0], o[1], o[2]}, params, label, L);
    };

    const uint32_t xb = act("attn_norm", D), q = act("q", D), k = act("k", KV), v = act("v", KV);
    const uint32_t kc = arch_.kv_requant ? act("k_cached", KV) : k, vc = arch_.kv_requant ? act("v_cached", KV) : v;
    const bool gated = arch_.ffn == FfnKind::kGated;
    const uint32_t att = act("attn", D), o = act("attn_out", D), x_att = act("x_attn", D), xb2 = act("ffn_norm", D),
                   h1 = gated ? act("ffn_gate", H) : TSR_NO_TENSOR, h3 = act("ffn_up", H), gl = act("ffn_act", H),
                   f = act("ffn_out", D), x_out = act("x_out", D);

    norm(s, x, w.attn_norm, w.attn_norm_bias, xb, P.norm(l, NormSite::kAttention), p + "attn_norm", L);
    if (w[LinearRole::kQkv] != TSR_NO_TENSOR) {
        linear(LinearRole::kQkv, xb, {q, k, v}, D, KV);
    } else {
        linear(LinearRole::kQ, xb, {q});
        linear(LinearRole::kK, xb, {k});
        linear(LinearRole::kV, xb, {v});
    }
    if (arch_.rotary) b_.step(s, TSR_OP_ROPE, T, {q, k, positions}, P.rope(l), p + "rope", L);
    if (arch_.kv_requant) {
        b_.step(s, TSR_OP_REQUANT, T, {k, kc}, P.kv_requant(l, false), p + "k_scale", L);
        b_.step(s, TSR_OP_REQUANT, T, {v, vc}, P.kv_requant(l, true), p + "v_scale", L);
    }
    tsr_op_attrs pk{};
    pk.kv_append = {KV, shape_.context};
    b_.step(s, TSR_OP_KV_APPEND, T, {kc, vc, w.k_cache, w.v_cache}, pk, p + "kv_append", L);
    // Operand 3 is the scores scratch the plan sizes for the cores it gives attention.
    b_.step(s, TSR_OP_ATTENTION, T, {q, w.k_cache, w.v_cache, TSR_NO_TENSOR, att}, P.attention(l), p + "attention", L);
    s.steps.back().inner_scale = P.attention_inner_scale(l);
    linear(LinearRole::kO, att, {o});
    b_.step(s, TSR_OP_ADD, T, {x, o, x_att}, P.add(l, Residual::kAttention), p + "residual_attn", L);
    norm(s, x_att, w.ffn_norm, w.ffn_norm_bias, xb2, P.norm(l, NormSite::kFfn), p + "ffn_norm", L);
    if (!gated) {
        linear(LinearRole::kUp, xb2, {h3});
        b_.step(s, TSR_OP_GELU, T, {h3, gl}, P.ffn(l), p + arch_.ffn_label, L);
    } else {
        if (w[LinearRole::kGateUp] != TSR_NO_TENSOR) {
            linear(LinearRole::kGateUp, xb2, {h1, h3}, H);
        } else {
            linear(LinearRole::kGate, xb2, {h1});
            linear(LinearRole::kUp, xb2, {h3});
        }
        b_.step(s, TSR_OP_SWIGLU, T, {h1, h3, gl}, P.ffn(l), p + arch_.ffn_label, L);
    }
    linear(LinearRole::kDown, gl, {f});
    b_.step(s, TSR_OP_ADD, T, {x_att, f, x_out}, P.add(l, Residual::kFfn), p + "residual_ffn", L);
    return x_out;
}

void DecoderBuilder::norm(GraphSchedule &s, uint32_t x, uint32_t weight, uint32_t bias, uint32_t y,
                          const tsr_op_attrs &params, std::string label, uint16_t layer, uint8_t flags)
{
    const uint8_t T = lowering_.dtype();
    if (arch_.norm == NormKind::kLayer)
        b_.step(s, TSR_OP_LAYERNORM, T, {x, weight, bias, y}, params, std::move(label), layer, flags);
    else
        b_.step(s, TSR_OP_RMSNORM, T, {x, weight, y}, params, std::move(label), layer, flags);
}

uint32_t DecoderBuilder::layers(GraphSchedule &s, uint32_t R, const char *suffix, uint32_t x, uint32_t positions)
{
    for (uint32_t l = 0; l < shape_.n_layers; ++l) x = layer(s, R, suffix, l, x, positions);
    return x;
}

} // namespace tessera
