// The conformance suite fails the boards it should: the host board with one
// operation broken at a time (a barrier that does not wait, a 2D copy that ignores
// the destination stride, a DMA wait that accepts handle 0, an NPU that queues a job
// and never runs it, a counter that runs backwards). The whole host board passes
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
