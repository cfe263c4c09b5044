# Runs a firmware ELF under QEMU (virt, bare metal, deterministic instruction
# counting) and checks it exits 0 and, with GOLDEN, prints the golden ids. With
# PLUGIN (the hart-counter TCG plugin) it prints the instructions per token of the
# busiest compute hart and of the DMA hart (DMA_HART), and per byte the DMA moved.
# With HOST_GENERATE (tessera-generate) and IMAGE, the ids must equal what the host
# board generates from the same image (greedy, as many positions). A firmware that
# measures one position (TESSERA_DEMO_MEASURE_POS) also prints, from the plugin, the
# busiest compute hart's instructions per decoder layer (required with LAYERS).
# With EXPECT_EXIT, the firmware must exit with that code instead (a refusal), and
# print EXPECT.
# With the plugin it also prints the busiest compute hart's instructions per operator
# (the board labels them: "qemu matmul: instructions/run N", each operator's busiest
# hart, and "qemu matmul: instructions/run on the busiest hart N", the run's busiest
# hart's, which add up to its count and which scripts/fit-costs.py fits), and with INSPECT
# (tessera-inspect) and PREDICT_IMAGE the board's fitted instruction-count model for
# the run the firmware says it measured (tessera-inspect --predict, the qemu-virt-rv32
# board's costs):
#   PREDICTED instructions per run: N
# or, for a run the model does not describe (one hart; a compute hart running the NPU's
# jobs; NOT_MODELLED, the caller's reason), "PREDICTED: not modelled: <why>".
# STEPS: the positions a demo built with TESSERA_DEMO_STEPS other than 200 runs.
# REGION_TOKENS: the firmware marks one region of that many tokens (the llama2.c
# baseline), whose count the per-token figure divides.
# MACHINE: the QEMU machine, bare metal with semihosting (boards/mps3-an547/tests.cmake:
# mps3-an547, one core, which is its own DMA engine); default QEMU's virt with SMP harts.
# COSTS and KERNEL_SET: whose fitted costs predict the run (default qemu-virt-rv32's portable ones).
# cmake -DQEMU=... -DELF=... -DSMP=N [-DGOLDEN=file] [-DHOST_GENERATE=exe -DIMAGE=tess [-DSTEPS=n]] [-DEXPECT=regex]
#       [-DEXPECT_EXIT=code] [-DPLUGIN=so [-DLAYERS=ON]] [-DINSPECT=exe -DPREDICT_IMAGE=tess [-DNOT_MODELLED=why]] -P run.cmake
set(plugin_args "")
if(DEFINED PLUGIN)
  get_filename_component(counts "${ELF}.smp${SMP}.harts.txt" ABSOLUTE)
  file(REMOVE ${counts})
  set(engines "")
  if(SMP EQUAL 10)
    set(DMA_HART 8)
    set(NPU_HART 9)
    set(engines ",skip=8,skip=9")
  elseif(SMP GREATER 1)
    math(EXPR DMA_HART "${SMP} - 1")
    set(engines ",skip=${DMA_HART}")
  endif()
  set(plugin_args -plugin "${PLUGIN},out=${counts}${engines}")
endif()
# MACHINE: a machine of QEMU's, ended by semihosting (the Cortex-M55 board: qemu-system-arm).
if(MACHINE)
  set(machine_args -M ${MACHINE} -semihosting-config enable=on,target=native)
else()
  set(machine_args -M virt -smp ${SMP} -bios none)
endif()
execute_process(
  COMMAND ${QEMU} ${machine_args} -icount shift=0 -display none -serial stdio -monitor none
          -no-reboot ${plugin_args} -kernel ${ELF}
  INPUT_FILE /dev/null
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 900)
string(REGEX MATCH "^[^\n]*" first_line "${out}")
message(STATUS "${first_line}")
if(out MATCHES "\nconformance: " OR out MATCHES "^kernel conformance") # the conformance suites: every line
  message(STATUS "${out}")
endif()
string(REGEX MATCH "per token: [^\n]*" per_token "${out}")
if(per_token)
  message(STATUS "${per_token}")
endif()
string(REGEX MATCH "profile by operator.*" profile "${out}")
if(profile)
  message(STATUS "${profile}")
