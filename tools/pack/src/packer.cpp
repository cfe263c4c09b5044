#include "tessera/pack/packer.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <filesystem>
#include <sstream>

#include "tessera/board_desc.h"
#include "tessera/host_board.hpp"
#include "tessera/models/gguf.h"
#include "tessera/models/hf.h"
#include "tessera/models/llama.h"
#include "tessera/models/onnx.h"
#include "tessera/pack/calibration.h"
#include "tessera/tessera.h"
#include "tessera/pack/image_writer.h"
#include "tessera/pack/memory_map_svg.h"
#include "tessera/pack/tiler.h"
#include "tessera/pack/variant_list.h"
#include "tessera/tools/output_file.h"

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

// The model and its vocabulary from the checkpoint: a Hugging Face directory (its
// tokenizer.model) or a GGUF file carries its own tokenizer (--tokenizer overrides
// it); a llama2.c one has it beside it or named.
struct LoadedModel {
    LlamaCheckpoint checkpoint;
    Vocabulary vocabulary;
    std::string tokenizer; // where the vocabulary came from
};

LoadedModel load_model(const PackOptions &o)
{
    LoadedModel m;
    std::error_code ec;
    if (fs::is_directory(o.checkpoint, ec) && !is_hf_directory(o.checkpoint))
        throw InputError(o.checkpoint + ": a directory without config.json (a Hugging Face Llama directory holds "
                         "config.json, model.safetensors and tokenizer.model)");
    if (is_hf_directory(o.checkpoint)) {
        HfModel h = read_hf_directory(o.checkpoint);
        m.checkpoint = std::move(h.checkpoint);
        m.vocabulary = std::move(h.vocabulary);
        m.tokenizer = h.tokenizer;
    } else if (is_gguf(o.checkpoint)) {
        GgufModel g = read_gguf(o.checkpoint);
        m.checkpoint = std::move(g.checkpoint);
        m.vocabulary = std::move(g.vocabulary);
        m.tokenizer = o.checkpoint + " (tokenizer.ggml.* metadata)";
    } else {
        m.checkpoint = read_llama2c_checkpoint(o.checkpoint);
    }
    if (!o.tokenizer.empty() || m.tokenizer.empty()) {
        m.tokenizer = find_tokenizer(o, m.checkpoint.config.vocab_size);
        m.vocabulary = read_llama2c_tokenizer(m.tokenizer, m.checkpoint.config.vocab_size);
    }
    return m;
}

// What every lowered graph gets before planning: the sampler scratch is also the
// device tokenizer's work area (room for any text whose tokens fit the context), and
// the runtime resolves every step once, at open, into a table of its own.
void finish_graph(Graph &g, const Vocabulary &vocab)
{
    if (!g.hyper.decoder_only) {
        GraphTensor &scratch = g.tensors[g.sampler_scratch];
        scratch.bytes = std::max<uint64_t>(scratch.bytes, tsr_encode_work_bytes(g.hyper.context, vocab.max_token_length));
    }
    GraphTensor table;
    table.name = "step_table";
    table.kind = TSR_TENSOR_STEP_TABLE;
    table.rows = uint32_t(g.prompt.steps.size() + g.token.steps.size());
    table.cols = TSR_STEP_TABLE_ENTRY_BYTES / 4;
    g.step_table = g.add(std::move(table));
}

// The calibration text, refused when it is not: larger than 64 MiB, a NUL byte, or a
// byte sequence that is not UTF-8 (overlong forms and surrogates included), naming
// the line and its byte.
std::string read_utf8_text(const std::string &path)
{
    uint64_t size = 0;
    read_file_head(path, 0, &size);
    constexpr uint64_t kMaxBytes = 64u << 20;
    if (size > kMaxBytes)
        throw InputError(path + ": " + std::to_string(size) + " bytes of calibration text; at most " +
                         std::to_string(kMaxBytes) + " are read");
    const std::vector<uint8_t> b = read_checkpoint_bytes(path);
    uint64_t line = 1, line_start = 0;
    for (size_t i = 0; i < b.size();) {
        const uint8_t c = b[i];
        size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1Fu : n == 3 ? c & 0x0Fu : c & 0x07u;
        bool ok = n != 0 && c != 0 && i + n <= b.size();
        for (size_t k = 1; ok && k < n; ++k) {
            ok = (b[i + k] & 0xC0) == 0x80;
            cp = cp << 6 | (b[i + k] & 0x3Fu);
        }
        static const uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (ok && n > 1) ok = cp >= kMin[n] && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
        if (!ok) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02X", c);
            throw InputError(path + ":" + std::to_string(line) + ": byte " + std::to_string(i - line_start + 1) + " (" +
                             hex + ") is " + (c == 0 ? "a NUL" : "not UTF-8") +
                             "; the calibration text must be UTF-8 text");
        }
        if (c == '\n') ++line, line_start = i + 1;
        i += n;
    }
    return std::string(b.begin(), b.end());
}

