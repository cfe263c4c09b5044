# qemu-virt-rv32's own tests (boards/qemu-virt-rv32/board.cmake: TSR_BOARD_TEST_FILE),
# declared by tests/boards/registered_board_tests.cmake in tests/' scope: its firmware under
# QEMU (ctest -R firmware), the NPU scenarios on harts of their own, Deeploy's graphs, a
# user's description and off-chip weights emulated by it, its HAL and kernel conformance,
# and the installed package's example firmware.
# Real firmware: the qemu-virt-rv32 board under QEMU (ctest -R firmware).
find_program(QEMU_RV32 qemu-system-riscv32)
set(FW ${CMAKE_BINARY_DIR}/firmware)
set(FW_TOOLCHAIN ${CMAKE_SOURCE_DIR}/toolchain/riscv32-imafc-elf.cmake)
add_test(NAME firmware_pack_golden COMMAND tessera-pack ${SHARED_MODELS}/stories260K.bin --tokenizer
         ${SHARED_MODELS}/tok512.bin --board qemu-virt-rv32 -q -o ${FW}/images/stories260K.tess)
add_test(NAME firmware_pack_l1_64k COMMAND tessera-pack ${SHARED_MODELS}/stories260K.bin --tokenizer
         ${SHARED_MODELS}/tok512.bin --board qemu-virt-rv32 --l1 65536 -q -o ${FW}/images/stories260K_l1_64k.tess)
add_test(NAME firmware_pack_bf16w COMMAND tessera-pack ${SHARED_MODELS}/stories260K.bin --tokenizer
         ${SHARED_MODELS}/tok512.bin --board qemu-virt-rv32 --weight-type bf16 -q -o ${FW}/images/stories260K_bf16w.tess)
# int8 (integer-only, and with float non-linearities) and bf16: their ids are compared
# with the host board's from the same image.
# Its variant list builds the int8_slim firmware, which links only the kernels it runs.
add_test(NAME firmware_pack_int8 COMMAND tessera-pack ${SHARED_MODELS}/stories260K.bin --tokenizer
         ${SHARED_MODELS}/tok512.bin --board qemu-virt-rv32 --precision int8 -q -o ${FW}/images/stories260K_int8.tess
         --emit-variants ${FW}/images/stories260K_int8_variants.c)
# W4A8: the decoder layers' weights in 4 bits, groups of 32 (--weight-type int4).
add_test(NAME firmware_pack_int4 COMMAND tessera-pack ${SHARED_MODELS}/stories260K.bin --tokenizer
         ${SHARED_MODELS}/tok512.bin --board qemu-virt-rv32 --precision int8 --weight-type int4 -q
         -o ${FW}/images/stories260K_int4.tess)
add_test(NAME firmware_pack_int8f COMMAND tessera-pack ${SHARED_MODELS}/stories260K.bin --tokenizer
         ${SHARED_MODELS}/tok512.bin --board qemu-virt-rv32 --precision int8 --nonlinear float -q
         -o ${FW}/images/stories260K_int8f.tess)
add_test(NAME firmware_pack_bf16 COMMAND tessera-pack ${SHARED_MODELS}/stories260K.bin --tokenizer
         ${SHARED_MODELS}/tok512.bin --board qemu-virt-rv32 --precision bf16 -q -o ${FW}/images/stories260K_bf16.tess)
# Deeploy's workload: the TinyLLama-v0 shape (TINYLLAMA_CHECKPOINT) in int8 at context 256;
# its firmware measures the forward pass at position 128.
add_test(NAME firmware_pack_tinyllama_int8 COMMAND tessera-pack ${TINYLLAMA_CHECKPOINT} --tokenizer
         ${TINYLLAMA_TOKENIZER} --board qemu-virt-rv32 --precision int8 -q -o ${FW}/images/tinyllama_v0_int8.tess)
