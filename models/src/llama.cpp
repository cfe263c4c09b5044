#include "tessera/models/llama.h"

#include <math.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <stdexcept>

#include "tessera/kernels_bf16.h" // tsr_bf16_from_f32: weights as the kernels read them
#include "tessera/kernels_i8.h"   // tsr_iexp_constants_for
#include "tessera/models/quantize.h"
#include "tessera/variants.h" // TSR_EMBED_*

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

std::vector<uint8_t> encode_weights(const float *values, size_t count, uint32_t dtype)
{
    std::vector<uint8_t> out(count * tsr_dtype_bytes(dtype));
    for (size_t j = 0; j < count; ++j) {
        if (dtype == TSR_DTYPE_BF16) {
            const tsr_bf16 v = tsr_bf16_from_f32(values[j]);
            std::memcpy(out.data() + 2 * j, &v, 2);
        } else if (dtype == TSR_DTYPE_F32) {
            std::memcpy(out.data() + 4 * j, &values[j], 4);
        } else {
            throw std::invalid_argument("encode_weights: F32 or BF16 only");
        }
    }
    return out;
}

namespace {

class Builder {
public:
    explicit Builder(Graph &g) : g_(g) {}

    uint32_t raw(const std::string &name, uint32_t dtype, uint32_t rows, uint32_t cols, std::vector<uint8_t> bytes)
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
    uint32_t weight(const std::string &name, const float *values, uint32_t rows, uint32_t cols, uint32_t dtype)
    {
        return raw(name, dtype, rows, cols, encode_weights(values, size_t(rows) * cols, dtype));
    }
    uint32_t tensor(const std::string &name, uint32_t kind, uint32_t rows, uint32_t cols, uint32_t dtype)
    {
        GraphTensor t;
        t.name = name;
        t.kind = kind;
        t.rows = rows;
        t.cols = cols;
        t.dtype = dtype;
        return g_.add(std::move(t));
    }
    GraphTensor &at(uint32_t id) { return g_.tensors[id]; }
    void step(GraphSchedule &s, uint16_t op, uint8_t dtype, std::initializer_list<uint32_t> operands,
              const tsr_op_params &params, std::string label, uint16_t layer = TSR_NO_LAYER, uint8_t flags = 0)
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

private:
    Graph &g_;
};

// A matmul's weights as the precision stores them: the tensor and its element type
// (int8: its per-channel scales are the tensor's quant_params).
struct Linear {
    uint32_t w = 0, dtype = TSR_DTYPE_F32;
    uint32_t bits = 0; // 4: W4A8's grouped 4-bit weights
};

struct LayerWeights {
    uint32_t rms_att, rms_ffn, k_cache, v_cache;
    Linear wq, wk, wv, wo, w1, w2, w3;
    Linear wqkv, w13; // LlamaLowering::fuse_linears: wq, wk, wv's rows stacked; w1's and w3's
};

// Layer l's rows of several matrices, one matrix's after another's: the weights of one
// matmul step for several outputs.
std::vector<float> stacked(std::initializer_list<std::pair<const std::vector<float> *, uint32_t>> parts, uint32_t l,
                           uint32_t cols)
{
    std::vector<float> out;
    for (const auto &[all, rows] : parts) {
        const float *v = all->data() + size_t(l) * rows * cols;
        out.insert(out.end(), v, v + size_t(rows) * cols);
    }
    return out;
}

tsr_op_params params() { return tsr_op_params{}; }

// Llama's architecture as a graph: its weights in the precision's element types, its
// two schedules. The steps carry the architecture's parameters; an int8 step's
// factors follow from its operands' scales (the packer's derive_params).
class LlamaLowerer {
public:
    LlamaLowerer(const LlamaConfig &c, const LlamaLowering &opt, Graph &g)
        : c_(c), opt_(opt), g_(g), b_(g), i8_(opt.precision == TSR_DTYPE_I8), bf16_(opt.precision == TSR_DTYPE_BF16),
          AT_(opt.precision), WT_(i8_ ? TSR_DTYPE_I8 : bf16_ ? TSR_DTYPE_BF16 : opt.matmul_weights)
    {
        if (opt.precision != TSR_DTYPE_F32 && !i8_ && !bf16_)
            throw std::invalid_argument("lower_llama: precision F32, BF16 or I8");
        if (i8_ && !opt.ranges) throw std::invalid_argument("lower_llama: int8 needs calibrated ranges");
    }

