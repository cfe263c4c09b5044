/*
 * Tessera on Arm's MPS3 AN547 (Corstone-300: a Cortex-M55 with Helium and a
 * double-precision FPU), bare metal, as QEMU emulates it (qemu-system-arm -M mps3-an547
 * -semihosting): the board description's one core is the cluster.
 *
 *  - Fork runs the task inline; a barrier has nothing to wait for.
 *  - DMA: the HAL's queue of 1D and 2D copies, done by the core when they are submitted
 *    (QEMU models no DMA engine that would pay); handles and waits as the HAL says.
 *  - NPU: none in the description (the AN547's Ethos-U55 is not Tessera's NPU).
 *  - Instructions: the hart-counter plugin counts them (marks and labels: `movw r12, #code`).
 *  - Counter: the DWT's CYCCNT where it counts; QEMU does not model it, so there the
 *    board counts SysTick's ticks of the processor clock instead.
 *  - Console: CMSDK UART0 (secure alias 0x59303000). Exit: semihosting SYS_EXIT_EXTENDED,
 *    which ends QEMU with the program's status.
 * The application provides `int main(void)`.
 */
#ifndef TESSERA_MPS3_AN547_H
#define TESSERA_MPS3_AN547_H

#include <stdbool.h>
#include <stdint.h>

#include "tessera/hal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The board, ready once main() runs. */
const tsr_hal_board *tsr_m55_board(void);
void tsr_m55_puts(const char *text);
void tsr_m55_put_u64(uint64_t value);
/* Marks for the hart-counter plugin (tools/qemu-plugin): a measured region (a token)
 * begins and ends; `movw r12, #code`, r12 named clobbered. */
static inline void tsr_m55_mark_begin(void) { __asm__ volatile("movw r12, #0x7a1" ::: "r12"); }
static inline void tsr_m55_mark_end(void) { __asm__ volatile("movw r12, #0x7a2" ::: "r12"); }
/* Each step's operator is always labelled for the plugin; with `on` its layer too. */
void tsr_m55_label_layers(bool on);
/* Prints "op labels: K=name ...". */
void tsr_m55_put_op_labels(void);

/* Ends QEMU: status 0 passes, anything else fails. */
void tsr_m55_exit(int status) __attribute__((noreturn));

#ifdef __cplusplus
}
#endif

#endif