set_tests_properties(firmware_pack_tinyllama_int8 PROPERTIES FIXTURES_REQUIRED firmware_tinyllama_checkpoint)
# The NPU scenarios (the qemu-virt-rv32 NPU is a hart of its own), and the int8 image
# for gap9 (no NPU) whose ids the host board gives to compare them with.
set(FW_SCENARIO_PACKS "")
foreach(scenario single-core npu npu-nms)
  string(REPLACE "-" "_" tag "${scenario}")
  add_test(NAME firmware_pack_int8_${tag} COMMAND tessera-pack ${SHARED_MODELS}/stories260K.bin --tokenizer
           ${SHARED_MODELS}/tok512.bin --board qemu-virt-rv32 --precision int8 --scenario ${scenario} -q
           -o ${FW}/images/stories260K_int8_${tag}.tess)
  add_test(NAME firmware_pack_tinyllama_int8_${tag} COMMAND tessera-pack ${TINYLLAMA_CHECKPOINT} --tokenizer
           ${TINYLLAMA_TOKENIZER} --board qemu-virt-rv32 --precision int8 --scenario ${scenario} -q
           -o ${FW}/images/tinyllama_v0_int8_${tag}.tess)
  set_tests_properties(firmware_pack_tinyllama_int8_${tag} PROPERTIES FIXTURES_REQUIRED firmware_tinyllama_checkpoint)
  list(APPEND FW_SCENARIO_PACKS firmware_pack_int8_${tag} firmware_pack_tinyllama_int8_${tag})
endforeach()
add_test(NAME firmware_pack_int8_gap9 COMMAND tessera-pack ${SHARED_MODELS}/stories260K.bin --tokenizer
         ${SHARED_MODELS}/tok512.bin --board gap9 --precision int8 -q -o ${FW}/images/stories260K_int8_gap9.tess)
# Deeploy's graphs on the firmware: each image with its vectors (inputs and Deeploy's
# expected outputs as one blob), run once; every value must equal Deeploy's.
# name:graph:scenario:L1 (0: the board's)
# GPT-2 (fp32): a random-weight Hugging Face directory the reference test's script writes,
# packed for this board; its firmware's ids equal the host board's.
add_test(NAME firmware_make_gpt2 COMMAND ${TESSERA_TORCH_PYTHON} ${CMAKE_SOURCE_DIR}/tests/models/gpt2_reference.py
         --make-only ${FW}/models/gpt2)
set_tests_properties(firmware_make_gpt2 PROPERTIES FIXTURES_SETUP firmware_gpt2_dir)
add_test(NAME firmware_pack_gpt2 COMMAND tessera-pack ${FW}/models/gpt2 --board qemu-virt-rv32 -q -o ${FW}/images/gpt2.tess)
# ... and at int8 (integer LayerNorm and GELU, biased matmuls as RequantShift).
add_test(NAME firmware_pack_gpt2_int8 COMMAND tessera-pack ${FW}/models/gpt2 --board qemu-virt-rv32 --precision int8 -q
                                              -o ${FW}/images/gpt2_int8.tess)
set_tests_properties(firmware_pack_gpt2 firmware_pack_gpt2_int8 PROPERTIES FIXTURES_REQUIRED firmware_gpt2_dir)
set(FW_DEEPLOY deeploy_ml8:microLlama8:cluster:0 deeploy_ml8_parallel:microLlama8_parallel:cluster:0
               deeploy_ml128:microLlama128:cluster:0 deeploy_ml128_npu_nms:microLlama128:npu-nms:0
               deeploy_ml64_parallel:microLlama64_parallel:cluster:0
               deeploy_ml64_parallel_l1_64000:microLlama64_parallel:cluster:64000
               deeploy_ml64_parallel_npu_nms_l1_64000:microLlama64_parallel:npu-nms:64000)
