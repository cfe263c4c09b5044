# The firmware demos of a bare-metal board (boards/<board>/CMakeLists.txt calls
# tessera_firmware_demos(<its board library>)): one ELF per image named in
# TESSERA_FIRMWARE_IMAGES, from the board-neutral main.c and vectors.c here, and the
# kernel conformance program, all of which reach the board through demo_board.h (each
# board's src/demo_board.c).
set(_tsr_demo_dir ${CMAKE_CURRENT_LIST_DIR})
set(TESSERA_FIRMWARE_IMAGES "" CACHE STRING
    "Firmware demos to build: NAME=IMAGE.tess[=POSITION];... (images packed for the board; with POSITION, \
the demo measures only the forward pass at that position, labelled by layer)")
set(TESSERA_FIRMWARE_VECTORS "" CACHE STRING
    "Test vectors to run: NAME=VECTORS.bin;... (written by tessera-eval --emit-vectors): firmware NAME, whose image \
is decoder-only, runs them once (boards/common/demo/vectors.c) instead of generating text")
set(TESSERA_FIRMWARE_VARIANTS "" CACHE STRING
    "Variant lists to link: NAME=VARIANTS.c;... (written by tessera-pack --emit-variants): firmware demo NAME \
registers only those variants and carries only their kernels; the others register every variant")
set(TESSERA_FIRMWARE_OFFCHIP_IMAGES "" CACHE STRING
    "Firmware demos whose image the board loads into its off-chip memory at boot: NAME=IMAGE.tess[=STEPS[=DEPTH]];... \
(boards with a loader: siracusa, through the simulator's semihosting); the ELF links no image; STEPS: tokens, \
else TESSERA_DEMO_STEPS; DEPTH: start at that position over a zero cache, BOS unmeasured, then STEPS measured tokens \
(tessera-generate --depth)")
set(TESSERA_FIRMWARE_PROMPTS "" CACHE STRING
    "Firmware demos that start from a prompt: NAME=TEXT[=STEPS];...: demo NAME (of TESSERA_FIRMWARE_IMAGES) encodes TEXT \
on the device and runs it in prompt mode, then generates STEPS tokens (else TESSERA_DEMO_STEPS) as one measured run")
set(TESSERA_DEMO_STEPS 200 CACHE STRING
    "Tokens a firmware demo generates (greedy; fewer when the model ends the text)")
# A demo ELF of these sources, linked with the runtime and the board.
function(_tsr_demo_executable name board_target)
  add_executable(tessera-firmware-${name} ${ARGN} ${_tsr_demo_dir}/profile_report.c)
  set_target_properties(tessera-firmware-${name} PROPERTIES SUFFIX ".elf" LINKER_LANGUAGE C) # the runtime needs no libstdc++
  target_link_libraries(tessera-firmware-${name} PRIVATE tessera_runtime ${board_target} m)
  target_include_directories(tessera-firmware-${name} PRIVATE ${_tsr_demo_dir})
endfunction()

