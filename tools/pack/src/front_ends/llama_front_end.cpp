// The Llama front ends: a llama2.c checkpoint, a GGUF file or a Hugging Face directory,
// each read into a LlamaCheckpoint and its vocabulary, then lowered by lower_llama at
// the precision the command line asks for (int8 calibrated on the fp32 model).
#include <chrono>
#include <filesystem>
#include <map>

#include "calibration_text.h"
#include "front_end_rows.h"
#include "tessera/errors.h"
#include "tessera/models/gguf.h"
#include "tessera/models/hf.h"
#include "tessera/models/llama.h"
#include "tessera/pack/calibration.h"
#include "tessera/pack/packer.h"
#include "tessera/tessera.h"
#include "tessera/tools/progress.h"

namespace fs = std::filesystem;

namespace tessera {

namespace {

std::string find_tokenizer(const PackOptions &o, uint32_t vocab)
{
    if (!o.tokenizer.empty()) return o.tokenizer;
    const fs::path dir = fs::path(o.checkpoint).parent_path();
    for (const std::string name : {"tok" + std::to_string(vocab) + ".bin", std::string("tokenizer.bin")}) {
        const fs::path candidate = dir / name;
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec)) return candidate.string();
    }
    throw InputError("no tokenizer given and neither tok" + std::to_string(vocab) + ".bin nor tokenizer.bin is beside " +
                     o.checkpoint + "; pass --tokenizer FILE");
}

class LlamaModel : public LoadedModel {
public:
    // `vocabulary` and `tokenizer` empty: the tokenizer is a llama2.c one, named or beside.
    LlamaModel(const PackOptions &o, const char *front_end, LlamaCheckpoint checkpoint, Vocabulary vocabulary,
               std::string tokenizer)
        : checkpoint_(std::move(checkpoint)), vocabulary_(std::move(vocabulary)), progress_(o.progress)
    {
        if (!o.tokenizer.empty() || tokenizer.empty()) {
            tokenizer = find_tokenizer(o, checkpoint_.config.vocab_size);
            vocabulary_ = read_llama2c_tokenizer(tokenizer, checkpoint_.config.vocab_size);
            if (o.tokenizer.empty()) found_tokenizer_ = tokenizer;
        }
        if (vocabulary_.max_token_length > TSR_MAX_TOKEN_BYTES)
            throw InputError(tokenizer + ": max_token_length " + std::to_string(vocabulary_.max_token_length) +
                             " exceeds the device tokenizer's " + std::to_string(TSR_MAX_TOKEN_BYTES));
        const LlamaConfig &c = checkpoint_.config;
        d_.front_end = front_end;
        d_.format = checkpoint_.format;
        d_.tokenizer = tokenizer;
        if (vocabulary_.byte_level) // what the device does with text
            d_.tokenizer += vocabulary_.gpt2_pretokenizer
                                ? " (byte-level BPE, " + std::to_string(vocabulary_.merges.size()) +
                                      " merges: the device encodes text with GPT-2's pre-tokenizer)"
                                : " (byte-level BPE whose pre-tokenizer is not GPT-2's: the device decodes, and refuses "
                                  "text)";
        ModelHyper &h = d_.hyper;
        h.dim = c.dim, h.hidden_dim = c.hidden_dim, h.n_layers = c.n_layers, h.n_heads = c.n_heads;
        h.n_kv_heads = c.n_kv_heads, h.vocab_size = c.vocab_size, h.seq_len = c.seq_len;
        h.shared_classifier = c.shared_classifier;
        h.rope_theta = c.rope_theta, h.norm_eps = c.norm_eps;
        h.bos_id = c.bos_id, h.eos_id = c.eos_id;
    }

    const ModelDescription &description() const override { return d_; }
    const Vocabulary &vocabulary() const override { return vocabulary_; }
    std::vector<std::string> other_inputs() const override
    {
        return found_tokenizer_.empty() ? std::vector<std::string>{} : std::vector<std::string>{found_tokenizer_};
    }
    uint32_t default_context() const override { return checkpoint_.config.seq_len; }

