/* CRC-32 (IEEE 802.3, reflected, as zlib computes it); shared by packer and runtime. */
#ifndef TESSERA_CRC32_H
#define TESSERA_CRC32_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Continue a CRC: start with crc = 0; tsr_crc32(0, "123456789", 9) == 0xCBF43926. */
uint32_t tsr_crc32(uint32_t crc, const void *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif
