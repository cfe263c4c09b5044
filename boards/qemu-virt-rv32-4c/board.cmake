# qemu-virt-rv32-4c, a registered board (boards/registered_boards.cmake) made of a
# description only: the qemu-virt-rv32 board's code built for a smaller chip (board.json
# here: 4 cluster harts, 128 KiB L1, 1.5 MiB L2, no NPU), run on QEMU's virt machine with 4
# cluster harts and the DMA hart. Its firmware tests are the generic ones
# (tests/boards/registered_board_tests.cmake: firmware_qemu-virt-rv32-4c_*).
set(TSR_BOARD_PROCESSOR riscv32)
set(TSR_BOARD_TOOLCHAIN toolchain/riscv32-imafc-elf.cmake)
set(TSR_BOARD_CODE qemu-virt-rv32)
set(TSR_BOARD_TESTS hal_conformance kernels int8)
set(TSR_BOARD_RUNNER tests/firmware/run.cmake)
set(TSR_BOARD_EMULATOR qemu-system-riscv32)
set(TSR_BOARD_RUN_ARGS -DQEMU=@EMULATOR@ -DSMP=5)