    void check_options(const PackOptions &o) const override
    {
        const bool int8 = o.precision == Precision::kInt8;
        const bool npu = o.scenario == Scenario::kNpu || o.scenario == Scenario::kNpuNms;
        const std::string shared = o.shared_table_bits == 4u ? "shared-int4" : "shared";
        if (!o.calibration.empty() && !int8) throw OptionError("--calibration applies to --precision int8 only");
        const std::string &family = checkpoint_.config.family.name;
        if (family != "llama" && o.weight_type != WeightType::kFp32)
            throw OptionError("a " + family + " model packs with --weight-type fp32 (bf16 and int8 images choose their "
                              "weights; its linear layers' biases have no W4A8 form)");
        if (o.weight_type == WeightType::kBf16 && o.precision != Precision::kFp32)
            throw OptionError("--weight-type bf16 applies to --precision fp32 (bf16 and int8 images choose their weights)");
        if (o.weight_type == WeightType::kInt4 && !int8)
            throw OptionError("--weight-type int4 (W4A8) applies to --precision int8");
        if (o.npu_weight_bits != 8 && o.npu_weight_bits != 4)
            throw OptionError("--npu-weight-bits " + std::to_string(o.npu_weight_bits) + " is not one of 8, 4");
        if (o.npu_weight_bits != 8 && (!int8 || !npu))
            throw OptionError("--npu-weight-bits 4 needs --precision int8 and --scenario npu or npu-nms");
        if (o.weight_type == WeightType::kInt4 && npu)
            throw OptionError("--weight-type int4 is the cluster's W4A8; the NPU's 4-bit weights are --npu-weight-bits 4");
        if (o.shared_table_bits && !int8) throw OptionError("--tied-embedding " + shared + " applies to --precision int8");
        if (o.shared_table_bits && !checkpoint_.config.shared_classifier)
            throw OptionError("--tied-embedding " + shared + ": this checkpoint's classifier has weights of its own, "
                              "not the embedding table's");
        lowering_for(o); // --context and --prompt-chunk against the model
    }

    Graph lower(const PackOptions &o, bool sizing_only, std::string &calibration, double &seconds) override
    {
        LlamaLowering lowering = lowering_for(o);
        if (o.precision == Precision::kInt8) lowering.ranges = &ranges_for(o, sizing_only, calibration, seconds);
        try {
            if (last_lowering_) return lower_llama(std::move(checkpoint_), lowering);
            return lower_llama(checkpoint_, lowering);
        } catch (const std::range_error &e) {
            throw PlanError(std::string("int8 lowering: ") + e.what());
        }
    }

    void lowering_for_the_last_time() override { last_lowering_ = true; }

private:
    bool last_lowering_ = false;
    LlamaLowering lowering_for(const PackOptions &o) const
    {
        const LlamaConfig &config = checkpoint_.config;
        LlamaLowering lowering;
        lowering.context = o.context ? o.context : config.seq_len;
        if (lowering.context > config.seq_len)
            throw InputError("--context " + std::to_string(o.context) + " exceeds the model's seq_len " +
                             std::to_string(config.seq_len));
        lowering.prompt_chunk = o.prompt_chunk ? o.prompt_chunk : std::min<uint32_t>(16, lowering.context);
        if (lowering.prompt_chunk > lowering.context)
            throw InputError("--prompt-chunk " + std::to_string(o.prompt_chunk) + " exceeds the context " +
                             std::to_string(lowering.context));
        lowering.prompt_logits_all = o.prompt_logits_all;
        lowering.matmul_weights = o.weight_type == WeightType::kBf16 ? TSR_DTYPE_BF16 : TSR_DTYPE_F32;
        lowering.w4_groups = o.weight_type == WeightType::kInt4;
        lowering.shared_table_bits = o.shared_table_bits;
        lowering.precision = o.precision == Precision::kInt8   ? TSR_DTYPE_I8
                             : o.precision == Precision::kBf16 ? TSR_DTYPE_BF16
                                                              : TSR_DTYPE_F32;
        lowering.exp = o.exp == ExpKind::kSchraudolph ? 1u : 0u; // tsr_exp_kind
        lowering.nonlinear = o.nonlinear == Nonlinear::kFloat ? TSR_NONLINEAR_FLOAT : TSR_NONLINEAR_INTEGER;
        lowering.linear_bits = o.npu_weight_bits;
        lowering.fuse_linears = o.fuse_linears && o.scenario != Scenario::kNpu && o.scenario != Scenario::kNpuNms;
        return lowering;
    }

