# mps3-an547's own tests (boards/mps3-an547/board.cmake: TSR_BOARD_TEST_FILE), declared
# by tests/boards/registered_board_tests.cmake in tests/' scope (ctest -R firmware_m55).
# The Arm Cortex-M55 board (boards/mps3-an547) under qemu-system-arm: its HAL conformance
# suite, stories260K fp32 against the 200 golden ids and int8 against the host board's,
# each with its instructions per token (the hart-counter plugin).
find_program(QEMU_ARM qemu-system-arm)
set(FW_M55 ${CMAKE_BINARY_DIR}/firmware_m55)
file(MAKE_DIRECTORY ${FW_M55}/images)
add_test(NAME firmware_m55_pack_golden COMMAND tessera-pack ${SHARED_MODELS}/stories260K.bin --tokenizer
         ${SHARED_MODELS}/tok512.bin --board mps3-an547 -q -o ${FW_M55}/images/stories260K.tess)
add_test(NAME firmware_m55_pack_int8 COMMAND tessera-pack ${SHARED_MODELS}/stories260K.bin --tokenizer
         ${SHARED_MODELS}/tok512.bin --board mps3-an547 --precision int8 -q -o ${FW_M55}/images/stories260K_int8.tess
         --emit-variants ${FW_M55}/images/stories260K_int8_variants.c)
add_test(NAME firmware_m55_pack_tinyllama_int8 COMMAND tessera-pack ${TINYLLAMA_CHECKPOINT} --tokenizer
         ${TINYLLAMA_TOKENIZER} --board mps3-an547 --precision int8 -q -o ${FW_M55}/images/tinyllama_v0_int8.tess)
set_tests_properties(firmware_m55_pack_tinyllama_int8 PROPERTIES FIXTURES_REQUIRED firmware_tinyllama_checkpoint)
# GPT-2 (fp32): a random-weight Hugging Face directory the reference test's script writes.
add_test(NAME firmware_m55_make_gpt2 COMMAND ${TESSERA_TORCH_PYTHON} ${CMAKE_SOURCE_DIR}/tests/models/gpt2_reference.py
         --make-only ${FW_M55}/models/gpt2)
set_tests_properties(firmware_m55_make_gpt2 PROPERTIES FIXTURES_SETUP firmware_m55_gpt2_dir)
add_test(NAME firmware_m55_pack_gpt2 COMMAND tessera-pack ${FW_M55}/models/gpt2 --board mps3-an547 -q -o ${FW_M55}/images/gpt2.tess)
add_test(NAME firmware_m55_pack_gpt2_int8 COMMAND tessera-pack ${FW_M55}/models/gpt2 --board mps3-an547 --precision int8 -q
                                                  -o ${FW_M55}/images/gpt2_int8.tess)
set_tests_properties(firmware_m55_pack_gpt2 firmware_m55_pack_gpt2_int8 PROPERTIES FIXTURES_REQUIRED firmware_m55_gpt2_dir)
set_tests_properties(firmware_m55_pack_golden firmware_m55_pack_int8 firmware_m55_pack_tinyllama_int8 firmware_m55_pack_gpt2
                     firmware_m55_pack_gpt2_int8 PROPERTIES FIXTURES_SETUP firmware_m55_images)
# Deeploy's graphs on the Cortex-M55: each image with its vectors, as on qemu-virt-rv32.
tessera_deeploy_vectors(firmware_m55 ${FW_M55}/images mps3-an547 deeploy_ml8:microLlama8
                        deeploy_ml8_parallel:microLlama8_parallel deeploy_ml128:microLlama128
                        deeploy_ml64_parallel:microLlama64_parallel)
