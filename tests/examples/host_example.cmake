# Builds examples/host against an installed Tessera and runs it on IMAGE: its text
# must be what tessera-generate prints right after the prompt, greedy.
# cmake -DSOURCE=examples/host -DBINARY=dir -DPREFIX_PATH=install -DIMAGE=x.tess -DGENERATE=tessera-generate -P host_example.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../firmware/build.cmake) # configure and build, against PREFIX_PATH
set(prompt "Lily and Tom went to the")
execute_process(COMMAND ${BINARY}/generate ${IMAGE} ${prompt} OUTPUT_VARIABLE got RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "the example exited with ${rc}:\n${got}")
endif()
execute_process(COMMAND ${GENERATE} ${IMAGE} -t 0 -i ${prompt} -n 100 -q OUTPUT_VARIABLE want RESULT_VARIABLE rc)
string(REGEX REPLACE "[ \n]+$" "" got "${got}") # the trailing newline; the leading space is the token's
string(REGEX REPLACE "[ \n]+$" "" want "${want}")
# tessera-generate -n 100 emits one token more (its -n counts the position it samples at).
string(FIND "${want}" "${got}" at)
string(LENGTH "${prompt}" p)
if(got STREQUAL "" OR NOT at EQUAL p)
  message(FATAL_ERROR "the example's text is not what tessera-generate prints after the prompt:\nexample: ${got}\ngenerate: ${want}")
endif()
message(STATUS "examples/host: ${got}")