    void hyper()
    {
        ModelHyper &h = g_.hyper;
        h.dim = c_.dim;
        h.hidden_dim = c_.hidden_dim;
        h.n_layers = c_.n_layers;
        h.n_heads = c_.n_heads;
        h.n_kv_heads = c_.n_kv_heads;
        h.vocab_size = c_.vocab_size;
        h.seq_len = c_.seq_len;
        h.context = opt_.context;
        h.prompt_chunk = opt_.prompt_chunk;
        h.shared_classifier = c_.shared_classifier;
        h.rope_theta = c_.rope_theta;
        h.norm_eps = c_.norm_eps;
        h.prompt_logits_all = opt_.prompt_logits_all;
        h.precision = opt_.precision;
    }

    // Weights and the KV caches, shared by both schedules (lower_llama frees the checkpoint's
    // arrays after this when it owns them).
    void weights(const LlamaWeights &w)
    {
        const uint32_t D = c_.dim, KV = c_.kv_dim(), H = c_.hidden_dim, V = c_.vocab_size, C = opt_.context;
        share_ = i8_ && c_.shared_classifier && opt_.shared_table_bits != 0;
        if (share_) { // the classifier's table, read by the embedding too: its rows at the per-tensor scale
            emb_scale_ = int8_scale(absmax(w.token_embedding.data(), size_t(V) * D));
            wcls_ = opt_.shared_table_bits == 4u ? w4_linear("token_embedding", w.token_embedding.data(), V, D)
                                                 : linear("token_embedding", w.token_embedding, 0, V, D, 8, false);
            emb_ = wcls_.w;
        } else {
            emb_ = i8_ ? int8_weight("token_embedding", w.token_embedding.data(), V, D)
                       : b_.weight("token_embedding", w.token_embedding.data(), V, D, AT_);
            emb_scale_ = i8_ ? b_.at(emb_).scale : 1.0;
        }
        layers_.resize(c_.n_layers);
        for (uint32_t l = 0; l < c_.n_layers; ++l) {
            const std::string p = "layer" + std::to_string(l) + ".";
            LayerWeights &lw = layers_[l];
            lw.rms_att = gain(p + "rms_att", w.rms_att.data() + size_t(l) * D);
            if (opt_.fuse_linears) {
                lw.wqkv = linear(p + "wqkv", stacked({{&w.wq, D}, {&w.wk, KV}, {&w.wv, KV}}, l, D), 0, D + 2 * KV, D,
                                 opt_.linear_bits);
            } else {
                lw.wq = linear(p + "wq", w.wq, l, D, D, opt_.linear_bits);
                lw.wk = linear(p + "wk", w.wk, l, KV, D, opt_.linear_bits);
                lw.wv = linear(p + "wv", w.wv, l, KV, D, opt_.linear_bits);
            }
            lw.wo = linear(p + "wo", w.wo, l, D, D, opt_.linear_bits);
            lw.rms_ffn = gain(p + "rms_ffn", w.rms_ffn.data() + size_t(l) * D);
            if (opt_.fuse_linears) {
                lw.w13 = linear(p + "w13", stacked({{&w.w1, H}, {&w.w3, H}}, l, D), 0, 2 * H, D, opt_.linear_bits);
            } else {
                lw.w1 = linear(p + "w1", w.w1, l, H, D, opt_.linear_bits);
                lw.w3 = linear(p + "w3", w.w3, l, H, D, opt_.linear_bits);
            }
            lw.w2 = linear(p + "w2", w.w2, l, D, H, opt_.linear_bits);
            lw.k_cache = b_.tensor(p + "k_cache", TSR_TENSOR_KV_CACHE, C, KV, AT_);
            lw.v_cache = b_.tensor(p + "v_cache", TSR_TENSOR_KV_CACHE, C, KV, AT_);
            if (i8_) {
                set_scale(lw.k_cache, act_scale(p + "k"));
                set_scale(lw.v_cache, act_scale(p + "v"));
            }
        }
        rms_final_ = gain("rms_final", w.rms_final.data());
        // The classifier: an embedding shared with it is read as the embedding's type (F32
        // images), or stored again as the classifier wants it (BF16: the same; I8: per channel).
        if (c_.shared_classifier && !i8_) wcls_ = Linear{emb_, AT_};
        else if (!share_) wcls_ = linear("wcls", c_.shared_classifier ? w.token_embedding : w.wcls, 0, V, D, 8, false); // 8-bit logits
        const std::vector<float> rope = llama_rope_table(C, c_.head_size(), c_.rope_theta);
        if (i8_) { // Q14
            std::vector<int16_t> q(rope.size());
            for (size_t j = 0; j < q.size(); ++j) q[j] = int16_t(std::lround(double(rope[j]) * 16384.0));
            rope_table_ = b_.raw("rope_table", TSR_DTYPE_I16, C, c_.head_size(), raw_bytes(q));
        } else {
            rope_table_ = b_.weight("rope_table", rope.data(), C, c_.head_size(), TSR_DTYPE_F32);
        }
        g_.sampler_scratch = b_.tensor("sampler_scratch", TSR_TENSOR_SCRATCH, TSR_SAMPLER_BYTES_PER_TOKEN / 4u, V,
                                       TSR_DTYPE_F32);
    }

