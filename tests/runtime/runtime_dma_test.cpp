// The runtime's DMA calls (runtime/src/ops/op.h, class Dma) against a board that records
// what it is asked: gathers of equally spaced copies of the same bytes go as the rows of
// one 2D transfer, issued before anything else the runtime asks of the engine, in order;
// anything that breaks the spacing starts a new one.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "ops/op.h"
#include "session.h"
#include "support/packed_image.h"
#include "support/synthetic_model.h"

namespace {

struct Copy {
    uintptr_t dst, src;
    uint32_t dst_stride, src_stride, row_bytes, rows;
    bool operator==(const Copy &o) const
    {
        return dst == o.dst && src == o.src && dst_stride == o.dst_stride && src_stride == o.src_stride &&
               row_bytes == o.row_bytes && rows == o.rows;
    }
};

struct Recorder {
    std::vector<Copy> copies;
    std::vector<tsr_dma_handle> waits;
};
Recorder *g_rec = nullptr;

tsr_hal_status copy_2d(void *, void *dst, uint32_t dst_stride, const void *src, uint32_t src_stride, uint32_t row_bytes,
                       uint32_t rows, tsr_dma_handle *out)
{
    g_rec->copies.push_back(Copy{(uintptr_t)dst, (uintptr_t)src, dst_stride, src_stride, row_bytes, rows});
    *out = (tsr_dma_handle)g_rec->copies.size();
    return TSR_HAL_OK;
}

tsr_hal_status wait(void *, tsr_dma_handle h)
{
    g_rec->waits.push_back(h);
    return TSR_HAL_OK;
}

struct RuntimeDma : ::testing::Test {
    Recorder rec;
    tsr_hal_ops ops{};
    tsr_hal_board board{};
    std::vector<uint8_t> l1 = std::vector<uint8_t>(4096), l2 = std::vector<uint8_t>(65536);
    void SetUp() override
    {
        g_rec = &rec;
        ops.dma_copy_2d = copy_2d;
        ops.dma_wait = wait;
        board.ops = &ops;
    }
    void TearDown() override { g_rec = nullptr; }
    uintptr_t a1(size_t at) const { return (uintptr_t)(l1.data() + at); }
    uintptr_t a2(size_t at) const { return (uintptr_t)(l2.data() + at); }
};

// A round's KV gathers from a head-major cache (heads 1,024 bytes apart) into buffers 256
// bytes apart: one transfer of four rows, issued where the runtime asks for its handle.
TEST_F(RuntimeDma, EquallySpacedGathersGoAsOneTransfer)
{
    tsr::Dma dma(&board);
    for (uint32_t h = 0; h < 4; ++h) dma.gather(l1.data() + 256 * h, l2.data() + 100 + 1024 * h, 24);
    EXPECT_TRUE(rec.copies.empty()) << "nothing issued before the runtime needs it";
    const tsr_dma_handle last = dma.last();
    ASSERT_EQ(rec.copies.size(), 1u);
    EXPECT_EQ(rec.copies[0], (Copy{a1(0), a2(100), 256, 1024, 24, 4}));
    EXPECT_EQ(last, 1u);
    EXPECT_EQ(dma.transfers, 1u);
    EXPECT_EQ(dma.bytes, 96u);
    dma.drain();
    EXPECT_EQ(rec.waits, std::vector<tsr_dma_handle>{1u});
}

// A copy of other bytes, another spacing, a destination behind or overlapping the last
// row, or any other call: the gather so far goes first, as it was.
TEST_F(RuntimeDma, WhatBreaksTheSpacingStartsAnotherTransfer)
{
    tsr::Dma dma(&board);
    dma.gather(l1.data(), l2.data(), 16);
    dma.gather(l1.data() + 32, l2.data() + 64, 16);
    dma.gather(l1.data() + 64, l2.data() + 128, 16);
    dma.gather(l1.data() + 100, l2.data() + 192, 16); // the destination's spacing breaks
    dma.gather(l1.data() + 132, l2.data() + 256, 8);  // other bytes
    dma.gather(l1.data() + 136, l2.data() + 300, 8);  // overlaps the row before: not a row of it
    dma.copy(l1.data() + 1000, l2.data() + 5000, 40); // a plain copy issues what is pending first
    dma.gather(l1.data() + 2000, l2.data() + 6000, 4);
    dma.gather(l1.data() + 1996, l2.data() + 6004, 4); // backwards
    dma.flush();
    const std::vector<Copy> want = {
        {a1(0), a2(0), 32, 64, 16, 3},      {a1(100), a2(192), 16, 16, 16, 1}, {a1(132), a2(256), 8, 8, 8, 1},
        {a1(136), a2(300), 8, 8, 8, 1},     {a1(1000), a2(5000), 40, 40, 40, 1}, {a1(2000), a2(6000), 4, 4, 4, 1},
        {a1(1996), a2(6004), 4, 4, 4, 1},
    };
    EXPECT_EQ(rec.copies, want);
    EXPECT_EQ(dma.transfers, want.size());
    dma.flush(); // nothing pending: nothing issued
    EXPECT_EQ(rec.copies.size(), want.size());
}

// Planes (tsr_hal_ops.dma_copy_planes): one call and one transfer where the board takes
// them; plane by plane where it has no such call or declines the copy (UNSUPPORTED); any
// other failure sticks, and nothing more is issued.
tsr_hal_status g_planes_status = TSR_HAL_OK;
std::vector<tsr_dma_planes> g_planes;
tsr_hal_status copy_planes(void *, const tsr_dma_planes *c, tsr_dma_handle *out)
{
    g_planes.push_back(*c);
    *out = 1000u + (tsr_dma_handle)g_planes.size();
    return g_planes_status;
}

TEST_F(RuntimeDma, PlanesGoAsOneTransferOrPlaneByPlane)
{
    const tsr_dma_planes c = {l1.data() + 64, l2.data() + 8, 4, 64, 4, 9, 80, 4, 3};
    const std::vector<Copy> each = {{a1(64), a2(8), 4, 64, 4, 9}, {a1(144), a2(12), 4, 64, 4, 9}, {a1(224), a2(16), 4, 64, 4, 9}};
    // Each case from nothing recorded, the board's call answering `status`.
    auto fresh = [&](tsr_hal_status status) {
        rec.copies.clear();
        g_planes.clear();
        g_planes_status = status;
    };
    { // no such call: plane by plane
        tsr::Dma dma(&board);
        dma.copy_planes(c);
        EXPECT_EQ(rec.copies, each);
        EXPECT_EQ(dma.transfers, 3u);
        EXPECT_EQ(dma.bytes, 108u);
    }
    ops.dma_copy_planes = copy_planes;
    fresh(TSR_HAL_OK);
    { // taken: one call, its handle the last
        tsr::Dma dma(&board);
        dma.gather(l1.data(), l2.data(), 16); // a pending gather goes first
        dma.copy_planes(c);
        ASSERT_EQ(g_planes.size(), 1u);
        EXPECT_EQ(g_planes[0].planes, 3u);
        EXPECT_EQ(g_planes[0].dst_plane, 80u);
        EXPECT_EQ(rec.copies, (std::vector<Copy>{{a1(0), a2(0), 16, 16, 16, 1}}));
        EXPECT_EQ(dma.last(), 1001u);
        EXPECT_EQ(dma.transfers, 2u);
        EXPECT_EQ(dma.bytes, 16u + 108u);
    }
    fresh(TSR_HAL_UNSUPPORTED);
    { // declined: plane by plane
        tsr::Dma dma(&board);
        dma.copy_planes(c);
        EXPECT_EQ(g_planes.size(), 1u);
        EXPECT_EQ(rec.copies, each);
        EXPECT_FALSE(dma.failed());
    }
    fresh(TSR_HAL_FAULT);
    { // failed: the status sticks
        tsr::Dma dma(&board);
        dma.copy_planes(c);
        dma.copy(l1.data(), l2.data(), 8);
        EXPECT_TRUE(dma.failed());
        EXPECT_EQ(dma.status(), TSR_HAL_FAULT);
        EXPECT_TRUE(rec.copies.empty());
        EXPECT_EQ(dma.transfers, 0u);
    }
    fresh(TSR_HAL_OK);
    { // one plane: a 2D copy
        tsr::Dma dma(&board);
        tsr_dma_planes one = c;
        one.planes = 1;
        dma.copy_planes(one);
        EXPECT_TRUE(g_planes.empty());
        EXPECT_EQ(rec.copies, (std::vector<Copy>{each[0]}));
    }
}

} // namespace