set_tests_properties(${DEEPLOY_PACKS} PROPERTIES FIXTURES_SETUP firmware_m55_images)
set(FW_M55_DEEPLOY_IMAGES "${DEEPLOY_IMAGES}")
set(FW_M55_DEEPLOY_VECTORS "${DEEPLOY_VECTORS}")
add_test(NAME firmware_m55_build
         COMMAND ${CMAKE_COMMAND} -DSOURCE=${CMAKE_SOURCE_DIR} -DBINARY=${FW_M55}/build
                 -DTOOLCHAIN=${CMAKE_SOURCE_DIR}/toolchain/arm-none-eabi-m55.cmake
                 "-DIMAGES=golden=${FW_M55}/images/stories260K.tess\;int8=${FW_M55}/images/stories260K_int8.tess\;tinyllama_int8=${FW_M55}/images/tinyllama_v0_int8.tess=128\\;int8_slim=${FW_M55}/images/stories260K_int8.tess\;gpt2=${FW_M55}/images/gpt2.tess\;gpt2_int8=${FW_M55}/images/gpt2_int8.tess${FW_M55_DEEPLOY_IMAGES}"
                 "-DVARIANTS=int8_slim=${FW_M55}/images/stories260K_int8_variants.c"
                 "-DVECTORS=${FW_M55_DEEPLOY_VECTORS}"
                 "-DEXTRA=-DTESSERA_LLAMA2C_DIR=${TESSERA_SHARED_DIR}/reference/llama2.c\;-DTESSERA_LLAMA2C_MODEL=${SHARED_MODELS}/stories260K.bin\;-DTESSERA_LLAMA2C_TOKENIZER=${SHARED_MODELS}/tok512.bin\;-DTESSERA_LLAMA2C_STEPS=200"
                 -P ${CMAKE_SOURCE_DIR}/tests/firmware/build.cmake)
set_tests_properties(firmware_m55_build PROPERTIES FIXTURES_REQUIRED firmware_m55_images FIXTURES_SETUP firmware_m55_elf
                     TIMEOUT 600)
set(FW_M55_ELF ${FW_M55}/build/boards/mps3-an547)
# The board's fitted instruction counts predict each measured run (PREDICTED / MEASURED).
set(FW_M55_PREDICT -DINSPECT=$<TARGET_FILE:tessera-inspect> -DCOSTS=mps3-an547 -DKERNEL_SET=arm-mve)
add_test(NAME firmware_m55_hal_conformance
         COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU_ARM} -DMACHINE=mps3-an547 -DSMP=1 -DELF=${FW_M55_ELF}/tessera-hal-conformance.elf
                 "-DEXPECT=conformance: [0-9]+ passed, 0 failed" -P ${CMAKE_SOURCE_DIR}/tests/firmware/run.cmake)
add_test(NAME firmware_m55_kernels
         COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU_ARM} -DMACHINE=mps3-an547 -DSMP=1 -DELF=${FW_M55_ELF}/tessera-kernel-conformance.elf
                 "-DEXPECT=kernel conformance on mps3-an547 \\(portable, arm-mve\\): [0-9]+ variants, [0-9]+ cases equal, 0 differ"
                 -P ${CMAKE_SOURCE_DIR}/tests/firmware/run.cmake)
# The baseline on the same core and emulator: llama2.c's run.c (fp32, -O3, the same -mcpu),
# stories260K greedy from BOS for 200 positions; the plugin counts its tokens 2 to 200
# (REGION_TOKENS), as the firmware_m55_* tests count theirs.
add_test(NAME firmware_m55_llama2c
         COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU_ARM} -DMACHINE=mps3-an547 -DSMP=1 -DELF=${FW_M55_ELF}/tessera-llama2c-run.elf
                 -DPLUGIN=$<TARGET_FILE:tessera_hart_counter> -DREGION_TOKENS=199 "-DEXPECT=(^|\n)Once upon a"
                 -P ${CMAKE_SOURCE_DIR}/tests/firmware/run.cmake)
