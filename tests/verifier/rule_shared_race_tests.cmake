# rule_shared_race_tests.cmake: the tests of rule shared-race (data races between the threads of
# a block in one barrier interval), included by tests/verifier/CMakeLists.txt: marked-line unit
# cases (warp syncs, atomics, 2-D blocks, block-stride loops, --block-dim) and planted missing
# barriers in golden kernels and a CUB block reduction of the corpus.
file(GLOB PTXKIT_SHARED_RACE_TEST_SOURCES CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_LIST_DIR}/rule_shared_race_*.cpp)
ptxkit_add_gtest(verifier_shared_race_tests SOURCES ${PTXKIT_SHARED_RACE_TEST_SOURCES}
                 LIBS ptxkit::verifier LABELS rules)
target_compile_definitions(verifier_shared_race_tests PRIVATE
  PTXKIT_CORPUS_DIR="${PROJECT_BINARY_DIR}/tests/corpus/ptx")
if(EXISTS ${PROJECT_SOURCE_DIR}/tests/corpus/CMakeLists.txt)
  add_dependencies(verifier_shared_race_tests ptxkit_corpus)
endif()
