# rule_softmax_reduction_tests.cmake: the tests of rules softmax-rescale-saved-max and
# reduction-broadcast (the stale running maximum in the online-softmax rescale and the
# lane-0-only reduction result), included by tests/verifier/CMakeLists.txt: marked-line unit
# cases, real nvcc/Triton-shaped inputs from tests/verifier/inputs/, and planted defects in golden
# kernels and the corpus.
file(GLOB PTXKIT_WARP_RULE_TEST_SOURCES CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_LIST_DIR}/rule_softmax_*.cpp
     ${CMAKE_CURRENT_LIST_DIR}/rule_reduction_*.cpp)
ptxkit_add_gtest(verifier_warp_rules_tests SOURCES ${PTXKIT_WARP_RULE_TEST_SOURCES}
                 LIBS ptxkit::verifier LABELS rules)
target_compile_definitions(verifier_warp_rules_tests PRIVATE
  PTXKIT_CORPUS_DIR="${PROJECT_BINARY_DIR}/tests/corpus/ptx")
if(EXISTS ${PROJECT_SOURCE_DIR}/tests/corpus/CMakeLists.txt)
  add_dependencies(verifier_warp_rules_tests ptxkit_corpus)
endif()
