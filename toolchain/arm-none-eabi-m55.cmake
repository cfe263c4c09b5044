# Bare-metal Arm Cortex-M55 (Armv8.1-M with the Helium/MVE vector extension and a
# double-precision FPU, hard float): Debian's gcc-arm-none-eabi with picolibc
# (picolibc-arm-none-eabi). Builds the freestanding half and the mps3-an547 board, which
# QEMU emulates (qemu-system-arm -M mps3-an547). Usage:
#   cmake -DCMAKE_TOOLCHAIN_FILE=<this file> -DTESSERA_FREESTANDING_ONLY=ON ...
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(TESSERA_ARM_PREFIX arm-none-eabi- CACHE STRING "Prefix of the bare-metal Arm tools")
set(CMAKE_C_COMPILER ${TESSERA_ARM_PREFIX}gcc)
set(CMAKE_CXX_COMPILER ${TESSERA_ARM_PREFIX}g++)
set(CMAKE_ASM_COMPILER ${TESSERA_ARM_PREFIX}gcc)
set(CMAKE_AR ${TESSERA_ARM_PREFIX}ar CACHE FILEPATH "")
set(CMAKE_RANLIB ${TESSERA_ARM_PREFIX}ranlib CACHE FILEPATH "")
set(CMAKE_OBJCOPY ${TESSERA_ARM_PREFIX}objcopy CACHE FILEPATH "")
set(CMAKE_SIZE ${TESSERA_ARM_PREFIX}size CACHE FILEPATH "")
set(TESSERA_BARE_METAL_BOARD mps3-an547 CACHE STRING "The bare-metal board to build")

# No OS to run test programs on while configuring.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# -mcpu=cortex-m55 implies MVE with floating point (+mve.fp) and the FP64 unit.
set(_tessera_arm_flags "--specs=picolibc.specs -mcpu=cortex-m55 -mthumb -mfloat-abi=hard -ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_INIT "${_tessera_arm_flags}")
set(CMAKE_CXX_FLAGS_INIT "${_tessera_arm_flags} -ffreestanding -fno-exceptions -fno-rtti -fno-threadsafe-statics")
set(CMAKE_ASM_FLAGS_INIT "${_tessera_arm_flags}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--gc-sections")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
