// Tiling into L1 and static memory planning: stories260K at five L1 sizes (golden
// ids, kernels checked to see only L1), arenas against their lower bounds, the
// smallest-L1 refusal, the report and the memory-map picture.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>

#include <nlohmann/json.hpp>
#include <tinyxml2.h>

#include "support/golden.h"
#include "support/packed_image.h"
#include "support/synthetic_model.h"

namespace {

using namespace tessera::test;

std::vector<int32_t> golden_ids(const std::string &shared)
{
    return tessera::test::golden_ids(shared + "/golden/stories260K.greedy200.txt");
}

std::vector<int32_t> greedy(OpenModel &m, uint32_t steps) { return generate_greedy(m, {1}, steps); }

void expect_within_one_percent(const tessera::MemoryPlan &plan, const std::string &what)
{
    for (uint32_t r : {uint32_t(TSR_REGION_L1), uint32_t(TSR_REGION_L2)}) {
        const auto &p = plan.regions[r];
        EXPECT_GE(p.arena_bytes, p.lower_bound) << what << " " << tsr_region_name(r);
        EXPECT_LE(double(p.arena_bytes), 1.01 * double(p.lower_bound)) << what << " " << tsr_region_name(r);
        EXPECT_LE(p.arena_bytes, p.capacity) << what << " " << tsr_region_name(r);
        for (int s : {0, 1}) { // each schedule's slice of the arena, against its own bound
            const std::string slice = what + " " + tsr_region_name(r) + (s ? " token" : " prompt") + " slice";
            EXPECT_GE(p.schedule_arena[s], p.schedule_lower_bound[s]) << slice;
            EXPECT_LE(double(p.schedule_arena[s]), 1.01 * double(p.schedule_lower_bound[s])) << slice;
        }
    }
}

class Stories260KTiled : public ::testing::TestWithParam<uint64_t> {
protected:
    void SetUp() override
    {
        shared_ = shared_dir();
        if (shared_.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
        o_.checkpoint = shared_ + "/models/stories260K.bin";
        o_.tokenizer = shared_ + "/models/tok512.bin";
        o_.output = temp_path("tiled_" + std::to_string(GetParam()) + ".tess");
        o_.l1_bytes = GetParam();
    }
    std::string shared_;
    tessera::PackOptions o_;
};

TEST_P(Stories260KTiled, GreedyIdsMatchGoldenWithKernelsOnlyInL1)
{
    auto m = open_model(o_); // the support library turns the board's L1 check on
    ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
    EXPECT_EQ(greedy(*m, 200), golden_ids(shared_));
}

TEST_P(Stories260KTiled, EveryRegionWithinOnePercentOfItsLowerBound)
{
    const tessera::PackResult r = tessera::pack(o_);
    expect_within_one_percent(r.plan, "stories260K, L1 " + std::to_string(GetParam()));
    EXPECT_EQ(r.plan.regions[TSR_REGION_L1].capacity, GetParam());
}

INSTANTIATE_TEST_SUITE_P(L1Sizes, Stories260KTiled,
                         ::testing::Values(256u * 1024, 128u * 1024, 64u * 1024, 16u * 1024, 8u * 1024));

// stories260K in int8 (8 query heads over 4 KV heads) on 8 cores, its KV caches staged
// through a small L1 (24 KiB: chunks of 64 positions, 4 attention cores; 64 KiB: 256
// positions, 8 cores): prompts run as chunks of rows (a round's rows of a head read the
// keys and values one core gathered, rounds straddle heads, the last is partial; the
// second prompt's positions span two chunks) give each row the logits its token gives
// run alone, bit for bit.
class PromptRowsTiled : public ::testing::TestWithParam<uint64_t> {};

TEST_P(PromptRowsTiled, EachRowsLogitsAreItsTokensRunAlone)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    tessera::PackOptions o =
        stories260k_int8(shared, "host", "cluster", temp_path("prompt_rows_" + std::to_string(GetParam()) + ".tess"));
    o.l1_bytes = GetParam();
    o.prompt_logits_all = true;
    auto m = open_model(o, 8);
    ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
    std::vector<int32_t> ids = {1};
    for (int i = 0; i < 84; ++i) ids.push_back(int32_t(3 + (i * 97) % 500));
    const size_t first_end = 13, second_begin = 73; // prompts: ids[0, 13) and ids[73, 84)
    auto logits_of = [&](uint32_t row) {
        const float *l = nullptr;
        uint32_t rows = 0;
        EXPECT_EQ(tessera_logits(&m->session, row, &l, &rows), TESSERA_OK);
        return l ? std::vector<float>(l, l + 512) : std::vector<float>();
    };
    std::vector<std::vector<float>> by_rows, alone;
    ASSERT_EQ(tessera_prompt(&m->session, ids.data(), uint32_t(first_end)), TESSERA_OK) << tessera_last_error(&m->session);
    for (uint32_t r = 0; r < first_end; ++r) by_rows.push_back(logits_of(r));
    for (size_t i = first_end; i < second_begin; ++i) ASSERT_EQ(tessera_step(&m->session, ids[i]), TESSERA_OK);
    ASSERT_EQ(tessera_prompt(&m->session, ids.data() + second_begin, uint32_t(ids.size() - second_begin)), TESSERA_OK)
        << tessera_last_error(&m->session);
    for (uint32_t r = 0; r < ids.size() - second_begin; ++r) by_rows.push_back(logits_of(r));

