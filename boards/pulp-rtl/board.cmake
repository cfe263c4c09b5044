# pulp-rtl as a registered board (boards/registered_boards.cmake): the CV32E40P cluster's
# RTL under Verilator (boards/pulp-rtl/sim). Its tests: tests/rtl/rtl_tests.cmake.
set(TSR_BOARD_PROCESSOR riscv32)
set(TSR_BOARD_TOOLCHAIN toolchain/riscv32-imc-xpulpv2-elf.cmake)
