/* What the firmware demos need of qemu-virt-rv32 (boards/common/demo/demo_board.h). */
#include "demo_board.h"

#include "tessera/qemu_virt_rv32.h"

const tsr_hal_board *tsr_demo_board(void) { return tsr_qemu_board(); }
void tsr_demo_puts(const char *text) { tsr_qemu_puts(text); }
void tsr_demo_put_u64(uint64_t value) { tsr_qemu_put_u64(value); }
uint64_t tsr_demo_div_u64(uint64_t n, uint64_t d) { return tsr_qemu_div_u64(n, d); }
void tsr_demo_exit(int status) { tsr_qemu_exit(status); }
void tsr_demo_mark_begin(void) { tsr_qemu_mark_begin(); }
void tsr_demo_mark_end(void) { tsr_qemu_mark_end(); }
void tsr_demo_label_layers(bool on) { tsr_qemu_label_layers(on); }
void tsr_demo_put_op_labels(void) { tsr_qemu_put_op_labels(); }
const char *tsr_demo_cycles_meaning(void) { return "cycles; QEMU -icount: instructions of all harts"; }

void tsr_demo_put_engines(const tsr_hal_board *board)
{
    tsr_qemu_puts("DMA ");
    if (tsr_qemu_dma_hart() == TSR_QEMU_NO_DMA_HART) {
        tsr_qemu_puts("by the compute hart");
    } else {
        tsr_qemu_puts("hart ");
        tsr_qemu_put_u64(tsr_qemu_dma_hart());
    }
    tsr_qemu_puts(", NPU ");
    if (!board->has_npu) {
        tsr_qemu_puts("none");
    } else if (tsr_qemu_npu_hart() == TSR_QEMU_NO_NPU_HART) {
        tsr_qemu_puts("by the controller");
    } else {
        tsr_qemu_puts("hart ");
        tsr_qemu_put_u64(tsr_qemu_npu_hart());
    }
}
