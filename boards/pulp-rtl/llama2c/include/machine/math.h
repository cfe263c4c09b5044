/* Stands in for picolibc's <machine/math.h> when run.c is built: that header inlines
 * sqrtf as fsqrt.s whatever the compiler is told, and on the pulp-rtl model of the
 * cores with the FPU an fsqrt.s never completes (-mno-fdiv: see
 * toolchain/riscv32-imfc-xpulpv2-elf.cmake). Without it, <math.h> declares plain calls. */
#ifndef TESSERA_LLAMA2C_MACHINE_MATH_H
#define TESSERA_LLAMA2C_MACHINE_MATH_H
#endif
