# The Arm Helium (M-profile Vector Extension) kernel set (TSR_ISA_ARM_MVE): Cortex-M55/M85
# cores, built with toolchain/arm-none-eabi-m55.cmake (whose -mcpu=cortex-m55 has MVE);
# the mps3-an547 board says so in its isa. kernels/kernel_sets.cmake reads this file.
set(TSR_SET_NAME ARM_MVE)
set(TSR_SET_BIT 2)
set(TSR_SET_BOARD_NAME arm-mve)
set(TSR_SET_HEADER tessera/kernels_arm_mve.h)
set(TSR_SET_DEFAULT_PROCESSOR "^arm$")
set(TSR_SET_AVAILABLE "")
set(TSR_SET_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/matmul_i8_mve.cpp
  ${CMAKE_CURRENT_LIST_DIR}/attention_i8_mve.cpp
  ${CMAKE_CURRENT_LIST_DIR}/softmax_i8_mve.cpp
  ${CMAKE_CURRENT_LIST_DIR}/elementwise_i8_mve.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rope_i8_mve.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_f32_mve.cpp
  ${CMAKE_CURRENT_LIST_DIR}/softmax_f32_mve.cpp
  ${CMAKE_CURRENT_LIST_DIR}/attention_f32_mve.cpp)