tessera_deeploy_vectors(firmware ${FW}/images qemu-virt-rv32 ${FW_DEEPLOY})
set(FW_DEEPLOY_PACKS ${DEEPLOY_PACKS})
set(FW_DEEPLOY_IMAGES "${DEEPLOY_IMAGES}")
set(FW_DEEPLOY_VECTORS "${DEEPLOY_VECTORS}")
file(MAKE_DIRECTORY ${FW}/images)
set_tests_properties(${FW_DEEPLOY_PACKS} PROPERTIES FIXTURES_SETUP firmware_images)
set_tests_properties(firmware_pack_golden firmware_pack_l1_64k firmware_pack_bf16w firmware_pack_int8
                     firmware_pack_int4 firmware_pack_int8f firmware_pack_bf16 firmware_pack_tinyllama_int8 firmware_pack_int8_gap9
                     firmware_pack_gpt2 firmware_pack_gpt2_int8
                     ${FW_SCENARIO_PACKS} PROPERTIES FIXTURES_SETUP firmware_images)
add_test(NAME firmware_build
         COMMAND ${CMAKE_COMMAND} -DSOURCE=${CMAKE_SOURCE_DIR} -DBINARY=${FW}/build -DTOOLCHAIN=${FW_TOOLCHAIN}
                 "-DIMAGES=golden=${FW}/images/stories260K.tess\\;l1_64k=${FW}/images/stories260K_l1_64k.tess\\;bf16w=${FW}/images/stories260K_bf16w.tess\\;int8=${FW}/images/stories260K_int8.tess\\;int8f=${FW}/images/stories260K_int8f.tess\\;bf16=${FW}/images/stories260K_bf16.tess\\;int8_single_core=${FW}/images/stories260K_int8_single_core.tess\\;int8_npu=${FW}/images/stories260K_int8_npu.tess\\;int8_npu_nms=${FW}/images/stories260K_int8_npu_nms.tess\;tinyllama_int8=${FW}/images/tinyllama_v0_int8.tess=128\;tinyllama_int8_single_core=${FW}/images/tinyllama_v0_int8_single_core.tess=128\;tinyllama_int8_npu=${FW}/images/tinyllama_v0_int8_npu.tess=128\;tinyllama_int8_npu_nms=${FW}/images/tinyllama_v0_int8_npu_nms.tess=128\;int4=${FW}/images/stories260K_int4.tess\;int8_slim=${FW}/images/stories260K_int8.tess\;gpt2=${FW}/images/gpt2.tess\;gpt2_int8=${FW}/images/gpt2_int8.tess\;golden_int8_variants=${FW}/images/stories260K.tess${FW_DEEPLOY_IMAGES}"
                 "-DVARIANTS=int8_slim=${FW}/images/stories260K_int8_variants.c\;golden_int8_variants=${FW}/images/stories260K_int8_variants.c"
                 "-DVECTORS=${FW_DEEPLOY_VECTORS}"
                 -DPREFIX=${FW}/install -P ${CMAKE_SOURCE_DIR}/tests/firmware/build.cmake)
set_tests_properties(firmware_build PROPERTIES FIXTURES_REQUIRED firmware_images FIXTURES_SETUP firmware_elf TIMEOUT 600)
set(FW_ELF ${FW}/build/boards/qemu-virt-rv32)
# The image each demo firmware embeds (firmware_build's IMAGES), for the qemu-virt-rv32
# board's instruction-count model beside the plugin's count (PREDICTED, run.cmake).
set(FW_PREDICT_IMAGES golden:stories260K l1_64k:stories260K_l1_64k bf16w:stories260K_bf16w int8:stories260K_int8
                      int8f:stories260K_int8f bf16:stories260K_bf16 int8_single_core:stories260K_int8_single_core
                      int8_npu:stories260K_int8_npu int8_npu_nms:stories260K_int8_npu_nms
                      tinyllama_int8:tinyllama_v0_int8 tinyllama_int8_single_core:tinyllama_v0_int8_single_core
                      tinyllama_int8_npu:tinyllama_v0_int8_npu tinyllama_int8_npu_nms:tinyllama_v0_int8_npu_nms
                      int4:stories260K_int4 int8_slim:stories260K_int8 gpt2:gpt2 gpt2_int8:gpt2_int8)
