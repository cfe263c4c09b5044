# The bare-metal boards, each registered by a file of its own: boards/<name>/board.cmake
# beside its description (boards/<name>/board.json, which names it). The root
# CMakeLists.txt builds the one TESSERA_BARE_METAL_BOARD names; tests/ builds and runs the
# generic firmware tests of each that asks for them and its own (TSR_BOARD_TEST_FILE).
# No other file lists the boards.
#
# A board.cmake sets (each board's file says what its values mean for it):
#   TSR_BOARD_PROCESSOR  the CMAKE_SYSTEM_PROCESSOR it is built for (riscv32, arm)
#   TSR_BOARD_TOOLCHAIN  its toolchain file, relative to the source tree
#   TSR_BOARD_DEFAULT    ON: the board a bare-metal build for its processor makes when
#                        TESSERA_BARE_METAL_BOARD is not given (one board a processor)
#   TSR_BOARD_CODE       the folder of boards/ whose CMakeLists.txt builds it (default: its
#                        own); that code reads the description TESSERA_BOARD_DESCRIPTION
#   and, for the generic firmware tests (tests/boards/registered_board_tests.cmake):
#   TSR_BOARD_TESTS      which: hal_conformance (the HAL conformance suite), kernels (the
#                        kernel conformance program), int8 (stories260K packed int8 for it:
#                        the firmware demo's ids equal the host board's)
#   TSR_BOARD_RUNNER     the script that runs one of its ELFs and checks it, relative to the
#                        source tree (tests/firmware/run.cmake: QEMU)
#   TSR_BOARD_EMULATOR   the program the runner starts, found on PATH
#   TSR_BOARD_RUN_ARGS   the runner's arguments beside -DELF and the checks; @EMULATOR@ is
#                        the program found
#   TSR_BOARD_HOST_DIR   a folder of it the host build adds for its tests (pulp-rtl: sim, the
#                        simulators); none: nothing
#   TSR_BOARD_TEST_FILE  its own tests beyond the generic ones: a CMake file in its folder,
#                        which tests/ includes in its scope (SHARED_MODELS, GOLDEN_200,
#                        tessera_deeploy_vectors, ...); a board without it has the generic
#                        ones only
# Inside board.cmake, TSR_BOARD_DIR is its folder.

# tessera_registered_boards(OUT [PROCESSOR p] [DEFAULT var]): the names of the registered
# boards (of processor p), sorted; DEFAULT gets the one marked default for p, if any.
function(tessera_registered_boards out)
  cmake_parse_arguments(R "" "PROCESSOR;DEFAULT" "" ${ARGN})
  file(GLOB files RELATIVE ${CMAKE_SOURCE_DIR}/boards ${CMAKE_SOURCE_DIR}/boards/*/board.cmake)
  list(SORT files)
  set(names "")
  set(default "")
  foreach(f IN LISTS files)
    get_filename_component(name ${f} DIRECTORY)
    tessera_read_board(${name})
    if(NOT R_PROCESSOR OR TSR_BOARD_PROCESSOR STREQUAL R_PROCESSOR)
      list(APPEND names ${name})
      if(TSR_BOARD_DEFAULT)
        set(default ${name})
      endif()
    endif()
  endforeach()
  set(${out} "${names}" PARENT_SCOPE)
  if(R_DEFAULT)
    set(${R_DEFAULT} "${default}" PARENT_SCOPE)
  endif()
endfunction()

# tessera_read_board(NAME): sets the caller's TSR_BOARD_* from boards/NAME/board.cmake,
# with the defaults above; a missing or incomplete file is an error naming it.
macro(tessera_read_board name)
  foreach(_v PROCESSOR TOOLCHAIN DEFAULT CODE TESTS RUNNER EMULATOR RUN_ARGS TEST_FILE HOST_DIR)
    unset(TSR_BOARD_${_v})
  endforeach()
  set(TSR_BOARD_DIR ${CMAKE_SOURCE_DIR}/boards/${name})
  if(NOT EXISTS ${TSR_BOARD_DIR}/board.cmake)
    message(FATAL_ERROR "no registered board '${name}': boards/${name}/board.cmake does not exist")
  endif()
  include(${TSR_BOARD_DIR}/board.cmake)
  if(NOT TSR_BOARD_PROCESSOR OR NOT TSR_BOARD_TOOLCHAIN)
    message(FATAL_ERROR "boards/${name}/board.cmake: TSR_BOARD_PROCESSOR and TSR_BOARD_TOOLCHAIN are required")
  endif()
  if(NOT TSR_BOARD_CODE)
    set(TSR_BOARD_CODE ${name})
  endif()
  if(NOT EXISTS ${CMAKE_SOURCE_DIR}/boards/${TSR_BOARD_CODE}/CMakeLists.txt)
    message(FATAL_ERROR "boards/${name}/board.cmake: TSR_BOARD_CODE ${TSR_BOARD_CODE}: boards/${TSR_BOARD_CODE}/CMakeLists.txt does not exist")
  endif()
  if(TSR_BOARD_TEST_FILE AND NOT EXISTS ${TSR_BOARD_DIR}/${TSR_BOARD_TEST_FILE})
    message(FATAL_ERROR "boards/${name}/board.cmake: TSR_BOARD_TEST_FILE ${TSR_BOARD_TEST_FILE} does not exist in boards/${name}")
  endif()
  if(TSR_BOARD_TESTS AND (NOT TSR_BOARD_RUNNER OR NOT TSR_BOARD_EMULATOR))
    message(FATAL_ERROR "boards/${name}/board.cmake: TSR_BOARD_TESTS needs TSR_BOARD_RUNNER and TSR_BOARD_EMULATOR")
  endif()
endmacro()