// The lines of a calibration text as token ids (BOS first), encoded by the device
// tokenizer itself: an fp32 image of the model, opened on the host board.
std::vector<std::vector<int32_t>> encode_calibration_text(const std::string &path, Graph &fp32,
                                                          const Vocabulary &vocab)
{
    std::istringstream in(read_utf8_text(path));
    const BoardDesc host = load_board_desc("host");
    const MemoryPlan plan = plan_memory(fp32, host, PlanOptions{});
    std::vector<uint8_t> image = build_image(fp32, vocab, plan, host);
    auto board = HostBoard::create(host, 1);
    tessera_session session;
    if (tessera_open(&session, image.data(), image.size(), board->hal()) != TESSERA_OK)
        throw PlanError(std::string("calibration image: ") + tessera_last_error(&session));
    std::vector<std::vector<int32_t>> out;
    std::vector<int32_t> ids(fp32.hyper.context);
    std::string line;
    uint32_t number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        uint32_t count = 0;
        const tessera_status st = tessera_encode(&session, line.c_str(), true, false, ids.data(), uint32_t(ids.size()), &count);
        if (st == TESSERA_ERR_CONTEXT_FULL) { // a long line: its first context's worth of words
            std::string cut = line.substr(0, fp32.hyper.context);
            if (tessera_encode(&session, cut.c_str(), true, false, ids.data(), uint32_t(ids.size()), &count) != TESSERA_OK)
                continue;
        } else if (st != TESSERA_OK) {
            tessera_close(&session);
            throw InputError(path + ":" + std::to_string(number) + ": " + tessera_last_error(&session));
        }
        out.emplace_back(ids.begin(), ids.begin() + count);
    }
    tessera_close(&session);
    if (out.empty()) throw InputError("the calibration text " + path + " has no line to encode");
    return out;
}

} // namespace

