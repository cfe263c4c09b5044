#include "tessera/models/bpe.h"

#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "tessera/errors.h"
#include "tessera/image_format.h" // TSR_BPE_NO_TOKEN
#include "tessera/json_input.h"

namespace fs = std::filesystem;

namespace tessera {

namespace {

bool printable_latin1(uint32_t b) { return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF); }

// The byte each stand-in code point is for (bytes_to_unicode inverted).
const std::map<uint32_t, uint8_t> &byte_of_code_point()
{
    static const std::map<uint32_t, uint8_t> table = [] {
        std::map<uint32_t, uint8_t> t;
        for (uint32_t b = 0; b < 256; ++b) t[byte_level_code_point(uint8_t(b))] = uint8_t(b);
        return t;
    }();
    return table;
}

// Token `token`'s characters as the bytes they stand for; empty with `why` set when it is
// not valid UTF-8 or has a character that stands for no byte.
std::string token_bytes(const std::string &token, std::string &why)
{
    std::string out;
    const auto &table = byte_of_code_point();
    for (size_t i = 0; i < token.size();) {
        const uint8_t c = uint8_t(token[i]);
        uint32_t cp = 0, len = 0;
        if (c < 0x80) cp = c, len = 1;
        else if ((c & 0xE0) == 0xC0) cp = c & 0x1F, len = 2;
        else if ((c & 0xF0) == 0xE0) cp = c & 0x0F, len = 3;
        else if ((c & 0xF8) == 0xF0) cp = c & 0x07, len = 4;
        if (!len || i + len > token.size()) {
            why = "is not valid UTF-8";
            return {};
        }
        for (uint32_t k = 1; k < len; ++k) {
            const uint8_t d = uint8_t(token[i + k]);
            if ((d & 0xC0) != 0x80) {
                why = "is not valid UTF-8";
                return {};
            }
            cp = cp << 6 | (d & 0x3F);
        }
        const auto it = table.find(cp);
        if (it == table.end()) {
            char hex[16];
            std::snprintf(hex, sizeof hex, "U+%04X", cp);
            why = std::string("has character ") + hex + ", which stands for no byte in byte-level BPE";
            return {};
        }
        out.push_back(char(it->second));
        i += len;
    }
    return out;
}

} // namespace

uint32_t byte_level_code_point(uint8_t b)
{
    if (printable_latin1(b)) return b;
    uint32_t n = 0;
    for (uint32_t k = 0; k < b; ++k) n += printable_latin1(k) ? 0u : 1u;
    return 256u + n;
}

ByteLevelBpe byte_level_bpe(const std::vector<std::string> &tokens, const std::string &tokens_name,
                            const std::vector<MergeLine> &merges)
{
    ByteLevelBpe bpe;
    std::map<std::string, uint32_t> id_of;
    bpe.pieces.resize(tokens.size());
    for (uint32_t id = 0; id < tokens.size(); ++id) {
        const std::string shown = shown_in_message(tokens[id]);
        std::string why;
        bpe.pieces[id] = token_bytes(tokens[id], why);
        if (!why.empty()) throw InputError(tokens_name + ": token " + std::to_string(id) + " '" + shown + "' " + why);
        if (bpe.pieces[id].empty()) throw InputError(tokens_name + ": token " + std::to_string(id) + " is empty");
        if (!id_of.emplace(tokens[id], id).second)
            throw InputError(tokens_name + ": token '" + shown + "' is given twice (ids " + std::to_string(id_of[tokens[id]]) +
                             " and " + std::to_string(id) + ")");
    }
    for (const MergeLine &m : merges) {
        const std::string &line = m.text;
        const std::string where = m.where + ": ";
        const size_t space = line.find(' ');
        if (space == std::string::npos || space == 0 || space + 1 == line.size() || line.find(' ', space + 1) != std::string::npos)
            throw InputError(where + "'" + shown_in_message(line) + "' is not two tokens separated by one space");
        const std::string a = line.substr(0, space), b = line.substr(space + 1);
        const auto ia = id_of.find(a), ib = id_of.find(b), iab = id_of.find(a + b);
        if (ia == id_of.end() || ib == id_of.end())
            throw InputError(where + "token '" + shown_in_message(ia == id_of.end() ? a : b) + "' is not in the vocabulary");
        if (iab == id_of.end())
            throw InputError(where + "the merge's result '" + shown_in_message(a + b) + "' is not in the vocabulary");
        bpe.merges.emplace_back(ia->second, ib->second);
    }
    return bpe;
}

