#include "tessera/pack/calibration.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <new>
#include <random>
#include <stdexcept>

#include "tessera/pack/tiler.h"

namespace tessera {

Evaluation::Evaluation(Graph &&fp32)
    : graph_(std::move(fp32)), values_(graph_.tensors.size()), at_(graph_.tensors.size(), nullptr)
{
    if (graph_.hyper.precision != TSR_DTYPE_F32) throw std::invalid_argument("calibration runs an fp32 graph");
    for (size_t i = 0; i < graph_.tensors.size(); ++i) {
        GraphTensor &t = graph_.tensors[i];
        if (t.kind == TSR_TENSOR_STEP_TABLE || t.kind == TSR_TENSOR_STAGING) continue;
        if (t.kind == TSR_TENSOR_WEIGHT && t.dtype == TSR_DTYPE_F32) {
            if (reinterpret_cast<uintptr_t>(t.data.data()) % alignof(float) == 0u) {
                at_[i] = std::launder(reinterpret_cast<float *>(t.data.data())); // its bytes were copied from floats
                continue;
            }
            values_[i].resize(t.data.size() / 4);
            std::memcpy(values_[i].data(), t.data.data(), t.data.size());
        } else if (t.kind != TSR_TENSOR_WEIGHT) {
            values_[i].assign(size_t(t.rows) * t.cols, 0.0f);
        }
        at_[i] = values_[i].data();
    }
}

std::string Evaluation::key(const std::string &name)
{
    for (const char *suffix : {".token", ".prompt"}) {
        const size_t n = std::strlen(suffix);
        if (name.size() > n && name.compare(name.size() - n, n, suffix) == 0) return name.substr(0, name.size() - n);
    }
    return name;
}

void Evaluation::record(const std::string &name, const float *v, size_t n)
{
    double &m = ranges_[name];
    for (size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(double(v[i])));
}

void Evaluation::step(int32_t token)
{
    if (pos_ >= graph_.hyper.context) throw std::out_of_range("calibration sequence longer than the context");
    if (token < 0 || uint32_t(token) >= graph_.hyper.vocab_size) throw std::out_of_range("token outside the vocabulary");
    std::memcpy(values(graph_.tokens_token), &token, 4); // an I32 tensor: EMBED's evaluation reads the bits
    for (const GraphStep &s : graph_.token.steps) {
        op_host(s.op).evaluate(s, *this);
        for (uint32_t k = 0; k < s.operand_count; ++k) {
            const uint32_t id = s.operands[k];
            if (id == TSR_NO_TENSOR) continue;
            const GraphTensor &t = graph_.tensors[id];
            if (t.kind != TSR_TENSOR_ACTIVATION) continue;
            record(key(t.name), values(id), values_[id].size());
        }
    }
    ++pos_;
}

std::map<std::string, double> calibrate(Graph &&fp32, const CalibrationOptions &o)
{
    Evaluation e(std::move(fp32));
    const Graph &g = e.graph();
    const uint32_t V = g.hyper.vocab_size;
    const uint32_t total = o.sequences.empty() ? 1u + o.sampled : uint32_t(o.sequences.size());
    const uint32_t length = o.length ? std::min(o.length, g.hyper.context) : std::min(g.hyper.context, 256u);
    uint64_t tokens = 0, done = 0; // positions to run, for the progress
    if (o.sequences.empty()) tokens = uint64_t(total) * length;
    for (const std::vector<int32_t> &s : o.sequences) tokens += std::min<uint64_t>(s.size(), g.hyper.context);
    auto step = [&](int32_t token) {
        e.step(token);
        if (o.progress) o.progress(++done, tokens);
    };
    std::mt19937_64 rng(o.seed);
    for (uint32_t n = 0; n < total; ++n) {
        e.reset();
        if (!o.sequences.empty()) {
            for (int32_t id : o.sequences[n]) {
                if (e.pos() >= g.hyper.context) break;
                step(id);
            }
        } else {
            int32_t token = int32_t(g.hyper.bos_id);
            for (uint32_t p = 0; p < length; ++p) {
                step(token);
                const float *logits = e.logits();
                if (n == 0) { // greedy
                    token = int32_t(std::max_element(logits, logits + V) - logits);
                } else { // sampled at temperature 1
                    const float mx = *std::max_element(logits, logits + V);
                    std::vector<double> p(V);
                    for (uint32_t i = 0; i < V; ++i) p[i] = std::exp(double(logits[i] - mx));
                    token = int32_t(std::discrete_distribution<int32_t>(p.begin(), p.end())(rng));
                }
            }
        }
    }
    return e.ranges();
}

} // namespace tessera
