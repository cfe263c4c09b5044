/*
 * What the PULP boards' firmware programs (the HAL conformance suite, the kernel cases, the
 * demos) need of a PULP cluster board beyond the HAL: pulp-rtl (the CV32E40P cluster RTL
 * under Verilator, tessera/pulp_rtl.h) and siracusa (GVSoC's Siracusa model,
 * tessera/siracusa.h) each implement it. The application provides `int main(void)`; it
 * runs on cluster core 0.
 */
#ifndef TESSERA_PULP_BOARD_H
#define TESSERA_PULP_BOARD_H

#include <stdint.h>

#include "tessera/hal.h"

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

/* A measured run begins and ends (core 0): the board counts its cycles (and, on pulp-rtl,
 * each core's busy cycles and L1 bank-conflict stalls per operator). */
void tsr_pulp_mark_begin(void);
void tsr_pulp_mark_end(void);

/* Ends the simulation: status 0 passes, anything else fails. */
void tsr_pulp_exit(int status) __attribute__((noreturn));

#ifdef __cplusplus
}
#endif

#endif
