# The seed SoC itself: the siracusa board's firmware on GVSoC's Siracusa model (ctest -L gvsoc).
# GVSoC is built out of tree from ${TESSERA_SHARED_DIR}/gvsoc/src by scripts/build-gvsoc.sh into a
# cache outside the build folder (reused while its sources are unchanged; gvsoc_build only checks
# it then). Images packed for siracusa, firmware cross-built with
# toolchain/riscv32-imfc-xpulpv2-ri5cy-elf.cmake (the kernels in RI5CY's XpulpV2 encodings), run
# on 1 and 8 cluster cores (the ELF's .tessera_cores word). Each prints GVSoC's cycles of cluster
# core 0 and a MEASURED cycles line (tests/rtl/run.cmake serves both simulators).
option(TESSERA_REQUIRE_GVSOC "Fail to configure when the gvsoc tests cannot run (no GVSoC sources, no RISC-V toolchain)" OFF)
find_program(RISCV_OBJCOPY riscv64-unknown-elf-objcopy)
find_program(RISCV_GCC riscv64-unknown-elf-gcc)
set(_gvsoc_src ${TESSERA_SHARED_DIR}/gvsoc/src)
if(NOT EXISTS ${_gvsoc_src}/CMakeLists.txt OR NOT RISCV_OBJCOPY OR NOT RISCV_GCC)
  if(TESSERA_REQUIRE_GVSOC)
    message(FATAL_ERROR "TESSERA_REQUIRE_GVSOC: no GVSoC sources at ${_gvsoc_src} or no RISC-V toolchain "
                        "(scripts/install-deps.sh installs it)")
  endif()
  message(STATUS "gvsoc tests: not added (GVSoC sources: ${_gvsoc_src}; objcopy: ${RISCV_OBJCOPY})")
  return()
endif()
execute_process(COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/build-gvsoc.sh --path --shared ${TESSERA_SHARED_DIR}
                OUTPUT_VARIABLE GVSOC_PREFIX OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "scripts/build-gvsoc.sh --path failed")
endif()
set(GVSOC ${GVSOC_PREFIX}/bin/gvsoc)
# The model's HyperRAM is 8 MiB unless a run sets it: every run gets the description's offchip.bytes.
file(READ ${CMAKE_SOURCE_DIR}/boards/siracusa/board.json _siracusa_json)
string(JSON HYPERRAM_BYTES GET "${_siracusa_json}" offchip bytes)
set(GV ${CMAKE_BINARY_DIR}/gvsoc)
file(MAKE_DIRECTORY ${GV}/images)
add_test(NAME gvsoc_build COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/build-gvsoc.sh --shared ${TESSERA_SHARED_DIR})
set_tests_properties(gvsoc_build PROPERTIES FIXTURES_SETUP gvsoc_sim TIMEOUT 1800)

add_test(NAME gvsoc_pack_int8 COMMAND tessera-pack ${SHARED_MODELS}/stories260K.bin --tokenizer ${SHARED_MODELS}/tok512.bin
         --board siracusa --precision int8 -q -o ${GV}/images/stories260K_int8.tess)
# fp32 at context 256: every weight fits L2 beside the buffers (at 512, 219 KB would stay in the
# image, which the description puts in HyperRAM while the linked image lies in the weight memory).
add_test(NAME gvsoc_pack_fp32 COMMAND tessera-pack ${SHARED_MODELS}/stories260K.bin --tokenizer ${SHARED_MODELS}/tok512.bin
         --board siracusa --context 256 -q -o ${GV}/images/stories260K_fp32.tess)
# An image for another board, which the siracusa firmware must refuse by name.
add_test(NAME gvsoc_pack_wrong_board COMMAND tessera-pack ${SHARED_MODELS}/stories260K.bin --tokenizer
         ${SHARED_MODELS}/tok512.bin --board pulp-rtl --precision int8 -q -o ${GV}/images/stories260K_pulp_rtl.tess)
# The stories15M shape (random weights; an embedding small beside the layers' outputs, so that
# the classifier it shares predicts from them): 16.7 MB in int8 with one table, larger than L2
# and the weight memory, run from HyperRAM (the board's loader puts it there at boot), on the
# cluster (its int8 lowering's Q31 factors are not N-EUREKA's stage's: tessera/neureka_requant.h).
add_test(NAME gvsoc_synthesize_stories15m
         COMMAND tessera-synthetic-model --dim 288 --hidden 768 --layers 6 --heads 6 --kv-heads 6 --vocab 32000
                 --seq-len 256 --embedding-scale 0.05 ${GV}/images/stories15M_shape.bin ${GV}/images/stories15M_shape.tok)