    // One schedule of R rows: embedding, the decoder layers, the classifier.
    void schedule(GraphSchedule &s, uint32_t R, const char *suffix, uint32_t &tokens, uint32_t &logits)
    {
        const uint32_t D = c_.dim, KV = c_.kv_dim(), H = c_.hidden_dim, V = c_.vocab_size;
        s.max_rows = R;
        auto act = [&](const std::string &name, uint32_t cols, uint32_t rows = 0) {
            return activation(name + suffix, rows ? rows : R, cols, name);
        };
        auto op = [&](uint16_t o, std::initializer_list<uint32_t> operands, const tsr_op_params &p, std::string label,
                      uint16_t layer = TSR_NO_LAYER, uint8_t flags = 0) {
            b_.step(s, o, uint8_t(AT_), operands, p, std::move(label), layer, flags);
        };
        tokens = b_.tensor(std::string("tokens") + suffix, TSR_TENSOR_IO, R, 1, TSR_DTYPE_I32);
        uint32_t x = act("x_embed", D); // its rows are the table's: the table's (per-tensor) scale
        if (i8_) b_.at(x).scale = emb_scale_;
        tsr_op_params pe = params();
        pe.embed = {V, D, share_ ? (wcls_.bits == 4u ? TSR_EMBED_W4_ROWS : TSR_EMBED_I8_ROWS) : 0u, 0u};
        op(TSR_OP_EMBED, {tokens, emb_, x}, pe, "embed");
        for (uint32_t l = 0; l < c_.n_layers; ++l) {
            const LayerWeights &lw = layers_[l];
            const std::string p = "layer" + std::to_string(l) + ".";
            const uint16_t L = uint16_t(l);
            const uint32_t xb = act(p + "attn_norm", D), q = act(p + "q", D), k = act(p + "k", KV),
                           v = act(p + "v", KV), att = act(p + "attn", D), o = act(p + "attn_out", D),
                           x_att = act(p + "x_attn", D), xb2 = act(p + "ffn_norm", D), h1 = act(p + "ffn_gate", H),
                           h3 = act(p + "ffn_up", H), gl = act(p + "ffn_act", H), f = act(p + "ffn_out", D),
                           x_out = act(p + "x_out", D);
            op(TSR_OP_RMSNORM, {x, lw.rms_att, xb}, rmsnorm(), p + "attn_norm", L);
            if (opt_.fuse_linears) {
                op(TSR_OP_MATMUL, {xb, lw.wqkv.w, q, k, v}, matmul(lw.wqkv, D, D + 2 * KV, false, D, KV), p + "wqkv", L);
            } else {
                op(TSR_OP_MATMUL, {xb, lw.wq.w, q}, matmul(lw.wq, D, D), p + "wq", L);
                op(TSR_OP_MATMUL, {xb, lw.wk.w, k}, matmul(lw.wk, D, KV), p + "wk", L);
                op(TSR_OP_MATMUL, {xb, lw.wv.w, v}, matmul(lw.wv, D, KV), p + "wv", L);
            }
            op(TSR_OP_ROPE, {q, k, rope_table_}, rope(), p + "rope", L);
            op(TSR_OP_KV_APPEND, {k, v, lw.k_cache, lw.v_cache}, kv_append(), p + "kv_append", L);
            // Operand 3 is the scores scratch the plan sizes for the cores it gives attention.
            op(TSR_OP_ATTENTION, {q, lw.k_cache, lw.v_cache, TSR_NO_TENSOR, att}, attention(), p + "attention", L);
            if (i8_ && opt_.nonlinear == TSR_NONLINEAR_INTEGER) // its scores are requantized to their own scale
                s.steps.back().inner_scale = act_scale(p + "attention.scores");
            op(TSR_OP_MATMUL, {att, lw.wo.w, o}, matmul(lw.wo, D, D), p + "wo", L);
            op(TSR_OP_ADD, {x, o, x_att}, add(), p + "residual_attn", L);
            op(TSR_OP_RMSNORM, {x_att, lw.rms_ffn, xb2}, rmsnorm(), p + "ffn_norm", L);
            if (opt_.fuse_linears) {
                op(TSR_OP_MATMUL, {xb2, lw.w13.w, h1, h3}, matmul(lw.w13, D, 2 * H, false, H), p + "w13", L);
            } else {
                op(TSR_OP_MATMUL, {xb2, lw.w1.w, h1}, matmul(lw.w1, D, H), p + "w1", L);
                op(TSR_OP_MATMUL, {xb2, lw.w3.w, h3}, matmul(lw.w3, D, H), p + "w3", L);
            }
            op(TSR_OP_SWIGLU, {h1, h3, gl}, swiglu(), p + "swiglu", L);
            op(TSR_OP_MATMUL, {gl, lw.w2.w, f}, matmul(lw.w2, H, D), p + "w2", L);
            op(TSR_OP_ADD, {x_att, f, x_out}, add(), p + "residual_ffn", L);
            x = x_out;
        }
        // The classifier (vocab x dim per row) only where logits are read: a prompt
        // chunk's last row, unless every row's were asked for.
        const bool one_row = R > 1u && !opt_.prompt_logits_all;
        const uint32_t out_rows = one_row ? 1u : R;
        if (one_row) {
            const uint32_t x_last = activation(std::string("x_last") + suffix, 1, D, "");
            if (i8_) b_.at(x_last).scale = b_.at(x).scale; // the same values
            tsr_op_params pl = params();
            pl.last_row.n = D;
            op(TSR_OP_LAST_ROW, {x, x_last}, pl, "last_row");
            x = x_last;
        }
        const uint8_t flags = one_row ? TSR_STEP_ONE_ROW : 0u;
        const uint32_t xf = act("final_norm", D, out_rows);
        logits = b_.tensor(std::string("logits") + suffix, TSR_TENSOR_IO, out_rows, V, TSR_DTYPE_F32);
        op(TSR_OP_RMSNORM, {x, rms_final_, xf}, rmsnorm(), "final_norm", TSR_NO_LAYER, flags);
        op(TSR_OP_MATMUL, {xf, wcls_.w, logits}, matmul(wcls_, D, V, true), "classifier", TSR_NO_LAYER, flags);
    }

private:
    // An int8 activation's scale: its calibrated range (names without the schedule suffix).
    double act_scale(const std::string &name) const
    {
        const auto it = opt_.ranges->find(name);
        if (it == opt_.ranges->end()) throw std::invalid_argument("calibration has no range for " + name);
        return int8_scale(it->second);
    }
    void set_scale(uint32_t id, double scale)
    {
        b_.at(id).quant = TSR_QUANT_PER_TENSOR;
        b_.at(id).scale = scale;
    }
    // An activation; int8: with the calibrated scale of `scale_name` (none: set by the caller).
    uint32_t activation(const std::string &name, uint32_t rows, uint32_t cols, const std::string &scale_name)
    {
        const uint32_t id = b_.tensor(name, TSR_TENSOR_ACTIVATION, rows, cols, AT_);
        if (i8_) set_scale(id, scale_name.empty() ? 1.0 : act_scale(scale_name));
        return id;
    }
    // A matmul's weights; int8: per channel in `bits`, or W4A8's groups where asked and `w4`.
    Linear linear(const std::string &name, const std::vector<float> &all, uint32_t l, uint32_t rows, uint32_t cols,
                  uint32_t bits, bool w4 = true)
    {
        const float *v = all.data() + size_t(l) * rows * cols;
        if (!i8_) return Linear{b_.weight(name, v, rows, cols, WT_), WT_};
        if (opt_.w4_groups && w4) return w4_linear(name, v, rows, cols);
        QuantizedRows q = quantize_rows(v, rows, cols, bits);
        const Linear out{b_.raw(name, TSR_DTYPE_I8, rows, cols, raw_bytes(q.q)), TSR_DTYPE_I8};
        const uint32_t scales = b_.raw(name + ".scales", TSR_DTYPE_F32, 1, rows, raw_bytes(q.scales));
        b_.at(out.w).quant = TSR_QUANT_PER_CHANNEL; // (after adding the scales: that may move the tensors)
        b_.at(out.w).quant_params = scales;
        return out;
    }
    // W4A8's weights: 4-bit in groups of 32, in the kernel's rows (layout W4_G32).
    Linear w4_linear(const std::string &name, const float *v, uint32_t rows, uint32_t cols)
    {
        W4Rows q = quantize_w4_groups(v, rows, cols);
        const uint64_t bytes = q.bytes.size();
        const Linear out{b_.raw(name, TSR_DTYPE_I8, rows, cols, std::move(q.bytes)), TSR_DTYPE_I8, 4u};
        const uint32_t scales = b_.raw(name + ".scales", TSR_DTYPE_F32, 1, rows, raw_bytes(q.scales));
        GraphTensor &t = b_.at(out.w); // (after adding the scales: that may move the tensors)
        t.bytes = bytes;               // n rows of tsr_w4_row_bytes(k), not n x k
        t.layout = TSR_LAYOUT_W4_G32;
        t.quant = TSR_QUANT_PER_CHANNEL;
        t.quant_params = scales;
        return out;
    }
    // A per-tensor int8 weight (gains, the embedding table).
    uint32_t int8_weight(const std::string &name, const float *v, uint32_t rows, uint32_t cols)
    {
        const double scale = int8_scale(absmax(v, size_t(rows) * cols));
        std::vector<int8_t> q(size_t(rows) * cols);
        for (size_t j = 0; j < q.size(); ++j) q[j] = quantize_value(v[j], scale);
        const uint32_t id = b_.raw(name, TSR_DTYPE_I8, rows, cols, raw_bytes(q));
        set_scale(id, scale);
        return id;
    }
    // An RMSNorm gain vector (dim).
    uint32_t gain(const std::string &name, const float *v)
    {
        return i8_ ? int8_weight(name, v, 1, c_.dim) : b_.weight(name, v, 1, c_.dim, AT_);
    }

