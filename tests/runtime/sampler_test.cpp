// The sampler: run.c's generator and algorithms.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../runtime/src/sampler.h"

namespace {

TEST(Sampler, XorshiftMatchesIndependentValues)
{
    // From a separate Python implementation of run.c's random_u32, seed 42.
    uint64_t state = 42;
    EXPECT_EQ(tsr::random_u32(&state), 1456360119u);
    EXPECT_EQ(tsr::random_u32(&state), 3359763283u);
    EXPECT_EQ(tsr::random_u32(&state), 3393612768u);
}

TEST(Sampler, GreedyIsFirstArgmax)
{
    const std::vector<float> logits = {0.1f, 3.0f, -2.0f, 3.0f};
    std::vector<float> scratch(3 * logits.size());
    tessera_sampler s{0.0f, 0.9f, 1};
    EXPECT_EQ(tsr::sample_token(&s, logits.data(), 4, scratch.data()), 1);
}

TEST(Sampler, SameSeedSameSequenceDifferentSeedDifferent)
{
    std::vector<float> logits(50);
    for (size_t i = 0; i < logits.size(); ++i) logits[i] = std::sin(float(i));
    std::vector<float> scratch(3 * logits.size());
    auto run = [&](uint64_t seed, float topp) {
        tessera_sampler s{1.0f, topp, seed};
        std::vector<int32_t> out;
        for (int i = 0; i < 40; ++i) out.push_back(tsr::sample_token(&s, logits.data(), 50, scratch.data()));
        return out;
    };
    EXPECT_EQ(run(7, 0.9f), run(7, 0.9f));
    EXPECT_NE(run(7, 0.9f), run(8, 0.9f));
    EXPECT_EQ(run(7, 0.0f), run(7, 0.0f));
}

TEST(Sampler, MultinomialFrequenciesFollowSoftmax)
{
    const std::vector<float> logits = {0.0f, 1.0f, 2.0f, -1.0f};
    std::vector<float> scratch(12);
    double total = 0;
    for (float l : logits) total += std::exp(double(l) / 0.7);
    tessera_sampler s{0.7f, 0.0f, 12345};
    std::vector<int> count(4, 0);
    const int draws = 40000;
    for (int i = 0; i < draws; ++i) ++count[size_t(tsr::sample_token(&s, logits.data(), 4, scratch.data()))];
    for (size_t i = 0; i < 4; ++i) {
        const double p = std::exp(double(logits[i]) / 0.7) / total;
        EXPECT_NEAR(count[i] / double(draws), p, 4.0 * std::sqrt(p * (1 - p) / draws) + 1e-3) << i;
    }
}

TEST(Sampler, TopPKeepsOnlyTheNucleus)
{
    // Probabilities ~ {0.64, 0.24, 0.09, 0.03}: top-p 0.5 keeps only the first.
    const std::vector<float> logits = {3.0f, 2.0f, 1.0f, 0.0f};
    std::vector<float> scratch(12);
    tessera_sampler s{1.0f, 0.5f, 99};
    for (int i = 0; i < 200; ++i) EXPECT_EQ(tsr::sample_token(&s, logits.data(), 4, scratch.data()), 0);
    // top-p 0.8 keeps the first two, never the others.
    tessera_sampler s2{1.0f, 0.8f, 99};
    int seen[4] = {};
    for (int i = 0; i < 2000; ++i) ++seen[tsr::sample_token(&s2, logits.data(), 4, scratch.data())];
    EXPECT_GT(seen[0], 0);
    EXPECT_GT(seen[1], 0);
    EXPECT_EQ(seen[2] + seen[3], 0);
}

TEST(Sampler, LeavesLogitsIntact)
{
    const std::vector<float> logits = {0.5f, 0.25f, 2.0f};
    auto copy = logits;
    std::vector<float> scratch(9);
    tessera_sampler s{0.8f, 0.9f, 3};
    tsr::sample_token(&s, copy.data(), 3, scratch.data());
    EXPECT_EQ(copy, logits);
}

} // namespace