set_tests_properties(gvsoc_synthesize_stories15m PROPERTIES FIXTURES_SETUP gvsoc_stories15m_checkpoint)
add_test(NAME gvsoc_pack_offchip_int8 COMMAND tessera-pack ${GV}/images/stories15M_shape.bin --tokenizer
         ${GV}/images/stories15M_shape.tok --board siracusa --precision int8 --tied-embedding shared --scenario cluster
         --context 32 -q -o ${GV}/images/stories15M_shape_int8.tess)
set_tests_properties(gvsoc_pack_offchip_int8 PROPERTIES FIXTURES_REQUIRED gvsoc_stories15m_checkpoint)
# Whole models at position 128 (issue 43's item 3), each from HyperRAM, started at depth 127 over
# a zero cache (tessera-generate --depth: the host board's ids from the same start): BOS at 127,
# then the token at 128 measured. The stories15M shape in W4A8 with its table in 4 bits
# (shared-int4; context 136: the KV cache and the most reused weights fill L2), and in int8 with
# its table in 8 bits (shared: 16.7 MB, the most HyperRAM takes); the TinyLLama-v0
# shape (dim 64, 8 layers, 16 heads, hidden 256, vocabulary 32,000: microLlama128's decoder with
# its embedding and classifier) in int8 with its 32,000-row table in 4 bits (shared-int4), and in 8
# bits (shared: its 2 MB table streams whole a token).
add_test(NAME gvsoc_pack_stories15m_w4a8 COMMAND tessera-pack ${GV}/images/stories15M_shape.bin --tokenizer
         ${GV}/images/stories15M_shape.tok --board siracusa --precision int8 --weight-type int4 --tied-embedding shared-int4
         --scenario cluster --context 136 -q -o ${GV}/images/stories15M_shape_w4a8.tess)
set_tests_properties(gvsoc_pack_stories15m_w4a8 PROPERTIES FIXTURES_REQUIRED gvsoc_stories15m_checkpoint)
add_test(NAME gvsoc_pack_stories15m_int8_ctx136 COMMAND tessera-pack ${GV}/images/stories15M_shape.bin --tokenizer
         ${GV}/images/stories15M_shape.tok --board siracusa --precision int8 --tied-embedding shared --scenario cluster
         --context 136 -q -o ${GV}/images/stories15M_shape_int8_ctx136.tess)
set_tests_properties(gvsoc_pack_stories15m_int8_ctx136 PROPERTIES FIXTURES_REQUIRED gvsoc_stories15m_checkpoint)
add_test(NAME gvsoc_synthesize_tinyllama
         COMMAND tessera-synthetic-model --dim 64 --hidden 256 --layers 8 --heads 16 --kv-heads 16 --vocab 32000
                 --seq-len 256 --embedding-scale 0.05 ${GV}/images/tinyllama_shape.bin ${GV}/images/tinyllama_shape.tok)
set_tests_properties(gvsoc_synthesize_tinyllama PROPERTIES FIXTURES_SETUP gvsoc_tinyllama_checkpoint)
add_test(NAME gvsoc_pack_tinyllama_w4table COMMAND tessera-pack ${GV}/images/tinyllama_shape.bin --tokenizer
         ${GV}/images/tinyllama_shape.tok --board siracusa --precision int8 --tied-embedding shared-int4 --scenario cluster
         --context 256 -q -o ${GV}/images/tinyllama_shape_w4table.tess)
set_tests_properties(gvsoc_pack_tinyllama_w4table PROPERTIES FIXTURES_REQUIRED gvsoc_tinyllama_checkpoint)
add_test(NAME gvsoc_pack_tinyllama_shared COMMAND tessera-pack ${GV}/images/tinyllama_shape.bin --tokenizer
         ${GV}/images/tinyllama_shape.tok --board siracusa --precision int8 --tied-embedding shared --scenario cluster
         --context 256 -q -o ${GV}/images/tinyllama_shape_shared.tess)
