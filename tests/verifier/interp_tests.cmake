# interp_tests.cmake: the tests of the one-thread PTX interpreter (verifier/interp), included by
# tests/verifier/CMakeLists.txt: its integer semantics case by case, and its control flow,
# addresses and undecided values. They need no ptxas or GPU; the comments mark the expectations
# a device test should confirm on hardware.
file(GLOB PTXKIT_INTERP_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/interp_*_test.cpp)
ptxkit_add_gtest(verifier_interp_tests SOURCES ${PTXKIT_INTERP_TEST_SOURCES}
                 LIBS ptxkit::verifier LABELS interp)
