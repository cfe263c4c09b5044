# Runs a firmware ELF under QEMU (virt, bare metal, deterministic instruction
# counting) and checks it exits 0 and, with GOLDEN, prints the golden ids.
# cmake -DQEMU=... -DELF=... -DSMP=N [-DGOLDEN=file] [-DEXPECT=regex] -P run.cmake
execute_process(
  COMMAND ${QEMU} -M virt -smp ${SMP} -bios none -icount shift=0 -display none -serial stdio -monitor none
          -no-reboot -kernel ${ELF}
  INPUT_FILE /dev/null
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 600)
string(REGEX MATCH "^[^\n]*" first_line "${out}")
message(STATUS "${first_line}")
string(REGEX MATCH "mean instructions per token[^\n]*" mean "${out}")
if(mean)
  message(STATUS "${mean}")
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "QEMU exited with ${rc}:\n${out}\n${err}")
endif()
if(DEFINED EXPECT AND NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "output does not match '${EXPECT}':\n${out}")
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