set_tests_properties(gvsoc_pack_tinyllama_shared PROPERTIES FIXTURES_REQUIRED gvsoc_tinyllama_checkpoint)
# The Deeploy paper's NPU scenarios: the linear layers as N-EUREKA's jobs, their
# weights streamed from L2 (npu) or in the weight memory (npu-nms).
foreach(scenario npu npu-nms)
  string(REPLACE "-" "_" tag ${scenario})
  add_test(NAME gvsoc_pack_int8_${tag} COMMAND tessera-pack ${SHARED_MODELS}/stories260K.bin --tokenizer
           ${SHARED_MODELS}/tok512.bin --board siracusa --precision int8 --scenario ${scenario} -q
           -o ${GV}/images/stories260K_int8_${tag}.tess)
endforeach()
# GPT-2 (fp32): a random-weight Hugging Face directory the reference test's script writes.
add_test(NAME gvsoc_make_gpt2 COMMAND ${TESSERA_TORCH_PYTHON} ${CMAKE_SOURCE_DIR}/tests/models/gpt2_reference.py
         --make-only ${GV}/models/gpt2)
set_tests_properties(gvsoc_make_gpt2 PROPERTIES FIXTURES_SETUP gvsoc_gpt2_dir)
add_test(NAME gvsoc_pack_gpt2 COMMAND tessera-pack ${GV}/models/gpt2 --board siracusa -q -o ${GV}/images/gpt2.tess)
# ... and at int8, the scenario the packer picks (its biased matmuls on N-EUREKA where they pay).
add_test(NAME gvsoc_pack_gpt2_int8 COMMAND tessera-pack ${GV}/models/gpt2 --board siracusa --precision int8 -q
                                           -o ${GV}/images/gpt2_int8.tess)
set_tests_properties(gvsoc_pack_gpt2 gvsoc_pack_gpt2_int8 PROPERTIES FIXTURES_REQUIRED gvsoc_gpt2_dir)
set(GV_IMAGE_gpt2 ${GV}/images/gpt2.tess)
set(GV_IMAGE_gpt2_int8 ${GV}/images/gpt2_int8.tess)
set(GV_PACKS gvsoc_pack_gpt2 gvsoc_pack_gpt2_int8 gvsoc_pack_int8 gvsoc_pack_int8_npu gvsoc_pack_int8_npu_nms gvsoc_pack_fp32 gvsoc_pack_wrong_board
             gvsoc_pack_offchip_int8 gvsoc_pack_stories15m_w4a8
             gvsoc_pack_stories15m_int8_ctx136 gvsoc_pack_tinyllama_w4table gvsoc_pack_tinyllama_shared)
set(GV_PULP_TRAINLIB_PROMPT "Tim was very happy")
set(GV_IMAGES "int8=${GV}/images/stories260K_int8.tess\\;int8_npu=${GV}/images/stories260K_int8_npu.tess\\;\
int8_npu_nms=${GV}/images/stories260K_int8_npu_nms.tess\\;int8_256tokens=${GV}/images/stories260K_int8.tess\\;fp32=${GV}/images/stories260K_fp32.tess\\;gpt2=${GV}/images/gpt2.tess\\;gpt2_int8=${GV}/images/gpt2_int8.tess\\;wrong_board=${GV}/images/stories260K_pulp_rtl.tess")
# 3 tokens; and a file that is not an image, which the loader must refuse (gvsoc_offchip_not_an_image);
# the whole models at depth 127: NAME=IMAGE=STEPS=DEPTH; stories260K int8 at positions 201 to 208
# (from depth 200; its weights on chip at open), attention deep in the context for the fit.
set(GV_IMAGE_offchip_int8 ${GV}/images/stories15M_shape_int8.tess)
set(GV_IMAGE_stories15m_w4a8 ${GV}/images/stories15M_shape_w4a8.tess)
set(GV_IMAGE_tinyllama_token128_w4table ${GV}/images/tinyllama_shape_w4table.tess)
set(GV_IMAGE_tinyllama_token128_shared ${GV}/images/tinyllama_shape_shared.tess)
set(GV_IMAGE_int8_depth200 ${GV}/images/stories260K_int8.tess)
set(GV_IMAGE_stories15m_int8 ${GV}/images/stories15M_shape_int8_ctx136.tess)
set(GV_DEPTH_stories15m_int8 127)
set(GV_DEPTH_stories15m_w4a8 127)
set(GV_DEPTH_tinyllama_token128_w4table 127)
set(GV_DEPTH_tinyllama_token128_shared 127)
set(GV_DEPTH_int8_depth200 200)
set(GV_OFFCHIP_IMAGES "offchip_int8=${GV_IMAGE_offchip_int8}=3\\;offchip_not_an_image=${GV}/images/stories15M_shape.tok=1\\;\
stories15m_w4a8=${GV_IMAGE_stories15m_w4a8}=1=${GV_DEPTH_stories15m_w4a8}\\;\
tinyllama_token128_w4table=${GV_IMAGE_tinyllama_token128_w4table}=1=${GV_DEPTH_tinyllama_token128_w4table}\\;\
tinyllama_token128_shared=${GV_IMAGE_tinyllama_token128_shared}=1=${GV_DEPTH_tinyllama_token128_shared}\\;\
int8_depth200=${GV_IMAGE_int8_depth200}=8=${GV_DEPTH_int8_depth200}\\;stories15m_int8=${GV_IMAGE_stories15m_int8}=1=${GV_DEPTH_stories15m_int8}")
tessera_deeploy_vectors(gvsoc ${GV}/images siracusa microLlama8:microLlama8:cluster
                        microLlama8_parallel:microLlama8_parallel:cluster microLlama128:microLlama128:cluster
                        microLlama64_parallel:microLlama64_parallel:cluster microLlama128_npu:microLlama128:npu
                        microLlama128_npu_nms:microLlama128:npu-nms microLlama64_parallel_npu_nms:microLlama64_parallel:npu-nms)
