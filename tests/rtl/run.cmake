# Runs a PULP firmware on a simulator and checks it: a pulp-rtl firmware on a Verilator
# simulator of the CV32E40P cluster (SIM), or a siracusa firmware on GVSoC's Siracusa (GVSOC:
# the gvsoc launcher; CORES_WORD, 1 to 8, when given, is written to the ELF's .tessera_cores
# word, on a copy, with OBJCOPY: the cluster cores the run uses; WORK: GVSoC's work folder;
# HYPERRAM_BYTES: the board's HyperRAM, which the model makes 8 MiB otherwise).
# It checks: exit 0 (or EXPECT_EXIT), EXPECT in its output, with HOST_GENERATE and IMAGE the
# host board's ids from the same image for as many tokens (from position DEPTH over a zero
# cache where the firmware starts there: tessera-generate --depth), with GOLDEN the golden ids'
# first tokens. Prints the testbench's cycles and its profile, and
#   MEASURED cycles per run: busiest core N
# where a run is what the firmware marks (RUN names it: a token, a graph) and N
# the cycles from the run's first to last, on core 0, which forks and joins every step.
# With INSPECT (tessera-inspect), PREDICT_IMAGE, PREDICT_RUN, CORES and KERNEL_SET it also
# prints the board's cost model for the same run (tessera-inspect --predict):
#   PREDICTED cycles per run: N
# PREDICT_RUN is tessera-inspect's (token:FIRST-LAST, rows:COUNT@POSITION), or "firmware":
# what the firmware says it measured. scripts/fit-costs.py reads these outputs.
# cmake -DSIM=... | -DGVSOC=... -DWORK=dir [-DCORES_WORD=n -DOBJCOPY=exe] [-DHYPERRAM_BYTES=n]
#       -DELF=... -DRUN=token [-DHOST_GENERATE=exe -DIMAGE=tess [-DDEPTH=n]] [-DGOLDEN=file]
#       [-DEXPECT=regex] [-DEXPECT_EXIT=code] [-DINSPECT=exe -DPREDICT_IMAGE=tess -DPREDICT_RUN=run
#       -DCORES=n -DKERNEL_SET=name] -P run.cmake
if(DEFINED GVSOC)
  file(MAKE_DIRECTORY ${WORK})
  set(run_elf ${ELF})
  if(DEFINED CORES_WORD)
    if(NOT CORES_WORD MATCHES "^[1-8]$")
      message(FATAL_ERROR "CORES_WORD '${CORES_WORD}': the cluster has 1 to 8 cores")
    endif()
    set(run_elf ${WORK}/cores${CORES_WORD}.elf)
    # The word, little-endian (CMake's strings cannot hold its zero bytes).
    execute_process(COMMAND bash -c "printf '\\x0${CORES_WORD}\\x00\\x00\\x00' > ${WORK}/cores.bin" RESULT_VARIABLE prc)
    if(prc EQUAL 0)
      execute_process(COMMAND ${OBJCOPY} --update-section .tessera_cores=${WORK}/cores.bin ${ELF} ${run_elf}
                      RESULT_VARIABLE prc)
    endif()
    if(NOT prc EQUAL 0)
      message(FATAL_ERROR "${OBJCOPY} could not write .tessera_cores of ${ELF}")
    endif()
  endif()
  # GVSoC's Python is Debian's; its own gapy beside the launcher.
  set(gvsoc_opts "")
  if(DEFINED HYPERRAM_BYTES) # the model's HyperRAM, 8 MiB unless set
    set(gvsoc_opts "--config-opt=**/ram/size=${HYPERRAM_BYTES}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PATH=/usr/bin:$ENV{PATH} ${GVSOC} --target=siracusa --binary ${run_elf}
                          --work-dir=${WORK} ${gvsoc_opts} run
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 1500)
  string(APPEND out "${err}")
  # gapy: "Platform returned an error (exitcode: N)": the firmware's status.
  if(out MATCHES "Platform returned an error \\(exitcode: ([0-9]+)\\)")
    set(rc ${CMAKE_MATCH_1})
  endif()
else()
  execute_process(COMMAND ${SIM} ${ELF} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 1500)
endif()
string(REGEX MATCH "^[^\n]*" first_line "${out}")
message(STATUS "${first_line}")
if(out MATCHES "\nconformance: " OR out MATCHES "\nkernel ") # the HAL and kernel conformance programs: all of it
  message(STATUS "${out}")
endif()
string(REGEX MATCH "\n(rtl|gvsoc): .*" rtl_report "${out}")
if(rtl_report)
  message(STATUS "${rtl_report}")