ByteLevelBpe parse_byte_level_bpe(const std::string &vocab_json, const std::string &vocab_name,
                                  const std::string &merges_txt, const std::string &merges_name, uint32_t vocab_size)
{
    std::vector<std::string> tokens(vocab_size);
    try {
        const nlohmann::json parsed = json_input::parse(vocab_json, vocab_name, {64u << 20, 4});
        const json_input::Value root(parsed, vocab_name);
        root.expect_object();
        if (parsed.size() != vocab_size)
            throw InputError(vocab_name + ": " + std::to_string(parsed.size()) + " tokens, but the model's vocabulary (its "
                             "embedding's rows) is " + std::to_string(vocab_size));
        std::vector<bool> seen(vocab_size, false);
        for (auto it = parsed.begin(); it != parsed.end(); ++it) {
            const uint32_t id = uint32_t(root[it.key().c_str()].as_uint(0, vocab_size - 1));
            if (seen[id])
                throw InputError(vocab_name + ": id " + std::to_string(id) + " is given twice (again to '" +
                                 shown_in_message(it.key()) + "')");
            seen[id] = true;
            tokens[id] = it.key();
        }
    } catch (const json_input::Error &e) {
        throw InputError(e.what());
    }
    std::vector<MergeLine> merges;
    size_t line_no = 0, begin = 0;
    while (begin < merges_txt.size()) {
        size_t end = merges_txt.find('\n', begin);
        if (end == std::string::npos) end = merges_txt.size();
        std::string line = merges_txt.substr(begin, end - begin);
        begin = end + 1;
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || (line_no == 1 && line.rfind("#version", 0) == 0)) continue;
        merges.push_back({merges_name + ":" + std::to_string(line_no), std::move(line)});
    }
    return byte_level_bpe(tokens, vocab_name, merges);
}

ByteLevelBpe parse_tokenizer_json(const std::string &text, const std::string &name, uint32_t vocab_size)
{
    std::vector<std::string> tokens(vocab_size);
    std::vector<bool> seen(vocab_size, false);
    std::vector<MergeLine> merges;
    bool gpt2 = false;
    try {
        const nlohmann::json parsed = json_input::parse(text, name, {256u << 20, 16});
        const json_input::Value root(parsed, name);
        root.expect_object();
        const json_input::Value model = root["model"];
        const std::string type = model["type"].as_string();
        if (type != "BPE") model["type"].fail("'" + json_input::printable(type) + "' is not 'BPE'");
        // Byte-level: its decoder (or, where none is given, its pre-tokenizer) is ByteLevel.
        const std::string dump = parsed.contains("decoder") ? parsed["decoder"].dump() : std::string();
        if (dump.find("\"ByteLevel\"") == std::string::npos)
            root["decoder"].fail("is not ByteLevel: only byte-level BPE (GPT-2's) is read");
        // GPT-2's pre-tokenizer: ByteLevel with its pattern and no prefix space, no normalizer.
        const nlohmann::json none;
        const nlohmann::json &pre = parsed.contains("pre_tokenizer") ? parsed["pre_tokenizer"] : none;
        const nlohmann::json &norm = parsed.contains("normalizer") ? parsed["normalizer"] : none;
        gpt2 = pre.is_object() && pre.value("type", "") == "ByteLevel" && pre.value("use_regex", true) == true &&
               pre.value("add_prefix_space", false) == false && norm.is_null();
        auto take = [&](const json_input::Value &where, uint64_t id, std::string token) {
            if (id >= vocab_size)
                where.fail("id " + std::to_string(id) + " is beyond the model's vocabulary of " + std::to_string(vocab_size));
            if (seen[id] && tokens[id] != token) where.fail("id " + std::to_string(id) + " is given twice");
            seen[id] = true;
            tokens[id] = std::move(token);
        };
        const json_input::Value vocab = model["vocab"];
        vocab.expect_object();
        for (auto it = parsed["model"]["vocab"].begin(); it != parsed["model"]["vocab"].end(); ++it) {
            const json_input::Value v = vocab[it.key().c_str()];
            take(v, v.as_uint(0, UINT32_MAX), it.key());
        }
        // Added tokens spell their text as it is: as byte-level characters here.
        if (const auto added = root.find("added_tokens")) {
            added->expect_array();
            for (size_t i = 0; i < added->size(); ++i) {
                const json_input::Value t = added->at(i);
                std::string chars;
                for (unsigned char b : t["content"].as_string()) {
                    const uint32_t cp = byte_level_code_point(b);
                    if (cp < 0x80) chars += char(cp);
                    else chars += char(0xC0 | (cp >> 6)), chars += char(0x80 | (cp & 0x3F));
                }
                take(t["id"], t["id"].as_uint(0, UINT32_MAX), std::move(chars));
            }
        }
        const json_input::Value m = model["merges"];
        m.expect_array();
        for (size_t i = 0; i < m.size(); ++i) {
            const json_input::Value e = m.at(i);
            const std::string where = e.path();
            if (e.json().is_array()) { // newer files: ["a", "b"]
                if (e.size() != 2) e.fail("is not a pair of tokens");
                merges.push_back({name + ": " + where, e.at(0).as_string() + " " + e.at(1).as_string()});
            } else {
                merges.push_back({name + ": " + where, e.as_string()});
            }
        }
    } catch (const json_input::Error &e) {
        throw InputError(e.what());
    }
    for (uint32_t id = 0; id < vocab_size; ++id)
        if (!seen[id])
            throw InputError(name + ": no token has id " + std::to_string(id) + ", but the model's vocabulary (its embedding's "
                             "rows) is " + std::to_string(vocab_size));
    ByteLevelBpe bpe = byte_level_bpe(tokens, name, merges);
    bpe.gpt2_pretokenizer = gpt2;
    return bpe;
}

