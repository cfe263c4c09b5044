# The cycle-true board (boards/pulp-rtl): the CV32E40P cluster RTL under Verilator
# (ctest -L rtl). Images packed for pulp-rtl, firmware cross-built for its integer
# cores (XpulpV2) and for its cores with the FPU, run on the simulators of 1 and 8
# cores (the FPU's: one core). Each run prints the testbench's cycles and its profile by
# operator, and a MEASURED cycles line (tests/rtl/run.cmake).
if(NOT TESSERA_PULP_RTL_SIMS)
  return()
endif()
set(RTL ${CMAKE_BINARY_DIR}/rtl)
set(RTL_SIM ${CMAKE_BINARY_DIR}/boards/pulp-rtl/sim)
file(MAKE_DIRECTORY ${RTL}/images)
add_test(NAME rtl_build_sims COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target pulp_rtl_sims)
set_tests_properties(rtl_build_sims PROPERTIES FIXTURES_SETUP rtl_sims TIMEOUT 900)

add_test(NAME rtl_pack_int8 COMMAND tessera-pack ${SHARED_MODELS}/stories260K.bin --tokenizer ${SHARED_MODELS}/tok512.bin
         --board pulp-rtl --precision int8 -q -o ${RTL}/images/stories260K_int8.tess)
add_test(NAME rtl_pack_fp32 COMMAND tessera-pack ${SHARED_MODELS}/stories260K.bin --tokenizer ${SHARED_MODELS}/tok512.bin
         --board pulp-rtl -q -o ${RTL}/images/stories260K_fp32.tess)
# GPT-2 (fp32): a random-weight Hugging Face directory the reference test's script writes.
add_test(NAME rtl_make_gpt2 COMMAND ${TESSERA_TORCH_PYTHON} ${CMAKE_SOURCE_DIR}/tests/models/gpt2_reference.py
         --make-only ${RTL}/models/gpt2)
set_tests_properties(rtl_make_gpt2 PROPERTIES FIXTURES_SETUP rtl_gpt2_dir)
add_test(NAME rtl_pack_gpt2 COMMAND tessera-pack ${RTL}/models/gpt2 --board pulp-rtl -q -o ${RTL}/images/gpt2.tess)
# ... and at int8, on the core without an FPU: integer LayerNorm and GELU.
add_test(NAME rtl_pack_gpt2_int8 COMMAND tessera-pack ${RTL}/models/gpt2 --board pulp-rtl --precision int8 -q
                                         -o ${RTL}/images/gpt2_int8.tess)
set_tests_properties(rtl_pack_gpt2 rtl_pack_gpt2_int8 PROPERTIES FIXTURES_REQUIRED rtl_gpt2_dir)
set(RTL_IMAGE_gpt2 ${RTL}/images/gpt2.tess)
set(RTL_IMAGE_gpt2_int8 ${RTL}/images/gpt2_int8.tess)
set(RTL_PACKS rtl_pack_int8 rtl_pack_fp32 rtl_pack_gpt2 rtl_pack_gpt2_int8)
set(RTL_IMAGES "int8=${RTL}/images/stories260K_int8.tess\;gpt2_int8=${RTL}/images/gpt2_int8.tess")
tessera_deeploy_vectors(rtl ${RTL}/images pulp-rtl microLlama8:microLlama8:cluster
                        microLlama8_parallel:microLlama8_parallel:cluster microLlama128:microLlama128:cluster
                        microLlama64_parallel:microLlama64_parallel:cluster)
list(APPEND RTL_PACKS ${DEEPLOY_PACKS})
string(APPEND RTL_IMAGES "${DEEPLOY_IMAGES}")
set(RTL_VECTORS "${DEEPLOY_VECTORS}")
set_tests_properties(${RTL_PACKS} PROPERTIES FIXTURES_SETUP rtl_images)
set(RTL_STEPS 8) # tokens a demo generates on the RTL (about a second of simulation each on one core)
# run.c's tokens (the baseline, rtl_llama2c_1core, label rtl_long: 24 M cycles in all on the
# slower FPU model): it reads its weights and state from L2, 4.8 M cycles a token; the
# first is not timed.
set(RTL_LLAMA2C_STEPS 3)
add_test(NAME rtl_build_firmware
         COMMAND ${CMAKE_COMMAND} -DSOURCE=${CMAKE_SOURCE_DIR} -DBINARY=${RTL}/build
                 -DTOOLCHAIN=${CMAKE_SOURCE_DIR}/toolchain/riscv32-imc-xpulpv2-elf.cmake "-DIMAGES=${RTL_IMAGES}"
                 "-DVECTORS=${RTL_VECTORS}" -DEXTRA=-DTESSERA_DEMO_STEPS=${RTL_STEPS}
                 -P ${CMAKE_SOURCE_DIR}/tests/firmware/build.cmake)
