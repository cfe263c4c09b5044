// The static allocator: never overlaps live buffers, honours alignment, and meets
// the live-bytes lower bound where it is reachable.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "tessera/pack/static_allocator.h"

namespace {

using tessera::AllocRequest;

TEST(StaticAllocator, LowerBoundIsPeakLiveBytes)
{
    // t: 0 1 2 3 ; A=100 [0,1], B=50 [1,2], C=70 [2,3]: peak 150 at t=1, 120 at t=2.
    const std::vector<AllocRequest> r = {{100, 1, 0, 1}, {50, 1, 1, 2}, {70, 1, 2, 3}};
    EXPECT_EQ(tessera::live_bytes_lower_bound(r), 150u);
}

TEST(StaticAllocator, ReusesMemoryOfDeadBuffers)
{
    // A chain where each buffer dies as the next is born: two slots suffice.
    std::vector<AllocRequest> r;
    for (uint32_t t = 0; t < 10; ++t) r.push_back({64, 64, t, t + 1});
    const auto out = tessera::allocate_best_fit(r);
    EXPECT_TRUE(tessera::placement_is_valid(r, out.offsets));
    EXPECT_EQ(out.lower_bound, 128u);
    EXPECT_EQ(out.arena_bytes, 128u);
}

TEST(StaticAllocator, HonoursAlignment)
{
    const std::vector<AllocRequest> r = {{3, 1, 0, 5}, {8, 64, 0, 5}, {5, 16, 2, 3}};
    const auto out = tessera::allocate_best_fit(r);
    EXPECT_TRUE(tessera::placement_is_valid(r, out.offsets));
    EXPECT_EQ(out.offsets[1] % 64, 0u);
    EXPECT_EQ(out.offsets[2] % 16, 0u);
}

TEST(StaticAllocator, RandomInstancesNeverOverlap)
{
    std::mt19937 rng(7);
    for (int instance = 0; instance < 200; ++instance) {
        std::vector<AllocRequest> r(2 + rng() % 30);
        for (auto &q : r) {
            q.first = rng() % 20;
            q.last = q.first + rng() % 8;
            q.size = 1 + rng() % 500;
            q.align = 1u << (rng() % 7);
        }
        const auto out = tessera::allocate_best_fit(r);
        ASSERT_TRUE(tessera::placement_is_valid(r, out.offsets)) << "instance " << instance;
        EXPECT_GE(out.arena_bytes, out.lower_bound);
        for (size_t i = 0; i < r.size(); ++i) EXPECT_LE(out.offsets[i] + r[i].size, out.arena_bytes);
    }
}

TEST(StaticAllocator, PlacementCheckerCatchesOverlap)
{
    const std::vector<AllocRequest> r = {{10, 1, 0, 2}, {10, 1, 1, 3}};
    EXPECT_FALSE(tessera::placement_is_valid(r, {0, 5}));
    EXPECT_TRUE(tessera::placement_is_valid(r, {0, 10}));
    const std::vector<AllocRequest> disjoint = {{10, 1, 0, 1}, {10, 1, 2, 3}};
    EXPECT_TRUE(tessera::placement_is_valid(disjoint, {0, 0}));
}

} // namespace

namespace {

// An exact solver written separately for the test: tries every order of placing
// the buffers, each at the lowest offset where it fits (every packing can be
// pushed down into one of these), and keeps the smallest arena. Tiny inputs only.
uint64_t brute_force_optimum(const std::vector<AllocRequest> &r)
{
    std::vector<size_t> order(r.size());
    for (size_t i = 0; i < r.size(); ++i) order[i] = i;
    uint64_t best = UINT64_MAX;
    do {
        std::vector<uint64_t> at(r.size(), 0);
        uint64_t top = 0;
        for (size_t k = 0; k < order.size(); ++k) {
            const size_t i = order[k];
            uint64_t o = 0;
            for (bool moved = true; moved;) { // lowest offset clear of every placed, time-overlapping buffer
                moved = false;
                o = (o + r[i].align - 1) / r[i].align * r[i].align;
                for (size_t m = 0; m < k; ++m) {
                    const size_t j = order[m];
                    if (r[i].first <= r[j].last && r[j].first <= r[i].last && o < at[j] + r[j].size &&
                        at[j] < o + r[i].size) {
                        o = at[j] + r[j].size;
                        moved = true;
                    }
                }
            }
            at[i] = o;
            top = std::max(top, o + r[i].size);
            if (top >= best) break;
        }
        best = std::min(best, top);
    } while (std::next_permutation(order.begin(), order.end()));
    return best;
}

TEST(StaticAllocator, MeetsTheBoundWheneverItIsReachableOnAdversarialInstances)
{
    std::mt19937 rng(11);
    int greedy_missed = 0, heuristics_missed = 0, checked = 0;
    for (int instance = 0; instance < 600; ++instance) {
        std::vector<AllocRequest> r(3 + rng() % 5); // 3..7 buffers
        for (auto &q : r) {
            q.first = rng() % 6;
            q.last = q.first + rng() % 4;
            q.size = 1 + rng() % 9;
            q.align = 1;
        }
        const uint64_t bound = tessera::live_bytes_lower_bound(r);
        const uint64_t optimum = brute_force_optimum(r);
        const auto greedy = tessera::allocate_best_fit(r);
        const auto out = tessera::allocate(r, 1000);
        ASSERT_TRUE(tessera::placement_is_valid(r, out.offsets)) << "instance " << instance;
        EXPECT_GE(out.arena_bytes, optimum);
        if (optimum == bound) {
            ++checked;
            EXPECT_EQ(out.arena_bytes, bound) << "instance " << instance << ": the bound is reachable";
            EXPECT_TRUE(out.meets_bound);
            greedy_missed += greedy.arena_bytes > bound;
            heuristics_missed += tessera::allocate(r, 0).arena_bytes > bound; // every best-fit order, no search
        }
    }
    EXPECT_GT(checked, 300);
    EXPECT_GT(greedy_missed, 0) << "no instance where greedy best-fit is not optimal: the test proves nothing";
    EXPECT_GT(heuristics_missed, 0) << "no instance needed the search: the test proves nothing about it";
    RecordProperty("largest_first_missed", std::to_string(greedy_missed));
    RecordProperty("all_best_fit_orders_missed", std::to_string(heuristics_missed));
}

TEST(StaticAllocator, KnownInstanceWhereLargestFirstBestFitIsNotOptimal)
{
    // Worked by hand. A: 4 bytes live at moment 3; B: 3 bytes at 1-3; C: 2 bytes at
    // 0-1; D: 5 bytes at 0. Live bytes: moment 0 C+D = 7, moment 1 B+C = 5,
    // moments 2-3 A+B = 7: the bound is 7.
    // Largest first: D at 0, A at 0 (never meets D), B above A at 4, C above D and
    // B at 7 -> 9 bytes. Optimal: B at 0, A at 3, D at 0, C at 5 -> 7 bytes.
    const std::vector<AllocRequest> r = {{4, 1, 3, 3}, {3, 1, 1, 3}, {2, 1, 0, 1}, {5, 1, 0, 0}};
    EXPECT_EQ(tessera::live_bytes_lower_bound(r), 7u);
    EXPECT_EQ(tessera::allocate_best_fit(r).arena_bytes, 9u);
    const auto out = tessera::allocate(r, 1000);
    EXPECT_TRUE(tessera::placement_is_valid(r, out.offsets));
    EXPECT_EQ(out.arena_bytes, 7u);
}

} // namespace
