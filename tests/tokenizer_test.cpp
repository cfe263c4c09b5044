// The device tokenizer against llama2.c's encodings (golden, from run.c) and
// against hand-worked cases on a synthetic vocabulary.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "../runtime/src/tokenizer.h"
#include "support/synthetic_model.h"
#include "tessera/pack/image_writer.h"

namespace {

using tessera::test::shared_dir;

// A tokenizer section built by the packer, validated and viewed by the runtime.
class DeviceTokenizer {
public:
    DeviceTokenizer(const std::string &path, uint32_t vocab)
    {
        const auto section = tessera::build_tokenizer_section(tessera::read_llama2c_tokenizer(path, vocab));
        storage_.assign(section.size() / 4 + 1, 0);
        std::memcpy(storage_.data(), section.data(), section.size());
        char msg[160];
        tsr::Message err(msg, sizeof msg);
        status_ = tsr::read_tokenizer_section(reinterpret_cast<const uint8_t *>(storage_.data()),
                                              uint32_t(section.size()), vocab, &view_, err);
        space_ = tsr::tokenizer_lookup(view_, " ");
    }
    tessera_status status() const { return status_; }
    std::vector<int32_t> encode(const std::string &text, bool bos = true, bool eos = false)
    {
        std::vector<int32_t> ids(text.size() + 3);
        uint32_t n = 0;
        char msg[160];
        tsr::Message err(msg, sizeof msg);
        const tsr::EncodeOptions opt{bos, eos, 1, 2, space_, merge_};
        EXPECT_EQ(tsr::tokenizer_encode(view_, opt, text.c_str(), ids.data(), uint32_t(ids.size()), &n, err), TESSERA_OK);
        ids.resize(n);
        return ids;
    }
    std::string decode(const std::vector<int32_t> &ids)
    {
        std::string out;
        for (size_t i = 1; i < ids.size(); ++i) {
            uint32_t len = 0;
            const char *p = tsr::tokenizer_decode(view_, 1, ids[i - 1], ids[i], &len);
            out.append(p, len);
        }
        return out;
    }
    const tsr::TokenizerView &view() const { return view_; }

private:
    std::vector<uint32_t> storage_;
    tsr::TokenizerView view_{};
    tessera_status status_;
    int32_t space_ = -1;
    char merge_[2 * TSR_MAX_TOKEN_BYTES + 4];
};

TEST(Tokenizer, ReproducesLlama2GoldenEncodings)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found: llama2 tokenizer golden data missing";
    DeviceTokenizer tok(shared + "/models/tokenizer.bin", 32000);
    ASSERT_EQ(tok.status(), TESSERA_OK);
    std::ifstream in(shared + "/golden/llama2_tokenizer.encode.jsonl");
    ASSERT_TRUE(in) << "missing " << shared << "/golden/llama2_tokenizer.encode.jsonl";
    int cases = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.empty()) continue;
        const auto j = nlohmann::json::parse(line);
        const std::string text = j["text"];
        const auto want = j["ids"].get<std::vector<int32_t>>();
        const auto got = tok.encode(text, j["bos"], j["eos"]);
        EXPECT_EQ(got, want) << "text: " << text;
        EXPECT_EQ(tok.decode(got), text) << "decode(encode(x)) != x for: " << text;
        ++cases;
    }
    EXPECT_EQ(cases, 5);
}

TEST(Tokenizer, Stories260KPromptMatchesGolden)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    DeviceTokenizer tok(shared + "/models/tok512.bin", 512);
    // ../shared/golden/README.md: the prompt encodes to 1 317 269 274 287 263 377 267 265.
    EXPECT_EQ(tok.encode("Lily and Tom went to the"), (std::vector<int32_t>{1, 317, 269, 274, 287, 263, 377, 267, 265}));
}

class SyntheticTokenizer : public ::testing::Test {
protected:
    void SetUp() override
    {
        path_ = tessera::test::temp_path("tok300.bin");
        tessera::test::write_tokenizer(path_, 300);
        tok_ = std::make_unique<DeviceTokenizer>(path_, 300);
        ASSERT_EQ(tok_->status(), TESSERA_OK);
    }
    int32_t id(const char *piece) { return tsr::tokenizer_lookup(tok_->view(), piece); }
    std::string path_;
    std::unique_ptr<DeviceTokenizer> tok_;
};

