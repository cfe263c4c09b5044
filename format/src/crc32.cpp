#include "tessera/crc32.h"

// Half-byte table: 64 bytes of constants instead of 1 KiB, fast enough to check an
// image once at open.
static const uint32_t kNibbleTable[16] = {
    0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u,
    0x4DB26158u, 0x5005713Cu, 0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
    0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu};

uint32_t tsr_crc32(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = (const uint8_t *)data;
    crc = ~crc;
    for (size_t i = 0; i < len; ++i) {
        crc ^= p[i];
        crc = (crc >> 4) ^ kNibbleTable[crc & 15u];
        crc = (crc >> 4) ^ kNibbleTable[crc & 15u];
    }
    return ~crc;
}
