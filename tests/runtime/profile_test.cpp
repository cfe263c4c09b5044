// The per-operator profile and the run counters: one cluster fork per run, and the
// runtime's own accounting of forks and DMA traffic against what the host board saw
// happen (its timeline, counted on the board's side).
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <sstream>
#include <map>
#include <set>
#include <vector>

#include "support/packed_image.h"
#include "support/synthetic_model.h"
#include "support/tool_run.h"

namespace {

using namespace tessera::test;

std::unique_ptr<OpenModel> tiled_model(uint32_t threads)
{
    SyntheticConfig c; // dim 32, 2 layers, 4 heads (2 KV), vocab 300, context 40
    tessera::PackOptions o;
    o.checkpoint = temp_path("profile.bin");
    o.tokenizer = temp_path("profile.tok");
    o.output = temp_path("profile.tess");
    o.l1_bytes = 8 * 1024; // small: weights and K/V reach L1 by DMA, tile by tile
    write_legacy_checkpoint(o.checkpoint, c, make_weights(c));
    write_tokenizer(o.tokenizer, c.vocab_size);
    return open_model(o, threads);
}

class Profile : public ::testing::TestWithParam<uint32_t> {};

TEST_P(Profile, OneForkPerRunAndTheRuntimesCountsMatchTheBoards)
{
    auto m = tiled_model(GetParam());
    ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
    std::vector<tessera_step_profile> steps(tessera_profile_size(&m->session));
    ASSERT_GT(steps.size(), 0u);
    ASSERT_EQ(tessera_profile(&m->session, steps.data(), uint32_t(steps.size())), TESSERA_OK);
    m->board->record_timeline(true);

    std::vector<int32_t> prompt = {1};
    for (int i = 0; i < 20; ++i) prompt.push_back(3 + i * 7); // 21 tokens: chunks of 16 and 5
    const auto ids = generate_greedy(*m, prompt, 31);         // then 10 steps
    ASSERT_EQ(ids.size(), 31u);
    m->board->record_timeline(false);

    tessera_stats stats;
    tessera_get_stats(&m->session, &stats);
    EXPECT_EQ(stats.runs, 2u + 10u);
    EXPECT_EQ(stats.forks, stats.runs) << "one cluster fork per run";

    uint64_t board_forks = 0, board_copies = 0, board_bytes = 0;
    for (const auto &e : m->board->timeline()) {
        if (e.engine == tessera::TimelineEvent::Engine::kDma) ++board_copies, board_bytes += e.bytes;
        else if (std::string(e.name) == "fork") ++board_forks;
    }
    EXPECT_EQ(board_forks, stats.forks);
    EXPECT_EQ(board_copies, stats.dma_transfers);
    EXPECT_EQ(board_bytes, stats.dma_bytes);
    EXPECT_GT(stats.dma_bytes, 0u);

    tessera_step_profile all;
    EXPECT_EQ(tessera_profile_sum(steps.data(), uint32_t(steps.size()), TESSERA_PROFILE_ANY, TESSERA_PROFILE_ANY, &all),
              steps.size());
    EXPECT_EQ(all.forks, stats.forks);
    EXPECT_EQ(all.dma_transfers, stats.dma_transfers);
    EXPECT_EQ(all.dma_bytes, stats.dma_bytes);

    // The view by layer adds up to the whole: layers 0 and 1, and the steps of none.
    uint64_t bytes = 0, transfers = 0, cycles = 0;
    for (uint32_t layer : {0u, 1u, 0xFFFFu}) {
        tessera_step_profile s;
        EXPECT_GT(tessera_profile_sum(steps.data(), uint32_t(steps.size()), TESSERA_PROFILE_ANY, layer, &s), 0u);
        bytes += s.dma_bytes, transfers += s.dma_transfers, cycles += s.cycles;
    }
    EXPECT_EQ(bytes, all.dma_bytes);
    EXPECT_EQ(transfers, all.dma_transfers);
    EXPECT_EQ(cycles, all.cycles);

    // Each step of the token schedule ran once per step, each of the prompt schedule once per chunk.
    for (const auto &s : steps) EXPECT_EQ(s.runs, s.schedule == 0 ? 2u : 10u) << "schedule " << s.schedule << " step " << s.step;
}

INSTANTIATE_TEST_SUITE_P(Threads, Profile, ::testing::Values(1u, 2u, 8u));

// Steps sharing fewer bytes than the board's solo_bytes run on core 0 alone: the
// board's timeline (recorded on its side) shows them on core 0's lane only, the larger
// matmuls on every core's, and the ids are the same as when every step is shared.
TEST(SoloSteps, SmallStepsRunOnCoreZeroAlone)
{
    std::vector<std::vector<int32_t>> ids;
    for (uint32_t solo : {0u, 2048u}) {
        SyntheticConfig c;
        tessera::PackOptions o;
        o.checkpoint = temp_path("solo.bin");
        o.tokenizer = temp_path("solo.tok");
        o.output = temp_path("solo.tess");
        write_legacy_checkpoint(o.checkpoint, c, make_weights(c));
        write_tokenizer(o.tokenizer, c.vocab_size);
        auto model = open_model(o, 2, "", solo);
        ASSERT_EQ(model->status, TESSERA_OK) << tessera_last_error(&model->session);
        model->board->record_timeline(true);
        ids.push_back(generate_greedy(*model, {1, 5, 9}, 12));
        model->board->record_timeline(false);
        std::map<std::string, std::set<uint32_t>> lanes; // operator -> cores that ran it
        for (const auto &e : model->board->timeline())
            if (e.engine == tessera::TimelineEvent::Engine::kCluster && std::string(e.name) != "fork" && e.pos >= 3)
                lanes[e.name].insert(e.core); // the token runs (the prompt's 16-row buffers are larger)
        SCOPED_TRACE("solo_bytes " + std::to_string(solo));
        // rmsnorm (dim 32: 256 bytes of operands) and add are small; the matmuls of the
        // layers (32 x 32 fp32 weights: 4 KiB and more) are not.
        const std::set<uint32_t> core0 = {0u}, both = {0u, 1u};
        for (const char *small : {"rmsnorm", "add", "rope", "swiglu"})
            EXPECT_EQ(lanes[small], solo ? core0 : both) << small;
        EXPECT_EQ(lanes["matmul"], (std::set<uint32_t>{0u, 1u}));
    }
    EXPECT_EQ(ids[0], ids[1]);
}

// ---- waits for the NPU and the DMA engine (stories260K int8 on siracusa) ---------------

tessera::PackOptions stories_int8(const std::string &shared, const std::string &board, const std::string &scenario,
                                  const std::string &file)
{
    return stories260k_int8(shared, board, scenario, temp_path(file));
}

// Each step's waits are part of its time; an npu-nms image waits for the NPU, whose
// steps say they run on it and are charged the waits for their jobs (not the step that
// reads a job's output, which is the one that waits); an image without NPU steps never
// waits for one. The NPU is one engine: it cannot have been busy longer than the runs took.
TEST(ProfileWaits, NpuAndDmaWaitsArePartsOfTheStepsTime)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    for (const char *scenario : {"npu-nms", "cluster"}) {
        SCOPED_TRACE(scenario);
        auto m = open_model(stories_int8(shared, "siracusa", scenario, std::string("waits_") + scenario + ".tess"), 2);
        ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
        std::vector<tessera_step_profile> steps(tessera_profile_size(&m->session));
        ASSERT_EQ(tessera_profile(&m->session, steps.data(), uint32_t(steps.size())), TESSERA_OK);
        const auto t0 = std::chrono::steady_clock::now();
        const uint64_t busy0 = m->board->npu_busy_ns();
        ASSERT_EQ(generate_greedy(*m, {1}, 40).size(), 40u);
        const uint64_t wall = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                           std::chrono::steady_clock::now() - t0).count());
        const uint64_t busy = m->board->npu_busy_ns() - busy0;
        uint64_t npu_wait = 0, dma_wait = 0, npu_steps = 0;
        for (const tessera_step_profile &p : steps) {
            EXPECT_LE(p.dma_wait_cycles + p.npu_wait_cycles, p.cycles) << "schedule " << p.schedule << " step " << p.step;
            EXPECT_TRUE(p.engine >= TSR_ENGINE_CLUSTER && p.engine <= TSR_ENGINE_NPU);
            if (p.engine == TSR_ENGINE_NPU) {
                ++npu_steps;
                EXPECT_EQ(p.op, uint32_t(TSR_OP_MATMUL));
                EXPECT_EQ(p.npu_jobs, p.runs) << "one job per run of an NPU step (stories260K's layers are small)";
            } else {
                EXPECT_EQ(p.npu_jobs, 0u);
                EXPECT_EQ(p.npu_wait_cycles, 0u) << "schedule " << p.schedule << " step " << p.step
                                                 << " (" << tsr_op_name(p.op) << ") is charged a wait for an NPU job";
            }
            npu_wait += p.npu_wait_cycles, dma_wait += p.dma_wait_cycles;
        }
        tessera_close(&m->session);
        if (std::string(scenario) == "npu-nms") {
            EXPECT_EQ(npu_steps, 2u * 5u * 7u) << "q, k, v, o, w1, w2, w3 of 5 layers in each schedule";
            EXPECT_GT(npu_wait, 0u);
            EXPECT_GT(busy, 0u);
            EXPECT_LE(busy, wall);
        } else {
            EXPECT_EQ(npu_steps, 0u);
            EXPECT_EQ(npu_wait, 0u);
            EXPECT_EQ(busy, 0u);
        }
        EXPECT_GT(dma_wait, 0u) << "the KV cache and the classifier's weights reach L1 by DMA";
    }
}

