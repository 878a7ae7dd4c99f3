# ptxkit_generate_ptx(): generate PTX for a library kernel at build time.
#
#   ptxkit_generate_ptx(OUTPUT out.ptx KERNEL rmsnorm TARGET sm_90 [SET eps=1e-6 ...] [LOC])
#
# The output is a build-time artifact with a dependency on the ptxkit executable, so a new
# generator version regenerates it.
function(ptxkit_generate_ptx)
  cmake_parse_arguments(ARG "LOC" "OUTPUT;KERNEL;TARGET" "SET" ${ARGN})
  if(NOT ARG_OUTPUT OR NOT ARG_KERNEL)
    message(FATAL_ERROR "ptxkit_generate_ptx: OUTPUT and KERNEL are required")
  endif()
  if(NOT ARG_TARGET)
    set(ARG_TARGET sm_90)
  endif()
  if(TARGET ptxkit)
    set(exe $<TARGET_FILE:ptxkit>)
  elseif(PTXKIT_EXECUTABLE)
    set(exe ${PTXKIT_EXECUTABLE})
  else()
    message(FATAL_ERROR "ptxkit_generate_ptx: no ptxkit executable (find_package(ptxkit) first)")
  endif()
  set(args gen ${ARG_KERNEL} --target ${ARG_TARGET} -o ${ARG_OUTPUT})
  foreach(s IN LISTS ARG_SET)
    list(APPEND args --set ${s})
  endforeach()
  if(ARG_LOC)
    list(APPEND args --loc)
  endif()
  add_custom_command(OUTPUT ${ARG_OUTPUT} COMMAND ${exe} ${args} DEPENDS ${exe}
    COMMENT "ptxkit gen ${ARG_KERNEL} (${ARG_TARGET})" VERBATIM)
endfunction()
