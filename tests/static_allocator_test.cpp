// The static allocator: never overlaps live buffers, honours alignment, and meets
// the live-bytes lower bound where it is reachable.
#include <gtest/gtest.h>

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
