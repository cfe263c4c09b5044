// Reading llama2.c checkpoints and tokenizers: every format variant, and clear
// errors for files that are not what they claim.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/synthetic_model.h"
#include "tessera/models/llama2c.h"

namespace {

using namespace tessera::test;

void expect_same(const std::vector<float> &a, const std::vector<float> &b, const char *what)
{
    ASSERT_EQ(a.size(), b.size()) << what;
    EXPECT_TRUE(a == b) << what;
}

void expect_weights(const tessera::LlamaWeights &got, const SyntheticWeights &w)
{
    expect_same(got.token_embedding, w.token_embedding, "embedding");
    expect_same(got.rms_att, w.rms_att, "rms_att");
    expect_same(got.wq, w.wq, "wq");
    expect_same(got.wk, w.wk, "wk");
    expect_same(got.wv, w.wv, "wv");
    expect_same(got.wo, w.wo, "wo");
    expect_same(got.rms_ffn, w.rms_ffn, "rms_ffn");
    expect_same(got.w1, w.w1, "w1");
    expect_same(got.w2, w.w2, "w2");
    expect_same(got.w3, w.w3, "w3");
    expect_same(got.rms_final, w.rms_final, "rms_final");
    expect_same(got.wcls, w.wcls, "wcls");
}

std::string error_of(const std::string &path)
{
    try {
        tessera::read_llama2c_checkpoint(path);
    } catch (const tessera::InputError &e) {
        return e.what();
    }
    return "";
}

TEST(Llama2cReader, LegacySharedAndUnshared)
{
    for (bool shared : {true, false}) {
        SyntheticConfig c;
        c.shared_classifier = shared;
        const auto w = make_weights(c);
        const std::string path = temp_path(shared ? "legacy_shared.bin" : "legacy_unshared.bin");
        write_legacy_checkpoint(path, c, w);
        const auto ck = tessera::read_llama2c_checkpoint(path);
        EXPECT_EQ(ck.format, "llama2.c legacy");
        EXPECT_EQ(ck.config.dim, 32u);
        EXPECT_EQ(ck.config.n_kv_heads, 2u);
        EXPECT_EQ(ck.config.vocab_size, 300u);
        EXPECT_EQ(ck.config.shared_classifier, shared);
        expect_weights(ck.weights, w);
    }
}

TEST(Llama2cReader, VersionOneAk42)
{
    for (bool shared : {true, false}) {
        SyntheticConfig c;
        c.shared_classifier = shared;
        const auto w = make_weights(c);
        const std::string path = temp_path("v1.bin");
        write_v1_checkpoint(path, c, w);
        const auto ck = tessera::read_llama2c_checkpoint(path);
        EXPECT_EQ(ck.format, "llama2.c v1 (ak42)");
        EXPECT_EQ(ck.config.shared_classifier, shared);
        expect_weights(ck.weights, w);
    }
}

TEST(Llama2cReader, VersionTwoQ8_0IsDequantizedAsRunqDoes)
{
    for (bool shared : {true, false})
        for (int group : {4, 16}) {
            SyntheticConfig c; // dim 32, hidden 48
            c.shared_classifier = shared;
            auto w = make_weights(c);
            // One group by hand: max |w| = 1, scale 1/127; 0.5 * 127 = 63.5 rounds to even 64.
            const float group0[] = {0.5f, -1.0f, 0.25f, 1.0f};
            std::copy(group0, group0 + 4, w.token_embedding.begin());
            for (int i = 4; i < group; ++i) w.token_embedding[size_t(i)] = 0.0f;
            const std::string path = temp_path("v2.bin");
            const SyntheticWeights dequantized = write_v2_checkpoint(path, c, w, group);
            const auto ck = tessera::read_llama2c_checkpoint(path);
            EXPECT_EQ(ck.format, "llama2.c v2 (ak42, Q8_0, group size " + std::to_string(group) + ")");
            EXPECT_EQ(ck.config.shared_classifier, shared);
            expect_weights(ck.weights, dequantized);
            const float scale = 1.0f / 127.0f;
            EXPECT_EQ(ck.weights.token_embedding[0], 64.0f * scale);
            EXPECT_EQ(ck.weights.token_embedding[1], -127.0f * scale);
            EXPECT_EQ(ck.weights.token_embedding[2], 32.0f * scale); // 31.75 rounds to 32
            EXPECT_EQ(ck.weights.token_embedding[3], 127.0f * scale);
            EXPECT_EQ(ck.weights.rms_att, w.rms_att) << "norms stay fp32";
        }
}

TEST(Llama2cReader, VersionTwoGroupSizeMustDivideDimAndHiddenDim)
{
    SyntheticConfig c; // dim 32, hidden 48: 32 divides dim but not hidden_dim, as export.py allows
    const auto w = make_weights(c);
    const std::string path = temp_path("v2_bad_group.bin");
    write_v2_checkpoint(path, c, w, 32);
    EXPECT_NE(error_of(path).find("Q8_0 group size 32 does not divide hidden_dim 48"), std::string::npos)
        << error_of(path);
    write_v2_checkpoint(path, c, w, 0);
    EXPECT_NE(error_of(path).find("group_size = 0 (at byte 37) must be positive"), std::string::npos) << error_of(path);
    write_v2_checkpoint(path, c, w, 8);
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 3);
    EXPECT_NE(error_of(path).find("llama2.c v2 (ak42, Q8_0, group size 8) checkpoint"), std::string::npos)
        << error_of(path);
    EXPECT_NE(error_of(path).find("(truncated)"), std::string::npos) << error_of(path);
}

