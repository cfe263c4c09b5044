// tessera-pack: checkpoint -> model image planned for one board.
#include <cstdio>
#include <exception>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include <CLI/CLI.hpp>

#include "tessera/tools/cli.h"
#include "tessera/tools/progress.h"

#include "tessera/board_desc.h"

#include "tessera/pack/image_writer.h"
#include "tessera/pack/packer.h"

namespace {

// The command line: the options, and the choices as it names them until they are typed.
struct CommandLine {
    tessera::PackOptions o;
    std::string precision = "fp32", nonlinear = "integer", exp = "accurate", weight_type = "fp32", scenario = "auto";
    std::string tied_embedding = "copy";
    std::string weights = "auto", prompt_logits = "last";
    bool quiet = false, dry_run = false, json = false, list_boards = false, no_fuse = false;
};

// The board list of --list-boards, and where it was looked for.
void list_boards()
{
    for (const std::string &name : tessera::known_board_names()) {
        try {
            const tessera::BoardDesc d = tessera::load_board_desc(name);
            const uint32_t flash = d.region_size[TSR_REGION_IMAGE];
            char image[160];
            if (d.offchip.present())
                std::snprintf(image, sizeof image, "off-chip %s %u bytes at %.0f MB/s (%s)", d.offchip.kind.c_str(),
                              d.offchip.bytes, d.offchip.bytes_per_second / 1e6,
                              d.offchip.cores_read ? "cores read it in place" : "DMA only");
            else
                std::snprintf(image, sizeof image, "flash %s", flash ? std::to_string(flash).c_str() : "not given");
            std::printf("%-16s %2u cores, L1 %u, L2 %u, NMS %u bytes, %s, NPU %s  (%s)\n", d.name.c_str(), d.cores,
                        d.region_size[TSR_REGION_L1], d.region_size[TSR_REGION_L2], d.region_size[TSR_REGION_NMS],
                        image, d.has_npu ? "yes" : "no", d.source.c_str());
        } catch (const std::exception &e) {
            std::printf("%-16s not usable: %s\n", name.c_str(), e.what());
        }
    }
    std::printf("searched: ");
    const std::vector<std::string> dirs = tessera::board_search_dirs();
    for (size_t i = 0; i < dirs.size(); ++i) std::printf("%s%s", i ? ", " : "", dirs[i].c_str());
    std::printf("\n");
}

// Parses the command line into `c`, the choices typed (pack_options.h): -1 to go on, or
// the status to exit with.
int parse_command(CommandLine &c, int argc, char **argv)
{
    tessera::PackOptions &o = c.o;
    CLI::App app{"tessera-pack: turn a llama2.c, GGUF or Hugging Face checkpoint, or a QuantLib ONNX graph, into a Tessera "
                 "model image planned for one board.\nEvery buffer's region and offset is fixed here; the device only follows the plan."};
    app.add_option("checkpoint", o.checkpoint, "the model, recognised by its content: a llama2.c checkpoint (legacy, ak42 version 1 fp32 "
                   "or 2 Q8_0), a GGUF file (versions 1-3, llama architecture; F32, F16, BF16, Q8_0, Q4_0 tensors, dequantized "
                   "and packed at --precision), a Hugging Face Llama directory (config.json, model.safetensors in "
                   "F32/F16/BF16, tokenizer.model) or a QuantLib-integerized ONNX decoder (Deeploy's graphs; packed at its "
                   "own precision, decoder-only)")
        ->check(CLI::ExistingPath);
    CLI::Option *output = app.add_option("-o,--output", o.output,
                                         "model image to write, whole or not at all (- for standard output; never one of the inputs)")
        ->check(tessera::non_empty_path());
    app.add_flag("--dry-run", c.dry_run,
                 "write nothing: print the plan's summary if it fits the board (exit 0); if not, why, the largest "
                 "--context that fits and each smaller --precision or --weight-type with the context it fits (exit 1)")
        ->excludes(output);
    app.add_option("--tokenizer", o.tokenizer,
                   "llama2.c tokenizer .bin (default: a GGUF file's or Hugging Face directory's own, else tok<vocab>.bin or tokenizer.bin beside "
                   "the checkpoint)")
        ->check(CLI::ExistingFile);
    app.add_option("--board", o.board, "board NAME (tessera-pack --list-boards names them) or description FILE.json (schema: docs/boards.md)")
        ->capture_default_str()->check(tessera::board_check());
    app.add_option("--precision", c.precision,
                   "activations and KV cache: fp32; bf16 (every weight bf16, fp32 sums); int8 (W8A8: weights "
                   "symmetric per output channel, activations with static scales from calibration)")
        ->check(CLI::IsMember(tessera::option_list(tessera::kPrecisionNames)))->capture_default_str();
    app.add_option("--nonlinear", c.nonlinear,
                   "int8: softmax, RMSNorm and SiLU in integer arithmetic (no FPU needed) or in float")
        ->check(CLI::IsMember(tessera::option_list(tessera::kNonlinearNames)))->capture_default_str();
    app.add_option("--exp", c.exp, "bf16: exponential of softmax and SiLU: accurate, or schraudolph (bit trick, ~6 %)")
        ->check(CLI::IsMember(tessera::option_list(tessera::kExpNames)))->capture_default_str();
    app.add_option("--calibration", o.calibration,
                   "int8: UTF-8 text whose lines (each from BOS) fix the activation scales (default: the model's own "
                   "greedy and sampled continuations from BOS)")
        ->check(CLI::ExistingFile);
    app.add_option("--context", o.context, "positions the KV cache holds (default: the model's seq_len)")
        ->check(CLI::Range(1u, 1u << 20));
    app.add_option("--prompt-chunk", o.prompt_chunk, "tokens per prompt-mode run (default: min(16, context))")
        ->check(CLI::Range(1u, 1u << 20));
    app.add_option("--prompt-logits", c.prompt_logits,
                   "rows of a prompt chunk that get logits: last (what generation needs) or all (teacher forcing)")
        ->check(CLI::IsMember({"last", "all"}))->capture_default_str();
    app.add_option("--weight-type", c.weight_type,
                   "element type of the matmul weights: fp32, or bf16 (half the bytes and DMA traffic, rounded to "
                   "nearest even; activations, the KV cache and an embedding shared with the classifier stay fp32); "
                   "with --precision int8, int4: W4A8, the decoder layers' weights in 4 bits, groups of 32 with an "
                   "8-bit scale each (the classifier keeps 8 bits; see --tied-embedding)")
        ->check(CLI::IsMember(tessera::option_list(tessera::kWeightTypeNames)))->capture_default_str();
    app.add_option("--tied-embedding", c.tied_embedding,
                   "int8, a checkpoint whose classifier is its embedding table (llama2.c's shared weights): copy (stored "
                   "twice: the embedding per tensor, the classifier per channel in 8 bits), shared (stored once, per "
                   "channel in 8 bits, each row the embedding reads rescaled to its activations' scale: half the "
                   "table's bytes) or shared-int4 (once, in W4A8's 4-bit groups: about a quarter)")
        ->check(CLI::IsMember({"copy", "shared", "shared-int4"}))->capture_default_str();
    app.add_option("--weights-in", c.weights,
                   "where weights live at run time: auto (those L1 has room for beside the plan's buffers there, the "
                   "rest in L2 if it fits, else the most reused), image (in place), l2")
        ->check(CLI::IsMember({"auto", "image", "l2"}))->capture_default_str();
    CLI::Option *report = app.add_option("--report", o.report,
                   "write a JSON report: per region arena and lower bound, per operator tile and DMA bytes, "
                   "per schedule DMA bytes per token, buffer lifetimes")
        ->check(tessera::non_empty_path());
    CLI::Option *memory_map =
        app.add_option("--memory-map", o.memory_map, "write an SVG picture of each region's plan (time x address)")
        ->check(tessera::non_empty_path());
    CLI::Option *variants = app.add_option(
        "--emit-variants", o.variant_list,
        "write a C source registering the operator variants the image runs (tessera/variant_registry.h): a "
        "firmware linked with it carries only their kernels");
    variants->check(tessera::non_empty_path());
    report->excludes("--dry-run");
    memory_map->excludes("--dry-run");
    variants->excludes("--dry-run");
    app.add_option("--l1", o.l1_bytes, "L1 bytes to plan for, overriding the board's (to explore smaller chips)")
        ->check(CLI::Range(uint64_t(64), uint64_t(1) << 31));
    app.add_option("--scenario", c.scenario,
                   "engines (the Deeploy paper's deployments): auto (the NPU takes the linear layers the board's cost "
                   "model says it runs faster, weights in NMS; else the cluster), single-core, cluster, npu (every "
                   "int8 linear layer on the NPU, weights streamed from L2 or the image), npu-nms (the same, weights in "
                   "NMS while they fit)")
        ->check(CLI::IsMember(tessera::option_list(tessera::kScenarioNames)))->capture_default_str();
    app.add_flag("--no-fuse", c.no_fuse,
                 "keep Q, K and V (and W1 and W3) as matmul steps of their own; by default each group is one step "
                 "(its weights stacked, its outputs apart: fewer steps a token, the same values; of a QuantLib graph, "
                 "the matmuls whose RequantShifts agree), on the cluster (not under --scenario npu or npu-nms, "
                 "where each is an NPU job)");
    app.add_option("--npu-weight-bits", o.npu_weight_bits,
                   "npu, npu-nms: bits of the decoder layers' linear weights, 8 or 4 (the classifier keeps 8)")
        ->check(CLI::IsMember({8u, 4u}))->capture_default_str();
    tessera::add_quiet_and_json(app, c.quiet, c.json,
                                "the summary (or the dry run's answer): model, plan, regions, estimates");
    app.add_flag("--list-boards", c.list_boards,
                 "list the boards --board NAME finds (their cores, region bytes, NPU, file) and where they were looked for, and exit");
    app.callback([&] {
        if (c.list_boards) return;
        if (o.checkpoint.empty()) throw CLI::RequiredError("checkpoint");
        if (!c.dry_run && o.output.empty()) throw CLI::RequiredError("--output (or --dry-run)");
        if (c.json && (o.output == "-" || o.report == "-" || o.memory_map == "-" || o.variant_list == "-"))
            throw CLI::ValidationError("--json", "standard output carries an output (-); the summary cannot go there too");
    });
    if (const int rc = tessera::parse_command_line(app, "tessera-pack", argc, argv); rc >= 0) return rc;
    if (c.list_boards) {
        list_boards();
        return tessera::stdout_written("tessera-pack") ? 0 : tessera::kExitError;
    }
    o.precision_given = app.count("--precision") > 0;
    o.nonlinear_given = app.count("--nonlinear") > 0;
    o.exp_given = app.count("--exp") > 0;
    o.precision = tessera::parse_option(tessera::kPrecisionNames, c.precision, "--precision");
    o.nonlinear = tessera::parse_option(tessera::kNonlinearNames, c.nonlinear, "--nonlinear");
    o.exp = tessera::parse_option(tessera::kExpNames, c.exp, "--exp");
    o.weight_type = tessera::parse_option(tessera::kWeightTypeNames, c.weight_type, "--weight-type");
    o.scenario = tessera::parse_option(tessera::kScenarioNames, c.scenario, "--scenario");
    o.prompt_logits_all = c.prompt_logits == "all";
    o.fuse_linears = !c.no_fuse;
    o.shared_table_bits = c.tied_embedding == "shared" ? 8u : c.tied_embedding == "shared-int4" ? 4u : 0u;
    o.progress = tessera::ProgressLine::wanted(c.quiet);
    o.weights = c.weights == "image" ? tessera::WeightsPlacement::kImage
              : c.weights == "l2"    ? tessera::WeightsPlacement::kL2
                                   : tessera::WeightsPlacement::kAuto;
    return -1;
}

} // namespace

