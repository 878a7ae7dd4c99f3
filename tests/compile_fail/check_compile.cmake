# check_compile.cmake: compiles one compile-fail case (cmake -P) and checks the outcome.
#
# -DCXX=compiler -DINCLUDE=dir -DISA_INCLUDE=dir [-DKERNELS_INCLUDE=dir] -DSOURCE=file.cpp
# -DMODE=fail|pass
# fail: compiled with -DPTXKIT_COMPILE_FAIL, must not compile, and the diagnostics must match the
#       `// expected-error: <regex>` line of SOURCE.  pass: must compile cleanly (-Werror).
file(STRINGS ${SOURCE} expect_lines REGEX "^// expected-error: ")
if(NOT expect_lines)
  message(FATAL_ERROR "${SOURCE}: no `// expected-error: <regex>` line")
endif()
list(GET expect_lines 0 expect_line)
string(REGEX REPLACE "^// expected-error: " "" expected "${expect_line}")

set(flags -std=c++20 -fsyntax-only -Wall -Wextra -Werror -I${INCLUDE} -I${ISA_INCLUDE})
if(KERNELS_INCLUDE)
  list(APPEND flags -I${KERNELS_INCLUDE})
endif()
if(MODE STREQUAL "fail")
  list(APPEND flags -DPTXKIT_COMPILE_FAIL)
endif()
execute_process(COMMAND ${CXX} ${flags} ${SOURCE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)

if(MODE STREQUAL "pass")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the correct form of ${SOURCE} does not compile:\n${err}")
  endif()
  message(STATUS "compiles, as it must: ${SOURCE}")
else()
  if(rc EQUAL 0)
    message(FATAL_ERROR "the misuse in ${SOURCE} compiled; it must not")
  endif()
  if(NOT err MATCHES "${expected}")
    message(FATAL_ERROR "${SOURCE} failed to compile, but not with /${expected}/:\n${err}")
  endif()
  message(STATUS "rejected as expected (/${expected}/): ${SOURCE}")
endif()