    // An int8 image's activation scales: the fp32 model run on the calibration text, or on
    // its own continuations; computed once per non-linearity and kind (sizing or real).
    // `sizing_only` runs BOS alone: the scales' values change no size, and their names are
    // those of every activation.
    const std::map<std::string, double> &ranges_for(const PackOptions &o, bool sizing_only, std::string &calibration,
                                                    double &seconds)
    {
        const auto key = std::make_pair(o.nonlinear, sizing_only);
        if (auto it = ranges_.find(key); it != ranges_.end()) {
            calibration = it->second.what;
            seconds = it->second.seconds;
            return it->second.ranges;
        }
        const auto c0 = std::chrono::steady_clock::now();
        PackOptions fp32_options = o;
        fp32_options.precision = Precision::kFp32;
        fp32_options.weight_type = WeightType::kFp32;
        LlamaLowering fp32 = lowering_for(fp32_options);
        if (sizing_only) fp32.context = fp32.prompt_chunk = 1;
        Graph reference = lower_llama(checkpoint_, fp32);
        CalibrationOptions co;
        Calibrated c;
        if (sizing_only) {
            co.sequences = {{1}};
            c.what = "none (--dry-run: the scales change no size)";
        } else if (!o.calibration.empty()) {
            finish_graph(reference, vocabulary_);
            co.sequences = encode_calibration_text(o.calibration, reference, vocabulary_);
            c.what = o.calibration + " (" + std::to_string(co.sequences.size()) + " lines)";
        } else {
            c.what = "the model's own continuations from BOS (1 greedy, " + std::to_string(co.sampled) + " sampled, " +
                     std::to_string(std::min(fp32.context, 256u)) + " tokens each)";
        }
        ProgressLine progress("calibrating", "positions", progress_ && !sizing_only);
        co.progress = [&progress](uint64_t done, uint64_t total) { progress.update(done, total); };
        c.ranges = calibrate(std::move(reference), co);
        c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
        calibration = c.what;
        seconds = c.seconds;
        return ranges_.emplace(key, std::move(c)).first->second.ranges;
    }

    struct Calibrated {
        std::map<std::string, double> ranges;
        std::string what;
        double seconds = 0;
    };
    LlamaCheckpoint checkpoint_;
    Vocabulary vocabulary_;
    std::string found_tokenizer_; // a tokenizer found beside the checkpoint
    bool progress_ = false;
    ModelDescription d_;
    std::map<std::pair<Nonlinear, bool>, Calibrated> ranges_;
};

} // namespace

bool recognises_llama2c(const std::string &path)
{
    std::error_code ec;
    return fs::is_regular_file(path, ec) && is_llama2c_checkpoint(path);
}

std::unique_ptr<LoadedModel> load_llama2c(const PackOptions &o)
{
    return std::make_unique<LlamaModel>(o, "llama2.c checkpoint", read_llama2c_checkpoint(o.checkpoint), Vocabulary{},
                                        std::string());
}

bool recognises_gguf(const std::string &path)
{
    std::error_code ec;
    return fs::is_regular_file(path, ec) && is_gguf(path);
}

std::unique_ptr<LoadedModel> load_gguf(const PackOptions &o)
{
    GgufModel g = read_gguf(o.checkpoint);
    return std::make_unique<LlamaModel>(o, "GGUF", std::move(g.checkpoint), std::move(g.vocabulary),
                                        o.checkpoint + " (tokenizer.ggml.* metadata)");
}

bool recognises_hf(const std::string &path) { return is_hf_directory(path); }

std::unique_ptr<LoadedModel> load_hf(const PackOptions &o)
{
    HfModel h = read_hf_directory(o.checkpoint);
    return std::make_unique<LlamaModel>(o, "Hugging Face directory", std::move(h.checkpoint), std::move(h.vocabulary),
                                        h.tokenizer);
}

} // namespace tessera