int main(int argc, char **argv)
{
    CommandLine c;
    if (const int rc = parse_command(c, argc, argv); rc >= 0) return rc;
    const tessera::PackOptions &o = c.o;
    const bool quiet = c.quiet;
    try {
        if (c.dry_run) {
            const tessera::FitReport fit = tessera::what_fits(o);
            if (c.json) std::printf("%s\n", tessera::fit_report_json(fit).dump(1).c_str());
            else if (!quiet) std::printf("%s", tessera::fit_summary(fit).c_str());
            if (!tessera::stdout_written("tessera-pack")) return tessera::kExitError;
            return fit.fits ? 0 : 1;
        }
        const tessera::PackResult result = tessera::pack(o);
        if (c.json) {
            std::printf("%s\n", tessera::pack_summary_json(result).dump(1).c_str());
        } else if (!quiet) {
            // With an output on standard output ("-"), the summary goes to stderr instead.
            const bool stdout_taken = o.output == "-" || o.report == "-" || o.memory_map == "-" || o.variant_list == "-";
            std::fprintf(stdout_taken ? stderr : stdout, "%s", tessera::pack_summary(result).c_str());
        }
        return tessera::stdout_written("tessera-pack") ? 0 : tessera::kExitError;
    } catch (const tessera::OptionError &e) {
        std::fprintf(stderr, "tessera-pack: error: %s (see tessera-pack --help)\n", e.what());
        return tessera::kExitUsage;
    } catch (const tessera::PlanError &e) {
        std::fprintf(stderr, "tessera-pack: error: %s (--dry-run names what fits)\n", e.what());
        return 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "tessera-pack: error: %s\n", e.what());
        return 1;
    }
}
