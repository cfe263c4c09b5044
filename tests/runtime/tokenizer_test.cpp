// The device tokenizer against llama2.c's encodings (golden, from run.c) and
// against hand-worked cases on a synthetic vocabulary.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

#include <nlohmann/json.hpp>

#include "../runtime/src/tokenizer.h"
#include "support/device_tokenizer.h"
#include "support/reference_tokenizer.h"
#include "support/synthetic_model.h"
#include "tessera/pack/image_writer.h"

namespace {

using tessera::test::shared_dir;

tessera::Vocabulary synthetic_vocabulary(const tessera::test::TokenizerSpec &spec)
{
    const std::string path = tessera::test::temp_path("tok" + std::to_string(spec.vocab_size) + ".bin");
    tessera::test::write_tokenizer(path, spec);
    return tessera::read_llama2c_tokenizer(path, uint32_t(spec.vocab_size));
}

using tessera::test::DeviceTokenizer;

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
    std::vector<uint32_t> work(1024);
    tsr::Message err(msg, sizeof msg);
    const tsr::EncodeOptions opt{true, false, 1, 2, 64, merge, reinterpret_cast<uint8_t *>(work.data()), 4096};
    EXPECT_EQ(tsr::tokenizer_encode(tok_->view(), opt, "xyzzy", ids, 3, &n, err), TESSERA_ERR_BUFFER_TOO_SMALL);
    EXPECT_NE(std::string(msg).find("token array of 3 entries is too small for the 7 tokens"), std::string::npos) << msg;
    // What merges away needs no room: " the" splits into 5 symbols and ends as 2 tokens.
    EXPECT_EQ(tsr::tokenizer_encode(tok_->view(), opt, "the", ids, 2, &n, err), TESSERA_OK) << msg;
    EXPECT_EQ(n, 2u);
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

// Issue 7, first reproducer: a 10-piece vocabulary has no byte pieces; run.c's
// byte + 3 ran past it (a stack overflow in the merge loop).
TEST(TokenizerEdgeCases, VocabularyWithoutBytePiecesRefusesWhatItCannotSpell)
{
    tessera::test::TokenizerSpec spec;
    spec.vocab_size = 10;
    spec.byte_pieces = false;
    DeviceTokenizer tok(synthetic_vocabulary(spec), 32);
    ASSERT_EQ(tok.status(), TESSERA_OK);
    tessera_status st;
    std::string msg;
    EXPECT_TRUE(tok.encode("zzz", true, false, &st, &msg).empty());
    EXPECT_EQ(st, TESSERA_ERR_UNENCODABLE_TEXT);
    EXPECT_EQ(msg, "text byte 0x7a at offset 0 has no piece, and the vocabulary has no byte piece for it");
    tok.encode("bad z", true, false, &st, &msg);
    EXPECT_EQ(msg, "text byte 0x7a at offset 4 has no piece, and the vocabulary has no byte piece for it");
    // Pieces: <unk> <s> </s> " " a b c d e h.
    EXPECT_EQ(tok.encode("bad"), (std::vector<int32_t>{1, 3, 5, 4, 7}));
}

// Issue 7, item 4: without a " " piece the dummy prefix is one more character of
// the text (here its byte piece), not a reason to refuse the tokenizer.
TEST(TokenizerEdgeCases, DummyPrefixWithoutASpacePieceIsEncodedAsAnyCharacter)
{
    tessera::test::TokenizerSpec spec;
    spec.space_piece = false;
    DeviceTokenizer tok(synthetic_vocabulary(spec), 32);
    ASSERT_EQ(tok.status(), TESSERA_OK);
    const int32_t th = tsr::tokenizer_lookup(tok.view(), "th"), e = tsr::tokenizer_lookup(tok.view(), "e");
    ASSERT_GE(th, 0);
    // " the": <0x20> (id 0x20 + 3), then t h e, where "th" outscores "he" and "the" is no piece.
    EXPECT_EQ(tok.encode("the"), (std::vector<int32_t>{1, 0x20 + 3, th, e}));
    EXPECT_EQ(tok.decode(tok.encode("the")), " the"); // run.c strips a piece's space after BOS, not a byte's
    EXPECT_EQ(tok.encode(""), (std::vector<int32_t>{1}));

    spec.vocab_size = 10;
    spec.byte_pieces = false;
    DeviceTokenizer neither(synthetic_vocabulary(spec), 32);
    tessera_status st;
    std::string msg;
    neither.encode("a", true, false, &st, &msg);
    EXPECT_EQ(st, TESSERA_ERR_UNENCODABLE_TEXT);
    EXPECT_EQ(msg, "the dummy-prefix space before the text has no piece, and the vocabulary has no byte piece for it");
    EXPECT_EQ(neither.encode(""), (std::vector<int32_t>{1})); // from BOS alone it runs
}

// On sentencepiece exports the "<0xXX>" piece of byte b is id b + 3, as run.c assumes.
TEST(TokenizerEdgeCases, BytePiecesOfTheRealVocabulariesAreWhereRunCLooks)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    for (const auto &[file, size] : {std::pair<const char *, uint32_t>{"tok512.bin", 512}, {"tokenizer.bin", 32000}}) {
        DeviceTokenizer tok(shared + "/models/" + file, size);
        for (int b = 0; b < 256; ++b) {
            char name[8];
            std::snprintf(name, sizeof name, "<0x%02X>", b);
            EXPECT_EQ(tsr::tokenizer_lookup(tok.view(), name), b + 3) << file << " " << name;
        }
    }
}

