// tessera-generate: the token-generation demo. Flags and output follow llama2.c's run.c.
#include <cctype>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tessera/tools/image_file.h"
#include "tessera/tools/output_file.h"
#include "tessera/host_board.hpp"
#include "tessera/tessera.h"

namespace {

// run.c's safe_printf: skip pieces that are a single unprintable byte.
void print_piece(const char *piece, uint32_t len)
{
    if (piece == nullptr || len == 0) return;
    if (len == 1) {
        const unsigned char c = static_cast<unsigned char>(piece[0]);
        if (!(std::isprint(c) || std::isspace(c))) return;
    }
    std::fwrite(piece, 1, len, stdout);
    std::fflush(stdout);
}

int fail(tessera_status st, const char *detail)
{
    std::fprintf(stderr, "tessera-generate: error %d (%s): %s\n", static_cast<int>(st), tessera_status_string(st),
                 detail);
    return 1;
}

double per_second(uint64_t tokens, uint64_t ns) { return ns ? static_cast<double>(tokens) * 1e9 / static_cast<double>(ns) : 0.0; }

} // namespace

int main(int argc, char **argv)
{
    std::string image_path, prompt, board_arg;
    int steps = 256;
    float temperature = 1.0f, topp = 0.9f;
    uint64_t seed = 0;
    bool print_ids = false, quiet = false;
    uint32_t threads = 0;

    CLI::App app{"tessera-generate: generate text with a Tessera model image on the host emulation board.\n"
                 "Flags follow llama2.c's run.c; statistics go to stderr."};
    app.add_option("image", image_path, "model image written by tessera-pack")->required();
    app.add_option("-i,--prompt", prompt, "prompt text");
    app.add_option("-n,--steps", steps, "positions to run, prompt included; 0 or more than the context = the context")
        ->capture_default_str()->check(CLI::NonNegativeNumber);
    app.add_option("-t,--temperature", temperature, "0 = greedy; a finite number >= 0")->capture_default_str();
    app.add_option("-p,--topp", topp, "nucleus sampling threshold in [0,1]; 0 or 1 = off")
        ->capture_default_str()->check(CLI::Range(0.0f, 1.0f));
    app.add_option("-s,--seed", seed, "random seed; 0 = from the clock (the seed used is reported)");
    app.add_flag("--ids", print_ids, "print the generated token ids (BOS excluded) on one line instead of text");
    app.add_option("--board", board_arg, "board NAME or description FILE.json (default: the board the image is planned for)");
    app.add_option("--threads", threads, "threads backing the cluster (default: the board's cores)")
        ->check(CLI::Range(1u, 64u));
    app.add_flag("-q,--quiet", quiet, "no statistics on stderr");
    std::string timeline;
    bool check_l1 = false;
    app.add_flag("--check-l1", check_l1, "stop loudly if a kernel is ever handed an operand outside L1 (testing)");
    app.add_option("--timeline", timeline, "write what each engine of the board did as a Chrome/Perfetto trace (JSON)");
    CLI11_PARSE(app, argc, argv);

    std::optional<tessera::OutputFile> timeline_out; // checked before any work
    if (!timeline.empty()) {
        try {
            timeline_out.emplace(timeline);
        } catch (const std::exception &e) {
            return fail(TESSERA_ERR_INVALID_ARGUMENT, e.what());
        }
    }

    const tessera::ImageFile image(image_path);
    if (!image.ok()) return fail(TESSERA_ERR_INVALID_ARGUMENT, image.error().c_str());
    const size_t image_size = image.size();
    tessera_image_summary summary;
    char detail[192];
    tessera_status st = tessera_image_peek(image.data(), image_size, &summary, detail, sizeof detail);
    if (st != TESSERA_OK) return fail(st, (image_path + ": " + detail).c_str());

    std::unique_ptr<tessera::HostBoard> board;
    try {
        board = tessera::HostBoard::create(tessera::load_board_desc(board_arg.empty() ? summary.board_name : board_arg),
                                           threads);
    } catch (const std::exception &e) {
        return fail(TESSERA_ERR_INVALID_ARGUMENT, e.what());
    }
    board->record_timeline(!timeline.empty());
    board->check_l1(check_l1);
    tessera_session session;
    st = tessera_open(&session, image.data(), image_size, board->hal());
    if (st != TESSERA_OK) return fail(st, (image_path + ": " + tessera_last_error(&session)).c_str());

    if (seed == 0) seed = static_cast<uint64_t>(std::time(nullptr));
    tessera_sampler sampler;
    st = tessera_sampler_init(&sampler, temperature, topp, seed);
    if (st != TESSERA_OK)
        return fail(st, ("-t " + std::to_string(temperature) + ", -p " + std::to_string(topp) +
                         ": the temperature must be a finite number >= 0 and top-p a finite number")
                            .c_str());

    const uint32_t context = summary.context; // the runtime refuses a prompt that needs more tokens
    std::vector<int32_t> ids(context);
    uint32_t n_prompt = 0;
    st = tessera_encode(&session, prompt.c_str(), true, false, ids.data(), context, &n_prompt);
    if (st != TESSERA_OK) return fail(st, ("prompt: " + std::string(tessera_last_error(&session))).c_str());
    const uint32_t total = (steps <= 0 || static_cast<uint32_t>(steps) > context) ? context : static_cast<uint32_t>(steps);

    std::vector<int32_t> out_ids;
    auto emit = [&](int32_t prev, int32_t next) {
        if (print_ids) {
            out_ids.push_back(next);
            return;
        }
        uint32_t len = 0;
        const char *piece = tessera_decode(&session, prev, next, &len);
        print_piece(piece, len);
    };

    // Prompt mode for the prompt; as run.c, the positions it covers count toward -n.
    const uint32_t prompt_run = n_prompt < total ? n_prompt : total;
    st = tessera_prompt(&session, ids.data(), prompt_run);
    if (st != TESSERA_OK) return fail(st, tessera_last_error(&session));
    for (uint32_t pos = 0; pos + 1 < prompt_run; ++pos) emit(ids[pos], ids[pos + 1]);
    int32_t token = ids[prompt_run - 1];
    for (uint32_t pos = prompt_run - 1; pos < total;) {
        int32_t next;
        if (pos + 1 < n_prompt) {
            next = ids[pos + 1]; // -n ended inside the prompt
        } else {
            st = tessera_sample(&session, &sampler, &next);
            if (st != TESSERA_OK) return fail(st, tessera_last_error(&session));
        }
        ++pos;
        if (next == 1 || next == 2) break; // BOS or EOS ends the sequence
        emit(token, next);
        token = next;
        if (pos >= total) break;
        st = tessera_step(&session, token);
        if (st != TESSERA_OK) return fail(st, tessera_last_error(&session));
    }
    if (print_ids) {
        for (size_t i = 0; i < out_ids.size(); ++i) std::printf(i ? " %d" : "%d", out_ids[i]);
    }
    std::printf("\n");
    std::fflush(stdout);

    if (!quiet) {
        tessera_stats stats;
        tessera_get_stats(&session, &stats);
        std::fprintf(stderr,
                     "prompt: %" PRIu64 " tokens, %.1f tokens/s | generation: %" PRIu64 " tokens, %.1f tokens/s | board %s, "
                     "%u threads\n",
                     stats.prompt_tokens, per_second(stats.prompt_tokens, stats.prompt_cycles), stats.step_tokens,
                     per_second(stats.step_tokens, stats.step_cycles), board->desc().name.c_str(),
                     board->hal()->core_count);
        std::fprintf(stderr, "memory: L1 %u, L2 %u, NMS %u bytes planned; image %u bytes, weights %s",
                     stats.region_bytes[TSR_REGION_L1], stats.region_bytes[TSR_REGION_L2],
                     stats.region_bytes[TSR_REGION_NMS], stats.region_bytes[TSR_REGION_IMAGE],
                     stats.weights_in_place ? "in place" : "copied to L2");
        if (temperature > 0.0f) std::fprintf(stderr, "; seed %" PRIu64, seed);
        std::fprintf(stderr, "\n");
    }
    tessera_close(&session);
    if (timeline_out) {
        try {
            timeline_out->write(board->timeline_trace_json());
            timeline_out->commit();
        } catch (const std::exception &e) {
            return fail(TESSERA_ERR_INVALID_ARGUMENT, e.what());
        }
    }
    return 0;
}
