// The QuantLib-integerized decoder (tessera/models/onnx.h): the graph walked layer by
// layer from the hidden-state input, each operator's constants read off its node, and
// the same computation written as Tessera's steps with QuantLib's variants.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "decoder_builder.h"
#include "onnx_reader.h"
#include "tessera/errors.h"
#include "tessera/kernels_quantlib.h"
#include "tessera/models/onnx.h"
#include "tessera/variants.h" // TSR_ROPE_MATRIX, TSR_ADD_RQS

namespace tessera {
namespace {

using Node = onnx::NodeProto;

// QuantLib's integer operators, and the float graphs' (whose Div and HardSwish keep the
// integer operators' attributes, unused in float).
const std::map<std::string, OnnxOp> kSupported = {
    {"RMSNorm", {2, {}}},
    {"Softmax", {1, {"axis"}}},
    {"Div", {2, {"Delta", "eps", "eta"}}},
    {"HardSwish", {1, {"three", "six", "one_over_six"}}},
    {"MatMul", {2, {}}},
    {"Add", {2, {}}},
    {"Mul", {2, {}}},
    {"Concat", {2, {"axis"}}},
    {"Transpose", {1, {"perm"}}},
    {"Reshape", {2, {"allowzero"}}},
    {"RequantShift", {3, {"div", "n_levels_out", "signed"}}},
    {"iRMSNorm", {2, {"D", "n_levels"}}},
    {"iSoftmax", {1, {"coeffA", "coeffB", "coeffC", "log2", "n_levels"}}},
    {"iHardswish", {1, {"three", "six", "one_over_six"}}},
    {"TrueIntegerDiv", {1, {"Delta", "eps", "eta", "y"}}},
};

// A RequantShift as read: per-channel or scalar mul and add, the shift and range.
struct Rqs {
    std::vector<int64_t> mul, add;
    int32_t shift = 0, lo = -128, hi = 127;
    tsr_rqs_params scalar() const { return tsr_rqs_params{int32_t(mul[0]), int32_t(add[0]), shift, lo, hi}; }
};

const tsr_rqs_params kIdentity = {1, 0, 0, -128, 127};

int32_t log2_exact(int64_t v)
{
    for (int32_t s = 0; s < 63; ++s)
        if (v == (int64_t(1) << s)) return s;
    return -1;
}

// One linear layer: weights as Tessera stores them (n x k, int8) and the RequantShift per
// output channel, the bias folded into the addend.
struct LinearRqs {
    uint32_t k = 0, n = 0;
    std::vector<int8_t> w;
    std::vector<int32_t> mul, add;
    tsr_rqs_params range{};
};

struct Norm {
    std::vector<int32_t> w;
    int32_t log2_d = 0, lo = -128, hi = 127;
};

struct LayerConstants {
    Norm att_norm, ffn_norm;
    LinearRqs wq, wk, wv, wo, w1, w3, w2;
    tsr_rqs_params rope_q{}, rope_k{}, k_cache{}, v_cache{};
    tsr_quantlib_attention attention{};
    tsr_rqs_params res1_a{}, res1_y{}, res2_a{}, res2_y{};
    int32_t three = 0, six = 0, one_over_six = 0;
    tsr_rqs_params act{}, ffn_y{};
};

class DecoderReader {
public:
    explicit DecoderReader(const OnnxModel &m) : m_(m) {}

    void read(OnnxDecoderInfo &info, std::vector<LayerConstants> &layers, Norm &final_norm)
    {
        read_inputs(info, true);
        const auto &in = m_.inputs();
        std::string h = in[0]->name();
        layers.resize(info.n_layers);
        for (uint32_t l = 0; l < info.n_layers; ++l) h = layer(l, h, layers[l]);
        // The final norm, the graph's first output.
        const Node &fn = consumer(h, "iRMSNorm", "the final norm");
        final_norm = norm(fn);
        if (fn.output(0) != m_.graph().output(0).name()) m_.fail(fn, "the final norm is not the graph's first output");
        info.hidden_dim = layers[0].w1.n;
    }

protected:
    // The inputs' shapes (hidden state, mask, rotations, past caches) and the outputs' count:
    // the hidden state, and each layer's K and V when `cache_outputs`.
    void read_inputs(OnnxDecoderInfo &info, bool cache_outputs)
    {
        const auto &in = m_.inputs();
        if (in.size() < 5 || (in.size() - 3) % 2 != 0) // named by its first node, the first thing a decoder would not be
            m_.fail(m_.graph().node(0), "is the first node of a graph with " + std::to_string(in.size()) +
                                            " inputs: not a decoder this front end knows (a decoder takes the hidden state, "
                                            "the mask, the rotations and each layer's past K and V)");
        const std::vector<int64_t> x = m_.shape_of(*in[0]), rot = m_.shape_of(*in[2]), k0 = m_.shape_of(*in[3]);
        if (x.size() != 3 || x[0] != 1 || x[1] < 1 || x[2] < 1) m_.fail("input 0 '" + in[0]->name() + "' is not [1, S, dim]");
        if (k0.size() != 4 || k0[0] != 1 || k0[1] < 1 || k0[3] < 1) m_.fail("input 3 '" + in[3]->name() + "' is not [1, heads, S_past, head_size]");
        info.rows = uint32_t(x[1]);
        info.dim = uint32_t(x[2]);
        info.n_heads = uint32_t(k0[1]);
        info.head_size = uint32_t(k0[3]);
        info.past = uint32_t(k0[2]);
        if (uint64_t(info.n_heads) * info.head_size != info.dim)
            m_.fail("heads x head size " + std::to_string(info.n_heads) + " x " + std::to_string(info.head_size) +
                    " is not dim " + std::to_string(info.dim));
        if (rot != std::vector<int64_t>{1, x[1], k0[3], k0[3]})
            m_.fail("input 2 '" + in[2]->name() + "' is not the rotations [1, S, head_size, head_size]");
        info.n_layers = uint32_t((in.size() - 3) / 2);
        for (uint32_t l = 0; l < info.n_layers; ++l)
            for (uint32_t kv = 0; kv < 2; ++kv) {
                const onnx::ValueInfoProto &v = *in[3 + 2 * l + kv];
                if (m_.shape_of(v) != k0) m_.fail("input '" + v.name() + "' is not a past cache of the same shape as input 3");
            }
        if (m_.graph().output_size() != int(cache_outputs ? 1 + 2 * info.n_layers : 1))
            m_.fail("has " + std::to_string(m_.graph().output_size()) + " outputs, not the hidden state" +
                    (cache_outputs ? " and each layer's K and V" : ""));
        info_ = &info;
        check_layout_nodes();
    }

