// Off-chip memory in the plan (board.json "offchip"): a model that fits gives the
// same plan and image with or without it (but the description the image embeds and
// its fingerprint); one that does not keeps on chip the constants the cores read and
// the most reused weights, and generates what the same model generates from L2; the
// estimate streams from off-chip memory the weight bytes a token reads there.
#include <gtest/gtest.h>

#include <algorithm>
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

// The token's estimate streams what the token reads off chip: every weight there once,
// an embedding table a row (a table the classifier shares: whole).
void expect_offchip_bytes_are_the_weights_read_there(const tessera::PackResult &r)
{
    double needed = 0;
    for (size_t i = 0; i < r.graph.tensors.size(); ++i) {
        const auto &t = r.graph.tensors[i];
        if (t.kind != TSR_TENSOR_WEIGHT || r.plan.region[i] != TSR_REGION_IMAGE) continue;
        bool whole = false, read = false;
        for (const tessera::GraphStep &st : r.graph.token.steps)
            for (uint32_t k = 0; k < st.operand_count; ++k)
                if (st.operands[k] == i) {
                    read = true;
                    if (st.op != TSR_OP_EMBED) whole = true;
                }
        if (read) needed += whole ? double(t.bytes) : double(t.bytes) / t.rows;
    }
    bool checked = false;
    for (const tessera::RunEstimate &e : r.estimates)
        if (!e.prompt) {
            EXPECT_NEAR(e.per_token(e.offchip_bytes), needed, 0.05 * needed) << "token at " << e.pos;
            // The stream by layer adds up to the run's, and no layer waits longer than its stream.
            double stream = 0, waited = 0;
            for (const auto &[layer, ls] : e.layer_stream) {
                EXPECT_LE(ls.exposed, ls.offchip + 1e-6) << "layer " << layer;
                EXPECT_GE(ls.exposed, ls.offchip - ls.compute - 1e-6) << "layer " << layer;
                stream += ls.offchip, waited += ls.exposed;
            }
            EXPECT_NEAR(stream, e.offchip, 1e-6 * e.offchip);
            EXPECT_NEAR(waited, e.cycles - e.compute_bound, 1e-6 * e.cycles);
            std::printf("MEASURED off-chip bytes a token at position %u: estimate %.0f, weights read there %.0f\n", e.pos,
                        e.per_token(e.offchip_bytes), needed);
            checked = true;
        }
    EXPECT_TRUE(checked);
}

