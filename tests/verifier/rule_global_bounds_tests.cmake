# rule_global_bounds_tests.cmake: the tests of rule global-bounds, included by
# tests/verifier/CMakeLists.txt: its contract syntax, planted defects on library kernels (a
# buffer one element smaller than the kernel reads, a tail guard `<` mutated to `<=` in a golden
# file) and the sweep of every reference config of every library kernel (zero findings, sites in
# each kernel). The kernels' contracts come from cli/src/kernel_contract.cpp.
ptxkit_add_gtest(verifier_global_bounds_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/rule_global_bounds_test.cpp
          ${PROJECT_SOURCE_DIR}/cli/src/kernel_contract.cpp
  LIBS ptxkit::verifier ptxkit_kernels LABELS rules)
target_include_directories(verifier_global_bounds_tests PRIVATE ${PROJECT_SOURCE_DIR}/cli/src)
