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
