# Deeploy's graphs packed for a firmware board, each with its vectors (inputs and Deeploy's
# expected outputs as one blob, tessera-eval --emit-vectors), for the firmware demos to run once.
#   tessera_deeploy_vectors(PREFIX DIR BOARD NAME:GRAPH[:SCENARIO[:L1]] ...)
# adds PREFIX_pack_NAME (tessera-pack --board BOARD [--scenario SCENARIO] [--l1 L1], L1 0: the
# board's) and PREFIX_vectors_NAME (fixture PREFIX_NAME_image between them), writing
# DIR/NAME.tess and DIR/NAME.vectors, and sets in the caller:
#   DEEPLOY_PACKS    the vectors tests (a fixture's setup for the firmware build)
#   DEEPLOY_IMAGES   "\;NAME=DIR/NAME.tess..." and DEEPLOY_VECTORS "\;NAME=DIR/NAME.vectors...",
#                    to append to a firmware build's IMAGES and VECTORS
function(tessera_deeploy_vectors prefix dir board)
  set(packs "")
  set(images "")
  set(vectors "")
  foreach(entry IN LISTS ARGN)
    string(REPLACE ":" ";" entry "${entry}")
    list(GET entry 0 name)
    list(GET entry 1 graph)
    list(LENGTH entry n)
    set(args "")
    if(n GREATER 2)
      list(GET entry 2 scenario)
      list(APPEND args --scenario ${scenario})
    endif()
    if(n GREATER 3)
      list(GET entry 3 l1)
      if(NOT l1 EQUAL 0)
        list(APPEND args --l1 ${l1})
      endif()
    endif()
    add_test(NAME ${prefix}_pack_${name}
             COMMAND tessera-pack ${DEEPLOY_GRAPHS}/INT8/${graph}/network.onnx --board ${board} ${args} -q
                     -o ${dir}/${name}.tess)
    set_tests_properties(${prefix}_pack_${name} PROPERTIES FIXTURES_SETUP ${prefix}_${name}_image)
    add_test(NAME ${prefix}_vectors_${name}
             COMMAND tessera-eval ${dir}/${name}.tess --npz-inputs ${DEEPLOY_GRAPHS}/INT8/${graph}/inputs.npz
                     --npz-expect ${DEEPLOY_GRAPHS}/INT8/${graph}/outputs.npz --emit-vectors ${dir}/${name}.vectors)
    set_tests_properties(${prefix}_vectors_${name} PROPERTIES FIXTURES_REQUIRED ${prefix}_${name}_image)
    list(APPEND packs ${prefix}_vectors_${name})
    string(APPEND images "\\;${name}=${dir}/${name}.tess")
    string(APPEND vectors "\\;${name}=${dir}/${name}.vectors")
  endforeach()
  set(DEEPLOY_PACKS "${packs}" PARENT_SCOPE)
  set(DEEPLOY_IMAGES "${images}" PARENT_SCOPE)
  set(DEEPLOY_VECTORS "${vectors}" PARENT_SCOPE)
endfunction()
