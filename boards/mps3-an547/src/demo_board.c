/* What the firmware demos need of mps3-an547 (boards/common/demo/demo_board.h). */
#include "demo_board.h"

#include "tessera/div_u64.h"
#include "tessera/mps3_an547.h"

const tsr_hal_board *tsr_demo_board(void) { return tsr_m55_board(); }
void tsr_demo_puts(const char *text) { tsr_m55_puts(text); }
void tsr_demo_put_u64(uint64_t value) { tsr_m55_put_u64(value); }
uint64_t tsr_demo_div_u64(uint64_t n, uint64_t d) { return tsr_div_u64(n, d); }
void tsr_demo_exit(int status) { tsr_m55_exit(status); }
void tsr_demo_mark_begin(void) { tsr_m55_mark_begin(); }
void tsr_demo_mark_end(void) { tsr_m55_mark_end(); }
void tsr_demo_label_layers(bool on) { tsr_m55_label_layers(on); }
void tsr_demo_put_op_labels(void) { tsr_m55_put_op_labels(); }
const char *tsr_demo_cycles_meaning(void) { return "processor clock ticks (SysTick under QEMU, which models no DWT)"; }

void tsr_demo_put_engines(const tsr_hal_board *board)
{
    (void)board;
    tsr_m55_puts("DMA by the core, NPU none");
}
