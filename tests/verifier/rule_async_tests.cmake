# rule_async_tests.cmake: the tests of rule async-copy-protocol (included by
# tests/verifier/CMakeLists.txt): marked-line unit cases and planted defects in CUTLASS kernels
# of the foreign corpus (a wait or fence deleted: the rule fires there; the original is quiet).
file(GLOB PTXKIT_ASYNC_RULE_TEST_SOURCES CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_LIST_DIR}/rule_async_*.cpp)
ptxkit_add_gtest(verifier_async_rules_tests SOURCES ${PTXKIT_ASYNC_RULE_TEST_SOURCES}
                 LIBS ptxkit::verifier LABELS rules)
target_compile_definitions(verifier_async_rules_tests PRIVATE
  PTXKIT_FOREIGN_DIR="${PROJECT_BINARY_DIR}/tests/corpus/foreign-ptx")
if(EXISTS ${PROJECT_SOURCE_DIR}/tests/corpus/CMakeLists.txt)
  add_dependencies(verifier_async_rules_tests ptxkit_foreign_corpus)
endif()
