// The host emulation board: cluster fork/join and barrier, asynchronous DMA with a
// bounded queue, regions as described, board descriptions and their errors.
#include <gtest/gtest.h>

#include <map>

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>
#include <vector>

#include "tessera/host_board.h"
#include "tessera/host_board.hpp"

namespace {

using tessera::BoardError;
using tessera::HostBoard;

std::string error_of(const std::function<void()> &f)
{
    try {
        f();
    } catch (const BoardError &e) {
        return e.what();
    }
    return "";
}

TEST(BoardDesc, ShippedBoardsHaveTheDescribedSizes)
{
    // siracusa as GVSoC models it (boards/siracusa/board.json's memory.sources): the TCDM's
    // 256 KiB less 36 KiB of stacks and the firmware's 1.5 KiB of state (N-EUREKA's
    // queue and requantization parameters among it), the L2 shared banks'
    // 1,984 KiB less 192 KiB for the boot code, HyperRAM's staging buffer and its reads.
    const auto s = tessera::load_board_desc("siracusa");
    EXPECT_EQ(s.cores, 8u);
    EXPECT_EQ(s.region_size[TSR_REGION_L1], 256u * 1024 - 36u * 1024 - 1536u);
    EXPECT_EQ(s.region_size[TSR_REGION_L2], 1984u * 1024 - 192u * 1024);
    EXPECT_EQ(s.region_size[TSR_REGION_NMS], 4u * 1024 * 1024);
    EXPECT_TRUE(s.has_npu);
    const auto g = tessera::load_board_desc("gap9");
    EXPECT_EQ(g.cores, 8u);
    EXPECT_EQ(g.region_size[TSR_REGION_L1], 128u * 1024);
    EXPECT_EQ(g.region_size[TSR_REGION_L2], 1536u * 1024);
    EXPECT_EQ(g.region_size[TSR_REGION_NMS], 0u);
    EXPECT_FALSE(g.has_npu);
    EXPECT_NE(s.fingerprint(), g.fingerprint());
}

TEST(BoardDesc, FingerprintFollowsEveryField)
{
    auto d = tessera::load_board_desc("host");
    const uint32_t f = d.fingerprint();
    d.region_size[TSR_REGION_L1] += 64;
    EXPECT_NE(d.fingerprint(), f);
    d = tessera::load_board_desc("host");
    d.cores = 4;
    EXPECT_NE(d.fingerprint(), f);
}

// The boards the sources describe (boards/NAME/board.json), in name order: no list of them
// is written outside boards/.
std::string boards_in_sources()
{
    std::vector<std::string> names;
    for (const auto &entry : std::filesystem::directory_iterator(TESSERA_SOURCE_DIR "/boards"))
        if (std::filesystem::exists(entry.path() / "board.json")) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    std::string list;
    for (const std::string &n : names) list += (list.empty() ? "" : ", ") + n;
    return list;
}

TEST(BoardDesc, ErrorsSayWhatIsWrong)
{
    const std::string known = boards_in_sources();
    ASSERT_NE(known.find("host"), std::string::npos) << known;
    EXPECT_NE(error_of([] { tessera::load_board_desc("nonexistent"); }).find("known boards: " + known), std::string::npos)
        << known;
    EXPECT_NE(error_of([] { tessera::parse_board_desc("{", "x.json"); }).find("x.json: not valid JSON"), std::string::npos);
    EXPECT_NE(error_of([] { tessera::parse_board_desc(R"({"cluster":{"cores":2},"regions":{"L2":1}})", "x"); })
                  .find("x: name: missing"),
              std::string::npos);
    EXPECT_NE(error_of([] {
                  tessera::parse_board_desc(R"({"name":"b","cluster":{"cores":2},"regions":{"L2":64,"L3":5}})", "x");
              }).find("x: regions.L3: unknown key in regions (known: flash, L1, L2, NMS)"),
              std::string::npos);
    EXPECT_NE(error_of([] { tessera::parse_board_desc(R"({"name":"b","cluster":{"cores":0},"regions":{"L2":64}})", "x"); })
                  .find("x: cluster.cores: expected an integer in 1..64, got a number (0)"),
              std::string::npos);
    EXPECT_EQ(error_of([] { tessera::parse_board_desc(R"({"name":"my board","cluster":{"cores":1},"regions":{"L2":64}})", "x"); }),
              "x: name: must be printable characters without spaces");
    EXPECT_NE(error_of([] {
                  tessera::parse_board_desc(R"({"name":"b","cluster":{"cores":2,"kernels":"neon"},"regions":{"L2":64}})", "x");
              }).find("x: cluster.kernels: names kernel set 'neon'; there are portable, x86-avx2"),
              std::string::npos);
    // A name's bytes are echoed printable (fuzz_board: a non-ASCII byte in the message).
    EXPECT_NE(error_of([] {
                  tessera::parse_board_desc("{\"name\":\"b\",\"cluster\":{\"cores\":2,\"kernels\":\"x86\xD3\x9Bvx2\"},"
                                            "\"regions\":{\"L2\":64}}",
                                            "x");
              }).find("names kernel set 'x86\\xD3\\x9Bvx2'"),
              std::string::npos);
}

// siracusa's description as JSON, to vary (null where it is not found).
static nlohmann::json siracusa_json()
{
    for (const std::string &dir : tessera::board_search_dirs())
        if (std::ifstream in(dir + "/siracusa/board.json"); in) return nlohmann::json::parse(in);
    return nullptr;
}

// A fitted variant's cost per DMA transfer (cost.fitted.<set>.variants.<v>.per_transfer):
// read where given, 0 where left out, refused when negative.
TEST(BoardDesc, FittedCostPerTransferIsOptional)
{
    nlohmann::json j = siracusa_json();
    ASSERT_FALSE(j.is_null());
    nlohmann::json &row = j["cost"]["fitted"]["xpulpv2"]["variants"]["add.i8"];
    row.erase("per_transfer");
    EXPECT_EQ(tessera::parse_board_desc(j.dump(), "x").cost.fitted_for("xpulpv2")->variant("add.i8", 1)->per_transfer, 0.0);
    row["per_transfer"] = 42.5;
    j["cost"]["fitted"]["xpulpv2"].erase("by_cores"); // the variant's costs over every run
    EXPECT_EQ(tessera::parse_board_desc(j.dump(), "x").cost.fitted_for("xpulpv2")->variant("add.i8", 8)->per_transfer, 42.5);
    row["per_transfer"] = -1.0;
    EXPECT_NE(error_of([&] { tessera::parse_board_desc(j.dump(), "x"); }).find("per_transfer"), std::string::npos);
}

// What a run adds per row it carries in and out (cost.fitted.<set>[.by_cores.<n>].per_row):
// read where given, 0 where left out, refused when negative.
TEST(BoardDesc, FittedCostPerRowIsOptional)
{
    nlohmann::json j = siracusa_json();
    ASSERT_FALSE(j.is_null());
    nlohmann::json &set = j["cost"]["fitted"]["xpulpv2"];
    set.erase("by_cores");
    set.erase("per_row");
    EXPECT_EQ(tessera::parse_board_desc(j.dump(), "x").cost.fitted_for("xpulpv2")->for_cores(8).per_row, 0.0);
    set["per_row"] = 1013.5;
    EXPECT_EQ(tessera::parse_board_desc(j.dump(), "x").cost.fitted_for("xpulpv2")->for_cores(8).per_row, 1013.5);
    set["per_row"] = -1.0;
    EXPECT_NE(error_of([&] { tessera::parse_board_desc(j.dump(), "x"); }).find("per_row"), std::string::npos);
}

// The kernel set a description names (cluster.kernels) is what the board runs where
// the machine has it, and nothing where it names none.
TEST(HostBoard, RunsTheKernelSetItsDescriptionNamesWhereTheMachineHasIt)
{
    EXPECT_EQ(tessera::parse_board_desc(R"({"name":"b","cluster":{"cores":1,"kernels":"x86-avx2"},"regions":{"L2":64}})", "x").isa,
              uint32_t(TSR_ISA_X86_AVX2));
    EXPECT_EQ(HostBoard::create(tessera::load_board_desc("siracusa"), 1)->hal()->isa, 0u); // it names none
    auto host = HostBoard::create(tessera::load_board_desc("host"), 1);
    EXPECT_EQ(tessera::load_board_desc("host").isa, uint32_t(TSR_ISA_X86_AVX2));
    EXPECT_EQ(host->hal()->isa & ~uint32_t(TSR_ISA_X86_AVX2), 0u);
    host->use_portable_kernels();
    EXPECT_EQ(host->hal()->isa, 0u);
}

TEST(HostBoard, RegionsAreRealAlignedBuffersOfTheDescribedSize)
{
    auto board = HostBoard::create(tessera::load_board_desc("siracusa"), 1);
    const tsr_hal_board *hal = board->hal();
    EXPECT_STREQ(hal->name, "siracusa");
    for (uint32_t r = TSR_REGION_L1; r < TSR_REGION_COUNT; ++r) {
        ASSERT_NE(hal->regions[r].base, nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(hal->regions[r].base) % 64, 0u);
        std::memset(hal->regions[r].base, 0xA5, hal->regions[r].size); // the whole region is writable
    }
    EXPECT_EQ(hal->regions[TSR_REGION_L2].size, 1792u * 1024);
}

TEST(HostBoard, ThreadsAreARuntimeOptionUpToTheCores)
{
    const auto d = tessera::load_board_desc("gap9");
    EXPECT_EQ(HostBoard::create(d, 0)->hal()->core_count, std::min(8u, std::max(1u, std::thread::hardware_concurrency())));
    EXPECT_EQ(HostBoard::create(d, 3)->hal()->core_count, 3u);
    EXPECT_NE(error_of([&] { HostBoard::create(d, 9); }).find("cannot back it with 9 threads"), std::string::npos);
}

struct ForkRecord {
    std::atomic<uint32_t> calls[8];
    std::atomic<uint32_t> wrong_count{0};
    uint32_t expected_cores;
};

TEST(HostBoard, ForkRunsEveryCoreOnceAndJoins)
{
    for (uint32_t threads : {1u, 2u, 8u}) {
        auto board = HostBoard::create(tessera::load_board_desc("host"), threads);
        const tsr_hal_board *hal = board->hal();
        ForkRecord rec;
        rec.expected_cores = threads;
        for (auto &c : rec.calls) c = 0;
        for (int round = 0; round < 500; ++round) {
            ASSERT_EQ(hal->ops->cluster_fork(hal->ctx,
                                             [](void *arg, uint32_t id, uint32_t count) {
                                                 auto &r = *static_cast<ForkRecord *>(arg);
                                                 if (count != r.expected_cores) ++r.wrong_count;
                                                 r.calls[id].fetch_add(1);
                                             },
                                             &rec),
                      TSR_HAL_OK);
            // Joined: every core has finished this round before fork returns.
            for (uint32_t c = 0; c < threads; ++c) ASSERT_EQ(rec.calls[c].load(), uint32_t(round + 1));
        }
        EXPECT_EQ(rec.wrong_count.load(), 0u);
    }
}

struct BarrierRecord {
    const tsr_hal_board *hal;
    std::atomic<uint32_t> arrived[4];
    std::atomic<uint32_t> violations{0};
};

TEST(HostBoard, BarrierHoldsEveryCoreUntilAllArrive)
{
    auto board = HostBoard::create(tessera::load_board_desc("host"), 4);
    BarrierRecord rec;
    rec.hal = board->hal();
    for (auto &a : rec.arrived) a = 0;
    rec.hal->ops->cluster_fork(rec.hal->ctx,
                               [](void *arg, uint32_t id, uint32_t count) {
                                   auto &r = *static_cast<BarrierRecord *>(arg);
                                   for (uint32_t phase = 1; phase <= 200; ++phase) {
                                       r.arrived[id].store(phase);
                                       r.hal->ops->cluster_barrier(r.hal->ctx);
                                       for (uint32_t c = 0; c < count; ++c)
                                           if (r.arrived[c].load() < phase) ++r.violations;
                                       r.hal->ops->cluster_barrier(r.hal->ctx);
                                   }
                               },
                               &rec);
    EXPECT_EQ(rec.violations.load(), 0u);
}

TEST(HostBoard, DmaCopiesAsynchronouslyAndCompletesByHandle)
{
    auto board = HostBoard::create(tessera::load_board_desc("host"), 1);
    const tsr_hal_board *hal = board->hal();
    uint8_t *l2 = hal->regions[TSR_REGION_L2].base, *l1 = hal->regions[TSR_REGION_L1].base;
    for (int i = 0; i < 4096; ++i) l2[i] = uint8_t(i * 7);
    tsr_dma_handle a = 0, b = 0;
    ASSERT_EQ(hal->ops->dma_copy_1d(hal->ctx, l1, l2, 4096, &a), TSR_HAL_OK);
    // 2D: 8 rows of 16 bytes, from a 64-byte source stride into a 32-byte destination stride.
    ASSERT_EQ(hal->ops->dma_copy_2d(hal->ctx, l1 + 8192, 32, l2, 64, 16, 8, &b), TSR_HAL_OK);
    EXPECT_NE(a, 0u);
    EXPECT_GT(b, a);
    ASSERT_EQ(hal->ops->dma_wait(hal->ctx, b), TSR_HAL_OK); // in order: a is done too
    EXPECT_EQ(std::memcmp(l1, l2, 4096), 0);
    for (int r = 0; r < 8; ++r) EXPECT_EQ(std::memcmp(l1 + 8192 + r * 32, l2 + r * 64, 16), 0) << r;
    EXPECT_EQ(hal->ops->dma_wait(hal->ctx, a), TSR_HAL_OK);
    EXPECT_EQ(hal->ops->dma_wait(hal->ctx, 0), TSR_HAL_INVALID);
    EXPECT_EQ(hal->ops->dma_wait(hal->ctx, b + 100), TSR_HAL_INVALID);
}

TEST(HostBoard, DmaQueueIsBounded)
{
    auto board = HostBoard::create(tessera::parse_board_desc(
        R"({"name":"tiny-queue","cluster":{"cores":1},"regions":{"L2":33554432},"dma":{"queue_depth":2}})", "test"));
    const tsr_hal_board *hal = board->hal();
    uint8_t *l2 = hal->regions[TSR_REGION_L2].base;
    tsr_dma_handle h = 0, last = 0;
    bool busy = false;
    // Large copies take milliseconds; the third submission in a row finds the queue full.
    for (int i = 0; i < 64 && !busy; ++i) {
        const tsr_hal_status st = hal->ops->dma_copy_1d(hal->ctx, l2 + (16u << 20), l2, 16u << 20, &h);
        if (st == TSR_HAL_BUSY) busy = true;
        else last = h;
    }
    EXPECT_TRUE(busy);
    EXPECT_EQ(hal->ops->dma_wait(hal->ctx, last), TSR_HAL_OK);
}

TEST(HostBoard, RecordsATimelinePerEngineWhenAsked)
{
    auto board = HostBoard::create(tessera::load_board_desc("host"), 2);
    const tsr_hal_board *hal = board->hal();
    EXPECT_STREQ(hal->regions[TSR_REGION_L1].name, "L1");
    auto nothing = [](void *, uint32_t, uint32_t) {};
    hal->ops->cluster_fork(hal->ctx, nothing, nullptr);
    EXPECT_TRUE(board->timeline().empty());
    board->record_timeline(true);
    tsr_dma_handle h;
    hal->ops->cluster_fork(hal->ctx, nothing, nullptr);
    ASSERT_EQ(hal->ops->dma_copy_1d(hal->ctx, hal->regions[TSR_REGION_L1].base, hal->regions[TSR_REGION_L2].base, 256, &h),
              TSR_HAL_OK);
    hal->ops->dma_wait(hal->ctx, h);
    const auto events = board->timeline();
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].engine, tessera::TimelineEvent::Engine::kCluster);
    EXPECT_EQ(events[1].engine, tessera::TimelineEvent::Engine::kDma);
    EXPECT_EQ(events[1].bytes, 256u);
    for (const auto &e : events) EXPECT_LE(e.start_ns, e.end_ns);

    const auto trace = nlohmann::json::parse(board->timeline_trace_json());
    int forks = 0, copies = 0;
    for (const auto &e : trace["traceEvents"]) {
        if (e["ph"] != "X") continue;
        forks += e["name"] == "fork";
        copies += e["name"] == "copy" && e["args"]["bytes"] == 256;
        EXPECT_GE(e["dur"].get<double>(), 0.0);
    }
    EXPECT_EQ(forks, 1);
    EXPECT_EQ(copies, 1);
}

