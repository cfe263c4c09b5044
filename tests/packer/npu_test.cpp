// The NPU: its weight layout (a hand-worked example and a round trip through the
// bit-serial job against the cluster's int8 reference kernel), the host board's job
// queue and the status of each job it refuses, and whole models in the Deeploy
// paper's four scenarios.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "support/golden.h"
#include "support/packed_image.h"
#include "support/synthetic_model.h"
#include "tessera/errors.h"
#include "tessera/host_board.hpp"
#include "tessera/kernels_i8.h"
#include "tessera/kernels_quantlib.h"
#include "tessera/neureka_requant.h"
#include "tessera/npu.h"
#include "tessera/pack/cost_model.h"
#include "tessera/pack/engines.h"

namespace {

using tessera::HostBoard;

// Two weights, 1 and -1, in 4 bits, stored as U = W + 128: 129 (1000 0001) and 127
// (0111 1111); the 30 channels past k and the 31 past n hold U = 128 (1000 0000). Word 0
// of the block holds channels 0..3, bit 4 b + t the bit b of channel t's U: plane 0 for
// t 0, 1 (bits 0, 1), planes 1..6 for t 1 (bits 5, 9, 13, 17, 21, 25), plane 7 for t 0,
// 2, 3 (bits 28, 30, 31): 0xD2222223. Every other word, channels of U = 128 alone:
// plane 7 of four channels, 0xF0000000. 32 channels of one 32-byte block.
TEST(NpuLayout, FourBitWeightsByHand)
{
    const int8_t w[2] = {1, -1};
    const std::vector<uint8_t> out = tessera::npu_weight_layout(w, 1, 2, 4);
    ASSERT_EQ(out.size(), 32u * 32u);
    const uint8_t first[4] = {0x23, 0x22, 0x22, 0xD2};
    EXPECT_EQ(std::memcmp(out.data(), first, 4), 0);
    for (size_t i = 4; i < out.size(); ++i) ASSERT_EQ(out[i], i % 4 == 3 ? 0xF0 : 0x00) << "byte " << i;
}

TEST(NpuLayout, RefusesValuesWiderThanTheBits)
{
    const int8_t w[1] = {8};
    EXPECT_THROW(tessera::npu_weight_layout(w, 1, 1, 4), std::range_error);
    const int8_t ok[1] = {-8};
    EXPECT_NO_THROW(tessera::npu_weight_layout(ok, 1, 1, 4));
}

struct GemmCase {
    uint32_t m, n, k, bits;
};

class NpuJob : public ::testing::TestWithParam<GemmCase> {};

// A job of kind `kind` on case c's shape, its weights w in the packer's layout (words: the
// layout's storage), x in, y out; the caller sets the requantization's tables.
tsr_npu_job layout_job(uint32_t kind, const GemmCase &c, const std::vector<int8_t> &w, std::vector<uint32_t> &words,
                       const std::vector<int8_t> &x, std::vector<int8_t> &y)
{
    const std::vector<uint8_t> layout = tessera::npu_weight_layout(w.data(), c.n, c.k, c.bits);
    words.assign(layout.size() / 4, 0u);
    std::memcpy(words.data(), layout.data(), layout.size());
    tsr_npu_job job{};
    job.kind = kind;
    job.weight_bits = c.bits;
    job.m = c.m, job.n = c.n, job.k = c.k, job.ldx = c.k, job.ldy = c.n;
    job.weights = words.data();
    job.input = x.data();
    job.output = y.data();
    return job;
}

// A job on the packer's layout equals tsr_matmul_i8_ref on the same values, bit for bit.
TEST_P(NpuJob, BitExactWithTheClusterReference)
{
    const GemmCase c = GetParam();
    std::mt19937 rng(c.m * 1000003u + c.n * 1009u + c.k * 7u + c.bits);
    const int lo = -(1 << (c.bits - 1)), hi = (1 << (c.bits - 1)) - 1;
    std::uniform_int_distribution<int> wv(lo, hi), xv(-128, 127), sv(-20, -6);
    std::uniform_int_distribution<int32_t> mv(1 << 30, INT32_MAX);
    std::vector<int8_t> x(size_t(c.m) * c.k), w(size_t(c.n) * c.k), shift(c.n), y_ref(size_t(c.m) * c.n),
        y_npu(size_t(c.m) * c.n);
    std::vector<int32_t> mult(c.n);
    for (auto &v : x) v = int8_t(xv(rng));
    for (auto &v : w) v = int8_t(wv(rng));
    for (uint32_t i = 0; i < c.n; ++i) mult[i] = mv(rng), shift[i] = int8_t(sv(rng));
    w[0] = int8_t(lo); // the most negative weight, the sign plane alone
    tsr_matmul_i8_args a{};
    a.x = x.data();
    a.w = w.data();
    a.multiplier = mult.data();
    a.shift = shift.data();
    a.y = y_ref.data();
    a.y_min = -128;
    a.y_max = 127;
    a.rows = c.m;
    a.k = c.k;
    a.n = c.n;
    a.ldy = c.n;
    ASSERT_EQ(tsr_matmul_i8_ref(&a, 0, 1), TSR_KERNEL_OK);
    std::vector<uint32_t> words;
    tsr_npu_job job = layout_job(TSR_NPU_GEMM_I8, c, w, words, x, y_npu);
    job.multiplier = mult.data();
    job.shift = shift.data();
    tsr_npu_run_job(&job);
    EXPECT_EQ(y_npu, y_ref);
}

// The stage's form (TSR_NPU_GEMM_I8_RQS_STAGE: the rounding in the addend) on the
// packer's layout equals QuantLib's RequantShift as the cluster's kernel computes it.
TEST_P(NpuJob, StageFormBitExactWithTheClusterRequantShift)
{
    const GemmCase c = GetParam();
    std::mt19937 rng(c.m * 7919u + c.n * 31u + c.k + c.bits);
    const int lo = -(1 << (c.bits - 1)), hi = (1 << (c.bits - 1)) - 1;
    std::uniform_int_distribution<int> wv(lo, hi), xv(-128, 127), mv(1, 2000), av(-100000, 100000);
    const uint32_t shift = 12u + rng() % 8u;
    std::vector<int8_t> x(size_t(c.m) * c.k), w(size_t(c.n) * c.k), y_ref(size_t(c.m) * c.n), y_npu(size_t(c.m) * c.n);
    std::vector<int32_t> table(2 * size_t(c.n)), stage(2 * size_t(c.n));
    for (auto &v : x) v = int8_t(xv(rng));
    for (auto &v : w) v = int8_t(wv(rng));
    for (uint32_t i = 0; i < c.n; ++i) table[i] = mv(rng), table[c.n + i] = av(rng);
    stage = table;
    for (uint32_t i = 0; i < c.n; ++i) stage[c.n + i] += 1 << (shift - 1); // the packer's rounding
    tsr_matmul_i8_rqs_args a{};
    a.x = x.data();
    a.w = w.data();
    a.mul = table.data();
    a.add = table.data() + c.n;
    a.range.shift = int32_t(shift);
    a.range.lo = -128;
    a.range.hi = 127;
    a.y = y_ref.data();
    a.rows = c.m;
    a.k = c.k;
    a.n = c.n;
    a.ldy = c.n;
    ASSERT_EQ(tsr_matmul_i8_rqs_ref(&a, 0, 1), TSR_KERNEL_OK);
    std::vector<uint32_t> words;
    tsr_npu_job job = layout_job(TSR_NPU_GEMM_I8_RQS_STAGE, c, w, words, x, y_npu);
    job.multiplier = stage.data();
    job.addend = stage.data() + c.n;
    job.rqs_shift = shift;
    tsr_npu_run_job(&job);
    EXPECT_EQ(y_npu, y_ref);
}

INSTANTIATE_TEST_SUITE_P(Shapes, NpuJob,
                         ::testing::Values(GemmCase{1, 1, 1, 8}, GemmCase{1, 64, 64, 8}, GemmCase{3, 33, 31, 8},
                                           GemmCase{2, 64, 172, 8}, GemmCase{16, 172, 64, 8}, GemmCase{1, 64, 64, 4},
                                           GemmCase{4, 33, 97, 4}, GemmCase{1, 256, 64, 4}));

// N-EUREKA's normalization stage (tessera/neureka_requant.h) against the job's definition
// (tsr_npu_requantize, tsr_npu_requant_shift): hand-worked channels, then random ones, each
// it takes checked at the bound's ends and at random accumulators inside it.
tsr_npu_job requant_job(uint32_t kind, uint32_t k, const int32_t *mult, const int8_t *shift, const int32_t *addend,
                        uint32_t rqs_shift)
{
    tsr_npu_job j{};
    j.kind = kind, j.weight_bits = 8, j.m = 1, j.n = 1, j.k = k;
    j.multiplier = mult, j.shift = shift, j.addend = addend, j.rqs_shift = rqs_shift;
    return j;
}

TEST(NeurekaRequant, HandWorkedChannels)
{
    tsr_neureka_requant q{};
    // requantize(acc, 2^30, 1) = ((acc 2^30 >> 29) + 1) >> 1 = acc: scale 1, no bias, no shift.
    int32_t m = 1 << 30;
    int8_t s = 1;
    tsr_npu_job j = requant_job(TSR_NPU_GEMM_I8, 40, &m, &s, nullptr, 0);
    ASSERT_TRUE(tsr_neureka_requant_of(&j, 0, tsr_neureka_acc_bound(&j), &q));
    EXPECT_EQ(q.scale, 1u);
    EXPECT_EQ(q.bias, 0);
    EXPECT_EQ(q.shift, 0u);
    // A Q31 factor with no zero bits at the bottom: 64 x 2^14 x (2^31 - 1) wraps 32 bits.
    m = INT32_MAX, s = 0;
    j = requant_job(TSR_NPU_GEMM_I8, 64, &m, &s, nullptr, 0);
    EXPECT_FALSE(tsr_neureka_requant_of(&j, 0, tsr_neureka_acc_bound(&j), &q));
    // RequantShift 3, -100, 10: bias -100 + 2^9 = 412.
    int32_t mul = 3, add = -100;
    j = requant_job(TSR_NPU_GEMM_I8_RQS, 64, &mul, nullptr, &add, 10);
    ASSERT_TRUE(tsr_neureka_requant_of(&j, 0, tsr_neureka_acc_bound(&j), &q));
    EXPECT_EQ(q.scale, 3u);
    EXPECT_EQ(q.bias, 412);
    EXPECT_EQ(q.shift, 10u);
    // The stage's scale is unsigned: a negative multiplier is the cluster's.
    mul = -3;
    EXPECT_FALSE(tsr_neureka_requant_of(&j, 0, tsr_neureka_acc_bound(&j), &q));
    // A shift past 31 comes down by the multiplier's zero bits: 5 x 2^20 at shift 40 is 5 at
    // shift 20, the rounding 2^39 a bias of 2^19.
    mul = 5 << 20, add = 0;
    j = requant_job(TSR_NPU_GEMM_I8_RQS, 64, &mul, nullptr, &add, 40);
    ASSERT_TRUE(tsr_neureka_requant_of(&j, 0, tsr_neureka_acc_bound(&j), &q));
    EXPECT_EQ(q.scale, 5u);
    EXPECT_EQ(q.bias, 1 << 19);
    EXPECT_EQ(q.shift, 20u);
}

TEST(NeurekaRequant, WhatTheStageTakesItGivesExactly)
{
    std::mt19937 rng(44);
    uint32_t taken[3] = {0, 0, 0}, refused[3] = {0, 0, 0};
    for (int i = 0; i < 6000; ++i) {
        const int form = i % 3; // Q31, RequantShift, the stage's RequantShift
        const bool rqs = form != 0;
        const uint32_t k = 1u + rng() % 512u;
        int32_t mult, addend = 0;
        int8_t shift = 0;
        uint32_t rqs_shift = 0;
        if (rqs) {
            mult = int32_t(rng() >> (rng() % 32u)) - (rng() % 8u == 0u ? 64 : 0);
            addend = int32_t(rng()) >> (rng() % 32u);
            rqs_shift = rng() % 63u;
        } else {
            const uint32_t low_zeros = rng() % 31u; // Q31 factors with 0..30 zero bits at the bottom
            mult = rng() % 4u == 0u ? 0 : int32_t((1u << 30) | (rng() & 0x3FFFFFFFu & ~((1u << low_zeros) - 1u)));
            shift = int8_t(int(rng() % 62u) - 31);
        }
        if (form == 2) rqs_shift %= 32u;
        const uint32_t kind = form == 2 ? TSR_NPU_GEMM_I8_RQS_STAGE : form == 1 ? TSR_NPU_GEMM_I8_RQS : TSR_NPU_GEMM_I8;
        tsr_npu_job j = requant_job(kind, k, &mult, &shift, &addend, rqs_shift);
        const int64_t bound = int64_t(tsr_neureka_acc_bound(&j));
        tsr_neureka_requant q{};
        if (!tsr_neureka_requant_of(&j, 0, uint64_t(bound), &q)) {
            ++refused[form];
            continue;
        }
        ++taken[form];
        std::uniform_int_distribution<int64_t> acc(-bound, bound);
        for (int t = 0; t < 64; ++t) {
            const int32_t a = int32_t(t == 0 ? -bound : t == 1 ? bound : t == 2 ? 0 : acc(rng));
            const int8_t want = form == 2 ? tsr_npu_requant_stage(a, mult, addend, rqs_shift)
                                : form == 1 ? tsr_npu_requant_shift(a, mult, addend, rqs_shift)
                                            : tsr_npu_requantize(a, mult, shift);
            ASSERT_EQ(tsr_neureka_requantize(a, &q), want)
                << (rqs ? "RQS" : "Q31") << " mult " << mult << " shift " << int(rqs ? int(rqs_shift) : int(shift))
                << " addend " << addend << " k " << k << " acc " << a;
        }
    }
    // Both outcomes happen for every form: the test is not vacuous.
    for (int form = 0; form < 3; ++form) {
        EXPECT_GT(taken[form], 100u) << form;
        EXPECT_GT(refused[form], 100u) << form;
    }
}

// The host board's queue: in L1 and NMS of a siracusa board, 2 deep.
class HostNpu : public ::testing::Test {
protected:
    void SetUp() override
    {
        board_ = HostBoard::create(tessera::load_board_desc("siracusa"), 1);
        hal_ = board_->hal();
        ASSERT_TRUE(hal_->has_npu);
        uint8_t *l1 = hal_->regions[TSR_REGION_L1].base, *nms = hal_->regions[TSR_REGION_NMS].base;
        const int8_t w[64] = {1, 2, 3}; // channel 0 only
        const std::vector<uint8_t> layout = tessera::npu_weight_layout(w, 1, 64, 8);
        std::memcpy(nms, layout.data(), layout.size());
        for (int i = 0; i < 64; ++i) l1[i] = 1; // x = all ones: y = 1 + 2 + 3 = 6 (factor 1)
        job_.kind = TSR_NPU_GEMM_I8;
        job_.flags = TSR_NPU_WEIGHTS_NMS;
        job_.weight_bits = 8;
        job_.m = 1, job_.n = 1, job_.k = 64, job_.ldx = 64, job_.ldy = 1;
        job_.weights = reinterpret_cast<const uint32_t *>(nms);
        job_.input = reinterpret_cast<const int8_t *>(l1);
        job_.output = reinterpret_cast<int8_t *>(l1 + 128);
        job_.multiplier = &multiplier_;
        job_.shift = &shift_;
    }
    tsr_hal_status submit(const tsr_npu_job &j, tsr_npu_handle *h) { return hal_->ops->npu_submit(hal_->ctx, &j, h); }
    int8_t output() const { return int8_t(hal_->regions[TSR_REGION_L1].base[128]); }

