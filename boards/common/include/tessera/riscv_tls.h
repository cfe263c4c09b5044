/*
 * A bare-metal RISC-V core's thread-local block (picolibc keeps errno there): the linker
 * script's .tdata copied and its .tbss cleared into BLOCK, and tp pointed at it. The boards
 * qemu-virt-rv32, pulp-rtl and siracusa give each core one at start-up.
 */
#ifndef TESSERA_RISCV_TLS_H
#define TESSERA_RISCV_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

extern uint8_t __tdata_start[], __tdata_end[], __tbss_start[], __tbss_end[];

/* False (and tp untouched) when .tdata and .tbss exceed BYTES. */
static inline bool tsr_riscv_init_tls(uint8_t *block, size_t bytes)
{
    const size_t tdata = (size_t)(__tdata_end - __tdata_start), tbss = (size_t)(__tbss_end - __tbss_start);
    if (tdata + tbss > bytes) return false;
    memcpy(block, __tdata_start, tdata);
    memset(block + tdata, 0, tbss);
    __asm__ volatile("mv tp, %0" : : "r"(block));
    return true;
}

#endif
