# Bare-metal RV32IMAC, no FPU (ilp32, soft float).
set(TESSERA_RISCV_ARCH rv32imac)
set(TESSERA_RISCV_ABI ilp32)
include(${CMAKE_CURRENT_LIST_DIR}/riscv32-elf-common.cmake)
