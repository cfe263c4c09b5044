# siracusa as a registered board (boards/registered_boards.cmake): GVSoC's Siracusa, its
# cluster cores decoding RI5CY's XpulpV2 encodings. Its own tests: tests.cmake here.
set(TSR_BOARD_PROCESSOR riscv32)
set(TSR_BOARD_TOOLCHAIN toolchain/riscv32-imfc-xpulpv2-ri5cy-elf.cmake)
set(TSR_BOARD_TEST_FILE tests.cmake)
