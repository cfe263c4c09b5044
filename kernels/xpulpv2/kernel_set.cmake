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
  ${CMAKE_CURRENT_LIST_DIR}/layernorm_i8_xpulpv2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/attention_i8_xpulpv2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_i8_rqs_xpulpv2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/quantlib_attention_xpulpv2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/quantlib_elementwise_xpulpv2.cpp)
