/*
 * Tessera on QEMU's `virt` machine, bare metal, RV32 harts (no OS).
 *
 *  - The board it emulates is a description's (CMake's TESSERA_QEMU_BOARD, by default
 *    boards/qemu-virt-rv32/board.json: 8 cores, an NPU): its name, cores, regions and
 *    queues. Of the harts that boot (up to TSR_QEMU_BOOT_HARTS, 10 by default): with
 *    all of them, harts 0 to cores - 1 are the cluster, the next the DMA engine and,
 *    with an NPU, the last the NPU; with fewer, the last is the DMA engine and the
 *    others the cluster; one hart is the whole cluster and does its own copies. Hart 0 is the controller and core 0; the other cluster harts sleep in
 *    `wfi` between forks and at barriers, woken by CLINT software interrupts.
 *  - DMA: a bounded queue of 2D copies, served in order; the engine sleeps in `wfi`
 *    when it is empty.
 *  - NPU (tessera/npu.h): a bounded queue of int8 GEMM jobs of the depth in
 *    board.json, served in order by its hart with the bit-serial execution the
 *    header defines, weights read from NMS or L1. Without an NPU hart, the submitting
 *    hart runs each job when it is submitted.
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

/* The emulated description's cluster cores and NPU (set by the board's CMake target). */
#ifndef TSR_QEMU_MAX_HARTS
#define TSR_QEMU_MAX_HARTS 8u
#endif
#ifndef TSR_QEMU_HAS_NPU
#define TSR_QEMU_HAS_NPU 1u
#endif
/* The cluster, the DMA engine and the NPU (when there is one). */
#define TSR_QEMU_BOOT_HARTS (TSR_QEMU_MAX_HARTS + 1u + TSR_QEMU_HAS_NPU)

/* The board, ready once main() runs. */
const tsr_hal_board *tsr_qemu_board(void);

void tsr_qemu_puts(const char *text);
void tsr_qemu_put_u64(uint64_t value);
/* n / d (d > 0; 0 for d = 0) by shifts and subtractions: RV32 has 64-bit division only as
 * a library call, some 1.7 KB of libgcc this board and its demo need not carry. */
uint64_t tsr_qemu_div_u64(uint64_t n, uint64_t d);

#define TSR_QEMU_NO_DMA_HART 0xFFFFFFFFu
/* The hart serving the DMA queue, or TSR_QEMU_NO_DMA_HART (one hart: it copies itself). */
uint32_t tsr_qemu_dma_hart(void);

#define TSR_QEMU_NO_NPU_HART 0xFFFFFFFFu
/* The hart serving the NPU queue, or TSR_QEMU_NO_NPU_HART (fewer than
 * TSR_QEMU_BOOT_HARTS harts: the submitting hart runs each job; no NPU). */
uint32_t tsr_qemu_npu_hart(void);

/* Marks for the hart-counter plugin: a measured region (a token) begins and ends.
 * RISC-V HINTs: no-ops to the hardware, recognised by the plugin. */
static inline void tsr_qemu_mark_begin(void) { __asm__ volatile("slti zero, zero, 0x7a1"); }
static inline void tsr_qemu_mark_end(void) { __asm__ volatile("slti zero, zero, 0x7a2"); }

/* With `on`, each compute hart labels its instructions with the model layer of the
 * step it works on (the HAL's trace op), and the plugin reports the busiest hart's
 * instructions per layer. Off by default: labelling costs a few instructions a step. */
void tsr_qemu_label_layers(bool on);
/* Each compute hart always labels its instructions with the operator it works on (the
 * plugin reports instructions per operator label); this prints "op labels: K=name ...". */
void tsr_qemu_put_op_labels(void);

/* On a board whose off-chip memory only the DMA engine reads (the description's
 * "offchip" with "cores_read": false, and a DMA hart), the first byte of the weights the
 * image keeps there, which each compute hart's PMP refuses to load (a trap: the console
 * names it and QEMU exits with status 4); NULL otherwise. */
const void *tsr_qemu_dma_only_begin(void);

/* Ends QEMU: status 0 passes, anything else fails. */
void tsr_qemu_exit(int status) __attribute__((noreturn));

#ifdef __cplusplus
}
#endif

#endif
