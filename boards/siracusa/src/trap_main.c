/* Provokes a trap on cluster core 0 (an all-zero instruction word): the board's trap handler
 * must end the simulation naming the core, the cause (GVSoC's cores report mcause 11 for it)
 * and the pc, in the code's region of the weight memory (ctest gvsoc_trap). */
#include "tessera/siracusa.h"

int main(void)
{
    tsr_pulp_puts("about to execute an illegal instruction\n");
    __asm__ volatile(".word 0x00000000");
    tsr_pulp_puts("error: no trap\n");
    return 1;
}