function(tessera_fw_predict_args out elf)
  set(image "${elf}")
  foreach(pair IN LISTS FW_PREDICT_IMAGES)
    if(pair MATCHES "^${elf}:(.*)$")
      set(image "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  set(${out} -DINSPECT=$<TARGET_FILE:tessera-inspect> -DPREDICT_IMAGE=${FW}/images/${image}.tess PARENT_SCOPE)
endfunction()
# -smp N: N - 1 compute harts and a DMA hart (the last); -smp 1: one hart doing both;
# -smp 10: 8 compute harts, a DMA hart and an NPU hart (otherwise hart 0 runs NPU jobs).
# bf16w: matmul weights in bf16 (its greedy ids equal run.c's fp32 ones, as on the host).
foreach(run golden_8harts:golden:9 golden_1hart:golden:2 golden_1hart_no_dma:golden:1 l1_64k_8harts:l1_64k:9
            bf16w_8harts:bf16w:9)
  string(REPLACE ":" ";" run "${run}")
  list(GET run 0 name)
  list(GET run 1 elf)
  list(GET run 2 smp)
  tessera_fw_predict_args(predict ${elf})
  add_test(NAME firmware_${name}
           COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU_RV32} -DELF=${FW_ELF}/tessera-firmware-${elf}.elf -DSMP=${smp}
                   -DGOLDEN=${GOLDEN_200} -DPLUGIN=$<TARGET_FILE:tessera_hart_counter> ${predict}
                   -P ${CMAKE_SOURCE_DIR}/tests/firmware/run.cmake)
  set_tests_properties(firmware_${name} PROPERTIES FIXTURES_REQUIRED firmware_elf TIMEOUT 1200)
endforeach()
# The host board's ids from IMAGE must be the firmware's. The NPU scenarios of int8
# stories260K are compared with the int8 image for gap9 (no NPU): every scenario, on
# either board, gives the same ids. tinyllama_*: the busiest compute hart's
# instructions per decoder layer at position 128 (and the NPU hart's, with 10 harts).
foreach(run int8_8harts:int8:9:stories260K_int8 int8_1hart:int8:2:stories260K_int8 int8f_8harts:int8f:9:stories260K_int8f
            int8_slim_8harts:int8_slim:9:stories260K_int8
            int4_8harts:int4:9:stories260K_int4 int4_1hart:int4:2:stories260K_int4
            bf16_8harts:bf16:9:stories260K_bf16 gpt2_8harts:gpt2:9:gpt2 gpt2_1hart:gpt2:2:gpt2
            gpt2_int8_8harts:gpt2_int8:9:gpt2_int8 gpt2_int8_1hart:gpt2_int8:2:gpt2_int8
            int8_single_core_1hart:int8_single_core:2:stories260K_int8_gap9
            int8_npu_10harts:int8_npu:10:stories260K_int8_gap9 int8_npu_nms_10harts:int8_npu_nms:10:stories260K_int8_gap9
            int8_npu_nms_1hart:int8_npu_nms:2:stories260K_int8_gap9 int8_npu_nms_1hart_no_dma:int8_npu_nms:1:stories260K_int8_gap9
            tinyllama_int8_8harts:tinyllama_int8:9:tinyllama_v0_int8 tinyllama_int8_1hart:tinyllama_int8:2:tinyllama_v0_int8
            tinyllama_int8_single_core_1hart:tinyllama_int8_single_core:2:tinyllama_v0_int8
            tinyllama_int8_cluster_10harts:tinyllama_int8:10:tinyllama_v0_int8
            tinyllama_int8_npu_10harts:tinyllama_int8_npu:10:tinyllama_v0_int8
            tinyllama_int8_npu_nms_10harts:tinyllama_int8_npu_nms:10:tinyllama_v0_int8)
  string(REPLACE ":" ";" run "${run}")
  list(GET run 0 name)
  list(GET run 1 elf)
  list(GET run 2 smp)
  list(GET run 3 image)
  string(REGEX MATCH "^tinyllama" layers "${name}")
  tessera_fw_predict_args(predict ${elf})
  add_test(NAME firmware_${name}
           COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU_RV32} -DELF=${FW_ELF}/tessera-firmware-${elf}.elf -DSMP=${smp}
                   -DHOST_GENERATE=$<TARGET_FILE:tessera-generate> -DIMAGE=${FW}/images/${image}.tess
                   -DPLUGIN=$<TARGET_FILE:tessera_hart_counter> -DLAYERS=$<BOOL:${layers}> ${predict}
                   -P ${CMAKE_SOURCE_DIR}/tests/firmware/run.cmake)
  set_tests_properties(firmware_${name} PROPERTIES FIXTURES_REQUIRED firmware_elf TIMEOUT 1200)
