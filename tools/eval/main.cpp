// tessera-eval: a teacher-forced run of a token sequence through a model image;
// perplexity, and top-1 agreement with a reference image (the same model at another
// precision or plan), as a table or as JSON. Or, for a decoder-only image, a run of
// another system's test vectors (--npz-inputs), its outputs written and compared.
#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstring>
#include <system_error>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tessera/tools/cli.h"
#include <nlohmann/json.hpp>

#include "tessera/host_board.hpp"
#include "tessera/tessera.h"
#include "tessera/errors.h"
#include "tessera/tools/image_file.h"
#include "tessera/tools/npz.h"
#include "tessera/tools/output_file.h"
#include "test_vectors.h"

namespace {

struct Failure {
    tessera_status status;
    std::string detail;
};

// What a teacher-forced run gives at each position i < n - 1: the log-probability of
// token i + 1, and the token the model ranks first.
struct Forced {
    std::vector<double> log_prob;
    std::vector<int32_t> top1;
    std::vector<float> logits; // each position's, when kept (--logits-out)
    const char *mode = "token"; // "prompt" when every row of a chunk had logits
    double perplexity() const
    {
        double nll = 0;
        for (double lp : log_prob) nll -= lp;
        return log_prob.empty() ? 0.0 : std::exp(nll / double(log_prob.size()));
    }
};

class Model {
public:
    Model(const std::string &path, const std::string &board_arg, uint32_t threads) : path_(path), image_(path)
    {
        if (!image_.ok()) throw Failure{TESSERA_ERR_INVALID_ARGUMENT, image_.error()};
        char detail[192];
        tessera_status st = tessera_image_peek(image_.data(), image_.size(), &summary_, detail, sizeof detail);
        if (st != TESSERA_OK) throw Failure{st, path + ": " + detail};
        try {
            board_ = tessera::HostBoard::create(
                tessera::board_for_image(board_arg, image_.data(), image_.size()), threads);
        } catch (const std::exception &e) {
            throw Failure{TESSERA_ERR_INVALID_ARGUMENT, e.what()};
        }
        st = tessera_open(&session_, image_.data(), image_.size(), board_->hal());
        if (st != TESSERA_OK) throw Failure{st, path + ": " + tessera_last_error(&session_)};
        open_ = true;
    }
    ~Model()
    {
        if (open_) tessera_close(&session_);
    }
    Model(const Model &) = delete;
    Model &operator=(const Model &) = delete;

    const tessera_image_summary &summary() const { return summary_; }
    const std::string &path() const { return path_; }
    tessera_session *session() { return &session_; }

    std::vector<int32_t> encode(const std::string &text)
    {
        std::vector<int32_t> ids(summary_.context);
        uint32_t n = 0;
        const tessera_status st =
            tessera_encode(&session_, text.c_str(), true, false, ids.data(), uint32_t(ids.size()), &n);
        if (st != TESSERA_OK) throw Failure{st, "text: " + std::string(tessera_last_error(&session_))};
        ids.resize(n);
        return ids;
    }

    // Feeds `ids` (BOS first) and scores every next token. Prompt mode when the image
    // leaves logits for every row of a chunk (tessera-pack --prompt-logits all), else
    // token mode, one step per position.
    Forced force(const std::vector<int32_t> &ids, bool keep_logits = false)
    {
        Forced f;
        tessera_reset(&session_);
        const uint32_t n = uint32_t(ids.size()), chunk = summary_.prompt_chunk;
        uint32_t pos = 0;
        bool prompt_mode = true;
        while (pos + 1 < n) {
            const uint32_t rows = prompt_mode ? std::min(chunk, n - 1 - pos) : 1u;
            tessera_status st = prompt_mode ? tessera_prompt(&session_, ids.data() + pos, rows)
                                            : tessera_step(&session_, ids[pos]);
            if (st != TESSERA_OK) throw Failure{st, path_ + ": position " + std::to_string(pos) + ": " +
                                                        tessera_last_error(&session_)};
            uint32_t have = 0;
            const float *logits = nullptr;
            st = tessera_logits(&session_, 0, &logits, &have);
            if (st != TESSERA_OK) throw Failure{st, tessera_last_error(&session_)};
            if (prompt_mode && have != rows) { // logits for the last row only: go on in token mode
                prompt_mode = false;
                tessera_reset(&session_);
                f = Forced{};
                pos = 0;
                continue;
            }
            for (uint32_t r = 0; r < rows; ++r) {
                st = tessera_logits(&session_, r, &logits, nullptr);
                if (st != TESSERA_OK) throw Failure{st, tessera_last_error(&session_)};
                score(logits, ids[pos + r + 1], f);
                if (keep_logits) f.logits.insert(f.logits.end(), logits, logits + summary_.vocab_size);
            }
            pos += rows;
        }
        f.mode = prompt_mode ? "prompt" : "token";
        return f;
    }

private:
    void score(const float *logits, int32_t next, Forced &f) const
    {
        const uint32_t v = summary_.vocab_size;
        const float *top = std::max_element(logits, logits + v);
        double sum = 0;
        for (uint32_t i = 0; i < v; ++i) sum += std::exp(double(logits[i]) - double(*top));
        f.log_prob.push_back(double(logits[next]) - double(*top) - std::log(sum));
        f.top1.push_back(int32_t(top - logits));
    }

