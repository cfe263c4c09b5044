# mps3-an547 as a registered board (boards/registered_boards.cmake): one Cortex-M55 on
# QEMU's Corstone-300, the default board of an Arm build. Its own tests (TSR_BOARD_TEST_FILE):
# tests.cmake here (firmware_m55_*).
set(TSR_BOARD_PROCESSOR arm)
set(TSR_BOARD_TOOLCHAIN toolchain/arm-none-eabi-m55.cmake)
set(TSR_BOARD_DEFAULT ON)
set(TSR_BOARD_TEST_FILE tests.cmake)
