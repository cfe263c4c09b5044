// The device's byte-level BPE encoding (runtime/src/byte_level_encode.cpp) against ids
// worked out by hand from GPT-2's pattern and merge loop, on a vocabulary of the 256
// byte tokens (byte b's id b) and twelve merges (ids 256.. in rank order):
//   256 " t"  257 "he"  258 " the"  259 "in"  260 "\n\n"  261 "  "  262 "é" (C3 A9)
//   263 "'s"  264 "bc"  265 "ab"  266 "abc" (of "ab" "c")  267 "12"      268 <|endoftext|>
// and every text decoded back to its bytes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../support/device_tokenizer.h"
#include "tessera/errors.h"
#include "tessera/models/bpe.h"

namespace {

using tessera::test::DeviceTokenizer;

// A byte's character in vocab.json and merges.txt (GPT-2's bytes_to_unicode).
std::string ch(uint8_t b)
{
    const uint32_t cp = tessera::byte_level_code_point(b);
    return cp < 0x80 ? std::string(1, char(cp)) : std::string{char(0xC0 | (cp >> 6)), char(0x80 | (cp & 0x3F))};
}
std::string chars(const std::string &bytes)
{
    std::string out;
    for (unsigned char b : bytes) out += ch(b);
    return out;
}

tessera::Vocabulary vocabulary()
{
    const std::vector<std::pair<std::string, std::string>> merges = {
        {" ", "t"}, {"h", "e"}, {" t", "he"}, {"i", "n"}, {"\n", "\n"}, {" ", " "}, {"\xC3", "\xA9"},
        {"'", "s"}, {"b", "c"},  {"a", "b"},   {"ab", "c"}, {"1", "2"}};
    std::string vocab = "{", merges_txt = "#version: 0.2\n";
    auto entry = [&](const std::string &token, uint32_t id) {
        std::string escaped;
        for (char c : token) {
            if (c == '"' || c == '\\') escaped += '\\';
            escaped += c;
        }
        vocab += (vocab.size() > 1 ? "," : "") + std::string("\"") + escaped + "\":" + std::to_string(id);
    };
    for (uint32_t b = 0; b < 256; ++b) entry(ch(uint8_t(b)), b);
    uint32_t id = 256;
    for (const auto &[a, b] : merges) {
        entry(chars(a + b), id++);
        merges_txt += chars(a) + " " + chars(b) + "\n";
    }
    entry("<|endoftext|>", id++);
    vocab += "}";
    const tessera::ByteLevelBpe bpe = tessera::parse_byte_level_bpe(vocab, "vocab.json", merges_txt, "merges.txt", id);
    return tessera::byte_level_vocabulary(bpe, "vocab.json");
}

struct Case {
    const char *text;
    std::vector<int32_t> ids;
};

TEST(ByteLevelEncode, GivesTheIdsWorkedOutByHandAndDecodesBackToTheBytes)
{
    DeviceTokenizer t(vocabulary(), 64);
    ASSERT_EQ(t.status(), TESSERA_OK);
    ASSERT_NE(t.view().bpe, nullptr);
    const std::vector<Case> cases = {
        {"the", {'t', 257}},                                // "he" merges; "t" "he" is no merge
        {" the", {258}},                                    // " t", then "he", then " t" "he"
        {"the the", {'t', 257, 258}},                       // two parts: "the", " the"
        {"Hello world", {'H', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'}}, // "he" is lower case
        {"a\n\nb", {'a', '\n', '\n', 'b'}},                 // \s+(?!\S): "\n", then \s+: "\n"; no "\n\n" across parts
        {"a\n\n", {'a', 260}},                              // the run at the end is one part
        {"a \nb", {'a', ' ', '\n', 'b'}},                   // " " (followed by white space), then "\n"
        {"x  in", {'x', ' ', ' ', 259}},                    // the run less its last space; " in": "in", no " " "in"
        {"x   ", {'x', 261, ' '}},                          // "   " at the end: the leftmost "  " first
        {"  ", {261}},
        {"caf\xC3\xA9", {'c', 'a', 'f', 262}},              // é is a letter: one part
        {"e\xCC\x81", {'e', 0xCC, 0x81}},                   // U+0301 (Mn) is no letter: a part of its own
        {"it's", {'i', 't', 263}},                          // the contraction
        {"IT'S", {'I', 'T', '\'', 'S'}},                    // contractions are lower case
        {"ab12c", {265, 267, 'c'}},                         // letters, numbers, letters
        {"abc", {'a', 264}},                                // "bc" first; "a" "bc" is no merge (nor is "abc" by string)
        {"\xE2\x82\xAC" "5", {0xE2, 0x82, 0xAC, '5'}},      // € (Sc) then 5
        {" \xE6\x97\xA5\xE6\x9C\xAC", {' ', 0xE6, 0x97, 0xA5, 0xE6, 0x9C, 0xAC}}, // " 日本": one part of letters
        {"a\xD9\xA3", {'a', 0xD9, 0xA3}},                   // U+0663 (Nd) after a letter: a part of its own
        {"a\xFF b", {'a', 0xFF, ' ', 'b'}},                 // 0xFF is no UTF-8: a byte of class other
        {"\xC3(", {0xC3, '('}},                             // a truncated sequence: two others, one part
        {"\xED\xA0\x80", {0xED, 0xA0, 0x80}},               // a surrogate's bytes: three others
        {"\xC0\xAF", {0xC0, 0xAF}},                         // an overlong '/': two others
    };
    for (const Case &c : cases) {
        EXPECT_EQ(t.encode(c.text, false), c.ids) << c.text;
        std::vector<int32_t> with_bos = t.encode(c.text, true);
        EXPECT_EQ(t.decode(with_bos), c.text) << c.text; // decode() reads from the id after BOS
    }
    EXPECT_EQ(t.encode("", false), std::vector<int32_t>{});
}

// A vocabulary of the 256 bytes and no merges (merges.txt of its version line alone): the
// image's merge table is empty, and a text is its bytes, one token each.
TEST(ByteLevelEncode, AVocabularyWithoutMergesEncodesEachByteAlone)
{
    std::string vocab = "{";
    for (uint32_t b = 0; b < 256; ++b) {
        std::string escaped;
        for (char c : ch(uint8_t(b))) {
            if (c == '"' || c == '\\') escaped += '\\';
            escaped += c;
        }
        vocab += (b ? "," : "") + std::string("\"") + escaped + "\":" + std::to_string(b);
    }
    vocab += "}";
    const tessera::ByteLevelBpe bpe = tessera::parse_byte_level_bpe(vocab, "vocab.json", "#version: 0.2\n", "merges.txt", 256);
    DeviceTokenizer t(tessera::byte_level_vocabulary(bpe, "vocab.json"), 16);
    ASSERT_EQ(t.status(), TESSERA_OK);
    EXPECT_EQ(t.encode("ab c", false), (std::vector<int32_t>{'a', 'b', ' ', 'c'}));
    EXPECT_EQ(t.decode({1, 'a', 'b', ' ', 'c'}), "ab c"); // decode() reads from the id after BOS
}

TEST(ByteLevelEncode, RefusesWhatItCannotEncodeByName)
{
    tessera::Vocabulary v = vocabulary();
    v.byte_tokens['z'] = TSR_BPE_NO_TOKEN; // a vocabulary without the byte 'z'
    DeviceTokenizer t(v, 8);
    ASSERT_EQ(t.status(), TESSERA_OK);
    tessera_status st;
    std::string message;
    t.encode("lazy", false, false, &st, &message);
    EXPECT_EQ(st, TESSERA_ERR_UNENCODABLE_TEXT);
    EXPECT_EQ(message, "text byte 0x7a at offset 2 has no token in this vocabulary");
    t.encode("one two three four five six seven eight nine", false, false, &st, &message); // 9 tokens, 8 positions
    EXPECT_EQ(st, TESSERA_ERR_CONTEXT_FULL);
    EXPECT_EQ(message, "text encodes to more than the 8 tokens the context holds");
    tessera::Vocabulary none = vocabulary();
    none.gpt2_pretokenizer = false; // a tokenizer.json with another pre-tokenizer: no tables, no encoding
    DeviceTokenizer u(none, 8);
    ASSERT_EQ(u.status(), TESSERA_OK);
    EXPECT_EQ(u.view().bpe, nullptr);
    u.encode("the", false, false, &st, &message);
    EXPECT_EQ(st, TESSERA_ERR_UNENCODABLE_TEXT);
    EXPECT_NE(message.find("no encoding tables"), std::string::npos) << message;
    EXPECT_EQ(u.encode("", true), std::vector<int32_t>{1}); // BOS alone needs none
}

} // namespace
