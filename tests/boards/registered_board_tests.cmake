# The generic firmware tests of every registered board that asks for them
# (boards/<name>/board.cmake: TSR_BOARD_TESTS; boards/registered_boards.cmake): a board
# added as a folder of its own gets, with no file outside it changed,
#   firmware_<name>_pack_int8        stories260K packed int8 for it
#   firmware_<name>_build            its firmware: the HAL and kernel conformance programs and
#                                    the int8 demo (its toolchain, TESSERA_BARE_METAL_BOARD=<name>)
#   firmware_<name>_hal_conformance  the HAL conformance suite on it
#   firmware_<name>_kernels          the kernel conformance program on it
#   firmware_<name>_int8             the int8 demo: its ids equal the host board's
# each run by the board's runner and emulator. Label firmware (the firmware_ prefix).
# Then each board's own tests (TSR_BOARD_TEST_FILE), included here in tests/' scope.
include(${CMAKE_SOURCE_DIR}/boards/registered_boards.cmake)
tessera_registered_boards(_tsr_registered)
set(_tsr_board_test_files "")
foreach(board IN LISTS _tsr_registered)
  tessera_read_board(${board})
  if(TSR_BOARD_TEST_FILE)
    list(APPEND _tsr_board_test_files ${TSR_BOARD_DIR}/${TSR_BOARD_TEST_FILE})
  endif()
  if(NOT TSR_BOARD_TESTS)
    continue()
  endif()
  find_program(TSR_EMULATOR_${board} ${TSR_BOARD_EMULATOR})
  if(NOT TSR_EMULATOR_${board})
    message(STATUS "board ${board}: ${TSR_BOARD_EMULATOR} not found; its firmware tests are not added")
    continue()
  endif()
  set(EMULATOR ${TSR_EMULATOR_${board}})
  string(CONFIGURE "${TSR_BOARD_RUN_ARGS}" run_args @ONLY)
  set(work ${CMAKE_BINARY_DIR}/boards_firmware/${board})
  set(image ${work}/images/stories260K_int8.tess)
  set(elf_dir ${work}/build/boards/${TSR_BOARD_CODE})
  set(run_script ${CMAKE_SOURCE_DIR}/${TSR_BOARD_RUNNER})
  set(t firmware_${board})
  file(MAKE_DIRECTORY ${work}/images)

  add_test(NAME ${t}_pack_int8 COMMAND tessera-pack ${SHARED_MODELS}/stories260K.bin --tokenizer ${SHARED_MODELS}/tok512.bin
           --board ${board} --precision int8 -q -o ${image})
  set_tests_properties(${t}_pack_int8 PROPERTIES FIXTURES_SETUP ${t}_images)
  add_test(NAME ${t}_build
           COMMAND ${CMAKE_COMMAND} -DSOURCE=${CMAKE_SOURCE_DIR} -DBINARY=${work}/build
                   -DTOOLCHAIN=${CMAKE_SOURCE_DIR}/${TSR_BOARD_TOOLCHAIN} "-DIMAGES=int8=${image}"
                   -DEXTRA=-DTESSERA_BARE_METAL_BOARD=${board} -P ${CMAKE_CURRENT_SOURCE_DIR}/firmware/build.cmake)
  set_tests_properties(${t}_build PROPERTIES FIXTURES_REQUIRED ${t}_images FIXTURES_SETUP ${t}_elf TIMEOUT 600)

  set(runs "")
  if("hal_conformance" IN_LIST TSR_BOARD_TESTS)
    add_test(NAME ${t}_hal_conformance
             COMMAND ${CMAKE_COMMAND} ${run_args} -DELF=${elf_dir}/tessera-hal-conformance.elf
                     "-DEXPECT=conformance: [0-9]+ passed, 0 failed" -P ${run_script})
    list(APPEND runs ${t}_hal_conformance)
  endif()
  if("kernels" IN_LIST TSR_BOARD_TESTS)
    add_test(NAME ${t}_kernels
             COMMAND ${CMAKE_COMMAND} ${run_args} -DELF=${elf_dir}/tessera-kernel-conformance.elf
                     "-DEXPECT=kernel conformance on ${board} \\([^)]*\\): [0-9]+ variants, [0-9]+ cases equal, 0 differ"
                     -P ${run_script})
    list(APPEND runs ${t}_kernels)
  endif()
  if("int8" IN_LIST TSR_BOARD_TESTS)
    add_test(NAME ${t}_int8
             COMMAND ${CMAKE_COMMAND} ${run_args} -DELF=${elf_dir}/tessera-firmware-int8.elf
                     -DHOST_GENERATE=$<TARGET_FILE:tessera-generate> -DIMAGE=${image}
                     "-DEXPECT=tessera firmware demo on board '${board}'" -P ${run_script})
    list(APPEND runs ${t}_int8)
  endif()
  set_tests_properties(${runs} PROPERTIES FIXTURES_REQUIRED "${t}_elf;${t}_images" TIMEOUT 600)
endforeach()
foreach(_tsr_file IN LISTS _tsr_board_test_files)
  include(${_tsr_file})
endforeach()
