# The XpulpV2 kernel set (TSR_ISA_XPULPV2): the PULP cores' packed SIMD, post-increment
# loads and hardware loops, in their CORE-V encodings (.insn: the assembler needs no
# CORE-V support). RV32 targets whose cores have them (the pulp-rtl toolchain files ask
# for it); the board says so in its isa. kernels/kernel_sets.cmake reads this file.
set(TSR_SET_NAME XPULPV2)
set(TSR_SET_BIT 1)
set(TSR_SET_BOARD_NAME xpulpv2)
set(TSR_SET_HEADER tessera/kernels_xpulpv2.h)
set(TSR_SET_DEFAULT_PROCESSOR "")
set(TSR_SET_AVAILABLE "")
set(TSR_SET_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/matmul_i8_xpulpv2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_i8_f32_xpulpv2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_w4a8_xpulpv2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rope_i8_xpulpv2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/elementwise_i8_xpulpv2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/attention_i8_xpulpv2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_i8_rqs_xpulpv2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/quantlib_attention_xpulpv2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/quantlib_elementwise_xpulpv2.cpp)
# Tessera's own int8 matmul for size: on GVSoC's Siracusa (a 2 KiB shared instruction cache,
# 512 bytes a core) a token's many small matmul steps each fetch the kernel's code again, and
# its inner loops are hardware loops in assembly that the optimization level does not touch:
# 2,114 bytes at -O3, 944 at -Os; stories260K int8 on 8 cores 488,878 -> 471,772 cycles a
# token (the same at -Os for the other files of the set: 476,153; microLlama128's
# RequantShift matmul: 1,144,587 -> 1,148,836).
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/matmul_i8_xpulpv2.cpp PROPERTIES COMPILE_OPTIONS "-Os")
