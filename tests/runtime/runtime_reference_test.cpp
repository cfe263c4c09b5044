// The whole runtime (packer -> image -> host board -> both run modes) against an
// independent double-precision forward pass, on synthetic checkpoints.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "support/packed_image.h"
#include "support/reference_llama.h"
#include "support/synthetic_model.h"
#include "tessera/models/llama2c.h"

namespace {

using namespace tessera::test;

struct Variant {
    const char *name;
    SyntheticConfig config;
    bool v1_format;
    uint32_t prompt_chunk;
    tessera::WeightsPlacement weights;
};

SyntheticConfig config(int heads, int kv_heads, bool shared, uint32_t seed)
{
    SyntheticConfig c;
    c.n_heads = heads;
    c.n_kv_heads = kv_heads;
    c.shared_classifier = shared;
    c.seed = seed;
    return c;
}

void PrintTo(const Variant &v, std::ostream *os) { *os << v.name; }

// Largest |got - want| relative to the reference logits' range.
double error_over_range(const float *got, const std::vector<double> &want)
{
    const auto [lo, hi] = std::minmax_element(want.begin(), want.end());
    double worst = 0;
    for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(double(got[i]) - want[i]));
    return worst / (*hi - *lo);
}

class RuntimeVsReference : public ::testing::TestWithParam<Variant> {
protected:
    void SetUp() override
    {
        const Variant &v = GetParam();
        weights_ = make_weights(v.config);
        ckpt_ = temp_path(std::string(v.name) + ".bin");
        tok_ = temp_path(std::string(v.name) + ".tok");
        if (v.v1_format) write_v1_checkpoint(ckpt_, v.config, weights_);
        else write_legacy_checkpoint(ckpt_, v.config, weights_);
        write_tokenizer(tok_, v.config.vocab_size);
        std::mt19937 rng(v.config.seed);
        for (int i = 0; i < v.config.seq_len; ++i) tokens_.push_back(int32_t(3 + rng() % uint32_t(v.config.vocab_size - 3)));
        ReferenceLlama ref(v.config, weights_);
        for (int32_t t : tokens_) expected_.push_back(ref.forward(t));
    }
    tessera::PackOptions options(uint32_t context = 0, bool prompt_logits_all = false) const
    {
        tessera::PackOptions o;
        o.prompt_logits_all = prompt_logits_all;
        o.checkpoint = ckpt_;
        o.tokenizer = tok_;
        o.context = context;
        o.prompt_chunk = GetParam().prompt_chunk;
        o.weights = GetParam().weights;
        o.output = temp_path(std::string(GetParam().name) + ".tess");
        return o;
    }
    // Largest |got - want| relative to the reference logit range at that position.
    double relative_error(const float *got, size_t pos) const { return error_over_range(got, expected_[pos]); }

    SyntheticWeights weights_;
    std::string ckpt_, tok_;
    std::vector<int32_t> tokens_;
    std::vector<std::vector<double>> expected_;
};

TEST_P(RuntimeVsReference, TokenModeMatchesReferenceAtEveryPosition)
{
    auto m = open_model(options());
    ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
    for (size_t pos = 0; pos < tokens_.size(); ++pos) {
        ASSERT_EQ(tessera_step(&m->session, tokens_[pos]), TESSERA_OK) << tessera_last_error(&m->session);
        const float *logits = nullptr;
        ASSERT_EQ(tessera_logits(&m->session, TESSERA_LAST_ROW, &logits, nullptr), TESSERA_OK);
        EXPECT_LT(relative_error(logits, pos), 1e-4) << "position " << pos;
    }
    EXPECT_EQ(tessera_position(&m->session), tokens_.size());
}

TEST_P(RuntimeVsReference, PromptModeMatchesReferenceOnEveryRow)
{
    auto m = open_model(options(0, true)); // --prompt-logits all
    ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
    const uint32_t chunk = GetParam().prompt_chunk;
    for (size_t start = 0; start < tokens_.size(); start += chunk) {
        const uint32_t n = uint32_t(std::min<size_t>(chunk, tokens_.size() - start));
        ASSERT_EQ(tessera_prompt(&m->session, tokens_.data() + start, n), TESSERA_OK) << tessera_last_error(&m->session);
        for (uint32_t r = 0; r < n; ++r) {
            const float *logits = nullptr;
            uint32_t rows = 0;
            ASSERT_EQ(tessera_logits(&m->session, r, &logits, &rows), TESSERA_OK);
            EXPECT_EQ(rows, n);
            EXPECT_LT(relative_error(logits, start + r), 1e-4) << "position " << start + r;
        }
    }
}

