#include "tessera/models/llama.h"

#include <math.h>

#include <cstring>
#include <initializer_list>

namespace tessera {

std::vector<float> llama_rope_table(uint32_t context, uint32_t head_size, float theta)
{
    std::vector<float> table(size_t(context) * head_size);
    for (uint32_t pos = 0; pos < context; ++pos) {
        for (uint32_t i = 0; i < head_size; i += 2) {
            // Exactly run.c's single-precision expressions, so the angles agree bit for bit.
            const float freq = 1.0f / powf(theta, float(i) / float(head_size));
            const float val = float(pos) * freq;
            table[(size_t(pos) * head_size / 2 + i / 2) * 2] = cosf(val);
            table[(size_t(pos) * head_size / 2 + i / 2) * 2 + 1] = sinf(val);
        }
    }
    return table;
}

namespace {

uint32_t float_bits(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

class Builder {
public:
    explicit Builder(Graph &g) : g_(g) {}

    uint32_t weight(const std::string &name, const std::vector<float> &all, uint64_t index, uint32_t rows, uint32_t cols,
                    uint32_t dtype = TSR_DTYPE_F32)
    {
        GraphTensor t;
        t.name = name;
        t.dtype = dtype;
        t.kind = TSR_TENSOR_WEIGHT;
        t.rows = rows;
        t.cols = cols;
        const uint64_t n = uint64_t(rows) * cols;
        t.data.assign(all.begin() + int64_t(index * n), all.begin() + int64_t(index * n + n));
        return g_.add(std::move(t));
    }
    uint32_t tensor(const std::string &name, uint32_t kind, uint32_t rows, uint32_t cols,
                    uint32_t dtype = TSR_DTYPE_F32)
    {
        GraphTensor t;
        t.name = name;
        t.kind = kind;
        t.rows = rows;
        t.cols = cols;
        t.dtype = dtype;
        return g_.add(std::move(t));
    }
    void step(GraphSchedule &s, uint16_t op, std::initializer_list<uint32_t> operands,
              std::initializer_list<uint32_t> params, std::string label, uint16_t layer = TSR_NO_LAYER,
              uint8_t flags = 0)
    {
        GraphStep st;
        st.op = op;
        st.engine = tsr_op_tile_kind(op) == TSR_TILE_MOVE ? TSR_ENGINE_DMA : TSR_ENGINE_CLUSTER;
        st.flags = flags;
        st.layer = layer;
        st.operands.fill(TSR_NO_TENSOR);
        for (uint32_t o : operands) st.operands[st.operand_count++] = o;
        size_t i = 0;
        for (uint32_t p : params) st.params[i++] = p;
        st.label = std::move(label);
        s.steps.push_back(std::move(st));
    }

private:
    Graph &g_;
};

struct LayerWeights {
    uint32_t rms_att, wq, wk, wv, wo, rms_ffn, w1, w2, w3;
};

} // namespace

Graph lower_llama(LlamaCheckpoint &&ck, const LlamaLowering &opt)
{
    const LlamaConfig &c = ck.config;
    LlamaWeights &w = ck.weights;
    Graph g;
    ModelHyper &h = g.hyper;
    h.dim = c.dim;
    h.hidden_dim = c.hidden_dim;
    h.n_layers = c.n_layers;
    h.n_heads = c.n_heads;
    h.n_kv_heads = c.n_kv_heads;
    h.vocab_size = c.vocab_size;
    h.seq_len = c.seq_len;
    h.context = opt.context;
    h.prompt_chunk = opt.prompt_chunk;
    h.shared_classifier = c.shared_classifier;
    h.prompt_logits_all = opt.prompt_logits_all;
    const uint32_t D = c.dim, KV = c.kv_dim(), H = c.hidden_dim, V = c.vocab_size, HS = c.head_size();
    const uint32_t C = opt.context, WT = opt.matmul_weights;

    Builder b(g);
    // Weights and the KV cache are shared by both schedules.
    const uint32_t emb = b.weight("token_embedding", w.token_embedding, 0, V, D);
    std::vector<LayerWeights> layers(c.n_layers);
    std::vector<uint32_t> k_cache(c.n_layers), v_cache(c.n_layers);
    for (uint32_t l = 0; l < c.n_layers; ++l) {
        const std::string p = "layer" + std::to_string(l) + ".";
        LayerWeights &lw = layers[l];
        lw.rms_att = b.weight(p + "rms_att", w.rms_att, l, 1, D);
        lw.wq = b.weight(p + "wq", w.wq, l, D, D, WT);
        lw.wk = b.weight(p + "wk", w.wk, l, KV, D, WT);
        lw.wv = b.weight(p + "wv", w.wv, l, KV, D, WT);
        lw.wo = b.weight(p + "wo", w.wo, l, D, D, WT);
        lw.rms_ffn = b.weight(p + "rms_ffn", w.rms_ffn, l, 1, D);
        lw.w1 = b.weight(p + "w1", w.w1, l, H, D, WT);
        lw.w2 = b.weight(p + "w2", w.w2, l, D, H, WT);
        lw.w3 = b.weight(p + "w3", w.w3, l, H, D, WT);
        k_cache[l] = b.tensor(p + "k_cache", TSR_TENSOR_KV_CACHE, C, KV);
        v_cache[l] = b.tensor(p + "v_cache", TSR_TENSOR_KV_CACHE, C, KV);
    }
    const uint32_t rms_final = b.weight("rms_final", w.rms_final, 0, 1, D);
    const uint32_t wcls = c.shared_classifier ? emb : b.weight("wcls", w.wcls, 0, V, D, WT);
    const uint32_t wcls_type = c.shared_classifier ? uint32_t(TSR_DTYPE_F32) : WT; // EMBED reads the shared table as F32
    const std::vector<float> rope = llama_rope_table(C, HS, h.rope_theta);
    const uint32_t rope_table = b.weight("rope_table", rope, 0, C, HS);
    w = LlamaWeights{}; // copied into the graph; free the checkpoint's arrays early
    g.sampler_scratch = b.tensor("sampler_scratch", TSR_TENSOR_SCRATCH, TSR_SAMPLER_BYTES_PER_TOKEN / 4u, V);

    const uint32_t eps = float_bits(h.norm_eps);
    auto lower = [&](GraphSchedule &s, uint32_t R, const char *suffix, uint32_t &tokens, uint32_t &logits) {
        s.max_rows = R;
        auto act = [&](const std::string &name, uint32_t cols) {
            return b.tensor(name + suffix, TSR_TENSOR_ACTIVATION, R, cols);
        };
        tokens = b.tensor(std::string("tokens") + suffix, TSR_TENSOR_IO, R, 1, TSR_DTYPE_I32);
        uint32_t x = act("x_embed", D);
        b.step(s, TSR_OP_EMBED, {tokens, emb, x}, {V, D}, "embed");
        for (uint32_t l = 0; l < c.n_layers; ++l) {
            const LayerWeights &lw = layers[l];
            const std::string p = "layer" + std::to_string(l) + ".";
            const uint16_t L = uint16_t(l);
            const uint32_t xb = act(p + "attn_norm", D), q = act(p + "q", D), k = act(p + "k", KV),
                           v = act(p + "v", KV), att = act(p + "attn", D), o = act(p + "attn_out", D),
                           x_att = act(p + "x_attn", D), xb2 = act(p + "ffn_norm", D), h1 = act(p + "ffn_gate", H),
                           h3 = act(p + "ffn_up", H), gl = act(p + "ffn_act", H), f = act(p + "ffn_out", D),
                           x_out = act(p + "x_out", D);
            b.step(s, TSR_OP_RMSNORM, {x, lw.rms_att, xb}, {D, eps}, p + "attn_norm", L);
            b.step(s, TSR_OP_MATMUL, {xb, lw.wq, q}, {D, D, WT}, p + "wq", L);
            b.step(s, TSR_OP_MATMUL, {xb, lw.wk, k}, {D, KV, WT}, p + "wk", L);
            b.step(s, TSR_OP_MATMUL, {xb, lw.wv, v}, {D, KV, WT}, p + "wv", L);
            b.step(s, TSR_OP_ROPE, {q, k, rope_table}, {D, KV, HS, C}, p + "rope", L);
            b.step(s, TSR_OP_KV_APPEND, {k, v, k_cache[l], v_cache[l]}, {KV, C}, p + "kv_append", L);
            // Operand 3 is the scores scratch the plan sizes for the cores it gives attention.
            b.step(s, TSR_OP_ATTENTION, {q, k_cache[l], v_cache[l], TSR_NO_TENSOR, att},
                   {c.n_heads, c.n_kv_heads, HS, C}, p + "attention", L);
            b.step(s, TSR_OP_MATMUL, {att, lw.wo, o}, {D, D, WT}, p + "wo", L);
            b.step(s, TSR_OP_ADD, {x, o, x_att}, {D}, p + "residual_attn", L);
            b.step(s, TSR_OP_RMSNORM, {x_att, lw.rms_ffn, xb2}, {D, eps}, p + "ffn_norm", L);
            b.step(s, TSR_OP_MATMUL, {xb2, lw.w1, h1}, {D, H, WT}, p + "w1", L);
            b.step(s, TSR_OP_MATMUL, {xb2, lw.w3, h3}, {D, H, WT}, p + "w3", L);
            b.step(s, TSR_OP_SWIGLU, {h1, h3, gl}, {H}, p + "swiglu", L);
            b.step(s, TSR_OP_MATMUL, {gl, lw.w2, f}, {H, D, WT}, p + "w2", L);
            b.step(s, TSR_OP_ADD, {x_att, f, x_out}, {D}, p + "residual_ffn", L);
            x = x_out;
        }
        // The classifier (vocab x dim per row) only where logits are read: a prompt
        // chunk's last row, unless every row's were asked for.
        const bool one_row = R > 1u && !opt.prompt_logits_all;
        const uint32_t out_rows = one_row ? 1u : R;
        if (one_row) {
            const uint32_t x_last = b.tensor(std::string("x_last") + suffix, TSR_TENSOR_ACTIVATION, 1, D);
            b.step(s, TSR_OP_LAST_ROW, {x, x_last}, {D}, "last_row");
            x = x_last;
        }
        const uint8_t flags = one_row ? TSR_STEP_ONE_ROW : 0u;
        const uint32_t xf = b.tensor(std::string("final_norm") + suffix, TSR_TENSOR_ACTIVATION, out_rows, D);
        logits = b.tensor(std::string("logits") + suffix, TSR_TENSOR_IO, out_rows, V);
        b.step(s, TSR_OP_RMSNORM, {x, rms_final, xf}, {D, eps}, "final_norm", TSR_NO_LAYER, flags);
        b.step(s, TSR_OP_MATMUL, {xf, wcls, logits}, {D, V, wcls_type}, "classifier", TSR_NO_LAYER, flags);
    };
    lower(g.prompt, opt.prompt_chunk, ".prompt", g.tokens_prompt, g.logits_prompt);
    lower(g.token, 1, ".token", g.tokens_token, g.logits_token);
    return g;
}

} // namespace tessera