endforeach()
# Deeploy's vectors: 0 differing values on 1 and 8 compute harts (the NPU ones with 10:
# 8 compute harts, the DMA hart, the NPU hart); the plugin's instructions are the
# head-to-head with Deeploy's cycles on the same graphs (docs/deeploy.md).
foreach(run deeploy_ml8_1hart:deeploy_ml8:2 deeploy_ml8_8harts:deeploy_ml8:9
            deeploy_ml8_parallel_1hart:deeploy_ml8_parallel:2 deeploy_ml8_parallel_8harts:deeploy_ml8_parallel:9
            deeploy_ml128_1hart:deeploy_ml128:2 deeploy_ml128_8harts:deeploy_ml128:9
            deeploy_ml128_npu_nms_10harts:deeploy_ml128_npu_nms:10
            deeploy_ml64_parallel_8harts:deeploy_ml64_parallel:9
            deeploy_ml64_parallel_l1_64000_8harts:deeploy_ml64_parallel_l1_64000:9
            deeploy_ml64_parallel_npu_nms_l1_64000_10harts:deeploy_ml64_parallel_npu_nms_l1_64000:10)
  string(REPLACE ":" ";" run "${run}")
  list(GET run 0 name)
  list(GET run 1 elf)
  list(GET run 2 smp)
  tessera_fw_predict_args(predict ${elf})
  add_test(NAME firmware_${name}
           COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU_RV32} -DELF=${FW_ELF}/tessera-firmware-${elf}.elf -DSMP=${smp}
                   "-DEXPECT=vectors: all: 0 of [0-9]+ values differ" -DPLUGIN=$<TARGET_FILE:tessera_hart_counter>
                   ${predict} -P ${CMAKE_SOURCE_DIR}/tests/firmware/run.cmake)
  set_tests_properties(firmware_${name} PROPERTIES FIXTURES_REQUIRED firmware_elf TIMEOUT 1200)
endforeach()
# A firmware built from the int8 image's variant list refuses the fp32 image: its
# features are those of the variants it registers, and fp32 is none of them (a step
# whose variant alone is missing is refused naming it: variant_registry_test); firmware_size prints .text of the int8 firmware with every
# variant and with its list (a measured figure: issue 20's goal is 40 KiB).
add_test(NAME firmware_variant_refused
         COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU_RV32} -DELF=${FW_ELF}/tessera-firmware-golden_int8_variants.elf -DSMP=9
                 -DEXPECT_EXIT=1 "-DEXPECT=image needs fp32 kernels, which this runtime does not provide"
                 -P ${CMAKE_SOURCE_DIR}/tests/firmware/run.cmake)
