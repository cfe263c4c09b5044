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

/* The CRC of A followed by B from crc_a = tsr_crc32(0, A), crc_b = tsr_crc32(0, B) and B's
 * length: parts summed apart (on several cores) joined into the whole's. */
uint32_t tsr_crc32_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

#ifdef __cplusplus
}
#endif

#endif
