# Bare-metal RV32IMAFC, hard-float single precision (ilp32f): the cluster cores of
# Siracusa/GAP9-class chips. Usage: cmake -DCMAKE_TOOLCHAIN_FILE=<this file> ...
set(TESSERA_RISCV_ARCH rv32imafc)
set(TESSERA_RISCV_ABI ilp32f)
include(${CMAKE_CURRENT_LIST_DIR}/riscv32-elf-common.cmake)
