// tessera-generate: the token-generation demo. Flags and output follow llama2.c's run.c.
#include <cctype>
#include <csignal>
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <thread>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "tessera/tools/cli.h"

#include "tessera/tools/image_file.h"
#include "tessera/tools/output_file.h"
#include "tessera/host_board.hpp"
#include "tessera/pack/cost_model.h"
#include "tessera/image_format.h"
#include "tessera/tessera.h"

namespace {

// run.c's safe_printf: skip pieces that are a single unprintable byte. Printed as it
// comes, or (--json) kept for the document.
void print_piece(const char *piece, uint32_t len, std::string *keep)
{
    if (piece == nullptr || len == 0) return;
    if (len == 1) {
        const unsigned char c = static_cast<unsigned char>(piece[0]);
        if (!(std::isprint(c) || std::isspace(c))) return;
    }
    if (keep) {
        keep->append(piece, len);
        return;
    }
    std::fwrite(piece, 1, len, stdout);
    std::fflush(stdout);
}

int fail(tessera_status st, const char *detail)
{
    std::fprintf(stderr, "tessera-generate: error: %s (status %d): %s\n", tessera_status_string(st), static_cast<int>(st),
                 detail);
    return 1;
}

double per_second(uint64_t tokens, uint64_t ns) { return ns ? static_cast<double>(tokens) * 1e9 / static_cast<double>(ns) : 0.0; }

// Ctrl-C ends generation after the current token; a second one kills as usual.
volatile std::sig_atomic_t g_interrupted = 0;
void on_interrupt(int) { g_interrupted = 1; }
void catch_interrupt()
{
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
}

using nlohmann::json;

// A row of a profile, per token: core 0's time (waits excluded unless `waits`), its
// share of the schedule's time, DMA bytes and transfers, forks and NPU jobs.
json profile_row(const std::string &name, const tessera_step_profile &sum, bool waits, uint64_t total, uint64_t tokens)
{
    const double t = static_cast<double>(tokens);
    const uint64_t own = waits ? sum.cycles : sum.cycles - sum.dma_wait_cycles - sum.npu_wait_cycles;
    return {{"name", name},
            {"ns", static_cast<double>(own) / t},
            {"share", total ? 100.0 * static_cast<double>(own) / static_cast<double>(total) : 0.0},
            {"dma_bytes", static_cast<double>(sum.dma_bytes) / t},
            {"dma_transfers", static_cast<double>(sum.dma_transfers) / t},
            {"forks", static_cast<double>(sum.forks) / t},
            {"npu_jobs", static_cast<double>(sum.npu_jobs) / t}};
}

json wait_row(const char *name, uint64_t wait, uint64_t total, uint64_t tokens)
{
    return {{"name", name},
            {"ns", static_cast<double>(wait) / static_cast<double>(tokens)},
            {"share", total ? 100.0 * static_cast<double>(wait) / static_cast<double>(total) : 0.0}};
}

// The profile of one schedule (the view of Deeploy's Figure 8), per token, in core 0's
// time (the host board's ns), which drives the DMA engine and the NPU queue: by
// operator kind and engine with the waits for the DMA engine and for the NPU as rows
// of their own (their shares add up to 100 %), then by layer (waits included), then
// the NPU's own busy time, which runs alongside and is not a share of core 0's.
json profile_json(const tessera_step_profile *steps, uint32_t count, uint64_t tokens, uint32_t layers, bool npu,
                  uint64_t npu_busy_ns)
{
    tessera_step_profile all, sum;
    tessera_profile_sum(steps, count, TESSERA_PROFILE_ANY, TESSERA_PROFILE_ANY, &all);
    if (all.runs == 0 || tokens == 0) return nullptr;
    json by_op = json::array(), by_layer = json::array();
    for (uint32_t op = 1; op < TSR_OP_COUNT_; ++op)
        for (uint32_t engine : {uint32_t(TSR_ENGINE_CLUSTER), uint32_t(TSR_ENGINE_DMA), uint32_t(TSR_ENGINE_NPU)}) {
            tessera_step_profile s{};
            for (uint32_t i = 0; i < count; ++i) {
                const tessera_step_profile &p = steps[i];
                if (p.op != op || p.engine != engine) continue;
                s.runs += p.runs, s.cycles += p.cycles, s.dma_bytes += p.dma_bytes, s.dma_transfers += p.dma_transfers;
                s.forks += p.forks, s.npu_jobs += p.npu_jobs;
                s.dma_wait_cycles += p.dma_wait_cycles, s.npu_wait_cycles += p.npu_wait_cycles;
            }
            if (s.runs)
                by_op.push_back(profile_row(std::string(tsr_op_name(op)) + (engine == TSR_ENGINE_NPU ? " (NPU)" : ""), s,
                                            false, all.cycles, tokens));
        }
    by_op.push_back(wait_row("wait for DMA", all.dma_wait_cycles, all.cycles, tokens));
    if (npu) by_op.push_back(wait_row("wait for NPU", all.npu_wait_cycles, all.cycles, tokens));
    for (uint32_t layer = 0; layer < layers; ++layer)
        if (tessera_profile_sum(steps, count, TESSERA_PROFILE_ANY, layer, &sum) && sum.runs)
            by_layer.push_back(profile_row("layer " + std::to_string(layer), sum, true, all.cycles, tokens));
    if (tessera_profile_sum(steps, count, TESSERA_PROFILE_ANY, TSR_NO_LAYER, &sum) && sum.runs)
        by_layer.push_back(profile_row("no layer", sum, true, all.cycles, tokens));
    json p = {{"tokens", tokens},
              {"runs", steps[0].runs},
              {"clock", "core 0's ns (it drives the DMA engine and the NPU), per token"},
              {"by_operator", by_op},
              {"all", profile_row("all", all, true, all.cycles, tokens)},
              {"by_layer", by_layer}};
    if (npu)
        p["npu_busy"] = {{"ns", static_cast<double>(npu_busy_ns) / static_cast<double>(tokens)},
                         {"percent_of_core0", 100.0 * static_cast<double>(npu_busy_ns) / static_cast<double>(all.cycles)}};
    return p;
}

void print_row(const json &r)
{
    std::fprintf(stderr, "  %-16s %10.0f %6.1f %%", r["name"].get<std::string>().c_str(), r["ns"].get<double>(),
                 r["share"].get<double>());
    if (r.contains("dma_bytes"))
        std::fprintf(stderr, " %12.0f %9.1f %7.2f %8.2f", r["dma_bytes"].get<double>(), r["dma_transfers"].get<double>(),
                     r["forks"].get<double>(), r["npu_jobs"].get<double>());
    std::fprintf(stderr, "\n");
}

void print_profile(const char *title, const json &p)
{
    if (p.is_null()) return;
    std::fprintf(stderr, "profile, %s: %s tokens, %s runs; per token, in core 0's ns (it drives the DMA engine and the "
                         "NPU)\n", title, p["tokens"].dump().c_str(), p["runs"].dump().c_str());
    std::fprintf(stderr, "  %-16s %10s %8s %12s %9s %7s %8s\n", "by operator", "ns", "share", "DMA bytes", "transfers",
                 "forks", "NPU jobs");
    for (const json &r : p["by_operator"]) print_row(r);
    print_row(p["all"]);
    std::fprintf(stderr, "  by layer (waits included)\n");
    for (const json &r : p["by_layer"]) print_row(r);
    if (p.contains("npu_busy"))
        std::fprintf(stderr, "  NPU busy %.0f ns per token (%.1f %% of core 0's time), alongside the cluster: not a share "
                             "of the rows above\n",
                     p["npu_busy"]["ns"].get<double>(), p["npu_busy"]["percent_of_core0"].get<double>());
}

// "2 threads, runs on 1 (measured fastest)" or "2 threads".
std::string threads_line(const tessera::HostBoard &board, uint32_t asked)
{
    std::string line = std::to_string(board.threads()) + (board.threads() == 1 ? " thread" : " threads");
    if (asked == 0 && board.threads() > 1)
        line += ", runs on " + std::to_string(board.threads_in_use()) + " (measured fastest)";
    return line + ", kernels " + tessera::kernel_set_name(board.isa());
}

// The run's statistics: tokens and rates of both modes, the board and its threads,
// the memory planned, and per-run averages.
json statistics_json(const tessera_stats &stats, const tessera::HostBoard &board, uint32_t threads)
{
    const double runs = stats.runs ? double(stats.runs) : 1.0;
    return {{"clock", "host emulation, wall clock (the board's own speed is board_estimate's)"},
            {"prompt", {{"tokens", stats.prompt_tokens}, {"tokens_per_second", per_second(stats.prompt_tokens, stats.prompt_cycles)}}},
            {"generation", {{"tokens", stats.step_tokens}, {"tokens_per_second", per_second(stats.step_tokens, stats.step_cycles)}}},
            {"board", {{"name", board.desc().name}, {"threads", board.threads()}, {"threads_in_use", board.threads_in_use()},
                       {"threads_chosen", threads == 0 && board.threads() > 1},
                       {"kernels", tessera::kernel_set_name(board.isa())}}},
            {"memory", {{"L1", stats.region_bytes[TSR_REGION_L1]}, {"L2", stats.region_bytes[TSR_REGION_L2]},
                        {"NMS", stats.region_bytes[TSR_REGION_NMS]}, {"image", stats.region_bytes[TSR_REGION_IMAGE]},
                        {"weights_in_place", bool(stats.weights_in_place)}}},
            {"per_run", {{"runs", stats.runs}, {"averaged_over", "prompt chunks and tokens, each at its own position"},
                         {"forks", double(stats.forks) / runs}, {"dma_transfers", double(stats.dma_transfers) / runs},
                         {"dma_bytes", double(stats.dma_bytes) / runs}, {"npu_jobs", double(stats.npu_jobs) / runs}}}};
}

// Both modes' profiles: the prompt schedule's steps come first in `steps`.
json profiles_json(const std::vector<tessera_step_profile> &steps, const tessera_stats &stats, uint32_t layers, bool npu,
                   uint64_t npu_busy_prompt, uint64_t npu_busy_token)
{
    const auto token_steps =
        std::find_if(steps.begin(), steps.end(), [](const tessera_step_profile &p) { return p.schedule == 1u; });
    const uint32_t n_prompt = static_cast<uint32_t>(token_steps - steps.begin());
    return {{"prompt", profile_json(steps.data(), n_prompt, stats.prompt_tokens, layers, npu, npu_busy_prompt)},
            {"token", profile_json(steps.data() + n_prompt, static_cast<uint32_t>(steps.size()) - n_prompt,
                                   stats.step_tokens, layers, npu, npu_busy_token)}};
}

// The statistics as text lines on stderr. The rates are the host's wall clock emulating
// the board, never the board's own: the board's cost model gives its estimate beside them.
void print_statistics(const json &report, const tessera::HostBoard &board, uint32_t threads)
{
    std::fprintf(stderr, "host emulation, wall clock: prompt %s tokens, %.1f tokens/s | generation %s tokens, %.1f tokens/s "
                         "| board %s emulated on %s\n",
                 report["prompt"]["tokens"].dump().c_str(), report["prompt"]["tokens_per_second"].get<double>(),
                 report["generation"]["tokens"].dump().c_str(), report["generation"]["tokens_per_second"].get<double>(),
                 board.desc().name.c_str(), threads_line(board, threads).c_str());
    const json &e = report["board_estimate"];
    if (e.contains("tokens_per_second"))
        std::fprintf(stderr, "board estimate (%s's cost model, not measured): %.1f tokens/s for a token at position %s, "
                             "%.0f cycles at %.0f MHz\n",
                     board.desc().name.c_str(), e["tokens_per_second"].get<double>(), e["position"].dump().c_str(),
                     e["cycles_per_token"].get<double>(), e["clock_mhz"].get<double>());
    else
        std::fprintf(stderr, "board estimate: none: %s\n", e["none"].get<std::string>().c_str());
    const json &m = report["memory"];
    std::fprintf(stderr, "memory: L1 %s, L2 %s, NMS %s bytes planned; image %s bytes, weights %s", m["L1"].dump().c_str(),
                 m["L2"].dump().c_str(), m["NMS"].dump().c_str(), m["image"].dump().c_str(),
                 m["weights_in_place"].get<bool>() ? "in place" : "copied to L2");
    if (report.contains("seed")) std::fprintf(stderr, "; seed %s", report["seed"].dump().c_str());
    std::fprintf(stderr, "\n");
    if (report.contains("achieved_tokens_per_second"))
        std::fprintf(stderr, "achieved tok/s: %f (as run.c counts: positions after the first generated one, "
                             "sampling and output included)\n",
                     report["achieved_tokens_per_second"].get<double>());
    const json &r = report["per_run"];
    std::fprintf(stderr, "per run, averaged over %s runs (prompt chunks and tokens, each at its own position): "
                         "%.2f cluster forks, %.1f DMA transfers, %.0f DMA bytes, %.1f NPU jobs\n",
                 r["runs"].dump().c_str(), r["forks"].get<double>(), r["dma_transfers"].get<double>(),
                 r["dma_bytes"].get<double>(), r["npu_jobs"].get<double>());
}

// The board's own estimate beside the host's rate: the cost model's token run nearest the
// generation's middle position; or why there is none.
json board_estimate_json(const std::vector<tessera::RunEstimate> &estimates, const tessera::BoardDesc &board, uint32_t last_pos)
{
    const tessera::RunEstimate *best = nullptr;
    const uint32_t middle = last_pos / 2;
    for (const tessera::RunEstimate &r : estimates) {
        if (r.prompt) continue;
        const auto distance = [&](const tessera::RunEstimate &x) { return x.pos > middle ? x.pos - middle : middle - x.pos; };
        if (!best || distance(r) < distance(*best)) best = &r;
    }
    if (!best) return {{"none", tessera::no_cost_model(board)}};
    return {{"source", "the board's cost model (an estimate, not a measurement)"},
            {"position", best->pos},
            {"cycles_per_token", best->per_token(best->cycles)},
            {"tokens_per_second", best->tokens_per_second(board.cost.clock_hz)},
            {"clock_mhz", board.cost.clock_hz / 1e6}};
}

// The command line, typed once.
struct Options {
    std::string image_path, prompt, board_arg;
    int steps = 256;
    uint32_t depth = 0; // --depth: the position the prompt starts at, over a zero cache
    float temperature = 1.0f, topp = 0.9f;
    uint64_t seed = 0;
    bool print_ids = false, quiet = false, as_json = false;
    uint32_t threads = 0;
    std::string timeline, timeline_clock = "wall";
    bool check_l1 = false, profile = false, offchip_throttle = false;
    bool portable_kernels = false; // --kernels portable
};

// Parses the command line into `o`; -1 to go on, or the status to exit with.
int parse_options(Options &o, int argc, char **argv)
{
    CLI::App app{"tessera-generate: generate text with a Tessera model image on the host emulation board.\n"
                 "Flags follow llama2.c's run.c; statistics go to stderr."};
    app.add_option("image", o.image_path, "model image written by tessera-pack")->required();
    app.add_option("-i,--prompt", o.prompt, "prompt text");
    app.add_option("-n,--steps", o.steps, "positions to run, prompt included; 0 or more than the context = the context")
        ->capture_default_str()->check(CLI::Range(0, std::numeric_limits<int>::max()));
    app.add_option("--depth", o.depth,
                   "start at position N over a cache of N zero positions instead of position 0 (llama-bench's depth: a "
                   "token deep in the context without the prompt that would fill it); -n counts the positions after it")
        ->check(CLI::Range(0u, 1u << 30));
    app.add_option("-t,--temperature", o.temperature, "0 = greedy; a finite number >= 0")
        ->capture_default_str()
        ->check(CLI::Validator(
            [](std::string &text) {
                char *end = nullptr;
                const double t = std::strtod(text.c_str(), &end);
                return end != text.c_str() && *end == '\0' && t >= 0 && t <= 1e30 ? std::string()
                                                                                 : "Value " + text + " is not a finite number >= 0";
            },
            "FLOAT>=0"));
    app.add_option("-p,--topp", o.topp, "nucleus sampling threshold in [0,1]; 0 or 1 = off")
        ->capture_default_str()->check(CLI::Range(0.0f, 1.0f));
    app.add_option("-s,--seed", o.seed, "random seed; 0 = from the clock (the seed used is reported)");
    app.add_flag("--ids", o.print_ids, "print the generated token ids (BOS excluded) on one line instead of text");
    app.add_option("--board", o.board_arg, "board NAME (tessera-pack --list-boards names them) or description FILE.json (default: the board the image is "
                   "planned for, from the boards directory or, for a custom board, the description the image embeds)")
        ->check(tessera::board_check());
    app.add_option("--threads", o.threads,
                   "threads backing the cluster, every run on all of them (default: up to the board's cores and "
                   "the machine's, each run on the count measured fastest)")
        ->check(CLI::Range(1u, 64u));
    app.add_option_function<std::string>(
           "--kernels", [&o](const std::string &v) { o.portable_kernels = v == "portable"; },
           "board: the tuned kernel set the board's description names (cluster.kernels), where this machine "
           "runs it; portable: the portable kernels (the same ids, bit for bit)")
        ->default_str("board")->check(CLI::IsMember({"board", "portable"}));
    tessera::add_quiet_and_json(app, o.quiet, o.as_json,
                                "ids and text generated and the statistics (with --profile its tables, and the board's "
                                "estimates); the text is not streamed then");
    app.add_flag("--check-l1", o.check_l1, "stop loudly if a kernel is ever handed an operand outside L1 (testing)");
    app.add_flag("--offchip-throttle", o.offchip_throttle,
                 "a board with off-chip memory (\"offchip\" in its description): the host board's DMA engine reads the "
                 "image no faster than its mb_per_s, in wall time, so that --timeline and --profile show the stream as "
                 "the board would (\"off-chip\" transfers); default: the host's own speed");
    app.add_option("--timeline", o.timeline,
                   "write what each engine of the board did: FILE.svg a picture (a lane per core, DMA and NPU, a time "
                   "axis, operators labelled); any other name a Chrome/Perfetto trace (JSON)")
        ->check(tessera::non_empty_path());
    app.add_option("--timeline-clock", o.timeline_clock,
                   "the trace's time axis: wall (what the host board took) or estimated (the same runs in the "
                   "cycles the board's cost model estimates; 1 us on the axis = 1 cycle)")
        ->capture_default_str()->check(CLI::IsMember({"wall", "estimated"}));
    app.add_flag("--profile", o.profile,
                 "after the run, print per token for each mode, in core 0's ns: per operator kind and engine, the "
                 "waits for the DMA engine and the NPU (shares that add up to 100 %), per layer, and the NPU's busy "
                 "time; with DMA bytes and transfers, cluster forks and NPU jobs");
    return tessera::parse_command_line(app, "tessera-generate", argc, argv);
}

// The image, its board and an open session on it (with the profile's buffer).
struct Model {
    std::unique_ptr<tessera::ImageFile> image;
    size_t image_size = 0;
    tessera_image_summary summary{};
    std::unique_ptr<tessera::HostBoard> board;
    tessera_session session{};
    bool open = false;
    std::vector<tessera_step_profile> steps_profile;
    ~Model()
    {
        if (open) tessera_close(&session);
    }
};

// Opens the image on its board as the options say: -1 to go on, or the status to exit with.
int open_model(Options &o, bool estimated_timeline, Model &m)
{
    m.image = std::make_unique<tessera::ImageFile>(o.image_path);
    if (!m.image->ok()) return fail(TESSERA_ERR_INVALID_ARGUMENT, m.image->error().c_str());
    m.image_size = m.image->size();
    char detail[192];
    tessera_status st = tessera_image_peek(m.image->data(), m.image_size, &m.summary, detail, sizeof detail);
    if (st != TESSERA_OK) return fail(st, (o.image_path + ": " + detail).c_str());
    try {
        const tessera::BoardDesc desc = tessera::board_for_image(o.board_arg, m.image->data(), m.image_size);
        // An image planned for fewer cores than the board has (--scenario single-core)
        // runs on as many threads as it is planned for.
        if (o.threads == 0 &&
            m.summary.planned_cores < std::min(desc.cores, std::max(1u, std::thread::hardware_concurrency())))
            o.threads = m.summary.planned_cores;
        m.board = tessera::HostBoard::create(desc, o.threads);
    } catch (const std::exception &e) {
        return fail(TESSERA_ERR_INVALID_ARGUMENT, e.what());
    }
    if (estimated_timeline && !m.board->desc().cost.present())
        return fail(TESSERA_ERR_INVALID_ARGUMENT, ("--timeline-clock estimated: board '" + m.board->desc().name +
                                                   "' has no cost model (\"cost\" in its description)").c_str());
    m.board->record_timeline(!o.timeline.empty() && !estimated_timeline);
    m.board->check_l1(o.check_l1);
    if (o.portable_kernels) m.board->use_portable_kernels();
    if (o.offchip_throttle) {
        try {
            m.board->throttle_offchip(true);
        } catch (const std::exception &e) {
            return fail(TESSERA_ERR_INVALID_ARGUMENT, (std::string("--offchip-throttle: ") + e.what()).c_str());
        }
    }
    st = tessera_open(&m.session, m.image->data(), m.image_size, m.board->hal());
    if (st != TESSERA_OK) return fail(st, (o.image_path + ": " + tessera_last_error(&m.session)).c_str());
    m.open = true;
    if (o.profile) {
        m.steps_profile.resize(tessera_profile_size(&m.session));
        st = tessera_profile(&m.session, m.steps_profile.data(), static_cast<uint32_t>(m.steps_profile.size()));
        if (st != TESSERA_OK) return fail(st, tessera_last_error(&m.session));
    }
    return -1;
}

// What a generation did: its last position, the rate's clock, the NPU's busy time and,
// for an estimated timeline, the runs in order.
struct Generation {
    uint32_t pos = 0, loop_start_pos = 0;
    double loop_seconds = 0.0;
    uint64_t npu_busy_start = 0, npu_busy_prompt = 0;
    std::vector<tessera::RunSpec> runs; // prompt chunks, then steps
    std::string text;                   // --json: the text generated
    std::vector<int32_t> ids;           // the ids generated (BOS excluded)
};

// --depth: the cache's first `depth` positions zero (in every layer, keys and values, a few
// hundred KB a write), the session at position `depth`.
tessera_status start_at_depth(Model &m, uint32_t depth)
{
    if (depth == 0u) return TESSERA_OK;
    const tessera_image_summary &s = m.summary;
    if (s.n_heads == 0u) return TESSERA_ERR_INVALID_ARGUMENT; // (validated images have heads)
    const size_t row = (size_t)s.dim / s.n_heads * s.n_kv_heads * tsr_dtype_bytes(s.precision);
    const uint32_t per_write = (uint32_t)std::max<size_t>(1u, (size_t(256) << 10) / std::max<size_t>(row, 1u));
    const std::vector<uint8_t> zeros(std::min<size_t>(per_write, depth) * row, 0u);
    for (uint32_t layer = 0; layer < s.n_layers; ++layer)
        for (uint32_t kind = 0; kind < 2u; ++kind)
            for (uint32_t first = 0; first < depth; first += per_write)
                if (const tessera_status st =
                        tessera_kv_write(&m.session, layer, kind, first, std::min(per_write, depth - first), zeros.data());
                    st != TESSERA_OK)
                    return st;
    return tessera_set_position(&m.session, depth);
}

// Encodes the prompt, runs it in prompt mode, then samples and steps as run.c does,
// printing text (or ids) on stdout: -1 to go on, or the status to exit with.
int generate(const Options &o, bool estimated_timeline, Model &m, tessera_sampler &sampler, Generation &g)
{
    tessera_session &session = m.session;
    if (o.depth >= m.summary.context)
        return fail(TESSERA_ERR_INVALID_ARGUMENT, ("--depth " + std::to_string(o.depth) + " leaves no position of the image's context of " +
                                                   std::to_string(m.summary.context)).c_str());
    tessera_status st = start_at_depth(m, o.depth);
    if (st != TESSERA_OK) return fail(st, ("--depth: " + std::string(tessera_last_error(&session))).c_str());
    const uint32_t context = m.summary.context - o.depth; // the runtime refuses a prompt that needs more tokens
    std::vector<int32_t> ids(m.summary.context);
    uint32_t n_prompt = 0;
    st = tessera_encode(&session, o.prompt.c_str(), true, false, ids.data(), m.summary.context, &n_prompt);
    if (st != TESSERA_OK) return fail(st, ("prompt: " + std::string(tessera_last_error(&session))).c_str());
    const int steps = o.steps;
    const uint32_t total = (steps <= 0 || static_cast<uint32_t>(steps) > context) ? context : static_cast<uint32_t>(steps);
    if (steps > 0 && static_cast<uint32_t>(steps) > context)
        std::fprintf(stderr, "tessera-generate: note: -n %d is more than the image's context%s; running %u positions\n", steps,
                     o.depth ? " after --depth" : "", context);

    std::vector<int32_t> &out_ids = g.ids;
    auto emit = [&](int32_t prev, int32_t next) {
        out_ids.push_back(next);
        if (o.print_ids && !o.as_json) return;
        uint32_t len = 0;
        const char *piece = tessera_decode(&session, prev, next, &len);
        print_piece(piece, len, o.as_json ? &g.text : nullptr);
    };

    // Prompt mode for the prompt; as run.c, the positions it covers count toward -n.
    const uint32_t prompt_run = n_prompt < total ? n_prompt : total;
    g.npu_busy_start = m.board->npu_busy_ns();
    st = tessera_prompt(&session, ids.data(), prompt_run);
    g.npu_busy_prompt = m.board->npu_busy_ns() - g.npu_busy_start;
    if (st != TESSERA_OK) return fail(st, tessera_last_error(&session));
    if (estimated_timeline)
        for (uint32_t done = 0; done < prompt_run; done += m.summary.prompt_chunk)
            g.runs.push_back({true, std::min(m.summary.prompt_chunk, prompt_run - done), o.depth + done});
    for (uint32_t i = 0; i + 1 < prompt_run; ++i) emit(ids[i], ids[i + 1]);
    int32_t token = ids[prompt_run - 1];
    // Rate as run.c measures it: the clock starts once the first position is done and
    // its token out, and counts every later position, sampling and output included.
    using Clock = std::chrono::steady_clock;
    std::optional<Clock::time_point> loop_start;
    uint32_t &pos = g.pos;
    pos = prompt_run - 1;
    catch_interrupt();
    while (pos < total && !g_interrupted) {
        int32_t next;
        if (pos + 1 < n_prompt) {
            next = ids[pos + 1]; // -n ended inside the prompt
        } else {
            st = tessera_sample(&session, &sampler, &next);
            if (st != TESSERA_OK) return fail(st, tessera_last_error(&session));
        }
        ++pos;
        if (next == int32_t(m.summary.bos_id) || next == int32_t(m.summary.eos_id)) break; // BOS or EOS ends the sequence
        emit(token, next);
        token = next;
        if (!loop_start) loop_start = Clock::now(), g.loop_start_pos = pos;
        if (pos >= total || g_interrupted) break;
        st = tessera_step(&session, token);
        if (st != TESSERA_OK) return fail(st, tessera_last_error(&session));
        if (estimated_timeline) g.runs.push_back({false, 1u, o.depth + pos});
    }
    if (!o.as_json) {
        if (o.print_ids)
            for (size_t i = 0; i < out_ids.size(); ++i) std::printf(i ? " %d" : "%d", out_ids[i]);
        std::printf("\n");
        if (!tessera::stdout_written("tessera-generate")) return tessera::kExitError;
    }
    g.loop_seconds = loop_start ? std::chrono::duration<double>(Clock::now() - *loop_start).count() : 0.0;
    if (g_interrupted) std::fprintf(stderr, "tessera-generate: interrupted at position %u\n", pos);
    return -1;
}

// The statistics, as one document: printed as text lines, or (--json) as one line of JSON.
void report(const Options &o, uint64_t seed, Model &m, const Generation &g)
{
    if (o.quiet && !o.profile && !o.as_json) return;
    tessera_stats stats;
    tessera_get_stats(&m.session, &stats);
    const tessera::HostBoard &board = *m.board;
    json doc = statistics_json(stats, board, o.threads);
    if (o.temperature > 0.0f) doc["seed"] = seed;
    if (g.loop_seconds > 0.0 && g.pos > g.loop_start_pos)
        doc["achieved_tokens_per_second"] = (g.pos - g.loop_start_pos) / g.loop_seconds;
    std::vector<tessera::RunEstimate> estimates;
    if (board.desc().cost.present()) // the board's cost model, on this image
        estimates = tessera::standard_estimates(m.image->data(), m.image_size, board.desc());
    doc["board_estimate"] = board_estimate_json(estimates, board.desc(), g.pos);
    if (o.profile) {
        doc["profile"] = profiles_json(m.steps_profile, stats, m.summary.n_layers, board.has_npu(), g.npu_busy_prompt,
                                       board.npu_busy_ns() - g.npu_busy_start - g.npu_busy_prompt);
        if (!estimates.empty()) doc["estimates"] = tessera::estimate_json(estimates, board.desc());
    }
    if (o.as_json) { // one document on stdout: what was generated, and the statistics
        json out = {{"ids", g.ids}, {"statistics", doc}};
        if (!o.print_ids) out["text"] = g.text;
        std::printf("%s\n", out.dump(-1, ' ', false, json::error_handler_t::replace).c_str());
        return;
    }
    if (!o.quiet) print_statistics(doc, board, o.threads);
    if (doc.contains("profile")) {
        print_profile("prompt mode", doc["profile"]["prompt"]);
        print_profile("token mode", doc["profile"]["token"]);
        if (!estimates.empty())
            std::fprintf(stderr, "estimated on %s (board cost model):\n%s", board.desc().name.c_str(),
                         tessera::estimate_lines(estimates, board.desc()).c_str());
    }
}

} // namespace

