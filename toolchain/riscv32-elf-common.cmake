# Shared part of the bare-metal RISC-V toolchain files: Debian's
# gcc-riscv64-unknown-elf (multilib, includes rv32) with picolibc.
# The including file sets TESSERA_RISCV_ARCH and TESSERA_RISCV_ABI.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)

set(TESSERA_RISCV_PREFIX riscv64-unknown-elf- CACHE STRING "Prefix of the bare-metal RISC-V tools")
set(CMAKE_C_COMPILER ${TESSERA_RISCV_PREFIX}gcc)
set(CMAKE_CXX_COMPILER ${TESSERA_RISCV_PREFIX}g++)
set(CMAKE_ASM_COMPILER ${TESSERA_RISCV_PREFIX}gcc)
set(CMAKE_AR ${TESSERA_RISCV_PREFIX}ar CACHE FILEPATH "")
set(CMAKE_RANLIB ${TESSERA_RISCV_PREFIX}ranlib CACHE FILEPATH "")
set(CMAKE_OBJCOPY ${TESSERA_RISCV_PREFIX}objcopy CACHE FILEPATH "")
set(CMAKE_SIZE ${TESSERA_RISCV_PREFIX}size CACHE FILEPATH "")

# No OS to run test programs on while configuring.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(_tessera_riscv_flags "--specs=picolibc.specs -march=${TESSERA_RISCV_ARCH} -mabi=${TESSERA_RISCV_ABI} -mcmodel=medany -ffunction-sections -fdata-sections ${TESSERA_RISCV_EXTRA_FLAGS}")
set(CMAKE_C_FLAGS_INIT "${_tessera_riscv_flags}")
set(CMAKE_CXX_FLAGS_INIT "${_tessera_riscv_flags} -ffreestanding -fno-exceptions -fno-rtti -fno-threadsafe-statics")
set(CMAKE_ASM_FLAGS_INIT "${_tessera_riscv_flags}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--gc-sections") # the compile flags (specs, arch) reach the link too
# MinSizeRel: prologues and epilogues as calls to libgcc's shared register save and
# restore routines (-msave-restore), a few cycles a call for some 3 KB of a firmware's
# .text (the int8 stories260K demo from its variant list: 45,120 -> 42,074 bytes).
set(CMAKE_C_FLAGS_MINSIZEREL_INIT "-Os -DNDEBUG -msave-restore")
set(CMAKE_CXX_FLAGS_MINSIZEREL_INIT "-Os -DNDEBUG -msave-restore")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
