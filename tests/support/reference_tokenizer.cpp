#include "reference_tokenizer.h"

#include <cstdio>

namespace tessera::test {

ReferenceTokenizer::ReferenceTokenizer(const Vocabulary &vocab) : vocab_(vocab)
{
    for (size_t i = 0; i < vocab.pieces.size(); ++i) id_of_.emplace(vocab.pieces[i], int32_t(i));
}

std::optional<std::vector<int32_t>> ReferenceTokenizer::encode(const std::string &text, bool bos, bool eos,
                                                               int32_t bos_id, int32_t eos_id) const
{
    const Vocabulary &vocab = vocab_;
    const std::map<std::string, int32_t> &id_of = id_of_;
    std::vector<int32_t> ids;
    if (bos) ids.push_back(bos_id);

    // A symbol: a piece if the vocabulary has it, else one byte piece per byte.
    auto add = [&](const std::string &symbol) {
        if (auto it = id_of.find(symbol); it != id_of.end()) {
            ids.push_back(it->second);
            return true;
        }
        for (unsigned char b : symbol) {
            char name[8];
            std::snprintf(name, sizeof name, "<0x%02X>", b);
            auto it = id_of.find(name);
            if (it == id_of.end()) return false;
            ids.push_back(it->second);
        }
        return true;
    };
    if (!text.empty() && !add(" ")) return std::nullopt; // the dummy prefix
    // Symbols: each byte that is not a UTF-8 continuation byte starts one, and a
    // symbol holds at most 4 bytes (run.c's reading of code points, malformed ones too).
    std::string symbol;
    for (unsigned char c : text) {
        const bool continuation = (c & 0xC0) == 0x80;
        if (!symbol.empty() && (!continuation || symbol.size() == 4)) {
            if (!add(symbol)) return std::nullopt;
            symbol.clear();
        }
        symbol.push_back(char(c));
    }
    if (!symbol.empty() && !add(symbol)) return std::nullopt;

    // Merge the best-scoring adjacent pair, the leftmost of equals, until none joins.
    for (;;) {
        float best = -1e10f;
        size_t at = 0;
        int32_t joined = -1;
        for (size_t i = 0; i + 1 < ids.size(); ++i) {
            auto it = id_of.find(vocab.pieces[size_t(ids[i])] + vocab.pieces[size_t(ids[i + 1])]);
            if (it != id_of.end() && vocab.scores[size_t(it->second)] > best) {
                best = vocab.scores[size_t(it->second)];
                at = i;
                joined = it->second;
            }
        }
        if (joined < 0) break;
        ids[at] = joined;
        ids.erase(ids.begin() + std::ptrdiff_t(at) + 1);
    }
    if (eos) ids.push_back(eos_id);
    return ids;
}

} // namespace tessera::test