    // The layout nodes move heads, never values: every Reshape splits rows into the
    // declared heads ([1, S, heads, head_size]) or joins them ([1, S, dim]), every Transpose
    // swaps rows and heads ([0, 2, 1, 3]) or K's last two axes ([0, 1, 3, 2]). A constant
    // that disagrees with the inputs' declared shapes is refused: the decoder lowers by them.
    void check_layout_nodes() const
    {
        const int64_t S = info_->rows, H = info_->n_heads, hs = info_->head_size, D = info_->dim;
        const std::vector<int64_t> split = {1, S, H, hs}, join = {1, S, D};
        for (const Node &n : m_.graph().node()) {
            if (n.op_type() == "Reshape") {
                const IntTensor shape = m_.initializer(n.input(1), n);
                if (shape.values != split && shape.values != join)
                    m_.fail(n, "reshapes to " + shown(shape.values) + ", neither " + shown(split) + " (heads of the declared " +
                                   "shapes) nor " + shown(join));
                bool has_allowzero = false;
                for (const onnx::AttributeProto &a : n.attribute()) has_allowzero = has_allowzero || a.name() == "allowzero";
                if (has_allowzero) m_.int_attribute(n, "allowzero", 0, 0);
            } else if (n.op_type() == "Transpose") {
                const std::vector<int64_t> perm = m_.ints_attribute(n, "perm");
                if (perm != std::vector<int64_t>{0, 2, 1, 3} && perm != std::vector<int64_t>{0, 1, 3, 2})
                    m_.fail(n, "perm " + shown(perm) + " is neither [0, 2, 1, 3] nor [0, 1, 3, 2]");
            }
        }
    }
    static std::string shown(const std::vector<int64_t> &v)
    {
        std::string s = "[";
        for (size_t i = 0; i < v.size() && i < 8; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
        return s + (v.size() > 8 ? ", ...]" : "]");
    }

    // The one consumer of `t` with operator `op` (skipping none); `what` names it in errors.
    const Node &consumer(const std::string &t, const char *op, const std::string &what) const
    {
        const Node *found = nullptr;
        for (const Node *n : m_.consumers(t))
            if (n->op_type() == op) {
                if (found) m_.fail(*n, "'" + t + "' feeds two " + op + " nodes where the decoder has one (" + what + ")");
                found = n;
            }
        if (!found) {
            const Node *p = m_.producer(t);
            if (p) m_.fail(*p, "is not followed by " + std::string(op) + " (" + what + "): not a decoder this front end knows");
            m_.fail("'" + t + "' is not followed by " + op + " (" + what + "): not a decoder this front end knows");
        }
        return *found;
    }
    // The next computing node after `t`, past layout-only Reshape and Transpose nodes.
    const Node &next(std::string t, const std::string &what) const
    {
        for (int hops = 0; hops < 8; ++hops) {
            const std::vector<const Node *> c = m_.consumers(t);
            if (c.size() != 1) {
                const Node *p = m_.producer(t);
                const std::string msg = "feeds " + std::to_string(c.size()) + " nodes where the decoder has one (" + what + ")";
                if (p) m_.fail(*p, msg);
                m_.fail("'" + t + "' " + msg);
            }
            if (c[0]->op_type() != "Reshape" && c[0]->op_type() != "Transpose") return *c[0];
            t = c[0]->output(0);
        }
        m_.fail("'" + t + "': more than 8 layout nodes in a row (" + what + ")");
    }
    const Node &expect(const Node &n, const char *op, const std::string &what) const
    {
        if (n.op_type() != op) m_.fail(n, "expected " + std::string(op) + " here (" + what + "): not a decoder this front end knows");
        return n;
    }
    // The other input of a two-input node than `from`.
    std::string other_input(const Node &n, const std::string &from) const
    {
        if (n.input_size() != 2) m_.fail(n, "does not have two inputs");
        return n.input(0) == from ? n.input(1) : n.input(0);
    }

    Rqs rqs(const Node &n, uint32_t channels = 1) const
    {
        expect(n, "RequantShift", "requantization");
        if (n.input_size() != 3) m_.fail(n, "does not have the inputs x, mul and add");
        Rqs r;
        r.mul = m_.initializer(n.input(1), n).values;
        r.add = m_.initializer(n.input(2), n).values;
        for (const std::vector<int64_t> *v : {&r.mul, &r.add})
            if (v->size() != 1 && v->size() != channels)
                m_.fail(n, "mul or add has " + std::to_string(v->size()) + " values, not 1 or " + std::to_string(channels));
        if (r.mul.size() == 1 && channels > 1) r.mul.assign(channels, r.mul[0]);
        if (r.add.size() == 1 && channels > 1) r.add.assign(channels, r.add[0]);
        for (int64_t v : r.mul)
            if (v < INT32_MIN || v > INT32_MAX) m_.fail(n, "mul " + std::to_string(v) + " outside int32");
        for (int64_t v : r.add)
            if (v < INT32_MIN || v > INT32_MAX) m_.fail(n, "add " + std::to_string(v) + " outside int32");
        const int64_t div = m_.int_attribute(n, "div", 1, int64_t(1) << 62), levels = m_.int_attribute(n, "n_levels_out", 2, 256);
        const int64_t is_signed = m_.int_attribute(n, "signed", 0, 1);
        r.shift = log2_exact(div);
        if (r.shift < 0) m_.fail(n, "div " + std::to_string(div) + " is not a power of two");
        if (levels < 2 || levels > 256) m_.fail(n, "n_levels_out " + std::to_string(levels) + " outside 2..256");
        r.lo = is_signed ? int32_t(-levels / 2) : 0;
        r.hi = is_signed ? int32_t(levels / 2 - 1) : int32_t(levels - 1);
        if (r.lo < -128 || r.hi > 127)
            m_.fail(n, "an unsigned 256-level output does not fit int8 activations");
        return r;
    }
    tsr_rqs_params scalar_rqs(const Node &n) const { return rqs(n).scalar(); }
    // A RequantShift that must change nothing (the KV Concat's): the cache is appended to as is.
    void identity_rqs(const Node &n) const
    {
        const Rqs r = rqs(n);
        if (r.mul[0] != (int64_t(1) << r.shift) || r.add[0] != 0 || r.lo != -128 || r.hi != 127)
            m_.fail(n, "the KV cache's requantization is not the identity: the cache would be rescaled, not appended to");
    }

    Norm norm(const Node &n) const
    {
        Norm out;
        const IntTensor w = m_.initializer(n.input(1), n);
        if (w.count() != info_->dim) m_.fail(n, "weight has " + std::to_string(w.count()) + " values, not dim " + std::to_string(info_->dim));
        for (int64_t v : w.values) {
            if (v <= -(int64_t(1) << 24) || v >= (int64_t(1) << 24)) m_.fail(n, "weight " + std::to_string(v) + " outside +-2^24");
            out.w.push_back(int32_t(v));
        }
        const int64_t d = m_.int_attribute(n, "D", 1, int64_t(1) << 31), levels = m_.int_attribute(n, "n_levels");
        out.log2_d = log2_exact(d);
        if (out.log2_d < 0 || out.log2_d > 31) m_.fail(n, "D " + std::to_string(d) + " is not a power of two up to 2^31");
        if (levels != 256) m_.fail(n, "n_levels " + std::to_string(levels) + " (int8 activations: 256)");
        return out;
    }

    // MatMul by a constant, the bias Add, the RequantShift: returns the RequantShift node.
    const Node &linear(const Node &mm, LinearRqs &out, uint32_t k) const
    {
        expect(mm, "MatMul", "a linear layer");
        const std::string w_name = m_.is_initializer(mm.input(1)) ? mm.input(1) : mm.input(0);
        const IntTensor w = m_.initializer(w_name, mm);
        if (w.dims.size() != 2 || w.dims[0] != int64_t(k)) m_.fail(mm, "weight is not [" + std::to_string(k) + ", n]");
        out.k = k;
        out.n = uint32_t(w.dims[1]);
        out.w.resize(size_t(out.n) * k);
        for (uint32_t i = 0; i < k; ++i)
            for (uint32_t c = 0; c < out.n; ++c) {
                const int64_t v = w.values[size_t(i) * out.n + c];
                if (v < -128 || v > 127) m_.fail(mm, "weight " + std::to_string(v) + " outside int8");
                out.w[size_t(c) * k + i] = int8_t(v); // n x k, as the kernels read it
            }
        const Node &add = next(mm.output(0), "the bias");
        expect(add, "Add", "the bias");
        const IntTensor bias = m_.initializer(other_input(add, mm.output(0)), add);
        if (bias.count() != out.n && bias.count() != 1) m_.fail(add, "bias does not have n values");
        const Node &rq = next(add.output(0), "the linear layer's requantization");
        const Rqs r = rqs(rq, out.n);
        for (uint32_t c = 0; c < out.n; ++c) {
            const int64_t b = bias.values[bias.count() == 1 ? 0 : c];
            const int64_t folded = b * r.mul[c] + r.add[c]; // (acc + b) mul + add = acc mul + (b mul + add)
            if (folded < INT32_MIN || folded > INT32_MAX) m_.fail(rq, "bias x mul + add outside int32");
            out.mul.push_back(int32_t(r.mul[c]));
            out.add.push_back(int32_t(folded));
        }
        out.range = tsr_rqs_params{0, 0, r.shift, r.lo, r.hi};
        return rq;
    }

    // The attention's chain between the two matmuls, evaluated into its tables.
    const Node &attention(const Node &scores, tsr_quantlib_attention &t, const std::string &v_cache) const
    {
        const Node &rq_s = next(scores.output(0), "the scores' requantization");
        t.scores = scalar_rqs(rq_s);
        const Node &div = expect(next(rq_s.output(0), "the scores' division"), "TrueIntegerDiv", "the scores' division");
        // Each bounded before any product: y x eta + eps and Delta x eta stay below 2^62.
        const int64_t delta = m_.int_attribute(div, "Delta", 0, 1 << 30), eps = m_.int_attribute(div, "eps", -(1 << 30), 1 << 30),
                      eta = m_.int_attribute(div, "eta", 0, 1 << 30), y = m_.int_attribute(div, "y", -(1 << 30), 1 << 30);
        if (y * eta + eps <= 0) m_.fail(div, "y x eta + eps = " + std::to_string(y * eta + eps) + " is not positive");
        const int64_t factor = delta * eta / (y * eta + eps); // Deeploy's floor form
        // It multiplies an int8 score: the product must stay an int32, as the kernels hold it.
        if (factor > (int64_t(1) << 23) || factor < -(int64_t(1) << 23))
            m_.fail(div, "Delta x eta / (y x eta + eps) = " + std::to_string(factor) + " is outside +-2^23 (int8 scores "
                         "times it must stay within int32)");
        const Node &rq_m = next(div.output(0), "the scores' second requantization");
        const tsr_rqs_params merge = scalar_rqs(rq_m);
        const Node &add = expect(next(rq_m.output(0), "the mask's add"), "Add", "the mask's add");
        const Node *mask_rq = m_.producer(other_input(add, rq_m.output(0)));
        if (!mask_rq || mask_rq->input(0) != m_.inputs()[1]->name())
            m_.fail(add, "does not add the requantized mask (input 1)");
        const tsr_rqs_params mask = scalar_rqs(*mask_rq);
        const Node &rq_sum = next(add.output(0), "the masked scores' requantization");
        const tsr_rqs_params sum = scalar_rqs(rq_sum);
        const Node &sm = expect(next(rq_sum.output(0), "the softmax"), "iSoftmax", "the softmax");
        const int64_t A = m_.int_attribute(sm, "coeffA", -(1 << 20), 1 << 20), B = m_.int_attribute(sm, "coeffB", -(1 << 20), 1 << 20),
                      C = m_.int_attribute(sm, "coeffC", -(1 << 30), 1 << 30), log2 = m_.int_attribute(sm, "log2", 1, 1 << 20),
                      levels = m_.int_attribute(sm, "n_levels");
        if (levels != 256) m_.fail(sm, "n_levels " + std::to_string(levels) + " (256 only)");
        if (t.scores.lo < -128 || t.scores.hi > 127 || sum.lo < -128 || sum.hi > 127) m_.fail(rq_sum, "scores are not int8");
        for (int32_t s = -128; s < 128; ++s) {
            const int64_t merged = tsr_rqs(int64_t(s) * factor, &merge);
            t.visible[s + 128] = int8_t(tsr_rqs(merged + tsr_rqs(0, &mask), &sum));
            t.masked[s + 128] = int8_t(tsr_rqs(merged + tsr_rqs(-128, &mask), &sum));
        }
        for (int64_t i = 0; i < 256; ++i) { // x - max = -i
            const int64_t z = i / log2, p = -i + z * log2, v = A * (p + B) * (p + B) + C;
            const int64_t e = z >= 63 ? (v < 0 ? -1 : 0) : v >> z;
            if (e < 0 || e > TSR_QUANTLIB_MAX_EXP) m_.fail(sm, "exponential " + std::to_string(e) + " outside 0..2^20");
            t.exp[i] = int32_t(e);
        }
        if (t.exp[0] <= 0) m_.fail(sm, "the exponential of 0 is not positive");
        t.levels = int32_t(levels - 1);
        const Node &rq_p = next(sm.output(0), "the probabilities' requantization");
        const tsr_rqs_params prob = scalar_rqs(rq_p);
        for (int32_t yv = 0; yv < 256; ++yv) t.prob[yv] = int8_t(tsr_rqs(yv, &prob));
        const Node &av = expect(next(rq_p.output(0), "the values' matmul"), "MatMul", "the values' matmul");
        if (av.input(1) != v_cache) m_.fail(av, "does not multiply by the V cache");
        const Node &rq_o = next(av.output(0), "the attention output's requantization");
        t.out = scalar_rqs(rq_o);
        return rq_o;
    }

    // One decoder layer from its input `x`; returns its output.
    std::string layer(uint32_t l, const std::string &x, LayerConstants &c) const
    {
        const std::string where = "layer " + std::to_string(l);
        const Node &n1 = consumer(x, "iRMSNorm", where + " attention norm");
        c.att_norm = norm(n1);
        const Node &res1 = consumer(x, "RequantShift", where + " residual");
        // Q, K and V: the three matmuls of the norm's output, told apart by what follows.
        const std::vector<const Node *> mms = m_.consumers(n1.output(0));
        if (mms.size() != 3) m_.fail(n1, "feeds " + std::to_string(mms.size()) + " nodes, not Q, K and V");
        std::string q_out, k_cache, v_cache;
        for (const Node *mm : mms) {
            LinearRqs lin;
            const Node &rq = linear(*mm, lin, info_->dim);
            const Node &after = next(rq.output(0), where + " Q/K/V");
            if (after.op_type() == "MatMul") { // the rotation: Q or K
                if (after.input(1) != m_.inputs()[2]->name()) m_.fail(after, "does not multiply by the rotations (input 2)");
                const Node &rope_rq = next(after.output(0), where + " RoPE requantization");
                const Node &then = next(rope_rq.output(0), where + " after RoPE");
                if (then.op_type() == "RequantShift") { // K: the cache's scale, the Concat
                    c.wk = std::move(lin);
                    c.rope_k = scalar_rqs(rope_rq);
                    c.k_cache = scalar_rqs(then);
                    k_cache = cache(then, l, 0);
                } else {
                    c.wq = std::move(lin);
                    c.rope_q = scalar_rqs(rope_rq);
                    q_out = rope_rq.output(0);
                }
            } else { // V: the cache's scale, the Concat
                c.wv = std::move(lin);
                c.v_cache = scalar_rqs(after);
                v_cache = cache(after, l, 1);
            }
        }
        if (q_out.empty() || k_cache.empty() || v_cache.empty()) m_.fail(n1, "its matmuls are not one each of Q, K and V");
        const Node &scores = expect(next(q_out, where + " scores"), "MatMul", where + " scores");
        const Node *kt = m_.producer(scores.input(1));
        std::string k_src = scores.input(1);
        while (kt && (kt->op_type() == "Transpose" || kt->op_type() == "Reshape")) k_src = kt->input(0), kt = m_.producer(k_src);
        if (k_src != k_cache) m_.fail(scores, "does not multiply Q by the K cache");
        const Node &rq_o = attention(scores, c.attention, v_cache);
        const Node &wo = expect(next(rq_o.output(0), where + " output projection"), "MatMul", where + " output projection");
        const Node &wo_rq = linear(wo, c.wo, info_->dim);
        const std::string x_att = residual(next(wo_rq.output(0), where + " residual add"), res1, wo_rq, c.res1_a, c.res1_y);
        // The FFN.
        const Node &n2 = consumer(x_att, "iRMSNorm", where + " FFN norm");
        c.ffn_norm = norm(n2);
        const Node &res2 = consumer(x_att, "RequantShift", where + " FFN residual");
        const std::vector<const Node *> ffn = m_.consumers(n2.output(0));
        if (ffn.size() != 2) m_.fail(n2, "feeds " + std::to_string(ffn.size()) + " nodes, not the gate and the up projection");
        const Node *mul = nullptr;
        bool have_gate = false, have_up = false;
        for (const Node *mm : ffn) {
            LinearRqs lin;
            const Node &rq = linear(*mm, lin, info_->dim);
            const Node &after = next(rq.output(0), where + " FFN");
            if (after.op_type() == "iHardswish") {
                c.w1 = std::move(lin);
                c.three = int32_t(m_.int_attribute(after, "three", 0, 32768));
                c.six = int32_t(m_.int_attribute(after, "six", 0, 32768));
                c.one_over_six = int32_t(m_.int_attribute(after, "one_over_six", 0, 32768));
                const Node &act = next(after.output(0), where + " the activation's requantization");
                c.act = scalar_rqs(act);
                mul = &expect(next(act.output(0), where + " gate x up"), "Mul", where + " gate x up");
                have_gate = true;
            } else {
                c.w3 = std::move(lin);
                expect(after, "Mul", where + " gate x up");
                have_up = true;
            }
        }
        if (!have_gate || !have_up || !mul) m_.fail(n2, "its matmuls are not the gate (with iHardswish) and the up projection");
        const Node &mul_rq = next(mul->output(0), where + " the product's requantization");
        c.ffn_y = scalar_rqs(mul_rq);
        const Node &w2 = expect(next(mul_rq.output(0), where + " down projection"), "MatMul", where + " down projection");
        const Node &w2_rq = linear(w2, c.w2, c.w1.n);
        if (c.w1.n != c.w3.n || c.w2.n != info_->dim || c.wq.n != info_->dim || c.wk.n != info_->dim || c.wv.n != info_->dim ||
            c.wo.n != info_->dim)
            m_.fail(w2, "the layer's projections do not have the model's dimensions");
        return residual(next(w2_rq.output(0), where + " FFN residual add"), res2, w2_rq, c.res2_a, c.res2_y);
    }

    // The Concat of a past cache (input 3 + 2l + kind) and the new rows; its identity
    // RequantShift is the graph's output 1 + 2l + kind. Returns that output's name.
    std::string cache(const Node &scale, uint32_t l, uint32_t kind) const
    {
        const Node &cat = expect(next(scale.output(0), "the KV append"), "Concat", "the KV append");
        const std::string past = m_.inputs()[3 + 2 * l + kind]->name();
        if (cat.input_size() != 2 || cat.input(0) != past || cat.input(1) != scale.output(0))
            m_.fail(cat, "does not append the new rows to past cache input '" + past + "'");
        const int64_t axis = m_.int_attribute(cat, "axis");
        if (axis != -2 && axis != 2) m_.fail(cat, "does not concatenate on the positions axis");
        const Node &id = consumer(cat.output(0), "RequantShift", "the cache's output");
        identity_rqs(id);
        if (id.output(0) != m_.graph().output(int(1 + 2 * l + kind)).name())
            m_.fail(id, "is not the graph's output " + std::to_string(1 + 2 * l + kind) + " (the layer's " + (kind ? "V" : "K") +
                            " cache)");
        return id.output(0);
    }

    // y = rqs_y(rqs_a(x) + b): `add` adds the residual's RequantShift `res` and `branch`.
    std::string residual(const Node &add, const Node &res, const Node &branch, tsr_rqs_params &a, tsr_rqs_params &y) const
    {
        expect(add, "Add", "a residual add");
        if (other_input(add, branch.output(0)) != res.output(0)) m_.fail(add, "does not add the residual to the branch");
        a = scalar_rqs(res);
        const Node &out = next(add.output(0), "the residual's requantization");
        y = scalar_rqs(out);
        return out.output(0);
    }

    const OnnxModel &m_;
    OnnxDecoderInfo *info_ = nullptr;
};


// ---- the float graphs ----------------------------------------------------------------

struct FloatLinear {
    uint32_t k = 0, n = 0;
    std::vector<float> w, bias; // n x k; n
};

struct FloatLayer {
    std::vector<float> att_norm, ffn_norm;
    FloatLinear wq, wk, wv, wo, w1, w3, w2;
};

// The same decoder exported in float (RMSNorm, Div, Softmax, HardSwish): its weights as
// they are, its structure checked the same way.
class FloatReader : public DecoderReader {
public:
    using DecoderReader::DecoderReader;

