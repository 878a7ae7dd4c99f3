# Helpers for registering ptxkit tests with ctest.
include(GoogleTest)

# ptxkit_add_gtest(NAME src... LIBS lib...): one GoogleTest executable, each TEST a ctest test.
function(ptxkit_add_gtest name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    PTXKIT_SOURCE_DIR="${PROJECT_SOURCE_DIR}" PTXKIT_BINARY_DIR="${PROJECT_BINARY_DIR}"
    PTXKIT_PTXAS="${PTXKIT_PTXAS}")
  # gtest_discover_tests flattens PROPERTIES into one list, so a multi-valued LABELS must keep
  # its separators escaped or every label after the first becomes a property name.
  set(labels unit ${ARG_LABELS})
  string(REPLACE ";" "\\;" labels "${labels}")
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS "${labels}")
endfunction()