Vocabulary byte_level_vocabulary(const ByteLevelBpe &bpe, const std::string &name)
{
    Vocabulary v;
    v.byte_level = true;
    const float unmerged = -float(bpe.merges.size()) - 1.0f;
    v.scores.assign(bpe.pieces.size(), unmerged);
    std::map<std::string, uint32_t> id_of;
    for (uint32_t id = 0; id < bpe.pieces.size(); ++id) id_of.emplace(bpe.pieces[id], id);
    for (uint32_t rank = uint32_t(bpe.merges.size()); rank-- > 0;) { // the earliest merge's rank last
        const auto &[a, b] = bpe.merges[rank];
        v.scores[id_of.at(bpe.pieces[a] + bpe.pieces[b])] = -float(rank);
    }
    v.gpt2_pretokenizer = bpe.gpt2_pretokenizer;
    v.byte_tokens.assign(256, TSR_BPE_NO_TOKEN);
    for (uint32_t b = 0; b < 256; ++b)
        if (const auto it = id_of.find(std::string(1, char(b))); it != id_of.end()) v.byte_tokens[b] = it->second;
    for (const auto &[a, b] : bpe.merges) v.merges.push_back({a, b, id_of.at(bpe.pieces[a] + bpe.pieces[b])});
    for (uint32_t id = 0; id < bpe.pieces.size(); ++id) {
        if (bpe.pieces[id] == "<0x00>") // the device's stand-in for the byte 0 (which a C string cannot hold)
            throw InputError(name + ": token " + std::to_string(id) + " is the text \"<0x00>\", which the device "
                             "tokenizer keeps for the byte 0");
        std::string piece = bpe.pieces[id] == std::string(1, '\0') ? std::string("<0x00>") : bpe.pieces[id];
        check_token_piece(name, id, piece);
        v.max_token_length = std::max<uint32_t>(v.max_token_length, uint32_t(piece.size()));
        v.pieces.push_back(std::move(piece));
    }
    return v;
}

Vocabulary read_byte_level_bpe_directory(const std::string &dir, uint32_t vocab_size, std::string *files)
{
    const std::string vocab = (fs::path(dir) / "vocab.json").string(), merges = (fs::path(dir) / "merges.txt").string();
    const std::string json = (fs::path(dir) / "tokenizer.json").string();
    std::error_code ec;
    if ((!fs::is_regular_file(vocab, ec) || !fs::is_regular_file(merges, ec)) && fs::is_regular_file(json, ec)) {
        std::string text;
        try {
            text = json_input::read_file(json, 256u << 20, "tokenizer");
        } catch (const json_input::Error &e) {
            throw InputError(e.what());
        }
        *files = json;
        return byte_level_vocabulary(parse_tokenizer_json(text, json, vocab_size), json);
    }
    if (!fs::is_regular_file(vocab, ec) || !fs::is_regular_file(merges, ec))
        throw InputError(dir + ": no vocab.json and merges.txt, nor tokenizer.json (GPT-2's byte-level BPE tokenizer)");
    std::string vocab_text, merges_text;
    try {
        vocab_text = json_input::read_file(vocab, 64u << 20, "vocabulary");
        merges_text = json_input::read_file(merges, 64u << 20, "merges");
    } catch (const json_input::Error &e) {
        throw InputError(e.what());
    }
    *files = vocab + " + merges.txt";
    return byte_level_vocabulary(parse_byte_level_bpe(vocab_text, vocab, merges_text, merges, vocab_size), vocab);
}

} // namespace tessera
