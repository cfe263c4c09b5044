// The host board's choice of how many threads a fork runs on, fed with made-up fork
// times: it must settle on the fastest count, spend little on the others, and follow
// the machine when the fastest count changes.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "core_count_chooser.hpp"

namespace {

using tessera::CoreCountChooser;

// Runs `forks` forks whose time is cost(count); returns how many ran on each count.
std::map<uint32_t, uint64_t> run(CoreCountChooser &c, uint64_t forks, const std::function<uint64_t(uint32_t)> &cost)
{
    std::map<uint32_t, uint64_t> on;
    for (uint64_t i = 0; i < forks; ++i) {
        const uint32_t n = c.next();
        ++on[n];
        c.record(cost(n));
    }
    return on;
}

TEST(CoreCountChooser, FixedCountIsNeverChanged)
{
    CoreCountChooser c(4, false);
    const auto on = run(c, 10000, [](uint32_t n) { return 1000u / n; });
    EXPECT_EQ(on.size(), 1u);
    EXPECT_EQ(on.at(4), 10000u);
    EXPECT_EQ(c.rounds(), 0u);
}

TEST(CoreCountChooser, OneThreadHasNothingToChoose)
{
    CoreCountChooser c(1, true);
    EXPECT_EQ(run(c, 100, [](uint32_t) { return 5u; }).at(1), 100u);
}

TEST(CoreCountChooser, SettlesOnTheFastestCount)
{
    // Candidates 1, 2, 4, 8, 12; 4 is fastest.
    const auto cost = [](uint32_t n) -> uint64_t { return n == 4 ? 300 : n == 8 ? 350 : n == 2 ? 500 : 900; };
    CoreCountChooser c(12, true);
    const auto on = run(c, 20000, cost);
    EXPECT_EQ(c.best(), 4u);
    EXPECT_GT(on.at(4), 19500u) << "forks on the fastest count";
    for (uint32_t n : {1u, 2u, 8u, 12u}) EXPECT_GE(on.count(n), 1u) << n << " was never measured";
}

TEST(CoreCountChooser, MoreThreadsAreNotAssumedFaster)
{
    CoreCountChooser c(2, true);
    const auto on = run(c, 5000, [](uint32_t n) -> uint64_t { return n == 1 ? 400 : 650; });
    EXPECT_EQ(c.best(), 1u);
    EXPECT_LT(on.at(2), 60u);
}

TEST(CoreCountChooser, AMuchWorseCountIsRarelyTried)
{
    // A busy machine: the second thread is rarely scheduled, forks on 2 take 10x longer.
    // Each try costs one fork (its wake-up), and tries come rarer and rarer.
    CoreCountChooser c(2, true);
    const auto on = run(c, 10000, [](uint32_t n) -> uint64_t { return n == 1 ? 400 : 4000; });
    EXPECT_EQ(c.best(), 1u);
    EXPECT_LE(on.at(2), 4u);
    EXPECT_GE(on.at(2), 2u) << "still measured now and then";
}

TEST(CoreCountChooser, AModeratelyWorseCountCostsItsSamples)
{
    // 2 threads 1.3x slower (a small model): measured in full each round.
    CoreCountChooser c(2, true);
    const auto on = run(c, 10000, [](uint32_t n) -> uint64_t { return n == 1 ? 400 : 520; });
    EXPECT_EQ(c.best(), 1u);
    EXPECT_EQ(on.at(2), (1u + CoreCountChooser::kSamples) * c.rounds());
    EXPECT_LT(on.at(2), 100u);
}

TEST(CoreCountChooser, TheFirstForkOfACountIsNotASample)
{
    // Threads that slept for long wake slowly: the first fork on 2 after forks on 1
    // takes 3x longer, the next ones are faster than on 1. 2 must win.
    CoreCountChooser c(2, true);
    uint32_t last = 0;
    const auto on = run(c, 5000, [&](uint32_t n) -> uint64_t {
        const bool woke = n == 2 && last != 2;
        last = n;
        return n == 1 ? 400 : woke ? 1200 : 300;
    });
    EXPECT_EQ(c.best(), 2u);
    EXPECT_GT(on.at(2), 4900u);
}

TEST(CoreCountChooser, NoisySamplesStillFindTheFastest)
{
    uint64_t state = 88172645463325252ull; // xorshift64: a reproducible noise
    auto noise = [&] {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        return state % 200u;
    };
    CoreCountChooser c(2, true);
    const auto on = run(c, 20000, [&](uint32_t n) -> uint64_t { return (n == 2 ? 300 : 400) + noise(); });
    EXPECT_EQ(c.best(), 2u);
    EXPECT_GT(on.at(2), 19000u);
}

TEST(CoreCountChooser, FollowsTheMachineWhenTheFastestCountChanges)
{
    bool busy = false; // another process starts: two threads stop paying
    const auto cost = [&](uint32_t n) -> uint64_t { return busy ? (n == 1 ? 400 : 2000) : (n == 2 ? 250 : 400); };
    CoreCountChooser c(2, true);
    run(c, 3000, cost);
    EXPECT_EQ(c.best(), 2u);
    busy = true;
    run(c, CoreCountChooser::kLongestPeriod + 100, cost); // at most one longest period to notice
    EXPECT_EQ(c.best(), 1u);
    busy = false; // 2 sat out some rounds while it was much worse
    run(c, (CoreCountChooser::kLongestSitOut + 2) * CoreCountChooser::kLongestPeriod, cost);
    EXPECT_EQ(c.best(), 2u);
}

// A count that loses by 40 % (not enough to leave a round early) is tried every round;
// what those trials cost beyond the current count stays within its share (1/32 of all
// the forks' time, plus the first round, which is always run).
TEST(CoreCountChooser, TrialsCostAtMostTheirShare)
{
    CoreCountChooser c(2, true);
    const auto on = run(c, 200000, [](uint32_t n) { return n == 1 ? 1000u : 1400u; });
    EXPECT_EQ(c.best(), 1u);
    const uint64_t first_round = (1u + CoreCountChooser::kSamples) * 400u;
    EXPECT_LE(c.trial_excess_ns(), c.total_ns() / CoreCountChooser::kTrialShare + first_round);
    EXPECT_EQ(c.trial_excess_ns(), uint64_t(on.at(2)) * 400u) << "every fork on 2 counted its excess";
}

// Waking the other count's thread costs 5 ms (a busy machine) though its forks, once
// awake, lose only 10 %: after the first round's trial, the next waits until the forks
// have taken 32 times what it cost (some 1,600 forks of 100 us), where the rounds alone
// would have tried again after about 200.
TEST(CoreCountChooser, ADearWakeUpDefersTheNextRound)
{
    CoreCountChooser c(2, true);
    uint32_t last = 1;
    std::vector<uint64_t> wakeups;
    for (uint64_t i = 0; i < 2000; ++i) {
        const uint32_t n = c.next();
        const bool woken = n == 2 && last != 2;
        last = n;
        if (woken) wakeups.push_back(i);
        c.record(woken ? 5000000u : n == 1 ? 100000u : 110000u);
    }
    EXPECT_EQ(c.best(), 1u);
    ASSERT_EQ(wakeups.size(), 2u);
    EXPECT_LT(wakeups[0], 10u) << "the first round";
    EXPECT_GT(wakeups[1], 1500u) << "deferred by the trials' cost";
    EXPECT_LE(c.trial_excess_ns(), c.total_ns() / CoreCountChooser::kTrialShare + 5000000u);
}

} // namespace