endif()
if(DEFINED PLUGIN AND EXISTS ${counts})
  file(READ ${counts} harts)
  message(STATUS "${harts}")
  string(REGEX MATCH "busiest instructions/region ([0-9]+)" _ "${harts}")
  set(busiest ${CMAKE_MATCH_1})
  if(DEFINED REGION_TOKENS AND busiest) # one measured region of that many tokens
    math(EXPR busiest "${busiest} / ${REGION_TOKENS}")
  endif()
  string(REGEX MATCH "hart ${DMA_HART} instructions/region ([0-9]+)" _ "${harts}")
  set(dma ${CMAKE_MATCH_1})
  string(REGEX MATCH "DMA bytes ([0-9]+)" _ "${per_token}")
  set(bytes ${CMAKE_MATCH_1})
  string(REGEX MATCH "layers busiest instructions/region ([0-9]+) \\(hart ([0-9]+)\\)" _ "${harts}")
  if(LAYERS AND NOT CMAKE_MATCH_1)
    message(FATAL_ERROR "the plugin reported no instructions by layer:\n${harts}")
  elseif(CMAKE_MATCH_1)
    message(STATUS "MEASURED decoder layers of the measured forward pass: busiest compute hart ${CMAKE_MATCH_1} "
                   "instructions (hart ${CMAKE_MATCH_2})")
  endif()
  set(npu "")
  if(DEFINED NPU_HART AND harts MATCHES "hart ${NPU_HART} instructions/region ([0-9]+)")
    set(npu "; NPU hart ${CMAKE_MATCH_1}")
  endif()
  if(busiest AND dma AND bytes)
    math(EXPR per_mille "${dma} * 1000 / ${bytes}")
    message(STATUS "MEASURED instructions per token: busiest compute hart ${busiest}; DMA hart ${dma} "
                   "for ${bytes} bytes = ${per_mille}/1000 instructions per byte${npu}")
  elseif(busiest)
    message(STATUS "MEASURED instructions per token: busiest compute hart ${busiest}")
  endif()
  # Per operator: the firmware names its labels, the plugin counts them.
  string(REGEX MATCH "op labels:[^\n]*" labels "${out}")
  string(REGEX MATCHALL "[0-9]+=[a-z0-9_]+" labels "${labels}")
  foreach(label IN LISTS labels)
    string(REPLACE "=" ";" label "${label}")
    list(GET label 0 k)
    list(GET label 1 op)
    if(harts MATCHES "op ${k} busiest instructions/region ([0-9]+)")
      message(STATUS "qemu ${op}: instructions/run ${CMAKE_MATCH_1}")
    endif()
    if(harts MATCHES "op ${k} on the busiest hart instructions/region ([0-9]+)") # what the cost model fits
      message(STATUS "qemu ${op}: instructions/run on the busiest hart ${CMAKE_MATCH_1}")
    endif()
  endforeach()
  # The model prices the compute harts' work with the engines on harts of their own: a
  # hart that also copies for the DMA (-smp 1) or runs the NPU's jobs (no NPU hart) is
  # not what it models.
  set(not_modelled "")
  string(REGEX MATCH "NPU jobs ([0-9]+)" _ "${per_token}")
  if(DEFINED NOT_MODELLED)
    set(not_modelled "${NOT_MODELLED}")
  elseif(SMP EQUAL 1 AND NOT MACHINE) # virt's one hart; a MACHINE's core (the M55) does its copies by design
    set(not_modelled "one hart also does the DMA engine's copies")
  elseif(CMAKE_MATCH_1 AND NOT CMAKE_MATCH_1 EQUAL 0 AND NOT SMP EQUAL 10)
    set(not_modelled "a compute hart also runs the NPU's jobs (no NPU hart)")
  endif()
  if(DEFINED INSPECT AND busiest AND not_modelled)
    message(STATUS "PREDICTED: not modelled: ${not_modelled}")
  elseif(DEFINED INSPECT AND busiest)
    include(${CMAKE_CURRENT_LIST_DIR}/measured_run.cmake)
    tessera_measured_run(run_spec firmware "${out}")
    set(cores 1)
    if(SMP EQUAL 10)
      set(cores 8)
    elseif(SMP GREATER 2)
      math(EXPR cores "${SMP} - 1")
    endif()
    if(NOT DEFINED COSTS) # whose fitted instruction counts: the board's and its kernel set
      set(COSTS qemu-virt-rv32)
      set(KERNEL_SET portable)
    endif()
    tessera_print_prediction(${INSPECT} ${busiest} instructions ${PREDICT_IMAGE} --predict ${run_spec} --cores ${cores}
                             --costs ${COSTS} --kernel-set ${KERNEL_SET})
  endif()
endif()
if(NOT DEFINED EXPECT_EXIT)
  set(EXPECT_EXIT 0)
endif()
if(NOT rc EQUAL EXPECT_EXIT)
  message(FATAL_ERROR "QEMU exited with ${rc}, not ${EXPECT_EXIT}:\n${out}\n${err}")
endif()
if(DEFINED EXPECT AND NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "output does not match '${EXPECT}':\n${out}")
endif()
if(DEFINED HOST_GENERATE)
  set(steps 200) # as many positions as the firmware ran: 200 (or STEPS), or up to the one it measures
  if(DEFINED STEPS)
    set(steps ${STEPS})
  endif()
  if(out MATCHES "measured: the forward pass at position ([0-9]+)")
    math(EXPR steps "${CMAKE_MATCH_1} + 1")
  endif()
  execute_process(COMMAND ${HOST_GENERATE} ${IMAGE} -n ${steps} -t 0 --ids -q
                  OUTPUT_VARIABLE host_ids RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tessera-generate ${IMAGE} exited with ${rc}")
  endif()
  string(REGEX MATCH "\nids: ([^\n]*)" got_line "${out}")
  if(NOT CMAKE_MATCH_1 STREQUAL host_ids)
    message(FATAL_ERROR "ids differ from the host board's:\nqemu:${CMAKE_MATCH_1}\nhost:${host_ids}")
  endif()
  string(REGEX MATCHALL "[0-9]+" n "${host_ids}")
  list(LENGTH n n)
  message(STATUS "the ${n} ids equal the host board's for ${IMAGE}")
endif()
if(DEFINED GOLDEN)
  file(STRINGS ${GOLDEN} lines)
  set(want "")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[0-9]+ ([0-9]+) .*$" "\\1" id "${line}")
    string(APPEND want " ${id}")
  endforeach()
  string(REGEX MATCH "\nids:([^\n]*)" got_line "${out}")
  set(got "${CMAKE_MATCH_1}")
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "ids differ from ${GOLDEN}:\n got:${got}\nwant:${want}")
  endif()
  message(STATUS "ids match ${GOLDEN}")
endif()