    void read(OnnxDecoderInfo &info, std::vector<FloatLayer> &layers, std::vector<float> &final_norm)
    {
        read_inputs(info, false);
        std::string h = m_.inputs()[0]->name();
        layers.resize(info.n_layers);
        for (uint32_t l = 0; l < info.n_layers; ++l) h = layer(l, h, layers[l]);
        const Node &fn = consumer(h, "RMSNorm", "the final norm");
        final_norm = norm(fn);
        if (fn.output(0) != m_.graph().output(0).name()) m_.fail(fn, "the final norm is not the graph's first output");
        info.hidden_dim = layers[0].w1.n;
    }

private:
    std::vector<float> norm(const Node &n) const
    {
        const FloatTensor w = m_.float_initializer(n.input(1), n);
        if (w.count() != info_->dim) m_.fail(n, "weight has " + std::to_string(w.count()) + " values, not dim " + std::to_string(info_->dim));
        return w.values;
    }
    // MatMul by a constant and the bias Add: returns the Add.
    const Node &linear(const Node &mm, FloatLinear &out, uint32_t k) const
    {
        expect(mm, "MatMul", "a linear layer");
        const std::string w_name = m_.is_initializer(mm.input(1)) ? mm.input(1) : mm.input(0);
        const FloatTensor w = m_.float_initializer(w_name, mm);
        if (w.dims.size() != 2 || w.dims[0] != int64_t(k)) m_.fail(mm, "weight is not [" + std::to_string(k) + ", n]");
        out.k = k;
        out.n = uint32_t(w.dims[1]);
        out.w.resize(size_t(out.n) * k);
        for (uint32_t i = 0; i < k; ++i)
            for (uint32_t c = 0; c < out.n; ++c) out.w[size_t(c) * k + i] = w.values[size_t(i) * out.n + c];
        const Node &add = expect(next(mm.output(0), "the bias"), "Add", "the bias");
        const FloatTensor bias = m_.float_initializer(other_input(add, mm.output(0)), add);
        if (bias.count() != out.n) m_.fail(add, "bias does not have n values");
        out.bias = bias.values;
        return add;
    }
    // The past cache's Concat after `t`: returns its output.
    std::string cache(const std::string &t, uint32_t l, uint32_t kind) const
    {
        const Node &cat = expect(next(t, "the KV append"), "Concat", "the KV append");
        const std::string past = m_.inputs()[3 + 2 * l + kind]->name();
        if (cat.input_size() != 2 || cat.input(0) != past) m_.fail(cat, "does not append the new rows to past cache input '" + past + "'");
        return cat.output(0);
    }
    // y = x + branch.
    std::string residual(const Node &add, const std::string &x, const Node &branch) const
    {
        expect(add, "Add", "a residual add");
        if (other_input(add, branch.output(0)) != x) m_.fail(add, "does not add the residual to the branch");
        return add.output(0);
    }