endif()
string(REGEX MATCH "(rtl|gvsoc): [0-9]+ measured runs: ([0-9]+) cycles per run" _ "${out}")
set(measured "${CMAKE_MATCH_2}")
if(NOT measured AND out MATCHES "run\\.c: ([0-9]+) cycles per token") # llama2.c's run.c, timed by itself
  set(measured "${CMAKE_MATCH_1}")
  set(RUN "token of run.c (its own clock readings: mcycle)")
endif()
if(measured)
  message(STATUS "MEASURED cycles per run: busiest core ${measured}")
  if(RUN MATCHES "^([0-9]+) tokens$") # a run of many tokens: their total and their mean
    math(EXPR per_token "${measured} / ${CMAKE_MATCH_1}")
    message(STATUS "MEASURED cycles for ${RUN}: ${measured} (${per_token} a token)")
  else()
    message(STATUS "(a run here: a ${RUN})")
  endif()
endif()
if(DEFINED INSPECT AND measured)
  include(${CMAKE_CURRENT_LIST_DIR}/../firmware/measured_run.cmake)
  tessera_measured_run(run_spec "${PREDICT_RUN}" "${out}")
  tessera_print_prediction(${INSPECT} ${measured} cycles ${PREDICT_IMAGE} --predict ${run_spec} --cores ${CORES}
                           --kernel-set ${KERNEL_SET})
endif()
if(NOT DEFINED EXPECT_EXIT)
  set(EXPECT_EXIT 0)
endif()
if(NOT rc EQUAL EXPECT_EXIT)
  message(FATAL_ERROR "the simulation exited with ${rc}, not ${EXPECT_EXIT}:\n${out}\n${err}")
endif()
if(DEFINED EXPECT AND NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "output does not match '${EXPECT}':\n${out}")
endif()
string(REGEX MATCH "\nids:([^\n]*)" _ "${out}")
set(got "${CMAKE_MATCH_1}")
string(REGEX MATCHALL "[0-9]+" got_list "${got}")
list(LENGTH got_list n)
if(DEFINED HOST_GENERATE)
  if(n EQUAL 0)
    message(FATAL_ERROR "the firmware printed no ids:\n${out}")
  endif()
  if(DEFINED PROMPT) # the host stops where the model ends the text (as run.c): its ids begin the firmware's
    execute_process(COMMAND ${HOST_GENERATE} ${IMAGE} -i ${PROMPT} -n 0 -t 0 --ids -q
                    OUTPUT_VARIABLE host_ids RESULT_VARIABLE hrc OUTPUT_STRIP_TRAILING_WHITESPACE)
  else()
    set(depth_args "")
    if(DEFINED DEPTH)
      set(depth_args --depth ${DEPTH})
    endif()
    execute_process(COMMAND ${HOST_GENERATE} ${IMAGE} -n ${n} -t 0 --ids -q ${depth_args}
                    OUTPUT_VARIABLE host_ids RESULT_VARIABLE hrc OUTPUT_STRIP_TRAILING_WHITESPACE)
  endif()
  if(NOT hrc EQUAL 0)
    message(FATAL_ERROR "tessera-generate ${IMAGE} exited with ${hrc}")
  endif()
  string(LENGTH " ${host_ids} " host_len) # whole ids: a space after each
  string(LENGTH "${got} " got_len)
  set(got_prefix "")
  if(got_len GREATER_EQUAL host_len)
    string(SUBSTRING "${got} " 0 ${host_len} got_prefix)
  endif()
  if(host_ids STREQUAL "" OR (NOT DEFINED PROMPT AND NOT " ${host_ids}" STREQUAL "${got}") OR
     (DEFINED PROMPT AND NOT "${got_prefix}" STREQUAL " ${host_ids} "))
    message(FATAL_ERROR "ids differ from the host board's:\nrtl: ${got}\nhost: ${host_ids}")
  endif()
  if(DEFINED PROMPT)
    string(REGEX MATCHALL "[0-9]+" host_list "${host_ids}")
    list(LENGTH host_list host_n)
    message(STATUS "the ${host_n} ids the host board generates from '${PROMPT}' equal the firmware's first ${host_n} for ${IMAGE}")
  else()
    message(STATUS "the ${n} ids equal the host board's for ${IMAGE}")
  endif()
endif()
if(DEFINED GOLDEN)
  file(STRINGS ${GOLDEN} lines)
  set(want "")
  set(k 0)
  foreach(line IN LISTS lines)
    if(k LESS n)
      string(REGEX REPLACE "^[0-9]+ ([0-9]+) .*$" "\\1" id "${line}")
      string(APPEND want " ${id}")
    endif()
    math(EXPR k "${k} + 1")
  endforeach()
  if(n EQUAL 0 OR NOT got STREQUAL want)
    message(FATAL_ERROR "ids differ from ${GOLDEN}'s first ${n}:\n got:${got}\nwant:${want}")
  endif()
  message(STATUS "the ${n} ids equal the first ${n} of ${GOLDEN}")
endif()
