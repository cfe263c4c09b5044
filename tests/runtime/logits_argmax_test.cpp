// The greedy token (runtime/src/logits_argmax.h): on the cluster's cores, each a share, the
// logits moved in chunks by a board's DMA engine, or on the controller, it gives the index the
// definition gives (the first largest; a NaN never larger, a NaN first kept), whatever the
// chunks' size and the cores' count and order, where the engine or the fork fails, and where
// there is no room; and the L1 the runtime lends it is what no tensor holds between runs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "logits_argmax.h"
#include "tessera/kernels.h"

namespace {

// A DMA engine that moves nothing until the transfer is waited for: a chunk read before its
// wait reads what the buffer held before (the test fills it with larger values).
struct LazyEngine {
    struct Copy {
        void *dst;
        const void *src;
        uint32_t bytes;
        bool done;
    };
    std::vector<Copy> copies;
    uint32_t fail_at = 0; // the copy (1-based) the engine refuses: TSR_HAL_FAULT; 0: none
};
LazyEngine *g_engine = nullptr;

tsr_hal_status lazy_copy(void *, void *dst, uint32_t dst_stride, const void *src, uint32_t src_stride, uint32_t row_bytes,
                         uint32_t rows, tsr_dma_handle *out)
{
    if (rows != 1u || dst_stride != row_bytes || src_stride != row_bytes) return TSR_HAL_INVALID;
    if (g_engine->fail_at && g_engine->copies.size() + 1u == g_engine->fail_at) return TSR_HAL_FAULT;
    g_engine->copies.push_back({dst, src, row_bytes, false});
    *out = (tsr_dma_handle)g_engine->copies.size();
    return TSR_HAL_OK;
}

tsr_hal_status lazy_wait(void *, tsr_dma_handle h)
{
    if (h == 0u || h > g_engine->copies.size()) return TSR_HAL_INVALID;
    for (size_t i = 0; i < h; ++i) // in order
        if (!g_engine->copies[i].done) {
            std::memcpy(g_engine->copies[i].dst, g_engine->copies[i].src, g_engine->copies[i].bytes);
            g_engine->copies[i].done = true;
        }
    return TSR_HAL_OK;
}

// A cluster of `cores` cores that runs them one after the other, last first (a result that
// hangs on the order shows), or refuses every fork.
struct FakeCluster {
    uint32_t cores = 3;
    bool refuse = false;
    uint32_t forks = 0;
};
FakeCluster *g_cluster = nullptr;

tsr_hal_status fork_backwards(void *, tsr_cluster_task task, void *arg)
{
    if (g_cluster->refuse) return TSR_HAL_FAULT;
    ++g_cluster->forks;
    for (uint32_t c = g_cluster->cores; c-- > 0u;) task(arg, c, g_cluster->cores);
    return TSR_HAL_OK;
}

// The definition: the first index whose logit exceeds every one before it that was chosen.
uint32_t first_largest(const std::vector<float> &x)
{
    uint32_t best = 0;
    for (uint32_t i = 1; i < x.size(); ++i)
        if (x[i] > x[best]) best = i;
    return best;
}

struct LogitsArgmax : ::testing::Test {
    LazyEngine engine;
    FakeCluster cluster;
    tsr_hal_ops ops{};
    tsr_hal_board board{};
    std::vector<float> l1 = std::vector<float>(4096);
    void SetUp() override
    {
        g_engine = &engine;
        g_cluster = &cluster;
        ops.dma_copy_2d = lazy_copy;
        ops.dma_wait = lazy_wait;
        ops.cluster_fork = fork_backwards;
        board.ops = &ops;
        board.core_count = 8;
        board.sample_on_cluster_from = 1;
        board.regions[TSR_REGION_L1] = tsr_hal_region{"L1", reinterpret_cast<uint8_t *>(l1.data()), 16384u};
    }
    void TearDown() override { g_engine = nullptr, g_cluster = nullptr; }
    // The buffer: `floats` of L1 holding values larger than any logit (a chunk read early shows).
    uint32_t argmax(const std::vector<float> &x, uint32_t floats)
    {
        std::fill(l1.begin(), l1.end(), 1e30f);
        return tsr::argmax_logits(&board, x.data(), (uint32_t)x.size(), reinterpret_cast<uint8_t *>(l1.data()),
                                  floats * 4u);
    }
};

TEST_F(LogitsArgmax, AHandCheckedRowGivesItsFirstLargestInEveryChunking)
{
    std::vector<float> x(100, -1.0f);
    x[37] = 2.5f, x[38] = 2.5f, x[80] = 2.5f, x[99] = 2.0f; // 37: the first of three equal largest
    std::vector<float> long_row(1000, -1.0f);
    long_row[370] = long_row[380] = long_row[800] = 2.5f, long_row[999] = 2.0f;
    std::vector<float> negative(700, -9.0f); // every logit below zero, -inf among them
    negative[0] = -8.0f, negative[5] = -std::numeric_limits<float>::infinity(), negative[650] = -0.5f, negative[651] = -0.5f;
    for (uint32_t cores : {1u, 3u, 8u})
        for (uint32_t floats : {128u, 130u, 300u, 1024u, 4096u}) {
            cluster.cores = cores;
            engine.copies.clear();
            cluster.forks = 0;
            EXPECT_EQ(argmax(x, floats), 37u) << floats;
            EXPECT_EQ(argmax(long_row, floats), 370u) << floats;
            EXPECT_EQ(argmax(negative, floats), 650u) << floats;
            EXPECT_FALSE(engine.copies.empty()) << floats; // through the engine
            EXPECT_GE(cluster.forks, 2u) << floats;       // and the cores
        }
    board.sample_on_cluster_from = 0; // the controller, where they lie
    engine.copies.clear(), cluster.forks = 0;
    EXPECT_EQ(argmax(long_row, 4096u), 370u);
    EXPECT_TRUE(engine.copies.empty());
    EXPECT_EQ(cluster.forks, 0u);
}

TEST_F(LogitsArgmax, RandomRowsWithTiesNansAndZerosOfBothSignsEqualTheDefinition)
{
    std::mt19937 rng(7);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (int trial = 0; trial < 400; ++trial) {
        const uint32_t vocab = 1u + rng() % 1200u, floats = 100u + rng() % 600u;
        cluster.cores = 1u + rng() % 9u;
        std::vector<float> x(vocab);
        for (float &v : x) v = float((int)(rng() % 9u) - 6); // few values: many ties
        for (uint32_t k = rng() % 4u; k > 0u; --k) x[rng() % vocab] = nan;
        if (trial % 5 == 0) x[0] = nan;                                    // kept: nothing is larger than it
        if (trial % 7 == 0) x[rng() % vocab] = -0.0f, x[rng() % vocab] = 0.0f; // equal, not larger
        if (trial % 3 == 0) x[(floats / 2u) % vocab] = nan;               // a chunk's first
        engine.copies.clear();
        EXPECT_EQ(argmax(x, floats), first_largest(x)) << "trial " << trial << ", vocab " << vocab << ", buffer " << floats;
        EXPECT_EQ(tsr_argmax_f32(x.data(), vocab), first_largest(x)); // the kernel the sampler calls elsewhere
    }
}

TEST_F(LogitsArgmax, AnEngineOrAForkThatFailsStillGivesTheFirstLargest)
{
    std::vector<float> x(2000);
    for (uint32_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * float(i));
    for (uint32_t fail : {1u, 2u, 5u}) {
        engine.copies.clear();
        engine.fail_at = fail;
        EXPECT_EQ(argmax(x, 256u), first_largest(x)) << "copy " << fail << " refused";
    }
    engine.fail_at = 0;
    cluster.refuse = true;
    EXPECT_EQ(argmax(x, 256u), first_largest(x)) << "forks refused, through L1";
    EXPECT_EQ(argmax(x, 100u), first_largest(x)) << "forks refused, where they lie";
}

TEST_F(LogitsArgmax, WithoutRoomOrOverlappingTheLogitsItReadsThemWhereTheyLie)
{
    std::vector<float> x = {0.5f, 1.5f, -3.0f, 1.5f, 7.0f, 7.0f};
    EXPECT_EQ(argmax(x, 127u), 4u); // two chunks of fewer than 64 logits: no room
    EXPECT_TRUE(engine.copies.empty());
    EXPECT_GE(cluster.forks, 1u); // the cores, where they lie
    std::copy(x.begin(), x.end(), l1.begin() + 8); // the logits inside the buffer (and in L1)
    EXPECT_EQ(tsr::argmax_logits(&board, l1.data() + 8, 6u, reinterpret_cast<uint8_t *>(l1.data()), 16384u), 4u);
    EXPECT_TRUE(engine.copies.empty());
    EXPECT_EQ(tsr::argmax_logits(&board, x.data(), 1u, nullptr, 0u), 0u);
    board.sample_on_cluster_from = 7; // a vocabulary below the board's: the controller
    cluster.forks = 0;
    EXPECT_EQ(argmax(x, 4096u), 4u);
    EXPECT_EQ(cluster.forks, 0u);
}

TEST(BetweenRuns, IsTheL1AboveEveryTensorThatOutlivesARun)
{
    std::vector<uint8_t> memory(8192);
    tsr_hal_ops ops{};
    ops.dma_copy_2d = lazy_copy;
    ops.dma_wait = lazy_wait;
    tsr_hal_board board{};
    board.ops = &ops;
    board.regions[TSR_REGION_L1] = tsr_hal_region{"L1", memory.data(), 8192u};
    auto tensor = [](uint8_t region, uint8_t kind, uint32_t offset, uint32_t size) {
        tsr_tensor t{};
        t.region = region, t.kind = kind, t.offset = offset, t.size = size;
        return t;
    };
    std::vector<tsr_tensor> tensors = {
        tensor(TSR_REGION_L1, TSR_TENSOR_WEIGHT, 0, 1001),       // held: ends at 1001
        tensor(TSR_REGION_L1, TSR_TENSOR_ACTIVATION, 2000, 4000), // dies with its run
        tensor(TSR_REGION_L1, TSR_TENSOR_STAGING, 6000, 100),
        tensor(TSR_REGION_L1, TSR_TENSOR_SCRATCH, 1100, 900),   // attention scores: die
        tensor(TSR_REGION_L2, TSR_TENSOR_KV_CACHE, 5000, 3000), // another region
        tensor(TSR_REGION_L2, TSR_TENSOR_SCRATCH, 0, 64),       // the sampler's
    };
    tsr_image_header h{};
    h.tensor_count = (uint32_t)tensors.size();
    h.sampler_scratch_tensor = 5;
    tsr::ImageView img{};
    img.header = &h;
    img.tensors = tensors.data();
    tsr::resolve_between_runs(img, &board);
    EXPECT_EQ(img.between_runs, memory.data() + 1004); // 1001, word-aligned
    EXPECT_EQ(img.between_runs_bytes, 8192u - 1004u);
    tensors[3].kind = TSR_TENSOR_IO; // logits in L1 outlive the run
    tsr::resolve_between_runs(img, &board);
    EXPECT_EQ(img.between_runs, memory.data() + 2000);
    tensors[5] = tensor(TSR_REGION_L1, TSR_TENSOR_SCRATCH, 8000, 192); // the sampler's scratch in L1: to the end
    tsr::resolve_between_runs(img, &board);
    EXPECT_EQ(img.between_runs_bytes, 0u);
    tensors[5] = tensor(TSR_REGION_L2, TSR_TENSOR_SCRATCH, 0, 64);
    h.flags = TSR_IMAGE_OPERANDS_IN_PLACE; // the cores are the board's DMA: none
    tsr::resolve_between_runs(img, &board);
    EXPECT_EQ(img.between_runs_bytes, 0u);
    h.flags = 0;
    ops.dma_copy_2d = nullptr; // no engine: none
    tsr::resolve_between_runs(img, &board);
    EXPECT_EQ(img.between_runs_bytes, 0u);
}

} // namespace