TEST_P(RuntimeVsReference, LongPromptThenStepsContinuesTheSameSequence)
{
    auto m = open_model(options());
    ASSERT_EQ(m->status, TESSERA_OK);
    const uint32_t split = 17; // several chunks, the last one partial
    ASSERT_EQ(tessera_prompt(&m->session, tokens_.data(), split), TESSERA_OK);
    const float *logits = nullptr;
    ASSERT_EQ(tessera_logits(&m->session, TESSERA_LAST_ROW, &logits, nullptr), TESSERA_OK);
    EXPECT_LT(relative_error(logits, split - 1), 1e-4);
    for (size_t pos = split; pos < tokens_.size(); ++pos) {
        ASSERT_EQ(tessera_step(&m->session, tokens_[pos]), TESSERA_OK);
        ASSERT_EQ(tessera_logits(&m->session, TESSERA_LAST_ROW, &logits, nullptr), TESSERA_OK);
        EXPECT_LT(relative_error(logits, pos), 1e-4) << "position " << pos;
    }
}

// Nor on which steps core 0 runs alone (tsr_hal_board.solo_bytes): 2048 bytes makes the
// small steps solo and the matmuls shared, so shared steps follow solo ones; the
// board's default makes every step of these small models solo.
TEST_P(RuntimeVsReference, LogitsDoNotDependOnThreadCount)
{
    std::vector<std::vector<float>> runs;
    const std::pair<uint32_t, uint32_t> boards[] = {{1u, 0u}, {2u, 0u}, {8u, 0u}, {2u, 2048u}, {8u, 2048u},
                                                    {2u, tessera::HostBoard::kDefaultSoloBytes}};
    for (const auto &[threads, solo_bytes] : boards) {
        auto m = open_model(options(), threads, "", solo_bytes);
        ASSERT_EQ(m->status, TESSERA_OK);
        EXPECT_EQ(m->board->hal()->core_count, threads);
        std::vector<float> all;
        ASSERT_EQ(tessera_prompt(&m->session, tokens_.data(), 10), TESSERA_OK);
        for (size_t pos = 10; pos < 20; ++pos) {
            ASSERT_EQ(tessera_step(&m->session, tokens_[pos]), TESSERA_OK);
            const float *logits = nullptr;
            tessera_logits(&m->session, TESSERA_LAST_ROW, &logits, nullptr);
            all.insert(all.end(), logits, logits + GetParam().config.vocab_size);
        }
        runs.push_back(all);
    }
    EXPECT_TRUE(runs[0] == runs[1]) << "1 vs 2 threads";
    EXPECT_TRUE(runs[0] == runs[2]) << "1 vs 8 threads";
    EXPECT_TRUE(runs[0] == runs[3]) << "1 vs 2 threads, small steps solo";
    EXPECT_TRUE(runs[0] == runs[4]) << "1 vs 8 threads, small steps solo";
    EXPECT_TRUE(runs[0] == runs[5]) << "1 vs 2 threads, the board's default";
}

INSTANTIATE_TEST_SUITE_P(
    Models, RuntimeVsReference,
    ::testing::Values(Variant{"gqa_shared_legacy", config(4, 2, true, 1), false, 7, tessera::WeightsPlacement::kAuto},
                      Variant{"mha_unshared_legacy", config(4, 4, false, 2), false, 16, tessera::WeightsPlacement::kImage},
                      Variant{"mqa_unshared_v1", config(4, 1, false, 3), true, 1, tessera::WeightsPlacement::kL2},
                      Variant{"gqa_shared_v1", config(8, 2, true, 4), true, 40, tessera::WeightsPlacement::kAuto}),
    [](const auto &info) { return std::string(info.param.name); });

// Session behaviour at the edges: context, bad ids, reset.
class SessionEdges : public ::testing::Test {
protected:
    void SetUp() override
    {
        c_.seq_len = 12;
        const auto w = make_weights(c_);
        tessera::PackOptions o;
        o.checkpoint = temp_path("edges.bin");
        o.tokenizer = temp_path("edges.tok");
        o.prompt_chunk = 5;
        write_legacy_checkpoint(o.checkpoint, c_, w);
        write_tokenizer(o.tokenizer, c_.vocab_size);
        m_ = open_model(o);
        ASSERT_EQ(m_->status, TESSERA_OK);
    }
    SyntheticConfig c_;
    std::unique_ptr<OpenModel> m_;
};