list(APPEND GV_PACKS ${DEEPLOY_PACKS})
string(APPEND GV_IMAGES "${DEEPLOY_IMAGES}")
set(GV_VECTORS "${DEEPLOY_VECTORS}")
set_tests_properties(${GV_PACKS} PROPERTIES FIXTURES_SETUP gvsoc_images)
add_test(NAME gvsoc_build_firmware
         COMMAND ${CMAKE_COMMAND} -DSOURCE=${CMAKE_SOURCE_DIR} -DBINARY=${GV}/build
                 -DTOOLCHAIN=${CMAKE_SOURCE_DIR}/toolchain/riscv32-imfc-xpulpv2-ri5cy-elf.cmake "-DIMAGES=${GV_IMAGES}"
                 "-DVECTORS=${GV_VECTORS}" "-DOFFCHIP_IMAGES=${GV_OFFCHIP_IMAGES}" -DEXTRA=-DTESSERA_DEMO_STEPS=8
                 "-DPROMPTS=int8_256tokens=${GV_PULP_TRAINLIB_PROMPT}=256"
                 -P ${CMAKE_SOURCE_DIR}/tests/firmware/build.cmake)
set_tests_properties(gvsoc_build_firmware PROPERTIES FIXTURES_REQUIRED gvsoc_images FIXTURES_SETUP gvsoc_elf TIMEOUT 900)
set(GV_ELF ${GV}/build/boards/siracusa)

# name:elf:cores:run[:check]
set(GV_RUNS hal_conformance_1core:tessera-hal-conformance:1:suite hal_conformance_8cores:tessera-hal-conformance:8:suite
            kernels_1core:tessera-kernel-conformance:1:suite
            int8_1core:tessera-firmware-int8:1:token:host int8_8cores:tessera-firmware-int8:8:token:host
            fp32_1core:tessera-firmware-fp32:1:token:golden fp32_8cores:tessera-firmware-fp32:8:token:golden
            gpt2_8cores:tessera-firmware-gpt2:8:token:host gpt2_int8_8cores:tessera-firmware-gpt2_int8:8:token:host
            offchip_int8_8cores:tessera-firmware-offchip_int8:8:token:host
            stories15m_w4a8_8cores:tessera-firmware-stories15m_w4a8:8:token:host
            stories15m_int8_8cores:tessera-firmware-stories15m_int8:8:token:host
            tinyllama_token128_w4table_8cores:tessera-firmware-tinyllama_token128_w4table:8:token:host
            tinyllama_token128_shared_8cores:tessera-firmware-tinyllama_token128_shared:8:token:host
            int8_depth200_8cores:tessera-firmware-int8_depth200:8:token:host
            int8_npu_8cores:tessera-firmware-int8_npu:8:token:host int8_npu_nms_8cores:tessera-firmware-int8_npu_nms:8:token:host
            deeploy_ml128_npu_8cores:tessera-firmware-microLlama128_npu:8:graph:vectors
            deeploy_ml128_npu_nms_8cores:tessera-firmware-microLlama128_npu_nms:8:graph:vectors
            deeploy_ml64_parallel_npu_nms_8cores:tessera-firmware-microLlama64_parallel_npu_nms:8:graph:vectors)