// tessera-generate --profile of an npu-nms image: the rows by operator and engine, the
// wait for the DMA engine and the wait for the NPU add up to 100 % (each printed to
// 0.1 %) and their ns to the "all" row's; the NPU's busy time is printed apart.
TEST(ProfileWaits, GenerateProfileRowsAddUpToTheWhole)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    const std::string image = temp_path("profile_cli.tess");
    const ToolRun pack = run_tool(std::string(TESSERA_TOOLS_BUILD_DIR) + "/tessera-pack " + shared +
                                  "/models/stories260K.bin --tokenizer " + shared +
                                  "/models/tok512.bin --board siracusa --precision int8 --scenario npu-nms -q -o " + image);
    ASSERT_EQ(pack.status, 0) << pack.out;
    const ToolRun gen = run_tool("{ " + std::string(TESSERA_TOOLS_BUILD_DIR) + "/tessera-generate " + image +
                                 " -t 0 -n 60 -i 'Once upon a time' --profile >/dev/null; }");
    ASSERT_EQ(gen.status, 0) << gen.out;
    std::vector<std::string> lines;
    std::istringstream in(gen.out);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    const std::regex row(R"(^  (\S.*\S)\s+([0-9]+)\s+([0-9.]+) %.*$)");
    const std::regex busy(R"(^  NPU busy [0-9]+ ns per token \([0-9.]+ % of core 0's time\), alongside the cluster.*)");
    int modes = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].rfind("profile, ", 0) != 0) continue;
        ++modes;
        SCOPED_TRACE(lines[i]);
        double shares = 0, ns = 0;
        std::set<std::string> names;
        size_t k = i + 2; // past the column heads
        for (; k < lines.size(); ++k) {
            std::smatch m;
            ASSERT_TRUE(std::regex_match(lines[k], m, row)) << lines[k];
            if (m[1] == "all") break;
            names.insert(m[1]);
            shares += std::stod(m[3]);
            ns += std::stod(m[2]);
        }
        ASSERT_LT(k, lines.size()) << "no 'all' row";
        std::smatch all;
        std::regex_match(lines[k], all, row);
        EXPECT_NEAR(std::stod(all[3]), 100.0, 0.05);
        EXPECT_NEAR(ns, std::stod(all[2]), double(names.size())) << "the rows' ns (each rounded) add up to all's";
        EXPECT_NEAR(shares, 100.0, 0.05 * double(names.size()) + 0.05) << "the rows' shares";
        for (const char *name : {"matmul", "matmul (NPU)", "attention", "wait for DMA", "wait for NPU"})
            EXPECT_TRUE(names.count(name)) << name;
        bool npu_busy = false;
        for (++k; k < lines.size() && lines[k].rfind("  ", 0) == 0; ++k) npu_busy = npu_busy || std::regex_match(lines[k], busy);
        EXPECT_TRUE(npu_busy) << "the NPU's busy time";
    }
    EXPECT_EQ(modes, 2) << gen.out;
}

} // namespace
