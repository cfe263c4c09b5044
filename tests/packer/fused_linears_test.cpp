// Q, K and V as one matmul step, W1 and W3 as one (tessera-pack's default; --no-fuse keeps
// them apart): the same logits bit for bit in every precision, prompt and token runs, on
// one thread and on several, with fewer steps a token.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "support/golden.h"
#include "support/packed_image.h"
#include "support/synthetic_model.h"
#include "support/tool_run.h"

namespace {

using namespace tessera::test;

struct Form {
    const char *name;
    tessera::Precision precision;
    tessera::WeightType weight_type;
    uint64_t l1_bytes = 0; // 0: the host board's; small: the outputs staged, the weights streamed in tiles
};

class FusedLinears : public ::testing::TestWithParam<Form> {
protected:
    void SetUp() override
    {
        shared_ = shared_dir();
        if (shared_.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found: ../shared/models is needed";
    }
    tessera::PackOptions options(bool fuse) const
    {
        tessera::PackOptions o;
        o.checkpoint = shared_ + "/models/stories260K.bin";
        o.tokenizer = shared_ + "/models/tok512.bin";
        o.precision = GetParam().precision;
        o.weight_type = GetParam().weight_type;
        o.board = "host";
        o.context = 64;
        o.prompt_chunk = 8;
        o.fuse_linears = fuse;
        o.l1_bytes = GetParam().l1_bytes;
        o.output = temp_path(std::string("fused_") + GetParam().name + (fuse ? "_on.tess" : "_off.tess"));
        return o;
    }
    std::string shared_;
};

// Every logit of `m`'s last run, as bytes.
std::vector<uint8_t> last_logits(OpenModel &m, uint32_t vocab)
{
    const float *logits = nullptr;
    EXPECT_EQ(tessera_logits(&m.session, TESSERA_LAST_ROW, &logits, nullptr), TESSERA_OK) << tessera_last_error(&m.session);
    if (!logits) return {};
    const uint8_t *b = reinterpret_cast<const uint8_t *>(logits);
    return std::vector<uint8_t>(b, b + size_t(vocab) * 4);
}

TEST_P(FusedLinears, TheSameLogitsAsTheStepsApartInFewerSteps)
{
    const tessera::PackResult fused = tessera::pack(options(true)), apart = tessera::pack(options(false));
    // Per layer, Q, K and V are one step and W1 and W3 another: three steps fewer, in each schedule.
    const size_t layers = fused.graph.hyper.n_layers;
    EXPECT_EQ(fused.graph.token.steps.size() + 3 * layers, apart.graph.token.steps.size());
    EXPECT_EQ(fused.graph.prompt.steps.size() + 3 * layers, apart.graph.prompt.steps.size());
    uint32_t split = 0, staged = 0;
    for (const tessera::GraphSchedule *sch : {&fused.graph.prompt, &fused.graph.token})
        for (const tessera::GraphStep &s : sch->steps)
            if (s.op == TSR_OP_MATMUL && s.params.matmul.split[0]) {
                ++split;
                staged += s.staging[2] != TSR_NO_TENSOR;
                EXPECT_TRUE(s.label.ends_with(".wqkv") || s.label.ends_with(".w13")) << s.label;
            }
    EXPECT_EQ(split, 4 * layers);
    if (GetParam().l1_bytes) EXPECT_GT(staged, 0u) << "a small L1 stages some split outputs";

    const uint32_t vocab = fused.graph.hyper.vocab_size;
    // The golden sequence's first tokens: 11 prompt rows (a whole chunk of 8, then 3), then tokens.
    const std::vector<int32_t> ids = golden_ids(golden_ids_file(shared_, true));
    ASSERT_GE(ids.size(), 30u);
    for (const uint32_t threads : {1u, 4u}) {
        auto a = open_image(load_image(options(true).output), "host", threads);
        auto b = open_image(load_image(options(false).output), "host", threads);
        ASSERT_EQ(a->status, TESSERA_OK) << tessera_last_error(&a->session);
        ASSERT_EQ(b->status, TESSERA_OK) << tessera_last_error(&b->session);
        ASSERT_EQ(tessera_prompt(&a->session, ids.data(), 11), TESSERA_OK) << tessera_last_error(&a->session);
        ASSERT_EQ(tessera_prompt(&b->session, ids.data(), 11), TESSERA_OK) << tessera_last_error(&b->session);
        EXPECT_EQ(last_logits(*a, vocab), last_logits(*b, vocab)) << "after the prompt, " << threads << " threads";
        for (size_t i = 11; i < 30; ++i) {
            ASSERT_EQ(tessera_step(&a->session, ids[i]), TESSERA_OK) << tessera_last_error(&a->session);
            ASSERT_EQ(tessera_step(&b->session, ids[i]), TESSERA_OK) << tessera_last_error(&b->session);
            ASSERT_EQ(last_logits(*a, vocab), last_logits(*b, vocab)) << "position " << i << ", " << threads << " threads";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Forms, FusedLinears,
                         ::testing::Values(Form{"fp32", tessera::Precision::kFp32, tessera::WeightType::kFp32},
                                           Form{"fp32_bf16_weights", tessera::Precision::kFp32, tessera::WeightType::kBf16},
                                           Form{"bf16", tessera::Precision::kBf16, tessera::WeightType::kFp32},
                                           Form{"int8", tessera::Precision::kInt8, tessera::WeightType::kFp32},
                                           Form{"w4a8", tessera::Precision::kInt8, tessera::WeightType::kInt4},
                                           Form{"int8_l1_4096", tessera::Precision::kInt8, tessera::WeightType::kFp32, 4096},
                                           Form{"fp32_l1_8192", tessera::Precision::kFp32, tessera::WeightType::kFp32, 8192}),
                         [](const ::testing::TestParamInfo<Form> &i) { return std::string(i.param.name); });

// The npu scenarios keep them apart: each is an NPU job, which writes one output.
TEST(FusedLinearsScenario, TheNpuScenariosKeepQKAndVApart)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    tessera::PackOptions o = stories260k_int8(shared, "host", "npu", temp_path("fused_npu.tess"));
    const tessera::PackResult r = tessera::pack(o);
    for (const tessera::GraphStep &s : r.graph.token.steps)
        EXPECT_FALSE(s.op == TSR_OP_MATMUL && s.params.matmul.split[0]) << s.label;
}

} // namespace
