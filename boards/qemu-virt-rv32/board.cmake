# qemu-virt-rv32 as a registered board (boards/registered_boards.cmake): QEMU's virt
# machine, bare metal, the default board of an RV32 build. Its own tests (TSR_BOARD_TEST_FILE):
# tests.cmake here (firmware_*).
set(TSR_BOARD_PROCESSOR riscv32)
set(TSR_BOARD_TOOLCHAIN toolchain/riscv32-imafc-elf.cmake)
set(TSR_BOARD_DEFAULT ON)
set(TSR_BOARD_TEST_FILE tests.cmake)
