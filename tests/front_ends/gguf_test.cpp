// GGUF input: the stories260K GGUF (a public conversion of stories260K.bin) reads to
// the same weights and vocabulary as the llama2.c files and packs, with no
// --tokenizer, to the golden ids; files the test writes (versions 1 and 3, every
// tensor type) read back as ggml dequantizes them; a Q8_0 model packs and runs; and
// every kind of bad file is refused with its one-line message.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/gguf_writer.h"
#include "support/golden.h"
#include "support/tool_run.h"
#include "support/packed_image.h"
#include "support/synthetic_model.h"
#include "tessera/models/gguf.h"

namespace {

using namespace tessera::test;

class Gguf : public ::testing::Test {
protected:
    void SetUp() override
    {
        shared_ = shared_dir();
        if (shared_.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found: ../shared/models is needed";
        ck_ = tessera::read_llama2c_checkpoint(shared_ + "/models/stories260K.bin");
        vocab_ = tessera::read_llama2c_tokenizer(shared_ + "/models/tok512.bin", ck_.config.vocab_size);
    }
    std::string write(const std::string &name, const std::vector<uint8_t> &bytes) const
    {
        const std::string path = temp_path(name);
        std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
        return path;
    }
    std::string shared_;
    tessera::LlamaCheckpoint ck_;
    tessera::Vocabulary vocab_;
};

TEST_F(Gguf, Stories260KHasTheWeightsAndVocabularyOfTheLlama2cFiles)
{
    const tessera::GgufModel g = tessera::read_gguf(shared_ + "/models/stories260K.gguf");
    const tessera::LlamaConfig &c = g.checkpoint.config;
    EXPECT_EQ(g.checkpoint.format, "GGUF v3");
    EXPECT_EQ(c.dim, 64u);
    EXPECT_EQ(c.hidden_dim, 172u);
    EXPECT_EQ(c.n_layers, 5u);
    EXPECT_EQ(c.n_heads, 8u);
    EXPECT_EQ(c.n_kv_heads, 4u);
    EXPECT_EQ(c.vocab_size, 512u);
    EXPECT_EQ(c.seq_len, 2048u) << "the file's claim (the model was trained on 512 positions)";
    EXPECT_TRUE(c.shared_classifier) << "output.weight equals token_embd.weight";
    const tessera::LlamaWeights &a = g.checkpoint.weights, &b = ck_.weights;
    EXPECT_EQ(a.token_embedding, b.token_embedding);
    EXPECT_EQ(a.rms_att, b.rms_att);
    EXPECT_EQ(a.wq, b.wq);
    EXPECT_EQ(a.wk, b.wk);
    EXPECT_EQ(a.wv, b.wv);
    EXPECT_EQ(a.wo, b.wo);
    EXPECT_EQ(a.rms_ffn, b.rms_ffn);
    EXPECT_EQ(a.w1, b.w1);
    EXPECT_EQ(a.w2, b.w2);
    EXPECT_EQ(a.w3, b.w3);
    EXPECT_EQ(a.rms_final, b.rms_final);
    EXPECT_EQ(g.vocabulary.pieces, vocab_.pieces);
    EXPECT_EQ(g.vocabulary.scores, vocab_.scores);
    EXPECT_EQ(g.vocabulary.max_token_length, vocab_.max_token_length);
}

TEST_F(Gguf, Stories260KPacksWithItsOwnTokenizerToTheGoldenIds)
{
    tessera::PackOptions o;
    o.checkpoint = shared_ + "/models/stories260K.gguf";
    o.output = temp_path("gguf_stories.tess");
    auto m = open_model(o);
    ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
    EXPECT_EQ(generate_greedy(*m, {1}, 200), golden_ids(shared_ + "/golden/stories260K.greedy200.txt"));
    tessera_close(&m->session);
}

uint32_t every_type(const std::string &name)
{
    if (name.find("attn_q") != std::string::npos) return kGgufF16;
    if (name.find("attn_k") != std::string::npos) return kGgufBF16;
    if (name.find("attn_v") != std::string::npos) return kGgufQ8_0;
    if (name.find("ffn_gate") != std::string::npos || name.find("ffn_up") != std::string::npos) return kGgufQ4_0;
    return kGgufF32;
}

// Tensors in F16, BF16, Q8_0 and Q4_0 give back, element for element, the values the
// writer's own reference quantizers say the file holds; in version 1 as in version 3.
TEST_F(Gguf, EveryTensorTypeInVersions1And3ReadsAsGgmlDequantizes)
{
    for (uint32_t version : {1u, 3u}) {
        tessera::test::GgufFile f = gguf_from_checkpoint(ck_, vocab_, kGgufF32, every_type);
        f.version = version;
        const tessera::GgufModel g = tessera::parse_gguf(gguf_bytes(f), "every_type.gguf");
        EXPECT_EQ(g.checkpoint.format, "GGUF v" + std::to_string(version) + ", F16, BF16, Q8_0, Q4_0");
        auto expected = [&](const std::string &suffix) {
            std::vector<float> all;
            for (const auto &t : f.tensors)
                if (t.name.size() > suffix.size() && t.name.compare(t.name.size() - suffix.size(), suffix.size(), suffix) == 0)
                    all.insert(all.end(), t.expected.begin(), t.expected.end());
            return all;
        };
        const tessera::LlamaWeights &w = g.checkpoint.weights;
        EXPECT_EQ(w.wq, expected("attn_q.weight")) << "F16, v" << version;
        EXPECT_EQ(w.wk, expected("attn_k.weight")) << "BF16, v" << version;
        EXPECT_EQ(w.wv, expected("attn_v.weight")) << "Q8_0, v" << version;
        EXPECT_EQ(w.w1, expected("ffn_gate.weight")) << "Q4_0, v" << version;
        EXPECT_EQ(w.w3, expected("ffn_up.weight")) << "Q4_0, v" << version;
        EXPECT_EQ(w.w2, ck_.weights.w2) << "F32, v" << version;
        EXPECT_NE(w.wv, ck_.weights.wv) << "Q8_0 is lossy: the test would not see a reader that skipped it";
        EXPECT_EQ(g.vocabulary.pieces, vocab_.pieces);
    }
}

// Hand-made values: a 32-value Q8_0 block whose scale is exactly 0.5 in half precision
// (amax 63.5) reads as q * 0.5; F16 0x3C00 is 1, 0xC000 is -2, 0x0001 is 2^-24.
TEST(GgufByHand, Q8_0AndF16Values)
{
    std::vector<float> x(32);
    for (int i = 0; i < 32; ++i) x[i] = float(i - 16) * 0.5f;
    x[31] = 63.5f; // amax: d = 63.5 / 127 = 0.5
    const GgufTensor q = gguf_tensor("q", {32}, kGgufQ8_0, x.data());
    ASSERT_EQ(q.data.size(), 34u);
    EXPECT_EQ(q.data[0] | (q.data[1] << 8), 0x3800) << "half 0.5";
    EXPECT_EQ(int8_t(q.data[2]), -16);
    EXPECT_EQ(int8_t(q.data[2 + 31]), 127);
    EXPECT_EQ(q.expected[0], -8.0f);
    EXPECT_EQ(q.expected[31], 63.5f);
    const float h[3] = {1.0f, -2.0f, 0x1p-24f};
    const GgufTensor f = gguf_tensor("h", {3}, kGgufF16, h);
    EXPECT_EQ(f.data, (std::vector<uint8_t>{0x00, 0x3C, 0x00, 0xC0, 0x01, 0x00}));
}

// A Q8_0 GGUF of stories260K packs at fp32 and runs; its top-1 agreement with the
// fp32 model, teacher-forced on the golden sequence (tessera-eval), is printed.
TEST_F(Gguf, Q8_0ModelPacksRunsAndAgreesWithFp32)
{
    const std::string path = write("stories260K_q8_0.gguf", gguf_bytes(gguf_from_checkpoint(ck_, vocab_, kGgufQ8_0)));
    tessera::PackOptions o;
    o.checkpoint = path;
    o.context = 512;
    o.prompt_logits_all = true;
    o.output = temp_path("gguf_q8_0.tess");
    tessera::pack(o);
    tessera::PackOptions ref;
    ref.checkpoint = shared_ + "/models/stories260K.bin";
    ref.tokenizer = shared_ + "/models/tok512.bin";
    ref.prompt_logits_all = true;
    ref.output = temp_path("gguf_fp32_ref.tess");
    tessera::pack(ref);
    const nlohmann::json j = eval_json(TESSERA_EVAL_BIN, o.output, golden_ids_file(shared_, true), ref.output);
    ASSERT_FALSE(j.is_null());
    const double agree = j["top1_agreement"], ppl = j["perplexity"], ref_ppl = j["reference_perplexity"];
    std::printf("MEASURED Q8_0 GGUF: top-1 agreement with fp32 %.1f %% over %d positions, perplexity %.6f (fp32 %.6f, "
                "%+.2f %%)\n",
                100.0 * agree, int(j["positions"]), ppl, ref_ppl, 100.0 * (ppl / ref_ppl - 1.0));
    EXPECT_GE(agree, 0.95);
    EXPECT_LT(agree, 1.0 + 1e-9);
}

// Every prefix of a small valid file, and each kind of wrong field, ends in an
// InputError of one line that names the file; none crashes.
TEST_F(Gguf, BadFilesAreRefusedWithOneLineThatSaysWhatAndWhere)
{
    tessera::test::GgufFile f = gguf_from_checkpoint(ck_, vocab_, kGgufF16);
    const std::vector<uint8_t> good = gguf_bytes(f);
    ASSERT_NO_THROW(tessera::parse_gguf(good, "good.gguf"));
    for (size_t n = 0; n < good.size(); n += n < 4096 ? 1 : 997) {
        const std::vector<uint8_t> cut(good.begin(), good.begin() + long(n));
        try {
            tessera::parse_gguf(cut, "cut.gguf");
            ADD_FAILURE() << "a file cut to " << n << " bytes was accepted";
        } catch (const tessera::InputError &e) {
            const std::string what = e.what();
            ASSERT_EQ(what.rfind("cut.gguf: ", 0), 0u) << what;
            ASSERT_EQ(what.find('\n'), std::string::npos) << what;
        }
    }
    auto refused = [&](tessera::test::GgufFile bad, const std::string &message) {
        try {
            tessera::parse_gguf(gguf_bytes(bad), "bad.gguf");
            ADD_FAILURE() << "accepted; wanted: " << message;
        } catch (const tessera::InputError &e) {
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
        }
    };
    tessera::test::GgufFile v = f;
    v.version = 4;
    refused(v, "GGUF version 4 is not one of 1, 2, 3");
    v = f, v.architecture = "gpt2"; // read, but then its own keys are wanted
    refused(v, "bad.gguf: metadata key gpt2.embedding_length is missing");
    v = f, v.architecture = "falcon";
    refused(v, "general.architecture 'falcon' is not one of those read: llama, gpt2");
    v = f, v.architecture = "gp\nt2";
    refused(v, "general.architecture 'gp\\x0At2' is not one of those read: llama, gpt2");
    v = f, v.bos = 5;
    refused(v, "tokenizer.ggml.bos_token_id is 5; the device tokenizer uses 1");
    v = f, v.tensors.erase(v.tensors.begin() + 3);
    refused(v, "tensor blk.0.attn_k.weight is missing");
    v = f, v.tensors[2].dims = {64, 32};
    refused(v, "tensor blk.0.attn_q.weight is 64 x 32 (innermost first); the model needs 64 x 64");
    v = f, v.tensors[2].type = 12; // Q4_K
    refused(v, "tensor blk.0.attn_q.weight has type 12 (?); read are F32, F16, BF16, Q8_0 and Q4_0");
    v = f, v.config.n_kv_heads = 3;
    refused(v, "n_heads 8 is not a multiple of n_kv_heads 3");
    std::vector<uint8_t> nan = good;
    const size_t at = nan.size() - 2; // the last F32 value's high half (output_norm is early; ffn_norm last)
    nan[at] = 0xC0, nan[at + 1] = 0x7F;
    EXPECT_THROW(tessera::parse_gguf(nan, "nan.gguf"), tessera::InputError);
}

} // namespace
