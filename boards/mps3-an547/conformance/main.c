/* The HAL conformance suite (tessera/hal_conformance.h) on mps3-an547: prints a line per
 * check and exits with the number of failures (0: QEMU exits 0). */
#include "tessera/hal_conformance.h"
#include "tessera/mps3_an547.h"

static void print_line(void *ctx, const char *line)
{
    (void)ctx;
    tsr_m55_puts("  ");
    tsr_m55_puts(line);
    tsr_m55_puts("\n");
}

int main(void)
{
    tsr_m55_puts("conformance of mps3-an547: 1 core, DMA by the core, NPU none\n");
    const tsr_conformance_result r = tsr_hal_conformance(tsr_m55_board(), print_line, 0);
    tsr_m55_puts("conformance: ");
    tsr_m55_put_u64(r.passed);
    tsr_m55_puts(" passed, ");
    tsr_m55_put_u64(r.failed);
    tsr_m55_puts(" failed, ");
    tsr_m55_put_u64(r.skipped);
    tsr_m55_puts(" skipped\n");
    return r.failed ? 1 : 0;
}