TEST(OffChip, AModelThatFitsGivesTheSamePlanAndImageSections)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    for (const char *precision : {"fp32", "int8"}) {
        tessera::PackOptions with = stories260k_int8(shared, "siracusa", "auto", temp_path("with.tess"));
        with.context = 256; // fp32 at 512 does not fit siracusa's L2 arena: weights would stream
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
    std::vector<bool> scales(r.graph.tensors.size(), false); // per-channel scales: only the packer reads them
    for (const auto &t : r.graph.tensors)
        if (t.quant == TSR_QUANT_PER_CHANNEL) scales.at(t.quant_params) = true;
    uint64_t l1 = 0, l2 = 0, image = 0;
    for (size_t i = 0; i < r.graph.tensors.size(); ++i) {
        const auto &t = r.graph.tensors[i];
        if (t.kind != TSR_TENSOR_WEIGHT) continue;
        if (r.plan.region[i] == TSR_REGION_IMAGE) {
            image += t.bytes;
            EXPECT_TRUE(operand[i] || scales[i]) << t.name << ": a constant the cores read left off chip";
        } else if (r.plan.region[i] == TSR_REGION_L1) { // held in L1 (the memory plan's hold_weights_in_l1)
            l1 += t.bytes;
            EXPECT_FALSE(scales[i]) << t.name << ": per-channel scales, which no core reads, held in L1";
        } else {
            EXPECT_EQ(r.plan.region[i], uint32_t(TSR_REGION_L2)) << t.name;
            l2 += t.bytes;
        }
    }
    EXPECT_LE(l1, r.plan.l1_weights_bytes);
    EXPECT_LE(l2, r.plan.l2_weights_bytes);
    EXPECT_LE(image, r.plan.image_weights_bytes);
    expect_offchip_bytes_are_the_weights_read_there(r);
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

// A stories15M-shaped model (random weights written here) in int8 and in W4A8, its
// embedding table stored once, at context 128: it packs for siracusa, whose L2 arena holds a
// fraction of its weights and whose 16 MiB of HyperRAM hold the rest, and generates on the
// host board the ids of the same precision's image for a board whose L2 holds everything.
TEST(OffChipStories15M, GeneratesOnSiracusaTheIdsOfAnImageWithEveryWeightOnChip)
{
    SyntheticConfig c;
    c.dim = 288, c.hidden_dim = 768, c.n_layers = 6, c.n_heads = 6, c.n_kv_heads = 6, c.vocab_size = 32000, c.seq_len = 256;
    tessera::PackOptions o;
    o.checkpoint = temp_path("stories15m.bin");
    o.tokenizer = temp_path("stories15m.tok");
    o.calibration = temp_path("stories15m.txt");
    write_legacy_checkpoint(o.checkpoint, c, make_weights(c));
    write_tokenizer(o.tokenizer, c.vocab_size);
    std::ofstream(o.calibration) << "Once upon a time there was a cat.\nThe dog ran to the park and played.\n";
    o.precision = tessera::Precision::kInt8;
    o.shared_table_bits = 8;
    o.scenario = tessera::Scenario::kCluster;
    o.context = 128; // its KV cache at 256 (864 KiB) and buffers leave the 1,792 KiB arena no weights
    const std::string big = board_file("siracusa", "siracusa-64mib-l2", nullptr, 64u << 20);
    for (const tessera::WeightType wt : {tessera::WeightType::kFp32, tessera::WeightType::kInt4}) {
        const char *what = wt == tessera::WeightType::kInt4 ? "W4A8" : "int8";
        o.weight_type = wt;
        o.board = "siracusa";
        o.output = temp_path("stories15m_siracusa.tess");
        const tessera::PackResult r = tessera::pack(o);
        EXPECT_GT(r.plan.image_weights_bytes, 8u << 20) << what;
        EXPECT_LE(r.image_bytes, 16u << 20) << what;
        expect_offchip_bytes_are_the_weights_read_there(r);
        auto split = open_model(o, 4, "siracusa");
        ASSERT_EQ(split->status, TESSERA_OK) << what << ": " << tessera_last_error(&split->session);
        tessera::PackOptions all = o;
        all.board = big;
        all.output = temp_path("stories15m_l2.tess");
        auto on_chip = open_model(all, 4, big);
        ASSERT_EQ(on_chip->status, TESSERA_OK) << what << ": " << tessera_last_error(&on_chip->session);
        // A prompt of 20 tokens (two chunks), then 8 tokens, each the argmax of the logits
        // before it (random weights soon repeat one token: the logits are compared too).
        std::vector<int32_t> prompt = {1};
        for (int i = 1; i < 20; ++i) prompt.push_back(int32_t(3 + (i * 7919) % 31990));
        std::vector<int32_t> ids[2];
        OpenModel *models[2] = {split.get(), on_chip.get()};
        std::vector<float> logits[2];
        for (int m = 0; m < 2; ++m) {
            tessera_session *ses = &models[m]->session;
            ASSERT_EQ(tessera_prompt(ses, prompt.data(), 16), TESSERA_OK) << tessera_last_error(ses);
            ASSERT_EQ(tessera_prompt(ses, prompt.data() + 16, 4), TESSERA_OK) << tessera_last_error(ses);
            for (int t = 0; t < 8; ++t) {
                const float *l = nullptr;
                ASSERT_EQ(tessera_logits(ses, TESSERA_LAST_ROW, &l, nullptr), TESSERA_OK);
                logits[m].insert(logits[m].end(), l, l + c.vocab_size);
                ids[m].push_back(int32_t(std::max_element(l, l + c.vocab_size) - l));
                ASSERT_EQ(tessera_step(ses, ids[m].back()), TESSERA_OK) << tessera_last_error(ses);
            }
        }
        EXPECT_EQ(ids[0], ids[1]) << what;
        EXPECT_EQ(0, std::memcmp(logits[0].data(), logits[1].data(), logits[0].size() * sizeof(float))) << what;
        std::printf("MEASURED %s stories15M shape on siracusa: %llu image bytes, %llu weight bytes off chip, ids", what,
                    (unsigned long long)r.image_bytes, (unsigned long long)r.plan.image_weights_bytes);
        for (int32_t id : ids[0]) std::printf(" %d", id);
        std::printf("\n");
    }
}

} // namespace
