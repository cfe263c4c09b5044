// The work splits that kernels of several precisions share: which (row, pair) a
// core rotates in RoPE, which rows or columns it normalizes in RMSNorm. Inlined, so
// each kernel compiles to the loop it would have written itself.
#ifndef TESSERA_SPLIT_LOOPS_H
#define TESSERA_SPLIT_LOOPS_H

#include "tessera/kernels.h"

// The shapes tsr_rope_pairs walks: whole heads of pairs in q and in k, and k's pairs
// a prefix of q's (kv_dim <= dim).
static inline bool tsr_rope_shape_ok(uint32_t dim, uint32_t kv_dim, uint32_t head_size)
{
    return dim && kv_dim && head_size && head_size % 2u == 0u && dim % head_size == 0u && kv_dim % head_size == 0u &&
           kv_dim <= dim;
}

// RoPE over rows x dim/2 pairs (q; the k pairs, kv_dim <= dim, are a prefix): this
// core's share of them. rotate(r, i, pair, in_k) turns pair i of row r (columns i and
// i + 1) by table pair `pair` ((pos + r) * head_size / 2 + (i % head_size) / 2),
// in k too when in_k.
template <typename Rotate>
static inline void tsr_rope_pairs(uint32_t rows, uint32_t pos, uint32_t dim, uint32_t kv_dim, uint32_t head_size,
                                  uint32_t core_id, uint32_t core_count, Rotate rotate)
{
    const uint32_t half = head_size / 2u, pairs = dim / 2u;
    uint32_t begin, end;
    tsr_core_range(rows * pairs, core_id, core_count, &begin, &end);
    if (begin >= end) return;
    // Row r, its pair p and that pair's column in its head j = 2p % head_size, counted on
    // from the first item (a division costs RV32 cores up to 35 cycles; heads divide dim).
    uint32_t r = begin / pairs, p = begin - r * pairs, j = (2u * p) % head_size;
    for (uint32_t item = begin; item < end; ++item) {
        const uint32_t i = 2u * p;
        rotate(r, i, (size_t)(pos + r) * half + j / 2u, i < kv_dim);
        j += 2u;
        if (j == head_size) j = 0u;
        if (++p == pairs) p = 0u, j = 0u, ++r;
    }
}

// RMSNorm's split: rows over the cores; with fewer rows than cores, every core sums
// each row's squares (the same operations, so the same result) and writes its share
// of the columns [c0, c1).
static inline void tsr_rmsnorm_split(uint32_t rows, uint32_t dim, uint32_t core_id, uint32_t core_count, uint32_t *r0,
                                     uint32_t *r1, uint32_t *c0, uint32_t *c1)
{
    *c0 = 0, *c1 = dim;
    if (rows >= core_count) {
        tsr_core_range(rows, core_id, core_count, r0, r1);
    } else {
        *r0 = 0, *r1 = rows;
        tsr_core_range(dim, core_id, core_count, c0, c1);
    }
}

#endif