// A matmul's first weight tile fetched ahead while the steps before it compute
// (resolve_steps, RunState::fetch_ahead). stories260K in int8 for siracusa (the layers'
// weights staged from L2): some token steps are fetched ahead, each by one earlier step (its
// `fetches` distance names it), into memory that none of the steps from that one to it reads
// or writes (every operand and staging tensor taken whole from the image's tensor table),
// the steps between them moving nothing of their own (no staging), no two fetches in flight
// at once (a step fetches ahead no earlier than the one fetched ahead before it), some from
// further than the step before; it generates the ids of the image packed for the host board.
TEST(FetchAhead, GoesWhereTheStepsBeforeHaveNothingAndChangesNoId)
{
    using namespace tessera::test;
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    auto siracusa = open_model(stories260k_int8(shared, "siracusa", "cluster", temp_path("ahead_siracusa.tess")), 4,
                               "siracusa");
    ASSERT_EQ(siracusa->status, TESSERA_OK) << tessera_last_error(&siracusa->session);
    const tsr::Session &s = *tsr::session_of(&siracusa->session);
    const tsr::ImageView &img = s.image;
    const auto *table = (const tsr::ResolvedStep *)tsr::tensor_address(img, s.board, img.header->step_table_tensor) +
                        img.prompt.header->step_count;
    const tsr_step *steps = img.token.steps;
    const uint32_t count = img.token.header->step_count;
    uint32_t ahead = 0, far = 0, last = 0;
    for (uint32_t i = 1; i < count; ++i) {
        const tsr::ResolvedStep &r = table[i];
        uint32_t issuers = 0, from = i;
        for (uint32_t m = 0; m < i; ++m)
            if (table[m].fetches && m + table[m].fetches == i) ++issuers, from = m;
        EXPECT_EQ(issuers, r.ahead_bytes ? 1u : 0u) << "step " << i;
        if (!r.ahead_bytes || issuers != 1u) continue;
        ++ahead;
        far += from + 1u < i ? 1u : 0u;
        EXPECT_GE(from, last) << "step " << i << " is fetched ahead before step " << last << " starts";
        last = i;
        // Its staging tensor (a prepared step keeps no staging layout in its entry).
        const uint8_t *lo = tsr::tensor_address(img, s.board, steps[i].staging[r.ahead_operand]), *hi = lo + r.ahead_bytes;
        if (!r.prepared) EXPECT_EQ(lo, r.stage[r.ahead_operand]) << "step " << i;
        EXPECT_EQ(steps[i].op, uint32_t(TSR_OP_MATMUL)) << "step " << i;
        EXPECT_LE(r.ahead_bytes, img.tensors[steps[i].staging[r.ahead_operand]].size) << "step " << i;
        for (uint32_t m = from; m < i; ++m) {
            EXPECT_EQ(table[m].alone, 0u) << "step " << m << ", core 0's alone, is under step " << i << "'s fetch";
            for (uint32_t k = 0; k < TSR_MAX_OPERANDS; ++k) {
                if (m > from) EXPECT_EQ(steps[m].staging[k], TSR_NO_TENSOR) << "step " << m << " moves operand " << k;
                for (const uint32_t id : {uint32_t(steps[m].operands[k]), uint32_t(steps[m].staging[k])}) {
                    if (id >= img.header->tensor_count) continue;
                    const uint8_t *t = tsr::tensor_address(img, s.board, id), *t_end = t + img.tensors[id].size;
                    EXPECT_TRUE(hi <= t || t_end <= lo) << "step " << i << " fetches ahead over tensor " << id
                                                        << ", which step " << m << " uses";
                }
            }
        }
    }
    EXPECT_GT(far, 0u);
    EXPECT_GT(ahead, 0u);
    auto host = open_model(stories260k_int8(shared, "host", "cluster", temp_path("ahead_host.tess")), 4);
    ASSERT_EQ(host->status, TESSERA_OK) << tessera_last_error(&host->session);
    EXPECT_EQ(generate_greedy(*siracusa, {1}, 40), generate_greedy(*host, {1}, 40));
}