TEST_F(SessionEdges, ContextFullLeavesThePositionAlone)
{
    std::vector<int32_t> ids(13, 5);
    EXPECT_EQ(tessera_prompt(&m_->session, ids.data(), 13), TESSERA_ERR_CONTEXT_FULL);
    EXPECT_NE(std::string(tessera_last_error(&m_->session)).find("exceeds the context of 12"), std::string::npos);
    EXPECT_EQ(tessera_position(&m_->session), 0u);
    ASSERT_EQ(tessera_prompt(&m_->session, ids.data(), 12), TESSERA_OK);
    EXPECT_EQ(tessera_step(&m_->session, 5), TESSERA_ERR_CONTEXT_FULL);
    EXPECT_EQ(tessera_position(&m_->session), 12u);
}

TEST_F(SessionEdges, BadTokenIdsAreRefusedBeforeRunning)
{
    const int32_t ids[] = {1, 300, 4};
    EXPECT_EQ(tessera_prompt(&m_->session, ids, 3), TESSERA_ERR_BAD_TOKEN);
    EXPECT_NE(std::string(tessera_last_error(&m_->session)).find("token 1 has id 300"), std::string::npos)
        << tessera_last_error(&m_->session);
    EXPECT_EQ(tessera_step(&m_->session, -3), TESSERA_ERR_BAD_TOKEN);
    EXPECT_EQ(tessera_position(&m_->session), 0u);
}

TEST_F(SessionEdges, ResetForgetsTheSequenceAndRepeatsExactly)
{
    const float *logits = nullptr;
    EXPECT_EQ(tessera_logits(&m_->session, 0, &logits, nullptr), TESSERA_ERR_NO_LOGITS);
    const int32_t ids[] = {1, 40, 41, 42};
    ASSERT_EQ(tessera_prompt(&m_->session, ids, 4), TESSERA_OK);
    // Packed as by default, the prompt leaves logits for its last token only.
    uint32_t rows = 0;
    EXPECT_EQ(tessera_logits(&m_->session, 1, &logits, nullptr), TESSERA_ERR_NO_LOGITS);
    ASSERT_EQ(tessera_logits(&m_->session, 0, &logits, &rows), TESSERA_OK);
    EXPECT_EQ(rows, 1u);
    const std::vector<float> first(logits, logits + c_.vocab_size);
    ASSERT_EQ(tessera_reset(&m_->session), TESSERA_OK);
    EXPECT_EQ(tessera_position(&m_->session), 0u);
    EXPECT_EQ(tessera_logits(&m_->session, 0, &logits, nullptr), TESSERA_ERR_NO_LOGITS);
    ASSERT_EQ(tessera_prompt(&m_->session, ids, 4), TESSERA_OK);
    ASSERT_EQ(tessera_logits(&m_->session, TESSERA_LAST_ROW, &logits, nullptr), TESSERA_OK);
    EXPECT_TRUE(std::vector<float>(logits, logits + c_.vocab_size) == first);
}

TEST_F(SessionEdges, ClosedSessionRefusesWork)
{
    tessera_close(&m_->session);
    EXPECT_EQ(tessera_step(&m_->session, 1), TESSERA_ERR_NOT_OPEN);
    int32_t token;
    tessera_sampler s;
    tessera_sampler_init(&s, 0, 0, 1);
    EXPECT_EQ(tessera_sample(&m_->session, &s, &token), TESSERA_ERR_NOT_OPEN);
}

} // namespace

namespace {

// llama2.c's version-2 checkpoint (Q8_0) of the real stories260K, made the way its
// export.py makes one: it packs, and runs as the double-precision reference does on
// the weights runq.c would dequantize.
TEST(Llama2cVersionTwo, Stories260KWithGroupSize4RunsAsTheReferenceOnItsDequantizedWeights)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    const auto fp32 = tessera::read_llama2c_checkpoint(shared + "/models/stories260K.bin");
    SyntheticConfig c;
    const tessera::LlamaConfig &k = fp32.config;
    c.dim = int(k.dim), c.hidden_dim = int(k.hidden_dim), c.n_layers = int(k.n_layers), c.n_heads = int(k.n_heads);
    c.n_kv_heads = int(k.n_kv_heads), c.vocab_size = int(k.vocab_size), c.seq_len = int(k.seq_len);
    c.shared_classifier = k.shared_classifier;
    const tessera::LlamaWeights &f = fp32.weights;
    const SyntheticWeights w{f.token_embedding, f.rms_att, f.wq, f.wk, f.wv, f.wo, f.rms_ffn,
                             f.w1,              f.w2,      f.w3, f.rms_final, f.wcls};

