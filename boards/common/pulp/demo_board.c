/* What the firmware demos need of a PULP cluster board (boards/common/demo/demo_board.h),
 * through tessera/pulp_board.h. The board's library defines TSR_PULP_CYCLES_MEANING (what its
 * cycles are) and TSR_PULP_ENGINES (its DMA and NPU, in a few words). */
#include "demo_board.h"

#include "tessera/pulp_board.h"

const tsr_hal_board *tsr_demo_board(void) { return tsr_pulp_board(); }
void tsr_demo_puts(const char *text) { tsr_pulp_puts(text); }
void tsr_demo_put_u64(uint64_t value) { tsr_pulp_put_u64(value); }
uint64_t tsr_demo_div_u64(uint64_t n, uint64_t d) { return tsr_pulp_div_u64(n, d); }
void tsr_demo_exit(int status) { tsr_pulp_exit(status); }
void tsr_demo_mark_begin(void) { tsr_pulp_mark_begin(); }
void tsr_demo_mark_end(void) { tsr_pulp_mark_end(); }
void tsr_demo_label_layers(bool on) { (void)on; /* the board measures every run whole (pulp-rtl: by operator too) */ }
void tsr_demo_put_op_labels(void) {}
const char *tsr_demo_cycles_meaning(void) { return TSR_PULP_CYCLES_MEANING; }

void tsr_demo_put_engines(const tsr_hal_board *board)
{
    (void)board;
    tsr_pulp_puts(TSR_PULP_ENGINES);
}
