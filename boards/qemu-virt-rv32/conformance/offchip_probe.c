/*
 * The off-chip memory only the DMA hart reads, proved: on a board built from a
 * description whose "offchip" says "cores_read": false, a compute hart (hart 0, core 0)
 * loads a word of the weights the image keeps there. Its locked PMP entry must refuse
 * it: the trap vector prints "trap: load access fault ..." and QEMU exits with status 4.
 * Reaching the end is the failure (status 1).
 */
#include <stdint.h>

#include "tessera/qemu_virt_rv32.h"

int main(void)
{
    const volatile uint32_t *weights = (const volatile uint32_t *)tsr_qemu_dma_only_begin();
    if (weights == 0) {
        tsr_qemu_puts("probe: no DMA-only weights (no offchip with cores_read false, no DMA hart, or no image "
                      "weights left in place)\n");
        return 1;
    }
    tsr_qemu_puts("probe: compute hart 0 loads the off-chip weights at their first word\n");
    const uint32_t word = *weights;
    tsr_qemu_puts("probe: the load returned ");
    tsr_qemu_put_u64(word);
    tsr_qemu_puts(": it did not trap\n");
    return 1;
}