add_test(NAME rtl_build_firmware_fpu
         COMMAND ${CMAKE_COMMAND} -DSOURCE=${CMAKE_SOURCE_DIR} -DBINARY=${RTL}/build-fpu
                 -DTOOLCHAIN=${CMAKE_SOURCE_DIR}/toolchain/riscv32-imfc-xpulpv2-elf.cmake
                 "-DIMAGES=fp32=${RTL}/images/stories260K_fp32.tess\;gpt2=${RTL}/images/gpt2.tess"
                 "-DEXTRA=-DTESSERA_DEMO_STEPS=${RTL_STEPS}\;-DTESSERA_LLAMA2C_DIR=${TESSERA_SHARED_DIR}/reference/llama2.c\;-DTESSERA_LLAMA2C_MODEL=${SHARED_MODELS}/stories260K.bin\;-DTESSERA_LLAMA2C_TOKENIZER=${SHARED_MODELS}/tok512.bin\;-DTESSERA_LLAMA2C_STEPS=${RTL_LLAMA2C_STEPS}"
                 -P ${CMAKE_SOURCE_DIR}/tests/firmware/build.cmake)
# The same images with the portable kernels only: the baseline the xpulpv2 set is held against.
add_test(NAME rtl_build_firmware_portable
         COMMAND ${CMAKE_COMMAND} -DSOURCE=${CMAKE_SOURCE_DIR} -DBINARY=${RTL}/build-portable
                 -DTOOLCHAIN=${CMAKE_SOURCE_DIR}/toolchain/riscv32-imc-xpulpv2-elf.cmake "-DIMAGES=${RTL_IMAGES}"
                 "-DVECTORS=${RTL_VECTORS}" "-DEXTRA=-DTESSERA_DEMO_STEPS=${RTL_STEPS}\;-DTESSERA_KERNEL_SETS="
                 -P ${CMAKE_SOURCE_DIR}/tests/firmware/build.cmake)
set_tests_properties(rtl_build_firmware rtl_build_firmware_fpu rtl_build_firmware_portable PROPERTIES
                     FIXTURES_REQUIRED rtl_images FIXTURES_SETUP rtl_elf TIMEOUT 600)
set(RTL_ELF ${RTL}/build/boards/pulp-rtl)

# name:elf:simulator:run[:check]
set(RTL_RUNS hal_conformance_1core:tessera-hal-conformance:1c:suite hal_conformance_8cores:tessera-hal-conformance:8c:suite
             kernels_1core:tessera-kernel-conformance:1c:suite
             int8_1core:tessera-firmware-int8:1c:token:host int8_8cores:tessera-firmware-int8:8c:token:host
             fp32_1core:tessera-firmware-fp32:1c-fpu:token:golden gpt2_1core:tessera-firmware-gpt2:1c-fpu:token:host
             gpt2_int8_1core:tessera-firmware-gpt2_int8:1c:token:host)
foreach(graph ml8:microLlama8 ml8_parallel:microLlama8_parallel ml128:microLlama128)
  string(REPLACE ":" ";" graph "${graph}")
  list(GET graph 0 tag)
  list(GET graph 1 g)
  list(APPEND RTL_RUNS deeploy_${tag}_1core:tessera-firmware-${g}:1c:graph:vectors
                       deeploy_${tag}_8cores:tessera-firmware-${g}:8c:graph:vectors)
endforeach()
list(APPEND RTL_RUNS deeploy_ml64_parallel_8cores:tessera-firmware-microLlama64_parallel:8c:graph:vectors
                     portable_int8_1core:tessera-firmware-int8:1c:token:host
                     portable_deeploy_ml128_1core:tessera-firmware-microLlama128:1c:graph:vectors
                     portable_deeploy_ml128_8cores:tessera-firmware-microLlama128:8c:graph:vectors)