int main(int argc, char **argv)
{
    Options o;
    if (const int rc = parse_options(o, argc, argv); rc >= 0) return rc;
    std::optional<tessera::OutputFile> timeline_out; // checked before any work
    if (o.timeline == "-") {
        std::fprintf(stderr, "tessera-generate: error: --timeline: standard output (-) carries the generated text; "
                             "name a file (see tessera-generate --help)\n");
        return tessera::kExitUsage;
    }
    if (!o.timeline.empty()) {
        try {
            tessera::check_outputs({{"--timeline", o.timeline}}, {{"the image", o.image_path}, {"--board", o.board_arg}});
            timeline_out.emplace(o.timeline);
        } catch (const std::exception &e) {
            return fail(TESSERA_ERR_INVALID_ARGUMENT, e.what());
        }
    }
    const bool estimated_timeline = !o.timeline.empty() && o.timeline_clock == "estimated";
    Model m;
    if (const int rc = open_model(o, estimated_timeline, m); rc >= 0) return rc;

    uint64_t seed = o.seed ? o.seed : static_cast<uint64_t>(std::time(nullptr));
    tessera_sampler sampler;
    const tessera_status st = tessera_sampler_init(&sampler, o.temperature, o.topp, seed);
    if (st != TESSERA_OK)
        return fail(st, ("-t " + std::to_string(o.temperature) + ", -p " + std::to_string(o.topp) +
                         ": the temperature must be a finite number >= 0 and top-p a finite number")
                            .c_str());
    Generation g;
    if (const int rc = generate(o, estimated_timeline, m, sampler, g); rc >= 0) return rc;
    report(o, seed, m, g);
    if (!tessera::stdout_written("tessera-generate")) return tessera::kExitError;
    tessera_close(&m.session);
    m.open = false;
    if (timeline_out) {
        try {
            const bool svg = o.timeline.size() > 4 && o.timeline.compare(o.timeline.size() - 4, 4, ".svg") == 0;
            const tessera::BoardDesc &d = m.board->desc();
            if (estimated_timeline) {
                const std::vector<tessera::TimelineEvent> events =
                    tessera::estimated_timeline(m.image->data(), m.image_size, d, g.runs);
                timeline_out->write(svg ? tessera::timeline_svg(events, m.summary.planned_cores, d.has_npu, d.name, true)
                                        : tessera::timeline_trace_json(events, m.summary.planned_cores, d.has_npu, d.name, true));
            } else {
                timeline_out->write(svg ? m.board->timeline_svg() : m.board->timeline_trace_json());
            }
            timeline_out->commit();
        } catch (const std::exception &e) {
            return fail(TESSERA_ERR_INVALID_ARGUMENT, e.what());
        }
    }
    return g_interrupted ? 130 : 0; // 128 + SIGINT, as a shell reports an interrupted command
}
