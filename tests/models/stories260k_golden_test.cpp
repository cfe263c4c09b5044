// stories260K end to end against llama2.c's run.c (../shared/golden): greedy ids,
// teacher forcing through prompt mode, prompt vs token mode, thread counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "support/golden.h"
#include "support/packed_image.h"
#include "support/synthetic_model.h"

namespace {

using namespace tessera::test;

class Stories260K : public ::testing::Test {
protected:
    void SetUp() override
    {
        shared_ = shared_dir();
        if (shared_.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found: ../shared/models and ../shared/golden are needed";
        options_.checkpoint = shared_ + "/models/stories260K.bin";
        options_.tokenizer = shared_ + "/models/tok512.bin";
        options_.output = temp_path("stories260K.tess");
        golden_ = read_golden(shared_ + "/golden/stories260K.greedy200.txt");
        ASSERT_EQ(golden_.size(), 200u);
    }
    std::string shared_;
    tessera::PackOptions options_;
    std::vector<GoldenStep> golden_;
};

TEST_F(Stories260K, GreedyIdsMatchRunCWithOneTwoAndEightThreads)
{
    std::vector<int32_t> want;
    for (const auto &g : golden_) want.push_back(g.next);
    for (uint32_t threads : {1u, 2u, 8u}) {
        auto m = open_model(options_, threads);
        ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
        EXPECT_EQ(generate_greedy(*m, {1}, 200), want) << threads << " threads";
    }
}

TEST_F(Stories260K, PromptContinuationMatchesRunC)
{
    const auto lily = read_golden(shared_ + "/golden/stories260K.prompt_lily.greedy120.txt");
    ASSERT_EQ(lily.size(), 120u);
    auto m = open_model(options_);
    ASSERT_EQ(m->status, TESSERA_OK);
    std::vector<int32_t> prompt(32);
    uint32_t n = 0;
    ASSERT_EQ(tessera_encode(&m->session, "Lily and Tom went to the", true, false, prompt.data(), 32, &n), TESSERA_OK);
    prompt.resize(n);
    std::vector<int32_t> want;
    for (const auto &g : lily) want.push_back(g.next);
    EXPECT_EQ(generate_greedy(*m, prompt, 120), want);
}

TEST_F(Stories260K, TeacherForcingThroughPromptModeAndAgreementWithTokenMode)
{
    std::vector<int32_t> sequence = {1};
    for (const auto &g : golden_) sequence.push_back(g.next);
    sequence.pop_back(); // 200 inputs: BOS and the first 199 outputs; position p predicts golden[p]

    tessera::PackOptions every_row = options_;
    every_row.prompt_logits_all = true; // teacher forcing reads every row of a chunk
    auto prompt = open_model(every_row);
    auto token = open_model(options_);
    ASSERT_EQ(prompt->status, TESSERA_OK);
    ASSERT_EQ(token->status, TESSERA_OK);
    const uint32_t vocab = 512, chunk = 16;
    int checked = 0;
    double worst = 0;
    for (size_t start = 0; start < sequence.size(); start += chunk) {
        const uint32_t n = uint32_t(std::min<size_t>(chunk, sequence.size() - start));
        ASSERT_EQ(tessera_prompt(&prompt->session, sequence.data() + start, n), TESSERA_OK);
        for (uint32_t r = 0; r < n; ++r) {
            const size_t pos = start + r;
            const float *pl = nullptr, *tl = nullptr;
            ASSERT_EQ(tessera_logits(&prompt->session, r, &pl, nullptr), TESSERA_OK);
            if (golden_[pos].margin > 1e-3) {
                EXPECT_EQ(int32_t(std::max_element(pl, pl + vocab) - pl), golden_[pos].next) << "position " << pos;
                ++checked;
            }
            ASSERT_EQ(tessera_step(&token->session, sequence[pos]), TESSERA_OK);
            ASSERT_EQ(tessera_logits(&token->session, TESSERA_LAST_ROW, &tl, nullptr), TESSERA_OK);
            const auto [lo, hi] = std::minmax_element(tl, tl + vocab);
            double diff = 0;
            for (uint32_t i = 0; i < vocab; ++i) diff = std::max(diff, std::fabs(double(pl[i]) - tl[i]));
            worst = std::max(worst, diff / (*hi - *lo));
        }
    }
    EXPECT_EQ(checked, 200);
    EXPECT_LE(worst, 1e-4) << "prompt vs token mode, relative to the logit range";
    std::ostringstream figure;
    figure << std::scientific << worst;
    RecordProperty("prompt_vs_token_max_relative_diff", figure.str());
}

// Greedy sampling as siracusa's board asks for it (tsr_hal_board.sample_on_cluster_from): the
// logits moved into the L1 no tensor holds between runs by the DMA engine, the first largest
// taken on the cluster's threads, each a share: run.c's ids.
TEST_F(Stories260K, GreedyIdsMatchRunCWithTheLogitsTakenOnTheCluster)
{
    tessera::PackOptions o = options_;
    o.board = "siracusa";
    std::vector<int32_t> want;
    for (const auto &g : golden_) want.push_back(g.next);
    for (uint32_t threads : {1u, 3u, 8u}) {
        auto m = open_model(o, threads);
        ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
        m->board->sample_on_cluster(1);
        EXPECT_EQ(generate_greedy(*m, {1}, 200), want) << threads << " threads";
    }
}

TEST_F(Stories260K, FitsSiracusaAndGap9)
{
    for (const char *board : {"siracusa", "gap9"}) {
        tessera::PackOptions o = options_;
        o.board = board;
        auto m = open_model(o);
        ASSERT_EQ(m->status, TESSERA_OK) << board << ": " << tessera_last_error(&m->session);
        std::vector<int32_t> want;
        for (int i = 0; i < 20; ++i) want.push_back(golden_[size_t(i)].next);
        EXPECT_EQ(generate_greedy(*m, {1}, 20), want) << board;
    }
}

} // namespace