    tessera_reset(&m->session);
    ASSERT_EQ(tessera_prompt(&m->session, ids.data(), 1u), TESSERA_OK);
    alone.push_back(logits_of(TESSERA_LAST_ROW));
    for (size_t i = 1; i < ids.size(); ++i) {
        ASSERT_EQ(tessera_step(&m->session, ids[i]), TESSERA_OK) << tessera_last_error(&m->session);
        if (i < first_end || i >= second_begin) alone.push_back(logits_of(TESSERA_LAST_ROW));
    }
    ASSERT_EQ(by_rows.size(), alone.size());
    for (size_t r = 0; r < alone.size(); ++r) EXPECT_EQ(by_rows[r], alone[r]) << "prompt row " << r;
}

INSTANTIATE_TEST_SUITE_P(L1Sizes, PromptRowsTiled, ::testing::Values(24u * 1024, 64u * 1024));

TEST(Tiling, TooSmallL1NamesTheOperatorAndTheL1ItNeedsWhichSuffices)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    tessera::PackOptions o;
    o.checkpoint = shared + "/models/stories260K.bin";
    o.tokenizer = shared + "/models/tok512.bin";
    o.output = temp_path("too_small.tess");
    o.l1_bytes = 2048;
    std::string message;
    try {
        tessera::pack(o);
    } catch (const tessera::PlanError &e) {
        message = e.what();
    }
    std::smatch m;
    ASSERT_TRUE(std::regex_search(message, m, std::regex("operator '([^']+)' \\(([a-z_]+), (prompt|token) schedule\\) "
                                                         "needs at least ([0-9]+) bytes")))
        << message;
    EXPECT_FALSE(std::filesystem::exists(o.output)) << "a refused plan must not leave an image";
    // The L1 it names is enough for the whole model.
    o.l1_bytes = std::stoull(m[4]);
    auto model = open_model(o);
    ASSERT_EQ(model->status, TESSERA_OK) << tessera_last_error(&model->session);
    EXPECT_EQ(greedy(*model, 200), golden_ids(shared));
}

// TinyLLama-v0's shape, the model of the Deeploy paper: dim 64, 8 layers, 16 heads,
// FFN 256, vocab 32000, context 256; random weights written here.
tessera::PackOptions tinyllama_v0_shape()
{
    const SyntheticConfig c = tinyllama_v0_config();
    tessera::PackOptions o;
    o.checkpoint = temp_path("tinyllama_v0.bin");
    o.tokenizer = temp_path("tinyllama_v0.tok");
    write_legacy_checkpoint(o.checkpoint, c, make_weights(c));
    write_tokenizer(o.tokenizer, c.vocab_size);
    return o;
}

