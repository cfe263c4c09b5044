// Off-chip memory in the plan (board.json "offchip"): a model that fits gives the
// same plan and image with or without it (but the description the image embeds and
// its fingerprint); one that does not keeps on chip the constants the cores read and
// the most reused weights, and generates what the same model generates from L2; the
// estimate streams from off-chip memory the weight bytes a token reads there.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/golden.h"
#include "support/packed_image.h"
#include "support/synthetic_model.h"
#include "tessera/image_format.h"

namespace {

using namespace tessera::test;

// A description file: `base` (a board of the repository) renamed, with `offchip`
// replaced (null: removed) and L2 set (0: the board's).
std::string board_file(const std::string &base, const std::string &name, const nlohmann::json &offchip, uint32_t l2)
{
    nlohmann::json d;
    std::ifstream(std::string(TESSERA_SOURCE_DIR) + "/boards/" + base + "/board.json") >> d;
    d["name"] = name;
    if (offchip.is_null()) d.erase("offchip");
    else d["offchip"] = offchip;
    if (l2) d["regions"]["L2"] = l2;
    const std::string path = temp_path(name + ".json");
    std::ofstream(path) << d.dump(2);
    return path;
}

// The image's sections, but the board description (the embedded JSON differs).
std::vector<std::vector<uint8_t>> plan_sections(const AlignedImage &img)
{
    std::vector<std::vector<uint8_t>> out;
    const auto *data = reinterpret_cast<const uint8_t *>(img.blocks.data());
    tsr_image_header h;
    std::memcpy(&h, data, sizeof h);
    for (uint32_t i = 0; i < h.section_count; ++i) {
        tsr_section s;
        std::memcpy(&s, data + h.section_table_offset + i * sizeof s, sizeof s);
        if (s.kind == TSR_SECTION_BOARD) continue;
        out.emplace_back(data + s.file_offset, data + s.file_offset + s.size);
        out.back().push_back(uint8_t(s.region));
    }
    return out;
}

TEST(OffChip, AModelThatFitsGivesTheSamePlanAndImageSections)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    for (const char *precision : {"fp32", "int8"}) {
        tessera::PackOptions with = stories260k_int8(shared, "siracusa", "auto", temp_path("with.tess"));
        if (std::string(precision) == "fp32") with.precision = tessera::Precision::kFp32;
        tessera::PackOptions without = with;
        without.board = board_file("siracusa", "siracusa", nullptr, 0);
        without.output = temp_path("without.tess");
        const AlignedImage a = pack_image(with), b = pack_image(without);
        EXPECT_EQ(plan_sections(a), plan_sections(b)) << precision;
    }
}

// stories260K in int8 on a board whose L2 holds its buffers and part of its weights.
struct SplitPlan : ::testing::Test {
    void SetUp() override
    {
        shared = shared_dir();
        if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
        o = stories260k_int8(shared, "siracusa", "cluster", temp_path("split.tess"));
        const nlohmann::json psram = {{"kind", "psram"}, {"bytes", 8 << 20}, {"mb_per_s", 57}, {"latency_ns", 100},
                                      {"cores_read", false}};
        o.board = board_file("siracusa", "small-l2", psram, 350000);
    }
    std::string shared;
    tessera::PackOptions o;
};

TEST_F(SplitPlan, KeepsTheConstantsTheCoresReadOnChipAndStreamsTheRest)
{
    const tessera::PackResult r = tessera::pack(o);
    ASSERT_GT(r.plan.l2_weights_bytes, 0u);
    ASSERT_GT(r.plan.image_weights_bytes, 0u);
    std::vector<bool> operand(r.graph.tensors.size(), false);
    for (const tessera::GraphSchedule *s : {&r.graph.prompt, &r.graph.token})
        for (const tessera::GraphStep &st : s->steps)
            for (uint32_t k = 0; k < st.operand_count; ++k)
                if (st.operands[k] != TSR_NO_TENSOR) operand[st.operands[k]] = true;
    uint64_t l2 = 0, image = 0;
    for (size_t i = 0; i < r.graph.tensors.size(); ++i) {
        const auto &t = r.graph.tensors[i];
        if (t.kind != TSR_TENSOR_WEIGHT) continue;
        if (r.plan.region[i] == TSR_REGION_IMAGE) {
            image += t.bytes;
            EXPECT_TRUE(operand[i]) << t.name << ": a constant the cores read left off chip";
        } else {
            l2 += t.bytes;
        }
    }
    EXPECT_LE(l2, r.plan.l2_weights_bytes);
    EXPECT_LE(image, r.plan.image_weights_bytes);
    // The token's estimate streams what the token reads off chip: every weight there
    // once, the embedding table a row.
    double needed = 0;
    for (size_t i = 0; i < r.graph.tensors.size(); ++i) {
        const auto &t = r.graph.tensors[i];
        if (t.kind != TSR_TENSOR_WEIGHT || r.plan.region[i] != TSR_REGION_IMAGE) continue;
        bool whole = false;
        for (const tessera::GraphStep &st : r.graph.token.steps)
            for (uint32_t k = 0; k < st.operand_count; ++k)
                if (st.operands[k] == i && st.op != TSR_OP_EMBED) whole = true;
        needed += whole ? double(t.bytes) : double(t.bytes) / t.rows;
    }
    bool checked = false;
    for (const tessera::RunEstimate &e : r.estimates)
        if (!e.prompt) {
            EXPECT_NEAR(e.per_token(e.offchip_bytes), needed, 0.05 * needed) << "token at " << e.pos;
            std::printf("MEASURED off-chip bytes a token at position %u: estimate %.0f, weights read there %.0f\n", e.pos,
                        e.per_token(e.offchip_bytes), needed);
            checked = true;
        }
    EXPECT_TRUE(checked);
}

TEST_F(SplitPlan, GeneratesWhatTheModelGeneratesWithEveryWeightOnChip)
{
    auto split = open_model(o, 4, o.board);
    ASSERT_EQ(split->status, TESSERA_OK) << tessera_last_error(&split->session);
    tessera::PackOptions host = stories260k_int8(shared, "host", "cluster", temp_path("host.tess"));
    auto all = open_model(host, 4);
    ASSERT_EQ(all->status, TESSERA_OK) << tessera_last_error(&all->session);
    const std::vector<int32_t> a = generate_greedy(*split, {1}, 40), b = generate_greedy(*all, {1}, 40);
    EXPECT_EQ(a.size(), 40u);
    EXPECT_EQ(a, b);
}

} // namespace