    std::string path_;
    tessera::ImageFile image_;
    tessera_image_summary summary_{};
    std::unique_ptr<tessera::HostBoard> board_;
    tessera_session session_{};
    bool open_ = false;
};

std::string read_text(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Failure{TESSERA_ERR_INVALID_ARGUMENT, path + ": cannot open"};
    std::string text((std::istreambuf_iterator<char>(in)), {});
    if (in.bad()) throw Failure{TESSERA_ERR_INVALID_ARGUMENT, path + ": cannot read"};
    return text;
}

// Whitespace-separated token ids; BOS is put first when the file does not start with it.
std::vector<int32_t> read_ids(const std::string &path, int32_t bos)
{
    std::istringstream in(read_text(path));
    std::vector<int32_t> ids;
    std::string word;
    while (in >> word) {
        char *end = nullptr;
        const long v = std::strtol(word.c_str(), &end, 10);
        if (*end != '\0' || v < 0 || v > INT32_MAX)
            throw Failure{TESSERA_ERR_INVALID_ARGUMENT,
                          path + ": '" + word + "' (word " + std::to_string(ids.size() + 1) + ") is not a token id"};
        ids.push_back(int32_t(v));
    }
    if (ids.empty() || ids[0] != bos) ids.insert(ids.begin(), bos);
    return ids;
}

// An output that could not be written: what and where, no runtime status (nothing ran wrong).
int output_failed(const std::string &what, int error)
{
    std::fprintf(stderr, "tessera-eval: error: writing the outputs failed: %s%s%s\n", what.c_str(), error ? ": " : "",
                 error ? std::strerror(error) : "");
    return 1;
}

int usage_error(const std::string &what)
{
    std::fprintf(stderr, "tessera-eval: error: %s (see tessera-eval --help)\n", what.c_str());
    return tessera::kExitUsage;
}

int fail(const Failure &f)
{
    std::fprintf(stderr, "tessera-eval: error: %s (status %d): %s\n", tessera_status_string(f.status), int(f.status),
                 f.detail.c_str());
    return 1;
}

// --npz-inputs: the vectors through the image; --npz-out, --npz-expect.
int run_vectors_mode(const std::string &image_path, const std::string &board_arg, uint32_t threads, const std::string &inputs_path,
                     const std::string &out_path, const std::string &expect_path, const std::string &blob_path, double tolerance,
                     bool json, bool quiet)
{
    try {
        std::optional<tessera::OutputFile> out, blob_out;
        tessera::check_outputs({{"--npz-out", out_path}, {"--emit-vectors", blob_path}},
                               {{"the image", image_path}, {"--npz-inputs", inputs_path}, {"--npz-expect", expect_path}});
        if (!out_path.empty()) out.emplace(out_path);
        if (!blob_path.empty()) blob_out.emplace(blob_path);
        Model model(image_path, board_arg, threads);
        // The archives may hold what the image takes and gives, no more: checked from their
        // headers before anything is inflated (the image's arrays: rows x dim, the mask,
        // the rotations, each layer's K and V of up to the context's positions).
        const tessera_image_summary &sum = model.summary();
        const uint64_t head = sum.n_heads ? sum.dim / sum.n_heads : 0;
        tessera::NpzLimits limits;
        limits.max_arrays = 2ull * sum.n_layers + 8;
        limits.max_elements = uint64_t(sum.context) * std::max<uint64_t>({sum.dim, sum.prompt_chunk, head * head, 1});
        limits.max_bytes = 8 * limits.max_elements * limits.max_arrays;
        const std::vector<tessera::NpyArray> inputs = tessera::read_npz(inputs_path, limits);
        const std::vector<tessera::NpyArray> expected =
            expect_path.empty() ? std::vector<tessera::NpyArray>{} : tessera::read_npz(expect_path, limits);
        if (blob_out) { // the inputs and Deeploy's expected outputs, for firmware: nothing is run
            blob_out->write(tessera::vectors_blob(model.summary(), tessera::read_vector_inputs(model.summary(), inputs, inputs_path),
                                                  expected, expect_path));
        }
        const tessera::VectorRun run = tessera::run_vectors(model.session(), model.summary(), inputs, inputs_path);
        const std::vector<tessera::OutputDiff> diffs = tessera::compare_outputs(run.outputs, expected, expect_path, tolerance);
        uint64_t differing = 0, values = 0;
        double largest = 0, scale = 0;
        for (const auto &d : diffs)
            differing += d.differing, values += d.values, largest = std::max(largest, d.max_abs_diff),
                scale = std::max(scale, d.max_abs_expected);
        if (json) {
            nlohmann::json j;
            j["image"] = image_path;
            j["inputs"] = inputs_path;
            j["mode"] = run.mode;
            j["rows"] = run.rows;
            j["past"] = run.past;
            j["outputs"] = run.outputs.size();
            if (!expect_path.empty()) {
                j["expected"] = expect_path;
                j["values"] = values;
                j["differing"] = differing;
                j["tolerance"] = tolerance;
                j["max_abs_diff"] = largest;
                j["max_abs_expected"] = scale;
                for (const auto &d : diffs)
                    j["compared"].push_back({{"name", d.name}, {"values", d.values}, {"differing", d.differing},
                                             {"max_abs_diff", d.max_abs_diff}, {"max_abs_expected", d.max_abs_expected}});
            }
            std::printf("%s\n", j.dump(2).c_str());
        } else if (!quiet) {
            std::printf("%s: %s mode, %u rows at S_past %u, %zu outputs\n", inputs_path.c_str(), run.mode, run.rows, run.past,
                        run.outputs.size());
            for (const auto &d : diffs)
                std::printf("  %-10s %8" PRIu64 " values, %6" PRIu64 " differ (largest difference %g of values up to %g)\n",
                            d.name.c_str(), d.values, d.differing, d.max_abs_diff, d.max_abs_expected);
            if (!expect_path.empty())
                std::printf("  all        %8" PRIu64 " values, %6" PRIu64 " differ%s from %s; largest difference %g, %.3g of the "
                            "largest expected magnitude %g\n",
                            values, differing, tolerance > 0 ? (" by more than " + std::to_string(tolerance)).c_str() : "",
                            expect_path.c_str(), largest, scale > 0 ? largest / scale : 0.0, scale);
        }
        if (out) out->write(tessera::write_npz(run.outputs));
        tessera::commit_all({out ? &*out : nullptr, blob_out ? &*blob_out : nullptr}); // both or neither
        if (std::fflush(stdout) != 0 || std::ferror(stdout)) return output_failed("standard output", errno);
        return differing ? 3 : 0;
    } catch (const Failure &f) {
        return fail(f);
    } catch (const tessera::InputError &e) { // an input file's content: what and where, no runtime status
        std::fprintf(stderr, "tessera-eval: error: %s\n", e.what());
        return 1;
    } catch (const std::system_error &e) {
        return output_failed(e.what(), 0);
    } catch (const std::invalid_argument &e) { // check_outputs: two outputs, or an output that is an input
        return usage_error(e.what());
    } catch (const std::exception &e) {
        return fail({TESSERA_ERR_KERNEL, e.what()});
    }
}

} // namespace

