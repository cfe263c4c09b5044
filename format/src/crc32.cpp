#include "tessera/crc32.h"

// Half-byte table: 64 bytes of constants instead of 1 KiB, fast enough to check an
// image once at open.
static const uint32_t kNibbleTable[16] = {
    0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u,
    0x4DB26158u, 0x5005713Cu, 0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
    0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu};

// A byte table is built on the stack first (256 entries from the 16 above: 512 steps):
// on a cluster core the stack is its own fast memory (L1), while the constants and the
// image may sit behind a slow bus (pulp-rtl reads L2 at 8 cycles a load); the data is
// read a word at a time where aligned, a table step a byte.
uint32_t tsr_crc32(uint32_t crc, const void *data, size_t len)
{
    uint32_t table[256];
    for (uint32_t i = 0; i < 256u; ++i) {
        uint32_t c = i;
        c = (c >> 4) ^ kNibbleTable[c & 15u];
        table[i] = (c >> 4) ^ kNibbleTable[c & 15u];
    }
    const uint8_t *p = (const uint8_t *)data;
    crc = ~crc;
    for (; len && ((uintptr_t)p & 3u) != 0u; --len, ++p) crc = (crc >> 8) ^ table[(crc ^ *p) & 255u];
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; len >= 4u; len -= 4u, p += 4) { // the word's bytes in order: its low byte first
        uint32_t w;
        __builtin_memcpy(&w, p, 4); // one aligned load
        crc ^= w;
        crc = (crc >> 8) ^ table[crc & 255u];
        crc = (crc >> 8) ^ table[crc & 255u];
        crc = (crc >> 8) ^ table[crc & 255u];
        crc = (crc >> 8) ^ table[crc & 255u];
    }
#endif
    for (; len; --len, ++p) crc = (crc >> 8) ^ table[(crc ^ *p) & 255u];
    return ~crc;
}

// Combining: crc(A B) = crc_a x^(8 len_b) + crc_b in GF(2) modulo the CRC's polynomial
// (reflected: bit 31 is x^0), x^(8 len_b) from the powers x^(2^k) by len_b's bits.
static uint32_t multiply_mod_p(uint32_t a, uint32_t b)
{
    uint32_t product = 0;
    for (uint32_t m = 1u << 31; m != 0u; m >>= 1) {
        if (a & m) product ^= b;
        b = (b & 1u) ? (b >> 1) ^ 0xEDB88320u : b >> 1; // b times x
    }
    return product;
}

uint32_t tsr_crc32_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
    uint32_t power = 1u << 30; // x^1; squared k times: x^(2^k)
    uint32_t factor = 1u << 31; // x^0
    uint64_t n = len_b * 8u; // bits
    for (; n != 0u; n >>= 1) {
        if (n & 1u) factor = multiply_mod_p(power, factor);
        power = multiply_mod_p(power, power);
    }
    return multiply_mod_p(factor, crc_a) ^ crc_b;
}