TEST(Tiling, TinyLlamaV0ShapedPlansWithinOnePercent)
{
    tessera::PackOptions o = tinyllama_v0_shape();
    for (uint64_t l1 : {0ull, 256ull * 1024, 64ull * 1024, 16ull * 1024}) {
        o.l1_bytes = l1;
        o.output = temp_path("tinyllama_v0.tess");
        const tessera::PackResult r = tessera::pack(o);
        expect_within_one_percent(r.plan, "TinyLlama-v0 shape, L1 " + std::to_string(l1));
    }
    auto m = open_model(o); // the 16 KiB plan runs, kernels only in L1
    ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
    EXPECT_EQ(greedy(*m, 8).size(), 8u);
}

TEST(Tiling, TinyLlamaV0ShapeInInt8PacksForSiracusaAtContext256WithA256KiBKvCache)
{
    // Calibrated on its own greedy and sampled output (the packer's default).
    tessera::PackOptions o = tinyllama_v0_shape();
    o.board = "siracusa";
    o.precision = tessera::Precision::kInt8;
    o.output = temp_path("tinyllama_v0_int8_siracusa.tess");
    const tessera::PackResult r = tessera::pack(o);
    uint64_t kv = 0;
    for (const auto &t : r.graph.tensors)
        if (t.kind == TSR_TENSOR_KV_CACHE) kv += t.bytes;
    EXPECT_EQ(kv, 256u * 1024); // 2 x 8 layers x 256 positions x 64, one byte each
    // Each int8 matmul's requantization table (its cores read an entry a column) is held in
    // L1 and stored once: the prompt's step and the token's read the same tensor.
    std::map<std::string, uint32_t> tables;
    for (const tessera::GraphSchedule *sch : {&r.graph.prompt, &r.graph.token})
        for (const tessera::GraphStep &st : sch->steps) {
            const uint32_t t = st.params.matmul.requant;
            if (st.op != TSR_OP_MATMUL || t >= r.graph.tensors.size() || !r.graph.tensors[t].name.ends_with(".requant"))
                continue;
            EXPECT_EQ(r.plan.region[t], TSR_REGION_L1) << r.graph.tensors[t].name;
            const auto [it, first] = tables.emplace(st.label, t);
            if (!first) EXPECT_EQ(it->second, t) << st.label << ": a table for each schedule";
        }
    EXPECT_EQ(tables.size(), 8u * 4u); // Q K V, O, W1 W3, W2: four matmuls a layer
    const uint64_t l2 = r.plan.regions[TSR_REGION_L2].arena_bytes;
    EXPECT_LE(l2, r.plan.regions[TSR_REGION_L2].capacity);
    std::printf("MEASURED TinyLlama-v0 shape, int8, siracusa, context 256: KV cache %llu bytes; L2 %llu of %llu bytes; "
                "L1 %llu; weights %llu bytes %s\n", (unsigned long long)kv, (unsigned long long)l2,
                (unsigned long long)r.plan.regions[TSR_REGION_L2].capacity,
                (unsigned long long)r.plan.regions[TSR_REGION_L1].arena_bytes, (unsigned long long)r.plan.weights_bytes,
                r.plan.weights_in_place ? "in place from the image" : "in L2");
    auto m = open_model(o, 0, "siracusa");
    ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
    EXPECT_EQ(greedy(*m, 8).size(), 8u);
}