set_tests_properties(firmware_variant_refused PROPERTIES FIXTURES_REQUIRED firmware_elf TIMEOUT 300)
# The same two firmwares built MinSizeRel (-Os -msave-restore): the slim one must still
# give the host board's ids; firmware_size prints .text of all four.
add_test(NAME firmware_build_minsizerel
         COMMAND ${CMAKE_COMMAND} -DSOURCE=${CMAKE_SOURCE_DIR} -DBINARY=${FW}/build-minsizerel -DTOOLCHAIN=${FW_TOOLCHAIN}
                 -DBUILD_TYPE=MinSizeRel
                 "-DIMAGES=int8=${FW}/images/stories260K_int8.tess\;int8_slim=${FW}/images/stories260K_int8.tess"
                 "-DVARIANTS=int8_slim=${FW}/images/stories260K_int8_variants.c"
                 -P ${CMAKE_SOURCE_DIR}/tests/firmware/build.cmake)
set_tests_properties(firmware_build_minsizerel PROPERTIES FIXTURES_REQUIRED firmware_images FIXTURES_SETUP firmware_elf_minsizerel
                     TIMEOUT 600)
set(FW_ELF_MINSIZEREL ${FW}/build-minsizerel/boards/qemu-virt-rv32)
add_test(NAME firmware_int8_slim_minsizerel_8harts
         COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU_RV32} -DELF=${FW_ELF_MINSIZEREL}/tessera-firmware-int8_slim.elf -DSMP=9
                 -DHOST_GENERATE=$<TARGET_FILE:tessera-generate> -DIMAGE=${FW}/images/stories260K_int8.tess
                 -DPLUGIN=$<TARGET_FILE:tessera_hart_counter> -DLAYERS=0 -DINSPECT=$<TARGET_FILE:tessera-inspect>
                 -DPREDICT_IMAGE=${FW}/images/stories260K_int8.tess
                 "-DNOT_MODELLED=the fitted instruction counts are the Release firmware's; this one is built -Os"
                 -P ${CMAKE_SOURCE_DIR}/tests/firmware/run.cmake)
set_tests_properties(firmware_int8_slim_minsizerel_8harts PROPERTIES FIXTURES_REQUIRED firmware_elf_minsizerel TIMEOUT 1200)
find_program(RISCV_SIZE riscv64-unknown-elf-size)
add_test(NAME firmware_size COMMAND ${RISCV_SIZE} -A ${FW_ELF}/tessera-firmware-int8.elf ${FW_ELF}/tessera-firmware-int8_slim.elf
                                    ${FW_ELF_MINSIZEREL}/tessera-firmware-int8.elf ${FW_ELF_MINSIZEREL}/tessera-firmware-int8_slim.elf)
set_tests_properties(firmware_size PROPERTIES FIXTURES_REQUIRED "firmware_elf;firmware_elf_minsizerel")
# A user's own 4-core description emulated by the QEMU board: packs, builds and gives
# the host board's ids.
add_test(NAME firmware_custom_board
         COMMAND bash ${CMAKE_SOURCE_DIR}/tests/firmware/custom_board.sh ${CMAKE_SOURCE_DIR} ${FW_TOOLCHAIN}
                 ${QEMU_RV32} $<TARGET_FILE:tessera-pack> $<TARGET_FILE:tessera-generate>
                 ${CMAKE_SOURCE_DIR}/tests/firmware/run.cmake ${TESSERA_SHARED_DIR} ${FW}/custom_board)
set_tests_properties(firmware_custom_board PROPERTIES TIMEOUT 900)
# A stories15M-shaped model whose weights lie in off-chip memory only the DMA hart reads:
# runs with 1 and 8 compute harts in int8 and W4A8 with the host board's ids, and a
# compute hart's load from those weights traps (tests/firmware/offchip_board.sh).
add_test(NAME firmware_offchip
         COMMAND bash ${CMAKE_SOURCE_DIR}/tests/firmware/offchip_board.sh ${CMAKE_SOURCE_DIR} ${FW_TOOLCHAIN}
                 ${QEMU_RV32} $<TARGET_FILE:tessera-pack> $<TARGET_FILE:tessera-generate>
                 ${CMAKE_SOURCE_DIR}/tests/firmware/run.cmake $<TARGET_FILE:tessera-synthetic-model>
                 $<TARGET_FILE:tessera_hart_counter> ${FW}/offchip)