TEST(Llama2cReader, TruncatedAndTrailingBytesAreNamed)
{
    SyntheticConfig c;
    const auto w = make_weights(c);
    const std::string path = temp_path("cut.bin");
    write_legacy_checkpoint(path, c, w);
    const auto size = std::filesystem::file_size(path);
    std::filesystem::resize_file(path, size - 100);
    EXPECT_NE(error_of(path).find("(truncated)"), std::string::npos) << error_of(path);
    std::filesystem::resize_file(path, size + 4);
    EXPECT_NE(error_of(path).find("(trailing bytes)"), std::string::npos) << error_of(path);
    std::filesystem::resize_file(path, 10);
    EXPECT_NE(error_of(path).find("too short"), std::string::npos) << error_of(path);
}

TEST(Llama2cReader, BadHeaderFieldsAreNamed)
{
    const std::string path = temp_path("bad.bin");
    auto write_header = [&](std::vector<int32_t> h) {
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char *>(h.data()), std::streamsize(h.size() * 4));
    };
    write_header({32, 48, 2, 5, 5, 300, 40});
    EXPECT_NE(error_of(path).find("head size"), std::string::npos) << error_of(path);
    write_header({32, 48, 2, 4, 3, 300, 40});
    EXPECT_NE(error_of(path).find("n_kv_heads"), std::string::npos) << error_of(path);
    write_header({32, 48, 0, 4, 4, 300, 40});
    EXPECT_NE(error_of(path).find("n_layers = 0"), std::string::npos) << error_of(path);
    write_header({0x616b3432, 3, 0, 0, 0, 0, 0});
    std::filesystem::resize_file(path, 256);
    EXPECT_NE(error_of(path).find("ak42 checkpoint version 3 is not supported (version 1, fp32, and version 2, Q8_0)"),
              std::string::npos)
        << error_of(path);
    EXPECT_NE(error_of(temp_path("does_not_exist.bin")).find("cannot open"), std::string::npos);
}

TEST(Llama2cReader, NonFiniteWeightIsNamed)
{
    SyntheticConfig c;
    auto w = make_weights(c);
    w.wo[3] = std::numeric_limits<float>::quiet_NaN();
    const std::string path = temp_path("nan.bin");
    write_legacy_checkpoint(path, c, w);
    EXPECT_NE(error_of(path).find("tensor wo has a non-finite value at element 3"), std::string::npos) << error_of(path);
}

TEST(Llama2cReader, TokenizerSizeMismatchAndTruncation)
{
    const std::string path = temp_path("tok.bin");
    write_tokenizer(path, 300);
    EXPECT_EQ(tessera::read_llama2c_tokenizer(path, 300).pieces.size(), 300u);
    try {
        tessera::read_llama2c_tokenizer(path, 512);
        FAIL() << "no error for a vocabulary size mismatch";
    } catch (const tessera::InputError &e) {
        EXPECT_NE(std::string(e.what()).find("has 300 tokens, the model's vocabulary is 512"), std::string::npos);
    }
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 3);
    EXPECT_THROW(tessera::read_llama2c_tokenizer(path, 300), tessera::InputError);
}

TEST(Llama2cReader, RealStories260K)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    const auto ck = tessera::read_llama2c_checkpoint(shared + "/models/stories260K.bin");
    // Shapes listed in ../shared/golden/README.md.
    EXPECT_EQ(ck.config.dim, 64u);
    EXPECT_EQ(ck.config.hidden_dim, 172u);
    EXPECT_EQ(ck.config.n_layers, 5u);
    EXPECT_EQ(ck.config.n_heads, 8u);
    EXPECT_EQ(ck.config.n_kv_heads, 4u);
    EXPECT_EQ(ck.config.vocab_size, 512u);
    EXPECT_EQ(ck.config.seq_len, 512u);
    EXPECT_TRUE(ck.config.shared_classifier);
}

} // namespace