function(tessera_firmware_demos board_target)
  # The kernel conformance program (tests/kernels/kernel_conformance.c), on this board:
  # every kernel set built here and run by its cores against the portable kernels, each
  # sweep TESSERA_KERNEL_CONFORMANCE_REPEATS times (a board on a slow simulator sets 1).
  if(NOT DEFINED TESSERA_KERNEL_CONFORMANCE_REPEATS)
    set(TESSERA_KERNEL_CONFORMANCE_REPEATS 5)
  endif()
  add_executable(tessera-kernel-conformance ${CMAKE_SOURCE_DIR}/tests/kernels/kernel_conformance.c)
  set_target_properties(tessera-kernel-conformance PROPERTIES SUFFIX ".elf" LINKER_LANGUAGE C)
  target_compile_definitions(tessera-kernel-conformance PRIVATE
                             TSR_KERNEL_CONFORMANCE_REPEATS=${TESSERA_KERNEL_CONFORMANCE_REPEATS})
  target_link_libraries(tessera-kernel-conformance PRIVATE tessera_kernels ${board_target} m)
  target_include_directories(tessera-kernel-conformance PRIVATE ${_tsr_demo_dir})
  foreach(entry IN LISTS TESSERA_FIRMWARE_OFFCHIP_IMAGES)
    string(REPLACE "=" ";" parts "${entry}")
    list(GET parts 0 name)
    list(GET parts 1 image)
    list(LENGTH parts n_parts)
    set(steps ${TESSERA_DEMO_STEPS})
    if(n_parts GREATER 2)
      list(GET parts 2 steps)
    endif()
    get_filename_component(image ${image} ABSOLUTE)
    _tsr_demo_executable(${name} ${board_target} ${_tsr_demo_dir}/main.c)
    target_compile_definitions(tessera-firmware-${name} PRIVATE TESSERA_DEMO_STEPS=${steps}
                               "TESSERA_DEMO_OFFCHIP_IMAGE=\"${image}\"")
    if(n_parts GREATER 3)
      list(GET parts 3 depth)
      target_compile_definitions(tessera-firmware-${name} PRIVATE TESSERA_DEMO_DEPTH=${depth})
    endif()
  endforeach()
  foreach(entry IN LISTS TESSERA_FIRMWARE_IMAGES)
    string(REPLACE "=" ";" parts "${entry}")
    list(GET parts 0 name)
    list(GET parts 1 TESSERA_IMAGE)
    list(LENGTH parts n_parts)
    configure_file(${_tsr_demo_dir}/image.S.in ${CMAKE_CURRENT_BINARY_DIR}/image_${name}.S @ONLY)
    set_source_files_properties(${CMAKE_CURRENT_BINARY_DIR}/image_${name}.S PROPERTIES OBJECT_DEPENDS ${TESSERA_IMAGE})
    set(main ${_tsr_demo_dir}/main.c)
    foreach(vectors_entry IN LISTS TESSERA_FIRMWARE_VECTORS)
      if(vectors_entry MATCHES "^${name}=(.+)$")
        set(TESSERA_VECTORS ${CMAKE_MATCH_1})
        configure_file(${_tsr_demo_dir}/vectors.S.in ${CMAKE_CURRENT_BINARY_DIR}/vectors_${name}.S @ONLY)
        set_source_files_properties(${CMAKE_CURRENT_BINARY_DIR}/vectors_${name}.S PROPERTIES OBJECT_DEPENDS ${TESSERA_VECTORS})
        set(main ${_tsr_demo_dir}/vectors.c ${CMAKE_CURRENT_BINARY_DIR}/vectors_${name}.S)
      endif()
    endforeach()
    _tsr_demo_executable(${name} ${board_target} ${main} ${CMAKE_CURRENT_BINARY_DIR}/image_${name}.S)
    target_link_options(tessera-firmware-${name} PRIVATE -Wl,-Map=${CMAKE_CURRENT_BINARY_DIR}/tessera-firmware-${name}.map)
    foreach(list_entry IN LISTS TESSERA_FIRMWARE_VARIANTS)
      if(list_entry MATCHES "^${name}=(.+)$")
        target_sources(tessera-firmware-${name} PRIVATE ${CMAKE_MATCH_1}) # defines tsr_variants before the library does
      endif()
    endforeach()
    set(steps ${TESSERA_DEMO_STEPS})
    foreach(prompt_entry IN LISTS TESSERA_FIRMWARE_PROMPTS)
      if(prompt_entry MATCHES "^${name}=([^=]+)(=([0-9]+))?$")
        target_compile_definitions(tessera-firmware-${name} PRIVATE "TESSERA_DEMO_PROMPT=\"${CMAKE_MATCH_1}\"")
        if(CMAKE_MATCH_3)
          set(steps ${CMAKE_MATCH_3})
        endif()
      endif()
    endforeach()
    if(n_parts GREATER 2)
      list(GET parts 2 position)
      target_compile_definitions(tessera-firmware-${name} PRIVATE TESSERA_DEMO_MEASURE_POS=${position})
    else()
      target_compile_definitions(tessera-firmware-${name} PRIVATE TESSERA_DEMO_STEPS=${steps})
    endif()
  endforeach()
endfunction()
