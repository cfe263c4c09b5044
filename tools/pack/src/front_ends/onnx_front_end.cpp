// The ONNX front end: a QuantLib-integerized decoder (or its float twin), packed as it
// stands: a decoder-only image at the graph's own precision.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <tuple>

#include "front_end_rows.h"
#include "tessera/errors.h"
#include "tessera/models/onnx.h"
#include "tessera/pack/packer.h"

namespace tessera {

namespace {

class OnnxGraphModel : public LoadedModel {
public:
    explicit OnnxGraphModel(const PackOptions &o) : path_(o.checkpoint)
    {
        std::ifstream in(path_, std::ios::binary);
        bytes_.assign(std::istreambuf_iterator<char>(in), {});
        if (in.bad()) throw InputError(path_ + ": cannot read the ONNX model");
        // Read once at its own sizes: what the graph is, before any option is applied.
        const Graph &g = graph_at(0, 0, false);
        ModelHyper &h = d_.hyper;
        h = g.hyper;
        h.seq_len = info_.past + info_.rows;
        d_.front_end = "ONNX graph";
        d_.format = std::string("ONNX (QuantLib ") + (g.hyper.precision == TSR_DTYPE_I8 ? "integer" : "float") +
                    " decoder, S " + std::to_string(info_.rows) + ", S_past " + std::to_string(info_.past) + ", " +
                    std::to_string(info_.nodes) + " nodes)";
        d_.tokenizer = "none: decoder-only (hidden rows in and out)";
        d_.fixed_precision = g.hyper.precision == TSR_DTYPE_I8 ? "int8" : "fp32";
        default_context_ = g.hyper.context;
    }

    const ModelDescription &description() const override { return d_; }
    const Vocabulary &vocabulary() const override { return vocabulary_; }
    uint32_t default_context() const override { return default_context_; }

    // The graph's precision is the image's: a flag that would change it, or that only a
    // checkpoint with a vocabulary takes, is a usage error naming the graph's precision.
    void check_options(const PackOptions &o) const override
    {
        const std::string &p = d_.fixed_precision;
        const std::string what = path_ + " is an ONNX graph quantized as it stands (" + p + "): ";
        if (o.precision_given && name_of(o.precision) != p)
            throw OptionError(what + "--precision " + name_of(o.precision) + " does not apply; it packs at " + p +
                              " (leave --precision out, or say --precision " + p + ")");
        if (o.weight_type != WeightType::kFp32)
            throw OptionError(what + "--weight-type " + name_of(o.weight_type) + " does not apply: its weights are " + p);
        if (!o.calibration.empty()) throw OptionError(what + "--calibration does not apply: its scales are the graph's");
        if (!o.tokenizer.empty()) throw OptionError(what + "--tokenizer does not apply: a decoder-only graph has no vocabulary");
        if (o.npu_weight_bits != 8) throw OptionError(what + "--npu-weight-bits 4 does not apply: its weights are 8-bit");
        if (o.nonlinear_given) throw OptionError(what + "--nonlinear does not apply: its non-linearities are the graph's");
        if (o.exp_given) throw OptionError(what + "--exp does not apply: it is not a bf16 image");
        if (o.shared_table_bits) throw OptionError(what + "--tied-embedding does not apply: a decoder-only graph has no embedding");
        if (o.prompt_logits_all) throw OptionError(what + "--prompt-logits all does not apply: a decoder-only graph has no logits");
        const bool npu = o.scenario == Scenario::kNpu || o.scenario == Scenario::kNpuNms;
        if (npu && p != "int8")
            throw OptionError(what + "--scenario " + name_of(o.scenario) + " needs an int8 graph; the NPU runs no " + p);
    }

    Graph lower(const PackOptions &o, bool, std::string &, double &) override
    {
        // Fused Q/K/V and W1/W3 steps on the cluster; an NPU job writes one output.
        const bool fuse = o.fuse_linears && o.scenario != Scenario::kNpu && o.scenario != Scenario::kNpuNms;
        return graph_at(o.context, o.prompt_chunk, fuse);
    }

private:
    // The lowered graph at (context, chunk, fused or not), lowered once and copied for each plan.
    const Graph &graph_at(uint32_t context, uint32_t chunk, bool fuse)
    {
        const auto key = std::make_tuple(context, chunk, fuse);
        if (auto it = graphs_.find(key); it != graphs_.end()) return it->second;
        OnnxDecoderInfo info;
        Graph g = lower_onnx_decoder_bytes(bytes_, path_, OnnxLowering{context, chunk, fuse}, info);
        info_ = info;
        return graphs_.emplace(key, std::move(g)).first->second;
    }

    std::string path_, bytes_;
    OnnxDecoderInfo info_;
    ModelDescription d_;
    Vocabulary vocabulary_; // none
    uint32_t default_context_ = 0;
    std::map<std::tuple<uint32_t, uint32_t, bool>, Graph> graphs_;
};

} // namespace

bool recognises_onnx(const std::string &path)
{
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec) && is_onnx_model(path);
}

std::unique_ptr<LoadedModel> load_onnx(const PackOptions &o) { return std::make_unique<OnnxGraphModel>(o); }

} // namespace tessera
