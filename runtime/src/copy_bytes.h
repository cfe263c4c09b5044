// Bytes from one buffer to another (not overlapping), a word at a time where both are
// word-aligned: the bare-metal boards' C library copies a byte at a time (picolibc's
// size-optimized memcpy: six instructions a byte, about 27 cycles a byte from L2 on
// GVSoC's Siracusa), which made the rows a decoder-only run copies in and out a
// twentieth of a microLlama64 prompt.
#ifndef TESSERA_RUNTIME_COPY_BYTES_H
#define TESSERA_RUNTIME_COPY_BYTES_H

#include <stddef.h>
#include <stdint.h>

namespace tsr {

// (GCC would turn the loops back into a call of memcpy.)
__attribute__((optimize("no-tree-loop-distribute-patterns"))) inline void copy_bytes(void *dst, const void *src, size_t n)
{
    typedef uint32_t __attribute__((may_alias)) word;
    uint8_t *d = static_cast<uint8_t *>(dst);
    const uint8_t *s = static_cast<const uint8_t *>(src);
    if ((((uintptr_t)d | (uintptr_t)s) & 3u) == 0u) {
        for (; n >= 4u; n -= 4u, d += 4, s += 4) *(word *)(void *)d = *(const word *)(const void *)s;
    }
    for (; n; --n) *d++ = *s++;
}

} // namespace tsr

#endif