set_tests_properties(firmware_offchip PROPERTIES TIMEOUT 1200)

# The HAL conformance suite on qemu-virt-rv32: one hart doing everything, one compute
# hart and the DMA hart, 8 and the DMA hart, 8 with the DMA and NPU harts.
foreach(run 1hart_no_dma:1 1hart:2 8harts:9 8harts_npu:10)
  string(REPLACE ":" ";" run "${run}")
  list(GET run 0 name)
  list(GET run 1 smp)
  add_test(NAME firmware_hal_conformance_${name}
           COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU_RV32} -DELF=${FW_ELF}/tessera-hal-conformance.elf -DSMP=${smp}
                   "-DEXPECT=conformance: [0-9]+ passed, 0 failed" -P ${CMAKE_SOURCE_DIR}/tests/firmware/run.cmake)
  set_tests_properties(firmware_hal_conformance_${name} PROPERTIES FIXTURES_REQUIRED firmware_elf TIMEOUT 300)
endforeach()
# The kernel conformance program on qemu-virt-rv32: the portable RV32 kernels against their
# definitions (one hart; QEMU -icount: its counter counts instructions).
add_test(NAME firmware_kernels
         COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU_RV32} -DELF=${FW_ELF}/tessera-kernel-conformance.elf -DSMP=1
                 "-DEXPECT=kernel conformance on qemu-virt-rv32 \\(portable\\): [0-9]+ variants, [0-9]+ cases equal, 0 differ"
                 -P ${CMAKE_SOURCE_DIR}/tests/firmware/run.cmake)
set_tests_properties(firmware_kernels PROPERTIES FIXTURES_REQUIRED firmware_elf TIMEOUT 300)
# examples/firmware: a project outside the tree, built against the installed package and
# toolchain file, with the real stories260K image linked in; it gives the golden ids.
add_test(NAME firmware_example_build
         COMMAND ${CMAKE_COMMAND} -DSOURCE=${CMAKE_SOURCE_DIR}/examples/firmware -DBINARY=${FW}/example
                 -DTOOLCHAIN=${FW}/install/tessera-rv32imafc/share/tessera/toolchain/riscv32-imafc-elf.cmake -DPREFIX_PATH=${FW}/install
                 -DEXTRA=-DTESSERA_IMAGE=${FW}/images/stories260K.tess -P ${CMAKE_SOURCE_DIR}/tests/firmware/build.cmake)
set_tests_properties(firmware_example_build PROPERTIES FIXTURES_REQUIRED "firmware_elf;firmware_images"
                                                      FIXTURES_SETUP firmware_example)
# The host package and the RV32 one in one prefix (install_one_prefix.sh says what it checks).
add_test(NAME install_one_prefix
         COMMAND bash ${CMAKE_SOURCE_DIR}/tests/cli/install_one_prefix.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR} ${FW}/build
                 ${FW}/images/stories260K.tess ${C_API_IMAGE} ${CMAKE_BINARY_DIR}/install_one_prefix)
set_tests_properties(install_one_prefix PROPERTIES FIXTURES_REQUIRED "firmware_elf;firmware_images;c_api_image" TIMEOUT 600
                     RUN_SERIAL ON)
add_test(NAME firmware_example_runs
         COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU_RV32} -DELF=${FW}/example/story.elf -DSMP=9 -DGOLDEN=${GOLDEN_200}
                 -P ${CMAKE_SOURCE_DIR}/tests/firmware/run.cmake)
set_tests_properties(firmware_example_runs PROPERTIES FIXTURES_REQUIRED firmware_example)
