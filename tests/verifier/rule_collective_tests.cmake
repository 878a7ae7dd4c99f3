# rule_collective_tests.cmake: the tests of rules barrier-divergence, partial-warp-collective,
# state-space-mismatch, shared-bounds (rules 4, 5, 7 and 8 of the first eight) and
# undeclared-register, included by tests/verifier/CMakeLists.txt: marked-line unit cases and
# planted defects in golden kernels and the corpus (planted_*.cpp also collects the planted-defect table of every rule).
file(GLOB PTXKIT_COLLECTIVE_RULE_TEST_SOURCES CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_LIST_DIR}/rule_barrier_*.cpp
     ${CMAKE_CURRENT_LIST_DIR}/rule_partial_*.cpp
     ${CMAKE_CURRENT_LIST_DIR}/rule_state_space_*.cpp
     ${CMAKE_CURRENT_LIST_DIR}/rule_shared_bounds_*.cpp
     ${CMAKE_CURRENT_LIST_DIR}/rule_undeclared_*.cpp
     ${CMAKE_CURRENT_LIST_DIR}/planted_*.cpp)
ptxkit_add_gtest(verifier_collective_rules_tests SOURCES ${PTXKIT_COLLECTIVE_RULE_TEST_SOURCES}
                 LIBS ptxkit::verifier LABELS rules)
target_compile_definitions(verifier_collective_rules_tests PRIVATE
  PTXKIT_CORPUS_DIR="${PROJECT_BINARY_DIR}/tests/corpus/ptx")
if(EXISTS ${PROJECT_SOURCE_DIR}/tests/corpus/CMakeLists.txt)
  add_dependencies(verifier_collective_rules_tests ptxkit_corpus)
endif()
