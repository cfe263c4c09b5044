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
#include "tessera/pulp_board.h" /* tsr_pulp_board, tsr_pulp_puts, ...: what it implements */
#include "tessera/pulp_rtl_map.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif
