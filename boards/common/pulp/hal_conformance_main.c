/* The HAL conformance suite (tessera/hal_conformance.h) on a PULP cluster board (pulp-rtl,
 * siracusa): prints a line per check and exits with the number of failures. */
#include "tessera/hal_conformance.h"
#include "tessera/pulp_board.h"

static void print_line(void *ctx, const char *line)
{
    (void)ctx;
    tsr_pulp_puts("  ");
    tsr_pulp_puts(line);
    tsr_pulp_puts("\n");
}

int main(void)
{
    const tsr_hal_board *board = tsr_pulp_board();
    tsr_pulp_puts("conformance of ");
    tsr_pulp_puts(board->name);
    tsr_pulp_puts(": ");
    tsr_pulp_put_u64(board->core_count);
    tsr_pulp_puts(" cores\n");
    const tsr_conformance_result r = tsr_hal_conformance(board, print_line, 0);
    tsr_pulp_puts("conformance: ");
    tsr_pulp_put_u64(r.passed);
    tsr_pulp_puts(" passed, ");
    tsr_pulp_put_u64(r.failed);
    tsr_pulp_puts(" failed, ");
    tsr_pulp_put_u64(r.skipped);
    tsr_pulp_puts(" skipped\n");
    return r.failed ? 1 : 0;
}
