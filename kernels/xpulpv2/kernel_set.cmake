# The XpulpV2 kernel set (TSR_ISA_XPULPV2): the PULP cores' packed SIMD, post-increment
# loads and hardware loops, in their CORE-V encodings (.insn: the assembler needs no
# CORE-V support). RV32 targets only; the runtime calls them on boards whose isa has the bit.
set(TESSERA_KERNEL_SET_XPULPV2_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/matmul_i8_xpulpv2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_i8_rqs_xpulpv2.cpp)