TEST(Tiling, TinyLlamaV0ShapeFitsSiracusaAtItsFullContextAndGeneratesAsOnTheHost)
{
    // Logits only for the prompt chunk's last row: the model of the paper fits
    // Siracusa's 2 MiB L2 in fp32 with its context of 256 (it asked for 3.4 MiB when
    // every row of a chunk had logits).
    tessera::PackOptions o = tinyllama_v0_shape();
    o.board = "siracusa";
    o.output = temp_path("tinyllama_v0_siracusa.tess");
    const tessera::PackResult r = tessera::pack(o);
    EXPECT_LE(r.plan.regions[TSR_REGION_L2].arena_bytes, 2u * 1024 * 1024);
    expect_within_one_percent(r.plan, "TinyLlama-v0 shape on siracusa");
    auto on_siracusa = open_model(o, 0, "siracusa");
    ASSERT_EQ(on_siracusa->status, TESSERA_OK) << tessera_last_error(&on_siracusa->session);
    tessera_image_summary summary;
    ASSERT_EQ(tessera_image_summary_of(&on_siracusa->session, &summary), TESSERA_OK);
    EXPECT_EQ(summary.context, 256u);

    o.board = "host";
    o.output = temp_path("tinyllama_v0_host.tess");
    tessera::pack(o);
    auto on_host = open_model(o);
    ASSERT_EQ(on_host->status, TESSERA_OK) << tessera_last_error(&on_host->session);

    // From BOS, and after a 21-token prompt (two chunks, the second partial): the
    // prompt's last-row logits pick the first generated token.
    std::vector<int32_t> prompt = {1};
    for (int i = 0; i < 20; ++i) prompt.push_back(int32_t(3 + (i * 1543) % 31990));
    for (const auto &p : {std::vector<int32_t>{1}, prompt}) {
        tessera_reset(&on_host->session);
        tessera_reset(&on_siracusa->session);
        const auto host_ids = generate_greedy(*on_host, p, 64);
        ASSERT_EQ(host_ids.size(), 64u);
        EXPECT_EQ(generate_greedy(*on_siracusa, p, 64), host_ids) << "prompt of " << p.size() << " tokens";
    }
}

// The weights L1 has room for beside the arena stay there from open (copied once, not
// streamed at every step): the constants the cores read, then the whole-read weights,
// the smaller first; never per-channel scales; the token then streams fewer bytes, and
// generates what the plan without them generates. --weights-in l2 holds none.
TEST(Tiling, WeightsL1HasRoomForStayThereAndTheIdsDoNotChange)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    tessera::PackOptions held = stories260k_int8(shared, "siracusa", "cluster", temp_path("held.tess"));
    tessera::PackOptions none = held;
    none.weights = tessera::WeightsPlacement::kL2;
    none.output = temp_path("not_held.tess");
    const tessera::PackResult a = tessera::pack(held), b = tessera::pack(none);
    ASSERT_GT(a.plan.l1_weights_bytes, 0u);
    EXPECT_EQ(b.plan.l1_weights_bytes, 0u);
    EXPECT_EQ(a.plan.regions[TSR_REGION_L1].weights_bytes, a.plan.l1_weights_bytes);
    EXPECT_LE(a.plan.regions[TSR_REGION_L1].arena_bytes, a.plan.regions[TSR_REGION_L1].capacity);
    uint64_t in_l1 = 0;
    for (size_t i = 0; i < a.graph.tensors.size(); ++i) {
        const tessera::GraphTensor &t = a.graph.tensors[i];
        if (t.kind != TSR_TENSOR_WEIGHT || a.plan.region[i] != TSR_REGION_L1) continue;
        in_l1 += t.bytes;
        EXPECT_NE(t.name.find(".scales"), t.name.size() - 7) << t.name << ": per-channel scales no core reads";
        EXPECT_NE(t.name, "token_embedding") << "a table the embedding reads a row of";
    }
    EXPECT_GT(in_l1, 0u);
    EXPECT_LE(in_l1, a.plan.l1_weights_bytes);
    EXPECT_LT(a.plan.dma_bytes_per_token[1], b.plan.dma_bytes_per_token[1]);
    auto x = open_model(held, 4, "siracusa"), y = open_model(none, 4, "siracusa");
    ASSERT_EQ(x->status, TESSERA_OK) << tessera_last_error(&x->session);
    ASSERT_EQ(y->status, TESSERA_OK) << tessera_last_error(&y->session);
    EXPECT_EQ(greedy(*x, 60), greedy(*y, 60));
}

