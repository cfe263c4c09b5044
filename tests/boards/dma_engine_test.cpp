// The host board's DMA engine on its own: copies as described (contiguous, strided,
// short rows), the bounded queue, completion in order, idle cores helping, and
// handles that stay right across the wrap of their 32 bits.
#include <gtest/gtest.h>

#include <chrono>
#include <numeric>
#include <thread>
#include <vector>

#include "dma_engine.hpp"

namespace {

using tessera::DmaEngine;
using tessera::Timeline;

struct Engine {
    Timeline timeline{std::chrono::steady_clock::now()};
    DmaEngine dma;
    explicit Engine(uint32_t depth, uint64_t first = 0) : dma(depth, timeline, first) {}
};

std::vector<uint8_t> counting(size_t n)
{
    std::vector<uint8_t> v(n);
    std::iota(v.begin(), v.end(), uint8_t(1));
    return v;
}

TEST(DmaEngine, CopiesContiguousStridedAndShortRows)
{
    Engine e(4);
    const auto src = counting(512);
    std::vector<uint8_t> a(64), b(3 * 16), c(4 * 32);
    tsr_dma_handle h[3];
    ASSERT_EQ(e.dma.submit(a.data(), 64, src.data(), 64, 64, 1, &h[0]), TSR_HAL_OK);
    ASSERT_EQ(e.dma.submit(b.data(), 16, src.data() + 5, 100, 16, 3, &h[1]), TSR_HAL_OK); // 16-byte rows
    ASSERT_EQ(e.dma.submit(c.data(), 32, src.data() + 1, 64, 20, 4, &h[2]), TSR_HAL_OK);  // 20-byte rows
    EXPECT_EQ(a[0], 0) << "nothing copies at submit";
    ASSERT_EQ(e.dma.wait(h[2]), TSR_HAL_OK); // and everything before it
    EXPECT_TRUE(std::equal(a.begin(), a.end(), src.begin()));
    for (int r = 0; r < 3; ++r) EXPECT_TRUE(std::equal(b.begin() + r * 16, b.begin() + r * 16 + 16, src.begin() + 5 + r * 100));
    for (int r = 0; r < 4; ++r) {
        EXPECT_TRUE(std::equal(c.begin() + r * 32, c.begin() + r * 32 + 20, src.begin() + 1 + r * 64));
        EXPECT_EQ(c[size_t(r * 32 + 20)], 0) << "the gap between rows is left alone";
    }
}

TEST(DmaEngine, BoundedQueueAndBadHandles)
{
    Engine e(2);
    const auto src = counting(16);
    std::vector<uint8_t> dst(16);
    tsr_dma_handle h1, h2, h3;
    ASSERT_EQ(e.dma.submit(dst.data(), 16, src.data(), 16, 16, 1, &h1), TSR_HAL_OK);
    ASSERT_EQ(e.dma.submit(dst.data(), 16, src.data(), 16, 16, 1, &h2), TSR_HAL_OK);
    EXPECT_EQ(e.dma.submit(dst.data(), 16, src.data(), 16, 16, 1, &h3), TSR_HAL_BUSY);
    EXPECT_EQ(e.dma.wait(h2 + 1), TSR_HAL_INVALID) << "not issued yet";
    EXPECT_EQ(e.dma.wait(0), TSR_HAL_INVALID);
    ASSERT_EQ(e.dma.wait(h1), TSR_HAL_OK);
    EXPECT_EQ(e.dma.submit(dst.data(), 16, src.data(), 16, 16, 1, &h3), TSR_HAL_OK) << "a slot freed";
    EXPECT_EQ(e.dma.wait(h3), TSR_HAL_OK);
    EXPECT_EQ(e.dma.wait(h1), TSR_HAL_OK) << "waiting again for a finished job";
    EXPECT_EQ(e.dma.submit(nullptr, 16, src.data(), 16, 16, 1, &h3), TSR_HAL_INVALID);
}

TEST(DmaEngine, HandlesStayRightAcrossTheWrapOfTheirBits)
{
    // Two jobs before the 32-bit wrap, then the job numbered 2^32 gets no handle of
    // its own (its handle would be 0), and every handle still names its job.
    Engine e(4, (uint64_t(1) << 32) - 3);
    const auto src = counting(64);
    std::vector<std::vector<uint8_t>> dst(8, std::vector<uint8_t>(8));
    std::vector<tsr_dma_handle> handles;
    for (int i = 0; i < 8; ++i) {
        tsr_dma_handle h = 0;
        ASSERT_EQ(e.dma.submit(dst[size_t(i)].data(), 8, src.data() + i * 8, 8, 8, 1, &h), TSR_HAL_OK) << i;
        EXPECT_NE(h, 0u) << i;
        handles.push_back(h);
        if (i % 2 == 1) { // wait for the older one of each pair: it alone must be done
            ASSERT_EQ(e.dma.wait(handles[size_t(i - 1)]), TSR_HAL_OK);
            EXPECT_TRUE(std::equal(dst[size_t(i - 1)].begin(), dst[size_t(i - 1)].end(), src.begin() + (i - 1) * 8));
            EXPECT_EQ(dst[size_t(i)][0], 0) << "job " << i << " ran before anyone waited for it";
        }
    }
    EXPECT_EQ(handles[1], 0xFFFFFFFFu);
    EXPECT_EQ(handles[2], 1u) << "0 is skipped";
    ASSERT_EQ(e.dma.wait(handles.back()), TSR_HAL_OK);
    for (int i = 0; i < 8; ++i) EXPECT_TRUE(std::equal(dst[size_t(i)].begin(), dst[size_t(i)].end(), src.begin() + i * 8)) << i;
}

TEST(DmaEngine, IdleCoresRunQueuedJobsAndTheWaiterSeesThemDone)
{
    Engine e(16);
    const auto src = counting(4096);
    std::vector<uint8_t> dst(4096);
    std::vector<tsr_dma_handle> h(16);
    for (int i = 0; i < 16; ++i)
        ASSERT_EQ(e.dma.submit(dst.data() + i * 256, 256, src.data() + i * 256, 256, 256, 1, &h[size_t(i)]), TSR_HAL_OK);
    std::thread helper([&] {
        while (e.dma.help()) {
        }
    });
    ASSERT_EQ(e.dma.wait(h.back()), TSR_HAL_OK);
    helper.join();
    EXPECT_EQ(dst, src);
    EXPECT_FALSE(e.dma.has_work());
}

} // namespace

