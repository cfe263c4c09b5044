// Merging a text's symbols pairwise into tokens, the best join first (the device
// tokenizer's SentencePiece and byte-level BPE encodings share it).
#ifndef TESSERA_MERGER_H
#define TESSERA_MERGER_H

#include <stdint.h>

#include "tessera/image_format.h"

namespace tsr {

constexpr uint32_t kNone = 0xFFFFFFFFu;

// The text as a doubly linked list of symbols (tokens), and a binary heap of the
// symbols whose pair with their right neighbour joins: the best join on top, the
// leftmost of equals first (the pair run.c's scan picks; the pair GPT-2's merge loop
// takes). Symbols never move, so their indices keep the text's order. All arrays live
// in the caller's work area, TSR_ENCODE_BYTES_PER_SYMBOL bytes per symbol.
//
// Rule: join(a, b) -> a handle of the join of tokens a and b, or kNone; token(handle)
// -> the token it makes; better(h1, h2) -> whether h1 merges before h2 (strictly).
template <typename Rule> class Merger {
public:
    Merger(const Rule &rule, uint8_t *work, uint32_t work_bytes) : rule_(rule)
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

    // Starts again with no symbols (the same work area).
    void clear() { n_ = live_ = heap_n_ = 0; }

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
            merged_[i] = next_[i] == kNone ? kNone : rule_.join(tok_[i], tok_[next_[i]]);
            slot_[i] = kNone;
            if (merged_[i] != kNone) {
                slot_[i] = heap_n_;
                heap_[heap_n_++] = i;
            }
        }
        for (uint32_t k = heap_n_ / 2u; k-- > 0u;) sift_down(k);
        while (heap_n_ > 0u) {
            const uint32_t i = heap_[0], j = next_[i];
            tok_[i] = rule_.token(merged_[i]);
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
    bool before(uint32_t a, uint32_t b) const
    {
        const uint32_t ja = merged_[a], jb = merged_[b];
        return rule_.better(ja, jb) || (!rule_.better(jb, ja) && a < b);
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
        merged_[i] = next_[i] == kNone ? kNone : rule_.join(tok_[i], tok_[next_[i]]);
        if (merged_[i] == kNone) {
            if (slot_[i] != kNone) remove(i);
            return;
        }
        if (slot_[i] == kNone) place(heap_n_++, i);
        const uint32_t k = slot_[i];
        sift_up(k);
        sift_down(slot_[i]);
    }

    const Rule &rule_;
    uint32_t cap_ = 0, n_ = 0, live_ = 0, heap_n_ = 0;
    uint32_t *tok_, *next_, *prev_, *merged_, *heap_, *slot_;
};


} // namespace tsr

#endif