    // The steps' architectural parameters; which non-linearities (bf16's exponential,
    // int8's arithmetic) is the variant's.
    uint32_t arithmetic() const { return bf16_ ? opt_.exp : i8_ ? opt_.nonlinear : 0u; }
    tsr_op_params rmsnorm() const
    {
        tsr_op_params p = params();
        p.rmsnorm.dim = c_.dim;
        p.rmsnorm.eps = c_.norm_eps;
        p.rmsnorm.nonlinear = i8_ ? opt_.nonlinear : 0u;
        return p;
    }
    // split0, split1: the columns of the first outputs of a step for several (tsr_matmul_params.split).
    tsr_op_params matmul(const Linear &lin, uint32_t k, uint32_t n, bool f32_out = false, uint32_t split0 = 0,
                         uint32_t split1 = 0) const
    {
        tsr_op_params p = params();
        p.matmul = {k, n, lin.dtype, f32_out ? uint32_t(TSR_DTYPE_F32) : AT_, 0, 0, 0, lin.bits};
        p.matmul.split[0] = split0;
        p.matmul.split[1] = split1;
        return p;
    }
    tsr_op_params rope() const
    {
        tsr_op_params p = params();
        p.rope = {c_.dim, c_.kv_dim(), c_.head_size(), opt_.context};
        return p;
    }
    tsr_op_params kv_append() const
    {
        tsr_op_params p = params();
        p.kv_append = {c_.kv_dim(), opt_.context};
        return p;
    }
    tsr_op_params attention() const
    {
        tsr_op_params p = params();
        p.attention = {c_.n_heads, c_.n_kv_heads, c_.head_size(), opt_.context, arithmetic(), {}, {}, {}, 0, 0};
        return p;
    }
    tsr_op_params add() const
    {
        tsr_op_params p = params();
        p.add.n = c_.dim;
        return p;
    }
    tsr_op_params swiglu() const
    {
        tsr_op_params p = params();
        p.swiglu.n = c_.hidden_dim;
        p.swiglu.exp = arithmetic();
        return p;
    }