    tessera::PackOptions o;
    o.checkpoint = temp_path("stories260K_q80.bin");
    o.tokenizer = shared + "/models/tok512.bin";
    o.output = temp_path("stories260K_q80.tess");
    const SyntheticWeights dequantized = write_v2_checkpoint(o.checkpoint, c, w, 4);
    EXPECT_NE(dequantized.wq, w.wq) << "Q8_0 changes the weights";
    auto m = open_model(o);
    ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);

    ReferenceLlama ref(c, dequantized);
    int32_t token = 1; // BOS, then greedy on the runtime's logits
    for (uint32_t pos = 0; pos < 64; ++pos) {
        ASSERT_EQ(tessera_step(&m->session, token), TESSERA_OK) << tessera_last_error(&m->session);
        const std::vector<double> want = ref.forward(token);
        const float *got = nullptr;
        ASSERT_EQ(tessera_logits(&m->session, TESSERA_LAST_ROW, &got, nullptr), TESSERA_OK);
        EXPECT_LT(error_over_range(got, want), 1e-4) << "position " << pos;
        token = int32_t(std::max_element(got, got + want.size()) - got);
    }

    // export.py's default group size, 64, divides dim 64 but not hidden_dim 172.
    write_v2_checkpoint(o.checkpoint, c, w, 64);
    try {
        tessera::pack(o);
        ADD_FAILURE() << "a group size of 64 was packed";
    } catch (const std::exception &e) {
        EXPECT_NE(std::string(e.what()).find("Q8_0 group size 64 does not divide hidden_dim 172"), std::string::npos)
            << e.what();
    }
}

} // namespace

namespace {

// bf16 rounding done here, by arithmetic on the value (not on its bits): keep 8
// significant bits, ties to even.
float bf16_rounded(float v)
{
    if (v == 0.0f || !std::isfinite(v)) return v;
    int e = 0;
    const double m = std::frexp(double(v), &e);     // v = m 2^e, 0.5 <= |m| < 1
    const double q = std::nearbyint(std::ldexp(m, 8)); // 8 significant bits (round half to even)
    return float(std::ldexp(q, e - 8));
}

// --weight-type bf16: matmul weights stored, streamed and multiplied as bf16. The
// runtime must compute what the double-precision reference computes with those
// weights, at any L1 size; the embedding (shared with the classifier) stays fp32.
TEST(Bf16Weights, RunsAsTheReferenceOnBf16RoundedWeightsAtAnyL1Size)
{
    for (bool shared : {true, false}) {
        SyntheticConfig c = config(4, 2, shared, 17);
        const SyntheticWeights w = make_weights(c);
        SyntheticWeights rounded = w;
        for (auto *t : {&rounded.wq, &rounded.wk, &rounded.wv, &rounded.wo, &rounded.w1, &rounded.w2, &rounded.w3})
            for (float &v : *t) v = bf16_rounded(v);
        if (!shared)
            for (float &v : rounded.wcls) v = bf16_rounded(v);
        EXPECT_NE(rounded.wq, w.wq);

        tessera::PackOptions o;
        o.checkpoint = temp_path("bf16w.bin");
        o.tokenizer = temp_path("bf16w.tok");
        write_legacy_checkpoint(o.checkpoint, c, w);
        write_tokenizer(o.tokenizer, c.vocab_size);
        o.weight_type = tessera::WeightType::kBf16;
        for (uint64_t l1 : {0ull, 8ull * 1024}) {
            o.l1_bytes = l1;
            o.output = temp_path("bf16w.tess");
            auto m = open_model(o);
            ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
            ReferenceLlama ref(c, rounded);
            std::mt19937 rng(c.seed);
            for (int pos = 0; pos < c.seq_len; ++pos) {
                const int32_t token = int32_t(3 + rng() % uint32_t(c.vocab_size - 3));
                ASSERT_EQ(tessera_step(&m->session, token), TESSERA_OK) << tessera_last_error(&m->session);
                const std::vector<double> want = ref.forward(token);
                const float *got = nullptr;
                ASSERT_EQ(tessera_logits(&m->session, TESSERA_LAST_ROW, &got, nullptr), TESSERA_OK);
                ASSERT_LT(error_over_range(got, want), 1e-4) << "position " << pos << ", L1 " << l1 << ", shared " << shared;
            }
        }
    }
}

} // namespace
