# What a firmware demo measured, and what the board's cost model predicts for it
# (tests/firmware/run.cmake, tests/rtl/run.cmake).
#
# tessera_measured_run(OUT RUN OUTPUT): tessera-inspect's --predict run for what a
# firmware demo measured. RUN "firmware" reads the demo's own line,
#   measured: a token at each position from A to B     -> token:A-B
#   measured: one run of S rows (...) from position P  -> rows:S@P
# any other RUN is taken as it is.
function(tessera_measured_run out run output)
  if(run STREQUAL "firmware")
    if(output MATCHES "measured: a token at each position from ([0-9]+) to ([0-9]+)")
      set(run "token:${CMAKE_MATCH_1}-${CMAKE_MATCH_2}")
    elseif(output MATCHES "measured: one run of ([0-9]+) rows? [^\n]* from position ([0-9]+)")
      set(run "rows:${CMAKE_MATCH_1}@${CMAKE_MATCH_2}")
    else()
      message(FATAL_ERROR "the firmware does not say what it measured ('measured: ...')")
    endif()
  endif()
  set(${out} "${run}" PARENT_SCOPE)
endfunction()

# tessera_print_prediction(INSPECT MEASURED UNIT ARGS...): runs `INSPECT ARGS...`
# (tessera-inspect IMAGE --predict ...), prints its lines and "PREDICTED / MEASURED: N/1000"
# for the "PREDICTED UNIT per run: N" line; fails when tessera-inspect does.
function(tessera_print_prediction inspect measured unit)
  string(REPLACE ";" " " shown "${ARGN}")
  message(STATUS "predict: tessera-inspect ${shown}")
  execute_process(COMMAND ${inspect} ${ARGN} OUTPUT_VARIABLE predicted ERROR_VARIABLE perr RESULT_VARIABLE prc)
  if(NOT prc EQUAL 0)
    message(FATAL_ERROR "tessera-inspect --predict exited with ${prc}: ${perr}")
  endif()
  message(STATUS "${predicted}")
  if(predicted MATCHES "PREDICTED ${unit} per run: ([0-9]+)")
    math(EXPR per_mille "${CMAKE_MATCH_1} * 1000 / ${measured}")
    message(STATUS "PREDICTED / MEASURED: ${per_mille}/1000")
  endif()
endfunction()
