/* Every core of GVSoC's Siracusa starts here, in machine mode: the fabric controller (FC,
 * mhartid 0x3E0) first, from the ELF's entry; the cluster cores 0..7 once the FC starts them.
 *
 * The FC boots the SoC: it enables the cluster's instruction cache, gives the cluster cores
 * this entry as their boot address, enables their fetch, and sleeps (wfi) for the rest of the
 * run. The model's FC is rv32imc without F: the runtime, built for the cluster's rv32imfc
 * (ilp32f), runs on cluster core 0, as many PULP applications do, and the FC executes only
 * this file's integer instructions. Cluster core 0 ends the simulation (SoC CORESTATUS). */
#include "tessera/siracusa_map.h"

    .section .text.start, "ax"
    .globl _start
_start:
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    la      t0, tsr_siracusa_trap
    csrw    mtvec, t0
    csrr    a0, mhartid
    li      t1, SIRACUSA_FC_HARTID
    beq     a0, t1, fc_boot
    andi    a0, a0, 0x1F            /* the core within the cluster */
    la      sp, __stacks_end        /* core 0: the top of L1; core c: below core 0's, OTHER bytes each */
    beqz    a0, 1f
    li      t2, TSR_SIRACUSA_STACK_CORE0
    sub     sp, sp, t2
    addi    t3, a0, -1
    li      t2, TSR_SIRACUSA_STACK_OTHER
    mul     t3, t3, t2
    sub     sp, sp, t3
1:
#ifdef __riscv_flen
    li      t4, (1 << 13)           /* mstatus.FS = initial: the FPU is on */
    csrs    mstatus, t4
    fscsr   zero
#endif
    call    tsr_siracusa_core_entry /* never returns */
2:  j       2b

fc_boot:
    li      t0, SIRACUSA_ICACHE_ENABLE
    li      t1, -1
    sw      t1, 0(t0)
    la      t1, _start
    li      t0, SIRACUSA_CLUSTER_BOOT_ADDR(0)
    li      t2, TSR_SIRACUSA_CORES
3:  sw      t1, 0(t0)
    addi    t0, t0, 4
    addi    t2, t2, -1
    bnez    t2, 3b
    li      t0, SIRACUSA_CLUSTER_FETCH_EN
    li      t1, (1 << TSR_SIRACUSA_CORES) - 1
    sw      t1, 0(t0)
4:  wfi                             /* cluster core 0 ends the simulation */
    j       4b

/* A trap (an illegal instruction, a misaligned or faulting access, ...) on any core, the FC's
 * included: one line on the console naming the core, mcause, mepc and mtval, then the end of
 * the simulation with status 0x7F. Integer instructions only (the FC runs it too); the
 * stdout slot of the FC, which only prints here. */
    .balign 4
    .globl tsr_siracusa_trap
tsr_siracusa_trap:
    li      s0, SIRACUSA_STDOUT + (31 << 7)
    la      s1, trap_text
5:  lbu     t0, 0(s1)
    beqz    t0, 6f
    sb      t0, 0(s0)
    addi    s1, s1, 1
    j       5b
6:  csrr    a0, mhartid
    li      t1, SIRACUSA_FC_HARTID
    li      t0, 'F'
    beq     a0, t1, 7f
    li      t0, 'C'                 /* "core C<n>": cluster core n */
    sb      t0, 0(s0)
    andi    t0, a0, 0x1F
    addi    t0, t0, '0'
7:  sb      t0, 0(s0)
    la      s1, trap_cause
    jal     s2, put_text
    csrr    a0, mcause
    jal     s2, put_hex
    la      s1, trap_pc
    jal     s2, put_text
    csrr    a0, mepc
    jal     s2, put_hex
    la      s1, trap_tval
    jal     s2, put_text
    csrr    a0, mtval
    jal     s2, put_hex
    li      t0, '\n'
    sb      t0, 0(s0)
    li      t0, SIRACUSA_CORESTATUS
    li      t1, 0x8000007F
    sw      t1, 0(t0)
8:  j       8b
put_text:                           /* s1: the text; returns to s2 */
    lbu     t0, 0(s1)
    beqz    t0, 9f
    sb      t0, 0(s0)
    addi    s1, s1, 1
    j       put_text
9:  jr      s2
put_hex:                            /* a0 as 0x and 8 hex digits; returns to s2 */
    li      t0, '0'
    sb      t0, 0(s0)
    li      t0, 'x'
    sb      t0, 0(s0)
    li      t2, 28
10: srl     t0, a0, t2
    andi    t0, t0, 0xF
    li      t1, 10
    blt     t0, t1, 11f
    addi    t0, t0, 'a' - '0' - 10
11: addi    t0, t0, '0'
    sb      t0, 0(s0)
    addi    t2, t2, -4
    bgez    t2, 10b
    jr      s2

    .section .rodata.trap, "a"
trap_text:  .string "trap: core "
trap_cause: .string ": mcause "
trap_pc:    .string ", mepc "
trap_tval:  .string ", mtval "
