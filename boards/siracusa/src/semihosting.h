/* GVSoC's semihosting calls (its ISS: src/core/models/cpu/iss/src/syscalls.cpp; the ARM
 * semihosting numbers, and GVSoC's own from 0x100). */
#ifndef TESSERA_SIRACUSA_SEMIHOSTING_H
#define TESSERA_SIRACUSA_SEMIHOSTING_H

enum {
    SH_OPEN = 0x01,
    SH_CLOSE = 0x02,
    SH_READ = 0x06,
    SH_FLEN = 0x0C,
    SH_SYSCALL_STOP = 0x10D /* pauses the engine and tells the launcher (tools/gvsoc_energy) */
};

/* A semihosting call: the ISS takes an ebreak right after `slli x0, x0, 0x1f` as one. */
static inline long semihost(long op, long arg)
{
    register long a0 __asm__("a0") = op;
    register long a1 __asm__("a1") = arg;
    __asm__ volatile(".option push\n.option norvc\nslli x0, x0, 0x1f\nebreak\nsrai x0, x0, 7\n.option pop"
                     : "+r"(a0)
                     : "r"(a1)
                     : "memory");
    return a0;
}

#endif
