#include "tokenizer.h"

#include <string.h>

namespace tsr {
namespace {

constexpr uint32_t kNone = 0xFFFFFFFFu;
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

// The text as a doubly linked list of symbols (pieces), and a binary heap of the
// symbols whose pair with their right neighbour joins into a piece: the best score
// on top, the leftmost of equal scores first, which is the pair run.c's scan picks.
// Symbols never move, so their indices keep the text's order. All arrays live in
// the caller's work area, TSR_ENCODE_BYTES_PER_SYMBOL bytes per symbol.
class Merger {
public:
    Merger(const TokenizerView &t, char *buffer, uint8_t *work, uint32_t work_bytes) : t_(t), buf_(buffer)
    {
        cap_ = work == nullptr ? 0u : work_bytes / TSR_ENCODE_BYTES_PER_SYMBOL;
        uint32_t *w = reinterpret_cast<uint32_t *>(work);
        tok_ = w;
        next_ = w + cap_;
        prev_ = w + 2u * (size_t)cap_;
        merged_ = w + 3u * (size_t)cap_;
        heap_ = w + 4u * (size_t)cap_;
        slot_ = w + 5u * (size_t)cap_;
    }
    uint32_t capacity() const { return cap_; }
    uint32_t count() const { return live_; }

    bool push(uint32_t id)
    {
        if (n_ == cap_) return false;
        tok_[n_++] = id;
        live_ = n_;
        return true;
    }

    void merge_all()
    {
        if (n_ == 0u) return;
        heap_n_ = 0;
        for (uint32_t i = 0; i < n_; ++i) {
            next_[i] = i + 1u < n_ ? i + 1u : kNone;
            prev_[i] = i > 0u ? i - 1u : kNone;
            merged_[i] = next_[i] == kNone ? kNone : join(tok_[i], tok_[next_[i]]);
            slot_[i] = kNone;
            if (merged_[i] != kNone) {
                slot_[i] = heap_n_;
                heap_[heap_n_++] = i;
            }
        }
        for (uint32_t k = heap_n_ / 2u; k-- > 0u;) sift_down(k);
        while (heap_n_ > 0u) {
            const uint32_t i = heap_[0], j = next_[i];
            tok_[i] = merged_[i];
            if (slot_[j] != kNone) remove(j); // j's own pair is gone with it
            next_[i] = next_[j];
            if (next_[i] != kNone) prev_[next_[i]] = i;
            --live_;
            refresh(i);
            if (prev_[i] != kNone) refresh(prev_[i]);
        }
    }

    // Writes the merged symbols in text order (symbol 0 is never merged away).
    void write(int32_t *ids) const
    {
        uint32_t k = 0;
        for (uint32_t i = live_ ? 0u : kNone; i != kNone; i = next_[i]) ids[k++] = (int32_t)tok_[i];
    }

private:
    // The piece that joins `a` and `b`, or kNone.
    uint32_t join(uint32_t a, uint32_t b)
    {
        const tsr_token_entry &ea = t_.entries[a], &eb = t_.entries[b];
        memcpy(buf_, t_.strings + ea.offset, ea.length);
        memcpy(buf_ + ea.length, t_.strings + eb.offset, eb.length);
        buf_[ea.length + eb.length] = '\0';
        const int32_t id = tokenizer_lookup(t_, buf_);
        return id >= 0 && t_.entries[id].score > kNoMerge ? (uint32_t)id : kNone;
    }
    bool before(uint32_t a, uint32_t b) const
    {
        const float sa = t_.entries[merged_[a]].score, sb = t_.entries[merged_[b]].score;
        return sa > sb || (sa == sb && a < b);
    }
    void place(uint32_t k, uint32_t i)
    {
        heap_[k] = i;
        slot_[i] = k;
    }
    void sift_up(uint32_t k)
    {
        const uint32_t i = heap_[k];
        while (k > 0u && before(i, heap_[(k - 1u) / 2u])) {
            place(k, heap_[(k - 1u) / 2u]);
            k = (k - 1u) / 2u;
        }
        place(k, i);
    }
    void sift_down(uint32_t k)
    {
        const uint32_t i = heap_[k];
        for (;;) {
            uint32_t c = 2u * k + 1u;
            if (c >= heap_n_) break;
            if (c + 1u < heap_n_ && before(heap_[c + 1u], heap_[c])) ++c;
            if (!before(heap_[c], i)) break;
            place(k, heap_[c]);
            k = c;
        }
        place(k, i);
    }
    void remove(uint32_t i)
    {
        const uint32_t k = slot_[i], last = heap_[--heap_n_];
        slot_[i] = kNone;
        if (k == heap_n_) return;
        place(k, last);
        sift_up(k);
        sift_down(slot_[last]);
    }
    // Symbol i's right neighbour or its own piece changed: so did its pair.
    void refresh(uint32_t i)
    {
        merged_[i] = next_[i] == kNone ? kNone : join(tok_[i], tok_[next_[i]]);
        if (merged_[i] == kNone) {
            if (slot_[i] != kNone) remove(i);
            return;
        }
        if (slot_[i] == kNone) place(heap_n_++, i);
        const uint32_t k = slot_[i];
        sift_up(k);
        sift_down(slot_[i]);
    }

    const TokenizerView &t_;
    char *buf_;
    uint32_t cap_ = 0, n_ = 0, live_ = 0, heap_n_ = 0;
    uint32_t *tok_, *next_, *prev_, *merged_, *heap_, *slot_;
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
    Merger m(t, opt.merge_buffer, opt.work, opt.work_bytes);
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