    std::string layer(uint32_t l, const std::string &x, FloatLayer &c) const
    {
        const std::string where = "layer " + std::to_string(l);
        const Node &n1 = consumer(x, "RMSNorm", where + " attention norm");
        c.att_norm = norm(n1);
        const std::vector<const Node *> mms = m_.consumers(n1.output(0));
        if (mms.size() != 3) m_.fail(n1, "feeds " + std::to_string(mms.size()) + " nodes, not Q, K and V");
        std::string q_out, k_cache, v_cache;
        for (const Node *mm : mms) {
            FloatLinear lin;
            const Node &bias = linear(*mm, lin, info_->dim);
            const Node &after = next(bias.output(0), where + " Q/K/V");
            if (after.op_type() == "MatMul") {
                if (after.input(1) != m_.inputs()[2]->name()) m_.fail(after, "does not multiply by the rotations (input 2)");
                const Node &then = next(after.output(0), where + " after RoPE");
                if (then.op_type() == "Concat") {
                    c.wk = std::move(lin);
                    k_cache = cache(after.output(0), l, 0);
                } else {
                    c.wq = std::move(lin);
                    q_out = after.output(0);
                }
            } else {
                c.wv = std::move(lin);
                v_cache = cache(bias.output(0), l, 1);
            }
        }
        if (q_out.empty() || k_cache.empty() || v_cache.empty()) m_.fail(n1, "its matmuls are not one each of Q, K and V");
        const Node &scores = expect(next(q_out, where + " scores"), "MatMul", where + " scores");
        const Node *kt = m_.producer(scores.input(1));
        std::string k_src = scores.input(1);
        while (kt && (kt->op_type() == "Transpose" || kt->op_type() == "Reshape")) k_src = kt->input(0), kt = m_.producer(k_src);
        if (k_src != k_cache) m_.fail(scores, "does not multiply Q by the K cache");
        const Node &div = expect(next(scores.output(0), where + " the scores' scale"), "Div", where + " the scores' scale");
        const FloatTensor d = m_.float_initializer(div.input(1), div);
        if (d.count() != 1 || std::fabs(d.values[0] - std::sqrt(float(info_->head_size))) > 1e-6f)
            m_.fail(div, "does not divide the scores by sqrt(head_size)");
        const Node &mask = expect(next(div.output(0), where + " the mask's add"), "Add", where + " the mask's add");
        if (other_input(mask, div.output(0)) != m_.inputs()[1]->name()) m_.fail(mask, "does not add the mask (input 1)");
        const Node &sm = expect(next(mask.output(0), where + " softmax"), "Softmax", where + " softmax");
        const Node &av = expect(next(sm.output(0), where + " the values' matmul"), "MatMul", where + " the values' matmul");
        if (av.input(1) != v_cache) m_.fail(av, "does not multiply by the V cache");
        const Node &wo = expect(next(av.output(0), where + " output projection"), "MatMul", where + " output projection");
        const Node &wo_bias = linear(wo, c.wo, info_->dim);
        const std::string x_att = residual(next(wo_bias.output(0), where + " residual add"), x, wo_bias);
        const Node &n2 = consumer(x_att, "RMSNorm", where + " FFN norm");
        c.ffn_norm = norm(n2);
        const std::vector<const Node *> ffn = m_.consumers(n2.output(0));
        if (ffn.size() != 2) m_.fail(n2, "feeds " + std::to_string(ffn.size()) + " nodes, not the gate and the up projection");
        const Node *mul = nullptr;
        bool have_gate = false, have_up = false;
        for (const Node *mm : ffn) {
            FloatLinear lin;
            const Node &bias = linear(*mm, lin, info_->dim);
            const Node &after = next(bias.output(0), where + " FFN");
            if (after.op_type() == "HardSwish") {
                c.w1 = std::move(lin);
                mul = &expect(next(after.output(0), where + " gate x up"), "Mul", where + " gate x up");
                have_gate = true;
            } else {
                c.w3 = std::move(lin);
                expect(after, "Mul", where + " gate x up");
                have_up = true;
            }
        }
        if (!have_gate || !have_up || !mul) m_.fail(n2, "its matmuls are not the gate (with HardSwish) and the up projection");
        const Node &w2 = expect(next(mul->output(0), where + " down projection"), "MatMul", where + " down projection");
        const Node &w2_bias = linear(w2, c.w2, c.w1.n);
        if (c.w1.n != c.w3.n || c.w2.n != info_->dim || c.wq.n != info_->dim || c.wk.n != info_->dim || c.wv.n != info_->dim ||
            c.wo.n != info_->dim)
            m_.fail(w2, "the layer's projections do not have the model's dimensions");
        return residual(next(w2_bias.output(0), where + " FFN residual add"), x_att, w2_bias);
    }
};

// ---- the lowering -------------------------------------------------------------------

// What the QuantLib graphs' two forms share: a decoder-only schedule whose rows come in and
// go out as hidden states, RoPE by each row's rotation matrix, K and V the heads' full width.
class QuantLibLayers : public LayerLowering {
public:
    QuantLibLayers(Graph &g, const OnnxDecoderInfo &info, uint32_t context, uint32_t dtype)
        : b_(g), info_(info), context_(context), dtype_(dtype)
    {
    }

