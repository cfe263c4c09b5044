# The x86-64 AVX2 kernel set (TSR_ISA_X86_AVX2): each file compiled with -mavx2; the
# runtime calls them only on boards whose isa has the bit (the host board asks the CPU).
set(TESSERA_KERNEL_SET_X86_AVX2_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/cpu_x86.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_f32_sse.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_i8_avx2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_i8_f32_avx2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/attention_i8_avx2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/softmax_i8_avx2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/elementwise_i8_avx2.cpp)
set_source_files_properties(${TESSERA_KERNEL_SET_X86_AVX2_SOURCES} PROPERTIES COMPILE_OPTIONS -mavx2)