// Texts made to merge a lot: vocabulary pieces, spaces, ASCII, UTF-8 and stray bytes.
std::string random_text(std::mt19937 &rng, const tessera::Vocabulary &v, size_t bytes)
{
    static const char *extra[] = {" ", "  ", "\n", "é", "\xF0\x9F\x98\x80", "\x80", "\xC3", "\xFF", "x", "Q"};
    std::string text;
    while (text.size() < bytes) {
        const uint32_t pick = rng() % 8u;
        if (pick < 5u) {
            const std::string &p = v.pieces[rng() % v.pieces.size()];
            if (p.find('<') == std::string::npos) text += p; // not the specials or byte pieces' names
        } else {
            text += extra[rng() % (sizeof extra / sizeof *extra)];
        }
    }
    return text;
}

void expect_same_as_reference(DeviceTokenizer &tok, uint32_t texts, size_t max_bytes, uint32_t seed)
{
    std::mt19937 rng(seed);
    const tessera::test::ReferenceTokenizer reference(tok.vocab());
    for (uint32_t i = 0; i < texts; ++i) {
        const std::string text = random_text(rng, tok.vocab(), 1 + rng() % max_bytes);
        const bool bos = rng() % 4u != 0u, eos = rng() % 4u == 0u;
        const auto want = reference.encode(text, bos, eos);
        tessera_status st;
        const auto got = tok.encode(text, bos, eos, &st);
        if (!want) {
            EXPECT_EQ(st, TESSERA_ERR_UNENCODABLE_TEXT) << "text: " << text;
            continue;
        }
        ASSERT_EQ(st, TESSERA_OK) << "text: " << text;
        ASSERT_EQ(got, *want) << "text #" << i << ": " << text;
    }
}

// The heap merge makes the same merges as run.c's rescans, in the same order.
TEST(TokenizerVsReference, RandomTextsOnTheRealVocabularies)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    DeviceTokenizer small(shared + "/models/tok512.bin", 512, 4096);
    expect_same_as_reference(small, 300, 400, 7);
    DeviceTokenizer llama(shared + "/models/tokenizer.bin", 32000, 4096);
    expect_same_as_reference(llama, 150, 300, 8);
}

// Every string of 1..4 letters over {a, b, c, " "} is a piece, and scores tie,
// repeat, fall at or below run.c's -1e10 floor or are NaN: ties, chains and
// refusals everywhere.
TEST(TokenizerVsReference, AdversarialScoresAndTies)
{
    for (uint32_t seed = 1; seed <= 6; ++seed) {
        tessera::Vocabulary v;
        v.pieces = {"<unk>", "\n<s>\n", "\n</s>\n"};
        const char letters[] = {'a', 'b', 'c', ' '};
        std::vector<std::string> level = {""};
        for (int len = 1; len <= 4; ++len) {
            std::vector<std::string> longer;
            for (const auto &p : level)
                for (char c : letters) longer.push_back(p + c);
            v.pieces.insert(v.pieces.end(), longer.begin(), longer.end());
            level = longer;
        }
        std::mt19937 rng(seed);
        const float choices[] = {0.0f, -1.0f, -1.0f, -2.0f, -3.0f, 5.0f, -1e10f, -2e10f,
                                 std::numeric_limits<float>::quiet_NaN()};
        v.scores.resize(v.pieces.size());
        for (auto &x : v.scores) x = choices[rng() % (sizeof choices / sizeof *choices)];
        v.max_token_length = 6;
        DeviceTokenizer tok(v, 2048);
        ASSERT_EQ(tok.status(), TESSERA_OK);
        expect_same_as_reference(tok, 200, 300, seed);
    }
}

// Issue 7, item 5: a text too long for the context is refused from its length
// alone, before any merging, whatever its size.
TEST(TokenizerLimits, TextLongerThanTheContextIsRefusedBeforeMerging)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    DeviceTokenizer tok(shared + "/models/tok512.bin", 512, 512);
    tessera_status st;
    std::string msg;
    tok.encode(std::string(100000, 'x'), true, false, &st, &msg);
    EXPECT_EQ(st, TESSERA_ERR_CONTEXT_FULL);
    EXPECT_EQ(msg, "text too long for the context of 512 tokens: it splits into more than 3584 symbols before merging");
}

TEST(TokenizerLimits, TheContextBoundsTokensNotSymbols)
{
    DeviceTokenizer tok(synthetic_vocabulary({}), 8);
    // 13 symbols (BOS, then " the" three times, letter by letter) merge into 4 tokens.
    const int32_t the = tsr::tokenizer_lookup(tok.view(), " the");
    EXPECT_EQ(tok.encode("the the the"), (std::vector<int32_t>{1, the, the, the}));
    tessera_status st;
    std::string msg;
    tok.encode("the the the the the the the the", true, false, &st, &msg);
    EXPECT_EQ(st, TESSERA_ERR_CONTEXT_FULL);
    EXPECT_EQ(msg, "text encodes to 9 tokens; the context holds 8");
}

} // namespace