    uint32_t kv_cache(uint32_t l, bool values) override
    {
        return b_.tensor(prefix(l) + (values ? "v_cache" : "k_cache"), TSR_TENSOR_KV_CACHE, context_, info_.dim, dtype_);
    }
    uint32_t activation(const std::string &name, const char *suffix, uint32_t rows, uint32_t cols) override
    {
        return b_.tensor(name + suffix, TSR_TENSOR_ACTIVATION, rows, cols, dtype_);
    }
    uint8_t dtype() const override { return uint8_t(dtype_); }
    tsr_op_attrs rope(uint32_t l) const override
    {
        tsr_op_attrs p{};
        p.rope = {info_.dim, info_.dim, info_.head_size, context_, TSR_ROPE_MATRIX, {}, {}};
        rope_constants(l, p.rope);
        return p;
    }
    tsr_op_attrs attention(uint32_t l) const override
    {
        tsr_op_attrs p{};
        p.attention.n_heads = p.attention.n_kv_heads = info_.n_heads;
        p.attention.head_size = info_.head_size;
        p.attention.context = context_;
        attention_constants(l, p.attention);
        return p;
    }

    // One schedule of R rows: the hidden states in, the layers, the final norm to the rows out.
    void schedule(DecoderBuilder &decoder, GraphSchedule &s, uint32_t R, const char *suffix, uint32_t &in, uint32_t &out,
                  uint32_t &rotation)
    {
        const uint32_t D = info_.dim, hs = info_.head_size;
        s.max_rows = R;
        in = b_.tensor(std::string("rows_in") + suffix, TSR_TENSOR_IO, R, D, dtype_);
        out = b_.tensor(std::string("rows_out") + suffix, TSR_TENSOR_IO, R, D, dtype_);
        rotation = b_.tensor(std::string("rotations") + suffix, TSR_TENSOR_IO, R, hs * hs, dtype_);
        const uint32_t x = decoder.layers(s, R, suffix, in, rotation);
        b_.step(s, TSR_OP_RMSNORM, uint8_t(dtype_), {x, final_norm_, out}, norm(0, NormSite::kFinal), "final_norm");
    }

protected:
    static std::string prefix(uint32_t l) { return "layer" + std::to_string(l) + "."; }
    virtual void rope_constants(uint32_t, tsr_rope_attrs &) const {}
    virtual void attention_constants(uint32_t, tsr_attention_attrs &) const {}

