#include "tokenizer.h"

#include <string.h>

namespace tsr {
namespace {

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
    uint32_t n = 0;
    auto push = [&](int32_t id) {
        if (n >= capacity) return false;
        ids[n++] = id;
        return true;
    };
    auto too_small = [&]() {
        err.str("token array of ").num(capacity).str(" entries is too small for the text");
        return TESSERA_ERR_BUFFER_TOO_SMALL;
    };
    char *buf = opt.merge_buffer;
    if (opt.bos && !push((int32_t)opt.bos_id)) return too_small();
    if (text[0] != '\0' && !push(opt.space_id)) return too_small();

    // Split into UTF-8 code points; each known code point is a token, the others
    // fall back to one token per byte (byte b is token b + 3).
    uint32_t len = 0;
    for (const char *c = text; *c != '\0'; ++c) {
        if ((*c & 0xC0) != 0x80) len = 0;
        buf[len++] = *c;
        buf[len] = '\0';
        if ((c[1] & 0xC0) == 0x80 && len < 4u) continue;
        const int32_t id = tokenizer_lookup(t, buf);
        if (id >= 0) {
            if (!push(id)) return too_small();
        } else {
            for (uint32_t i = 0; i < len; ++i)
                if (!push((int32_t)(uint8_t)buf[i] + 3)) return too_small();
        }
        len = 0;
    }

    // Merge the adjacent pair whose joined piece has the best score, until none does.
    for (;;) {
        float best_score = -1e10f;
        int32_t best_id = -1;
        uint32_t best_idx = 0;
        for (uint32_t i = 0; i + 1u < n; ++i) {
            const tsr_token_entry &a = t.entries[ids[i]], &b = t.entries[ids[i + 1]];
            memcpy(buf, t.strings + a.offset, a.length);
            memcpy(buf + a.length, t.strings + b.offset, b.length);
            buf[a.length + b.length] = '\0';
            const int32_t id = tokenizer_lookup(t, buf);
            if (id != -1 && t.entries[id].score > best_score) {
                best_score = t.entries[id].score;
                best_id = id;
                best_idx = i;
            }
        }
        if (best_id == -1) break;
        ids[best_idx] = best_id;
        for (uint32_t i = best_idx + 1u; i + 1u < n; ++i) ids[i] = ids[i + 1];
        --n;
    }
    if (opt.eos && !push((int32_t)opt.eos_id)) return too_small();
    *count = n;
    return TESSERA_OK;
}

const char *tokenizer_decode(const TokenizerView &t, uint32_t bos_id, int32_t prev, int32_t token,
                             uint32_t *len)
{
    if (token < 0 || (uint32_t)token >= t.header->vocab_size) return nullptr;
    const char *p = piece(t, (uint32_t)token);
    uint32_t n = t.entries[token].length;
    if (prev == (int32_t)bos_id && p[0] == ' ') {
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
