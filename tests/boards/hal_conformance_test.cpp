// The conformance suite fails the boards it should: the host board with one
// operation broken at a time (a barrier that does not wait, a 2D copy that ignores
// the destination stride, a DMA wait that accepts handle 0, an NPU that queues a job
// and never runs it, a read ahead served stale, a counter that runs backwards). The whole host board passes
// (ctest hal_conformance_host).
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "tessera/hal_conformance.h"
#include "tessera/host_board.hpp"

namespace {

struct Broken {
    tsr_hal_ops ops;
    tsr_hal_board board;
    const tsr_hal_board *real;
};
Broken *g_broken;

std::string run(void (*breakit)(tsr_hal_ops &), uint32_t *failed)
{
    auto host = tessera::HostBoard::create(tessera::load_board_desc("siracusa"), 8);
    Broken b;
    b.real = host->hal();
    b.ops = *b.real->ops;
    breakit(b.ops);
    b.board = *b.real;
    b.board.ops = &b.ops;
    g_broken = &b;
    std::string out;
    const tsr_conformance_result r = tsr_hal_conformance(
        &b.board, [](void *ctx, const char *line) { *static_cast<std::string *>(ctx) += std::string(line) + "\n"; }, &out);
    *failed = r.failed;
    return out;
}

TEST(HalConformance, FailsABarrierThatDoesNotWait)
{
    uint32_t failed = 0;
    const std::string out = run([](tsr_hal_ops &o) { o.cluster_barrier = [](void *) {}; }, &failed);
    EXPECT_GE(failed, 1u);
    EXPECT_NE(out.find("FAIL barrier"), std::string::npos) << out;
}

TEST(HalConformance, FailsA2DCopyThatIgnoresTheDestinationStride)
{
    uint32_t failed = 0;
    const std::string out = run(
        [](tsr_hal_ops &o) {
            o.dma_copy_2d = [](void *ctx, void *dst, uint32_t, const void *src, uint32_t ss, uint32_t row, uint32_t rows,
                               tsr_dma_handle *h) {
                return g_broken->real->ops->dma_copy_2d(ctx, dst, row, src, ss, row, rows, h);
            };
        },
        &failed);
    EXPECT_EQ(failed, 2u) << out; // into L1, and into off-chip memory (siracusa's HyperRAM window)
    EXPECT_NE(out.find("FAIL DMA 2D"), std::string::npos) << out;
    EXPECT_NE(out.find("FAIL DMA off chip 2D"), std::string::npos) << out;
}

TEST(HalConformance, FailsADmaWaitThatAcceptsHandle0)
{
    uint32_t failed = 0;
    const std::string out = run(
        [](tsr_hal_ops &o) {
            o.dma_wait = [](void *ctx, tsr_dma_handle h) { return h ? g_broken->real->ops->dma_wait(ctx, h) : TSR_HAL_OK; };
        },
        &failed);
    EXPECT_EQ(failed, 1u) << out;
    EXPECT_NE(out.find("FAIL DMA wait on handle 0"), std::string::npos) << out;
}

TEST(HalConformance, FailsAnNpuThatNeverRunsTheJob)
{
    uint32_t failed = 0;
    const std::string out = run(
        [](tsr_hal_ops &o) {
            o.npu_submit = [](void *, const tsr_npu_job *, tsr_npu_handle *h) {
                *h = 1;
                return TSR_HAL_OK;
            };
            o.npu_wait = [](void *, tsr_npu_handle) { return TSR_HAL_OK; };
            o.npu_poll = [](void *, tsr_npu_handle, bool *done) {
                *done = true;
                return TSR_HAL_OK;
            };
        },
        &failed);
    EXPECT_GE(failed, 1u) << out;
    EXPECT_NE(out.find("FAIL NPU job"), std::string::npos) << out;
    EXPECT_NE(out.find("FAIL NPU misaligned"), std::string::npos) << out;
}

// Planes (optional): one that copies only the first plane fails; one that declines every
// copy (UNSUPPORTED) passes, the runtime then copying plane by plane.
TEST(HalConformance, FailsPlanesThatCopyOnlyTheFirst)
{
    uint32_t failed = 0;
    std::string out = run(
        [](tsr_hal_ops &o) {
            o.dma_copy_planes = [](void *ctx, const tsr_dma_planes *c, tsr_dma_handle *h) {
                if (!c || !c->dst || !c->src) return TSR_HAL_INVALID;
                return g_broken->real->ops->dma_copy_2d(ctx, c->dst, c->dst_stride, c->src, c->src_stride, c->row_bytes,
                                                        c->rows, h);
            };
        },
        &failed);
    EXPECT_EQ(failed, 1u) << out;
    EXPECT_NE(out.find("FAIL DMA planes"), std::string::npos) << out;
    out = run(
        [](tsr_hal_ops &o) {
            o.dma_copy_planes = [](void *, const tsr_dma_planes *c, tsr_dma_handle *) {
                return c && c->dst && c->src ? TSR_HAL_UNSUPPORTED : TSR_HAL_INVALID;
            };
        },
        &failed);
    EXPECT_EQ(failed, 0u) << out;
    EXPECT_NE(out.find("ok   DMA planes"), std::string::npos) << out;
}

// Reading ahead (optional): a board's window that the host board's DMA fills at the hint and
// serves the reads it holds passes; one serving the window before filling it, or writing the
// lent L2 after the loan ended, fails.
struct ReadAhead {
    const uint8_t *src = nullptr;
    uint8_t *buffer = nullptr;
    uint32_t bytes = 0;
    bool fill = true, late_write = false, ended = false;
};
ReadAhead g_ahead;

tsr_hal_status ahead_prefetch(void *ctx, const void *src, uint32_t bytes, void *buffer, uint32_t buffer_bytes)
{
    const tsr_hal_region &l2 = g_broken->real->regions[TSR_REGION_L2];
    if (buffer && ((uint8_t *)buffer < l2.base || (uint8_t *)buffer + buffer_bytes > l2.base + l2.size)) return TSR_HAL_INVALID;
    g_ahead.ended = buffer == nullptr;
    if (g_ahead.ended) return TSR_HAL_OK; // (the buffer kept: a late writer writes it)
    g_ahead.src = (const uint8_t *)src, g_ahead.buffer = (uint8_t *)buffer;
    g_ahead.bytes = bytes < buffer_bytes ? bytes : buffer_bytes;
    tsr_dma_handle h = 0;
    if (g_ahead.fill &&
        (g_broken->real->ops->dma_copy_1d(ctx, buffer, src, g_ahead.bytes, &h) != TSR_HAL_OK ||
         g_broken->real->ops->dma_wait(ctx, h) != TSR_HAL_OK))
        return TSR_HAL_FAULT;
    return TSR_HAL_OK;
}

tsr_hal_status ahead_copy_2d(void *ctx, void *dst, uint32_t ds, const void *src, uint32_t ss, uint32_t row, uint32_t rows,
                             tsr_dma_handle *h)
{
    const uint8_t *s = (const uint8_t *)src;
    if (g_ahead.ended && g_ahead.late_write && g_ahead.buffer) g_ahead.buffer[0] ^= 1u;
    if (!g_ahead.ended && g_ahead.buffer && rows && s >= g_ahead.src &&
        (uint64_t)(s - g_ahead.src) + (uint64_t)(rows - 1u) * ss + row <= g_ahead.bytes)
        s = g_ahead.buffer + (s - g_ahead.src); // served out of the window
    return g_broken->real->ops->dma_copy_2d(ctx, dst, ds, s, ss, row, rows, h);
}

void read_ahead(tsr_hal_ops &o)
{
    o.dma_prefetch = ahead_prefetch;
    o.dma_copy_2d = ahead_copy_2d;
    o.dma_copy_1d = [](void *ctx, void *dst, const void *src, uint32_t bytes, tsr_dma_handle *h) {
        return ahead_copy_2d(ctx, dst, bytes, src, bytes, bytes, 1u, h);
    };
}

TEST(HalConformance, FailsAReadAheadServedBeforeItIsReadOrWrittenAfterTheLoan)
{
    uint32_t failed = 0;
    g_ahead = ReadAhead{};
    std::string out = run(read_ahead, &failed);
    EXPECT_EQ(failed, 0u) << out;
    EXPECT_NE(out.find("ok   DMA off chip read ahead"), std::string::npos) << out;
    g_ahead = ReadAhead{};
    g_ahead.fill = false;
    out = run(read_ahead, &failed);
    EXPECT_EQ(failed, 1u) << out;
    EXPECT_NE(out.find("FAIL DMA off chip read ahead"), std::string::npos) << out;
    g_ahead = ReadAhead{};
    g_ahead.late_write = true;
    out = run(read_ahead, &failed);
    EXPECT_EQ(failed, 1u) << out;
    EXPECT_NE(out.find("FAIL DMA off chip read ahead"), std::string::npos) << out;
}

TEST(HalConformance, FailsACounterThatRunsBackwards)
{
    uint32_t failed = 0;
    const std::string out = run(
        [](tsr_hal_ops &o) {
            o.cycles = [](void *) {
                static std::atomic<uint64_t> t{1u << 30};
                return uint64_t(t -= 3);
            };
        },
        &failed);
    EXPECT_EQ(failed, 1u) << out;
    EXPECT_NE(out.find("FAIL cycle counter"), std::string::npos) << out;
}

} // namespace