foreach(graph ml8:microLlama8 ml8_parallel:microLlama8_parallel ml128:microLlama128 ml64_parallel:microLlama64_parallel)
  string(REPLACE ":" ";" graph "${graph}")
  list(GET graph 0 tag)
  list(GET graph 1 g)
  list(APPEND GV_RUNS deeploy_${tag}_1core:tessera-firmware-${g}:1:graph:vectors
                      deeploy_${tag}_8cores:tessera-firmware-${g}:8:graph:vectors)
endforeach()
# PULP-TrainLib's head-to-head (seed paper 004, Table 5: stories260K in fp16 on GAP9's 8 cores,
# 51,954,140 cycles for 256 tokens after the prompt "Tim was very happy"): the same model in
# int8, the same prompt, 256 tokens as one measured run; the ids the host board generates
# from that prompt (it stops where the model ends the text, as run.c) begin the firmware's.
add_test(NAME gvsoc_stories260k_256tokens_8cores
         COMMAND ${CMAKE_COMMAND} -DGVSOC=${GVSOC} -DHYPERRAM_BYTES=${HYPERRAM_BYTES} -DOBJCOPY=${RISCV_OBJCOPY}
                 -DWORK=${GV}/work/stories260k_256tokens_8cores -DCORES_WORD=8
                 -DELF=${GV_ELF}/tessera-firmware-int8_256tokens.elf "-DRUN=256 tokens"
                 -DHOST_GENERATE=$<TARGET_FILE:tessera-generate> -DIMAGE=${GV}/images/stories260K_int8.tess
                 "-DPROMPT=${GV_PULP_TRAINLIB_PROMPT}" -P ${CMAKE_SOURCE_DIR}/tests/rtl/run.cmake)
set_tests_properties(gvsoc_stories260k_256tokens_8cores PROPERTIES FIXTURES_REQUIRED "gvsoc_elf;gvsoc_sim" TIMEOUT 1500
                     COST 1000 LABELS gvsoc_long)

foreach(run IN LISTS GV_RUNS)
  string(REPLACE ":" ";" run "${run}")
  list(GET run 0 name)
  list(GET run 1 elf)
  list(GET run 2 cores)
  list(GET run 3 what)
  list(LENGTH run n)
  set(check "")
  if(n GREATER 4)
    list(GET run 4 check)
  endif()
  string(REGEX REPLACE "^tessera-firmware-" "" image "${elf}")
  set(image_file ${GV}/images/stories260K_${image}.tess)
  if(DEFINED GV_IMAGE_${image})
    set(image_file ${GV_IMAGE_${image}})
  endif()
  set(args "")
  if(what STREQUAL "token")
    set(args -DPREDICT_IMAGE=${image_file})
  elseif(what STREQUAL "graph")
    set(args -DPREDICT_IMAGE=${GV}/images/${image}.tess)
  endif()
  if(args)
    list(APPEND args -DPREDICT_RUN=firmware -DINSPECT=$<TARGET_FILE:tessera-inspect> -DCORES=${cores} -DKERNEL_SET=xpulpv2)
  endif()
  if(check STREQUAL "host")
    list(APPEND args -DHOST_GENERATE=$<TARGET_FILE:tessera-generate> -DIMAGE=${image_file})
    if(DEFINED GV_DEPTH_${image})
      list(APPEND args -DDEPTH=${GV_DEPTH_${image}})
    endif()
  elseif(check STREQUAL "golden")
    list(APPEND args -DGOLDEN=${GOLDEN_200})
  elseif(check STREQUAL "vectors")
    list(APPEND args "-DEXPECT=vectors: all: 0 of [0-9]+ values differ")
  elseif(what STREQUAL "suite" AND elf STREQUAL "tessera-hal-conformance")
    list(APPEND args "-DEXPECT=conformance: [0-9]+ passed, 0 failed")
  elseif(what STREQUAL "suite")
    list(APPEND args "-DEXPECT=kernel conformance on siracusa \\(portable, xpulpv2\\): [0-9]+ variants, [0-9]+ cases equal, 0 differ")
  endif()
  add_test(NAME gvsoc_${name}
           COMMAND ${CMAKE_COMMAND} -DGVSOC=${GVSOC} -DHYPERRAM_BYTES=${HYPERRAM_BYTES} -DOBJCOPY=${RISCV_OBJCOPY}
                   -DWORK=${GV}/work/${name} -DCORES_WORD=${cores}
                   -DELF=${GV_ELF}/${elf}.elf -DRUN=${what} ${args} -P ${CMAKE_SOURCE_DIR}/tests/rtl/run.cmake)
  set_tests_properties(gvsoc_${name} PROPERTIES FIXTURES_REQUIRED "gvsoc_elf;gvsoc_sim" TIMEOUT 1500)
  if(cores EQUAL 8)
    set_tests_properties(gvsoc_${name} PROPERTIES COST 1000)
  endif()