TEST(Tiling, ReportAndMemoryMap)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    tessera::PackOptions o;
    o.checkpoint = shared + "/models/stories260K.bin";
    o.tokenizer = shared + "/models/tok512.bin";
    o.output = temp_path("report.tess");
    o.report = temp_path("report.json");
    o.memory_map = temp_path("report.svg");
    o.l1_bytes = 16384;
    const tessera::PackResult r = tessera::pack(o);

    std::ifstream in(o.report);
    const auto j = nlohmann::json::parse(in);
    for (const char *region : {"L1", "L2"}) {
        EXPECT_EQ(j["regions"][region]["arena_bytes"], r.plan.regions[std::string(region) == "L1" ? 1 : 2].arena_bytes);
        EXPECT_TRUE(j["regions"][region]["lower_bound_bytes"].is_number());
    }
    for (const char *schedule : {"prompt", "token"}) {
        EXPECT_GT(j["schedules"][schedule]["dma_bytes_per_token"].get<uint64_t>(), 0u);
        for (const auto &step : j["schedules"][schedule]["steps"]) {
            EXPECT_TRUE(step.contains("tile") && step.contains("dma_bytes")) << step.dump();
            if (step["op"] == "matmul") {
                EXPECT_GE(step["tile"]["rows"].get<int>(), 1);
                EXPECT_GE(step["tile"]["cols"].get<int>(), 1);
            }
        }
    }

    tinyxml2::XMLDocument svg;
    ASSERT_EQ(svg.LoadFile(o.memory_map.c_str()), tinyxml2::XML_SUCCESS) << svg.ErrorStr();
    const tinyxml2::XMLElement *root = svg.RootElement();
    ASSERT_NE(root, nullptr);
    EXPECT_STREQ(root->Name(), "svg");
    EXPECT_STREQ(root->Attribute("xmlns"), "http://www.w3.org/2000/svg");
    int panels = 0, rects = 0, bounds = 0, capacities = 0, ticks = 0, legend = 0;
    auto title_of = [](const tinyxml2::XMLElement *e) {
        const tinyxml2::XMLElement *t = e->FirstChildElement("title");
        return std::string(t && t->GetText() ? t->GetText() : "");
    };
    for (auto *g = root->FirstChildElement("g"); g; g = g->NextSiblingElement("g")) {
        if (std::string(g->Attribute("id")) == "legend") {
            for (auto *e = g->FirstChildElement("rect"); e; e = e->NextSiblingElement("rect")) ++legend;
            continue;
        }
        ++panels;
        for (auto *e = g->FirstChildElement("rect"); e; e = e->NextSiblingElement("rect")) {
            ++rects;
            EXPECT_GE(e->DoubleAttribute("width"), 0.0);
            EXPECT_GE(e->DoubleAttribute("height"), 0.0);
        }
        for (auto *e = g->FirstChildElement("line"); e; e = e->NextSiblingElement("line")) {
            bounds += title_of(e).rfind("lower bound ", 0) == 0;
            capacities += title_of(e).rfind("capacity ", 0) == 0;
        }
        for (auto *e = g->FirstChildElement("text"); e; e = e->NextSiblingElement("text"))
            ticks += e->Attribute("text-anchor") && std::string(e->Attribute("text-anchor")) == "end"; // axis labels
    }
    EXPECT_EQ(panels, 2);     // L1 and L2
    EXPECT_EQ(bounds, 2);     // a lower-bound line each
    EXPECT_GE(capacities, 1); // L1's capacity is near its plan here
    EXPECT_GE(ticks, 2 * 3);  // byte ticks on each address axis
    EXPECT_EQ(legend, 7);     // a swatch per kind of buffer
    size_t buffers = 0;
    for (size_t i = 0; i < r.graph.tensors.size(); ++i)
        buffers += r.graph.tensors[i].kind != TSR_TENSOR_WEIGHT && r.plan.region[i] != TSR_REGION_IMAGE;
    EXPECT_GE(size_t(rects), buffers); // one per buffer, plus frames
}

