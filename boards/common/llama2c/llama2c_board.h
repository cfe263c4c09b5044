/* What llama2c_os.c asks of the board it runs run.c on (each board's llama2c file). */
#ifndef TESSERA_LLAMA2C_BOARD_H
#define TESSERA_LLAMA2C_BOARD_H

#include <stdint.h>

#include "tessera/hal.h"

void tsr_llama2c_puts(const char *text);
void tsr_llama2c_put_u64(uint64_t value);
uint64_t tsr_llama2c_div_u64(uint64_t n, uint64_t d);
void tsr_llama2c_exit(int status) __attribute__((noreturn));
/* The board (its L2 and NMS regions are the heap). */
const tsr_hal_board *tsr_llama2c_board(void);
/* The counter run.c's clock reads, and what it counts ("cycles", ...). */
uint64_t tsr_llama2c_clock(void);
const char *tsr_llama2c_clock_unit(void);
/* Called with 1 at run.c's first clock reading and 0 at its last: a board that counts
 * instructions between measuring marks (QEMU's plugin) places them here. */
void tsr_llama2c_measure(int begin);

#endif
