// The per-operator profile and the run counters: one cluster fork per run, and the
// runtime's own accounting of forks and DMA traffic against what the host board saw
// happen (its timeline, counted on the board's side).
#include <gtest/gtest.h>

#include <vector>

#include "support/packed_image.h"
#include "support/synthetic_model.h"

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

} // namespace
