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
  # Labels are set by a file ctest reads after the discovered tests: gtest_discover_tests takes
  # its PROPERTIES through cmake_parse_arguments, which splits a list of labels into separate
  # arguments (escaped or not), so every label after the first became a property name and
  # `ctest -L no-sanitize` selected no gtest.
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 TEST_LIST ${name}_TESTS)
  set(labels unit ${ARG_LABELS})
  set(labels_file "${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake")
  file(WRITE "${labels_file}"
       "if(DEFINED ${name}_TESTS)\n"
       "  set_tests_properties(\${${name}_TESTS} PROPERTIES LABELS \"${labels}\")\n"
       "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${labels_file}")
endfunction()