    GraphBuilder b_;
    const OnnxDecoderInfo &info_;
    const uint32_t context_, dtype_;
    uint32_t final_norm_ = 0;
};

// The integer graph: QuantLib's variants, each step's constants off its node.
class IntegerLayers final : public QuantLibLayers {
public:
    IntegerLayers(Graph &g, const OnnxDecoderInfo &info, uint32_t context, bool fuse_linears,
                  const std::vector<LayerConstants> &layers, const Norm &final_norm)
        : QuantLibLayers(g, info, context, TSR_DTYPE_I8), fuse_(fuse_linears), layers_(layers), final_(final_norm),
          tables_(layers.size()), fused_(layers.size())
    {
    }

    void final_weights()
    {
        final_norm_ = norm_tensor("final_norm", final_);
        // The planner's sampler scratch: a decoder-only image samples nothing, so a token one.
        b_.graph().sampler_scratch = b_.tensor("sampler_scratch", TSR_TENSOR_SCRATCH, 1, 16, TSR_DTYPE_F32);
    }

    uint32_t norm_weight(uint32_t l, NormSite site) override
    {
        const bool att = site == NormSite::kAttention;
        return norm_tensor(prefix(l) + (att ? "attn_norm" : "ffn_norm"), att ? layers_[l].att_norm : layers_[l].ffn_norm);
    }
    // The linear layers that read one input as one: rows stacked, tables stacked, where every
    // RequantShift has the same shift and range (the kernel takes one a call).
    bool fuses(uint32_t l, LinearRole fused) override
    {
        const LayerConstants &c = layers_[l];
        LinearRqs &out = fused_[l][fused == LinearRole::kQkv ? 0 : 1];
        return fuse_ && (fused == LinearRole::kQkv ? stack({&c.wq, &c.wk, &c.wv}, out) : stack({&c.w1, &c.w3}, out));
    }
    uint32_t linear_weight(uint32_t l, LinearRole role) override
    {
        LinearRqs *stacked = stacked_of(l, role);
        const LinearRqs &lin = stacked ? *stacked : *unfused(l, role);
        const std::string name = prefix(l) + linear_name(role);
        std::vector<int32_t> t(lin.mul);
        t.insert(t.end(), lin.add.begin(), lin.add.end());
        tables_[l][size_t(role)] = b_.raw(name + ".rqs", TSR_DTYPE_I32, 2, lin.n, raw_bytes(t));
        const uint32_t w = b_.raw(name, TSR_DTYPE_I8, lin.n, lin.k, raw_bytes(lin.w));
        if (stacked) stacked->w.clear(); // in the graph now: only the shapes are kept
        return w;
    }
    void layer_tables(uint32_t l) override
    {
        std::vector<uint8_t> tables(sizeof(tsr_quantlib_attention));
        std::memcpy(tables.data(), &layers_[l].attention, tables.size());
        attention_tables_.push_back(
            b_.raw(prefix(l) + "attention.tables", TSR_DTYPE_I32, 1, uint32_t(TSR_QUANTLIB_ATTENTION_WORDS), std::move(tables)));
    }