namespace {

void check_options(const PackOptions &o)
{
    const bool int8 = o.precision == Precision::kInt8, npu = o.scenario == Scenario::kNpu || o.scenario == Scenario::kNpuNms;
    if (!o.calibration.empty() && !int8) throw InputError("--calibration applies to --precision int8 only");
    if (o.weight_type == WeightType::kBf16 && o.precision != Precision::kFp32)
        throw InputError("--weight-type bf16 applies to --precision fp32 (bf16 and int8 images choose their weights)");
    if (o.weight_type == WeightType::kInt4 && !int8) throw InputError("--weight-type int4 (W4A8) applies to --precision int8");
    if (o.npu_weight_bits != 8 && o.npu_weight_bits != 4)
        throw InputError("--npu-weight-bits " + std::to_string(o.npu_weight_bits) + " is not one of 8, 4");
    if (o.npu_weight_bits != 8 && (!int8 || !npu))
        throw InputError("--npu-weight-bits 4 needs --precision int8 and --scenario npu or npu-nms");
    if (o.weight_type == WeightType::kInt4 && npu)
        throw InputError("--weight-type int4 is the cluster's W4A8; the NPU's 4-bit weights are --npu-weight-bits 4");
}

// What every plan of one pack starts from: the board and the checkpoint, read once.
struct PackInputs {
    BoardDesc board;
    LlamaCheckpoint checkpoint;
    Vocabulary vocabulary;
    std::string tokenizer;
};

PackInputs load_inputs(const PackOptions &o)
{
    PackInputs in;
    in.board = load_board_desc(o.board);
    LoadedModel loaded = load_model(o);
    in.checkpoint = std::move(loaded.checkpoint);
    in.vocabulary = std::move(loaded.vocabulary);
    in.tokenizer = loaded.tokenizer;
    if (in.vocabulary.max_token_length > TSR_MAX_TOKEN_BYTES)
        throw InputError(in.tokenizer + ": max_token_length " + std::to_string(in.vocabulary.max_token_length) +
                         " exceeds the device tokenizer's " + std::to_string(TSR_MAX_TOKEN_BYTES));
    return in;
}

LlamaLowering lowering_for(const PackOptions &o, const LlamaConfig &config)
{
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
    lowering.precision = o.precision == Precision::kInt8   ? TSR_DTYPE_I8
                         : o.precision == Precision::kBf16 ? TSR_DTYPE_BF16
                                                          : TSR_DTYPE_F32;
    lowering.exp = o.exp == ExpKind::kSchraudolph ? 1u : 0u; // tsr_exp_kind
    lowering.nonlinear = o.nonlinear == Nonlinear::kFloat ? TSR_NONLINEAR_FLOAT : TSR_NONLINEAR_INTEGER;
    lowering.linear_bits = o.npu_weight_bits;
    return lowering;
}

// An int8 image's activation scales: the fp32 model run on the calibration text, or on
// its own continuations. `sizing_only` (a dry run) runs BOS alone: the scales' values
// change no size, and their names are those of every activation.
std::map<std::string, double> calibrate_for(const PackOptions &o, const PackInputs &in, PackResult &r, bool sizing_only)
{
    const auto c0 = std::chrono::steady_clock::now();
    LlamaLowering fp32 = lowering_for(o, in.checkpoint.config);
    fp32.precision = TSR_DTYPE_F32;
    fp32.matmul_weights = TSR_DTYPE_F32;
    if (sizing_only) fp32.context = fp32.prompt_chunk = 1;
    Graph reference = lower_llama(LlamaCheckpoint(in.checkpoint), fp32);
    CalibrationOptions co;
    if (sizing_only) {
        co.sequences = {{1}};
        r.calibration = "none (--dry-run: the scales change no size)";
    } else if (!o.calibration.empty()) {
        finish_graph(reference, in.vocabulary);
        co.sequences = encode_calibration_text(o.calibration, reference, in.vocabulary);
        r.calibration = o.calibration + " (" + std::to_string(co.sequences.size()) + " lines)";
    } else {
        r.calibration = "the model's own continuations from BOS (1 greedy, " + std::to_string(co.sampled) + " sampled, " +
                        std::to_string(std::min(fp32.context, 256u)) + " tokens each)";
    }
    if (o.progress && !sizing_only)
        co.progress = [](uint32_t done, uint32_t total) {
            std::fprintf(stderr, "\rcalibrating: sequence %u of %u", done, total);
            if (done == total) std::fprintf(stderr, "\n");
            std::fflush(stderr);
        };
    std::map<std::string, double> ranges = calibrate(reference, co);
    r.calibration_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
    return ranges;
}

// Lowers, assigns engines and plans `in` under `o`, and builds the image; throws
// PlanError when it does not fit the board (memory regions or flash).
std::vector<uint8_t> plan_image(const PackOptions &o, const PackInputs &in, const std::map<std::string, double> *ranges,
                                PackResult &r)
{
    r.checkpoint_format = in.checkpoint.format;
    r.config = in.checkpoint.config;
    r.tokenizer_path = in.tokenizer;
    r.context_given = o.context != 0;
    r.weight_type = o.precision == Precision::kFp32 || o.weight_type == WeightType::kInt4 ? name_of(o.weight_type)
                                                                                        : name_of(o.precision);
    r.precision = name_of(o.precision);
    // The Llama front end: the checkpoint lowered to a graph.
    LlamaLowering lowering = lowering_for(o, in.checkpoint.config);
    lowering.ranges = ranges;
    Graph graph;
    try {
        graph = lower_llama(LlamaCheckpoint(in.checkpoint), lowering);
    } catch (const std::range_error &e) {
        throw PlanError(std::string("int8 lowering: ") + e.what());
    }
    return plan_graph(std::move(graph), in.vocabulary, in.board, o, r);
}

void release_weights(PackResult &r)
{
    for (auto &t : r.graph.tensors) std::vector<uint8_t>().swap(t.data);
}

} // namespace

std::vector<uint8_t> plan_graph(Graph graph, const Vocabulary &vocab, const BoardDesc &board, const PackOptions &o,
                                PackResult &r)
{
    try {
        derive_params(graph); // each step's variant derives its int8 factors from its operands' scales
    } catch (const std::range_error &e) {
        throw PlanError(std::string("int8 lowering: ") + e.what());
    }
    r.board = board;
    r.graph = std::move(graph);
    r.engines = assign_engines(r.graph, r.board, o.scenario, o.npu_weight_bits);
    finish_graph(r.graph, vocab);
    PlanOptions plan_options;
    plan_options.weights = o.weights;
    plan_options.l1_bytes = o.l1_bytes;
    plan_options.cores = r.engines.cores;
    r.plan = plan_memory(r.graph, r.board, plan_options);
    std::vector<uint8_t> image = build_image(r.graph, vocab, r.plan, r.board);
    r.image_bytes = image.size();
    if (const uint32_t flash = r.board.region_size[TSR_REGION_IMAGE]; flash && image.size() > flash)
        throw PlanError("the image is " + std::to_string(image.size()) + " bytes; board '" + r.board.name + "' has " +
                        std::to_string(flash) + " bytes of flash (regions.flash in its description)");
    if (r.board.cost.present()) r.estimates = standard_estimates(image.data(), image.size(), r.board);
    return image;
}

