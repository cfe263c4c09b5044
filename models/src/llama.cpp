#include "tessera/models/llama.h"

#include "decoder_builder.h"

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

// A matmul's weights as the precision stores them: the tensor and its element type
// (int8: its per-channel scales are the tensor's quant_params).
struct Linear {
    uint32_t w = 0, dtype = TSR_DTYPE_F32;
    uint32_t bits = 0;             // 4: W4A8's grouped 4-bit weights
    uint32_t bias = TSR_NO_TENSOR; // F32: the F32 tensor of its n biases
};

// The graph builder's description of a family.
DecoderArch arch_of(const ModelFamily &f)
{
    DecoderArch a;
    a.norm = f.layer_norm ? NormKind::kLayer : NormKind::kRms;
    a.rotary = !f.learned_positions;
    a.ffn = f.gelu ? FfnKind::kGelu : FfnKind::kGated;
    a.ffn_label = f.gelu ? "gelu" : "swiglu";
    return a;
}

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

tsr_op_attrs params() { return tsr_op_attrs{}; }

// Llama's architecture as a graph: its weights in the precision's element types, its
// two schedules. The steps carry the architecture's parameters; an int8 step's
// factors follow from its operands' scales (the packer's derive_params).
class LlamaLowerer final : public LayerLowering {
public:
    LlamaLowerer(const LlamaConfig &c, const LlamaLowering &opt, Graph &g)
        : c_(c), opt_(opt), g_(g), b_(g), i8_(opt.precision == TSR_DTYPE_I8), bf16_(opt.precision == TSR_DTYPE_BF16),
          AT_(opt.precision), WT_(i8_ ? TSR_DTYPE_I8 : bf16_ ? TSR_DTYPE_BF16 : opt.matmul_weights),
          decoder_(g, arch_of(c.family), DecoderShape{c.dim, c.kv_dim(), c.hidden_dim, c.n_layers, opt.context}, *this)
    {
        if (opt.precision != TSR_DTYPE_F32 && !i8_ && !bf16_)
            throw std::invalid_argument("lower_llama: precision F32, BF16 or I8");
        const ModelFamily &f = c.family;
        if ((f.layer_norm || f.gelu || f.linear_biases || f.learned_positions) && !i8_ &&
            opt.matmul_weights != TSR_DTYPE_F32)
            throw std::invalid_argument("lower_llama: " + f.name + " takes its activations' type for its weights");
        if (f.linear_biases && i8_ && opt.w4_groups)
            throw std::invalid_argument("lower_llama: " + f.name + "'s linears have biases, W4A8's none");
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
        h.arch = c_.family.name == "llama" ? TSR_ARCH_LLAMA : TSR_ARCH_GPT2;
        h.bos_id = c_.bos_id;
        h.eos_id = c_.eos_id;
    }

    // Weights and the KV caches, shared by both schedules (lower_llama frees the checkpoint's
    // arrays after this when it owns them).
    void weights(const LlamaWeights &w)
    {
        const uint32_t D = c_.dim, V = c_.vocab_size, C = opt_.context;
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
        w_ = &w;
        decoder_.weights();
        w_ = nullptr;
        rms_final_ = gain(norm_name("final"), w.rms_final.data());
        if (c_.family.layer_norm) final_bias_ = norm_bias_tensor("final_norm.bias", w.final_norm_bias.data(), w.rms_final.data());
        // The classifier: an embedding shared with it is read as the embedding's type (F32
        // images), or stored again as the classifier wants it (BF16: the same; I8: per channel).
        if (c_.shared_classifier && !i8_) wcls_ = Linear{emb_, AT_};
        else if (!share_) wcls_ = linear("wcls", c_.shared_classifier ? w.token_embedding : w.wcls, 0, V, D, 8, false); // 8-bit logits
        if (c_.family.learned_positions) { // the positions a run may have: the context's
            positions_ = i8_ ? int8_weight("position_embedding", w.position_embedding.data(), C, D)
                             : b_.weight("position_embedding", w.position_embedding.data(), C, D, AT_);
        } else {
            rope_table(C);
        }
        g_.sampler_scratch = b_.tensor("sampler_scratch", TSR_TENSOR_SCRATCH, TSR_SAMPLER_BYTES_PER_TOKEN / 4u, V,
                                       TSR_DTYPE_F32);
    }