int main(int argc, char **argv)
{
    CLI::App app{"tessera-eval: teacher-forced perplexity of a token sequence under a model image, and top-1 "
                 "agreement with a reference image (e.g. fp32 for a bf16 or int8 image)"};
    std::string image_path, ids_path, text_path, reference_path, board_arg, logits_out;
    bool json = false, quiet = false;
    uint32_t threads = 0;
    app.add_option("image", image_path, "model image written by tessera-pack")->required();
    auto *ids_opt =
        app.add_option("--ids-file", ids_path, "FILE of token ids, whitespace-separated (BOS is put first if missing)")
        ->check(tessera::non_empty_path());
    tessera::renamed_option(app, "--ids", "--ids-file FILE (--ids is tessera-generate's switch that prints ids)", true);
    auto *text_opt = app.add_option("--text", text_path, "FILE of UTF-8 text, encoded with the image's tokenizer (BOS first)")
        ->check(tessera::non_empty_path());
    ids_opt->excludes(text_opt);
    app.add_option("--logits-out", logits_out,
                   "write each scored position's logits to FILE: float32, little-endian, positions x vocabulary, the row of "
                   "position i the scores of token i + 1")
        ->check(tessera::non_empty_path());
    app.add_option("--reference", reference_path, "a reference image of the same model: top-1 agreement with it")
        ->check(tessera::non_empty_path());
    app.add_option("--board", board_arg, "board NAME (tessera-pack --list-boards names them) or description FILE.json (default: the board the image is "
                   "planned for, from the boards directory or, for a custom board, the description the image embeds)")
        ->check(tessera::board_check());
    app.add_option("--threads", threads, "threads backing the cluster (default: as tessera-generate)")
        ->check(CLI::Range(1u, 64u));
    tessera::add_quiet_and_json(app, quiet, json,
                                "perplexity, reference_perplexity, top1_agreement (a fraction), ...; with --npz-inputs: "
                                "mode, rows, past, and per output its values and how many differ");
    std::string npz_inputs, npz_out, npz_expect;
    auto *npz_opt = app.add_option("--npz-inputs", npz_inputs,
                                   "test vectors for a decoder-only image (Deeploy's inputs.npz: hidden state, mask, rotations, "
                                   "each layer's past K and V): load the caches, set the position to S_past, run the rows")
        ->check(tessera::non_empty_path());
    npz_opt->excludes(ids_opt)->excludes(text_opt);
    app.add_option("--npz-out", npz_out, "with --npz-inputs: write the outputs (hidden state, each layer's K and V) to FILE.npz")
        ->needs(npz_opt)
        ->check(tessera::non_empty_path());
    app.add_option("--npz-expect", npz_expect,
                   "with --npz-inputs: count, per output, the values that differ from FILE.npz (exit status 3 if any do)")
        ->needs(npz_opt)
        ->check(tessera::non_empty_path());
    std::string emit_vectors;
    double tolerance = 0;
    app.add_option("--npz-tolerance", tolerance,
                   "with --npz-expect: a value differs when further than this from the expected one (default 0: "
                   "bit-exact; for fp32 images, e.g. 1e-5)")
        ->needs(npz_opt)
        ->check(CLI::Validator(
            [](std::string &text) {
                char *end = nullptr;
                const double t = std::strtod(text.c_str(), &end);
                return end != text.c_str() && *end == '\0' && std::isfinite(t) && t >= 0 && t <= 1e30
                           ? std::string()
                           : "Value " + text + " is not a finite number from 0 to 1e30";
            },
            "FLOAT in [0, 1e30]"));
    app.add_option("--emit-vectors", emit_vectors,
                   "with --npz-inputs and --npz-expect: also write both as one blob for firmware (tessera/test_vectors.h)")
        ->needs(npz_opt)
        ->check(tessera::non_empty_path());
    if (const int rc = tessera::parse_command_line(app, "tessera-eval", argc, argv); rc >= 0) return rc;
    if (!emit_vectors.empty() && npz_expect.empty())
        return fail({TESSERA_ERR_INVALID_ARGUMENT, "--emit-vectors needs --npz-expect (the blob holds the expected outputs)"});
    if (!npz_inputs.empty() && !logits_out.empty())
        return usage_error("--logits-out is for a token sequence (--ids-file or --text), not --npz-inputs (see --npz-out)");
    if (!npz_inputs.empty())
        return run_vectors_mode(image_path, board_arg, threads, npz_inputs, npz_out, npz_expect, emit_vectors, tolerance, json,
                                quiet);
    if (ids_path.empty() == text_path.empty())
        return fail({TESSERA_ERR_INVALID_ARGUMENT, "give the sequence with --ids-file FILE or --text FILE"});

    try {
        Model model(image_path, board_arg, threads);
        const std::vector<int32_t> ids =
            ids_path.empty() ? model.encode(read_text(text_path)) : read_ids(ids_path, int32_t(model.summary().bos_id));
        if (ids.size() < 2) throw Failure{TESSERA_ERR_INVALID_ARGUMENT, "the sequence has no token after BOS"};
        for (size_t i = 0; i < ids.size(); ++i) // the last one is never fed, only scored: check them all here
            if (uint32_t(ids[i]) >= model.summary().vocab_size)
                throw Failure{TESSERA_ERR_BAD_TOKEN, "token " + std::to_string(ids[i]) + " at position " +
                                                         std::to_string(i) + " is outside the vocabulary of " +
                                                         std::to_string(model.summary().vocab_size)};
        if (ids.size() > model.summary().context)
            throw Failure{TESSERA_ERR_CONTEXT_FULL, std::to_string(ids.size()) + " tokens (BOS included), but " +
                                                        image_path + " holds a context of " +
                                                        std::to_string(model.summary().context)};
        std::unique_ptr<tessera::OutputFile> logits_file;
        try {
            if (!logits_out.empty()) logits_file = std::make_unique<tessera::OutputFile>(logits_out);
        } catch (const std::exception &e) {
            return output_failed(e.what(), 0);
        }
        const Forced got = model.force(ids, logits_file != nullptr);
        if (logits_file) {
            try {
                logits_file->write(got.logits.data(), got.logits.size() * sizeof(float));
                logits_file->commit();
            } catch (const std::exception &e) {
                return output_failed(e.what(), 0);
            }
        }

        std::unique_ptr<Model> reference;
        Forced want;
        uint64_t agree = 0;
        if (!reference_path.empty()) {
            reference = std::make_unique<Model>(reference_path, board_arg, threads);
            if (reference->summary().vocab_size != model.summary().vocab_size)
                throw Failure{TESSERA_ERR_INVALID_ARGUMENT,
                              reference_path + ": vocabulary of " + std::to_string(reference->summary().vocab_size) +
                                  " tokens, " + image_path + " has " + std::to_string(model.summary().vocab_size)};
            if (ids.size() > reference->summary().context)
                throw Failure{TESSERA_ERR_CONTEXT_FULL,
                              reference_path + ": context " + std::to_string(reference->summary().context) +
                                  " is shorter than the sequence (" + std::to_string(ids.size()) + " tokens)"};
            want = reference->force(ids);
            for (size_t i = 0; i < got.top1.size(); ++i) agree += got.top1[i] == want.top1[i];
        }
        uint64_t correct = 0;
        for (size_t i = 0; i < got.top1.size(); ++i) correct += got.top1[i] == ids[i + 1];
        const size_t positions = got.log_prob.size();

        if (json) {
            nlohmann::json j;
            j["image"] = image_path;
            j["tokens"] = ids.size();
            j["positions"] = positions;
            j["mode"] = got.mode;
            j["perplexity"] = got.perplexity();
            j["top1_accuracy"] = double(correct) / double(positions);
            if (reference) {
                j["reference"] = reference_path;
                j["reference_perplexity"] = want.perplexity();
                j["top1_agreement"] = double(agree) / double(positions);
            }
            std::printf("%s\n", j.dump(2).c_str());
        } else if (!quiet) {
            std::printf("%s: %zu tokens (BOS included), %zu positions scored, teacher-forced in %s mode\n",
                        image_path.c_str(), ids.size(), positions, got.mode);
            std::printf("  perplexity            %.6f\n", got.perplexity());
            std::printf("  top-1 = next token    %.2f %% (%" PRIu64 " of %zu)\n", 100.0 * double(correct) / double(positions),
                        correct, positions);
            if (reference) {
                std::printf("  reference perplexity  %.6f  (%s, %s mode)\n", want.perplexity(), reference_path.c_str(),
                            want.mode);
                std::printf("  perplexity change     %+.3f %%\n", 100.0 * (got.perplexity() / want.perplexity() - 1.0));
                std::printf("  top-1 agreement       %.2f %% (%" PRIu64 " of %zu)\n",
                            100.0 * double(agree) / double(positions), agree, positions);
            }
        }
        if (std::fflush(stdout) != 0 || std::ferror(stdout))
            throw Failure{TESSERA_ERR_INVALID_ARGUMENT, "cannot write the output"};
    } catch (const Failure &f) {
        return fail(f);
    }
    return 0;
}