namespace {

bool is_onnx(const std::string &path)
{
    return path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
}

// The ONNX front end's graph, planned like any other: a decoder-only image.
std::vector<uint8_t> plan_onnx(const PackOptions &o, const BoardDesc &board, PackResult &r)
{
    // The graph's own precision is the image's: QuantLib's integers.
    if (o.precision == Precision::kBf16 || !o.calibration.empty() || o.weight_type != WeightType::kFp32 ||
        !o.tokenizer.empty() || o.npu_weight_bits != 8)
        throw InputError(o.checkpoint + ": an integerized ONNX graph is packed as it stands: no --precision bf16, "
                                        "--calibration, --weight-type, --tokenizer or --npu-weight-bits");
    OnnxDecoderInfo info;
    Graph graph = lower_onnx_decoder(o.checkpoint, OnnxLowering{o.context, o.prompt_chunk}, info);
    r.checkpoint_format = std::string("ONNX (QuantLib ") + (graph.hyper.precision == TSR_DTYPE_I8 ? "integer" : "float") +
                          " decoder, S " + std::to_string(info.rows) + ", S_past " +
                          std::to_string(info.past) + ", " + std::to_string(info.nodes) + " nodes)";
    r.config.dim = info.dim;
    r.config.hidden_dim = info.hidden_dim;
    r.config.n_layers = info.n_layers;
    r.config.n_heads = r.config.n_kv_heads = info.n_heads;
    r.config.seq_len = graph.hyper.seq_len;
    r.tokenizer_path = "none: decoder-only (hidden rows in and out)";
    r.context_given = o.context != 0;
    r.weight_type = r.precision = graph.hyper.precision == TSR_DTYPE_I8 ? "int8" : "fp32";
    return plan_graph(std::move(graph), Vocabulary{}, board, o, r);
}

} // namespace

