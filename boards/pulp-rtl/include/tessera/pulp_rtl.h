/*
 * Tessera on the pulp-rtl board: the CV32E40P cluster RTL (COREV_PULP: the XpulpV2
 * extensions) under Verilator, with the testbench's memories, event unit and DMA engine
 * (boards/pulp-rtl/sim, tessera/pulp_rtl_map.h).
 *
 *  - Cluster: the description's cores (1 or 8). Core 0 is the controller; the others
 *    wait in the event unit for a fork (a load the testbench answers once core 0 posts
 *    one) and meet at barriers (a load answered when every core has made it). A waiting
 *    core is idle.
 *  - DMA: the testbench's engine, an in-order queue of 2D copies (board.json: memory).
 *  - NPU (tessera/npu.h): a queue of the description's depth whose jobs run, in order,
 *    on the core that waits for or polls one, with the same bit-serial execution as
 *    every board (the RTL has no NPU).
 *  - Cycles: mcycle, counted from reset (start-up clears mcountinhibit).
 * The application provides `int main(void)`; it runs on core 0.
 */
#ifndef TESSERA_PULP_RTL_H
#define TESSERA_PULP_RTL_H

#include <stdbool.h>
#include <stdint.h>

#include "tessera/hal.h"
#include "tessera/pulp_rtl_map.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The board, ready once main() runs. */
const tsr_hal_board *tsr_pulp_board(void);

void tsr_pulp_puts(const char *text);
/* This core's mcycle (64 bits). */
uint64_t tsr_pulp_mcycle(void);
void tsr_pulp_put_u64(uint64_t value);
uint64_t tsr_pulp_div_u64(uint64_t n, uint64_t d);

/* A measured run begins and ends (core 0): the testbench counts its cycles and, per
 * operator, each core's busy cycles and L1 bank-conflict stalls. */
void tsr_pulp_mark_begin(void);
void tsr_pulp_mark_end(void);

/* Ends the simulation: status 0 passes, anything else fails. */
void tsr_pulp_exit(int status) __attribute__((noreturn));

#ifdef __cplusplus
}
#endif

#endif
