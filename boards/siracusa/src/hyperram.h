/* HyperRAM behind the uDMA: the siracusa board's off-chip memory (tessera/siracusa_map.h).
 * Only cluster core 0 calls it (the runtime's DMA is core 0's); each call waits for its
 * transfers. */
#ifndef TESSERA_SIRACUSA_HYPERRAM_H
#define TESSERA_SIRACUSA_HYPERRAM_H

#include <stdbool.h>
#include <stdint.h>

/* Bytes the board's L2 staging buffer holds: what one transfer moves where the other side
 * is not word-aligned L2 (the uDMA writes whole words into L2 and reaches nothing else). */
#define TSR_HYPERRAM_STAGE_BYTES 16384u

/* Moves `bytes` from the staging buffer to `dst` (the board's: the cluster DMA into L1,
 * the core elsewhere). */
typedef void (*tsr_hyperram_move)(void *dst, const void *src, uint32_t bytes);

/* Clocks the uDMA's HyperBus peripheral and sets the RAM's latency (once, at boot). */
void tsr_hyperram_init(void);

/* HyperRAM bytes [offset, offset + bytes) into dst / from src, anywhere the cores reach;
 * the caller has checked the range against the RAM's size. */
void tsr_hyperram_read(uint32_t offset, void *dst, uint32_t bytes, tsr_hyperram_move move);
void tsr_hyperram_write(uint32_t offset, const void *src, uint32_t bytes);

/* A read in flight while the cores compute: starts HyperRAM bytes [offset, offset + bytes)
 * into word-aligned L2 at `l2` (which holds bytes rounded up to a word); tsr_hyperram_wait
 * returns once they are there. One at a time; the calls above wait for it first. */
void tsr_hyperram_start_read(uint32_t offset, void *l2, uint32_t bytes);
void tsr_hyperram_wait(void);
/* Whether a transfer is in flight (tsr_hyperram_wait would wait). */
bool tsr_hyperram_busy(void);

/* The staging buffer, for a caller that fills it before tsr_hyperram_write (the image loader). */
uint8_t *tsr_hyperram_stage(void);

#endif
