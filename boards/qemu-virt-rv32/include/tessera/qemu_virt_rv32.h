/*
 * Tessera on QEMU's `virt` machine, bare metal, RV32 harts (no OS).
 *
 *  - Of the harts that boot (up to 9), the last is the DMA engine when there are
 *    two or more: it serves a bounded queue of 2D copies in order and sleeps in
 *    `wfi` when the queue is empty. The others are the cluster (up to 8): hart 0 is
 *    the controller and core 0; the rest sleep in `wfi` between forks and at
 *    barriers, and are woken by CLINT software interrupts. With one hart, it is the
 *    whole cluster and does its own copies.
 *  - There is no NPU.
 *  - Console: the 16550 UART at 0x10000000. Exit: the SiFive test device at
 *    0x100000 ends QEMU with the program's status.
 *  - Instructions per hart are counted by the hart-counter TCG plugin
 *    (tools/qemu-plugin), between the marks below.
 * The application provides `int main(void)`; it runs on hart 0.
 */
#ifndef TESSERA_QEMU_VIRT_RV32_H
#define TESSERA_QEMU_VIRT_RV32_H

#include <stdbool.h>
#include <stdint.h>

#include "tessera/hal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TSR_QEMU_MAX_HARTS 8u /* cluster cores; one more hart can serve the DMA */

/* The board, ready once main() runs. */
const tsr_hal_board *tsr_qemu_board(void);

void tsr_qemu_puts(const char *text);
void tsr_qemu_put_u64(uint64_t value);

#define TSR_QEMU_NO_DMA_HART 0xFFFFFFFFu
/* The hart serving the DMA queue, or TSR_QEMU_NO_DMA_HART (one hart: it copies itself). */
uint32_t tsr_qemu_dma_hart(void);

/* Marks for the hart-counter plugin: a measured region (a token) begins and ends.
 * RISC-V HINTs: no-ops to the hardware, recognised by the plugin. */
static inline void tsr_qemu_mark_begin(void) { __asm__ volatile("slti zero, zero, 0x7a1"); }
static inline void tsr_qemu_mark_end(void) { __asm__ volatile("slti zero, zero, 0x7a2"); }

/* With `on`, each compute hart labels its instructions with the model layer of the
 * step it works on (the HAL's trace op), and the plugin reports the busiest hart's
 * instructions per layer. Off by default: labelling costs a few instructions a step. */
void tsr_qemu_label_layers(bool on);

/* Ends QEMU: status 0 passes, anything else fails. */
void tsr_qemu_exit(int status) __attribute__((noreturn));

#ifdef __cplusplus
}
#endif

#endif