    std::unique_ptr<HostBoard> board_;
    const tsr_hal_board *hal_ = nullptr;
    tsr_npu_job job_{};
    int32_t multiplier_ = 1 << 30; // 0.5 x 2^1 = 1
    int8_t shift_ = 1;
};

TEST_F(HostNpu, RunsAJobFromNmsAsynchronously)
{
    tsr_npu_handle h = 0;
    ASSERT_EQ(submit(job_, &h), TSR_HAL_OK);
    EXPECT_NE(h, 0u);
    ASSERT_EQ(hal_->ops->npu_wait(hal_->ctx, h), TSR_HAL_OK);
    bool done = false;
    ASSERT_EQ(hal_->ops->npu_poll(hal_->ctx, h, &done), TSR_HAL_OK);
    EXPECT_TRUE(done);
    EXPECT_EQ(output(), 6);
}

TEST_F(HostNpu, AFullQueueSaysBusyAndCompletesInOrder)
{
    board_->pause_npu(true);
    tsr_npu_handle a = 0, b = 0, c = 0;
    ASSERT_EQ(submit(job_, &a), TSR_HAL_OK);
    ASSERT_EQ(submit(job_, &b), TSR_HAL_OK);
    EXPECT_EQ(submit(job_, &c), TSR_HAL_BUSY); // depth 2 (siracusa's board.json)
    bool done = true;
    ASSERT_EQ(hal_->ops->npu_poll(hal_->ctx, a, &done), TSR_HAL_OK);
    EXPECT_FALSE(done);
    board_->pause_npu(false);
    ASSERT_EQ(hal_->ops->npu_wait(hal_->ctx, b), TSR_HAL_OK);
    ASSERT_EQ(hal_->ops->npu_poll(hal_->ctx, a, &done), TSR_HAL_OK);
    EXPECT_TRUE(done); // waiting for the newer job waited for the older
    EXPECT_EQ(submit(job_, &c), TSR_HAL_OK);
    EXPECT_EQ(hal_->ops->npu_wait(hal_->ctx, c), TSR_HAL_OK);
    EXPECT_EQ(hal_->ops->npu_wait(hal_->ctx, 0), TSR_HAL_INVALID);
}

TEST_F(HostNpu, MisalignedDescriptorOrWeightsSayMisaligned)
{
    tsr_npu_handle h = 0;
    tsr_npu_job j = job_;
    j.weights = reinterpret_cast<const uint32_t *>(reinterpret_cast<const uint8_t *>(job_.weights) + 2);
    EXPECT_EQ(submit(j, &h), TSR_HAL_MISALIGNED);
    alignas(8) uint8_t bytes[sizeof(tsr_npu_job) + 8];
    std::memcpy(bytes + 1, &job_, sizeof job_);
    EXPECT_EQ(hal_->ops->npu_submit(hal_->ctx, reinterpret_cast<const tsr_npu_job *>(bytes + 1), &h), TSR_HAL_MISALIGNED);
    EXPECT_EQ(output(), 0); // nothing ran
}

TEST_F(HostNpu, WeightsOutsideNmsSayOutOfRegion)
{
    tsr_npu_handle h = 0;
    tsr_npu_job j = job_;
    j.weights = reinterpret_cast<const uint32_t *>(hal_->regions[TSR_REGION_L2].base); // flagged NMS, lies in L2
    EXPECT_EQ(submit(j, &h), TSR_HAL_OUT_OF_REGION);
    j = job_;
    j.weights = reinterpret_cast<const uint32_t *>(hal_->regions[TSR_REGION_NMS].base +
                                                   hal_->regions[TSR_REGION_NMS].size - 32); // its 64 bytes run past the end
    EXPECT_EQ(submit(j, &h), TSR_HAL_OUT_OF_REGION);
    j = job_;
    j.input = reinterpret_cast<const int8_t *>(hal_->regions[TSR_REGION_L2].base); // input outside L1
    EXPECT_EQ(submit(j, &h), TSR_HAL_OUT_OF_REGION);
    j = job_;
    j.weight_bits = 3;
    EXPECT_EQ(submit(j, &h), TSR_HAL_INVALID);
    EXPECT_EQ(output(), 0);
}

TEST(HostNpuAbsent, BoardWithoutNpuSaysUnsupported)
{
    auto board = HostBoard::create(tessera::load_board_desc("gap9"), 1);
    const tsr_hal_board *hal = board->hal();
    tsr_npu_job job{};
    tsr_npu_handle h;
    EXPECT_EQ(hal->ops->npu_submit(hal->ctx, &job, &h), TSR_HAL_UNSUPPORTED);
}

// ---- whole models ----------------------------------------------------------------------

class NpuScenarios : public ::testing::Test {
protected:
    void SetUp() override
    {
        shared_ = tessera::test::shared_dir();
        if (shared_.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    }
    tessera::PackOptions options(const std::string &board, const std::string &scenario, const std::string &file)
    {
        return tessera::test::stories260k_int8(shared_, board, scenario, tessera::test::temp_path(file));
    }
    std::string shared_;
};

// stories260K int8: the same 200 greedy ids in every scenario on siracusa, and on gap9
// (no NPU); the NPU scenarios run their linear layers as NPU jobs.
TEST_F(NpuScenarios, SameIdsInEveryScenarioAndOnGap9)
{
    auto reference = tessera::test::open_model(options("gap9", "auto", "npu_gap9.tess"));
    ASSERT_EQ(reference->status, TESSERA_OK) << tessera_last_error(&reference->session);
    const std::vector<int32_t> expected = tessera::test::generate_greedy(*reference, {1}, 200);
    ASSERT_GE(expected.size(), 199u);
    for (const char *scenario : {"single-core", "cluster", "npu", "npu-nms"}) {
        const uint32_t threads = std::string(scenario) == "single-core" ? 1u : 0u; // planned for one core
        auto m = tessera::test::open_model(options("siracusa", scenario, std::string("npu_") + scenario + ".tess"), threads);
        ASSERT_EQ(m->status, TESSERA_OK) << scenario << ": " << tessera_last_error(&m->session);
        EXPECT_EQ(tessera::test::generate_greedy(*m, {1}, 200), expected) << scenario;
        tessera_stats st;
        ASSERT_EQ(tessera_get_stats(&m->session, &st), TESSERA_OK);
        const bool npu = std::string(scenario).rfind("npu", 0) == 0;
        EXPECT_EQ(st.npu_jobs > 0, npu) << scenario << ": " << st.npu_jobs << " NPU jobs";
        EXPECT_EQ(st.region_bytes[TSR_REGION_NMS] > 0, std::string(scenario) == "npu-nms") << scenario;
        tessera_close(&m->session);
    }
    tessera_close(&reference->session);
}

// The timeline of an NPU run: valid JSON, a lane per core, one for the DMA engine and
// one for the NPU, slices named by operator.
TEST_F(NpuScenarios, TimelineHasClusterDmaAndNpuLanesWithOpNames)
{
    auto m = tessera::test::open_model(options("siracusa", "npu-nms", "npu_timeline.tess"), 2);
    ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
    m->board->record_timeline(true);
    tessera::test::generate_greedy(*m, {1, 403, 407}, 8);
    tessera_close(&m->session);
    const nlohmann::json trace = nlohmann::json::parse(m->board->timeline_trace_json());
    std::map<int, std::string> lanes;
    std::map<std::string, std::set<std::string>> slices; // lane -> slice names
    for (const auto &e : trace["traceEvents"])
        if (e["ph"] == "M") lanes[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
    for (const auto &e : trace["traceEvents"])
        if (e["ph"] == "X") slices[lanes.at(e["tid"].get<int>())].insert(e["name"].get<std::string>());
    EXPECT_TRUE(slices.count("core 0") && slices.count("core 1") && slices.count("dma") && slices.count("npu"));
    EXPECT_TRUE(slices["npu"].count("matmul"));
    for (const char *op : {"rmsnorm", "rope", "attention", "swiglu", "add"})
        EXPECT_TRUE(slices["core 1"].count(op)) << op;
    EXPECT_TRUE(slices["dma"].count("copy"));
}

// The same runs drawn in the board's estimated cycles: they follow one another, each
// as long as the cost model estimates it; the NPU runs one job at a time, inside its
// run; every cluster step is on each planned core; NMS weights are never copied.
TEST_F(NpuScenarios, TimelineInEstimatedCyclesFollowsTheCostModel)
{
    tessera::test::AlignedImage image = tessera::test::pack_image(options("siracusa", "npu-nms", "npu_est.tess"));
    const tessera::BoardDesc board = tessera::load_board_desc("siracusa");
    const std::vector<tessera::RunSpec> runs = {{true, 3, 0}, {false, 1, 3}, {false, 1, 4}};
    const auto events = tessera::estimated_timeline(image.data(), image.size, board, runs);
    uint64_t run_start = 0;
    size_t i = 0;
    for (const tessera::RunSpec &r : runs) {
        const tessera::RunEstimate e = tessera::estimate_run(image.data(), image.size, board, r.prompt, r.rows, r.pos);
        ASSERT_LT(i, events.size());
        const tessera::TimelineEvent &fork = events[i++];
        ASSERT_STREQ(fork.name, "fork");
        EXPECT_EQ(fork.start_ns, run_start);
        EXPECT_NEAR(double(fork.end_ns - fork.start_ns), e.cycles, 1.0);
        std::map<uint32_t, int> per_core;
        uint64_t npu_free = fork.start_ns, npu_jobs = 0;
        for (; i < events.size() && std::strcmp(events[i].name, "fork") != 0; ++i) {
            const tessera::TimelineEvent &ev = events[i];
            EXPECT_GE(ev.start_ns, fork.start_ns);
            EXPECT_LE(ev.end_ns, fork.end_ns);
            EXPECT_EQ(ev.pos, r.pos);
            if (ev.engine == tessera::TimelineEvent::Engine::kCluster) ++per_core[ev.core];
            if (ev.engine == tessera::TimelineEvent::Engine::kNpu) {
                EXPECT_GE(ev.start_ns, npu_free) << "NPU jobs overlap";
                npu_free = ev.end_ns;
                ++npu_jobs;
            }
        }
        EXPECT_EQ(npu_jobs, e.npu_jobs);
        ASSERT_EQ(per_core.size(), 8u);
        for (const auto &c : per_core) EXPECT_EQ(c.second, per_core[0]) << "core " << c.first;
        run_start = fork.end_ns;
    }
    EXPECT_EQ(i, events.size());
    const nlohmann::json trace = nlohmann::json::parse(tessera::timeline_trace_json(events, 8, true, "siracusa", true));
    EXPECT_NE(trace["otherData"]["clock"].get<std::string>().find("estimated cycles"), std::string::npos);
}

// A board measured in instructions (qemu-virt-rv32: its busiest compute hart's, the harts
// asleep while the engine runs) counts no engine time, where its costs do not fit the NPU
// variant (the board's rates then): the prediction is the same with an engine a million times
// slower. On a board measured in cycles (siracusa) a slower engine holds the run up.
TEST_F(NpuScenarios, AnInstructionCountedBoardCountsNoEngineTime)
{
    tessera::test::AlignedImage image = tessera::test::pack_image(options("qemu-virt-rv32", "npu-nms", "npu_instr.tess"));
    auto predict = [&](const char *name, double slower) {
        tessera::BoardDesc board = tessera::load_board_desc(name);
        for (auto &[set, costs] : board.cost.fitted) { // none fitted for the NPU: its rates
            auto drop = [](tessera::FittedCoreCosts &c) {
                for (auto it = c.variants.begin(); it != c.variants.end();)
                    it = it->first.find("npu") != std::string::npos ? c.variants.erase(it) : std::next(it);
            };
            drop(costs.all);
            for (auto &[cores, c] : costs.by_cores) drop(c);
        }
        board.cost.npu_macs_per_cycle_8bit /= slower, board.cost.npu_macs_per_cycle_4bit /= slower;
        return tessera::estimate_run(image.data(), image.size, board, false, 1, 3);
    };
    const tessera::RunEstimate qemu = predict("qemu-virt-rv32", 1.0), qemu_slow = predict("qemu-virt-rv32", 1e6);
    EXPECT_EQ(qemu.unit, "instructions");
    EXPECT_GT(qemu.npu_jobs, 0u);
    EXPECT_GT(qemu_slow.npu, qemu.npu * 1e5); // the engine's own time is still reported
    EXPECT_NEAR(qemu_slow.cycles, qemu.cycles, 1.0);
    const tessera::RunEstimate siracusa = predict("siracusa", 1.0), siracusa_slow = predict("siracusa", 1e6);
    EXPECT_EQ(siracusa.unit, "cycles");
    EXPECT_GT(siracusa_slow.cycles, siracusa.cycles + siracusa_slow.npu / 2.0);
}

} // namespace

namespace {

// npu-nms asked for by name puts every NPU weight in the weight memory or refuses the
// model, naming the weight that does not fit: a model of 2 layers of dim 512, hidden 2048
// (4 x 256 KiB + 3 x 1 MiB a layer, 8 MiB in all) against siracusa's 4 MiB.
// A synthetic checkpoint of shape c written as NAME.bin and NAME.tok, packed in int8 for
// siracusa with npu-nms.
tessera::PackOptions npu_nms_options(const tessera::test::SyntheticConfig &c, const std::string &name)
{
    tessera::PackOptions o;
    o.checkpoint = tessera::test::temp_path(name + ".bin");
    o.tokenizer = tessera::test::temp_path(name + ".tok");
    tessera::test::write_legacy_checkpoint(o.checkpoint, c, tessera::test::make_weights(c));
    tessera::test::write_tokenizer(o.tokenizer, c.vocab_size);
    o.board = "siracusa";
    o.precision = tessera::Precision::kInt8;
    o.scenario = tessera::parse_option(tessera::kScenarioNames, "npu-nms", "scenario");
    return o;
}

TEST(NpuNms, WeightsPastTheWeightMemoryAreRefusedByName)
{
    tessera::test::SyntheticConfig c;
    c.dim = 512, c.hidden_dim = 2048, c.n_layers = 2, c.n_heads = 8, c.n_kv_heads = 8, c.vocab_size = 300, c.seq_len = 16;
    tessera::PackOptions o = npu_nms_options(c, "npu_nms_overflow");
    o.output = tessera::test::temp_path("npu_nms_overflow.tess");
    try {
        tessera::pack(o);
        FAIL() << "packed 8 MiB of NPU weights into a 4 MiB weight memory";
    } catch (const tessera::InputError &e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("scenario npu-nms: NPU weight layer1."), std::string::npos) << what;
        EXPECT_NE(what.find("of the 4194304 of board 'siracusa'"), std::string::npos) << what;
    }
    std::ifstream out(o.output);
    EXPECT_FALSE(out.good()) << "an image was left behind";
}

// An image's NPU job descriptors are the image's to corrupt: a descriptor whose sizes, job
// count or weight placement no longer match its step is refused at open, by step and name,
// before any job reaches the HAL (the HAL checks a job's addresses on every submit too).
TEST(NpuNms, ACorruptDescriptorIsRefusedAtOpenByName)
{
    tessera::test::SyntheticConfig c;
    c.seq_len = 16;
    tessera::test::AlignedImage valid = tessera::test::pack_image(npu_nms_options(c, "npu_desc"));
    auto board = HostBoard::create(tessera::load_board_desc("siracusa"), 2);
    auto open = [&](tessera::test::AlignedImage &img, std::string &message) {
        tessera_session session;
        const tessera_status st = tessera_open(&session, img.data(), img.size, board->hal());
        message = tessera_last_error(&session);
        if (st == TESSERA_OK) tessera_close(&session);
        return st;
    };
    std::string message;
    ASSERT_EQ(open(valid, message), TESSERA_OK) << message;
    const auto &h = *reinterpret_cast<const tsr_image_header *>(valid.data());
    const auto *sections = reinterpret_cast<const tsr_section *>(valid.data() + h.section_table_offset);
    uint32_t at = 0, count = 0;
    for (uint32_t i = 0; i < h.section_count; ++i)
        if (sections[i].kind == TSR_SECTION_NPU_JOBS) at = sections[i].file_offset, count = sections[i].size / uint32_t(sizeof(tsr_npu_desc));
    ASSERT_GT(count, 0u) << "an npu-nms image has NPU descriptors";
    const std::pair<const char *, void (*)(tsr_npu_desc &)> corruptions[] = {
        {"k", [](tsr_npu_desc &d) { d.k += 1u; }},
        {"rows", [](tsr_npu_desc &d) { d.m += 1u; }},
        {"output stride", [](tsr_npu_desc &d) { d.ldy = 0xFFFFFFF0u; }},
        {"jobs", [](tsr_npu_desc &d) { d.jobs += 1u; }},
        {"weights in NMS", [](tsr_npu_desc &d) { d.flags = 0u; }},
        {"kind", [](tsr_npu_desc &d) { d.kind = 7u; }},
    };
    for (const auto &[what, corrupt] : corruptions) {
        SCOPED_TRACE(what);
        tessera::test::AlignedImage img = valid;
        corrupt(reinterpret_cast<tsr_npu_desc *>(img.data() + at)[count - 1u]);
        tessera::test::resign(img);
        EXPECT_EQ(open(img, message), TESSERA_ERR_IMAGE_BAD_SCHEDULE) << message;
        EXPECT_NE(message.find("NPU descriptor does not match the step"), std::string::npos) << message;
        EXPECT_NE(message.find("matmul"), std::string::npos) << "the step is named: " << message;
    }
}

// TinyLLama-v0's shape in int8 (random weights written here, calibrated on its own
// output) packs for siracusa at context 256 in each scenario and runs; npu-nms puts
// every NPU weight in NMS. The logits of a two-chunk prompt and of the steps after it
// are the same, bit for bit, in every scenario.
TEST(NpuTinyLlama, PacksAndRunsInEveryScenarioWithTheSameLogits)
{
    const tessera::test::SyntheticConfig c = tessera::test::tinyllama_v0_config();
    tessera::PackOptions o;
    o.checkpoint = tessera::test::temp_path("npu_tinyllama.bin");
    o.tokenizer = tessera::test::temp_path("npu_tinyllama.tok");
    tessera::test::write_legacy_checkpoint(o.checkpoint, c, tessera::test::make_weights(c));
    tessera::test::write_tokenizer(o.tokenizer, c.vocab_size);
    o.board = "siracusa";
    o.precision = tessera::Precision::kInt8;
    o.context = 256;
    o.prompt_chunk = 32;
    std::vector<int32_t> prompt = {1};
    for (int i = 0; i < 39; ++i) prompt.push_back(int32_t(3 + (i * 1543) % 31990));
    std::vector<std::vector<float>> expected;
    for (const char *scenario : {"cluster", "single-core", "npu", "npu-nms"}) {
        o.scenario = tessera::parse_option(tessera::kScenarioNames, scenario, "scenario");
        o.output = tessera::test::temp_path(std::string("npu_tinyllama_") + scenario + ".tess");
        const tessera::PackResult r = tessera::pack(o);
        const bool npu = std::string(scenario).rfind("npu", 0) == 0;
        EXPECT_EQ(r.engines.npu_steps, npu ? 2u * 8u * 7u : 0u) << scenario; // 7 linear layers a layer, both schedules
        if (std::string(scenario) == "npu-nms") {
            EXPECT_EQ(r.engines.nms_weights.size(), 8u * 7u);
            EXPECT_TRUE(r.engines.streamed_weights.empty());
            EXPECT_EQ(r.plan.regions[TSR_REGION_NMS].arena_bytes, r.engines.nms_bytes);
        }
        auto m = tessera::test::open_model(o, std::string(scenario) == "single-core" ? 1u : 0u);
        ASSERT_EQ(m->status, TESSERA_OK) << scenario << ": " << tessera_last_error(&m->session);
        std::vector<std::vector<float>> logits;
        auto keep = [&] {
            const float *l = nullptr;
            ASSERT_EQ(tessera_logits(&m->session, TESSERA_LAST_ROW, &l, nullptr), TESSERA_OK);
            logits.emplace_back(l, l + c.vocab_size);
        };
        ASSERT_EQ(tessera_prompt(&m->session, prompt.data(), 32), TESSERA_OK) << tessera_last_error(&m->session);
        keep();
        ASSERT_EQ(tessera_prompt(&m->session, prompt.data() + 32, 8), TESSERA_OK) << tessera_last_error(&m->session);
        keep();
        for (int32_t t = 0; t < 8; ++t) {
            ASSERT_EQ(tessera_step(&m->session, 100 + 977 * t), TESSERA_OK) << tessera_last_error(&m->session);
            keep();
        }
        if (expected.empty()) expected = logits;
        else EXPECT_TRUE(logits == expected) << scenario << ": logits differ from the cluster's";
        std::printf("MEASURED TinyLlama-v0 shape int8 siracusa %s: %s", scenario,
                    tessera::estimate_lines({r.estimates[1]}, r.board).c_str());
        tessera_close(&m->session);
    }
}

} // namespace
