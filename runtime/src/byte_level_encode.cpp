// The device tokenizer's byte-level BPE encoding (GPT-2's): the text split into parts
// by GPT-2's pre-tokenizer, each part's bytes as their byte tokens, then merged by rank,
// the lowest first and the leftmost of equals, which is the order GPT-2's merge loop
// takes (a merge's parts exist before it, so no join a merge makes outranks it). The
// tables are the image's (tsr_bpe_header), checked at open.
#include "tokenizer.h"

#include "merger.h"

namespace tsr {
namespace {

// The merges as the merger takes them: a join is the index of the merge of the pair.
class RankRule {
public:
    explicit RankRule(const TokenizerView &t) : t_(t) {}
    uint32_t join(uint32_t a, uint32_t b) const
    {
        uint32_t lo = 0, hi = t_.bpe->merge_count; // the first merge not below (a, b)
        while (lo < hi) {
            const uint32_t mid = lo + (hi - lo) / 2u;
            const tsr_bpe_merge &m = t_.merges[mid];
            if (m.left < a || (m.left == a && m.right < b)) lo = mid + 1u;
            else hi = mid;
        }
        return lo < t_.bpe->merge_count && t_.merges[lo].left == a && t_.merges[lo].right == b ? lo : kNone;
    }
    uint32_t token(uint32_t merge) const { return t_.merges[merge].result; }
    bool better(uint32_t x, uint32_t y) const { return t_.merges[x].rank < t_.merges[y].rank; }

private:
    const TokenizerView &t_;
};

struct Char {
    uint32_t len;        // bytes
    uint32_t char_class; // tsr_char_class
};

bool continuation(uint8_t b) { return (b & 0xC0u) == 0x80u; }

// The class of code point cp: the range that holds it, else OTHER.
uint32_t class_of(const TokenizerView &t, uint32_t cp)
{
    uint32_t lo = 0, hi = t.bpe->class_count;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2u;
        const tsr_bpe_class_range &r = t.classes[mid];
        if (cp < r.first) hi = mid;
        else if (cp > r.last) lo = mid + 1u;
        else return r.char_class;
    }
    return TSR_CHAR_OTHER;
}

// The character at s (not the NUL): one code point of well-formed UTF-8 (no overlong
// form, no surrogate, nothing above U+10FFFF), or a byte that begins none, alone and of
// class OTHER. It reads no byte past a NUL: a NUL is no continuation byte.
Char char_at(const TokenizerView &t, const uint8_t *s)
{
    const uint8_t c = s[0];
    uint32_t cp = c, len = 1;
    if (c >= 0xC2u && c <= 0xDFu && continuation(s[1])) {
        cp = (c & 0x1Fu) << 6 | (s[1] & 0x3Fu);
        len = 2;
    } else if (c >= 0xE0u && c <= 0xEFu && continuation(s[1]) && (c != 0xE0u || s[1] >= 0xA0u) &&
               (c != 0xEDu || s[1] < 0xA0u) && continuation(s[2])) {
        cp = (c & 0x0Fu) << 12 | (s[1] & 0x3Fu) << 6 | (s[2] & 0x3Fu);
        len = 3;
    } else if (c >= 0xF0u && c <= 0xF4u && continuation(s[1]) && (c != 0xF0u || s[1] >= 0x90u) &&
               (c != 0xF4u || s[1] < 0x90u) && continuation(s[2]) && continuation(s[3])) {
        cp = (c & 0x07u) << 18 | (s[1] & 0x3Fu) << 12 | (s[2] & 0x3Fu) << 6 | (s[3] & 0x3Fu);
        len = 4;
    } else if (c >= 0x80u) {
        return Char{1u, TSR_CHAR_OTHER}; // no code point begins here
    }
    return Char{len, class_of(t, cp)};
}

// The end of the part of the text that starts at s[i] (not the NUL), as GPT-2's pattern
// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ matches it.
size_t gpt2_part_end(const TokenizerView &t, const uint8_t *s, size_t i)
{
    if (s[i] == '\'') { // the contractions, lower case
        const uint8_t a = s[i + 1];
        if (a == 's' || a == 't' || a == 'm' || a == 'd') return i + 2u;
        if (a != 0u) {
            const uint8_t b = s[i + 2];
            if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return i + 3u;
        }
    }
    // A run of letters, of numbers or of others, after one optional space.
    const size_t k = s[i] == ' ' && s[i + 1] != 0u ? i + 1u : i;
    const Char c = char_at(t, s + k);
    if (c.char_class != TSR_CHAR_SPACE) {
        size_t e = k + c.len;
        for (Char d; s[e] != 0u && (d = char_at(t, s + e)).char_class == c.char_class;) e += d.len;
        return e;
    }
    // White space: the run, less its last character where something follows it (which
    // then begins the next part), unless that leaves nothing.
    size_t e = i, last = i;
    for (Char d; s[e] != 0u && (d = char_at(t, s + e)).char_class == TSR_CHAR_SPACE;) {
        last = e;
        e += d.len;
    }
    return s[e] == 0u || last == i ? e : last;
}

} // namespace

tessera_status byte_level_encode(const TokenizerView &t, const EncodeOptions &opt, const char *text, int32_t *ids,
                                 uint32_t capacity, uint32_t *count, Message &err)
{
    uint32_t n = 0;
    auto room = [&](uint32_t more) {
        if (n + (uint64_t)more > opt.max_tokens) {
            err.str("text encodes to more than the ").num(opt.max_tokens).str(" tokens the context holds");
            return TESSERA_ERR_CONTEXT_FULL;
        }
        if (n + (uint64_t)more > capacity) {
            err.str("token array of ").num(capacity).str(" entries is too small for the tokens of the text");
            return TESSERA_ERR_BUFFER_TOO_SMALL;
        }
        return TESSERA_OK;
    };
    if (opt.bos) {
        TSR_TRY(room(1u));
        ids[n++] = (int32_t)opt.bos_id;
    }
    const uint8_t *s = (const uint8_t *)text;
    if (s[0] != 0u && t.bpe == nullptr) {
        err.str("this image's byte-level BPE has no encoding tables (packed by an earlier tessera-pack, or from a "
                "tokenizer.json whose pre-tokenizer is not GPT-2's): give token ids, or begin at BOS");
        return TESSERA_ERR_UNENCODABLE_TEXT;
    }
    const RankRule rule(t);
    Merger<RankRule> m(rule, opt.work, opt.work_bytes);
    for (size_t i = 0; s[i] != 0u;) {
        const size_t end = gpt2_part_end(t, s, i);
        m.clear();
        for (size_t j = i; j < end; ++j) {
            const uint32_t id = t.byte_tokens[s[j]];
            if (id == TSR_BPE_NO_TOKEN) {
                err.str("text byte ").hex(s[j], 2).str(" at offset ").num((uint64_t)j).str(" has no token in this vocabulary");
                return TESSERA_ERR_UNENCODABLE_TEXT;
            }
            if (!m.push(id)) {
                err.str("text too long for the context of ").num(opt.max_tokens).str(" tokens: a part of it is more than ")
                    .num(m.capacity()).str(" bytes");
                return TESSERA_ERR_CONTEXT_FULL;
            }
        }
        m.merge_all();
        TSR_TRY(room(m.count()));
        m.write(ids + n);
        n += m.count();
        i = end;
    }
    if (opt.eos) {
        TSR_TRY(room(1u));
        ids[n++] = (int32_t)opt.eos_id;
    }
    *count = n;
    return TESSERA_OK;
}

} // namespace tsr
