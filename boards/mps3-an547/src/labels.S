/* Labels for the hart-counter plugin (tools/qemu-plugin), as qemu-virt-rv32's start.S has
 * them: entry K (8 bytes) executes `movw r12, #0x500 + K` (operators) or `#0x400 + K`
 * (layers) and returns; entry 255 labels "none". r12 is the AAPCS scratch register. */
    .syntax unified
    .thumb
    .section .text.tsr_m55_labels, "ax"

    .macro label_table name, base
    .globl \name
    .balign 8
\name:
    .set label, 0
    .rept 256
    movw    r12, #(\base + label)
    bx      lr
    nop
    .set label, label + 1
    .endr
    .endm

    label_table tsr_m55_op_label_table, 0x500
    label_table tsr_m55_label_table, 0x400