// Reading ahead (tsr_hal_ops.dma_prefetch; ResolvedStep::prefetches, ImageView::loan).
// stories260K int8 for siracusa with every weight read from the image (off chip, which only the
// DMA reads), on the host board with a dma_prefetch that records what it is asked: the loan is
// L2 that no tensor but the sampler scratch holds; a step asks for a later step's off-chip
// constant where the steps from it to that one read nothing off chip and the step before it
// does (or it is the first), two or more steps ahead; the hints name that constant, as many of
// its bytes as the loan holds in whole first tiles, the loan as their buffer, and every run
// ends the loan after its last hint; the ids are the host image's.
struct Hint {
    const void *src;
    uint32_t bytes;
    void *buffer;
    uint32_t buffer_bytes;
};
std::vector<Hint> g_hints;
tsr_hal_status record_hint(void *, const void *src, uint32_t bytes, void *buffer, uint32_t buffer_bytes)
{
    g_hints.push_back(Hint{src, bytes, buffer, buffer_bytes});
    return TSR_HAL_OK;
}

TEST(Prefetch, AsksForOffChipConstantsAfterStepsThatReadNoneAndEndsTheLoan)
{
    using namespace tessera::test;
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    tessera::PackOptions options = stories260k_int8(shared, "siracusa", "cluster", temp_path("prefetch_siracusa.tess"));
    options.weights = tessera::WeightsPlacement::kImage;
    OpenModel m;
    m.image = pack_image(options);
    m.board = tessera::HostBoard::create(tessera::load_board_desc("siracusa"), 4, 0);
    tsr_hal_board board = *m.board->hal();
    tsr_hal_ops ops = *board.ops;
    ops.dma_prefetch = record_hint;
    board.ops = &ops;
    m.status = tessera_open(&m.session, m.image.data(), m.image.size, &board);
    ASSERT_EQ(m.status, TESSERA_OK) << tessera_last_error(&m.session);
    const tsr::Session &s = *tsr::session_of(&m.session);
    const tsr::ImageView &img = s.image;
    ASSERT_NE(img.loan, nullptr);
    ASSERT_GE(img.loan_bytes, 4u);
    const uint32_t scratch = img.header->sampler_scratch_tensor;
    for (uint32_t id = 0; id < img.header->tensor_count; ++id) {
        if (id == scratch || img.tensors[id].region != TSR_REGION_L2) continue;
        const uint8_t *t = tsr::tensor_address(img, s.board, id);
        EXPECT_TRUE(t + img.tensors[id].size <= img.loan || img.loan + img.loan_bytes <= t) << "tensor " << id;
    }
    auto off_chip = [&](const tsr_step &st) {
        for (uint32_t k = 0; k < TSR_MAX_OPERANDS; ++k)
            if (st.operands[k] < img.header->tensor_count && img.tensors[st.operands[k]].region == TSR_REGION_IMAGE)
                return true;
        return false;
    };
    const auto *table = (const tsr::ResolvedStep *)tsr::tensor_address(img, s.board, img.header->step_table_tensor);
    std::vector<const void *> wanted; // the constants the hints may name
    uint32_t hinted = 0;
    for (const tsr::ScheduleView *v : {&img.prompt, &img.token}) {
        for (uint32_t i = 0; i < v->header->step_count; ++i) {
            const uint32_t n = table[i].prefetches;
            if (!n) continue;
            ++hinted;
            ASSERT_LT(i + n, v->header->step_count);
            EXPECT_GE(n, 2u) << "step " << i;
            if (i > 0u) EXPECT_TRUE(off_chip(v->steps[i - 1u])) << "step " << i;
            for (uint32_t m2 = i; m2 < i + n; ++m2) EXPECT_FALSE(off_chip(v->steps[m2])) << "step " << m2;
            const tsr_step &target = v->steps[i + n];
            uint32_t k = 0;
            ASSERT_GT(tsr::op_device(target.op)->ahead(target, &k), 0u);
            ASSERT_LT(k, TSR_MAX_OPERANDS);
            EXPECT_EQ(img.tensors[target.operands[k]].region, uint32_t(TSR_REGION_IMAGE)) << "step " << i + n;
            wanted.push_back(tsr::tensor_address(img, s.board, target.operands[k]));
        }
        table += v->header->step_count;
    }
    EXPECT_GT(hinted, 0u);
    g_hints.clear();
    const std::vector<int32_t> ids = generate_greedy(m, {1}, 24);
    ASSERT_FALSE(g_hints.empty());
    EXPECT_EQ(g_hints.back().buffer, nullptr) << "the last run ends its loan";
    for (const Hint &h : g_hints) {
        if (!h.buffer) {
            EXPECT_EQ(h.src, nullptr);
            EXPECT_EQ(h.bytes, 0u);
            continue;
        }
        EXPECT_EQ(h.buffer, img.loan);
        EXPECT_EQ(h.buffer_bytes, img.loan_bytes);
        EXPECT_LE(h.bytes, img.loan_bytes);
        EXPECT_GT(h.bytes, 0u);
        EXPECT_NE(std::find(wanted.begin(), wanted.end(), h.src), wanted.end());
    }
    auto host = open_model(stories260k_int8(shared, "host", "cluster", temp_path("prefetch_host.tess")), 4);
    ASSERT_EQ(host->status, TESSERA_OK) << tessera_last_error(&host->session);
    EXPECT_EQ(ids, generate_greedy(*host, {1}, 24));
}