endforeach()
# Bad input: an image planned for pulp-rtl refused on siracusa by name; a file the off-chip
# loader is given that is not an image refused, saying so (exit 2); an image larger than
# siracusa's HyperRAM (the stories15M shape in fp32, about 61 MB against 16 MiB) refused at pack
# time (exit 1) naming it, no file written; a trap on a cluster core ends the simulation naming
# the core, the cause and the pc.
add_test(NAME gvsoc_wrong_board
         COMMAND ${CMAKE_COMMAND} -DGVSOC=${GVSOC} -DHYPERRAM_BYTES=${HYPERRAM_BYTES} -DWORK=${GV}/work/wrong_board
                 -DELF=${GV_ELF}/tessera-firmware-wrong_board.elf
                 -DRUN=token "-DEXPECT=planned for board 'pulp-rtl'" -DEXPECT_EXIT=1 -P ${CMAKE_SOURCE_DIR}/tests/rtl/run.cmake)
add_test(NAME gvsoc_offchip_not_an_image
         COMMAND ${CMAKE_COMMAND} -DGVSOC=${GVSOC} -DHYPERRAM_BYTES=${HYPERRAM_BYTES} -DWORK=${GV}/work/offchip_not_an_image
                 -DELF=${GV_ELF}/tessera-firmware-offchip_not_an_image.elf -DRUN=token
                 "-DEXPECT=error: image [^ ]+stories15M_shape.tok: not a Tessera image" -DEXPECT_EXIT=2
                 -P ${CMAKE_SOURCE_DIR}/tests/rtl/run.cmake)
add_test(NAME gvsoc_trap
         COMMAND ${CMAKE_COMMAND} -DGVSOC=${GVSOC} -DHYPERRAM_BYTES=${HYPERRAM_BYTES} -DWORK=${GV}/work/trap
                 -DELF=${GV_ELF}/tessera-gvsoc-trap.elf -DRUN=token
                 "-DEXPECT=trap: core C0: mcause 0x[0-9a-f]+, mepc 0x108[0-9a-f]+, mtval" -DEXPECT_EXIT=127
                 -P ${CMAKE_SOURCE_DIR}/tests/rtl/run.cmake)
add_test(NAME gvsoc_pack_larger_than_hyperram
         COMMAND bash -c "rm -f $1; out=$($0 $2 --tokenizer $3 --board siracusa --context 32 -o $1 2>&1); rc=$?; echo \"$out\"; \
                          [ $rc = 1 ] && [ ! -e $1 ] && grep -q \"board 'siracusa' has 16777216 bytes of off-chip hyperram\" <<<\"$out\""
                 $<TARGET_FILE:tessera-pack> ${GV}/images/too_large.tess ${GV}/images/stories15M_shape.bin
                 ${GV}/images/stories15M_shape.tok)
set_tests_properties(gvsoc_pack_larger_than_hyperram PROPERTIES FIXTURES_REQUIRED gvsoc_stories15m_checkpoint)
set_tests_properties(gvsoc_wrong_board gvsoc_trap gvsoc_offchip_not_an_image PROPERTIES FIXTURES_REQUIRED "gvsoc_elf;gvsoc_sim"
                     TIMEOUT 300)
