// interp_conformance_test.cpp: the interpreter against the GPU's recorded results
// (interp_conformance_expected.tsv, written by the device test ptxkit_device_tests with
// PTXKIT_INTERP_CONFORMANCE_OUT set), and the table's own consistency.
#include "interp_conformance.h"
#include "ptxkit/verifier/verified_ptx.h"

#include <fstream>
#include <gtest/gtest.h>
#include <set>

namespace ptxkit::verifier::conformance {
namespace {

// Every case name is unique and every case has inputs a block can hold.
TEST(InterpConformance, TableIsWellFormed) {
  std::set<std::string> names;
  for (const Case& c : cases()) {
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate case " << c.name;
    EXPECT_FALSE(c.inputs.empty()) << c.name;
    EXPECT_LE(c.inputs.size(), 1024u) << c.name;
  }
}

// The GPU module passes the verifier (the device test loads it through verify_for_load).
TEST(InterpConformance, DeviceModuleVerifies) {
  const VerifiedPtxResult r = verify_for_load(device_module(), "interp_conformance.ptx");
  std::string why;
  if (!r.ok())
    for (const std::string& d : r.error().diagnostics)
      why += d + "\n";
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message) << "\n" << why;
}

// An exact case gives a known value for every input (a float or memory form it does not model
// may say unknown; the comparison with the GPU below makes sure it never guesses).
TEST(InterpConformance, ExactCasesAreKnown) {
  std::size_t rows = 0, known = 0;
  std::string partial; // the other cases the interpreter gives some value for
  for (const Case& c : cases()) {
    std::size_t k = 0;
    for (const Input& in : c.inputs) {
      const bool has = interpret(c, in).has_value();
      k += has;
      EXPECT_TRUE(has || !c.exact) << format_row(c, in, 0) << " gave unknown";
    }
    rows += c.inputs.size(), known += k;
    if (!c.exact && k > 0) partial += " " + c.name + "(" + std::to_string(k) + ")";
  }
  std::printf("the interpreter gives %zu of %zu rows a value; inexact cases with values:%s\n",
              known, rows, partial.empty() ? " none" : partial.c_str());
}

// A row written by the recording (format_row) reads back as the same key and value, comments
// and blank lines skipped.
TEST(InterpConformance, RecordRoundTrips) {
  const Case& c = cases().front();
  const Input in = {0xffffffffffffffffu, 0x8000000000000000u, 0};
  const std::string path = ::testing::TempDir() + "interp_conformance_roundtrip.tsv";
  std::ofstream(path) << "# comment\n\n" << format_row(c, in, 0x7fc00000u) << "\n";
  const auto e = read_expected(path);
  ASSERT_TRUE(e.has_value());
  ASSERT_EQ(e->size(), 1u);
  const auto it = e->find({c.name, in[0], in[1], in[2]});
  ASSERT_NE(it, e->end());
  EXPECT_EQ(it->second, 0x7fc00000u);
  EXPECT_FALSE(read_expected(path + ".missing").has_value());
}

// The interpreter's value equals the GPU's wherever it gives one, and exists for exact cases.
TEST(InterpConformance, InterpreterMatchesRecordedGpu) {
  const auto expected = read_expected(PTXKIT_INTERP_CONFORMANCE_TSV);
  ASSERT_TRUE(expected.has_value())
      << "no " << PTXKIT_INTERP_CONFORMANCE_TSV
      << " (record it on a GPU: PTXKIT_INTERP_CONFORMANCE_OUT=FILE "
         "ptxkit_device_tests --gtest_filter='InterpConformanceDevice.*')";
  std::size_t compared = 0, unknown = 0;
  for (const Case& c : cases())
    for (const Input& in : c.inputs) {
      const auto it = expected->find({c.name, in[0], in[1], in[2]});
      ASSERT_NE(it, expected->end()) << "no recorded row for " << format_row(c, in, 0)
                                     << " (re-record the file after changing the table)";
      const auto got = interpret(c, in);
      if (!got) {
        ++unknown;
        continue;
      }
      ++compared;
      EXPECT_EQ(*got, it->second) << "interpreter " << format_row(c, in, *got) << ", GPU "
                                  << std::hex << it->second;
    }
  std::printf("compared %zu values with the GPU's, %zu unknown to the interpreter\n", compared,
              unknown);
}

} // namespace
} // namespace ptxkit::verifier::conformance
