# The x86-64 AVX2 kernel set (TSR_ISA_X86_AVX2): each file compiled with -mavx2; the
# runtime calls them only on boards whose isa has the bit (the host board asks the CPU:
# tsr_x86_avx2_available). kernels/kernel_sets.cmake reads this file.
set(TSR_SET_NAME X86_AVX2)
set(TSR_SET_BIT 0)
set(TSR_SET_BOARD_NAME x86-avx2)
set(TSR_SET_HEADER tessera/kernels_x86.h)
set(TSR_SET_DEFAULT_PROCESSOR "^(x86_64|AMD64|amd64)$")
set(TSR_SET_AVAILABLE tsr_x86_avx2_available)
set(TSR_SET_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/cpu_x86.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_f32_sse.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_i8_avx2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_i8_f32_avx2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/attention_i8_avx2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/softmax_i8_avx2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/elementwise_i8_avx2.cpp)
set_source_files_properties(${TSR_SET_SOURCES} PROPERTIES COMPILE_OPTIONS -mavx2)
