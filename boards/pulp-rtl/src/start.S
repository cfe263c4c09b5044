/* Every core of the pulp-rtl cluster starts here (boot address 0x1C000000, machine mode). */
    .section .text.start, "ax"
    .globl _start
_start:
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    csrw    0x320, zero             /* mcountinhibit: the core resets with mcycle and minstret stopped */
    la      t0, tsr_pulp_trap
    csrw    mtvec, t0
    csrr    a0, mhartid
    la      sp, __stacks_end        /* core 0: the top of L1; core c: below core 0's, OTHER bytes each */
    beqz    a0, 1f
    li      t2, TSR_PULP_STACK_CORE0
    sub     sp, sp, t2
    addi    t3, a0, -1
    li      t2, TSR_PULP_STACK_OTHER
    mul     t3, t3, t2
    sub     sp, sp, t3
1:
#ifdef __riscv_flen
    li      t4, (1 << 13)           /* mstatus.FS = initial: the FPU is on */
    csrs    mstatus, t4
    fscsr   zero
#endif
    call    tsr_pulp_core_entry     /* never returns */
2:  j       2b

/* A trap (an illegal instruction, a misaligned access, ...): the testbench prints the
 * cause and where, and ends the simulation. */
    .balign 4
    .globl tsr_pulp_trap
tsr_pulp_trap:
    li      t0, 0x1A100000 + 0x014  /* PULP_RTL_TRAP */
    csrr    t1, mcause
    sw      t1, 0(t0)
    csrr    t1, mepc
    sw      t1, 0(t0)
    csrr    t1, mtval
    sw      t1, 0(t0)
3:  j       3b