    // RoPE's angles for `C` positions (int8: in Q14).
    void rope_table(uint32_t C)
    {
        const std::vector<float> rope = llama_rope_table(C, c_.head_size(), c_.rope_theta);
        if (i8_) { // Q14
            std::vector<int16_t> q(rope.size());
            for (size_t j = 0; j < q.size(); ++j) q[j] = int16_t(std::lround(double(rope[j]) * 16384.0));
            rope_table_ = b_.raw("rope_table", TSR_DTYPE_I16, C, c_.head_size(), raw_bytes(q));
        } else {
            rope_table_ = b_.weight("rope_table", rope.data(), C, c_.head_size(), TSR_DTYPE_F32);
        }
    }

    // One schedule of R rows: embedding, the decoder layers, the classifier.
    void schedule(GraphSchedule &s, uint32_t R, const char *suffix, uint32_t &tokens, uint32_t &logits)
    {
        const uint32_t D = c_.dim, V = c_.vocab_size;
        s.max_rows = R;
        auto act = [&](const std::string &name, uint32_t cols, uint32_t rows = 0) {
            return activation(name + suffix, rows ? rows : R, cols, name);
        };
        auto op = [&](uint16_t o, std::initializer_list<uint32_t> operands, const tsr_op_attrs &p, std::string label,
                      uint16_t layer = TSR_NO_LAYER, uint8_t flags = 0) {
            b_.step(s, o, uint8_t(AT_), operands, p, std::move(label), layer, flags);
        };
        tokens = b_.tensor(std::string("tokens") + suffix, TSR_TENSOR_IO, R, 1, TSR_DTYPE_I32);
        uint32_t x = act("x_embed", D); // its rows are the table's: the table's (per-tensor) scale
        if (i8_) b_.at(x).scale = emb_scale_;
        tsr_op_attrs pe = params();
        pe.embed = {V, D, share_ ? (wcls_.bits == 4u ? TSR_EMBED_W4_ROWS : TSR_EMBED_I8_ROWS) : 0u, 0u};
        op(TSR_OP_EMBED, {tokens, emb_, x}, pe, "embed");
        if (c_.family.learned_positions) {
            const uint32_t xp = act("x_positions", D);
            tsr_op_attrs pp = params();
            pp.positions = {D, opt_.context};
            op(TSR_OP_POSITIONS, {x, positions_, xp}, pp, "positions");
            x = xp;
        }
        x = decoder_.layers(s, R, suffix, x, rope_table_);
        // The classifier (vocab x dim per row) only where logits are read: a prompt
        // chunk's last row, unless every row's were asked for.
        const bool one_row = R > 1u && !opt_.prompt_logits_all;
        const uint32_t out_rows = one_row ? 1u : R;
        if (one_row) {
            const uint32_t x_last = activation(std::string("x_last") + suffix, 1, D, "");
            if (i8_) b_.at(x_last).scale = b_.at(x).scale; // the same values
            tsr_op_attrs pl = params();
            pl.last_row.n = D;
            op(TSR_OP_LAST_ROW, {x, x_last}, pl, "last_row");
            x = x_last;
        }
        const uint8_t flags = one_row ? TSR_STEP_ONE_ROW : 0u;
        const uint32_t xf = act("final_norm", D, out_rows);
        logits = b_.tensor(std::string("logits") + suffix, TSR_TENSOR_IO, out_rows, V, TSR_DTYPE_F32);
        decoder_.norm(s, x, rms_final_, final_bias_, xf, rmsnorm_params(), "final_norm", TSR_NO_LAYER, flags);
        op(TSR_OP_MATMUL, {xf, wcls_.w, logits}, matmul_params(wcls_, D, V, true), "classifier", TSR_NO_LAYER, flags);
    }

