// analysis_test_util.h: helpers for the analysis and rule tests: parse a kernel, build its
// FunctionAnalysis, find instructions by source line, and compare a rule's findings with the
// lines a test marks.
//
// Why: the tests are written as PTX with markers, in the manner of clang's dataflow model tests:
// a line ending in `// [[rule-id]]` must be flagged by that rule, and every unmarked line must
// not be. Keeping the parsing of markers here keeps each test about the PTX it shows.
#pragma once

#include "ptxkit/verifier/analysis/function_analysis.h"
#include "ptxkit/verifier/parser.h"
#include "ptxkit/verifier/verify.h"

#include <gtest/gtest.h>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace ptxkit::verifier::testing {

// A parsed module with the analysis of its first function that has a body.
struct Analyzed {
  Module module;
  std::unique_ptr<analysis::FunctionAnalysis> a;
};

inline Module parse_or_fail(const std::string& text, const std::string& path = "t.ptx") {
  auto r = parse(text, path);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().format());
  if (!r.ok()) return Module{};
  return std::move(r).value();
}

inline Analyzed analyze(const std::string& text) {
  Analyzed out;
  out.module = parse_or_fail(text);
  for (const Function* f : out.module.functions())
    if (f->has_body) {
      out.a = std::make_unique<analysis::FunctionAnalysis>(*f);
      break;
    }
  EXPECT_TRUE(out.a != nullptr) << "no function with a body";
  return out;
}

// The instruction on 1-based source line `line`; fails the test when there is none.
inline analysis::InstId inst_at(const analysis::FunctionAnalysis& a, std::uint32_t line) {
  for (analysis::InstId i = 0; i < a.ir.size(); ++i)
    if (a.ir.inst(i).loc.line == line) return i;
  ADD_FAILURE() << "no instruction on line " << line;
  return 0;
}

// 1-based line of the first line containing `needle` in `text`.
inline std::uint32_t line_of(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  std::uint32_t n = 0;
  for (std::string l; std::getline(in, l);) {
    ++n;
    if (l.find(needle) != std::string::npos) return n;
  }
  ADD_FAILURE() << "no line contains '" << needle << "'";
  return 0;
}

// Lines marked `// [[rule]]` in `text`.
inline std::set<std::uint32_t> marked_lines(const std::string& text, const std::string& rule) {
  std::set<std::uint32_t> out;
  std::istringstream in(text);
  std::uint32_t n = 0;
  for (std::string l; std::getline(in, l);) {
    ++n;
    if (l.find("// [[" + rule + "]]") != std::string::npos) out.insert(n);
  }
  return out;
}

inline FileReport verify_one(const std::string& text, const std::string& rule,
                             const std::string& path = "t.ptx") {
  Module m = parse_or_fail(text, path);
  VerifyOptions o;
  o.rules = {rule};
  o.read_source_lines = false;
  return verify_module(m, o);
}

// Lines on which `rule` reported a finding (any severity).
inline std::set<std::uint32_t> flagged_lines(const FileReport& r, const std::string& rule) {
  std::set<std::uint32_t> out;
  for (const Finding& f : r.findings)
    if (f.rule == rule) out.insert(f.location.line);
  return out;
}

// Every marked line is flagged and no unmarked line is.
inline void expect_marked_lines_flagged(const std::string& text, const std::string& rule) {
  FileReport r = verify_one(text, rule);
  EXPECT_EQ(flagged_lines(r, rule), marked_lines(text, rule)) << "rule " << rule << " on:\n"
                                                              << text;
}

inline std::string kernel(const std::string& params, const std::string& body,
                          const std::string& target = "sm_90") {
  return ".version 8.0\n.target " + target + "\n.address_size 64\n\n.visible .entry k(" + params +
         ")\n{\n" + body + "}\n";
}

} // namespace ptxkit::verifier::testing