TEST_F(SyntheticTokenizer, EmptyTextIsJustBos)
{
    EXPECT_EQ(tok_->encode(""), std::vector<int32_t>{1});
    EXPECT_EQ(tok_->encode("", false, true), std::vector<int32_t>{2});
}

TEST_F(SyntheticTokenizer, MergesByBestScore)
{
    // " the": dummy prefix " " + t,h,e; merges " t"/"th"/"he" compete; earlier
    // pieces score higher, and the chain ends in " the".
    EXPECT_EQ(tok_->encode("the"), (std::vector<int32_t>{1, id(" the")}));
    EXPECT_EQ(tok_->encode("hello", true, true), (std::vector<int32_t>{1, id(" "), id("he"), id("ll"), id("o"), 2}));
}

TEST_F(SyntheticTokenizer, UnknownCharactersFallBackToBytes)
{
    // U+1F600 is F0 9F 98 80: no piece, four byte tokens (byte + 3).
    const auto ids = tok_->encode("a\xF0\x9F\x98\x80");
    EXPECT_EQ(ids, (std::vector<int32_t>{1, id(" "), id("a"), 0xF0 + 3, 0x9F + 3, 0x98 + 3, 0x80 + 3}));
    EXPECT_EQ(tok_->decode(ids), "a\xF0\x9F\x98\x80"); // the dummy prefix vanishes after BOS
}

TEST_F(SyntheticTokenizer, DecodeDropsLeadingSpaceOnlyAfterBos)
{
    uint32_t len = 0;
    const char *p = tsr::tokenizer_decode(tok_->view(), 1, 1, id(" the"), &len);
    EXPECT_EQ(std::string(p, len), "the");
    p = tsr::tokenizer_decode(tok_->view(), 1, id("a"), id(" the"), &len);
    EXPECT_EQ(std::string(p, len), " the");
    p = tsr::tokenizer_decode(tok_->view(), 1, id("a"), 13, &len); // <0x0A>
    EXPECT_EQ(std::string(p, len), "\n");
    EXPECT_EQ(tsr::tokenizer_decode(tok_->view(), 1, 1, 300, &len), nullptr);
    EXPECT_EQ(tsr::tokenizer_decode(tok_->view(), 1, 1, -1, &len), nullptr);
}

TEST_F(SyntheticTokenizer, TooSmallOutputArrayIsAnError)
{
    int32_t ids[3];
    uint32_t n = 0;
    char msg[160], merge[2 * TSR_MAX_TOKEN_BYTES + 4];
    tsr::Message err(msg, sizeof msg);
    const tsr::EncodeOptions opt{true, false, 1, 2, id(" "), merge};
    EXPECT_EQ(tsr::tokenizer_encode(tok_->view(), opt, "xyzzy", ids, 3, &n, err), TESSERA_ERR_BUFFER_TOO_SMALL);
    EXPECT_NE(std::string(msg).find("too small"), std::string::npos);
}

TEST(TokenizerSection, RejectsPieceOutOfBounds)
{
    const std::string path = tessera::test::temp_path("tok_bad.bin");
    tessera::test::write_tokenizer(path, 300);
    auto section = tessera::build_tokenizer_section(tessera::read_llama2c_tokenizer(path, 300));
    tsr_tokenizer_header h;
    std::memcpy(&h, section.data(), sizeof h);
    tsr_token_entry e;
    std::memcpy(&e, section.data() + h.entries_offset + 5 * sizeof e, sizeof e);
    e.offset = h.strings_size; // past the strings block
    std::memcpy(section.data() + h.entries_offset + 5 * sizeof e, &e, sizeof e);
    std::vector<uint32_t> storage(section.size() / 4 + 1);
    std::memcpy(storage.data(), section.data(), section.size());
    tsr::TokenizerView view;
    char msg[160];
    tsr::Message err(msg, sizeof msg);
    EXPECT_EQ(tsr::read_tokenizer_section(reinterpret_cast<const uint8_t *>(storage.data()), uint32_t(section.size()), 300,
                                          &view, err),
              TESSERA_ERR_IMAGE_BAD_TOKENIZER);
    EXPECT_NE(std::string(msg).find("token 5"), std::string::npos) << msg;
}

} // namespace