namespace {

// The off-chip throttle: a copy out of memory outside the on-chip ranges takes at least
// its bytes at the throttle's rate (a lower bound: a slower machine only adds to it) and
// is named "off-chip" in the timeline; a copy between on-chip ranges is neither.
TEST(DmaEngine, TheOffChipThrottleHoldsCopiesFromOffChipMemoryToItsRate)
{
    Engine e(4);
    e.timeline.set(true);
    const auto far = counting(100000); // the "image"
    std::vector<uint8_t> l2(100000), l1(100000);
    e.dma.throttle_offchip(10e6, {{l2.data(), l2.size()}, {l1.data(), l1.size()}}); // 10 MB/s: 10 ms for 100 KB
    tsr_dma_handle h;
    ASSERT_EQ(e.dma.submit(l2.data(), 0, far.data(), 0, 100000, 1, &h), TSR_HAL_OK);
    ASSERT_EQ(e.dma.wait(h), TSR_HAL_OK);
    ASSERT_EQ(e.dma.submit(l1.data(), 0, l2.data(), 0, 100000, 1, &h), TSR_HAL_OK);
    ASSERT_EQ(e.dma.wait(h), TSR_HAL_OK);
    EXPECT_EQ(l1, far);
    const auto events = e.timeline.events();
    ASSERT_EQ(events.size(), 2u);
    EXPECT_STREQ(events[0].name, "off-chip");
    EXPECT_GE(events[0].end_ns - events[0].start_ns, 10000000u) << "100,000 bytes at 10 MB/s";
    EXPECT_STREQ(events[1].name, "copy");
}

} // namespace
