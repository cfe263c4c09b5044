/*
 * Test vectors for a decoder-only image as one flat blob, for firmware that has no
 * file system: what tessera-eval --emit-vectors writes from another system's
 * inputs.npz and outputs.npz, and what the QEMU board's vectors firmware runs.
 *
 * The header, then int8 arrays back to back, each in the runtime's row layout
 * (a KV cache row is position p's kv_dim values, head after head):
 *
 *   rows_in     rows x dim
 *   rotations   rows x head_size^2 (row-major matrices)
 *   past        for each layer: K then V, past x dim each
 *   want_rows   rows x dim          (the expected hidden state out)
 *   want_cache  for each layer: K then V, (past + rows) x dim each (the expected caches)
 */
#ifndef TESSERA_TEST_VECTORS_H
#define TESSERA_TEST_VECTORS_H

#include <stdint.h>

#define TSR_VECTORS_MAGIC 0x56525354u /* "TSRV" read as a little-endian uint32 */
#define TSR_VECTORS_VERSION 1u

typedef struct tsr_vectors_header {
    uint32_t magic, version;
    uint32_t rows, past;         /* S and S_past */
    uint32_t dim, head_size, n_layers;
    uint32_t reserved;
} tsr_vectors_header;

/* Byte offsets of the arrays after the header (0 in `bytes` when the sizes overflow 32 bits). */
typedef struct tsr_vectors_layout {
    uint32_t rows_in, rotations, past, want_rows, want_cache, bytes;
} tsr_vectors_layout;

static inline tsr_vectors_layout tsr_vectors_layout_of(const tsr_vectors_header *h)
{
    tsr_vectors_layout l = {0, 0, 0, 0, 0, 0};
    const uint64_t row = h->dim, s = h->rows, total = (uint64_t)h->past + h->rows;
    const uint64_t rows_in = sizeof(tsr_vectors_header), rotations = rows_in + s * row;
    const uint64_t past = rotations + s * h->head_size * h->head_size;
    const uint64_t want_rows = past + 2u * (uint64_t)h->n_layers * h->past * row;
    const uint64_t want_cache = want_rows + s * row, bytes = want_cache + 2u * (uint64_t)h->n_layers * total * row;
    if (bytes > 0xFFFFFFFFu) return l;
    l.rows_in = (uint32_t)rows_in;
    l.rotations = (uint32_t)rotations;
    l.past = (uint32_t)past;
    l.want_rows = (uint32_t)want_rows;
    l.want_cache = (uint32_t)want_cache;
    l.bytes = (uint32_t)bytes;
    return l;
}

#endif
