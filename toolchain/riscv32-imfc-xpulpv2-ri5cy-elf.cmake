# Bare-metal RV32IMFC with the XpulpV2 extensions in RI5CY's encodings, hard-float single
# precision (ilp32f): the cluster cores of GVSoC's Siracusa model (the siracusa board). The
# kernels' XpulpV2 instructions take their RI5CY encodings (kernels/xpulpv2/xpulpv2_insn.h:
# TSR_XPULPV2_ENCODING_RI5CY); the model's cores have the FPU's divide and square root.
# No TSR_CORES_DIVIDE_SLOWLY (tessera/kernels.h): on GVSoC's cores a division costs less than
# the reciprocal table's load from the weight memory and its multiply (docs/performance.md);
# the CV32E40P's serial divider (the pulp-rtl toolchain files) keeps the table.
set(TESSERA_RISCV_EXTRA_FLAGS "-DTSR_XPULPV2_ENCODING_RI5CY")
set(TESSERA_RISCV_ARCH rv32imfc)
set(TESSERA_RISCV_ABI ilp32f)
set(TESSERA_BARE_METAL_BOARD siracusa CACHE STRING "")
set(TESSERA_KERNEL_SETS XPULPV2 CACHE STRING "")
include(${CMAKE_CURRENT_LIST_DIR}/riscv32-elf-common.cmake)