TEST(HostBoardL1Check, AKernelOperandOutsideL1StopsTheProgramLoudly)
{
    auto board = tessera::HostBoard::create(tessera::load_board_desc("host"), 1);
    board->check_l1(true);
    const tsr_hal_board *hal = board->hal();
    ASSERT_NE(hal->ops->check_kernel_operand, nullptr);
    hal->ops->check_kernel_operand(hal->ctx, hal->regions[TSR_REGION_L1].base + 64, 256, TSR_OP_MATMUL, 1); // fine
    EXPECT_DEATH(hal->ops->check_kernel_operand(hal->ctx, hal->regions[TSR_REGION_L2].base, 256, TSR_OP_MATMUL, 1),
                 "L1 check failed: operand 1 of op 3");
    // Straddling the end of L1 is outside too.
    const uint32_t l1 = hal->regions[TSR_REGION_L1].size;
    EXPECT_DEATH(hal->ops->check_kernel_operand(hal->ctx, hal->regions[TSR_REGION_L1].base + l1 - 8, 16, TSR_OP_ADD, 0),
                 "lies outside L1");
    board->check_l1(false);
    EXPECT_EQ(board->hal()->ops->check_kernel_operand, nullptr);
}

} // namespace

namespace {

// A board whose DMA is its core (board.json dma.by_core, as mps3-an547): the plan stages
// nothing a kernel may read where it lies, so the weights and the activations moved to
// L2 are read there, and the header says so; with a small L1 and the host board's L1
// check on (every other operand still in L1), stories260K gives the golden ids.
TEST(Tiling, ABoardWhoseCoreCopiesReadsOperandsInPlaceAndGivesTheGoldenIds)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    nlohmann::json d;
    std::ifstream(std::string(TESSERA_SOURCE_DIR) + "/boards/host/board.json") >> d;
    d["name"] = "host-by-core";
    d["dma"]["by_core"] = true;
    const std::string board = temp_path("host_by_core.json");
    std::ofstream(board) << d.dump(2);
    tessera::PackOptions o;
    o.checkpoint = shared + "/models/stories260K.bin";
    o.tokenizer = shared + "/models/tok512.bin";
    o.output = temp_path("by_core.tess");
    o.board = board;
    o.l1_bytes = 16384;
    const tessera::PackResult r = tessera::pack(o);
    uint32_t staged = 0, matmuls = 0;
    for (const tessera::GraphSchedule *sch : {&r.graph.prompt, &r.graph.token})
        for (const tessera::GraphStep &st : sch->steps) {
            if (st.op != TSR_OP_MATMUL) continue;
            ++matmuls;
            for (uint32_t k = 0; k < TSR_MAX_OPERANDS; ++k) staged += st.staging[k] != TSR_NO_TENSOR;
        }
    EXPECT_GT(matmuls, 0u);
    EXPECT_EQ(staged, 0u) << "a matmul operand staged on a board whose core would copy it";
    EXPECT_TRUE(r.plan.operands_in_place);
    auto m = open_model(o, 0, board); // the support library turns the board's L1 check on
    ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
    EXPECT_EQ(greedy(*m, 200), golden_ids(shared));

    // The same board without by_core stages the weights through L1.
    d["dma"].erase("by_core");
    std::ofstream(board) << d.dump(2);
    o.output = temp_path("by_dma.tess");
    const tessera::PackResult staged_plan = tessera::pack(o);
    EXPECT_FALSE(staged_plan.plan.operands_in_place);
    uint32_t staged_weights = 0;
    for (const tessera::GraphStep &st : staged_plan.graph.token.steps)
        if (st.op == TSR_OP_MATMUL) staged_weights += st.staging[1] != TSR_NO_TENSOR;
    EXPECT_GT(staged_weights, 0u);
}

} // namespace
