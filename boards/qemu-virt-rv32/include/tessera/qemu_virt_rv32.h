/*
 * Tessera on QEMU's `virt` machine, bare metal, RV32 harts (no OS).
 *
 *  - The cluster is the harts that boot (up to 8): hart 0 is the controller and
 *    core 0; the others sleep in `wfi` and are woken by a CLINT software interrupt
 *    for each fork, and wake hart 0 the same way when the last of them finishes.
 *  - The DMA engine is executed synchronously by the calling hart (hart 0): a copy
 *    is complete when dma_copy returns; dma_wait only checks the handle.
 *  - There is no NPU.
 *  - Console: the 16550 UART at 0x10000000. Exit: the SiFive test device at
 *    0x100000 ends QEMU with the program's status.
 * The application provides `int main(void)`; it runs on hart 0.
 */
#ifndef TESSERA_QEMU_VIRT_RV32_H
#define TESSERA_QEMU_VIRT_RV32_H

#include <stdint.h>

#include "tessera/hal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TSR_QEMU_MAX_HARTS 8u

/* The board, ready once main() runs. */
const tsr_hal_board *tsr_qemu_board(void);

void tsr_qemu_puts(const char *text);
void tsr_qemu_put_u64(uint64_t value);

/* Instructions retired so far by each hart, index = hart (harts outside the
 * cluster read 0). QEMU's minstret under -icount counts the whole machine, so the
 * board derives per-hart figures: each worker adds the counter's advance over its
 * own active windows (the others sleep in wfi meanwhile), and hart 0 gets the rest.
 * Their sum is exactly minstret. Call from hart 0 outside any task. */
void tsr_qemu_sample_instructions(uint64_t out[TSR_QEMU_MAX_HARTS]);

/* Ends QEMU: status 0 passes, anything else fails. */
void tsr_qemu_exit(int status) __attribute__((noreturn));

#ifdef __cplusplus
}
#endif

#endif
