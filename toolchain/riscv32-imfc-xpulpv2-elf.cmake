# Bare-metal RV32IMFC with the XpulpV2 extensions, hard-float single precision (ilp32f):
# the pulp-rtl board's cores with the FPU (cv32e40p with COREV_PULP and FPU).
# -mno-fdiv: on the Verilator model of these cores an fdiv.s or fsqrt.s never completes,
# so divisions are libgcc's __divsf3 and square roots the board's sqrtf
# (boards/pulp-rtl/src/sqrtf_integer.c), both correctly rounded like the instructions.
# TSR_CORES_DIVIDE_SLOWLY: the cores' integer division is serial (up to 35 cycles), so the
# kernels' core split multiplies by a reciprocal instead (tessera/kernels.h).
# -falign-loops=4: every loop starts at a word (a c.nop before it where needed). A loop
# whose first instruction is a 32-bit one at an address 2 mod 4 costs the CV32E40P an extra
# fetch cycle on every jump back: GPT-2's fp32 token on one core took 1,262,138 cycles with
# tsr_matmul_f32_bias's inner loop so placed, 1,163,100 aligned.
set(TESSERA_RISCV_EXTRA_FLAGS "-mno-fdiv -DTSR_CORES_DIVIDE_SLOWLY -falign-loops=4")
set(TESSERA_RISCV_ARCH rv32imfc)
set(TESSERA_RISCV_ABI ilp32f)
set(TESSERA_BARE_METAL_BOARD pulp-rtl CACHE STRING "")
set(TESSERA_KERNEL_SETS XPULPV2 CACHE STRING "")
include(${CMAKE_CURRENT_LIST_DIR}/riscv32-elf-common.cmake)