foreach(run IN LISTS RTL_RUNS)
  string(REPLACE ":" ";" run "${run}")
  list(GET run 0 name)
  list(GET run 1 elf)
  list(GET run 2 sim)
  list(GET run 3 what)
  list(LENGTH run n)
  set(check "")
  if(n GREATER 4)
    list(GET run 4 check)
  endif()
  # The board's cost model beside the measurement: the image, the run, the cores, the set.
  set(cores 1)
  if(sim MATCHES "^8c")
    set(cores 8)
  endif()
  set(set xpulpv2)
  if(name MATCHES "^portable_")
    set(set portable)
  endif()
  set(args "")
  string(REGEX REPLACE "^tessera-firmware-" "" image "${elf}")
  set(image_file ${RTL}/images/stories260K_${image}.tess)
  if(DEFINED RTL_IMAGE_${image})
    set(image_file ${RTL_IMAGE_${image}})
  endif()
  if(what STREQUAL "token")
    set(args -DPREDICT_IMAGE=${image_file} -DPREDICT_RUN=firmware)
  elseif(what STREQUAL "graph")
    set(args -DPREDICT_IMAGE=${RTL}/images/${image}.tess -DPREDICT_RUN=firmware)
  endif()
  if(args)
    list(APPEND args -DINSPECT=$<TARGET_FILE:tessera-inspect> -DCORES=${cores} -DKERNEL_SET=${set})
  endif()
  if(check STREQUAL "host")
    list(APPEND args -DHOST_GENERATE=$<TARGET_FILE:tessera-generate> -DIMAGE=${image_file})
  elseif(check STREQUAL "golden")
    list(APPEND args -DGOLDEN=${GOLDEN_200})
  elseif(check STREQUAL "vectors")
    list(APPEND args "-DEXPECT=vectors: all: 0 of [0-9]+ values differ")
  elseif(elf STREQUAL "tessera-kernel-conformance")
    list(APPEND args "-DEXPECT=kernel conformance on pulp-rtl \\(portable, xpulpv2\\): [0-9]+ variants, [0-9]+ cases equal, 0 differ")
  endif()
  set(elf_dir ${RTL_ELF})
  if(name MATCHES "^portable_")
    set(elf_dir ${RTL}/build-portable/boards/pulp-rtl)
  elseif(sim MATCHES "-fpu$")
    set(elf_dir ${RTL}/build-fpu/boards/pulp-rtl)
  endif()
  add_test(NAME rtl_${name}
           COMMAND ${CMAKE_COMMAND} -DSIM=${RTL_SIM}/pulp-rtl-sim-${sim} -DELF=${elf_dir}/${elf}.elf -DRUN=${what} ${args}
                   -P ${CMAKE_SOURCE_DIR}/tests/rtl/run.cmake)
  set_tests_properties(rtl_${name} PROPERTIES FIXTURES_REQUIRED "rtl_elf;rtl_sims" TIMEOUT 1500)
endforeach()
# The longest simulations (label rtl_long, which scripts/test.sh runs only with --long):
# microLlama64_parallel (a 64-row chunk, 24 M cycles of 8 cores) and the portable set's
# microLlama128 on 8 cores. The 8-core runs start first (COST).
set_tests_properties(rtl_deeploy_ml64_parallel_8cores rtl_portable_deeploy_ml128_8cores PROPERTIES LABELS rtl_long)
foreach(run IN LISTS RTL_RUNS)
  if(run MATCHES "^([a-z0-9_]+):[^:]+:8c:")
    set_tests_properties(rtl_${CMAKE_MATCH_1} PROPERTIES COST 1000)
  endif()
endforeach()
# The baseline: llama2.c's run.c, built unchanged for the cores with the FPU, stories260K
# greedy from BOS (boards/pulp-rtl/llama2c): its cycles per token, and its text, which is
# the golden one's start.
add_test(NAME rtl_llama2c_1core
         COMMAND ${CMAKE_COMMAND} -DSIM=${RTL_SIM}/pulp-rtl-sim-1c-fpu
                 -DELF=${RTL}/build-fpu/boards/pulp-rtl/llama2c/tessera-llama2c-run.elf -DRUN=token
                 "-DEXPECT=(^|\n)Once upon a" -P ${CMAKE_SOURCE_DIR}/tests/rtl/run.cmake)
set_tests_properties(rtl_llama2c_1core PROPERTIES FIXTURES_REQUIRED "rtl_elf;rtl_sims" TIMEOUT 1500 LABELS rtl_long)