    tsr_op_attrs norm(uint32_t l, NormSite site) const override
    {
        const Norm &n = site == NormSite::kFinal ? final_ : site == NormSite::kAttention ? layers_[l].att_norm : layers_[l].ffn_norm;
        tsr_op_attrs p{};
        p.rmsnorm.dim = info_.dim;
        p.rmsnorm.nonlinear = TSR_NONLINEAR_QUANTLIB;
        p.rmsnorm.eps = 1.0f; // unused by iRMSNorm
        p.rmsnorm.log2_d = n.log2_d;
        p.rmsnorm.lo = n.lo;
        p.rmsnorm.hi = n.hi;
        return p;
    }
    tsr_op_attrs linear(uint32_t l, LinearRole role, uint32_t split0, uint32_t split1) const override
    {
        const LinearRqs *stacked = stacked_of(l, role);
        const LinearRqs &lin = stacked ? *stacked : *unfused(l, role);
        tsr_op_attrs p{};
        p.matmul.split[0] = split0;
        p.matmul.split[1] = split1;
        p.matmul.k = lin.k;
        p.matmul.n = lin.n;
        p.matmul.weight_dtype = TSR_DTYPE_I8;
        p.matmul.out_dtype = TSR_DTYPE_I8;
        p.matmul.requant = tables_[l][size_t(role)];
        p.matmul.requant_form = TSR_REQUANT_RQS;
        p.matmul.rqs_shift = lin.range.shift;
        p.matmul.rqs_lo = lin.range.lo;
        p.matmul.rqs_hi = lin.range.hi;
        return p;
    }
    tsr_op_attrs kv_requant(uint32_t l, bool values) const override
    {
        tsr_op_attrs p{};
        p.requant.n = info_.dim;
        p.requant.rqs = values ? layers_[l].v_cache : layers_[l].k_cache;
        return p;
    }
    tsr_op_attrs add(uint32_t l, Residual site) const override
    {
        const LayerConstants &c = layers_[l];
        const bool att = site == Residual::kAttention;
        tsr_op_attrs p{};
        p.add.n = info_.dim;
        p.add.form = TSR_ADD_RQS;
        p.add.rqs_a = att ? c.res1_a : c.res2_a;
        p.add.rqs_b = kIdentity;
        p.add.rqs_y = att ? c.res1_y : c.res2_y;
        return p;
    }
    tsr_op_attrs ffn(uint32_t l) const override
    {
        const LayerConstants &c = layers_[l];
        tsr_op_attrs p{};
        p.swiglu.n = c.w1.n;
        p.swiglu.exp = TSR_SWIGLU_HARDSWISH;
        p.swiglu.three = c.three;
        p.swiglu.six = c.six;
        p.swiglu.one_over_six = c.one_over_six;
        p.swiglu.rqs_act = c.act;
        p.swiglu.rqs_y = c.ffn_y;
        return p;
    }

private:
    void rope_constants(uint32_t l, tsr_rope_attrs &p) const override
    {
        p.q = layers_[l].rope_q;
        p.k = layers_[l].rope_k;
    }
    void attention_constants(uint32_t l, tsr_attention_attrs &p) const override
    {
        p.exp = TSR_NONLINEAR_QUANTLIB;
        p.tables = attention_tables_[l];
    }
    uint32_t norm_tensor(const std::string &name, const Norm &n)
    {
        return b_.raw(name, TSR_DTYPE_I32, 1, info_.dim, raw_bytes(n.w));
    }
    const LinearRqs *unfused(uint32_t l, LinearRole role) const
    {
        const LayerConstants &c = layers_[l];
        const LinearRqs *const lin[kLinearRoles] = {&c.wq, &c.wk, &c.wv, nullptr, &c.wo, &c.w1, &c.w3, nullptr, &c.w2};
        return lin[size_t(role)];
    }
    LinearRqs *stacked_of(uint32_t l, LinearRole role)
    {
        return role == LinearRole::kQkv ? &fused_[l][0] : role == LinearRole::kGateUp ? &fused_[l][1] : nullptr;
    }
    const LinearRqs *stacked_of(uint32_t l, LinearRole role) const
    {
        return const_cast<IntegerLayers *>(this)->stacked_of(l, role);
    }
    static bool stack(std::initializer_list<const LinearRqs *> parts, LinearRqs &out)
    {
        const LinearRqs &first = **parts.begin();
        out = LinearRqs{};
        out.k = first.k;
        out.range = first.range;
        for (const LinearRqs *p : parts) {
            if (p->k != first.k || p->range.shift != first.range.shift || p->range.lo != first.range.lo ||
                p->range.hi != first.range.hi)
                return false;
            out.n += p->n;
            out.w.insert(out.w.end(), p->w.begin(), p->w.end());
            out.mul.insert(out.mul.end(), p->mul.begin(), p->mul.end());
        }
        for (const LinearRqs *p : parts) out.add.insert(out.add.end(), p->add.begin(), p->add.end());
        return true;
    }

    const bool fuse_;
    const std::vector<LayerConstants> &layers_;
    const Norm &final_;
    std::vector<std::array<uint32_t, kLinearRoles>> tables_; // each linear's RequantShift table
    std::vector<std::array<LinearRqs, 2>> fused_;            // the stacked QKV and W1/W3 (shapes kept)
    std::vector<uint32_t> attention_tables_;
};

// The float graph: Llama's fp32 operators, with the float forms of QuantLib's RoPE matrix,
// bias and HardSwish.
class FloatLayers final : public QuantLibLayers {
public:
    FloatLayers(Graph &g, const OnnxDecoderInfo &info, uint32_t context, const std::vector<FloatLayer> &layers,
                const std::vector<float> &final_norm)
        : QuantLibLayers(g, info, context, TSR_DTYPE_F32), layers_(layers), final_(final_norm), bias_(layers.size())
    {
    }

