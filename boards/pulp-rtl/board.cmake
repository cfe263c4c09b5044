# pulp-rtl as a registered board (boards/registered_boards.cmake): the CV32E40P cluster's
# RTL under Verilator (its simulators: sim, TSR_BOARD_HOST_DIR). Its own tests: tests.cmake here.
set(TSR_BOARD_PROCESSOR riscv32)
set(TSR_BOARD_TOOLCHAIN toolchain/riscv32-imc-xpulpv2-elf.cmake)
set(TSR_BOARD_TEST_FILE tests.cmake)
set(TSR_BOARD_HOST_DIR sim)
