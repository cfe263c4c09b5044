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

// A matmul's weights as the precision stores them: the tensor, its element type and,
// for int8, the per-channel scales.
struct Linear {
    uint32_t w = 0, dtype = TSR_DTYPE_F32;
    std::vector<float> scales; // I8: per output channel
};

struct LayerWeights {
    uint32_t rms_att, rms_ffn;
    double rms_att_scale = 1, rms_ffn_scale = 1; // I8 gains
    Linear wq, wk, wv, wo, w1, w2, w3;
};

tsr_op_params params() { return tsr_op_params{}; }

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
    h.rope_theta = c.rope_theta;
    h.norm_eps = c.norm_eps;
    h.prompt_logits_all = opt.prompt_logits_all;
    const uint32_t P = opt.precision;
    const bool i8 = P == TSR_DTYPE_I8, bf16 = P == TSR_DTYPE_BF16;
    if (P != TSR_DTYPE_F32 && !i8 && !bf16) throw std::invalid_argument("lower_llama: precision F32, BF16 or I8");
    if (i8 && !opt.ranges) throw std::invalid_argument("lower_llama: int8 needs calibrated ranges");
    h.precision = P;
    const uint32_t D = c.dim, KV = c.kv_dim(), H = c.hidden_dim, V = c.vocab_size, HS = c.head_size();
    const uint32_t C = opt.context;
    const uint32_t WT = i8 ? TSR_DTYPE_I8 : bf16 ? TSR_DTYPE_BF16 : opt.matmul_weights; // matmul weights
    const uint32_t AT = P;                                                          // other weights and activations

    // Activation scales (I8), by name without the schedule suffix.
    auto range = [&](const std::string &name) {
        const auto it = opt.ranges->find(name);
        if (it == opt.ranges->end()) throw std::invalid_argument("calibration has no range for " + name);
        return it->second;
    };
    auto act_scale = [&](const std::string &name) { return int8_scale(range(name)); };

    Builder b(g);
    auto linear = [&](const std::string &name, const std::vector<float> &all, uint32_t l, uint32_t rows, uint32_t cols,
                      uint32_t bits) {
        Linear out;
        const float *v = all.data() + size_t(l) * rows * cols;
        out.dtype = WT;
        if (!i8) {
            out.w = b.weight(name, v, rows, cols, WT);
            return out;
        }
        QuantizedRows q = quantize_rows(v, rows, cols, bits);
        out.w = b.raw(name, TSR_DTYPE_I8, rows, cols, raw_bytes(q.q));
        const uint32_t scales = b.raw(name + ".scales", TSR_DTYPE_F32, 1, rows, raw_bytes(q.scales));
        GraphTensor &t = b.at(out.w);
        t.quant = TSR_QUANT_PER_CHANNEL;
        t.quant_params = scales;
        out.scales = std::move(q.scales);
        return out;
    };
    // A per-tensor int8 weight (gains, the embedding table).
    auto int8_weight = [&](const std::string &name, const float *v, uint32_t rows, uint32_t cols, double &scale) {
        scale = int8_scale(absmax(v, size_t(rows) * cols));
        std::vector<int8_t> q(size_t(rows) * cols);
        for (size_t j = 0; j < q.size(); ++j) q[j] = quantize_value(v[j], scale);
        const uint32_t id = b.raw(name, TSR_DTYPE_I8, rows, cols, raw_bytes(q));
        b.at(id).quant = TSR_QUANT_PER_TENSOR;
        b.at(id).scale = scale;
        return id;
    };

    // Weights and the KV cache are shared by both schedules.
    double emb_scale = 1;
    const uint32_t emb = i8 ? int8_weight("token_embedding", w.token_embedding.data(), V, D, emb_scale)
                            : b.weight("token_embedding", w.token_embedding.data(), V, D, AT);
    std::vector<LayerWeights> layers(c.n_layers);
    std::vector<uint32_t> k_cache(c.n_layers), v_cache(c.n_layers);
    for (uint32_t l = 0; l < c.n_layers; ++l) {
        const std::string p = "layer" + std::to_string(l) + ".";
        LayerWeights &lw = layers[l];
        const float *ra = w.rms_att.data() + size_t(l) * D, *rf = w.rms_ffn.data() + size_t(l) * D;
        lw.rms_att = i8 ? int8_weight(p + "rms_att", ra, 1, D, lw.rms_att_scale) : b.weight(p + "rms_att", ra, 1, D, AT);
        lw.wq = linear(p + "wq", w.wq, l, D, D, opt.linear_bits);
        lw.wk = linear(p + "wk", w.wk, l, KV, D, opt.linear_bits);
        lw.wv = linear(p + "wv", w.wv, l, KV, D, opt.linear_bits);
        lw.wo = linear(p + "wo", w.wo, l, D, D, opt.linear_bits);
        lw.rms_ffn = i8 ? int8_weight(p + "rms_ffn", rf, 1, D, lw.rms_ffn_scale) : b.weight(p + "rms_ffn", rf, 1, D, AT);
        lw.w1 = linear(p + "w1", w.w1, l, H, D, opt.linear_bits);
        lw.w2 = linear(p + "w2", w.w2, l, D, H, opt.linear_bits);
        lw.w3 = linear(p + "w3", w.w3, l, H, D, opt.linear_bits);
        k_cache[l] = b.tensor(p + "k_cache", TSR_TENSOR_KV_CACHE, C, KV, AT);
        v_cache[l] = b.tensor(p + "v_cache", TSR_TENSOR_KV_CACHE, C, KV, AT);
        if (i8) {
            b.at(k_cache[l]).quant = b.at(v_cache[l]).quant = TSR_QUANT_PER_TENSOR;
            b.at(k_cache[l]).scale = act_scale(p + "k");
            b.at(v_cache[l]).scale = act_scale(p + "v");
        }
    }
    double rms_final_scale = 1;
    const uint32_t rms_final = i8 ? int8_weight("rms_final", w.rms_final.data(), 1, D, rms_final_scale)
                                  : b.weight("rms_final", w.rms_final.data(), 1, D, AT);
    // The classifier: an embedding shared with it is read as the embedding's type (F32
    // images), or stored again as the classifier wants it (BF16: the same; I8: per channel).
    Linear wcls;
    if (c.shared_classifier && !i8) {
        wcls.w = emb;
        wcls.dtype = AT;
    } else {
        wcls = linear("wcls", c.shared_classifier ? w.token_embedding : w.wcls, 0, V, D, 8); // the logits keep 8 bits
    }
    const std::vector<float> rope = llama_rope_table(C, HS, h.rope_theta);
    uint32_t rope_table;
    if (i8) { // Q14
        std::vector<int16_t> q(rope.size());
        for (size_t j = 0; j < q.size(); ++j) q[j] = int16_t(std::lround(double(rope[j]) * 16384.0));
        rope_table = b.raw("rope_table", TSR_DTYPE_I16, C, HS, raw_bytes(q));
    } else {
        rope_table = b.weight("rope_table", rope.data(), C, HS, TSR_DTYPE_F32);
    }
    w = LlamaWeights{}; // copied into the graph; free the checkpoint's arrays early
    g.sampler_scratch = b.tensor("sampler_scratch", TSR_TENSOR_SCRATCH, TSR_SAMPLER_BYTES_PER_TOKEN / 4u, V, TSR_DTYPE_F32);

    // ---- the steps' parameters per precision ----
    auto rmsnorm = [&](const std::string &x, double gain_scale, const std::string &y) {
        tsr_op_params p = params();
        p.rmsnorm.dim = D;
        p.rmsnorm.eps = h.norm_eps;
        if (!i8) return p;
        const double sx = act_scale(x), sy = act_scale(y);
        p.rmsnorm.nonlinear = opt.nonlinear;
        if (opt.nonlinear == TSR_NONLINEAR_FLOAT) {
            p.rmsnorm.eps = float(h.norm_eps / (sx * sx));
            p.rmsnorm.out_scale = float(gain_scale / sy);
            return p;
        }
        p.rmsnorm.eps_q8 = uint32_t(std::min<double>(std::llround(256.0 * h.norm_eps / (sx * sx)), 1 << 24));
        const double gain = 16.0 * gain_scale / sy;
        int shift = 0;
        while (shift < 30 && std::llround(std::ldexp(gain, shift)) < (1 << 14)) ++shift;
        const long long gq = std::llround(std::ldexp(gain, shift));
        if (gq < (1 << 14) || gq >= (1 << 15))
            throw std::range_error(y + ": RMSNorm gain " + std::to_string(gain) + " has no int8 form");
        p.rmsnorm.gain = int32_t(gq);
        p.rmsnorm.gain_shift = shift;
        return p;
    };
    // The requantization table of an int8 matmul: n multipliers (int32), n shifts (int8).
    auto requant_table = [&](const std::string &name, const Linear &lin, double sx, double sy) {
        const uint32_t n = uint32_t(lin.scales.size());
        std::vector<uint8_t> bytes(size_t(n) * 5);
        for (uint32_t i = 0; i < n; ++i) {
            const tsr_requant_params r = requant_factor(sx * lin.scales[i] / sy, name);
            std::memcpy(bytes.data() + 4 * size_t(i), &r.multiplier, 4);
            bytes[4 * size_t(n) + i] = uint8_t(int8_t(r.shift));
        }
        return b.raw(name + ".requant", TSR_DTYPE_I32, 1, (n * 5 + 3) / 4, std::move(bytes));
    };
    auto matmul = [&](const Linear &lin, uint32_t k, uint32_t n, const std::string &x, const std::string &y,
                      bool f32_out = false) {
        tsr_op_params p = params();
        p.matmul.k = k;
        p.matmul.n = n;
        p.matmul.weight_dtype = lin.dtype;
        p.matmul.out_dtype = f32_out ? uint32_t(TSR_DTYPE_F32) : AT;
        if (!i8) return p;
        const double sx = act_scale(x);
        if (f32_out) {
            std::vector<float> f(n);
            for (uint32_t i = 0; i < n; ++i) f[i] = float(sx * lin.scales[i]);
            p.matmul.requant = b.raw(y + ".dequant", TSR_DTYPE_F32, 1, n, raw_bytes(f));
        } else {
            p.matmul.requant = requant_table(y, lin, sx, act_scale(y));
        }
        return p;
    };
    auto iexp = [&](double scale, const std::string &what) {
        tsr_iexp_constants k;
        if (!tsr_iexp_constants_for(scale, &k))
            throw std::range_error(what + ": scale " + std::to_string(scale) + " outside the integer exponential's [2^-11, 16)");
        return tsr_iexp_params{k.shift, k.ln2, k.b, k.c};
    };
    auto attention = [&](const std::string &pfx) {
        tsr_op_params p = params();
        p.attention = {c.n_heads, c.n_kv_heads, HS, C, bf16 ? opt.exp : i8 ? opt.nonlinear : 0u, {}, {}, {}, 0, 0};
        if (!i8) return p;
        const double sq = act_scale(pfx + "q"), sk = act_scale(pfx + "k"), sv = act_scale(pfx + "v"),
                     so = act_scale(pfx + "attn"), real = sq * sk / std::sqrt(double(HS));
        if (opt.nonlinear == TSR_NONLINEAR_FLOAT) {
            p.attention.score_scale = float(real);
            p.attention.out_scale = float(sv / so);
            return p;
        }
        const double ss = act_scale(pfx + "attention.scores");
        p.attention.scores = requant_factor(real / ss, pfx + "attention scores");
        p.attention.softmax = iexp(ss, pfx + "attention scores");
        p.attention.out = requant_factor(sv / (4096.0 * so), pfx + "attention output");
        return p;
    };
    auto add = [&](const std::string &a, const std::string &bb, const std::string &y) {
        tsr_op_params p = params();
        p.add.n = D;
        if (!i8) return p;
        p.add.a = requant_factor(act_scale(a) / act_scale(y), y);
        p.add.b = requant_factor(act_scale(bb) / act_scale(y), y);
        return p;
    };
    auto swiglu = [&](const std::string &pfx) {
        tsr_op_params p = params();
        p.swiglu.n = H;
        p.swiglu.exp = bf16 ? opt.exp : i8 ? opt.nonlinear : 0u;
        if (!i8) return p;
        const double sg = act_scale(pfx + "ffn_gate"), su = act_scale(pfx + "ffn_up"), sy = act_scale(pfx + "ffn_act");
        if (opt.nonlinear == TSR_NONLINEAR_FLOAT) {
            p.swiglu.gate_scale = float(sg);
            p.swiglu.out_scale = float(sg * su / sy);
            return p;
        }
        p.swiglu.sigmoid = iexp(sg, pfx + "ffn_gate");
        p.swiglu.out = requant_factor(sg * su / (16.0 * sy), pfx + "swiglu");
        return p;
    };

    auto lower = [&](GraphSchedule &s, uint32_t R, const char *suffix, uint32_t &tokens, uint32_t &logits) {
        s.max_rows = R;
        // An activation named `name` (plus the schedule's suffix), with its calibrated scale.
        auto act = [&](const std::string &name, uint32_t cols, const std::string &scale_of = "", uint32_t rows = 0) {
            const uint32_t id = b.tensor(name + suffix, TSR_TENSOR_ACTIVATION, rows ? rows : R, cols, AT);
            if (i8) {
                b.at(id).quant = TSR_QUANT_PER_TENSOR;
                b.at(id).scale = scale_of == "=embedding" ? emb_scale : act_scale(scale_of.empty() ? name : scale_of);
            }
            return id;
        };
        auto op = [&](uint16_t o, std::initializer_list<uint32_t> operands, const tsr_op_params &p, std::string label,
                      uint16_t layer = TSR_NO_LAYER, uint8_t flags = 0) {
            b.step(s, o, uint8_t(AT), operands, p, std::move(label), layer, flags);
        };
        tokens = b.tensor(std::string("tokens") + suffix, TSR_TENSOR_IO, R, 1, TSR_DTYPE_I32);
        uint32_t x = act("x_embed", D, "=embedding");
        std::string x_name = "x_embed"; // the residual stream's current tensor (scales by name)
        tsr_op_params pe = params();
        pe.embed = {V, D};
        op(TSR_OP_EMBED, {tokens, emb, x}, pe, "embed");
        for (uint32_t l = 0; l < c.n_layers; ++l) {
            const LayerWeights &lw = layers[l];
            const std::string p = "layer" + std::to_string(l) + ".";
            const uint16_t L = uint16_t(l);
            const uint32_t xb = act(p + "attn_norm", D), q = act(p + "q", D), k = act(p + "k", KV),
                           v = act(p + "v", KV), att = act(p + "attn", D), o = act(p + "attn_out", D),
                           x_att = act(p + "x_attn", D), xb2 = act(p + "ffn_norm", D), h1 = act(p + "ffn_gate", H),
                           h3 = act(p + "ffn_up", H), gl = act(p + "ffn_act", H), f = act(p + "ffn_out", D),
                           x_out = act(p + "x_out", D);
            tsr_op_params pr = params(), pk = params();
            pr.rope = {D, KV, HS, C};
            pk.kv_append = {KV, C};
            op(TSR_OP_RMSNORM, {x, lw.rms_att, xb}, rmsnorm(x_name, lw.rms_att_scale, p + "attn_norm"), p + "attn_norm", L);
            op(TSR_OP_MATMUL, {xb, lw.wq.w, q}, matmul(lw.wq, D, D, p + "attn_norm", p + "q"), p + "wq", L);
            op(TSR_OP_MATMUL, {xb, lw.wk.w, k}, matmul(lw.wk, D, KV, p + "attn_norm", p + "k"), p + "wk", L);
            op(TSR_OP_MATMUL, {xb, lw.wv.w, v}, matmul(lw.wv, D, KV, p + "attn_norm", p + "v"), p + "wv", L);
            op(TSR_OP_ROPE, {q, k, rope_table}, pr, p + "rope", L);
            op(TSR_OP_KV_APPEND, {k, v, k_cache[l], v_cache[l]}, pk, p + "kv_append", L);
            // Operand 3 is the scores scratch the plan sizes for the cores it gives attention.
            op(TSR_OP_ATTENTION, {q, k_cache[l], v_cache[l], TSR_NO_TENSOR, att}, attention(p), p + "attention", L);
            op(TSR_OP_MATMUL, {att, lw.wo.w, o}, matmul(lw.wo, D, D, p + "attn", p + "attn_out"), p + "wo", L);
            op(TSR_OP_ADD, {x, o, x_att}, add(x_name, p + "attn_out", p + "x_attn"), p + "residual_attn", L);
            op(TSR_OP_RMSNORM, {x_att, lw.rms_ffn, xb2}, rmsnorm(p + "x_attn", lw.rms_ffn_scale, p + "ffn_norm"),
               p + "ffn_norm", L);
            op(TSR_OP_MATMUL, {xb2, lw.w1.w, h1}, matmul(lw.w1, D, H, p + "ffn_norm", p + "ffn_gate"), p + "w1", L);
            op(TSR_OP_MATMUL, {xb2, lw.w3.w, h3}, matmul(lw.w3, D, H, p + "ffn_norm", p + "ffn_up"), p + "w3", L);
            op(TSR_OP_SWIGLU, {h1, h3, gl}, swiglu(p), p + "swiglu", L);
            op(TSR_OP_MATMUL, {gl, lw.w2.w, f}, matmul(lw.w2, H, D, p + "ffn_act", p + "ffn_out"), p + "w2", L);
            op(TSR_OP_ADD, {x_att, f, x_out}, add(p + "x_attn", p + "ffn_out", p + "x_out"), p + "residual_ffn", L);
            x = x_out;
            x_name = p + "x_out";
        }
        // The classifier (vocab x dim per row) only where logits are read: a prompt
        // chunk's last row, unless every row's were asked for.
        const bool one_row = R > 1u && !opt.prompt_logits_all;
        const uint32_t out_rows = one_row ? 1u : R;
        if (one_row) {
            const uint32_t x_last = act("x_last", D, x_name, 1);
            tsr_op_params pl = params();
            pl.last_row.n = D;
            op(TSR_OP_LAST_ROW, {x, x_last}, pl, "last_row");
            x = x_last;
        }
        const uint8_t flags = one_row ? TSR_STEP_ONE_ROW : 0u;
        const uint32_t xf = act("final_norm", D, "", out_rows);
        logits = b.tensor(std::string("logits") + suffix, TSR_TENSOR_IO, out_rows, V, TSR_DTYPE_F32);
        op(TSR_OP_RMSNORM, {x, rms_final, xf}, rmsnorm(x_name, rms_final_scale, "final_norm"), "final_norm",
           TSR_NO_LAYER, flags);
        op(TSR_OP_MATMUL, {xf, wcls.w, logits}, matmul(wcls, D, V, "final_norm", "logits", true), "classifier",
           TSR_NO_LAYER, flags);
    };
    lower(g.prompt, opt.prompt_chunk, ".prompt", g.tokens_prompt, g.logits_prompt);
    lower(g.token, 1, ".token", g.tokens_token, g.logits_token);
    return g;
}

} // namespace tessera