    // ---- the decoder layers (LayerLowering): Llama's weights by role, the steps' parameters
    uint32_t norm_weight(uint32_t l, NormSite site) override
    {
        const bool att = site == NormSite::kAttention;
        return gain(prefix(l) + norm_name(att ? "att" : "ffn"), (att ? w_->rms_att : w_->rms_ffn).data() + size_t(l) * c_.dim);
    }
    uint32_t norm_bias(uint32_t l, NormSite site) override
    {
        const bool att = site == NormSite::kAttention;
        return norm_bias_tensor(prefix(l) + norm_name(att ? "att" : "ffn") + ".bias",
                                (att ? w_->att_norm_bias : w_->ffn_norm_bias).data() + size_t(l) * c_.dim,
                                (att ? w_->rms_att : w_->rms_ffn).data() + size_t(l) * c_.dim);
    }
    bool fuses(uint32_t, LinearRole) override { return opt_.fuse_linears; }
    uint32_t linear_weight(uint32_t l, LinearRole role) override
    {
        const uint32_t D = c_.dim, KV = c_.kv_dim(), H = c_.hidden_dim;
        const std::string name = prefix(l) + linear_name(role);
        const RoleShape sh = role_shape(role);
        // Unscaled scores (GPT-Neo) through the attention that scales them: Q's rows times
        // sqrt(head_size) (exact where head_size is a power of 4, as 16 and 64).
        const bool q_rows = !c_.family.scaled_attention && (role == LinearRole::kQ || role == LinearRole::kQkv);
        auto unscale = [&](std::vector<float> &v, uint32_t cols) {
            const float f = std::sqrt(float(c_.head_size()));
            for (size_t j = 0; j < size_t(D) * cols; ++j) v[j] *= f;
        };
        Linear lin;
        if (role == LinearRole::kQkv || role == LinearRole::kGateUp || q_rows) {
            std::vector<float> v = role == LinearRole::kQkv      ? stacked({{&w_->wq, D}, {&w_->wk, KV}, {&w_->wv, KV}}, l, D)
                                   : role == LinearRole::kGateUp ? stacked({{&w_->w1, H}, {&w_->w3, H}}, l, D)
                                                                 : stacked({{&w_->wq, D}}, l, D);
            if (q_rows) unscale(v, D);
            lin = linear(name, v, 0, sh.n, sh.k, opt_.linear_bits);
        } else {
            lin = linear(name, w_->*sh.source, l, sh.n, sh.k, opt_.linear_bits);
        }
        if (c_.family.linear_biases) { // F32 biases (int8: the packer's RequantShift table derives from them)
            std::vector<float> bias = role == LinearRole::kQkv    ? stacked({{&w_->bq, D}, {&w_->bk, KV}, {&w_->bv, KV}}, l, 1)
                                      : role == LinearRole::kGateUp ? stacked({{&w_->b1, H}, {&w_->b3, H}}, l, 1)
                                                                    : stacked({{&(w_->*sh.bias), sh.n}}, l, 1);
            if (q_rows) unscale(bias, 1);
            lin.bias = b_.weight(name + ".bias", bias.data(), 1, sh.n, TSR_DTYPE_F32);
        }
        if (linears_.size() <= l) linears_.resize(l + 1);
        linears_[l][size_t(role)] = lin;
        return lin.w;
    }
    uint32_t kv_cache(uint32_t l, bool values) override
    {
        const std::string p = prefix(l);
        const uint32_t id = b_.tensor(p + (values ? "v_cache" : "k_cache"), TSR_TENSOR_KV_CACHE, opt_.context, c_.kv_dim(), AT_);
        if (i8_) set_scale(id, act_scale(p + (values ? "v" : "k")));
        return id;
    }
    uint32_t activation(const std::string &name, const char *suffix, uint32_t rows, uint32_t cols) override
    {
        return activation(name + suffix, rows, cols, name);
    }
    uint8_t dtype() const override { return uint8_t(AT_); }
    tsr_op_attrs norm(uint32_t, NormSite) const override { return rmsnorm_params(); }
    tsr_op_attrs linear(uint32_t l, LinearRole role, uint32_t split0, uint32_t split1) const override
    {
        const RoleShape sh = role_shape(role);
        return matmul_params(linears_[l][size_t(role)], sh.k, sh.n, false, split0, split1);
    }
    tsr_op_attrs rope(uint32_t) const override { return rope_params(); }
    tsr_op_attrs attention(uint32_t l) const override
    {
        tsr_op_attrs p = attention_params();
        const ModelFamily &f = c_.family;
        if (l < f.local_layers.size() && f.local_layers[l]) p.attention.window = f.window;
        return p;
    }
    // Integer attention requantizes its scores to their own scale.
    double attention_inner_scale(uint32_t l) const override
    {
        return i8_ && opt_.nonlinear == TSR_NONLINEAR_INTEGER ? act_scale(prefix(l) + "attention.scores") : 0.0;
    }
    tsr_op_attrs add(uint32_t, Residual) const override { return add_params(); }
    tsr_op_attrs ffn(uint32_t) const override { return swiglu_params(); }

private:
    static std::string prefix(uint32_t l) { return "layer" + std::to_string(l) + "."; }
    // A norm's weights' name: "rms_att", "rms_ffn", "rms_final"; a LayerNorm's "ln_att" ...
    std::string norm_name(const char *site) const { return std::string(c_.family.layer_norm ? "ln_" : "rms_") + site; }
    // A linear layer's n x k, and the checkpoint's weights of every layer (unfused roles).
    struct RoleShape {
        uint32_t n, k;
        const std::vector<float> LlamaWeights::*source, LlamaWeights::*bias;
    };
    RoleShape role_shape(LinearRole role) const
    {
        const uint32_t D = c_.dim, KV = c_.kv_dim(), H = c_.hidden_dim;
        static const std::vector<float> LlamaWeights::*const kSource[kLinearRoles] = {
            &LlamaWeights::wq, &LlamaWeights::wk, &LlamaWeights::wv, nullptr, &LlamaWeights::wo,
            &LlamaWeights::w1, &LlamaWeights::w3, nullptr,           &LlamaWeights::w2};
        static const std::vector<float> LlamaWeights::*const kBias[kLinearRoles] = {
            &LlamaWeights::bq, &LlamaWeights::bk, &LlamaWeights::bv, nullptr, &LlamaWeights::bo,
            &LlamaWeights::b1, &LlamaWeights::b3, nullptr,           &LlamaWeights::b2};
        const uint32_t n[kLinearRoles] = {D, KV, KV, D + 2 * KV, D, H, H, 2 * H, D};
        return RoleShape{n[size_t(role)], role == LinearRole::kDown ? H : D, kSource[size_t(role)], kBias[size_t(role)]};
    }

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
    // A norm's gain vector (dim); int8: per tensor, in int8 (RMSNorm) or int16 (LayerNorm's
    // tsr_layernorm_i8).
    uint32_t gain(const std::string &name, const float *v)
    {
        if (!i8_) return b_.weight(name, v, 1, c_.dim, AT_);
        if (!c_.family.layer_norm) return int8_weight(name, v, 1, c_.dim);
        const double scale = i16_scale(v);
        std::vector<int16_t> q(c_.dim);
        for (uint32_t j = 0; j < c_.dim; ++j) q[j] = int16_t(std::lround(double(v[j]) / scale));
        const uint32_t id = b_.raw(name, TSR_DTYPE_I16, 1, c_.dim, raw_bytes(q));
        set_scale(id, scale);
        return id;
    }
    double i16_scale(const float *gain) const
    {
        const double m = absmax(gain, c_.dim);
        return (m > 0.0 ? m : 1.0) / 32767.0; // a zero gain: any scale
    }
    // A LayerNorm's bias (dim); int8: in int32 at its gain's scale / 256 (tsr_layernorm_i8).
    uint32_t norm_bias_tensor(const std::string &name, const float *v, const float *gain_values)
    {
        if (!i8_) return b_.weight(name, v, 1, c_.dim, AT_);
        const double scale = i16_scale(gain_values) / 256.0;
        std::vector<int32_t> q(c_.dim);
        for (uint32_t j = 0; j < c_.dim; ++j) {
            const double b = std::round(double(v[j]) / scale);
            if (std::fabs(b) > double(1 << 30))
                throw std::range_error(name + ": a bias " + std::to_string(v[j]) + " beyond 2^30 of its gain's steps");
            q[j] = int32_t(b);
        }
        const uint32_t id = b_.raw(name, TSR_DTYPE_I32, 1, c_.dim, raw_bytes(q));
        set_scale(id, scale);
        return id;
    }