    void final_weights()
    {
        final_norm_ = b_.raw("final_norm", TSR_DTYPE_F32, 1, info_.dim, raw_bytes(final_));
        b_.graph().sampler_scratch = b_.tensor("sampler_scratch", TSR_TENSOR_SCRATCH, 1, 16, TSR_DTYPE_F32);
    }

    uint32_t norm_weight(uint32_t l, NormSite site) override
    {
        const bool att = site == NormSite::kAttention;
        return b_.raw(prefix(l) + (att ? "attn_norm" : "ffn_norm"), TSR_DTYPE_F32, 1, info_.dim,
                      raw_bytes(att ? layers_[l].att_norm : layers_[l].ffn_norm));
    }
    bool fuses(uint32_t, LinearRole) override { return false; }
    uint32_t linear_weight(uint32_t l, LinearRole role) override
    {
        const FloatLinear &lin = of(l, role);
        const std::string name = prefix(l) + linear_name(role);
        const uint32_t w = b_.raw(name, TSR_DTYPE_F32, lin.n, lin.k, raw_bytes(lin.w));
        bias_[l][size_t(role)] = b_.raw(name + ".bias", TSR_DTYPE_F32, 1, lin.n, raw_bytes(lin.bias));
        return w;
    }

    // QuantLib's float RMSNorm: its eps is not in the graph; 1e-6 is the value whose results
    // come closest to Deeploy's outputs.npz (eps 0 and 1e-5 are further).
    tsr_op_attrs norm(uint32_t, NormSite) const override
    {
        tsr_op_attrs p{};
        p.rmsnorm.dim = info_.dim;
        p.rmsnorm.eps = 1e-6f;
        return p;
    }
    tsr_op_attrs linear(uint32_t l, LinearRole role, uint32_t, uint32_t) const override
    {
        const FloatLinear &lin = of(l, role);
        tsr_op_attrs p{};
        p.matmul.k = lin.k;
        p.matmul.n = lin.n;
        p.matmul.weight_dtype = TSR_DTYPE_F32;
        p.matmul.out_dtype = TSR_DTYPE_F32;
        p.matmul.requant = bias_[l][size_t(role)];
        p.matmul.requant_form = TSR_REQUANT_BIAS;
        return p;
    }
    tsr_op_attrs add(uint32_t, Residual) const override
    {
        tsr_op_attrs p{};
        p.add.n = info_.dim;
        return p;
    }
    tsr_op_attrs ffn(uint32_t l) const override
    {
        tsr_op_attrs p{};
        p.swiglu.n = layers_[l].w1.n;
        p.swiglu.exp = TSR_SWIGLU_HARDSWISH;
        return p;
    }

private:
    const FloatLinear &of(uint32_t l, LinearRole role) const
    {
        const FloatLayer &c = layers_[l];
        const FloatLinear *const lin[kLinearRoles] = {&c.wq, &c.wk, &c.wv, nullptr, &c.wo, &c.w1, &c.w3, nullptr, &c.w2};
        return *lin[size_t(role)];
    }

    const std::vector<FloatLayer> &layers_;
    const std::vector<float> &final_;
    std::vector<std::array<uint32_t, kLinearRoles>> bias_;
};

} // namespace

Graph lower_onnx_decoder(const std::string &path, const OnnxLowering &options, OnnxDecoderInfo &info)
{
    return lower_onnx_decoder_bytes(read_onnx_file(path), path, options, info);
}

Graph lower_onnx_decoder_bytes(const std::string &bytes, const std::string &path, const OnnxLowering &options,
                               OnnxDecoderInfo &info)
{
    const OnnxModel model(bytes, path, kSupported);
    info = OnnxDecoderInfo{};
    info.path = path;
    info.nodes = uint64_t(model.graph().node_size());
    info.opset = uint64_t(model.opset());
    if (info.opset && info.opset < 10) model.fail("opset " + std::to_string(info.opset) + " (10 or later)");
    bool integer = false; // QuantLib's integer operators, or the float graph
    for (const onnx::NodeProto &n : model.graph().node()) integer = integer || n.op_type() == "RequantShift";
    std::vector<LayerConstants> layers_c;
    Norm final_norm;
    std::vector<FloatLayer> float_layers;
    std::vector<float> float_final;
    if (integer) DecoderReader(model).read(info, layers_c, final_norm);
    else FloatReader(model).read(info, float_layers, float_final);

    const uint32_t context = options.context ? options.context : std::max<uint32_t>(256u, info.past + info.rows);
    if (context > TSR_QUANTLIB_MAX_CONTEXT)
        throw InputError("--context " + std::to_string(context) + ": QuantLib attention holds at most 2048 positions");
    if (context < info.past + info.rows)
        throw InputError("--context " + std::to_string(context) + " is below the graph's S_past + S = " +
                         std::to_string(info.past + info.rows));
    const uint32_t chunk = options.prompt_chunk ? options.prompt_chunk : info.rows > 1 ? info.rows : std::min(16u, context);
    if (chunk > context) throw InputError("--prompt-chunk " + std::to_string(chunk) + " is above the context " + std::to_string(context));

    Graph g;
    ModelHyper &h = g.hyper;
    h.dim = info.dim;
    h.hidden_dim = info.hidden_dim;
    h.n_layers = info.n_layers;
    h.n_heads = h.n_kv_heads = info.n_heads;
    h.vocab_size = 0;
    h.seq_len = context;
    h.context = context;
    h.prompt_chunk = chunk;
    h.bos_id = h.eos_id = 0;
    h.precision = integer ? TSR_DTYPE_I8 : TSR_DTYPE_F32;
    h.decoder_only = true;
    const DecoderShape shape{info.dim, info.dim, info.hidden_dim, info.n_layers, context};
    DecoderArch arch; // Llama's, with QuantLib's Hardswish GLU; the integer graph requantizes K and V
    arch.ffn_label = "hardswish_glu";
    auto lower = [&](auto &layers) {
        DecoderBuilder decoder(g, arch, shape, layers);
        decoder.weights();
        layers.final_weights();
        layers.schedule(decoder, g.prompt, chunk, ".prompt", g.tokens_prompt, g.logits_prompt, g.rotation_prompt);
        layers.schedule(decoder, g.token, 1, ".token", g.tokens_token, g.logits_token, g.rotation_token);
    };
    if (integer) {
        IntegerLayers layers(g, info, context, options.fuse_linears, layers_c, final_norm);
        arch.kv_requant = true;
        lower(layers);
    } else {
        FloatLayers layers(g, info, context, float_layers, float_final);
        lower(layers);
    }
    return g;
}

} // namespace tessera
