/* What the firmware demos need of siracusa (boards/common/demo/demo_board.h). */
#include "demo_board.h"

#include "tessera/siracusa.h"

const tsr_hal_board *tsr_demo_board(void) { return tsr_pulp_board(); }
void tsr_demo_puts(const char *text) { tsr_pulp_puts(text); }
void tsr_demo_put_u64(uint64_t value) { tsr_pulp_put_u64(value); }
uint64_t tsr_demo_div_u64(uint64_t n, uint64_t d) { return tsr_pulp_div_u64(n, d); }
void tsr_demo_exit(int status) { tsr_pulp_exit(status); }
void tsr_demo_mark_begin(void) { tsr_pulp_mark_begin(); }
void tsr_demo_mark_end(void) { tsr_pulp_mark_end(); }
void tsr_demo_label_layers(bool on) { (void)on; }
void tsr_demo_put_op_labels(void) {}
const char *tsr_demo_cycles_meaning(void) { return "mcycle: cycles of GVSoC's Siracusa, cluster core 0"; }

void tsr_demo_put_engines(const tsr_hal_board *board)
{
    (void)board;
    tsr_pulp_puts("DMA the cluster DMA (mchan), NPU jobs run by the core that waits");
}
