/* The HAL conformance suite (tessera/hal_conformance.h) on qemu-virt-rv32: prints
 * a line per check and exits with the number of failures (0: QEMU exits 0). */
#include "tessera/hal_conformance.h"
#include "tessera/qemu_virt_rv32.h"

static void print_line(void *ctx, const char *line)
{
    (void)ctx;
    tsr_qemu_puts("  ");
    tsr_qemu_puts(line);
    tsr_qemu_puts("\n");
}

int main(void)
{
    const tsr_hal_board *board = tsr_qemu_board();
    tsr_qemu_puts("conformance of qemu-virt-rv32: ");
    tsr_qemu_put_u64(board->core_count);
    tsr_qemu_puts(" compute harts, DMA ");
    if (tsr_qemu_dma_hart() == TSR_QEMU_NO_DMA_HART) tsr_qemu_puts("by the compute hart");
    else tsr_qemu_put_u64(tsr_qemu_dma_hart());
    tsr_qemu_puts(", NPU ");
    if (!board->has_npu) tsr_qemu_puts("none");
    else if (tsr_qemu_npu_hart() == TSR_QEMU_NO_NPU_HART) tsr_qemu_puts("by the controller");
    else tsr_qemu_put_u64(tsr_qemu_npu_hart());
    tsr_qemu_puts("\n");
    const tsr_conformance_result r = tsr_hal_conformance(board, print_line, 0);
    tsr_qemu_puts("conformance: ");
    tsr_qemu_put_u64(r.passed);
    tsr_qemu_puts(" passed, ");
    tsr_qemu_put_u64(r.failed);
    tsr_qemu_puts(" failed, ");
    tsr_qemu_put_u64(r.skipped);
    tsr_qemu_puts(" skipped\n");
    return r.failed ? 1 : 0;
}
