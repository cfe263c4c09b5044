/* Provokes a trap on cluster core 0 (an illegal instruction): the board's trap handler must
 * end the simulation naming the core, mcause 2 and the pc (ctest gvsoc_trap). */
#include "tessera/siracusa.h"

int main(void)
{
    tsr_pulp_puts("about to execute an illegal instruction\n");
    __asm__ volatile(".word 0x00000000");
    tsr_pulp_puts("error: no trap\n");
    return 1;
}
