# analysis_tests.cmake: the verifier-analysis group (included by tests/verifier/CMakeLists.txt):
# analyses (analysis_*.cpp), the rules undefined-register and dead-value (rule_undefined_register*,
# rule_dead_value*), the verify driver and printers (verify_*.cpp), and the corpus/generated
# kernels sweep (verify_corpus_test.cpp, its own executable: it reads megabytes of PTX).
file(GLOB PTXKIT_ANALYSIS_TEST_SOURCES CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_LIST_DIR}/analysis_*.cpp
     ${CMAKE_CURRENT_LIST_DIR}/rule_undefined_register*.cpp
     ${CMAKE_CURRENT_LIST_DIR}/rule_dead_value*.cpp
     ${CMAKE_CURRENT_LIST_DIR}/verify_report*.cpp
     ${CMAKE_CURRENT_LIST_DIR}/verify_load*.cpp)
ptxkit_add_gtest(verifier_analysis_tests SOURCES ${PTXKIT_ANALYSIS_TEST_SOURCES}
                 LIBS ptxkit::verifier LABELS analysis)
ptxkit_add_gtest(verifier_corpus_sweep_tests SOURCES ${CMAKE_CURRENT_LIST_DIR}/verify_corpus_test.cpp
                 LIBS ptxkit::verifier LABELS corpus)
target_link_libraries(verifier_analysis_tests PRIVATE nlohmann_json::nlohmann_json)
if(EXISTS ${PROJECT_SOURCE_DIR}/tests/corpus/CMakeLists.txt)
  add_dependencies(verifier_corpus_sweep_tests ptxkit_corpus)
endif()
target_compile_definitions(verifier_corpus_sweep_tests PRIVATE
  PTXKIT_CORPUS_DIR="${PROJECT_BINARY_DIR}/tests/corpus/ptx")
# Other compilers' and projects' PTX (CUTLASS, cuda-samples, CCCL, GPUVerify): release pass only
# (no-sanitize): 95 MB of PTX, minutes under ASan, and the same code paths as the main sweep.
ptxkit_add_gtest(verifier_foreign_corpus_tests
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/verify_foreign_corpus_test.cpp
                 LIBS ptxkit::verifier LABELS corpus no-sanitize)
# (tests/corpus is configured after this directory: add_dependencies resolves the target later.
# The corpus must be unpacked before the tests are discovered, or there would be none to run.)
if(EXISTS ${PROJECT_SOURCE_DIR}/tests/corpus/CMakeLists.txt)
  add_dependencies(verifier_foreign_corpus_tests ptxkit_foreign_corpus)
endif()
target_compile_definitions(verifier_foreign_corpus_tests PRIVATE
  PTXKIT_FOREIGN_DIR="${PROJECT_BINARY_DIR}/tests/corpus/foreign-ptx"
  PTXKIT_GPUVERIFY_DIR="${PROJECT_BINARY_DIR}/tests/corpus/gpuverify-ptx"
  PTXKIT_UNSEEN_DIR="${PROJECT_BINARY_DIR}/tests/corpus/unseen-ptx"
  PTXKIT_TRUE_DEFECTS="${PROJECT_SOURCE_DIR}/tests/corpus/true-defects.tsv"
  PTXKIT_KNOWN_FALSE_ALARMS="${PROJECT_SOURCE_DIR}/tests/corpus/known-false-alarms.tsv")
# The speed bar (verifying at least 10x faster than ptxas assembles) is measured by
# bench/verify_speed.cpp (ptxkit-verify-bench), not by a test: tests do not time.
