/* run.c on the mps3-an547 board: llama2c_os.c's hooks. The clock is the board's counter
 * (SysTick ticks under QEMU, which models no DWT); QEMU's instruction-counting plugin
 * counts between the measuring marks placed at run.c's first and last clock readings
 * (ctest firmware_m55_llama2c). */
#include <stdint.h>

#include "llama2c_board.h"
#include "tessera/mps3_an547.h"

void tsr_llama2c_puts(const char *text) { tsr_m55_puts(text); }
void tsr_llama2c_put_u64(uint64_t value) { tsr_m55_put_u64(value); }
uint64_t tsr_llama2c_div_u64(uint64_t n, uint64_t d) { return n / d; }
void tsr_llama2c_exit(int status) { tsr_m55_exit(status); }
const tsr_hal_board *tsr_llama2c_board(void) { return tsr_m55_board(); }
uint64_t tsr_llama2c_clock(void)
{
    const tsr_hal_board *b = tsr_m55_board();
    return b->ops->cycles(b->ctx);
}
const char *tsr_llama2c_clock_unit(void) { return "clock ticks"; }
void tsr_llama2c_measure(int begin)
{
    if (begin) tsr_m55_mark_begin();
    else tsr_m55_mark_end();
}