    const LlamaConfig &c_;
    const LlamaLowering &opt_;
    Graph &g_;
    Builder b_;
    const bool i8_, bf16_;
    const uint32_t AT_, WT_; // the activations' (and other weights') element type; the matmul weights'
    uint32_t emb_ = 0, rms_final_ = 0, rope_table_ = 0;
    bool share_ = false;     // one table for the embedding and the classifier (int8)
    double emb_scale_ = 1.0; // I8: the embedding's output scale
    Linear wcls_;
    std::vector<LayerWeights> layers_;
};

} // namespace

namespace {
// `release`, when given, runs once the weights are in the graph (before the schedules).
template <typename Release> Graph lower(const LlamaCheckpoint &ck, const LlamaLowering &opt, Release release)
{
    Graph g;
    LlamaLowerer lower(ck.config, opt, g);
    lower.hyper();
    lower.weights(ck.weights);
    release();
    lower.schedule(g.prompt, opt.prompt_chunk, ".prompt", g.tokens_prompt, g.logits_prompt);
    lower.schedule(g.token, 1, ".token", g.tokens_token, g.logits_token);
    return g;
}
} // namespace

Graph lower_llama(LlamaCheckpoint &&ck, const LlamaLowering &opt)
{
    return lower(ck, opt, [&ck] { ck.weights = LlamaWeights{}; });
}

Graph lower_llama(const LlamaCheckpoint &ck, const LlamaLowering &opt)
{
    return lower(ck, opt, [] {});
}

} // namespace tessera
