# The baseline: llama2.c's run.c (TESSERA_LLAMA2C_DIR, read in place and built
# unchanged) on a bare-metal board, with a checkpoint embedded (tessera-llama2c-run.elf).
# llama2c_os.c gives it files, mmap, a heap, a console and a clock through the board's
# hooks (llama2c_board.h). tessera_llama2c_firmware(BOARD_LIB SOURCES...) builds it with
# the board's own hooks file(s); it does nothing unless the three cache variables name
# files that exist.
set(TESSERA_LLAMA2C_DIR "" CACHE PATH "llama2.c's sources (run.c), for the baseline firmware")
set(TESSERA_LLAMA2C_MODEL "" CACHE FILEPATH "The llama2.c checkpoint the baseline firmware embeds")
set(TESSERA_LLAMA2C_TOKENIZER "" CACHE FILEPATH "Its tokenizer (.bin)")
set(TESSERA_LLAMA2C_STEPS 8 CACHE STRING "Tokens the baseline firmware generates")
set(TESSERA_LLAMA2C_COMMON ${CMAKE_CURRENT_LIST_DIR})

function(tessera_llama2c_firmware board_lib)
  if(NOT EXISTS "${TESSERA_LLAMA2C_DIR}/run.c" OR NOT EXISTS "${TESSERA_LLAMA2C_MODEL}" OR
     NOT EXISTS "${TESSERA_LLAMA2C_TOKENIZER}")
    return()
  endif()
  set(common ${TESSERA_LLAMA2C_COMMON})
  add_executable(tessera-llama2c-run ${common}/llama2c_os.c ${common}/llama2c_files.S ${ARGN}
                 ${TESSERA_LLAMA2C_DIR}/run.c)
  set_target_properties(tessera-llama2c-run PROPERTIES SUFFIX ".elf" LINKER_LANGUAGE C)
  set_source_files_properties(${common}/llama2c_files.S PROPERTIES
    COMPILE_DEFINITIONS "TSR_LLAMA2C_MODEL_FILE=\"${TESSERA_LLAMA2C_MODEL}\";TSR_LLAMA2C_TOKENIZER_FILE=\"${TESSERA_LLAMA2C_TOKENIZER}\""
    OBJECT_DEPENDS "${TESSERA_LLAMA2C_MODEL};${TESSERA_LLAMA2C_TOKENIZER}")
  # run.c as its README builds it (-O3, -lm), its main renamed.
  set_source_files_properties(${TESSERA_LLAMA2C_DIR}/run.c PROPERTIES COMPILE_OPTIONS "-O3;-Dmain=llama2c_main;-w")
  target_compile_definitions(tessera-llama2c-run PRIVATE TSR_LLAMA2C_STEPS="${TESSERA_LLAMA2C_STEPS}")
  target_include_directories(tessera-llama2c-run BEFORE PRIVATE ${common}/include)
  target_include_directories(tessera-llama2c-run PRIVATE ${common})
  target_link_libraries(tessera-llama2c-run PRIVATE ${board_lib} m)
endfunction()