// Any name a description may give (a quote, a backslash) leaves the trace valid JSON;
// every core of the board has a named lane, and DMA transfers in flight together get
// lanes of their own, so no two slices of a lane overlap.
TEST(HostBoard, TraceIsValidJsonWithEveryLaneNamedAndNoOverlapsInALane)
{
    const tessera::BoardDesc desc =
        tessera::parse_board_desc(R"({"name":"my\"b\\d","cluster":{"cores":4},"regions":{"L1":4096,"L2":65536}})", "x");
    ASSERT_EQ(desc.name, "my\"b\\d");
    std::vector<tessera::TimelineEvent> events = {
        {tessera::TimelineEvent::Engine::kCluster, 0, 0, 50, 0, "fork", 0xFFFFu, 0, 1},
        {tessera::TimelineEvent::Engine::kDma, 0, 10, 40, 256, "copy", 0xFFFFu, 0, 0},
        {tessera::TimelineEvent::Engine::kDma, 0, 20, 60, 256, "copy", 0xFFFFu, 0, 0}, // in flight with the first
        {tessera::TimelineEvent::Engine::kDma, 0, 45, 70, 256, "copy", 0xFFFFu, 0, 0}, // after the first
    };
    const auto trace = nlohmann::json::parse(tessera::timeline_trace_json(events, desc.cores, false, desc.name));
    EXPECT_EQ(trace["otherData"]["board"], desc.name);
    std::map<int, std::string> lanes;
    std::map<int, std::vector<std::pair<double, double>>> slices;
    for (const auto &e : trace["traceEvents"]) {
        if (e["ph"] == "M") lanes[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
        else slices[e["tid"].get<int>()].push_back({e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>()});
    }
    const std::map<int, std::string> want = {{1, "core 0"}, {2, "core 1"}, {3, "core 2"}, {4, "core 3"}, {5, "dma"}, {6, "dma 2"}};
    EXPECT_EQ(lanes, want);
    for (auto &[tid, s] : slices) {
        std::sort(s.begin(), s.end());
        for (size_t i = 1; i < s.size(); ++i) EXPECT_LE(s[i - 1].second, s[i].first) << "lane " << lanes[tid];
    }
    EXPECT_EQ(slices[5].size(), 2u); // the first and the third copy
    EXPECT_EQ(slices[6].size(), 1u);
}

