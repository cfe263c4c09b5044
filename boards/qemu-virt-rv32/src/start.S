/* Every hart enters here (QEMU virt, -bios none, machine mode). */
    .section .text.start, "ax"
    .globl _start
_start:
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    la      t0, tsr_qemu_trap_entry  /* a trap (a load the PMP refuses, say) is reported, not run into */
    csrw    mtvec, t0
    csrr    a0, mhartid
    li      t1, TSR_QEMU_BOOT_HART_COUNT /* TSR_QEMU_BOOT_HARTS, as the assembler reads numbers */
    bgeu    a0, t1, 2f              /* more harts than the cluster and its DMA and NPU engines: park */
    la      sp, __stacks_end        /* stack of hart h: __stacks_end - h * STACK */
    li      t2, 32768
    mul     t3, a0, t2
    sub     sp, sp, t3
#ifdef __riscv_flen
    li      t4, (1 << 13)           /* mstatus.FS = initial: the FPU is on */
    csrs    mstatus, t4
    fscsr   zero
#endif
    call    tsr_qemu_hart_entry     /* never returns */
2:  wfi
    j       2b

/* Traps: the cause, the faulting address and the hart on the console, then exit 4. */
    .balign 4
    .globl tsr_qemu_trap_entry
tsr_qemu_trap_entry:
    csrr    a0, mcause
    csrr    a1, mtval
    csrr    a2, mepc
    csrr    a3, mhartid
    call    tsr_qemu_trap           /* never returns */

/* Operator labels, the same way: entry K executes `slti zero, zero, 0x500 + K`; entry
 * 255 labels "no operator". */
    .section .text.tsr_qemu_op_labels, "ax"
    .globl tsr_qemu_op_label_table
    .balign 8
tsr_qemu_op_label_table:
    .option push
    .option norvc
    .set label, 0
    .rept 256
    slti    zero, zero, 0x500 + label
    ret
    .set label, label + 1
    .endr
    .option pop

/* Layer labels for the hart-counter plugin: entry L (8 bytes) executes the HINT
 * `slti zero, zero, 0x400 + L` and returns; entry 255 labels "no layer". */
    .section .text.tsr_qemu_labels, "ax"
    .globl tsr_qemu_label_table
    .balign 8
tsr_qemu_label_table:
    .option push
    .option norvc
    .set label, 0
    .rept 256
    slti    zero, zero, 0x400 + label
    ret
    .set label, label + 1
    .endr
    .option pop
