// Whether the machine runs AVX2: the CPU says so (CPUID leaf 7, EBX bit 5) and the OS
// saves the YMM registers (OSXSAVE, then XCR0 bits 1 and 2). GCC's <cpuid.h> only:
// nothing from a C library.
#include <cpuid.h>

#include "tessera/kernels_x86.h"

int tsr_x86_avx2_available(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX)) return 0;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 6u) != 6u) return 0; // XMM and YMM state
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (b & bit_AVX2) != 0;
}