add_test(NAME firmware_m55_golden
         COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU_ARM} -DMACHINE=mps3-an547 -DSMP=1 -DELF=${FW_M55_ELF}/tessera-firmware-golden.elf
                 -DGOLDEN=${GOLDEN_200} -DPLUGIN=$<TARGET_FILE:tessera_hart_counter>
                 -DHOST_GENERATE=$<TARGET_FILE:tessera-generate> -DIMAGE=${FW_M55}/images/stories260K.tess
                 ${FW_M55_PREDICT} -DPREDICT_IMAGE=${FW_M55}/images/stories260K.tess
                 -P ${CMAKE_SOURCE_DIR}/tests/firmware/run.cmake)
add_test(NAME firmware_m55_int8
         COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU_ARM} -DMACHINE=mps3-an547 -DSMP=1 -DELF=${FW_M55_ELF}/tessera-firmware-int8.elf
                 -DHOST_GENERATE=$<TARGET_FILE:tessera-generate> -DIMAGE=${FW_M55}/images/stories260K_int8.tess
                 -DPLUGIN=$<TARGET_FILE:tessera_hart_counter> ${FW_M55_PREDICT}
                 -DPREDICT_IMAGE=${FW_M55}/images/stories260K_int8.tess -P ${CMAKE_SOURCE_DIR}/tests/firmware/run.cmake)
# GPT-2 (fp32, and int8: LayerNorm, GELU, learned positions, biases), its ids the host board's.
foreach(name gpt2 gpt2_int8)
  add_test(NAME firmware_m55_${name}
           COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU_ARM} -DMACHINE=mps3-an547 -DSMP=1 -DELF=${FW_M55_ELF}/tessera-firmware-${name}.elf
                   -DHOST_GENERATE=$<TARGET_FILE:tessera-generate> -DIMAGE=${FW_M55}/images/${name}.tess
                   -DPLUGIN=$<TARGET_FILE:tessera_hart_counter> -P ${CMAKE_SOURCE_DIR}/tests/firmware/run.cmake)
endforeach()
# The TinyLLama-v0 shape (Deeploy's workload) in int8, its forward pass at position 128
# measured by layer, its ids the host board's.
add_test(NAME firmware_m55_tinyllama_int8
         COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU_ARM} -DMACHINE=mps3-an547 -DSMP=1
                 -DELF=${FW_M55_ELF}/tessera-firmware-tinyllama_int8.elf -DLAYERS=ON
                 -DHOST_GENERATE=$<TARGET_FILE:tessera-generate> -DIMAGE=${FW_M55}/images/tinyllama_v0_int8.tess
                 -DPLUGIN=$<TARGET_FILE:tessera_hart_counter> ${FW_M55_PREDICT}
                 -DPREDICT_IMAGE=${FW_M55}/images/tinyllama_v0_int8.tess -P ${CMAKE_SOURCE_DIR}/tests/firmware/run.cmake)
# The int8 firmware built with only its image's variants (int8_slim) gives the host
# board's ids; firmware_m55_size prints .text of both (issue 32's goal for the slim one:
# 40 KiB).
add_test(NAME firmware_m55_int8_slim
         COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU_ARM} -DMACHINE=mps3-an547 -DSMP=1 -DELF=${FW_M55_ELF}/tessera-firmware-int8_slim.elf
                 -DHOST_GENERATE=$<TARGET_FILE:tessera-generate> -DIMAGE=${FW_M55}/images/stories260K_int8.tess
                 -P ${CMAKE_SOURCE_DIR}/tests/firmware/run.cmake)
# The same two built MinSizeRel (-Os; the Helium kernels' helpers stay inline): the slim
# one gives the host board's ids too.
add_test(NAME firmware_m55_build_minsizerel
         COMMAND ${CMAKE_COMMAND} -DSOURCE=${CMAKE_SOURCE_DIR} -DBINARY=${FW_M55}/build-minsizerel
                 -DTOOLCHAIN=${CMAKE_SOURCE_DIR}/toolchain/arm-none-eabi-m55.cmake -DBUILD_TYPE=MinSizeRel
                 "-DIMAGES=int8=${FW_M55}/images/stories260K_int8.tess\;int8_slim=${FW_M55}/images/stories260K_int8.tess"
                 "-DVARIANTS=int8_slim=${FW_M55}/images/stories260K_int8_variants.c"
                 -P ${CMAKE_SOURCE_DIR}/tests/firmware/build.cmake)
