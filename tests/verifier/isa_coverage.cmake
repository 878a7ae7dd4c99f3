# The PTX ISA 9.0 coverage matrix (isa/coverage/ptx-isa-9.0.tsv): every row parsed, printed,
# re-parsed, its opcodes found in the ISA table, and assembled by ptxas (docs/parser.md).
ptxkit_add_gtest(verifier_isa_coverage_tests SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/isa_coverage_test.cpp
                 LIBS ptxkit::verifier LABELS parser)
