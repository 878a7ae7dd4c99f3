# interp_tests.cmake: the tests of the one-thread PTX interpreter (verifier/interp), included by
# tests/verifier/CMakeLists.txt: its integer semantics case by case, and its control flow,
# addresses and undecided values. They need no ptxas or GPU; the comments mark the expectations
# a device test should confirm on hardware.
file(GLOB PTXKIT_INTERP_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/interp_*_test.cpp)
list(FILTER PTXKIT_INTERP_TEST_SOURCES EXCLUDE REGEX "interp_conformance_test\\.cpp$")
ptxkit_add_gtest(verifier_interp_tests SOURCES ${PTXKIT_INTERP_TEST_SOURCES}
                 LIBS ptxkit::verifier LABELS interp)

# The conformance table against the GPU's recorded results (interp_conformance.h); the device
# test (tests/device) records them and checks the GPU against both.
ptxkit_add_gtest(verifier_interp_conformance_tests
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/interp_conformance.cpp
                         ${CMAKE_CURRENT_LIST_DIR}/interp_conformance_test.cpp
                 LIBS ptxkit::verifier LABELS interp)
target_compile_definitions(verifier_interp_conformance_tests PRIVATE
  PTXKIT_INTERP_CONFORMANCE_TSV="${CMAKE_CURRENT_LIST_DIR}/interp_conformance_expected.tsv")