set_tests_properties(firmware_m55_build_minsizerel PROPERTIES FIXTURES_REQUIRED firmware_m55_images
                     FIXTURES_SETUP firmware_m55_elf_minsizerel TIMEOUT 600)
set(FW_M55_ELF_MINSIZEREL ${FW_M55}/build-minsizerel/boards/mps3-an547)
add_test(NAME firmware_m55_int8_slim_minsizerel
         COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU_ARM} -DMACHINE=mps3-an547 -DSMP=1
                 -DELF=${FW_M55_ELF_MINSIZEREL}/tessera-firmware-int8_slim.elf -DHOST_GENERATE=$<TARGET_FILE:tessera-generate>
                 -DIMAGE=${FW_M55}/images/stories260K_int8.tess -DPLUGIN=$<TARGET_FILE:tessera_hart_counter>
                 -P ${CMAKE_SOURCE_DIR}/tests/firmware/run.cmake)
set_tests_properties(firmware_m55_int8_slim_minsizerel PROPERTIES FIXTURES_REQUIRED firmware_m55_elf_minsizerel)
# .text of each (arm-none-eabi-size), and what the runtime and kernels put in it, from
# the link maps (scripts/text-by-library.py).
find_program(ARM_SIZE arm-none-eabi-size)
find_package(Python3 COMPONENTS Interpreter)
add_test(NAME firmware_m55_size
         COMMAND bash -c "${ARM_SIZE} -A $0/tessera-firmware-int8.elf $0/tessera-firmware-int8_slim.elf $1/tessera-firmware-int8.elf $1/tessera-firmware-int8_slim.elf | grep -E 'elf|^.text' && for map in $0/tessera-firmware-int8 $0/tessera-firmware-int8_slim $1/tessera-firmware-int8 $1/tessera-firmware-int8_slim; do echo \"$map.map\"; ${Python3_EXECUTABLE} $2/scripts/text-by-library.py $map.map 'runtime and kernels=libtessera_(runtime|kernels|format)[.]a' | tail -1; done"
                 ${FW_M55_ELF} ${FW_M55_ELF_MINSIZEREL} ${CMAKE_SOURCE_DIR})
set_tests_properties(firmware_m55_int8_slim firmware_m55_size PROPERTIES FIXTURES_REQUIRED "firmware_m55_elf;firmware_m55_elf_minsizerel")
# Deeploy's vectors on the Cortex-M55: 0 differing values, and the plugin's instructions
# beside the RV32 firmware's and Deeploy's cycles (docs/firmware.md, docs/deeploy.md).
set(FW_M55_DEEPLOY_RUNS "")
foreach(name deeploy_ml8 deeploy_ml8_parallel deeploy_ml128 deeploy_ml64_parallel)
  add_test(NAME firmware_m55_${name}
           COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU_ARM} -DMACHINE=mps3-an547 -DSMP=1
                   -DELF=${FW_M55_ELF}/tessera-firmware-${name}.elf "-DEXPECT=vectors: all: 0 of [0-9]+ values differ"
                   -DPLUGIN=$<TARGET_FILE:tessera_hart_counter> ${FW_M55_PREDICT} -DPREDICT_IMAGE=${FW_M55}/images/${name}.tess
                   -P ${CMAKE_SOURCE_DIR}/tests/firmware/run.cmake)
  list(APPEND FW_M55_DEEPLOY_RUNS firmware_m55_${name})
endforeach()
set_tests_properties(firmware_m55_hal_conformance firmware_m55_kernels ${FW_M55_DEEPLOY_RUNS} firmware_m55_llama2c firmware_m55_golden firmware_m55_int8 firmware_m55_tinyllama_int8
                     firmware_m55_gpt2 firmware_m55_gpt2_int8
                     PROPERTIES FIXTURES_REQUIRED firmware_m55_elf TIMEOUT 600)
