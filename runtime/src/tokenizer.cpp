#include "tokenizer.h"

#include "merger.h"

#include <string.h>

namespace tsr {
namespace {

// run.c starts its search for the best merge at this score: pieces scoring at or
// below it (or NaN) are never merged.
constexpr float kNoMerge = -1e10f;

// Every byte as a one-character string, for "<0xXX>" pieces; constant-initialized.
struct BytePieces {
    char text[512];
    constexpr BytePieces() : text()
    {
        for (int i = 0; i < 256; ++i) {
            text[2 * i] = (char)i;
            text[2 * i + 1] = '\0';
        }
    }
};
constexpr BytePieces kBytePieces;

const char *piece(const TokenizerView &t, uint32_t id) { return t.strings + t.entries[id].offset; }

int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Id of the "<0xXX>" piece of byte `b`, or -1 when the vocabulary has none.
int32_t byte_piece(const TokenizerView &t, uint8_t b)
{
    const char *hex = "0123456789ABCDEF";
    const char name[7] = {'<', '0', 'x', hex[b >> 4], hex[b & 15u], '>', '\0'};
    return tokenizer_lookup(t, name);
}

// SentencePiece's merges (run.c's): two pieces whose concatenation is a piece of a
// score above kNoMerge join into it, the best score first.
class ScoreRule {
public:
    ScoreRule(const TokenizerView &t, char *buffer) : t_(t), buf_(buffer) {}
    // The piece that joins `a` and `b`, or kNone.
    uint32_t join(uint32_t a, uint32_t b) const
    {
        const tsr_token_entry &ea = t_.entries[a], &eb = t_.entries[b];
        memcpy(buf_, t_.strings + ea.offset, ea.length);
        memcpy(buf_ + ea.length, t_.strings + eb.offset, eb.length);
        buf_[ea.length + eb.length] = '\0';
        const int32_t id = tokenizer_lookup(t_, buf_);
        return id >= 0 && t_.entries[id].score > kNoMerge ? (uint32_t)id : kNone;
    }
    uint32_t token(uint32_t joined) const { return joined; }
    bool better(uint32_t x, uint32_t y) const { return t_.entries[x].score > t_.entries[y].score; }

private:
    const TokenizerView &t_;
    char *buf_;
};

} // namespace

int32_t tokenizer_lookup(const TokenizerView &t, const char *text)
{
    // Binary search in strcmp order, as run.c's bsearch over its qsort'ed vocabulary.
    uint32_t lo = 0, hi = t.header->vocab_size;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2u;
        const uint32_t id = t.sorted[mid];
        const int c = strcmp(text, piece(t, id));
        if (c == 0) return (int32_t)id;
        if (c < 0) hi = mid;
        else lo = mid + 1u;
    }
    return -1;
}

tessera_status tokenizer_encode(const TokenizerView &t, const EncodeOptions &opt, const char *text,
                                int32_t *ids, uint32_t capacity, uint32_t *count, Message &err)
{
    if (t.header->kind == TSR_TOKENIZER_BYTE_LEVEL_BPE) return byte_level_encode(t, opt, text, ids, capacity, count, err);
    const ScoreRule rule(t, opt.merge_buffer);
    Merger<ScoreRule> m(rule, opt.work, opt.work_bytes);
    auto too_long = [&]() {
        err.str("text too long for the context of ").num(opt.max_tokens).str(" tokens: it splits into more than ")
            .num(m.capacity()).str(" symbols before merging");
        return TESSERA_ERR_CONTEXT_FULL;
    };
    // One code point (or stray byte) of the text: its piece, else one "<0xXX>" piece
    // per byte. `offset` is where it starts in the text; -1 for the dummy prefix.
    auto emit = [&](const char *cp, uint32_t len, int64_t offset) {
        char one[5];
        memcpy(one, cp, len);
        one[len] = '\0';
        const int32_t id = tokenizer_lookup(t, one);
        if (id >= 0) return m.push((uint32_t)id) ? TESSERA_OK : too_long();
        for (uint32_t i = 0; i < len; ++i) {
            const uint8_t b = (uint8_t)cp[i];
            const int32_t byte_id = byte_piece(t, b);
            if (byte_id < 0) {
                if (offset < 0) err.str("the dummy-prefix space before the text");
                else err.str("text byte ").hex(b, 2).str(" at offset ").num((uint64_t)offset + i);
                err.str(" has no piece, and the vocabulary has no byte piece for it");
                return TESSERA_ERR_UNENCODABLE_TEXT;
            }
            if (!m.push((uint32_t)byte_id)) return too_long();
        }
        return TESSERA_OK;
    };

    if (opt.bos && !m.push(opt.bos_id)) return too_long();
    tessera_status st = TESSERA_OK;
    if (text[0] != '\0') st = emit(" ", 1u, -1); // the dummy prefix, as sentencepiece adds it
    // Split into UTF-8 code points (at most 4 bytes, as run.c reads them).
    char cp[4];
    uint32_t len = 0;
    for (size_t i = 0; st == TESSERA_OK && text[i] != '\0'; ++i) {
        if ((text[i] & 0xC0) != 0x80) len = 0;
        cp[len++] = text[i];
        if ((text[i + 1] & 0xC0) == 0x80 && len < 4u) continue;
        st = emit(cp, len, (int64_t)(i + 1u - len));
        len = 0;
    }
    if (st != TESSERA_OK) return st;

    m.merge_all();
    const uint32_t n = m.count() + (opt.eos ? 1u : 0u);
    if (n > opt.max_tokens) {
        err.str("text encodes to ").num(n).str(" tokens; the context holds ").num(opt.max_tokens);
        return TESSERA_ERR_CONTEXT_FULL;
    }
    if (n > capacity) {
        err.str("token array of ").num(capacity).str(" entries is too small for the ").num(n).str(" tokens of the text");
        return TESSERA_ERR_BUFFER_TOO_SMALL;
    }
    m.write(ids);
    if (opt.eos) ids[n - 1u] = (int32_t)opt.eos_id;
    *count = n;
    return TESSERA_OK;
}

const char *tokenizer_decode(const TokenizerView &t, uint32_t bos_id, int32_t prev, int32_t token,
                             uint32_t *len)
{
    if (token < 0 || (uint32_t)token >= t.header->vocab_size) return nullptr;
    const char *p = piece(t, (uint32_t)token);
    uint32_t n = t.entries[token].length;
    if (t.header->kind == TSR_TOKENIZER_BYTE_LEVEL_BPE) { // its pieces are its bytes; the byte 0 alone is "<0x00>"
        const bool zero = n == 6u && p[0] == '<' && p[1] == '0' && p[2] == 'x' && p[3] == '0' && p[4] == '0' && p[5] == '>';
        if (zero) p = kBytePieces.text, n = 1u;
        if (len) *len = n;
        return p;
    }
    if (prev == (int32_t)bos_id && p[0] == ' ') { // SentencePiece's: no space after BOS
        ++p;
        --n;
    }
    // run.c: sscanf(piece, "<0x%02hhX>") — "<0x" and one or two hex digits.
    if (p[0] == '<' && p[1] == '0' && p[2] == 'x' && hex_digit(p[3]) >= 0) {
        int v = hex_digit(p[3]);
        if (hex_digit(p[4]) >= 0) v = v * 16 + hex_digit(p[4]);
        p = kBytePieces.text + 2 * v;
        n = 1;
    }
    if (len) *len = n;
    return p;
}

} // namespace tsr