PackResult pack(const PackOptions &o)
{
    const auto t0 = std::chrono::steady_clock::now();
    if (!is_onnx(o.checkpoint)) check_options(o);
    // Every output is checked (and opened) before any work; all appear at the end or none.
    // None of them may be an input: the checkpoint (the files of a Hugging Face
    // folder), the tokenizer, a board file, the calibration text.
    const std::vector<NamedPath> outputs = {{"--output", o.output},
                                            {"--report", o.report},
                                            {"--memory-map", o.memory_map},
                                            {"--emit-variants", o.variant_list}};
    std::vector<NamedPath> inputs = {{"the checkpoint", o.checkpoint}, {"the tokenizer", o.tokenizer},
                                     {"the calibration text", o.calibration}};
    check_outputs(outputs, inputs);
    OutputFile image_out(o.output);
    std::optional<OutputFile> report_out, map_out, variants_out;
    if (!o.report.empty()) report_out.emplace(o.report);
    if (!o.memory_map.empty()) map_out.emplace(o.memory_map);
    if (!o.variant_list.empty()) variants_out.emplace(o.variant_list);

    PackResult r;
    std::vector<uint8_t> image;
    if (is_onnx(o.checkpoint)) {
        const BoardDesc board = load_board_desc(o.board);
        inputs.push_back({"the board description", board.source});
        check_outputs(outputs, inputs);
        image = plan_onnx(o, board, r);
    } else {
        const PackInputs in = load_inputs(o);
        // And the files found by name, which nothing has replaced yet: the board's
        // description, a tokenizer beside a llama2.c checkpoint.
        inputs.push_back({"the board description", in.board.source});
        if (o.tokenizer.empty()) inputs.push_back({"the tokenizer", in.tokenizer});
        check_outputs(outputs, inputs);
        std::map<std::string, double> ranges;
        // Calibration: the fp32 model, run on the calibration sequences, fixes every
        // activation's scale.
        const bool int8 = o.precision == Precision::kInt8;
        if (int8) ranges = calibrate_for(o, in, r, false);
        image = plan_image(o, in, int8 ? &ranges : nullptr, r);
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    image_out.write(image.data(), image.size());
    if (report_out) report_out->write(pack_report(r).dump(1) + "\n");
    if (map_out)
        map_out->write(memory_map_svg(r.graph, r.plan, "Tessera memory plan: " + r.board.name + ", " +
                                                           std::to_string(r.plan.regions[TSR_REGION_L1].capacity) +
                                                           "-byte L1"));
    if (variants_out)
        variants_out->write(variant_list_source(image_variants(r.graph),
                                                "the image " + (o.output == "-" ? std::string("on standard output")
                                                                                : std::filesystem::path(o.output).filename().string()) +
                                                    " (board " + r.board.name + ")"));
    image_out.commit();
    if (report_out) report_out->commit();
    if (map_out) map_out->commit();
    if (variants_out) variants_out->commit();
    release_weights(r);
    return r;
}

namespace {

// Trial plans of one checkpoint and board under changed options (a dry run's search).
class FitSearch {
public:
    explicit FitSearch(const PackInputs &in) : in_(in) {}

    // The plan into `r`, or false and why not.
    bool trial(const PackOptions &o, PackResult &r, std::string *why)
    {
        try {
            plan_image(o, in_, ranges_for(o), r);
            return true;
        } catch (const PlanError &e) {
            if (why) *why = e.what();
            return false;
        }
    }

    // The largest context in [1, below] that fits (0: none); assumes that a context that
    // fits fits with fewer positions too (the KV cache and the prompt rows only shrink).
    uint32_t largest_context(const PackOptions &o, uint32_t below)
    {
        uint32_t lo = 0, hi = below; // lo fits (or 0), hi + 1 does not
        while (lo < hi) {
            const uint32_t mid = lo + (hi - lo + 1) / 2;
            PackResult r;
            if (trial(at_context(o, mid), r, nullptr)) lo = mid;
            else hi = mid - 1;
        }
        return lo;
    }

    // Smaller types than `o`'s, in the order they give up accuracy; each at the
    // requested context, or else with the largest context that fits.
    std::vector<FitAlternative> alternatives(const PackOptions &o, uint32_t context)
    {
        struct Change {
            std::string flags;
            PackOptions options;
        };
        std::vector<Change> changes;
        auto add = [&](const std::string &flags, PackOptions c) {
            if (c.precision == o.precision && c.weight_type == o.weight_type && c.npu_weight_bits == o.npu_weight_bits &&
                c.scenario == o.scenario)
                return;
            changes.push_back({flags, c});
        };
        auto with = [&](Precision precision, WeightType weight_type) {
            PackOptions c = o;
            c.precision = precision;
            c.weight_type = weight_type;
            c.calibration.clear();
            if (c.precision != Precision::kInt8) c.npu_weight_bits = 8;
            return c;
        };
        const int rank = o.precision == Precision::kFp32 ? (o.weight_type == WeightType::kFp32 ? 0 : 1)
                         : o.precision == Precision::kBf16 ? 2
                                                           : 3;
        if (rank < 1) add("--weight-type bf16", with(Precision::kFp32, WeightType::kBf16));
        if (rank < 2) add("--precision bf16", with(Precision::kBf16, WeightType::kFp32));
        if (rank < 3) add("--precision int8", with(Precision::kInt8, WeightType::kFp32));
        if (in_.board.has_npu && o.npu_weight_bits == 8) {
            PackOptions c = with(Precision::kInt8, WeightType::kFp32);
            c.scenario = Scenario::kNpuNms;
            c.npu_weight_bits = 4;
            add("--precision int8 --scenario npu-nms --npu-weight-bits 4", c);
        }
        std::vector<FitAlternative> out;
        for (const Change &c : changes) {
            FitAlternative a;
            a.flags = c.flags;
            PackResult r;
            if (trial(c.options, r, nullptr)) {
                a.context = context;
                a.image_bytes = r.image_bytes;
            } else {
                a.context = context > 1 ? largest_context(c.options, context - 1) : 0;
            }
            out.push_back(a);
        }
        return out;
    }

private:
    static PackOptions at_context(PackOptions o, uint32_t context)
    {
        o.context = context;
        if (o.prompt_chunk > context) o.prompt_chunk = context;
        return o;
    }
    // Sizing scales per non-linearity: every int8 alternative has the same names.
    const std::map<std::string, double> *ranges_for(const PackOptions &o)
    {
        if (o.precision != Precision::kInt8) return nullptr;
        auto it = scales_.find(o.nonlinear);
        if (it == scales_.end()) {
            PackResult ignored;
            it = scales_.emplace(o.nonlinear, calibrate_for(o, in_, ignored, true)).first;
        }
        return &it->second;
    }

    const PackInputs &in_;
    std::map<Nonlinear, std::map<std::string, double>> scales_;
};

} // namespace

FitReport what_fits(const PackOptions &requested)
{
    const auto t0 = std::chrono::steady_clock::now();
    check_options(requested);
    const PackInputs in = load_inputs(requested);
    FitReport f;
    f.context = requested.context ? requested.context : in.checkpoint.config.seq_len;
    lowering_for(requested, in.checkpoint.config); // the command line's own errors first
    FitSearch search(in);
    PackOptions o = requested;
    o.context = f.context;
    f.fits = search.trial(o, f.result, &f.reason);
    if (o.precision == Precision::kInt8) f.result.calibration = "none (--dry-run: the scales change no size)";
    if (!f.fits) {
        f.largest_context = f.context > 1 ? search.largest_context(o, f.context - 1) : 0;
        f.alternatives = search.alternatives(o, f.context);
    }
    release_weights(f.result);
    f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    f.result.seconds = f.seconds;
    return f;
}

std::string fit_summary(const FitReport &f)
{
    std::ostringstream s;
    if (f.fits) {
        s << pack_summary(f.result);
        s << "dry run   fits; no file written\n";
        return s.str();
    }
    s << "dry run   does not fit at context " << f.context << ": " << f.reason << "\n";
    if (f.largest_context)
        s << "context   the largest that fits: " << f.largest_context << " (--context " << f.largest_context << ")\n";
    else
        s << "context   none fits, not even 1 position\n";
    for (const FitAlternative &a : f.alternatives) {
        s << "type      " << a.flags << ": ";
        if (a.context == f.context)
            s << "fits at context " << f.context << " (image " << a.image_bytes << " bytes)\n";
        else if (a.context)
            s << "fits up to context " << a.context << " (--context " << a.context << ")\n";
        else
            s << "does not fit either\n";
    }
    s << "no file written (" << static_cast<int>(f.seconds * 1000) << " ms)\n";
    return s.str();
}

namespace {

// The planner's cycles of one run of a schedule (0 prompt, 1 token): each step's cost
// alone, added up (a serial sum; the estimates give the critical path).
double serial_cycles(const PackResult &r, uint32_t schedule)
{
    double sum = 0;
    for (const StepPlan &sp : r.plan.steps)
        if (sp.schedule == schedule) sum += sp.choice.cost.cycles;
    return sum;
}

} // namespace

std::string pack_summary(const PackResult &r)
{
    const LlamaConfig &c = r.config;
    const ModelHyper &h = r.graph.hyper;
    std::ostringstream s;
    s << "model     " << r.checkpoint_format << ": dim " << c.dim << ", hidden " << c.hidden_dim << ", " << c.n_layers
      << " layers, " << c.n_heads << " heads (" << c.n_kv_heads << " KV)";
    if (h.decoder_only)
        s << ", decoder only: hidden rows in and out\n";
    else
        s << ", vocab " << c.vocab_size << ", seq_len " << c.seq_len
          << (c.shared_classifier ? ", shared classifier" : ", separate classifier") << "\n";
    s << "tokenizer " << r.tokenizer_path << "\n";
    s << "precision " << r.precision
      << (r.precision == "fp32" ? ", " + r.weight_type + " matmul weights"
          : r.weight_type == "int4" ? ", W4A8: the decoder layers' weights in 4 bits, groups of 32" : "")
      << "\n";
    if (!r.calibration.empty())
        s << "calibrate " << r.calibration << " in " << static_cast<int>(r.calibration_seconds * 1000) << " ms\n";
    s << "board     " << r.board.name << " (" << r.board.cores << " cores), context " << h.context
      << (r.context_given ? " (--context)"
          : h.decoder_only ? " (max(256, S_past + S) of the graph; --context N for another)"
                           : " (the checkpoint's seq_len; --context N to use fewer)")
      << ", prompt chunk "
      << h.prompt_chunk << "\n";
    s << "engines   scenario " << name_of(r.engines.scenario) << ": " << r.engines.cores << " cluster core"
      << (r.engines.cores == 1 ? "" : "s") << ", " << r.engines.npu_steps << " NPU steps";
    if (r.engines.npu_steps)
        s << " (" << r.engines.weight_bits << "-bit weights; " << r.engines.nms_weights.size() << " weight tensors, "
          << r.engines.nms_bytes << " bytes, in NMS; " << r.engines.streamed_weights.size()
          << " streamed from " << (r.plan.weights_in_place ? "the image" : "L2") << ")";
    s << "\n";
    for (const std::string &w : r.engines.streamed_weights) s << "npu       " << w << " streams (NMS full)\n";
    for (const std::string &w : r.engines.cluster_linear) s << "cluster   " << w << "\n";
    s << "weights   " << r.plan.weights_bytes << " bytes, "
      << (r.plan.weights_in_place ? "used in place from the image" : "copied to L2 at open") << "\n";
    for (uint32_t reg = TSR_REGION_L1; reg < TSR_REGION_COUNT; ++reg) {
        const RegionPlan &p = r.plan.regions[reg];
        if (!p.arena_bytes) continue;
        s << "region    " << tsr_region_name(reg) << ": arena " << p.arena_bytes << " bytes, lower bound "
          << p.lower_bound << " (" << p.method << ")";
        for (int k = 0; k < 2; ++k)
            s << "; " << (k ? "token" : "prompt") << " " << p.schedule_arena[k] << " / " << p.schedule_lower_bound[k];
        s << "; capacity " << p.capacity << "\n";
    }
    s << "tiles     " << r.plan.demoted.size() << " activations moved to L2; planned DMA bytes per token with half the "
      << "context cached (position " << h.context / 2 << "): prompt " << r.plan.dma_bytes_per_token[0] << " (per row of a "
      << h.prompt_chunk << "-row chunk), token " << r.plan.dma_bytes_per_token[1] << "\n";
    s << "schedules prompt " << r.graph.prompt.steps.size() << " steps x " << r.graph.prompt.max_rows << " rows, token "
      << r.graph.token.steps.size() << " steps; the planner's cycles, serial sum of the steps at position "
      << h.context / 2 << ": prompt " << static_cast<uint64_t>(serial_cycles(r, 0)) << " per chunk, token "
      << static_cast<uint64_t>(serial_cycles(r, 1)) << " per token\n";
    s << "image     " << r.image_bytes << " bytes";
    if (const uint32_t flash = r.board.region_size[TSR_REGION_IMAGE])
        s << " of " << flash << " bytes of flash";
    else
        s << " (the board gives no flash size: not checked)";
    s << " in " << static_cast<int>(r.seconds * 1000) << " ms\n";
    s << estimate_lines(r.estimates, r.board);
    return s.str();
}

namespace {

// One schedule's part of the report: its steps' operands, tiles, staging and planned costs.
nlohmann::json schedule_report(const PackResult &r, const GraphSchedule &s, uint32_t which)
{
    using nlohmann::json;
    const Graph &g = r.graph;
    json steps = json::array();
    for (const StepPlan &sp : r.plan.steps) {
        if (sp.schedule != which) continue;
        const GraphStep &st = s.steps[sp.index];
        json ops = json::array(), staged = json::array();
        for (uint32_t k = 0; k < st.operand_count; ++k) {
            const bool scratch = st.operands[k] == TSR_NO_TENSOR;
            const std::string name = scratch ? "(scratch)" : g.tensors[st.operands[k]].name;
            ops.push_back(name);
            if (st.staging[k] != TSR_NO_TENSOR) staged.push_back(name);
        }
        json tile = json::object();
        switch (tsr_op_tile_kind(st.op)) {
        case TSR_TILE_MATMUL: tile = {{"rows", st.tile[0]}, {"cols", st.tile[1]}}; break;
        case TSR_TILE_POSITIONS: tile = {{"cached_positions", st.tile[0]}}; break;
        case TSR_TILE_ROWS: tile = {{"rows", st.tile[0]}}; break;
        case TSR_TILE_MOVE: break;
        }
        steps.push_back({{"label", st.label},
                         {"op", tsr_op_name(st.op)},
                         {"layer", st.layer == TSR_NO_LAYER ? json(nullptr) : json(st.layer)},
                         {"rows", (st.flags & TSR_STEP_ONE_ROW) ? 1u : s.max_rows},
                         {"engine", st.engine == TSR_ENGINE_DMA ? "dma" : st.engine == TSR_ENGINE_NPU ? "npu" : "cluster"},
                         {"operands", ops},
                         {"staged", staged},
                         {"tile", tile},
                         {"l1_staging_bytes", sp.choice.l1_bytes},
                         {"dma_bytes", sp.choice.cost.dma_bytes},
                         {"dma_transfers", sp.choice.cost.dma_transfers},
                         {"tiles", sp.choice.cost.tiles},
                         {"estimated_cycles", sp.choice.cost.cycles}});
    }
    return json{{"max_rows", s.max_rows},
                {"planned_at_position", g.hyper.context / 2},
                {"dma_bytes_per_token", r.plan.dma_bytes_per_token[which]},
                {"estimated_cycles_serial_sum", serial_cycles(r, which)},
                {"steps", steps}};
}

} // namespace

nlohmann::json pack_report(const PackResult &r)
{
    using nlohmann::json;
    const Graph &g = r.graph;
    json j;
    j["format"] = "tessera-pack-report/1";
    j["checkpoint"] = {{"format", r.checkpoint_format}, {"dim", r.config.dim}, {"hidden_dim", r.config.hidden_dim},
                       {"n_layers", r.config.n_layers}, {"n_heads", r.config.n_heads},
                       {"n_kv_heads", r.config.n_kv_heads}, {"vocab_size", r.config.vocab_size},
                       {"seq_len", r.config.seq_len}, {"shared_classifier", r.config.shared_classifier}};
    j["board"] = {{"name", r.board.name}, {"fingerprint", r.board.fingerprint()}, {"cores", r.board.cores}};
    j["image"] = {{"bytes", r.image_bytes}, {"context", g.hyper.context}, {"prompt_chunk", g.hyper.prompt_chunk},
                  {"prompt_logits", g.hyper.prompt_logits_all ? "all" : "last"},
                  {"weight_type", r.weight_type}, {"precision", r.precision},
                  {"weights_bytes", r.plan.weights_bytes}, {"weights_in_place", r.plan.weights_in_place}};
    json regions = json::object();
    for (uint32_t reg = TSR_REGION_L1; reg < TSR_REGION_COUNT; ++reg) {
        const RegionPlan &p = r.plan.regions[reg];
        if (!p.capacity) continue;
        regions[tsr_region_name(reg)] = {
            {"size", p.capacity},
            {"arena_bytes", p.arena_bytes},
            {"lower_bound_bytes", p.lower_bound},
            {"weights_bytes", p.weights_bytes},
            {"allocation", p.method},
            {"schedules",
             {{"prompt", {{"arena_bytes", p.schedule_arena[0]}, {"lower_bound_bytes", p.schedule_lower_bound[0]}}},
              {"token", {{"arena_bytes", p.schedule_arena[1]}, {"lower_bound_bytes", p.schedule_lower_bound[1]}}}}}};
    }
    j["regions"] = regions;
    json tensors = json::array();
    for (size_t i = 0; i < g.tensors.size(); ++i) {
        const GraphTensor &t = g.tensors[i];
        tensors.push_back({{"id", i}, {"name", t.name}, {"kind", tsr_tensor_kind_name(t.kind)},
                           {"region", tsr_region_name(r.plan.region[i])},
                           {"offset", r.plan.offset[i]}, {"bytes", t.bytes}, {"rows", t.rows}, {"cols", t.cols},
                           {"first", r.plan.lifetime[i].first}, {"last", r.plan.lifetime[i].last}});
    }
    j["tensors"] = tensors;
    j["schedules"] = {{"prompt", schedule_report(r, g.prompt, 0)}, {"token", schedule_report(r, g.token, 1)}};
    json demoted = json::array();
    for (uint32_t id : r.plan.demoted) demoted.push_back(g.tensors[id].name);
    j["activations_in_l2"] = demoted;
    j["timeline_length"] = r.plan.timeline_length;
    j["engines"] = {{"scenario", name_of(r.engines.scenario)}, {"cluster_cores", r.engines.cores},
                    {"npu_steps", r.engines.npu_steps}, {"npu_weight_bits", r.engines.weight_bits},
                    {"nms_bytes", r.engines.nms_bytes}, {"nms_weights", r.engines.nms_weights},
                    {"streamed_weights", r.engines.streamed_weights}, {"cluster_linear", r.engines.cluster_linear}};
    if (!r.estimates.empty()) j["estimates"] = estimate_json(r.estimates, r.board);
    // What each figure counts, in the words the summary and tessera-generate use.
    j["what_figures_count"] = {
        {"schedules.*.dma_bytes_per_token",
         "planned DMA bytes per token with half the context cached (position planned_at_position); the prompt's per "
         "row of a max_rows-row chunk"},
        {"schedules.*.steps[].dma_bytes", "planned DMA bytes of the step in one run of the schedule (a prompt chunk of "
                                          "max_rows rows, or one token), at position planned_at_position"},
        {"schedules.*.steps[].estimated_cycles",
         "the planner's cycles of the step alone in one run, at position planned_at_position; their sum is "
         "estimated_cycles_serial_sum, a serial sum and not the critical path (estimates.runs[] give that)"},
        {"estimates.runs[].cycles_per_token",
         "the board cost model's critical path of one run at that position, engines overlapping, divided by its rows"},
        {"estimates.runs[].busy_cycles_per_token",
         "cycles each engine is busy in that run, per token; they overlap, so their sum exceeds the critical path"},
        {"estimates.runs[].dma_bytes_per_token", "DMA bytes of one run at that position, divided by its rows"}};
    return j;
}

} // namespace tessera
