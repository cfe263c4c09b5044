# Bare-metal RV32IMC with the XpulpV2 extensions (CORE-V: cv32e40p with COREV_PULP), no
# FPU (ilp32): the pulp-rtl board's integer cores. The compiler is told rv32imc (Debian's
# binutils knows no CORE-V mnemonic); kernels/xpulpv2 encodes those instructions itself.
# TSR_CORES_DIVIDE_SLOWLY: the cores' integer division is serial (tessera/kernels.h).
# -falign-loops=4: a loop that starts with a 32-bit instruction at an address 2 mod 4 costs
# the CV32E40P an extra fetch cycle on every jump back (riscv32-imfc-xpulpv2-elf.cmake).
set(TESSERA_RISCV_EXTRA_FLAGS "-DTSR_CORES_DIVIDE_SLOWLY -falign-loops=4")
set(TESSERA_RISCV_ARCH rv32imc)
set(TESSERA_RISCV_ABI ilp32)
set(TESSERA_BARE_METAL_BOARD pulp-rtl CACHE STRING "")
set(TESSERA_KERNEL_SETS XPULPV2 CACHE STRING "")
include(${CMAKE_CURRENT_LIST_DIR}/riscv32-elf-common.cmake)