TEST(HostBoardC, CreateReportsErrorsInOneLine)
{
    tessera_host_board *b = nullptr;
    char err[256];
    EXPECT_NE(tessera_host_board_create("no-such-board", 0, &b, err, sizeof err), 0);
    EXPECT_NE(std::string(err).find("unknown board 'no-such-board'"), std::string::npos) << err;
    ASSERT_EQ(tessera_host_board_create("gap9", 2, &b, err, sizeof err), 0) << err;
    EXPECT_EQ(tessera_host_board_hal(b)->core_count, 2u);
    tessera_host_board_destroy(b);
}

} // namespace

namespace {

// --offchip-throttle's board side: only a description with off-chip memory has a rate
// to throttle to; siracusa's HyperRAM does.
TEST(HostBoardOffChip, ThrottlingNeedsOffChipMemory)
{
    auto host = tessera::HostBoard::create(tessera::load_board_desc("host"), 1);
    try {
        host->throttle_offchip(true);
        FAIL() << "throttled a board without off-chip memory";
    } catch (const tessera::BoardError &e) {
        EXPECT_NE(std::string(e.what()).find("board 'host' describes no off-chip memory (\"offchip\") to throttle"),
                  std::string::npos)
            << e.what();
    }
    auto siracusa = tessera::HostBoard::create(tessera::load_board_desc("siracusa"), 1);
    EXPECT_NO_THROW(siracusa->throttle_offchip(true));
    EXPECT_NO_THROW(siracusa->throttle_offchip(false));
}

} // namespace