    // The steps' architectural parameters; which non-linearities (bf16's exponential,
    // int8's arithmetic) is the variant's.
    uint32_t arithmetic() const { return bf16_ ? opt_.exp : i8_ ? opt_.nonlinear : 0u; }
    tsr_op_attrs rmsnorm_params() const
    {
        tsr_op_attrs p = params();
        if (c_.family.layer_norm) {
            p.layernorm = {c_.dim, c_.norm_eps};
            return p;
        }
        p.rmsnorm.dim = c_.dim;
        p.rmsnorm.eps = c_.norm_eps;
        p.rmsnorm.nonlinear = i8_ ? opt_.nonlinear : 0u;
        return p;
    }
    // split0, split1: the columns of the first outputs of a step for several (tsr_matmul_attrs.split).
    tsr_op_attrs matmul_params(const Linear &lin, uint32_t k, uint32_t n, bool f32_out = false, uint32_t split0 = 0,
                         uint32_t split1 = 0) const
    {
        tsr_op_attrs p = params();
        p.matmul = {k, n, lin.dtype, f32_out ? uint32_t(TSR_DTYPE_F32) : AT_, 0, 0, 0, lin.bits};
        if (lin.bias != TSR_NO_TENSOR) { // F32: the bias; int8: RequantShift, its table derived from the bias
            p.matmul.requant = lin.bias;
            p.matmul.requant_form = i8_ ? TSR_REQUANT_RQS : TSR_REQUANT_BIAS;
        }
        p.matmul.split[0] = split0;
        p.matmul.split[1] = split1;
        return p;
    }
    tsr_op_attrs rope_params() const
    {
        tsr_op_attrs p = params();
        p.rope = {c_.dim, c_.kv_dim(), c_.head_size(), opt_.context};
        return p;
    }
    tsr_op_attrs attention_params() const
    {
        tsr_op_attrs p = params();
        p.attention = {c_.n_heads, c_.n_kv_heads, c_.head_size(), opt_.context, arithmetic(), {}, {}, {}, 0, 0};
        return p;
    }
    tsr_op_attrs add_params() const
    {
        tsr_op_attrs p = params();
        p.add.n = c_.dim;
        return p;
    }
    tsr_op_attrs swiglu_params() const
    {
        tsr_op_attrs p = params();
        if (c_.family.gelu) {
            p.gelu = {c_.hidden_dim, c_.family.gelu_exact ? 0u : TSR_GELU_TANH, 0u};
            return p;
        }
        p.swiglu.n = c_.hidden_dim;
        p.swiglu.exp = arithmetic();
        return p;
    }

    const LlamaConfig &c_;
    const LlamaLowering &opt_;
    Graph &g_;
    GraphBuilder b_;
    const bool i8_, bf16_;
    const uint32_t AT_, WT_; // the activations' (and other weights') element type; the matmul weights'
    uint32_t emb_ = 0, rms_final_ = 0, rope_table_ = TSR_NO_TENSOR, positions_ = TSR_NO_TENSOR;
    uint32_t final_bias_ = TSR_NO_TENSOR;
    bool share_ = false;     // one table for the embedding and the classifier (int8)
    double emb_scale_ = 1.0; // I8: the embedding's output scale
    Linear wcls_;
    const LlamaWeights *w_ = nullptr; // while the layers' weights are added
    std::vector<std::array<Linear, kLinearRoles>> linears_;
    DecoderBuilder decoder_;
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
