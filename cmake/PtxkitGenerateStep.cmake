# One build step of ptxkit_generate_ptx (PtxkitGenerate.cmake): generate one PTX file, then verify
# and validate it as asked. Run as `cmake -DTOOL=... -DGEN_ARGS=gen|KERNEL|--set|F=V|... -DOUTPUT=... -DARCH=...
# -DVERIFY=ON|OFF -DVALIDATE=ON|OFF -DPTXAS=path-or-empty -P PtxkitGenerateStep.cmake`.
#
# A file that fails a check is moved to OUTPUT.rejected: nothing unverified stays at OUTPUT, so
# the next build runs the step again instead of taking the file as up to date.
cmake_minimum_required(VERSION 3.25)

string(REPLACE "|" ";" GEN_ARGS "${GEN_ARGS}")

get_filename_component(dir "${OUTPUT}" DIRECTORY)
file(MAKE_DIRECTORY "${dir}")
file(REMOVE "${OUTPUT}.rejected")

execute_process(COMMAND "${TOOL}" ${GEN_ARGS} -o "${OUTPUT}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUTPUT}")
  string(REPLACE ";" " " command "${GEN_ARGS}")
  message(FATAL_ERROR "ptxkit: `${command}` failed (exit ${rc}); see the error above")
endif()

function(reject what)
  file(RENAME "${OUTPUT}" "${OUTPUT}.rejected")
  message(FATAL_ERROR "ptxkit: ${OUTPUT} ${what}; the rejected PTX is kept as "
                      "${OUTPUT}.rejected")
endfunction()

if(VERIFY)
  execute_process(COMMAND "${TOOL}" verify "${OUTPUT}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    reject("has verifier findings (exit ${rc})")
  endif()
  message("${OUTPUT}: verified: no error findings")
endif()

if(VALIDATE)
  if(PTXAS)
    set(ENV{PTXAS} "${PTXAS}")
    execute_process(COMMAND "${TOOL}" validate --arch "${ARCH}" "${OUTPUT}" RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      reject("was rejected by ptxas -arch=${ARCH} (exit ${rc})")
    endif()
  else()
    message(STATUS "ptxkit: ptxas not found: ${OUTPUT} not validated (VALIDATE skipped)")
  endif()
endif()
